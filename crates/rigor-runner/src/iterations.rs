//! In-process iteration times reported by the benchmarked program.
//!
//! Two ways in: a regular expression over standard output or error whose first capture group is a
//! time, or rigor's native protocol ([`rigor_protocol`]), where the program appends one JSON
//! object per line, `{"value": 12.5, "unit": "ns"}`, to the file named by `RIGOR_SAMPLES_FILE`.
//! The samples file's metric lines (`{"metric": "allocations", "value": 1234}`) are read in
//! either case, into the execution's [`metrics`](crate::ExecutionOutcome::metrics).

use regex::Regex;
use rigor_units::TimeUnit;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Which output stream carries iteration times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Where iteration times come from.
#[derive(Debug, Clone, Default)]
pub enum IterationSource {
    /// Only the native samples file (used if the program writes to it).
    #[default]
    SamplesFile,
    /// A pattern over an output stream; the first capture group is a time in `unit`.
    Pattern {
        /// The stream to scan.
        stream: Stream,
        /// The pattern; must have a capture group.
        regex: Regex,
        /// The unit of the captured numbers.
        unit: TimeUnit,
    },
}

/// Why iteration times could not be read from a program's output with a pattern. The message
/// becomes the reason of the execution's failure record.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PatternError {
    /// The pattern has no capture group around the time.
    #[error("pattern '{pattern}' has no capture group")]
    NoCaptureGroup {
        /// The pattern.
        pattern: String,
    },
    /// A captured text is not a number.
    #[error("captured '{captured}' is not a number")]
    NotANumber {
        /// The captured text.
        captured: String,
    },
    /// A captured number is negative, infinite or not a number.
    #[error("captured time '{captured}' is not a finite, non-negative number")]
    NotATime {
        /// The captured text.
        captured: String,
    },
    /// No line of the output matched.
    #[error("no output line matched the pattern '{pattern}'")]
    NoMatch {
        /// The pattern.
        pattern: String,
    },
}

/// Extracts iteration times (in seconds) from program output with `regex`: the first capture
/// group of every match is a time in `unit`.
///
/// # Errors
/// A [`PatternError`] when nothing matched, the pattern has no capture group, or a captured text
/// is not a finite, non-negative number.
pub fn parse_pattern(text: &str, regex: &Regex, unit: TimeUnit) -> Result<Vec<f64>, PatternError> {
    let mut out = Vec::new();
    for caps in regex.captures_iter(text) {
        let Some(m) = caps.get(1) else {
            return Err(PatternError::NoCaptureGroup {
                pattern: regex.to_string(),
            });
        };
        let captured = || m.as_str().to_string();
        let value: f64 = m
            .as_str()
            .trim()
            .parse()
            .map_err(|_| PatternError::NotANumber {
                captured: captured(),
            })?;
        if !value.is_finite() || value < 0.0 {
            return Err(PatternError::NotATime {
                captured: captured(),
            });
        }
        out.push(unit.to_seconds(value));
    }
    if out.is_empty() {
        return Err(PatternError::NoMatch {
            pattern: regex.to_string(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_extracts_first_group_in_unit() {
        let re = Regex::new(r"iteration \d+: ([0-9.]+) ms").unwrap();
        let v = parse_pattern(
            "warm\niteration 1: 2.5 ms\niteration 2: 3 ms\n",
            &re,
            TimeUnit::Ms,
        )
        .unwrap();
        assert_eq!(v, vec![0.0025, 0.003]);
        assert_eq!(
            parse_pattern("nothing here", &re, TimeUnit::Ms)
                .unwrap_err()
                .to_string(),
            r"no output line matched the pattern 'iteration \d+: ([0-9.]+) ms'"
        );
        let no_group = Regex::new(r"iteration").unwrap();
        assert_eq!(
            parse_pattern("iteration", &no_group, TimeUnit::S).unwrap_err(),
            PatternError::NoCaptureGroup {
                pattern: "iteration".into()
            }
        );
        let any = Regex::new(r"t=(\S+)").unwrap();
        assert_eq!(
            parse_pattern("t=fast", &any, TimeUnit::S)
                .unwrap_err()
                .to_string(),
            "captured 'fast' is not a number"
        );
        assert_eq!(
            parse_pattern("t=-2", &any, TimeUnit::S)
                .unwrap_err()
                .to_string(),
            "captured time '-2' is not a finite, non-negative number"
        );
    }
}
