//! `--discard auto` and `rigor analyze --diagnose` on simulated series with known structure.

mod common;

use common::{Dir, json, rigor, sim, stdout_of};

#[test]
fn auto_discard_finds_a_twenty_iteration_warmup() {
    let dir = Dir::new();
    let path = dir.path("w.json");
    let spec = "mean=10ms,execution=2%,iteration=1%,iterations=200,warm=20,slow=30%";
    let out = stdout_of(
        sim()
            .args([
                "--seed",
                "3",
                "-r",
                "10",
                "-w",
                "0",
                "--discard",
                "auto",
                spec,
                "--export-json",
            ])
            .arg(&path),
    );
    assert!(out.contains("10 executions × 180 iterations"), "{out}");
    assert!(out.contains("discarded the first 20 iteration(s)"), "{out}");
    let s = &json(&path)["benchmarks"][0]["steady_state"];
    assert_eq!(s["independent_warmup"], 20);
    assert_eq!(
        s["consistency"],
        serde_json::json!({"consistent": "warmup"})
    );
    assert_eq!(
        s["applied"],
        serde_json::json!({"iterations": {"warmup": 20}})
    );
    let diag = stdout_of(rigor().arg("analyze").arg(&path).arg("--diagnose"));
    assert!(
        diag.contains("initialised after 20, independent after 20"),
        "{diag}"
    );
    assert!(diag.contains("Impact factor:"), "{diag}");
    assert!(
        diag.contains("after the clustering additive filter"),
        "{diag}"
    );
    let robust = stdout_of(rigor().arg("analyze").arg(&path).args(["--robust", "mono"]));
    assert!(
        robust.contains("Robust (Mono, Kalibera, Bulej & Tůma 2005b §4.2)")
            && robust.contains("(plain "),
        "{robust}"
    );
}

#[test]
fn correlated_iterations_keep_one_iteration_per_execution() {
    let dir = Dir::new();
    let path = dir.path("ar.json");
    let spec = "mean=10ms,execution=2%,iteration=1%,iterations=200,ar=0.9";
    let out = stdout_of(
        sim()
            .args([
                "--seed",
                "4",
                "-r",
                "10",
                "-w",
                "0",
                "--discard",
                "auto",
                spec,
                "--export-json",
            ])
            .arg(&path),
    );
    assert!(
        out.contains("never independent: kept only iteration"),
        "{out}"
    );
    assert!(out.contains("10 executions × 1 iteration"), "{out}");
    assert_eq!(
        json(&path)["benchmarks"][0]["steady_state"]["never_independent"],
        true
    );
}

#[test]
fn diagnose_without_iterations_says_so() {
    let dir = Dir::new();
    let path = dir.path("wall.json");
    sim()
        .args(["--seed", "1", "-r", "5", "mean=1ms", "--export-json"])
        .arg(&path)
        .assert()
        .success();
    let out = stdout_of(rigor().arg("analyze").arg(&path).arg("--diagnose"));
    assert!(out.contains("no iterations reported"), "{out}");
}

/// Too few iterations to test independence (20 per execution): the iterations after the warm-up
/// are kept, not one per execution.
#[test]
fn short_runs_keep_their_iterations_when_independence_cannot_be_tested() {
    let out = stdout_of(sim().args([
        "--seed",
        "1",
        "-r",
        "10",
        "--discard",
        "auto",
        "mean=10ms,execution=3%,iteration=1%,iterations=20",
    ]));
    assert!(out.contains("10 executions × 20 iterations"), "{out}");
    assert!(!out.contains("kept only iteration"), "{out}");
}
