//! A benchmark farm: jobs queued in the PostgreSQL history, run by workers on dedicated
//! machines, each job's results stored in the transaction that completes it.
//!
//! A job is one comparison: the versions of one `track run` batch, measured together in shuffled
//! interleaved rounds on one machine, as one session of kind `worker`. Its results are stored
//! under the job's machine class (not the worker's name), so a series holds only results of one
//! class and only they are compared. The worker holds a lease it renews from a heartbeat thread
//! with a connection of its own; a worker that dies loses its lease and the job is claimed again
//! elsewhere, up to the job's attempts. Database errors (a lost connection) are retried with a
//! fresh connection: a job's completion is atomic and checks the claim, so retrying it can
//! neither lose nor duplicate results.
//!
//! A job's spec is data ([`JobSpec`]: a format number, the class, branch, versions and the
//! measurement settings), resolved by this library on the worker, so that a release that
//! changes a command-line option does not break the jobs already queued. A worker claims only
//! the formats it reads ([`JOB_FORMAT`] and older) and notes the newer ones, which stay queued
//! for an upgraded worker. Jobs queued before specs were typed hold `rigor track enqueue`'s
//! arguments (format 1): the front end that wrote them reads them ([`JobRunner::argv_settings`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rigor_history::queue::{ClaimedJob, Enqueue, Enqueued, JobQueue, NewJob};
use rigor_history::{
    ArtifactHash, HistoryError, HistoryRead, HistoryWrite, Ingest, Ingested, MachineInfo,
    NewSession, Role, RunId, SeriesKey, SessionEnd, SessionId, SessionKind, VersionInfo,
};
use rigor_report::notes::Note;
use rigor_runner::{Executor, RunError, StopSignal};
use rigor_store::ResultFile;
use rigor_units::Seed;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{AppError, Result};
use crate::git::{self, GitError};
use crate::settings::{Origin, RunRequest, RunSettings};
use crate::simulated_project::SimProject;
use crate::track::{self, TrackError, TrackRequest, TrackRunSettings, Tracked};

/// The format of the job specs this rigor writes, and the newest it reads. It grows whenever a
/// spec gains or changes a field, so that an older worker leaves the job queued instead of
/// ignoring what it does not know.
pub const JOB_FORMAT: u32 = 2;

/// The format of jobs queued before specs were typed: the versions and `rigor track enqueue`'s
/// arguments.
pub const ARGV_FORMAT: u32 = 1;

/// The longest a job that cannot run yet waits before it is tried again.
pub const LONGEST_WAIT: Duration = Duration::from_secs(3600);

/// What is wrong with a farm job.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FarmError {
    /// The spec is not JSON of a known shape.
    #[error("the job's spec is damaged: {0}")]
    Damaged(serde_json::Error),
    /// The spec cannot be written (a path that is not UTF-8).
    #[error("the job's spec cannot be written: {0}")]
    Encode(serde_json::Error),
    /// A job queued as a command line (format 1) that this rigor does not parse.
    #[error(
        "the job was queued by an earlier rigor as its command line (format {ARGV_FORMAT}), which \
         does not parse: {0}"
    )]
    Argv(Box<dyn std::error::Error + Send + Sync>),
    /// The spec is of a format newer than this rigor reads.
    #[error(
        "needs a newer rigor: the job's format is {found}, and this rigor reads formats up to \
         {JOB_FORMAT}"
    )]
    NewerFormat {
        /// The job's format.
        found: u32,
    },
    /// Commits the worker's clone lacks, even after fetching.
    #[error(
        "{} not in the worker's clone {} ({})",
        commit_list(.commits),
        .repo.display(),
        .fetch.as_ref().map_or_else(|| "after git fetch".to_string(), |e| format!("git fetch failed: {e}"))
    )]
    MissingCommits {
        /// The clone.
        repo: PathBuf,
        /// The commits it lacks.
        commits: Vec<String>,
        /// Why fetching failed, when it did.
        fetch: Option<Box<GitError>>,
    },
}

