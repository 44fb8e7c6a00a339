//! Tracking a project's performance across versions: ingest results into a history,
//! measure each version of a git repository in a worktree of its own, detect changes over each
//! benchmark's series, and list them.

use std::path::{Path, PathBuf};

use rigor_history::{
    ChangeFilter, ChangeId, ChangeStatus, ChangeVerdict, Failure, History, HistoryRead,
    HistoryWrite, Ingest, Ingested, MachineInfo, NewChange, SeriesKey, StoredChange, VersionData,
    VersionInfo,
};
use rigor_runner::{CommandLine, Executor, StopSignal};
use rigor_stats::compare::Verdict;
use rigor_stats::fdr::bh_adjusted;
use rigor_stats::series::{Segment, SeriesConfig, VersionMean, detect_floored};
use rigor_store::{BenchmarkRecord, Environment, ResultFile, RunStatus};
use rigor_units::{ConfidenceLevel, Fraction, Resolution, Seconds, TimeUnit};

use crate::analysis::{analyze_all, hierarchy_of};
use crate::comparisons::ratio_floor;
use crate::error::{AppError, Result};
use crate::git::{self, Worktree};
use crate::recorder::Progress;
use crate::settings::{AnalysisSettings, RunSettings};
use crate::{Outcome, run};

/// The method name stored with changes found by [`detect_changes`].
pub const METHOD: &str = "e-divisive + version-level random effects";

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

/// Ingests a result read from files (a killed run's too, or another tool's results, see
/// [`crate::saved::load_together`]), analysed so its summaries are stored. Returns the result's
/// warnings (levels the format did not record) with what was stored.
pub fn add(
    history: &mut dyn HistoryWrite,
    mut result: ResultFile,
    version: &VersionInfo,
    machine: &MachineInfo,
    branch: &str,
) -> Result<(Added, Vec<rigor_store::Warning>)> {
    // A complete result that measured nothing (every build or execution failed) is a failed
    // version, as `track run` records one, not a run of empty series.
    let nothing = result.status == RunStatus::Complete
        && !result.benchmarks.is_empty()
        && result
            .benchmarks
            .iter()
            .all(|b| b.samples.iter().all(|s| s.warmup));
    if nothing {
        let reason = why_nothing(&result.benchmarks);
        history.record_failure(&Failure::new(version, machine, branch, &reason))?;
        return Ok((Added::Failed(reason), result.warnings));
    }
    analyze_all(&mut result, &AnalysisSettings::default());
    let ingested = history.ingest(&Ingest::new(version, machine, branch, &result))?;
    Ok((Added::Stored(ingested), result.warnings))
}

/// Why benchmarks measured nothing: their first three failures, for a failed version's record.
fn why_nothing(benchmarks: &[BenchmarkRecord]) -> String {
    let reasons: Vec<String> = benchmarks
        .iter()
        .flat_map(crate::exports::failure_lines)
        .take(3)
        .collect();
    if reasons.is_empty() {
        "nothing was measured".to_string()
    } else {
        reasons.join("; ")
    }
}

/// What [`add`] did with a result.
#[derive(Debug, Clone, PartialEq)]
pub enum Added {
    /// Stored as a run (or found stored already).
    Stored(Ingested),
    /// It measured nothing: the version is recorded as failed, for this reason.
    Failed(String),
}

/// What `track run` needs besides the experiment's settings.
#[derive(Debug, Clone)]
pub struct TrackRunSettings {
    /// The repository.
    pub repo: PathBuf,
    /// The commits to measure, oldest first.
    pub commits: Vec<String>,
    /// Run in each version's checkout before measuring it (a build that is not a level).
    pub prepare: Option<CommandLine>,
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
    /// level, versions are measured one at a time.
    pub batch: usize,
}

/// What happened to one version.
#[derive(Debug, Clone, PartialEq)]
pub enum VersionOutcome {
    /// Measured and stored.
    Measured {
        /// The result file it was measured in (with the other versions of its batch).
        file: PathBuf,
        /// How the run ended.
        outcome: Outcome,
    },
    /// Already stored; skipped.
    Skipped,
    /// Its checkout or preparation failed; recorded as failed.
    Failed(String),
}

/// Hears about each version as `track run` goes.
pub trait TrackObserver {
    /// A batch of versions is about to be measured together (`done` of `total` so far).
    fn batch_started(&mut self, _versions: &[VersionInfo], _done: usize, _total: usize) {}
    /// A version is done.
    fn version_done(&mut self, _version: &VersionInfo, _outcome: &VersionOutcome) {}
}

