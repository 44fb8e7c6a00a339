//! The texts of a benchmark farm: what `rigor track enqueue` queued, what a worker says as it
//! goes (one typed line each, on standard error) and when it stops, and the job table of
//! `rigor track status`. Views are plain data the use cases fill.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use rigor_units::Seconds;

/// Up to 3 commits, shortened to 10 digits.
fn commits(list: &[String]) -> String {
    let mut shown: Vec<String> = list
        .iter()
        .take(3)
        .map(|c| c.chars().take(10).collect())
        .collect();
    if list.len() > 3 {
        shown.push(format!("… {} more", list.len() - 3));
    }
    shown.join(", ")
}

/// One thing a worker did, said on standard error.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum WorkerLine {
    /// The worker started.
    Started {
        /// The worker.
        worker: String,
        /// The class whose jobs it runs.
        class: String,
        /// The database (its password hidden).
        url: String,
    },
    /// Ctrl-C: the worker stops after the current job.
    Stopping,
    /// A job was claimed.
    Claimed {
        /// The job.
        job: i64,
        /// This attempt.
        attempt: i64,
        /// Attempts it gets.
        max_attempts: i64,
    },
    /// Versions already stored for the class: not measured again.
    Skipped {
        /// The job.
        job: i64,
        /// The class.
        class: String,
        /// The versions.
        versions: Vec<String>,
    },
    /// Commits the clone lacks: fetched.
    Fetching {
        /// The job.
        job: i64,
        /// The commits.
        commits: Vec<String>,
    },
    /// A job handed back to wait.
    Waiting {
        /// The job.
        job: i64,
        /// How long until it is tried again.
        wait: Seconds,
        /// Why.
        reason: String,
    },
    /// A job out of attempts, failed.
    GaveUp {
        /// The job.
        job: i64,
        /// Attempts that ended without completing.
        attempts: i64,
    },
    /// A job of a newer format, left queued.
    Unreadable {
        /// The job.
        job: i64,
        /// Its format.
        format: u32,
        /// The newest format this rigor reads.
        reads: u32,
    },
    /// A job's results were stored.
    Completed {
        /// The job.
        job: i64,
        /// Runs stored.
        runs: usize,
    },
    /// A job could not be run: failed.
    Failed {
        /// The job.
        job: i64,
        /// Why.
        reason: String,
    },
    /// The lease was lost to another worker.
    LeaseLost(i64),
    /// The database failed (with its causes); the worker retries.
    DatabaseError(String),
}

/// A worker's line, with the worker's name.
#[derive(Debug, Clone, PartialEq)]
pub struct Said<'a>(pub &'a str, pub &'a WorkerLine);

impl fmt::Display for Said<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.0;
        match self.1 {
            WorkerLine::Started { worker, class, url } => {
                write!(f, "rigor: worker {worker} (class {class}) on {url}")
            }
            WorkerLine::Stopping => {
                f.write_str("rigor: stopping after the current job (Ctrl-C again to stop now)")
            }
            WorkerLine::Claimed {
                job,
                attempt,
                max_attempts,
            } => write!(
                f,
                "rigor: {w}: job {job} claimed (attempt {attempt} of {max_attempts})"
            ),
            WorkerLine::Skipped {
                job,
                class,
                versions,
            } => write!(
                f,
                "rigor: {w}: job {job}: {} version(s) already stored for class {class}: skipped \
                 ({}); enqueue with --force measures them again",
                versions.len(),
                commits(versions)
            ),
            WorkerLine::Fetching { job, commits: c } => write!(
                f,
                "rigor: {w}: job {job}: {} not in the clone: git fetch",
                commits(c)
            ),
            WorkerLine::Waiting { job, wait, reason } => write!(
                f,
                "rigor: {w}: job {job} left queued, tried again in {wait}: {reason}"
            ),
            WorkerLine::GaveUp { job, attempts } => write!(
                f,
                "rigor: {w}: job {job} failed: out of attempts ({attempts} ended without \
                 completing)"
            ),
            WorkerLine::Unreadable { job, format, reads } => write!(
                f,
                "rigor: {w}: job {job} left queued: needs a newer rigor (its format is {format}; \
                 this one reads formats up to {reads})"
            ),
            WorkerLine::Completed { job, runs } => {
                write!(f, "rigor: {w}: job {job} done, {runs} run(s) stored")
            }
            WorkerLine::Failed { job, reason } => {
                write!(f, "rigor: {w}: job {job} failed: {reason}")
            }
            WorkerLine::LeaseLost(job) => write!(
                f,
                "rigor: {w}: job {job}: the lease was lost to another worker; nothing stored"
            ),
            WorkerLine::DatabaseError(text) => {
                write!(f, "rigor: {w}: database error (retrying): {text}")
            }
        }
    }
}

/// What a worker did, when it stops (standard output).
pub fn worker_done(
    worker: &str,
    done: usize,
    failed: usize,
    lost: usize,
    waiting: usize,
) -> String {
    format!(
        "Worker {worker}: {done} job(s) done, {failed} failed, {lost} lost to other workers, \
         {waiting} left queued to wait\n"
    )
}

/// What `rigor track enqueue` queued.
#[derive(Debug, Clone, PartialEq)]
pub struct EnqueuedView {
    /// Jobs added.
    pub added: usize,
    /// Versions in them.
    pub versions: usize,
    /// Versions named.
    pub named: usize,
    /// Versions already queued or done.
    pub existing: usize,
    /// Failed jobs queued again.
    pub retried: usize,
    /// Versions in failed jobs, not queued again.
    pub failed: usize,
    /// The class.
    pub class: String,
    /// The branch.
    pub branch: String,
    /// The database (its password hidden).
    pub url: String,
}

