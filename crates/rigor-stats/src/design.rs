//! Optimal repetition counts (docs/methodology.md, "Builds, plans and adaptive runs"; Kalibera &
//! Jones §9.3, Kalibera & Tůma eq. 21/23).
//!
//! Given, for every level, the cost `c_i` of one repetition excluding its sub-levels and the
//! variance component `T_i²` from an initial experiment, minimising the variance of the grand mean
//! for a fixed time budget gives the number of repetitions of each level inside its parent:
//!
//! ```text
//! r_i = ⌈ sqrt( (c_{i+1}/c_i) · (T_i² / T_{i+1}²) ) ⌉        i = 1..n−1
//! ```
//!
//! (level 1 the lowest). The count at the top, `r_n`, comes from a target half-width
//! ([`top_count_for_half_width`]) or a time budget ([`top_count_for_budget`]).
//!
//! **Order.** Everything here is top → bottom, like [`Hierarchy::levels`](crate::Hierarchy):
//! `levels[0]` is the top. [`Plan::counts`] has one entry per level *below* the top:
//! `counts[j]` is the number of units of `levels[j + 1]` inside each unit of `levels[j]`.
//!
//! **Levels without detectable variance** (`T² ≤ 0`) are collapsed, as Kalibera &
//! Jones §9.2 prescribe: repeating them buys nothing.
//! - A level below the top gets one repetition per parent and its cost is merged into the level
//!   above; the counts are then recomputed on the reduced hierarchy. This includes the lowest
//!   level (`T_1² ≤ 0` only when the iterations never vary: one iteration is enough).
//! - The top cannot be repeated less than the interval needs, so a top level without variance is
//!   merged *downwards* instead: each top unit gets one unit of the first level below it that has
//!   variance, and that pair is the effective top unit. The plan stays valid (top-level units are
//!   still replicated, so any top-level variance the initial experiment missed is still
//!   sampled); dropping the top level altogether (e.g. not rebuilding) is the caller's decision.
//!
//! ```
//! use rigor_stats::design::{LevelCost, optimal_counts};
//!
//! // libkalibera's example: costs 100 s per build, 20 s per execution, 3 s per iteration.
//! let plan = optimal_counts(&[
//!     LevelCost::new("build", 100.0, 0.774722),
//!     LevelCost::new("execution", 20.0, 0.262778),
//!     LevelCost::new("iteration", 3.0, 0.726667),
//! ])?;
//! assert_eq!(plan.counts, vec![2, 5]); // 2 executions per build, 5 iterations per execution
//! # Ok::<(), rigor_stats::StatsError>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::dist::{Quantile, critical_value};
use crate::error::{Result, StatsError};
use crate::variance::VarianceComponents;

/// The largest repetition count a plan proposes or a search considers.
pub const MAX_COUNT: usize = 1_000_000;

/// The fewest top-level units a plan proposes: fewer cannot estimate the variance
/// (docs/methodology.md, "The interval").
pub const MIN_TOP_UNITS: usize = crate::interval::RECOMMENDED_TOP_UNITS;

/// Cost and variance component of one level, the input of [`optimal_counts`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelCost {
    /// Name of the level.
    pub level: String,
    /// Seconds one repetition of this level adds, excluding its sub-levels (an iteration's
    /// duration; an execution's start-up, warm-up and teardown; a build's compile time).
    pub cost: f64,
    /// The raw unbiased variance component `T²` of the level (may be ≤ 0).
    pub t2: f64,
}

impl LevelCost {
    /// A level with its cost and raw `T²`.
    pub fn new(level: impl Into<String>, cost: f64, t2: f64) -> Self {
        Self {
            level: level.into(),
            cost,
            t2,
        }
    }
}

