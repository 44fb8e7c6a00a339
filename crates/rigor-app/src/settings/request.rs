//! A run as a front end asks for it ([`RunRequest`]: every option of `rigor run`, in domain
//! types, unchecked) and its resolution into [`RunSettings`]: benchmarks expanded, the plan
//! applied, the mode chosen, every bound and export checked, the settings record built — once,
//! before anything runs, so that a bad option costs no measurement.

use std::path::PathBuf;

use regex::RegexBuilder;
use rigor_runner::{
    Benchmark, BuildSettings, CommandLine, Counter, IterationSource, OutputMode, Settings, Stream,
};
use rigor_store::{Discard, LevelKind, RunSettingsRecord};
use rigor_units::{Fraction, Seconds, Seed, TimeUnit};
use serde::{Deserialize, Serialize};

use super::benchmarks::{add_shell_startups, check_reference};
use super::files::{check_writable, file, is_stdout};
use super::hooks::Hooks;
use super::{
    AnalysisSettings, BuildDir, ComparisonSettings, ExportPaths, Exports, Mode, Origin,
    RunSettings, SortOrder, StdoutExport, expand, expand::ShellChoice,
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
        // The files only: the `StdoutExport` beside them is not read here.
        let files = [
            (&self.html, StdoutExport::Json, "--report"),
            (&self.bmf, StdoutExport::Json, "--export-bmf"),
            (&self.otava, StdoutExport::Json, "--export-otava"),
        ];
        for (path, _, option) in self.streamable().into_iter().chain(files) {
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
    /// `--shell=VALUE` (or `-SVALUE`) was written, attached: the value is the shell, one rigor
    /// does not know included (`--shell=python3` runs `python3 -c COMMAND`, as hyperfine's
    /// `--shell python3` does); a value given apart is a shell only when rigor knows it.
    pub shell_attached: bool,
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
    /// What is summarised and compared (`--metric`; empty: wall time).
    pub metrics: Vec<rigor_units::Metric>,
    /// Iterations per execution an adaptive run's pilot asks for, when not the pilot's usual 10
    /// (`rigor bench`: the samples a fixed run's process takes, so that the pilot plans from
    /// what the run will measure).
    pub pilot_iterations: Option<usize>,
    /// `--throughput`: the work of one measured value (`64MiB`, `1000items`), `{VAR}`
    /// replaced by each benchmark's parameters.
    pub throughput: Option<String>,
    /// Where the run came from.
    pub origin: Origin,
    /// Performance counters to count for each measured execution besides those the metrics
    /// need (`--metric instructions` and `cycles` add theirs), each checked on this machine
    /// before anything runs.
    pub counters: Vec<Counter>,
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
        let (shell, commands, taken) =
            expand::shell(self.shell.as_deref(), &self.commands, self.shell_attached);
        let mut through_shell = Vec::new();
        let mut expanded = self.expand(&commands, &shell, &mut through_shell)?;
        let mut comparison = self.comparison.clone();
        let mut notes = Vec::new();
        if let Some(value) = taken {
            notes.push(rigor_report::notes::Note::ShellValueIsCommand { value });
        }
        if let Some(name) = self.add_reference(&mut expanded, &shell, &mut through_shell)? {
            notes.push(rigor_report::notes::Note::ReferenceAdded {
                command: expanded.commands[0].clone(),
            });
            comparison.reference = Some(name);
        }
        let throughputs = match &self.throughput {
            Some(t) => expanded
                .parameters
                .iter()
                .map(|values| super::throughput(t, values))
                .collect::<Result<Vec<_>>>()?,
            None => Vec::new(),
        };
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
        let measures = rigor_runner::Measures {
            counters: self.counters()?,
            own_peak_memory: self.metrics.contains(&rigor_units::Metric::PeakMemory),
        };
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
        // Counts known before anything runs: every build made first and measured in the same
        // rounds, so that load drifting over the run is not taken for variance between builds.
        // A design that decides after each build keeps each build's executions together.
        // Only builds that live side by side can share rounds: each benchmarked command names
        // its own build's directory. A command that does not (`--build make` in a source tree,
        // then `./prog`) runs whatever the last build left, so its builds keep a block each.
        // A command naming its build by index (`out{build}/prog`; `rigor bench --builds`' layouts)
        // runs its own build too.
        if let Some(build) = &mut runner.build {
            let fixed = matches!(mode, Mode::Fixed | Mode::Planned { .. });
            let apart = benchmarks.iter().all(|b| {
                let text = b.command.text();
                text.contains("{build_dir}") || text.contains("{build}")
            });
            build.interleaved = fixed && apart;
            if fixed && !apart && !self.simulate {
                notes.push(rigor_report::notes::Note::BuildsInBlocks);
            }
        }
        if !rigor_runner::schedule::interleaved(&benchmarks) {
            let mode = match &mode {
                Mode::Fixed | Mode::DefaultLength(_) => None,
                Mode::Planned { .. } => Some("--plan"),
                Mode::Adaptive { .. } if self.precision.is_some() => Some("--precision"),
                Mode::Adaptive { .. } | Mode::UntilKnown { .. } => Some("--budget"),
                Mode::UntilDecided { .. } => Some("--until-decided"),
            };
            if let Some(mode) = mode {
                return Err(RequestError::BlocksNeedFixedCount { mode });
            }
            notes.push(rigor_report::notes::Note::NotInterleaved);
        } else if benchmarks.len() > 1
            && (!self.hooks.setup.is_empty() || !self.hooks.cleanup.is_empty())
        {
            // One setup and cleanup for every command: run once around the interleaved rounds,
            // where hyperfine runs them around each command's runs.
            notes.push(rigor_report::notes::Note::HooksOnceForAll {
                setup: !self.hooks.setup.is_empty(),
                cleanup: !self.hooks.cleanup.is_empty(),
            });
        }
        // A simulated run starts no process: its "commands" are specifications, never run
        // through a shell, so nothing is said of shell syntax in them.
        if !through_shell.is_empty() && !self.simulate {
            notes.insert(
                0,
                rigor_report::notes::Note::ThroughShell {
                    commands: through_shell,
                },
            );
        }
        if !self.simulate {
            notes.extend(words_as_commands(&expanded.commands));
        }
        // hyperfine's option names with rigor's formats: said, for scripts that read them as
        // hyperfine's.
        // Not when the hyperfine option is given beside it: the user knows the two apart.
        let own: Vec<&'static str> = [
            (
                self.exports.json.is_some() && self.exports.hyperfine_json.is_none(),
                "--export-json",
            ),
            (
                self.exports.csv.is_some() && self.exports.hyperfine_csv.is_none(),
                "--export-csv",
            ),
        ]
        .into_iter()
        .filter_map(|(given, option)| given.then_some(option))
        .collect();
        if !own.is_empty() {
            notes.push(rigor_report::notes::Note::OwnFormats(own));
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
            artifacts: Vec::new(),
            shell_roles: Vec::new(),
            runner,
            discard: self.discard,
            iterations_expected,
            mode,
            analysis: self.analysis,
            metrics: self.metrics.clone(),
            throughputs,
            pilot_iterations: self.pilot_iterations,
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
            measures,
        };
        Ok(Resolved {
            settings,
            build_dir,
            notes,
        })
    }

    /// The counters asked for and those the metrics need (`instructions`, `cycles`), each
    /// once, each opened once on this machine (a simulated run measures no process, so nothing
    /// is opened for it).
    ///
    /// # Errors
    /// [`RequestError::Counter`] for the first one this machine cannot count.
    fn counters(&self) -> Result<Vec<Counter>> {
        let mut counters: Vec<Counter> = Vec::new();
        let of_metrics = self.metrics.iter().filter_map(Counter::for_metric);
        for c in self.counters.iter().copied().chain(of_metrics) {
            if !counters.contains(&c) {
                if !self.simulate {
                    rigor_runner::perf::probe(c).map_err(RequestError::Counter)?;
                }
                counters.push(c);
            }
        }
        Ok(counters)
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
    pub(crate) fn fixed_executions(&self) -> Result<usize> {
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
        // Line by line, as the error for no match says and `grep` reads it: `^` and `$` match
        // at each line's ends (CRLF too), not only at the output's (`^([0-9.]+)$` matched
        // nothing in a program printing one time per line).
        let regex = RegexBuilder::new(pattern)
            .multi_line(true)
            .crlf(true)
            .build()
            .map_err(|source| RequestError::Pattern {
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
            // Decided with the mode ([`RunRequest::resolve`]).
            interleaved: false,
            for_benchmark: Vec::new(),
            seeds: Vec::new(),
        };
        Ok((Some(build), dir))
    }

    /// The settings as saved in the result.
    fn record(&self, mode: &Mode, runner: &Settings, shell: bool) -> RunSettingsRecord {
        let c = &self.comparison;
        RunSettingsRecord {
            mode: mode.record(),
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
            reference: c.reference.clone(),
            compared_within: c.enabled,
        }
    }
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
    let mut notes: Vec<_> = benchmarks
        .iter()
        .zip(&plans)
        .filter(|(b, p)| p.name != b.name)
        .map(|(b, p)| rigor_report::notes::Note::PlanMatchedByPosition {
            benchmark: b.name.clone(),
            plan: p.name.clone(),
        })
        .collect();
    // A plan made with --discard auto counts iterations after the warm-up: run without it, the
    // warm-up ones were measured as steady, silently (a new user's mean was 2.6 times the
    // steady iteration's).
    let unwarmed: Vec<(String, usize)> = benchmarks
        .iter()
        .zip(&plans)
        .filter(|(_, p)| match discard {
            Discard::Auto => false,
            Discard::Count(n) => n < p.warmup_iterations,
        })
        .map(|(b, p)| (b.name.clone(), p.warmup_iterations))
        .collect();
    if !unwarmed.is_empty() {
        notes.push(rigor_report::notes::Note::PlanWarmup {
            benchmarks: unwarmed,
        });
    }
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

/// [`Note::WordsAsCommands`](rigor_report::notes::Note::WordsAsCommands) when commands after
/// the first are single words that look like arguments (an option, `name=value` as dd takes, a
/// number, or a file that is no program): `rigor run dd if=/dev/zero` measures three commands,
/// which is what hyperfine does too, but rarely what was meant (`rigor run -- ./work 40000000`
/// ran `./work` alone and failed to start `40000000`, with nothing said of why).
fn words_as_commands(commands: &[String]) -> Option<rigor_report::notes::Note> {
    use std::os::unix::fs::PermissionsExt;
    let (first, rest) = commands.split_first()?;
    let data_file = |c: &str| {
        std::fs::metadata(c).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 == 0)
    };
    let looks_like_argument = |c: &String| {
        !c.contains(char::is_whitespace)
            && (c.starts_with('-')
                || c.split_once('=').is_some_and(|(name, _)| {
                    !name.is_empty() && name.chars().all(|ch| ch.is_ascii_alphanumeric())
                })
                || c.parse::<f64>().is_ok()
                || data_file(c))
    };
    let words: Vec<String> = rest
        .iter()
        .filter(|c| looks_like_argument(c))
        .cloned()
        .collect();
    (!words.is_empty()).then(|| rigor_report::notes::Note::WordsAsCommands {
        first: first.clone(),
        words,
    })
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