/// Substitutes `{src}` (the version's checkout) in a command.
fn in_checkout(command: &CommandLine, src: &Path) -> CommandLine {
    command.substitute(&[("src", src.display().to_string())])
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

/// Measures each commit in a worktree of its own and stores each version as soon as its batch
/// is measured. Versions of a batch run in shuffled interleaved rounds (as commands do in
/// `rigor run`). Resumable: versions already stored are skipped unless `force`; a version whose
/// checkout or preparation fails is recorded as failed and the run goes on; Ctrl-C stops after
/// the batch's data is saved in its result file.
pub fn run_versions(
    history: &mut dyn History,
    settings: &TrackRunSettings,
    experiment: &mut RunSettings,
    executor: &mut dyn Executor,
    stop: StopSignal,
    progress: &mut dyn Progress,
    observer: &mut dyn TrackObserver,
) -> Result<Vec<(VersionInfo, VersionOutcome)>> {
    let mut done = Vec::new();
    let mut pending = Vec::new();
    let names: Vec<&str> = experiment
        .benchmarks
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    for commit in &settings.commits {
        let version = git::resolve(&settings.repo, commit)?;
        // Skipped: a version that failed before, or whose every benchmark is stored.
        let skip = !settings.force && history.has_run(&settings.key, &version.rev)? && {
            let stored = history.stored_benchmarks(&settings.key, &version.rev)?;
            stored.is_empty() || names.iter().all(|n| stored.iter().any(|s| s == n))
        };
        if skip {
            observer.version_done(&version, &VersionOutcome::Skipped);
            done.push((version, VersionOutcome::Skipped));
        } else {
            pending.push(version);
        }
    }
    let measuring = Measuring::new(settings, executor, stop, progress, observer);
    measure_pending(history.as_write(), measuring, experiment, pending, done)
}

/// [`run_versions`] without skipping what is stored, into a history that may only be written
/// (a farm's job collects its results to store them as it completes): every commit is measured.
pub fn measure_versions(
    history: &mut dyn HistoryWrite,
    settings: &TrackRunSettings,
    experiment: &mut RunSettings,
    executor: &mut dyn Executor,
    stop: StopSignal,
    progress: &mut dyn Progress,
    observer: &mut dyn TrackObserver,
) -> Result<Vec<(VersionInfo, VersionOutcome)>> {
    let pending = settings
        .commits
        .iter()
        .map(|commit| git::resolve(&settings.repo, commit))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let measuring = Measuring::new(settings, executor, stop, progress, observer);
    measure_pending(history, measuring, experiment, pending, Vec::new())
}

/// What measuring versions needs besides the history and the experiment.
struct Measuring<'a> {
    settings: &'a TrackRunSettings,
    executor: &'a mut dyn Executor,
    stop: StopSignal,
    progress: &'a mut dyn Progress,
    observer: &'a mut dyn TrackObserver,
}

impl<'a> Measuring<'a> {
    fn new(
        settings: &'a TrackRunSettings,
        executor: &'a mut dyn Executor,
        stop: StopSignal,
        progress: &'a mut dyn Progress,
        observer: &'a mut dyn TrackObserver,
    ) -> Self {
        Self {
            settings,
            executor,
            stop,
            progress,
            observer,
        }
    }
}

/// Measures `pending` in batches after the versions already `done`.
fn measure_pending(
    history: &mut dyn HistoryWrite,
    m: Measuring<'_>,
    experiment: &mut RunSettings,
    pending: Vec<VersionInfo>,
    mut done: Vec<(VersionInfo, VersionOutcome)>,
) -> Result<Vec<(VersionInfo, VersionOutcome)>> {
    let Measuring {
        settings,
        executor,
        stop,
        progress,
        observer,
    } = m;
    let machine = this_machine(Some(&settings.key.machine));
    let branch = settings.key.branch.as_str();
    let batch = if experiment.runner.build.is_some() {
        1
    } else {
        settings.batch.max(1)
    };
    let total = pending.len();
    for (k, versions) in pending.chunks(batch).enumerate() {
        if stop.is_requested() {
            break;
        }
        observer.batch_started(versions, k * batch, total);
        let mut ready = Vec::new();
        for v in versions {
            match check_out(settings, v) {
                Ok(tree) => ready.push((v.clone(), tree)),
                Err(reason) => {
                    history.record_failure(&Failure::new(v, &machine, branch, &reason))?;
                    let outcome = VersionOutcome::Failed(reason);
                    observer.version_done(v, &outcome);
                    done.push((v.clone(), outcome));
                }
            }
        }
        if ready.is_empty() {
            continue;
        }
        let measured = measure_batch(
            history,
            settings,
            experiment,
            &ready,
            &machine,
            executor,
            stop.clone(),
            progress,
        )?;
        for ((v, _), outcome) in ready.iter().zip(measured) {
            observer.version_done(v, &outcome);
            done.push((v.clone(), outcome));
        }
        if stop.is_requested() {
            break;
        }
    }
    Ok(done)
}

/// A version checked out and prepared, or why it could not be.
fn check_out(
    settings: &TrackRunSettings,
    v: &VersionInfo,
) -> std::result::Result<Worktree, String> {
    let tree =
        Worktree::add(&settings.repo, &v.rev).map_err(|e| format!("checkout failed: {e}"))?;
    if let Some(prepare) = &settings.prepare {
        prepare_checkout(&in_checkout(prepare, tree.path()), tree.path())?;
    }
    Ok(tree)
}

/// Measures the versions of one batch together and stores each (when the run completed).
#[allow(clippy::too_many_arguments)]
fn measure_batch(
    history: &mut dyn HistoryWrite,
    settings: &TrackRunSettings,
    experiment: &mut RunSettings,
    ready: &[(VersionInfo, Worktree)],
    machine: &MachineInfo,
    executor: &mut dyn Executor,
    stop: StopSignal,
    progress: &mut dyn Progress,
) -> Result<Vec<VersionOutcome>> {
    measure_together(
        history, settings, experiment, ready, machine, executor, stop, progress, false,
    )
    .map(|m| m.outcomes)
}

/// What measuring versions together gave.
struct Measurement {
    /// Each version's outcome.
    outcomes: Vec<VersionOutcome>,
    /// Every version against the first, when compared.
    comparisons: Vec<crate::comparisons::Computed>,
    /// Failures, in words, each with its benchmark.
    failures: Vec<String>,
}

/// A result of versions measured together ([`Provenance::versions`]) as one result per version,
/// each labelled with its version and its benchmarks named as they were without the others;
/// `None` for a result of one version (or one whose benchmarks do not divide among its
/// versions).
///
/// [`Provenance::versions`]: rigor_store::Provenance::versions
pub fn split_versions(result: &ResultFile) -> Option<Vec<(String, ResultFile)>> {
    let versions = &result.provenance.versions;
    let n = result.benchmarks.len();
    if versions.len() < 2 || n % versions.len() != 0 {
        return None;
    }
    let per_version = n / versions.len();
    let parts = versions
        .iter()
        .zip(result.benchmarks.chunks(per_version))
        .map(|(rev, benchmarks)| {
            let mut part = result.clone();
            part.provenance.versions.clear();
            part.provenance.label = Some(rev.clone());
            part.provenance.git = None;
            part.comparisons.clear();
            let suffix = format!(" @ {}", short(rev));
            part.benchmarks = benchmarks
                .iter()
                .map(|b| BenchmarkRecord {
                    name: b.name.strip_suffix(&suffix).unwrap_or(&b.name).to_string(),
                    ..b.clone()
                })
                .collect();
            (rev.clone(), part)
        })
        .collect();
    Some(parts)
}

