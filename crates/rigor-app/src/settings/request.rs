//! A run as a front end asks for it ([`RunRequest`]: every option of `rigor run`, in domain
//! types, unchecked) and its resolution into [`RunSettings`]: benchmarks expanded, the plan
//! applied, the mode chosen, every bound and export checked, the settings record built — once,
//! before anything runs, so that a bad option costs no measurement.

use std::path::PathBuf;

use regex::Regex;
use rigor_runner::{
    Benchmark, BuildSettings, CommandLine, Hooks as RunnerHooks, IterationSource, OutputMode,
    Settings, Stream,
};
use rigor_store::{Discard, LevelKind, ModeRecord, RunSettingsRecord};
use rigor_units::{Fraction, Seconds, Seed, TimeUnit};
use serde::{Deserialize, Serialize};

use super::files::{check_writable, file, is_stdout};
use super::{
    AnalysisSettings, BuildDir, ComparisonSettings, ExportPaths, Exports, Mode, Origin,
    RunSettings, ShellRole, SortOrder, StdoutExport, expand, expand::ShellChoice,
};
use crate::error::RequestError;
use crate::plan_file::PlanFile;

type Result<T> = std::result::Result<T, RequestError>;

/// Builds per command when `--build` is given without `--builds`.
pub const DEFAULT_BUILDS: usize = 5;

/// Most top-level units an adaptive run may reach without `--max-runs`.
pub const DEFAULT_MAX_UNITS: usize = 10_000;

/// Most rounds of a run until decided without `--max-runs` (or `--builds` with `--build`): the
/// budget of the simulation in docs/validation/sequential.md.
pub const DEFAULT_MAX_ROUNDS: usize = 200;

/// Executions per build of a run until decided with `--build` and without `-r`: the rounds of
/// the simulation in docs/validation/sequential.md (1 build × 3 executions).
pub const DEFAULT_EXECUTIONS_PER_DECIDING_BUILD: usize = 3;

/// `--parameter-scan VAR MIN MAX` with its optional `--parameter-step-size`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scan {
    /// The parameter.
    pub var: String,
    /// The first value, as given.
    pub min: String,
    /// The last value, as given.
    pub max: String,
    /// The step, as given (integers without it).
    pub step: Option<String>,
}

/// The parameters benchmarks are expanded over.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Parameters {
    /// `--parameter-scan`.
    pub scan: Option<Scan>,
    /// Each `--parameter-list VAR VALUES` (values comma-separated, as given).
    pub lists: Vec<(String, String)>,
}

/// Commands run around the measured ones (hyperfine's hooks), as given: each once (for every
/// benchmark), once per command, or once per benchmark (command × parameter values, in the
/// order the benchmarks are expanded). `{VAR}` is replaced by each benchmark's values.
///
/// A job queued before hooks could be given more than once stored each as a string (or null);
/// both forms read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Hooks {
    /// Before the benchmark's first execution.
    #[serde(deserialize_with = "one_or_many")]
    pub setup: Vec<String>,
    /// Before every execution.
    #[serde(deserialize_with = "one_or_many")]
    pub prepare: Vec<String>,
    /// After every execution.
    #[serde(deserialize_with = "one_or_many")]
    pub conclude: Vec<String>,
    /// After the benchmark's last execution.
    #[serde(deserialize_with = "one_or_many")]
    pub cleanup: Vec<String>,
}

/// A hook list as stored: a list, one string, or null (none).
fn one_or_many<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Option::<Stored>::deserialize(d)? {
        None => Vec::new(),
        Some(Stored::One(s)) => vec![s],
        Some(Stored::Many(v)) => v,
    })
}

