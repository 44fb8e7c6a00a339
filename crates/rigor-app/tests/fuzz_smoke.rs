//! A short fuzz smoke inside `cargo test`: every parser of user input (result JSON, each
//! importer, long CSV, plan TOML, the sample protocol) is fed a few thousand mutated real files
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

    /// The shell-syntax scan and the command parser behind it (shell syntax through `sh`,
    /// other commands split into words), on hyperfine's command lines mutated with the
    /// characters a shell cares about.
    #[test]
    fn command_lines_never_panic(pick in any::<usize>(), e in edits()) {
        let text = mutate_with(COMMANDS[pick % COMMANDS.len()], &e, SHELL_CHARS);
        let _ = rigor_runner::shell_syntax::find(&text);
        let (auto, _) = rigor_app::settings::expand::shell(None, &[]);
        let _ = auto.parse(&text);
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
