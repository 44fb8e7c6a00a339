//! The job queue of a benchmark farm, in the PostgreSQL history (a table beside the results, so
//! that a job is completed in the transaction that stores its results).
//!
//! Claiming is `SELECT … FOR UPDATE SKIP LOCKED` on the `jobs` table: PostgreSQL's own row locks
//! do what a queue library would (pgmq and friends add an extension or a server; a table and one
//! statement need neither, and let completion share the results' transaction). A claim holds a
//! lease that the worker renews ([`JobQueue::heartbeat`]); a job whose lease ran out is claimed
//! again by another worker. Each claim gets a number (the lease token, the count of the job's
//! claims, which only grows): completing checks it, so a worker that lost its lease stores
//! nothing, and a job's results are stored once.
//!
//! A job's spec is the application's (JSON with a format number the queue keeps beside it, so
//! that a worker claims only the formats it reads). Each job holds the keys of the versions it
//! measures (the application's hash of what is measured and how): queuing a version whose key a
//! job holds adds nothing. Attempts are capped: a claim that ends without completing (its worker
//! was killed, or lost its lease) is an attempt, and a job out of attempts is failed with the
//! reason ([`JobQueue::give_up`]). A job that cannot run yet (a commit its worker has not
//! fetched) is handed back ([`JobQueue::release`]) to wait, without using an attempt.

use std::time::Duration;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::types::{Failure, Ingest, NewSession, RunId, SessionEnd, id_type, named_enum};

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

/// Attempts a job gets when its enqueuer does not say.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 3;

/// A job to queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewJob {
    /// The machine class whose workers may run it.
    pub class: String,
    /// The branch its results belong to.
    pub branch: String,
    /// Its spec's format (the application's number): a worker claims the formats it reads.
    pub format: u32,
    /// What to measure (the application's JSON; the queue does not read it).
    pub spec: String,
    /// The keys of the versions it measures (see [`Enqueue::keys`]).
    pub keys: Vec<String>,
    /// Attempts before it is failed (at least 1).
    pub max_attempts: u32,
}

/// A request to queue versions: each version's key, and how to make jobs of the ones no job
/// holds.
#[derive(Clone, Copy)]
pub struct Enqueue<'a> {
    /// Each version's key: what identifies its measurement (the application hashes the class,
    /// branch, version and settings). A version whose key a queued, running or done job holds
    /// is not queued again.
    pub keys: &'a [String],
    /// Queue the failed jobs that hold any of the keys again (their attempts start over).
    pub retry_failed: bool,
    /// The jobs for the versions no job holds, given their indices in `keys` (in order).
    pub jobs: &'a dyn Fn(&[usize]) -> Vec<NewJob>,
}

impl std::fmt::Debug for Enqueue<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Enqueue")
            .field("keys", &self.keys)
            .field("retry_failed", &self.retry_failed)
            .finish_non_exhaustive()
    }
}

/// A job a worker holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedJob {
    /// Its id.
    pub id: JobId,
    /// The claim's number (the lease token: the job's claims so far, this one included).
    pub claim: i64,
    /// Which attempt this is (1 for the first; claims handed back do not count).
    pub attempt: i64,
    /// Attempts it gets before it is failed.
    pub max_attempts: i64,
    /// Times it was handed back to wait before (see [`JobQueue::release`]).
    pub waits: i64,
    /// Its machine class.
    pub class: String,
    /// Its branch.
    pub branch: String,
    /// Its spec's format.
    pub format: u32,
    /// What to measure.
    pub spec: String,
}

/// A session a job measured in (one machine's sitting), to store with its runs.
#[derive(Debug, Clone, Copy)]
pub struct JobSession<'a> {
    /// The session as it began.
    pub session: NewSession<'a>,
    /// How it ended (`None`: it did not end cleanly).
    pub end: Option<SessionEnd>,
    /// The results measured in it (their own `session` is ignored: they go into this one).
    pub results: &'a [Ingest<'a>],
    /// The versions that could not be measured in it.
    pub failures: &'a [Failure<'a>],
}

/// What a job measured, to store as it completes. Failures are stored on the job's branch
/// whatever theirs says.
#[derive(Debug, Clone, Copy, Default)]
pub struct JobResults<'a> {
    /// The sessions it measured in, each stored with its runs.
    pub sessions: &'a [JobSession<'a>],
    /// Results outside any session (each gets a session of its own, as
    /// [`crate::HistoryWrite::ingest`] gives it).
    pub results: &'a [Ingest<'a>],
    /// Versions that could not be measured, outside any session.
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

