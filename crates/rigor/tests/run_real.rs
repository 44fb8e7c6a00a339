//! `rigor run` with real processes: tiny commands, shells, failures and hooks, builds, crash
//! safety and Ctrl-C — what rigor does with them, whatever they measure. The tests whose pass
//! depends on the measured times (a sleep's mean, a timeout's timing) are in the timing tier,
//! `timing/run.rs`.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{Dir, json, rigor, stdout_of};
use predicates::prelude::*;

#[test]
fn commands_run_through_a_shell_when_they_have_shell_syntax_or_when_asked() {
    // Without --shell, `echo $HOME; exit 3` has shell syntax: it runs through `sh`, as in
    // hyperfine, and rigor says so; with -N it is the program `echo` with literal arguments.
    rigor()
        .args(["run", "-r", "2", "echo $HOME; exit 3"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("exited with code 3"))
        .stderr(predicate::str::contains("running through sh -c"));
    rigor()
        .args(["run", "-r", "2", "-N", "echo $HOME; exit 3"])
        .assert()
        .success();
    rigor()
        .args(["run", "-r", "2", "--shell", "echo boom >&2; exit 3"])
        .assert()
        .code(2)
        .stdout(
            predicate::str::contains("exited with code 3").and(predicate::str::contains("boom")),
        )
        // As hyperfine does, the way to measure it anyway is named, after which benchmark
        // failed (not "a benchmark failed or measured nothing, or a metric asked for is in no
        // benchmark").
        .stderr(predicate::str::contains("use -i/--ignore-failure"))
        .stderr(predicate::str::contains(
            "rigor: 'echo boom >&2; exit 3' failed or measured nothing (shown above), exit \
             status 2",
        ));
    // A shell that could not find the command: said, and -i (which would not help) is not
    // suggested; one command beside the shell's start-up has nothing to be compared with.
    rigor()
        .args(["run", "-r", "2", "--shell", "no-such-program-rigor-test"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "exited with code 127 (a shell's 'command not found')",
        ))
        .stderr(predicate::str::contains("--ignore-failure").not())
        .stderr(predicate::str::contains("no comparisons").not());
    rigor()
        .args(["run", "-r", "2", "no-such-program-rigor-test"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "cannot start 'no-such-program-rigor-test'",
        ))
        // A program that cannot start is not what -i is for.
        .stderr(predicate::str::contains("--ignore-failure").not());
    // Nor a shell's syntax error: the command never ran (a trial's `-S python3 'print(1)'`,
    // its `print(1)` run through sh, was told to use -i).
    rigor()
        .args(["run", "-r", "2", "--shell", "print(1)"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("rror"))
        .stderr(predicate::str::contains("--ignore-failure").not());
}

#[test]
fn iteration_times_from_output_and_native_file() {
    let dir = Dir::new();
    let path = dir.path("i.json");
    rigor()
        .args([
            "run",
            "-r",
            "3",
            "--shell",
            "--iterations-from",
            "stdout",
            "--pattern",
            r"iter: (\d+) us",
            "--unit",
            "us",
        ])
        .arg("printf 'iter: 100 us\\niter: 120 us\\niter: 110 us\\n'")
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success();
    let b = &json(&path)["benchmarks"][0];
    assert_eq!(b["counts"], serde_json::json!([3, 9]));
    assert!((b["mean"].as_f64().unwrap() - 110e-6).abs() < 1e-12);

    // Anchored to each line, as grep reads it, CRLF endings too (`^([0-9.]+)$` matched nothing
    // in a program printing one time per line: the anchors were the output's ends).
    rigor()
        .args(["run", "-r", "2", "--shell", "--iterations-from", "stdout"])
        .args(["--pattern", r"^([0-9.]+)$", "--unit", "ms"])
        .arg("printf 'warm-up\n2\n4\r\ntotal 6\n'")
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success();
    let b = &json(&path)["benchmarks"][0];
    assert_eq!(b["counts"], serde_json::json!([2, 4]));
    assert!((b["mean"].as_f64().unwrap() - 3e-3).abs() < 1e-12);

    rigor()
        .args(["run", "-r", "3", "--discard", "1", "--shell"])
        .arg(r#"for v in 900 100 110; do echo "{\"value\": $v, \"unit\": \"ms\"}" >> "$RIGOR_SAMPLES_FILE"; done"#)
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success();
    let b = &json(&path)["benchmarks"][0];
    assert_eq!(b["levels"], serde_json::json!(["execution", "iteration"]));
    assert!(
        (b["mean"].as_f64().unwrap() - 0.105).abs() < 1e-12,
        "discarded iteration excluded"
    );
}

#[test]
fn metrics_a_program_reports_are_kept_with_each_execution() {
    let dir = Dir::new();
    let path = dir.path("m.json");
    // Two iterations with an allocation count each, and one peak per execution.
    let program = r#"for v in 10 12; do echo "{\"value\": $v, \"unit\": \"ms\"}" >> "$RIGOR_SAMPLES_FILE"; echo "{\"metric\": \"allocations\", \"value\": $v}" >> "$RIGOR_SAMPLES_FILE"; done; echo '{"metric": "heap", "value": 2, "unit": "KiB"}' >> "$RIGOR_SAMPLES_FILE""#;
    rigor()
        .args(["run", "-r", "3", "--shell", program, "--export-json"])
        .arg(&path)
        .assert()
        .success();
    let b = &json(&path)["benchmarks"][0];
    assert_eq!(b["levels"], serde_json::json!(["execution", "iteration"]));
    let executions = b["executions"].as_array().unwrap();
    let measured = executions.iter().filter(|e| e["warmup"] == false).count();
    assert_eq!(measured, 3);
    // Warm-up executions keep theirs too.
    for e in executions {
        assert_eq!(
            e["metrics"],
            serde_json::json!({
                "allocations": {"unit": "count", "values": [10.0, 12.0]},
                "heap": {"unit": "B", "values": [2048.0]},
            }),
            "{e}"
        );
    }

    // What `--metric` analyses: 10 and 12 per execution.
    let out = stdout_of(
        rigor()
            .args(["analyze", "--metric", "allocations"])
            .arg(&path),
    );
    assert!(out.contains("Median/min/max:    11 / 10 / 12"), "{out}");

    // Metrics alone: the executions' wall times are the samples, the metrics kept beside.
    let path = dir.path("alone.json");
    rigor()
        .args(["run", "-r", "2", "--shell"])
        .arg(r#"echo '{"metric": "allocations", "value": 7}' >> "$RIGOR_SAMPLES_FILE""#)
        .arg("--export-json")
        .arg(&path)
        .assert()
        .success();
    let b = &json(&path)["benchmarks"][0];
    assert_eq!(b["levels"], serde_json::json!(["execution"]));
    assert_eq!(
        b["executions"][1]["metrics"]["allocations"]["values"],
        serde_json::json!([7.0])
    );

    // A metric rigor measures itself is refused, naming the line.
    rigor()
        .args(["run", "-r", "2", "--shell"])
        .arg(r#"echo '{"metric": "cpu", "value": 1}' >> "$RIGOR_SAMPLES_FILE""#)
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "RIGOR_SAMPLES_FILE: line 1: metric 'cpu': rigor measures CPU times",
        ));
}

#[test]
fn input_file_is_connected_to_stdin() {
    let dir = Dir::new();
    let input = dir.path("in.txt");
    std::fs::write(&input, "hello\n").unwrap();
    rigor()
        .args(["run", "-r", "2", "--shell", "grep -q hello"])
        .arg("--input")
        .arg(&input)
        .assert()
        .success();
    rigor()
        .args(["run", "-r", "2", "--shell", "grep -q absent"])
        .arg("--input")
        .arg(&input)
        .assert()
        .code(2);
}

fn spawn_long_run(path: &std::path::Path) -> std::process::Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("rigor"))
        .args(["run", "-r", "2000", "sleep 0.01", "--export-json"])
        .arg(path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_for_executions(path: &std::path::Path) {
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(20) {
        if std::fs::read_to_string(path)
            .is_ok_and(|t| t.matches("\"type\":\"execution\"").count() >= 5)
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no executions recorded in time");
}

#[test]
fn killed_run_leaves_a_readable_file() {
    let dir = Dir::new();
    let path = dir.path("killed.json");
    let mut child = spawn_long_run(&path);
    wait_for_executions(&path);
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    let r = json(&path);
    assert_eq!(r["status"], "running");
    assert!(r["log"].as_array().unwrap().len() >= 5);
    let out = stdout_of(rigor().arg("analyze").arg(&path));
    assert!(out.contains("Mean ± 95% CI"), "{out}");
}

/// An adaptive run the user stops says so and where each interval ended against the target (it
/// had said only "the run ended").
#[test]
fn an_interrupted_adaptive_run_says_where_it_stopped_against_the_target() {
    let dir = Dir::new();
    let path = dir.path("adaptive.json");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("rigor"))
        .args([
            "run",
            "--precision",
            "0.1%",
            "--max-runs",
            "1000000",
            "-n",
            "A",
        ])
        .arg("sleep 0.01")
        .arg("--export-json")
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Past the pilot's 10 executions: the target (±0.1%, some 100 executions at 0.5% noise per
    // execution, within the planner's reach up to 50%) is far from reached.
    let t0 = Instant::now();
    while !std::fs::read_to_string(&path)
        .is_ok_and(|t| t.matches("\"type\":\"execution\"").count() >= 14)
    {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no executions in time"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Adaptive run: stopped because it was interrupted.")
            && stdout.contains("Target ±0.1%; each interval at the end:\n  A: ±"),
        "{stdout}"
    );
}

#[test]
fn ctrl_c_stops_cleanly_and_keeps_data() {
    let dir = Dir::new();
    let path = dir.path("int.json");
    let child = spawn_long_run(&path);
    wait_for_executions(&path);
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    // The screen says that the summaries are of a run cut short, and where its data is.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "rigor: interrupted: what is shown above is what was measured before the stop"
        ) && err.contains(&format!(
            "{} keeps every execution measured",
            path.display()
        )),
        "{err}"
    );
    let r = json(&path);
    assert_eq!(r["status"], "interrupted");
    assert!(r["benchmarks"][0]["samples"].as_array().unwrap().len() >= 5);
    assert!(r["benchmarks"][0]["ci"]["lower"].is_number());
    // Its Markdown table says it was cut short (it read as a finished run of fewer executions).
    let md = dir.path("int.md");
    rigor()
        .arg("analyze")
        .arg(&path)
        .arg("--export-markdown")
        .arg(&md)
        .assert()
        .success();
    let table = std::fs::read_to_string(&md).unwrap();
    assert!(
        table.starts_with("Interrupted: the run was stopped before it finished"),
        "{table}"
    );
}

