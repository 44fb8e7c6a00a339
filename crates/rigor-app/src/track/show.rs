//! One benchmark's history, version by version (`rigor track show`): each version's level as
//! detection and the dashboard take it ([`levels`]: the sessions' shifts taken out, identical
//! builds pooled), and the step from the version before with its interval.

use rigor_stats::dist::{Quantile, critical_value};

use super::*;
use levels::VersionLevel;

/// A version's time against another's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio {
    /// Candidate / baseline.
    pub ratio: f64,
    /// Its interval (`None`: unbounded, or unknown).
    pub interval: Option<(f64, f64)>,
    /// The verdict against the threshold.
    pub verdict: Verdict,
    /// Whether the interval was widened to what the two versions' timer resolution can tell.
    pub at_resolution: bool,
    /// Measured until decided: what ended the sequence when it did not decide.
    pub spent: Option<rigor_report::track_run::Spent>,
}

/// One version of a benchmark's history.
#[derive(Debug, Clone)]
pub struct HistoryPoint {
    /// The version.
    pub version: VersionInfo,
    /// Its level, or `None` when it failed to build or run.
    pub level: Option<VersionLevel>,
    /// Against the version before it (session-adjusted levels, the error of the sessions'
    /// shifts in the interval; versions in sessions that share none are not compared). Shown
    /// for reference: a step between two versions is no change unless the series' detection
    /// says so (`rigor track changes`), which weighs the spread between versions too.
    pub against_previous: Option<Ratio>,
    /// Whether the step from the version before crosses sessions that share no version.
    pub confounded: bool,
    /// The change the series' detection found at this version (`rigor track changes`), with
    /// its id and ratio (of the segments either side, not of this step alone; of the 10
    /// versions either side where the level drifts, when the last is true): the only verdict a
    /// step is shown with.
    pub change: Option<(ChangeId, ChangeVerdict, f64, bool)>,
    /// Its units per level over all its runs, top level first, from the runs' stored analyses
    /// (empty without them, and in a metric other than wall time).
    pub counts: Vec<usize>,
}

/// One benchmark's history.
#[derive(Debug, Clone)]
pub struct Shown {
    /// The versions, in history order (failed ones included).
    pub points: Vec<HistoryPoint>,
    /// How much sessions shift this benchmark (σ_s on the log scale), when the history measured
    /// it, with its degrees of freedom.
    pub sessions: Option<(f64, usize)>,
    /// The sessions whose runs vary apart from the others' (τ as a fraction each), and the
    /// others' τ.
    pub apart: (Vec<(rigor_history::SessionId, f64)>, Option<f64>),
    /// Connected groups of sessions (1 when every session is tied to the others).
    pub components: usize,
    /// Sessions in the history of this benchmark.
    pub session_count: usize,
    /// The sessions that measured it far from its typical session: each one's level over the
    /// typical session's (the median shift of its group of sessions), farthest first
    /// (beyond [`FAR_SESSION`] and the spread of the others' shifts).
    pub far: Vec<(rigor_history::SessionId, f64)>,
    /// The unit of every level.
    pub unit: TimeUnit,
    /// The metric shown.
    pub metric: Metric,
    /// The quantity its levels are (wall time and CPU times: time; peak memory: bytes), which
    /// decides how they are written.
    pub quantity: rigor_units::Quantity,
}

/// The widest interval of a level `track show` writes out, as its upper end over its lower:
/// wider, it says so instead of giving two ends that bound nothing.
const WIDEST_SHOWN: f64 = 100.0;

