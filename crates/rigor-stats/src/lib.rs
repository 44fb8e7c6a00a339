//! Pure statistics for hierarchical benchmark data.
//!
//! rigor measures at every level that varies — builds, process executions, in-process iterations —
//! and this crate turns those measurements into honest answers: variance components per level,
//! confidence intervals that respect the hierarchy, ratio intervals for comparisons, the
//! hierarchical bootstrap, and optimal repetition counts. It does no I/O and prints nothing.
//!
//! The formulas and their test oracles are specified in the project's `METHODS.md`.
//!
//! ```
//! use rigor_stats::Hierarchy;
//!
//! let h = Hierarchy::two_level(["execution", "iteration"], &[vec![1.0, 2.0], vec![3.0, 4.0]])?;
//! assert_eq!(h.top_means(), vec![1.5, 3.5]);
//! # Ok::<(), rigor_stats::StatsError>(())
//! ```

pub mod analysis;
pub mod bootstrap;
pub mod descriptive;
pub mod design;
pub mod dist;
pub mod error;
pub mod evals;
pub mod fieller;
pub mod hierarchy;
pub mod impact;
pub mod interval;
pub mod sample;
pub mod variance;

pub use dist::{Quantile, critical_value};
pub use error::{Result, StatsError};
pub use hierarchy::{Hierarchy, HierarchyBuilder};
pub use sample::Sample;
