//! `rigor analyze` on saved results and CSV files, and its errors.

mod common;

use common::{Dir, json, rigor, sim, stdout_of};
use predicates::prelude::*;

#[test]
fn reanalysis_reproduces_the_run() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let run_out = stdout_of(
        sim()
            .args([
                "--seed",
                "5",
                "mean=3ms,execution=2%,iterations=4,iteration=1%",
                "--export-json",
            ])
            .arg(&path),
    );
    let again = stdout_of(rigor().arg("analyze").arg(&path));
    assert_eq!(run_out, again);
    let as_json: serde_json::Value =
        serde_json::from_str(&stdout_of(rigor().arg("analyze").arg(&path).arg("--json"))).unwrap();
    assert_eq!(as_json["benchmarks"], json(&path)["benchmarks"]);
    let wider = stdout_of(
        rigor()
            .arg("analyze")
            .arg(&path)
            .args(["--confidence", "99"]),
    );
    assert!(wider.contains("Mean ± 99% CI"), "{wider}");
}

/// A run's `--reference` is kept in its result: `rigor analyze` compares with the same benchmark
/// (it compared with the first, so "A is 3× slower than B" read back as "B is 3× faster than A").
#[test]
fn reanalysis_keeps_the_runs_reference() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let run_out = stdout_of(
        sim()
            .args(["-r", "4", "--seed", "1", "--reference", "2"])
            .args(["mean=30ms", "mean=10ms", "--export-json"])
            .arg(&path),
    );
    let line = "mean=30ms is 3.00× slower than mean=10ms";
    assert!(run_out.contains(line), "{run_out}");
    let again = stdout_of(rigor().arg("analyze").arg(&path));
    assert!(again.contains(line), "{again}");
    assert_eq!(json(&path)["settings"]["reference"], "2");
    // `--reference` given to analyze still wins.
    let other = stdout_of(rigor().args(["analyze", "--reference", "1"]).arg(&path));
    assert!(
        other.contains("mean=10ms is 3.00× faster than mean=30ms"),
        "{other}"
    );
}

#[test]
fn long_csv_with_levels() {
    let dir = Dir::new();
    let path = dir.path("d.csv");
    let mut text = String::from("run,iter,time\n");
    for run in 0..6 {
        for iter in 0..4 {
            text += &format!(
                "{run},{iter},{}\n",
                1.0 + 0.1 * run as f64 + 0.01 * iter as f64
            );
        }
    }
    std::fs::write(&path, text).unwrap();
    let out = stdout_of(
        rigor()
            .arg("analyze")
            .arg(&path)
            .args(["--levels", "run,iter", "--value", "time"]),
    );
    assert!(out.contains("6 runs × 4 iters"), "{out}");
    let j: serde_json::Value = serde_json::from_str(&stdout_of(
        rigor()
            .arg("analyze")
            .arg(&path)
            .args(["--levels", "run,iter", "--value", "time", "--json"]),
    ))
    .unwrap();
    assert!((j["benchmarks"][0]["mean"].as_f64().unwrap() - 1.265).abs() < 1e-12);
}

