//! What the farm's commands take from a front end and show: the worker's request checked into
//! [`WorkerSettings`], a [`WorkerObserver`] that says each thing a worker does as a line, and
//! the views of what `enqueue`, `worker` and `status` report (`rigor_report::farm` draws them).

use rigor_history::queue::JobState;
use rigor_report::farm::{EnqueuedView, JobStateView, JobView, Said, TallyView, WorkerLine};

use super::*;

/// Everything `rigor track worker` takes.
#[derive(Debug, Clone)]
pub struct WorkerRequest {
    /// The database URL.
    pub url: String,
    /// This machine's name (default: the host name).
    pub machine: Option<String>,
    /// The class whose jobs to run (default: the machine's name).
    pub class: Option<String>,
    /// This machine's clone of the repository.
    pub repo: PathBuf,
    /// Seconds a claim holds without a heartbeat.
    pub lease: f64,
    /// Seconds to wait when no job is queued.
    pub poll: f64,
    /// Stop when no job of the class is queued.
    pub exit_when_empty: bool,
    /// Stop after this many jobs.
    pub max_jobs: Option<usize>,
}

/// A folder given as `--repo`, made absolute.
pub fn repo_dir(repo: &Path) -> Result<PathBuf> {
    repo.canonicalize().map_err(|source| {
        TrackError::Repo {
            path: repo.to_path_buf(),
            source,
        }
        .into()
    })
}

impl WorkerRequest {
    /// Checks the request: the clone, positive times; results go to the project's `.rigor/runs`
    /// and checkouts beside it.
    pub fn resolve(self) -> Result<WorkerSettings> {
        let repo = repo_dir(&self.repo)?;
        let worker = track::this_machine(self.machine.as_deref()).name;
        let class = self.class.unwrap_or_else(|| worker.clone());
        let seconds = |option: &'static str, value: f64| {
            Duration::try_from_secs_f64(value)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or(TrackError::NotSeconds { option, value })
        };
        let runs = track::results_dir(None);
        Ok(WorkerSettings {
            url: self.url,
            worker,
            class,
            lease: seconds("lease", self.lease)?,
            poll: seconds("poll", self.poll)?,
            exit_when_empty: self.exit_when_empty,
            max_jobs: self.max_jobs,
            place: WorkerPlace {
                repo,
                checkouts: runs.with_file_name("checkouts"),
                results_dir: runs,
                keep: 20,
            },
        })
    }
}

impl WorkerSettings {
    /// The line a worker starts with.
    pub fn started(&self) -> WorkerLine {
        WorkerLine::Started {
            worker: self.worker.clone(),
            class: self.class.clone(),
            url: rigor_history::redact(&self.url),
        }
    }
}

impl WorkerSummary {
    /// What the worker says when it stops.
    pub fn text(&self, worker: &str) -> String {
        rigor_report::farm::worker_done(worker, self.done, self.failed, self.lost, self.waiting)
    }

    /// How the worker ended: failed when a job failed.
    pub fn outcome(&self) -> crate::Outcome {
        if self.failed > 0 {
            crate::Outcome::Failed
        } else {
            crate::Outcome::Ok
        }
    }
}

/// The observer that says each thing a worker does, as a line of the worker (its name).
pub struct Told<'a> {
    /// The worker.
    pub worker: &'a str,
    /// Where the lines go.
    pub say: &'a mut dyn FnMut(Said<'_>),
}

impl Told<'_> {
    fn tell(&mut self, line: WorkerLine) {
        (self.say)(Said(self.worker, &line));
    }
}

