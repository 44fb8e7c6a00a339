//! What each importer reads from real files of its format. The files under `fixtures/import/`
//! were written by the tools themselves where they install here (hyperfine, pyperf, Google
//! Benchmark, criterion; see `scripts/import_fixtures.sh`) and by hand otherwise (see the
//! folder's README). Each test checks the mean of what was read against a figure the tool itself
//! wrote, or against the raw values read independently here; the levels, counts and warnings
//! against what the format records. The few checks that need the binary (`rigor analyze`,
//! `compare` and `track add` on these files) are in `crates/rigor/tests/import.rs`.

use std::path::{Path, PathBuf};

use rigor_stats::{Hierarchy, HierarchyBuilder};
use rigor_store::import::{self, Format, Imported};
use rigor_store::{BenchmarkRecord, ImportNote, LevelKind, ResultFile, Warning};
use rigor_units::{Metric, Quantity};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(name)
}

/// The fixture `name` read as its content shows (sniffed).
fn imported(name: &str) -> Imported {
    import::load(&fixture(name), None).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The fixture's own JSON, read independently of the importer.
fn raw(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap()
}

fn bench<'a>(r: &'a ResultFile, name: &str) -> &'a BenchmarkRecord {
    r.benchmarks
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| {
            let names: Vec<&str> = r.benchmarks.iter().map(|b| b.name.as_str()).collect();
            panic!("no benchmark '{name}' among {names:?}")
        })
}

/// What rigor analyses: the non-warm-up samples at their levels (as `rigor analyze` builds it).
fn hierarchy(b: &BenchmarkRecord) -> Hierarchy {
    let mut h = HierarchyBuilder::new(b.level_names());
    for s in b.samples.iter().filter(|s| !s.warmup) {
        h.push(&b.layout.unit_path(s), s.value);
    }
    h.build().unwrap()
}

/// Units per level, top → bottom (`counts` in `rigor analyze --json`).
fn counts(b: &BenchmarkRecord) -> Vec<usize> {
    hierarchy(b).counts()
}

/// The mean rigor reports: the mean of the top-level units' means, in seconds.
fn mean(b: &BenchmarkRecord) -> f64 {
    let m = hierarchy(b).top_means();
    m.iter().sum::<f64>() / m.len() as f64
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs()
}

