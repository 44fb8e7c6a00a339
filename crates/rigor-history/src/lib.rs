//! The history of a project's performance across versions.
//!
//! A history stores every ingested run whole — machines, versions (commits or labels), sessions
//! (one sitting of a machine in which runs are measured), runs with their settings and provenance,
//! every sample with its full hierarchy, per-benchmark summaries (the mean, its interval, the
//! variance of the mean and the top-level count) — and the changes detected over each benchmark's
//! series, with a status a user sets. Reading and writing are two traits: [`HistoryRead`] (series,
//! summaries, versions, changes, sessions) and [`HistoryWrite`] (what measuring stores: sessions,
//! runs, failures); a [`History`] is both, and also keeps the changes detection finds and removes
//! runs ([`History::remove_runs`]).
//!
//! [`SqliteHistory`] is the default backend (SQLite compiled in, WAL mode, one transaction per
//! ingest so a killed process leaves nothing partial); all of its SQL lives in [`sqlite`]. With
//! the cargo feature `postgres`, `PostgresHistory` keeps the same tables on a server that several
//! machines share, with the job queue of a benchmark farm beside them ([`queue`]). [`open`] picks
//! the backend from the location: a `postgres://` URL, else a file path.

mod error;
mod location;
mod merge;
mod migrate;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod queue;
mod remove;
mod rows;
pub mod sqlite;
#[cfg(feature = "postgres")]
mod tls;
mod types;

pub use error::{HistoryError, Result};
pub use location::{is_postgres_url, redact};
#[cfg(feature = "postgres")]
pub use postgres::PostgresHistory;
pub use queue::JobQueue;
pub use remove::{RemoveMode, Removed, RemovedRun, RunSelection, SelectRuns};
use rigor_units::Metric;
pub use sqlite::SqliteHistory;
pub use types::*;

/// Reading a history.
pub trait HistoryRead {
    /// Whether a version already has a run (measured or failed) in a series.
    fn has_run(&self, key: &SeriesKey, rev: &str) -> Result<bool>;

    /// The benchmarks measured (in runs that did not fail) for a version in a series.
    fn stored_benchmarks(&self, key: &SeriesKey, rev: &str) -> Result<Vec<String>>;

    /// The versions with runs in a series, in history order.
    fn versions(&self, key: &SeriesKey) -> Result<Vec<StoredVersion>>;

    /// The names of the benchmarks measured in a series.
    fn benchmarks(&self, key: &SeriesKey) -> Result<Vec<String>>;

    /// The series (machines and branches) that have runs.
    fn series_keys(&self) -> Result<Vec<SeriesKey>>;

    /// One benchmark's raw data per version, in history order (versions without it skipped;
    /// several runs of one version are merged, their rounds kept apart).
    fn series(&self, key: &SeriesKey, benchmark: &str) -> Result<Vec<VersionData>>;

    /// One version of [`HistoryRead::series`]: the benchmark's raw data in version `rev` (its
    /// runs merged), `None` when no measured run of that version has it. By default taken from
    /// the series; a backend reads that version alone.
    fn version_data(
        &self,
        key: &SeriesKey,
        benchmark: &str,
        rev: &str,
    ) -> Result<Option<VersionData>> {
        Ok(self
            .series(key, benchmark)?
            .into_iter()
            .find(|v| v.version.rev == rev))
    }

    /// One benchmark's raw data run by run (runs of one version not merged), oldest run first,
    /// with every execution's CPU times, peak memory and reported metrics: what the levels of a
    /// metric other than wall time are computed from.
    fn run_records(&self, key: &SeriesKey, benchmark: &str) -> Result<Vec<RunRecord>>;

    /// How much of its wall time each benchmark of each of `runs` had a CPU
    /// ([`rigor_store::CpuShare`], from its measured executions' CPU and wall times), in one
    /// read: what tells a candidate measured under contention from the runs it is compared with.
    /// Benchmarks whose executions recorded no CPU time are left out; so are unknown runs.
    fn cpu_shares(&self, runs: &[RunId]) -> Result<Vec<RunCpuShare>>;

    /// The stored summary (mean, interval and variance components from the run's own analysis,
    /// the variance of the mean and the top-level count from its samples) of every benchmark of
    /// every measured run in a series, in one read: what a dashboard draws without re-analysing
    /// raw samples. Ordered by run (oldest first).
    fn summaries(&self, key: &SeriesKey) -> Result<Vec<StoredSummary>> {
        self.summaries_from(key, RunId(i64::MIN))
    }

    /// [`HistoryRead::summaries`] of the runs whose id is `first` or later only: what a
    /// publisher that keeps the summaries it has read needs after new runs are stored.
    fn summaries_from(&self, key: &SeriesKey, first: RunId) -> Result<Vec<StoredSummary>>;

