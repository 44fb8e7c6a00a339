//! The memchr study's benchmarks for rigor-bench (`rigor bench --bench rigor`).

use rigor_bench::{Bench, CountingAlloc, Harness, Throughput, black_box};
use rigor_memchr_study::{
    MEMCHR_SIZES, NEEDLE, NEEDLES3, SIZE, SUBSTRING, find, find_sub, find3, haystack, line_lengths,
    reverse_haystack, rfind, sub_haystack, text,
};

// Allocations per iteration become metrics (`lines` allocates its vector of lengths).
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn main() {
    Harness::new()
        .bench_with_inputs("memchr", MEMCHR_SIZES, |b: &mut Bench, &n| {
            let hay = haystack(n);
            b.throughput(Throughput::Bytes(n as u64));
            b.iter(|| find(black_box(NEEDLE), black_box(&hay)));
        })
        .bench_with_inputs("memrchr", [SIZE], |b: &mut Bench, &n| {
            let hay = reverse_haystack(n);
            b.throughput(Throughput::Bytes(n as u64));
            b.iter(|| rfind(black_box(NEEDLE), black_box(&hay)));
        })
        .bench_with_inputs("memchr3", [SIZE], |b: &mut Bench, &n| {
            let hay = haystack(n);
            b.throughput(Throughput::Bytes(n as u64));
            b.iter(|| find3(black_box(NEEDLES3), black_box(&hay)));
        })
        .bench_with_inputs("memmem", [SIZE], |b: &mut Bench, &n| {
            let hay = sub_haystack(n);
            b.throughput(Throughput::Bytes(n as u64));
            b.iter(|| find_sub(black_box(&hay), black_box(SUBSTRING)));
        })
        .bench_with_inputs("lines", [SIZE], |b: &mut Bench, &n| {
            let t = text(n);
            b.throughput(Throughput::Bytes(n as u64));
            // A fresh copy of the text per iteration (set-up, not timed); the routine allocates.
            b.iter_batched(|| t.clone(), |t| line_lengths(&t));
        })
        .run();
}
