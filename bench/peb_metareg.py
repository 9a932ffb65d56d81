#!/usr/bin/env python3
"""The group level of `arbor X fit --group` computed independently, as the
random-effects meta-regression on stacked data, from the subject lines of
`fit --json` (without --group) and a covariates file; prints β, its SDs,
Σ, the group log evidence and the time taken, for docs/benchmarks.md and
as a check of arbor's "peb" line:

    arbor aci fit ... --free alpha --prior alpha=0,1 --json > fit.jsonl
    /usr/bin/python3 bench/peb_metareg.py fit.jsonl cov.csv "1,group" 0 1

The last arguments are the design's columns (1 for the intercept, then
numeric covariate names) and each free parameter's first-level prior
mean and SD, in --free order (MEAN SD MEAN SD ...).

Each subject's Laplace posterior N(m, C) under the prior N(μ0, S0) is
turned into a Gaussian likelihood by removing the prior: precision
L = C⁻¹ − S0⁻¹ (positive definite here), mean y = L⁻¹(C⁻¹m − S0⁻¹μ0),
and the constant K with ln p(data | θ) = K + ln N(y; θ, L⁻¹). Then
Y ~ N(Mβ0, blockdiag(L_i⁻¹ + Σ) + M Vβ Mᵀ), Σ = diag(exp λ) with
λ_p ~ N(ln(S0_p/16), 1), maximised by SciPy's L-BFGS-B."""
import csv
import json
import math
import sys
import time

import numpy as np
from scipy import optimize

fit_file, cov_file, columns = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
pri = [float(v) for v in sys.argv[4:]]
mu0, sd0 = np.array(pri[0::2]), np.array(pri[1::2])
d = len(mu0)
rows = [json.loads(l) for l in open(fit_file)]
subs = [r for r in rows if "subject" in r]
free = rows[-1]["free"]
cov = {r["subject"]: r for r in csv.DictReader(open(cov_file))}

t0 = time.perf_counter()
S0inv = np.diag(1 / sd0**2)
ys, Rs, K, X = [], [], 0.0, []
for s in subs:
    m = np.array([s["theta"][p] for p in free])
    sd = np.array([s["sd_theta"][p] for p in free])
    C = np.array(s["corr"]) * np.outer(sd, sd)
    Cinv = np.linalg.inv(C)
    L = Cinv - S0inv
    l = Cinv @ m - S0inv @ mu0
    R = np.linalg.inv(L)
    y = R @ l
    c = (s["log_evidence"] - 0.5 * np.linalg.slogdet(C)[1] + 0.5 * np.sum(np.log(sd0**2))
         - 0.5 * m @ Cinv @ m + 0.5 * mu0 @ S0inv @ mu0)
    K += c + 0.5 * l @ R @ l + 0.5 * np.linalg.slogdet(2 * math.pi * R)[1]
    ys.append(y)
    Rs.append(R)
    X.append([1.0 if col == "1" else float(cov[s["subject"]][col]) for col in columns])
n, k = len(subs), len(columns)
X = np.array(X)
M = np.zeros((n * d, d * k))
for i in range(n):
    for p in range(d):
        M[i * d + p, p * k:(p + 1) * k] = X[i]
b0 = np.array([mu0[p] if col == "1" else 0.0 for p in range(d) for col in columns])
vb = np.array([sd0[p] ** 2 for p in range(d) for _ in columns])
Y = np.concatenate(ys)
lam0 = np.log(sd0**2 / 16)


def logml(lam):
    S = np.diag(np.exp(lam))
    V = np.zeros((n * d, n * d))
    for i in range(n):
        V[i * d:(i + 1) * d, i * d:(i + 1) * d] = Rs[i] + S
    V += M @ np.diag(vb) @ M.T
    r = Y - M @ b0
    sign, logdet = np.linalg.slogdet(V)
    return K - 0.5 * n * d * math.log(2 * math.pi) - 0.5 * logdet - 0.5 * r @ np.linalg.solve(V, r)


res = optimize.minimize(lambda x: -(logml(x) - 0.5 * np.sum((x - lam0) ** 2)), lam0, method="L-BFGS-B",
                        options={"ftol": 1e-15, "gtol": 1e-10})
lam = res.x
S = np.diag(np.exp(lam))
W = np.zeros((n * d, n * d))
for i in range(n):
    W[i * d:(i + 1) * d, i * d:(i + 1) * d] = np.linalg.inv(Rs[i] + S)
P = np.diag(1 / vb) + M.T @ W @ M
Pinv = np.linalg.inv(P)
beta = Pinv @ (b0 / vb + M.T @ W @ Y)
elapsed = time.perf_counter() - t0
for j in range(d * k):
    print(f"{free[j // k]} {columns[j % k]}: mean {beta[j]:.6f} sd {math.sqrt(Pinv[j, j]):.6f}")
print("sigma diag", " ".join(f"{v:.6f}" for v in np.exp(lam)))
print(f"log evidence {logml(lam):.6f}")
print(f"{n} subjects, {d} parameters, {k} columns: {elapsed:.3f} s")
