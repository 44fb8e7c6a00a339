#!/usr/bin/env python3
"""Independent oracle for rigor-stats' joint test of a common shift (joint.rs, `combine`).

DerSimonian & Laird's between-benchmark variance tau^2 and the random-effects mean of the
benchmarks' log-ratios, from statsmodels' meta-analysis (`combine_effects`, method_re="chi2",
the DerSimonian-Laird moment estimate), with Hartung & Knapp's variance (statsmodels'
`var_hksj_re`) taken at least as large as the random-effects variance (the modification of
Knapp & Hartung 2003), a Student t test with k - 1 degrees of freedom (scipy) and its interval.
Needs numpy, scipy and statsmodels (pip install numpy scipy statsmodels).
"""
import warnings

import numpy as np
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects

warnings.simplefilter("ignore")
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
}
for name, (y, v) in CASES.items():
    y, v = np.array(y), np.array(v)
    k = len(y)
    r = combine_effects(y, v, method_re="chi2", use_t=True)
    tau2 = max(r.tau2, 0.0)
    w = 1.0 / (v + tau2)
    mu = np.sum(w * y) / np.sum(w)
    assert abs(mu - r.mean_effect_re) < 1e-12 or r.tau2 < 0
    var = max(r.var_hksj_re, 1.0 / np.sum(w))
    se = np.sqrt(var)
    t = mu / se
    p = 2 * stats.t.sf(abs(t), k - 1)
    crit = stats.t.ppf(0.975, k - 1)
    print(f"{name}: tau2={tau2!r} mean={mu!r} variance={var!r} p={p!r} "
          f"low={np.exp(mu - crit * se)!r} high={np.exp(mu + crit * se)!r} q={r.q!r}")
