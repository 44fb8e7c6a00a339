//! Descriptive statistics on slices of finite values.
//!
//! These are the building blocks of everything else; they assume finite input (the validated types
//! [`Sample`] and [`Hierarchy`](crate::Hierarchy) guarantee it) and return NaN for
//! an empty slice (or an out-of-range parameter) rather than panicking.
//!
//! Order statistics sort with [`f64::total_cmp`], so the results do not depend on the input order.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{Result, StatsError, check_finite};
use crate::sample::Sample;

/// The consistency constant that makes the MAD estimate σ for normal data: 1/Φ⁻¹(3/4) ≈ 1.4826
/// (R's `mad()` default).
pub const MAD_SCALE: f64 = 1.4826;

/// Arithmetic mean; NaN for an empty slice.
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// Unbiased sample variance (divisor n − 1); NaN for fewer than two values.
pub fn variance(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return f64::NAN;
    }
    let m = mean(values);
    values.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (values.len() - 1) as f64
}

/// Sample standard deviation √[`variance`] (divisor n − 1); NaN for fewer than two values.
pub fn std_dev(values: &[f64]) -> f64 {
    variance(values).sqrt()
}

/// Smallest value; NaN for an empty slice.
pub fn min(values: &[f64]) -> f64 {
    values.iter().copied().reduce(f64::min).unwrap_or(f64::NAN)
}

/// Largest value; NaN for an empty slice.
pub fn max(values: &[f64]) -> f64 {
    values.iter().copied().reduce(f64::max).unwrap_or(f64::NAN)
}

/// A sorted copy (ascending, by [`f64::total_cmp`]).
pub fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v = values.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    v
}

/// Median: the middle value, or for an even count the midpoint ([`f64::midpoint`]) of the two
/// middle values. NaN for an empty slice.
pub fn median(values: &[f64]) -> f64 {
    median_of_sorted(&sorted(values))
}

/// [`median`] of values already sorted ascending.
pub fn median_of_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => sorted[n / 2 - 1].midpoint(sorted[n / 2]),
    }
}

/// Median computed in place by selection (O(n)); reorders `values`. Bit-identical to [`median`].
pub fn median_in_place(values: &mut [f64]) -> f64 {
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    let (_, &mut upper, _) = values.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        return upper;
    }
    // The lower middle value is the largest of the part left of the upper middle.
    let lower = max_by_total(&values[..n / 2]);
    lower.midpoint(upper)
}

fn max_by_total(values: &[f64]) -> f64 {
    values
        .iter()
        .copied()
        .max_by(f64::total_cmp)
        .unwrap_or(f64::NAN)
}

/// Percentile `p` ∈ [0, 100] by linear interpolation between order statistics — Hyndman & Fan
/// type 7, the default of R's `quantile()` and NumPy's `percentile()`:
///
/// with the values sorted `x₀ ≤ … ≤ x_{n−1}`, `h = (n − 1)·p/100`, `j = ⌊h⌋`:
/// `Q = x_j + (h − j)·(x_{j+1} − x_j)` (and `x_{n−1}` at `p = 100`).
///
/// NaN for an empty slice or `p` outside [0, 100].
pub fn percentile(values: &[f64], p: f64) -> f64 {
    quantile_of_sorted(&sorted(values), p / 100.0)
}

