//! Comparisons that run until they are decided (`rigor run A B --until-decided`).
//!
//! The experiment runs in interleaved, shuffled rounds as usual; a round is one top-level unit
//! of every benchmark still running (an execution, or with builds one build with its
//! executions). After each round the rule takes, for every candidate, the paired log-ratios
//! `ln(candidate unit mean / reference unit mean)` of the rounds both ran, and looks at the
//! anytime-valid confidence sequence of [`rigor_stats::confseq`] at α/K (K candidates,
//! Bonferroni). A candidate whose sequence is decided — above `1 + δ` (regression), below
//! `1 − δ` (improvement) or inside `[1 − δ, 1 + δ]` (equivalent) — is no longer scheduled; the
//! experiment ends when every candidate is decided, or when the budget (a measured-time limit,
//! a round limit) is spent. Because the sequence holds at every round at once, looking after
//! every round does not inflate the error rate (the validation command's `sequential` table
//! measures it).

use rigor_stats::compare::verdict_from_interval;
use rigor_stats::confseq::{Look, SequentialConfig, look};
use rigor_units::Seconds;

use crate::collect::{BenchData, Collector, StopRule};
use crate::error::{RunError, SettingsError};
use crate::executor::Executor;
use crate::schedule::{Benchmark, Control, Ending, Observer, Report, Scheduler, Settings};
use crate::stop::StopSignal;

/// What a run until decided aims for and how far it may go.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecideSettings {
    /// Index of the reference (baseline) benchmark; every other benchmark is a candidate.
    pub reference: usize,
    /// The rule's settings, with α for the whole experiment (each candidate gets α/K).
    pub sequential: SequentialConfig,
    /// Most rounds (top-level units per benchmark).
    pub max_rounds: usize,
    /// Measured time (builds and executions, warm-up included) after which the run stops.
    pub budget: Option<Seconds>,
    /// What summarises each execution's values before the ratios are taken: the statistic
    /// compared (the minimum, for `rigor bench`), so that the sequence decides on what the
    /// comparison reports; a sequence of means had ended "inconclusive (37% slower)" beside a
    /// comparison of minimums that read "10% slower, regression".
    pub per_execution: rigor_stats::Estimator,
}

impl DecideSettings {
    /// Checks the settings against `benchmarks` benchmarks before anything runs.
    ///
    /// # Errors
    /// The first [`SettingsError`] found.
    pub fn validate(&self, benchmarks: usize) -> Result<(), SettingsError> {
        if benchmarks < 2 || self.reference >= benchmarks {
            return Err(SettingsError::NothingToDecide { benchmarks });
        }
        if self.max_rounds < self.sequential.min_rounds.max(2) {
            return Err(SettingsError::RoundsBelowMinimum {
                max_rounds: self.max_rounds,
                min_rounds: self.sequential.min_rounds.max(2),
            });
        }
        if let Some(budget) = self.budget.filter(|b| !b.is_positive()) {
            return Err(SettingsError::NonPositiveBudget { budget });
        }
        self.sequential
            .check()
            .map_err(|e| SettingsError::Sequential {
                reason: e.to_string(),
            })
    }
}

/// Why a candidate's comparison stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecisionStop {
    /// The sequence decided (regression, improvement or equivalent).
    Decided,
    /// The time budget was spent first: inconclusive.
    BudgetSpent,
    /// The round limit was reached first: inconclusive.
    RoundsSpent,
    /// The run was interrupted (Ctrl-C) first.
    Interrupted,
    /// The candidate or the reference failed, so no more rounds could be paired.
    Failed,
}

/// How one candidate's comparison ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The candidate benchmark.
    pub candidate: usize,
    /// The last look at its confidence sequence (at α/K).
    pub look: Look,
    /// Why it stopped.
    pub stop: DecisionStop,
}

/// What a run until decided did.
#[derive(Debug, Clone)]
pub struct DecidedReport {
    /// The scheduler's report.
    pub report: Report,
    /// One decision per candidate, in benchmark order.
    pub decisions: Vec<Decision>,
    /// The α each candidate's sequence used (α/K).
    pub alpha_each: f64,
    /// Rounds run (the most of any benchmark's top-level units).
    pub rounds: usize,
    /// Measured time spent.
    pub seconds: Seconds,
}

