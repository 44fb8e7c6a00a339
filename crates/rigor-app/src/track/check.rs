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
/// variance τ² on top of its own interval, so session-to-session noise is in the interval.
#[derive(Debug, Clone)]
pub struct HistoryVerdict {
    /// The benchmark.
    pub benchmark: String,
    /// Stored versions in the baseline segment (since the branch's last change).
    pub versions: usize,
    /// The first version of that segment.
    pub since: VersionInfo,
    /// The candidate against the segment's level.
    pub change: rigor_stats::series::SeriesChange,
    /// The between-version spread used, relative to the level, squared.
    pub tau2: f64,
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
    let mut candidate = rigor_store::load(file)?;
    let mut old = ResultFile::new(seed, analysis.confidence);
    let mut versions = Vec::new();
    let mut against_history = Vec::new();
    for b in &candidate.benchmarks {
        let series = history.series(baseline, &b.name)?;
        if baseline_rev.is_none() {
            if let Some(v) = against_series(&series, b, analysis, comparison)? {
                against_history.push(v);
            }
        }
        let pick = match baseline_rev {
            Some(rev) => series
                .into_iter()
                .find(|v| v.version.rev == rev || v.version.rev.starts_with(rev)),
            None => series.into_iter().last(),
        };
        if let Some(v) = pick {
            versions.push((b.name.clone(), v.version));
            old.benchmarks.push(v.benchmark);
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
    let (comparisons, suite, warnings) =
        crate::comparisons::between(&old, &old_analyses, &candidate, &new_analyses, &cs)?;
    Ok(Checked {
        baseline: versions,
        comparisons,
        suite,
        warnings,
        against_history: Vec::new(),
    })
}

/// The candidate benchmark `b` as one more version after `series`: tested against the last
/// segment (since the last detected change) with the series' between-version variance. `None`
/// with fewer than two stored versions (no between-version variance to estimate).
fn against_series(
    series: &[VersionData],
    b: &rigor_store::BenchmarkRecord,
    analysis: &AnalysisSettings,
    comparison: &crate::settings::ComparisonSettings,
) -> Result<Option<HistoryVerdict>> {
    let (means, kept) = version_means(series);
    if means.len() < 2 {
        return Ok(None);
    }
    let Some(candidate) = hierarchy_of(b)
        .ok()
        .and_then(|h| VersionMean::robust(&h).ok())
    else {
        return Ok(None);
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
    let steps = version_steps(series, &kept);
    let found = detect_floored(&means, &cfg, &segment_floor(&steps)).map_err(stats)?;
    let Some(&last) = found.segments.last() else {
        return Ok(None);
    };
    let after = Segment {
        start: means.len(),
        end: means.len() + 1,
        mean: candidate.mean,
        variance: candidate.variance + found.tau2,
    };
    let mut change =
        rigor_stats::series::test_change(last, after, found.df, cfg.level, cfg.threshold)
            .map_err(stats)?;
    if let Some(interval) = change.interval {
        let before = level_at_resolution(&steps[last.start..last.end], last.mean);
        let now = (b.resolution(), Seconds::from_unit(candidate.mean, b.unit));
        if let Some(f) = ratio_floor(before, now, interval) {
            change.widen(f.lower, f.upper, cfg.threshold);
        }
    }
    Ok(Some(HistoryVerdict {
        benchmark: b.name.clone(),
        versions: last.end - last.start,
        since: series[kept[last.start]].version.clone(),
        change,
        tau2: found.tau2 / (last.mean * last.mean),
    }))
}
