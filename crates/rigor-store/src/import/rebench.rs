//! ReBench data files: tab-separated lines `invocation iteration value unit criterion benchmark
//! executor suite extraArgs cores inputSize varValue ...`, `#` lines are comments (a commented
//! header naming the columns, when present, is followed). Invocations are process executions,
//! iterations are in-process iterations; each criterion other than `total` is a benchmark of its
//! own. ReBench heads each session's lines with `# Source: {...}` (JSON naming the measured
//! `commitId`); when every session names the same commit, it becomes the result's git commit.
//! ReBench 1.4 writes its header without `#` and adds `tag`, `machine` and `runId` columns; its
//! `Time` adapter records `MaxRSS` in kB beside the time: it becomes each invocation's peak
//! memory (`--metric peak-memory`), and any other criterion that is not a time a metric of the
//! benchmarks timed in the same invocations (`--metric NAME`), each said in a note; one with no
//! time beside it, or whose name cannot be a metric's, is left out with a warning. A benchmark's family is its `benchmark` column: the runs of one benchmark
//! by several executors (or with other arguments) are compared with each other.

use std::path::Path;

use rigor_units::{Metric, MetricValues, Quantity};

use super::{Facts, Format, kept, nested, result, with_facts};
use crate::error::{Result, StoreError};
use crate::schema::{BenchmarkRecord, GitState, ResultFile};
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
/// A header naming the columns (`#` before it or not, as ReBench 1.4 writes it) is enough: it
/// tells the format by its structure, so that a bad value on a data line gets the reader's own
/// error (naming the line) rather than "not a format rigor reads".
pub(super) fn looks_like(text: &str) -> bool {
    let lines = || text.lines().map(str::trim).filter(|l| !l.is_empty());
    let tab_header = |l: &str| {
        let l = l.trim_start_matches('#').trim();
        l.contains('\t') && is_header(&l.split('\t').map(str::trim).collect::<Vec<_>>())
    };
    if lines()
        .take_while(|l| l.starts_with('#') || tab_header(l))
        .any(tab_header)
    {
        return true;
    }
    lines()
        .find(|l| {
            !l.starts_with('#') && !is_header(&l.split('\t').map(str::trim).collect::<Vec<_>>())
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

/// A criterion that is not a time: (name, the `benchmark` column, criterion, unit).
type OtherKey = (String, String, String, String);
/// Its values, as (invocation, value in the file's unit), in file order.
type OtherValues = Vec<(u64, f64)>;

pub(super) fn read(path: &Path, text: &str) -> Result<ResultFile> {
    let mut cols = Columns::from(&DEFAULT).expect("the default columns are complete");
    // (name, criterion, benchmark) → invocation → values in file order.
    let mut groups: Vec<(Key, Invocations)> = Vec::new();
    // Values of criteria that are not times, kept beside the times of the same identity.
    let mut others: Vec<(OtherKey, OtherValues)> = Vec::new();
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
        let name = cols
            .identity
            .iter()
            .map(|&c| field(c))
            .filter(|f| !f.is_empty() && *f != "None")
            .collect::<Vec<_>>()
            .join(" ");
        let scale = match field(cols.unit) {
            "ns" => 1e-9,
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            other => {
                let key = (
                    name,
                    field(cols.benchmark).to_string(),
                    field(cols.criterion).to_string(),
                    other.to_string(),
                );
                match others.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, v)) => v.push((invocation, raw)),
                    None => others.push((key, vec![(invocation, raw)])),
                }
                continue;
            }
        };
        if let Some(why) = super::implausible(raw * scale) {
            return Err(err(why));
        }
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
        let what = if others.is_empty() {
            "no data lines".to_string()
        } else {
            let mut units: Vec<String> = Vec::new();
            for ((_, _, c, u), _) in &others {
                let unit = format!("'{c}' in {u}");
                if !units.contains(&unit) {
                    units.push(unit);
                }
            }
            format!(
                "no times: only {}; rigor analyses times (ns, us, ms, s), and keeps other \
                 criteria as metrics beside them",
                units.join(", ")
            )
        };
        return Err(StoreError::import(path, "", what));
    }
    let (benchmarks, notes) = benchmarks(groups, others);
    let mut result = result(benchmarks);
    result
        .warnings
        .extend(notes.into_iter().map(|note| match note {
            Kept::Metric {
                criterion,
                metric,
                unit,
                values,
            } => kept(path, Format::Rebench, &criterion, &metric, &unit, values),
            Kept::LeftOut {
                criterion,
                unit,
                values,
            } => Warning::Imported {
                file: path.display().to_string(),
                format: Format::Rebench.name().to_string(),
                note: ImportNote::NotTime {
                    criterion,
                    unit,
                    values,
                },
            },
        }));
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

/// What became of a criterion that is not a time, for the notes.
enum Kept {
    /// Kept as `metric` of the benchmarks timed beside it.
    Metric {
        criterion: String,
        metric: String,
        unit: String,
        values: usize,
    },
    /// Left out.
    LeftOut {
        criterion: String,
        unit: String,
        values: usize,
    },
}

/// Where a criterion that is not a time goes: each invocation's peak memory (the `Time`
/// adapter's `MaxRSS`, a process's peak), a metric of its own, or nowhere (a name no metric can
/// have, or one rigor measures itself).
enum Slot {
    PeakMemory,
    Metric(Metric),
}