/// "commit 0123456789ab" or "3 commits (0123456789ab, …)".
fn commit_list(commits: &[String]) -> String {
    let short = |c: &String| c.chars().take(12).collect::<String>();
    match commits {
        [one] => format!("commit {}", short(one)),
        more => format!(
            "{} commits ({})",
            more.len(),
            more.iter().map(short).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// How a job measures each of its versions: the measurement settings as data.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JobSettings {
    /// Measure versions already stored for the class again (without it the worker skips them).
    pub force: bool,
    /// A simulated project's specification instead of the repository.
    pub project: Option<String>,
    /// Files (relative to a checkout) whose hash tells identical builds (`--artifact`).
    pub artifacts: Vec<PathBuf>,
    /// The experiment: every option of `rigor run`, as given (paths are the worker's).
    pub run: RunRequest,
}

impl JobSettings {
    /// Checks the settings as a worker resolves them, so that a mistake is reported when the
    /// job is queued, not by every worker; the resolution's notes.
    pub fn check(&self) -> Result<Vec<Note>> {
        if self.run.until_decided {
            return Err(TrackError::UntilDecided.into());
        }
        if let Some(p) = &self.project {
            SimProject::parse(p).map_err(TrackError::from)?;
        }
        Ok(self.run.resolve()?.notes)
    }

    /// The settings as a job stores them: of the origin only the label (a worker records its
    /// own command line and folder).
    fn stored(mut self) -> Self {
        self.run.origin = Origin {
            label: self.run.origin.label.take(),
            ..Origin::default()
        };
        self
    }

    /// What identifies the measurement (a version's key hashes it): the settings without what
    /// only changes what is written or shown.
    fn measured(&self) -> Self {
        let mut s = self.clone();
        s.run.exports = Default::default();
        s.run.time_unit = None;
        s.run.sort = Default::default();
        s.run.comparison.fail_on = None;
        s.run.origin = Origin::default();
        s
    }
}

/// A job: the versions of one comparison and how to measure them, as data (the spec stored in
/// the queue as JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    /// The spec's format ([`JOB_FORMAT`] when written by this rigor).
    pub format: u32,
    /// The machine class whose workers run it (results are stored under it).
    pub class: String,
    /// The branch its results belong to.
    pub branch: String,
    /// The commits (full ids), measured together.
    pub commits: Vec<String>,
    /// How each is measured.
    #[serde(default)]
    pub settings: JobSettings,
}

/// A job queued before specs were typed (format 1).
#[derive(Deserialize)]
struct ArgvJob {
    commits: Vec<String>,
    args: Vec<String>,
}

/// The format a stored spec says it is (none: the argv form).
#[derive(Deserialize)]
struct FormatOnly {
    format: Option<u32>,
}

/// What a version's key hashes.
#[derive(Serialize)]
struct KeyOf<'a> {
    class: &'a str,
    branch: &'a str,
    version: &'a str,
    settings: JobSettings,
}

impl JobSpec {
    /// A job of this rigor's format.
    pub fn new(class: &str, branch: &str, commits: Vec<String>, settings: JobSettings) -> Self {
        Self {
            format: JOB_FORMAT,
            class: class.to_string(),
            branch: branch.to_string(),
            commits,
            settings: settings.stored(),
        }
    }

    /// Reads a claimed job's spec: of this rigor's format, or (format 1) a command line that
    /// `runner` reads; [`FarmError::NewerFormat`] for one newer than this rigor reads.
    pub fn read(job: &ClaimedJob, runner: &dyn JobRunner) -> std::result::Result<Self, FarmError> {
        let format = serde_json::from_str::<FormatOnly>(&job.spec)
            .map_err(FarmError::Damaged)?
            .format;
        match format {
            None => {
                let old: ArgvJob = serde_json::from_str(&job.spec).map_err(FarmError::Damaged)?;
                Ok(Self::new(
                    &job.class,
                    &job.branch,
                    old.commits,
                    runner.argv_settings(&old.args)?,
                ))
            }
            Some(found) if found > JOB_FORMAT => Err(FarmError::NewerFormat { found }),
            Some(_) => serde_json::from_str(&job.spec).map_err(FarmError::Damaged),
        }
    }

    /// The spec as stored.
    pub fn encode(&self) -> std::result::Result<String, FarmError> {
        serde_json::to_string(self).map_err(FarmError::Encode)
    }

    /// A version's key: the class, branch, version and measurement settings hashed, whatever
    /// order the options were given in and whatever else the job holds.
    pub fn version_key(&self, rev: &str) -> std::result::Result<String, FarmError> {
        let text = serde_json::to_vec(&KeyOf {
            class: &self.class,
            branch: &self.branch,
            version: rev,
            settings: self.settings.measured(),
        })
        .map_err(FarmError::Encode)?;
        Ok(Sha256::digest(&text)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect())
    }

