//! A short fuzz smoke inside `cargo test`: every parser of user input (result JSON — torn
//! running files cut anywhere too —, each importer and the gzip reading before it, long CSV, plan
//! TOML, the sample protocol, hyperfine's parameter lists, names and `--reference` as a run
//! resolves them, simulation specs, the confidence levels and fractions of options) is fed a few
//! thousand mutated real files and random byte strings, and must return `Ok` or an error, never
//! panic. Imported results that parse are analysed too. The long fuzzing runs are under `fuzz/`
//! (see docs/fuzzing.md).

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use rigor_app::plan_file::PlanFile;
use rigor_store::import::{self, Format};

/// The CLI's fixtures: v1 result files and a plan.
fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rigor/tests/fixtures")
}

/// Real files of every format (small ones: each case copies one): the importers' fixtures, which
/// live with the importers in rigor-store, and rigor's own v1 results; compressed ones (pyperf's
/// `.json.gz`) as they are, bytes.
fn corpus_bytes() -> Vec<Vec<u8>> {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rigor-store/tests/fixtures/import");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e != "md"))
        .collect();
    files.push(dir.join("criterion/fib 10/new/sample.json"));
    files.push(dir.join("criterion/fib 10/new/benchmark.json"));
    files.push(dir.join("criterion-baseline/fib 10/main/sample.json"));
    files.push(fixtures().join("v1_run.json"));
    files.push(fixtures().join("v1_csv.json"));
    files.sort();
    files.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// The text files of [`corpus_bytes`].
fn corpus() -> Vec<String> {
    corpus_bytes()
        .into_iter()
        .filter_map(|b| String::from_utf8(b).ok())
        .collect()
}

/// The gzip-compressed files of [`corpus_bytes`].
fn compressed() -> Vec<Vec<u8>> {
    corpus_bytes()
        .into_iter()
        .filter(|b| b.starts_with(&[0x1f, 0x8b]))
        .collect()
}

/// Bytes edited as [`mutate`] edits text (any byte, not only the alphabet's).
fn mutate_bytes(bytes: &[u8], edits: &[(usize, u8, usize)]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    for &(pos, kind, pick) in edits {
        let at = if b.is_empty() { 0 } else { pos % b.len() };
        match kind % 3 {
            0 if !b.is_empty() => b[at] = pick as u8,
            1 => b.insert(at, pick as u8),
            _ if !b.is_empty() => {
                b.remove(at);
            }
            _ => {}
        }
    }
    b
}

/// Reads bytes as a file is read (gzip decompressed first), as every format and sniffed.
fn import_bytes(bytes: &[u8]) {
    let path = Path::new("fuzz.json.gz");
    let formats = std::iter::once(None).chain(Format::ALL.iter().copied().map(Some));
    for f in formats {
        if let Ok(mut imported) = import::parse_bytes(path, bytes.to_vec(), f) {
            rigor_app::analysis::analyze_all(
                &mut imported.result,
                &rigor_app::settings::AnalysisSettings::default(),
            );
        }
    }
}

/// A text file compressed with gzip.
fn gzip(text: &str) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(text.as_bytes()).unwrap();
    e.finish().unwrap()
}

/// Characters that change the structure of JSON, TOML, CSV and tab-separated text.
const ALPHABET: &[u8] = b"{}[]\",:0123456789-+.eE \n\t#=truefalsnul\\x'";

/// Edits: replace, insert or delete a byte, or repeat a slice, at a position.
fn mutate(text: &str, edits: &[(usize, u8, usize)]) -> String {
    mutate_with(text, edits, ALPHABET)
}