/// The settings of a batch of versions measured together: one benchmark per (version, command)
/// with the version's checkout as its working directory, the result written to `file`, the
/// versions compared (with the first) only when `compare`.
fn batch_settings(
    experiment: &RunSettings,
    ready: &[(VersionInfo, Worktree)],
    file: PathBuf,
    compare: bool,
) -> RunSettings {
    let mut batch = experiment.clone();
    batch.benchmarks.clear();
    batch.commands.clear();
    for (v, tree) in ready {
        for (b, text) in experiment.benchmarks.iter().zip(&experiment.commands) {
            batch.benchmarks.push(rigor_runner::Benchmark {
                name: if ready.len() > 1 {
                    format!("{} @ {}", b.name, short(&v.rev))
                } else {
                    b.name.clone()
                },
                command: in_checkout(&b.command, tree.path()),
                iterations: b.iterations,
                dir: Some(tree.path().to_path_buf()),
            });
            batch.commands.push(text.clone());
        }
    }
    if let (Some(build), [(_, tree)]) = (&mut batch.runner.build, ready) {
        build.command = in_checkout(&build.command, tree.path());
    }
    batch.exports.files.json = Some(file);
    batch.origin.label = (ready.len() == 1).then(|| ready[0].0.rev.clone());
    if ready.len() > 1 {
        batch.origin.versions = ready.iter().map(|(v, _)| v.rev.clone()).collect();
    }
    batch.comparison.reference = None;
    batch.comparison.enabled = compare;
    batch
}

/// Measures versions together in shuffled interleaved rounds, stores each (when the run
/// completed), and with `compare` compares every version with the first (paired by round).
#[allow(clippy::too_many_arguments)]
fn measure_together(
    history: &mut dyn HistoryWrite,
    settings: &TrackRunSettings,
    experiment: &mut RunSettings,
    ready: &[(VersionInfo, Worktree)],
    machine: &MachineInfo,
    executor: &mut dyn Executor,
    stop: StopSignal,
    progress: &mut dyn Progress,
    compare: bool,
) -> Result<Measurement> {
    std::fs::create_dir_all(&settings.results_dir).map_err(|source| AppError::Write {
        what: "the results folder",
        source: rigor_store::StoreError::Io {
            path: settings.results_dir.clone(),
            source,
        },
    })?;
    let file = unused_file(
        &settings.results_dir,
        &format!("{}-{}", short(&ready[0].0.rev), experiment.runner.seed),
    );
    let per_version = experiment.benchmarks.len();
    let batch = batch_settings(experiment, ready, file.clone(), compare);
    let measured = run::run(&batch, executor, stop, progress)?;
    let mut outcomes = Vec::new();
    for (i, (v, _)) in ready.iter().enumerate() {
        let mine = &measured.result.benchmarks[i * per_version..(i + 1) * per_version];
        if measured.result.status == RunStatus::Complete
            && mine.iter().all(|b| b.samples.iter().all(|s| s.warmup))
        {
            // Nothing measured (its builds or every execution failed): recorded as failed.
            let reason = why_nothing(mine);
            history.record_failure(&Failure::new(v, machine, &settings.key.branch, &reason))?;
            outcomes.push(VersionOutcome::Failed(reason));
            continue;
        }
        if measured.result.status == RunStatus::Complete {
            let mut result = measured.result.clone();
            result.provenance.label = Some(v.rev.clone());
            // Measured from a clean checkout of the version, not from the working tree rigor
            // ran in: the file records the version's commit (which `track add` checks).
            result.provenance.git = v.commit.clone().map(|commit| rigor_store::GitState {
                commit,
                dirty: false,
            });
            result.comparisons.clear();
            result.benchmarks = measured.result.benchmarks[i * per_version..(i + 1) * per_version]
                .iter()
                .zip(&experiment.benchmarks)
                .map(|(b, original)| BenchmarkRecord {
                    name: original.name.clone(),
                    ..b.clone()
                })
                .collect();
            history.ingest(&Ingest::new(v, machine, &settings.key.branch, &result))?;
            if settings.version_files {
                let path =
                    unused_file(&settings.results_dir, &format!("{}.version", short(&v.rev)));
                rigor_store::save(&path, &result).map_err(|source| AppError::Write {
                    what: "a version's result",
                    source,
                })?;
            }
        }
        outcomes.push(VersionOutcome::Measured {
            file: file.clone(),
            outcome: measured.outcome,
        });
    }
    let failures = measured
        .result
        .benchmarks
        .iter()
        .flat_map(|b| {
            crate::exports::failure_lines(b)
                .into_iter()
                .map(move |l| format!("{}: {l}", b.name))
        })
        .collect();
    Ok(Measurement {
        outcomes,
        comparisons: measured.comparisons,
        failures,
    })
}