/// Paired log-ratios of `candidate` against `reference`: one per top-level unit (round, or
/// build) both measured, in round order, each execution summarised by `statistic`; units with
/// a non-positive value are skipped.
pub fn paired_log_ratios(
    candidate: &BenchData,
    reference: &BenchData,
    builds: bool,
    statistic: rigor_stats::Estimator,
) -> Vec<f64> {
    let base = reference.unit_values(builds, statistic);
    candidate
        .unit_values(builds, statistic)
        .iter()
        .filter_map(|(k, &c)| {
            let b = *base.get(k)?;
            (c > 0.0 && b > 0.0).then(|| (c / b).ln())
        })
        .collect()
}

/// `l` with its sequence widened to the range of ratios the two benchmarks' resolutions cannot
/// exclude (each mean ± half its step, [`rigor_units::Resolution::floor_ratio`]), and its verdict taken
/// again: round means that tie on a coarse clock's steps have a sequence of width zero, which
/// would decide on a difference of one step. A benchmark that reported no resolution takes the
/// other's; with neither, `l` is returned as it is.
fn floor_at_resolution(
    l: Look,
    (candidate, reference): (&BenchData, &BenchData),
    (builds, statistic): (bool, rigor_stats::Estimator),
    threshold: f64,
) -> Look {
    let (rc, rr) = (candidate.resolution(), reference.resolution());
    let (Some(rc), Some(rr)) = (rc.or(rr), rr.or(rc)) else {
        return l;
    };
    if !(l.upper.is_finite() && l.lower > 0.0) {
        return l; // Not yet bounded: nothing to widen.
    }
    let means = reference.unit_values(builds, statistic);
    let b = means.values().sum::<f64>() / means.len().max(1) as f64;
    let f = rc.floor_ratio(
        rr,
        Seconds::new(l.ratio * b),
        Seconds::new(b),
        l.lower,
        l.upper,
    );
    Look {
        lower: f.lower,
        upper: f.upper,
        verdict: verdict_from_interval(f.lower, f.upper, threshold),
        ..l
    }
}

/// The rule: after each round, look at every undecided candidate; retire the decided ones; stop
/// when none is left or the budget is spent.
struct DecideRule {
    settings: DecideSettings,
    each: SequentialConfig,
    builds: bool,
    /// Per benchmark: `None` for the reference, else the candidate's state.
    states: Vec<Option<(Look, Option<DecisionStop>)>>,
    retire: Vec<usize>,
    seconds: Seconds,
}

impl DecideRule {
    fn pending(&self) -> impl Iterator<Item = usize> + '_ {
        self.states
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Some((_, None))))
            .map(|(i, _)| i)
    }

    fn end_pending(&mut self, why: DecisionStop) {
        for s in self.states.iter_mut().flatten() {
            if s.1.is_none() {
                s.1 = Some(why);
            }
        }
    }
}

impl StopRule for DecideRule {
    fn check(&mut self, data: &[BenchData]) -> Control {
        self.seconds = data.iter().map(BenchData::spent).sum();
        let r = self.settings.reference;
        let pending: Vec<usize> = self.pending().collect();
        for c in pending {
            let statistic = self.settings.per_execution;
            let ratios = paired_log_ratios(&data[c], &data[r], self.builds, statistic);
            let Some((last, stop)) = self.states[c].as_mut() else {
                continue;
            };
            if let Ok(l) = look(&ratios, &self.each) {
                let threshold = self.each.threshold;
                let on = (self.builds, statistic);
                *last = floor_at_resolution(l, (&data[c], &data[r]), on, threshold);
            }
            if last.decided() {
                *stop = Some(DecisionStop::Decided);
                self.retire.push(c);
            } else if !data[c].running() || !data[r].running() {
                *stop = Some(DecisionStop::Failed);
            }
        }
        if self.pending().next().is_none() {
            return Control::Stop;
        }
        if self.settings.budget.is_some_and(|b| self.seconds >= b) {
            self.end_pending(DecisionStop::BudgetSpent);
            return Control::Stop;
        }
        Control::Continue
    }

    fn retired(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.retire)
    }
}

