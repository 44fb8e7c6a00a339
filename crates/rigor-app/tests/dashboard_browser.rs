//! The dashboard in real headless Chromium (tests/browser/check_dashboard.py): a history of four
//! benchmarks × 30 versions measured in three sessions of ten (each shifting every level, each
//! re-measuring the version before it as an anchor), with two injected changes, a failed build
//! and a build identical to the one before, is published; every page renders with no console
//! message, the change markers sit at the injected versions (an acknowledged one among them), an
//! invalid change and a confounded one are drawn apart from new ones, session boundaries and anchors are marked, the
//! axis names commits, the filter works on the benchmarks and on the change table, links
//! resolve, and a benchmark named `<img src=x onerror=alert(1)>` shows as text. The page's
//! comparison of two versions equals rigor's Fieller interval fed from the two versions' levels
//! as `track::levels` computes them from the history, floored at the versions' resolution where
//! they report one (a quantised benchmark on a fourth machine).
//!
//! Nothing is installed here: `scripts/test_deps.sh` installs Debian's chromium (`.ci/run` calls
//! it). Where chromium is missing the script prints a SKIP line naming that script, and under CI
//! (`CI=true`) it fails instead. `RIGOR_BROWSER_TESTS=0` skips the browser part deliberately
//! (outside CI only); `RIGOR_DASHBOARD_SCREENSHOTS=DIR` keeps screenshots of the index and a
//! benchmark page.

mod common;

use std::path::Path;
use std::process::Command;

use rigor_app::publish::{PublishSettings, publish};
use rigor_app::synthetic::{Spec, Step, commit_id, generate};
use rigor_history::{
    ChangeFilter, ChangeStatus, ChangeVerdict, Evidence, History, HistoryRead, NewChange,
    SeriesKey, SqliteHistory,
};
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

/// The comparisons the browser picks, with Fieller's interval (Welch–Satterthwaite, as
/// `rigor compare`) fed from the two versions' levels as `track::levels` computes them from the
/// history itself (not from the publisher's cache): each level with the fit's variance of it
/// (the spread between sessions in it when known) and its degrees of freedom. The page's oracle.
fn comparisons(h: &SqliteHistory) -> String {
    use rigor_stats::fieller::{DfMethod, fieller};
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
        let levels = common::level_estimates(h, machine, name);
        let side = |rev: &str| {
            let v = levels.iter().find(|v| v.rev == rev).unwrap();
            (v.estimate, v.resolution, v.component, v.unknown)
        };
        let ((c, rc, gc, uc), (b, rb, gb, ub)) = (side(cand), side(base));
        let f = fieller(&c, &b, 0.95, DfMethod::WelchSatterthwaite).unwrap();
        let (mut lower, mut upper) = f.bounds().unzip();
        // Floored at the versions' resolution, as `rigor compare` floors a ratio.
        if let (Some(rc), Some(rb), Some(lo), Some(hi)) = (rc, rb, lower, upper) {
            let fl = rc.floor_ratio(rb, Seconds(c.mean), Seconds(b.mean), lo, hi);
            (lower, upper) = (Some(fl.lower), Some(fl.upper));
        }
        let unknown = uc || ub;
        out.push(serde_json::json!({
            "benchmark": name, "machine": machine, "base": base, "cand": cand,
            "ratio": f.ratio, "lower": lower, "upper": upper,
            "confounded": unknown && gc != gb, "unknown": unknown,
        }));
    }
    serde_json::Value::Array(out).to_string()
}

/// A change as detection stores it, at `rev` of size `ratio`, what it rests on.
type Found = (usize, f64, ChangeStatus, Evidence);

/// Stores `benchmark`'s changes on ci-1 (one detection's: a later one replaces them) and sets
/// their statuses.
fn changes(h: &mut SqliteHistory, benchmark: &str, found: &[Found]) {
    let key = SeriesKey::new("ci-1", "main");
    let list: Vec<NewChange> = found
        .iter()
        .map(|&(rev, ratio, _, evidence)| NewChange {
            rev: format!("v{rev}"),
            previous_rev: Some(format!("v{}", rev - 1)),
            ratio,
            interval: Some((ratio * 0.98, ratio * 1.02)),
            p_value: 1e-6,
            q_value: Some(1e-5),
            verdict: if ratio > 1.0 {
                ChangeVerdict::Regression
            } else {
                ChangeVerdict::Improvement
            },
            method: "e-divisive + version-level random effects".into(),
            evidence,
        })
        .collect();
    h.save_changes(&key, benchmark, &list).unwrap();
    let stored = h
        .changes(&ChangeFilter {
            benchmark: Some(benchmark.into()),
            ..ChangeFilter::default()
        })
        .unwrap();
    for &(rev, _, status, _) in found {
        let id = stored
            .iter()
            .find(|c| c.change.rev == format!("v{rev}"))
            .unwrap()
            .id;
        h.set_status(id, status).unwrap();
    }
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
    // Three sessions of ten versions, each shifting every level by up to 20% and re-measuring
    // the version before it (v9, v19) as an anchor; v6's build is identical to v5's.
    spec.sessions = 10;
    spec.session_shift = 0.2;
    spec.identical = vec![6];
    generate(&mut h, &spec, &mut |_| {}).unwrap();
    // A second machine with a shorter history (its own seed: the history stores a result file
    // once, whichever machine it is added for), for the machine filter and the toggles.
    let other = Spec {
        machine: "ci-2".into(),
        versions: 8,
        steps: Vec::new(),
        failed: Vec::new(),
        seed: 2,
        sessions: 0,
        session_shift: 0.0,
        identical: Vec::new(),
        ..spec.clone()
    };
    generate(&mut h, &other, &mut |_| {}).unwrap();
    // A third machine measuring two very noisy executions per version.
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
    // The changes as detection would store them (detection itself is tested elsewhere): the
    // injected ones, new and acknowledged, and one marked invalid.
    use {ChangeStatus::*, Evidence::*};
    // A step at the third session's start that detection could not tell from the session.
    changes(
        &mut h,
        "parse/json",
        &[(12, 1.3, New, Detected), (20, 1.05, New, Confounded)],
    );
    changes(&mut h, "sort/large", &[(21, 0.75, Acknowledged, Detected)]);
    changes(&mut h, "parse/csv", &[(25, 1.08, Invalid, Detected)]);
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
        metrics: Vec::new(),
    };
    publish(&h, &settings).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/check_dashboard.py");
    let mut cmd = Command::new("python3");
    cmd.arg(&script)
        .arg(&site)
        .args(["--change", "parse/json=v12", "--change", "sort/large=v21"])
        .args([
            "--invalid",
            "parse/csv=v25",
            "--confounded",
            "parse/json=v20",
        ])
        .args([
            "--sessions",
            "parse/json=v10,v20",
            "--anchors",
            "parse/json=v9,v19",
        ])
        .args(["--commit", &format!("v3={}", &commit_id(3)[..7])])
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
