//! Detecting changes over every benchmark's series, with the false discovery rate controlled
//! across benchmarks, and grouping them into events (`rigor track changes`).

use super::shift::joint_shifts;
use super::*;
use rigor_stats::series::{NoiseSource, VarianceSources};

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

/// A change found in one benchmark's series in one metric, before false-discovery-rate
/// control.
#[derive(Debug, Clone)]
pub(super) struct Found {
    pub(super) benchmark: String,
    pub(super) metric: Metric,
    pub(super) change: NewChange,
    /// Its position among the benchmark's points (the first after it).
    pub(super) position: usize,
}

/// The level of some versions (their resolutions and unit) as a ratio's side: the coarsest
/// resolution they reported, and `mean` (in the first one's unit) in seconds.
pub(super) fn level_at_resolution(
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
pub(super) fn segment_floor(
    steps: &[(Option<Resolution>, TimeUnit)],
) -> impl Fn(&Segment, &Segment, (f64, f64)) -> (f64, f64) + '_ {
    move |before, after, interval| {
        let side = |s: &Segment| level_at_resolution(&steps[s.start..s.end], s.mean);
        ratio_floor(side(before), side(after), interval).map_or(interval, |f| (f.lower, f.upper))
    }
}

/// One benchmark's detection: its changes, and the positions (into its points) of every
/// boundary its series was cut at.
pub(super) type OneDetected = (Vec<Found>, Vec<usize>);

/// Detects the changes of one benchmark's series on its session-adjusted levels
/// ([`levels::BenchmarkLevels`], `rigor_stats::series::detect_adjusted`): one point per stretch
/// of identical builds (so no change is reported between them), each ratio interval floored at
/// the versions' resolution, a change between sessions that share no version marked confounded.
/// With `newest`, also the newest point against the segment before it when detection kept no
/// change there (`rigor_stats::series::newest_against_before`).
///
/// `events` are positions held as boundaries (machine-wide shifts found by the benchmarks
/// together, `rigor_stats::series::detect_adjusted_with_events`); no change is reported there.
fn detect_one(
    l: &levels::BenchmarkLevels,
    s: &DetectSettings,
    newest: bool,
    events: &[usize],
) -> Result<(OneDetected, Option<(SeriesChange, VarianceSources)>)> {
    let cfg = SeriesConfig {
        level: s.confidence.get(),
        threshold: s.threshold.get(),
        ..SeriesConfig::default()
    };
    let points = l.points();
    let fit_points: Vec<usize> = points.iter().map(|p| p.0).collect();
    // Each point's coarsest resolution (its versions') in the levels' unit.
    let steps: Vec<(Option<Resolution>, TimeUnit)> = points
        .iter()
        .enumerate()
        .map(|(k, &(_, first))| {
            let end = points.get(k + 1).map_or(l.versions.len(), |p| p.1);
            let r =
                Resolution::coarsest(l.versions[first..end].iter().filter_map(|v| v.resolution));
            (r, l.unit)
        })
        .collect();
    let floor = segment_floor(&steps);
    let repeats: Vec<usize> = points
        .iter()
        .enumerate()
        .map(|(k, &(_, first))| points.get(k + 1).map_or(l.versions.len(), |p| p.1) - first)
        .collect();
    let analysis = rigor_stats::series::detect_adjusted_with_events(
        &l.fit,
        &fit_points,
        &repeats,
        &cfg,
        &floor,
        events,
    )
    .map_err(|source| AppError::Compare {
        candidate: l.benchmark.clone(),
        baseline: "its history".to_string(),
        source,
    })?;
    let boundaries: Vec<usize> = analysis.changes.iter().map(|c| c.index).collect();
    let bound = if newest {
        rigor_stats::series::newest_against_before(&l.fit, &fit_points, &boundaries, &cfg, &floor)
            .map_err(|source| AppError::Compare {
            candidate: l.benchmark.clone(),
            baseline: "its history".to_string(),
            source,
        })?
    } else {
        None
    };
    let found = analysis
        .changes
        .iter()
        // Only changes are kept (a boundary whose verdict is no change is not one), and none
        // at an event's version (the event's).
        .filter(|c| !events.contains(&c.index))
        .filter_map(|c| {
            let first = points[c.index].1;
            let verdict = oriented(c.verdict, l)?;
            Some(Found {
                position: c.index,
                benchmark: l.benchmark.clone(),
                metric: l.metric.clone(),
                change: NewChange {
                    rev: l.versions[first].rev.to_string(),
                    previous_rev: Some(l.versions[first - 1].rev.to_string()),
                    ratio: c.ratio,
                    interval: c.interval,
                    p_value: c.p_adjusted,
                    q_value: None,
                    verdict,
                    method: if c.local { METHOD_LOCAL } else { METHOD }.to_string(),
                    evidence: if c.confounded {
                        Evidence::Confounded
                    } else {
                        Evidence::Detected
                    },
                },
            })
        })
        .collect();
    Ok(((found, boundaries), bound))
}

