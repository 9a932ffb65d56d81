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
        y = json.loads(fh.readline())["y"]
    m0, p0, q, r = precisions(model)
    n = len(y)
    # The variances do not depend on the data: the Riccati recursion runs
    # on plain floats, the fastest form of a scalar loop in Python; the
    # means use the gains as NumPy arrays where the recursion allows.
    vp = [0.0] * n  # predicted variances
    vf = [0.0] * n  # filtered variances
    var, iq, ir = 1.0 / p0, 1.0 / q, 1.0 / r
    for t in range(n):
        if t > 0:
            var += iq
        vp[t] = var
        var = var * ir / (var + ir)
        vf[t] = var
    vp_a, vf_a = np.asarray(vp), np.asarray(vf)
    s_a = vp_a + ir  # innovation variances
    k_a = vp_a / s_a  # gains
    mf = [0.0] * n
    mean, nll = m0, 0.0
    ks = k_a.tolist()
    for t in range(n):
        e = y[t] - mean
        mean += ks[t] * e
        mf[t] = mean
    mf_a = np.asarray(mf)
    pred = np.concatenate([[m0], mf_a[:-1]])
    e_a = np.asarray(y) - pred
    nll = 0.5 * float(np.sum(np.log(2 * math.pi * s_a) + e_a * e_a / s_a))
    g_a = np.empty(n)
    g_a[:-1] = vf_a[:-1] / vp_a[1:]
    ms, vs = mf[:], vf[:]
    g = g_a.tolist()
    for t in range(n - 2, -1, -1):
        ms[t] = mf[t] + g[t] * (ms[t + 1] - mf[t])
        vs[t] = vf[t] + g[t] * g[t] * (vs[t + 1] - vp[t + 1])
    post = [{"family": "normal", "mean": a, "variance": b} for a, b in zip(ms, vs)]
    # json.dumps, not json.dump: dump streams through the pure-Python
    # encoder (a write per token, 5 s here), dumps runs the C encoder.
    sys.stdout.write(json.dumps({"free_energy": nll, "posteriors": {"x": post}}))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