/// Pairs variance components with per-level costs (both top → bottom).
///
/// # Errors
/// [`StatsError::Shape`] when the number of costs differs from the number of levels.
pub fn level_costs(components: &VarianceComponents, costs: &[f64]) -> Result<Vec<LevelCost>> {
    if costs.len() != components.components.len() {
        return Err(StatsError::Shape(format!(
            "{} costs given for {} levels",
            costs.len(),
            components.components.len()
        )));
    }
    Ok(components
        .components
        .iter()
        .zip(costs)
        .map(|(c, &cost)| LevelCost::new(c.level.clone(), cost, c.t2))
        .collect())
}

/// Repetition counts for every level below the top.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// The input levels, top → bottom.
    pub levels: Vec<LevelCost>,
    /// `counts[j]`: units of `levels[j + 1]` per unit of `levels[j]`, each in `1..=MAX_COUNT`.
    pub counts: Vec<usize>,
    /// The unrounded optimum behind each count: `sqrt((c_parent/c)(T²/T_parent²))` on the reduced
    /// hierarchy, or exactly 1 where a collapse fixed the count.
    pub raw: Vec<f64>,
    /// Per level (top → bottom): true when `T² ≤ 0` and the level was merged into a neighbour
    /// (the level above; the level below for the top).
    pub collapsed: Vec<bool>,
}

impl Plan {
    /// Count of the named level per unit of its parent; `None` for the top or an unknown name.
    pub fn count_of(&self, level: &str) -> Option<usize> {
        let d = self.levels.iter().position(|l| l.level == level)?;
        d.checked_sub(1).map(|j| self.counts[j])
    }

    /// Names of the levels that were collapsed.
    pub fn collapsed_levels(&self) -> Vec<&str> {
        self.levels
            .iter()
            .zip(&self.collapsed)
            .filter(|(_, c)| **c)
            .map(|(l, _)| l.level.as_str())
            .collect()
    }
}

/// A run of adjacent levels that the plan repeats together: a level with variance and the
/// collapsed levels merged into it.
struct Group {
    /// Depth of the group's first level.
    head: usize,
    /// Summed cost of the group's levels.
    cost: f64,
    /// `T²` of the group's level with variance (0 if none has any).
    t2: f64,
}

/// Groups the levels: a new group starts at each level with `T² > 0`, unless the current group
/// has no variance yet (the top merging downwards).
fn groups(levels: &[LevelCost]) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for (d, l) in levels.iter().enumerate() {
        match out.last_mut() {
            Some(g) if l.t2 <= 0.0 || g.t2 <= 0.0 => {
                g.cost += l.cost;
                if l.t2 > 0.0 {
                    g.t2 = l.t2;
                }
            }
            _ => out.push(Group {
                head: d,
                cost: l.cost,
                t2: l.t2.max(0.0),
            }),
        }
    }
    out
}

fn check_levels(levels: &[LevelCost]) -> Result<()> {
    if levels.is_empty() {
        return Err(StatsError::TooFew {
            what: "a repetition plan (levels)",
            needed: 1,
            got: 0,
        });
    }
    for l in levels {
        if !(l.cost > 0.0 && l.cost.is_finite()) {
            return Err(StatsError::InvalidParameter {
                name: "level cost",
                value: l.cost.to_string(),
                reason: "must be positive and finite (seconds per repetition)",
            });
        }
        if !l.t2.is_finite() {
            return Err(StatsError::InvalidParameter {
                name: "variance component T²",
                value: l.t2.to_string(),
                reason: "must be finite",
            });
        }
    }
    Ok(())
}

