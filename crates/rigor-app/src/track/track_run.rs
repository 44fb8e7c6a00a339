//! `rigor track run` from its request to the change table: the versions selected (and sharded),
//! measured in sessions ([`run_versions`]), changes detected over each benchmark's series, the
//! newly detected ones confirmed by measuring both sides again together ([`confirm_changes`]),
//! and the changes listed.

use rigor_report::track_lines::Line;

use super::*;

/// Everything `rigor track run` takes.
#[derive(Debug, Clone)]
pub struct TrackRunRequest {
    /// The versions' source, the series and the experiment.
    pub track: TrackRequest,
    /// Which versions.
    pub selection: Selection,
    /// Only shard I of N (CI sharding): batches dealt out in turn, one file per version.
    pub shard: Option<(usize, usize)>,
    /// The measured-time budget of each confirmation (`None`: newly detected changes are
    /// reported without confirming them, `--no-confirm`).
    pub confirm: Option<Seconds>,
    /// The history as the closing line names it.
    pub history: String,
    /// The commands as given (a hint when several were meant as one).
    pub commands: Vec<String>,
    /// The metrics whose changes are detected after measuring (none: wall time). Only wall
    /// time's changes are confirmed by measuring again (the confirmation compares wall times);
    /// the others are reported as detected.
    pub metrics: Vec<Metric>,
}

/// What `rigor track run` shows when it ends.
#[derive(Debug, Clone)]
pub struct TrackRunReport {
    /// The changes of the series, refuted ones left out (`None`: interrupted, nothing
    /// detected).
    pub changes: Option<Vec<StoredChange>>,
    /// The events among them: changes that moved together at one version (as `rigor track
    /// changes` lists them).
    pub events: Vec<Event>,
    /// What to say after them.
    pub notes: Vec<Line>,
    /// How it ended.
    pub outcome: Outcome,
}

/// Measures the versions asked for, detects changes, confirms the new ones and lists the
/// series' changes, saying through `front` what happens as it happens.
pub fn track_run(
    history: &mut (dyn History + Send),
    request: TrackRunRequest,
    front: &mut dyn Front,
) -> Result<TrackRunReport> {
    let key = request.track.key.clone();
    let batch = request.track.batch;
    let commands = request.commands;
    let resolved = request.track.resolve_saying(front)?;
    let (mut settings, experiment) = (resolved.settings, resolved.experiment);
    settings.commits = request.selection.commits(&settings.source)?;
    if let Some((i, n)) = request.shard {
        let batch = if experiment.runner.build.is_some() {
            1
        } else {
            batch
        };
        settings.commits = shard(&settings.commits, batch, i, n);
        // A shard's versions are merged elsewhere with `track add`: one file per version.
        settings.version_files = true;
        front.say(Line::Shard {
            i,
            n,
            versions: settings.commits.len(),
            batch: batch.max(1),
        });
    }
    let versions = Line::Versions {
        count: settings.commits.len(),
        machine: key.machine.clone(),
        branch: key.branch.clone(),
        seed: experiment.runner.seed,
    };
    let tracked = phase(
        front,
        &experiment,
        Some(versions),
        |executor, stop, bar, said| {
            run_versions(history, &settings, &experiment, executor, stop, bar, said)
        },
    )?;
    let view = tracked.view(&request.history);
    let failed = view.failed > 0;
    front.say(Line::Tracked(view));
    if let Some(hint) = tracked.one_command_hint(&commands) {
        front.say(hint);
    }
    if let Some(hint) = tracked.ignore_failure_hint(experiment.runner.ignore_failure) {
        front.say(hint);
    }
    let sessions: Vec<rigor_history::SessionId> = tracked.sessions.iter().map(|s| s.id).collect();
    if !sessions.is_empty() {
        if let Some(r) = rebuilt(&history.levels(&key)?, &sessions) {
            front.say(Line::Rebuilt {
                revs: r.revs,
                sessions: r.sessions.iter().map(|s| s.0).collect(),
            });
        } else {
            for far in far_new_sessions(history, &key, &sessions)? {
                front.say(Line::FarSession {
                    session: far.session.0,
                    benchmark: far.benchmark,
                    ratio: far.ratio,
                    benchmarks: far.benchmarks,
                });
            }
        }
    }
    if tracked.interrupted {
        return Ok(TrackRunReport {
            changes: None,
            events: Vec::new(),
            notes: Vec::new(),
            outcome: Outcome::Interrupted,
        });
    }
    let series = ChangeFilter {
        machine: Some(key.machine.clone()),
        branch: Some(key.branch.clone()),
        ..ChangeFilter::default()
    };
    let known: Vec<ChangeId> = history
        .changes(&ChangeFilter {
            include_stale: true,
            ..series.clone()
        })?
        .iter()
        .map(|c| c.id)
        .collect();
    let metrics = metrics_or_wall(&request.metrics);
    // Detection after measuring takes the run's --threshold and --confidence, as `track
    // changes` does its own.
    let detect = DetectSettings {
        confidence: experiment.analysis.confidence,
        threshold: experiment.comparison.threshold,
    };
    let detected = super::detect::detect_available(history, &key, &detect, &metrics, true, true)?;
    let left_out: Vec<Line> = detected
        .left_out
        .iter()
        .map(|w| Line::Warning(w.to_string()))
        .collect();
    // How large a change at the newest version would have gone undetected ("No changes
    // detected" at a newest version measured a few times on a loaded machine is not "no
    // change").
    let newest = detected.newest.map(NewestBound::line);
    let mut shifts = detected.shifts;
    let mut found = detected.changes;
    if let Some(budget) = request.confirm {
        let cfg = ConfirmSettings {
            budget: Some(budget),
            ..ConfirmSettings::default()
        };
        found = confirm_in_rounds(
            history,
            found,
            known,
            |history, new, round| {
                front.say(if round == 0 {
                    Line::Confirming(new.len())
                } else {
                    Line::ConfirmingMoved(new.len())
                });
                let done = phase(front, &experiment, None, |executor, stop, bar, _| {
                    confirm_changes(
                        history,
                        &settings,
                        &experiment,
                        new,
                        &cfg,
                        executor,
                        stop,
                        bar,
                    )
                })?;
                for c in &done {
                    front.say(Line::Confirmation(c.view()));
                }
                Ok(done)
            },
            |history| {
                let again =
                    super::detect::detect_available(history, &key, &detect, &metrics, true, false)?;
                shifts = again.shifts;
                Ok(again.changes)
            },
        )?;
    }
    found.retain(|c| c.change.evidence != Evidence::Refuted && metrics.contains(&c.metric));
    drop(resolved.build_dir);
    let benchmarks = history.benchmarks(&key).map_or(0, |v| v.len());
    let events = super::detect::with_shifts(
        super::detect::events(&found, &|_| benchmarks),
        &shifts
            .into_iter()
            .map(|j| (key.clone(), j))
            .collect::<Vec<_>>(),
    );
    Ok(TrackRunReport {
        changes: Some(found),
        events,
        notes: left_out
            .into_iter()
            .chain(newest)
            .chain(failed.then_some(Line::VersionsFailed))
            .collect(),
        outcome: if failed { Outcome::Failed } else { Outcome::Ok },
    })
}
