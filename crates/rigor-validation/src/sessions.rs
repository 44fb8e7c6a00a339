//! Change detection when sessions shift what they measure: known truth driven through rigor's
//! real `track` pipeline (docs/validation/sessions.md, `rigor-validation sessions`).
//!
//! Each simulated project ([`SimProject`]) has 60–100 versions of one or two benchmarks, true
//! steps of 2–10% (random sign, about one per 25 versions per benchmark, never closer than 10
//! versions), stretches of versions whose builds are byte-identical, and sessions that shift
//! every version they measure by `exp(N(0, σ_s²))`. It is measured with
//! [`rigor_app::track::run_versions`] into a temporary SQLite history, by the simulated executor
//! (no processes), in sessions of `S` versions:
//!
//! - with two anchors per session (`track run`'s default), then [`track::detect_changes`] (the
//!   session-adjusted detection) and [`track::confirm_in_rounds`] on what it found (`track run`
//!   confirms by default, and confirms a change detected anew after the confirmations in turn);
//! - without anchors, then the method rigor had before sessions were modelled:
//!   [`rigor_stats::series::detect_floored`] on each version's stored level (sessions ignored),
//!   Benjamini–Hochberg across the benchmarks; the same per-version levels go to Apache Otava and
//!   asv (`scripts/history_peers.py`) with `--peers`, and to rigor's own detection, which then
//!   finds sessions that share no version.
//!
//! A reported change farther than [`TOLERANCE`] versions from every true step of its benchmark
//! is a false alarm; a true step with a reported change within [`TOLERANCE`] versions is found.
//! Changes marked confounded with a session boundary are not reported as regressions or
//! improvements, and are counted on their own.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use rigor_app::recorder::NoProgress;
use rigor_app::settings::{RunRequest, RunSettings};
use rigor_app::simulated_project::{SimProject, SimStep};
use rigor_app::track::{
    self, Candidate, ConfirmSettings, DetectSettings, Source, TrackObserver, TrackRunSettings,
};
use rigor_history::{
    ChangeFilter, Evidence, HistoryRead, SeriesKey, SessionKind, SqliteHistory, StoredChange,
};
use rigor_runner::executor::BuildRequest;
use rigor_runner::{
    ExecutionOutcome, ExecutionRequest, Executor, HookRequest, RunError, SimulatedExecutor,
    StopSignal,
};
use rigor_stats::compare::Verdict;
use rigor_stats::fdr::bh_adjusted;
use rigor_stats::series::{SeriesConfig, VersionMean, detect_floored};
use rigor_units::{ConfidenceLevel, Seed};

use crate::common::{experiment_seed, row_seed, splitmix64};
use crate::peers::{Peer, run_peers};

/// A reported change within this many versions of a true step finds it; farther from every
/// true step it is a false alarm.
pub const TOLERANCE: usize = 2;
/// Executions per version in each session (`-r 10`).
pub const EXECUTIONS: usize = 10;
/// The simulated benchmarks: 10 ms (and 4 ms), executions varying by 2%.
const COMMANDS: [&str; 2] = ["mean=10ms,execution=2%", "mean=4ms,execution=2%"];
/// Anchors per session of the measurement with sessions modelled (`track run`'s default).
pub const ANCHORS: usize = 2;
/// Anchors per session of the second measurement with sessions modelled.
pub const MORE_ANCHORS: usize = 4;
/// The most rounds of each `track check --candidate` comparison (its default).
const CHECK_ROUNDS: usize = 200;

/// How big a study is.
#[derive(Debug, Clone, PartialEq)]
pub struct StudySizes {
    /// Simulated projects per cell (σ_s × S).
    pub projects: usize,
    /// SDs of the sessions' shifts (log scale).
    pub sigmas: Vec<f64>,
    /// Versions per session.
    pub batches: Vec<usize>,
    /// Fewest and most versions of a project.
    pub versions: (usize, usize),
    /// Trials of `track check --candidate` per kind of candidate.
    pub check_trials: usize,
}

impl StudySizes {
    /// The grid: σ_s ∈ {0, 5, 10, 20%} × S ∈ {5, 10, 20, 40}, 50 projects of 60–100
    /// versions per cell, 20 candidate checks of each kind.
    pub fn full() -> Self {
        Self {
            projects: 50,
            sigmas: vec![0.0, 0.05, 0.10, 0.20],
            batches: vec![5, 10, 20, 40],
            versions: (60, 100),
            check_trials: 20,
        }
    }

    /// A few seconds, for tests: one cell of two short projects, two checks of each kind.
    pub fn tiny() -> Self {
        Self {
            projects: 2,
            sigmas: vec![0.10],
            batches: vec![10],
            versions: (30, 40),
            check_trials: 2,
        }
    }
}

/// One change a method reported in one benchmark's series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detection {
    /// The first version (0-based) after the change.
    pub version: usize,
    /// Marked confounded with a session boundary: shown, not reported as a regression or an
    /// improvement.
    pub confounded: bool,
}

impl Detection {
    /// A reported change at `version`.
    pub fn reported(version: usize) -> Self {
        Self {
            version,
            confounded: false,
        }
    }
}

/// The truth of one project: each benchmark's true steps, (first version at the new level,
/// relative change).
#[derive(Debug, Clone, PartialEq)]
pub struct Truth {
    /// Versions of the project.
    pub versions: usize,
    /// Per benchmark, its steps in version order.
    pub steps: Vec<Vec<(usize, f64)>>,
}

impl Truth {
    /// The truth of a simulated project with `benchmarks` benchmarks.
    pub fn of(project: &SimProject, benchmarks: usize) -> Self {
        let steps = (0..benchmarks)
            .map(|b| {
                let mut s: Vec<(usize, f64)> = project
                    .steps
                    .iter()
                    .filter(|s| s.benchmark.is_none_or(|x| x == b))
                    .map(|s| (s.version, s.factor - 1.0))
                    .collect();
                s.sort_by_key(|x| x.0);
                s
            })
            .collect();
        Self {
            versions: project.versions,
            steps,
        }
    }
}

/// Counts of one method over some projects.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Projects.
    pub projects: usize,
    /// Consecutive version pairs, over every benchmark.
    pub pairs: usize,
    /// Reported changes farther than [`TOLERANCE`] versions from every true step.
    pub false_alarms: usize,
    /// Changes marked confounded farther than [`TOLERANCE`] versions from every true step.
    pub confounded_far: usize,
    /// Changes marked confounded within [`TOLERANCE`] versions of a true step.
    pub confounded_near: usize,
    /// True steps of at least 5%, and those found.
    pub steps_5: usize,
    /// True steps of at least 5% with a reported change within [`TOLERANCE`] versions.
    pub found_5: usize,
    /// True steps of at least 2%.
    pub steps_2: usize,
    /// True steps of at least 2% found.
    pub found_2: usize,
}

