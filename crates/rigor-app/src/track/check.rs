//! A saved result against the stored baseline of a branch: the pull-request gate
//! (`rigor track check`).

use std::collections::HashMap;

use super::candidate::candidate_run;
use super::conditions;
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
    /// how much sessions vary, or compared them only once, so nothing bounds the candidate's
    /// session; its verdict is then inconclusive).
    pub change: rigor_stats::series::SeriesChange,
    /// The between-version spread used (log scale, squared).
    pub tau2: f64,
    /// How much sessions shift levels (σ_s, log scale) and its degrees of freedom, when the
    /// history measured it.
    pub sessions: Option<(f64, usize)>,
    /// The candidate was measured under other conditions than the history's runs: under
    /// contention they did not see, or without the contention they all saw (its CPU share,
    /// [`rigor_store::Warning::ContentionDiffers`]), or where no CPU share tells, on a busy
    /// machine against quiet sessions or the reverse ([`rigor_store::Warning::LoadDiffers`]):
    /// its verdict is withheld; or far in time from every session of the history
    /// ([`rigor_store::Warning::FarFromSessions`]).
    pub withheld: Option<rigor_report::track_run::Withheld>,
}

/// How many times its lower end an undecided interval's upper end may be before its point
/// estimate stops being a headline: beyond a factor of two (say −50% .. +0%, or −90% .. +138%
/// on a loaded machine whose sessions differ by half), the middle of the interval reads as a
/// change that nothing supports.
const UNINFORMATIVE_SPAN: f64 = 2.0;

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
            withheld: self.withheld,
            uninformative: !c.verdict.is_change()
                && c.interval
                    .is_none_or(|(lo, hi)| hi > UNINFORMATIVE_SPAN * lo || (hi - lo).is_nan()),
            versions: (self.versions, self.since.clone()),
            spreads: (self.tau2.sqrt(), self.sessions),
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
    // The runs each verdict's history is made of (its segment's newest), and the CPU shares of
    // the stored versions the unpaired fallback compares with: what tells a candidate measured
    // under contention they did not see (`conditions`).
    let mut segment_runs: Vec<(String, Vec<rigor_history::RunId>)> = Vec::new();
    let mut picked_shares: HashMap<String, Vec<rigor_store::CpuShare>> = HashMap::new();
    // Wall time's levels of every benchmark from one read of the series (read for each
    // benchmark, a check of 50 benchmarks on 10,000 versions spent 17 s reading them again).
    // When that fails (a benchmark's fit, maybe one the candidate lacks), each of the
    // candidate's benchmarks is read on its own below, and only its own failure counts.
    let wall: Option<std::collections::HashMap<String, levels::BenchmarkLevels>> =
        match (baseline_rev, metric.is_wall()) {
            (None, true) => levels::series_levels(history, baseline, analysis.confidence)
                .ok()
                .map(|all| all.into_iter().map(|l| (l.benchmark.clone(), l)).collect()),
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
            if let Some((v, runs)) = stored
                .map(|l| against_series(l, b, analysis, comparison))
                .transpose()?
                .flatten()
            {
                segment_runs.push((b.name.clone(), runs));
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
                picked_shares.insert(
                    b.name.clone(),
                    rigor_store::CpuShare::of_executions(&v.benchmark.executions)
                        .into_iter()
                        .collect(),
                );
                versions.push((b.name.clone(), v.version));
                old.benchmarks.push(stored);
            }
        }
    }
    if versions.is_empty() {
        let quoted = |names: &mut dyn Iterator<Item = &String>| {
            names
                .map(|n| format!("'{n}'"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let stored = quoted(&mut stored_benchmarks.iter());
        return Err(AppError::NoBaseline {
            checked: quoted(&mut candidate.benchmarks.iter().map(|b| &b.name)),
            machine: baseline.machine.clone(),
            branch: baseline.branch.clone(),
            stored: if stored.is_empty() {
                "none".into()
            } else {
                stored
            },
        });
    }
    // The history decides when it covers every benchmark with a baseline; otherwise every
    // benchmark is compared with its one stored measurement (the unpaired fallback).
    let tolerance = crate::conditions::share_tolerance(comparison.threshold.get());
    let sessions = history.sessions(baseline)?;
    let judge = |shares: &conditions::HistoryShares| {
        if !crate::conditions::bear_on(metric) {
            return Vec::new();
        }
        conditions::differing(&loaded, shares, tolerance, &sessions)
    };
    if against_history.len() == versions.len() {
        let shares = if crate::conditions::bear_on(metric) {
            history_shares(history, &segment_runs)?
        } else {
            conditions::HistoryShares::default()
        };
        let mut differs = judge(&shares);
        // The spread between sessions that the verdicts allow for holds only the time the
        // sessions span.
        if against_history.iter().any(|v| !v.change.confounded) {
            differs.extend(conditions::far_from_sessions(
                loaded.provenance.started,
                &sessions,
            ));
        }
        return Ok(conditions::withheld(
            Checked {
                baseline: versions,
                comparisons: Vec::new(),
                suite: None,
                warnings: Vec::new(),
                against_history,
            },
            differs,
            comparison.threshold.get(),
        ));
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
    // The stored versions come merged from their runs, without what others used over each.
    let differs = judge(&conditions::HistoryShares {
        by_benchmark: picked_shares,
        others: crate::conditions::OthersUse::default(),
    });
    Ok(conditions::withheld(
        Checked {
            baseline: versions,
            comparisons,
            suite,
            warnings,
            against_history: Vec::new(),
        },
        differs,
        comparison.threshold.get(),
    ))
}

/// The most runs of a segment whose CPU shares a check reads (its newest): enough to show the
/// conditions the history was measured under, few enough that a segment of thousands of versions
/// costs a check no more than a few milliseconds a benchmark.
const SHARE_RUNS: usize = 64;

/// The CPU shares of each benchmark's `runs` (their segment's newest), by benchmark, in one read.
fn history_shares(
    history: &dyn HistoryRead,
    runs: &[(String, Vec<rigor_history::RunId>)],
) -> Result<conditions::HistoryShares> {
    let mut all: Vec<rigor_history::RunId> =
        runs.iter().flat_map(|(_, r)| r.iter().copied()).collect();
    all.sort_unstable();
    all.dedup();
    let read = history.cpu_shares(&all)?;
    Ok(conditions::HistoryShares::of(&read, runs))
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
) -> Result<Option<(HistoryVerdict, Vec<rigor_history::RunId>)>> {
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
    let runs = l.versions[first_version..]
        .iter()
        .rev()
        .flat_map(|v| v.runs.iter().map(|r| r.run.id))
        .take(SHARE_RUNS)
        .collect();
    Ok(Some((
        HistoryVerdict {
            benchmark: b.name.clone(),
            versions: l.versions.len() - first_version,
            since: l.versions[first_version].rev.to_string(),
            change,
            tau2: found.tau2,
            sessions: l.session_variance().map(|s| (s.value.sqrt(), s.df)),
            withheld: None,
        },
        runs,
    )))
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use rigor_stats::compare::Verdict;
    use rigor_stats::series::{Segment, SeriesChange};

    pub(in crate::track) fn verdict(
        ratio: f64,
        interval: Option<(f64, f64)>,
        verdict: Verdict,
    ) -> HistoryVerdict {
        let segment = |mean| Segment {
            start: 0,
            end: 1,
            mean,
            variance: 0.0,
        };
        HistoryVerdict {
            benchmark: "b".into(),
            versions: 12,
            since: "v1".into(),
            change: SeriesChange {
                index: 1,
                before: segment(1.0),
                after: segment(ratio),
                ratio,
                interval,
                p_value: 0.5,
                p_adjusted: 0.5,
                verdict,
                at_resolution: false,
                confounded: false,
                local: false,
            },
            tau2: 0.0,
            sessions: Some((0.5, 8)),
            withheld: None,
        }
    }

    /// Only an undecided interval wider than a factor of two (or unbounded) loses its estimate:
    /// a wide interval that still decides keeps it.
    #[test]
    fn only_undecided_intervals_wider_than_twice_lose_their_estimate() {
        let wide = Some((0.10, 2.38));
        assert!(
            verdict(0.49, wide, Verdict::Inconclusive)
                .view()
                .uninformative
        );
        assert!(verdict(0.49, None, Verdict::Unbounded).view().uninformative);
        assert!(
            !verdict(3.0, Some((1.2, 7.5)), Verdict::Regression)
                .view()
                .uninformative
        );
        assert!(
            !verdict(1.3, Some((0.8, 1.59)), Verdict::Inconclusive)
                .view()
                .uninformative
        );
        assert!(
            verdict(1.3, Some((0.8, 1.61)), Verdict::Inconclusive)
                .view()
                .uninformative
        );
    }
}
