//! The error type of rigor's use cases. Every variant keeps its source.

use std::path::PathBuf;

use thiserror::Error;

/// What stops a use case.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AppError {
    /// Measuring failed (a setting, a process, a file the runner needs).
    #[error(transparent)]
    Run(#[from] rigor_runner::RunError),
    /// A result file could not be read or written.
    #[error(transparent)]
    Store(#[from] rigor_store::StoreError),
    /// Two benchmarks could not be compared.
    #[error("comparing '{candidate}' with '{baseline}'")]
    Compare {
        /// The candidate.
        candidate: String,
        /// The baseline.
        baseline: String,
        /// Why.
        #[source]
        source: rigor_stats::StatsError,
    },
    /// A statistic over the whole suite could not be computed.
    #[error("the suite's geometric mean")]
    Suite(#[source] rigor_stats::StatsError),
    /// `--reference` names no benchmark.
    #[error("--reference '{reference}' names no benchmark (names: {names})")]
    NoSuchReference {
        /// What was given.
        reference: String,
        /// The benchmarks' names, quoted and joined.
        names: String,
    },
    /// Two results share no benchmark that both measured.
    #[error(
        "nothing to compare: {}",
        if !.without_result.is_empty() {
            format!(
                "{} measured nothing on one side (every execution failed, or too few)",
                .without_result
            )
        } else {
            format!(
                "no benchmark has the same name in both (old: {}; new: {})",
                .old,
                .new
            )
        }
    )]
    NothingInCommon {
        /// The old result's benchmark names, quoted and joined.
        old: String,
        /// The new result's benchmark names, quoted and joined.
        new: String,
        /// Benchmarks named alike without a result on one side, quoted and joined (empty when
        /// none).
        without_result: String,
    },
    /// The old and the new result hold the same measurements.
    #[error(
        "{old} and {new} are the same result (the same measurements): a result compared with \
         itself cannot show a change; compare two different runs"
    )]
    SameResult {
        /// The old file(s), joined.
        old: String,
        /// The new file(s), joined.
        new: String,
    },
    /// A plan file could not be read or written.
    #[error("{}", path.display())]
    PlanFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: PlanFileError,
    },
    /// A plan has no entry for a benchmark.
    #[error("the plan has no entry for '{0}'")]
    NotInPlan(String),
    /// A plan cannot give the top-level count for a precision.
    #[error("plan for '{benchmark}'")]
    PlanPrecision {
        /// The benchmark.
        benchmark: String,
        /// Why.
        #[source]
        source: rigor_stats::StatsError,
    },
    /// The pilot of `plan` was interrupted.
    #[error("interrupted during the pilot; no plan written")]
    PilotInterrupted,
    /// No benchmark could be planned.
    #[error("no benchmark could be planned")]
    NothingPlanned,
    /// A file could not be written.
    #[error("writing {what}")]
    Write {
        /// What was being written.
        what: &'static str,
        /// Why.
        #[source]
        source: rigor_store::StoreError,
    },
    /// An Otava CSV to append to has other columns than this result's.
    #[error(
        "{path}: its columns '{found}' are not this result's '{expected}': write a new file for \
         this set of benchmarks"
    )]
    OtavaColumns {
        /// The file.
        path: std::path::PathBuf,
        /// Its header.
        found: String,
        /// The header this result needs.
        expected: String,
    },
    /// The history could not be read or written.
    #[error(transparent)]
    History(#[from] rigor_history::HistoryError),
    /// A dashboard file could not be written or read.
    #[error("{}", path.display())]
    Site {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A git command failed.
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    /// A bisection's ends are not in order.
    #[error(
        "'{bad}' does not come after '{good}' on its first-parent line: give the older version first (rigor track bisect GOOD BAD)"
    )]
    NotAnAncestor {
        /// The version given as good.
        good: String,
        /// The version given as bad.
        bad: String,
    },
    /// No stored version to check against.
    #[error(
        "no stored version of these benchmarks on {machine} ({branch}) to check against: `rigor track run` or `rigor track add` stores one"
    )]
    NoBaseline {
        /// The machine.
        machine: String,
        /// The branch.
        branch: String,
    },
    /// There is no history database at the path given.
    #[error("no history at {}: `rigor track run` or `rigor track add` makes one", .0.display())]
    NoHistory(PathBuf),
    /// A Cargo project's bench targets could not be built, listed or tuned.
    #[error(transparent)]
    CargoBench(#[from] crate::cargo_bench::CargoBenchError),
    /// A temporary directory for builds could not be made.
    #[error("creating a directory for builds")]
    BuildRoot(#[source] std::io::Error),
}

/// Why a plan file could not be read or written.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PlanFileError {
    /// The file could not be read.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The file is not a plan (the message names the line and column).
    #[error(transparent)]
    Parse(#[from] toml::de::Error),
    /// The plan could not be rendered.
    #[error("rendering the plan: {0}")]
    Render(#[from] toml::ser::Error),
    /// A benchmark's lists do not agree with its levels.
    #[error("benchmark {index} ('{name}'): {message}")]
    Inconsistent {
        /// 1-based position of the `[[benchmark]]` table.
        index: usize,
        /// Its name.
        name: String,
        /// What disagrees.
        message: String,
    },
}

/// Shorthand for this crate's results.
pub type Result<T, E = AppError> = std::result::Result<T, E>;
