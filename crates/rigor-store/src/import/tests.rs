use std::path::Path;

use super::*;

fn sniffed(text: &str) -> Option<Format> {
    sniff(Path::new("f"), text).ok()
}

#[test]
fn sniffs_each_shape() {
    assert_eq!(
        sniffed(r#"{"results":[{"command":"a","times":[1]}]}"#),
        Some(Format::Hyperfine)
    );
    assert_eq!(
        sniffed(r#"{"version":"1.0","benchmarks":[]}"#),
        Some(Format::Pyperf)
    );
    assert_eq!(
        sniffed(r#"{"context":{},"benchmarks":[]}"#),
        Some(Format::GoogleBenchmark)
    );
    assert_eq!(
        sniffed(r#"[{"benchmark":"a","primaryMetric":{}}]"#),
        Some(Format::Jmh)
    );
    assert_eq!(
        sniffed(r#"[{"Julia":"1","BenchmarkTools":"1"},[]]"#),
        Some(Format::BenchmarkTools)
    );
    assert_eq!(
        sniffed(r#"{"sampling_mode":"Linear","iters":[1],"times":[2]}"#),
        Some(Format::Criterion)
    );
    assert_eq!(sniffed(r#"{"wallclock_times":{}}"#), Some(Format::Krun));
    assert_eq!(
        sniffed("{\"reason\":\"group-complete\"}\n{\"reason\":\"benchmark-complete\"}\n"),
        Some(Format::CargoCriterion)
    );
    assert_eq!(
        sniffed("# c\n1\t1\t2.5\tms\ttotal\tA\tE\tS\n"),
        Some(Format::Rebench)
    );
    assert_eq!(sniffed(r#"{"schema_version":2}"#), Some(Format::Rigor));
    assert_eq!(sniffed(r#"{"something":"else"}"#), None);
    assert_eq!(sniffed("[]"), None);
}

#[test]
fn json_paths_name_odd_keys() {
    let text = r#"{"wallclock_times":{"nbody:CPython:x":[[0.5,"slow"]]}}"#;
    let e = parse(Path::new("k.json"), text, None)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        r#"k.json: wallclock_times["nbody:CPython:x"][0][1]: expected a number, found "slow""#
    );
}

/// Counts and values of different lengths are said of the lists (it had read "times[0]: 50
/// counts for 49 values").
#[test]
fn criterion_counts_and_values_that_differ_in_number_name_both_lists() {
    let text = r#"{"sampling_mode":"Linear","iters":[1,2,3],"times":[5.0,9.0]}"#;
    let e = parse(Path::new("sample.json"), text, None)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "sample.json: times: 2 values, where iters has 3 (a count and a value per sample)"
    );
}

#[test]
fn one_process_formats_warn_and_imported_benchmarks_are_never_paired() {
    let text = r#"{"context":{},"benchmarks":[
        {"name":"a","run_type":"iteration","real_time":1,"time_unit":"ms"},
        {"name":"a_mean","run_name":"a","run_type":"aggregate","real_time":1,"time_unit":"ms"},
        {"name":"b","run_type":"iteration","real_time":2,"time_unit":"ms"}]}"#;
    let got = parse(Path::new("g.json"), text, None).unwrap();
    assert_eq!(got.format, Format::GoogleBenchmark);
    let r = got.result;
    assert_eq!(r.benchmarks.len(), 2);
    assert_eq!(r.benchmarks[0].samples.len(), 1, "the aggregate is skipped");
    assert_eq!(r.benchmarks[0].samples[0].value, 1e-3);
    // One process each, and each measured once (no repetitions).
    let level = |w: &&Warning| matches!(w, Warning::LevelNotRecorded { .. });
    assert_eq!(r.warnings.iter().filter(level).count(), 2);
    assert_eq!(r.warnings.len(), 3, "{:?}", r.warnings);
    assert_ne!(r.benchmarks[0].top_keys(), r.benchmarks[1].top_keys());
}

#[test]
fn bzip2_is_refused_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("r.json.bz2");
    std::fs::write(&p, b"BZh91AY&SY").unwrap();
    let e = load(&p, None).unwrap_err().to_string();
    assert!(e.contains("bunzip2"), "{e}");
}

/// A Google Benchmark file with repetitions of `a` (ms) and, when `b` is given, one of `b`.
fn gbench(a: &[f64], b: Option<f64>) -> String {
    let mut items: Vec<String> = a
        .iter()
        .map(|t| {
            format!(r#"{{"name":"a","run_type":"iteration","real_time":{t},"time_unit":"ms"}}"#)
        })
        .collect();
    items.extend(b.map(|t| {
        format!(r#"{{"name":"b","run_type":"iteration","real_time":{t},"time_unit":"ms"}}"#)
    }));
    format!(r#"{{"context":{{}},"benchmarks":[{}]}}"#, items.join(","))
}

#[test]
fn several_one_process_files_are_processes_of_one_result() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<std::path::PathBuf> = [
        gbench(&[1.0, 2.0], Some(5.0)),
        gbench(&[3.0, 4.0], None),
        gbench(&[5.0, 6.0], None),
    ]
    .iter()
    .enumerate()
    .map(|(i, text)| {
        let p = dir.path().join(format!("g{i}.json"));
        std::fs::write(&p, text).unwrap();
        p
    })
    .collect();
    let got = load_together(&files, None).unwrap();
    assert_eq!(got.format, Format::GoogleBenchmark);
    let a = &got.result.benchmarks[0];
    assert!(a.layout.has_iterations());
    assert_eq!(a.level_names(), vec!["execution", "repetition"]);
    let cells: Vec<(usize, usize, f64)> = a
        .samples
        .iter()
        .map(|s| (s.execution, s.iteration, s.value * 1e3))
        .collect();
    assert_eq!(
        cells,
        vec![
            (0, 0, 1.0),
            (0, 1, 2.0),
            (1, 0, 3.0),
            (1, 1, 4.0),
            (2, 0, 5.0),
            (2, 1, 6.0)
        ]
    );
    // Only `b`, found in one file, is still one process.
    let warned: Vec<&str> = got
        .result
        .warnings
        .iter()
        .map(|w| match w {
            Warning::LevelNotRecorded {
                benchmark, file, ..
            } => {
                assert!(file.contains("g0.json + "), "{file}");
                benchmark.as_str()
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(warned, vec!["b"]);
    // One file: one process, warned, as before.
    let one = load_together(&files[..1], None).unwrap();
    let level = |w: &&Warning| matches!(w, Warning::LevelNotRecorded { .. });
    assert_eq!(one.result.warnings.iter().filter(level).count(), 2);
    assert!(!one.result.benchmarks[0].layout.has_iterations());
}

#[test]
fn files_that_record_processes_or_differ_in_format_are_not_read_together() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.json");
    std::fs::write(&g, gbench(&[1.0], None)).unwrap();
    let h = dir.path().join("h.json");
    std::fs::write(&h, r#"{"results":[{"command":"a","times":[1.0,2.0]}]}"#).unwrap();
    let e = load_together(&[g.clone(), h.clone()], None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with(&format!("{}: ", h.display())), "{e}");
    assert!(
        e.contains("hyperfine file, which records its own process executions"),
        "{e}"
    );
    let b = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/benchmarktools.json");
    let e = load_together(&[g.clone(), b.clone()], None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("must be of one format"), "{e}");
    assert!(e.contains(&g.display().to_string()), "{e}");
}

#[test]
fn rebench_source_lines_give_the_commit_when_they_agree() {
    let data = |a: &str, b: &str| {
        format!(
            "# Source: {{\"branchOrTag\": \"main\", \"commitId\": \"{a}\"}}\n\
             1\t1\t2.5\tms\ttotal\tA\tE\tS\n\
             # Source: {{\"commitId\": \"{b}\"}}\n\
             2\t1\t2.6\tms\ttotal\tA\tE\tS\n"
        )
    };
    let commit = |text: &str| {
        parse(Path::new("r.data"), text, None)
            .unwrap()
            .result
            .provenance
            .git
            .map(|g| g.commit)
    };
    assert_eq!(commit(&data("abc", "abc")), Some("abc".to_string()));
    assert_eq!(
        commit(&data("abc", "def")),
        None,
        "two commits: none is claimed"
    );
    assert_eq!(commit(&data("", "")), None);
    assert_eq!(commit("1\t1\t2.5\tms\ttotal\tA\tE\tS\n"), None);
}

/// The error of reading `text` as its content shows, as text.
fn refused(text: &str) -> String {
    match parse(Path::new("f.json"), text, None) {
        Ok(r) => panic!("read: {:?}", r.result.benchmarks),
        Err(e) => e.to_string(),
    }
}

#[test]
fn hyperfine_exit_codes_that_are_not_integers_are_refused_at_their_place() {
    for bad in ["\"0\"", "1.5", "true"] {
        let text =
            format!(r#"{{"results":[{{"command":"a","times":[1,2],"exit_codes":[{bad},0]}}]}}"#);
        let e = refused(&text);
        assert!(
            e.contains("f.json") && e.contains("results[0].exit_codes[0]"),
            "{e}"
        );
    }
}

#[test]
fn hyperfine_rounds_rigor_wrote_are_kept_and_bad_ones_refused_at_their_place() {
    let two = |a: &str, b: &str| {
        format!(
            r#"{{"results":[{{"command":"a","times":[1,2],"rigor":{{"rounds":{a}}}}},
            {{"command":"b","times":[3,4],"rigor":{{"rounds":{b}}}}}]}}"#
        )
    };
    let r = parse(Path::new("f.json"), &two("[0,1]", "[0,1]"), None)
        .unwrap()
        .result;
    // Shared: paired by round, not set apart as commands measured one after another.
    let rounds =
        |i: usize| -> Vec<usize> { r.benchmarks[i].samples.iter().map(|s| s.round).collect() };
    assert_eq!(rounds(0), rounds(1));
    assert!(r.warnings.iter().any(Warning::is_note));
    for (bad, place) in [
        (two("[0,\"x\"]", "[0,1]"), "results[0].rigor.rounds[1]"),
        (two("[0,1]", "[0]"), "results[1].rigor.rounds"),
    ] {
        let e = refused(&bad);
        assert!(e.contains("f.json") && e.contains(place), "{e}");
    }
    // One command without rounds: every command is set apart, as in hyperfine's own files.
    let mixed = r#"{"results":[{"command":"a","times":[1,2],"rigor":{"rounds":[0,1]}},
        {"command":"b","times":[3,4]}]}"#;
    let r = parse(Path::new("f.json"), mixed, None).unwrap().result;
    assert_ne!(
        r.benchmarks[0].samples[0].round,
        r.benchmarks[1].samples[0].round
    );
}

#[test]
fn hyperfine_null_exit_code_is_a_failed_run() {
    let text = r#"{"results":[{"command":"a","times":[1,2,3],"exit_codes":[0,null,0]}]}"#;
    let r = parse(Path::new("f.json"), text, None).unwrap().result;
    let b = &r.benchmarks[0];
    assert_eq!(b.failures.len(), 1);
    assert_eq!(b.failures[0].number, Some(2));
    assert!(b.failures[0].reason.contains("signal"), "{:?}", b.failures);
    // Its time is kept, as hyperfine kept it (the mean is hyperfine's).
    assert_eq!(b.samples.len(), 3);
}

/// hyperfine 1.19 and later write each run's peak memory: each execution keeps it, as rigor's
/// own `--metric peak-memory` records it; a count that does not match the times, or a value
/// that is not a byte count, is refused at its place.
#[test]
fn hyperfine_memory_peaks_are_each_executions_peak_memory() {
    let text = r#"{"results":[{"command":"a","times":[0.1,0.2,0.3],
        "memory_usage_byte":[1048576,2097152,3145728],"exit_codes":[0,0,0]}]}"#;
    let r = parse(Path::new("f.json"), text, None).unwrap().result;
    let b = &r.benchmarks[0];
    let peaks: Vec<u64> = b.executions.iter().map(|e| e.max_rss).collect();
    assert_eq!(peaks, [1 << 20, 2 << 20, 3 << 20]);
    let walls: Vec<f64> = b.executions.iter().map(|e| e.wall.get()).collect();
    assert_eq!(walls, [0.1, 0.2, 0.3]);
    assert!(b.executions.iter().all(|e| e.exit_code.is_none()));
    let peaks = b.for_metric(&rigor_units::Metric::PeakMemory).unwrap();
    assert_eq!(peaks.samples.len(), 3);
    // A file from an older hyperfine has none, and the error says that, not how rigor's own
    // runs measure peaks.
    let old = r#"{"results":[{"command":"a","times":[0.1,0.2,0.3]}]}"#;
    let r = parse(Path::new("f.json"), old, None).unwrap().result;
    let e = r.benchmarks[0]
        .for_metric(&rigor_units::Metric::PeakMemory)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("memory_usage_byte") && !e.contains("launcher"),
        "{e}"
    );
    for (bad, place) in [
        ("[1,2]", "results[0].memory_usage_byte"),
        ("[1,-2,3]", "results[0].memory_usage_byte[1]"),
        ("[1,2.5,3]", "results[0].memory_usage_byte[1]"),
    ] {
        let text = format!(
            r#"{{"results":[{{"command":"a","times":[1,2,3],"memory_usage_byte":{bad}}}]}}"#
        );
        let e = refused(&text);
        assert!(e.contains("f.json") && e.contains(place), "{e}");
    }
}

#[test]
fn absurd_times_are_refused_in_every_importer() {
    let cases = [
        (
            r#"{"results":[{"command":"a","times":[1e300,1]}]}"#,
            "results[0].times[0]",
        ),
        (
            r#"[{"benchmark":"m","primaryMetric":{"scoreUnit":"ns/op","rawData":[[1,1e300]]}}]"#,
            "[0].primaryMetric.rawData[0][1]",
        ),
        (
            r#"[{"benchmark":"m","primaryMetric":{"scoreUnit":"ops/s","rawData":[[1e-300]]}}]"#,
            "[0].primaryMetric.rawData[0][0]",
        ),
        (
            r#"{"context":{},"benchmarks":[{"name":"b","iterations":1,"real_time":1e300,"time_unit":"ns"}]}"#,
            "benchmarks[0].real_time",
        ),
        (
            r#"{"version":"1.0","benchmarks":[{"runs":[{"values":[1e300]}]}]}"#,
            "benchmarks[0].runs[0].values[0]",
        ),
        (
            r#"{"wallclock_times":{"b":[[1e300]]}}"#,
            "wallclock_times.b[0][0]",
        ),
    ];
    for (text, place) in cases {
        let e = refused(text);
        assert!(e.contains(place) && e.contains("plausible"), "{text}: {e}");
    }
    // Up to the bound, a time is read.
    let ok = r#"{"results":[{"command":"a","times":[1e9,1]}]}"#;
    assert!(parse(Path::new("f.json"), ok, None).is_ok());
    let rebench = "invocation\titeration\tvalue\tunit\tcriterion\tbenchmark\n\
                   1\t1\t1e300\tms\ttotal\tFib\n1\t2\t1\tms\ttotal\tFib\n";
    let e = parse(Path::new("r.data"), rebench, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2") && e.contains("plausible"), "{e}");
}

#[test]
fn jmh_empty_fork_is_refused_at_its_place() {
    let text = r#"[{"benchmark":"m","primaryMetric":{"scoreUnit":"ns/op","rawData":[[]]}}]"#;
    let e = refused(text);
    assert!(e.contains("[0].primaryMetric.rawData[0]"), "{e}");
}

/// A negative time per operation is refused at its place, as in every other format (a new
/// user's edited JMH file gave "Mean 9.733 ns [-2.362 ns .. 21.83 ns]").
#[test]
fn jmh_negative_time_is_refused_at_its_place() {
    let text =
        r#"[{"benchmark":"m","primaryMetric":{"scoreUnit":"ns/op","rawData":[[10.1,-12.1]]}}]"#;
    let e = refused(text);
    assert!(
        e.contains("[0].primaryMetric.rawData[0][1]") && e.contains("negative time -12.1 ns/op"),
        "{e}"
    );
}

#[test]
fn gbench_repetition_of_no_iteration_is_refused() {
    let text = r#"{"context":{},"benchmarks":[{"name":"b","iterations":0,"real_time":1,"time_unit":"ns"}]}"#;
    let e = refused(text);
    assert!(e.contains("benchmarks[0].iterations"), "{e}");
}

#[test]
fn rebench_header_without_hash_is_sniffed_so_a_bad_value_is_named() {
    let text =
        "invocation\titeration\tvalue\tunit\tcriterion\tbenchmark\n1\t1\tfast\tms\ttotal\tFib\n";
    assert_eq!(sniffed(text), Some(Format::Rebench));
    let e = parse(Path::new("bad.data"), text, None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("line 2") && e.contains("value 'fast' is not a number"),
        "{e}"
    );
    // The same with `#` before the header.
    assert_eq!(sniffed(&format!("# {text}")), Some(Format::Rebench));
    // A line of text naming the columns but not tab-separated is not taken for one.
    assert_eq!(sniffed("invocation value\n"), None);
}

#[test]
fn same_named_benchmarks_are_numbered() {
    let text = r#"{"results":[{"command":"./p","times":[1,2]},{"command":"./p","times":[3,4]},{"command":"q","times":[1,2]}]}"#;
    let r = parse(Path::new("f.json"), text, None).unwrap().result;
    let names: Vec<&str> = r.benchmarks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["./p #1", "./p #2", "q"]);
    assert_eq!(r.benchmarks[0].command, "./p");
    // JMH: one method in two modes.
    let text = r#"[{"benchmark":"m","mode":"avgt","primaryMetric":{"scoreUnit":"ns/op","rawData":[[1,2]]}},
                  {"benchmark":"m","mode":"thrpt","primaryMetric":{"scoreUnit":"ops/s","rawData":[[1,2]]}}]"#;
    let r = parse(Path::new("f.json"), text, None).unwrap().result;
    let names: Vec<&str> = r.benchmarks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["m #1", "m #2"]);
    // hyperfine's `-n myname -L n 1,2` without `{n}` in the name: named by the parameters, as
    // `rigor run` names them; numbered when the parameters do not tell them apart.
    let text = r#"{"results":[{"command":"myname","times":[1,2],"parameters":{"n":"1"}},
                  {"command":"myname","times":[3,4],"parameters":{"n":"2"}}]}"#;
    let r = parse(Path::new("f.json"), text, None).unwrap().result;
    let names: Vec<&str> = r.benchmarks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["myname (n = 1)", "myname (n = 2)"]);
    let text = r#"{"results":[{"command":"myname","times":[1,2],"parameters":{"n":"1"}},
                  {"command":"myname","times":[3,4],"parameters":{"n":"1"}}]}"#;
    let r = parse(Path::new("f.json"), text, None).unwrap().result;
    let names: Vec<&str> = r.benchmarks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["myname #1", "myname #2"]);
}

