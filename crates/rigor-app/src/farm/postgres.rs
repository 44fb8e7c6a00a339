//! The worker's loop on the PostgreSQL queue (the feature `postgres`).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rigor_history::queue::{Claim, ClaimedJob, JobQueue, JobResults, JobSession};
use rigor_history::{Failure, HistoryError, HistoryRead, Ingest, PostgresHistory};

use super::{
    Collected, CollectedFailure, CollectedRun, CollectedSession, JOB_FORMAT, JobEnding, JobRunner,
    WorkerObserver, WorkerSettings, WorkerSummary, run_job,
};

/// Opens the database, again and again until it answers (backing off up to 5 s between
/// tries).
fn connect(
    url: &str,
    observer: &mut dyn WorkerObserver,
    stop: &AtomicBool,
) -> Option<PostgresHistory> {
    let mut wait = Duration::from_millis(100);
    loop {
        match PostgresHistory::open(url) {
            Ok(h) => return Some(h),
            Err(e) => {
                observer.database_error(&e);
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                std::thread::sleep(wait);
                wait = (wait * 2).min(Duration::from_secs(5));
            }
        }
    }
}

/// Renews the lease of the worker's current job every third of the lease, on its own
/// connection, until `stop`.
fn heartbeat(
    url: String,
    current: Arc<Mutex<Option<ClaimedJob>>>,
    lease: Duration,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut db: Option<PostgresHistory> = None;
        let mut next = Instant::now();
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(20).min(lease / 10));
            if Instant::now() < next {
                continue;
            }
            next = Instant::now() + lease / 3;
            let job = current.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let Some(job) = job else { continue };
            if db.is_none() {
                db = PostgresHistory::open(&url).ok();
            }
            if let Some(h) = db.as_mut() {
                if h.heartbeat(&job, lease).is_err() {
                    db = None;
                }
            }
        }
    })
}

/// What the worker says of a newer format it leaves queued.
fn newer_format_note() -> String {
    format!(
        "needs a newer rigor: its format is newer than {JOB_FORMAT}, the newest this class's \
         workers read"
    )
}

/// Fails the class's jobs out of attempts and notes those of formats it cannot read (each
/// told once).
fn look_around(
    h: &mut PostgresHistory,
    class: &str,
    observer: &mut dyn WorkerObserver,
    told: &mut HashSet<i64>,
) -> rigor_history::Result<()> {
    for g in h.give_up(class)? {
        observer.gave_up(g);
    }
    for u in h.unreadable(class, JOB_FORMAT, &newer_format_note())? {
        if told.insert(u.id.0) {
            observer.unreadable(u);
        }
    }
    Ok(())
}

/// Claims and runs jobs of the worker's class until the queue has none to claim now (with
/// `exit_when_empty`), `max_jobs` are done, or `stop` is set.
pub fn work(
    settings: &WorkerSettings,
    runner: &mut dyn JobRunner,
    observer: &mut dyn WorkerObserver,
    stop: Arc<AtomicBool>,
) -> WorkerSummary {
    let current = Arc::new(Mutex::new(None));
    let beat_stop = Arc::new(AtomicBool::new(false));
    let beat = heartbeat(
        settings.url.clone(),
        current.clone(),
        settings.lease,
        beat_stop.clone(),
    );
    let mut summary = WorkerSummary::default();
    let mut told = HashSet::new();
    let mut db = None;
    let claim = Claim {
        class: &settings.class,
        worker: &settings.worker,
        lease: settings.lease,
        formats: JOB_FORMAT,
    };
    while !stop.load(Ordering::Relaxed)
        && settings
            .max_jobs
            .is_none_or(|m| summary.done + summary.failed + summary.lost + summary.waiting < m)
    {
        if db.is_none() {
            db = connect(&settings.url, observer, &stop);
        }
        let Some(h) = db.as_mut() else { break };
        if let Err(e) = look_around(h, &settings.class, observer, &mut told) {
            observer.database_error(&e);
            db = None;
            continue;
        }
        let job = match h.claim(&claim) {
            Ok(Some(job)) => job,
            Ok(None) if settings.exit_when_empty => break,
            Ok(None) => {
                std::thread::sleep(settings.poll);
                continue;
            }
            Err(e) => {
                observer.database_error(&e);
                db = None;
                continue;
            }
        };
        observer.claimed(&job);
        *current.lock().unwrap_or_else(|e| e.into_inner()) = Some(job.clone());
        let history = db.as_ref().map(|h| h as &dyn HistoryRead);
        let ending = run_job(settings, &job, runner, observer, history);
        let outcome = finish(settings, &job, &ending, observer, &mut db, &stop);
        *current.lock().unwrap_or_else(|e| e.into_inner()) = None;
        match outcome {
            JobEnd::Done => summary.done += 1,
            JobEnd::Failed => summary.failed += 1,
            JobEnd::Lost => summary.lost += 1,
            JobEnd::Waiting => summary.waiting += 1,
            JobEnd::Stopped => break,
        }
    }
    beat_stop.store(true, Ordering::Relaxed);
    let _ = beat.join();
    summary
}

