//! A saved result against the stored baseline of a branch: the pull-request gate
//! (`rigor track check`).

use super::*;

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
/// variance τ² and, measured in a session of its own, by how much sessions vary, on top of its
/// own interval.
#[derive(Debug, Clone)]
pub struct HistoryVerdict {
    /// The benchmark.
    pub benchmark: String,
    /// Stored versions in the baseline segment (since the branch's last change).
    pub versions: usize,
    /// The first version of that segment.
    pub since: String,
    /// The candidate against the segment's level (`confounded`: the history has not measured
    /// how much sessions vary, so nothing bounds the candidate's session; its verdict is then
    /// inconclusive).
    pub change: rigor_stats::series::SeriesChange,
    /// The between-version spread used (log scale, squared).
    pub tau2: f64,
    /// How much sessions shift levels (σ_s, log scale) and its degrees of freedom, when the
    /// history measured it.
    pub sessions: Option<(f64, usize)>,
}

impl HistoryVerdict {
    /// What the terminal and Markdown show of it.
    pub fn view(&self) -> rigor_report::track_run::CheckLine {
        let c = &self.change;
        rigor_report::track_run::CheckLine {
            benchmark: self.benchmark.clone(),
            ratio: c.ratio,
            interval: c.interval,
            verdict: c.verdict.to_string(),
            at_resolution: c.at_resolution,
            sessions_unknown: c.confounded,
            versions: (self.versions, self.since.clone()),
            spreads: (self.tau2.sqrt(), self.sessions.map(|s| s.0)),
        }
    }
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
    let settings = (analysis, comparison, seed);
    check_metric(
        history,
        file,
        baseline,
        baseline_rev,
        settings,
        &Metric::Wall,
    )
}

