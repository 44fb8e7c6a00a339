//! hyperfine's command line in `rigor run`: every hyperfine flag rigor accepts does what a
//! hyperfine user expects (simulated where the flag does not need real processes).

mod common;

use common::{Dir, json, rigor, sim, stdout_of};
use predicates::prelude::*;

const FAST: &str = "mean=2ms,execution=2%";
const SLOW: &str = "mean=9ms,execution=2%";

/// The number of measured executions of each benchmark in a result file.
fn executions(path: &std::path::Path) -> Vec<usize> {
    common::executions_of(path)
        .iter()
        .map(|b| b.iter().filter(|e| e["warmup"] == false).count())
        .collect()
}

fn warmups(path: &std::path::Path) -> usize {
    json(path)["benchmarks"][0]["executions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["warmup"] == true)
        .count()
}

#[test]
fn runs_warmup_and_command_name_are_aliases() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let out = stdout_of(
        sim()
            .args([
                "--runs",
                "7",
                "--warmup",
                "3",
                "--command-name",
                "fast",
                FAST,
            ])
            .arg("--export-json")
            .arg(&path),
    );
    assert!(out.contains("Benchmark 1: fast"), "{out}");
    assert_eq!(executions(&path), [7]);
    assert_eq!(warmups(&path), 3);
}

#[test]
fn min_and_max_runs_bound_the_count() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let count = |args: &[&str]| {
        sim()
            .args(args)
            .arg(FAST)
            .arg("--export-json")
            .arg(&path)
            .assert()
            .success();
        executions(&path)[0]
    };
    // The default length: 20 executions of a quick command (what rigor's warnings ask for).
    assert_eq!(count(&[]), 20);
    assert_eq!(count(&["-m", "15"]), 15);
    assert_eq!(count(&["--min-runs", "3"]), 10);
    assert_eq!(count(&["-M", "4"]), 4);
    assert_eq!(count(&["--max-runs", "30"]), 10);
    // With a precision, -m sizes the pilot and -M caps the run.
    let n = count(&["--seed", "1", "--precision", "0.01%", "-m", "6", "-M", "8"]);
    assert!((6..=8).contains(&n), "{n}");
    sim()
        .args(["-m", "8", "-M", "4", FAST])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--min-runs 8 is above --max-runs 4",
        ));
    sim()
        .args(["-r", "5", "-m", "8", FAST])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot be used with"));
}

#[test]
fn n_is_accepted_and_means_no_shell() {
    // `-N`: every command runs without a shell, even with shell syntax; `echo $HOME; exit 3`
    // is echo's arguments.
    rigor()
        .args(["run", "-N", "-r", "2", "echo $HOME; exit 3"])
        .assert()
        .success();
    rigor()
        .args(["run", "-S", "none", "-r", "2", "echo $HOME; exit 3"])
        .assert()
        .success();
}

