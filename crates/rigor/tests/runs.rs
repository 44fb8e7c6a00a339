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

/// Runs of one benchmark, `name`, each at `means[k]` ms: what one version gives across runs
/// whose machine state moved its time.
fn version_runs(dir: &Dir, tag: &str, means: &[f64]) -> Vec<PathBuf> {
    means
        .iter()
        .enumerate()
        .map(|(k, mean)| {
            let path = dir.path(&format!("{tag}{k}.json"));
            stdout_of(
                sim()
                    .args(["-r", "10", "--seed", &(k + 11).to_string(), "-n", "parse"])
                    .arg(format!("mean={mean}ms,execution=0.5%"))
                    .arg("--export-json")
                    .arg(&path),
            );
            path
        })
        .collect()
}

/// Two versions measured in runs apart: the same code whose runs spread by a few percent is
/// not called faster or slower (a pair of separate runs would be), and a step well beyond the
/// runs' spread is a regression; the figures are Welch's t on the runs' logarithms, computed
/// here from the runs' own means.
#[test]
fn versions_in_several_runs_are_compared_across_them() {
    let dir = Dir::new();
    let old = version_runs(&dir, "old", &[10.0, 10.4, 9.8, 10.2]);
    let same = version_runs(&dir, "same", &[9.9, 10.3, 10.1]);
    let slower = version_runs(&dir, "slow", &[11.5, 11.9, 11.6]);
    let compared = |new: &[PathBuf], extra: &[&str]| {
        let mut cmd = rigor();
        cmd.arg("compare")
            .args(extra)
            .args(&old)
            .arg("--")
            .args(new);
        cmd.assert()
    };
    let a = compared(&same, &["--fail-on", "change"]).code(0);
    let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(
        out.contains("Compared across runs: 4 of the old version, 3 of the new"),
        "{out}"
    );
    assert!(out.contains("verdict: inconclusive"), "{out}");
    let a = compared(&slower, &["--fail-on", "regression"]).code(1);
    let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(out.contains("% slower than old (95% CI +"), "{out}");
    assert!(out.contains("verdict: regression"), "{out}");
    // Measured one version after the other: the drift between them is said to be in it.
    assert!(
        out.contains("every run of one version came before every run of the other"),
        "{out}"
    );
    // … and a gate on warnings fails on it, where the same code is inconclusive.
    compared(&same, &["--fail-on", "warning"]).code(1);

    let across: serde_json::Value = serde_json::from_str(&stdout_of(
        rigor()
            .args(["compare", "--json"])
            .args(&old)
            .arg("--")
            .args(&slower),
    ))
    .unwrap();
    let logs = |files: &[PathBuf]| -> Vec<f64> {
        files
            .iter()
            .map(|f| json(f)["benchmarks"][0]["mean"].as_f64().unwrap().ln())
            .collect()
    };
    let (o, n) = (logs(&old), logs(&slower));
    let moments = |v: &[f64]| {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
        (m, var / v.len() as f64)
    };
    let ((mo, vo), (mn, vn)) = (moments(&o), moments(&n));
    let df = (vo + vn).powi(2) / (vo * vo / 3.0 + vn * vn / 2.0);
    let r = &across["rows"][0]["ratio"];
    assert!((r["ratio"].as_f64().unwrap() / (mn - mo).exp() - 1.0).abs() < 1e-9);
    assert!((r["df"].as_f64().unwrap() - df).abs() < 1e-9);
    assert_eq!(across["rows"][0]["verdict"], "regression");

    // A table for a pull request: to standard output, the rest to standard error.
    let table = stdout_of(
        rigor()
            .args(["compare", "--export-markdown", "-"])
            .args(&old)
            .arg("--")
            .args(&slower),
    );
    assert!(
        table.starts_with("Across runs: 4 of the old version, 3 of the new"),
        "{table}"
    );
    assert!(table.contains("| `parse` |"), "{table}");
    assert!(table.contains("| regression |"), "{table}");
}

/// One run on a side has no spread of its own: the error says so and what to run instead.
#[test]
fn one_run_a_side_among_several_is_refused() {
    let dir = Dir::new();
    let old = version_runs(&dir, "old", &[10.0, 10.2]);
    let new = version_runs(&dir, "new", &[10.1]);
    rigor()
        .arg("compare")
        .args(&old)
        .arg("--")
        .args(&new)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("the new version has 1 run")
                .and(predicate::str::contains("at least 2 runs a side")),
        );
}

