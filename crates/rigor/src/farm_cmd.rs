//! `rigor track enqueue`, `rigor track worker` and `rigor track status` (the job queue): a
//! benchmark farm on a PostgreSQL history.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Parser;
use rigor_app::Outcome;
use rigor_app::farm::{
    self, EnqueueRequest, FarmError, JOB_FORMAT, JobRunner, JobSettings, WorkerObserver,
    WorkerPlace, WorkerSettings,
};
use rigor_app::track;
use rigor_history::queue::{ClaimedJob, GaveUp, JobDetail, JobQueue, JobState, Unreadable};
use rigor_history::{HistoryError, PostgresHistory};
use rigor_runner::{Executor, RunError, StopSignal};
use rigor_units::Seed;

use crate::cli::{TrackEnqueueArgs, TrackWorkerArgs};
use crate::output::emit;

/// The arguments of `rigor track enqueue`, as jobs queued before specs were typed (format 1)
/// hold them.
#[derive(Debug, Parser)]
#[command(name = "rigor track enqueue", no_binary_name = true)]
struct EnqueueLine {
    #[command(flatten)]
    args: TrackEnqueueArgs,
}

/// How `rigor track enqueue`'s options measure each version.
fn job_settings(a: &TrackEnqueueArgs) -> JobSettings {
    JobSettings {
        force: a.force,
        project: crate::settings::simulated_project(&a.options),
        artifacts: a.artifacts.clone(),
        run: crate::settings::request(&a.commands, &a.options),
    }
}

/// `rigor track enqueue`.
pub fn enqueue(url: &str, a: &TrackEnqueueArgs) -> Result<Outcome> {
    let repo = a
        .repo
        .canonicalize()
        .with_context(|| format!("--repo {}", a.repo.display()))?;
    let resolved = EnqueueRequest {
        repo,
        revs: a.revs.clone(),
        last: a.last,
        class: a.class.clone(),
        branch: a.branch.clone(),
        batch: a.batch,
        max_attempts: a.max_attempts,
        retry_failed: a.retry_failed,
        settings: job_settings(a),
    }
    .resolve()?;
    crate::output::notes(&resolved.notes);
    let mut db = PostgresHistory::open(url)?;
    let report = resolved.enqueue(&mut db)?;
    let e = &report.enqueued;
    emit(&format!(
        "Queued {} job(s) ({} of {} version(s); {} already queued or done) for class {} ({}) in \
         {}\n",
        e.added,
        e.versions,
        report.versions,
        e.existing,
        a.class,
        resolved.spec.branch,
        db.url()
    ));
    if e.retried > 0 {
        emit(&format!("Queued {} failed job(s) again\n", e.retried));
    }
    if e.failed > 0 {
        note!(
            "rigor: {} version(s) are in failed jobs and were not queued again (`rigor track \
             status` says why they failed; --retry-failed queues those jobs again)",
            e.failed
        );
    }
    Ok(Outcome::Ok)
}

/// Runs jobs: reads the jobs an earlier rigor queued as its command line, and makes the
/// executors.
struct Runner;

impl JobRunner for Runner {
    fn argv_settings(&self, args: &[String]) -> std::result::Result<JobSettings, FarmError> {
        let line = EnqueueLine::try_parse_from(args).map_err(|e| FarmError::Argv(Box::new(e)))?;
        Ok(job_settings(&line.args))
    }

    fn executor(
        &mut self,
        simulate: bool,
        seed: Seed,
    ) -> std::result::Result<(StopSignal, Box<dyn Executor>), RunError> {
        // The worker's own Ctrl-C handling stops it between jobs (or at once).
        let stop = StopSignal::new();
        let executor = crate::commands::executor(simulate, seed, &stop)?;
        Ok((stop, executor))
    }
}

/// Up to 3 commits, shortened.
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

/// Tells what the worker does, one line each, on stderr.
struct Log<'a>(&'a str);

impl WorkerObserver for Log<'_> {
    fn claimed(&mut self, job: &ClaimedJob) {
        note!(
            "rigor: {}: job {} claimed (attempt {} of {})",
            self.0,
            job.id,
            job.attempt,
            job.max_attempts
        );
    }
    fn skipped(&mut self, job: &ClaimedJob, versions: &[String]) {
        note!(
            "rigor: {}: job {}: {} version(s) already stored for class {}: skipped ({}); \
             enqueue with --force measures them again",
            self.0,
            job.id,
            versions.len(),
            job.class,
            commits(versions)
        );
    }
    fn fetching(&mut self, job: &ClaimedJob, missing: &[String]) {
        note!(
            "rigor: {}: job {}: {} not in the clone: git fetch",
            self.0,
            job.id,
            commits(missing)
        );
    }
    fn waiting(&mut self, job: &ClaimedJob, reason: &str, wait: Duration) {
        note!(
            "rigor: {}: job {} left queued, tried again in {}: {reason}",
            self.0,
            job.id,
            rigor_units::Seconds(wait.as_secs_f64())
        );
    }
    fn gave_up(&mut self, job: GaveUp) {
        note!(
            "rigor: {}: job {} failed: out of attempts ({} ended without completing)",
            self.0,
            job.id,
            job.attempts
        );
    }
    fn unreadable(&mut self, job: Unreadable) {
        note!(
            "rigor: {}: job {} left queued: needs a newer rigor (its format is {}; this one reads \
             formats up to {JOB_FORMAT})",
            self.0,
            job.id,
            job.format
        );
    }
    fn completed(&mut self, job: &ClaimedJob, runs: usize) {
        note!(
            "rigor: {}: job {} done, {runs} run(s) stored",
            self.0,
            job.id
        );
    }
    fn failed(&mut self, job: &ClaimedJob, reason: &str) {
        note!("rigor: {}: job {} failed: {reason}", self.0, job.id);
    }
    fn lease_lost(&mut self, job: &ClaimedJob) {
        note!(
            "rigor: {}: job {}: the lease was lost to another worker; nothing stored",
            self.0,
            job.id
        );
    }
    fn database_error(&mut self, error: &HistoryError) {
        let mut text = error.to_string();
        let mut source = std::error::Error::source(error);
        while let Some(s) = source {
            text.push_str(&format!(": {s}"));
            source = s.source();
        }
        note!("rigor: {}: database error (retrying): {text}", self.0);
    }
}

