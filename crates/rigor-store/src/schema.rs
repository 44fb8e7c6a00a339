//! The result file schema, version 2.
//!
//! Version 2 (rigor 0.2) types what version 1 kept as strings — level kinds, units, verdicts,
//! estimators, interval and variance methods, steady-state classes, warnings and the run's
//! settings — and adds the run's provenance. Version 1 files are still read ([`crate::v1`]).
//!
//! Raw observations (`samples`, `executions`, `failures`) are stored apart from derived estimates
//! (`mean`, `ci`, `variance_components`, ...), so every report can be rebuilt from the raw data
//! (`rigor analyze`). While a run is in progress the file also carries a `log` of records appended
//! as each execution completes; a finished file has none.

use std::collections::BTreeMap;

use rigor_stats::Estimator;
use rigor_stats::Quantile;
use rigor_stats::analysis::Warning as AnalysisWarning;
use rigor_stats::compare::{PValueTest, RatioInterval, Verdict};
use rigor_stats::steady::{Consistency, Recommendation, RunClass};
use rigor_stats::variance::ComponentMethod;
use rigor_units::{ConfidenceLevel, Fraction, Resolution, Seconds, Seed, TimeUnit};
use serde::{Deserialize, Serialize};

pub use rigor_units::MetricValues;

use crate::environment::Environment;
use crate::layout::{Layout, LevelKind};
use crate::warning::Warning;

/// The schema version this build writes and the newest it reads.
pub const SCHEMA_VERSION: u32 = 2;

/// Whether the run that wrote a file finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// All planned work ran (some benchmarks may have failed).
    #[default]
    Complete,
    /// The run was stopped by the user; the data measured so far is here.
    Interrupted,
    /// Still running, or killed: the raw records are in `log`.
    Running,
}

/// A whole result file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultFile {
    /// Always [`SCHEMA_VERSION`] when written by this build.
    pub schema_version: u32,
    /// Version of rigor that wrote the file.
    pub rigor_version: String,
    /// Whether the run finished.
    #[serde(default)]
    pub status: RunStatus,
    /// When, how and from what the result was made.
    #[serde(default)]
    pub provenance: Provenance,
    /// Seed of every random choice (order within rounds, bootstrap).
    pub seed: Seed,
    /// Confidence level of the intervals.
    pub confidence: ConfidenceLevel,
    /// The machine.
    #[serde(default)]
    pub environment: Environment,
    /// Settings of the run, as resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<RunSettingsRecord>,
    /// One entry per benchmark.
    pub benchmarks: Vec<BenchmarkRecord>,
    /// Comparisons between benchmarks (each against the reference), or between two results.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comparisons: Vec<ComparisonRecord>,
    /// Summary over a suite of comparisons (`rigor compare`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<SuiteRecord>,
    /// Non-fatal problems of the run and its analysis (an analysis's own warnings are with its
    /// benchmark).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// Records of an unfinished run, in the order they were measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub log: Vec<LogEntry>,
}

impl ResultFile {
    /// An empty, complete result of this schema version written by this rigor.
    pub fn new(seed: Seed, confidence: ConfidenceLevel) -> Self {
        Self {
            schema_version: SCHEMA_VERSION,
            rigor_version: env!("CARGO_PKG_VERSION").to_string(),
            status: RunStatus::Complete,
            provenance: Provenance::default(),
            seed,
            confidence,
            environment: Environment::default(),
            settings: None,
            benchmarks: Vec::new(),
            comparisons: Vec::new(),
            suite: None,
            warnings: Vec::new(),
            log: Vec::new(),
        }
    }
}

