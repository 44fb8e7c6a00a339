//! Change detection over simulated version histories: rigor's method against the rules other
//! tools use, on the same series with known changes.
//!
//! A history is `versions` × `benchmarks`. Each benchmark's noise is one of Kalibera & Jones
//! 2013's Table 4 splits (execution and iteration variation), optionally with build (layout)
//! variation between versions (1.7%, Kalibera & Jones 2013 Figure 2); each version is measured
//! with 10 executions of 10 iterations. Injected: step changes (1–10%, random sign, about one per
//! 100 versions per benchmark), slow drifts (5% over 100 versions, on a tenth of the
//! benchmarks) and one machine-wide shift (+3% on every benchmark at once).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rayon::prelude::*;
use rigor_stats::compare::verdict_from_interval;
use rigor_stats::dist::{Quantile, critical_value};
use rigor_stats::edivisive::{ChangeConfig, detect_changes, two_sample_t_test};
use rigor_stats::fdr::bh_adjusted;
use rigor_stats::series::{SeriesConfig, VersionMean, detect, evaluate};

use crate::model::{BLOAT6, Split, TRADEBEANS9, XALAN6, XALAN9};
use crate::peers::Peer;

/// Executions per version and iterations per execution.
const EXECUTIONS: usize = 10;
const ITERATIONS: usize = 10;
/// Probability that an execution is slowed down by interference (by 10–100%).
const INTERFERENCE: f64 = 0.02;
/// A detection within this many versions of a true change finds it.
const TOLERANCE: usize = 2;
/// A detection farther than [`TOLERANCE`] but within this many versions of a true change is
/// counted as mislocalised, not as a false alarm.
const NEAR: usize = 10;

/// The size of a study.
#[derive(Debug, Clone, Copy)]
pub struct HistorySizes {
    /// Versions per history.
    pub versions: usize,
    /// Benchmarks per history.
    pub benchmarks: usize,
}

impl HistorySizes {
    /// The size: 500 versions × 50 benchmarks.
    pub fn full() -> Self {
        Self {
            versions: 500,
            benchmarks: 50,
        }
    }
    /// A quick look.
    pub fn small() -> Self {
        Self {
            versions: 200,
            benchmarks: 20,
        }
    }
}

/// What happened to one benchmark's series.
#[derive(Debug, Clone)]
struct Truth {
    /// (first version after, relative change) of each step, shift included.
    steps: Vec<(usize, f64)>,
    /// [start, end) of a drift.
    drift: Option<(usize, usize)>,
}

/// One simulated benchmark: its version means and their within-version variances (fields private).
pub struct Series {
    /// Mean of each version's execution means, with its variance.
    versions: Vec<VersionMean>,
    /// Median of each version's execution means, with its variance (what `rigor track` uses).
    robust: Vec<VersionMean>,
    truth: Truth,
}