impl Tally {
    /// Adds another tally's counts.
    pub fn add(&mut self, o: &Self) {
        self.projects += o.projects;
        self.pairs += o.pairs;
        self.false_alarms += o.false_alarms;
        self.confounded_far += o.confounded_far;
        self.confounded_near += o.confounded_near;
        self.steps_5 += o.steps_5;
        self.found_5 += o.found_5;
        self.steps_2 += o.steps_2;
        self.found_2 += o.found_2;
    }

    /// False alarms per 1,000 version pairs.
    pub fn false_alarms_per_1000(&self) -> f64 {
        per_1000(self.false_alarms, self.pairs)
    }

    /// Confounded changes away from every true step per 1,000 version pairs.
    pub fn confounded_per_1000(&self) -> f64 {
        per_1000(self.confounded_far, self.pairs)
    }

    /// Share of true steps ≥ 5% found.
    pub fn recall_5(&self) -> f64 {
        share(self.found_5, self.steps_5)
    }

    /// Share of true steps ≥ 2% found.
    pub fn recall_2(&self) -> f64 {
        share(self.found_2, self.steps_2)
    }

    /// Share of true steps of 2% to 5% (not ≥ 5%) found, with their counts (found, steps).
    pub fn recall_2_to_5(&self) -> (f64, usize, usize) {
        let (found, of) = (
            self.found_2.saturating_sub(self.found_5),
            self.steps_2.saturating_sub(self.steps_5),
        );
        (share(found, of), found, of)
    }
}

fn per_1000(x: usize, of: usize) -> f64 {
    1000.0 * share(x, of)
}

fn share(x: usize, of: usize) -> f64 {
    if of == 0 {
        f64::NAN
    } else {
        x as f64 / of as f64
    }
}

/// Scores what a method found in one project (`found[b]`: benchmark `b`'s detections) against
/// the truth.
pub fn tally(truth: &Truth, found: &[Vec<Detection>]) -> Tally {
    let mut t = Tally {
        projects: 1,
        ..Tally::default()
    };
    let none = Vec::new();
    for (b, steps) in truth.steps.iter().enumerate() {
        t.pairs += truth.versions.saturating_sub(1);
        let mine = found.get(b).unwrap_or(&none);
        for d in mine {
            let near = steps
                .iter()
                .any(|(at, _)| at.abs_diff(d.version) <= TOLERANCE);
            match (d.confounded, near) {
                (false, false) => t.false_alarms += 1,
                (true, false) => t.confounded_far += 1,
                (true, true) => t.confounded_near += 1,
                (false, true) => {}
            }
        }
        for &(at, size) in steps {
            let hit = mine
                .iter()
                .any(|d| !d.confounded && d.version.abs_diff(at) <= TOLERANCE);
            if size.abs() >= 0.05 - 1e-12 {
                t.steps_5 += 1;
                t.found_5 += usize::from(hit);
            }
            if size.abs() >= 0.02 - 1e-12 {
                t.steps_2 += 1;
                t.found_2 += usize::from(hit);
            }
        }
    }
    t
}

/// A simulated project: `versions` in the range given, one or two benchmarks, steps and
/// identical-build stretches as the module documentation says, sessions shifted with SD
/// `sigma`. Returns the project and its number of benchmarks.
pub fn simulate_project(
    rng: &mut ChaCha8Rng,
    sigma: f64,
    versions: (usize, usize),
) -> (SimProject, usize) {
    let n = rng.gen_range(versions.0..=versions.1.max(versions.0));
    let benchmarks = if rng.gen_bool(0.5) { 1 } else { 2 };
    let mut steps = Vec::new();
    for b in 0..benchmarks {
        let mut at = 0;
        loop {
            at += rng.gen_range(10..=40);
            if at + 3 >= n {
                break;
            }
            let size = rng.gen_range(0.02..=0.10) * if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
            steps.push(SimStep {
                version: at,
                factor: 1.0 + size,
                benchmark: Some(b),
            });
        }
    }
    // Stretches of 2–5 versions whose builds are identical (a README change, a test-only
    // commit), none with a step inside: about one version in eight is identical to the one before.
    let mut identical = Vec::new();
    let mut i = 1;
    while i < n {
        if rng.gen_bool(0.05) {
            let (a, b) = (i - 1, (i + rng.gen_range(0..=3)).min(n - 1));
            if !steps.iter().any(|s| a < s.version && s.version <= b) {
                identical.push(a..=b);
                i = b + 2;
                continue;
            }
        }
        i += 1;
    }
    let project = SimProject {
        versions: n,
        steps,
        identical,
        session_sd: sigma,
        load: (0.5, 0.5),
    };
    (project, benchmarks)
}

/// Hears nothing of `track run`'s progress.
struct Quiet;
impl TrackObserver for Quiet {}

/// The simulated executor, adding up the wall time of every execution it makes (warm-ups
/// included): the measuring cost.
struct Counting {
    inner: SimulatedExecutor,
    wall: f64,
}

impl Executor for Counting {
    fn execute(&mut self, request: &ExecutionRequest<'_>) -> Result<ExecutionOutcome, RunError> {
        let o = self.inner.execute(request)?;
        self.wall += o.wall.get();
        Ok(o)
    }
    fn build(&mut self, request: &BuildRequest<'_>) -> Result<ExecutionOutcome, RunError> {
        self.inner.build(request)
    }
    fn run_hook(&mut self, request: &HookRequest<'_>) -> Result<ExecutionOutcome, RunError> {
        self.inner.run_hook(request)
    }
}

