//! `rigor run` against the simulated executor: known variance components, no processes, exact
//! reproducibility from the seed.

mod common;

use common::{Dir, json, rigor, sim, stdout_of};
use predicates::prelude::*;

const TWO_LEVEL: &str = "mean=10ms,execution=3%,iteration=1%,iterations=20";

#[test]
fn summary_is_stable_for_a_seed() {
    let out = stdout_of(sim().args([
        "--seed",
        "7",
        "-r",
        "12",
        TWO_LEVEL,
        "mean=2ms,execution=1%",
    ]));
    insta::assert_snapshot!(out);
}

#[test]
fn same_seed_same_numbers() {
    let a = stdout_of(sim().args(["--seed", "3", TWO_LEVEL]));
    let b = stdout_of(sim().args(["--seed", "3", TWO_LEVEL]));
    let c = stdout_of(sim().args(["--seed", "4", TWO_LEVEL]));
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn json_has_the_schema_and_recovers_known_components() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    sim()
        .args(["--seed", "11", "-r", "200", TWO_LEVEL, "--export-json"])
        .arg(&path)
        .assert()
        .success();
    let r = json(&path);
    assert_eq!(r["schema_version"], 2);
    assert_eq!(r["seed"], 11);
    assert_eq!(r["confidence"], 0.95);
    assert_eq!(r["status"], "complete");
    assert!(r["environment"]["host"].is_string());
    let b = &r["benchmarks"][0];
    assert_eq!(b["unit"], "s");
    assert_eq!(b["levels"], serde_json::json!(["execution", "iteration"]));
    assert_eq!(b["counts"], serde_json::json!([200, 4000]));
    let (mean, lo, hi) = (
        b["mean"].as_f64().unwrap(),
        b["ci"]["lower"].as_f64().unwrap(),
        b["ci"]["upper"].as_f64().unwrap(),
    );
    assert!(
        lo < mean && mean < hi && lo < 0.010 && 0.010 < hi,
        "{lo} {mean} {hi}"
    );
    assert_eq!(b["ci"]["method"], "t-top-level-means");
    // Known truth: σ_execution = 0.3 ms, σ_iteration = 0.1 ms.
    let t2 = |i: usize| b["variance_components"][i]["t2"].as_f64().unwrap();
    assert!(
        (t2(0) / 0.3e-3_f64.powi(2) - 1.0).abs() < 0.3,
        "execution T² {}",
        t2(0)
    );
    assert!(
        (t2(1) / 0.1e-3_f64.powi(2) - 1.0).abs() < 0.1,
        "iteration T² {}",
        t2(1)
    );
    let samples = b["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 4000 + 20, "warm-up execution kept, flagged");
    assert_eq!(samples.iter().filter(|s| s["warmup"] == true).count(), 20);
    for key in ["round", "execution", "iteration", "value", "warmup"] {
        assert!(samples[0].get(key).is_some(), "sample field {key}");
    }
    assert!(b["failures"].as_array().unwrap().is_empty());
}

#[test]
fn execution_dominance_is_explained() {
    sim()
        .args(["--seed", "1", "-r", "20", TWO_LEVEL])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "more executions, not more iterations, will narrow this interval",
        ));
    sim()
        .args(["--seed", "1", "-r", "3", "mean=1ms,execution=1%"])
        .assert()
        .success()
        .stdout(predicate::str::contains("only 3 executions"));
}

