//! Dimensioning and adaptive experiments (Kalibera & Jones 2013 §9; docs/methodology.md, "Builds,
//! plans and adaptive runs").
//!
//! [`dimension`] runs a pilot experiment, measures the cost of each level and its variance
//! component, and computes the optimal repetition counts below the top (what `rigor plan`
//! writes). [`run_adaptive`] runs one continuous experiment: a small pilot, then the optimal
//! lower-level counts from what it measured, then top-level units until the interval reaches a
//! target relative half-width or a time budget is spent.
//!
//! The pilot's units are kept: they are top-level units like the others, only with other
//! lower-level counts, and the interval over top-level means (docs/methodology.md, "The interval")
//! stays valid for such an unbalanced design. The top-level count is planned from everything
//! measured so far, counting the pilot's units with their own precision
//! ([`rigor_stats::sequential`]). For the mean the rule looks at the interval only when the
//! planned count is reached (at most `1 + max_looks` times); for the median, minimum or a trimmed
//! mean it looks each time the units grow [`LOOK_GROWTH`]-fold and retires each benchmark at its
//! first look within the target. It never stops below [`MIN_TOP_UNITS`], and the simulation
//! tests in `tests/adaptive_coverage.rs` check that the final interval still covers the truth at
//! about the nominal rate.

use std::borrow::Cow;

use rigor_stats::bootstrap::{BootstrapConfig, expanded_interval};
use rigor_stats::design::{MIN_TOP_UNITS, cost_of_top_unit, top_count_for_half_width};
use rigor_stats::median_plan::{MedianComponents, median_components};
use rigor_stats::sequential::{top_count_with_existing, unit_mean_variances};
use rigor_stats::top_means::{RareModes, TopUnits, rare_modes};
use rigor_stats::{
    Estimator, Hierarchy, LevelCost, Plan, Quantile, StatsError, VarianceComponents,
    critical_value, mean_interval, optimal_counts, variance_components,
};
use rigor_units::{ConfidenceLevel, Fraction, Resolution, Seconds};

use crate::collect::{BenchData, Collector, StopRule};
use crate::error::{RunError, SettingsError};
use crate::executor::Executor;
use crate::schedule::{Benchmark, Control, Observer, Report, Scheduler, Settings, Shape};
use crate::stop::StopSignal;

/// Size of the pilot experiment. The default is `rigor plan`'s dimensioning experiment;
/// [`PilotSettings::adaptive`] is the short pilot an adaptive run starts with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PilotSettings {
    /// Executions (without builds), or executions spread over the builds (with builds).
    pub executions: usize,
    /// Iterations per execution to ask for, after the discarded ones.
    pub iterations: usize,
    /// Builds, when builds are a level.
    pub builds: usize,
    /// Stop the pilot after this much measured time (dimensioning only: an adaptive run's pilot
    /// is part of the experiment, which its budget bounds).
    pub max_time: Option<Seconds>,
    /// Plan from the steady iterations (`--discard auto`, for `rigor plan` and adaptive runs
    /// alike). The warm-up the steady-state diagnosis finds is dropped from each execution's
    /// iterations before their cost and variance are estimated, and counted in the execution's
    /// cost, which pays for it; an adaptive run also judges its interval without it, as the
    /// analysis will, and asks for the warm-up on top of the planned iterations. (A fixed
    /// `discard` count is always left out of the iterations' cost and variance.)
    pub steady_only: bool,
}

impl Default for PilotSettings {
    fn default() -> Self {
        Self {
            executions: 30,
            iterations: 30,
            builds: 10,
            max_time: None,
            steady_only: false,
        }
    }
}

impl PilotSettings {
    /// The pilot of an adaptive run (its data are kept): 10 top-level units of 10 iterations per
    /// execution, and 2 executions per build when builds are a level. Five units, the fewest
    /// that estimate a variance, plan too noisily: the final coverage fell to 92.6% on a
    /// simulated 3-level benchmark (see `tests/adaptive_coverage.rs` for the ones checked).
    pub fn adaptive() -> Self {
        Self {
            executions: 10,
            iterations: 10,
            builds: 10,
            max_time: None,
            steady_only: false,
        }
    }
}

/// The dimensioning of one benchmark.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchPlan {
    /// Level names, top → bottom.
    pub levels: Vec<String>,
    /// Time per repetition of each level (excluding sub-levels), top → bottom.
    pub costs: Vec<Seconds>,
    /// Variance components measured in the pilot.
    pub components: VarianceComponents,
    /// Pilot mean.
    pub mean: f64,
    /// The pilot's value of [`BenchPlan::statistic`]: its mean, or the median of its values when
    /// the plan is the median's. A relative half-width is relative to it, as the run's own
    /// rule takes it (a median's relative to the mean would promise a skewed benchmark more
    /// than its plan gives).
    pub estimate: f64,
    /// Top-level units in the pilot.
    pub pilot_units: usize,
    /// Optimal counts below the top, for [`BenchPlan::statistic`]: from `components` and the
    /// costs for the mean, from `median` and the costs for the median.
    pub plan: Plan,
    /// The statistic `plan` is for: the mean, or the median when an adaptive run of the median
    /// without builds planned it from the median's own variance components. For another
    /// statistic (the minimum, a trimmed mean, the median with builds) the plan is the mean's,
    /// and an adaptive run keeps the pilot's lower-level counts instead of following it.
    pub statistic: Estimator,
    /// The median's variance components, when `plan` is the median's.
    pub median: Option<MedianComponents>,
    /// Set when the pilot's top-level means look multimodal or heavy-tailed: the plan then
    /// requires enough top-level units to see a mode of one unit in five with 95% probability.
    pub rare_modes: Option<RareModes>,
    /// Warm-up iterations per execution left out of the plan's iterations (and paid for in the
    /// execution's cost) when it plans from the steady ones ([`PilotSettings::steady_only`]).
    pub warmup_iterations: usize,
}

impl BenchPlan {
    /// Planned count of the named level per parent unit, if it is below the top.
    pub fn count(&self, level: &str) -> Option<usize> {
        self.plan.count_of(level)
    }

    /// Top-level units needed for a half-width of `relative` × [`BenchPlan::estimate`] at
    /// confidence `level`.
    ///
    /// # Errors
    /// The statistics crate's error when no count reaches the half-width (a zero target, a
    /// degenerate plan).
    pub fn top_units_for(
        &self,
        relative: Fraction,
        level: ConfidenceLevel,
        quantile: Quantile,
    ) -> Result<usize, StatsError> {
        top_count_for_half_width(
            &self.plan,
            relative.get() * self.estimate.abs(),
            level.get(),
            quantile,
        )
        .map(|k| k.max(self.min_top_units()))
    }

    /// The fewest top-level units the plan accepts: enough to see a rare mode when the pilot
    /// shows a multimodal or heavy-tailed shape, else 0.
    pub fn min_top_units(&self) -> usize {
        self.rare_modes.map_or(0, |r| r.needed)
    }

    /// The time one top-level unit costs under the plan.
    pub fn top_unit_cost(&self) -> Seconds {
        Seconds::new(cost_of_top_unit(&self.plan))
    }
}

/// Stops the pilot when its time limit is spent.
struct TimeLimit(Option<Seconds>);

impl StopRule for TimeLimit {
    fn check(&mut self, data: &[BenchData]) -> Control {
        match self.0 {
            Some(limit) if data.iter().map(BenchData::spent).sum::<Seconds>() >= limit => {
                Control::Stop
            }
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
    pub plans: Vec<Result<BenchPlan, StatsError>>,
    /// Measured time the pilot took.
    pub seconds: Seconds,
}

/// Runs the pilot and plans every benchmark (or says why it cannot be planned).
///
/// The pilot runs with `settings` except for its counts, which come from `pilot`.
///
/// # Errors
/// [`RunError::Settings`] before anything runs when the settings, with the pilot's counts, do
/// not pass [`Settings::validate`]; otherwise as [`Scheduler::run`].
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
    s.validate()?;
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
        .map(|d| {
            let d = steady_view(d, pilot.steady_only);
            let h = d.hierarchy(with_builds)?;
            plan_benchmark(&h, &d, with_builds, s.warmup_executions, Estimator::Mean)
        })
        .collect();
    Ok(Dimensioning {
        report,
        plans,
        seconds: spent,
    })
}

/// The data to plan and judge from: without each execution's warm-up iterations when
/// `steady_only` ([`PilotSettings::steady_only`]), else as collected.
fn steady_view(d: &BenchData, steady_only: bool) -> Cow<'_, BenchData> {
    if steady_only {
        Cow::Owned(d.without_warmup())
    } else {
        Cow::Borrowed(d)
    }
}