/// A job worth a look: failed, waiting, or tried more than once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobDetail {
    /// Its id.
    pub id: JobId,
    /// Its machine class.
    pub class: String,
    /// Where it is.
    pub state: JobState,
    /// The worker that ran it last.
    pub worker: Option<String>,
    /// Attempts so far.
    pub attempts: i64,
    /// Attempts it gets.
    pub max_attempts: i64,
    /// Its spec's format.
    pub format: u32,
    /// Not claimed before this (a job waiting).
    pub not_before: Option<Timestamp>,
    /// Why it waits or waited.
    pub note: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
}

/// A job failed for running out of attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GaveUp {
    /// The job.
    pub id: JobId,
    /// Its attempts.
    pub attempts: i64,
}

/// A queued job of a format its class's workers cannot read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreadable {
    /// The job.
    pub id: JobId,
    /// Its spec's format.
    pub format: u32,
}

/// What [`JobQueue::enqueue`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Enqueued {
    /// Jobs added.
    pub added: usize,
    /// Versions queued in them.
    pub versions: usize,
    /// Versions a queued, running or done job holds already.
    pub existing: usize,
    /// Versions a failed job holds (left failed: see [`Enqueue::retry_failed`]).
    pub failed: usize,
    /// Failed jobs queued again.
    pub retried: usize,
}

/// What a worker claims jobs as: the oldest job of `class` whose format is at most `formats`,
/// held by `worker` for `lease`.
#[derive(Debug, Clone, Copy)]
pub struct Claim<'a> {
    /// The machine class whose jobs it runs.
    pub class: &'a str,
    /// The worker's name, recorded on the job.
    pub worker: &'a str,
    /// How long a claim holds without a heartbeat.
    pub lease: Duration,
    /// The newest job format the worker reads.
    pub formats: u32,
}

