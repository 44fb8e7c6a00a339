//! Comparisons that run until decided: the anytime-valid confidence sequence on paired round
//! log-ratios (`rigor_stats::confseq`) under continuous monitoring, against the fixed design and
//! against naive re-testing after every round. Written to docs/validation/sequential.md by
//! `rigor-validation sequential`.

use std::fmt::Write as _;

use rand::Rng;
use rigor_stats::compare::{Verdict, verdict_from_interval};
use rigor_stats::confseq::{SequentialConfig, SequentialStop, run_until_decided};
use rigor_stats::{Quantile, critical_value};

use crate::common::{Rate, mean, median, rng_for, row_seed, run_experiments};
use crate::model::{self, Data, Design, Family, Split};

/// The most rounds an experiment may run (the budget).
pub const BUDGET: usize = 200;

/// What one round runs of each system.
#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    /// Name in tables.
    pub name: &'static str,
    /// Variance split.
    pub split: Split,
    /// One round of one system (a build, or an execution, with what is below it).
    pub round: Design,
}

/// Executions as rounds: xalan9 (Kalibera & Jones 2013, Table 4), 1 execution × 20 iterations.
pub const EXECUTIONS: Scenario = Scenario {
    name: "xalan9, rounds of 1 execution × 20 iterations",
    split: model::XALAN9,
    round: Design {
        builds: 0,
        executions: 1,
        iterations: 20,
    },
};

/// Builds as rounds: xalan9 + layout, each round a fresh build × 3 executions × 10 iterations.
pub const BUILDS: Scenario = Scenario {
    name: "xalan9 + layout, rounds of 1 build × 3 executions × 10 iterations",
    split: model::XALAN9_LAYOUT,
    round: Design {
        builds: 1,
        executions: 3,
        iterations: 10,
    },
};

fn round_mean<R: Rng + ?Sized>(rng: &mut R, s: &Scenario, mu: f64) -> f64 {
    mean(&Data::draw(rng, &s.split, Family::Normal, s.round, mu).values)
}

/// `BUDGET` paired log-ratios ln(candidate/baseline) with a true change `delta`.
fn stream<R: Rng + ?Sized>(rng: &mut R, s: &Scenario, delta: f64) -> Vec<f64> {
    (0..BUDGET)
        .map(|_| {
            let b = round_mean(rng, s, 1.0);
            let c = round_mean(rng, s, 1.0 + delta);
            (c / b).ln()
        })
        .collect()
}

/// Results of one scenario and change.
#[derive(Debug, Clone)]
pub struct SeqRow {
    /// Scenario name.
    pub scenario: &'static str,
    /// True change (0.03 = 3% slower).
    pub delta: f64,
    /// Row seed.
    pub seed: u64,
    /// Share of each verdict at the stop: regression, improvement, equivalent, inconclusive.
    pub verdicts: [Rate; 4],
    /// The sequence excluded the true log-ratio at some round (any of the `BUDGET`).
    pub sequence_miss: Rate,
    /// The fixed-n t interval, re-tested every round, excluded the truth at some round.
    pub naive_miss: Rate,
    /// Mean and median rounds to the stop.
    pub rounds: (f64, f64),
    /// The smallest fixed n whose t-interval verdict matches the sequential design's rate of
    /// its most common decided verdict (`None` if no n ≤ budget does).
    pub fixed_equal_power: Option<usize>,
    /// The smallest fixed n whose t-interval reaches the aimed verdict in at least 90%.
    pub fixed_90: Option<usize>,
    /// Verdict shares of the fixed design with 10 rounds: same order as `verdicts`.
    pub fixed10: [Rate; 4],
}

fn verdict_index(v: Verdict) -> usize {
    match v {
        Verdict::Regression => 0,
        Verdict::Improvement => 1,
        Verdict::Equivalent => 2,
        _ => 3,
    }
}

/// Prefix means and t-interval verdicts of the first `n` log-ratios, for every n.
struct Prefix {
    sum: Vec<f64>,
    sq: Vec<f64>,
}

impl Prefix {
    fn new(x: &[f64]) -> Self {
        let (mut sum, mut sq) = (vec![0.0], vec![0.0]);
        for v in x {
            sum.push(sum.last().copied().unwrap_or(0.0) + v);
            sq.push(sq.last().copied().unwrap_or(0.0) + v * v);
        }
        Self { sum, sq }
    }

    /// Mean and half-width of the 95% t interval on the first n values (n ≥ 2).
    fn t_interval(&self, n: usize, t: &[f64]) -> (f64, f64) {
        let k = n as f64;
        let m = self.sum[n] / k;
        let var = ((self.sq[n] - k * m * m) / (k - 1.0)).max(0.0);
        (m, t[n] * (var / k).sqrt())
    }
}

struct One {
    verdict: usize,
    rounds: usize,
    sequence_miss: bool,
    naive_miss: bool,
    fixed: Vec<usize>,
}