/// Quantile `q` ∈ [0, 1] (type 7, see [`percentile`]) of values already sorted ascending.
pub fn quantile_of_sorted(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() || !(0.0..=1.0).contains(&q) {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * q;
    let j = h.floor() as usize;
    match sorted.get(j + 1) {
        Some(&next) => sorted[j] + (h - j as f64) * (next - sorted[j]),
        None => sorted[j],
    }
}

/// Raw median absolute deviation `median(|xᵢ − median(x)|)`; NaN for an empty slice.
///
/// Multiply by [`MAD_SCALE`] (or call [`mad_scaled`]) for a consistent estimate of σ under
/// normality.
pub fn mad(values: &[f64]) -> f64 {
    let m = median(values);
    let mut dev: Vec<f64> = values.iter().map(|v| (v - m).abs()).collect();
    median_in_place(&mut dev)
}

/// [`mad`] × 1.4826 ([`MAD_SCALE`]): estimates σ for normal data, like R's `mad()`.
pub fn mad_scaled(values: &[f64]) -> f64 {
    MAD_SCALE * mad(values)
}

/// Number of values removed from *each* end by [`trimmed_mean`]: `⌊n·fraction⌋`, as R's
/// `mean(x, trim = fraction)`.
pub fn trim_count(n: usize, fraction: f64) -> usize {
    (n as f64 * fraction).floor() as usize
}

/// Trimmed mean: drop `g = ⌊n·fraction⌋` values ([`trim_count`], rounding down) from each end of
/// the sorted values and average the remaining `n − 2g`. `fraction` must lie in [0, 0.5); a
/// fraction of 0 gives the mean (summed in sorted order). Agrees with R's
/// `mean(x, trim = fraction)`. NaN for an empty slice or an invalid fraction.
pub fn trimmed_mean(values: &[f64], fraction: f64) -> f64 {
    if !valid_trim(fraction) {
        return f64::NAN;
    }
    let s = sorted(values);
    let g = trim_count(s.len(), fraction);
    mean(&s[g..s.len() - g])
}

/// Whether `fraction` is a valid trimming fraction, i.e. lies in [0, 0.5).
pub(crate) fn valid_trim(fraction: f64) -> bool {
    (0.0..0.5).contains(&fraction)
}

/// Coefficient of variation: sample standard deviation / mean, as a ratio (not a percentage).
/// Infinite or NaN when the mean is 0; NaN for fewer than two values.
pub fn coefficient_of_variation(values: &[f64]) -> f64 {
    std_dev(values) / mean(values)
}

/// The usual one-line description of a sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of values.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median ([`median`]).
    pub median: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Sample standard deviation (divisor n − 1).
    pub std_dev: f64,
    /// Raw median absolute deviation ([`mad`], not scaled by 1.4826).
    pub mad: f64,
}

impl Summary {
    /// Summarises at least two finite values (`TooFew` / `NonFinite` otherwise).
    pub fn of(values: &[f64]) -> Result<Self> {
        if values.len() < 2 {
            return Err(StatsError::TooFew {
                what: "a summary",
                needed: 2,
                got: values.len(),
            });
        }
        check_finite(values)?;
        let s = sorted(values);
        Ok(Self {
            n: s.len(),
            mean: mean(values),
            median: median_of_sorted(&s),
            min: s[0],
            max: s[s.len() - 1],
            std_dev: std_dev(values),
            mad: mad(values),
        })
    }

    /// Summarises a validated sample; cannot fail.
    pub fn of_sample(sample: &Sample) -> Self {
        Self::of(sample.values()).expect("a Sample holds at least two finite values")
    }

    /// The MAD scaled by 1.4826 (an estimate of σ under normality).
    pub fn mad_scaled(&self) -> f64 {
        MAD_SCALE * self.mad
    }
}

impl From<&Sample> for Summary {
    fn from(sample: &Sample) -> Self {
        Self::of_sample(sample)
    }
}

/// A location estimator applied to a set of measurements; the statistic of the bootstrap
/// (docs/methodology.md, "Comparisons") and of the CLI's `--estimator`.
///
/// Serialised in kebab case: `"mean"`, `"median"`, `"min"`, `{"trimmed-mean": 0.1}`. Parsed from
/// text by [`FromStr`]: `mean`, `median`, `min` (or `minimum`), `trimmed-mean:<fraction>`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Estimator {
    /// Arithmetic mean.
    #[cfg_attr(feature = "clap", value(help = "Mean"))]
    #[default]
    Mean,
    /// Median ([`median`]).
    #[cfg_attr(feature = "clap", value(help = "Median"))]
    Median,
    /// Minimum: Chen & Revels' estimator for in-process microbenchmarks (docs/methodology.md,
    /// "In-process microbenchmarks"). Of a hierarchy, each execution's own minimum, located
    /// over the executions by Huber's M-estimate ([`Estimator::of_hierarchy`]).
    #[cfg_attr(
        feature = "clap",
        value(help = "Minimum (each execution's, located over executions)")
    )]
    Min,
    /// Trimmed mean ([`trimmed_mean`]) with this fraction cut from each end, in [0, 0.5).
    #[cfg_attr(feature = "clap", value(skip))]
    TrimmedMean(f64),
}

