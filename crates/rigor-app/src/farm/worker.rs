//! Running a claimed job on a worker: reading its spec, fetching the commits its clone lacks,
//! skipping stored versions, measuring the rest.

use super::*;

/// What a front end provides to run jobs: the executors a job measures with, and the settings
/// of jobs it queued as its arguments.
pub trait JobRunner: track::Executors {
    /// The settings of a job queued as `rigor track enqueue`'s arguments (format 1, before
    /// specs were typed): only the front end that wrote them parses them.
    fn argv_settings(&self, args: &[String]) -> std::result::Result<JobSettings, FarmError>;
}

/// Hears what a worker does.
pub trait WorkerObserver {
    /// A job was claimed.
    fn claimed(&mut self, _job: &ClaimedJob) {}
    /// Versions of a job are stored for its class already: not measured again.
    fn skipped(&mut self, _job: &ClaimedJob, _versions: &[String]) {}
    /// Commits of a job are not in the worker's clone: it fetches.
    fn fetching(&mut self, _job: &ClaimedJob, _commits: &[String]) {}
    /// A job was handed back to wait (a commit not fetched yet), to be tried after `wait`.
    fn waiting(&mut self, _job: &ClaimedJob, _reason: &str, _wait: Duration) {}
    /// A job's results were stored and it is done.
    fn completed(&mut self, _job: &ClaimedJob, _runs: usize) {}
    /// A job could not be run and was marked failed.
    fn failed(&mut self, _job: &ClaimedJob, _reason: &str) {}
    /// A job ran out of attempts (each ended without completing) and was marked failed.
    fn gave_up(&mut self, _job: rigor_history::queue::GaveUp) {}
    /// A queued job of the class is of a newer format than this worker reads: left queued.
    fn unreadable(&mut self, _job: rigor_history::queue::Unreadable) {}
    /// The job's lease was lost to another worker; nothing was stored.
    fn lease_lost(&mut self, _job: &ClaimedJob) {}
    /// The database failed; the worker retries with a new connection.
    fn database_error(&mut self, _error: &HistoryError) {}
}

/// Where a worker measures.
#[derive(Debug, Clone)]
pub struct WorkerPlace {
    /// Its clone of the repository (fetched from its default remote when a job's commit is
    /// missing).
    pub repo: PathBuf,
    /// Where result files are written as they are measured.
    pub results_dir: PathBuf,
    /// Where built checkouts are kept.
    pub checkouts: PathBuf,
    /// How many built checkouts are kept.
    pub keep: usize,
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
    /// How long to wait when the queue is empty; a job that cannot run yet waits this long,
    /// then twice as long each time, up to [`LONGEST_WAIT`].
    pub poll: Duration,
    /// Stop when the queue has no job for this class that can be claimed now.
    pub exit_when_empty: bool,
    /// Stop after this many jobs.
    pub max_jobs: Option<usize>,
    /// Where it measures.
    pub place: WorkerPlace,
}

impl WorkerSettings {
    /// How long a job handed back `waits` times before waits now.
    pub fn wait(&self, waits: i64) -> Duration {
        let doublings = u32::try_from(waits.clamp(0, 20)).unwrap_or(20);
        self.poll
            .saturating_mul(1 << doublings)
            .min(LONGEST_WAIT)
            .max(self.poll)
    }
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
    /// Jobs handed back to wait.
    pub waiting: usize,
}

/// How a claimed job ends on a worker: what the worker then stores, fails or hands back.
#[derive(Debug)]
pub enum JobEnding {
    /// Measured: to store and complete.
    Measured(Collected),
    /// It cannot run: failed.
    Failed(AppError),
    /// It cannot run yet: handed back to wait.
    Wait(FarmError),
}

impl JobEnding {
    /// Why it failed or waits, in one line (with the error's sources).
    pub fn why(&self) -> Option<String> {
        match self {
            Self::Measured(_) => None,
            Self::Failed(e) => Some(reason(e)),
            Self::Wait(e) => Some(reason(e)),
        }
    }
}

/// An error with its sources, as one line.
fn reason(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(&format!(": {more}"));
        }
        source = s.source();
    }
    text
}