fn simulate(split: &Split, build_sd: f64, n: usize, shift_at: usize, seed: u64) -> Series {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut steps = Vec::new();
    let mut at = 0usize;
    loop {
        at += rng.gen_range(60..140);
        if at + 10 >= n {
            break;
        }
        let size = rng.gen_range(0.01..0.10) * if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
        steps.push((at, size));
    }
    steps.push((shift_at, 0.03));
    steps.sort_by_key(|s| s.0);
    steps.dedup_by_key(|s| s.0);
    let drift = rng.gen_bool(0.1).then(|| {
        let start = rng.gen_range(20..n.saturating_sub(120).max(21));
        (start, (start + 100).min(n))
    });
    let build = Normal::new(0.0, build_sd.max(1e-12)).expect("sd > 0");
    let execution = Normal::new(0.0, split.execution.max(1e-12)).expect("sd > 0");
    let iteration_mean = Normal::new(
        0.0,
        (split.iteration / (ITERATIONS as f64).sqrt()).max(1e-12),
    )
    .expect("sd");
    let (versions, robust) = (0..n)
        .map(|i| {
            let mut level: f64 = steps
                .iter()
                .filter(|(s, _)| i >= *s)
                .map(|(_, f)| 1.0 + f)
                .product();
            if let Some((a, b)) = drift {
                let progress = (i.saturating_sub(a)).min(b - a) as f64 / (b - a) as f64;
                level *= 1.0 + 0.05 * progress;
            }
            let version_level = level * (1.0 + build.sample(&mut rng));
            let means: Vec<f64> = (0..EXECUTIONS)
                .map(|_| {
                    // Interference: now and then another process slows an execution down (never
                    // speeds it up), as seen on this project's shared machines.
                    let slowdown = if rng.gen_bool(INTERFERENCE) {
                        rng.gen_range(1.1..2.0)
                    } else {
                        1.0
                    };
                    version_level
                        * slowdown
                        * (1.0 + execution.sample(&mut rng) + iteration_mean.sample(&mut rng))
                })
                .collect();
            let m = means.iter().sum::<f64>() / EXECUTIONS as f64;
            let var = means.iter().map(|x| (x - m).powi(2)).sum::<f64>()
                / (EXECUTIONS as f64 - 1.0)
                / EXECUTIONS as f64;
            (
                VersionMean {
                    mean: m,
                    variance: var,
                },
                VersionMean::huber_of(&means).unwrap_or(VersionMean {
                    mean: m,
                    variance: var,
                }),
            )
        })
        .unzip();
    Series {
        versions,
        robust,
        truth: Truth { steps, drift },
    }
}

/// A change-detection method: positions (first version after) of the changes it reports in one
/// series, with a p-value when it has one (for false-discovery-rate control across a history).
type Method = fn(&Series) -> Vec<(usize, Option<f64>)>;

fn rigor(s: &Series) -> Vec<(usize, Option<f64>)> {
    detect(&s.robust, &SeriesConfig::default())
        .map(|a| {
            a.changes
                .iter()
                .map(|c| (c.index, Some(c.p_adjusted)))
                .collect()
        })
        .unwrap_or_default()
}

fn ci_overlap(s: &Series) -> Vec<(usize, Option<f64>)> {
    let v = &s.versions;
    let t = critical_value(0.95, EXECUTIONS as f64 - 1.0, Quantile::StudentT).unwrap_or(2.26);
    (1..v.len())
        .filter(|&i| {
            let (a, b) = (v[i - 1], v[i]);
            let (ha, hb) = (t * a.variance.sqrt(), t * b.variance.sqrt());
            a.mean + ha < b.mean - hb || b.mean + hb < a.mean - ha
        })
        .map(|i| (i, None))
        .collect()
}

fn otava(s: &Series) -> Vec<(usize, Option<f64>)> {
    let v = &s.versions;
    let means: Vec<f64> = v.iter().map(|x| x.mean).collect();
    let cfg = ChangeConfig {
        min_magnitude: 0.0,
        ..ChangeConfig::default()
    };
    detect_changes(&means, &cfg)
        .map(|c| c.iter().map(|c| (c.index, None)).collect())
        .unwrap_or_default()
}

fn perfherder(s: &Series) -> Vec<(usize, Option<f64>)> {
    let v = &s.versions;
    const WINDOW: usize = 12;
    let means: Vec<f64> = v.iter().map(|x| x.mean).collect();
    let mut alerts: Vec<(usize, f64)> = Vec::new();
    for i in WINDOW..means.len().saturating_sub(WINDOW) {
        let (before, after) = (&means[i - WINDOW..i], &means[i..i + WINDOW]);
        let Ok(t) = two_sample_t_test(before, after) else {
            continue;
        };
        let (mb, ma) = (
            before.iter().sum::<f64>() / WINDOW as f64,
            after.iter().sum::<f64>() / WINDOW as f64,
        );
        if t.t.abs() > 7.0 && (ma / mb - 1.0).abs() >= 0.02 {
            alerts.push((i, t.t.abs()));
        }
    }
    // One alert per peak of |t| within a window.
    alerts
        .iter()
        .filter(|(i, t)| {
            alerts
                .iter()
                .all(|(j, u)| j.abs_diff(*i) > WINDOW || u < t || (u == t && j >= i))
        })
        .map(|(i, _)| (*i, None))
        .collect()
}

