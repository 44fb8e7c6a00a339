//! `rigor run` on real commands where the pass depends on how long they take: a sleep measured
//! at least as long as it sleeps, a timeout that ends the run in time. What rigor does with real
//! processes regardless of their times (shells, failures, hooks, builds, Ctrl-C) is tested in
//! `run_real.rs`, in the default tier.

use std::time::{Duration, Instant};

use crate::common::{Dir, json, rigor, stdout_of};
use predicates::prelude::*;

/// A command of a few hundred microseconds is mostly process start-up: the run says so, as
/// hyperfine warns under 5 ms; one of 20 ms is not noted. Beside two busy loops each execution
/// of `true` took 3–13 ms on a 2-CPU machine, nearly all of it waiting for a CPU: the note
/// takes the median execution less that wait, and still says so.
#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn a_command_shorter_than_process_start_up_is_noted() {
    let _alone = crate::alone();
    let err = |cmd: &str| {
        let out = rigor()
            .args(["run", "-r", "3", "-w", "0", cmd])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    let noted = |out: &str| {
        out.contains("note: under 5 ms an execution ('true' ")
            && out.contains("much of such a time is starting the process")
    };
    let short = err("true");
    assert!(noted(&short), "{short}");
    let long = err("sleep 0.02");
    assert!(!long.contains("under 5 ms"), "{long}");
    let _load = crate::Load::start();
    std::thread::sleep(Duration::from_millis(200));
    let loaded = err("true");
    assert!(noted(&loaded), "{loaded}");
}

#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn measures_wall_time_of_real_commands() {
    let _alone = crate::alone();
    let dir = Dir::new();
    let path = dir.path("r.json");
    let out = stdout_of(
        rigor()
            .args(["run", "-r", "5", "sleep 0.01", "true", "--export-json"])
            .arg(&path),
    );
    assert!(
        out.contains("Benchmark 1: sleep 0.01") && out.contains("Benchmark 2: true"),
        "{out}"
    );
    let r = json(&path);
    let sleep = &r["benchmarks"][0];
    assert!(sleep["mean"].as_f64().unwrap() >= 0.01);
    let execs = sleep["executions"].as_array().unwrap();
    assert_eq!(execs.len(), 6, "5 measured + 1 warm-up");
    // (max_rss is 0, unknown, for commands smaller than rigor itself: see child_peak_rss.)
    assert!(
        execs
            .iter()
            .all(|e| e["max_rss"].is_u64() && e["user"].is_number() && e["sys"].is_number())
    );
    // Rounds interleave the two commands: every round has one execution of each.
    let rounds = |b: usize| -> Vec<u64> {
        r["benchmarks"][b]["executions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["round"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(rounds(0), rounds(1));
}

#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn timeout_kills_and_reports() {
    let _alone = crate::alone();
    let t0 = Instant::now();
    rigor()
        .args(["run", "-r", "2", "-w", "0", "--timeout", "0.2", "sleep 10"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("timed out"));
    assert!(t0.elapsed() < Duration::from_secs(5));
}

/// The first run a new user makes ends without a warning rigor could have avoided: a default run
/// of `sleep 0.01` measures the 20 executions skewed means need (on a loaded 2-core machine, 6
/// of 10 runs of `-r 10` asked for more; none of 10 default runs did).
#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn a_default_run_of_a_quick_command_asks_for_no_more_executions() {
    let _alone = crate::alone();
    for _ in 0..5 {
        let out = stdout_of(rigor().args(["run", "sleep 0.01"]));
        assert!(out.contains("Units:             20 executions"), "{out}");
        assert!(
            !out.contains("use at least") && !out.contains("or more"),
            "{out}"
        );
    }
}

/// Whether `taskset` is here to pin processes to one CPU (said when not: the test is skipped).
fn have_taskset() -> bool {
    let here = std::process::Command::new("taskset")
        .arg("-V")
        .output()
        .is_ok();
    if !here {
        eprintln!("SKIP: taskset is needed");
    }
    here
}

/// Whether CPU 0 is quiet enough here for preemptions to tell contention: the busy loop of
/// [`pinned_beside_yes`] alone on it, five times, must be preempted less often than the rule's
/// least contended rate (`rigor_stats::preemption::CONTENDED_RATE`, 20 a second; 5 on the quiet
/// machines the rule was measured on). Said when not, and the test is skipped: on a virtual
/// machine whose CPU 0 was taken 10–90 times a second with nothing else running (and ran the
/// loop 1.7× slower than CPU 1), a start slowed 2.7× by two `yes` was preempted no more often a
/// second than the executions after it, and rigor called it a cold start (docs/limitations.md).
fn quiet_cpu0() -> bool {
    let dir = Dir::new();
    let path = dir.path("alone.json");
    rigor()
        .current_dir(dir.0.path())
        .args(["run", "-w", "0", "-r", "5", "--shell", "--export-json"])
        .arg(&path)
        .arg("taskset -c 0 sh -c 'i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done'")
        .assert()
        .success();
    let r = json(&path);
    let mut rates: Vec<f64> = r["benchmarks"][0]["executions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["preempted"].as_f64().unwrap() / e["wall"].as_f64().unwrap())
        .collect();
    rates.sort_by(f64::total_cmp);
    let median = rates[rates.len() / 2];
    // rigor_stats::preemption::CONTENDED_RATE (the binary's tests do not depend on the crate).
    let quiet = median < 20.0;
    if !quiet {
        eprintln!(
            "SKIP: CPU 0 alone is preempted {median:.0} times a second here: too often for \
             preemptions to tell other processes' contention"
        );
    }
    quiet
}

/// Why this attempt cannot test the preemption rule, if it cannot: the rule calls executions
/// contended when they were preempted at least 20 times a second, twice the others' median and
/// 5 times in all (`rigor_stats::preemption`), so it can only be tested where the executions
/// alone on CPU 0 (outside `contended`, 0-based, of `r`'s first benchmark) were preempted less
/// than 20 times a second and the contended ones, beside two `yes`, that often and twice as often.
/// `quiet_cpu0` measures the first once before; on this shared virtual machine CPU 0 alone moves
/// between 10 and 100 a second within minutes, and a start slowed 2.7× by two `yes` was once
/// preempted no more often than the later executions (docs/limitations.md).
fn untestable(r: &serde_json::Value, contended: std::ops::Range<usize>) -> Option<String> {
    let executions = r["benchmarks"][0]["executions"].as_array()?;
    let rate = |e: &serde_json::Value| Some(e["preempted"].as_f64()? / e["wall"].as_f64()?);
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    };
    let (mut alone, mut beside) = (Vec::new(), Vec::new());
    for (i, e) in executions.iter().enumerate() {
        let list = if contended.contains(&i) {
            &mut beside
        } else {
            &mut alone
        };
        list.extend(rate(e));
    }
    let (alone, beside) = (median(alone)?, median(beside)?);
    (alone >= 20.0 || beside < 20.0 || beside < 2.0 * alone).then(|| {
        format!(
            "SKIP: in this attempt the executions alone on CPU 0 were preempted {alone:.0} times \
             a second and those beside two `yes` {beside:.0}: preemptions do not tell contention \
             here"
        )
    })
}

