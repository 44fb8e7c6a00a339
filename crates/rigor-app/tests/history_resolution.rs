//! The resolution floor on data read back from a history: a benchmark whose times move in
//! steps of 0.04 ns (a 20 ns clock over 500 evaluations per sample), ten versions measured at
//! 3.00 ns and ten at 3.04 ns, every sample of a version on the same step. Without the floor the
//! data claim a 1.33% regression with an interval of width zero; each level is known only to
//! ± 0.02 ns, so the ratio may be anywhere in [3.02/3.02, 3.06/2.98] = [1, 1.02685] (by hand),
//! which crosses the 1% threshold: undecided, as `rigor compare` says of the same two results.

mod common;

use rigor_app::publish::site_view;
use rigor_app::settings::{AnalysisSettings, ComparisonSettings};
use rigor_app::track::{DetectSettings, check, detect_changes, show};
use rigor_history::{SeriesKey, SqliteHistory};
use rigor_report::dashboard::{PointState, SiteMeta};
use rigor_stats::compare::Verdict;
use rigor_store::ResultFile;
use rigor_units::{Resolution, Seconds, Seed, TimeUnit};

const STEP: f64 = 0.04e-9;

fn key() -> SeriesKey {
    SeriesKey {
        machine: "ci-1".into(),
        branch: "main".into(),
    }
}

fn quantised(seed: u64, ns: f64, resolution: Option<Resolution>) -> ResultFile {
    common::quantised("add", seed, (ns, TimeUnit::Ns), resolution)
}

/// Twenty versions, v0–v9 at 3.00 ns and v10–v19 at 3.04 ns, measured in one session.
fn history(dir: &std::path::Path, resolution: Option<Resolution>) -> SqliteHistory {
    let mut h = SqliteHistory::open(&dir.join("h.db")).unwrap();
    let machine = common::machine("ci-1");
    let session = common::session(&mut h, &machine);
    for k in 0..20 {
        let ns = if k < 10 { 3.0 } else { 3.04 };
        common::ingest_in(
            &mut h,
            &machine,
            k,
            &quantised(k as u64, ns, resolution),
            session,
        );
    }
    h
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn quantised_versions_show_no_change_once_the_history_keeps_their_resolution() {
    let dir = tempfile::tempdir().unwrap();
    // Without a resolution (a history stored before it was kept): the step reads as a change.
    let mut bare = history(&dir.path().join("bare"), None);
    let found = detect_changes(&mut bare, &key(), &DetectSettings::default()).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].change.rev, "v10");
    assert_eq!(
        found[0].change.verdict,
        rigor_history::ChangeVerdict::Regression
    );
    let (lo, hi) = found[0].change.interval.unwrap();
    assert!(close(lo, 3.04 / 3.0) && close(hi, 3.04 / 3.0), "{lo} {hi}");
    // With it: no change.
    let mut kept = history(&dir.path().join("kept"), Resolution::new(Seconds(STEP)));
    let found = detect_changes(&mut kept, &key(), &DetectSettings::default()).unwrap();
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn track_show_floors_each_version_against_the_one_before() {
    let dir = tempfile::tempdir().unwrap();
    let at = |h: &SqliteHistory| {
        let points = show(h, &key(), "add").unwrap().points;
        let p = &points[10];
        assert_eq!(p.version.rev, "v10");
        p.against_previous.unwrap()
    };
    let bare = at(&history(&dir.path().join("bare"), None));
    assert_eq!(bare.verdict, Verdict::Regression);
    assert!(!bare.at_resolution);
    let kept = history(&dir.path().join("kept"), Resolution::new(Seconds(STEP)));
    let floored = at(&kept);
    assert_eq!(floored.verdict, Verdict::Inconclusive);
    assert!(floored.at_resolution, "and says so");
    let (lo, hi) = floored.interval.unwrap();
    assert!(close(lo, 1.0) && close(hi, 3.06 / 2.98), "{lo} {hi}");
    // Each version's own interval is floored too: ± 0.02 ns around 3.00 ns.
    let a = show(&kept, &key(), "add").unwrap().points[0]
        .level
        .clone()
        .unwrap();
    assert!(
        close(a.interval.0, 2.98) && close(a.interval.1, 3.02),
        "{a:?}"
    );
}