/// One benchmark: its identity, raw data and (when analysed) estimates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkRecord {
    /// Display name.
    pub name: String,
    /// The command as given.
    pub command: String,
    /// Unit of every sample value.
    #[serde(default)]
    pub unit: TimeUnit,
    /// The levels, top → bottom.
    #[serde(rename = "levels")]
    pub layout: Layout,
    /// Names of the levels when they are not rigor's own (data imported with other names, such
    /// as `run` and `iter`); same length as the levels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level_names: Option<Vec<String>>,
    /// Estimates; absent in an unanalysed file.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<AnalysisRecord>,
    /// Every lowest-level measurement, warm-up included (flagged).
    #[serde(default)]
    pub samples: Vec<SampleRecord>,
    /// Per-execution process measurements.
    #[serde(default)]
    pub executions: Vec<ExecutionRecord>,
    /// Builds, when builds are a level.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub builds: Vec<BuildRecord>,
    /// Warm-up and steady-state diagnosis, when it was run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<SteadyStateRecord>,
    /// Failed executions and hooks.
    #[serde(default)]
    pub failures: Vec<FailureRecord>,
    /// The values of the parameters this benchmark was run with (`--parameter-scan`,
    /// `--parameter-list`), by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub parameters: BTreeMap<String, String>,
    /// The version this benchmark measured, when several versions of a project were measured
    /// together (`rigor track run`): a commit id or a label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The SHA-256 of what that version's build produced (64 hexadecimal digits), when it was
    /// hashed (`rigor track run`): `rigor track add` of the file stores it, so that versions
    /// whose builds are byte-identical are told so as `track run` tells them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<String>,
    /// The benchmark it is a variant of, when another tool's file says so (Google Benchmark's
    /// `BM_Fib` for `BM_Fib/10`, a criterion group, a JMH method, a ReBench benchmark run by
    /// several executors). An imported file's benchmarks are compared with each other only
    /// within one family (or all of them, for a file of commands measured to be compared, such
    /// as hyperfine's); rigor's own runs leave it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// On the empty shell (`sh -c ''`) measured in the same rounds as commands run through
    /// it: that shell's command line (`sh`, `bash --norc`). Its mean is the start-up
    /// subtracted from those commands ([`BenchmarkRecord::net_of`]); it is not ranked or
    /// compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell_startup: Option<String>,
    /// On a command run through a shell: the name of the benchmark that measured that shell's
    /// start-up. Its samples stay gross (as measured); the analysis adds the mean net of the
    /// start-up ([`AnalysisRecord::net`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_of: Option<String>,
    /// What its samples are when they are not the benchmark's wall times: a metric chosen with
    /// `--metric` ([`BenchmarkRecord::for_metric`]). Absent for wall time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<crate::metric::MetricRecord>,
    /// The work of one measured value (`--throughput`): its times are also shown as a rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput: Option<rigor_units::Throughput>,
}

/// A command's mean net of its shell's start-up: the difference of the two means, the
/// start-up's variance carried into the interval (Welch–Satterthwaite degrees of freedom;
/// docs/methodology.md, "Net of the shell's start-up").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetRecord {
    /// The benchmark whose mean was subtracted ([`BenchmarkRecord::net_of`]).
    pub startup: String,
    /// The start-up's mean.
    pub startup_mean: f64,
    /// The net mean (may be negative: a command that costs less than the start-up varies).
    pub mean: f64,
    /// Lower end of its interval (at the analysis's confidence level).
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// Degrees of freedom of the interval's t.
    pub df: f64,
}

/// Derived estimates of one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalysisRecord {
    /// Units per level used in the analysis, top → bottom.
    pub counts: Vec<usize>,
    /// Mean of the top-level unit means.
    pub mean: f64,
    /// Confidence interval of the mean.
    pub ci: IntervalRecord,
    /// Variance components, top → bottom (raw `t2`, may be negative).
    pub variance_components: Vec<ComponentRecord>,
    /// How the components were estimated.
    pub variance_method: ComponentMethod,
    /// Descriptive statistics of the analysed values.
    pub summary: SummaryRecord,
    /// What the user should know about this analysis.
    #[serde(default)]
    pub warnings: Vec<AnalysisWarning>,
    /// For a command run through a shell, its mean net of the shell's start-up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<NetRecord>,
}

/// The confidence interval of a mean.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntervalRecord {
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// Confidence level.
    pub level: ConfidenceLevel,
    /// How it was computed.
    pub method: MeanMethod,
}

/// How the interval of a mean was computed: from the top-level units' means with the critical
/// value of Student's t or of the normal distribution (docs/methodology.md, "The interval").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MeanMethod {
    /// Student's t with (top-level units − 1) degrees of freedom.
    TTopLevelMeans,
    /// The standard normal.
    NormalTopLevelMeans,
}

