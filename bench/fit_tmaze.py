#!/usr/bin/env python3
"""The NumPy/SciPy peer of `arbor aci fit --free alpha` on a factorised POMDP.

Reads the POMDP file (arbor's factorised format: factors with B, D or d, and
modalities with A and optionally log_C or C) and the recorded-behaviour CSV,
and fits the action precision alpha of each subject as `arbor aci fit` does:
the MAP of theta = ln(alpha) under the prior N(ln alpha0, sd^2), found by
L-BFGS-B (scipy), and the Laplace approximation's SD from the second
derivative of the log posterior at the mode (central differences).

The agent it replays is the classic one at a fixed policy precision gamma:
at every step, the exact filter over the joint state of every factor under
D (or the geometric mean exp E[ln d] of the trial's starting concentrations),
the expected free energy of every policy of length `horizon` (risk plus
ambiguity, summed over the modalities, the state belief the product of the
factors' marginals propagated by their B), q(pi) = softmax(-gamma G), the
action marginal P_m(u) and P(u) = P_m(u)^alpha / sum_v P_m(v)^alpha. At a
trial's end, concentrations d gain the smoothed posterior of the first state.

The likelihood is written as a skilled NumPy user writes it: every policy of
a step is scored at once (arrays over policies, einsum over the factors), and
each evaluation replays the subject's trials. With --cache the part that does
not depend on alpha (ln P_m(u) of every decision) is computed once per
subject and each evaluation is one vectorised softmax: the peer at its
strongest for this one parameter.

Usage:
  python3 bench/fit_tmaze.py MODEL.json DATA.csv --horizon 2 --gamma 4 \\
      --alpha 2 [--prior-sd 0.25] [--cache] [--check-ll]

Prints one JSON line per subject (subject, ln_alpha, sd, log_likelihood) and a
last line with the seconds it took in-process (after reading the files).
"""
import argparse
import csv
import itertools
import json
import math
import sys
import time

import numpy as np
from scipy.optimize import minimize
from scipy.special import digamma, logsumexp


def load_model(path):
    with open(path) as f:
        spec = json.load(f)
    factors = []
    for fs in spec["factors"]:
        ns = len(fs["states"])
        B = np.array(fs["B"], dtype=float)  # [control][next][prev]
        controls = fs.get("controls", [None])
        if "D" in fs:
            D, d = np.array(fs["D"], dtype=float), None
        elif "d" in fs:
            D, d = None, np.array(fs["d"], dtype=float)
        else:
            D, d = np.full(ns, 1.0 / ns), None
        factors.append({"name": fs["name"], "ns": ns, "B": B, "D": D, "d": d,
                        "controls": controls})
    mods = []
    names = [f["name"] for f in factors]
    for ms in spec["modalities"]:
        deps = [names.index(n) for n in ms["depends_on"]]
        A = np.array(ms["A"], dtype=float)  # [o][s_dep1][s_dep2]...
        no = A.shape[0]
        if "log_C" in ms:
            lc = np.array(ms["log_C"], dtype=float)
            lnC = lc - logsumexp(lc)
        elif "C" in ms:
            with np.errstate(divide="ignore"):
                lnC = np.log(np.array(ms["C"], dtype=float))
        else:
            lnC = np.full(no, -math.log(no))
        with np.errstate(divide="ignore", invalid="ignore"):
            H = -np.where(A > 0, A * np.log(A), 0.0).sum(axis=0)
        mods.append({"name": ms["name"], "outcomes": ms["outcomes"], "deps": deps,
                     "A": A, "lnC": lnC, "H": H})
    return factors, mods


def read_data(path, factors, mods):
    """Subjects in file order, each a list of trials of (obs, action) steps."""
    ctrl = [f for f in factors if f["controls"][0] is not None][0]
    subjects = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            obs = [m["outcomes"].index(row["o_" + m["name"]]) for m in mods]
            u = row["u_" + ctrl["name"]]
            act = ctrl["controls"].index(u) if u else None
            trials = subjects.setdefault(row["subject"], {})
            trials.setdefault(int(row["trial"]), []).append((obs, act))
    return [(s, [t[k] for k in sorted(t)]) for s, t in subjects.items()], factors.index(ctrl)


def joint_likelihood(factors, mods, obs):
    """L[s_1, ..., s_F] = prod_m A_m[o_m, s_deps(m)], over the joint state."""
    shape = [f["ns"] for f in factors]
    L = np.ones(shape)
    for m, o in zip(mods, obs):
        a = m["A"][o]
        idx = [slice(None) if k in m["deps"] else np.newaxis for k in range(len(factors))]
        L = L * a[tuple(idx)]
    return L


def transition(factors, q, u, cf):
    """The joint belief q moved one step, action u on factor cf."""
    for k, f in enumerate(factors):
        B = f["B"][u if k == cf else 0]
        q = np.moveaxis(np.tensordot(B, q, axes=([1], [k])), 0, k)
    return q


def marginals(factors, q):
    out = []
    for k in range(len(factors)):
        ax = tuple(j for j in range(len(factors)) if j != k)
        out.append(q.sum(axis=ax))
    return out