/// [`mutate`] with the bytes of `alphabet`.
fn mutate_with(text: &str, edits: &[(usize, u8, usize)], alphabet: &[u8]) -> String {
    let mut b = text.as_bytes().to_vec();
    for &(pos, kind, pick) in edits {
        let at = if b.is_empty() { 0 } else { pos % b.len() };
        let c = alphabet[pick % alphabet.len()];
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

const SAMPLES: &str = "{\"value\": 1.5, \"unit\": \"ms\"}\n{\"value\": 2e3, \"unit\": \"ns\"}\n\n{\"value\": 0.25}\n\
     {\"metric\": \"allocations\", \"value\": 12}\n{\"metric\": \"heap\", \"value\": 3, \"unit\": \"KiB\"}\n";

proptest! {
    #![proptest_config(config(600))]

    #[test]
    fn importers_and_result_files_never_panic(seed in any::<usize>(), e in edits()) {
        let corpus = corpus();
        let text = mutate(&corpus[seed % corpus.len()], &e);
        import_all(&text);
    }

    #[test]
    fn compressed_files_never_panic(seed in any::<usize>(), e in edits(), whole in any::<bool>()) {
        // A real .json.gz with its bytes edited, or a mutated text file compressed whole.
        let bytes = if whole {
            let corpus = corpus();
            gzip(&mutate(&corpus[seed % corpus.len()], &e))
        } else {
            let gz = compressed();
            mutate_bytes(&gz[seed % gz.len()], &e)
        };
        import_bytes(&bytes);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let text = String::from_utf8_lossy(&bytes);
        import_all(&text);
        import_bytes(&bytes);
        import_bytes(&[&[0x1f, 0x8b][..], &bytes].concat());
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
        let _ = rigor_protocol::read_samples(&mutate(SAMPLES, &e));
    }

    /// The shell-syntax scan and the command parser behind it (shell syntax through `sh`,
    /// other commands split into words), on hyperfine's command lines mutated with the
    /// characters a shell cares about.
    #[test]
    fn command_lines_never_panic(pick in any::<usize>(), e in edits()) {
        let text = mutate_with(COMMANDS[pick % COMMANDS.len()], &e, SHELL_CHARS);
        let _ = rigor_runner::shell_syntax::find(&text);
        let (auto, _, _) = rigor_app::settings::expand::shell(None, &[], false);
        let _ = auto.parse(&text);
    }
}

/// Text made of what parameter lists, names, references and simulation specs are made of.
fn words() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(&b"ab{}x,\\= %ms0.15-"[..]), 0..24)
        .prop_map(|b| String::from_utf8_lossy(&b).into_owned())
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
                    preempted: None,
                    run_delay: None,
                    metrics: Default::default(),
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

    /// hyperfine's parameter lists (`\,` escapes), names per command or per benchmark, and a
    /// `--reference` that may be a command to add, as a simulated run resolves them.
    #[test]
    fn run_requests_with_hyperfine_parameters_never_panic(
        lists in prop::collection::vec((words(), words()), 0..3),
        commands in prop::collection::vec(words(), 1..3),
        names in prop::collection::vec(words(), 0..5),
        reference in prop::option::of(words()),
        reference_name in prop::option::of(words()),
    ) {
        let request = rigor_app::settings::RunRequest {
            commands: commands.iter().map(|c| format!("mean=1ms,{c}")).collect(),
            names,
            parameters: rigor_app::settings::Parameters { scan: None, lists },
            comparison: rigor_app::settings::ComparisonSettings {
                reference,
                ..Default::default()
            },
            reference_name,
            simulate: true,
            rigor_run: true,
            seed: Some(rigor_units::Seed(1)),
            ..Default::default()
        };
        let _ = request.resolve();
    }

    #[test]
    fn parameter_lists_split_as_hyperfine_splits_them(list in words()) {
        let values = rigor_app::settings::expand::split_list(&list);
        prop_assert!(!values.is_empty());
        // Unescaped commas separate the values: none is left in a value but escaped ones.
        let escaped = list.matches("\\,").count();
        prop_assert!(values.iter().map(|v| v.matches(',').count()).sum::<usize>() <= escaped);
    }

    #[test]
    fn simulation_specs_never_panic(spec in words()) {
        let _ = rigor_runner::SimSpec::parse(&spec);
    }
}

/// Command lines of hyperfine's README and issue #27, with every kind of shell syntax.
const COMMANDS: &[&str] = &[
    "gzip -c f > /dev/null",
    "echo ${HYPERFINE_ITERATION} >> iter.log",
    "sync; echo 3 | sudo tee /proc/sys/vm/drop_caches",
    "sleep 0.005",
    "grep -i 'todo list' \"a b\" --opt=x",
    r"echo \$HOME `date` $(id -u) *.rs ~/x f[0-9] && LC_ALL=C sort # c",
];

/// Characters that change how a shell reads a command line.
const SHELL_CHARS: &[u8] = b"'\"\\$`|&;<>()*?[]~#= {}\n\tax1";

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
