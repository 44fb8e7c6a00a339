//! Glue between stored raw data and the statistics: builds hierarchies from samples, runs the
//! analysis and writes the estimates back into the result records.

use rigor_report::warnings;
use rigor_stats::analysis::{Analysis, AnalysisConfig, analyze};
use rigor_stats::{Hierarchy, HierarchyBuilder};
use rigor_store::{
    AnalysisRecord, BenchmarkRecord, ComponentRecord, IntervalRecord, ResultFile, SummaryRecord,
};

/// The hierarchy of a benchmark's non-warm-up samples: executions, and iterations when reported.
pub fn hierarchy_of(b: &BenchmarkRecord) -> Result<Hierarchy, String> {
    if !(1..=3).contains(&b.levels.len()) {
        return Err(format!(
            "{} levels are not supported in result files",
            b.levels.len()
        ));
    }
    let mut builder = HierarchyBuilder::new(b.levels.clone());
    for s in b.samples.iter().filter(|s| !s.warmup) {
        builder.push(&s.unit_path(&b.levels), s.value);
    }
    builder.build().map_err(|e| e.to_string())
}

/// Analyses one benchmark, storing the estimates in the record. Too little data is an `Err` with
/// the reason in words (the record keeps no analysis).
pub fn analyze_record(
    b: &mut BenchmarkRecord,
    config: &AnalysisConfig,
) -> Result<Analysis, String> {
    b.analysis = None;
    if b.samples.iter().all(|s| s.warmup) {
        return Err("no execution was measured successfully".into());
    }
    let h = hierarchy_of(b)?;
    if h.units(0) < 2 {
        return Err(format!(
            "{} measured {}(s); an interval needs at least 2",
            h.units(0),
            b.levels[0]
        ));
    }
    let analysis = analyze(&h, config).map_err(|e| e.to_string())?;
    b.analysis = Some(record_of(&analysis));
    Ok(analysis)
}

/// Analyses every benchmark of a result; returns each one's analysis or the reason it has none.
pub fn analyze_all(
    result: &mut ResultFile,
    config: &AnalysisConfig,
) -> Vec<Result<Analysis, String>> {
    result
        .benchmarks
        .iter_mut()
        .map(|b| analyze_record(b, config))
        .collect()
}

/// The stored form of an analysis.
pub fn record_of(a: &Analysis) -> AnalysisRecord {
    let ci = &a.interval;
    AnalysisRecord {
        counts: a.counts.clone(),
        mean: ci.mean,
        ci: IntervalRecord {
            lower: ci.lower,
            upper: ci.upper,
            level: ci.level,
            method: format!("{}-top-level-means", quantile_name(ci.quantile)),
        },
        variance_components: a
            .components
            .components
            .iter()
            .map(|c| ComponentRecord {
                level: c.level.clone(),
                s2: c.s2,
                t2: c.t2,
            })
            .collect(),
        variance_method: serde_json::to_value(a.components.method)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        summary: SummaryRecord {
            n: a.summary.n,
            median: a.summary.median,
            min: a.summary.min,
            max: a.summary.max,
            std_dev: a.summary.std_dev,
        },
        warnings: a.warnings.iter().map(warnings::text).collect(),
    }
}

fn quantile_name(q: rigor_stats::Quantile) -> &'static str {
    match q {
        rigor_stats::Quantile::StudentT => "t",
        rigor_stats::Quantile::Normal => "normal",
    }
}

/// Failures of a benchmark, in words.
pub fn failure_lines(b: &BenchmarkRecord) -> Vec<String> {
    b.failures
        .iter()
        .map(|f| {
            let tail = f.stderr_tail.trim();
            let tail = last_lines(tail, 3);
            if tail.is_empty() {
                format!("execution {}: {}", f.execution + 1, f.reason)
            } else {
                format!(
                    "execution {}: {}; stderr ends:\n    {}",
                    f.execution + 1,
                    f.reason,
                    tail.replace('\n', "\n    ")
                )
            }
        })
        .collect()
}

fn last_lines(text: &str, n: usize) -> &str {
    let mut idx = text.len();
    for _ in 0..n {
        match text[..idx].rfind('\n') {
            Some(i) => idx = i,
            None => return text,
        }
    }
    &text[idx + 1..]
}
