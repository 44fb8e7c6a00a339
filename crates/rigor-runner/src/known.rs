//! Measuring each benchmark until its level is known (`rigor track run --precision`).
//!
//! The experiment runs in interleaved, shuffled rounds as usual; a round is one execution of
//! every benchmark still running. After the pilot's rounds, each benchmark's level — Huber's
//! M-estimate of its execution means, the level `rigor track` stores for a version
//! ([`rigor_stats::series::VersionMean::huber`]) — is looked at after every round, with its
//! interval `level ± t·√variance`; a benchmark whose relative half-width is at most the target
//! is no longer scheduled, so a noisy benchmark gets the executions it needs and a quiet one no
//! more than the pilot. The experiment ends when every benchmark is known, when the round limit
//! is reached, or when the measured-time budget is spent.
//!
//! Looking after every round is optional stopping: a benchmark tends to stop on a round whose
//! interval happens to be narrow, so its stored interval covers a little less often than its
//! nominal level (docs/limitations.md). The target is a cost control, not a test.

use rigor_stats::Quantile;
use rigor_stats::dist::critical_value;
use rigor_stats::series::VersionMean;
use rigor_units::{ConfidenceLevel, Fraction, Seconds};

use crate::collect::{BenchData, Collector, StopRule};
use crate::error::{RunError, SettingsError};
use crate::executor::Executor;
use crate::schedule::{Benchmark, Control, Ending, Observer, Report, Scheduler, Settings};
use crate::stop::StopSignal;

/// What a run until each level is known aims for and how far it may go.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KnownSettings {
    /// The relative half-width each benchmark's level interval must reach (2% for ±2%).
    pub target: Option<Fraction>,
    /// Measured time (warm-up included) after which the run stops.
    pub budget: Option<Seconds>,
    /// Confidence level of the intervals.
    pub level: ConfidenceLevel,
    /// Quantile of the intervals.
    pub quantile: Quantile,
    /// Executions of every benchmark before the first look (the pilot), at least 2.
    pub min_rounds: usize,
    /// Most executions of any benchmark.
    pub max_rounds: usize,
}

impl KnownSettings {
    /// Checks the settings before anything runs: a target above 0% or a positive budget, and
    /// `2 ≤ min_rounds ≤ max_rounds`.
    ///
    /// # Errors
    /// The first [`SettingsError`] found.
    pub fn validate(&self) -> Result<(), SettingsError> {
        crate::adaptive::check_goal(self.target, self.budget)?;
        if self.max_rounds < self.min_rounds.max(2) {
            return Err(SettingsError::KnownRounds {
                max_rounds: self.max_rounds,
                min_rounds: self.min_rounds.max(2),
            });
        }
        Ok(())
    }
}

/// Why a benchmark stopped being measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnownStop {
    /// Its level's interval reached the target.
    Reached,
    /// Its interval cannot reach the target: the target is inside the timer's resolution.
    AtResolution,
    /// The round limit (`--max-runs`) was reached first.
    MaxRounds,
    /// The measured-time budget was spent first.
    BudgetSpent,
    /// The run was interrupted first.
    Interrupted,
    /// A failure ended the benchmark.
    Failed,
    /// No target was set: it ran until the budget or the round limit.
    NoTarget,
}

/// How one benchmark's measuring ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KnownBenchmark {
    /// Measured executions.
    pub executions: usize,
    /// Its level's relative half-width at the end, if it has one.
    pub relative_half_width: Option<f64>,
    /// Why it stopped.
    pub stop: KnownStop,
}

/// What a run until each level is known did.
#[derive(Debug, Clone)]
pub struct KnownReport {
    /// The scheduler's report.
    pub report: Report,
    /// One per benchmark, in order.
    pub benchmarks: Vec<KnownBenchmark>,
    /// Measured time spent (warm-up included).
    pub seconds: Seconds,
}

/// The relative half-width of the interval of `d`'s level (Huber's M-estimate of its execution
/// means) at `level`: `t·√variance / level`; `None` with fewer than 2 executions or a
/// non-positive level.
pub fn level_half_width(d: &BenchData, level: ConfidenceLevel, quantile: Quantile) -> Option<f64> {
    let h = d.hierarchy(false).ok()?;
    let means = h.top_means();
    if means.len() < 2 {
        return None;
    }
    let m = VersionMean::huber_of(&means).ok()?;
    let t = critical_value(level.get(), (means.len() - 1) as f64, quantile).ok()?;
    (m.mean > 0.0 && m.variance.is_finite()).then(|| t * m.variance.max(0.0).sqrt() / m.mean)
}

/// The rule: after the pilot, after every round, retire the benchmarks whose level is known.
struct KnownRule {
    settings: KnownSettings,
    stops: Vec<Option<KnownStop>>,
    retire: Vec<usize>,
}

impl KnownRule {
    fn pending(&self) -> impl Iterator<Item = usize> + '_ {
        self.stops
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_none())
            .map(|(i, _)| i)
    }

    fn end_pending(&mut self, why: KnownStop) {
        for s in self.stops.iter_mut().filter(|s| s.is_none()) {
            *s = Some(why);
        }
    }
}

