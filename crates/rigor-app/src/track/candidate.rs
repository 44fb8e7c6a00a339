//! The interleaved pull-request gate (`rigor track check --candidate`): the candidate and the
//! baseline built and measured together until each benchmark is decided; an identical build is
//! not measured.

use super::*;

/// The candidate of an interleaved check: a revision, or a folder that holds it built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Candidate {
    /// A revision of the repository, resolved (checked out and prepared as `track run` does).
    Rev(VersionInfo),
    /// A folder holding the candidate (used as it is: the commands run in it, `{src}` is it).
    Dir(PathBuf),
}

/// One benchmark of an interleaved check.
#[derive(Debug, Clone)]
pub struct CandidateVerdict {
    /// The benchmark.
    pub benchmark: String,
    /// The candidate against the baseline.
    pub outcome: CandidateOutcome,
}

/// What became of one benchmark of an interleaved check.
#[derive(Debug, Clone, PartialEq)]
pub enum CandidateOutcome {
    /// Measured together until decided (or until the bounds were spent).
    Measured(Ratio),
    /// Not measured: the candidate's build is byte-identical to the baseline's (the same
    /// program: no change, and nothing a measurement could add but noise).
    Identical,
    /// Not measured: the candidate is the baseline's version itself (a gate run on a commit
    /// already stored as the branch's newest compares it with itself).
    SameVersion,
    /// Could not be measured, with why.
    Failed(String),
}

impl CandidateOutcome {
    /// The verdict `--fail-on` decides from: the measured one, or equivalent for an identical
    /// build; none for a failure.
    pub fn verdict(&self) -> Option<rigor_stats::compare::Verdict> {
        match self {
            Self::Measured(r) => Some(r.verdict),
            Self::Identical | Self::SameVersion => Some(rigor_stats::compare::Verdict::Equivalent),
            Self::Failed(_) => None,
        }
    }
}

impl CandidateVerdict {
    /// What the terminal and Markdown show of it.
    pub fn view(&self) -> rigor_report::track_run::CandidateLine {
        use rigor_report::track_run::{CandidateMeasured, MeasuredRatio};
        rigor_report::track_run::CandidateLine {
            benchmark: self.benchmark.clone(),
            measured: match &self.outcome {
                CandidateOutcome::Measured(r) => CandidateMeasured::Ratio(MeasuredRatio {
                    ratio: r.ratio,
                    interval: r.interval,
                    verdict: r.verdict.to_string(),
                    spent: r.spent,
                }),
                CandidateOutcome::Identical => CandidateMeasured::Identical,
                CandidateOutcome::SameVersion => CandidateMeasured::SameVersion,
                CandidateOutcome::Failed(why) => CandidateMeasured::Not(why.clone()),
            },
        }
    }
}

/// A history writer that keeps nothing: an interleaved check's measurements are the gate's
/// only, not versions of the branch.
struct Keep;

impl HistoryWrite for Keep {
    fn begin_session(
        &mut self,
        _: &rigor_history::NewSession<'_>,
    ) -> rigor_history::Result<rigor_history::SessionId> {
        Ok(rigor_history::SessionId(0))
    }
    fn end_session(
        &mut self,
        _: rigor_history::SessionId,
        _: &rigor_history::SessionEnd,
    ) -> rigor_history::Result<()> {
        Ok(())
    }
    fn ingest(&mut self, _: &Ingest<'_>) -> rigor_history::Result<Ingested> {
        Ok(Ingested::Added(rigor_history::RunId(0)))
    }
    fn record_failure(&mut self, _: &Failure<'_>) -> rigor_history::Result<rigor_history::RunId> {
        Ok(rigor_history::RunId(0))
    }
}

