//! Queuing versions for a machine class (`rigor track enqueue`).

use super::*;

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
