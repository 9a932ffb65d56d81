#!/usr/bin/env python3
"""One --data line of a simulated planar position-velocity track, for the
benchmark of `arbor infer` against bench/rts_tracking.py:

    python3 bench/tracking_data.py N SEED > data.jsonl

The state (px, py, vx, vy) moves with dt = 1 and white-noise acceleration of
spectral density 0.1; y[t] is the position with noise of covariance
[[0.5, 0.1], [0.1, 0.4]]: the parameters of examples/models/multivariate/tracking.json."""
import json
import sys

import numpy as np

n, seed = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(seed)
A = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1.0]])
Q = 0.1 * np.array([[1 / 3, 0, 0.5, 0], [0, 1 / 3, 0, 0.5], [0.5, 0, 1, 0], [0, 0.5, 0, 1.0]])
R = np.array([[0.5, 0.1], [0.1, 0.4]])
x = np.array([0, 0, 1, -0.5])
lq, lr = np.linalg.cholesky(Q), np.linalg.cholesky(R)
ys = []
for t in range(n):
    if t > 0:
        x = A @ x + lq @ rng.normal(size=4)
    ys.append((x[:2] + lr @ rng.normal(size=2)).round(6).tolist())
json.dump({"y": ys}, sys.stdout)
sys.stdout.write("\n")
