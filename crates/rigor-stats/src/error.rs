//! The error type of the statistics crate.

use thiserror::Error;

/// Everything that can go wrong when a statistic is asked of data that cannot support it.
///
/// Every variant says what was wrong with the input so a caller can tell the user what to change.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum StatsError {
    /// A value was NaN or infinite.
    #[error("value {value} at position {index} is not a finite number")]
    NonFinite {
        /// Position of the value in the input.
        index: usize,
        /// The offending value.
        value: f64,
    },
    /// Too few values (or units) for the statistic.
    #[error("{what} needs at least {needed} values, got {got}")]
    TooFew {
        /// What was being computed or built.
        what: &'static str,
        /// The minimum required.
        needed: usize,
        /// What was supplied.
        got: usize,
    },
    /// A unit in a hierarchy had no children.
    #[error("unit {index} at level '{level}' has no measurements under it")]
    EmptyUnit {
        /// Name of the level of the empty unit.
        level: String,
        /// Index of the unit within its level.
        index: usize,
    },
    /// The shape of the input did not match the levels declared.
    #[error("shape mismatch: {0}")]
    Shape(String),
    /// A parameter was out of its valid range.
    #[error("invalid parameter {name} = {}: {reason}", readable(value))]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// Its value, rendered.
        value: String,
        /// Why it is invalid.
        reason: &'static str,
    },
    /// A target precision that no count the planner considers reaches.
    #[error(
        "target half-width = {}: unreachable with at most {most} top-level units",
        readable(&target.to_string())
    )]
    Unreachable {
        /// The target half-width, in the data's unit.
        target: f64,
        /// The most top-level units considered.
        most: usize,
    },
}

/// Shorthand for results of this crate.
pub type Result<T, E = StatsError> = std::result::Result<T, E>;

/// Checks that every value is finite, naming the first that is not.
pub(crate) fn check_finite(values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(StatsError::NonFinite {
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}

/// [`StatsError::InvalidParameter`]: parameter `name`, whose `value` is out of range for `reason`.
pub(crate) fn invalid(
    name: &'static str,
    value: impl std::fmt::Display,
    reason: &'static str,
) -> StatsError {
    StatsError::InvalidParameter {
        name,
        value: value.to_string(),
        reason,
    }
}

/// A rendered value as a reader wants it: a number of more than 16 characters (`f64`'s
/// `Display` writes 1e-300 with 300 digits) in scientific notation, anything else as it is.
fn readable(value: &str) -> String {
    match value.parse::<f64>() {
        Ok(v) if value.len() > 16 && v.is_finite() => format!("{v:e}"),
        _ => value.to_string(),
    }
}

/// Checks that a confidence level lies strictly between 0 and 1.
pub(crate) fn check_level(level: f64) -> Result<()> {
    if level > 0.0 && level < 1.0 {
        Ok(())
    } else {
        Err(StatsError::InvalidParameter {
            name: "confidence level",
            value: level.to_string(),
            reason: "must lie strictly between 0 and 1",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_and_huge_values_are_written_in_scientific_notation() {
        let e = invalid("target half-width", 2.01137e-300, "unreachable");
        assert_eq!(
            e.to_string(),
            "invalid parameter target half-width = 2.01137e-300: unreachable"
        );
        assert!(invalid("x", 1e300, "r").to_string().contains("= 1e300:"));
        assert!(invalid("x", 0.05, "r").to_string().contains("= 0.05:"));
        assert!(invalid("x", "abc", "r").to_string().contains("= abc:"));
    }
}
