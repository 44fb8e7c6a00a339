//! Benchmarks and executors shared by the runner's unit tests.

use rigor_units::{Resolution, Seconds};

use crate::command::CommandLine;
use crate::error::RunError;
use crate::executor::{
    BuildRequest, ExecutionOutcome, ExecutionRequest, Executor, HookRequest, Termination,
};
use crate::schedule::Benchmark;

/// A benchmark named by its command `spec` (a simulated benchmark's spec, or a command line).
pub(crate) fn bench(spec: &str) -> Benchmark {
    Benchmark::new(spec, CommandLine::parse(spec, false).unwrap())
}

/// Benchmark i's every execution reports the same 20 iteration times, `ns[i]` nanoseconds each,
/// measured in steps of `step_ns` (`None`: no resolution reported): a function whose samples are
/// quantised so coarsely that every execution's median and minimum tie.
pub(crate) struct Tied {
    pub ns: Vec<f64>,
    pub step_ns: Option<f64>,
}

impl Executor for Tied {
    fn execute(&mut self, req: &ExecutionRequest<'_>) -> Result<ExecutionOutcome, RunError> {
        Ok(ExecutionOutcome {
            preempted: None,
            run_delay: None,
            metrics: Default::default(),
            wall: Seconds(1e-3),
            user: Seconds(1e-3),
            sys: Seconds::ZERO,
            max_rss: 0,
            termination: Termination::Exited { code: 0 },
            stderr_tail: String::new(),
            iterations: Some(vec![self.ns[req.benchmark] * 1e-9; 20]),
            resolution: self
                .step_ns
                .and_then(|s| Resolution::new(Seconds(s * 1e-9))),
            iteration_error: None,
        })
    }

    fn build(&mut self, _: &BuildRequest<'_>) -> Result<ExecutionOutcome, RunError> {
        unreachable!("no builds here")
    }

    fn run_hook(&mut self, _: &HookRequest<'_>) -> Result<ExecutionOutcome, RunError> {
        unreachable!("no hooks here")
    }
}
