//! Result files for rigor.
//!
//! A versioned JSON schema ([`schema`]) that keeps raw observations apart from derived estimates,
//! an [`IncrementalWriter`] that persists every execution the moment it is measured (a killed run
//! leaves a readable file), and long-format CSV export and import.

pub mod environment;
pub mod error;
pub mod file;
pub mod long_csv;
pub mod schema;

pub use environment::Environment;
pub use error::{Result, StoreError};
pub use file::{IncrementalWriter, load, parse, save, to_json, write_atomic};
pub use long_csv::{CsvBenchmark, read_long_csv, to_long_csv};
pub use schema::*;
