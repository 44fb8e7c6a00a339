//! The example bench target: what a user writes, and what rigor-bench's and rigor's tests run.

use rigor_bench::{Bench, Harness, Throughput, black_box};

#[global_allocator]
static ALLOC: rigor_bench::CountingAlloc = rigor_bench::CountingAlloc;

fn fib(n: u64) -> u64 {
    if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
}

fn main() {
    Harness::new()
        .bench("fib", |b: &mut Bench| b.iter(|| fib(black_box(15))))
        // Two identical functions: an A/A pair (`rigor bench --reference fib_again`).
        .bench("fib_again", |b: &mut Bench| b.iter(|| fib(black_box(15))))
        .bench_with_inputs("sort", [100usize, 10_000], |b, &n| {
            b.throughput(Throughput::Elements(n as u64));
            b.iter_batched(
                || (0..n as u64).rev().collect::<Vec<_>>(),
                |mut v| {
                    v.sort_unstable();
                    v
                },
            );
        })
        .bench("alloc_vec", |b: &mut Bench| {
            b.iter(|| vec![0u8; black_box(256)])
        })
        .run();
}
