//! Sessions on a real, loaded machine: a small C program's 12 commits (+10% at commit 8, commit
//! 4 touching only a README), timed by the wall clock. Commits 1–6 are measured in one session
//! while the test keeps two busy loops running on the 2-core machine, commits 7–12 in a second
//! session after stopping them; the second session re-measures anchors (commit 6 and an earlier
//! one). Exactly one change must be found, at commit 8 — nothing at the session boundary (where
//! the raw levels step by the load's factor) and nothing at commit 4 (its build is identical to
//! commit 3's). Then `track check --candidate` of an identical candidate under load is no
//! regression and no improvement.

use std::path::Path;
use std::process::Command;

use crate::common::gitrepo::{BENCH_C, git, have};
use crate::common::{Dir, rigor, stdout_of};

/// The program: `WORK` iterations of integer work per iteration, 10 iterations, each timed by
/// the wall clock (what a loaded machine slows down), unlike the CPU time `BENCH_C` reports.
fn program() -> String {
    let wall = BENCH_C.replace("CLOCK_PROCESS_CPUTIME_ID", "CLOCK_MONOTONIC");
    assert!(
        wall.contains("CLOCK_MONOTONIC"),
        "BENCH_C no longer reads that clock"
    );
    wall
}

/// 12 commits (ids 0–11 for commits 1–12): commit 8 (index 7) 10% more work, commit 4 (index 3)
/// a README only.
fn repo(dir: &Path) -> Vec<String> {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    let mut ids = Vec::new();
    for i in 0..12 {
        let work: i64 = if i >= 7 { 880_000 } else { 800_000 };
        std::fs::write(
            dir.join("bench.c"),
            format!("#define WORK {work}L\n{}", program()),
        )
        .unwrap();
        if i == 3 {
            std::fs::write(dir.join("README"), "documentation only\n").unwrap();
        }
        git(dir, &["add", "."]);
        git(
            dir,
            &[
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                &format!("commit {}", i + 1),
            ],
        );
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["rev-parse", "HEAD"])
            .output()
            .unwrap();
        ids.push(String::from_utf8(out.stdout).unwrap().trim().to_string());
    }
    ids
}

fn track_run(db: &Path, repo: &Path, revs: &[&str], seed: u64) -> String {
    stdout_of(
        rigor()
            .args(["track", "--db"])
            .arg(db)
            .arg("run")
            .args(revs)
            .arg("--repo")
            .arg(repo)
            .args(["--machine", "test", "--branch", "main", "--no-confirm"])
            .args(["--batch", "6", "--anchors", "2", "-r", "20", "--seed"])
            .arg(seed.to_string())
            .args(["--build", "gcc -O2 -o bench bench.c", "--", "./bench"]),
    )
}

/// Real timings on a loaded machine: a whole attempt is made up to three times.
#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn a_loaded_session_does_not_pose_as_a_change() {
    let _alone = crate::alone();
    if !have("git") || !have("gcc") {
        eprintln!("SKIP: git and gcc are needed");
        return;
    }
    crate::up_to_three_attempts(one_attempt);
}

fn one_attempt(attempt: u64) {
    let dir = Dir::new();
    let repo_dir = dir.path("repo");
    let ids = repo(&repo_dir);
    let db = dir.path("history.db");
    {
        let _load = crate::Load::start();
        // Commits 1–6: the first, and the range after it.
        let range = format!("{}..{}", ids[0], ids[5]);
        let first = track_run(&db, &repo_dir, &[&ids[0], &range], 11 + attempt);
        assert!(first.contains("Tracked 6 version(s)"), "{first}");
    }
    let range = format!("{}..{}", ids[5], ids[11]);
    let second = track_run(&db, &repo_dir, &[&range], 31 + attempt);
    assert!(second.contains("(2 anchors measured again)"), "{second}");
    let json = stdout_of(
        rigor()
            .args(["track", "--db"])
            .arg(&db)
            .args(["changes", "--json"]),
    );
    let changes: serde_json::Value = serde_json::from_str(&json).unwrap();
    let show = stdout_of(rigor().args(["track", "--db"]).arg(&db).args([
        "show",
        "./bench",
        "--machine",
        "test",
        "--branch",
        "main",
    ]));
    let at = |rev: &str| ids.iter().position(|i| i == rev);
    let found: Vec<(Option<usize>, String, String)> = changes["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                at(c["rev"].as_str().unwrap()),
                c["verdict"].as_str().unwrap().to_string(),
                c["evidence"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![(Some(7), "regression".to_string(), "detected".to_string())],
        "changes at commits (index, verdict, evidence) {found:?}\n{show}\n{second}"
    );
    // Commit 4's build is commit 3's: one point, marked.
    assert!(show.contains(" = "), "{show}");
    // An identical candidate under load, measured together with its baseline: no change.
    let _load = crate::Load::start();
    let out = rigor()
        .args(["track", "--db"])
        .arg(&db)
        .args([
            "check",
            "--candidate",
            &ids[11],
            "--baseline-rev",
            &ids[11],
            "--repo",
        ])
        .arg(&repo_dir)
        .args(["--machine", "test", "--baseline", "main", "--seed"])
        .arg((41 + attempt).to_string())
        .args(["--budget", "60s", "--build", "gcc -O2 -o bench bench.c"])
        .args(["--fail-on", "change", "--", "./bench"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !text.contains("regression") && !text.contains("improvement"),
        "{text}"
    );
}
