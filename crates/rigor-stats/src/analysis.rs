//! One benchmark's standard analysis: the mean interval that respects the hierarchy, variance
//! components, descriptive statistics and the warnings a careful person would raise.
//!
//! Warnings are data ([`Warning`]); turning them into words is the reporter's job.

use serde::{Deserialize, Serialize};

use crate::descriptive::Summary;
use crate::dist::Quantile;
use crate::error::Result;
use crate::hierarchy::Hierarchy;
use crate::interval::{MeanInterval, mean_interval, pooled_interval};
use crate::variance::{VarianceComponents, variance_components};

/// Below this many top-level units an interval is unreliable (Kalibera & Jones).
pub const MIN_RELIABLE_TOP_UNITS: usize = crate::interval::RECOMMENDED_TOP_UNITS;

/// Settings of the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AnalysisConfig {
    /// Confidence level, e.g. 0.95.
    pub level: f64,
    /// Quantile of the mean interval.
    pub quantile: Quantile,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        Self {
            level: 0.95,
            quantile: Quantile::StudentT,
        }
    }
}

/// Something about the data the user should know and act on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Warning {
    /// Fewer than [`MIN_RELIABLE_TOP_UNITS`] top-level units.
    FewTopUnits {
        /// The top level's name.
        level: String,
        /// How many units it has.
        units: usize,
    },
    /// A level above the lowest holds most of the variance: repeating the lowest level more will
    /// not narrow the interval, and tools that pool the lowest level report too narrow intervals.
    UpperLevelDominates {
        /// The dominant level.
        level: String,
        /// The lowest level.
        lowest: String,
        /// Its share of the variance, percent.
        share: f64,
        /// How many times wider rigor's interval is than the naive pooled one.
        pooled_ratio: f64,
    },
    /// The data are unbalanced; components come from Henderson's method I.
    Unbalanced,
}

/// The analysis of one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Level names, top → bottom.
    pub levels: Vec<String>,
    /// Units per level, top → bottom.
    pub counts: Vec<usize>,
    /// The mean and its interval from top-level means (METHODS §2).
    pub interval: MeanInterval,
    /// Variance components (METHODS §1).
    pub components: VarianceComponents,
    /// Descriptive statistics of all analysed values.
    pub summary: Summary,
    /// Warnings, most important first.
    pub warnings: Vec<Warning>,
}

/// Analyses a hierarchy (at least two top-level units and two values).
pub fn analyze(h: &Hierarchy, config: &AnalysisConfig) -> Result<Analysis> {
    let interval = mean_interval(h, config.level, config.quantile)?;
    let components = variance_components(h)?;
    let summary = Summary::of(h.values())?;
    let mut warnings = Vec::new();
    if h.units(0) < MIN_RELIABLE_TOP_UNITS {
        warnings.push(Warning::FewTopUnits {
            level: h.levels()[0].clone(),
            units: h.units(0),
        });
    }
    if h.depth() >= 2 {
        let shares = components.shares();
        let lowest = h.depth() - 1;
        if let Some((k, &share)) = shares[..lowest]
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
        {
            if share > 50.0 {
                let pooled = pooled_interval(h, config.level, config.quantile)?;
                warnings.push(Warning::UpperLevelDominates {
                    level: h.levels()[k].clone(),
                    lowest: h.levels()[lowest].clone(),
                    share,
                    pooled_ratio: interval.half_width / pooled.half_width,
                });
            }
        }
    }
    if !h.is_balanced() {
        warnings.push(Warning::Unbalanced);
    }
    Ok(Analysis {
        levels: h.levels().to_vec(),
        counts: h.counts(),
        interval,
        components,
        summary,
        warnings,
    })
}