impl Shown {
    /// What the terminal shows of `benchmark`'s history in `key`.
    pub fn view(&self, benchmark: &str, key: &SeriesKey) -> rigor_report::track_run::ShowView {
        let scale = rigor_report::format::Scale::of(self.quantity.clone());
        let lines = self
            .points
            .iter()
            .map(|p| {
                let level = p.level.as_ref().map_or_else(
                    || "no result: the version failed".to_string(),
                    |l| {
                        // In the quantity's base unit (seconds, bytes, a count).
                        let s = |x: f64| Seconds::from_unit(x, self.unit).get();
                        let (lo, hi) = l.interval;
                        // An interval over a hundredfold (Student's t on one degree of freedom
                        // of the sessions' spread, a session 2.4 times off) bounds nothing: a
                        // new user read "269.6 ms (0.003 ms .. 20917112 ms)".
                        if !(lo > 0.0 && hi / lo <= WIDEST_SHOWN) {
                            return format!(
                                "{} (interval over {WIDEST_SHOWN}× wide)",
                                scale.show(s(l.level), s(l.level))
                            );
                        }
                        format!(
                            "{} ({} .. {})",
                            scale.show(s(l.level), s(l.level)),
                            scale.show(s(lo), s(l.level)),
                            scale.show(s(hi), s(l.level))
                        )
                    },
                );
                let mut marks = String::new();
                if p.level.as_ref().is_some_and(|l| l.identical_to_previous) {
                    marks.push('=');
                }
                if p.against_previous.is_some_and(|r| r.at_resolution) {
                    marks.push('*');
                }
                if p.confounded {
                    marks.push('?');
                }
                let runs = p.level.as_ref().map_or((0, 0), |l| {
                    (
                        l.runs.len(),
                        l.runs
                            .iter()
                            .filter(|r| r.run.role == rigor_history::Role::Anchor)
                            .count(),
                    )
                });
                rigor_report::track_run::ShowLine {
                    rev: p.version.rev.clone(),
                    subject: p.version.subject.clone().unwrap_or_default(),
                    level,
                    // A step between two versions is shown as a number; a verdict only where
                    // the series' detection found a change (a test of each pair alone calls
                    // more than 10% of pairs changed when builds vary).
                    step: p.against_previous.map(|r| {
                        (
                            r.ratio,
                            p.change.map_or(String::new(), |(_, v, _, _)| v.to_string()),
                        )
                    }),
                    // The change's own figure compares the segments either side, not this
                    // step alone: both are shown, so that they are not taken for one number
                    // that disagrees with itself.
                    change: p.against_previous.and(p.change).map_or(
                        String::new(),
                        |(id, _, ratio, local)| {
                            let between = if local {
                                "the 10 versions either side (the level drifts)"
                            } else {
                                "the segments either side"
                            };
                            format!(
                                "change {}: {} between {between}",
                                id.0,
                                rigor_report::track_run::ratio_percent(ratio),
                            )
                        },
                    ),
                    marks,
                    runs,
                }
            })
            .collect();
        rigor_report::track_run::ShowView {
            benchmark: if self.metric.is_wall() {
                benchmark.to_string()
            } else {
                format!("{benchmark} ({})", self.metric)
            },
            series: (key.machine.clone(), key.branch.clone()),
            sessions: self.sessions,
            apart: (
                self.apart.0.iter().map(|(id, sd)| (id.0, *sd)).collect(),
                self.apart.1,
            ),
            session_count: (self.session_count, self.components),
            far_sessions: self.far.iter().map(|(id, r)| (id.0, *r)).collect(),
            lines,
        }
    }
}

/// A benchmark's history of wall times on a machine and branch, version by version.
pub fn show(history: &dyn HistoryRead, key: &SeriesKey, benchmark: &str) -> Result<Shown> {
    show_metric(history, key, benchmark, &Metric::Wall)
}