/// Plans one benchmark from its data `d`, whose hierarchy `h` the caller built, for
/// `estimator`: the median of executions of samples is planned from its own variance
/// components ([`median_components`]); everything else from the mean's.
fn plan_benchmark(
    h: &Hierarchy,
    d: &BenchData,
    with_builds: bool,
    warmup: usize,
    estimator: Estimator,
) -> Result<BenchPlan, StatsError> {
    let components = variance_components(h)?;
    let costs = d.costs(with_builds, warmup);
    let levels = h.levels().to_vec();
    // A median whose executions' samples cannot give it (a single sample each) is planned as
    // the mean's, with the pilot's counts kept.
    let median = (estimator == Estimator::Median && h.depth() == 2)
        .then(|| median_components(h).ok())
        .flatten();
    let level_costs: Vec<LevelCost> = match &median {
        Some(m) => m.level_costs(
            [levels[0].as_str(), levels[1].as_str()],
            costs[0].get(),
            costs[1].get(),
        ),
        None => levels
            .iter()
            .zip(&costs)
            .zip(&components.components)
            .map(|((l, &c), comp)| LevelCost::new(l.clone(), c.get(), comp.t2))
            .collect(),
    };
    let plan = optimal_counts(&level_costs)?;
    let estimate = if median.is_some() {
        Estimator::Median.apply(h.values())
    } else {
        h.grand_mean()
    };
    Ok(BenchPlan {
        statistic: if median.is_some() {
            Estimator::Median
        } else {
            Estimator::Mean
        },
        median,
        levels,
        costs,
        components,
        mean: h.grand_mean(),
        estimate,
        pilot_units: h.units(0),
        plan,
        rare_modes: rare_modes(&TopUnits::of(h))?,
        warmup_iterations: d.warmup_iterations(),
    })
}

/// Re-plans an adaptive run may make after its planned count missed the target (what
/// `rigor run --precision` uses; the coverage simulations in `tests/adaptive_coverage.rs` use it).
pub const DEFAULT_LOOKS: usize = 3;

/// What the adaptive experiment aims for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdaptiveSettings {
    /// Target relative half-width (e.g. 1% for ±1%).
    pub target: Option<Fraction>,
    /// Measured time for the whole experiment, pilot included.
    pub budget: Option<Seconds>,
    /// Confidence level of the interval.
    pub level: ConfidenceLevel,
    /// Quantile of the mean's interval.
    pub quantile: Quantile,
    /// The statistic whose interval must reach the target: the mean (the interval over
    /// top-level means, planned from the variance components) or the median, minimum or a
    /// trimmed mean (the top-level bootstrap, which resamples whole executions or builds, so
    /// the interval includes the variation between them).
    pub estimator: Estimator,
    /// Resamples and seed of that bootstrap (its level is `level`, its resampling top-only);
    /// unused for the mean.
    pub bootstrap: BootstrapConfig,
    /// How many times the rule may re-plan after reaching its planned count.
    pub max_looks: usize,
    /// Most top-level units the experiment may run.
    pub max_units: usize,
}

impl AdaptiveSettings {
    /// Checks that an adaptive run can work towards these settings: a target precision above 0%
    /// or a positive, finite budget (or both), and room for at least 2 top-level units.
    /// [`run_adaptive`] calls it before running anything.
    ///
    /// # Errors
    /// The first [`SettingsError`] found.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check_goal(self.target, self.budget)?;
        if self.max_units < 2 {
            return Err(SettingsError::TooFewUnits {
                max_units: self.max_units,
            });
        }
        Ok(())
    }
}

/// Checks the goal of a run that adapts its length: a target precision above 0% or a positive,
/// finite budget (or both).
pub(crate) fn check_goal(
    target: Option<Fraction>,
    budget: Option<Seconds>,
) -> Result<(), SettingsError> {
    if target.is_none() && budget.is_none() {
        return Err(SettingsError::NoAdaptiveGoal);
    }
    if target.is_some_and(|t| t.get() <= 0.0) {
        return Err(SettingsError::ZeroTarget);
    }
    if let Some(budget) = budget.filter(|b| !b.is_positive()) {
        return Err(SettingsError::NonPositiveBudget { budget });
    }
    Ok(())
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
    /// The pilot could not plan the experiment, or the target is out of reach: the run stopped
    /// after the pilot ([`AdaptiveReport::problem`] says why); its data are kept.
    Unplannable,
    /// The run ended otherwise (interrupted, every benchmark failed).
    Ended,
}

/// Where the adaptive experiment is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Running the pilot's units.
    Pilot,
    /// Running planned units until `planned` top-level units have run.
    Planned { planned: usize },
}

/// The adaptive rule: run the pilot's top-level units; plan the lower-level counts and the
/// top-level count from everything measured so far (the pilot's units count); re-plan, without
/// looking at the interval, each time the number of units doubles; look when the planned count
/// is reached and, if the interval is still too wide, re-plan aiming a little inside the target
/// — at most `max_looks` times. The budget is checked after every round. For every statistic but
/// the mean the looks come more often ([`AdaptiveRule::look`]).
struct AdaptiveRule {
    settings: AdaptiveSettings,
    with_builds: bool,
    warmup: usize,
    discard: usize,
    /// Plan and judge from the steady iterations ([`PilotSettings::steady_only`]).
    steady_only: bool,
    pilot_units: usize,
    phase: Phase,
    looks: usize,
    /// Top-level units at which to re-plan next (doubling; the mean's rule).
    checkpoint: usize,
    /// Top-level units at which to look next (another statistic's rule: [`LOOK_GROWTH`]).
    next_look: usize,
    /// Benchmarks whose interval reached the target at a look (another statistic's rule): they
    /// run no more, and the rule waits only for the others.
    done: Vec<bool>,
    /// Benchmarks done since the scheduler last asked ([`StopRule::retired`]).
    newly_done: Vec<usize>,
    /// Units at each look ([`AdaptiveReport::looks`]).
    looked_at: Vec<usize>,
    /// The lower-level counts in use.
    current: Shape,
    plans: Vec<Result<BenchPlan, StatsError>>,
    first_planned: Option<usize>,
    pilot_seconds: Option<Seconds>,
    shape: Option<Shape>,
    error: Option<String>,
    reason: Option<StopReason>,
}

impl AdaptiveRule {
    /// Whether benchmark `b` (with data `d`) still counts: it runs, has measured something,
    /// and has not reached the target at a look.
    fn active(&self, b: usize, d: &BenchData) -> bool {
        d.running() && d.measured_executions() > 0 && !self.done.get(b).copied().unwrap_or(false)
    }

    fn units(&self, data: &[BenchData]) -> usize {
        data.iter()
            .enumerate()
            .filter(|(b, d)| self.active(*b, d))
            .map(|(_, d)| d)
            .map(|d| d.top_units(self.with_builds))
            .min()
            .unwrap_or(0)
    }