/// The baseline of an interleaved check: `rev` when given, else the baseline branch's newest
/// stored version, else the branch's head in the repository.
pub fn candidate_baseline(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    source: &Source,
    rev: Option<&str>,
) -> Result<VersionInfo> {
    if let Some(rev) = rev {
        return source.resolve(rev);
    }
    let stored = history
        .versions(key)?
        .into_iter()
        .rev()
        .find(|v| v.runs > v.failed);
    match stored {
        Some(v) => source.resolve(&v.version.rev),
        None => source.resolve(&key.branch),
    }
}

/// Builds the candidate and the baseline and measures both together, each benchmark alone, in
/// shuffled interleaved rounds until its comparison is decided or `bounds` (budget, rounds) are
/// spent (the pull-request gate as `asv continuous` does it, with rigor's anytime-valid
/// sequence). Nothing is stored in the history.
#[allow(clippy::too_many_arguments)]
pub fn check_candidate(
    settings: &TrackRunSettings,
    experiment: &RunSettings,
    baseline: &VersionInfo,
    candidate: &Candidate,
    bounds: (Option<Seconds>, usize),
    executor: &mut dyn Executor,
    stop: StopSignal,
    progress: &mut dyn Progress,
) -> Result<Vec<CandidateVerdict>> {
    let (version, ready) = match candidate {
        Candidate::Rev(version) => (version.clone(), None),
        Candidate::Dir(dir) => {
            // The folder is built as a revision would be (--build), never measured stale.
            if let Source::Git(g) = &settings.source {
                if let Some(build) = &g.prepare {
                    crate::checkouts::build_in(build, dir, &stop).map_err(|source| {
                        AppError::CandidateBuild {
                            dir: dir.clone(),
                            source,
                        }
                    })?;
                }
            }
            let v = VersionInfo {
                rev: dir.display().to_string(),
                ..VersionInfo::default()
            };
            // Hashed as a checkout's are: the paths named, or the benchmarked program (a
            // folder built to the same bytes as the baseline is not measured; before, only
            // named paths were hashed here, and such a folder was measured for 200 rounds).
            let artifacts = match &settings.source {
                Source::Git(g) => crate::checkouts::hash_paths(
                    dir,
                    &crate::checkouts::artifact_paths(&g.artifacts, dir, dir),
                ),
                Source::Simulated(_) => None,
            };
            let r = Ready::in_dir(
                v.clone(),
                dir.clone(),
                artifacts.map(rigor_history::ArtifactHash),
            );
            (v, Some(r))
        }
    };
    // The baseline's version itself, or (both built once, before any measuring) a build
    // byte-identical to the baseline's: the same program, which no measurement could tell apart
    // but by noise.
    let identical = |outcome: CandidateOutcome| {
        experiment
            .benchmarks
            .iter()
            .map(|b| CandidateVerdict {
                benchmark: b.name.clone(),
                outcome: outcome.clone(),
            })
            .collect()
    };
    if ready.is_none() && version.rev == baseline.rev {
        return Ok(identical(CandidateOutcome::SameVersion));
    }
    let role = rigor_history::Role::New;
    let prepared = |v: &VersionInfo, given: Option<&Ready>| match given {
        Some(r) => Ok(r.clone()),
        None => settings
            .source
            .prepare(v, role, &stop)
            .map_err(|e| format!("{}: {e}", short(&v.rev))),
    };
    let both = prepared(baseline, None).and_then(|b| Ok((b, prepared(&version, ready.as_ref())?)));
    let (base_ready, candidate_ready) = match both {
        Ok(both) => both,
        Err(why) => {
            return Ok(experiment
                .benchmarks
                .iter()
                .map(|b| CandidateVerdict {
                    benchmark: b.name.clone(),
                    outcome: CandidateOutcome::Failed(why.clone()),
                })
                .collect());
        }
    };
    if base_ready.artifact.is_some() && base_ready.artifact == candidate_ready.artifact {
        return Ok(identical(CandidateOutcome::Identical));
    }
    let mut out = Vec::new();
    for (k, b) in experiment.benchmarks.iter().enumerate() {
        if stop.is_requested() {
            break;
        }
        let mut one = experiment.clone();
        one.benchmarks = vec![b.clone()];
        one.commands = vec![experiment.commands[k].clone()];
        one.parameters = experiment.parameters.get(k).cloned().into_iter().collect();
        one.versions.clear();
        one.artifacts.clear();
        let alone = settings.for_benchmark(k);
        let outcome = measure_until_decided(
            &mut Keep,
            alone.as_ref().unwrap_or(settings),
            &one,
            [
                (baseline, Some(&base_ready)),
                (&version, Some(&candidate_ready)),
            ],
            rigor_history::SessionKind::Check,
            rigor_history::Role::New,
            bounds,
            executor,
            stop.clone(),
            progress,
        )?;
        out.push(CandidateVerdict {
            benchmark: b.name.clone(),
            outcome: match outcome {
                Ok(r) => CandidateOutcome::Measured(r),
                Err(why) => CandidateOutcome::Failed(why),
            },
        });
    }
    Ok(out)
}

