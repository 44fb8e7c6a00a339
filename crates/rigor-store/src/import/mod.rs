//! Importers: results written by other benchmarking tools, read into a [`ResultFile`] with the
//! measurement hierarchy each format keeps (see `docs/importers.md`).
//!
//! Every importer turns a foreign file into benchmarks whose samples sit at the levels the
//! format recorded — executions × iterations when it keeps processes apart (pyperf, JMH,
//! ReBench, Krun), executions only when each value is a process (hyperfine), or samples of one
//! process (criterion, Google Benchmark, BenchmarkTools). When a level was not recorded, the
//! import adds a [`Warning::LevelNotRecorded`], so the reader knows what the interval cannot
//! see. Values are converted to seconds. Errors name the file and the place (a JSON path such
//! as `results[1].times[3]`, or a line).

mod benchmarktools;
mod criterion;
mod gbench;
mod hyperfine;
mod jmh;
mod json;
mod krun;
mod pyperf;
mod rebench;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use rigor_units::{ConfidenceLevel, MetricValues, Seconds, Seed};
use serde_json::Value;

use crate::error::{Result, StoreError};
use crate::layout::{Layout, LevelKind};
use crate::schema::{BenchmarkRecord, ExecutionRecord, ResultFile, SampleRecord};
use crate::warning::Warning;

/// A file format rigor reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[non_exhaustive]
pub enum Format {
    /// rigor's own result file.
    #[cfg_attr(feature = "clap", value(help = "rigor's own result JSON"))]
    Rigor,
    /// hyperfine `--export-json`.
    #[cfg_attr(feature = "clap", value(help = "hyperfine --export-json"))]
    Hyperfine,
    /// pyperf JSON (`-o`/`--output`).
    #[cfg_attr(feature = "clap", value(help = "pyperf JSON"))]
    Pyperf,
    /// JMH `-rf json`.
    #[cfg_attr(feature = "clap", value(help = "JMH -rf json"))]
    Jmh,
    /// Google Benchmark `--benchmark_out_format=json`.
    #[cfg_attr(
        feature = "clap",
        value(help = "Google Benchmark --benchmark_out_format=json")
    )]
    GoogleBenchmark,
    /// criterion.rs `target/criterion/**/new/{sample,benchmark}.json` (a directory or a file).
    #[cfg_attr(
        feature = "clap",
        value(help = "criterion.rs target/criterion (a directory) or a new/sample.json")
    )]
    Criterion,
    /// cargo-criterion `--message-format=json` (one JSON message per line).
    #[cfg_attr(
        feature = "clap",
        value(help = "cargo-criterion --message-format=json")
    )]
    CargoCriterion,
    /// BenchmarkTools.jl `BenchmarkTools.save` JSON.
    #[cfg_attr(
        feature = "clap",
        value(name = "benchmarktools", help = "BenchmarkTools.jl save JSON")
    )]
    BenchmarkTools,
    /// A ReBench data file.
    #[cfg_attr(feature = "clap", value(help = "A ReBench data file"))]
    Rebench,
    /// A Krun results file (decompressed JSON).
    #[cfg_attr(
        feature = "clap",
        value(help = "A Krun results file (bunzip2 it first)")
    )]
    Krun,
}

impl Format {
    /// Every format, in the order sniffing tries them.
    pub const ALL: [Self; 10] = [
        Self::Rigor,
        Self::Hyperfine,
        Self::Pyperf,
        Self::Jmh,
        Self::GoogleBenchmark,
        Self::Criterion,
        Self::CargoCriterion,
        Self::BenchmarkTools,
        Self::Rebench,
        Self::Krun,
    ];

    /// The name used by `--format`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rigor => "rigor",
            Self::Hyperfine => "hyperfine",
            Self::Pyperf => "pyperf",
            Self::Jmh => "jmh",
            Self::GoogleBenchmark => "google-benchmark",
            Self::Criterion => "criterion",
            Self::CargoCriterion => "cargo-criterion",
            Self::BenchmarkTools => "benchmarktools",
            Self::Rebench => "rebench",
            Self::Krun => "krun",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A file read by an importer.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The data as a result file (unanalysed), with [`Warning::LevelNotRecorded`] warnings.
    pub result: ResultFile,
    /// The format it was read as.
    pub format: Format,
}

/// Reads `path` as `format`, or as the format its content shows when `format` is `None`.
/// A directory is read as criterion.rs output.
pub fn load(path: &Path, format: Option<Format>) -> Result<Imported> {
    let (result, format) = read(path, format)?;
    Ok(finish(result, format, path))
}

