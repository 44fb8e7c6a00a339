//! The storage suite, run against both backends (SQLite, and PostgreSQL on a server the test
//! set-up starts): idempotent ingest, series in history order, change statuses, schema versions,
//! and concurrent writers.

use std::ffi::OsString;
use std::path::Path;

use jiff::Timestamp;
use rigor_history::{
    ArtifactHash, DetectedChanges, MeanSpread, NewSession, RemoveMode, Role, RunId, RunInfo,
    RunSelection, SelectRuns, SessionEnd, SessionId, SessionKind,
};
use rigor_history::{
    ChangeFilter, ChangeId, ChangeStatus, ChangeVerdict, Failure, History, HistoryError,
    HistoryRead, HistoryWrite, Ingest, Ingested, MachineInfo, NewChange, SeriesKey, VersionInfo,
};
use rigor_stats::MeanEstimate;
use rigor_store::{BenchmarkRecord, ExecutionRecord, Layout, ResultFile, SampleRecord};
use rigor_units::{ConfidenceLevel, Metric, MetricValues, Quantity, Resolution, Seconds, Seed};

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
        environment: rigor_store::Environment {
            cpus: 2,
            ..Default::default()
        },
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
    h.ingest(&Ingest::new(&version(rev, order), &machine(), "main", r))
        .unwrap()
}

/// The series of these tests: machine `ci-1`, branch `main`.
fn main() -> SeriesKey {
    key("ci-1", "main")
}

fn key(machine: &str, branch: &str) -> SeriesKey {
    SeriesKey::new(machine, branch)
}

fn fail(h: &mut dyn History, rev: &str, order: i64) {
    h.record_failure(&Failure::new(
        &version(rev, order),
        &machine(),
        "main",
        "build failed",
    ))
    .unwrap();
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
        #[cfg(feature = "postgres")]
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
    levels_are_what_summaries_hold_for_them,
    a_version_read_alone_is_that_version_of_the_series,
    the_same_file_for_another_machine_or_branch_is_a_run_of_its_own,
    changes_come_oldest_version_first,
    resolutions_are_stored_with_each_execution_and_summary,
    a_database_of_the_previous_schema_is_upgraded_with_no_resolution,
    sessions_hold_their_runs_with_artifacts_and_roles,
    a_run_stored_into_a_missing_or_foreign_session_is_refused,
    summaries_carry_the_spread_of_the_mean_from_the_samples,
    a_database_of_schema_2_gets_sessions_spreads_and_utc_times,
    a_database_of_schema_3_gets_huber_levels_from_its_samples,
    removing_a_version_takes_its_runs_and_leaves_the_rest,
    removing_a_session_takes_its_runs_and_the_session,
    removing_one_benchmark_keeps_the_runs_other_benchmarks,
    executions_come_back_with_every_metric,
    changes_are_kept_per_metric,
    a_database_of_schema_4_gets_changes_per_metric,
    cpu_shares_are_each_runs_median_of_its_measured_executions,
    a_result_stored_alone_keeps_its_times_and_loads_in_its_session,
);