impl MeanMethod {
    /// The method that uses `quantile`.
    pub fn of(quantile: Quantile) -> Self {
        match quantile {
            Quantile::StudentT => Self::TTopLevelMeans,
            Quantile::Normal => Self::NormalTopLevelMeans,
        }
    }
}

/// One level's variance component.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComponentRecord {
    /// Level name (as in the benchmark's levels or level names).
    pub level: String,
    /// Biased per-level estimator S².
    pub s2: f64,
    /// Unbiased estimator T² (raw; negative means no detectable variance at this level).
    pub t2: f64,
    /// Units at this level used in the analysis (the analysis' `counts`, repeated here so that a
    /// history keeping only the components can still compare two stored means). Absent from
    /// records written before rigor stored it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub units: Option<usize>,
}

/// Descriptive statistics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryRecord {
    /// Number of analysed values.
    pub n: usize,
    /// Median.
    pub median: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
    /// Standard deviation of the values (pooled, for reference).
    pub std_dev: f64,
}

/// One lowest-level measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleRecord {
    /// Build of its execution, when builds are a level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<usize>,
    /// Round of its execution.
    pub round: usize,
    /// Its execution.
    pub execution: usize,
    /// Iteration within the execution (0 when only wall time is measured).
    pub iteration: usize,
    /// The value, in the benchmark's unit.
    pub value: f64,
    /// Excluded from analysis as warm-up.
    pub warmup: bool,
}

/// Process-level measurements of one execution.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExecutionRecord {
    /// Build, when builds are a level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<usize>,
    /// Round.
    pub round: usize,
    /// Execution index within the benchmark.
    pub execution: usize,
    /// Warm-up execution.
    pub warmup: bool,
    /// Wall time.
    pub wall: Seconds,
    /// User CPU time.
    pub user: Seconds,
    /// System CPU time.
    pub sys: Seconds,
    /// Peak RSS, bytes (0 when unknown).
    pub max_rss: u64,
    /// How many times the kernel took the CPU from it to run something else (involuntary
    /// context switches, `ru_nivcsw`, its own threads' and waited-for children's included):
    /// a few per second on a quiet machine, tens to hundreds when other processes compete for
    /// the CPUs. Absent where not measured (other tools' files, histories).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preempted: Option<u64>,
    /// How long it waited, runnable, for a CPU that other processes held (Linux's run-queue
    /// delay of its own process, `/proc/PID/schedstat`): about nothing on a quiet machine, a
    /// share of its wall time beside programs that compete for the CPUs. Absent where not
    /// measured (another system, other tools' files, histories) or where its work ran mostly in
    /// threads or child processes, whose waiting the figure does not count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_delay: Option<Seconds>,
    /// The non-zero exit status it ended with, measured all the same because `-i` asked
    /// (hyperfine's `--ignore-failure`); absent for a successful execution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Bytes of `--randomize-env` padding in its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_pad: Option<usize>,
    /// The step its iteration times move in (seconds), when the program reported it through
    /// the samples file's `resolution` (absent in files written before rigor read it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
    /// Everything else measured of it, by metric name: what the program reported through the
    /// samples file (`{"metric": "allocations", "value": 1234, "unit": "count"}`), hardware
    /// counters (`instructions`, `cycles`), or what another tool's file kept. Absent when
    /// nothing was.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metrics: BTreeMap<String, MetricValues>,
}

/// One build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuildRecord {
    /// Build index.
    pub build: usize,
    /// Wall time of the build (the cost of the build level).
    pub wall: Seconds,
    /// The `{build_seed}` it was given.
    pub seed: u32,
    /// Its directory.
    pub dir: String,
}

/// What failed (the runner's stages, as result files name them).
pub use rigor_units::FailureStage;

