//! In-process iteration times reported by the benchmarked program.
//!
//! Two ways in: a regular expression over standard output or error whose first capture group is a
//! time, or rigor's native protocol, where the program appends one JSON object per line,
//! `{"value": 12.5, "unit": "ns"}`, to the file named by `RIGOR_SAMPLES_FILE`.

use std::str::FromStr;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// The environment variable telling a program how many iterations rigor wants per execution.
pub const ITERATIONS_ENV: &str = "RIGOR_ITERATIONS";

/// The environment variable naming the native samples file.
pub const SAMPLES_FILE_ENV: &str = "RIGOR_SAMPLES_FILE";

/// A unit of time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeUnit {
    /// Nanoseconds.
    Ns,
    /// Microseconds.
    Us,
    /// Milliseconds.
    Ms,
    /// Seconds.
    #[default]
    S,
}

impl TimeUnit {
    /// Converts `value` in this unit to seconds (dividing, so `10 us` is exactly `1e-5`).
    pub fn to_seconds(self, value: f64) -> f64 {
        match self {
            Self::Ns => value / 1e9,
            Self::Us => value / 1e6,
            Self::Ms => value / 1e3,
            Self::S => value,
        }
    }
}

impl FromStr for TimeUnit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "ns" => Ok(Self::Ns),
            "us" | "µs" => Ok(Self::Us),
            "ms" => Ok(Self::Ms),
            "s" => Ok(Self::S),
            other => Err(format!("unknown time unit '{other}' (use ns, us, ms or s)")),
        }
    }
}

/// Which output stream carries iteration times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// Extracts iteration times (in seconds) from program output with `regex`.
pub fn parse_pattern(text: &str, regex: &Regex, unit: TimeUnit) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for caps in regex.captures_iter(text) {
        let Some(m) = caps.get(1) else {
            return Err(format!("pattern '{regex}' has no capture group"));
        };
        let value: f64 = m
            .as_str()
            .trim()
            .parse()
            .map_err(|_| format!("captured '{}' is not a number", m.as_str()))?;
        if !value.is_finite() || value < 0.0 {
            return Err(format!(
                "captured time '{}' is not a finite, non-negative number",
                m.as_str()
            ));
        }
        out.push(unit.to_seconds(value));
    }
    if out.is_empty() {
        return Err(format!("no output line matched the pattern '{regex}'"));
    }
    Ok(out)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SampleLine {
    value: f64,
    #[serde(default)]
    unit: TimeUnit,
}

/// Parses the native samples file: one JSON object per non-empty line. Errors name the line.
pub fn parse_samples_file(text: &str) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let sample: SampleLine = serde_json::from_str(line).map_err(|e| {
            format!(
                "line {}: {e} (expected {{\"value\": 1.5, \"unit\": \"ns\"}})",
                i + 1
            )
        })?;
        if !sample.value.is_finite() || sample.value < 0.0 {
            return Err(format!(
                "line {}: value {} is not a finite, non-negative time",
                i + 1,
                sample.value
            ));
        }
        out.push(sample.unit.to_seconds(sample.value));
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
        assert!(
            parse_pattern("nothing here", &re, TimeUnit::Ms)
                .unwrap_err()
                .contains("no output line")
        );
        let no_group = Regex::new(r"iteration").unwrap();
        assert!(
            parse_pattern("iteration", &no_group, TimeUnit::S)
                .unwrap_err()
                .contains("capture group")
        );
    }

    #[test]
    fn samples_file_lines() {
        let v =
            parse_samples_file("{\"value\": 1500, \"unit\": \"ns\"}\n\n{\"value\": 2}\n").unwrap();
        assert_eq!(v, vec![1.5e-6, 2.0]);
        let e = parse_samples_file("{\"value\": 1}\n{\"value\": \"x\"}\n").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
        assert!(parse_samples_file("{\"value\": -1}").is_err());
        assert_eq!(parse_samples_file("").unwrap(), Vec::<f64>::new());
    }
}