/// Without the PostgreSQL backend, a server's URL is refused with an error that says so (and
/// shows no password).
#[cfg(not(feature = "postgres"))]
#[test]
fn a_postgres_url_without_the_feature_is_a_typed_error() {
    let url = std::ffi::OsStr::new("postgres://u:secret@127.0.0.1/db");
    match rigor_history::open(url) {
        Err(HistoryError::PostgresNotBuilt { url }) => {
            assert_eq!(url, "postgres://u:***@127.0.0.1/db")
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("opened a server without the backend"),
    }
}

fn the_same_result_twice_is_stored_once(store: Store) {
    let mut h = store.open();
    let r = result(1, 1.0);
    let first = ingest(&mut *h, "a", 1, &r);
    assert!(matches!(first, Ingested::Added(_)));
    assert_eq!(
        ingest(&mut *h, "a", 1, &r),
        Ingested::AlreadyStored(first.id())
    );
    assert_eq!(h.versions(&main()).unwrap()[0].runs, 1);
}

fn series_come_in_history_order_with_every_sample(store: Store) {
    let mut h = store.open();
    // Stored out of order; two runs of version b.
    ingest(&mut *h, "c", 3, &result(3, 3.0));
    ingest(&mut *h, "a", 1, &result(1, 1.0));
    ingest(&mut *h, "b", 2, &result(2, 2.0));
    ingest(&mut *h, "b", 2, &result(22, 2.0));
    let s = h.series(&main(), "sort").unwrap();
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
    assert_eq!(h.benchmarks(&main()).unwrap(), ["sort"]);
}

fn failed_versions_are_remembered_and_skipped_in_series(store: Store) {
    let mut h = store.open();
    ingest(&mut *h, "a", 1, &result(1, 1.0));
    fail(&mut *h, "b", 2);
    assert!(h.has_run(&main(), "b").unwrap());
    assert!(!h.has_run(&key("ci-1", "other"), "b").unwrap());
    let versions = h.versions(&main()).unwrap();
    assert_eq!(versions[1].failed, 1);
    assert_eq!(h.series(&main(), "sort").unwrap().len(), 1);
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
        verdict: ChangeVerdict::Regression,
        method: "segments".into(),
        evidence: Default::default(),
    };
    h.save_changes(&main(), "sort", std::slice::from_ref(&change))
        .unwrap();
    let all = h.changes(&ChangeFilter::default()).unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].change, change);
    h.set_status(all[0].id, ChangeStatus::Acknowledged).unwrap();
    // Detected again: same row, status kept.
    h.save_changes(&main(), "sort", std::slice::from_ref(&change))
        .unwrap();
    let again = h.changes(&ChangeFilter::default()).unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].status, ChangeStatus::Acknowledged);
    // No longer detected: hidden unless asked for.
    h.save_changes(&main(), "sort", &[]).unwrap();
    assert!(h.changes(&ChangeFilter::default()).unwrap().is_empty());
    let stale = ChangeFilter {
        include_stale: true,
        ..Default::default()
    };
    assert!(!h.changes(&stale).unwrap()[0].current);
    assert!(matches!(
        h.set_status(ChangeId(999), ChangeStatus::Invalid),
        Err(HistoryError::NoSuchChange(ChangeId(999)))
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
                        let v = version(&format!("v{k}"), k as i64);
                        h.ingest(&Ingest::new(&v, &machine(), "main", &r)).unwrap();
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let h = store.open();
    let versions = h.versions(&main()).unwrap();
    assert_eq!(versions.len(), 10);
    assert!(versions.iter().all(|v| v.runs == 4), "{versions:?}");
}

fn summaries_list_every_measured_run_oldest_first(store: Store) {
    let mut h = store.open();
    ingest(&mut *h, "b", 2, &result(2, 2.0));
    ingest(&mut *h, "a", 1, &result(1, 1.0));
    fail(&mut *h, "c", 3);
    let s = h.summaries(&main()).unwrap();
    let got: Vec<(&str, &str)> = s
        .iter()
        .map(|x| (x.benchmark.as_str(), x.rev.as_str()))
        .collect();
    assert_eq!(got, [("sort", "b"), ("sort", "a")]);
    assert!(s[0].run.id < s[1].run.id);
    // These results carry no analysis: nothing to summarise, and none is invented.
    assert_eq!(
        (s[0].mean, s[0].interval, s[0].components.len()),
        (None, None, 0)
    );
    // Only the runs from an id on, and the ids of the measured runs (not the failed one).
    let runs = h.measured_runs(&main()).unwrap();
    assert_eq!(
        runs.iter().map(|r| r.id).collect::<Vec<_>>(),
        [s[0].run.id, s[1].run.id]
    );
    assert!(runs.iter().all(|r| r.fingerprint.len() == 64));
    let later = h.summaries_from(&main(), s[1].run.id).unwrap();
    assert_eq!(later, s[1..]);
    assert!(h.summaries(&key("ci-1", "other")).unwrap().is_empty());
    assert!(h.summaries(&key("nowhere", "main")).unwrap().is_empty());
}

/// `r` with an analysis of its first benchmark: two levels of variance components, with their
/// counts.
fn analysed(mut r: ResultFile, level: f64) -> ResultFile {
    use rigor_store::{AnalysisRecord, ComponentRecord, IntervalRecord, MeanMethod, SummaryRecord};
    let component = |name: &str, units| ComponentRecord {
        level: name.into(),
        s2: 1e-6,
        t2: 1e-6,
        units: Some(units),
    };
    r.benchmarks[0].analysis = Some(AnalysisRecord {
        counts: vec![3, 9],
        mean: level,
        ci: IntervalRecord {
            lower: level * 0.99,
            upper: level * 1.01,
            level: ConfidenceLevel::NINETY_FIVE,
            method: MeanMethod::TTopLevelMeans,
        },
        variance_components: vec![component("execution", 3), component("iteration", 9)],
        variance_method: rigor_stats::ComponentMethod::Balanced,
        summary: SummaryRecord {
            n: 9,
            median: level,
            min: level,
            max: level,
            std_dev: 0.0,
        },
        warnings: Vec::new(),
        net: None,
    });
    r
}

/// What a backend reads for the versions' levels is what its summaries hold for them, names
/// indexed once: runs with and without an analysis, a resolution, sessions, an artifact and
/// roles, two benchmarks, a failed version and another series left out.
fn levels_are_what_summaries_hold_for_them(store: Store) {
    let mut h = store.open();
    let session = begin(&mut *h, SessionKind::Run, "2026-03-01T10:00:00Z");
    let artifact: ArtifactHash = "cd".repeat(32).parse().unwrap();
    let (a, b) = (version("a", 1), version("b", 2));
    h.ingest(&Ingest {
        session: Some(session),
        artifact: Some(artifact),
        ..Ingest::new(
            &a,
            &machine(),
            "main",
            &analysed(two_benchmarks(1, 1.0), 1.0),
        )
    })
    .unwrap();
    h.ingest(&Ingest {
        session: Some(session),
        role: Role::Anchor,
        ..Ingest::new(&b, &machine(), "main", &with_executions(2, 2.0, None))
    })
    .unwrap();
    fail(&mut *h, "c", 3);
    let coarse = Resolution::new(Seconds(1e-6));
    ingest(
        &mut *h,
        "d",
        4,
        &analysed(with_executions(3, 1.5, coarse), 1.5),
    );
    ingest(&mut *h, "a", 1, &two_benchmarks(4, 1.1));
    h.ingest(&Ingest::new(&a, &machine(), "other", &result(5, 9.0)))
        .unwrap();

    let levels = h.levels(&main()).unwrap();
    let summaries = h.summaries(&main()).unwrap();
    // The same runs with the same values, whatever order each read gives the benchmarks of
    // one run.
    let named = |l: &rigor_history::StoredLevels| {
        let mut rows: Vec<String> = l
            .levels
            .iter()
            .map(|x| {
                let (b, v) = (&l.benchmarks[x.benchmark], &l.versions[x.version]);
                let x = rigor_history::StoredLevel {
                    benchmark: 0,
                    version: 0,
                    ..x.clone()
                };
                format!("{b} {v} {x:?}")
            })
            .collect();
        rows.sort();
        rows
    };
    assert_eq!(
        named(&levels),
        named(&rigor_history::StoredLevels::of_summaries(
            summaries.clone()
        ))
    );
    let runs: Vec<i64> = levels.levels.iter().map(|l| l.run.id.0).collect();
    assert!(runs.windows(2).all(|w| w[0] <= w[1]), "by run: {runs:?}");
    assert_eq!(levels.levels.len(), 6, "{levels:?}");
    assert_eq!(levels.versions, ["a", "b", "d"]);
    let mut names = levels.benchmarks.clone();
    names.sort();
    assert_eq!(names, ["parse", "sort"]);
    // Within a run by name; the analysis' mean, a resolution, an artifact, a role and every
    // spread kept.
    assert_eq!(levels.benchmarks[levels.levels[0].benchmark], "parse");
    let first = &levels.levels[1];
    assert_eq!(levels.benchmarks[first.benchmark], "sort");
    assert_eq!(first.mean, Some(1.0));
    assert_eq!(first.run.artifact, Some(artifact));
    assert!(levels.levels.iter().any(|l| l.run.role == Role::Anchor));
    assert!(levels.levels.iter().any(|l| l.resolution.is_some()));
    assert!(levels.levels.iter().all(|l| l.spread.is_some()));
    assert!(h.levels(&key("nowhere", "main")).unwrap().levels.is_empty());
}

/// One version read alone is that version of the benchmark's series: its runs merged, its
/// executions and samples; none for a version without it, a failed one or another series'.
fn a_version_read_alone_is_that_version_of_the_series(store: Store) {
    let mut h = store.open();
    ingest(&mut *h, "a", 1, &two_benchmarks(1, 1.0));
    ingest(&mut *h, "b", 2, &with_executions(2, 2.0, None));
    ingest(&mut *h, "a", 1, &two_benchmarks(3, 1.1));
    fail(&mut *h, "c", 3);
    h.ingest(&Ingest::new(
        &version("d", 4),
        &machine(),
        "other",
        &result(4, 9.0),
    ))
    .unwrap();
    let series = h.series(&main(), "sort").unwrap();
    assert_eq!(series.len(), 2);
    for v in &series {
        let alone = h.version_data(&main(), "sort", &v.version.rev).unwrap();
        assert_eq!(alone.as_ref(), Some(v), "{}", v.version.rev);
    }
    assert_eq!(series[0].runs.len(), 2);
    assert_eq!(h.version_data(&main(), "parse", "b").unwrap(), None);
    assert_eq!(h.version_data(&main(), "sort", "c").unwrap(), None);
    assert_eq!(h.version_data(&main(), "sort", "d").unwrap(), None);
    assert_eq!(h.version_data(&main(), "sort", "nowhere").unwrap(), None);
}

fn the_same_file_for_another_machine_or_branch_is_a_run_of_its_own(store: Store) {
    let mut h = store.open();
    let r = result(1, 1.0);
    let put = |h: &mut dyn History, machine: &str, branch: &str| {
        let m = MachineInfo {
            name: machine.into(),
            environment: Default::default(),
        };
        h.ingest(&Ingest::new(&version("a", 1), &m, branch, &r))
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
        assert_eq!(h.versions(&key(m, b)).unwrap()[0].runs, 1, "{m} {b}");
        assert_eq!(h.measured_runs(&key(m, b)).unwrap().len(), 1, "{m} {b}");
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
        verdict: ChangeVerdict::Regression,
        method: "segments".into(),
        evidence: Default::default(),
    };
    h.save_changes(&main(), "sort", &[at("c", "b"), at("b", "a")])
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
            preempted: None,
            run_delay: None,
            metrics: Default::default(),
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
            preempted: None,
            run_delay: None,
            metrics: Default::default(),
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
    let s = h.series(&main(), "sort").unwrap();
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
    let summaries = h.summaries(&main()).unwrap();
    let of = |rev: &str| summaries.iter().find(|x| x.rev == rev).unwrap().resolution;
    assert_eq!(of("a"), Resolution::new(Seconds(1e-3)));
    assert_eq!(of("b"), None);
}

fn cpu_shares_are_each_runs_median_of_its_measured_executions(store: Store) {
    let mut h = store.open();
    // Walls of 10, 20 and 30 ms at 6 ms of CPU each (shares 0.6, 0.3, 0.2; the warm-up, 0 of
    // 500 ms, left out): the median is 0.3. Measured while other processes used 0.4 of the
    // machine's 2 CPUs, and kept with the run.
    let mut quiet = with_executions(1, 1.0, None);
    quiet.provenance.others_cpus = Some(0.4);
    let a = ingest(&mut *h, "a", 1, &quiet).id();
    // A run whose executions recorded no CPU time (an imported file) has no share.
    let mut imported = with_executions(2, 2.0, None);
    for e in &mut imported.benchmarks[0].executions {
        e.user = Seconds(0.0);
        e.sys = Seconds(0.0);
    }
    let b = ingest(&mut *h, "b", 2, &imported).id();
    // A run with no executions at all, and a run not asked for.
    let c = ingest(&mut *h, "c", 3, &result(3, 3.0)).id();
    ingest(&mut *h, "d", 4, &with_executions(4, 4.0, None));
    // Beside a busy loop (others used one CPU of two: busy), and with that not measured.
    let mut busy = with_executions(5, 5.0, None);
    busy.provenance.others_cpus = Some(1.0);
    let e = ingest(&mut *h, "e", 5, &busy).id();
    let f = ingest(&mut *h, "f", 6, &with_executions(6, 6.0, None)).id();
    let shares = h.cpu_shares(&[a, b, c, e, f, RunId(i64::MAX)]).unwrap();
    assert_eq!(shares.len(), 3, "{shares:?}");
    assert_eq!((shares[0].run, shares[0].benchmark.as_str()), (a, "sort"));
    assert!((shares[0].share.get() - 0.3).abs() < 1e-9, "{shares:?}");
    let others: Vec<_> = shares
        .iter()
        .map(|s| (s.run, s.others_cpus, s.cpus))
        .collect();
    assert_eq!(others, [(a, Some(0.4), 2), (e, Some(1.0), 2), (f, None, 2)]);
    assert!(h.cpu_shares(&[]).unwrap().is_empty());
    // Run-queue delays are kept with each execution and come back in its run's share: waiting
    // 1, 2 and 3 ms of the 10, 20 and 30 ms (10% each) where every measured execution told;
    // none where one did not.
    let mut waited = with_executions(7, 7.0, None);
    for e in &mut waited.benchmarks[0].executions {
        e.run_delay = Some(Seconds(0.1 * e.wall.get()));
    }
    let g = ingest(&mut *h, "g", 7, &waited).id();
    let mut partly = waited.clone();
    let measured = partly.benchmarks[0].executions.iter_mut();
    measured.filter(|e| !e.warmup).last().unwrap().run_delay = None;
    let k = ingest(&mut *h, "k", 8, &partly).id();
    let shares = h.cpu_shares(&[a, g, k]).unwrap();
    let queue: Vec<_> = shares
        .iter()
        .map(|s| s.share.queue().map(|q| (q.get() * 1000.0).round()))
        .collect();
    assert_eq!(queue, [None, Some(100.0), None], "{shares:?}");
    let back = h.run_records(&main(), "sort").unwrap();
    let delays: Vec<Option<f64>> = back
        .iter()
        .find(|r| r.rev == "g")
        .unwrap()
        .benchmark
        .executions
        .iter()
        .map(|e| e.run_delay.map(|d| d.get()))
        .collect();
    let written: Vec<Option<f64>> = waited.benchmarks[0]
        .executions
        .iter()
        .map(|e| e.run_delay.map(|d| d.get()))
        .collect();
    assert_eq!(delays, written);
}

fn a_result_stored_alone_keeps_its_times_and_loads_in_its_session(store: Store) {
    let mut h = store.open();
    let mut r = result(1, 1.0);
    r.provenance.started = Some(at("2026-11-28T08:48:00Z"));
    r.provenance.ended = Some(at("2026-11-28T08:49:00Z"));
    r.provenance.load_before = Some(0.25);
    r.provenance.load_after = Some(2.5);
    ingest(&mut *h, "a", 1, &r);
    let sessions = h.sessions(&main()).unwrap();
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_eq!(
        (s.started, s.ended),
        (at("2026-11-28T08:48:00Z"), Some(at("2026-11-28T08:49:00Z")))
    );
    assert_eq!((s.load_before, s.load_after), (Some(0.25), Some(2.5)));
}

/// Each backend's migrations, in order, as released (migrations are never edited once
/// released, so these make databases as the rigor of each schema made them).
const SQLITE_MIGRATIONS: [&str; 2] = [
    include_str!("../migrations/0001_initial.sql"),
    include_str!("../migrations/0002_resolution.sql"),
];
const POSTGRES_MIGRATIONS: [&str; 3] = [
    include_str!("../migrations/postgres/0001_initial.sql"),
    include_str!("../migrations/postgres/0002_jobs.sql"),
    include_str!("../migrations/postgres/0003_resolution.sql"),
];

/// The SQL of an older schema — the first `sqlite` or `postgres` migrations of the store's
/// backend, and the version they set — and that version.
fn old_schema(store: &Store, sqlite: usize, postgres: usize) -> (String, i64) {
    if store.is_postgres() {
        let sql = POSTGRES_MIGRATIONS[..postgres].concat();
        let mark = format!(
            "CREATE TABLE rigor_schema (version BIGINT NOT NULL);
             INSERT INTO rigor_schema VALUES ({postgres});"
        );
        (sql + &mark, postgres as i64)
    } else {
        let sql = SQLITE_MIGRATIONS[..sqlite].concat();
        (
            sql + &format!("PRAGMA user_version = {sqlite};"),
            sqlite as i64,
        )
    }
}

/// The schema before the resolution was kept.
fn previous_schema(store: &Store) -> (String, i64) {
    old_schema(store, 1, 2)
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
    let s = h.series(&main(), "sort").unwrap();
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
    let summary = &h.summaries(&main()).unwrap()[0];
    assert_eq!((summary.mean, summary.resolution), (Some(1.5), None));
    // Its run measured nothing of what other processes used.
    let shares = h.cpu_shares(&[RunId(1)]).unwrap();
    assert_eq!(shares.len(), 1);
    assert_eq!(shares[0].others_cpus, None);
    // The upgraded database stores what this rigor writes.
    let new = with_executions(3, 1.0, Resolution::new(Seconds(2e-8)));
    ingest(&mut *h, "new", 2, &new);
    let s = h.series(&main(), "sort").unwrap();
    assert_eq!(s[1].benchmark.executions, new.benchmarks[0].executions);
    // Opened again: already up to date.
    drop(h);
    let version = schema_version(&store);
    drop(store.open());
    assert_eq!(schema_version(&store), version);
}

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn begin(h: &mut dyn History, kind: SessionKind, started: &str) -> SessionId {
    h.begin_session(&NewSession {
        machine: &machine(),
        kind,
        started: at(started),
        load_before: Some(0.25),
        rigor_version: "9.9.9",
    })
    .unwrap()
}

/// Runs stored in a session come back with it, their artifact and role, in series, summaries and
/// the session list; a run stored without one gets a session of its own (kind `add`).
fn sessions_hold_their_runs_with_artifacts_and_roles(store: Store) {
    let mut h = store.open();
    let session = begin(&mut *h, SessionKind::Run, "2026-03-01T10:00:00Z");
    let artifact: ArtifactHash = "ab".repeat(32).parse().unwrap();
    let (a, b) = (version("a", 1), version("b", 2));
    let (ra, rb) = (result(1, 1.0), result(2, 1.0));
    let new = h
        .ingest(&Ingest {
            session: Some(session),
            artifact: Some(artifact),
            ..Ingest::new(&a, &machine(), "main", &ra)
        })
        .unwrap()
        .id();
    let anchor = h
        .ingest(&Ingest {
            session: Some(session),
            role: Role::Anchor,
            ..Ingest::new(&b, &machine(), "main", &rb)
        })
        .unwrap()
        .id();
    let failed = h
        .record_failure(&Failure {
            session: Some(session),
            ..Failure::new(&version("c", 3), &machine(), "main", "build failed")
        })
        .unwrap();
    h.end_session(
        session,
        &SessionEnd {
            ended: at("2026-03-01T11:00:00Z"),
            load_after: Some(0.5),
        },
    )
    .unwrap();
    let mut alone = result(4, 1.0);
    alone.provenance.started = Some(at("2026-03-02T08:00:00Z"));
    alone.provenance.ended = Some(at("2026-03-02T08:05:00Z"));
    let own = ingest(&mut *h, "d", 4, &alone).id();

    let sessions = h.sessions(&main()).unwrap();
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    let s = &sessions[0];
    assert_eq!(
        (s.id, s.kind, s.machine.as_str(), s.rigor_version.as_str()),
        (session, SessionKind::Run, "ci-1", "9.9.9")
    );
    assert_eq!(s.started, at("2026-03-01T10:00:00Z"));
    assert_eq!(s.ended, Some(at("2026-03-01T11:00:00Z")));
    assert_eq!((s.load_before, s.load_after), (Some(0.25), Some(0.5)));
    assert_eq!(s.runs, [new, anchor, failed]);
    let s = &sessions[1];
    assert_eq!(
        (s.kind, s.runs.as_slice()),
        (SessionKind::Add, [own].as_slice())
    );
    assert_eq!(s.started, at("2026-03-02T08:00:00Z"));
    assert_eq!(s.ended, Some(at("2026-03-02T08:05:00Z")));
    assert_eq!((s.load_before, s.load_after), (None, None));
    assert!(h.sessions(&key("ci-1", "other")).unwrap().is_empty());

    let series = h.series(&main(), "sort").unwrap();
    let info = |rev: &str| series.iter().find(|v| v.version.rev == rev).unwrap().runs[0];
    let expected = RunInfo {
        id: new,
        session,
        artifact: Some(artifact),
        role: Role::New,
    };
    assert_eq!(info("a"), expected);
    assert_eq!((info("b").role, info("b").artifact), (Role::Anchor, None));
    assert_eq!(info("d").session, sessions[1].id);
    let summaries = h.summaries(&main()).unwrap();
    assert_eq!(summaries[0].run, expected);
    assert_eq!(summaries[1].run.role, Role::Anchor);
}

fn a_run_stored_into_a_missing_or_foreign_session_is_refused(store: Store) {
    let mut h = store.open();
    let r = result(1, 1.0);
    let (v, m) = (version("a", 1), machine());
    let missing = Ingest {
        session: Some(SessionId(999)),
        ..Ingest::new(&v, &m, "main", &r)
    };
    assert!(matches!(
        h.ingest(&missing),
        Err(HistoryError::NoSuchSession(SessionId(999)))
    ));
    let end = SessionEnd {
        ended: at("2026-03-01T11:00:00Z"),
        load_after: None,
    };
    assert!(matches!(
        h.end_session(SessionId(999), &end),
        Err(HistoryError::NoSuchSession(_))
    ));
    let session = begin(&mut *h, SessionKind::Worker, "2026-03-01T10:00:00Z");
    let other = MachineInfo {
        name: "ci-2".into(),
        environment: Default::default(),
    };
    let foreign = Ingest {
        session: Some(session),
        ..Ingest::new(&v, &other, "main", &r)
    };
    assert!(matches!(
        h.ingest(&foreign),
        Err(HistoryError::SessionOnOtherMachine { .. })
    ));
    // Nothing of the refused runs was stored.
    assert!(!h.has_run(&main(), "a").unwrap());
    assert!(h.series_keys().unwrap().is_empty());
}

/// What the dashboard compares stored means with: r and S²/r of the run's own top-level units,
/// stored as the run is (whether or not it carries an analysis).
fn summaries_carry_the_spread_of_the_mean_from_the_samples(store: Store) {
    let mut h = store.open();
    let r = result(1, 1.0);
    ingest(&mut *h, "a", 1, &r);
    let hierarchy = r.benchmarks[0].hierarchy().unwrap();
    let e = MeanEstimate::from_hierarchy(&hierarchy).unwrap();
    let robust = rigor_stats::series::VersionMean::huber(&hierarchy).unwrap();
    let s = &h.summaries(&main()).unwrap()[0];
    assert_eq!(
        s.spread,
        Some(MeanSpread {
            units: 3,
            var_of_mean: e.var_of_mean(),
            level: robust.mean,
            var_of_level: robust.variance,
        })
    );
    assert_eq!(s.unit, rigor_units::TimeUnit::S);
    // One top-level unit: no spread.
    let mut one = result(2, 1.0);
    one.benchmarks[0].samples.retain(|x| x.execution == 0);
    ingest(&mut *h, "b", 2, &one);
    assert_eq!(h.summaries(&main()).unwrap()[1].spread, None);
}

/// Schema 2 (PostgreSQL's 3: its count includes the job queue).
fn schema_2(store: &Store) -> (String, i64) {
    old_schema(store, 2, 3)
}

/// A database of schema 2 as that rigor wrote it: versions a–d, a and b measured together (one
/// start), c alone, d failed (no start); a and b with their samples, c with a summary but no
/// samples left (its spread can only come from its interval).
fn a_database_of_schema_2_gets_sessions_spreads_and_utc_times(store: Store) {
    let (schema, old_version) = schema_2(&store);
    let levels = serde_json::to_string(&Layout::new(false, true)).unwrap();
    let (pg, no) = (
        store.is_postgres(),
        if store.is_postgres() { "FALSE" } else { "0" },
    );
    let components = r#"[{"level":"execution","s2":0.04,"t2":0.03,"units":5},{"level":"iteration","s2":0.01,"t2":0.01,"units":10}]"#;
    let mut sql = format!(
        "{schema}
         INSERT INTO machines (name, host, os, cpu, cpus) VALUES ('ci-1', 'h', 'linux', 'cpu', 2);
         INSERT INTO versions (rev, commit_time, order_key, first_seen) VALUES
             ('a', '2026-01-01T10:00:00+01:00', 1, 1), ('b', NULL, 2, 2), ('c', NULL, 3, 3),
             ('d', 'not a time', 4, 4);
         INSERT INTO runs (fingerprint, version_id, machine_id, branch, status, seed, started,
                           ended, rigor_version, ingested_at) VALUES
             ('f1', 1, 1, 'main', 'complete', '7', '2026-02-01T10:00:00Z', '2026-02-01T10:30:00Z', '0.1.0', '2026-02-01T10:31:00Z'),
             ('f2', 2, 1, 'main', 'complete', '7', '2026-02-01T10:00:00Z', '2026-02-01T10:30:00Z', '0.1.0', '2026-02-01T10:31:00Z'),
             ('f3', 3, 1, 'main', 'complete', '8', '2026-02-02T10:00:00Z', '2026-02-02T10:30:00Z', '0.1.0', '2026-02-02T10:31:00Z'),
             ('f4', 4, 1, 'main', 'failed', '0', NULL, NULL, '0.1.0', '2026-02-03T10:00:00Z');
         INSERT INTO benchmarks (name) VALUES ('sort');
         INSERT INTO run_benchmarks (run_id, benchmark_id, command, levels, unit, mean,
                                     ci_lower, ci_upper, ci_level, components, failures) VALUES
             (1, 1, './sort', '{levels}', 's', 1.5, 1.0, 2.0, 0.95, '{components}', '[]'),
             (2, 1, './sort', '{levels}', 's', 1.5, 1.0, 2.0, 0.95, '{components}', '[]'),
             (3, 1, './sort', '{levels}', 's', 1.5, 1.2, 1.9, 0.95, '{components}', '[]');"
    );
    let mut values = Vec::new();
    for run in 1..=2 {
        for e in 0..3 {
            for i in 0..2 {
                let pos = if pg {
                    format!("{}, ", values.len() + 1)
                } else {
                    String::new()
                };
                let value = 1.0 + 0.1 * e as f64 + 0.01 * i as f64 + 0.5 * run as f64;
                values.push(format!("({run}, 1, {pos}{e}, {e}, {i}, {value}, {no})"));
            }
        }
    }
    let p = if pg { "pos, " } else { "" };
    sql.push_str(&format!(
        "INSERT INTO samples (run_id, benchmark_id, {p}round, execution, iteration, value, warmup)
         VALUES {};",
        values.join(", ")
    ));
    execute(&store, &sql);
    assert_eq!(schema_version(&store), old_version);

    let mut h = store.open();
    assert!(schema_version(&store) > old_version);
    // Every run is kept.
    let versions = h.versions(&main()).unwrap();
    assert_eq!(versions.len(), 4);
    assert_eq!(h.measured_runs(&main()).unwrap().len(), 3);
    assert_eq!(versions[0].version.time, Some(at("2026-01-01T09:00:00Z")));
    assert_eq!(
        versions[3].version.time, None,
        "an unreadable time is dropped"
    );
    // a and b were measured together: one session of kind run; c and the failure alone.
    let sessions = h.sessions(&main()).unwrap();
    let got: Vec<(SessionKind, Vec<i64>)> = sessions
        .iter()
        .map(|s| (s.kind, s.runs.iter().map(|r| r.0).collect()))
        .collect();
    assert_eq!(
        got,
        [
            (SessionKind::Run, vec![1, 2]),
            (SessionKind::Add, vec![3]),
            (SessionKind::Add, vec![4]),
        ]
    );
    assert_eq!(sessions[0].started, at("2026-02-01T10:00:00Z"));
    assert_eq!(sessions[0].ended, Some(at("2026-02-01T10:30:00Z")));
    assert_eq!(sessions[2].started, at("2026-02-03T10:00:00Z"));
    assert!(sessions.iter().all(|s| s.rigor_version == "0.1.0"));
    // Spreads: recomputed from the samples, else from the interval.
    let summaries = h.summaries(&main()).unwrap();
    let series = h.series(&main(), "sort").unwrap();
    for (k, v) in series.iter().take(2).enumerate() {
        let hierarchy = v.benchmark.hierarchy().unwrap();
        let e = MeanEstimate::from_hierarchy(&hierarchy).unwrap();
        let robust = rigor_stats::series::VersionMean::huber(&hierarchy).unwrap();
        assert_eq!(
            summaries[k].spread,
            Some(MeanSpread {
                units: 3,
                var_of_mean: e.var_of_mean(),
                level: robust.mean,
                var_of_level: robust.variance,
            })
        );
        assert_eq!(summaries[k].run.role, Role::New);
        assert_eq!(summaries[k].run.artifact, None);
    }
    let t = rigor_stats::dist::critical_value(0.95, 4.0, rigor_stats::dist::Quantile::StudentT)
        .unwrap();
    let from_interval = summaries[2].spread.unwrap();
    assert_eq!(from_interval.units, 5);
    let expected = ((1.5f64 - 1.2).min(1.9 - 1.5) / t).powi(2);
    assert!(
        (from_interval.var_of_mean - expected).abs() < 1e-12 * expected,
        "{from_interval:?} {expected}"
    );
    // No samples, no median: the mean stands for the level.
    assert_eq!(from_interval.level, 1.5);
    assert_eq!(from_interval.var_of_level, from_interval.var_of_mean);
    // The upgraded database stores what this rigor writes, in sessions of their own.
    ingest(&mut *h, "e", 5, &result(9, 1.0));
    assert_eq!(h.sessions(&main()).unwrap().len(), 4);
    drop(h);
    let version = schema_version(&store);
    drop(store.open());
    assert_eq!(schema_version(&store), version);
}

/// A history of schema 3 stored each run's level as the median of its top-level unit means;
/// schema 4 stores Huber's M-estimate, recomputed from the samples on opening (the schema-3
/// state is made by writing the median back and the version down behind the history's back).
fn a_database_of_schema_3_gets_huber_levels_from_its_samples(store: Store) {
    let mut h = store.open();
    let mut r = result(1, 1.0);
    // One slow execution: the median, Huber's level and the mean all differ.
    for s in &mut r.benchmarks[0].samples {
        if s.execution == 2 {
            s.value *= 1.5;
        }
    }
    ingest(&mut *h, "a", 1, &r);
    drop(h);
    let hierarchy = r.benchmarks[0].hierarchy().unwrap();
    let median = rigor_stats::series::VersionMean::robust(&hierarchy).unwrap();
    let huber = rigor_stats::series::VersionMean::huber(&hierarchy).unwrap();
    assert_ne!(median.mean, huber.mean);
    let schema_3 = if store.is_postgres() {
        "DELETE FROM rigor_schema; INSERT INTO rigor_schema VALUES (5);"
    } else {
        "PRAGMA user_version = 3;"
    };
    execute(
        &store,
        &format!(
            "UPDATE run_benchmarks SET level = {}, var_of_level = {}; {} {schema_3}",
            median.mean,
            median.variance,
            without_metrics(&store)
        ),
    );
    let h = store.open();
    let s = h.summaries(&main()).unwrap()[0].spread.unwrap();
    assert!(
        (s.level - huber.mean).abs() < 1e-12,
        "{} {}",
        s.level,
        huber.mean
    );
    assert!((s.var_of_level - huber.variance).abs() < 1e-15);
    drop(h);
    assert!(schema_version(&store) > 3);
}

/// `result(seed, level)` with a second benchmark, `parse`, of the same samples.
fn two_benchmarks(seed: u64, level: f64) -> ResultFile {
    let mut r = result(seed, level);
    let mut parse = r.benchmarks[0].clone();
    parse.name = "parse".into();
    r.benchmarks.push(parse);
    r
}

fn regression(rev: &str, previous: &str) -> NewChange {
    NewChange {
        rev: rev.into(),
        previous_rev: Some(previous.into()),
        ratio: 1.5,
        interval: Some((1.4, 1.6)),
        p_value: 0.001,
        q_value: Some(0.002),
        verdict: ChangeVerdict::Regression,
        method: "segments".into(),
        evidence: Default::default(),
    }
}

fn select(runs: SelectRuns, benchmark: Option<&str>) -> RunSelection {
    RunSelection {
        series: main(),
        runs,
        benchmark: benchmark.map(str::to_string),
    }
}

fn current_changes(h: &dyn History) -> Vec<String> {
    h.changes(&ChangeFilter::default())
        .unwrap()
        .into_iter()
        .map(|c| format!("{} {}", c.benchmark, c.change.rev))
        .collect()
}

/// A version's runs go with their samples, the sessions they leave empty and the currency of the
/// changes at or against it; a dry run says the same and removes nothing; other series keep the
/// version.
fn removing_a_version_takes_its_runs_and_leaves_the_rest(store: Store) {
    let mut h = store.open();
    let session = begin(&mut *h, SessionKind::Run, "2026-03-01T10:00:00Z");
    let (a, b) = (version("a", 1), version("b", 2));
    let (ra, rb) = (result(1, 1.0), result(2, 1.5));
    for (v, r) in [(&a, &ra), (&b, &rb)] {
        h.ingest(&Ingest {
            session: Some(session),
            ..Ingest::new(v, &machine(), "main", r)
        })
        .unwrap();
    }
    let again = ingest(&mut *h, "b", 2, &result(22, 1.5)).id();
    fail(&mut *h, "b", 2);
    ingest(&mut *h, "c", 3, &result(3, 1.5));
    h.ingest(&Ingest::new(&b, &machine(), "dev", &rb)).unwrap();
    h.save_changes(&main(), "sort", &[regression("b", "a")])
        .unwrap();
    let sessions_before = h.sessions(&main()).unwrap();
    assert_eq!(sessions_before.len(), 4, "{sessions_before:?}");

    let which = select(SelectRuns::Version("b".into()), None);
    let dry = h.remove_runs(&which, RemoveMode::DryRun).unwrap();
    assert_eq!(dry.runs.len(), 3, "{dry:?}");
    assert_eq!(dry.samples(), 24);
    assert!(dry.runs.iter().all(|r| r.rev == "b" && r.whole));
    assert_eq!(
        dry.runs.iter().map(|r| r.failed).collect::<Vec<_>>(),
        [false, false, true]
    );
    assert_eq!(dry.changes.len(), 1);
    // The sessions of the second run and of the failure held nothing else; the batch's keeps a.
    assert_eq!(dry.sessions.len(), 2);
    assert!(!dry.sessions.contains(&session));
    // Nothing went.
    assert_eq!(h.versions(&main()).unwrap().len(), 3);
    assert_eq!(h.sessions(&main()).unwrap(), sessions_before);
    assert_eq!(current_changes(&*h), ["sort b"]);

    let removed = h.remove_runs(&which, RemoveMode::Remove).unwrap();
    assert_eq!(removed, dry);
    assert!(removed.runs.iter().any(|r| r.id == again));
    let revs: Vec<String> = h
        .versions(&main())
        .unwrap()
        .into_iter()
        .map(|v| v.version.rev)
        .collect();
    assert_eq!(revs, ["a", "c"]);
    assert!(!h.has_run(&main(), "b").unwrap());
    let series = h.series(&main(), "sort").unwrap();
    assert_eq!(series.len(), 2);
    assert_eq!(series[0].benchmark.samples.len(), 12);
    assert!(current_changes(&*h).is_empty());
    let stale = h
        .changes(&ChangeFilter {
            include_stale: true,
            ..Default::default()
        })
        .unwrap();
    assert_eq!((stale.len(), stale[0].current), (1, false));
    let sessions = h.sessions(&main()).unwrap();
    assert_eq!(sessions.len(), 2);
    assert_eq!((sessions[0].id, sessions[0].runs.len()), (session, 1));
    // The other branch keeps its run of b; nothing of the removed rows is left anywhere.
    assert!(h.has_run(&key("ci-1", "dev"), "b").unwrap());
    assert_eq!(h.series(&key("ci-1", "dev"), "sort").unwrap().len(), 1);
    assert_eq!(count(&store, "samples"), 3 * 12);
    assert_eq!(count(&store, "runs"), 3);
    assert_eq!(count(&store, "sessions"), 3);
    // Removing it again finds nothing.
    assert!(
        h.remove_runs(&which, RemoveMode::Remove)
            .unwrap()
            .is_empty()
    );
}

/// Rows of a table, counted behind the history's back.
fn count(store: &Store, table: &str) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM {table}");
    let location = store.location.to_str().unwrap();
    if store.is_postgres() {
        let mut c = ::postgres::Client::connect(location, ::postgres::NoTls).unwrap();
        c.query_one(sql.as_str(), &[]).unwrap().get(0)
    } else {
        let c = rusqlite::Connection::open(Path::new(location)).unwrap();
        c.query_row(&sql, [], |r| r.get(0)).unwrap()
    }
}

