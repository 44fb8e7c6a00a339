//! Measuring versions of a repository, each in a checkout of its own, batches interleaved
//! (`rigor track run`).

use super::*;

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
pub(super) fn check_out(
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
pub(super) struct Measurement {
    /// Each version's outcome.
    pub(super) outcomes: Vec<VersionOutcome>,
    /// Every version against the first, when compared.
    pub(super) comparisons: Vec<crate::comparisons::Computed>,
    /// Failures, in words, each with its benchmark.
    pub(super) failures: Vec<String>,
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
pub(super) fn measure_together(
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
