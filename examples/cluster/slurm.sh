#!/bin/bash
# A Slurm job array running one BTAI job in 8 shards, one per array task:
#
#   sbatch examples/cluster/slurm.sh          (from the repository's root)
#   arbor merge runs/tmaze > tmaze.jsonl      (once every task has finished)
#
# --shard auto reads SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and
# SLURM_ARRAY_TASK_COUNT (task 0 of --array=0-7 is shard 1/8). A task that
# fails or is killed leaves no shard file; resubmitting the array
# (sbatch --array=3 for task 3 alone) with --resume runs only what is
# missing. The merge submitted with --dependency=afterok:JOBID waits for
# the whole array.
#SBATCH --job-name=arbor-tmaze
#SBATCH --array=0-7
#SBATCH --cpus-per-task=2
#SBATCH --time=00:30:00
#SBATCH --output=runs/slurm-%A_%a.log
set -euo pipefail
arbor btai run --model examples/pomdp/tmaze.json --agents 32 --episodes 2 --steps 2 --iterations 20 --jobs 2 --json --shard auto --out runs/tmaze --resume
