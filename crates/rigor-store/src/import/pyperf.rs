//! pyperf JSON: `benchmarks[].runs[]` are worker processes (levels `run` × `value`); a run's `values` are seconds per
//! loop (one per measured iteration) and its `warmups` are `[loops, value]` pairs, kept as
//! warm-up iterations. Runs without values (pyperf's calibration runs) are skipped. A file's
//! benchmarks (a pyperformance suite) are unrelated: no family, compared with none.
//!
//! Each run's metadata is kept with its execution: `duration` as its wall time, the process's
//! peak resident set (`command_max_rss` of `pyperf command`, else the worker's `mem_max_rss`) as
//! its peak memory, and Windows' `mem_peak_pagefile_usage` as the metric `peak-pagefile-usage`.
//! With `--tracemalloc` or `--track-memory` pyperf drops the timings and writes one value per
//! run, the memory peak in bytes (unit `byte`; the file does not say which option): those
//! benchmarks are read with each run's `duration` as its time and the peaks as the metric
//! `pyperf-memory-peak`, said in a note.

use std::collections::BTreeMap;

use rigor_units::{MetricValues, Quantity};

use super::json::Node;
use super::{Facts, Format, flat, nested, result, with_facts};
use crate::error::Result;
use crate::schema::ResultFile;
use crate::warning::{ImportNote, Warning};

/// The metric of a benchmark pyperf measured in bytes (`--tracemalloc`, `--track-memory`).
const MEMORY_PEAK: &str = "pyperf-memory-peak";
/// The metric of Windows' peak pagefile usage.
const PAGEFILE: &str = "peak-pagefile-usage";

pub(super) fn read(root: Node<'_>) -> Result<ResultFile> {
    let common = root.opt("metadata");
    let meta = |b: &Node<'_>, key: &str| -> Option<String> {
        b.opt("metadata")
            .and_then(|m| m.opt(key))
            .or_else(|| common.as_ref().and_then(|m| m.opt(key)))
            .and_then(|n| n.value().as_str().map(str::to_string))
    };
    // A number of a run's metadata, else of its benchmark's or the file's (pyperf moves what
    // every run shares up).
    let number = |run: &Node<'_>, b: &Node<'_>, key: &str| -> Option<f64> {
        [run, b]
            .into_iter()
            .find_map(|n| n.opt("metadata")?.opt(key))
            .or_else(|| common.as_ref()?.opt(key))
            .and_then(|n| n.value().as_f64())
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    let mut benchmarks = Vec::new();
    // The benchmarks pyperf measured in bytes.
    let mut memory_peaks = Vec::new();
    for (i, b) in root.get("benchmarks")?.items()?.into_iter().enumerate() {
        let name = meta(&b, "name").unwrap_or_else(|| format!("benchmark {}", i + 1));
        let unit = meta(&b, "unit");
        let memory = match unit.as_deref() {
            None | Some("second") => false,
            Some("byte") => true,
            Some(unit) => {
                return Err(b.err(format!(
                    "unit '{unit}': rigor reads times (unit 'second') and pyperf's memory \
                     peaks (unit 'byte')"
                )));
            }
        };
        let mut processes = Vec::new();
        let mut facts = Vec::new();
        for run in b.get("runs")?.items()? {
            let mut values = Vec::new();
            if let Some(w) = run.opt("warmups") {
                for pair in w.items()? {
                    let items = pair.items()?;
                    let v = items
                        .get(1)
                        .ok_or_else(|| pair.err("expected [loops, value]"))?
                        .time_s()?;
                    values.push((v, true));
                }
            }
            let measured = match run.opt("values") {
                Some(v) => v.times()?,
                None => Vec::new(),
            };
            if measured.is_empty() {
                continue;
            }
            let duration = number(&run, &b, "duration");
            let mut metrics = BTreeMap::new();
            if let Some(usage) = number(&run, &b, "mem_peak_pagefile_usage") {
                metrics.insert(
                    PAGEFILE.to_string(),
                    MetricValues {
                        unit: Quantity::Bytes,
                        values: vec![usage],
                    },
                );
            }
            if memory {
                // The peaks replace the timings; the run's duration is its only time.
                let Some(duration) = duration else {
                    return Err(run.err(
                        "a memory peak (unit 'byte') without the run's 'duration': rigor \
                         keeps the peaks as a metric beside a time, and this run has none",
                    ));
                };
                metrics.insert(
                    MEMORY_PEAK.to_string(),
                    MetricValues {
                        unit: Quantity::Bytes,
                        values: measured,
                    },
                );
                values = vec![(duration, false)];
            } else {
                values.extend(measured.into_iter().map(|v| (v, false)));
            }
            processes.push(values);
            facts.push(Facts {
                wall: duration,
                max_rss: number(&run, &b, "command_max_rss")
                    .or_else(|| number(&run, &b, "mem_max_rss"))
                    .map_or(0, |v| v.round() as u64),
                metrics,
            });
        }
        if processes.is_empty() {
            // Said at its runs (it read "top level: benchmark 'X' holds no measured value").
            return Err(b.get("runs")?.err(format!(
                "benchmark '{name}' has no run with a measured value (only warm-ups, or none)"
            )));
        }
        let command = meta(&b, "command").unwrap_or_default();
        let mut record = if memory {
            let durations: Vec<f64> = processes.iter().map(|p| p[0].0).collect();
            memory_peaks.push(name.clone());
            flat(name, command, "run", &durations)
        } else {
            nested(name, command, ["run", "value"], &processes)
        };
        with_facts(&mut record, facts);
        benchmarks.push(record);
    }
    let mut r = result(benchmarks);
    if !memory_peaks.is_empty() {
        r.warnings.push(Warning::Imported {
            file: root.file().display().to_string(),
            format: Format::Pyperf.name().to_string(),
            note: ImportNote::PeaksNotTimes {
                benchmarks: memory_peaks,
                metric: MEMORY_PEAK.to_string(),
            },
        });
    }
    Ok(r)
}
