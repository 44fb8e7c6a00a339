//! Importers: `rigor analyze`, `compare` and `track add` read other tools' results. The files
//! under `fixtures/import/` were written by the tools themselves where they install here
//! (hyperfine, pyperf, Google Benchmark, criterion; see `scripts/import_fixtures.sh`) and by hand
//! otherwise (see the folder's README). Each test checks rigor's mean against a figure the tool
//! itself wrote, or against the raw values read independently here.

mod common;

use common::gitrepo::{git, have};

use std::path::PathBuf;

use common::{Dir, rigor, stdout_of};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
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
fn hyperfine_times_are_executions() {
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

#[test]
fn pyperf_runs_are_processes_and_warmups_stay_warmups() {
    let r = analysed("pyperf.json", &[]);
    let raw = read("pyperf.json");
    let runs: Vec<&Value> = raw["benchmarks"][0]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("values").is_some())
        .collect();
    let b = bench(&r, "sum-range");
    assert_eq!(b["level_names"], serde_json::json!(["run", "value"]));
    assert_eq!(b["counts"][0], runs.len());
    let warm = b["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["warmup"] == true)
        .count();
    let expected_warm: usize = runs
        .iter()
        .map(|r| r["warmups"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(warm, expected_warm);
    // Mean of the runs' means (balanced: every run has the same number of values).
    let means: Vec<f64> = runs
        .iter()
        .map(|r| {
            let v: Vec<f64> = r["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            v.iter().sum::<f64>() / v.len() as f64
        })
        .collect();
    let expected = means.iter().sum::<f64>() / means.len() as f64;
    assert!(close(b["mean"].as_f64().unwrap(), expected, 1e-9));
}

#[test]
fn google_benchmark_repetitions_skip_aggregates_and_warn_one_process() {
    let r = analysed("gbench.json", &[]);
    let raw = read("gbench.json");
    let aggregates = raw["benchmarks"].as_array().unwrap();
    let benches = r["benchmarks"].as_array().unwrap();
    assert_eq!(benches.len(), 2);
    for b in benches {
        // Google Benchmark's own `_mean` aggregate of the repetitions.
        let mean = aggregates
            .iter()
            .find(|a| a["run_name"] == b["name"] && a["aggregate_name"] == "mean")
            .unwrap();
        assert_eq!(mean["time_unit"], "ns");
        assert!(close(
            b["mean"].as_f64().unwrap(),
            mean["real_time"].as_f64().unwrap() * 1e-9,
            1e-9
        ));
        assert_eq!(b["counts"][0], mean["repetitions"]);
    }
    assert_eq!(one_process_warnings(&r), 2);
}

#[test]
fn criterion_directory_samples_match_its_estimates() {
    let r = analysed("criterion", &[]);
    for name in ["fib 10", "fib 12"] {
        let b = bench(&r, name);
        assert_eq!(b["level_names"], serde_json::json!(["sample"]));
        let est = read(&format!("criterion/{name}/new/estimates.json"));
        // criterion's mean of the samples' per-iteration times (ns).
        let m = est["mean"]["point_estimate"].as_f64().unwrap() * 1e-9;
        assert!(
            close(b["mean"].as_f64().unwrap(), m, 1e-9),
            "{name}: {} vs {m}",
            b["mean"]
        );
    }
    assert_eq!(one_process_warnings(&r), 2);
    // One sample.json, sniffed by content, is named by its benchmark.json.
    let one = analysed("criterion/fib 10/new/sample.json", &[]);
    assert_eq!(one["benchmarks"][0]["name"], "fib 10");
    let text = stdout_of(rigor().arg("analyze").arg(fixture("criterion")));
    assert!(text.contains("10 samples"), "{text}");
}

#[test]
fn warning_names_the_missing_level_in_the_terminal() {
    let out = rigor()
        .arg("analyze")
        .arg(fixture("criterion"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success());
    assert!(
        err.contains("'fib 10': criterion measured it in one process: the interval cannot see how the time varies between executions"),
        "{err}"
    );
}

#[test]
fn cargo_criterion_messages() {
    let r = analysed("cargo-criterion.jsonl", &[]);
    let b = bench(&r, "fib 10");
    // 651000/3000, 1290000/6000, 1962000/9000, 2610000/12000, 3240000/15000 ns.
    let per: [f64; 5] = [217.0, 215.0, 218.0, 217.5, 216.0];
    let expected = per.iter().sum::<f64>() / 5.0 * 1e-9;
    assert!(close(b["mean"].as_f64().unwrap(), expected, 1e-12));
    assert_eq!(one_process_warnings(&r), 1);
}

#[test]
fn jmh_forks_are_processes_and_throughput_is_inverted() {
    let r = analysed("jmh.json", &[]);
    let avgt = bench(&r, "org.sample.MyBenchmark.sum(size=100)");
    assert_eq!(
        avgt["level_names"],
        serde_json::json!(["fork", "iteration"])
    );
    assert_eq!(avgt["counts"], serde_json::json!([3, 12]));
    // JMH's score: the mean of all raw iterations (balanced forks), ns/op.
    assert!(close(avgt["mean"].as_f64().unwrap(), 52.308_333e-9, 1e-6));
    let thrpt = bench(&r, "org.sample.MyBenchmark.sumThroughput");
    // ops/us → seconds per op: 1e-6 / score.
    let first = thrpt["samples"][0]["value"].as_f64().unwrap();
    assert!(close(first, 1e-6 / 19.4, 1e-12));
    assert_eq!(one_process_warnings(&r), 0);
}

#[test]
fn benchmarktools_groups_become_benchmarks() {
    let r = analysed("benchmarktools.json", &[]);
    let sum = bench(&r, "sum");
    let expected = [11.2, 11.4, 11.3, 11.9, 11.2, 11.5].iter().sum::<f64>() / 6.0 * 1e-9;
    assert!(close(sum["mean"].as_f64().unwrap(), expected, 1e-12));
    assert_eq!(bench(&r, "sort")["counts"][0], 4);
    assert_eq!(one_process_warnings(&r), 2);
}

#[test]
fn rebench_invocations_and_iterations() {
    let r = analysed("rebench.data", &[]);
    let b = bench(&r, "Bounce SOMns macro 1");
    assert_eq!(
        b["level_names"],
        serde_json::json!(["invocation", "iteration"])
    );
    assert_eq!(b["counts"], serde_json::json!([3, 12]));
    let all = [
        101.2, 99.8, 98.7, 99.1, 104.6, 103.9, 104.2, 103.5, 100.4, 100.1, 99.5, 99.9,
    ];
    let expected = all.iter().sum::<f64>() / 12.0 * 1e-3;
    assert!(close(b["mean"].as_f64().unwrap(), expected, 1e-12));
}

#[test]
fn krun_process_executions() {
    let r = analysed("krun.json", &[]);
    let b = bench(&r, "nbody:PyPy:default-python");
    assert_eq!(b["levels"], serde_json::json!(["execution", "iteration"]));
    assert_eq!(b["counts"], serde_json::json!([3, 15]));
}

#[test]
fn format_flag_overrides_sniffing_and_errors_name_the_place() {
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
    assert!(!out.status.success());
    assert!(
        err.contains("h.json: results[0].times[2]: expected a number, found \"x\""),
        "{err}"
    );

    std::fs::write(&bad, r#"{"results":[{"command":"a","times":[0.1,-0.2]}]}"#).unwrap();
    let err = String::from_utf8_lossy(&rigor().arg("analyze").arg(&bad).output().unwrap().stderr)
        .to_string();
    assert!(err.contains("results[0].times[1]: negative time"), "{err}");

    std::fs::write(&bad, "hello\n").unwrap();
    let err = String::from_utf8_lossy(&rigor().arg("analyze").arg(&bad).output().unwrap().stderr)
        .to_string();
    assert!(err.contains("not a format rigor reads"), "{err}");

    let data = dir.path("r.data");
    std::fs::write(
        &data,
        "1\t1\t5.0\tms\ttotal\tA\tE\tS\n1\t2\tfast\tms\ttotal\tA\tE\tS\n",
    )
    .unwrap();
    let err = String::from_utf8_lossy(&rigor().arg("analyze").arg(&data).output().unwrap().stderr)
        .to_string();
    assert!(
        err.contains("r.data: line 2: value 'fast' is not a number"),
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

/// The mean of Google Benchmark's own `_mean` aggregate of `name` in the fixture `file`, in s.
fn gbench_mean(file: &str, name: &Value) -> f64 {
    let raw = read(file);
    let agg = raw["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["run_name"] == *name && a["aggregate_name"] == "mean")
        .unwrap()
        .clone();
    agg["real_time"].as_f64().unwrap() * 1e-9
}

#[test]
fn several_google_benchmark_files_are_process_executions() {
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
        // 3 processes × 3 repetitions, named as Google Benchmark names them.
        assert_eq!(b["counts"], serde_json::json!([3, 9]), "{b}");
        assert_eq!(
            b["level_names"],
            serde_json::json!(["execution", "repetition"])
        );
        // Balanced: the mean of the three files' own means.
        let expected = GBENCH
            .iter()
            .map(|f| gbench_mean(f, &b["name"]))
            .sum::<f64>()
            / 3.0;
        assert!(close(b["mean"].as_f64().unwrap(), expected, 1e-9), "{b}");
        // Variance components at both levels: the interval now sees the processes.
        assert_eq!(b["variance_components"].as_array().unwrap().len(), 2);
    }
    // The terminal summary says executions, and warns of nothing missing.
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
fn files_of_a_format_that_records_processes_are_not_read_together() {
    rigor()
        .arg("analyze")
        .arg(fixture("gbench.json"))
        .arg(fixture("hyperfine.json"))
        .assert()
        .failure()
        .stderr(predicates::str::contains(format!(
            "{}: top level: is a hyperfine file, which records its own process executions",
            fixture("hyperfine.json").display()
        )));
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
    assert!(stdout.contains("gbench-3.json as run 1"), "{stdout}");
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
