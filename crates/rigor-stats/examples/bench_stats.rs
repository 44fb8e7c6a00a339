//! Timing of the heavy statistics on a realistic hierarchy.
//!
//! Builds a seeded 20 × 50 × 1000 normal three-level hierarchy (1,000,000 values) and times the
//! 10,000-resample top-only bootstrap for several estimators (default thread pool and a 1-thread
//! pool), the same on 10,000 executions × 100 iterations (many small top-level units), and the
//! variance components. Run with
//!
//! ```text
//! cargo run --release -p rigor-stats --example bench_stats [repeats]
//! ```
//!
//! Targets: bootstrap < 2 s on 2 cores; variance components < 50 ms.

use std::hint::black_box;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rigor_stats::Hierarchy;
use rigor_stats::bootstrap::{BootstrapConfig, Resampling, bootstrap_interval};
use rigor_stats::descriptive::{Estimator, median};

const COUNTS: [usize; 3] = [20, 50, 1000];

/// μ = 1000, SDs 5 (build), 3 (execution), 10 (iteration).
fn hierarchy() -> Hierarchy {
    let mut rng = ChaCha8Rng::seed_from_u64(2016);
    let sd = [5.0, 3.0, 10.0].map(|s| Normal::new(0.0, s).unwrap());
    let mut values = Vec::with_capacity(COUNTS.iter().product());
    for _ in 0..COUNTS[0] {
        let a = sd[0].sample(&mut rng);
        for _ in 0..COUNTS[1] {
            let b = sd[1].sample(&mut rng);
            values.extend((0..COUNTS[2]).map(|_| 1000.0 + a + b + sd[2].sample(&mut rng)));
        }
    }
    Hierarchy::balanced(vec!["build", "execution", "iteration"], &COUNTS, values).unwrap()
}

/// `units` executions of `per` iterations: execution SD 0.03, iteration SD 0.01 around 1.
fn executions(units: usize, per: usize) -> Hierarchy {
    let mut rng = ChaCha8Rng::seed_from_u64(2013);
    let (e, i) = (
        Normal::new(0.0, 0.03).unwrap(),
        Normal::new(0.0, 0.01).unwrap(),
    );
    let mut values = Vec::with_capacity(units * per);
    for _ in 0..units {
        let a = e.sample(&mut rng);
        values.extend((0..per).map(|_| 1.0 + a + i.sample(&mut rng)));
    }
    Hierarchy::balanced(vec!["execution", "iteration"], &[units, per], values).unwrap()
}

/// Median wall time of `repeats` runs of `f`.
fn time<T>(repeats: usize, mut f: impl FnMut() -> T) -> Duration {
    let times: Vec<f64> = (0..repeats)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed().as_secs_f64()
        })
        .collect();
    Duration::from_secs_f64(median(&times))
}

fn main() {
    let repeats = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3);
    let h = hierarchy();
    let threads = rayon::current_num_threads();
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let cfg = BootstrapConfig::default();
    println!(
        "hierarchy {COUNTS:?} = {} values; B = {}; {threads} threads; median of {repeats}",
        h.values().len(),
        cfg.resamples
    );
    println!(
        "{:<34} {:>12} {:>12} {:>8} {:>12}",
        "task", "default (s)", "1 thread (s)", "speedup", "B = 1 (s)"
    );
    for e in [
        Estimator::Mean,
        Estimator::Median,
        Estimator::Min,
        Estimator::TrimmedMean(0.1),
    ] {
        let run = || bootstrap_interval(&h, e, &cfg).unwrap();
        let many = time(repeats, run);
        let one = time(repeats, || single.install(run));
        // The fixed cost: sufficient statistics, sorting, the estimate on the original data.
        let fixed_cfg = BootstrapConfig {
            resamples: 1,
            ..cfg
        };
        let fixed = time(repeats, || bootstrap_interval(&h, e, &fixed_cfg).unwrap());
        println!(
            "{:<34} {:>12.3} {:>12.3} {:>8.2} {:>12.3}",
            format!("bootstrap top-only {e}"),
            many.as_secs_f64(),
            one.as_secs_f64(),
            one.as_secs_f64() / many.as_secs_f64(),
            fixed.as_secs_f64()
        );
    }
    // Many small top-level units (the harness's executions × iterations): the rank walks of the
    // median and the trimmed mean.
    let many_units = executions(10_000, 100);
    for e in [
        Estimator::Mean,
        Estimator::Median,
        Estimator::Min,
        Estimator::TrimmedMean(0.1),
    ] {
        let t = time(repeats, || {
            bootstrap_interval(&many_units, e, &cfg).unwrap()
        });
        println!(
            "{:<34} {:>12.3}",
            format!("10,000 × 100: top-only {e}"),
            t.as_secs_f64()
        );
    }
    // All-levels resampling draws every value: time B = 100 and extrapolate.
    let all = BootstrapConfig {
        resamples: 100,
        strategy: Resampling::AllLevels,
        ..cfg
    };
    let t = time(repeats, || {
        bootstrap_interval(&h, Estimator::Mean, &all).unwrap()
    });
    println!(
        "{:<34} {:>12.3}   (≈ {:.0} s for B = {})",
        "bootstrap all-levels mean, B = 100",
        t.as_secs_f64(),
        t.as_secs_f64() * cfg.resamples as f64 / 100.0,
        cfg.resamples
    );
    // ---- variance components (rigor_stats::variance, written alongside) ----
    let vc = time(repeats, || {
        rigor_stats::variance::variance_components(&h).unwrap()
    });
    println!("{:<34} {:>12.3}", "variance_components", vc.as_secs_f64());
}
