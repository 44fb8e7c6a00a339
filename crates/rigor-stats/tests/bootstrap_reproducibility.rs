//! The hierarchical bootstrap (docs/methodology.md, "Comparisons"): reproducibility for a seed,
//! independence from the number of threads, the percentile-index convention, pairing, strategies
//! and input errors.

use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rigor_stats::bootstrap::{
    BootstrapConfig, Pairing, Resampling, bootstrap_interval, bootstrap_ratio,
    bootstrap_replicates, percentile_indices, ratio_replicates,
};
use rigor_stats::descriptive::{Estimator, median};
use rigor_stats::{Hierarchy, StatsError};

/// A seeded `units × execs × iters` normal hierarchy with unit SDs at every level.
fn normal_hierarchy(seed: u64, units: usize, execs: usize, iters: usize) -> Hierarchy {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = Normal::new(0.0, 1.0).unwrap();
    let groups: Vec<Vec<Vec<f64>>> = (0..units)
        .map(|_| {
            let a = n.sample(&mut rng);
            (0..execs)
                .map(|_| {
                    let b = n.sample(&mut rng);
                    (0..iters)
                        .map(|_| 100.0 + a + b + n.sample(&mut rng))
                        .collect()
                })
                .collect()
        })
        .collect();
    Hierarchy::three_level(["build", "execution", "iteration"], &groups).unwrap()
}

fn cfg(seed: u64, resamples: usize) -> BootstrapConfig {
    BootstrapConfig {
        resamples,
        seed,
        ..BootstrapConfig::default()
    }
}

const ESTIMATORS: [Estimator; 4] = [
    Estimator::Mean,
    Estimator::Median,
    Estimator::Min,
    Estimator::TrimmedMean(0.1),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Same seed → identical replicates and interval; another seed → different replicates.
    #[test]
    fn same_seed_same_result(seed in any::<u64>(), data in 0u64..1000, e in 0usize..4) {
        let h = normal_hierarchy(data, 6, 3, 5);
        let e = ESTIMATORS[e];
        let a = bootstrap_replicates(&h, e, &cfg(seed, 300)).unwrap();
        prop_assert_eq!(&a, &bootstrap_replicates(&h, e, &cfg(seed, 300)).unwrap());
        prop_assert_ne!(&a, &bootstrap_replicates(&h, e, &cfg(seed ^ 1, 300)).unwrap());
        let i = bootstrap_interval(&h, e, &cfg(seed, 300)).unwrap();
        prop_assert_eq!(i, bootstrap_interval(&h, e, &cfg(seed, 300)).unwrap());
        prop_assert_eq!(i.seed, seed);
    }

    /// The result for B resamples is the prefix of the result for more resamples: each resample
    /// has its own stream, so the chunking never matters.
    #[test]
    fn replicates_are_prefix_stable(seed in any::<u64>()) {
        let h = normal_hierarchy(7, 5, 2, 4);
        let short = bootstrap_replicates(&h, Estimator::Median, &cfg(seed, 50)).unwrap();
        let long = bootstrap_replicates(&h, Estimator::Median, &cfg(seed, 777)).unwrap();
        prop_assert_eq!(&short[..], &long[..50]);
    }
}

#[test]
fn independent_of_thread_count() {
    // Small enough to run fast in debug builds; big enough for the selection path (median).
    let h = normal_hierarchy(3, 6, 3, 8);
    let g = normal_hierarchy(4, 6, 3, 8);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut all = Vec::new();
            for strategy in [Resampling::TopOnly, Resampling::AllLevels] {
                let c = BootstrapConfig {
                    strategy,
                    ..cfg(11, 150)
                };
                for e in ESTIMATORS {
                    all.push(bootstrap_replicates(&h, e, &c).unwrap());
                    for p in [Pairing::Independent, Pairing::Rounds] {
                        all.push(ratio_replicates(&h, &g, e, &c, p).unwrap());
                    }
                }
            }
            all
        })
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(5));
}

#[test]
fn percentile_convention_on_replicates() {
    let h = normal_hierarchy(5, 10, 3, 4);
    for (b, lo, hi) in [(10_000, 250, 9749), (1000, 25, 974), (40, 1, 38)] {
        assert_eq!(percentile_indices(b, 0.95).unwrap(), (lo, hi));
        let c = cfg(9, b);
        let mut reps = bootstrap_replicates(&h, Estimator::Mean, &c).unwrap();
        reps.sort_by(f64::total_cmp);
        let i = bootstrap_interval(&h, Estimator::Mean, &c).unwrap();
        assert_eq!((i.lower, i.upper), (reps[lo], reps[hi]));
        assert_eq!(i.resamples, b);
    }
}

