//! `rigor track run` end to end: a real git repository of a small C program, 20 commits, one
//! 25% slower and a later one 10% faster (see `common::gitrepo` for why the steps are large).
//! Whether the changes are found depends on real timings: the timing tier (see `main.rs`); it
//! measures while no other test of the tier runs.

use crate::common::gitrepo::{SLOWDOWN, SPEEDUP, history_repo_or_skip};
use crate::common::{Dir, rigor, stdout_of};

/// Real timings on a shared machine: a whole attempt (fresh repository, history and seeds) is
/// made up to three times; a broken pipeline fails all three, a noisy moment only one.
#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn track_run_finds_the_two_changes_at_their_commits() {
    let _alone = crate::alone();
    crate::up_to_three_attempts(one_attempt);
}

fn one_attempt(attempt: u64) {
    let dir = Dir::new();
    let repo = dir.path("repo");
    let Some(ids) = history_repo_or_skip(&repo) else {
        return;
    };
    let db = dir.path("history.db");
    let before = std::fs::read_to_string(repo.join("bench.c")).unwrap();
    let out = stdout_of(
        rigor()
            .args(["track", "--db"])
            .arg(&db)
            .args(["run", "--repo"])
            .arg(&repo)
            .args(["--last", "20", "--machine", "test", "--seed"])
            .arg((7 + attempt).to_string())
            .args(["-r", "20", "--build", "gcc -O2 -o bench bench.c"])
            .args(["--export-json"])
            .arg(dir.path("runs/r.json"))
            .args(["--", "./bench"]),
    );
    assert!(out.contains("Tracked 20 version(s)"), "{out}");
    // The user's working tree is untouched.
    assert_eq!(
        std::fs::read_to_string(repo.join("bench.c")).unwrap(),
        before
    );
    let json = stdout_of(
        rigor()
            .args(["track", "--db"])
            .arg(&db)
            .args(["changes", "--json"]),
    );
    let changes: serde_json::Value = serde_json::from_str(&json).unwrap();
    let found: Vec<(String, String)> = changes["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["rev"].as_str().unwrap().to_string(),
                c["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut found = found;
    found.sort();
    let mut expected = vec![
        (ids[7].clone(), "regression".to_string()),
        (ids[14].clone(), "improvement".to_string()),
    ];
    expected.sort();
    let at = |rev: &str| ids.iter().position(|i| i == rev);
    let found_at: Vec<_> = found.iter().map(|(r, v)| (at(r), v.clone())).collect();
    let show = stdout_of(rigor().args(["track", "--db"]).arg(&db).args([
        "show",
        "./bench",
        "--machine",
        "test",
        "--branch",
        "main",
    ]));
    assert_eq!(
        found, expected,
        "found at commits {found_at:?}\n{show}\n{json}"
    );
    for c in changes["changes"].as_array().unwrap() {
        let ratio = c["ratio"].as_f64().unwrap();
        let want = if c["verdict"] == "regression" {
            SLOWDOWN
        } else {
            SPEEDUP
        };
        assert!(
            (ratio / want - 1.0).abs() < 0.06,
            "ratio {ratio}, wanted {want}"
        );
    }
    // Resumable: a second run skips every stored version.
    let again = stdout_of(
        rigor()
            .args(["track", "--db"])
            .arg(&db)
            .args(["run", "--repo"])
            .arg(&repo)
            .args(["--last", "3", "--machine", "test", "-r", "5"])
            .args(["--build", "gcc -O2 -o bench bench.c", "--", "./bench"]),
    );
    assert!(
        again.contains("Tracked 0 version(s) (3 already stored"),
        "{again}"
    );
    // The history of the benchmark, version by version.
    let show = stdout_of(rigor().args(["track", "--db"]).arg(&db).args([
        "show",
        "./bench",
        "--machine",
        "test",
        "--branch",
        "main",
    ]));
    assert_eq!(
        show.lines().count(),
        22,
        "a header of two lines and 20 versions: {show}"
    );
    // Bisect between the first and the last commit: the first change (commit 7), measuring at
    // most ⌈log₂ 20⌉ + 2 versions.
    let bisect_db = dir.path("bisect.db");
    let out = stdout_of(
        rigor()
            .args(["track", "--db"])
            .arg(&bisect_db)
            .args(["bisect", &ids[0], &ids[19], "--repo"])
            .arg(&repo)
            .args(["--machine", "test", "-r", "5", "--seed"])
            .arg((9 + attempt).to_string())
            .args(["--build", "gcc -O2 -o bench bench.c"])
            .args(["--export-json"])
            .arg(dir.path("bisect-runs/r.json"))
            .args(["--", "./bench"]),
    );
    assert!(
        out.contains(&format!("First changed version: {}", ids[7])),
        "{out}"
    );
    // Each commit built once, and at most ⌈log₂ 20⌉ + 3 = 8 comparisons (the cost line:
    // "N versions in the range, both ends included; K comparisons measured, B versions built
    // (each once)").
    let cost = out
        .lines()
        .find(|l| l.contains("versions in the range"))
        .unwrap_or("");
    let number_after = |mark: &str| -> usize {
        let rest = &cost[cost.find(mark).map_or(0, |i| i + mark.len())..];
        rest.split_whitespace()
            .next()
            .unwrap_or("")
            .parse()
            .unwrap_or(usize::MAX)
    };
    let (comparisons, built) = (number_after("included; "), number_after("measured, "));
    assert!(comparisons <= 8, "{comparisons} comparisons: {out}");
    assert!((3..=20).contains(&built), "{built} built: {out}");
    let measured = stdout_of(rigor().args(["track", "--db"]).arg(&bisect_db).args([
        "show",
        "./bench",
        "--json",
        "--machine",
        "test",
        "--branch",
        "main",
    ]));
    let versions = serde_json::from_str::<serde_json::Value>(&measured).unwrap();
    let n = versions.as_array().unwrap().len();
    assert!((3..=7).contains(&n), "{n} versions measured: {measured}");
}
