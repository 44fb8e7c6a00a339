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

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::types::{Failure, Ingest, RunId, id_type, named_enum};

id_type!(
    /// A queued job's id.
    JobId
);

named_enum!(
    /// Where a job is.
    JobState, "job state" {
        /// Waiting for a worker.
        Queued = "queued",
        /// Claimed by a worker (whose lease may have run out).
        Running = "running",
        /// Its results are stored.
        Done = "done",
        /// It could not be run.
        Failed = "failed",
    }
);

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
    pub id: JobId,
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
    /// Versions that could not be measured (stored on the job's branch whatever theirs says).
    pub failures: &'a [Failure<'a>],
}

/// How many jobs of a class (and worker) are in a state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobTally {
    /// The machine class.
    pub class: String,
    /// The worker that ran (or runs) them; `None` for jobs never claimed.
    pub worker: Option<String>,
    /// Where they are.
    pub state: JobState,
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
    /// [`crate::HistoryError::LeaseLost`] and stores nothing.
    fn complete(&mut self, job: &ClaimedJob, results: &JobResults<'_>) -> Result<Vec<RunId>>;

    /// Marks a job failed (it cannot be run: a bad spec, a missing repository).
    fn fail(&mut self, job: &ClaimedJob, reason: &str) -> Result<()>;

    /// Jobs counted by class, worker and state.
    fn tally(&self) -> Result<Vec<JobTally>>;
}

/// The PostgreSQL queue (the feature `postgres`).
#[cfg(feature = "postgres")]
mod on_postgres {
    use std::time::Duration;

    use postgres::GenericClient;
    use sha2::{Digest, Sha256};

    use super::{ClaimedJob, Enqueued, JobId, JobQueue, JobResults, JobState, JobTally, NewJob};
    use crate::error::{HistoryError, Result};
    use crate::postgres::{Fail, PostgresHistory, ingest_in, record_failure_in};
    use crate::types::{Failure, RunId};

    fn job_key(job: &NewJob) -> String {
        let mut h = Sha256::new();
        h.update(format!("{}\0{}\0{}", job.class, job.branch, job.spec));
        crate::rows::hex(&h.finalize())
    }

    fn millis(d: Duration) -> f64 {
        d.as_secs_f64() * 1000.0
    }

    /// Locks a job's row and says whether the claim still holds: `Ok(None)` when it does, the stored
    /// runs when the same claim already completed it, [`HistoryError::LeaseLost`] when it was lost.
    fn check_claim(
        tx: &mut impl GenericClient,
        job: &ClaimedJob,
    ) -> std::result::Result<Option<Vec<RunId>>, Fail> {
        let lost = || Fail::History(HistoryError::LeaseLost(job.id));
        let row = tx.query_opt(
            "SELECT state, attempts, runs FROM jobs WHERE id = $1 FOR UPDATE",
            &[&job.id.0],
        )?;
        let Some(row) = row else {
            return Err(lost());
        };
        let (state, attempts, runs): (String, i64, Option<String>) =
            (row.get(0), row.get(1), row.get(2));
        if attempts != job.attempt {
            return Err(lost());
        }
        match state.parse::<JobState>() {
            Ok(JobState::Running) => Ok(None),
            Ok(JobState::Done) => {
                let ids: Vec<i64> = runs
                    .and_then(|r| serde_json::from_str(&r).ok())
                    .unwrap_or_default();
                Ok(Some(ids.into_iter().map(RunId).collect()))
            }
            _ => Err(lost()),
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

        fn claim(
            &mut self,
            class: &str,
            worker: &str,
            lease: Duration,
        ) -> Result<Option<ClaimedJob>> {
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
                id: JobId(r.get(0)),
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
                    &[&job.id.0, &job.attempt, &millis(lease)],
                )
                .map_err(|e| self.db(e))?;
            Ok(n == 1)
        }

        fn complete(&mut self, job: &ClaimedJob, results: &JobResults<'_>) -> Result<Vec<RunId>> {
            self.in_transaction(|tx| {
                if let Some(runs) = check_claim(tx, job)? {
                    return Ok(runs);
                }
                let mut runs = Vec::new();
                for r in results.results {
                    runs.push(ingest_in(tx, r)?.id());
                }
                for f in results.failures {
                    let on_branch = Failure {
                        branch: &job.branch,
                        ..*f
                    };
                    runs.push(record_failure_in(tx, &on_branch)?);
                }
                let ids: Vec<i64> = runs.iter().map(|r| r.0).collect();
                tx.execute(
                    "UPDATE jobs SET state = 'done', finished_at = now(), lease_until = NULL,
                     runs = $2, error = NULL WHERE id = $1",
                    &[&job.id.0, &serde_json::to_string(&ids).unwrap_or_default()],
                )?;
                Ok(runs)
            })
        }

        fn fail(&mut self, job: &ClaimedJob, reason: &str) -> Result<()> {
            self.in_transaction(|tx| {
                tx.execute(
                    "UPDATE jobs SET state = 'failed', finished_at = now(), lease_until = NULL,
                     error = $3 WHERE id = $1 AND attempts = $2 AND state = 'running'",
                    &[&job.id.0, &job.attempt, &reason],
                )
                .map_err(Fail::Db)
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
            rows.iter()
                .map(|r| {
                    let state: String = r.get(2);
                    Ok(JobTally {
                        class: r.get(0),
                        worker: r.get(1),
                        state: state
                            .parse()
                            .map_err(|e: HistoryError| HistoryError::Damaged {
                                path: self.url().into(),
                                what: "job state",
                                message: e.to_string(),
                            })?,
                        count: r.get(3),
                        expired: r.get(4),
                    })
                })
                .collect()
        }
    }
}
