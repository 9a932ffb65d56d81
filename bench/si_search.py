#!/usr/bin/env python3
"""Sophisticated inference on a POMDP file, in NumPy: the peer of arbor's
`si` search (docs/benchmarks.md, "Sophisticated inference").

The search is the recursion arbor and pymdp compute,

    G(q, u, r) = risk(q, u) + ambiguity(q, u)
                 + sum_o P(o | q, u) sum_u' sigma(-gamma G(q_o, ., r-1))(u') G(q_o, u', r-1),

with G(., ., 0) = 0 and the posterior q_o held as the factors' marginals of
the exact joint posterior, over the joint outcomes of every modality (arbor's
`--branch joint`, the default), with arbor's pruning rules: an action is
expanded when its one-step probability sigma(-gamma G_local) reaches
--prune-actions (the most probable when none does), an outcome is kept when
its probability reaches --prune-outcomes (the most probable, ties up to 1/p
of them, when none does), and the kept ones are renormalised.

It is written the way a skilled NumPy user would: every action of a belief at
once, over the joint states of positive probability only (a sharp belief's
one), with the predicted outcomes, risk and ambiguity as matrix products and
the joint outcomes of every action as one array; the branches made only when
a belief is more than one step from the horizon; and a memo of (belief,
remaining depth) keyed by the belief's bytes, so that a belief reached again
is scored once.

    /usr/bin/python3 bench/si_search.py --model examples/pomdp/si-tmaze.json \
        --obs 0,0 --depth 4 --gamma 3 --searches 200 [--check arbor.json]
    /usr/bin/python3 bench/si_search.py --model examples/pomdp/si-maze.json \
        --obs 17,0,1 --depth 10 --gamma 1 --prune-actions 0.0625 --prune-outcomes 0.5

print G, the action probabilities, the beliefs scored and the time of one
search (the fastest of --searches, each with an empty memo). --check takes
the output of `arbor si plan ... --json` for the same model, observation and
settings and checks that the same actions are expanded and that G and the
action probabilities agree to 1e-9.
"""
import argparse
import json
import sys
import time

import numpy as np


def load(path):
    """The factors' B, D and controls, and the modalities' A, ln C and factors."""
    with open(path) as fh:
        spec = json.load(fh)
    names = [f["name"] for f in spec["factors"]]
    factors = []
    for f in spec["factors"]:
        b = np.asarray(f["B"], dtype=float)  # [control][next][prev]
        # D, or the mean of its concentrations d (the root's prior; the
        # search itself never reads D).
        d = np.asarray(f["D"] if "D" in f else f["d"], dtype=float)
        factors.append({"B": b, "D": d / d.sum(), "nu": b.shape[0]})
    sizes = [f["B"].shape[1] for f in factors]
    mods = []
    for m in spec["modalities"]:
        a = np.asarray(m["A"], dtype=float)  # [outcome][state of each factor it depends on]
        deps = [names.index(n) for n in m["depends_on"]]
        # L: A over the joint state space, [outcome, s_0 or 1, s_1 or 1, ...].
        order = sorted(range(len(deps)), key=lambda k: deps[k])
        shape = [1] * len(factors)
        for f in deps:
            shape[f] = sizes[f]
        L = a.transpose([0] + [1 + k for k in order]).reshape([a.shape[0]] + shape)
        if "log_C" in m:
            lc = np.asarray(m["log_C"], dtype=float)
            lc = lc - np.log(np.exp(lc - lc.max()).sum()) - lc.max()
        elif "C" in m:
            c = np.asarray(m["C"], dtype=float)
            lc = np.log(c / c.sum())
        else:
            lc = np.full(a.shape[0], -np.log(a.shape[0]))
        # H[A(.|s)] over the modality's states.
        with np.errstate(divide="ignore", invalid="ignore"):
            h = -np.where(a > 0, a * np.log(a), 0.0).sum(axis=0)
        hL = h.transpose(order).reshape(shape)
        full = tuple(sizes)
        mods.append({
            "L": L, "lnC": lc, "H": hL,
            # The same over the joint states flattened (C order).
            "Lf": np.broadcast_to(L, (a.shape[0],) + full).reshape(a.shape[0], -1),
            "Hf": np.broadcast_to(hL, full).ravel(),
        })
    return factors, mods


