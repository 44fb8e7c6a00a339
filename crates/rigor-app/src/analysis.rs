//! From stored raw data to estimates: builds each benchmark's hierarchy, runs the analysis and
//! writes the estimates back into the result records.

use rigor_stats::analysis::{Analysis, analyze};
use rigor_stats::{Hierarchy, HierarchyBuilder};
use rigor_store::{
    AnalysisRecord, BenchmarkRecord, ComponentRecord, IntervalRecord, MeanMethod, ResultFile,
    SummaryRecord,
};
use rigor_units::ConfidenceLevel;

use crate::settings::AnalysisSettings;

/// Why a benchmark has no analysis.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Unanalysed {
    /// Every execution failed or was warm-up.
    #[error("no execution was measured successfully")]
    NothingMeasured,
    /// Fewer than two top-level units.
    #[error("{units} measured {level}(s); an interval needs at least 2")]
    TooFewUnits {
        /// Units measured.
        units: usize,
        /// The top level's name.
        level: String,
    },
    /// The version failed to build or run: nothing was measured.
    #[error("the version failed (its build or every execution); `rigor track run` said why")]
    VersionFailed,
    /// The statistics refused the data.
    #[error("{0}")]
    Stats(#[from] rigor_stats::StatsError),
}

/// Each benchmark's analysis, or why it has none, in the order of the result's benchmarks.
pub type Analyses = Vec<Result<Analysis, Unanalysed>>;

/// The hierarchy of a benchmark's non-warm-up samples.
pub fn hierarchy_of(b: &BenchmarkRecord) -> Result<Hierarchy, rigor_stats::StatsError> {
    let mut builder = HierarchyBuilder::new(b.level_names());
    for s in b.samples.iter().filter(|s| !s.warmup) {
        builder.push(&b.layout.unit_path(s), s.value);
    }
    builder.build()
}

/// Analyses one benchmark, storing the estimates in the record.
pub fn analyze_record(
    b: &mut BenchmarkRecord,
    settings: &AnalysisSettings,
) -> Result<Analysis, Unanalysed> {
    b.analysis = None;
    if b.samples.iter().all(|s| s.warmup) {
        return Err(Unanalysed::NothingMeasured);
    }
    let h = hierarchy_of(b)?;
    if h.units(0) < 2 {
        return Err(Unanalysed::TooFewUnits {
            units: h.units(0),
            level: b.level_names()[0].clone(),
        });
    }
    let mut analysis = analyze(&h, &settings.config())?;
    if let Some(r) = b.resolution() {
        analysis.floor_at_resolution(r.half_step().in_unit(b.unit));
    }
    b.analysis = Some(record_of(&analysis, settings.confidence));
    Ok(analysis)
}

/// Analyses every benchmark of a result at the settings' confidence level (recorded in it).
pub fn analyze_all(result: &mut ResultFile, settings: &AnalysisSettings) -> Analyses {
    result.confidence = settings.confidence;
    result
        .benchmarks
        .iter_mut()
        .map(|b| analyze_record(b, settings))
        .collect()
}

/// The stored form of an analysis.
pub fn record_of(a: &Analysis, level: ConfidenceLevel) -> AnalysisRecord {
    let ci = &a.interval;
    AnalysisRecord {
        counts: a.counts.clone(),
        mean: ci.mean,
        ci: IntervalRecord {
            lower: ci.lower,
            upper: ci.upper,
            level,
            method: MeanMethod::of(ci.quantile),
        },
        variance_components: a
            .components
            .components
            .iter()
            .enumerate()
            .map(|(i, c)| ComponentRecord {
                level: c.level.clone(),
                s2: c.s2,
                t2: c.t2,
                units: a.counts.get(i).copied(),
            })
            .collect(),
        variance_method: a.components.method,
        summary: SummaryRecord {
            n: a.summary.n,
            median: a.summary.median,
            min: a.summary.min,
            max: a.summary.max,
            std_dev: a.summary.std_dev,
        },
        warnings: a.warnings.clone(),
    }
}
