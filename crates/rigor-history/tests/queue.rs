//! The job queue on a PostgreSQL server the test set-up starts: claims by class, leases that run
//! out, completion that stores results once, and claims that skip each other's rows.

#![cfg(feature = "postgres")]

use std::time::Duration;

use rigor_history::queue::{JobQueue, JobResults, JobState, NewJob};
use rigor_history::{
    HistoryError, HistoryRead, Ingest, MachineInfo, PostgresHistory, SeriesKey, VersionInfo,
};
use rigor_store::ResultFile;
use rigor_units::{ConfidenceLevel, Seed};

fn open() -> Option<PostgresHistory> {
    let url = rigor_pgtest::server()?.fresh_database();
    Some(PostgresHistory::open(&url).unwrap())
}

fn job(class: &str, spec: &str) -> NewJob {
    NewJob {
        class: class.into(),
        branch: "main".into(),
        spec: spec.into(),
    }
}

fn machine() -> MachineInfo {
    MachineInfo {
        name: "fast".into(),
        environment: Default::default(),
    }
}

#[test]
fn jobs_are_claimed_by_class_once_and_enqueued_once() {
    let Some(mut q) = open() else { return };
    let e = q
        .enqueue(&[job("fast", "a"), job("fast", "b"), job("slow", "a")])
        .unwrap();
    assert_eq!((e.added, e.existing), (3, 0));
    let again = q.enqueue(&[job("fast", "a")]).unwrap();
    assert_eq!((again.added, again.existing), (0, 1));
    let lease = Duration::from_secs(60);
    let a = q.claim("fast", "w1", lease).unwrap().unwrap();
    let b = q.claim("fast", "w2", lease).unwrap().unwrap();
    assert_eq!((a.spec.as_str(), b.spec.as_str()), ("a", "b"));
    assert!(q.claim("fast", "w3", lease).unwrap().is_none());
    let slow = q.claim("slow", "w4", lease).unwrap().unwrap();
    assert_eq!(slow.class, "slow");
}

#[test]
fn an_expired_lease_moves_the_job_and_the_old_claim_stores_nothing() {
    let Some(mut q) = open() else { return };
    q.enqueue(&[job("fast", "a")]).unwrap();
    let old = q
        .claim("fast", "dead", Duration::from_millis(50))
        .unwrap()
        .unwrap();
    std::thread::sleep(Duration::from_millis(120));
    let new = q
        .claim("fast", "alive", Duration::from_secs(60))
        .unwrap()
        .unwrap();
    assert_eq!((new.id, new.attempt), (old.id, old.attempt + 1));
    assert!(!q.heartbeat(&old, Duration::from_secs(60)).unwrap());
    assert!(q.heartbeat(&new, Duration::from_secs(60)).unwrap());

    let version = VersionInfo {
        rev: "v1".into(),
        ..Default::default()
    };
    let result = ResultFile::new(Seed(7), ConfidenceLevel::NINETY_FIVE);
    let m = machine();
    let ingests = [Ingest::new(&version, &m, "main", &result)];
    let results = JobResults {
        results: &ingests,
        failures: &[],
    };
    assert!(matches!(
        q.complete(&old, &results),
        Err(HistoryError::LeaseLost(_))
    ));
    assert!(!q.has_run(&SeriesKey::new("fast", "main"), "v1").unwrap());
    let runs = q.complete(&new, &results).unwrap();
    assert_eq!(runs.len(), 1);
    // Completing again (a lost acknowledgement) stores nothing more and returns the same runs.
    assert_eq!(q.complete(&new, &results).unwrap(), runs);
    assert_eq!(
        q.versions(&SeriesKey::new("fast", "main")).unwrap()[0].runs,
        1
    );
    let tally = q.tally().unwrap();
    assert_eq!(tally.len(), 1, "{tally:?}");
    assert_eq!(
        (tally[0].worker.as_deref(), tally[0].state),
        (Some("alive"), JobState::Done)
    );
}

#[test]
fn concurrent_claims_never_share_a_job() {
    let Some(first) = open() else { return };
    let url = first.url().to_string();
    let mut q = first;
    let jobs: Vec<NewJob> = (0..200).map(|k| job("fast", &k.to_string())).collect();
    q.enqueue(&jobs).unwrap();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let url = url.clone();
            std::thread::spawn(move || {
                let mut q = PostgresHistory::open(&url).unwrap();
                let mut mine = Vec::new();
                while let Some(j) = q
                    .claim("fast", &format!("w{t}"), Duration::from_secs(60))
                    .unwrap()
                {
                    mine.push(j.id.0);
                }
                mine
            })
        })
        .collect();
    let mut all: Vec<i64> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    all.sort();
    let n = all.len();
    all.dedup();
    assert_eq!((n, all.len()), (200, 200));
}

#[test]
fn tls_is_required_when_asked_and_passwords_are_never_shown() {
    let Some(server) = rigor_pgtest::server() else {
        return;
    };
    // The test server offers no TLS: sslmode=require must refuse plain TCP, not fall back.
    let url = format!(
        "postgres://postgres:hunter2@127.0.0.1:{}/postgres?sslmode=require",
        server.port()
    );
    let err = PostgresHistory::open(&url).unwrap_err();
    let mut text = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    assert!(text.contains("TLS"), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
    assert!(text.contains("postgres:***@127.0.0.1"), "{text}");
}
