//! Built checkouts of a repository's commits, kept between commands: `rigor track run`,
//! `bisect` and `check --candidate` build each commit once in a worktree of its own and reuse
//! it while it is kept, and what each build produced is hashed, so versions whose builds are
//! byte-identical can be told apart from versions that changed the program.
//!
//! The checkouts live in one folder (by default `.rigor/checkouts` beside the history), one
//! git worktree per commit and preparation command, each with a marker file written once its
//! preparation succeeded. A checkout being made has a name that says so and carries its maker's
//! process id; a command that starts removes those whose maker is gone (a killed predecessor's
//! half-made checkouts) and lets git forget worktrees whose folders are gone (`git worktree
//! prune`), so a killed run leaves nothing behind for long. At most `keep` ready checkouts are
//! kept, the least recently used removed first.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rigor_history::VersionInfo;
use rigor_runner::{CommandLine, StopSignal};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::git::{self, GitError};

/// The marker of a ready checkout.
const MARKER: &str = "rigor-checkout.json";
/// What a checkout being made has in its name, before its maker's process id.
const PARTIAL: &str = ".partial-";

/// What a ready checkout records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Marker {
    /// The commit checked out.
    commit: String,
    /// The preparation command run in it, as text.
    prepare: Option<String>,
    /// What the build produced, hashed (hex), when anything was hashed.
    artifact: Option<String>,
    /// The paths hashed, relative to the checkout.
    hashed: Vec<PathBuf>,
}

/// Which files are "what a build produces".
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Artifacts {
    /// Nothing is hashed: versions are never taken for identical.
    #[default]
    None,
    /// These paths, relative to the checkout (files, or folders hashed whole).
    Paths(Vec<PathBuf>),
    /// The benchmarked program, when the first word of the command names a file in the checkout.
    Program(CommandLine),
}

/// A commit checked out and prepared.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkout {
    /// Where it is checked out.
    pub path: PathBuf,
    /// The hash of what its build produced, when anything was hashed.
    pub artifact: Option<[u8; 32]>,
    /// Whether an earlier command had made it.
    pub reused: bool,
}

/// Why a commit could not be checked out or prepared: the version is recorded as failed with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckoutFailure {
    /// Git could not check it out.
    #[error("checkout failed: {0}")]
    Checkout(String),
    /// The preparation (build) command failed or could not start.
    #[error("{0}")]
    Build(String),
}

/// The kept checkouts of one repository.
#[derive(Debug)]
pub struct Checkouts {
    repo: PathBuf,
    dir: PathBuf,
    keep: usize,
}

fn io_error(repo: &Path, what: &str, e: std::io::Error) -> GitError {
    GitError::Failed {
        repo: repo.to_path_buf(),
        args: what.to_string(),
        message: e.to_string(),
    }
}

/// Whether a process with this id is alive (Linux: its `/proc` entry exists; elsewhere every
/// process is taken for alive, so nothing of a running command is ever removed).
fn alive(pid: u32) -> bool {
    if !Path::new("/proc/self").exists() {
        return true;
    }
    Path::new(&format!("/proc/{pid}")).exists()
}

impl Checkouts {
    /// Opens (making it when missing) the folder of kept checkouts of `repo`, keeping at most
    /// `keep` ready ones; removes what killed predecessors left half-made and lets git forget
    /// worktrees whose folders are gone.
    pub fn open(repo: &Path, dir: &Path, keep: usize) -> Result<Self, GitError> {
        fs::create_dir_all(dir).map_err(|e| io_error(repo, "mkdir", e))?;
        crate::project::keep_out_of_git(dir);
        // Absolute: git (run in the repository) and the builds (run in a checkout) read the
        // paths from other directories than the one a relative path was given from.
        let dir = std::path::absolute(dir).map_err(|e| io_error(repo, "absolute path", e))?;
        // The checkouts are git worktrees inside the project: a `git add -A` took them for
        // embedded repositories, and `git status` listed them. The folder ignores itself.
        let ignore = dir.join(GITIGNORE);
        if !ignore.exists() {
            fs::write(
                &ignore,
                "# rigor's checkouts of other revisions: not part of the project\n*\n",
            )
            .map_err(|e| io_error(repo, "write .gitignore", e))?;
        }
        let store = Self {
            repo: repo.to_path_buf(),
            dir,
            keep: keep.max(1),
        };
        store.prune()?;
        Ok(store)
    }