#[test]
fn builds_a_c_program_several_times() {
    let dir = Dir::new();
    let src = dir.path("prog.c");
    std::fs::write(&src, "int main(void) { volatile long s = 0; for (long i = 0; i < 200000; i++) s += i; return 0; }\n").unwrap();
    let path = dir.path("b.json");
    let build = format!(
        "gcc -O1 -o {{build_dir}}/prog {} -frandom-seed={{build_seed}}",
        src.display()
    );
    rigor()
        .args([
            "run",
            "-r",
            "3",
            "--builds",
            "3",
            "--build",
            &build,
            "{build_dir}/prog",
            "--export-json",
        ])
        .arg(&path)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("3 builds × 3 executions")
                .and(predicate::str::contains("measured one after another").not()),
        );
    let b = &json(&path)["benchmarks"][0];
    assert_eq!(b["levels"], serde_json::json!(["build", "execution"]));
    let builds = b["builds"].as_array().unwrap();
    assert_eq!(builds.len(), 3);
    assert!(builds.iter().all(|x| x["wall"].as_f64().unwrap() > 0.0));
    assert_eq!(b["variance_components"][0]["level"], "build");
    assert!(
        b["samples"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["build"].is_u64())
    );
    // The command runs each build's program from its own directory: the builds share every
    // round (made first, then measured side by side), so load that drifts over the run falls on
    // all of them alike.
    let mut rounds: std::collections::BTreeMap<u64, std::collections::BTreeSet<u64>> =
        Default::default();
    for e in b["executions"].as_array().unwrap() {
        rounds
            .entry(e["round"].as_u64().unwrap())
            .or_default()
            .insert(e["build"].as_u64().unwrap());
    }
    assert!(rounds.len() >= 3, "{rounds:?}");
    assert!(
        rounds.values().all(|builds| builds.len() == 3),
        "{rounds:?}"
    );
}

