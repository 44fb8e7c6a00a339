//! One benchmark's history, version by version (`rigor track show`).

use super::*;

/// One version of a benchmark's history, analysed.
#[derive(Debug, Clone)]
pub struct HistoryPoint {
    /// The version.
    pub version: VersionInfo,
    /// Its analysed result (one benchmark), or why it has none.
    pub analysis: std::result::Result<rigor_stats::Analysis, crate::analysis::Unanalysed>,
    /// Against the version before it (each with its own interval): rigor's ratio verdict
    /// (Fieller, Welch) and the non-overlap rule's verdict (Kalibera & Tůma 2006). Shown for
    /// reference: between versions, build and session noise make both too eager, which is why
    /// changes are detected over the series with versions as the top level.
    pub against_previous: Option<(Ratio, Verdict)>,
}

/// A benchmark's history on a machine and branch, analysed version by version.
pub fn show(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    benchmark: &str,
) -> Result<Vec<HistoryPoint>> {
    let mut measured: std::collections::HashMap<String, VersionData> = history
        .series(key, benchmark)?
        .into_iter()
        .map(|v| (v.version.rev.clone(), v))
        .collect();
    let mut points: Vec<HistoryPoint> = Vec::new();
    let mut previous: Option<Level> = None;
    for stored in history.versions(key)? {
        let Some(v) = measured.remove(&stored.version.rev) else {
            // Versions that failed to build or run are shown as such (others simply lack this
            // benchmark).
            if stored.failed > 0 && stored.failed == stored.runs {
                points.push(HistoryPoint {
                    version: stored.version,
                    analysis: Err(crate::analysis::Unanalysed::VersionFailed),
                    against_previous: None,
                });
            }
            continue;
        };
        let h = hierarchy_of(&v.benchmark).ok();
        let at = (v.benchmark.resolution(), v.benchmark.unit);
        let mut result = ResultFile {
            benchmarks: vec![v.benchmark],
            ..ResultFile::new(rigor_units::Seed(0), ConfidenceLevel::NINETY_FIVE)
        };
        let analysis = analyze_all(&mut result, &AnalysisSettings::default())
            .pop()
            .unwrap_or(Err(crate::analysis::Unanalysed::NothingMeasured));
        let against_previous = match (previous.take(), h, &analysis) {
            (before, Some(h), Ok(a)) => {
                let now = Level {
                    hierarchy: h,
                    analysis: a.clone(),
                    resolution: at.0,
                    unit: at.1,
                };
                let ratio = before.and_then(|b| consecutive(&b, &now));
                previous = Some(now);
                ratio
            }
            (before, _, _) => {
                previous = before;
                None
            }
        };
        points.push(HistoryPoint {
            version: v.version,
            analysis,
            against_previous,
        });
    }
    Ok(points)
}

/// An analysed version of a history, as the next one is compared with it.
struct Level {
    hierarchy: rigor_stats::Hierarchy,
    analysis: rigor_stats::Analysis,
    /// The step its times move in, when known.
    resolution: Option<Resolution>,
    /// The unit of its values.
    unit: TimeUnit,
}

/// The ratio verdict and the non-overlap verdict of `now` against `before`; the ratio interval
/// floored at their resolutions as `rigor compare` floors it.
fn consecutive(before: &Level, now: &Level) -> Option<(Ratio, Verdict)> {
    use rigor_stats::fieller::{DfMethod, MeanEstimate, fieller};
    let a = MeanEstimate::from_hierarchy(&now.hierarchy).ok()?;
    let b = MeanEstimate::from_hierarchy(&before.hierarchy).ok()?;
    let f = fieller(&a, &b, 0.95, DfMethod::WelchSatterthwaite).ok()?;
    let side = |l: &Level, e: &MeanEstimate| (l.resolution, Seconds::from_unit(e.mean, l.unit));
    let floored = f
        .bounds()
        .map(|i| (i, ratio_floor(side(before, &b), side(now, &a), i)));
    let at_resolution = floored.is_some_and(|(_, f)| f.is_some_and(|f| f.at_resolution));
    let interval = floored.map(|(i, f)| f.map_or(i, |f| (f.lower, f.upper)));
    let verdict = interval.map_or(Verdict::Unbounded, |(lo, hi)| {
        rigor_stats::compare::verdict_from_interval(lo, hi, 0.01)
    });
    let overlap =
        rigor_stats::compare::overlap_verdict(&now.analysis.interval, &before.analysis.interval)
            .verdict;
    Some((
        Ratio {
            ratio: f.ratio,
            interval,
            verdict,
            at_resolution,
        },
        overlap,
    ))
}

/// A version's time against another's, measured together.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio {
    /// Candidate / baseline.
    pub ratio: f64,
    /// Its interval (`None`: unbounded).
    pub interval: Option<(f64, f64)>,
    /// The verdict against the threshold.
    pub verdict: Verdict,
    /// Whether the interval was widened to what the two versions' timer resolution can tell.
    pub at_resolution: bool,
}
