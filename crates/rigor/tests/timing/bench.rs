//! `rigor bench` on a tiny Cargo project that depends on the workspace's rigor-bench by path.
//! `rigor bench` measures real processes only (no simulator): it tunes each function's
//! evaluations by timing them, and a 20× slower function must be found a regression: the timing
//! tier (see `main.rs`).
//!
//! The project is written to a temporary directory with the workspace's Cargo.lock (so the
//! offline build resolves the versions already downloaded) and builds into
//! `target/bench-fixture` (kept, so later runs reuse it); its bench profile is lightly optimised
//! and build scripts and proc macros unoptimised, to keep the first build short.

use std::path::{Path, PathBuf};

use crate::common::gitrepo::git;
use crate::common::{Dir, json, rigor};

const MANIFEST: &str = r#"[package]
name = "bench-fixture"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dev-dependencies]
rigor-bench = { path = "RIGOR_BENCH" }

[[bench]]
name = "speed"
harness = false

# A libtest bench target: rigor bench skips it.
[[bench]]
name = "plain"

[profile.bench]
opt-level = 1
debug = false

[profile.bench.build-override]
opt-level = 0
"#;

const SPEED: &str = r#"use rigor_bench::{Bench, Harness, black_box};

fn spin(n: u64) -> u64 {
    (0..n).fold(0, |a, x| a ^ black_box(x))
}

fn main() {
    // FIXTURE_SLOW makes `spin` 20 times slower: a regression between two runs.
    let n = if std::env::var_os("FIXTURE_SLOW").is_some() { 2_000 } else { 100 };
    // FIXTURE_HANG makes `spin` never return; FIXTURE_PANIC makes `sum` panic.
    let hang = std::env::var_os("FIXTURE_HANG").is_some();
    let panics = std::env::var_os("FIXTURE_PANIC").is_some();
    Harness::new()
        .bench("spin", move |b: &mut Bench| {
            b.iter(|| {
                while hang {
                    std::hint::spin_loop();
                }
                spin(black_box(n))
            })
        })
        .bench_with_inputs("sum", [10u64, 1000], move |b, &k| {
            assert!(!panics, "sum cannot add up");
            b.iter(|| (0..black_box(k)).sum::<u64>())
        })
        // A group with settings of its own, two functions across an input.
        .group("scan")
        .samples(6)
        .evals(3)
        .warm_up(std::time::Duration::ZERO)
        .bench_with_inputs("xor", [10u64, 100, 1000], |b, &k| b.iter(|| spin(black_box(k))))
        .bench_with_inputs("add", [10u64, 100, 1000], |b, &k| {
            b.iter(|| (0..black_box(k)).sum::<u64>())
        })
        .finish()
        .run();
}
"#;

