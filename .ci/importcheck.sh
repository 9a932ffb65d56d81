#!/usr/bin/env bash
# Fails on any import edge between arbor packages that is not in the DAG of
# DESIGN.md section 1. Standard-library and third-party imports are checked
# only for the packages that DESIGN.md restricts (expfam: gonum only; envs:
# nothing of ours).
set -euo pipefail
mod=$(go list -m)
allowed() { # $1 = importer (relative), $2 = imported (relative)
  local from=$1 to=$2
  # sub-packages inherit the rules of their top-level package
  local f=${from%%/*} t=${to%%/*}
  [ "$from" = "$to" ] && return 0
  [ "$f" = "$t" ] && return 0
  [ "$t" = "internal" ] && return 0   # internal helpers (testutil etc.) are shared
  case "$f" in
    expfam)   return 1 ;;
    messages) [[ $t == expfam ]] ;;
    nodes)    [[ $t == expfam || $t == messages ]] ;;
    ffg)      [[ $t == expfam || $t == messages ]] ;;
    schedule) [[ $t == ffg || $t == messages || $t == expfam ]] ;;
    aci)      [[ $t == ffg || $t == nodes || $t == schedule || $t == expfam || $t == messages ]] ;;
    btai)     [[ $t == ffg || $t == nodes || $t == schedule || $t == expfam || $t == aci || $t == messages ]] ;;
    envs)     return 1 ;;
    internal) [[ $t != cmd && $t != examples ]] ;;
    cmd|examples) [[ $t != examples && $t != cmd ]] ;;
    *) return 1 ;;
  esac
}
bad=0
while read -r pkg imports; do
  from=${pkg#"$mod"/}
  for imp in $imports; do
    case "$imp" in
      "$mod"/*) to=${imp#"$mod"/}
        if ! allowed "$from" "$to"; then echo "import edge not in DESIGN.md DAG: $from -> $to"; bad=1; fi ;;
      *.*/*)
        # third-party: expfam may use gonum only; envs nothing of ours (third party ok)
        if [[ ${from%%/*} == expfam && $imp != gonum.org/* ]]; then echo "expfam may import gonum only: $from -> $imp"; bad=1; fi ;;
    esac
  done
done < <(go list -f '{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}}' ./...)
# internal/ is only for helpers: nothing in the DAG core may depend on it except tests.
exit $bad
