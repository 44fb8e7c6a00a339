//! `rigor report` and `rigor run --report`: one self-contained HTML file per result.

mod common;

use std::path::Path;

use common::{Dir, rigor, sim, stdout_of};

const HOSTILE: &str = "<script>alert(1)</script>";

fn make_report(dir: &Dir) -> std::path::PathBuf {
    let (json, html) = (dir.path("r.json"), dir.path("r.html"));
    sim()
        .args([
            "--seed",
            "3",
            "-r",
            "8",
            "-w",
            "0",
            "--discard",
            "auto",
            "-n",
            HOSTILE,
            "-n",
            "B",
        ])
        .args([
            "mean=10ms,execution=2%,iteration=1%,iterations=100,warm=10,slow=30%",
            "mean=10.3ms,execution=2%,iteration=1%,iterations=100",
        ])
        .arg("--export-json")
        .arg(&json)
        .assert()
        .success();
    let out = stdout_of(rigor().arg("report").arg(&json).arg("-o").arg(&html));
    assert!(out.contains("Report written to"), "{out}");
    html
}

#[test]
fn report_has_every_plot_and_escapes_names() {
    let dir = Dir::new();
    let html = std::fs::read_to_string(make_report(&dir)).unwrap();
    // Per benchmark: run sequence, 8 lag plots, 2 ACF plots, histogram, execution means,
    // components; plus one forest plot of the comparison and the overview's two plots.
    assert_eq!(html.matches("class=\"plot ").count(), 2 * 14 + 1 + 2);
    assert!(html.contains("class=\"plot overview-means\""));
    assert!(html.contains("class=\"plot overview-distribution\""));
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!html.contains(HOSTILE));
    assert!(!html.contains("<script"));
    assert!(!html.contains("http://") && !html.contains("https://"));
}

#[test]
fn run_writes_the_report_at_the_end() {
    let dir = Dir::new();
    let html = dir.path("run.html");
    sim()
        .args([
            "--seed",
            "1",
            "-r",
            "5",
            "mean=1ms,execution=1%",
            "--report",
        ])
        .arg(&html)
        .assert()
        .success();
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(text.starts_with("<!DOCTYPE html>"));
    assert!(text.contains("class=\"plot execution-means\""));
}

#[test]
fn the_report_words_verdicts_as_the_terminal_does() {
    // Two different commands: "slower", not "regression" (a word for versions of one program).
    let dir = Dir::new();
    let html = dir.path("two.html");
    sim()
        .args(["--seed", "1", "-r", "8", "mean=1ms,execution=1%"])
        .args(["mean=2ms,execution=1%", "--report"])
        .arg(&html)
        .assert()
        .success();
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(text.contains(">slower<"), "the comparison's verdict");
    assert!(!text.contains(">regression<"));
}

