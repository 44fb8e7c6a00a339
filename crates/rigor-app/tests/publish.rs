//! `rigor track publish`'s use case over a synthetic history with two injected changes: the
//! changes are detected at the injected versions and drawn there, user text is escaped, and
//! publishing again rewrites only what changed.

use rigor_app::publish::{PublishSettings, publish, site_view};
use rigor_app::synthetic::{Spec, Step, generate, generate_versions};
use rigor_app::track::{DetectSettings, detect_changes};
use rigor_history::{SeriesKey, SqliteHistory};
use rigor_report::dashboard::{PointState, SiteMeta};

mod common;

const HOSTILE: &str = "<img src=x onerror=alert(1)>";

fn spec(versions: usize) -> Spec {
    let mut s = Spec::small(
        vec!["parse/json".into(), "parse/csv".into(), HOSTILE.into()],
        versions,
    );
    s.steps = vec![
        Step {
            benchmark: 0,
            version: 10,
            factor: 1.3,
        },
        Step {
            benchmark: 1,
            version: 20,
            factor: 0.8,
        },
    ];
    s.failed = vec![5];
    s
}

fn history(dir: &std::path::Path, versions: usize) -> SqliteHistory {
    let mut h = SqliteHistory::open(&dir.join("h.db")).unwrap();
    generate(&mut h, &spec(versions), &mut |_| {}).unwrap();
    let key = SeriesKey {
        machine: "ci-1".into(),
        branch: "main".into(),
    };
    detect_changes(&mut h, &key, &DetectSettings::default()).unwrap();
    h
}

fn settings(out: &std::path::Path) -> PublishSettings {
    PublishSettings {
        out: out.to_path_buf(),
        site: SiteMeta {
            title: "demo".into(),
            rigor_version: "test".into(),
            repo_url: Some("https://example.org/demo".into()),
        },
        generated: "now".into(),
        archive_size: rigor_app::publish::ARCHIVE_SIZE,
        grouping: Default::default(),
        metrics: Vec::new(),
    }
}

#[test]
fn the_view_holds_the_injected_changes_failures_and_every_version() {
    let dir = tempfile::tempdir().unwrap();
    let h = history(dir.path(), 30);
    let view = site_view(&h, SiteMeta::default(), "now".into()).unwrap();
    assert_eq!(view.benchmarks.len(), 3);
    let found: Vec<(&str, &str)> = view
        .changes
        .iter()
        .map(|c| (c.benchmark.as_str(), c.change.rev.as_str()))
        .collect();
    assert_eq!(found, [("parse/csv", "v20"), ("parse/json", "v10")]);
    let json = view
        .benchmarks
        .iter()
        .find(|b| b.name == "parse/json")
        .unwrap();
    assert_eq!(json.group, "parse");
    let s = &json.series[0];
    assert_eq!(s.versions.len(), 30);
    assert_eq!(s.versions[5].state, PointState::Failed);
    let PointState::Measured(m) = &s.versions[29].state else {
        panic!("not measured")
    };
    assert!((m.mean / 1.3e-3 - 1.0).abs() < 0.02, "{}", m.mean);
    assert!(m.lower < m.mean && m.mean < m.upper);
    assert_eq!(m.noise.len(), 2);
    assert_eq!(s.changes[0].rev, "v10");
    assert!((s.changes[0].ratio - 1.3).abs() < 0.03);
}

#[test]
fn pages_are_written_escaped_and_republished_incrementally() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    let mut h = history(dir.path(), 30);
    let first = publish(&h, &settings(&out)).unwrap();
    assert_eq!((first.pages, first.written), (3, 3));
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(!index.contains(HOSTILE));
    assert!(index.contains("https://example.org/demo/commit/"));
    // Nothing changed: nothing re-rendered.
    let again = publish(&h, &settings(&out)).unwrap();
    assert_eq!(again.written, 0);
    // A deleted page is written again.
    let view = site_view(&h, SiteMeta::default(), String::new()).unwrap();
    std::fs::remove_file(out.join(&view.benchmarks[0].page)).unwrap();
    assert_eq!(publish(&h, &settings(&out)).unwrap().written, 1);
    // One new version changes every benchmark's series, so every page; a new title too.
    generate_versions(&mut h, &spec(31), 30..31, &mut |_| {}).unwrap();
    assert_eq!(publish(&h, &settings(&out)).unwrap().written, 3);
    for b in &view.benchmarks {
        let page = std::fs::read_to_string(out.join(&b.page)).unwrap();
        assert!(page.contains("../index.html"));
        assert!(!page.contains(HOSTILE));
    }
}

