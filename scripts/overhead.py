#!/usr/bin/env python3
"""Per-execution overhead of rigor versus hyperfine, measured side by side in one run.

For each command (`true`, `sleep 0.005`) and each repetition, both tools run N/5 and N executions
in a shuffled order; we time each run from outside. A tool's per-execution cost is the slope
(T_N − T_{N/5}) / (N − N/5), which removes start-up and the final analysis; its overhead is that
cost minus the mean time it reports for the command: the part of each execution the tool adds
outside its own measurement (bookkeeping, writing results). The per-execution cost itself also
counts what the tool adds inside its measurement, so both are shown. The least noisy figure is the
tool's own CPU time per execution (its process's time on CPU, children excluded, read from
/proc/PID/schedstat before it is reaped), again as a slope. The ratio rigor/hyperfine is what
matters on a shared, noisy machine; absolute times are not.

Usage: python3 scripts/overhead.py [--runs N] [--reps K]   (installs hyperfine with apt-get if
missing; needs root for that, as on the project's machines)
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ensure_hyperfine():
    if shutil.which("hyperfine"):
        return
    print("installing hyperfine (Debian package)...", file=sys.stderr)
    subprocess.run(["apt-get", "update", "-qq"], check=False)
    subprocess.run(["apt-get", "install", "-y", "-qq", "hyperfine"], check=True)


def build_rigor():
    subprocess.run(["cargo", "build", "--release", "--locked", "-q", "-p", "rigor"], cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target, "release", "rigor")


def run_tool(tool, rigor, command, runs, out):
    if tool == "rigor":
        argv = [rigor, "run", "-r", str(runs), "-w", "1", "--seed", "1", command, "--export-json", out]
    else:
        argv = ["hyperfine", "-N", "--runs", str(runs), "--warmup", "1", "--style", "none", command, "--export-json", out]
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Wait without reaping, so the tool's own CPU time (children excluded) is still readable.
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    elapsed = time.perf_counter() - t0
    with open(f"/proc/{proc.pid}/schedstat") as f:
        own_cpu = int(f.read().split()[0]) * 1e-9
    if proc.wait() != 0:
        sys.exit(f"{tool} failed: {argv}")
    with open(out) as f:
        data = json.load(f)
    reported = data["benchmarks"][0]["mean"] if tool == "rigor" else data["results"][0]["mean"]
    return elapsed, reported, own_cpu


def marginal(tool, rigor, command, runs, out):
    """(per-execution cost from the slope, reported mean of the long run, fixed start-up cost)."""
    small = max(runs // 5, 2)
    t_small, _, cpu_small = run_tool(tool, rigor, command, small, out)
    t_large, reported, cpu_large = run_tool(tool, rigor, command, runs, out)
    per = (t_large - t_small) / (runs - small)
    cpu = (cpu_large - cpu_small) / (runs - small)
    return per, reported, t_small - (small + 1) * per, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    ensure_hyperfine()
    rigor = build_rigor()
    rng = random.Random(args.seed)
    version = subprocess.run(["hyperfine", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"rigor vs {version}; {args.runs} executions x {args.reps} repetitions; order seed {args.seed}")
    print(f"{'command':<14} {'tool':<10} {'per-exec wall':>14} {'reported mean':>14} {'overhead':>10} {'start-up':>10} {'own CPU/exec':>13}")
    with tempfile.TemporaryDirectory() as tmp:
        for command in ["true", "sleep 0.005"]:
            per = {"rigor": [], "hyperfine": []}
            for _ in range(args.reps):
                tools = ["rigor", "hyperfine"]
                rng.shuffle(tools)
                for tool in tools:
                    per[tool].append(marginal(tool, rigor, command, args.runs, os.path.join(tmp, tool + ".json")))
            summary = {}
            for tool, rows in per.items():
                wall = statistics.median(r[0] for r in rows)
                reported = statistics.median(r[1] for r in rows)
                overhead = statistics.median(r[0] - r[1] for r in rows)
                startup = statistics.median(r[2] for r in rows)
                cpu = statistics.median(r[3] for r in rows)
                summary[tool] = (wall, reported, overhead, cpu)
                print(f"{command:<14} {tool:<10} {wall*1e3:>11.3f} ms {reported*1e3:>11.3f} ms {overhead*1e6:>7.1f} us {startup*1e3:>7.1f} ms {cpu*1e6:>10.1f} us")
            r, h = summary["rigor"], summary["hyperfine"]
            print(f"{command:<14} ratio rigor/hyperfine: per-execution wall {r[0]/h[0]:.2f}, own CPU per execution {r[3]/h[3]:.2f}")


if __name__ == "__main__":
    main()
