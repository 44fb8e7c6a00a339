//! Tests of `conditions`.

use super::*;

#[test]
fn the_tolerance_is_half_the_threshold_and_conditions_bear_on_times_alone() {
    assert_eq!(share_tolerance(0.01), 0.005);
    assert_eq!(share_tolerance(0.05), 0.025);
    assert_eq!(share_tolerance(0.0), 0.005);
    assert!(bear_on(&Metric::Wall) && bear_on(&Metric::Cpu));
    assert!(!bear_on(&Metric::Instructions) && !bear_on(&Metric::PeakMemory));
}

#[test]
fn a_share_warning_concerns_its_benchmark_and_a_load_warning_every_one() {
    let contended = Warning::ContentionDiffers {
        benchmark: "parse".into(),
        against: ComparedWith::OldResult,
        candidate: 510,
        candidate_high: None,
        others_low: 997,
        others_high: 997,
    };
    assert!(concerns(&contended, "parse"));
    assert!(!concerns(&contended, "render"));
    let busy = Warning::LoadDiffers {
        candidate: 300,
        history_low: 10,
        history_high: 20,
        cpus: 2,
    };
    assert!(concerns(&busy, "parse") && concerns(&busy, "render"));
    let others = Warning::OthersDiffer {
        against: ComparedWith::OldResult,
        candidate: 120,
        others_low: 2,
        others_high: 2,
        cpus: 2,
    };
    assert!(concerns(&others, "parse") && concerns(&others, "render"));
}

/// A result of one benchmark whose executions took (CPU, wall, run-queue delay) seconds, on
/// 2 CPUs, with what others used over it unknown.
fn measured(times: &[(f64, f64, Option<f64>)]) -> ResultFile {
    let mut r = ResultFile::new(rigor_units::Seed(1), Default::default());
    r.environment.cpus = 2;
    let mut b =
        rigor_store::BenchmarkRecord::new("b", "./b", rigor_store::Layout::new(false, true));
    b.executions = times
        .iter()
        .enumerate()
        .map(|(i, &(cpu, wall, delay))| rigor_store::ExecutionRecord {
            run_delay: delay.map(rigor_units::Seconds::new),
            round: i,
            execution: i,
            wall: rigor_units::Seconds::new(wall),
            user: rigor_units::Seconds::new(cpu),
            ..Default::default()
        })
        .collect();
    r.benchmarks.push(b);
    r
}

/// Ten executions of `wall` seconds, a CPU for `share` of it, waiting for one `waited` of
/// it (with a little spread), or not told.
fn run(wall: f64, share: f64, waited: Option<f64>) -> ResultFile {
    let times: Vec<(f64, f64, Option<f64>)> = (0..10)
        .map(|i| {
            let jitter = 1.0 + 0.001 * f64::from(i % 3);
            (
                share * wall * jitter,
                wall * jitter,
                waited.map(|w| w * wall * jitter),
            )
        })
        .collect();
    measured(&times)
}

fn judged(new: &ResultFile, old: &ResultFile) -> Vec<Warning> {
    contention(
        new,
        &shares_of([old]),
        0.005,
        ComparedWith::OldResult,
        Sides::default(),
    )
    .warnings
}

/// Neither side known quiet (what others used not measured): a program that sleeps (a CPU
/// 32% of its time) against one that computes (99%) was taken for contention and its
/// verdict withheld, whichever was slower. Where both runs' executions tell how long they
/// waited for a CPU, and that is alike (0.05% of their time), the gap in CPU share is the
/// program's own waiting: a note, the verdict standing. Where they waited apart (40% of the
/// time beside busy loops) the verdict is withheld on that ground even if the CPU shares are
/// alike; where a side does not tell, the CPU share decides as before.
#[test]
fn the_run_queue_tells_contention_from_a_programs_own_waiting() {
    let sleeps = run(0.05, 0.32, Some(0.0005));
    let computes = run(0.005, 0.99, Some(0.0005));
    match &judged(&sleeps, &computes)[..] {
        [
            Warning::WaitsDiffer {
                candidate: 320,
                queued: Some(q),
                ..
            },
        ] => assert_eq!((q.candidate, q.others_low, q.others_high), (1, 1, 1)),
        other => panic!("{other:?}"),
    }
    assert!(judged(&sleeps, &computes).iter().all(|w| !concerns(w, "b")));
    // Contention the CPU share does not show: a program that also waits on its own (a CPU
    // 80% of its time, quiet) kept that share beside a neighbour, waiting 15% of its time
    // for a CPU (and 15% less on its own).
    let contended = run(0.1, 0.8, Some(0.15));
    let quiet = run(0.1, 0.8, Some(0.001));
    assert!(judged(&contended, &run(0.1, 0.8, None)).is_empty());
    let found = judged(&contended, &quiet);
    assert!(
        matches!(
            &found[..],
            [Warning::QueueDiffers {
                candidate: 150,
                others_low: 1,
                ..
            }]
        ),
        "{found:?}"
    );
    assert!(concerns(&found[0], "b"));
    assert!(
        found[0].to_string().contains("15.0% of its wall time"),
        "{}",
        found[0]
    );
    // Without the run queue on one side, the CPU share decides: withheld as before.
    let untold = run(0.005, 0.99, None);
    assert!(matches!(
        &judged(&sleeps, &untold)[..],
        [Warning::ContentionDiffers { .. }]
    ));
}