/// The benchmarks' names.
fn names(benchmarks: usize) -> Vec<String> {
    ["a", "b"][..benchmarks]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// The experiment of every session: the simulated commands, `-r 10`, the seed.
fn experiment(benchmarks: usize, seed: u64) -> Result<RunSettings, String> {
    let request = RunRequest {
        simulate: true,
        commands: COMMANDS[..benchmarks]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        names: names(benchmarks),
        executions: Some(EXECUTIONS),
        seed: Some(Seed::from(seed)),
        ..RunRequest::default()
    };
    Ok(request.resolve().map_err(|e| e.to_string())?.settings)
}

fn key() -> SeriesKey {
    SeriesKey::new("simulated", "main")
}

/// The settings of `track run` over every version of `project`.
fn track_settings(
    project: &SimProject,
    batch: usize,
    anchors: usize,
    dir: &Path,
) -> TrackRunSettings {
    TrackRunSettings {
        source: Source::Simulated(project.clone()),
        commits: (0..project.versions).map(SimProject::label).collect(),
        force: false,
        results_dir: dir.join("runs"),
        version_files: false,
        key: key(),
        batch,
        anchors,
        kind: SessionKind::Run,
    }
}

/// A project measured by `track run` into its own history.
struct Measured {
    history: SqliteHistory,
    settings: TrackRunSettings,
    experiment: RunSettings,
    executor: Counting,
    /// Measured time of the new versions, and of the anchors.
    time: (f64, f64),
}

/// What every measurement of one project shares: the project, its first `benchmarks`, the
/// versions per session (`batch`) and the seed.
#[derive(Clone, Copy)]
struct Trial<'a> {
    project: &'a SimProject,
    benchmarks: usize,
    batch: usize,
    seed: u64,
}

/// Measures a trial's project with `anchors` per session into a history in `dir`.
fn measure(t: Trial<'_>, anchors: usize, dir: &Path) -> Result<Measured, String> {
    let experiment = experiment(t.benchmarks, t.seed)?;
    let settings = track_settings(t.project, t.batch, anchors, dir);
    let mut history = SqliteHistory::open(&dir.join("history.db")).map_err(|e| e.to_string())?;
    let mut executor = Counting {
        inner: SimulatedExecutor::new(experiment.runner.seed),
        wall: 0.0,
    };
    let tracked = track::run_versions(
        &mut history,
        &settings,
        &experiment,
        &mut executor,
        StopSignal::new(),
        &mut NoProgress,
        &mut Quiet,
    )
    .map_err(|e| e.to_string())?;
    let total: f64 = tracked.sessions.iter().map(|s| s.measured.0.get()).sum();
    let anchored: f64 = tracked.sessions.iter().map(|s| s.measured.1.get()).sum();
    Ok(Measured {
        history,
        settings,
        experiment,
        executor,
        time: (total - anchored, anchored),
    })
}

/// The changes stored as current, as detections per benchmark (refuted ones left out).
fn detections(
    changes: &[StoredChange],
    project: &SimProject,
    benchmarks: usize,
) -> Vec<Vec<Detection>> {
    let names = names(benchmarks);
    let mut out = vec![Vec::new(); benchmarks];
    for c in changes.iter().filter(|c| c.current) {
        let (Some(b), Some(v)) = (
            names.iter().position(|n| *n == c.benchmark),
            project.version_of(&c.change.rev),
        ) else {
            continue;
        };
        let confounded = match c.change.evidence {
            Evidence::Detected | Evidence::Confirmed => false,
            Evidence::Confounded => true,
            Evidence::Refuted => continue,
        };
        out[b].push(Detection {
            version: v,
            confounded,
        });
    }
    out
}

/// The methods of the study, in the order of [`ProjectResult::found`] (Otava and asv follow
/// when `--peers` runs them).
pub const METHODS: [&str; 5] = [
    "rigor, 2 anchors (the default), detection only",
    "rigor, 2 anchors (the default), detected then confirmed (`track run`'s default)",
    "rigor, 4 anchors (`--anchors 4`), detected then confirmed",
    "before sessions: no anchors, each version's stored level, sessions ignored",
    "rigor's detection on the no-anchor measurement (sessions unconnected)",
];

/// The method whose numbers are held against the targets: `track run` as it is by default.
pub const DEFAULT_METHOD: usize = 1;

/// Measured time (simulated seconds of every execution, warm-ups included).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    /// The new versions' own measuring.
    pub versions: f64,
    /// The anchors'.
    pub anchors: f64,
    /// The confirmations'.
    pub confirmations: f64,
}

impl Cost {
    /// Adds another's.
    pub fn add(&mut self, o: &Self) {
        self.versions += o.versions;
        self.anchors += o.anchors;
        self.confirmations += o.confirmations;
    }
}

/// What one project gave.
#[derive(Debug, Clone)]
pub struct ProjectResult {
    /// Its truth.
    pub truth: Truth,
    /// Per method of [`METHODS`], per benchmark, what it found.
    pub found: Vec<Vec<Vec<Detection>>>,
    /// Per benchmark, each version's stored level in the no-anchor measurement (what Otava and
    /// asv are given).
    pub levels: Vec<Vec<f64>>,
    /// Measured time with [`ANCHORS`] and with [`MORE_ANCHORS`] anchors per session.
    pub cost: [Cost; 2],
}

/// A temporary folder for a project's histories: in memory (`/dev/shm`) where there is one, so
/// that SQLite's syncs cost nothing, else in the system's temporary folder.
fn scratch() -> Result<tempfile::TempDir, String> {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(d) = tempfile::Builder::new()
            .prefix("rigor-sessions-")
            .tempdir_in(shm)
        {
            return Ok(d);
        }
    }
    tempfile::tempdir().map_err(|e| e.to_string())
}

/// What `track run` reports of a project measured with some anchors per session: what
/// detection found, what stays after confirmation, and the measured time of the versions, the
/// anchors and the confirmations.
struct Modelled {
    detected: Vec<Vec<Detection>>,
    confirmed: Vec<Vec<Detection>>,
    cost: Cost,
}

/// Sessions modelled: `anchors` per session, adjusted detection, then confirmation of every
/// change it found (new or confounded), and of the changes detected anew after it, in rounds,
/// as `track run` does.
// The closures return rigor_app::Result, whose error is large (as every use case's).
#[allow(clippy::result_large_err)]
fn sessions_modelled(t: Trial<'_>, anchors: usize, dir: &Path) -> Result<Modelled, String> {
    let key = key();
    let mut m = measure(t, anchors, dir)?;
    let found = track::detect_changes(&mut m.history, &key, &DetectSettings::default())
        .map_err(|e| e.to_string())?;
    let before_confirming = m.executor.wall;
    let (settings, experiment, executor) = (&m.settings, &m.experiment, &mut m.executor);
    track::confirm_in_rounds(
        &mut m.history,
        found.clone(),
        Vec::new(),
        |history, new, _| {
            track::confirm_changes(
                history,
                settings,
                experiment,
                new,
                &ConfirmSettings::default(),
                executor,
                StopSignal::new(),
                &mut NoProgress,
            )
        },
        |history| track::detect_changes(history, &key, &DetectSettings::default()),
    )
    .map_err(|e| e.to_string())?;
    let after = m
        .history
        .changes(&ChangeFilter {
            machine: Some(key.machine.clone()),
            branch: Some(key.branch.clone()),
            ..ChangeFilter::default()
        })
        .map_err(|e| e.to_string())?;
    Ok(Modelled {
        detected: detections(&found, t.project, t.benchmarks),
        confirmed: detections(&after, t.project, t.benchmarks),
        cost: Cost {
            versions: m.time.0,
            anchors: m.time.1,
            confirmations: m.executor.wall - before_confirming,
        },
    })
}

