//! Resolved settings of every use case: what a front end (the `rigor` binary, a server, a
//! harness) builds from its own input before anything runs. Domain types only: nothing here
//! knows about the command line.

use std::path::PathBuf;

use rigor_runner::{Benchmark, Settings as RunnerSettings};
use rigor_stats::Quantile;
use rigor_stats::analysis::AnalysisConfig;
use rigor_stats::compare::{CompareConfig, Verdict};
use rigor_stats::{BootstrapConfig, Estimator};
use rigor_store::{Discard, VerdictMethod};
use rigor_units::{ConfidenceLevel, Fraction, Seconds, Seed};
use serde::{Deserialize, Serialize};

use crate::plan_file::PlanFile;

mod benchmarks;
pub mod expand;
mod files;
mod hooks;
mod request;

pub use files::{AnalyzeRequest, check_output, check_writable, is_stdout};

pub use hooks::Hooks;
pub use request::{
    DEFAULT_BUILDS, DEFAULT_EXECUTIONS_PER_DECIDING_BUILD, DEFAULT_MAX_ROUNDS, DEFAULT_MAX_UNITS,
    Parameters, Resolved, RunRequest, Scan,
};

/// `--throughput` for a benchmark with parameter `values`: `{VAR}` replaced, then read.
///
/// # Errors
/// [`RequestError::Throughput`](crate::RequestError::Throughput) naming the text as it was after the replacement.
pub fn throughput(
    template: &str,
    values: &expand::Values,
) -> std::result::Result<rigor_units::Throughput, crate::RequestError> {
    let text = expand::substitute(template, values);
    text.parse()
        .map_err(|source| crate::RequestError::Throughput {
            given: template.to_string(),
            source,
        })
}

/// How intervals are computed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AnalysisSettings {
    /// Confidence level of every interval.
    pub confidence: ConfidenceLevel,
    /// Quantile of the mean's interval.
    pub quantile: Quantile,
}

impl Default for AnalysisSettings {
    fn default() -> Self {
        Self {
            confidence: ConfidenceLevel::NINETY_FIVE,
            quantile: Quantile::StudentT,
        }
    }
}

impl AnalysisSettings {
    /// The statistics crate's configuration.
    pub fn config(&self) -> AnalysisConfig {
        AnalysisConfig {
            level: self.confidence.get(),
            quantile: self.quantile,
        }
    }
}

/// What makes the exit status report a failure (`--fail-on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum FailOn {
    /// Any regression.
    Regression,
    /// Any regression or improvement.
    Change,
    /// Any verdict other than equivalent or improvement.
    Inconclusive,
    /// Any warning (a non-fatal problem with the data or the run).
    #[cfg_attr(
        feature = "clap",
        value(help = "Any warning (about the data, the analysis or the run)")
    )]
    Warning,
}

impl FailOn {
    /// The rule as `--fail-on` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Regression => "regression",
            Self::Change => "change",
            Self::Inconclusive => "inconclusive",
            Self::Warning => "warning",
        }
    }

    /// Whether it judges comparisons' verdicts (every rule but `warning`).
    pub fn on_verdicts(self) -> bool {
        self != Self::Warning
    }

    /// Whether this rule fails on `verdict`.
    pub fn fails_on(self, verdict: Verdict) -> bool {
        match self {
            Self::Regression => verdict == Verdict::Regression,
            Self::Change => verdict.is_change(),
            Self::Inconclusive => verdict != Verdict::Equivalent && verdict != Verdict::Improvement,
            Self::Warning => false,
        }
    }
}

/// How benchmarks are compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ComparisonSettings {
    /// The benchmark the others are compared with: a name, a command, or a 1-based position
    /// (`None`: the first).
    pub reference: Option<String>,
    /// Practical threshold: smaller changes are "equivalent".
    pub threshold: Fraction,
    /// What decides the verdict.
    pub method: VerdictMethod,
    /// The statistic compared.
    pub estimator: Estimator,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// What fails the exit status.
    pub fail_on: Option<FailOn>,
    /// Whether benchmarks are compared at all (`rigor track run` measures versions together
    /// without comparing them: its change detection does).
    pub enabled: bool,
}

