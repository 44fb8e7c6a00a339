//! Options are checked before the first execution: a bad option costs no measurement, and
//! nothing fails silently after a long run.

mod common;

use common::{Dir, json, rigor, sim, stdout_of};
use predicates::prelude::*;

const SPEC: &str = "mean=2ms,execution=2%";

#[test]
fn export_paths_are_checked_before_anything_runs() {
    let dir = Dir::new();
    let json_path = dir.path("r.json");
    for option in [
        "--export-json",
        "--export-csv",
        "--export-markdown",
        "--export-asciidoc",
        "--export-orgmode",
        "--report",
        "--export-bmf",
        "--export-otava",
        "--export-json-hyperfine",
        "--export-csv-hyperfine",
    ] {
        // A directory that does not exist: the run stops before measuring (no progress bar, no
        // summary), naming the option.
        let missing = dir.path("no/such/dir/out");
        sim()
            .args(["-r", "3", SPEC, option])
            .arg(&missing)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(format!("{option} ")))
            .stderr(predicate::str::contains("does not exist"));
        // A directory where the file should go.
        sim()
            .args(["-r", "3", SPEC, option])
            .arg(dir.0.path())
            .assert()
            .code(2)
            .stderr(predicate::str::contains("is a directory"));
    }
    // The JSON file of a rejected run is never started.
    sim()
        .args(["-r", "3", SPEC, "--export-json"])
        .arg(&json_path)
        .arg("--export-csv")
        .arg(dir.path("missing/x.csv"))
        .assert()
        .code(2);
    assert!(!json_path.exists());
}

#[test]
fn plan_output_is_checked_before_the_pilot() {
    rigor()
        .args(["plan", "--simulate", "-o", "/no/such/dir/plan.toml", SPEC])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--out /no/such/dir/plan.toml"));
}

#[test]
fn reference_must_name_a_benchmark() {
    sim()
        .args([
            "-r",
            "3",
            "-n",
            "a",
            "-n",
            "b",
            SPEC,
            SPEC,
            "--reference",
            "c",
        ])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            "--reference 'c' is none of the benchmarks ('a', 'b')",
        ));
    for ok in ["b", "2", SPEC] {
        sim()
            .args([
                "-r",
                "3",
                "-n",
                "a",
                "-n",
                "b",
                SPEC,
                SPEC,
                "--reference",
                ok,
            ])
            .assert()
            .success();
    }
}

