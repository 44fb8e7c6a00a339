//! The SQLite history: idempotent ingest, series in history order, change statuses, schema
//! versions, and concurrent writers.

use std::path::Path;

use rigor_history::{
    ChangeFilter, ChangeStatus, History, HistoryError, Ingest, Ingested, MachineInfo, NewChange,
    SqliteHistory, VersionInfo,
};
use rigor_store::{BenchmarkRecord, Layout, ResultFile, SampleRecord};
use rigor_units::{ConfidenceLevel, Seed};

fn result(seed: u64, level: f64) -> ResultFile {
    let mut b = BenchmarkRecord::new("sort", "./sort", Layout::new(false, true));
    for e in 0..3 {
        for i in 0..4 {
            b.samples.push(SampleRecord {
                build: None,
                round: e,
                execution: e,
                iteration: i,
                value: level + 0.001 * (e * 4 + i) as f64,
                warmup: i == 0,
            });
        }
    }
    ResultFile {
        benchmarks: vec![b],
        ..ResultFile::new(Seed(seed), ConfidenceLevel::NINETY_FIVE)
    }
}

fn machine() -> MachineInfo {
    MachineInfo {
        name: "ci-1".into(),
        environment: Default::default(),
    }
}

fn version(rev: &str, order: i64) -> VersionInfo {
    VersionInfo {
        rev: rev.into(),
        order: Some(order),
        ..Default::default()
    }
}

fn ingest(h: &mut SqliteHistory, rev: &str, order: i64, r: &ResultFile) -> Ingested {
    h.ingest(&Ingest {
        version: &version(rev, order),
        machine: &machine(),
        branch: "main",
        result: r,
    })
    .unwrap()
}

#[test]
fn the_same_result_twice_is_stored_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = SqliteHistory::open(&dir.path().join("h.db")).unwrap();
    let r = result(1, 1.0);
    let first = ingest(&mut h, "a", 1, &r);
    assert!(matches!(first, Ingested::Added(_)));
    assert_eq!(
        ingest(&mut h, "a", 1, &r),
        Ingested::AlreadyStored(first.id())
    );
    assert_eq!(h.versions("ci-1", "main").unwrap()[0].runs, 1);
}

#[test]
fn series_come_in_history_order_with_every_sample() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = SqliteHistory::open(&dir.path().join("h.db")).unwrap();
    // Stored out of order; two runs of version b.
    ingest(&mut h, "c", 3, &result(3, 3.0));
    ingest(&mut h, "a", 1, &result(1, 1.0));
    ingest(&mut h, "b", 2, &result(2, 2.0));
    ingest(&mut h, "b", 2, &result(22, 2.0));
    let s = h.series("ci-1", "main", "sort").unwrap();
    let revs: Vec<&str> = s.iter().map(|v| v.version.rev.as_str()).collect();
    assert_eq!(revs, ["a", "b", "c"]);
    assert_eq!(s[0].benchmark.samples.len(), 12);
    assert_eq!(s[0].benchmark.samples, result(1, 1.0).benchmarks[0].samples);
    // Version b's two runs are merged with their executions kept apart: 6 executions.
    let b = &s[1].benchmark;
    assert_eq!(b.samples.len(), 24);
    let executions: std::collections::BTreeSet<usize> =
        b.samples.iter().map(|x| x.execution).collect();
    assert_eq!(executions.len(), 6);
    assert_eq!(b.layout, Layout::new(false, true));
    assert_eq!(h.benchmarks("ci-1", "main").unwrap(), ["sort"]);
}

#[test]
fn failed_versions_are_remembered_and_skipped_in_series() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = SqliteHistory::open(&dir.path().join("h.db")).unwrap();
    ingest(&mut h, "a", 1, &result(1, 1.0));
    h.record_failure(&version("b", 2), &machine(), "main", "build failed")
        .unwrap();
    assert!(h.has_run("b", "ci-1", "main").unwrap());
    assert!(!h.has_run("b", "ci-1", "other").unwrap());
    let versions = h.versions("ci-1", "main").unwrap();
    assert_eq!(versions[1].failed, 1);
    assert_eq!(h.series("ci-1", "main", "sort").unwrap().len(), 1);
}

