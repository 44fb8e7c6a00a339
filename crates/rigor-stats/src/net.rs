//! A mean net of an overhead measured beside it: the difference of two independent means (a
//! command run through a shell, and the empty shell run in the same rounds), each the mean of
//! its top-level unit means, with both variances carried into the interval.
//!
//! `net = Ȳ₁ − Ȳ₂`, `se² = S₁²/r₁ + S₂²/r₂` (the variances of two independent means add), and
//! the critical value of Student's t with Welch–Satterthwaite degrees of freedom
//! `ν = se⁴ / ((S₁²/r₁)²/(r₁ − 1) + (S₂²/r₂)²/(r₂ − 1))` (or of the normal). hyperfine
//! subtracts a point estimate of the shell's start-up and keeps only the command's variance;
//! here the start-up's own uncertainty widens the interval, as it should.

use serde::{Deserialize, Serialize};

use crate::dist::{Quantile, critical_value};
use crate::error::Result;
use crate::fieller::MeanEstimate;
use crate::hierarchy::Hierarchy;

/// A net mean and its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NetMean {
    /// `Ȳ₁ − Ȳ₂`; may be negative when the command costs less than the overhead varies.
    pub mean: f64,
    /// Lower end of the interval.
    pub lower: f64,
    /// Upper end of the interval.
    pub upper: f64,
    /// The standard error `√(S₁²/r₁ + S₂²/r₂)`.
    pub se: f64,
    /// Welch–Satterthwaite degrees of freedom (`r₁ + r₂ − 2` when both variances are zero).
    pub df: f64,
}

/// The mean of `gross` net of the mean of `overhead`, measured independently (unpaired: the
/// overhead's executions are other processes than the command's), at confidence `level`.
///
/// # Errors
/// Fewer than two top-level units in either, values that are not finite, a level outside (0, 1).
pub fn net_mean(
    gross: &Hierarchy,
    overhead: &Hierarchy,
    level: f64,
    quantile: Quantile,
) -> Result<NetMean> {
    let a = MeanEstimate::from_hierarchy(gross)?;
    let b = MeanEstimate::from_hierarchy(overhead)?;
    net_of_estimates(&a, &b, level, quantile)
}

/// [`net_mean`] from the two mean estimates.
///
/// # Errors
/// A level outside (0, 1).
pub fn net_of_estimates(
    gross: &MeanEstimate,
    overhead: &MeanEstimate,
    level: f64,
    quantile: Quantile,
) -> Result<NetMean> {
    let (va, vb) = (gross.var_of_mean(), overhead.var_of_mean());
    let se2 = va + vb;
    let (da, db) = ((gross.n - 1) as f64, (overhead.n - 1) as f64);
    let df = if se2 > 0.0 {
        se2 * se2 / (va * va / da + vb * vb / db)
    } else {
        da + db
    };
    let mean = gross.mean - overhead.mean;
    let se = se2.sqrt();
    let half = critical_value(level, df, quantile)? * se;
    Ok(NetMean {
        mean,
        lower: mean - half,
        upper: mean + half,
        se,
        df,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variances_of_the_means_add_with_welch_satterthwaite_df() {
        // Reference values from scripts/oracles/net_mean.py (numpy/scipy), the same data.
        let gross = Hierarchy::flat("execution", vec![5.1, 5.3, 4.9, 5.6, 5.0, 5.2]).unwrap();
        let shell = Hierarchy::flat("execution", vec![1.0, 1.2, 0.9, 1.1]).unwrap();
        let n = net_mean(&gross, &shell, 0.95, Quantile::StudentT).unwrap();
        let close = |x: f64, y: f64| (x - y).abs() < 1e-12 * y.abs().max(1.0);
        assert!(close(n.mean, 4.133_333_333_333_33), "{n:?}");
        assert!(close(n.se, 0.120_185_042_515_466), "{n:?}");
        assert!(close(n.df, 7.752_293_577_981_65), "{n:?}");
        assert!(close(n.lower, 3.854_637_100_460_92), "{n:?}");
        assert!(close(n.upper, 4.412_029_566_205_74), "{n:?}");
    }

    #[test]
    fn no_variance_at_all_gives_a_point() {
        let a = Hierarchy::flat("execution", vec![2.0, 2.0, 2.0]).unwrap();
        let b = Hierarchy::flat("execution", vec![1.0, 1.0]).unwrap();
        let n = net_mean(&a, &b, 0.95, Quantile::StudentT).unwrap();
        assert_eq!((n.mean, n.lower, n.upper, n.df), (1.0, 1.0, 1.0, 3.0));
        let one = Hierarchy::flat("execution", vec![1.0]).unwrap();
        assert!(net_mean(&a, &one, 0.95, Quantile::StudentT).is_err());
    }
}