    /// Removes half-made checkouts whose maker is gone, forgets missing worktrees, and keeps at
    /// most `keep` ready checkouts.
    fn prune(&self) -> Result<(), GitError> {
        for entry in fs::read_dir(&self.dir).map_err(|e| io_error(&self.repo, "read_dir", e))? {
            let Ok(entry) = entry else { continue };
            let name = entry.file_name().to_string_lossy().to_string();
            // A failed build's output is kept for the user (a file, no checkout).
            if name == GITIGNORE || name.ends_with(BUILD_LOG) {
                continue;
            }
            let orphan = match name.split_once(PARTIAL) {
                Some((_, pid)) => pid.parse::<u32>().is_ok_and(|p| !alive(p)),
                None => !entry.path().join(MARKER).exists(),
            };
            if orphan {
                self.remove(&entry.path());
            }
        }
        let _ = git::run(&self.repo, &["worktree", "prune"]);
        self.evict(None);
        Ok(())
    }

    /// Removes ready checkouts beyond `keep`, least recently used first, never `spare`.
    fn evict(&self, spare: Option<&Path>) {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return;
        };
        let mut ready: Vec<(SystemTime, PathBuf)> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| Some(p.as_path()) != spare)
            .filter_map(|p| {
                let used = fs::metadata(p.join(MARKER))
                    .and_then(|m| m.modified())
                    .ok()?;
                Some((used, p))
            })
            .collect();
        let keep = self.keep.saturating_sub(usize::from(spare.is_some()));
        if ready.len() <= keep {
            return;
        }
        ready.sort();
        let excess = ready.len() - keep;
        for (_, path) in ready.into_iter().take(excess) {
            self.remove(&path);
        }
    }

    /// Removes a checkout: its worktree (git forgets it) and its folder.
    fn remove(&self, path: &Path) {
        let text = path.display().to_string();
        let _ = git::run(&self.repo, &["worktree", "remove", "--force", &text]);
        let _ = fs::remove_dir_all(path);
    }

    /// The folder a commit prepared by `prepare` is kept in.
    fn path_of(&self, commit: &str, prepare: Option<&CommandLine>) -> PathBuf {
        let key = Sha256::digest(
            prepare
                .map(CommandLine::text)
                .unwrap_or_default()
                .as_bytes(),
        );
        let short: String = commit.chars().take(12).collect();
        self.dir.join(format!("{short}-{}", hex(&key[..4])))
    }

    /// The version checked out and prepared: the kept checkout when there is one, else a new one
    /// (prepared with `prepare`, `{src}` replaced by its folder, and what `artifacts` names
    /// hashed). A version that cannot be checked out or prepared leaves nothing behind.
    pub fn get(
        &self,
        version: &VersionInfo,
        prepare: Option<&CommandLine>,
        artifacts: &Artifacts,
        stop: &StopSignal,
    ) -> Result<Checkout, CheckoutFailure> {
        let commit = version.commit.as_deref().unwrap_or(&version.rev);
        let path = self.path_of(commit, prepare);
        let marker = path.join(MARKER);
        if let Some(m) = fs::read(&marker)
            .ok()
            .and_then(|b| serde_json::from_slice::<Marker>(&b).ok())
            .filter(|m| m.commit == commit)
        {
            // What this command takes for the build's product may not be what the command that
            // made the checkout did (`--artifact` given now, or other paths): the hash recorded
            // then would call versions identical on files never compared. Hashed again.
            let mut m = m;
            let hashed = artifact_paths(artifacts, &path, &path);
            if hashed != m.hashed {
                m.artifact = hash_paths(&path, &hashed).map(|a| hex(&a));
                m.hashed = hashed;
            }
            // Touched: the least recently used are evicted first.
            let _ = fs::write(&marker, serde_json::to_vec(&m).unwrap_or_default());
            return Ok(Checkout {
                path,
                artifact: m.artifact.as_deref().and_then(unhex),
                reused: true,
            });
        }
        self.remove(&path);
        let partial = PathBuf::from(format!("{}{PARTIAL}{}", path.display(), std::process::id()));
        let partial_text = partial.display().to_string();
        git::run(
            &self.repo,
            &[
                "worktree",
                "add",
                "--detach",
                "--quiet",
                &partial_text,
                commit,
            ],
        )
        .map_err(|e| CheckoutFailure::Checkout(e.to_string()))?;
        let made = (|| {
            if let Some(prepare) = prepare {
                prepare_in(&in_checkout(prepare, &path), &partial, stop)?;
            }
            let hashed = artifact_paths(artifacts, &path, &partial);
            let artifact = hash_paths(&partial, &hashed);
            let m = Marker {
                commit: commit.to_string(),
                prepare: prepare.map(CommandLine::text),
                artifact: artifact.map(|a| hex(&a)),
                hashed,
            };
            let text = serde_json::to_vec(&m).map_err(|e| CheckoutFailure::Build(e.to_string()))?;
            fs::write(partial.join(MARKER), text)
                .map_err(|e| CheckoutFailure::Build(format!("cannot write {MARKER}: {e}")))?;
            let path_text = path.display().to_string();
            git::run(&self.repo, &["worktree", "move", &partial_text, &path_text])
                .map_err(|e| CheckoutFailure::Checkout(e.to_string()))?;
            Ok(artifact)
        })();
        match made {
            Ok(artifact) => {
                self.evict(Some(&path));
                Ok(Checkout {
                    path,
                    artifact,
                    reused: false,
                })
            }
            Err(e) => {
                self.remove(&partial);
                Err(e)
            }
        }
    }
}