/// The change a verdict on a ratio of `l`'s levels is: for a rate (more is better) a ratio above
/// 1 is an improvement. `None` when the verdict is no change.
pub(super) fn oriented(verdict: Verdict, l: &levels::BenchmarkLevels) -> Option<ChangeVerdict> {
    let higher_is_better = !l.metric.lower_is_better(&l.quantity);
    Some(match (ChangeVerdict::of(verdict)?, higher_is_better) {
        (ChangeVerdict::Regression, true) => ChangeVerdict::Improvement,
        (ChangeVerdict::Improvement, true) => ChangeVerdict::Regression,
        (v, false) => v,
    })
}

/// Detects wall-time changes over every benchmark of a series (from the stored levels: no
/// samples read), controls the false discovery rate across the benchmarks (Benjamini–Hochberg
/// at 1 − confidence), stores them (keeping statuses a user set, also for a change found again a
/// few versions away) and returns the current ones (of every metric).
pub fn detect_changes(
    history: &mut dyn History,
    key: &SeriesKey,
    s: &DetectSettings,
) -> Result<Vec<StoredChange>> {
    detect_metric_changes(history, key, s, &[Metric::Wall])
}

/// [`detect_changes`] in each of `metrics` (none: wall time): the levels of a metric other than
/// wall time come from each run's executions ([`levels::metric_levels`]); the false discovery
/// rate is controlled across benchmarks × metrics together; each metric's changes are stored
/// apart (detecting one metric leaves the others' as they are). Returns the current changes of
/// every metric; [`super::TrackError::NoMetric`] when no benchmark of the series has one of the
/// metrics asked for.
pub fn detect_metric_changes(
    history: &mut dyn History,
    key: &SeriesKey,
    s: &DetectSettings,
    metrics: &[Metric],
) -> Result<Vec<StoredChange>> {
    detect_available(history, key, s, metrics, true, false).map(|d| d.changes)
}

/// What [`detect_available`] detected, and what it could not.
pub(super) struct Detected {
    /// The series' current changes (of every metric).
    pub changes: Vec<StoredChange>,
    /// The metrics asked for that no benchmark of the series has, each with the error it is.
    pub missing: Vec<(Metric, AppError)>,
    /// The benchmarks left out of a metric the others have ([`rigor_store::Warning::NoMetric`]).
    pub left_out: Vec<rigor_store::Warning>,
    /// The machine-wide shifts found (their changes are among `changes`).
    pub shifts: Vec<JointShift>,
    /// When asked for: the widest interval of a benchmark's newest version against the versions
    /// before it, among the benchmarks (in wall time) with no change at the series' newest
    /// version.
    pub newest: Option<NewestBound>,
}

