//! A git repository of a small C program with known performance changes, for `rigor track`.
//!
//! The program reports each iteration's CPU time (`CLOCK_PROCESS_CPUTIME_ID`) through the
//! sample protocol: the work it did, not how long the shared machine's other processes kept it
//! waiting. On the 2-core machines that run the tests its wall-clock iterations vary by 16% (SD)
//! at a load of 8, its CPU times by about 1% (2026-11-25), so the changes are found whatever
//! else runs.

use std::path::Path;
use std::process::Command;

pub const BENCH_C: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(void) {
    const char *path = getenv("RIGOR_SAMPLES_FILE");
    FILE *out = path ? fopen(path, "a") : stdout;
    volatile unsigned long acc = 0;
    for (int it = 0; it < 10; it++) {
        double t0 = now();
        for (long i = 0; i < WORK; i++) acc += i ^ (acc >> 3);
        fprintf(out, "{\"value\": %.9f, \"unit\": \"s\"}\n", now() - t0);
    }
    if (out != stdout) fclose(out);
    return acc == 42;
}
"#;

/// A new repository at `repo` (made) on branch `main` with `n` empty commits `c0`, `c1`, ….
pub fn empty_commits(repo: &Path, n: usize) {
    std::fs::create_dir_all(repo).unwrap();
    git(repo, &["init", "-q", "-b", "main"]);
    for i in 0..n {
        git(
            repo,
            &["commit", "-q", "--allow-empty", "-m", &format!("c{i}")],
        );
    }
}

pub fn git(repo: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .env("GIT_AUTHOR_NAME", "rigor test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "rigor test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .status()
        .expect("git runs")
        .success();
    assert!(ok, "git {args:?}");
}

/// Commits everything as commit `i` (a `NOTES` file changed with it, so that every commit has a
/// change) and returns its id.
pub fn commit(repo: &Path, i: usize) -> String {
    std::fs::write(repo.join("NOTES"), format!("revision {i}\n")).unwrap();
    git(repo, &["add", "."]);
    git(repo, &["commit", "-q", "-m", &format!("commit {i}")]);
    head(repo)
}

/// The commit id of the repository's HEAD.
pub fn head(repo: &Path) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["rev-parse", "HEAD"])
        .output()
        .expect("git runs");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

pub fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The slowdown commit 7 brings.
pub const SLOWDOWN: f64 = 1.25;
/// The speed-up commit 14 brings (relative to commit 13).
pub const SPEEDUP: f64 = 0.90;

/// 20 commits; commit 7 makes the program [`SLOWDOWN`] slower, commit 14 [`SPEEDUP`] faster
/// than that. Returns the commit ids, oldest first.
///
/// The steps are large on purpose: on the shared 2-core machines that run the tests, this
/// program's executions varied by about 8% (SD) from one to the next when it reported wall-clock
/// times, so 10 executions per version could not place a 5% step reliably (they found it one
/// commit off, or not at all, in about half of the runs on 2026-11-24). These tests check the
/// pipeline (check out, build, measure, store, detect, place); how small a change detection
/// finds is measured by simulation in docs/validation/history.md. The last commit stays
/// distinctly slower than the first (1.25 × 0.90 = +12.5%), so bisecting between them finds 7.
pub fn history_repo(repo: &Path) -> Vec<String> {
    std::fs::create_dir_all(repo).unwrap();
    git(repo, &["init", "-q", "-b", "main"]);
    // About 0.7 ms of CPU time per iteration (7 ms per execution): CPU times vary by about 1%
    // at this size already, and a version's 20 executions take little of the test's time.
    let mut work: f64 = 1_000_000.0;
    let mut ids = Vec::new();
    for i in 0..20 {
        if i == 7 {
            work *= SLOWDOWN;
        }
        if i == 14 {
            work *= SPEEDUP;
        }
        std::fs::write(
            repo.join("bench.c"),
            format!("#define WORK {}L\n{BENCH_C}", work.round() as i64),
        )
        .unwrap();
        ids.push(commit(repo, i));
    }
    ids
}

/// [`history_repo`], or `None` (with a SKIP line) when git or gcc is missing.
pub fn history_repo_or_skip(repo: &Path) -> Option<Vec<String>> {
    if !have("git") || !have("gcc") {
        eprintln!("SKIP: git and gcc are needed");
        return None;
    }
    Some(history_repo(repo))
}