#[test]
fn counts_must_be_at_least_one_and_sane() {
    for (args, message) in [
        (vec!["--resamples", "0"], "--resamples"),
        (vec!["--iterations", "0"], "--iterations"),
        (vec!["--max-units", "0", "--precision", "1%"], "--max-runs"),
        (vec!["-r", "18446744073709551615"], "more than the 1000000"),
        (
            vec!["-r", "99999999999999999999999"],
            "more than the 1000000",
        ),
        (vec!["-r", "many"], "not a whole number"),
        (vec!["-r", "1"], "at least 2"),
    ] {
        sim()
            .args(&args)
            .arg(SPEC)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
}

#[test]
fn absurd_counts_are_refused_before_anything_runs_naming_the_limit() {
    // Each of these aborted (an 8 TB allocation) or ran on (--builds) before.
    let dir = Dir::new();
    let marker = dir.path("built");
    let build = format!("touch {}", marker.display());
    let cases: [(&[&str], &str, &str); 6] = [
        (&[], "--resamples", "more than the 10000000 resamples"),
        (&[], "-w", "more than the 1000000 warm-up executions"),
        (
            &[],
            "--iterations",
            "more than the 100000000 iterations per execution",
        ),
        (
            &[],
            "--discard",
            "more than the 100000000 iterations per execution",
        ),
        (
            &["--precision", "1%"],
            "-M",
            "more than the 1000000 executions",
        ),
        (
            &["--build", &build],
            "--builds",
            "more than the 1000000 builds",
        ),
    ];
    for (before, option, message) in cases {
        for count in ["1000000000000", "1e12"] {
            sim()
                .args(before)
                .args([option, count, SPEC])
                .assert()
                .code(2)
                .stderr(predicate::str::contains(message));
        }
    }
    // Counts that are each within their limits but multiply into too many samples.
    sim()
        .args(["-r", "1000", "--iterations", "1000000", SPEC])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "more than the 100000000 samples per benchmark rigor allows",
        ));
    sim()
        .args(["--build", &build, "--builds", "1000", "-r", "10000", SPEC])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "executions per command (all builds')",
        ));
    assert!(!marker.exists(), "nothing was built");
    for args in [
        vec!["plan", "--simulate", "--pilot-executions", "1e12", SPEC],
        vec!["plan", "--simulate", "--pilot-iterations", "1e12", SPEC],
        vec!["compare", "a.json", "b.json", "--resamples", "1e12"],
        vec!["track", "bisect", "a", "b", "--max-rounds", "1e12"],
    ] {
        rigor()
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("rigor allows"));
    }
    // A plan file's counts, before the run measures anything.
    let plan = dir.path("p.toml");
    rigor()
        .args(["plan", "--simulate", "--seed", "2", "-o"])
        .arg(&plan)
        .arg(SPEC)
        .assert()
        .success();
    let text = std::fs::read_to_string(&plan).unwrap();
    let counts = text
        .lines()
        .find(|l| l.starts_with("counts"))
        .expect("a counts line")
        .to_string();
    std::fs::write(&plan, text.replace(&counts, "counts = [1000000000000]")).unwrap();
    sim()
        .args(["--plan"])
        .arg(&plan)
        .arg(SPEC)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("p.toml"))
        .stderr(predicate::str::contains(
            "more than the 100000000 repetitions of a level rigor allows",
        ));
}

#[test]
fn negative_counts_are_named_as_such_not_as_options() {
    for args in [
        vec!["-r", "-5"],
        vec!["-w", "-1"],
        vec!["--iterations", "-3"],
    ] {
        sim()
            .args(&args)
            .arg(SPEC)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("is negative: give a whole number"))
            .stderr(predicate::str::contains("'-- -").not());
    }
}

#[test]
fn ignore_failure_with_every_execution_failing_exits_2() {
    // As hyperfine's -i: a non-zero exit status is measured, and said.
    rigor()
        .args(["run", "-i", "-r", "3", "false"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "3 of 3 measured executions exited with a non-zero status (code 1), measured all \
             the same as -i/--ignore-failure asks",
        ));
    // Executions that never end are not measured: with all of them timed out, exit 2.
    rigor()
        .args([
            "run",
            "-i",
            "-r",
            "3",
            "-w",
            "0",
            "--timeout",
            "0.05s",
            "sleep 5",
        ])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("No result"))
        .stderr(predicate::str::contains("measured nothing"));
    // One failure among successes is what -i is for: exit 0.
    let dir = Dir::new();
    let flag = dir.path("failed-once");
    let cmd = format!("test -e {0} || {{ touch {0}; exit 1; }}", flag.display());
    rigor()
        .args(["run", "-i", "-r", "3", "-w", "0", "--shell", &cmd])
        .assert()
        .success();
}

/// A precision out of reach with a budget runs to the budget, as precise as it allows, and says
/// what the pilot predicted (a new user's run stopped after its pilot, 1.3 s into a 60 s budget,
/// with the planner's error as its reason).
#[test]
fn an_unreachable_precision_with_a_budget_runs_to_the_budget() {
    let out = stdout_of(sim().args([
        "--seed",
        "1",
        "--precision",
        "0.001%",
        "--budget",
        "3s",
        "mean=10ms,execution=30%",
    ]));
    assert!(
        out.contains("Adaptive run: stopped because the time budget was spent."),
        "{out}"
    );
    assert!(!out.contains("could not be planned"), "{out}");
    // Where it ended, not what the pilot predicted from scratch for a budget already spent.
    assert!(
        out.contains("Target ±0.001%; each interval at the end:"),
        "{out}"
    );
    assert!(
        out.contains("short of it; the latest plan puts it out of reach of any count"),
        "{out}"
    );
}

