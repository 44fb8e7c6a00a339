//! How a run until decided ended, in words: the rule's settings, then one line per candidate
//! with its verdict, its confidence sequence and why it stopped (`rigor run --until-decided`,
//! and `rigor analyze` of its saved result).

use std::fmt::Write as _;

use rigor_stats::compare::Verdict;
use rigor_units::Seconds;

use crate::comparison::{Kind, interval_words, ratio_words, verdict_word};
use crate::format::percent;

/// Why a candidate stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Its sequence decided.
    Decided,
    /// The budget was spent.
    Budget,
    /// The round limit was reached.
    MaxRounds,
    /// The user stopped the run.
    Interrupted,
    /// A failure stopped it.
    Failed,
}

/// One candidate's ending.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionView {
    /// The candidate's name.
    pub candidate: String,
    /// The reference's name.
    pub reference: String,
    /// Different commands, or versions of one program.
    pub kind: Kind,
    /// Why it stopped.
    pub stop: Stop,
    /// Rounds it ran.
    pub rounds: usize,
    /// The ratio candidate / reference at its last look.
    pub ratio: f64,
    /// The sequence's bounds, when bounded.
    pub bounds: Option<(f64, f64)>,
    /// The verdict at its last look.
    pub verdict: Verdict,
    /// The error rate it used.
    pub alpha: f64,
}

/// What the run measured, as the note's first line ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ran {
    /// A run that just ended: its rounds and measured time.
    Now {
        /// Rounds run.
        rounds: usize,
        /// Measured time.
        seconds: Seconds,
    },
    /// A saved result: the most rounds a candidate ran.
    Saved {
        /// Rounds run.
        rounds: usize,
    },
}

/// A run until decided, as its note shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct DecidedView {
    /// The error rate shared by the candidates.
    pub alpha: f64,
    /// Candidates (each used α/K).
    pub candidates: usize,
    /// δ.
    pub threshold: f64,
    /// Rounds before the first look, and the most rounds (unknown for a file without settings).
    pub rounds: Option<(usize, usize)>,
    /// Measured-time budget.
    pub budget: Option<Seconds>,
    /// What was measured.
    pub ran: Ran,
    /// Each candidate's ending.
    pub decisions: Vec<DecisionView>,
}

/// "Until decided: confidence sequence …, α = …, δ = ±…, first look after …"
fn opening(v: &DecidedView) -> String {
    let k = v.candidates;
    let share = if k > 1 {
        format!(
            " shared by {k} candidates ({} each)",
            percent(100.0 * v.alpha / k as f64)
        )
    } else {
        String::new()
    };
    let rounds = v.rounds.map_or(String::new(), |(min, max)| {
        format!(", first look after {min} rounds, at most {max} rounds")
    });
    let budget = v.budget.map_or(String::new(), |b| format!(", budget {b}"));
    format!(
        "Until decided: confidence sequence on the paired round ratios, α = {}{share}, \
         δ = ±{}{rounds}{budget}",
        percent(100.0 * v.alpha),
        percent(100.0 * v.threshold),
    )
}

/// How one candidate ended: its verdict, in the words the comparisons use for its `kind`
/// ("regression" for versions of one program, "slower" for different commands), the change
/// and its sequence ("new is 3.6% slower than old, sequence +2.3% .. +4.9%"), and why it
/// stopped.
fn decision_line(d: &DecisionView) -> String {
    let verdict = match d.verdict {
        v @ (Verdict::Regression | Verdict::Improvement) => verdict_word(d.kind, v),
        Verdict::Equivalent => "equivalent".to_string(),
        _ => "inconclusive".to_string(),
    };
    let (amount, _) = ratio_words(d.ratio, None, 1.0 - d.alpha);
    let sequence = d
        .bounds
        .and_then(|bounds| interval_words(d.ratio, Some(bounds)))
        .map_or("no sequence yet".to_string(), |i| format!("sequence {i}"));
    let said = format!(
        "{verdict} ({} is {amount} than {}, {sequence})",
        d.candidate, d.reference
    );
    let rounds = d.rounds;
    match d.stop {
        Stop::Decided => format!("decided: {said} after {rounds} rounds"),
        Stop::Budget => {
            format!("budget reached after {rounds} rounds: {said}; a larger --budget may decide it")
        }
        Stop::MaxRounds => format!(
            "round limit reached after {rounds} rounds: {said}; a larger --max-runs may decide it"
        ),
        Stop::Interrupted => format!("interrupted after {rounds} rounds: {said}"),
        Stop::Failed => format!("stopped after {rounds} rounds by a failure: {said}"),
    }
}