impl Default for ComparisonSettings {
    fn default() -> Self {
        Self {
            reference: None,
            threshold: Fraction::percent(1.0).unwrap_or_default(),
            method: VerdictMethod::Ratio,
            estimator: Estimator::Mean,
            resamples: rigor_stats::bootstrap::DEFAULT_RESAMPLES,
            fail_on: None,
            enabled: true,
        }
    }
}

impl ComparisonSettings {
    /// The statistics crate's configuration, at `level` with the bootstrap seeded by `seed`.
    pub fn config(&self, level: ConfidenceLevel, seed: Seed) -> CompareConfig {
        CompareConfig {
            level: level.get(),
            threshold: self.threshold.get(),
            estimator: self.estimator,
            bootstrap: BootstrapConfig {
                resamples: self.resamples,
                seed: seed.get(),
                level: level.get(),
                ..BootstrapConfig::default()
            },
            ..CompareConfig::default()
        }
    }
}

/// How many units an experiment measures.
#[derive(Debug, Clone)]
pub enum Mode {
    /// The counts in the runner settings.
    Fixed,
    /// `rigor run` without counts: the executions rigor's warnings ask for (20), fewer when
    /// they would take more than the budget per command, never fewer than 10
    /// ([`rigor_runner::length`]).
    DefaultLength(rigor_runner::LengthSettings),
    /// A plan file's counts below the top level; its top-level count comes from the precision
    /// when one is given (already applied to the runner settings when resolved).
    Planned {
        /// The plan.
        plan: Box<PlanFile>,
        /// The target relative half-width, if any.
        precision: Option<Fraction>,
    },
    /// A pilot (kept), then the optimal lower-level counts and top-level units until the target
    /// or the budget is reached.
    Adaptive {
        /// Target relative half-width.
        precision: Option<Fraction>,
        /// Measured-time budget, pilot included.
        budget: Option<Seconds>,
        /// Most top-level units.
        max_units: usize,
        /// The pilot's top-level units (default: [`PilotSettings::adaptive`]'s).
        ///
        /// [`PilotSettings::adaptive`]: rigor_runner::PilotSettings::adaptive
        min_units: Option<usize>,
    },
    /// `rigor track run --precision`/`--budget`: interleaved rounds (executions) until each
    /// benchmark's level — Huber's M-estimate of its execution means, as the history stores it —
    /// is known to the target relative half-width; a benchmark that reaches it is measured no
    /// more ([`rigor_runner::run_until_known`]).
    UntilKnown {
        /// Target relative half-width of each benchmark's level.
        precision: Option<Fraction>,
        /// Measured-time budget of the run, pilot included.
        budget: Option<Seconds>,
        /// Executions before the first look.
        min_units: usize,
        /// Most executions of a benchmark.
        max_units: usize,
    },
    /// Interleaved rounds until each comparison with the reference is decided — regression,
    /// improvement or equivalent within the threshold — by an anytime-valid confidence sequence
    /// ([`crate::decided`]), or until the budget is spent.
    UntilDecided {
        /// Measured-time budget.
        budget: Option<Seconds>,
        /// Most rounds.
        max_rounds: usize,
        /// Rounds before the first look.
        min_rounds: usize,
    },
}

impl Mode {
    /// The mode as a result file records it.
    pub fn record(&self) -> rigor_store::ModeRecord {
        use rigor_store::ModeRecord;
        match self {
            Mode::Fixed => ModeRecord::Fixed,
            Mode::DefaultLength(l) => ModeRecord::DefaultLength {
                first: l.first,
                target: l.target,
                budget: l.budget,
            },
            Mode::Planned { precision, .. } => ModeRecord::Planned {
                precision: *precision,
            },
            // `track run --precision` (until known) is recorded as the adaptive run it is made
            // from.
            Mode::Adaptive {
                precision,
                budget,
                max_units,
                ..
            }
            | Mode::UntilKnown {
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
        }
    }
}

/// Export paths: as asked for (`-` is standard output) in a [`RunRequest`], files only in
/// resolved [`Exports`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ExportPaths {
    /// `--export-json`.
    pub json: Option<PathBuf>,
    /// `--export-csv`.
    pub csv: Option<PathBuf>,
    /// `--export-markdown`.
    pub markdown: Option<PathBuf>,
    /// `--export-asciidoc`.
    pub asciidoc: Option<PathBuf>,
    /// `--export-orgmode`.
    pub orgmode: Option<PathBuf>,
    /// `--report` (HTML).
    pub html: Option<PathBuf>,
    /// `--export-bmf`.
    pub bmf: Option<PathBuf>,
    /// `--export-otava`.
    pub otava: Option<PathBuf>,
    /// `--export-json-hyperfine`: hyperfine 1.20's JSON.
    pub hyperfine_json: Option<PathBuf>,
    /// `--export-csv-hyperfine`: hyperfine 1.20's CSV summary.
    pub hyperfine_csv: Option<PathBuf>,
}

