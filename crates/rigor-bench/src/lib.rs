//! An in-process microbenchmark harness whose samples rigor measures across processes.
//!
//! Use it as a `[[bench]]` target with `harness = false`:
//!
//! ```toml
//! [dev-dependencies]
//! # not on crates.io yet: a path (or git) dependency on a checkout of rigor
//! rigor-bench = { path = "../rigor/crates/rigor-bench" }
//!
//! [[bench]]
//! name = "parse"
//! harness = false
//! ```
//!
//! and in `benches/parse.rs`:
//!
//! ```no_run
//! use rigor_bench::{Bench, Harness, Throughput, black_box};
//!
//! fn fib(n: u64) -> u64 {
//!     if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
//! }
//!
//! fn main() {
//!     Harness::new()
//!         // A routine timed many evaluations per sample.
//!         .bench("fib", |b: &mut Bench| b.iter(|| fib(black_box(20))))
//!         // One benchmark per size (`sort/100`, `sort/10000`); set-up outside the timing.
//!         .bench_with_inputs("sort", [100usize, 10_000], |b, &n| {
//!             b.throughput(Throughput::Elements(n as u64));
//!             b.iter_batched(
//!                 || (0..n as u64).rev().collect::<Vec<_>>(),
//!                 |mut v| { v.sort(); v },
//!             );
//!         })
//!         .run();
//! }
//! ```
//!
//! For plain functions, [`main!`] writes `main`: `rigor_bench::main!(bench_fib, bench_parse);`
//! with `fn bench_fib(b: &mut Bench)`.
//!
//! [`Harness::group`] registers benchmarks named `group/function[/input]` with settings of their
//! own ([`Group`]: samples, evaluations per sample, warm-up, throughput), which reach every
//! process `rigor bench` runs; options given on the command line win over them (and say so).
//! `rigor bench --report` plots a group's functions against their input.
//!
//! # What a run does
//!
//! `cargo bench` runs each benchmark in this one process: the timer's resolution and overhead
//! are measured; the routine runs for a warm-up; the evaluations per sample are tuned so the
//! timer's error stays small (Chen & Revels 2016: T_i for i = 1, 2, … evaluations, t̂ = min T_i/i,
//! evaluations from BenchmarkTools' table, see [`evals`]); then samples are taken, each the time
//! of that many evaluations minus the timer's overhead, divided by the count. The report gives the
//! minimum, median and mean and an interval for this process's median — and says that one
//! process is one execution: another process may differ by more than that interval.
//!
//! `rigor bench` (in the project) builds the bench targets, tunes each benchmark once, and runs
//! each as a rigor benchmark with the evaluations fixed (`--evals N`): executions in shuffled
//! interleaved rounds, every sample written through rigor's protocol (`RIGOR_SAMPLES_FILE`), so
//! executions become a level with its own variance and the interval is honest across processes.
//! Under rigor one execution runs exactly one benchmark (`--exact NAME`).
//!
//! # Allocations
//!
//! Install [`CountingAlloc`] as the global allocator to add allocations and bytes per iteration
//! to the report (see the [`alloc`] module).

pub mod alloc;
mod bench;
pub mod cycles;
pub mod evals;
mod group;
mod harness;
pub mod report;
pub mod timer;

use std::io;

use thiserror::Error;

pub use alloc::{AllocsPerIter, CountingAlloc};
pub use bench::{
    ALLOCATED_BYTES_METRIC, ALLOCATIONS_METRIC, BatchSize, Bench, Measurement, Throughput,
    WORK_BYTES_METRIC, WORK_ITEMS_METRIC,
};
pub use group::{Group, GroupSettings};
pub use harness::Harness;
/// Keeps the optimiser from assuming anything about a value (it is [`std::hint::black_box`]).
pub use std::hint::black_box;

/// Why a bench target could not run its benchmarks.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum HarnessError {
    /// The command line is wrong.
    #[error("{message} (see --help)")]
    Usage {
        /// What is wrong.
        message: String,
    },
    /// Two benchmarks have the same name.
    #[error("two benchmarks are named '{name}'")]
    Duplicate {
        /// The name.
        name: String,
    },
    /// A benchmark function never called `iter` or `iter_batched`.
    #[error("benchmark '{name}' timed nothing (call b.iter or b.iter_batched)")]
    NothingTimed {
        /// The benchmark.
        name: String,
    },
    /// A group was given a setting it cannot take (`samples(0)`).
    #[error("group '{group}': {message}")]
    Group {
        /// The group.
        group: String,
        /// What is wrong.
        message: String,
    },
    /// Under rigor, not exactly one benchmark is selected.
    #[error(
        "under rigor one execution measures one benchmark, but {} are selected ({}): select one \
         with --exact NAME",
        selected.len(),
        selected.join(", ")
    )]
    NotOne {
        /// The selected benchmarks.
        selected: Vec<String>,
    },
    /// `RIGOR_ITERATIONS` is not a count.
    #[error(transparent)]
    Protocol(#[from] rigor_protocol::ProtocolError),
    /// The samples file could not be written.
    #[error("writing the samples file: {0}")]
    Samples(io::Error),
    /// The report could not be written.
    #[error(transparent)]
    Output(#[from] io::Error),
    /// A JSON line could not be written.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// Writes `main` for benchmark functions `fn name(b: &mut Bench)`, each registered under its
/// own name: `rigor_bench::main!(bench_fib, bench_sort);`.
#[macro_export]
macro_rules! main {
    ($($f:ident),+ $(,)?) => {
        fn main() {
            $crate::Harness::new()
                $(.bench(stringify!($f), $f))+
                .run()
        }
    };
}

/// The README's examples, compiled as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