/// A benchmark's history in one metric on a machine and branch, version by version (a metric
/// other than wall time: each run's executions projected on it, [`levels::metric_levels`]).
pub fn show_metric(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    benchmark: &str,
    metric: &Metric,
) -> Result<Shown> {
    let versions = history.versions(key)?;
    type Found = (ChangeId, ChangeVerdict, f64, bool);
    let changes: std::collections::HashMap<String, Found> = history
        .changes(&rigor_history::ChangeFilter {
            benchmark: Some(benchmark.to_string()),
            machine: Some(key.machine.clone()),
            branch: Some(key.branch.clone()),
            include_stale: false,
        })?
        .into_iter()
        .filter(|c| {
            // A change the interleaved re-measurement refuted is no change of this history
            // (as `track run` and the published pages leave it out; `track changes` lists it).
            c.metric == *metric
                && c.status != ChangeStatus::Invalid
                && c.change.evidence != Evidence::Refuted
        })
        .map(|c| {
            (
                c.change.rev.clone(),
                (
                    c.id,
                    c.change.verdict,
                    c.change.ratio,
                    c.change.method == super::METHOD_LOCAL,
                ),
            )
        })
        .collect();
    let confidence = ConfidenceLevel::NINETY_FIVE;
    // Wall time's levels from the benchmark's summaries, read once for the counts they hold too.
    let (l, mut counts) = if metric.is_wall() {
        let summaries = history.summaries(key)?;
        let mine: Vec<&rigor_history::StoredSummary> = summaries
            .iter()
            .filter(|s| s.benchmark == benchmark)
            .collect();
        let order: Vec<String> = versions.iter().map(|v| v.version.rev.clone()).collect();
        let counts: std::collections::HashMap<String, Vec<usize>> =
            levels::counts_by_version(&mine)
                .into_iter()
                .map(|(rev, c)| (rev.to_string(), c))
                .collect();
        (
            levels::benchmark_levels(benchmark, &mine, &order, confidence)?,
            counts,
        )
    } else {
        let l = levels::benchmark_metric_levels(history, key, benchmark, metric, confidence)?;
        (l, std::collections::HashMap::new())
    };
    let mut by_rev: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    if let Some(l) = &l {
        for (i, v) in l.versions.iter().enumerate() {
            by_rev.insert(&v.rev, i);
        }
    }
    let mut points = Vec::new();
    let mut previous: Option<usize> = None;
    for stored in versions {
        match by_rev.get(stored.version.rev.as_str()).zip(l.as_ref()) {
            Some((&i, l)) => {
                let (against_previous, confounded) = match previous {
                    Some(p) => step(l, p, i, confidence),
                    None => (None, false),
                };
                previous = Some(i);
                points.push(HistoryPoint {
                    change: changes.get(&stored.version.rev).copied(),
                    counts: counts.remove(&stored.version.rev).unwrap_or_default(),
                    version: stored.version,
                    level: Some(l.versions[i].clone()),
                    against_previous,
                    confounded,
                });
            }
            // Versions that failed to build or run are shown as such (others simply lack this
            // benchmark).
            None if stored.failed > 0 && stored.failed == stored.runs => {
                points.push(HistoryPoint {
                    version: stored.version,
                    level: None,
                    against_previous: None,
                    confounded: false,
                    change: None,
                    counts: Vec::new(),
                });
            }
            None => {}
        }
    }
    Ok(Shown {
        points,
        sessions: l
            .as_ref()
            .and_then(|l| l.session_variance())
            .map(|s| (s.value.sqrt(), s.df)),
        apart: l
            .as_ref()
            .map_or((Vec::new(), None), |l| l.sessions_apart()),
        components: l.as_ref().map_or(0, |l| l.fit.components()),
        session_count: l.as_ref().map_or(0, |l| l.sessions.len()),
        far: l.as_ref().map_or(Vec::new(), far_sessions),
        unit: l.as_ref().map_or(TimeUnit::S, |l| l.unit),
        metric: metric.clone(),
        quantity: l
            .as_ref()
            .map_or(rigor_units::Quantity::Time, |l| l.quantity.clone()),
    })
}

/// A session that measured a benchmark this far (as a ratio) from its typical session, and
/// beyond the spread of the others', is named in `track show`'s header, with how
/// to take it out: a sitting beside other work (a loaded machine) pulls every level of the
/// benchmark towards it, since a level is the sessions' shifts averaged out.
pub const FAR_SESSION: f64 = 1.10;

/// Of `sessions` (just measured), those that measured some benchmark of the series far from its
/// typical session ([`FAR_SESSION`], as `track show`'s header names them): each with the
/// benchmark it measured farthest, that ratio, and how many benchmarks it measured far. Said when
/// the session ends: a new user's session beside busy loops read 3.1×, unsaid until `track show`,
/// and the next real +14% went undetected under the sessions' spread it made.
pub fn far_new_sessions(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    sessions: &[rigor_history::SessionId],
) -> Result<Vec<FarSession>> {
    let mut out: Vec<FarSession> = Vec::new();
    for l in levels::series_levels(history, key, ConfidenceLevel::NINETY_FIVE)? {
        for (session, ratio) in far_sessions(&l) {
            if !sessions.contains(&session) {
                continue;
            }
            match out.iter_mut().find(|f| f.session == session) {
                Some(f) => {
                    f.benchmarks += 1;
                    if ratio.ln().abs() > f.ratio.ln().abs() {
                        (f.benchmark, f.ratio) = (l.benchmark.clone(), ratio);
                    }
                }
                None => out.push(FarSession {
                    session,
                    benchmark: l.benchmark.clone(),
                    ratio,
                    benchmarks: 1,
                }),
            }
        }
    }
    Ok(out)
}

/// A session that measured benchmarks far from their typical sessions ([`far_new_sessions`]).
#[derive(Debug, Clone, PartialEq)]
pub struct FarSession {
    /// The session.
    pub session: rigor_history::SessionId,
    /// The benchmark it measured farthest.
    pub benchmark: String,
    /// Its level there over the typical session's.
    pub ratio: f64,
    /// How many benchmarks it measured far.
    pub benchmarks: usize,
}

