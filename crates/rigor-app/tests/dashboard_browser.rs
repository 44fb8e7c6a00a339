//! The dashboard in real headless Chromium (tests/browser/check_dashboard.py): a history of four
//! benchmarks × 30 versions with two injected changes and a failed build is published; every
//! page renders with no console message, the change markers sit at the injected versions, the
//! filter works, links resolve, and a benchmark named `<img src=x onerror=alert(1)>` shows as
//! text. The page's comparison of two versions equals rigor's Fieller interval, floored at the
//! versions' resolution where they report one (a quantised benchmark on a fourth machine).
//!
//! Nothing is installed here: `scripts/test_deps.sh` installs Debian's chromium (`.ci/run` calls
//! it). Where chromium is missing the script prints a SKIP line naming that script, and under CI
//! (`CI=true`) it fails instead. `RIGOR_BROWSER_TESTS=0` skips the browser part deliberately
//! (outside CI only); `RIGOR_DASHBOARD_SCREENSHOTS=DIR` keeps screenshots of the index and a
//! benchmark page.

mod common;

use std::path::Path;
use std::process::Command;

use rigor_app::analysis::hierarchy_of;
use rigor_app::publish::{PublishSettings, publish};
use rigor_app::synthetic::{Spec, Step, generate};
use rigor_app::track::{DetectSettings, detect_changes};
use rigor_history::{HistoryRead, SeriesKey, SqliteHistory};
use rigor_report::dashboard::SiteMeta;
use rigor_units::{Resolution, Seconds, TimeUnit};

const HOSTILE: &str = "<img src=x onerror=alert(1)>";
const REPO: &str = "https://example.org/project";
/// A benchmark whose times move in steps of 0.04 ns (its results report the resolution).
const QUANTISED: &str = "quantised/add";

/// Machine ci-4 measures [`QUANTISED`] for six versions, v0–v2 at 3.00 ns and v3–v5 at 3.04 ns,
/// every sample of a version on the same step: the page's comparison must be floored.
fn quantised_machine(h: &mut SqliteHistory) {
    let machine = common::machine("ci-4");
    for k in 0..6 {
        let ns = if k < 3 { 3.0 } else { 3.04 };
        let step = Resolution::new(Seconds(0.04e-9));
        let r = common::quantised(QUANTISED, 40 + k as u64, (ns * 1e-9, TimeUnit::S), step);
        common::ingest(h, &machine, k, &r);
    }
}

/// The comparisons the browser picks, with rigor's Fieller interval (Welch–Satterthwaite, as
/// `rigor compare`) computed here from each version's raw samples: the page's oracle.
fn comparisons(h: &SqliteHistory) -> String {
    use rigor_stats::fieller::{DfMethod, MeanEstimate, fieller};
    let cases = [
        ("parse/json", "ci-1", "v9", "v29"),
        ("parse/json", "ci-1", "v20", "v3"),
        ("sort/large", "ci-1", "v25", "v2"),
        ("parse/csv", "ci-2", "v1", "v6"),
        ("parse/json", "ci-3", "v0", "v2"),
        (QUANTISED, "ci-4", "v2", "v3"),
    ];
    let mut out = Vec::new();
    for (name, machine, base, cand) in cases {
        let series = h.series(&SeriesKey::new(machine, "main"), name).unwrap();
        let record = |rev: &str| {
            &series
                .iter()
                .find(|v| v.version.rev == rev)
                .unwrap()
                .benchmark
        };
        let estimate =
            |rev: &str| MeanEstimate::from_hierarchy(&hierarchy_of(record(rev)).unwrap()).unwrap();
        let f = fieller(
            &estimate(cand),
            &estimate(base),
            0.95,
            DfMethod::WelchSatterthwaite,
        )
        .unwrap();
        // The noisy machine must give the unbounded case, the others bounded ones.
        assert_eq!(f.is_bounded(), machine != "ci-3", "{name} {machine}: {f:?}");
        let (mut lower, mut upper) = f.bounds().unzip();
        // Floored at the versions' resolution, as `rigor compare` floors a ratio.
        if let (Some(rc), Some(rb), Some(lo), Some(hi)) = (
            record(cand).resolution(),
            record(base).resolution(),
            lower,
            upper,
        ) {
            let (c, b) = (estimate(cand).mean, estimate(base).mean);
            let fl = rc.floor_ratio(rb, Seconds(c), Seconds(b), lo, hi);
            (lower, upper) = (Some(fl.lower), Some(fl.upper));
        }
        if name == QUANTISED {
            // Tied samples: Fieller's interval alone has width zero; each mean known to
            // ± 0.02 ns gives [3.02/3.02, 3.06/2.98] (by hand).
            let (lo, hi) = f.bounds().unwrap();
            assert!(
                (f.ratio - 3.04 / 3.0).abs() < 1e-9 && hi - lo < 1e-12,
                "{f:?}"
            );
            assert!((lower.unwrap() - 1.0).abs() < 1e-9, "{lower:?}");
            assert!((upper.unwrap() - 3.06 / 2.98).abs() < 1e-9, "{upper:?}");
        }
        out.push(serde_json::json!({
            "benchmark": name, "machine": machine, "base": base, "cand": cand,
            "ratio": f.ratio, "lower": lower, "upper": upper,
        }));
    }
    serde_json::Value::Array(out).to_string()
}