/// Files written at the end of a run (the JSON result is written as it is measured).
#[derive(Debug, Clone, Default)]
pub struct Exports {
    /// The files (the JSON result appended as each execution completes).
    pub files: ExportPaths,
    /// The unit of every time shown (default: chosen for each value's size).
    pub unit: Option<rigor_units::TimeUnit>,
    /// Order of the ranking and the tables.
    pub sort: SortOrder,
    /// The one export written to standard output at the end (`--export-… -`) instead of a file.
    pub stdout: Option<StdoutExport>,
}

/// An export written to standard output (hyperfine's `-` for a file name). At most one per run:
/// two formats on one stream could not be told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StdoutExport {
    /// The result JSON, written once at the end (a file is written as the run goes).
    Json,
    /// The long-format CSV of every measurement.
    Csv,
    /// The Markdown table and comparisons.
    Markdown,
    /// The AsciiDoc table.
    AsciiDoc,
    /// The org-mode table.
    OrgMode,
    /// hyperfine's JSON.
    HyperfineJson,
    /// hyperfine's CSV summary.
    HyperfineCsv,
}

/// Order of the ranking and of the exported tables (hyperfine's `--sort`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum SortOrder {
    /// The ranking by mean time, the tables in command order.
    #[default]
    Auto,
    /// Command order everywhere.
    Command,
    /// Fastest first everywhere.
    MeanTime,
}

/// Where a run came from, saved in its result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Origin {
    /// The command line as typed (program name first).
    pub command_line: Vec<String>,
    /// A version or commit label given by the user.
    pub label: Option<String>,
    /// The working directory, whose git commit is recorded when it is a repository.
    pub working_dir: Option<PathBuf>,
    /// The versions measured together (`rigor track run`), recorded in the provenance.
    pub versions: Vec<String>,
}

impl Origin {
    /// This process's command line and working directory, with `label`.
    pub fn current(label: Option<String>) -> Self {
        Self {
            command_line: std::env::args().collect(),
            label,
            working_dir: std::env::current_dir().ok(),
            versions: Vec::new(),
        }
    }
}

/// The temporary root of a run's build directories (removed when this is dropped), or nothing
/// when the builds have a root of their own or there are no builds. It is held beside the
/// [`RunSettings`] that point into it, so the settings themselves are plain values.
#[derive(Debug, Default)]
pub struct BuildDir(Option<tempfile::TempDir>);

impl BuildDir {
    /// A new temporary directory.
    ///
    /// # Errors
    /// When it cannot be made.
    pub fn temporary() -> std::io::Result<Self> {
        tempfile::Builder::new()
            .prefix("rigor-builds-")
            .tempdir()
            .map(|d| Self(Some(d)))
    }

    /// Its path, when it is a temporary directory.
    pub fn path(&self) -> Option<&std::path::Path> {
        self.0.as_ref().map(tempfile::TempDir::path)
    }
}

