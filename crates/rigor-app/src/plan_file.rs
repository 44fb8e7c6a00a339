//! Plan files (TOML): the levels, costs, variance components and optimal counts of each
//! benchmark, with the top-level counts needed for common precisions and their estimated time.

use std::path::Path;

use rigor_runner::{BenchPlan, Benchmark};
use rigor_stats::design::{Plan, cost_of_top_unit, top_count_for_half_width};
use rigor_stats::{LevelCost, Quantile};
use rigor_store::LevelKind;
use rigor_units::{ConfidenceLevel, Fraction, Seconds, Seed};
use serde::{Deserialize, Serialize};

use crate::error::{AppError, PlanFileError, Result};

/// Precisions (relative half-widths, per cent) tabulated in a plan, as Kalibera & Jones'
/// Tables 6/7.
pub const TARGETS_PERCENT: [f64; 4] = [0.5, 1.0, 2.0, 5.0];

/// The comment at the top of every plan file.
const HEADER: &str = "# rigor plan: optimal repetition counts per level (Kalibera & Jones 2013, §9).\n# Use with: rigor run --plan FILE [--precision 1%] COMMAND...\n";

/// A plan file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanFile {
    /// Version of rigor that wrote it.
    pub rigor_version: String,
    /// Seed of the pilot (written as a string when it is too large for TOML's integers).
    pub seed: Seed,
    /// Confidence level of the tabulated half-widths.
    pub confidence: ConfidenceLevel,
    /// One plan per benchmark.
    pub benchmark: Vec<BenchmarkPlan>,
}

/// The plan of one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkPlan {
    /// Benchmark name.
    pub name: String,
    /// Levels, top → bottom.
    pub levels: Vec<LevelKind>,
    /// Time per repetition of each level, excluding its sub-levels, top → bottom.
    pub costs: Vec<Seconds>,
    /// Raw variance components T² (seconds²), top → bottom.
    pub t2: Vec<f64>,
    /// Optimal repetitions of each level below the top, per parent unit.
    pub counts: Vec<usize>,
    /// The unrounded optima behind `counts`.
    pub raw_counts: Vec<f64>,
    /// Levels merged away because they add no detectable variance.
    pub collapsed: Vec<LevelKind>,
    /// Pilot mean.
    pub mean: Seconds,
    /// Top-level units in the pilot.
    pub pilot_units: usize,
    /// Top-level units and time needed for each tabulated precision.
    pub targets: Vec<TargetRow>,
    /// Warm-up iterations per execution the pilot found (`--discard auto`): the iteration count
    /// is of the steady ones after them, and a run with the plan and `--discard auto` asks for
    /// both. Absent (0) in plans planned from every iteration.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub warmup_iterations: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One row of the precision table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetRow {
    /// Relative half-width, e.g. 0.01 for ±1%.
    pub half_width: Fraction,
    /// Top-level units the plan needs.
    pub top_units: Option<usize>,
    /// Estimated time with the plan.
    pub seconds: Option<Seconds>,
    /// Estimated time repeating only the top level (one unit of every level below it).
    pub top_only_seconds: Option<Seconds>,
}

