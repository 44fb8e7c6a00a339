use rigor_bench::{Bench, Harness, black_box};
use rigor_peers::{aa_sizes, sizes, spin};

/// The A/A pair's one body: both names run this very code (two closures would be two copies of
/// the timed loop at different addresses, which can differ by their alignment alone).
#[inline(never)]
fn aa_body(b: &mut Bench, n: u64) {
    b.iter(|| spin(black_box(n)));
}

fn main() {
    let mut h = Harness::new();
    for (label, n) in sizes() {
        h = h.bench(format!("spin/{label}"), move |b: &mut Bench| {
            b.iter(|| spin(black_box(n)))
        });
    }
    for (label, n) in aa_sizes() {
        h = h.bench(format!("aa_a/{label}"), move |b: &mut Bench| aa_body(b, n));
        h = h.bench(format!("aa_b/{label}"), move |b: &mut Bench| aa_body(b, n));
    }
    h.run();
}
