//! Fieller's confidence interval for a ratio of two means (docs/methodology.md, "Comparisons").
//!
//! A comparison "candidate vs baseline" is reported as the ratio θ = μ_a/μ_b of the candidate's
//! mean to the baseline's, estimated by θ̂ = a/b from the top-level unit means of each system.
//! With `v_a = S_a²/r_a`, `v_b = S_b²/r_b` (S² the sample variance of the top-level unit means,
//! r their count), critical value t and `g = t²·v_b/b²`, Fieller's set is
//!
//! ```text
//! bounded iff g < 1:   θ ∈ [ θ̂ ± (t/|b|)·sqrt( v_a(1 − g) + θ̂²·v_b ) ] / (1 − g)
//! ```
//!
//! If `g ≥ 1` the baseline mean is not significantly different from zero at this level and the
//! set is unbounded; [`FiellerInterval::Unbounded`] says so and [`FiellerResult::g`] reports g.
//! There is no silent fallback to another interval.
//!
//! ```
//! use rigor_stats::fieller::{DfMethod, MeanEstimate, fieller};
//!
//! // Hand-worked oracle: a = 95, S² = 16, r = 10 against b = 100, S² = 25, r = 8.
//! let a = MeanEstimate::new(95.0, 16.0, 10)?;
//! let b = MeanEstimate::new(100.0, 25.0, 8)?;
//! let r = fieller(&a, &b, 0.95, DfMethod::WelchSatterthwaite)?;
//! let (lo, hi) = r.bounds().expect("bounded: g < 1");
//! assert!((lo - 0.9061495).abs() < 1e-6 && (hi - 0.9965950).abs() < 1e-6);
//! # Ok::<(), rigor_stats::StatsError>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::dist::{Quantile, critical_value};
use crate::error::{Result, StatsError, check_finite};
use crate::hierarchy::Hierarchy;

/// A mean estimated from `n` independent top-level units: the input of [`fieller`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanEstimate {
    /// The mean of the top-level unit means (Ȳ).
    pub mean: f64,
    /// S²: the sample variance (divisor n − 1) of the top-level unit means.
    pub var_of_units: f64,
    /// Number of top-level units r.
    pub n: usize,
}

impl MeanEstimate {
    /// Validates a mean, the variance S² of the unit means (≥ 0) and their count (≥ 2).
    pub fn new(mean: f64, var_of_units: f64, n: usize) -> Result<Self> {
        if n < 2 {
            return Err(StatsError::TooFew {
                what: "a mean estimate",
                needed: 2,
                got: n,
            });
        }
        check_finite(&[mean, var_of_units])?;
        if var_of_units < 0.0 {
            return Err(StatsError::InvalidParameter {
                name: "variance of the unit means",
                value: var_of_units.to_string(),
                reason: "must not be negative",
            });
        }
        Ok(Self {
            mean,
            var_of_units,
            n,
        })
    }

    /// From the means of the top-level units (at least two).
    pub fn from_unit_means(means: &[f64]) -> Result<Self> {
        check_finite(means)?;
        Self::new(
            crate::descriptive::mean(means),
            crate::descriptive::variance(means),
            means.len(),
        )
    }

    /// From a hierarchy's top-level unit means ([`Hierarchy::top_means`]); the lower levels enter
    /// through those means (docs/methodology.md, "The interval").
    pub fn from_hierarchy(h: &Hierarchy) -> Result<Self> {
        Self::from_unit_means(&h.top_means())
    }

    /// Estimated variance of the mean, v = S²/r.
    pub fn var_of_mean(&self) -> f64 {
        self.var_of_units / self.n as f64
    }
}

/// Where the critical value of the Fieller interval comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DfMethod {
    /// Student's t with Welch–Satterthwaite degrees of freedom evaluated at θ̂ ([`welch_df`]).
    #[default]
    WelchSatterthwaite,
    /// Student's t with min(r_a, r_b) − 1 degrees of freedom: conservative.
    MinDf,
    /// The standard normal quantile z, as in Kalibera & Tůma 2006 and Kalibera, Bulej & Tůma
    /// 2005b; too narrow for few units.
    Normal,
}

/// The outcome of Fieller's construction: an interval, or the statement that none exists.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FiellerInterval {
    /// `g < 1`: the ratio lies in `[lower, upper]` at the requested confidence.
    Bounded {
        /// Lower bound of the ratio.
        lower: f64,
        /// Upper bound of the ratio.
        upper: f64,
    },
    /// `g ≥ 1`: the confidence set is unbounded — the baseline is too noisy; more top-level
    /// repetitions are needed.
    Unbounded,
}

