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
//! Beside its times, a program may report other metrics of its own, one value per line:
//! `{"metric": "allocations", "value": 1234, "unit": "count"}` (a [`MetricSample`]). Several
//! lines of one metric in one execution are its values per iteration.
//!
//! Programs write with a [`SampleWriter`] and read the count with [`requested_iterations`]; the
//! runner reads the file back with [`read_samples`] ([`parse_samples`]: the times alone). Any language can take part: the file is
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

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use rigor_units::{Metric, MetricValues, Quantity, Resolution, Seconds, TimeUnit};

/// The environment variable naming the samples file a program appends its iteration times to.
pub const SAMPLES_FILE_ENV: &str = "RIGOR_SAMPLES_FILE";

/// The environment variable telling a program how many iterations rigor wants per execution.
pub const ITERATIONS_ENV: &str = "RIGOR_ITERATIONS";

/// What every malformed line's message ends with: the shape a line must have.
const EXPECTED: &str = r#"(expected {"value": 1.5, "unit": "ns"})"#;

/// What every malformed metric line's message ends with: the shape a metric line must have.
const EXPECTED_METRIC: &str =
    r#"(expected {"metric": "allocations", "value": 1234, "unit": "count"})"#;

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

/// One value of a metric the program measured itself, as written on one line of the samples
/// file: `{"metric": "allocations", "value": 1234, "unit": "count"}`. The unit is optional (a
/// count when absent); `B`, `KiB`, `MiB`, `GiB` (binary) and `kB`, `MB`, `GB` (decimal) are
/// bytes, `ns` … `s` times, a unit ending in
/// `/s` a rate (more is better), and any other unit is kept as given. Several lines of one
/// metric in one execution are its values per iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricSample {
    /// The metric: a name of the program's own (`allocations`), or `instructions`/`cycles`.
    /// rigor measures wall, CPU and peak memory of every execution itself; those names are
    /// refused.
    pub metric: Metric,
    /// The value, in `unit`; finite.
    pub value: f64,
    /// The unit of `value` as written (`None`: a count).
    pub unit: Option<String>,
}

impl MetricSample {
    /// `value` of `metric` in `unit` (as written: `"count"`, `"B"`, `"KiB"`, `"ms"`, `"MB/s"`,
    /// `"joules"`).
    pub fn new(metric: Metric, value: f64, unit: impl Into<String>) -> Self {
        Self {
            metric,
            value,
            unit: Some(unit.into()),
        }
    }

    /// A count of events (`allocations`), written without a unit.
    pub fn count(metric: Metric, value: f64) -> Self {
        Self {
            metric,
            value,
            unit: None,
        }
    }

    /// A number of bytes (`allocated-bytes`), written with the unit `B`.
    pub fn bytes(metric: Metric, value: f64) -> Self {
        Self::new(metric, value, "B")
    }

    /// The quantity of the value and the value in its base unit (seconds, bytes, a count).
    pub fn in_base_unit(&self) -> (Quantity, f64) {
        let (quantity, factor) = Quantity::of_unit(self.unit.as_deref().unwrap_or(""));
        (quantity, self.value * factor)
    }

    /// Why the metric cannot be reported through the samples file, if it cannot: rigor
    /// measures wall time, CPU times and peak memory of every execution itself.
    fn refusal(metric: &Metric) -> Option<&'static str> {
        match metric {
            Metric::Wall => Some(
                "wall time is what the iteration lines report \
                 ({\"value\": 1.5, \"unit\": \"ns\"}); a metric line reports anything else",
            ),
            Metric::Cpu | Metric::User | Metric::System | Metric::PeakMemory => Some(
                "rigor measures CPU times and peak memory of every execution itself; \
                 report the program's own under another name",
            ),
            _ => None,
        }
    }
}