/// Measures one project every way and runs every method of [`METHODS`] on it.
pub fn run_project(
    project: &SimProject,
    benchmarks: usize,
    batch: usize,
    seed: u64,
) -> Result<ProjectResult, String> {
    let tmp = scratch()?;
    let dir = tmp.path();
    let trial = Trial {
        project,
        benchmarks,
        batch,
        seed,
    };
    let two = sessions_modelled(trial, ANCHORS, &dir.join("a2"))?;
    let four = sessions_modelled(trial, MORE_ANCHORS, &dir.join("a4"))?;
    // Before sessions: no anchors, one level per version as stored.
    let mut plain = measure(trial, 0, &dir.join("plain"))?;
    let levels = stored_levels(&plain.history, project, benchmarks)?;
    let before_sessions = detect_plain(&levels)?;
    let unconnected = track::detect_changes(&mut plain.history, &key(), &DetectSettings::default())
        .map_err(|e| e.to_string())?;
    let unconnected = detections(&unconnected, project, benchmarks);
    Ok(ProjectResult {
        truth: Truth::of(project, benchmarks),
        found: vec![
            two.detected,
            two.confirmed,
            four.confirmed,
            before_sessions,
            unconnected,
        ],
        levels: levels
            .iter()
            .map(|l| l.iter().map(|v| v.mean).collect())
            .collect(),
        cost: [two.cost, four.cost],
    })
}

/// Each benchmark's per-version level as stored (the level of the version's runs: with no
/// anchors, its one run), in version order.
fn stored_levels(
    history: &SqliteHistory,
    project: &SimProject,
    benchmarks: usize,
) -> Result<Vec<Vec<VersionMean>>, String> {
    let all = track::levels::series_levels(history, &key(), ConfidenceLevel::NINETY_FIVE)
        .map_err(|e| e.to_string())?;
    let names = names(benchmarks);
    let mut out = vec![Vec::new(); benchmarks];
    for l in &all {
        let Some(b) = names.iter().position(|n| *n == l.benchmark) else {
            continue;
        };
        for (i, v) in l.versions.iter().enumerate() {
            if project.version_of(&v.rev) != Some(i) {
                return Err(format!("{}: version {} out of place", l.benchmark, v.rev));
            }
            // Several runs of a version (not here: no anchors) pool with weights 1/variance.
            let w: Vec<f64> = v
                .runs
                .iter()
                .map(|r| 1.0 / r.variance.max(1e-300))
                .collect();
            let sw: f64 = w.iter().sum();
            let mean = v.runs.iter().zip(&w).map(|(r, w)| w * r.level).sum::<f64>() / sw;
            out[b].push(VersionMean {
                mean,
                variance: 1.0 / sw,
            });
        }
    }
    Ok(out)
}

/// The detection rigor had before sessions (`detect_floored` on the raw per-version levels,
/// no resolution to floor at here), Benjamini–Hochberg at 5% across the project's benchmarks.
fn detect_plain(levels: &[Vec<VersionMean>]) -> Result<Vec<Vec<Detection>>, String> {
    let cfg = SeriesConfig::default();
    let mut found: Vec<(usize, usize, f64)> = Vec::new();
    for (b, series) in levels.iter().enumerate() {
        let a = detect_floored(series, &cfg, &|_, _, i| i).map_err(|e| e.to_string())?;
        for c in a.changes.iter().filter(|c| c.verdict.is_change()) {
            found.push((b, c.index, c.p_adjusted));
        }
    }
    let mut out = vec![Vec::new(); levels.len()];
    if found.is_empty() {
        return Ok(out);
    }
    let p: Vec<f64> = found.iter().map(|f| f.2).collect();
    let q = bh_adjusted(&p).map_err(|e| e.to_string())?;
    for (f, q) in found.iter().zip(q) {
        if q <= 1.0 - cfg.level {
            out[f.0].push(Detection::reported(f.1));
        }
    }
    Ok(out)
}

/// One cell of the grid: its projects' results.
#[derive(Debug, Clone)]
pub struct CellResult {
    /// SD of the sessions' shifts.
    pub sigma: f64,
    /// Versions per session.
    pub batch: usize,
    /// The cell's seed (project `i` is seeded `splitmix64(seed + i)`).
    pub seed: u64,
    /// Per method (of [`METHODS`], then the peers'), its counts.
    pub tallies: Vec<Tally>,
    /// Measured time with [`ANCHORS`] and with [`MORE_ANCHORS`] anchors per session.
    pub cost: [Cost; 2],
    /// Projects that could not be measured, with why.
    pub failed: Vec<String>,
    /// Detections of the default (2 anchors) that its confirmation took away, by where they lay:
    /// at a true step, 1–[`TOLERANCE`] versions from one, farther.
    pub dropped: [usize; 3],
}

/// A whole study at one master seed.
#[derive(Debug, Clone)]
pub struct Study {
    /// The master seed.
    pub seed: u64,
    /// The names of the methods, in the order of every cell's tallies.
    pub methods: Vec<String>,
    /// The cells, σ_s slowest.
    pub cells: Vec<CellResult>,
    /// Wall-clock seconds it took.
    pub seconds: f64,
}

impl Study {
    /// Method `m`'s counts pooled over the cells with session SD `sigma` (all with `None`).
    pub fn pooled(&self, m: usize, sigma: Option<f64>) -> Tally {
        let mut t = Tally::default();
        for c in self
            .cells
            .iter()
            .filter(|c| sigma.is_none_or(|s| (c.sigma - s).abs() < 1e-12))
        {
            if let Some(x) = c.tallies.get(m) {
                t.add(x);
            }
        }
        t
    }

    /// The measuring costs pooled over the cells of session SD `sigma` and sessions of `batch`
    /// versions (all with `None`), with [`ANCHORS`] (`k` = 0) or [`MORE_ANCHORS`] (1) anchors,
    /// relative to the versions' own: (anchors, confirmations).
    pub fn relative_cost(&self, sigma: Option<f64>, batch: Option<usize>, k: usize) -> (f64, f64) {
        let mut c = Cost::default();
        for cell in self.cells.iter().filter(|c| {
            sigma.is_none_or(|s| (c.sigma - s).abs() < 1e-12) && batch.is_none_or(|b| c.batch == b)
        }) {
            c.add(&cell.cost[k]);
        }
        (c.anchors / c.versions, c.confirmations / c.versions)
    }
}

