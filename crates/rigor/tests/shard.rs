//! CI sharding without a server: `rigor track run --shard I/N` on N machines, then `rigor track
//! add` of the shards' per-version files, gives the history one run gives.

mod common;

use std::path::Path;
use std::process::Command;

use common::gitrepo::have;
use common::rigor;
use rigor_history::{HistoryRead, SeriesKey};

const SIM: &str = "mean=10ms,execution=3%,iteration=1%,iterations=4";

fn track_run(repo: &Path, db: &Path, cwd: &Path, extra: &[&str]) {
    rigor()
        .current_dir(cwd)
        .args([
            "track",
            "run",
            "HEAD~7..HEAD",
            "--machine",
            "ci",
            "--branch",
            "main",
        ])
        .arg("--repo")
        .arg(repo)
        .arg("--db")
        .arg(db)
        // Without anchors: shards measured into histories of their own cannot re-measure each
        // other's versions, so the whole run is compared with them without anchors too.
        .args([
            "--simulate",
            "-r",
            "3",
            "-w",
            "0",
            "--batch",
            "2",
            "--anchors",
            "0",
            // A change the whole run detects (its sessions, unanchored, may shift) would be
            // confirmed by measuring both sides again: runs no shard's own history takes.
            "--no-confirm",
        ])
        .args(extra)
        .args(["--", SIM])
        .assert()
        .success();
}

/// (version, runs, samples) of the series, in history order.
fn summary(db: &Path) -> Vec<(String, usize, usize)> {
    let h = rigor_history::SqliteHistory::open(db).unwrap();
    let series = h.series(&SeriesKey::new("ci", "main"), SIM).unwrap();
    series
        .iter()
        .map(|v| {
            (
                v.version.rev.clone(),
                v.runs.len(),
                v.benchmark.samples.len(),
            )
        })
        .collect()
}

#[test]
fn shards_added_together_give_the_history_of_one_run() {
    if !have("git") {
        eprintln!("SKIP: git is needed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    common::gitrepo::empty_commits(&repo, 8);
    let whole = dir.path().join("whole.db");
    track_run(&repo, &whole, dir.path(), &[]);
    let mut files = Vec::new();
    for i in 1..=3 {
        let cwd = dir.path().join(format!("shard{i}"));
        std::fs::create_dir(&cwd).unwrap();
        track_run(
            &repo,
            &cwd.join("h.db"),
            &cwd,
            &["--shard", &format!("{i}/3")],
        );
        // Without --export-json the files go to `runs/` beside the history file.
        for e in std::fs::read_dir(cwd.join("runs")).unwrap() {
            let p = e.unwrap().path();
            if p.to_string_lossy().ends_with(".version.json") {
                files.push(p);
            }
        }
    }
    assert_eq!(files.len(), 7, "{files:?}");
    let merged = dir.path().join("merged.db");
    let out = rigor()
        .args([
            "track",
            "add",
            "--machine",
            "ci",
            "--branch",
            "main",
            "--repo",
        ])
        .arg(&repo)
        .arg("--db")
        .arg(&merged)
        .args(&files)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Each file records the commit it measured (not the working tree's): no false warning.
    assert!(!stderr.contains("was measured at commit"), "{stderr}");
    let (a, b) = (summary(&whole), summary(&merged));
    assert_eq!(a.len(), 7);
    assert_eq!(a, b);
    // Adding the files again adds nothing.
    let again = rigor()
        .args([
            "track",
            "add",
            "--machine",
            "ci",
            "--branch",
            "main",
            "--repo",
        ])
        .arg(&repo)
        .arg("--db")
        .arg(&merged)
        .args(&files)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&again.stdout).contains("already stored"));
    assert_eq!(summary(&merged), b);
}

#[test]
fn a_bad_shard_is_refused() {
    for bad in ["0/3", "4/3", "x", "1/0"] {
        let out = Command::new(assert_cmd::cargo::cargo_bin("rigor"))
            .args(["track", "run", "--shard", bad, "--", "x"])
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("is not a shard"),
            "{bad}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn status_without_arguments_needs_a_server_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    rigor_history::SqliteHistory::open(&db).unwrap();
    let out = rigor()
        .args(["track", "status", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no job queue"), "{err}");
    assert!(err.contains("h.db"), "{err}");
}

#[test]
fn a_password_file_others_may_read_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pw");
    std::fs::write(&file, "hunter2\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    // Refused before any connection is tried: no server needed.
    let out = rigor()
        .args(["track", "status"])
        .env("RIGOR_DB", "postgres://rigor@127.0.0.1:1/rigor")
        .env_remove("PGPASSWORD")
        .env("RIGOR_DB_PASSWORD_FILE", &file)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("may be read by others"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
}