impl Hooks {
    /// Each hook with its option.
    fn each(&self) -> [(&'static str, &Vec<String>); 4] {
        [
            ("--setup", &self.setup),
            ("--prepare", &self.prepare),
            ("--conclude", &self.conclude),
            ("--cleanup", &self.cleanup),
        ]
    }

    /// Every hook's text.
    fn texts(&self) -> Vec<String> {
        self.each()
            .into_iter()
            .flat_map(|(_, v)| v.clone())
            .collect()
    }

    /// Each count checked: once, once per command or once per benchmark.
    fn check(&self, commands: usize, benchmarks: usize) -> Result<()> {
        for (option, given) in self.each() {
            let n = given.len();
            if n > 1 && n != commands && n != benchmarks {
                return Err(RequestError::HookCount {
                    option,
                    given: n,
                    commands,
                    benchmarks,
                });
            }
        }
        Ok(())
    }

    /// The hook texts of benchmark `k` (of `benchmarks`), which runs command `i` (of
    /// `commands`): one hook for all, the one per benchmark, or the command's.
    fn of(&self, k: usize, i: usize, benchmarks: usize) -> [Option<&String>; 4] {
        self.each().map(|(_, given)| match given.len() {
            0 => None,
            1 => given.first(),
            n if n == benchmarks => given.get(k),
            _ => given.get(i),
        })
    }
}

impl ExportPaths {
    /// The exports that may name standard output, each with its option.
    fn streamable(&self) -> [(&Option<PathBuf>, StdoutExport, &'static str); 7] {
        [
            (
                &self.hyperfine_json,
                StdoutExport::HyperfineJson,
                "--export-json-hyperfine",
            ),
            (
                &self.hyperfine_csv,
                StdoutExport::HyperfineCsv,
                "--export-csv-hyperfine",
            ),
            (&self.json, StdoutExport::Json, "--export-json"),
            (&self.csv, StdoutExport::Csv, "--export-csv"),
            (&self.markdown, StdoutExport::Markdown, "--export-markdown"),
            (&self.asciidoc, StdoutExport::AsciiDoc, "--export-asciidoc"),
            (&self.orgmode, StdoutExport::OrgMode, "--export-orgmode"),
        ]
    }

    /// The export given `-` (standard output), if any; more than one is an error, since two
    /// formats on one stream could not be told apart.
    pub fn stdout(&self) -> Result<Option<StdoutExport>> {
        let asked: Vec<(StdoutExport, &str)> = self
            .streamable()
            .into_iter()
            .filter(|(path, _, _)| path.as_deref().is_some_and(is_stdout))
            .map(|(_, which, option)| (which, option))
            .collect();
        match asked.as_slice() {
            [] => Ok(None),
            [(which, _)] => Ok(Some(*which)),
            more => {
                let options: Vec<&str> = more.iter().map(|(_, o)| *o).collect();
                Err(RequestError::StdoutTwice(options.join(", ")))
            }
        }
    }

    /// Every export path can be written, checked before anything runs (a full run is not lost
    /// to a typo in a directory name).
    pub fn check(&self) -> Result<()> {
        let html = [(&self.html, StdoutExport::Json, "--report")];
        for (path, _, option) in self.streamable().into_iter().chain(html) {
            if let Some(path) = path.as_deref().filter(|p| !is_stdout(p)) {
                check_writable(path, option)?;
            }
        }
        self.stdout().map(|_| ())
    }
}

/// Everything `rigor run` takes, in domain types, before it is checked: what a front end fills
/// from its own input. [`RunRequest::resolve`] turns it into [`RunSettings`].
///
/// It is also data: a farm's job stores it (serde, every field defaulted when missing, so that a
/// field added later reads from a job queued before it) and a worker resolves it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunRequest {
    /// The commands, as given (before `--shell` and parameters).
    pub commands: Vec<String>,
    /// Names for the commands, in order; `{VAR}` is replaced by parameter values.
    pub names: Vec<String>,
    /// Measured executions per command (`-r`).
    pub executions: Option<usize>,
    /// The fewest top-level units (`--min-runs`).
    pub min_runs: Option<usize>,
    /// The most top-level units (`--max-runs`).
    pub max_runs: Option<usize>,
    /// Whole executions run first and discarded (`-w`).
    pub warmup_executions: Option<usize>,
    /// Warm-up iterations discarded per execution.
    pub discard: Discard,
    /// Kill an execution (or a build) after this long.
    pub timeout: Option<Seconds>,
    /// Seed of every random choice (random when `None`).
    pub seed: Option<Seed>,
    /// `--shell`'s value: a shell, `none`, `default`, or the first command.
    pub shell: Option<String>,
    /// Parameter scan and lists.
    pub parameters: Parameters,
    /// Hooks.
    pub hooks: Hooks,
    /// Standard input of the benchmarked commands.
    pub input: Option<PathBuf>,
    /// Where their standard output goes.
    pub output: OutputMode,
    /// A file their standard output is written to instead (`--output=FILE`).
    pub output_file: Option<PathBuf>,
    /// The stream iteration times are read from with [`RunRequest::pattern`].
    pub iterations_from: Option<Stream>,
    /// The regular expression whose first group is an iteration's time.
    pub pattern: Option<String>,
    /// The unit of the captured times.
    pub unit: TimeUnit,
    /// The build command (builds become the top level).
    pub build: Option<String>,
    /// Builds per command.
    pub builds: Option<usize>,
    /// Directory for the build directories (default: a temporary one).
    pub build_root: Option<PathBuf>,
    /// Pad each execution's environment with a random-size variable.
    pub randomize_env: bool,
    /// Iterations per execution to ask the program for.
    pub iterations: Option<usize>,
    /// Measure executions that exit with a non-zero status.
    pub ignore_failure: bool,
    /// With `ignore_failure`, only these exit codes (`-i=1,2`); empty: every non-zero one.
    pub ignored_exit_codes: Vec<i32>,
    /// Simulation specs instead of commands.
    pub simulate: bool,
    /// Export paths.
    pub exports: ExportPaths,
    /// The unit of every time shown (default: chosen per value).
    pub time_unit: Option<TimeUnit>,
    /// Order of the ranking and the tables.
    pub sort: SortOrder,
    /// A plan file written by `rigor plan`.
    pub plan: Option<PathBuf>,
    /// Target relative half-width.
    pub precision: Option<Fraction>,
    /// Measured-time budget.
    pub budget: Option<Seconds>,
    /// Measure until each comparison is decided.
    pub until_decided: bool,
    /// `rigor run`'s own request, with the meanings hyperfine gives its options that the other
    /// commands built on runs (`plan`, `bench`, `track`) do not take: without counts (`-r`,
    /// `-m`, `-M`, `--build`) the default length ([`rigor_runner::length`]) instead of a fixed
    /// 10, and a `--reference` that is none of the benchmarks added as a command.
    pub rigor_run: bool,
    /// Comparisons.
    pub comparison: ComparisonSettings,
    /// `--reference-name`: the name of the command `--reference` adds (hyperfine 1.20).
    pub reference_name: Option<String>,
    /// Intervals.
    pub analysis: AnalysisSettings,
    /// Where the run came from.
    pub origin: Origin,
}

/// A resolved run: its settings, the temporary build directory they point into (kept while it
/// is held), and what the resolution has to tell.
#[derive(Debug)]
pub struct Resolved {
    /// The settings.
    pub settings: RunSettings,
    /// Keeps a temporary build root alive: hold it while the settings are used.
    pub build_dir: BuildDir,
    /// Notes for the user (a plan matched by position, not by name).
    pub notes: Vec<rigor_report::notes::Note>,
}

/// The benchmarks of the commands: one per command and combination of parameter values, in
/// hyperfine's order (the commands vary fastest, then the first parameter), each with its command
/// text and its parameters.
struct Expanded {
    benchmarks: Vec<Benchmark>,
    commands: Vec<String>,
    parameters: Vec<expand::Values>,
}

impl RunRequest {
    /// Checks and resolves the request as `rigor run`, `rigor plan` and `rigor bench` use it:
    /// export paths writable first, and `{src}` in the build command the working directory.
    ///
    /// # Errors
    /// [`RequestError`] naming the first option that is wrong.
    pub fn resolve_checked(&self) -> Result<Resolved> {
        let mut r = self.resolve()?;
        self.exports.check()?;
        if let Some(note) = add_shell_startups(&mut r.settings) {
            r.notes.push(note);
        }
        // `{src}` is the source directory: rigor's working directory here (a version's checkout
        // under `rigor track`), so a build running in its own directory can find the sources.
        if let (Some(build), Ok(cwd)) = (&mut r.settings.runner.build, std::env::current_dir()) {
            build.command = build
                .command
                .substitute(&[("src", cwd.display().to_string())]);
        }
        Ok(r)
    }

