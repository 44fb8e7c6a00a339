//! Writing result files as they are measured, and reading them back (finished, interrupted or
//! killed mid-write).
//!
//! While a run is going, the file is the header object with a `log` array as its last member, and
//! every record is one line just before the closing `]}`. Appending a record overwrites that tail
//! with the record and a new tail, so each execution costs one small write and the file is valid
//! JSON between writes. A run killed in the middle of a write leaves at most one torn line, which
//! [`load`] drops. At the end the whole file is replaced atomically by its final form.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::{Result, StoreError};
use crate::schema::{LogEntry, ResultFile, RunStatus, SCHEMA_VERSION, SampleRecord};

const TAIL: &[u8] = b"\n]}\n";

/// Appends log records to a result file as they are measured.
#[derive(Debug)]
pub struct IncrementalWriter {
    path: PathBuf,
    file: File,
    /// Offset where the tail starts (where the next record goes).
    end: u64,
    first: bool,
}

impl IncrementalWriter {
    /// Creates (or truncates) `path` and writes `header` (its `log` must be empty) as a running file.
    pub fn create(path: &Path, header: &ResultFile) -> Result<Self> {
        let mut header = header.clone();
        header.status = RunStatus::Running;
        header.log.clear();
        let mut text =
            serde_json::to_string_pretty(&header).map_err(|e| StoreError::json(path, &e))?;
        // Reopen the object to add the log as its last member.
        text.truncate(text.trim_end().len() - 1);
        text.push_str(",\n\"log\": [");
        let mut file = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .open(path)
            .map_err(|e| StoreError::io(path, e))?;
        file.write_all(text.as_bytes())
            .and_then(|()| file.write_all(TAIL))
            .map_err(|e| StoreError::io(path, e))?;
        Ok(Self {
            path: path.to_path_buf(),
            file,
            end: text.len() as u64,
            first: true,
        })
    }

    /// Appends one record.
    pub fn append(&mut self, entry: &LogEntry) -> Result<()> {
        let mut line = Vec::with_capacity(256);
        line.extend_from_slice(if self.first { b"\n" } else { b",\n" });
        serde_json::to_writer(&mut line, entry).map_err(|e| StoreError::json(&self.path, &e))?;
        let len = line.len() as u64;
        line.extend_from_slice(TAIL);
        // One positioned write per record: this runs between executions, so it is kept minimal.
        self.file
            .write_all_at(&line, self.end)
            .map_err(|e| StoreError::io(&self.path, e))?;
        self.end += len;
        self.first = false;
        Ok(())
    }

    /// Replaces the file with its final form (atomically: temporary file, then rename).
    pub fn finish(self, result: &ResultFile) -> Result<()> {
        drop(self.file);
        save(&self.path, result)
    }
}

/// Writes a result file atomically.
pub fn save(path: &Path, result: &ResultFile) -> Result<()> {
    let text = to_json(result).map_err(|e| StoreError::json(path, &e))?;
    write_atomic(path, text.as_bytes())
}

/// Pretty JSON of a result, as saved.
pub fn to_json(result: &ResultFile) -> serde_json::Result<String> {
    let mut text = serde_json::to_string_pretty(result)?;
    text.push('\n');
    Ok(text)
}

/// Writes bytes to `path` via a temporary file in the same directory and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    fs::write(&tmp, bytes).map_err(|e| StoreError::io(&tmp, e))?;
    fs::rename(&tmp, path).map_err(|e| StoreError::io(path, e))
}

/// Reads a result file: finished, interrupted, or left running by a killed process (a torn last
/// line is dropped). The `log` of an unfinished file is folded into the benchmarks' raw data.
pub fn load(path: &Path) -> Result<ResultFile> {
    let text = fs::read_to_string(path).map_err(|e| StoreError::io(path, e))?;
    parse(path, &text)
}

