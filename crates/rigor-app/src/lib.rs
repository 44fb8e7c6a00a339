//! rigor's use cases, independent of any front end.
//!
//! The `rigor` binary turns its command line into the [`settings`] here and prints what these
//! functions return; a history store, a server or a harness can call the same functions.
//!
//! - [`run::run`]: measure (fixed, planned or adaptive), persisting every execution as it
//!   completes, then analyse, diagnose warm-up and compare.
//! - [`plan::plan`]: a pilot, and the plan file with the optimal counts per level.
//! - [`saved::analyze`], [`saved::compare`], [`saved::report`]: the same analyses over saved
//!   results.
//! - [`publish`]: `rigor track publish`, the static dashboard over a history.
//! - [`report_view`]: the HTML report's view model (the report crate only draws it).
//! - [`cargo_bench`]: a Cargo project's `rigor-bench` targets built, listed and tuned, as
//!   benchmarks for [`run::run`] (`rigor bench`).
//! - [`track`]: a project's history — ingest results, measure each version in its own git
//!   worktree, detect changes over each benchmark's series.
//! - [`farm`]: a benchmark farm's workers — claim jobs from the PostgreSQL history, measure,
//!   store the results in the transaction that completes the job.
//!
//! Nothing here prints: non-fatal problems are typed [`rigor_store::Warning`]s saved in the
//! result, and errors are [`AppError`]s that keep their source.

mod adaptive_note;
pub mod analysis;
pub mod baselines;
pub mod bench;
pub mod cargo_bench;
pub mod checkouts;
pub mod comparable;
pub mod comparisons;
pub mod conditions;
pub mod decided;
pub mod diagnosis;
pub mod error;
pub mod exports;
pub mod farm;
pub mod git;
pub mod outcome;
pub mod plan;
pub mod plan_file;
pub mod project;
pub mod provenance;
pub mod publish;
pub mod ranking;
pub mod recorder;
pub mod report_view;
pub mod run;
pub mod runs;
pub mod saved;
pub mod settings;
pub mod simulated_project;
pub mod synthetic;
pub mod track;

pub use error::{AppError, PlanFileError, RequestError, Result};

pub use outcome::{Findings, Outcome};
