//! `rigor analyze RUN1.json RUN2.json …`: several runs of one experiment analysed together, the
//! run as the top level.

mod common;

use std::path::PathBuf;

use common::{Dir, json, rigor, sim, stdout_of};
use predicates::prelude::*;

/// Runs of `old` against `new` (as names), the new one `ratios[k]` times as slow in run `k`:
/// what the machine's state does to a ratio between runs, with little noise inside each.
fn runs(dir: &Dir, ratios: &[f64]) -> Vec<PathBuf> {
    ratios
        .iter()
        .enumerate()
        .map(|(k, ratio)| {
            let path = dir.path(&format!("run{k}.json"));
            let new = format!("mean={}ms,execution=0.5%", 10.0 * ratio);
            stdout_of(
                sim()
                    .args(["-r", "10", "--seed", &(k + 1).to_string()])
                    .args(["-n", "old", "-n", "new", "mean=10ms,execution=0.5%", &new])
                    .arg("--export-json")
                    .arg(&path),
            );
            path
        })
        .collect()
}

/// Each run alone calls the new version a regression with a tight interval; four runs together,
/// whose ratios spread from +2% to +12%, give the interval across runs (Student's t with 3
/// degrees of freedom on the runs' log ratios, computed here from each run's own ratio) and an
/// inconclusive verdict: `--fail-on regression` passes where each run alone fails.
#[test]
fn runs_that_disagree_give_an_interval_across_them() {
    let dir = Dir::new();
    let files = runs(&dir, &[1.02, 1.10, 1.03, 1.12]);
    for f in &files {
        rigor()
            .arg("analyze")
            .arg(f)
            .args(["--fail-on", "regression"])
            .assert()
            .code(1);
    }
    let out = stdout_of(rigor().arg("analyze").args(&files));
    assert!(out.contains("Across 4 runs"), "{out}");
    assert!(out.contains("Comparisons across 4 runs"), "{out}");
    assert!(out.contains("new is 6."), "{out}");
    assert!(out.contains("verdict: inconclusive"), "{out}");
    assert!(
        out.contains("of the 4 runs' own intervals exclude"),
        "{out}"
    );
    rigor()
        .arg("analyze")
        .args(&files)
        .args(["--fail-on", "regression"])
        .assert()
        .code(0);

    // The figures, from each run's own ratio.
    let logs: Vec<f64> = files
        .iter()
        .map(|f| json(f)["comparisons"][0]["ratio"].as_f64().unwrap().ln())
        .collect();
    let mean = logs.iter().sum::<f64>() / 4.0;
    let sd = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / 3.0).sqrt();
    let t3 = 3.182_446_305_284_263;
    let across: serde_json::Value = serde_json::from_str(&stdout_of(
        rigor().arg("analyze").args(&files).arg("--json"),
    ))
    .unwrap();
    let c = &across["comparisons"][0];
    assert_eq!(c["baseline"], "old");
    assert_eq!(c["candidate"], "new");
    let a = &c["across"];
    assert_eq!(a["runs"], 4);
    let close = |key: &str, want: f64| {
        let got = a[key].as_f64().unwrap();
        assert!(
            (got / want - 1.0).abs() < 1e-9,
            "{key}: {got} against {want}"
        );
    };
    close("estimate", mean.exp());
    close("lower", (mean - t3 * sd / 2.0).exp());
    close("upper", (mean + t3 * sd / 2.0).exp());
    // The run level is most of the spread: each run's own error is about 0.2%.
    assert!(a["between_log"].as_f64().unwrap() > 0.03, "{a}");
    assert!(a["within_log"].as_f64().unwrap() < 0.005, "{a}");
    assert_eq!(across["benchmarks"].as_array().unwrap().len(), 2);
}

/// Runs that agree decide: the across-runs interval holds the common ratio and fails the gate.
#[test]
fn runs_that_agree_decide() {
    let dir = Dir::new();
    let files = runs(&dir, &[1.10, 1.10, 1.10, 1.10, 1.10]);
    let assert = rigor()
        .arg("analyze")
        .args(&files)
        .args(["--fail-on", "regression"])
        .assert()
        .code(1);
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(out.contains("new is 10.0% slower than old"), "{out}");
    assert!(
        out.contains("about what their own intervals allow for"),
        "{out}"
    );
    assert!(!out.contains("runs' own intervals exclude"), "{out}");
    assert!(out.contains("verdict: slower"), "{out}");
}

/// What several runs cannot be given, each with a clear error and exit status 2.
#[test]
fn several_runs_refuse_what_reads_one() {
    let dir = Dir::new();
    let files = runs(&dir, &[1.05, 1.06]);
    rigor()
        .arg("analyze")
        .args(&files)
        .arg("--diagnose")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--diagnose reads one run"));
    rigor()
        .arg("analyze")
        .args(&files)
        .args(["--export-markdown", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--export-markdown reads one run"));
    // One run given twice would look like two that agree exactly.
    rigor()
        .arg("analyze")
        .arg(&files[0])
        .arg(&files[0])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("hold the same run"));
    let copy = dir.path("copy.json");
    std::fs::copy(&files[0], &copy).unwrap();
    rigor()
        .arg("analyze")
        .arg(&files[0])
        .arg(&copy)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("hold the same run"));
    // A run of other commands is not a run of this experiment.
    let other = dir.path("other.json");
    stdout_of(
        sim()
            .args(["-r", "4", "--seed", "3", "mean=1ms"])
            .arg("--export-json")
            .arg(&other),
    );
    rigor()
        .arg("analyze")
        .arg(&files[0])
        .arg(&other)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("other.json: measured none of the benchmarks of")
                .and(predicate::str::contains("runs of one experiment")),
        );
}

/// A run whose comparison reached a verdict says that its interval holds no run level, and how
/// to measure one; a run without a comparison does not.
#[test]
fn a_decided_run_says_what_its_interval_leaves_out() {
    let out = rigor()
        .args(["run", "--simulate", "-r", "6", "--seed", "2"])
        .args(["mean=10ms,execution=1%", "mean=20ms,execution=1%"])
        .assert()
        .success();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("note: a comparison's interval holds what varied during this run")
            && err.contains("rigor analyze RUN1.json RUN2.json"),
        "{err}"
    );
    let one = rigor()
        .args(["run", "--simulate", "-r", "6", "--seed", "2", "mean=10ms"])
        .assert()
        .success();
    let err = String::from_utf8(one.get_output().stderr.clone()).unwrap();
    assert!(!err.contains("holds what varied during this run"), "{err}");
}
