#!/usr/bin/env python3
"""rigor-bench beside criterion and divan (docs/benchmarks.md, "In-process microbenchmarks").

Builds benches/peers (its own Cargo project, criterion and divan from crates.io) and measures,
in one run on this machine:

1. accuracy: spin(n) for step counts from ~2 ns to ~10 us, against a reference (K back-to-back
   calls timed as one batch of >= 50 ms of thread CPU time, fastest of 7; taken before and after,
   the smaller kept);
2. A/A across processes: the same function in separate processes, --pairs times: rigor bench
   comparing two identical functions (-r 10 executions each, 20 processes per experiment), and
   criterion's own change report (--save-baseline in one process, --baseline in the next);
3. time to a result at ±1%: criterion with its defaults (--repeats processes: its wall time, the
   interval it reports, and how far apart its processes land), and rigor bench --precision 1%
   for the median and the minimum (--repeats runs each).

Usage: python3 scripts/peers_bench.py [--pairs 20] [--repeats 3] [--out FILE]
       [--skip-accuracy] [--skip-aa] [--skip-precision] [--criterion-short]
Needs the rigor binary (cargo build --release -p rigor) and network access to crates.io the
first time (criterion, divan).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "benches" / "peers"
# Step counts: about 2 ns (spin(0): a call), 10 ns, 100 ns, 1 us, 10 us at ~1.7 ns per step; the
# reference column gives the real cost on the machine at hand.
SIZES = [0, 5, 60, 600, 6000]
AA = [5, 600]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def build():
    out = sh(["cargo", "bench", "--no-run", "--message-format=json"], cwd=PEERS).stdout
    exes = {}
    for line in out.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if m.get("reason") == "compiler-artifact" and m.get("executable"):
            kinds = m["target"]["kind"]
            if "bench" in kinds:
                exes[m["target"]["name"]] = m["executable"]
    sh(["cargo", "build", "--release", "--bin", "calibrate"], cwd=PEERS)
    exes["calibrate"] = str(PEERS / "target" / "release" / "calibrate")
    return exes


def label(n):
    return f"n{n}"


def sizes_env(sizes):
    return ",".join(f"{label(n)}={n}" for n in sizes)


def env_with(**extra):
    env = dict(os.environ)
    env.update(extra)
    env.pop("RIGOR_SAMPLES_FILE", None)
    return env


def reference(exes):
    def once():
        out = sh([exes["calibrate"], *map(str, SIZES)]).stdout
        return {int(a): float(b) for a, b in (l.split() for l in out.splitlines())}

    before = once()
    return before, once


UNITS = {"ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9, "ps": 1e-3}


def ns(value, unit):
    return float(value) * UNITS[unit]


def rigor_standalone(exes, env):
    t0 = time.monotonic()
    out = sh([exes["rigor"], "--bench", "spin/"], env=env).stdout
    elapsed = time.monotonic() - t0
    res = {}
    name = None
    for line in out.splitlines():
        m = re.match(r"^(spin/n\d+): ", line)
        if m:
            name = m.group(1)
        m = re.search(r"min ([\d.]+) (\S+)\s+median ([\d.]+) (\S+)\s+mean ([\d.]+) (\S+)", line)
        if m and name:
            res[int(name.split("/n")[1])] = {
                "min": ns(m.group(1), m.group(2)),
                "median": ns(m.group(3), m.group(4)),
                "mean": ns(m.group(5), m.group(6)),
            }
    return res, elapsed


def criterion_estimates(home, name):
    path = Path(home) / name / "new" / "estimates.json"
    e = json.loads(path.read_text())
    return e


def criterion_run(exes, env, filt, extra=()):
    t0 = time.monotonic()
    out = sh([exes["crit"], "--bench", *extra, filt], env=env)
    return out.stdout + out.stderr, time.monotonic() - t0


def criterion_accuracy(exes, env, home):
    _, elapsed = criterion_run(exes, env, "spin/")
    res = {}
    for n in SIZES:
        e = criterion_estimates(home, f"spin_{label(n)}")
        res[n] = {
            "mean": e["mean"]["point_estimate"],
            "median": e["median"]["point_estimate"],
            "slope": (e.get("slope") or {}).get("point_estimate"),
        }
    return res, elapsed


def divan_accuracy(exes, env):
    out = sh([exes["div"], "--bench"], env=env).stdout
    res = {}
    for line in out.splitlines():
        m = re.search(r"[├╰]─ (\d+)\s+(.*)", line)
        if not m:
            continue
        cells = [c.strip() for c in m.group(2).split("│")]
        times = []
        for c in cells[:4]:
            t = re.match(r"([\d.]+) (\S+)", c)
            times.append(ns(t.group(1), t.group(2)) if t else None)
        res[int(m.group(1))] = {"fastest": times[0], "median": times[2], "mean": times[3]}
    return res


def rigor_bench(args, env, filters, extra=()):
    cmd = [
        args.rigor, "bench", "--manifest-path", str(PEERS / "Cargo.toml"),
        "--bench", "rigor", *extra, *filters,
    ]
    t0 = time.monotonic()
    out = subprocess.run(cmd, text=True, capture_output=True, env=env)
    return out, time.monotonic() - t0


def aa(args, exes, env, home):
    rigor_changes = {n: [] for n in AA}
    crit_changes = {n: [] for n in AA}
    started = time.monotonic()
    verdict_counts = {n: {} for n in AA}
    floored = {n: 0 for n in AA}
    for p in range(args.pairs):
        for n in AA:
            out, _ = rigor_bench(
                args, env, [f"aa_a/{label(n)}", f"aa_b/{label(n)}"],
                ["--exact", "-r", "10", "--reference", f"aa_a/{label(n)}", "--seed", str(p)],
            )
            verdicts = re.findall(r"verdict: (\w+)", out.stdout)
            if out.returncode != 0 or not verdicts:
                sys.exit(f"rigor bench failed:\n{out.stdout}\n{out.stderr}")
            # aa_a and aa_b are two benchmarks of one target: rigor words a change between
            # different commands "slower"/"faster", between versions "regression"/"improvement".
            rigor_changes[n].append(
                verdicts[0] in ("regression", "improvement", "slower", "faster"))
            verdict_counts[n][verdicts[0]] = verdict_counts[n].get(verdicts[0], 0) + 1
            floored[n] += "interval at the timer's resolution: the samples move" in out.stdout
        # criterion's defaults (3 s warm-up, 5 s of measurement) unless --criterion-short.
        short = ["--warm-up-time", "1", "--measurement-time", "2"] if args.criterion_short else []
        criterion_run(exes, env, "aa_a/", [*short, "--save-baseline", f"pair{p}"])
        text, _ = criterion_run(exes, env, "aa_a/", [*short, "--baseline", f"pair{p}"])
        blocks = re.split(r"\n(?=aa_a/)", "\n" + text)
        for n in AA:
            block = next(b for b in blocks if b.startswith(f"aa_a/{label(n)}"))
            crit_changes[n].append("Performance has" in block)
        print(f"pair {p + 1}/{args.pairs}: rigor {[rigor_changes[n][-1] for n in AA]}, "
              f"criterion {[crit_changes[n][-1] for n in AA]}, "
              f"{time.monotonic() - started:.0f} s, load {os.getloadavg()[0]:.1f}",
              file=sys.stderr, flush=True)
    for n in AA:
        print(f"spin({n}): rigor verdicts {verdict_counts[n]}, "
              f"{floored[n]} interval(s) at the timer's resolution", file=sys.stderr)
    return rigor_changes, crit_changes, verdict_counts, floored


def criterion_halfwidth(e):
    ci = e["confidence_interval"]
    return 100 * (ci["upper_bound"] - ci["lower_bound"]) / 2 / e["point_estimate"]


ADAPTIVE = re.compile(
    r"^\s+\S+: (median|min) ([\d.]+ \S+) \[([\d.]+ \S+), ([\d.]+ \S+)\] \(± ([\d.]+)%\)",
    re.M,
)


def time_to_precision(args, exes, env, home):
    """spin(600), about 1 us: criterion with its defaults in --repeats separate processes (its
    wall time, the half-width it reports for its mean and median, and how far apart the medians of
    the processes are), then rigor bench --precision 1% for the median and for the minimum,
    --repeats times each (wall time, the interval reached, executions run)."""
    n = 600
    name = f"spin/{label(n)}"
    crit = []
    for _ in range(args.repeats):
        _, t = criterion_run(exes, env, name)
        e = criterion_estimates(home, f"spin_{label(n)}")
        crit.append({
            "time": t, "mean_hw": criterion_halfwidth(e["mean"]),
            "median_hw": criterion_halfwidth(e["median"]),
            "median": e["median"]["point_estimate"],
        })
    rigor = {}
    for estimator in ("median", "min"):
        rows = []
        for rep in range(args.repeats):
            out, t = rigor_bench(
                args, env, [name],
                ["--exact", "--precision", "1%", "--budget", "120s", "--estimator", estimator,
                 "--seed", str(rep + 1)],
            )
            m = ADAPTIVE.search(out.stdout)
            units = re.search(r"Units:\s+(.*)", out.stdout)
            reached = "target precision was reached" in out.stdout
            if out.returncode != 0 or not m:
                print(f"rigor bench --precision failed:\n{out.stdout}\n{out.stderr}",
                      file=sys.stderr)
            rows.append({
                "time": t, "reached": reached,
                "estimate": ns(*m.group(2).split()) if m else None,
                "lower": ns(*m.group(3).split()) if m else None,
                "upper": ns(*m.group(4).split()) if m else None,
                "hw": float(m.group(5)) if m else None,
                "units": units.group(1).strip() if units else "?",
            })
        rigor[estimator] = rows
    return crit, rigor


def precision_table(crit, rigor):
    lines = [
        "| spin(600) | wall time (each run) | reported half-width | estimates of the runs "
        "| spread of the estimates (max/min − 1) |",
        "|---|---|---|---|---|",
    ]
    spread = lambda xs: 100 * (max(xs) / min(xs) - 1)
    meds = [c["median"] for c in crit]
    lines.append(
        "| criterion defaults (one process each) | "
        + ", ".join(f"{c['time']:.1f} s" for c in crit)
        + " | mean ±" + ", ±".join(f"{c['mean_hw']:.2f}%" for c in crit)
        + "; median ±" + ", ±".join(f"{c['median_hw']:.2f}%" for c in crit)
        + " | medians " + ", ".join(fmt(m) for m in meds)
        + f" | {spread(meds):.1f}% |"
    )
    for estimator, rows in rigor.items():
        ests = [r["estimate"] for r in rows if r["estimate"]]
        lines.append(
            f"| rigor bench --precision 1% --estimator {estimator} | "
            + ", ".join(f"{r['time']:.1f} s" + ("" if r["reached"] else " (not reached)")
                        for r in rows)
            + " | ±" + ", ±".join(f"{r['hw']}%" if r["hw"] is not None else "–" for r in rows)
            + f" | {estimator}s " + ", ".join(fmt(x) for x in ests)
            + (f" | {spread(ests):.1f}% |" if ests else " | – |")
        )
        lines.append(
            f"| (executions run, {estimator}) | " + "; ".join(r["units"] for r in rows)
            + " | | | |"
        )
    return lines


def fmt(v):
    if v is None:
        return "–"
    if v >= 1000:
        return f"{v / 1000:.3g} µs"
    return f"{v:.3g} ns"


def load_since(load):
    """The sentence on the 1-minute load average before a section (`load`) and now."""
    return f"Load average (1 min) before / after: {load:.1f} / {os.getloadavg()[0]:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--rigor", default=str(ROOT / "target" / "release" / "rigor"))
    ap.add_argument("--out", type=Path)
    ap.add_argument("--skip-aa", action="store_true")
    ap.add_argument("--skip-precision", action="store_true")
    ap.add_argument("--skip-accuracy", action="store_true")
    ap.add_argument("--criterion-short", action="store_true",
                    help="A/A: criterion with 1 s warm-up and 2 s of measurement instead of its "
                         "defaults (3 s, 5 s), to fit a run")
    ap.add_argument("--repeats", type=int, default=3,
                    help="processes per tool in the time-to-±1%% comparison")
    args = ap.parse_args()
    print("building benches/peers …", file=sys.stderr)
    exes = build()
    home = tempfile.mkdtemp(prefix="criterion-")
    env = env_with(
        PEERS_SIZES=sizes_env(SIZES), PEERS_AA=sizes_env(AA), CRITERION_HOME=home,
    )
    def flush():
        # Each section is written as soon as it is measured, so a cut-short run keeps the rest.
        if args.out:
            args.out.write_text("\n".join(lines) + "\n")

    lines = []
    ref_before, ref_again = reference(exes)
    if not args.skip_accuracy:
        print("accuracy …", file=sys.stderr)
        load = os.getloadavg()[0]
        r, r_time = rigor_standalone(exes, env)
        rc_, _ = rigor_standalone(exes, {**env, "RIGOR_BENCH_CLOCK": "cycles"})
        c, c_time = criterion_accuracy(exes, env, home)
        d = divan_accuracy(exes, env)
    ref_after = ref_again()
    ref = {n: min(ref_before[n], ref_after[n]) for n in SIZES}
    if not args.skip_accuracy:
        lines += [
            "| n | reference | rigor-bench median (min) | rigor-bench, cycle counter: median (min) "
            "| criterion slope (median) | divan median (fastest) |",
            "|---|---|---|---|---|---|",
        ]
        for n in SIZES:
            drift = abs(ref_before[n] - ref_after[n]) / ref[n] * 100
            lines.append(
                f"| {n} | {fmt(ref[n])} (±{drift:.0f}% drift) "
                f"| {fmt(r[n]['median'])} ({fmt(r[n]['min'])}) "
                f"| {fmt(rc_[n]['median'])} ({fmt(rc_[n]['min'])}) "
                f"| {fmt(c[n]['slope'])} ({fmt(c[n]['median'])}) "
                f"| {fmt(d.get(n, {}).get('median'))} ({fmt(d.get(n, {}).get('fastest'))}) |"
            )
        lines.append("")
        lines.append(f"Run time for the five: rigor-bench {r_time:.1f} s, criterion {c_time:.1f} s. "
                     + load_since(load))
        lines.append("")
        flush()
    if not args.skip_aa:
        print("A/A …", file=sys.stderr)
        load = os.getloadavg()[0]
        rc, cc, verdicts, floored = aa(args, exes, env, home)
        lines += [
            f"| function | rigor bench: changes reported | criterion --baseline: changes reported |",
            "|---|---|---|",
        ]
        for n in AA:
            lines.append(
                f"| spin({n}) ≈ {fmt(ref[n])} | {sum(rc[n])} of {len(rc[n])} "
                f"| {sum(cc[n])} of {len(cc[n])} |"
            )
        tr, tc = sum(map(sum, rc.values())), sum(map(sum, cc.values()))
        total = sum(map(len, rc.values()))
        lines.append(f"| all | {tr} of {total} ({100 * tr / total:.0f}%) "
                     f"| {tc} of {total} ({100 * tc / total:.0f}%) |")
        lines.append("")
        lines.append("")
        for n in AA:
            lines.append(f"spin({n}): rigor's verdicts {verdicts[n]}; {floored[n]} of its "
                         f"intervals at the timer's resolution")
        lines.append("")
        crit = "shortened, 1 s + 2 s" if args.criterion_short else "its defaults, 3 s + 5 s"
        lines.append(f"criterion: {crit}. " + load_since(load))
        lines.append("")
        flush()
    if not args.skip_precision:
        print("time to ±1% …", file=sys.stderr)
        load = os.getloadavg()[0]
        crit, rig = time_to_precision(args, exes, env, home)
        lines += precision_table(crit, rig)
        lines.append("")
        lines.append(load_since(load))
    flush()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