/// A metric line as read, before its name is checked.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct MetricLine<'a> {
    #[serde(borrow)]
    metric: std::borrow::Cow<'a, str>,
    value: f64,
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    unit: Option<std::borrow::Cow<'a, str>>,
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
    /// The line has a `metric` field but is not a metric line (a missing `value`, an unknown
    /// field, a value that is not a number).
    #[error("line {line}: {message} {EXPECTED_METRIC}")]
    MalformedMetric {
        /// The line.
        line: usize,
        /// What the JSON reader found wrong.
        message: String,
    },
    /// The line's metric name is not one a program may report: not a metric name at all, or
    /// one rigor measures itself (`wall`, `cpu`, `user`, `system`, `peak-memory`).
    #[error("line {line}: metric '{name}': {reason}")]
    InvalidMetric {
        /// The line.
        line: usize,
        /// The name as written.
        name: String,
        /// Why it is refused.
        reason: String,
    },
    /// The line's metric value is infinite or not a number.
    #[error("line {line}: {metric} value {value} is not a finite number")]
    InvalidMetricValue {
        /// The line.
        line: usize,
        /// The metric.
        metric: Metric,
        /// The value on it.
        value: f64,
    },
    /// The line reports a metric in a unit of another kind than an earlier line of the same
    /// metric (`KiB`, then `ms`).
    #[error(
        "line {line}: {metric} in '{unit}' ({quantity}), but an earlier line gave it as {first}"
    )]
    MixedMetricUnits {
        /// The line.
        line: usize,
        /// The metric.
        metric: Metric,
        /// The unit on this line, as written.
        unit: String,
        /// What that unit is (its base unit).
        quantity: Quantity,
        /// The base unit of the earlier lines.
        first: Quantity,
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
            | Self::InvalidResolution { line, .. }
            | Self::MalformedMetric { line, .. }
            | Self::InvalidMetric { line, .. }
            | Self::InvalidMetricValue { line, .. }
            | Self::MixedMetricUnits { line, .. } => Some(*line),
            Self::Iterations { .. } => None,
        }
    }
}

/// Reads a samples file: one [`Sample`] per non-empty line, converted to seconds, in order
/// (resolutions are checked and dropped, metric lines checked and skipped; [`read_samples`]
/// keeps them).
///
/// # Errors
/// As [`read_samples`].
pub fn parse_samples(text: &str) -> Result<Vec<Seconds>, ProtocolError> {
    read_samples(text).map(|s| s.values)
}

/// What a samples file holds: the iteration times, how finely they were measured, and the
/// metrics the program reported.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Samples {
    /// Every iteration time, in seconds, in order (empty when the program reported metrics
    /// only: the execution's wall time is then its time).
    pub values: Vec<Seconds>,
    /// The coarsest resolution any line gave (`None` when no line gave one).
    pub resolution: Option<Resolution>,
    /// Every metric the program reported, by name (`allocations`), its values in the base unit
    /// of their quantity (seconds, bytes, a count), in order: one value, or one per iteration.
    pub metrics: BTreeMap<String, MetricValues>,
}

