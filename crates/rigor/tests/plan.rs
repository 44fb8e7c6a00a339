//! `rigor plan`, `rigor run --plan`, `--precision` and `--budget` with the simulator.

mod common;

use common::{Dir, json, rigor, sim, stdout_of};
use predicates::prelude::*;

const BLOAT: &str = "mean=10ms,execution=3.7%,iteration=14.1%,iterations=30,startup=50ms";
const LUSEARCH: &str = "mean=10ms,execution=30.3%,iteration=3.3%,iterations=30,startup=50ms";

#[test]
fn plan_writes_counts_costs_and_a_precision_table() {
    let dir = Dir::new();
    let path = dir.path("p.toml");
    let out = stdout_of(
        rigor()
            .args(["plan", "--simulate", "--seed", "2", BLOAT, LUSEARCH, "-o"])
            .arg(&path),
    );
    assert!(out.contains("7 per execution"), "{out}");
    assert!(out.contains("1 per execution"), "{out}");
    let text = std::fs::read_to_string(&path).unwrap();
    let plan: toml::Value = toml::from_str(&text).unwrap();
    let b = &plan["benchmark"][0];
    assert_eq!(b["levels"].as_array().unwrap().len(), 2);
    assert_eq!(b["counts"][0].as_integer(), Some(7));
    let rows = b["targets"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    // The plan beats repeating only executions when iterations carry the variance.
    let row = &rows[1];
    assert!(row["seconds"].as_float().unwrap() < row["top_only_seconds"].as_float().unwrap());
}

#[test]
fn run_with_plan_uses_its_counts() {
    let dir = Dir::new();
    let (plan, result) = (dir.path("p.toml"), dir.path("r.json"));
    rigor()
        .args(["plan", "--simulate", "--seed", "2", BLOAT, "-o"])
        .arg(&plan)
        .assert()
        .success();
    sim()
        .args(["--seed", "5", "--precision", "2%", BLOAT, "--plan"])
        .arg(&plan)
        .arg("--export-json")
        .arg(&result)
        .assert()
        .success();
    let planned: toml::Value = toml::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    let k = planned["benchmark"][0]["counts"][0].as_integer().unwrap() as u64;
    let b = &json(&result)["benchmarks"][0];
    let counts = b["counts"].as_array().unwrap();
    let (executions, iterations) = (counts[0].as_u64().unwrap(), counts[1].as_u64().unwrap());
    assert_eq!(
        iterations,
        executions * k,
        "{k} iterations per execution from the plan"
    );
    let for_2pct = planned["benchmark"][0]["targets"][2]["top_units"]
        .as_integer()
        .unwrap() as u64;
    assert_eq!(executions, for_2pct, "the plan's top-level count for ±2%");
    // Another command gets the plan in its place, and is told so.
    sim()
        .args(["--seed", "5", "-r", "3", "mean=1ms", "--plan"])
        .arg(&plan)
        .assert()
        .success()
        .stderr(predicate::str::contains(format!(
            "the plan has no benchmark named 'mean=1ms': it gets the plan of '{BLOAT}'"
        )));
}

/// A plan's counts for `--precision` are a prediction from its pilot: a run whose intervals end
/// wider says so (it printed the interval alone, "± 1.5%" for a plan for ±1%, and nothing more).
#[test]
fn a_planned_run_short_of_its_precision_says_so() {
    let dir = Dir::new();
    let plan = dir.path("p.toml");
    rigor()
        .args([
            "plan",
            "--simulate",
            "--seed",
            "1",
            "mean=10ms,execution=1%",
            "-o",
        ])
        .arg(&plan)
        .assert()
        .success();
    let run = |spread: &str| {
        let out = sim()
            .args(["--seed", "2", "--precision", "1%", "--plan"])
            .arg(&plan)
            .args(["-n", "mean=10ms,execution=1%", spread])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    // The plan's program, noisier now than its pilot saw it.
    let err = run("mean=10ms,execution=20%");
    assert!(
        err.contains(
            "note: the plan's counts for ±1.0% gave wider intervals: mean=10ms,execution=1% ±"
        ),
        "{err}"
    );
    assert!(err.contains("--precision 1.0% without --plan"), "{err}");
    // As its pilot saw it, with a target its fewest units pass by far: nothing to say.
    let out = sim()
        .args(["--seed", "2", "--precision", "5%", "--plan"])
        .arg(&plan)
        .arg("mean=10ms,execution=1%")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("gave wider intervals"), "{err}");
}

#[test]
fn precision_applies_to_the_estimator_in_use() {
    let out = stdout_of(sim().args([
        "--seed",
        "4",
        "--precision",
        "1%",
        "--estimator",
        "median",
        BLOAT,
    ]));
    assert!(
        out.contains("stopped because the target precision was reached"),
        "{out}"
    );
    assert!(
        out.contains("The target applies to the median (--estimator median)"),
        "{out}"
    );
    // The median's interval, as the rule judged it, within the target.
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(BLOAT) && l.contains("median "))
        .unwrap_or_else(|| panic!("{out}"));
    let pct: f64 = line
        .rsplit("(± ")
        .next()
        .and_then(|t| t.strip_suffix("%)"))
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(pct <= 1.0, "{line}");
}