/// Fieller's ratio interval with everything needed to report or audit it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FiellerResult {
    /// Point estimate θ̂ = a/b.
    pub ratio: f64,
    /// g = t²·v_b/b²; the interval is bounded iff g < 1.
    pub g: f64,
    /// Degrees of freedom of the t quantile; `None` for [`DfMethod::Normal`].
    pub df: Option<f64>,
    /// How the degrees of freedom were chosen.
    pub df_method: DfMethod,
    /// The two-sided critical value t (or z) used.
    pub critical: f64,
    /// Confidence level, e.g. 0.95.
    pub level: f64,
    /// The interval, or [`FiellerInterval::Unbounded`].
    pub interval: FiellerInterval,
}

impl FiellerResult {
    /// `(lower, upper)` when bounded.
    pub fn bounds(&self) -> Option<(f64, f64)> {
        match self.interval {
            FiellerInterval::Bounded { lower, upper } => Some((lower, upper)),
            FiellerInterval::Unbounded => None,
        }
    }

    /// Whether the interval is bounded (g < 1).
    pub fn is_bounded(&self) -> bool {
        self.bounds().is_some()
    }

    /// The estimate and bounds as relative changes `θ − 1` (0.046 = "4.6% slower/larger"), for
    /// reporting as an effect size.
    pub fn relative_change(&self) -> (f64, Option<(f64, f64)>) {
        (
            self.ratio - 1.0,
            self.bounds().map(|(lo, hi)| (lo - 1.0, hi - 1.0)),
        )
    }
}

/// Welch–Satterthwaite degrees of freedom of `a − θ̂·b` evaluated at θ̂ (docs/methodology.md,
/// "Comparisons"): `ν = (v_a + θ̂²v_b)² / (v_a²/(r_a − 1) + θ̂⁴v_b²/(r_b − 1))`.
///
/// When both variance terms vanish (ν = 0/0) the interval has zero width whatever the quantile;
/// min(r_a, r_b) − 1 is returned then so the result stays finite.
pub fn welch_df(candidate: &MeanEstimate, baseline: &MeanEstimate, ratio: f64) -> f64 {
    let (va, vb) = (candidate.var_of_mean(), baseline.var_of_mean());
    let b_term = ratio * ratio * vb;
    let denominator =
        va * va / (candidate.n - 1) as f64 + b_term * b_term / (baseline.n - 1) as f64;
    if denominator > 0.0 {
        (va + b_term).powi(2) / denominator
    } else {
        min_df(candidate, baseline)
    }
}

fn min_df(candidate: &MeanEstimate, baseline: &MeanEstimate) -> f64 {
    (candidate.n.min(baseline.n) - 1) as f64
}

/// Fieller's `level` confidence interval for the ratio candidate/baseline (docs/methodology.md,
/// "Comparisons").
///
/// Errors: the baseline mean is zero (no ratio), or the level is not in (0, 1). An unbounded set
/// (g ≥ 1) is a successful result with [`FiellerInterval::Unbounded`].
pub fn fieller(
    candidate: &MeanEstimate,
    baseline: &MeanEstimate,
    level: f64,
    df_method: DfMethod,
) -> Result<FiellerResult> {
    let (ratio, df, critical) = ratio_and_critical(candidate, baseline, level, df_method)?;
    let b = baseline.mean;
    let (va, vb) = (candidate.var_of_mean(), baseline.var_of_mean());
    let g = critical * critical * vb / (b * b);
    let interval = if g < 1.0 {
        let half = critical / b.abs() * (va * (1.0 - g) + ratio * ratio * vb).sqrt();
        FiellerInterval::Bounded {
            lower: (ratio - half) / (1.0 - g),
            upper: (ratio + half) / (1.0 - g),
        }
    } else {
        FiellerInterval::Unbounded
    };
    Ok(FiellerResult {
        ratio,
        g,
        df,
        df_method,
        critical,
        level,
        interval,
    })
}

