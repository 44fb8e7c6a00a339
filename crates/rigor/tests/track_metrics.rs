//! `rigor track` per metric (issue #28): a history whose CPU time steps +10% at one version while
//! its wall time does not, and whose peak memory doubles at another — each change found in its
//! metric only, shown in that metric's units, and gated on by `track check --metric`.
//!
//! The wall times are simulated (`rigor run --simulate`); each execution's CPU time and peak
//! memory are written into the result files with seeded noise, as a process that sleeps part of
//! the time would record them. The timing tier (`timing/track.rs`) measures the same with a real
//! C program.

mod common;

use common::{Dir, rigor, sim, stdout_of, track_m_main as track};
use std::path::{Path, PathBuf};

const MIB: f64 = 1024.0 * 1024.0;

/// A deterministic noise in [-1, 1) from a seed (an LCG: every draw seeded).
fn noise(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

/// Version `k`'s result: wall 10 ms throughout (simulated), CPU time 5 ms (+10% from version
/// `cpu_step` on) and peak memory 64 MiB (doubled from version `memory_step` on), each
/// execution's CPU time within ±1% and its peak within ±16 KiB.
fn version_result(dir: &Dir, k: usize, cpu_step: usize, memory_step: usize) -> PathBuf {
    let file = dir.path(&format!("v{k}.json"));
    sim()
        .args(["--seed", &k.to_string(), "-r", "12", "-n", "prog"])
        .arg("mean=10ms,execution=1%")
        .arg("--export-json")
        .arg(&file)
        .assert()
        .success();
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let cpu = if k >= cpu_step { 5.5e-3 } else { 5e-3 };
    let peak = if k >= memory_step { 128.0 } else { 64.0 } * MIB;
    let mut state = 1000 + k as u64;
    for e in json["benchmarks"][0]["executions"].as_array_mut().unwrap() {
        let user = cpu * 0.9 * (1.0 + 0.01 * noise(&mut state));
        let sys = cpu * 0.1 * (1.0 + 0.01 * noise(&mut state));
        let rss = peak + (16.0 * 1024.0 * noise(&mut state)).round();
        e["user"] = user.into();
        e["sys"] = sys.into();
        e["max_rss"] = (rss as u64).into();
        // A rate the program reports (more is better), 20% higher with the larger memory.
        let rate = if k >= memory_step { 120.0 } else { 100.0 } * (1.0 + 0.01 * noise(&mut state));
        e["metrics"] = serde_json::json!({"throughput": {"unit": "MB/s", "values": [rate]}});
    }
    std::fs::write(&file, serde_json::to_string(&json).unwrap()).unwrap();
    file
}

/// Eight labelled versions: CPU time +10% from v3 on, peak memory doubled from v5 on, wall time
/// flat.
fn history(dir: &Dir) -> PathBuf {
    let db = dir.path("h.db");
    for k in 0..8 {
        let file = version_result(dir, k, 3, 5);
        track(&db, &["add"])
            .arg(&file)
            .args(["--version", &format!("v{k}"), "--order", &k.to_string()])
            .arg("--repo")
            .arg(dir.path("no-repo"))
            .assert()
            .success();
    }
    db
}

/// The current changes `track changes --metric METRIC --json` lists: (version, metric,
/// verdict).
fn changes(db: &Path, metric: &str) -> Vec<(String, String, String)> {
    let out = stdout_of(&mut track(db, &["changes", "--json", "--metric", metric]));
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    list["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let text = |k: &str| c[k].as_str().unwrap().to_string();
            (text("rev"), text("metric"), text("verdict"))
        })
        .collect()
}

fn change(rev: &str, metric: &str) -> (String, String, String) {
    (rev.into(), metric.into(), "regression".into())
}