    /// The job to queue, with `max_attempts`.
    pub fn job(&self, max_attempts: u32) -> std::result::Result<NewJob, FarmError> {
        Ok(NewJob {
            class: self.class.clone(),
            branch: self.branch.clone(),
            format: self.format,
            spec: self.encode()?,
            keys: self
                .commits
                .iter()
                .map(|c| self.version_key(c))
                .collect::<std::result::Result<_, _>>()?,
            max_attempts,
        })
    }

    /// The `track` request a worker resolves the job into, measuring in `place`.
    pub fn request(&self, place: &WorkerPlace) -> TrackRequest {
        let run = &self.settings.run;
        TrackRequest {
            repo: place.repo.clone(),
            project: self.settings.project.clone(),
            key: SeriesKey {
                machine: self.class.clone(),
                branch: self.branch.clone(),
            },
            // Versions stored already are skipped before measuring (see `work`), and said so.
            force: true,
            batch: self.commits.len().max(1),
            anchors: 0,
            artifacts: self.settings.artifacts.clone(),
            checkouts: place.checkouts.clone(),
            keep: place.keep,
            results_dir: place.results_dir.clone(),
            kind: SessionKind::Worker,
            run: RunRequest {
                origin: Origin::current(run.origin.label.clone()),
                ..run.clone()
            },
        }
    }
}

/// Queuing versions for a machine class.
#[derive(Debug, Clone)]
pub struct EnqueueRequest {
    /// The repository the revisions are resolved in (workers use their own clone).
    pub repo: PathBuf,
    /// `A..B` and single revisions.
    pub revs: Vec<String>,
    /// Also the last N commits of HEAD's first-parent line.
    pub last: Option<usize>,
    /// The machine class.
    pub class: String,
    /// The branch (default: the repository's current branch, else "main").
    pub branch: Option<String>,
    /// Versions per job (1 with builds as a level).
    pub batch: usize,
    /// Attempts a job gets before it is failed.
    pub max_attempts: u32,
    /// Queue again the failed jobs holding any of the versions.
    pub retry_failed: bool,
    /// How the versions are measured.
    pub settings: JobSettings,
}

/// Queuing resolved: the versions and their jobs' template, checked, before the queue is
/// touched.
#[derive(Debug, Clone)]
pub struct ResolvedEnqueue {
    /// Every version named, in one spec (each job holds some of them).
    pub spec: JobSpec,
    /// Each version's key.
    pub keys: Vec<String>,
    /// Versions per job.
    pub batch: usize,
    /// Attempts a job gets.
    pub max_attempts: u32,
    /// Queue failed jobs again.
    pub retry_failed: bool,
    /// What the settings' resolution has to tell.
    pub notes: Vec<Note>,
}

/// What queuing did.
#[derive(Debug, Clone, Copy)]
pub struct EnqueueReport {
    /// The versions named.
    pub versions: usize,
    /// What the queue did with them.
    pub enqueued: Enqueued,
}

impl EnqueueRequest {
    /// Resolves the versions (full commit ids, in the request's repository) and checks the
    /// settings as a worker will resolve them, so that a mistake is reported now, not by every
    /// worker, and before the queue is opened.
    pub fn resolve(self) -> Result<ResolvedEnqueue> {
        let repo = &self.repo;
        git::check_repository(repo)?;
        let mut commits = git::commits(repo, &self.revs)?;
        if let Some(n) = self.last {
            for c in git::last(repo, "HEAD", n)? {
                if !commits.contains(&c) {
                    commits.push(c);
                }
            }
        }
        if commits.is_empty() {
            return Err(TrackError::NoVersions.into());
        }
        let notes = self.settings.check()?;
        let branch = self
            .branch
            .clone()
            .or_else(|| git::current_branch(repo))
            .unwrap_or_else(|| "main".into());
        let batch = match self.settings.run.builds {
            Some(_) => 1,
            None => self.batch,
        };
        let spec = JobSpec::new(&self.class, &branch, commits, self.settings);
        // Every job's spec encodes when the one with all the versions does.
        spec.encode()?;
        let keys = spec
            .commits
            .iter()
            .map(|c| spec.version_key(c))
            .collect::<std::result::Result<_, _>>()?;
        Ok(ResolvedEnqueue {
            spec,
            keys,
            batch,
            max_attempts: self.max_attempts,
            retry_failed: self.retry_failed,
            notes,
        })
    }
}