    /// What every version's level is computed from: each run's stored level of every benchmark
    /// of a series ([`StoredLevels`]), in one read, ordered by run. The same as
    /// [`HistoryRead::summaries`] without what levels do not need (a backend reads it faster;
    /// by default it is taken from the summaries).
    fn levels(&self, key: &SeriesKey) -> Result<StoredLevels> {
        Ok(StoredLevels::of_summaries(self.summaries(key)?))
    }

    /// The measured (not failed) runs in a series with their content hashes, in id order. Ids
    /// grow with every stored run but concurrent writers may commit them out of order, so a
    /// reader that wants what is new compares this list with the runs it knows rather than
    /// keeping the largest id; the hash tells a run from another history's run with the same id.
    fn measured_runs(&self, key: &SeriesKey) -> Result<Vec<RunStamp>>;

    /// Stored changes in history order (the oldest version first; one version's changes by
    /// benchmark name).
    fn changes(&self, filter: &ChangeFilter) -> Result<Vec<StoredChange>>;

    /// The sessions of the series' machine that stored runs on its branch, oldest first, each
    /// with those runs.
    fn sessions(&self, key: &SeriesKey) -> Result<Vec<StoredSession>>;
}

/// What measuring writes into a history: sessions, and the runs (or failures) measured in them.
pub trait HistoryWrite {
    /// Begins a session; its runs are stored with its id ([`Ingest::session`]).
    fn begin_session(&mut self, session: &NewSession<'_>) -> Result<SessionId>;

    /// Records how a session ended.
    fn end_session(&mut self, id: SessionId, end: &SessionEnd) -> Result<()>;

    /// Stores a result for a version on a machine and branch. Idempotent: a result already
    /// stored (same content) is not stored again.
    fn ingest(&mut self, run: &Ingest<'_>) -> Result<Ingested>;

    /// Records that a version could not be measured (e.g. its build failed), so that resumed
    /// runs skip it and the history shows it.
    fn record_failure(&mut self, failure: &Failure<'_>) -> Result<RunId>;
}

/// A store of runs across versions and machines: reading, writing, and the changes detected over
/// its series.
pub trait History: HistoryRead + HistoryWrite {
    /// Replaces the detected wall-time changes of one benchmark of a series
    /// ([`History::save_metric_changes`] of [`Metric::Wall`]).
    fn save_changes(
        &mut self,
        key: &SeriesKey,
        benchmark: &str,
        changes: &[NewChange],
    ) -> Result<()> {
        self.save_metric_changes(&DetectedChanges {
            series: key,
            benchmark,
            metric: &Metric::Wall,
            changes,
        })
    }

    /// Replaces the detected changes of one benchmark of a series in one metric: changes found
    /// again keep their status, changes no longer found are marked not current (the changes of
    /// the other metrics are left as they are).
    fn save_metric_changes(&mut self, detected: &DetectedChanges<'_>) -> Result<()>;

    /// Sets a change's status.
    fn set_status(&mut self, id: ChangeId, status: ChangeStatus) -> Result<()>;

    /// Removes a session's or a version's runs of a series (or only one benchmark of them), in
    /// one transaction: their samples, executions and stored benchmarks, the runs left with no
    /// benchmark (and failed runs, unless a benchmark is named), the sessions left without runs,
    /// and marks not current the changes of the removed benchmarks at the removed versions or
    /// against them. [`RemoveMode::DryRun`] does all of it in a transaction that is rolled back,
    /// to say what would go. Nothing selected is an empty [`Removed`].
    fn remove_runs(&mut self, selection: &RunSelection, mode: RemoveMode) -> Result<Removed>;

    /// Records what a change rests on now (confirmed or refuted by measuring both sides again
    /// together); later detections keep a confirmation or refutation.
    fn set_evidence(&mut self, id: ChangeId, evidence: Evidence) -> Result<()>;

    /// The reading half, for code that only reads.
    fn as_read(&self) -> &dyn HistoryRead;

    /// The writing half, for code that only stores measurements.
    fn as_write(&mut self) -> &mut dyn HistoryWrite;
}

/// Opens the history at `location`: a `postgres://…` URL (with the feature `postgres`; without
/// it, [`HistoryError::PostgresNotBuilt`]), else an SQLite file path.
pub fn open(location: &std::ffi::OsStr) -> Result<Box<dyn History + Send>> {
    match location.to_str().filter(|l| is_postgres_url(l)) {
        #[cfg(feature = "postgres")]
        Some(url) => Ok(Box::new(PostgresHistory::open(url)?)),
        #[cfg(not(feature = "postgres"))]
        Some(url) => Err(HistoryError::PostgresNotBuilt { url: redact(url) }),
        None => Ok(Box::new(SqliteHistory::open(std::path::Path::new(
            location,
        ))?)),
    }
}