impl Estimator {
    /// Applies the estimator; NaN for an empty slice or an invalid trimming fraction.
    pub fn apply(&self, values: &[f64]) -> f64 {
        match *self {
            Self::Mean => mean(values),
            Self::Median => median(values),
            Self::Min => min(values),
            Self::TrimmedMean(f) => trimmed_mean(values, f),
        }
    }

    /// The estimator on a hierarchy: [`apply`](Self::apply) to all its values, except the
    /// minimum of a hierarchy of two or more levels, which is Huber's M-estimate of its
    /// top-level units' minima ([`minima_location`]) — the figure rigor's summaries,
    /// comparisons and bootstrap take as the minimum.
    pub fn of_hierarchy(&self, h: &crate::hierarchy::Hierarchy) -> f64 {
        match (self, h.top_minima()) {
            (Self::Min, Some(minima)) => minima_location(&minima),
            _ => self.apply(h.values()),
        }
    }

    /// Applies the estimator, reordering `values` to avoid a copy. Order statistics (median,
    /// minimum) are bit-identical to [`apply`](Self::apply); the means may differ in the last bits
    /// because they are summed in another order.
    pub fn apply_in_place(&self, values: &mut [f64]) -> f64 {
        match *self {
            Self::Median => median_in_place(values),
            Self::TrimmedMean(f) if valid_trim(f) && f > 0.0 => trimmed_in_place(values, f),
            _ => self.apply(values),
        }
    }

    /// Checks the parameter: a trimming fraction must lie in [0, 0.5).
    pub fn validate(&self) -> Result<()> {
        match *self {
            Self::TrimmedMean(f) if !valid_trim(f) => Err(StatsError::InvalidParameter {
                name: "trimmed-mean fraction",
                value: f.to_string(),
                reason: "must lie in [0, 0.5)",
            }),
            _ => Ok(()),
        }
    }
}

/// The location of processes' minima (each top-level unit's own, [`Hierarchy::top_minima`]):
/// Huber's M-estimate ([`crate::series::VersionMean::huber_of`]), as precise as their mean
/// under ordinary noise within about 5% and moved little by an execution slowed throughout; NaN
/// for none or a value that is not finite.
///
/// [`Hierarchy::top_minima`]: crate::hierarchy::Hierarchy::top_minima
pub fn minima_location(minima: &[f64]) -> f64 {
    crate::series::VersionMean::huber_of(minima).map_or(f64::NAN, |v| v.mean)
}

/// Trimmed mean by two selections instead of a sort.
fn trimmed_in_place(values: &mut [f64], fraction: f64) -> f64 {
    let n = values.len();
    let g = trim_count(n, fraction);
    if n == 0 {
        return f64::NAN;
    }
    if g > 0 {
        values.select_nth_unstable_by(g - 1, f64::total_cmp);
        let rest = &mut values[g..];
        let keep = n - 2 * g;
        rest.select_nth_unstable_by(keep, f64::total_cmp);
    }
    mean(&values[g..n - g])
}

impl fmt::Display for Estimator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Mean => f.write_str("mean"),
            Self::Median => f.write_str("median"),
            Self::Min => f.write_str("min"),
            Self::TrimmedMean(x) => write!(f, "trimmed-mean:{x}"),
        }
    }
}

impl FromStr for Estimator {
    type Err = StatsError;

