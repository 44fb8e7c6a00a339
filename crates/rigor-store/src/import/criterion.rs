//! criterion.rs: `target/criterion/<benchmark>/new/sample.json` holds `iters` (iterations per
//! sample) and `times` (nanoseconds per sample); `benchmark.json` beside it names the benchmark
//! (`full_id`). cargo-criterion `--message-format=json` writes one JSON message per line; a
//! `benchmark-complete` message holds `iteration_count` and `measured_values` in `unit`. Each
//! sample becomes its time per iteration; every sample ran in one process. A baseline saved with
//! `--save-baseline NAME` is `<benchmark>/NAME/` beside `new/`: given itself, it is read.
//! criterion prints the slope of its regression as `time:` (linear sampling), rigor the mean
//! time per iteration (its `estimates.json` `mean`): a warning says so. A benchmark's family is
//! its group (`group_id`): the functions and inputs of one `benchmark_group`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::json::Node;
use super::{flat, result};
use crate::error::{Result, StoreError};
use crate::schema::{BenchmarkRecord, ResultFile};

/// Per-iteration times in seconds from counts and totals in `unit`.
fn per_iteration(
    counts: &Node<'_>,
    totals: &Node<'_>,
    to_seconds: impl Fn(f64) -> f64,
) -> Result<Vec<f64>> {
    let (counts_at, totals_at) = (counts, totals);
    let counts = counts.items()?;
    let totals = totals.items()?;
    if counts.len() != totals.len() {
        // Said of the list, not of its first value (it read "times[0]: 50 counts for 49 values").
        return Err(totals_at.err(format!(
            "{} value{}, where {} has {} (a count and a value per sample)",
            totals.len(),
            if totals.len() == 1 { "" } else { "s" },
            counts_at.place(),
            counts.len()
        )));
    }
    counts
        .iter()
        .zip(&totals)
        .map(|(n, t)| t.seconds(to_seconds(t.time()? / n.count()?)))
        .collect()
}

/// A `sample.json` (its `benchmark.json` beside it names it).
pub(super) fn read_sample(path: &Path, root: Node<'_>) -> Result<ResultFile> {
    Ok(noted(path, vec![sample_benchmark(path, root)?]))
}

/// The result of the benchmarks read, each with whether criterion printed its slope, with the
/// warning that the time criterion printed is not the mean rigor shows.
fn noted(path: &Path, read: Vec<(BenchmarkRecord, bool)>) -> ResultFile {
    let benchmarks: Vec<String> = read
        .iter()
        .filter(|(_, slope)| *slope)
        .map(|(b, _)| b.name.clone())
        .collect();
    let mut r = result(read.into_iter().map(|(b, _)| b).collect());
    if !benchmarks.is_empty() {
        r.warnings.push(crate::warning::Warning::Imported {
            file: path.display().to_string(),
            format: "criterion".to_string(),
            note: crate::warning::ImportNote::SlopeNotMean { benchmarks },
        });
    }
    r
}

/// The benchmark of a `sample.json`, and whether criterion printed its slope as its time (linear
/// sampling, the default; with `SamplingMode::Flat` it prints the mean).
fn sample_benchmark(path: &Path, root: Node<'_>) -> Result<(BenchmarkRecord, bool)> {
    let slope = root
        .opt("sampling_mode")
        .is_none_or(|m| m.value().as_str() != Some("Flat"));
    let values = per_iteration(&root.get("iters")?, &root.get("times")?, |ns| ns * 1e-9)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let (name, family) = benchmark_name(&dir.join("benchmark.json")).unwrap_or_else(|| {
        // `<name>/new/sample.json`: the benchmark's directory is above `new`.
        let d = if dir.file_name().is_some_and(|n| n == "new") {
            dir.parent().unwrap_or(dir)
        } else {
            dir
        };
        let name = d
            .file_name()
            .map_or("criterion".into(), |n| n.to_string_lossy().into_owned());
        (name, None)
    });
    let mut b = flat(name, String::new(), "sample", &values);
    b.family = family;
    Ok((b, slope))
}

/// The benchmark's name (`full_id`, else `title`) and group (`group_id`) from its
/// `benchmark.json`.
fn benchmark_name(path: &Path) -> Option<(String, Option<String>)> {
    let text = std::fs::read_to_string(path).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    let name = ["full_id", "title"]
        .iter()
        .find_map(|k| v.get(k).and_then(Value::as_str).map(str::to_string))?;
    let group = v
        .get("group_id")
        .and_then(Value::as_str)
        .map(str::to_string);
    Some((name, group))
}