const PLAIN: &str = "#[test]\nfn nothing() {}\n";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Writes the fixture project into `dir`.
fn project(dir: &Dir) -> PathBuf {
    let root = dir.path("fixture");
    std::fs::create_dir_all(root.join("benches")).unwrap();
    let rigor_bench = workspace()
        .join("crates/rigor-bench")
        .canonicalize()
        .unwrap();
    let manifest = MANIFEST.replace("RIGOR_BENCH", &rigor_bench.display().to_string());
    std::fs::write(root.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(root.join("benches/speed.rs"), SPEED).unwrap();
    std::fs::write(root.join("benches/plain.rs"), PLAIN).unwrap();
    std::fs::copy(workspace().join("Cargo.lock"), root.join("Cargo.lock")).unwrap();
    root
}

fn bench(root: &Path) -> assert_cmd::Command {
    let mut cmd = rigor();
    cmd.current_dir(root)
        .env("CARGO_TARGET_DIR", workspace().join("target/bench-fixture"))
        .env("CARGO_NET_OFFLINE", "true")
        .env_remove("FIXTURE_SLOW")
        .env_remove("FIXTURE_HANG")
        .env_remove("FIXTURE_PANIC")
        .arg("bench");
    cmd
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn lists_tunes_and_measures_each_function_across_processes() {
    let _alone = crate::alone();
    let dir = Dir::new();
    let root = project(&dir);
    let out = bench(&root).arg("--list").assert().success();
    let (stdout, stderr) = (
        text(&out.get_output().stdout),
        text(&out.get_output().stderr),
    );
    assert_eq!(
        stdout,
        "spin\nsum/10\nsum/1000\nscan/xor/10\nscan/xor/100\nscan/xor/1000\nscan/add/10\n\
         scan/add/100\nscan/add/1000\n",
        "{stderr}"
    );
    assert!(
        stderr.contains("skipping bench target 'plain': not a rigor-bench harness"),
        "{stderr}"
    );
    // A filter that matches nothing, beside one that does, is said (it was dropped silently).
    bench(&root)
        .args(["--list", "--exact", "spin", "nosuch"])
        .assert()
        .success()
        .stdout("spin\n")
        .stderr(predicates::str::contains(
            "warning: no benchmark is named 'nosuch': selecting what the other filters match",
        ));

    let path = dir.path("r.json");
    let out = bench(&root)
        .args(["-r", "3", "--iterations", "5", "--seed", "7", "sum"])
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success();
    let (stdout, stderr) = (
        text(&out.get_output().stdout),
        text(&out.get_output().stderr),
    );
    assert!(stderr.contains("rigor: sum/10: ") && stderr.contains(" per sample (tuned at "));
    assert!(stdout.contains("Benchmark 1: sum/10") && stdout.contains("Benchmark 2: sum/1000"));
    // The summary leads with the minimum, the statistic baselines and references compare.
    assert!(
        stdout.contains("Benchmark 1: sum/10\n  Min, 95% CI:  ")
            && stdout.contains(
                "the statistic compared: each execution's least sample, located over the \
                 executions (bootstrap over executions"
            ),
        "{stdout}"
    );
    assert!(
        !stdout.contains("Comparisons"),
        "different functions are not compared: {stdout}"
    );
    // Nothing compared: no note on how comparisons of minimums carry across sessions.
    assert!(
        !stderr.contains("the minimum's intervals cover"),
        "{stderr}"
    );
    let r = json(&path);
    let benches = r["benchmarks"].as_array().unwrap();
    assert_eq!(benches.len(), 2);
    for b in benches {
        let command = b["command"].as_str().unwrap();
        assert!(
            command.contains("--exact") && command.contains("--evals"),
            "{command}"
        );
        let measured: Vec<_> = b["executions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["warmup"] != true)
            .collect();
        assert_eq!(measured.len(), 3, "{b}");
        // The harness reports the step its samples move in (the timer's resolution over the
        // evaluations), and rigor keeps it with each execution.
        assert!(
            measured.iter().all(|e| e["resolution"]
                .as_f64()
                .is_some_and(|r| r > 0.0 && r < 1e-3)),
            "{b}"
        );
        // --iterations 5: five samples from every measured execution.
        let samples: Vec<_> = b["samples"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["warmup"] != true)
            .collect();
        assert_eq!(samples.len(), 15, "{b}");
    }
    // The evaluations are the same in every execution: one command per benchmark.
    assert_eq!(r["settings"]["estimator"], "min");
    // Read back, the different functions are not compared either ("sum/1000 is 98× slower
    // than sum/10").
    assert_eq!(r["settings"]["compared_within"], false);
    let out = rigor().arg("analyze").arg(&path).assert().success();
    let stdout = text(&out.get_output().stdout);
    assert!(
        stdout.contains("Benchmark 2: sum/1000") && !stdout.contains("Comparisons"),
        "{stdout}"
    );
}

/// The samples of each measured execution of each benchmark of a result.
fn samples_per_execution(r: &serde_json::Value) -> Vec<usize> {
    let mut out = Vec::new();
    for b in r["benchmarks"].as_array().unwrap() {
        let samples = b["samples"].as_array().unwrap();
        let measured = samples.iter().filter(|s| s["warmup"] != true);
        let mut per: std::collections::BTreeMap<u64, usize> = Default::default();
        for s in measured {
            *per.entry(s["execution"].as_u64().unwrap()).or_default() += 1;
        }
        out.extend(per.into_values());
    }
    out
}

#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn a_groups_settings_reach_every_execution_and_the_report_plots_it_across_the_input() {
    let _alone = crate::alone();
    let dir = Dir::new();
    let root = project(&dir);
    let (path, report, md) = (dir.path("r.json"), dir.path("r.html"), dir.path("r.md"));
    let out = bench(&root)
        .args(["-r", "3", "--seed", "7", "scan", "--report"])
        .arg(&report)
        .arg("--export-json")
        .arg(&path)
        .arg("--export-markdown")
        .arg(&md)
        .assert()
        .success();
    // A table across the input after the run, and in the Markdown export.
    let stdout = text(&out.get_output().stdout);
    let table = stdout
        .split_once("scan: min (")
        .unwrap_or_else(|| panic!("no table across the input: {stdout}"))
        .1;
    let header = table.lines().nth(1).unwrap();
    let words: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(words, ["10", "100", "1000"], "{table}");
    assert!(table.contains("\n  scan/xor   ") && table.contains("\n  scan/add   "));
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains("against input\n\n| function | 10 | 100 | 1000 |\n"),
        "{md}"
    );
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains(
            "rigor: group 'scan' (6 benchmarks): 6 samples per execution, 3 evaluations per \
             sample, no warm-up\n"
        ),
        "{stderr}"
    );
    // The group fixes the evaluations: nothing is tuned.
    assert!(!stderr.contains("tuning evaluations"), "{stderr}");
    let r = json(&path);
    let benches = r["benchmarks"].as_array().unwrap();
    assert_eq!(benches.len(), 6);
    for b in benches {
        let command = b["command"].as_str().unwrap();
        assert!(command.ends_with("--evals 3"), "{command}");
        assert_eq!(b["parameters"]["group"], "scan", "{b}");
    }
    assert_eq!(benches[3]["parameters"]["function"], "scan/add");
    assert_eq!(benches[3]["parameters"]["input"], "10");
    // 6 samples from every measured execution: the group's, through RIGOR_ITERATIONS.
    assert_eq!(samples_per_execution(&r), vec![6; 18]);
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(
        html.contains("scan: Time against input") && html.contains("one line per function"),
        "no input plot in the report"
    );
    assert!(html.contains("class=\"plot overview-parameter\""));
    assert!(html.contains("scan/xor") && html.contains("scan/add"));

    // Saving a baseline of benchmarks with inputs tables them too: the run's file, moved into
    // the baseline's session, was read where it had been written ("No such file", exit 2).
    let out = bench(&root)
        .args([
            "-r",
            "2",
            "--seed",
            "7",
            "scan/xor",
            "--save-baseline",
            "inputs",
        ])
        .assert()
        .success();
    let stdout = text(&out.get_output().stdout);
    assert!(stdout.contains("scan: min ("), "{stdout}");
    let out = bench(&root)
        .args([
            "-r",
            "2",
            "--seed",
            "8",
            "scan/xor",
            "--save-baseline",
            "inputs",
        ])
        .args(["--baseline", "inputs"])
        .assert()
        .success();
    let stdout = text(&out.get_output().stdout);
    assert!(stdout.contains("Against the baseline"), "{stdout}");

    // The command line replaces the group's settings, and says so.
    let out = bench(&root)
        .args([
            "-r",
            "2",
            "--seed",
            "7",
            "--iterations",
            "2",
            "--evals",
            "5",
        ])
        .args(["--exact", "scan/xor/10"])
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success();
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains(
            "group 'scan' (1 benchmark): no warm-up; --iterations replaces its 6 samples per \
             execution; --evals replaces its 3 evaluations per sample"
        ),
        "{stderr}"
    );
    let r = json(&path);
    assert!(
        r["benchmarks"][0]["command"]
            .as_str()
            .unwrap()
            .ends_with("--evals 5")
    );
    assert_eq!(samples_per_execution(&r), vec![2; 2]);
}