/// Runs `n` seeded experiments of one scenario and change.
pub fn run_row(master: u64, s: Scenario, delta: f64, n: usize) -> SeqRow {
    let seed = row_seed(master, &format!("sequential/{}/{delta}", s.name));
    let cfg = SequentialConfig::default();
    let t: Vec<f64> = (0..=BUDGET)
        .map(|k| {
            critical_value(0.95, k.max(2) as f64 - 1.0, Quantile::StudentT).unwrap_or(f64::NAN)
        })
        .collect();
    let truth = (1.0 + delta).ln();
    let results = run_experiments(n, |i| {
        let mut rng = rng_for(seed, i);
        let x = stream(&mut rng, &s, delta);
        let (look, stop) = run_until_decided(&x, BUDGET, &cfg).expect("finite log-ratios");
        let p = Prefix::new(&x);
        let mut sequence_miss = false;
        let mut naive_miss = false;
        let mut fixed = Vec::with_capacity(BUDGET + 1);
        fixed.push(3);
        fixed.push(3);
        for k in 2..=BUDGET {
            let (m, h) = p.t_interval(k, &t);
            if k >= cfg.min_rounds {
                naive_miss |= (m - truth).abs() > h;
                let l = rigor_stats::confseq::look(&x[..k], &cfg).expect("finite");
                sequence_miss |= l.lower.ln() > truth || l.upper.ln() < truth;
            }
            fixed.push(verdict_index(verdict_from_interval(
                (m - h).exp(),
                (m + h).exp(),
                cfg.threshold,
            )));
        }
        One {
            verdict: match stop {
                SequentialStop::Decided => verdict_index(look.verdict),
                SequentialStop::BudgetSpent => 3,
            },
            rounds: look.rounds,
            sequence_miss,
            naive_miss,
            fixed,
        }
    });
    let share = |k: usize| Rate::of(results.iter().map(|o| o.verdict == k));
    let verdicts = [share(0), share(1), share(2), share(3)];
    // The design's aim: a regression for a change, equivalence for none.
    let aim = if delta > 0.0 { 0 } else { 2 };
    let target = verdicts[aim].p();
    let fixed_equal_power = (cfg.min_rounds..=BUDGET)
        .find(|&k| Rate::of(results.iter().map(|o| o.fixed[k] == aim)).p() >= target);
    let fixed_90 = (cfg.min_rounds..=BUDGET)
        .find(|&k| Rate::of(results.iter().map(|o| o.fixed[k] == aim)).p() >= 0.9);
    let fixed10 = [0, 1, 2, 3].map(|v| Rate::of(results.iter().map(|o| o.fixed[10] == v)));
    let rounds: Vec<f64> = results.iter().map(|o| o.rounds as f64).collect();
    SeqRow {
        scenario: s.name,
        delta,
        seed,
        verdicts,
        sequence_miss: Rate::of(results.iter().map(|o| o.sequence_miss)),
        naive_miss: Rate::of(results.iter().map(|o| o.naive_miss)),
        rounds: (mean(&rounds), median(&rounds)),
        fixed_equal_power,
        fixed_90,
        fixed10,
    }
}

/// Several candidates against one baseline, each stopping on its own at α/K: returns (rate of
/// experiments with any false change among the unchanged candidates, the false discovery rate,
/// power for the changed candidate, mean rounds of the changed candidate).
pub fn run_candidates(
    master: u64,
    s: Scenario,
    deltas: &[f64],
    n: usize,
) -> (Rate, f64, Rate, f64) {
    let seed = row_seed(master, &format!("sequential/candidates/{}", s.name));
    let cfg = SequentialConfig::default().for_candidates(deltas.len());
    let results = run_experiments(n, |i| {
        let mut rng = rng_for(seed, i);
        let mut streams = vec![Vec::with_capacity(BUDGET); deltas.len()];
        for _ in 0..BUDGET {
            let b = round_mean(&mut rng, &s, 1.0);
            for (x, &d) in streams.iter_mut().zip(deltas) {
                x.push((round_mean(&mut rng, &s, 1.0 + d) / b).ln());
            }
        }
        streams
            .iter()
            .map(|x| {
                let (l, stop) = run_until_decided(x, BUDGET, &cfg).expect("finite");
                let change = stop == SequentialStop::Decided && l.verdict.is_change();
                (change, l.verdict, l.rounds)
            })
            .collect::<Vec<_>>()
    });
    let false_any = Rate::of(
        results
            .iter()
            .map(|r| r.iter().zip(deltas).any(|(c, &d)| d == 0.0 && c.0)),
    );
    let fdr = mean(
        &results
            .iter()
            .map(|r| {
                let found = r.iter().filter(|c| c.0).count();
                let wrong = r
                    .iter()
                    .zip(deltas)
                    .filter(|(c, d)| c.0 && **d == 0.0)
                    .count();
                wrong as f64 / found.max(1) as f64
            })
            .collect::<Vec<_>>(),
    );
    let changed = deltas.iter().position(|&d| d != 0.0).unwrap_or(0);
    let power = Rate::of(results.iter().map(|r| r[changed].1 == Verdict::Regression));
    let rounds = mean(
        &results
            .iter()
            .map(|r| r[changed].2 as f64)
            .collect::<Vec<_>>(),
    );
    (false_any, fdr, power, rounds)
}