    /// Each benchmark's data as the rule plans and judges them ([`steady_view`]).
    fn view<'d>(&self, data: &'d [BenchData]) -> Vec<Cow<'d, BenchData>> {
        data.iter()
            .map(|d| steady_view(d, self.steady_only))
            .collect()
    }

    /// Largest relative half-width over the benchmarks.
    fn worst(&self, data: &[BenchData]) -> Option<f64> {
        let mut worst: Option<f64> = None;
        for rel in self.relative(data) {
            let rel = rel?.1;
            if worst.is_none_or(|w| rel > w) {
                worst = Some(rel);
            }
        }
        worst
    }

    /// Each active benchmark's index and relative half-width (`None` where there is no
    /// interval yet).
    fn relative(&self, data: &[BenchData]) -> Vec<Option<(usize, f64)>> {
        self.view(data)
            .iter()
            .enumerate()
            .filter(|(b, d)| self.active(*b, d))
            .map(|(b, d)| {
                let h = d.hierarchy(self.with_builds).ok()?;
                let i = estimator_interval(&h, &self.settings, d.resolution()).ok()?;
                Some((b, i.relative_half_width()))
            })
            .collect()
    }

    /// Whether benchmark `d` has the top-level units its interval needs to be trusted: at
    /// least [`MIN_TOP_UNITS`], and, when its top-level means look multimodal or skewed now,
    /// the units [`rare_modes`] asks for (the analysis warns below them).
    fn enough_units(&self, d: &BenchData) -> bool {
        let Ok(h) = steady_view(d, self.steady_only).hierarchy(self.with_builds) else {
            return false;
        };
        h.units(0) >= MIN_TOP_UNITS && matches!(rare_modes(&TopUnits::of(&h)), Ok(None))
    }

    /// Another statistic's look: retires every benchmark whose interval is within `limit`
    /// (relative) and that has enough units ([`Self::enough_units`]), and says whether none is
    /// left to run.
    fn retire_within(&mut self, data: &[BenchData], limit: f64) -> bool {
        let n = self.units(data);
        self.looked_at.push(n);
        for (b, rel) in self.relative(data).into_iter().flatten() {
            if rel <= limit && self.enough_units(&data[b]) {
                self.done[b] = true;
                self.newly_done.push(b);
            }
        }
        !data.iter().enumerate().any(|(b, d)| self.active(b, d))
    }

    /// Plans every benchmark from all its data; sets the shape for the rest of the experiment
    /// and returns the top-level count to run to, aiming at `margin` × the target (`None` when
    /// nothing can be planned).
    fn plan(&mut self, data: &[BenchData], n: usize, margin: f64) -> Option<usize> {
        let view = self.view(data);
        let data = view.as_slice();
        let hierarchies: Vec<Result<Hierarchy, StatsError>> =
            data.iter().map(|d| d.hierarchy(self.with_builds)).collect();
        self.plans = data
            .iter()
            .zip(&hierarchies)
            .map(|(d, h)| {
                let h = h.as_ref().map_err(Clone::clone)?;
                plan_benchmark(h, d, self.with_builds, self.warmup, self.settings.estimator)
            })
            .collect();
        if self.plans.iter().all(Result::is_err) {
            let why: Vec<String> = self
                .plans
                .iter()
                .filter_map(|p| p.as_ref().err().map(ToString::to_string))
                .collect();
            self.error = Some(format!(
                "the pilot could not plan any benchmark: {}",
                why.join("; ")
            ));
            return None;
        }
        // The plans' lower-level counts are the optimum for the statistic they were planned
        // for (`BenchPlan::statistic`): the mean's or the median's variance components and the
        // costs. For any other statistic only the executions are planned and the pilot's
        // samples per execution are kept: the mean's optimum would plan them for the mean (a
        // noisy benchmark's minimum was given 25,600 samples per process where 100 served).
        self.current = next_shape(
            &self.current,
            &self.plans,
            self.discard,
            self.settings.estimator,
        );
        self.shape = Some(self.current.clone());
        let Some(target) = self.settings.target.map(Fraction::get) else {
            return Some(self.settings.max_units);
        };
        let mut most = n + 1;
        for (b, ((d, h), p)) in data.iter().zip(&hierarchies).zip(&self.plans).enumerate() {
            let (Ok(h), Ok(p)) = (h, p) else { continue };
            if !d.running() || self.done.get(b).copied().unwrap_or(false) {
                continue;
            }
            match needed(h, p, (target, margin), &self.settings, d.resolution()) {
                Ok(k) => most = most.max(k).max(p.min_top_units()),
                // Out of reach of any count the planner considers: with a budget the run goes on
                // to it, as precise as it allows, and the note says what the pilot predicted
                // (it stopped after the pilot, 1.3 s into a 60 s budget, with the planner's
                // error as its reason).
                // A target within the timer's resolution likewise: a 1 ns function's ±1% under a
                // 40 s budget stopped after the pilot (1.2 s), though the pilot predicted ±3.8%
                // within the budget, and the reason read "however many executions run (within a
                // budget of 40.0 s; a larger budget gives it room)".
                Err(
                    NeedError::Stats(StatsError::Unreachable { .. })
                    | NeedError::BelowResolution { .. },
                ) if self.settings.budget.is_some() => most = self.settings.max_units,
                Err(e) => {
                    self.error = Some(e.to_string());
                    return None;
                }
            }
        }
        Some(most.min(self.settings.max_units))
    }

    /// Top-level units required because a pilot looked multimodal or heavy-tailed (0 if none).
    fn rare_mode_floor(&self) -> usize {
        self.plans
            .iter()
            .filter_map(|p| p.as_ref().ok())
            .map(BenchPlan::min_top_units)
            .max()
            .unwrap_or(0)
    }

    fn stop(&mut self, reason: StopReason) -> Control {
        self.reason = Some(reason);
        Control::Stop
    }

    /// Whether the rule looks at the interval at geometrically spaced counts and retires each
    /// benchmark that reached the target ([`Self::look`]): for every statistic but the mean,
    /// whose rule (looks only at the planned count) is the one validated in
    /// docs/VALIDATION.md.
    fn looks_often(&self) -> bool {
        self.settings.estimator != Estimator::Mean
    }

    /// Another statistic's rule after the pilot, once `n` top-level units have run towards
    /// `planned`: at each look (every [`LOOK_GROWTH`]-fold growth of the units, and at the
    /// planned count) every benchmark whose interval is within the target runs no more; the
    /// rest re-plan from everything measured (shape and count), and the next look is set. A
    /// look at the planned count that misses counts against `max_looks`, and re-plans aiming
    /// inside the target as the mean's rule does.
    fn look(&mut self, data: &[BenchData], n: usize, planned: usize) -> Control {
        if n < self.next_look && n < planned {
            return Control::Continue;
        }
        let Some(target) = self.settings.target.map(Fraction::get) else {
            if n >= planned {
                return self.stop(StopReason::BudgetSpent);
            }
            // Only a budget: the looks re-plan the shape as the units grow.
            return match self.plan(data, n, 1.0) {
                Some(planned) => {
                    self.phase = Phase::Planned { planned };
                    self.next_look = look_after(n, planned);
                    Control::Continue
                }
                None => self.stop(StopReason::Unplannable),
            };
        };
        if self.retire_within(data, target) {
            return self.stop(StopReason::PrecisionReached);
        }
        let n = self.units(data);
        if n >= planned {
            if self.looks >= self.settings.max_looks || n >= self.settings.max_units {
                return self.stop(StopReason::PrecisionNotReached);
            }
            self.looks += 1;
        }
        let m = match self.looks {
            0 => 1.0,
            l if l == self.settings.max_looks => margin(n).powi(2),
            _ => margin(n),
        };
        match self.plan(data, n, m) {
            Some(planned) => {
                self.phase = Phase::Planned { planned };
                self.next_look = look_after(n, planned);
                Control::Continue
            }
            None => self.stop(StopReason::Unplannable),
        }
    }
}

/// How much the top-level units grow between two looks of another statistic's rule (the
/// median's, the minimum's): the run looks at `⌈1.5·n⌉` units after a look at `n`, or at the
/// planned count if that comes first, so it stops at most half as many units again after the
/// interval reached the target, whatever the plan predicted. Each look is a chance to stop on
/// an interval narrow by luck; the coverage at stop is checked by simulation in
/// `tests/adaptive_coverage.rs` (docs/methodology.md).
pub const LOOK_GROWTH: f64 = 1.5;

/// The units at which to look next after a look at `n`, towards `planned` ([`LOOK_GROWTH`]).
fn look_after(n: usize, planned: usize) -> usize {
    let grown = (n as f64 * LOOK_GROWTH).ceil() as usize;
    grown.max(n + 1).min(planned.max(n + 1))
}

/// The fraction of the target a re-plan aims at after a look missed it with `n` units (and that
/// the pilot must reach to stop on its own): one standard error of the estimated standard
/// deviation (≈ 1/sqrt(2(n − 1)) relative) inside the target, so that the next look usually
/// succeeds instead of creeping up a unit at a time.
fn margin(n: usize) -> f64 {
    1.0 / (1.0 + 1.0 / (2.0 * (n.max(2) as f64 - 1.0)).sqrt())
}

/// Top-level units a benchmark needs in all for the target, counting what it has measured.
///
/// For the mean: from the variance components and the plan's lower-level counts
/// ([`top_count_with_existing`]). For the median planned from its own components
/// ([`BenchPlan::median`]): the same count from the median's components — each measured
/// execution's median varying by σ_b² + w/n_j, each planned one by σ_b² + w/k — with the
/// predicted half-width scaled to the bootstrap interval the rule judges ([`calibration`]). For
/// another estimator: the top-level bootstrap's half-width shrinks about as 1/√r with r
/// top-level units (faster for the minimum, whose interval is set by the spacing of the
/// smallest unit minima), so `r·(h/target)²` units, h the relative half-width now. Looks
/// ([`LOOK_GROWTH`]) check the interval itself and re-plan if the count was off. It aims at
/// `target × margin`, never inside the data's resolution (± half a step), and is an error when
/// the target itself is inside it.
fn needed(
    h: &Hierarchy,
    p: &BenchPlan,
    (target, margin): (f64, f64),
    a: &AdaptiveSettings,
    resolution: Option<Resolution>,
) -> Result<usize, NeedError> {
    let bounds = estimator_interval(h, a, resolution)?;
    let mut aim = target * margin;
    if let Some(r) = resolution {
        let floor = r.relative_to(Seconds::new(bounds.estimate));
        if floor > target {
            return Err(NeedError::BelowResolution {
                target,
                floor,
                half_step: r.half_step(),
            });
        }
        // Aiming inside the floor would ask for units that cannot narrow the interval.
        aim = aim.max(floor);
    }
    let target = aim;
    if let (Some(m), Estimator::Median) = (&p.median, a.estimator) {
        let existing = m.existing();
        let scale = calibration(&existing, &bounds, a)?;
        return Ok(top_count_with_existing(
            &existing,
            &p.plan,
            target / scale * bounds.estimate.abs(),
            a.level.get(),
            a.quantile,
        )?);
    }
    if a.estimator != Estimator::Mean {
        let rel = bounds.relative_half_width();
        let r = h.units(0) as f64;
        let k = (r * (rel / target).powi(2)).ceil();
        return Ok(if k.is_finite() {
            (k as usize).max(MIN_TOP_UNITS)
        } else {
            usize::MAX
        });
    }
    // The count is planned for the symmetric t interval; an interval widened toward the skew
    // is wider by (half-width / shorter side), so the plan aims that much further inside (the
    // widening shrinks as units are added, so this errs toward enough units).
    let ci = mean_interval(h, a.level.get(), a.quantile)?;
    let shorter = (ci.mean - ci.lower).min(ci.upper - ci.mean);
    let skew = if ci.is_asymmetric() && shorter > 0.0 {
        ci.half_width / shorter
    } else {
        1.0
    };
    let existing = unit_mean_variances(h, &p.components.t2())?;
    Ok(top_count_with_existing(
        &existing,
        &p.plan,
        target / skew * p.mean.abs(),
        a.level.get(),
        a.quantile,
    )?)
}