impl StopRule for KnownRule {
    fn check(&mut self, data: &[BenchData]) -> Control {
        let pending: Vec<usize> = self.pending().collect();
        for b in pending {
            let d = &data[b];
            if !d.running() {
                self.stops[b] = Some(KnownStop::Failed);
                continue;
            }
            let Some(target) = self.settings.target.map(Fraction::get) else {
                continue;
            };
            if d.measured_executions() < self.settings.min_rounds.max(2) {
                continue;
            }
            let Some(rel) = level_half_width(d, self.settings.level, self.settings.quantile) else {
                continue;
            };
            if rel <= target {
                self.stops[b] = Some(KnownStop::Reached);
                self.retire.push(b);
                continue;
            }
            let level = d.hierarchy(false).map(|h| h.grand_mean()).unwrap_or(0.0);
            let floor = d
                .resolution()
                .filter(|_| level > 0.0)
                .map(|r| r.relative_to(Seconds::new(level)));
            if floor.is_some_and(|f| f > target) {
                self.stops[b] = Some(KnownStop::AtResolution);
                self.retire.push(b);
            }
        }
        if self.pending().next().is_none() {
            return Control::Stop;
        }
        let spent: Seconds = data.iter().map(BenchData::spent).sum();
        if self.settings.budget.is_some_and(|b| spent >= b) {
            self.end_pending(KnownStop::BudgetSpent);
            return Control::Stop;
        }
        Control::Continue
    }

    fn retired(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.retire)
    }
}

/// Runs `benchmarks` in interleaved rounds until each one's level is known to the target
/// precision, the round limit is reached or the budget is spent (see the module documentation).
/// `settings`' execution count is replaced by the round limit; builds as a level are refused.
///
/// # Errors
/// [`RunError::Settings`] before anything runs when the settings cannot be run with; otherwise
/// as [`Scheduler::run`].
pub fn run_until_known(
    benchmarks: &[Benchmark],
    settings: &Settings,
    discard: usize,
    known: &KnownSettings,
    stop: StopSignal,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<KnownReport, RunError> {
    known.validate()?;
    if settings.build.is_some() {
        return Err(SettingsError::KnownWithBuilds.into());
    }
    let mut s = settings.clone();
    s.executions = known.max_rounds;
    s.validate()?;
    let rule = KnownRule {
        settings: *known,
        stops: vec![None; benchmarks.len()],
        retire: Vec::new(),
    };
    let mut collector = Collector::new(observer, benchmarks.len(), discard, rule);
    let report = Scheduler::new(benchmarks, &s, stop).run(executor, &mut collector)?;
    let seconds = collector.data().iter().map(BenchData::spent).sum();
    let data: Vec<BenchData> = collector.data().to_vec();
    let mut rule = collector.into_rule();
    rule.end_pending(match report.ending {
        Ending::Interrupted => KnownStop::Interrupted,
        _ if known.target.is_none() => KnownStop::NoTarget,
        _ => KnownStop::MaxRounds,
    });
    let benchmarks = data
        .iter()
        .zip(&rule.stops)
        .map(|(d, stop)| KnownBenchmark {
            executions: d.measured_executions(),
            relative_half_width: level_half_width(d, known.level, known.quantile),
            stop: stop.unwrap_or(KnownStop::MaxRounds),
        })
        .collect();
    Ok(KnownReport {
        report,
        benchmarks,
        seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::SimulatedExecutor;

    struct Nothing;
    impl Observer for Nothing {}

    fn known(target: f64, max_rounds: usize) -> KnownSettings {
        KnownSettings {
            target: Some(Fraction::new(target).unwrap()),
            budget: None,
            level: ConfidenceLevel::new(0.95).unwrap(),
            quantile: Quantile::StudentT,
            min_rounds: 10,
            max_rounds,
        }
    }

    fn run(specs: &[&str], k: &KnownSettings, seed: u64) -> KnownReport {
        let benches: Vec<Benchmark> = specs
            .iter()
            .map(|s| crate::test_support::bench(s))
            .collect();
        let s = Settings {
            executions: 10,
            seed: seed.into(),
            ..Settings::default()
        };
        run_until_known(
            &benches,
            &s,
            0,
            k,
            StopSignal::new(),
            &mut SimulatedExecutor::new(seed),
            &mut Nothing,
        )
        .unwrap()
    }

    #[test]
    fn a_noisy_benchmark_gets_more_executions_and_both_reach_the_target() {
        let r = run(
            &["mean=10ms,execution=1%", "mean=10ms,execution=15%"],
            &known(0.02, 1000),
            7,
        );
        let (quiet, noisy) = (r.benchmarks[0], r.benchmarks[1]);
        assert_eq!(quiet.stop, KnownStop::Reached);
        assert_eq!(noisy.stop, KnownStop::Reached);
        // The quiet one is known after the pilot; the noisy one needs about (1.96·15/2)² ≈ 216.
        assert_eq!(quiet.executions, 10);
        assert!(noisy.executions > 100, "{noisy:?}");
        assert!(quiet.relative_half_width.unwrap() <= 0.02);
        assert!(noisy.relative_half_width.unwrap() <= 0.02);
    }

    #[test]
    fn the_round_limit_and_the_budget_stop_what_is_not_known() {
        let r = run(
            &["mean=10ms,execution=1%", "mean=10ms,execution=30%"],
            &known(0.01, 40),
            3,
        );
        assert_eq!(r.benchmarks[0].stop, KnownStop::Reached);
        assert_eq!(r.benchmarks[1].stop, KnownStop::MaxRounds);
        assert_eq!(r.benchmarks[1].executions, 40);
        let mut k = known(0.01, 1000);
        k.budget = Some(Seconds::new(0.5));
        let r = run(&["mean=10ms,execution=30%"], &k, 3);
        assert_eq!(r.benchmarks[0].stop, KnownStop::BudgetSpent);
        assert!(r.seconds.get() >= 0.5 && r.seconds.get() < 0.6, "{r:?}");
    }

    #[test]
    fn settings_that_cannot_work_are_refused() {
        assert!(known(0.02, 1).validate().is_err());
        let mut k = known(0.02, 100);
        k.target = None;
        assert!(k.validate().is_err());
        k.budget = Some(Seconds::new(1.0));
        assert!(k.validate().is_ok());
    }
}