#[test]
fn changes_keep_their_status_across_detections() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = SqliteHistory::open(&dir.path().join("h.db")).unwrap();
    ingest(&mut h, "a", 1, &result(1, 1.0));
    ingest(&mut h, "b", 2, &result(2, 1.1));
    let change = NewChange {
        rev: "b".into(),
        previous_rev: Some("a".into()),
        ratio: 1.1,
        interval: Some((1.05, 1.15)),
        p_value: 0.001,
        q_value: Some(0.002),
        verdict: "regression".into(),
        method: "segments".into(),
    };
    h.save_changes("ci-1", "main", "sort", std::slice::from_ref(&change))
        .unwrap();
    let all = h.changes(&ChangeFilter::default()).unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].change, change);
    h.set_status(all[0].id, ChangeStatus::Acknowledged).unwrap();
    // Detected again: same row, status kept.
    h.save_changes("ci-1", "main", "sort", std::slice::from_ref(&change))
        .unwrap();
    let again = h.changes(&ChangeFilter::default()).unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].status, ChangeStatus::Acknowledged);
    // No longer detected: hidden unless asked for.
    h.save_changes("ci-1", "main", "sort", &[]).unwrap();
    assert!(h.changes(&ChangeFilter::default()).unwrap().is_empty());
    let stale = ChangeFilter {
        include_stale: true,
        ..Default::default()
    };
    assert!(!h.changes(&stale).unwrap()[0].current);
    assert!(matches!(
        h.set_status(999, ChangeStatus::Invalid),
        Err(HistoryError::NoSuchChange(999))
    ));
}

#[test]
fn a_newer_schema_is_refused_and_an_older_one_migrated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.db");
    drop(SqliteHistory::open(&path).unwrap());
    set_user_version(&path, 99);
    let err = SqliteHistory::open(&path).unwrap_err().to_string();
    assert!(err.contains("schema version 99 is newer"), "{err}");
    assert!(err.contains("h.db"), "{err}");
    // A database from before any migration (version 0) is brought up to date.
    let fresh = dir.path().join("old.db");
    rusqlite::Connection::open(&fresh).unwrap();
    let mut h = SqliteHistory::open(&fresh).unwrap();
    ingest(&mut h, "a", 1, &result(1, 1.0));
}

fn set_user_version(path: &Path, v: i64) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(&format!("PRAGMA user_version = {v}"))
        .unwrap();
}

#[test]
fn concurrent_writers_lose_and_duplicate_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.db");
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut h = SqliteHistory::open(&path).unwrap();
                for k in 0..10 {
                    let seed = 100 * t + k;
                    let r = result(seed, 1.0);
                    // Each result twice: the second must be recognised.
                    for _ in 0..2 {
                        h.ingest(&Ingest {
                            version: &version(&format!("v{k}"), k as i64),
                            machine: &machine(),
                            branch: "main",
                            result: &r,
                        })
                        .unwrap();
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let h = SqliteHistory::open(&path).unwrap();
    let versions = h.versions("ci-1", "main").unwrap();
    assert_eq!(versions.len(), 10);
    assert!(versions.iter().all(|v| v.runs == 4), "{versions:?}");
}

#[test]
fn summaries_list_every_measured_run_oldest_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = SqliteHistory::open(&dir.path().join("h.db")).unwrap();
    ingest(&mut h, "b", 2, &result(2, 2.0));
    ingest(&mut h, "a", 1, &result(1, 1.0));
    h.record_failure(&version("c", 3), &machine(), "main", "build failed")
        .unwrap();
    let s = h.summaries("ci-1", "main").unwrap();
    let got: Vec<(&str, &str)> = s
        .iter()
        .map(|x| (x.benchmark.as_str(), x.rev.as_str()))
        .collect();
    assert_eq!(got, [("sort", "b"), ("sort", "a")]);
    assert!(s[0].run < s[1].run);
    // These results carry no analysis: nothing to summarise, and none is invented.
    assert_eq!(
        (s[0].mean, s[0].interval, s[0].components.len()),
        (None, None, 0)
    );
    assert!(h.summaries("ci-1", "other").unwrap().is_empty());
    assert!(h.summaries("nowhere", "main").unwrap().is_empty());
}
