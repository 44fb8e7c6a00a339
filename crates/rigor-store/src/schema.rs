//! The result file schema, version 1.
//!
//! Raw observations (`samples`, `executions`, `failures`) are stored apart from derived estimates
//! (`mean`, `ci`, `variance_components`, ...), so every report can be rebuilt from the raw data
//! (`rigor analyze`). While a run is in progress the file also carries a `log` of records appended
//! as each execution completes; a finished file has none.

use serde::{Deserialize, Serialize};

use crate::environment::Environment;

/// The schema version this build writes and the newest it reads.
pub const SCHEMA_VERSION: u32 = 1;

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
    /// Seed of every random choice (order within rounds, bootstrap).
    pub seed: u64,
    /// Confidence level of the intervals.
    pub confidence: f64,
    /// The machine.
    #[serde(default)]
    pub environment: Environment,
    /// Settings of the run, as resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<serde_json::Value>,
    /// One entry per benchmark.
    pub benchmarks: Vec<BenchmarkRecord>,
    /// Comparisons between benchmarks (each against the reference), or between two results.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comparisons: Vec<ComparisonRecord>,
    /// Summary over a suite of comparisons (`rigor compare`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<SuiteRecord>,
    /// Records of an unfinished run, in the order they were measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub log: Vec<LogEntry>,
}

/// One benchmark: its identity, raw data and (when analysed) estimates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkRecord {
    /// Display name.
    pub name: String,
    /// The command as given.
    pub command: String,
    /// Unit of every value ("s").
    pub unit: String,
    /// Level names, top → bottom.
    pub levels: Vec<String>,
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
    /// How the components were estimated ("balanced", "henderson1", ...).
    pub variance_method: String,
    /// Descriptive statistics of the analysed values.
    pub summary: SummaryRecord,
    /// Warnings in plain words.
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// A confidence interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntervalRecord {
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// Confidence level.
    pub level: f64,
    /// How it was computed (e.g. "t-top-level-means").
    pub method: String,
}

/// One level's variance component.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComponentRecord {
    /// Level name.
    pub level: String,
    /// Biased per-level estimator S².
    pub s2: f64,
    /// Unbiased estimator T² (raw; negative means no detectable variance at this level).
    pub t2: f64,
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// Wall time, seconds.
    pub wall: f64,
    /// User CPU, seconds.
    pub user: f64,
    /// System CPU, seconds.
    pub sys: f64,
    /// Peak RSS, bytes.
    pub max_rss: u64,
    /// Bytes of `--randomize-env` padding in its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_pad: Option<usize>,
}

/// One build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuildRecord {
    /// Build index.
    pub build: usize,
    /// Wall time of the build, seconds (the cost of the build level).
    pub wall: f64,
    /// The `{build_seed}` it was given.
    pub seed: u32,
    /// Its directory.
    pub dir: String,
}

/// A failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureRecord {
    /// Round.
    pub round: usize,
    /// Execution index.
    pub execution: usize,
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

impl SampleRecord {
    /// Keys of the units above this measurement, top down, for a benchmark with these `levels`:
    /// `[build, execution]` above iterations, `[build]` above executions when the lowest level is
    /// the execution itself, and fewer for fewer levels.
    pub fn unit_path(&self, levels: &[String]) -> Vec<usize> {
        let chain = if levels.last().is_some_and(|l| l == "execution") {
            vec![self.build.unwrap_or(0)]
        } else {
            vec![self.build.unwrap_or(0), self.execution]
        };
        let above = levels.len().saturating_sub(1);
        chain[chain.len().saturating_sub(above)..].to_vec()
    }

    /// Sets the unit keys from a path as [`unit_path`](Self::unit_path) would return it.
    pub fn set_unit_path(&mut self, levels: &[String], path: &[usize]) {
        let lowest_is_execution = levels.last().is_some_and(|l| l == "execution");
        match (path, lowest_is_execution) {
            ([b], true) => self.build = Some(*b),
            ([e], false) => self.execution = *e,
            ([b, e], _) => {
                self.build = Some(*b);
                self.execution = *e;
            }
            _ => {}
        }
    }
}

/// A comparison of a candidate's time with a baseline's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonRecord {
    /// The baseline (denominator).
    pub baseline: String,
    /// The candidate (numerator).
    pub candidate: String,
    /// The statistic compared: "mean", "median", "min".
    pub estimator: String,
    /// Point estimate of candidate/baseline.
    pub ratio: f64,
    /// The interval that decided the verdict; `null` when Fieller's set is unbounded.
    pub ci: Option<IntervalRecord>,
    /// The hierarchical bootstrap interval of the ratio.
    pub bootstrap_ci: Option<BoundsRecord>,
    /// Fieller's g (bounded iff g < 1), for the mean.
    pub g: Option<f64>,
    /// "regression", "improvement", "equivalent", "inconclusive" or "unbounded".
    pub verdict: String,
    /// Practical threshold δ (0.01 = 1%).
    pub threshold: f64,
    /// The effect size in words.
    pub effect: String,
    /// Whether the rounds were paired.
    pub paired: bool,
    /// Two-sided p-value of equal means.
    pub p_value: f64,
    /// Benjamini–Hochberg adjusted p-value across the suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q_value: Option<f64>,
    /// For inconclusive verdicts: roughly how many more top-level units would decide it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more_units: Option<usize>,
    /// The non-overlap rule (Kalibera & Tůma 2006: a change when the two confidence intervals do
    /// not overlap): its verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlap_verdict: Option<String>,
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
    /// Its bootstrap interval.
    pub ci: IntervalRecord,
    /// Benchmarks in the summary.
    pub benchmarks: usize,
}

/// Warm-up and steady-state diagnosis of one benchmark (METHODS §7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateRecord {
    /// Label of each execution: flat, warmup, slowdown, no steady state.
    pub classes: Vec<String>,
    /// Across executions: consistent …, good inconsistent, bad inconsistent.
    pub consistency: String,
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
    /// What was applied, in words.
    pub applied: String,
}