/// Runs `benchmarks` in rounds until every candidate's comparison with the reference is
/// decided or the budget is spent. `settings`' execution count (without builds) or build count
/// (with builds) is replaced by the round limit; with builds each round is one build of every
/// benchmark with `settings.executions` executions.
///
/// # Errors
/// [`RunError::Settings`] before anything runs when the settings cannot be run with; otherwise as
/// [`Scheduler::run`].
#[allow(clippy::too_many_arguments)] // the adaptive run's arguments plus the rule's settings
pub fn run_until_decided(
    benchmarks: &[Benchmark],
    settings: &Settings,
    discard: usize,
    decide: &DecideSettings,
    stop: StopSignal,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<DecidedReport, RunError> {
    decide.validate(benchmarks.len())?;
    let mut s = settings.clone();
    match &mut s.build {
        Some(b) => b.builds = decide.max_rounds,
        None => s.executions = decide.max_rounds,
    }
    s.validate()?;
    let k = benchmarks.len() - 1;
    let each = decide.sequential.for_candidates(k);
    let unlooked = look(&[], &each).map_err(|e| SettingsError::Sequential {
        reason: e.to_string(),
    })?;
    let rule = DecideRule {
        settings: *decide,
        each,
        builds: s.build.is_some(),
        states: (0..benchmarks.len())
            .map(|i| (i != decide.reference).then_some((unlooked, None)))
            .collect(),
        retire: Vec::new(),
        seconds: Seconds::ZERO,
    };
    let mut collector = Collector::new(observer, benchmarks.len(), discard, rule);
    let report = Scheduler::new(benchmarks, &s, stop).run(executor, &mut collector)?;
    let builds = s.build.is_some();
    let rounds = collector
        .data()
        .iter()
        .map(|d| d.top_units(builds))
        .max()
        .unwrap_or(0);
    let seconds = collector.data().iter().map(BenchData::spent).sum();
    let mut rule = collector.into_rule();
    rule.end_pending(match report.ending {
        Ending::Interrupted => DecisionStop::Interrupted,
        _ => DecisionStop::RoundsSpent,
    });
    let decisions = rule
        .states
        .into_iter()
        .enumerate()
        .filter_map(|(candidate, s)| {
            let (look, stop) = s?;
            Some(Decision {
                candidate,
                look,
                stop: stop.unwrap_or(DecisionStop::RoundsSpent),
            })
        })
        .collect();
    Ok(DecidedReport {
        report,
        decisions,
        alpha_each: each.alpha,
        rounds,
        seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::CommandLine;
    use crate::schedule::{BuildSettings, ExecutionRecord};
    use crate::simulate::SimulatedExecutor;
    use rigor_stats::compare::Verdict;

    #[derive(Debug, Default)]
    struct Count(Vec<usize>);

    impl Observer for Count {
        fn execution(&mut self, r: &ExecutionRecord) -> Result<(), RunError> {
            if self.0.len() <= r.benchmark {
                self.0.resize(r.benchmark + 1, 0);
            }
            self.0[r.benchmark] += 1;
            Ok(())
        }
    }

    fn benches(specs: &[&str]) -> Vec<Benchmark> {
        specs
            .iter()
            .map(|s| crate::test_support::bench(s))
            .collect()
    }

    fn decide(max_rounds: usize) -> DecideSettings {
        DecideSettings {
            per_execution: rigor_stats::Estimator::Mean,
            reference: 0,
            sequential: SequentialConfig::default(),
            max_rounds,
            budget: None,
        }
    }

    fn settings(seed: u64) -> Settings {
        Settings {
            executions: 10,
            seed: seed.into(),
            ..Settings::default()
        }
    }

    /// Runs `b` until decided on the simulator, seeded as `s` is, discarding nothing.
    fn simulated(
        b: &[Benchmark],
        s: &Settings,
        d: &DecideSettings,
        observer: &mut dyn Observer,
    ) -> Result<DecidedReport, RunError> {
        run_until_decided(
            b,
            s,
            0,
            d,
            StopSignal::new(),
            &mut SimulatedExecutor::new(s.seed),
            observer,
        )
    }

    #[test]
    fn each_candidate_stops_on_its_own() {
        // Candidate 1 is 30% slower (decided at the first look); candidate 2 equals the
        // reference with 1% noise (equivalent later).
        let b = benches(&[
            "mean=10ms,execution=1%",
            "mean=13ms,execution=1%",
            "mean=10ms,execution=1%",
        ]);
        let mut obs = Count::default();
        let r = simulated(&b, &settings(7), &decide(200), &mut obs).unwrap();
        assert_eq!(r.report.ending, Ending::Stopped);
        let d: Vec<_> = r
            .decisions
            .iter()
            .map(|d| (d.look.verdict, d.stop))
            .collect();
        assert_eq!(
            d,
            [
                (Verdict::Regression, DecisionStop::Decided),
                (Verdict::Equivalent, DecisionStop::Decided)
            ]
        );
        assert_eq!(r.decisions[0].look.rounds, 8);
        assert_eq!(
            obs.0[1], 8,
            "the regression is no longer scheduled once decided"
        );
        assert!(obs.0[2] > 8 && obs.0[0] == obs.0[2], "{obs:?}");
        assert!((r.alpha_each - 0.025).abs() < 1e-12);
    }

    #[test]
    fn a_difference_of_one_clock_step_is_not_decided() {
        // 3.02 ns against 3.00 ns, every sample tied: one step of 0.02 ns apart (+0.67%).
        let run = |step_ns| {
            let mut d = decide(30);
            d.sequential.threshold = 0.005;
            run_until_decided(
                &benches(&["./old", "./new"]),
                &settings(1),
                0,
                &d,
                StopSignal::new(),
                &mut crate::test_support::Tied {
                    ns: vec![3.0, 3.02],
                    step_ns,
                },
                &mut Count::default(),
            )
            .unwrap()
        };
        // Blind to the clock: a zero-width sequence decides "regression" at the first look.
        let blind = run(None);
        assert_eq!(blind.decisions[0].look.verdict, Verdict::Regression);
        assert_eq!(blind.decisions[0].look.rounds, 8);
        // With the step: the sequence spans 3.01/3.01 .. 3.03/2.99 and never decides.
        let honest = run(Some(0.02));
        let l = honest.decisions[0].look;
        assert_eq!(l.verdict, Verdict::Inconclusive, "{l:?}");
        assert_eq!(honest.decisions[0].stop, DecisionStop::RoundsSpent);
        assert!((l.lower - 1.0).abs() < 1e-9, "{l:?}");
        assert!((l.upper - 3.03 / 2.99).abs() < 1e-9, "{l:?}");
    }

    #[test]
    fn budget_of_rounds_leaves_it_inconclusive() {
        let b = benches(&["mean=10ms,execution=20%", "mean=10.1ms,execution=20%"]);
        let r = simulated(&b, &settings(3), &decide(12), &mut Count::default()).unwrap();
        assert_eq!(r.decisions[0].stop, DecisionStop::RoundsSpent);
        assert_eq!(r.decisions[0].look.verdict, Verdict::Inconclusive);
        assert_eq!((r.rounds, r.decisions[0].look.rounds), (12, 12));
        // A time budget smaller than one round's time stops at the first look after it.
        let mut d = decide(1000);
        d.budget = Some(Seconds::new(0.05));
        let r = simulated(&b, &settings(3), &d, &mut Count::default()).unwrap();
        assert_eq!(r.decisions[0].stop, DecisionStop::BudgetSpent);
        assert!(
            r.seconds.get() >= 0.05 && (2..=4).contains(&r.rounds),
            "{r:?}"
        );
    }

    #[test]
    fn builds_are_the_rounds() {
        let root = tempfile::tempdir().unwrap();
        let b = benches(&[
            "mean=10ms,build=0.5%,execution=0.5%",
            "mean=12ms,build=0.5%,execution=0.5%",
        ]);
        let mut s = settings(11);
        s.executions = 3;
        s.build = Some(BuildSettings {
            command: CommandLine::parse("make", false).unwrap(),
            builds: 5,
            root: root.path().to_path_buf(),
            timeout: None,
            interleaved: false,
            for_benchmark: Vec::new(),
            seeds: Vec::new(),
        });
        let mut obs = Count::default();
        let r = simulated(&b, &s, &decide(50), &mut obs).unwrap();
        assert_eq!(r.decisions[0].look.verdict, Verdict::Regression);
        assert_eq!((r.rounds, obs.0[1]), (8, 24), "8 builds × 3 executions");
    }

    #[test]
    fn a_failing_candidate_stops_as_failed_and_the_others_go_on() {
        let b = benches(&[
            "mean=10ms,execution=1%",
            "mean=10ms,execution=1%,fail=3",
            "mean=13ms,execution=1%",
        ]);
        let r = simulated(&b, &settings(5), &decide(100), &mut Count::default()).unwrap();
        assert_eq!(r.decisions[0].stop, DecisionStop::Failed);
        assert_eq!(r.decisions[0].look.verdict, Verdict::Inconclusive);
        assert_eq!(
            (r.decisions[1].stop, r.decisions[1].look.verdict),
            (DecisionStop::Decided, Verdict::Regression)
        );
    }

    #[test]
    fn refuses_what_cannot_be_decided() {
        let b = benches(&["mean=10ms"]);
        let e = simulated(&b, &settings(1), &decide(100), &mut Count::default());
        assert!(matches!(
            e,
            Err(RunError::Settings(SettingsError::NothingToDecide { .. }))
        ));
        assert!(matches!(
            decide(5).validate(2),
            Err(SettingsError::RoundsBelowMinimum { .. })
        ));
    }
}
