//! From stored raw data to estimates: builds each benchmark's hierarchy, runs the analysis and
//! writes the estimates back into the result records.

use rigor_stats::Hierarchy;
use rigor_stats::analysis::{Analysis, analyze};
use rigor_store::{
    AnalysisRecord, BenchmarkRecord, ComponentRecord, IntervalRecord, MeanMethod, NetRecord,
    ResultFile, SummaryRecord,
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
    /// No execution failed, and none was measured: the run stopped (interrupted, or cut short)
    /// during the warm-up or before the benchmark's first execution.
    #[error("the run stopped before its first measured execution")]
    NotReached,
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

impl Unanalysed {
    /// Whether the benchmark measured nothing (every execution failed or was a warm-up, or none
    /// was reached): it fails the analysis as it failed the run.
    pub fn measured_nothing(&self) -> bool {
        matches!(self, Self::NothingMeasured | Self::NotReached)
    }
}

/// Each benchmark's analysis, or why it has none, in the order of the result's benchmarks.
pub type Analyses = Vec<Result<Analysis, Unanalysed>>;

/// The hierarchy of a benchmark's non-warm-up samples.
pub fn hierarchy_of(b: &BenchmarkRecord) -> Result<Hierarchy, rigor_stats::StatsError> {
    b.hierarchy()
}

/// Analyses one benchmark, storing the estimates in the record.
pub fn analyze_record(
    b: &mut BenchmarkRecord,
    settings: &AnalysisSettings,
) -> Result<Analysis, Unanalysed> {
    b.analysis = None;
    if b.samples.iter().all(|s| s.warmup) {
        return Err(if b.failures.is_empty() {
            Unanalysed::NotReached
        } else {
            Unanalysed::NothingMeasured
        });
    }
    let h = hierarchy_of(b)?;
    if h.units(0) < 2 {
        return Err(Unanalysed::TooFewUnits {
            units: h.units(0),
            level: b.level_names()[0].clone(),
        });
    }
    let mut analysis = analyze(&h, &settings.config())?;
    if let Some(level) = measured_in_blocks(b, &analysis) {
        analysis
            .warnings
            .push(rigor_stats::analysis::Warning::MeasuredInBlocks { level });
    }
    let timed_out = b
        .failures
        .iter()
        .filter(|f| f.timed_out && !f.warmup && f.stage.is_command())
        .count();
    if timed_out > 0 {
        analysis
            .warnings
            .push(rigor_stats::analysis::Warning::TimedOutLeftOut {
                left_out: timed_out,
                measured: executions_measured(b),
            });
    }
    if let Some(warning) = slowed_executions(b) {
        analysis.warnings.push(warning);
    }
    if let Some(ratio) = iterations_over_wall(b).filter(|r| *r > ITERATIONS_OVER_WALL) {
        analysis
            .warnings
            .push(rigor_stats::analysis::Warning::IterationsExceedWall { ratio });
    }
    let mut signals: Vec<i32> = b
        .failures
        .iter()
        .filter(|f| !f.warmup && !f.timed_out && f.stage.is_command())
        .filter_map(|f| f.signal)
        .collect();
    if !signals.is_empty() {
        let left_out = signals.len();
        signals.sort_unstable();
        signals.dedup();
        analysis
            .warnings
            .push(rigor_stats::analysis::Warning::CrashedLeftOut {
                left_out,
                measured: executions_measured(b),
                signals,
            });
    }
    if let Some(r) = b.resolution() {
        analysis.floor_at_resolution(r.half_step().in_unit(b.unit));
    } else if let Some(step) = b.metric.as_ref().and_then(|m| m.step) {
        // A metric's own step (1 KiB of peak memory, one event of a count).
        analysis.floor_at_resolution(step / 2.0);
    }
    b.analysis = Some(record_of(&analysis, settings.confidence));
    Ok(analysis)
}

/// How far an execution's iteration times may add up beyond its wall time before they are
/// called impossible: twice (a forgotten `--unit ms` makes it a thousand).
const ITERATIONS_OVER_WALL: f64 = 2.0;

/// The median over `b`'s measured executions of their iteration times' sum over their wall
/// time; `None` without iterations, for another metric, or without wall times (another tool's
/// file).
fn iterations_over_wall(b: &BenchmarkRecord) -> Option<f64> {
    if !b.layout.has_iterations() || b.metric.is_some() {
        return None;
    }
    let mut sums: std::collections::HashMap<(Option<usize>, usize), f64> =
        std::collections::HashMap::new();
    for s in &b.samples {
        *sums.entry((s.build, s.execution)).or_default() += b.unit.to_seconds(s.value);
    }
    let ratios: Vec<f64> = b
        .executions
        .iter()
        .filter(|e| !e.warmup && e.wall.get() > 0.0)
        .filter_map(|e| Some(sums.get(&(e.build, e.execution))? / e.wall.get()))
        .collect();
    (!ratios.is_empty()).then(|| rigor_stats::descriptive::median(&ratios))
}

/// An execution of a benchmark: its build (when builds are a level) and index.
type ExecutionKey = (Option<usize>, usize);

/// Each measured execution's analysed values' mean, in the order they ran.
fn execution_means(b: &BenchmarkRecord) -> std::collections::BTreeMap<ExecutionKey, f64> {
    let mut sums: std::collections::BTreeMap<ExecutionKey, (f64, usize)> =
        std::collections::BTreeMap::new();
    for s in b.samples.iter().filter(|s| !s.warmup) {
        let e = sums.entry((s.build, s.execution)).or_default();
        e.0 += s.value;
        e.1 += 1;
    }
    sums.into_iter()
        .map(|(k, (sum, n))| (k, sum / n as f64))
        .collect()
}

/// Each measured execution's (preemptions, wall seconds), when every one's were counted.
fn preemptions(
    b: &BenchmarkRecord,
) -> Option<std::collections::BTreeMap<ExecutionKey, (u64, f64)>> {
    b.executions
        .iter()
        .filter(|e| !e.warmup)
        .map(|e| Some(((e.build, e.execution), (e.preempted?, e.wall.get()))))
        .collect()
}

/// A slow start among `b`'s measured executions (each its analysed values' mean, in the order
/// they ran), only where executions are the top level (builds each start anew): a contended
/// one when every execution's preemptions were counted and the slow ones' tell contention
/// ([`rigor_stats::preemption::contended`]), else a cold one. Else, executions in the middle
/// of the run that other processes slowed ([`rigor_stats::preemption::preempted`]), of a time.
fn slowed_executions(b: &BenchmarkRecord) -> Option<rigor_stats::analysis::Warning> {
    use rigor_stats::analysis::Warning;
    let means = execution_means(b);
    let preempted = preemptions(b).filter(|p| p.keys().eq(means.keys()));
    let start = (b.layout.top() == rigor_store::LevelKind::Execution)
        .then(|| {
            let values: Vec<f64> = means.values().copied().collect();
            rigor_stats::slow_start::slow_start(&values)
        })
        .flatten();
    if let Some(start) = start {
        let counted = preempted.map(|p| p.into_values().collect::<Vec<_>>());
        return Some(
            match counted.and_then(|p| rigor_stats::preemption::contended(&start, &p)) {
                Some(preemption) => Warning::ContendedStart { start, preemption },
                None => Warning::SlowStart { start },
            },
        );
    }
    let preempted = preempted.filter(|_| b.metric.is_none())?;
    let each: Vec<(u64, f64, f64)> = preempted
        .iter()
        .filter_map(|(k, &(n, wall))| Some((n, wall, *means.get(k)?)))
        .collect();
    rigor_stats::preemption::preempted(&each).map(|found| Warning::Preempted { found })
}

/// The executions of `b` that gave measured samples.
fn executions_measured(b: &BenchmarkRecord) -> usize {
    b.samples
        .iter()
        .filter(|s| !s.warmup)
        .map(|s| (s.build, s.round, s.execution))
        .collect::<std::collections::HashSet<_>>()
        .len()
}

/// The top level's name when it is builds measured one after another (every round of
/// executions held one build, and there were two builds or more) and the builds vary: their
/// variance then carries whatever load changed over the run.
fn measured_in_blocks(b: &BenchmarkRecord, analysis: &Analysis) -> Option<String> {
    if b.layout.top() != rigor_store::LevelKind::Build {
        return None;
    }
    let mut builds_of_round: std::collections::HashMap<usize, Option<usize>> =
        std::collections::HashMap::new();
    let mut builds = std::collections::HashSet::new();
    for s in b.samples.iter().filter(|s| !s.warmup) {
        builds.insert(s.build);
        if *builds_of_round.entry(s.round).or_insert(s.build) != s.build {
            return None;
        }
    }
    let top = analysis.components.components.first()?;
    (builds.len() >= 2 && top.t2 > 0.0).then(|| top.level.clone())
}

/// Analyses every benchmark of a result at the settings' confidence level (recorded in it),
/// and each command run through a shell net of that shell's start-up ([`add_net_means`]).
pub fn analyze_all(result: &mut ResultFile, settings: &AnalysisSettings) -> Analyses {
    result.confidence = settings.confidence;
    let analyses = result
        .benchmarks
        .iter_mut()
        .map(|b| analyze_record(b, settings))
        .collect();
    add_net_means(result, settings);
    analyses
}

/// For each analysed command run through a shell ([`BenchmarkRecord::net_of`]), its mean net of
/// the shell's start-up measured in the same rounds: the difference of the two means, the
/// start-up's variance carried into the interval ([`rigor_stats::net_mean`]). Only where both
/// are timed whole (no iterations reported: the start-up is in a process's wall time, not in
/// its iteration times) and in the same unit; the samples stay as measured.
pub fn add_net_means(result: &mut ResultFile, settings: &AnalysisSettings) {
    for i in 0..result.benchmarks.len() {
        let b = &result.benchmarks[i];
        let Some(startup) = b.net_of.as_deref() else {
            continue;
        };
        let Some(s) = result
            .benchmarks
            .iter()
            .find(|o| o.name == startup && o.shell_startup.is_some())
        else {
            continue;
        };
        let whole = |r: &BenchmarkRecord| !r.layout.has_iterations() && r.analysis.is_some();
        if !whole(b) || !whole(s) || b.unit != s.unit {
            continue;
        }
        let (Ok(gross), Ok(shell)) = (b.hierarchy(), s.hierarchy()) else {
            continue;
        };
        let Ok(net) =
            rigor_stats::net_mean(&gross, &shell, settings.confidence.get(), settings.quantile)
        else {
            continue;
        };
        let startup_mean = s.analysis.as_ref().map_or(f64::NAN, |a| a.mean);
        // The command's own interval may have been widened toward a skew of its means; the
        // net interval keeps that widening (the gross interval less the start-up's mean) as
        // well as the start-up's variance (the t interval of the difference): their hull.
        let (lower, upper) = match &b.analysis {
            Some(a) if startup_mean.is_finite() => (
                net.lower.min(a.ci.lower - startup_mean),
                net.upper.max(a.ci.upper - startup_mean),
            ),
            _ => (net.lower, net.upper),
        };
        let record = NetRecord {
            startup: startup.to_string(),
            startup_mean,
            mean: net.mean,
            lower,
            upper,
            df: net.df,
        };
        if let Some(a) = &mut result.benchmarks[i].analysis {
            a.net = Some(record);
        }
    }
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
        net: None,
    }
}