/// A failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureRecord {
    /// What failed: the command, its build or a hook command (absent: the command).
    #[serde(default, skip_serializing_if = "FailureStage::is_command")]
    pub stage: FailureStage,
    /// Round.
    pub round: usize,
    /// Execution index (0-based, warm-up executions counted).
    pub execution: usize,
    /// Whether it was a warm-up execution.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub warmup: bool,
    /// Its number as a user counts them, from 1: among the measured executions, or among the
    /// warm-up executions when `warmup` (for a build, `--setup` or `--cleanup`: the number the
    /// next execution would have had). Absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<usize>,
    /// Exit code, if it exited.
    pub exit_code: Option<i32>,
    /// Signal, if killed by one.
    pub signal: Option<i32>,
    /// Killed by rigor's timeout.
    pub timed_out: bool,
    /// The end of its standard error.
    pub stderr_tail: String,
    /// What went wrong.
    pub reason: String,
}

impl FailureRecord {
    /// Whether the command never ran: it could not be started (no such program, no
    /// permission), so it neither exited, nor was killed, nor timed out.
    pub fn never_ran(&self) -> bool {
        self.stage.is_command()
            && self.exit_code.is_none()
            && self.signal.is_none()
            && !self.timed_out
    }
}

/// One record of an unfinished run's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LogEntry {
    /// A measured execution with its iteration values (or none: wall time is the value).
    Execution {
        /// Benchmark index.
        benchmark: usize,
        /// Process-level measurements.
        #[serde(flatten)]
        record: ExecutionRecord,
        /// Iteration values (seconds), if reported.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        iterations: Option<Vec<f64>>,
        /// Leading iterations marked as warm-up.
        #[serde(default)]
        discarded: usize,
    },
    /// A successful build.
    Build {
        /// Benchmark index.
        benchmark: usize,
        /// The build.
        #[serde(flatten)]
        record: BuildRecord,
    },
    /// A failure.
    Failure {
        /// Benchmark index.
        benchmark: usize,
        /// The failure.
        #[serde(flatten)]
        record: FailureRecord,
    },
}

/// A comparison of a candidate's time with a baseline's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonRecord {
    /// The baseline (denominator).
    pub baseline: String,
    /// The candidate (numerator).
    pub candidate: String,
    /// The statistic compared.
    pub estimator: Estimator,
    /// Point estimate of candidate/baseline.
    pub ratio: f64,
    /// The interval that decided the verdict; `null` when Fieller's set is unbounded.
    pub ci: Option<RatioInterval>,
    /// The hierarchical bootstrap interval of the ratio.
    pub bootstrap_ci: Option<BoundsRecord>,
    /// Fieller's g (bounded iff g < 1), for the mean.
    pub g: Option<f64>,
    /// The verdict.
    pub verdict: Verdict,
    /// Practical threshold δ (0.01 = 1%).
    pub threshold: Fraction,
    /// The effect size in words.
    pub effect: String,
    /// Whether the rounds were paired.
    pub paired: bool,
    /// Two-sided p-value of no change in the statistic compared.
    pub p_value: f64,
    /// The test that gave `p_value` (older files carry none: theirs was a
    /// t-test of the means whatever the estimator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_test: Option<PValueTest>,
    /// Whether false-discovery-rate control across the suite turned a change its interval
    /// showed into an inconclusive verdict (q above 1 − level).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fdr_demoted: bool,
    /// Benjamini–Hochberg adjusted p-value across the suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q_value: Option<f64>,
    /// For inconclusive verdicts: roughly how many more top-level units would decide it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more_units: Option<usize>,
    /// The non-overlap rule (Kalibera & Tůma 2006: a change when the two confidence intervals do
    /// not overlap): its verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlap_verdict: Option<Verdict>,
    /// For a run until decided (`--until-decided`): the confidence sequence that decided the
    /// verdict, and why the comparison stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequential: Option<SequentialRecord>,
    /// Against a baseline saved in other sessions (`rigor bench --baseline`): how far the
    /// statistic moved between them, carried into `ci` (no verdict from a single session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between_sessions: Option<rigor_stats::compare::SessionSpread>,
    /// Its verdict was withheld: the two sides were measured under other conditions (a
    /// warning says which), so `ci` is unbounded by that, not by noise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub withheld: bool,
}

