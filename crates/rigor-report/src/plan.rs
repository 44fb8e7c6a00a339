//! A plan in words (printed by `rigor plan`): each level's cost, noise and share of the
//! variance with its count, the warm-up, and the top-level units and time per precision.

use std::fmt::Write as _;

use rigor_units::{Fraction, Seconds};

use crate::format::{percent, time};

/// One row of the precision table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TargetView {
    /// Relative half-width.
    pub half_width: Fraction,
    /// Top-level units the plan needs.
    pub top_units: Option<usize>,
    /// Estimated time with the plan.
    pub seconds: Option<Seconds>,
    /// Estimated time repeating only the top level.
    pub top_only_seconds: Option<Seconds>,
}

/// One benchmark's plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanView<'a> {
    /// The benchmark.
    pub name: &'a str,
    /// Its levels, top → bottom.
    pub levels: Vec<&'a str>,
    /// Each level's cost per unit.
    pub costs: &'a [Seconds],
    /// Each level's variance component.
    pub t2: &'a [f64],
    /// Units per unit of the level above, for each level below the top.
    pub counts: &'a [usize],
    /// The mean.
    pub mean: Seconds,
    /// Warm-up iterations per execution counted in its cost.
    pub warmup_iterations: usize,
    /// Levels without detectable variance.
    pub collapsed: Vec<&'a str>,
    /// The precision table.
    pub targets: Vec<TargetView>,
}

/// The plan in words.
pub fn render(p: &PlanView<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Plan for {}", p.name);
    let total: f64 = p.t2.iter().map(|t| t.max(0.0)).sum();
    let mean = p.mean.get();
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
            "  {:<10} cost {:>10}   σ {:>6} of mean   {:>4.0}% of variance   {count}",
            level,
            time(p.costs[i].get()),
            percent(100.0 * p.t2[i].max(0.0).sqrt() / mean.abs()),
            share
        );
    }
    if p.warmup_iterations > 0 {
        let _ = writeln!(
            out,
            "  warm-up: the first {} iteration(s) of each execution, counted in its cost; run \
             with --discard auto to run them before the planned iterations",
            p.warmup_iterations
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
        format!("{}s", p.levels[0]),
        "time",
        "top level only"
    );
    for r in &p.targets {
        let fmt_s = |s: Option<Seconds>| s.map_or("—".to_string(), |s| time(s.get()));
        let _ = writeln!(
            out,
            "  {:>10} {:>12} {:>12} {:>18}",
            percent(r.half_width.as_percent()),
            r.top_units.map_or("—".to_string(), |u| u.to_string()),
            fmt_s(r.seconds),
            fmt_s(r.top_only_seconds)
        );
    }
    out
}

/// What `rigor plan` says when the plan is written: the pilot's measured time, and where.
pub fn written(pilot: rigor_units::Seconds, out: &str) -> String {
    format!("Pilot: {pilot} of measured time.\nPlan written to {out}\n")
}
