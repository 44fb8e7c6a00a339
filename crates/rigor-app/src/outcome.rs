//! The one rule from what a use case found to how it ended ([`Outcome`], the exit status):
//! interrupted, else failed, else `--fail-on` matched, else fine.

use rigor_stats::compare::Verdict;

use crate::settings::FailOn;

/// A verdict for each comparison that was asked for and could not be made
/// ([`Warning::NotCompared`](rigor_store::Warning::NotCompared)): unbounded, as a comparison
/// whose interval has no bound. `--fail-on inconclusive` then fails on it (it did not show the
/// two alike): a gate that could not look at a pair passed it, with 2 executions a side.
pub fn not_compared(warnings: &[rigor_store::Warning]) -> impl Iterator<Item = Verdict> + '_ {
    warnings
        .iter()
        .filter(|w| matches!(w, rigor_store::Warning::NotCompared { .. }))
        .map(|_| Verdict::Unbounded)
}

/// How a use case ended, for the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything ran and nothing matched `--fail-on`.
    Ok,
    /// A benchmark failed.
    Failed,
    /// The user stopped it (Ctrl-C); the data measured so far is kept.
    Interrupted,
    /// `--fail-on` matched.
    Gated,
    /// The question had no answer (a `track bisect` that could not name the changed version,
    /// nor show the ends alike): exit status 1, as an undecided comparison under `--fail-on`.
    Undecided,
}

impl Outcome {
    /// The graver of two outcomes, by the rule's order (interrupted, failed, gated, fine): how
    /// a command that ran a use case several times (once per `--metric`) ended.
    pub fn worst(self, other: Self) -> Self {
        let rank = |o: Self| match o {
            Self::Interrupted => 3,
            Self::Failed => 2,
            Self::Gated | Self::Undecided => 1,
            Self::Ok => 0,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }
}

/// What a use case found that its outcome depends on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Findings {
    /// The user stopped it.
    pub interrupted: bool,
    /// A benchmark failed or measured nothing.
    pub failed: bool,
    /// Every verdict shown.
    pub verdicts: Vec<Verdict>,
    /// A warning was shown (about the data, the analysis or the run).
    pub warned: bool,
}

impl Findings {
    /// The outcome under `fail_on`: interrupted, else failed, else gated when the rule matches
    /// a verdict (or, for [`FailOn::Warning`], any warning).
    pub fn outcome(&self, fail_on: Option<FailOn>) -> Outcome {
        let gated = match fail_on {
            None => false,
            Some(FailOn::Warning) => self.warned,
            Some(rule) => self.verdicts.iter().any(|v| rule.fails_on(*v)),
        };
        if self.interrupted {
            Outcome::Interrupted
        } else if self.failed {
            Outcome::Failed
        } else if gated {
            Outcome::Gated
        } else {
            Outcome::Ok
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_of_several_outcomes_follows_the_rule() {
        use Outcome::*;
        assert_eq!(Ok.worst(Gated), Gated);
        assert_eq!(Gated.worst(Failed), Failed);
        assert_eq!(Interrupted.worst(Failed), Interrupted);
        assert_eq!(Ok.worst(Ok), Ok);
    }

    #[test]
    fn interruption_then_failure_then_the_rule_decide() {
        let f = Findings {
            interrupted: true,
            failed: true,
            verdicts: vec![Verdict::Regression],
            warned: true,
        };
        assert_eq!(f.outcome(Some(FailOn::Regression)), Outcome::Interrupted);
        let f = Findings {
            interrupted: false,
            ..f
        };
        assert_eq!(f.outcome(Some(FailOn::Regression)), Outcome::Failed);
        let f = Findings { failed: false, ..f };
        assert_eq!(f.outcome(None), Outcome::Ok);
        assert_eq!(f.outcome(Some(FailOn::Regression)), Outcome::Gated);
        assert_eq!(f.outcome(Some(FailOn::Warning)), Outcome::Gated);
        let quiet = Findings {
            warned: false,
            verdicts: vec![Verdict::Improvement],
            ..f
        };
        assert_eq!(quiet.outcome(Some(FailOn::Warning)), Outcome::Ok);
        assert_eq!(quiet.outcome(Some(FailOn::Regression)), Outcome::Ok);
        assert_eq!(quiet.outcome(Some(FailOn::Change)), Outcome::Gated);
    }
}