/// How much wider the interval the rule judges (`bounds`, the bootstrap's) is than the one the
/// median's components predict for the units measured (`existing`, their predicted variances):
/// `q · sqrt(Σ v_j) / r` at `a`'s level and quantile. The count is planned for the judged
/// interval, which the components approximate to first order only (the pooled median of
/// executions whose levels differ far more than their samples varies by up to π/2 times the
/// mean of their medians' variance), so the prediction is scaled by this ratio; clamped to
/// `[1/2, 2]` since both are estimates, and 1 when the interval is at the timer's resolution or
/// either width is 0. With the shape unchanged this plans `r·(h/target)²` units, the other
/// statistics' rule.
fn calibration(
    existing: &[f64],
    bounds: &EstimatorBounds,
    a: &AdaptiveSettings,
) -> Result<f64, StatsError> {
    let r = existing.len();
    if r < 2 || bounds.at_resolution {
        return Ok(1.0);
    }
    let q = critical_value(a.level.get(), (r - 1) as f64, a.quantile)?;
    let predicted = q * existing.iter().sum::<f64>().sqrt() / r as f64;
    let judged = (bounds.upper - bounds.lower) / 2.0;
    Ok(if predicted > 0.0 && judged > 0.0 {
        (judged / predicted).clamp(0.5, 2.0)
    } else {
        1.0
    })
}

/// Why no count of top-level units reaches the target.
#[derive(Debug)]
enum NeedError {
    /// The statistics could not be computed.
    Stats(StatsError),
    /// The target is inside the measurement's resolution: every interval is at least ± half a
    /// step wide, however many units run.
    BelowResolution {
        target: f64,
        floor: f64,
        half_step: Seconds,
    },
}

impl From<StatsError> for NeedError {
    fn from(e: StatsError) -> Self {
        Self::Stats(e)
    }
}

impl std::fmt::Display for NeedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Stats(e) => e.fmt(f),
            Self::BelowResolution {
                target,
                floor,
                half_step,
            } => write!(
                f,
                "the target ±{}% is within the timer's resolution: the samples move in steps \
                 of {}, so no interval is narrower than ±{} (±{}%) however many executions run",
                rigor_units::significant(100.0 * target),
                *half_step * 2.0,
                *half_step,
                rigor_units::significant(100.0 * floor)
            ),
        }
    }
}

impl StopRule for AdaptiveRule {
    fn check(&mut self, data: &[BenchData]) -> Control {
        let spent: Seconds = data.iter().map(BenchData::spent).sum();
        if self.settings.budget.is_some_and(|b| spent >= b) {
            return self.stop(StopReason::BudgetSpent);
        }
        let n = self.units(data);
        let planned = match self.phase {
            Phase::Pilot if n < self.pilot_units => return Control::Continue,
            Phase::Pilot => {
                self.pilot_seconds = Some(spent);
                self.checkpoint = 2 * n;
                let Some(planned) = self.plan(data, n, 1.0) else {
                    return self.stop(StopReason::Unplannable);
                };
                self.first_planned = Some(planned);
                self.phase = Phase::Planned { planned };
                self.next_look = look_after(n, planned);
                if self.looks_often() {
                    // As below, per benchmark: one precise enough with room to spare runs no
                    // more.
                    let spare = self.settings.target.map(|t| t.get() * margin(n));
                    if let Some(limit) = spare
                        && self.retire_within(data, limit)
                    {
                        return self.stop(StopReason::PrecisionReached);
                    }
                    return Control::Continue;
                }
                // The pilot alone may already be precise enough: stop now rather than run units
                // the plan does not need — but only with room to spare, since a pilot that
                // looks precise by luck (a small variance estimate from few units) is exactly
                // the one whose interval would under-cover (simulated: 90% for such stops).
                self.looked_at.push(n);
                if self.worst(data).is_some_and(|rel| {
                    self.settings
                        .target
                        .is_some_and(|t| rel <= t.get() * margin(n) && n >= MIN_TOP_UNITS)
                }) && n >= self.rare_mode_floor()
                {
                    return self.stop(StopReason::PrecisionReached);
                }
                return Control::Continue;
            }
            Phase::Planned { planned } => planned,
        };
        if self.looks_often() {
            return self.look(data, n, planned);
        }
        if n < planned {
            if n >= self.checkpoint {
                // Re-plan with more data, without looking at the interval.
                self.checkpoint = 2 * n;
                let margin = if self.looks == 0 { 1.0 } else { margin(n) };
                match self.plan(data, n, margin) {
                    Some(planned) => self.phase = Phase::Planned { planned },
                    None => return self.stop(StopReason::Unplannable),
                }
            }
            return Control::Continue;
        }
        let Some(target) = self.settings.target.map(Fraction::get) else {
            return self.stop(StopReason::BudgetSpent);
        };
        self.looked_at.push(n);
        let Some(rel) = self.worst(data) else {
            return Control::Continue;
        };
        if rel <= target {
            return self.stop(StopReason::PrecisionReached);
        }
        if self.looks >= self.settings.max_looks || n >= self.settings.max_units {
            return self.stop(StopReason::PrecisionNotReached);
        }
        self.looks += 1;
        // The last re-plan aims twice as far inside the target: a run that has missed it at
        // every look so far should not end a hair short with budget left.
        let m = if self.looks == self.settings.max_looks {
            margin(n).powi(2)
        } else {
            margin(n)
        };
        match self.plan(data, n, m) {
            Some(planned) => {
                self.phase = Phase::Planned { planned };
                Control::Continue
            }
            None => self.stop(StopReason::Unplannable),
        }
    }

    fn reshape(&mut self) -> Option<Shape> {
        self.shape.take()
    }

    fn retired(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.newly_done)
    }

    fn planned_executions(&self) -> Option<usize> {
        let units = match self.phase {
            Phase::Pilot => self.pilot_units,
            Phase::Planned { planned } => planned,
        };
        let per_unit = self.current.executions.map_or(1, |e| e + self.warmup);
        Some(units * per_unit * self.current.iterations.len())
    }
}

/// An interval of the adaptive rule's estimator on one benchmark.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EstimatorBounds {
    /// The statistic on all the data.
    pub estimate: f64,
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// Whether the bounds were widened to ± half the data's resolution (the data alone gave a
    /// narrower interval than the clock can support).
    pub at_resolution: bool,
}

impl EstimatorBounds {
    /// Half the width relative to the estimate (0.01 for ±1%); infinite for an estimate of 0.
    pub fn relative_half_width(&self) -> f64 {
        (self.upper - self.lower) / 2.0 / self.estimate.abs()
    }
}

/// The interval the adaptive rule judges: for the mean, the interval over top-level
/// means (`a.level`, `a.quantile`; docs/methodology.md, "The interval"); for another estimator, the percentile interval of the
/// top-only hierarchical bootstrap with `a.bootstrap`'s resamples and seed, expanded for the
/// number of top-level units ([`rigor_stats::bootstrap::expanded_interval`]: the plain
/// percentile interval covered 89% in simulation with ~15 executions).
///
/// With the data's `resolution` (the step its values move in, when the program reported it),
/// either bound closer than half a step to the estimate is moved out to half a step
/// ([`Resolution::floor`]): quantised samples that tie give a zero-width interval otherwise,
/// which would claim a precision the clock does not have and stop the adaptive rule at once.
///
/// # Errors
/// As [`mean_interval`] or [`expanded_interval`] (fewer than two top-level units, …).
pub fn estimator_interval(
    h: &Hierarchy,
    a: &AdaptiveSettings,
    resolution: Option<Resolution>,
) -> Result<EstimatorBounds, StatsError> {
    let b = raw_interval(h, a)?;
    Ok(match resolution {
        Some(r) => {
            let f = r.floor(
                Seconds::new(b.estimate),
                Seconds::new(b.lower),
                Seconds::new(b.upper),
            );
            EstimatorBounds {
                lower: f.lower.get(),
                upper: f.upper.get(),
                at_resolution: f.at_resolution,
                ..b
            }
        }
        None => b,
    })
}