#[test]
fn malformed_files_name_the_file_and_place() {
    let dir = Dir::new();
    let path = dir.path("bad.json");
    std::fs::write(&path, "{\n \"schema_version\": 1,\n \"benchmarks\": [}\n").unwrap();
    rigor()
        .arg("analyze")
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.json:3:"));
    rigor()
        .arg("analyze")
        .arg(dir.path("missing.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.json"));
    let csv = dir.path("bad.csv");
    std::fs::write(&csv, "run,time\n1,2\n1,oops\n").unwrap();
    rigor()
        .arg("analyze")
        .arg(&csv)
        .args(["--levels", "run", "--value", "time"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.csv:3").and(predicate::str::contains("'oops'")));
}

#[test]
fn csv_levels_that_do_not_identify_each_measurement_are_refused() {
    // 5 builds × 6 executions × 10 iterations, read with --levels iter only: every iteration
    // number repeats 30 times, which would pool builds and executions as iterations.
    let dir = Dir::new();
    let path = dir.path("d.csv");
    let mut text = String::from("build,exec,iter,time\n");
    for b in 0..5 {
        for e in 0..6 {
            for i in 0..10 {
                text += &format!("{b},{e},{i},{}\n", 1.0 + 0.05 * b as f64 + 0.01 * e as f64);
            }
        }
    }
    std::fs::write(&path, &text).unwrap();
    let out = rigor()
        .arg("analyze")
        .arg(&path)
        .args(["--levels", "iter", "--value", "time"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("d.csv:12: lines 2, 12, 22, 32, 42 and 25 more have the same iter '0'"),
        "{err}"
    );
    assert!(err.contains("unused columns: build, exec"), "{err}");
    let ok = stdout_of(rigor().arg("analyze").arg(&path).args([
        "--levels",
        "build,exec,iter",
        "--value",
        "time",
    ]));
    assert!(ok.contains("5 builds × 6 execs × 10 iters"), "{ok}");
}

#[test]
fn csv_negative_times_need_allow_negative() {
    let dir = Dir::new();
    let path = dir.path("diff.csv");
    std::fs::write(&path, "run,delta\n1,0.2\n2,-0.1\n3,0.3\n4,0.1\n5,0.0\n").unwrap();
    rigor()
        .arg("analyze")
        .arg(&path)
        .args(["--levels", "run", "--value", "delta"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("diff.csv:3: negative time -0.1"));
    let out = stdout_of(rigor().arg("analyze").arg(&path).args([
        "--levels",
        "run",
        "--value",
        "delta",
        "--allow-negative",
    ]));
    assert!(out.contains("5 runs"), "{out}");
}

/// Both output streams of a successful command, as one text.
fn all_output(cmd: &mut assert_cmd::Command) -> String {
    let out = cmd.assert().success().get_output().clone();
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn one_slow_execution_is_not_a_rare_mode() {
    // Ten executions timed once, the third delayed by the scheduler: an outlier, not a second mode
    // (rigor 0.1 warned "the execution means fall into 2 groups … use at least 14").
    let dir = Dir::new();
    let path = dir.path("sleep.csv");
    let mut text = String::from("run,time\n");
    for (run, ms) in [
        10.08, 10.09, 10.61, 10.07, 10.08, 10.1, 10.09, 10.08, 10.07, 10.09,
    ]
    .iter()
    .enumerate()
    {
        text += &format!("{run},{}\n", ms / 1000.0);
    }
    std::fs::write(&path, text).unwrap();
    let out = all_output(
        rigor()
            .arg("analyze")
            .arg(&path)
            .args(["--levels", "run", "--value", "time"]),
    );
    assert!(out.contains("10 runs"), "{out}");
    assert!(
        !out.contains("groups") && !out.contains("heavy-tailed"),
        "{out}"
    );
    assert!(!out.contains("use at least 14"), "{out}");
}

#[test]
fn a_build_in_a_far_mode_is_a_rare_mode() {
    // Six builds × three executions; the fourth build's executions all agree on a far value.
    let dir = Dir::new();
    let path = dir.path("builds.csv");
    let mut text = String::from("build,exec,time\n");
    for (b, m) in [1.2, 0.9, 1.1, 3.5, 1.0, 1.3].iter().enumerate() {
        for e in 0..3 {
            text += &format!("{b},{e},{}\n", m + 0.01 * (e as f64 - 1.0));
        }
    }
    std::fs::write(&path, text).unwrap();
    let out = all_output(rigor().arg("analyze").arg(&path).args([
        "--levels",
        "build,exec",
        "--value",
        "time",
    ]));
    assert!(out.contains("fall into 2 groups"), "{out}");
    assert!(out.contains("use at least 14 builds"), "{out}");
}

#[test]
fn an_interval_reaching_below_zero_is_shown_from_zero() {
    // Three very spread executions: the symmetric t interval's lower end is about −53 ms.
    let dir = Dir::new();
    let path = dir.path("spread.csv");
    std::fs::write(&path, "run,time\n1,0.001\n2,0.001\n3,0.05\n").unwrap();
    let args = ["--levels", "run", "--value", "time"];
    let out = stdout_of(rigor().arg("analyze").arg(&path).args(args));
    assert!(out.contains("[0.000 ms .. "), "{out}");
    assert!(
        out.contains("lower end is ") && out.contains("below zero") && out.contains("keeps"),
        "{out}"
    );
    // The result keeps the computed interval.
    let j: serde_json::Value = serde_json::from_str(&stdout_of(
        rigor().arg("analyze").arg(&path).args(args).arg("--json"),
    ))
    .unwrap();
    let lower = j["benchmarks"][0]["ci"]["lower"]
        .as_f64()
        .unwrap_or_else(|| panic!("{j}"));
    assert!(lower < -0.05, "{lower}");
    // Differences of times may be negative: their interval is shown as computed.
    let diffs = dir.path("diffs.csv");
    std::fs::write(&diffs, "run,delta\n1,-0.001\n2,0.001\n3,0.05\n").unwrap();
    let out = stdout_of(rigor().arg("analyze").arg(&diffs).args([
        "--levels",
        "run",
        "--value",
        "delta",
        "--allow-negative",
    ]));
    assert!(!out.contains("below zero"), "{out}");
}

#[test]
fn a_result_that_measured_nothing_fails_its_analysis_as_it_failed_its_run() {
    let dir = Dir::new();
    let path = dir.path("failed.json");
    sim()
        .args(["--seed", "1", "-r", "3", "-w", "0", "mean=1ms,fail=1"])
        .arg("--export-json")
        .arg(&path)
        .assert()
        .code(2);
    rigor()
        .arg("analyze")
        .arg(&path)
        .assert()
        .code(2)
        .stdout(predicate::str::contains("No result"))
        .stderr(predicate::str::contains("measured nothing"));
}

#[test]
fn rigor_s_own_csv_export_reads_back_without_options() {
    let dir = Dir::new();
    let (csv, json_path) = (dir.path("r.csv"), dir.path("r.json"));
    let mean_line = |out: &str| {
        out.lines()
            .find(|l| l.contains("Mean ± 95% CI"))
            .unwrap_or_default()
            .to_string()
    };
    // Runs `args`, exports CSV and JSON, and analyses both: the CSV's output, once the two
    // intervals are checked equal.
    let round_trip = |args: &[&str]| {
        sim()
            .args(args)
            .arg("--export-csv")
            .arg(&csv)
            .arg("--export-json")
            .arg(&json_path)
            .assert()
            .success();
        let from_csv = stdout_of(rigor().arg("analyze").arg(&csv));
        let from_json = stdout_of(rigor().arg("analyze").arg(&json_path));
        assert_eq!(mean_line(&from_csv), mean_line(&from_json));
        from_csv
    };
    let spec = "mean=10ms,execution=2%,iteration=1%,iterations=5";
    let out = round_trip(&["--seed", "3", "-r", "6", spec]);
    assert!(
        out.contains("6 executions × 5 iterations") || out.contains("30 iterations"),
        "{out}"
    );
    // Builds as the top level survive the CSV too.
    let spec = "mean=10ms,build=3%,execution=1%";
    let out = round_trip(&[
        "--seed", "2", "--build", "make", "--builds", "3", "-r", "3", spec,
    ]);
    assert!(out.contains("3 builds × 3 executions"), "{out}");
}

/// Runs the simulator with `args`, saving the result to `path`, and returns it as JSON.
fn saved_run(args: &[&str], path: &std::path::Path) -> serde_json::Value {
    sim()
        .args(args)
        .arg("--export-json")
        .arg(path)
        .assert()
        .success();
    json(path)
}

#[test]
fn a_result_without_benchmarks_is_an_error_not_a_silent_success() {
    let dir = Dir::new();
    let (path, empty) = (dir.path("r.json"), dir.path("empty.json"));
    let mut r = saved_run(&["--seed", "1", "-r", "3", "mean=1ms"], &path);
    r["benchmarks"] = serde_json::json!([]);
    std::fs::write(&empty, r.to_string()).unwrap();
    let message = format!("{} holds no benchmark", empty.display());
    for args in [
        vec!["analyze"],
        vec!["report", "-o", dir.path("r.html").to_str().unwrap()],
    ] {
        rigor()
            .args(&args)
            .arg(&empty)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(&message));
    }
    rigor()
        .arg("compare")
        .arg(&path)
        .arg(&empty)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(&message));
    rigor()
        .args(["track", "add", "--version", "v1", "--db"])
        .arg(dir.path("h.db"))
        .arg(&empty)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(&message));
}

#[test]
fn all_zero_times_are_analysed_and_left_out_of_comparisons_with_a_warning() {
    let dir = Dir::new();
    let (path, zeros) = (dir.path("r.json"), dir.path("zeros.json"));
    let mut r = saved_run(
        &[
            "--seed", "1", "-r", "4", "-n", "a", "-n", "b", "mean=1ms", "mean=2ms",
        ],
        &path,
    );
    for b in r["benchmarks"].as_array_mut().unwrap() {
        for s in b["samples"].as_array_mut().unwrap() {
            s["value"] = serde_json::json!(0.0);
        }
    }
    std::fs::write(&zeros, r.to_string()).unwrap();
    // Before, the comparison's zero baseline aborted the whole analysis.
    let out = rigor().arg("analyze").arg(&zeros).assert().success();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.get_output().stdout).into_owned(),
        String::from_utf8_lossy(&out.get_output().stderr).into_owned(),
    );
    assert!(stdout.contains("Benchmark 2: b"), "{stdout}");
    assert!(!stdout.contains("NaN"), "{stdout}");
    assert!(
        stderr.contains("every time of 'a' is 0, so no ratio can be formed with it"),
        "{stderr}"
    );
    rigor()
        .arg("compare")
        .arg(&path)
        .arg(&zeros)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("every time 0"));
}