/// A session's runs go, in the series asked for only, and the session with the last of them.
fn removing_a_session_takes_its_runs_and_the_session(store: Store) {
    let mut h = store.open();
    let session = begin(&mut *h, SessionKind::Run, "2026-03-01T10:00:00Z");
    let (a, b) = (version("a", 1), version("b", 2));
    let (ra, rb) = (result(1, 1.0), result(2, 1.0));
    for (v, r, branch) in [(&a, &ra, "main"), (&b, &rb, "main"), (&a, &ra, "dev")] {
        h.ingest(&Ingest {
            session: Some(session),
            ..Ingest::new(v, &machine(), branch, r)
        })
        .unwrap();
    }
    ingest(&mut *h, "c", 3, &result(3, 1.0));
    let which = select(SelectRuns::Session(session), None);
    let removed = h.remove_runs(&which, RemoveMode::Remove).unwrap();
    let revs: Vec<&str> = removed.runs.iter().map(|r| r.rev.as_str()).collect();
    assert_eq!(revs, ["a", "b"]);
    // Its run on dev keeps the session.
    assert!(removed.sessions.is_empty());
    assert_eq!(h.versions(&main()).unwrap().len(), 1);
    assert_eq!(h.sessions(&key("ci-1", "dev")).unwrap()[0].id, session);
    let dev = RunSelection {
        series: key("ci-1", "dev"),
        ..which.clone()
    };
    let removed = h.remove_runs(&dev, RemoveMode::Remove).unwrap();
    assert_eq!(removed.sessions, [session]);
    assert!(h.sessions(&key("ci-1", "dev")).unwrap().is_empty());
    assert!(h.series_keys().unwrap() == [main()]);
    // A session that does not exist, or of another machine's series: nothing.
    for (series, id) in [(main(), SessionId(999)), (key("ci-2", "main"), session)] {
        let none = RunSelection {
            series,
            runs: SelectRuns::Session(id),
            benchmark: None,
        };
        assert!(h.remove_runs(&none, RemoveMode::Remove).unwrap().is_empty());
    }
}

