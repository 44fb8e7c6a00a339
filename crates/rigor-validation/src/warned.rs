//! Section 1c: coverage split by whether rigor warned. Three-level data (builds × executions ×
//! iterations) with skewed or far-mode build effects and few builds, and normal data for the
//! rate of warnings on data that need none: for each row, the share of experiments rigor warned
//! about and the coverage of the warned and the unwarned separately, under the rule before the
//! standing count ([`Warning::ModeNotExcluded`]) and with it.

use rand::Rng;
use rigor_stats::Hierarchy;
use rigor_stats::analysis::{AnalysisConfig, Warning, analyze};

use crate::common::{Rate, rng_for, row_seed, run_experiments};
use crate::model::{ANTLR6_LAYOUT, Family, Split};

/// The true mean of every simulated benchmark.
const MU: f64 = 1.0;
/// Executions per build and iterations per execution.
const LOWER: (usize, usize) = (10, 10);

/// Coverage the unwarned experiments must reach.
pub const UNWARNED_TARGET: f64 = 0.93;
/// Largest share of normal experiments a warning may fire on.
pub const FALSE_WARNING_TARGET: f64 = 0.15;

/// One scenario of the study.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scenario {
    /// Effects of the builds.
    pub builds: Family,
    /// Effects of the executions and iterations.
    pub lower: Family,
    /// Number of builds.
    pub units: usize,
}

impl Scenario {
    /// "log-normal 0.8 builds, normal below" and the like.
    pub fn name(&self) -> String {
        if self.builds == self.lower {
            format!("{}, every level", self.builds.name())
        } else {
            format!("{} builds, {} below", self.builds.name(), self.lower.name())
        }
    }

    /// Whether nothing in it is skewed or multimodal: a warning there is a false one.
    pub fn normal(&self) -> bool {
        self.builds == Family::Normal && self.lower == Family::Normal
    }

    /// Draws one experiment's hierarchy (`split`'s spread per level, 10 × 10 below each build).
    pub fn draw<R: Rng + ?Sized>(&self, rng: &mut R, split: &Split) -> Hierarchy {
        let (executions, iterations) = LOWER;
        let mut values = Vec::with_capacity(self.units * executions * iterations);
        for _ in 0..self.units {
            let b = split.build * self.builds.draw(rng);
            for _ in 0..executions {
                let e = split.execution * self.lower.draw(rng);
                for _ in 0..iterations {
                    let i = split.iteration * self.lower.draw(rng);
                    values.push(MU * (1.0 + b + e + i));
                }
            }
        }
        Hierarchy::balanced(
            vec!["build", "execution", "iteration"],
            &[self.units, executions, iterations],
            values,
        )
        .expect("a balanced design is a valid hierarchy")
    }
}

/// The scenarios of the study: the three of issue #29 §6 (log-normal builds at 12, every level
/// log-normal at 8, a far mode of one build in five at 6), the same shapes at the counts rigor
/// asks for, and normal data at each count.
pub fn scenarios() -> Vec<Scenario> {
    use Family::*;
    let s = |builds, lower, units| Scenario {
        builds,
        lower,
        units,
    };
    vec![
        s(LogNormalStrong, Normal, 12),
        s(LogNormal, Normal, 12),
        s(LogNormalStrong, LogNormalStrong, 8),
        s(FarMode, Normal, 6),
        s(LogNormalStrong, Normal, 14),
        s(LogNormalStrong, Normal, 20),
        s(FarMode, Normal, 14),
        s(FarMode, Normal, 20),
        s(LogNormalStrong, LogNormalStrong, 20),
        s(Normal, Normal, 6),
        s(Normal, Normal, 8),
        s(Normal, Normal, 12),
        s(Normal, Normal, 14),
        s(Normal, Normal, 20),
    ]
}

/// Whether a warning says the interval may not hold its level, by the rule before the standing
/// count: too few units, a shape that may hide a mode, or a skew that needs more units.
pub fn data_warning(w: &Warning) -> bool {
    matches!(
        w,
        Warning::FewTopUnits { .. }
            | Warning::RareModes { .. }
            | Warning::SkewAdjusted {
                advise: Some(_),
                ..
            }
    )
}

/// Whether a warning says the interval may not hold its level, by rigor's rule: the warnings of
/// [`data_warning`] and the standing count [`Warning::ModeNotExcluded`].
pub fn coverage_warning(w: &Warning) -> bool {
    data_warning(w) || matches!(w, Warning::ModeNotExcluded { .. })
}

/// One experiment: whether the interval covered the true mean, and whether each rule warned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// The 95% interval covered the true mean.
    pub covered: bool,
    /// A [`data_warning`] fired.
    pub data: bool,
    /// A [`coverage_warning`] fired.
    pub any: bool,
}

/// Coverage split by one rule's warning.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Split2 {
    /// Share of experiments warned.
    pub warned: Rate,
    /// Coverage of the warned experiments.
    pub covered_warned: Rate,
    /// Coverage of the unwarned experiments.
    pub covered_unwarned: Rate,
}

impl Split2 {
    /// The split of `outcomes` by `warned`.
    pub fn of(outcomes: &[Outcome], warned: impl Fn(&Outcome) -> bool) -> Self {
        Self {
            warned: Rate::of(outcomes.iter().map(&warned)),
            covered_warned: Rate::of(outcomes.iter().filter(|o| warned(o)).map(|o| o.covered)),
            covered_unwarned: Rate::of(outcomes.iter().filter(|o| !warned(o)).map(|o| o.covered)),
        }
    }
}

