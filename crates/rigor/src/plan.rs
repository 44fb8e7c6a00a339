//! Plan files (TOML) and the `rigor plan` command: dimension with a pilot experiment, then write
//! the levels, costs, variance components, optimal counts and the top-level counts needed for
//! common precisions, with their estimated time.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};
use rigor_runner::{BenchPlan, Benchmark, PilotSettings, dimension};
use rigor_stats::design::{Plan, cost_of_top_unit, top_count_for_half_width};
use rigor_stats::{LevelCost, Quantile};
use serde::{Deserialize, Serialize};

use crate::cli::PlanArgs;
use crate::run::{Session, start};

/// Precisions (relative half-widths) tabulated in a plan, as Kalibera & Jones' Tables 6/7.
pub const TARGETS: [f64; 4] = [0.005, 0.01, 0.02, 0.05];

/// A plan file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlanFile {
    /// Version of rigor that wrote it.
    pub rigor_version: String,
    /// Seed of the pilot.
    pub seed: u64,
    /// Confidence level of the tabulated half-widths.
    pub confidence: f64,
    /// One plan per benchmark.
    pub benchmark: Vec<BenchmarkPlan>,
}

/// The plan of one benchmark.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchmarkPlan {
    /// Benchmark name.
    pub name: String,
    /// Level names, top → bottom.
    pub levels: Vec<String>,
    /// Seconds per repetition of each level, excluding its sub-levels, top → bottom.
    pub costs: Vec<f64>,
    /// Raw variance components T² (seconds²), top → bottom.
    pub t2: Vec<f64>,
    /// Optimal repetitions of each level below the top, per parent unit.
    pub counts: Vec<usize>,
    /// The unrounded optima behind `counts`.
    pub raw_counts: Vec<f64>,
    /// Levels merged away because they add no detectable variance.
    pub collapsed: Vec<String>,
    /// Pilot mean, seconds.
    pub mean: f64,
    /// Top-level units in the pilot.
    pub pilot_units: usize,
    /// Top-level units and time needed for each tabulated precision.
    pub targets: Vec<TargetRow>,
}

/// One row of the precision table.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TargetRow {
    /// Relative half-width, e.g. 0.01 for ±1%.
    pub half_width: f64,
    /// Top-level units the plan needs.
    pub top_units: Option<usize>,
    /// Estimated seconds with the plan.
    pub seconds: Option<f64>,
    /// Estimated seconds repeating only the top level (one unit of every level below it).
    pub top_only_seconds: Option<f64>,
}

impl BenchmarkPlan {
    /// Rebuilds the statistics crate's plan.
    pub fn stats_plan(&self) -> Plan {
        Plan {
            levels: self
                .levels
                .iter()
                .zip(&self.costs)
                .zip(&self.t2)
                .map(|((l, &c), &t)| LevelCost::new(l.clone(), c, t))
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

    /// Planned count of the named level per parent.
    pub fn count(&self, level: &str) -> Option<usize> {
        let d = self.levels.iter().position(|l| l == level)?;
        d.checked_sub(1).map(|j| self.counts[j])
    }

    /// Top-level units for a relative half-width.
    pub fn top_units_for(&self, relative: f64, level: f64, quantile: Quantile) -> Result<usize> {
        top_count_for_half_width(
            &self.stats_plan(),
            relative * self.mean.abs(),
            level,
            quantile,
        )
        .map_err(|e| anyhow::anyhow!("plan for '{}': {e}", self.name))
    }
}

/// Converts the runner's dimensioning into the file form, with the precision table.
pub fn benchmark_plan(name: &str, p: &BenchPlan, level: f64, quantile: Quantile) -> BenchmarkPlan {
    let top_only = Plan {
        counts: vec![1; p.plan.counts.len()],
        raw: vec![1.0; p.plan.counts.len()],
        ..p.plan.clone()
    };
    let row = |target: f64| {
        let hw = target * p.mean.abs();
        let with = |plan: &Plan| {
            top_count_for_half_width(plan, hw, level, quantile)
                .ok()
                .map(|r| (r, r as f64 * cost_of_top_unit(plan)))
        };
        let planned = with(&p.plan);
        TargetRow {
            half_width: target,
            top_units: planned.map(|x| x.0),
            seconds: planned.map(|x| x.1),
            top_only_seconds: with(&top_only).map(|x| x.1),
        }
    };
    BenchmarkPlan {
        name: name.to_string(),
        levels: p.levels.clone(),
        costs: p.costs.iter().map(|c| c.get()).collect(),
        t2: p.components.t2(),
        counts: p.plan.counts.clone(),
        raw_counts: p.plan.raw.clone(),
        collapsed: p
            .plan
            .collapsed_levels()
            .iter()
            .map(|s| s.to_string())
            .collect(),
        mean: p.mean,
        pilot_units: p.pilot_units,
        targets: TARGETS.iter().map(|&t| row(t)).collect(),
    }
}

/// Reads a plan file; errors name the file and the place.
pub fn load(path: &Path) -> Result<PlanFile> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// The plan for each benchmark, matched by name, else by position.
pub fn for_benchmarks<'p>(
    file: &'p PlanFile,
    benchmarks: &[Benchmark],
) -> Result<Vec<&'p BenchmarkPlan>> {
    benchmarks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            file.benchmark
                .iter()
                .find(|p| p.name == b.name)
                .or_else(|| file.benchmark.get(i))
                .with_context(|| format!("the plan has no entry for '{}'", b.name))
        })
        .collect()
}

