#!/usr/bin/env python3
"""Independent oracle for rigor-stats' crossed (versions × sessions) fit (crossed.rs tests).

Weighted least squares on the dummy-coded two-way layout y = mu_p + s_j + e with the sessions'
shifts summing to zero (effect coding: s_J = -(s_1 + ... + s_{J-1})), weights 1/(w + tau2), and
tau2 by Paule & Mandel (the weighted residual sum of squares equal to its degrees of freedom),
solved with numpy and scipy's brentq. Prints the levels, the shifts, tau2 and the variance of
the contrasts the Rust tests check. Needs numpy and scipy (pip install numpy scipy).
"""
import numpy as np
from scipy.optimize import brentq

P, J = 5, 3
# The cells' (point, session), in order; the consistent dataset has the first 8.
LAYOUT = [(0, 0), (1, 0), (2, 0), (2, 1), (3, 1), (0, 1), (3, 2), (4, 2), (1, 2)]
DATASETS = {  # values, variances of the first cells of LAYOUT
    # Consistent cells: Q(0) below its degrees of freedom, tau2 = 0.
    "consistent": (
        [1.00, 1.10, 0.95, 1.35, 1.60, 1.42, 1.20, 1.30],
        [0.010, 0.020, 0.015, 0.010, 0.020, 0.030, 0.010, 0.010],
    ),
    # The same layout with precise cells that disagree, and one more: Paule-Mandel's tau2 > 0.
    "inconsistent": (
        [1.00, 1.10, 0.95, 1.35, 1.60, 1.52, 1.20, 1.30, 0.70],
        [0.0001, 0.0002, 0.0001, 0.0001, 0.0002, 0.0003, 0.0001, 0.0001, 0.0001],
    ),
}


def run(name, cells):
    X = np.zeros((len(cells), P + J - 1))
    for i, (p, j, _, _) in enumerate(cells):
        X[i, p] = 1.0
        if j < J - 1:
            X[i, P + j] = 1.0
        else:
            X[i, P:] = -1.0
    y = np.array([c[2] for c in cells])
    w = np.array([c[3] for c in cells])

    def solve(tau2):
        W = np.diag(1.0 / (w + tau2))
        cov = np.linalg.inv(X.T @ W @ X)
        beta = cov @ X.T @ W @ y
        r = y - X @ beta
        return beta, cov, float(r @ W @ r)

    df = len(cells) - P - (J - 1)
    _, _, q0 = solve(0.0)
    tau2 = 0.0 if q0 <= df else brentq(lambda t: solve(t)[2] - df, 0.0, 10.0, xtol=1e-15)
    beta, cov, _ = solve(tau2)
    shifts = list(beta[P:]) + [-sum(beta[P:])]
    print("==", name, "df", df, "Q(0) %.10f" % q0)
    print("tau2 %.12f" % tau2)
    print("levels", ", ".join("%.10f" % v for v in beta[:P]))
    print("shifts", ", ".join("%.10f" % v for v in shifts))
    for a, b in [(1, 0), (3, 2), (4, 0)]:
        c = np.zeros(P + J - 1)
        c[a], c[b] = 1.0, -1.0
        print("var(mu%d - mu%d) %.10f" % (a, b, c @ cov @ c))
    for a in [0, 4]:
        c = np.zeros(P + J - 1)
        c[a] = 1.0
        print("var(mu%d) %.10f" % (a, c @ cov @ c))


for name, (values, variances) in DATASETS.items():
    run(name, [(p, j, v, w) for (p, j), v, w in zip(LAYOUT, values, variances)])
