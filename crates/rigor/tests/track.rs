//! `rigor track`: a real git repository of a small C program measured version by version, with
//! known changes; ingesting saved results; malformed input.

mod common;

use common::gitrepo::{git, have, history_repo};

use std::process::Command;

use common::{Dir, rigor, sim, stdout_of};
use predicates::prelude::*;

#[test]
fn a_version_that_fails_to_build_is_recorded_and_the_run_goes_on() {
    if !have("git") || !have("gcc") {
        eprintln!("SKIP: git and gcc are needed");
        return;
    }
    let dir = Dir::new();
    let repo = dir.path("repo");
    let ids = history_repo(&repo);
    let db = dir.path("h.db");
    // The build command names a file that exists only from commit 18 on.
    std::fs::write(repo.join("extra.c"), "int x;\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "extra"]);
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .args(["run", "--repo"])
        .arg(&repo)
        .args([&format!("{}..HEAD", ids[17]), "--machine", "m", "-r", "3"])
        .args([
            "--build",
            "gcc -O2 -o bench bench.c extra.c",
            "--",
            "./bench",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("failed: build failed"))
        .stdout(predicate::str::contains(
            "Tracked 1 version(s) (0 already stored, 2 failed)",
        ));
}

#[test]
fn add_is_idempotent_and_labels_order_versions() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    for (label, mean) in [("gcc-12", "10ms"), ("gcc-13", "10ms"), ("gcc-14", "11ms")] {
        let file = dir.path(&format!("{label}.json"));
        sim()
            .args(["--seed", "1", "-r", "5"])
            .arg(format!(
                "mean={mean},execution=1%,iteration=1%,iterations=5"
            ))
            .args(["-n", "compile"])
            .arg("--export-json")
            .arg(&file)
            .assert()
            .success();
        for _ in 0..2 {
            rigor()
                .args(["track", "--db"])
                .arg(&db)
                .args(["add"])
                .arg(&file)
                .args(["--version", label, "--repo"])
                .arg(dir.path("no-repo"))
                .args(["--machine", "m", "--branch", "compilers"])
                .assert()
                .success();
        }
    }
    let show = stdout_of(rigor().args(["track", "--db"]).arg(&db).args([
        "show",
        "compile",
        "--machine",
        "m",
        "--branch",
        "compilers",
    ]));
    let versions: Vec<&str> = show
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(versions, ["gcc-12", "gcc-13", "gcc-14"], "{show}");
}

#[test]
fn malformed_results_are_refused_with_the_file_and_nothing_stored() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    let bad = dir.path("bad.json");
    std::fs::write(
        &bad,
        "{\n \"schema_version\": 2,\n \"benchmarks\": [oops]\n}",
    )
    .unwrap();
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .args(["add"])
        .arg(&bad)
        .args(["--version", "v1", "--machine", "m"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.json:3:"));
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .args(["changes"])
        .assert()
        .success()
        .stdout(predicate::str::contains("No changes detected."));
}

#[test]
fn a_newer_history_is_refused() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .arg("changes")
        .assert()
        .success();
    let ok = Command::new("sqlite3").arg("--version").output().is_ok();
    if !ok {
        // Without the sqlite3 shell, the history crate's own test covers this.
        return;
    }
    Command::new("sqlite3")
        .arg(&db)
        .arg("PRAGMA user_version = 42;")
        .status()
        .unwrap();
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .arg("changes")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "newer than this rigor understands",
        ));
}
