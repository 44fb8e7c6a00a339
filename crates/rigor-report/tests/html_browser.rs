//! Renders the example report in headless Chromium (tests/browser/check_report.py) and checks
//! the browser's DOM: every plot drawn, user text escaped, no scripts, nothing external, and
//! the build boundaries of the run-order plots where the example's builds start.
//!
//! Nothing is installed here: `scripts/test_deps.sh` installs Debian's chromium (`.ci/run` calls
//! it). Where chromium is missing the script prints a SKIP line naming that script, and under CI
//! (`CI=true`) it fails instead. `RIGOR_BROWSER_TESTS=0` skips it deliberately (outside CI
//! only); `RIGOR_BROWSER_SCREENSHOT=/path/to/out.png` keeps a screenshot for a look.

use std::path::Path;
use std::process::Command;

use rigor_report::html::{example, render_html};

/// Plots in the example: the overview's means and distributions, then run sequence, 4 × 2 lag
/// plots, 2 ACF plots, histogram, execution means, components, forest.
const EXAMPLE_PLOTS: usize = 17;

#[test]
fn example_report_renders_in_chromium() {
    let page = render_html(&example::view());
    assert_eq!(page.matches("class=\"plot ").count(), EXAMPLE_PLOTS);
    let dir = tempfile::tempdir().expect("temporary directory");
    let report = dir.path().join("report.html");
    std::fs::write(&report, &page).expect("write the report");
    let screenshot = std::env::var("RIGOR_BROWSER_SCREENSHOT")
        .unwrap_or_else(|_| dir.path().join("report.png").display().to_string());
    // Boundaries after the first build's values (run sequence) and executions (means).
    let after = |pick: fn(&(&str, usize, usize)) -> usize| {
        let starts: Vec<String> = example::BUILDS[1..]
            .iter()
            .map(|b| pick(b).to_string())
            .collect();
        starts.join(",")
    };
    let sequence = format!("run-sequence={}", after(|b| b.1));
    let means = format!("execution-means={}", after(|b| b.2));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/check_report.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&report)
        .args(["--expect-plots", &EXAMPLE_PLOTS.to_string()])
        .args(["--expect-kind", "overview-means"])
        .args(["--expect-kind", "overview-distribution"])
        .args(["--expect-builds", &sequence, "--expect-builds", &means])
        .args(["--hostile", example::HOSTILE_NAME])
        .args(["--screenshot", &screenshot])
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "check_report.py failed:\n{stdout}");
}
