//! `--metric instructions` and `cycles`: hardware counters, counted where the kernel exposes
//! them, refused before anything runs where it does not (this project's virtual machines have
//! none), never recorded as 0.

mod common;

use common::{Dir, json, rigor};

#[cfg(target_os = "linux")]
#[test]
fn instructions_are_counted_or_refused_before_anything_runs() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let out = rigor()
        .args([
            "run",
            "--metric",
            "instructions",
            "-r",
            "2",
            "--style",
            "none",
        ])
        .arg("--export-json")
        .arg(&path)
        .arg("true")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    match rigor_runner::perf::probe(rigor_runner::Counter::Instructions) {
        Ok(()) => {
            assert!(out.status.success(), "{stderr}");
            let r = json(&path);
            for e in r["benchmarks"][0]["executions"].as_array().unwrap() {
                let n = e["metrics"]["instructions"]["values"][0].as_f64().unwrap();
                assert!(n > 0.0, "{e}");
            }
        }
        Err(why) => {
            assert!(!out.status.success());
            assert!(
                stderr.contains(&format!("--metric instructions: {}", why.reason())),
                "{stderr}"
            );
            assert!(!path.exists(), "nothing ran, nothing was written");
        }
    }
}
