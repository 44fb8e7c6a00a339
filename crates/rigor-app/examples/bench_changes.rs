//! Speed of `rigor track changes` on a long history, beside the bare E-divisive scan of the same
//! levels and beside the path detection took before the history stored each run's level (every
//! sample read back), all in one run (machines here are shared and noisy: compare ratios, not
//! absolute times).
//!
//! ```text
//! cargo run --release -p rigor-app --example bench_changes -- [versions] [benchmarks] [--shape add|run] [--keep DIR] [--only-changes N]
//! ```
//!
//! With `--keep DIR` the history is built in `DIR` (named by its size and shape) and reused when
//! it is already there, so that a rerun times without building it again.
//!
//! A SQLite history of `benchmarks` (default 50) × `versions` (default 10,000), one run of 5
//! executions per version and benchmark, a +5% step half way. `--shape add` (the default): each
//! version in a session of its own, as `rigor track add` stores results one by one. `--shape
//! run`: as `rigor track run` measures, sessions of 11 new versions each re-measuring the newest
//! stored version and one earlier one (seeded), every session shifting its levels by about 5%.
//!
//! Timed, in order: reading every sample back and detecting on each version's Huber level (what
//! detection did before the history kept levels; no sessions); the stored summaries alone
//! (`HistoryRead::summaries`, in full) and what levels read of them (`HistoryRead::levels`);
//! the levels (that read and each benchmark's crossed fit of
//! sessions and versions, `track::levels::series_levels`); the whole `changes` use case
//! (`track::detect_changes`: levels, detection, false discovery rate, storing); and the
//! E-divisive scan alone on the same levels. Then, to show where the time of `changes` goes, its
//! pieces alone and one benchmark after another: each benchmark's detection on its fit, and the
//! joint scan of the benchmarks together (machine-wide shifts).

use std::time::Instant;

use rigor_app::track::{DetectSettings, detect_changes, levels::series_levels};
use rigor_history::{
    HistoryRead, HistoryWrite, Ingest, MachineInfo, NewSession, Role, SeriesKey, SessionKind,
    SqliteHistory, VersionInfo,
};
use rigor_stats::HierarchyBuilder;
use rigor_stats::edivisive::{ChangeConfig, detect_changes as scan};
use rigor_stats::joint::{JointConfig, StepSeries, scan as joint_scan};
use rigor_stats::series::{SeriesConfig, VersionMean, detect, detect_adjusted};
use rigor_store::{BenchmarkRecord, Layout, ResultFile, SampleRecord};
use rigor_units::{ConfidenceLevel, Seed};

/// Cheap deterministic noise in [-0.5, 0.5) (xorshift).
struct Noise(u64);

impl Noise {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }
}

