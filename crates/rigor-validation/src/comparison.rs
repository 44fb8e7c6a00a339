//! Section 2: false alarms of A/A comparisons and power against true slowdowns, for rigor's
//! verdict and for the rules other tools and Kalibera & Tůma (non-overlapping intervals) use.

use rigor_stats::bootstrap::{BootstrapConfig, Pairing, bootstrap_ratio};
use rigor_stats::compare::{
    CompareConfig, Verdict, compare, overlap_verdict, verdict_from_interval, welch_p_value,
};
use rigor_stats::{Estimator, Hierarchy, Quantile, mean_interval};

use crate::common::{Rate, experiment_seed, rng_for, row_seed, run_experiments};
use crate::model::{Data, Design, Family, Split};

/// Baseline mean.
const MU: f64 = 1.0;
/// rigor's default practical threshold δ, and criterion's default noise threshold.
pub const THRESHOLD: f64 = 0.01;
/// Resamples of the criterion-style bootstrap (criterion's default is 100,000; 1,000 decides the
/// same 2.5% quantiles to about ±0.5 percentage points of coverage).
const CRITERION_RESAMPLES: usize = 1000;
/// rigor's `compare` always runs a bootstrap beside Fieller; for the mean Fieller decides, so a
/// small number of resamples changes no verdict and saves time.
const RIGOR_BOOTSTRAP_RESAMPLES: usize = 200;

/// Counts of rigor's verdicts, in the order regression, improvement, equivalent, inconclusive,
/// unbounded.
pub type VerdictCounts = [usize; 5];

fn verdict_index(v: Verdict) -> usize {
    match v {
        Verdict::Regression => 0,
        Verdict::Improvement => 1,
        Verdict::Equivalent => 2,
        Verdict::Inconclusive => 3,
        Verdict::Unbounded => 4,
    }
}

/// What every method concluded in one experiment. `Some(true)` = the slower direction
/// (regression), `Some(false)` = improvement, `None` = no change reported.
#[derive(Debug, Clone, Copy)]
struct Calls {
    rigor: Verdict,
    rigor0: Option<bool>,
    overlap: Option<bool>,
    welch: Option<bool>,
    criterion: Option<bool>,
}

fn direction(v: Verdict) -> Option<bool> {
    match v {
        Verdict::Regression => Some(true),
        Verdict::Improvement => Some(false),
        _ => None,
    }
}

/// Every method on one pair (candidate, baseline) of hierarchies with their flat (pooled) forms.
fn call_all(
    cand: &Hierarchy,
    base: &Hierarchy,
    cand_flat: &Hierarchy,
    base_flat: &Hierarchy,
    seed: u64,
    with_criterion: bool,
) -> Calls {
    let cfg = CompareConfig {
        threshold: THRESHOLD,
        bootstrap: BootstrapConfig {
            resamples: RIGOR_BOOTSTRAP_RESAMPLES,
            seed,
            ..BootstrapConfig::default()
        },
        ..CompareConfig::default()
    };
    let c = compare(cand, base, &cfg).expect("comparable");
    let rigor0 =
        c.ci.and_then(|ci| direction(verdict_from_interval(ci.lower, ci.upper, 0.0)));
    let ci_c = mean_interval(cand, 0.95, Quantile::StudentT).expect("≥ 2 units");
    let ci_b = mean_interval(base, 0.95, Quantile::StudentT).expect("≥ 2 units");
    let overlap = direction(overlap_verdict(&ci_c, &ci_b).verdict);
    let p = welch_p_value(cand_flat, base_flat).expect("≥ 2 values");
    let slower = cand_flat.grand_mean() > base_flat.grand_mean();
    let welch = (p < 0.05).then_some(slower);
    let criterion = if with_criterion && p < 0.05 {
        let boot = BootstrapConfig {
            resamples: CRITERION_RESAMPLES,
            seed: seed ^ 0xC817,
            ..BootstrapConfig::default()
        };
        let r = bootstrap_ratio(
            cand_flat,
            base_flat,
            Estimator::Mean,
            &boot,
            Pairing::Independent,
        )
        .expect("bootstrap");
        if r.lower - 1.0 > THRESHOLD {
            Some(true)
        } else if r.upper - 1.0 < -THRESHOLD {
            Some(false)
        } else {
            None
        }
    } else {
        None
    };
    Calls {
        rigor: c.verdict,
        rigor0,
        overlap,
        welch,
        criterion,
    }
}

