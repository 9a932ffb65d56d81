#!/usr/bin/env bash
# Import-DAG check (docs/architecture.md; the rules are explained in
# docs/architecture.md, "Who may import whom").
#
#   .ci/importcheck.sh             check every package of the module
#   .ci/importcheck.sh --selftest  feed known good and bad edges to the checker
#
# Library code (a package's non-test files) may import exactly the arbor
# packages the DAG lists for it; sub-packages (nodes/nodetest) follow the
# rules of their top-level package. internal/ may be imported only by cmd/,
# examples/ and internal/ itself. expfam may import no third-party module but
# gonum. Test files may in addition import any arbor library package (tests
# build fixtures with the public API; nothing imports a test, so this adds no
# edge to the dependency graph), but never cmd/ or examples/, and internal/
# only under the rule above. internal/misusetest, the harness of the
# misuse tables, is the exception: the test files of any package may import
# it, no library code may, and it imports the standard library only.
#
# internal/jsonread, internal/apierr, internal/prefault, internal/fastexp and
# internal/spawn are leaves that any package may import: their library code imports the
# standard library only.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=github.com/arbor-ai/arbor
libs=" expfam messages nodes ffg schedule model pomdp behaviour agent aci btai si envs fit "

# dag_allows FROM TO: is the library edge FROM -> TO (top-level package
# names) in the DAG of docs/architecture.md?
dag_allows() {
  local f=$1 t=$2
  [ "$f" = "$t" ] && return 0
  case "$f" in
    expfam)   return 1 ;;
    messages) [[ $t == expfam ]] ;;
    nodes)    [[ $t == expfam || $t == messages ]] ;;
    ffg)      [[ $t == expfam || $t == messages ]] ;;
    schedule) [[ $t == ffg || $t == messages ]] ;;
    model)    [[ $t == ffg || $t == nodes || $t == schedule || $t == expfam || $t == messages ]] ;;
    pomdp)    [[ $t == ffg || $t == nodes || $t == schedule || $t == expfam || $t == messages ]] ;;
    behaviour) [[ $t == pomdp ]] ;;
    agent)    [[ $t == pomdp || $t == behaviour || $t == expfam ]] ;;
    aci)      [[ $t == agent || $t == pomdp || $t == ffg || $t == nodes || $t == schedule || $t == expfam ]] ;;
    btai)     [[ $t == agent || $t == pomdp || $t == ffg || $t == nodes || $t == schedule || $t == expfam ]] ;;
    si)       [[ $t == agent || $t == pomdp || $t == expfam ]] ;;
    envs)     [[ $t == pomdp || $t == agent ]] ;;
    fit)      [[ $t == agent || $t == behaviour || $t == pomdp || $t == expfam ]] ;;
    internal) [[ $libs == *" $t "* ]] ;;
    cmd|examples) [[ $libs == *" $t "* ]] ;;
    *) return 1 ;;
  esac
}

# is_leaf PKG: is PKG (module-relative) one of the leaves of internal/ that
# any package may import?
is_leaf() {
  [[ $1 == internal/jsonread || $1 == internal/apierr || $1 == internal/prefault || $1 == internal/fastexp || $1 == internal/spawn ]]
}