/// A queue of measurement jobs shared by the workers of a farm.
pub trait JobQueue {
    /// Queues the versions no job holds (see [`Enqueue`]), in one transaction that no other
    /// enqueue interleaves with.
    fn enqueue(&mut self, request: &Enqueue<'_>) -> Result<Enqueued>;

    /// Claims the oldest job of a class, for the lease, whose format is at most the worker's
    /// (see [`Claim`]) and that is queued (and not waiting) or whose lease ran out with attempts
    /// left.
    fn claim(&mut self, claim: &Claim<'_>) -> Result<Option<ClaimedJob>>;

    /// Renews a claim's lease; `false` when the claim is no longer this worker's.
    fn heartbeat(&mut self, job: &ClaimedJob, lease: Duration) -> Result<bool>;

    /// Stores a job's results (each session with its runs) and marks it done, in one
    /// transaction. Completing again after a success (a lost acknowledgement) returns the same
    /// runs; a claim that was lost gives [`crate::HistoryError::LeaseLost`] and stores nothing.
    fn complete(&mut self, job: &ClaimedJob, results: &JobResults<'_>) -> Result<Vec<RunId>>;

    /// Marks a job failed (it cannot be run: a bad spec, settings that do not resolve).
    fn fail(&mut self, job: &ClaimedJob, reason: &str) -> Result<()>;

    /// Hands a claimed job back to the queue, to be claimed again after `wait`, with `reason`
    /// for [`JobQueue::details`]; the claim does not count as an attempt. A claim that was lost
    /// gives [`crate::HistoryError::LeaseLost`].
    fn release(&mut self, job: &ClaimedJob, reason: &str, wait: Duration) -> Result<()>;

    /// Fails the jobs of a class whose lease ran out on their last attempt, with the reason.
    fn give_up(&mut self, class: &str) -> Result<Vec<GaveUp>>;

    /// The queued jobs of a class of a format newer than `formats` (which its workers cannot
    /// read), each noted with `reason` (for [`JobQueue::details`]).
    fn unreadable(&mut self, class: &str, formats: u32, reason: &str) -> Result<Vec<Unreadable>>;

    /// Jobs counted by class, worker and state.
    fn tally(&self) -> Result<Vec<JobTally>>;

    /// Jobs worth a look (failed, waiting, noted, or tried more than once), newest first, at
    /// most `limit`.
    fn details(&self, limit: usize) -> Result<Vec<JobDetail>>;
}

/// The PostgreSQL queue (the feature `postgres`).
#[cfg(feature = "postgres")]
mod on_postgres {
    use std::collections::HashMap;
    use std::time::Duration;

    use postgres::GenericClient;
    use sha2::{Digest, Sha256};

    use super::{
        Claim, ClaimedJob, Enqueue, Enqueued, GaveUp, JobDetail, JobId, JobQueue, JobResults,
        JobSession, JobState, JobTally, NewJob, Unreadable,
    };
    use crate::error::{HistoryError, Result};
    use crate::postgres::{
        Fail, PostgresHistory, ingest_in, insert_session, machine_id, record_failure_in,
    };
    use crate::rows::{SessionValues, time_text};
    use crate::types::{Failure, Ingest, RunId, SessionId};

    fn job_key(job: &NewJob) -> String {
        let mut h = Sha256::new();
        h.update(format!("{}\0{}\0{}", job.class, job.branch, job.spec));
        crate::rows::hex(&h.finalize())
    }

    fn millis(d: Duration) -> f64 {
        d.as_secs_f64() * 1000.0
    }

    /// Enqueues are serialised by this advisory lock (the migrations use another).
    const ENQUEUE_LOCK: i64 = 7_262_392;

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
        let (state, claims, runs): (String, i64, Option<String>) =
            (row.get(0), row.get(1), row.get(2));
        if claims != job.claim {
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

    /// Stores a session and what was measured in it; removes it again when every run turned out
    /// to be stored already (by an earlier completion whose acknowledgement was lost).
    fn store_session(
        tx: &mut impl GenericClient,
        s: &JobSession<'_>,
        branch: &str,
    ) -> std::result::Result<Vec<RunId>, Fail> {
        let machine = machine_id(tx, s.session.machine)?;
        let id = insert_session(tx, machine, &SessionValues::of(&s.session))?;
        if let Some(end) = &s.end {
            tx.execute(
                "UPDATE sessions SET ended = $2, load_after = $3 WHERE id = $1",
                &[&id, &time_text(end.ended), &end.load_after],
            )?;
        }
        let session = Some(SessionId(id));
        let runs = store_runs(
            tx,
            s.results.iter().map(|r| Ingest { session, ..*r }),
            s.failures.iter().map(|f| Failure { session, ..*f }),
            branch,
        )?;
        tx.execute(
            "DELETE FROM sessions s WHERE s.id = $1
             AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.session_id = s.id)",
            &[&id],
        )?;
        Ok(runs)
    }

    /// Stores results and failures (the failures on `branch`).
    fn store_runs<'a>(
        tx: &mut impl GenericClient,
        results: impl Iterator<Item = Ingest<'a>>,
        failures: impl Iterator<Item = Failure<'a>>,
        branch: &'a str,
    ) -> std::result::Result<Vec<RunId>, Fail> {
        let mut runs = Vec::new();
        for r in results {
            runs.push(ingest_in(tx, &r)?.id());
        }
        for f in failures {
            runs.push(record_failure_in(tx, &Failure { branch, ..f })?);
        }
        Ok(runs)
    }

    impl JobQueue for PostgresHistory {
        fn enqueue(&mut self, request: &Enqueue<'_>) -> Result<Enqueued> {
            self.in_transaction(|tx| {
                tx.execute("SELECT pg_advisory_xact_lock($1)", &[&ENQUEUE_LOCK])?;
                let held: HashMap<String, (i64, String)> = tx
                    .query(
                        "SELECT k.key, j.id, j.state FROM job_versions k JOIN jobs j ON j.id = k.job_id
                         WHERE k.key = ANY($1)",
                        &[&request.keys],
                    )?
                    .iter()
                    .map(|r| (r.get(0), (r.get(1), r.get(2))))
                    .collect();
                let mut out = Enqueued::default();
                let mut free = Vec::new();
                let mut retry: Vec<i64> = Vec::new();
                for (i, key) in request.keys.iter().enumerate() {
                    match held.get(key) {
                        None => free.push(i),
                        Some((job, state)) if state == JobState::Failed.as_str() => {
                            if request.retry_failed {
                                if !retry.contains(job) {
                                    retry.push(*job);
                                }
                            } else {
                                out.failed += 1;
                            }
                        }
                        Some(_) => out.existing += 1,
                    }
                }
                if !retry.is_empty() {
                    out.retried = tx.execute(
                        "UPDATE jobs SET state = 'queued', uncounted = attempts, waits = 0,
                             worker = NULL,
                             lease_until = NULL, not_before = NULL, started_at = NULL,
                             finished_at = NULL, error = NULL, note = NULL
                         WHERE id = ANY($1) AND state = 'failed'",
                        &[&retry],
                    )? as usize;
                }
                if free.is_empty() {
                    return Ok(out);
                }
                for j in (request.jobs)(&free) {
                    let inserted = tx.query_opt(
                        "INSERT INTO jobs (key, class, branch, spec, format, max_attempts)
                         VALUES ($1, $2, $3, $4, $5, $6)
                         ON CONFLICT (key) DO NOTHING RETURNING id",
                        &[
                            &job_key(&j),
                            &j.class,
                            &j.branch,
                            &j.spec,
                            &i32::try_from(j.format).unwrap_or(i32::MAX),
                            &i64::from(j.max_attempts.max(1)),
                        ],
                    )?;
                    let Some(row) = inserted else { continue };
                    let id: i64 = row.get(0);
                    tx.execute(
                        "INSERT INTO job_versions (key, job_id) SELECT k, $2 FROM unnest($1::text[]) k
                         ON CONFLICT (key) DO NOTHING",
                        &[&j.keys, &id],
                    )?;
                    out.added += 1;
                    out.versions += j.keys.len();
                }
                Ok(out)
            })
        }

        fn claim(&mut self, claim: &Claim<'_>) -> Result<Option<ClaimedJob>> {
            let formats = i32::try_from(claim.formats).unwrap_or(i32::MAX);
            let row = self
                .client()
                .query_opt(
                    "UPDATE jobs SET state = 'running', attempts = attempts + 1, worker = $2,
                         lease_until = now() + $3 * interval '1 millisecond', started_at = now(),
                         not_before = NULL
                     WHERE id = (SELECT id FROM jobs
                                 WHERE class = $1 AND state IN ('queued', 'running')
                                   AND format <= $4
                                   AND ((state = 'queued'
                                         AND (not_before IS NULL OR not_before <= now()))
                                     OR (lease_until < now()
                                         AND attempts - uncounted < max_attempts))
                                 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
                     RETURNING id, attempts, attempts - uncounted, max_attempts, waits, class,
                               branch, format, spec",
                    &[&claim.class, &claim.worker, &millis(claim.lease), &formats],
                )
                .map_err(|e| self.db(e))?;
            Ok(row.map(|r| ClaimedJob {
                id: JobId(r.get(0)),
                claim: r.get(1),
                attempt: r.get(2),
                max_attempts: r.get(3),
                waits: r.get(4),
                class: r.get(5),
                branch: r.get(6),
                format: u32::try_from(r.get::<_, i32>(7)).unwrap_or(0),
                spec: r.get(8),
            }))
        }

        fn heartbeat(&mut self, job: &ClaimedJob, lease: Duration) -> Result<bool> {
            let n = self
                .client()
                .execute(
                    "UPDATE jobs SET lease_until = now() + $3 * interval '1 millisecond'
                     WHERE id = $1 AND attempts = $2 AND state = 'running'",
                    &[&job.id.0, &job.claim, &millis(lease)],
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
                for s in results.sessions {
                    runs.extend(store_session(tx, s, &job.branch)?);
                }
                runs.extend(store_runs(
                    tx,
                    results.results.iter().copied(),
                    results.failures.iter().copied(),
                    &job.branch,
                )?);
                let ids: Vec<i64> = runs.iter().map(|r| r.0).collect();
                tx.execute(
                    "UPDATE jobs SET state = 'done', finished_at = now(), lease_until = NULL,
                     runs = $2, error = NULL, note = NULL WHERE id = $1",
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
                    &[&job.id.0, &job.claim, &reason],
                )
                .map_err(Fail::Db)
            })
            .map(|_| ())
        }

        fn release(&mut self, job: &ClaimedJob, reason: &str, wait: Duration) -> Result<()> {
            let n = self
                .client()
                .execute(
                    "UPDATE jobs SET state = 'queued', uncounted = uncounted + 1, waits = waits + 1,
                         lease_until = NULL, not_before = now() + $3 * interval '1 millisecond',
                         note = $4
                     WHERE id = $1 AND attempts = $2 AND state = 'running'",
                    &[&job.id.0, &job.claim, &millis(wait), &reason],
                )
                .map_err(|e| self.db(e))?;
            if n == 0 {
                return Err(HistoryError::LeaseLost(job.id));
            }
            Ok(())
        }

        fn give_up(&mut self, class: &str) -> Result<Vec<GaveUp>> {
            let rows = self
                .client()
                .query(
                    "UPDATE jobs SET state = 'failed', finished_at = now(), lease_until = NULL,
                         error = 'gave up after ' || (attempts - uncounted)
                                 || ' attempt(s): each ended without \
                                  the job completing (its worker was killed, or lost the database \
                                  for longer than its lease)'
                     WHERE class = $1 AND state = 'running' AND lease_until < now()
                       AND attempts - uncounted >= max_attempts
                     RETURNING id, attempts - uncounted",
                    &[&class],
                )
                .map_err(|e| self.db(e))?;
            Ok(rows
                .iter()
                .map(|r| GaveUp {
                    id: JobId(r.get(0)),
                    attempts: r.get(1),
                })
                .collect())
        }

        fn unreadable(
            &mut self,
            class: &str,
            formats: u32,
            reason: &str,
        ) -> Result<Vec<Unreadable>> {
            let formats = i32::try_from(formats).unwrap_or(i32::MAX);
            let mut c = self.client();
            let noted = c
                .execute(
                    "UPDATE jobs SET note = $3
                     WHERE class = $1 AND state = 'queued' AND format > $2
                       AND note IS DISTINCT FROM $3",
                    &[&class, &formats, &reason],
                )
                .and_then(|_| {
                    c.query(
                        "SELECT id, format FROM jobs
                         WHERE class = $1 AND state = 'queued' AND format > $2 ORDER BY id",
                        &[&class, &formats],
                    )
                });
            drop(c);
            let rows = noted.map_err(|e| self.db(e))?;
            Ok(rows
                .iter()
                .map(|r| Unreadable {
                    id: JobId(r.get(0)),
                    format: u32::try_from(r.get::<_, i32>(1)).unwrap_or(0),
                })
                .collect())
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
                        state: self.state(&state)?,
                        count: r.get(3),
                        expired: r.get(4),
                    })
                })
                .collect()
        }

        fn details(&self, limit: usize) -> Result<Vec<JobDetail>> {
            let rows = self
                .client()
                .query(
                    "SELECT id, class, state, worker, attempts - uncounted, max_attempts, format,
                            (EXTRACT(EPOCH FROM not_before) * 1000000)::bigint, note, error
                     FROM jobs
                     WHERE state = 'failed' OR (state <> 'done' AND (note IS NOT NULL
                           OR attempts - uncounted > 1 OR not_before IS NOT NULL))
                     ORDER BY id DESC LIMIT $1",
                    &[&i64::try_from(limit).unwrap_or(i64::MAX)],
                )
                .map_err(|e| self.db(e))?;
            rows.iter()
                .map(|r| {
                    let state: String = r.get(2);
                    let not_before = r
                        .get::<_, Option<i64>>(7)
                        .map(jiff::Timestamp::from_microsecond)
                        .transpose()
                        .map_err(|e| HistoryError::Damaged {
                            path: self.url().into(),
                            what: "job wait",
                            message: e.to_string(),
                        })?;
                    Ok(JobDetail {
                        id: JobId(r.get(0)),
                        class: r.get(1),
                        state: self.state(&state)?,
                        worker: r.get(3),
                        attempts: r.get(4),
                        max_attempts: r.get(5),
                        format: u32::try_from(r.get::<_, i32>(6)).unwrap_or(0),
                        not_before,
                        note: r.get(8),
                        error: r.get(9),
                    })
                })
                .collect()
        }
    }

    impl PostgresHistory {
        /// A job state as stored.
        fn state(&self, text: &str) -> Result<JobState> {
            text.parse()
                .map_err(|e: HistoryError| HistoryError::Damaged {
                    path: self.url().into(),
                    what: "job state",
                    message: e.to_string(),
                })
        }
    }
}
