#!/usr/bin/env python3
"""The peer of `arbor infer` on a local-level model: a Kalman filter and
Rauch-Tung-Striebel smoother written with NumPy, as a user would write it.

    python3 bench/rts_local_level.py MODEL.json DATA.jsonl > posteriors.json

MODEL.json is the model file arbor reads (examples/models/loops/kalman.json):
x[0] ~ N(m0, 1/p0), x[t] ~ N(x[t-1], 1/q) and y[t] ~ N(x[t], 1/r), with the
three precisions and m0 read from its factors. DATA.jsonl is one line
{"y": [...]}; the number of steps is the length of y. The output is one JSON
object as `arbor infer --json` prints it: the posterior of every x[t]
(mean and variance) and the free energy F = -ln p(y).
"""
import json
import math
import sys

import numpy as np


def precisions(model):
    """m0, p0, q and r from the factors of the model file."""
    m0 = p0 = q = r = None
    for f in model["factors"]:
        if f.get("node") != "normal":
            continue
        out, mean, prec = f["out"], f["mean"], float(f["precision"])
        if out == "x[0]":
            m0, p0 = float(mean), prec
        elif out == "x[t]":
            q = prec
        elif out == "y[t]":
            r = prec
    return m0, p0, q, r


def main():
    with open(sys.argv[1]) as fh:
        model = json.load(fh)
    with open(sys.argv[2]) as fh:
        y = np.asarray(json.loads(fh.readline())["y"], dtype=float)
    m0, p0, q, r = precisions(model)
    n = len(y)
    mf = np.empty(n)  # filtered means and variances
    vf = np.empty(n)
    vp = np.empty(n)  # predicted variances (for the smoother)
    mean, var = m0, 1.0 / p0
    nll = 0.0
    for t in range(n):
        if t > 0:
            var = var + 1.0 / q
        vp[t] = var
        s = var + 1.0 / r  # innovation variance
        e = y[t] - mean
        nll += 0.5 * (math.log(2 * math.pi * s) + e * e / s)
        k = var / s
        mean = mean + k * e
        var = (1.0 - k) * var
        mf[t], vf[t] = mean, var
    ms = mf.copy()
    vs = vf.copy()
    for t in range(n - 2, -1, -1):
        g = vf[t] / vp[t + 1]
        ms[t] = mf[t] + g * (ms[t + 1] - mf[t])
        vs[t] = vf[t] + g * g * (vs[t + 1] - vp[t + 1])
    post = [{"family": "normal", "mean": float(a), "variance": float(b)} for a, b in zip(ms, vs)]
    json.dump({"free_energy": nll, "posteriors": {"x": post}}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