/// How small a change at the newest version could go undetected: among the benchmarks with no
/// change there, the one whose newest version's interval against the versions before it is the
/// widest (a change within it cannot be told from the history's noise).
#[derive(Debug, Clone, PartialEq)]
pub struct NewestBound {
    /// The newest version.
    pub rev: String,
    /// The benchmark with the widest interval.
    pub benchmark: String,
    /// Its interval of the ratio newest / before (`None`: unbounded).
    pub interval: Option<(f64, f64)>,
    /// How many benchmarks had no change at the newest version.
    pub among: usize,
    /// How many benchmarks were measured at the newest version (in wall time).
    pub of: usize,
    /// The first version of the chosen benchmark's newest build, when versions before the
    /// newest built the same program (a README change): the newest version is one level with
    /// them, and the test is of that build against the versions before it.
    pub since: Option<String>,
    /// What most of that interval's width comes from: what would narrow it.
    pub noise: NoiseSource,
}

impl NewestBound {
    /// The line that says it ("no change detected at the newest version …, which does not
    /// exclude one: …"), as `track run` and `track changes` end.
    pub fn line(self) -> rigor_report::track_lines::Line {
        rigor_report::track_lines::Line::NewestBound {
            rev: self.rev,
            benchmark: self.benchmark,
            interval: self.interval,
            among: self.among,
            of: self.of,
            since: self.since,
            noise: self.noise,
        }
    }
}

/// The widest of `bounds` (benchmark and its newest version's test), an unbounded one first.
fn widest(rev: &str, bounds: Vec<NewestOf>, of: usize) -> Option<NewestBound> {
    let among = bounds.len();
    let width = |c: &SeriesChange| {
        c.interval
            .filter(|(lo, hi)| *lo > 0.0 && hi.is_finite())
            .map_or(f64::INFINITY, |(lo, hi)| hi.ln() - lo.ln())
    };
    bounds
        .into_iter()
        .max_by(|a, b| width(&a.change).total_cmp(&width(&b.change)))
        .map(|n| NewestBound {
            rev: rev.to_string(),
            benchmark: n.benchmark,
            interval: n.change.interval,
            among,
            of,
            since: (n.since != rev).then_some(n.since),
            noise: n.sources.largest(),
        })
}

/// One benchmark's newest build against the versions before it.
struct NewestOf {
    benchmark: String,
    /// The first version of its newest build.
    since: String,
    change: SeriesChange,
    sources: VarianceSources,
}