#[test]
fn failure_stops_the_command_and_keeps_its_data() {
    let dir = Dir::new();
    let path = dir.path("f.json");
    sim()
        .args([
            "--seed",
            "1",
            "-r",
            "6",
            "-w",
            "0",
            "mean=1ms,execution=1%,fail=4",
            "mean=1ms",
            "--export-json",
        ])
        .arg(&path)
        .assert()
        .code(2)
        .stdout(
            predicate::str::contains("exited with code 1")
                .and(predicate::str::contains("simulated failure")),
        );
    let r = json(&path);
    let failed = &r["benchmarks"][0];
    assert_eq!(
        failed["samples"].as_array().unwrap().len(),
        3,
        "three executions before the failure are kept"
    );
    assert_eq!(failed["failures"][0]["exit_code"], 1);
    assert_eq!(failed["failures"][0]["execution"], 3);
    assert_eq!(failed["failures"][0]["timed_out"], false);
    assert_eq!(
        r["benchmarks"][1]["samples"].as_array().unwrap().len(),
        6,
        "the other command ran on"
    );

    sim()
        .args([
            "--seed",
            "1",
            "-r",
            "6",
            "-w",
            "0",
            "-i",
            "mean=1ms,execution=1%,fail=4",
            "--export-json",
        ])
        .arg(&path)
        .assert()
        .success();
    // With -i the execution that exited with code 1 is measured, and marked.
    let r = json(&path);
    assert_eq!(r["benchmarks"][0]["samples"].as_array().unwrap().len(), 6);
    let codes: Vec<_> = r["benchmarks"][0]["executions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["exit_code"].as_i64())
        .collect();
    assert_eq!(codes, vec![1]);
}

#[test]
fn timeouts_and_garbage_are_failures() {
    let dir = Dir::new();
    let path = dir.path("t.json");
    sim()
        .args([
            "--seed",
            "1",
            "-r",
            "4",
            "--timeout",
            "2",
            "mean=1ms,hang=2",
            "--export-json",
        ])
        .arg(&path)
        .assert()
        .code(2)
        // The limit that killed it is said (a trial's "timed out" left it to be guessed).
        .stdout(predicate::str::contains("timed out (limit 2s)"));
    assert_eq!(
        json(&path)["benchmarks"][0]["failures"][0]["timed_out"],
        true
    );
    // With -i the run goes on past a timeout; the executions that timed out are not in the
    // mean, and the analysis says so (a trial's mean of the 4 of 12 runs that finished in time
    // came with no word of the 8 slow ones left out).
    sim()
        .args([
            "--seed",
            "1",
            "-r",
            "6",
            "-i",
            "--timeout",
            "2",
            "mean=1ms,hang=2",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Warning: 1 execution that timed out is left out of the 5 analysed: the mean is of \
             those that finished within the limit",
        ));
    sim()
        .args(["--seed", "1", "-r", "4", "mean=1ms,iterations=5,garbage=2"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("cannot read its iteration times"));
}

#[test]
fn exports_csv_and_markdown() {
    let dir = Dir::new();
    let (csv, md) = (dir.path("r.csv"), dir.path("r.md"));
    sim()
        .args([
            "--seed",
            "2",
            "-r",
            "5",
            "mean=1ms,iterations=3,iteration=1%",
            "--export-csv",
        ])
        .arg(&csv)
        .arg("--export-markdown")
        .arg(&md)
        .assert()
        .success();
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert!(csv_text.starts_with("benchmark,round,execution,iteration,value,warmup\n"));
    assert_eq!(csv_text.lines().count(), 1 + 6 * 3);
    let md_text = std::fs::read_to_string(&md).unwrap();
    assert!(
        md_text.contains("| Benchmark | Mean | 95% CI |"),
        "{md_text}"
    );
    assert!(md_text.contains("5 executions × 3 iterations"), "{md_text}");
}

#[test]
fn a_dash_exports_to_standard_output() {
    // hyperfine's `-`: the export alone on standard output, the summaries on standard error, and
    // no file named `-`.
    let dir = Dir::new();
    let spec = "mean=1ms,iterations=3,iteration=1%";
    for (option, starts) in [
        ("--export-markdown", "| Benchmark | Mean | 95% CI |"),
        ("--export-asciidoc", "[cols="),
        ("--export-orgmode", "| Benchmark | Mean |"),
        (
            "--export-csv",
            "benchmark,round,execution,iteration,value,warmup\n",
        ),
        ("--export-json", "{"),
    ] {
        let out = sim()
            .current_dir(dir.0.path())
            .args(["--seed", "2", "-r", "5", spec, option, "-"])
            .assert()
            .success()
            .get_output()
            .clone();
        let (stdout, stderr) = (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        );
        assert!(stdout.starts_with(starts), "{option}: {stdout}");
        assert!(!stdout.contains("Benchmark 1:"), "{option}: {stdout}");
        assert!(stderr.contains("Benchmark 1:"), "{option}: {stderr}");
        assert!(!dir.path("-").exists(), "{option} created a file named '-'");
    }
    let out = sim()
        .current_dir(dir.0.path())
        .args(["--seed", "2", "-r", "5", spec, "--export-json", "-"])
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["benchmarks"][0]["name"], spec);
    // Two exports cannot share the stream.
    sim()
        .current_dir(dir.0.path())
        .args([spec, "--export-csv", "-", "--export-markdown", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--export-csv, --export-markdown each name standard output ('-')",
        ));
}

#[test]
fn bad_options_are_clear_errors() {
    sim()
        .args(["-r", "1", "mean=1ms"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("at least 2"));
    sim()
        .args(["mean=1ms,colour=red"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown key 'colour'"));
    rigor()
        .args([
            "run",
            "--iterations-from",
            "stdout",
            "--pattern",
            "no group",
            "true",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("capture group"));
    rigor()
        .args(["run", "--confidence", "150", "true"])
        .assert()
        .code(2);
}

#[test]
fn help_documents_exit_codes() {
    rigor()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("130  interrupted"));
    rigor()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("rigor "));
}

/// Issue #29 §6: fewer than 20 builds get a warning however regular their means look (they
/// cannot exclude a mode of one build in five), naming the counts; 20 builds do not.
#[test]
fn few_builds_warn_that_a_mode_cannot_be_excluded() {
    let run = |builds: &str| {
        let out = sim()
            .args([
                "--seed", "3", "--build", "make", "--builds", builds, "-r", "3", "-w", "0",
            ])
            .arg("mean=10ms,build=2%,execution=1%,iteration=1%,iterations=3")
            .assert()
            .success()
            .get_output()
            .clone();
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
    };
    let few = run("6");
    assert!(
        few.contains("6 builds cannot exclude a mode of 1 build in 5")
            && few.contains("14 builds see such a mode with 95% probability")
            && few.contains("use at least 20 builds"),
        "{few}"
    );
    let enough = run("20");
    assert!(!enough.contains("cannot exclude a mode"), "{enough}");
}

#[test]
fn builds_are_the_top_level_and_their_variance_is_recovered() {
    let dir = Dir::new();
    let path = dir.path("b.json");
    sim()
        .args([
            "--seed", "9", "--build", "make", "--builds", "60", "-r", "4", "-w", "0",
        ])
        .args([
            "--randomize-env",
            "mean=10ms,build=4%,execution=2%,iteration=1%,iterations=5",
            "--export-json",
        ])
        .arg(&path)
        .assert()
        .success();
    let b = &json(&path)["benchmarks"][0];
    assert_eq!(b["counts"], serde_json::json!([60, 240, 1200]));
    let t2 = |i: usize| b["variance_components"][i]["t2"].as_f64().unwrap();
    // Truth: σ = 0.4 ms, 0.2 ms, 0.1 ms.
    assert!(
        (t2(0) / 0.4e-3_f64.powi(2) - 1.0).abs() < 0.4,
        "build T² {}",
        t2(0)
    );
    assert!(
        (t2(1) / 0.2e-3_f64.powi(2) - 1.0).abs() < 0.25,
        "execution T² {}",
        t2(1)
    );
    assert!(
        (t2(2) / 0.1e-3_f64.powi(2) - 1.0).abs() < 0.15,
        "iteration T² {}",
        t2(2)
    );
    assert_eq!(b["builds"].as_array().unwrap().len(), 60);
    assert!(
        b["executions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["env_pad"].is_u64())
    );
}

#[test]
fn a_summary_leads_with_the_statistic_compared() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    const A: &str = "mean=12ns,execution=2%,iteration=3%,iterations=50";
    const B: &str = "mean=13ns,execution=2%,iteration=3%,iterations=50";
    let out = stdout_of(
        sim()
            .args(["--seed", "1", "-r", "8", "--estimator", "min", A, B])
            .arg("--export-json")
            .arg(&path),
    );
    // Each benchmark: first the minimum (what "9.1% slower … (min time)" compares), with its
    // bootstrap interval over executions, then the mean with its own interval.
    for block in out.split("Benchmark ").skip(1).take(2) {
        let lines: Vec<&str> = block.lines().collect();
        assert!(
            lines[1].starts_with("  Min, 95% CI:       ")
                && lines[1].ends_with(
                    "   the statistic compared: each execution's least sample, located over the \
                     executions (bootstrap over executions)"
                ),
            "{block}"
        );
        assert!(lines[2].starts_with("  Mean ± 95% CI:"), "{block}");
        // The minimum shown first is the executions' own minima located (Huber's estimate):
        // at least the least of all (the second figure below), below the median (the first).
        let figure = |s: &str| s.trim().trim_end_matches(" ns").parse::<f64>().unwrap();
        let min = figure(lines[1].split_whitespace().nth(3).unwrap());
        let medians = lines[3].split(':').nth(1).unwrap();
        let mut parts = medians.split(" / ");
        let (median, least) = (figure(parts.next().unwrap()), figure(parts.next().unwrap()));
        assert!(least <= min && min < median, "{block}");
    }
    assert!(out.contains("(min time)"), "{out}");
    // The mean compared: nothing new leads.
    let mean = stdout_of(sim().args(["--seed", "1", "-r", "8", A, B]));
    assert!(!mean.contains("the statistic compared"), "{mean}");
    // A saved result analysed with another estimator leads with that one.
    let out = stdout_of(
        rigor()
            .args(["analyze", "--estimator", "median"])
            .arg(&path),
    );
    let first = out.lines().nth(1).unwrap();
    assert!(first.starts_with("  Median, 95% CI:    "), "{out}");
}

/// With `--estimator min` the ranking, the Markdown table and its order follow the minimum, not
/// the mean: `spread` has the larger mean but by far the smaller minimum.
#[test]
fn another_estimator_leads_the_ranking_and_the_tables() {
    let dir = Dir::new();
    let md = dir.path("t.md");
    let spread = "mean=10ms,execution=30%";
    let tight = "mean=9ms,execution=1%";
    let out = stdout_of(
        sim()
            .args(["--seed", "5", "-r", "20", "--estimator", "min"])
            .args(["--sort", "mean-time", tight, spread, "--export-markdown"])
            .arg(&md),
    );
    assert!(
        out.contains(&format!("fastest: {spread}")),
        "ranked by the minimum: {out}"
    );
    // The non-overlap rule reads the minima's intervals (the means' overlap).
    assert!(
        out.contains("the intervals do not overlap (faster)"),
        "{out}"
    );
    let table = std::fs::read_to_string(&md).unwrap();
    assert!(
        table.starts_with("| Benchmark | Min | 95% CI | ± | Mean | Units |"),
        "{table}"
    );
    let rows: Vec<&str> = table.lines().skip(2).take(2).collect();
    assert!(
        rows[0].contains(spread) && rows[1].contains(tight),
        "fastest first by the minimum: {rows:?}"
    );
}

/// The same command twice (an A/A run) is numbered, so that the comparison names two things.
#[test]
fn the_same_command_twice_is_numbered() {
    let out = stdout_of(sim().args([
        "--seed",
        "2",
        "-r",
        "5",
        "mean=1ms,execution=1%",
        "mean=1ms,execution=1%",
    ]));
    assert!(
        out.contains("Benchmark 1: mean=1ms,execution=1% #1"),
        "{out}"
    );
    assert!(
        out.contains("Benchmark 2: mean=1ms,execution=1% #2"),
        "{out}"
    );
    assert!(out.contains("mean=1ms,execution=1% #2 is "), "{out}");
}

/// AsciiDoc and org-mode exports carry the comparisons too, in their own markup.
#[test]
fn every_markup_export_has_the_comparisons() {
    for (flag, verdict, cell) in [
        ("--export-asciidoc", "| *slower*", "`mean=1ms,execution=1%`"),
        (
            "--export-orgmode",
            "| *slower* |",
            "=mean=1ms,execution=1%=",
        ),
        (
            "--export-markdown",
            "| **slower** |",
            "`mean=1ms,execution=1%`",
        ),
    ] {
        let out = stdout_of(sim().args([
            "--seed",
            "1",
            "-r",
            "5",
            "mean=1ms,execution=1%",
            "mean=2ms,execution=1%",
            flag,
            "-",
        ]));
        let comparisons = &out[out.find("| Candidate | Baseline").expect(flag)..];
        assert!(
            comparisons.contains(verdict) && comparisons.contains(cell),
            "{flag}: {out}"
        );
    }
}

/// The default run length: the executions rigor's warnings ask for (20) when they fit in 3 s
/// per command, else what fits (at least 10), said; `-r` keeps its meaning.
#[test]
fn the_default_length_runs_what_the_warnings_ask_for_within_three_seconds() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let skewed = "mean=5ms,execution=1%,tail=4%";
    let count = |path: &std::path::Path| {
        json(path)["benchmarks"][0]["executions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["warmup"] == false)
            .count()
    };
    // With 10 executions these skewed means ask for more; by default rigor runs them.
    let ten = stdout_of(sim().args(["--seed", "1", "-r", "10", skewed]));
    assert!(ten.contains("use at least 14 executions"), "{ten}");
    let out = sim()
        .args(["--seed", "1", skewed, "--export-json"])
        .arg(&path)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "1 command, 20 executions each (10 or more when 20 would take over 3 s per command; \
             -r N to choose)",
        ))
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(count(&path), 20);
    assert!(
        !out.contains("use at least") && !out.contains("or more"),
        "{out}"
    );
    let mode = &json(&path)["settings"]["mode"];
    assert_eq!(mode["kind"], "default_length");
    // A slow command: what fits in 3 s (1 warm-up and 14 executions of 0.2 s), said.
    sim()
        .args(["mean=200ms", "--export-json"])
        .arg(&path)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "note: 14 executions each: 20 would have taken over the default 3 s per command \
             (-r 20, or --budget, for more)",
        ));
    assert_eq!(count(&path), 14);
}