fn rounds_or_none(k: Option<usize>) -> String {
    k.map_or("none within the budget".to_string(), |k| {
        format!("{k} rounds")
    })
}

/// The whole report (Markdown); `real` is the section of real A/A runs until decided, when
/// measured.
pub fn report(master: u64, n: usize, real: Option<&str>) -> String {
    let cfg = SequentialConfig::default();
    let mut rows = Vec::new();
    for s in [EXECUTIONS, BUILDS] {
        for d in [0.0, 0.03] {
            rows.push(run_row(master, s, d, n));
        }
    }
    let deltas = [0.0, 0.0, 0.03];
    let multi = run_candidates(master, EXECUTIONS, &deltas, n);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Sequential comparisons: run until decided\n\n<!-- Generated by `cargo run --release -p \
         rigor-validation -- sequential`; do not edit by hand. -->\n\nMaster seed {master}; {n} \
         seeded experiments per row (experiment *i* of a row with seed *s* draws from \
         `ChaCha8Rng::seed_from_u64(splitmix64(s + i))`). Each round runs the baseline and the \
         candidate once (simulated with the random-effects model of VALIDATION §1, normal \
         effects); the increments are the paired log-ratios ln(candidate/baseline). The rule \
         (`rigor_stats::confseq`) looks after every round from round {} on at the anytime-valid \
         normal-mixture confidence sequence (Robbins 1970; Howard et al. 2021; ρ = {}, α = {}, σ \
         estimated by the running standard deviation) and stops as soon as it is decided with \
         δ = {:.0}% (regression: above 1 + δ; improvement: below 1 − δ; equivalent: inside), or \
         at the budget of {BUDGET} rounds.\n",
        cfg.min_rounds,
        cfg.rho,
        cfg.alpha,
        100.0 * cfg.threshold
    );
    let _ = writeln!(
        s,
        "| rounds | true change | seed | regression | improvement | equivalent | inconclusive at budget | rounds to stop, mean / median | sequence ever excludes the truth (≤ 5% required) | fixed t interval re-tested every round ever excludes the truth | fixed design with the same rate of the aimed verdict | fixed design reaching it in 90% | fixed design, 10 rounds: inconclusive |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in &rows {
        let _ = writeln!(
            s,
            "| {} | {:+.0}% | {} | {} | {} | {} | {} | {:.1} / {:.0} | {} | {} | {} | {} | {} |",
            r.scenario,
            100.0 * r.delta,
            r.seed,
            r.verdicts[0].show(),
            r.verdicts[1].show(),
            r.verdicts[2].show(),
            r.verdicts[3].show(),
            r.rounds.0,
            r.rounds.1,
            r.sequence_miss.show(),
            r.naive_miss.show(),
            rounds_or_none(r.fixed_equal_power),
            rounds_or_none(r.fixed_90),
            r.fixed10[3].show(),
        );
    }
    let (false_any, fdr, power, rounds) = multi;
    let _ = writeln!(
        s,
        "\n**Several candidates.** Three candidates against one baseline ({}), true changes 0%, 0% \
         and +3%, each stopping on its own with α/3 (Bonferroni: the chance of any false change, \
         and so the false discovery rate, stays at most α whatever the dependence through the \
         shared baseline): a false change among the unchanged candidates in {}; false discovery \
         rate {:.2}%; the +3% candidate found as a regression in {} after {:.1} rounds on \
         average.\n",
        EXECUTIONS.name,
        false_any.show(),
        100.0 * fdr,
        power.show(),
        rounds
    );
    let _ = writeln!(
        s,
        "*Aimed verdict*: regression for the +3% rows, equivalent for the A/A rows. The fixed \
         design column is the smallest number of rounds whose 95% t interval, computed once, \
         reaches the aimed verdict at least as often as the sequential rule did (same data: the \
         first rounds of each experiment). The re-tested column shows why a fixed interval \
         cannot be watched: looking after every round, it excludes the truth far more often \
         than 5%.\n\n`rigor run A B --until-decided` applies this rule (`rigor_runner::decide`): \
         rounds are executions, or with `--build` one build with its executions; each \
         candidate stops being scheduled once decided."
    );
    match real {
        Some(section) => s.push_str(&format!("\n{section}")),
        None => s.push_str(
            "\nNot measured in this run: real A/A programs run until decided (the `sequential` \
             command measures them unless `--no-real`).\n",
        ),
    }
    s
}