/// A result file as a run that was killed (or whose disk filled) leaves it: the header, then
/// the `log` of executions, the last one cut in the middle and no closing `]}`.
fn torn_copy(complete: &std::path::Path, torn: &std::path::Path) {
    let mut r = json(complete);
    r["status"] = serde_json::json!("running");
    let mut log = Vec::new();
    for (i, b) in r["benchmarks"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        for e in b["executions"].as_array().unwrap() {
            let mut entry = e.clone();
            entry["type"] = serde_json::json!("execution");
            entry["benchmark"] = serde_json::json!(i);
            log.push(entry.to_string());
        }
        b["executions"] = serde_json::json!([]);
        b["samples"] = serde_json::json!([]);
    }
    let header = serde_json::to_string_pretty(&r).unwrap();
    let header = header.trim_end().strip_suffix('}').unwrap();
    let last = log.pop().unwrap();
    let text = format!(
        "{header},\n  \"log\": [\n{},\n{}",
        log.join(",\n"),
        &last[..last.len() / 2]
    );
    std::fs::write(torn, text).unwrap();
}

#[test]
fn a_torn_result_is_repaired_by_every_command_and_says_what_was_cut() {
    let dir = Dir::new();
    let (complete, torn) = (dir.path("r.json"), dir.path("torn.json"));
    saved_run(
        &[
            "--seed", "1", "-r", "5", "-n", "a", "-n", "b", "mean=1ms", "mean=2ms",
        ],
        &complete,
    );
    torn_copy(&complete, &torn);
    let said = format!(
        "{} was cut short (a crash, a kill or a full disk?): read up to its last whole record, \
         dropping a torn last record (",
        torn.display()
    );
    // Before, only `--format rigor` read it (and `report` has no --format).
    let out = rigor().arg("analyze").arg(&torn).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("Benchmark 2: b"), "{stdout}");
    assert!(stdout.contains("5 executions"), "{stdout}");
    assert!(
        stdout.contains("4 executions"),
        "the torn record is dropped: {stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains(&said), "{stderr}");
    assert!(stderr.contains("and the missing closing `]}`"), "{stderr}");
    rigor()
        .arg("report")
        .arg(&torn)
        .arg("-o")
        .arg(dir.path("r.html"))
        .assert()
        .success()
        .stderr(predicate::str::contains(&said));
    rigor()
        .arg("compare")
        .arg(&complete)
        .arg(&torn)
        .assert()
        .success()
        .stderr(predicate::str::contains(&said));
    rigor()
        .args(["track", "add", "--version", "v1", "--db"])
        .arg(dir.path("h.db"))
        .arg(&torn)
        .assert()
        .success()
        .stderr(predicate::str::contains(&said));
}