/// One version's runs all measured beside busy processes (others kept 1.6 of 2 CPUs busy), the
/// other's quiet: a 20% step is not called a regression, since the load is in the difference
/// and no spread between runs holds it; a warning says why. Beside the same steady load of
/// about one CPU of two (0.99 against 1.05), the runs decide.
#[test]
fn runs_of_one_version_busy_and_the_other_quiet_are_withheld() {
    let dir = Dir::new();
    let old = version_runs(&dir, "old", &[10.0, 10.2, 9.9]);
    let new = version_runs(&dir, "new", &[12.0, 12.2, 11.9]);
    let others = |files: &[PathBuf], used: f64| {
        for f in files {
            let mut v = json(f);
            v["provenance"]["others_cpus"] = serde_json::json!(used);
            v["environment"]["cpus"] = serde_json::json!(2);
            std::fs::write(f, serde_json::to_string(&v).unwrap()).unwrap();
        }
    };
    others(&old, 0.02);
    others(&new, 1.6);
    let out = rigor()
        .arg("compare")
        .args(["--json", "--fail-on", "regression"])
        .args(&old)
        .arg("--")
        .args(&new)
        .assert()
        .success()
        .get_output()
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &v["rows"][0];
    assert_eq!(row["verdict"], "inconclusive", "{v}");
    assert_eq!(row["withheld"], true, "{v}");
    assert_eq!(v["warnings"][0]["kind"], "others_differ", "{v}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("busy"), "{stderr}");
    // `--fail-on warning` fails on it.
    rigor()
        .arg("compare")
        .args(["--fail-on", "warning"])
        .args(&old)
        .arg("--")
        .args(&new)
        .assert()
        .code(1);
    // The same steady load on both sides, one just under half the CPUs: the runs decide.
    others(&old, 0.99);
    others(&new, 1.05);
    rigor()
        .arg("compare")
        .args(["--fail-on", "regression"])
        .args(&old)
        .arg("--")
        .args(&new)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("regression"));
}

/// A benchmark that only a later run measured is named as left out, as one only the first run
/// measured is.
#[test]
fn a_benchmark_of_a_later_run_alone_is_named_as_left_out() {
    let dir = Dir::new();
    let run = |k: usize, other: &str| {
        let path = dir.path(&format!("mixed{k}.json"));
        stdout_of(
            sim()
                .args(["-r", "5", "--seed", &(k + 1).to_string()])
                .args(["-n", "common", "-n", other])
                .args(["mean=10ms,execution=0.5%", "mean=5ms,execution=0.5%"])
                .arg("--export-json")
                .arg(&path),
        );
        path
    };
    let (a, b) = (run(0, "first-only"), run(1, "later-only"));
    let out = stdout_of(rigor().arg("analyze").arg(&a).arg(&b));
    assert!(out.contains("first-only: left out"), "{out}");
    assert!(out.contains("later-only: left out"), "{out}");
}

/// A `--` with nothing after it is not a comparison of the files before it with each other, and
/// an option after it is not a missing file: each error says where things go.
#[test]
fn a_dash_dash_without_new_runs_or_with_an_option_after_it_is_refused() {
    let dir = Dir::new();
    let old = version_runs(&dir, "old", &[10.0, 10.2]);
    let new = version_runs(&dir, "new", &[10.1, 10.3]);
    rigor()
        .arg("compare")
        .args(&old)
        .arg("--")
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("nothing after `--`")
                .and(predicate::str::contains("-- NEW1 NEW2")),
        );
    rigor()
        .arg("compare")
        .args(&old)
        .arg("--")
        .args(&new)
        .args(["--fail-on", "regression"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("'--fail-on' comes after `--`")
                .and(predicate::str::contains("put the options before the `--`")),
        );
    // Two files without `--` are still one old and one new.
    rigor()
        .arg("compare")
        .arg(&old[0])
        .arg(&new[0])
        .assert()
        .success();
}

/// A run with its commands in the other order compared them the other way round: its ratio is
/// taken inverted, not left out. A file that cannot be read among the runs is named in the error.
#[test]
fn a_run_in_the_other_order_counts_and_a_missing_one_is_named() {
    let dir = Dir::new();
    let mut files = runs(&dir, &[1.10, 1.10]);
    let reversed = dir.path("reversed.json");
    stdout_of(
        sim()
            .args(["-r", "10", "--seed", "9"])
            .args(["-n", "new", "-n", "old"])
            .args(["mean=11ms,execution=0.5%", "mean=10ms,execution=0.5%"])
            .arg("--export-json")
            .arg(&reversed),
    );
    assert_eq!(json(&reversed)["comparisons"][0]["baseline"], "new");
    files.push(reversed);
    let out = stdout_of(rigor().arg("analyze").args(&files));
    assert!(out.contains("Comparisons across 3 runs"), "{out}");
    assert!(out.contains("new is 10.0% slower than old"), "{out}");
    assert!(!out.contains("left out"), "{out}");

    files.push(dir.path("missing.json"));
    rigor()
        .arg("analyze")
        .args(&files)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.json: No such file"));
}