enum JobEnd {
    Done,
    Failed,
    Lost,
    Waiting,
    Stopped,
}

/// Completes, fails or hands back a job as it ended (retrying through connection losses).
fn finish(
    settings: &WorkerSettings,
    job: &ClaimedJob,
    ending: &JobEnding,
    observer: &mut dyn WorkerObserver,
    db: &mut Option<PostgresHistory>,
    stop: &AtomicBool,
) -> JobEnd {
    let why = ending.why().unwrap_or_default();
    let wait = settings.wait(job.waits);
    loop {
        if db.is_none() {
            *db = connect(&settings.url, observer, stop);
        }
        let Some(h) = db.as_mut() else {
            return JobEnd::Stopped;
        };
        let stored = match ending {
            JobEnding::Measured(c) => complete(h, job, c).map(|runs| {
                observer.completed(job, runs);
                JobEnd::Done
            }),
            JobEnding::Failed(_) => h.fail(job, &why).map(|()| {
                observer.failed(job, &why);
                JobEnd::Failed
            }),
            JobEnding::Wait(_) => h.release(job, &why, wait).map(|()| {
                observer.waiting(job, &why, wait);
                JobEnd::Waiting
            }),
        };
        match stored {
            Ok(end) => return end,
            Err(HistoryError::LeaseLost(_)) => {
                observer.lease_lost(job);
                return JobEnd::Lost;
            }
            Err(e) => {
                observer.database_error(&e);
                *db = None;
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }
}

impl CollectedRun {
    fn ingest(&self) -> Ingest<'_> {
        Ingest {
            artifact: self.artifact,
            role: self.role,
            ..Ingest::new(&self.version, &self.machine, &self.branch, &self.result)
        }
    }
}

impl CollectedFailure {
    fn failure(&self) -> Failure<'_> {
        Failure::new(&self.version, &self.machine, &self.branch, &self.reason)
    }
}

impl CollectedSession {
    fn new_session(&self) -> rigor_history::NewSession<'_> {
        rigor_history::NewSession {
            machine: &self.machine,
            kind: self.kind,
            started: self.started,
            load_before: self.load_before,
            rigor_version: &self.rigor_version,
        }
    }
}

/// Stores what a job collected (each session with its runs) and completes it, in one
/// transaction.
fn complete(
    h: &mut PostgresHistory,
    job: &ClaimedJob,
    c: &Collected,
) -> rigor_history::Result<usize> {
    type Runs<'a> = (Vec<Ingest<'a>>, Vec<Failure<'a>>);
    fn runs<'a>(results: &'a [CollectedRun], failures: &'a [CollectedFailure]) -> Runs<'a> {
        (
            results.iter().map(CollectedRun::ingest).collect(),
            failures.iter().map(CollectedFailure::failure).collect(),
        )
    }
    let per_session: Vec<Runs<'_>> = c
        .sessions
        .iter()
        .map(|s| runs(&s.results, &s.failures))
        .collect();
    let sessions: Vec<JobSession<'_>> = c
        .sessions
        .iter()
        .zip(&per_session)
        .map(|(s, (results, failures))| JobSession {
            session: s.new_session(),
            end: s.end,
            results,
            failures,
        })
        .collect();
    let (results, failures) = runs(&c.results, &c.failures);
    h.complete(
        job,
        &JobResults {
            sessions: &sessions,
            results: &results,
            failures: &failures,
        },
    )
    .map(|runs| runs.len())
}
