//! Importers end to end: `rigor analyze`, `compare` and `track add` read other tools' results
//! through the binary — one file of each family of formats (executions; processes ×
//! iterations; one process), several files of one process each, `--format`, and the errors and
//! warnings as the CLI prints them. What each importer reads (levels, counts, means against the
//! tools' own figures, every error) is tested on the library, beside the fixtures, in
//! `crates/rigor-store/tests/import.rs`.

mod common;

use common::gitrepo::{git, have};

use std::path::PathBuf;

use common::{Dir, rigor, stdout_of};
use serde_json::Value;

/// An importer fixture (they live with the importers, in rigor-store).
fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../rigor-store/tests/fixtures/import")
        .join(name)
}

/// `rigor analyze FILE --json` (plus `extra`), parsed.
fn analysed(name: &str, extra: &[&str]) -> Value {
    let out = stdout_of(
        rigor()
            .arg("analyze")
            .arg(fixture(name))
            .args(extra)
            .arg("--json"),
    );
    serde_json::from_str(&out).unwrap()
}

fn read(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap()
}

fn bench<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == name)
        .unwrap_or_else(|| panic!("no benchmark '{name}' in {r}"))
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs()
}

fn one_process_warnings(r: &Value) -> usize {
    r["warnings"].as_array().map_or(0, |w| {
        w.iter()
            .filter(|w| w["kind"] == "level_not_recorded")
            .count()
    })
}

#[test]
fn analyze_reads_executions_from_hyperfine() {
    let r = analysed("hyperfine.json", &[]);
    let raw = read("hyperfine.json");
    for h in raw["results"].as_array().unwrap() {
        let b = bench(&r, h["command"].as_str().unwrap());
        assert_eq!(b["levels"], serde_json::json!(["execution"]));
        assert_eq!(b["counts"][0], h["times"].as_array().unwrap().len());
        // hyperfine's own mean of the same times.
        assert!(close(
            b["mean"].as_f64().unwrap(),
            h["mean"].as_f64().unwrap(),
            1e-9
        ));
    }
    assert_eq!(one_process_warnings(&r), 0, "hyperfine records executions");
}

/// hyperfine measures each command in a block, one after another: the comparison of its
/// commands says that drift between the blocks is in the difference (a trial's back-to-back
/// hyperfine file gave a confident "slower" with no word of it), and an inconclusive one does
/// not promise that more runs would decide it.
#[test]
fn hyperfine_commands_measured_in_blocks_are_said_to_be() {
    let (code, out, err) = analyze_output(&[fixture("hyperfine.json")], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(
            "'sleep 0.01', 'sleep 0.02' were measured one after another, each in a block of its \
             own (as hyperfine measures them): each difference also holds whatever \
             changed on the machine between the blocks"
        ),
        "{err}"
    );
    assert!(out.contains("Comparisons"), "{out}");
    // The HTML report, the page people share, marks the verdict as the tables do.
    let dir = Dir::new();
    let html = dir.path("r.html");
    rigor()
        .arg("report")
        .arg(fixture("hyperfine.json"))
        .arg("-o")
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("slower (one after another)</td>"), "{page}");
    // The mean user and system times hyperfine wrote are said, not dropped without a word.
    assert!(
        err.contains(
            "mean user and system CPU time only, not each run's, so they are shown here and not \
             analysed ('sleep 0.01' user 0.726 ms, system 1.431 ms; 'sleep 0.02' user 1.759 ms"
        ),
        "{err}"
    );
    let r = analysed("hyperfine.json", &[]);
    let warnings = r["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w["kind"] == "in_blocks" && w["tool"] == "hyperfine"),
        "{warnings:?}"
    );
}