    /// Resolves the request (export paths unchecked: `rigor track` makes its results' folder
    /// itself).
    ///
    /// # Errors
    /// [`RequestError`] naming the first option that is wrong.
    pub fn resolve(&self) -> Result<Resolved> {
        let (shell, commands) = expand::shell(self.shell.as_deref(), &self.commands);
        let mut through_shell = Vec::new();
        let mut expanded = self.expand(&commands, &shell, &mut through_shell)?;
        let mut comparison = self.comparison.clone();
        let mut notes = Vec::new();
        if let Some(name) = self.add_reference(&mut expanded, &shell, &mut through_shell)? {
            notes.push(rigor_report::notes::Note::ReferenceAdded {
                command: expanded.commands[0].clone(),
            });
            comparison.reference = Some(name);
        }
        let iterations = self.iteration_source()?;
        let iterations_expected = matches!(iterations, IterationSource::Pattern { .. });
        let timeout = self.timeout.and_then(|t| t.to_duration());
        if let Some(input) = &self.input {
            std::fs::metadata(input).map_err(|source| RequestError::Input {
                path: input.clone(),
                source,
            })?;
        }
        let (build, build_dir) = self.build_level(timeout, &shell, &mut through_shell)?;
        let mut benchmarks = match self.iterations {
            Some(k) => expanded
                .benchmarks
                .into_iter()
                .map(|b| Benchmark {
                    command: b.command.substitute(&[("iterations", k.to_string())]),
                    ..b
                })
                .collect(),
            None => expanded.benchmarks,
        };
        let mut runner = Settings {
            executions: match (self.until_decided, &build) {
                (true, Some(_)) => self
                    .executions
                    .unwrap_or(DEFAULT_EXECUTIONS_PER_DECIDING_BUILD),
                _ => self.fixed_executions()?,
            },
            warmup_executions: self.warmup_executions.unwrap_or(if iterations_expected {
                0
            } else {
                1
            }),
            timeout,
            input: self.input.clone(),
            output: self.output,
            output_file: self.output_file()?,
            iterations,
            ignore_failure: self.ignore_failure,
            ignored_exit_codes: self.ignored_exit_codes.clone(),
            seed: self.seed.unwrap_or_else(Seed::from_entropy),
            build,
            randomize_env: self.randomize_env,
            iterations_per_execution: self.iterations,
        };
        runner.validate()?;
        let mode = match &self.plan {
            Some(path) => {
                let plan = PlanFile::load(path).map_err(|e| RequestError::Plan(Box::new(e)))?;
                let matched = apply_plan(
                    &mut benchmarks,
                    &mut runner,
                    self.discard,
                    &self.analysis,
                    &plan,
                    self.precision,
                )
                .map_err(|e| RequestError::Plan(Box::new(e)))?;
                runner.validate_with(&benchmarks)?;
                notes.extend(matched);
                Mode::Planned {
                    plan: Box::new(plan),
                    precision: self.precision,
                }
            }
            None if self.until_decided => self.until_decided_mode(benchmarks.len())?,
            None if self.precision.is_some() || self.budget.is_some() => {
                self.run_bounds()?;
                Mode::Adaptive {
                    precision: self.precision,
                    budget: self.budget,
                    max_units: self.max_runs.unwrap_or(DEFAULT_MAX_UNITS),
                    min_units: self.min_runs,
                }
            }
            None if self.rigor_run
                && self.executions.is_none()
                && self.min_runs.is_none()
                && self.max_runs.is_none()
                && self.build.is_none() =>
            {
                Mode::DefaultLength(rigor_runner::LengthSettings::default())
            }
            None => Mode::Fixed,
        };
        if !rigor_runner::schedule::interleaved(&benchmarks) {
            let mode = match &mode {
                Mode::Fixed | Mode::DefaultLength(_) => None,
                Mode::Planned { .. } => Some("--plan"),
                Mode::Adaptive { .. } if self.precision.is_some() => Some("--precision"),
                Mode::Adaptive { .. } => Some("--budget"),
                Mode::UntilDecided { .. } => Some("--until-decided"),
            };
            if let Some(mode) = mode {
                return Err(RequestError::BlocksNeedFixedCount { mode });
            }
            notes.push(rigor_report::notes::Note::NotInterleaved);
        }
        if !through_shell.is_empty() {
            notes.insert(
                0,
                rigor_report::notes::Note::ThroughShell {
                    commands: through_shell,
                },
            );
        }
        check_reference(
            comparison.reference.as_deref(),
            &benchmarks,
            &expanded.commands,
        )?;
        let shell_used = benchmarks
            .iter()
            .any(|b| !matches!(b.command, CommandLine::Direct(_)));
        let record = self.record(&mode, &runner, shell_used);
        let e = &self.exports;
        let settings = RunSettings {
            benchmarks,
            commands: expanded.commands,
            parameters: expanded
                .parameters
                .into_iter()
                .map(|v| v.into_iter().collect())
                .collect(),
            versions: Vec::new(),
            shell_roles: Vec::new(),
            runner,
            discard: self.discard,
            iterations_expected,
            mode,
            analysis: self.analysis,
            comparison,
            exports: Exports {
                files: ExportPaths {
                    json: file(&e.json),
                    csv: file(&e.csv),
                    markdown: file(&e.markdown),
                    asciidoc: file(&e.asciidoc),
                    orgmode: file(&e.orgmode),
                    hyperfine_json: file(&e.hyperfine_json),
                    hyperfine_csv: file(&e.hyperfine_csv),
                    ..e.clone()
                },
                unit: self.time_unit,
                sort: self.sort,
                stdout: e.stdout()?,
            },
            simulate: self.simulate,
            origin: self.origin.clone(),
            record,
        };
        Ok(Resolved {
            settings,
            build_dir,
            notes,
        })
    }