#[test]
fn budget_is_refused_with_a_plan_whose_counts_are_fixed() {
    // A plan's run is fixed: a budget would be silently ignored, so it is an error before
    // anything runs (the plan file need not even exist).
    sim()
        .args(["--budget", "30s", "--plan", "no-such-plan.toml", BLOAT])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--budget").and(predicate::str::contains("--plan")));
}

#[test]
fn precision_and_budget_say_what_stopped_them() {
    sim()
        .args(["--seed", "4", "--precision", "1%", BLOAT])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "stopped because the target precision was reached",
        ));
    sim()
        .args([
            "--seed",
            "4",
            "--budget",
            "20s",
            "--precision",
            "0.1%",
            BLOAT,
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "stopped because the time budget was spent",
        ));
    // A budget too small for the pilot keeps what it measured and says so.
    sim()
        .args(["--seed", "4", "--budget", "0.5s", BLOAT])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "the time budget was spent during the pilot",
        ));
}

#[test]
fn a_closed_pipe_loses_no_results() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let rigor_bin = assert_cmd::cargo::cargo_bin("rigor");
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' run --simulate -r 3 mean=1ms --export-json '{}' | head -c 1 >/dev/null",
            rigor_bin.display(),
            path.display()
        ))
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(json(&path)["status"], "complete");
}

#[test]
fn adaptive_runs_keep_the_pilot_in_the_results() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let out = stdout_of(sim().args([
        "--seed",
        "6",
        "--precision",
        "2%",
        BLOAT,
        "--export-json",
        path.to_str().unwrap(),
    ]));
    assert!(
        out.contains("pilot (10 executions, kept in the results)"),
        "{out}"
    );
    let r = json(&path);
    let b = &r["benchmarks"][0];
    // Iterations per measured execution, in execution order.
    let mut per_execution = std::collections::BTreeMap::new();
    for s in b["samples"].as_array().unwrap() {
        if s["warmup"] != true {
            *per_execution
                .entry(s["execution"].as_u64().unwrap())
                .or_insert(0usize) += 1;
        }
    }
    let counts: Vec<usize> = per_execution.values().copied().collect();
    assert!(counts.len() > 10, "{counts:?}");
    assert_eq!(&counts[..10], &[10; 10], "the pilot's shape");
    // Then the planned counts (re-planned as the units double: 10 → 9 → 8 for this seed).
    assert!(
        counts[10..].iter().any(|&k| k != 10),
        "planned counts after the pilot: {counts:?}"
    );
    // The analysis covers every measured execution, pilot included.
    assert_eq!(
        b["counts"][0].as_u64().unwrap() as usize,
        counts.len(),
        "{}",
        b["counts"]
    );
}

