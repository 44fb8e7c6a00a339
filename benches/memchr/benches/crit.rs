//! The memchr study's benchmarks for criterion 0.5 (`--features criterion`), named as in
//! `rigor.rs`.

use criterion::{BatchSize, Criterion, Throughput, black_box};
use rigor_memchr_study::{
    MEMCHR_SIZES, NEEDLE, NEEDLES3, SIZE, SUBSTRING, find, find_sub, find3, haystack, line_lengths,
    reverse_haystack, rfind, sub_haystack, text,
};

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("memchr");
    for n in MEMCHR_SIZES {
        let hay = haystack(n);
        g.throughput(Throughput::Bytes(n as u64));
        g.bench_function(n.to_string(), |b| {
            b.iter(|| find(black_box(NEEDLE), black_box(&hay)))
        });
    }
    g.finish();
    let n = SIZE;
    let mut one = |name: &str, f: &mut dyn FnMut(&mut criterion::Bencher)| {
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Bytes(n as u64));
        g.bench_function(n.to_string(), |b| f(b));
        g.finish();
    };
    let hay = reverse_haystack(n);
    one("memrchr", &mut |b| {
        b.iter(|| rfind(black_box(NEEDLE), black_box(&hay)))
    });
    let hay = haystack(n);
    one("memchr3", &mut |b| {
        b.iter(|| find3(black_box(NEEDLES3), black_box(&hay)))
    });
    let hay = sub_haystack(n);
    one("memmem", &mut |b| {
        b.iter(|| find_sub(black_box(&hay), black_box(SUBSTRING)))
    });
    let t = text(n);
    one("lines", &mut |b| {
        b.iter_batched(|| t.clone(), |t| line_lengths(&t), BatchSize::SmallInput)
    });
}

criterion::criterion_group!(group, benches);
criterion::criterion_main!(group);