/// One benchmark of a version: its rows go, the runs keep their other benchmarks, and only its
/// changes stop being current.
fn removing_one_benchmark_keeps_the_runs_other_benchmarks(store: Store) {
    let mut h = store.open();
    ingest(&mut *h, "a", 1, &two_benchmarks(1, 1.0));
    ingest(&mut *h, "b", 2, &two_benchmarks(2, 1.5));
    fail(&mut *h, "b", 2);
    ingest(&mut *h, "c", 3, &two_benchmarks(3, 1.5));
    h.save_changes(&main(), "sort", &[regression("b", "a")])
        .unwrap();
    h.save_changes(&main(), "parse", &[regression("b", "a")])
        .unwrap();
    let which = select(SelectRuns::Version("b".into()), Some("sort"));
    let removed = h.remove_runs(&which, RemoveMode::Remove).unwrap();
    assert_eq!(
        removed.runs.len(),
        1,
        "the failed run measured no benchmark"
    );
    let run = &removed.runs[0];
    assert_eq!(
        (run.benchmarks.as_slice(), run.whole),
        (["sort".to_string()].as_slice(), false)
    );
    assert_eq!((run.samples, removed.sessions.len()), (12, 0));
    assert_eq!(current_changes(&*h), ["parse b"]);
    let revs = |b: &str| -> Vec<String> {
        h.series(&main(), b)
            .unwrap()
            .into_iter()
            .map(|v| v.version.rev)
            .collect()
    };
    assert_eq!(revs("sort"), ["a", "c"]);
    assert_eq!(revs("parse"), ["a", "b", "c"]);
    assert_eq!(h.stored_benchmarks(&main(), "b").unwrap(), ["parse"]);
    // The last benchmark of the run takes the run with it; the failure stays.
    let parse = select(SelectRuns::Version("b".into()), Some("parse"));
    let removed = h.remove_runs(&parse, RemoveMode::Remove).unwrap();
    assert!(removed.runs[0].whole);
    assert_eq!(removed.sessions.len(), 1);
    let versions = h.versions(&main()).unwrap();
    assert_eq!((versions[1].runs, versions[1].failed), (1, 1));
}

