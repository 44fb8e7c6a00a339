#!/usr/bin/env python3
"""Independent oracle for rigor-stats' moderated variances (moderate.rs): Smyth (2004)'s
moment estimate of the prior of a set of variances s_i^2 on d_i degrees of freedom, computed
with scipy's polygamma and an inverse trigamma found by brentq (not Newton's method, as the Rust
code does), and each moderated variance (d0*s0^2 + d_i*s_i^2) / (d0 + d_i).
Needs scipy (pip install scipy).
"""
import math

from scipy.optimize import brentq
from scipy.special import polygamma


def trigamma(x):
    return float(polygamma(1, x))


def digamma(x):
    return float(polygamma(0, x))


def prior(items):
    e = [math.log(v) - digamma(d / 2) + math.log(d / 2) for v, d in items]
    n = len(e)
    mean = sum(e) / n
    spread = sum((x - mean) ** 2 for x in e) / (n - 1)
    excess = spread - sum(trigamma(d / 2) for _, d in items) / n
    if excess <= 0:
        return math.inf, math.exp(mean)
    half = brentq(lambda x: trigamma(x) - excess, 1e-8, 1e8, xtol=1e-14, rtol=1e-14)
    d0 = 2 * half
    return d0, math.exp(mean - digamma(d0 / 2) + math.log(d0 / 2))


# Variances 1 + (i mod 7)/3 scaled by 10^((i mod 5) - 2) for a wide spread, and 1 + (i mod 7)/30
# for a narrow one, on degrees of freedom 6.19 (ten means) and 2.45 (five) alternating (the
# narrow one on 6.19 alone).
WIDE = [((1 + (i % 7) / 3) * 10 ** ((i % 5) - 2) / 100, 6.19 if i % 2 == 0 else 2.45) for i in range(24)]
NARROW = [((1 + (i % 7) / 30) * 1e-4, 6.19) for i in range(24)]
# A spread between the two, on 20 degrees of freedom: a prior of a few.
MEDIUM = [((1 + (i % 7) / 3) * math.exp(0.6 * ((i % 3) - 1)) * 1e-3, 20.0) for i in range(24)]

print("trigamma(1) =", repr(trigamma(1.0)), " trigamma(0.5) =", repr(trigamma(0.5)),
      " trigamma(7.3) =", repr(trigamma(7.3)))
for name, items in (("wide", WIDE), ("narrow", NARROW), ("medium", MEDIUM)):
    d0, s0 = prior(items)
    print(name, "d0 =", repr(d0), "s0^2 =", repr(s0))
    v, d = items[3]
    if math.isinf(d0):
        print("  moderated[3] =", repr(s0))
    else:
        print("  moderated[3] =", repr((d0 * s0 + d * v) / (d0 + d)))