/// Tuning runs under `--timeout` too (a routine that never returns hung `rigor bench` before
/// any execution), and a benchmark that fails there is named and left out: the others are
/// tuned and measured, and the exit status is 2.
#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn a_benchmark_that_hangs_or_panics_while_tuning_is_named_and_left_out() {
    let _alone = crate::alone();
    let dir = Dir::new();
    let root = project(&dir);
    let started = std::time::Instant::now();
    bench(&root)
        .env("FIXTURE_HANG", "1")
        .args(["--timeout", "1s", "-r", "2", "--exact", "spin"])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "'spin' is left out: tuning its evaluations per sample failed (--rigor-tune did not \
             end within 7.000 s (--timeout, for each benchmark it holds))",
        ))
        .stderr(predicates::str::contains(
            "the tuning of every benchmark selected failed (shown above): nothing to measure",
        ));
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    // `sum/10` panics while tuning, in the process that tunes `spin` first and `sum/1000`
    // after it: `spin` keeps its tuning, `sum/1000` (which panics too) is tried alone, and a
    // result holds `spin` alone.
    let out = dir.path("left-out.json");
    let assert = bench(&root)
        .env("FIXTURE_PANIC", "1")
        .args(["-r", "2", "spin", "sum", "--export-json"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "'sum/10' is left out: tuning its evaluations per sample failed (exit status: 101)",
        ))
        .stderr(predicates::str::contains("sum cannot add up"))
        .stderr(predicates::str::contains(
            "'sum/10', 'sum/1000' failed or measured nothing (shown above), exit status 2",
        ));
    let stderr = text(&assert.get_output().stderr);
    assert!(stderr.contains("rigor: spin: "), "{stderr}");
    let r = json(&out);
    let names: Vec<&str> = r["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["spin"]);
}

