//! The job queue of a benchmark farm, in the PostgreSQL history (a table beside the results, so
//! that a job is completed in the transaction that stores its results).
//!
//! Claiming is `SELECT … FOR UPDATE SKIP LOCKED` on the `jobs` table: PostgreSQL's own row locks
//! do what a queue library would (pgmq and friends add an extension or a server; a table and one
//! statement need neither, and let completion share the results' transaction). A claim holds a
//! lease that the worker renews ([`JobQueue::heartbeat`]); a job whose lease ran out is claimed
//! again by another worker. Each claim gets a number (the job's attempt count): completing checks
//! it, so a worker that lost its lease stores nothing, and a job's results are stored once.

use std::time::Duration;

use postgres::GenericClient;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{HistoryError, Result};
use crate::postgres::{PostgresHistory, ingest_in, record_failure_in};
use crate::types::{Ingest, MachineInfo, RunId, VersionInfo};

/// A job to queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewJob {
    /// The machine class whose workers may run it.
    pub class: String,
    /// The branch its results belong to.
    pub branch: String,
    /// What to measure (the application's JSON; the queue does not read it).
    pub spec: String,
}

/// A job a worker holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedJob {
    /// Its id.
    pub id: i64,
    /// The claim's number (the lease token).
    pub attempt: i64,
    /// Its machine class.
    pub class: String,
    /// Its branch.
    pub branch: String,
    /// What to measure.
    pub spec: String,
}

/// What a job measured, to store as it completes.
#[derive(Debug, Clone, Copy)]
pub struct JobResults<'a> {
    /// Results to ingest.
    pub results: &'a [Ingest<'a>],
    /// Versions that could not be measured, with the reason.
    pub failures: &'a [(&'a VersionInfo, &'a MachineInfo, &'a str)],
}

/// How many jobs of a class (and worker) are in a state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobTally {
    /// The machine class.
    pub class: String,
    /// The worker that ran (or runs) them; `None` for jobs never claimed.
    pub worker: Option<String>,
    /// `queued`, `running`, `done` or `failed`.
    pub state: String,
    /// How many.
    pub count: i64,
    /// Of the running ones, how many have an expired lease (their worker is presumed dead).
    pub expired: i64,
}

/// What [`JobQueue::enqueue`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Enqueued {
    /// Jobs added.
    pub added: usize,
    /// Jobs already in the queue (same class, branch and spec).
    pub existing: usize,
}

/// A queue of measurement jobs shared by the workers of a farm.
pub trait JobQueue {
    /// Adds jobs; a job already queued (same class, branch and spec) is not added again.
    fn enqueue(&mut self, jobs: &[NewJob]) -> Result<Enqueued>;

    /// Claims the oldest job of a class that is queued or whose lease ran out, for `lease`.
    fn claim(&mut self, class: &str, worker: &str, lease: Duration) -> Result<Option<ClaimedJob>>;

    /// Renews a claim's lease; `false` when the claim is no longer this worker's.
    fn heartbeat(&mut self, job: &ClaimedJob, lease: Duration) -> Result<bool>;