def policy_values(factors, mods, qs, cf, horizon, gamma):
    """ln P_m(u) for the belief marginals qs: every policy scored at once."""
    f = factors[cf]
    nu = f["B"].shape[0]
    pols = np.array(list(itertools.product(range(nu), repeat=horizon)))
    P = len(pols)
    G = np.zeros(P)
    q = [np.broadcast_to(x, (P, len(x))) for x in qs]
    for tau in range(horizon):
        q = list(q)
        for k, fk in enumerate(factors):
            if k == cf:
                q[k] = np.einsum("pij,pj->pi", fk["B"][pols[:, tau]], q[k])
            else:
                q[k] = q[k] @ fk["B"][0].T
        for m in mods:
            # The product belief over the modality's factors, per policy.
            qd = q[m["deps"][0]]
            for k in m["deps"][1:]:
                qd = (qd[:, :, None] * q[k][:, None, :]).reshape(P, -1)
            A = m["A"].reshape(m["A"].shape[0], -1)
            qo = qd @ A.T
            with np.errstate(divide="ignore", invalid="ignore"):
                risk = np.where(qo > 0, qo * (np.log(qo) - m["lnC"]), 0.0).sum(axis=1)
            G += risk + qd @ m["H"].reshape(-1)
    lq = -gamma * G
    lq -= logsumexp(lq)
    return np.array([logsumexp(lq[pols[:, 0] == u]) for u in range(nu)])


def subject_values(factors, mods, trials, cf, horizon, gamma):
    """Every decision's ln P_m(u) and the recorded action."""
    d = [f["d"].copy() if f["d"] is not None else None for f in factors]
    rows, chosen = [], []
    for trial in trials:
        prior = None
        for k, f in enumerate(factors):
            if d[k] is not None:
                g = np.exp(digamma(d[k]) - digamma(d[k].sum()))
                Dk = g / g.sum()
            else:
                Dk = f["D"]
            idx = [np.newaxis] * len(factors)
            idx[k] = slice(None)
            prior = Dk[tuple(idx)] if prior is None else prior * Dk[tuple(idx)]
        q = prior
        for t, (obs, act) in enumerate(trial):
            if t > 0:
                q = transition(factors, q, trial[t - 1][1], cf)
            q = q * joint_likelihood(factors, mods, obs)
            q = q / q.sum()
            if t == 0:
                first = q
            if act is not None:
                rows.append(policy_values(factors, mods, marginals(factors, q), cf, horizon, gamma))
                chosen.append(act)
        # Learning: the concentrations gain the smoothed first state, the
        # filtered one corrected by a backward pass over the trial.
        post0 = smoothed_first(factors, mods, trial, cf, first)
        for k in range(len(factors)):
            if d[k] is not None:
                d[k] = d[k] + post0[k]
    return np.array(rows), np.array(chosen)


def smoothed_first(factors, mods, trial, cf, first):
    """Q(S_0) given every observation of the trial, from the filtered
    Q(S_0 | o_0) and a backward pass."""
    beta = np.ones_like(first)
    for t in range(len(trial) - 1, 0, -1):
        beta = beta * joint_likelihood(factors, mods, trial[t][0])
        # beta_{t-1}(s) = sum_s' P(s'|s, u_{t-1}) L_t(s') beta_t(s')
        beta = transposed_transition(factors, beta, trial[t - 1][1], cf)
        beta = beta / beta.sum()
    g = first * beta
    return marginals(factors, g / g.sum())


def transposed_transition(factors, q, u, cf):
    for k, f in enumerate(factors):
        B = f["B"][u if k == cf else 0]
        q = np.moveaxis(np.tensordot(B.T, q, axes=([1], [k])), 0, k)
    return q


def log_lik(values, chosen, alpha):
    z = alpha * values
    return float((z[np.arange(len(chosen)), chosen] - logsumexp(z, axis=1)).sum())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("data")
    ap.add_argument("--horizon", type=int, required=True)
    ap.add_argument("--gamma", type=float, required=True)
    ap.add_argument("--alpha", type=float, default=1.0, help="prior mean of alpha (ln scale mean ln alpha)")
    ap.add_argument("--prior-sd", type=float, default=0.25)
    ap.add_argument("--cache", action="store_true")
    ap.add_argument("--check-ll", action="store_true", help="print each subject's log-likelihood at --alpha and stop")
    a = ap.parse_args()
    factors, mods = load_model(a.model)
    subjects, cf = read_data(a.data, factors, mods)
    t0 = time.perf_counter()
    mu, sd = math.log(a.alpha), a.prior_sd
    for name, trials in subjects:
        if a.check_ll:
            v, c = subject_values(factors, mods, trials, cf, a.horizon, a.gamma)
            print(json.dumps({"subject": name, "log_likelihood": log_lik(v, c, a.alpha)}))
            continue
        if a.cache:
            v, c = subject_values(factors, mods, trials, cf, a.horizon, a.gamma)

            def ll(th):
                return log_lik(v, c, math.exp(th))
        else:
            def ll(th):
                v, c = subject_values(factors, mods, trials, cf, a.horizon, a.gamma)
                return log_lik(v, c, math.exp(th))

        def negpost(x):
            th = x[0]
            return -(ll(th) - 0.5 * ((th - mu) / sd) ** 2)

        r = minimize(negpost, [mu], method="L-BFGS-B")
        th = float(r.x[0])
        h = 1e-4
        d2 = (negpost([th + h]) - 2 * negpost([th]) + negpost([th - h])) / (h * h)
        print(json.dumps({"subject": name, "ln_alpha": th, "sd": 1 / math.sqrt(d2) if d2 > 0 else None,
                          "log_likelihood": ll(th)}))
    print(json.dumps({"seconds": time.perf_counter() - t0}))


if __name__ == "__main__":
    main()
