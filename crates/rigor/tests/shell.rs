//! hyperfine's command lines with shell syntax, the execution number in the environment,
//! parameters in hooks and the order of hooks (issue #27 §1). Real processes (`sh`, `echo`,
//! `touch`), never their timing.

mod common;

use std::path::Path;

use common::{Dir, json, rigor};
use predicates::prelude::*;

/// `rigor run -r N -w W --seed 1` in `dir`, writing its result to `r.json` there.
fn run_in(dir: &Dir, runs: &str, warmup: &str) -> assert_cmd::Command {
    let mut cmd = rigor();
    cmd.current_dir(dir.0.path())
        .args(["run", "-r", runs, "-w", warmup, "--seed", "1"])
        .arg("--export-json")
        .arg(dir.path("r.json"));
    cmd
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_command_with_shell_syntax_runs_through_sh_and_rigor_says_so() {
    let dir = Dir::new();
    std::fs::write(dir.path("f"), "hello").unwrap();
    std::fs::write(dir.path("old.gz"), "").unwrap();
    run_in(&dir, "2", "0")
        .args(["--prepare", "rm -f *.gz"])
        .args([
            "gzip -c f > f.out",
            "echo ${HYPERFINE_ITERATION} >> iter.log",
        ])
        .arg("true")
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "rigor: note: running through sh -c, for their shell syntax: 'gzip -c f > f.out' \
             (the redirection `>`), --prepare 'rm -f *.gz' (the pattern `*`), 'echo \
             ${HYPERFINE_ITERATION} >> iter.log' (the expansion `${HYPERFINE_ITERATION}`); \
             --shell none (-N) runs them directly",
        ))
        // Said once, and a command without shell syntax is not named.
        .stderr(predicate::str::contains("running through").count(1))
        .stderr(predicate::str::contains("'true' (").not());
    assert!(dir.path("f.out").is_file(), "the redirection ran");
    assert!(
        !dir.path("old.gz").exists(),
        "the glob of --prepare matched"
    );
    assert_eq!(lines(&dir.path("iter.log")), ["0", "1"]);
    assert_eq!(json(&dir.path("r.json"))["settings"]["shell"], true);
}

#[test]
fn n_runs_shell_syntax_directly_as_hyperfine_does() {
    // hyperfine -N splits the words and runs `echo` with `a`, `>` and `b` as its arguments.
    let dir = Dir::new();
    run_in(&dir, "2", "0")
        .arg("-N")
        .arg("echo a > b")
        .assert()
        .success()
        .stderr(predicate::str::contains("running through").not());
    assert!(!dir.path("b").exists());
    run_in(&dir, "2", "0")
        .args(["--shell", "none", "echo a > b"])
        .assert()
        .success();
    assert!(!dir.path("b").exists());
}

#[test]
fn executions_and_their_hooks_see_hyperfines_iteration_number() {
    // hyperfine: `warmup-0`, … for warm-up runs, then 0, 1, … for the measured ones.
    let dir = Dir::new();
    run_in(&dir, "2", "1")
        .args(["--prepare", "echo prepare $RIGOR_ITERATION >> log"])
        .args(["--conclude", "echo conclude $HYPERFINE_ITERATION >> log"])
        .arg("echo run $HYPERFINE_ITERATION $RIGOR_ITERATION >> log")
        .assert()
        .success();
    assert_eq!(
        lines(&dir.path("log")),
        [
            "prepare warmup-0",
            "run warmup-0 warmup-0",
            "conclude warmup-0",
            "prepare 0",
            "run 0 0",
            "conclude 0",
            "prepare 1",
            "run 1 1",
            "conclude 1",
        ]
    );
}

