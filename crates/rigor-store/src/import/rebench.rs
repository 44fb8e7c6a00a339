//! ReBench data files: tab-separated lines `invocation iteration value unit criterion benchmark
//! executor suite extraArgs cores inputSize varValue ...`, `#` lines are comments (a commented
//! header naming the columns, when present, is followed). Invocations are process executions,
//! iterations are in-process iterations; each criterion other than `total` is a benchmark of its
//! own. ReBench heads each session's lines with `# Source: {...}` (JSON naming the measured
//! `commitId`); when every session names the same commit, it becomes the result's git commit.
//! ReBench 1.4 writes its header without `#` and adds `tag`, `machine` and `runId` columns; its
//! `Time` adapter records `MaxRSS` in kB beside the time: criteria that are not times are left
//! out with a warning. A benchmark's family is its `benchmark` column: the runs of one benchmark
//! by several executors (or with other arguments) are compared with each other.

use std::path::Path;

use super::{nested, result};
use crate::error::{Result, StoreError};
use crate::schema::{GitState, ResultFile};
use crate::warning::{ImportNote, Warning};

/// The columns of a file without a header, in order.
const DEFAULT: [&str; 14] = [
    "invocation",
    "iteration",
    "value",
    "unit",
    "criterion",
    "benchmark",
    "executor",
    "suite",
    "extraArgs",
    "cores",
    "inputSize",
    "varValue",
    "tag",
    "machine",
];
/// Where the columns that tell benchmarks apart (`benchmark` and every one after it) start in
/// [`DEFAULT`].
const IDENTITY: usize = 5;

/// Whether a line is a header naming the columns (`#` before it or not, as ReBench 1.4 writes
/// it).
fn is_header(fields: &[&str]) -> bool {
    fields.iter().any(|f| f.eq_ignore_ascii_case("invocation"))
        && fields.iter().any(|f| f.eq_ignore_ascii_case("value"))
}

/// Whether the text looks like a ReBench data file: a data line of tab-separated fields that
/// starts with two integers and a number (after comments and a header).
pub(super) fn looks_like(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|l| {
            !l.is_empty()
                && !l.starts_with('#')
                && !is_header(&l.split('\t').map(str::trim).collect::<Vec<_>>())
        })
        .is_some_and(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            f.len() >= 6
                && f[0].parse::<u64>().is_ok()
                && f[1].parse::<u64>().is_ok()
                && f[2].parse::<f64>().is_ok()
        })
}

struct Columns {
    invocation: usize,
    iteration: usize,
    value: usize,
    unit: usize,
    criterion: usize,
    benchmark: usize,
    identity: Vec<usize>,
}

impl Columns {
    fn from(names: &[&str]) -> Option<Self> {
        let at = |n: &str| names.iter().position(|c| c.eq_ignore_ascii_case(n));
        Some(Self {
            invocation: at("invocation")?,
            iteration: at("iteration")?,
            value: at("value")?,
            unit: at("unit")?,
            criterion: at("criterion")?,
            // Absent from a header that names no benchmark: an empty field.
            benchmark: at("benchmark").unwrap_or(usize::MAX),
            identity: DEFAULT[IDENTITY..].iter().filter_map(|n| at(n)).collect(),
        })
    }
}

/// A benchmark's identity: (name, criterion, the `benchmark` column).
type Key = (String, String, String);
/// Each invocation's iteration values, in file order.
type Invocations = Vec<(u64, Vec<(f64, bool)>)>;

