//! Comparisons: within a run (`rigor run A B`) and between saved results (`rigor compare`).

mod common;

use common::{Dir, comparison_named, json, rigor, sim, stdout_of};
use predicates::prelude::*;

const A: &str = "mean=10ms,execution=2%,iteration=1%,iterations=10";
const B_SLOW: &str = "mean=10.5ms,execution=2%,iteration=1%,iterations=10";

#[test]
fn a_five_percent_slowdown_is_a_regression_with_an_effect_size() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let out = stdout_of(
        sim()
            .args([
                "--seed",
                "1",
                "-r",
                "20",
                "-n",
                "A",
                "-n",
                "B",
                A,
                B_SLOW,
                "--export-json",
            ])
            .arg(&path),
    );
    assert!(
        out.contains("B is 5.") && out.contains("% slower than A (95% CI +"),
        "{out}"
    );
    // Two unrelated commands: slower, not a regression (that word is for versions).
    assert!(out.contains("verdict: slower"), "{out}");
    let c = &json(&path)["comparisons"][0];
    for key in [
        "baseline",
        "candidate",
        "estimator",
        "ratio",
        "ci",
        "bootstrap_ci",
        "g",
        "verdict",
        "threshold",
    ] {
        assert!(c.get(key).is_some(), "comparison field {key}");
    }
    assert_eq!(c["baseline"], "A");
    assert_eq!(c["candidate"], "B");
    assert_eq!(c["verdict"], "regression");
    assert_eq!(c["threshold"], 0.01);
    assert_eq!(c["ci"]["method"], "fieller-paired");
    assert_eq!(c["paired"], true);
    for key in ["lower", "upper", "level"] {
        assert!(c["ci"][key].is_number());
    }
    assert!(c["bootstrap_ci"]["lower"].as_f64().unwrap() > 1.0);
}