/// Runs the study: every cell's projects (in parallel, each in a temporary folder), and with
/// `peers` (the path of scripts/history_peers.py) Apache Otava and asv on the no-anchor levels.
pub fn study(sizes: &StudySizes, seed: u64, peers: Option<&Path>, verbose: bool) -> Study {
    let started = Instant::now();
    let cells: Vec<(f64, usize, u64)> = sizes
        .sigmas
        .iter()
        .flat_map(|&s| {
            sizes.batches.iter().map(move |&b| {
                let label = format!("sessions σ={s} S={b}");
                (s, b, row_seed(seed, &label))
            })
        })
        .collect();
    let jobs: Vec<(usize, usize)> = (0..cells.len())
        .flat_map(|c| (0..sizes.projects).map(move |p| (c, p)))
        .collect();
    let results: Vec<Result<ProjectResult, String>> = jobs
        .par_iter()
        .map(|&(c, p)| {
            let (sigma, batch, cell_seed) = cells[c];
            let s = experiment_seed(cell_seed, p);
            let mut rng = ChaCha8Rng::seed_from_u64(s);
            let (project, benchmarks) = simulate_project(&mut rng, sigma, sizes.versions);
            let r = run_project(&project, benchmarks, batch, splitmix64(s ^ 0x5e55));
            if verbose {
                eprintln!("sessions: σ_s {sigma} S {batch} project {p} done");
            }
            r
        })
        .collect();
    let mut methods: Vec<String> = METHODS.iter().map(|s| s.to_string()).collect();
    let peer_found = peers.and_then(|script| {
        let series: Vec<(String, Vec<f64>)> = jobs
            .iter()
            .zip(&results)
            .filter_map(|(&(c, p), r)| Some(((c, p), r.as_ref().ok()?)))
            .flat_map(|((c, p), r)| {
                r.levels
                    .iter()
                    .enumerate()
                    .map(move |(b, l)| (format!("{c}/{p}/{b}"), l.clone()))
            })
            .collect();
        match run_peers(&series, script) {
            Ok(found) => Some(found),
            Err(e) => {
                eprintln!("peers not run: {e}");
                None
            }
        }
    });
    if peer_found.is_some() {
        methods.push(OTAVA.to_string());
        methods.push(ASV.to_string());
    }
    let mut out: Vec<CellResult> = cells
        .iter()
        .map(|&(sigma, batch, seed)| CellResult {
            sigma,
            batch,
            seed,
            tallies: vec![Tally::default(); methods.len()],
            cost: [Cost::default(); 2],
            failed: Vec::new(),
            dropped: [0; 3],
        })
        .collect();
    for (&(c, p), r) in jobs.iter().zip(&results) {
        let cell = &mut out[c];
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                cell.failed.push(format!("project {p}: {e}"));
                continue;
            }
        };
        for (m, found) in r.found.iter().enumerate() {
            cell.tallies[m].add(&tally(&r.truth, found));
        }
        if let Some(peers) = &peer_found {
            for (k, peer) in [Peer::Otava, Peer::Asv].into_iter().enumerate() {
                let found: Vec<Vec<Detection>> = (0..r.truth.steps.len())
                    .map(|b| {
                        peers
                            .iter()
                            .filter(|f| f.key == format!("{c}/{p}/{b}") && f.peer == peer)
                            .map(|f| Detection::reported(f.index))
                            .collect()
                    })
                    .collect();
                cell.tallies[METHODS.len() + k].add(&tally(&r.truth, &found));
            }
        }
        for (k, d) in dropped(r).into_iter().enumerate() {
            cell.dropped[k] += d;
        }
        for (total, c) in cell.cost.iter_mut().zip(&r.cost) {
            total.add(c);
        }
    }
    Study {
        seed,
        methods,
        cells: out,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// The detections of the default that its confirmation took away (reported, then refuted), by
/// their distance to the nearest true step: 0, 1–[`TOLERANCE`], farther.
fn dropped(r: &ProjectResult) -> [usize; 3] {
    let mut out = [0; 3];
    let (Some(detected), Some(confirmed)) =
        (r.found.get(DEFAULT_METHOD - 1), r.found.get(DEFAULT_METHOD))
    else {
        return out;
    };
    for (b, steps) in r.truth.steps.iter().enumerate() {
        let after = confirmed.get(b).map_or(&[][..], Vec::as_slice);
        for d in detected.get(b).into_iter().flatten() {
            if d.confounded || after.contains(d) {
                continue;
            }
            let distance = steps
                .iter()
                .map(|(at, _)| at.abs_diff(d.version))
                .min()
                .unwrap_or(usize::MAX);
            out[match distance {
                0 => 0,
                x if x <= TOLERANCE => 1,
                _ => 2,
            }] += 1;
        }
    }
    out
}

const OTAVA: &str = "Apache Otava 0.8.0 (its PyPI package) on the no-anchor levels";
const ASV: &str =
    "asv 0.6.6 step detection (its PyPI package), steps ≥ 5%, on the no-anchor levels";

/// What `track check --candidate` said in some trials.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckCounts {
    /// Trials.
    pub trials: usize,
    /// Verdict regression.
    pub regressions: usize,
    /// Verdict improvement.
    pub improvements: usize,
    /// Verdict equivalent.
    pub equivalent: usize,
    /// Trials that failed to measure.
    pub failed: usize,
}

/// One candidate check's verdict and measured time, or why it could not be measured.
type CheckRun = Result<(Verdict, f64), String>;

/// `track check --candidate` on simulated projects (20 versions, sessions shifted with SD
/// `sigma`, +5% at the last version): `trials` times with a candidate as fast as the baseline,
/// another build (v18 against v19: the baseline itself is identical and not measured), and
/// `trials` times with the +5% version (v20 against v19). Returns the counts of each, and the
/// median measured time of a check (simulated seconds).
pub fn check_trials(sigma: f64, trials: usize, seed: u64) -> (CheckCounts, CheckCounts, f64) {
    let kinds = ["v18", "v20"];
    let runs: Vec<(usize, CheckRun)> = (0..2 * trials)
        .into_par_iter()
        .map(|k| {
            let (kind, t) = (k / trials, k % trials);
            let s = experiment_seed(row_seed(seed, &format!("check {}", kinds[kind])), t);
            (kind, one_check(sigma, kinds[kind], s))
        })
        .collect();
    let mut counts = [CheckCounts::default(); 2];
    let mut costs = Vec::new();
    for (kind, r) in runs {
        let c = &mut counts[kind];
        c.trials += 1;
        match r {
            Ok((v, cost)) => {
                costs.push(cost);
                match v {
                    Verdict::Regression => c.regressions += 1,
                    Verdict::Improvement => c.improvements += 1,
                    Verdict::Equivalent => c.equivalent += 1,
                    _ => {}
                }
            }
            Err(_) => c.failed += 1,
        }
    }
    costs.sort_by(f64::total_cmp);
    let median = costs.get(costs.len() / 2).copied().unwrap_or(f64::NAN);
    (counts[0], counts[1], median)
}

