//! A run as a front end asks for it ([`RunRequest`]: every option of `rigor run`, in domain
//! types, unchecked) and its resolution into [`RunSettings`]: benchmarks expanded, the plan
//! applied, the mode chosen, every bound and export checked, the settings record built — once,
//! before anything runs, so that a bad option costs no measurement.

use std::path::PathBuf;

use regex::Regex;
use rigor_runner::{
    Benchmark, BuildSettings, CommandLine, IterationSource, OutputMode, Settings, Stream,
};
use rigor_store::{Discard, LevelKind, ModeRecord, RunSettingsRecord};
use rigor_units::{Fraction, Seconds, Seed, TimeUnit};
use serde::{Deserialize, Serialize};

use super::files::{check_writable, file, is_stdout};
use super::{
    AnalysisSettings, BuildDir, ComparisonSettings, ExportPaths, Exports, Mode, Origin,
    RunSettings, SortOrder, StdoutExport, expand,
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

/// Commands run around the measured ones (hyperfine's hooks), as given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Hooks {
    /// Once per benchmark before its first execution.
    pub setup: Option<String>,
    /// Before every execution.
    pub prepare: Option<String>,
    /// After every execution.
    pub conclude: Option<String>,
    /// Once per benchmark after its last execution.
    pub cleanup: Option<String>,
}

impl ExportPaths {
    /// The exports that may name standard output, each with its option.
    fn streamable(&self) -> [(&Option<PathBuf>, StdoutExport, &'static str); 5] {
        [
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
    /// Comparisons.
    pub comparison: ComparisonSettings,
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

/// The benchmarks of the commands: one per command and combination of parameter values (the
/// command's values vary fastest), each with its command text and its parameters.
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
        let shell = shell.as_deref();
        let expanded = self.expand(&commands, shell)?;
        let hook = |c: &Option<String>| {
            c.as_deref()
                .map(|t| CommandLine::parse_for(t, shell))
                .transpose()
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
        let (build, build_dir) = self.build_level(timeout, shell)?;
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
            iterations,
            setup: hook(&self.hooks.setup)?,
            prepare: hook(&self.hooks.prepare)?,
            conclude: hook(&self.hooks.conclude)?,
            cleanup: hook(&self.hooks.cleanup)?,
            ignore_failure: self.ignore_failure,
            seed: self.seed.unwrap_or_else(Seed::from_entropy),
            build,
            randomize_env: self.randomize_env,
            iterations_per_execution: self.iterations,
        };
        runner.validate()?;
        let mut notes = Vec::new();
        let mode = match &self.plan {
            Some(path) => {
                let plan = PlanFile::load(path).map_err(|e| RequestError::Plan(Box::new(e)))?;
                notes = apply_plan(
                    &mut benchmarks,
                    &mut runner,
                    self.discard,
                    &self.analysis,
                    &plan,
                    self.precision,
                )
                .map_err(|e| RequestError::Plan(Box::new(e)))?;
                runner.validate_with(&benchmarks)?;
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
            None => Mode::Fixed,
        };
        check_reference(
            self.comparison.reference.as_deref(),
            &benchmarks,
            &expanded.commands,
        )?;
        let record = self.record(&mode, &runner, shell.is_some());
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
            runner,
            discard: self.discard,
            iterations_expected,
            mode,
            analysis: self.analysis,
            comparison: self.comparison.clone(),
            exports: Exports {
                files: ExportPaths {
                    json: file(&e.json),
                    csv: file(&e.csv),
                    markdown: file(&e.markdown),
                    asciidoc: file(&e.asciidoc),
                    orgmode: file(&e.orgmode),
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

    fn expand(&self, commands: &[String], shell: Option<&[String]>) -> Result<Expanded> {
        if commands.is_empty() {
            return Err(RequestError::NoCommand);
        }
        if self.names.len() > commands.len() {
            return Err(RequestError::TooManyNames {
                names: self.names.len(),
                commands: commands.len(),
            });
        }
        let combinations = expand::combinations(&self.parameters)?;
        if let Some(first) = combinations.first() {
            expand::check_used(first, commands, &self.names)?;
        }
        let mut out = Expanded {
            benchmarks: Vec::new(),
            commands: Vec::new(),
            parameters: Vec::new(),
        };
        for (i, text) in commands.iter().enumerate() {
            for values in &combinations {
                let command_text = expand::substitute(text, values);
                let command = CommandLine::parse_for(&command_text, shell)?;
                let name = match self.names.get(i) {
                    Some(name) if values.is_empty() => name.clone(),
                    Some(name) if name.contains('{') => expand::substitute(name, values),
                    Some(name) => format!("{name} ({})", describe_values(values)),
                    None => command_text.clone(),
                };
                out.benchmarks.push(Benchmark::new(name, command));
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
        shell: Option<&[String]>,
    ) -> Result<(Option<BuildSettings>, BuildDir)> {
        let Some(text) = &self.build else {
            return Ok((None, BuildDir::default()));
        };
        let command = CommandLine::parse_for(text, shell)?;
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
        assert_eq!(names(&r), ["A (x = 1)", "A (x = 2)", "b 1", "b 2"]);
        assert_eq!(r.settings.commands, ["a 1", "a 2", "b 1", "b 2"]);
        q.commands = vec!["a {x}".into(), "a {x}".into()];
        q.names = vec!["n{x}".into(), "n{x}".into()];
        assert!(matches!(q.resolve(), Err(RequestError::DuplicateName(n)) if n == "n1"));
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