#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn baselines_catch_a_regression_and_pass_the_same_code() {
    let _alone = crate::alone();
    let dir = Dir::new();
    let root = project(&dir);
    let common = ["-r", "4", "--iterations", "10", "--seed", "3", "spin"];
    // One saved session cannot tell how far a session moves the minimum: no verdict.
    bench(&root)
        .args(common)
        .args(["--save-baseline", "base"])
        .assert()
        .success();
    assert!(root.join(".rigor/baselines/base.json").is_file());
    let out = bench(&root)
        .env("FIXTURE_SLOW", "1")
        .args(common)
        .args(["--baseline", "base", "--fail-on", "regression"])
        .assert()
        .success();
    let (stdout, stderr) = (
        text(&out.get_output().stdout),
        text(&out.get_output().stderr),
    );
    assert!(
        stdout.contains("the baseline was saved in one session") && stdout.contains("inconclusive"),
        "{stdout}"
    );
    // The note says what the sessions carry; no warning that the intervals do not cover it.
    assert!(
        stderr.contains("the comparison carries the spread between the baseline's saved sessions")
            && !stderr.contains("measured in separate runs"),
        "{stderr}"
    );
    // Two more sessions: the spread between the three is carried into every comparison. (With
    // two, the spread has one degree of freedom, t = 12.7: a loaded machine that moved the
    // minimum 19% between them left even 20 times slower inconclusive, as it should.)
    for _ in 0..2 {
        bench(&root)
            .args(common)
            .args(["--save-baseline", "base"])
            .assert()
            .success();
    }
    let sessions: Vec<_> = std::fs::read_dir(root.join(".rigor/baselines/base.sessions"))
        .unwrap()
        .map(|e| json(&e.unwrap().path()))
        .collect();
    assert_eq!(sessions.len(), 3);
    // Each session measured with the first's evaluations per sample (tuning alone moves them
    // from run to run), so the minimums compared are the same statistic.
    let commands = |r: &serde_json::Value| -> Vec<String> {
        r["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["command"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(
        sessions
            .iter()
            .all(|r| commands(r) == commands(&sessions[0])),
        "{:?}",
        sessions.iter().map(commands).collect::<Vec<_>>()
    );
    // The same code, a generous threshold: equivalent, exit 0.
    let out = bench(&root)
        .args(common)
        .args([
            "--baseline",
            "base",
            "--threshold",
            "50%",
            "--fail-on",
            "regression",
        ])
        .assert()
        .success();
    let stdout = text(&out.get_output().stdout);
    assert!(stdout.contains("Against the baseline"), "{stdout}");
    // The run's own intervals side by side are no verdict across sessions: not shown.
    assert!(!stdout.contains("non-overlap rule"), "{stdout}");
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains("note: the baseline was measured in other sessions")
            && stderr.contains("rigor bench --against REV|DIR measures both builds together"),
        "{stderr}"
    );
    // 20 times slower: a regression, exit 1; the report carries the comparison.
    let report = root.join("r.html");
    let out = bench(&root)
        .env("FIXTURE_SLOW", "1")
        .args(common)
        .args(["--baseline", "base", "--fail-on", "regression", "--report"])
        .arg(&report)
        .assert()
        .code(1);
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(
        html.contains("spin (old)") && html.contains("regression"),
        "the baseline comparison is not in the report"
    );
    let stdout = text(&out.get_output().stdout);
    assert!(stdout.contains("slower"), "{stdout}");
    assert!(
        stdout.contains("how far the statistic moved between the baseline's 3 sessions"),
        "{stdout}"
    );
    // A benchmark the baseline does not have (a change that adds one) is measured and said,
    // and the gate passes: it had ended in an error, exit 2, after measuring.
    let out = bench(&root)
        .args(["-r", "4", "--iterations", "10", "--seed", "3", "sum"])
        .args(["--baseline", "base", "--fail-on", "regression"])
        .assert()
        .success();
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains("'sum/10' is only in the new result"),
        "{stderr}"
    );
    bench(&root)
        .args(["--baseline", "missing"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "no baseline at .rigor/baselines/missing.json",
        ));
}

