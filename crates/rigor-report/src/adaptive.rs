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

/// The target that was not reached and what the pilot predicts instead.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetView {
    /// The target relative half-width.
    pub target: Fraction,
    /// The measured-time budget.
    pub budget: Option<Seconds>,
    /// The unit cap the prediction assumes.
    pub max_units: usize,
    /// Per benchmark, the relative half-width predicted (`None`: not predictable).
    pub reachable: Vec<(String, Option<f64>)>,
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
}

/// The note.
pub fn render(v: &AdaptiveView) -> String {
    let why = match v.why {
        Why::PrecisionReached => "the target precision was reached",
        Why::BudgetSpentInPilot => {
            "the time budget was spent during the pilot (a larger budget lets rigor plan)"
        }
        Why::BudgetSpent => "the time budget was spent",
        Why::PrecisionNotReached => "the planned units ran without reaching the target",
        Why::Unplannable => "the experiment could not be planned from the pilot",
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
        note.push_str(&format!(
            " First planned {} {units} in all.\nCounts in use at the end (from the latest \
             plan):\n{}",
            v.planned_top,
            counts(v).join("\n")
        ));
    }
    if let Some(e) = &v.estimator {
        note.push_str(&estimator_note(e, units));
    }
    if let Some(UnreachedView { problem, target }) = &v.unreached {
        if let Some(problem) = problem {
            note.push_str(&format!(
                "\nThe pilot's data are the result above (the planner: {problem})."
            ));
        }
        if let Some(t) = target {
            note.push_str(&reachable_note(t));
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

/// What precision the cap and budget can reach, per benchmark.
fn reachable_note(t: &TargetView) -> String {
    let within = match t.budget {
        Some(b) => format!("--max-runs {} and a budget of {b}", t.max_units),
        None => format!("--max-runs {}", t.max_units),
    };
    let mut out = format!(
        "\nTarget ±{}%; the pilot predicts within {within}:",
        target_text(100.0 * t.target.get())
    );
    for (name, r) in &t.reachable {
        match r {
            Some(r) => out.push_str(&format!("\n  {name}: about ±{}", percent(100.0 * r))),
            None => out.push_str(&format!("\n  {name}: not predictable from the pilot")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
