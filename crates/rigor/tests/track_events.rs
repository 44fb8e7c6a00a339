//! `rigor track changes` finding a change that hit every benchmark at once (issue #29): a +2.5%
//! shift at one version on sixteen benchmarks, each too noisy to show it alone (each version's
//! level known to about ±2%), is reported as one event listing the benchmarks, with the common
//! change and its interval; the same history without the shift has none.

mod common;

use common::{Dir, sim, stdout_of, track_m_main as track};
use std::path::{Path, PathBuf};

const BENCHMARKS: usize = 16;
const VERSIONS: usize = 16;

/// Version `k`'s results: benchmark `b` at `(1 + b/10)` ms, `shift` higher from version 8 on
/// (but the last `left` benchmarks), each execution within 5% (five executions: each version's
/// level is known to about ±2%).
/// With `own`, benchmark `b00` also steps by `own.1` from version `own.0` on.
fn version_result_with(
    dir: &Dir,
    tag: &str,
    k: usize,
    shift: f64,
    left: usize,
    own: Option<(usize, f64)>,
) -> PathBuf {
    let file = dir.path(&format!("{tag}-v{k}.json"));
    let mut cmd = sim();
    cmd.args(["--seed", &(100 + k).to_string(), "-r", "5"]);
    for b in 0..BENCHMARKS {
        cmd.args(["-n", &format!("b{b:02}")]);
    }
    for b in 0..BENCHMARKS {
        let level = if k >= VERSIONS / 2 && b + left < BENCHMARKS {
            1.0 + shift
        } else {
            1.0
        };
        let own = match own {
            Some((at, step)) if b == 0 && k >= at => 1.0 + step,
            _ => 1.0,
        };
        let micros = (1000.0 + 100.0 * b as f64) * level * own;
        cmd.arg(format!("mean={micros:.1}us,execution=5%"));
    }
    cmd.arg("--export-json").arg(&file).assert().success();
    file
}

fn history(dir: &Dir, tag: &str, shift: f64) -> PathBuf {
    history_leaving(dir, tag, shift, 0)
}

/// [`history`] with the last `left` benchmarks left out of the shift.
fn history_leaving(dir: &Dir, tag: &str, shift: f64, left: usize) -> PathBuf {
    history_with(dir, tag, shift, left, None)
}

