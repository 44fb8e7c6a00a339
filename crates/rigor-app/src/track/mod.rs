//! Tracking a project's performance across versions, one module per use case: ingest results
//! into a history (`add`), measure each version of a git repository in a checkout of its own
//! (`measure`), detect changes over each benchmark's series (`detect`) and list them
//! (`changes`), show one benchmark's history (`show`), check a pull request against it
//! (`check`), find the commit that changed it (`bisect`) and remove runs (`remove`).

mod add;
mod anchors;
mod batch;
mod bisect;
mod bisect_run;
mod candidate;
mod changes;
mod check;
mod conditions;
mod confirm;
mod detect;
mod front;
pub mod levels;
mod measure;
mod place;
mod rebuilt;
mod remove;
mod request;
mod shift;
mod show;
mod source;
mod track_run;
mod tracked;

pub use add::*;
pub use anchors::*;
pub use batch::split_versions;
pub use bisect::*;
pub use bisect_run::*;
pub use candidate::*;
pub use changes::*;
pub use check::*;
pub use confirm::*;
pub use detect::*;
pub use front::*;
pub use measure::*;
pub use place::*;
pub use rebuilt::*;
pub use remove::*;
pub use request::*;
pub use shift::*;
pub use show::*;
pub use source::*;
pub use track_run::*;
pub use tracked::*;

// Shared between the use cases (and visible to each through `use super::*`).
use add::why_nothing;
use batch::measure_together;
use measure::{Measurement, Measuring, NoObserver};

use std::path::{Path, PathBuf};

use rigor_history::{
    ChangeFilter, ChangeId, ChangeStatus, ChangeVerdict, DetectedChanges, Evidence, Failure,
    History, HistoryRead, HistoryWrite, Ingest, Ingested, MachineInfo, NewChange, SeriesKey,
    StoredChange, VersionInfo,
};
use rigor_runner::{CommandLine, Executor, StopSignal};
use rigor_stats::compare::Verdict;
use rigor_stats::fdr::bh_adjusted;
use rigor_stats::series::{Segment, SeriesChange, SeriesConfig, VersionMean};
use rigor_store::{BenchmarkRecord, Environment, ResultFile, RunStatus};
use rigor_units::{ConfidenceLevel, Fraction, Metric, Resolution, Seconds, TimeUnit};

use crate::analysis::{analyze_all, hierarchy_of};
use crate::comparisons::ratio_floor;
use crate::error::{AppError, Result};
use crate::git;
use crate::recorder::Progress;
use crate::settings::{AnalysisSettings, RunSettings};
use crate::{Outcome, run};

/// The method name stored with changes found by [`detect_changes`].
pub const METHOD: &str = "e-divisive + version-level random effects";

/// [`METHOD`] for a change found by the versions beside it where the level drifts
/// (`rigor_stats::series::SeriesChange::local`): its ratio and interval are those of the 10
/// versions on either side, and the change table lists it with the evidence `in drift`.
pub const METHOD_LOCAL: &str =
    "e-divisive + version-level random effects; step beside a drift (10 versions each side)";

/// The machine rigor runs on, named `name` (default: its host name).
pub fn this_machine(name: Option<&str>) -> MachineInfo {
    let environment = Environment::detect();
    let name = name
        .map(str::to_string)
        .or_else(|| Some(environment.host.clone()).filter(|h| !h.is_empty()))
        .unwrap_or_else(|| "local".to_string());
    MachineInfo { name, environment }
}

/// A version named by the user: a revision of `repo` when it resolves there, else a label
/// ordered by `order` (then by time, then by when first stored).
pub fn version(repo: Option<&Path>, rev: &str, order: Option<i64>) -> VersionInfo {
    if let Some(info) = repo.and_then(|r| git::resolve(r, rev).ok()) {
        return VersionInfo {
            order: order.or(info.order),
            ..info
        };
    }
    VersionInfo {
        rev: rev.to_string(),
        order,
        ..VersionInfo::default()
    }
}

/// What `track run` needs besides the experiment's settings.
#[derive(Debug)]
pub struct TrackRunSettings {
    /// Where the versions come from.
    pub source: Source,
    /// The versions to measure (commits, or a simulated project's labels), oldest first.
    pub commits: Vec<String>,
    /// Measure versions already stored for this machine and branch again.
    pub force: bool,
    /// Where each batch's result file is written as it is measured.
    pub results_dir: PathBuf,
    /// Also write each stored version's result to a file of its own (`<rev>.version.json`), for
    /// `rigor track add` elsewhere (CI shards merged into one history).
    pub version_files: bool,
    /// The series.
    pub key: SeriesKey,
    /// Versions measured together, in shuffled interleaved rounds, so that drift of the machine
    /// cannot pose as a change between them (1: one version after another). With builds as a
    /// level, versions are measured one at a time. Batches are balanced (22 versions: 11 and
    /// 11).
    pub batch: usize,
    /// Stored versions measured again in every session beside the new ones (the newest stored
    /// and random earlier ones), so that sessions are tied together.
    pub anchors: usize,
    /// What the sessions are.
    pub kind: rigor_history::SessionKind,
}