impl BenchmarkPlan {
    /// The report crate's view of it.
    pub fn view(&self) -> rigor_report::plan::PlanView<'_> {
        rigor_report::plan::PlanView {
            name: &self.name,
            levels: self.levels.iter().map(|l| l.name()).collect(),
            costs: &self.costs,
            t2: &self.t2,
            counts: &self.counts,
            mean: self.mean,
            warmup_iterations: self.warmup_iterations,
            collapsed: self.collapsed.iter().map(|l| l.name()).collect(),
            targets: self
                .targets
                .iter()
                .map(|t| rigor_report::plan::TargetView {
                    half_width: t.half_width,
                    top_units: t.top_units,
                    seconds: t.seconds,
                    top_only_seconds: t.top_only_seconds,
                })
                .collect(),
        }
    }

    /// Whether the lists agree with the levels (a hand-edited file may not): a layout rigor
    /// knows, a cost and a component per level, a count per level below the top.
    fn check(&self) -> std::result::Result<(), String> {
        rigor_store::Layout::try_from(self.levels.clone()).map_err(|e| e.to_string())?;
        let n = self.levels.len();
        let lens = [
            ("costs", self.costs.len(), n),
            ("t2", self.t2.len(), n),
            ("counts", self.counts.len(), n - 1),
            ("raw_counts", self.raw_counts.len(), n - 1),
        ];
        for (what, got, want) in lens {
            if got != want {
                return Err(format!("{got} {what} for {n} levels (expected {want})"));
            }
        }
        if self.counts.contains(&0) {
            return Err("a count of 0".into());
        }
        for &count in &self.counts {
            rigor_runner::limits::check(
                count,
                rigor_runner::limits::MAX_ITERATIONS,
                "repetitions of a level",
                rigor_runner::limits::SAMPLES_WHY,
            )
            .map_err(|e| format!("counts: {e}"))?;
        }
        rigor_runner::limits::check_samples(&self.counts)
            .map_err(|e| format!("counts: {e} per top-level unit"))?;
        Ok(())
    }

    /// Rebuilds the statistics crate's plan.
    pub fn stats_plan(&self) -> Plan {
        Plan {
            levels: self
                .levels
                .iter()
                .zip(&self.costs)
                .zip(&self.t2)
                .map(|((l, c), &t)| LevelCost::new(l.name(), c.get(), t))
                .collect(),
            counts: self.counts.clone(),
            raw: self.raw_counts.clone(),
            collapsed: self
                .levels
                .iter()
                .map(|l| self.collapsed.contains(l))
                .collect(),
        }
    }

    /// Planned count of a level per parent, if it is below the top.
    pub fn count(&self, level: LevelKind) -> Option<usize> {
        let d = self.levels.iter().position(|&l| l == level)?;
        d.checked_sub(1).map(|j| self.counts[j])
    }

    /// Top-level units for a relative half-width.
    pub fn top_units_for(
        &self,
        relative: Fraction,
        level: ConfidenceLevel,
        quantile: Quantile,
    ) -> Result<usize> {
        top_count_for_half_width(
            &self.stats_plan(),
            relative.get() * self.mean.get().abs(),
            level.get(),
            quantile,
        )
        .map_err(|source| AppError::PlanPrecision {
            benchmark: self.name.clone(),
            source,
        })
    }

    /// The file form of the runner's dimensioning, with the precision table.
    pub fn from_dimensioning(
        name: &str,
        p: &BenchPlan,
        level: ConfidenceLevel,
        quantile: Quantile,
    ) -> Self {
        let top_only = Plan {
            counts: vec![1; p.plan.counts.len()],
            raw: vec![1.0; p.plan.counts.len()],
            ..p.plan.clone()
        };
        let row = |percent: f64| {
            let target = Fraction::percent(percent).unwrap_or_default();
            let hw = target.get() * p.estimate.abs();
            let with = |plan: &Plan| {
                top_count_for_half_width(plan, hw, level.get(), quantile)
                    .ok()
                    .map(|r| r.max(p.min_top_units()))
                    .map(|r| (r, Seconds(r as f64 * cost_of_top_unit(plan))))
            };
            let planned = with(&p.plan);
            TargetRow {
                half_width: target,
                top_units: planned.map(|x| x.0),
                seconds: planned.map(|x| x.1),
                top_only_seconds: with(&top_only).map(|x| x.1),
            }
        };
        let kind = |name: &str| LevelKind::from_name(name).unwrap_or(LevelKind::Execution);
        Self {
            name: name.to_string(),
            levels: p.levels.iter().map(|l| kind(l)).collect(),
            costs: p.costs.clone(),
            t2: p.components.t2(),
            counts: p.plan.counts.clone(),
            raw_counts: p.plan.raw.clone(),
            collapsed: p.plan.collapsed_levels().iter().map(|l| kind(l)).collect(),
            mean: Seconds(p.mean),
            pilot_units: p.pilot_units,
            targets: TARGETS_PERCENT.iter().map(|&t| row(t)).collect(),
            warmup_iterations: p.warmup_iterations,
        }
    }
}

