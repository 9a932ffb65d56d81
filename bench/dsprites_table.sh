#!/usr/bin/env bash
# The dSprites table of docs/btai.md: arbor's BTAI at the BTAI_3MF
# author's settings (--preset 3mf --exploration 2.4, 50 iterations at
# granularities 8, 4, 2 and 150 at 1) and at arbor's default preset, aci
# at horizon 2, and the NumPy peer of the author's agent
# (bench/dsprites_btai3mf.py), each over TRIALS trials (default 1000; the
# peer over PEER_TRIALS, default 1000). Prints the table in Markdown on
# standard output; `make dsprites-table` puts it into docs/btai.md.
#
#   bash bench/dsprites_table.sh [ARBOR_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
arbor=${1:-./arbor}
trials=${TRIALS:-1000}
peer_trials=${PEER_TRIALS:-1000}
py=${PYTHON:-/usr/bin/python3}

# field NAME: the value of NAME in the JSON line on standard input.
field() { "$py" -c 'import json,sys; print(json.loads(sys.stdin.readlines()[-1])[sys.argv[1]])' "$1"; }

echo "| granularity | iterations | published (100 trials) | arbor --preset 3mf | s per trial | NumPy peer | s per trial | arbor default preset | s per trial | aci, horizon 2 | s per trial |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for row in "8 50 0.8956" "4 50 0.9778" "2 50 0.9966" "1 150 1.0"; do
  set -- $row
  g=$1 it=$2 pub=$3
  m=$("$arbor" btai run --env dsprites --granularity "$g" --preset 3mf --iterations "$it" --exploration 2.4 --episodes "$trials" --seed 1 --jobs 1 --json | tail -1)
  p=$("$py" bench/dsprites_btai3mf.py --granularity "$g" --iterations "$it" --trials "$peer_trials" --seed 1)
  d=$("$arbor" btai run --env dsprites --granularity "$g" --past factorised --episodes "$trials" --seed 1 --jobs 1 --json | tail -1)
  a=$("$arbor" aci run --env dsprites --granularity "$g" --horizon 2 --past factorised --episodes "$trials" --seed 1 --jobs 1 --json | tail -1)
  printf '| %s | %s | %s | %.4f | %.4f | %.4f | %.3f | %.4f | %.3f | %.4f | %.4f |\n' "$g" "$it" "$pub" \
    "$(field rate <<<"$m")" "$(field seconds_per_trial <<<"$m")" \
    "$(field rate <<<"$p")" "$(field seconds_per_trial <<<"$p")" \
    "$(field rate <<<"$d")" "$(field seconds_per_trial <<<"$d")" \
    "$(field rate <<<"$a")" "$(field seconds_per_trial <<<"$a")"
done
echo
echo "Measured by \`make dsprites-table\` ($trials trials for arbor, $peer_trials for the peer, seed 1, one job each) on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
