//! Planning the rest of an experiment whose first top-level units are already measured.
//!
//! An adaptive experiment keeps its pilot: the pilot's top-level units were run with other
//! lower-level counts than the plan that follows them (say 10 iterations per execution where the
//! plan takes 1), so their means are more or less precise than the planned units' means. The
//! interval over top-level means is computed from the top-level means whatever their shapes; its
//! expected variance with `n` measured units of mean variances `v_j` and `N − n` planned units of
//! variance `σ_top²` (see [`top_unit_variance`]) is
//!
//! ```text
//! Var(Ȳ) = (Σ_j v_j + (N − n)·σ_top²) / N²
//! ```
//!
//! [`unit_mean_variances`] gives the `v_j` of measured units from the variance components, and
//! [`top_count_with_existing`] the smallest `N` whose predicted half-width reaches a target.

use crate::design::{MAX_COUNT, MIN_TOP_UNITS, Plan, first_fit, top_unit_variance};
use crate::dist::{Quantile, critical_value};
use crate::error::{Result, StatsError};
use crate::hierarchy::Hierarchy;

/// Variance of each top-level unit's mean (the mean of all values under it, as the §2 interval
/// uses) implied by the variance components `t2` (top → bottom; negative ones count as 0):
///
/// ```text
/// v_u = Σ_k T_k² · Σ_{units w of level k inside u} (N_w / N_u)²
/// ```
///
/// with `N_w` the number of values under `w`. For a balanced unit this is
/// `T_n² + T_{n−1}²/r_{n−1} + T_{n−2}²/(r_{n−1} r_{n−2}) + …`.
///
/// # Errors
/// [`StatsError::InvalidParameter`] when `t2` does not have one entry per level.
pub fn unit_mean_variances(h: &Hierarchy, t2: &[f64]) -> Result<Vec<f64>> {
    let depth = h.depth();
    if t2.len() != depth {
        return Err(StatsError::InvalidParameter {
            name: "variance components",
            value: t2.len().to_string(),
            reason: "need one per level of the hierarchy",
        });
    }
    let t2: Vec<f64> = t2.iter().map(|t| t.max(0.0)).collect();
    let out = (0..h.units(0))
        .map(|u| {
            let total = h.value_range(0, u).len() as f64;
            let mut v = t2[0];
            // Units of depth k inside u form the contiguous range lo..hi (CSR storage).
            let (mut lo, mut hi) = (u, u + 1);
            for (k, &t) in t2.iter().enumerate().skip(1) {
                if k == depth - 1 {
                    // The lowest level's units are the values: each weighs 1/N_u.
                    v += t / total;
                    break;
                }
                (lo, hi) = (h.children(k - 1, lo).start, h.children(k - 1, hi - 1).end);
                let squares: f64 = (lo..hi)
                    .map(|w| (h.value_range(k, w).len() as f64 / total).powi(2))
                    .sum();
                v += t * squares;
            }
            v
        })
        .collect();
    Ok(out)
}

