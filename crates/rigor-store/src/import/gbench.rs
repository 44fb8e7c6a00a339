//! Google Benchmark JSON: `benchmarks[]` of `run_type` `iteration` are repetitions (each the mean
//! real time over `iterations` iterations, in `time_unit`); aggregates (`_mean`, `_stddev`, ...)
//! are skipped, errors (`error_occurred`) too. Every repetition ran in one process. A file of
//! aggregates only (`--benchmark_report_aggregates_only`) is refused: it holds no repetition to
//! analyse; a benchmark measured once (no `--benchmark_repetitions`) is kept with a warning
//! (it is shown without an interval). A benchmark's family is its name before the first `/` (`BM_Fib` of `BM_Fib/10`): the
//! instances of one parameterised benchmark.
//!
//! A repetition's counters are kept as its metrics: `bytes_per_second` and `items_per_second`
//! (rates, more is better) and every user counter (Google Benchmark writes a counter's value
//! without its unit or flags: a count), each said in a note; a counter whose name no metric can
//! have is left out with a warning. `cpu_time` is not read.

use std::collections::BTreeMap;

use rigor_units::{Metric, MetricValues, Quantity};

use super::json::Node;
use super::{Facts, Format, flat, kept, result, with_facts};
use crate::error::Result;
use crate::schema::ResultFile;
use crate::warning::{FailedRepetitions, ImportNote, Warning};

/// One benchmark's repetitions: its name, their times in seconds, and each one's other numbers.
type Group = (String, Vec<f64>, Vec<Facts>);

/// The members of a repetition that are not counters.
const NOT_COUNTERS: [&str; 17] = [
    "name",
    "family_index",
    "per_family_instance_index",
    "run_name",
    "run_type",
    "repetitions",
    "repetition_index",
    "threads",
    "iterations",
    "real_time",
    "cpu_time",
    "time_unit",
    "aggregate_name",
    "aggregate_unit",
    "error_occurred",
    "error_message",
    "label",
];

/// The unit a counter is kept in: Google Benchmark's two named rates, else a count.
fn counter_unit(name: &str) -> &'static str {
    match name {
        "bytes_per_second" => "B/s",
        "items_per_second" => "items/s",
        _ => "count",
    }
}

/// Whether a counter can be kept under its name: a metric's name that rigor does not measure
/// itself.
fn keepable(name: &str) -> bool {
    matches!(
        name.parse::<Metric>(),
        Ok(Metric::Reported(_) | Metric::Instructions | Metric::Cycles)
    )
}

/// A repetition's counters as metrics, and the counters it left out (name → values).
fn metrics(
    b: &Node<'_>,
    left_out: &mut Vec<(String, usize)>,
) -> Result<BTreeMap<String, MetricValues>> {
    let mut out = BTreeMap::new();
    for (name, value) in b.entries()? {
        let Some(v) = value.value().as_f64().filter(|v| v.is_finite()) else {
            continue;
        };
        if NOT_COUNTERS.contains(&name) || value.value().is_boolean() {
            continue;
        }
        if !keepable(name) {
            match left_out.iter_mut().find(|(n, _)| n == name) {
                Some((_, k)) => *k += 1,
                None => left_out.push((name.to_string(), 1)),
            }
            continue;
        }
        let (unit, factor) = Quantity::of_unit(counter_unit(name));
        out.insert(
            name.to_string(),
            MetricValues {
                unit,
                values: vec![v * factor],
            },
        );
    }
    Ok(out)
}