/// One `track check --candidate CANDIDATE --baseline-rev v19`: its verdict and measured time.
fn one_check(sigma: f64, candidate: &str, seed: u64) -> CheckRun {
    let project = SimProject {
        versions: 20,
        steps: vec![SimStep {
            version: 19,
            factor: 1.05,
            benchmark: None,
        }],
        identical: Vec::new(),
        session_sd: sigma,
        load: (0.5, 0.5),
    };
    let tmp = scratch()?;
    let experiment = experiment(1, seed)?;
    let settings = track_settings(&project, 20, 0, tmp.path());
    let mut executor = Counting {
        inner: SimulatedExecutor::new(experiment.runner.seed),
        wall: 0.0,
    };
    let baseline = settings.source.resolve("v19").map_err(|e| e.to_string())?;
    let verdicts = track::check_candidate(
        &settings,
        &experiment,
        &baseline,
        &Candidate::Rev(
            settings
                .source
                .resolve(candidate)
                .map_err(|e| e.to_string())?,
        ),
        (None, CHECK_ROUNDS),
        &mut executor,
        StopSignal::new(),
        &mut NoProgress,
    )
    .map_err(|e| e.to_string())?;
    let v = verdicts.first().ok_or("no verdict")?;
    match &v.outcome {
        track::CandidateOutcome::Measured(r) => Ok((r.verdict, executor.wall)),
        // Byte-identical builds are not measured: equivalent at no cost.
        track::CandidateOutcome::Identical | track::CandidateOutcome::SameVersion => {
            Ok((Verdict::Equivalent, executor.wall))
        }
        track::CandidateOutcome::Failed(why) => Err(why.clone()),
    }
}

fn pct(x: f64) -> String {
    if x.is_nan() {
        "–".to_string()
    } else {
        format!("{:.1}%", 100.0 * x)
    }
}

fn fa(t: &Tally) -> String {
    format!("{:.2} ({})", t.false_alarms_per_1000(), t.false_alarms)
}

fn recall(found: usize, of: usize) -> String {
    format!("{} ({found}/{of})", pct(share(found, of)))
}

/// A table of every method's pooled counts over the cells `pick` keeps.
fn table(study: &Study, title_column: &str, rows: &[(String, Option<f64>)]) -> String {
    let mut out = format!(
        "| {title_column} | method | projects | version pairs | false alarms / 1,000 pairs (count) | confounded, away from true steps / 1,000 (count) | recall, steps ≥ 5% | recall, steps ≥ 2% |\n|---|---|---:|---:|---:|---:|---:|---:|\n"
    );
    for (label, sigma) in rows {
        for (m, name) in study.methods.iter().enumerate() {
            let t = study.pooled(m, *sigma);
            out += &format!(
                "| {label} | {name} | {} | {} | {} | {:.2} ({}) | {} | {} |\n",
                t.projects,
                t.pairs,
                fa(&t),
                t.confounded_per_1000(),
                t.confounded_far,
                recall(t.found_5, t.steps_5),
                recall(t.found_2, t.steps_2),
            );
        }
    }
    out
}

/// The targets of the issue, as (met, what was measured) per σ_s for method `m`.
fn targets(study: &Study, m: usize, sigmas: &[f64]) -> String {
    let mut out = String::new();
    for &s in sigmas {
        let t = study.pooled(m, Some(s));
        let ok = |b: bool| if b { "met" } else { "**not met**" };
        out += &format!(
            "| {:.0}% | {:.2} ({}) — {} | {} — {} | {} — {} |\n",
            100.0 * s,
            t.false_alarms_per_1000(),
            t.false_alarms,
            ok(t.false_alarms_per_1000() <= 0.5),
            pct(t.recall_5()),
            ok(t.recall_5() >= 0.95),
            pct(t.recall_2()),
            ok(t.recall_2() >= 0.85),
        );
    }
    out
}

