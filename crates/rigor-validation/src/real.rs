//! Section 4: A/A comparisons of real programs on this machine, with the built `rigor` binary and,
//! beside it, hyperfine on the same commands.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rigor_stats::compare::{CompareConfig, compare};
use rigor_stats::{Hierarchy, HierarchyBuilder};
use serde_json::Value;

use crate::common::{experiment_seed, median, row_seed, succeeded};

/// Executions per command in each `rigor run` / hyperfine run.
pub const EXECUTIONS: usize = 10;

/// Environment variable naming a `rigor` binary to use instead of building one (e.g. one built
/// with `cargo build --release -p rigor -p rigor-validation`, whose features differ from
/// `-p rigor` alone, so that cargo would compile the dependencies again).
pub const RIGOR_BIN_ENV: &str = "RIGOR_VALIDATION_BIN";

/// Builds the release `rigor` binary and returns its path (or the binary `RIGOR_VALIDATION_BIN`
/// names).
pub fn build_rigor(repo: &Path) -> Result<PathBuf> {
    if let Some(bin) = std::env::var_os(RIGOR_BIN_ENV) {
        let bin = PathBuf::from(bin);
        if !bin.exists() {
            bail!("{RIGOR_BIN_ENV}={}: no such file", bin.display());
        }
        return Ok(bin);
    }
    let status = Command::new("cargo")
        .args(["build", "--release", "-q", "-p", "rigor"])
        .current_dir(repo)
        .status()
        .context("running cargo build -p rigor")?;
    if !status.success() {
        bail!("cargo build --release -p rigor failed");
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo.join("target"), PathBuf::from);
    let target = if target.is_absolute() {
        target
    } else {
        repo.join(target)
    };
    let bin = target.join("release").join("rigor");
    if !bin.exists() {
        bail!("no rigor binary at {}", bin.display());
    }
    Ok(bin)
}

/// The version line of hyperfine, if it is installed.
pub fn hyperfine_version() -> Option<String> {
    let out = Command::new("hyperfine").arg("--version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// One program benchmarked A/A.
#[derive(Debug, Clone)]
pub struct Program {
    /// Short name.
    pub name: String,
    /// The command (run directly, no shell).
    pub command: String,
}

/// Generates the input files and returns the programs.
pub fn programs(dir: &Path, seed: u64) -> Result<Vec<Program>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    const WORDS: [&str; 16] = [
        "rigor",
        "bench",
        "mark",
        "build",
        "execution",
        "iteration",
        "variance",
        "interval",
        "kalibera",
        "jones",
        "tuma",
        "fieller",
        "bootstrap",
        "seed",
        "mean",
        "noise",
    ];
    let text = dir.join("words.txt");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&text)?);
    let mut written = 0usize;
    while written < 3_000_000 {
        let w = WORDS[rng.gen_range(0..WORDS.len())];
        let n: u32 = rng.gen_range(0..100_000);
        let line = format!("{w} {n}\n");
        written += line.len();
        f.write_all(line.as_bytes())?;
    }
    f.flush()?;
    drop(f);
    let lines = dir.join("lines.txt");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&lines)?);
    for _ in 0..150_000 {
        let n: u64 = rng.r#gen();
        writeln!(f, "{n:016x}")?;
    }
    f.flush()?;
    Ok(vec![
        Program {
            name: "gzip -c (3 MB text)".into(),
            command: format!("gzip -c {}", text.display()),
        },
        Program {
            name: "sort (150,000 lines)".into(),
            command: format!("sort {}", lines.display()),
        },
        Program {
            name: "sleep 0.01".into(),
            command: "sleep 0.01".into(),
        },
    ])
}

/// hyperfine's (mean, σ) of A and of B.
type MeanSd2 = ((f64, f64), (f64, f64));

/// One A/A repetition of one program.
#[derive(Debug, Clone)]
pub struct Repetition {
    /// rigor's `--seed`.
    pub seed: u64,
    /// rigor: ratio B/A and its interval (None: unbounded).
    pub ratio: f64,
    /// rigor's ratio interval.
    pub ci: Option<(f64, f64)>,
    /// rigor's verdict.
    pub verdict: String,
    /// The non-overlap rule (Kalibera & Tůma 2006) as rigor reports it.
    pub overlap: String,
    /// Where the comparison came from: rigor's own output or recomputed here.
    pub source: &'static str,
    /// rigor's mean of A and B.
    pub rigor_means: (f64, f64),
    /// hyperfine: (mean, σ) of A and of B.
    pub hyperfine: Option<MeanSd2>,
}

impl Repetition {
    /// rigor reported a change (false alarm in A/A).
    pub fn alarm(&self) -> bool {
        self.verdict == "regression" || self.verdict == "improvement"
    }

    /// rigor's interval excludes 1.
    pub fn excludes_one(&self) -> bool {
        self.ci.is_some_and(|(lo, hi)| lo > 1.0 || hi < 1.0)
    }

