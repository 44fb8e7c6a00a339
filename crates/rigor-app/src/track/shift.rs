//! Machine-wide shifts: the benchmarks' joint test across a series (`rigor_stats::joint`),
//! each shift stored as one event whose benchmarks' changes leave the false-discovery-rate
//! family of their own changes (`rigor track changes`).

use super::detect::{Found, OneDetected, oriented};
use super::*;

/// The method name stored with the changes that make up a machine-wide event ([`JointShift`]).
pub const EVENT_METHOD: &str = "joint test across benchmarks (random effects, Huber)";

/// The method events were stored with before the joint test's combination became Huber's
/// M-estimate: still read as an event.
const EVENT_METHOD_BEFORE: &str = "joint test across benchmarks (random effects, Hartung-Knapp)";

/// Whether a stored change's method is the joint test's (now or before).
pub fn is_event_method(method: &str) -> bool {
    method == EVENT_METHOD || method == EVENT_METHOD_BEFORE
}

/// One benchmark a [`JointShift`] moved, with its own step there.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Moved {
    /// The benchmark.
    pub benchmark: String,
    /// Its own ratio at the version (its own detected change's when it has one there).
    pub ratio: f64,
    /// That ratio's interval (`None`: unbounded).
    pub interval: Option<(f64, f64)>,
    /// Whether its own detection found a change there too. That change is the event's (and
    /// leaves the false-discovery-rate family) when its interval holds the common ratio; else
    /// it stays a change of its own.
    pub alone: bool,
    /// When its own change nearby stays a discovery of its own (it moved well beyond the others:
    /// its interval excludes the common ratio), that change's version: the event stores no
    /// change of this benchmark, and its own change may lie a few versions away.
    pub own: Option<String>,
    /// Whether its ratio's interval excludes no change: where a step is known only to about
    /// half the common shift, a benchmark the shift left can be listed by its noise (and one it
    /// moved left out), and one whose interval holds no change says so.
    pub clear: bool,
}

/// A shift most benchmarks of a series took together at one version, found by testing their
/// steps there together (`rigor_stats::joint`): a compiler, kernel or runtime update, a new
/// machine. Each benchmark it moved is stored as a change with [`EVENT_METHOD`], outside the
/// false-discovery-rate family of the benchmarks' own changes.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct JointShift {
    /// The metric.
    pub metric: Metric,
    /// The version: the first after the shift.
    pub rev: String,
    /// The common ratio (new level / old level).
    pub ratio: f64,
    /// Its interval at the confidence level.
    pub interval: (f64, f64),
    /// The p-value of no common shift, corrected for the versions scanned.
    pub p_value: f64,
    /// Regression or improvement.
    pub verdict: ChangeVerdict,
    /// How many benchmarks could change at the version (and were tested together).
    pub tested: usize,
    /// The benchmarks it moved: those whose step lies nearer the common shift than no change
    /// (beyond half of it), or whose own change nearby is the shift's. (An event is kept when
    /// at least half of the benchmarks tested stepped its way.)
    pub moved: Vec<Moved>,
    /// Whether some benchmark's step cannot be told from a shift between sessions.
    pub confounded: bool,
}

/// A machine-wide shift: the event, the changes of the benchmarks it moved, the benchmarks' own
/// changes it explains (benchmark and version), which leave the false-discovery-rate family,
/// and the benchmarks to search again with its version held (index into the levels, position
/// of the version in that benchmark's points; `rigor_stats::joint::Share::searched_again`).
pub(super) struct Shifted {
    pub(super) shift: JointShift,
    pub(super) changes: Vec<Found>,
    pub(super) explained: Vec<(String, String)>,
    pub(super) again: Vec<(usize, usize)>,
}