/// Runs the preparation (build) command in the checkout; on failure, the end of its error
/// output.
fn prepare_checkout(command: &CommandLine, dir: &Path) -> std::result::Result<(), String> {
    let argv = command.argv();
    let Some((program, args)) = argv.split_first() else {
        return Ok(());
    };
    let out = std::process::Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot start '{program}': {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    Err(format!(
        "build failed ({}): {}",
        out.status,
        tail.join(" / ").trim()
    ))
}

/// How changes are detected.
#[derive(Debug, Clone, Copy)]
pub struct DetectSettings {
    /// Confidence level of the ratio intervals; 1 − level is the false discovery rate.
    pub confidence: ConfidenceLevel,
    /// Practical threshold: smaller changes are not reported.
    pub threshold: Fraction,
}

impl Default for DetectSettings {
    fn default() -> Self {
        Self {
            confidence: ConfidenceLevel::NINETY_FIVE,
            threshold: Fraction::percent(1.0).unwrap_or_default(),
        }
    }
}

/// A change found in one benchmark's series, before false-discovery-rate control.
#[derive(Debug, Clone)]
struct Found {
    benchmark: String,
    change: NewChange,
}

/// Each version's mean and within-version variance; versions that cannot be analysed are left
/// out (with their index kept in the second list).
fn version_means(series: &[VersionData]) -> (Vec<VersionMean>, Vec<usize>) {
    let mut means = Vec::new();
    let mut kept = Vec::new();
    for (i, v) in series.iter().enumerate() {
        let m = hierarchy_of(&v.benchmark)
            .ok()
            .and_then(|h| VersionMean::robust(&h).ok());
        if let Some(m) = m {
            means.push(m);
            kept.push(i);
        }
    }
    (means, kept)
}

/// Each kept version's resolution (when it reported one) and the unit of its values, read once
/// for the floor of every ratio tested over the series.
fn version_steps(series: &[VersionData], kept: &[usize]) -> Vec<(Option<Resolution>, TimeUnit)> {
    kept.iter()
        .map(|&i| (series[i].benchmark.resolution(), series[i].benchmark.unit))
        .collect()
}

/// The level of some versions (their [`version_steps`]) as a ratio's side: the coarsest
/// resolution they reported, and `mean` (in the first one's unit) in seconds.
fn level_at_resolution(
    steps: &[(Option<Resolution>, TimeUnit)],
    mean: f64,
) -> (Option<Resolution>, Seconds) {
    let resolution = Resolution::coarsest(steps.iter().filter_map(|s| s.0));
    let unit = steps.first().map_or(TimeUnit::S, |s| s.1);
    (resolution, Seconds::from_unit(mean, unit))
}

/// The floor under the ratio of two segments' levels (segments index `steps`, the kept
/// versions): each level known to ± half the coarsest step of its versions, as `rigor compare`
/// floors a ratio ([`ratio_floor`]). Versions stored without a resolution add none.
fn segment_floor(
    steps: &[(Option<Resolution>, TimeUnit)],
) -> impl Fn(&Segment, &Segment, (f64, f64)) -> (f64, f64) + '_ {
    move |before, after, interval| {
        let side = |s: &Segment| level_at_resolution(&steps[s.start..s.end], s.mean);
        ratio_floor(side(before), side(after), interval).map_or(interval, |f| (f.lower, f.upper))
    }
}

/// Detects the changes of one series (module `rigor_stats::series`), each ratio interval
/// floored at the versions' resolution.
fn detect_one(benchmark: &str, series: &[VersionData], s: &DetectSettings) -> Result<Vec<Found>> {
    let (means, kept) = version_means(series);
    let cfg = SeriesConfig {
        level: s.confidence.get(),
        threshold: s.threshold.get(),
        ..SeriesConfig::default()
    };
    let steps = version_steps(series, &kept);
    let floor = segment_floor(&steps);
    let analysis = detect_floored(&means, &cfg, &floor).map_err(|source| AppError::Compare {
        candidate: benchmark.to_string(),
        baseline: "its history".to_string(),
        source,
    })?;
    Ok(analysis
        .changes
        .iter()
        // Only changes are kept (a boundary whose verdict is no change is not one).
        .filter_map(|c| {
            Some(Found {
                benchmark: benchmark.to_string(),
                change: NewChange {
                    rev: series[kept[c.index]].version.rev.clone(),
                    previous_rev: Some(series[kept[c.index - 1]].version.rev.clone()),
                    ratio: c.ratio,
                    interval: c.interval,
                    p_value: c.p_adjusted,
                    q_value: None,
                    verdict: ChangeVerdict::of(c.verdict)?,
                    method: METHOD.to_string(),
                },
            })
        })
        .collect())
}

/// Detects changes over every benchmark of a series, controls the false discovery rate across
/// the benchmarks (Benjamini–Hochberg at 1 − confidence), stores them (keeping statuses a user
/// set) and returns the current ones.
pub fn detect_changes(
    history: &mut dyn History,
    key: &SeriesKey,
    s: &DetectSettings,
) -> Result<Vec<StoredChange>> {
    let benchmarks = history.benchmarks(key)?;
    let mut found: Vec<Found> = Vec::new();
    for b in &benchmarks {
        let series = history.series(key, b)?;
        found.extend(detect_one(b, &series, s)?);
    }
    if !found.is_empty() {
        let p: Vec<f64> = found.iter().map(|f| f.change.p_value).collect();
        let q = bh_adjusted(&p).map_err(AppError::Suite)?;
        for (f, q) in found.iter_mut().zip(q) {
            f.change.q_value = Some(q);
        }
        found.retain(|f| f.change.q_value.is_some_and(|q| q <= s.confidence.alpha()));
    }
    for b in &benchmarks {
        let mine: Vec<NewChange> = found
            .iter()
            .filter(|f| &f.benchmark == b)
            .map(|f| f.change.clone())
            .collect();
        history.save_changes(key, b, &mine)?;
    }
    Ok(history.changes(&ChangeFilter {
        machine: Some(key.machine.clone()),
        branch: Some(key.branch.clone()),
        ..ChangeFilter::default()
    })?)
}

/// A date or time a user typed for `--since`: `2026-01-01`, or an RFC 3339 time.
#[derive(Debug, thiserror::Error)]
#[error("'{0}' is not a date (2026-01-01) or a time (2026-01-01T12:00:00Z)")]
pub struct BadDate(pub String);

