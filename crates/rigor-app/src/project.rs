//! Where a project keeps rigor's files: the `.rigor/` folder of its history, found from any of
//! its subdirectories as git finds `.git/`.

use std::path::{Path, PathBuf};

/// The folder of a project's rigor files.
pub const RIGOR_DIR: &str = ".rigor";

/// The history's file name in it.
pub const HISTORY_FILE: &str = "history.db";

/// The project's `.rigor/` folder as seen from the current directory (relative to it): see
/// [`rigor_dir_from`]. When the current directory cannot be read, `.rigor` itself.
pub fn rigor_dir() -> PathBuf {
    match std::env::current_dir() {
        Ok(here) => rigor_dir_from(&here, Path::new("")),
        Err(_) => PathBuf::from(RIGOR_DIR),
    }
}

/// The history of the project `repo` is in (a directory as the user named it), found from it as
/// [`default_history`] is from the current directory; [`default_history`] itself where `repo`
/// is the current directory or cannot be read.
pub fn history_of(repo: &Path) -> PathBuf {
    if repo.as_os_str().is_empty() || repo == Path::new(".") {
        return default_history();
    }
    match std::fs::canonicalize(repo) {
        Ok(here) => rigor_dir_from(&here, repo).join(HISTORY_FILE),
        Err(_) => default_history(),
    }
}

/// The default history, `.rigor/history.db` of [`rigor_dir`].
pub fn default_history() -> PathBuf {
    rigor_dir().join(HISTORY_FILE)
}

/// The `.rigor/` folder of the project `here` (an absolute directory) is in, as a path from
/// `shown` (the same directory as the caller names it: `""` for the current one): walking up
/// from `here` to its git repository's root, the first folder with a `.rigor/history.db`; else
/// the repository root's `.rigor/` (where a command that makes a history makes it); outside a
/// repository, `here`'s `.rigor/`.
pub fn rigor_dir_from(here: &Path, shown: &Path) -> PathBuf {
    let Some(depth) = here.ancestors().position(|d| d.join(".git").exists()) else {
        return shown.join(RIGOR_DIR);
    };
    let up = here
        .ancestors()
        .take(depth)
        .position(|d| d.join(RIGOR_DIR).join(HISTORY_FILE).is_file())
        .unwrap_or(depth);
    let mut dir = shown.to_path_buf();
    for _ in 0..up {
        dir.push("..");
    }
    dir.join(RIGOR_DIR)
}

/// What rigor writes into a `.rigor/` folder it finds without one: git ignores everything in it
/// (measurements, the history, kept checkouts are not sources), as `.venv/` and
/// `.pytest_cache/` do, so that the user's own `.gitignore` need not be touched.
pub const GITIGNORE: &str =
    "# Made by rigor: measurements, the history and kept checkouts are not sources.\n*\n";

/// Keeps the `.rigor/` folder `path` is in (or is) out of git: writes [`GITIGNORE`] as its
/// `.gitignore` when the folder is there and has none. Best effort (a folder that cannot be
/// written to is reported by whatever writes into it); a path outside any `.rigor/` is left
/// alone, and an existing `.gitignore` is never changed.
pub fn keep_out_of_git(path: &Path) {
    let Some(dir) = path
        .ancestors()
        .find(|d| d.file_name() == Some(RIGOR_DIR.as_ref()))
    else {
        return;
    };
    let ignore = dir.join(".gitignore");
    if dir.is_dir() && !ignore.exists() {
        let _ = std::fs::write(ignore, GITIGNORE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_history_is_found_up_to_the_repository_root_and_made_there() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let deep = root.join("src/parser");
        std::fs::create_dir_all(&deep).unwrap();
        let shown = Path::new("");
        // Outside a repository: here, whatever history is above.
        std::fs::create_dir_all(root.join("src/.rigor")).unwrap();
        std::fs::write(root.join("src/.rigor/history.db"), b"").unwrap();
        assert_eq!(rigor_dir_from(&deep, shown), Path::new(".rigor"));
        std::fs::remove_dir_all(root.join("src/.rigor")).unwrap();
        // In one: its root's, whether or not a history is there yet.
        std::fs::create_dir(root.join(".git")).unwrap();
        assert_eq!(rigor_dir_from(&deep, shown), Path::new("../../.rigor"));
        assert_eq!(rigor_dir_from(&root, shown), Path::new(".rigor"));
        // A `.rigor/` without a history (a bench baseline's) is passed over; a history nearer
        // than the root is taken.
        std::fs::create_dir_all(deep.join(".rigor/baselines")).unwrap();
        assert_eq!(rigor_dir_from(&deep, shown), Path::new("../../.rigor"));
        std::fs::create_dir_all(root.join("src/.rigor")).unwrap();
        std::fs::write(root.join("src/.rigor/history.db"), b"").unwrap();
        assert_eq!(rigor_dir_from(&deep, shown), Path::new("../.rigor"));
        assert_eq!(
            rigor_dir_from(&deep, Path::new("/x/y")),
            Path::new("/x/y/../.rigor")
        );
        // A history above the repository's root is not the project's.
        std::fs::create_dir_all(dir.path().join(".rigor")).unwrap();
        std::fs::write(dir.path().join(".rigor/history.db"), b"").unwrap();
        assert_eq!(rigor_dir_from(&root, shown), Path::new(".rigor"));
    }

    #[test]
    fn a_rigor_folder_is_kept_out_of_git_and_a_users_gitignore_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let rigor = dir.path().join(".rigor");
        std::fs::create_dir_all(rigor.join("runs")).unwrap();
        keep_out_of_git(&rigor.join("runs/some.json"));
        assert_eq!(
            std::fs::read_to_string(rigor.join(".gitignore")).unwrap(),
            GITIGNORE
        );
        std::fs::write(rigor.join(".gitignore"), "mine\n").unwrap();
        keep_out_of_git(&rigor.join("history.db"));
        assert_eq!(
            std::fs::read_to_string(rigor.join(".gitignore")).unwrap(),
            "mine\n"
        );
        // Elsewhere (a --db or --save PATH of the user's): nothing written.
        let other = dir.path().join("results");
        std::fs::create_dir_all(&other).unwrap();
        keep_out_of_git(&other.join("h.db"));
        assert!(!other.join(".gitignore").exists());
        assert!(!dir.path().join(".gitignore").exists());
    }
}
