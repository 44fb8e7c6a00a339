//! `rigor run A B --until-decided`: rounds until each comparison is decided by the confidence
//! sequence, with the simulated executor (exactly reproducible). With tiny real commands, whose
//! verdict depends on real timings, in the timing tier: `timing/until_decided.rs`.

mod common;

use common::{Dir, comparison_named, json, rigor, sim, stdout_of};
use predicates::prelude::*;
use serde_json::Value;

const SAME: &str = "mean=10ms,execution=1%";

/// Runs `args` (simulated, until decided) with a JSON export; returns stdout and the result.
fn decide(args: &[&str]) -> (String, Value) {
    let (out, _, r) = decide_with_stderr(args);
    (out, r)
}

/// As [`decide`], with the standard error (where the run's opening line goes).
fn decide_with_stderr(args: &[&str]) -> (String, String, Value) {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let o = sim()
        .arg("--until-decided")
        .args(args)
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .clone();
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
    (text(&o.stdout), text(&o.stderr), json(&path))
}

fn executions(r: &Value, benchmark: usize) -> usize {
    r["benchmarks"][benchmark]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| !s["warmup"].as_bool().unwrap_or(false))
        .count()
}

/// The Summary of a run until decided shows the sequence's interval, as the verdict above it
/// does (it showed a narrower fixed-sample interval, which stopping on the sequence voids), and so
/// does `rigor analyze` of the saved result; neither shows a bootstrap interval or the
/// non-overlap rule.
#[test]
fn the_summary_shows_the_sequence_not_a_fixed_interval() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let out = stdout_of(
        sim()
            .args(["--until-decided", "--seed", "3", "-n", "old", "-n", "new"])
            .args([SAME, "mean=10.4ms,execution=1%", "--export-json"])
            .arg(&path),
    );
    let verdict = "new is 3.6% slower than old (95% CI +2.3% .. +4.9%)";
    let summary = "new is 3.6% slower (95% CI +2.3% .. +4.9%)";
    assert!(out.contains(verdict) && out.contains(summary), "{out}");
    // The fixed-sample cross-checks, which stopping on the sequence voids too, are not shown:
    // the line says why.
    let instead = "no bootstrap or non-overlap check: they assume a number of rounds fixed in \
                   advance, which a run until decided does not have";
    for shown in [&out, &stdout_of(rigor().arg("analyze").arg(&path))] {
        assert!(
            shown.contains(summary) && shown.contains(instead),
            "{shown}"
        );
        assert!(
            !shown.contains("bootstrap:") && !shown.contains("non-overlap rule"),
            "{shown}"
        );
    }
}

#[test]
fn a_over_a_ends_equivalent() {
    let (out, err, r) = decide_with_stderr(&["--seed", "17", "-n", "A", "-n", "A'", SAME, SAME]);
    assert!(out.contains("decided: equivalent (A' is "), "{out}");
    assert!(
        err.contains("until decided (rounds of 1 execution each, at most 200), seed 17"),
        "{err}"
    );
    assert_eq!(r["settings"]["mode"]["kind"], "until_decided");
    let c = &r["comparisons"][0];
    assert_eq!(c["verdict"], "equivalent");
    let s = &c["sequential"];
    assert_eq!(s["stop"], "decided");
    assert_eq!(s["verdict"], "equivalent");
    let rounds = s["rounds"].as_u64().unwrap() as usize;
    assert!((8..200).contains(&rounds), "{rounds}");
    // Both stopped at the decision: nothing was measured after it.
    assert_eq!((executions(&r, 0), executions(&r, 1)), (rounds, rounds));
    assert!(s["lower"].as_f64().unwrap() >= 0.99 && s["upper"].as_f64().unwrap() <= 1.01);
}

