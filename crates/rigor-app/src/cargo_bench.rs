//! `rigor bench`: a Cargo project's `rigor-bench` targets as rigor benchmarks.
//!
//! 1. [`build`]: `cargo bench --no-run --message-format=json-render-diagnostics` builds the bench
//!    targets; cargo's JSON messages name each target's executable.
//! 2. [`list`]: each executable lists its benchmarks (`--rigor-list`, JSON lines); a target that
//!    is not a `rigor-bench` harness (libtest, criterion) refuses the flag and is skipped.
//! 3. [`tune`]: one process per target tunes the evaluations per sample of the selected
//!    benchmarks (`--rigor-tune`, Chen & Revels 2016), so that every execution of the experiment
//!    then runs the same count ([`Selected::benchmark`] passes `--evals N`).
//!
//! Nothing here prints; cargo's own progress goes to standard error as it always does.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rigor_protocol::{ITERATIONS_ENV, SAMPLES_FILE_ENV};
use rigor_runner::{Benchmark, CommandLine};
use serde::Deserialize;
use thiserror::Error;

mod tuning;
pub use tuning::{Allocs, Tuned, TuningFailure, tune};

/// How to build the bench targets.
#[derive(Debug, Clone, Default)]
pub struct CargoSettings {
    /// The cargo program (`$CARGO` when set, else `cargo`).
    pub cargo: PathBuf,
    /// `--manifest-path`.
    pub manifest_path: Option<PathBuf>,
    /// `--package`.
    pub package: Option<String>,
    /// `--bench NAME` for each (all bench targets when empty).
    pub benches: Vec<String>,
    /// `--features`.
    pub features: Option<String>,
    /// `--target-dir` (`rigor bench --against` builds the other copy into a folder of its own,
    /// so that its executables do not replace the current ones under a shared
    /// `CARGO_TARGET_DIR`).
    pub target_dir: Option<PathBuf>,
}

impl CargoSettings {
    /// The cargo program: `$CARGO` (set when rigor itself runs under cargo), else `cargo`.
    pub fn default_cargo() -> PathBuf {
        std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from)
    }
}