/// [`detect_metric_changes`]; with `strict` false, a metric no benchmark of the series has is
/// left out (its changes left as they are) and returned with the error it would have been.
/// Nothing is stored when `strict` and one is missing.
pub(super) fn detect_available(
    history: &mut dyn History,
    key: &SeriesKey,
    s: &DetectSettings,
    metrics: &[Metric],
    strict: bool,
    newest: bool,
) -> Result<Detected> {
    let asked = metrics_or_wall(metrics);
    let benchmarks = history.benchmarks(key)?;
    let mut metrics = Vec::new();
    let mut missing = Vec::new();
    let mut left_out = Vec::new();
    let mut found: Vec<Found> = Vec::new();
    let mut shifts: Vec<JointShift> = Vec::new();
    let mut in_shifts: Vec<Found> = Vec::new();
    let mut bounds: Vec<NewestOf> = Vec::new();
    let mut measured_at_newest = 0;
    let order: Vec<String> = history
        .versions(key)?
        .into_iter()
        .map(|v| v.version.rev)
        .collect();
    for m in &asked {
        let levels = levels::metric_levels_noting(
            history.as_read(),
            key,
            m,
            s.confidence,
            levels::Weights::Moderated,
            &mut left_out,
        );
        match levels {
            Ok(all) => {
                metrics.push(m.clone());
                // Each benchmark's detection is its own: in parallel, kept in order.
                use rayon::prelude::*;
                // The newest version's bound, of the benchmarks measured at it.
                let at_newest = |l: &levels::BenchmarkLevels| {
                    newest
                        && m.is_wall()
                        && l.versions.last().map(|v| &*v.rev) == order.last().map(String::as_str)
                };
                type Newest = Option<(SeriesChange, VarianceSources)>;
                let (each, newest_of): (Vec<OneDetected>, Vec<Newest>) = all
                    .par_iter()
                    .map(|l| detect_one(l, s, at_newest(l), &[]))
                    .collect::<Result<Vec<_>>>()?
                    .into_iter()
                    .unzip();
                measured_at_newest += all.iter().filter(|l| at_newest(l)).count();
                bounds.extend(all.iter().zip(newest_of).filter_map(|(l, c)| {
                    let (change, sources) = c?;
                    let first = l.points().last()?.1;
                    Some(NewestOf {
                        benchmark: l.benchmark.clone(),
                        since: l.versions[first].rev.to_string(),
                        change,
                        sources,
                    })
                }));
                // A shift the benchmarks took together is one event: the changes of the
                // benchmarks it moved are its own, not separate discoveries.
                let mut explained: Vec<(String, String)> = Vec::new();
                let mut held: Vec<Vec<usize>> = vec![Vec::new(); all.len()];
                for shifted in joint_shifts(&all, &each, &order, s)? {
                    in_shifts.extend(shifted.changes);
                    explained.extend(shifted.explained);
                    shifts.push(shifted.shift);
                    for (b, at) in shifted.again {
                        held[b].push(at);
                    }
                }
                // A benchmark with an own change near an event of its is searched again with
                // the events' versions held: its own changes are placed around them, and none
                // is the events' (docs/methodology.md, "One event, not many discoveries").
                let again: Vec<Option<Vec<Found>>> = all
                    .par_iter()
                    .zip(&held)
                    .map(|(l, h)| {
                        if h.is_empty() {
                            return Ok(None);
                        }
                        detect_one(l, s, false, h).map(|((found, _), _)| Some(found))
                    })
                    .collect::<Result<_>>()?;
                for (e, again) in each.into_iter().zip(again) {
                    match again {
                        Some(own) => found.extend(own),
                        None => found.extend(e.0.into_iter().filter(|f| {
                            !explained
                                .iter()
                                .any(|(b, rev)| *b == f.benchmark && *rev == f.change.rev)
                        })),
                    }
                }
                // A long history's levels are a run list per version of every benchmark: freeing
                // them took a twentieth of `changes`, done on the pool while the changes are
                // stored.
                rayon::spawn(move || drop(all));
            }
            Err(e @ AppError::Track(TrackError::NoMetric { .. })) if !strict => {
                missing.push((m.clone(), e));
            }
            Err(e) => return Err(e),
        }
    }
    if !found.is_empty() {
        let p: Vec<f64> = found.iter().map(|f| f.change.p_value).collect();
        let q = bh_adjusted(&p).map_err(AppError::Suite)?;
        for (f, q) in found.iter_mut().zip(q) {
            f.change.q_value = Some(q);
        }
        found.retain(|f| f.change.q_value.is_some_and(|q| q <= s.confidence.alpha()));
    }
    found.extend(in_shifts);
    // A benchmark with a change kept at the newest version (its own or an event's) is not
    // bounded there.
    let newest = order.last().and_then(|rev| {
        bounds.retain(|n| {
            !found
                .iter()
                .any(|f| f.benchmark == n.benchmark && f.metric.is_wall() && f.change.rev == *rev)
        });
        widest(rev, bounds, measured_at_newest)
    });
    let before = history.changes(&ChangeFilter {
        machine: Some(key.machine.clone()),
        branch: Some(key.branch.clone()),
        include_stale: true,
        ..ChangeFilter::default()
    })?;
    for b in &benchmarks {
        for m in &metrics {
            let mut mine: Vec<NewChange> = found
                .iter()
                .filter(|f| &f.benchmark == b && f.metric == *m)
                .map(|f| f.change.clone())
                .collect();
            mine.extend(confirmed_kept(&before, b, m, &mine, &order));
            history.save_metric_changes(&DetectedChanges {
                series: key,
                benchmark: b,
                metric: m,
                changes: &mine,
            })?;
        }
    }
    carry_statuses(history, key, &before, &order)?;
    let changes = history.changes(&ChangeFilter {
        machine: Some(key.machine.clone()),
        branch: Some(key.branch.clone()),
        ..ChangeFilter::default()
    })?;
    Ok(Detected {
        changes,
        missing,
        left_out,
        shifts,
        newest,
    })
}