    fn expand(
        &self,
        commands: &[String],
        shell: &ShellChoice,
        through_shell: &mut Vec<(String, String)>,
    ) -> Result<Expanded> {
        if commands.is_empty() {
            return Err(RequestError::NoCommand);
        }
        let combinations = expand::combinations(&self.parameters)?;
        // As hyperfine: with parameters, as many names as benchmarks name each benchmark (in
        // the order below); otherwise names go to the commands in order.
        let total = combinations.len() * commands.len();
        let per_benchmark = total > commands.len() && self.names.len() == total;
        if self.names.len() > commands.len() && !per_benchmark {
            return Err(RequestError::TooManyNames {
                names: self.names.len(),
                commands: commands.len(),
                benchmarks: total,
            });
        }
        if let Some(first) = combinations.first() {
            let mut named = self.names.clone();
            named.extend(self.hooks.texts());
            expand::check_used(first, commands, &named)?;
        }
        self.hooks.check(commands.len(), total)?;
        let mut out = Expanded {
            benchmarks: Vec::new(),
            commands: Vec::new(),
            parameters: Vec::new(),
        };
        // Shell syntax is judged after the parameters' values are in; the note shows the
        // command (or hook) as given, once.
        let mut parse = |text: &str, given: String| -> Result<CommandLine> {
            let (command, found) = shell.parse(text)?;
            if let Some(found) = found
                && !through_shell.iter().any(|(c, _)| *c == given)
            {
                through_shell.push((given, found.to_string()));
            }
            Ok(command)
        };
        // hyperfine's order: the commands vary fastest, then the first parameter list.
        for (c, values) in combinations.iter().enumerate() {
            for (i, text) in commands.iter().enumerate() {
                let command_text = expand::substitute(text, values);
                let command = parse(&command_text, text.clone())?;
                let given = match per_benchmark {
                    true => self.names.get(c * commands.len() + i),
                    false => self.names.get(i),
                };
                let name = match given {
                    Some(name) if values.is_empty() || per_benchmark => {
                        expand::substitute(name, values)
                    }
                    Some(name) if name.contains('{') => expand::substitute(name, values),
                    Some(name) => format!("{name} ({})", describe_values(values)),
                    // Values used only in hooks tell the benchmarks apart (as hyperfine's names).
                    None => {
                        let unused: expand::Values = values
                            .iter()
                            .filter(|(k, _)| !text.contains(&format!("{{{k}}}")))
                            .cloned()
                            .collect();
                        if unused.is_empty() {
                            command_text.clone()
                        } else {
                            format!("{command_text} ({})", describe_values(&unused))
                        }
                    }
                };
                let k = out.benchmarks.len();
                let [setup, prepare, conclude, cleanup] = self.hooks.of(k, i, total);
                let options = ["--setup", "--prepare", "--conclude", "--cleanup"];
                let mut hook = |given: Option<&String>, o: usize| {
                    given
                        .map(|t| {
                            parse(
                                &expand::substitute(t, values),
                                format!("{} {t}", options[o]),
                            )
                        })
                        .transpose()
                };
                let mut benchmark = Benchmark::new(name, command);
                benchmark.hooks = RunnerHooks {
                    setup: hook(setup, 0)?,
                    prepare: hook(prepare, 1)?,
                    conclude: hook(conclude, 2)?,
                    cleanup: hook(cleanup, 3)?,
                };
                out.benchmarks.push(benchmark);
                out.commands.push(command_text);
                out.parameters.push(values.clone());
            }
        }
        let names = &out.benchmarks;
        let expanded = combinations.first().is_some_and(|c| !c.is_empty());
        for (i, b) in names.iter().enumerate().filter(|_| expanded) {
            if names[..i].iter().any(|o| o.name == b.name) {
                return Err(RequestError::DuplicateName(b.name.clone()));
            }
        }
        // The same command given twice (an A/A run): numbered, so that comparisons and files
        // tell them apart ("sleep 0.01 #1", "sleep 0.01 #2").
        let all: Vec<String> = out.benchmarks.iter().map(|b| b.name.clone()).collect();
        for (i, b) in out.benchmarks.iter_mut().enumerate() {
            if all.iter().filter(|n| **n == all[i]).count() > 1 {
                let k = all[..=i].iter().filter(|n| **n == all[i]).count();
                b.name = format!("{} #{k}", all[i]);
            }
        }
        Ok(out)
    }