/// Both versions' runs beside the same load (others kept about one CPU of two busy), but the
/// new version's executions waited for a CPU 15% of their time and the old one's 0.4% (a trial
/// here: a C program that sleeps, measured beside one busy loop and then two, came out 12%
/// slower, unwarned): the difference holds that contention, and the verdict is withheld
/// with a warning that says how long each waited. Waiting alike, the runs decide. Without the
/// run queue, the runs' CPU shares judge as a comparison of two results does.
#[test]
fn runs_that_waited_for_a_cpu_apart_are_withheld() {
    let dir = Dir::new();
    let old = version_runs(&dir, "old", &[10.0, 10.2, 9.9]);
    let new = version_runs(&dir, "new", &[12.0, 12.2, 11.9]);
    for (i, f) in old.iter().chain(&new).enumerate() {
        let mut v = json(f);
        v["provenance"]["others_cpus"] = serde_json::json!(1.0 + 0.01 * i as f64);
        v["environment"]["cpus"] = serde_json::json!(2);
        std::fs::write(f, serde_json::to_string(&v).unwrap()).unwrap();
    }
    let waited = |files: &[PathBuf], share: f64| {
        each_execution(files, |k, e| {
            let wall = e["wall"].as_f64().unwrap();
            let jitter = 1.0 + 0.01 * (k % 3) as f64;
            e["run_delay"] = serde_json::json!(share * jitter * wall);
        });
    };
    waited(&old, 0.004);
    waited(&new, 0.15);
    let compared = || {
        rigor()
            .arg("compare")
            .args(["--json", "--fail-on", "regression"])
            .args(&old)
            .arg("--")
            .args(&new)
            .output()
            .unwrap()
    };
    let out = compared();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &v["rows"][0];
    assert_eq!(row["verdict"], "inconclusive", "{v}");
    assert_eq!(row["withheld"], true, "{v}");
    assert_eq!(v["warnings"][0]["kind"], "queue_differs", "{v}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("in the new version's runs and for 0.4% in the old version's"),
        "{stderr}"
    );
    // The old runs the ones that waited: contention would only have slowed them, and the new
    // runs are slower still, by more than the 5% a load could have sped the old ones up: the
    // regression stands, with a note.
    waited(&old, 0.15);
    waited(&new, 0.004);
    let out = compared();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rows"][0]["verdict"], "regression", "{v}");
    assert_ne!(v["rows"][0]["withheld"], true, "{v}");
    assert_eq!(v["warnings"][1]["kind"], "stands_despite_contention", "{v}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "was measured under more contention in the old version's than in the new version's \
             runs and was still faster there"
        ),
        "{stderr}"
    );
    waited(&old, 0.004);
    // Waiting alike: the 20% step is the code's.
    waited(&new, 0.004);
    let out = compared();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rows"][0]["verdict"], "regression", "{v}");
    // Where the run queue is not told (a command run through a shell, whose work runs in a
    // child), each run's CPU share judges: the new runs' executions on a CPU 40% of their time
    // against 99.7% (a new user's runs beside two busy loops against quiet ones, the machine
    // busy with other work throughout, read 2.6× slower, regression, exit 1 before).
    for (files, share) in [(&old, 0.997), (&new, 0.4)] {
        each_execution(files, |k, e| {
            let wall = e["wall"].as_f64().unwrap();
            e.as_object_mut().unwrap().remove("run_delay");
            e["user"] = serde_json::json!(share * (1.0 - 0.001 * (k % 3) as f64) * wall);
            e["sys"] = serde_json::json!(0.0);
        });
    }
    let out = compared();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rows"][0]["withheld"], true, "{v}");
    assert_eq!(v["warnings"][0]["kind"], "contention_differs", "{v}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("had a CPU for 40.0% of its wall time in the new version's runs and for 99.6% in the old"),
        "{stderr}"
    );
    // The new runs known quiet (others kept 0.02 CPUs busy, the old runs' 0.9 not known busy):
    // their lower share is the code's own waiting, and the 20% step a regression.
    for (files, used) in [(&old, 0.9), (&new, 0.02)] {
        for f in files {
            let mut v = json(f);
            v["provenance"]["others_cpus"] = serde_json::json!(used);
            std::fs::write(f, serde_json::to_string(&v).unwrap()).unwrap();
        }
    }
    let out = compared();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rows"][0]["verdict"], "regression", "{v}");
}

