//! The metrics study's machinery (docs/validation/metrics.md): the CPU hog's guard kills its
//! busy loops, also while a panic unwinds, and a tiny study through rigor's run use case on real
//! processes writes its tables. Not its figures: those need the full study on a known machine.

use std::path::Path;
use std::process::Command;

use rigor_stats::compare::Verdict;
use rigor_validation::metrics::{self, Compared, Hog, Programs, StudySizes};

fn have_gcc() -> bool {
    let ok = Command::new("gcc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIP: gcc is needed");
    }
    ok
}

/// Whether process `pid` exists and is not a zombie (Linux's /proc).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            let state = s.rsplit_once(')')?.1.split_whitespace().next()?.to_string();
            Some(state != "Z" && state != "X")
        })
        .unwrap_or(false)
}

#[test]
fn the_hog_guard_kills_its_busy_loops_when_dropped() {
    if !have_gcc() || !Path::new("/proc/self/stat").exists() {
        return;
    }
    let programs = Programs::compile().expect("the study's programs compile");
    let mut hog = Hog::start(&programs.hog, 2).expect("the hog starts");
    let pids = hog.pids();
    assert_eq!(pids.len(), 2);
    hog.check().expect("both busy loops are running");
    assert!(pids.iter().all(|&p| running(p)), "busy loops {pids:?}");
    drop(hog);
    assert!(
        pids.iter().all(|&p| !running(p)),
        "busy loops {pids:?} still running after the guard was dropped"
    );
}

#[test]
fn the_hog_guard_kills_its_busy_loops_when_the_study_panics() {
    if !have_gcc() || !Path::new("/proc/self/stat").exists() {
        return;
    }
    let programs = Programs::compile().expect("the study's programs compile");
    let pids = std::sync::Mutex::new(Vec::new());
    let unwound = std::panic::catch_unwind(|| {
        let hog = Hog::start(&programs.hog, 2).expect("the hog starts");
        pids.lock().unwrap().extend(hog.pids());
        panic!("a failure in the middle of a run under load");
    });
    assert!(unwound.is_err());
    let pids = pids.into_inner().unwrap();
    assert_eq!(pids.len(), 2);
    assert!(
        pids.iter().all(|&p| !running(p)),
        "busy loops {pids:?} outlived the panic"
    );
}

#[test]
fn a_comparison_turned_round_swaps_its_verdict_and_inverts_its_interval() {
    let c = Compared {
        old: 0.030,
        new: 0.060,
        ratio: 2.0,
        interval: Some((1.6, 2.5)),
        verdict: Verdict::Regression,
    };
    let r = c.inverted();
    assert_eq!((r.old, r.new, r.ratio), (0.060, 0.030, 0.5));
    assert_eq!(r.interval, Some((0.4, 0.625)));
    assert_eq!(r.verdict, Verdict::Improvement);
    assert!(r.alarm() && c.alarm());
    let open = Compared {
        verdict: Verdict::Inconclusive,
        interval: None,
        ..c
    };
    assert_eq!(open.inverted().verdict, Verdict::Inconclusive);
    assert_eq!(open.inverted().interval, None);
    assert!(!open.alarm());
}

/// Three executions per run, one pair per program and condition, one busy loop: the tables are
/// written with every row, whatever the figures.
#[test]
fn a_tiny_study_writes_every_table() {
    if !have_gcc() {
        return;
    }
    let study = metrics::study(StudySizes::tiny(), 7, 1, false).expect("the tiny study runs");
    assert_eq!(study.programs.len(), 2);
    assert_eq!(study.pairs.len(), 2 * 3);
    assert_eq!(study.shifts.len(), 3);
    for p in &study.pairs {
        let (w, c) = (&p.compared.wall, &p.compared.cpu);
        assert!(w.old > 0.0 && w.new > 0.0 && c.old > 0.0 && c.new > 0.0);
        // The work-and-sleep program sleeps: its wall time exceeds its CPU time.
        if p.program == 1 {
            assert!(w.old > c.old, "{w:?} {c:?}");
        }
    }
    let page = metrics::report(&study);
    for heading in [
        "# Wall time and CPU time under load",
        "## How far the mean moves",
        "## A/A false alarms",
        "## What it shows",
        "Master seed 7",
        "-- metrics --seed 7 --pairs 1`",
    ] {
        assert!(page.contains(heading), "missing {heading:?} in:\n{page}");
    }
    for condition in metrics::Condition::ALL {
        assert_eq!(
            page.matches(&format!("| {} |", condition.name())).count(),
            2,
            "one row per program for {condition:?}"
        );
    }
    assert_eq!(page.matches("| CPU-bound | under the hog").count(), 2);
    assert_eq!(page.matches("ms more sleep / as before").count(), 2);
}
