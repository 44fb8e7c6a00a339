//! Statistical properties of the variance components (docs/methodology.md, "Variance components")
//! on simulated data.

use proptest::prelude::*;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rigor_stats::Hierarchy;
use rigor_stats::variance::{ComponentMethod, VarianceComponents, variance_components};

/// True components top → bottom (build, execution, iteration). The large iteration variance makes
/// the bias of the uncorrected ISMM'13 formula, σ_1²/(r_1 r_2) = 1 at the top, easy to see.
const SIGMA2: [f64; 3] = [1.0, 1.0, 20.0];
const SIMS: usize = 2000;

/// One experiment with `shape[b][e]` iterations in execution `e` of build `b`.
fn simulate(rng: &mut ChaCha8Rng, shape: &[Vec<usize>]) -> Hierarchy {
    let normal = |s2: f64| Normal::new(0.0, f64::sqrt(s2)).unwrap();
    let (build, exec, iter) = (normal(SIGMA2[0]), normal(SIGMA2[1]), normal(SIGMA2[2]));
    let groups: Vec<Vec<Vec<f64>>> = shape
        .iter()
        .map(|execs| {
            let a = build.sample(rng);
            execs
                .iter()
                .map(|&k| {
                    let b = exec.sample(rng);
                    (0..k).map(|_| 50.0 + a + b + iter.sample(rng)).collect()
                })
                .collect()
        })
        .collect();
    Hierarchy::three_level(["build", "execution", "iteration"], &groups).unwrap()
}

/// Mean and standard error of the mean of each column.
fn mean_and_se(rows: &[Vec<f64>]) -> Vec<(f64, f64)> {
    let n = rows.len() as f64;
    (0..rows[0].len())
        .map(|j| {
            let m = rows.iter().map(|r| r[j]).sum::<f64>() / n;
            let v = rows.iter().map(|r| (r[j] - m).powi(2)).sum::<f64>() / (n - 1.0);
            (m, (v / n).sqrt())
        })
        .collect()
}

/// The printed ISMM'13 formula: `T_i² = S_i² − T_{i−1}²/r_{i−1}` (wrong from three levels up).
fn uncorrected_t2(vc: &VarianceComponents, r: &[usize]) -> Vec<f64> {
    let n = vc.components.len();
    let mut t2 = vec![0.0; n];
    t2[n - 1] = vc.components[n - 1].s2;
    for d in (0..n - 1).rev() {
        t2[d] = vc.components[d].s2 - t2[d + 1] / r[d + 1] as f64;
    }
    t2
}

fn balanced_shape() -> Vec<Vec<usize>> {
    // r = (6, 4, 5) top → bottom.
    vec![vec![5; 4]; 6]
}

#[test]
fn balanced_t2_is_unbiased_and_the_uncorrected_formula_is_not() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (mut right, mut wrong) = (Vec::new(), Vec::new());
    for _ in 0..SIMS {
        let vc = variance_components(&simulate(&mut rng, &balanced_shape())).unwrap();
        assert_eq!(vc.method, ComponentMethod::Balanced);
        right.push(vc.t2());
        wrong.push(uncorrected_t2(&vc, &[6, 4, 5]));
    }
    for (level, ((m, se), truth)) in mean_and_se(&right).into_iter().zip(SIGMA2).enumerate() {
        assert!(
            (m - truth).abs() < 4.0 * se,
            "level {level}: mean T² {m} ± {se} vs {truth}"
        );
    }
    // The uncorrected top estimate is off by σ_1²/(r_1 r_2) = 20/20 = 1: many standard errors.
    let (m, se) = mean_and_se(&wrong)[0];
    assert!((m - SIGMA2[0]).abs() > 10.0 * se, "uncorrected {m} ± {se}");
    assert!(
        (m - SIGMA2[0] - 1.0).abs() < 4.0 * se,
        "bias should be 1, mean {m} ± {se}"
    );
}

#[test]
fn henderson_is_unbiased_on_unbalanced_data() {
    // Crashed executions and uneven iteration counts.
    let shape = vec![
        vec![5, 3, 4],
        vec![2, 6],
        vec![4, 4, 1, 3],
        vec![5],
        vec![3, 2, 5, 4],
        vec![6, 1],
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let rows: Vec<Vec<f64>> = (0..SIMS)
        .map(|_| {
            let vc = variance_components(&simulate(&mut rng, &shape)).unwrap();
            assert_eq!(vc.method, ComponentMethod::Henderson1);
            vc.t2()
        })
        .collect();
    for (level, ((m, se), truth)) in mean_and_se(&rows).into_iter().zip(SIGMA2).enumerate() {
        assert!(
            (m - truth).abs() < 4.0 * se,
            "level {level}: mean T² {m} ± {se} vs {truth}"
        );
    }
}

/// Random three-level data, balanced or not: 2–5 builds, 1–3 executions, 1–4 iterations.
fn hierarchy_strategy() -> impl Strategy<Value = Hierarchy> {
    let execution = prop::collection::vec(-100.0..100.0_f64, 1..5);
    let build = prop::collection::vec(execution, 1..4);
    prop::collection::vec(build, 2..6).prop_map(|groups| {
        Hierarchy::three_level(["build", "execution", "iteration"], &groups).unwrap()
    })
}

fn assert_same(a: &VarianceComponents, b: &VarianceComponents) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.method, b.method);
    for (x, y) in a.components.iter().zip(&b.components) {
        let scale = 1.0 + x.s2.abs() + x.t2.abs();
        prop_assert!((x.s2 - y.s2).abs() <= 1e-9 * scale, "{:?} vs {:?}", x, y);
        prop_assert!((x.t2 - y.t2).abs() <= 1e-9 * scale, "{:?} vs {:?}", x, y);
        prop_assert_eq!(x.df, y.df);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn invariant_under_permutation_of_top_units(h in hierarchy_strategy(), seed in any::<u64>()) {
        let mut order: Vec<usize> = (0..h.units(0)).collect();
        order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        let permuted = h.select_top(&order).unwrap();
        assert_same(&variance_components(&h).unwrap(), &variance_components(&permuted).unwrap())?;
    }

    #[test]
    fn invariant_under_shift(h in hierarchy_strategy(), shift in -1e3..1e3_f64) {
        let moved = h.map_values(|_, v| v + shift).unwrap();
        assert_same(&variance_components(&h).unwrap(), &variance_components(&moved).unwrap())?;
    }

    #[test]
    fn components_are_finite(h in hierarchy_strategy()) {
        let vc = variance_components(&h).unwrap();
        prop_assert!(vc.components.iter().all(|c| c.s2.is_finite() && c.t2.is_finite() && c.s2 >= 0.0));
        prop_assert!(vc.total() >= 0.0);
    }
}
