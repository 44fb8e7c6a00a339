//! Result schema version 2: version-1 files still analyse identically, seeds of any size survive
//! plan files, provenance and typed settings are saved, and `--fail-on warning` gates.

mod common;

use std::path::PathBuf;

use common::{Dir, json, rigor, sim, stdout_of};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).expect("fixture exists")
}

/// The fixtures were written, and their `rigor analyze` output recorded, by rigor 0.1.0 (schema
/// version 1) before version 2 existed. Deliberate changes of wording since: the non-overlap
/// rule is cited by authors; `--diagnose` says independence could not be tested on 32
/// iterations instead of calling them never independent (v1_run.diagnose.txt, rewritten);
/// different commands are "slower"/"faster" rather than a regression, with a ranking against the
/// fastest, and advice names the top level ("runs") instead of "top-level units" (issue #14);
/// the diagnosis says "settled after" instead of the jargon "initialised after"
/// (v1_run.diagnose.txt); three builds now also get the standing warning that fewer than 20
/// builds cannot exclude a mode of one build in five (issue #29 §6, v1_builds.analyze.txt), and,
/// measured one after another (as every build was then), the warning that their variance
/// carries the load that changed over the run (v1_builds.analyze.txt). The numbers are
/// unchanged but for the bootstrap interval shown beside Fieller's for the mean, whose
/// percentiles are now taken at the expanded level (Hesterberg's, whose normal quantile is
/// √(n/(n − 1)) times Student's; 8 executions: wider; v1_run, v1_csv and v1_run.diagnose.txt), and an inconclusive verdict's count of runs is said to hold if the
/// difference is the one estimated, beside the count that would show them equivalent if there is
/// none (v1_csv); the bootstrap line is labelled a cross-check.
#[test]
fn version_1_files_analyse_exactly_as_before() {
    for name in ["v1_run", "v1_builds", "v1_csv"] {
        let out = stdout_of(rigor().arg("analyze").arg(fixture(&format!("{name}.json"))));
        assert_eq!(out, expected(&format!("{name}.analyze.txt")), "{name}");
    }
    let out = stdout_of(
        rigor()
            .arg("analyze")
            .arg(fixture("v1_run.json"))
            .arg("--diagnose"),
    );
    assert_eq!(out, expected("v1_run.diagnose.txt"));
}

#[test]
fn version_1_files_are_read_into_version_2() {
    let out = stdout_of(
        rigor()
            .arg("analyze")
            .arg(fixture("v1_csv.json"))
            .arg("--json"),
    );
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["schema_version"], 2);
    let b = &j["benchmarks"][0];
    assert_eq!(b["levels"], serde_json::json!(["execution", "iteration"]));
    assert_eq!(b["level_names"], serde_json::json!(["run", "iter"]));
    assert_eq!(b["unit"], "s");
    let out = stdout_of(
        rigor()
            .arg("analyze")
            .arg(fixture("v1_run.json"))
            .arg("--json"),
    );
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let steady = &j["benchmarks"][0]["steady_state"];
    assert_eq!(steady["classes"][0], "warmup");
    assert_eq!(
        steady["consistency"],
        serde_json::json!({"consistent": "warmup"})
    );
    assert_eq!(
        steady["applied"],
        serde_json::json!({"single-iteration": {"index": 8}})
    );
    assert_eq!(j["comparisons"][0]["verdict"], "regression");
}

/// Regression test: a random seed ≥ 2⁶³ (half of all seeds) made `rigor plan` fail after its
/// whole pilot with "out-of-range value for u64 type", because TOML integers are signed.
#[test]
fn plan_with_a_seed_beyond_i64_writes_and_reads_back() {
    let dir = Dir::new();
    let (plan, result) = (dir.path("p.toml"), dir.path("r.json"));
    let spec = "mean=10ms,execution=3%,iteration=5%,iterations=10";
    rigor()
        .args([
            "plan",
            "--simulate",
            "--seed",
            "18000000000000000000",
            "--pilot-executions",
            "10",
            "--pilot-iterations",
            "10",
            spec,
            "-o",
        ])
        .arg(&plan)
        .assert()
        .success();
    let text = std::fs::read_to_string(&plan).unwrap();
    assert!(text.contains("seed = \"18000000000000000000\""), "{text}");
    sim()
        .args(["--seed", "18446744073709551615", "-r", "5", spec, "--plan"])
        .arg(&plan)
        .arg("--export-json")
        .arg(&result)
        .assert()
        .success();
    assert_eq!(json(&result)["seed"], "18446744073709551615");
    rigor().arg("analyze").arg(&result).assert().success();
}

#[test]
fn results_carry_provenance_and_typed_settings() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    sim()
        .args([
            "--seed",
            "3",
            "-r",
            "5",
            "--label",
            "v1.2.3",
            "--precision",
            "5%",
            "mean=1ms,execution=1%",
            "--export-json",
        ])
        .arg(&path)
        .assert()
        .success();
    let j = json(&path);
    let p = &j["provenance"];
    assert_eq!(p["label"], "v1.2.3");
    assert!(p["started"].as_str().unwrap() <= p["ended"].as_str().unwrap());
    assert!(
        p["command_line"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "--label")
    );
    let s = &j["settings"];
    assert_eq!(s["mode"]["kind"], "adaptive");
    assert_eq!(s["mode"]["precision"], 0.05);
    assert_eq!(s["quantile"], "student-t");
    assert_eq!(
        j["benchmarks"][0]["levels"],
        serde_json::json!(["execution", "iteration"])
    );
}

#[test]
fn fail_on_warning_gates_on_any_warning() {
    // Three executions: "only 3 executions" is a warning.
    sim()
        .args(["--seed", "1", "-r", "3", "mean=1ms,execution=1%"])
        .args(["--fail-on", "warning"])
        .assert()
        .code(1);
    sim()
        .args(["--seed", "1", "-r", "3", "mean=1ms,execution=1%"])
        .assert()
        .success();
    // Enough executions of a one-level benchmark: nothing to warn about.
    sim()
        .args(["--seed", "1", "-r", "20", "mean=1ms,execution=1%"])
        .args(["--fail-on", "warning"])
        .assert()
        .success();
}

#[test]
fn every_duration_option_takes_units() {
    let dir = Dir::new();
    rigor()
        .args([
            "plan",
            "--simulate",
            "--seed",
            "1",
            "--max-time",
            "60s",
            "--pilot-executions",
            "5",
            "mean=1ms,execution=1%",
            "-o",
        ])
        .arg(dir.path("p.toml"))
        .assert()
        .success();
    sim()
        .args(["--seed", "1", "--timeout", "1m", "-r", "3", "mean=1ms"])
        .assert()
        .success();
}