/// Everything `run` needs, resolved and validated.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// The benchmarks, in order.
    pub benchmarks: Vec<Benchmark>,
    /// Each benchmark's command as given, parameters substituted (saved in the result).
    pub commands: Vec<String>,
    /// Each benchmark's parameter values (`--parameter-scan`, `--parameter-list`); empty maps
    /// without parameters.
    pub parameters: Vec<std::collections::BTreeMap<String, String>>,
    /// Each benchmark's version, when versions of a project are measured together (`rigor track
    /// run`); empty otherwise.
    pub versions: Vec<Option<String>>,
    /// Each benchmark's version's artifact hash (hexadecimal), beside `versions` when the build
    /// was hashed; empty otherwise.
    pub artifacts: Vec<Option<String>>,
    /// Each benchmark's part in subtracting a shell's start-up (saved in the result); empty when
    /// no command runs through a shell.
    pub shell_roles: Vec<ShellRole>,
    /// The runner's settings.
    pub runner: RunnerSettings,
    /// Warm-up iterations.
    pub discard: Discard,
    /// Whether iteration times are expected (a pattern was given).
    pub iterations_expected: bool,
    /// How many units to measure.
    pub mode: Mode,
    /// Intervals.
    pub analysis: AnalysisSettings,
    /// What is summarised and compared (`--metric`; empty or `wall`: wall time alone).
    pub metrics: Vec<rigor_units::Metric>,
    /// Each benchmark's work per measured value (`--throughput`), shown as a rate; empty
    /// without it.
    pub throughputs: Vec<rigor_units::Throughput>,
    /// Iterations per execution of an adaptive run's pilot, when not its usual 10
    /// ([`RunRequest::pilot_iterations`]); `--iterations` also sets them.
    pub pilot_iterations: Option<usize>,
    /// Comparisons of several benchmarks.
    pub comparison: ComparisonSettings,
    /// Files to write.
    pub exports: Exports,
    /// The simulator instead of real processes.
    pub simulate: bool,
    /// Where the run came from.
    pub origin: Origin,
    /// The raw settings as the user chose them, saved in the result.
    pub record: rigor_store::RunSettingsRecord,
    /// What the executor measures of each execution besides its times: performance counters
    /// (checked on this machine) and whether peak memory must be the command's own (asked for
    /// with `--metric peak-memory`).
    pub measures: rigor_runner::Measures,
}

/// A benchmark's part in subtracting a shell's start-up from the commands run through it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ShellRole {
    /// Neither (a command run directly).
    #[default]
    None,
    /// A command run through a shell: also reported net of the named start-up benchmark.
    NetOf(String),
    /// The empty shell (`sh -c ''`): the start-up of this shell's command line.
    Startup(String),
}

impl RunSettings {
    /// Measure with `mode` instead, recorded as such in the result.
    pub fn set_mode(&mut self, mode: Mode) {
        self.record.mode = mode.record();
        self.mode = mode;
    }

    /// The benchmarks of the user's commands: all but the empty shells measured for the
    /// start-up ([`ShellRole::Startup`]).
    pub fn commands_measured(&self) -> usize {
        let startups = self
            .shell_roles
            .iter()
            .filter(|r| matches!(r, ShellRole::Startup(_)))
            .count();
        self.benchmarks.len() - startups
    }

    /// Whether this run is adaptive.
    pub fn is_adaptive(&self) -> bool {
        matches!(self.mode, Mode::Adaptive { .. })
    }

    /// How many units it measures, as its opening line says.
    pub fn shape(&self) -> rigor_report::notes::Shape {
        use rigor_report::notes::Shape;
        let build = self.runner.build.as_ref();
        match &self.mode {
            Mode::Adaptive { .. } | Mode::UntilKnown { .. } => Shape::Adaptive,
            Mode::UntilDecided { max_rounds, .. } => Shape::UntilDecided {
                per_build: build.map(|_| self.runner.executions),
                max_rounds: *max_rounds,
            },
            Mode::DefaultLength(l) => Shape::DefaultLength {
                first: l.first,
                target: l.target,
                budget: l.budget,
            },
            Mode::Fixed | Mode::Planned { .. } => Shape::Fixed {
                builds: build.map(|b| b.builds),
                executions: self.runner.executions,
            },
        }
    }
}

/// What `plan` needs: a run's settings plus the pilot's size.
#[derive(Debug, Clone)]
pub struct PlanSettings {
    /// The experiment to dimension.
    pub run: RunSettings,
    /// The pilot.
    pub pilot: rigor_runner::PilotSettings,
    /// Where the plan goes.
    pub out: PathBuf,
}