impl PlanFile {
    /// Reads a plan file; errors name the file and the place.
    pub fn load(path: &Path) -> Result<Self> {
        let fail = |source: PlanFileError| AppError::PlanFile {
            path: path.to_path_buf(),
            source,
        };
        let text = std::fs::read_to_string(path).map_err(|e| fail(e.into()))?;
        Self::parse(path, &text)
    }

    /// Parses a plan file's text; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<Self> {
        let fail = |source: PlanFileError| AppError::PlanFile {
            path: path.to_path_buf(),
            source,
        };
        let plan: Self = toml::from_str(text).map_err(|e| fail(e.into()))?;
        for (i, b) in plan.benchmark.iter().enumerate() {
            b.check().map_err(|message| {
                fail(PlanFileError::Inconsistent {
                    index: i + 1,
                    name: b.name.clone(),
                    message,
                })
            })?;
        }
        Ok(plan)
    }

    /// The file's text, with a comment saying how to use it.
    pub fn render(&self) -> std::result::Result<String, PlanFileError> {
        Ok(format!("{HEADER}{}", toml::to_string_pretty(self)?))
    }

    /// The plan for each benchmark, matched by name, else by position.
    pub fn for_benchmarks(&self, benchmarks: &[Benchmark]) -> Result<Vec<&BenchmarkPlan>> {
        benchmarks
            .iter()
            .enumerate()
            .map(|(i, b)| {
                self.benchmark
                    .iter()
                    .find(|p| p.name == b.name)
                    .or_else(|| self.benchmark.get(i))
                    .ok_or_else(|| AppError::NotInPlan(b.name.clone()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(seed: u64) -> PlanFile {
        PlanFile {
            rigor_version: "0.1.0".into(),
            seed: Seed(seed),
            confidence: ConfidenceLevel::NINETY_FIVE,
            benchmark: vec![BenchmarkPlan {
                name: "a".into(),
                levels: vec![LevelKind::Execution, LevelKind::Iteration],
                costs: vec![Seconds(0.05), Seconds(0.01)],
                t2: vec![1e-6, 4e-6],
                counts: vec![7],
                raw_counts: vec![7.3],
                collapsed: vec![],
                mean: Seconds(0.01),
                pilot_units: 30,
                targets: vec![TargetRow {
                    half_width: Fraction::percent(1.0).unwrap(),
                    top_units: Some(12),
                    seconds: Some(Seconds(1.5)),
                    top_only_seconds: None,
                }],
                warmup_iterations: 0,
            }],
        }
    }

    #[test]
    fn plans_round_trip_with_any_seed() {
        for seed in [0, 42, 1 << 53, 18_000_000_000_000_000_000, u64::MAX] {
            let p = plan(seed);
            let text = p.render().unwrap();
            assert!(text.starts_with("# rigor plan"));
            assert_eq!(toml::from_str::<PlanFile>(&text).unwrap(), p, "seed {seed}");
        }
    }

    #[test]
    fn absurd_counts_are_refused_when_read_naming_the_limit() {
        let mut p = plan(1);
        p.benchmark[0].counts = vec![1_000_000_000_000];
        let text = p.render().unwrap();
        let e = PlanFile::parse(Path::new("p.toml"), &text).unwrap_err();
        let mut e: &dyn std::error::Error = &e;
        let mut chain = e.to_string();
        while let Some(s) = e.source() {
            chain = format!("{chain}: {s}");
            e = s;
        }
        let e = chain;
        assert!(
            e.contains("p.toml") && e.contains("100000000 repetitions of a level rigor allows"),
            "{e}"
        );
    }

    #[test]
    fn counts_by_level() {
        let p = &plan(1).benchmark[0];
        assert_eq!(p.count(LevelKind::Iteration), Some(7));
        assert_eq!(p.count(LevelKind::Execution), None);
        assert_eq!(p.count(LevelKind::Build), None);
    }
}
