//! Speed of the history, as ratios to simple baselines measured in the same run (machines here
//! are shared and noisy: compare ratios, not absolute times).
//!
//! `cargo run --release -p rigor-history --example bench_history`
//!
//! Ingest 10⁶ samples (10 runs of 20 executions × 5,000 iterations) into a fresh database,
//! against writing the same results as JSON files (rigor's own result format). `rigor track
//! changes` over a long history is timed by rigor-app's `bench_changes` example.

use std::time::Instant;

use rigor_history::{HistoryWrite, Ingest, MachineInfo, SqliteHistory, VersionInfo};
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
}
