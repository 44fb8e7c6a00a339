//! Versions measured together as one run: the settings of such a batch (one benchmark per
//! version and command), the batch measured and stored as one session, and a combined result
//! split back into one result per version.

use rigor_history::{Role, SessionId};

use super::measure::precision_cost;
use super::*;
use crate::checkouts::in_checkout;

/// A result of versions measured together as one result per version, each labelled with its
/// version and its benchmarks named as they were without the others; `None` for a result of one
/// version. Each benchmark record names its version; files written before records did are split
/// by the order of their provenance's versions.
pub fn split_versions(result: &ResultFile) -> Option<Vec<(String, ResultFile)>> {
    let mut order: Vec<String> = Vec::new();
    let recorded = result.benchmarks.iter().all(|b| b.version.is_some());
    let version_of = |i: usize, b: &BenchmarkRecord| -> Option<String> {
        if recorded {
            return b.version.clone();
        }
        let versions = &result.provenance.versions;
        let n = result.benchmarks.len();
        (versions.len() >= 2 && n % versions.len() == 0)
            .then(|| versions[i / (n / versions.len())].clone())
    };
    let mut parts: Vec<(String, Vec<BenchmarkRecord>)> = Vec::new();
    for (i, b) in result.benchmarks.iter().enumerate() {
        let rev = version_of(i, b)?;
        if !order.contains(&rev) {
            order.push(rev.clone());
            parts.push((rev.clone(), Vec::new()));
        }
        let suffix = format!(" @ {}", short(&rev));
        let record = BenchmarkRecord {
            name: b.name.strip_suffix(&suffix).unwrap_or(&b.name).to_string(),
            version: None,
            shell_startup: None,
            net_of: None,
            ..b.clone()
        };
        if let Some((_, list)) = parts.iter_mut().find(|(r, _)| *r == rev) {
            list.push(record);
        }
    }
    if parts.len() < 2 {
        return None;
    }
    Some(
        parts
            .into_iter()
            .map(|(rev, benchmarks)| {
                let mut part = result.clone();
                part.provenance.versions.clear();
                part.provenance.label = Some(rev.clone());
                part.provenance.git = None;
                part.comparisons.clear();
                part.benchmarks = benchmarks;
                (rev, part)
            })
            .collect(),
    )
}

/// The settings of versions measured together: one benchmark per (version, command) with the
/// version's checkout as its working directory (a simulated version's command scaled by its
/// true level and the session's shift), each record naming its version, the result written to
/// `file`, the versions compared (with the first) only when `compare`.
fn batch_settings(
    source: &Source,
    experiment: &RunSettings,
    ready: &[Ready],
    facts: &SessionFacts,
    file: PathBuf,
    compare: bool,
) -> RunSettings {
    let mut batch = experiment.clone();
    batch.benchmarks.clear();
    batch.commands.clear();
    batch.parameters.clear();
    batch.versions.clear();
    batch.artifacts.clear();
    for r in ready {
        for (k, (b, text)) in experiment
            .benchmarks
            .iter()
            .zip(&experiment.commands)
            .enumerate()
        {
            let (command, text) = match (source, r.simulated, facts.simulated) {
                (Source::Simulated(p), Some(i), Some(s)) => {
                    let scaled = p.command(text, i, k, &s);
                    (CommandLine::Direct(vec![scaled.clone()]), scaled)
                }
                _ => (
                    r.dir
                        .as_deref()
                        .map_or_else(|| b.command.clone(), |d| in_checkout(&b.command, d)),
                    text.clone(),
                ),
            };
            batch.benchmarks.push(rigor_runner::Benchmark {
                name: if ready.len() > 1 {
                    format!("{} @ {}", b.name, short(&r.version.rev))
                } else {
                    b.name.clone()
                },
                command,
                iterations: b.iterations,
                dir: r.dir.clone(),
                hooks: b.hooks.clone(),
            });
            batch.commands.push(text);
            batch
                .parameters
                .push(experiment.parameters.get(k).cloned().unwrap_or_default());
            batch.versions.push(Some(r.version.rev.clone()));
            batch.artifacts.push(r.artifact.map(|a| a.to_hex()));
        }
    }
    // Each benchmark builds its own version: `{src}` is its checkout (a session's versions and
    // anchors are built side by side; one build command with `{src}` left in failed them all
    // but a session of one).
    if let Some(build) = &mut batch.runner.build {
        build.for_benchmark = ready
            .iter()
            .flat_map(|r| {
                let own = r.dir.as_deref().map(|d| in_checkout(&build.command, d));
                std::iter::repeat_n(own, experiment.benchmarks.len())
            })
            .collect();
    }
    batch.exports.files.json = Some(file);
    batch.origin.label = (ready.len() == 1).then(|| ready[0].version.rev.clone());
    if ready.len() > 1 {
        batch.origin.versions = ready.iter().map(|r| r.version.rev.clone()).collect();
    }
    batch.comparison.reference = None;
    batch.comparison.enabled = compare;
    batch
}

