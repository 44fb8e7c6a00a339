//! Steady-state classification and independence on synthetic runs with known structure
//! (docs/methodology.md, "Steady state and the random initial state"). Each scenario is repeated
//! over many seeds and must be labelled correctly in at least 95 % of them; the measured rates
//! (release build, 400 seeds) are noted at each test. Debug builds use fewer seeds to stay fast.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rigor_stats::autocorr::{IndependenceConfig, independence};
use rigor_stats::steady::{
    ClassifyConfig, Consistency, RunClass, SteadyConfig, classify_run, diagnose, population_cov,
};

/// Seeds per classification scenario (each segments one run).
#[cfg(debug_assertions)]
const SEEDS: u64 = 20;
#[cfg(not(debug_assertions))]
const SEEDS: u64 = 400;

/// Seeds per benchmark diagnosis (each segments ten runs and searches cuts).
#[cfg(debug_assertions)]
const BENCH_SEEDS: u64 = 4;
#[cfg(not(debug_assertions))]
const BENCH_SEEDS: u64 = 100;

/// Seeds for the independence test alone (cheap).
#[cfg(debug_assertions)]
const INDEPENDENCE_SEEDS: u64 = 400;
#[cfg(not(debug_assertions))]
const INDEPENDENCE_SEEDS: u64 = 4000;

/// Run length: Barrett et al. ran 2,000 in-process iterations; 500 keeps the tests fast.
const N: usize = 500;

/// Times around 1.0 (seconds, say) with 1 % Gaussian noise, shaped by `level(i)`.
fn run(seed: u64, level: impl Fn(usize) -> f64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let noise = Normal::new(0.0, 0.01).unwrap();
    (0..N).map(|i| level(i) + noise.sample(&mut rng)).collect()
}

/// AR(1) noise x_t = φ·x_{t−1} + e_t around 1.0 with innovations of SD 1 %.
fn ar1(seed: u64, phi: f64, n: usize) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let noise = Normal::new(0.0, 0.01).unwrap();
    let mut x = noise.sample(&mut rng) / (1.0 - phi * phi).sqrt();
    (0..n)
        .map(|_| {
            x = phi * x + noise.sample(&mut rng);
            1.0 + x
        })
        .collect()
}

/// Fraction of `seeds` seeds for which `ok` holds.
fn rate_over(seeds: u64, ok: impl Fn(u64) -> bool) -> f64 {
    (0..seeds).filter(|&s| ok(s)).count() as f64 / seeds as f64
}

fn rate(ok: impl Fn(u64) -> bool) -> f64 {
    rate_over(SEEDS, ok)
}

fn classify(x: &[f64]) -> rigor_stats::steady::RunSteadiness {
    classify_run(x, &ClassifyConfig::default()).unwrap()
}

#[test]
fn flat_runs_are_flat() {
    // Measured: 100 % (400/400).
    let r = rate(|s| {
        let c = classify(&run(s, |_| 1.0));
        c.class == RunClass::Flat && c.steady_start == Some(0)
    });
    println!("flat: {r}");
    assert!(r >= 0.95, "flat labelled correctly in {r}");
}

#[test]
fn step_warmup_is_found_at_the_step() {
    // First 20 iterations 30 % slower. Measured: 100 % Warmup with steady start 20 ± 2.
    let r = rate(|s| {
        let c = classify(&run(s + 1000, |i| if i < 20 { 1.3 } else { 1.0 }));
        c.class == RunClass::Warmup && c.steady_start.is_some_and(|t| t.abs_diff(20) <= 2)
    });
    println!("step warm-up: {r}");
    assert!(r >= 0.95, "step warm-up labelled correctly in {r}");
}

#[test]
fn decaying_warmup_is_warmup() {
    // 30 % slower at the start, decaying with time constant 5 iterations (≈ 0.5 % left at 20).
    // Measured: 100 % Warmup with steady start ≤ 40.
    let r = rate(|s| {
        let c = classify(&run(s + 2000, |i| 1.0 + 0.3 * (-(i as f64) / 5.0).exp()));
        c.class == RunClass::Warmup && c.steady_start.is_some_and(|t| (5..=40).contains(&t))
    });
    println!("decaying warm-up: {r}");
    assert!(r >= 0.95, "decaying warm-up labelled correctly in {r}");
}