/// A build whose program the command does not take from `{build_dir}` (built in place, run
/// from there) cannot share rounds with the others: each build's executions keep a block of
/// their own, and rigor says so and how to interleave them.
#[test]
fn builds_built_in_place_keep_their_blocks_and_say_so() {
    let dir = Dir::new();
    let src = dir.path("prog.c");
    std::fs::write(&src, "int main(void) { return 0; }\n").unwrap();
    let prog = dir.path("prog");
    let path = dir.path("b.json");
    let out = rigor()
        .args(["run", "-r", "2", "-w", "0", "--builds", "3", "--build"])
        .arg(format!("gcc -o {} {}", prog.display(), src.display()))
        .arg(&prog)
        .arg("--export-json")
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("each build's executions run in a block of their own")
            && stderr.contains("does not name {build_dir}"),
        "{stderr}"
    );
    let b = &json(&path)["benchmarks"][0];
    for e in b["executions"].as_array().unwrap() {
        let (round, build) = (e["round"].as_u64().unwrap(), e["build"].as_u64().unwrap());
        assert_eq!(round / 2, build, "rounds nested in builds: {e}");
    }
}

#[test]
fn failed_build_is_reported_with_its_output() {
    rigor()
        .args([
            "run",
            "-r",
            "2",
            "--builds",
            "2",
            "--shell",
            "--build",
            "echo compiler says no >&2; exit 1",
            "true",
        ])
        .assert()
        .code(2)
        .stdout(
            predicate::str::contains("Failure: build 1 exited with code 1")
                .and(predicate::str::contains("compiler says no"))
                .and(predicate::str::contains("execution 1:").not()),
        );
}