#[test]
fn plan_costs_iterations_from_the_steady_ones() {
    // Each execution: 5 warm-up iterations of 10 ms, then 1 ms iterations; start-up 20 ms. The
    // iteration costs 1 ms; an execution's own cost is its start-up and warm-up, 20 + 5 × 10 ms.
    const WARM: &str =
        "mean=1ms,execution=2%,iteration=3%,iterations=30,startup=20ms,slow=9ms,warm=5";
    let dir = Dir::new();
    let costs = |discard: &str| -> Vec<f64> {
        let path = dir.path(&format!("p-{discard}.toml"));
        rigor()
            .args([
                "plan",
                "--simulate",
                "--seed",
                "2",
                "--discard",
                discard,
                WARM,
                "-o",
            ])
            .arg(&path)
            .assert()
            .success();
        let plan: toml::Value = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let b = &plan["benchmark"][0];
        // The warm-up the pilot found, kept for runs with the plan (a fixed count is the run's).
        let warmup = b.get("warmup_iterations").and_then(toml::Value::as_integer);
        assert_eq!(warmup, (discard == "auto").then_some(5), "{b}");
        b["costs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_float().unwrap())
            .collect()
    };
    for discard in ["5", "auto"] {
        let c = costs(discard);
        assert!(
            (c[1] - 1e-3).abs() < 0.05e-3,
            "--discard {discard}: iteration {c:?}"
        );
        assert!(
            (c[0] - 70e-3).abs() < 3e-3,
            "--discard {discard}: execution {c:?}"
        );
    }
    // A run with the plan asks for the warm-up on top of the planned steady iterations.
    let plan = dir.path("p-auto.toml");
    let planned: toml::Value = toml::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    let steady = planned["benchmark"][0]["counts"][0].as_integer().unwrap() as usize;
    let result = dir.path("r.json");
    sim()
        .args([
            "--seed",
            "2",
            "--discard",
            "auto",
            "-w",
            "0",
            WARM,
            "--plan",
        ])
        .arg(&plan)
        .arg("--export-json")
        .arg(&result)
        .assert()
        .success();
    let r = json(&result);
    let samples = r["benchmarks"][0]["samples"].as_array().unwrap();
    let first = samples.iter().filter(|s| s["execution"] == 0).count();
    assert_eq!(first, steady + 5, "execution 0 ran {first} iterations");
    // Without --discard, the plan's warm-up would be measured as steady: said.
    sim()
        .args(["--seed", "2", "-w", "0", WARM, "--plan"])
        .arg(&plan)
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "the plan counts steady iterations after the warm-up ones its pilot found ('mean=1ms",
        ))
        .stderr(predicates::str::contains(
            "' after 5, planned with --discard auto)",
        ));
}

#[test]
fn adaptive_runs_with_discard_auto_plan_from_the_steady_iterations() {
    // As `rigor plan` above: the 5 warm-up iterations are an execution's cost, and each execution
    // runs them on top of the steady iterations the plan asks for.
    const WARM: &str =
        "mean=1ms,execution=2%,iteration=3%,iterations=30,startup=20ms,slow=9ms,warm=5";
    let dir = Dir::new();
    let path = dir.path("r.json");
    let out = stdout_of(sim().args([
        "--seed",
        "2",
        "--precision",
        "1%",
        "--discard",
        "auto",
        WARM,
        "--export-json",
        path.to_str().unwrap(),
    ]));
    let line = out
        .lines()
        .find(|l| l.contains("iteration(s) per execution"))
        .unwrap_or_else(|| panic!("{out}"));
    let (head, warm) = line
        .split_once(" iteration(s) per execution after ")
        .expect(line);
    assert_eq!(warm, "5 warm-up", "{out}");
    let steady: u64 = head.rsplit(' ').next().unwrap().parse().expect(line);
    let r = json(&path);
    let samples = r["benchmarks"][0]["samples"].as_array().unwrap();
    let last = samples.last().unwrap()["execution"].clone();
    let ran = samples.iter().filter(|s| s["execution"] == last).count() as u64;
    assert_eq!(
        ran,
        steady + 5,
        "the last execution ran {ran} iterations\n{out}"
    );
}
