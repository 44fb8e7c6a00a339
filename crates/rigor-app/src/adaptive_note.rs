//! An adaptive run's note (`rigor run --precision`/`--budget`), from what the runner did: why it
//! stopped, the counts it used, where each interval ended against the target and what the
//! latest plan asks for it.

use rigor_report::adaptive::{
    AdaptiveView, BoundsView, CountsView, EstimatorView, FewView, NeededView, TargetLine,
    TargetView, UnreachedView, Why,
};
use rigor_runner::AdaptiveReport;
use rigor_units::Seconds;

use crate::run::AdaptiveOutcome;
use crate::settings::{Mode, RunSettings};

/// The top-level units in all benchmark `i`'s latest plan puts the target at, with the measured
/// time those not yet measured would take at the plan's cost per unit.
fn needed_more(report: &AdaptiveReport, i: usize) -> Option<NeededView> {
    let units = match report.needed.get(i).copied().flatten()? {
        rigor_runner::Needed::Units(units) => units,
        rigor_runner::Needed::OutOfReach => return Some(NeededView::OutOfReach),
    };
    let plan = report.plans.get(i)?.as_ref().ok()?;
    let measured = report.units.get(i).copied().unwrap_or(0);
    let more = units.saturating_sub(measured) as f64 * plan.top_unit_cost().get();
    Some(NeededView::Units(units, Seconds::new(more)))
}

/// An adaptive run of executions that ended with fewer than it takes to see a slow mode of one
/// execution in five with 95% probability: the pilot alone (10) can stop a run, and a program
/// slow one run in eight, missed by it, stopped "reached" at ±0.4% a quarter below its mean.
fn few_executions(builds: bool, report: &AdaptiveReport) -> Option<FewView> {
    use rigor_stats::top_means::{
        RARE_MODE_PROBABILITY, RARE_MODE_SHARE, SKEWED_UNITS_NEEDED, miss_probability,
        units_to_see_mode,
    };
    let to_see_mode = units_to_see_mode(RARE_MODE_SHARE, RARE_MODE_PROBABILITY).ok()?;
    let units = report.units.iter().copied().filter(|&u| u > 0).min()?;
    (!builds && units < to_see_mode).then(|| FewView {
        units,
        miss_probability: miss_probability(RARE_MODE_SHARE, units),
        to_see_mode,
        needed: SKEWED_UNITS_NEEDED,
    })
}

/// An adaptive run's note, from what it did (`interrupted`: the user stopped it).
pub(crate) fn adaptive_view(
    s: &RunSettings,
    outcome: &AdaptiveOutcome,
    interrupted: bool,
) -> AdaptiveView {
    use rigor_runner::StopReason;
    let (report, pilot) = (&outcome.report, &outcome.pilot);
    let why = match report.reason {
        StopReason::PrecisionReached => Why::PrecisionReached,
        StopReason::BudgetSpent if report.planned_top == 0 => Why::BudgetSpentInPilot,
        StopReason::BudgetSpent => Why::BudgetSpent,
        StopReason::PrecisionNotReached => Why::PrecisionNotReached,
        StopReason::Unplannable => Why::Unplannable,
        StopReason::Ended if interrupted => Why::Interrupted,
        StopReason::Ended => Why::Ended,
    };
    let builds = s.runner.build.is_some();
    let discard = s.discard.fixed();
    let counts = s
        .benchmarks
        .iter()
        .zip(&report.shape.iterations)
        .zip(&report.plans)
        .map(|((b, k), plan)| {
            let reports_iterations = plan.as_ref().is_ok_and(|p| {
                p.levels
                    .iter()
                    .any(|l| l == rigor_store::LevelKind::Iteration.name())
            });
            let iterations = k.filter(|_| reports_iterations).map(|k| {
                let warm = plan.as_ref().map_or(0, |p| p.warmup_iterations);
                (k.saturating_sub(discard + warm), warm)
            });
            CountsView {
                name: b.name.clone(),
                iterations,
            }
        })
        .collect();
    let estimator = s.comparison.estimator;
    let estimator = (estimator != rigor_stats::Estimator::Mean).then(|| {
        let intervals = s
            .benchmarks
            .iter()
            .zip(&report.intervals)
            .map(|(b, i)| {
                let view = i.as_ref().map(|i| BoundsView {
                    estimate: Seconds::new(i.estimate),
                    lower: Seconds::new(i.lower),
                    upper: Seconds::new(i.upper),
                    relative_half_width: i.relative_half_width(),
                    at_resolution: i.at_resolution,
                });
                (b.name.clone(), view)
            })
            .collect();
        EstimatorView {
            estimator,
            level: s.analysis.confidence,
            intervals,
            looks: report.looks.clone(),
        }
    });
    // Stopped by the user, too, it says where each interval ended against the target (as the
    // README promises of a run cut short; it had said only "the run ended").
    let unreached = (matches!(
        report.reason,
        StopReason::Unplannable | StopReason::PrecisionNotReached | StopReason::BudgetSpent
    ) || why == Why::Interrupted)
        .then(|| {
            let target = match &s.mode {
                Mode::Adaptive {
                    precision: Some(target),
                    budget,
                    ..
                } => Some(TargetView {
                    target: *target,
                    budget: *budget,
                    max_units: outcome.max_units,
                    pilot_only: report.planned_top == 0,
                    benchmarks: s
                        .benchmarks
                        .iter()
                        .enumerate()
                        .map(|(i, b)| TargetLine {
                            name: b.name.clone(),
                            reached: report
                                .intervals
                                .get(i)
                                .copied()
                                .flatten()
                                .map(|i| i.relative_half_width()),
                            reachable: outcome.reachable.get(i).copied().flatten(),
                            needed: needed_more(report, i),
                        })
                        .collect(),
                }),
                _ => None,
            };
            UnreachedView {
                problem: report.problem.clone(),
                target,
            }
        });
    AdaptiveView {
        why,
        builds,
        pilot_top: if builds {
            pilot.builds
        } else {
            pilot.executions
        },
        pilot_seconds: report.pilot_seconds,
        main_seconds: report.main_seconds,
        planned_top: report.planned_top,
        per_build: report.shape.executions,
        counts,
        estimator,
        unreached,
        max_units: outcome.max_units,
        few: few_executions(builds, report),
    }
}