/// SQL that takes a database of schema 7 (PostgreSQL: 9) back to what schema 4 (6) kept: no
/// run-queue delays, no record of what other processes used over a run, no execution metrics,
/// changes without a metric (one per benchmark and version). The version number is left to the
/// caller.
fn without_metrics(store: &Store) -> &'static str {
    if store.is_postgres() {
        "ALTER TABLE executions DROP COLUMN run_delay;
         ALTER TABLE runs DROP COLUMN others_cpus;
         DROP TABLE execution_metrics;
         ALTER TABLE changes DROP CONSTRAINT changes_benchmark_metric_version_key;
         ALTER TABLE changes DROP COLUMN metric;
         ALTER TABLE changes ADD UNIQUE (benchmark_id, machine_id, branch, version_id);"
    } else {
        "ALTER TABLE executions DROP COLUMN run_delay;
         ALTER TABLE runs DROP COLUMN others_cpus;
         DROP TABLE execution_metrics;
         CREATE TABLE changes_v4 (
             id INTEGER PRIMARY KEY, benchmark_id INTEGER NOT NULL, machine_id INTEGER NOT NULL,
             branch TEXT NOT NULL, version_id INTEGER NOT NULL, previous_version_id INTEGER,
             ratio REAL NOT NULL, ci_lower REAL, ci_upper REAL, p_value REAL NOT NULL,
             q_value REAL, verdict TEXT NOT NULL, method TEXT NOT NULL,
             status TEXT NOT NULL DEFAULT 'new', current INTEGER NOT NULL DEFAULT 1,
             detected_at TEXT NOT NULL, evidence TEXT NOT NULL DEFAULT 'detected',
             UNIQUE (benchmark_id, machine_id, branch, version_id));
         INSERT INTO changes_v4 SELECT id, benchmark_id, machine_id, branch, version_id,
             previous_version_id, ratio, ci_lower, ci_upper, p_value, q_value, verdict, method,
             status, current, detected_at, evidence FROM changes;
         DROP TABLE changes;
         ALTER TABLE changes_v4 RENAME TO changes;"
    }
}