#[test]
fn each_change_is_found_in_its_metric_only() {
    let dir = Dir::new();
    let db = history(&dir);
    assert_eq!(changes(&db, "cpu"), [change("v3", "cpu")]);
    assert_eq!(changes(&db, "peak-memory"), [change("v5", "peak-memory")]);
    assert_eq!(changes(&db, "wall"), []);
    // A reported rate that rises is an improvement (more is better).
    assert_eq!(
        changes(&db, "throughput"),
        [("v5".into(), "throughput".into(), "improvement".into())]
    );
    // Several at once: each metric's change, the false discovery rate over both.
    assert_eq!(
        changes(&db, "cpu,peak-memory"),
        [change("v3", "cpu"), change("v5", "peak-memory")]
    );
    // Detecting wall time again left the other metrics' changes as they were.
    let table = stdout_of(&mut track(&db, &["changes", "--metric", "wall,cpu"]));
    assert!(table.contains("prog (cpu)"), "{table}");
    assert!(!table.contains("peak-memory"), "{table}");
    // --fail-on gates on the metrics asked for (each version was stored in a session of its
    // own, so every change is confounded with a session boundary: `confounded` counts them).
    track(
        &db,
        &[
            "changes",
            "--metric",
            "peak-memory",
            "--fail-on",
            "confounded",
        ],
    )
    .assert()
    .code(1);
    track(&db, &["changes", "--fail-on", "confounded"])
        .assert()
        .success();
}

#[test]
fn show_writes_each_metric_in_its_units() {
    let dir = Dir::new();
    let db = history(&dir);
    let memory = stdout_of(&mut track(
        &db,
        &["show", "prog", "--metric", "peak-memory"],
    ));
    assert!(
        memory.starts_with("prog (peak-memory) on m (main)"),
        "{memory}"
    );
    assert!(
        memory.contains("64.0") && memory.contains("MiB"),
        "{memory}"
    );
    assert!(memory.contains("128.0"), "{memory}");
    assert!(!memory.contains(" ms"), "{memory}");
    let cpu = stdout_of(&mut track(&db, &["show", "prog", "--metric", "cpu"]));
    assert!(cpu.contains("5.00") && cpu.contains("5.50"), "{cpu}");
    let json = stdout_of(&mut track(
        &db,
        &["show", "prog", "--metric", "peak-memory", "--json"],
    ));
    let points: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(points[0]["unit"], "B");
    let level = points[7]["level"].as_f64().unwrap();
    assert!((level / (128.0 * MIB) - 1.0).abs() < 1e-3, "{level}");
}

#[test]
fn a_metric_no_run_recorded_is_an_error_naming_it() {
    let dir = Dir::new();
    let db = history(&dir);
    track(&db, &["changes", "--metric", "allocations"])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "no benchmark on m (main) has allocations values",
        ));
    // Refused before anything is detected: the CPU changes were stored, though it failed.
    track(&db, &["changes", "--metric", "cpu,allocations"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("has allocations values"));
    let stored = {
        use rigor_history::HistoryRead;
        rigor_history::SqliteHistory::open(&db)
            .unwrap()
            .changes(&rigor_history::ChangeFilter {
                include_stale: true,
                ..Default::default()
            })
            .unwrap()
    };
    assert!(stored.is_empty(), "{stored:?}");
    track(&db, &["show", "prog", "--metric", "instructions"])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "hardware counters were not recorded",
        ));
    track(&db, &["changes", "--metric", "no such"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("--metric"));
}

/// A benchmark without the metric (a result imported without peak memory) is left out of its
/// detection, and said; the others' changes are found.
#[test]
fn a_benchmark_without_the_metric_is_left_out_and_said() {
    let dir = Dir::new();
    let db = history(&dir);
    let other = dir.path("other.json");
    sim()
        .args([
            "--seed",
            "9",
            "-r",
            "5",
            "-n",
            "other",
            "mean=5ms,execution=1%",
        ])
        .arg("--export-json")
        .arg(&other)
        .assert()
        .success();
    track(&db, &["add"])
        .arg(&other)
        .args(["--version", "v7", "--order", "7"])
        .arg("--repo")
        .arg(dir.path("no-repo"))
        .assert()
        .success();
    let out = track(&db, &["changes", "--metric", "peak-memory"])
        .assert()
        .success()
        .get_output()
        .clone();
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert!(stdout.contains("prog (peak-memory)"), "{stdout}");
    assert!(
        stderr.contains("rigor: warning: 'other' has no peak-memory values")
            && stderr.contains("left out"),
        "{stderr}"
    );
}