/// [`history_leaving`] with benchmark `b00`'s own step ([`version_result_with`]).
fn history_with(
    dir: &Dir,
    tag: &str,
    shift: f64,
    left: usize,
    own: Option<(usize, f64)>,
) -> PathBuf {
    let db = dir.path(&format!("{tag}.db"));
    for k in 0..VERSIONS {
        let file = version_result_with(dir, tag, k, shift, left, own);
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

fn changes_json(db: &Path) -> serde_json::Value {
    serde_json::from_str(&stdout_of(&mut track(db, &["changes", "--json"]))).unwrap()
}

#[test]
fn a_small_shift_on_every_benchmark_is_one_event() {
    let dir = Dir::new();
    let db = history(&dir, "shifted", 0.025);
    let text = stdout_of(&mut track(&db, &["changes"]));
    println!("{text}");
    let json = changes_json(&db);
    let events = json["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{text}");
    let event = &events[0];
    assert_eq!(event["rev"], "v8", "{text}");
    let joint = &event["joint"];
    let ratio = joint["ratio"].as_f64().unwrap();
    let (lower, upper) = (
        joint["interval"][0].as_f64().unwrap(),
        joint["interval"][1].as_f64().unwrap(),
    );
    assert!(lower > 1.01 && lower < ratio && ratio < upper, "{joint}");
    assert!((1.0..1.06).contains(&ratio), "{joint}");
    assert_eq!(joint["tested"], BENCHMARKS);
    let moved = joint["moved"].as_array().unwrap();
    assert!(2 * moved.len() >= BENCHMARKS, "{joint}");
    // Individually insignificant: most benchmarks' own detection did not find the shift.
    let alone = moved.iter().filter(|m| m["alone"] == true).count();
    assert!(4 * alone <= moved.len(), "{alone} found it alone: {joint}");
    // Each benchmark it moved is one of its changes, marked as the event's; no other change
    // is reported but, possibly, one at the newest version, which detection tests alone (a
    // one-version segment: every version here is a session of its own, so such a change is
    // confounded, and the next version decides it).
    let all = json["changes"].as_array().unwrap();
    let changes: Vec<&serde_json::Value> = all.iter().filter(|c| c["rev"] == "v8").collect();
    for other in all.iter().filter(|c| c["rev"] != "v8") {
        assert_eq!(other["rev"], format!("v{}", VERSIONS - 1), "{text}");
        assert_eq!(other["evidence"], "confounded", "{text}");
    }
    assert!(all.len() <= changes.len() + 1, "{text}");
    assert_eq!(changes.len(), moved.len(), "{text}");
    assert_eq!(event["changes"].as_array().unwrap().len(), moved.len());
    for c in changes {
        assert_eq!(c["rev"], "v8");
        assert_eq!(c["verdict"], "regression");
        assert!(c["method"].as_str().unwrap().starts_with("joint test"));
    }
    // The terminal says it as one event with the common change and each benchmark's.
    assert!(
        text.contains(&format!(
            "Event: {} of {BENCHMARKS} benchmarks on m (main) moved together at v8",
            moved.len()
        )),
        "{text}"
    );
    assert!(
        text.contains("confounded with a session boundary"),
        "{text}"
    );
    // Every version was added in a session of its own, so the shift cannot be told from one
    // between sessions: confounded, as each benchmark's own change would be; `--fail-on
    // confounded` fails on it.
    assert_eq!(joint["confounded"], true);
    track(&db, &["changes", "--fail-on", "confounded"])
        .assert()
        .code(1);
}

#[test]
fn without_a_shift_there_is_no_event() {
    let dir = Dir::new();
    let db = history(&dir, "flat", 0.0);
    let json = changes_json(&db);
    assert_eq!(json["events"].as_array().unwrap().len(), 0, "{json}");
    // (A benchmark's own detection may still report a change of its own.)
    for c in json["changes"].as_array().unwrap() {
        assert!(
            !c["method"].as_str().unwrap().starts_with("joint test"),
            "{c}"
        );
    }
}

/// An event lists the benchmarks the shift moved, not those it left that stepped its way by
/// noise: a +5% shift on 12 of 16 benchmarks lists those 12 (each stored as the event's change)
/// and none of the other 4 (their steps within about ±1%, well inside half the shift).
#[test]
fn an_event_lists_only_the_benchmarks_it_moved() {
    let dir = Dir::new();
    let left = 4;
    let db = history_leaving(&dir, "left", 0.05, left);
    let text = stdout_of(&mut track(&db, &["changes"]));
    let json = changes_json(&db);
    let events = json["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{text}");
    let joint = &events[0]["joint"];
    assert_eq!(joint["tested"], BENCHMARKS);
    let mut moved: Vec<&str> = joint["moved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["benchmark"].as_str().unwrap())
        .collect();
    moved.sort_unstable();
    let shifted: Vec<String> = (0..BENCHMARKS - left).map(|b| format!("b{b:02}")).collect();
    assert_eq!(moved, shifted, "{text}");
    for c in json["changes"].as_array().unwrap() {
        if c["method"].as_str().unwrap().starts_with("joint test") {
            assert!(shifted.iter().any(|b| c["benchmark"] == **b), "{c}");
        }
    }
    // Every version is a session of its own, whose shift can move where the step fits by a
    // version (with these seeds, to v7).
    let rev = events[0]["rev"].as_str().unwrap();
    assert!(["v7", "v8"].contains(&rev), "{text}");
    assert!(
        text.contains(&format!(
            "Event: {} of {BENCHMARKS} benchmarks on m (main) moved together at {rev}",
            BENCHMARKS - left
        )),
        "{text}"
    );
}

/// `rigor track run` lists the events among its changes as `track changes` does, and confirms
/// a change detected anew once its confirmations joined the history: with this seed, six of
/// eight benchmarks step +4% at v20, one of them is first detected at v18 (refuted when both
/// sides are measured together), then at v19 (refuted), then at v20, where it is confirmed —
/// not left in the table as merely detected a version off.
#[test]
fn track_run_lists_its_events_and_confirms_a_change_placed_again() {
    let dir = Dir::new();
    let mut project = "versions=30,session=2%".to_string();
    for b in 1..=6 {
        project.push_str(&format!(",step=20:+4%@{b}"));
    }
    let out = common::rigor()
        .current_dir(dir.0.path())
        .args(["track", "--db", "h.db", "run", "--last", "30"])
        .args(["--seed", "6418143467301894", "--machine", "m", "--simulate"])
        .arg(&project)
        .arg("--")
        .args(["mean=10ms,execution=3%"; 8])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    let what = format!("{stdout}\n{stderr}");
    assert!(
        stderr.contains("rigor: confirming 1 change(s) detected anew"),
        "{what}"
    );
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("mean=10ms,execution=3% #"))
        .collect();
    assert!(rows.len() >= 4, "{what}");
    for row in &rows {
        assert!(
            row.contains("v20") && row.contains("confirmed"),
            "{row}\n{what}"
        );
    }
    assert!(rows.iter().any(|r| r.contains("% #1 ")), "{what}");
    assert!(
        stdout.contains(&format!(
            "{} of 8 benchmarks on m (main) moved together at v20",
            rows.len()
        )),
        "{what}"
    );
}

/// A benchmark's own change a few versions after an event, searched again with the event's
/// version held, is still reported where it is and not as the event's: b00 steps +12% at
/// v12, four versions after every benchmark's +5% shift at v8 (beyond the joint scan's reach
/// of 3 versions, so b00 is searched again). (Here its own data place it right alone too; the
/// histories where they do not are the change-detection study's, docs/validation/history.md.)
#[test]
fn an_own_change_beside_an_event_is_placed_on_its_own() {
    let dir = Dir::new();
    let db = history_with(&dir, "beside", 0.05, 0, Some((12, 0.12)));
    let text = stdout_of(&mut track(&db, &["changes"]));
    let json = changes_json(&db);
    let events = json["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{text}");
    let rev = events[0]["rev"].as_str().unwrap();
    assert!(["v7", "v8"].contains(&rev), "{text}");
    let b00: Vec<&serde_json::Value> = json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["benchmark"] == "b00")
        .collect();
    let own: Vec<&str> = b00
        .iter()
        .filter(|c| !c["method"].as_str().unwrap().starts_with("joint test"))
        .map(|c| c["rev"].as_str().unwrap())
        .collect();
    assert!(
        own.iter().any(|r| ["v11", "v12", "v13"].contains(r)),
        "b00's own changes {own:?}: {text}"
    );
    assert!(
        own.iter().all(|r| !["v9", "v10"].contains(r)),
        "b00's own changes {own:?}: {text}"
    );
}