/// What `rigor track enqueue` says on standard output.
pub fn enqueued_text(e: &EnqueuedView) -> String {
    let mut out = format!(
        "Queued {} job(s) ({} of {} version(s); {} already queued or done) for class {} ({}) in \
         {}\n",
        e.added, e.versions, e.named, e.existing, e.class, e.branch, e.url
    );
    if e.retried > 0 {
        let _ = writeln!(out, "Queued {} failed job(s) again", e.retried);
    }
    out
}

/// The note of `rigor track enqueue` when versions are in failed jobs (after `rigor: `).
pub fn enqueued_note(e: &EnqueuedView) -> Option<String> {
    (e.failed > 0).then(|| {
        format!(
            "{} version(s) are in failed jobs and were not queued again (`rigor track status` \
             says why they failed; --retry-failed queues those jobs again)",
            e.failed
        )
    })
}

/// Where a job is, as the status table counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStateView {
    /// Waiting for a worker.
    Queued,
    /// Claimed by a worker.
    Running,
    /// Its results are stored.
    Done,
    /// Failed.
    Failed,
}

/// Jobs of a class and worker in one state.
#[derive(Debug, Clone, PartialEq)]
pub struct TallyView {
    /// The class.
    pub class: String,
    /// The worker (`None`: not claimed).
    pub worker: Option<String>,
    /// The state.
    pub state: JobStateView,
    /// Jobs.
    pub count: i64,
    /// Of them, with an expired lease.
    pub expired: i64,
}

/// A job worth a look, as `status` lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobView {
    /// Its id.
    pub id: i64,
    /// Its class.
    pub class: String,
    /// Its state, by name.
    pub state: JobStateView,
    /// The state's name.
    pub state_name: String,
    /// Its worker, when claimed.
    pub worker: Option<String>,
    /// Attempts used.
    pub attempts: i64,
    /// Attempts it gets.
    pub max_attempts: i64,
    /// Its format, when newer than this rigor reads.
    pub newer_format: Option<u32>,
    /// When a queued job may be claimed again, as text.
    pub not_before: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
    /// Why it waits.
    pub note: Option<String>,
}

/// A job worth a look, in one line: where it is, its attempts, why it waits or failed.
fn job_line(d: &JobView) -> String {
    let mut line = format!(
        "job {} ({}): {}, {} of {} attempt(s)",
        d.id, d.class, d.state_name, d.attempts, d.max_attempts
    );
    if let Some(w) = d
        .worker
        .as_deref()
        .filter(|_| d.state != JobStateView::Queued)
    {
        let _ = write!(line, " on {w}");
    }
    if let Some(format) = d.newer_format {
        let _ = write!(line, ", format {format}");
    }
    if let Some(t) = d
        .not_before
        .as_ref()
        .filter(|_| d.state == JobStateView::Queued)
    {
        let _ = write!(line, ", not claimed before {t}");
    }
    match (d.state, &d.error, &d.note) {
        (JobStateView::Failed, Some(error), _) => {
            let _ = write!(line, ": {error}");
        }
        (_, _, Some(note)) => {
            let _ = write!(line, ": {note}");
        }
        _ => {}
    }
    line
}

/// `rigor track status` on a server: the jobs per class and worker, and the jobs worth a look
/// (`more`: there are more than those listed).
pub fn status_text(tally: &[TallyView], jobs: &[JobView], more: bool) -> String {
    if tally.is_empty() {
        return "No jobs queued\n".to_string();
    }
    // Rows per class and worker: queued, running, done, failed, expired leases.
    let mut rows: BTreeMap<(String, String), [i64; 5]> = BTreeMap::new();
    for t in tally {
        let worker = t.worker.clone().unwrap_or_else(|| "-".into());
        let row = rows.entry((t.class.clone(), worker)).or_default();
        let k = match t.state {
            JobStateView::Queued => 0,
            JobStateView::Running => 1,
            JobStateView::Done => 2,
            JobStateView::Failed => 3,
        };
        row[k] += t.count;
        row[4] += t.expired;
    }
    let mut out = format!(
        "{:<16} {:<20} {:>7} {:>7} {:>7} {:>7}\n",
        "class", "worker", "queued", "running", "done", "failed"
    );
    let mut classes: BTreeMap<String, [i64; 5]> = BTreeMap::new();
    for ((class, worker), r) in &rows {
        let expired = if r[4] > 0 {
            format!("  ({} lease(s) expired: worker gone?)", r[4])
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{class:<16} {worker:<20} {:>7} {:>7} {:>7} {:>7}{expired}",
            r[0], r[1], r[2], r[3]
        );
        let c = classes.entry(class.clone()).or_default();
        for k in 0..5 {
            c[k] += r[k];
        }
    }
    for (class, c) in &classes {
        let total = c[0] + c[1] + c[2] + c[3];
        let finished = c[2] + c[3];
        let _ = writeln!(
            out,
            "{class}: {finished} of {total} job(s) finished ({:.0}%), {} running, {} queued",
            100.0 * finished as f64 / total.max(1) as f64,
            c[1],
            c[0]
        );
    }
    if !jobs.is_empty() {
        out.push_str("\nJobs to look at (newest first):\n");
        for d in jobs {
            out.push_str(&job_line(d));
            out.push('\n');
        }
        if more {
            out.push_str("…\n");
        }
    }
    out
}
