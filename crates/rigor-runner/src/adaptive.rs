//! Dimensioning and adaptive experiments (Kalibera & Jones 2013 §9; METHODS §3).
//!
//! [`dimension`] runs a pilot experiment, measures the cost of each level and its variance
//! component, and computes the optimal repetition counts below the top. [`run_adaptive`] then
//! runs the main experiment with those counts and adds top-level units until the interval reaches
//! a target relative half-width or a time budget is spent.
//!
//! Honest coverage: the pilot's data are not reused, so the first planned top-level count is
//! independent of the main data (a two-stage design). Only when the planned count turns out too
//! small does the rule look again, at most `max_looks` times; the simulation test in
//! `tests/adaptive_coverage.rs` checks that the final interval still covers the true mean at the
//! nominal rate.

use rigor_stats::design::{cost_of_top_unit, top_count_for_budget, top_count_for_half_width};
use rigor_stats::{
    LevelCost, Plan, Quantile, VarianceComponents, mean_interval, optimal_counts,
    variance_components,
};

use crate::collect::{BenchData, Collector, StopRule};
use crate::error::RunError;
use crate::executor::Executor;
use crate::schedule::{Benchmark, Control, Observer, Report, Scheduler, Settings};
use crate::stop::StopSignal;

/// Size of the pilot experiment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PilotSettings {
    /// Executions (without builds), or executions spread over the builds (with builds).
    pub executions: usize,
    /// Iterations per execution to ask for, after the discarded ones.
    pub iterations: usize,
    /// Builds, when builds are a level.
    pub builds: usize,
    /// Stop the pilot after this many seconds of measured time.
    pub max_time: Option<f64>,
}

impl Default for PilotSettings {
    fn default() -> Self {
        Self {
            executions: 30,
            iterations: 30,
            builds: 10,
            max_time: None,
        }
    }
}

/// The dimensioning of one benchmark.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchPlan {
    /// Level names, top → bottom.
    pub levels: Vec<String>,
    /// Seconds per repetition of each level (excluding sub-levels), top → bottom.
    pub costs: Vec<f64>,
    /// Variance components measured in the pilot.
    pub components: VarianceComponents,
    /// Pilot mean.
    pub mean: f64,
    /// Top-level units in the pilot.
    pub pilot_units: usize,
    /// Optimal counts below the top.
    pub plan: Plan,
}

impl BenchPlan {
    /// Planned count of the named level per parent unit, if it is below the top.
    pub fn count(&self, level: &str) -> Option<usize> {
        self.plan.count_of(level)
    }

    /// Top-level units needed for a half-width of `relative` × mean.
    pub fn top_units_for(
        &self,
        relative: f64,
        level: f64,
        quantile: Quantile,
    ) -> Result<usize, String> {
        top_count_for_half_width(&self.plan, relative * self.mean.abs(), level, quantile)
            .map_err(|e| e.to_string())
    }

    /// Seconds one top-level unit costs under the plan.
    pub fn top_unit_cost(&self) -> f64 {
        cost_of_top_unit(&self.plan)
    }
}

/// Stops the pilot when its time limit is spent.
struct TimeLimit(Option<f64>);

impl StopRule for TimeLimit {
    fn check(&mut self, data: &[BenchData]) -> Control {
        match self.0 {
            Some(limit) if data.iter().map(BenchData::spent).sum::<f64>() >= limit => Control::Stop,
            _ => Control::Continue,
        }
    }
}

/// What a pilot experiment found.
#[derive(Debug, Clone)]
pub struct Dimensioning {
    /// The pilot's scheduler report.
    pub report: Report,
    /// Per benchmark, its plan or why it has none.
    pub plans: Vec<Result<BenchPlan, String>>,
    /// Measured seconds the pilot took.
    pub seconds: f64,
}