pub(super) fn read(path: &Path, text: &str) -> Result<ResultFile> {
    let mut cols = Columns::from(&DEFAULT).expect("the default columns are complete");
    // (name, criterion, benchmark) → invocation → values in file order.
    let mut groups: Vec<(Key, Invocations)> = Vec::new();
    // (criterion, unit) of values that are not times → how many were left out.
    let mut skipped: Vec<((String, String), usize)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let err = |m: String| StoreError::import(path, &format!("line {}", i + 1), m);
        let trimmed = line.trim_end_matches('\r');
        let fields: Vec<&str> = trimmed
            .trim_start_matches('#')
            .trim()
            .split('\t')
            .map(str::trim)
            .collect();
        if is_header(&fields) {
            cols = Columns::from(&fields).ok_or_else(|| {
                err(
                    "a header without the columns invocation, iteration, value, unit, criterion"
                        .into(),
                )
            })?;
            continue;
        }
        if trimmed.trim().is_empty() || trimmed.trim_start().starts_with('#') {
            continue;
        }
        let field = |c: usize| fields.get(c).copied().unwrap_or("");
        let invocation: u64 = field(cols.invocation).parse().map_err(|_| {
            err(format!(
                "invocation '{}' is not a count",
                field(cols.invocation)
            ))
        })?;
        field(cols.iteration).parse::<u64>().map_err(|_| {
            err(format!(
                "iteration '{}' is not a count",
                field(cols.iteration)
            ))
        })?;
        let raw: f64 = field(cols.value)
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| err(format!("value '{}' is not a number", field(cols.value))))?;
        if raw < 0.0 {
            return Err(err(format!("negative time {raw}")));
        }
        let scale = match field(cols.unit) {
            "ns" => 1e-9,
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            other => {
                let key = (field(cols.criterion).to_string(), other.to_string());
                match skipped.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, n)) => *n += 1,
                    None => skipped.push((key, 1)),
                }
                continue;
            }
        };
        let name = cols
            .identity
            .iter()
            .map(|&c| field(c))
            .filter(|f| !f.is_empty() && *f != "None")
            .collect::<Vec<_>>()
            .join(" ");
        let key = (
            name,
            field(cols.criterion).to_string(),
            field(cols.benchmark).to_string(),
        );
        let g = match groups.iter().position(|(k, _)| *k == key) {
            Some(p) => &mut groups[p].1,
            None => {
                groups.push((key, Vec::new()));
                &mut groups.last_mut().expect("just pushed").1
            }
        };
        match g.iter_mut().find(|(inv, _)| *inv == invocation) {
            Some((_, v)) => v.push((raw * scale, false)),
            None => g.push((invocation, vec![(raw * scale, false)])),
        }
    }
    if groups.is_empty() {
        let what = if skipped.is_empty() {
            "no data lines".to_string()
        } else {
            let units: Vec<String> = skipped
                .iter()
                .map(|((c, u), _)| format!("'{c}' in {u}"))
                .collect();
            format!(
                "no times: only {}; rigor analyses times (ns, us, ms, s)",
                units.join(", ")
            )
        };
        return Err(StoreError::import(path, "", what));
    }
    let mut result = result(benchmarks(groups));
    for ((criterion, unit), values) in skipped {
        result.warnings.push(Warning::Imported {
            file: path.display().to_string(),
            format: "rebench".to_string(),
            note: ImportNote::NotTime {
                criterion,
                unit,
                values,
            },
        });
    }
    result.provenance.git = commit(text).map(|commit| GitState {
        commit,
        // ReBench does not record uncommitted changes.
        dirty: false,
    });
    Ok(result)
}

/// The commit every `# Source:` line names, when they agree on one.
fn commit(text: &str) -> Option<String> {
    let mut ids = text.lines().filter_map(|l| {
        let json = l.trim_start().strip_prefix("# Source:")?;
        let v: serde_json::Value = serde_json::from_str(json.trim()).ok()?;
        Some(v.get("commitId")?.as_str()?.trim().to_string())
    });
    let first = ids.next().filter(|c| !c.is_empty())?;
    ids.all(|c| c == first).then_some(first)
}

fn benchmarks(groups: Vec<(Key, Invocations)>) -> Vec<crate::schema::BenchmarkRecord> {
    groups
        .into_iter()
        .map(|((name, criterion, benchmark), invocations)| {
            let name = if criterion == "total" || criterion.is_empty() {
                name
            } else {
                format!("{name} ({criterion})")
            };
            let processes: Vec<Vec<(f64, bool)>> =
                invocations.into_iter().map(|(_, v)| v).collect();
            let mut b = nested(name, String::new(), ["invocation", "iteration"], &processes);
            b.family = (!benchmark.is_empty()).then(|| {
                if criterion == "total" || criterion.is_empty() {
                    benchmark
                } else {
                    format!("{benchmark} ({criterion})")
                }
            });
            b
        })
        .collect()
}
