#!/usr/bin/env python3
"""Independent oracle for rigor-stats' robust joint test of a common shift (joint.rs, `combine`).

The same estimating equations solved independently with scipy's Brent root finder: Huber's
location mu of the steps y_i with scales s_i = sqrt(v_i + tau^2) (psi = clip(r, -c, c),
c = 1.345), the root of sum psi((y_i - mu)/s_i)/s_i = 0; tau^2 the root of
sum psi(r_i)^2 = (k - 1) E[psi(Z)^2] (zero when the left side is already below at tau^2 = 0);
the variance K^2 max(sum psi(r_i)^2 / ((k - 1) a^2), E[psi(Z)^2] / E[psi'(Z)]^2) / W with
W = sum 1/s_i^2, a the share of W whose |r_i| < c and K = 1 + (1 - a)/(k a) (Huber's
small-sample correction); Student's t with max((k - 1) a^2, 1) degrees of freedom
and the ratio's interval at 95%. E[psi(Z)^2] by numerical integration (scipy.integrate.quad),
not the closed form joint.rs uses. With c = infinity the variance is Hartung & Knapp's and
tau^2 Paule & Mandel's (checked against statsmodels below).
Needs numpy and scipy (statsmodels for the last check).
"""
import numpy as np
from scipy import integrate, optimize, stats

C = 1.345
alpha = integrate.quad(lambda z: stats.norm.pdf(z), -C, C, epsabs=1e-14)[0]
beta = integrate.quad(lambda z: min(z * z, C * C) * stats.norm.pdf(z), -np.inf, np.inf,
                      epsabs=1e-14, limit=200)[0]


def psi(r, c=C):
    return np.clip(r, -c, c)


def location(y, s, c=C):
    f = lambda mu: np.sum(psi((y - mu) / s, c) / s)
    return optimize.brentq(f, y.min() - 1e-9, y.max() + 1e-9, xtol=1e-18, rtol=1e-15, maxiter=500)


def combine(y, v, c=C, b=beta, a0=alpha):
    y, v = np.asarray(y, float), np.asarray(v, float)
    k = len(y)
    target = (k - 1) * b

    def excess(tau2):
        s = np.sqrt(v + tau2)
        mu = location(y, s, c)
        return np.sum(psi((y - mu) / s, c) ** 2) - target

    if excess(0.0) <= 0:
        tau2 = 0.0
    else:
        hi = 1.0
        while excess(hi) > 0:
            hi *= 2
        tau2 = optimize.brentq(excess, 0.0, hi, xtol=1e-300, rtol=1e-15, maxiter=1000)
    s = np.sqrt(v + tau2)
    mu = location(y, s, c)
    r = (y - mu) / s
    w = np.sum(1 / s**2)
    a = np.sum((np.abs(r) < c) / s**2) / w
    K = 1 + (1 - a) / (k * a)
    var = K * K * max(np.sum(psi(r, c) ** 2) / ((k - 1) * a * a), b / a0**2) / w
    se = np.sqrt(var)
    df = max((k - 1) * a * a, 1.0)
    p = 2 * stats.t.sf(abs(mu / se), df)
    crit = stats.t.ppf(0.975, df)
    return tau2, mu, var, p, np.exp(mu - crit * se), np.exp(mu + crit * se)


CASES = {
    # A common +3% with benchmarks that differ by more than their own errors.
    "heterogeneous": (
        [0.031, 0.024, 0.040, 0.012, 0.045, 0.029, 0.020],
        [0.00002, 0.00003, 0.00002, 0.00001, 0.00004, 0.00003, 0.00002],
    ),
    # One benchmark moved a lot, the others not at all.
    "one moved": (
        [0.20, 0.001, -0.002, 0.003, 0.0, -0.001],
        [0.0001, 0.0001, 0.0001, 0.0001, 0.0001, 0.0001],
    ),
    # A common +3% and one precise benchmark whose own -6% change fell at the same version.
    "own change at the shift": (
        [0.0255, 0.0265, 0.0295, -0.0639, 0.0119, 0.033, 0.0294, 0.0199, 0.029, 0.0295],
        [3.6e-5, 1.3e-4, 6.8e-6, 4.9e-7, 8.8e-5, 3.6e-6, 8.1e-7, 4.2e-5, 2.9e-6, 3.6e-7],
    ),
}
print(f"alpha={alpha!r} beta={beta!r}")
for name, (y, v) in CASES.items():
    tau2, mu, var, p, lo, hi = combine(y, v)
    print(f"{name}: tau2={tau2!r} mean={mu!r} variance={var!r} p={p!r} low={lo!r} high={hi!r}")

# With c = infinity: Paule & Mandel's tau^2 and Hartung & Knapp's variance (statsmodels).
from statsmodels.stats.meta_analysis import combine_effects  # noqa: E402

for name, (y, v) in CASES.items():
    tau2, mu, var, p, lo, hi = combine(y, v, c=np.inf, b=1.0, a0=1.0)
    r = combine_effects(np.array(y), np.array(v), method_re="iterated", use_t=True)
    assert abs(mu - r.mean_effect_re) < 1e-6 * abs(mu), (name, mu, r.mean_effect_re)
    assert abs(tau2 - max(r.tau2, 0)) < 1e-6 * max(tau2, 1e-8), (name, tau2, r.tau2)
    print(f"{name}, c = infinity: matches statsmodels' Paule-Mandel mean {mu!r}, tau2 {tau2!r}")