    /// Stores a job's results and marks it done, in one transaction. Completing again after a
    /// success (a lost acknowledgement) returns the same runs; a claim that was lost gives
    /// [`HistoryError::LeaseLost`] and stores nothing.
    fn complete(&mut self, job: &ClaimedJob, results: &JobResults<'_>) -> Result<Vec<RunId>>;

    /// Marks a job failed (it cannot be run: a bad spec, a missing repository).
    fn fail(&mut self, job: &ClaimedJob, reason: &str) -> Result<()>;

    /// Jobs counted by class, worker and state.
    fn tally(&self) -> Result<Vec<JobTally>>;
}

fn job_key(job: &NewJob) -> String {
    let mut h = Sha256::new();
    h.update(format!("{}\0{}\0{}", job.class, job.branch, job.spec));
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Locks a job's row and says whether the claim still holds: `Ok(None)` when it does, the stored
/// runs when the same claim already completed it.
fn check_claim(
    tx: &mut impl GenericClient,
    job: &ClaimedJob,
) -> std::result::Result<Result<Option<Vec<RunId>>>, postgres::Error> {
    let row = tx.query_opt(
        "SELECT state, attempts, runs FROM jobs WHERE id = $1 FOR UPDATE",
        &[&job.id],
    )?;
    let Some(row) = row else {
        return Ok(Err(HistoryError::LeaseLost(job.id)));
    };
    let (state, attempts, runs): (String, i64, Option<String>) =
        (row.get(0), row.get(1), row.get(2));
    if attempts != job.attempt {
        return Ok(Err(HistoryError::LeaseLost(job.id)));
    }
    match state.as_str() {
        "running" => Ok(Ok(None)),
        "done" => {
            let ids: Vec<i64> = runs
                .and_then(|r| serde_json::from_str(&r).ok())
                .unwrap_or_default();
            Ok(Ok(Some(ids.into_iter().map(RunId).collect())))
        }
        _ => Ok(Err(HistoryError::LeaseLost(job.id))),
    }
}

impl JobQueue for PostgresHistory {
    fn enqueue(&mut self, jobs: &[NewJob]) -> Result<Enqueued> {
        self.in_transaction(|tx| {
            let mut out = Enqueued::default();
            for j in jobs {
                let n = tx.execute(
                    "INSERT INTO jobs (key, class, branch, spec) VALUES ($1, $2, $3, $4)
                     ON CONFLICT (key) DO NOTHING",
                    &[&job_key(j), &j.class, &j.branch, &j.spec],
                )?;
                if n == 1 {
                    out.added += 1;
                } else {
                    out.existing += 1;
                }
            }
            Ok(out)
        })
    }

    fn claim(&mut self, class: &str, worker: &str, lease: Duration) -> Result<Option<ClaimedJob>> {
        let row = self
            .client()
            .query_opt(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1, worker = $2,
                     lease_until = now() + $3 * interval '1 millisecond', started_at = now()
                 WHERE id = (SELECT id FROM jobs
                             WHERE class = $1 AND state IN ('queued', 'running')
                               AND (state = 'queued' OR lease_until < now())
                             ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
                 RETURNING id, attempts, class, branch, spec",
                &[&class, &worker, &millis(lease)],
            )
            .map_err(|e| self.db(e))?;
        Ok(row.map(|r| ClaimedJob {
            id: r.get(0),
            attempt: r.get(1),
            class: r.get(2),
            branch: r.get(3),
            spec: r.get(4),
        }))
    }

    fn heartbeat(&mut self, job: &ClaimedJob, lease: Duration) -> Result<bool> {
        let n = self
            .client()
            .execute(
                "UPDATE jobs SET lease_until = now() + $3 * interval '1 millisecond'
                 WHERE id = $1 AND attempts = $2 AND state = 'running'",
                &[&job.id, &job.attempt, &millis(lease)],
            )
            .map_err(|e| self.db(e))?;
        Ok(n == 1)
    }

    fn complete(&mut self, job: &ClaimedJob, results: &JobResults<'_>) -> Result<Vec<RunId>> {
        let outcome = self.in_transaction(|tx| {
            match check_claim(tx, job)? {
                Ok(None) => {}
                other => return Ok(other),
            }
            let mut runs = Vec::new();
            for r in results.results {
                runs.push(ingest_in(tx, r)?.id());
            }
            for (v, m, reason) in results.failures {
                runs.push(record_failure_in(tx, v, m, &job.branch, reason)?);
            }
            let ids: Vec<i64> = runs.iter().map(|r| r.0).collect();
            tx.execute(
                "UPDATE jobs SET state = 'done', finished_at = now(), lease_until = NULL,
                     runs = $2, error = NULL WHERE id = $1",
                &[&job.id, &serde_json::to_string(&ids).unwrap_or_default()],
            )?;
            Ok(Ok(Some(runs)))
        })?;
        outcome.map(Option::unwrap_or_default)
    }

    fn fail(&mut self, job: &ClaimedJob, reason: &str) -> Result<()> {
        self.in_transaction(|tx| {
            tx.execute(
                "UPDATE jobs SET state = 'failed', finished_at = now(), lease_until = NULL,
                     error = $3 WHERE id = $1 AND attempts = $2 AND state = 'running'",
                &[&job.id, &job.attempt, &reason],
            )
        })
        .map(|_| ())
    }

    fn tally(&self) -> Result<Vec<JobTally>> {
        let rows = self
            .client()
            .query(
                "SELECT class, CASE WHEN state = 'queued' THEN NULL ELSE worker END AS w, state,
                        COUNT(*), COUNT(*) FILTER (WHERE state = 'running' AND lease_until < now())
                 FROM jobs GROUP BY class, w, state ORDER BY class, w NULLS FIRST, state",
                &[],
            )
            .map_err(|e| self.db(e))?;
        Ok(rows
            .iter()
            .map(|r| JobTally {
                class: r.get(0),
                worker: r.get(1),
                state: r.get(2),
                count: r.get(3),
                expired: r.get(4),
            })
            .collect())
    }
}
