#!/usr/bin/env python3
"""Independent oracle for rigor-stats' Huber version level (series.rs, VersionMean::huber_of).

Huber's M-estimate of location with the scale fixed at 1.4826 * MAD (the normal-consistent
median absolute deviation), k = 1.345 (95% efficiency at the normal), found here by scipy's
brentq on the estimating equation sum psi((x - mu)/s) = 0 — not by the iteratively reweighted
means the Rust code uses — and its sandwich variance
    s^2 * (sum psi(r)^2 / (n - 1)) / (mean psi'(r))^2 / n.
Needs numpy and scipy (pip install numpy scipy).
"""
import numpy as np
from scipy.optimize import brentq

K = 1.345
DATASETS = {
    "normal-ish": [10.2, 9.8, 10.1, 10.4, 9.7, 10.0, 10.3, 9.9, 10.6, 9.5],
    "one slow": [10.2, 9.8, 10.1, 10.4, 9.7, 10.0, 10.3, 9.9, 10.6, 19.0],
    "two slow": [5.01, 5.03, 4.98, 5.00, 5.02, 7.5, 4.99, 5.04, 8.1, 5.00, 4.97, 5.01],
}


def huber(x):
    x = np.asarray(x, dtype=float)
    n = len(x)
    med = np.median(x)
    s = 1.4826 * np.median(np.abs(x - med))
    psi = lambda r: np.clip(r, -K, K)
    mu = brentq(lambda m: psi((x - m) / s).sum(), x.min(), x.max(), xtol=1e-15, rtol=1e-15)
    r = (x - mu) / s
    slope = np.mean(np.abs(r) <= K)
    var = s * s * (psi(r) ** 2).sum() / (n - 1) / slope**2 / n
    return mu, var


for name, x in DATASETS.items():
    mu, var = huber(x)
    print(f"{name}: level {mu!r}, variance {var!r}")
