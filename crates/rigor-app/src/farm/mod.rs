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
//!
//! One module per part: the spec (`spec`), queuing (`enqueue`), what a job measured until it is
//! stored (`collected`), running a claimed job (`worker`), the worker's loop on the PostgreSQL
//! queue (`postgres`, the feature of that name), what the farm's commands take and show (`said`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rigor_history::queue::{ClaimedJob, Enqueue, Enqueued, JobQueue, NewJob};
use rigor_history::{
    ArtifactHash, HistoryError, HistoryRead, HistoryWrite, Ingest, Ingested, MachineInfo,
    NewSession, Role, RunId, SeriesKey, SessionEnd, SessionId, SessionKind, VersionInfo,
};
use rigor_report::notes::Note;
use rigor_runner::{Executor, StopSignal};
use rigor_store::ResultFile;
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

mod collected;
mod enqueue;
#[cfg(feature = "postgres")]
mod postgres;
mod said;
mod spec;
#[cfg(test)]
mod tests;
mod worker;

pub use collected::*;
pub use enqueue::*;
#[cfg(feature = "postgres")]
pub use postgres::work;
pub use said::*;
pub use spec::*;
pub use worker::*;