fn fixed_threshold(s: &Series) -> Vec<(usize, Option<f64>)> {
    let v = &s.versions;
    (1..v.len())
        .filter(|&i| (v[i].mean / v[i - 1].mean - 1.0).abs() > 0.05)
        .map(|i| (i, None))
        .collect()
}

/// A consecutive-pair verdict with each version's own interval (what a tool that compares two
/// versions' results, each measured once, does).
fn consecutive_verdict(s: &Series) -> Vec<(usize, Option<f64>)> {
    let v = &s.versions;
    let t = critical_value(0.95, EXECUTIONS as f64 - 1.0, Quantile::StudentT).unwrap_or(2.26);
    (1..v.len())
        .filter(|&i| {
            let (a, b) = (v[i - 1], v[i]);
            let r = b.mean / a.mean;
            let se =
                (b.variance / (a.mean * a.mean) + r * r * a.variance / (a.mean * a.mean)).sqrt();
            verdict_from_interval(r - t * se, r + t * se, 0.01).is_change()
        })
        .map(|i| (i, None))
        .collect()
}

/// What the data allow: rigor's test of a boundary (versions as the top level, the levels of
/// [`rigor`]) at the true change locations, known, with no search and no false-discovery step:
/// each true step is found when that test calls a change there. No method that has to find the
/// locations can do better on recall; it raises no false alarm by construction (drifts are not
/// steps and are not tested).
fn oracle(s: &Series) -> Vec<(usize, Option<f64>)> {
    let n = s.robust.len();
    let mut at: Vec<usize> = s
        .truth
        .steps
        .iter()
        .map(|&(k, _)| k)
        .filter(|&k| k > 0 && k < n)
        .collect();
    at.sort_unstable();
    at.dedup();
    let cfg = SeriesConfig::default();
    evaluate(&s.robust, &at, &cfg)
        .map(|a| {
            a.changes
                .iter()
                .filter(|c| c.verdict.is_change() && c.p_value <= 1.0 - cfg.level)
                .map(|c| (c.index, None))
                .collect()
        })
        .unwrap_or_default()
}

/// The methods compared, by name (the oracle last: it knows where the changes are).
pub const METHODS: [(&str, Method); 7] = [
    ("rigor (versions as top level, FDR)", rigor),
    (
        "CI non-overlap, consecutive versions (Kalibera, Bulej & Tůma 2005b)",
        ci_overlap,
    ),
    (
        "consecutive ratio verdict, each version's own interval",
        consecutive_verdict,
    ),
    ("E-divisive on version means (Otava's algorithm)", otava),
    (
        "Perfherder t-test (12-version windows, |t| > 7, ≥ 2%)",
        perfherder,
    ),
    ("fixed 5% threshold on consecutive means", fixed_threshold),
    (
        "oracle: rigor's test at the true change locations (known; what the data allow)",
        oracle,
    ),
];

/// One method's scores on one scenario.
#[derive(Debug, Clone, Default)]
pub struct Score {
    /// Reported changes with no true change within ±10 versions and outside drifts, per 1,000
    /// version-benchmark pairs.
    pub false_alarms_per_1000: f64,
    /// Reported changes 3–10 versions from a true change, per 1,000 pairs.
    pub mislocalised_per_1000: f64,
    /// Share of true changes of at least 2% found (within ±2 versions).
    pub recall_2: f64,
    /// Share of true changes of at least 5% found.
    pub recall_5: f64,
    /// Mean distance in versions between a found change and where it truly is.
    pub localisation: f64,
    /// Share of drifts with a reported change inside them.
    pub drifts_found: f64,
    /// Share of histories in which the machine-wide shift is found as one event: at least three
    /// benchmarks, and at least half of them, report a change within ±2 versions of it (the rule
    /// by which `rigor track changes` groups changes into an event).
    pub shift_as_event: f64,
}

