//! Section 5: how fast rigor's own analysis is, and how its time grows with the data.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use rigor_stats::bootstrap::{BootstrapConfig, bootstrap_interval};
use rigor_stats::changepoint::{PeltConfig, pelt, pelt_blocked};
use rigor_stats::{Estimator, Hierarchy, variance_components};

use crate::common::{median, row_seed, succeeded};

/// Iterations per execution in the timed hierarchies.
const PER_EXECUTION: usize = 100;

/// One operation timed at several sizes.
#[derive(Debug, Clone)]
pub struct SpeedRow {
    /// What was timed.
    pub operation: String,
    /// Seed of the data.
    pub seed: u64,
    /// (size, median seconds over the repeats).
    pub points: Vec<(usize, f64)>,
}

impl SpeedRow {
    /// Least-squares slope of ln(time) on ln(size): 1 = linear.
    pub fn slope(&self) -> f64 {
        let pts: Vec<(f64, f64)> = self
            .points
            .iter()
            .filter(|(_, t)| *t > 0.0)
            .map(|&(n, t)| ((n as f64).ln(), t.ln()))
            .collect();
        let k = pts.len() as f64;
        let mx = pts.iter().map(|p| p.0).sum::<f64>() / k;
        let my = pts.iter().map(|p| p.1).sum::<f64>() / k;
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
        sxy / sxx
    }
}

fn executions_data(n: usize, seed: u64) -> Hierarchy {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let execs = n / PER_EXECUTION;
    let mut values = Vec::with_capacity(n);
    for _ in 0..execs {
        let e: f64 = 0.03 * rng.sample::<f64, _>(StandardNormal);
        for _ in 0..PER_EXECUTION {
            let i: f64 = 0.01 * rng.sample::<f64, _>(StandardNormal);
            values.push(1.0 + e + i);
        }
    }
    Hierarchy::balanced(
        vec!["execution", "iteration"],
        &[execs, PER_EXECUTION],
        values,
    )
    .expect("balanced")
}

fn series(n: usize, seed: u64, every: Option<usize>) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let level = every.map_or(0.0, |e| if (i / e) % 2 == 0 { 0.0 } else { 2.0 });
            level + rng.sample::<f64, _>(StandardNormal)
        })
        .collect()
}

/// Median of `repeats` timings; a single timing when the first takes more than 5 s.
fn time<T>(repeats: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut times = Vec::with_capacity(repeats);
    for k in 0..repeats {
        if k == 1 && times[0] > 5.0 {
            break;
        }
        let t = Instant::now();
        std::hint::black_box(f());
        times.push(t.elapsed().as_secs_f64());
    }
    median(&times)
}

/// Times every operation at every size (`repeats` runs each, median).
pub fn run(master: u64, sizes: &[usize], repeats: usize) -> Vec<SpeedRow> {
    let mut rows = Vec::new();
    let seed = row_seed(master, "speed/hierarchy");
    let boot = BootstrapConfig {
        resamples: 10_000,
        seed,
        ..BootstrapConfig::default()
    };
    let mut add = |operation: &str, seed: u64, f: &mut dyn FnMut(usize) -> f64| {
        let points = sizes.iter().map(|&n| (n, f(n))).collect();
        rows.push(SpeedRow {
            operation: operation.into(),
            seed,
            points,
        });
    };
    for (operation, estimator) in [
        (
            "hierarchical bootstrap, mean, 10,000 top-only resamples (executions × 100 iterations)",
            Estimator::Mean,
        ),
        (
            "hierarchical bootstrap, median, 10,000 top-only resamples",
            Estimator::Median,
        ),
    ] {
        add(operation, seed, &mut |n| {
            let h = executions_data(n, seed);
            time(repeats, || {
                bootstrap_interval(&h, estimator, &boot).expect("bootstrap")
            })
        });
    }
    add(
        "variance components (executions × 100 iterations)",
        seed,
        &mut |n| {
            let h = executions_data(n, seed);
            time(repeats, || variance_components(&h).expect("components"))
        },
    );
    let pelt_seed = row_seed(master, "speed/pelt");
    let cfg = PeltConfig::default();
    add(
        "PELT, exact (a level shift every 1,000 points)",
        pelt_seed,
        &mut |n| {
            let x = series(n, pelt_seed, Some(1000));
            time(repeats, || pelt(&x, &cfg).expect("pelt"))
        },
    );
    add(
        "PELT, blocked (block 100; no change: the worst case)",
        pelt_seed,
        &mut |n| {
            let x = series(n, pelt_seed, None);
            time(repeats, || pelt_blocked(&x, &cfg, 100).expect("pelt"))
        },
    );
    rows
}

