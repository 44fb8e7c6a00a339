//! The error type of the store.

use std::path::PathBuf;

use thiserror::Error;

/// Errors reading or writing result files. Every variant names the file.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid JSON of the expected shape.
    #[error("{path}:{line}:{column}: {message}")]
    Json {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The file was written by a newer rigor.
    #[error("{path}: schema version {found} is newer than this rigor understands ({supported})")]
    SchemaVersion {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
    /// An older file could not be read into the current schema.
    #[error("{path}: a schema-version-{from} file that cannot be read: {message}")]
    Migration {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        from: u32,
        /// What is wrong.
        message: String,
    },
    /// A foreign result file (hyperfine, pyperf, JMH, ...) could not be read.
    #[error("{path}: {place}: {message}")]
    Import {
        /// The file.
        path: PathBuf,
        /// Where in it: a JSON path (`results[1].times[3]`), a line (`line 7`), or `top level`.
        place: String,
        /// What is wrong.
        message: String,
    },
    /// A CSV file could not be used.
    #[error("{path}:{line}: {message}")]
    Csv {
        /// The file.
        path: PathBuf,
        /// 1-based line (0 when the header is at fault before any record).
        line: u64,
        /// What is wrong.
        message: String,
    },
}

impl StoreError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn import(path: &std::path::Path, place: &str, message: impl Into<String>) -> Self {
        Self::Import {
            path: path.to_path_buf(),
            place: if place.is_empty() {
                "top level".into()
            } else {
                place.into()
            },
            message: message.into(),
        }
    }

    /// [`StoreError::json`] of the member at `member` (`benchmarks[0].samples[3].value`; `.`
    /// for the top level, said as nothing).
    pub(crate) fn json_at(path: &std::path::Path, member: String, e: &serde_json::Error) -> Self {
        let mut error = Self::json(path, e);
        if let Self::Json { message, .. } = &mut error {
            if member != "." && !e.is_eof() && !e.is_syntax() {
                *message = format!("{member}: {message}");
            }
        }
        error
    }

    pub(crate) fn json(path: &std::path::Path, e: &serde_json::Error) -> Self {
        Self::Json {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: {
                let message = e
                    .to_string()
                    .split(" at line ")
                    .next()
                    .unwrap_or_default()
                    .to_string();
                // serde_json's "EOF while parsing …": the file ends before its JSON does.
                if e.is_eof() {
                    format!("{message}: the file ends early (cut short?)")
                } else {
                    message
                }
            },
        }
    }
}

/// Shorthand for this crate's results.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
