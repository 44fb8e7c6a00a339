//! The error type of the history.

use std::path::PathBuf;

use thiserror::Error;

use crate::queue::JobId;
use crate::types::{ChangeId, SessionId};

/// What can go wrong with a history. Variants about the database name its file (or URL, without
/// its password).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// The database could not be opened, read or written.
    #[error("{}", path.display())]
    Database {
        /// The database file.
        path: PathBuf,
        /// The database's error.
        #[source]
        source: rusqlite::Error,
    },
    /// The PostgreSQL server refused or failed (the URL is shown without its password).
    #[cfg(feature = "postgres")]
    #[error("{url}")]
    Postgres {
        /// The database URL, password removed.
        url: String,
        /// The client's error.
        #[source]
        source: postgres::Error,
    },
    /// A PostgreSQL URL was given to a build without the PostgreSQL backend.
    #[error(
        "{url}: this build of rigor has no PostgreSQL support (it is the cargo feature `postgres`); use an SQLite file, or a rigor built with it"
    )]
    PostgresNotBuilt {
        /// The database URL, password removed.
        url: String,
    },
    /// The database password could not be read safely.
    #[error("{url}: {message}")]
    Credentials {
        /// The database URL, password removed.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// TLS to the server could not be set up.
    #[error("{url}: TLS: {message}")]
    Tls {
        /// The database URL, password removed.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// The job queue needs a PostgreSQL history.
    #[error("{0}: the job queue needs a PostgreSQL history (--db postgres://…)")]
    NoQueue(PathBuf),
    /// A job's claim was lost (its lease ran out and another worker took it): its results were
    /// not stored, the other worker's will be.
    #[error("job {0}: the lease was lost to another worker; its results are not stored")]
    LeaseLost(JobId),
    /// The database was written by a newer rigor.
    #[error(
        "{}: history schema version {found} is newer than this rigor understands ({supported}); use a newer rigor",
        path.display()
    )]
    SchemaTooNew {
        /// The database file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The newest this build knows.
        supported: i64,
    },
    /// A stored value could not be decoded (a damaged database).
    #[error("{}: stored {what} is damaged: {message}", path.display())]
    Damaged {
        /// The database file.
        path: PathBuf,
        /// What was being read.
        what: &'static str,
        /// Why it could not be.
        message: String,
    },
    /// No change has this id.
    #[error("no change has id {0}")]
    NoSuchChange(ChangeId),
    /// No session has this id.
    #[error("no session has id {0}")]
    NoSuchSession(SessionId),
    /// A run was stored into a session of another machine.
    #[error("session {session} is not on machine '{machine}': a session's runs are of its machine")]
    SessionOnOtherMachine {
        /// The session.
        session: SessionId,
        /// The run's machine.
        machine: String,
    },
    /// A name that is none of a set's (a change status, a session kind, a run role, …).
    #[error("'{value}' is not a {what} ({expected})")]
    BadName {
        /// What was named.
        what: &'static str,
        /// The name given.
        value: String,
        /// The names there are.
        expected: String,
    },
}

/// Shorthand for this crate's results.
pub type Result<T, E = HistoryError> = std::result::Result<T, E>;
