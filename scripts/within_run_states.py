#!/usr/bin/env python3
"""Can one run's interval be corrected for the machine's state? (docs/methodology.md, "Across runs")

Simulates the per-round log ratios of one run of R rounds, either AR(1) noise or a machine that
switches between two states (levels ±2, unit noise; switching with probability p each round), whose
long-run mean is 0. Each run's interval is Student's t on its rounds; where Ljung–Box (lags 1–4)
rejects independence at `alpha`, the wider of it and a batch-means interval (⌈√R⌉ rounds a batch)
is taken. Prints how often the interval covers the long-run mean, and how often it was widened.
Standard library only; seeded.

    python3 scripts/within_run_states.py
"""
import math
import random
import statistics as st

# Student's t, 97.5% quantiles (df 1..20); beyond, a close approximation.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120,
        17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086}


def t975(df):
    return T975.get(df, 1.96 + 2.4 / df)


def ljung_box_p(x, h=4):
    n = len(x)
    m = st.mean(x)
    d = [v - m for v in x]
    den = sum(v * v for v in d)
    q = 0.0
    for k in range(1, h + 1):
        r = sum(d[i] * d[i + k] for i in range(n - k)) / den
        q += r * r / (n - k)
    q *= n * (n + 2)
    # χ² with 4 degrees of freedom: P(Q > q) = e^{−q/2}(1 + q/2).
    return math.exp(-q / 2) * (1 + q / 2)


def interval(x, alpha):
    n = len(x)
    m = st.mean(x)
    h = t975(n - 1) * st.stdev(x) / math.sqrt(n)
    widened = False
    if ljung_box_p(x) < alpha:
        size = max(2, math.ceil(math.sqrt(n)))
        b = n // size
        means = [st.mean(x[i * n // b:(i + 1) * n // b]) for i in range(b)]
        hb = t975(b - 1) * st.stdev(means) / math.sqrt(b)
        if hb > h:
            h, widened = hb, True
    return m - h, m + h, widened


def rounds(kind, n, p, rng):
    if kind == "ar":
        e = rng.gauss(0, 1) / math.sqrt(1 - p * p)
        out = []
        for _ in range(n):
            e = p * e + rng.gauss(0, 1)
            out.append(e)
        return out
    state = rng.random() < 0.5
    out = []
    for _ in range(n):
        if rng.random() < p:
            state = not state
        out.append((2 if state else -2) + rng.gauss(0, 1))
    return out


def main():
    rng = random.Random(1)
    trials = 1000
    print("alpha  process       rounds  covered  widened")
    for alpha in (0.01, 0.05):
        for kind, p in (("ar", 0.0), ("ar", 0.5), ("ar", 0.8),
                        ("states", 0.02), ("states", 0.05), ("states", 0.2)):
            for n in (20, 30, 60):
                covered = widened = 0
                for _ in range(trials):
                    lo, hi, w = interval(rounds(kind, n, p, rng), alpha)
                    covered += lo <= 0 <= hi
                    widened += w
                print(f"{alpha:<6} {kind} {p:<6} {n:>6}  {covered / trials:7.3f}  {widened / trials:7.3f}")


if __name__ == "__main__":
    main()