/// The changes whose version is from `since` on (versions without a known time are left out).
pub fn changes_since(
    changes: Vec<StoredChange>,
    since: &str,
) -> std::result::Result<Vec<StoredChange>, BadDate> {
    let from: jiff::Timestamp = match since.parse::<jiff::Timestamp>() {
        Ok(t) => t,
        Err(_) => since
            .parse::<jiff::civil::Date>()
            .ok()
            .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
            .map(|z| z.timestamp())
            .ok_or_else(|| BadDate(since.to_string()))?,
    };
    Ok(changes
        .into_iter()
        .filter(|c| c.version_time.is_some_and(|t| t >= from))
        .collect())
}

/// Whether `--fail-on regression` matches: a current change that is a regression and that no
/// user marked invalid.
pub fn has_regression(changes: &[StoredChange]) -> bool {
    changes.iter().any(|c| {
        c.current
            && c.status != ChangeStatus::Invalid
            && c.change.verdict == ChangeVerdict::Regression
    })
}

/// One version of a benchmark's history, analysed.
#[derive(Debug, Clone)]
pub struct HistoryPoint {
    /// The version.
    pub version: VersionInfo,
    /// Its analysed result (one benchmark), or why it has none.
    pub analysis: std::result::Result<rigor_stats::Analysis, crate::analysis::Unanalysed>,
    /// Against the version before it (each with its own interval): rigor's ratio verdict
    /// (Fieller, Welch) and the non-overlap rule's verdict (Kalibera & Tůma 2006). Shown for
    /// reference: between versions, build and session noise make both too eager, which is why
    /// changes are detected over the series with versions as the top level.
    pub against_previous: Option<(Ratio, Verdict)>,
}

/// A benchmark's history on a machine and branch, analysed version by version.
pub fn show(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    benchmark: &str,
) -> Result<Vec<HistoryPoint>> {
    let mut measured: std::collections::HashMap<String, VersionData> = history
        .series(key, benchmark)?
        .into_iter()
        .map(|v| (v.version.rev.clone(), v))
        .collect();
    let mut points: Vec<HistoryPoint> = Vec::new();
    let mut previous: Option<Level> = None;
    for stored in history.versions(key)? {
        let Some(v) = measured.remove(&stored.version.rev) else {
            // Versions that failed to build or run are shown as such (others simply lack this
            // benchmark).
            if stored.failed > 0 && stored.failed == stored.runs {
                points.push(HistoryPoint {
                    version: stored.version,
                    analysis: Err(crate::analysis::Unanalysed::VersionFailed),
                    against_previous: None,
                });
            }
            continue;
        };
        let h = hierarchy_of(&v.benchmark).ok();
        let at = (v.benchmark.resolution(), v.benchmark.unit);
        let mut result = ResultFile {
            benchmarks: vec![v.benchmark],
            ..ResultFile::new(rigor_units::Seed(0), ConfidenceLevel::NINETY_FIVE)
        };
        let analysis = analyze_all(&mut result, &AnalysisSettings::default())
            .pop()
            .unwrap_or(Err(crate::analysis::Unanalysed::NothingMeasured));
        let against_previous = match (previous.take(), h, &analysis) {
            (before, Some(h), Ok(a)) => {
                let now = Level {
                    hierarchy: h,
                    analysis: a.clone(),
                    resolution: at.0,
                    unit: at.1,
                };
                let ratio = before.and_then(|b| consecutive(&b, &now));
                previous = Some(now);
                ratio
            }
            (before, _, _) => {
                previous = before;
                None
            }
        };
        points.push(HistoryPoint {
            version: v.version,
            analysis,
            against_previous,
        });
    }
    Ok(points)
}

/// An analysed version of a history, as the next one is compared with it.
struct Level {
    hierarchy: rigor_stats::Hierarchy,
    analysis: rigor_stats::Analysis,
    /// The step its times move in, when known.
    resolution: Option<Resolution>,
    /// The unit of its values.
    unit: TimeUnit,
}

/// The ratio verdict and the non-overlap verdict of `now` against `before`; the ratio interval
/// floored at their resolutions as `rigor compare` floors it.
fn consecutive(before: &Level, now: &Level) -> Option<(Ratio, Verdict)> {
    use rigor_stats::fieller::{DfMethod, MeanEstimate, fieller};
    let a = MeanEstimate::from_hierarchy(&now.hierarchy).ok()?;
    let b = MeanEstimate::from_hierarchy(&before.hierarchy).ok()?;
    let f = fieller(&a, &b, 0.95, DfMethod::WelchSatterthwaite).ok()?;
    let side = |l: &Level, e: &MeanEstimate| (l.resolution, Seconds::from_unit(e.mean, l.unit));
    let floored = f
        .bounds()
        .map(|i| (i, ratio_floor(side(before, &b), side(now, &a), i)));
    let at_resolution = floored.is_some_and(|(_, f)| f.is_some_and(|f| f.at_resolution));
    let interval = floored.map(|(i, f)| f.map_or(i, |f| (f.lower, f.upper)));
    let verdict = interval.map_or(Verdict::Unbounded, |(lo, hi)| {
        rigor_stats::compare::verdict_from_interval(lo, hi, 0.01)
    });
    let overlap =
        rigor_stats::compare::overlap_verdict(&now.analysis.interval, &before.analysis.interval)
            .verdict;
    Some((
        Ratio {
            ratio: f.ratio,
            interval,
            verdict,
            at_resolution,
        },
        overlap,
    ))
}

/// A version's time against another's, measured together.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio {
    /// Candidate / baseline.
    pub ratio: f64,
    /// Its interval (`None`: unbounded).
    pub interval: Option<(f64, f64)>,
    /// The verdict against the threshold.
    pub verdict: Verdict,
    /// Whether the interval was widened to what the two versions' timer resolution can tell.
    pub at_resolution: bool,
}

/// One step of a bisection.
#[derive(Debug, Clone)]
pub struct BisectStep {
    /// The versions measured together, oldest first (the range's ends, and its midpoint).
    pub measured: Vec<VersionInfo>,
    /// Each later version against the first.
    pub comparisons: Vec<Ratio>,
}