impl ResolvedEnqueue {
    /// Queues the versions no job holds yet (a version is held when a job with the same class,
    /// branch and measurement settings has it, however the command line was written), in
    /// balanced jobs of at most `batch` versions; failed jobs holding any of them are queued
    /// again with `retry_failed`.
    pub fn enqueue(&self, queue: &mut dyn JobQueue) -> Result<EnqueueReport> {
        let all = &self.spec;
        let make = |free: &[usize]| -> Vec<NewJob> {
            let chosen: Vec<String> = free.iter().map(|&i| all.commits[i].clone()).collect();
            track::balanced(chosen.len(), self.batch)
                .into_iter()
                .filter_map(|r| {
                    let spec = JobSpec {
                        commits: chosen[r].to_vec(),
                        ..all.clone()
                    };
                    spec.job(self.max_attempts).ok()
                })
                .collect()
        };
        let enqueued = queue.enqueue(&Enqueue {
            keys: &self.keys,
            retry_failed: self.retry_failed,
            jobs: &make,
        })?;
        Ok(EnqueueReport {
            versions: self.keys.len(),
            enqueued,
        })
    }
}

/// A session as a job measured it, to be stored when the job completes.
#[derive(Debug, Clone)]
pub struct CollectedSession {
    /// The machine.
    pub machine: MachineInfo,
    /// What it was.
    pub kind: SessionKind,
    /// When it began.
    pub started: jiff::Timestamp,
    /// The 1-minute load average as it began.
    pub load_before: Option<f64>,
    /// The rigor that ran it.
    pub rigor_version: String,
    /// How it ended.
    pub end: Option<SessionEnd>,
    /// Its results.
    pub results: Vec<CollectedRun>,
    /// Its versions that could not be measured.
    pub failures: Vec<CollectedFailure>,
}

/// A result a job measured.
#[derive(Debug, Clone)]
pub struct CollectedRun {
    /// The version.
    pub version: VersionInfo,
    /// The machine.
    pub machine: MachineInfo,
    /// The branch.
    pub branch: String,
    /// The result.
    pub result: ResultFile,
    /// What its build produced.
    pub artifact: Option<ArtifactHash>,
    /// Why it was measured.
    pub role: Role,
}

/// A version a job could not measure.
#[derive(Debug, Clone)]
pub struct CollectedFailure {
    /// The version.
    pub version: VersionInfo,
    /// The machine.
    pub machine: MachineInfo,
    /// The branch.
    pub branch: String,
    /// Why.
    pub reason: String,
}

/// A history that keeps what a job stores in memory, so that the worker stores it in the
/// transaction that completes the job: only written, never read. The session ids it returns
/// are its own (the index of the session in [`Collected::sessions`]); the job's completion
/// stores each session with its runs. The run ids it returns are placeholders (0).
#[derive(Debug, Default)]
pub struct Collected {
    /// The sessions, each with what was measured in it.
    pub sessions: Vec<CollectedSession>,
    /// Results outside any session.
    pub results: Vec<CollectedRun>,
    /// Failures outside any session.
    pub failures: Vec<CollectedFailure>,
}

impl Collected {
    fn session(&mut self, id: SessionId) -> rigor_history::Result<&mut CollectedSession> {
        usize::try_from(id.0)
            .ok()
            .and_then(|i| self.sessions.get_mut(i))
            .ok_or(HistoryError::NoSuchSession(id))
    }
}

impl HistoryWrite for Collected {
    fn begin_session(&mut self, s: &NewSession<'_>) -> rigor_history::Result<SessionId> {
        self.sessions.push(CollectedSession {
            machine: s.machine.clone(),
            kind: s.kind,
            started: s.started,
            load_before: s.load_before,
            rigor_version: s.rigor_version.to_string(),
            end: None,
            results: Vec::new(),
            failures: Vec::new(),
        });
        Ok(SessionId(self.sessions.len() as i64 - 1))
    }
    fn end_session(&mut self, id: SessionId, end: &SessionEnd) -> rigor_history::Result<()> {
        self.session(id)?.end = Some(*end);
        Ok(())
    }
    fn ingest(&mut self, run: &Ingest<'_>) -> rigor_history::Result<Ingested> {
        let collected = CollectedRun {
            version: run.version.clone(),
            machine: run.machine.clone(),
            branch: run.branch.to_string(),
            result: run.result.clone(),
            artifact: run.artifact,
            role: run.role,
        };
        match run.session {
            Some(id) => self.session(id)?.results.push(collected),
            None => self.results.push(collected),
        }
        Ok(Ingested::Added(RunId(0)))
    }
    fn record_failure(&mut self, f: &rigor_history::Failure<'_>) -> rigor_history::Result<RunId> {
        let collected = CollectedFailure {
            version: f.version.clone(),
            machine: f.machine.clone(),
            branch: f.branch.to_string(),
            reason: f.reason.to_string(),
        };
        match f.session {
            Some(id) => self.session(id)?.failures.push(collected),
            None => self.failures.push(collected),
        }
        Ok(RunId(0))
    }
}