#[test]
fn shell_takes_a_shell_or_keeps_the_old_meaning() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    // A shell by name: bash runs the command (a bash-only construct works).
    rigor()
        .args([
            "run",
            "-r",
            "2",
            "-S",
            "bash",
            "[[ 1 == 1 ]] && exit 0 || exit 3",
        ])
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success();
    assert_eq!(json(&path)["settings"]["shell"], true);
    // `--shell=sh` and `--shell` alone followed by the command.
    rigor()
        .args(["run", "-r", "2", "--shell=sh", "exit 3"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("exited with code 3"));
    rigor()
        .args(["run", "-r", "2", "--shell", "exit 3"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("exited with code 3"));
    // `-S none` does not benchmark a command called `none`.
    rigor()
        .args(["run", "-r", "2", "-S", "none", "true"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Benchmark 1: true"));
}

#[test]
fn parameter_list_gives_one_benchmark_per_combination() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let out = stdout_of(
        sim()
            .args(["--seed", "2", "-r", "4"])
            .args(["-L", "ms", "2,8", "-L", "sd", "1,2"])
            .arg("mean={ms}ms,execution={sd}%")
            .arg("--export-json")
            .arg(&path),
    );
    let r = json(&path);
    let names: Vec<&str> = r["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "mean=2ms,execution=1%",
            "mean=8ms,execution=1%",
            "mean=2ms,execution=2%",
            "mean=8ms,execution=2%"
        ],
        "hyperfine's order: the first -L varies fastest"
    );
    assert_eq!(
        r["benchmarks"][3]["parameters"],
        serde_json::json!({"ms": "8", "sd": "2"})
    );
    assert!(out.contains("Summary\n  fastest: mean=2ms"), "{out}");
    assert!(out.contains("× slower (95% CI "), "{out}");
}

#[test]
fn several_commands_are_compared_at_each_parameter_value() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let out = stdout_of(
        sim()
            .args(["--seed", "2", "-r", "5", "-P", "n", "1", "3"])
            .args(["-n", "base {n}", "-n", "plus {n}"])
            .args(["mean={n}ms,execution=1%", "mean={n}.2ms,execution=1%"])
            .arg("--export-json")
            .arg(&path),
    );
    let r = json(&path);
    let pairs: Vec<(String, String)> = r["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["baseline"].as_str().unwrap().to_string(),
                c["candidate"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = (1..=3)
        .map(|n| (format!("base {n}"), format!("plus {n}")))
        .collect();
    assert_eq!(pairs, expected);
    for n in 1..=3 {
        assert!(out.contains(&format!("Summary (n = {n})")), "{out}");
    }
}

#[test]
fn parameter_scan_with_a_step_and_bad_parameters() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    sim()
        .args(["-r", "3", "-P", "ms", "1", "2", "-D", "0.5"])
        .arg("mean={ms}ms")
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success();
    let r = json(&path);
    let commands: Vec<&str> = r["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["command"].as_str().unwrap())
        .collect();
    // As hyperfine writes them: MIN as typed, then with the step's decimals.
    assert_eq!(commands, ["mean=1ms", "mean=1.5ms", "mean=2.0ms"]);
    for (args, message) in [
        (
            vec!["-P", "x", "1", "3", "mean=1ms"],
            "appears in no command",
        ),
        (vec!["-P", "x", "3", "1", "mean={x}ms"], "below MIN"),
        (
            vec!["-P", "x", "1.5", "3", "mean={x}ms"],
            "must be integers",
        ),
        (vec!["-L", "x", "1,,2", "mean={x}ms"], "an empty value"),
        (
            vec!["-L", "x", "1", "-L", "x", "2", "mean={x}ms"],
            "given twice",
        ),
    ] {
        sim()
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
}

#[test]
fn time_unit_sort_and_markup_exports() {
    let dir = Dir::new();
    let (adoc, org, md) = (dir.path("t.adoc"), dir.path("t.org"), dir.path("t.md"));
    let out = stdout_of(
        sim()
            .args([
                "--seed",
                "5",
                "-r",
                "5",
                "-u",
                "microsecond",
                "--sort",
                "mean-time",
            ])
            .args(["-n", "slow", "-n", "fast", SLOW, FAST])
            .arg("--export-asciidoc")
            .arg(&adoc)
            .arg("--export-orgmode")
            .arg(&org)
            .arg("--export-markdown")
            .arg(&md),
    );
    assert!(out.contains(" µs ± "), "{out}");
    let adoc = std::fs::read_to_string(&adoc).unwrap();
    let org = std::fs::read_to_string(&org).unwrap();
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(adoc.starts_with("[cols="), "{adoc}");
    assert!(adoc.contains("|===\n| Benchmark | Mean | 95% CI"), "{adoc}");
    assert!(org.contains("| =fast= |"), "{org}");
    // Fastest first in every table (--sort mean-time), times in µs (-u).
    for table in [&adoc, &org, &md] {
        let (f, s) = (table.find("fast").unwrap(), table.find("slow").unwrap());
        assert!(f < s, "{table}");
        assert!(table.contains(" µs"), "{table}");
    }
    // --sort command keeps the input order in the ranking.
    let out = stdout_of(
        sim()
            .args(["--seed", "5", "-r", "5", "--sort", "command"])
            .args(["-n", "slow", "-n", "fast", SLOW, FAST]),
    );
    let ranking = &out[out.find("Summary").unwrap()..];
    assert!(
        ranking.find("slow is").unwrap() < ranking.find("fastest: fast").unwrap(),
        "{ranking}"
    );
}

#[test]
fn ranking_uses_factors_beyond_two_and_words_for_the_kind() {
    let out = stdout_of(sim().args(["--seed", "5", "-r", "8", "-n", "a", "-n", "b", FAST, SLOW]));
    assert!(out.contains("Summary\n  fastest: a\n  b is 4."), "{out}");
    assert!(out.contains("× slower (95% CI 4."), "{out}");
    assert!(out.contains("verdict: slower"), "{out}");
    assert!(
        !out.contains("+3"),
        "no '+350%' for a ratio beyond 2: {out}"
    );
}

#[test]
fn conclude_runs_after_every_execution_and_show_output_shows_it() {
    let dir = Dir::new();
    let log = dir.path("log");
    let conclude = format!("sh -c 'echo x >> {}'", log.display());
    rigor()
        .args(["run", "-r", "3", "-w", "1", "--conclude", &conclude, "true"])
        .assert()
        .success();
    // 1 warm-up and 3 measured executions, each followed by the conclude command.
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 4);
    rigor()
        .args(["run", "-r", "2", "--conclude", "false", "true"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "Failure: --conclude command after warm-up execution 1 failed: exited with code 1",
        ));
    rigor()
        .args(["run", "-r", "2", "--show-output", "echo shown-output"])
        .assert()
        .success()
        .stdout(predicate::str::contains("shown-output"));
}

#[test]
fn style_is_accepted() {
    for style in ["auto", "basic", "full", "nocolor", "color", "none"] {
        sim()
            .args(["--style", style, "-r", "3", FAST])
            .assert()
            .success();
    }
    sim()
        .args(["--style", "fancy", FAST])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid value 'fancy'"));
}

#[test]
fn a_hyperfine_command_line_runs_unchanged() {
    // hyperfine's short hook flags: -s setup, -p prepare, -C conclude, -c cleanup.
    let dir = Dir::new();
    let log = dir.path("log");
    let note = |word: &str| format!("sh -c 'echo {word} >> {}'", log.display());
    let md = dir.path("t.md");
    rigor()
        .args(["run", "-N", "-w", "1", "-r", "2", "-u", "millisecond"])
        .args(["-s", &note("setup"), "-p", &note("prepare")])
        .args(["-C", &note("conclude"), "-c", &note("cleanup")])
        .arg("--export-markdown")
        .arg(&md)
        .arg("true")
        .assert()
        .success();
    let log = std::fs::read_to_string(&log).unwrap();
    let words: Vec<&str> = log.lines().collect();
    assert_eq!(
        words,
        [
            "setup", "prepare", "conclude", "prepare", "conclude", "prepare", "conclude", "cleanup"
        ]
    );
    assert!(std::fs::read_to_string(&md).unwrap().contains(" ms |"));
}

#[test]
fn analyze_ranks_a_saved_result_too() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    sim()
        .args(["--seed", "5", "-r", "6", "-n", "a", "-n", "b", FAST, SLOW])
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success();
    let out = stdout_of(rigor().arg("analyze").arg(&path));
    assert!(out.contains("Summary\n  fastest: a\n  b is 4."), "{out}");
}

#[test]
fn the_report_plots_time_against_a_numeric_parameter() {
    let dir = Dir::new();
    let html = dir.path("p.html");
    sim()
        .args(["--seed", "2", "-r", "4", "-P", "n", "1", "3"])
        .args(["-n", "a {n}", "-n", "b {n}"])
        .args(["mean={n}ms,execution=3%", "mean={n}.5ms,execution=3%"])
        .arg("--report")
        .arg(&html)
        .assert()
        .success();
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(html.contains("class=\"plot overview-parameter\""));
    assert!(html.contains("Time against n"));
    // One line per command.
    assert!(html.contains("command 1") && html.contains("command 2"));
    // A non-numeric parameter gets no such plot.
    let other = dir.path("q.html");
    sim()
        .args(["--seed", "2", "-r", "4", "-L", "s", "x,y", "-n", "c {s}"])
        .arg("mean=1ms,execution=3%")
        .arg("--report")
        .arg(&other)
        .assert()
        .success();
    let other = std::fs::read_to_string(&other).unwrap();
    assert!(!other.contains("overview-parameter"));
}

/// A result exported for hyperfine's scripts, read as they read it (Python's `json.load`:
/// `results[i].mean`, … each of the type hyperfine writes), then imported back by rigor's own
/// hyperfine importer.
#[test]
fn hyperfine_json_and_csv_exports_read_as_hyperfine_scripts_read_them() {
    let dir = Dir::new();
    let (own, hf, csv) = (dir.path("r.json"), dir.path("h.json"), dir.path("h.csv"));
    sim()
        .args(["--seed", "3", "-r", "6", "-L", "ms", "2,9"])
        .args(["-n", "b{ms}", "mean={ms}ms,execution=2%"])
        .arg("--export-json")
        .arg(&own)
        .arg("--export-json-hyperfine")
        .arg(&hf)
        .arg("--export-csv-hyperfine")
        .arg(&csv)
        .assert()
        .success();
    let own = json(&own);
    let h = json(&hf);
    let results = h["results"].as_array().expect("results is a list");
    assert_eq!(results.len(), 2);
    for (i, r) in results.iter().enumerate() {
        let b = &own["benchmarks"][i];
        assert_eq!(r["command"], b["name"]);
        for key in ["mean", "stddev", "median", "user", "system", "min", "max"] {
            assert!(r[key].is_f64(), "{key} is a number: {r}");
        }
        let times: Vec<f64> = r["times"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_f64().unwrap())
            .collect();
        let walls: Vec<f64> = b["executions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["warmup"] == false)
            .map(|e| e["wall"].as_f64().unwrap())
            .collect();
        assert_eq!(
            times, walls,
            "times are the measured executions' wall times"
        );
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        assert!((r["mean"].as_f64().unwrap() - mean).abs() < 1e-12);
        assert_eq!(r["exit_codes"], serde_json::json!([0, 0, 0, 0, 0, 0]));
        assert_eq!(r["parameters"], b["parameters"]);
        let (lo, hi) = (
            r["rigor"]["ci_lower"].as_f64().unwrap(),
            r["rigor"]["ci_upper"].as_f64().unwrap(),
        );
        assert!(lo < r["rigor"]["mean"].as_f64().unwrap() && lo < hi);
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(
            "command,mean,stddev,median,user,system,min,max,parameter_ms,\
             rigor_mean,rigor_ci_lower,rigor_ci_upper"
        )
    );
    let first: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(first[0], "b2");
    assert_eq!(first[1].parse::<f64>().unwrap(), results[0]["mean"]);
    assert_eq!(first[8], "2");
    // `rigor analyze` writes the same file from a saved result (to files only).
    let again = dir.path("again.json");
    rigor()
        .arg("analyze")
        .arg(dir.path("r.json"))
        .arg("--export-json-hyperfine")
        .arg(&again)
        .assert()
        .success();
    assert_eq!(json(&again)["results"], h["results"]);
    refused(
        rigor()
            .arg("analyze")
            .arg(dir.path("r.json"))
            .args(["--export-json-hyperfine", "-"]),
        "writes this export to a file only",
    );
    // rigor's hyperfine importer reads the file back: the same executions.
    let back = stdout_of(rigor().args(["analyze", "--json"]).arg(&hf));
    let back: serde_json::Value = serde_json::from_str(&back).unwrap();
    assert_eq!(back["benchmarks"][1]["name"], results[1]["command"]);
    assert_eq!(back["benchmarks"][1]["counts"], serde_json::json!([6]));
    let (m, hm) = (
        back["benchmarks"][1]["mean"].as_f64().unwrap(),
        results[1]["mean"].as_f64().unwrap(),
    );
    assert!((m - hm).abs() < 1e-12 * hm, "{m} {hm}");
}

/// Asserts that the command fails with exit status 2 and says `message` on standard error.
fn refused(cmd: &mut assert_cmd::Command, message: &str) {
    cmd.assert()
        .code(2)
        .stderr(predicate::str::contains(message));
}

/// The names of a result's benchmarks, in order.
fn names(path: &std::path::Path) -> Vec<String> {
    json(path)["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn reference_that_is_no_benchmark_is_benchmarked_first_as_in_hyperfine_1_20() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let out = sim()
        .args(["--seed", "4", "-r", "5", FAST, SLOW])
        .args([
            "--reference",
            "mean=5ms,execution=2%",
            "--reference-name",
            "base",
        ])
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "note: --reference 'mean=5ms,execution=2%' is none of the benchmarks: it is \
             benchmarked too, first, as the reference",
        ))
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(names(&path), ["base", FAST, SLOW]);
    let r = json(&path);
    let baselines: Vec<&str> = r["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["baseline"].as_str().unwrap())
        .collect();
    assert_eq!(baselines, ["base", "base"], "{out}");
    // A reference that is one of the benchmarks stays what it was; a name needs a command.
    sim()
        .args(["-r", "3", FAST, SLOW, "--reference", SLOW])
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success()
        .stderr(predicate::str::contains("is none of the benchmarks").not());
    assert_eq!(names(&path), [FAST, SLOW]);
    refused(
        sim().args([
            "-r",
            "3",
            FAST,
            "--reference",
            FAST,
            "--reference-name",
            "x",
        ]),
        "is already one of the benchmarks",
    );
    refused(
        sim().args(["-r", "3", FAST, "--reference-name", "x"]),
        "--reference",
    );
}

#[test]
fn parameter_lists_and_names_follow_hyperfine_s_order() {
    // hyperfine's order: the commands vary fastest, then the first -L; `--reference 2` is the
    // second benchmark in that order, and one name per benchmark names each.
    let dir = Dir::new();
    let path = dir.path("r.json");
    sim()
        .args(["-r", "3", "-L", "ms", "2,9", "-L", "sd", "1,2"])
        .args([
            "mean={ms}ms,execution={sd}%",
            "mean={ms}.5ms,execution={sd}%",
        ])
        .args(["-n", "a", "-n", "b", "-n", "c", "-n", "d"])
        .args(["-n", "e", "-n", "f", "-n", "g", "-n", "h{sd}"])
        .args(["--reference", "2"])
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success();
    assert_eq!(names(&path), ["a", "b", "c", "d", "e", "f", "g", "h2"]);
    let r = json(&path);
    let commands: Vec<&str> = r["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["command"].as_str().unwrap())
        .collect();
    assert_eq!(
        commands[..4],
        [
            "mean=2ms,execution=1%",
            "mean=2.5ms,execution=1%",
            "mean=9ms,execution=1%",
            "mean=9.5ms,execution=1%"
        ]
    );
    // `\,` is a comma within a value, as in hyperfine.
    sim()
        .args(["-r", "3", "-L", "x", r"2ms\,execution=1%,3ms", "mean={x}"])
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success();
    assert_eq!(names(&path), ["mean=2ms,execution=1%", "mean=3ms"]);
}

#[test]
fn ignore_failure_takes_the_exit_codes_to_ignore() {
    // -i=3 measures executions exiting with 3 and nothing else, as hyperfine 1.20.
    rigor()
        .args(["run", "-r", "3", "-i=3", "sh -c 'exit 3'"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "3 of 3 measured executions exited",
        ));
    rigor()
        .args(["run", "-r", "3", "--ignore-failure=3,4", "false"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("exited with code 1"));
    refused(
        rigor().args(["run", "-r", "3", "--ignore-failure=x", "false"]),
        "'x' is not an exit code",
    );
}

#[test]
fn output_takes_a_file_as_in_hyperfine() {
    let dir = Dir::new();
    let out = dir.path("out.log");
    rigor()
        .args(["run", "-r", "2", "--output"])
        .arg(&out)
        .arg("echo to-the-file")
        .assert()
        .success()
        .stdout(predicate::str::contains("\nto-the-file").not());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "to-the-file\n");
    // hyperfine's `--input null` is its default, not a file named null.
    rigor()
        .args(["run", "-r", "2", "--input", "null", "true"])
        .assert()
        .success();
    // A bare word is a misspelt mode, not a file (hyperfine's rule).
    refused(
        rigor().args(["run", "-r", "2", "--output=nul", "true"]),
        "none of null, pipe, inherit",
    );
}

#[test]
fn style_none_prints_nothing_but_warnings_errors_and_exports() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let assert = sim()
        .args(["--style", "none", "-r", "3", FAST, SLOW])
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success();
    let o = assert.get_output();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "");
    // Three executions are too few for an interval: the summary's warning goes to stderr.
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("rigor: warning: "), "{err}");
    assert!(!err.contains("seed"), "no opening line: {err}");
    assert_eq!(names(&path).len(), 2);
    // An export to standard output is still written; errors are still shown.
    let out = stdout_of(sim().args([
        "--style",
        "none",
        "-r",
        "5",
        FAST,
        "--export-csv-hyperfine",
        "-",
    ]));
    assert!(
        out.starts_with("command,mean,") && out.lines().count() == 2,
        "{out}"
    );
    refused(
        sim().args(["--style", "none", "-r", "1", FAST]),
        "rigor: error:",
    );
}

