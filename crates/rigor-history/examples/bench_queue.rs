//! Overhead of the farm's job queue on PostgreSQL: claim and complete (storing a small result in
//! the completing transaction) per job, with 1 and with 8 workers, side by side in one run.
//!
//! `cargo run --release -p rigor-history --example bench_queue [-- --jobs N]`
//!
//! Starts its own PostgreSQL server (Debian's package, as the tests do; installed when run as
//! root). For each worker count: a fresh database, N jobs queued (default 10,000), then the
//! workers (threads, one connection each) claim and complete until the queue is empty. Printed:
//! the queue's throughput (wall time per job) and the mean time a worker spends in claim and in
//! complete per job. The machine is shared and noisy: compare the rows, not absolute times.

use std::time::{Duration, Instant};

use rigor_history::queue::{Claim, Enqueue, JobQueue, JobResults, NewJob};
use rigor_history::{Ingest, MachineInfo, PostgresHistory, VersionInfo};
use rigor_store::{BenchmarkRecord, Layout, ResultFile, SampleRecord};
use rigor_units::{ConfidenceLevel, Seed};

/// A job's result: one benchmark, 10 executions × 10 iterations (100 samples).
fn result(seed: u64) -> ResultFile {
    let mut b = BenchmarkRecord::new("bench", "./bench", Layout::new(false, true));
    for e in 0..10 {
        for i in 0..10 {
            b.samples.push(SampleRecord {
                build: None,
                round: e,
                execution: e,
                iteration: i,
                value: 1.0 + 0.001 * ((seed as usize + e * 10 + i) % 7) as f64,
                warmup: false,
            });
        }
    }
    ResultFile {
        benchmarks: vec![b],
        ..ResultFile::new(Seed(seed), ConfidenceLevel::NINETY_FIVE)
    }
}

struct Figures {
    wall: Duration,
    claim: Duration,
    complete: Duration,
    jobs: usize,
}

fn drain(url: &str, jobs: usize, workers: usize) -> Figures {
    let mut q = PostgresHistory::open(url).unwrap();
    let keys: Vec<String> = (0..jobs).map(|k| format!("version {k}")).collect();
    for chunk in keys.chunks(1000) {
        let make = |free: &[usize]| {
            free.iter()
                .map(|&i| NewJob {
                    class: "bench".into(),
                    branch: "main".into(),
                    format: 2,
                    spec: format!("{{\"job\":\"{}\"}}", chunk[i]),
                    keys: vec![chunk[i].clone()],
                    max_attempts: 3,
                })
                .collect()
        };
        q.enqueue(&Enqueue {
            keys: chunk,
            retry_failed: false,
            jobs: &make,
        })
        .unwrap();
    }
    let start = Instant::now();
    let threads: Vec<_> = (0..workers)
        .map(|w| {
            let url = url.to_string();
            std::thread::spawn(move || {
                let mut q = PostgresHistory::open(&url).unwrap();
                let machine = MachineInfo {
                    name: "bench".into(),
                    environment: Default::default(),
                };
                let (mut claim, mut complete, mut n) = (Duration::ZERO, Duration::ZERO, 0);
                loop {
                    let t = Instant::now();
                    let job = q
                        .claim(&Claim {
                            class: "bench",
                            worker: &format!("w{w}"),
                            lease: Duration::from_secs(60),
                            formats: 2,
                        })
                        .unwrap();
                    claim += t.elapsed();
                    let Some(job) = job else { break };
                    let version = VersionInfo {
                        rev: format!("v{}", job.id),
                        ..Default::default()
                    };
                    let r = result(job.id.0 as u64);
                    let ingests = [Ingest::new(&version, &machine, "main", &r)];
                    let t = Instant::now();
                    q.complete(
                        &job,
                        &JobResults {
                            results: &ingests,
                            ..JobResults::default()
                        },
                    )
                    .unwrap();
                    complete += t.elapsed();
                    n += 1;
                }
                (claim, complete, n)
            })
        })
        .collect();
    let mut f = Figures {
        wall: Duration::ZERO,
        claim: Duration::ZERO,
        complete: Duration::ZERO,
        jobs: 0,
    };
    for t in threads {
        let (c, d, n) = t.join().unwrap();
        f.claim += c;
        f.complete += d;
        f.jobs += n;
    }
    f.wall = start.elapsed();
    assert_eq!(f.jobs, jobs, "every job done once");
    f
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let jobs = args
        .iter()
        .position(|a| a == "--jobs")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(10_000);
    let Some(server) = rigor_pgtest::server() else {
        std::process::exit(2);
    };
    println!("{jobs} jobs, each completed with a result of 100 samples stored in its transaction");
    println!(
        "{:>8} {:>14} {:>18} {:>18} {:>18}",
        "workers", "wall (s)", "wall / job (ms)", "claim / job (ms)", "complete / job (ms)"
    );
    for workers in [8, 1] {
        let f = drain(&server.fresh_database(), jobs, workers);
        let per = |d: Duration| 1000.0 * d.as_secs_f64() / f.jobs as f64;
        println!(
            "{workers:>8} {:>14.2} {:>18.3} {:>18.3} {:>18.3}",
            f.wall.as_secs_f64(),
            per(f.wall),
            per(f.claim),
            per(f.complete),
        );
    }
}