/// A budget spent before the planned count says where each interval ended and what the
/// target would take, from everything measured (a new user's run said "the time budget was
/// spent" beside "the pilot predicts … about ±16%" for an interval of ±1.9%).
#[test]
fn a_budget_spent_before_the_planned_count_says_where_each_interval_ended() {
    let out = stdout_of(sim().args([
        "--seed",
        "1",
        "--precision",
        "2%",
        "--budget",
        "1.5s",
        "mean=10ms,execution=8%",
    ]));
    assert!(
        out.contains("Adaptive run: stopped because the time budget was spent."),
        "{out}"
    );
    assert!(
        out.contains("Target ±2%; each interval at the end:"),
        "{out}"
    );
    let line = out
        .lines()
        .find(|l| l.starts_with("  mean=10ms,execution=8%: ±"))
        .unwrap_or_else(|| panic!("{out}"));
    // The width shown is the summary's.
    let summary = out
        .lines()
        .find(|l| l.contains("Mean ± 95% CI"))
        .unwrap_or_else(|| panic!("{out}"));
    let width = line
        .split_once(": ±")
        .and_then(|(_, w)| w.split_once(','))
        .map(|(w, _)| w)
        .unwrap_or_else(|| panic!("{line}"));
    assert!(
        summary.contains(&format!("(± {width})")),
        "{summary} / {line}"
    );
    assert!(
        line.contains("short of it; the latest plan puts ±2% at about "),
        "{line}"
    );
    assert!(line.contains(" executions in all ("), "{line}");
    assert!(!out.contains("the pilot predicts"), "{out}");
}

#[test]
fn an_unreachable_precision_keeps_the_pilot_and_says_what_is_reachable() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let out = stdout_of(
        sim()
            .args([
                "--seed",
                "1",
                "--precision",
                "0.001%",
                "mean=10ms,execution=30%",
            ])
            .arg("--export-json")
            .arg(&path),
    );
    assert!(out.contains("could not be planned from the pilot"), "{out}");
    assert!(
        out.contains("Target ±0.001%; the pilot predicts within --max-runs 10000:"),
        "{out}"
    );
    assert!(out.contains("mean=10ms,execution=30%: about ±0.6"), "{out}");
    let r = json(&path);
    assert_eq!(r["status"], "complete");
    assert_eq!(r["benchmarks"][0]["counts"][0], 10);
    // A target out of any reach is written readably, not as hundreds of digits.
    let out = stdout_of(sim().args([
        "--seed",
        "1",
        "--precision",
        "1e-300",
        "mean=10ms,execution=30%",
    ]));
    assert!(out.contains("Target ±1e-298%"), "{out}");
    assert!(
        out.contains("half-width = 1.0053822696518507e-302"),
        "{out}"
    );
    assert!(!out.contains("00000000000000000000"), "{out}");
}