/// Runs the pilot and plans every benchmark (or says why it cannot be planned).
pub fn dimension(
    benchmarks: &[Benchmark],
    settings: &Settings,
    discard: usize,
    pilot: &PilotSettings,
    stop: StopSignal,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<Dimensioning, RunError> {
    let mut s = settings.clone();
    s.iterations_per_execution = Some(discard + pilot.iterations);
    s.executions = pilot.executions;
    if let Some(b) = &mut s.build {
        b.builds = pilot.builds;
        s.executions = pilot.executions.div_ceil(pilot.builds).max(2);
    }
    let mut collector = Collector::new(
        observer,
        benchmarks.len(),
        discard,
        TimeLimit(pilot.max_time),
    );
    let report = Scheduler::new(benchmarks, &s, stop).run(executor, &mut collector)?;
    let with_builds = s.build.is_some();
    let spent = collector.data().iter().map(BenchData::spent).sum();
    let plans = collector
        .data()
        .iter()
        .map(|d| plan_benchmark(d, with_builds, s.warmup_executions))
        .collect();
    Ok(Dimensioning {
        report,
        plans,
        seconds: spent,
    })
}

fn plan_benchmark(d: &BenchData, with_builds: bool, warmup: usize) -> Result<BenchPlan, String> {
    let h = d.hierarchy(with_builds).map_err(|e| e.to_string())?;
    let components = variance_components(&h).map_err(|e| e.to_string())?;
    let costs = d.costs(with_builds, warmup);
    let levels = h.levels().to_vec();
    let level_costs: Vec<LevelCost> = levels
        .iter()
        .zip(&costs)
        .zip(&components.components)
        .map(|((l, &c), comp)| LevelCost::new(l.clone(), c, comp.t2))
        .collect();
    let plan = optimal_counts(&level_costs).map_err(|e| e.to_string())?;
    Ok(BenchPlan {
        levels,
        costs,
        components,
        mean: h.grand_mean(),
        pilot_units: h.units(0),
        plan,
    })
}

/// What the adaptive experiment aims for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdaptiveSettings {
    /// Target relative half-width (e.g. 0.01 for ±1%).
    pub target: Option<f64>,
    /// Seconds of measured time for the whole experiment, pilot included.
    pub budget: Option<f64>,
    /// Confidence level.
    pub level: f64,
    /// Quantile of the interval.
    pub quantile: Quantile,
    /// How many times the rule may re-plan after reaching its planned count.
    pub max_looks: usize,
    /// Most top-level units the main experiment may run.
    pub max_units: usize,
}

/// Why the adaptive experiment stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// Every benchmark's interval reached the target.
    PrecisionReached,
    /// The budget was spent (before the target, if one was set).
    BudgetSpent,
    /// The planned units ran (after `max_looks` re-plans) without reaching the target.
    PrecisionNotReached,
    /// The run ended otherwise (interrupted, every benchmark failed).
    Ended,
}

/// The adaptive stopping rule: look when the planned count is reached, re-plan from the
/// variance measured so far, at most `max_looks` times; stop on the budget at any round.
pub struct AdaptiveRule {
    settings: AdaptiveSettings,
    with_builds: bool,
    planned: usize,
    looks: usize,
    budget_left: Option<f64>,
    /// Why it stopped, once it has.
    pub reason: Option<StopReason>,
}

impl AdaptiveRule {
    fn units(&self, data: &[BenchData]) -> usize {
        data.iter()
            .filter(|d| d.measured_executions() > 0)
            .map(|d| d.top_units(self.with_builds))
            .min()
            .unwrap_or(0)
    }

    /// Largest relative half-width over the benchmarks, with the units it was computed on.
    fn worst(&self, data: &[BenchData]) -> Option<(f64, usize)> {
        let mut worst: Option<(f64, usize)> = None;
        for d in data.iter().filter(|d| d.measured_executions() > 0) {
            let h = d.hierarchy(self.with_builds).ok()?;
            let ci = mean_interval(&h, self.settings.level, self.settings.quantile).ok()?;
            let rel = ci.half_width / ci.mean.abs();
            if worst.is_none_or(|(w, _)| rel > w) {
                worst = Some((rel, h.units(0)));
            }
        }
        worst
    }
}

impl StopRule for AdaptiveRule {
    fn check(&mut self, data: &[BenchData]) -> Control {
        let spent: f64 = data.iter().map(BenchData::spent).sum();
        if self.budget_left.is_some_and(|b| spent >= b) {
            self.reason = Some(StopReason::BudgetSpent);
            return Control::Stop;
        }
        let n = self.units(data);
        if n < self.planned {
            return Control::Continue;
        }
        let Some(target) = self.settings.target else {
            self.reason = Some(StopReason::BudgetSpent);
            return Control::Stop;
        };
        let Some((rel, units)) = self.worst(data) else {
            return Control::Continue;
        };
        if rel <= target {
            self.reason = Some(StopReason::PrecisionReached);
            return Control::Stop;
        }
        if self.looks >= self.settings.max_looks {
            self.reason = Some(StopReason::PrecisionNotReached);
            return Control::Stop;
        }
        self.looks += 1;
        let needed = (units as f64 * (rel / target).powi(2)).ceil() as usize;
        self.planned = needed.clamp(n + 1, self.settings.max_units);
        Control::Continue
    }
}

/// The adaptive experiment's outcome.
#[derive(Debug, Clone)]
pub struct AdaptiveReport {
    /// Plans from the pilot.
    pub plans: Vec<Result<BenchPlan, String>>,
    /// Top-level units first planned for the main experiment.
    pub planned_top: usize,
    /// Why it stopped.
    pub reason: StopReason,
    /// The main experiment's scheduler report.
    pub report: Report,
    /// Measured seconds of the pilot.
    pub pilot_seconds: f64,
    /// Measured seconds of the main experiment.
    pub main_seconds: f64,
}

