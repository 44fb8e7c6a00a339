//! Tests of `bench`.

use super::*;

/// A pair `--against` cannot compare (a minimum of 0: the first sample of each execution
/// below the clock's step) is named by the builds' names in its warning, not as the old and
/// new file of a comparison; the other pair stands.
#[test]
fn a_pair_against_the_other_build_that_cannot_be_compared_is_named_by_its_builds() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/against_zero_minimum.json");
    let mut request = RunRequest {
        commands: vec!["mean=1ms".into()],
        simulate: true,
        ..RunRequest::default()
    };
    request.comparison.estimator = rigor_stats::Estimator::Min;
    let settings = request.resolve().unwrap().settings;
    let compared = against_compared(&file, "other", &settings).unwrap();
    assert_eq!(compared.comparisons.len(), 1);
    assert_eq!(compared.comparisons[0].candidate, "steady");
    let said: Vec<String> = compared.warnings.iter().map(ToString::to_string).collect();
    assert!(
        said.iter()
            .any(|w| w.contains("'zero' could not be compared with 'zero @ other'")),
        "{said:?}"
    );
    assert!(
        !said
            .iter()
            .any(|w| w.contains("(new)") || w.contains("(old)")),
        "{said:?}"
    );
}

/// `--against` compares the metric asked for, as `--baseline` does and as the summaries
/// show it: the same executions compared by CPU time give the CPU times' ratio, where wall
/// time would find no difference (it had compared wall time whatever `--metric` said).
#[test]
fn against_compares_the_metric_asked_for() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/against_zero_minimum.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    // Same samples on both sides; this build's processes take twice the other's CPU time.
    for b in json["benchmarks"].as_array_mut().unwrap() {
        let cpu = match b["name"].as_str().unwrap() {
            "steady" => 0.002,
            "steady @ other" => 0.001,
            _ => continue,
        };
        for e in b["executions"].as_array_mut().unwrap() {
            e["user"] = serde_json::json!(cpu);
            e["sys"] = serde_json::json!(0.0);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("both.json");
    std::fs::write(&file, json.to_string()).unwrap();
    let ratio = |metric: Option<rigor_units::Metric>| {
        let mut request = RunRequest {
            commands: vec!["mean=1ms".into()],
            simulate: true,
            metrics: metric.into_iter().collect(),
            ..RunRequest::default()
        };
        request.comparison.estimator = rigor_stats::Estimator::Min;
        let settings = request.resolve().unwrap().settings;
        let compared = against_compared(&file, "other", &settings).unwrap();
        let steady = compared
            .comparisons
            .iter()
            .find(|c| c.candidate == "steady")
            .unwrap();
        (compared.metric.clone(), steady.comparison.ratio)
    };
    let (metric, cpu) = ratio(Some(rigor_units::Metric::Cpu));
    assert_eq!(metric, rigor_units::Metric::Cpu);
    assert!((cpu - 2.0).abs() < 1e-9, "{cpu}");
    let (metric, wall) = ratio(None);
    assert_eq!(metric, rigor_units::Metric::Wall);
    assert!((wall - 1.0).abs() < 1e-9, "{wall}");
}

fn selected(name: &str, listed: Listed) -> Selected {
    Selected {
        name: name.into(),
        function: name.into(),
        target: Target {
            name: "t".into(),
            executable: "/x/t".into(),
            dir: "/p".into(),
        },
        listed,
    }
}

/// `fib` alone; `sort/std/10` and `sort/std/1000` of the group `sort`, whose settings are 7
/// samples, 3 evaluations and no warm-up.
fn suite() -> Vec<Selected> {
    let sort = |input: &str| Listed {
        name: format!("sort/std/{input}"),
        group: Some("sort".into()),
        function: Some("std".into()),
        input: Some(input.into()),
        samples: Some(7),
        evals: Some(3),
        warm_up_s: Some(0.0),
    };
    vec![
        selected("fib", Listed::named("fib")),
        selected("sort/std/10", sort("10")),
        selected("sort/std/1000", sort("1000")),
    ]
}

/// `--until-decided` compares each benchmark with the first: with one benchmark and its
/// other build that is the pair; with more it would compare every benchmark with the first
/// one's other build (a new user saw `sort_100` "857× slower than mix @ HEAD~1"), so it is
/// refused with what to use instead.
#[test]
fn until_decided_against_another_build_takes_one_benchmark() {
    let suite = suite();
    let decided = || RunRequest {
        until_decided: true,
        ..request(None)
    };
    let one = settings_against(&suite[..1], &suite, &[9], decided(), "HEAD~1").unwrap();
    assert_eq!(one.0.settings.benchmarks.len(), 2);
    let e = settings_against(&suite, &suite, &[9, 3, 3], decided(), "HEAD~1")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("(3 benchmarks selected)") && e.contains("--exact"),
        "{e}"
    );
}