/// `rigor track check --candidate`: both built and measured together until decided.
pub(super) fn candidate_run(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    candidate: &str,
    baseline_rev: Option<String>,
    max_rounds: usize,
    mut track: TrackRequest,
    front: &mut dyn Front,
) -> Result<CheckReport> {
    // A candidate is no version of the branch: its result files go to `checks/` beside `runs/`,
    // whose files `track add` can store again as the branch's versions (unless `--export-json`
    // names the folder).
    if track.run.exports.json.is_none() {
        track.results_dir = track.results_dir.with_file_name("checks");
    }
    if let Some(m) = track.run.metrics.iter().find(|m| !m.is_wall()) {
        return Err(TrackError::CandidateMetric(m.to_string()).into());
    }
    if track.run.precision.is_some() {
        return Err(TrackError::PrecisionNotHere {
            option: "--precision",
            command: "check --candidate",
            bound: "--max-rounds and --budget",
        }
        .into());
    }
    let (budget, fail_on) = (track.run.budget, track.run.comparison.fail_on);
    let resolved = track.resolve_saying(front)?;
    let (settings, experiment) = (resolved.settings, resolved.experiment);
    let dir = Path::new(candidate);
    let candidate = if dir.is_dir() {
        Candidate::Dir(dir.canonicalize().map_err(|source| AppError::Write {
            what: "the candidate",
            source: rigor_store::StoreError::Io {
                path: dir.to_path_buf(),
                source,
            },
        })?)
    } else {
        // Resolved here: an unknown revision is refused before the opening line says what
        // will be measured.
        Candidate::Rev(settings.source.resolve(candidate)?)
    };
    let baseline = candidate_baseline(history, key, &settings.source, baseline_rev.as_deref())?;
    front.say(rigor_report::track_lines::Line::Candidate {
        candidate: match &candidate {
            Candidate::Rev(v) => rigor_report::track_run::short(&v.rev),
            Candidate::Dir(d) => d.display().to_string(),
        },
        baseline: baseline.rev.clone(),
        branch: key.branch.clone(),
        max_rounds,
        budget,
        seed: experiment.runner.seed,
    });
    let verdicts = phase(front, &experiment, None, |executor, stop, bar, _| {
        let bounds = (budget, max_rounds);
        check_candidate(
            &settings,
            &experiment,
            &baseline,
            &candidate,
            bounds,
            executor,
            stop,
            bar,
        )
    })?;
    let findings = crate::Findings {
        failed: verdicts
            .iter()
            .any(|v| matches!(v.outcome, CandidateOutcome::Failed(_))),
        verdicts: verdicts
            .iter()
            .filter_map(|v| v.outcome.verdict())
            .collect(),
        ..Default::default()
    };
    Ok(CheckReport {
        warnings: Vec::new(),
        notes: Vec::new(),
        shown: CheckShown::Candidate(baseline.rev, verdicts),
        outcome: findings.outcome(fail_on),
    })
}
