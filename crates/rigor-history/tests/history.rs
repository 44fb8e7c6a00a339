//! The storage suite, run against both backends (SQLite, and PostgreSQL on a server the test
//! set-up starts): idempotent ingest, series in history order, change statuses, schema versions,
//! and concurrent writers.

use std::ffi::OsString;
use std::path::Path;

use rigor_history::{
    ChangeFilter, ChangeStatus, History, HistoryError, Ingest, Ingested, MachineInfo, NewChange,
    VersionInfo,
};
use rigor_store::{BenchmarkRecord, ExecutionRecord, Layout, ResultFile, SampleRecord};
use rigor_units::{ConfidenceLevel, Resolution, Seconds, Seed};

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

fn ingest(h: &mut dyn History, rev: &str, order: i64, r: &ResultFile) -> Ingested {
    h.ingest(&Ingest {
        version: &version(rev, order),
        machine: &machine(),
        branch: "main",
        result: r,
    })
    .unwrap()
}

/// Where a test's history lives: a new SQLite file, or a new PostgreSQL database.
struct Store {
    location: OsString,
    _dir: Option<tempfile::TempDir>,
}

impl Store {
    fn sqlite() -> Self {
        let dir = tempfile::tempdir().unwrap();
        Self {
            location: dir.path().join("h.db").into(),
            _dir: Some(dir),
        }
    }

    fn postgres() -> Option<Self> {
        Some(Self {
            location: rigor_pgtest::server()?.fresh_database().into(),
            _dir: None,
        })
    }

    fn open(&self) -> Box<dyn History + Send> {
        rigor_history::open(&self.location).unwrap()
    }

    fn is_postgres(&self) -> bool {
        self.location.to_string_lossy().starts_with("postgres://")
    }
}

/// Each test of the suite, once per backend.
macro_rules! suite {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(#[test] fn $name() { super::$name(super::Store::sqlite()) })*
        }
        mod postgres {
            $(#[test] fn $name() {
                let Some(store) = super::Store::postgres() else { return };
                super::$name(store)
            })*
        }
    };
}

suite!(
    the_same_result_twice_is_stored_once,
    series_come_in_history_order_with_every_sample,
    failed_versions_are_remembered_and_skipped_in_series,
    changes_keep_their_status_across_detections,
    a_newer_schema_is_refused_and_an_older_one_migrated,
    concurrent_writers_lose_and_duplicate_nothing,
    summaries_list_every_measured_run_oldest_first,
    the_same_file_for_another_machine_or_branch_is_a_run_of_its_own,
    changes_come_oldest_version_first,
    resolutions_are_stored_with_each_execution_and_summary,
    a_database_of_the_previous_schema_is_upgraded_with_no_resolution,
);

fn the_same_result_twice_is_stored_once(store: Store) {
    let mut h = store.open();
    let r = result(1, 1.0);
    let first = ingest(&mut *h, "a", 1, &r);
    assert!(matches!(first, Ingested::Added(_)));
    assert_eq!(
        ingest(&mut *h, "a", 1, &r),
        Ingested::AlreadyStored(first.id())
    );
    assert_eq!(h.versions("ci-1", "main").unwrap()[0].runs, 1);
}