#[test]
fn interval_contains_estimate() {
    let h = normal_hierarchy(21, 12, 4, 8);
    for e in ESTIMATORS {
        for strategy in [Resampling::TopOnly, Resampling::AllLevels] {
            let c = BootstrapConfig {
                strategy,
                ..cfg(1, 500)
            };
            let i = bootstrap_interval(&h, e, &c).unwrap();
            assert!(
                i.lower <= i.estimate && i.estimate <= i.upper,
                "{e} {strategy:?}: {i:?}"
            );
            assert_eq!((i.estimator, i.strategy, i.pairing), (e, strategy, None));
        }
    }
    let i = bootstrap_interval(&h, Estimator::Mean, &cfg(1, 1000)).unwrap();
    assert!((i.estimate - h.grand_mean()).abs() < 1e-12);
    let m = bootstrap_interval(&h, Estimator::Median, &cfg(1, 1000)).unwrap();
    assert_eq!(m.estimate, median(h.values()));
}

#[test]
fn flat_top_only_equals_all_levels() {
    // With one level the top-level units are the values: both strategies draw the same thing.
    let h = Hierarchy::flat(
        "iteration",
        (0..57).map(|i| f64::from(i * 37 % 23)).collect(),
    )
    .unwrap();
    for e in [Estimator::Median, Estimator::Min] {
        let top = bootstrap_replicates(&h, e, &cfg(5, 300)).unwrap();
        let all = BootstrapConfig {
            strategy: Resampling::AllLevels,
            ..cfg(5, 300)
        };
        assert_eq!(top, bootstrap_replicates(&h, e, &all).unwrap());
    }
}

#[test]
fn all_levels_is_wider_when_variance_is_within_units() {
    // No between-unit variance: top-only sees only the noise of the unit means; all-levels adds
    // the within-unit noise again (docs/methodology.md, "Comparisons": it roughly double-counts
    // lower-level variance).
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let n = Normal::new(0.0, 1.0).unwrap();
    let groups: Vec<Vec<f64>> = (0..15)
        .map(|_| (0..40).map(|_| n.sample(&mut rng)).collect())
        .collect();
    let h = Hierarchy::two_level(["execution", "iteration"], &groups).unwrap();
    let width = |strategy| {
        let c = BootstrapConfig {
            strategy,
            ..cfg(2, 2000)
        };
        let i = bootstrap_interval(&h, Estimator::Mean, &c).unwrap();
        i.upper - i.lower
    };
    let ratio = width(Resampling::AllLevels) / width(Resampling::TopOnly);
    assert!((1.15..1.8).contains(&ratio), "width ratio {ratio}");
}

#[test]
fn rounds_cancel_common_drift() {
    // Strong round-to-round drift, candidate exactly 5% slower in every round.
    let b = normal_hierarchy(12, 10, 2, 5)
        .map_values(|i, v| v + 30.0 * (i / 10) as f64)
        .unwrap();
    let c = b.map_values(|_, v| 1.05 * v).unwrap();
    let c_ = cfg(3, 2000);
    let paired = bootstrap_ratio(&c, &b, Estimator::Mean, &c_, Pairing::Rounds).unwrap();
    let independent = bootstrap_ratio(&c, &b, Estimator::Mean, &c_, Pairing::Independent).unwrap();
    assert_eq!(paired.pairing, Some(Pairing::Rounds));
    // Every paired resample has ratio 1.05 up to rounding: the drift cancels completely.
    assert!((paired.lower - 1.05).abs() < 1e-12 && (paired.upper - 1.05).abs() < 1e-12);
    assert!((paired.estimate - 1.05).abs() < 0.01);
    assert!(independent.upper - independent.lower > 10.0 * (paired.upper - paired.lower));
}

#[test]
fn input_errors() {
    let h = normal_hierarchy(1, 4, 2, 3);
    let one_unit = normal_hierarchy(1, 1, 2, 3);
    let c = cfg(0, 100);
    assert!(matches!(
        bootstrap_interval(&one_unit, Estimator::Mean, &c),
        Err(StatsError::TooFew { .. })
    ));
    assert!(bootstrap_interval(&h, Estimator::Mean, &cfg(0, 0)).is_err());
    assert!(bootstrap_interval(&h, Estimator::TrimmedMean(0.6), &c).is_err());
    let bad_level = BootstrapConfig { level: 1.0, ..c };
    assert!(bootstrap_interval(&h, Estimator::Mean, &bad_level).is_err());
    let five = normal_hierarchy(2, 5, 2, 3);
    assert!(matches!(
        bootstrap_ratio(&h, &five, Estimator::Mean, &c, Pairing::Rounds),
        Err(StatsError::Shape(_))
    ));
    assert!(bootstrap_ratio(&h, &five, Estimator::Mean, &c, Pairing::Independent).is_ok());
    // A baseline whose resamples can have a zero minimum gives non-finite ratios.
    let zero = Hierarchy::two_level(["e", "i"], &[vec![0.0, 1.0], vec![2.0, 3.0]]).unwrap();
    let pos = Hierarchy::two_level(["e", "i"], &[vec![1.0, 1.0], vec![2.0, 3.0]]).unwrap();
    assert!(bootstrap_ratio(&pos, &zero, Estimator::Min, &c, Pairing::Independent).is_err());
}
