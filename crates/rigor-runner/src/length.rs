//! The default run length (`rigor run` without `-r`, `-m`, `-M`, `--precision`, `--budget`,
//! `--plan` or `--until-decided`): as many executions of each command as rigor's own warnings
//! ask for, so that a first run ends without a warning more executions would have avoided — 20,
//! the count below which skewed or multimodal execution means are covered less often than the
//! level says ([`rigor_stats::top_means::SKEWED_UNITS_NEEDED`]) — unless that would take more
//! than the default budget, hyperfine's 3 s of measurement per command, and never fewer than
//! hyperfine's 10.
//!
//! The count is decided once, after the first 10 rounds, from their cost alone: how many rounds
//! fit in the budget. It does not look at the times' spread or shape. Looking there instead —
//! going on to the count the first 10 ask for only when they ask, which is when the warning
//! appears — was measured and rejected: on right-skewed simulated means (the test below, 2,000
//! seeds) it covered the true mean less often than a fixed 10 (92.1% against 92.7%), since the
//! runs that stop are the ones whose 10 executions missed the tail, while the 20 this rule runs
//! covered it 94.1% of the time (docs/methodology.md, "The default run length").

use rigor_stats::top_means::SKEWED_UNITS_NEEDED;
use rigor_units::Seconds;

use crate::collect::{BenchData, Collector, StopRule};
use crate::error::RunError;
use crate::executor::Executor;
use crate::schedule::{Benchmark, Control, Ending, Observer, Report, Scheduler, Settings};
use crate::stop::StopSignal;

/// Executions of each command at least, and before the count is decided (hyperfine's least
/// number of runs).
pub const DEFAULT_FIRST: usize = 10;

/// Executions of each command when the budget allows: the most rigor's warnings ask for.
pub const DEFAULT_TARGET: usize = SKEWED_UNITS_NEEDED;

/// Measured time each command may take by default: hyperfine's 3 s.
pub const DEFAULT_BUDGET: Seconds = Seconds(3.0);

/// The default run length's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LengthSettings {
    /// Executions of each command before the count is decided, and at least.
    pub first: usize,
    /// Executions of each command when the budget allows.
    pub target: usize,
    /// Measured time each command may take, warm-up included.
    pub budget: Seconds,
}

impl Default for LengthSettings {
    fn default() -> Self {
        Self {
            first: DEFAULT_FIRST,
            target: DEFAULT_TARGET,
            budget: DEFAULT_BUDGET,
        }
    }
}

/// How a run of the default length ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LengthStop {
    /// At the target count.
    Target,
    /// Short of the target: more would have taken over the budget.
    Budget,
    /// Interrupted, or every command ended (failures) first.
    Ended,
}

/// A run of the default length: the scheduler's report and the count it decided.
#[derive(Debug, Clone)]
pub struct LengthReport {
    /// The scheduler's report.
    pub report: Report,
    /// Executions each command ran (the most any ran).
    pub executions: usize,
    /// The count decided after the first rounds (`None`: the run ended before).
    pub planned: Option<usize>,
    /// Which stopped it.
    pub stop: LengthStop,
}

/// The stopping rule: after `first` rounds, the count that fits in the budget (at most
/// `target`), decided once from the cost of those rounds.
struct LengthRule {
    settings: LengthSettings,
    warmup: usize,
    benchmarks: usize,
    planned: Option<usize>,
}

impl StopRule for LengthRule {
    fn check(&mut self, data: &[BenchData]) -> Control {
        let running: Vec<&BenchData> = data.iter().filter(|d| d.running()).collect();
        let rounds = running
            .iter()
            .map(|d| d.top_units(false))
            .min()
            .unwrap_or(0);
        if rounds < self.settings.first {
            return Control::Continue;
        }
        let planned = *self.planned.get_or_insert_with(|| {
            // Rounds that fit: the budget over the dearest command's mean measured execution
            // (its warm-up counted in what it has spent).
            let fit = running
                .iter()
                .map(|d| {
                    let each = d.spent_per_execution().map_or(0.0, Seconds::get);
                    let left = self.settings.budget.get() - d.spent().get();
                    rounds + (left / each).max(0.0).floor() as usize
                })
                .min()
                .unwrap_or(rounds);
            fit.clamp(
                self.settings.first,
                self.settings.target.max(self.settings.first),
            )
        });
        if rounds >= planned {
            Control::Stop
        } else {
            Control::Continue
        }
    }

    fn planned_executions(&self) -> Option<usize> {
        self.planned.map(|n| (n + self.warmup) * self.benchmarks)
    }
}

