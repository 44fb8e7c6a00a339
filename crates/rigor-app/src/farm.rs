//! A benchmark farm: jobs queued in the PostgreSQL history, run by workers on dedicated
//! machines, each job's results stored in the transaction that completes it.
//!
//! A job is one comparison: the versions of one `track run` batch, measured together in shuffled
//! interleaved rounds on one machine. Its results are stored under the job's machine class (not
//! the worker's name), so a series holds only results of one class and only they are compared.
//! The worker holds a lease it renews from a heartbeat thread with a connection of its own; a
//! worker that dies loses its lease and the job is claimed again elsewhere. Database errors
//! (a lost connection) are retried with a fresh connection: a job's completion is atomic and
//! checks the claim, so retrying it can neither lose nor duplicate results.

use std::time::Duration;
#[cfg(feature = "postgres")]
use std::{
    sync::atomic::{AtomicBool, Ordering},
    sync::{Arc, Mutex},
    time::Instant,
};

use rigor_history::queue::{ClaimedJob, NewJob};
#[cfg(feature = "postgres")]
use rigor_history::queue::{JobQueue, JobResults};
#[cfg(feature = "postgres")]
use rigor_history::{Failure, PostgresHistory};
use rigor_history::{
    HistoryError, HistoryWrite, Ingest, Ingested, MachineInfo, NewSession, RunId, SessionEnd,
    SessionId, VersionInfo,
};
use rigor_store::ResultFile;
use serde::{Deserialize, Serialize};

/// What a job measures: the versions of one comparison and the experiment, as the arguments of
/// `rigor track enqueue` (the versions resolved to full commit ids when it was queued).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSpec {
    /// The commits, measured together.
    pub commits: Vec<String>,
    /// The experiment's arguments (run options, `--`, the commands), as given to enqueue.
    pub args: Vec<String>,
}

impl JobSpec {
    /// The job for a machine class and branch.
    pub fn job(&self, class: &str, branch: &str) -> NewJob {
        NewJob {
            class: class.to_string(),
            branch: branch.to_string(),
            spec: serde_json::to_string(self).unwrap_or_default(),
        }
    }

    /// Reads a queued job's spec.
    pub fn parse(spec: &str) -> Result<Self, String> {
        serde_json::from_str(spec).map_err(|e| format!("the job's spec is damaged: {e}"))
    }
}

/// Splits commits into jobs of `batch` versions (the comparisons a worker measures together).
pub fn specs(commits: &[String], batch: usize, args: &[String]) -> Vec<JobSpec> {
    commits
        .chunks(batch.max(1))
        .map(|c| JobSpec {
            commits: c.to_vec(),
            args: args.to_vec(),
        })
        .collect()
}

/// A history that keeps what a job stores in memory, so that the worker stores it in the
/// transaction that completes the job: only written, never read (a job measures its versions
/// whatever is stored, [`crate::track::measure_versions`]). The run and session ids it returns
/// are placeholders (0); sessions are not kept yet, so the job's runs get sessions of their own
/// as it completes.
#[derive(Debug, Default)]
pub struct Collected {
    /// Results to store.
    pub results: Vec<(VersionInfo, MachineInfo, String, ResultFile)>,
    /// Versions that could not be measured, with the reason.
    pub failures: Vec<(VersionInfo, MachineInfo, String)>,
}

impl HistoryWrite for Collected {
    fn begin_session(&mut self, _: &NewSession<'_>) -> rigor_history::Result<SessionId> {
        Ok(SessionId(0))
    }
    fn end_session(&mut self, _: SessionId, _: &SessionEnd) -> rigor_history::Result<()> {
        Ok(())
    }
    fn ingest(&mut self, run: &Ingest<'_>) -> rigor_history::Result<Ingested> {
        self.results.push((
            run.version.clone(),
            run.machine.clone(),
            run.branch.to_string(),
            run.result.clone(),
        ));
        Ok(Ingested::Added(RunId(0)))
    }
    fn record_failure(&mut self, f: &rigor_history::Failure<'_>) -> rigor_history::Result<RunId> {
        self.failures
            .push((f.version.clone(), f.machine.clone(), f.reason.to_string()));
        Ok(RunId(0))
    }
}

/// Runs one job (the binary turns its spec into settings and measures).
pub trait JobRunner {
    /// Measures the job, storing into `into`; `Err` when the job cannot be run at all (a bad
    /// spec, a missing repository), which marks it failed.
    fn run(&mut self, job: &ClaimedJob, spec: &JobSpec, into: &mut Collected)
    -> Result<(), String>;
}