/// Rewrites every execution of every benchmark in `files` with `edit` (given its index).
fn each_execution(files: &[PathBuf], edit: impl Fn(usize, &mut serde_json::Value)) {
    for f in files {
        let mut v = json(f);
        for b in v["benchmarks"].as_array_mut().unwrap() {
            for (k, e) in b["executions"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .enumerate()
            {
                edit(k, e);
            }
        }
        std::fs::write(f, serde_json::to_string(&v).unwrap()).unwrap();
    }
}

/// Runs that ran different commands under one name are pooled only with a warning that names
/// them (a new user's 30%-slower version went into the first's mean without a word), and each
/// run's own warnings are said, named by its file, and count for `--fail-on warning` as they
/// do for one run (several runs passed where each alone failed).
#[test]
fn runs_of_other_commands_under_one_name_and_the_runs_warnings_are_said() {
    let dir = Dir::new();
    let files: Vec<PathBuf> = ["mean=10ms,execution=1%", "mean=13ms,execution=1%"]
        .iter()
        .enumerate()
        .map(|(k, spec)| {
            let path = dir.path(&format!("run{k}.json"));
            stdout_of(
                sim()
                    .args([
                        "-r",
                        "10",
                        "--seed",
                        &(k + 1).to_string(),
                        "-n",
                        "prog",
                        spec,
                    ])
                    .arg("--export-json")
                    .arg(&path),
            );
            path
        })
        .collect();
    // The first run's file as a busy machine's (what a loaded run records).
    let mut busy = json(&files[0]);
    busy["warnings"] = serde_json::json!([{"kind": "busy_machine", "load": 196, "cpus": 2}]);
    std::fs::write(&files[0], busy.to_string()).unwrap();
    let out = rigor()
        .arg("analyze")
        .args(&files)
        .args(["--fail-on", "warning"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "'prog' ran different commands in the runs analysed together ('mean=10ms,execution=1%' \
             in "
        ) && err.contains("they are pooled as one benchmark"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "rigor: warning: {}: the load average reached 1.96",
            files[0].display()
        )),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(1), "{err}");
}

/// Runs that compared a statistic other than the mean (a `rigor bench` result's minimum) are
/// combined on it, and say so, as their comparisons are (the rows had shown the mean).
#[test]
fn runs_that_compared_the_minimum_combine_the_minimum() {
    let dir = Dir::new();
    let files: Vec<PathBuf> = (1..=3)
        .map(|k| {
            let path = dir.path(&format!("run{k}.json"));
            stdout_of(
                sim()
                    .args(["-r", "8", "--seed", &k.to_string(), "-n", "f"])
                    .args(["--estimator", "min", "mean=10ms,execution=3%"])
                    .arg("--export-json")
                    .arg(&path),
            );
            path
        })
        .collect();
    let out = stdout_of(rigor().arg("analyze").args(&files));
    assert!(
        out.contains("    Minimum ± 95% CI:  ") && out.contains("    runs' minimums: "),
        "{out}"
    );
    // Each run's value is its minimum, below its mean.
    let first = json(&files[0]);
    let mean = first["benchmarks"][0]["mean"].as_f64().unwrap();
    let shown: f64 = out
        .split("runs' minimums: ")
        .nth(1)
        .and_then(|r| r.split(" ms").next())
        .and_then(|v| v.trim().parse().ok())
        .unwrap();
    assert!(
        shown / 1000.0 < mean,
        "{shown} ms against a mean of {mean} s"
    );
    let mean_out = stdout_of(
        rigor()
            .args(["analyze", "--estimator", "mean"])
            .args(&files),
    );
    assert!(mean_out.contains("    Mean ± 95% CI:  "), "{mean_out}");
}

/// `rigor report` draws one run: given several, it says that `analyze` takes them together
/// (it said only that a rigor file records its own executions), and writes nothing.
#[test]
fn report_of_several_runs_points_to_analyze() {
    let dir = Dir::new();
    let files = runs(&dir, &[1.02, 1.10]);
    let html = dir.path("r.html");
    rigor()
        .arg("report")
        .args(&files)
        .arg("-o")
        .arg(&html)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "rigor report draws one run, and was given 2 runs of one experiment: `rigor analyze`",
        ));
    assert!(!html.exists());
    // One of them is drawn.
    rigor()
        .arg("report")
        .arg(&files[0])
        .arg("-o")
        .arg(&html)
        .assert()
        .success();
    assert!(html.exists());
}