/// An empty file says so, and JSON cut short says where and that the file ends early.
#[test]
fn empty_and_cut_short_files_say_what_they_are() {
    let empty = refused("  \n");
    assert!(
        empty.contains("f.json") && empty.ends_with("is empty"),
        "{empty}"
    );
    let cut = refused(r#"{"results":[{"command":"a","times":[1,2"#);
    assert!(
        cut.contains("f.json:1:") && cut.contains("the file ends early"),
        "{cut}"
    );
}

/// An empty list of times is refused at its place (it was reported as a run stopped before its
/// first execution), and a mean the times do not have is said (a trial's `"mean": 5.0` beside
/// times of 12 ms was analysed as the times without a word).
#[test]
fn hyperfine_empty_times_are_refused_and_a_mean_the_times_do_not_have_is_said() {
    let e = refused(r#"{"results":[{"command":"a","mean":0.01,"times":[]}]}"#);
    assert!(e.contains("f.json: results[0].times: no times"), "{e}");
    let e = refused(r#"{"results":[{"command":"a","mean":"x","times":[0.01,0.012]}]}"#);
    assert!(e.contains("results[0].mean"), "{e}");
    let read = |text: &str| parse(Path::new("f.json"), text, None).unwrap().result;
    let r = read(r#"{"results":[{"command":"a","mean":5.0,"times":[0.01,0.012,0.014]}]}"#);
    let said: Vec<String> = r.warnings.iter().map(ToString::to_string).collect();
    assert!(
        said.iter().any(|w| w.contains(
            "the mean the file states is not the mean of the times it lists ('a' 5.000 s \
             against 12.00 ms)"
        )),
        "{said:?}"
    );
    assert!(!r.warnings[0].is_note(), "--fail-on warning fails on it");
    // The mean hyperfine writes, and none at all, say nothing.
    for ok in [
        r#"{"results":[{"command":"a","mean":0.012,"times":[0.01,0.012,0.014]}]}"#,
        r#"{"results":[{"command":"a","times":[0.01,0.012,0.014]}]}"#,
    ] {
        assert!(read(ok).warnings.is_empty(), "{ok}");
    }
}

/// A pyperf benchmark whose runs hold warm-ups only has nothing to analyse: refused, naming it.
#[test]
fn a_benchmark_with_nothing_measured_is_refused_naming_it() {
    let text = r#"{"version": "1.0", "benchmarks": [{"metadata": {"name": "timeit"},
        "runs": [{"metadata": {}, "warmups": [[1, 0.5]]}, {"metadata": {}, "warmups": [[1, 0.6]]}]}]}"#;
    let e = refused(text);
    // At its runs, not the top level.
    assert!(
        e.ends_with(
            "f.json: benchmarks[0].runs: benchmark 'timeit' has no run with a measured value \
             (only warm-ups, or none)"
        ),
        "{e}"
    );
}

/// A hyperfine file rigor wrote for commands run through a shell holds their times net of its
/// start-up: read back, it says so (the interval from them leaves the start-up's variance out,
/// and a comparison with times as measured would mix the two; a trial's `rigor compare` of the
/// run's own file and this one reported a 27% change of the same run).
#[test]
fn a_hyperfine_file_of_times_net_of_a_shell_says_so() {
    let text = r#"{"results":[{"command":"a | b","times":[0.002,0.003],
        "rigor":{"mean":0.0025,"ci_lower":0.001,"ci_upper":0.004,"confidence":0.95,"net_of":"sh -c ''"}},
        {"command":"c","times":[0.002,0.003]}]}"#;
    let r = parse(Path::new("f.json"), text, None).unwrap().result;
    let said: Vec<String> = r.warnings.iter().map(ToString::to_string).collect();
    assert!(
        said.iter().any(|w| w.contains(
            "the times of 'a | b' are net of the shell's start-up (the mean of sh -c '' \
             subtracted from each"
        )),
        "{said:?}"
    );
    let plain = r#"{"results":[{"command":"c","times":[0.002,0.003]}]}"#;
    let r = parse(Path::new("f.json"), plain, None).unwrap().result;
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

