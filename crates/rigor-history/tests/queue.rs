//! The job queue on a PostgreSQL server the test set-up starts: claims by class and format,
//! leases that run out, attempts that run out, jobs handed back to wait, versions queued once by
//! key (and failed ones again when asked), completion that stores results once with their
//! session, and claims that skip each other's rows.

#![cfg(feature = "postgres")]

use std::time::Duration;

use rigor_history::queue::{
    Claim, Enqueue, Enqueued, JobQueue, JobResults, JobSession, JobState, NewJob, Unreadable,
};
use rigor_history::{
    Failure, HistoryError, HistoryRead, Ingest, MachineInfo, NewSession, PostgresHistory,
    SeriesKey, SessionEnd, SessionKind, VersionInfo,
};
use rigor_store::ResultFile;
use rigor_units::{ConfidenceLevel, Seed};

fn open() -> Option<PostgresHistory> {
    let url = rigor_pgtest::server()?.fresh_database();
    Some(PostgresHistory::open(&url).unwrap())
}

/// A job of one version, whose key is its class and spec.
fn job(class: &str, spec: &str) -> NewJob {
    NewJob {
        class: class.into(),
        branch: "main".into(),
        format: 2,
        spec: spec.into(),
        keys: vec![format!("{class}/{spec}")],
        max_attempts: 3,
    }
}

/// Queues the jobs, one version each.
fn enqueue(q: &mut PostgresHistory, jobs: &[NewJob]) -> Enqueued {
    enqueue_with(q, jobs, false)
}

fn enqueue_with(q: &mut PostgresHistory, jobs: &[NewJob], retry_failed: bool) -> Enqueued {
    let keys: Vec<String> = jobs.iter().map(|j| j.keys[0].clone()).collect();
    let make = |free: &[usize]| free.iter().map(|&i| jobs[i].clone()).collect();
    q.enqueue(&Enqueue {
        keys: &keys,
        retry_failed,
        jobs: &make,
    })
    .unwrap()
}

const LEASE: Duration = Duration::from_secs(60);

