//! The parse and range errors of this crate.

use thiserror::Error;

/// A quantity that could not be read or is out of its range. The message names the text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum UnitError {
    /// Not a duration (`90`, `90s`, `10m`, `1.5h`, `250ms`).
    #[error("'{0}' is not a duration (e.g. 90, 90s, 10m, 1.5h, 250ms)")]
    Duration(String),
    /// A duration that is zero, negative or infinite where a positive one is needed.
    #[error("'{0}' must be a positive, finite duration")]
    NonPositiveDuration(String),
    /// Not a time unit.
    #[error("unknown time unit '{0}' (use ns, us, ms or s)")]
    TimeUnit(String),
    /// Not a percentage or fraction.
    #[error("'{0}' is not a percentage (e.g. 1%, 0.5%, 0.01)")]
    Fraction(String),
    /// A percentage outside its range.
    #[error("'{text}' must lie {range}")]
    FractionRange {
        /// The text as given.
        text: String,
        /// The allowed range in words.
        range: &'static str,
    },
    /// A confidence level that is not a number.
    #[error("confidence '{0}' is not a number (e.g. 0.95, 95, 99%)")]
    Confidence(String),
    /// A bare number from 1 to 50 as a confidence level: a fraction it cannot be, and as a
    /// percentage it is far below any confidence level meant (`1.5` is 1.5% or a typo of 0.95).
    #[error(
        "confidence '{0}' is ambiguous: give a fraction (0.95) or a percentage from 50 (95); \
         a {0}% level, if that is really meant, takes its sign ({0}%)"
    )]
    ConfidenceAmbiguous(String),
    /// A confidence level outside (0, 100%).
    #[error("confidence '{0}' must lie strictly between 0 and 100%")]
    ConfidenceRange(String),
    /// Not a metric.
    #[error(
        "'{0}' is not a metric (wall, cpu, user, system, peak-memory, instructions, cycles, or \
         the name a program reports: letters, digits, _ - . /)"
    )]
    Metric(String),
    /// A metric name a letter or two from a built-in one: a typo, most likely.
    #[error(
        "'{given}' is not a metric: did you mean '{meant}'? (a metric a program reports may not \
         be named this close to a built-in one)"
    )]
    MetricTypo {
        /// The name as given.
        given: String,
        /// The built-in metric it is closest to.
        meant: String,
    },
    /// Not an amount of work.
    #[error(
        "'{0}' is not an amount of work per measured value (e.g. 64MiB, 1.5GB, 4096B, \
         1000items, or a bare number of items)"
    )]
    Throughput(String),
    /// Not a seed.
    #[error("'{0}' is not a seed (an integer from 0 to 18446744073709551615)")]
    Seed(String),
}