/// Human-readable summary of a plan (printed by `rigor plan`).
pub fn describe(p: &BenchmarkPlan) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Plan for {}", p.name);
    let total: f64 = p.t2.iter().map(|t| t.max(0.0)).sum();
    for (i, level) in p.levels.iter().enumerate() {
        let share = if total > 0.0 {
            100.0 * p.t2[i].max(0.0) / total
        } else {
            0.0
        };
        let count = if i == 0 {
            "top".to_string()
        } else {
            format!("{} per {}", p.counts[i - 1], p.levels[i - 1])
        };
        let _ = writeln!(
            out,
            "  {level:<10} cost {:>10}   σ {:>6} of mean   {:>4.0}% of variance   {count}",
            rigor_report::format::time(p.costs[i]),
            rigor_report::format::percent(100.0 * p.t2[i].max(0.0).sqrt() / p.mean.abs()),
            share
        );
    }
    if !p.collapsed.is_empty() {
        let _ = writeln!(
            out,
            "  no detectable variance at: {} (repeated once)",
            p.collapsed.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "  {:>10} {:>12} {:>12} {:>18}",
        "± (95%)",
        p.levels[0].clone() + "s",
        "time",
        "top level only"
    );
    for r in &p.targets {
        let fmt_s = |s: Option<f64>| s.map_or("—".to_string(), rigor_report::format::time);
        let _ = writeln!(
            out,
            "  {:>10} {:>12} {:>12} {:>18}",
            rigor_report::format::percent(100.0 * r.half_width),
            r.top_units.map_or("—".to_string(), |u| u.to_string()),
            fmt_s(r.seconds),
            fmt_s(r.top_only_seconds)
        );
    }
    out
}

/// Runs `rigor plan`.
pub fn plan(args: &PlanArgs) -> Result<()> {
    let mut session = start(&args.run)?;
    let pilot = PilotSettings {
        executions: args.pilot_executions,
        iterations: args.pilot_iterations,
        builds: args.pilot_builds,
        max_time: args.max_time.map(rigor_units::Seconds::new),
    };
    let Session {
        settings,
        stop,
        executor,
        progress,
        ..
    } = &mut session;
    let mut quiet = crate::run::ProgressOnly(progress.clone());
    let rigor_runner::Dimensioning { plans, seconds, .. } = dimension(
        &settings.benchmarks,
        &settings.runner,
        settings.discard,
        &pilot,
        stop.clone(),
        executor.as_mut(),
        &mut quiet,
    )?;
    progress.finish_and_clear();
    if stop.is_requested() {
        bail!("interrupted during the pilot; no plan written");
    }
    let level = settings.analysis.level;
    let quantile = settings.analysis.quantile;
    let mut file = PlanFile {
        rigor_version: env!("CARGO_PKG_VERSION").to_string(),
        seed: settings.runner.seed.get(),
        confidence: level,
        benchmark: Vec::new(),
    };
    for (b, p) in settings.benchmarks.iter().zip(&plans) {
        match p {
            Ok(p) => {
                let bp = benchmark_plan(&b.name, p, level, quantile);
                crate::output::emit(&describe(&bp));
                file.benchmark.push(bp);
            }
            Err(e) => eprintln!("rigor: cannot plan '{}': {e}", b.name),
        }
    }
    crate::output::emit(&format!(
        "Pilot: {} of measured time.\n",
        rigor_report::format::time(seconds.get())
    ));
    if file.benchmark.is_empty() {
        bail!("no benchmark could be planned");
    }
    let text = toml::to_string_pretty(&file).context("rendering the plan")?;
    let header = "# rigor plan: optimal repetition counts per level (Kalibera & Jones 2013, §9).\n# Use with: rigor run --plan FILE [--precision 1%] COMMAND...\n";
    rigor_store::write_atomic(&args.out, format!("{header}{text}").as_bytes())?;
    crate::output::emit(&format!("Plan written to {}\n", args.out.display()));
    Ok(())
}