/// The benchmarks warned to have been measured in one process.
fn one_process(r: &ResultFile) -> Vec<&str> {
    r.warnings
        .iter()
        .filter_map(|w| match w {
            Warning::LevelNotRecorded {
                benchmark,
                level: LevelKind::Execution,
                ..
            } => Some(benchmark.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn hyperfine_times_are_executions() {
    let got = imported("hyperfine.json");
    assert_eq!(got.format, Format::Hyperfine);
    let r = &got.result;
    let raw = raw("hyperfine.json");
    for h in raw["results"].as_array().unwrap() {
        let b = bench(r, h["command"].as_str().unwrap());
        assert_eq!(b.levels(), [LevelKind::Execution]);
        assert_eq!(counts(b), [h["times"].as_array().unwrap().len()]);
        // hyperfine's own mean of the same times.
        assert!(close(mean(b), h["mean"].as_f64().unwrap(), 1e-9));
    }
    assert!(one_process(r).is_empty(), "hyperfine records executions");
    assert_eq!(r.provenance.imported_from.as_deref(), Some("hyperfine"));
}

#[test]
fn hyperfine_same_command_twice_is_two_numbered_benchmarks() {
    // `hyperfine -N -r 5 './prog_O2' './prog_O2'`: numbered as `rigor run` numbers them, so
    // that neither analysis nor `rigor compare` takes the two for one.
    let got = imported("hyperfine-same-command.json");
    let raw = raw("hyperfine-same-command.json");
    let results = raw["results"].as_array().unwrap();
    for (k, h) in results.iter().enumerate() {
        let command = h["command"].as_str().unwrap();
        let b = bench(&got.result, &format!("{command} #{}", k + 1));
        assert_eq!(b.command, command);
        assert!(close(mean(b), h["mean"].as_f64().unwrap(), 1e-9));
    }
    assert_eq!(got.result.benchmarks.len(), results.len());
}

/// The runs of a pyperf file's first benchmark that have values (not calibration runs).
fn measured_runs(raw: &Value) -> Vec<&Value> {
    raw["benchmarks"][0]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("values").is_some())
        .collect()
}

#[test]
fn pyperf_runs_are_processes_and_warmups_stay_warmups() {
    let got = imported("pyperf.json");
    assert_eq!(got.format, Format::Pyperf);
    let raw = raw("pyperf.json");
    let runs = measured_runs(&raw);
    let b = bench(&got.result, "sum-range");
    assert_eq!(b.level_names(), ["run", "value"]);
    assert_eq!(counts(b)[0], runs.len());
    let warm = b.samples.iter().filter(|s| s.warmup).count();
    let expected_warm: usize = runs
        .iter()
        .map(|r| r["warmups"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(warm, expected_warm);
    // Mean of the runs' means (balanced: every run has the same number of values).
    let means: Vec<f64> = runs
        .iter()
        .map(|r| {
            let v: Vec<f64> = r["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            v.iter().sum::<f64>() / v.len() as f64
        })
        .collect();
    let expected = means.iter().sum::<f64>() / means.len() as f64;
    assert!(close(mean(b), expected, 1e-9));
    assert!(one_process(&got.result).is_empty());
}

#[test]
fn pyperf_runs_keep_their_duration_and_peak_memory() {
    let got = imported("pyperf.json");
    let raw = raw("pyperf.json");
    let runs = measured_runs(&raw);
    let b = bench(&got.result, "sum-range");
    assert_eq!(b.executions.len(), runs.len());
    for (e, run) in b.executions.iter().zip(&runs) {
        // `mem_max_rss`: the worker process's peak resident set, in bytes.
        assert_eq!(e.max_rss, run["metadata"]["mem_max_rss"].as_u64().unwrap());
        assert_eq!(e.wall.get(), run["metadata"]["duration"].as_f64().unwrap());
        assert!(!e.warmup);
    }
    let peak = b.for_metric(&Metric::PeakMemory).unwrap();
    assert_eq!(peak.samples.len(), runs.len());
    assert_eq!(peak.quantity(), Quantity::Bytes);
    // Nothing is said of it: peak memory is recorded beside the times, as rigor run records it.
    assert!(notes(&got.result).is_empty());
}

#[test]
fn pyperf_command_peaks_and_windows_pagefile_usage_are_kept() {
    // `pyperf command` records the command's own peak beside the worker's; Windows the peak
    // pagefile usage.
    let text = std::fs::read_to_string(fixture("pyperf.json")).unwrap().replacen(
        "\"mem_max_rss\":20144128,",
        "\"mem_max_rss\":20144128,\"command_max_rss\":4096000,\"mem_peak_pagefile_usage\":8192,",
        1,
    );
    let got = import::parse(Path::new("p.json"), &text, None).unwrap();
    let b = bench(&got.result, "sum-range");
    assert_eq!(b.executions[0].max_rss, 4096000);
    assert_eq!(b.executions[1].max_rss, 20172800);
    let pagefile = &b.executions[0].metrics["peak-pagefile-usage"];
    assert_eq!(pagefile.unit, Quantity::Bytes);
    assert_eq!(pagefile.values, [8192.0]);
    assert!(b.executions[1].metrics.is_empty());
}

#[test]
fn pyperf_memory_peaks_are_kept_as_a_metric_beside_the_runs_durations() {
    // `pyperf timeit --track-memory` (or `--tracemalloc`): one value per run, the peak in bytes.
    let got = imported("pyperf-track-memory.json");
    let r = &got.result;
    let b = bench(r, "timeit");
    assert_eq!(b.level_names(), ["run"]);
    // The calibration run (warm-ups only) is skipped; each run's time is its duration.
    let times: Vec<f64> = b.samples.iter().map(|s| s.value).collect();
    assert_eq!(times, [0.25, 0.5, 0.75]);
    let peaks = b
        .for_metric(&Metric::Reported("pyperf-memory-peak".into()))
        .unwrap();
    let values: Vec<f64> = peaks.samples.iter().map(|s| s.value).collect();
    assert_eq!(values, [7360512.0, 7364608.0, 7380992.0]);
    assert_eq!(peaks.quantity(), Quantity::Bytes);
    let rss: Vec<u64> = b.executions.iter().map(|e| e.max_rss).collect();
    assert_eq!(rss, [13815808, 13864960, 13762560]);
    assert_eq!(
        notes(r),
        [&ImportNote::PeaksNotTimes {
            benchmarks: vec!["timeit".into()],
            metric: "pyperf-memory-peak".into()
        }]
    );
    // Without the runs' durations there is no time to keep the peaks beside.
    let text = std::fs::read_to_string(fixture("pyperf-track-memory.json"))
        .unwrap()
        .replace("\"duration\":0.25,", "");
    let e = error("m.json", &text, None);
    assert!(
        e.contains(
            "benchmarks[0].runs[1]: a memory peak (unit 'byte') without the run's 'duration'"
        ),
        "{e}"
    );
    // Other units are still refused.
    let e = error("m.json", &text.replace("\"byte\"", "\"integer\""), None);
    assert!(e.contains("unit 'integer': rigor reads times"), "{e}");
}

/// The three Google Benchmark files of one program (`gbench.json`, `gbench-2.json`,
/// `gbench-3.json`: three processes of the same binary).
const GBENCH: [&str; 3] = ["gbench.json", "gbench-2.json", "gbench-3.json"];

/// Google Benchmark's own `_mean` aggregate of `name` in the fixture `file`: (seconds,
/// repetitions).
fn gbench_mean(file: &str, name: &str) -> (f64, u64) {
    let raw = raw(file);
    let agg = raw["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["run_name"] == name && a["aggregate_name"] == "mean")
        .unwrap()
        .clone();
    assert_eq!(agg["time_unit"], "ns");
    (
        agg["real_time"].as_f64().unwrap() * 1e-9,
        agg["repetitions"].as_u64().unwrap(),
    )
}

#[test]
fn google_benchmark_repetitions_skip_aggregates_and_warn_one_process() {
    let got = imported("gbench.json");
    assert_eq!(got.format, Format::GoogleBenchmark);
    let r = &got.result;
    assert_eq!(r.benchmarks.len(), 2);
    for b in &r.benchmarks {
        let (expected, repetitions) = gbench_mean("gbench.json", &b.name);
        assert!(close(mean(b), expected, 1e-9), "{}", b.name);
        assert_eq!(counts(b), [repetitions as usize]);
        assert_eq!(b.level_names(), ["repetition"]);
    }
    assert_eq!(one_process(r).len(), 2);
}

#[test]
fn several_google_benchmark_files_are_process_executions() {
    let paths: Vec<PathBuf> = GBENCH.iter().map(|f| fixture(f)).collect();
    let got = import::load_together(&paths, None).unwrap();
    assert_eq!(got.format, Format::GoogleBenchmark);
    let r = &got.result;
    assert!(one_process(r).is_empty(), "three processes were read");
    assert_eq!(r.benchmarks.len(), 2);
    for b in &r.benchmarks {
        // 3 processes × 3 repetitions, named as Google Benchmark names them.
        assert_eq!(counts(b), [3, 9], "{}", b.name);
        assert_eq!(b.level_names(), ["execution", "repetition"]);
        // Balanced: the mean of the three files' own means.
        let expected = GBENCH
            .iter()
            .map(|f| gbench_mean(f, &b.name).0)
            .sum::<f64>()
            / 3.0;
        assert!(close(mean(b), expected, 1e-9), "{}", b.name);
    }
}

#[test]
fn files_of_a_format_that_records_processes_are_not_read_together() {
    let e = import::load_together(&[fixture("gbench.json"), fixture("hyperfine.json")], None)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(&format!(
            "{}: top level: is a hyperfine file, which records its own process executions",
            fixture("hyperfine.json").display()
        )),
        "{e}"
    );
}

#[test]
fn criterion_directory_samples_match_its_estimates() {
    let got = imported("criterion");
    assert_eq!(got.format, Format::Criterion);
    let r = &got.result;
    for name in ["fib 10", "fib 12"] {
        let b = bench(r, name);
        assert_eq!(b.level_names(), ["sample"]);
        assert_eq!(counts(b), [10]);
        let est = raw(&format!("criterion/{name}/new/estimates.json"));
        // criterion's mean of the samples' per-iteration times (ns).
        let m = est["mean"]["point_estimate"].as_f64().unwrap() * 1e-9;
        assert!(close(mean(b), m, 1e-9), "{name}: {} vs {m}", mean(b));
    }
    assert_eq!(one_process(r), ["fib 10", "fib 12"]);
    // The warning says what the interval cannot see.
    let level = r
        .warnings
        .iter()
        .find(|w| matches!(w, Warning::LevelNotRecorded { .. }));
    let text = level.unwrap().to_string();
    assert!(
        text.contains(
            "'fib 10': criterion measured it in one process: the interval cannot see how the \
             time varies between executions"
        ),
        "{text}"
    );
    // One sample.json, sniffed by content, is named by its benchmark.json.
    let one = imported("criterion/fib 10/new/sample.json");
    assert_eq!(one.format, Format::Criterion);
    assert_eq!(one.result.benchmarks[0].name, "fib 10");
}

#[test]
fn cargo_criterion_messages() {
    let got = imported("cargo-criterion.jsonl");
    assert_eq!(got.format, Format::CargoCriterion);
    let b = bench(&got.result, "fib 10");
    // 651000/3000, 1290000/6000, 1962000/9000, 2610000/12000, 3240000/15000 ns.
    let per: [f64; 5] = [217.0, 215.0, 218.0, 217.5, 216.0];
    let expected = per.iter().sum::<f64>() / 5.0 * 1e-9;
    assert!(close(mean(b), expected, 1e-12));
    assert_eq!(one_process(&got.result), ["fib 10"]);
}

#[test]
fn jmh_forks_are_processes_and_throughput_is_inverted() {
    let got = imported("jmh.json");
    assert_eq!(got.format, Format::Jmh);
    let r = &got.result;
    let avgt = bench(r, "org.sample.MyBenchmark.sum(size=100)");
    assert_eq!(avgt.level_names(), ["fork", "iteration"]);
    assert_eq!(counts(avgt), [3, 12]);
    // JMH's score: the mean of all raw iterations (balanced forks), ns/op.
    assert!(close(mean(avgt), 52.308_333e-9, 1e-6));
    let thrpt = bench(r, "org.sample.MyBenchmark.sumThroughput");
    // ops/us → seconds per op: 1e-6 / score.
    assert!(close(thrpt.samples[0].value, 1e-6 / 19.4, 1e-12));
    assert!(one_process(r).is_empty());
}

#[test]
fn benchmarktools_groups_become_benchmarks() {
    let got = imported("benchmarktools.json");
    assert_eq!(got.format, Format::BenchmarkTools);
    let r = &got.result;
    let sum = bench(r, "sum");
    let expected = [11.2, 11.4, 11.3, 11.9, 11.2, 11.5].iter().sum::<f64>() / 6.0 * 1e-9;
    assert!(close(mean(sum), expected, 1e-12));
    assert_eq!(counts(bench(r, "sort")), [4]);
    assert_eq!(one_process(r).len(), 2);
}

#[test]
fn rebench_invocations_and_iterations_and_the_commit() {
    let got = imported("rebench.data");
    assert_eq!(got.format, Format::Rebench);
    let r = &got.result;
    let b = bench(r, "Bounce SOMns macro 1");
    assert_eq!(b.level_names(), ["invocation", "iteration"]);
    assert_eq!(counts(b), [3, 12]);
    let all = [
        101.2, 99.8, 98.7, 99.1, 104.6, 103.9, 104.2, 103.5, 100.4, 100.1, 99.5, 99.9,
    ];
    let expected = all.iter().sum::<f64>() / 12.0 * 1e-3;
    assert!(close(mean(b), expected, 1e-12));
    // Its `# Source:` lines name commit abc123 (`track add` checks it against the version).
    let commit = r.provenance.git.as_ref().map(|g| g.commit.as_str());
    assert_eq!(commit, Some("abc123"));
    let hyperfine = imported("hyperfine.json").result.provenance.git;
    assert!(hyperfine.is_none(), "hyperfine records no commit");
}

#[test]
fn krun_process_executions() {
    let got = imported("krun.json");
    assert_eq!(got.format, Format::Krun);
    let b = bench(&got.result, "nbody:PyPy:default-python");
    assert_eq!(b.levels(), [LevelKind::Execution, LevelKind::Iteration]);
    assert_eq!(counts(b), [3, 15]);
}

/// The error text of `text` parsed as a file named `name` (sniffed, or as `format`).
fn error(name: &str, text: &str, format: Option<Format>) -> String {
    import::parse(Path::new(name), text, format)
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

#[test]
fn a_named_format_overrides_sniffing_and_errors_name_the_place() {
    let e = import::load(&fixture("pyperf.json"), Some(Format::Hyperfine))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("pyperf.json: top level: no member 'results'"),
        "{e}"
    );
    // A member that is there but null is said to be null, not missing.
    let e = error(
        "h.json",
        r#"{"results":[{"command":"a","times":null}]}"#,
        Some(Format::Hyperfine),
    );
    assert!(
        e.contains("h.json: results[0]: member 'times' is null"),
        "{e}"
    );
    let e = error(
        "h.json",
        r#"{"results":[{"command":"a","times":[0.1,0.2,"x"]}]}"#,
        None,
    );
    assert!(
        e.contains("h.json: results[0].times[2]: expected a number, found \"x\""),
        "{e}"
    );
    let e = error(
        "h.json",
        r#"{"results":[{"command":"a","times":[0.1,-0.2]}]}"#,
        None,
    );
    assert!(e.contains("results[0].times[1]: negative time"), "{e}");
    let e = error("h.json", "hello\n", None);
    assert!(e.contains("not a format rigor reads"), "{e}");
    let e = error(
        "r.data",
        "1\t1\t5.0\tms\ttotal\tA\tE\tS\n1\t2\tfast\tms\ttotal\tA\tE\tS\n",
        None,
    );
    assert!(
        e.contains("r.data: line 2: value 'fast' is not a number"),
        "{e}"
    );
}

/// The notes an import left ([`Warning::Imported`]).
fn notes(r: &ResultFile) -> Vec<&ImportNote> {
    r.warnings
        .iter()
        .filter_map(|w| match w {
            Warning::Imported { note, .. } => Some(note),
            _ => None,
        })
        .collect()
}

#[test]
fn google_benchmark_aggregates_only_is_refused_with_the_reason() {
    // `--benchmark_repetitions=3 --benchmark_report_aggregates_only=true`: no repetition.
    let e = import::load(&fixture("gbench-aggregates.json"), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(
            "benchmarks: 'BM_StringCreation' has only aggregates (mean, median, stddev): the file \
             was written with --benchmark_report_aggregates_only"
        ) && e.contains("--benchmark_repetitions=N"),
        "{e}"
    );
}

#[test]
fn an_import_without_a_measured_benchmark_is_refused() {
    let text = r#"{"context": {}, "benchmarks": [{"name": "BM_A", "run_type": "iteration",
        "error_occurred": true, "error_message": "no", "real_time": 0, "time_unit": "ns"}]}"#;
    let e = error("g.json", text, None);
    assert!(
        e.contains("is a google-benchmark file without a measured benchmark"),
        "{e}"
    );
}

#[test]
fn google_benchmark_without_repetitions_is_one_value_with_a_warning() {
    let got = imported("gbench-single.json");
    let raw = raw("gbench-single.json");
    for b in &got.result.benchmarks {
        assert_eq!(counts(b), [1]);
        let real = raw["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == b.name.as_str())
            .unwrap()["real_time"]
            .as_f64()
            .unwrap();
        assert!(close(mean(b), real * 1e-9, 1e-12));
    }
    let n = notes(&got.result);
    assert_eq!(
        n,
        [&ImportNote::OneRepetition {
            benchmarks: vec!["BM_StringCreation".into(), "BM_Slow".into()]
        }]
    );
    let text = got.result.warnings[0].to_string();
    assert!(text.contains("--benchmark_repetitions=N"), "{text}");
}

#[test]
fn google_benchmark_counters_are_kept_as_metrics_with_a_note() {
    let got = imported("gbench-counters.json");
    let r = &got.result;
    let b = bench(r, "BM_Copy/64");
    assert_eq!(counts(b), [2]);
    let rate = |name: &str| b.for_metric(&Metric::Reported(name.into())).unwrap();
    let bytes = rate("bytes_per_second");
    assert_eq!(bytes.quantity(), Quantity::Rate("B/s".into()));
    let values: Vec<f64> = bytes.samples.iter().map(|s| s.value).collect();
    assert_eq!(values, [3.2e9, 2.56e9]);
    assert_eq!(
        rate("items_per_second").quantity(),
        Quantity::Rate("items/s".into())
    );
    let hits = rate("hits");
    assert_eq!(hits.quantity(), Quantity::Count);
    assert_eq!(hits.samples.len(), 2);
    let said: Vec<String> = notes(r).iter().map(ToString::to_string).collect();
    assert_eq!(
        said,
        [
            "kept 2 values of 'bytes_per_second' (in B/s) as a metric: `rigor analyze \
             --metric bytes_per_second` analyses them",
            "kept 2 values of 'hits' (in count) as a metric: `rigor analyze --metric hits` \
             analyses them",
            "kept 2 values of 'items_per_second' (in items/s) as a metric: `rigor analyze \
             --metric items_per_second` analyses them",
            "left out 2 values of 'cache misses' (in count): no time was measured beside \
             them, or the name is not one a metric can have",
        ]
    );
    // Files without counters are read as before: no execution records.
    assert!(
        imported("gbench.json")
            .result
            .benchmarks
            .iter()
            .all(|b| b.executions.is_empty())
    );

    // Two processes of the program: the counters of each become that execution's, per
    // repetition.
    let dir = tempfile::tempdir().unwrap();
    let second = dir.path().join("second.json");
    let text = std::fs::read_to_string(fixture("gbench-counters.json")).unwrap();
    std::fs::write(&second, text.replace("3200000000.0", "3000000000.0")).unwrap();
    let both = import::load_together(&[fixture("gbench-counters.json"), second], None).unwrap();
    let b = bench(&both.result, "BM_Copy/64");
    assert_eq!(counts(b), [2, 4]);
    let bytes = b
        .for_metric(&Metric::Reported("bytes_per_second".into()))
        .unwrap();
    assert!(bytes.layout.has_iterations());
    let values: Vec<f64> = bytes.samples.iter().map(|s| s.value).collect();
    assert_eq!(values, [3.2e9, 2.56e9, 3.0e9, 2.56e9]);
    assert_eq!(notes(&both.result).len(), 8, "each file's notes");
}

#[test]
fn google_benchmark_families_are_a_benchmark_s_instances() {
    let fib = imported("gbench.json").result;
    let families: Vec<Option<&str>> = fib.benchmarks.iter().map(|b| b.family.as_deref()).collect();
    assert_eq!(families, [Some("BM_Fib"), Some("BM_Fib")]);
    let suite = imported("gbench-suite.json").result;
    let families: Vec<Option<&str>> = suite
        .benchmarks
        .iter()
        .map(|b| b.family.as_deref())
        .collect();
    assert_eq!(families, [Some("BM_StringCreation"), Some("BM_Slow")]);
}

#[test]
fn pyperf_gzip_is_read_by_its_magic_bytes() {
    let got = imported("pyperf.json.gz");
    assert_eq!(got.format, Format::Pyperf);
    let b = bench(&got.result, "sum-range");
    assert_eq!(counts(b), [3, 9]);
    // Whatever the name: the content decides.
    let dir = tempfile::tempdir().unwrap();
    let renamed = dir.path().join("results.dat");
    std::fs::copy(fixture("pyperf.json.gz"), &renamed).unwrap();
    let again = import::load(&renamed, None).unwrap();
    assert_eq!(again.result.benchmarks[0].samples, b.samples);
    // A corrupt gzip says so.
    let bytes = std::fs::read(fixture("pyperf.json.gz")).unwrap();
    let cut = dir.path().join("cut.json.gz");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let e = import::load(&cut, None).unwrap_err().to_string();
    assert!(e.contains("is gzip-compressed but cannot be read"), "{e}");
}

#[test]
fn the_same_file_given_twice_is_refused() {
    let e = import::load_together(&[fixture("gbench.json"), fixture("gbench.json")], None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!(
            "is the same file as {}: files read together are process executions each",
            fixture("gbench.json").display()
        )),
        "{e}"
    );
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.json");
    std::fs::copy(fixture("gbench.json"), &copy).unwrap();
    let e = import::load_together(&[fixture("gbench.json"), copy], None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("has the same content as"), "{e}");
    let dirs = import::load_together(&[fixture("criterion"), fixture("criterion/.")], None)
        .unwrap_err()
        .to_string();
    assert!(dirs.contains("is the same file as"), "{dirs}");
}

#[test]
fn hyperfine_failed_runs_are_measured_and_parameters_kept() {
    // `hyperfine -N -i --runs 8 -L n 1,2 ...`: some runs exited with a non-zero status.
    let got = imported("hyperfine-ignore-failure.json");
    let raw = raw("hyperfine-ignore-failure.json");
    for h in raw["results"].as_array().unwrap() {
        let b = bench(&got.result, h["command"].as_str().unwrap());
        assert_eq!(counts(b), [8]);
        // hyperfine's own mean, failed runs included.
        assert!(close(mean(b), h["mean"].as_f64().unwrap(), 1e-9));
        let codes: Vec<Option<i32>> = b.executions.iter().map(|e| e.exit_code).collect();
        let expected: Vec<Option<i32>> = h["exit_codes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_i64().filter(|&c| c != 0).map(|c| c as i32))
            .collect();
        assert_eq!(codes, expected);
        assert!(
            codes.iter().any(Option::is_some),
            "the fixture has failures"
        );
        assert!(
            b.failures.is_empty(),
            "measured, as rigor run -i measures them"
        );
        assert_eq!(
            b.parameters.get("n").map(String::as_str),
            h["parameters"]["n"].as_str()
        );
    }
}

#[test]
fn rebench_1_4_header_and_max_rss_kept_as_each_invocation_s_peak_memory() {
    // ReBench 1.4 with its Time adapter: the header without `#`, MaxRSS in kb beside the time.
    let got = imported("rebench-1.4.data");
    assert_eq!(got.format, Format::Rebench);
    let r = &got.result;
    let names: Vec<&str> = r.benchmarks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["0.02 sleep Sleeps 1", "0.01 sleep Sleeps 1"]);
    let b = bench(r, "0.02 sleep Sleeps 1");
    assert_eq!(counts(b), [3, 3]);
    // The `total` lines: 20, 50 and 20 ms.
    assert!(close(mean(b), 0.030, 1e-12));
    assert_eq!(b.family.as_deref(), Some("0.02"));
    assert_eq!(
        notes(r),
        [&ImportNote::KeptAsMetric {
            name: "MaxRSS".into(),
            metric: "peak-memory".into(),
            unit: "kb".into(),
            values: 6
        }]
    );
    // `/usr/bin/time`'s peak of each invocation (1420, 1492 and 1396 kb): its peak memory.
    let rss: Vec<u64> = b.executions.iter().map(|e| e.max_rss).collect();
    assert_eq!(rss, [1420 * 1024, 1492 * 1024, 1396 * 1024]);
    let peak = b.for_metric(&Metric::PeakMemory).unwrap();
    let values: Vec<f64> = peak.samples.iter().map(|s| s.value).collect();
    assert_eq!(values, [1420.0 * 1024.0, 1492.0 * 1024.0, 1396.0 * 1024.0]);
    // The executions' wall times are the invocations' times (one iteration each).
    let walls: Vec<f64> = b.executions.iter().map(|e| e.wall.get()).collect();
    assert!(close(walls[1], 0.050, 1e-12), "{walls:?}");
    // Only values that are not times: refused, naming them.
    let e = error(
        "r.data",
        "invocation\titeration\tvalue\tunit\tcriterion\tbenchmark\n1\t1\t1420\tkb\tMaxRSS\tb\n",
        None,
    );
    assert!(
        e.contains("no times: only 'MaxRSS' in kb; rigor analyses times"),
        "{e}"
    );
}

#[test]
fn rebench_criteria_that_are_not_times_become_metrics_beside_the_times() {
    let header = "invocation\titeration\tvalue\tunit\tcriterion\tbenchmark\n";
    let lines = [
        "1\t1\t10\tms\ttotal\tb",
        "1\t1\t300\tcount\tallocations\tb",
        "1\t2\t12\tms\ttotal\tb",
        "1\t2\t310\tcount\tallocations\tb",
        "2\t1\t11\tms\ttotal\tb",
        "2\t1\t305\tcount\tallocations\tb",
        "2\t2\t11\tms\ttotal\tb",
        "2\t2\t306\tcount\tallocations\tb",
        // No benchmark 'c' was timed: left out.
        "1\t1\t7\tcount\tallocations\tc",
        // A name no metric can have.
        "1\t1\t2\tcount\tgc runs\tb",
    ];
    let text = format!("{header}{}\n", lines.join("\n"));
    let got = import::parse(Path::new("r.data"), &text, None).unwrap();
    let r = &got.result;
    let b = bench(r, "b");
    assert_eq!(counts(b), [2, 4]);
    let allocations = b
        .for_metric(&Metric::Reported("allocations".into()))
        .unwrap();
    // Per invocation, per iteration, as the times.
    assert!(allocations.layout.has_iterations());
    let values: Vec<f64> = allocations.samples.iter().map(|s| s.value).collect();
    assert_eq!(values, [300.0, 310.0, 305.0, 306.0]);
    assert_eq!(allocations.quantity(), Quantity::Count);
    let said: Vec<String> = notes(r).iter().map(ToString::to_string).collect();
    assert_eq!(
        said,
        [
            "kept 4 values of 'allocations' (in count) as a metric: `rigor analyze --metric \
             allocations` analyses them",
            "left out 1 values of 'allocations' (in count): no time was measured beside them, \
             or the name is not one a metric can have",
            "left out 1 values of 'gc runs' (in count): no time was measured beside them, or \
             the name is not one a metric can have",
        ]
    );
}

#[test]
fn a_criterion_baseline_folder_is_read_and_the_slope_noted() {
    // `cargo bench -- --save-baseline main`: target/criterion/fib 10/main/.
    let got = imported("criterion-baseline/fib 10/main");
    assert_eq!(got.format, Format::Criterion);
    let b = bench(&got.result, "fib 10");
    assert_eq!(counts(b), [10]);
    let est = raw("criterion-baseline/fib 10/main/estimates.json");
    let m = est["mean"]["point_estimate"].as_f64().unwrap() * 1e-9;
    assert!(close(mean(b), m, 1e-9));
    assert_eq!(b.family.as_deref(), Some("fib 10"));
    assert_eq!(
        notes(&got.result),
        [&ImportNote::SlopeNotMean {
            benchmarks: vec!["fib 10".into()]
        }]
    );
    let text = got.result.warnings[0].to_string();
    assert!(text.contains("prints is the slope"), "{text}");
}