#[test]
fn parameters_are_substituted_in_hooks_and_a_parameter_may_be_used_only_there() {
    let dir = Dir::new();
    run_in(&dir, "2", "0")
        .args(["-L", "d", "1,2"])
        .args([
            "--setup",
            "touch marker-s{d}",
            "--prepare",
            "touch marker-p{d}",
        ])
        .args([
            "--conclude",
            "touch marker-c{d}",
            "--cleanup",
            "touch marker-x{d}",
        ])
        .arg("true")
        .assert()
        .success();
    for stage in ["s", "p", "c", "x"] {
        for d in ["1", "2"] {
            let marker = format!("marker-{stage}{d}");
            assert!(dir.path(&marker).is_file(), "{marker}");
            assert!(!dir.path(&format!("marker-{stage}{{d}}")).exists());
        }
    }
    // The values used only in hooks tell the benchmarks apart, as hyperfine names them.
    let r = json(&dir.path("r.json"));
    let names: Vec<&str> = r["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["true (d = 1)", "true (d = 2)"]);
}

#[test]
fn one_setup_for_all_runs_once_around_the_interleaved_rounds() {
    let dir = Dir::new();
    run_in(&dir, "2", "0")
        .args([
            "--setup",
            "echo setup >> log",
            "--cleanup",
            "echo cleanup >> log",
        ])
        .args(["echo A >> log", "echo B >> log"])
        .assert()
        .success()
        .stderr(predicate::str::contains("not interleaved").not());
    let log = lines(&dir.path("log"));
    assert_eq!(log.first().map(String::as_str), Some("setup"));
    assert_eq!(log.last().map(String::as_str), Some("cleanup"));
    assert_eq!(log.len(), 6, "{log:?}");
}

#[test]
fn differing_setups_run_each_benchmark_inside_its_own_setup_and_cleanup() {
    let dir = Dir::new();
    run_in(&dir, "2", "1")
        .args(["-L", "v", "x,y"])
        .args(["--setup", "echo setup {v} >> log"])
        .args(["--cleanup", "echo cleanup {v} >> log"])
        .arg("echo run {v} >> log")
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "rigor: note: the benchmarks' --setup or --cleanup commands differ, so they were \
             not interleaved",
        ));
    assert_eq!(
        lines(&dir.path("log")),
        [
            "setup x",
            "run x",
            "run x",
            "run x",
            "cleanup x",
            "setup y",
            "run y",
            "run y",
            "run y",
            "cleanup y",
        ]
    );
}