/// The sessions of `l` that measured the benchmark far from its typical session, with their
/// level over the typical session's, farthest first: in each connected group of three sessions
/// or more (two have no typical one), [`far_of`] their shifts.
fn far_sessions(l: &levels::BenchmarkLevels) -> Vec<(rigor_history::SessionId, f64)> {
    let mut out = Vec::new();
    for c in 0..l.fit.components() {
        let shifts: Vec<(usize, f64)> = (0..l.sessions.len())
            .filter(|&j| l.fit.session_component(j) == Some(c))
            .filter_map(|j| l.fit.shift(j).map(|s| (j, s)))
            .collect();
        out.extend(
            far_of(&shifts)
                .into_iter()
                .map(|(j, ratio)| (l.sessions[j], ratio)),
        );
    }
    out.sort_by(|a, b| b.1.ln().abs().total_cmp(&a.1.ln().abs()));
    out
}

/// Of a group's session shifts (log scale, by session), those beyond both [`FAR_SESSION`] and
/// three robust standard deviations of the shifts (1.4826 × their median absolute deviation)
/// from their median, with the ratio of their level to the median's; none with fewer than three
/// sessions. The second bound keeps a machine whose sessions all vary widely (σ_s of 5%: one
/// session in twenty beyond 10%) from having the header name its ordinary sessions; a sitting
/// on a loaded machine stands beyond both.
fn far_of(shifts: &[(usize, f64)]) -> Vec<(usize, f64)> {
    if shifts.len() < 3 {
        return Vec::new();
    }
    let values: Vec<f64> = shifts.iter().map(|s| s.1).collect();
    let median = rigor_stats::descriptive::median(&values);
    let limit = FAR_SESSION
        .ln()
        .max(3.0 * rigor_stats::descriptive::mad_scaled(&values));
    shifts
        .iter()
        .filter(|(_, s)| (s - median).abs() > limit)
        .map(|&(j, s)| (j, (s - median).exp()))
        .collect()
}

/// Version `now` against version `before` (indexes into `l.versions`): the ratio of their
/// adjusted levels, its interval (t with the versions' own degrees of freedom), the verdict
/// against 1%, the floor of their resolution, and whether the step crosses unconnected
/// sessions.
fn step(
    l: &levels::BenchmarkLevels,
    before: usize,
    now: usize,
    confidence: ConfidenceLevel,
) -> (Option<Ratio>, bool) {
    let (a, b) = (&l.versions[now], &l.versions[before]);
    if a.point == b.point {
        // One build: the same program, no step.
        return (
            Some(Ratio {
                ratio: 1.0,
                interval: Some((1.0, 1.0)),
                verdict: Verdict::Equivalent,
                at_resolution: false,
                spent: None,
            }),
            false,
        );
    }
    let parts = l.fit.contrast_variance(&[(a.point, 1.0), (b.point, -1.0)]);
    let ratio = a.level / b.level;
    let Some(variance) = parts.total(l.session_variance()) else {
        return (
            Some(Ratio {
                ratio,
                interval: None,
                verdict: Verdict::Inconclusive,
                at_resolution: false,
                spent: None,
            }),
            parts.confounded,
        );
    };
    let own: usize = a
        .runs
        .iter()
        .chain(&b.runs)
        .map(|r| r.units.saturating_sub(1))
        .sum();
    let t = critical_value(confidence.get(), own.max(1) as f64, Quantile::StudentT).unwrap_or(1.96);
    let half = t * variance.sqrt();
    let interval = ((ratio.ln() - half).exp(), (ratio.ln() + half).exp());
    let side = |v: &VersionLevel| (v.resolution, Seconds::from_unit(v.level, l.unit));
    let floored = ratio_floor(side(b), side(a), interval);
    let at_resolution = floored.is_some_and(|f| f.at_resolution);
    let interval = floored.map_or(interval, |f| (f.lower, f.upper));
    (
        Some(Ratio {
            ratio,
            interval: Some(interval),
            verdict: rigor_stats::compare::verdict_from_interval(interval.0, interval.1, 0.01),
            at_resolution,
            spent: None,
        }),
        parts.confounded,
    )
}