/// Reads a samples file: the iteration times (`{"value": …}` lines) converted to seconds, the
/// coarsest resolution they give, and the metric lines (`{"metric": …}`) gathered by name,
/// converted to their base unit. Empty lines are skipped.
///
/// # Errors
/// The first line that is not a sample object ([`ProtocolError::Malformed`]), whose value is
/// not a time ([`ProtocolError::InvalidValue`]) or whose resolution is not a step
/// ([`ProtocolError::InvalidResolution`]); a line with a `metric` field that is not a metric
/// line ([`ProtocolError::MalformedMetric`]), names a metric a program cannot report
/// ([`ProtocolError::InvalidMetric`]), gives a value that is not finite
/// ([`ProtocolError::InvalidMetricValue`]) or a unit of another kind than the metric's earlier
/// lines ([`ProtocolError::MixedMetricUnits`]). Each names the line.
pub fn read_samples(text: &str) -> Result<Samples, ProtocolError> {
    let mut out = Samples::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let sample: Sample = match serde_json::from_str(line) {
            Ok(sample) => sample,
            Err(_) if has_metric_field(line) => {
                read_metric(line, i + 1, &mut out.metrics)?;
                continue;
            }
            Err(e) => {
                return Err(ProtocolError::Malformed {
                    line: i + 1,
                    message: e.to_string(),
                });
            }
        };
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

/// Whether the line is a JSON object with a `metric` field (read only for lines that are not
/// iteration times, so their errors can speak of the shape meant).
fn has_metric_field(line: &str) -> bool {
    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(line)
        .is_ok_and(|m| m.contains_key("metric"))
}

/// Reads one metric line (number `line`) into `metrics`.
fn read_metric(
    text: &str,
    line: usize,
    metrics: &mut BTreeMap<String, MetricValues>,
) -> Result<(), ProtocolError> {
    let raw: MetricLine<'_> =
        serde_json::from_str(text).map_err(|e| ProtocolError::MalformedMetric {
            line,
            message: e.to_string(),
        })?;
    let invalid = |reason: String| ProtocolError::InvalidMetric {
        line,
        name: raw.metric.to_string(),
        reason,
    };
    let metric: Metric = raw.metric.parse().map_err(|e| invalid(format!("{e}")))?;
    if let Some(reason) = MetricSample::refusal(&metric) {
        return Err(invalid(reason.to_string()));
    }
    if !raw.value.is_finite() {
        return Err(ProtocolError::InvalidMetricValue {
            line,
            metric,
            value: raw.value,
        });
    }
    let sample = MetricSample {
        metric,
        value: raw.value,
        unit: raw.unit.map(|u| u.into_owned()),
    };
    let (quantity, value) = sample.in_base_unit();
    if !value.is_finite() {
        return Err(ProtocolError::InvalidMetricValue {
            line,
            metric: sample.metric,
            value: raw.value,
        });
    }
    let entry = metrics
        .entry(sample.metric.name().to_string())
        .or_insert_with(|| MetricValues {
            unit: quantity.clone(),
            values: Vec::new(),
        });
    if entry.unit != quantity {
        return Err(ProtocolError::MixedMetricUnits {
            line,
            unit: sample.unit.unwrap_or_default(),
            metric: sample.metric,
            quantity,
            first: entry.unit.clone(),
        });
    }
    entry.values.push(value);
    Ok(())
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

    /// Appends one value of a metric the program measured itself as one line,
    /// `{"metric": "allocations", "value": 1234, "unit": "count"}`. Recorded several times in
    /// one execution, its values are per iteration.
    ///
    /// # Errors
    /// [`io::ErrorKind::InvalidInput`] for a metric rigor measures itself (`wall`, `cpu`,
    /// `user`, `system`, `peak-memory`) or a value that is not finite, which rigor would
    /// refuse; otherwise the write's error.
    pub fn record_metric(&mut self, sample: &MetricSample) -> io::Result<()> {
        let invalid = |message: String| Err(io::Error::new(io::ErrorKind::InvalidInput, message));
        if let Some(reason) = MetricSample::refusal(&sample.metric) {
            return invalid(format!("metric '{}': {reason}", sample.metric));
        }
        if !sample.in_base_unit().1.is_finite() {
            return invalid(format!(
                "{} value {} is not a finite number",
                sample.metric, sample.value
            ));
        }
        self.line.clear();
        serde_json::to_writer(
            &mut self.line,
            &MetricLine {
                metric: sample.metric.name().into(),
                value: sample.value,
                unit: sample.unit.as_deref().map(Into::into),
            },
        )?;
        self.line.push(b'\n');
        self.file.write_all(&self.line)
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

    fn reported(name: &str) -> Metric {
        Metric::Reported(name.into())
    }

    #[test]
    fn metric_lines_are_read_beside_iteration_times_in_base_units() {
        let text = "{\"value\": 2, \"unit\": \"ms\"}\n\
                    {\"metric\": \"allocations\", \"value\": 1234, \"unit\": \"count\"}\n\
                    {\"metric\": \"heap\", \"value\": 3, \"unit\": \"KiB\"}\n\
                    {\"value\": 3, \"unit\": \"ms\"}\n\
                    {\"metric\": \"allocations\", \"value\": 1000}\n\
                    {\"metric\": \"gc\", \"value\": 250, \"unit\": \"us\"}\n\
                    {\"metric\": \"throughput\", \"value\": 12.5, \"unit\": \"MB/s\"}\n\
                    {\"metric\": \"energy\", \"value\": 0.5, \"unit\": \"joules\"}\n\
                    {\"metric\": \"instructions\", \"value\": 1e9}\n";
        let s = read_samples(text).unwrap();
        assert_eq!(s.values, secs(&[2e-3, 3e-3]));
        let m = |name: &str| s.metrics[name].clone();
        // Two lines of one metric: its values per iteration, in order.
        assert_eq!(
            m("allocations"),
            MetricValues {
                unit: Quantity::Count,
                values: vec![1234.0, 1000.0]
            }
        );
        assert_eq!(m("heap").unit, Quantity::Bytes);
        assert_eq!(m("heap").values, vec![3072.0]);
        assert_eq!(m("gc").unit, Quantity::Time);
        assert!((m("gc").values[0] - 250e-6).abs() < 1e-18);
        assert_eq!(m("throughput").unit, Quantity::Rate("MB/s".into()));
        assert_eq!(m("energy").unit, Quantity::Other("joules".into()));
        assert_eq!(m("instructions").values, vec![1e9]);
        assert_eq!(s.metrics.len(), 6);
        // The times alone, as before.
        assert_eq!(parse_samples(text).unwrap(), secs(&[2e-3, 3e-3]));
        // A file without metric lines has none.
        assert!(read_samples("{\"value\": 1}").unwrap().metrics.is_empty());
    }

    #[test]
    fn a_program_may_report_metrics_without_iteration_times() {
        let s = read_samples("{\"metric\": \"allocations\", \"value\": 7}\n").unwrap();
        assert!(s.values.is_empty());
        assert_eq!(s.resolution, None);
        assert_eq!(s.metrics["allocations"].values, vec![7.0]);
    }

    #[test]
    fn bad_metric_lines_name_the_line_and_the_shape_meant() {
        let err = |text: &str| read_samples(text).unwrap_err();
        let expected = r#"(expected {"metric": "allocations", "value": 1234, "unit": "count"})"#;
        for bad in [
            "{\"metric\": \"allocations\"}",
            "{\"metric\": \"allocations\", \"value\": \"many\"}",
            "{\"metric\": \"allocations\", \"value\": 1, \"colour\": \"red\"}",
            "{\"metric\": 3, \"value\": 1}",
        ] {
            let e = err(&format!("{{\"value\": 1}}\n\n{bad}"));
            assert!(
                matches!(e, ProtocolError::MalformedMetric { line: 3, .. }),
                "{bad}: {e}"
            );
            assert!(e.to_string().starts_with("line 3: "), "{e}");
            assert!(e.to_string().ends_with(expected), "{e}");
        }
        // Time lines keep their own shape in their errors.
        let e = err("{\"value\": \"x\"}");
        assert!(e.to_string().ends_with(EXPECTED), "{e}");

        let e = err("{\"metric\": \"a b\", \"value\": 1}");
        assert!(
            matches!(&e, ProtocolError::InvalidMetric { line: 1, name, .. } if name == "a b"),
            "{e}"
        );
        assert!(e.to_string().contains("is not a metric"), "{e}");
        for own in [
            "wall",
            "time",
            "cpu",
            "user",
            "sys",
            "peak-memory",
            "maxrss",
        ] {
            let e = err(&format!("{{\"metric\": \"{own}\", \"value\": 1}}"));
            assert!(
                matches!(&e, ProtocolError::InvalidMetric { line: 1, name, .. } if name == own),
                "{own}: {e}"
            );
            assert_eq!(e.line(), Some(1));
        }
        assert!(
            err("{\"metric\": \"wall\", \"value\": 1}")
                .to_string()
                .contains("iteration lines"),
        );

        // Finite in its base unit.
        let e = err("{\"metric\": \"heap\", \"value\": 1e308, \"unit\": \"GiB\"}");
        assert!(
            matches!(e, ProtocolError::InvalidMetricValue { line: 1, .. }),
            "{e}"
        );
        // One kind of quantity per metric: bytes, then a time.
        let e = err("{\"metric\": \"heap\", \"value\": 1, \"unit\": \"KiB\"}\n\
                     {\"metric\": \"heap\", \"value\": 1, \"unit\": \"ms\"}");
        assert_eq!(
            e.to_string(),
            "line 2: heap in 'ms' (s), but an earlier line gave it as B"
        );
        // Scales of one quantity mix freely.
        let s = read_samples(
            "{\"metric\": \"heap\", \"value\": 1, \"unit\": \"KiB\"}\n\
             {\"metric\": \"heap\", \"value\": 1, \"unit\": \"B\"}",
        )
        .unwrap();
        assert_eq!(s.metrics["heap"].values, vec![1024.0, 1.0]);
    }

    #[test]
    fn metric_writer_round_trips_and_refuses_what_rigor_would() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples.jsonl");
        let mut w = SampleWriter::open(&path).unwrap();
        w.record_duration(Duration::from_micros(3)).unwrap();
        w.record_metric(&MetricSample::count(reported("allocations"), 12.0))
            .unwrap();
        w.record_metric(&MetricSample::bytes(reported("allocated-bytes"), 4096.0))
            .unwrap();
        w.record_metric(&MetricSample::new(reported("gc"), 1.5, "ms"))
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("{\"metric\":\"allocations\",\"value\":12.0}\n"),
            "{text}"
        );
        assert!(
            text.contains("{\"metric\":\"allocated-bytes\",\"value\":4096.0,\"unit\":\"B\"}\n"),
            "{text}"
        );
        let s = read_samples(&text).unwrap();
        assert_eq!(s.values, secs(&[3e-6]));
        assert_eq!(s.metrics["allocations"].unit, Quantity::Count);
        assert_eq!(s.metrics["allocated-bytes"].unit, Quantity::Bytes);
        assert_eq!(s.metrics["gc"].values, vec![1.5e-3]);

        for own in [Metric::Wall, Metric::Cpu, Metric::PeakMemory] {
            let e = w.record_metric(&MetricSample::count(own, 1.0)).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        }
        for bad in [f64::NAN, f64::INFINITY] {
            let e = w
                .record_metric(&MetricSample::count(reported("x"), bad))
                .unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
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