/// Substitutes `{src}` (the version's checkout) in a command.
pub fn in_checkout(command: &CommandLine, src: &Path) -> CommandLine {
    command.substitute(&[("src", src.display().to_string())])
}

/// Builds a folder the user gave as it is (a candidate's working tree): the preparation command
/// run in it, `{src}` being the folder.
pub(crate) fn build_in(
    command: &CommandLine,
    dir: &Path,
    stop: &StopSignal,
) -> Result<(), CheckoutFailure> {
    prepare_in(&in_checkout(command, dir), dir, stop)
}

/// Runs the preparation (build) command in `dir`; on failure, the end of its error output.
/// Commands name the checkout by its kept path (`{src}`); a build that records absolute paths
/// records that one, since the checkout is moved there before anything uses it.
///
/// The build runs in a process group of its own that `stop` terminates: asked to stop (Ctrl-C,
/// SIGTERM), rigor ends a long build at once instead of waiting for it.
fn prepare_in(command: &CommandLine, dir: &Path, stop: &StopSignal) -> Result<(), CheckoutFailure> {
    use std::os::unix::process::CommandExt;
    let argv = command.argv();
    let Some((program, args)) = argv.split_first() else {
        return Ok(());
    };
    if stop.is_requested() {
        return Err(CheckoutFailure::Build("stopped before the build".into()));
    }
    let child = std::process::Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| CheckoutFailure::Build(format!("cannot start '{program}': {e}")))?;
    stop.set_child(i32::try_from(child.id()).unwrap_or(0));
    let out = child.wait_with_output();
    stop.set_child(0);
    let out = out.map_err(|e| CheckoutFailure::Build(format!("waiting for '{program}': {e}")))?;
    let log = dir.with_extension(BUILD_LOG.trim_start_matches('.'));
    if out.status.success() {
        // An earlier failure's output no longer says how this checkout builds.
        let _ = std::fs::remove_file(&log);
        return Ok(());
    }
    if stop.is_requested() {
        return Err(CheckoutFailure::Build("the build was stopped".into()));
    }
    // The whole output beside the checkout: five lines of gcc's tail held its notes, not the
    // error that started them (a new user's "expected ';' before 'uint32_t'" was cut off).
    let kept = std::fs::write(
        &log,
        [out.stdout.as_slice(), out.stderr.as_slice()].concat(),
    )
    .map_or(String::new(), |()| {
        format!(" (all of its output: {})", log.display())
    });
    let first = first_error(&out.stderr, &out.stdout)
        .map_or(String::new(), |line| format!("first error: {line}; "));
    Err(CheckoutFailure::Build(format!(
        "build failed ({}){kept}: {first}{}",
        out.status,
        said_last(&out.stderr, &out.stdout)
    )))
}

/// The end of the name of the file beside a checkout that keeps its failed build's output.
const BUILD_LOG: &str = ".build.log";

