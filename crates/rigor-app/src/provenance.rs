//! Where a result came from: times, the command line, a label and the git commit of the working
//! directory.

use std::path::Path;
use std::process::{Command, Stdio};

use rigor_store::{GitState, Provenance};

use crate::settings::Origin;

/// The provenance of a run starting now.
pub fn starting(origin: &Origin) -> Provenance {
    Provenance {
        started: Some(jiff::Timestamp::now()),
        ended: None,
        load_before: None,
        load_after: None,
        others_cpus: None,
        command_line: origin.command_line.clone(),
        label: origin.label.clone(),
        git: origin.working_dir.as_deref().and_then(git_state),
        imported_from: None,
        versions: origin.versions.clone(),
    }
}

/// The commit checked out in `dir` and whether tracked files changed, when `dir` is in a git
/// repository and git is installed; `None` otherwise (never an error: provenance is best effort).
pub fn git_state(dir: &Path) -> Option<GitState> {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let commit = git(&["rev-parse", "--verify", "HEAD"])?;
    if commit.is_empty() {
        return None;
    }
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(GitState { commit, dirty })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_repository_no_commit() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(git_state(dir.path()), None);
    }

    #[test]
    fn a_repository_gives_its_commit() {
        let dir = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| {
            Command::new("git")
                .args(args)
                .current_dir(dir.path())
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false)
        };
        if !run(&["init", "-q"]) {
            eprintln!("git is not installed: skipped");
            return;
        }
        std::fs::write(dir.path().join("f"), "1").unwrap();
        assert!(run(&["add", "f"]));
        assert!(run(&["commit", "-qm", "one"]));
        let state = git_state(dir.path()).expect("a commit");
        assert_eq!(state.commit.len(), 40);
        assert!(!state.dirty);
        std::fs::write(dir.path().join("f"), "2").unwrap();
        assert!(git_state(dir.path()).unwrap().dirty);
    }
}