/// Contention that hit a few executions of one side (three of ten waited 45% of their
/// time, the rest 0.1%: a mean of 13.6%, too spread to differ at 95%) is not shown apart,
/// and the CPU shares' medians are alike; the mean shares lie apart all the same, and that
/// much is in the wall times: a warning says so (it had said nothing), the verdict
/// standing. Shares apart by less than the tolerance say nothing.
#[test]
fn contention_on_a_few_executions_is_said_without_withholding() {
    let hit = |waited: f64| -> ResultFile {
        let times: Vec<(f64, f64, Option<f64>)> = (0..10)
            .map(|i| {
                let (wall, delay) = if i < 3 {
                    (0.02 / 0.55, waited * 0.02 / 0.55)
                } else {
                    (0.02, 0.001 * 0.02)
                };
                (0.0198 * (1.0 + 0.001 * f64::from(i % 3)), wall, Some(delay))
            })
            .collect();
        measured(&times)
    };
    let quiet = run(0.02, 0.99, Some(0.001));
    let found = judged(&hit(0.45), &quiet);
    assert!(
        matches!(
            &found[..],
            [Warning::WaitedUnevenly {
                candidate: 136,
                others_low: 1,
                ..
            }]
        ),
        "{found:?}"
    );
    assert!(!concerns(&found[0], "b") && !found[0].is_note());
    assert!(
        found[0]
            .to_string()
            .contains("for 13.6% of its wall time in the new result and for 0.1% in the old"),
        "{}",
        found[0]
    );
    // The other way round too; and a few executions that waited little say nothing.
    assert!(matches!(
        &judged(&quiet, &hit(0.45))[..],
        [Warning::WaitedUnevenly { .. }]
    ));
    assert!(judged(&hit(0.005), &quiet).is_empty());
}

/// A side is known quiet or busy only where every one of its runs measured what others
/// used, and all of them fall on one side of half the CPUs; only then do the sides differ.
#[test]
fn others_use_is_known_only_where_every_run_measured_it() {
    let runs = |u: &[Option<f64>]| OthersUse::of_runs(u.iter().copied(), 2);
    assert!(runs(&[Some(0.1), Some(0.9)]).quiet());
    assert!(!runs(&[Some(0.1), Some(1.0)]).quiet() && !runs(&[Some(0.1), Some(1.0)]).busy());
    assert!(runs(&[Some(1.0), Some(1.9)]).busy());
    for unknown in [runs(&[Some(0.1), None]), runs(&[]), runs(&[Some(f64::NAN)])] {
        assert!(!unknown.quiet() && !unknown.busy());
    }
    let differ = |candidate, others| Sides { candidate, others }.differ(ComparedWith::Baseline);
    assert!(differ(runs(&[Some(1.2)]), runs(&[Some(0.0), Some(0.3)])).is_some());
    assert!(differ(runs(&[Some(0.0)]), runs(&[Some(1.5)])).is_some());
    assert!(differ(runs(&[Some(1.2)]), runs(&[Some(0.0), Some(1.3)])).is_none());
    assert!(differ(runs(&[Some(1.2)]), runs(&[Some(0.0), None])).is_none());
    assert!(differ(runs(&[Some(0.1)]), runs(&[Some(0.2)])).is_none());
}