class Search:
    """One search: the memo of G over (belief, remaining depth)."""

    def __init__(self, factors, mods, gamma, prune_actions=0.0, prune_outcomes=0.0):
        self.factors, self.mods, self.gamma = factors, mods, gamma
        self.prune_actions, self.prune_outcomes = prune_actions, prune_outcomes
        self.sizes = [f["B"].shape[1] for f in factors]
        # Joint actions: every combination of the factors' controls, the
        # last factor's varying fastest (arbor's order).
        grids = np.meshgrid(*[np.arange(f["nu"]) for f in factors], indexing="ij")
        self.actions = np.stack([g.ravel() for g in grids], axis=1)
        self.memo = {}
        self.scored = {}

    def score(self, marg):
        """Risk + ambiguity of every action, over the joint states of
        positive probability (a sharp belief's few), all actions at once;
        which actions are expanded; and what their branches need."""
        key = b"".join(m.tobytes() for m in marg)
        hit = self.scored.get(key)
        if hit is not None:
            return hit
        nf = len(self.factors)
        # Every factor's prediction under every control (B_f[c] q_f), and
        # each action's joint prediction over the joint states flattened.
        pred = [np.einsum("cij,j->ci", f["B"], m) for f, m in zip(self.factors, marg)]
        qs = pred[0][self.actions[:, 0]]
        for f in range(1, nf):
            qf = pred[f][self.actions[:, f]]
            qs = (qs[:, :, None] * qf[:, None, :]).reshape(qs.shape[0], -1)
        cols = np.nonzero(qs.any(axis=0))[0]  # the support, over all actions
        q = qs[:, cols]  # [a, s]
        local = np.zeros(q.shape[0])
        # P(o_1, ..., o_M, s | a) = prod_m A_m[o_m, s] q_a(s), one array
        # [a, o_1, ..., o_M, s] over the support.
        nm = len(self.mods)
        no = [md["Lf"].shape[0] for md in self.mods]
        out = q.reshape((q.shape[0],) + (1,) * nm + (len(cols),))
        for m, md in enumerate(self.mods):
            lf = md["Lf"][:, cols]
            qo = q @ lf.T  # [a, o]
            pos = qo > 0
            r = np.zeros_like(qo)
            r[pos] = qo[pos] * (np.log(qo[pos]) - np.broadcast_to(md["lnC"], qo.shape)[pos])
            local += r.sum(axis=1) + q @ md["Hf"][cols]
            idx = [1] * nm
            idx[m] = no[m]
            out = out * lf.reshape((1,) + tuple(idx) + (len(cols),))
        flat = out.reshape(q.shape[0], -1, len(cols))  # [a, joint outcome, support state]
        # The actions expanded: all, or those whose one-step probability
        # sigma(-gamma G_local) reaches prune_actions (the most probable
        # when none does).
        kept = np.ones(len(local), dtype=bool)
        if self.prune_actions > 0:
            x = -self.gamma * local
            w = np.exp(x - x.max())
            qa = w / w.sum()
            kept = qa >= self.prune_actions
            if not kept.any():
                kept = qa == qa.max()
        digits = np.unravel_index(cols, self.sizes)  # each support state's factor states
        hit = [local, kept, flat, digits, None]
        self.scored[key] = hit
        return hit

    def branches(self, hit):
        """Every expanded action's kept outcomes: their renormalised
        probabilities and posteriors (as marginals), made when first needed
        (a belief one step from the horizon never needs them)."""
        if hit[4] is not None:
            return hit[4]
        _, kept, flat, digits, _ = hit
        p = flat.sum(axis=2)
        out = []
        for a in range(flat.shape[0]):
            if not kept[a]:
                out.append(None)
                continue
            pa = p[a]
            keep = np.nonzero((pa > 0) & (pa >= self.prune_outcomes))[0]
            if len(keep) == 0:
                # None reaches the bound: the most probable, ties up to
                # 1/p of them, the earliest first.
                keep = np.nonzero(pa == pa.max())[0][: max(1, int(1 / self.prune_outcomes))]
            probs = pa[keep] / pa[keep].sum()
            post = flat[a, keep] / pa[keep, None]  # [kept outcome, support state]
            margs = []
            for f, d in enumerate(digits):
                mg = np.zeros((len(keep), self.sizes[f]))
                for k in range(len(keep)):
                    mg[k] = np.bincount(d, weights=post[k], minlength=self.sizes[f])
                margs.append(mg)
            out.append([(probs[k], [mg[k] for mg in margs]) for k in range(len(keep))])
        hit[4] = out
        return out

    def value(self, marg, r):
        """V(q, r) = sum_u sigma(-gamma G)(u) G(q, u, r), memoised."""
        if r == 0:
            return 0.0
        key = (b"".join(m.tobytes() for m in marg), r)
        v = self.memo.get(key)
        if v is not None:
            return v
        g = self.action_values(marg, r)
        q = self.softmax(g)
        fin = q > 0
        v = float(np.dot(q[fin], g[fin]))
        self.memo[key] = v
        return v

    def softmax(self, g):
        """sigma(-gamma G) over the expanded actions (G finite), 0 elsewhere."""
        x = np.where(np.isfinite(g), -self.gamma * g, -np.inf)
        w = np.exp(x - x.max())
        return w / w.sum()

    def action_values(self, marg, r):
        """G(q, u, r) of every action, +Inf for one not expanded."""
        hit = self.score(marg)
        local, kept = hit[0], hit[1]
        g = np.where(kept, local, np.inf)
        if r >= 2:
            for a, outs in enumerate(self.branches(hit)):
                if outs is not None:
                    g[a] += sum(p * self.value(m, r - 1) for p, m in outs)
        return g


