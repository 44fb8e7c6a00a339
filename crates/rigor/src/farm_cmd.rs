//! `rigor track enqueue`, `rigor track worker` and `rigor track status` (the job queue): a
//! benchmark farm on a PostgreSQL history.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Result;
use clap::Parser as _;
use rigor_app::Outcome;
use rigor_app::farm::{self, EnqueueRequest, FarmError, JobRunner, JobSettings, WorkerRequest};
use rigor_app::track::Executors;
use rigor_history::PostgresHistory;
use rigor_report::farm::{Said, WorkerLine};
use rigor_runner::{Executor, RunError, StopSignal};
use rigor_units::Seed;

use crate::output::{self, emit};
use rigor_cli::{EnqueueLine, TrackEnqueueArgs, TrackWorkerArgs};

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
    let resolved = EnqueueRequest {
        repo: farm::repo_dir(&a.repo)?,
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
    output::notes(&resolved.notes);
    let mut db = PostgresHistory::open(url)?;
    let view = resolved.enqueue(&mut db)?.view(&resolved, db.url());
    emit(&rigor_report::farm::enqueued_text(&view));
    if let Some(note) = rigor_report::farm::enqueued_note(&view) {
        note!("rigor: {note}");
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
}

impl Executors for Runner {
    fn executor(
        &mut self,
        simulate: bool,
        seed: Seed,
        measures: &rigor_runner::Measures,
    ) -> std::result::Result<(StopSignal, Box<dyn Executor>), RunError> {
        // The worker's own Ctrl-C handling stops it between jobs (or at once).
        let stop = StopSignal::new();
        let executor = crate::commands::executor(simulate, seed, measures, &stop)?;
        Ok((stop, executor))
    }
}

/// `rigor track worker`.
pub fn worker(url: &str, a: &TrackWorkerArgs) -> Result<Outcome> {
    let settings = WorkerRequest {
        url: url.to_string(),
        machine: a.machine.clone(),
        class: a.class.clone(),
        repo: a.repo.clone(),
        lease: a.lease,
        poll: a.poll,
        exit_when_empty: a.exit_when_empty,
        max_jobs: a.max_jobs,
    }
    .resolve()?;
    // Fail early on a wrong URL or password (later errors are retried).
    drop(PostgresHistory::open(url)?);
    let worker = settings.worker.clone();
    note!("{}", Said(&worker, &settings.started()));
    // Ctrl-C once: finish the current job, then stop; twice: stop now (the job's
    // lease runs out and another worker runs it again).
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        let _ = ctrlc::set_handler(move || {
            if stop.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            note!("{}", Said("", &WorkerLine::Stopping));
        });
    }
    let mut told = farm::Told {
        worker: &worker,
        say: &mut |said| note!("{said}"),
    };
    let summary = farm::work(&settings, &mut Runner, &mut told, stop);
    emit(&summary.text(&worker));
    Ok(summary.outcome())
}

/// `rigor track status` on a server: the jobs per class and worker.
pub fn status(url: &str) -> Result<Outcome> {
    let (tally, jobs, more) = farm::status(&PostgresHistory::open(url)?)?;
    emit(&rigor_report::farm::status_text(&tally, &jobs, more));
    Ok(Outcome::Ok)
}