/// Repetitions Google Benchmark reports as failed are left out and said, with how many are
/// analysed; a benchmark all of whose repetitions failed is said too, not refused as a file of
/// aggregates only (its aggregates are all the file has of it).
#[test]
fn failed_google_benchmark_repetitions_are_said() {
    let text = r#"{"context":{},"benchmarks":[
        {"name":"a","run_type":"iteration","real_time":1,"time_unit":"ms"},
        {"name":"a","run_type":"iteration","real_time":1,"time_unit":"ms","error_occurred":true,"error_message":"boom"},
        {"name":"a","run_type":"iteration","real_time":1.1,"time_unit":"ms"},
        {"name":"b","run_type":"iteration","real_time":2,"time_unit":"ms","error_occurred":true,"error_message":"no input"},
        {"name":"b_mean","run_name":"b","run_type":"aggregate","real_time":2,"time_unit":"ms"}]}"#;
    let r = parse(Path::new("g.json"), text, None).unwrap().result;
    assert_eq!(r.benchmarks.len(), 1);
    let said: Vec<String> = r.warnings.iter().map(ToString::to_string).collect();
    assert!(
        said.iter().any(|w| w.contains(
            "the file reports failed repetitions, left out: 'a': 1 repetition failed ('boom'), \
             analysed from the 2 that succeeded; 'b': 1 repetition failed ('no input'), not \
             analysed: no repetition succeeded"
        )),
        "{said:?}"
    );
}

/// A criterion benchmark folder without its sample.json is said, not left out silently; with
/// no benchmark left, the error names it.
#[test]
fn a_criterion_benchmark_without_samples_is_said() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/criterion");
    let dir = tempfile::tempdir().unwrap();
    for name in ["fib 10", "fib 12"] {
        let new = dir.path().join(name).join("new");
        std::fs::create_dir_all(&new).unwrap();
        for file in ["benchmark.json", "sample.json"] {
            if name == "fib 12" && file == "sample.json" {
                continue;
            }
            std::fs::copy(fixture.join(name).join("new").join(file), new.join(file)).unwrap();
        }
    }
    let r = load(dir.path(), None).unwrap().result;
    assert_eq!(r.benchmarks.len(), 1);
    assert!(
        r.warnings.iter().any(|w| matches!(
            w,
            Warning::Imported { note: crate::ImportNote::NoSamples { benchmarks }, .. }
                if benchmarks == &["fib 12".to_string()]
        )),
        "{:?}",
        r.warnings
    );
    std::fs::remove_dir_all(dir.path().join("fib 10")).unwrap();
    let e = load(dir.path(), None).unwrap_err().to_string();
    assert!(
        e.contains("'fib 12' has a benchmark.json without it"),
        "{e}"
    );
}
