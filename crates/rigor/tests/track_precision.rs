//! `rigor track run --precision`/`--budget`: each version measured until its level is known, the
//! cost shown per session; the options it cannot honour refused (simulated projects: no
//! processes, no real timing).

mod common;

use common::{Dir, rigor, track_m_main};
use predicates::prelude::*;

/// `track run` of a simulated project of 4 versions, a quiet (1%) and a noisy (15%) benchmark.
fn precise(db: &std::path::Path, extra: &[&str]) -> assert_cmd::Command {
    let mut args = vec![
        "run",
        "--simulate",
        "versions=4",
        "--last",
        "4",
        "--seed",
        "3",
        "-N",
        "-n",
        "quiet",
        "-n",
        "noisy",
        "--no-confirm",
    ];
    args.extend_from_slice(extra);
    let mut cmd = track_m_main(db, &args);
    cmd.args(["--", "mean=10ms,execution=1%", "mean=10ms,execution=15%"]);
    cmd
}

#[test]
fn precision_is_no_longer_ignored_and_its_cost_is_shown() {
    let dir = Dir::new();
    precise(&dir.path("h.db"), &["--precision", "2%"])
        .assert()
        .success()
        .stderr(
            predicate::str::contains("rigor:   quiet: 10 executions per version, 4")
                .and(predicate::str::contains("every level known to ±2.0%"))
                .and(
                    predicate::str::is_match("rigor:   noisy: [0-9]{3} executions per version")
                        .unwrap(),
                ),
        );
    // Not reached within --max-runs: said, with why.
    precise(
        &dir.path("short.db"),
        &["--precision", "1%", "--max-runs", "30"],
    )
    .assert()
    .success()
    .stderr(predicate::str::contains(
        "rigor:   noisy: 30 executions per version, ",
    ))
    .stderr(predicate::str::contains(
        "4 of 4 stopped short of ±1.0% (4 by --max-runs)",
    ));
    // A budget alone: every version measured until it is spent.
    precise(&dir.path("budget.db"), &["--budget", "2s"])
        .assert()
        .success()
        .stderr(predicate::str::contains("stopped 4 by --budget"));
}

#[test]
fn options_precision_cannot_honour_are_refused() {
    let dir = Dir::new();
    precise(&dir.path("h.db"), &["--precision", "2%", "-r", "20"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--precision measures each version until its level is known, so it chooses the \
             executions: leave out --runs (-r)",
        ));
    precise(&dir.path("h.db"), &["--precision", "2%", "--max-runs", "5"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "at most 5 execution(s) allowed (--max-runs), but --precision first measures 10",
        ));
    let bisect = |option: &[&str]| {
        let mut cmd = track_m_main(
            &dir.path("b.db"),
            &["bisect", "v1", "v4", "--simulate", "versions=4"],
        );
        cmd.args(option).args(["--", "mean=10ms"]);
        cmd
    };
    bisect(&["--precision", "2%"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--precision is not an option of `rigor track bisect`",
        ));
    bisect(&["--budget", "10s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--budget is not an option of `rigor track bisect`",
        ));
}

#[test]
fn options_of_rigor_run_that_track_run_would_ignore_are_refused() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    precise(
        &db,
        &[
            "--export-csv",
            "x.csv",
            "--label",
            "mine",
            "--fail-on",
            "regression",
        ],
    )
    .assert()
    .code(2)
    .stderr(predicate::str::contains(
        "`rigor track run` does not take --export-csv, --label, --fail-on: it stores each \
         version's measurements in the history",
    ));
    assert!(!db.exists(), "refused before the history is made");
    assert!(!dir.path("x.csv").exists());
    // Options with a default are refused only when typed.
    precise(
        &db,
        &[
            "--method",
            "overlap",
            "--resamples",
            "500",
            "--sort",
            "command",
            "--time-unit",
            "millisecond",
            "--throughput",
            "1KiB",
        ],
    )
    .assert()
    .code(2)
    .stderr(predicate::str::contains(
        "does not take --sort, --time-unit, --throughput, --method, --resamples:",
    ));
    assert!(!db.exists(), "refused before the history is made");
    // So do a bisection and a gate (which keeps its comparison options).
    for command in [&["bisect", "v1", "v2"][..], &["check", "--candidate", "v2"]] {
        rigor()
            .args(["track", "--db"])
            .arg(&db)
            .args(command)
            .args(["--simulate", "versions=2", "--export-csv", "x.csv"])
            .args(["--fail-on", "regression", "--", "mean=1ms"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "`rigor track {}` does not take --export-csv{}:",
                command[0],
                if command[0] == "bisect" {
                    ", --fail-on"
                } else {
                    ""
                }
            )));
    }
    assert!(!db.exists(), "refused before the history is made");
}
