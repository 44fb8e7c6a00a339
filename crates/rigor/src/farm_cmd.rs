//! `rigor track enqueue`, `rigor track worker` and `rigor track status` (the job queue): a
//! benchmark farm on a PostgreSQL history.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Parser;
use rigor_app::Outcome;
use rigor_app::farm::{self, Collected, JobRunner, JobSpec, WorkerObserver, WorkerSettings};
use rigor_app::track::{self, TrackObserver};
use rigor_history::queue::{ClaimedJob, JobQueue, JobState};
use rigor_history::{HistoryError, PostgresHistory, SeriesKey};

use crate::cli::{TrackEnqueueArgs, TrackWorkerArgs};
use crate::output::emit;

/// The arguments of `rigor track enqueue`, as a job stores them and a worker reads them.
#[derive(Debug, Parser)]
#[command(name = "rigor track enqueue", no_binary_name = true)]
struct EnqueueLine {
    #[command(flatten)]
    args: TrackEnqueueArgs,
}

/// The arguments after `enqueue` on this command line, without `--db` (a URL may hold a
/// password, and workers have their own).
fn stored_args() -> Vec<String> {
    let all: Vec<OsString> = std::env::args_os().collect();
    let start = all
        .iter()
        .position(|a| a == "enqueue")
        .map_or(all.len(), |p| p + 1);
    let mut out = Vec::new();
    let mut rest = all[start..]
        .iter()
        .map(|a| a.to_string_lossy().into_owned());
    let mut after_dashes = false;
    while let Some(a) = rest.next() {
        if !after_dashes && a == "--db" {
            rest.next();
            continue;
        }
        if !after_dashes && a.starts_with("--db=") {
            continue;
        }
        after_dashes |= a == "--";
        out.push(a);
    }
    out
}

/// `rigor track enqueue`.
pub fn enqueue(url: &str, a: &TrackEnqueueArgs) -> Result<Outcome> {
    let repo = a
        .repo
        .canonicalize()
        .with_context(|| format!("--repo {}", a.repo.display()))?;
    let mut commits = rigor_app::git::commits(&repo, &a.revs)?;
    if let Some(n) = a.last {
        for c in rigor_app::git::last(&repo, "HEAD", n)? {
            if !commits.contains(&c) {
                commits.push(c);
            }
        }
    }
    if commits.is_empty() {
        bail!("no versions to queue: REVS and --last named no commit");
    }
    // The experiment is checked here, so a mistake is reported now, not by every worker.
    if a.options.until_decided {
        bail!("--until-decided compares commands within one `rigor run`, not versions on a farm");
    }
    crate::settings::run_commands(&a.commands, &a.options)?;
    let branch = a
        .branch
        .clone()
        .or_else(|| rigor_app::git::current_branch(&repo))
        .unwrap_or_else(|| "main".into());
    let batch = if a.options.builds.is_some() {
        1
    } else {
        a.batch
    };
    let args = stored_args();
    let jobs: Vec<_> = farm::specs(&commits, batch, &args)
        .iter()
        .map(|s| s.job(&a.class, &branch))
        .collect();
    let mut db = PostgresHistory::open(url)?;
    let e = db.enqueue(&jobs)?;
    emit(&format!(
        "Queued {} job(s) ({} version(s), {} already queued) for class {} ({branch}) in {}\n",
        e.added,
        commits.len(),
        e.existing,
        a.class,
        db.url()
    ));
    Ok(Outcome::Ok)
}

/// Runs a job as `rigor track run` would, into the job's collected results.
struct Runner {
    repo: std::path::PathBuf,
}

impl JobRunner for Runner {
    fn run(
        &mut self,
        job: &ClaimedJob,
        spec: &JobSpec,
        into: &mut Collected,
    ) -> Result<(), String> {
        let line = EnqueueLine::try_parse_from(&spec.args)
            .map_err(|e| format!("the job's arguments do not parse: {e}"))?
            .args;
        let key = SeriesKey {
            machine: job.class.clone(),
            branch: job.branch.clone(),
        };
        let builds = crate::cli::CheckoutArgs {
            artifacts: Vec::new(),
            keep_checkouts: 20,
        };
        let resolved = track::TrackRequest {
            force: true,
            batch: spec.commits.len(),
            kind: rigor_history::SessionKind::Worker,
            ..crate::track_cmd::request(
                &self.repo,
                key,
                &crate::track_cmd::default_results_dir(None),
                &line.options,
                &line.commands,
                &builds,
            )
        }
        .resolve()
        .map_err(|e| format!("{e}"))?;
        let (mut settings, experiment) = (resolved.settings, resolved.experiment);
        settings.commits = spec.commits.clone();
        let (stop, mut executor) =
            crate::commands::measuring(experiment.simulate, experiment.runner.seed)
                .map_err(|e| format!("{e:#}"))?;
        struct Quiet;
        impl TrackObserver for Quiet {}
        track::measure_versions(
            into,
            &settings,
            &experiment,
            &[],
            executor.as_mut(),
            stop,
            &mut rigor_app::recorder::NoProgress,
            &mut Quiet,
        )
        .map(|_| ())
        .map_err(|e| format!("{e}"))
    }
}

/// Tells what the worker does, one line each, on stderr.
struct Log<'a>(&'a str);

impl WorkerObserver for Log<'_> {
    fn claimed(&mut self, job: &ClaimedJob) {
        note!(
            "rigor: {}: job {} claimed (attempt {})",
            self.0,
            job.id,
            job.attempt
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
    let settings = WorkerSettings {
        url: url.to_string(),
        worker: machine.clone(),
        class: class.clone(),
        lease: seconds("lease", a.lease)?,
        poll: seconds("poll", a.poll)?,
        exit_when_empty: a.exit_when_empty,
        max_jobs: a.max_jobs,
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
    let summary = farm::work(&settings, &mut Runner { repo }, &mut Log(&machine), stop);
    emit(&format!(
        "Worker {machine}: {} job(s) done, {} failed, {} lost to other workers\n",
        summary.done, summary.failed, summary.lost
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
    Ok(Outcome::Ok)
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