/// Reads several files given together as one result. One file is read as [`load`] reads it.
/// Several files must be of one format that measures in one process (Google Benchmark,
/// criterion, cargo-criterion, BenchmarkTools.jl): each file is one process execution of the
/// benchmarks it holds (matched by name), whose samples become that execution's iterations, so
/// the interval sees how the time varies between processes. Files of formats that record their
/// own processes (and rigor's results) are refused together, naming the file.
pub fn load_together(paths: &[PathBuf], format: Option<Format>) -> Result<Imported> {
    match paths {
        [] => Err(StoreError::import(Path::new(""), "", "no file given")),
        [one] => load(one, format),
        _ => {
            refuse_repeated(paths)?;
            let mut files: Vec<(&Path, ResultFile)> = Vec::new();
            let mut first: Option<(&Path, Format)> = None;
            for path in paths {
                let (result, f) = read(path, format)?;
                together(path, f, first)?;
                first.get_or_insert((path, f));
                files.push((path, result));
            }
            let format = first.map_or(Format::GoogleBenchmark, |(_, f)| f);
            let label = paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" + ");
            Ok(finish(merge_processes(files)?, format, Path::new(&label)))
        }
    }
}

/// Refuses a file given twice (the same file by two names, or two files of the same content):
/// read as two processes it would pass one process's measurements off as two, with a
/// zero-width interval between them.
fn refuse_repeated(paths: &[PathBuf]) -> Result<()> {
    // Each file given so far: its name, its canonical path and its content (of a file).
    type Seen<'a> = (&'a Path, Option<PathBuf>, Option<Vec<u8>>);
    let mut seen: Vec<Seen<'_>> = Vec::new();
    for path in paths {
        let canonical = std::fs::canonicalize(path).ok();
        let bytes = if path.is_file() {
            Some(std::fs::read(path).map_err(|e| StoreError::io(path, e))?)
        } else {
            None
        };
        for (other, c, b) in &seen {
            let same = if canonical.is_some() && canonical == *c {
                "is the same file as"
            } else if bytes.is_some() && bytes == *b {
                "has the same content as"
            } else {
                continue;
            };
            return Err(StoreError::import(
                path,
                "",
                format!(
                    "{same} {}: files read together are process executions each, and one \
                     measured twice would look like two that agree exactly; give each file once",
                    other.display()
                ),
            ));
        }
        seen.push((path, canonical, bytes));
    }
    Ok(())
}

/// Whether a file of format `f` can join the files read so far (`first`: the first one's path
/// and format).
fn together(path: &Path, f: Format, first: Option<(&Path, Format)>) -> Result<()> {
    if !f.one_process() {
        let merged: Vec<&str> = Format::ALL
            .iter()
            .filter(|f| f.one_process())
            .map(|f| f.name())
            .collect();
        return Err(StoreError::import(
            path,
            "",
            format!(
                "is a {f} file, which records its own process executions: several files are \
                 read together only when each is one process ({}); give this file alone",
                merged.join(", ")
            ),
        ));
    }
    match first {
        Some((p, g)) if g != f => Err(StoreError::import(
            path,
            "",
            format!(
                "is {f}, but {} is {g}: files read together must be of one format",
                p.display()
            ),
        )),
        _ => Ok(()),
    }
}