/// One row of the study.
#[derive(Debug, Clone)]
pub struct Row {
    /// The scenario.
    pub scenario: Scenario,
    /// Row seed.
    pub seed: u64,
    /// Coverage of every experiment.
    pub coverage: Rate,
    /// Split by the rule before the standing count.
    pub before: Split2,
    /// Split by rigor's rule.
    pub now: Split2,
}

/// Runs `n` experiments of `scenario` with rigor's analysis at 95%.
pub fn run_row(master: u64, scenario: Scenario, n: usize) -> Row {
    let label = format!("warned/{}/{}", scenario.name(), scenario.units);
    let seed = row_seed(master, &label);
    let outcomes = run_experiments(n, |i| {
        let mut rng = rng_for(seed, i);
        let h = scenario.draw(&mut rng, &ANTLR6_LAYOUT);
        let a = analyze(&h, &AnalysisConfig::default()).expect("a valid three-level hierarchy");
        Outcome {
            covered: a.interval.lower <= MU && MU <= a.interval.upper,
            data: a.warnings.iter().any(data_warning),
            any: a.warnings.iter().any(coverage_warning),
        }
    });
    Row {
        scenario,
        seed,
        coverage: Rate::of(outcomes.iter().map(|o| o.covered)),
        before: Split2::of(&outcomes, |o| o.data),
        now: Split2::of(&outcomes, |o| o.any),
    }
}

/// Every row at `n` experiments.
pub fn rows(master: u64, n: usize) -> Vec<Row> {
    scenarios()
        .into_iter()
        .map(|s| run_row(master, s, n))
        .collect()
}

/// Whether rigor's rule meets both targets on `rows`: unwarned coverage ≥ 93% on every row
/// with unwarned experiments, and warnings on at most 15% of the normal experiments of rows
/// with at least `from` builds.
pub fn meets_targets(rows: &[Row], from: usize) -> (bool, bool) {
    let covers = rows
        .iter()
        .all(|r| r.now.covered_unwarned.n == 0 || r.now.covered_unwarned.p() >= UNWARNED_TARGET);
    let quiet = rows
        .iter()
        .filter(|r| r.scenario.normal() && r.scenario.units >= from)
        .all(|r| r.now.warned.p() <= FALSE_WARNING_TARGET);
    (covers, quiet)
}

/// Section 1c in Markdown.
pub fn section(rows: &[Row], n: usize, master: u64) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "## 1c. Warned and unwarned coverage\n");
    let _ = writeln!(
        s,
        "Three-level data — builds × {} executions × {} iterations, the antlr6 layout split \
         (build 8.5%, execution and iteration 2.1% of the mean) — {n} experiments per row, \
         master seed {master}, rigor's analysis at 95% (`rigor_stats::analysis::analyze`). \
         *Warned* means a warning that the interval may not hold its level. *Before*: too few \
         units, means that look multimodal or heavy-tailed, or a skew that asks for more units \
         (the rule before issue #29 §6). *Now*: those and the standing count — fewer than 14 \
         builds cannot exclude a mode of one build in five (Kalibera & Tůma 2006 used 30 \
         builds). On normal rows the warned share is the false-warning rate.\n",
        LOWER.0, LOWER.1
    );
    let _ = writeln!(
        s,
        "| build effects | builds | seed | coverage | before: warned | before: coverage warned | before: coverage unwarned | now: warned | now: coverage warned | now: coverage unwarned |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.scenario.name(),
            r.scenario.units,
            r.seed,
            r.coverage.show(),
            r.before.warned.pct(),
            r.before.covered_warned.show(),
            r.before.covered_unwarned.show(),
            r.now.warned.pct(),
            r.now.covered_warned.show(),
            r.now.covered_unwarned.show(),
        );
    }
    let from = rigor_stats::top_means::SKEWED_UNITS_NEEDED;
    let (covers, quiet) = meets_targets(rows, from);
    let yes = |b: bool| if b { "met" } else { "not met" };
    let _ = writeln!(
        s,
        "\nTargets: unwarned coverage ≥ {:.0}% on every row — {}; warnings on at most {:.0}% \
         of normal data from {from} builds — {}. Below {from} builds the standing count warns on \
         every experiment, normal or not: no data-driven rule can do both, because the \
         far-mode experiments that never saw the mode (0.8⁶ = 26% at 6 builds) are normal data, \
         and the log-normal samples that missed the tail look no more skewed than normal ones.",
        100.0 * UNWARNED_TARGET,
        yes(covers),
        100.0 * FALSE_WARNING_TARGET,
        yes(quiet)
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The study's machinery at a small size: seeded (the same seed gives the same rows), the
    /// standing count warns on every experiment below 20 builds and adds nothing from 20, and rigor's
    /// rule never warns less than the rule before it.
    #[test]
    fn small_study_is_seeded_and_splits_by_warning() {
        let pick = |units, builds| Scenario {
            builds,
            lower: Family::Normal,
            units,
        };
        let small = [
            pick(6, Family::FarMode),
            pick(8, Family::Normal),
            pick(20, Family::Normal),
        ];
        let run = || -> Vec<Row> { small.iter().map(|&s| run_row(7, s, 40)).collect() };
        let (a, b) = (run(), run());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!((x.seed, x.coverage, x.now), (y.seed, y.coverage, y.now));
        }
        assert_eq!(a[0].now.warned.hits, 40);
        assert_eq!(a[1].now.warned.hits, 40);
        assert_eq!(a[2].now.warned.hits, a[2].before.warned.hits);
        for r in &a {
            assert!(r.now.warned.hits >= r.before.warned.hits);
            assert_eq!(
                r.now.covered_warned.n + r.now.covered_unwarned.n,
                r.coverage.n
            );
        }
        let text = section(&a, 40, 7);
        assert!(
            text.contains("| far mode 1 in 5 builds, normal below | 6 |"),
            "{text}"
        );
    }
}
