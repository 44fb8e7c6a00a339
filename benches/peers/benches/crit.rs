use criterion::{Criterion, black_box};
use rigor_peers::{aa_sizes, sizes, spin};

fn benches(c: &mut Criterion) {
    for (label, n) in sizes() {
        c.bench_function(&format!("spin/{label}"), |b| b.iter(|| spin(black_box(n))));
    }
    for (label, n) in aa_sizes() {
        c.bench_function(&format!("aa_a/{label}"), |b| b.iter(|| spin(black_box(n))));
    }
}

criterion::criterion_group!(group, benches);
criterion::criterion_main!(group);