#[test]
fn a_large_change_ends_regression_at_the_first_look() {
    let (out, r) = decide(&[
        "--seed",
        "3",
        "-n",
        "old",
        "-n",
        "new",
        SAME,
        "mean=12ms,execution=1%",
    ]);
    // Two different commands: "slower", as the comparison below says it, with the change.
    assert!(
        out.contains("decided: slower (new is 20% slower than old, sequence +"),
        "{out}"
    );
    assert!(out.contains("verdict: slower"), "{out}");
    assert!(out.contains("after 8 rounds"), "{out}");
    // The figure a stop on a change gives is biased away from no change: said beside it.
    assert!(
        out.contains("the figure beside a change decided early overstates it"),
        "{out}"
    );
    let s = &r["comparisons"][0]["sequential"];
    assert_eq!(
        (s["stop"].as_str(), s["rounds"].as_u64()),
        (Some("decided"), Some(8))
    );
    assert_eq!(r["comparisons"][0]["verdict"], "regression");
    // --fail-on regression gates on the sequential verdict.
    sim()
        .args(["--until-decided", "--seed", "3", "--fail-on", "regression"])
        .args([SAME, "mean=12ms,execution=1%"])
        .assert()
        .code(1);
}

#[test]
fn several_candidates_stop_on_their_own_with_alpha_shared() {
    let (out, r) = decide(&[
        "--seed",
        "5",
        "-n",
        "base",
        "-n",
        "slow",
        "-n",
        "same",
        SAME,
        "mean=13ms,execution=1%",
        SAME,
    ]);
    assert!(out.contains("shared by 2 candidates (2.5% each)"), "{out}");
    assert!(out.contains("decided: slower (slow is "), "{out}");
    assert!(out.contains("decided: equivalent (same is "), "{out}");
    let seq = |i: usize| r["comparisons"][i]["sequential"].clone();
    assert!((seq(0)["alpha"].as_f64().unwrap() - 0.025).abs() < 1e-9);
    // The regression stopped being scheduled at its decision; the other went on.
    assert_eq!(executions(&r, 1), 8);
    assert!(executions(&r, 2) > 8);
    assert_eq!(executions(&r, 0), executions(&r, 2));
}

#[test]
fn the_round_limit_and_the_time_budget_leave_it_inconclusive() {
    let noisy = ["mean=10ms,execution=10%", "mean=10.2ms,execution=10%"];
    let (out, r) = decide(&[&["--seed", "2", "--max-runs", "12"][..], &noisy[..]].concat());
    assert!(
        out.contains("round limit reached after 12 rounds:") && out.contains("inconclusive"),
        "{out}"
    );
    let s = &r["comparisons"][0]["sequential"];
    assert_eq!(
        (s["stop"].as_str(), s["verdict"].as_str()),
        (Some("max_rounds"), Some("inconclusive"))
    );
    assert_eq!(r["status"], "complete");
    // Two commands of ~10 ms: a 0.3 s budget is spent after about 15 rounds.
    let (out, r) = decide(&[&["--seed", "2", "--budget", "0.3s"][..], &noisy[..]].concat());
    assert!(out.contains("budget reached after"), "{out}");
    assert_eq!(r["comparisons"][0]["sequential"]["stop"], "budget");
    assert!(executions(&r, 0) < 30, "{}", executions(&r, 0));
}

#[test]
fn builds_are_the_rounds() {
    let (out, err, r) = decide_with_stderr(&[
        "--seed",
        "9",
        "--build",
        "make",
        "-n",
        "A",
        "-n",
        "B",
        "mean=10ms,build=1%,execution=0.5%",
        "mean=11ms,build=1%,execution=0.5%",
    ]);
    assert!(err.contains("rounds of 1 build × 3 executions"), "{err}");
    assert!(out.contains("decided: slower (B is "), "{out}");
    let s = &r["comparisons"][0]["sequential"];
    assert_eq!(s["rounds"], 8);
    // 8 builds × 3 measured executions.
    assert_eq!(executions(&r, 1), 24);
}

#[test]
fn the_reference_can_be_any_command() {
    let (out, _) = decide(&[
        "--seed",
        "4",
        "--reference",
        "2",
        "-n",
        "new",
        "-n",
        "old",
        "mean=12ms,execution=1%",
        SAME,
    ]);
    assert!(
        out.contains("decided: slower (new is 21% slower than old, sequence"),
        "{out}"
    );
}

#[test]
fn what_cannot_be_decided_is_refused_before_measuring() {
    sim()
        .args(["--until-decided", SAME])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("at least two commands"));
    sim()
        .args(["--until-decided", "-r", "20", SAME, SAME])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--max-runs or --budget"));
    sim()
        .args(["--until-decided", "--max-runs", "5", SAME, SAME])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("first looks after 8"));
    sim()
        .args(["--until-decided", "--precision", "1%", SAME, SAME])
        .assert()
        .failure();
}