#[test]
fn fail_on_regression_sets_exit_status_1() {
    sim()
        .args([
            "--seed",
            "1",
            "-r",
            "20",
            A,
            B_SLOW,
            "--fail-on",
            "regression",
        ])
        .assert()
        .code(1)
        // A CI log says why the step failed.
        .stderr(predicate::str::contains(
            "rigor: --fail-on matched (shown above), exit status 1",
        ));
    sim()
        .args([
            "--seed",
            "1",
            "-r",
            "20",
            B_SLOW,
            A,
            "--fail-on",
            "regression",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("verdict: faster"))
        .stderr(predicate::str::contains("--fail-on matched").not());
}

#[test]
fn reference_estimator_threshold_and_method_options() {
    let out = stdout_of(sim().args([
        "--seed",
        "2",
        "-r",
        "20",
        "-n",
        "A",
        "-n",
        "B",
        A,
        B_SLOW,
        "--reference",
        "B",
        "--estimator",
        "median",
        "--threshold",
        "10%",
    ]));
    assert!(
        out.contains("A is") && out.contains("faster than B (median time)"),
        "{out}"
    );
    assert!(
        out.contains("equivalent (within ±10%)") || out.contains("inconclusive"),
        "{out}"
    );
    assert!(out.contains("[bootstrap-percentile"), "{out}");
    let out = stdout_of(sim().args(["--seed", "2", "-r", "20", A, B_SLOW, "--method", "overlap"]));
    assert!(
        out.contains("non-overlap rule (Kalibera & Tůma 2006): the intervals do not overlap"),
        "{out}"
    );
    sim()
        .args(["-r", "3", A, B_SLOW, "--reference", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--reference 'nope' is none of the benchmarks",
        ));
}

#[test]
fn compare_two_results_with_fdr_and_a_suite_summary() {
    let dir = Dir::new();
    let (old, new, md) = (dir.path("old.json"), dir.path("new.json"), dir.path("c.md"));
    let run = |path: &std::path::Path, second: &str, seed: &str| {
        sim()
            .args([
                "--seed",
                seed,
                "-r",
                "15",
                "-n",
                "parse",
                "-n",
                "render",
                A,
                second,
                "--export-json",
            ])
            .arg(path)
            .assert()
            .success();
    };
    run(&old, A, "3");
    run(&new, B_SLOW, "4");
    // The same two results as files of one run (as `track run` writes a batch's versions,
    // with the run's start): their verdicts are the data's. As separate runs (below), the
    // times get none.
    let one = dir.path("one.json");
    let mut one_run = json(&new);
    one_run["provenance"]["started"] = json(&old)["provenance"]["started"].clone();
    std::fs::write(&one, one_run.to_string()).unwrap();
    let out = stdout_of(
        rigor()
            .arg("compare")
            .arg(&old)
            .arg(&one)
            .arg("--export-markdown")
            .arg(&md),
    );
    assert!(
        out.contains("render (new) is") && out.contains("slower than render (old)"),
        "{out}"
    );
    assert!(out.contains("false-discovery-adjusted q"), "{out}");
    assert!(out.contains("Suite: geometric mean of 2 ratios"), "{out}");
    // Two runs: what changed between them is in every difference, and no interval covers it
    // (a new user's same binary, run twice on a loaded machine, came out 41% faster).
    // So no verdict is called on the times, and `--fail-on regression` passes (a new user's
    // same binary, run four times quietly within three minutes, read 11% slower, exit 1).
    rigor()
        .arg("compare")
        .arg(&old)
        .arg(&new)
        .args(["--fail-on", "regression"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "render (new) is 6.0% slower than render (old) in these two runs (no interval \
             across runs: one run a side)",
        ))
        .stdout(predicate::str::contains("verdict: inconclusive"))
        .stdout(predicate::str::contains(
            "across runs: one run a side cannot tell",
        ))
        .stdout(predicate::str::contains("Suite").not())
        .stderr(predicate::str::contains(
            "old and new were measured in separate runs (started ",
        ))
        .stderr(predicate::str::contains(
            "measure both in one run (`rigor run OLD NEW`, interleaved)",
        ));
    // Two `rigor bench` results (a suite's functions) are measured together by its --against.
    let suites: Vec<_> = [&old, &new]
        .iter()
        .map(|p| {
            let mut r = json(p);
            r["settings"]["compared_within"] = serde_json::json!(false);
            let to = p.with_extension("suite.json");
            std::fs::write(&to, serde_json::to_string(&r).unwrap()).unwrap();
            to
        })
        .collect();
    rigor()
        .arg("compare")
        .args(&suites)
        .assert()
        .stderr(predicate::str::contains(
            "measure both in one run (`rigor bench --against REV`, interleaved)",
        ));
    // Comparing two results pairs benchmarks by name: a --reference (any) was ignored before.
    for reference in ["nope", "parse"] {
        rigor()
            .arg("compare")
            .arg(&old)
            .arg(&new)
            .args(["--reference", reference])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "--reference '{reference}': `rigor compare` compares each benchmark"
            )))
            .stderr(predicate::str::contains("(benchmarks: 'parse', 'render')"));
    }
    let j: serde_json::Value = serde_json::from_str(&stdout_of(
        rigor().arg("compare").arg(&old).arg(&one).arg("--json"),
    ))
    .unwrap();
    let render = j["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["candidate"] == "render (new)")
        .unwrap();
    assert_eq!(render["verdict"], "regression");
    assert_eq!(render["paired"], false);
    assert!(j["suite"]["geometric_mean_ratio"].as_f64().unwrap() > 1.0);
    let table = std::fs::read_to_string(&md).unwrap();
    assert!(
        table.contains("| `render (new)` | `render (old)` |") && table.contains("**regression**"),
        "{table}"
    );
    rigor()
        .arg("compare")
        .arg(&old)
        .arg(&one)
        .args(["--fail-on", "regression"])
        .assert()
        .code(1);
    // The new result's 'render' measured under contention (its executions had a CPU half their
    // time, the old one's throughout): its slower wall time is no verdict on the code, and the
    // suite's mean, which holds it, is not given; 'parse' is still compared.
    let mut contended = json(&new);
    for b in contended["benchmarks"].as_array_mut().unwrap() {
        if b["name"] == "render" {
            for e in b["executions"].as_array_mut().unwrap() {
                e["user"] = serde_json::json!(0.5 * e["wall"].as_f64().unwrap());
            }
        }
    }
    let contended_file = dir.path("contended.json");
    std::fs::write(&contended_file, contended.to_string()).unwrap();
    let assert = rigor()
        .arg("compare")
        .arg(&old)
        .arg(&contended_file)
        .args(["--fail-on", "regression", "--json"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "'render' had a CPU for 50.0% of its wall time in the new result and for 100.0% in \
             the old one: it waited for CPUs other processes held",
        ));
    let withheld: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let of = comparison_named;
    assert_eq!(of(&withheld, "render (new)")["verdict"], "inconclusive");
    assert_eq!(of(&withheld, "parse (new)")["verdict"], "inconclusive");
    assert!(
        of(&withheld, "parse (new)")
            .get("withheld")
            .is_none_or(|w| w == false)
    );
    assert!(withheld["suite"].is_null(), "{withheld}");
    assert_eq!(of(&withheld, "render (new)")["withheld"], true);
    rigor()
        .arg("compare")
        .arg(&old)
        .arg(&contended_file)
        .assert()
        .stdout(predicate::str::contains(
            "render (new) against render (old): no estimate (no interval: measured under other \
             conditions, see the warning)",
        ))
        .stdout(predicate::str::contains(
            "verdict: inconclusive: withheld, the two sides were measured under other conditions",
        ));
    // Measured with the machine to itself (other processes kept 0.02 CPUs busy): the lower
    // share is the code's own waiting, not contention, so its difference is shown; but one run
    // a side gives it no verdict (and no note that one stands).
    contended["provenance"]["others_cpus"] = serde_json::json!(0.02);
    contended["environment"]["cpus"] = serde_json::json!(2);
    std::fs::write(&contended_file, contended.to_string()).unwrap();
    let assert = rigor()
        .arg("compare")
        .arg(&old)
        .arg(&contended_file)
        .arg("--json")
        .assert()
        .code(0)
        .stderr(predicate::str::contains("the verdict stands").not());
    let waits: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(of(&waits, "render (new)")["verdict"], "inconclusive");
    assert!(
        of(&waits, "render (new)")
            .get("withheld")
            .is_none_or(|w| w == false)
    );
    // The new result measured on a busy machine (others kept 1.2 CPUs of 2 busy) and the old
    // one on a quiet machine (0.02): whatever the shares say, every verdict is withheld.
    let mut quiet_old = json(&old);
    quiet_old["provenance"]["others_cpus"] = serde_json::json!(0.02);
    quiet_old["environment"]["cpus"] = serde_json::json!(2);
    let quiet_old_file = dir.path("quiet_old.json");
    std::fs::write(&quiet_old_file, quiet_old.to_string()).unwrap();
    let mut busy = json(&new);
    busy["provenance"]["others_cpus"] = serde_json::json!(1.2);
    busy["environment"]["cpus"] = serde_json::json!(2);
    busy["warnings"] = serde_json::json!([{"kind": "others_busy", "others": 120, "cpus": 2}]);
    let busy_file = dir.path("busy.json");
    std::fs::write(&busy_file, busy.to_string()).unwrap();
    let assert = rigor()
        .arg("compare")
        .arg(&quiet_old_file)
        .arg(&busy_file)
        .args(["--fail-on", "regression", "--json"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "other processes kept 1.20 of this machine's 2 CPUs busy on average over the new \
             result and 0.02 over the old one: the times of the new result hold waiting for a CPU",
        ));
    // Said once: the busy run's own warning, carried from it, is not repeated beside it.
    let said = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert_eq!(said.matches("other processes kept").count(), 1, "{said}");
    let busy: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    for name in ["render (new)", "parse (new)"] {
        assert_eq!(of(&busy, name)["withheld"], true, "{busy}");
    }
    assert!(busy["suite"].is_null(), "{busy}");
    // `-`: the table alone on standard output, the comparisons on standard error.
    let out = rigor()
        .current_dir(dir.0.path())
        .arg("compare")
        .arg(&old)
        .arg(&one)
        .args(["--export-markdown", "-"])
        .assert()
        .success()
        .get_output()
        .clone();
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert_eq!(stdout, table);
    assert!(stderr.contains("false-discovery-adjusted q"), "{stderr}");
    assert!(!dir.path("-").exists());
    // A result compared with itself, or with a copy of itself, is refused.
    let copy = dir.path("copy.json");
    std::fs::copy(&old, &copy).unwrap();
    for other in [&old, &copy] {
        rigor()
            .arg("compare")
            .arg(&old)
            .arg(other)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("are the same result"))
            .stdout(predicate::str::contains("0.00%").not());
    }
}