/// Scores every method on `histories` histories of one scenario; with `peers` (the path of
/// scripts/history_peers.py), also Apache Otava's and asv's own packages on the same series.
pub fn study_with(
    sizes: HistorySizes,
    build_sd: f64,
    histories: usize,
    seed: u64,
    peers: Option<&std::path::Path>,
) -> Vec<(String, Score)> {
    let data = simulate_histories(sizes, build_sd, histories, seed);
    let mut rows: Vec<(String, Score)> = METHODS
        .iter()
        .map(|(name, method)| {
            let found = detections(&data, *method, name.starts_with("rigor"));
            (name.to_string(), score_found(&data, &found))
        })
        .collect();
    if let Some(script) = peers {
        match run_peers(&data, script) {
            Ok(found) => {
                for (name, f) in found {
                    let score = score_found(&data, &f);
                    rows.push((name, score));
                }
            }
            Err(e) => eprintln!("peers not run: {e}"),
        }
    }
    rows
}

/// Scores rigor's methods only (see [`study_with`]).
pub fn study(sizes: HistorySizes, build_sd: f64, histories: usize, seed: u64) -> Vec<Score> {
    study_with(sizes, build_sd, histories, seed, None)
        .into_iter()
        .map(|(_, s)| s)
        .collect()
}

/// Detections per history, per benchmark.
type Found = Vec<Vec<Vec<usize>>>;

/// Runs the peers' own packages (scripts/history_peers.py installs them) on the version means.
fn run_peers(
    data: &[Vec<Series>],
    script: &std::path::Path,
) -> Result<Vec<(String, Found)>, String> {
    let series: Vec<(String, Vec<f64>)> = data
        .iter()
        .enumerate()
        .flat_map(|(h, history)| {
            history.iter().enumerate().map(move |(b, s)| {
                (
                    format!("{h}/{b}"),
                    s.versions.iter().map(|v| v.mean).collect(),
                )
            })
        })
        .collect();
    let changes = crate::peers::run_peers(&series, script)?;
    let empty: Found = data.iter().map(|h| vec![Vec::new(); h.len()]).collect();
    let mut otava = empty.clone();
    let mut asv = empty;
    for change in changes {
        let Some((h, b)) = change.key.split_once('/') else {
            continue;
        };
        let (Ok(h), Ok(b)) = (h.parse::<usize>(), b.parse::<usize>()) else {
            continue;
        };
        let target = match change.peer {
            Peer::Otava => &mut otava,
            Peer::Asv => &mut asv,
        };
        if let Some(list) = target.get_mut(h).and_then(|x| x.get_mut(b)) {
            list.push(change.index);
        }
    }
    Ok(vec![
        (
            "Apache Otava 0.8.0 (its PyPI package, defaults)".to_string(),
            otava,
        ),
        (
            "asv 0.6.6 step detection (its PyPI package), steps ≥ 5%".to_string(),
            asv,
        ),
    ])
}

fn simulate_histories(
    sizes: HistorySizes,
    build_sd: f64,
    histories: usize,
    seed: u64,
) -> Vec<Vec<Series>> {
    let splits = [BLOAT6, XALAN6, XALAN9, TRADEBEANS9];
    (0..histories)
        .into_par_iter()
        .map(|h| {
            let shift_at = sizes.versions / 2;
            (0..sizes.benchmarks)
                .map(|b| {
                    simulate(
                        &splits[b % splits.len()],
                        build_sd,
                        sizes.versions,
                        shift_at,
                        seed ^ ((h as u64) << 32) ^ b as u64,
                    )
                })
                .collect()
        })
        .collect()
}

/// What `method` reports on every series; with `fdr`, Benjamini–Hochberg at 5% across each
/// history's benchmarks.
fn detections(data: &[Vec<Series>], method: Method, fdr: bool) -> Found {
    data.par_iter()
        .map(|history| {
            let found: Vec<Vec<(usize, Option<f64>)>> = history.iter().map(method).collect();
            if !fdr {
                return found
                    .into_iter()
                    .map(|f| f.into_iter().map(|x| x.0).collect())
                    .collect();
            }
            let p: Vec<f64> = found.iter().flatten().filter_map(|x| x.1).collect();
            let q = bh_adjusted(&p).unwrap_or_else(|_| vec![1.0; p.len()]);
            let mut k = 0;
            found
                .into_iter()
                .map(|f| {
                    f.into_iter()
                        .filter(|_| {
                            let keep = q.get(k).is_some_and(|&q| q <= 0.05);
                            k += 1;
                            keep
                        })
                        .map(|x| x.0)
                        .collect()
                })
                .collect()
        })
        .collect()
}

