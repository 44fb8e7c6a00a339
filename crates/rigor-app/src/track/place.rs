//! Where a `track` command's history is (`--db`, `RIGOR_DB`, or the project's), which commands
//! need an existing one, where measured versions' files go, and the series a command means.

use super::*;

/// Where a `track` command's history is, and which commands need what of it.
#[derive(Debug, Clone)]
pub struct HistoryPlace {
    /// `--db`/`RIGOR_DB`: a file, or a PostgreSQL URL.
    pub db: PathBuf,
}

/// What a `track` command does with its history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access<'a> {
    /// Reads it: a file must exist.
    Read,
    /// Stores measurements: a file is made when missing.
    Write,
    /// Measures versions of this repository (checked before a file is made), or of a simulated
    /// project (`None`), and stores them.
    Measure(Option<&'a Path>),
}

impl HistoryPlace {
    /// `db` (`--db`/`RIGOR_DB`), else the project's history found from the current directory
    /// ([`crate::project::default_history`]).
    pub fn new(db: Option<PathBuf>) -> Self {
        Self {
            db: db.unwrap_or_else(crate::project::default_history),
        }
    }

    /// `db`, else the history of the project `repo` is in (`--repo`,
    /// [`crate::project::history_of`]): a command pointed at a repository from elsewhere
    /// finds the history that repository's own commands find.
    pub fn of_repo(db: Option<PathBuf>, repo: &Path) -> Self {
        Self {
            db: db.unwrap_or_else(|| crate::project::history_of(repo)),
        }
    }

    /// The PostgreSQL URL it is, if it is one.
    pub fn url(&self) -> Option<&str> {
        self.db
            .to_str()
            .filter(|l| rigor_history::is_postgres_url(l))
    }

    /// The farm's job queue: the PostgreSQL URL, else why there is none.
    pub fn queue(&self) -> Result<&str> {
        self.url()
            .ok_or_else(|| rigor_history::HistoryError::NoQueue(self.db.clone()).into())
    }

    /// The job queue `rigor track status` shows without a change's id.
    pub fn status_queue(&self) -> Result<&str> {
        self.url()
            .ok_or_else(|| TrackError::NoJobQueue(self.db.clone()).into())
    }

    /// The history as messages name it (a server's password hidden).
    pub fn shown(&self) -> String {
        self.url()
            .map_or_else(|| self.db.display().to_string(), rigor_history::redact)
    }

    /// Where measured versions' result files go without `--export-json`: `runs/` beside the
    /// history file (`.rigor/runs` for the default `.rigor/history.db`), or for a server the
    /// project's `.rigor/runs` (found as the default history is,
    /// [`crate::project::rigor_dir`]).
    pub fn results_dir(&self) -> PathBuf {
        results_dir(self.url().is_none().then_some(self.db.as_path()))
    }

    /// Opens the history for `access`: a file that only a reading command would open must
    /// exist (a server's database is made by whoever runs the server), and a repository to
    /// measure is checked before the file is made.
    pub fn open(&self, access: Access<'_>) -> Result<Box<dyn History + Send>> {
        if self.url().is_none() && access == Access::Read && !self.db.exists() {
            return Err(AppError::NoHistory(self.db.clone()));
        }
        if let Access::Measure(Some(repo)) = access {
            git::check_repository(repo)?;
        }
        let history = rigor_history::open(self.db.as_os_str())?;
        if self.url().is_none() {
            crate::project::keep_out_of_git(&self.db);
        }
        Ok(history)
    }

    /// Whether opening it for `access` makes a file that is not there yet (for
    /// [`HistoryPlace::remove_if_empty`]).
    pub fn makes_file(&self, access: Access<'_>) -> bool {
        self.url().is_none() && access != Access::Read && !self.db.exists()
    }

    /// Removes the history file, and SQLite's journal files beside it, when it holds nothing:
    /// for a command that made it and was then refused before storing anything (a `--build`
    /// naming {build_dir} without `--builds` left an empty file). Best effort: what is left is
    /// an empty history, which the next command opens as it is.
    pub fn remove_if_empty(&self, history: Box<dyn History + Send>) {
        if !history.series_keys().is_ok_and(|k| k.is_empty()) {
            return;
        }
        drop(history);
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut path = self.db.as_os_str().to_owned();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Where measured versions' result files go: `runs/` beside a history file, else the project's
/// `.rigor/runs`.
pub fn results_dir(history_file: Option<&Path>) -> PathBuf {
    history_file
        .and_then(Path::parent)
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(
            || crate::project::rigor_dir().join("runs"),
            |dir| dir.join("runs"),
        )
}

/// The series a command means: `machine` (else this host) and `branch` (else `repo`'s current
/// branch, else "main").
pub fn series_key(machine: Option<&str>, branch: Option<&str>, repo: &Path) -> SeriesKey {
    SeriesKey {
        machine: this_machine(machine).name,
        branch: branch
            .map(str::to_string)
            .or_else(|| git::current_branch(repo))
            .unwrap_or_else(|| "main".to_string()),
    }
}
