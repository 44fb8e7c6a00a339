//! A job's spec: the versions of one comparison and how to measure them, as data.

use super::*;

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
        crate::track::check_until_known(&self.run)?;
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