/// Measures versions together in shuffled interleaved rounds in `session`, stores each (when
/// the run completed) with its artifact and role, and with `compare` compares every version with
/// the first (paired by round).
pub(super) fn measure_together(
    history: &mut dyn HistoryWrite,
    m: &mut Measuring<'_>,
    ready: &[Ready],
    machine: &MachineInfo,
    session: SessionId,
    facts: &SessionFacts,
    compare: bool,
) -> Result<Measurement> {
    let settings = m.settings;
    std::fs::create_dir_all(&settings.results_dir).map_err(|source| AppError::Write {
        what: "the results folder",
        source: rigor_store::StoreError::Io {
            path: settings.results_dir.clone(),
            source,
        },
    })?;
    crate::project::keep_out_of_git(&settings.results_dir);
    let file = unused_file(
        &settings.results_dir,
        &format!(
            "{}-{}",
            short(&ready[0].version.rev),
            m.experiment.runner.seed
        ),
    );
    let batch = batch_settings(
        &settings.source,
        m.experiment,
        ready,
        facts,
        file.clone(),
        compare,
    );
    let measured = run::run(&batch, m.executor, m.stop.clone(), m.progress)?;
    let complete = measured.result.status == RunStatus::Complete;
    // A command that could not start in any version, anchors included, is the command's fault:
    // a new user's `-- bench` (for ./bench) stored every version as failed, and the run with
    // the command fixed skipped them all and passed, having measured nothing.
    let failures: Vec<&rigor_store::schema::FailureRecord> = measured
        .result
        .benchmarks
        .iter()
        .flat_map(|b| &b.failures)
        .collect();
    let measured_any = measured
        .result
        .benchmarks
        .iter()
        .any(|b| b.samples.iter().any(|s| !s.warmup));
    if complete && !measured_any && !failures.is_empty() && failures.iter().all(|f| f.never_ran()) {
        return Err(AppError::CommandCannotStart {
            reason: failures[0].reason.clone(),
            file,
        });
    }
    let mut outcomes = Vec::new();
    let (mut total, mut anchored) = (0.0, 0.0);
    for r in ready {
        let mine: Vec<&BenchmarkRecord> = measured
            .result
            .benchmarks
            .iter()
            .filter(|b| b.version.as_deref() == Some(r.version.rev.as_str()))
            .collect();
        let time: f64 = mine
            .iter()
            .flat_map(|b| &b.executions)
            .map(|e| e.wall.get())
            .sum();
        total += time;
        if r.role == Role::Anchor {
            anchored += time;
        }
        let empty = |b: &&BenchmarkRecord| b.samples.iter().all(|s| s.warmup);
        if complete && mine.iter().all(empty) {
            // Nothing measured (its builds or every execution failed): recorded as failed.
            let owned: Vec<BenchmarkRecord> = mine.iter().map(|b| (*b).clone()).collect();
            let reason = why_nothing(&owned);
            if r.role == Role::New {
                history.record_failure(&Failure {
                    session: Some(session),
                    ..Failure::new(&r.version, machine, &settings.key.branch, &reason)
                })?;
            }
            let exited = mine.iter().any(|b| {
                b.failures
                    .iter()
                    .any(|f| f.stage.is_command() && f.exit_code.is_some_and(|c| c != 0))
            });
            outcomes.push(VersionOutcome::Failed { reason, exited });
            continue;
        }
        let nothing: Vec<String> = mine
            .iter()
            .zip(&m.experiment.benchmarks)
            .filter(|(b, _)| empty(b))
            .map(|(_, original)| original.name.clone())
            .collect();
        if complete {
            let mut result = measured.result.clone();
            result.provenance.label = Some(r.version.rev.clone());
            result.provenance.versions.clear();
            // Measured from a clean checkout of the version, not from the working tree rigor
            // ran in: the file records the version's commit (which `track add` checks).
            result.provenance.git = r
                .version
                .commit
                .clone()
                .map(|commit| rigor_store::GitState {
                    commit,
                    dirty: false,
                });
            result.comparisons.clear();
            result.benchmarks = mine
                .iter()
                .zip(&m.experiment.benchmarks)
                .map(|(b, original)| BenchmarkRecord {
                    name: original.name.clone(),
                    version: None,
                    ..(*b).clone()
                })
                .collect();
            history.ingest(&Ingest {
                session: Some(session),
                artifact: r.artifact,
                role: r.role,
                ..Ingest::new(&r.version, machine, &settings.key.branch, &result)
            })?;
            if settings.version_files && r.role == Role::New {
                let path = unused_file(
                    &settings.results_dir,
                    &format!("{}.version", short(&r.version.rev)),
                );
                rigor_store::save(&path, &result).map_err(|source| AppError::Write {
                    what: "a version's result",
                    source,
                })?;
            }
        }
        outcomes.push(VersionOutcome::Measured {
            file: file.clone(),
            outcome: measured.outcome,
            nothing,
            stored: complete,
        });
    }
    let precision = measured
        .known
        .as_ref()
        .map(|k| precision_cost(k, &measured.result, m.experiment, ready.len()));
    let sequential = measured
        .result
        .comparisons
        .first()
        .and_then(|c| c.sequential.clone());
    Ok(Measurement {
        outcomes,
        comparisons: measured.comparisons,
        sequential,
        time: (Seconds(total), Seconds(anchored)),
        precision,
        others_cpus: measured.result.provenance.others_cpus,
    })
}