/// `with_executions` whose measured executions also report an allocation count (one value) and
/// a per-iteration throughput (several), as a program reports them through its samples file.
fn with_reported_metrics(seed: u64, level: f64) -> ResultFile {
    let mut r = with_executions(seed, level, None);
    for (k, e) in r.benchmarks[0].executions.iter_mut().enumerate() {
        if e.warmup {
            continue;
        }
        e.max_rss = (64 << 20) + (k as u64) * 4096;
        e.metrics.insert(
            "allocations".into(),
            MetricValues {
                unit: Quantity::Count,
                values: vec![1000.0 + k as f64],
            },
        );
        e.metrics.insert(
            "throughput".into(),
            MetricValues {
                unit: Quantity::Rate("MB/s".into()),
                values: vec![10.0, 11.0, 12.5 + k as f64],
            },
        );
    }
    r
}

/// Ingested and read back, every execution keeps its CPU times, peak memory and reported
/// metrics (by name, unit and values), in the merged series and run by run; projected on a
/// metric, a stored run gives what the result file gives.
fn executions_come_back_with_every_metric(store: Store) {
    let mut h = store.open();
    let a = with_reported_metrics(1, 1.0);
    let b = with_reported_metrics(2, 1.2);
    ingest(&mut *h, "a", 1, &a);
    ingest(&mut *h, "a", 1, &b);
    let s = h.series(&main(), "sort").unwrap();
    assert_eq!(s.len(), 1);
    let merged = &s[0].benchmark.executions;
    assert_eq!(merged.len(), 8);
    assert_eq!(merged[..4], a.benchmarks[0].executions[..]);
    assert_eq!(merged[5].metrics, b.benchmarks[0].executions[1].metrics);
    let runs = h.run_records(&main(), "sort").unwrap();
    assert_eq!(runs.len(), 2);
    assert!(runs.iter().all(|r| r.rev == "a"));
    assert!(runs[0].run.id < runs[1].run.id);
    for (stored, given) in runs.iter().zip([&a, &b]) {
        let given = &given.benchmarks[0];
        assert_eq!(stored.benchmark.executions, given.executions);
        assert_eq!(stored.benchmark.samples, given.samples);
        for m in ["cpu", "peak-memory", "allocations", "throughput"] {
            let m: Metric = m.parse().unwrap();
            let (x, y) = (
                stored.benchmark.for_metric(&m).unwrap(),
                given.for_metric(&m).unwrap(),
            );
            assert_eq!(x.samples, y.samples, "{m}");
            assert_eq!(x.metric, y.metric, "{m}");
        }
    }
    // Removing the version takes its metrics with it.
    let removed = h
        .remove_runs(
            &select(SelectRuns::Version("a".into()), None),
            RemoveMode::Remove,
        )
        .unwrap();
    assert_eq!(removed.runs.len(), 2);
    assert_eq!(count(&store, "execution_metrics"), 0);
}