# allowed FROM TO KIND: FROM and TO are module-relative import paths, KIND
# is "lib" or "test".
allowed() {
  local from=$1 to=$2 kind=$3
  local f=${from%%/*} t=${to%%/*}
  [ "$from" = "$to" ] && return 0
  [ "$to" = internal/misusetest ] && { [ "$kind" = test ]; return; }
  [ "$from" = internal/misusetest ] && [ "$kind" = lib ] && return 1
  is_leaf "$from" && [[ $kind == lib ]] && return 1   # a leaf
  case "$t" in
    cmd|examples) return 1 ;;   # nothing imports a command or an example
    internal) is_leaf "$to" || [[ $f == cmd || $f == examples || $f == internal ]]; return ;;
  esac
  dag_allows "$f" "$t" && return 0
  [ "$kind" = test ] && [[ $libs == *" $t "* ]] && [[ $f != expfam ]]
}

# check reads lines "PKG|LIBIMPORTS|TESTIMPORTS" (full import paths,
# space-separated) and prints one line per forbidden edge; its status is 1
# when there is any.
check() {
  local bad=0 pkg libimps testimps from imp to kind
  while IFS='|' read -r pkg libimps testimps; do
    from=${pkg#"$mod"/}
    for kind in lib test; do
      local imps=$libimps
      [ "$kind" = test ] && imps=$testimps
      for imp in $imps; do
        case "$imp" in
          "$mod"/*)
            to=${imp#"$mod"/}
            if ! allowed "$from" "$to" "$kind"; then
              echo "import edge not in the DAG of docs/architecture.md: $from -> $to ($kind)"; bad=1
            fi ;;
          *.*/*)
            if [[ ${from%%/*} == expfam && $kind == lib && $imp != gonum.org/* ]]; then
              echo "expfam may import gonum only: $from -> $imp"; bad=1
            fi
            if { [[ $from == internal/misusetest ]] || is_leaf "$from"; } && [[ $kind == lib ]]; then
              echo "${from} may import the standard library only: $from -> $imp"; bad=1
            fi ;;
        esac
      done
    done
  done
  return $bad
}

selftest() {
  local fail=0 line want got
  # Each case: expected status (0 allowed, 1 forbidden), then the input line.
  while IFS=';' read -r want line; do
    [ -z "$want" ] && continue
    if got=$(printf '%s\n' "$line" | check 2>&1); then got=0; else got=1; fi
    if [ "$got" != "$want" ]; then
      echo "importcheck selftest: '$line': status $got, want $want"; fail=1
    fi
  done <<EOF
0;$mod/messages|$mod/expfam|
0;$mod/nodes/nodetest|$mod/messages|
0;$mod/schedule|$mod/ffg $mod/messages|
0;$mod/btai|$mod/pomdp $mod/ffg $mod/nodes $mod/schedule $mod/expfam|$mod/envs
0;$mod/pomdp|$mod/ffg $mod/nodes $mod/schedule $mod/expfam $mod/messages|
0;$mod/aci|$mod/pomdp $mod/ffg|
0;$mod/envs|$mod/pomdp|
0;$mod/fit|$mod/pomdp $mod/expfam|$mod/aci $mod/btai
0;$mod/si|$mod/pomdp $mod/expfam|$mod/aci $mod/envs
0;$mod/cmd/arbor|$mod/si $mod/aci|
0;$mod/ffg||$mod/nodes $mod/schedule
0;$mod/cmd/arbor|$mod/model $mod/btai $mod/envs|
0;$mod/examples/hmm|$mod/ffg $mod/nodes $mod/model|
0;$mod/model|$mod/ffg $mod/nodes $mod/schedule|
0;$mod/expfam|gonum.org/v1/gonum/mathext|github.com/google/go-cmp/cmp
0;$mod/aci|$mod/agent $mod/pomdp|
0;$mod/btai|$mod/agent $mod/pomdp $mod/ffg|$mod/envs
0;$mod/si|$mod/agent $mod/pomdp $mod/expfam|
0;$mod/envs|$mod/pomdp $mod/agent|
0;$mod/agent|$mod/pomdp $mod/behaviour $mod/expfam|
0;$mod/behaviour|$mod/pomdp|
0;$mod/fit|$mod/agent $mod/behaviour $mod/pomdp $mod/expfam|$mod/aci
0;$mod/cmd/arbor|$mod/agent $mod/behaviour $mod/pomdp|
0;$mod/internal/output|$mod/agent $mod/behaviour|
0;$mod/pomdp||$mod/agent $mod/behaviour
1;$mod/aci|$mod/messages|
1;$mod/btai|$mod/messages|
1;$mod/schedule|$mod/expfam|
1;$mod/ffg|$mod/nodes|
1;$mod/nodes|$mod/ffg|
1;$mod/messages|$mod/nodes|
1;$mod/expfam|$mod/messages|
1;$mod/expfam||$mod/messages
1;$mod/envs|$mod/expfam|
1;$mod/aci|$mod/btai|
1;$mod/btai|$mod/aci|
1;$mod/si|$mod/aci|
1;$mod/si|$mod/btai|
1;$mod/si|$mod/ffg|
1;$mod/aci|$mod/si|
1;$mod/pomdp|$mod/si|
1;$mod/fit|$mod/aci|
1;$mod/pomdp|$mod/fit|
1;$mod/pomdp|$mod/aci|
1;$mod/pomdp|$mod/btai|
1;$mod/envs|$mod/aci|
1;$mod/nodes|$mod/model|
1;$mod/model|$mod/pomdp|
1;$mod/model|$mod/aci|
1;$mod/ffg||$mod/cmd/arbor
1;$mod/cmd/arbor|$mod/examples/hmm|
1;$mod/model|$mod/cmd/arbor|
1;$mod/newpkg|$mod/expfam|
1;$mod/expfam|github.com/google/go-cmp/cmp|
1;$mod/behaviour|$mod/agent|
1;$mod/pomdp|$mod/agent|
1;$mod/pomdp|$mod/behaviour|
1;$mod/agent|$mod/aci|
1;$mod/agent|$mod/ffg|
1;$mod/behaviour|$mod/ffg|
1;$mod/envs|$mod/behaviour|
1;$mod/si|$mod/behaviour|
1;$mod/agent||$mod/cmd/arbor
0;$mod/ffg||$mod/internal/misusetest
0;$mod/expfam||$mod/internal/misusetest
0;$mod/cmd/arbor||$mod/internal/misusetest
0;$mod/internal/misusetest|fmt go/doc testing|
1;$mod/ffg|$mod/internal/misusetest|
1;$mod/cmd/arbor|$mod/internal/misusetest|
1;$mod/internal/shard|$mod/internal/misusetest|
1;$mod/internal/misusetest|$mod/ffg|
1;$mod/internal/misusetest|$mod/internal/output|
1;$mod/internal/misusetest|github.com/google/go-cmp/cmp|
0;$mod/model|$mod/internal/jsonread|
0;$mod/aci|$mod/internal/apierr|
1;$mod/internal/apierr|$mod/pomdp|
1;$mod/internal/apierr|$mod/internal/output|
0;$mod/pomdp|$mod/internal/jsonread|
0;$mod/expfam|$mod/internal/jsonread|
0;$mod/cmd/arbor|$mod/internal/jsonread $mod/internal/output|
1;$mod/model|$mod/internal/output|
1;$mod/pomdp|$mod/internal/shard|
1;$mod/model||$mod/internal/output
1;$mod/internal/jsonread|$mod/expfam|
1;$mod/internal/jsonread|$mod/internal/output|
1;$mod/internal/jsonread|github.com/google/go-cmp/cmp|
0;$mod/btai|$mod/internal/fastexp|
0;$mod/aci|$mod/internal/fastexp $mod/pomdp|
0;$mod/si|$mod/internal/fastexp|
0;$mod/expfam|$mod/internal/fastexp|
0;$mod/internal/fastexp|math math/big sync|
1;$mod/internal/fastexp|$mod/expfam|
1;$mod/internal/fastexp|$mod/internal/jsonread|
1;$mod/internal/fastexp|github.com/google/go-cmp/cmp|
0;$mod/btai|$mod/internal/spawn $mod/internal/fastexp|
0;$mod/aci|$mod/internal/spawn|
1;$mod/internal/spawn|$mod/pomdp|
1;$mod/internal/spawn|$mod/internal/fastexp|
EOF
  if [ $fail = 0 ]; then echo "importcheck selftest: ok"; fi
  return $fail
}

if [ "${1:-}" = --selftest ]; then
  selftest
  exit
fi
go list -e -f '{{.ImportPath}}|{{join .Imports " "}}|{{join .TestImports " "}} {{join .XTestImports " "}}' ./... | check