/// What a bisection found.
#[derive(Debug, Clone)]
pub enum BisectOutcome {
    /// The last good and the first changed version, with the change measured between them.
    Found {
        /// The last version before the change.
        before: Box<VersionInfo>,
        /// The first version with it.
        first: Box<VersionInfo>,
        /// `first / before`, measured together.
        change: Ratio,
    },
    /// The two ends do not differ beyond the threshold.
    NoChange {
        /// The ends' ratio.
        ends: Ratio,
    },
    /// Stopped (Ctrl-C) or a version could not be measured.
    Stopped(String),
}

/// Hears about each step of a bisection.
pub trait BisectObserver {
    /// A step is done.
    fn step(&mut self, _step: &BisectStep) {}
}

/// Finds the first version between `good` (excluded) and `bad` whose benchmark differs from
/// `good`: the ends are measured together, then the midpoint of the remaining range together
/// with its ends, halving the range each time — about log₂ N versions instead of N. Every
/// measured version is stored in the history. Uses the first command of the experiment.
#[allow(clippy::too_many_arguments)]
pub fn bisect(
    history: &mut dyn HistoryWrite,
    settings: &TrackRunSettings,
    good: &str,
    bad: &str,
    experiment: &mut RunSettings,
    executor: &mut dyn Executor,
    stop: StopSignal,
    progress: &mut dyn Progress,
    observer: &mut dyn BisectObserver,
) -> Result<BisectOutcome> {
    let mut chain = vec![git::resolve(&settings.repo, good)?.rev];
    chain.extend(git::commits(&settings.repo, &[format!("{good}..{bad}")])?);
    if chain.len() < 2 {
        return Err(AppError::NotAnAncestor {
            good: good.to_string(),
            bad: bad.to_string(),
        });
    }
    let machine = this_machine(Some(&settings.key.machine));
    experiment.benchmarks.truncate(1);
    experiment.commands.truncate(1);
    let measure = |revs: &[&String],
                   history: &mut dyn HistoryWrite,
                   experiment: &mut RunSettings,
                   executor: &mut dyn Executor,
                   progress: &mut dyn Progress|
     -> Result<std::result::Result<BisectStep, String>> {
        let mut ready = Vec::new();
        for rev in revs {
            let v = git::resolve(&settings.repo, rev)?;
            match check_out(settings, &v) {
                Ok(tree) => ready.push((v, tree)),
                Err(reason) => {
                    history.record_failure(&Failure::new(
                        &v,
                        &machine,
                        &settings.key.branch,
                        &reason,
                    ))?;
                    return Ok(Err(format!("{}: {reason}", short(&v.rev))));
                }
            }
        }
        let Measurement {
            outcomes,
            comparisons: computed,
            failures,
        } = measure_together(
            history,
            settings,
            experiment,
            &ready,
            &machine,
            executor,
            stop.clone(),
            progress,
            true,
        )?;
        if outcomes.iter().any(|o| {
            !matches!(
                o,
                VersionOutcome::Measured {
                    outcome: Outcome::Ok | Outcome::Gated,
                    ..
                }
            )
        }) {
            let why = if failures.is_empty() {
                "the measurement was interrupted".to_string()
            } else {
                format!("a measurement failed: {}", failures.join("; "))
            };
            return Ok(Err(why));
        }
        let comparisons = computed
            .iter()
            .map(|c| {
                let x = &c.comparison;
                Ratio {
                    ratio: x.ratio,
                    interval: x.ci.map(|i| (i.lower, i.upper)),
                    verdict: x.verdict,
                    at_resolution: x.at_resolution,
                }
            })
            .collect();
        Ok(Ok(BisectStep {
            measured: ready.into_iter().map(|(v, _)| v).collect(),
            comparisons,
        }))
    };
    // Measures `revs` together; while `decided` says the verdict cannot place the step, again
    // with twice the executions (twice more at most). The last step either way.
    let repeat = |revs: &[&String],
                  history: &mut dyn HistoryWrite,
                  experiment: &mut RunSettings,
                  executor: &mut dyn Executor,
                  progress: &mut dyn Progress,
                  observer: &mut dyn BisectObserver,
                  decided: &dyn Fn(&BisectStep) -> bool|
     -> Result<std::result::Result<BisectStep, String>> {
        let base = experiment.runner.executions;
        let mut last = Err("no measurement".to_string());
        for _ in 0..3 {
            let step = match measure(revs, history, experiment, executor, progress) {
                Ok(Ok(step)) => step,
                other => {
                    experiment.runner.executions = base;
                    return other;
                }
            };
            observer.step(&step);
            let done = decided(&step);
            last = Ok(step);
            if done {
                break;
            }
            experiment.runner.executions *= 2;
        }
        experiment.runner.executions = base;
        Ok(last)
    };
    let (mut lo, mut hi) = (0, chain.len() - 1);
    let ends = match repeat(
        &[&chain[lo], &chain[hi]],
        history,
        experiment,
        executor,
        progress,
        observer,
        &|s| {
            s.comparisons
                .first()
                .is_none_or(|o| o.verdict.is_change() || o.verdict == Verdict::Equivalent)
        },
    )? {
        Ok(step) => step,
        Err(why) => return Ok(BisectOutcome::Stopped(why)),
    };
    let Some(&overall) = ends.comparisons.first() else {
        return Ok(BisectOutcome::Stopped(
            "the ends could not be compared".into(),
        ));
    };
    if !overall.verdict.is_change() {
        return Ok(BisectOutcome::NoChange { ends: overall });
    }
    let direction = overall.ratio.ln().signum();
    // The change is at or before mid when mid already differs from lo in the change's
    // direction, after it when mid is equivalent to lo.
    let placed = |r: &Ratio| {
        (r.verdict.is_change() && r.ratio.ln().signum() == direction)
            .then_some(true)
            .or((r.verdict == Verdict::Equivalent).then_some(false))
    };
    let mut last_pair = Some(overall);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let step = match repeat(
            &[&chain[lo], &chain[mid], &chain[hi]],
            history,
            experiment,
            executor,
            progress,
            observer,
            &|s| s.comparisons.first().is_none_or(|r| placed(r).is_some()),
        )? {
            Ok(step) => step,
            Err(why) => return Ok(BisectOutcome::Stopped(why)),
        };
        let (Some(&mid_vs_lo), Some(&hi_vs_lo)) =
            (step.comparisons.first(), step.comparisons.get(1))
        else {
            return Ok(BisectOutcome::Stopped(
                "a step could not be compared".into(),
            ));
        };
        // When the verdict cannot place mid, its closeness to either end decides.
        let changed = placed(&mid_vs_lo).unwrap_or_else(|| {
            let (d_mid, d_hi) = (mid_vs_lo.ratio.ln(), hi_vs_lo.ratio.ln());
            d_mid.abs() > (d_hi - d_mid).abs()
        });
        if changed {
            hi = mid;
            last_pair = Some(mid_vs_lo);
        } else {
            lo = mid;
            last_pair = None;
        }
    }
    let change = match last_pair {
        Some(c) => c,
        None => match measure(
            &[&chain[lo], &chain[hi]],
            history,
            experiment,
            executor,
            progress,
        )? {
            Ok(step) => {
                observer.step(&step);
                match step.comparisons.first() {
                    Some(&c) => c,
                    None => return Ok(BisectOutcome::Stopped("no comparison".into())),
                }
            }
            Err(why) => return Ok(BisectOutcome::Stopped(why)),
        },
    };
    Ok(BisectOutcome::Found {
        before: Box::new(git::resolve(&settings.repo, &chain[lo])?),
        first: Box::new(git::resolve(&settings.repo, &chain[hi])?),
        change,
    })
}

