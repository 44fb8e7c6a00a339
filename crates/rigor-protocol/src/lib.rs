//! rigor's native sample protocol, spoken by benchmarked programs and read by the runner.
//!
//! rigor names a file in [`SAMPLES_FILE_ENV`] (`RIGOR_SAMPLES_FILE`); the program appends one
//! JSON object per iteration to it, one per line: `{"value": 12.5, "unit": "ns"}` (a [`Sample`];
//! the unit defaults to seconds). A line may say how finely its value was measured,
//! `"resolution": 0.02` in the same unit (an in-process harness: the timer's step divided by the
//! evaluations per sample), so that no interval claims more precision than that. When rigor has
//! planned how many iterations an execution should run, it says so in [`ITERATIONS_ENV`]
//! (`RIGOR_ITERATIONS`).
//!
//! Programs write with a [`SampleWriter`] and read the count with [`requested_iterations`]; the
//! runner reads the file back with [`parse_samples`]. Any language can take part: the file is
//! plain JSON lines (see the crate's README).
//!
//! ```
//! use std::time::Instant;
//!
//! use rigor_protocol::{SampleWriter, requested_iterations};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let iterations = requested_iterations()?.unwrap_or(10);
//! // `None` when the program does not run under rigor: it then just runs.
//! let mut samples = SampleWriter::from_env()?;
//! for _ in 0..iterations {
//!     let start = Instant::now();
//!     std::hint::black_box((0..1_000u64).sum::<u64>());
//!     if let Some(samples) = &mut samples {
//!         samples.record_duration(start.elapsed())?;
//!     }
//! }
//! # Ok(())
//! # }
//! ```

use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use rigor_units::{Resolution, Seconds, TimeUnit};

/// The environment variable naming the samples file a program appends its iteration times to.
pub const SAMPLES_FILE_ENV: &str = "RIGOR_SAMPLES_FILE";

/// The environment variable telling a program how many iterations rigor wants per execution.
pub const ITERATIONS_ENV: &str = "RIGOR_ITERATIONS";

/// What every malformed line's message ends with: the shape a line must have.
const EXPECTED: &str = r#"(expected {"value": 1.5, "unit": "ns"})"#;

/// One iteration time, as written on one line of the samples file:
/// `{"value": 1.5, "unit": "ns"}`, or with the step it was measured in,
/// `{"value": 1.5, "unit": "ns", "resolution": 0.02}`. The unit defaults to seconds; other fields
/// are refused.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    /// The time, in `unit`; finite and non-negative.
    pub value: f64,
    /// The unit of `value` (seconds when the line has none).
    #[serde(default)]
    pub unit: TimeUnit,
    /// The smallest step the value could change by, in `unit` (positive, finite), when the
    /// program knows it: an in-process harness's timer resolution divided by its evaluations
    /// per sample. Absent from lines that do not say (older programs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<f64>,
}

impl Sample {
    /// A time of `value` in `unit`.
    pub const fn new(value: f64, unit: TimeUnit) -> Self {
        Self {
            value,
            unit,
            resolution: None,
        }
    }

    /// The same time, measured in steps of `resolution` (in the sample's unit).
    pub const fn with_resolution(self, resolution: f64) -> Self {
        Self {
            resolution: Some(resolution),
            ..self
        }
    }

    /// A [`Duration`] as a whole number of nanoseconds (exact below 2⁵³ ns, about 104 days).
    pub fn from_duration(d: Duration) -> Self {
        Self::new(d.as_nanos() as f64, TimeUnit::Ns)
    }

    /// The time in seconds (dividing, so `1500 ns` is exactly `1.5e-6 s`).
    pub fn seconds(self) -> Seconds {
        Seconds::from_unit(self.value, self.unit)
    }

    /// Whether the value is a time at all: finite and non-negative.
    pub fn is_valid(self) -> bool {
        self.value.is_finite() && self.value >= 0.0
    }

    /// Whether the resolution, if given, is a step at all: positive and finite.
    pub fn resolution_is_valid(self) -> bool {
        self.resolution.is_none_or(|r| r.is_finite() && r > 0.0)
    }

    /// The resolution as a typed step (`None` when absent or not a step).
    pub fn resolution(self) -> Option<Resolution> {
        Resolution::new(Seconds::from_unit(self.resolution?, self.unit))
    }
}

