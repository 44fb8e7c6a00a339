//! A validated one-level sample: at least two finite values.

use crate::error::{Result, StatsError, check_finite};

/// A sample of at least two finite values.
///
/// Holding a `Sample` proves that a sample variance exists, so the descriptive statistics on it are
/// total functions.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample(Vec<f64>);

impl Sample {
    /// Validates `values`: at least two, none NaN or infinite.
    pub fn new(values: Vec<f64>) -> Result<Self> {
        if values.len() < 2 {
            return Err(StatsError::TooFew {
                what: "a sample",
                needed: 2,
                got: values.len(),
            });
        }
        check_finite(&values)?;
        Ok(Self(values))
    }

    /// The values, in their original order.
    pub fn values(&self) -> &[f64] {
        &self.0
    }

    /// Number of values (always ≥ 2).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Always false: a sample holds at least two values.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Arithmetic mean.
    pub fn mean(&self) -> f64 {
        crate::descriptive::mean(&self.0)
    }

    /// Unbiased sample variance (divisor n − 1).
    pub fn variance(&self) -> f64 {
        crate::descriptive::variance(&self.0)
    }

    /// Sample standard deviation (divisor n − 1).
    pub fn std_dev(&self) -> f64 {
        self.variance().sqrt()
    }

    /// Consumes the sample, returning its values.
    pub fn into_values(self) -> Vec<f64> {
        self.0
    }
}

impl TryFrom<Vec<f64>> for Sample {
    type Error = StatsError;
    fn try_from(values: Vec<f64>) -> Result<Self> {
        Self::new(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_short_and_non_finite() {
        assert!(matches!(
            Sample::new(vec![1.0]),
            Err(StatsError::TooFew { .. })
        ));
        assert!(matches!(
            Sample::new(vec![1.0, f64::NAN]),
            Err(StatsError::NonFinite { index: 1, .. })
        ));
        assert!(matches!(
            Sample::new(vec![1.0, f64::INFINITY]),
            Err(StatsError::NonFinite { index: 1, .. })
        ));
    }

    #[test]
    fn mean_and_variance() {
        let s = Sample::new(vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(s.mean(), 2.5);
        assert!((s.variance() - 1.666_666_666_666_666_7).abs() < 1e-15);
    }
}