#[test]
fn report_renders_in_headless_chromium() {
    // check_report.py skips where chromium is missing or RIGOR_BROWSER_TESTS=0, and fails under
    // CI (CI=true): scripts/test_deps.sh installs chromium.
    let dir = Dir::new();
    let html = make_report(&dir);
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../rigor-report/tests/browser/check_report.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg(&html)
        .args(["--expect-plots", "31", "--hostile", HOSTILE])
        .args(["--expect-kind", "overview-means"])
        .args(["--expect-kind", "overview-distribution"])
        .output()
        .expect("python3 runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    assert!(out.status.success(), "{text}");
}

/// A wall-time run (one level): the title names the benchmarks, the generation time is shown,
/// and no variance bar pretends to split a single level.
#[test]
fn wall_time_report_has_a_title_a_time_and_no_variance_bar() {
    let dir = Dir::new();
    let html = dir.path("w.html");
    sim()
        .args(["--seed", "4", "-r", "6", "-n", "gzip", "-n", "xz"])
        .args(["mean=10ms,execution=2%", "mean=30ms,execution=2%"])
        .arg("--report")
        .arg(&html)
        .assert()
        .success();
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(html.contains("<title>rigor: gzip vs xz"), "title");
    assert!(html.contains("<h1>rigor: gzip vs xz</h1>"));
    assert!(html.contains(" UTC (the result is complete)"));
    assert!(
        !html.contains("-components\""),
        "no variance bar with one level"
    );
    assert!(html.contains("nothing to split"));
}

/// Warm-up spikes ten times the steady values: the run sequence zooms to the steady state and
/// says how many values it drew at the edge.
#[test]
fn run_sequence_zooms_past_warm_up_spikes() {
    let dir = Dir::new();
    let html = dir.path("z.html");
    sim()
        .args(["--seed", "3", "-r", "4", "-w", "0", "--discard", "auto"])
        .arg("mean=10ms,execution=2%,iteration=1%,iterations=60,warm=5,slow=900%")
        .arg("--report")
        .arg(&html)
        .assert()
        .success();
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(
        html.contains("zoomed to the steady state: 20 warm-up value(s) off the scale"),
        "4 executions × 5 warm-up iterations"
    );
}

/// The SVG of the plot whose id ends with `-KIND` (the first benchmark's).
fn plot_svg<'a>(html: &'a str, kind: &str) -> &'a str {
    let start = html
        .find(&format!("-{kind}\""))
        .and_then(|i| html[..i].rfind("<svg"))
        .unwrap_or_else(|| panic!("no {kind} plot"));
    let end = start + html[start..].find("</svg>").expect("closed svg");
    &html[start..end]
}

/// Values of attribute `name` in elements `<tag …>` of `svg` that contain `with`.
fn attributes(svg: &str, tag: &str, with: &str, name: &str) -> Vec<String> {
    svg.split(&format!("<{tag} "))
        .skip(1)
        .filter_map(|e| e.split('>').next())
        .filter(|e| e.contains(with))
        .filter_map(|e| e.split(&format!("{name}=\"")).nth(1))
        .filter_map(|v| v.split('"').next().map(str::to_string))
        .collect()
}

/// For each build boundary of a run-order plot (thick lines in the build colour), how many
/// distinct data positions (circles' x) lie left of it; and the build labels in order.
fn build_marks(svg: &str) -> (Vec<usize>, Vec<String>) {
    let mut xs: Vec<f64> = attributes(svg, "circle", "cx=", "cx")
        .iter()
        .map(|x| x.parse().unwrap())
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let left_of = attributes(svg, "polyline", "stroke=\"#3C2878\"", "points")
        .iter()
        .map(|p| p.split(',').next().unwrap().parse::<f64>().unwrap())
        .map(|x| xs.iter().filter(|c| **c < x).count())
        .collect();
    let labels = svg
        .split("fill=\"#3C2878\">")
        .skip(1)
        .filter_map(|t| t.split('<').next().map(|l| l.trim().to_string()))
        .collect();
    (left_of, labels)
}

/// Builds as a level: the run sequence and the execution means mark where each build starts
/// (a thick line between the last value of one build and the first of the next) and label it.
#[test]
fn run_order_plots_mark_build_boundaries() {
    let dir = Dir::new();
    let html = dir.path("b.html");
    sim()
        .args([
            "--seed", "5", "--build", "make", "--builds", "3", "-r", "2", "-w", "1",
        ])
        .arg("mean=10ms,build=4%,execution=2%,iteration=1%,iterations=5")
        .arg("--report")
        .arg(&html)
        .assert()
        .success();
    let html = std::fs::read_to_string(&html).unwrap();
    let labels = ["build 1", "build 2", "build 3"]
        .map(str::to_string)
        .to_vec();
    // 3 builds × 2 measured executions × 5 iterations, in run order (warm-up executions are
    // not drawn).
    let sequence = build_marks(plot_svg(&html, "run-sequence"));
    assert_eq!(sequence, (vec![10, 20], labels.clone()));
    let means = build_marks(plot_svg(&html, "execution-means"));
    assert_eq!(means, (vec![2, 4], labels));
    assert!(html.contains("build boundary (labelled)"));
}

