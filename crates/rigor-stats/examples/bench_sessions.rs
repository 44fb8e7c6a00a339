//! Timing of session-adjusted detection on a long history, beside the bare E-divisive scan of
//! the same version levels (machines here are shared and noisy: compare ratios, not absolute
//! times).
//!
//! A seeded history of N versions (default 10,000) measured as `rigor track run` measures them:
//! sessions of 11 new versions, each re-measuring the newest stored version and one earlier
//! stored version (seeded choice), every session shifting what it measures by a factor
//! exp(N(0, 0.05²)), a +5% step at two thirds of the history. One benchmark is timed; the
//! history's `changes` does this once per benchmark.
//!
//! ```text
//! cargo run --release -p rigor-stats --example bench_sessions [versions] [repeats]
//! ```

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rigor_stats::crossed::{Cell, fit};
use rigor_stats::edivisive::detect_changes;
use rigor_stats::series::{SeriesConfig, detect_adjusted};

/// The cells of a history of `versions` versions measured in sessions of `batch` new versions
/// plus two anchors, and the number of sessions.
fn history(versions: usize, batch: usize, seed: u64) -> (Vec<Cell>, usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let shift = Normal::new(0.0, 0.05).unwrap();
    let noise = Normal::new(0.0, 0.01).unwrap();
    let truth = |v: usize| {
        if v >= versions * 2 / 3 {
            0.05_f64.ln_1p()
        } else {
            0.0
        }
    };
    let mut cells = Vec::new();
    let (mut measured, mut session) = (0, 0);
    while measured < versions {
        let s = shift.sample(&mut rng);
        let mut these: Vec<usize> = (measured..(measured + batch).min(versions)).collect();
        if measured > 0 {
            these.push(measured - 1);
            if measured > 1 {
                these.push(rng.gen_range(0..measured - 1));
            }
        }
        for &v in &these {
            cells.push(Cell {
                point: v,
                session,
                value: (0.01_f64).ln() + truth(v) + s + noise.sample(&mut rng),
                variance: 0.01 * 0.01 / 5.0,
            });
        }
        measured = (measured + batch).min(versions);
        session += 1;
    }
    (cells, session)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let versions: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let repeats: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let (cells, sessions) = history(versions, 11, 2026);
    let points: Vec<usize> = (0..versions).collect();
    let cfg = SeriesConfig::default();
    let no_floor = |_: &_, _: &_, interval: (f64, f64)| interval;
    let (mut t_fit, mut t_detect, mut t_scan) = (Vec::new(), Vec::new(), Vec::new());
    let (mut found, mut scanned) = (0, 0);
    for _ in 0..repeats {
        let start = Instant::now();
        let f = fit(versions, sessions, &cells).expect("fit");
        t_fit.push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        let analysis = detect_adjusted(&f, &points, &cfg, &no_floor).expect("detect");
        t_detect.push(start.elapsed().as_secs_f64());
        found = analysis
            .changes
            .iter()
            .filter(|c| c.verdict.is_change())
            .count();
        let means: Vec<f64> = (0..versions).map(|p| f.level(p).unwrap_or(0.0)).collect();
        let start = Instant::now();
        scanned = detect_changes(&means, &cfg.candidates).expect("scan").len();
        t_scan.push(start.elapsed().as_secs_f64());
    }
    let (fit_s, detect_s, scan_s) = (median(t_fit), median(t_detect), median(t_scan));
    println!(
        "{versions} versions in {sessions} sessions ({} cells), one benchmark, median of {repeats}:",
        cells.len()
    );
    println!("  crossed fit (sessions × versions):      {fit_s:.3} s");
    println!(
        "  session-adjusted detection on the fit:  {detect_s:.3} s ({found} change(s) found, 1 true)"
    );
    println!("  E-divisive scan alone on the levels:    {scan_s:.3} s ({scanned} candidate(s))");
    println!(
        "  ratio (fit + detection) / scan:         {:.1}",
        (fit_s + detect_s) / scan_s.max(1e-9)
    );
}