/// What a front end provides to run jobs.
pub trait JobRunner {
    /// The settings of a job queued as `rigor track enqueue`'s arguments (format 1, before
    /// specs were typed): only the front end that wrote them parses them.
    fn argv_settings(&self, args: &[String]) -> std::result::Result<JobSettings, FarmError>;

    /// The executor a job measures with, and the signal that stops it.
    fn executor(
        &mut self,
        simulate: bool,
        seed: Seed,
    ) -> std::result::Result<(StopSignal, Box<dyn Executor>), RunError>;
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
        .executor(experiment.simulate, experiment.runner.seed)
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

#[cfg(feature = "postgres")]
pub use on_postgres::work;

/// The worker's loop on the PostgreSQL queue (the feature `postgres`).
#[cfg(feature = "postgres")]
mod on_postgres {
    use std::collections::HashSet;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use rigor_history::queue::{ClaimedJob, JobQueue, JobResults, JobSession};
    use rigor_history::{Failure, HistoryError, HistoryRead, Ingest, PostgresHistory};

    use super::{
        Collected, CollectedFailure, CollectedRun, CollectedSession, JOB_FORMAT, JobEnding,
        JobRunner, WorkerObserver, WorkerSettings, WorkerSummary, run_job,
    };

    /// Opens the database, again and again until it answers (backing off up to 5 s between
    /// tries).
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

    /// What the worker says of a newer format it leaves queued.
    fn newer_format_note() -> String {
        format!(
            "needs a newer rigor: its format is newer than {JOB_FORMAT}, the newest this class's \
             workers read"
        )
    }

    /// Fails the class's jobs out of attempts and notes those of formats it cannot read (each
    /// told once).
    fn look_around(
        h: &mut PostgresHistory,
        class: &str,
        observer: &mut dyn WorkerObserver,
        told: &mut HashSet<i64>,
    ) -> rigor_history::Result<()> {
        for g in h.give_up(class)? {
            observer.gave_up(g);
        }
        for u in h.unreadable(class, JOB_FORMAT, &newer_format_note())? {
            if told.insert(u.id.0) {
                observer.unreadable(u);
            }
        }
        Ok(())
    }

    /// Claims and runs jobs of the worker's class until the queue has none to claim now (with
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
        let mut told = HashSet::new();
        let mut db = None;
        while !stop.load(Ordering::Relaxed)
            && settings
                .max_jobs
                .is_none_or(|m| summary.done + summary.failed + summary.lost + summary.waiting < m)
        {
            if db.is_none() {
                db = connect(&settings.url, observer, &stop);
            }
            let Some(h) = db.as_mut() else { break };
            if let Err(e) = look_around(h, &settings.class, observer, &mut told) {
                observer.database_error(&e);
                db = None;
                continue;
            }
            let job = match h.claim(
                &settings.class,
                &settings.worker,
                settings.lease,
                JOB_FORMAT,
            ) {
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
            let history = db.as_ref().map(|h| h as &dyn HistoryRead);
            let ending = run_job(settings, &job, runner, observer, history);
            let outcome = finish(settings, &job, &ending, observer, &mut db, &stop);
            *current.lock().unwrap_or_else(|e| e.into_inner()) = None;
            match outcome {
                JobEnd::Done => summary.done += 1,
                JobEnd::Failed => summary.failed += 1,
                JobEnd::Lost => summary.lost += 1,
                JobEnd::Waiting => summary.waiting += 1,
                JobEnd::Stopped => break,
            }
        }
        beat_stop.store(true, Ordering::Relaxed);
        let _ = beat.join();
        summary
    }

    enum JobEnd {
        Done,
        Failed,
        Lost,
        Waiting,
        Stopped,
    }

