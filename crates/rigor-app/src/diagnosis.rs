//! Warm-up and steady state (docs/methodology.md, "Steady state and the random initial state"):
//! diagnose each benchmark's executions, apply `--discard auto`, and compute the impact factors of
//! the random initial state.

use rigor_stats::impact::{ImpactConfig, ImpactFactor, impact_factor, impact_factor_centred};
use rigor_stats::mixture::{MixtureConfig, impact_factor_clustered};
use rigor_stats::robust::{RobustConfig, RobustEstimate, plain_estimate, robust_estimate};
use rigor_stats::steady::{Recommendation, SteadyConfig, SteadyStateReport, diagnose};
use rigor_store::{BenchmarkRecord, ResultFile, SampleRecord, SteadyStateRecord, Warning};
use rigor_units::{ConfidenceLevel, Seed};

/// An execution's identity: (build, execution).
type ExecKey = (Option<usize>, usize);

/// Groups consecutive samples by execution, in order.
fn group<'a>(samples: impl Iterator<Item = &'a SampleRecord>) -> Vec<Vec<f64>> {
    let mut runs: Vec<(ExecKey, Vec<f64>)> = Vec::new();
    for s in samples {
        let key = (s.build, s.execution);
        match runs.last_mut() {
            Some((k, v)) if *k == key => v.push(s.value),
            _ => runs.push((key, vec![s.value])),
        }
    }
    runs.into_iter().map(|(_, v)| v).collect()
}

fn has_iterations(b: &BenchmarkRecord) -> bool {
    b.layout.has_iterations()
}

/// Each measured execution's iterations in order (discarded ones included), or `None` when the
/// benchmark reports no iterations.
pub fn runs_of(b: &BenchmarkRecord) -> Option<Vec<Vec<f64>>> {
    if !has_iterations(b) {
        return None;
    }
    Some(group(measured_executions(b)))
}

/// The samples of executions that are not warm-up executions, in run order.
pub(crate) fn measured_executions(b: &BenchmarkRecord) -> impl Iterator<Item = &SampleRecord> {
    let warm = warmup_executions(b);
    b.samples
        .iter()
        .filter(move |s| !warm.contains(&(s.build, s.execution)))
}

/// The diagnosis of a benchmark with iterations; `seed` seeds the shuffled comparisons.
pub fn diagnose_benchmark(
    b: &BenchmarkRecord,
    seed: Seed,
) -> Option<Result<SteadyStateReport, rigor_stats::StatsError>> {
    let runs = runs_of(b)?;
    let mut cfg = SteadyConfig::default();
    cfg.independence.seed = seed.get();
    Some(diagnose(&runs, &cfg))
}

/// Applies Kalibera & Jones' rule to the samples (marking discarded iterations as warm-up) and
/// returns the stored record.
pub fn apply(b: &mut BenchmarkRecord, report: &SteadyStateReport) -> SteadyStateRecord {
    let rule = report.recommendation();
    match rule {
        Recommendation::Iterations { warmup } | Recommendation::Untested { warmup } => {
            mark(b, |i| i < warmup)
        }
        Recommendation::SingleIteration { index } => mark(b, |i| i != index),
        Recommendation::Unsettled => {}
    }
    record(report, rule)
}

/// The stored form of a diagnosis and the rule applied.
pub fn record(report: &SteadyStateReport, applied: Recommendation) -> SteadyStateRecord {
    SteadyStateRecord {
        classes: report.runs.iter().map(|r| r.class).collect(),
        consistency: report.consistency,
        initialised_warmup: report.initialised_warmup,
        independent_warmup: report.independent_warmup,
        never_independent: report.never_independent,
        dacapo: report.dacapo,
        georges: report.georges,
        applied,
    }
}

/// The whole executions run as warm-up.
fn warmup_executions(b: &BenchmarkRecord) -> std::collections::HashSet<ExecKey> {
    b.executions
        .iter()
        .filter(|e| e.warmup)
        .map(|e| (e.build, e.execution))
        .collect()
}

fn mark(b: &mut BenchmarkRecord, discard: impl Fn(usize) -> bool) {
    let warm = warmup_executions(b);
    for s in &mut b.samples {
        s.warmup = warm.contains(&(s.build, s.execution)) || discard(s.iteration);
    }
}

/// Impact factors of the random initial state on the analysed values.
pub struct Impacts {
    /// On the original values.
    pub original: ImpactFactor,
    /// On run-mean-centred values (the additive-model check).
    pub centred: ImpactFactor,
    /// After the clustering additive filter (Kalibera, Bulej & Tůma 2005b, §4.1), when the mixtures
    /// could be fitted.
    pub clustered: Option<ImpactFactor>,
}

/// The analysed values of each execution with at least two of them.
fn analysed_runs(b: &BenchmarkRecord) -> Vec<Vec<f64>> {
    group(b.samples.iter().filter(|s| !s.warmup))
        .into_iter()
        .filter(|v| v.len() >= 2)
        .collect()
}

/// Mono's robust estimate (Kalibera, Bulej & Tůma 2005b, §4.2) beside the plain one, on the
/// analysed values.
pub fn robust(
    b: &BenchmarkRecord,
    level: ConfidenceLevel,
    seed: Seed,
) -> Option<(RobustEstimate, RobustEstimate)> {
    let (level, seed) = (level.get(), seed.get());
    if !has_iterations(b) {
        return None;
    }
    let runs = analysed_runs(b);
    let cfg = RobustConfig {
        level,
        seed,
        ..RobustConfig::default()
    };
    Some((
        robust_estimate(&runs, &cfg).ok()?,
        plain_estimate(&runs, level).ok()?,
    ))
}

/// Impact factors of the random initial state on the analysed values: original, run-mean
/// centred and clustered. `None` without iterations or with too few runs.
pub fn impact(b: &BenchmarkRecord, seed: Seed) -> Option<Impacts> {
    let seed = seed.get();
    if !has_iterations(b) {
        return None;
    }
    let runs = analysed_runs(b);
    if runs.len() < 2 {
        return None;
    }
    let cfg = ImpactConfig {
        seed,
        ..ImpactConfig::default()
    };
    Some(Impacts {
        original: impact_factor(&runs, &cfg).ok()?,
        centred: impact_factor_centred(&runs, &cfg).ok()?,
        clustered: impact_factor_clustered(&runs, &MixtureConfig::default(), &cfg)
            .ok()
            .map(|c| c.impact),
    })
}

/// `--discard auto` for every benchmark with iterations; benchmarks that cannot be diagnosed
/// keep their data and get a warning.
pub fn auto_discard_all(result: &mut ResultFile) -> Vec<Warning> {
    let seed = result.seed;
    let mut warnings = Vec::new();
    for b in &mut result.benchmarks {
        match diagnose_benchmark(b, seed) {
            Some(Ok(report)) => {
                if report.recommendation() == Recommendation::Unsettled {
                    warnings.push(Warning::NoSteadyState {
                        benchmark: b.name.clone(),
                    });
                }
                b.steady_state = Some(apply(b, &report));
            }
            Some(Err(e)) => warnings.push(Warning::NoWarmupDetection {
                benchmark: b.name.clone(),
                reason: e.to_string(),
            }),
            None => {}
        }
    }
    warnings
}

/// `--discard N` re-applied to saved data.
pub fn discard_fixed(result: &mut ResultFile, n: usize) {
    for b in &mut result.benchmarks {
        if b.layout.has_iterations() {
            mark(b, |i| i < n);
        }
    }
}