def root_belief(factors, mods, obs):
    """The factors' marginals after the first observation (one outcome per
    modality) under the priors D: the exact joint posterior's marginals."""
    q = factors[0]["D"]
    for f in factors[1:]:
        q = np.multiply.outer(q, f["D"])
    for md, o in zip(mods, obs):
        q = q * md["L"][o]
    q = q / q.sum()
    marg = []
    for f in range(len(factors)):
        axes = tuple(k for k in range(len(factors)) if k != f)
        marg.append(q.sum(axis=axes) if axes else q)
    return marg


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--obs", required=True, help="one outcome index per modality, comma-separated")
    ap.add_argument("--depth", type=int, required=True)
    ap.add_argument("--gamma", type=float, default=1.0)
    ap.add_argument("--searches", type=int, default=100)
    ap.add_argument("--prune-actions", type=float, default=0.0, help="arbor's --prune-actions (absolute)")
    ap.add_argument("--prune-outcomes", type=float, default=0.0, help="arbor's --prune-outcomes (joint branching)")
    ap.add_argument("--check", help="arbor si plan --json output to compare G and the action probabilities with")
    args = ap.parse_args()
    factors, mods = load(args.model)
    obs = [int(x) for x in args.obs.split(",")]
    marg = root_belief(factors, mods, obs)
    best = float("inf")
    for _ in range(args.searches):
        t0 = time.perf_counter()
        s = Search(factors, mods, args.gamma, args.prune_actions, args.prune_outcomes)
        g = s.action_values(marg, args.depth)
        probs = s.softmax(g)
        best = min(best, time.perf_counter() - t0)
    out = {"G": [x if np.isfinite(x) else None for x in g.tolist()], "action_probs": probs.tolist(),
           "nodes": len(s.scored), "seconds_per_search": best}
    print(json.dumps(out))
    if args.check:
        with open(args.check) as fh:
            ref = json.load(fh)
        rg = np.asarray([np.inf if x is None else x for x in ref["G"]], dtype=float)
        fin = np.isfinite(g)
        if not np.array_equal(fin, np.isfinite(rg)):
            sys.exit(f"actions expanded differ: arbor {ref['G']}, peer {g.tolist()}")
        dg = float(np.max(np.abs(rg[fin] - g[fin])))
        dp = float(np.max(np.abs(np.asarray(ref["action_probs"]) - probs)))
        print(f"against arbor: max |dG| {dg:.2e}, max |dP| {dp:.2e}, beliefs scored {len(s.scored)} (arbor {ref['nodes']})")
        if dg > 1e-9 or dp > 1e-9:
            sys.exit("disagreement beyond 1e-9")


if __name__ == "__main__":
    main()
