//! Samples quantised by a coarse clock: intervals are never narrower than ± half the step the
//! program reported (`"resolution"` in the samples file), and the adaptive rule does not stop on
//! an interval of zero width.

mod common;

use common::{Dir, as_one_run, as_uncontended, json, rigor, stdout_of};

/// A program whose every sample reads `ns` nanoseconds, measured in steps of 0.02 ns (a 20 ns
/// clock over 1000 evaluations): every execution's median and minimum tie.
fn tied(ns: &str) -> String {
    tied_at(ns, "0.02")
}

/// [`tied`] with steps of `step` ns.
fn tied_at(ns: &str, step: &str) -> String {
    format!(
        r#"for i in $(seq ${{RIGOR_ITERATIONS:-20}}); do echo '{{"value": {ns}, "unit": "ns", "resolution": {step}}}' >> "$RIGOR_SAMPLES_FILE"; done"#
    )
}

/// The line of the adaptive note giving the median's interval.
fn median_line(out: &str) -> &str {
    out.lines()
        .find(|l| l.contains(": median 3.000 ns ["))
        .unwrap_or_else(|| panic!("{out}"))
}

#[test]
fn a_tied_median_has_an_interval_at_the_resolution() {
    let dir = Dir::new();
    let path = dir.path("r.json");
    let out = stdout_of(
        rigor()
            .args(["run", "--shell", "-n", "tied", "--precision", "1%"])
            .args(["--estimator", "median", "--seed", "1"])
            .arg(tied("3"))
            .arg("--export-json")
            .arg(&path),
    );
    assert!(
        out.contains("stopped because the target precision was reached"),
        "{out}"
    );
    // Every sample reads 3 ns: the bootstrap alone gives [3, 3]; ± 0.01 ns is what the clock
    // can tell.
    let line = median_line(&out);
    assert!(
        line.contains("[2.990 ns, 3.010 ns]") && line.ends_with(", at the timer's resolution"),
        "{line}"
    );
    // The resolution is kept with each execution in the result.
    let execs = &json(&path)["benchmarks"][0]["executions"];
    let measured = execs
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["warmup"] == false)
        .collect::<Vec<_>>();
    assert!(!measured.is_empty());
    for e in measured {
        let step = e["resolution"].as_f64().unwrap();
        assert!((step - 0.02e-9).abs() < 1e-24, "{e}");
    }
}

#[test]
fn the_adaptive_rule_does_not_stop_on_a_zero_width_interval() {
    // ±0.1% asked of samples that move in steps of ±0.33%: out of reach, and said so.
    let out = stdout_of(
        rigor()
            .args(["run", "--shell", "-n", "tied", "--precision", "0.1%"])
            .args(["--estimator", "min", "--seed", "1"])
            .arg(tied("3")),
    );
    assert!(
        !out.contains("stopped because the target precision was reached"),
        "{out}"
    );
    assert!(
        out.contains("within the timer's resolution: the samples move in steps of 0.020 ns"),
        "{out}"
    );
    // What is reachable is the resolution's ±0.33%, not the tied samples' ±0.00%.
    assert!(out.contains("tied: about ±0.33%"), "{out}");
}