/// A simulation whose normal noise reaches below zero says how many of its values did, and
/// which spec; one whose noise stays well above zero says nothing of it.
#[test]
fn simulated_values_below_zero_are_said() {
    let out = sim()
        .args(["--seed", "5", "-r", "40", "mean=1ms,execution=100%"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.contains("zero or negative"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        line.contains("of the 40 simulated values of 'mean=1ms,execution=100%'"),
        "{line}"
    );
    let count: usize = line
        .split("note: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    // About 16% of normal draws one SD below the mean.
    assert!((1..=20).contains(&count), "{line}");
    let quiet = sim()
        .args(["--seed", "5", "-r", "40", "mean=1ms,execution=10%"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("zero or negative"));
}

/// With builds as the top level, two commands are paired by build (build k of each, made and
/// measured side by side), and the comparison says so rather than "by round".
#[test]
fn commands_with_builds_are_said_to_be_paired_by_build() {
    let out = sim()
        .args(["--seed", "5", "--build", "true", "--builds", "4", "-r", "3"])
        .args(["mean=10ms,execution=1%", "mean=10.5ms,execution=1%"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("[fieller-paired, paired by build]"),
        "{stdout}"
    );
    assert!(!stdout.contains("paired by round"), "{stdout}");
}

/// Builds measured one after another (a simulated command names no `{build_dir}`, so its
/// builds keep a block each) that vary: the analysis warns that load changing over the run is
/// part of the build level, and says how to measure builds in shared rounds.
#[test]
fn builds_measured_in_blocks_are_warned_of() {
    let out = sim()
        .args(["--seed", "3", "--build", "make", "--builds", "4", "-r", "3"])
        .arg("mean=10ms,build=4%,execution=1%")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout
            .matches("the builds were measured one after another, each in a block of its own")
            .count(),
        1,
        "{stdout}"
    );
    assert!(
        stdout.contains("each command running its build from {build_dir}"),
        "{stdout}"
    );
}

/// Two executions a side, or three at 99.9%: the bootstrap beside Fieller's interval has an
/// expanded level that rounded to 1 and failed, which dropped the comparison — and a 2× slower
/// candidate passed `--fail-on regression` (a new user's trial).
#[test]
fn a_comparison_of_very_few_executions_stands_and_gates() {
    for (runs, confidence) in [("2", "95"), ("3", "99.9")] {
        let out = sim()
            .args(["--seed", "1", "-r", runs, "--confidence", confidence])
            .args(["-n", "old", "-n", "new"])
            .args(["mean=10ms,execution=1%", "mean=20ms,execution=1%"])
            .args(["--fail-on", "regression"])
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(out.status.code(), Some(1), "-r {runs}: {stdout}\n{stderr}");
        assert!(!stderr.contains("could not be compared"), "{stderr}");
        assert!(stdout.contains("Comparisons"), "{stdout}");
    }
}

/// A run cut short mid-round (Ctrl-C) leaves one command a last round the other lacks: the
/// comparison pairs the rounds both completed, and the summary ranks them by the same pairs
/// (it compared them unpaired and read "4.1% slower (95% CI +2.2% .. +6.0%)" beside the
/// comparison's "4.0% slower (95% CI +2.4% .. +5.5%)").
#[test]
fn the_summary_of_a_run_cut_mid_round_agrees_with_its_comparison() {
    let dir = Dir::new();
    let path = dir.path("s.json");
    sim()
        .args(["--seed", "5", "-r", "10", "--export-json"])
        .arg(&path)
        .args(["mean=10ms,execution=2%", "mean=10.4ms,execution=2%"])
        .assert()
        .success();
    let mut v = json(&path);
    let b = &mut v["benchmarks"][1];
    let last = b["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["round"].as_u64().unwrap())
        .max()
        .unwrap();
    for list in ["samples", "executions"] {
        b[list]
            .as_array_mut()
            .unwrap()
            .retain(|s| s["round"].as_u64() != Some(last));
    }
    let cut = dir.path("cut.json");
    std::fs::write(&cut, v.to_string()).unwrap();
    let out = stdout_of(rigor().arg("analyze").arg(&cut));
    let figure = |line: &str| line.split(" is ").nth(1).map(str::to_string);
    let compared = out
        .lines()
        .find(|l| l.contains("slower than"))
        .and_then(|l| figure(&l.replace(" than mean=10ms,execution=2%", "")))
        .unwrap_or_else(|| panic!("{out}"));
    let ranked = out
        .lines()
        .skip_while(|l| *l != "Summary")
        .find(|l| l.contains("slower ("))
        .and_then(figure)
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(compared, ranked, "{out}");
    assert!(out.contains("paired by round"), "{out}");
}

/// A factor's intervals that reach below zero or across no change say each end in words: the
/// deciding one bounded above ("no lower bound .. 16.8", not "unbounded"), the bootstrap's
/// "1.09× faster .. 3.63× slower" (it read "0.92× .. 3.63× slower", 0.92 as slower).
#[test]
fn a_factors_intervals_say_each_end_in_words() {
    let out = stdout_of(
        sim()
            .args(["--seed", "7", "-r", "3", "-n", "a", "-n", "b"])
            .args(["mean=10ms,execution=40%", "mean=24ms,execution=40%"]),
    );
    assert!(
        out.contains("b is 2.19× slower than a (95% CI no lower bound .. 16.8)"),
        "{out}"
    );
    assert!(
        out.contains(
            "bootstrap (a cross-check; the verdict uses the interval above): 1.09× faster .. \
             3.63× slower"
        ),
        "{out}"
    );
}

/// `--fail-on regression` with one command has nothing to judge and cannot fail: it says so (a
/// CI job set up so passed green without a word); with two commands it does not.
#[test]
fn a_gate_with_nothing_to_judge_says_so() {
    let said = |commands: &[&str]| {
        let out = sim()
            .args(["-r", "5", "--fail-on", "regression"])
            .args(commands)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).contains(
            "note: --fail-on regression had no comparison to judge (one command), so it cannot \
             fail",
        )
    };
    assert!(said(&["mean=1ms"]));
    assert!(!said(&["mean=1ms", "mean=1ms"]));
}