/// Parses result-file text; `path` is only used in errors. Version 1 files are migrated
/// ([`crate::v1`]); files of a newer schema are refused.
pub fn parse(path: &Path, text: &str) -> Result<ResultFile> {
    #[derive(serde::Deserialize)]
    struct Version {
        schema_version: u32,
    }
    let repaired;
    let mut cut = None;
    let text = match serde_json::from_str::<Version>(text) {
        Ok(_) => text,
        Err(e) => {
            let (whole, what) = repair_torn(text).ok_or_else(|| StoreError::json(path, &e))?;
            repaired = whole;
            cut = Some(what);
            repaired.as_str()
        }
    };
    let version = serde_json::from_str::<Version>(text)
        .map_err(|e| StoreError::json(path, &e))?
        .schema_version;
    if version > SCHEMA_VERSION {
        return Err(StoreError::SchemaVersion {
            path: path.to_path_buf(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    let mut result = if version <= 1 {
        let mut doc: serde_json::Value =
            serde_json::from_str(text).map_err(|e| StoreError::json(path, &e))?;
        crate::v1::migrate(&mut doc);
        serde_json::from_value::<ResultFile>(doc).map_err(|e| StoreError::Migration {
            path: path.to_path_buf(),
            from: version,
            message: e.to_string(),
        })?
    } else {
        // The member's path beside the line and column: a file written on one line (a script's
        // json.dump) read "1:2982: invalid type".
        serde_path_to_error::deserialize::<_, ResultFile>(&mut serde_json::Deserializer::from_str(
            text,
        ))
        .map_err(|e| StoreError::json_at(path, e.path().to_string(), e.inner()))?
    };
    fold_log(&mut result);
    check_values(path, &result)?;
    check_duplicates(path, &result)?;
    if let Some(cut) = cut {
        result.warnings.push(crate::Warning::Repaired {
            file: path.display().to_string(),
            cut,
        });
    }
    Ok(result)
}

/// Refuses a sample recorded twice — the same unit path (build, execution, iteration) of one
/// benchmark — which would be counted twice and narrow the interval (a file concatenated or
/// edited by hand). The long CSV refuses the same. Names the benchmark and both records.
fn check_duplicates(path: &Path, result: &ResultFile) -> Result<()> {
    for (i, b) in result.benchmarks.iter().enumerate() {
        let mut seen = std::collections::HashMap::with_capacity(b.samples.len());
        for (j, s) in b.samples.iter().enumerate() {
            let key = (s.build, s.execution, s.iteration, s.warmup);
            if let Some(first) = seen.insert(key, j) {
                let build = s.build.map_or(String::new(), |k| format!("build {k}, "));
                return Err(StoreError::import(
                    path,
                    &format!("benchmark {} ('{}'), sample {j}", i + 1, b.name),
                    format!(
                        "the same measurement as sample {first} ({build}execution {}, iteration \
                         {}): a sample recorded twice would be counted twice",
                        s.execution, s.iteration
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Longest time a sample may claim, in seconds (about 32 years): anything longer is not a
/// measurement, and would overflow the statistics into infinities.
const LONGEST_TIME: f64 = 1e9;

/// Refuses samples that cannot be times: negative, or longer than [`LONGEST_TIME`] (the
/// importers refuse the same in other tools' files). Names the benchmark and the sample.
fn check_values(path: &Path, result: &ResultFile) -> Result<()> {
    for (i, b) in result.benchmarks.iter().enumerate() {
        for (j, sample) in b.samples.iter().enumerate() {
            let seconds = b.unit.to_seconds(sample.value);
            let problem = if seconds < 0.0 {
                "negative time (differences of times are read from a CSV with --allow-negative)"
            } else if seconds > LONGEST_TIME || seconds.is_nan() {
                "not a time: longer than 10⁹ s"
            } else {
                continue;
            };
            let v = sample.value;
            let shown = if v.abs() < 1e6 {
                v.to_string()
            } else {
                format!("{v:e}")
            };
            return Err(StoreError::import(
                path,
                &format!("benchmark {} ('{}'), sample {j}", i + 1, b.name),
                format!("{shown} {}: {problem}", b.unit),
            ));
        }
        // The executions' own times (what contention and the exports read) are checked too: an
        // edited wall of -1 s went unsaid.
        for (k, e) in b.executions.iter().enumerate() {
            let times = [
                ("wall", Some(e.wall)),
                ("user", Some(e.user)),
                ("sys", Some(e.sys)),
                ("run_delay", e.run_delay),
            ];
            for (what, t) in times {
                let Some(t) = t.map(rigor_units::Seconds::get) else {
                    continue;
                };
                if !(0.0..=LONGEST_TIME).contains(&t) {
                    return Err(StoreError::import(
                        path,
                        &format!("benchmark {} ('{}'), execution {k}", i + 1, b.name),
                        format!("{what} {t} s: not a time (negative, or longer than 10⁹ s)"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A killed writer (or a full disk) may leave a partial last record and no tail: drop lines
/// from the end until the text closes into a valid document. Returns the document and what was
/// cut, in words.
fn repair_torn(text: &str) -> Option<(String, String)> {
    if !text.contains("\"log\": [") {
        return None;
    }
    let mut lines: Vec<&str> = text.lines().collect();
    let mut dropped: Vec<&str> = Vec::new();
    for _ in 0..3 {
        while lines
            .last()
            .is_some_and(|l| l.trim().is_empty() || l.trim() == "]}")
        {
            lines.pop();
        }
        let body = lines.join("\n");
        let candidate = format!("{}\n]}}", body.trim_end().trim_end_matches(','));
        if serde_json::from_str::<serde::de::IgnoredAny>(&candidate).is_ok() {
            let closed = text.trim_end().ends_with("]}");
            let mut what = Vec::new();
            if !dropped.is_empty() {
                let bytes: usize = dropped.iter().map(|l| l.len()).sum();
                what.push(format!(
                    "a torn last record ({bytes} bytes: {})",
                    shorten(dropped.last().copied().unwrap_or_default())
                ));
            }
            if !closed {
                what.push("the missing closing `]}`".to_string());
            }
            return Some((candidate, what.join(" and ")));
        }
        dropped.push(lines.pop()?);
    }
    None
}

/// The start of a dropped line, as a message quotes it.
fn shorten(line: &str) -> String {
    let line = line.trim();
    match line.char_indices().nth(40) {
        Some((at, _)) => format!("`{}…`", &line[..at]),
        None => format!("`{line}`"),
    }
}

/// Moves log records into the benchmarks' samples, executions and failures.
pub fn fold_log(result: &mut ResultFile) {
    for entry in std::mem::take(&mut result.log) {
        match entry {
            LogEntry::Execution {
                benchmark,
                record,
                iterations,
                discarded,
            } => {
                let Some(b) = result.benchmarks.get_mut(benchmark) else {
                    continue;
                };
                if iterations.is_some() {
                    b.layout = b.layout.with_iterations();
                }
                if record.build.is_some() {
                    b.layout = b.layout.with_builds();
                }
                match iterations {
                    Some(values) => {
                        b.samples
                            .extend(
                                values
                                    .into_iter()
                                    .enumerate()
                                    .map(|(i, value)| SampleRecord {
                                        build: record.build,
                                        round: record.round,
                                        execution: record.execution,
                                        iteration: i,
                                        value,
                                        warmup: record.warmup || i < discarded,
                                    }),
                            )
                    }
                    None => b.samples.push(SampleRecord {
                        build: record.build,
                        round: record.round,
                        execution: record.execution,
                        iteration: 0,
                        value: record.wall.get(),
                        warmup: record.warmup,
                    }),
                }
                b.executions.push(record);
            }
            LogEntry::Build { benchmark, record } => {
                if let Some(b) = result.benchmarks.get_mut(benchmark) {
                    b.builds.push(record);
                }
            }
            LogEntry::Failure { benchmark, record } => {
                if let Some(b) = result.benchmarks.get_mut(benchmark) {
                    b.failures.push(record);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn samples_that_cannot_be_times_are_refused_naming_the_place() {
        let mut r = ResultFile::new(Seed(1), rigor_units::ConfidenceLevel::NINETY_FIVE);
        let mut b = BenchmarkRecord::new("b", "b".to_string(), crate::Layout::EXECUTIONS);
        for (i, v) in [0.01, -0.0114, 1e308].into_iter().enumerate() {
            b.samples.push(SampleRecord {
                build: None,
                round: i,
                execution: i,
                iteration: 0,
                value: v,
                warmup: false,
            });
        }
        r.benchmarks.push(b);
        let text = crate::to_json(&r).unwrap();
        let e = parse(Path::new("r.json"), &text).unwrap_err().to_string();
        assert!(
            e.starts_with("r.json: benchmark 1 ('b'), sample 1: -0.0114 s: negative time"),
            "{e}"
        );
        r.benchmarks[0].samples.remove(1);
        let text = crate::to_json(&r).unwrap();
        let e = parse(Path::new("r.json"), &text).unwrap_err().to_string();
        assert!(e.contains("sample 1: 1e308 s: not a time"), "{e}");
        r.benchmarks[0].samples.remove(1);
        assert!(parse(Path::new("r.json"), &crate::to_json(&r).unwrap()).is_ok());
    }

    use super::*;
    use crate::layout::Layout;
    use crate::schema::{BenchmarkRecord, ExecutionRecord, FailureRecord, FailureStage};
    use rigor_units::{ConfidenceLevel, Seconds, Seed};

    fn header() -> ResultFile {
        ResultFile {
            benchmarks: vec![BenchmarkRecord::new("a", "a", Layout::new(false, true))],
            ..ResultFile::new(Seed(42), ConfidenceLevel::NINETY_FIVE)
        }
    }

    fn exec(execution: usize, iterations: Option<Vec<f64>>) -> LogEntry {
        LogEntry::Execution {
            benchmark: 0,
            record: ExecutionRecord {
                preempted: None,
                run_delay: None,
                metrics: Default::default(),
                build: None,
                env_pad: None,
                round: execution,
                execution,
                warmup: false,
                wall: Seconds(1.0),
                user: Seconds(0.5),
                sys: Seconds(0.1),
                max_rss: 10,
                exit_code: None,
                resolution: None,
            },
            iterations,
            discarded: 1,
        }
    }

    #[test]
    fn every_intermediate_file_is_readable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let mut w = IncrementalWriter::create(&path, &header()).unwrap();
        assert_eq!(load(&path).unwrap().status, RunStatus::Running);
        w.append(&exec(0, Some(vec![3.0, 2.0]))).unwrap();
        w.append(&LogEntry::Failure {
            benchmark: 0,
            record: FailureRecord {
                stage: FailureStage::Command,
                round: 1,
                execution: 1,
                warmup: false,
                number: Some(1),
                exit_code: Some(2),
                signal: None,
                timed_out: false,
                stderr_tail: "x\n\"y".into(),
                reason: "r".into(),
            },
        })
        .unwrap();
        let r = load(&path).unwrap();
        let b = &r.benchmarks[0];
        assert_eq!(b.samples.len(), 2);
        assert!(b.samples[0].warmup && !b.samples[1].warmup);
        assert_eq!(b.failures[0].stderr_tail, "x\n\"y");
        let mut done = r.clone();
        done.status = RunStatus::Complete;
        w.finish(&done).unwrap();
        assert_eq!(load(&path).unwrap(), done);
    }

    #[test]
    fn reported_metrics_survive_the_log_the_final_file_and_a_reread() {
        use rigor_units::{Metric, MetricValues, Quantity};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let with_metrics = |execution: usize| {
            let mut entry = exec(execution, Some(vec![3.0, 2.0]));
            if let LogEntry::Execution { record, .. } = &mut entry {
                record.metrics.insert(
                    "allocations".into(),
                    MetricValues {
                        unit: Quantity::Count,
                        values: vec![10.0 + execution as f64, 20.0],
                    },
                );
                record.metrics.insert(
                    "heap".into(),
                    MetricValues {
                        unit: Quantity::Bytes,
                        values: vec![4096.0],
                    },
                );
            }
            entry
        };
        let mut w = IncrementalWriter::create(&path, &header()).unwrap();
        w.append(&with_metrics(0)).unwrap();
        w.append(&with_metrics(1)).unwrap();
        // While running (and so after a kill): the log's records keep them.
        let running = load(&path).unwrap();
        let metrics = &running.benchmarks[0].executions[1].metrics;
        assert_eq!(metrics["allocations"].values, vec![11.0, 20.0]);
        assert_eq!(metrics["heap"].unit, Quantity::Bytes);
        // The final file, and what `rigor analyze` reads back from it.
        let mut done = running.clone();
        done.status = RunStatus::Complete;
        w.finish(&done).unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            json["benchmarks"][0]["executions"][1]["metrics"],
            serde_json::json!({
                "allocations": {"unit": "count", "values": [11.0, 20.0]},
                "heap": {"unit": "B", "values": [4096.0]},
            })
        );
        let reread = load(&path).unwrap();
        assert_eq!(reread, done);
        let b = &reread.benchmarks[0];
        assert!(
            b.metrics()
                .contains(&Metric::Reported("allocations".into()))
        );
        let allocations = b
            .for_metric(&Metric::Reported("allocations".into()))
            .unwrap();
        let values: Vec<f64> = allocations.samples.iter().map(|s| s.value).collect();
        assert_eq!(values, vec![10.0, 20.0, 11.0, 20.0]);
        // An execution without metrics writes none.
        let mut plain = IncrementalWriter::create(&path, &header()).unwrap();
        plain.append(&exec(0, None)).unwrap();
        assert!(!fs::read_to_string(&path).unwrap().contains("metrics"));
    }

    #[test]
    fn torn_last_line_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let mut w = IncrementalWriter::create(&path, &header()).unwrap();
        w.append(&exec(0, None)).unwrap();
        w.append(&exec(1, None)).unwrap();
        drop(w);
        let text = fs::read_to_string(&path).unwrap();
        let cut = text.rfind("\"wall\"").unwrap();
        fs::write(&path, &text[..cut]).unwrap();
        let r = load(&path).unwrap();
        assert_eq!(r.benchmarks[0].executions.len(), 1);
        assert_eq!(r.benchmarks[0].samples[0].value, 1.0);
        // What was cut is said, as a warning of the result.
        let said = r
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].contains("r.json was cut short"), "{said:?}");
        assert!(said[0].contains("a torn last record ("), "{said:?}");
        assert!(said[0].contains("the missing closing `]}`"), "{said:?}");
        // Only the tail missing (killed between writes, or a disk full at the tail).
        let tail = text.rfind("\n]}").unwrap();
        fs::write(&path, &text[..tail]).unwrap();
        let r = load(&path).unwrap();
        assert_eq!(r.benchmarks[0].executions.len(), 2);
        let said = r.warnings[0].to_string();
        assert!(said.contains("dropping the missing closing `]}`"), "{said}");
        assert!(!said.contains("torn"), "{said}");
        // A whole file is read without a word.
        fs::write(&path, &text).unwrap();
        assert!(load(&path).unwrap().warnings.is_empty());
    }

    #[test]
    fn a_sample_recorded_twice_is_refused_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let mut r = header();
        let mut w = IncrementalWriter::create(&path, &r).unwrap();
        w.append(&exec(0, Some(vec![1.0, 2.0]))).unwrap();
        w.append(&exec(0, Some(vec![1.0, 2.0]))).unwrap();
        drop(w);
        let e = load(&path).unwrap_err().to_string();
        assert!(e.contains("benchmark 1 ('a'), sample 2"), "{e}");
        assert!(
            e.contains("the same measurement as sample 0 (execution 0, iteration 0)"),
            "{e}"
        );
        r.benchmarks[0].samples = Vec::new();
        assert!(check_duplicates(&path, &r).is_ok());
    }

    /// An execution's own times are checked as its samples are: an edited wall of -1 s had
    /// gone unsaid (only the samples were read).
    #[test]
    fn an_executions_times_that_are_not_times_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let mut r = header();
        if let LogEntry::Execution { record, .. } = exec(0, None) {
            r.benchmarks[0].executions.push(record);
        }
        save(&path, &r).unwrap();
        assert!(load(&path).is_ok());
        r.benchmarks[0].executions[0].wall = Seconds(-1.0);
        save(&path, &r).unwrap();
        let msg = load(&path).unwrap_err().to_string();
        assert!(
            msg.ends_with("benchmark 1 ('a'), execution 0: wall -1 s: not a time (negative, or longer than 10⁹ s)"),
            "{msg}"
        );
    }

    #[test]
    fn errors_name_file_and_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.json");
        fs::write(&path, "{\n  \"schema_version\": 1,\n  oops\n}").unwrap();
        let msg = load(&path).unwrap_err().to_string();
        assert!(msg.contains("bad.json:3:"), "{msg}");
        // A value of the wrong type is named by its member, not only by line and column (a
        // file written on one line read "1:2982").
        let mut one_line = serde_json::to_value(header()).unwrap();
        one_line["confidence"] = serde_json::json!("fast");
        fs::write(&path, one_line.to_string()).unwrap();
        let msg = load(&path).unwrap_err().to_string();
        assert!(
            msg.contains("bad.json:1:")
                && msg.contains(": confidence: invalid type: string \"fast\""),
            "{msg}"
        );
        let mut newer = header();
        newer.schema_version = 99;
        save(&path, &newer).unwrap();
        assert!(matches!(
            load(&path),
            Err(StoreError::SchemaVersion { found: 99, .. })
        ));
        assert!(matches!(
            load(&dir.path().join("missing.json")),
            Err(StoreError::Io { .. })
        ));
    }
}