/// Runs until decided with a JSON export, then `rigor analyze`s the file: the text and the JSON
/// of the analysis.
fn decide_then_analyze(args: &[&str], analyze: &[&str]) -> (String, String, Value) {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let run = stdout_of(
        sim()
            .arg("--until-decided")
            .args(args)
            .arg("--export-json")
            .arg(&path),
    );
    let text = stdout_of(rigor().arg("analyze").arg(&path).args(analyze));
    let json_text = stdout_of(
        rigor()
            .arg("analyze")
            .arg(&path)
            .arg("--json")
            .args(analyze),
    );
    let analysed = serde_json::from_str(&json_text).expect("analyze --json is JSON");
    (run, text, analysed)
}

#[test]
fn analyze_shows_the_saved_sequential_verdicts() {
    let (run, text, r) = decide_then_analyze(
        &[
            "--seed",
            "5",
            "-n",
            "base",
            "-n",
            "slow",
            "-n",
            "same",
            SAME,
            "mean=13ms,execution=1%",
            SAME,
        ],
        &[],
    );
    // The rule and every candidate's line as `rigor run --until-decided` printed them.
    assert!(
        text.contains(
            "Until decided: confidence sequence on the paired round ratios, α = 5.0% shared by \
             2 candidates (2.5% each), δ = ±1.0%, first look after 8 rounds, at most 200 rounds;"
        ),
        "{text}"
    );
    assert!(text.contains("rounds run (as saved)"), "{text}");
    let lines: Vec<&str> = run
        .lines()
        .filter(|l| l.trim_start().starts_with("decided: "))
        .collect();
    assert_eq!(lines.len(), 2, "{run}");
    for line in lines {
        assert!(text.contains(line), "{line:?} missing from\n{text}");
    }
    // The comparisons keep the sequence's verdicts, intervals and records, not a fixed design's.
    let by = |name: &str| comparison_named(&r, name);
    for (name, verdict) in [("slow", "regression"), ("same", "equivalent")] {
        let c = by(name);
        assert_eq!(c["verdict"], verdict, "{c}");
        assert_eq!(c["ci"]["method"], "confidence-sequence", "{c}");
        assert_eq!(c["sequential"]["stop"], "decided", "{c}");
        assert_eq!(c["sequential"]["verdict"], verdict, "{c}");
    }
    // "slow" was retired after 8 rounds by design: no warning about unpaired rounds.
    let warnings = r["warnings"].to_string().to_lowercase();
    assert!(!warnings.contains("unpaired"), "{warnings}");
}

#[test]
fn analyze_keeps_why_an_undecided_run_stopped_and_gates_on_the_sequence() {
    let noisy = ["mean=10ms,execution=10%", "mean=10.2ms,execution=10%"];
    let (run, text, r) = decide_then_analyze(
        &[&["--seed", "2", "--max-runs", "12"][..], &noisy[..]].concat(),
        &[],
    );
    let line = run
        .lines()
        .find(|l| l.contains("round limit reached after 12 rounds:"))
        .unwrap_or_else(|| panic!("{run}"));
    assert!(text.contains(line), "{text}");
    assert_eq!(r["comparisons"][0]["sequential"]["stop"], "max_rounds");
    assert_eq!(r["comparisons"][0]["verdict"], "inconclusive");

    // A decided regression fails `rigor analyze --fail-on regression`, as it failed the run.
    let dir = Dir::new();
    let path = dir.path("r.json");
    sim()
        .args(["--until-decided", "--seed", "3", "--export-json"])
        .arg(&path)
        .args([SAME, "mean=12ms,execution=1%"])
        .assert()
        .success();
    rigor()
        .arg("analyze")
        .arg(&path)
        .args(["--fail-on", "regression"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("decided: "));
    // A fixed-design file has no such note.
    let fixed = dir.path("f.json");
    sim()
        .args(["-r", "10", "--seed", "3", "--export-json"])
        .arg(&fixed)
        .args([SAME, SAME])
        .assert()
        .success();
    rigor()
        .arg("analyze")
        .arg(&fixed)
        .assert()
        .success()
        .stdout(predicate::str::contains("Until decided").not());
}