/// The benchmark `rigor track show` shows: the one named, or, without a name, the series' only
/// benchmark ([`TrackError::WhichBenchmark`] listing them where it holds several or none).
pub fn benchmark_to_show(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    named: Option<&str>,
) -> Result<String> {
    if let Some(name) = named {
        return Ok(name.to_string());
    }
    let stored = history.benchmarks(key)?;
    match &stored[..] {
        [one] => Ok(one.clone()),
        _ => Err(TrackError::WhichBenchmark {
            machine: key.machine.clone(),
            branch: key.branch.clone(),
            stored,
        }
        .into()),
    }
}

/// `rigor track show`: [`show_metric`], or an error when no version measured the benchmark
/// (versions that failed altogether are listed for every name: a history of the benchmark has at
/// least one version that measured it).
pub fn show_history(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    benchmark: &str,
    metric: &Metric,
) -> Result<Shown> {
    let stored = history.benchmarks(key)?;
    let none = |stored: Vec<String>| -> AppError {
        TrackError::NoBenchmarkHistory {
            benchmark: benchmark.to_string(),
            machine: key.machine.clone(),
            branch: key.branch.clone(),
            stored,
        }
        .into()
    };
    if !stored.iter().any(|b| b == benchmark) {
        return Err(none(stored));
    }
    let shown = show_metric(history, key, benchmark, metric)?;
    if !shown.points.iter().any(|p| p.level.is_some()) {
        return Err(none(stored));
    }
    Ok(shown)
}

impl Shown {
    /// The history as `rigor track show --json` prints it: each version with its level, interval,
    /// counts per level and runs, and the step from the version before. A run of a session that
    /// measured the benchmark far from its typical session ([`Shown::far`]) has that session's
    /// level over the typical one's as `session_far` (else `null`).
    pub fn json(&self) -> serde_json::Value {
        let far = |session: rigor_history::SessionId| {
            self.far.iter().find(|(s, _)| *s == session).map(|f| f.1)
        };
        // Wall time in its stored unit; every other metric in its quantity's base unit.
        let unit = if self.metric.is_wall() {
            serde_json::json!(self.unit)
        } else {
            serde_json::json!(self.quantity.base_unit())
        };
        let points = self.points.iter().map(|p| {
            let l = p.level.as_ref();
            serde_json::json!({
                "version": p.version,
                "level": l.map(|l| l.level),
                "ci": l.map(|l| [l.interval.0, l.interval.1]),
                "unit": unit,
                "counts": l.map(|_| &p.counts),
                "identical_to_previous": l.map(|l| l.identical_to_previous),
                "sessions_unknown": l.map(|l| l.sessions_unknown),
                "runs": l.map(|l| l.runs.iter().map(|r| serde_json::json!({
                    "run": r.run.id, "session": r.run.session, "role": r.run.role,
                    "level": r.level, "units": r.units,
                    "session_far": far(r.run.session),
                })).collect::<Vec<_>>()),
                "failed": l.is_none(),
                "against_previous": p.against_previous.map(|r| serde_json::json!({
                    "ratio": r.ratio,
                    "ci": r.interval,
                    "verdict": r.verdict,
                    "at_resolution": r.at_resolution,
                    "confounded": p.confounded,
                })),
                "change": p.change.map(|(id, v, ratio, local)| serde_json::json!({"id": id.0, "verdict": v, "ratio": ratio, "in_drift": local})),
            })
        });
        serde_json::Value::Array(points.collect())
    }
}

#[cfg(test)]
mod far_tests {
    use super::far_of;

    /// A sitting far from the others is named; sessions that all vary widely are not, however
    /// many of them lie beyond 10%; fewer than three sessions have no typical one.
    #[test]
    fn far_sessions_stand_beyond_the_others_spread() {
        let quiet = [0.0, 0.01, -0.01, 0.005, -0.004, 1.1];
        let shifts: Vec<(usize, f64)> = quiet.iter().copied().enumerate().collect();
        let far = far_of(&shifts);
        assert_eq!(far.len(), 1);
        assert_eq!(far[0].0, 5);
        assert!((far[0].1 - (1.1f64 - 0.0025).exp()).abs() < 1e-9, "{far:?}");
        // Twenty sessions spread evenly over ±20%: the ±10% bound alone would name eight.
        let wide: Vec<(usize, f64)> = (0..20).map(|j| (j, -0.2 + 0.4 * j as f64 / 19.0)).collect();
        assert!(far_of(&wide).is_empty());
        assert!(far_of(&[(0, 0.0), (1, 1.0)]).is_empty());
    }
}
