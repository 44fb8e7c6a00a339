//! Section 1b: intervals on few skewed top-level units — the t interval against bootstrap-t,
//! BCa and expanded BCa on the top-level means, over the section 1 grid and further shapes, and
//! the coverage that each number of builds buys when one build in five falls in a far mode.

use rigor_stats::top_means::{TopMethod, miss_probability, top_interval, units_to_see_mode};

use crate::common::{Rate, median, rng_for, row_seed, run_experiments};
use crate::model::{Data, Design, Family, Split};

/// The true mean of every simulated benchmark.
const MU: f64 = 1.0;

/// Bootstrap resamples per interval (B = 999, so (α/2)(B + 1) is whole).
pub const RESAMPLES: usize = 999;

/// Coverage target on skewed rows with at least [`MIN_UNITS`] top-level units.
pub const COVERAGE_TARGET: f64 = 0.93;
/// Largest median half-width relative to the t interval on normal rows.
pub const WIDTH_TARGET: f64 = 1.15;
/// Fewest top-level units the targets apply to.
pub const MIN_UNITS: usize = 6;

/// One scenario, every method.
#[derive(Debug, Clone)]
pub struct SkewRow {
    /// Variance split.
    pub split: Split,
    /// Effect distribution.
    pub family: Family,
    /// Design.
    pub design: Design,
    /// Row seed.
    pub seed: u64,
    /// Coverage per method, in [`TopMethod::ALL`] order.
    pub coverage: Vec<Rate>,
    /// Median half-width per method relative to the t interval's, same order.
    pub width: Vec<f64>,
}

impl SkewRow {
    /// Top-level units of the design.
    pub fn units(&self) -> usize {
        if self.design.builds > 0 {
            self.design.builds
        } else {
            self.design.executions
        }
    }

    /// Whether the row's effects are skewed or multimodal (normal and t₃ are symmetric).
    pub fn skewed(&self) -> bool {
        !matches!(self.family, Family::Normal | Family::StudentT3)
    }
}

/// Runs `n` experiments of one scenario; every method sees the same data and the bootstraps share
/// the seed of the experiment.
pub fn run_row(master: u64, split: Split, family: Family, design: Design, n: usize) -> SkewRow {
    let label = format!("skewed/{}/{}/{}", split.name, family.name(), design.show());
    let seed = row_seed(master, &label);
    let results = run_experiments(n, |i| {
        let mut rng = rng_for(seed, i);
        let data = Data::draw(&mut rng, &split, family, design, MU);
        let means = data.hierarchy().top_means();
        let boot_seed = crate::common::experiment_seed(seed ^ 0xB007, i);
        TopMethod::ALL.map(|m| {
            let ci = top_interval(&means, m, 0.95, RESAMPLES, boot_seed).expect("≥ 2 finite means");
            (ci.contains(MU), ci.half_width())
        })
    });
    let coverage = (0..TopMethod::ALL.len())
        .map(|k| Rate::of(results.iter().map(|r| r[k].0)))
        .collect();
    let t_width = median(&results.iter().map(|r| r[0].1).collect::<Vec<_>>());
    let width = (0..TopMethod::ALL.len())
        .map(|k| median(&results.iter().map(|r| r[k].1).collect::<Vec<_>>()) / t_width)
        .collect();
    SkewRow {
        split,
        family,
        design,
        seed,
        coverage,
        width,
    }
}

/// Whether method `k` meets both targets over `rows`: coverage ≥ 93% on every skewed row with at
/// least six top-level units, and median half-width ≤ 1.15 × t on every normal row.
pub fn meets_targets(rows: &[SkewRow], k: usize) -> bool {
    let covers = rows
        .iter()
        .filter(|r| r.skewed() && r.units() >= MIN_UNITS)
        .all(|r| r.coverage[k].p() >= COVERAGE_TARGET);
    let narrow = rows
        .iter()
        .filter(|r| r.family == Family::Normal)
        .all(|r| r.width[k] <= WIDTH_TARGET);
    covers && narrow
}

/// Per method: (worst coverage on skewed rows with ≥ 6 units, widest median half-width ratio on
/// normal rows).
pub fn summary(rows: &[SkewRow]) -> Vec<(TopMethod, f64, f64)> {
    TopMethod::ALL
        .iter()
        .enumerate()
        .map(|(k, &m)| {
            let worst = rows
                .iter()
                .filter(|r| r.skewed() && r.units() >= MIN_UNITS)
                .map(|r| r.coverage[k].p())
                .fold(f64::INFINITY, f64::min);
            let widest = rows
                .iter()
                .filter(|r| r.family == Family::Normal)
                .map(|r| r.width[k])
                .fold(0.0, f64::max);
            (m, worst, widest)
        })
        .collect()
}

/// Markdown table of the rows.
pub fn table(rows: &[SkewRow]) -> String {
    let mut s = String::from("| scenario | effects | design | seed |");
    for m in TopMethod::ALL {
        s.push_str(&format!(" {} |", m.name()));
    }
    s.push_str(" median half-width ÷ t: ");
    let names: Vec<&str> = TopMethod::ALL[1..].iter().map(|m| m.name()).collect();
    s.push_str(&names.join(" / "));
    s.push_str(" |\n|---|---|---|---:|");
    for _ in TopMethod::ALL {
        s.push_str("---:|");
    }
    s.push_str("---:|\n");
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} |",
            r.split.name,
            r.family.name(),
            r.design.show(),
            r.seed
        ));
        for c in &r.coverage {
            s.push_str(&format!(" {} |", c.show()));
        }
        let w: Vec<String> = r.width[1..].iter().map(|w| format!("{w:.2}")).collect();
        s.push_str(&format!(" {} |\n", w.join(" / ")));
    }
    s
}

/// The rare-mode arithmetic: for the far-mode share p = 0.2 and 0.1, the chance that `n` units
/// miss the mode, and the units needed to see it with 95% probability.
pub fn rare_mode_table(counts: &[usize]) -> String {
    let mut s = String::from("| top-level units n |");
    for n in counts {
        s.push_str(&format!(" {n} |"));
    }
    s.push_str("\n|---|");
    for _ in counts {
        s.push_str("---:|");
    }
    s.push('\n');
    for p in [0.2, 0.1] {
        let need = units_to_see_mode(p, 0.95).unwrap_or(0);
        s.push_str(&format!(
            "| P(no unit in a mode of frequency {p}) (n ≥ {need} for 95%) |"
        ));
        for &n in counts {
            s.push_str(&format!(" {:.1}% |", 100.0 * miss_probability(p, n)));
        }
        s.push('\n');
    }
    s
}
