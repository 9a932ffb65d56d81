#!/bin/bash
# One BTAI job in 8 shards on the machines GNU parallel reaches (-S; on
# one machine, leave -S out), then the merge:
#
#   bash examples/cluster/parallel.sh         (from the repository's root)
#
# The shards name themselves (--shard {}/8): no scheduler variable is
# read. Run it again after a failure: --resume skips the finished shards.
set -euo pipefail
parallel -j 4 arbor btai run --model examples/pomdp/tmaze.json --agents 32 --episodes 2 --steps 2 --iterations 20 --json --shard {}/8 --out runs/tmaze --resume ::: 1 2 3 4 5 6 7 8
arbor merge runs/tmaze > tmaze.jsonl
