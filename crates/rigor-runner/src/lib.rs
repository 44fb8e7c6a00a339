//! Running benchmark experiments.
//!
//! A [`Scheduler`] runs each [`Benchmark`] in rounds through an [`Executor`] — the real
//! [`ProcessExecutor`] or the [`SimulatedExecutor`] with known variance components — and reports
//! every execution and failure to an [`Observer`] the moment it happens, so the caller can persist
//! data as it is measured. Nothing here prints.

pub mod adaptive;
pub mod collect;
pub mod command;
pub mod decide;
pub mod error;
pub mod executor;
pub mod iterations;
pub mod known;
pub mod length;
pub mod limits;
pub mod machine_use;
pub mod perf;
pub mod process;
pub mod schedule;
pub mod shell_syntax;
pub mod simulate;
pub mod stop;
#[cfg(test)]
mod test_support;

pub use adaptive::{
    AdaptiveReport, AdaptiveSettings, BenchPlan, DEFAULT_LOOKS, Dimensioning, EstimatorBounds,
    LOOK_GROWTH, MEDIAN_MIN_SAMPLES, Needed, PilotSettings, StopReason, dimension,
    estimator_interval, run_adaptive,
};
pub use collect::{BenchData, Collector, NeverStop, StopRule};
pub use command::CommandLine;
pub use decide::{DecideSettings, DecidedReport, Decision, DecisionStop, run_until_decided};
pub use error::{RunError, SettingsError};
pub use executor::{
    ExecutionOutcome, ExecutionRequest, Executor, HookRequest, OutputMode, Termination,
};
pub use iterations::{IterationSource, PatternError, Stream};
pub use known::{KnownBenchmark, KnownReport, KnownSettings, KnownStop, run_until_known};
pub use length::{LengthReport, LengthSettings, LengthStop, run_default_length};
pub use perf::{Counter, CounterError};
pub use process::{Measures, ProcessExecutor};
pub use rigor_units::TimeUnit;
pub use schedule::{
    Benchmark, BenchmarkStatus, BuildRecord, BuildSettings, Control, Ending, ExecutionRecord,
    FailureRecord, FailureStage, HYPERFINE_ITERATION_ENV, Hooks, Observer, RIGOR_ITERATION_ENV,
    Report, Scheduler, Settings, Shape,
};
pub use shell_syntax::ShellSyntax;
pub use simulate::{SimSpec, SimulatedExecutor};
pub use stop::StopSignal;