#[test]
fn one_hook_per_command_goes_with_its_command() {
    // hyperfine: --prepare once, or once per command.
    let dir = Dir::new();
    run_in(&dir, "3", "0")
        .args(["--prepare", "echo prepare-A >> log"])
        .args(["--prepare", "echo prepare-B >> log"])
        .args(["echo A >> log", "echo B >> log"])
        .assert()
        .success();
    let log = lines(&dir.path("log"));
    assert_eq!(log.len(), 12);
    for pair in log.chunks(2) {
        assert_eq!(pair[0], format!("prepare-{}", pair[1]), "{log:?}");
    }
    // Neither once nor once per command: refused before anything runs, naming the option.
    run_in(&dir, "3", "0")
        .args(["-c", "true", "-c", "true", "-c", "true", "a", "b"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--cleanup was given 3 times: give it once (for every command), once per command \
             (2) or once per benchmark (2",
        ));
    // Blocks cannot be measured adaptively: refused with the reason and what to do.
    rigor()
        .args(["run", "--precision", "5%", "-s", "a", "-s", "b", "x", "y"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--precision needs the benchmarks interleaved in shared rounds, but their --setup \
             or --cleanup commands differ",
        ));
}

#[test]
fn commands_through_a_shell_are_reported_net_of_its_start_up_and_analyze_agrees() {
    let dir = Dir::new();
    run_in(&dir, "4", "0")
        .args(["--shell", "true"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "rigor: note: sh -c '' (the shell's start-up) is measured in the same rounds",
        ))
        // The opening counts the user's commands, not the empty shell.
        .stderr(predicate::str::contains(
            "rigor: 1 command, 4 executions each",
        ))
        .stdout(predicate::str::contains("Net of start-up:"))
        .stdout(predicate::str::contains(
            "Role:              the start-up of sh, subtracted from the commands run through it",
        ))
        // The start-up is subtracted, not compared.
        .stdout(predicate::str::contains("Comparisons").not());
    let r = json(&dir.path("r.json"));
    let b = &r["benchmarks"];
    assert_eq!(b[0]["net_of"], "sh -c ''");
    assert_eq!(b[1]["name"], "sh -c ''");
    assert_eq!(b[1]["shell_startup"], "sh");
    // The samples stay gross; the net is the difference of the means, its interval around it.
    let net = &b[0]["net"];
    let f = |v: &serde_json::Value| v.as_f64().unwrap();
    let (gross, startup) = (f(&b[0]["mean"]), f(&b[1]["mean"]));
    assert!((f(&net["mean"]) - (gross - startup)).abs() < 1e-12);
    assert!((f(&net["startup_mean"]) - startup).abs() < 1e-15);
    assert!(f(&net["lower"]) < f(&net["mean"]) && f(&net["mean"]) < f(&net["upper"]));
    assert!(f(&net["df"]) > 0.0);
    // `rigor analyze` of the file gives the same net figures.
    let out = rigor()
        .args(["analyze", "--json"])
        .arg(dir.path("r.json"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let again: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(again["benchmarks"][0]["net"], *net);
}

#[test]
fn commands_run_directly_measure_no_start_up() {
    let dir = Dir::new();
    run_in(&dir, "2", "0")
        .arg("true")
        .assert()
        .success()
        .stderr(predicate::str::contains("start-up").not());
    let r = json(&dir.path("r.json"));
    assert_eq!(r["benchmarks"].as_array().unwrap().len(), 1);
    assert!(r["benchmarks"][0].get("net_of").is_none());
}

/// `! cmd` negates a command's status in a shell, as hyperfine runs it; run directly, `!` was
/// taken for a program ("cannot start '!'"). An empty `-n` named a benchmark with nothing.
#[test]
fn a_negated_command_runs_through_sh_and_an_empty_name_is_refused() {
    let dir = Dir::new();
    run_in(&dir, "2", "0")
        .arg("! false")
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "'! false' (the shell's reserved word `!`)",
        ));
    run_in(&dir, "2", "0")
        .args(["-n", "", "true"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--name number 1 is empty"));
}

/// hyperfine's `--shell python3` runs each command with `python3 -c`: written attached
/// (`--shell=python3`, `-Spython3`) rigor does the same; given apart, a program rigor does not
/// know as a shell is the first command (as `--shell` once took no value), and the run says so
/// (it was benchmarked without a word, the next command failing through sh).
#[test]
fn a_shell_rigor_does_not_know_is_the_shell_when_attached_and_said_when_apart() {
    for attached in ["--shell=python3", "-Spython3"] {
        let out = rigor()
            .args(["run", "-r", "2", "-w", "0", attached, "print(1)"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{attached}: {err}");
        assert!(err.contains("rigor: 1 command,"), "{attached}: {err}");
        assert!(
            err.contains("python3 -c '' (the shell's start-up)"),
            "{err}"
        );
    }
    rigor()
        .args(["run", "-r", "2", "-w", "0", "--shell", "env", "true"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "note: 'env' after --shell is no shell rigor knows (sh, bash, zsh, fish, …): it is \
             benchmarked as the first command, through sh. To run the commands with `env -c`, \
             as hyperfine's --shell env does, write --shell=env",
        ))
        .stderr(predicate::str::contains("rigor: 2 commands,"));
    // A known shell given apart, and a command with shell syntax, are as before: no note.
    rigor()
        .args(["run", "-r", "2", "-w", "0", "--shell", "sh", "true"])
        .assert()
        .success()
        .stderr(predicate::str::contains("no shell rigor knows").not());
}

/// A command with shell syntax beside one run directly: the shell's start-up is in one side's
/// time only (hyperfine runs both through the shell and subtracts it), and the run says so; with
/// `--shell` both pay it and nothing is said.
#[test]
fn a_comparison_of_a_shell_command_with_a_direct_one_says_the_start_up_is_on_one_side() {
    let dir = Dir::new();
    run_in(&dir, "3", "0")
        .args(["true | true", "true"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "warning: 'true | true' ran through a shell and 'true' directly: their comparison \
             holds the shell's start-up (sh -c '', ",
        ));
    let r = json(&dir.path("r.json"));
    assert!(
        r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["kind"] == "startup_one_side" && w["direct"] == "true"),
        "{}",
        r["warnings"]
    );
    run_in(&dir, "3", "0")
        .args(["--shell", "true | true", "true"])
        .assert()
        .success()
        .stderr(predicate::str::contains("in one side's time only").not());
}
