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


def design(cells, P, J):
    """The dummy-coded layout (points, then effect-coded shifts), the values and variances."""
    X = np.zeros((len(cells), P + J - 1))
    for i, (p, j, _, _) in enumerate(cells):
        X[i, p] = 1.0
        if j < J - 1:
            X[i, P + j] = 1.0
        else:
            X[i, P:] = -1.0
    return X, np.array([c[2] for c in cells]), np.array([c[3] for c in cells])


def run(name, cells):
    X, y, w = design(cells, P, J)

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


# Sessions that vary apart: a loaded session's runs beside a quiet one's (the `sessions` timing
# test's cells). Var(e) = w + tau_g^2 with one tau^2 per group of sessions. Flags: at the
# Paule-Mandel fit with one tau^2, each session with at least 3 residual degrees of freedom
# (sum of 1 - h over its cells, h the diagonal of the hat matrix X (X'WX)^-1 X'W) is tested
# with F = (Q_j/d_j)/(Q_rest/d_rest), Q = sum of W r^2, two-sided against scipy's F at 0.2
# divided by the sessions tested. Each flagged session is a group, the rest one group; the
# group tau^2s solve sum_g W r^2 = sum_g (1 - h) jointly (scipy's fsolve, the residuals and
# leverages those of the full refit), and the fit's df is the floor of the fewest group df.
from scipy.optimize import fsolve  # noqa: E402
from scipy.stats import f as fisher  # noqa: E402

LOADED = [  # point, session, log level, its variance
    (0, 0, 0.404753, 5.688e-03), (0, 0, 0.597912, 7.307e-04), (0, 0, 0.488502, 6.731e-03),
    (0, 0, 0.393507, 5.397e-03), (0, 0, 0.595063, 1.447e-03), (0, 0, 0.398866, 4.472e-03),
    (0, 1, 0.019708, 3.134e-04), (1, 1, 0.108187, 2.077e-04), (1, 1, 0.099005, 2.856e-04),
    (1, 1, 0.108241, 1.819e-04), (1, 1, 0.091457, 5.442e-04), (1, 1, 0.084942, 3.342e-04),
    (0, 1, -0.001950, 6.523e-04), (0, 1, -0.027097, 1.522e-04),
]


def apart(cells, P, J):
    X, y, w = design(cells, P, J)
    sess = np.array([c[1] for c in cells])

    def solve(taus):
        W = np.diag(1.0 / (w + taus))
        cov = np.linalg.inv(X.T @ W @ X)
        beta = cov @ X.T @ W @ y
        r = y - X @ beta
        h = np.diag(X @ cov @ X.T @ W)
        return beta, cov, r, h, np.diag(W)

    df = len(cells) - P - (J - 1)

    def q(t):
        r = solve(np.full(len(cells), t))[2]
        return float(r @ (r / (w + t)))

    tau2 = 0.0 if q(0.0) <= df else brentq(lambda t: q(t) - df, 0.0, 10.0, xtol=1e-15)
    _, _, r, h, W = solve(np.full(len(cells), tau2))
    Q = np.array([np.sum((W * r * r)[sess == j]) for j in range(J)])
    D = np.array([np.sum((1 - h)[sess == j]) for j in range(J)])
    tested = [j for j in range(J) if D[j] >= 3.0]
    flagged = []
    for j in tested:
        F = (Q[j] / D[j]) / ((Q.sum() - Q[j]) / (D.sum() - D[j]))
        cdf = fisher.cdf(F, D[j], D.sum() - D[j])
        if 2 * min(cdf, 1 - cdf) < 0.2 / len(tested):
            flagged.append(j)
    print("== apart: pooled tau2 %.12f, Q %s, d %s, flagged %s" % (tau2, Q, D, flagged))
    groups = [[j] for j in flagged] + [[j for j in range(J) if j not in flagged]]
    groups = [g for g in groups if g]

    def taus_of(t):
        return np.array([t[next(k for k, g in enumerate(groups) if c[1] in g)] for c in cells])

    def equations(t):
        t = np.abs(t)
        _, _, r, h, W = solve(taus_of(t))
        mask = [np.isin(sess, g) for g in groups]
        return [np.sum((W * r * r)[m]) - np.sum((1 - h)[m]) for m in mask]

    t = np.abs(fsolve(equations, np.full(len(groups), tau2), xtol=1e-14))
    beta, cov, r, h, W = solve(taus_of(t))
    fewest = min(np.sum((1 - h)[np.isin(sess, g)]) for g in groups)
    print("group tau2", ", ".join("%.12e" % v for v in t), "df", int(np.floor(fewest)))
    print("levels", ", ".join("%.10f" % v for v in beta[:P]))
    c = np.zeros(P + J - 1)
    c[1], c[0] = 1.0, -1.0
    print("var(mu1 - mu0) %.12e" % (c @ cov @ c))


apart(LOADED, 2, 2)
