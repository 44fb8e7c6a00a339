//! Exports for other tools: Bencher Metric Format JSON and Apache Otava's CSV.

mod common;

use common::{Dir, json, rigor, sim, stdout_of};

#[test]
fn bmf_holds_each_mean_and_interval_in_nanoseconds() {
    let dir = Dir::new();
    let (bmf, res) = (dir.path("b.json"), dir.path("r.json"));
    stdout_of(
        sim()
            .args([
                "mean=3ms,execution=2%",
                "mean=5ms,execution=2%",
                "-r",
                "6",
                "--export-bmf",
            ])
            .arg(&bmf)
            .arg("--export-json")
            .arg(&res),
    );
    let (b, r) = (json(&bmf), json(&res));
    for rb in r["benchmarks"].as_array().unwrap() {
        let m = &b[rb["name"].as_str().unwrap()]["latency"];
        let close = |x: &serde_json::Value, y: &serde_json::Value| {
            (x.as_f64().unwrap() - y.as_f64().unwrap() * 1e9).abs() < 1e-6
        };
        assert!(close(&m["value"], &rb["mean"]), "{m} {rb}");
        assert!(close(&m["lower_value"], &rb["ci"]["lower"]));
        assert!(close(&m["upper_value"], &rb["ci"]["upper"]));
    }
}

#[test]
fn otava_csv_gets_a_row_per_run_and_refuses_other_columns() {
    let dir = Dir::new();
    let csv = dir.path("otava.csv");
    for seed in ["1", "2"] {
        stdout_of(
            sim()
                .args([
                    "mean=3ms,execution=2%",
                    "-r",
                    "5",
                    "--seed",
                    seed,
                    "--label",
                    "v9",
                ])
                .arg("--export-otava")
                .arg(&csv),
        );
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "time,commit,\"mean=3ms,execution=2%\"");
    assert_eq!(lines.len(), 3, "{text}");
    for row in &lines[1..] {
        let cells: Vec<&str> = row.split(',').collect();
        assert!(
            cells[0].ends_with(" +0000") && cells[0].len() == 25,
            "{row}"
        );
        assert_eq!(cells[1], "v9");
        let mean: f64 = cells[2].parse().unwrap();
        assert!((mean - 0.003).abs() < 0.0003, "{row}");
    }
    // analyze writes the same export; other benchmarks cannot share the file.
    let out = rigor()
        .arg("analyze")
        .arg(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../rigor-store/tests/fixtures/import/hyperfine.json"),
        )
        .arg("--export-otava")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("otava.csv: its columns") && err.contains("sleep 0.01"),
        "{err}"
    );
    let fresh = dir.path("fresh.csv");
    rigor()
        .arg("analyze")
        .arg(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../rigor-store/tests/fixtures/import/hyperfine.json"),
        )
        .arg("--export-otava")
        .arg(&fresh)
        .assert()
        .success();
    let t = std::fs::read_to_string(&fresh).unwrap();
    assert!(t.starts_with("time,commit,sleep 0.01,sleep 0.02\n"), "{t}");
}