#[test]
fn hook_failures_say_which_hook_failed_and_when() {
    let dir = Dir::new();
    let result = dir.path("r.json");
    let run = |hook: &[&str]| {
        let out = rigor()
            .current_dir(dir.0.path())
            .args(["run", "-r", "3", "-w", "1", "--export-json"])
            .arg(&result)
            .args(hook)
            .arg("true")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        // Not the benchmarked command's failure: no advice to ignore its exit status.
        assert!(!stderr.contains("--ignore-failure"), "{stderr}");
        let failures = json(&result)["benchmarks"][0]["failures"].clone();
        (String::from_utf8(out.stdout).unwrap(), failures)
    };
    // --setup, run directly (no shell), fails before anything is measured.
    let (out, failures) = run(&["--setup", "false"]);
    let reason = "--setup command before the first execution failed: exited with code 1";
    assert!(out.contains(&format!("  Failure: {reason}\n")), "{out}");
    assert!(!out.contains("execution 1:"), "{out}");
    assert_eq!(failures[0]["stage"], "setup", "{failures}");
    assert_eq!(failures[0]["reason"], reason, "{failures}");
    // --prepare fails on its third run: before the second measured execution (the first run
    // precedes the warm-up execution); its standard error is shown as a command's is.
    let prepare = "k=$(cat count 2>/dev/null || echo 0); k=$((k+1)); echo $k > count; \
                   if [ $k -eq 3 ]; then echo disk full >&2; exit 1; fi";
    let (out, failures) = run(&["--prepare", &format!("sh -c '{prepare}'")]);
    let reason = "--prepare command before execution 2 failed: exited with code 1";
    assert!(
        out.contains(&format!(
            "  Failure: {reason}; stderr ends:\n    disk full\n"
        )),
        "{out}"
    );
    assert_eq!(failures[0]["stage"], "prepare", "{failures}");
    assert_eq!(failures[0]["number"], 2, "{failures}");
    assert_eq!(failures[0]["reason"], reason, "{failures}");
    assert_eq!(failures[0]["stderr_tail"], "disk full\n", "{failures}");
    // --cleanup fails after everything was measured: the results stay.
    let (out, failures) = run(&["--cleanup", "false"]);
    let reason = "--cleanup command after the last execution failed: exited with code 1";
    assert!(out.contains(&format!("  Failure: {reason}\n")), "{out}");
    assert!(out.contains("Units:             3 executions"), "{out}");
    assert_eq!(failures[0]["stage"], "cleanup", "{failures}");
    // A hook that cannot start is reported the same way, not as an error of the whole run.
    let (out, failures) = run(&["--prepare", "no-such-program-for-rigor"]);
    assert!(
        out.contains(
            "Failure: --prepare command before warm-up execution 1 failed: cannot start \
             'no-such-program-for-rigor'"
        ),
        "{out}"
    );
    assert_eq!(failures[0]["stage"], "prepare", "{failures}");
}