/// What went wrong finding or preparing the benchmarks.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CargoBenchError {
    /// cargo could not be started.
    #[error("running {cargo}")]
    Spawn {
        /// The program.
        cargo: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// cargo failed (its messages went to standard error).
    #[error("cargo bench --no-run failed ({status}); its messages are above")]
    Build {
        /// cargo's exit status.
        status: String,
    },
    /// A layout build of `--builds` failed (cargo's messages went to standard error).
    #[error(
        "building layout {layout} of bench target '{target}' failed ({status}); its messages are \
         above. --builds links each build's functions in a shuffled order with lld's \
         --shuffle-sections (the linker Rust uses on x86_64 Linux since 1.90); with another \
         linker, ask for lld (RUSTFLAGS=\"-C link-arg=-fuse-ld=lld\") or leave out --builds"
    )]
    Layout {
        /// The bench target.
        target: String,
        /// The layout (1-based).
        layout: usize,
        /// cargo's exit status.
        status: String,
    },
    /// A layout build could not be moved to where its runs take it from.
    #[error("keeping a layout build at {}", path.display())]
    KeepLayout {
        /// Where it was to be kept.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// cargo built no bench target.
    #[error("cargo built no bench target{}", if benches.is_empty() { String::new() } else { format!(" named {}", benches.join(", ")) })]
    NoTargets {
        /// The `--bench` names asked for.
        benches: Vec<String>,
    },
    /// `--build` or `--build-root` was given.
    #[error(
        "--build and --build-root are not used by rigor bench: cargo builds the bench targets, \
         and --builds N alone links N layouts of them"
    )]
    BuildUnused,
    /// `--builds` with a run whose length is decided as it goes.
    #[error(
        "--builds links its layouts before the run, so it takes a fixed count of executions: \
         leave out --until-decided, --precision and --budget (or --builds)"
    )]
    BuildsAdaptive,
    /// `--builds` where the bench targets were not linked by lld.
    #[error(
        "--builds links each build's functions in a shuffled order with lld's \
         --shuffle-sections, and these bench targets were linked by another linker: ask for lld \
         (RUSTFLAGS=\"-C link-arg=-fuse-ld=lld\", or the project's .cargo/config.toml) or leave \
         out --builds"
    )]
    NotLld,
    /// `--builds` 2 or 3 with `--against`: too few builds a side for any verdict.
    #[error(
        "--builds {builds} with --against cannot decide a change: a change of the minimum must \
         also show in the builds' own minima, and with {builds} builds a side Mann–Whitney's \
         least p is {least_p:.3}; use --builds 4 or more (6 without --builds), or --builds 1"
    )]
    TooFewLayouts {
        /// Builds a side asked for.
        builds: usize,
        /// The least p-value so few builds a side can give.
        least_p: f64,
    },
    /// `-i/--ignore-failure` was given.
    #[error(
        "-i/--ignore-failure is not used by rigor bench: a benchmark whose process fails reports \
         no samples, and its process's time is no evaluation's time; a failing benchmark is \
         reported and the others are measured"
    )]
    IgnoreFailureUnused,
    /// `--name` was given.
    #[error("--name is not used by rigor bench: benchmarks are named after their functions")]
    NameUnused,
    /// A baseline name that is no plain file name.
    #[error("baseline name '{0}' must be a plain file name (no '/', not starting with '.')")]
    BaselineName(String),
    /// `--baseline` names no saved baseline.
    #[error("no baseline at {}: save one with --save-baseline {name}", path.display())]
    NoBaseline {
        /// Where it was looked for.
        path: PathBuf,
        /// Its name.
        name: String,
    },
    /// No bench target is a rigor-bench harness.
    #[error(
        "no bench target uses rigor-bench (a [[bench]] with harness = false whose main runs \
         rigor_bench::Harness)"
    )]
    NoRigorBench,
    /// The filters match no benchmark.
    #[error("no benchmark matches {0}: `rigor bench --list` lists them")]
    NoMatch(String),
    /// A file or folder of the baselines could not be made.
    #[error("{what} {}", path.display())]
    Baseline {
        /// "creating", "saving the baseline".
        what: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The baseline could not be read back or written with the run's benchmarks.
    #[error("saving the baseline")]
    SaveBaseline(#[source] rigor_store::StoreError),
    /// The run could not be compared with its baseline.
    #[error("comparing with the baseline {}", path.display())]
    Compare {
        /// The baseline.
        path: PathBuf,
        /// Why.
        #[source]
        source: Box<crate::AppError>,
    },
    /// The other build of `--against` cannot be found or checked out.
    #[error("--against {against}: {reason}")]
    Against {
        /// What the user named.
        against: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// A bench target's harness failed or answered something unreadable.
    #[error("bench target '{target}' ({}): {message}", executable.display())]
    Harness {
        /// The target.
        target: String,
        /// Its executable.
        executable: PathBuf,
        /// What happened.
        message: String,
    },
}

/// A built bench target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The target's name (`benches/NAME.rs`).
    pub name: String,
    /// Its executable.
    pub executable: PathBuf,
    /// Its package's directory: the working directory of its runs, as under `cargo bench`.
    pub dir: PathBuf,
}

/// The part of a cargo JSON message read here.
#[derive(Deserialize)]
struct Message {
    reason: String,
    #[serde(default)]
    target: Option<MessageTarget>,
    #[serde(default)]
    executable: Option<PathBuf>,
    #[serde(default)]
    manifest_path: Option<PathBuf>,
}

#[derive(Deserialize)]
struct MessageTarget {
    name: String,
    kind: Vec<String>,
}

/// Builds the bench targets and returns them in cargo's order.
///
/// # Errors
/// cargo cannot be run or fails, or builds no bench target.
pub fn build(s: &CargoSettings) -> Result<Vec<Target>, CargoBenchError> {
    let mut cmd = Command::new(&s.cargo);
    cmd.args([
        "bench",
        "--no-run",
        "--message-format=json-render-diagnostics",
    ]);
    if let Some(p) = &s.manifest_path {
        cmd.arg("--manifest-path").arg(p);
    }
    if let Some(p) = &s.package {
        cmd.args(["--package", p]);
    }
    for b in &s.benches {
        cmd.args(["--bench", b]);
    }
    if let Some(f) = &s.features {
        cmd.args(["--features", f]);
    }
    if let Some(d) = &s.target_dir {
        cmd.arg("--target-dir").arg(d);
    }
    let out = run_cargo(s, &mut cmd)?;
    let targets = targets_from_messages(&String::from_utf8_lossy(&out.stdout));
    if targets.is_empty() {
        return Err(CargoBenchError::NoTargets {
            benches: s.benches.clone(),
        });
    }
    Ok(targets)
}

/// Builds bench target `target` (of the package in folder `package`) again with `rustc_args`
/// given to its final compilation alone (`cargo rustc`): a code layout of the same source
/// (Kalibera & Tůma 2006 make builds a level because layout changes a program's speed), by lld's
/// `--shuffle-sections` or a linker that links several. Only the bench target is compiled and
/// linked again; the executable's path is returned, cargo's own for these arguments (they are
/// in its file name's hash, so layouts do not replace each other). `layout` names it in errors.
///
/// # Errors
/// [`CargoBenchError::Layout`] when cargo fails (most likely a linker that is not lld),
/// [`CargoBenchError::NoTargets`] when it reports no executable.
pub fn build_layout(
    s: &CargoSettings,
    target: &str,
    package: &Path,
    rustc_args: &[String],
    layout: usize,
) -> Result<PathBuf, CargoBenchError> {
    let mut cmd = Command::new(&s.cargo);
    cmd.args([
        "rustc",
        "--quiet",
        "--profile",
        "bench",
        "--bench",
        target,
        "--message-format=json-render-diagnostics",
    ]);
    cmd.arg("--manifest-path").arg(package.join("Cargo.toml"));
    if let Some(f) = &s.features {
        cmd.args(["--features", f]);
    }
    if let Some(d) = &s.target_dir {
        cmd.arg("--target-dir").arg(d);
    }
    cmd.arg("--").args(rustc_args);
    let out = run_cargo(s, &mut cmd).map_err(|e| match e {
        CargoBenchError::Build { status } => CargoBenchError::Layout {
            target: target.to_string(),
            layout,
            status,
        },
        e => e,
    })?;
    targets_from_messages(&String::from_utf8_lossy(&out.stdout))
        .into_iter()
        .find(|t| t.name == target)
        .map(|t| t.executable)
        .ok_or_else(|| CargoBenchError::NoTargets {
            benches: vec![target.to_string()],
        })
}

/// Runs a cargo command (its messages to standard error), its standard output when it succeeds.
fn run_cargo(
    s: &CargoSettings,
    cmd: &mut Command,
) -> Result<std::process::Output, CargoBenchError> {
    let out = cmd
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|source| CargoBenchError::Spawn {
            cargo: s.cargo.display().to_string(),
            source,
        })?;
    if !out.status.success() {
        return Err(CargoBenchError::Build {
            status: out.status.to_string(),
        });
    }
    Ok(out)
}