/// A change is one benchmark's change in one metric: wall time and CPU time may both change at
/// one version, each keeps its own status, and detecting one metric again leaves the other's
/// changes as they are.
fn changes_are_kept_per_metric(store: Store) {
    let mut h = store.open();
    ingest(&mut *h, "a", 1, &result(1, 1.0));
    ingest(&mut *h, "b", 2, &result(2, 1.1));
    let change = regression("b", "a");
    h.save_metric_changes(&DetectedChanges {
        series: &main(),
        benchmark: "sort",
        metric: &Metric::Cpu,
        changes: std::slice::from_ref(&change),
    })
    .unwrap();
    h.save_changes(&main(), "sort", std::slice::from_ref(&change))
        .unwrap();
    let all = h.changes(&ChangeFilter::default()).unwrap();
    let metrics: Vec<&str> = all.iter().map(|c| c.metric.name()).collect();
    assert_eq!(metrics, ["cpu", "wall"]);
    let cpu = all.iter().find(|c| c.metric == Metric::Cpu).unwrap().id;
    h.set_status(cpu, ChangeStatus::Acknowledged).unwrap();
    // Wall time detected again without the change: the CPU change stays current.
    h.save_changes(&main(), "sort", &[]).unwrap();
    let now = h.changes(&ChangeFilter::default()).unwrap();
    assert_eq!(now.len(), 1);
    assert_eq!(
        (now[0].id, now[0].metric.clone(), now[0].status),
        (cpu, Metric::Cpu, ChangeStatus::Acknowledged)
    );
    // Found again: the same row, its status kept.
    h.save_metric_changes(&DetectedChanges {
        series: &main(),
        benchmark: "sort",
        metric: &Metric::Cpu,
        changes: &[change],
    })
    .unwrap();
    let again = h.changes(&ChangeFilter::default()).unwrap();
    assert_eq!(
        (again[0].id, again[0].status),
        (cpu, ChangeStatus::Acknowledged)
    );
    // JSON says the metric.
    let json = serde_json::to_value(&again[0]).unwrap();
    assert_eq!(json["metric"], "cpu");
}