#[test]
fn a_sample_recorded_twice_is_refused_naming_the_file_and_record() {
    let dir = Dir::new();
    let (path, doubled) = (dir.path("r.json"), dir.path("doubled.json"));
    let mut r = saved_run(&["--seed", "1", "-r", "7", "mean=1ms"], &path);
    let samples = r["benchmarks"][0]["samples"].as_array_mut().unwrap();
    let again = samples[3].clone();
    samples.push(again);
    std::fs::write(&doubled, r.to_string()).unwrap();
    // Before, it was counted: 8 "executions" and a narrower interval.
    rigor()
        .arg("analyze")
        .arg(&doubled)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(doubled.display().to_string()))
        .stderr(predicate::str::contains(
            "benchmark 1 ('mean=1ms'), sample 8",
        ))
        .stderr(predicate::str::contains("the same measurement as sample 3"));
}

/// An empty CSV, and hyperfine's summary CSV (means only), are said for what they are before
/// `--levels` is asked for (a new user got "a CSV needs --levels" for both).
#[test]
fn a_csv_with_nothing_to_analyse_says_so() {
    let dir = Dir::new();
    std::fs::write(dir.path("empty.csv"), "").unwrap();
    std::fs::write(
        dir.path("hf.csv"),
        "command,mean,stddev,median,user,system,min,max\n./a,0.15,0.01,0.16,0.05,0,0.12,0.17\n",
    )
    .unwrap();
    rigor()
        .arg("analyze")
        .arg(dir.path("empty.csv"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("empty.csv: top level: is empty"));
    rigor()
        .arg("analyze")
        .arg(dir.path("hf.csv"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "hf.csv:1: this is hyperfine's summary CSV",
        ));
}

/// A result whose run compared minimums (`rigor bench`'s default, here `--estimator min`) is
/// compared with minimums again when read back, unless `--estimator` says otherwise: `analyze`
/// had compared the means instead, without a word (a new user's trial).
#[test]
fn a_result_is_compared_again_with_the_statistic_its_run_compared() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    sim()
        .args(["--seed", "2", "-r", "8", "--estimator", "min"])
        .args(["mean=10ms,execution=1%", "mean=11ms,execution=1%"])
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success();
    let out = stdout_of(rigor().arg("analyze").arg(&path));
    assert!(out.contains("(min time)"), "{out}");
    let out = stdout_of(
        rigor()
            .arg("analyze")
            .arg(&path)
            .args(["--estimator", "mean"]),
    );
    assert!(!out.contains("(min time)"), "{out}");
    // The HTML report too.
    let html = dir.path("r.html");
    rigor()
        .arg("report")
        .arg(&path)
        .arg("-o")
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<td>min</td><td class=\"num\">"), "{page}");
}