/// Markdown table.
pub fn table(rows: &[SpeedRow]) -> String {
    let Some(first) = rows.first() else {
        return String::new();
    };
    let mut s = String::from("| operation | data seed |");
    for (n, _) in &first.points {
        s.push_str(&format!(" n = 10^{} |", (*n as f64).log10().round()));
    }
    s.push_str(" log-log slope |\n|---|---:|");
    for _ in &first.points {
        s.push_str("---:|");
    }
    s.push_str("---:|\n");
    for r in rows {
        s.push_str(&format!("| {} | {} |", r.operation, r.seed));
        for (_, t) in &r.points {
            s.push_str(&format!(" {} |", crate::common::seconds(*t)));
        }
        s.push_str(&format!(" {:.2} |\n", r.slope()));
    }
    s
}

/// Runs `python3 scripts/overhead.py --runs N --reps K` in the repository and returns its output.
pub fn overhead(repo: &Path, runs: usize, reps: usize) -> Result<String> {
    let out = Command::new("python3")
        .args([
            "scripts/overhead.py",
            "--runs",
            &runs.to_string(),
            "--reps",
            &reps.to_string(),
        ])
        .current_dir(repo)
        .output()
        .context("running scripts/overhead.py")?;
    let out = succeeded(out, "scripts/overhead.py")?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The quantile bootstraps at scale, timed side by side in one run.
#[derive(Debug, Clone)]
pub struct QuantileScale {
    /// Values in the hierarchy (executions × 100 iterations).
    pub values: usize,
    /// Resamples per bootstrap.
    pub resamples: usize,
    /// Seed of the data and of the resamples.
    pub seed: u64,
    /// (what, seconds for `resamples` resamples).
    pub rows: Vec<(String, f64)>,
}

/// Times the top-only bootstrap of the mean, median and minimum on `n` values with `resamples`
/// resamples, and the naive median reference (each resample materialised, its median selected;
/// in parallel too) on a tenth of the resamples, scaled to `resamples` (its cost is linear in B).
pub fn quantile_scale(master: u64, n: usize, resamples: usize, repeats: usize) -> QuantileScale {
    let seed = row_seed(master, "speed/quantiles");
    let h = executions_data(n, seed);
    let boot = BootstrapConfig {
        resamples,
        seed,
        ..BootstrapConfig::default()
    };
    let mut rows = Vec::new();
    for (name, e) in [
        ("mean (per-unit sums)", Estimator::Mean),
        (
            "median (rank walk over values sorted once)",
            Estimator::Median,
        ),
        ("minimum (per-unit minima)", Estimator::Min),
    ] {
        let t = time(repeats, || {
            bootstrap_interval(&h, e, &boot).expect("bootstrap")
        });
        rows.push((name.to_string(), t));
    }
    let naive_b = (resamples / 10).max(1);
    let t = time(1, || naive_median_replicates(&h, naive_b, seed));
    rows.push((
        format!(
            "median, naive reference (materialise each resample and select; timed on {naive_b} \
             resamples, × {:.0})",
            resamples as f64 / naive_b as f64
        ),
        t * resamples as f64 / naive_b as f64,
    ));
    QuantileScale {
        values: n,
        resamples,
        seed,
        rows,
    }
}

/// The naive median bootstrap: every resample's values copied out and the median selected.
fn naive_median_replicates(h: &Hierarchy, resamples: usize, seed: u64) -> Vec<f64> {
    use rayon::prelude::*;
    let r = h.units(0);
    (0..resamples)
        .into_par_iter()
        .map_init(Vec::new, |buf, b| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (b as u64).wrapping_mul(0x9E37));
            buf.clear();
            for _ in 0..r {
                buf.extend_from_slice(h.unit_values(0, rng.gen_range(0..r)));
            }
            Estimator::Median.apply_in_place(buf)
        })
        .collect()
}

/// Markdown table of [`quantile_scale`], with each time's ratio to the mean's.
pub fn quantile_table(q: &QuantileScale) -> String {
    let mean = q.rows.first().map_or(f64::NAN, |r| r.1);
    let mut s = format!(
        "| top-only bootstrap, {} values (executions × 100 iterations), {} resamples, seed {} | \
         time | ÷ mean |\n|---|---:|---:|\n",
        q.values, q.resamples, q.seed
    );
    for (what, t) in &q.rows {
        s.push_str(&format!(
            "| {what} | {} | {:.1} |\n",
            crate::common::seconds(*t),
            t / mean
        ));
    }
    s
}