/// rigor's own hyperfine export of an interleaved run reads back paired by round, as the run
/// compared its commands: `analyze` had said they were "measured one after another, each in a
/// block of its own" and compared them unpaired, widening a decided verdict into an
/// inconclusive one.
#[test]
fn rigors_hyperfine_export_reads_back_paired_as_it_was_measured() {
    let dir = Dir::new();
    let path = dir.path("h.json");
    rigor()
        .args(["run", "-r", "12", "--seed", "4", "--simulate", FAST, SLOW])
        .arg("--export-json-hyperfine")
        .arg(&path)
        .assert()
        .success();
    let h = json(&path);
    for r in h["results"].as_array().unwrap() {
        assert_eq!(
            r["rigor"]["rounds"].as_array().map(Vec::len),
            Some(12),
            "{r}"
        );
    }
    let out = rigor().arg("analyze").arg(&path).output().unwrap();
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("one after another"), "{err}");
    assert!(
        err.contains("rigor: note: ") && err.contains("rigor.rounds"),
        "{err}"
    );
    assert!(text.contains("paired by round"), "{text}");
    // hyperfine's own file (no rounds) still reads as blocks.
    let mut own = h.clone();
    for r in own["results"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("rigor");
    }
    let plain = dir.path("plain.json");
    std::fs::write(&plain, own.to_string()).unwrap();
    let out = rigor().arg("analyze").arg(&plain).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("one after another"), "{err}");
}

