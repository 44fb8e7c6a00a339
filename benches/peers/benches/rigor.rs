use rigor_bench::{Bench, Harness, black_box};
use rigor_peers::{aa_sizes, sizes, spin};

fn main() {
    let mut h = Harness::new();
    for (label, n) in sizes() {
        h = h.bench(format!("spin/{label}"), move |b: &mut Bench| b.iter(|| spin(black_box(n))));
    }
    // Two identical functions per size: the A/A pair.
    for (label, n) in aa_sizes() {
        h = h.bench(format!("aa_a/{label}"), move |b: &mut Bench| b.iter(|| spin(black_box(n))));
        h = h.bench(format!("aa_b/{label}"), move |b: &mut Bench| b.iter(|| spin(black_box(n))));
    }
    h.run();
}