/// The Markdown page: the study at `seed` in full (per σ_s pooled over S, then per cell), the
/// headline again at `second_seed` (the defaults' validation), and the candidate checks.
pub fn report(
    sizes: &StudySizes,
    seed: u64,
    second_seed: Option<u64>,
    peers: Option<&Path>,
    verbose: bool,
) -> String {
    let started = Instant::now();
    let main = study(sizes, seed, peers, verbose);
    let second = second_seed.map(|s| study(sizes, s, peers, verbose));
    let (same, plus5, check_cost) = check_trials(0.20, sizes.check_trials, seed);
    let seconds = started.elapsed().as_secs_f64();
    let sigmas: Vec<(String, Option<f64>)> = sizes
        .sigmas
        .iter()
        .map(|&s| (format!("{:.0}%", 100.0 * s), Some(s)))
        .chain(std::iter::once(("all".to_string(), None)))
        .collect();
    let mut out = format!(
        "# Change detection with sessions\n\n\
         Regenerate with `cargo run --release -p rigor-validation -- sessions --peers` (`-- all \
         --peers` writes it too; master seed {seed}{}; {:.0} s on this machine's two cores{}).\n\n",
        second_seed.map_or(String::new(), |s| format!(", second seed {s}")),
        seconds,
        if peers.is_some() {
            ""
        } else {
            "; written without `--peers`: Apache Otava and asv not run"
        }
    );
    out += &format!(
        "Known truth through rigor's real pipeline. Each simulated project (`SimProject`) has \
         {}–{} versions of one or two benchmarks (`{}` and `{}`, simulated: no processes), \
         true steps of 2–10% (random sign, about one per 25 versions per benchmark, at least \
         10 versions apart), stretches of 2–5 versions whose builds are byte-identical (about \
         one version in eight), and sessions that shift every version they measure by a factor \
         exp(N(0, σ_s²)). It is measured by `rigor_app::track::run_versions` into a temporary \
         SQLite history, {EXECUTIONS} executions per version, in balanced sessions of at most S \
         versions, twice:\n\n\
         - **with sessions modelled**: {ANCHORS} anchors per session, `track run`'s default (the \
         newest stored version and a random earlier one measured again), then \
         `track::detect_changes` (detection on session-adjusted levels, Benjamini–Hochberg \
         across the benchmarks), then `track::confirm_changes` on every change it found \
         (default budget: 60 s of measuring, 100 rounds, the 10 largest changes), and on every \
         change detected anew with the confirmations' measurements in the history (at most 3 \
         rounds), as `track run` does; and the same with {MORE_ANCHORS} anchors per session (`--anchors \
         {MORE_ANCHORS}`), to show what more anchors buy;\n\
         - **without anchors** (`--anchors 0`): each version's level as stored (the robust level \
         of its one run), and on it the detection rigor had before sessions were modelled \
         (`rigor_stats::series::detect_floored`, one level per version, sessions ignored, \
         Benjamini–Hochberg across the benchmarks); Apache Otava and asv \
         (`scripts/history_peers.py`, their PyPI packages, as in [history.md](history.md)) see \
         the same levels; rigor's current detection on this measurement shows what it makes of \
         sessions that share no version.\n\n\
         A reported change farther than {TOLERANCE} versions from every true step of its \
         benchmark is a false alarm; a true step is found when a reported change lies within \
         ±{TOLERANCE} versions of it. Changes marked **confounded** (their two sides share no \
         session, even through other versions) are shown by `track changes` but never reported \
         as regressions or improvements: they are counted apart, and do not count as found. \
         Counts are in brackets. Each cell σ_s × S has {} projects; project i of a cell is \
         seeded `splitmix64(cell seed + i)`, the cell seeds (below) from the master seed.\n\n",
        sizes.versions.0, sizes.versions.1, COMMANDS[0], COMMANDS[1], sizes.projects,
    );
    out += "## Targets\n\nFrom the issue: at most 0.5 false alarms per 1,000 version pairs with \
            session shifts up to 20%; recall at least 0.95 for changes ≥ 5% and at least 0.85 \
            for changes ≥ 2%. rigor as `track run` reports (detected, then confirmed), pooled \
            over S:\n\n";
    for (label, s) in std::iter::once(("master seed", &main))
        .chain(second.as_ref().map(|s| ("second seed (validation)", s)))
    {
        out += &format!(
            "### {label} {}\n\n| σ_s | false alarms / 1,000 pairs (count) | recall ≥ 5% | recall ≥ 2% |\n|---:|---:|---:|---:|\n",
            s.seed
        );
        out += &targets(s, DEFAULT_METHOD, &sizes.sigmas);
        out.push('\n');
    }
    out += &findings(&main, second.as_ref());
    out += "## Per σ_s, pooled over S (master seed)\n\n";
    out += &table(&main, "σ_s", &sigmas);
    out.push('\n');
    if let Some(s) = &second {
        out += &format!("## Per σ_s, pooled over S (second seed {})\n\n", s.seed);
        out += &table(s, "σ_s", &sigmas);
        out.push('\n');
    }
    out += &format!(
        "## Measuring cost\n\nMeasured time (simulated seconds of every execution, warm-ups \
         included) of the anchors and of the confirmations, relative to the versions' own \
         measuring, master seed:\n\n| S | anchors ({ANCHORS}) | confirmations | anchors \
         ({MORE_ANCHORS}) | confirmations |\n|---:|---:|---:|---:|---:|\n"
    );
    for b in sizes.batches.iter().map(|&b| Some(b)).chain([None]) {
        let (a, c) = main.relative_cost(None, b, 0);
        let (a4, c4) = main.relative_cost(None, b, 1);
        out += &format!(
            "| {} | {} | {} | {} | {} |\n",
            b.map_or("all".to_string(), |b| b.to_string()),
            pct(a),
            pct(c),
            pct(a4),
            pct(c4)
        );
    }
    out.push('\n');
    out += "## Every cell (master seed)\n\n| σ_s | S | cell seed | method | false alarms / 1,000 (count) | confounded away / 1,000 (count) | recall ≥ 5% | recall ≥ 2% |\n|---:|---:|---:|---|---:|---:|---:|---:|\n";
    for c in &main.cells {
        for (m, name) in main.methods.iter().enumerate() {
            let t = &c.tallies[m];
            out += &format!(
                "| {:.0}% | {} | {} | {name} | {} | {:.2} ({}) | {} | {} |\n",
                100.0 * c.sigma,
                c.batch,
                c.seed,
                fa(t),
                t.confounded_per_1000(),
                t.confounded_far,
                recall(t.found_5, t.steps_5),
                recall(t.found_2, t.steps_2),
            );
        }
    }
    let failed: Vec<&String> = main
        .cells
        .iter()
        .chain(second.iter().flat_map(|s| &s.cells))
        .flat_map(|c| &c.failed)
        .collect();
    if !failed.is_empty() {
        out += &format!("\nProjects that could not be measured: {}.\n", failed.len());
        for f in failed.iter().take(5) {
            out += &format!("- {f}\n");
        }
    }
    out += &format!(
        "\n## `track check --candidate`\n\n`rigor_app::track::check_candidate` on simulated \
         projects whose sessions shift by σ_s = 20% (20 versions, +5% at v20), baseline v19, \
         the baseline and the candidate built and measured together in shuffled rounds until \
         decided (at most {CHECK_ROUNDS} rounds, as `track check --candidate` does), {} trials \
         of each:\n\n\
         | candidate | trials | regression | improvement | equivalent | undecided | failed |\n|---|---:|---:|---:|---:|---:|---:|\n{}{}\n\
         A candidate as fast as the baseline gave no regression or improvement in {} of {} \
         trials (the target: at least 19 of 20); the +5% candidate was a regression in {} of \
         {}. Median measured time of a check: {:.2} s. (The baseline's own version, or a build \
         byte-identical to it, is reported identical without measuring.)\n",
        sizes.check_trials,
        check_row("as fast, another build (v18 against v19)", &same),
        check_row("+5% (v20 against v19)", &plus5),
        same.trials - same.regressions - same.improvements - same.failed,
        same.trials,
        plus5.regressions,
        plus5.trials,
        check_cost,
    );
    out
}

/// The method of `study` named starting with `prefix`, if it ran.
fn method(study: &Study, prefix: &str) -> Option<usize> {
    study.methods.iter().position(|m| m.starts_with(prefix))
}