/// A history of schema 4 kept one change per benchmark and version, and no reported metrics:
/// opened, its changes are wall time's (ids and statuses kept), a change in another metric can
/// be stored beside them, and new runs keep their executions' metrics.
fn a_database_of_schema_4_gets_changes_per_metric(store: Store) {
    let mut h = store.open();
    ingest(&mut *h, "a", 1, &result(1, 1.0));
    ingest(&mut *h, "b", 2, &result(2, 1.1));
    h.save_changes(&main(), "sort", &[regression("b", "a")])
        .unwrap();
    let id = h.changes(&ChangeFilter::default()).unwrap()[0].id;
    h.set_status(id, ChangeStatus::Invalid).unwrap();
    drop(h);
    let version = if store.is_postgres() {
        "DELETE FROM rigor_schema; INSERT INTO rigor_schema VALUES (6);"
    } else {
        "PRAGMA user_version = 4;"
    };
    execute(&store, &format!("{} {version}", without_metrics(&store)));
    let mut h = store.open();
    assert!(schema_version(&store) > 4);
    let all = h.changes(&ChangeFilter::default()).unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(
        (all[0].id, all[0].metric.clone(), all[0].status),
        (id, Metric::Wall, ChangeStatus::Invalid)
    );
    h.save_metric_changes(&DetectedChanges {
        series: &main(),
        benchmark: "sort",
        metric: &Metric::PeakMemory,
        changes: &[regression("b", "a")],
    })
    .unwrap();
    assert_eq!(h.changes(&ChangeFilter::default()).unwrap().len(), 2);
    let r = with_reported_metrics(3, 1.0);
    ingest(&mut *h, "c", 3, &r);
    let runs = h.run_records(&main(), "sort").unwrap();
    assert_eq!(
        runs.last().unwrap().benchmark.executions,
        r.benchmarks[0].executions
    );
}

/// SQLite reads a long series' levels in two halves of its runs at once, through two
/// connections: the same levels, names and order as one read, with the runs of another series,
/// a failed version and a re-measured version between them.
#[test]
fn sqlite_levels_read_in_halves_are_those_read_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    {
        let mut h = rigor_history::SqliteHistory::open(&path).unwrap();
        for k in 0..24_i64 {
            let rev = format!("v{k:02}");
            let r = if k % 3 == 0 {
                two_benchmarks(k as u64, 1.0 + 0.01 * k as f64)
            } else {
                result(k as u64, 1.0 + 0.01 * k as f64)
            };
            ingest(&mut h, &rev, k, &r);
            if k % 7 == 0 {
                h.ingest(&Ingest::new(&version(&rev, k), &machine(), "other", &r))
                    .unwrap();
            }
            if k == 11 {
                fail(&mut h, "v11b", 100);
                ingest(&mut h, "v05", 5, &two_benchmarks(99, 1.2));
            }
        }
    }
    let once = rigor_history::SqliteHistory::open(&path).unwrap();
    let halves = rigor_history::SqliteHistory::open(&path)
        .unwrap()
        .with_parallel_levels_from(2);
    let read = once.levels(&main()).unwrap();
    assert_eq!(read.levels.len(), 24 + 8 + 2, "{read:?}");
    assert_eq!(halves.levels(&main()).unwrap(), read);
    // Both reads are ordered by run.
    let runs: Vec<i64> = read.levels.iter().map(|l| l.run.id.0).collect();
    assert!(runs.windows(2).all(|w| w[0] <= w[1]), "{runs:?}");
}

/// Reading an up-to-date SQLite history leaves its file as it was (a check must not touch a
/// history it only reads, nor bump its change counter), and opening it does not wait for the
/// write lock that another process holds while it stores.
#[test]
fn reading_an_up_to_date_sqlite_history_writes_nothing_and_waits_for_no_writer() {
    let store = Store::sqlite();
    {
        let mut h = store.open();
        ingest(&mut *h, "a", 1, &result(1, 1.0));
        ingest(&mut *h, "b", 2, &result(2, 1.1));
    }
    let path = Path::new(&store.location);
    let before = std::fs::read(path).unwrap();
    {
        let h = store.open();
        assert_eq!(h.series(&main(), "sort").unwrap().len(), 2);
        h.levels(&main()).unwrap();
    }
    assert!(
        std::fs::read(path).unwrap() == before,
        "reading the history changed its file"
    );
    // Another process writing: its lock is held while the history opens and reads.
    let writer = rusqlite::Connection::open(path).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let h = store.open();
    assert_eq!(h.series(&main(), "sort").unwrap().len(), 2);
    writer.execute_batch("COMMIT").unwrap();
}