/// How a comparison run until decided ended (an anytime-valid confidence sequence on the paired
/// round log-ratios).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SequentialRecord {
    /// Why it stopped.
    pub stop: SequentialStopRecord,
    /// Paired rounds (top-level units of both) it used.
    pub rounds: usize,
    /// Ratio of the geometric means of the paired unit means.
    pub ratio: f64,
    /// Lower end of the sequence for the ratio (`null`: none yet, too few rounds).
    pub lower: Option<f64>,
    /// Upper end (`null`: unbounded).
    pub upper: Option<f64>,
    /// The verdict of the sequence at the stop.
    pub verdict: Verdict,
    /// The error rate this comparison's sequence used (α divided by the number of candidates).
    pub alpha: f64,
}

/// Why a comparison run until decided stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SequentialStopRecord {
    /// The sequence decided.
    Decided,
    /// The time budget was spent: inconclusive.
    Budget,
    /// The round limit was reached: inconclusive.
    MaxRounds,
    /// Interrupted (Ctrl-C).
    Interrupted,
    /// The candidate or the reference failed.
    Failed,
}

/// Lower and upper bounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoundsRecord {
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
}

/// Geometric-mean ratio over a suite of benchmarks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteRecord {
    /// Geometric mean of candidate/baseline over the matched benchmarks.
    pub geometric_mean_ratio: f64,
    /// Its interval: for the mean, t on the log ratios with Welch–Satterthwaite degrees of
    /// freedom (`log-welch`); for the other estimators the bootstrap's percentiles (the
    /// `method` says which; earlier files hold the bootstrap's for the mean too).
    pub ci: RatioInterval,
    /// Benchmarks in the summary.
    pub benchmarks: usize,
    /// Whether the interval was widened to the range the members' resolutions leave open (the
    /// geometric mean of their ratios' lower and upper ends): their values moved in steps too
    /// coarse for the bootstrap's interval. Absent (false) in files written before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub at_resolution: bool,
}

/// Warm-up and steady-state diagnosis of one benchmark (docs/methodology.md, "Steady state and the
/// random initial state").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateRecord {
    /// Label of each execution (Barrett et al. 2017).
    pub classes: Vec<RunClass>,
    /// The label of the executions together.
    pub consistency: Consistency,
    /// Iterations before every execution is initialised (no start-up overhead left).
    pub initialised_warmup: Option<usize>,
    /// Iterations before the executions' iterations are also independent.
    pub independent_warmup: Option<usize>,
    /// No independent state was found: one iteration per execution is used.
    pub never_independent: bool,
    /// DaCapo 9.12's heuristic warm-up, for comparison.
    pub dacapo: Option<usize>,
    /// Georges et al. 2007's heuristic warm-up, for comparison.
    pub georges: Option<usize>,
    /// What was applied to the samples (Kalibera & Jones' rule).
    pub applied: Recommendation,
}

/// When, how and from what a result was made.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Provenance {
    /// When the run started (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<jiff::Timestamp>,
    /// When the run ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<jiff::Timestamp>,
    /// The machine's load average over the last minute (`/proc/loadavg`) when the run started,
    /// where the system reports one: a run on a busy machine is told from one on a quiet one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_before: Option<f64>,
    /// The same when the run ended (the minute's average lags a load that began just before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_after: Option<f64>,
    /// How many CPUs other processes kept busy on average during the run (0.5: half a CPU):
    /// the machine's busy CPU time (`/proc/stat`) less rigor's and its commands' own, over the
    /// run's wall time. Measured over the run, where the load average lags by a minute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub others_cpus: Option<f64>,
    /// The command line that made it, program name first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command_line: Vec<String>,
    /// The version or commit label the user gave (`--label`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The git commit checked out in the working directory, when it is a repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitState>,
    /// The format of the file the result was read from, when another tool measured it
    /// (`hyperfine`, `long CSV`, …): rigor made no random choice in measuring it, so the result's
    /// seed only seeds rigor's resampling of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_from: Option<String>,
    /// The versions `rigor track run` measured together in this run, in the order of their
    /// benchmarks (each version's benchmarks in turn, named `NAME @ REV`); empty for a run of
    /// one version. `rigor track add` stores each version of such a file as its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<String>,
}