/// [`estimator_interval`] from the data alone.
fn raw_interval(h: &Hierarchy, a: &AdaptiveSettings) -> Result<EstimatorBounds, StatsError> {
    if a.estimator == Estimator::Mean {
        let ci = mean_interval(h, a.level.get(), a.quantile)?;
        return Ok(EstimatorBounds {
            estimate: ci.mean,
            lower: ci.lower,
            upper: ci.upper,
            at_resolution: false,
        });
    }
    let cfg = BootstrapConfig {
        level: a.level.get(),
        ..a.bootstrap
    };
    let b = expanded_interval(h, a.estimator, &cfg)?;
    Ok(EstimatorBounds {
        estimate: b.estimate,
        lower: b.lower,
        upper: b.upper,
        at_resolution: false,
    })
}

/// The adaptive experiment's outcome.
#[derive(Debug, Clone)]
pub struct AdaptiveReport {
    /// The latest plan of each benchmark (from the pilot, or from a later look).
    pub plans: Vec<Result<BenchPlan, StatsError>>,
    /// Top-level units (pilot included) first planned after the pilot.
    pub planned_top: usize,
    /// The lower-level counts in use at the end (iterations include the discarded ones).
    pub shape: Shape,
    /// Why it stopped.
    pub reason: StopReason,
    /// The experiment's scheduler report.
    pub report: Report,
    /// Measured time of the pilot (whose units are part of the result).
    pub pilot_seconds: Seconds,
    /// Measured time after the pilot.
    pub main_seconds: Seconds,
    /// Why the experiment could not be planned (with [`StopReason::Unplannable`]): the pilot
    /// planned nothing, or the target is out of reach.
    pub problem: Option<String>,
    /// Per benchmark, the final interval of the estimator the rule judged
    /// ([`estimator_interval`]; `None` where there were too few units or no data).
    pub intervals: Vec<Option<EstimatorBounds>>,
    /// Per benchmark, the top-level units its interval rests on.
    pub units: Vec<usize>,
    /// Per benchmark, what its latest plan asks for the target by the rule's own count
    /// (`None`: no target, or no plan).
    pub needed: Vec<Option<Needed>>,
    /// Per benchmark, the step its values move in, when its executions reported it: no
    /// interval of it is narrower than ± half a step.
    pub resolutions: Vec<Option<Resolution>>,
    /// The top-level units at which the rule looked at the intervals, the end of the pilot
    /// first (for the median, minimum or a trimmed mean: [`LOOK_GROWTH`]; the mean's rule looks
    /// at its planned counts).
    pub looks: Vec<usize>,
}

/// What a benchmark's latest plan asks for the target ([`AdaptiveReport::needed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needed {
    /// This many top-level units in all, those measured included.
    Units(usize),
    /// No count the planner considers reaches it (or it is inside the timer's resolution).
    OutOfReach,
}