/// The note: the rule's settings and what was measured, then one line per candidate.
pub fn render(v: &DecidedView) -> String {
    let mut out = match v.ran {
        Ran::Now { rounds, seconds } => format!(
            "{}; {rounds} rounds run, {seconds} of measured time.\n",
            opening(v)
        ),
        Ran::Saved { rounds } => format!("{}; {rounds} rounds run (as saved).\n", opening(v)),
    };
    for d in &v.decisions {
        let _ = writeln!(out, "  {}", decision_line(d));
    }
    // The stopping rule's selection bias, said where the figure is read (docs/limitations.md).
    let stopped_on_a_change = v.decisions.iter().any(|d| {
        d.stop == Stop::Decided && matches!(d.verdict, Verdict::Regression | Verdict::Improvement)
    });
    if stopped_on_a_change {
        let _ = writeln!(
            out,
            "  the figure beside a change decided early overstates it: a run stops first where \
             its early rounds happened to differ most; the sequence, not the figure, holds the \
             true ratio (a run of fixed length, --runs N, estimates it without this bias)"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_candidate_says_its_verdict_its_sequence_and_why_it_stopped() {
        let view = DecidedView {
            alpha: 0.05,
            candidates: 1,
            threshold: 0.01,
            rounds: None,
            budget: None,
            ran: Ran::Saved { rounds: 12 },
            decisions: vec![DecisionView {
                candidate: "b".into(),
                reference: "a".into(),
                kind: Kind::Commands,
                stop: Stop::MaxRounds,
                rounds: 12,
                ratio: 1.0,
                bounds: None,
                verdict: Verdict::Inconclusive,
                alpha: 0.05,
            }],
        };
        let text = render(&view);
        assert!(
            text.starts_with("Until decided: confidence sequence"),
            "{text}"
        );
        assert!(text.contains("; 12 rounds run (as saved).\n"), "{text}");
        assert!(
            text.contains("round limit reached after 12 rounds: inconclusive (b is"),
            "{text}"
        );
        assert!(text.contains("no sequence yet"), "{text}");
        assert!(!text.contains("overstates"), "{text}");
    }

    #[test]
    fn a_change_decided_early_is_said_to_be_overstated_by_its_figure() {
        let decision = |stop, verdict| DecisionView {
            candidate: "b".into(),
            reference: "a".into(),
            kind: Kind::Versions,
            stop,
            rounds: 11,
            ratio: 1.12,
            bounds: Some((1.02, 1.22)),
            verdict,
            alpha: 0.05,
        };
        let view = |d| DecidedView {
            alpha: 0.05,
            candidates: 1,
            threshold: 0.01,
            rounds: Some((8, 200)),
            budget: None,
            ran: Ran::Saved { rounds: 11 },
            decisions: vec![d],
        };
        let decided = render(&view(decision(Stop::Decided, Verdict::Regression)));
        assert!(
            decided.contains("the figure beside a change decided early overstates it"),
            "{decided}"
        );
        // Equivalence, or a change that only the round limit ended, is not a stop on a change.
        for (stop, verdict) in [
            (Stop::Decided, Verdict::Equivalent),
            (Stop::MaxRounds, Verdict::Regression),
        ] {
            let text = render(&view(decision(stop, verdict)));
            assert!(!text.contains("overstates"), "{text}");
        }
    }
}