/// The machine-wide shifts among `all` (one metric's levels, `detected` their own detections,
/// in the same order; `order` the series' versions). A shift is kept when at least half of the
/// benchmarks tested moved its way.
pub(super) fn joint_shifts(
    all: &[levels::BenchmarkLevels],
    detected: &[OneDetected],
    order: &[String],
    s: &DetectSettings,
) -> Result<Vec<Shifted>> {
    use rigor_stats::joint::{JointConfig, OwnChange, StepSeries, scan};
    let Some(first_levels) = all.first() else {
        return Ok(Vec::new());
    };
    let index: std::collections::HashMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, r)| (r.as_str(), i))
        .collect();
    let points: Vec<Vec<(usize, usize)>> = all.iter().map(|l| l.points()).collect();
    let fit_points: Vec<Vec<usize>> = points
        .iter()
        .map(|p| p.iter().map(|x| x.0).collect())
        .collect();
    // Benchmarks whose versions all fall in the series' order, by their index in `all` (each
    // one's series built on its own: in parallel).
    use rayon::prelude::*;
    let (taken, series): (Vec<usize>, Vec<StepSeries<'_>>) = all
        .par_iter()
        .enumerate()
        .filter_map(|(b, l)| {
            let first: Vec<usize> = points[b]
                .iter()
                .map(|&(_, v)| index.get(l.versions[v].rev.as_ref()).copied())
                .collect::<Option<_>>()?;
            StepSeries::adjusted(&l.fit, &fit_points[b], &detected[b].1, first)
                .ok()
                .map(|one| (b, one))
        })
        .unzip();
    let cfg = JointConfig {
        level: s.confidence.get(),
        threshold: s.threshold.get(),
        ..JointConfig::default()
    };
    let events = scan(&series, order.len(), &cfg).map_err(|source| AppError::Compare {
        candidate: "the benchmarks together".to_string(),
        baseline: "their history".to_string(),
        source,
    })?;
    // Each benchmark's own changes as an event weighs them (the same for every event).
    let weighed: Vec<Vec<OwnChange>> = taken
        .iter()
        .map(|&b| {
            detected[b]
                .0
                .iter()
                .map(|f| OwnChange {
                    position: f.position,
                    ratio: f.change.ratio,
                    interval: f.change.interval,
                })
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    for e in events {
        let Some(verdict) = oriented(e.verdict, first_levels) else {
            continue;
        };
        // Kept when at least half of the benchmarks tested stepped its way.
        if !e.half_stepped_its_way() {
            continue;
        }
        let up = e.combined.log_ratio > 0.0;
        let rev = order[e.version].clone();
        let mut moved = Vec::new();
        let mut changes = Vec::new();
        let mut explained = Vec::new();
        let mut again = Vec::new();
        for (i, step) in &e.steps {
            if (step.log_ratio > 0.0) != up {
                continue;
            }
            let b = taken[*i];
            let l = &all[b];
            let Some(at) = series[*i].position(e.version) else {
                continue;
            };
            let first = points[b][at].1;
            let own = &detected[b].0;
            let explains = e
                .explains(&series[*i], *i, &weighed[*i], &cfg)
                .map_err(|source| AppError::Compare {
                    candidate: l.benchmark.clone(),
                    baseline: "the benchmarks' shift".to_string(),
                    source,
                })?;
            // A benchmark is the shift's when its step lies nearer the common shift than no
            // change, or its own change nearby is the shift's; one that stepped the shift's way
            // by its noise alone is not listed.
            let share = e.share(at, *i, &weighed[*i], &explains, &cfg);
            if !share.listed {
                continue;
            }
            // Its own change there, or within the scan's reach (its own data place it a
            // few versions away), in the shift's direction.
            let within = share.within.map(|k| &own[k]);
            if share.searched_again(at, &weighed[*i], &cfg) {
                again.push((b, at));
            }
            let (ratio, interval) = match within {
                Some(f) => (f.change.ratio, f.change.interval),
                None => (step.ratio(), step.interval(cfg.level).ok()),
            };
            // Its own change within reach is the event's when the common ratio lies within its
            // interval; one that moved well beyond the others stays a discovery of its own.
            let own_stays = within
                .filter(|_| share.own_stays)
                .map(|f| f.change.rev.clone());
            moved.push(Moved {
                benchmark: l.benchmark.clone(),
                ratio,
                interval,
                alone: within.is_some(),
                own: own_stays.clone(),
                clear: interval.is_some_and(|(lo, hi)| lo > 1.0 || hi < 1.0),
            });
            if own_stays.is_some() {
                continue;
            }
            // Its own changes that are the shift's (within reach, or placed farther off and
            // without support once its series is cut at the event) leave the family.
            for x in &explains {
                let f = &own[x.index()];
                explained.push((f.benchmark.clone(), f.change.rev.clone()));
            }
            changes.push(Found {
                position: at,
                benchmark: l.benchmark.clone(),
                metric: l.metric.clone(),
                change: NewChange {
                    rev: l.versions[first].rev.to_string(),
                    previous_rev: Some(l.versions[first - 1].rev.to_string()),
                    ratio,
                    interval,
                    p_value: e.p_adjusted,
                    q_value: None,
                    verdict,
                    method: EVENT_METHOD.to_string(),
                    evidence: if e.confounded {
                        Evidence::Confounded
                    } else {
                        Evidence::Detected
                    },
                },
            });
        }
        out.push(Shifted {
            shift: JointShift {
                metric: first_levels.metric.clone(),
                rev,
                ratio: e.combined.ratio(),
                interval: e.combined.interval,
                p_value: e.p_adjusted,
                verdict,
                tested: e.steps.len(),
                moved,
                confounded: e.confounded,
            },
            changes,
            explained,
            again,
        });
    }
    Ok(out)
}