/// A run that did not compare its benchmarks (a `rigor bench` result: different functions) is
/// not compared when read back either, unless `--reference` asks for it: `analyze` had compared
/// every function with the first ("sort_100k is 7028503× slower than mix").
#[test]
fn a_result_whose_run_did_not_compare_is_not_compared_when_read_back() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    sim()
        .args(["--seed", "2", "-r", "8"])
        .args(["mean=10ms,execution=1%", "mean=20ms,execution=1%"])
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success();
    let mut r = json(&path);
    assert!(
        r["settings"].get("compared_within").is_none(),
        "the default is left out"
    );
    let out = stdout_of(rigor().arg("analyze").arg(&path));
    assert!(out.contains("Comparisons"), "{out}");
    r["settings"]["compared_within"] = serde_json::json!(false);
    std::fs::write(&path, serde_json::to_string(&r).unwrap()).unwrap();
    let out = stdout_of(rigor().arg("analyze").arg(&path));
    assert!(
        out.contains("Benchmark 2") && !out.contains("Comparisons") && !out.contains("slower"),
        "{out}"
    );
    let out = stdout_of(rigor().arg("analyze").arg(&path).args(["--reference", "1"]));
    assert!(
        out.contains("Comparisons") && out.contains("slower"),
        "{out}"
    );
}

