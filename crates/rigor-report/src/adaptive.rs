//! What an adaptive run did, in words: why it stopped, what it spent, the counts it planned,
//! the interval the rule judged when it is not the mean's, and what a target out of reach could
//! be replaced by.

use rigor_stats::Estimator;
use rigor_units::{ConfidenceLevel, Fraction, Seconds};

use crate::format::{percent, time};

/// Why an adaptive run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// The target precision was reached.
    PrecisionReached,
    /// The budget was spent during the pilot.
    BudgetSpentInPilot,
    /// The budget was spent.
    BudgetSpent,
    /// The planned units ran without reaching the target.
    PrecisionNotReached,
    /// The pilot could not plan the experiment.
    Unplannable,
    /// The user stopped it (Ctrl-C, SIGTERM).
    Interrupted,
    /// The run ended otherwise.
    Ended,
}

/// A benchmark's counts at the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountsView {
    /// The benchmark.
    pub name: String,
    /// Steady iterations per execution and the warm-up iterations before them, when the
    /// benchmark reports iterations.
    pub iterations: Option<(usize, usize)>,
}

/// The interval of the statistic the rule judged, for one benchmark.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundsView {
    /// The estimate.
    pub estimate: Seconds,
    /// Lower bound.
    pub lower: Seconds,
    /// Upper bound.
    pub upper: Seconds,
    /// The half-width relative to the estimate.
    pub relative_half_width: f64,
    /// Widened to the timer's resolution.
    pub at_resolution: bool,
}

/// The target of a run that stopped short of its planned end, and where each benchmark stands
/// against it.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetView {
    /// The target relative half-width.
    pub target: Fraction,
    /// The measured-time budget.
    pub budget: Option<Seconds>,
    /// The unit cap the prediction assumes.
    pub max_units: usize,
    /// Whether the run stopped after its pilot: the note then gives the pilot's predictions
    /// ([`TargetLine::reachable`]); after it, each interval at the end and what the latest plan
    /// asks for ([`TargetLine::reached`], [`TargetLine::needed`]).
    pub pilot_only: bool,
    /// Each benchmark.
    pub benchmarks: Vec<TargetLine>,
}

/// One benchmark against the target.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetLine {
    /// The benchmark.
    pub name: String,
    /// The relative half-width of the interval the rule judged, at the end (`None`: no interval).
    pub reached: Option<f64>,
    /// The relative half-width the pilot's plan predicts within the unit cap and the budget
    /// (`None`: not predictable).
    pub reachable: Option<f64>,
    /// What the latest plan asks for the target (`None`: not predictable).
    pub needed: Option<NeededView>,
}

/// What a benchmark's latest plan asks for the target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NeededView {
    /// This many top-level units in all, and the measured time those not yet measured would
    /// take.
    Units(usize, Seconds),
    /// No count within the planner's reach (or the timer's resolution) gets there.
    OutOfReach,
}

impl TargetView {
    /// Whether every benchmark's interval at the end is within the target.
    pub fn all_reached(&self) -> bool {
        !self.benchmarks.is_empty()
            && self
                .benchmarks
                .iter()
                .all(|b| b.reached.is_some_and(|r| r <= self.target.get()))
    }
}

/// The statistic the rule judged, when it is not the mean.
#[derive(Debug, Clone, PartialEq)]
pub struct EstimatorView {
    /// The statistic.
    pub estimator: Estimator,
    /// Confidence level of the intervals.
    pub level: ConfidenceLevel,
    /// Each benchmark's interval (`None`: too few units).
    pub intervals: Vec<(String, Option<BoundsView>)>,
    /// The top-level units at which the rule looked at the intervals (the pilot's end first):
    /// each benchmark ran until the first look its interval was within the target.
    pub looks: Vec<usize>,
}

/// Why the target was not reached.
#[derive(Debug, Clone, PartialEq)]
pub struct UnreachedView {
    /// The planner's problem, if it had one.
    pub problem: Option<String>,
    /// The target, with what is reachable instead.
    pub target: Option<TargetView>,
}