impl From<Duration> for Sample {
    fn from(d: Duration) -> Self {
        Self::from_duration(d)
    }
}

/// A samples file or an iteration count that does not follow the protocol. Line numbers are
/// 1-based, as editors show them.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum ProtocolError {
    /// The line is not a JSON sample object (not JSON, a missing `value`, an unknown field or
    /// unit).
    #[error("line {line}: {message} {EXPECTED}")]
    Malformed {
        /// The line.
        line: usize,
        /// What the JSON reader found wrong.
        message: String,
    },
    /// The line's value is negative, infinite or not a number.
    #[error("line {line}: value {value} is not a finite, non-negative time")]
    InvalidValue {
        /// The line.
        line: usize,
        /// The value on it.
        value: f64,
    },
    /// The line's resolution is zero, negative, infinite or not a number.
    #[error("line {line}: resolution {value} is not a positive, finite step")]
    InvalidResolution {
        /// The line.
        line: usize,
        /// The resolution on it.
        value: f64,
    },
    /// `RIGOR_ITERATIONS` holds something other than a positive whole number.
    #[error("{ITERATIONS_ENV}='{value}' is not a positive whole number")]
    Iterations {
        /// The variable's value as found.
        value: String,
    },
}

impl ProtocolError {
    /// The 1-based line of the samples file at fault, if the error is about one.
    pub fn line(&self) -> Option<usize> {
        match self {
            Self::Malformed { line, .. }
            | Self::InvalidValue { line, .. }
            | Self::InvalidResolution { line, .. } => Some(*line),
            Self::Iterations { .. } => None,
        }
    }
}

/// Reads a samples file: one [`Sample`] per non-empty line, converted to seconds, in order
/// (resolutions are checked and dropped; [`read_samples`] keeps them).
///
/// # Errors
/// The first line that is not a sample object ([`ProtocolError::Malformed`]), whose value is
/// not a time ([`ProtocolError::InvalidValue`]) or whose resolution is not a step
/// ([`ProtocolError::InvalidResolution`]); each names the line.
pub fn parse_samples(text: &str) -> Result<Vec<Seconds>, ProtocolError> {
    read_samples(text).map(|s| s.values)
}

/// What a samples file holds: the values, and how finely they were measured.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Samples {
    /// Every value, in seconds, in order.
    pub values: Vec<Seconds>,
    /// The coarsest resolution any line gave (`None` when no line gave one).
    pub resolution: Option<Resolution>,
}

/// Reads a samples file as [`parse_samples`] does, keeping the coarsest resolution the lines
/// give.
///
/// # Errors
/// As [`parse_samples`].
pub fn read_samples(text: &str) -> Result<Samples, ProtocolError> {
    let mut out = Samples::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let sample: Sample = serde_json::from_str(line).map_err(|e| ProtocolError::Malformed {
            line: i + 1,
            message: e.to_string(),
        })?;
        if !sample.is_valid() {
            return Err(ProtocolError::InvalidValue {
                line: i + 1,
                value: sample.value,
            });
        }
        match (sample.resolution, sample.resolution()) {
            (Some(value), None) => {
                return Err(ProtocolError::InvalidResolution { line: i + 1, value });
            }
            (_, Some(r)) => {
                out.resolution = Some(out.resolution.map_or(r, |old| old.coarser(r)));
            }
            (None, None) => {}
        }
        out.values.push(sample.seconds());
    }
    Ok(out)
}

/// The number of iterations rigor asks each execution for (`RIGOR_ITERATIONS`), or `None` when
/// it asks for none (the variable is unset): the program then picks its own count.
///
/// # Errors
/// [`ProtocolError::Iterations`] when the variable is set to anything but a positive whole
/// number.
pub fn requested_iterations() -> Result<Option<usize>, ProtocolError> {
    iterations_from(std::env::var_os(ITERATIONS_ENV).as_deref())
}

fn iterations_from(value: Option<&OsStr>) -> Result<Option<usize>, ProtocolError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let text = value.to_string_lossy();
    match text.trim().parse::<usize>() {
        Ok(k) if k > 0 => Ok(Some(k)),
        _ => Err(ProtocolError::Iterations {
            value: text.into_owned(),
        }),
    }
}