#[test]
fn the_dashboard_renders_and_behaves_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = SqliteHistory::open(&dir.path().join("h.db")).unwrap();
    let mut spec = Spec::small(
        vec![
            "parse/json".into(),
            "parse/csv".into(),
            HOSTILE.into(),
            "sort/large".into(),
        ],
        30,
    );
    spec.steps = vec![
        Step {
            benchmark: 0,
            version: 12,
            factor: 1.3,
        },
        Step {
            benchmark: 3,
            version: 21,
            factor: 0.75,
        },
    ];
    spec.failed = vec![17];
    generate(&mut h, &spec, &mut |_| {}).unwrap();
    // A second machine with a shorter history (its own seed: the history stores a result file
    // once, whichever machine it is added for), for the machine filter and the toggles.
    let other = Spec {
        machine: "ci-2".into(),
        versions: 8,
        steps: Vec::new(),
        failed: Vec::new(),
        seed: 2,
        ..spec.clone()
    };
    generate(&mut h, &other, &mut |_| {}).unwrap();
    // A third machine measuring two very noisy executions per version: comparisons there are
    // unbounded (Fieller's g ≥ 1).
    let noisy = Spec {
        machine: "ci-3".into(),
        versions: 3,
        executions: 2,
        iterations: 1,
        noise: 0.9,
        seed: 3,
        ..other.clone()
    };
    generate(&mut h, &noisy, &mut |_| {}).unwrap();
    quantised_machine(&mut h);
    let key = SeriesKey {
        machine: "ci-1".into(),
        branch: "main".into(),
    };
    let found = detect_changes(&mut h, &key, &DetectSettings::default()).unwrap();
    let mut found: Vec<(String, String)> = found
        .into_iter()
        .map(|c| (c.benchmark, c.change.rev))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("parse/json".into(), "v12".into()),
            ("sort/large".into(), "v21".into())
        ]
    );
    let site = dir.path().join("site");
    let settings = PublishSettings {
        out: site.clone(),
        site: SiteMeta {
            title: "Browser test".into(),
            rigor_version: "test".into(),
            repo_url: Some(REPO.into()),
        },
        generated: "now".into(),
        archive_size: rigor_app::publish::ARCHIVE_SIZE,
        grouping: Default::default(),
    };
    publish(&h, &settings).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/check_dashboard.py");
    let mut cmd = Command::new("python3");
    cmd.arg(&script)
        .arg(&site)
        .args(["--change", "parse/json=v12", "--change", "sort/large=v21"])
        .args(["--hostile", HOSTILE, "--repo-url", REPO])
        .args(["--compare", &comparisons(&h)]);
    if let Ok(shots) = std::env::var("RIGOR_DASHBOARD_SCREENSHOTS") {
        cmd.args(["--screenshots", &shots]);
    }
    let out = cmd.output().expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "check_dashboard.py failed:\n{stdout}");
    // The same history with archive pages of 8 versions: ci-1's 30 versions become two archive
    // pages and a main page of 14 under the overview; every page still loads without a console
    // error under the policy, its links resolve, and user text stays text.
    let archived = dir.path().join("archived");
    publish(
        &h,
        &PublishSettings {
            out: archived.clone(),
            archive_size: 8,
            ..settings
        },
    )
    .unwrap();
    let out = Command::new("python3")
        .arg(&script)
        .arg(&archived)
        .args(["--hostile", HOSTILE, "--repo-url", REPO, "--archives"])
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "check_dashboard.py failed on archive pages:\n{stdout}"
    );
}