    /// Completes, fails or hands back a job as it ended (retrying through connection losses).
    fn finish(
        settings: &WorkerSettings,
        job: &ClaimedJob,
        ending: &JobEnding,
        observer: &mut dyn WorkerObserver,
        db: &mut Option<PostgresHistory>,
        stop: &AtomicBool,
    ) -> JobEnd {
        let why = ending.why().unwrap_or_default();
        let wait = settings.wait(job.waits);
        loop {
            if db.is_none() {
                *db = connect(&settings.url, observer, stop);
            }
            let Some(h) = db.as_mut() else {
                return JobEnd::Stopped;
            };
            let stored = match ending {
                JobEnding::Measured(c) => complete(h, job, c).map(|runs| {
                    observer.completed(job, runs);
                    JobEnd::Done
                }),
                JobEnding::Failed(_) => h.fail(job, &why).map(|()| {
                    observer.failed(job, &why);
                    JobEnd::Failed
                }),
                JobEnding::Wait(_) => h.release(job, &why, wait).map(|()| {
                    observer.waiting(job, &why, wait);
                    JobEnd::Waiting
                }),
            };
            match stored {
                Ok(end) => return end,
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

    impl CollectedRun {
        fn ingest(&self) -> Ingest<'_> {
            Ingest {
                artifact: self.artifact,
                role: self.role,
                ..Ingest::new(&self.version, &self.machine, &self.branch, &self.result)
            }
        }
    }

    impl CollectedFailure {
        fn failure(&self) -> Failure<'_> {
            Failure::new(&self.version, &self.machine, &self.branch, &self.reason)
        }
    }

    impl CollectedSession {
        fn new_session(&self) -> rigor_history::NewSession<'_> {
            rigor_history::NewSession {
                machine: &self.machine,
                kind: self.kind,
                started: self.started,
                load_before: self.load_before,
                rigor_version: &self.rigor_version,
            }
        }
    }