/// A ReBench unit as rigor reads units: ReBench writes `kb` for the kibibytes that
/// `/usr/bin/time` and `getrusage` count (its `MaxRSS`), where rigor's one rule reads `kB` as
/// 1000 bytes ([`rigor_units::bytes_in_unit`]).
fn rebench_unit(unit: &str) -> &str {
    match unit {
        "kb" | "kB" | "KB" => "KiB",
        other => other,
    }
}

fn slot(criterion: &str, quantity: &Quantity) -> Option<Slot> {
    match criterion.to_ascii_lowercase().parse::<Metric>() {
        Ok(Metric::PeakMemory) if *quantity == Quantity::Bytes => return Some(Slot::PeakMemory),
        _ => {}
    }
    match criterion.parse::<Metric>().ok()? {
        Metric::Wall | Metric::Cpu | Metric::User | Metric::System | Metric::PeakMemory => None,
        m => Some(Slot::Metric(m)),
    }
}

impl Kept {
    /// What tells notes apart: kept or not, the criterion and its unit.
    fn key(&self) -> (bool, &str, &str) {
        match self {
            Self::Metric {
                criterion, unit, ..
            } => (true, criterion, unit),
            Self::LeftOut {
                criterion, unit, ..
            } => (false, criterion, unit),
        }
    }

    fn values(&mut self) -> &mut usize {
        match self {
            Self::Metric { values, .. } | Self::LeftOut { values, .. } => values,
        }
    }

    /// Adds `note` to `notes`, or its values to the note of the same criterion and unit (one
    /// per criterion, however many benchmarks it was measured beside).
    fn push(notes: &mut Vec<Self>, mut note: Self) {
        match notes.iter_mut().find(|k| k.key() == note.key()) {
            Some(k) => *k.values() += *note.values(),
            None => notes.push(note),
        }
    }
}

fn benchmarks(
    groups: Vec<(Key, Invocations)>,
    others: Vec<(OtherKey, OtherValues)>,
) -> (Vec<BenchmarkRecord>, Vec<Kept>) {
    let mut notes = Vec::new();
    let mut out = Vec::with_capacity(groups.len());
    // Each time benchmark's identity, its invocations in order, and the facts kept of them.
    let mut facts: Vec<Vec<Facts>> = Vec::with_capacity(groups.len());
    let identities: Vec<(String, String, Vec<u64>)> = groups
        .iter()
        .map(|((name, _, benchmark), inv)| {
            (
                name.clone(),
                benchmark.clone(),
                inv.iter().map(|(i, _)| *i).collect(),
            )
        })
        .collect();
    for (_, inv) in &groups {
        facts.push(vec![Facts::default(); inv.len()]);
    }
    for ((name, benchmark, criterion, unit), values) in others {
        let (quantity, factor) = Quantity::of_unit(rebench_unit(&unit));
        let beside: Vec<usize> = identities
            .iter()
            .enumerate()
            .filter(|(_, (n, b, _))| *n == name && *b == benchmark)
            .map(|(i, _)| i)
            .collect();
        let target = slot(&criterion, &quantity).filter(|_| !beside.is_empty());
        let Some(target) = target else {
            Kept::push(
                &mut notes,
                Kept::LeftOut {
                    criterion,
                    unit,
                    values: values.len(),
                },
            );
            continue;
        };
        for &g in &beside {
            for (k, invocation) in identities[g].2.iter().enumerate() {
                let mine = values
                    .iter()
                    .filter(|(i, _)| i == invocation)
                    .map(|(_, v)| v * factor);
                let f = &mut facts[g][k];
                match &target {
                    // A process has one peak: the largest its lines give.
                    Slot::PeakMemory => {
                        let peak = mine.fold(0.0_f64, f64::max);
                        f.max_rss = f.max_rss.max(peak.round() as u64);
                    }
                    Slot::Metric(m) => {
                        let v: Vec<f64> = mine.collect();
                        if !v.is_empty() {
                            f.metrics.insert(
                                m.name().to_string(),
                                MetricValues {
                                    unit: quantity.clone(),
                                    values: v,
                                },
                            );
                        }
                    }
                }
            }
        }
        let used = values
            .iter()
            .filter(|(i, _)| beside.iter().any(|&g| identities[g].2.contains(i)))
            .count();
        if used < values.len() {
            // Lines of invocations whose time is missing.
            Kept::push(
                &mut notes,
                Kept::LeftOut {
                    criterion: criterion.clone(),
                    unit: unit.clone(),
                    values: values.len() - used,
                },
            );
        }
        let metric = match &target {
            Slot::PeakMemory => Metric::PeakMemory.name().to_string(),
            Slot::Metric(m) => m.name().to_string(),
        };
        Kept::push(
            &mut notes,
            Kept::Metric {
                criterion,
                metric,
                unit,
                values: used,
            },
        );
    }
    for (((name, criterion, benchmark), invocations), facts) in groups.into_iter().zip(facts) {
        let name = if criterion == "total" || criterion.is_empty() {
            name
        } else {
            format!("{name} ({criterion})")
        };
        let processes: Vec<Vec<(f64, bool)>> = invocations.into_iter().map(|(_, v)| v).collect();
        let mut b = nested(name, String::new(), ["invocation", "iteration"], &processes);
        b.family = (!benchmark.is_empty()).then(|| {
            if criterion == "total" || criterion.is_empty() {
                benchmark
            } else {
                format!("{benchmark} ({criterion})")
            }
        });
        with_facts(&mut b, facts);
        out.push(b);
    }
    (out, notes)
}