/// A git working directory's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GitState {
    /// The commit id of `HEAD`.
    pub commit: String,
    /// Whether tracked files had uncommitted changes.
    pub dirty: bool,
}

/// Warm-up iterations set aside in every execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Discard {
    /// This many leading iterations.
    Count(usize),
    /// Detected from the data (Kalibera & Jones 2013).
    Auto,
}

impl Default for Discard {
    fn default() -> Self {
        Self::Count(0)
    }
}

impl Discard {
    /// Iterations marked as warm-up while measuring (0 for `Auto`, which decides afterwards).
    pub fn fixed(self) -> usize {
        match self {
            Self::Count(n) => n,
            Self::Auto => 0,
        }
    }
}

/// What decides a comparison's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum VerdictMethod {
    /// The ratio interval (Fieller for the mean, Hodges–Lehmann for the executions' minima,
    /// bootstrap otherwise) against the threshold.
    #[cfg_attr(
        feature = "clap",
        value(
            help = "Ratio interval (Fieller for the mean, Hodges–Lehmann for minima, bootstrap otherwise) against the threshold"
        )
    )]
    #[default]
    Ratio,
    /// The two confidence intervals do not overlap (Kalibera & Tůma 2006).
    #[cfg_attr(
        feature = "clap",
        value(help = "Non-overlapping confidence intervals (Kalibera & Tůma 2006)")
    )]
    Overlap,
}

/// How the number of units was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ModeRecord {
    /// Fixed counts.
    Fixed,
    /// `rigor run`'s default length: `target` executions, fewer (never below `first`) when
    /// they would take more than `budget` per command.
    DefaultLength {
        /// The fewest executions.
        first: usize,
        /// The executions when the budget allows.
        target: usize,
        /// Measured time per command.
        budget: Seconds,
    },
    /// A plan file's counts, with its top-level count from a precision when one was given.
    Planned {
        /// Target relative half-width.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        precision: Option<Fraction>,
    },
    /// Adaptive: a kept pilot, then units until the target or the budget.
    Adaptive {
        /// Target relative half-width.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        precision: Option<Fraction>,
        /// Measured-time budget.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        budget: Option<Seconds>,
        /// Most top-level units.
        max_units: usize,
    },
    /// Rounds until each comparison with the reference is decided (`--until-decided`).
    UntilDecided {
        /// Measured-time budget.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        budget: Option<Seconds>,
        /// Most rounds.
        max_rounds: usize,
        /// Rounds before the first look.
        min_rounds: usize,
    },
}

/// The settings of the run that wrote a result, as resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSettingsRecord {
    /// How the counts were chosen.
    pub mode: ModeRecord,
    /// Measured executions per benchmark (per build with builds), at the start.
    pub executions: usize,
    /// Warm-up executions.
    pub warmup_executions: usize,
    /// Warm-up iterations.
    pub discard: Discard,
    /// Per-execution time limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<Seconds>,
    /// Commands ran through `sh -c`.
    pub shell: bool,
    /// The simulator instead of processes.
    pub simulate: bool,
    /// Failures did not stop a benchmark.
    pub ignore_failure: bool,
    /// With `ignore_failure`, the only exit codes measured (`-i=1,2`); empty: every non-zero
    /// one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored_exit_codes: Vec<i32>,
    /// Quantile of the mean's interval.
    pub quantile: Quantile,
    /// The build command, when builds are a level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// Builds per benchmark, at the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builds: Option<usize>,
    /// Environment padding.
    pub randomize_env: bool,
    /// Iterations asked of the program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<usize>,
    /// Practical threshold of comparisons.
    pub threshold: Fraction,
    /// What decided comparisons.
    pub method: VerdictMethod,
    /// The statistic compared.
    pub estimator: Estimator,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// `--reference` as given (a name, a position or a command), so that `rigor analyze`
    /// compares with the same benchmark; `None`: the default reference (files written before it
    /// was kept have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Whether the run compared its benchmarks with each other: `rigor bench` measures
    /// different functions and compares them only with `--reference`, so `rigor analyze` of its
    /// result does not either (files written before it was kept: `true`).
    #[serde(
        default = "compared_within",
        skip_serializing_if = "is_compared_within"
    )]
    pub compared_within: bool,
}

