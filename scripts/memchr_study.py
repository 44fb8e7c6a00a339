#!/usr/bin/env python3
"""rigor bench on a real crate (memchr), beside criterion (docs/benchmarks.md, "A real crate").

Copies benches/memchr (memchr 2.8 from crates.io, benchmarks for rigor-bench and criterion 0.5)
into three folders under benches/memchr/target/study/ and builds each in its own target
directory: `normal`, `slow` (the feature `slow` on: `find` scans 16 bytes naively before calling
memchr, the known slowdown) and `rebuild` (the same source as `normal`, built again: the known-equal
build). Then measures, in one run on this machine:

1. truth: for each benchmark, one long `rigor run` of the harness processes of the three builds
   in shuffled interleaved rounds (`--exact NAME --evals N`, N tuned once on `normal`), compared
   by the minimum and the median: slow/normal and rebuild/normal;
2. the slowdown as each tool reports it: `rigor bench --against normal` run in `slow`;
   `rigor bench --save-baseline normal` in `normal` (--sessions times, as separate sessions), then
   `rigor bench --baseline normal` in `slow`; criterion `--save-baseline normal` in `normal`, then
   `--baseline normal` in `slow`. A real change is a truth of at least 5% either way whose
   interval excludes 1; a miss is anything but the right verdict for it;
3. A/A: `rebuild` against `normal` --aa times through `rigor bench --against`,
   `rigor bench --baseline` and criterion's `--baseline`: every change reported is false;
4. time to a result: `rigor bench --precision 1%` (the default estimator, the minimum, and the
   median) against the default run (the --save-baseline sessions): wall time, executions, the
   half-widths reached; each capped by --precision-budget (measured time).

Usage: python3 scripts/memchr_study.py [--out FILE] [--sessions 3] [--aa 3] [--truth-runs 30]
       [--criterion-short] [--skip-precision] [--precision-budget 300s] [--seed 1]
Needs a release rigor (cargo build --release -p rigor) and crates.io the first time (memchr,
criterion). Every rigor command's seed is printed beside its figures; criterion takes no seed.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STUDY = ROOT / "benches" / "memchr"
WORK = STUDY / "target" / "study"
BUILDS = ("normal", "slow", "rebuild")
NAMES = [
    "memchr/64", "memchr/4096", "memchr/65536", "memrchr/4096", "memchr3/4096", "memmem/4096",
    "lines/4096",
]
REAL = 0.05


def env():
    e = dict(os.environ)
    # Each copy builds in its own target folder (rigor bench --against builds DIR/target).
    for k in ("CARGO_TARGET_DIR", "RIGOR_SAMPLES_FILE", "RIGOR_ITERATIONS"):
        e.pop(k, None)
    return e


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, env=env(), **kw)


def prepare():
    """The three copies: the project's files, rigor-bench's path made absolute, `slow` on in
    `slow`. Their target folders are kept between runs."""
    manifest = (STUDY / "Cargo.toml").read_text()
    manifest = manifest.replace(
        'path = "../../crates/rigor-bench"', f'path = "{ROOT / "crates" / "rigor-bench"}"')
    for build in BUILDS:
        d = WORK / build
        for sub in ("src", "benches"):
            shutil.rmtree(d / sub, ignore_errors=True)
            shutil.copytree(STUDY / sub, d / sub)
        text = manifest
        if build == "slow":
            text = text.replace("default = []", 'default = ["slow"]')
        (d / "Cargo.toml").write_text(text)
        shutil.copy(STUDY / "Cargo.lock", d / "Cargo.lock")


def executables(build, features=(), target=None):
    cmd = ["cargo", "bench", "--no-run", "--locked", "--message-format=json"]
    if features:
        cmd += ["--features", ",".join(features), "--bench", "crit"]
    else:
        cmd += ["--bench", "rigor"]
    if target:
        cmd += ["--target-dir", str(target)]
    out = sh(cmd, cwd=WORK / build).stdout
    for line in out.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if m.get("reason") == "compiler-artifact" and m.get("executable") \
                and "bench" in m["target"]["kind"]:
            return m["executable"]
    sys.exit(f"no bench executable built in {build}")


def tune(exe):
    out = sh([exe, "--bench", "--rigor-tune", "--exact", *NAMES]).stdout
    return {j["name"]: j["evals"] for j in map(json.loads, filter(str.strip, out.splitlines()))}


# "memchr/64 is 2.31× slower than memchr/64 @ normal (min time) (95% CI 2.28 .. 2.33)", or
# "… is 1.5% faster than … (95% CI −2.0% .. −1.1%)".
EFFECT = re.compile(
    r"^  (?P<cand>.+?) is (?P<amount>[\d.]+× (?:slower|faster)|[\d.]+% (?:slower|faster)"
    r"|no faster or slower \(0\.00%\)) than (?P<base>.+?)(?: \([a-z ]+\))? "
    r"\(\d+% CI (?P<ci>[^)]*)\)$"
)
VERDICT = re.compile(r"^    verdict: (\w+)")


def pct(word):
    return float(word.replace("−", "-").rstrip("%")) / 100


def ratio_of(amount, ci):
    """The ratio candidate/baseline and its interval from the words of a comparison."""
    if amount.startswith("no "):
        r = 1.0
    elif "×" in amount:
        k = float(amount.split("×")[0])
        r = k if amount.endswith("slower") else 1 / k
    else:
        p = float(amount.split("%")[0]) / 100
        r = 1 + p if amount.endswith("slower") else 1 - p
    lo = hi = None
    m = re.match(r"(\S+) \.\. (\S+)", ci)
    if m:
        a, b = m.group(1), m.group(2)
        if a.endswith("%"):
            lo, hi = 1 + pct(a), 1 + pct(b)
        elif r >= 1:
            lo, hi = float(a), float(b)
        else:
            lo, hi = 1 / float(b), 1 / float(a)
    return r, lo, hi


def comparisons(text, section=None):
    """{benchmark: (ratio, lower, upper, verdict)} of the time comparisons in rigor's output
    (after the line `section` when given)."""
    lines = text.splitlines()
    if section:
        at = next((i for i, l in enumerate(lines) if l.startswith(section)), len(lines))
        lines = lines[at:]
    found = {}
    for i, line in enumerate(lines):
        m = EFFECT.match(line)
        if not m:
            continue
        name = m.group("cand").split(" ")[0]
        v = VERDICT.match(lines[i + 1]) if i + 1 < len(lines) else None
        if name not in found:
            found[name] = (*ratio_of(m.group("amount"), m.group("ci")), v.group(1) if v else "?")
    return found


def rigor(args, cmd, log):
    t0 = time.monotonic()
    out = subprocess.run([args.rigor, *cmd], text=True, capture_output=True, env=env(),
                         cwd=WORK)
    elapsed = time.monotonic() - t0
    (WORK / "logs" / f"{log}.txt").write_text(
        f"$ rigor {' '.join(cmd)}\n# exit {out.returncode}, {elapsed:.1f} s\n"
        f"{out.stdout}\n--- stderr\n{out.stderr}")
    if out.returncode not in (0, 1):
        print(f"rigor failed ({log}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}",
              file=sys.stderr)
    return out.stdout, elapsed


def bench(args, build, extra, log, seed):
    return rigor(args, ["bench", "--manifest-path", str(WORK / build / "Cargo.toml"),
                        "--bench", "rigor", "--seed", str(seed), *extra], log)


def truth(args, exes, evals, seed):
    """{name: {"min": (r, lo, hi, v), "median": …, "aa_min": …, "aa_median": …}}."""
    res = {}
    for i, name in enumerate(NAMES):
        cmds = [f"{exes[b]} --bench --exact {name} --evals {evals[name]}" for b in BUILDS]
        row = {}
        for est in ("min", "median"):
            out, t = rigor(args, [
                "run", "-N", "-r", str(args.truth_runs), "--seed", str(seed + i),
                "--estimator", est, "--reference", "normal",
                *sum((["-n", b] for b in BUILDS), []), *cmds,
            ], f"truth-{name.replace('/', '_')}-{est}")
            c = comparisons(out, "Comparisons")
            row[est] = c.get("slow")
            row["aa_" + est] = c.get("rebuild")
            row["time"] = row.get("time", 0) + t
        res[name] = row
        print(f"truth {name}: slow/normal {fmt_ratio(row['median'])} (median), "
              f"{fmt_ratio(row['min'])} (min); {row['time']:.0f} s, load "
              f"{os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    return res


CRIT_BLOCK = re.compile(r"^(\S+/\d+)\s+time:", re.M)


def criterion(args, exe, extra, home, log):
    short = ["--warm-up-time", "1", "--measurement-time", "2"] if args.criterion_short else []
    t0 = time.monotonic()
    out = subprocess.run([exe, "--bench", *short, *extra], text=True, capture_output=True,
                         env={**env(), "CRITERION_HOME": home}, cwd=WORK)
    elapsed = time.monotonic() - t0
    text = out.stdout + out.stderr
    (WORK / "logs" / f"{log}.txt").write_text(text)
    found = {}
    starts = [(m.start(), m.group(1)) for m in CRIT_BLOCK.finditer(text)]
    for (at, name), nxt in zip(starts, [s for s, _ in starts[1:]] + [len(text)]):
        block = text[at:nxt]
        m = re.search(r"change:\s*(?:time:\s*)?\[(\S+)% (\S+)% (\S+)%\]", block)
        if not m:
            continue
        lo, mid, hi = (1 + pct(x + "%") for x in m.groups())
        if "Performance has regressed" in block:
            verdict = "regressed"
        elif "Performance has improved" in block:
            verdict = "improved"
        elif "within noise threshold" in block:
            verdict = "noise"
        else:
            verdict = "no change"
        found[name] = (mid, lo, hi, verdict)
    return found, elapsed


def fmt_ratio(c):
    if not c:
        return "–"
    r, lo, hi = c[:3]
    if lo is None:
        return f"{100 * (r - 1):+.1f}% [unbounded]"
    return f"{100 * (r - 1):+.1f}% [{100 * (lo - 1):+.1f}, {100 * (hi - 1):+.1f}]"


RIGHT = {
    1: ("regression", "slower", "regressed"),
    -1: ("improvement", "faster", "improved"),
}
CHANGED = ("regression", "improvement", "slower", "faster", "regressed", "improved")


def real_change(t):
    """+1 / -1 when the truth is a change of at least 5% whose interval excludes 1, else 0."""
    if not t or t[1] is None:
        return 0
    r, lo, hi = t[:3]
    if r >= 1 + REAL and lo > 1:
        return 1
    if r <= 1 - REAL and hi < 1:
        return -1
    return 0


def cell(c):
    return f"{fmt_ratio(c)} {c[3]}" if c else "–"


def load_since(load):
    return f"Load average (1 min) before / after: {load:.1f} / {os.getloadavg()[0]:.1f}"


UNITS = re.compile(r"^\s+Units:\s+(.*)$", re.M)
HALF = re.compile(r"^  \S+: (?:min|median) .*\(± ([\d.]+)%\)", re.M)


def units(text):
    """Each benchmark's "Units:" line, in order."""
    return [u.strip() for u in UNITS.findall(text)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rigor", default=str(ROOT / "target" / "release" / "rigor"))
    ap.add_argument("--out", type=Path)
    ap.add_argument("--sessions", type=int, default=3,
                    help="sessions of the saved rigor baseline (one gives no verdict)")
    ap.add_argument("--aa", type=int, default=3, help="A/A repetitions per method")
    ap.add_argument("--truth-runs", type=int, default=30,
                    help="executions per build in each truth run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--criterion-short", action="store_true",
                    help="criterion with 1 s warm-up and 2 s of measurement instead of its "
                         "defaults (3 s, 5 s)")
    ap.add_argument("--skip-precision", action="store_true")
    ap.add_argument("--precision-budget", default="300s",
                    help="--budget of each --precision 1%% run ('' for none: the median's ran "
                         "22 minutes unstopped on 2026-11-26, docs/benchmarks.md)")
    args = ap.parse_args()
    started = time.monotonic()
    lines = []

    def flush():
        if args.out:
            args.out.write_text("\n".join(lines) + "\n")

    def say(msg):
        print(f"[{time.monotonic() - started:.0f} s, load {os.getloadavg()[0]:.1f}] {msg}",
              file=sys.stderr, flush=True)

    say("copying and building benches/memchr (normal, slow, rebuild) …")
    prepare()
    (WORK / "logs").mkdir(parents=True, exist_ok=True)
    exes = {b: executables(b) for b in BUILDS}
    crit_target = WORK / "criterion-target"
    crit = {b: executables(b, ("criterion",), crit_target) for b in BUILDS}
    evals = tune(exes["normal"])
    seed = args.seed
    lines += [f"Seeds: rigor commands from --seed {seed} (each command's seed in its log, "
              f"{WORK.relative_to(ROOT)}/logs/). Evaluations per sample in the truth runs "
              f"(tuned on normal): " + ", ".join(f"{n} {e}" for n, e in evals.items()) + ".", ""]

    # 1. Truth.
    say("truth …")
    load = os.getloadavg()[0]
    tr = truth(args, exes, evals, seed + 100)
    lines += [
        f"| benchmark | truth slow/normal, min [95% CI] | truth slow/normal, median "
        f"| truth rebuild/normal, min | truth rebuild/normal, median | real change ≥ 5% |",
        "|---|---|---|---|---|---|",
    ]
    for n in NAMES:
        t = tr[n]
        real = real_change(t["min"])
        lines.append(
            f"| {n} | {cell(t['min'])} | {cell(t['median'])} | {cell(t['aa_min'])} "
            f"| {cell(t['aa_median'])} | {({1: 'slower', -1: 'faster', 0: 'no'})[real]} |")
    lines += ["", f"Truth: `rigor run -N -r {args.truth_runs}` per benchmark and estimator, "
              f"three builds interleaved. " + load_since(load), ""]
    flush()

    # 2. The slowdown through each tool.
    say("rigor bench --against …")
    load = os.getloadavg()[0]
    against, against_time = bench(args, "slow", ["--against", str(WORK / "normal")],
                                  "against-slow", seed + 200)
    against = comparisons(against, "Against")
    say("rigor bench --save-baseline …")
    shutil.rmtree(WORK / ".rigor" / "baselines", ignore_errors=True)
    default_times = []
    default_units = []
    for s in range(args.sessions):
        text, t = bench(args, "normal", ["--save-baseline", "normal"], f"save-{s + 1}",
                        seed + 300 + s)
        default_times.append(t)
        default_units.append(units(text))
    baseline, baseline_time = bench(args, "slow", ["--baseline", "normal"], "baseline-slow",
                                    seed + 400)
    baseline = comparisons(baseline, "Against the baseline")
    say("criterion …")
    home = tempfile.mkdtemp(prefix="criterion-")
    _, crit_save_time = criterion(args, crit["normal"], ["--save-baseline", "normal"], home,
                                  "criterion-save")
    crit_slow, crit_time = criterion(args, crit["slow"], ["--baseline", "normal"], home,
                                     "criterion-slow")
    lines += [
        "| benchmark | truth (min) | rigor bench --against | "
        f"rigor bench --baseline ({args.sessions} sessions) | criterion --baseline (mean) |",
        "|---|---|---|---|---|",
    ]
    misses = {"against": [], "baseline": [], "criterion": []}
    for n in NAMES:
        t = tr[n]["min"]
        real = real_change(t)
        row = {"against": against.get(n), "baseline": baseline.get(n),
               "criterion": crit_slow.get(n)}
        for tool, c in row.items():
            if real and (not c or c[3] not in RIGHT[real]):
                misses[tool].append(n)
        lines.append(f"| {n} | {fmt_ratio(t)} | {cell(row['against'])} "
                     f"| {cell(row['baseline'])} | {cell(crit_slow.get(n))} |")
    reals = sum(1 for n in NAMES if real_change(tr[n]["min"]))
    lines += ["", f"Misses of the {reals} real changes ≥ 5%: "
              + "; ".join(f"{k} {len(v)}" + (f" ({', '.join(v)})" if v else "")
                          for k, v in misses.items())
              + f". Wall time: --against {against_time:.0f} s, --baseline {baseline_time:.0f} s "
              f"(after {args.sessions} --save-baseline sessions of "
              + ", ".join(f"{x:.0f}" for x in default_times)
              + f" s), criterion {crit_save_time:.0f} s + {crit_time:.0f} s. "
              + load_since(load), ""]
    flush()

    # 3. A/A.
    say("A/A …")
    load = os.getloadavg()[0]
    aa = {"against": [], "baseline": [], "criterion": []}
    for k in range(args.aa):
        out, _ = bench(args, "rebuild", ["--against", str(WORK / "normal")],
                       f"aa-against-{k + 1}", seed + 500 + k)
        aa["against"].append(comparisons(out, "Against"))
        out, _ = bench(args, "rebuild", ["--baseline", "normal"], f"aa-baseline-{k + 1}",
                       seed + 600 + k)
        aa["baseline"].append(comparisons(out, "Against the baseline"))
        c, _ = criterion(args, crit["rebuild"], ["--baseline", "normal"], home,
                         f"aa-criterion-{k + 1}")
        aa["criterion"].append(c)
        say(f"A/A {k + 1}/{args.aa}: " + ", ".join(
            f"{tool} {sum(1 for v in runs[-1].values() if v[3] in CHANGED)}"
            for tool, runs in aa.items()))
    lines += ["| A/A (rebuild vs normal) | changes reported | verdicts |", "|---|---|---|"]
    for tool, runs in aa.items():
        verdicts = [c[3] for r in runs for c in r.values()]
        wrong = [f"{n} ({c[3]}, {fmt_ratio(c)})" for r in runs for n, c in r.items()
                 if c[3] in CHANGED]
        counts = {v: verdicts.count(v) for v in sorted(set(verdicts))}
        total = len(verdicts)
        lines.append(f"| {tool} | {len(wrong)} of {total}"
                     + (f" ({100 * len(wrong) / total:.0f}%)" if total else "")
                     + f" | {counts}" + (f"; {', '.join(wrong)}" if wrong else "") + " |")
    crit_words = "1 s + 2 s (--criterion-short)" if args.criterion_short else "3 s + 5 s"
    lines += ["", f"{args.aa} repetitions of each; criterion {crit_words}. " + load_since(load),
              ""]
    flush()

    # 4. Time to a result at ±1%.
    if not args.skip_precision:
        say("--precision 1% …")
        load = os.getloadavg()[0]
        lines += ["| run (all 7 benchmarks) | wall time | executions per benchmark "
                  "| half-widths reached |", "|---|---|---|---|"]
        lines.append("| default (the --save-baseline sessions) | "
                     + ", ".join(f"{x:.0f} s" for x in default_times)
                     + f" | {default_units[0][0] if default_units[0] else '?'} | |")
        for est in (None, "median"):
            extra = ["--precision", "1%"] + (["--estimator", est] if est else [])
            if args.precision_budget:
                extra += ["--budget", args.precision_budget]
            text, t = bench(args, "normal", extra, f"precision-{est or 'default'}", seed + 700)
            u = units(text)
            halves = HALF.findall(text)
            reached = "target precision was reached" in text
            lines.append(
                f"| --precision 1%{' --estimator ' + est if est else ' (min)'} | {t:.0f} s "
                f"({t / (sum(default_times) / len(default_times)):.1f}× the default)"
                + ("" if reached else ", not reached for all") + " | "
                + "; ".join(f"{n} {x}" for n, x in zip(NAMES, u)) + " | "
                + ", ".join(f"±{h}%" for h in halves[:len(NAMES)]) + " |")
            flush()
        lines += ["", load_since(load), ""]
    lines.append(f"Whole study: {time.monotonic() - started:.0f} s.")
    flush()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