/// The claim of `worker` on the jobs of `class` for `lease`, reading formats up to `formats`.
fn claim<'a>(class: &'a str, worker: &'a str, lease: Duration, formats: u32) -> Claim<'a> {
    Claim {
        class,
        worker,
        lease,
        formats,
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
    let e = enqueue(
        &mut q,
        &[job("fast", "a"), job("fast", "b"), job("slow", "a")],
    );
    assert_eq!((e.added, e.existing), (3, 0));
    let again = enqueue(&mut q, &[job("fast", "a")]);
    assert_eq!((again.added, again.existing), (0, 1));
    let lease = LEASE;
    let a = q.claim(&claim("fast", "w1", lease, 2)).unwrap().unwrap();
    let b = q.claim(&claim("fast", "w2", lease, 2)).unwrap().unwrap();
    assert_eq!((a.spec.as_str(), b.spec.as_str()), ("a", "b"));
    assert!(q.claim(&claim("fast", "w3", lease, 2)).unwrap().is_none());
    let slow = q.claim(&claim("slow", "w4", lease, 2)).unwrap().unwrap();
    assert_eq!(slow.class, "slow");
}

#[test]
fn an_expired_lease_moves_the_job_and_the_old_claim_stores_nothing() {
    let Some(mut q) = open() else { return };
    enqueue(&mut q, &[job("fast", "a")]);
    let old = q
        .claim(&claim("fast", "dead", Duration::from_millis(50), 2))
        .unwrap()
        .unwrap();
    std::thread::sleep(Duration::from_millis(120));
    let new = q.claim(&claim("fast", "alive", LEASE, 2)).unwrap().unwrap();
    assert_eq!((new.id, new.attempt), (old.id, old.attempt + 1));
    assert_ne!(new.claim, old.claim);
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
        ..JobResults::default()
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
fn versions_are_queued_once_by_key_and_failed_jobs_again_when_asked() {
    let Some(mut q) = open() else { return };
    // Two versions in one job; then one of them with a new one: only the new one is queued.
    let pair = NewJob {
        keys: vec!["k1".into(), "k2".into()],
        ..job("fast", "pair")
    };
    let keys = ["k1".to_string(), "k2".to_string()];
    let make = |free: &[usize]| {
        assert_eq!(free, [0, 1]);
        vec![pair.clone()]
    };
    let e = q
        .enqueue(&Enqueue {
            keys: &keys,
            retry_failed: false,
            jobs: &make,
        })
        .unwrap();
    assert_eq!((e.added, e.versions, e.existing), (1, 2, 0));
    let keys = ["k2".to_string(), "k3".to_string()];
    let made = std::cell::RefCell::new(Vec::new());
    let make = |free: &[usize]| {
        made.borrow_mut().extend_from_slice(free);
        vec![NewJob {
            keys: vec!["k3".into()],
            ..job("fast", "three")
        }]
    };
    let e = q
        .enqueue(&Enqueue {
            keys: &keys,
            retry_failed: false,
            jobs: &make,
        })
        .unwrap();
    assert_eq!(*made.borrow(), [1]);
    assert_eq!((e.added, e.versions, e.existing), (1, 1, 1));
    // A failed job's versions are not queued again unless asked; then the job itself is
    // queued again, its attempts starting over.
    let claimed = q.claim(&claim("fast", "w", LEASE, 2)).unwrap().unwrap();
    q.fail(&claimed, "broken").unwrap();
    let keys = ["k1".to_string()];
    let never = |_: &[usize]| -> Vec<NewJob> { panic!("nothing is free") };
    let request = Enqueue {
        keys: &keys,
        retry_failed: false,
        jobs: &never,
    };
    let e = q.enqueue(&request).unwrap();
    assert_eq!((e.added, e.failed, e.retried), (0, 1, 0));
    let e = q
        .enqueue(&Enqueue {
            retry_failed: true,
            ..request
        })
        .unwrap();
    assert_eq!((e.added, e.failed, e.retried), (0, 0, 1));
    let again = q.claim(&claim("fast", "w", LEASE, 2)).unwrap().unwrap();
    assert_eq!((again.id, again.attempt), (claimed.id, 1));
}

#[test]
fn a_job_whose_worker_dies_every_time_is_failed_after_its_attempts() {
    let Some(mut q) = open() else { return };
    enqueue(
        &mut q,
        &[NewJob {
            max_attempts: 2,
            ..job("fast", "poison")
        }],
    );
    let short = Duration::from_millis(30);
    for attempt in 1..=2 {
        let j = q
            .claim(&claim("fast", "doomed", short, 2))
            .unwrap()
            .unwrap();
        assert_eq!((j.attempt, j.max_attempts), (attempt, 2));
        std::thread::sleep(Duration::from_millis(80));
    }
    // Out of attempts: not claimed again, and failed with the reason once a worker looks.
    assert!(q.claim(&claim("fast", "next", LEASE, 2)).unwrap().is_none());
    let gave_up = q.give_up("fast").unwrap();
    assert_eq!(gave_up.len(), 1);
    assert_eq!(gave_up[0].attempts, 2);
    let details = q.details(10).unwrap();
    assert_eq!(details[0].state, JobState::Failed);
    assert_eq!((details[0].attempts, details[0].max_attempts), (2, 2));
    let error = details[0].error.clone().unwrap();
    assert!(error.starts_with("gave up after 2 attempt(s)"), "{error}");
    assert!(q.give_up("fast").unwrap().is_empty());
}

#[test]
fn a_job_handed_back_waits_without_using_an_attempt() {
    let Some(mut q) = open() else { return };
    enqueue(&mut q, &[job("fast", "later")]);
    let j = q.claim(&claim("fast", "w", LEASE, 2)).unwrap().unwrap();
    q.release(
        &j,
        "commit abc is not fetched yet",
        Duration::from_millis(300),
    )
    .unwrap();
    // Its old claim is gone.
    assert!(matches!(
        q.release(&j, "again", Duration::ZERO),
        Err(HistoryError::LeaseLost(_))
    ));
    assert!(q.claim(&claim("fast", "w", LEASE, 2)).unwrap().is_none());
    let d = &q.details(10).unwrap()[0];
    assert_eq!((d.state, d.attempts), (JobState::Queued, 0));
    assert_eq!(d.note.as_deref(), Some("commit abc is not fetched yet"));
    assert!(d.not_before.is_some());
    std::thread::sleep(Duration::from_millis(400));
    let again = q.claim(&claim("fast", "w", LEASE, 2)).unwrap().unwrap();
    assert_eq!((again.id, again.attempt, again.waits), (j.id, 1, 1));
    assert_eq!(again.claim, j.claim + 1);
}

#[test]
fn workers_claim_only_the_formats_they_read_and_note_the_others() {
    let Some(mut q) = open() else { return };
    enqueue(
        &mut q,
        &[
            NewJob {
                format: 3,
                ..job("fast", "newer")
            },
            job("fast", "older"),
        ],
    );
    let j = q.claim(&claim("fast", "w", LEASE, 2)).unwrap().unwrap();
    assert_eq!((j.spec.as_str(), j.format), ("older", 2));
    assert!(q.claim(&claim("fast", "w", LEASE, 2)).unwrap().is_none());
    let seen = q.unreadable("fast", 2, "needs a newer rigor").unwrap();
    assert_eq!(seen.len(), 1);
    assert!(matches!(seen[0], Unreadable { format: 3, .. }));
    let d = q.details(10).unwrap();
    let newer = d.iter().find(|d| d.format == 3).unwrap();
    assert_eq!(newer.state, JobState::Queued);
    assert_eq!(newer.note.as_deref(), Some("needs a newer rigor"));
    let j = q.claim(&claim("fast", "w", LEASE, 3)).unwrap().unwrap();
    assert_eq!(j.spec, "newer");
}

#[test]
fn a_jobs_runs_are_stored_in_its_session() {
    let Some(mut q) = open() else { return };
    enqueue(&mut q, &[job("fast", "two versions")]);
    let j = q.claim(&claim("fast", "w", LEASE, 2)).unwrap().unwrap();
    let m = machine();
    let (v1, v2, v3) = (
        VersionInfo {
            rev: "v1".into(),
            ..Default::default()
        },
        VersionInfo {
            rev: "v2".into(),
            ..Default::default()
        },
        VersionInfo {
            rev: "v3".into(),
            ..Default::default()
        },
    );
    let (r1, r2) = (
        ResultFile::new(Seed(1), ConfidenceLevel::NINETY_FIVE),
        ResultFile::new(Seed(2), ConfidenceLevel::NINETY_FIVE),
    );
    let ingests = [
        Ingest::new(&v1, &m, "main", &r1),
        Ingest::new(&v2, &m, "main", &r2),
    ];
    let failures = [Failure::new(&v3, &m, "main", "did not build")];
    let started = jiff::Timestamp::now();
    let sessions = [JobSession {
        session: NewSession {
            machine: &m,
            kind: SessionKind::Worker,
            started,
            load_before: Some(0.5),
            rigor_version: "0.1.0",
        },
        end: Some(SessionEnd {
            ended: started,
            load_after: Some(0.75),
        }),
        results: &ingests,
        failures: &failures,
    }];
    let results = JobResults {
        sessions: &sessions,
        ..JobResults::default()
    };
    let runs = q.complete(&j, &results).unwrap();
    assert_eq!(runs.len(), 3);
    assert_eq!(q.complete(&j, &results).unwrap(), runs);
    let stored = q.sessions(&SeriesKey::new("fast", "main")).unwrap();
    assert_eq!(stored.len(), 1, "{stored:?}");
    let s = &stored[0];
    assert_eq!(s.kind, SessionKind::Worker);
    assert_eq!((s.load_before, s.load_after), (Some(0.5), Some(0.75)));
    assert!(s.ended.is_some());
    assert_eq!(s.runs.len(), 3);
}

#[test]
fn concurrent_claims_never_share_a_job() {
    let Some(first) = open() else { return };
    let url = first.url().to_string();
    let mut q = first;
    let jobs: Vec<NewJob> = (0..200).map(|k| job("fast", &k.to_string())).collect();
    enqueue(&mut q, &jobs);
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let url = url.clone();
            std::thread::spawn(move || {
                let mut q = PostgresHistory::open(&url).unwrap();
                let mut mine = Vec::new();
                while let Some(j) = q.claim(&claim("fast", &format!("w{t}"), LEASE, 2)).unwrap() {
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