#[test]
fn failures_are_numbered_as_the_user_counts_executions() {
    // A command that crashes on its n-th process: with one warm-up execution, the third process
    // is the second measured execution, and the first process is the warm-up. (A crash, not an
    // exit status: -i measures executions that exit with a non-zero status.)
    let dir = Dir::new();
    let failing_on = |n: u32| {
        format!(
            "k=$(cat count 2>/dev/null || echo 0); k=$((k+1)); echo $k > count; \
             if [ $k -eq {n} ]; then kill -9 $$; fi"
        )
    };
    let run = |n: u32| {
        let _ = std::fs::remove_file(dir.path("count"));
        let out = rigor()
            .current_dir(dir.0.path())
            .args(["run", "-r", "4", "-w", "1", "-i", "--shell"])
            .arg(failing_on(n))
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (out, err) = run(3);
    assert!(
        out.contains("Failure: execution 2: the command was killed by signal 9 (SIGKILL)"),
        "{out}"
    );
    // Where hyperfine's -i would have kept the time, rigor says it did not.
    assert!(
        err.contains("those killed by a signal or a timeout") && err.contains("hyperfine's -i"),
        "{err}"
    );
    // The executions left are those that did not crash: a warning, which --fail-on warning
    // gates on (it had been a note only, exit 0).
    assert!(
        out.contains("1 execution killed by a signal (9) is left out of the 3 analysed"),
        "{out}"
    );
    let _ = std::fs::remove_file(dir.path("count"));
    rigor()
        .current_dir(dir.0.path())
        .args([
            "run",
            "-r",
            "4",
            "-w",
            "1",
            "-i",
            "--fail-on",
            "warning",
            "--shell",
        ])
        .arg(failing_on(3))
        .assert()
        .code(1);
    let (out, _) = run(1);
    assert!(
        out.contains("Failure: warm-up execution 1: the command was killed by signal 9"),
        "{out}"
    );
}

#[test]
fn discard_on_a_command_without_iterations_says_nothing_was_discarded() {
    rigor()
        .args(["run", "-r", "3", "--discard", "2", "true"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "--discard drops warm-up iterations, and true reported none",
        ));
    rigor()
        .args(["run", "-r", "3", "true"])
        .assert()
        .success()
        .stderr(predicate::str::contains("--discard").not());
}

/// Iteration times that add up to more than their execution's wall time cannot have run inside
/// it: a forgotten `--unit ms` read "took 5 ms" as 5 s, and the mean as 5 s, without a word (a
/// new user's trial).
#[test]
fn iteration_times_beyond_the_wall_time_are_a_warning() {
    let run = |said: &str, unit: Option<&str>| {
        let mut cmd = rigor();
        cmd.args(["run", "-r", "3", "--iterations-from", "stdout"])
            .args(["--pattern", "took ([0-9.]+) ms"]);
        if let Some(u) = unit {
            cmd.args(["--unit", u]);
        }
        cmd.arg("--shell")
            .arg(format!("for i in 1 2 3; do echo took {said} ms; done"));
        stdout_of(&mut cmd)
    };
    let out = run("5", None);
    assert!(
        out.contains("the iteration times add up to ")
            && out.contains("× their execution's wall time")
            && out.contains("is it right?"),
        "{out}"
    );
    let out = run("0.1", Some("ms"));
    assert!(!out.contains("the iteration times add up to"), "{out}");
}

/// The first executions far slower than every later one (a cold start) are a warning that
/// names them and how to skip them, as hyperfine warns of a slow first run (a new user's trial
/// had only a warning of skewed means).
#[test]
fn a_cold_start_across_executions_is_a_warning() {
    let dir = Dir::new();
    let script = "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; \
                  if [ $n -le 3 ]; then sleep 0.15; else sleep 0.02; fi";
    let out = stdout_of(
        rigor()
            .current_dir(dir.0.path())
            .args(["run", "-w", "0", "-r", "14", "--shell"])
            .arg(script),
    );
    assert!(
        out.contains("the first 3 executions ran ")
            && out.contains("raise -w/--warmup by 3 to run such executions before measuring"),
        "{out}"
    );
}
