//! Critical values of the distributions the intervals use.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use crate::error::{Result, StatsError, check_level};

/// Which distribution supplies an interval's critical value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Quantile {
    /// Student's t with the interval's degrees of freedom (the default: honest for few units).
    #[cfg_attr(
        feature = "clap",
        value(
            name = "t",
            help = "Student's t with (top-level units − 1) degrees of freedom"
        )
    )]
    #[default]
    StudentT,
    /// The standard normal, as in Kalibera & Tůma 2006 and Kalibera, Bulej & Tůma 2005b; too
    /// narrow for few top-level units.
    #[cfg_attr(feature = "clap", value(help = "Standard normal"))]
    Normal,
}

/// Two-sided critical value for confidence `level`: the `1 − α/2` quantile, with `df` degrees of
/// freedom for Student's t (ignored for the normal). `df` may be fractional (Welch).
pub fn critical_value(level: f64, df: f64, quantile: Quantile) -> Result<f64> {
    check_level(level)?;
    let p = 1.0 - (1.0 - level) / 2.0;
    match quantile {
        Quantile::Normal => Ok(Normal::standard().inverse_cdf(p)),
        Quantile::StudentT => {
            if !(df > 0.0 && df.is_finite()) {
                return Err(StatsError::InvalidParameter {
                    name: "degrees of freedom",
                    value: df.to_string(),
                    reason: "must be positive and finite",
                });
            }
            let key = (p.to_bits(), df.to_bits());
            if let Some(t) = KNOWN.with_borrow(|known| known.get(&key).copied()) {
                return Ok(t);
            }
            let t = StudentsT::new(0.0, 1.0, df).map_err(|_| StatsError::InvalidParameter {
                name: "degrees of freedom",
                value: df.to_string(),
                reason: "rejected by the t distribution",
            })?;
            let t = t.inverse_cdf(p);
            KNOWN.with_borrow_mut(|known| {
                if known.len() >= KNOWN_MAX {
                    known.clear();
                }
                known.insert(key, t);
            });
            Ok(t)
        }
    }
}

/// How many quantiles [`KNOWN`] keeps (it is emptied when full).
const KNOWN_MAX: usize = 4096;

std::thread_local! {
    /// Student-t quantiles already computed, by probability and degrees of freedom (as bits):
    /// an inversion costs microseconds, and change detection asks for the same few again and
    /// again (a quantile per pass of a series' search, and per version tested together across
    /// benchmarks), so a history of 10,000 versions spent a large part of its time on them.
    static KNOWN: std::cell::RefCell<std::collections::HashMap<(u64, u64), f64>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// The level at which to take a percentile bootstrap interval over `n` top-level units so that
/// it is as wide as a t interval would be: Hesterberg's expanded percentile interval (Hesterberg
/// 2015, "What teachers should know about the bootstrap"), level′ = 2Φ(√(n/(n − 1))·t) − 1 with
/// t the `1 − α/2` quantile of Student's t with n − 1 degrees of freedom. The plain percentile
/// interval is too narrow with few units (it ignores both the t's heavier tails and the
/// bootstrap's n rather than n − 1 divisor).
///
/// # Errors
/// A level outside (0, 1), or `n < 2`.
pub fn expanded_level(level: f64, n: usize) -> Result<f64> {
    if n < 2 {
        return Err(StatsError::InvalidParameter {
            name: "top-level units",
            value: n.to_string(),
            reason: "an expanded percentile interval needs at least 2",
        });
    }
    let n = n as f64;
    let t = critical_value(level, n - 1.0, Quantile::StudentT)?;
    let z = (n / (n - 1.0)).sqrt() * t;
    // With very few units (2 at 95%, 3 at 99.9%) 2Φ(z) − 1 rounds to 1, which no interval has:
    // the level is held just below it, where the percentiles are the replicates' extremes.
    Ok((2.0 * Normal::standard().cdf(z) - 1.0).min(1.0 - f64::EPSILON))
}

#[cfg(test)]
mod tests {
    #[test]
    fn expanded_level_matches_independent_values() {
        // 2Φ(√(n/(n−1))·t₀.₉₇₅,ₙ₋₁) − 1 computed with Python's math.erf from tabulated t.
        for (n, want) in [(10, 0.982_898_721_948_384_2), (30, 0.962_492_199_443_558_9)] {
            let got = super::expanded_level(0.95, n).unwrap();
            assert!((got - want).abs() < 1e-9, "n = {n}: {got}");
        }
        // It tends to the nominal level with many units.
        assert!((super::expanded_level(0.95, 100_000).unwrap() - 0.95).abs() < 1e-4);
        assert!(super::expanded_level(0.95, 1).is_err());
        // Where 2Φ(z) − 1 rounds to 1 the level stays a level.
        for (level, n) in [(0.95, 2), (0.999, 3), (0.999, 2)] {
            let l = super::expanded_level(level, n).unwrap();
            assert!(l > level && l < 1.0, "{level} with {n} units: {l}");
        }
    }

    use super::*;

    #[test]
    fn known_quantiles() {
        // Reference values from R: qt(0.975, 5), qnorm(0.975), qt(0.975, 13.75268), qt(0.995, 9).
        for (level, df, quantile, want) in [
            (0.95, 5.0, Quantile::StudentT, 2.570_581_8),
            (0.95, 1.0, Quantile::Normal, 1.959_964),
            (0.95, 13.752_68, Quantile::StudentT, 2.148_411),
            (0.99, 9.0, Quantile::StudentT, 3.249_836),
        ] {
            let got = critical_value(level, df, quantile).unwrap();
            assert!((got - want).abs() < 1e-6 * want, "{level} {df}: {got}");
        }
        assert!(critical_value(1.0, 5.0, Quantile::StudentT).is_err());
        assert!(critical_value(0.95, 0.0, Quantile::StudentT).is_err());
    }
}