/// A script for `rigor run --shell`, run in a folder of its own: execution `$n` (counted in a
/// file) runs a busy loop pinned to CPU 0, beside two `yes` pinned there too where `contended`
/// (a shell test of `$n`) holds, alone otherwise.
fn pinned_beside_yes(contended: &str) -> String {
    let spin = "i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done";
    format!(
        "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; \
         if {contended}; then taskset -c 0 sh -c 'yes > /dev/null & y=$!; \
         yes > /dev/null & z=$!; {spin}; kill $y $z'; \
         else taskset -c 0 sh -c '{spin}'; fi"
    )
}

/// First executions slowed because other processes took their CPU are not called a cold start
/// to warm up from: the first two of a busy loop share CPU 0 with two `yes` (all pinned by
/// `taskset`), the later ones have it alone; the warning gives their preemptions a second and
/// says -w would not help.
#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn a_start_slowed_by_another_process_is_not_called_a_cold_start() {
    if !have_taskset() {
        return;
    }
    let _alone = crate::alone();
    if !quiet_cpu0() {
        return;
    }
    crate::up_to_three_attempts(|_| {
        let dir = Dir::new();
        let script = pinned_beside_yes("[ $n -le 2 ]");
        let path = dir.path("r.json");
        let out = stdout_of(
            rigor()
                .current_dir(dir.0.path())
                .args(["run", "-w", "0", "-r", "16", "--shell", "--export-json"])
                .arg(&path)
                .arg(&script),
        );
        if let Some(why) = untestable(&json(&path), 0..2) {
            eprintln!("{why}");
            return;
        }
        assert!(
            out.contains("the first 2 executions ran ")
                && out.contains("times a second, the later ones ")
                && out.contains("other processes took the CPU")
                && !out.contains("raise -w/--warmup"),
            "{out}"
        );
        // Each execution's preemptions are in the result file.
        let r = json(&path);
        let preempted: Vec<u64> = r["benchmarks"][0]["executions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["preempted"].as_u64().unwrap())
            .collect();
        assert_eq!(preempted.len(), 16);
        assert!(preempted[..2].iter().all(|&p| p >= 5), "{preempted:?}");
    });
}

/// Executions in the middle of a run that other processes slowed are said, with their
/// preemptions: executions 6–8 of 16 of a busy loop share CPU 0 with two `yes` (all pinned by
/// `taskset`).
#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn executions_other_processes_slowed_mid_run_are_said() {
    if !have_taskset() {
        return;
    }
    let _alone = crate::alone();
    if !quiet_cpu0() {
        return;
    }
    crate::up_to_three_attempts(|_| {
        let dir = Dir::new();
        let script = pinned_beside_yes("[ $n -ge 6 ] && [ $n -le 8 ]");
        let path = dir.path("r.json");
        let out = stdout_of(
            rigor()
                .current_dir(dir.0.path())
                .args(["run", "-w", "0", "-r", "16", "--shell", "--export-json"])
                .arg(&path)
                .arg(&script),
        );
        if let Some(why) = untestable(&json(&path), 5..8) {
            eprintln!("{why}");
            return;
        }
        assert!(
            out.contains("3 of the 16 executions were preempted ")
                && out.contains("other processes took the CPU during them"),
            "{out}"
        );
    });
}

/// Beside two busy loops a short run is told busy over itself and the moment after it (under a
/// quarter of a second it had fallen back on the lagging load average), and the run's warning
/// is said once however many metrics are shown (it read three times with `--metric wall,cpu`).
#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn a_loaded_short_run_is_said_busy_once_whatever_the_metrics() {
    let _alone = crate::alone();
    let _load = crate::Load::start();
    std::thread::sleep(Duration::from_millis(300));
    let out = rigor()
        .args([
            "run",
            "-r",
            "5",
            "-w",
            "0",
            "--metric",
            "wall,cpu",
            "sleep 0.01",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.matches("other processes kept ").count(), 1, "{err}");
    assert!(err.contains("busy on average during the run"), "{err}");
}
