//! Each version's point as the pages draw it: its level from `track::levels` (all of its runs
//! pooled, the sessions' shifts taken out, identical builds one point), the level's variance and
//! degrees of freedom for the page's comparison, its runs' sessions and roles, and the noise per
//! level of its latest run.

use std::collections::HashMap;

use rigor_history::{Role, StoredSummary, StoredVersion};
use rigor_report::dashboard::{Measured, PointState, RatioInput, RunMark};
use rigor_stats::crossed::CrossedFit;
use rigor_units::{ConfidenceLevel, Seconds};

use super::cache::BenchCache;
use crate::track::levels::{BenchmarkLevels, VersionLevel, benchmark_levels};

/// Every version's point for one benchmark, in the order of `versions` (the series' versions in
/// history order).
pub(crate) fn states(
    name: &str,
    bench: &BenchCache,
    versions: &[StoredVersion],
) -> Vec<PointState> {
    let summaries: Vec<StoredSummary> = bench.runs.iter().map(|r| r.summary(name)).collect();
    let refs: Vec<&StoredSummary> = summaries.iter().collect();
    let order: Vec<String> = versions.iter().map(|v| v.version.rev.clone()).collect();
    // The confidence of the benchmark's latest analysed run (rigor stores 95% unless told).
    let confidence = bench
        .runs
        .iter()
        .rev()
        .find_map(|r| r.confidence)
        .unwrap_or(ConfidenceLevel::NINETY_FIVE);
    // A fit that fails (it cannot on finite levels) leaves the versions unanalysed rather than
    // the site unpublished.
    let levels = benchmark_levels(name, &refs, &order, confidence)
        .ok()
        .flatten();
    let mut noise: HashMap<&str, &[f64]> = HashMap::new();
    for r in &bench.runs {
        // Runs arrive in run order: the latest run's noise wins.
        noise.insert(&r.rev, &r.noise);
    }
    let mut measured: HashMap<&str, Measured> = HashMap::new();
    if let Some(l) = &levels {
        for v in &l.versions {
            let noise = noise.get(&*v.rev).map_or_else(Vec::new, |n| n.to_vec());
            measured.insert(&v.rev, point(l, v, confidence, noise));
        }
    }
    versions
        .iter()
        .map(|v| {
            let rev = v.version.rev.as_str();
            match measured.remove(rev) {
                Some(m) => PointState::Measured(m),
                None if noise.contains_key(rev) => PointState::Unanalysed,
                None if v.failed > 0 && v.failed == v.runs => PointState::Failed,
                None => PointState::Missing,
            }
        })
        .collect()
}

/// One version's level in seconds, with what the page's comparison and marks need.
fn point(
    l: &BenchmarkLevels,
    v: &VersionLevel,
    confidence: ConfidenceLevel,
    noise: Vec<f64>,
) -> Measured {
    let seconds = |x: f64| Seconds::from_unit(x, l.unit).0;
    let mean = seconds(v.level);
    let ratio_input = spread(&l.fit, v).map(|(var_log, df)| RatioInput {
        units: df + 1,
        // On the level's own scale (the delta method): Fieller takes means and their variances.
        var_of_mean: mean * mean * var_log,
        step: v.resolution.map(|r| r.step().0),
    });
    Measured {
        mean,
        lower: seconds(v.interval.0),
        upper: seconds(v.interval.1),
        level: confidence.get(),
        noise,
        ratio_input,
        identical: v.identical_to_previous,
        sessions_unknown: v.sessions_unknown,
        component: l.fit.component(v.point).unwrap_or(0),
        runs: v
            .runs
            .iter()
            .map(|r| RunMark {
                session: r.run.session.0,
                role: match r.run.role {
                    Role::New => "new",
                    Role::Anchor => "anchor",
                    Role::Confirm => "confirm",
                }
                .to_string(),
            })
            .collect(),
    }
}

/// The variance of a version's log level and its degrees of freedom, as `track::levels` takes
/// them for the version's interval: the fit's variance of the point, with the spread between
/// sessions when the history measured it; the version's own top-level units' degrees of freedom,
/// no more than the sessions' when those are in.
fn spread(fit: &CrossedFit, v: &VersionLevel) -> Option<(f64, usize)> {
    let across = fit.session_variance();
    let parts = fit.contrast_variance(&[(v.point, 1.0)]);
    let variance = parts.total(across).unwrap_or(parts.estimation);
    let own: usize = v.runs.iter().map(|r| r.units.saturating_sub(1)).sum();
    let df = across.map_or(own, |s| own.min(s.df.max(1))).max(1);
    (variance.is_finite() && variance > 0.0).then_some((variance, df))
}
