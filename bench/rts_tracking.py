#!/usr/bin/env python3
"""The peer of `arbor infer` on the planar tracking model: a Kalman filter
and Rauch-Tung-Striebel smoother written with NumPy, as a user would write
it.

    python3 bench/rts_tracking.py MODEL.json DATA.jsonl > posteriors.json

MODEL.json is the model file arbor reads (examples/models/multivariate/tracking.json):
x[0] ~ N(m0, P0), x[t] ~ N(A x[t-1], Q), y[t] ~ N(H x[t], R), with m0, P0,
A, Q, H and R read from its factors. DATA.jsonl is one line {"y": [[..],
...]}; the number of steps is the length of y. The output is one JSON
object as `arbor infer --json` prints it: the posterior of every x[t] (mean
and covariance) and the free energy F = -ln p(y).
"""
import json
import sys

import numpy as np


def parameters(model):
    """m0, P0, A, Q, H and R from the factors of the model file."""
    p = {}
    for f in model["factors"]:
        if f["out"] == "x[0]":
            p["m0"], p["P0"] = np.array(f["mean"], float), np.array(f["covariance"], float)
        elif f["out"] == "x[t]":
            p["A"], p["Q"] = np.array(f["mean"]["matrix"], float), np.array(f["covariance"], float)
        elif f["out"] == "y[t]":
            p["H"], p["R"] = np.array(f["mean"]["matrix"], float), np.array(f["covariance"], float)
    return p


def main():
    with open(sys.argv[1]) as fh:
        p = parameters(json.load(fh))
    with open(sys.argv[2]) as fh:
        y = np.array(json.loads(fh.readline())["y"], float)
    A, Q, H, R = p["A"], p["Q"], p["H"], p["R"]
    n, d = len(y), len(p["m0"])
    mp, Pp = np.empty((n, d)), np.empty((n, d, d))
    mf, Pf = np.empty((n, d)), np.empty((n, d, d))
    m, P = p["m0"], p["P0"]
    nll = 0.0
    for t in range(n):
        if t > 0:
            m, P = A @ mf[t - 1], A @ Pf[t - 1] @ A.T + Q
        mp[t], Pp[t] = m, P
        S = H @ P @ H.T + R
        v = y[t] - H @ m
        Si = np.linalg.inv(S)
        K = P @ H.T @ Si
        nll += 0.5 * (v @ Si @ v + np.linalg.slogdet(S)[1] + len(v) * np.log(2 * np.pi))
        mf[t], Pf[t] = m + K @ v, P - K @ S @ K.T
    ms, Ps = mf.copy(), Pf.copy()
    for t in range(n - 2, -1, -1):
        G = Pf[t] @ A.T @ np.linalg.inv(Pp[t + 1])
        ms[t] = mf[t] + G @ (ms[t + 1] - mp[t + 1])
        Ps[t] = Pf[t] + G @ (Ps[t + 1] - Pp[t + 1]) @ G.T
    post = [{"family": "mvnormal", "mean": ms[t].tolist(), "covariance": Ps[t].tolist()} for t in range(n)]
    json.dump({"iterations": 1, "converged": True, "free_energy": [nll], "posteriors": {"x": post}}, sys.stdout)
    sys.stdout.write("\n")


main()