impl WorkerObserver for Told<'_> {
    fn claimed(&mut self, job: &ClaimedJob) {
        self.tell(WorkerLine::Claimed {
            job: job.id.0,
            attempt: job.attempt,
            max_attempts: job.max_attempts,
        });
    }
    fn skipped(&mut self, job: &ClaimedJob, versions: &[String]) {
        self.tell(WorkerLine::Skipped {
            job: job.id.0,
            class: job.class.clone(),
            versions: versions.to_vec(),
        });
    }
    fn fetching(&mut self, job: &ClaimedJob, commits: &[String]) {
        self.tell(WorkerLine::Fetching {
            job: job.id.0,
            commits: commits.to_vec(),
        });
    }
    fn waiting(&mut self, job: &ClaimedJob, reason: &str, wait: Duration) {
        self.tell(WorkerLine::Waiting {
            job: job.id.0,
            wait: rigor_units::Seconds(wait.as_secs_f64()),
            reason: reason.to_string(),
        });
    }
    fn completed(&mut self, job: &ClaimedJob, runs: usize) {
        self.tell(WorkerLine::Completed {
            job: job.id.0,
            runs,
        });
    }
    fn failed(&mut self, job: &ClaimedJob, reason: &str) {
        self.tell(WorkerLine::Failed {
            job: job.id.0,
            reason: reason.to_string(),
        });
    }
    fn gave_up(&mut self, job: rigor_history::queue::GaveUp) {
        self.tell(WorkerLine::GaveUp {
            job: job.id.0,
            attempts: job.attempts,
        });
    }
    fn unreadable(&mut self, job: rigor_history::queue::Unreadable) {
        self.tell(WorkerLine::Unreadable {
            job: job.id.0,
            format: job.format,
            reads: JOB_FORMAT,
        });
    }
    fn lease_lost(&mut self, job: &ClaimedJob) {
        self.tell(WorkerLine::LeaseLost(job.id.0));
    }
    fn database_error(&mut self, error: &HistoryError) {
        let mut text = error.to_string();
        let mut source = std::error::Error::source(error);
        while let Some(s) = source {
            text.push_str(&format!(": {s}"));
            source = s.source();
        }
        self.tell(WorkerLine::DatabaseError(text));
    }
}

impl EnqueueReport {
    /// What `rigor track enqueue` says of it: queued for `resolved`'s class and branch in the
    /// database `url` (its password hidden).
    pub fn view(&self, resolved: &ResolvedEnqueue, url: &str) -> EnqueuedView {
        let e = &self.enqueued;
        EnqueuedView {
            added: e.added,
            versions: e.versions,
            named: self.versions,
            existing: e.existing,
            retried: e.retried,
            failed: e.failed,
            class: resolved.spec.class.clone(),
            branch: resolved.spec.branch.clone(),
            url: url.to_string(),
        }
    }
}

/// Jobs `status` lists under its table at most.
pub const DETAILS: usize = 20;

/// What `rigor track status` shows of a queue: the jobs per class, worker and state, the jobs
/// worth a look (at most [`DETAILS`]), and whether there are more.
pub fn status(queue: &dyn JobQueue) -> Result<(Vec<TallyView>, Vec<JobView>, bool)> {
    let state = |s| match s {
        JobState::Queued => JobStateView::Queued,
        JobState::Running => JobStateView::Running,
        JobState::Done => JobStateView::Done,
        JobState::Failed => JobStateView::Failed,
    };
    let tally = queue.tally()?;
    if tally.is_empty() {
        return Ok((Vec::new(), Vec::new(), false));
    }
    let tally = tally
        .into_iter()
        .map(|t| TallyView {
            class: t.class,
            worker: t.worker,
            state: state(t.state),
            count: t.count,
            expired: t.expired,
        })
        .collect();
    // One more than shown, to tell that there are more.
    let details = queue.details(DETAILS + 1)?;
    let more = details.len() > DETAILS;
    let jobs = details
        .into_iter()
        .take(DETAILS)
        .map(|d| JobView {
            id: d.id.0,
            class: d.class,
            state: state(d.state),
            state_name: d.state.to_string(),
            worker: d.worker,
            attempts: d.attempts,
            max_attempts: d.max_attempts,
            newer_format: (d.format > JOB_FORMAT).then_some(d.format),
            not_before: d
                .not_before
                .map(|t| t.strftime("%Y-%m-%d %H:%M:%S UTC").to_string()),
            error: d.error,
            note: d.note,
        })
        .collect();
    Ok((tally, jobs, more))
}