/// `rigor bench --export-json` writes rigor's format, as it always has: hyperfine has no
/// `bench`, so the note meant for hyperfine's option names is not said at every run. A
/// layout run (`--builds`) runs each build's executable by index, its builds in shared
/// rounds, and records the build command that made them.
#[test]
fn a_bench_run_says_nothing_of_hyperfine_and_layouts_share_rounds() {
    let mut q = request(None);
    q.exports.json = Some("r.json".into());
    let r = settings(&suite(), &[9, 3, 3], q).unwrap();
    assert!(
        !r.notes.iter().any(|n| matches!(n, Note::OwnFormats(_))),
        "{:?}",
        r.notes
    );
    assert!(r.settings.runner.build.is_none());
    let mut layouts = suite();
    for s in &mut layouts {
        s.target.executable = format!("/x/rigor-layouts/here/{BUILD_PLACEHOLDER}/t").into();
    }
    let q = RunRequest {
        builds: Some(3),
        executions: Some(2),
        ..request(None)
    };
    let r = settings(&layouts, &[9, 3, 3], q).unwrap();
    let build = r.settings.runner.build.as_ref().unwrap();
    assert_eq!(build.builds, 3);
    assert!(build.interleaved);
    assert!(
        r.settings
            .record
            .build
            .as_deref()
            .unwrap()
            .contains("--shuffle-sections"),
        "{:?}",
        r.settings.record.build
    );
    assert!(r.settings.commands[0].starts_with("/x/rigor-layouts/here/{build}/t "));
}

fn request(iterations: Option<usize>) -> RunRequest {
    RunRequest {
        seed: Some(rigor_units::Seed(1)),
        iterations,
        ..RunRequest::default()
    }
}

#[test]
fn a_baselines_evaluations_are_kept_unless_far_above_the_tuned_ones() {
    assert_eq!(kept_or_tuned(None, 37), 37);
    assert_eq!(kept_or_tuned(Some(182), 13), 182);
    assert_eq!(kept_or_tuned(Some(13), 182), 13);
    assert_eq!(kept_or_tuned(Some(16 * 13), 13), 208);
    assert_eq!(kept_or_tuned(Some(16 * 13 + 1), 13), 13);
    assert_eq!(kept_or_tuned(Some(u64::MAX), u64::MAX / 2), u64::MAX);
}

#[test]
fn a_groups_settings_reach_its_benchmarks_unless_the_command_line_replaces_them() {
    let suite = suite();
    // Its evaluations are not tuned (no harness is run here: tuning would fail).
    let mut told = Vec::new();
    assert_eq!(
        evals(
            &suite[1..],
            None,
            &Default::default(),
            &RunRequest::default(),
            &mut |n| told.push(n)
        )
        .unwrap(),
        [Some(3), Some(3)]
    );
    assert!(told.is_empty(), "{told:?}");
    assert_eq!(
        evals(
            &suite,
            Some(5),
            &Default::default(),
            &RunRequest::default(),
            &mut |_| {}
        )
        .unwrap(),
        [Some(5), Some(5), Some(5)]
    );

    let r = settings(&suite, &[9, 3, 3], request(None)).unwrap();
    let s = &r.settings;
    let iterations: Vec<_> = s.benchmarks.iter().map(|b| b.iterations).collect();
    assert_eq!(iterations, [None, Some(7), Some(7)]);
    assert!(
        s.benchmarks[1]
            .command
            .argv()
            .ends_with(&["--evals".into(), "3".into()])
    );
    let notes = group_notes(&suite, s, false);
    assert_eq!(
        notes.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "group 'sort' (2 benchmarks): 7 samples per execution, 3 evaluations per sample, \
          no warm-up"
        ]
    );
    // --iterations and --evals replace the group's, and the note says so.
    let r = settings(&suite, &[5, 5, 5], request(Some(4))).unwrap();
    assert!(r.settings.benchmarks.iter().all(|b| b.iterations.is_none()));
    assert_eq!(r.settings.runner.iterations_per_execution, Some(4));
    assert_eq!(
        group_notes(&suite, &r.settings, true)[0].to_string(),
        "group 'sort' (2 benchmarks): no warm-up; --iterations replaces its 7 samples per \
         execution; --evals replaces its 3 evaluations per sample"
    );
}

#[test]
fn benchmarks_with_inputs_carry_their_function_and_input_as_parameters() {
    let mut suite = suite();
    suite.push(selected(
        "sum/10",
        Listed {
            function: Some("sum".into()),
            input: Some("10".into()),
            ..Listed::named("sum/10")
        },
    ));
    let r = settings(&suite, &[1, 1, 1, 1], request(None)).unwrap();
    let p: Vec<Vec<(&str, &str)>> = r
        .settings
        .parameters
        .iter()
        .map(|m| m.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect())
        .collect();
    assert_eq!(
        p,
        [
            vec![],
            vec![("function", "sort/std"), ("group", "sort"), ("input", "10")],
            vec![
                ("function", "sort/std"),
                ("group", "sort"),
                ("input", "1000")
            ],
            vec![("function", "sum"), ("input", "10")],
        ]
    );
    // Without inputs, no parameters at all (as before groups).
    let r = settings(&suite[..1], &[1], request(None)).unwrap();
    assert!(r.settings.parameters.iter().all(|m| m.is_empty()));
}
