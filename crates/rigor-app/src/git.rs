//! The git commands history tracking needs: resolving revisions with their graph facts, listing
//! a range along the first-parent line, and checking versions out into worktrees of their own
//! (never touching the user's working tree). Git is run directly, its arguments as words.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rigor_history::VersionInfo;

/// A git command that failed, or a revision that names no commit.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// Git failed.
    #[error("git {args} (in {}): {message}", repo.display())]
    Failed {
        /// The repository.
        repo: PathBuf,
        /// The arguments.
        args: String,
        /// What git said.
        message: String,
    },
    /// A revision the user gave names no commit (said once, in rigor's words, instead of git's
    /// advice for its own command line).
    #[error(
        "unknown revision '{rev}'{}: not a commit of the repository {}",
        range.as_ref().map_or(String::new(), |r| format!(" in the range '{r}'")),
        repo.display()
    )]
    UnknownRevision {
        /// The repository.
        repo: PathBuf,
        /// The revision.
        rev: String,
        /// The range it is an end of, when it is one.
        range: Option<String>,
    },
    /// The folder is not in a git repository.
    #[error(
        "{} is not in a git repository: `rigor track run` and `bisect` measure a repository's \
         commits (give --repo DIR); results measured elsewhere are stored with `rigor track add`",
        repo.display()
    )]
    NotARepository {
        /// The folder.
        repo: PathBuf,
    },
}

/// Checks that `repo` is in a git repository with at least one commit, before anything is made
/// for it.
pub fn check_repository(repo: &Path) -> Result<(), GitError> {
    git(repo, &["rev-parse", "--git-dir"])
        .map(drop)
        .map_err(|_| GitError::NotARepository {
            repo: repo.canonicalize().unwrap_or_else(|_| repo.to_path_buf()),
        })
}

/// Runs git in `repo` with `args` as words; its standard output, trimmed at the end.
pub(crate) fn run(repo: &Path, args: &[&str]) -> Result<String, GitError> {
    git(repo, args)
}

fn git(repo: &Path, args: &[&str]) -> Result<String, GitError> {
    let fail = |message: String| GitError::Failed {
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
    // Strict ISO 8601 from git; a time it prints that does not parse is left out.
    let time = parts.next().and_then(|t| t.parse().ok());
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
/// A excluded; an empty end is `HEAD`, as git reads it), or single revisions as given. Each end
/// of a range is resolved first, so that a bad one is an error naming it and its range.
pub fn commits(repo: &Path, specs: &[String]) -> Result<Vec<String>, GitError> {
    let mut out: Vec<String> = Vec::new();
    for spec in specs {
        if let Some((from, to)) = spec.split_once("..") {
            let to = to.strip_prefix('.').unwrap_or(to);
            let end = |rev: &str| -> Result<String, GitError> {
                let rev = if rev.is_empty() { "HEAD" } else { rev };
                commit_of(repo, rev).map_err(|e| match e {
                    GitError::UnknownRevision { repo, rev, .. } => GitError::UnknownRevision {
                        repo,
                        rev,
                        range: Some(spec.clone()),
                    },
                    other => other,
                })
            };
            let range = format!("{}..{}", end(from)?, end(to)?);
            let listed = git(repo, &["rev-list", "--reverse", "--first-parent", &range])?;
            out.extend(listed.lines().map(str::to_string));
        } else {
            out.push(commit_of(repo, spec)?);
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|c| seen.insert(c.clone()));
    Ok(out)
}

/// The first parent of `commit`, `None` for a root commit.
pub fn first_parent(repo: &Path, commit: &str) -> Option<String> {
    commit_of(repo, &format!("{commit}^1")).ok()
}

/// The commit a revision names; an unknown revision (or anything git cannot read as one) is said
/// so in rigor's words.
fn commit_of(repo: &Path, rev: &str) -> Result<String, GitError> {
    let spec = format!("{rev}^{{commit}}");
    git(repo, &["rev-parse", "--verify", "--quiet", &spec]).map_err(|e| match e {
        GitError::Failed { message, .. } if message.starts_with("cannot run git") => {
            GitError::Failed {
                repo: repo.to_path_buf(),
                args: format!("rev-parse {spec}"),
                message,
            }
        }
        _ => GitError::UnknownRevision {
            repo: repo.to_path_buf(),
            rev: rev.to_string(),
            range: None,
        },
    })
}

/// The last `n` commits of `rev`'s first-parent line, oldest first.
pub fn last(repo: &Path, rev: &str, n: usize) -> Result<Vec<String>, GitError> {
    let rev = &commit_of(repo, rev)?;
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
    let rev = &commit_of(repo, rev)?;
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

/// Whether `repo` holds the commit `commit` (a full id) names.
pub fn has_commit(repo: &Path, commit: &str) -> bool {
    git(repo, &["cat-file", "-e", &format!("{commit}^{{commit}}")]).is_ok()
}

/// Fetches from the repository's default remote (`git fetch`: the current branch's upstream
/// remote, else `origin`), quietly.
pub fn fetch(repo: &Path) -> Result<(), GitError> {
    git(repo, &["fetch", "--quiet"]).map(drop)
}

/// Whether `commit` is on `branch`'s first-parent line (its tip, or a first parent of one on
/// it, back to the root); `None` when neither `branch` nor `origin/branch` names a commit of
/// `repo` (a series named after no branch of it).
pub fn on_first_parent_line(
    repo: &Path,
    commit: &str,
    branch: &str,
) -> Result<Option<bool>, GitError> {
    let Some(tip) = [branch.to_string(), format!("origin/{branch}")]
        .iter()
        .find_map(|b| commit_of(repo, b).ok())
    else {
        return Ok(None);
    };
    let generation = |rev: &str| -> Result<usize, GitError> {
        let n = git(repo, &["rev-list", "--first-parent", "--count", rev])?;
        n.parse().map_err(|_| GitError::Failed {
            repo: repo.to_path_buf(),
            args: format!("rev-list --first-parent --count {rev}"),
            message: format!("not a count: '{n}'"),
        })
    };
    let (at_tip, at_commit) = (generation(&tip)?, generation(commit)?);
    let Some(back) = at_tip.checked_sub(at_commit) else {
        return Ok(Some(false));
    };
    // The commit of the line as many generations back from the tip as the commit is younger.
    let there = git(
        repo,
        &[
            "rev-list",
            "--first-parent",
            "--max-count=1",
            &format!("--skip={back}"),
            &tip,
        ],
    )?;
    Ok(Some(there == commit))
}