/// The first line of a failed build's output that says "error" (gcc's `file.c:31:13: error:`,
/// cargo's `error[E0308]`, make's `Error 1`), when it is not among the last lines
/// [`said_last`] shows.
fn first_error(stderr: &[u8], stdout: &[u8]) -> Option<String> {
    let last = said_last(stderr, stdout);
    [stderr, stdout].iter().find_map(|stream| {
        String::from_utf8_lossy(stream)
            .lines()
            .map(str::trim)
            .find(|l| l.to_ascii_lowercase().contains("error"))
            .filter(|l| !last.contains(l))
            .map(str::to_string)
    })
}

/// The last lines a failed build wrote (up to five, joined by ` / `): of its standard error,
/// or of its standard output when the error stream is blank (tools such as `make -s` scripts
/// report there), or that it printed nothing.
fn said_last(stderr: &[u8], stdout: &[u8]) -> String {
    for stream in [stderr, stdout] {
        let text = String::from_utf8_lossy(stream);
        let mut tail: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .rev()
            .take(5)
            .collect();
        if !tail.is_empty() {
            tail.reverse();
            return tail.join(" / ");
        }
    }
    "it printed nothing".to_string()
}

/// The paths (relative to the checkout) `artifacts` names. `path` is where the checkout will
/// be, `partial` where it is now.
pub(crate) fn artifact_paths(artifacts: &Artifacts, path: &Path, partial: &Path) -> Vec<PathBuf> {
    match artifacts {
        Artifacts::None => Vec::new(),
        Artifacts::Paths(paths) => paths.clone(),
        Artifacts::Program(command) => {
            let program = in_checkout(command, path).program().to_string();
            let program = Path::new(&program);
            let relative = if program.is_absolute() {
                program.strip_prefix(path).ok().map(Path::to_path_buf)
            } else {
                (program.components().count() > 1).then(|| program.to_path_buf())
            };
            // `./prog` and `{src}/prog` name one file, hashed under one name.
            relative
                .map(|r| {
                    r.components()
                        .filter(|c| *c != std::path::Component::CurDir)
                        .collect::<PathBuf>()
                })
                .filter(|r| partial.join(r).is_file())
                .into_iter()
                .collect()
        }
    }
}

/// SHA-256 over each path (in the given order) with its relative name: a file's bytes, or a
/// folder's files in name order. `None` when nothing was hashed (no path, or none exists).
pub fn hash_paths(root: &Path, paths: &[PathBuf]) -> Option<[u8; 32]> {
    let mut hasher = Sha256::new();
    let mut any = false;
    let mut stack: Vec<PathBuf> = paths.iter().rev().cloned().collect();
    while let Some(relative) = stack.pop() {
        let full = root.join(&relative);
        if full.is_dir() {
            let mut children: Vec<PathBuf> = fs::read_dir(&full)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| relative.join(e.file_name()))
                .collect();
            children.sort();
            stack.extend(children.into_iter().rev());
        } else if let Ok(bytes) = fs::read(&full) {
            any = true;
            hasher.update(relative.to_string_lossy().as_bytes());
            hasher.update([0]);
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
        }
    }
    any.then(|| hasher.finalize().into())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<[u8; 32]> {
    let bytes: Vec<u8> = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect::<Option<_>>()?;
    bytes.try_into().ok()
}

