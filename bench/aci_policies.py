#!/usr/bin/env python3
"""The peer of arbor's classic active inference on a maze: the expected free
energy G of every policy of length T from the start, computed level by level
with NumPy, as a user would write it, and the action marginal of
q(pi) = softmax(-gamma G).

    /usr/bin/python3 bench/aci_policies.py examples/mazes/1.maze 8 [REPEATS]

It reads the maze file (docs/formats.md, "Maze file") and builds the agent's
model as `arbor aci run --maze FILE` does (envs.Maze.Model, noise 0.1,
preference precision 3):

    A[o, s] = 1 - noise where o is the distance of s to the exit, else
              noise / (|O| - 1), |O| = rows + cols - 5
    B[u][next, prev] = 1 - noise where u moves prev to next (a wall or the
              border keeps it), else noise / (|S| - 1); actions UP, DOWN,
              LEFT, RIGHT, IDLE
    D = 1 - noise on S, noise / (|S| - 1) elsewhere
    C = softmax(-3 o)

q(s_0) is the exact posterior after the first observation (the distance of
S), proportional to D A[o_0, :]. G is arbor's (docs/aci.md, aci/efe.go):

    G(pi) = sum_tau KL[Q(o_tau|pi) || C] + Q(s_tau|pi) . H[A],
    Q(s_tau|pi) = B_{pi_tau} Q(s_tau-1|pi), Q(o_tau|pi) = A Q(s_tau|pi),

policies in lexicographic order (the first action varies slowest). Every
level holds the beliefs of every prefix as one array; a level's children
are one matrix product with the |U| matrices B_u side by side, their
predicted outcomes one product with A.

It times the plan (from q(s_0) to the action marginal) REPEATS times
(default 5) in process and prints one JSON line: the action marginal and
the times in seconds.
"""
import json
import sys
import time

import numpy as np

NOISE = 0.1
PREF_PRECISION = 3.0
GAMMA = 16.0
MOVES = [(-1, 0), (1, 0), (0, -1), (0, 1), (0, 0)]  # UP DOWN LEFT RIGHT IDLE


def read_maze(path):
    """The free cells (row, col) in row-major order, and S's and E's index."""
    with open(path) as f:
        lines = f.read().splitlines()
    rows, cols = (int(v) for v in lines[0].split())
    grid = [line.ljust(cols, "W")[:cols] for line in lines[1:1 + rows]]
    cells, start, exit_ = [], None, None
    for r in range(rows):
        for c in range(cols):
            ch = grid[r][c]
            if ch == "W":
                continue
            if ch == "S":
                start = len(cells)
            elif ch == "E":
                exit_ = len(cells)
            cells.append((r, c))
    return rows, cols, cells, start, exit_


def maze_model(path):
    """A, B (|U| x |S| x |S|), C, D and the first observation."""
    rows, cols, cells, start, exit_ = read_maze(path)
    ns, no, nu = len(cells), rows + cols - 5, len(MOVES)
    index = {cell: s for s, cell in enumerate(cells)}
    er, ec = cells[exit_]
    obs = [abs(r - er) + abs(c - ec) for r, c in cells]
    A = np.full((no, ns), NOISE / (no - 1))
    A[obs, np.arange(ns)] = 1 - NOISE
    B = np.full((nu, ns, ns), NOISE / (ns - 1))
    for u, (dr, dc) in enumerate(MOVES):
        for s, (r, c) in enumerate(cells):
            B[u, index.get((r + dr, c + dc), s), s] = 1 - NOISE
    D = np.full(ns, NOISE / (ns - 1))
    D[start] = 1 - NOISE
    logits = -PREF_PRECISION * np.arange(no)
    C = np.exp(logits - logits.max())
    C /= C.sum()
    return A, B, C, D, obs[start]


def plan(A, B, C, q0, horizon):
    """The action marginal of softmax(-GAMMA G) over every policy."""
    nu, ns = B.shape[0], B.shape[1]
    logC = np.log(C)
    with np.errstate(divide="ignore", invalid="ignore"):
        HA = -np.sum(np.where(A > 0, A * np.log(A), 0.0), axis=0)
    BT = np.concatenate([B[u].T for u in range(nu)], axis=1)  # prev x (u, next)
    Q = q0[None, :]
    G = np.zeros(1)
    for _ in range(horizon):
        Q = (Q @ BT).reshape(-1, ns)  # child = parent * |U| + u
        QO = Q @ A.T
        risk = np.einsum("ij,ij->i", QO, np.log(QO) - logC)
        G = np.repeat(G, nu) + risk + Q @ HA
    x = -GAMMA * G
    x -= x.max()
    p = np.exp(x)
    p /= p.sum()
    return p.reshape(nu, -1).sum(axis=1)


def main():
    path, horizon = sys.argv[1], int(sys.argv[2])
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    A, B, C, D, o0 = maze_model(path)
    q0 = D * A[o0]
    q0 /= q0.sum()
    times, marginal = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        marginal = plan(A, B, C, q0, horizon)
        times.append(time.perf_counter() - t0)
    print(json.dumps({"horizon": horizon, "policies": B.shape[0] ** horizon,
                      "action_probs": marginal.tolist(), "seconds": times,
                      "min_seconds": min(times)}))


if __name__ == "__main__":
    main()
