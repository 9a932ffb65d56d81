#!/usr/bin/python3
"""A NumPy peer of the BTAI_3MF agent on the dSprites task.

Written from the description of the agent in Champion et al., "Multimodal
and multifactor branching time active inference" (Neural Computation
36(11), 2024) and from reading its published code (main_BTAI_3MF.py), to
measure arbor's `btai run --env dsprites --preset 3mf` against: the same
task, model and algorithm in plain NumPy (float64), one trial after the
other on one core.

    /usr/bin/python3 bench/dsprites_btai3mf.py --granularity 1 --iterations 150 --trials 30

prints one JSON line: the settings, the rate of the task solved,
(sum of rewards + n) / (2 n), and the seconds per trial.

The task: a sprite (shape 3, scale 6, orientation 40, x 0..31, y 0..31
drawn uniformly) is moved 8 pixels per action (down, up, left, right, one
pixel at a time, clipped; y = 32 is below the image and absorbing); the
trial ends when y reaches 32, with reward (16-x)/16 or (15-x)/16 for a
square and (x-16)/16 or (x-15)/16 for the others (the second when x > 15),
or after 50 actions with reward -1. The agent observes the latent values,
x and y in bins of g pixels.

The agent: per factor a belief; A per modality the identity with noise
0.001 spread evenly; B of x and y the move of a bin's first pixel with that
noise, the others the noisy identity; one preference over (x, y, shape),
softmax of -5 on the bottom row, +5 at the shape's corner, 0 elsewhere.
Planning: from the root (one visit), select by max over children of
-cost/visits + C sqrt(ln parent visits / visits) (the first on ties),
expand all 4 actions with cost = expected free energy (risk of the joint
preference under the outer product of the predicted marginals, plus the
ambiguity of every modality) and one visit, add the least child cost to
the expanded node and every ancestor with one visit each; act by the most
visited root child (the first on ties); filter each factor by prediction
times likelihood.
"""

import argparse
import json
import math
import os
import time

# One core, as the measurements state: NumPy's BLAS would otherwise start
# threads that only contend for the tiny products.
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

NOISE = 0.001


def move(x, y, a):
    for _ in range(8):
        if y >= 32:
            break
        if a == 0:
            y += 1
        elif a == 1:
            y = max(y - 1, 0)
        elif a == 2:
            x = max(x - 1, 0)
        else:
            x = min(x + 1, 31)
    return x, y


def reward(shape, x):
    if shape == 0:
        return (15.0 - x) / 16.0 if x > 15 else (16.0 - x) / 16.0
    return (x - 15.0) / 16.0 if x > 15 else (x - 16.0) / 16.0


def noisy(n, to):
    """[n, n] matrix with 1 - NOISE at [to(j), j], NOISE/(n-1) elsewhere."""
    m = np.full((n, n), NOISE / (n - 1) if n > 1 else 0.0)
    for j in range(n):
        m[to(j), j] = 1 - NOISE if n > 1 else 1.0
    return m


class Model:
    def __init__(self, g):
        n = 32 // g
        self.g = g
        self.sizes = [n, n + 1, 3, 6, 40]  # x, y, shape, scale, orientation
        self.A = [noisy(k, lambda j: j) for k in self.sizes]
        self.H = [-(a * np.log(a)).sum(axis=0) for a in self.A]
        self.B = [np.stack([noisy(n, lambda j, u=u: move(j * g, 0, u)[0] // g) for u in range(4)]),
                  np.stack([noisy(n + 1, lambda j, u=u: move(0, j * g, u)[1] // g) for u in range(4)])]
        self.B += [noisy(k, lambda j: j) for k in self.sizes[2:]]
        table = np.zeros((n, n + 1, 3))
        for shape in range(3):
            table[:, n, shape] = -5
            table[0 if shape == 0 else n - 1, n, shape] = 5
        c = np.exp(table.ravel() - table.max())
        self.logC = np.log(c / c.sum())

    def predict(self, qs, a):
        return [self.B[0][a] @ qs[0], self.B[1][a] @ qs[1]] + [b @ q for b, q in zip(self.B[2:], qs[2:])]

    def efe(self, qs):
        qo = [a @ q for a, q in zip(self.A, qs)]
        joint = np.multiply.outer(np.multiply.outer(qo[0], qo[1]), qo[2]).ravel()
        risk = float(joint @ (np.log(joint) - self.logC))
        return risk + sum(float(q @ h) for q, h in zip(qs, self.H))

    def observe(self, prior, obs):
        post = []
        for a, q, o in zip(self.A, prior, obs):
            p = q * a[o]
            post.append(p / p.sum())
        return post


class Node:
    __slots__ = ("qs", "cost", "visits", "parent", "children", "action")

    def __init__(self, qs, parent=None, action=-1):
        self.qs, self.parent, self.action = qs, parent, action
        self.cost, self.visits, self.children = 0.0, 1, []


def plan(model, qs, iterations, c):
    root = Node(qs)
    for _ in range(iterations):
        node = root
        while node.children:
            logn = math.log(node.visits)
            node = max(node.children, key=lambda ch: -ch.cost / ch.visits + c * math.sqrt(logn / ch.visits))
        for a in range(4):
            child = Node(model.predict(node.qs, a), node, a)
            child.cost = model.efe(child.qs)
            node.children.append(child)
        best = min(node.children, key=lambda ch: ch.cost).cost
        cur = node
        while cur is not None:
            cur.cost += best
            cur.visits += 1
            cur = cur.parent
    best = max(root.children, key=lambda ch: ch.visits)
    return best.action, best.qs


def trial(model, rng, iterations, c):
    shape, scale, orient = int(rng.integers(3)), int(rng.integers(6)), int(rng.integers(40))
    x, y = int(rng.integers(32)), int(rng.integers(32))
    g = model.g

    def obs():
        return [x // g, y // g, shape, scale, orient]

    qs = model.observe([np.full(k, 1.0 / k) for k in model.sizes], obs())
    for t in range(50):
        a, prior = plan(model, qs, iterations, c)
        x, y = move(x, y, a)
        if t + 1 == 50:
            return -1.0
        if y >= 32:
            return reward(shape, x)
        qs = model.observe(prior, obs())
    return -1.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--granularity", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=150)
    ap.add_argument("--exploration", type=float, default=2.4)
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    model = Model(args.granularity)
    rng = np.random.default_rng(args.seed)
    total = 0.0
    start = time.perf_counter()
    for _ in range(args.trials):
        total += trial(model, rng, args.iterations, args.exploration)
    secs = time.perf_counter() - start
    print(json.dumps({"granularity": args.granularity, "iterations": args.iterations, "exploration": args.exploration,
                      "trials": args.trials, "rate": (total + args.trials) / (2 * args.trials),
                      "seconds_per_trial": secs / args.trials}))


if __name__ == "__main__":
    main()
