//! Removing runs from a history (`rigor track rm`): which runs to remove ([`RunSelection`]),
//! what was removed ([`Removed`]), and the decision of which rows go, made once for both
//! backends from the rows each selects ([`plan`]); the statements are the backends'.

use serde::{Deserialize, Serialize};

use crate::rows::Cells;
use crate::types::{ChangeId, RunId, SeriesKey, SessionId};

/// Which runs of a series [`crate::History::remove_runs`] removes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSelection {
    /// The series (machine and branch) the runs are in.
    pub series: SeriesKey,
    /// The session's or the version's runs.
    pub runs: SelectRuns,
    /// Only this benchmark of those runs (a run keeps its other benchmarks; a run left with
    /// none is removed, and failed runs, which measured none, stay).
    pub benchmark: Option<String>,
}

impl RunSelection {
    /// The session and the version whose runs are selected, as a query's parameters (one of
    /// the two is `None`).
    pub(crate) fn session_and_rev(&self) -> (Option<i64>, Option<&str>) {
        match &self.runs {
            SelectRuns::Session(id) => (Some(id.0), None),
            SelectRuns::Version(rev) => (None, Some(rev.as_str())),
        }
    }
}

/// The tables whose rows are one benchmark of one run (`run_id`, `benchmark_id`), which a
/// removal deletes together: its samples, executions and metrics, and the stored benchmark last.
pub(crate) const BENCHMARK_TABLES: [&str; 4] = [
    "samples",
    "executions",
    "execution_metrics",
    "run_benchmarks",
];

/// The runs named by a session or a version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectRuns {
    /// The runs of one session (in the selection's series).
    Session(SessionId),
    /// The runs of one version, by its stored name (`rev`: a full commit id or a label).
    Version(String),
}

/// Whether [`crate::History::remove_runs`] removes, or only says what it would remove.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoveMode {
    /// Remove, and commit.
    Remove,
    /// Work out everything a removal would do, in a transaction that is rolled back.
    DryRun,
}

/// What a removal removed (or, for a dry run, would remove).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Removed {
    /// The runs it touched, oldest first.
    pub runs: Vec<RemovedRun>,
    /// Sessions removed because no run was left in them.
    pub sessions: Vec<SessionId>,
    /// Changes marked not current: changes of the removed benchmarks at a version whose runs
    /// were removed, or against it (detection finds them again if the data left still shows
    /// them).
    pub changes: Vec<ChangeId>,
}

impl Removed {
    /// Whether nothing was selected.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The samples removed, over every run.
    pub fn samples(&self) -> u64 {
        self.runs.iter().map(|r| r.samples).sum()
    }
}

/// One run a removal touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemovedRun {
    /// The run.
    pub id: RunId,
    /// Its version's stored name.
    pub rev: String,
    /// The session it was measured in.
    pub session: SessionId,
    /// Whether it was a failed version's record (it measured nothing).
    pub failed: bool,
    /// The benchmarks removed from it, by name.
    pub benchmarks: Vec<String>,
    /// Their samples.
    pub samples: u64,
    /// Whether the run itself went (false: it keeps other benchmarks).
    pub whole: bool,
}

/// A candidate row as both backends select it: one per run and stored benchmark (a run without
/// any, a failed one, once with no benchmark), read as `run id, version id, rev, session id,
/// failed, benchmark id, benchmark name, sample count`.
pub(crate) struct CandidateRow {
    run: i64,
    version: i64,
    rev: String,
    session: i64,
    failed: bool,
    benchmark: Option<(i64, String, u64)>,
}

impl CandidateRow {
    /// Reads the columns named above.
    pub(crate) fn read<R: Cells>(r: &R) -> Result<Self, R::Error> {
        let benchmark = match (r.maybe_int(5)?, r.maybe_text(6)?) {
            (Some(id), Some(name)) => Some((id, name, r.int(7)?.max(0) as u64)),
            _ => None,
        };
        Ok(Self {
            run: r.int(0)?,
            version: r.int(1)?,
            rev: r.text(2)?,
            session: r.int(3)?,
            failed: r.flag(4)?,
            benchmark,
        })
    }
}