fn score_found(data: &[Vec<Series>], per_history: &Found) -> Score {
    let (mut pairs, mut false_alarms, mut mislocalised) = (0usize, 0usize, 0usize);
    let (mut big2, mut found2, mut big5, mut found5) = (0usize, 0usize, 0usize, 0usize);
    let (mut dist, mut matched, mut drifts, mut drifts_found) = (0usize, 0usize, 0usize, 0usize);
    let mut events = 0usize;
    for (history, found) in data.iter().zip(per_history) {
        // The machine-wide shift is at the middle version of every benchmark.
        let at_shift = history
            .iter()
            .zip(found)
            .filter(|(s, f)| {
                let shift = s.versions.len() / 2;
                f.iter().any(|d| d.abs_diff(shift) <= TOLERANCE)
            })
            .count();
        events += usize::from(at_shift >= 3 && 2 * at_shift >= history.len());
        for (s, f) in history.iter().zip(found) {
            pairs += s.versions.len() - 1;
            let t = &s.truth;
            for &d in f {
                let distance = t
                    .steps
                    .iter()
                    .map(|(at, _)| at.abs_diff(d))
                    .min()
                    .unwrap_or(usize::MAX);
                let in_drift = t
                    .drift
                    .is_some_and(|(a, b)| d + TOLERANCE >= a && d <= b + TOLERANCE);
                if in_drift || distance <= TOLERANCE {
                    continue;
                }
                if distance <= NEAR {
                    mislocalised += 1;
                } else {
                    false_alarms += 1;
                }
            }
            for &(at, size) in &t.steps {
                let hit = f
                    .iter()
                    .filter(|d| d.abs_diff(at) <= TOLERANCE)
                    .min_by_key(|d| d.abs_diff(at));
                if size.abs() >= 0.02 {
                    big2 += 1;
                    found2 += usize::from(hit.is_some());
                }
                if size.abs() >= 0.05 {
                    big5 += 1;
                    found5 += usize::from(hit.is_some());
                }
                if let Some(d) = hit {
                    dist += d.abs_diff(at);
                    matched += 1;
                }
            }
            if let Some((a, b)) = t.drift {
                drifts += 1;
                drifts_found += usize::from(f.iter().any(|&d| d >= a && d <= b));
            }
        }
    }
    let share = |x: usize, of: usize| {
        if of == 0 {
            f64::NAN
        } else {
            x as f64 / of as f64
        }
    };
    Score {
        false_alarms_per_1000: 1000.0 * share(false_alarms, pairs),
        mislocalised_per_1000: 1000.0 * share(mislocalised, pairs),
        recall_2: share(found2, big2),
        recall_5: share(found5, big5),
        localisation: share(dist, matched),
        drifts_found: share(drifts_found, drifts),
        shift_as_event: share(events, data.len()),
    }
}