#[test]
fn slowdown_in_mid_run_is_slowdown() {
    // 10 % slower from iteration 250 on (the faster segment ends at 50 % of the run, well before
    // the last quarter). Measured: 100 % Slowdown with steady start 250 ± 2.
    let r = rate(|s| {
        let c = classify(&run(s + 3000, |i| if i < 250 { 1.0 } else { 1.1 }));
        c.class == RunClass::Slowdown && c.steady_start.is_some_and(|t| t.abs_diff(250) <= 2)
    });
    println!("slowdown: {r}");
    assert!(r >= 0.95, "slowdown labelled correctly in {r}");
}

#[test]
fn late_level_shift_has_no_steady_state() {
    // A 10 % level shift at 85 % of the run: the segment before it ends in the last quarter.
    // Measured: 100 % NoSteadyState.
    let r = rate(|s| {
        let c = classify(&run(s + 4000, |i| if i < 425 { 1.0 } else { 1.1 }));
        c.class == RunClass::NoSteadyState && c.steady_start.is_none()
    });
    println!("late shift: {r}");
    assert!(r >= 0.95, "late shift labelled correctly in {r}");
}

#[test]
fn iid_noise_is_independent_and_ar1_is_not() {
    let cfg = |s: u64| IndependenceConfig {
        seed: s,
        ..IndependenceConfig::default()
    };
    // i.i.d.: the rule errs with probability ≤ α = 1 %. Measured: 99.25 %.
    let iid = rate_over(INDEPENDENCE_SEEDS, |s| {
        independence(&run(s + 5000, |_| 1.0), &cfg(s))
            .unwrap()
            .independent
    });
    // AR(1), φ = 0.7, 500 values. Measured: 0 % called independent (100 % detected).
    let ar = rate_over(INDEPENDENCE_SEEDS, |s| {
        !independence(&ar1(s + 6000, 0.7, N), &cfg(s))
            .unwrap()
            .independent
    });
    println!("iid independent: {iid}, ar(1) dependent: {ar}");
    assert!(iid >= 0.95, "i.i.d. called independent in {iid}");
    assert!(ar >= 0.95, "AR(1) called dependent in {ar}");
}

/// Ten runs of one benchmark.
fn benchmark(seed: u64, make: impl Fn(u64) -> Vec<f64>) -> Vec<Vec<f64>> {
    (0..10).map(|j| make(seed * 100 + j)).collect()
}

#[test]
fn diagnose_warmup_benchmark() {
    // Ten runs with a 20-iteration step warm-up: consistent warm-up, initialised at 20 ± 2, and
    // independent from there. Measured: 100 %.
    let cfg = SteadyConfig::default();
    let r = rate_over(BENCH_SEEDS, |s| {
        let runs = benchmark(s + 7000, |t| run(t, |i| if i < 20 { 1.3 } else { 1.0 }));
        let rep = diagnose(&runs, &cfg).unwrap();
        rep.consistency == Consistency::Consistent(RunClass::Warmup)
            && rep.initialised_warmup.is_some_and(|w| w.abs_diff(20) <= 2)
            && rep.independent_warmup == rep.initialised_warmup
            && !rep.never_independent
    });
    println!("diagnose warm-up: {r}");
    assert!(r >= 0.95, "warm-up benchmark diagnosed correctly in {r}");
}

#[test]
fn diagnose_dependent_benchmark() {
    // Ten AR(1) runs (φ = 0.7): never independent, so one iteration per run.
    // Measured: 100 %.
    let cfg = SteadyConfig::default();
    let r = rate_over(BENCH_SEEDS, |s| {
        let runs = benchmark(s + 8000, |t| ar1(t, 0.7, N));
        diagnose(&runs, &cfg).unwrap().never_independent
    });
    println!("diagnose AR(1): {r}");
    assert!(r >= 0.95, "dependent benchmark diagnosed correctly in {r}");
}

#[test]
fn mixed_runs_are_good_inconsistent() {
    let runs: Vec<Vec<f64>> = (0..6)
        .map(|j| run(9000 + j, |i| if j % 2 == 0 && i < 20 { 1.3 } else { 1.0 }))
        .collect();
    let rep = diagnose(&runs, &SteadyConfig::default()).unwrap();
    assert_eq!(rep.consistency, Consistency::GoodInconsistent);
    assert_eq!(rep.runs.len(), 6);
    assert!(rep.dacapo.is_some() && rep.georges.is_some());
}

#[test]
fn dacapo_cov_oracle() {
    // Hand-worked: times (100, 103, 101) give CoV 0.012308 with the population SD.
    assert!((population_cov(&[100.0, 103.0, 101.0]) - 0.012_308).abs() < 5e-7);
}