#[test]
fn a_candidate_checked_against_the_history_is_floored() {
    let dir = tempfile::tempdir().unwrap();
    let verdict = |resolution: Option<Resolution>, sub: &str| {
        let mut h = SqliteHistory::open(&dir.path().join(sub).join("h.db")).unwrap();
        let machine = common::machine("ci-1");
        // Three sessions tied by anchors (v3 measured in the first two, v6 in the last two), so
        // the history knows how much sessions shift this machine (here: not at all) with two
        // degrees of freedom: two sessions compared once would not bound the candidate's.
        let (a, b, c) = (
            common::session(&mut h, &machine),
            common::session(&mut h, &machine),
            common::session(&mut h, &machine),
        );
        for k in 0..10 {
            let session = match k {
                0..4 => a,
                4..7 => b,
                _ => c,
            };
            common::ingest_in(
                &mut h,
                &machine,
                k,
                &quantised(k as u64, 3.0, resolution),
                session,
            );
        }
        common::ingest_in(&mut h, &machine, 3, &quantised(103, 3.0, resolution), b);
        common::ingest_in(&mut h, &machine, 6, &quantised(106, 3.0, resolution), c);
        let file = dir.path().join(sub).join("pr.json");
        rigor_store::save(&file, &quantised(99, 3.04, resolution)).unwrap();
        let checked = check(
            &h,
            &file,
            &key(),
            None,
            &AnalysisSettings::default(),
            &ComparisonSettings::default(),
            Seed(1),
        )
        .unwrap();
        assert_eq!(checked.against_history.len(), 1);
        checked.against_history[0].change
    };
    let bare = verdict(None, "bare");
    assert_eq!(bare.verdict, Verdict::Regression, "{bare:?}");
    let floored = verdict(Resolution::new(Seconds(STEP)), "kept");
    assert!(floored.at_resolution);
    assert_eq!(floored.verdict, Verdict::Inconclusive);
    let (lo, hi) = floored.interval.unwrap();
    assert!(close(lo, 1.0) && close(hi, 3.06 / 2.98), "{lo} {hi}");
}

/// The dashboard's comparison of two versions (`rigor track publish`) from the stored summaries:
/// each point carries its level in seconds (the runs store ns), its step in seconds and the
/// variance of its level from the data (next to nothing: tied), not from its interval, which the
/// floor widened to ± 0.02 ns; the comparison the page opens with (v19 against v18, both
/// 3.04 ns) is Fieller's interval of width zero floored to [3.02/3.06, 3.06/3.02] (by hand).
#[test]
fn the_dashboards_comparison_is_floored_from_stored_summaries() {
    let dir = tempfile::tempdir().unwrap();
    let kept = history(dir.path(), Resolution::new(Seconds(STEP)));
    let view = site_view(&kept, SiteMeta::default(), "now".into()).unwrap();
    let series = &view.benchmarks[0].series[0];
    let PointState::Measured(m) = &series.versions[0].state else {
        panic!("{:?}", series.versions[0].state)
    };
    assert!(close(m.lower, 2.98e-9) && close(m.upper, 3.02e-9), "{m:?}");
    let input = m.ratio_input.unwrap();
    assert!(close(input.step.unwrap(), 0.04e-9), "{input:?}");
    assert!(input.var_of_mean < 1e-12 * m.mean * m.mean, "{input:?}");
    let c = series.comparison.as_ref().unwrap();
    assert_eq!((c.baseline, c.candidate), (18, 19));
    let (lo, hi) = c.interval.unwrap();
    assert!(
        close(lo, 3.02 / 3.06) && close(hi, 3.06 / 3.02),
        "{lo} {hi}"
    );
    assert_eq!(c.verdict, "inconclusive");
    // Without a resolution the two tied versions are "equivalent" at a ratio of 1 ± nothing.
    let bare = history(&dir.path().join("bare"), None);
    let view = site_view(&bare, SiteMeta::default(), "now".into()).unwrap();
    let c = view.benchmarks[0].series[0].comparison.clone().unwrap();
    let (lo, hi) = c.interval.unwrap();
    assert!(close(lo, 1.0) && close(hi, 1.0), "{lo} {hi}");
    assert_eq!(c.verdict, "equivalent");
}
