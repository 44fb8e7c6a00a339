//! The sessions study (docs/validation/sessions.md): its scoring on hand-made cases, and a tiny
//! study through rigor's real `track` pipeline (a few seconds).

use rigor_app::simulated_project::{SimProject, SimStep};
use rigor_validation::sessions::{
    CellResult, Cost, Detection, METHODS, Study, StudySizes, Tally, Truth, check_trials, report,
    study, tally,
};

fn confounded(version: usize) -> Detection {
    Detection {
        version,
        confounded: true,
    }
}

/// Two benchmarks of 50 versions, with what a method found counted by hand.
#[test]
fn rates_are_counted_as_defined() {
    let truth = Truth {
        versions: 50,
        steps: vec![vec![(10, 0.06), (30, -0.03)], vec![(20, 0.02), (45, -0.05)]],
    };
    let found = vec![
        vec![
            Detection::reported(11), // finds the 6% step at 10
            Detection::reported(25), // 5 versions from 30: a false alarm
            confounded(31),          // near 30 but confounded: not found, counted apart
            confounded(40),          // confounded, away from every step
        ],
        vec![
            Detection::reported(18), // 2 versions from 20: finds it
            Detection::reported(48), // 3 versions from 45: a false alarm, and 45 is missed
        ],
    ];
    let t = tally(&truth, &found);
    assert_eq!(
        t,
        Tally {
            projects: 1,
            pairs: 98,
            false_alarms: 2,
            confounded_far: 1,
            confounded_near: 1,
            steps_5: 2,
            found_5: 1,
            steps_2: 4,
            found_2: 2,
        }
    );
    assert!((t.false_alarms_per_1000() - 2000.0 / 98.0).abs() < 1e-9);
    assert!((t.confounded_per_1000() - 1000.0 / 98.0).abs() < 1e-9);
    assert_eq!((t.recall_5(), t.recall_2()), (0.5, 0.5));
    // A benchmark with nothing found misses every step and raises nothing.
    let none = tally(&truth, &[]);
    assert_eq!((none.false_alarms, none.found_2, none.steps_2), (0, 0, 4));
}

/// A project's truth per benchmark: steps of every benchmark and each one's own.
#[test]
fn the_truth_of_a_project_is_per_benchmark() {
    let project = SimProject {
        versions: 30,
        steps: vec![
            SimStep {
                version: 20,
                factor: 0.95,
                benchmark: None,
            },
            SimStep {
                version: 8,
                factor: 1.1,
                benchmark: Some(1),
            },
        ],
        identical: vec![2..=4],
        session_sd: 0.1,
        load: (0.5, 0.5),
    };
    let t = Truth::of(&project, 2);
    assert_eq!(t.steps[0].len(), 1);
    assert_eq!(t.steps[1].iter().map(|s| s.0).collect::<Vec<_>>(), [8, 20]);
    assert!((t.steps[0][0].1 + 0.05).abs() < 1e-12);
}

/// Pooling over cells adds their counts; costs are relative to the versions' own measuring.
#[test]
fn cells_pool_by_session_spread() {
    let cost = |versions: f64, anchors: f64, confirmations: f64| Cost {
        versions,
        anchors,
        confirmations,
    };
    let cell = |sigma: f64, batch: usize, false_alarms: usize, two: Cost| CellResult {
        sigma,
        batch,
        seed: 1,
        tallies: vec![Tally {
            projects: 2,
            pairs: 1000,
            false_alarms,
            ..Tally::default()
        }],
        cost: [two, cost(two.versions, 2.0 * two.anchors, 0.0)],
        failed: Vec::new(),
        dropped: [0; 3],
    };
    let s = Study {
        seed: 1,
        methods: vec!["m".into()],
        cells: vec![
            cell(0.1, 5, 1, cost(10.0, 4.0, 1.0)),
            cell(0.1, 10, 2, cost(10.0, 2.0, 1.0)),
            cell(0.2, 5, 4, cost(20.0, 8.0, 0.0)),
        ],
        seconds: 0.0,
    };
    assert_eq!(s.pooled(0, Some(0.1)).false_alarms, 3);
    assert_eq!(s.pooled(0, Some(0.1)).pairs, 2000);
    assert_eq!(s.pooled(0, None).false_alarms, 7);
    assert!((s.pooled(0, None).false_alarms_per_1000() - 7.0 / 3.0).abs() < 1e-12);
    assert_eq!(s.relative_cost(None, Some(5), 0), (12.0 / 30.0, 1.0 / 30.0));
    assert_eq!(s.relative_cost(Some(0.1), None, 0), (0.3, 0.1));
    assert_eq!(s.relative_cost(Some(0.1), None, 1), (0.6, 0.0));
}

/// A tiny study through the real pipeline: every project measured and scored by every method,
/// the candidate checks run, and the page written.
#[test]
fn a_tiny_study_runs_through_the_pipeline() {
    let sizes = StudySizes::tiny();
    let s = study(&sizes, 7, None, false);
    assert_eq!(s.cells.len(), 1);
    let c = &s.cells[0];
    assert!(c.failed.is_empty(), "{:?}", c.failed);
    assert_eq!(c.tallies.len(), METHODS.len());
    for t in &c.tallies {
        assert_eq!(t.projects, sizes.projects);
        assert!(t.pairs >= 2 * 29 && t.steps_2 > 0, "{t:?}");
        assert_eq!(t.pairs, c.tallies[0].pairs);
    }
    // Anchors cost something, and the versions' own measuring is there to compare with.
    for k in 0..2 {
        assert!(
            c.cost[k].versions > 0.0 && c.cost[k].anchors > 0.0,
            "{:?}",
            c.cost
        );
    }
    assert!(c.cost[1].anchors > c.cost[0].anchors, "{:?}", c.cost);
    let (same, plus5, _) = check_trials(0.2, 2, 7);
    assert_eq!(same.trials, 2);
    assert_eq!(
        same.regressions + same.improvements + same.failed,
        0,
        "{same:?}"
    );
    assert_eq!(plus5.failed, 0, "{plus5:?}");
    let page = report(&sizes, 7, None, None, false);
    assert!(page.contains("## Targets") && page.contains("master seed 7"));
    assert!(page.contains("## What the numbers say"));
    assert!(page.contains("`track check --candidate`"));
}