/// Measures a job's versions into `into`: the one call into `track`'s measuring.
fn measure(
    into: &mut Collected,
    settings: &TrackRunSettings,
    experiment: &RunSettings,
    executor: &mut dyn Executor,
    stop: StopSignal,
) -> Result<Tracked> {
    struct Quiet;
    impl track::TrackObserver for Quiet {}
    track::measure_versions(
        into,
        settings,
        experiment,
        &[],
        executor,
        stop,
        &mut crate::recorder::NoProgress,
        &mut Quiet,
    )
}

/// The commits `repo` lacks.
fn missing(repo: &Path, commits: &[String]) -> Vec<String> {
    commits
        .iter()
        .filter(|c| !git::has_commit(repo, c))
        .cloned()
        .collect()
}

/// Makes sure the clone has the job's commits, fetching when it lacks some.
fn fetch_missing(
    repo: &Path,
    job: &ClaimedJob,
    commits: &[String],
    observer: &mut dyn WorkerObserver,
) -> std::result::Result<(), FarmError> {
    let lacking = missing(repo, commits);
    if lacking.is_empty() {
        return Ok(());
    }
    observer.fetching(job, &lacking);
    let fetch = git::fetch(repo).err().map(Box::new);
    let lacking = missing(repo, &lacking);
    if lacking.is_empty() {
        return Ok(());
    }
    Err(FarmError::MissingCommits {
        repo: repo.to_path_buf(),
        commits: lacking,
        fetch,
    })
}

/// Whether the history holds `rev` for `key` with every benchmark of `names` (or recorded it as
/// failed), as `track run` skips it.
fn stored(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    names: &[&str],
    rev: &str,
) -> rigor_history::Result<bool> {
    if !history.has_run(key, rev)? {
        return Ok(false);
    }
    let benchmarks = history.stored_benchmarks(key, rev)?;
    Ok(benchmarks.is_empty() || names.iter().all(|n| benchmarks.iter().any(|s| s == n)))
}

/// Reads, resolves and measures a claimed job (the versions `history` holds for its class
/// skipped, unless it forces them): the commits its clone lacks fetched, or the job handed back
/// to wait when they are still missing or its format is newer than this rigor reads.
pub fn run_job(
    settings: &WorkerSettings,
    job: &ClaimedJob,
    runner: &mut dyn JobRunner,
    observer: &mut dyn WorkerObserver,
    history: Option<&dyn HistoryRead>,
) -> JobEnding {
    let spec = match JobSpec::read(job, runner) {
        Ok(spec) => spec,
        Err(e @ FarmError::NewerFormat { .. }) => return JobEnding::Wait(e),
        Err(e) => return JobEnding::Failed(e.into()),
    };
    let resolved = match spec.request(&settings.place).resolve() {
        Ok(r) => r,
        Err(e) => return JobEnding::Failed(e),
    };
    let (mut track_settings, experiment) = (resolved.settings, resolved.experiment);
    if let track::Source::Git(g) = &track_settings.source {
        if let Err(e) = fetch_missing(&g.repo, job, &spec.commits, observer) {
            return JobEnding::Wait(e);
        }
    }
    let mut todo = spec.commits.clone();
    if let (false, Some(h)) = (spec.settings.force, history) {
        let names: Vec<&str> = experiment
            .benchmarks
            .iter()
            .map(|b| b.name.as_str())
            .collect();
        let key = &track_settings.key;
        let mut skipped = Vec::new();
        todo.retain(|c| match stored(h, key, &names, c) {
            Ok(true) => {
                skipped.push(c.clone());
                false
            }
            Ok(false) => true,
            Err(e) => {
                // Measured again rather than not at all.
                observer.database_error(&e);
                true
            }
        });
        if !skipped.is_empty() {
            observer.skipped(job, &skipped);
        }
    }
    let mut collected = Collected::default();
    if todo.is_empty() {
        return JobEnding::Measured(collected);
    }
    track_settings.commits = todo;
    let measured = runner
        .executor(
            experiment.simulate,
            experiment.runner.seed,
            &experiment.measures,
        )
        .map_err(AppError::from)
        .and_then(|(stop, mut executor)| {
            measure(
                &mut collected,
                &track_settings,
                &experiment,
                executor.as_mut(),
                stop,
            )
        });
    drop(resolved.build_dir);
    match measured {
        Ok(_) => JobEnding::Measured(collected),
        Err(e) => JobEnding::Failed(e),
    }
}
