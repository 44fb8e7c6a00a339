//! The error type of the runner.

use std::path::PathBuf;

use thiserror::Error;

/// What can stop an experiment or an execution from being measured.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RunError {
    /// A command line could not be split into words.
    #[error("cannot parse command '{command}': {reason}")]
    BadCommand {
        /// The command as given.
        command: String,
        /// Why it could not be split.
        reason: String,
    },
    /// The program could not be started at all.
    #[error("cannot start '{program}': {source}")]
    Spawn {
        /// The program that failed to start.
        program: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// Waiting for or controlling a child process failed.
    #[error("cannot wait for '{program}': {source}")]
    Wait {
        /// The program being waited for.
        program: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A file the runner needs (input, capture, samples file) could not be used.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A simulation specification was malformed.
    #[error("bad simulation spec '{spec}': {reason}")]
    BadSimulation {
        /// The specification as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A setting was invalid.
    #[error("invalid setting: {0}")]
    Setting(String),
}