/// One scenario at one true change Δ.
#[derive(Debug, Clone)]
pub struct CompareRow {
    /// Variance split.
    pub split: Split,
    /// Design per system.
    pub design: Design,
    /// True relative slowdown of the candidate (0: A/A).
    pub delta: f64,
    /// Row seed.
    pub seed: u64,
    /// rigor's verdict (δ = 1%) reported a change (A/A) or a regression (Δ > 0).
    pub rigor: Rate,
    /// rigor's Fieller interval excludes 1 (δ = 0).
    pub rigor0: Rate,
    /// The two 95% intervals do not overlap (Kalibera & Tůma 2006; Kalibera, Bulej & Tůma 2005b).
    pub overlap: Rate,
    /// Welch t-test on pooled iterations, p < 0.05.
    pub welch: Rate,
    /// criterion-style rule; `None` when not run.
    pub criterion: Option<Rate>,
    /// rigor's verdicts.
    pub verdicts: VerdictCounts,
}

impl CompareRow {
    fn label(split: &Split, design: Design, delta: f64) -> String {
        format!("compare/{}/{}/{:.3}", split.name, design.show(), delta)
    }
}

/// Whether a call counts: any change for A/A, a regression for a true slowdown.
fn counts(call: Option<bool>, delta: f64) -> bool {
    if delta == 0.0 {
        call.is_some()
    } else {
        call == Some(true)
    }
}

/// Runs `n` comparisons of one scenario at one Δ.
pub fn run_row(
    master: u64,
    split: Split,
    design: Design,
    delta: f64,
    n: usize,
    with_criterion: bool,
) -> CompareRow {
    let seed = row_seed(master, &CompareRow::label(&split, design, delta));
    let calls = run_experiments(n, |i| {
        let mut rng = rng_for(seed, i);
        let base = Data::draw(&mut rng, &split, Family::Normal, design, MU);
        let cand = Data::draw(&mut rng, &split, Family::Normal, design, MU * (1.0 + delta));
        call_all(
            &cand.hierarchy(),
            &base.hierarchy(),
            &cand.flat(),
            &base.flat(),
            experiment_seed(seed, i),
            with_criterion,
        )
    });
    let rate =
        |f: &dyn Fn(&Calls) -> Option<bool>| Rate::of(calls.iter().map(|c| counts(f(c), delta)));
    let mut verdicts = [0; 5];
    for c in &calls {
        verdicts[verdict_index(c.rigor)] += 1;
    }
    CompareRow {
        split,
        design,
        delta,
        seed,
        rigor: rate(&|c| direction(c.rigor)),
        rigor0: rate(&|c| c.rigor0),
        overlap: rate(&|c| c.overlap),
        welch: rate(&|c| c.welch),
        criterion: with_criterion.then(|| rate(&|c| c.criterion)),
        verdicts,
    }
}

/// Markdown table: one row per (scenario, Δ).
pub fn table(rows: &[CompareRow]) -> String {
    let mut s = String::from(
        "| scenario | design per system | true change | seed | rigor verdict (δ = 1%) | rigor CI excludes 1 (δ = 0) | CIs do not overlap | Welch, pooled iterations | criterion-style |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.split.name,
            r.design.show(),
            if r.delta == 0.0 {
                "none (A/A)".to_string()
            } else {
                format!("+{:.0}%", 100.0 * r.delta)
            },
            r.seed,
            r.rigor.show(),
            r.rigor0.show(),
            r.overlap.show(),
            r.welch.show(),
            r.criterion.map_or("–".into(), |c| c.show()),
        ));
    }
    s
}

