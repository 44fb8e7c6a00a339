#!/usr/bin/env python3
"""Runs the change detection of Apache Otava and asv (their PyPI packages) on version series.

Usage: python3 scripts/history_peers.py IN.csv OUT.csv

IN.csv has the columns key,index,mean (one row per version of a series, series keyed by `key`,
versions in order). OUT.csv gets key,method,index: one row per change a tool reports, `index`
being the first version after the change.

The tools are installed by this script itself into target/peers-venv (PyPI), so nothing else
needs to be set up; `rigor-validation history --peers` calls it.
"""

import csv
import os
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(HERE, "..", "target", "peers-venv")
PACKAGES = ["apache-otava==0.8.0", "asv==0.6.6"]


def ensure_venv():
    """Re-runs this script inside a virtual environment that has the peers."""
    python = os.path.join(VENV, "bin", "python")
    if os.path.abspath(sys.prefix) == os.path.abspath(VENV):
        return
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", *PACKAGES], check=True)
    os.execv(python, [python, *sys.argv])


def otava_changes(series):
    from otava.analysis import compute_change_points

    points, _ = compute_change_points(series, window_len=50, max_pvalue=0.001, min_magnitude=0.0)
    return sorted(p.index for p in points)


def asv_changes(series, threshold=0.05):
    """asv's step detection: a boundary between steps whose levels differ by at least
    asv's regression threshold (5%) counts as a change, in either direction."""
    from asv.step_detect import detect_steps

    steps = detect_steps(series)
    found = []
    for (l1, _r1, v1, _m1, _e1), (l2, _r2, v2, _m2, _e2) in zip(steps, steps[1:]):
        if v1 > 0 and abs(v2 / v1 - 1.0) >= threshold:
            found.append(l2)
    return found


def main():
    ensure_venv()
    source, target = sys.argv[1], sys.argv[2]
    series = defaultdict(list)
    with open(source, newline="") as f:
        for row in csv.DictReader(f):
            series[row["key"]].append((int(row["index"]), float(row["mean"])))
    with open(target, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["key", "method", "index"])
        for key, points in series.items():
            values = [v for _, v in sorted(points)]
            for method, detect in (("otava", otava_changes), ("asv", asv_changes)):
                for index in detect(values):
                    out.writerow([key, method, index])


if __name__ == "__main__":
    main()