/// What happened to one version.
#[derive(Debug, Clone, PartialEq)]
pub enum VersionOutcome {
    /// Measured (and stored when `stored`).
    Measured {
        /// The result file it was measured in (with the other versions of its batch).
        file: PathBuf,
        /// How the run ended.
        outcome: Outcome,
        /// Benchmarks that measured nothing in this version (every execution failed): a failure
        /// of this version for them.
        nothing: Vec<String>,
        /// Stored in the history: not when its session was interrupted (measured in part, it
        /// is kept only in `file`, and the same command measures it again in full).
        stored: bool,
    },
    /// Already stored; skipped.
    Skipped {
        /// Stored as failed (its checkout, preparation or build failed, or it measured
        /// nothing), not measured: `--force` measures it again.
        failed_before: bool,
    },
    /// Its checkout or preparation failed, or it measured nothing; recorded as failed.
    Failed {
        /// Why.
        reason: String,
        /// Whether a benchmarked command exited with a status other than zero (what
        /// `-i/--ignore-failure` measures instead of failing).
        exited: bool,
    },
}

/// Hears about each version as `track run` goes.
pub trait TrackObserver {
    /// A batch of versions is about to be measured together with `anchors` (stored versions
    /// measured again), `done` of `total` so far.
    fn batch_started(
        &mut self,
        _versions: &[VersionInfo],
        _anchors: &[VersionInfo],
        _done: usize,
        _total: usize,
    ) {
    }
    /// The versions asked for that are already stored, skipped (said once, before measuring):
    /// those measured, and those stored as failed.
    fn skipped(&mut self, _stored: &[VersionInfo], _failed_before: &[VersionInfo]) {}
    /// A version is done.
    fn version_done(&mut self, _version: &VersionInfo, _outcome: &VersionOutcome) {}
    /// A session is done.
    fn session_done(&mut self, _session: &SessionReport) {}
}

/// A commit id shortened to 12 characters; a label as it is, made safe for a file name.
fn short(rev: &str) -> String {
    if rev.len() == 40 && rev.bytes().all(|b| b.is_ascii_hexdigit()) {
        rev[..12].to_string()
    } else {
        rev.chars()
            .map(|c| {
                if c.is_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    }
}

/// `dir/stem.json`, or `dir/stem-2.json`, … when it exists (several batches may start at the
/// same version with the same seed, as a bisection's steps do).
fn unused_file(dir: &Path, stem: &str) -> PathBuf {
    let mut path = dir.join(format!("{stem}.json"));
    let mut k = 2;
    while path.exists() {
        path = dir.join(format!("{stem}-{k}.json"));
        k += 1;
    }
    path
}

/// Histories for the use cases' tests.
#[cfg(test)]
pub(crate) mod fixture {
    use super::*;
    use crate::recorder::NoProgress;
    use crate::settings::{RunRequest, RunSettings};
    use crate::simulated_project::SimProject;

    /// A history in `dir` measured by `track run` over the versions of the simulated `project`
    /// (`versions=N,…`): two benchmarks, `a` (10 ms) and `b` (5 ms), 1% noise between
    /// executions, `executions` each, in sessions of `batch` versions with `anchors` anchors,
    /// everything seeded by `seed`. With what measured it, for a test to measure more.
    pub(crate) fn tracked(
        dir: &Path,
        project: &str,
        executions: usize,
        seed: u64,
        batch: usize,
        anchors: usize,
    ) -> (
        rigor_history::SqliteHistory,
        TrackRunSettings,
        RunSettings,
        rigor_runner::SimulatedExecutor,
    ) {
        let mut history = rigor_history::SqliteHistory::open(&dir.join("h.db")).unwrap();
        let experiment = RunRequest {
            simulate: true,
            commands: vec![
                "mean=10ms,execution=1%".into(),
                "mean=5ms,execution=1%".into(),
            ],
            names: vec!["a".into(), "b".into()],
            executions: Some(executions),
            seed: Some(rigor_units::Seed::from(seed)),
            ..RunRequest::default()
        }
        .resolve()
        .unwrap()
        .settings;
        let project = SimProject::parse(project).unwrap();
        let settings = TrackRunSettings {
            commits: (0..project.versions).map(SimProject::label).collect(),
            source: Source::Simulated(project),
            force: false,
            results_dir: dir.join("runs"),
            version_files: false,
            key: SeriesKey::new("m", "main"),
            batch,
            anchors,
            kind: rigor_history::SessionKind::Run,
        };
        let mut executor = rigor_runner::SimulatedExecutor::new(seed);
        run_versions(
            &mut history,
            &settings,
            &experiment,
            &mut executor,
            StopSignal::new(),
            &mut NoProgress,
            &mut NoObserver,
        )
        .unwrap();
        (history, settings, experiment, executor)
    }
}