    /// hyperfine's ratio B/A with its propagated σ (as hyperfine prints "1.02 ± 0.03 times").
    pub fn hyperfine_ratio(&self) -> Option<(f64, f64)> {
        let ((ma, sa), (mb, sb)) = self.hyperfine?;
        let r = mb / ma;
        Some((r, r * ((sa / ma).powi(2) + (sb / mb).powi(2)).sqrt()))
    }
}

/// All repetitions of one program.
#[derive(Debug, Clone)]
pub struct ProgramResult {
    /// The program.
    pub program: Program,
    /// Row seed (repetition i runs rigor with `--seed` = experiment seed i).
    pub seed: u64,
    /// The repetitions.
    pub reps: Vec<Repetition>,
}

fn per_round_hierarchy(bench: &Value) -> Result<Hierarchy> {
    let mut b = HierarchyBuilder::new(["round", "value"]);
    for s in bench["samples"].as_array().context("samples")? {
        if s["warmup"].as_bool() == Some(true) {
            continue;
        }
        let round = s["round"].as_u64().context("round")? as usize;
        b.push(&[round], s["value"].as_f64().context("value")?);
    }
    Ok(b.build()?)
}

/// One A/A run of `command` with `rigor run -r 10` (the fixed design), its comparison read from
/// the JSON result.
pub fn run_rigor(rigor: &Path, command: &str, seed: u64, dir: &Path) -> Result<Repetition> {
    let json = dir.join(format!("rigor-{seed}.json"));
    let out = Command::new(rigor)
        .args([
            "run",
            "-r",
            &EXECUTIONS.to_string(),
            "--seed",
            &seed.to_string(),
        ])
        .args(["-n", "A", "-n", "B", command, command, "--export-json"])
        .arg(&json)
        .env("LC_ALL", "C")
        .output()
        .context("running rigor")?;
    succeeded(out, "rigor run")?;
    let v: Value = serde_json::from_slice(&std::fs::read(&json)?)?;
    let benches = v["benchmarks"].as_array().context("benchmarks")?;
    let (a, b) = (&benches[0], &benches[1]);
    let rigor_means = (
        a["mean"].as_f64().unwrap_or(f64::NAN),
        b["mean"].as_f64().unwrap_or(f64::NAN),
    );
    if let Some(c) = v["comparisons"].as_array().and_then(|c| c.first()) {
        let ci = c["ci"]
            .as_object()
            .and_then(|ci| Some((ci.get("lower")?.as_f64()?, ci.get("upper")?.as_f64()?)));
        return Ok(Repetition {
            seed,
            ratio: c["ratio"].as_f64().unwrap_or(f64::NAN),
            ci,
            verdict: c["verdict"].as_str().unwrap_or("?").to_string(),
            overlap: c["overlap_verdict"].as_str().unwrap_or("?").to_string(),
            source: "rigor run",
            rigor_means,
            hyperfine: None,
        });
    }
    // No comparison in the file (older rigor): the same analysis from the raw samples, paired
    // by round as rigor does for interleaved commands.
    let (ha, hb) = (per_round_hierarchy(a)?, per_round_hierarchy(b)?);
    let cfg = CompareConfig {
        paired: true,
        bootstrap: rigor_stats::BootstrapConfig::with_seed(seed),
        ..CompareConfig::default()
    };
    let c = compare(&hb, &ha, &cfg)?;
    let ci_a = rigor_stats::mean_interval(&ha, 0.95, rigor_stats::Quantile::StudentT)?;
    let ci_b = rigor_stats::mean_interval(&hb, 0.95, rigor_stats::Quantile::StudentT)?;
    Ok(Repetition {
        seed,
        ratio: c.ratio,
        ci: c.ci.map(|ci| (ci.lower, ci.upper)),
        verdict: c.verdict.as_str().to_string(),
        overlap: rigor_stats::compare::overlap_verdict(&ci_b, &ci_a)
            .verdict
            .as_str()
            .to_string(),
        source: "recomputed (rigor_stats::compare, paired)",
        rigor_means,
        hyperfine: None,
    })
}

fn run_hyperfine(command: &str, dir: &Path, i: usize) -> Result<MeanSd2> {
    let json = dir.join(format!("hyperfine-{i}.json"));
    let out = Command::new("hyperfine")
        .args(["-N", "--runs", &EXECUTIONS.to_string(), "--warmup", "1"])
        .args(["--style", "none", "-n", "A", "-n", "B", command, command])
        .arg("--export-json")
        .arg(&json)
        .env("LC_ALL", "C")
        .output()
        .context("running hyperfine")?;
    succeeded(out, "hyperfine")?;
    let v: Value = serde_json::from_slice(&std::fs::read(&json)?)?;
    let r = v["results"].as_array().context("results")?;
    let get = |k: usize| -> Result<(f64, f64)> {
        Ok((
            r[k]["mean"].as_f64().context("mean")?,
            r[k]["stddev"].as_f64().unwrap_or(f64::NAN),
        ))
    };
    Ok((get(0)?, get(1)?))
}