/// Per benchmark, the statistic comparisons use when it is not the mean (all `None` for the
/// mean, and for a benchmark without data): its value on all the data and its interval over
/// top-level units ([`expanded_interval`] at `cfg`'s level, resamples and seed), widened to ±
/// half the data's resolution where narrower, as comparisons are. The terminal summary leads
/// with it, so that the figure shown first is the one the comparisons decide on.
///
/// [`expanded_interval`]: rigor_stats::bootstrap::expanded_interval
pub fn compared_statistics(
    result: &ResultFile,
    cfg: &rigor_stats::compare::CompareConfig,
) -> Vec<Option<rigor_report::StatisticView>> {
    result
        .benchmarks
        .iter()
        .map(|b| compared_statistic(b, cfg))
        .collect()
}

/// One benchmark's [`compared_statistics`] entry.
pub(crate) fn compared_statistic(
    b: &BenchmarkRecord,
    cfg: &rigor_stats::compare::CompareConfig,
) -> Option<rigor_report::StatisticView> {
    use rigor_units::Seconds;
    if cfg.estimator == rigor_stats::Estimator::Mean {
        return None;
    }
    let h = hierarchy_of(b).ok()?;
    let top = h.levels().first().cloned().unwrap_or_default();
    let bootstrap = rigor_stats::BootstrapConfig {
        level: cfg.level,
        ..cfg.bootstrap
    };
    let (estimate, interval, at_resolution) =
        match rigor_stats::bootstrap::expanded_interval(&h, cfg.estimator, &bootstrap) {
            Ok(i) => match b.resolution() {
                Some(r) => {
                    let s = Seconds::new;
                    let f = r.floor(s(i.estimate), s(i.lower), s(i.upper));
                    (
                        i.estimate,
                        Some((f.lower.get(), f.upper.get())),
                        f.at_resolution,
                    )
                }
                None => (i.estimate, Some((i.lower, i.upper)), false),
            },
            // No interval (too few top-level units): the value alone.
            Err(_) => (cfg.estimator.of_hierarchy(&h), None, false),
        };
    estimate.is_finite().then(|| rigor_report::StatisticView {
        name: cfg.estimator.to_string(),
        estimate,
        interval,
        level: cfg.level,
        units: format!("{top}s"),
        at_resolution,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigor_store::{Layout, SampleRecord};
    use rigor_units::{ConfidenceLevel, Seed};

    fn timed(name: &str, values: &[f64]) -> BenchmarkRecord {
        let mut b = BenchmarkRecord::new(name, name, Layout::new(false, false));
        for (e, &v) in values.iter().enumerate() {
            b.samples.push(SampleRecord {
                build: None,
                round: e,
                execution: e,
                iteration: 0,
                value: v,
                warmup: false,
            });
        }
        b
    }

    /// A benchmark with only warm-ups is "not measured" when nothing failed (the run stopped
    /// first) and "no execution measured successfully" when something did.
    #[test]
    fn nothing_measured_says_whether_anything_failed() {
        let settings = AnalysisSettings::default();
        let mut b = timed("w", &[1.0, 1.1]);
        for s in &mut b.samples {
            s.warmup = true;
        }
        let err = analyze_record(&mut b, &settings).unwrap_err();
        assert_eq!(err, Unanalysed::NotReached);
        assert!(
            err.to_string()
                .contains("stopped before its first measured execution")
        );
        b.failures.push(rigor_store::FailureRecord {
            stage: Default::default(),
            round: 0,
            execution: 2,
            warmup: false,
            number: Some(1),
            exit_code: Some(1),
            signal: None,
            timed_out: false,
            stderr_tail: String::new(),
            reason: "exit status 1".into(),
        });
        let err = analyze_record(&mut b, &settings).unwrap_err();
        assert_eq!(err, Unanalysed::NothingMeasured);
    }

    /// A command whose means are skewed (one slow execution) gets an interval widened toward
    /// the skew; netting it of a quiet shell's start-up must not narrow that side: the net
    /// interval holds the command's interval less the start-up's mean.
    #[test]
    fn the_net_interval_keeps_the_commands_skew_widening() {
        let mut r = ResultFile::new(Seed(1), ConfidenceLevel::NINETY_FIVE);
        let mut command = timed(
            "gzip -c f > /dev/null",
            &[90.0, 91.0, 89.5, 90.5, 90.2, 89.8, 90.1, 140.0],
        );
        command.net_of = Some("sh -c ''".into());
        let mut shell = timed("sh -c ''", &[1.0, 1.1, 0.9, 1.0, 1.05, 0.95, 1.0, 1.0]);
        shell.shell_startup = Some("sh".into());
        r.benchmarks = vec![command, shell];
        let settings = AnalysisSettings::default();
        analyze_all(&mut r, &settings);
        let a = r.benchmarks[0].analysis.clone().unwrap();
        let startup = r.benchmarks[1].analysis.as_ref().unwrap().mean;
        let net = a.net.clone().unwrap();
        assert!(net.upper >= a.ci.upper - startup - 1e-9, "{net:?} {a:?}");
        assert!(net.lower <= a.ci.lower - startup + 1e-9, "{net:?} {a:?}");
        // The command's interval is skew-widened upwards: the t interval alone of the
        // difference would end lower.
        let t = rigor_stats::net_mean(
            &r.benchmarks[0].hierarchy().unwrap(),
            &r.benchmarks[1].hierarchy().unwrap(),
            0.95,
            settings.quantile,
        )
        .unwrap();
        assert!(net.upper > t.upper, "{} {}", net.upper, t.upper);
    }
}
