//! Google Benchmark JSON: `benchmarks[]` of `run_type` `iteration` are repetitions (each the mean
//! real time over `iterations` iterations, in `time_unit`); aggregates (`_mean`, `_stddev`, ...)
//! are skipped, errors (`error_occurred`) too. Every repetition ran in one process.

use super::json::Node;
use super::{flat, result};
use crate::error::Result;
use crate::schema::ResultFile;

pub(super) fn read(root: Node<'_>) -> Result<ResultFile> {
    let mut groups: Vec<(String, Vec<f64>)> = Vec::new();
    for b in root.get("benchmarks")?.items()? {
        let kind = match b.opt("run_type") {
            Some(k) => k.str()?,
            None => "iteration",
        };
        let failed = b
            .opt("error_occurred")
            .is_some_and(|e| e.value().as_bool() == Some(true));
        if kind != "iteration" || failed {
            continue;
        }
        let name = match b.opt("run_name") {
            Some(n) => n.str()?,
            None => b.get("name")?.str()?,
        }
        .to_string();
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
    let benchmarks = groups
        .into_iter()
        .map(|(name, values)| flat(name, String::new(), "repetition", &values))
        .collect();
    Ok(result(benchmarks))
}