/// An adaptive run, as its note shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct AdaptiveView {
    /// Why it stopped.
    pub why: Why,
    /// Whether builds are the top level (else executions).
    pub builds: bool,
    /// The pilot's top-level units.
    pub pilot_top: usize,
    /// Measured time of the pilot.
    pub pilot_seconds: Seconds,
    /// Measured time after it.
    pub main_seconds: Seconds,
    /// Top-level units first planned (0: none).
    pub planned_top: usize,
    /// Executions per build, with builds.
    pub per_build: Option<usize>,
    /// Each benchmark's counts.
    pub counts: Vec<CountsView>,
    /// The statistic the rule judged, when it is not the mean.
    pub estimator: Option<EstimatorView>,
    /// Why the target was not reached (when it was not).
    pub unreached: Option<UnreachedView>,
    /// The most top-level units the run could reach (`--max-runs`).
    pub max_units: usize,
    /// When it ended with fewer executions than see a rare mode: how few.
    pub few: Option<FewView>,
}

/// An adaptive run that ended with fewer executions than it takes to see a slow mode of one
/// execution in five: its interval is what it saw, and it may not have seen one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FewView {
    /// The fewest executions any benchmark ended with.
    pub units: usize,
    /// The probability that so many miss a mode of one execution in five.
    pub miss_probability: f64,
    /// Executions that see such a mode with 95% probability.
    pub to_see_mode: usize,
    /// Executions rigor's warnings ask for on skewed or multimodal means (the default length).
    pub needed: usize,
}

/// The note.
pub fn render(v: &AdaptiveView) -> String {
    let why = match v.why {
        Why::PrecisionReached => "the target precision was reached",
        Why::BudgetSpentInPilot => {
            "the time budget was spent during the pilot (a larger budget lets rigor plan)"
        }
        Why::BudgetSpent if reached_anyway(v) => {
            "the time budget was spent, with every interval within the target"
        }
        Why::BudgetSpent => "the time budget was spent",
        Why::PrecisionNotReached => "the planned units ran without reaching the target",
        Why::Unplannable => "the experiment could not be planned from the pilot",
        Why::Interrupted => "it was interrupted",
        Why::Ended => "the run ended",
    };
    let units = if v.builds { "builds" } else { "executions" };
    let mut note = format!(
        "Adaptive run: stopped because {why}. Measured time: pilot ({} {units}, kept in the \
         results) {}",
        v.pilot_top, v.pilot_seconds,
    );
    if v.main_seconds > Seconds::ZERO {
        note.push_str(&format!(" + {} after it", v.main_seconds));
    }
    note.push('.');
    if v.planned_top > 0 {
        // The pilot's plan, or the cap where it put the target beyond it (a bare "10000" read
        // as a plan that later plans contradicted).
        let first = if v.planned_top >= v.max_units {
            format!(
                "The pilot put the target beyond --max-runs {} {units}, so the run aimed at the \
                 cap",
                v.max_units
            )
        } else {
            format!("The pilot planned {} {units} in all", v.planned_top)
        };
        note.push_str(&format!(
            " {first}.\nCounts in use at the end (from the latest plan):\n{}",
            counts(v).join("\n")
        ));
    }
    if let Some(e) = &v.estimator {
        note.push_str(&estimator_note(e, units));
    }
    if let Some(f) = v.few {
        note.push_str(&format!(
            "\nIt ended with {} executions: so few miss a slow mode of one execution in five \
             with probability {}, and no interval shows a mode it never saw. --min-runs {} \
             makes the pilot see such a mode with 95% probability ({} is what rigor's warnings \
             ask for on skewed or multimodal means).",
            f.units,
            percent(100.0 * f.miss_probability),
            f.to_see_mode,
            f.needed
        ));
    }
    if let Some(UnreachedView { problem, target }) = &v.unreached {
        if let Some(problem) = problem {
            note.push_str(&format!(
                "\nThe pilot's data are the result above (the planner: {problem})."
            ));
        }
        if let Some(t) = target {
            note.push_str(&reachable_note(t, units));
        }
    }
    note
}

fn counts(v: &AdaptiveView) -> Vec<String> {
    let per_build = v.per_build.map(|e| format!("{e} execution(s) per build"));
    v.counts
        .iter()
        .map(|c| {
            let mut counts: Vec<String> = per_build.iter().cloned().collect();
            if let Some((k, warm)) = c.iterations {
                let mut text = format!("{k} iteration(s) per execution");
                if warm > 0 {
                    text.push_str(&format!(" after {warm} warm-up"));
                }
                counts.push(text);
            }
            if counts.is_empty() {
                counts.push("top level only".into());
            }
            format!("  {}: {}", c.name, counts.join(", "))
        })
        .collect()
}

