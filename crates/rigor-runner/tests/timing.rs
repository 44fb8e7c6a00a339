//! The process executor where the pass depends on real timings: a sleep measured at least as
//! long as it sleeps, a timeout that kills the whole process group in time. The timing tier
//! (every test `#[ignore]`d; see `crates/rigor/tests/timing/main.rs`):
//! `cargo test --workspace --locked --test timing -- --ignored`.

use std::time::{Duration, Instant};

use rigor_runner::{
    CommandLine, ExecutionOutcome, ExecutionRequest, Executor, IterationSource, OutputMode,
    ProcessExecutor, StopSignal, Termination,
};

/// Runs `cmd` once (through `sh -c` when `shell`), reading iteration times from the samples
/// file.
fn run(cmd: &str, shell: bool, timeout: Option<Duration>) -> ExecutionOutcome {
    let mut ex = ProcessExecutor::new(StopSignal::new()).unwrap();
    let command = CommandLine::parse(cmd, shell).unwrap();
    ex.execute(&ExecutionRequest {
        benchmark: 0,
        build: None,
        command: &command,
        iterations: &IterationSource::SamplesFile,
        input: None,
        output: OutputMode::Null,
        output_file: None,
        timeout,
        env: &[],
        dir: None,
    })
    .unwrap()
}

#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn measures_a_real_process() {
    let o = run("sleep 0.02", false, None);
    assert!(o.termination.success());
    assert!(o.wall.get() >= 0.02 && o.wall.get() < 2.0, "{}", o.wall);
    assert_eq!(o.iterations, None);
}

#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn timeout_kills_the_whole_group() {
    let t0 = Instant::now();
    let o = run("sleep 5; echo done", true, Some(Duration::from_millis(100)));
    assert_eq!(o.termination, Termination::TimedOut);
    assert!(t0.elapsed() < Duration::from_secs(3));
}
