//! Pure statistics for hierarchical benchmark data.
//!
//! rigor measures at every level that varies — builds, process executions, in-process iterations —
//! and this crate turns those measurements into honest answers: variance components per level,
//! confidence intervals that respect the hierarchy, ratio intervals for comparisons, the
//! hierarchical bootstrap, and optimal repetition counts. It does no I/O and prints nothing.
//!
//! The formulas, their sources and how each is tested are described on the project's methodology
//! page, `docs/methodology.md`.
//!
//! ```
//! use rigor_stats::Hierarchy;
//!
//! let h = Hierarchy::two_level(["execution", "iteration"], &[vec![1.0, 2.0], vec![3.0, 4.0]])?;
//! assert_eq!(h.top_means(), vec![1.5, 3.5]);
//! # Ok::<(), rigor_stats::StatsError>(())
//! ```

pub mod analysis;
pub mod autocorr;
pub mod bootstrap;
pub mod changepoint;
pub mod compare;
pub mod confseq;
pub mod crossed;
pub mod descriptive;
pub mod design;
pub mod dist;
pub mod edivisive;
pub mod error;
pub mod fdr;
pub mod fieller;
pub mod hierarchy;
pub mod impact;
pub mod interval;
pub mod joint;
pub mod median_plan;
pub mod mixture;
pub mod moderate;
pub mod net;
pub mod preemption;
mod rank_walk;
pub mod robust;
mod root;
pub mod runs;
pub mod sample;
pub mod sequential;
pub mod series;
pub mod slow_start;
pub mod states;
pub mod steady;
pub mod top_means;
pub mod variance;

pub use analysis::{Analysis, AnalysisConfig, Warning, analyze};
pub use bootstrap::{
    BootstrapConfig, BootstrapInterval, Pairing, Resampling, bootstrap_interval, bootstrap_ratio,
};
pub use descriptive::{Estimator, Summary};
pub use design::{LevelCost, Plan, optimal_counts};
pub use dist::{Quantile, critical_value};
pub use error::{Result, StatsError};
pub use fieller::{DfMethod, FiellerInterval, FiellerResult, MeanEstimate, fieller};
pub use hierarchy::{Hierarchy, HierarchyBuilder};
pub use impact::{ImpactConfig, ImpactFactor, impact_factor, impact_factor_centred};
pub use interval::{
    MeanInterval, mean_interval, mean_interval_from_means, pooled_interval,
    symmetric_interval_from_means,
};
pub use net::{NetMean, net_mean};
pub use sample::Sample;
pub use variance::{ComponentMethod, LevelComponent, VarianceComponents, variance_components};
