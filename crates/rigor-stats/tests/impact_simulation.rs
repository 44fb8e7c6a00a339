//! The impact factor (docs/methodology.md, "Steady state and the random initial state") on
//! simulated runs with known variance components: it estimates sqrt(1 + σ_run²/σ_within²), and
//! is ≈ 1 without a run effect or after run-mean centring.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rigor_stats::Hierarchy;
use rigor_stats::impact::{ImpactConfig, impact_factor, impact_factor_centred, impact_factor_of};

/// `runs` runs of `samples` values: mean 1000, run effect SD `sd_run`, noise SD 10.
fn simulate(seed: u64, runs: usize, samples: usize, sd_run: f64) -> Vec<Vec<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let within = Normal::new(0.0, 10.0).unwrap();
    let between = Normal::new(0.0, sd_run.max(f64::MIN_POSITIVE)).unwrap();
    (0..runs)
        .map(|_| {
            let a = if sd_run > 0.0 {
                between.sample(&mut rng)
            } else {
                0.0
            };
            (0..samples)
                .map(|_| 1000.0 + a + within.sample(&mut rng))
                .collect()
        })
        .collect()
}

fn cfg(seed: u64) -> ImpactConfig {
    ImpactConfig {
        k: 2000,
        c: None,
        seed,
    }
}

#[test]
fn equal_run_and_within_variance_gives_sqrt_2() {
    let runs = simulate(1, 100, 200, 10.0);
    let f = impact_factor(&runs, &cfg(1)).unwrap();
    assert!((f.value - 2f64.sqrt()).abs() < 0.1, "{f:?}");
    assert_eq!((f.c, f.k, f.skipped), (75, 2000, 0));
    let centred = impact_factor_centred(&runs, &cfg(1)).unwrap();
    assert!((centred.value - 1.0).abs() < 0.1, "{centred:?}");
}

#[test]
fn thirty_runs_large_run_effect() {
    // σ_run = 3σ_within → sqrt(10) ≈ 3.16; 30 runs estimate σ_run only to about ±13%.
    let runs = simulate(2, 30, 200, 30.0);
    let f = impact_factor(&runs, &cfg(2)).unwrap();
    assert!((f.value - 10f64.sqrt()).abs() < 0.5, "{f:?}");
    assert_eq!(f.c, 22);
    let centred = impact_factor_centred(&runs, &cfg(2)).unwrap();
    assert!((centred.value - 1.0).abs() < 0.1, "{centred:?}");
}

#[test]
fn no_run_effect_gives_one() {
    let runs = simulate(3, 60, 100, 0.0);
    let f = impact_factor(&runs, &cfg(3)).unwrap();
    assert!((f.value - 1.0).abs() < 0.1, "{f:?}");
}

#[test]
fn hierarchy_input_matches_slices() {
    let runs = simulate(4, 20, 30, 10.0);
    let h = Hierarchy::two_level(["run", "sample"], &runs).unwrap();
    assert_eq!(
        impact_factor_of(&h, &cfg(4)).unwrap(),
        impact_factor(&runs, &cfg(4)).unwrap()
    );
}