/// Hears what a worker does.
pub trait WorkerObserver {
    /// A job was claimed.
    fn claimed(&mut self, _job: &ClaimedJob) {}
    /// A job's results were stored and it is done.
    fn completed(&mut self, _job: &ClaimedJob, _runs: usize) {}
    /// A job could not be run and was marked failed.
    fn failed(&mut self, _job: &ClaimedJob, _reason: &str) {}
    /// The job's lease was lost to another worker; nothing was stored.
    fn lease_lost(&mut self, _job: &ClaimedJob) {}
    /// The database failed; the worker retries with a new connection.
    fn database_error(&mut self, _error: &HistoryError) {}
}

/// A worker's settings.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// The database URL.
    pub url: String,
    /// This worker's name (its machine).
    pub worker: String,
    /// The machine class whose jobs it runs.
    pub class: String,
    /// How long a claim holds without a heartbeat.
    pub lease: Duration,
    /// How long to wait when the queue is empty.
    pub poll: Duration,
    /// Stop when the queue has no job for this class (instead of waiting for more).
    pub exit_when_empty: bool,
    /// Stop after this many jobs.
    pub max_jobs: Option<usize>,
}

/// What a worker did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkerSummary {
    /// Jobs completed.
    pub done: usize,
    /// Jobs marked failed.
    pub failed: usize,
    /// Jobs whose lease was lost.
    pub lost: usize,
}

#[cfg(feature = "postgres")]
/// Opens the database, again and again until it answers (backing off up to 5 s between tries).
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

#[cfg(feature = "postgres")]
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

#[cfg(feature = "postgres")]
/// Claims and runs jobs of the worker's class until the queue is empty (with
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
    let mut db = None;
    while !stop.load(Ordering::Relaxed)
        && settings
            .max_jobs
            .is_none_or(|m| summary.done + summary.failed + summary.lost < m)
    {
        if db.is_none() {
            db = connect(&settings.url, observer, &stop);
        }
        let Some(h) = db.as_mut() else { break };
        let job = match h.claim(&settings.class, &settings.worker, settings.lease) {
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
        let outcome = run_job(settings, &job, runner, observer, &mut db, &stop);
        *current.lock().unwrap_or_else(|e| e.into_inner()) = None;
        match outcome {
            JobEnd::Done => summary.done += 1,
            JobEnd::Failed => summary.failed += 1,
            JobEnd::Lost => summary.lost += 1,
            JobEnd::Stopped => break,
        }
    }
    beat_stop.store(true, Ordering::Relaxed);
    let _ = beat.join();
    summary
}

#[cfg(feature = "postgres")]
enum JobEnd {
    Done,
    Failed,
    Lost,
    Stopped,
}

#[cfg(feature = "postgres")]
/// Measures a claimed job and completes it (retrying the completion through connection losses).
fn run_job(
    settings: &WorkerSettings,
    job: &ClaimedJob,
    runner: &mut dyn JobRunner,
    observer: &mut dyn WorkerObserver,
    db: &mut Option<PostgresHistory>,
    stop: &AtomicBool,
) -> JobEnd {
    let mut collected = Collected::default();
    let measured =
        JobSpec::parse(&job.spec).and_then(|spec| runner.run(job, &spec, &mut collected));
    loop {
        if db.is_none() {
            *db = connect(&settings.url, observer, stop);
        }
        let Some(h) = db.as_mut() else {
            return JobEnd::Stopped;
        };
        let stored = match &measured {
            Err(reason) => h.fail(job, reason).map(|()| None),
            Ok(()) => complete(h, job, &collected).map(Some),
        };
        match stored {
            Ok(Some(runs)) => {
                observer.completed(job, runs);
                return JobEnd::Done;
            }
            Ok(None) => {
                observer.failed(job, measured.as_ref().err().map_or("", String::as_str));
                return JobEnd::Failed;
            }
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

#[cfg(feature = "postgres")]
/// Stores what a job collected and completes it, in one transaction.
fn complete(
    h: &mut PostgresHistory,
    job: &ClaimedJob,
    c: &Collected,
) -> rigor_history::Result<usize> {
    let ingests: Vec<Ingest<'_>> = c
        .results
        .iter()
        .map(|(version, machine, branch, result)| Ingest::new(version, machine, branch, result))
        .collect();
    let failures: Vec<Failure<'_>> = c
        .failures
        .iter()
        .map(|(v, m, r)| Failure::new(v, m, &job.branch, r))
        .collect();
    h.complete(
        job,
        &JobResults {
            results: &ingests,
            failures: &failures,
        },
    )
    .map(|runs| runs.len())
}