/// The point estimate θ̂ = a/b, the degrees of freedom chosen by `df_method` (none for the normal
/// quantile) and the critical value: the part every Fieller variant shares.
///
/// Errors: a zero baseline mean, an invalid level.
pub(crate) fn ratio_and_critical(
    candidate: &MeanEstimate,
    baseline: &MeanEstimate,
    level: f64,
    df_method: DfMethod,
) -> Result<(f64, Option<f64>, f64)> {
    let (a, b) = (candidate.mean, baseline.mean);
    if b == 0.0 {
        return Err(StatsError::InvalidParameter {
            name: "baseline mean",
            value: b.to_string(),
            reason: "a ratio needs a non-zero baseline",
        });
    }
    let ratio = a / b;
    let df = match df_method {
        DfMethod::WelchSatterthwaite => Some(welch_df(candidate, baseline, ratio)),
        DfMethod::MinDf => Some(min_df(candidate, baseline)),
        DfMethod::Normal => None,
    };
    let critical = match df {
        Some(nu) => critical_value(level, nu, Quantile::StudentT)?,
        None => critical_value(level, f64::INFINITY, Quantile::Normal)?,
    };
    Ok((ratio, df, critical))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs()
    }

    fn oracle() -> (MeanEstimate, MeanEstimate) {
        (
            MeanEstimate::new(95.0, 16.0, 10).unwrap(),
            MeanEstimate::new(100.0, 25.0, 8).unwrap(),
        )
    }

    fn assert_bounds(r: &FiellerResult, lo: f64, hi: f64) {
        let (l, h) = r.bounds().expect("bounded");
        assert!(close(l, lo) && close(h, hi), "[{l}, {h}] vs [{lo}, {hi}]");
        assert!(l <= r.ratio && r.ratio <= h);
    }

    #[test]
    fn oracle_z() {
        let (a, b) = oracle();
        assert!(close(a.var_of_mean(), 1.6) && close(b.var_of_mean(), 3.125));
        let r = fieller(&a, &b, 0.95, DfMethod::Normal).unwrap();
        assert!(close(r.ratio, 0.95));
        assert_eq!(r.df, None);
        assert_bounds(&r, 0.909_893_9, 0.992_389_7);
    }

    #[test]
    fn oracle_welch() {
        let (a, b) = oracle();
        let r = fieller(&a, &b, 0.95, DfMethod::WelchSatterthwaite).unwrap();
        assert!(close(r.df.unwrap(), 13.752_68), "{:?}", r.df);
        assert!(close(r.critical, 2.148_411));
        assert_bounds(&r, 0.906_149_5, 0.996_595_0);
    }

    #[test]
    fn oracle_min_df() {
        let (a, b) = oracle();
        let r = fieller(&a, &b, 0.95, DfMethod::MinDf).unwrap();
        assert_eq!(r.df, Some(7.0));
        assert_bounds(&r, 0.901_876_5, 1.001_449_3);
    }

    #[test]
    fn oracle_equal_r() {
        let a = MeanEstimate::new(5.2, 0.09, 6).unwrap();
        let b = MeanEstimate::new(5.0, 0.04, 6).unwrap();
        let r = fieller(&a, &b, 0.95, DfMethod::MinDf).unwrap();
        assert_eq!(r.df, Some(5.0));
        assert_bounds(&r, 0.965_126_2, 1.118_545_4);
    }

    #[test]
    fn oracle_unbounded() {
        // v_a = 8/2 = 4, v_b = 1/2 = 0.5.
        let a = MeanEstimate::new(10.0, 8.0, 2).unwrap();
        let b = MeanEstimate::new(1.0, 1.0, 2).unwrap();
        let r = fieller(&a, &b, 0.95, DfMethod::Normal).unwrap();
        assert!(close(r.g, 1.920_73));
        assert_eq!(r.interval, FiellerInterval::Unbounded);
        assert!(!r.is_bounded());
        assert_eq!(r.relative_change().1, None);
    }

    #[test]
    fn rejects_bad_input() {
        let (a, _) = oracle();
        let zero = MeanEstimate::new(0.0, 1.0, 5).unwrap();
        assert!(fieller(&a, &zero, 0.95, DfMethod::Normal).is_err());
        assert!(fieller(&a, &a, 1.5, DfMethod::Normal).is_err());
        assert!(MeanEstimate::new(1.0, -1.0, 5).is_err());
        assert!(MeanEstimate::new(1.0, 1.0, 1).is_err());
        assert!(MeanEstimate::from_unit_means(&[1.0, f64::NAN]).is_err());
    }

    #[test]
    fn from_hierarchy_uses_top_means() {
        let h = Hierarchy::two_level(["e", "i"], &[vec![1.0, 3.0], vec![5.0, 7.0, 9.0]]).unwrap();
        let m = MeanEstimate::from_hierarchy(&h).unwrap();
        assert_eq!((m.mean, m.var_of_units, m.n), (4.5, 12.5, 2));
    }

    #[test]
    fn zero_variance_is_a_point() {
        let a = MeanEstimate::new(2.0, 0.0, 5).unwrap();
        let b = MeanEstimate::new(4.0, 0.0, 5).unwrap();
        let r = fieller(&a, &b, 0.95, DfMethod::WelchSatterthwaite).unwrap();
        assert_eq!(r.bounds(), Some((0.5, 0.5)));
    }
}