/// `rigor track worker`.
pub fn worker(url: &str, a: &TrackWorkerArgs) -> Result<Outcome> {
    let repo = a
        .repo
        .canonicalize()
        .with_context(|| format!("--repo {}", a.repo.display()))?;
    let machine = track::this_machine(a.machine.as_deref()).name;
    let class = a.class.clone().unwrap_or_else(|| machine.clone());
    let seconds = |what: &str, s: f64| {
        Duration::try_from_secs_f64(s)
            .ok()
            .filter(|d| !d.is_zero())
            .with_context(|| format!("--{what} {s}: give a positive number of seconds"))
    };
    let runs = crate::track_cmd::default_results_dir(None);
    let settings = WorkerSettings {
        url: url.to_string(),
        worker: machine.clone(),
        class: class.clone(),
        lease: seconds("lease", a.lease)?,
        poll: seconds("poll", a.poll)?,
        exit_when_empty: a.exit_when_empty,
        max_jobs: a.max_jobs,
        place: WorkerPlace {
            repo,
            checkouts: runs.with_file_name("checkouts"),
            results_dir: runs,
            keep: 20,
        },
    };
    // Fail early on a wrong URL or password (later errors are retried).
    drop(PostgresHistory::open(url)?);
    note!(
        "rigor: worker {machine} (class {class}) on {}",
        rigor_history::redact(url)
    );
    // Ctrl-C once: finish the current job, then stop; twice: stop now (the job's
    // lease runs out and another worker runs it again).
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        let _ = ctrlc::set_handler(move || {
            if stop.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            note!("rigor: stopping after the current job (Ctrl-C again to stop now)");
        });
    }
    let summary = farm::work(&settings, &mut Runner, &mut Log(&machine), stop);
    emit(&format!(
        "Worker {machine}: {} job(s) done, {} failed, {} lost to other workers, {} left queued \
         to wait\n",
        summary.done, summary.failed, summary.lost, summary.waiting
    ));
    Ok(if summary.failed > 0 {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}

/// `rigor track status` on a server: the jobs per class and worker.
pub fn status(url: &str) -> Result<Outcome> {
    let db = PostgresHistory::open(url)?;
    let tally = db.tally()?;
    if tally.is_empty() {
        emit("No jobs queued\n");
        return Ok(Outcome::Ok);
    }
    emit(&status_table(&tally));
    // One more than shown, to tell that there are more.
    let details = db.details(DETAILS + 1)?;
    if !details.is_empty() {
        let mut text = String::from("\nJobs to look at (newest first):\n");
        for d in details.iter().take(DETAILS) {
            text.push_str(&detail_line(d));
            text.push('\n');
        }
        if details.len() > DETAILS {
            text.push_str("…\n");
        }
        emit(&text);
    }
    Ok(Outcome::Ok)
}

/// Jobs `status` lists under its table at most.
const DETAILS: usize = 20;

/// A job worth a look, in one line: where it is, its attempts, why it waits or failed.
fn detail_line(d: &JobDetail) -> String {
    let mut line = format!(
        "job {} ({}): {}, {} of {} attempt(s)",
        d.id, d.class, d.state, d.attempts, d.max_attempts
    );
    if let Some(w) = d.worker.as_deref().filter(|_| d.state != JobState::Queued) {
        line.push_str(&format!(" on {w}"));
    }
    if d.format > JOB_FORMAT {
        line.push_str(&format!(", format {}", d.format));
    }
    if let Some(t) = d.not_before.filter(|_| d.state == JobState::Queued) {
        line.push_str(&format!(
            ", not claimed before {}",
            t.strftime("%Y-%m-%d %H:%M:%S UTC")
        ));
    }
    match (d.state, &d.error, &d.note) {
        (JobState::Failed, Some(error), _) => line.push_str(&format!(": {error}")),
        (_, _, Some(note)) => line.push_str(&format!(": {note}")),
        _ => {}
    }
    line
}

fn status_table(tally: &[rigor_history::queue::JobTally]) -> String {
    // Rows per class and worker: queued, running, done, failed, expired leases.
    let mut rows: BTreeMap<(String, String), [i64; 5]> = BTreeMap::new();
    for t in tally {
        let worker = t.worker.clone().unwrap_or_else(|| "-".into());
        let row = rows.entry((t.class.clone(), worker)).or_default();
        let k = match t.state {
            JobState::Queued => 0,
            JobState::Running => 1,
            JobState::Done => 2,
            JobState::Failed => 3,
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
        out.push_str(&format!(
            "{class:<16} {worker:<20} {:>7} {:>7} {:>7} {:>7}{expired}\n",
            r[0], r[1], r[2], r[3]
        ));
        let c = classes.entry(class.clone()).or_default();
        for k in 0..5 {
            c[k] += r[k];
        }
    }
    for (class, c) in &classes {
        let total = c[0] + c[1] + c[2] + c[3];
        let finished = c[2] + c[3];
        out.push_str(&format!(
            "{class}: {finished} of {total} job(s) finished ({:.0}%), {} running, {} queued\n",
            100.0 * finished as f64 / total.max(1) as f64,
            c[1],
            c[0]
        ));
    }
    out
}
