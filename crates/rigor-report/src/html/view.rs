//! The view model: everything the HTML report shows, already computed.
//!
//! The caller (the CLI) fills these structs from an analysis; the renderer only lays them out.
//! Nothing here is derived by the renderer: autocorrelations, changepoints, intervals, variance
//! shares and impact factors arrive precomputed. Every struct is `serde` serialisable so a view
//! can be saved, loaded as a test fixture, or built by another tool. Missing fields deserialise
//! to their defaults.
//!
//! Measured values (`values`, `mean`, lag points, …) are all in one display unit per benchmark,
//! named by [`BenchmarkSection::unit_label`]; the renderer never rescales them.

use serde::{Deserialize, Serialize};

/// The whole report: a header, one section per benchmark and the comparisons.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReportView {
    /// Page title and main heading.
    pub title: String,
    /// Version of rigor that produced the data, e.g. `0.1.0`.
    pub rigor_version: String,
    /// When the report was generated, already formatted for display.
    pub generated: String,
    /// Machine and environment description as (key, value) pairs, in display order.
    pub environment: Vec<(String, String)>,
    /// Seed of the run's random choices (order, bootstrap); `None` for data another tool
    /// measured (imported), where rigor made no random choice in measuring.
    pub seed: Option<u64>,
    /// Confidence level of every interval, as a fraction (0.95).
    pub confidence: f64,
    /// One section per benchmark, in display order.
    pub benchmarks: Vec<BenchmarkSection>,
    /// Pairwise comparisons, drawn together in one forest plot.
    pub comparisons: Vec<ComparisonRow>,
    /// Every benchmark on one axis (shown with two or more): means with intervals, and the
    /// distribution of execution times.
    pub overview: Vec<OverviewRow>,
    /// The unit of every value in `overview`, e.g. `ms`.
    pub overview_unit: String,
    /// What the values are when not times (`--metric`): "peak memory (resident set)"; empty
    /// for wall time.
    pub what: String,
    /// Time against a parameter: a numeric parameter of `--parameter-scan` or
    /// `--parameter-list`, or the input of a rigor-bench group's functions (one plot per group),
    /// in the overview's unit.
    pub parameters: Vec<ParameterPlot>,
    /// What the run warns of as a whole (a busy machine, a stop), in words: at the top, beside
    /// the machine (a report of a loaded run had left its most important caveat out).
    pub warnings: Vec<String>,
}

/// A statistic against the values of a parameter, one line per series.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ParameterPlot {
    /// What is plotted, for the heading: a group's name; empty for a run's parameter.
    pub title: String,
    /// The parameter's name.
    pub name: String,
    /// The statistic plotted: "mean", "min", …
    pub statistic: String,
    /// The unit of its values (`ns`); empty: the overview's.
    pub unit: String,
    /// The parameter's values when they are not numbers, in order: then each point's value is
    /// its position among them (0, 1, …). Empty for a numeric parameter.
    pub categories: Vec<String>,
    /// The lines: a label and its points (parameter value, statistic, its interval's lower and
    /// upper end), by increasing value.
    pub series: Vec<(String, Vec<[f64; 4]>)>,
}

/// One benchmark in the overview, in the overview's unit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OverviewRow {
    /// Display name.
    pub name: String,
    /// Mean.
    pub mean: f64,
    /// Lower end of the mean's confidence interval.
    pub ci_lower: f64,
    /// Upper end of the mean's confidence interval.
    pub ci_upper: f64,
    /// The mean of each execution (its time, when executions are the only level).
    pub values: Vec<f64>,
    /// First quartile, median and third quartile of `values`.
    pub quartiles: Option<[f64; 3]>,
}

/// A benchmark's statistic other than the mean with its bootstrap interval, in the section's
/// unit (computed by the caller).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ComparedStatistic {
    /// Its name as `--estimator` spells it: "min", "median", "trimmed-mean:0.1".
    pub name: String,
    /// Its value on all the data.
    pub estimate: f64,
    /// Its interval, when there were enough top-level units for one.
    pub interval: Option<(f64, f64)>,
    /// What the bootstrap resampled, plural: "executions", "builds".
    pub units: String,
}