/// One result from files that each measured in one process: a benchmark's samples in the
/// `k`-th file that has it become the iterations of its `k`-th execution, and its units'
/// metrics (Google Benchmark's counters) that execution's metrics, per iteration. What each file
/// said of what it kept is kept.
fn merge_processes(files: Vec<(&Path, ResultFile)>) -> Result<ResultFile> {
    let mut merged: Vec<Merged> = Vec::new();
    let mut notes = Vec::new();
    for (path, result) in files {
        notes.extend(result.warnings.into_iter().filter(|w| {
            matches!(
                w,
                Warning::Imported {
                    note: crate::warning::ImportNote::KeptAsMetric { .. }
                        | crate::warning::ImportNote::NotTime { .. },
                    ..
                }
            )
        }));
        for b in result.benchmarks {
            if b.layout != Layout::EXECUTIONS {
                return Err(StoreError::import(
                    path,
                    "",
                    format!(
                        "'{}' has more than one level: it is not one process",
                        b.name
                    ),
                ));
            }
            let values: Vec<(f64, bool)> = b.samples.iter().map(|s| (s.value, s.warmup)).collect();
            let mut facts = Facts::default();
            for e in &b.executions {
                for (name, v) in &e.metrics {
                    facts
                        .metrics
                        .entry(name.clone())
                        .or_insert_with(|| MetricValues {
                            unit: v.unit.clone(),
                            values: Vec::new(),
                        })
                        .values
                        .extend(&v.values);
                }
            }
            match merged.iter_mut().find(|m| m.name == b.name) {
                Some(m) => {
                    m.processes.push(values);
                    m.facts.push(facts);
                }
                None => merged.push(Merged {
                    family: b.family,
                    inner: b
                        .level_names
                        .as_ref()
                        .and_then(|n| n.first().cloned())
                        .unwrap_or_else(|| "iteration".to_string()),
                    name: b.name,
                    command: b.command,
                    processes: vec![values],
                    facts: vec![facts],
                }),
            }
        }
    }
    let benchmarks = merged
        .into_iter()
        .map(|m| {
            let mut b = nested(m.name, m.command, ["execution", &m.inner], &m.processes);
            b.family = m.family;
            with_facts(&mut b, m.facts);
            b
        })
        .collect();
    let mut r = result(benchmarks);
    r.warnings = notes;
    Ok(r)
}

/// One benchmark gathered from several one-process files.
struct Merged {
    name: String,
    command: String,
    /// The benchmark it is a variant of.
    family: Option<String>,
    /// The name of the level inside a process (`repetition`, `sample`).
    inner: String,
    /// Each process's `(value, warm-up)`, in file order.
    processes: Vec<Vec<(f64, bool)>>,
    /// Each process's metrics, per iteration.
    facts: Vec<Facts>,
}

/// Reads one file without [`finish`]: the raw result and the format it was read as.
fn read(path: &Path, format: Option<Format>) -> Result<(ResultFile, Format)> {
    if path.is_dir() {
        return match format {
            None | Some(Format::Criterion) => Ok((criterion::read_dir(path)?, Format::Criterion)),
            Some(f) => Err(StoreError::import(
                path,
                "",
                format!("is a directory, not a {f} file"),
            )),
        };
    }
    let bytes = std::fs::read(path).map_err(|e| StoreError::io(path, e))?;
    parse_bytes_raw(path, bytes, format)
}

/// Parses a file's bytes as `format` (or the sniffed format), as [`load`] reads a file: gzip
/// is decompressed first (by its magic bytes, whatever the name), then the text is parsed.
pub fn parse_bytes(path: &Path, bytes: Vec<u8>, format: Option<Format>) -> Result<Imported> {
    let (result, format) = parse_bytes_raw(path, bytes, format)?;
    Ok(finish(result, format, path))
}

fn parse_bytes_raw(
    path: &Path,
    bytes: Vec<u8>,
    format: Option<Format>,
) -> Result<(ResultFile, Format)> {
    let bytes = decompressed(path, bytes)?;
    if bytes.starts_with(b"BZh") {
        return Err(StoreError::import(
            path,
            "",
            "is bzip2-compressed (a Krun results file?): decompress it first (bunzip2 -k FILE)",
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        StoreError::import(
            path,
            &format!("byte {}", e.utf8_error().valid_up_to()),
            "not UTF-8 text",
        )
    })?;
    parse_raw(path, &text, format)
}

/// The most bytes a gzip-compressed file may expand to (a result file is far smaller; this
/// stops a corrupt or hostile file from filling the memory).
const MAX_DECOMPRESSED: u64 = 1 << 30;

/// The file's bytes, decompressed when they are gzip (by the magic bytes `1f 8b`, whatever the
/// file's name: pyperf writes `.json.gz`).
fn decompressed(path: &Path, bytes: Vec<u8>) -> Result<Vec<u8>> {
    use std::io::Read;
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes.as_slice())
        .take(MAX_DECOMPRESSED + 1)
        .read_to_end(&mut out)
        .map_err(|e| {
            StoreError::import(
                path,
                "",
                format!("is gzip-compressed but cannot be read: {e}"),
            )
        })?;
    if out.len() as u64 > MAX_DECOMPRESSED {
        return Err(StoreError::import(
            path,
            "",
            "is gzip-compressed and expands to more than 1 GiB: not a result file",
        ));
    }
    Ok(out)
}

/// Parses file text as `format` (or the sniffed format); `path` names the file in errors and
/// is where a criterion `sample.json` looks for its `benchmark.json`.
pub fn parse(path: &Path, text: &str, format: Option<Format>) -> Result<Imported> {
    let (result, format) = parse_raw(path, text, format)?;
    Ok(finish(result, format, path))
}