    /// Stores what a job collected (each session with its runs) and completes it, in one
    /// transaction.
    fn complete(
        h: &mut PostgresHistory,
        job: &ClaimedJob,
        c: &Collected,
    ) -> rigor_history::Result<usize> {
        type Runs<'a> = (Vec<Ingest<'a>>, Vec<Failure<'a>>);
        fn runs<'a>(results: &'a [CollectedRun], failures: &'a [CollectedFailure]) -> Runs<'a> {
            (
                results.iter().map(CollectedRun::ingest).collect(),
                failures.iter().map(CollectedFailure::failure).collect(),
            )
        }
        let per_session: Vec<Runs<'_>> = c
            .sessions
            .iter()
            .map(|s| runs(&s.results, &s.failures))
            .collect();
        let sessions: Vec<JobSession<'_>> = c
            .sessions
            .iter()
            .zip(&per_session)
            .map(|(s, (results, failures))| JobSession {
                session: s.new_session(),
                end: s.end,
                results,
                failures,
            })
            .collect();
        let (results, failures) = runs(&c.results, &c.failures);
        h.complete(
            job,
            &JobResults {
                sessions: &sessions,
                results: &results,
                failures: &failures,
            },
        )
        .map(|runs| runs.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> JobSettings {
        JobSettings {
            run: RunRequest {
                commands: vec!["mean=10ms".into()],
                executions: Some(3),
                warmup_executions: Some(0),
                seed: Some(Seed(5)),
                simulate: true,
                ..RunRequest::default()
            },
            ..JobSettings::default()
        }
    }

    struct NoArgv;
    impl JobRunner for NoArgv {
        fn argv_settings(&self, args: &[String]) -> std::result::Result<JobSettings, FarmError> {
            Err(FarmError::Argv(format!("{args:?}").into()))
        }
        fn executor(
            &mut self,
            _: bool,
            _: Seed,
        ) -> std::result::Result<(StopSignal, Box<dyn Executor>), RunError> {
            unreachable!("not measured here")
        }
    }

    fn claimed(spec: String) -> ClaimedJob {
        ClaimedJob {
            id: rigor_history::queue::JobId(1),
            claim: 1,
            attempt: 1,
            max_attempts: 3,
            waits: 0,
            class: "fast".into(),
            branch: "main".into(),
            format: JOB_FORMAT,
            spec,
        }
    }

    #[test]
    fn a_spec_reads_back_as_written_and_its_keys_ignore_what_is_not_measured() {
        let spec = JobSpec::new("fast", "main", vec!["c1".into(), "c2".into()], settings());
        let text = spec.encode().unwrap();
        let read = JobSpec::read(&claimed(text), &NoArgv).unwrap();
        assert_eq!(read, spec);
        // Exports, display and the command line do not change what is measured; the settings do.
        let mut shown = spec.clone();
        shown.settings.run.exports.json = Some("r.json".into());
        shown.settings.run.time_unit = Some(rigor_units::TimeUnit::Ms);
        shown.settings.run.origin.command_line = vec!["rigor".into(), "-r".into()];
        shown.commits = vec!["c2".into()];
        assert_eq!(
            shown.version_key("c2").unwrap(),
            spec.version_key("c2").unwrap()
        );
        assert_ne!(
            spec.version_key("c1").unwrap(),
            spec.version_key("c2").unwrap()
        );
        let mut more = spec.clone();
        more.settings.run.executions = Some(4);
        assert_ne!(
            more.version_key("c1").unwrap(),
            spec.version_key("c1").unwrap()
        );
        let mut other = spec.clone();
        other.class = "slow".into();
        assert_ne!(
            other.version_key("c1").unwrap(),
            spec.version_key("c1").unwrap()
        );
        // The job holds one key per version.
        let job = spec.job(3).unwrap();
        assert_eq!(job.keys.len(), 2);
        assert_eq!((job.format, job.max_attempts), (JOB_FORMAT, 3));
    }

    /// A spec of format 2 as this rigor writes it: a change to the spec's shape that breaks this
    /// test is a new format (raise [`JOB_FORMAT`] and keep reading this one).
    const FORMAT_2: &str = r#"{"format":2,"class":"fast","branch":"main","commits":["c1"],
        "settings":{"force":true,"project":null,"artifacts":["target/bench"],
        "run":{"commands":["mean=10ms"],"executions":3,"warmup_executions":0,"seed":5,
               "simulate":true,"output":"pipe","discard":{"count":2},"timeout":30.0,
               "iterations_from":"stderr","pattern":"t=(\\d+)","unit":"ms",
               "parameters":{"scan":null,"lists":[["n","1,2"]]},
               "hooks":{"prepare":"sync"},"comparison":{"threshold":0.02},
               "analysis":{"confidence":0.99},"origin":{"label":"nightly"}}}}"#;

    #[test]
    fn a_format_2_spec_reads_as_it_was_written() {
        let spec = JobSpec::read(&claimed(FORMAT_2.into()), &NoArgv).unwrap();
        assert_eq!((spec.format, spec.commits.len()), (2, 1));
        let s = &spec.settings;
        assert!(s.force);
        assert_eq!(s.artifacts, [PathBuf::from("target/bench")]);
        let r = &s.run;
        assert_eq!((r.executions, r.warmup_executions), (Some(3), Some(0)));
        assert_eq!(r.seed, Some(Seed(5)));
        assert_eq!(r.output, rigor_runner::OutputMode::Pipe);
        assert_eq!(r.discard, rigor_store::Discard::Count(2));
        assert_eq!(r.timeout, Some(rigor_units::Seconds(30.0)));
        assert_eq!(r.iterations_from, Some(rigor_runner::Stream::Stderr));
        assert_eq!(r.unit, rigor_units::TimeUnit::Ms);
        assert_eq!(r.parameters.lists, [("n".into(), "1,2".into())]);
        assert_eq!(r.hooks.prepare.as_deref(), Some("sync"));
        assert_eq!(r.comparison.threshold.get(), 0.02);
        assert_eq!(r.comparison.resamples, 10_000);
        assert_eq!(r.analysis.confidence.get(), 0.99);
        assert_eq!(r.origin.label.as_deref(), Some("nightly"));
    }

    #[test]
    fn newer_formats_are_refused_and_command_lines_go_to_the_front_end() {
        let newer = FORMAT_2.replacen("\"format\":2", "\"format\":3", 1);
        assert!(matches!(
            JobSpec::read(&claimed(newer), &NoArgv),
            Err(FarmError::NewerFormat { found: 3 })
        ));
        let argv = r#"{"commits":["c1"],"args":["--class","fast","--","mean=10ms"]}"#;
        let err = JobSpec::read(&claimed(argv.into()), &NoArgv).unwrap_err();
        assert!(matches!(err, FarmError::Argv(_)), "{err}");
        assert!(err.to_string().contains("\"--class\""), "{err}");
        assert!(matches!(
            JobSpec::read(&claimed("{".into()), &NoArgv),
            Err(FarmError::Damaged(_))
        ));
    }

    #[test]
    fn a_job_waits_twice_as_long_each_time_up_to_an_hour() {
        let s = WorkerSettings {
            url: String::new(),
            worker: "w".into(),
            class: "c".into(),
            lease: Duration::from_secs(60),
            poll: Duration::from_secs(10),
            exit_when_empty: false,
            max_jobs: None,
            place: WorkerPlace {
                repo: PathBuf::new(),
                results_dir: PathBuf::new(),
                checkouts: PathBuf::new(),
                keep: 1,
            },
        };
        assert_eq!(s.wait(0), Duration::from_secs(10));
        assert_eq!(s.wait(2), Duration::from_secs(40));
        assert_eq!(s.wait(100), LONGEST_WAIT);
    }

    /// Runs jobs with the simulator.
    struct Simulating;
    impl JobRunner for Simulating {
        fn argv_settings(&self, _: &[String]) -> std::result::Result<JobSettings, FarmError> {
            Ok(settings())
        }
        fn executor(
            &mut self,
            _: bool,
            seed: Seed,
        ) -> std::result::Result<(StopSignal, Box<dyn Executor>), RunError> {
            let executor = rigor_runner::SimulatedExecutor::new(seed);
            Ok((StopSignal::new(), Box::new(executor)))
        }
    }

    #[test]
    fn a_job_is_measured_in_one_session_or_waits_for_a_commit_its_clone_lacks() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .arg("-C")
                .arg(&repo)
                .args(args)
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            String::from_utf8(out.stdout).unwrap().trim().to_string()
        };
        git(&["init", "-q", "-b", "main"]);
        let mut commits = Vec::new();
        for i in 0..2 {
            git(&["commit", "-q", "--allow-empty", "-m", &format!("c{i}")]);
            commits.push(git(&["rev-parse", "HEAD"]));
        }
        let worker = WorkerSettings {
            url: String::new(),
            worker: "w".into(),
            class: "fast".into(),
            lease: Duration::from_secs(60),
            poll: Duration::from_secs(1),
            exit_when_empty: true,
            max_jobs: None,
            place: WorkerPlace {
                repo: repo.clone(),
                results_dir: dir.path().join("runs"),
                checkouts: dir.path().join("checkouts"),
                keep: 2,
            },
        };
        let mut s = settings();
        s.run.commands = vec!["mean=10ms,execution=3%,iteration=1%,iterations=4".into()];
        let spec = JobSpec::new("fast", "main", commits.clone(), s.clone());
        struct Quiet;
        impl WorkerObserver for Quiet {}
        let job = claimed(spec.encode().unwrap());
        let ending = run_job(&worker, &job, &mut Simulating, &mut Quiet, None);
        let JobEnding::Measured(c) = ending else {
            panic!("{ending:?}")
        };
        assert_eq!(c.sessions.len(), 1);
        let session = &c.sessions[0];
        assert_eq!(session.kind, SessionKind::Worker);
        assert_eq!(session.results.len(), 2);
        assert!(session.end.is_some() && c.results.is_empty());
        // A commit the clone lacks (it has no remote to fetch from): the job waits.
        let absent = "0123456789abcdef0123456789abcdef01234567".to_string();
        let spec = JobSpec::new("fast", "main", vec![commits[0].clone(), absent.clone()], s);
        let job = claimed(spec.encode().unwrap());
        let ending = run_job(&worker, &job, &mut Simulating, &mut Quiet, None);
        let JobEnding::Wait(FarmError::MissingCommits { commits, .. }) = &ending else {
            panic!("{ending:?}")
        };
        assert_eq!(commits, &[absent]);
        let why = ending.why().unwrap();
        assert!(
            why.starts_with("commit 0123456789ab not in the worker's clone")
                && why.ends_with("(after git fetch)"),
            "{why}"
        );
    }