/// Markdown table of rigor's verdict breakdown per row.
pub fn verdict_table(rows: &[CompareRow]) -> String {
    let mut s = String::from(
        "| scenario | true change | regression | improvement | equivalent | inconclusive | unbounded |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let n = r.verdicts.iter().sum::<usize>().max(1) as f64;
        let p = |k: usize| format!("{:.1}%", 100.0 * r.verdicts[k] as f64 / n);
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            r.split.name,
            if r.delta == 0.0 {
                "none".into()
            } else {
                format!("+{:.0}%", 100.0 * r.delta)
            },
            p(0),
            p(1),
            p(2),
            p(3),
            p(4)
        ));
    }
    s
}

/// False alarms against the number of builds per system (Kalibera & Tůma 2006, Figure 2).
#[derive(Debug, Clone)]
pub struct BuildsRow {
    /// Builds per system.
    pub builds: usize,
    /// Design per system.
    pub design: Design,
    /// Row seed.
    pub seed: u64,
    /// rigor's verdict with builds as the top level (executions when one build).
    pub rigor: Rate,
    /// rigor's CI excludes 1 (δ = 0).
    pub rigor0: Rate,
    /// Non-overlap of the intervals rigor computes (builds on top; executions with one build).
    pub overlap: Rate,
    /// rigor's verdict with the build level ignored (executions on top).
    pub rigor_ignored: Rate,
    /// Non-overlap with the build level ignored.
    pub overlap_ignored: Rate,
    /// Welch on pooled iterations.
    pub welch: Rate,
}

/// A/A comparisons of `split` with `builds` builds per system.
pub fn run_builds_row(
    master: u64,
    split: Split,
    builds: usize,
    executions: usize,
    iterations: usize,
    n: usize,
) -> BuildsRow {
    let design = Design {
        builds,
        executions,
        iterations,
    };
    let seed = row_seed(master, &format!("builds/{}/{}", split.name, design.show()));
    let results = run_experiments(n, |i| {
        let mut rng = rng_for(seed, i);
        let base = Data::draw(&mut rng, &split, Family::Normal, design, MU);
        let cand = Data::draw(&mut rng, &split, Family::Normal, design, MU);
        let (hc, hb) = if builds >= 2 {
            (cand.hierarchy(), base.hierarchy())
        } else {
            (cand.ignoring_builds(), base.ignoring_builds())
        };
        let s = experiment_seed(seed, i);
        let main = call_all(&hc, &hb, &cand.flat(), &base.flat(), s, false);
        let ignored = call_all(
            &cand.ignoring_builds(),
            &base.ignoring_builds(),
            &cand.flat(),
            &base.flat(),
            s,
            false,
        );
        (main, ignored)
    });
    let rate = |f: &dyn Fn(&(Calls, Calls)) -> Option<bool>| {
        Rate::of(results.iter().map(|c| f(c).is_some()))
    };
    BuildsRow {
        builds,
        design,
        seed,
        rigor: rate(&|c| direction(c.0.rigor)),
        rigor0: rate(&|c| c.0.rigor0),
        overlap: rate(&|c| c.0.overlap),
        rigor_ignored: rate(&|c| direction(c.1.rigor)),
        overlap_ignored: rate(&|c| c.1.overlap),
        welch: rate(&|c| c.0.welch),
    }
}

/// Markdown table of the builds sweep.
pub fn builds_table(rows: &[BuildsRow]) -> String {
    let mut s = String::from(
        "| builds per system | design | seed | rigor verdict (δ = 1%) | rigor CI excludes 1 | CIs do not overlap | rigor verdict, builds ignored | CIs do not overlap, builds ignored | Welch, pooled |\n\
         |---:|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.builds,
            r.design.show(),
            r.seed,
            r.rigor.show(),
            r.rigor0.show(),
            r.overlap.show(),
            r.rigor_ignored.show(),
            r.overlap_ignored.show(),
            r.welch.show()
        ));
    }
    s
}
