//! Google Benchmark JSON: `benchmarks[]` of `run_type` `iteration` are repetitions (each the mean
//! real time over `iterations` iterations, in `time_unit`); aggregates (`_mean`, `_stddev`, ...)
//! are skipped, errors (`error_occurred`) too. Every repetition ran in one process. A file of
//! aggregates only (`--benchmark_report_aggregates_only`) is refused: it holds no repetition to
//! analyse; a benchmark measured once (no `--benchmark_repetitions`) is kept with a warning
//! (it is shown without an interval). A benchmark's family is its name before the first `/` (`BM_Fib` of `BM_Fib/10`): the
//! instances of one parameterised benchmark.

use super::json::Node;
use super::{flat, result};
use crate::error::Result;
use crate::schema::ResultFile;
use crate::warning::{ImportNote, Warning};

/// One benchmark's repetitions: its name and their times in seconds.
type Group = (String, Vec<f64>);

pub(super) fn read(root: Node<'_>) -> Result<ResultFile> {
    let mut groups: Vec<Group> = Vec::new();
    // The benchmarks aggregates were seen of.
    let mut aggregated: Vec<String> = Vec::new();
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
        let t = unit.to_seconds(b.get("real_time")?.time()?);
        match groups.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.push(t),
            None => groups.push((name, vec![t])),
        }
    }
    let has = |name: &String| groups.iter().any(|(n, _)| n == name);
    if let Some(only) = aggregated.iter().find(|n| !has(n)) {
        return Err(list.err(format!(
            "'{only}' has only aggregates (mean, median, stddev): the file was written with \
             --benchmark_report_aggregates_only, which leaves out the repetitions rigor analyses; \
             run the benchmark again without it (--benchmark_repetitions=N \
             --benchmark_out=FILE --benchmark_out_format=json)"
        )));
    }
    let once: Vec<String> = groups
        .iter()
        .filter(|(_, v)| v.len() == 1)
        .map(|(n, _)| n.clone())
        .collect();
    let benchmarks = groups
        .into_iter()
        .map(|(name, values)| {
            let family = name.split('/').next().unwrap_or(&name).to_string();
            let mut b = flat(name, String::new(), "repetition", &values);
            b.family = Some(family);
            b
        })
        .collect();
    let mut r = result(benchmarks);
    if !once.is_empty() {
        r.warnings.push(Warning::Imported {
            file: root.file().display().to_string(),
            format: "google-benchmark".to_string(),
            note: ImportNote::OneRepetition { benchmarks: once },
        });
    }
    Ok(r)
}
