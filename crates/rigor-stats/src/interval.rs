//! Confidence interval for the mean of a hierarchical experiment (docs/methodology.md, "The
//! interval").
//!
//! The interval is built from the means of the top-level units only:
//!
//! ```text
//! Ȳ ± t_{1−α/2, r_n−1} · sqrt(S_n² / r_n)
//! ```
//!
//! with `r_n` the number of top-level units, `Ȳ` the mean of their means and `S_n²` the sample
//! variance of those means. Every lower level's variance reaches the top-level means, so
//! `S_n²/r_n` is unbiased for `Var(Ȳ)` whatever the design below, balanced or not.
//!
//! When the top-level means are significantly skewed (D'Agostino's test at 10%), the interval
//! widens toward the skew: the hull of the symmetric interval and Johnson's skewness-corrected
//! interval in Hall's monotone form ([`crate::top_means::skew_adaptive_bounds`]). It is then
//! asymmetric, and [`MeanInterval::skew`] says why. From
//! [`crate::top_means::RANGE_HOLD_UNITS`] top-level units on, it is held within the range of the
//! means (and then also asymmetric when an end reached past the farthest mean).
//!
//! [`pooled_interval`] is the naive interval many tools report, treating every lowest-level value
//! as independent. It is here so rigor can show how wrong it is whenever a level above the lowest
//! adds variance.
//!
//! ```
//! use rigor_stats::{Hierarchy, Quantile};
//! use rigor_stats::interval::mean_interval;
//!
//! let h = Hierarchy::two_level(["execution", "iteration"], &[vec![1.0, 2.0], vec![3.0, 4.0]])?;
//! let ci = mean_interval(&h, 0.95, Quantile::StudentT)?;
//! assert_eq!(ci.mean, 2.5);
//! assert!(ci.lower < 2.5 && 2.5 < ci.upper);
//! # Ok::<(), rigor_stats::StatsError>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::descriptive::{mean, variance};
use crate::dist::{Quantile, critical_value};
use crate::error::{Result, StatsError, check_finite};
use crate::hierarchy::Hierarchy;
use crate::top_means::{SkewTest, skew_adaptive_bounds};

/// Fewer top-level units than this cannot estimate the variance well (Kalibera & Jones): an
/// interval from fewer deserves a warning.
pub const RECOMMENDED_TOP_UNITS: usize = 5;

/// A two-sided confidence interval for a mean.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanInterval {
    /// The point estimate: mean of the top-level unit means.
    pub mean: f64,
    /// Half the width, `(upper − lower)/2`: the precision that targets are checked against (as
    /// for the bootstrap's asymmetric intervals). A skew-adjusted interval is not
    /// `mean ± half_width`: use `lower` and `upper`.
    pub half_width: f64,
    /// Lower end (`mean − half_width` unless skew-adjusted or held at the smallest mean).
    pub lower: f64,
    /// Upper end (`mean + half_width` unless skew-adjusted or held at the largest mean).
    pub upper: f64,
    /// Confidence level, e.g. 0.95.
    pub level: f64,
    /// Degrees of freedom, `top_units − 1` (used by Student's t; informational for the normal).
    pub df: f64,
    /// Distribution of the critical value.
    pub quantile: Quantile,
    /// Number of units treated as independent: top-level units, or every value for
    /// [`pooled_interval`].
    pub top_units: usize,
    /// The skewness test, when significant skew widened the interval toward it (`None`: the
    /// symmetric interval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skew: Option<SkewTest>,
}

impl MeanInterval {
    /// Whether `x` lies inside the closed interval.
    pub fn contains(&self, x: f64) -> bool {
        self.lower <= x && x <= self.upper
    }

    /// Half-width relative to the mean (0.02 = ±2%); infinite or NaN when the mean is 0.
    pub fn relative_half_width(&self) -> f64 {
        self.half_width / self.mean.abs()
    }

    /// Whether the two sides differ (a skew-adjusted interval).
    pub fn is_asymmetric(&self) -> bool {
        self.skew.is_some()
    }

    /// Widens the interval to at least `mean ± margin` on each side (a resolution floor); the
    /// longer side of an asymmetric interval stays as it is when already wider.
    pub fn widen_to(&mut self, margin: f64) {
        self.lower = self.lower.min(self.mean - margin);
        self.upper = self.upper.max(self.mean + margin);
        self.half_width = (self.upper - self.lower) / 2.0;
    }

    /// Whether fewer than [`RECOMMENDED_TOP_UNITS`] units back the interval.
    pub fn has_few_top_units(&self) -> bool {
        self.top_units < RECOMMENDED_TOP_UNITS
    }
}

/// The interval over top-level means (docs/methodology.md, "The interval") for the mean of `h` at
/// confidence `level`, from its top-level unit means.
///
/// Works for unbalanced data: the point estimate is the mean of the top-level means (each top
/// unit weighs the same), not the grand mean of all values.
///
/// # Errors
/// [`StatsError::TooFew`] with fewer than two top-level units; an invalid `level`.
pub fn mean_interval(h: &Hierarchy, level: f64, quantile: Quantile) -> Result<MeanInterval> {
    mean_interval_from_means(&h.top_means(), level, quantile)
}