/// Smallest total top-level count `N` — at least [`MIN_TOP_UNITS`] and at least the measured
/// count — whose predicted half-width
/// `q_{1−α/2, N−1} · sqrt((Σ existing + (N − n)·σ_top²) / N²)` is at most `target_half_width`,
/// when `existing` holds the mean variances of the `n` units already measured (see
/// [`unit_mean_variances`]) and the rest follow `plan`. With no existing units this is
/// [`top_count_for_half_width`](crate::design::top_count_for_half_width), which calls it.
///
/// The predicted variance is not monotone in `N` when the measured units are much more precise
/// than planned ones (adding a few noisy units can widen the interval); it falls for every
/// `N ≥ 2n − 2Σ existing / σ_top²`, so the counts below that are scanned one by one and the rest
/// searched by bisection.
///
/// # Errors
/// [`StatsError::InvalidParameter`] for a target that is not positive and finite;
/// [`StatsError::Unreachable`] for one that even [`MAX_COUNT`] top-level units cannot reach; an
/// invalid `level`.
pub fn top_count_with_existing(
    existing: &[f64],
    plan: &Plan,
    target_half_width: f64,
    level: f64,
    quantile: Quantile,
) -> Result<usize> {
    let invalid = |reason| StatsError::InvalidParameter {
        name: "target half-width",
        value: target_half_width.to_string(),
        reason,
    };
    if !(target_half_width > 0.0 && target_half_width.is_finite()) {
        return Err(invalid("must be positive and finite"));
    }
    let n = existing.len();
    let sum: f64 = existing.iter().map(|v| v.max(0.0)).sum();
    let v = top_unit_variance(plan);
    let fits = |big_n: usize| -> Result<bool> {
        let var = (sum + (big_n - n) as f64 * v) / (big_n as f64).powi(2);
        let q = critical_value(level, (big_n - 1) as f64, quantile)?;
        Ok(q * var.sqrt() <= target_half_width)
    };
    let start = n.max(MIN_TOP_UNITS);
    let monotone_from = if v > 0.0 {
        let bound = (2.0 * n as f64 - 2.0 * sum / v).ceil();
        if bound > start as f64 {
            (bound as usize).min(MAX_COUNT)
        } else {
            start
        }
    } else {
        start
    };
    for big_n in start..monotone_from {
        if fits(big_n)? {
            return Ok(big_n);
        }
    }
    first_fit(monotone_from, fits)?.ok_or(StatsError::Unreachable {
        target: target_half_width,
        most: MAX_COUNT,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::{LevelCost, optimal_counts, top_count_for_half_width};
    use crate::hierarchy::HierarchyBuilder;
    use proptest::prelude::*;

    fn plan(t2: [f64; 2], costs: [f64; 2]) -> Plan {
        optimal_counts(&[
            LevelCost::new("execution", costs[0], t2[0]),
            LevelCost::new("iteration", costs[1], t2[1]),
        ])
        .unwrap()
    }

    #[test]
    fn balanced_units_have_the_closed_form_variance() {
        // 3 builds × 2 executions × 4 iterations.
        let groups = vec![vec![vec![1.0; 4]; 2]; 3];
        let h = Hierarchy::three_level(["build", "execution", "iteration"], &groups).unwrap();
        let v = unit_mean_variances(&h, &[2.0, 3.0, 8.0]).unwrap();
        let expected = 2.0 + 3.0 / 2.0 + 8.0 / 8.0;
        assert_eq!(v.len(), 3);
        for x in v {
            assert!((x - expected).abs() < 1e-12, "{x}");
        }
    }

    #[test]
    fn unbalanced_units_weigh_children_by_their_values() {
        // One build with executions of 1 and 3 iterations: its mean weighs them 1/4 and 3/4.
        let mut b = HierarchyBuilder::new(["build", "execution", "iteration"]);
        b.push(&[0, 0], 1.0);
        for _ in 0..3 {
            b.push(&[0, 1], 1.0);
        }
        b.push(&[1, 0], 1.0);
        b.push(&[1, 0], 1.0);
        let h = b.build().unwrap();
        let v = unit_mean_variances(&h, &[1.0, 2.0, 4.0]).unwrap();
        // Build 0: 1 + 2·((1/4)² + (3/4)²) + 4/4 = 1 + 1.25 + 1.
        assert!((v[0] - 3.25).abs() < 1e-12, "{}", v[0]);
        // Build 1: one execution of 2 iterations: 1 + 2 + 4/2.
        assert!((v[1] - 5.0).abs() < 1e-12, "{}", v[1]);
        // Negative components count as zero.
        let v = unit_mean_variances(&h, &[-1.0, 2.0, 4.0]).unwrap();
        assert!((v[0] - 2.25).abs() < 1e-12);
        assert!(unit_mean_variances(&h, &[1.0, 2.0]).is_err());
    }

    #[test]
    fn counts_the_units_already_measured() {
        let p = plan([1.0, 12.25], [1.0, 0.1]);
        let v = top_unit_variance(&p);
        let plain = top_count_for_half_width(&p, 0.5, 0.95, Quantile::StudentT).unwrap();
        // Measured units exactly like planned ones change nothing.
        let same = vec![v; 7];
        assert_eq!(
            top_count_with_existing(&same, &p, 0.5, 0.95, Quantile::StudentT).unwrap(),
            plain
        );
        // Precise measured units need fewer units in all; noisy ones more.
        let precise = vec![v / 4.0; 7];
        let noisy = vec![v * 4.0; 7];
        let fewer = top_count_with_existing(&precise, &p, 0.5, 0.95, Quantile::StudentT).unwrap();
        let more = top_count_with_existing(&noisy, &p, 0.5, 0.95, Quantile::StudentT).unwrap();
        assert!(fewer < plain && plain < more, "{fewer} {plain} {more}");
        // Never fewer than what was measured.
        let many = vec![v / 100.0; 40];
        assert_eq!(
            top_count_with_existing(&many, &p, 10.0, 0.95, Quantile::StudentT).unwrap(),
            40
        );
        assert!(top_count_with_existing(&[], &p, 0.0, 0.95, Quantile::StudentT).is_err());
    }

    proptest! {
        /// The count is the smallest that fits: it fits, and the count before it (when allowed)
        /// does not, checked by brute force.
        #[test]
        fn smallest_count_that_fits(
            pilot in prop::collection::vec(0.01f64..20.0, 0..30),
            t2e in 0.0f64..5.0,
            t2i in 0.1f64..20.0,
            target in 0.3f64..3.0,
        ) {
            let p = plan([t2e, t2i], [1.0, 0.1]);
            let v = top_unit_variance(&p);
            let n = pilot.len();
            let sum: f64 = pilot.iter().sum();
            let hw = |big_n: usize| {
                critical_value(0.95, (big_n - 1) as f64, Quantile::StudentT).unwrap()
                    * ((sum + (big_n - n) as f64 * v) / (big_n * big_n) as f64).sqrt()
            };
            let got = top_count_with_existing(&pilot, &p, target, 0.95, Quantile::StudentT).unwrap();
            prop_assert!(hw(got) <= target);
            let start = n.max(MIN_TOP_UNITS);
            for smaller in start..got.min(start + 5_000) {
                prop_assert!(hw(smaller) > target, "{} fits before {}", smaller, got);
            }
        }
    }
}
