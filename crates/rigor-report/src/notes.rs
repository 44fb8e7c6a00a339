//! Notes a command prints on standard error after `rigor: `: what the user should know about
//! the settings or the outcome, each from the facts a use case returned.

use std::fmt;

/// One note.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Note {
    /// A benchmark took the plan of another name, in its place in the plan file.
    PlanMatchedByPosition {
        /// The benchmark.
        benchmark: String,
        /// The plan's name for it.
        plan: String,
    },
    /// `--discard` found no iterations to discard in these benchmarks (only wall time).
    NothingDiscarded {
        /// The benchmarks.
        benchmarks: Vec<String>,
    },
    /// A benchmark failed or measured nothing (exit status 2).
    Failed,
    /// A benchmarked command exited with a non-zero status, and `-i` was not given.
    IgnoreFailure,
    /// A saved benchmark measured nothing (exit status 2).
    NothingMeasured,
    /// `--fail-on` matched (exit status 1).
    Gated,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PlanMatchedByPosition { benchmark, plan } => write!(
                f,
                "note: the plan has no benchmark named '{benchmark}': it gets the plan of \
                 '{plan}', the benchmark in its place in the plan file"
            ),
            Self::NothingDiscarded { benchmarks } => write!(
                f,
                "note: --discard drops warm-up iterations, and {} reported none (only its wall \
                 time was measured): nothing was discarded there; -w/--warmup skips whole \
                 executions",
                benchmarks.join(", ")
            ),
            Self::Failed => f.write_str(
                "a benchmark failed or measured nothing (shown above), exit status 2",
            ),
            Self::IgnoreFailure => f.write_str(
                "to measure a command whose exit status is not zero, use -i/--ignore-failure",
            ),
            Self::NothingMeasured => {
                f.write_str("a benchmark measured nothing (shown above), exit status 2")
            }
            Self::Gated => f.write_str("--fail-on matched (shown above), exit status 1"),
        }
    }
}