fn series_come_in_history_order_with_every_sample(store: Store) {
    let mut h = store.open();
    // Stored out of order; two runs of version b.
    ingest(&mut *h, "c", 3, &result(3, 3.0));
    ingest(&mut *h, "a", 1, &result(1, 1.0));
    ingest(&mut *h, "b", 2, &result(2, 2.0));
    ingest(&mut *h, "b", 2, &result(22, 2.0));
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

fn failed_versions_are_remembered_and_skipped_in_series(store: Store) {
    let mut h = store.open();
    ingest(&mut *h, "a", 1, &result(1, 1.0));
    h.record_failure(&version("b", 2), &machine(), "main", "build failed")
        .unwrap();
    assert!(h.has_run("b", "ci-1", "main").unwrap());
    assert!(!h.has_run("b", "ci-1", "other").unwrap());
    let versions = h.versions("ci-1", "main").unwrap();
    assert_eq!(versions[1].failed, 1);
    assert_eq!(h.series("ci-1", "main", "sort").unwrap().len(), 1);
}

fn changes_keep_their_status_across_detections(store: Store) {
    let mut h = store.open();
    ingest(&mut *h, "a", 1, &result(1, 1.0));
    ingest(&mut *h, "b", 2, &result(2, 1.1));
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

fn a_newer_schema_is_refused_and_an_older_one_migrated(store: Store) {
    drop(store.open());
    set_schema_version(&store, 99);
    let err = match rigor_history::open(&store.location) {
        Ok(_) => panic!("a newer schema was opened"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("schema version 99 is newer"), "{err}");
    if store.is_postgres() {
        assert!(err.contains("postgres://postgres@127.0.0.1"), "{err}");
        // A database from before any migration (no tables) is brought up to date.
        let fresh = Store::postgres().unwrap();
        let mut h = fresh.open();
        ingest(&mut *h, "a", 1, &result(1, 1.0));
    } else {
        assert!(err.contains("h.db"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("old.db");
        rusqlite::Connection::open(&fresh).unwrap();
        let mut h = rigor_history::open(fresh.as_os_str()).unwrap();
        ingest(&mut *h, "a", 1, &result(1, 1.0));
    }
}

fn set_schema_version(store: &Store, v: i64) {
    if store.is_postgres() {
        execute(store, &format!("UPDATE rigor_schema SET version = {v}"));
    } else {
        execute(store, &format!("PRAGMA user_version = {v}"));
    }
}

/// Runs SQL on the store's database behind the history's back.
fn execute(store: &Store, sql: &str) {
    let location = store.location.to_str().unwrap();
    if store.is_postgres() {
        let mut c = ::postgres::Client::connect(location, ::postgres::NoTls).unwrap();
        c.batch_execute(sql).unwrap();
    } else {
        let c = rusqlite::Connection::open(Path::new(location)).unwrap();
        c.execute_batch(sql).unwrap();
    }
}

fn concurrent_writers_lose_and_duplicate_nothing(store: Store) {
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let location = store.location.clone();
            std::thread::spawn(move || {
                let mut h = rigor_history::open(&location).unwrap();
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
    let h = store.open();
    let versions = h.versions("ci-1", "main").unwrap();
    assert_eq!(versions.len(), 10);
    assert!(versions.iter().all(|v| v.runs == 4), "{versions:?}");
}

fn summaries_list_every_measured_run_oldest_first(store: Store) {
    let mut h = store.open();
    ingest(&mut *h, "b", 2, &result(2, 2.0));
    ingest(&mut *h, "a", 1, &result(1, 1.0));
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
    // Only the runs from an id on, and the ids of the measured runs (not the failed one).
    let runs = h.measured_runs("ci-1", "main").unwrap();
    assert_eq!(
        runs.iter().map(|r| r.id).collect::<Vec<_>>(),
        [s[0].run, s[1].run]
    );
    assert!(runs.iter().all(|r| r.fingerprint.len() == 64));
    let later = h.summaries_from("ci-1", "main", s[1].run).unwrap();
    assert_eq!(later, s[1..]);
    assert!(h.summaries("ci-1", "other").unwrap().is_empty());
    assert!(h.summaries("nowhere", "main").unwrap().is_empty());
}

fn the_same_file_for_another_machine_or_branch_is_a_run_of_its_own(store: Store) {
    let mut h = store.open();
    let r = result(1, 1.0);
    let put = |h: &mut dyn History, machine: &str, branch: &str| {
        h.ingest(&Ingest {
            version: &version("a", 1),
            machine: &MachineInfo {
                name: machine.into(),
                environment: Default::default(),
            },
            branch,
            result: &r,
        })
        .unwrap()
    };
    let first = put(&mut *h, "ci-1", "main");
    let other_machine = put(&mut *h, "ci-2", "main");
    let other_branch = put(&mut *h, "ci-1", "dev");
    assert!(
        matches!(other_machine, Ingested::Added(_)),
        "{other_machine:?}"
    );
    assert!(
        matches!(other_branch, Ingested::Added(_)),
        "{other_branch:?}"
    );
    assert_eq!(
        put(&mut *h, "ci-2", "main"),
        Ingested::AlreadyStored(other_machine.id())
    );
    for (m, b) in [("ci-1", "main"), ("ci-2", "main"), ("ci-1", "dev")] {
        assert_eq!(h.versions(m, b).unwrap()[0].runs, 1, "{m} {b}");
        assert_eq!(h.measured_runs(m, b).unwrap().len(), 1, "{m} {b}");
    }
    // A run stored by an earlier rigor, keyed by its content alone, is still the same run.
    drop(h);
    use sha2::Digest;
    let legacy: String = sha2::Sha256::digest(serde_json::to_vec(&r).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    execute(
        &store,
        &format!(
            "UPDATE runs SET fingerprint = '{legacy}' WHERE id = {}",
            first.id()
        ),
    );
    let mut h = store.open();
    assert_eq!(
        put(&mut *h, "ci-1", "main"),
        Ingested::AlreadyStored(first.id())
    );
    assert!(matches!(put(&mut *h, "ci-3", "main"), Ingested::Added(_)));
}

fn changes_come_oldest_version_first(store: Store) {
    let mut h = store.open();
    for (rev, order) in [("c", 3), ("a", 1), ("b", 2)] {
        ingest(&mut *h, rev, order, &result(order as u64, order as f64));
    }
    let at = |rev: &str, previous: &str| NewChange {
        rev: rev.into(),
        previous_rev: Some(previous.into()),
        ratio: 2.0,
        interval: Some((1.9, 2.1)),
        p_value: 0.001,
        q_value: Some(0.002),
        verdict: "regression".into(),
        method: "segments".into(),
    };
    h.save_changes("ci-1", "main", "sort", &[at("c", "b"), at("b", "a")])
        .unwrap();
    let revs: Vec<String> = h
        .changes(&ChangeFilter::default())
        .unwrap()
        .into_iter()
        .map(|c| c.change.rev)
        .collect();
    assert_eq!(revs, ["b", "c"]);
}

/// `result(seed, level)` with the process-level record of each execution (the first a warm-up,
/// as its first iteration is), each execution reporting `resolution` — except the warm-up, which
/// reports a coarser step that the benchmark's resolution must not take.
fn with_executions(seed: u64, level: f64, resolution: Option<Resolution>) -> ResultFile {
    let mut r = result(seed, level);
    let coarse = Resolution::new(Seconds(1e-3));
    r.benchmarks[0].executions = (0..3)
        .map(|e| ExecutionRecord {
            build: None,
            round: e,
            execution: e,
            warmup: false,
            wall: Seconds(0.01 * (e + 1) as f64),
            user: Seconds(0.005),
            sys: Seconds(0.001),
            max_rss: 1 << 20,
            exit_code: None,
            env_pad: None,
            resolution: if e == 0 {
                resolution.and(coarse)
            } else {
                resolution
            },
        })
        .chain(std::iter::once(ExecutionRecord {
            warmup: true,
            round: 0,
            execution: 3,
            wall: Seconds(0.5),
            user: Seconds(0.0),
            sys: Seconds(0.0),
            max_rss: 0,
            exit_code: None,
            build: None,
            env_pad: None,
            resolution: Resolution::new(Seconds(1.0)),
        }))
        .collect();
    r
}

fn resolutions_are_stored_with_each_execution_and_summary(store: Store) {
    let mut h = store.open();
    let fine = Resolution::new(Seconds(2e-8));
    let quantised = with_executions(1, 1.0, fine);
    let unreported = with_executions(2, 2.0, None);
    ingest(&mut *h, "a", 1, &quantised);
    ingest(&mut *h, "b", 2, &unreported);
    let s = h.series("ci-1", "main", "sort").unwrap();
    // Every execution comes back with the step it reported, warm-ups included.
    assert_eq!(
        s[0].benchmark.executions,
        quantised.benchmarks[0].executions
    );
    assert_eq!(
        s[1].benchmark.executions,
        unreported.benchmarks[0].executions
    );
    // The benchmark's resolution: the coarsest of its measured executions (1 ms), not the
    // warm-up's 1 s.
    assert_eq!(s[0].benchmark.resolution(), Resolution::new(Seconds(1e-3)));
    assert_eq!(s[1].benchmark.resolution(), None);
    let summaries = h.summaries("ci-1", "main").unwrap();
    let of = |rev: &str| summaries.iter().find(|x| x.rev == rev).unwrap().resolution;
    assert_eq!(of("a"), Resolution::new(Seconds(1e-3)));
    assert_eq!(of("b"), None);
}

/// The migrations of the schema before the resolution was kept, as that schema's databases
/// were made (migrations are never edited once released).
fn previous_schema(store: &Store) -> (String, i64) {
    if store.is_postgres() {
        let sql = [
            include_str!("../migrations/postgres/0001_initial.sql"),
            include_str!("../migrations/postgres/0002_jobs.sql"),
            "CREATE TABLE rigor_schema (version BIGINT NOT NULL);
             INSERT INTO rigor_schema VALUES (2);",
        ];
        (sql.concat(), 2)
    } else {
        let sql = [
            include_str!("../migrations/0001_initial.sql"),
            "PRAGMA user_version = 1;",
        ];
        (sql.concat(), 1)
    }
}

/// The current schema version of the store's database, read behind the history's back.
fn schema_version(store: &Store) -> i64 {
    let location = store.location.to_str().unwrap();
    if store.is_postgres() {
        let mut c = ::postgres::Client::connect(location, ::postgres::NoTls).unwrap();
        c.query_one("SELECT version FROM rigor_schema", &[])
            .unwrap()
            .get(0)
    } else {
        let c = rusqlite::Connection::open(Path::new(location)).unwrap();
        c.query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap()
    }
}

/// A database made by the previous schema, holding a run stored then (written here with that
/// schema's SQL, columns as its rigor wrote them), opens, is brought up to date, reads the old
/// run with no resolution (no floor), and stores new runs with theirs.
fn a_database_of_the_previous_schema_is_upgraded_with_no_resolution(store: Store) {
    let (schema, old_version) = previous_schema(&store);
    let levels = serde_json::to_string(&Layout::new(false, true)).unwrap();
    let (yes, no, pos) = if store.is_postgres() {
        ("TRUE", "FALSE", ("pos, ", "1, ", "2, "))
    } else {
        ("1", "0", ("", "", ""))
    };
    let (p, p1, p2) = pos;
    execute(
        &store,
        &format!(
            "{schema}
             INSERT INTO machines (name, host, os, cpu, cpus) VALUES ('ci-1', 'h', 'linux', 'cpu', 2);
             INSERT INTO versions (rev, order_key, first_seen) VALUES ('old', 1, 1);
             INSERT INTO runs (fingerprint, version_id, machine_id, branch, status, seed,
                               rigor_version, ingested_at)
                 VALUES ('f0', 1, 1, 'main', 'complete', '7', '0.1.0', '2026-01-01T00:00:00Z');
             INSERT INTO benchmarks (name) VALUES ('sort');
             INSERT INTO run_benchmarks (run_id, benchmark_id, command, levels, unit, mean,
                                         ci_lower, ci_upper, ci_level, failures)
                 VALUES (1, 1, './sort', '{levels}', 's', 1.5, 1.0, 2.0, 0.95, '[]');
             INSERT INTO samples (run_id, benchmark_id, {p}round, execution, iteration, value, warmup)
                 VALUES (1, 1, {p1}0, 0, 0, 1.0, {no}), (1, 1, {p2}1, 1, 0, 2.0, {no});
             INSERT INTO executions (run_id, benchmark_id, {p}round, execution, warmup, wall,
                                     user_time, sys_time, max_rss)
                 VALUES (1, 1, {p1}0, 0, {yes}, 1.0, 0.5, 0.1, 1024),
                        (1, 1, {p2}1, 1, {no}, 2.0, 0.5, 0.1, 1024);"
        ),
    );
    assert_eq!(schema_version(&store), old_version);
    let mut h = store.open();
    assert!(schema_version(&store) > old_version);
    let s = h.series("ci-1", "main", "sort").unwrap();
    assert_eq!(s.len(), 1);
    let values: Vec<f64> = s[0].benchmark.samples.iter().map(|x| x.value).collect();
    assert_eq!(values, [1.0, 2.0]);
    assert_eq!(s[0].benchmark.executions.len(), 2);
    assert!(
        s[0].benchmark
            .executions
            .iter()
            .all(|e| e.resolution.is_none())
    );
    assert_eq!(s[0].benchmark.resolution(), None);
    let summary = &h.summaries("ci-1", "main").unwrap()[0];
    assert_eq!((summary.mean, summary.resolution), (Some(1.5), None));
    // The upgraded database stores what this rigor writes.
    let new = with_executions(3, 1.0, Resolution::new(Seconds(2e-8)));
    ingest(&mut *h, "new", 2, &new);
    let s = h.series("ci-1", "main", "sort").unwrap();
    assert_eq!(s[1].benchmark.executions, new.benchmarks[0].executions);
    // Opened again: already up to date.
    drop(h);
    let version = schema_version(&store);
    drop(store.open());
    assert_eq!(schema_version(&store), version);
}