fn parse_raw(path: &Path, text: &str, format: Option<Format>) -> Result<(ResultFile, Format)> {
    let format = match format {
        Some(f) => f,
        None => sniff(path, text)?,
    };
    let result = match format {
        Format::Rigor => crate::file::parse(path, text)?,
        Format::CargoCriterion => criterion::read_messages(path, text)?,
        Format::Rebench => rebench::read(path, text)?,
        _ => {
            let value: Value =
                serde_json::from_str(text).map_err(|e| StoreError::json(path, &e))?;
            let root = json::Node::root(path, &value);
            match format {
                Format::Hyperfine => hyperfine::read(path, root)?,
                Format::Pyperf => pyperf::read(root)?,
                Format::Jmh => jmh::read(root)?,
                Format::GoogleBenchmark => gbench::read(root)?,
                Format::Criterion => criterion::read_sample(path, root)?,
                Format::BenchmarkTools => benchmarktools::read(root)?,
                Format::Krun => krun::read(root)?,
                Format::Rigor | Format::CargoCriterion | Format::Rebench => unreachable!(),
            }
        }
    };
    let mut result = result;
    if format != Format::Rigor {
        number_repeated(&mut result.benchmarks);
    }
    if format != Format::Rigor
        && let Some(b) = result
            .benchmarks
            .iter()
            .find(|b| b.samples.iter().all(|s| s.warmup) && b.failures.is_empty())
    {
        // A benchmark with nothing measured and no failure to say why would be reported as a
        // run stopped before its first execution, which an import never was.
        return Err(StoreError::import(
            path,
            "",
            format!(
                "benchmark '{}' holds no measured value (only warm-ups, or an empty list)",
                b.name
            ),
        ));
    }
    if result.benchmarks.is_empty() && format != Format::Rigor {
        // Nothing to analyse or store: say so rather than report or store nothing.
        return Err(StoreError::import(
            path,
            "",
            format!("is a {format} file without a measured benchmark (every one failed?)"),
        ));
    }
    Ok((result, format))
}