/// The manifest cargo would build with these settings (`cargo locate-project`), absolute.
///
/// # Errors
/// cargo cannot be run or finds no manifest.
pub fn manifest(s: &CargoSettings) -> Result<PathBuf, CargoBenchError> {
    let mut cmd = Command::new(&s.cargo);
    cmd.args(["locate-project", "--message-format", "plain"]);
    if let Some(p) = &s.manifest_path {
        cmd.arg("--manifest-path").arg(p);
    }
    let out = run_cargo(s, &mut cmd)?;
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    Ok(path.canonicalize().unwrap_or(path))
}

/// The bench executables among cargo's JSON messages (lines that are not JSON are ignored:
/// cargo prints nothing else on standard output, but build scripts may).
pub fn targets_from_messages(stdout: &str) -> Vec<Target> {
    let mut targets: Vec<Target> = Vec::new();
    for line in stdout.lines() {
        let Ok(m) = serde_json::from_str::<Message>(line) else {
            continue;
        };
        let (Some(target), Some(executable)) = (m.target, m.executable) else {
            continue;
        };
        if m.reason != "compiler-artifact" || !target.kind.iter().any(|k| k == "bench") {
            continue;
        }
        let dir = m
            .manifest_path
            .as_deref()
            .and_then(Path::parent)
            .map_or_else(PathBuf::new, Path::to_path_buf);
        if !targets.iter().any(|t| t.executable == executable) {
            targets.push(Target {
                name: target.name,
                executable,
                dir,
            });
        }
    }
    targets
}

