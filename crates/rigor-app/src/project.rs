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
}
