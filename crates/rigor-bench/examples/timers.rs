//! The two clocks side by side: `cargo run --release -p rigor-bench --example timers [ROUNDS]`.
//!
//! Each round calibrates `Instant` and the cycle counter one after the other (resolution: the
//! smallest step seen; overhead: the smallest back-to-back difference, what every sample has
//! subtracted) and times 10⁶ readings of each; the medians over the rounds are printed. Figures
//! in docs/benchmarks.md ("Timer").

use std::time::Instant;

use rigor_bench::cycles::{self, SystemClock, Tsc, calibrate_ticks};
use rigor_bench::timer::{Clock, InstantClock, calibrate};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Nanoseconds per reading over 10⁶ readings, timed by `Instant`.
fn per_read<C: Clock>(clock: &C) -> f64 {
    const N: u32 = 1_000_000;
    let t = Instant::now();
    for _ in 0..N {
        std::hint::black_box(clock.now());
    }
    t.elapsed().as_nanos() as f64 / f64::from(N)
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(9);
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    println!("invariant TSC listed: {}", cycles::invariant_tsc(&info));
    let Some(ns_per_tick) =
        calibrate_ticks(&Tsc, &InstantClock, cycles::WINDOW_NS, cycles::WINDOWS)
    else {
        println!("the cycle counter's rate was not steady against Instant: nothing to compare");
        return;
    };
    let tsc = SystemClock::cycles(ns_per_tick);
    let instant = SystemClock::instant();
    let mut rows = vec![Vec::new(); 6];
    for _ in 0..rounds {
        for (i, clock) in [instant, tsc].iter().enumerate() {
            let c = calibrate(clock);
            rows[3 * i].push(c.resolution_ns);
            rows[3 * i + 1].push(c.overhead_ns);
            rows[3 * i + 2].push(per_read(clock));
        }
    }
    println!(
        "{} (median of {rounds} rounds, each clock in turn)",
        tsc.describe()
    );
    println!("| clock | resolution | overhead (subtracted) | cost of one reading |");
    println!("|---|---|---|---|");
    for (i, name) in ["Instant", "cycle counter (rdtsc)"].iter().enumerate() {
        println!(
            "| {name} | {:.2} ns | {:.2} ns | {:.2} ns |",
            median(rows[3 * i].clone()),
            median(rows[3 * i + 1].clone()),
            median(rows[3 * i + 2].clone())
        );
    }
}