/// Where both results' executions recorded how long they waited for a CPU others held (the
/// run-queue delay of a command run directly), that tells contention, not the CPU share: a
/// benchmark that had a CPU half its wall time in the new result and all of it in the old one,
/// but waited for one 0.1% of it on both sides, waits on its own (sleeping, I/O): its
/// difference is shown, not withheld (before the run queue: "it waited for CPUs other
/// processes held", no estimate). Waiting for a CPU half its time in the new result, it was
/// measured under contention: withheld, saying so.
#[test]
fn the_run_queue_tells_a_programs_own_waiting_from_contention() {
    let dir = Dir::new();
    let (old, new) = (dir.path("old.json"), dir.path("new.json"));
    for (path, second, seed) in [(&old, A, "3"), (&new, B_SLOW, "4")] {
        sim()
            .args([
                "--seed", seed, "-r", "15", "-n", "parse", "-n", "render", A, second,
            ])
            .arg("--export-json")
            .arg(path)
            .assert()
            .success();
    }
    // Every execution waited `queue(benchmark)` of its wall time; `render` in `file` had a
    // CPU for half of it.
    let with = |file: &std::path::Path, name: &str, queue: f64, half: bool| {
        let mut v = json(file);
        for b in v["benchmarks"].as_array_mut().unwrap() {
            let render = b["name"] == "render";
            for e in b["executions"].as_array_mut().unwrap() {
                let wall = e["wall"].as_f64().unwrap();
                e["run_delay"] = serde_json::json!(queue * wall);
                if half && render {
                    e["user"] = serde_json::json!(0.5 * wall);
                }
            }
        }
        let out = dir.path(name);
        std::fs::write(&out, v.to_string()).unwrap();
        out
    };
    let quiet_old = with(&old, "quiet_old.json", 0.001, false);
    let waits = with(&new, "waits.json", 0.001, true);
    let compared = |new: &std::path::Path| {
        let out = rigor()
            .arg("compare")
            .arg(&quiet_old)
            .arg(new)
            .args(["--fail-on", "regression", "--json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (report, String::from_utf8_lossy(&out.stderr).to_string())
    };
    let (report, said) = compared(&waits);
    assert!(
        !said.contains("it waited for CPUs other processes held"),
        "{said}"
    );
    let render = comparison_named(&report, "render (new)");
    assert!(
        render.get("withheld").is_none_or(|w| w == false),
        "{render}"
    );
    assert!(
        render["ratio"].as_f64().is_some_and(|r| r > 1.0),
        "{render}"
    );
    let contended = with(&new, "contended.json", 0.001, false);
    let mut v = json(&contended);
    for b in v["benchmarks"].as_array_mut().unwrap() {
        if b["name"] == "render" {
            for e in b["executions"].as_array_mut().unwrap() {
                e["run_delay"] = serde_json::json!(0.5 * e["wall"].as_f64().unwrap());
            }
        }
    }
    std::fs::write(&contended, v.to_string()).unwrap();
    let (report, said) = compared(&contended);
    assert!(
        said.contains(
            "'render' waited, ready to run, for a CPU other processes held for 50.0% of its wall \
             time in the new result and for 0.1% in the old one: measured under other contention"
        ),
        "{said}"
    );
    assert_eq!(comparison_named(&report, "render (new)")["withheld"], true);
    let parse = comparison_named(&report, "parse (new)");
    assert!(parse.get("withheld").is_none_or(|w| w == false), "{parse}");
}

/// Two separate runs of the same command (A/A), too noisy to decide: the verdict does not say
/// that more executions would decide it (they narrow the interval, not what changed between
/// the runs), and the suite line, a t interval on the log ratios, says that it shows no change
/// (a trial's read "i.e. 6.7% faster" from a percentile bootstrap that left 1 out).
#[test]
fn separate_runs_of_one_command_get_no_verdict_on_their_times() {
    let dir = Dir::new();
    let (old, new) = (dir.path("old.json"), dir.path("new.json"));
    let noisy = "mean=10ms,execution=6%,iteration=1%,iterations=5";
    for (path, seed) in [(&old, "11"), (&new, "12")] {
        sim()
            .args([
                "--seed",
                seed,
                "-r",
                "10",
                "-n",
                "spin",
                noisy,
                "--export-json",
            ])
            .arg(path)
            .assert()
            .success();
    }
    // One run a side: the difference of the two runs is shown, with no interval and no
    // verdict, and no count of executions that would decide it (more would narrow each run's
    // noise, not what changed on the machine between them).
    let out = stdout_of(rigor().arg("compare").arg(&old).arg(&new));
    assert!(
        out.contains("in these two runs (no interval across runs: one run a side)")
            && out.contains("verdict: inconclusive")
            && out.contains("measure both in one run (`rigor run OLD NEW`, interleaved)"),
        "{out}"
    );
    assert!(!out.contains("per command would decide it"), "{out}");
    let j: serde_json::Value = serde_json::from_str(&stdout_of(
        rigor().arg("compare").arg(&old).arg(&new).arg("--json"),
    ))
    .unwrap();
    assert!(j["suite"].is_null(), "{j}");
    // As files of one run (its start shared), the suite of one benchmark agrees with its
    // Fieller interval to within a few tenths of a percent (the same Welch degrees of freedom,
    // on the log scale).
    let mut one_run = json(&new);
    one_run["provenance"]["started"] = json(&old)["provenance"]["started"].clone();
    let one = dir.path("one.json");
    std::fs::write(&one, one_run.to_string()).unwrap();
    let j: serde_json::Value = serde_json::from_str(&stdout_of(
        rigor().arg("compare").arg(&old).arg(&one).arg("--json"),
    ))
    .unwrap();
    assert_eq!(j["suite"]["ci"]["method"], "log-welch");
    let (c, s) = (&j["comparisons"][0]["ci"], &j["suite"]["ci"]);
    for end in ["lower", "upper"] {
        let (a, b) = (c[end].as_f64().unwrap(), s[end].as_f64().unwrap());
        assert!((a / b - 1.0).abs() < 0.01, "{end}: Fieller {a}, suite {b}");
    }
}

#[test]
fn comparisons_are_in_the_markdown_export_and_reanalysis() {
    let dir = Dir::new();
    let (path, md) = (dir.path("r.json"), dir.path("r.md"));
    sim()
        .args(["--seed", "5", "-r", "10", A, B_SLOW, "--export-json"])
        .arg(&path)
        .arg("--export-markdown")
        .arg(&md)
        .assert()
        .success();
    assert!(
        std::fs::read_to_string(&md)
            .unwrap()
            .contains("| Candidate | Baseline | Change | CI | Verdict |")
    );
    let again = stdout_of(rigor().arg("analyze").arg(&path));
    assert!(again.contains("Comparisons"), "{again}");
}

#[test]
fn results_with_nothing_to_compare_say_what_each_holds() {
    let dir = Dir::new();
    let (a, b) = (dir.path("a.json"), dir.path("b.json"));
    for (path, spec) in [(&a, "mean=1ms,execution=1%"), (&b, "mean=2ms,execution=1%")] {
        sim()
            .args(["--seed", "1", "-r", "5", spec, "--export-json"])
            .arg(path)
            .assert()
            .success();
    }
    rigor()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no benchmark has the same name in both (old: 'mean=1ms,execution=1%'; new: \
             'mean=2ms,execution=1%')",
        ))
        .stderr(predicate::str::contains(
            "benchmarks are paired by name, so name them alike in both runs (`-n NAME`)",
        ));
}

/// Two results whose runs compared minimums (`rigor bench`'s) are compared with minimums, as
/// `analyze` reads them, unless `--estimator` says otherwise: `compare` had switched to the
/// mean without a word (a new user's trial).
#[test]
fn results_are_compared_with_the_statistic_their_runs_compared() {
    let dir = Dir::new();
    let (old, new) = (dir.path("old.json"), dir.path("new.json"));
    for (path, seed) in [(&old, "1"), (&new, "2")] {
        sim()
            .args([
                "--seed",
                seed,
                "-r",
                "6",
                "--estimator",
                "min",
                "mean=10ms,execution=1%",
            ])
            .arg("--export-json")
            .arg(path)
            .args(["--style", "none"])
            .assert()
            .success();
    }
    let out = stdout_of(rigor().arg("compare").arg(&old).arg(&new));
    assert!(out.contains("(min time)"), "{out}");
    let out = stdout_of(
        rigor()
            .arg("compare")
            .arg(&old)
            .arg(&new)
            .args(["--estimator", "mean"]),
    );
    assert!(!out.contains("(min time)"), "{out}");
}