/// Everything shown for one benchmark.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchmarkSection {
    /// Display name.
    pub name: String,
    /// The measured command line, as the user wrote it.
    pub command: String,
    /// Unit of every measured value in this section, e.g. `ms`.
    pub unit_label: String,
    /// The statistic comparisons use when it is not the mean (`--estimator`), shown first.
    pub compared: Option<ComparedStatistic>,
    /// Point estimate of the mean.
    pub mean: f64,
    /// Lower end of the confidence interval of the mean.
    pub ci_lower: f64,
    /// Upper end of the confidence interval of the mean.
    pub ci_upper: f64,
    /// Level names, outermost first, e.g. `["execution", "iteration"]`.
    pub levels: Vec<String>,
    /// Number of units at each level, matching `levels` (total count, not per parent).
    pub counts: Vec<usize>,
    /// The raw measurements of each execution, in run order.
    pub executions: Vec<ExecutionSeries>,
    /// Where each build starts in run order, when builds are a level and there are several
    /// (empty otherwise); the run-sequence and execution-means plots mark the boundaries.
    pub builds: Vec<BuildMark>,
    /// Iterations discarded at the start of every execution as warm-up, if any.
    pub warmup_cut: Option<usize>,
    /// Lag plots, normally for lags 1 to 4.
    pub lag: Vec<LagPanel>,
    /// Autocorrelation of the steady-state iterations, with a shuffled reference.
    pub acf: Option<AcfPanel>,
    /// Steady-state values pooled over executions, for the histogram.
    pub steady_values: Vec<f64>,
    /// Mean of each execution, in run order, drawn against the confidence interval.
    pub execution_means: Vec<f64>,
    /// Variance components, one per level, outermost first.
    pub components: Vec<ComponentBar>,
    /// Impact factors of the execution level, if computed.
    pub impact: Option<ImpactView>,
    /// What the analysis concluded about the data, in sentences.
    pub diagnosis: Vec<String>,
    /// Warnings, each telling the user what to do.
    pub warnings: Vec<String>,
}

/// Where one build's measurements start in the run-sequence and execution-means plots.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BuildMark {
    /// The label drawn at its start, e.g. `build 2`.
    pub label: String,
    /// Index of its first value in the run sequence (the executions' values end to end).
    pub first_value: usize,
    /// Index of its first execution in `executions` and `execution_means`.
    pub first_execution: usize,
}

/// The iterations of one execution.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ExecutionSeries {
    /// Measured value of each iteration, in order.
    pub values: Vec<f64>,
    /// Indices into `values` where a new segment starts (detected changepoints).
    pub changepoints: Vec<usize>,
    /// Index into `values` where the steady state starts, if it was reached.
    pub steady_start: Option<usize>,
    /// Indices into `values` of iterations flagged as outliers.
    pub outliers: Vec<usize>,
    /// Classification of the execution's shape, e.g. `warm-up` or `no steady state`.
    pub class: String,
}

/// A lag plot: each point pairs a value with the one `lag` iterations later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LagPanel {
    /// The lag, in iterations.
    pub lag: usize,
    /// (`x[t]`, `x[t + lag]`) pairs of the measured order.
    pub points: Vec<(f64, f64)>,
    /// The same pairs after shuffling the order, as a reference without serial dependence.
    pub shuffled_points: Vec<(f64, f64)>,
}

/// Autocorrelation function, with the same for shuffled data.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AcfPanel {
    /// Autocorrelation at lags 1, 2, …: `values[0]` is lag 1 (lag 0 is always 1 and omitted).
    pub values: Vec<f64>,
    /// Autocorrelation of the shuffled data, same lags.
    pub shuffled: Vec<f64>,
    /// Half-width of the band within which autocorrelations are consistent with none.
    pub bound: f64,
}

/// One level's share of the total variance.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ComponentBar {
    /// Level name, e.g. `execution`.
    pub level: String,
    /// Share of the total variance, in percent.
    pub share_percent: f64,
    /// Standard deviation of this component as a percentage of the mean.
    pub sd_percent_of_mean: f64,
}

/// Impact factors of the execution level (Kalibera & Jones): how much more an execution varies
/// than its iterations suggest.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ImpactView {
    /// Impact factor of the raw executions.
    pub original: f64,
    /// Impact factor after subtracting each execution's mean (the additive-model check).
    pub centred: f64,
    /// Impact factor after resampling clusters of iterations, if computed.
    pub clustered: Option<f64>,
}

/// One comparison: the ratio candidate / baseline of an estimator, with its interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ComparisonRow {
    /// Name of the baseline benchmark.
    pub baseline: String,
    /// Name of the candidate benchmark.
    pub candidate: String,
    /// What is compared, e.g. `mean`.
    pub estimator: String,
    /// Point estimate of candidate / baseline.
    pub ratio: f64,
    /// Lower end of the ratio's interval; `None` when unbounded (Fieller's case).
    pub lower: Option<f64>,
    /// Upper end of the ratio's interval; `None` when unbounded.
    pub upper: Option<f64>,
    /// The verdict in a word or two, e.g. `slower`, `equivalent`, `inconclusive`.
    pub verdict: String,
    /// The effect in words, e.g. `4.1% slower (1.2% to 7.0%)`.
    pub effect_text: String,
    /// Relative threshold δ: ratios within [1 − δ, 1 + δ] count as no change.
    pub threshold: f64,
}
