//! The error types of the runner: [`RunError`] for anything that stops an experiment, and
//! [`SettingsError`] for settings it cannot run with.

use std::path::PathBuf;

use rigor_units::Seconds;
use thiserror::Error;

/// What can stop an experiment or an execution from being measured.
///
/// Every variant's message is complete on its own: the ones that wrap another error either name
/// it in their message (and return it as the [`source`](std::error::Error::source) too, like
/// [`RunError::Spawn`]) or are that error ([`RunError::Settings`], [`RunError::Observer`]).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RunError {
    /// A command line could not be split into words.
    #[error("cannot parse command '{command}': {reason}")]
    BadCommand {
        /// The command as given.
        command: String,
        /// Why it could not be split.
        reason: String,
    },
    /// The program could not be started at all.
    #[error("cannot start '{program}': {source}{}", builtin_hint(program))]
    Spawn {
        /// The program that failed to start.
        program: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// Waiting for or controlling a child process failed.
    #[error("cannot wait for '{program}': {source}")]
    Wait {
        /// The program being waited for.
        program: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A file the runner needs (input, capture, samples file) could not be used.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A performance counter asked for could not be counted for an execution of `program`
    /// (opening it, or a count the kernel could not give whole).
    #[error("cannot count the executions of '{program}': {source}")]
    Counter {
        /// The program being counted.
        program: String,
        /// Why.
        #[source]
        source: crate::perf::CounterError,
    },
    /// The launcher that measures each execution (`ProcessExecutor::with_launcher`) could not
    /// measure one of `program`.
    #[error("cannot measure '{program}' through rigor's launcher: {reason}")]
    Launch {
        /// The program being measured.
        program: String,
        /// Why.
        reason: String,
    },
    /// A simulation specification was malformed.
    #[error("bad simulation spec '{spec}': {reason}")]
    BadSimulation {
        /// The specification as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The settings cannot be run with (found before anything ran), or an adaptive run's pilot
    /// found its target out of reach. Shown as `invalid setting: ` and the [`SettingsError`].
    ///
    /// The message includes the settings error's, so it is not also returned as the
    /// [`source`](std::error::Error::source): error reporters that print the chain would
    /// print it twice. Match on the variant to get the [`SettingsError`].
    #[error("invalid setting: {0}")]
    Settings(SettingsError),
    /// An [`Observer`](crate::Observer) could not take an event (e.g. a store could not save a
    /// record), which ends the experiment. The observer's own error is kept as it is: this
    /// variant shows its message and continues with its source chain, so nothing is lost or
    /// printed twice.
    #[error(transparent)]
    Observer {
        /// The observer's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl RunError {
    /// An [`Observer`](crate::Observer)'s error, kept with its source chain.
    pub fn observer(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Observer {
            source: source.into(),
        }
    }
}

impl From<SettingsError> for RunError {
    fn from(e: SettingsError) -> Self {
        Self::Settings(e)
    }
}

/// Settings the runner refuses to run with. [`Settings::validate`](crate::Settings::validate) and
/// [`AdaptiveSettings::validate`](crate::AdaptiveSettings::validate) check them before anything
/// runs; [`SettingsError::Unplannable`] is the one found later, by an adaptive run's pilot.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// Fewer than two executions when executions are the top level: an interval needs two
    /// top-level units.
    #[error(
        "{executions} execution(s) per benchmark: an interval needs at least 2 top-level units (5 or more for a reliable one); hyperfine's -r 1 measures once without a spread, rigor measures at least twice (or with --build, builds are the top level)"
    )]
    TooFewExecutions {
        /// The executions asked for.
        executions: usize,
    },
    /// No measured execution per build, when builds are the top level.
    #[error("0 executions per build: every build needs at least one measured execution")]
    NoExecutionsPerBuild,
    /// Fewer than two builds when builds are the top level.
    #[error(
        "{builds} build(s) per benchmark: an interval over builds needs at least 2 (5 or more for a reliable one)"
    )]
    TooFewBuilds {
        /// The builds asked for.
        builds: usize,
    },
    /// A timeout of zero.
    #[error("the {what} timeout must be positive")]
    NonPositiveTimeout {
        /// What it limits: `execution` or `build`.
        what: &'static str,
    },
    /// Zero iterations per execution asked of the program (`RIGOR_ITERATIONS=0`).
    #[error(
        "0 iterations per execution asked for: ask for at least 1, or leave the count to the program"
    )]
    ZeroIterations,
    /// A count above its limit (an exponent too many), refused before anything runs.
    #[error(transparent)]
    TooLarge(#[from] crate::limits::CountTooLarge),
    /// An adaptive run with neither a target precision nor a time budget: nothing would stop it
    /// before its unit cap.
    #[error("an adaptive run needs a target precision, a time budget or both")]
    NoAdaptiveGoal,
    /// A target precision of zero, which no number of units reaches.
    #[error("the target precision must be above 0%")]
    ZeroTarget,
    /// A time budget that is zero, negative or not finite.
    #[error("the time budget must be a positive, finite time (got {} s)", .budget.get())]
    NonPositiveBudget {
        /// The budget given.
        budget: Seconds,
    },
    /// A unit cap below two top-level units.
    #[error("at most {max_units} top-level unit(s) allowed: an interval needs at least 2")]
    TooFewUnits {
        /// The cap given.
        max_units: usize,
    },
    /// A run until each level is known whose round limit is below its pilot.
    #[error(
        "at most {max_rounds} execution(s) allowed (--max-runs), but --precision first measures \
         {min_rounds} (the pilot, --min-runs)"
    )]
    KnownRounds {
        /// The round limit.
        max_rounds: usize,
        /// The pilot's rounds.
        min_rounds: usize,
    },
    /// A run until each level is known with builds as a level.
    #[error(
        "--precision and --budget measure each version's executions until its level is known; \
         with --builds the builds are a level, which they do not adapt: leave out --builds or \
         --precision/--budget"
    )]
    KnownWithBuilds,
    /// A run until decided without two benchmarks to compare (or with a reference that is none
    /// of them).
    #[error(
        "--until-decided compares commands with a reference: give at least two commands (got {benchmarks})"
    )]
    NothingToDecide {
        /// The benchmarks given.
        benchmarks: usize,
    },
    /// A round limit below the rounds the sequential rule waits for before its first look.
    #[error(
        "at most {max_rounds} round(s) allowed, but a run until decided first looks after {min_rounds}"
    )]
    RoundsBelowMinimum {
        /// The round limit.
        max_rounds: usize,
        /// The rounds before the first look.
        min_rounds: usize,
    },
    /// The sequential rule's settings (confidence level, threshold) are out of range.
    #[error("the sequential rule cannot run with these settings: {reason}")]
    Sequential {
        /// The statistics crate's reason.
        reason: String,
    },
    /// An adaptive run's pilot ran, but no benchmark could be planned from it or the target
    /// cannot be reached: the target or the budget does not fit the benchmarks.
    #[error("{reason}{}", budget_hint(.budget))]
    Unplannable {
        /// Why, in words (what the planner found).
        reason: String,
        /// The budget the run had, if any (a larger one may give the pilot room).
        budget: Option<Seconds>,
    },
}

fn budget_hint(budget: &Option<Seconds>) -> String {
    budget.map_or(String::new(), |b| {
        format!(
            " (within a budget of {:.1} s; a larger budget gives it room)",
            b.get()
        )
    })
}

/// What a program that cannot start is, when it is a shell builtin with no program of its own
/// (`cd`, `type`, …: run directly, as `--shell none` asks, it is not found).
fn builtin_hint(program: &str) -> String {
    match crate::shell_syntax::find(program) {
        Some(b @ crate::shell_syntax::ShellSyntax::Builtin(_)) => {
            format!(" ({b}, which only a shell runs: drop --shell none / -N)")
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A builtin run directly is named as such, with what to do; another program is not.
    #[test]
    fn a_builtin_that_cannot_start_says_so() {
        let spawn = |program: &str| RunError::Spawn {
            program: program.to_string(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        let e = spawn("cd").to_string();
        assert!(
            e.contains("the shell builtin `cd`, which only a shell runs"),
            "{e}"
        );
        assert!(!spawn("./bench").to_string().contains("builtin"));
    }
}