/// Runs an adaptive experiment: a small pilot whose data are kept, the optimal lower-level
/// counts from its variance components and costs, then top-level units until the interval
/// reaches the target or the budget is spent. One continuous experiment: every event goes to
/// `observer`, pilot included.
///
/// The experiment runs with `settings` except for its counts, which come from `pilot`, the plan
/// and `adaptive.max_units`.
///
/// # Errors
/// [`RunError::Settings`] before anything runs when `adaptive` does not pass
/// [`AdaptiveSettings::validate`] or the settings, with the pilot's counts, do not pass
/// [`Settings::validate`]; otherwise as [`Scheduler::run`]. A pilot that plans no benchmark, or
/// a target out of reach, is not an error: the run stops after the pilot with
/// [`StopReason::Unplannable`] and [`AdaptiveReport::problem`] saying why.
#[allow(clippy::too_many_arguments)]
pub fn run_adaptive(
    benchmarks: &[Benchmark],
    settings: &Settings,
    discard: usize,
    pilot: &PilotSettings,
    adaptive: &AdaptiveSettings,
    stop: StopSignal,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<AdaptiveReport, RunError> {
    adaptive.validate()?;
    let with_builds = settings.build.is_some();
    let mut s = settings.clone();
    s.iterations_per_execution = Some(discard + pilot.iterations);
    let pilot_units = match &mut s.build {
        Some(b) => {
            b.builds = adaptive.max_units;
            s.executions = pilot.executions.div_ceil(pilot.builds).max(2);
            pilot.builds
        }
        None => {
            s.executions = adaptive.max_units;
            pilot.executions
        }
    };
    s.validate()?;
    let benches: Vec<Benchmark> = benchmarks
        .iter()
        .map(|b| Benchmark {
            iterations: None,
            ..b.clone()
        })
        .collect();
    let rule = AdaptiveRule {
        settings: *adaptive,
        with_builds,
        warmup: s.warmup_executions,
        discard,
        steady_only: pilot.steady_only,
        pilot_units: pilot_units.max(2),
        phase: Phase::Pilot,
        looks: 0,
        checkpoint: 0,
        next_look: 0,
        done: vec![false; benchmarks.len()],
        newly_done: Vec::new(),
        looked_at: Vec::new(),
        current: Shape {
            iterations: vec![Some(discard + pilot.iterations); benchmarks.len()],
            executions: with_builds.then_some(s.executions),
        },
        plans: Vec::new(),
        first_planned: None,
        pilot_seconds: None,
        shape: None,
        error: None,
        reason: None,
    };
    let mut collector = Collector::new(observer, benchmarks.len(), discard, rule);
    let report = Scheduler::new(&benches, &s, stop).run(executor, &mut collector)?;
    let spent: Seconds = collector.data().iter().map(BenchData::spent).sum();
    let rule = collector.rule();
    let problem = rule.error.as_ref().map(|e| {
        SettingsError::Unplannable {
            reason: e.clone(),
            budget: adaptive.budget,
        }
        .to_string()
    });
    let pilot_seconds = rule.pilot_seconds.unwrap_or(spent);
    let view = rule.view(collector.data());
    let hierarchies: Vec<Option<Hierarchy>> =
        view.iter().map(|d| d.hierarchy(with_builds).ok()).collect();
    let intervals = view
        .iter()
        .zip(&hierarchies)
        .map(|(d, h)| estimator_interval(h.as_ref()?, adaptive, d.resolution()).ok())
        .collect();
    let units = hierarchies
        .iter()
        .map(|h| h.as_ref().map_or(0, |h| h.units(0)))
        .collect();
    // What the latest plan asks for the target, counting what was measured: the rule's own
    // count, aiming at the target itself (an end short of it says how far it was).
    let needed = view
        .iter()
        .zip(&hierarchies)
        .enumerate()
        .map(|(b, (d, h))| {
            let target = adaptive.target?.get();
            let p = rule.plans.get(b)?.as_ref().ok()?;
            match needed(h.as_ref()?, p, (target, 1.0), adaptive, d.resolution()) {
                Ok(k) => Some(Needed::Units(k.max(p.min_top_units()))),
                Err(NeedError::Stats(StatsError::Unreachable { .. })) => Some(Needed::OutOfReach),
                Err(NeedError::BelowResolution { .. }) => Some(Needed::OutOfReach),
                Err(NeedError::Stats(_)) => None,
            }
        })
        .collect();
    let resolutions = collector.data().iter().map(BenchData::resolution).collect();
    Ok(AdaptiveReport {
        looks: rule.looked_at.clone(),
        resolutions,
        plans: rule.plans.clone(),
        planned_top: rule.first_planned.unwrap_or(0),
        shape: rule.current.clone(),
        reason: rule.reason.unwrap_or(StopReason::Ended),
        report,
        pilot_seconds,
        main_seconds: spent - pilot_seconds,
        problem,
        intervals,
        units,
        needed,
    })
}

/// How far one re-plan may move a lower-level count (up or down): estimates from a small pilot are
/// noisy, and a count far from the one measured so far is an extrapolation. Later looks, with
/// more data, may move it further.
const MAX_STEP: usize = 4;

/// The fewest samples per execution a median's plan asks for: its sampling variance w/n is
/// a large-sample law, and with a handful of samples one disturbed sample moves an execution's
/// median (with two it is their mean).
pub const MEDIAN_MIN_SAMPLES: usize = 10;

/// The counts to run next: each plan's lower-level counts — iterations per execution (after
/// `discard` and the plan's warm-up iterations) per benchmark, and executions per build (the largest any benchmark needs, since
/// rounds are shared) — within a factor [`MAX_STEP`] of the current ones. A benchmark whose
/// top level showed no variance keeps its current counts: its plan would either repeat the
/// top level with a single unit below it or grow the counts below without bound, and the
/// pilot cannot tell which is right.
///
/// Iterations per execution follow a plan only when it was made for the run's `estimator`
/// ([`BenchPlan::statistic`]); a median's plan whose samples showed no sampling variance (the
/// middle values tied, as on a coarse clock) keeps them too, and never goes below
/// [`MEDIAN_MIN_SAMPLES`].
fn next_shape(
    current: &Shape,
    plans: &[Result<BenchPlan, StatsError>],
    discard: usize,
    estimator: Estimator,
) -> Shape {
    let step = |now: usize, planned: usize| planned.clamp(now.div_ceil(MAX_STEP), now * MAX_STEP);
    fn usable(p: &Result<BenchPlan, StatsError>) -> Option<&BenchPlan> {
        p.as_ref().ok().filter(|p| !p.plan.collapsed[0])
    }
    let iterations = current
        .iterations
        .iter()
        .zip(plans)
        .map(|(&now, p)| {
            match (
                now,
                usable(p)
                    .filter(|p| p.statistic == estimator)
                    .filter(|p| p.median.is_none() || p.plan.collapsed.last() == Some(&false))
                    .and_then(|p| {
                        let k = p.count("iteration")?;
                        Some(if p.median.is_some() {
                            k.max(MEDIAN_MIN_SAMPLES)
                        } else {
                            k
                        })
                    }),
            ) {
                (Some(now), Some(k)) => {
                    let skip = discard + usable(p).map_or(0, |p| p.warmup_iterations);
                    Some(step(now.saturating_sub(skip).max(1), k) + skip)
                }
                _ => now,
            }
        })
        .collect();
    let executions = current.executions.map(|now| {
        plans
            .iter()
            .filter_map(|p| usable(p)?.count("execution"))
            .max()
            .map_or(now, |e| step(now, e))
    });
    Shape {
        iterations,
        executions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::CommandLine;
    use crate::simulate::SimulatedExecutor;
    use crate::test_support::bench;
    use rigor_units::Seed;

    fn adaptive() -> AdaptiveSettings {
        AdaptiveSettings {
            target: Fraction::new(0.01),
            budget: None,
            level: ConfidenceLevel::NINETY_FIVE,
            quantile: Quantile::StudentT,
            estimator: rigor_stats::Estimator::Mean,
            bootstrap: rigor_stats::BootstrapConfig::default(),
            max_looks: DEFAULT_LOOKS,
            max_units: 100,
        }
    }

    struct Quiet;
    impl Observer for Quiet {}

    /// The median to ±1% with 2,000 resamples (fewer than a run's, for a debug build) and up
    /// to 10,000 executions.
    fn median() -> AdaptiveSettings {
        AdaptiveSettings {
            estimator: Estimator::Median,
            bootstrap: BootstrapConfig {
                resamples: 2_000,
                ..BootstrapConfig::default()
            },
            max_units: 10_000,
            ..adaptive()
        }
    }

    /// Runs `benches` adaptively toward `a` from the default 10-execution pilot, seeded.
    fn run_seeded(
        benches: &[Benchmark],
        seed: u64,
        a: &AdaptiveSettings,
        executor: &mut dyn Executor,
        observer: &mut dyn Observer,
    ) -> AdaptiveReport {
        let settings = Settings {
            executions: 10,
            seed: Seed(seed),
            ..Settings::default()
        };
        run_adaptive(
            benches,
            &settings,
            0,
            &PilotSettings::adaptive(),
            a,
            StopSignal::new(),
            executor,
            observer,
        )
        .unwrap()
    }

    fn run(a: &AdaptiveSettings, pilot: &PilotSettings) -> Result<AdaptiveReport, RunError> {
        let benches = [bench("mean=1ms,execution=5%,iteration=1%,iterations=5")];
        let settings = Settings {
            executions: 10,
            seed: Seed(1),
            ..Settings::default()
        };
        run_adaptive(
            &benches,
            &settings,
            0,
            pilot,
            a,
            StopSignal::new(),
            &mut SimulatedExecutor::new(1),
            &mut Quiet,
        )
    }

    #[test]
    fn adaptive_settings_are_checked_before_the_pilot() {
        let cases = [
            (
                AdaptiveSettings {
                    target: None,
                    ..adaptive()
                },
                SettingsError::NoAdaptiveGoal,
            ),
            (
                AdaptiveSettings {
                    target: Fraction::new(0.0),
                    ..adaptive()
                },
                SettingsError::ZeroTarget,
            ),
            (
                AdaptiveSettings {
                    budget: Some(Seconds(-1.0)),
                    ..adaptive()
                },
                SettingsError::NonPositiveBudget {
                    budget: Seconds(-1.0),
                },
            ),
            (
                AdaptiveSettings {
                    max_units: 1,
                    ..adaptive()
                },
                SettingsError::TooFewUnits { max_units: 1 },
            ),
        ];
        for (a, expected) in cases {
            assert_eq!(a.validate(), Err(expected.clone()));
            let err = run(&a, &PilotSettings::adaptive()).unwrap_err();
            assert!(
                matches!(&err, RunError::Settings(e) if *e == expected),
                "{err:?}"
            );
        }
        // The pilot's counts are checked as the experiment will use them.
        let pilot = PilotSettings {
            iterations: 0,
            ..PilotSettings::adaptive()
        };
        let err = run(&adaptive(), &pilot).unwrap_err();
        assert!(
            matches!(err, RunError::Settings(SettingsError::ZeroIterations)),
            "{err:?}"
        );
        assert!(run(&adaptive(), &PilotSettings::adaptive()).is_ok());
    }

    #[test]
    fn a_dimensioning_pilot_is_checked_with_its_own_counts() {
        let benches = [bench("mean=1ms")];
        let settings = Settings {
            executions: 10,
            ..Settings::default()
        };
        let pilot = PilotSettings {
            executions: 1,
            ..PilotSettings::default()
        };
        let err = dimension(
            &benches,
            &settings,
            0,
            &pilot,
            StopSignal::new(),
            &mut SimulatedExecutor::new(1),
            &mut Quiet,
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                RunError::Settings(SettingsError::TooFewExecutions { executions: 1 })
            ),
            "{err:?}"
        );
    }

    fn run_tied(a: &AdaptiveSettings, step_ns: Option<f64>) -> AdaptiveReport {
        let benches = [Benchmark::new(
            "tied",
            CommandLine::parse("./tied", false).unwrap(),
        )];
        let settings = Settings {
            executions: 10,
            seed: Seed(1),
            ..Settings::default()
        };
        let mut ex = crate::test_support::Tied {
            ns: vec![3.0],
            step_ns,
        };
        run_adaptive(
            &benches,
            &settings,
            0,
            &PilotSettings::adaptive(),
            a,
            StopSignal::new(),
            &mut ex,
            &mut Quiet,
        )
        .unwrap()
    }

    #[test]
    fn tied_samples_give_an_interval_at_the_resolution_not_of_zero_width() {
        let mut b = rigor_stats::HierarchyBuilder::new(["execution", "iteration"]);
        for e in 0..10usize {
            for _ in 0..20 {
                b.push(&[e], 3e-9);
            }
        }
        let h = b.build().unwrap();
        // 20 ns clock step / 1000 evaluations: samples move by 0.02 ns; ± 0.01 ns at least.
        let r = Resolution::per_evaluation(Seconds(20e-9), 1000).unwrap();
        for estimator in [
            rigor_stats::Estimator::Median,
            rigor_stats::Estimator::Min,
            rigor_stats::Estimator::Mean,
        ] {
            let a = AdaptiveSettings {
                estimator,
                ..adaptive()
            };
            let raw = estimator_interval(&h, &a, None).unwrap();
            assert!(
                (raw.upper - raw.lower).abs() < 1e-24 && (raw.lower - 3e-9).abs() < 1e-21,
                "{estimator}: {raw:?}"
            );
            assert!(!raw.at_resolution);
            let i = estimator_interval(&h, &a, Some(r)).unwrap();
            assert!(i.at_resolution, "{estimator}");
            assert!((i.lower - 2.99e-9).abs() < 1e-21, "{estimator}: {i:?}");
            assert!((i.upper - 3.01e-9).abs() < 1e-21, "{estimator}: {i:?}");
            assert!((i.relative_half_width() - 0.01 / 3.0).abs() < 1e-12);
        }
    }

    #[test]
    fn the_adaptive_rule_does_not_stop_on_a_zero_width_interval() {
        // ±0.1% asked of a 3 ns function whose samples move in 0.02 ns steps (±0.33%).
        let a = AdaptiveSettings {
            target: Fraction::new(0.001),
            estimator: rigor_stats::Estimator::Median,
            ..adaptive()
        };
        // Without the resolution the tied samples' zero-width interval "reaches" any target.
        let blind = run_tied(&a, None);
        assert_eq!(blind.reason, StopReason::PrecisionReached);
        assert_eq!(blind.intervals[0].unwrap().relative_half_width(), 0.0);
        // With it, the target is out of reach and the run says why after the pilot.
        let honest = run_tied(&a, Some(0.02));
        assert_eq!(honest.reason, StopReason::Unplannable, "{honest:?}");
        let problem = honest.problem.unwrap();
        assert!(
            problem.contains("within the timer's resolution")
                && problem.contains(
                    "steps of 0.020 ns, so no interval is narrower than ±0.010 ns (±0.333%)"
                ),
            "{problem}"
        );
        let i = honest.intervals[0].unwrap();
        assert!(i.at_resolution);
        assert!(
            (i.relative_half_width() - 0.01 / 3.0).abs() < 1e-12,
            "{i:?}"
        );
        // With a budget the run goes on to it, as precise as the resolution allows, as for a
        // target out of reach of any count (it stopped after the pilot, 1.2 s into 40 s).
        let budgeted = run_tied(
            &AdaptiveSettings {
                budget: Some(Seconds(1.0)),
                ..a
            },
            Some(0.02),
        );
        assert_ne!(budgeted.reason, StopReason::Unplannable, "{budgeted:?}");
        assert!(budgeted.problem.is_none(), "{budgeted:?}");
        assert!(budgeted.units[0] > 10, "{:?}", budgeted.units);
        // A target wider than the resolution is reached, at the resolution.
        for estimator in [rigor_stats::Estimator::Median, rigor_stats::Estimator::Min] {
            let a = AdaptiveSettings {
                estimator,
                ..adaptive()
            };
            let r = run_tied(&a, Some(0.02));
            assert_eq!(r.reason, StopReason::PrecisionReached, "{estimator}");
            let i = r.intervals[0].unwrap();
            assert!(i.at_resolution && i.relative_half_width() > 0.003, "{i:?}");
        }
    }

    /// Runs an adaptive experiment on a simulated benchmark whose first 10 iterations of every
    /// execution take 10 ms and the rest 1 ms, discarding `discard` iterations per execution,
    /// and with `steady_only` as `--discard auto` sets it.
    fn run_warming(discard: usize, steady_only: bool) -> AdaptiveReport {
        let spec = "mean=1ms,execution=2%,iteration=1%,warm=10,slow=9ms,iterations=40";
        let benches = [Benchmark::new(
            "warming",
            CommandLine::parse(spec, false).unwrap(),
        )];
        let settings = Settings {
            executions: 10,
            seed: Seed(3),
            ..Settings::default()
        };
        let pilot = PilotSettings {
            iterations: 40 - discard,
            steady_only,
            ..PilotSettings::adaptive()
        };
        let a = AdaptiveSettings {
            target: Fraction::new(0.005),
            ..adaptive()
        };
        run_adaptive(
            &benches,
            &settings,
            discard,
            &pilot,
            &a,
            StopSignal::new(),
            &mut SimulatedExecutor::new(3),
            &mut Quiet,
        )
        .unwrap()
    }

    /// Each statistic's samples per execution: the mean's and the median's from their own
    /// variance components and the costs (Kalibera & Jones 2013's optimum), the minimum's kept
    /// at the pilot's (iterations vary 30%, executions 5%, a start-up of 50 ms: the mean's
    /// optimum is about √(50 · 30²/5²) = 42 iterations per execution, the median's about
    /// √(50 · (π/2) · 30²/5²) = 53).
    #[test]
    fn each_statistic_plans_samples_per_execution_from_its_own_components() {
        let benches = [bench(
            "mean=1ms,execution=5%,iteration=30%,startup=50ms,iterations=10",
        )];
        let run = |estimator| {
            let a = AdaptiveSettings {
                target: Fraction::new(0.02),
                estimator,
                max_units: 60,
                ..adaptive()
            };
            run_seeded(&benches, 4, &a, &mut SimulatedExecutor::new(4), &mut Quiet)
        };
        let pilot = PilotSettings::adaptive().iterations;
        let mean = run(rigor_stats::Estimator::Mean);
        let m = mean.shape.iterations[0].unwrap();
        assert!((30..=60).contains(&m), "{m} {pilot}");
        assert_eq!(mean.plans[0].as_ref().unwrap().statistic, Estimator::Mean);
        let min = run(rigor_stats::Estimator::Min);
        assert_eq!(min.shape.iterations[0], Some(pilot));
        // The median's count is the closed form on its own components in the last plan.
        let median = run(rigor_stats::Estimator::Median);
        let p = median.plans[0].as_ref().unwrap();
        assert_eq!(p.statistic, Estimator::Median);
        let c = p.median.as_ref().unwrap();
        let closed = ((p.costs[0].get() / p.costs[1].get()) * (c.within / c.between))
            .sqrt()
            .ceil() as usize;
        let k = median.shape.iterations[0].unwrap();
        assert_eq!(k, closed, "{c:?}");
        assert!((35..=80).contains(&k), "{k}");
    }

    /// A median's plan is relative to the median: with a right tail (an exponential extra of
    /// half the mean on every sample) the pilot's median lies well below its mean, and a target
    /// of ±1% of the median asks for more units than ±1% of the mean would.
    #[test]
    fn a_median_plan_is_relative_to_the_median() {
        let benches = [bench(
            "mean=1ms,execution=2%,iteration=5%,tail=500us,startup=5ms,iterations=10",
        )];
        let a = AdaptiveSettings {
            target: Fraction::new(0.01),
            estimator: Estimator::Median,
            max_units: 40,
            ..adaptive()
        };
        let median = run_seeded(&benches, 5, &a, &mut SimulatedExecutor::new(5), &mut Quiet);
        let p = median.plans[0].as_ref().unwrap();
        assert_eq!(p.statistic, Estimator::Median);
        assert!(p.estimate < 0.95 * p.mean, "{} {}", p.estimate, p.mean);
        let level = ConfidenceLevel::NINETY_FIVE;
        let of_median = p
            .top_units_for(Fraction::new(0.01).unwrap(), level, a.quantile)
            .unwrap();
        let of_mean = top_count_for_half_width(&p.plan, 0.01 * p.mean, 0.95, a.quantile).unwrap();
        assert!(of_median > of_mean, "{of_median} {of_mean}");
    }

    #[test]
    fn looks_grow_geometrically_toward_the_planned_count() {
        // From a 10-execution pilot toward a plan of 1,000: 15, 23, 35, 53, 80, 120, …
        let mut n = 10;
        let mut looks = Vec::new();
        while n < 1000 {
            n = look_after(n, 1000);
            looks.push(n);
        }
        assert_eq!(looks[..8], [15, 23, 35, 53, 80, 120, 180, 270], "{looks:?}");
        assert_eq!(looks.len(), 12);
        assert_eq!(*looks.last().unwrap(), 1000);
        // The planned count comes first when it is nearer; a small n still moves on.
        assert_eq!(look_after(100, 120), 120);
        assert_eq!(look_after(10, 11), 11);
        assert_eq!(look_after(1, 1000), 2);
        // A plan already reached (a re-plan that asks for no more): the next round.
        assert_eq!(look_after(50, 40), 51);
    }

    /// Collects how many executions of each benchmark ran.
    #[derive(Default)]
    struct Count(Vec<usize>);
    impl Observer for Count {
        fn execution(&mut self, r: &crate::ExecutionRecord) -> Result<(), RunError> {
            if !r.warmup {
                if self.0.len() <= r.benchmark {
                    self.0.resize(r.benchmark + 1, 0);
                }
                self.0[r.benchmark] += 1;
            }
            Ok(())
        }
    }

    #[test]
    fn a_benchmark_that_reached_the_target_runs_no_more() {
        // A quiet benchmark and a noisy one, the median to ±1%: the quiet one is done after
        // the pilot or an early look, the noisy one runs on alone.
        let benches = [
            bench("mean=1ms,execution=0.5%,iteration=1%,iterations=20,startup=10ms"),
            bench("mean=1ms,execution=4%,iteration=1%,iterations=20,startup=10ms"),
        ];
        let a = median();
        let mut count = Count::default();
        let r = run_seeded(&benches, 8, &a, &mut SimulatedExecutor::new(8), &mut count);
        assert_eq!(r.reason, StopReason::PrecisionReached);
        let [quiet, noisy] = count.0[..] else {
            panic!("{:?}", count.0)
        };
        assert!(quiet <= 15, "{quiet} {noisy}");
        assert!(noisy >= 3 * quiet, "{quiet} {noisy}");
        for i in &r.intervals {
            assert!(i.unwrap().relative_half_width() <= 0.01, "{i:?}");
        }
    }

    /// Records every execution's samples, in order.
    #[derive(Default)]
    struct Samples(Vec<Vec<f64>>);
    impl Observer for Samples {
        fn execution(&mut self, r: &crate::ExecutionRecord) -> Result<(), RunError> {
            if !r.warmup {
                self.0
                    .push(r.outcome.iterations.clone().unwrap_or_default());
            }
            Ok(())
        }
    }

    #[test]
    fn the_median_stops_at_the_first_look_within_the_target() {
        // Executions vary far more than samples: about 100 executions for ±1%, reached through
        // looks 1.5× apart (re-planned at each), the last the first within the target.
        let benches = [bench(
            "mean=1ms,execution=5%,iteration=1%,iterations=20,startup=10ms",
        )];
        let a = median();
        let mut samples = Samples::default();
        let r = run_seeded(
            &benches,
            11,
            &a,
            &mut SimulatedExecutor::new(11),
            &mut samples,
        );
        assert_eq!(r.reason, StopReason::PrecisionReached);
        assert!(r.looks.len() >= 3, "{:?}", r.looks);
        assert_eq!(r.looks[0], 10, "the pilot is the first look");
        assert_eq!(*r.looks.last().unwrap(), samples.0.len());
        for pair in r.looks.windows(2) {
            let grown = (pair[0] as f64 * LOOK_GROWTH).ceil() as usize;
            assert!(pair[1] > pair[0] && pair[1] <= grown, "{:?}", r.looks);
        }
        // The interval the rule saw at each look, from the data measured by then.
        let rel = |n: usize| {
            let groups: Vec<Vec<f64>> = samples.0[..n].to_vec();
            let h = Hierarchy::two_level(["execution", "iteration"], &groups).unwrap();
            estimator_interval(&h, &a, None)
                .unwrap()
                .relative_half_width()
        };
        let (last, earlier) = r.looks.split_last().unwrap();
        assert!(rel(*last) <= 0.01, "{}", rel(*last));
        // The pilot stops only with room to spare; a later look as soon as it is within.
        assert!(rel(10) > 0.01 * margin(10), "{}", rel(10));
        for &n in &earlier[1..] {
            assert!(rel(n) > 0.01, "{n}: {}", rel(n));
        }
    }

    #[test]
    fn a_median_run_with_only_a_budget_re_plans_at_its_looks_and_spends_it() {
        let benches = [bench(
            "mean=1ms,execution=2%,iteration=30%,startup=20ms,iterations=10",
        )];
        let a = AdaptiveSettings {
            target: None,
            budget: Some(Seconds(3.0)),
            ..median()
        };
        let r = run_seeded(
            &benches,
            12,
            &a,
            &mut SimulatedExecutor::new(12),
            &mut Quiet,
        );
        assert_eq!(r.reason, StopReason::BudgetSpent);
        assert!((r.pilot_seconds + r.main_seconds).get() <= 3.2);
        // The samples per execution moved from the pilot's toward the median's optimum.
        assert!(r.shape.iterations[0].unwrap() > 10, "{:?}", r.shape);
    }

    /// Samples of 1 ms ± 0.2% (uniform), of which 3% are preempted (5 ms or more, heavy-tailed),
    /// seeded: the executions' medians agree, their means are skewed by the preemptions each
    /// happened to get.
    struct Preempted(rand_chacha::ChaCha8Rng);

    impl Executor for Preempted {
        fn execute(
            &mut self,
            req: &crate::executor::ExecutionRequest<'_>,
        ) -> Result<crate::executor::ExecutionOutcome, RunError> {
            use rand::Rng;
            let k = req
                .env
                .iter()
                .find(|(k, _)| k == rigor_protocol::ITERATIONS_ENV)
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(20);
            let iterations: Vec<f64> = (0..k)
                .map(|_| {
                    let base = 1e-3 * (1.0 + 0.004 * (self.0.r#gen::<f64>() - 0.5));
                    if self.0.r#gen::<f64>() < 0.03 {
                        // Pareto (α = 1) from 5 ms: a few preemptions are very long.
                        base + 5e-3 / (1.0 - self.0.r#gen::<f64>())
                    } else {
                        base
                    }
                })
                .collect();
            Ok(crate::executor::ExecutionOutcome {
                preempted: None,
                run_delay: None,
                metrics: Default::default(),
                wall: Seconds(iterations.iter().sum::<f64>() + 10e-3),
                user: Seconds::ZERO,
                sys: Seconds::ZERO,
                max_rss: 0,
                termination: crate::executor::Termination::Exited { code: 0 },
                stderr_tail: String::new(),
                iterations: Some(iterations),
                resolution: None,
                iteration_error: None,
            })
        }

        fn build(
            &mut self,
            _: &crate::executor::BuildRequest<'_>,
        ) -> Result<crate::executor::ExecutionOutcome, RunError> {
            unreachable!("no builds here")
        }

        fn run_hook(
            &mut self,
            _: &crate::executor::HookRequest<'_>,
        ) -> Result<crate::executor::ExecutionOutcome, RunError> {
            unreachable!("no hooks here")
        }
    }

    #[test]
    fn a_benchmark_is_not_retired_before_its_skewed_means_have_the_units_they_need() {
        // The median is within ±1% from the pilot on, but the execution means look skewed, and
        // the analysis warns below 20 executions: no look may stop the benchmark before.
        let benches = [Benchmark::new(
            "preempted",
            CommandLine::parse("./preempted", false).unwrap(),
        )];
        for seed in 0..4 {
            let mut samples = Samples::default();
            let mut ex = Preempted(rand::SeedableRng::seed_from_u64(seed));
            let r = run_seeded(&benches, seed, &median(), &mut ex, &mut samples);
            assert_eq!(r.reason, StopReason::PrecisionReached);
            let h = Hierarchy::two_level(["execution", "iteration"], &samples.0).unwrap();
            let rare = rare_modes(&TopUnits::of(&h)).unwrap();
            assert!(
                rare.is_none(),
                "seed {seed}: {} executions, {rare:?}",
                h.units(0)
            );
        }
    }

    #[test]
    fn with_warm_up_discarded_the_plan_costs_a_steady_iteration() {
        // Counting the warm-up in the iterations would make one cost 3.25 ms (130 ms / 40).
        let blended = run_warming(0, false);
        let q = blended.plans[0].as_ref().unwrap();
        assert!(q.costs[1].get() > 3e-3, "{:?}", q.costs);
        // `--discard auto` and `--discard 10` alike: a steady iteration costs 1 ms; the 10
        // warm-up iterations (100 ms) are part of what an execution costs, not of what one more
        // iteration costs.
        for (discard, steady_only) in [(0, true), (10, false)] {
            let r = run_warming(discard, steady_only);
            let p = r.plans[0].as_ref().unwrap();
            let [execution, iteration] = p.costs[..] else {
                panic!("{:?}", p.costs)
            };
            let case = format!("discard {discard}, steady only {steady_only}");
            assert!(
                (iteration.get() - 1e-3).abs() < 0.05e-3,
                "{case}: iteration cost {iteration}"
            );
            assert!(
                execution.get() > 95e-3,
                "{case}: execution cost {execution}"
            );
            assert!((p.mean - 1e-3).abs() < 0.05e-3, "{case}: mean {}", p.mean);
            // The interval judged is of the steady iterations too, as the analysis's will be.
            let i = r.intervals[0].unwrap();
            assert!((i.estimate - 1e-3).abs() < 0.05e-3, "{case}: {i:?}");
            // The warm-up is run on top of the planned (steady) iterations, of which the
            // costs ask for few (about √(100 ms / 1 ms × 1%² / 2%²) = 5).
            assert_eq!(
                p.warmup_iterations,
                if steady_only { 10 } else { 0 },
                "{case}"
            );
            let k = r.shape.iterations[0].unwrap();
            let steady = k - discard - p.warmup_iterations;
            assert!(
                (2..=10).contains(&steady),
                "{case}: {k} iterations per execution"
            );
        }
    }

    #[test]
    fn an_unplannable_pilot_names_the_budget() {
        let e = SettingsError::Unplannable {
            reason: "the pilot could not plan any benchmark: too few units".into(),
            budget: Some(Seconds(5.0)),
        };
        assert_eq!(
            RunError::from(e).to_string(),
            "invalid setting: the pilot could not plan any benchmark: too few units (within a budget of 5.0 s; a larger budget gives it room)"
        );
        let e = SettingsError::Unplannable {
            reason: "no plan".into(),
            budget: None,
        };
        assert_eq!(e.to_string(), "no plan");
    }
}
