//! Coverage of the interval over top-level means (docs/methodology.md, "The interval") on simulated
//! three-level data with known components, and of the naive pooled-iterations interval on the same
//! data.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rigor_stats::interval::{mean_interval, pooled_interval};
use rigor_stats::{Hierarchy, Quantile};

const MU: f64 = 100.0;

/// One balanced experiment: `r` units per level and `sigma2` variances, both top → bottom.
fn simulate(rng: &mut ChaCha8Rng, r: &[usize; 3], sigma2: &[f64; 3]) -> Hierarchy {
    let normal = |s2: f64| Normal::new(0.0, s2.sqrt()).unwrap();
    let (build, exec, iter) = (normal(sigma2[0]), normal(sigma2[1]), normal(sigma2[2]));
    let mut values = Vec::with_capacity(r.iter().product());
    for _ in 0..r[0] {
        let a = build.sample(rng);
        for _ in 0..r[1] {
            let b = exec.sample(rng);
            for _ in 0..r[2] {
                values.push(MU + a + b + iter.sample(rng));
            }
        }
    }
    Hierarchy::balanced(vec!["build", "execution", "iteration"], r, values).unwrap()
}

#[test]
fn hierarchical_interval_covers_and_pooled_does_not() {
    let mut rng = ChaCha8Rng::seed_from_u64(20_240_601);
    let (r, sigma2) = ([8, 4, 10], [4.0, 1.0, 2.0]);
    let sims = 2000;
    let (mut ours, mut normal, mut pooled) = (0, 0, 0);
    for _ in 0..sims {
        let h = simulate(&mut rng, &r, &sigma2);
        let covers = |q| mean_interval(&h, 0.95, q).unwrap().contains(MU);
        ours += usize::from(covers(Quantile::StudentT));
        normal += usize::from(covers(Quantile::Normal));
        let naive = pooled_interval(&h, 0.95, Quantile::StudentT).unwrap();
        pooled += usize::from(naive.contains(MU));
    }
    let rate = |k: usize| k as f64 / sims as f64;
    assert!(
        (0.93..=0.97).contains(&rate(ours)),
        "the interval over top-level means covered {}",
        rate(ours)
    );
    // With 8 top-level units the normal quantile of Kalibera & Tůma 2006 is too narrow.
    assert!(normal < ours, "normal {} vs t {}", rate(normal), rate(ours));
    // Pooling 320 iterations as if independent ignores the build and execution variance:
    // its standard error is about sqrt(7/320) = 0.15 against a true 0.73.
    assert!(
        rate(pooled) < 0.8,
        "pooled interval covered {}",
        rate(pooled)
    );
}