    /// hyperfine 1.20's `--reference CMD`: a `--reference` that is none of the benchmarks (by
    /// name, command or position) and not a number is a command, benchmarked first as the
    /// reference (named `--reference-name`, else by its text). Returns the name it is referred
    /// to by, when it was added.
    fn add_reference(
        &self,
        expanded: &mut Expanded,
        shell: &ShellChoice,
        through_shell: &mut Vec<(String, String)>,
    ) -> Result<Option<String>> {
        let Some(reference) = self.comparison.reference.as_deref() else {
            if self.reference_name.is_some() {
                return Err(RequestError::ReferenceNameAlone);
            }
            return Ok(None);
        };
        if !self.rigor_run {
            return Ok(None);
        }
        let existing = expanded.benchmarks.iter().any(|b| b.name == reference)
            || expanded.commands.iter().any(|c| c == reference);
        if existing || reference.trim().parse::<usize>().is_ok() {
            return match &self.reference_name {
                Some(_) => Err(RequestError::ReferenceNameExisting(reference.to_string())),
                None => Ok(None),
            };
        }
        let name = self
            .reference_name
            .clone()
            .unwrap_or_else(|| reference.to_string());
        if expanded.benchmarks.iter().any(|b| b.name == name) {
            return Err(RequestError::DuplicateName(name));
        }
        let (command, found) = shell.parse(reference)?;
        if let Some(found) = found {
            through_shell.push((format!("--reference {reference}"), found.to_string()));
        }
        // A typo in a benchmark's name is not run as a command: it must be one rigor can run.
        if let Some(why) = unrunnable(&command, self.simulate) {
            let names: Vec<String> = expanded
                .benchmarks
                .iter()
                .map(|b| format!("'{}'", b.name))
                .collect();
            return Err(RequestError::ReferenceNotRunnable {
                reference: reference.to_string(),
                names: names.join(", "),
                why,
            });
        }
        // It runs inside the hooks the first benchmark runs in (all of them, when one setup and
        // cleanup are given for every command), so that it is interleaved with the others.
        let mut benchmark = Benchmark::new(name.clone(), command);
        benchmark.hooks = expanded
            .benchmarks
            .first()
            .map(|b| b.hooks.clone())
            .unwrap_or_default();
        expanded.benchmarks.insert(0, benchmark);
        expanded.commands.insert(0, reference.to_string());
        expanded.parameters.insert(0, Vec::new());
        Ok(Some(name))
    }

    /// `--output=FILE`: checked, and absolute (commands may run in other folders: builds,
    /// checkouts).
    fn output_file(&self) -> Result<Option<PathBuf>> {
        let Some(path) = &self.output_file else {
            return Ok(None);
        };
        check_writable(path, "--output")?;
        Ok(Some(
            std::path::absolute(path).unwrap_or_else(|_| path.clone()),
        ))
    }

    /// The top-level count of a fixed run: `-r`, else 10 within `--min-runs` and `--max-runs`.
    fn fixed_executions(&self) -> Result<usize> {
        let (lo, hi) = self.run_bounds()?;
        Ok(self.executions.unwrap_or(10).clamp(lo, hi))
    }

    /// `--min-runs` and `--max-runs`, checked.
    fn run_bounds(&self) -> Result<(usize, usize)> {
        let lo = self.min_runs.unwrap_or(0);
        let hi = self.max_runs.unwrap_or(usize::MAX);
        if self.min_runs.is_some_and(|m| m < 2) {
            return Err(RequestError::MinRuns);
        }
        if self.max_runs.is_some_and(|m| m < 2) {
            return Err(RequestError::MaxRuns);
        }
        if lo > hi {
            return Err(RequestError::MinAboveMax { min: lo, max: hi });
        }
        Ok((lo, hi))
    }

    /// A run until decided: `--min-runs` rounds before the first look, `--max-runs` (or
    /// `--builds` with `--build`) the most rounds.
    fn until_decided_mode(&self, benchmarks: usize) -> Result<Mode> {
        if benchmarks < 2 {
            return Err(RequestError::DecidedNeedsTwo(benchmarks));
        }
        if self.build.is_none() && self.executions.is_some() {
            return Err(RequestError::DecidedRuns);
        }
        let (lo, _) = self.run_bounds()?;
        let min_rounds = self
            .min_runs
            .unwrap_or(rigor_stats::confseq::SequentialConfig::default().min_rounds)
            .max(lo);
        let max_rounds = self
            .max_runs
            .or(self.build.as_ref().and(self.builds))
            .unwrap_or(DEFAULT_MAX_ROUNDS);
        if max_rounds < min_rounds {
            return Err(RequestError::DecidedRounds {
                max: max_rounds,
                min: min_rounds,
            });
        }
        Ok(Mode::UntilDecided {
            budget: self.budget,
            max_rounds,
            min_rounds,
        })
    }

    /// Where iteration times come from: a pattern over a stream, else the native samples file.
    fn iteration_source(&self) -> Result<IterationSource> {
        let (Some(stream), Some(pattern)) = (self.iterations_from, &self.pattern) else {
            return Ok(IterationSource::SamplesFile);
        };
        let regex = Regex::new(pattern).map_err(|source| RequestError::Pattern {
            pattern: pattern.clone(),
            source,
        })?;
        if regex.captures_len() < 2 {
            return Err(RequestError::PatternGroup(pattern.clone()));
        }
        Ok(IterationSource::Pattern {
            stream,
            regex,
            unit: self.unit,
        })
    }

    /// The build level, if `--build` was given, and the temporary root it may need.
    fn build_level(
        &self,
        timeout: Option<std::time::Duration>,
        shell: &ShellChoice,
        through_shell: &mut Vec<(String, String)>,
    ) -> Result<(Option<BuildSettings>, BuildDir)> {
        let Some(text) = &self.build else {
            return Ok((None, BuildDir::default()));
        };
        let (command, found) = shell.parse(text)?;
        if let Some(found) = found {
            through_shell.push((format!("--build {text}"), found.to_string()));
        }
        let (root, dir) = match &self.build_root {
            Some(dir) => (dir.clone(), BuildDir::default()),
            None => {
                let dir = BuildDir::temporary().map_err(RequestError::BuildRoot)?;
                (dir.path().map(PathBuf::from).unwrap_or_default(), dir)
            }
        };
        let builds = match self.builds {
            Some(n) => n,
            None => {
                let (lo, hi) = self.run_bounds()?;
                DEFAULT_BUILDS.clamp(lo, hi)
            }
        };
        let build = BuildSettings {
            command,
            builds,
            root,
            timeout,
        };
        Ok((Some(build), dir))
    }