#[test]
fn a_comparison_of_tied_samples_is_not_decided_beyond_the_resolution() {
    // 3.02 ns against 3.00 ns: one step apart. Without the floor, the minimum's bootstrap has
    // zero width at +0.67% and would call it a regression beyond a 0.5% threshold.
    let out = stdout_of(
        rigor()
            .args(["run", "--shell", "-r", "10", "--estimator", "min"])
            .args([
                "--threshold",
                "0.5%",
                "--seed",
                "1",
                "-n",
                "old",
                "-n",
                "new",
            ])
            .arg(tied("3.00"))
            .arg(tied("3.02")),
    );
    assert!(
        out.contains("interval at the timer's resolution: the samples move in steps"),
        "{out}"
    );
    assert!(out.contains("verdict: inconclusive"), "{out}");
    // Each summary leads with the minimum compared, its interval at the resolution too.
    assert!(
        out.contains(
            "Benchmark 1: old\n  Min, 95% CI:       3.000 ns   [2.990 ns .. 3.010 ns]   the \
             statistic compared: each execution's least sample, located over the executions \
             (bootstrap over executions, at the timer's resolution)\n"
        ),
        "{out}"
    );
    // Each benchmark's mean interval too: ± 0.01 ns, not ± 0, and said so.
    assert!(
        out.contains("3.000 ns ± 0.010 ns (± 0.33%)") && out.contains("3.020 ns ± 0.010 ns"),
        "{out}"
    );
    assert!(
        out.contains("Warning: interval at the data's resolution (± 0.33%, half a step)"),
        "{out}"
    );
    // More executions cannot narrow the clock's step: no count of them is suggested.
    assert!(!out.contains("more executions per command"), "{out}");
    // The ranking's interval is floored too: not "+0.67% .. +0.67%".
    let summary = out
        .split("Summary")
        .nth(1)
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        summary.contains("new is 0.67% slower (95% CI "),
        "{summary}"
    );
    assert!(!summary.contains("+0.67% .. +0.67%"), "{summary}");
}

#[test]
fn the_history_keeps_the_resolution_and_floors_what_track_computes_from_it() {
    // Three versions at 3.00 ns, a candidate at 3.04 ns, steps of 0.02 ns. Without the floor
    // the tied data give +1.33% with an interval of width zero, a regression beyond the 1%
    // threshold; each level known to ± 0.01 ns leaves [3.03/3.01, 3.05/2.99] = [+0.66%, +2.0%],
    // which crosses it.
    let dir = Dir::new();
    let db = dir.path("h.db");
    let measure = |name: &str, ns: &str, seed: &str| {
        let file = dir.path(name);
        rigor()
            .args(["run", "--shell", "-r", "5", "-n", "add", "--seed", seed])
            .arg(tied(ns))
            .arg("--export-json")
            .arg(&file)
            .assert()
            .success();
        as_uncontended(&file);
        file
    };
    let add = |file: &std::path::Path, k: usize| {
        rigor()
            .args(["track", "--db"])
            .arg(&db)
            .arg("add")
            .arg(file)
            .args(["--version", &format!("v{k}"), "--order", &k.to_string()])
            .args(["--machine", "m", "--repo", "/nonexistent"])
            .assert()
            .success();
    };
    for k in 0..3 {
        add(&measure(&format!("v{k}.json"), "3.00", &k.to_string()), k);
    }
    let pr = measure("pr.json", "3.04", "9");
    let out = stdout_of(
        rigor()
            .args(["track", "--db"])
            .arg(&db)
            .arg("check")
            .args(["--baseline", "main"])
            .arg(&pr)
            .args(["--machine", "m", "--fail-on", "regression"]),
    );
    assert!(
        out.contains("at the timer's resolution): inconclusive"),
        "{out}"
    );
    for k in 3..6 {
        add(&measure(&format!("v{k}.json"), "3.04", &k.to_string()), k);
    }
    // The floor keeps `add`'s tied levels from posing as a change (the empty shell measured
    // beside it, `sh -c ''`, is timed for real: on a loaded machine its sessions differ).
    let out =
        stdout_of(
            rigor()
                .args(["track", "--db"])
                .arg(&db)
                .args(["changes", "--benchmark", "add"]),
        );
    assert!(out.contains("No changes detected."), "{out}");
}

