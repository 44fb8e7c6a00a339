//! Tests of [`super`]: detection from the stored levels, statuses carried, confirmed changes kept.

use super::*;

fn change(id: i64, benchmark: &str, rev: &str, ratio: f64) -> StoredChange {
    StoredChange {
        id: ChangeId(id),
        benchmark: benchmark.into(),
        metric: Metric::Wall,
        series: SeriesKey::new("m", "main"),
        change: NewChange {
            rev: rev.into(),
            previous_rev: None,
            ratio,
            interval: None,
            p_value: 0.001,
            q_value: None,
            verdict: ChangeVerdict::Regression,
            method: METHOD.into(),
            evidence: Evidence::Detected,
        },
        status: ChangeStatus::New,
        current: true,
        detected_at: jiff::Timestamp::UNIX_EPOCH,
        version_time: None,
    }
}

/// A confirmed change survives a detection that no longer finds it (a later, noisier
/// session): stored current as it was, unless the detection found one of the same direction
/// within [`STATUS_REACH`] versions, or its versions are gone; of two confirmed a version
/// apart, the later confirmed is kept.
#[test]
fn a_confirmed_change_is_kept_when_detection_loses_it() {
    let order: Vec<String> = (1..=20).map(|v| format!("v{v}")).collect();
    let confirmed = |id, rev: &str, at: i64| {
        let mut c = change(id, "a", rev, 1.08);
        c.change.evidence = Evidence::Confirmed;
        c.change.previous_rev = Some("v9".into());
        c.current = false;
        c.detected_at = jiff::Timestamp::from_second(at).unwrap();
        c
    };
    let before = vec![
        confirmed(1, "v10", 100),
        change(2, "a", "v15", 1.1),
        confirmed(3, "v11", 200),
        confirmed(4, "v30", 300),
    ];
    let kept = confirmed_kept(&before, "a", &Metric::Wall, &[], &order);
    // v11 (confirmed later) stands for v10; v30 is no longer stored; v15 was only detected.
    assert_eq!(
        kept.iter().map(|c| c.rev.as_str()).collect::<Vec<_>>(),
        ["v11"]
    );
    // Found again two versions away: the detection's own stands.
    let again = change(5, "a", "v13", 1.07).change;
    assert!(
        confirmed_kept(
            &before,
            "a",
            &Metric::Wall,
            std::slice::from_ref(&again),
            &order
        )
        .is_empty()
    );
    // An improvement found there does not stand for a regression; another benchmark's
    // confirmed change is not this one's.
    let faster = NewChange {
        verdict: ChangeVerdict::Improvement,
        ..again
    };
    assert_eq!(
        confirmed_kept(&before, "a", &Metric::Wall, &[faster], &order).len(),
        1
    );
    assert!(confirmed_kept(&before, "b", &Metric::Wall, &[], &order).is_empty());
}

/// Through the store: a confirmed change at a version where the data show none stays in
/// `track changes` after detection runs again.
#[test]
fn a_stored_confirmed_change_stays_current_after_detection() {
    let dir = tempfile::tempdir().unwrap();
    let (mut history, settings, _, _) =
        super::super::fixture::tracked(dir.path(), "versions=12", 6, 11, 4, 2);
    let key = &settings.key;
    let revs: Vec<String> = history
        .versions(key)
        .unwrap()
        .into_iter()
        .map(|v| v.version.rev)
        .collect();
    let mut c = change(0, "a", &revs[6], 1.08).change;
    c.previous_rev = Some(revs[5].clone());
    c.evidence = Evidence::Confirmed;
    history
        .save_metric_changes(&DetectedChanges {
            series: key,
            benchmark: "a",
            metric: &Metric::Wall,
            changes: &[c],
        })
        .unwrap();
    let now = detect_changes(&mut history, key, &DetectSettings::default()).unwrap();
    let kept: Vec<&StoredChange> = now
        .iter()
        .filter(|s| s.benchmark == "a" && s.change.rev == revs[6])
        .collect();
    assert_eq!(kept.len(), 1, "{now:?}");
    assert_eq!(kept[0].change.evidence, Evidence::Confirmed);
    assert!(kept[0].current);
}

