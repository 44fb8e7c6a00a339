//! `--metric`: CPU time, user and system time, peak memory and reported metrics summarised,
//! compared and gated like wall time, each in its own unit.

mod common;

use std::path::{Path, PathBuf};

use common::{Dir, json, rigor, sim, stdout_of};
use predicates::prelude::*;

/// A simulated run's result with each execution's CPU times and peak memory set as a process
/// would have recorded them: user 10 ms + 0.1 ms × (i mod 3), system 2 ms, peak `mib` MiB.
fn result_with_resources(dir: &Dir, name: &str, seed: &str, mib: u64) -> PathBuf {
    let path = dir.path(name);
    sim()
        .args(["mean=10ms,execution=2%", "-r", "8", "--seed", seed])
        .arg("--export-json")
        .arg(&path)
        .args(["--style", "none"])
        .assert()
        .success();
    let mut r = json(&path);
    for b in r["benchmarks"].as_array_mut().unwrap() {
        for (i, e) in b["executions"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .enumerate()
        {
            e["user"] = (0.010 + 0.0001 * (i % 3) as f64).into();
            e["sys"] = 0.002.into();
            e["max_rss"] = (mib << 20).into();
        }
    }
    std::fs::write(&path, serde_json::to_string(&r).unwrap()).unwrap();
    path
}

fn analyze(path: &Path, metric: &str) -> String {
    stdout_of(rigor().arg("analyze").arg(path).args(["--metric", metric]))
}

#[test]
fn cpu_time_is_user_plus_system_per_execution() {
    let dir = Dir::new();
    let path = result_with_resources(&dir, "r.json", "1", 64);
    let out = analyze(&path, "cpu");
    assert!(
        out.starts_with("Metric cpu: CPU time (user + system)\n"),
        "{out}"
    );
    // Executions 0..8 after the simulated warm-up: the mean of 10 + 0.1·(i mod 3) ms plus 2 ms
    // over the measured executions, in milliseconds, with its interval.
    let r = json(&path);
    let measured: Vec<f64> = r["benchmarks"][0]["executions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["warmup"] == false)
        .map(|e| e["user"].as_f64().unwrap() + e["sys"].as_f64().unwrap())
        .collect();
    let mean = measured.iter().sum::<f64>() / measured.len() as f64;
    let shown = format!("Mean ± 95% CI:    {:.2} ms ± ", mean * 1e3);
    assert!(out.contains(&shown), "{shown} not in\n{out}");
    // The resources line belongs to wall time's summary, not to a metric's own.
    assert!(!out.contains("User/system"), "{out}");
    let system = analyze(&path, "system");
    assert!(system.contains("Mean ± 95% CI:    2.000 ms"), "{system}");
}

#[test]
fn a_deterministic_metric_is_reported_exactly_and_its_change_gates() {
    let dir = Dir::new();
    let old = result_with_resources(&dir, "old.json", "1", 64);
    let new = result_with_resources(&dir, "new.json", "2", 128);
    let out = analyze(&new, "peak-memory");
    assert!(
        out.contains(
            "Value:            128.0 MiB in every one of 8 executions (no variation: exact)"
        ),
        "{out}"
    );
    let out = stdout_of(
        rigor()
            .arg("compare")
            .args([&old, &new])
            .args(["--metric", "peak-memory"]),
    );
    assert!(
        out.contains(
            "is 64.00 MiB larger than mean=10ms,execution=2% (old) in every execution \
             (128.0 MiB against 64.00 MiB; exact: no variation on either side)"
        ),
        "{out}"
    );
    assert!(out.contains("verdict: regression"), "{out}");
    assert!(out.contains("i.e. 100% larger"), "{out}");
    // The same files gate on peak memory, and not on CPU time: two runs' CPU times differ by
    // what changed on the machine between them, which one run a side cannot bound.
    rigor()
        .arg("compare")
        .args([&old, &new])
        .args(["--metric", "peak-memory", "--fail-on", "regression"])
        .assert()
        .code(1);
    let cpu = stdout_of(rigor().arg("compare").args([&old, &new]).args([
        "--metric",
        "cpu",
        "--fail-on",
        "regression",
    ]));
    assert!(
        cpu.contains("verdict: inconclusive") && cpu.contains("across runs: one run a side"),
        "{cpu}"
    );
}

#[test]
fn several_metrics_each_under_its_heading_and_as_json() {
    let dir = Dir::new();
    let path = result_with_resources(&dir, "r.json", "1", 64);
    let out = analyze(&path, "wall,peak-memory");
    let wall = out.find("Metric wall: wall time").expect(&out);
    let memory = out
        .find("Metric peak-memory: peak memory (resident set)")
        .expect(&out);
    assert!(wall < memory, "{out}");
    let text = stdout_of(rigor().arg("analyze").arg(&path).args([
        "--metric",
        "cpu,peak-memory",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let b = &v["peak-memory"]["benchmarks"][0];
    assert_eq!(b["metric"]["metric"], "peak-memory");
    assert_eq!(b["metric"]["quantity"], "B");
    assert_eq!(b["mean"], (64u64 << 20) as f64);
    assert_eq!(v["cpu"]["benchmarks"][0]["metric"]["quantity"], "s");
}

#[test]
fn a_metric_the_data_lacks_is_an_error_that_says_what_would_record_it() {
    let dir = Dir::new();
    // A run measures, shows the metrics it has, and ends saying which failure is its status.
    sim()
        .args(["mean=10ms", "-r", "4", "--metric", "wall,allocations"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("Metric wall"))
        .stderr(predicate::str::contains(
            "rigor: a metric asked for is in no benchmark (shown above), exit status 2",
        ));
    let path = dir.path("sim.json");
    sim()
        .args(["mean=10ms", "-r", "4", "--export-json"])
        .arg(&path)
        .args(["--style", "none"])
        .assert()
        .success();
    rigor()
        .arg("analyze")
        .arg(&path)
        .args(["--metric", "allocations"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "no benchmark has allocations values ('mean=10ms' has no allocations values: no \
             execution reported it",
        ));
    rigor()
        .arg("analyze")
        .arg(&path)
        .args(["--metric", "peak-memory"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "when the run asked for --metric peak-memory",
        ));
    rigor()
        .arg("analyze")
        .arg(&path)
        .args(["--metric", "wall;rm"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("'wall;rm' is not a metric"));
    rigor()
        .arg("report")
        .arg(&path)
        .args(["--metric", "wall,cpu", "--out"])
        .arg(dir.path("r.html"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("an HTML report shows one metric"));
}

#[test]
fn a_run_shows_the_metrics_asked_for_and_keeps_every_measurement() {
    // Real processes: `sh` with a loop takes CPU time; the figures are not checked, the shape
    // is.
    let dir = Dir::new();
    let path = dir.path("run.json");
    let markdown = dir.path("table.md");
    let out = stdout_of(
        rigor()
            .args(["run", "-N", "-r", "3", "-w", "0", "--style", "basic"])
            .args(["--metric", "cpu,wall", "--export-json"])
            .arg(&path)
            .arg("--export-markdown")
            .arg(&markdown)
            .arg("sh -c 'i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done'"),
    );
    let cpu = out
        .find("Metric cpu: CPU time (user + system)")
        .expect(&out);
    let wall = out.find("Metric wall: wall time").expect(&out);
    assert!(cpu < wall, "{out}");
    let r = json(&path);
    // The result holds the raw executions (every metric), analysed as wall time.
    let e = &r["benchmarks"][0]["executions"][0];
    for key in ["wall", "user", "sys", "max_rss"] {
        assert!(e.get(key).is_some(), "{key} in {e}");
    }
    assert!(r["benchmarks"][0].get("metric").is_none());
    // The table is of the first metric asked for, and says which.
    let table = std::fs::read_to_string(&markdown).unwrap();
    assert!(
        table.starts_with("Metric: `cpu`, CPU time (user + system)\n"),
        "{table}"
    );
}

#[test]
fn throughput_is_the_work_over_the_mean_time_with_the_interval_mapped() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let out = stdout_of(
        sim()
            .args(["mean={n}ms,execution=2%", "-L", "n", "10,20", "-r", "8"])
            .args(["--seed", "3", "--throughput", "{n}MiB", "--export-json"])
            .arg(&path),
    );
    let r = json(&path);
    for (i, mib) in [(0, 10.0), (1, 20.0)] {
        let b = &r["benchmarks"][i];
        assert_eq!(b["throughput"]["bytes"], mib * 1048576.0);
        let (mean, lower, upper) = (
            b["mean"].as_f64().unwrap(),
            b["ci"]["lower"].as_f64().unwrap(),
            b["ci"]["upper"].as_f64().unwrap(),
        );
        // MiB per second: the work over the mean time; the interval's ends swapped.
        let line = format!(
            "Throughput:       {} MiB/s   [{} MiB/s .. {} MiB/s]   {mib:.2} MiB per execution",
            rigor_units::significant(mib / mean),
            rigor_units::significant(mib / upper),
            rigor_units::significant(mib / lower),
        );
        assert!(out.contains(&line), "{line} not in\n{out}");
    }
    // `analyze` shows it from the file, or from its own --throughput.
    let again = stdout_of(rigor().arg("analyze").arg(&path));
    assert_eq!(again.matches("Throughput:").count(), 2, "{again}");
    let items = stdout_of(
        rigor()
            .arg("analyze")
            .arg(&path)
            .args(["--throughput", "1000items"]),
    );
    assert!(items.contains(" k items/s   ["), "{items}");
    sim()
        .args(["mean=10ms", "-r", "3", "--throughput", "5parsecs"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "--throughput '5parsecs': '5parsecs' is not an amount of work",
        ));
}

/// A command smaller than rigor still has its own peak memory when it is asked for: rigor
/// starts each execution through a small launcher (a fresh start of its own executable), and
/// Linux folds only the launcher's few MiB into the peak it reports, not rigor's tens of MiB. `dd` holds one block
/// of `bs` bytes, filled from /dev/zero: 12 and 24 MiB, both below this debug build's own
/// resident set (29 MiB when it runs) and above the launcher's (10 MiB), so each was unknown
/// before; the two peaks differ by the 12 MiB the blocks differ by.
#[test]
fn a_commands_peak_memory_is_its_own_below_rigors_size() {
    let dir = Dir::new();
    let path = dir.path("run.json");
    rigor()
        .args(["run", "-N", "-r", "3", "-w", "0", "--style", "none"])
        .args(["--metric", "peak-memory", "--export-json"])
        .arg(&path)
        .args([
            "dd if=/dev/zero of=/dev/null bs=12M count=1 status=none",
            "dd if=/dev/zero of=/dev/null bs=24M count=1 status=none",
        ])
        .assert()
        .success();
    let peaks: Vec<Vec<u64>> = common::executions_of(&path)
        .iter()
        .map(|b| b.iter().map(|e| e["max_rss"].as_u64().unwrap()).collect())
        .collect();
    let mib = |b: u64| b as f64 / f64::from(1 << 20);
    for (small, large) in peaks[0].iter().zip(&peaks[1]) {
        assert!(*small > 12 << 20 && *small < 16 << 20, "{peaks:?}");
        let difference = mib(large - small);
        assert!((difference - 12.0).abs() < 0.5, "{peaks:?}");
    }
}
