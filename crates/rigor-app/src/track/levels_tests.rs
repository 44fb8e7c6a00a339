//! Tests of [`super`]: each version's level and interval from the stored runs.

use super::*;
use rigor_history::{MeanSpread, Role, RunId};

fn summary(rev: &str, run: i64, session: i64, level: f64, artifact: Option<u8>) -> StoredSummary {
    StoredSummary {
        benchmark: "b".into(),
        rev: rev.into(),
        run: RunInfo {
            id: RunId(run),
            session: SessionId(session),
            artifact: artifact.map(|a| ArtifactHash([a; 32])),
            role: Role::New,
        },
        unit: TimeUnit::S,
        mean: Some(level),
        interval: None,
        level: None,
        spread: Some(MeanSpread {
            units: 10,
            var_of_mean: 1e-6 * level * level,
            level,
            var_of_level: 1e-6 * level * level,
        }),
        components: Vec::new(),
        resolution: None,
    }
}

fn order(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("v{i}")).collect()
}

/// Versions each alone in a session, their own variances alternately 1 and 9 (times a
/// common scale): weighed for detection from 20 runs on, the variances are moderated towards
/// what the runs share, so the versions' intervals differ by less than the factor of 3 their
/// own variances give; with 19 runs, or weighed by their own, each keeps its own.
#[test]
fn run_variances_are_moderated_from_twenty_runs_on() {
    let width_ratio = |n: usize| {
        let list: Vec<StoredSummary> = (0..n)
            .map(|i| {
                let mut s = summary(&format!("v{}", i + 1), i as i64, i as i64, 1.0, None);
                let v = if i % 2 == 0 { 1e-6 } else { 9e-6 };
                s.spread = Some(MeanSpread {
                    var_of_level: v,
                    var_of_mean: v,
                    ..s.spread.unwrap()
                });
                s
            })
            .collect();
        let refs: Vec<&StoredSummary> = list.iter().collect();
        let order: Vec<Arc<str>> = order(n).into_iter().map(Arc::from).collect();
        let ratio = |weights| {
            let l = levels_of_summaries("b", &refs, &order, ConfidenceLevel::NINETY_FIVE, weights)
                .unwrap()
                .unwrap();
            let width = |v: &VersionLevel| v.interval.1 - v.interval.0;
            width(&l.versions[1]) / width(&l.versions[0])
        };
        (ratio(Weights::Own), ratio(Weights::Moderated))
    };
    let (own, few) = width_ratio(19);
    assert!(
        (own - 3.0).abs() < 1e-3 && (few - 3.0).abs() < 1e-3,
        "{own} {few}"
    );
    let (own, moderated) = width_ratio(20);
    assert!((own - 3.0).abs() < 1e-3, "{own}");
    assert!(moderated > 1.0 && moderated < 2.0, "{moderated}");
}

/// Two sessions, the second 45% slower throughout, tied by one anchor (v3 measured in
/// both): the adjusted levels are flat where the raw ones step at the session boundary.
#[test]
fn the_session_shift_is_taken_out() {
    let mut list = Vec::new();
    for i in 1..=3 {
        list.push(summary(&format!("v{i}"), i, 1, 1.0, None));
    }
    list.push(summary("v3", 4, 2, 1.45, None));
    for i in 4..=6 {
        list.push(summary(&format!("v{i}"), i + 1, 2, 1.45, None));
    }
    let refs: Vec<&StoredSummary> = list.iter().collect();
    let l = benchmark_levels("b", &refs, &order(6), ConfidenceLevel::NINETY_FIVE)
        .unwrap()
        .unwrap();
    assert_eq!(l.fit.components(), 1);
    let levels: Vec<f64> = l.versions.iter().map(|v| v.level).collect();
    for w in levels.windows(2) {
        assert!((w[1] / w[0] - 1.0).abs() < 1e-9, "{levels:?}");
    }
    assert_eq!(l.versions[2].runs.len(), 2);
    // Two sessions tied by one version: how much sessions vary is estimated (one df).
    assert_eq!(l.session_variance().map(|s| s.df), Some(1));
    assert!(
        l.versions
            .iter()
            .all(|v| v.interval.0 < v.level && v.level < v.interval.1)
    );
}

/// Consecutive versions with the same artifact are one point, also across versions missing
/// the benchmark (which are left out); a version without an artifact is its own.
#[test]
fn identical_builds_share_a_point() {
    let list = [
        summary("v1", 1, 1, 1.0, Some(1)),
        summary("v2", 2, 1, 1.01, Some(1)),
        summary("v3", 3, 1, 1.2, Some(2)),
        summary("v5", 4, 1, 1.2, Some(2)),
        summary("v6", 5, 1, 1.2, None),
    ];
    let refs: Vec<&StoredSummary> = list.iter().collect();
    let l = benchmark_levels("b", &refs, &order(6), ConfidenceLevel::NINETY_FIVE)
        .unwrap()
        .unwrap();
    let points: Vec<(usize, bool)> = l
        .versions
        .iter()
        .map(|v| (v.point, v.identical_to_previous))
        .collect();
    // v4 is missing (it failed, or did not measure this benchmark): v5's build is v3's, the
    // same program, so it shares v3's point (a user saw a +0.51% step between two identical
    // builds with failed versions between them).
    assert_eq!(
        points,
        vec![(0, false), (0, true), (1, false), (1, true), (2, false)]
    );
    assert_eq!(l.points(), vec![(0, 0), (1, 2), (2, 4)]);
    // One point, one level: v1 and v2 pooled.
    assert_eq!(l.versions[0].level, l.versions[1].level);
    assert!(l.versions[0].level > 1.0 && l.versions[0].level < 1.01);
    // One session throughout: how much sessions vary is unknown, and said.
    assert!(l.versions.iter().all(|v| v.sessions_unknown));
    assert_eq!(l.session_variance(), None);
}

/// Versions of one point share its interval as they share its level: v1 measured twice and
/// v2 once, identical builds, had two intervals around one pooled level (each version's own
/// runs gave its degrees of freedom).
#[test]
fn identical_builds_share_an_interval() {
    let list = [
        summary("v1", 1, 1, 1.0, Some(1)),
        summary("v1", 2, 1, 1.002, Some(1)),
        summary("v2", 3, 1, 0.999, Some(1)),
    ];
    let refs: Vec<&StoredSummary> = list.iter().collect();
    let l = benchmark_levels("b", &refs, &order(2), ConfidenceLevel::NINETY_FIVE)
        .unwrap()
        .unwrap();
    assert_eq!(l.versions[0].point, l.versions[1].point);
    assert_eq!(l.versions[0].level, l.versions[1].level);
    assert_eq!(l.versions[0].interval, l.versions[1].interval);
}

/// Sessions that share no version: each version's interval lacks the spread between
/// sessions, and says so.
#[test]
fn unconnected_sessions_are_said() {
    let list = [
        summary("v1", 1, 1, 1.0, None),
        summary("v2", 2, 2, 1.4, None),
    ];
    let refs: Vec<&StoredSummary> = list.iter().collect();
    let l = benchmark_levels("b", &refs, &order(2), ConfidenceLevel::NINETY_FIVE)
        .unwrap()
        .unwrap();
    assert_eq!(l.fit.components(), 2);
    assert!(l.versions.iter().all(|v| v.sessions_unknown));
    assert!((l.versions[1].level - 1.4).abs() < 1e-12);
}
