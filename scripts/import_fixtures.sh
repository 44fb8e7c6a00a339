#!/bin/sh
# Regenerates the importer fixtures that the tools themselves produce (hyperfine, pyperf,
# Google Benchmark, criterion.rs) into crates/rigor-store/tests/fixtures/import/. Needs the tools:
#   apt-get install hyperfine libbenchmark-dev g++ time ; pip install pyperf rebench ; cargo
# The files are kept small (few runs) so that the tests stay fast.
set -eu
out="$(cd "$(dirname "$0")/.." && pwd)/crates/rigor-store/tests/fixtures/import"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# hyperfine: two commands, 5 runs each.
hyperfine -N --warmup 1 --runs 5 --export-json "$out/hyperfine.json" 'sleep 0.01' 'sleep 0.02'

# pyperf: 3 worker processes, 3 values each, 1 warm-up each.
python3 -m pyperf timeit --processes 3 --values 3 --warmups 1 --loops 1000 \
    --name sum-range -o "$out/pyperf.json" -s 'x = list(range(100))' 'sum(x)'

# Google Benchmark: two benchmarks, 3 repetitions (aggregates included, as the tool writes).
cat > "$work/bench.cc" <<'CC'
#include <benchmark/benchmark.h>
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static void BM_Fib(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(fib(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_Fib)->Arg(10)->Arg(15)->Repetitions(3)->MinTime(0.01);
BENCHMARK_MAIN();
CC
g++ -O2 -o "$work/bench" "$work/bench.cc" -lbenchmark -lpthread
"$work/bench" --benchmark_out="$out/gbench.json" --benchmark_out_format=json >/dev/null
# Two more processes of the same program: given together, the three files are one benchmark
# measured in 3 process executions × 3 repetitions.
for p in 2 3; do
    "$work/bench" --benchmark_out="$out/gbench-$p.json" --benchmark_out_format=json >/dev/null
done

# criterion.rs: a throwaway project outside the workspace; keeps one benchmark's new/ files.
mkdir -p "$work/crit/src" "$work/crit/benches"
cat > "$work/crit/Cargo.toml" <<'TOML'
[package]
name = "critfix"
version = "0.1.0"
edition = "2021"
[dev-dependencies]
criterion = { version = "0.5", default-features = false }
[[bench]]
name = "fib"
harness = false
TOML
: > "$work/crit/src/lib.rs"
cat > "$work/crit/benches/fib.rs" <<'RS'
use criterion::{black_box, criterion_group, criterion_main, Criterion};
fn fib(n: u64) -> u64 { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }
fn bench(c: &mut Criterion) {
    c.bench_function("fib 10", |b| b.iter(|| fib(black_box(10))));
    c.bench_function("fib 12", |b| b.iter(|| fib(black_box(12))));
}
criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(200))
        .measurement_time(std::time::Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);
RS
(cd "$work/crit" && cargo bench --bench fib >/dev/null)
rm -rf "$out/criterion"
for b in "$work/crit/target/criterion/"fib*; do
    name="$(basename "$b")"
    mkdir -p "$out/criterion/$name/new"
    cp "$b/new/sample.json" "$b/new/estimates.json" "$b/new/benchmark.json" "$out/criterion/$name/new/"
done
# A criterion baseline folder (cargo bench -- --save-baseline main).
(cd "$work/crit" && cargo bench --bench fib -- --save-baseline main 'fib 10' >/dev/null)
rm -rf "$out/criterion-baseline"
mkdir -p "$out/criterion-baseline/fib 10/main"
for f in sample estimates benchmark; do
    cp "$work/crit/target/criterion/fib 10/main/$f.json" "$out/criterion-baseline/fib 10/main/"
done

# hyperfine -i with parameters: some runs exit non-zero.
hyperfine -N -i --runs 8 -L n 1,2 --export-json "$out/hyperfine-ignore-failure.json" \
    "sh -c 'sleep 0.0{n}; test \$((\$(date +%N) % 2)) -eq 0'"

# pyperf, gzip-compressed (pyperf compresses a .gz name).
python3 -m pyperf timeit --processes 3 --values 3 --warmups 1 --loops 1000 \
    --name sum-range -o "$out/pyperf.json.gz" -s 'x = list(range(100))' 'sum(x)'

# Google Benchmark: two unrelated benchmarks; with repetitions, without, aggregates only.
cat > "$work/suite.cc" <<'CC'
#include <benchmark/benchmark.h>
#include <string>
static void BM_StringCreation(benchmark::State& state) {
  for (auto _ : state) { std::string s("hello"); benchmark::DoNotOptimize(s); }
}
BENCHMARK(BM_StringCreation);
static void BM_Slow(benchmark::State& state) {
  for (auto _ : state) {
    long x = 0;
    for (int i = 0; i < 100000; ++i) benchmark::DoNotOptimize(x += i);
  }
}
BENCHMARK(BM_Slow);
BENCHMARK_MAIN();
CC
g++ -O2 -o "$work/suite" "$work/suite.cc" -lbenchmark -lpthread
gb_out() { f="$1"; shift; "$work/suite" --benchmark_min_time=0.01 --benchmark_out="$out/$f" --benchmark_out_format=json "$@" >/dev/null; }
gb_out gbench-suite.json --benchmark_repetitions=3
gb_out gbench-single.json
gb_out gbench-single-2.json
gb_out gbench-aggregates.json --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

# ReBench 1.4 (pip install rebench) with its Time adapter: MaxRSS beside the time.
mkdir -p "$work/rb"
cat > "$work/rb/rebench.conf" <<'YAML'
default_experiment: all
default_data_file: 'rebench.data'
benchmark_suites:
  Sleeps:
    gauge_adapter: Time
    command: "%(benchmark)s"
    invocations: 3
    iterations: 1
    benchmarks:
      - "0.01":
          extra_args: ""
      - "0.02":
          extra_args: ""
executors:
  sleep:
    executable: /bin/sleep
experiments:
  Sleep:
    suites:
      - Sleeps
    executions:
      - sleep
YAML
(cd "$work/rb" && rebench -D rebench.conf >/dev/null)
cp "$work/rb/rebench.data" "$out/rebench-1.4.data"
echo "fixtures written to $out"