/// A note of what the file held is not a doubt about the results: `--fail-on warning` passes on
/// a one-command hyperfine file whose only note is its mean CPU times.
#[test]
fn hyperfine_cpu_means_are_a_note_that_does_not_fail_a_gate() {
    let dir = tempfile::tempdir().unwrap();
    let mut one = read("hyperfine.json");
    one["results"].as_array_mut().unwrap().truncate(1);
    let path = dir.path().join("one.json");
    std::fs::write(&path, one.to_string()).unwrap();
    let (code, _, err) = analyze_output(&[path], &["--fail-on", "warning"]);
    assert!(
        err.contains("rigor: note: ") && err.contains("mean user and system CPU time only"),
        "{err}"
    );
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn analyze_reads_processes_and_iterations_from_pyperf() {
    let r = analysed("pyperf.json", &[]);
    // 3 worker processes × 3 values (their warm-up values set aside), named as pyperf names them.
    let b = bench(&r, "sum-range");
    assert_eq!(b["level_names"], serde_json::json!(["run", "value"]));
    assert_eq!(b["counts"], serde_json::json!([3, 9]));
    assert_eq!(b["variance_components"].as_array().unwrap().len(), 2);
    assert_eq!(one_process_warnings(&r), 0);
}

#[test]
fn analyze_reads_a_criterion_directory_and_warns_of_one_process() {
    let r = analysed("criterion", &[]);
    for name in ["fib 10", "fib 12"] {
        assert_eq!(
            bench(&r, name)["level_names"],
            serde_json::json!(["sample"])
        );
    }
    assert_eq!(one_process_warnings(&r), 2);
    // The terminal: the summary, and the warning naming the level the interval cannot see.
    let out = rigor()
        .arg("analyze")
        .arg(fixture("criterion"))
        .output()
        .unwrap();
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{err}");
    assert!(text.contains("10 samples"), "{text}");
    assert!(
        err.contains("'fib 10': criterion measured it in one process: the interval cannot see how the time varies between executions"),
        "{err}"
    );
}

#[test]
fn format_flag_and_import_errors_reach_the_terminal() {
    let out = rigor()
        .arg("analyze")
        .arg(fixture("pyperf.json"))
        .args(["--format", "hyperfine"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("pyperf.json: top level: no member 'results'"),
        "{err}"
    );

    let dir = Dir::new();
    let bad = dir.path("h.json");
    std::fs::write(
        &bad,
        r#"{"results":[{"command":"a","times":[0.1,0.2,"x"]}]}"#,
    )
    .unwrap();
    let out = rigor().arg("analyze").arg(&bad).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("h.json: results[0].times[2]: expected a number, found \"x\""),
        "{err}"
    );
}

#[test]
fn compare_two_imported_files() {
    let dir = Dir::new();
    // The same hyperfine file with every time 10% longer.
    let mut slower = read("hyperfine.json");
    for r in slower["results"].as_array_mut().unwrap() {
        for t in r["times"].as_array_mut().unwrap() {
            *t = (t.as_f64().unwrap() * 1.1).into();
        }
    }
    let new = dir.path("new.json");
    std::fs::write(&new, slower.to_string()).unwrap();
    let out = stdout_of(
        rigor()
            .arg("compare")
            .arg(fixture("hyperfine.json"))
            .arg(&new)
            .args(["--format", "hyperfine", "--json"]),
    );
    let j: Value = serde_json::from_str(&out).unwrap();
    for c in j["comparisons"].as_array().unwrap() {
        assert!(close(c["ratio"].as_f64().unwrap(), 1.1, 1e-9), "{c}");
    }
}

#[test]
fn track_add_stores_an_imported_file_and_warns() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    let out = rigor()
        .args(["track", "--db"])
        .arg(&db)
        .arg("add")
        .arg(fixture("gbench.json"))
        .args(["--version", "v1", "--repo"])
        .arg(dir.path("no-repo"))
        .args(["--machine", "m", "--branch", "b"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("google-benchmark measured it in one process"),
        "{err}"
    );
    let show = stdout_of(rigor().args(["track", "--db"]).arg(&db).args([
        "show",
        "BM_Fib/10/min_time:0.010/repeats:3",
        "--machine",
        "m",
        "--branch",
        "b",
    ]));
    assert!(show.contains("v1"), "{show}");
}

/// The three Google Benchmark files of one program (`gbench.json`, `gbench-2.json`,
/// `gbench-3.json`: three processes of the same binary).
const GBENCH: [&str; 3] = ["gbench.json", "gbench-2.json", "gbench-3.json"];

#[test]
fn analyze_reads_several_google_benchmark_files_as_process_executions() {
    let out = stdout_of(
        rigor()
            .arg("analyze")
            .args(GBENCH.map(fixture))
            .arg("--json"),
    );
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(one_process_warnings(&r), 0, "three processes were recorded");
    let benches = r["benchmarks"].as_array().unwrap();
    assert_eq!(benches.len(), 2);
    for b in benches {
        // 3 processes × 3 repetitions: variance components at both levels.
        assert_eq!(b["counts"], serde_json::json!([3, 9]), "{b}");
        assert_eq!(b["variance_components"].as_array().unwrap().len(), 2);
    }
    // The terminal summary warns of nothing missing.
    let text = String::from_utf8(
        rigor()
            .arg("analyze")
            .args(GBENCH.map(fixture))
            .output()
            .unwrap()
            .stderr,
    )
    .unwrap();
    assert!(!text.contains("one process"), "{text}");
}

#[test]
fn compare_reads_several_files_per_side() {
    let dir = Dir::new();
    // The same three processes with every time 20% longer.
    let slower: Vec<PathBuf> = GBENCH
        .iter()
        .map(|f| {
            let mut raw = read(f);
            for b in raw["benchmarks"].as_array_mut().unwrap() {
                let t = b["real_time"].as_f64().unwrap();
                b["real_time"] = (t * 1.2).into();
            }
            let p = dir.path(&format!("slow-{f}"));
            std::fs::write(&p, raw.to_string()).unwrap();
            p
        })
        .collect();
    let out = stdout_of(
        rigor()
            .arg("compare")
            .args(GBENCH.map(fixture))
            .arg("--json")
            .arg("--")
            .args(&slower),
    );
    let j: Value = serde_json::from_str(&out).unwrap();
    let comparisons = j["comparisons"].as_array().unwrap();
    assert_eq!(comparisons.len(), 2);
    for c in comparisons {
        assert!(close(c["ratio"].as_f64().unwrap(), 1.2, 1e-9), "{c}");
    }
    assert!(j["old"].as_str().unwrap().contains("gbench.json + "), "{j}");
    // Without `--`, more than two files cannot be split into sides.
    rigor()
        .arg("compare")
        .args(GBENCH.map(fixture))
        .assert()
        .failure()
        .stderr(predicates::str::contains("OLD... -- NEW..."));
}

#[test]
fn track_add_stores_several_google_benchmark_files_as_one_run() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    let out = rigor()
        .args(["track", "--db"])
        .arg(&db)
        .arg("add")
        .args(GBENCH.map(fixture))
        .args(["--version", "v1", "--repo"])
        .arg(dir.path("no-repo"))
        .args(["--machine", "m", "--branch", "b"])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stdout.matches("Stored ").count(), 1, "{stdout}");
    assert!(
        stdout.contains("gbench-3.json: ") && stdout.contains("run id 1"),
        "{stdout}"
    );
    assert!(!stderr.contains("one process"), "{stderr}");
}

