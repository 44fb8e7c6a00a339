//! A short fuzz smoke inside `cargo test`: every parser of user input (result JSON — torn
//! running files cut anywhere too —, each importer, long CSV, plan TOML, the sample protocol,
//! the confidence levels and fractions of options) is fed a few thousand mutated real files
//! and random byte strings, and must return `Ok` or an error, never panic. Imported results that
//! parse are analysed too. The long fuzzing runs are under `fuzz/` (see docs/fuzzing.md).

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use rigor_app::plan_file::PlanFile;
use rigor_store::import::{self, Format};

/// The CLI's fixtures: v1 result files and a plan.
fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rigor/tests/fixtures")
}

/// Real files of every format (small ones: each case copies one): the importers' fixtures, which
/// live with the importers in rigor-store, and rigor's own v1 results.
fn corpus() -> Vec<String> {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rigor-store/tests/fixtures/import");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e != "md"))
        .collect();
    files.push(dir.join("criterion/fib 10/new/sample.json"));
    files.push(dir.join("criterion/fib 10/new/benchmark.json"));
    files.push(fixtures().join("v1_run.json"));
    files.push(fixtures().join("v1_csv.json"));
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// Characters that change the structure of JSON, TOML, CSV and tab-separated text.
const ALPHABET: &[u8] = b"{}[]\",:0123456789-+.eE \n\t#=truefalsnul\\x'";

/// Edits: replace, insert or delete a byte, or repeat a slice, at a position.
fn mutate(text: &str, edits: &[(usize, u8, usize)]) -> String {
    let mut b = text.as_bytes().to_vec();
    for &(pos, kind, pick) in edits {
        let at = if b.is_empty() { 0 } else { pos % b.len() };
        let c = ALPHABET[pick % ALPHABET.len()];
        match kind % 4 {
            0 if !b.is_empty() => b[at] = c,
            1 => b.insert(at, c),
            2 if !b.is_empty() => {
                b.remove(at);
            }
            _ => {
                let end = (at + pick % 16).min(b.len());
                let slice = b[at..end].to_vec();
                b.splice(at..at, slice);
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

fn edits() -> impl Strategy<Value = Vec<(usize, u8, usize)>> {
    prop::collection::vec((any::<usize>(), any::<u8>(), any::<usize>()), 1..6)
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Parses as every format (and sniffed), and analyses what parses.
fn import_all(text: &str) {
    let path = Path::new("fuzz.json");
    let formats = std::iter::once(None).chain(Format::ALL.iter().copied().map(Some));
    for f in formats {
        if let Ok(mut imported) = import::parse(path, text, f) {
            rigor_app::analysis::analyze_all(
                &mut imported.result,
                &rigor_app::settings::AnalysisSettings::default(),
            );
        }
    }
}

const CSV: &str = "build,exec,iter,value,warmup,bench\n0,0,0,1.5,false,a\n0,0,1,1.25,false,a\n\
                   0,1,0,2,true,b\n1,0,0,1e-3,false,b\n";

const SAMPLES: &str =
    "{\"value\": 1.5, \"unit\": \"ms\"}\n{\"value\": 2e3, \"unit\": \"ns\"}\n\n{\"value\": 0.25}\n";

proptest! {
    #![proptest_config(config(600))]

    #[test]
    fn importers_and_result_files_never_panic(seed in any::<usize>(), e in edits()) {
        let corpus = corpus();
        let text = mutate(&corpus[seed % corpus.len()], &e);
        import_all(&text);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let text = String::from_utf8_lossy(&bytes);
        import_all(&text);
        let _ = rigor_protocol::parse_samples(&text);
        let _ = PlanFile::parse(Path::new("p.toml"), &text);
        let _ = rigor_store::parse_long_csv(
            Path::new("d.csv"), &bytes, &["a".into()], "b", None, false);
    }
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn long_csv_never_panics(e in edits(), levels in 1usize..4, negative in any::<bool>()) {
        let text = mutate(CSV, &e);
        let cols: Vec<String> =
            ["build", "exec", "iter"][3 - levels..].iter().map(|s| s.to_string()).collect();
        let _ = rigor_store::parse_long_csv(
            Path::new("d.csv"), text.as_bytes(), &cols, "value", Some("bench"), negative);
    }

    #[test]
    fn plan_files_never_panic(e in edits()) {
        let plan = std::fs::read_to_string(fixtures().join("plan.toml")).unwrap();
        let text = mutate(&plan, &e);
        if let Ok(p) = PlanFile::parse(Path::new("p.toml"), &text) {
            use rigor_store::LevelKind::{Build, Execution, Iteration};
            for b in &p.benchmark {
                for level in [Build, Execution, Iteration] {
                    let _ = b.count(level);
                }
                let _ = b.top_units_for(
                    rigor_units::Fraction::percent(1.0).unwrap(),
                    p.confidence,
                    rigor_stats::Quantile::StudentT,
                );
            }
        }
    }

    #[test]
    fn sample_protocol_never_panics(e in edits()) {
        let _ = rigor_protocol::parse_samples(&mutate(SAMPLES, &e));
    }
}

/// A running result file as a killed run leaves it (header, then the `log`), written by the
/// incremental writer: three executions of two benchmarks, with iterations.
fn running_file() -> String {
    use rigor_store::{BenchmarkRecord, ExecutionRecord, IncrementalWriter, Layout, LogEntry};
    use rigor_units::{ConfidenceLevel, Seconds, Seed};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    let mut header = rigor_store::ResultFile::new(Seed(1), ConfidenceLevel::NINETY_FIVE);
    for name in ["a", "b"] {
        header
            .benchmarks
            .push(BenchmarkRecord::new(name, name, Layout::new(false, true)));
    }
    let mut w = IncrementalWriter::create(&path, &header).unwrap();
    for execution in 0..3 {
        for benchmark in 0..2 {
            w.append(&LogEntry::Execution {
                benchmark,
                record: ExecutionRecord {
                    build: None,
                    env_pad: None,
                    round: execution,
                    execution,
                    warmup: false,
                    wall: Seconds(0.01),
                    user: Seconds(0.005),
                    sys: Seconds(0.001),
                    max_rss: 1000,
                    exit_code: None,
                    resolution: None,
                },
                iterations: Some(vec![0.001, 0.0011, 0.0009]),
                discarded: 0,
            })
            .unwrap();
        }
    }
    drop(w);
    std::fs::read_to_string(&path).unwrap()
}

proptest! {
    #![proptest_config(config(800))]

    /// A running file cut anywhere (a crash, a full disk) and mutated: sniffed and repaired, or
    /// refused with an error, never a panic; what a repair keeps is said in a warning.
    #[test]
    fn torn_result_files_never_panic(cut in any::<usize>(), e in edits(), mutated in any::<bool>()) {
        let text = running_file();
        let mut cut = cut % (text.len() + 1);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let torn = &text[..cut];
        let torn = if mutated { mutate(torn, &e) } else { torn.to_string() };
        if let Ok(imported) = import::parse(Path::new("torn.json"), &torn, None) {
            let repaired = imported
                .result
                .warnings
                .iter()
                .any(|w| matches!(w, rigor_store::Warning::Repaired { .. }));
            prop_assert!(repaired || torn.trim_end().ends_with('}'), "{torn}");
        }
    }

    /// The confidence levels and fractions the options read: a value or an error, never a
    /// panic, and what is accepted lies within (0, 1).
    #[test]
    fn confidence_and_fraction_values_never_panic(text in "[-+0-9.eE%a-z ]{0,12}") {
        if let Ok(c) = text.parse::<rigor_units::ConfidenceLevel>() {
            prop_assert!(c.get() > 0.0 && c.get() < 1.0);
        }
        if let Ok(f) = text.parse::<rigor_units::Fraction>() {
            prop_assert!((0.0..=1.0).contains(&f.get()));
        }
    }
}

#[test]
fn plans_whose_lists_disagree_with_their_levels_are_refused() {
    let plan = std::fs::read_to_string(fixtures().join("plan.toml")).unwrap();
    let three = plan.replace(
        "levels = [\n    \"execution\",",
        "levels = [\n    \"build\",\n    \"execution\",",
    );
    assert_ne!(three, plan);
    let e = PlanFile::parse(Path::new("p.toml"), &three).unwrap_err();
    let text = format!("{e}: {}", std::error::Error::source(&e).unwrap());
    assert!(
        text.contains("p.toml") && text.contains("2 costs for 3 levels"),
        "{text}"
    );
    assert!(PlanFile::parse(Path::new("p.toml"), &plan).is_ok());
}
