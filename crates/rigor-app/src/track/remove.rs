//! Removing a session's or a version's runs from a history (`rigor track rm`): the version the
//! user names found among the stored ones, the removal (or a dry run of it) in one transaction,
//! and the view `rigor_report::track::removed_text` draws.

use super::*;

use rigor_history::{RemoveMode, Removed, RunSelection, SelectRuns, SessionId};
use rigor_report::track::{RemovedRunView, RemovedView};

/// Which runs the user named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunsNamed {
    /// A session's (its id, as `track run` and the JSON outputs show it).
    Session(SessionId),
    /// A version's: its stored name, a prefix of a stored commit id, or a revision of the
    /// repository.
    Version(String),
}

/// What `rigor track rm` removes.
#[derive(Debug, Clone)]
pub struct RemoveRequest {
    /// The series.
    pub series: SeriesKey,
    /// The runs.
    pub runs: RunsNamed,
    /// Only this benchmark of them.
    pub benchmark: Option<String>,
    /// The repository a version's revision is resolved in.
    pub repo: PathBuf,
    /// Remove, or only say what would go.
    pub mode: RemoveMode,
}

/// Why nothing was removed.
#[derive(Debug, thiserror::Error)]
pub enum RemoveError {
    /// The selection names no stored run.
    #[error(
        "nothing to remove: {what} has no stored runs on {machine} ({branch}); `rigor track show` \
         lists a benchmark's versions, --machine and --branch choose the series"
    )]
    NothingSelected {
        /// The session, version or benchmark named.
        what: String,
        /// The series' machine.
        machine: String,
        /// The series' branch.
        branch: String,
    },
    /// A commit id's prefix that begins several stored versions.
    #[error("'{named}' begins several stored versions ({candidates}): give more of it")]
    Ambiguous {
        /// What the user gave.
        named: String,
        /// The stored versions it begins.
        candidates: String,
    },
    /// The history could not be read or written.
    #[error(transparent)]
    History(#[from] rigor_history::HistoryError),
}

/// The stored name of the version the user named in a series: the name itself, else the one
/// stored commit id it begins (four hexadecimal digits at least), else the commit it names in
/// `repo` (stored as itself, or under the label of a commit off the branch's first-parent line,
/// [`off_line_label`]). `None` when no stored version matches.
pub fn stored_version(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    named: &str,
    repo: &Path,
) -> std::result::Result<Option<String>, RemoveError> {
    let revs: Vec<String> = history
        .versions(key)?
        .into_iter()
        .map(|v| v.version.rev)
        .collect();
    if revs.iter().any(|r| r == named) {
        return Ok(Some(named.to_string()));
    }
    if named.len() >= 4 && named.bytes().all(|b| b.is_ascii_hexdigit()) {
        let begun: Vec<&String> = revs.iter().filter(|r| r.starts_with(named)).collect();
        match begun.as_slice() {
            [] => {}
            [one] => return Ok(Some(one.to_string())),
            many => {
                return Err(RemoveError::Ambiguous {
                    named: named.to_string(),
                    candidates: many
                        .iter()
                        .map(|r| r.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
    }
    let Ok(commit) = git::resolve(repo, named) else {
        return Ok(None);
    };
    let label = off_line_label(&commit.rev, &key.branch);
    Ok(revs.into_iter().find(|r| *r == commit.rev || *r == label))
}

/// Removes (or, with [`RemoveMode::DryRun`], says what would go of) the runs the request names.
/// Naming nothing stored is an error.
pub fn remove(
    history: &mut dyn History,
    request: &RemoveRequest,
) -> std::result::Result<Removed, RemoveError> {
    let key = &request.series;
    let nothing = |what: String| RemoveError::NothingSelected {
        what,
        machine: key.machine.clone(),
        branch: key.branch.clone(),
    };
    let (runs, what) = match &request.runs {
        RunsNamed::Session(id) => (SelectRuns::Session(*id), format!("session {id}")),
        RunsNamed::Version(named) => {
            let what = format!("version '{named}'");
            match stored_version(history.as_read(), key, named, &request.repo)? {
                Some(rev) => (SelectRuns::Version(rev), what),
                None => return Err(nothing(what)),
            }
        }
    };
    let selection = RunSelection {
        series: key.clone(),
        runs,
        benchmark: request.benchmark.clone(),
    };
    let removed = history.remove_runs(&selection, request.mode)?;
    if removed.is_empty() {
        return Err(nothing(match &request.benchmark {
            Some(b) => format!("'{b}' of {what}"),
            None => what,
        }));
    }
    Ok(removed)
}

/// A removal as `rigor_report::track::removed_text` shows it.
pub fn removed_view<'a>(
    removed: &'a Removed,
    key: &'a SeriesKey,
    mode: RemoveMode,
) -> RemovedView<'a> {
    RemovedView {
        dry_run: mode == RemoveMode::DryRun,
        machine: &key.machine,
        branch: &key.branch,
        runs: removed
            .runs
            .iter()
            .map(|r| RemovedRunView {
                id: r.id.0,
                rev: &r.rev,
                session: r.session.0,
                failed: r.failed,
                benchmarks: &r.benchmarks,
                samples: r.samples,
                whole: r.whole,
            })
            .collect(),
        sessions: removed.sessions.iter().map(|s| s.0).collect(),
        changes: removed.changes.iter().map(|c| c.0).collect(),
    }
}