/// The file that makes the checkouts' folder ignored by git.
const GITIGNORE: &str = ".gitignore";

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn a_failed_build_is_told_by_its_last_lines_or_that_it_said_nothing() {
        let many = b"one\ntwo\n\nthree\nfour\nfive\nsix\n";
        assert_eq!(
            said_last(many, b"ignored"),
            "two / three / four / five / six"
        );
        assert_eq!(
            said_last(b"  \n", b"make: *** [all] Error 1\n"),
            "make: *** [all] Error 1"
        );
        assert_eq!(said_last(b"", b"\n"), "it printed nothing");
    }

    /// gcc's first error, followed by more lines of notes than the tail shows, is named.
    #[test]
    fn a_failed_builds_first_error_is_named_when_the_tail_lost_it() {
        let gcc = b"bench.c: In function 'main':\nbench.c:30:5: error: expected ';' before \
                    'uint32_t'\nbench.c:31:13: error: 'seed' undeclared\nnote: one\nnote: two\n\
                    note: three\nnote: four\nnote: five\n";
        assert_eq!(
            first_error(gcc, b"").as_deref(),
            Some("bench.c:30:5: error: expected ';' before 'uint32_t'")
        );
        // In the tail already, or no error said: nothing more.
        assert_eq!(first_error(b"make: *** [all] Error 1\n", b""), None);
        assert_eq!(first_error(b"warning: x\n", b""), None);
    }

    /// A repository of three commits: `prog.sh` changes at the third; the second touches only a
    /// README.
    fn repo() -> Option<(tempfile::TempDir, Vec<String>)> {
        let dir = tempfile::tempdir().ok()?;
        let sh = |args: &[&str]| {
            Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t", "-C"])
                .arg(dir.path())
                .args(args)
                .output()
                .ok()
                .filter(|o| o.status.success())
        };
        sh(&["init", "-q"])?;
        let mut commits = Vec::new();
        for (file, text) in [
            ("prog.sh", "echo 1"),
            ("README", "hi"),
            ("prog.sh", "echo 2"),
        ] {
            fs::write(dir.path().join(file), text).ok()?;
            sh(&["add", "."])?;
            sh(&["commit", "-qm", file])?;
            let head = sh(&["rev-parse", "HEAD"])?;
            commits.push(String::from_utf8_lossy(&head.stdout).trim().to_string());
        }
        Some((dir, commits))
    }

    fn version(commit: &str) -> VersionInfo {
        VersionInfo {
            rev: commit.to_string(),
            commit: Some(commit.to_string()),
            ..VersionInfo::default()
        }
    }

    #[test]
    fn builds_once_hashes_and_tells_identical_builds() {
        let Some((repo, commits)) = repo() else {
            eprintln!("SKIP: git is needed");
            return;
        };
        let store_dir = repo.path().join(".rigor/checkouts");
        let store = Checkouts::open(repo.path(), &store_dir, 10).unwrap();
        let build = CommandLine::Direct(vec!["cp".into(), "prog.sh".into(), "built".into()]);
        let artifacts = Artifacts::Paths(vec!["built".into()]);
        let made: Vec<Checkout> = commits
            .iter()
            .map(|c| {
                store
                    .get(&version(c), Some(&build), &artifacts, &StopSignal::new())
                    .unwrap()
            })
            .collect();
        assert!(made.iter().all(|c| !c.reused && c.artifact.is_some()));
        assert_eq!(made[0].artifact, made[1].artifact, "a README change");
        // git sees none of them: the folder ignores itself, and pruning keeps that file.
        let status = Command::new("git")
            .args(["status", "--porcelain", "--untracked-files=all"])
            .current_dir(repo.path())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&status.stdout), "");
        Checkouts::open(repo.path(), &store_dir, 10).unwrap();
        assert!(store_dir.join(GITIGNORE).is_file());
        assert_ne!(made[1].artifact, made[2].artifact);
        // Asked again (by another command): reused, not rebuilt, same hash.
        let again = Checkouts::open(repo.path(), &store_dir, 10).unwrap();
        let reused = again
            .get(
                &version(&commits[2]),
                Some(&build),
                &artifacts,
                &StopSignal::new(),
            )
            .unwrap();
        assert!(reused.reused);
        assert_eq!(reused.artifact, made[2].artifact);
        // A different preparation is a different checkout.
        let other = CommandLine::Direct(vec!["true".into()]);
        assert!(
            !again
                .get(
                    &version(&commits[2]),
                    Some(&other),
                    &Artifacts::None,
                    &StopSignal::new()
                )
                .unwrap()
                .reused
        );
    }

    /// A kept checkout asked for with other artifacts than those it was made with hashes them
    /// now: the hash of its first command's files called two versions identical whose
    /// artifacts (`--artifact prog.sh`) differ.
    #[test]
    fn a_kept_checkout_hashes_the_artifacts_asked_for_now() {
        let Some((repo, commits)) = repo() else {
            eprintln!("SKIP: git is needed");
            return;
        };
        let store_dir = repo.path().join(".rigor/checkouts");
        let store = Checkouts::open(repo.path(), &store_dir, 10).unwrap();
        let get = |commit: &str, artifacts: &Artifacts| {
            store
                .get(&version(commit), None, artifacts, &StopSignal::new())
                .unwrap()
        };
        // Made hashing the README, which the second and last commits share.
        let readme = Artifacts::Paths(vec!["README".into()]);
        let (first, last) = (get(&commits[1], &readme), get(&commits[2], &readme));
        assert!(!first.reused && !last.reused);
        assert_eq!(first.artifact, last.artifact);
        // Asked for again with the program, which differs between them.
        let program = Artifacts::Paths(vec!["prog.sh".into()]);
        let (first, last) = (get(&commits[1], &program), get(&commits[2], &program));
        assert!(first.reused && last.reused);
        assert!(first.artifact.is_some());
        assert_ne!(first.artifact, last.artifact);
        // And back: the README's hash again.
        assert_eq!(
            get(&commits[1], &readme).artifact,
            get(&commits[2], &readme).artifact
        );
    }

    #[test]
    fn the_program_is_hashed_by_default_and_a_failed_build_leaves_only_its_output() {
        let Some((repo, commits)) = repo() else {
            eprintln!("SKIP: git is needed");
            return;
        };
        let store_dir = repo.path().join(".rigor/checkouts");
        let store = Checkouts::open(repo.path(), &store_dir, 10).unwrap();
        let program = CommandLine::Direct(vec!["{src}/prog.sh".into()]);
        let a = store
            .get(
                &version(&commits[0]),
                None,
                &Artifacts::Program(program.clone()),
                &StopSignal::new(),
            )
            .unwrap();
        let relative = CommandLine::Direct(vec!["./prog.sh".into()]);
        let b = store
            .get(
                &version(&commits[1]),
                Some(&CommandLine::Direct(vec!["true".into()])),
                &Artifacts::Program(relative),
                &StopSignal::new(),
            )
            .unwrap();
        assert!(a.artifact.is_some());
        assert_eq!(a.artifact, b.artifact);
        // A program outside the checkout (on the PATH) hashes nothing.
        let c = store
            .get(
                &version(&commits[2]),
                None,
                &Artifacts::Program(CommandLine::Direct(vec!["sh".into()])),
                &StopSignal::new(),
            )
            .unwrap();
        assert_eq!(c.artifact, None);
        let fail = CommandLine::Direct(vec![
            "sh".into(),
            "-c".into(),
            "echo broken >&2; exit 3".into(),
        ]);
        let e = store
            .get(
                &version(&commits[1]),
                Some(&fail),
                &Artifacts::None,
                &StopSignal::new(),
            )
            .unwrap_err();
        assert!(e.to_string().contains("broken"), "{e}");
        let left: Vec<String> = fs::read_dir(&store_dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| n != GITIGNORE)
            .collect();
        // The three checkouts, and the failed build's output (its checkout is gone).
        assert_eq!(left.len(), 4, "{left:?}");
        assert!(left.iter().all(|n| !n.contains(PARTIAL)));
        let logs: Vec<&String> = left.iter().filter(|n| n.ends_with(BUILD_LOG)).collect();
        assert_eq!(logs.len(), 1, "{left:?}");
        assert_eq!(
            fs::read_to_string(store_dir.join(logs[0])).unwrap(),
            "broken\n"
        );
        assert!(e.to_string().contains("(all of its output: "), "{e}");
    }

    #[test]
    fn a_killed_predecessors_half_made_checkouts_are_pruned_and_few_are_kept() {
        let Some((repo, commits)) = repo() else {
            eprintln!("SKIP: git is needed");
            return;
        };
        let store_dir = repo.path().join(".rigor/checkouts");
        fs::create_dir_all(&store_dir).unwrap();
        // A worktree a killed process (a pid that cannot be alive) was making.
        let orphan = store_dir.join(format!("abc{PARTIAL}4294967295"));
        let text = orphan.display().to_string();
        git::run(
            repo.path(),
            &["worktree", "add", "--detach", "--quiet", &text, &commits[0]],
        )
        .unwrap();
        let store = Checkouts::open(repo.path(), &store_dir, 2).unwrap();
        assert!(!orphan.exists());
        let listed = git::run(repo.path(), &["worktree", "list"]).unwrap();
        assert!(!listed.contains("abc"), "{listed}");
        for c in &commits {
            store
                .get(&version(c), None, &Artifacts::None, &StopSignal::new())
                .unwrap();
        }
        let kept = fs::read_dir(&store_dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name() != GITIGNORE)
            .count();
        assert_eq!(kept, 2);
        // The newest survive.
        assert!(
            store
                .get(
                    &version(&commits[2]),
                    None,
                    &Artifacts::None,
                    &StopSignal::new()
                )
                .unwrap()
                .reused
        );
    }

    #[test]
    fn hex_round_trip() {
        let h: [u8; 32] = Sha256::digest(b"x").into();
        assert_eq!(unhex(&hex(&h)), Some(h));
        assert_eq!(unhex("zz"), None);
    }
}