/// `rigor report -o`, `rigor compare --export-markdown` and `rigor analyze`'s exports for other
/// tools: the output path is checked before the input is even read (an unreadable input then
/// gives no error: the path's comes first), names the path, and an output that is one of the
/// inputs is refused so that nothing is lost.
#[test]
fn output_paths_of_saved_result_commands_are_checked_first() {
    let dir = Dir::new();
    let input = dir.path("r.json");
    sim()
        .args(["-r", "3", SPEC, "--export-json"])
        .arg(&input)
        .assert()
        .success();
    let before = std::fs::read(&input).unwrap();
    let missing = dir.path("no/such/dir/out");
    let absent = dir.path("absent.json");
    let cases: Vec<(Vec<std::ffi::OsString>, &str)> = vec![
        (
            vec!["report".into(), absent.clone().into(), "-o".into()],
            "--out",
        ),
        (
            vec![
                "compare".into(),
                absent.clone().into(),
                absent.clone().into(),
                "--export-markdown".into(),
            ],
            "--export-markdown",
        ),
        (
            vec![
                "analyze".into(),
                absent.clone().into(),
                "--export-bmf".into(),
            ],
            "--export-bmf",
        ),
        (
            vec![
                "analyze".into(),
                absent.clone().into(),
                "--export-otava".into(),
            ],
            "--export-otava",
        ),
    ];
    for (args, option) in &cases {
        rigor()
            .args(args)
            .arg(&missing)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(format!(
                "{option} {}: the directory",
                missing.display()
            )))
            .stderr(predicate::str::contains("does not exist"));
    }
    // The output is the input: refused, the input untouched.
    for args in [
        vec!["report".into(), input.clone().into_os_string(), "-o".into()],
        vec![
            "analyze".into(),
            input.clone().into_os_string(),
            "--export-bmf".into(),
        ],
    ] {
        rigor()
            .args(&args)
            .arg(&input)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("is the input file"));
    }
    rigor()
        .arg("compare")
        .arg(&input)
        .arg(&input)
        .arg("--export-markdown")
        .arg(&input)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("writing there would replace it"));
    assert_eq!(
        std::fs::read(&input).unwrap(),
        before,
        "the input is intact"
    );
    // A directory as the report.
    rigor()
        .arg("report")
        .arg(&input)
        .arg("-o")
        .arg(dir.0.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a directory"));
}

#[test]
fn ambiguous_or_empty_values_are_refused_and_an_empty_rigor_db_is_unset() {
    // `--confidence 1.5` was read as 1.5%.
    for c in ["1.5", "1", "20"] {
        sim()
            .args(["-r", "3", "--confidence", c, SPEC])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "confidence '{c}' is ambiguous: give a fraction (0.95) or a percentage from 50 (95)"
            )));
    }
    let out = stdout_of(sim().args(["-r", "3", "--confidence", "90", SPEC]));
    assert!(out.contains("Mean ± 90% CI"), "{out}");
    let dir = Dir::new();
    let (result, db) = (dir.path("r.json"), dir.path("h.db"));
    sim()
        .args(["-r", "3", SPEC, "--export-json"])
        .arg(&result)
        .assert()
        .success();
    // An empty version label stored a version without a name.
    for version in ["", "  "] {
        rigor()
            .args(["track", "add", "--version", version, "--db"])
            .arg(&db)
            .arg(&result)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "a version or label cannot be empty",
            ));
    }
    sim()
        .args(["-r", "3", "--label", "", SPEC])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "a version or label cannot be empty",
        ));
    // `RIGOR_DB=` (empty) broke even an explicit --db.
    rigor()
        .env("RIGOR_DB", "")
        .args(["track", "add", "--version", "v1", "--db"])
        .arg(&db)
        .arg(&result)
        .assert()
        .success();
    rigor()
        .env("RIGOR_DB", "")
        .current_dir(dir.0.path())
        .args(["track", "show", "nothing"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a value is required").not());
}

/// A run the pilot alone made precise enough ends on 10 executions, which miss a slow mode of
/// one execution in five with probability 11%: the note says so (a program slow one run in
/// eight, missed by the pilot, stopped "reached" at ±0.4% a quarter below its mean).
#[test]
fn a_run_that_stops_on_its_pilot_says_a_rare_mode_may_be_missed() {
    let out = stdout_of(sim().args(["--seed", "1", "--precision", "5%", "mean=10ms,execution=1%"]));
    assert!(
        out.contains("stopped because the target precision was reached"),
        "{out}"
    );
    assert!(
        out.contains("It ended with 10 executions: so few miss a slow mode of one execution in five with probability 11%"),
        "{out}"
    );
    // Enough executions: nothing to say.
    let out = stdout_of(sim().args([
        "--seed",
        "1",
        "--precision",
        "5%",
        "--min-runs",
        "14",
        "mean=10ms,execution=1%",
    ]));
    assert!(!out.contains("It ended with"), "{out}");
}