/// The interval over top-level means (docs/methodology.md, "The interval"), from top-level unit
/// means already computed: `Ȳ ± q · sqrt(S²/r)`, widened toward the skew when the means are
/// significantly skewed ([`skew_adaptive_bounds`]).
///
/// # Errors
/// [`StatsError::TooFew`] with fewer than two means; [`StatsError::NonFinite`] for a NaN or
/// infinite mean; an invalid `level`.
pub fn mean_interval_from_means(
    means: &[f64],
    level: f64,
    quantile: Quantile,
) -> Result<MeanInterval> {
    let mut ci = symmetric_interval_from_means(means, level, quantile)?;
    let c = critical_value(level, ci.df, quantile)?;
    let (lower, upper, skew) = skew_adaptive_bounds(means, c);
    if (lower, upper) != (ci.lower, ci.upper) {
        ci.lower = lower;
        ci.upper = upper;
        ci.half_width = (upper - lower) / 2.0;
    }
    ci.skew = skew;
    Ok(ci)
}

/// The symmetric interval `Ȳ ± q · sqrt(S²/r)` from top-level means, without the skew
/// adjustment of [`mean_interval_from_means`]: the textbook t interval, for comparison.
///
/// # Errors
/// As [`mean_interval_from_means`].
pub fn symmetric_interval_from_means(
    means: &[f64],
    level: f64,
    quantile: Quantile,
) -> Result<MeanInterval> {
    if means.len() < 2 {
        return Err(StatsError::TooFew {
            what: "a confidence interval (top-level units)",
            needed: 2,
            got: means.len(),
        });
    }
    check_finite(means)?;
    iid_interval(means, level, quantile)
}

/// The naive interval of single-level tools: every lowest-level value of `h` treated as an
/// independent observation, `Ȳ ± t_{N−1} · sqrt(s²/N)` over all `N` values.
///
/// Wrong whenever a higher level adds variance (`T_2² > 0`): it ignores that variance and is far
/// too narrow. Provided to contrast with [`mean_interval`], never as a result.
///
/// # Errors
/// [`StatsError::TooFew`] with fewer than two values; an invalid `level`.
pub fn pooled_interval(h: &Hierarchy, level: f64, quantile: Quantile) -> Result<MeanInterval> {
    let values = h.values();
    if values.len() < 2 {
        return Err(StatsError::TooFew {
            what: "a pooled confidence interval",
            needed: 2,
            got: values.len(),
        });
    }
    iid_interval(values, level, quantile)
}

