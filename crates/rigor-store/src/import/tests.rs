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
    assert_eq!(r.warnings.len(), 2);
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
