//! Section 1: coverage of 95% intervals for the mean — rigor's (docs/methodology.md, "The
//! interval", t on the top-level means) against the intervals single-level tools report on the same
//! data.

use rigor_stats::{Quantile, mean_interval, pooled_interval};

use crate::common::{Rate, median, rng_for, row_seed, run_experiments};
use crate::model::{Data, Design, Family, Split};

/// The true mean of every simulated benchmark (the scale is irrelevant).
const MU: f64 = 1.0;

/// One scenario × every method.
#[derive(Debug, Clone)]
pub struct CoverageRow {
    /// Variance split.
    pub split: Split,
    /// Effect distribution.
    pub family: Family,
    /// The design every method sees.
    pub design: Design,
    /// Row seed.
    pub seed: u64,
    /// rigor: t interval on the top-level means (builds when present, else executions).
    pub rigor: Rate,
    /// Every iteration pooled as i.i.d. (criterion/JMH/BenchmarkTools style).
    pub pooled: Rate,
    /// t over the execution means of one build (hyperfine style), 3-level only.
    pub one_build: Option<Rate>,
    /// t over all execution means, build level ignored, 3-level only.
    pub ignore_builds: Option<Rate>,
    /// Median relative half-width of rigor's interval.
    pub rigor_hw: f64,
    /// Median relative half-width of the pooled interval.
    pub pooled_hw: f64,
}

impl CoverageRow {
    /// Label used for the seed and the table.
    pub fn label(split: &Split, family: Family, design: Design) -> String {
        format!(
            "coverage/{}/{}/{}",
            split.name,
            family.name(),
            design.show()
        )
    }
}

struct One {
    rigor: bool,
    pooled: bool,
    one_build: bool,
    ignore_builds: bool,
    rigor_hw: f64,
    pooled_hw: f64,
}

/// Runs `n` experiments of one scenario.
pub fn run_row(master: u64, split: Split, family: Family, design: Design, n: usize) -> CoverageRow {
    let seed = row_seed(master, &CoverageRow::label(&split, family, design));
    let three = design.builds > 0;
    let results = run_experiments(n, |i| {
        let mut rng = rng_for(seed, i);
        let data = Data::draw(&mut rng, &split, family, design, MU);
        let h = data.hierarchy();
        let ours = mean_interval(&h, 0.95, Quantile::StudentT).expect("≥ 2 top units");
        let pooled = pooled_interval(&h, 0.95, Quantile::StudentT).expect("≥ 2 values");
        let (one_build, ignore_builds) = if three {
            let a = mean_interval(&data.first_build(), 0.95, Quantile::StudentT).expect("≥ 2");
            let b = mean_interval(&data.ignoring_builds(), 0.95, Quantile::StudentT).expect("≥ 2");
            (a.contains(MU), b.contains(MU))
        } else {
            (false, false)
        };
        One {
            rigor: ours.contains(MU),
            pooled: pooled.contains(MU),
            one_build,
            ignore_builds,
            rigor_hw: ours.relative_half_width(),
            pooled_hw: pooled.relative_half_width(),
        }
    });
    let rate = |f: fn(&One) -> bool| Rate::of(results.iter().map(f));
    let hw = |f: fn(&One) -> f64| median(&results.iter().map(f).collect::<Vec<_>>());
    CoverageRow {
        split,
        family,
        design,
        seed,
        rigor: rate(|o| o.rigor),
        pooled: rate(|o| o.pooled),
        one_build: three.then(|| rate(|o| o.one_build)),
        ignore_builds: three.then(|| rate(|o| o.ignore_builds)),
        rigor_hw: hw(|o| o.rigor_hw),
        pooled_hw: hw(|o| o.pooled_hw),
    }
}

/// Markdown table of coverage rows.
pub fn table(rows: &[CoverageRow]) -> String {
    let mut s = String::from(
        "| scenario | effects | design | seed | rigor | pooled iterations | one build (hyperfine-style) | executions, builds ignored | median half-width, rigor / pooled |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let opt = |x: &Option<Rate>| x.map_or("= rigor".to_string(), |r| r.show());
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.2}% / {:.2}% |\n",
            r.split.name,
            r.family.name(),
            r.design.show(),
            r.seed,
            r.rigor.show(),
            r.pooled.show(),
            opt(&r.one_build),
            r.ignore_builds.map_or("–".to_string(), |r| r.show()),
            100.0 * r.rigor_hw,
            100.0 * r.pooled_hw,
        ));
    }
    s
}