/// Settings with archive pages of 4 versions.
fn small(out: &std::path::Path) -> PublishSettings {
    PublishSettings {
        archive_size: 4,
        ..settings(out)
    }
}

/// Asserts that two sites hold the same files with the same bytes (the cache aside).
fn assert_same_sites(a: &std::path::Path, b: &std::path::Path) {
    let (a, b) = (files(a), files(b));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(
            bytes == &b[name],
            "{name} differs from the page published from scratch"
        );
    }
}

/// Every file of a site but the publisher's cache (whose maps are written in no fixed order),
/// with its bytes.
fn files(root: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    for dir in [root.to_path_buf(), root.join("b")] {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() && !p.ends_with(rigor_app::publish::CACHE) {
                let name = p.strip_prefix(root).unwrap().display().to_string();
                out.insert(name, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn an_incremental_publish_reads_and_writes_only_what_is_new_and_equals_one_from_scratch() {
    use rigor_history::{ChangeFilter, ChangeStatus, History, HistoryRead};
    let dir = tempfile::tempdir().unwrap();
    let (inc, fresh) = (dir.path().join("inc"), dir.path().join("fresh"));
    // Archive pages of 4 versions: 26 versions are 5 archive pages and 6 on the main page.
    let mut h = history(dir.path(), 26);
    let first = publish(&h, &small(&inc)).unwrap();
    assert_eq!((first.pages, first.archives), (3, 15));
    assert_eq!(first.written, 18);
    assert_eq!(first.runs_read, 26 - 1, "one version failed");
    // One more version: each benchmark's main page is drawn again, no archive page, and only
    // the new run is read.
    generate_versions(&mut h, &spec(27), 26..27, &mut |_| {}).unwrap();
    let next = publish(&h, &small(&inc)).unwrap();
    assert_eq!((next.written, next.runs_read), (3, 1));
    // Three more: version 28 fills the main page, so versions 20..24 become an archive page.
    generate_versions(&mut h, &spec(30), 27..30, &mut |_| {}).unwrap();
    let key = SeriesKey {
        machine: "ci-1".into(),
        branch: "main".into(),
    };
    detect_changes(&mut h, &key, &DetectSettings::default()).unwrap();
    // A status set on an archived change redraws that archive page too.
    let change = h.changes(&ChangeFilter::default()).unwrap()[0].clone();
    h.set_status(change.id, ChangeStatus::Acknowledged).unwrap();
    let later = publish(&h, &small(&inc)).unwrap();
    assert_eq!((later.archives, later.runs_read), (18, 3));
    assert!(later.written < 3 + 18, "{later:?}");
    let scratch = publish(&h, &small(&fresh)).unwrap();
    assert_eq!(scratch.written, 3 + 18);
    let (a, b) = (files(&inc), files(&fresh));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(
            bytes == &b[name],
            "{name} differs from the page published from scratch"
        );
    }
    // A damaged cache is read as none: everything is read again, and the site is the same.
    std::fs::write(inc.join(rigor_app::publish::CACHE), b"not a cache").unwrap();
    let again = publish(&h, &small(&inc)).unwrap();
    assert_eq!((again.runs_read, again.written), (29, 0));
    // Archive pages link to their neighbours and to the main page, and the main page to them.
    let page = rigor_report::dashboard::page_path("parse/json");
    let main = String::from_utf8(a[&page].clone()).unwrap();
    assert!(main.contains("Whole history") && main.contains("Older versions:"));
    let stem = page.trim_start_matches("b/").trim_end_matches(".html");
    let archived = |n: &String| n.starts_with(&format!("b/{stem}.")) && *n != page;
    for (name, bytes) in a.iter().filter(|(n, _)| archived(n)) {
        let html = String::from_utf8(bytes.clone()).unwrap();
        assert!(html.contains(&format!("href=\"{stem}.html\"")), "{name}");
        assert!(main.contains(name.trim_start_matches("b/")), "{name}");
    }
}

#[test]
fn the_index_groups_by_a_pattern_when_asked() {
    use rigor_app::publish::Grouping;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    let h = history(dir.path(), 12);
    let grouped = PublishSettings {
        grouping: Grouping::Pattern(regex::Regex::new("/(json|csv)$").unwrap()),
        ..settings(&out)
    };
    publish(&h, &grouped).unwrap();
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    let at = |text: &str| index.find(text).unwrap_or_else(|| panic!("{text} missing"));
    // Groups in order, each with its benchmark; the hostile name matches nothing.
    assert!(at("<th colspan=\"6\">(no group)</th>") < at(">csv</th>"));
    assert!(at(">csv</th>") < at("<tr class=\"row\" data-name=\"parse/csv\""));
    assert!(at("<tr class=\"row\" data-name=\"parse/csv\"") < at(">json</th>"));
    assert!(at(">json</th>") < at("<tr class=\"row\" data-name=\"parse/json\""));
    assert_eq!(Grouping::Prefix.of("parse/json/small"), "parse/json");
    let whole = Grouping::Pattern(regex::Regex::new("small|large").unwrap());
    assert_eq!(whole.of("sort_large_v2"), "large");
}

/// `name="value"` of the first attribute `name` in `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(&tag[start..start + tag[start..].find('"')?])
}

#[test]
fn a_page_carries_each_versions_levels_and_opens_with_their_fieller_interval() {
    use rigor_stats::fieller::{DfMethod, MeanEstimate, fieller};

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    let h = history(dir.path(), 30);
    publish(&h, &settings(&out)).unwrap();
    let view = site_view(&h, SiteMeta::default(), String::new()).unwrap();
    let json = view.benchmarks.iter().find(|b| b.name == "parse/json");
    let page = std::fs::read_to_string(out.join(&json.unwrap().page)).unwrap();
    // The oracle: each version's level as every command takes it (`track::levels`, from the
    // history itself), its variance from the fit and its degrees of freedom.
    let levels: Vec<(String, MeanEstimate)> = common::level_estimates(&h, "ci-1", "parse/json")
        .into_iter()
        .map(|v| (v.rev, v.estimate))
        .collect();
    assert_eq!(levels.len(), 29, "30 versions, one failed");
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs();
    for (rev, e) in &levels {
        let at = page.find(&format!(" data-rev=\"{rev}\"")).unwrap();
        let tag = &page[at..at + page[at..].find('>').unwrap()];
        let num = |n: &str| {
            attr(tag, n)
                .unwrap_or_else(|| panic!("{n} in {tag}"))
                .parse::<f64>()
                .unwrap()
        };
        assert!(close(num("data-mean"), e.mean), "{rev}: {tag}");
        assert!(close(num("data-var"), e.var_of_mean()), "{rev}: {tag}");
        assert_eq!(num("data-units") as usize, e.n, "{rev}");
        // Every version in a session of its own: the spread between sessions is unknown.
        assert!(tag.contains(" data-su=\"1\""), "{rev}: {tag}");
    }
    // The comparison the page opens with: the newest version against the last before v10.
    let find = |rev: &str| levels.iter().find(|(r, _)| r == rev).unwrap().1;
    let f = fieller(
        &find("v29"),
        &find("v9"),
        0.95,
        DfMethod::WelchSatterthwaite,
    )
    .unwrap();
    let (lo, hi) = f.bounds().unwrap();
    let at = page.find("<p class=\"cmp-out\"").unwrap();
    let tag = &page[at..at + page[at..].find("</p>").unwrap()];
    let num = |n: &str| attr(tag, n).unwrap().parse::<f64>().unwrap();
    assert!(close(num("data-ratio"), f.ratio) && f.ratio > 1.25, "{tag}");
    assert!(
        close(num("data-lower"), lo) && close(num("data-upper"), hi),
        "{tag}"
    );
    let words = format!(
        "v29 is {:.0}% slower than v9 (95% CI +",
        (f.ratio - 1.0) * 100.0
    );
    assert!(tag.contains(&words), "{tag}");
    // Two sessions that share no version, the spread between them unknown: said.
    assert!(
        tag.contains(": regression (beyond the ±1.0% threshold). Confounded: "),
        "{tag}"
    );
}

/// Sessions tied by anchors: a new session re-estimates every shift, so older levels move and
/// the archive pages that draw them are drawn again; the incremental site still equals one
/// published from scratch, and publishing again with nothing new draws nothing.
#[test]
fn levels_moved_by_a_new_session_redraw_their_pages_and_equal_a_publish_from_scratch() {
    let dir = tempfile::tempdir().unwrap();
    let (inc, fresh) = (dir.path().join("inc"), dir.path().join("fresh"));
    let mut s = spec(24);
    s.sessions = 6;
    s.session_shift = 0.2;
    s.identical = vec![3];
    let mut h = SqliteHistory::open(&dir.path().join("h.db")).unwrap();
    generate(&mut h, &s, &mut |_| {}).unwrap();
    let first = publish(&h, &small(&inc)).unwrap();
    assert_eq!((first.pages, first.archives), (3, 15));
    let view = site_view(&h, SiteMeta::default(), String::new()).unwrap();
    // v11 measured again as the third session's anchor (v5, the second's, failed).
    let PointState::Measured(anchor) = &view.benchmarks[0].series[0].versions[11].state else {
        panic!("v11 not measured");
    };
    assert!(anchor.anchored() && anchor.runs.len() == 2, "{anchor:?}");
    assert!(!anchor.sessions_unknown, "sessions tied by anchors");
    let PointState::Measured(same) = &view.benchmarks[0].series[0].versions[3].state else {
        panic!("v3 not measured");
    };
    assert!(same.identical);
    // Nothing new: nothing drawn, nothing read.
    let again = publish(&h, &small(&inc)).unwrap();
    assert_eq!((again.written, again.runs_read), (0, 0));
    // A fifth session, tied to the fourth by an anchor: older levels move.
    s.versions = 30;
    generate_versions(&mut h, &s, 24..30, &mut |_| {}).unwrap();
    let next = publish(&h, &small(&inc)).unwrap();
    assert_eq!(next.runs_read, 7, "six versions and an anchor");
    assert!(next.written > 3, "archive pages drawn again: {next:?}");
    publish(&h, &small(&fresh)).unwrap();
    assert_same_sites(&inc, &fresh);
}

/// Peak memory's pages (`--metric peak-memory`) over a history whose executions record it:
/// beside each benchmark's wall-time page, with archive pages of their own; their levels are
/// computed from the runs on every publish, yet only what changed is written again, and the
/// incremental site equals one published from scratch. The wall-time pages keep their paths.
#[test]
fn other_metrics_pages_are_republished_incrementally_and_equal_a_publish_from_scratch() {
    use rigor_units::Metric;
    let dir = tempfile::tempdir().unwrap();
    let (inc, fresh) = (dir.path().join("inc"), dir.path().join("fresh"));
    let mut spec = spec(10);
    spec.peak_memory = true;
    let mut h = SqliteHistory::open(&dir.path().join("h.db")).unwrap();
    generate(&mut h, &spec, &mut |_| {}).unwrap();
    let memory = |out: &std::path::Path| PublishSettings {
        metrics: vec![Metric::PeakMemory],
        ..small(out)
    };
    let first = publish(&h, &memory(&inc)).unwrap();
    // 10 versions, archives of 4: one archive page per series and metric.
    assert_eq!((first.pages, first.metric_pages, first.archives), (3, 3, 6));
    assert_eq!(first.written, 12);
    let again = publish(&h, &memory(&inc)).unwrap();
    assert_eq!((again.written, again.removed), (0, 0), "nothing new");
    spec.versions = 11;
    generate_versions(&mut h, &spec, 10..11, &mut |_| {}).unwrap();
    let next = publish(&h, &memory(&inc)).unwrap();
    // Each benchmark's two main pages, no archive page.
    assert_eq!((next.written, next.runs_read), (6, 1));
    let scratch = publish(&h, &memory(&fresh)).unwrap();
    assert_eq!(scratch.written, 12);
    assert_same_sites(&inc, &fresh);
    // The peak-memory page of parse/json: in MiB, its step at version 10 (×1.3) drawn.
    let page = rigor_report::dashboard::page_path("parse/json");
    let path = rigor_report::dashboard::metric_path(&page, &Metric::PeakMemory);
    let html = std::fs::read_to_string(inc.join(&path)).unwrap();
    // v4 at 64 MiB (± the seeded noise), v10 at 1.3 times that.
    assert!(html.contains("level (MiB)"), "{path}");
    assert!(
        html.contains(">64.35 MiB <") && html.contains(">83.40 MiB <"),
        "{path}"
    );
    assert!(!html.contains(" ms") && !html.contains(" µs"));
    // Without --metric the metric's pages go and the wall-time pages are as without them.
    let wall = publish(&h, &small(&inc)).unwrap();
    assert_eq!((wall.metric_pages, wall.removed), (0, 6));
    publish(&h, &small(&fresh.with_extension("wall"))).unwrap();
    assert_same_sites(&inc, &fresh.with_extension("wall"));
}