pub(super) fn read(root: Node<'_>) -> Result<ResultFile> {
    let mut groups: Vec<Group> = Vec::new();
    // The benchmarks aggregates were seen of.
    let mut aggregated: Vec<String> = Vec::new();
    // Counters no metric can be named as: name → values.
    let mut left_out: Vec<(String, usize)> = Vec::new();
    // Repetitions the benchmark itself reported as failed (`error_occurred`), left out: said,
    // not dropped silently (a new user's failed repetition had vanished from "Units").
    let mut errored: Vec<FailedRepetitions> = Vec::new();
    let list = root.get("benchmarks")?;
    for b in list.items()? {
        let kind = match b.opt("run_type") {
            Some(k) => k.str()?,
            None => "iteration",
        };
        let name = match b.opt("run_name") {
            Some(n) => n.str()?,
            None => b.get("name")?.str()?,
        }
        .to_string();
        if kind != "iteration" {
            aggregated.push(name);
            continue;
        }
        if b.opt("error_occurred")
            .is_some_and(|e| e.value().as_bool() == Some(true))
        {
            let message = b
                .opt("error_message")
                .and_then(|m| m.value().as_str().map(str::to_string))
                .unwrap_or_default();
            match errored.iter_mut().find(|e| e.benchmark == name) {
                Some(e) => e.failed += 1,
                None => errored.push(FailedRepetitions {
                    benchmark: name,
                    failed: 1,
                    kept: 0,
                    message,
                }),
            }
            continue;
        }
        let unit = match b.opt("time_unit") {
            Some(u) => u.str()?,
            None => "ns",
        };
        let unit: rigor_units::TimeUnit = unit.parse().map_err(|_| {
            b.get("time_unit")
                .map_or_else(|e| e, |u| u.err("not a time unit"))
        })?;
        // A repetition of no iteration measured nothing: its time is not a mean of anything.
        if let Some(n) = b.opt("iterations") {
            n.count()?;
        }
        let real = b.get("real_time")?;
        let t = real.seconds(unit.to_seconds(real.time()?))?;
        let facts = Facts {
            wall: None,
            max_rss: 0,
            metrics: metrics(&b, &mut left_out)?,
        };
        match groups.iter_mut().find(|(n, _, _)| *n == name) {
            Some((_, v, f)) => {
                v.push(t);
                f.push(facts);
            }
            None => groups.push((name, vec![t], vec![facts])),
        }
    }
    for e in &mut errored {
        e.kept = groups
            .iter()
            .find(|(n, _, _)| *n == e.benchmark)
            .map_or(0, |(_, v, _)| v.len());
    }
    let has = |name: &String| groups.iter().any(|(n, _, _)| n == name);
    let failed = |name: &String| errored.iter().any(|e| e.benchmark == *name);
    if let Some(only) = aggregated.iter().find(|n| !has(n) && !failed(n)) {
        return Err(list.err(format!(
            "'{only}' has only aggregates (mean, median, stddev): the file was written with \
             --benchmark_report_aggregates_only, which leaves out the repetitions rigor analyses; \
             run the benchmark again without it (--benchmark_repetitions=N \
             --benchmark_out=FILE --benchmark_out_format=json)"
        )));
    }
    let once: Vec<String> = groups
        .iter()
        .filter(|(_, v, _)| v.len() == 1)
        .map(|(n, _, _)| n.clone())
        .collect();
    // Each metric kept: its unit and how many values.
    let mut counted: Vec<(String, String, usize)> = Vec::new();
    for (name, values) in groups
        .iter()
        .flat_map(|(_, _, f)| f)
        .flat_map(|f| &f.metrics)
    {
        match counted.iter_mut().find(|(n, _, _)| n == name) {
            Some((_, _, k)) => *k += values.values.len(),
            None => counted.push((
                name.clone(),
                counter_unit(name).to_string(),
                values.values.len(),
            )),
        }
    }
    let benchmarks = groups
        .into_iter()
        .map(|(name, values, facts)| {
            let family = name.split('/').next().unwrap_or(&name).to_string();
            let mut b = flat(name, String::new(), "repetition", &values);
            b.family = Some(family);
            with_facts(&mut b, facts);
            b
        })
        .collect();
    let mut r = result(benchmarks);
    let file = root.file();
    for (name, unit, values) in counted {
        r.warnings.push(kept(
            file,
            Format::GoogleBenchmark,
            &name,
            &name,
            &unit,
            values,
        ));
    }
    for (criterion, values) in left_out {
        r.warnings.push(Warning::Imported {
            file: file.display().to_string(),
            format: Format::GoogleBenchmark.name().to_string(),
            note: ImportNote::NotTime {
                criterion,
                unit: "count".to_string(),
                values,
            },
        });
    }
    if !errored.is_empty() {
        r.warnings.push(Warning::Imported {
            file: file.display().to_string(),
            format: Format::GoogleBenchmark.name().to_string(),
            note: ImportNote::Errored {
                benchmarks: errored,
            },
        });
    }
    if !once.is_empty() {
        r.warnings.push(Warning::Imported {
            file: root.file().display().to_string(),
            format: "google-benchmark".to_string(),
            note: ImportNote::OneRepetition { benchmarks: once },
        });
    }
    Ok(r)
}