/// "0.12 (11)" pooled over every cell for method `m`, and per σ_s.
fn rates_of(study: &Study, m: usize) -> String {
    let t = study.pooled(m, None);
    format!(
        "{:.2} per 1,000 pairs ({} in {}), recall {} for steps ≥ 5% and {} for steps ≥ 2%",
        t.false_alarms_per_1000(),
        t.false_alarms,
        t.pairs,
        pct(t.recall_5()),
        pct(t.recall_2())
    )
}

/// What the numbers say, from the numbers (master seed; the second seed's pooled false alarms
/// and recall beside).
fn findings(main: &Study, second: Option<&Study>) -> String {
    let d = main.pooled(DEFAULT_METHOD, None);
    let detected = main.pooled(DEFAULT_METHOD - 1, None);
    let four = main.pooled(DEFAULT_METHOD + 1, None);
    let before = main.pooled(DEFAULT_METHOD + 2, None);
    let mut sigmas: Vec<f64> = main.cells.iter().map(|c| c.sigma).collect();
    sigmas.dedup();
    let worst = sigmas
        .into_iter()
        .map(|s| (s, main.pooled(DEFAULT_METHOD, Some(s))))
        .max_by(|a, b| {
            a.1.false_alarms_per_1000()
                .total_cmp(&b.1.false_alarms_per_1000())
        });
    let mut out = String::from("## What the numbers say\n\n");
    out += &format!(
        "- **rigor as `track run` reports** ({ANCHORS} anchors, detected then confirmed): {}",
        rates_of(main, DEFAULT_METHOD)
    );
    if let Some((s, t)) = worst {
        out += &format!(
            "; at worst {:.2} per 1,000 (σ_s = {:.0}%)",
            t.false_alarms_per_1000(),
            100.0 * s
        );
    }
    if let Some(s) = second {
        out += &format!(
            ". On the second seed ({}): {}",
            s.seed,
            rates_of(s, DEFAULT_METHOD)
        );
    }
    out += ".\n";
    let shifted = |m: usize| -> Tally {
        let mut t = Tally::default();
        for c in main.cells.iter().filter(|c| c.sigma > 0.0) {
            t.add(&c.tallies[m]);
        }
        t
    };
    out += &format!(
        "- **Before sessions** (no anchors, sessions ignored) the same projects raise {:.2} false \
         alarms per 1,000 pairs where sessions shift (σ_s > 0; {} in {} pairs) and {:.2} where \
         they do not; recall {} for steps ≥ 5%",
        shifted(DEFAULT_METHOD + 2).false_alarms_per_1000(),
        shifted(DEFAULT_METHOD + 2).false_alarms,
        shifted(DEFAULT_METHOD + 2).pairs,
        main.pooled(DEFAULT_METHOD + 2, Some(0.0))
            .false_alarms_per_1000(),
        pct(before.recall_5()),
    );
    for (name, prefix) in [("Apache Otava", "Apache Otava"), ("asv", "asv")] {
        if let Some(m) = method(main, prefix) {
            out += &format!(
                "; {name} on the same levels {:.2} where sessions shift, recall {} for steps ≥ 5%",
                shifted(m).false_alarms_per_1000(),
                pct(main.pooled(m, None).recall_5())
            );
        }
    }
    out += ". A session's shift is a step to any method that sees one level per version.\n";
    let dropped = main.cells.iter().fold([0; 3], |mut a, c| {
        for (x, y) in a.iter_mut().zip(c.dropped) {
            *x += y;
        }
        a
    });
    out += &format!(
        "- **Confirmation** takes {} false alarms of detection alone down to {} and costs {} of \
         the versions' own measuring. {} detections are no longer reported after it (refuted, \
         or placed again once the confirmations' measurements joined the history): {} farther \
         than {TOLERANCE} versions from every true step; {} one or two versions from one \
         (counted as found by detection: confirmation measures only the two versions either \
         side of the detected boundary, which then lie on the same side of the true step; the \
         change detected anew is confirmed in turn); {} at a true step (the ratio measured \
         again and the detected one's interval missed each other, which the rule reads as a \
         session's shift: two 95% intervals of one change do, now and then; or the step placed \
         again a version away). Recall for steps ≥ 2%: {} detected, {} confirmed.\n",
        detected.false_alarms,
        d.false_alarms,
        pct(main.relative_cost(None, None, 0).1),
        dropped.iter().sum::<usize>(),
        dropped[2],
        dropped[1],
        dropped[0],
        pct(detected.recall_2()),
        pct(d.recall_2()),
    );
    let (r, f, n) = d.recall_2_to_5();
    let (r4, f4, n4) = four.recall_2_to_5();
    let (r0, f0, n0) = main.pooled(DEFAULT_METHOD + 2, Some(0.0)).recall_2_to_5();
    let (rn0, fn0, nn0) = main.pooled(DEFAULT_METHOD, Some(0.0)).recall_2_to_5();
    out += &format!(
        "- **What limits recall** is the steps of 2–5%: rigor finds {} of them ({f}/{n}). Each \
         session's shift is estimated from its {ANCHORS} anchors, and the error of those \
         estimates enters every comparison across sessions: where sessions do not shift at all \
         (σ_s = 0), the method that ignores sessions finds {} ({f0}/{n0}) of these steps and \
         rigor {} ({fn0}/{nn0}) — the price of not assuming that sessions are alike. More \
         anchors buy it back: with {MORE_ANCHORS} anchors rigor finds {} ({f4}/{n4}) of them \
         and {} of all steps ≥ 2% ({:.2} false alarms per 1,000 pairs), for anchors costing {} of \
         the versions' own measuring instead of {} (at S = 40: {} instead of {}).\n\n",
        pct(r),
        pct(r0),
        pct(rn0),
        pct(r4),
        pct(four.recall_2()),
        four.false_alarms_per_1000(),
        pct(main.relative_cost(None, None, 1).0),
        pct(main.relative_cost(None, None, 0).0),
        pct(main.relative_cost(None, Some(40), 1).0),
        pct(main.relative_cost(None, Some(40), 0).0),
    );
    out
}

fn check_row(name: &str, c: &CheckCounts) -> String {
    format!(
        "| {name} | {} | {} | {} | {} | {} | {} |\n",
        c.trials,
        c.regressions,
        c.improvements,
        c.equivalent,
        c.trials - c.regressions - c.improvements - c.equivalent - c.failed,
        c.failed
    )
}

/// The seed the defaults are validated on, from the master seed (printed in the page).
pub fn second_seed(master: u64) -> u64 {
    splitmix64(master ^ 0x5345_5353) & 0xFFFF_FFFF
}

/// Where the page goes, from the repository root.
pub fn page(repo: &Path) -> PathBuf {
    repo.join("docs").join("validation").join("sessions.md")
}