#[test]
fn check_gates_on_the_metric_asked_for() {
    let dir = Dir::new();
    let db = history(&dir);
    // A candidate whose peak memory doubled again (256 MiB), its CPU and wall times as v7's.
    let candidate = version_result(&dir, 8, 3, 8);
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&candidate).unwrap()).unwrap();
    for e in json["benchmarks"][0]["executions"].as_array_mut().unwrap() {
        let rss = e["max_rss"].as_u64().unwrap();
        e["max_rss"] = (rss * 2).into();
    }
    std::fs::write(&candidate, serde_json::to_string(&json).unwrap()).unwrap();
    let check = |metric: &str| {
        let mut cmd = rigor();
        cmd.arg("track")
            .arg("--db")
            .arg(&db)
            .arg("check")
            .arg(&candidate)
            .args([
                "--machine",
                "m",
                "--baseline",
                "main",
                "--fail-on",
                "regression",
            ])
            // Against one stored version (unpaired): the history's sessions share no version,
            // so it bounds no new session's shift.
            .args(["--baseline-version", "v7"])
            .args(["--metric", metric])
            .arg("--repo")
            .arg(dir.path("no-repo"));
        cmd
    };
    check("peak-memory").assert().code(1);
    check("wall").assert().success();
    check("cpu").assert().success();
    // One metric at a time; a candidate measured together is compared in wall time only.
    check("cpu,peak-memory")
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "track check gates on one metric at a time, and --metric names 2 (cpu,peak-memory)",
        ));
    let mut candidate = rigor();
    candidate
        .arg("track")
        .arg("--db")
        .arg(&db)
        .args([
            "check",
            "--candidate",
            "HEAD",
            "--machine",
            "m",
            "--baseline",
            "main",
        ])
        .args(["--metric", "cpu", "--repo"])
        .arg(dir.path("no-repo"))
        .args(["--", "true"]);
    candidate
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "track check --candidate compares wall times",
        ));
}

/// The site's pages in `b/`, by file name.
fn site_pages(site: &Path) -> std::collections::BTreeMap<String, String> {
    std::fs::read_dir(site.join("b"))
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect()
}