/// A result checked against the stored baseline (the pull-request gate).
#[derive(Debug)]
pub struct Checked {
    /// The baseline version each benchmark was compared with.
    pub baseline: Vec<(String, VersionInfo)>,
    /// Each benchmark of the candidate against the baseline.
    pub comparisons: Vec<crate::comparisons::Computed>,
    /// The geometric-mean ratio over the benchmarks.
    pub suite: Option<rigor_store::SuiteRecord>,
    /// Benchmarks not compared, and other problems.
    pub warnings: Vec<rigor_store::Warning>,
    /// Each benchmark against the stored history of the branch (versions as the top level),
    /// when every benchmark has at least two stored versions: what decides the gate (then
    /// `comparisons` is empty).
    pub against_history: Vec<HistoryVerdict>,
}

/// A candidate against the versions of a branch since its last change, with versions as the
/// top level: the candidate is one more version, its level varying by the between-version
/// variance τ² on top of its own interval, so session-to-session noise is in the interval.
#[derive(Debug, Clone)]
pub struct HistoryVerdict {
    /// The benchmark.
    pub benchmark: String,
    /// Stored versions in the baseline segment (since the branch's last change).
    pub versions: usize,
    /// The first version of that segment.
    pub since: VersionInfo,
    /// The candidate against the segment's level.
    pub change: rigor_stats::series::SeriesChange,
    /// The between-version spread used, relative to the level, squared.
    pub tau2: f64,
}

/// Compares a saved result (a pull request's build) with the stored baseline of the same
/// machine: for each benchmark, `baseline_rev` if given, else the latest version of the
/// baseline branch. The two were not measured together, so the comparison is unpaired and its
/// interval includes the session-to-session spread only as far as each side's own executions
/// show it; measuring both in one `rigor run` (interleaved) is the stronger gate.
pub fn check(
    history: &dyn HistoryRead,
    file: &Path,
    baseline: &SeriesKey,
    baseline_rev: Option<&str>,
    analysis: &AnalysisSettings,
    comparison: &crate::settings::ComparisonSettings,
    seed: rigor_units::Seed,
) -> Result<Checked> {
    let mut candidate = rigor_store::load(file)?;
    let mut old = ResultFile::new(seed, analysis.confidence);
    let mut versions = Vec::new();
    let mut against_history = Vec::new();
    for b in &candidate.benchmarks {
        let series = history.series(baseline, &b.name)?;
        if baseline_rev.is_none() {
            if let Some(v) = against_series(&series, b, analysis, comparison)? {
                against_history.push(v);
            }
        }
        let pick = match baseline_rev {
            Some(rev) => series
                .into_iter()
                .find(|v| v.version.rev == rev || v.version.rev.starts_with(rev)),
            None => series.into_iter().last(),
        };
        if let Some(v) = pick {
            versions.push((b.name.clone(), v.version));
            old.benchmarks.push(v.benchmark);
        }
    }
    if versions.is_empty() {
        return Err(AppError::NoBaseline {
            machine: baseline.machine.clone(),
            branch: baseline.branch.clone(),
        });
    }
    // The history decides when it covers every benchmark with a baseline; otherwise every
    // benchmark is compared with its one stored measurement (the unpaired fallback).
    if against_history.len() == versions.len() {
        return Ok(Checked {
            baseline: versions,
            comparisons: Vec::new(),
            suite: None,
            warnings: Vec::new(),
            against_history,
        });
    }
    let old_analyses = analyze_all(&mut old, analysis);
    let new_analyses = analyze_all(&mut candidate, analysis);
    let cs = crate::comparisons::CompareSettings::new(comparison, analysis.confidence, seed);
    let (comparisons, suite, warnings) =
        crate::comparisons::between(&old, &old_analyses, &candidate, &new_analyses, &cs)?;
    Ok(Checked {
        baseline: versions,
        comparisons,
        suite,
        warnings,
        against_history: Vec::new(),
    })
}