/// A target's benchmarks, or why it is not a `rigor-bench` harness.
#[derive(Debug, Clone, PartialEq)]
pub enum Listing {
    /// The benchmarks.
    Benchmarks(Vec<Listed>),
    /// The target refused `--rigor-list` (another harness): what it said.
    NotRigorBench(String),
}

fn harness_error(t: &Target, message: impl Into<String>) -> CargoBenchError {
    CargoBenchError::Harness {
        target: t.name.clone(),
        executable: t.executable.clone(),
        message: message.into(),
    }
}

/// How a harness process ended: its output, and the limit it was stopped at when it ran past
/// it (the output is then what it wrote until killed).
struct HarnessRun {
    output: std::process::Output,
    killed_after: Option<std::time::Duration>,
}

fn run_harness(
    t: &Target,
    args: &[String],
    limit: Option<std::time::Duration>,
) -> Result<HarnessRun, CargoBenchError> {
    let mut child = Command::new(&t.executable)
        .arg("--bench")
        .args(args)
        .current_dir(&t.dir)
        // A rigor running under rigor must not hand its own samples file down.
        .env_remove(SAMPLES_FILE_ENV)
        .env_remove(ITERATIONS_ENV)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| harness_error(t, format!("cannot be run: {e}")))?;
    // Read both pipes while waiting, so that a harness that writes much never blocks on them.
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as _));
    let waited = |e: std::io::Error| harness_error(t, format!("cannot be waited for: {e}"));
    // Without a limit, a plain wait; with one, a poll every 5 ms (std has no wait with a
    // timeout; the runner's, with its process group, serves the measured executions).
    let mut killed_after = None;
    let status = match limit {
        None => child.wait().map_err(waited)?,
        Some(limit) => {
            let started = std::time::Instant::now();
            loop {
                if let Some(status) = child.try_wait().map_err(waited)? {
                    break status;
                }
                if started.elapsed() > limit {
                    let _ = child.kill();
                    killed_after = Some(limit);
                    break child.wait().map_err(waited)?;
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
    };
    Ok(HarnessRun {
        output: std::process::Output {
            status,
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
        },
        killed_after,
    })
}

/// What the harness said when `args` (its first: the flag) ran past `limit`.
fn past_limit(args: &[String], limit: std::time::Duration) -> String {
    format!(
        "{} did not end within {} (--timeout, for each benchmark it holds)",
        args.first().map_or("the harness", String::as_str),
        rigor_units::Seconds(limit.as_secs_f64())
    )
}

/// A benchmark as its harness lists it (`--rigor-list`): its name, the parts of the name when
/// it has them, and the settings of its group (rigor-bench's `Harness::group`). Harnesses older
/// than groups list the name alone (a missing field is `None`; a line without a name is an
/// error).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Listed {
    /// The name in its target (`group/function/input`).
    pub name: String,
    /// Its group.
    pub group: Option<String>,
    /// Its function within the group (the name's middle part), for a group's or an input's.
    pub function: Option<String>,
    /// The input it was registered with (`bench_with_inputs`).
    pub input: Option<String>,
    /// The group's samples per execution.
    pub samples: Option<usize>,
    /// The group's evaluations per sample (not tuned).
    pub evals: Option<u64>,
    /// The group's warm-up in every process (seconds); the harness applies it.
    pub warm_up_s: Option<f64>,
}

impl Listed {
    /// A benchmark known by its name alone.
    pub fn named(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }
}

/// Lists a target's benchmarks.
///
/// # Errors
/// The executable cannot be run, or lists lines that are not `{"name": …}`.
pub fn list(t: &Target) -> Result<Listing, CargoBenchError> {
    let out = run_harness(t, &["--rigor-list".to_string()], None)?.output;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        let first = said.lines().next().unwrap_or("").trim().to_string();
        return Ok(Listing::NotRigorBench(first));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut listed = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let l: Listed = match serde_json::from_str(line) {
            Ok(l) => l,
            // A plain `main` (`harness = false` without rigor-bench: a criterion bench being
            // migrated) ignores the flag and prints its own output: not a rigor-bench target,
            // skipped and said, rather than an error that stops every run.
            Err(_) if listed.is_empty() => {
                let shown: String = line.trim().chars().take(60).collect();
                return Ok(Listing::NotRigorBench(format!(
                    "it ignored --rigor-list and printed '{shown}'"
                )));
            }
            Err(e) => {
                return Err(harness_error(
                    t,
                    format!("--rigor-list line {}: {e}", i + 1),
                ));
            }
        };
        listed.push(l);
    }
    Ok(Listing::Benchmarks(listed))
}