/// Detection reads each run's stored level (written at ingest), never its samples: on a
/// history measured as `track run` measures one (sessions of 5 versions, 2 anchors each, a
/// +10% step of one benchmark), the levels and the changes detected from the stored
/// summaries are those detected from summaries recomputed from every run's samples.
#[test]
fn detection_from_stored_levels_equals_detection_from_samples() {
    let dir = tempfile::tempdir().unwrap();
    let (history, settings, _, _) =
        super::super::fixture::tracked(dir.path(), "versions=20,step=12:+10%@2", 6, 11, 5, 2);
    let key = &settings.key;
    let confidence = ConfidenceLevel::NINETY_FIVE;
    let order: Vec<String> = history
        .versions(key)
        .unwrap()
        .into_iter()
        .map(|v| v.version.rev)
        .collect();
    let stored = levels::series_levels(&history, key, confidence).unwrap();
    assert_eq!(stored.len(), 2);
    let s = DetectSettings::default();
    let mut detected = 0;
    for l in &stored {
        // The same runs' summaries, recomputed from their samples (`MeanSpread::of`).
        let (again, _) =
            levels::metric_summaries(&history, key, &l.benchmark, &Metric::Wall).unwrap();
        let refs: Vec<&rigor_history::StoredSummary> = again.iter().collect();
        let from_samples = levels::benchmark_levels(&l.benchmark, &refs, &order, confidence)
            .unwrap()
            .unwrap();
        // Sessions with anchors: the crossed fit has work to do.
        assert!(
            l.fit.components() < l.sessions.len(),
            "{}",
            l.sessions.len()
        );
        assert_eq!(l.versions.len(), from_samples.versions.len());
        // Stored in the benchmark's unit, recomputed in seconds.
        let scale = from_samples.versions[0].level / l.versions[0].level;
        for (a, b) in l.versions.iter().zip(&from_samples.versions) {
            assert_eq!((&a.rev, a.runs.len()), (&b.rev, b.runs.len()));
            assert!(
                (b.level / (a.level * scale) - 1.0).abs() < 1e-9,
                "{a:?} {b:?}"
            );
        }
        let one = detect_one(l, &s, false, &[]).unwrap().0.0;
        let two = detect_one(&from_samples, &s, false, &[]).unwrap().0.0;
        assert_eq!(one.len(), two.len(), "{one:?} {two:?}");
        for (a, b) in one.iter().zip(&two) {
            let (a, b) = (&a.change, &b.change);
            assert_eq!((&a.rev, a.verdict), (&b.rev, b.verdict));
            assert!((a.ratio / b.ratio - 1.0).abs() < 1e-9, "{a:?} {b:?}");
            assert!((a.p_value - b.p_value).abs() < 1e-9, "{a:?} {b:?}");
        }
        detected += one.len();
    }
    // The step is found (in b, at v12), so the comparison is of something.
    assert!(detected >= 1);
}

#[test]
fn changes_since_a_date_keep_versions_with_a_later_time() {
    let mut old = change(1, "b", "v1", 1.1);
    old.version_time = Some("2026-01-01T10:00:00+01:00".parse().unwrap());
    let mut new = change(2, "b", "v2", 1.1);
    new.version_time = Some("2026-03-01T00:00:00Z".parse().unwrap());
    let label = change(3, "b", "gcc-14", 1.1);
    let kept = changes_since(vec![old.clone(), new.clone(), label.clone()], "2026-02-01").unwrap();
    assert_eq!(kept.iter().map(|c| c.id).collect::<Vec<_>>(), [ChangeId(2)]);
    let kept = changes_since(vec![old, new, label], "2026-01-01T08:00:00Z").unwrap();
    assert_eq!(kept.len(), 2, "09:00Z is after 08:00Z");
    assert!(changes_since(Vec::new(), "last tuesday").is_err());
}

#[test]
fn events_stored_under_the_earlier_method_are_still_events() {
    assert!(is_event_method(EVENT_METHOD));
    assert!(is_event_method(
        "joint test across benchmarks (random effects, Hartung-Knapp)"
    ));
    assert!(!is_event_method(METHOD));
}

#[test]
fn most_benchmarks_moving_together_are_one_event() {
    let mut list: Vec<StoredChange> = (0..4)
        .map(|k| change(k, &format!("b{k}"), "v9", 1.03 + 0.001 * k as f64))
        .collect();
    list.push(change(10, "b0", "v3", 1.10));
    list.push(change(11, "b1", "v9", 0.95));
    let found = events(&list, &|_| 6);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].rev, "v9");
    assert_eq!(found[0].changes, [0, 1, 2, 3].map(ChangeId));
    assert!((found[0].range.0 - 1.03).abs() < 1e-12);
    // Four of ten benchmarks is not most of them.
    assert!(events(&list, &|_| 10).is_empty());
}