    fn from_str(s: &str) -> Result<Self> {
        let bad = || StatsError::InvalidParameter {
            name: "estimator",
            value: s.to_string(),
            reason: "expected mean, median, min or trimmed-mean:<fraction in [0, 0.5)>",
        };
        let estimator = match s.trim().to_ascii_lowercase().as_str() {
            "mean" => Self::Mean,
            "median" => Self::Median,
            "min" | "minimum" => Self::Min,
            other => {
                let fraction = other.strip_prefix("trimmed-mean:").ok_or_else(bad)?;
                Self::TrimmedMean(fraction.trim().parse().map_err(|_| bad())?)
            }
        };
        estimator.validate().map(|()| estimator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    // Reference values computed in R 4.x (see the comments) and by hand.
    #[test]
    fn order_statistics() {
        let x = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
        assert_eq!(min(&x), 1.0);
        assert_eq!(max(&x), 9.0);
        assert_eq!(median(&x), 3.5); // median(c(3,1,4,1,5,9,2,6))
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert!(median(&[]).is_nan());
        assert!(min(&[]).is_nan());
        let mut y = x;
        assert_eq!(median_in_place(&mut y), 3.5);
    }

    #[test]
    fn percentile_is_type_7() {
        let x = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
        // quantile(x, c(0, .25, .5, .9, 1)) = 1, 1.75, 3.5, 6.9, 9
        assert_eq!(percentile(&x, 0.0), 1.0);
        assert!(close(percentile(&x, 25.0), 1.75));
        assert!(close(percentile(&x, 50.0), 3.5));
        assert!(close(percentile(&x, 90.0), 6.9));
        assert_eq!(percentile(&x, 100.0), 9.0);
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert!(close(percentile(&ten, 90.0), 9.1)); // quantile(1:10, .9)
        assert!(percentile(&x, 101.0).is_nan());
        assert!(percentile(&[], 50.0).is_nan());
    }

    #[test]
    fn spread() {
        let x = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        // var(x) = 32/7, sd = 2.13809, cv = sd / 5
        assert!(close(variance(&x), 32.0 / 7.0));
        assert!(close(std_dev(&x), (32.0f64 / 7.0).sqrt()));
        assert!(close(
            coefficient_of_variation(&x),
            (32.0f64 / 7.0).sqrt() / 5.0
        ));
        // mad(c(1,2,3,4,100), constant = 1) = 1; mad(...) = 1.4826
        let y = [1.0, 2.0, 3.0, 4.0, 100.0];
        assert_eq!(mad(&y), 1.0);
        assert!(close(mad_scaled(&y), 1.4826));
        // mad(c(2,4,4,4,5,5,7,9), constant = 1) = 0.5 (deviations 2.5,.5,.5,.5,.5,.5,2.5,4.5)
        assert_eq!(mad(&x), 0.5);
    }

    #[test]
    fn trimmed_mean_matches_r() {
        let x = [0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 1000.0];
        assert_eq!(trim_count(10, 0.2), 2);
        assert!(close(trimmed_mean(&x, 0.2), 21.0)); // mean(x, trim = .2)
        assert!(close(trimmed_mean(&x, 0.15), 31.875)); // mean(x, trim = .15)
        assert!(close(trimmed_mean(&x, 0.0), mean(&x)));
        assert!(trimmed_mean(&x, 0.5).is_nan());
        let mut y = x;
        y.reverse();
        assert!(close(
            Estimator::TrimmedMean(0.2).apply_in_place(&mut y),
            21.0
        ));
    }

    #[test]
    fn summary() {
        let s = Summary::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(
            (s.n, s.mean, s.median, s.min, s.max, s.mad),
            (8, 5.0, 4.5, 2.0, 9.0, 0.5)
        );
        assert!(close(s.std_dev, (32.0f64 / 7.0).sqrt()));
        assert!(close(s.mad_scaled(), 0.7413));
        let sample = Sample::new(vec![1.0, 3.0]).unwrap();
        assert_eq!(Summary::from(&sample).median, 2.0);
        assert!(matches!(
            Summary::of(&[1.0]),
            Err(StatsError::TooFew { .. })
        ));
        assert!(matches!(
            Summary::of(&[1.0, f64::NAN]),
            Err(StatsError::NonFinite { index: 1, .. })
        ));
    }

    #[test]
    fn estimator_apply_and_parse() {
        let x = [5.0, 1.0, 3.0, 100.0];
        assert_eq!(Estimator::Mean.apply(&x), 27.25);
        assert_eq!(Estimator::Median.apply(&x), 4.0);
        assert_eq!(Estimator::Min.apply(&x), 1.0);
        assert_eq!(Estimator::TrimmedMean(0.25).apply(&x), 4.0);
        for (text, e) in [
            ("mean", Estimator::Mean),
            ("Median", Estimator::Median),
            ("min", Estimator::Min),
            ("minimum", Estimator::Min),
            ("trimmed-mean:0.1", Estimator::TrimmedMean(0.1)),
        ] {
            assert_eq!(text.parse::<Estimator>().unwrap(), e);
        }
        assert_eq!(Estimator::TrimmedMean(0.1).to_string(), "trimmed-mean:0.1");
        assert_eq!("median".parse::<Estimator>().unwrap().to_string(), "median");
        assert!("mode".parse::<Estimator>().is_err());
        assert!("trimmed-mean:0.5".parse::<Estimator>().is_err());
        assert!(Estimator::TrimmedMean(-0.1).validate().is_err());
    }
}