/// Optimal repetition counts below the top (docs/methodology.md, "Builds, plans and adaptive
/// runs"), levels top → bottom.
///
/// `r_i = ⌈sqrt((c_{i+1}/c_i)(T_i²/T_{i+1}²))⌉` between adjacent levels with variance, after
/// collapsing the levels with `T² ≤ 0` (see the module documentation); every count is clamped
/// to `1..=MAX_COUNT`.
///
/// # Errors
/// [`StatsError::TooFew`] for no levels; [`StatsError::InvalidParameter`] for a cost that is not
/// positive and finite or a `T²` that is not finite.
pub fn optimal_counts(levels: &[LevelCost]) -> Result<Plan> {
    check_levels(levels)?;
    let n = levels.len();
    let mut counts = vec![1; n - 1];
    let mut raw = vec![1.0; n - 1];
    for pair in groups(levels).windows(2) {
        let (parent, child) = (&pair[0], &pair[1]);
        let r = ((parent.cost / child.cost) * (child.t2 / parent.t2)).sqrt();
        raw[child.head - 1] = r;
        counts[child.head - 1] = round_count(r);
    }
    Ok(Plan {
        levels: levels.to_vec(),
        counts,
        raw,
        collapsed: levels.iter().map(|l| l.t2 <= 0.0).collect(),
    })
}

/// `⌈r⌉` clamped to `1..=MAX_COUNT`, ignoring float noise just above an integer.
fn round_count(r: f64) -> usize {
    let up = (r * (1.0 - 1e-12)).ceil();
    if up >= MAX_COUNT as f64 {
        MAX_COUNT
    } else if up >= 1.0 {
        up as usize
    } else {
        1
    }
}

/// Seconds one top-level unit costs under the plan:
/// `c_n + r_{n−1}(c_{n−1} + r_{n−2}(c_{n−2} + … + r_1 c_1))`.
pub fn cost_of_top_unit(plan: &Plan) -> f64 {
    let n = plan.levels.len();
    (0..n - 1).rev().fold(plan.levels[n - 1].cost, |below, d| {
        plan.levels[d].cost + plan.counts[d] as f64 * below
    })
}

/// Variance of one top-level unit's mean under the plan:
/// `σ_top² = Σ_k max(T_k², 0) / Π_{m=k}^{n−1} r_m` (each level's component divided by the number
/// of its units inside one top unit).
pub fn top_unit_variance(plan: &Plan) -> f64 {
    let mut units = 1.0;
    let mut total = plan.levels[0].t2.max(0.0);
    for (l, &r) in plan.levels[1..].iter().zip(&plan.counts) {
        units *= r as f64;
        total += l.t2.max(0.0) / units;
    }
    total
}

/// Half-width the interval over top-level means is expected to have with `r_top` top-level units:
/// `q_{1−α/2, r_top−1} · sqrt(σ_top² / r_top)` (see [`top_unit_variance`]).
///
/// # Errors
/// [`StatsError::TooFew`] for `r_top < 2`; an invalid `level`.
pub fn predicted_half_width(
    plan: &Plan,
    r_top: usize,
    level: f64,
    quantile: Quantile,
) -> Result<f64> {
    if r_top < 2 {
        return Err(StatsError::TooFew {
            what: "a predicted interval (top-level units)",
            needed: 2,
            got: r_top,
        });
    }
    let q = critical_value(level, (r_top - 1) as f64, quantile)?;
    Ok(q * (top_unit_variance(plan) / r_top as f64).sqrt())
}

/// Smallest top-level count `r ≥ MIN_TOP_UNITS` whose predicted half-width is at most
/// `target_half_width` (in the units of the data). The half-width falls with `r`, so this is a
/// binary search over `MIN_TOP_UNITS..=MAX_COUNT`.
///
/// # Errors
/// [`StatsError::InvalidParameter`] for a target that is not positive and finite, or one that
/// even `MAX_COUNT` top-level units cannot reach; an invalid `level`.
pub fn top_count_for_half_width(
    plan: &Plan,
    target_half_width: f64,
    level: f64,
    quantile: Quantile,
) -> Result<usize> {
    // The same search with no unit measured yet.
    crate::sequential::top_count_with_existing(&[], plan, target_half_width, level, quantile)
}

