#!/bin/sh
# Regenerates the importer fixtures that the tools themselves produce (hyperfine, pyperf,
# Google Benchmark, criterion.rs) into crates/rigor-store/tests/fixtures/import/. Needs the tools:
#   apt-get install hyperfine libbenchmark-dev g++ ; pip install pyperf ; cargo (crates.io)
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
echo "fixtures written to $out"
