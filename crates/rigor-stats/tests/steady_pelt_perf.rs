//! Timing of the steady-state machinery on long series (ignored by default; run in release with
//! `cargo test --release -p rigor-stats --test steady_pelt_perf -- --ignored --nocapture`).

use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rigor_stats::changepoint::{PeltConfig, pelt, pelt_blocked};
use rigor_stats::mixture::{MixtureConfig, select_mixture};
use rigor_stats::steady::{ClassifyConfig, SteadyConfig, classify_run, diagnose};

/// Standard normal noise; with `every`, the mean alternates between 0 and 2 every that many.
fn series(n: usize, every: Option<usize>) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let normal = Normal::new(0.0, 1.0).unwrap();
    (0..n)
        .map(|i| {
            let level = every.map_or(0.0, |e| if (i / e) % 2 == 0 { 0.0 } else { 2.0 });
            level + normal.sample(&mut rng)
        })
        .collect()
}

#[test]
#[ignore = "timing only"]
fn pelt_timing() {
    let cfg = PeltConfig::default();
    let exact = [
        (5_000, None),
        (10_000, None),
        (100_000, Some(1000)),
        (1_000_000, Some(1000)),
    ];
    for (n, every) in exact {
        let x = series(n, every);
        let t = Instant::now();
        let cps = pelt(&x, &cfg).unwrap();
        println!(
            "exact   n = {n:>9}, changes every {every:?}: {} cps, {:?}",
            cps.len(),
            t.elapsed()
        );
    }
    let blocked = [
        (100_000, None, 20),
        (1_000_000, None, 200),
        (1_000_000, Some(1000), 200),
    ];
    for (n, every, block) in blocked {
        let x = series(n, every);
        let t = Instant::now();
        let cps = pelt_blocked(&x, &cfg, block).unwrap();
        println!(
            "blocked n = {n:>9}, changes every {every:?}, block {block}: {} cps, {:?}",
            cps.len(),
            t.elapsed()
        );
    }
}

#[test]
#[ignore = "timing only"]
fn classify_and_diagnose_timing() {
    for n in [2_000, 100_000, 1_000_000] {
        let x: Vec<f64> = series(n, None).iter().map(|v| 1.0 + 0.01 * v).collect();
        let t = Instant::now();
        let r = classify_run(&x, &ClassifyConfig::default()).unwrap();
        println!("classify_run n = {n:>9}: {} ({:?})", r.class, t.elapsed());
    }
    let runs: Vec<Vec<f64>> = (0..30)
        .map(|j| {
            let mut rng = ChaCha8Rng::seed_from_u64(j);
            let noise = Normal::new(0.0, 0.01).unwrap();
            (0..2000)
                .map(|i| if i < 20 { 1.3 } else { 1.0 } + noise.sample(&mut rng))
                .collect()
        })
        .collect();
    let t = Instant::now();
    let rep = diagnose(&runs, &SteadyConfig::default()).unwrap();
    println!(
        "diagnose 30 runs × 2000: {:?}, initialised {:?}, independent {:?} ({:?})",
        rep.consistency,
        rep.initialised_warmup,
        rep.independent_warmup,
        t.elapsed()
    );
    let x = series(2000, None);
    let t = Instant::now();
    let m = select_mixture(&x, &MixtureConfig::default()).unwrap();
    println!("select_mixture n = 2000: K = {} ({:?})", m.k(), t.elapsed());
}
