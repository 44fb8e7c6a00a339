//! The reference cost of `spin(n)`: K back-to-back calls timed as one batch of at least 50 ms
//! (timer error below 0.0001%), the fastest of 7 batches, divided by K. Prints `n ns` lines for
//! the n given as arguments.

use std::hint::black_box;
use std::time::Instant;

use rigor_peers::spin;

fn batch(n: u64, k: u64) -> f64 {
    let start = Instant::now();
    for _ in 0..k {
        black_box(spin(black_box(n)));
    }
    start.elapsed().as_nanos() as f64
}

fn main() {
    for arg in std::env::args().skip(1) {
        let n: u64 = arg.parse().expect("a step count");
        let mut k = 1;
        while batch(n, k) < 5e7 {
            k *= 2;
        }
        let best = (0..7).map(|_| batch(n, k)).fold(f64::INFINITY, f64::min);
        println!("{n} {}", best / k as f64);
    }
}
