//! The git commands history tracking needs: resolving revisions with their graph facts, listing
//! a range along the first-parent line, and checking versions out into worktrees of their own
//! (never touching the user's working tree). Git is run directly, its arguments as words.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rigor_history::VersionInfo;

/// A git command that failed.
#[derive(Debug, thiserror::Error)]
#[error("git {args} (in {}): {message}", repo.display())]
pub struct GitError {
    /// The repository.
    pub repo: PathBuf,
    /// The arguments.
    pub args: String,
    /// What git said.
    pub message: String,
}

fn git(repo: &Path, args: &[&str]) -> Result<String, GitError> {
    let fail = |message: String| GitError {
        repo: repo.to_path_buf(),
        args: args.join(" "),
        message,
    };
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| fail(format!("cannot run git: {e}")))?;
    if !out.status.success() {
        return Err(fail(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_string())
}

/// A revision's commit and graph facts; its order is its first-parent generation (the number of
/// commits on its first-parent line), so versions of one branch sort by history.
pub fn resolve(repo: &Path, rev: &str) -> Result<VersionInfo, GitError> {
    let commit = commit_of(repo, rev)?;
    let fields = git(
        repo,
        &["show", "-s", "--format=%P%x00%an%x00%aI%x00%s", &commit],
    )?;
    let mut parts = fields.split('\0');
    let parents: Vec<String> = parts
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let author = parts.next().map(str::to_string);
    let time = parts.next().map(str::to_string);
    let subject = parts.next().map(str::to_string);
    let generation: i64 = git(repo, &["rev-list", "--first-parent", "--count", &commit])?
        .parse()
        .unwrap_or(0);
    Ok(VersionInfo {
        rev: commit.clone(),
        commit: Some(commit),
        parents,
        author,
        time,
        subject,
        order: Some(generation),
    })
}

/// The commits a user's revision list names, oldest first: `A..B` (along B's first-parent line,
/// A excluded), or single revisions as given.
pub fn commits(repo: &Path, specs: &[String]) -> Result<Vec<String>, GitError> {
    let mut out: Vec<String> = Vec::new();
    for spec in specs {
        if spec.contains("..") {
            let listed = git(repo, &["rev-list", "--reverse", "--first-parent", spec])?;
            out.extend(listed.lines().map(str::to_string));
        } else {
            out.push(commit_of(repo, spec)?);
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|c| seen.insert(c.clone()));
    Ok(out)
}

/// The commit a revision names; an unknown revision is said so.
fn commit_of(repo: &Path, rev: &str) -> Result<String, GitError> {
    let spec = format!("{rev}^{{commit}}");
    git(repo, &["rev-parse", "--verify", "--quiet", &spec]).map_err(|mut e| {
        if e.message.is_empty() {
            e.message = format!("unknown revision '{rev}' (not a commit of this repository)");
        }
        e
    })
}

/// The last `n` commits of `rev`'s first-parent line, oldest first.
pub fn last(repo: &Path, rev: &str, n: usize) -> Result<Vec<String>, GitError> {
    let listed = git(
        repo,
        &[
            "rev-list",
            "--first-parent",
            &format!("--max-count={n}"),
            rev,
        ],
    )?;
    let mut commits: Vec<String> = listed.lines().map(str::to_string).collect();
    commits.reverse();
    Ok(commits)
}

/// The commits of `rev`'s first-parent line since `date` (as git reads dates), oldest first.
pub fn since(repo: &Path, rev: &str, date: &str) -> Result<Vec<String>, GitError> {
    let listed = git(
        repo,
        &[
            "rev-list",
            "--reverse",
            "--first-parent",
            &format!("--since={date}"),
            rev,
        ],
    )?;
    Ok(listed.lines().map(str::to_string).collect())
}

/// The branch checked out in `repo`, if any.
pub fn current_branch(repo: &Path) -> Option<String> {
    git(repo, &["symbolic-ref", "--quiet", "--short", "HEAD"]).ok()
}

/// A version checked out in a worktree of its own; removed (with `git worktree remove`) when
/// dropped.
#[derive(Debug)]
pub struct Worktree {
    repo: PathBuf,
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Worktree {
    /// Checks `commit` out (detached) into a new temporary directory.
    pub fn add(repo: &Path, commit: &str) -> Result<Self, GitError> {
        let dir = tempfile::Builder::new()
            .prefix("rigor-track-")
            .tempdir()
            .map_err(|e| GitError {
                repo: repo.to_path_buf(),
                args: "worktree add".into(),
                message: format!("cannot make a directory: {e}"),
            })?;
        let path = dir.path().join("src");
        let path_text = path.display().to_string();
        git(
            repo,
            &["worktree", "add", "--detach", "--quiet", &path_text, commit],
        )?;
        Ok(Self {
            repo: repo.to_path_buf(),
            path,
            _dir: dir,
        })
    }

    /// Where the version is checked out.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Worktree {
    fn drop(&mut self) {
        let path = self.path.display().to_string();
        let _ = git(&self.repo, &["worktree", "remove", "--force", &path]);
    }
}