    /// The settings as saved in the result.
    fn record(&self, mode: &Mode, runner: &Settings, shell: bool) -> RunSettingsRecord {
        let c = &self.comparison;
        RunSettingsRecord {
            mode: match mode {
                Mode::Fixed => ModeRecord::Fixed,
                Mode::DefaultLength(l) => ModeRecord::DefaultLength {
                    first: l.first,
                    target: l.target,
                    budget: l.budget,
                },
                Mode::Planned { precision, .. } => ModeRecord::Planned {
                    precision: *precision,
                },
                Mode::Adaptive {
                    precision,
                    budget,
                    max_units,
                    ..
                } => ModeRecord::Adaptive {
                    precision: *precision,
                    budget: *budget,
                    max_units: *max_units,
                },
                Mode::UntilDecided {
                    budget,
                    max_rounds,
                    min_rounds,
                } => ModeRecord::UntilDecided {
                    budget: *budget,
                    max_rounds: *max_rounds,
                    min_rounds: *min_rounds,
                },
            },
            executions: runner.executions,
            warmup_executions: runner.warmup_executions,
            discard: self.discard,
            timeout: self.timeout,
            shell,
            simulate: self.simulate,
            ignore_failure: self.ignore_failure,
            ignored_exit_codes: self.ignored_exit_codes.clone(),
            quantile: self.analysis.quantile,
            build: self.build.clone(),
            builds: runner.build.as_ref().map(|b| b.builds),
            randomize_env: self.randomize_env,
            iterations: self.iterations,
            threshold: c.threshold,
            method: c.method,
            estimator: c.estimator,
            resamples: c.resamples,
        }
    }
}

/// Why `command` cannot run, if it cannot: a simulation spec that does not parse, or a program
/// that is neither a file nor found on `PATH`.
fn unrunnable(command: &CommandLine, simulate: bool) -> Option<String> {
    if simulate {
        return rigor_runner::SimSpec::parse(&command.text())
            .err()
            .map(|e| e.to_string());
    }
    let program = std::path::Path::new(command.program());
    let found = if program.components().count() > 1 {
        program.is_file()
    } else {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(program).is_file()))
    };
    (!found).then(|| format!("'{}' is not found on PATH", program.display()))
}

/// When commands run through a shell and are timed whole, the empty shell of each shell used
/// (`sh -c ''`) as one more benchmark, interleaved in the same rounds (inside the same setup and
/// cleanup when all share one), so that each such command is also reported net of its shell's
/// start-up with that start-up's variance carried in (hyperfine subtracts a point estimate
/// measured before the benchmarks). Runs of a fixed count (or the default length) only: an adaptive run would hold the
/// empty shell to its precision target too, a plan names its benchmarks, and a run until
/// decided compares every benchmark it measures. The note says so.
fn add_shell_startups(s: &mut RunSettings) -> Option<rigor_report::notes::Note> {
    let timed_whole = !s.iterations_expected && s.runner.iterations_per_execution.is_none();
    let mode = matches!(s.mode, Mode::Fixed | Mode::DefaultLength(_));
    if s.simulate || !timed_whole || !mode {
        return None;
    }
    let interleaved = rigor_runner::schedule::interleaved(&s.benchmarks);
    let shell_of = |c: &CommandLine| match c {
        CommandLine::Direct(_) => None,
        CommandLine::Shell(_) => Some(vec!["sh".to_string()]),
        CommandLine::ShellWith { shell, .. } => Some(shell.clone()),
    };
    let n = s.benchmarks.len();
    let mut roles = vec![ShellRole::None; n];
    let mut shells: Vec<(Vec<String>, String)> = Vec::new();
    for (i, b) in s.benchmarks.iter().enumerate() {
        let Some(shell) = shell_of(&b.command) else {
            continue;
        };
        let name = match shells.iter().find(|(sh, _)| *sh == shell) {
            Some((_, name)) => name.clone(),
            None => {
                let name = format!("{} -c ''", shell_words::join(&shell));
                shells.push((shell, name.clone()));
                name
            }
        };
        roles[i] = ShellRole::NetOf(name);
    }
    if shells.is_empty() {
        return None;
    }
    let around = s.benchmarks[0].hooks.clone();
    for (shell, name) in &shells {
        let command = match shell.as_slice() {
            [sh] if sh == "sh" => CommandLine::Shell(String::new()),
            _ => CommandLine::ShellWith {
                shell: shell.clone(),
                text: String::new(),
            },
        };
        let mut b = Benchmark::new(name.clone(), command);
        if interleaved {
            b.hooks = RunnerHooks {
                setup: around.setup.clone(),
                cleanup: around.cleanup.clone(),
                ..RunnerHooks::default()
            };
        }
        s.benchmarks.push(b);
        s.commands.push(name.clone());
        s.parameters.push(Default::default());
        roles.push(ShellRole::Startup(shell_words::join(shell)));
    }
    let direct = s.benchmarks[..n]
        .iter()
        .zip(&roles)
        .filter(|(_, r)| **r == ShellRole::None)
        .map(|(b, _)| b.name.clone())
        .collect();
    s.shell_roles = roles;
    Some(rigor_report::notes::Note::ShellStartup {
        benchmarks: shells.into_iter().map(|(_, name)| name).collect(),
        direct,
    })
}