/// The smallest count in `from..=MAX_COUNT` for which `fits` holds, when `fits` is monotone
/// there (false, then true); `None` when even [`MAX_COUNT`] does not fit. Bisection.
pub(crate) fn first_fit(
    from: usize,
    fits: impl Fn(usize) -> Result<bool>,
) -> Result<Option<usize>> {
    if fits(from)? {
        return Ok(Some(from));
    }
    if !fits(MAX_COUNT)? {
        return Ok(None);
    }
    // Invariant: fits(hi) and !fits(lo).
    let (mut lo, mut hi) = (from, MAX_COUNT);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(Some(hi))
}

/// Number of top-level units a budget of `budget_seconds` affords: `⌊budget / cost of one top
/// unit⌋` (see [`cost_of_top_unit`]). 0 for a budget that is not positive. The result may be below
/// [`MIN_TOP_UNITS`]: the caller should then warn that the budget is too small for an interval.
pub fn top_count_for_budget(plan: &Plan, budget_seconds: f64) -> usize {
    let r = (budget_seconds / cost_of_top_unit(plan)).floor();
    if r >= 1.0 {
        r.min(usize::MAX as f64) as usize
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hierarchy::Hierarchy;
    use crate::variance::variance_components;
    use proptest::prelude::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-5 * b.abs().max(1e-3)
    }

    fn libkalibera_plan() -> Plan {
        // Hand-worked oracle: r = (2, 2, 3) top → bottom.
        let values = vec![3., 4., 3., 1.2, 3.1, 3., 0.2, 1., 1.5, 1., 2., 3.];
        let h = Hierarchy::balanced(vec!["build", "execution", "iteration"], &[2, 2, 3], values)
            .unwrap();
        let vc = variance_components(&h).unwrap();
        optimal_counts(&level_costs(&vc, &[100.0, 20.0, 3.0]).unwrap()).unwrap()
    }

    #[test]
    fn libkalibera_oracle() {
        let plan = libkalibera_plan();
        // r_1 = 4.29366 → 5 iterations per execution, r_2 = 1.30229 → 2 executions per build.
        assert!(close(plan.raw[1], 4.293_66));
        assert!(close(plan.raw[0], 1.302_29));
        assert_eq!(plan.counts, vec![2, 5]);
        assert_eq!(plan.collapsed, vec![false; 3]);
        assert_eq!(plan.count_of("iteration"), Some(5));
        assert_eq!(plan.count_of("build"), None);
        // One build: 100 + 2 · (20 + 5 · 3) = 170 s.
        assert!(close(cost_of_top_unit(&plan), 170.0));
        assert_eq!(top_count_for_budget(&plan, 1000.0), 5);
        assert_eq!(top_count_for_budget(&plan, 169.0), 0);
    }

    #[test]
    fn collapse_merges_cost_upwards() {
        // Executions add no variance: one per build, their 20 s join the build's 100 s, and the
        // iterations are planned against the merged 120 s level.
        let plan = optimal_counts(&[
            LevelCost::new("build", 100.0, 1.0),
            LevelCost::new("execution", 20.0, -0.5),
            LevelCost::new("iteration", 1.0, 2.0),
        ])
        .unwrap();
        let reduced = optimal_counts(&[
            LevelCost::new("build", 120.0, 1.0),
            LevelCost::new("iteration", 1.0, 2.0),
        ])
        .unwrap();
        assert_eq!(plan.counts, vec![1, reduced.counts[0]]);
        assert!(close(plan.raw[1], 240.0_f64.sqrt()));
        assert_eq!(plan.counts[1], 16);
        assert_eq!(plan.collapsed_levels(), vec!["execution"]);
        assert!(close(cost_of_top_unit(&plan), 100.0 + 20.0 + 16.0));
    }

    #[test]
    fn top_and_lowest_without_variance() {
        // Builds add no variance: one execution per build, the pair is the effective top unit.
        let plan = optimal_counts(&[
            LevelCost::new("build", 600.0, -0.1),
            LevelCost::new("execution", 10.0, 4.0),
            LevelCost::new("iteration", 1.0, 1.0),
        ])
        .unwrap();
        assert_eq!(plan.counts[0], 1);
        // Iterations against the merged 610 s unit: sqrt(610 · 1/4) = 12.35 → 13.
        assert_eq!(plan.counts[1], 13);
        assert_eq!(plan.collapsed, vec![true, false, false]);
        // Deterministic iterations: one per execution.
        let plan = optimal_counts(&[
            LevelCost::new("execution", 10.0, 4.0),
            LevelCost::new("iteration", 1.0, 0.0),
        ])
        .unwrap();
        assert_eq!(plan.counts, vec![1]);
        // Nothing varies: every count 1, the interval needs only the minimum.
        let plan = optimal_counts(&[
            LevelCost::new("execution", 10.0, 0.0),
            LevelCost::new("iteration", 1.0, 0.0),
        ])
        .unwrap();
        assert_eq!(plan.counts, vec![1]);
        assert_eq!(
            top_count_for_half_width(&plan, 0.1, 0.95, Quantile::StudentT).unwrap(),
            MIN_TOP_UNITS
        );
    }

    /// Kalibera & Jones Table 4 (variation as % of the mean, 30 executions × 40 iterations):
    /// the execution figure is the spread of execution means, i.e. `S_2`, so
    /// `T_2² = S_2² − S_1²/40`. Costs in units of one iteration.
    fn dacapo(iteration_cv: f64, execution_cv: f64, execution_cost: f64) -> Plan {
        let t1 = iteration_cv * iteration_cv;
        let t2 = execution_cv * execution_cv - t1 / 40.0;
        optimal_counts(&[
            LevelCost::new("execution", execution_cost, t2),
            LevelCost::new("iteration", 1.0, t1),
        ])
        .unwrap()
    }

    #[test]
    fn kalibera_jones_table_4() {
        // lusearch9: execution variance dominates (3.3% vs 30.3%): one iteration per execution
        // even when an execution costs tens of iterations (Table 6: 1).
        for cost in [5.0, 30.0, 80.0] {
            assert_eq!(dacapo(3.3, 30.3, cost).counts, vec![1]);
        }
        // bloat6: iteration variance dominates (14.1% vs 3.7%): many iterations. With 3 warm-up
        // iterations (Table 6) plus about one iteration of start-up, sqrt(4 · 198.81/8.72) = 9.55
        // → 10 iterations, Table 6's figure.
        assert_eq!(dacapo(14.1, 3.7, 4.0).counts, vec![10]);
        assert!(dacapo(14.1, 3.7, 30.0).counts[0] >= 20);
    }

    #[test]
    fn seed_special_cases() {
        // Kalibera, Bulej & Tůma 2005a eq. 8 and 2005b: n_opt = sqrt(w · S_X²/S_A²), w = warm-up
        // cost in measurements.
        let (w, sx, sa) = (20.0, 4.0, 0.5);
        let plan = optimal_counts(&[
            LevelCost::new("run", w, sa),
            LevelCost::new("sample", 1.0, sx),
        ])
        .unwrap();
        assert!(close(plan.raw[0], (w * sx / sa).sqrt()));
        // Kalibera & Tůma 2006 eq. 23: build cost b, warm-up w, measurement cost q (eq. 21 is
        // q = 1):
        // m₀ = sqrt(b/w · S_B²/S_V²)/sqrt(q), n₀ = sqrt(w · S_E²/S_B²).
        let (b, w, q, sv, sb, se) = (500.0, 12.0, 2.5, 0.3, 1.1, 6.0);
        let plan = optimal_counts(&[
            LevelCost::new("binary", b, sv),
            LevelCost::new("execution", w * q, sb),
            LevelCost::new("measurement", q, se),
        ])
        .unwrap();
        assert!(close(plan.raw[0], (b / w * sb / sv).sqrt() / q.sqrt()));
        assert!(close(plan.raw[1], (w * se / sb).sqrt()));
    }

    #[test]
    fn top_count_from_target() {
        let plan = libkalibera_plan();
        // σ_top² = 0.774722 + 0.262778/2 + 0.726667/10 = 0.978483.
        assert!(close(
            top_unit_variance(&plan),
            0.774_722_2 + 0.262_777_8 / 2.0 + 0.072_666_7
        ));
        let target = 0.5;
        let r = top_count_for_half_width(&plan, target, 0.95, Quantile::StudentT).unwrap();
        let hw = |r| predicted_half_width(&plan, r, 0.95, Quantile::StudentT).unwrap();
        assert!(hw(r) <= target && hw(r - 1) > target);
        // A loose target still asks for the minimum of 5.
        assert_eq!(
            top_count_for_half_width(&plan, 100.0, 0.95, Quantile::Normal).unwrap(),
            MIN_TOP_UNITS
        );
        assert!(top_count_for_half_width(&plan, 1e-6, 0.95, Quantile::StudentT).is_err());
        assert!(top_count_for_half_width(&plan, 0.0, 0.95, Quantile::StudentT).is_err());
        assert!(predicted_half_width(&plan, 1, 0.95, Quantile::StudentT).is_err());
    }

    #[test]
    fn rejects_bad_input() {
        assert!(optimal_counts(&[]).is_err());
        assert!(optimal_counts(&[LevelCost::new("a", 0.0, 1.0)]).is_err());
        assert!(optimal_counts(&[LevelCost::new("a", 1.0, f64::NAN)]).is_err());
        let one = optimal_counts(&[LevelCost::new("run", 2.0, 1.0)]).unwrap();
        assert!(one.counts.is_empty());
        assert!(close(cost_of_top_unit(&one), 2.0));
        let vc = variance_components(&Hierarchy::flat("x", vec![1.0, 2.0]).unwrap()).unwrap();
        assert!(level_costs(&vc, &[1.0, 2.0]).is_err());
    }

    fn levels_strategy(t2: std::ops::Range<f64>) -> impl Strategy<Value = Vec<LevelCost>> {
        prop::collection::vec((1e-3..1e3_f64, t2), 1..6).prop_map(|v| {
            v.into_iter()
                .enumerate()
                .map(|(i, (c, t))| LevelCost::new(format!("l{i}"), c, t))
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn counts_are_at_least_one(levels in levels_strategy(-10.0..10.0)) {
            let plan = optimal_counts(&levels).unwrap();
            prop_assert_eq!(plan.counts.len(), levels.len() - 1);
            prop_assert!(plan.counts.iter().all(|&r| (1..=MAX_COUNT).contains(&r)));
            prop_assert!(top_unit_variance(&plan) >= 0.0);
            prop_assert!(cost_of_top_unit(&plan) > 0.0);
        }

        #[test]
        fn dearer_executions_mean_more_iterations(
            t in (1e-3..1e3_f64, 1e-3..1e3_f64, 1e-3..1e3_f64),
            c in (1e-2..1e3_f64, 1e-2..1e3_f64, 1e-2..1e2_f64),
            factor in 1.0..50.0_f64,
        ) {
            let plan = |exec_cost: f64| optimal_counts(&[
                LevelCost::new("build", c.0, t.0),
                LevelCost::new("execution", exec_cost, t.1),
                LevelCost::new("iteration", c.2, t.2),
            ]).unwrap();
            let (cheap, dear) = (plan(c.1), plan(c.1 * factor));
            prop_assert!(dear.counts[1] >= cheap.counts[1]);
            prop_assert!(dear.counts[0] <= cheap.counts[0]);
        }

        #[test]
        fn budget_count_fits_the_budget(levels in levels_strategy(0.1..10.0), budget in 0.0..1e7_f64) {
            let plan = optimal_counts(&levels).unwrap();
            let r = top_count_for_budget(&plan, budget) as f64;
            let cost = cost_of_top_unit(&plan);
            prop_assert!(r * cost <= budget * (1.0 + 1e-12));
            prop_assert!((r + 1.0) * cost > budget);
        }
    }
}
