use rigor_peers::{sizes, spin};

fn main() {
    divan::main();
}

fn steps() -> Vec<u64> {
    sizes().into_iter().map(|(_, n)| n).collect()
}

#[divan::bench(args = steps())]
fn spin_steps(n: u64) -> u64 {
    spin(divan::black_box(n))
}