/// A benchmark selected to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    /// Its name in the result: the function's, or `target/function` when two targets share it.
    pub name: String,
    /// The function's name in its target.
    pub function: String,
    /// The target it belongs to.
    pub target: Target,
    /// How its target listed it: its group, input and the group's settings.
    pub listed: Listed,
}

impl Selected {
    /// The rigor benchmark: one execution runs this function alone with `evals` fixed.
    pub fn benchmark(&self, evals: u64) -> Benchmark {
        let mut b = Benchmark::new(
            self.name.clone(),
            CommandLine::Direct(vec![
                self.target.executable.display().to_string(),
                "--bench".into(),
                "--exact".into(),
                self.function.clone(),
                "--evals".into(),
                evals.to_string(),
            ]),
        );
        b.dir = Some(self.target.dir.clone());
        b
    }
}

/// Whether a benchmark named `name` is selected by `filter`: equal to it (`exact`), or
/// containing it.
pub fn matches(name: &str, filter: &str, exact: bool) -> bool {
    if exact {
        name == filter
    } else {
        name.contains(filter)
    }
}

/// The benchmarks of `listed` targets whose names contain any of `filters` (equal one, when
/// `exact`; all without filters), named by function, or `target/function` where two targets
/// share a name.
pub fn select(listed: &[(Target, Vec<Listed>)], filters: &[String], exact: bool) -> Vec<Selected> {
    let matches =
        |name: &str| filters.is_empty() || filters.iter().any(|f| matches(name, f, exact));
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (_, benches) in listed {
        for l in benches {
            *count.entry(l.name.as_str()).or_default() += 1;
        }
    }
    let mut out = Vec::new();
    for (target, benches) in listed {
        for l in benches.iter().filter(|l| matches(&l.name)) {
            let n = &l.name;
            let name = if count[n.as_str()] > 1 {
                format!("{}/{n}", target.name)
            } else {
                n.clone()
            };
            out.push(Selected {
                name,
                function: n.clone(),
                target: target.clone(),
                listed: l.clone(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_bench_executables_in_cargo_messages() {
        let stdout = r#"{"reason":"compiler-artifact","target":{"name":"dep","kind":["lib"]},"executable":null,"manifest_path":"/p/dep/Cargo.toml"}
not json from a build script
{"reason":"compiler-artifact","target":{"name":"speed","kind":["bench"]},"executable":"/t/release/deps/speed-1","manifest_path":"/p/app/Cargo.toml"}
{"reason":"compiler-artifact","target":{"name":"app","kind":["bin"]},"executable":"/t/release/app","manifest_path":"/p/app/Cargo.toml"}
{"reason":"compiler-artifact","target":{"name":"speed","kind":["bench"]},"executable":"/t/release/deps/speed-1","manifest_path":"/p/app/Cargo.toml"}
{"reason":"build-finished","success":true}
"#;
        assert_eq!(
            targets_from_messages(stdout),
            vec![Target {
                name: "speed".into(),
                executable: "/t/release/deps/speed-1".into(),
                dir: "/p/app".into(),
            }]
        );
    }

    /// A plain `main` (`harness = false`, no rigor-bench) ignores `--rigor-list`, exits 0 and
    /// prints its own output: skipped with what it printed, not an error that stops every run
    /// (a criterion user's trial); a rigor-bench listing that breaks after its first line is
    /// still an error.
    #[cfg(unix)]
    #[test]
    fn a_target_that_ignores_the_listing_flag_is_not_a_rigor_bench_harness() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = |body: &str| {
            let path = dir.path().join(format!("t{}", body.len()));
            std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            Target {
                name: "plain".into(),
                executable: path,
                dir: dir.path().to_path_buf(),
            }
        };
        match list(&target("echo 'sorting 100k: 1.7 ms'")).unwrap() {
            Listing::NotRigorBench(said) => assert!(said.contains("sorting 100k"), "{said}"),
            other => panic!("{other:?}"),
        }
        let broken = target("echo '{\"name\":\"fib\"}'; echo 'oops'");
        assert!(list(&broken).is_err());
    }

    #[test]
    fn listing_lines_carry_a_groups_settings_and_need_a_name() {
        let l: Listed = serde_json::from_str(r#"{"name":"fib"}"#).unwrap();
        assert_eq!(l, Listed::named("fib"));
        let l: Listed = serde_json::from_str(
            r#"{"name":"s/f/10","group":"s","function":"f","input":"10","samples":6,"evals":3,"warm_up_s":0.0,"throughput":{"bytes":8}}"#,
        )
        .unwrap();
        assert_eq!(
            (
                l.group.as_deref(),
                l.input.as_deref(),
                l.samples,
                l.evals,
                l.warm_up_s
            ),
            (Some("s"), Some("10"), Some(6), Some(3), Some(0.0))
        );
        assert!(serde_json::from_str::<Listed>(r#"{"group":"s"}"#).is_err());
    }

    #[test]
    fn selection_filters_and_disambiguates() {
        let t = |name: &str| Target {
            name: name.into(),
            executable: format!("/x/{name}").into(),
            dir: "/p".into(),
        };
        let listed = vec![
            (t("a"), vec![Listed::named("fib"), Listed::named("sort/10")]),
            (t("b"), vec![Listed::named("fib"), Listed::named("parse")]),
        ];
        let names = |f: &[&str]| -> Vec<String> {
            let f: Vec<String> = f.iter().map(|s| s.to_string()).collect();
            select(&listed, &f, false)
                .into_iter()
                .map(|s| s.name)
                .collect()
        };
        assert_eq!(names(&[]), ["a/fib", "sort/10", "b/fib", "parse"]);
        assert_eq!(names(&["sort", "par"]), ["sort/10", "parse"]);
        let exact = select(&listed, &["sort".to_string(), "parse".to_string()], true);
        assert_eq!(exact.len(), 1);
        let s = &select(&listed, &["parse".to_string()], false)[0];
        let b = s.benchmark(37);
        assert_eq!(
            b.command.argv(),
            ["/x/b", "--bench", "--exact", "parse", "--evals", "37"]
        );
        assert_eq!(b.dir.as_deref(), Some(Path::new("/p")));
    }
}