/// Runs `benchmarks` for the default length ([`LengthSettings`]): `settings.executions` is
/// ignored, everything else applies.
///
/// # Errors
/// What the scheduler returns.
pub fn run_default_length(
    benchmarks: &[Benchmark],
    settings: &Settings,
    discard: usize,
    length: &LengthSettings,
    stop: StopSignal,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<LengthReport, RunError> {
    let mut s = settings.clone();
    s.executions = length.target.max(length.first);
    s.validate()?;
    let rule = LengthRule {
        settings: *length,
        warmup: s.warmup_executions,
        benchmarks: benchmarks.len(),
        planned: None,
    };
    let mut collector = Collector::new(observer, benchmarks.len(), discard, rule);
    let report = Scheduler::new(benchmarks, &s, stop).run(executor, &mut collector)?;
    let executions = collector
        .data()
        .iter()
        .map(|d| d.top_units(false))
        .max()
        .unwrap_or(0);
    let planned = collector.into_rule().planned;
    let stop = match (report.ending, planned) {
        (Ending::Interrupted, _) | (_, None) => LengthStop::Ended,
        (_, Some(n)) if executions < n => LengthStop::Ended,
        (_, Some(n)) if n < length.target => LengthStop::Budget,
        (_, Some(_)) => LengthStop::Target,
    };
    Ok(LengthReport {
        report,
        executions,
        planned,
        stop,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::{ExecutionRecord, Observer};
    use crate::{CommandLine, SimulatedExecutor};
    use rigor_stats::Hierarchy;
    use rigor_stats::analysis::{AnalysisConfig, analyze};

    /// The measured executions' wall times.
    #[derive(Default)]
    struct Walls(Vec<f64>);
    impl Observer for Walls {
        fn execution(&mut self, r: &ExecutionRecord) -> Result<(), RunError> {
            if !r.warmup {
                self.0.push(r.outcome.wall.get());
            }
            Ok(())
        }
    }

    fn run_collecting(spec: &str, seed: u64) -> (LengthReport, Vec<f64>) {
        let b = [Benchmark::new(
            spec,
            CommandLine::parse(spec, false).unwrap(),
        )];
        let settings = Settings {
            warmup_executions: 1,
            seed: rigor_units::Seed(seed),
            ..Settings::default()
        };
        let mut walls = Walls::default();
        let r = run_default_length(
            &b,
            &settings,
            0,
            &LengthSettings::default(),
            StopSignal::new(),
            &mut SimulatedExecutor::new(seed),
            &mut walls,
        )
        .unwrap();
        (r, walls.0)
    }

    fn run(spec: &str, seed: u64) -> LengthReport {
        run_collecting(spec, seed).0
    }

    /// Whether the interval of `values` (as the analysis computes it) covers `truth`.
    fn covers(values: &[f64], truth: f64) -> bool {
        let h = Hierarchy::flat("execution", values.to_vec()).unwrap();
        let i = analyze(&h, &AnalysisConfig::default()).unwrap().interval;
        i.lower <= truth && truth <= i.upper
    }

    /// The executions the analysis of `values` asks for (what the rejected rule looked at
    /// after 10), at most 20.
    fn asked_for(values: &[f64]) -> usize {
        use rigor_stats::analysis::Warning;
        let h = Hierarchy::flat("execution", values.to_vec()).unwrap();
        let a = analyze(&h, &AnalysisConfig::default()).unwrap();
        let asked = a.warnings.iter().map(|w| match w {
            Warning::RareModes { modes, .. } => modes.needed,
            Warning::SkewAdjusted { advise, .. } => advise.unwrap_or(0),
            _ => 0,
        });
        asked.max().unwrap_or(0).clamp(values.len(), DEFAULT_TARGET)
    }

    /// Deciding the count from the first rounds' cost does not cost the interval its coverage:
    /// on right-skewed execution means (an exponential tail of 4% of the mean beside a 1%
    /// normal spread), the intervals of runs of the default length cover the true mean at least
    /// as often as those of a fixed 10, for a quick command (20 executions) and for one whose
    /// count the budget decides. The rule rejected — going on from 10 to the count the first
    /// 10 ask for (14 or 20) only when they ask — is computed on the same executions (the simulator draws them in
    /// the same order): it covers less often than the 20 the default runs.
    #[test]
    fn deciding_the_count_keeps_the_coverage_of_a_fixed_count() {
        for (mean, seconds, runs) in [("5ms", 0.005, 2000), ("170ms", 0.17, 1000)] {
            let spec = format!("mean={mean},execution=1%,tail=4%");
            let truth = seconds * 1.04;
            let (mut default, mut fixed, mut looked, mut counts) = (0, 0, 0, 0);
            for seed in 0..runs {
                let (r, walls) = run_collecting(&spec, 1000 + seed);
                default += usize::from(covers(&walls, truth));
                fixed += usize::from(covers(&walls[..10], truth));
                let asked = asked_for(&walls[..10]).min(walls.len());
                looked += usize::from(covers(&walls[..asked], truth));
                counts += r.executions;
            }
            let rate = |k: usize| k as f64 / runs as f64;
            let mean_count = counts as f64 / runs as f64;
            eprintln!(
                "{spec}: default length {:.3} ({mean_count:.1} executions), fixed 10 {:.3}, \
                 looking at the shape {:.3}",
                rate(default),
                rate(fixed),
                rate(looked)
            );
            assert!(rate(default) >= rate(fixed), "{spec}");
            if mean == "5ms" {
                assert!(rate(looked) < rate(default), "{spec}");
            }
        }
    }

    #[test]
    fn a_quick_command_runs_the_target_a_slow_one_what_fits_in_the_budget() {
        let quick = run("mean=5ms,execution=1%", 1);
        assert_eq!((quick.executions, quick.stop), (20, LengthStop::Target));
        // 0.2 s each, one warm-up: 14 executions fit in 3 s (15 × 0.2 s).
        let slow = run("mean=200ms", 1);
        assert_eq!((slow.executions, slow.stop), (14, LengthStop::Budget));
        // Slower than 3 s / 10: hyperfine's 10 all the same.
        let slower = run("mean=1s", 1);
        assert_eq!((slower.executions, slower.stop), (10, LengthStop::Budget));
    }
}