/// The textbook interval for i.i.d. observations (at least two, finite).
fn iid_interval(xs: &[f64], level: f64, quantile: Quantile) -> Result<MeanInterval> {
    let r = xs.len();
    let df = (r - 1) as f64;
    let q = critical_value(level, df, quantile)?;
    let m = mean(xs);
    let half_width = q * (variance(xs) / r as f64).sqrt();
    Ok(MeanInterval {
        mean: m,
        half_width,
        lower: m - half_width,
        upper: m + half_width,
        level,
        df,
        quantile,
        top_units: r,
        skew: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1e-3)
    }

    #[test]
    fn three_units_student_t() {
        // Top means 6.25, 8.5, 4.75 (a hand-worked example): mean 6.5, S_3² = 3.5625,
        // qt(0.975, 2) = 4.302653 → half-width 4.302653 · sqrt(3.5625/3) = 4.688679.
        let values = vec![9., 5., 8., 3., 10., 6., 7., 11., 1., 12., 2., 4.];
        let h = Hierarchy::balanced(vec!["b", "e", "i"], &[3, 2, 2], values).unwrap();
        let ci = mean_interval(&h, 0.95, Quantile::StudentT).unwrap();
        assert!(close(ci.mean, 6.5));
        assert!(close(ci.half_width, 4.302_653 * (3.5625_f64 / 3.0).sqrt()));
        assert!(close(ci.lower, 6.5 - ci.half_width) && close(ci.upper, 6.5 + ci.half_width));
        assert_eq!((ci.df, ci.top_units), (2.0, 3));
        assert!(ci.has_few_top_units());
    }

    #[test]
    fn ten_units_student_t_and_normal() {
        // 1..=10: mean 5.5, variance 55/6; qt(0.975, 9) = 2.262157, qnorm(0.975) = 1.959964.
        let means: Vec<f64> = (1..=10).map(f64::from).collect();
        let se = (55.0_f64 / 6.0 / 10.0).sqrt();
        let t = mean_interval_from_means(&means, 0.95, Quantile::StudentT).unwrap();
        assert!(close(t.half_width, 2.262_157 * se));
        assert!(!t.has_few_top_units());
        let z = mean_interval_from_means(&means, 0.95, Quantile::Normal).unwrap();
        assert!(close(z.half_width, 1.959_964 * se));
        assert_eq!(z.quantile, Quantile::Normal);
        // 99% as Mono used: qt(0.995, 9) = 3.249836.
        let t99 = mean_interval_from_means(&means, 0.99, Quantile::StudentT).unwrap();
        assert!(close(t99.half_width, 3.249_836 * se));
        assert!(close(t.relative_half_width(), t.half_width / 5.5));
    }

    #[test]
    fn unbalanced_uses_top_means() {
        let h = Hierarchy::two_level(["e", "i"], &[vec![1.0, 1.0, 1.0, 1.0], vec![3.0]]).unwrap();
        let ci = mean_interval(&h, 0.95, Quantile::StudentT).unwrap();
        assert_eq!(ci.mean, 2.0);
        // qt(0.975, 1) = 12.7062 with S² = 2, r = 2: half-width 12.7062.
        assert!(close(ci.half_width, 12.706_205));
    }

    #[test]
    fn refuses_one_top_unit_and_bad_input() {
        let h = Hierarchy::two_level(["e", "i"], &[vec![1.0, 2.0, 3.0]]).unwrap();
        assert!(matches!(
            mean_interval(&h, 0.95, Quantile::StudentT),
            Err(StatsError::TooFew {
                needed: 2,
                got: 1,
                ..
            })
        ));
        assert!(mean_interval_from_means(&[1.0, f64::NAN], 0.95, Quantile::Normal).is_err());
        assert!(mean_interval_from_means(&[1.0, 2.0], 1.5, Quantile::Normal).is_err());
        // The pooled interval needs only two values.
        assert!(pooled_interval(&h, 0.95, Quantile::StudentT).is_ok());
        let one = Hierarchy::flat("x", vec![1.0]).unwrap();
        assert!(pooled_interval(&one, 0.95, Quantile::StudentT).is_err());
    }

    #[test]
    fn pooled_is_narrower_when_executions_differ() {
        let h = Hierarchy::two_level(
            ["e", "i"],
            &[
                vec![10.0, 10.1, 9.9],
                vec![20.0, 20.1, 19.9],
                vec![15.0, 15.1, 14.9],
            ],
        )
        .unwrap();
        let ours = mean_interval(&h, 0.95, Quantile::StudentT).unwrap();
        let pooled = pooled_interval(&h, 0.95, Quantile::StudentT).unwrap();
        assert!(close(pooled.mean, 15.0));
        assert_eq!((pooled.top_units, pooled.df), (9, 8.0));
        assert!(pooled.half_width < ours.half_width / 2.0);
    }

    fn means_strategy() -> impl Strategy<Value = Vec<f64>> {
        prop::collection::vec(-1e3..1e3_f64, 2..30)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn contains_the_mean(means in means_strategy()) {
            let ci = mean_interval_from_means(&means, 0.95, Quantile::StudentT).unwrap();
            prop_assert!(ci.contains(ci.mean));
            prop_assert!(ci.half_width >= 0.0);
        }

        #[test]
        fn shrinks_with_more_units_of_the_same_spread(means in means_strategy()) {
            // Repeating the units k times keeps their spread and adds units.
            let ci = mean_interval_from_means(&means, 0.95, Quantile::StudentT).unwrap();
            let mut prev = ci.half_width;
            for k in 2..5 {
                let more: Vec<f64> = means.iter().copied().cycle().take(k * means.len()).collect();
                let w = mean_interval_from_means(&more, 0.95, Quantile::StudentT)
                    .unwrap()
                    .half_width;
                prop_assert!(w <= prev * (1.0 + 1e-12));
                prev = w;
            }
        }

        #[test]
        fn invariant_under_permutation(means in means_strategy(), seed in any::<u64>()) {
            use rand::SeedableRng;
            use rand::seq::SliceRandom;
            let mut shuffled = means.clone();
            shuffled.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
            let a = mean_interval_from_means(&means, 0.95, Quantile::StudentT).unwrap();
            let b = mean_interval_from_means(&shuffled, 0.95, Quantile::StudentT).unwrap();
            prop_assert!((a.mean - b.mean).abs() <= 1e-9 * (1.0 + a.mean.abs()));
            prop_assert!((a.half_width - b.half_width).abs() <= 1e-9 * (1.0 + a.half_width));
        }

        #[test]
        fn shift_equivariant(means in means_strategy(), shift in -1e3..1e3_f64) {
            let a = mean_interval_from_means(&means, 0.95, Quantile::StudentT).unwrap();
            let moved: Vec<f64> = means.iter().map(|m| m + shift).collect();
            let b = mean_interval_from_means(&moved, 0.95, Quantile::StudentT).unwrap();
            prop_assert!((b.mean - (a.mean + shift)).abs() <= 1e-8 * (1.0 + a.mean.abs() + shift.abs()));
            prop_assert!((b.half_width - a.half_width).abs() <= 1e-6 * (1.0 + a.half_width));
        }
    }
}