/// One result: every benchmark measured in 5 executions at `level`, analysed.
fn result(seed: u64, benchmarks: &[String], level: f64) -> ResultFile {
    let mut r = ResultFile::new(Seed(seed), ConfidenceLevel::NINETY_FIVE);
    let mut noise = Noise::new(seed);
    for name in benchmarks {
        let mut b = BenchmarkRecord::new(name.clone(), "./bench", Layout::new(false, false));
        for e in 0..5 {
            b.samples.push(SampleRecord {
                build: None,
                round: e,
                execution: e,
                iteration: 0,
                value: level * (1.0 + 0.02 * noise.next()),
                warmup: false,
            });
        }
        r.benchmarks.push(b);
    }
    // Analysed as `rigor run` analyses what it saves: the history stores each benchmark's mean,
    // interval and variance components beside its level, as it does for real results.
    rigor_app::analysis::analyze_all(&mut r, &rigor_app::settings::AnalysisSettings::default());
    r
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let shape_run = args
        .iter()
        .position(|a| a == "--shape")
        .and_then(|i| args.get(i + 1))
        .is_some_and(|s| s == "run");
    let numbers: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let versions = numbers.first().copied().unwrap_or(10_000);
    let count = numbers.get(1).copied().unwrap_or(50);
    let keep = args
        .iter()
        .position(|a| a == "--keep")
        .and_then(|i| args.get(i + 1))
        .map(std::path::PathBuf::from);
    let temporary = tempfile::tempdir().expect("a temporary directory");
    let db = keep.as_deref().unwrap_or(temporary.path()).join(format!(
        "series-{count}x{versions}-{}-analysed.db",
        if shape_run { "run" } else { "add" }
    ));
    let reuse = keep.is_some() && db.exists();
    let machine = MachineInfo {
        name: "bench".into(),
        environment: Default::default(),
    };
    let key = SeriesKey::new("bench", "main");
    let names: Vec<String> = (0..count).map(|b| format!("b{b}")).collect();
    let mut h = SqliteHistory::open(&db).expect("a new history");
    let truth = |v: usize| if v >= versions / 2 { 1.05 } else { 1.0 };
    let info = |v: usize| VersionInfo {
        rev: format!("v{v}"),
        order: Some(v as i64),
        ..Default::default()
    };
    let t = Instant::now();
    let mut seed = 1000;
    if reuse {
        // Built by an earlier run.
    } else if shape_run {
        let mut shifts = Noise::new(7);
        let mut measured = 0;
        while measured < versions {
            let session = h
                .begin_session(&NewSession {
                    machine: &machine,
                    kind: SessionKind::Run,
                    started: jiff::Timestamp::now(),
                    load_before: None,
                    rigor_version: "bench",
                })
                .expect("a session");
            // A shift of about ±5% (uniform, SD 0.05 on the log scale).
            let shift = (0.05 * 12f64.sqrt() * shifts.next()).exp();
            let mut these: Vec<(usize, Role)> = Vec::new();
            if measured > 0 {
                these.push((measured - 1, Role::Anchor));
                if measured > 1 {
                    let earlier = ((shifts.next() + 0.5) * (measured - 1) as f64) as usize;
                    these.push((earlier.min(measured - 2), Role::Anchor));
                }
            }
            these.extend((measured..(measured + 11).min(versions)).map(|v| (v, Role::New)));
            for (v, role) in these {
                seed += 1;
                let r = result(seed, &names, truth(v) * shift);
                let version = info(v);
                let mut ingest = Ingest::new(&version, &machine, "main", &r);
                ingest.session = Some(session);
                ingest.role = role;
                h.ingest(&ingest).expect("stored");
            }
            measured = (measured + 11).min(versions);
        }
    } else {
        for v in 0..versions {
            seed += 1;
            let r = result(seed, &names, truth(v));
            let version = info(v);
            h.ingest(&Ingest::new(&version, &machine, "main", &r))
                .expect("stored");
        }
    }
    let fill = t.elapsed().as_secs_f64();
    println!(
        "history: {count} benchmarks x {versions} versions, shape {} ({} {fill:.1} s)",
        if shape_run { "run" } else { "add" },
        if reuse {
            "reused, opened in"
        } else {
            "stored in"
        }
    );

    // `--only-changes N`: the `changes` use case N times and nothing else (for a profiler).
    if let Some(n) = args
        .iter()
        .position(|a| a == "--only-changes")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse::<usize>().ok())
    {
        for _ in 0..n {
            let t = Instant::now();
            let changes =
                detect_changes(&mut h, &key, &DetectSettings::default()).expect("detected");
            println!(
                "`changes`: {:.3} s, {} changes",
                t.elapsed().as_secs_f64(),
                changes.len()
            );
        }
        return;
    }

    // Before: every sample read back, each version's Huber level, detection without sessions.
    let t = Instant::now();
    let mut read_samples = 0.0;
    let mut found_before = 0;
    for name in &names {
        let r = Instant::now();
        let series = h.series(&key, name).expect("read");
        read_samples += r.elapsed().as_secs_f64();
        let means: Vec<VersionMean> = series
            .iter()
            .map(|v| {
                let mut b = HierarchyBuilder::new(v.benchmark.level_names());
                for s in &v.benchmark.samples {
                    b.push(&v.benchmark.layout.unit_path(s), s.value);
                }
                VersionMean::huber(&b.build().expect("units")).expect("a level")
            })
            .collect();
        found_before += detect(&means, &SeriesConfig::default())
            .expect("detected")
            .changes
            .len();
    }
    let before = t.elapsed().as_secs_f64();

    // Now: the stored summaries, the levels from them, the whole use case.
    let t = Instant::now();
    let summaries = h.summaries(&key).expect("read").len();
    let read_summaries = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let stored = h.levels(&key).expect("read").levels.len();
    let read_levels = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let levels = series_levels(&h, &key, ConfidenceLevel::NINETY_FIVE).expect("levels");
    let levels_time = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let changes = detect_changes(&mut h, &key, &DetectSettings::default()).expect("detected");
    let now = t.elapsed().as_secs_f64();

    // The bare scan on the same levels (one per point).
    let t = Instant::now();
    let mut scanned = 0;
    for l in &levels {
        let x: Vec<f64> = l
            .points()
            .iter()
            .map(|&(_, first)| l.versions[first].level)
            .collect();
        scanned += scan(&x, &ChangeConfig::default()).expect("scanned").len();
    }
    let scan_time = t.elapsed().as_secs_f64();

    // Where `changes` spends its time: the pieces of the use case alone, one benchmark after
    // another (the use case runs the benchmarks' fits and detections in parallel).
    let t = Instant::now();
    let cfg = SeriesConfig::default();
    let mut detections = Vec::new();
    for l in &levels {
        let points = l.points();
        let fit_points: Vec<usize> = points.iter().map(|p| p.0).collect();
        let a = detect_adjusted(&l.fit, &fit_points, &cfg, &|_, _, i| i).expect("detected");
        detections.push((
            fit_points,
            a.changes.iter().map(|c| c.index).collect::<Vec<_>>(),
        ));
    }
    let detect_time = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let series: Vec<StepSeries<'_>> = levels
        .iter()
        .zip(&detections)
        .map(|(l, (fit_points, own))| {
            let first: Vec<usize> = l.points().iter().map(|&(_, v)| v).collect();
            StepSeries::adjusted(&l.fit, fit_points, own, first).expect("a series")
        })
        .collect();
    let events = joint_scan(&series, versions, &JointConfig::default())
        .expect("scanned")
        .len();
    let joint_time = t.elapsed().as_secs_f64();
    println!(
        "of `changes`, alone and serial: detection of each benchmark {detect_time:.2} s; \
         the joint scan across benchmarks {joint_time:.2} s ({events} events)"
    );

    println!(
        "before (every sample read back, Huber levels, detection without sessions): {before:.2} s \
         (reading samples {read_samples:.2} s), {found_before} changes"
    );
    println!(
        "now (`changes`: stored levels, crossed fit, detection, storing): {now:.2} s, {} changes; \
         of which the {stored} stored levels read alone {read_levels:.2} s (the \
         {summaries} summaries in full {read_summaries:.2} s), levels (read + fits) \
         {levels_time:.2} s",
        changes.len()
    );
    println!("E-divisive scan alone on the same levels: {scan_time:.3} s, {scanned} changes");
    println!(
        "ratios: now/scan {:.1}, before/scan {:.1}, before/now {:.2}; {count} true changes",
        now / scan_time,
        before / scan_time,
        before / now
    );
}