/// [`check`] in one metric: with a metric other than wall time, the candidate's and the stored
/// runs' executions are projected on it (`rigor_store::ResultFile::for_metric`), so the gate is
/// on that metric.
pub fn check_metric(
    history: &dyn HistoryRead,
    file: &Path,
    baseline: &SeriesKey,
    baseline_rev: Option<&str>,
    (analysis, comparison, seed): (
        &AnalysisSettings,
        &crate::settings::ComparisonSettings,
        rigor_units::Seed,
    ),
    metric: &Metric,
) -> Result<Checked> {
    let loaded = rigor_store::load(file)?;
    let mut candidate = loaded
        .for_metric(metric)
        .map_err(|e| AppError::from(TrackError::Metric(e)))?;
    let mut old = ResultFile::new(seed, analysis.confidence);
    let mut versions = Vec::new();
    let mut against_history = Vec::new();
    // Wall time's levels of every benchmark from one read of the series (read for each
    // benchmark, a check of 50 benchmarks on 10,000 versions spent 17 s reading them again).
    let wall: Option<std::collections::HashMap<String, levels::BenchmarkLevels>> =
        match (baseline_rev, metric.is_wall()) {
            (None, true) => Some(
                levels::series_levels(history, baseline, analysis.confidence)?
                    .into_iter()
                    .map(|l| (l.benchmark.clone(), l))
                    .collect(),
            ),
            _ => None,
        };
    let stored_versions = history.versions(baseline)?;
    let stored_benchmarks = history.benchmarks(baseline)?;
    for b in &candidate.benchmarks {
        if baseline_rev.is_none() {
            let own;
            let stored = match &wall {
                Some(all) => all.get(&b.name),
                None => {
                    own = match levels::benchmark_metric_levels(
                        history,
                        baseline,
                        &b.name,
                        metric,
                        analysis.confidence,
                    ) {
                        Ok(l) => l,
                        // No stored run of it recorded the metric: compared with one stored
                        // version, if any.
                        Err(AppError::Track(TrackError::NoMetric { .. })) => None,
                        Err(e) => return Err(e),
                    };
                    own.as_ref()
                }
            };
            if let Some(v) = stored
                .map(|l| against_series(l, b, analysis, comparison))
                .transpose()?
                .flatten()
            {
                against_history.push(v);
            }
        }
        // The baseline: the first stored version named `rev` (or starting so) that measured
        // it, else the newest that did; each version read alone, not the benchmark's whole
        // series.
        let mut pick = None;
        if stored_benchmarks.contains(&b.name) {
            let order: Vec<&rigor_history::StoredVersion> = match baseline_rev {
                Some(rev) => stored_versions
                    .iter()
                    .filter(|v| v.version.rev == rev || v.version.rev.starts_with(rev))
                    .collect(),
                None => stored_versions.iter().rev().collect(),
            };
            for v in order {
                pick = history.version_data(baseline, &b.name, &v.version.rev)?;
                if pick.is_some() {
                    break;
                }
            }
        }
        if let Some(v) = pick {
            // The stored version in the metric (a version whose runs lack it: not compared).
            if let Ok(stored) = v.benchmark.for_metric(metric) {
                versions.push((b.name.clone(), v.version));
                old.benchmarks.push(stored);
            }
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
    let crate::comparisons::Between {
        comparisons,
        suite,
        values_only,
        mut warnings,
    } = crate::comparisons::between(&old, &old_analyses, &candidate, &new_analyses, &cs, false)?;
    // A check decides by intervals: a benchmark measured once has none to decide with.
    warnings.extend(
        values_only
            .into_iter()
            .map(|v| rigor_store::Warning::NoResultToCompare {
                benchmark: v.benchmark,
            }),
    );
    Ok(Checked {
        baseline: versions,
        comparisons,
        suite,
        warnings,
        against_history: Vec::new(),
    })
}

/// The candidate benchmark `b` as one more version after `l`, the stored levels of its series
/// ([`levels`]), measured in a session of its own: tested against the last segment (since the
/// last detected change) with the series' between-version spread and, for its unknown session,
/// how much sessions vary ([`rigor_stats::series::new_session_against_last`]). `None` with fewer
/// than two stored versions.
fn against_series(
    l: &levels::BenchmarkLevels,
    b: &rigor_store::BenchmarkRecord,
    analysis: &AnalysisSettings,
    comparison: &crate::settings::ComparisonSettings,
) -> Result<Option<HistoryVerdict>> {
    let points = l.points();
    if points.len() < 2 {
        return Ok(None);
    }
    let Some(candidate) = hierarchy_of(b)
        .ok()
        .and_then(|h| VersionMean::huber(&h).ok())
        .filter(|c| c.mean > 0.0)
    else {
        return Ok(None);
    };
    let candidate_level = Seconds::from_unit(candidate.mean, b.unit).in_unit(l.unit);
    let log_candidate = VersionMean {
        mean: candidate_level.ln(),
        variance: candidate.variance / (candidate.mean * candidate.mean),
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
    let fit_points: Vec<usize> = points.iter().map(|p| p.0).collect();
    let repeats: Vec<usize> = points
        .iter()
        .enumerate()
        .map(|(k, &(_, first))| points.get(k + 1).map_or(l.versions.len(), |p| p.1) - first)
        .collect();
    let found = rigor_stats::series::detect_adjusted_repeated(
        &l.fit,
        &fit_points,
        &repeats,
        &cfg,
        &|_, _, i| i,
    )
    .map_err(stats)?;
    let mut change = rigor_stats::series::new_session_against_last(
        &l.fit,
        &fit_points,
        &found,
        log_candidate,
        &cfg,
    )
    .map_err(stats)?;
    let start = found.changes.last().map_or(0, |c| c.index);
    let first_version = points[start].1;
    if let Some(interval) = change.interval {
        let resolution = Resolution::coarsest(
            l.versions[first_version..]
                .iter()
                .filter_map(|v| v.resolution),
        );
        let before = (resolution, Seconds::from_unit(change.before.mean, l.unit));
        let now = (b.resolution(), Seconds::from_unit(candidate.mean, b.unit));
        if let Some(f) = ratio_floor(before, now, interval) {
            change.widen(f.lower, f.upper, cfg.threshold);
        }
    }
    if change.confounded {
        // Nothing bounds the new session's shift: no verdict can be had from this history.
        change.verdict = Verdict::Inconclusive;
    }
    Ok(Some(HistoryVerdict {
        benchmark: b.name.clone(),
        versions: l.versions.len() - first_version,
        since: l.versions[first_version].rev.clone(),
        change,
        tau2: found.tau2,
        sessions: l.session_variance().map(|s| (s.value.sqrt(), s.df)),
    }))
}

/// The candidate of an interleaved check: a revision, or a folder that holds it built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Candidate {
    /// A revision of the repository (checked out and prepared as `track run` does).
    Rev(String),
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
    /// Not measured: the candidate's build is byte-identical to the baseline's, or it is the
    /// baseline's version itself (the same program: no change, and nothing a measurement could
    /// add but noise).
    Identical,
    /// Could not be measured, with why.
    Failed(String),
}

impl CandidateOutcome {
    /// The verdict `--fail-on` decides from: the measured one, or equivalent for an identical
    /// build; none for a failure.
    pub fn verdict(&self) -> Option<rigor_stats::compare::Verdict> {
        match self {
            Self::Measured(r) => Some(r.verdict),
            Self::Identical => Some(rigor_stats::compare::Verdict::Equivalent),
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
                }),
                CandidateOutcome::Identical => CandidateMeasured::Identical,
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
        Candidate::Rev(rev) => (settings.source.resolve(rev)?, None),
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
            let artifacts = match &settings.source {
                Source::Git(g) => crate::checkouts::hash_paths(
                    dir,
                    &match &g.artifacts {
                        crate::checkouts::Artifacts::Paths(p) => p.clone(),
                        _ => Vec::new(),
                    },
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
    // Both built once, before any measuring: byte-identical builds (or the baseline's version
    // itself) are the same program, which no measurement could tell apart but by noise.
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
    let same_build =
        base_ready.artifact.is_some() && base_ready.artifact == candidate_ready.artifact;
    if same_build || (ready.is_none() && version.rev == baseline.rev) {
        return Ok(experiment
            .benchmarks
            .iter()
            .map(|b| CandidateVerdict {
                benchmark: b.name.clone(),
                outcome: CandidateOutcome::Identical,
            })
            .collect());
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

/// What `rigor track check` checks against the baseline.
#[derive(Debug, Clone)]
pub enum CheckAgainst {
    /// A saved result (a pull request's), compared with the branch's stored history (or with
    /// `version`, a stored version).
    Saved {
        /// The result file.
        file: PathBuf,
        /// The metric gated on (`--metric`; none: wall time; more than one is refused).
        metrics: Vec<Metric>,
        /// A stored version to compare with instead of the branch's latest.
        version: Option<String>,
        /// How the result is analysed.
        analysis: AnalysisSettings,
        /// How it is compared (`fail_on` decides the outcome).
        comparison: crate::settings::ComparisonSettings,
        /// The bootstrap's seed.
        seed: rigor_units::Seed,
    },
    /// A candidate (a revision, or a folder holding it built) built and measured together with
    /// the baseline until decided.
    Candidate {
        /// The candidate.
        candidate: String,
        /// The baseline's revision (default: [`candidate_baseline`]).
        baseline_rev: Option<String>,
        /// The most rounds of each comparison.
        max_rounds: usize,
        /// The versions' source and the experiment (`fail_on` decides the outcome).
        track: Box<TrackRequest>,
    },
}

/// What `rigor track check` shows.
#[derive(Debug)]
pub enum CheckShown {
    /// Each benchmark against one stored measurement, unpaired.
    Unpaired(Checked, rigor_units::Seed),
    /// Each benchmark against the branch's history.
    History(SeriesKey, Vec<HistoryVerdict>),
    /// The candidate against the baseline (its version), measured together.
    Candidate(String, Vec<CandidateVerdict>),
}

impl CheckShown {
    /// What the terminal and Markdown show of it.
    pub fn view(&self) -> rigor_report::track_run::CheckedView<'_> {
        use rigor_report::track_run::CheckedView;
        match self {
            Self::Unpaired(c, seed) => CheckedView::Unpaired(
                crate::comparisons::views(&c.comparisons),
                c.suite
                    .as_ref()
                    .filter(|s| s.benchmarks > 1)
                    .map(|s| (crate::comparisons::suite_view(s), *seed)),
            ),
            Self::History(key, lines) => CheckedView::History(
                key.branch.clone(),
                key.machine.clone(),
                lines.iter().map(HistoryVerdict::view).collect(),
            ),
            Self::Candidate(baseline, verdicts) => CheckedView::Candidate(
                baseline.clone(),
                verdicts.iter().map(CandidateVerdict::view).collect(),
            ),
        }
    }
}

/// What `rigor track check` found.
#[derive(Debug)]
pub struct CheckReport {
    /// Benchmarks not compared, and other problems.
    pub warnings: Vec<rigor_store::Warning>,
    /// Notes (after the warnings).
    pub notes: Vec<rigor_report::track_lines::Line>,
    /// The comparisons.
    pub shown: CheckShown,
    /// The outcome `--fail-on` decides.
    pub outcome: Outcome,
}

/// `rigor track check`: a saved result against the stored baseline of `key` (the machine and
/// the baseline branch) — [`check`] — or a candidate measured together with the baseline until
/// decided — [`check_candidate`], saying through `front` what happens as it happens.
pub fn check_run(
    history: &dyn HistoryRead,
    key: SeriesKey,
    against: CheckAgainst,
    front: &mut dyn Front,
) -> Result<CheckReport> {
    use rigor_report::track_lines::Line;
    let (file, version, analysis, comparison, seed, metric) = match against {
        CheckAgainst::Saved {
            file,
            metrics,
            version,
            analysis,
            comparison,
            seed,
        } => (
            file,
            version,
            analysis,
            comparison,
            seed,
            one_metric(&metrics)?,
        ),
        CheckAgainst::Candidate {
            candidate,
            baseline_rev,
            max_rounds,
            track,
        } => {
            return candidate_run(
                history,
                &key,
                &candidate,
                baseline_rev,
                max_rounds,
                *track,
                front,
            );
        }
    };
    let stored = history.series_keys()?;
    if !stored.contains(&key) {
        return Err(TrackError::NoSeries {
            stored: stored
                .into_iter()
                .filter(|k| k.machine == key.machine)
                .map(|k| k.branch)
                .collect(),
            branch: key.branch,
            machine: key.machine,
        }
        .into());
    }
    let checked = check_metric(
        history,
        &file,
        &key,
        version.as_deref(),
        (&analysis, &comparison, seed),
        &metric,
    )?;
    let findings = crate::Findings {
        verdicts: if checked.against_history.is_empty() {
            checked
                .comparisons
                .iter()
                .map(|c| c.comparison.verdict)
                .collect()
        } else {
            checked
                .against_history
                .iter()
                .map(|v| v.change.verdict)
                .collect()
        },
        warned: !checked.warnings.is_empty(),
        ..Default::default()
    };
    let outcome = findings.outcome(comparison.fail_on);
    let warnings = checked.warnings.clone();
    if !checked.against_history.is_empty() {
        let lines = checked.against_history;
        return Ok(CheckReport {
            warnings,
            notes: Vec::new(),
            shown: CheckShown::History(key, lines),
            outcome,
        });
    }
    let mut notes: Vec<Line> = checked
        .baseline
        .iter()
        .map(|(name, v)| Line::Unpaired {
            benchmark: name.clone(),
            rev: v.rev.clone(),
            subject: v.subject.clone().unwrap_or_default(),
            branch: key.branch.clone(),
        })
        .collect();
    notes.push(Line::UnpairedVerdict);
    Ok(CheckReport {
        warnings,
        notes,
        shown: CheckShown::Unpaired(checked, seed),
        outcome,
    })
}

/// The one metric a check gates on: wall time when none is named.
fn one_metric(metrics: &[Metric]) -> Result<Metric> {
    match metrics {
        [] => Ok(Metric::Wall),
        [one] => Ok(one.clone()),
        several => Err(TrackError::OneMetricAtATime {
            count: several.len(),
            names: several
                .iter()
                .map(Metric::name)
                .collect::<Vec<_>>()
                .join(","),
        }
        .into()),
    }
}

/// `rigor track check --candidate`: both built and measured together until decided.
fn candidate_run(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    candidate: &str,
    baseline_rev: Option<String>,
    max_rounds: usize,
    track: TrackRequest,
    front: &mut dyn Front,
) -> Result<CheckReport> {
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
        Candidate::Rev(candidate.to_string())
    };
    let baseline = candidate_baseline(history, key, &settings.source, baseline_rev.as_deref())?;
    front.say(rigor_report::track_lines::Line::Candidate {
        candidate: match &candidate {
            Candidate::Rev(r) => rigor_report::track_run::short(r),
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