/// The interval the rule judged, when it is not the mean's (shown in the summary above): the
/// estimator, its bootstrap interval over the top level, and the relative half-width.
fn estimator_note(e: &EstimatorView, top: &str) -> String {
    let estimator = e.estimator;
    let mut out = format!(
        "\nThe target applies to the {estimator} (--estimator {estimator}); its {} interval, \
         from a bootstrap that resamples whole {top}:",
        percent(100.0 * e.level.get())
    );
    for (name, i) in &e.intervals {
        match i {
            Some(i) => out.push_str(&format!(
                "\n  {name}: {estimator} {} [{}, {}] (± {}){}",
                time(i.estimate.get()),
                time(i.lower.get()),
                time(i.upper.get()),
                percent(100.0 * i.relative_half_width),
                if i.at_resolution {
                    ", at the timer's resolution"
                } else {
                    ""
                }
            )),
            None => out.push_str(&format!("\n  {name}: too few {top} for an interval")),
        }
    }
    if !e.looks.is_empty() {
        let looks: Vec<String> = e.looks.iter().map(ToString::to_string).collect();
        out.push_str(&format!(
            "\nLooked at the intervals after {} {top}; each benchmark ran until the first look \
             within the target.",
            looks.join(", ")
        ));
    }
    out
}

/// A target precision in per cent as given (0.001), not rounded to the display's precision;
/// one too small for six decimals in scientific notation (1e-298), never as hundreds of digits.
fn target_text(percent: f64) -> String {
    if percent != 0.0 && percent.abs() < 1e-6 {
        // Six significant digits, without the noise of the ×100 (1.0000000000000001e-298).
        let text = format!("{percent:.5e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
        return format!("{mantissa}e{exponent}");
    }
    format!("{percent:.6}")
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_string()
}

/// Whether a run that spent its budget ended with every interval within the target (the mean's
/// rule looks at the interval only at its planned count, which the budget came before).
fn reached_anyway(v: &AdaptiveView) -> bool {
    v.unreached
        .as_ref()
        .and_then(|u| u.target.as_ref())
        .is_some_and(|t| !t.pilot_only && t.all_reached())
}

/// Where each benchmark stands against the target: after the pilot alone, the precision the
/// cap and budget can reach; after more, each interval at the end and, where it is short of
/// the target, the units the latest plan puts the target at.
fn reachable_note(t: &TargetView, units: &str) -> String {
    let target = format!("±{}%", target_text(100.0 * t.target.get()));
    if !t.pilot_only {
        let mut out = format!("\nTarget {target}; each interval at the end:");
        for b in &t.benchmarks {
            out.push_str(&format!("\n  {}: ", b.name));
            match b.reached {
                Some(r) if r <= t.target.get() => {
                    out.push_str(&format!("±{}, within the target", percent(100.0 * r)));
                }
                Some(r) => out.push_str(&format!("±{}, short of it", percent(100.0 * r))),
                None => out.push_str("no interval"),
            }
            if b.reached.is_some_and(|r| r <= t.target.get()) {
                continue;
            }
            match b.needed {
                Some(NeededView::Units(n, more)) => {
                    out.push_str(&format!(
                        "; the latest plan puts {target} at about {n} {units} in all ({} more of \
                         measured time",
                        time(more.get())
                    ));
                    if n > t.max_units {
                        out.push_str(&format!(", beyond --max-runs {}", t.max_units));
                    }
                    out.push(')');
                }
                Some(NeededView::OutOfReach) => {
                    out.push_str("; the latest plan puts it out of reach of any count");
                }
                None => {}
            }
        }
        return out;
    }
    let within = match t.budget {
        Some(b) => format!("--max-runs {} and a budget of {b}", t.max_units),
        None => format!("--max-runs {}", t.max_units),
    };
    let mut out = format!("\nTarget {target}; the pilot predicts within {within}:");
    for b in &t.benchmarks {
        match b.reachable {
            Some(r) => out.push_str(&format!("\n  {}: about ±{}", b.name, percent(100.0 * r))),
            None => out.push_str(&format!("\n  {}: not predictable from the pilot", b.name)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spent(lines: Vec<TargetLine>) -> AdaptiveView {
        AdaptiveView {
            why: Why::BudgetSpent,
            builds: false,
            pilot_top: 10,
            pilot_seconds: Seconds::new(1.0),
            main_seconds: Seconds::new(39.0),
            planned_top: 156,
            per_build: None,
            counts: Vec::new(),
            estimator: None,
            max_units: 10_000,
            few: None,
            unreached: Some(UnreachedView {
                problem: None,
                target: Some(TargetView {
                    target: Fraction::new(0.02).unwrap(),
                    budget: Some(Seconds::new(40.0)),
                    max_units: 10_000,
                    pilot_only: false,
                    benchmarks: lines,
                }),
            }),
        }
    }

    fn line(name: &str, reached: f64, needed: Option<NeededView>) -> TargetLine {
        TargetLine {
            name: name.into(),
            reached: Some(reached),
            reachable: Some(0.16),
            needed,
        }
    }

    /// A run that stopped on 10 executions says a slow mode could have been missed (a program
    /// slow one run in eight, missed by the pilot, stopped "reached" at ±0.4% a quarter below
    /// its mean), and a first plan at the cap reads as the cap.
    #[test]
    fn a_run_that_ended_on_few_executions_says_what_it_may_have_missed() {
        let mut v = spent(Vec::new());
        v.why = Why::PrecisionReached;
        v.unreached = None;
        v.planned_top = 10_000;
        v.few = Some(FewView {
            units: 10,
            miss_probability: 0.107,
            to_see_mode: 14,
            needed: 20,
        });
        let note = render(&v);
        assert!(
            note.contains(
                "It ended with 10 executions: so few miss a slow mode of one execution \
                 in five with probability 11%"
            ),
            "{note}"
        );
        assert!(note.contains("--min-runs 14 makes the pilot see"), "{note}");
        assert!(
            note.contains(
                "The pilot put the target beyond --max-runs 10000 executions, so the run \
                 aimed at the cap."
            ),
            "{note}"
        );
        assert!(!note.contains("First planned"), "{note}");
    }

    #[test]
    fn a_budget_spent_within_the_target_says_so() {
        let v = spent(vec![line(
            "a",
            0.019,
            Some(NeededView::Units(156, Seconds::new(3.0))),
        )]);
        let note = render(&v);
        assert!(
            note.contains(
                "stopped because the time budget was spent, with every interval within the target."
            ),
            "{note}"
        );
        assert!(note.contains("\n  a: ±1.9%, within the target"), "{note}");
        // Neither the plan's count nor a prediction from scratch for the budget spent.
        assert!(!note.contains("latest plan puts"), "{note}");
        assert!(!note.contains("16%"), "{note}");
    }

    #[test]
    fn a_budget_spent_short_of_the_target_says_what_it_would_take() {
        let v = spent(vec![
            line("a", 0.019, None),
            line("b", 0.031, Some(NeededView::Units(240, Seconds::new(84.0)))),
            line(
                "d",
                0.04,
                Some(NeededView::Units(12_000, Seconds::new(900.0))),
            ),
            line("c", 0.05, Some(NeededView::OutOfReach)),
        ]);
        let note = render(&v);
        assert!(
            note.contains("stopped because the time budget was spent. Measured"),
            "{note}"
        );
        assert!(
            note.contains(
                "\n  b: ±3.1%, short of it; the latest plan puts ±2% at about 240 executions in \
                 all (84.00 s more of measured time)"
            ),
            "{note}"
        );
        assert!(
            note.contains("\n  c: ±5.0%, short of it; the latest plan puts it out of reach"),
            "{note}"
        );
        assert!(
            note.contains(
                "about 12000 executions in all (900.0 s more of measured time, beyond \
                 --max-runs 10000)"
            ),
            "{note}"
        );
    }

    #[test]
    fn targets_are_written_as_given_and_tiny_ones_without_hundreds_of_digits() {
        assert_eq!(target_text(1.0), "1");
        assert_eq!(target_text(0.001), "0.001");
        assert_eq!(target_text(1e-298), "1e-298");
        assert_eq!(target_text(100.0 * 1e-300), "1e-298");
        assert_eq!(target_text(2.5e-9), "2.5e-9");
        assert_eq!(target_text(0.0), "0");
    }
}