/// `track add` checks that a result was measured at the revision it is stored as wherever the
/// format records a commit (rigor's results, ReBench's `# Source:` lines), and says so where it
/// does not.
#[test]
fn track_add_checks_the_commit_an_imported_file_records() {
    if !have("git") {
        eprintln!("SKIP: git is needed");
        return;
    }
    let dir = Dir::new();
    let repo = dir.path("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("f"), "x").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    let add = |file: &str| {
        let out = rigor()
            .args(["track", "--db"])
            .arg(dir.path("h.db"))
            .arg("add")
            .arg(fixture(file))
            .args(["--version", "HEAD", "--repo"])
            .arg(&repo)
            .args(["--machine", "m", "--branch", "b"])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    // The fixture's ReBench session names commit abc123.
    let err = add("rebench.data");
    assert!(
        err.contains("was measured at commit abc123, not at "),
        "{err}"
    );
    let err = add("hyperfine.json");
    assert!(
        err.contains("(hyperfine) records no commit, so that it was measured at "),
        "{err}"
    );
}

/// `rigor analyze FILES...` (plus `extra`): (exit status, stdout, stderr).
fn analyze_output(files: &[PathBuf], extra: &[&str]) -> (Option<i32>, String, String) {
    let out = rigor()
        .arg("analyze")
        .args(files)
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn google_benchmark_aggregates_only_is_refused_and_not_stored() {
    let (code, _, err) = analyze_output(&[fixture("gbench-aggregates.json")], &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("has only aggregates (mean, median, stddev)")
            && err.contains("--benchmark_report_aggregates_only"),
        "{err}"
    );
    let (code, stdout, stderr) = track_add_new("gbench-aggregates.json");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(!stdout.contains("Stored"), "{stdout}");
}

/// `rigor track add FILE --version v1` into a new history: (exit status, stdout, stderr).
fn track_add_new(file: &str) -> (Option<i32>, String, String) {
    let dir = Dir::new();
    let out = rigor()
        .args(["track", "--db"])
        .arg(dir.path("h.db"))
        .arg("add")
        .arg(fixture(file))
        .args(["--version", "v1", "--repo"])
        .arg(dir.path("no-repo"))
        .args(["--machine", "m", "--branch", "b"])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn google_benchmark_without_repetitions_shows_the_value_and_compares_without_a_verdict() {
    let (code, out, err) = analyze_output(&[fixture("gbench-single.json")], &[]);
    assert_eq!(code, Some(0), "{err}");
    let raw = read("gbench-single.json");
    let slow = raw["benchmarks"][1]["real_time"].as_f64().unwrap();
    assert!(
        out.contains(&format!(
            "Value:            {:.1} µs (one repetition: no interval)",
            slow / 1e3
        )),
        "{out}"
    );
    assert!(!out.contains("No result"), "{out}");
    assert!(err.contains("--benchmark_repetitions=N"), "{err}");
    // Within the file, a reference measured once has a value but no interval to compare: said
    // so, not "has no result" (a new user's file showed the reference's value beside it).
    let (code, _, err) = analyze_output(
        &[fixture("gbench-single.json")],
        &["--reference", "BM_Slow"],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(
            "no comparisons: the reference 'BM_Slow' has no interval to compare (1 measured \
             repetition(s); an interval needs at least 2)"
        ),
        "{err}"
    );
    // Two such files: the values side by side, no interval, no verdict, exit 0.
    let c = rigor()
        .arg("compare")
        .arg(fixture("gbench-single.json"))
        .arg(fixture("gbench-single-2.json"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&c.stdout);
    assert_eq!(c.status.code(), Some(0), "{text}");
    assert!(
        text.contains("BM_Slow (new) against BM_Slow (old)")
            && text.contains("no interval (measured once), so no verdict"),
        "{text}"
    );
    assert!(
        !text.contains("slower") && !text.contains("faster"),
        "{text}"
    );
    // No verdict is not "shown equivalent or better": `--fail-on inconclusive` fails on it (it
    // passed), `--fail-on regression` does not (no regression is shown).
    let gate = |rule: &str| {
        rigor()
            .arg("compare")
            .arg(fixture("gbench-single.json"))
            .arg(fixture("gbench-single-2.json"))
            .args(["--fail-on", rule])
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(gate("inconclusive"), Some(1));
    assert_eq!(gate("regression"), Some(0));
    // Nothing with an interval to track: `track add` refuses rather than say "Stored".
    let (code, stdout, stderr) = track_add_new("gbench-single.json");
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(!stdout.contains("Stored"), "{stdout}");
    assert!(
        stderr.contains("no benchmark was measured more than once (repetition)"),
        "{stderr}"
    );
}

#[test]
fn an_unrelated_suite_is_not_compared_but_a_benchmark_s_instances_are() {
    // BM_StringCreation and BM_Slow: two different benchmarks.
    let (code, out, err) = analyze_output(&[fixture("gbench-suite.json")], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        !out.contains("Comparisons") && !out.contains("slower"),
        "{out}"
    );
    // Unless the user names a reference.
    let (_, out, _) = analyze_output(
        &[fixture("gbench-suite.json")],
        &["--reference", "BM_StringCreation"],
    );
    assert!(out.contains("BM_Slow is "), "{out}");
    // BM_Fib/10 and BM_Fib/15: one parameterised benchmark, compared.
    let (_, out, _) = analyze_output(&[fixture("gbench.json")], &[]);
    assert!(
        out.contains("BM_Fib/15/min_time:0.010/repeats:3 is "),
        "{out}"
    );
    // hyperfine's commands were measured to be compared.
    let (_, out, _) = analyze_output(&[fixture("hyperfine.json")], &[]);
    assert!(out.contains("Comparisons"), "{out}");
}

#[test]
fn rebench_1_4_file_is_recognised_and_memory_kept_as_peak_memory_with_a_note() {
    let (code, out, err) = analyze_output(&[fixture("rebench-1.4.data")], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("Benchmark 1: 0.02 sleep Sleeps 1"), "{out}");
    assert!(
        err.contains(
            "rebench: kept 6 values of 'MaxRSS' (in kb) as the metric 'peak-memory': \
             `rigor analyze --metric peak-memory` analyses them"
        ),
        "{err}"
    );
}

#[test]
fn imported_peak_memory_is_not_shown_beside_cpu_times_the_file_does_not_have() {
    // pyperf records each run's peak memory but no CPU times: no "User/system: 0 ns" line.
    let (code, out, err) = analyze_output(&[fixture("pyperf.json")], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("Benchmark 1: sum-range"), "{out}");
    assert!(!out.contains("User/system"), "{out}");
}

#[test]
fn hyperfine_ignore_failure_runs_count_and_parameters_are_kept() {
    let r = analysed("hyperfine-ignore-failure.json", &[]);
    let raw = read("hyperfine-ignore-failure.json");
    for h in raw["results"].as_array().unwrap() {
        let b = bench(&r, h["command"].as_str().unwrap());
        // hyperfine's own mean, its failed runs included.
        assert!(close(
            b["mean"].as_f64().unwrap(),
            h["mean"].as_f64().unwrap(),
            1e-9
        ));
        assert_eq!(b["parameters"], h["parameters"]);
    }
    // The parameters draw the report's parameter plot.
    let dir = Dir::new();
    let html = dir.path("r.html");
    let out = rigor()
        .arg("report")
        .arg(fixture("hyperfine-ignore-failure.json"))
        .arg("--out")
        .arg(&html)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Time against the parameter"));
}

/// `compare` of hyperfine files says which runs exited non-zero and were measured all the
/// same (hyperfine's `-i`): their times are in the comparison, and only `analyze` said so.
#[test]
fn compare_says_which_runs_exited_non_zero_under_ignore_failure() {
    let dir = tempfile::tempdir().unwrap();
    let new = read("hyperfine-ignore-failure.json");
    let mut old = new.clone();
    for r in old["results"].as_array_mut().unwrap() {
        for c in r["exit_codes"].as_array_mut().unwrap() {
            *c = 0.into();
        }
        for t in r["times"].as_array_mut().unwrap() {
            *t = (t.as_f64().unwrap() * 1.01).into();
        }
    }
    let old_path = dir.path().join("old.json");
    std::fs::write(&old_path, old.to_string()).unwrap();
    let out = rigor()
        .arg("compare")
        .arg(&old_path)
        .arg(fixture("hyperfine-ignore-failure.json"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    for r in new["results"].as_array().unwrap() {
        let codes = r["exit_codes"].as_array().unwrap();
        let non_zero = codes.iter().filter(|c| c.as_i64() != Some(0)).count();
        let expected = format!(
            "'{}' (new): {non_zero} of {} measured executions exited with a non-zero status",
            r["command"].as_str().unwrap(),
            codes.len()
        );
        assert_eq!(non_zero > 0, err.contains(&expected), "{expected}\n{err}");
    }
    assert!(!err.contains("(old):"), "{err}");
}

#[test]
fn criterion_baseline_folder_and_pyperf_gzip_are_read() {
    let (code, out, err) = analyze_output(&[fixture("criterion-baseline/fib 10/main")], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("Benchmark 1: fib 10"), "{out}");
    assert!(
        err.contains("'fib 10': the time criterion prints is the slope"),
        "{err}"
    );
    let (code, out, err) = analyze_output(&[fixture("pyperf.json.gz")], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("Benchmark 1: sum-range"), "{out}");
}

#[test]
fn the_same_file_twice_is_refused() {
    let (code, _, err) = analyze_output(&[fixture("gbench.json"), fixture("gbench.json")], &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is the same file as"), "{err}");
}

#[test]
fn compare_of_one_jmh_fork_says_one_process_and_same_named_commands_are_matched_by_number() {
    // One fork of three iterations: no interval, because one process, not one measurement.
    let dir = Dir::new();
    let jmh = |score: u32| {
        format!(
            r#"[{{"benchmark":"m","mode":"avgt","primaryMetric":{{"scoreUnit":"ns/op","rawData":[[{score},{},{}]]}}}}]"#,
            score + 1,
            score + 2
        )
    };
    let (old, new) = (dir.path("old.json"), dir.path("new.json"));
    std::fs::write(&old, jmh(100)).unwrap();
    std::fs::write(&new, jmh(120)).unwrap();
    let c = rigor().arg("compare").arg(&old).arg(&new).output().unwrap();
    let text = String::from_utf8_lossy(&c.stdout);
    assert_eq!(c.status.code(), Some(0), "{text}");
    assert!(
        text.contains("no interval (measured in one process), so no verdict"),
        "{text}"
    );
    assert!(!text.contains("measured once"), "{text}");
    // hyperfine given one command twice: each numbered benchmark is compared with its namesake
    // (the new file: the second command's times doubled).
    let mut twice = read("hyperfine-same-command.json");
    for t in twice["results"][1]["times"].as_array_mut().unwrap() {
        *t = Value::from(t.as_f64().unwrap() * 2.0);
    }
    let slower = dir.path("slower.json");
    std::fs::write(&slower, twice.to_string()).unwrap();
    let c = rigor()
        .arg("compare")
        .arg(fixture("hyperfine-same-command.json"))
        .arg(&slower)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&c.stdout);
    let err = String::from_utf8_lossy(&c.stderr);
    let line = |name: &str| {
        text.lines()
            .find(|l| l.contains(&format!("{name} (new)")))
            .unwrap_or_else(|| panic!("no {name}: {text}{err}"))
            .to_string()
    };
    assert!(line("./prog_O2 #1").contains("(0.00%)"), "{text}");
    assert!(line("./prog_O2 #2").contains("2.00× slower"), "{text}");
}
