//! Descriptive statistics on slices of finite values.
//!
//! These are the building blocks of everything else; they assume finite input (the validated types
//! [`Sample`](crate::Sample) and [`Hierarchy`](crate::Hierarchy) guarantee it) and return NaN for
//! an empty slice rather than panicking.

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