#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn against_measures_two_builds_together_and_compares_them() {
    let _alone = crate::alone();
    let dir = Dir::new();
    let root = project(&dir);
    // The parent commit's `spin` is 20 times slower; the child is the fixture as it is.
    let speed = root.join("benches/speed.rs");
    let slow = SPEED.replace(
        r#"let n = if std::env::var_os("FIXTURE_SLOW").is_some() { 2_000 } else { 100 };"#,
        "let n = 2_000;",
    );
    assert_ne!(slow, SPEED);
    std::fs::write(&speed, slow).unwrap();
    std::fs::write(root.join(".gitignore"), "target/\n.rigor/\n").unwrap();
    git(&root, &["init", "-q", "."]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "slow"]);
    std::fs::write(&speed, SPEED).unwrap();
    git(&root, &["commit", "-qam", "fast"]);

    // A wrong revision fails before anything is built.
    bench(&root)
        .args(["--against", "no-such-rev"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--against no-such-rev: unknown revision 'no-such-rev'",
        ));
    // --list lists this build: with --against it is refused, not a silent exit 0.
    bench(&root)
        .args(["--list", "--against", "HEAD~9"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("'--list' cannot be used with"));
    // --until-decided takes one pair, refused before the other revision is built (a new
    // user waited 30 s for its build first) or anything tuned.
    let out = bench(&root)
        .args(["--against", "HEAD~1", "--until-decided", "spin", "sum"])
        .assert()
        .code(2);
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains("--exact NAME")
            && !stderr.contains("tuning evaluations")
            && !stderr.contains("building HEAD~1"),
        "{stderr}"
    );

    let common = ["-r", "4", "--iterations", "10", "--seed", "3", "spin"];
    let md = dir.path("against.md");
    let out = bench(&root)
        .args(common)
        // One build a side (cargo's own, as before layouts were the default).
        .args([
            "--against",
            "HEAD~1",
            "--builds",
            "1",
            "--fail-on",
            "regression",
        ])
        .arg("--export-markdown")
        .arg(&md)
        .assert()
        .success();
    // The export carries the comparison too, after the run's own table.
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains("### Against `HEAD~1`, both builds measured together")
            && md.contains("| `spin` | `spin @ HEAD~1` |"),
        "{md}"
    );
    let (stdout, stderr) = (
        text(&out.get_output().stdout),
        text(&out.get_output().stderr),
    );
    assert!(stderr.contains("building HEAD~1 in "), "{stderr}");
    // One build of each side: the verdict may be the code's layout, and --builds is named.
    assert!(
        stderr.contains("one build of each side was compared")
            && stderr.contains("rigor links six layouts"),
        "{stderr}"
    );
    assert!(
        stdout.contains("Benchmark 1: spin @ HEAD~1") && stdout.contains("Benchmark 2: spin\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Against HEAD~1 (both builds measured together in interleaved rounds"),
        "{stdout}"
    );
    assert!(
        stdout.contains("spin is ") && stdout.contains("× faster than spin @ HEAD~1"),
        "{stdout}"
    );
    // The minima compared across the processes (Hodges–Lehmann's shift, unpaired).
    assert!(
        stdout.contains("verdict: improvement") && stdout.contains("[hodges-lehmann]"),
        "{stdout}"
    );

    // A group's functions against their input: a line per build in the report's plot, a row per
    // build in the table.
    let report = dir.path("against.html");
    let out = bench(&root)
        .args([
            "-r",
            "3",
            "--seed",
            "3",
            "--exact",
            "scan/xor/100",
            "scan/xor/1000",
        ])
        .args(["--against", "HEAD~1", "--report"])
        .arg(&report)
        .assert()
        .success();
    let stdout = text(&out.get_output().stdout);
    assert!(
        stdout.contains("\n  scan/xor @ HEAD~1   ") && stdout.contains("\n  scan/xor           "),
        "{stdout}"
    );
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("scan: Time against input"), "no input plot");
    // The plot's legend names both builds' lines.
    assert!(html.contains("</span>scan/xor @ HEAD~1") && html.contains("</span>scan/xor<"));

    // The other way round, from the kept checkout against the first folder: a regression, exit
    // 1. The checkout builds into its own target folder (where it was built as the other
    // build): cargo judges freshness by modification times, so two copies of one package
    // sharing a target folder can take each other's executables.
    let checkout = std::fs::read_dir(root.join(".rigor/checkouts"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.join("Cargo.toml").is_file())
        .expect("the revision's checkout is kept");
    let out = bench(&checkout)
        .env("CARGO_TARGET_DIR", checkout.join("target"))
        .args(common)
        .arg("--against")
        .arg(&root)
        .args(["--fail-on", "regression"])
        .assert()
        .code(1);
    // By default six layouts a side (-r counts the executions per build).
    let stdout = text(&out.get_output().stdout);
    assert!(
        stdout.contains("verdict: regression")
            && stdout.contains("6 builds of each side in shuffled code layouts")
            && stdout.contains("Units:             6 builds × 4 executions"),
        "{stdout}"
    );
}