/// Appends samples to a samples file, one JSON line each.
///
/// Every [`record`](SampleWriter::record) is one unbuffered write of one whole line to a file
/// opened for appending, so each sample reaches the file as it is recorded: a program that
/// crashes, is killed or times out loses none of the samples it recorded.
#[derive(Debug)]
pub struct SampleWriter {
    file: File,
    path: PathBuf,
    line: Vec<u8>,
}

impl SampleWriter {
    /// The writer rigor asks for, to the file named by `RIGOR_SAMPLES_FILE`; `None` when the
    /// variable is unset or empty (the program is not running under rigor).
    ///
    /// # Errors
    /// The file cannot be opened for appending.
    pub fn from_env() -> io::Result<Option<Self>> {
        match std::env::var_os(SAMPLES_FILE_ENV) {
            Some(path) if !path.is_empty() => Self::open(path).map(Some),
            _ => Ok(None),
        }
    }

    /// A writer appending to `path` (created if missing; existing lines are kept).
    ///
    /// # Errors
    /// The file cannot be opened for appending.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(Self {
            file,
            path,
            line: Vec::with_capacity(64),
        })
    }

    /// The file written to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one sample as one line.
    ///
    /// # Errors
    /// [`io::ErrorKind::InvalidInput`] for a value that is not a time (negative, infinite, NaN)
    /// or a resolution that is not a step (zero, negative, infinite, NaN), which rigor would
    /// refuse; otherwise the write's error.
    pub fn record(&mut self, sample: Sample) -> io::Result<()> {
        let invalid = |message: String| Err(io::Error::new(io::ErrorKind::InvalidInput, message));
        if !sample.is_valid() {
            return invalid(format!(
                "sample value {} is not a finite, non-negative time",
                sample.value
            ));
        }
        if !sample.resolution_is_valid() {
            return invalid(format!(
                "sample resolution {:?} is not a positive, finite step",
                sample.resolution
            ));
        }
        self.line.clear();
        serde_json::to_writer(&mut self.line, &sample)?;
        self.line.push(b'\n');
        self.file.write_all(&self.line)
    }

    /// Appends the time of one iteration measured as a [`Duration`] (written in nanoseconds).
    ///
    /// # Errors
    /// As [`SampleWriter::record`].
    pub fn record_duration(&mut self, d: Duration) -> io::Result<()> {
        self.record(Sample::from_duration(d))
    }
}

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(v: &[f64]) -> Vec<Seconds> {
        v.iter().copied().map(Seconds::new).collect()
    }

    #[test]
    fn writer_round_trips_through_the_parser() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples.jsonl");
        let mut w = SampleWriter::open(&path).unwrap();
        w.record(Sample::new(1500.0, TimeUnit::Ns)).unwrap();
        w.record(Sample::new(2.5, TimeUnit::Ms)).unwrap();
        w.record_duration(Duration::from_micros(7)).unwrap();
        w.record(Sample::new(3.0, TimeUnit::S)).unwrap();
        assert_eq!(w.path(), path);
        // Written as each sample is recorded: readable before the writer is dropped.
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 4);
        assert_eq!(
            parse_samples(&text).unwrap(),
            secs(&[1.5e-6, 2.5e-3, 7e-6, 3.0])
        );
        // A second writer appends rather than truncating.
        SampleWriter::open(&path)
            .unwrap()
            .record(Sample::new(1.0, TimeUnit::S))
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(parse_samples(&text).unwrap().len(), 5);
    }

    #[test]
    fn writer_refuses_values_that_are_not_times() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = SampleWriter::open(dir.path().join("s")).unwrap();
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let e = w.record(Sample::new(bad, TimeUnit::S)).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        }
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = w
                .record(Sample::new(1.0, TimeUnit::S).with_resolution(bad))
                .unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        }
        assert_eq!(std::fs::read_to_string(w.path()).unwrap(), "");
    }

    #[test]
    fn resolutions_are_optional_checked_and_the_coarsest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples.jsonl");
        let mut w = SampleWriter::open(&path).unwrap();
        w.record(Sample::new(3.0, TimeUnit::Ns).with_resolution(0.02))
            .unwrap();
        w.record(Sample::new(3.0, TimeUnit::Ns)).unwrap();
        w.record(Sample::new(0.004, TimeUnit::Us).with_resolution(0.00005))
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("{\"value\":3.0,\"unit\":\"ns\",\"resolution\":0.02}\n"),
            "{text}"
        );
        // A line without one is written as before.
        assert!(text.contains("{\"value\":3.0,\"unit\":\"ns\"}\n"), "{text}");
        let s = read_samples(&text).unwrap();
        assert_eq!(s.values.len(), 3);
        // 0.00005 µs = 0.05 ns, coarser than 0.02 ns.
        let step = s.resolution.unwrap().step().get();
        assert!((step - 0.05e-9).abs() < 1e-22, "{step}");
        assert_eq!(parse_samples(&text).unwrap(), s.values);
        // Files without resolutions (every older program's) have none.
        assert_eq!(read_samples("{\"value\": 1}").unwrap().resolution, None);
        for bad in ["0", "-0.5"] {
            let e = read_samples(&format!(
                "{{\"value\": 1}}\n{{\"value\": 1, \"resolution\": {bad}}}"
            ))
            .unwrap_err();
            assert!(
                matches!(e, ProtocolError::InvalidResolution { line: 2, .. }),
                "{bad}: {e}"
            );
            assert_eq!(e.line(), Some(2));
        }
    }

    #[test]
    fn lines_default_to_seconds_and_skip_blanks() {
        let v =
            parse_samples("{\"value\": 1500, \"unit\": \"ns\"}\n\n  \n{\"value\": 2}\n").unwrap();
        assert_eq!(v, secs(&[1.5e-6, 2.0]));
        assert_eq!(parse_samples("").unwrap(), Vec::<Seconds>::new());
    }

    #[test]
    fn unit_conversion_is_exact() {
        assert_eq!(Sample::new(1500.0, TimeUnit::Ns).seconds(), Seconds(1.5e-6));
        assert_eq!(Sample::new(10.0, TimeUnit::Us).seconds(), Seconds(1e-5));
        assert_eq!(Sample::new(250.0, TimeUnit::Ms).seconds(), Seconds(0.25));
        assert_eq!(
            Sample::from_duration(Duration::from_nanos(1500)).seconds(),
            Seconds(1.5e-6)
        );
    }

    #[test]
    fn malformed_lines_name_the_line() {
        let e = parse_samples("{\"value\": 1}\n{\"value\": \"x\"}\n").unwrap_err();
        assert_eq!(e.line(), Some(2));
        let text = e.to_string();
        assert!(text.starts_with("line 2: "), "{text}");
        assert!(
            text.ends_with(r#"(expected {"value": 1.5, "unit": "ns"})"#),
            "{text}"
        );
        let e = parse_samples("\n\nnot json").unwrap_err();
        assert!(matches!(e, ProtocolError::Malformed { line: 3, .. }), "{e}");
        let e = parse_samples("{\"value\": 1, \"unit\": \"minutes\"}").unwrap_err();
        assert!(matches!(e, ProtocolError::Malformed { line: 1, .. }), "{e}");
        let e = parse_samples("{\"value\": 1, \"colour\": \"red\"}").unwrap_err();
        assert!(e.to_string().contains("colour"), "{e}");
        let e = parse_samples("{\"value\": 1}\n{\"value\": -1}").unwrap_err();
        assert_eq!(
            e,
            ProtocolError::InvalidValue {
                line: 2,
                value: -1.0
            }
        );
        assert_eq!(
            e.to_string(),
            "line 2: value -1 is not a finite, non-negative time"
        );
    }

    #[test]
    fn iteration_counts_are_positive_whole_numbers() {
        let it = |s: &str| iterations_from(Some(OsStr::new(s)));
        assert_eq!(iterations_from(None), Ok(None));
        assert_eq!(it("30"), Ok(Some(30)));
        assert_eq!(it(" 7\n"), Ok(Some(7)));
        for bad in ["", "0", "-3", "ten", "1.5"] {
            let e = it(bad).unwrap_err();
            assert_eq!(
                e,
                ProtocolError::Iterations {
                    value: bad.to_string()
                }
            );
            assert!(e.to_string().starts_with("RIGOR_ITERATIONS='"), "{e}");
            assert_eq!(e.line(), None);
        }
    }
}