/// Numbers benchmarks of the same name (`./p #1`, `./p #2`), as `rigor run` names a command
/// given twice: hyperfine given one command twice (an A/A run), or JMH one method in two modes,
/// writes two results of one name, which would be compared with each other as if one, and
/// matched at random by `rigor compare`.
///
/// Where every benchmark of the name has parameters (hyperfine's `-n NAME -L x 1,2` without
/// `{x}` in the name) and no two share them, each is named by them instead, as `rigor run`
/// names them: `NAME (x = 1)`.
fn number_repeated(benchmarks: &mut [BenchmarkRecord]) {
    let all: Vec<String> = benchmarks.iter().map(|b| b.name.clone()).collect();
    let described: Vec<String> = benchmarks
        .iter()
        .map(|b| {
            b.parameters
                .iter()
                .map(|(k, v)| format!("{k} = {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    let by_parameters = |name: &str| {
        let same: Vec<&String> = all
            .iter()
            .zip(&described)
            .filter(|(n, _)| *n == name)
            .map(|(_, d)| d)
            .collect();
        same.iter().all(|d| !d.is_empty())
            && same.iter().enumerate().all(|(i, d)| !same[..i].contains(d))
    };
    for (i, b) in benchmarks.iter_mut().enumerate() {
        if all.iter().filter(|n| **n == all[i]).count() > 1 {
            if by_parameters(&all[i]) {
                b.name = format!("{} ({})", all[i], described[i]);
            } else {
                let k = all[..=i].iter().filter(|n| **n == all[i]).count();
                b.name = format!("{} #{k}", all[i]);
            }
        }
    }
}

/// Which format the text is, from its content.
pub fn sniff(path: &Path, text: &str) -> Result<Format> {
    if text.trim().is_empty() {
        return Err(StoreError::import(path, "", "is empty"));
    }
    let unknown = || {
        StoreError::import(
            path,
            "",
            format!(
                "not a format rigor reads (a rigor result, or with --format: {})",
                Format::ALL[1..]
                    .iter()
                    .map(|f| f.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    };
    match serde_json::from_str::<Value>(text) {
        Ok(v) => sniff_json(&v).ok_or_else(unknown),
        Err(e) => {
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            if first.trim_start().starts_with('{')
                && serde_json::from_str::<Value>(first).is_ok_and(|v| v.get("reason").is_some())
            {
                Ok(Format::CargoCriterion)
            } else if rebench::looks_like(text) {
                Ok(Format::Rebench)
            } else if first.trim_start().starts_with('{') && torn_rigor(text) {
                // A rigor result cut short by a crash or a full disk: rigor's reader repairs it.
                Ok(Format::Rigor)
            } else if first.trim_start().starts_with(['{', '[']) {
                // JSON of no known shape that does not even parse: say where it breaks.
                Err(StoreError::json(path, &e))
            } else {
                Err(unknown())
            }
        }
    }
}

/// Whether text that does not parse is a rigor result cut short: its header's
/// `schema_version` and the `log` an unfinished run appends to.
fn torn_rigor(text: &str) -> bool {
    text.contains("\"schema_version\"") && text.contains("\"log\": [")
}

fn sniff_json(v: &Value) -> Option<Format> {
    let has = |k: &str| v.get(k).is_some();
    if let Some(items) = v.as_array() {
        let first = items.first()?;
        if first.get("primaryMetric").is_some() {
            return Some(Format::Jmh);
        }
        if first.get("BenchmarkTools").is_some() {
            return Some(Format::BenchmarkTools);
        }
        return None;
    }
    if has("schema_version") {
        Some(Format::Rigor)
    } else if v["results"].as_array().is_some_and(|r| {
        r.iter()
            .all(|x| x.get("times").is_some() || x.get("command").is_some())
    }) && has("results")
    {
        Some(Format::Hyperfine)
    } else if has("context") && has("benchmarks") {
        Some(Format::GoogleBenchmark)
    } else if has("benchmarks") && (has("version") || has("metadata")) {
        Some(Format::Pyperf)
    } else if has("iters") && has("times") {
        Some(Format::Criterion)
    } else if has("wallclock_times") {
        Some(Format::Krun)
    } else if has("reason") {
        Some(Format::CargoCriterion)
    } else {
        None
    }
}

/// The longest time an importer accepts as one measured value, in seconds: 10⁹ s, about 32
/// years. No benchmark's execution, iteration or repetition lasts decades, so a larger value is a
/// corrupt or hand-edited file (or a unit mix-up); and with every value below it, the sums the
/// analysis forms (means, variances: squares up to 10¹⁸) stay far from overflowing, so a report
/// never shows a 300-digit mean or `± inf s`.
pub const MAX_SECONDS: f64 = 1e9;

/// Why `seconds` (a time read from a file, in seconds) is not a plausible duration, or `None`
/// when it is: the one check every importer applies to every time it reads.
pub(crate) fn implausible(seconds: f64) -> Option<String> {
    if !seconds.is_finite() {
        Some(format!("time {seconds} s is not a finite duration"))
    } else if seconds > MAX_SECONDS {
        Some(format!(
            "time {seconds:e} s is not a plausible duration (more than 10⁹ s, about 32 years): \
             a corrupt file or a wrong unit?"
        ))
    } else {
        None
    }
}

/// Rounds of the `i`-th imported benchmark start here: other tools measure benchmarks one after
/// another, not in shared rounds, so no two imported benchmarks are paired by round.
const ROUNDS_APART: usize = 1_000_000;

/// Sets each benchmark's rounds apart and adds the warnings of levels the format did not record
/// (rigor's own results are returned as they are).
fn finish(mut result: ResultFile, format: Format, path: &Path) -> Imported {
    if format == Format::Rigor {
        return Imported { result, format };
    }
    result.provenance.imported_from = Some(format.name().to_string());
    // A file that records the rounds its commands shared keeps them (rigor's own hyperfine
    // export of an interleaved run).
    let shared = result.warnings.iter().any(|w| {
        matches!(
            w,
            Warning::Imported {
                note: crate::warning::ImportNote::RoundsShared,
                ..
            }
        )
    });
    for (i, b) in result.benchmarks.iter_mut().enumerate().filter(|_| !shared) {
        for s in &mut b.samples {
            s.round += i * ROUNDS_APART;
        }
        for f in &mut b.failures {
            f.round += i * ROUNDS_APART;
        }
    }
    for b in &result.benchmarks {
        let processes: std::collections::BTreeSet<usize> = if b.layout.has_iterations() {
            b.samples.iter().map(|s| s.execution).collect()
        } else {
            [0].into()
        };
        let one_process = !b.layout.has_iterations() && format.one_process()
            || b.layout.has_iterations() && processes.len() == 1;
        if one_process {
            result.warnings.push(Warning::LevelNotRecorded {
                file: path.display().to_string(),
                format: format.name().to_string(),
                benchmark: b.name.clone(),
                level: LevelKind::Execution,
            });
        }
    }
    Imported { result, format }
}

impl Format {
    /// Whether every sample of a benchmark in a file of this format comes from one process
    /// (several such files are read together as processes by [`load_together`]).
    pub fn one_process(self) -> bool {
        matches!(
            self,
            Self::Criterion | Self::CargoCriterion | Self::GoogleBenchmark | Self::BenchmarkTools
        )
    }
}

/// An empty result to fill with imported benchmarks.
fn result(benchmarks: Vec<BenchmarkRecord>) -> ResultFile {
    ResultFile {
        benchmarks,
        ..ResultFile::new(Seed(0), ConfidenceLevel::NINETY_FIVE)
    }
}

/// A benchmark whose values are the top-level units (`level` names them: `execution`,
/// `sample`, `repetition`), in seconds.
fn flat(name: String, command: String, level: &str, values: &[f64]) -> BenchmarkRecord {
    let mut b = BenchmarkRecord::new(name, command, Layout::EXECUTIONS);
    if level != "execution" {
        b.level_names = Some(vec![level.to_string()]);
    }
    b.samples = values
        .iter()
        .enumerate()
        .map(|(i, &value)| SampleRecord {
            build: None,
            round: i,
            execution: i,
            iteration: 0,
            value,
            warmup: false,
        })
        .collect();
    b
}

/// A benchmark of processes × iterations: `(value in seconds, warm-up)` per iteration.
fn nested(
    name: String,
    command: String,
    names: [&str; 2],
    processes: &[Vec<(f64, bool)>],
) -> BenchmarkRecord {
    let mut b = BenchmarkRecord::new(name, command, Layout::new(false, true));
    if names != ["execution", "iteration"] {
        b.level_names = Some(names.iter().map(ToString::to_string).collect());
    }
    for (e, values) in processes.iter().enumerate() {
        for (i, &(value, warmup)) in values.iter().enumerate() {
            b.samples.push(SampleRecord {
                build: None,
                round: e,
                execution: e,
                iteration: i,
                value,
                warmup,
            });
        }
    }
    b
}

/// What a format recorded of one top-level unit of a benchmark (a process, a repetition) besides
/// its times: kept in the unit's [`ExecutionRecord`], so `--metric` can analyse it.
#[derive(Debug, Clone, Default, PartialEq)]
struct Facts {
    /// Its wall time, when the format records one (else the sum of its measured values).
    wall: Option<f64>,
    /// Its peak resident set, bytes (0: not recorded).
    max_rss: u64,
    /// Its other metrics, by name, in base units.
    metrics: BTreeMap<String, MetricValues>,
}

impl Facts {
    /// Whether nothing but times was recorded.
    fn is_empty(&self) -> bool {
        self.max_rss == 0 && self.metrics.is_empty()
    }
}

/// Gives `b` one execution record per top-level unit, the `i`-th with `facts[i]`, when any unit
/// has a fact beyond its times (otherwise `b` stays as it was: imported data without
/// execution records).
fn with_facts(b: &mut BenchmarkRecord, facts: Vec<Facts>) {
    if facts.iter().all(Facts::is_empty) {
        return;
    }
    b.executions = facts
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            let wall = f.wall.unwrap_or_else(|| {
                b.samples
                    .iter()
                    .filter(|s| s.execution == i && !s.warmup)
                    .map(|s| s.value)
                    .sum()
            });
            ExecutionRecord {
                preempted: None,
                run_delay: None,
                build: None,
                round: i,
                execution: i,
                warmup: false,
                wall: Seconds::new(wall),
                // No importer's format records each unit's CPU times.
                user: Seconds::new(0.0),
                sys: Seconds::new(0.0),
                max_rss: f.max_rss,
                exit_code: None,
                env_pad: None,
                resolution: None,
                metrics: f.metrics,
            }
        })
        .collect();
}

/// The note that values of `name` were kept as `metric`.
fn kept(
    path: &Path,
    format: Format,
    name: &str,
    metric: &str,
    unit: &str,
    values: usize,
) -> Warning {
    Warning::Imported {
        file: path.display().to_string(),
        format: format.name().to_string(),
        note: crate::warning::ImportNote::KeptAsMetric {
            name: name.to_string(),
            metric: metric.to_string(),
            unit: unit.to_string(),
            values,
        },
    }
}

#[cfg(test)]
mod tests;