/// Runs `reps` A/A repetitions of each program with rigor and (when installed) hyperfine,
/// alternating the two tools.
pub fn run(
    master: u64,
    rigor: &Path,
    programs: &[Program],
    reps: usize,
    dir: &Path,
    with_hyperfine: bool,
) -> Result<Vec<ProgramResult>> {
    let mut out = Vec::new();
    for p in programs {
        let seed = row_seed(master, &format!("real/{}", p.name));
        let mut rows = Vec::new();
        for i in 0..reps {
            let s = experiment_seed(seed, i) & 0xFFFF_FFFF;
            let mut rep = run_rigor(rigor, &p.command, s, dir)?;
            if with_hyperfine {
                rep.hyperfine = Some(run_hyperfine(&p.command, dir, i)?);
            }
            rows.push(rep);
        }
        out.push(ProgramResult {
            program: p.clone(),
            seed,
            reps: rows,
        });
    }
    Ok(out)
}

fn ms(x: f64) -> String {
    format!("{:.2} ms", x * 1e3)
}

/// Summary table: one row per program.
pub fn table(results: &[ProgramResult]) -> String {
    let mut s = String::from(
        "| program | row seed | A/A runs | rigor: verdict is a change | rigor: CI excludes 1 | CIs do not overlap | rigor: median CI of B/A | hyperfine: median mean ± σ (A; B) | hyperfine: \"B/A ± σ\" excludes 1 |\n\
         |---|---:|---:|---:|---:|---:|---|---|---:|\n",
    );
    for r in results {
        let n = r.reps.len();
        let alarms = r.reps.iter().filter(|x| x.alarm()).count();
        let excl = r.reps.iter().filter(|x| x.excludes_one()).count();
        let overl = r
            .reps
            .iter()
            .filter(|x| x.overlap == "regression" || x.overlap == "improvement")
            .count();
        let lo: Vec<f64> = r.reps.iter().filter_map(|x| x.ci.map(|c| c.0)).collect();
        let hi: Vec<f64> = r.reps.iter().filter_map(|x| x.ci.map(|c| c.1)).collect();
        let hf: Vec<_> = r.reps.iter().filter_map(|x| x.hyperfine).collect();
        let hyper = if hf.is_empty() {
            "not run".to_string()
        } else {
            let m = |f: &dyn Fn(&MeanSd2) -> f64| median(&hf.iter().map(f).collect::<Vec<_>>());
            format!(
                "{} ± {}; {} ± {}",
                ms(m(&|h| h.0.0)),
                ms(m(&|h| h.0.1)),
                ms(m(&|h| h.1.0)),
                ms(m(&|h| h.1.1))
            )
        };
        let hyper_excl = r
            .reps
            .iter()
            .filter_map(Repetition::hyperfine_ratio)
            .filter(|(ratio, sd)| (ratio - 1.0).abs() > *sd)
            .count();
        s.push_str(&format!(
            "| {} | {} | {} | {alarms} of {n} | {excl} of {n} | {overl} of {n} | {:.3} .. {:.3} | {} | {} |\n",
            r.program.name,
            r.seed,
            n,
            median(&lo),
            median(&hi),
            hyper,
            if hf.is_empty() {
                "–".to_string()
            } else {
                format!("{hyper_excl} of {}", hf.len())
            }
        ));
    }
    s
}

/// Every repetition.
pub fn details(results: &[ProgramResult]) -> String {
    let mut s = String::from(
        "| program | rigor --seed | rigor mean A; B | rigor B/A [95% CI] | verdict | hyperfine mean ± σ A; B | hyperfine B/A ± σ |\n\
         |---|---:|---|---|---|---|---|\n",
    );
    for r in results {
        for x in &r.reps {
            let ci = x.ci.map_or("unbounded".to_string(), |(lo, hi)| {
                format!("[{lo:.3}, {hi:.3}]")
            });
            let (hf, hr) = match (x.hyperfine, x.hyperfine_ratio()) {
                (Some(((ma, sa), (mb, sb))), Some((ratio, sd))) => (
                    format!("{} ± {}; {} ± {}", ms(ma), ms(sa), ms(mb), ms(sb)),
                    format!("{ratio:.3} ± {sd:.3}"),
                ),
                _ => ("–".into(), "–".into()),
            };
            s.push_str(&format!(
                "| {} | {} | {}; {} | {:.3} {} | {} | {} | {} |\n",
                r.program.name,
                x.seed,
                ms(x.rigor_means.0),
                ms(x.rigor_means.1),
                x.ratio,
                ci,
                x.verdict,
                hf,
                hr
            ));
        }
    }
    s
}
