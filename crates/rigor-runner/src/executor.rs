//! The [`Executor`] trait: one process execution of one benchmark, measured.
//!
//! The scheduler never spawns processes itself; it asks an executor. The real one is
//! [`ProcessExecutor`](crate::ProcessExecutor); tests use [`SimulatedExecutor`](crate::SimulatedExecutor),
//! which produces data with known variance components without processes or clocks.

use std::path::PathBuf;
use std::time::Duration;

use rigor_units::{Resolution, Seconds};
use serde::{Deserialize, Serialize};

use crate::command::CommandLine;
use crate::error::RunError;
use crate::iterations::IterationSource;

/// Where a benchmarked program's standard output goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum OutputMode {
    /// Discarded (`/dev/null`), the default.
    #[cfg_attr(feature = "clap", value(help = "Discard output (/dev/null)"))]
    #[default]
    Null,
    /// A pipe that rigor reads and discards (for programs that behave differently on pipes).
    #[cfg_attr(
        feature = "clap",
        value(help = "Read output through a pipe and discard it")
    )]
    Pipe,
    /// rigor's own standard output.
    #[cfg_attr(feature = "clap", value(help = "Show the commands' output"))]
    Inherit,
}

/// Everything an executor needs to run one execution.
#[derive(Debug, Clone)]
pub struct ExecutionRequest<'a> {
    /// Index of the benchmark in the experiment.
    pub benchmark: usize,
    /// The build this execution runs, when builds are a level.
    pub build: Option<usize>,
    /// The command to run.
    pub command: &'a CommandLine,
    /// Where iteration times come from, if the program reports them.
    pub iterations: &'a IterationSource,
    /// File to connect to standard input, if any.
    pub input: Option<&'a PathBuf>,
    /// Where standard output goes.
    pub output: OutputMode,
    /// A file standard output is written to instead, made anew for each execution
    /// (hyperfine's `--output=FILE`).
    pub output_file: Option<&'a std::path::Path>,
    /// Kill the execution after this long.
    pub timeout: Option<Duration>,
    /// Extra environment variables for this execution.
    pub env: &'a [(String, String)],
    /// Working directory (`None`: rigor's own).
    pub dir: Option<&'a std::path::Path>,
}

/// Everything an executor needs to run one build.
#[derive(Debug, Clone)]
pub struct BuildRequest<'a> {
    /// Index of the benchmark in the experiment.
    pub benchmark: usize,
    /// Index of the build (0-based).
    pub build: usize,
    /// The build command, placeholders already substituted.
    pub command: &'a CommandLine,
    /// The benchmark's own command (the simulator reads its specification from it).
    pub command_of_benchmark: &'a CommandLine,
    /// The build's own directory (its working directory).
    pub dir: &'a std::path::Path,
    /// Kill the build after this long.
    pub timeout: Option<Duration>,
}

/// Everything an executor needs to run one unmeasured auxiliary command (a hook).
#[derive(Debug, Clone, Copy)]
pub struct HookRequest<'a> {
    /// The command, placeholders already substituted.
    pub command: &'a CommandLine,
    /// Its working directory (`None`: rigor's own).
    pub dir: Option<&'a std::path::Path>,
    /// Added to its environment (a `--prepare` or `--conclude` gets the number of the execution
    /// it runs around).
    pub env: &'a [(String, String)],
}

/// How an execution ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Termination {
    /// Exited with this code.
    Exited {
        /// The exit code.
        code: i32,
    },
    /// Killed by this signal (not by rigor's timeout).
    Signaled {
        /// The signal number.
        signal: i32,
    },
    /// Killed by rigor after the timeout.
    TimedOut,
}

impl Termination {
    /// True for exit code 0.
    pub fn success(self) -> bool {
        self == Self::Exited { code: 0 }
    }
}

/// What one execution measured.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecutionOutcome {
    /// Wall-clock time from spawn to exit.
    pub wall: Seconds,
    /// User CPU time.
    pub user: Seconds,
    /// System CPU time.
    pub sys: Seconds,
    /// Peak resident set size, bytes (0 when unknown).
    pub max_rss: u64,
    /// Involuntary context switches (`ru_nivcsw`): times the kernel took the CPU from it to
    /// run another process; `None` where not measured (a simulated executor).
    pub preempted: Option<u64>,
    /// How long it waited, runnable, for a CPU other processes held (Linux's run-queue delay of
    /// its own process); `None` where not told: another system, a simulated executor, or a
    /// command whose work ran mostly in threads or child processes, whose waiting that figure
    /// does not count.
    pub run_delay: Option<Seconds>,
    /// How it ended.
    pub termination: Termination,
    /// The last part of its standard error (for failure reports).
    pub stderr_tail: String,
    /// In-process iteration times in seconds, if the program reported them.
    pub iterations: Option<Vec<f64>>,
    /// The step the reported iteration times move in, when the program said (the samples
    /// file's `resolution`): no interval of them is narrower than half of it.
    pub resolution: Option<Resolution>,
    /// Why reported iteration times could not be read, if they could not.
    pub iteration_error: Option<String>,
    /// Everything else measured of the execution, by metric name: what the program reported
    /// (`{"metric": ...}` lines of the samples file) and hardware counters.
    pub metrics: std::collections::BTreeMap<String, rigor_units::MetricValues>,
}

/// Runs executions and auxiliary commands (setup, prepare, cleanup).
pub trait Executor {
    /// Runs one measured execution.
    fn execute(&mut self, request: &ExecutionRequest<'_>) -> Result<ExecutionOutcome, RunError>;

    /// Runs one build (timed: its wall time is the cost of the build level).
    fn build(&mut self, request: &BuildRequest<'_>) -> Result<ExecutionOutcome, RunError>;

    /// Runs an unmeasured auxiliary command (a hook); returns its outcome so failures can be
    /// reported.
    fn run_hook(&mut self, request: &HookRequest<'_>) -> Result<ExecutionOutcome, RunError>;
}
