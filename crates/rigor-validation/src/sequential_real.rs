//! Real A/A programs on this machine run until decided (`rigor run --until-decided`), beside the
//! fixed design of VALIDATION §4 (`rigor run -r 10`) on the same programs in the same session.
//! Part of docs/validation/sequential.md (`rigor-validation sequential`).

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::common::{experiment_seed, median, row_seed, succeeded};
use crate::real::{self, Program};

/// A/A repetitions per program (each: one fixed run, one run until decided).
pub const REPS: usize = 5;
/// Measured-time budget of each run until decided.
pub const BUDGET: &str = "15s";
/// Most rounds of each run until decided (`--max-runs`).
pub const MAX_ROUNDS: usize = 200;

/// One A/A repetition: the fixed design and the run until decided, with the same seed.
#[derive(Debug, Clone)]
pub struct Rep {
    /// rigor's `--seed` (both runs).
    pub seed: u64,
    /// The fixed design's verdict (`rigor run -r 10`).
    pub fixed: String,
    /// The run until decided: verdict, why it stopped, paired rounds, the sequence's bounds.
    pub verdict: String,
    /// `decided`, `budget`, `max_rounds`, …
    pub stop: String,
    /// Paired rounds used.
    pub rounds: usize,
    /// The sequence for B/A at the stop (`None`: unbounded).
    pub sequence: Option<(f64, f64)>,
    /// Wall time of the run until decided, seconds.
    pub wall: f64,
    /// Standard deviation of the paired round log-ratios ln(B/A) the run measured.
    pub sd: f64,
}

/// Each measured execution's value by round (executions are the rounds here).
fn by_round(bench: &Value) -> std::collections::BTreeMap<u64, f64> {
    bench["samples"]
        .as_array()
        .map(|samples| {
            samples
                .iter()
                .filter(|s| s["warmup"].as_bool() != Some(true))
                .filter_map(|s| Some((s["round"].as_u64()?, s["value"].as_f64()?)))
                .collect()
        })
        .unwrap_or_default()
}

/// Standard deviation of ln(B/A) over the rounds both ran.
fn log_ratio_sd(v: &Value) -> f64 {
    let (a, b) = (by_round(&v["benchmarks"][0]), by_round(&v["benchmarks"][1]));
    let x: Vec<f64> = b
        .iter()
        .filter_map(|(k, vb)| Some((vb / a.get(k)?).ln()))
        .filter(|x| x.is_finite())
        .collect();
    if x.len() < 2 {
        return f64::NAN;
    }
    let m = x.iter().sum::<f64>() / x.len() as f64;
    (x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (x.len() - 1) as f64).sqrt()
}

/// All repetitions of one program.
#[derive(Debug, Clone)]
pub struct Row {
    /// The program.
    pub program: Program,
    /// Row seed.
    pub seed: u64,
    /// The repetitions.
    pub reps: Vec<Rep>,
}

fn until_decided(rigor: &Path, command: &str, seed: u64, dir: &Path) -> Result<Rep> {
    let json = dir.join(format!("decided-{seed}.json"));
    let start = std::time::Instant::now();
    let out = Command::new(rigor)
        .args(["run", "--until-decided", "--budget", BUDGET, "--max-runs"])
        .arg(MAX_ROUNDS.to_string())
        .args(["--seed", &seed.to_string(), "--style", "none"])
        .args(["-n", "A", "-n", "B", command, command, "--export-json"])
        .arg(&json)
        .env("LC_ALL", "C")
        .output()
        .context("running rigor run --until-decided")?;
    let wall = start.elapsed().as_secs_f64();
    succeeded(out, "rigor run --until-decided")?;
    let v: Value = serde_json::from_slice(&std::fs::read(&json)?)?;
    let s = &v["comparisons"][0]["sequential"];
    let text = |x: &Value| x.as_str().unwrap_or("?").to_string();
    Ok(Rep {
        seed,
        fixed: String::new(),
        verdict: text(&s["verdict"]),
        stop: text(&s["stop"]),
        rounds: s["rounds"].as_u64().context("sequential.rounds")? as usize,
        sequence: s["lower"].as_f64().zip(s["upper"].as_f64()),
        wall,
        sd: log_ratio_sd(&v),
    })
}

/// Runs [`REPS`] A/A repetitions of each program: the fixed design, then the run until decided.
pub fn run(master: u64, rigor: &Path, programs: &[Program], dir: &Path) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for p in programs {
        let seed = row_seed(master, &format!("sequential-real/{}", p.name));
        let mut reps = Vec::new();
        for i in 0..REPS {
            let s = experiment_seed(seed, i) & 0xFFFF_FFFF;
            let fixed = real::run_rigor(rigor, &p.command, s, dir)?;
            let mut rep = until_decided(rigor, &p.command, s, dir)?;
            rep.fixed = fixed.verdict;
            reps.push(rep);
        }
        rows.push(Row {
            program: p.clone(),
            seed,
            reps,
        });
    }
    Ok(rows)
}