/// How many versions a change may move between detections and keep the status a user gave it.
pub const STATUS_REACH: usize = 3;

/// The confirmed changes of benchmark `b` in metric `m` (in `before`, the series' changes
/// before this detection, current or not) that the detection did not find again (`found`:
/// none of the same direction within [`STATUS_REACH`] versions): kept as they were stored. Of
/// confirmed changes within that reach of each other (a change confirmed again a version away),
/// the most recently detected is kept.
///
/// A confirmation measured both sides together, interleaved, until decided: it is the stronger
/// evidence. Detection over the series can lose the change when a later session is noisier (a
/// commit measured on a busy machine widened the series' spread, and a confirmed +7.7%
/// regression left `track changes` and its `--fail-on` gate with nothing said). A confirmed
/// change whose versions are no longer stored (removed) is not kept.
fn confirmed_kept(
    before: &[StoredChange],
    b: &str,
    m: &Metric,
    found: &[NewChange],
    order: &[String],
) -> Vec<NewChange> {
    let position = |rev: &str| order.iter().position(|r| r == rev);
    let mut confirmed: Vec<(&StoredChange, usize)> = before
        .iter()
        .filter(|o| {
            o.benchmark == b
                && o.metric == *m
                && o.change.evidence == rigor_history::Evidence::Confirmed
                && o.change
                    .previous_rev
                    .as_deref()
                    .is_none_or(|p| position(p).is_some())
        })
        .filter_map(|o| Some((o, position(&o.change.rev)?)))
        .collect();
    confirmed.sort_by_key(|c| std::cmp::Reverse(c.0.detected_at));
    let mut taken: Vec<(ChangeVerdict, usize)> = found
        .iter()
        .filter_map(|f| Some((f.verdict, position(&f.rev)?)))
        .collect();
    let mut kept = Vec::new();
    for (o, at) in confirmed {
        let near = |&(v, p): &(ChangeVerdict, usize)| {
            v == o.change.verdict && p.abs_diff(at) <= STATUS_REACH
        };
        if !taken.iter().any(near) {
            taken.push((o.change.verdict, at));
            kept.push(o.change.clone());
        }
    }
    kept
}

/// A change found again a few versions away from where a user set its status (more data moved
/// its boundary) keeps that status: each new change without one takes the status of the nearest
/// change of the same benchmark and direction no longer detected, within [`STATUS_REACH`]
/// versions.
fn carry_statuses(
    history: &mut dyn History,
    key: &SeriesKey,
    before: &[StoredChange],
    order: &[String],
) -> Result<()> {
    let position = |rev: &str| order.iter().position(|r| r == rev);
    let now = history.changes(&ChangeFilter {
        machine: Some(key.machine.clone()),
        branch: Some(key.branch.clone()),
        include_stale: true,
        ..ChangeFilter::default()
    })?;
    for c in now
        .iter()
        .filter(|c| c.current && c.status == ChangeStatus::New)
    {
        let Some(at) = position(&c.change.rev) else {
            continue;
        };
        let earlier = before
            .iter()
            .filter(|o| {
                o.benchmark == c.benchmark
                    && o.metric == c.metric
                    && o.status != ChangeStatus::New
                    && o.change.verdict == c.change.verdict
                    && o.change.rev != c.change.rev
                    && now.iter().any(|n| n.id == o.id && !n.current)
            })
            .filter_map(|o| Some((position(&o.change.rev)?.abs_diff(at), o)))
            .filter(|(d, _)| *d <= STATUS_REACH)
            .min_by_key(|(d, _)| *d);
        if let Some((_, o)) = earlier {
            history.set_status(c.id, o.status)?;
        }
    }
    Ok(())
}

/// The metrics asked for, wall time when none was.
pub fn metrics_or_wall(metrics: &[Metric]) -> Vec<Metric> {
    if metrics.is_empty() {
        vec![Metric::Wall]
    } else {
        metrics.to_vec()
    }
}