/// `rigor track publish --metric peak-memory`: beside the wall-time page, a page of peak memory
/// in MiB (never in seconds) with its change at v5 marked on its plot and listed in its table,
/// linked from the wall-time page and listed on the index; the wall-time page is the one a
/// publish of wall time alone writes, but for the links between the two.
#[test]
fn publish_draws_each_metric_in_its_units_with_its_changes() {
    let dir = Dir::new();
    let db = history(&dir);
    track(
        &db,
        &["changes", "--metric", "wall,cpu,peak-memory,throughput"],
    )
    .assert()
    .success();
    let command = |site: &Path, metric: Option<&str>| {
        let mut cmd = rigor();
        cmd.arg("track")
            .arg("--db")
            .arg(&db)
            .args(["publish", "-o"])
            .arg(site);
        if let Some(m) = metric {
            cmd.args(["--metric", m]);
        }
        cmd
    };
    let publish = |site: &Path, metric: Option<&str>| {
        command(site, metric).assert().success();
        site_pages(site)
    };
    let wall_only = publish(&dir.path("wall"), None);
    assert_eq!(wall_only.len(), 1, "{:?}", wall_only.keys());
    let (wall_name, wall_page) = wall_only.iter().next().unwrap();
    assert!(!wall_page.contains("peak-memory") && !wall_page.contains("MiB"));
    let wall_index = std::fs::read_to_string(dir.path("wall").join("index.html")).unwrap();
    assert!(!wall_index.contains("peak-memory") && wall_index.contains("No changes detected."));

    let site = dir.path("site");
    let pages = publish(&site, Some("peak-memory"));
    assert_eq!(pages.len(), 2, "{:?}", pages.keys());
    let memory_name = pages
        .keys()
        .find(|n| n.contains(".m-peak-memory-"))
        .unwrap();
    let memory = &pages[memory_name];
    assert!(memory.contains("level (MiB)"), "the plot's axis is in MiB");
    assert!(memory.contains("64.00 MiB") && memory.contains("128.0 MiB"));
    assert!(!memory.contains("level (s)") && !memory.contains("level (ms)"));
    assert!(!memory.contains(" ms") && !memory.contains(" s <"));
    // Its change: marked on the plot (labelled with its size), listed in its table.
    assert!(
        memory.contains("\n+100.0%?\n"),
        "the change at v5 is marked"
    );
    assert!(
        memory.contains(
            "<td><code title=\"v5\">v5</code></td><td class=\"num regression\">+100.0%</td>"
        ),
        "the change at v5 is listed"
    );
    let words = memory.lines().find(|l| l.contains("cmp-out")).unwrap_or("");
    assert!(
        words.contains("is 100% larger than"),
        "a ratio stays a ratio: {words}"
    );
    // The wall-time page links to it and is otherwise what a wall-time publish writes.
    let wall = &pages[wall_name];
    let nav = format!(
        "<nav class=\"metrics\">Metric: <strong aria-current=\"page\">wall</strong> · \
         <a href=\"{memory_name}\">peak-memory</a></nav>\n"
    );
    assert!(wall.contains(&nav), "{wall}");
    assert_eq!(wall.replace(&nav, ""), *wall_page);
    assert!(memory.contains(&format!("<a href=\"{wall_name}\">wall</a>")));
    // The index: a row of peak memory in MiB with its latest change, and the change listed.
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    let row = index
        .lines()
        .find(|l| l.starts_with("<tr class=\"row\"") && l.contains("metric\">peak-memory<"))
        .expect("a peak-memory row");
    assert!(
        row.contains("128.0 MiB") && row.contains("+100.0%</span> at <code>v5</code>"),
        "{row}"
    );
    assert!(row.contains(&format!("href=\"b/{memory_name}\"")), "{row}");
    assert!(index.contains("<dt>Benchmarks</dt><dd>1 (1 series)</dd>"));
    let listed = index
        .lines()
        .find(|l| l.starts_with("<tr class=\"crow") && l.contains("metric\">peak-memory<"))
        .expect("the change listed");
    assert!(listed.contains("+100.0%") && listed.contains(&format!("href=\"b/{memory_name}\"")));
    // CPU time's change is not published: only the metrics asked for are.
    assert!(!index.contains(">cpu<"));
    // Published again with wall time alone: the metric's page goes, the wall page is as before.
    let again = publish(&site, None);
    assert_eq!(again, wall_only);
    // A reported rate (more is better) in its own unit: 20% more is an improvement.
    let rates = publish(&dir.path("rate"), Some("throughput"));
    let rate = rates
        .iter()
        .find_map(|(n, html)| n.contains(".m-throughput-").then_some(html))
        .unwrap();
    assert!(rate.contains("level (MB/s)"), "the rate's own unit");
    let words = rate.lines().find(|l| l.contains("cmp-out")).unwrap_or("");
    assert!(
        words.contains("% higher than") && words.contains(": improvement (beyond"),
        "{words}"
    );
    // A metric no run recorded is an error naming it.
    command(&dir.path("none"), Some("allocations"))
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "track publish --metric allocations: no benchmark in the history has allocations values",
        ));
}
