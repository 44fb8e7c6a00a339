//! Fieller's ratio interval (docs/methodology.md, "Comparisons"): a bounded interval always
//! contains θ̂, and the Welch interval covers the true ratio at about its nominal rate on normal
//! data.

use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rigor_stats::fieller::{DfMethod, FiellerInterval, MeanEstimate, fieller};

fn estimate() -> impl Strategy<Value = MeanEstimate> {
    (-1e3f64..1e3, 0.0f64..1e3, 2usize..40)
        .prop_map(|(m, s2, n)| MeanEstimate::new(m, s2, n).unwrap())
}

proptest! {
    #[test]
    fn bounded_interval_contains_ratio(
        a in estimate(),
        b in estimate(),
        level in 0.5f64..0.999,
        method in prop_oneof![
            Just(DfMethod::WelchSatterthwaite),
            Just(DfMethod::MinDf),
            Just(DfMethod::Normal)
        ],
    ) {
        prop_assume!(b.mean.abs() > 1e-6);
        let r = fieller(&a, &b, level, method).unwrap();
        match r.interval {
            FiellerInterval::Bounded { lower, upper } => {
                prop_assert!(r.g < 1.0);
                let slack = 1e-12 * r.ratio.abs().max(1.0);
                prop_assert!(lower - slack <= r.ratio && r.ratio <= upper + slack, "{:?}", r);
            }
            FiellerInterval::Unbounded => prop_assert!(r.g >= 1.0),
        }
    }
}

#[test]
fn welch_fieller_covers_about_95_percent() {
    // True means 95 and 100 (ratio 0.95), SDs of the unit means 4 and 5, r = 10 and 8.
    const EXPERIMENTS: usize = 4000;
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let (na, nb) = (
        Normal::new(95.0, 4.0).unwrap(),
        Normal::new(100.0, 5.0).unwrap(),
    );
    let covered = (0..EXPERIMENTS)
        .filter(|_| {
            let a: Vec<f64> = (0..10).map(|_| na.sample(&mut rng)).collect();
            let b: Vec<f64> = (0..8).map(|_| nb.sample(&mut rng)).collect();
            let (a, b) = (
                MeanEstimate::from_unit_means(&a).unwrap(),
                MeanEstimate::from_unit_means(&b).unwrap(),
            );
            let r = fieller(&a, &b, 0.95, DfMethod::WelchSatterthwaite).unwrap();
            r.bounds().is_some_and(|(lo, hi)| lo <= 0.95 && 0.95 <= hi)
        })
        .count();
    let rate = covered as f64 / EXPERIMENTS as f64;
    assert!((0.93..=0.97).contains(&rate), "coverage {rate}");
}