/// A hyperfine command line typed without rigor's subcommand says to put `run` first (clap
/// said only "unexpected argument '-r'"); a word that is neither keeps clap's own error.
#[test]
fn a_hyperfine_command_line_without_run_says_to_put_it_first() {
    let err = |args: &[&str]| {
        let out = rigor().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let e = err(&["-r", "3", "./prog"]);
    assert!(
        e.contains("rigor's subcommand comes first: `rigor run -r 3 ./prog` measures"),
        "{e}"
    );
    let e = err(&["sleep 0.1"]);
    assert!(e.contains("`rigor run 'sleep 0.1'`"), "{e}");
    let e = err(&["--db", "x", "track"]);
    assert!(!e.contains("comes first"), "{e}");
}

/// A command run through the shell is exported net of its start-up, as hyperfine reports it;
/// the file says so (`rigor.net_of`), and reading it back warns that those times leave out the
/// start-up's variance and compare with net times, not with times measured through a shell.
#[test]
fn a_hyperfine_export_of_a_shell_command_is_read_back_as_net_of_its_start_up() {
    let dir = Dir::new();
    let path = dir.path("h.json");
    rigor()
        .args(["run", "-r", "4", "-w", "0", "true | true", "true"])
        .arg("--export-json-hyperfine")
        .arg(&path)
        .assert()
        .success();
    let h = json(&path);
    assert_eq!(h["results"][0]["rigor"]["net_of"], "sh -c ''", "{h}");
    assert!(h["results"][1]["rigor"].get("net_of").is_none(), "{h}");
    let out = rigor().arg("analyze").arg(&path).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the times of 'true | true' are net of the shell's start-up"),
        "{err}"
    );
}
