//! Speed of the history, as ratios to simple baselines measured in the same run (machines here
//! are shared and noisy: compare ratios, not absolute times).
//!
//! `cargo run --release -p rigor-history --example bench_history [-- --versions N]`
//!
//! 1. Ingest 10⁶ samples (10 runs of 20 executions × 5,000 iterations) into a fresh database,
//!    against writing the same results as JSON files (rigor's own result format).
//! 2. Read back and re-detect changes over 50 benchmarks × N versions (default 10,000; one run
//!    of 5 executions per version), against the E-divisive scan alone on the same version means.

use std::time::Instant;

use rigor_history::{
    HistoryRead, HistoryWrite, Ingest, MachineInfo, SeriesKey, SqliteHistory, VersionInfo,
};
use rigor_stats::HierarchyBuilder;
use rigor_stats::edivisive::{ChangeConfig, detect_changes};
use rigor_stats::series::{SeriesConfig, VersionMean, detect};
use rigor_store::{BenchmarkRecord, Layout, ResultFile, SampleRecord};
use rigor_units::{ConfidenceLevel, Seed};

fn result(
    seed: u64,
    benchmarks: &[String],
    executions: usize,
    iterations: usize,
    level: f64,
) -> ResultFile {
    let mut r = ResultFile::new(Seed(seed), ConfidenceLevel::NINETY_FIVE);
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut noise = || {
        // xorshift: cheap, deterministic noise in [-0.5, 0.5).
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    for name in benchmarks {
        let mut b =
            BenchmarkRecord::new(name.clone(), "./bench", Layout::new(false, iterations > 1));
        for e in 0..executions {
            let exec = 1.0 + 0.02 * noise();
            for i in 0..iterations {
                b.samples.push(SampleRecord {
                    build: None,
                    round: e,
                    execution: e,
                    iteration: i,
                    value: level * exec * (1.0 + 0.01 * noise()),
                    warmup: false,
                });
            }
        }
        r.benchmarks.push(b);
    }
    r
}

fn main() {
    let versions: usize = std::env::args()
        .skip_while(|a| a != "--versions")
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let machine = MachineInfo {
        name: "bench".into(),
        environment: Default::default(),
    };

    // 1. Ingest 10^6 samples.
    let one = vec!["ingest".to_string()];
    let results: Vec<ResultFile> = (0..10).map(|k| result(k, &one, 20, 5_000, 1.0)).collect();
    let t = Instant::now();
    for (k, r) in results.iter().enumerate() {
        std::fs::write(
            dir.path().join(format!("r{k}.json")),
            rigor_store::to_json(r).unwrap(),
        )
        .unwrap();
    }
    let json_time = t.elapsed().as_secs_f64();
    let mut h = SqliteHistory::open(&dir.path().join("ingest.db")).unwrap();
    let t = Instant::now();
    for (k, r) in results.iter().enumerate() {
        let version = VersionInfo {
            rev: format!("v{k}"),
            order: Some(k as i64),
            ..Default::default()
        };
        h.ingest(&Ingest::new(&version, &machine, "main", r))
            .unwrap();
    }
    let ingest_time = t.elapsed().as_secs_f64();
    println!(
        "ingest 10^6 samples: {ingest_time:.2} s; writing them as JSON result files: {json_time:.2} s; ratio {:.2}",
        ingest_time / json_time
    );

    // 2. Changes over 50 benchmarks x N versions.
    let names: Vec<String> = (0..50).map(|b| format!("b{b}")).collect();
    let mut h = SqliteHistory::open(&dir.path().join("series.db")).unwrap();
    let t = Instant::now();
    for v in 0..versions {
        let level = if v >= versions / 2 { 1.05 } else { 1.0 };
        let r = result(1000 + v as u64, &names, 5, 1, level);
        let version = VersionInfo {
            rev: format!("v{v}"),
            order: Some(v as i64),
            ..Default::default()
        };
        h.ingest(&Ingest::new(&version, &machine, "main", &r))
            .unwrap();
    }
    let fill = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mut all_means = Vec::new();
    let mut found = 0;
    let mut read_time = 0.0;
    for name in &names {
        let r = Instant::now();
        let series = h.series(&SeriesKey::new("bench", "main"), name).unwrap();
        read_time += r.elapsed().as_secs_f64();
        let means: Vec<VersionMean> = series
            .iter()
            .map(|v| {
                let mut b = HierarchyBuilder::new(v.benchmark.level_names());
                for s in &v.benchmark.samples {
                    b.push(&v.benchmark.layout.unit_path(s), s.value);
                }
                VersionMean::huber(&b.build().unwrap()).unwrap()
            })
            .collect();
        found += detect(&means, &SeriesConfig::default())
            .unwrap()
            .changes
            .len();
        all_means.push(means);
    }
    let rigor_time = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mut baseline_found = 0;
    for means in &all_means {
        let m: Vec<f64> = means.iter().map(|v| v.mean).collect();
        baseline_found += detect_changes(&m, &ChangeConfig::default()).unwrap().len();
    }
    let scan_time = t.elapsed().as_secs_f64();
    println!(
        "changes over 50 benchmarks x {versions} versions (read back from the history and detected): {rigor_time:.2} s \
         ({found} changes; reading {read_time:.2} s); E-divisive scan alone on the same means: {scan_time:.2} s \
         ({baseline_found} changes); ratio {:.1}; 50 true changes; (storing the {versions} versions took {fill:.1} s)",
        rigor_time / scan_time
    );
}
