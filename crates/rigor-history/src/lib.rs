//! The history of a project's performance across versions.
//!
//! A [`History`] stores every ingested run whole — machines, versions (commits or labels), runs
//! with their settings and provenance, every sample with its full hierarchy, per-benchmark
//! summaries — and the changes detected over each benchmark's series, with a status a user sets.
//! [`SqliteHistory`] is the default backend (SQLite compiled in, WAL mode, one transaction per
//! ingest so a killed process leaves nothing partial); all of its SQL lives in [`sqlite`].
//! [`PostgresHistory`] keeps the same tables on a server that several machines share, with the
//! job queue of a benchmark farm beside them ([`JobQueue`]). [`open`] picks the backend from the
//! location: a `postgres://` URL, else a file path.

mod error;
mod merge;
pub mod postgres;
pub mod queue;
pub mod sqlite;
mod tls;
mod types;

pub use error::{HistoryError, Result};
pub use postgres::PostgresHistory;
pub use queue::JobQueue;
pub use sqlite::SqliteHistory;
pub use types::*;

/// A store of runs across versions and machines.
pub trait History {
    /// Stores a result for a version on a machine and branch. Idempotent: a result already
    /// stored (same content) is not stored again.
    fn ingest(&mut self, run: &Ingest<'_>) -> Result<Ingested>;

    /// Records that a version could not be measured (e.g. its build failed), so that resumed
    /// runs skip it and the history shows it.
    fn record_failure(
        &mut self,
        version: &VersionInfo,
        machine: &MachineInfo,
        branch: &str,
        reason: &str,
    ) -> Result<RunId>;

    /// Whether a version already has a run (measured or failed) on a machine and branch.
    fn has_run(&self, rev: &str, machine: &str, branch: &str) -> Result<bool>;

    /// The benchmarks measured (in runs that did not fail) for a version on a machine and branch.
    fn stored_benchmarks(&self, rev: &str, machine: &str, branch: &str) -> Result<Vec<String>>;

    /// The versions with runs on a machine and branch, in history order.
    fn versions(&self, machine: &str, branch: &str) -> Result<Vec<StoredVersion>>;

    /// The names of the benchmarks measured on a machine and branch.
    fn benchmarks(&self, machine: &str, branch: &str) -> Result<Vec<String>>;

    /// The machines and branches that have runs.
    fn series_keys(&self) -> Result<Vec<(String, String)>>;

    /// One benchmark's raw data per version, in history order (versions without it skipped;
    /// several runs of one version are merged, their rounds kept apart).
    fn series(&self, machine: &str, branch: &str, benchmark: &str) -> Result<Vec<VersionData>>;

    /// The stored summary (mean and interval from the run's own analysis, variance components)
    /// of every benchmark of every measured run on a machine and branch, in one read: what a
    /// dashboard draws without re-analysing raw samples. Ordered by run (oldest first).
    fn summaries(&self, machine: &str, branch: &str) -> Result<Vec<StoredSummary>> {
        self.summaries_from(machine, branch, RunId(i64::MIN))
    }

    /// [`History::summaries`] of the runs whose id is `first` or later only: what a publisher
    /// that keeps the summaries it has read needs after new runs are stored.
    fn summaries_from(
        &self,
        machine: &str,
        branch: &str,
        first: RunId,
    ) -> Result<Vec<StoredSummary>>;

    /// The measured (not failed) runs on a machine and branch with their content hashes, in id
    /// order. Ids grow with every stored run but concurrent writers may commit them out of
    /// order, so a reader that wants what is new compares this list with the runs it knows
    /// rather than keeping the largest id; the hash tells a run from another history's run
    /// with the same id.
    fn measured_runs(&self, machine: &str, branch: &str) -> Result<Vec<RunStamp>>;

    /// Replaces the detected changes of one series: changes found again keep their status,
    /// changes no longer found are marked not current.
    fn save_changes(
        &mut self,
        machine: &str,
        branch: &str,
        benchmark: &str,
        changes: &[NewChange],
    ) -> Result<()>;

    /// Stored changes in history order (the oldest version first; one version's changes by
    /// benchmark name).
    fn changes(&self, filter: &ChangeFilter) -> Result<Vec<StoredChange>>;

    /// Sets a change's status.
    fn set_status(&mut self, id: i64, status: ChangeStatus) -> Result<()>;
}

/// Opens the history at `location`: a `postgres://…` URL, else an SQLite file path.
pub fn open(location: &std::ffi::OsStr) -> Result<Box<dyn History + Send>> {
    match location.to_str().filter(|l| postgres::is_postgres_url(l)) {
        Some(url) => Ok(Box::new(PostgresHistory::open(url)?)),
        None => Ok(Box::new(SqliteHistory::open(std::path::Path::new(
            location,
        ))?)),
    }
}