/// "x = 1, y = a".
fn describe_values(values: &expand::Values) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--reference` names a benchmark (by name, command or 1-based position), checked before
/// anything runs.
fn check_reference(
    reference: Option<&str>,
    benchmarks: &[Benchmark],
    commands: &[String],
) -> Result<()> {
    let Some(name) = reference else { return Ok(()) };
    let found = benchmarks.iter().any(|b| b.name == name)
        || commands.iter().any(|c| c == name)
        || name
            .parse::<usize>()
            .is_ok_and(|k| (1..=benchmarks.len()).contains(&k));
    if !found {
        let names: Vec<String> = benchmarks.iter().map(|b| format!("'{}'", b.name)).collect();
        return Err(RequestError::Reference {
            reference: name.to_string(),
            names: names.join(", "),
            count: benchmarks.len(),
        });
    }
    Ok(())
}

/// `--plan FILE`: the plan's lower-level counts, and with `--precision` its top-level count;
/// a note for each benchmark the plan knows under another name.
fn apply_plan(
    benchmarks: &mut [Benchmark],
    runner: &mut Settings,
    discard: Discard,
    analysis: &AnalysisSettings,
    file: &PlanFile,
    precision: Option<Fraction>,
) -> crate::Result<Vec<rigor_report::notes::Note>> {
    let plans = file.for_benchmarks(benchmarks)?;
    let notes = benchmarks
        .iter()
        .zip(&plans)
        .filter(|(b, p)| p.name != b.name)
        .map(|(b, p)| rigor_report::notes::Note::PlanMatchedByPosition {
            benchmark: b.name.clone(),
            plan: p.name.clone(),
        })
        .collect();
    for (b, p) in benchmarks.iter_mut().zip(&plans) {
        // The plan counts steady iterations: the warm-up before them comes on top, the fixed
        // count discarded or (with `--discard auto`) what the pilot found.
        let warmup = match discard {
            Discard::Auto => p.warmup_iterations,
            Discard::Count(n) => n,
        };
        b.iterations = p.count(LevelKind::Iteration).map(|k| k + warmup);
    }
    let top = match precision {
        Some(target) => {
            let mut most = 2;
            for p in &plans {
                most = most.max(p.top_units_for(target, analysis.confidence, analysis.quantile)?);
            }
            Some(most)
        }
        None => None,
    };
    let per_build = plans
        .iter()
        .filter_map(|p| p.count(LevelKind::Execution))
        .max();
    match &mut runner.build {
        Some(build) => {
            runner.executions = per_build.unwrap_or(1);
            build.builds = top.unwrap_or(build.builds);
        }
        None => runner.executions = top.unwrap_or(runner.executions),
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(commands: &[&str]) -> RunRequest {
        RunRequest {
            commands: commands.iter().map(ToString::to_string).collect(),
            seed: Some(Seed(1)),
            ..RunRequest::default()
        }
    }

    fn names(r: &Resolved) -> Vec<&str> {
        r.settings
            .benchmarks
            .iter()
            .map(|b| b.name.as_str())
            .collect()
    }

    #[test]
    fn the_same_command_twice_is_numbered_and_parameters_expand_per_command() {
        let r = request(&["sleep 0", "sleep 0"]).resolve().unwrap();
        assert_eq!(names(&r), ["sleep 0 #1", "sleep 0 #2"]);
        let mut q = request(&["a {x}", "b {x}"]);
        q.parameters.lists = vec![("x".into(), "1,2".into())];
        q.names = vec!["A".into()];
        let r = q.resolve().unwrap();
        assert_eq!(names(&r), ["A (x = 1)", "b 1", "A (x = 2)", "b 2"]);
        assert_eq!(r.settings.commands, ["a 1", "b 1", "a 2", "b 2"]);
        // As many names as benchmarks: one each, in that order (hyperfine's -n).
        q.names = ["a-1", "b-1", "a-2", "b-{x}"].map(String::from).to_vec();
        assert_eq!(names(&q.resolve().unwrap()), ["a-1", "b-1", "a-2", "b-2"]);
        q.names.pop();
        let err = q.resolve().unwrap_err().to_string();
        assert_eq!(
            err,
            "3 names given for 2 commands (4 benchmarks with the parameters)"
        );
        q.commands = vec!["a {x}".into(), "a {x}".into()];
        q.names = vec!["n{x}".into(), "n{x}".into()];
        assert!(matches!(q.resolve(), Err(RequestError::DuplicateName(n)) if n == "n1"));
    }

    #[test]
    fn a_reference_that_is_no_benchmark_is_added_first_as_hyperfine_does() {
        let mut q = request(&["sleep 0.2", "sleep 0.3"]);
        q.comparison.reference = Some("sleep 0.1".into());
        assert!(
            matches!(q.resolve(), Err(RequestError::Reference { .. })),
            "only in rigor run"
        );
        q.rigor_run = true;
        q.comparison.reference = Some("sleep 0.3".into());
        let r = q.resolve().unwrap();
        assert_eq!(
            names(&r),
            ["sleep 0.2", "sleep 0.3"],
            "an existing one stays"
        );
        assert!(r.notes.is_empty());
        q.comparison.reference = Some("sleep 0.1".into());
        q.reference_name = Some("base".into());
        let r = q.resolve().unwrap();
        assert_eq!(names(&r), ["base", "sleep 0.2", "sleep 0.3"]);
        assert_eq!(r.settings.commands[0], "sleep 0.1");
        assert_eq!(r.settings.comparison.reference.as_deref(), Some("base"));
        assert_eq!(r.notes.len(), 1);
        // A typo is not run: a reference must be a command rigor can run.
        q.comparison.reference = Some("sleep-typo 0.1".into());
        let err = q.resolve().unwrap_err().to_string();
        assert!(err.contains("nor a command rigor can run ('sleep-typo' is not found on PATH)"));
        // A position out of range is still an error, and a name needs a command to name.
        q.comparison.reference = Some("7".into());
        assert!(matches!(
            q.resolve(),
            Err(RequestError::ReferenceNameExisting(_))
        ));
        q.reference_name = None;
        assert!(matches!(q.resolve(), Err(RequestError::Reference { .. })));
        q.comparison.reference = None;
        q.reference_name = Some("base".into());
        assert!(matches!(q.resolve(), Err(RequestError::ReferenceNameAlone)));
    }

    #[test]
    fn counts_are_checked_and_clamped_before_anything_runs() {
        let mut q = request(&["x"]);
        q.min_runs = Some(12);
        let r = q.resolve().unwrap();
        assert_eq!(r.settings.runner.executions, 12);
        assert_eq!(r.settings.record.executions, 12);
        q.min_runs = Some(1);
        assert!(matches!(q.resolve(), Err(RequestError::MinRuns)));
        q.min_runs = Some(8);
        q.max_runs = Some(4);
        let err = q.resolve().unwrap_err().to_string();
        assert_eq!(err, "--min-runs 8 is above --max-runs 4");
        let mut q = request(&["x"]);
        q.until_decided = true;
        assert!(matches!(q.resolve(), Err(RequestError::DecidedNeedsTwo(1))));
    }

    #[test]
    fn one_export_at_most_goes_to_standard_output() {
        let mut q = request(&["x"]);
        q.exports.markdown = Some("-".into());
        let r = q.resolve().unwrap();
        assert_eq!(r.settings.exports.stdout, Some(StdoutExport::Markdown));
        assert_eq!(r.settings.exports.files.markdown, None);
        q.exports.json = Some("-".into());
        let err = q.resolve().unwrap_err().to_string();
        assert!(
            err.starts_with("--export-json, --export-markdown each name"),
            "{err}"
        );
    }

    #[test]
    fn hooks_go_once_for_all_once_per_command_or_once_per_benchmark() {
        let h = Hooks {
            setup: vec!["s".into()],
            prepare: vec!["p1".into(), "p2".into()],
            cleanup: vec!["c1".into(), "c2".into(), "c3".into(), "c4".into()],
            ..Hooks::default()
        };
        // 2 commands × 2 values = 4 benchmarks; benchmark 2 runs command 1 (0-based).
        assert!(h.check(2, 4).is_ok());
        let [setup, prepare, conclude, cleanup] = h.of(2, 1, 4);
        assert_eq!(
            (setup, prepare, conclude, cleanup),
            (
                Some(&"s".into()),
                Some(&"p2".into()),
                None,
                Some(&"c3".into())
            )
        );
        let err = h.check(2, 6).unwrap_err().to_string();
        assert!(err.starts_with("--cleanup was given 4 times"), "{err}");
        // A job queued when each hook was one string (or null) still reads.
        let old: Hooks =
            serde_json::from_str(r#"{"setup":null,"prepare":"sync","cleanup":["a","b"]}"#).unwrap();
        assert_eq!(old.setup, Vec::<String>::new());
        assert_eq!(old.prepare, ["sync"]);
        assert_eq!(old.cleanup, ["a", "b"]);
    }

    #[test]
    fn a_parameter_used_only_in_a_hook_is_accepted_and_names_the_benchmarks() {
        let mut q = request(&["true"]);
        q.parameters.lists = vec![("d".into(), "1,2".into())];
        assert!(matches!(q.resolve(), Err(RequestError::ParameterUnused(_))));
        q.hooks.prepare = vec!["touch p{d}".into()];
        let r = q.resolve().unwrap();
        assert_eq!(names(&r), ["true (d = 1)", "true (d = 2)"]);
        let prepare = |i: usize| r.settings.benchmarks[i].hooks.prepare.clone().unwrap();
        assert_eq!(prepare(0).argv(), ["touch", "p1"]);
        assert_eq!(prepare(1).argv(), ["touch", "p2"]);
    }

    #[test]
    fn shell_syntax_goes_through_sh_unless_n_and_the_empty_shell_is_measured_beside_it() {
        let r = request(&["a | b", "c d"]).resolve_checked().unwrap();
        let b = &r.settings.benchmarks;
        assert_eq!(b[0].command, CommandLine::Shell("a | b".into()));
        assert_eq!(b[1].command.argv(), ["c", "d"]);
        // The empty shell is one more benchmark, marked; the shell command is netted of it.
        assert_eq!(b[2].name, "sh -c ''");
        assert_eq!(b[2].command.argv(), ["sh", "-c", ""]);
        assert_eq!(
            r.settings.shell_roles,
            [
                ShellRole::NetOf("sh -c ''".into()),
                ShellRole::None,
                ShellRole::Startup("sh".into())
            ]
        );
        assert!(matches!(
            r.notes[0],
            rigor_report::notes::Note::ThroughShell { .. }
        ));
        let mut q = request(&["a | b"]);
        q.shell = Some("none".into());
        let r = q.resolve_checked().unwrap();
        assert_eq!(r.settings.benchmarks.len(), 1);
        assert_eq!(r.settings.benchmarks[0].command.argv(), ["a", "|", "b"]);
        assert!(r.notes.is_empty());
        // A run until decided measures no empty shell (it would be a candidate), nor does an
        // adaptive one (it would be held to the precision target).
        let mut q = request(&["a | b", "c | d"]);
        q.until_decided = true;
        assert_eq!(q.resolve_checked().unwrap().settings.benchmarks.len(), 2);
        let mut q = request(&["a | b"]);
        q.precision = Some(Fraction::percent(1.0).unwrap());
        assert_eq!(q.resolve_checked().unwrap().settings.benchmarks.len(), 1);
    }

    #[test]
    fn a_temporary_build_root_lives_as_long_as_its_guard() {
        let mut q = request(&["x"]);
        q.build = Some("make".into());
        let r = q.resolve().unwrap();
        let build = r.settings.runner.build.clone().unwrap();
        assert_eq!(build.builds, DEFAULT_BUILDS);
        assert!(build.root.is_dir());
        let copy = r.settings.clone();
        drop(r);
        assert!(!copy.runner.build.unwrap().root.exists());
    }
}