/// The candidate benchmark `b` as one more version after `series`: tested against the last
/// segment (since the last detected change) with the series' between-version variance. `None`
/// with fewer than two stored versions (no between-version variance to estimate).
fn against_series(
    series: &[VersionData],
    b: &rigor_store::BenchmarkRecord,
    analysis: &AnalysisSettings,
    comparison: &crate::settings::ComparisonSettings,
) -> Result<Option<HistoryVerdict>> {
    let (means, kept) = version_means(series);
    if means.len() < 2 {
        return Ok(None);
    }
    let Some(candidate) = hierarchy_of(b)
        .ok()
        .and_then(|h| VersionMean::robust(&h).ok())
    else {
        return Ok(None);
    };
    let cfg = SeriesConfig {
        level: analysis.confidence.get(),
        threshold: comparison.threshold.get(),
        ..SeriesConfig::default()
    };
    let stats = |source| AppError::Compare {
        candidate: b.name.clone(),
        baseline: "its history".to_string(),
        source,
    };
    let steps = version_steps(series, &kept);
    let found = detect_floored(&means, &cfg, &segment_floor(&steps)).map_err(stats)?;
    let Some(&last) = found.segments.last() else {
        return Ok(None);
    };
    let after = Segment {
        start: means.len(),
        end: means.len() + 1,
        mean: candidate.mean,
        variance: candidate.variance + found.tau2,
    };
    let mut change =
        rigor_stats::series::test_change(last, after, found.df, cfg.level, cfg.threshold)
            .map_err(stats)?;
    if let Some(interval) = change.interval {
        let before = level_at_resolution(&steps[last.start..last.end], last.mean);
        let now = (b.resolution(), Seconds::from_unit(candidate.mean, b.unit));
        if let Some(f) = ratio_floor(before, now, interval) {
            change.widen(f.lower, f.upper, cfg.threshold);
        }
    }
    Ok(Some(HistoryVerdict {
        benchmark: b.name.clone(),
        versions: last.end - last.start,
        since: series[kept[last.start]].version.clone(),
        change,
        tau2: found.tau2 / (last.mean * last.mean),
    }))
}

/// Changes that happened together: at one version, most benchmarks of a machine and branch
/// moved in the same direction — an environment change (a new compiler, a kernel update, a
/// different machine state) as often as a code change, shown as one event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The version.
    pub rev: String,
    /// The machine and branch.
    pub series: SeriesKey,
    /// The ids of the changes that make it up.
    pub changes: Vec<ChangeId>,
    /// How many benchmarks the series has.
    pub benchmarks: usize,
    /// Smallest and largest ratio among them.
    pub range: (f64, f64),
}

/// Groups current changes into events: at least 3 changes, in the same direction, at one
/// version, covering at least half of the series' benchmarks. `benchmarks` gives each series
/// its number of benchmarks.
pub fn events(changes: &[StoredChange], benchmarks: &dyn Fn(&SeriesKey) -> usize) -> Vec<Event> {
    let mut groups: std::collections::BTreeMap<(SeriesKey, String, bool), Vec<&StoredChange>> =
        std::collections::BTreeMap::new();
    for c in changes.iter().filter(|c| c.current) {
        groups
            .entry((c.series.clone(), c.change.rev.clone(), c.change.ratio > 1.0))
            .or_default()
            .push(c);
    }
    groups
        .into_iter()
        .filter_map(|((series, rev, _), list)| {
            let total = benchmarks(&series);
            (list.len() >= 3 && 2 * list.len() >= total).then(|| {
                let ratios = list.iter().map(|c| c.change.ratio);
                Event {
                    rev,
                    changes: list.iter().map(|c| c.id).collect(),
                    benchmarks: total,
                    range: (
                        ratios.clone().fold(f64::INFINITY, f64::min),
                        ratios.fold(f64::NEG_INFINITY, f64::max),
                    ),
                    series,
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(id: i64, benchmark: &str, rev: &str, ratio: f64) -> StoredChange {
        StoredChange {
            id: ChangeId(id),
            benchmark: benchmark.into(),
            series: SeriesKey::new("m", "main"),
            change: NewChange {
                rev: rev.into(),
                previous_rev: None,
                ratio,
                interval: None,
                p_value: 0.001,
                q_value: None,
                verdict: ChangeVerdict::Regression,
                method: METHOD.into(),
            },
            status: ChangeStatus::New,
            current: true,
            detected_at: jiff::Timestamp::UNIX_EPOCH,
            version_time: None,
        }
    }

    #[test]
    fn changes_since_a_date_keep_versions_with_a_later_time() {
        let mut old = change(1, "b", "v1", 1.1);
        old.version_time = Some("2026-01-01T10:00:00+01:00".parse().unwrap());
        let mut new = change(2, "b", "v2", 1.1);
        new.version_time = Some("2026-03-01T00:00:00Z".parse().unwrap());
        let label = change(3, "b", "gcc-14", 1.1);
        let kept =
            changes_since(vec![old.clone(), new.clone(), label.clone()], "2026-02-01").unwrap();
        assert_eq!(kept.iter().map(|c| c.id).collect::<Vec<_>>(), [ChangeId(2)]);
        let kept = changes_since(vec![old, new, label], "2026-01-01T08:00:00Z").unwrap();
        assert_eq!(kept.len(), 2, "09:00Z is after 08:00Z");
        assert!(changes_since(Vec::new(), "last tuesday").is_err());
    }

    #[test]
    fn most_benchmarks_moving_together_are_one_event() {
        let mut list: Vec<StoredChange> = (0..4)
            .map(|k| change(k, &format!("b{k}"), "v9", 1.03 + 0.001 * k as f64))
            .collect();
        list.push(change(10, "b0", "v3", 1.10));
        list.push(change(11, "b1", "v9", 0.95));
        let found = events(&list, &|_| 6);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rev, "v9");
        assert_eq!(found[0].changes, [0, 1, 2, 3].map(ChangeId));
        assert!((found[0].range.0 - 1.03).abs() < 1e-12);
        // Four of ten benchmarks is not most of them.
        assert!(events(&list, &|_| 10).is_empty());
    }
}