/// The Markdown section of the study.
pub fn report(
    sizes: HistorySizes,
    histories: usize,
    seed: u64,
    peers: Option<&std::path::Path>,
) -> String {
    let mut out = format!(
        "# Change detection over version histories\n\n\
         Regenerate with `cargo run --release -p rigor-validation -- history` (seed {seed}).\n\n\
         Each scenario simulates {histories} histories of {} versions × {} benchmarks. Noise per \
         benchmark: Kalibera & Jones 2013 Table 4 splits (bloat6, xalan6, xalan9, tradebeans9; \
         execution and iteration variation), each version measured with {EXECUTIONS} executions \
         × {ITERATIONS} iterations. Injected: steps of 1–10% (random sign, about one per 100 \
         versions per benchmark), a slow drift of 5% over 100 versions on about a tenth of the \
         benchmarks, and a machine-wide shift of +3% on every benchmark at the middle version. \
         Interference: 2% of executions are slowed by 10–100% (another process on the machine; \
         timings are only ever disturbed upwards). rigor takes each version's level as Huber's \
         M-estimate of its execution means (efficient under ordinary noise, robust to slowed \
         executions); the other rules use means, as those tools do. A \
         reported change within ±{TOLERANCE} versions of a true step finds it; one 3–{NEAR} \
         versions from a true step is mislocalised; one farther from every step and outside \
         drifts is a false alarm. All methods see the same series.\n\n",
        sizes.versions, sizes.benchmarks
    );
    for (title, build_sd) in [
        ("Without build variance", 0.0),
        (
            "With build (layout) variance between versions, 1.7% (Kalibera & Jones 2013, Figure 2)",
            0.017,
        ),
    ] {
        let scores = study_with(sizes, build_sd, histories, seed, peers);
        out += &format!(
            "## {title}\n\n| method | false alarms / 1,000 pairs | mislocalised / 1,000 pairs | recall, changes ≥ 2% | recall, ≥ 5% | localisation (versions) | drifts found | shift as one event |\n|---|---:|---:|---:|---:|---:|---:|---:|\n"
        );
        for (name, s) in &scores {
            // A `|` in a name (Perfherder's `|t|`) would end a Markdown table cell.
            let name = name.replace('|', "\\|");
            out += &format!(
                "| {name} | {:.2} | {:.2} | {:.1}% | {:.1}% | {:.2} | {:.0}% | {:.0}% |\n",
                s.false_alarms_per_1000,
                s.mislocalised_per_1000,
                100.0 * s.recall_2,
                100.0 * s.recall_5,
                s.localisation,
                100.0 * s.drifts_found,
                100.0 * s.shift_as_event
            );
        }
        out.push('\n');
    }
    out += "The machine-wide shift is scored per benchmark in the recall columns; the last column is \
             the share of histories in which it is found as one event (at least three benchmarks, \
             and at least half, report it within ±2 versions: the rule by which `rigor track \
             changes` shows changes that moved together). With `--peers`, Apache Otava's and asv's own packages run on the \
             same version means (scripts/history_peers.py installs them from PyPI into \
             target/peers-venv); without it, Otava's algorithm is represented by rigor-stats' \
             implementation of it.\n";
    out
}

/// The histories this study simulates, for the events study (`crate::events`): each
/// benchmark's series with the machine-wide +3% shift at the middle version.
pub fn simulated(
    sizes: HistorySizes,
    build_sd: f64,
    histories: usize,
    seed: u64,
) -> Vec<Vec<Series>> {
    simulate_histories(sizes, build_sd, histories, seed)
}

impl Series {
    /// Each version's level as `rigor track` takes it (Huber's estimate of its execution means).
    pub fn levels(&self) -> &[VersionMean] {
        &self.robust
    }
    /// The steps injected: (first version after, relative change), the shift included.
    pub fn steps(&self) -> &[(usize, f64)] {
        &self.truth.steps
    }
    /// The drift's versions `[start, end)`, when the benchmark has one.
    pub fn drift(&self) -> Option<(usize, usize)> {
        self.truth.drift
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The headline, on a small study: rigor's false alarms stay near zero when builds vary,
    /// where the consecutive tests that trust each version's interval do not.
    #[test]
    fn rigor_beats_consecutive_tests_when_builds_vary() {
        let sizes = HistorySizes {
            versions: 300,
            benchmarks: 12,
        };
        let scores = study(sizes, 0.017, 2, 5);
        let (rigor, overlap, verdict) = (&scores[0], &scores[1], &scores[2]);
        assert!(rigor.false_alarms_per_1000 < 1.0, "{rigor:?}");
        assert!(overlap.false_alarms_per_1000 > 10.0, "{overlap:?}");
        assert!(verdict.false_alarms_per_1000 > 10.0, "{verdict:?}");
        assert!(rigor.recall_5 > 0.85, "{rigor:?}");
    }
}

#[cfg(test)]
mod look {
    #[test]
    #[ignore = "prints a small study"]
    fn print_small() {
        println!(
            "{}",
            super::report(super::HistorySizes::small(), 2, 11, None)
        );
    }
}