/// The 1-, 5- and 15-minute load averages, as `/proc/loadavg` gives them.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|t| t.split_whitespace().take(3).collect::<Vec<_>>().join(", "))
        .unwrap_or_else(|| "unknown".into())
}

/// The section (Markdown); `load` is the load average before and after the runs.
pub fn section(rows: &[Row], load: (&str, &str)) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## Real A/A programs run until decided\n\nEach program of VALIDATION §4 (same inputs) is \
         benchmarked against itself {REPS} times on this machine with the release `rigor` binary, \
         twice per repetition with the same seed: the fixed design of §4 (`rigor run -r 10`) and \
         `rigor run --until-decided --budget {BUDGET} --max-runs {MAX_ROUNDS} -n A -n B CMD CMD` \
         (δ = 1%, α = 5%, first look after 8 rounds; the budget counts measured time). Load \
         average (1, 5, 15 min) before: {}; after: {}. The machine is shared by several users, so \
         these figures are of a loaded machine.\n",
        load.0, load.1
    );
    let _ = writeln!(
        s,
        "| program | row seed | A/A runs | fixed design (10 rounds): inconclusive | until decided: equivalent | regression or improvement (false) | inconclusive at the budget | rounds to stop, median (range) | wall time per run, median | median sequence of B/A at the stop | SD of the paired round log-ratios, median |\n|---|---:|---:|---:|---:|---:|---:|---|---:|---|---:|"
    );
    for r in rows {
        let n = r.reps.len();
        let count = |f: &dyn Fn(&Rep) -> bool| r.reps.iter().filter(|x| f(x)).count();
        let fixed_inc = count(&|x| x.fixed == "inconclusive");
        let eq = count(&|x| x.verdict == "equivalent");
        let change = count(&|x| x.verdict == "regression" || x.verdict == "improvement");
        let inc = count(&|x| x.verdict == "inconclusive");
        let rounds: Vec<f64> = r.reps.iter().map(|x| x.rounds as f64).collect();
        let (lo, hi) = rounds
            .iter()
            .fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
        let walls: Vec<f64> = r.reps.iter().map(|x| x.wall).collect();
        let lows: Vec<f64> = r
            .reps
            .iter()
            .filter_map(|x| x.sequence.map(|q| q.0))
            .collect();
        let highs: Vec<f64> = r
            .reps
            .iter()
            .filter_map(|x| x.sequence.map(|q| q.1))
            .collect();
        let sds: Vec<f64> = r
            .reps
            .iter()
            .map(|x| x.sd)
            .filter(|x| x.is_finite())
            .collect();
        let seq = if lows.is_empty() {
            "unbounded".to_string()
        } else {
            format!("{:.3} .. {:.3}", median(&lows), median(&highs))
        };
        let _ = writeln!(
            s,
            "| {} | {} | {n} | {fixed_inc} of {n} | {eq} of {n} | {change} of {n} | {inc} of {n} | {:.0} ({lo:.0}–{hi:.0}) | {:.1} s | {seq} | {:.1}% |",
            r.program.name,
            r.seed,
            median(&rounds),
            median(&walls),
            100.0 * median(&sds),
        );
    }
    let _ = writeln!(
        s,
        "\n<details><summary>Every repetition</summary>\n\n| program | rigor --seed | fixed design verdict | until decided: verdict | stop | rounds | sequence of B/A | SD of log-ratios | wall time |\n|---|---:|---|---|---|---:|---|---:|---:|"
    );
    for r in rows {
        for x in &r.reps {
            let seq = x
                .sequence
                .map_or("unbounded".into(), |(a, b)| format!("[{a:.3}, {b:.3}]"));
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {seq} | {:.1}% | {:.1} s |",
                r.program.name,
                x.seed,
                x.fixed,
                x.verdict,
                x.stop,
                x.rounds,
                100.0 * x.sd,
                x.wall
            );
        }
    }
    let _ = writeln!(
        s,
        "\n</details>\n\nHow to read it: deciding *equivalent* within ±δ needs the sequence's \
         half-width, about SD·√(ln(n/(ρα²))/n) after n rounds (ρ = 4), below δ minus the \
         estimated change, so the rounds needed grow as (SD/δ)²: with δ = 1% a per-round SD of \
         2% needs at least about 40 rounds, one of 10% at least about 1,200. The rule assumes \
         the paired log-ratios have a stable spread; on a loaded machine bursts of load change it \
         during a run, and a decision taken in a quiet stretch can be wrong (the fixed design has the same weakness).\n"
    );
    s
}