    #[test]
    fn collected_runs_stay_with_their_session() {
        let mut c = Collected::default();
        let machine = MachineInfo {
            name: "fast".into(),
            environment: Default::default(),
        };
        let id = c
            .begin_session(&NewSession {
                machine: &machine,
                kind: SessionKind::Worker,
                started: jiff::Timestamp::now(),
                load_before: Some(1.0),
                rigor_version: "0",
            })
            .unwrap();
        let v = VersionInfo {
            rev: "c1".into(),
            ..Default::default()
        };
        let r = ResultFile::new(Seed(1), rigor_units::ConfidenceLevel::NINETY_FIVE);
        c.ingest(&Ingest {
            session: Some(id),
            role: Role::Anchor,
            ..Ingest::new(&v, &machine, "main", &r)
        })
        .unwrap();
        c.record_failure(&rigor_history::Failure {
            session: Some(id),
            ..rigor_history::Failure::new(&v, &machine, "main", "no build")
        })
        .unwrap();
        c.end_session(
            id,
            &SessionEnd {
                ended: jiff::Timestamp::now(),
                load_after: None,
            },
        )
        .unwrap();
        assert_eq!(c.sessions.len(), 1);
        let s = &c.sessions[0];
        assert_eq!((s.results.len(), s.failures.len()), (1, 1));
        assert_eq!(s.results[0].role, Role::Anchor);
        let end = s.end.unwrap();
        assert!(c.results.is_empty());
        assert!(c.end_session(SessionId(7), &end).is_err());
    }
}
