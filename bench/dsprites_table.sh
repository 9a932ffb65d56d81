#!/usr/bin/env bash
# The dSprites table of docs/btai.md: arbor's BTAI at the BTAI_3MF
# author's settings (--preset 3mf --exploration 2.4; 50 iterations at
# granularities 8, 4, 2 and 50, 100, 150 at 1) over TRIALS trials (default
# 1000), the NumPy peer of the author's agent (bench/dsprites_btai3mf.py)
# over PEER_TRIALS (default 200), and arbor's default preset and aci at
# horizon 2 over OTHER_TRIALS (default 200), each on one core, one trial
# after the other. Prints the table in Markdown on standard output; `make
# dsprites-table` puts it into docs/btai.md.
#
#   bash bench/dsprites_table.sh [ARBOR_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
arbor=${1:-./arbor}
trials=${TRIALS:-1000}
peer_trials=${PEER_TRIALS:-200}
other_trials=${OTHER_TRIALS:-200}
py=${PYTHON:-/usr/bin/python3}

# field NAME: the value of NAME in the last JSON line on standard input.
field() { "$py" -c 'import json,sys; print(json.loads(sys.stdin.readlines()[-1])[sys.argv[1]])' "$1"; }
# score LINE: "rate | s per trial" of a summary line.
score() { printf '%.4f | %.4f' "$(field rate <<<"$1")" "$(field seconds_per_trial <<<"$1")"; }

before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "| granularity | iterations | published rate (100 trials) | arbor \`--preset 3mf\` rate | s per trial | NumPy peer rate | s per trial | arbor default preset rate | s per trial | aci (horizon 2) rate | s per trial |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for row in "8 50 0.8956 y" "4 50 0.9778 y" "2 50 0.9966 y" "1 50 0.72 n" "1 100 0.77 n" "1 150 1.0 y"; do
  set -- $row
  g=$1 it=$2 pub=$3 others=$4
  m=$("$arbor" btai run --env dsprites --granularity "$g" --preset 3mf --iterations "$it" --exploration 2.4 --episodes "$trials" --seed 1 --jobs 1 --json | tail -1)
  p=$("$py" bench/dsprites_btai3mf.py --granularity "$g" --iterations "$it" --trials "$peer_trials" --seed 1)
  rest="— | — | — | —"
  if [ "$others" = y ]; then
    d=$("$arbor" btai run --env dsprites --granularity "$g" --past factorised --episodes "$other_trials" --seed 1 --jobs 1 --json | tail -1)
    a=$("$arbor" aci run --env dsprites --granularity "$g" --horizon 2 --past factorised --episodes "$other_trials" --seed 1 --jobs 1 --json | tail -1)
    rest="$(score "$d") | $(score "$a")"
  fi
  echo "| $g | $it | $pub | $(score "$m") | $(score "$p") | $rest |"
done
echo
echo "Measured by \`make dsprites-table\`: arbor \`--preset 3mf\` over $trials trials, the NumPy peer over $peer_trials, the default preset (with \`--past factorised\`) and aci over $other_trials; seed 1, one core each; $(nproc) cores shared with other jobs, load average $before before and $(cut -d' ' -f1-3 /proc/loadavg) after."