/// A date or time a user typed for `--since`: `2026-01-01`, or an RFC 3339 time.
#[derive(Debug, thiserror::Error)]
#[error("'{0}' is not a date (2026-01-01) or a time (2026-01-01T12:00:00Z)")]
pub struct BadDate(pub String);

/// The time `--since` names: an RFC 3339 time, or a date (its midnight in UTC).
pub fn since_time(since: &str) -> std::result::Result<jiff::Timestamp, BadDate> {
    match since.parse::<jiff::Timestamp>() {
        Ok(t) => Ok(t),
        Err(_) => since
            .parse::<jiff::civil::Date>()
            .ok()
            .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
            .map(|z| z.timestamp())
            .ok_or_else(|| BadDate(since.to_string())),
    }
}

/// The changes whose version is from `since` on (versions without a known time are left out).
pub fn changes_since(
    changes: Vec<StoredChange>,
    since: &str,
) -> std::result::Result<Vec<StoredChange>, BadDate> {
    Ok(changes_from(changes, since_time(since)?))
}

/// The changes whose version is from `from` on (versions without a known time are left out).
pub fn changes_from(changes: Vec<StoredChange>, from: jiff::Timestamp) -> Vec<StoredChange> {
    changes
        .into_iter()
        .filter(|c| c.version_time.is_some_and(|t| t >= from))
        .collect()
}

/// Changes that happened together: at one version, most benchmarks of a machine and branch
/// moved in the same direction — an environment change (a new compiler, a kernel update, a
/// different machine state) as often as a code change, shown as one event.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Event {
    /// The version.
    pub rev: String,
    /// The machine and branch.
    pub series: SeriesKey,
    /// The metric the changes are of.
    pub metric: Metric,
    /// The ids of the changes that make it up.
    pub changes: Vec<ChangeId>,
    /// How many benchmarks the series has.
    pub benchmarks: usize,
    /// Smallest and largest ratio among them.
    pub range: (f64, f64),
    /// The joint test's finding, when the benchmarks were tested together at the version (a
    /// [`JointShift`]); `None` for changes only grouped after each was detected alone.
    pub joint: Option<JointShift>,
}

/// Groups current changes into events: the changes at a version where the benchmarks' joint
/// test found a shift (some change there stored with [`EVENT_METHOD`]: all the changes of its
/// metric and direction at that version), and else at least 3 changes of one metric, in the
/// same direction, at one version, covering at least half of the series' benchmarks.
/// `benchmarks` gives each series its number of benchmarks. [`Event::joint`] is left for the
/// caller that has the detection's [`JointShift`]s ([`with_shifts`]).
pub fn events(changes: &[StoredChange], benchmarks: &dyn Fn(&SeriesKey) -> usize) -> Vec<Event> {
    type Group = (SeriesKey, Metric, String, bool);
    let mut groups: std::collections::BTreeMap<Group, Vec<&StoredChange>> =
        std::collections::BTreeMap::new();
    for c in changes.iter().filter(|c| c.current) {
        groups
            .entry((
                c.series.clone(),
                c.metric.clone(),
                c.change.rev.clone(),
                c.change.ratio > 1.0,
            ))
            .or_default()
            .push(c);
    }
    groups
        .into_iter()
        .filter_map(|((series, metric, rev, _), list)| {
            let total = benchmarks(&series);
            let joint = list.iter().any(|c| is_event_method(&c.change.method));
            (joint || (list.len() >= 3 && 2 * list.len() >= total)).then(|| {
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
                    metric,
                    joint: None,
                }
            })
        })
        .collect()
}

/// `events` with the joint test's finding of each (by series, metric and version) from
/// `shifts`.
pub fn with_shifts(mut events: Vec<Event>, shifts: &[(SeriesKey, JointShift)]) -> Vec<Event> {
    for e in &mut events {
        e.joint = shifts
            .iter()
            .find(|(k, j)| *k == e.series && j.metric == e.metric && j.rev == e.rev)
            .map(|(_, j)| j.clone());
    }
    events
}

#[cfg(test)]
#[path = "detect_tests.rs"]
mod tests;