/// The default of [`RunSettingsRecord::compared_within`].
fn compared_within() -> bool {
    true
}

/// Whether `compared_within` is its default, left out of the file.
#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_compared_within(v: &bool) -> bool {
    *v
}

impl BenchmarkRecord {
    /// Its measured executions (warm-ups left out), and the exit status of each of them that
    /// exited non-zero and was measured all the same (`-i`), in order.
    pub fn non_zero_exits(&self) -> (usize, Vec<i32>) {
        let measured = self.executions.iter().filter(|e| !e.warmup);
        (
            measured.clone().count(),
            measured.filter_map(|e| e.exit_code).collect(),
        )
    }

    /// A benchmark with no data yet.
    pub fn new(name: impl Into<String>, command: impl Into<String>, layout: Layout) -> Self {
        Self {
            name: name.into(),
            command: command.into(),
            unit: TimeUnit::S,
            layout,
            level_names: None,
            analysis: None,
            samples: Vec::new(),
            executions: Vec::new(),
            builds: Vec::new(),
            steady_state: None,
            failures: Vec::new(),
            parameters: BTreeMap::new(),
            version: None,
            artifact: None,
            family: None,
            shell_startup: None,
            net_of: None,
            metric: None,
            throughput: None,
        }
    }

    /// The names of the levels, top → bottom: the given names, else rigor's.
    pub fn level_names(&self) -> Vec<String> {
        match &self.level_names {
            Some(names) if names.len() == self.layout.depth() => names.clone(),
            _ => self
                .layout
                .levels()
                .iter()
                .map(|l| l.name().to_string())
                .collect(),
        }
    }

    /// The kinds of the levels, top → bottom.
    pub fn levels(&self) -> Vec<LevelKind> {
        self.layout.levels()
    }

    /// The step its values move in, in seconds: the coarsest resolution its measured (not
    /// warm-up) executions reported; `None` when none did. No interval of its estimates should
    /// be narrower than ± half of it.
    pub fn resolution(&self) -> Option<Resolution> {
        Resolution::coarsest(
            self.executions
                .iter()
                .filter(|e| !e.warmup)
                .filter_map(|e| e.resolution),
        )
    }

    /// The hierarchy of its non-warm-up samples (each placed by [`Layout::unit_path`]), which
    /// every analysis of the benchmark starts from.
    pub fn hierarchy(&self) -> Result<rigor_stats::Hierarchy, rigor_stats::StatsError> {
        let mut builder = rigor_stats::HierarchyBuilder::new(self.level_names());
        for s in self.samples.iter().filter(|s| !s.warmup) {
            builder.push(&self.layout.unit_path(s), s.value);
        }
        builder.build()
    }

    /// Keys of the top-level units in measurement order (builds, or the rounds of executions),
    /// warm-up excluded. Two benchmarks with equal keys ran in the same rounds and can be paired.
    pub fn top_keys(&self) -> Vec<usize> {
        // A set beside the list: a flat benchmark has a key per sample, and looking each up in
        // the list took quadratic time (minutes for 400,000 executions).
        let mut keys = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for s in self.samples.iter().filter(|s| !s.warmup) {
            let k = self.layout.top_key(s);
            if keys.last() != Some(&k) && seen.insert(k) {
                keys.push(k);
            }
        }
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_names_its_stage_unless_it_is_the_command() {
        let old = r#"{"round": 0, "execution": 2, "exit_code": 1, "signal": null,
                      "timed_out": false, "stderr_tail": "", "reason": "the command exited"}"#;
        let f: FailureRecord = serde_json::from_str(old).unwrap();
        assert_eq!(
            f.stage,
            FailureStage::Command,
            "files before the stage was written"
        );
        assert!(!serde_json::to_string(&f).unwrap().contains("stage"));
        let hook = FailureRecord {
            stage: FailureStage::Setup,
            ..f
        };
        let text = serde_json::to_string(&hook).unwrap();
        assert!(text.starts_with(r#"{"stage":"setup","#), "{text}");
        assert_eq!(serde_json::from_str::<FailureRecord>(&text).unwrap(), hook);
    }
}
