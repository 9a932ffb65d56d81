#!/usr/bin/env python3
"""One --data line of a simulated local-level series, for the benchmark of
`arbor infer` against bench/rts_local_level.py:

    python3 bench/local_level_data.py N SEED > data.jsonl

x[0] ~ N(0, 10), x[t] = x[t-1] + N(0, 1/4), y[t] = x[t] + N(0, 1): the
precisions of examples/models/loops/kalman.json."""
import json
import sys

import numpy as np

n, seed = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(seed)
x = np.cumsum(np.concatenate([[rng.normal(0, 10 ** 0.5)], rng.normal(0, 0.5, n - 1)]))
y = x + rng.normal(0, 1, n)
json.dump({"y": [round(v, 6) for v in y.tolist()]}, sys.stdout)
sys.stdout.write("\n")