#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn builds_link_shuffled_layouts_of_each_side_and_compare_across_them() {
    let _alone = crate::alone();
    let dir = Dir::new();
    let root = project(&dir);
    let speed = root.join("benches/speed.rs");
    let slow = SPEED.replace(
        r#"let n = if std::env::var_os("FIXTURE_SLOW").is_some() { 2_000 } else { 100 };"#,
        "let n = 2_000;",
    );
    std::fs::write(&speed, slow).unwrap();
    std::fs::write(root.join(".gitignore"), "target/\n.rigor/\n").unwrap();
    git(&root, &["init", "-q", "."]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "slow"]);
    std::fs::write(&speed, SPEED).unwrap();
    git(&root, &["commit", "-qam", "fast"]);

    // Layouts are linked before the run: a run decided as it goes would ask for more.
    bench(&root)
        .args([
            "--builds",
            "2",
            "--until-decided",
            "--against",
            "HEAD~1",
            "spin",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "takes a fixed count of executions",
        ));
    // Two or three builds a side can never decide a change of the minimum: refused.
    bench(&root)
        .args(["--builds", "3", "--against", "HEAD~1", "spin"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("least p is 0.100"));
    // rigor bench builds with cargo: a build command is refused, not run and ignored.
    bench(&root)
        .args(["--build", "make", "spin"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--build and --build-root are not used",
        ));

    let target = workspace().join("target/bench-fixture/release");
    let deps = |dir: &Path| {
        std::fs::read_dir(dir.join("deps"))
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| e.file_name().to_string_lossy().starts_with("speed-"))
                    .count()
            })
            .unwrap_or(0)
    };
    let (result, md) = (dir.path("layouts.json"), dir.path("layouts.md"));
    let run = || {
        bench(&root)
            .args([
                "-r",
                "3",
                "--iterations",
                "10",
                "--seed",
                "5",
                "--exact",
                "spin",
            ])
            .args(["--builds", "4", "--against", "HEAD~1", "--export-json"])
            .arg(&result)
            .arg("--export-markdown")
            .arg(&md)
            .assert()
            .success()
    };
    let out = run();
    let (stdout, stderr) = (
        text(&out.get_output().stdout),
        text(&out.get_output().stderr),
    );
    assert!(
        stderr.contains("linking 4 builds of each side (this one and HEAD~1)"),
        "{stderr}"
    );
    // Each side's four layouts from one compilation (rigor's linker links them all).
    assert!(
        stderr.contains("linked 8 layouts from 2 compilations in "),
        "{stderr}"
    );
    assert!(
        stdout.contains("Against HEAD~1 (4 builds of each side in shuffled code layouts")
            && stdout.contains("compared across the builds")
            && stdout.contains("[hodges-lehmann]")
            && stdout.contains("Units:             4 builds × 3 executions"),
        "{stdout}"
    );
    // Four builds a side are the fewest whose minima can differ at 5% (Mann–Whitney).
    assert!(stdout.contains("verdict: improvement"), "{stdout}");
    // Read back, the file compares the two builds as the run did (it had shown no comparison).
    let again = rigor().arg("analyze").arg(&result).output().unwrap();
    let again = text(&again.stdout);
    let line = |s: &str| {
        s.lines()
            .find(|l| l.trim_start().starts_with("spin is "))
            .map(str::to_string)
    };
    assert!(line(&again).is_some(), "{again}");
    assert_eq!(line(&again), line(&stdout), "{again}");
    assert!(!again.contains("fastest:"), "{again}");
    // Without --builds the comparison says it covered one layout of each side; with them it
    // does not.
    assert!(
        !stderr.contains("one build of each side was compared"),
        "{stderr}"
    );
    // Each build ran its own layout: four executables per side, in their own places, each
    // linked in another order (all from one compilation), and rigor's linker script is gone.
    let mut layouts: Vec<Vec<u8>> = Vec::new();
    for k in ["0", "1", "2", "3"] {
        let exe = target.join("rigor-layouts/here").join(k).join("speed");
        assert!(exe.is_file(), "{}", exe.display());
        layouts.push(std::fs::read(&exe).unwrap());
    }
    for i in 0..layouts.len() {
        for j in 0..i {
            assert_ne!(
                layouts[i], layouts[j],
                "layouts {j} and {i} are the same bytes"
            );
        }
    }
    let left: Vec<String> = std::fs::read_dir(target.join("rigor-layouts/here"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".link"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let r = json(&result);
    let commands: Vec<String> = r["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["command"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        commands
            .iter()
            .all(|c| c.contains("rigor-layouts") && c.contains("{build}")),
        "{commands:?}"
    );
    // Each build's seed in the result is the one its layout was linked with: the same four on
    // both sides (build k orders their common functions alike).
    let seeds: Vec<Vec<u64>> = r["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            b["builds"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["seed"].as_u64().unwrap())
                .collect()
        })
        .collect();
    assert!(
        seeds.len() == 2 && seeds[0].len() == 4 && seeds[0] == seeds[1],
        "{seeds:?}"
    );
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains("4 builds of each side in shuffled code layouts"),
        "{md}"
    );
    // The layouts were moved out of cargo's folder, with rustc's dependency file beside each: a
    // second run with the same seed links the same layouts again and leaves nothing behind.
    let before = deps(&target);
    run();
    assert_eq!(deps(&target), before, "layout executables pile up in deps/");

    // A baseline of one build compared with a run of four layouts: a minimum over more layouts
    // is the best of more, and the run says so.
    let quick = ["-r", "2", "--iterations", "5", "--exact", "spin"];
    bench(&root)
        .args(quick)
        .args(["--save-baseline", "one"])
        .assert()
        .success();
    let out = bench(&root)
        .args(quick)
        .args(["--builds", "4", "--baseline", "one"])
        .assert()
        .success();
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains("the baseline was measured in 1 build (code layouts) and this run in 4"),
        "{stderr}"
    );
}