#[test]
fn a_suites_geometric_mean_is_floored_at_its_members_resolutions() {
    // Two benchmarks, every sample tied: `add` 3.00 → 3.02 ns in steps of 0.02 ns (± 0.01),
    // `mul` 10.0 → 10.0 ns in steps of 0.1 ns (± 0.05). The bootstrap sees only the rounded
    // values: G = sqrt(3.02/3.00 · 1) = 1.003327796 with an interval of width zero. The members'
    // ratios may lie in [3.01/3.01, 3.03/2.99] and [9.95/10.05, 10.05/9.95], so G in
    // [sqrt(1 · 9.95/10.05), sqrt(3.03/2.99 · 10.05/9.95)] = [0.9950124377, 1.0117127207]
    // (Python: math.sqrt of the products).
    let dir = Dir::new();
    let measure = |name: &str, add: &str| {
        let file = dir.path(name);
        rigor()
            .args([
                "run", "--shell", "-r", "5", "--seed", "1", "-n", "add", "-n", "mul",
            ])
            .arg(tied_at(add, "0.02"))
            .arg(tied_at("10.0", "0.1"))
            .arg("--export-json")
            .arg(&file)
            .assert()
            .success();
        as_uncontended(&file);
        file
    };
    let (old, new) = (measure("old.json", "3.00"), measure("new.json", "3.02"));
    as_one_run(&old, &new);
    let out = stdout_of(rigor().arg("compare").arg(&old).arg(&new));
    assert!(
        out.contains(
            "Suite: geometric mean of 2 ratios 1.0033 (95% CI 0.9950 .. 1.0117, at the timer's resolution)"
        ),
        "{out}"
    );
    let j: serde_json::Value = serde_json::from_str(&stdout_of(
        rigor().arg("compare").arg(&old).arg(&new).arg("--json"),
    ))
    .unwrap();
    let suite = &j["suite"];
    let close = |key: &str, want: f64| {
        let got = suite["ci"][key].as_f64().unwrap();
        assert!((got - want).abs() < 1e-9, "{key}: {got} vs {want}");
    };
    assert!((suite["geometric_mean_ratio"].as_f64().unwrap() - 1.003_327_796_219_494).abs() < 1e-9);
    close("lower", 0.995_012_437_733_207_9);
    close("upper", 1.011_712_720_686_811);
    assert_eq!(suite["at_resolution"], true);
}

/// A benchmark whose minimum is 0 (one sample below the clock's step in every execution) cannot
/// form a ratio of minimums: comparing two results says so for that pair and compares the
/// others, instead of failing the whole comparison.
#[test]
fn a_minimum_of_zero_is_said_and_skipped_and_the_other_pairs_stand() {
    let dir = Dir::new();
    // `zero`: the first sample of each execution reads 0 (below the step), the others 20 ns.
    let zero = r#"for i in $(seq ${RIGOR_ITERATIONS:-20}); do v=20; [ "$i" = 1 ] && v=0; echo "{\"value\": $v, \"unit\": \"ns\", \"resolution\": 20}" >> "$RIGOR_SAMPLES_FILE"; done"#;
    for side in ["old", "new"] {
        rigor()
            .args([
                "run", "--shell", "-r", "10", "--seed", "3", "-n", "zero", "-n", "steady",
            ])
            .args([zero, &tied_at("40", "20")])
            .arg("--export-json")
            .arg(dir.path(&format!("{side}.json")))
            .assert()
            .success();
    }
    let out = rigor()
        .args(["compare", "--estimator", "min", "--seed", "1"])
        .arg(dir.path("old.json"))
        .arg(dir.path("new.json"))
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("'zero (new)' could not be compared with 'zero (old)'"),
        "{stderr}"
    );
    assert!(stdout.contains("steady"), "{stdout}");
    // A gate that asks for every pair shown alike does not pass the pair it could not compare.
    rigor()
        .args(["compare", "--estimator", "min", "--seed", "1"])
        .arg(dir.path("old.json"))
        .arg(dir.path("new.json"))
        .args(["--fail-on", "inconclusive"])
        .assert()
        .code(1);
    // With only the benchmark that cannot be compared, the error names it and why.
    for side in ["old1", "new1"] {
        rigor()
            .args([
                "run", "--shell", "-r", "10", "--seed", "3", "-n", "zero", zero,
            ])
            .arg("--export-json")
            .arg(dir.path(&format!("{side}.json")))
            .assert()
            .success();
    }
    let only = rigor()
        .args(["compare", "--estimator", "min", "--seed", "1"])
        .arg(dir.path("old1.json"))
        .arg(dir.path("new1.json"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&only.stderr);
    assert_eq!(only.status.code(), Some(2), "{err}");
    assert!(
        err.contains("'zero (old)' (") && err.contains("below the clock's step"),
        "{err}"
    );
}