/// Every `new/sample.json` under a directory (`target/criterion`, one benchmark's directory), in
/// path order; or the `sample.json` of the directory itself (its `new`, or a baseline saved with
/// `--save-baseline`).
pub(super) fn read_dir(dir: &Path) -> Result<ResultFile> {
    let mut samples = Vec::new();
    // Benchmarks whose `new/` holds a benchmark.json but no sample.json: said, not left out
    // silently (a new user's partly copied folder lost one without a word).
    let mut missing = Vec::new();
    if dir.join("sample.json").is_file() {
        samples.push(dir.join("sample.json"));
    } else {
        collect(dir, &mut samples, &mut missing, 0)?;
    }
    samples.sort();
    missing.sort();
    if samples.is_empty() {
        let why = if missing.is_empty() {
            String::new()
        } else {
            format!(
                "; {} has a benchmark.json without it: criterion writes sample.json once it has \
                 measured",
                missing
                    .iter()
                    .map(|n| format!("'{n}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        return Err(StoreError::import(
            dir,
            "",
            format!(
                "no criterion benchmark here (no sample.json in it, nor a new/sample.json below \
                 it){why}"
            ),
        ));
    }
    let mut benchmarks = Vec::new();
    for p in samples {
        let text = std::fs::read_to_string(&p).map_err(|e| StoreError::io(&p, e))?;
        let value: Value = serde_json::from_str(&text).map_err(|e| StoreError::json(&p, &e))?;
        benchmarks.push(sample_benchmark(&p, Node::root(&p, &value))?);
    }
    let mut r = noted(dir, benchmarks);
    if !missing.is_empty() {
        r.warnings.push(crate::warning::Warning::Imported {
            file: dir.display().to_string(),
            format: "criterion".to_string(),
            note: crate::warning::ImportNote::NoSamples {
                benchmarks: missing,
            },
        });
    }
    Ok(r)
}

/// Every `new/sample.json` below `dir` into `out`; the benchmarks of a `new/` with a
/// `benchmark.json` and no `sample.json` into `missing`.
fn collect(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    missing: &mut Vec<String>,
    depth: usize,
) -> Result<()> {
    let here = dir.join("sample.json");
    if dir.file_name().is_some_and(|n| n == "new") {
        if here.is_file() {
            out.push(here);
            return Ok(());
        }
        if let Some((name, _)) = benchmark_name(&dir.join("benchmark.json")) {
            missing.push(name);
            return Ok(());
        }
    }
    if depth > 8 {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| StoreError::io(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io(dir, e))?;
        let p = entry.path();
        let skip = p
            .file_name()
            .is_some_and(|n| n == "base" || n == "change" || n == "report");
        if p.is_dir() && !skip {
            collect(&p, out, missing, depth + 1)?;
        }
    }
    Ok(())
}

/// cargo-criterion's JSON messages, one per line; only `benchmark-complete` ones hold data.
pub(super) fn read_messages(path: &Path, text: &str) -> Result<ResultFile> {
    let mut benchmarks = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let place = format!("line {}", i + 1);
        let value: Value = serde_json::from_str(line).map_err(|e| {
            StoreError::import(path, &format!("{place}:{}", e.column()), e.to_string())
        })?;
        let root = Node::root(path, &value);
        let wrap = |e: StoreError| match e {
            StoreError::Import {
                path,
                place: p,
                message,
            } => StoreError::Import {
                path,
                place: format!("{place}: {p}"),
                message,
            },
            other => other,
        };
        if root.opt("reason").and_then(|r| r.value().as_str()) != Some("benchmark-complete") {
            continue;
        }
        let read = || -> Result<BenchmarkRecord> {
            let unit = root.get("unit")?;
            let scale = match unit.str()? {
                "ns" => 1e-9,
                "us" | "µs" => 1e-6,
                "ms" => 1e-3,
                "s" => 1.0,
                other => {
                    return Err(unit.err(format!("unit '{other}': rigor reads times only")));
                }
            };
            let values = per_iteration(
                &root.get("iteration_count")?,
                &root.get("measured_values")?,
                |v| v * scale,
            )?;
            let id = root.get("id")?.str()?.to_string();
            // `group/function/input`: the group is the family (an id without `/` has none).
            let family = id.split_once('/').map(|(g, _)| g.to_string());
            let mut b = flat(id, String::new(), "sample", &values);
            b.family = family;
            Ok(b)
        };
        benchmarks.push(read().map_err(wrap)?);
    }
    if benchmarks.is_empty() {
        return Err(StoreError::import(
            path,
            "",
            "no benchmark-complete message (cargo criterion --message-format=json)",
        ));
    }
    Ok(result(benchmarks))
}