/// `rigor analyze --export-markdown` writes the tables `rigor run --export-markdown` wrote for
/// the same result (the summaries and the comparisons), AsciiDoc and org-mode likewise, and `-`
/// sends one to standard output with the summaries on standard error.
#[test]
fn reanalysis_writes_the_runs_tables() {
    let dir = Dir::new();
    let (path, ran) = (dir.path("r.json"), dir.path("ran.md"));
    sim()
        .args([
            "--seed",
            "7",
            "mean=3ms,execution=2%,iterations=4,iteration=1%",
            "mean=3.3ms,execution=2%,iterations=4,iteration=1%",
            "--export-json",
        ])
        .arg(&path)
        .arg("--export-markdown")
        .arg(&ran)
        .assert()
        .success();
    let (md, adoc) = (dir.path("again.md"), dir.path("again.adoc"));
    rigor()
        .arg("analyze")
        .arg(&path)
        .arg("--export-markdown")
        .arg(&md)
        .arg("--export-asciidoc")
        .arg(&adoc)
        .assert()
        .success();
    let ran = std::fs::read_to_string(&ran).unwrap();
    assert!(ran.contains("| Candidate |"), "{ran}");
    assert_eq!(std::fs::read_to_string(&md).unwrap(), ran);
    let adoc = std::fs::read_to_string(&adoc).unwrap();
    assert!(
        adoc.starts_with("|===") || adoc.contains("\n|==="),
        "{adoc}"
    );
    rigor()
        .arg("analyze")
        .arg(&path)
        .args(["--export-orgmode", "-"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("| Benchmark"))
        .stderr(predicate::str::contains("Mean ± 95% CI"));
    rigor()
        .arg("analyze")
        .arg(&path)
        .args(["--export-markdown", "-", "--json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--json and --export-markdown - both write to standard output",
        ));
    rigor()
        .arg("analyze")
        .arg(&path)
        .args(["--export-markdown", "-", "--export-orgmode", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--export-markdown and --export-orgmode both write to standard output",
        ));
}

/// A result of two builds measured together (`rigor bench --against`), read back, compares each
/// benchmark with the other build's, paired by round, as the run did: not every benchmark with
/// the first (nor none, as a new user's `analyze` of a saved `--against` file had shown).
#[test]
fn a_saved_against_run_compares_the_builds() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../rigor-app/tests/fixtures/against_zero_minimum.json");
    let out = stdout_of(rigor().arg("analyze").arg(&file));
    assert!(
        out.contains("  steady is no faster or slower (0.00%) than steady @ other (95% CI")
            && out.contains("  zero is no faster or slower (0.00%) than zero @ other"),
        "{out}"
    );
    assert!(out.contains("[fieller-paired, paired by round]"), "{out}");
    assert!(
        !out.contains("fastest:") && !out.contains("slower than zero"),
        "{out}"
    );
    // --reference still compares within the result, with the benchmark named.
    let within = stdout_of(rigor().args(["analyze", "--reference", "zero"]).arg(&file));
    assert!(
        within.contains("steady @ other is 2.50× slower than zero"),
        "{within}"
    );
}