/// Builds of executions without iterations: the execution-means plot has a dot per measured
/// execution, in the order they ran (it drew the builds' means, captioned as executions').
#[test]
fn execution_means_are_executions_when_builds_report_no_iterations() {
    let dir = Dir::new();
    let html = dir.path("e.html");
    sim()
        .args([
            "--seed", "5", "--build", "make", "--builds", "3", "-r", "4", "-w", "1",
        ])
        .arg("mean=10ms,build=4%,execution=2%")
        .arg("--report")
        .arg(&html)
        .assert()
        .success();
    let html = std::fs::read_to_string(&html).unwrap();
    let mut xs: Vec<f64> = attributes(plot_svg(&html, "execution-means"), "circle", "cx=", "cx")
        .iter()
        .map(|x| x.parse().unwrap())
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    assert_eq!(xs.len(), 3 * 4, "{xs:?}");
}

/// Without builds nothing is marked.
#[test]
fn run_order_plots_without_builds_have_no_build_marks() {
    let dir = Dir::new();
    let html = dir.path("n.html");
    sim()
        .args(["--seed", "5", "-r", "4", "-w", "0"])
        .arg("mean=10ms,execution=2%,iteration=1%,iterations=5")
        .arg("--report")
        .arg(&html)
        .assert()
        .success();
    let html = std::fs::read_to_string(&html).unwrap();
    assert_eq!(
        build_marks(plot_svg(&html, "run-sequence")),
        (vec![], vec![])
    );
    assert!(!html.contains("build boundary"));
}

#[test]
fn imported_result_shows_no_machine_facts_it_did_not_record() {
    // hyperfine's JSON records no machine: no blank host/OS rows, no "0 logical CPUs".
    let dir = Dir::new();
    let html = dir.path("h.html");
    let input = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../rigor-store/tests/fixtures/import/hyperfine.json");
    rigor()
        .arg("report")
        .arg(&input)
        .arg("-o")
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(!page.contains("0 logical CPUs"), "CPU count not recorded");
    assert!(
        !page.contains("Machine and environment"),
        "nothing recorded"
    );
    // hyperfine made the measurements: rigor made no random choice, so no seed (rigor 0.1
    // showed "Seed 0").
    assert!(
        page.contains("<dt>Seed</dt><dd>none (imported data)</dd>"),
        "{page}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(rigor().arg("analyze").arg(&input).arg("--json"))).unwrap();
    assert_eq!(json["provenance"]["imported_from"], "hyperfine");
}

#[test]
fn a_rigor_result_shows_its_seed() {
    let dir = Dir::new();
    let html = std::fs::read_to_string(make_report(&dir)).unwrap();
    assert!(html.contains("<dt>Seed</dt><dd>3</dd>"), "{html}");
}

/// The run's own warnings are on the page, at the top (a loaded run's report had left out that
/// its times were a busy machine's), escaped like every text.
#[test]
fn the_report_carries_the_runs_warnings() {
    let dir = Dir::new();
    let (json, html) = (dir.path("r.json"), dir.path("r.html"));
    sim()
        .args([
            "--seed",
            "3",
            "-r",
            "8",
            "-n",
            "a",
            "mean=10ms,execution=2%",
        ])
        .arg("--export-json")
        .arg(&json)
        .assert()
        .success();
    let mut r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    r["warnings"] = serde_json::json!([{"kind": "busy_machine", "load": 196, "cpus": 2}]);
    std::fs::write(&json, r.to_string()).unwrap();
    stdout_of(rigor().arg("report").arg(&json).arg("-o").arg(&html));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<li>Warning: the load average reached 1.96 on this machine&#39;s 2 CPUs"),
        "{}",
        &page[..page.len().min(3000)]
    );
}