/// Plans with a pilot, then runs the main experiment adaptively. Events of the pilot go to
/// `pilot_observer`, those of the main experiment to `observer` (whose data the caller analyses).
#[allow(clippy::too_many_arguments)]
pub fn run_adaptive(
    benchmarks: &[Benchmark],
    settings: &Settings,
    discard: usize,
    pilot: &PilotSettings,
    adaptive: &AdaptiveSettings,
    stop: StopSignal,
    executor: &mut dyn Executor,
    pilot_observer: &mut dyn Observer,
    observer: &mut dyn Observer,
) -> Result<AdaptiveReport, RunError> {
    let Dimensioning {
        plans,
        seconds: pilot_seconds,
        ..
    } = dimension(
        benchmarks,
        settings,
        discard,
        pilot,
        stop.clone(),
        executor,
        pilot_observer,
    )?;
    let ok: Vec<&BenchPlan> = plans.iter().filter_map(|p| p.as_ref().ok()).collect();
    if ok.is_empty() {
        let why = plans
            .iter()
            .filter_map(|p| p.as_ref().err())
            .cloned()
            .collect::<Vec<_>>();
        let limit = pilot.max_time.map_or(String::new(), |t| {
            format!(" (the pilot was limited to {t:.1} s; a larger budget gives it room)")
        });
        return Err(RunError::Setting(format!(
            "the pilot could not plan any benchmark{limit}: {}",
            why.join("; ")
        )));
    }
    let (main_benchmarks, main_settings) = configure(benchmarks, settings, &plans, discard);
    let planned_top = initial_top(&ok, adaptive, pilot_seconds)?;
    let with_builds = settings.build.is_some();
    let rule = AdaptiveRule {
        settings: *adaptive,
        with_builds,
        planned: planned_top,
        looks: 0,
        budget_left: adaptive.budget.map(|b| b - pilot_seconds),
        reason: None,
    };
    let mut s = main_settings;
    let cap = if adaptive.target.is_some() {
        adaptive.max_units
    } else {
        planned_top
    };
    match &mut s.build {
        Some(b) => b.builds = cap,
        None => s.executions = cap,
    }
    let mut collector = Collector::new(observer, benchmarks.len(), discard, rule);
    let report = Scheduler::new(&main_benchmarks, &s, stop).run(executor, &mut collector)?;
    let main_seconds = collector.data().iter().map(BenchData::spent).sum();
    let reason = collector.rule().reason.unwrap_or(StopReason::Ended);
    Ok(AdaptiveReport {
        plans,
        planned_top,
        reason,
        report,
        pilot_seconds,
        main_seconds,
    })
}

/// Applies the plans' lower-level counts: iterations per execution per benchmark, and executions
/// per build (the largest any benchmark needs, since rounds are shared).
fn configure(
    benchmarks: &[Benchmark],
    settings: &Settings,
    plans: &[Result<BenchPlan, String>],
    discard: usize,
) -> (Vec<Benchmark>, Settings) {
    let mut out = benchmarks.to_vec();
    for (b, plan) in out.iter_mut().zip(plans) {
        if let Ok(p) = plan {
            b.iterations = p.count("iteration").map(|k| k + discard);
        }
    }
    let mut s = settings.clone();
    s.iterations_per_execution = None;
    if s.build.is_some() {
        let per_build = plans
            .iter()
            .filter_map(|p| p.as_ref().ok()?.count("execution"))
            .max()
            .unwrap_or(1);
        s.executions = per_build;
    }
    (out, s)
}

/// Top-level units first planned: enough for the target (the largest any benchmark needs), and
/// no more than the budget affords.
fn initial_top(
    plans: &[&BenchPlan],
    a: &AdaptiveSettings,
    pilot_seconds: f64,
) -> Result<usize, RunError> {
    let mut r = a.max_units;
    if let Some(target) = a.target {
        let needed = plans
            .iter()
            .map(|p| p.top_units_for(target, a.level, a.quantile))
            .collect::<Result<Vec<_>, _>>()
            .map_err(RunError::Setting)?;
        r = needed.into_iter().max().unwrap_or(2).min(a.max_units);
    }
    if let Some(budget) = a.budget {
        let per_unit: Plan = combined(plans);
        let afford = top_count_for_budget(&per_unit, (budget - pilot_seconds).max(0.0));
        if afford < 2 {
            return Err(RunError::Setting(format!(
                "the budget leaves room for {afford} top-level unit(s) after the pilot ({pilot_seconds:.1} s); an interval needs 2"
            )));
        }
        r = r.min(afford);
    }
    Ok(r.max(2))
}

/// A plan whose one top unit costs as much as one top unit of every benchmark (rounds run them
/// all), for the budget arithmetic.
fn combined(plans: &[&BenchPlan]) -> Plan {
    let total: f64 = plans.iter().map(|p| p.top_unit_cost()).sum();
    Plan {
        levels: vec![LevelCost::new("round", total, 0.0)],
        counts: Vec::new(),
        raw: Vec::new(),
        collapsed: vec![false],
    }
}
