//! Result files for rigor.
//!
//! A versioned JSON schema ([`schema`], version 2; version 1 files are still read through
//! [`v1`]) that keeps raw observations apart from derived estimates, the level [`layout`] of a
//! benchmark decided in one place, typed [`warning`]s, an [`IncrementalWriter`] that persists
//! every execution the moment it is measured (a killed run leaves a readable file), and
//! long-format CSV export and import, and [`import`]ers of other tools' results (hyperfine,
//! pyperf, JMH, Google Benchmark, criterion, BenchmarkTools.jl, ReBench, Krun).

pub mod contention;
pub mod environment;
pub mod error;
pub mod export;
pub mod file;
pub mod import;
pub mod layout;
pub mod long_csv;
pub mod metric;
pub mod schema;
pub mod v1;
pub mod warning;

pub use contention::{CpuShare, QueueShare, Queued};
pub use environment::{Environment, LoadAverage};
pub use error::{Result, StoreError};
pub use file::{IncrementalWriter, load, parse, save, to_json, write_atomic};
pub use layout::{Layout, LayoutError, LevelKind};
pub use long_csv::{CsvBenchmark, parse_long_csv, read_long_csv, to_long_csv};
pub use metric::{MetricError, MetricRecord};
pub use schema::*;
pub use warning::{ComparedWith, FailedRepetitions, ImportNote, ResultSide, Warning};
