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
        diag.contains("settled after 20, independent after 20"),
        "{diag}"
    );
    assert!(diag.contains("Impact factor:"), "{diag}");
    assert!(
        diag.contains("after subtracting the mean of each cluster of values within an execution (the clustering additive filter, Kalibera, Bulej & Tůma 2005b)"),
        "{diag}"
    );
    let robust = stdout_of(rigor().arg("analyze").arg(&path).args(["--robust", "mono"]));
    assert!(
        robust.contains("Robust (Mono, Kalibera, Bulej & Tůma 2005b §4.2)")
            && robust.contains("(their Eq. 4 without sub-selection: "),
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
    assert!(
        out.contains("too few iterations after the warm-up to test independence"),
        "{out}"
    );
    assert!(!out.contains("(independent state)"), "{out}");
}

/// The saved record, `analyze --diagnose` and the HTML report's diagnosis say the same about a
/// short run: independence not testable, the iterations kept.
#[test]
fn short_runs_say_the_same_everywhere() {
    let dir = common::Dir::new();
    let (json, html) = (dir.path("r.json"), dir.path("r.html"));
    sim()
        .args(["--seed", "1", "-r", "8", "--discard", "auto"])
        .arg("mean=10ms,execution=2%,iteration=1%,iterations=40")
        .arg("--export-json")
        .arg(&json)
        .arg("--report")
        .arg(&html)
        .assert()
        .success();
    let r = common::json(&json);
    let b = &r["benchmarks"][0];
    assert_eq!(
        b["counts"],
        serde_json::json!([8, 320]),
        "all 40 iterations kept"
    );
    assert!(b["steady_state"]["applied"]["untested"].is_object(), "{b}");
    let diag = stdout_of(rigor().arg("analyze").arg("--diagnose").arg(&json));
    let html = std::fs::read_to_string(&html).unwrap();
    for text in [&diag, &html] {
        assert!(text.contains("independent after (not testable)"), "{text}");
        assert!(text.contains("Independence:        not testable"), "{text}");
        assert!(text.contains("too few iterations after the warm-up to test independence"));
        assert!(!text.contains("(independent state)"), "{text}");
    }
}