/// What a backend deletes and updates, and what it reports.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    /// The report, without the sessions and changes (the statements tell those).
    pub(crate) removed: Removed,
    /// The stored benchmarks to delete with their samples and executions: (run, benchmark).
    pub(crate) parts: Vec<(i64, i64)>,
    /// The runs to delete.
    pub(crate) runs: Vec<i64>,
    /// The sessions of deleted runs, to delete when no run is left in them.
    pub(crate) sessions: Vec<i64>,
    /// (benchmark, version) pairs whose changes are no longer current.
    pub(crate) changed: Vec<(i64, i64)>,
}

/// Decides what goes from the candidate rows (ordered by run): without a benchmark, every
/// selected run whole; with one, that benchmark of each run that has it, and the runs left with
/// nothing.
pub(crate) fn plan(rows: Vec<CandidateRow>, benchmark: Option<&str>) -> Plan {
    let mut plan = Plan::default();
    let mut rows = rows.into_iter().peekable();
    while let Some(first) = rows.next() {
        let mut stored = Vec::new();
        stored.extend(first.benchmark.clone());
        while let Some(next) = rows.next_if(|r| r.run == first.run) {
            stored.extend(next.benchmark);
        }
        let total = stored.len();
        let chosen: Vec<(i64, String, u64)> = stored
            .into_iter()
            .filter(|(_, name, _)| benchmark.is_none_or(|b| b == name))
            .collect();
        if benchmark.is_some() && chosen.is_empty() {
            continue;
        }
        let whole = chosen.len() == total;
        for (id, _, _) in &chosen {
            plan.parts.push((first.run, *id));
            plan.changed.push((*id, first.version));
        }
        if whole {
            plan.runs.push(first.run);
            plan.sessions.push(first.session);
        }
        plan.removed.runs.push(RemovedRun {
            id: RunId(first.run),
            rev: first.rev,
            session: SessionId(first.session),
            failed: first.failed,
            samples: chosen.iter().map(|c| c.2).sum(),
            benchmarks: chosen.into_iter().map(|c| c.1).collect(),
            whole,
        });
    }
    plan.sessions.sort_unstable();
    plan.sessions.dedup();
    plan.changed.sort_unstable();
    plan.changed.dedup();
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(run: i64, version: i64, benchmark: Option<(i64, &str, u64)>) -> CandidateRow {
        CandidateRow {
            run,
            version,
            rev: format!("v{version}"),
            session: 10 + run,
            failed: benchmark.is_none(),
            benchmark: benchmark.map(|(id, name, n)| (id, name.to_string(), n)),
        }
    }

    fn rows() -> Vec<CandidateRow> {
        vec![
            row(1, 7, Some((1, "a", 12))),
            row(1, 7, Some((2, "b", 8))),
            row(2, 7, Some((1, "a", 4))),
            row(3, 7, None),
        ]
    }

    #[test]
    fn every_selected_run_goes_whole_without_a_benchmark() {
        let p = plan(rows(), None);
        assert_eq!(p.runs, [1, 2, 3]);
        assert_eq!(p.parts, [(1, 1), (1, 2), (2, 1)]);
        assert_eq!(p.sessions, [11, 12, 13]);
        assert_eq!(p.changed, [(1, 7), (2, 7)]);
        assert_eq!(p.removed.samples(), 24);
        assert!(p.removed.runs.iter().all(|r| r.whole));
        assert!(p.removed.runs[2].failed && p.removed.runs[2].benchmarks.is_empty());
    }

    #[test]
    fn one_benchmark_leaves_the_runs_other_benchmarks_and_failed_runs() {
        let p = plan(rows(), Some("a"));
        assert_eq!(p.parts, [(1, 1), (2, 1)]);
        // Run 1 keeps b; run 2 had only a; the failed run 3 measured no benchmark.
        assert_eq!(p.runs, [2]);
        assert_eq!(p.sessions, [12]);
        assert_eq!(p.changed, [(1, 7)]);
        let whole: Vec<bool> = p.removed.runs.iter().map(|r| r.whole).collect();
        assert_eq!(whole, [false, true]);
        assert_eq!(p.removed.samples(), 16);
        assert!(plan(rows(), Some("c")).removed.is_empty());
    }
}
