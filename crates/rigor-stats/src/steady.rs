//! Warm-up, steady state and independence of in-process iterations (docs/methodology.md, "Steady
//! state and the random initial state").
//!
//! Kalibera & Jones 2013 §6 call a run *initialised* when no obvious start-up overhead
//! remains and *independent* when its iterations are i.i.d.; only independent iterations may be
//! repeated within a run, and a benchmark that never becomes independent must contribute the same
//! single iteration (the first initialised one) from each run. They found both points by eye; this
//! module finds them automatically:
//!
//! 1. each run is classified with Barrett et al. 2017's scheme ([`classify_run`]): outliers
//!    marked ([`crate::changepoint::outlier_mask`]) and left out, changepoints by PELT
//!    ([`crate::changepoint::pelt`]), segments compared with the final one
//!    ([`classify_segments`]);
//! 2. the runs' labels are combined ([`consistency`]);
//! 3. [`diagnose`] derives the initialised warm-up (the latest steady start), searches the
//!    independent warm-up with [`crate::autocorr::independence`], and reports the DaCapo 9.12
//!    ([`dacapo_warmup`]) and Georges et al. 2007 ([`georges_warmup`]) heuristics beside them.
//!
//! Values are times: larger is slower.

use std::fmt;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::autocorr::{Independence, IndependenceConfig, independence};
use crate::changepoint::{OutlierConfig, PeltConfig, Segment, outlier_mask, pelt, pelt_blocked};
use crate::descriptive::{coefficient_of_variation, mean};
use crate::error::{Result, StatsError, invalid};
use crate::hierarchy::Hierarchy;

/// Default δ as a fraction of the final segment's mean (1 %, scale-free; docs/methodology.md,
/// "Steady state and the random initial state").
pub const DEFAULT_DELTA: f64 = 0.01;

/// Default fraction of the run at its end in which a non-equivalent segment may not end.
pub const DEFAULT_TAIL: f64 = 0.25;

/// Default longest (outlier-free) run segmented by exact PELT; longer runs use
/// [`pelt_blocked`] with blocks of ⌈n / limit⌉ values (PELT is O(n²) on a run without changes:
/// about 0.1–0.2 s at 5,000 values).
pub const DEFAULT_EXACT_LIMIT: usize = 5_000;

/// Barrett et al. 2017's label of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunClass {
    /// Every segment is equivalent to the final one: no warm-up needed.
    Flat,
    /// Earlier, slower segments precede the steady final segment.
    Warmup,
    /// An earlier segment was *faster* than the steady final segment.
    Slowdown,
    /// A segment different from the final one ends in the last part of the run: the run has not
    /// settled.
    NoSteadyState,
}

impl fmt::Display for RunClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Flat => "flat",
            Self::Warmup => "warmup",
            Self::Slowdown => "slowdown",
            Self::NoSteadyState => "no steady state",
        })
    }
}

/// The half-width used around a segment's mean when comparing segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Spread {
    /// The segment's variance, as Barrett et al. (2017) write it: `mean ± var`. Note that
    /// this mixes units (time vs time²), so the test depends on the unit of the data: in seconds
    /// a variance is tiny and δ decides; in nanoseconds a variance is huge and everything
    /// overlaps. Kept as the default because it is the specification.
    #[default]
    Variance,
    /// The segment's standard deviation, `mean ± sd`: dimensionally consistent, unit-free.
    StdDev,
}

impl Spread {
    fn of(self, s: &Segment) -> f64 {
        match self {
            Self::Variance => s.var,
            Self::StdDev => s.var.sqrt(),
        }
    }
}

/// Parameters of [`classify_run`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClassifyConfig {
    /// The outlier filter (window 200, median ± 3·(p90 − p10)).
    pub outliers: OutlierConfig,
    /// PELT (penalty 15·ln n, minimum segment 2, variance floor 1e−11).
    pub pelt: PeltConfig,
    /// δ as a fraction of the final segment's |mean| (default 0.01).
    pub delta: f64,
    /// Final fraction of the run in which a non-equivalent segment must not end (default 0.25).
    pub tail: f64,
    /// Half-width of a segment's interval (default: its variance, as Barrett et al. (2017) state
    /// it).
    pub spread: Spread,
    /// Longest outlier-free run segmented by exact PELT (default 5,000).
    pub exact_limit: usize,
}

impl Default for ClassifyConfig {
    fn default() -> Self {
        Self {
            outliers: OutlierConfig::default(),
            pelt: PeltConfig::default(),
            delta: DEFAULT_DELTA,
            tail: DEFAULT_TAIL,
            spread: Spread::default(),
            exact_limit: DEFAULT_EXACT_LIMIT,
        }
    }
}

impl ClassifyConfig {
    fn validate(&self) -> Result<()> {
        if !(self.delta >= 0.0 && self.delta.is_finite()) {
            return Err(invalid(
                "delta",
                self.delta,
                "must be finite and non-negative",
            ));
        }
        if !(0.0..1.0).contains(&self.tail) {
            return Err(invalid("tail fraction", self.tail, "must lie in [0, 1)"));
        }
        if self.exact_limit == 0 {
            return Err(invalid("exact PELT limit", 0.0, "must be at least 1"));
        }
        Ok(())
    }
}

/// The steady-state analysis of one run. All indices are positions in the run as given
/// (outliers included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSteadiness {
    /// Number of values in the run.
    pub n: usize,
    /// The label.
    pub class: RunClass,
    /// Changepoints: the first index of each segment after the first.
    pub changepoints: Vec<usize>,
    /// The segments `[start, end)`; mean and (maximum-likelihood) variance of their non-outliers.
    pub segments: Vec<Segment>,
    /// First index of the steady part: the start of the earliest segment in the unbroken run of
    /// segments equivalent to the final one that ends the run (0 for a flat run). `None` when the
    /// run has no steady state.
    pub steady_start: Option<usize>,
    /// Indices of the values marked as outliers (left out of the segmentation).
    pub outliers: Vec<usize>,
}

/// Classifies segments (in time order, covering a run of `n` values) by Barrett et al. 2017's
/// scheme as Barrett et al. (2017) state it, and returns the label and the steady start.
///
/// With the final segment f, δ = `delta`·|mean_f| and w(s) the [`Spread`] of segment s, a
/// segment s is *equivalent* to f when the intervals `mean_s ± w(s)` and
/// `mean_f ± max(w(f), δ)` overlap. Scanning from the penultimate segment backwards:
/// equivalent segments are skipped; the first non-equivalent one that ends in the last `tail`
/// fraction of the run (end > (1 − tail)·n) gives [`RunClass::NoSteadyState`]; one that is faster
/// (lower mean) than f gives [`RunClass::Slowdown`] at once; one that is slower marks
/// [`RunClass::Warmup`] and the scan continues (so an earlier faster segment still makes it a
/// slowdown). If every segment is equivalent the run is [`RunClass::Flat`].
pub fn classify_segments(
    segs: &[Segment],
    n: usize,
    cfg: &ClassifyConfig,
) -> (RunClass, Option<usize>) {
    let Some(f) = segs.last() else {
        return (RunClass::Flat, Some(0));
    };
    let half_f = cfg.spread.of(f).max(cfg.delta * f.mean.abs());
    let tail_start = (1.0 - cfg.tail) * n as f64;
    let (mut class, mut steady, mut trailing) = (RunClass::Flat, f.start, true);
    for s in segs[..segs.len() - 1].iter().rev() {
        if (s.mean - f.mean).abs() <= cfg.spread.of(s) + half_f {
            if trailing {
                steady = s.start;
            }
            continue;
        }
        trailing = false;
        if s.end as f64 > tail_start {
            return (RunClass::NoSteadyState, None);
        }
        if s.mean < f.mean {
            return (RunClass::Slowdown, Some(steady));
        }
        class = RunClass::Warmup;
    }
    (class, Some(steady))
}

/// Classifies one run: marks outliers, segments the rest by PELT (exact up to `exact_limit`
/// values, [`pelt_blocked`] beyond; the penalty's n is the number of values left, as in
/// `warmup_stats`), maps the segments back to the run's own indices and applies
/// [`classify_segments`].
///
/// Errors: an empty run, a non-finite value, or an invalid parameter.
pub fn classify_run(series: &[f64], cfg: &ClassifyConfig) -> Result<RunSteadiness> {
    cfg.validate()?;
    if series.is_empty() {
        return Err(StatsError::TooFew {
            what: "a steady-state classification",
            needed: 1,
            got: 0,
        });
    }
    let mask = outlier_mask(series, &cfg.outliers)?;
    let mut kept: Vec<usize> = (0..series.len()).filter(|&i| !mask[i]).collect();
    if kept.is_empty() {
        kept = (0..series.len()).collect();
    }
    let clean: Vec<f64> = kept.iter().map(|&i| series[i]).collect();
    let cps = if clean.len() <= cfg.exact_limit {
        pelt(&clean, &cfg.pelt)?
    } else {
        pelt_blocked(&clean, &cfg.pelt, clean.len().div_ceil(cfg.exact_limit))?
    };
    let segments = to_original(
        &crate::changepoint::segments(&clean, &cps),
        &kept,
        series.len(),
    );
    let (class, steady_start) = classify_segments(&segments, series.len(), cfg);
    Ok(RunSteadiness {
        n: series.len(),
        class,
        changepoints: segments.iter().skip(1).map(|s| s.start).collect(),
        segments,
        steady_start,
        outliers: (0..series.len()).filter(|&i| mask[i]).collect(),
    })
}

/// Where a run's start-up overhead ends, for the initialised warm-up across runs (Kalibera &
/// Jones 2013 §6: "no obvious start-up overhead remains"): its steady start, except in a run
/// that reached the final level (or ran faster) early and was slower than it only for a while
/// later.
///
/// Barrett et al.'s steady start is the start of the unbroken stretch of segments equivalent
/// to the final one that ends the run, so a slow excursion in the middle (another process, a
/// collection) makes a run "warmup" with its steady start after it, and a run a little faster
/// for a while before its final level is "slowdown" with its steady start at that level; the
/// initialised warm-up, the largest over the runs, then discarded the same share of every run
/// (62–74% of a C program's iterations, and 127 of 200 for one whose warm-up is 8). Start-up
/// overhead is slowness at the start: here it ends at the first segment not slower than the
/// final one (equivalent to it, or faster) from which, up to the steady start, at least as many
/// iterations are not slower as are slower by half the start-up's excess or more. A warm-up
/// that dips to the final level for a few iterations and climbs back most of the way (a
/// compiler's tiers) ends where it settles, as before; a run that settles and then wanders a
/// few per cent with the machine's load ends where it first settled.
fn startup_end(r: &RunSteadiness, cfg: &ClassifyConfig) -> Option<usize> {
    let steady = r.steady_start?;
    let f = r.segments.last()?;
    let half_f = cfg.spread.of(f).max(cfg.delta * f.mean.abs());
    let slower = |s: &Segment| s.mean - f.mean > cfg.spread.of(s) + half_f;
    let excess = |s: &Segment| s.mean - f.mean;
    let before: Vec<&Segment> = r.segments.iter().filter(|s| s.start < steady).collect();
    for (i, s) in before.iter().enumerate() {
        if slower(s) {
            continue;
        }
        // Slower later only counts against the start-up's end when it is slow as start-up was:
        // by at least half the largest excess before it (a machine's load moving a run by a
        // few per cent is not its warm-up coming back).
        let overhead = before[..i].iter().map(|s| excess(s)).fold(0.0, f64::max);
        let away_from = |s: &Segment| slower(s) && excess(s) >= overhead / 2.0;
        let (settled, away) = before[i..].iter().fold((0, 0), |(settled, away), s| {
            let len = s.end - s.start;
            if away_from(s) {
                (settled, away + len)
            } else if !slower(s) {
                (settled + len, away)
            } else {
                (settled, away)
            }
        });
        if settled >= away {
            return Some(s.start);
        }
    }
    Some(steady)
}

/// [`classify_run`] on the run's values relative to their median (the segments' means and
/// variances then scaled back): the classification as Barrett et al. (2017) apply it to runs of
/// iterations in seconds of about a second, whatever the unit and size of the times. Two of its
/// parts are not scale-free — PELT's variance floor ([`crate::changepoint::PeltConfig::var_floor`],
/// 10⁻¹¹ in the data's squared unit) and [`Spread::Variance`] — so a run of microsecond
/// iterations in seconds had every segment's variance at the floor (a standard deviation of
/// 3 µs) and no changepoint at all: a 4× warm-up and a 2.5× drift were both called flat.
fn classify_relative(series: &[f64], cfg: &ClassifyConfig) -> Result<RunSteadiness> {
    let scale = crate::descriptive::median(&series.iter().map(|x| x.abs()).collect::<Vec<_>>());
    if !(scale.is_finite() && scale > 0.0) {
        return classify_run(series, cfg);
    }
    let relative: Vec<f64> = series.iter().map(|x| x / scale).collect();
    let mut r = classify_run(&relative, cfg)?;
    for s in &mut r.segments {
        s.mean *= scale;
        s.var *= scale * scale;
    }
    Ok(r)
}

/// Maps segments of the outlier-free series back to the run's indices: a segment starts at its
/// first kept value (the first at 0) and ends where the next one starts (the last at n).
fn to_original(segs: &[Segment], kept: &[usize], n: usize) -> Vec<Segment> {
    let starts: Vec<usize> = segs
        .iter()
        .enumerate()
        .map(|(i, s)| if i == 0 { 0 } else { kept[s.start] })
        .collect();
    segs.iter()
        .enumerate()
        .map(|(i, s)| Segment {
            start: starts[i],
            end: starts.get(i + 1).copied().unwrap_or(n),
            ..*s
        })
        .collect()
}

/// The label of a set of runs (Barrett et al. 2017).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Consistency {
    /// Every run has this label.
    Consistent(RunClass),
    /// Runs disagree, but every run is flat or warms up: all reach a steady state.
    GoodInconsistent,
    /// Runs disagree and some slow down or never settle.
    BadInconsistent,
}

/// Combines run labels; `None` for no runs.
pub fn consistency(classes: &[RunClass]) -> Option<Consistency> {
    let first = *classes.first()?;
    Some(if classes.iter().all(|&c| c == first) {
        Consistency::Consistent(first)
    } else if classes
        .iter()
        .all(|c| matches!(c, RunClass::Flat | RunClass::Warmup))
    {
        Consistency::GoodInconsistent
    } else {
        Consistency::BadInconsistent
    })
}

/// Parameters of the DaCapo 9.12 convergence heuristic.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DacapoConfig {
    /// Iterations in the window (default 3).
    pub window: usize,
    /// Largest coefficient of variation, population SD (default 0.03).
    pub threshold: f64,
    /// Most warm-up iterations before giving up (default 20).
    pub max_iterations: usize,
}

impl Default for DacapoConfig {
    fn default() -> Self {
        Self {
            window: 3,
            threshold: 0.03,
            max_iterations: 20,
        }
    }
}

/// Parameters of Georges et al. 2007's steady-state heuristic.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GeorgesConfig {
    /// Iterations in the window k (default 10).
    pub window: usize,
    /// Largest coefficient of variation, sample SD (default 0.02).
    pub threshold: f64,
}

impl Default for GeorgesConfig {
    fn default() -> Self {
        Self {
            window: 10,
            threshold: 0.02,
        }
    }
}

/// Coefficient of variation with the *population* standard deviation (divisor n), as DaCapo
/// 9.12's harness computes it: `sqrt(Σ(x − x̄)²/n) / x̄`. NaN for an empty slice.
pub fn population_cov(values: &[f64]) -> f64 {
    let m = mean(values);
    let ss: f64 = values.iter().map(|v| (v - m) * (v - m)).sum();
    (ss / values.len() as f64).sqrt() / m
}

/// The warm-up DaCapo 9.12 (`-converge`) would choose: the number i of iterations run before the
/// timed one, the first i ≥ window with [`population_cov`] of iterations `i − window .. i` at most
/// the threshold, i ≤ `max_iterations`, and an iteration i left to time. `None` when it does not
/// converge within the run (DaCapo would time the next iteration anyway, with a warning).
pub fn dacapo_warmup(series: &[f64], cfg: &DacapoConfig) -> Option<usize> {
    if cfg.window == 0 {
        return None;
    }
    let last = cfg.max_iterations.min(series.len().saturating_sub(1));
    (cfg.window..=last).find(|&i| population_cov(&series[i - cfg.window..i]) <= cfg.threshold)
}

/// The warm-up Georges et al. 2007 would choose: the start i of the first window of k iterations
/// `i .. i + k` whose coefficient of variation (sample SD) is at most the threshold; those k
/// iterations are then the measurement. `None` when no window qualifies.
pub fn georges_warmup(series: &[f64], cfg: &GeorgesConfig) -> Option<usize> {
    let k = cfg.window.max(2);
    if series.len() < k {
        return None;
    }
    (0..=series.len() - k).find(|&i| coefficient_of_variation(&series[i..i + k]) <= cfg.threshold)
}

/// Parameters of [`diagnose`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SteadyConfig {
    /// Per-run classification.
    pub classify: ClassifyConfig,
    /// Independence test (lags 1..=4, α = 0.01, seed).
    pub independence: IndependenceConfig,
    /// A cut is independent when strictly more than this fraction of all runs are (default 0.5).
    pub quorum: f64,
    /// Distance between tried cuts; `None` for max(1, ⌊longest run / 100⌋).
    pub cut_step: Option<usize>,
    /// Fewest values after a cut for a run to be tested (default 50).
    pub min_tail: usize,
    /// The DaCapo baseline.
    pub dacapo: DacapoConfig,
    /// The Georges et al. baseline.
    pub georges: GeorgesConfig,
}

impl Default for SteadyConfig {
    fn default() -> Self {
        Self {
            classify: ClassifyConfig::default(),
            independence: IndependenceConfig::default(),
            quorum: 0.5,
            cut_step: None,
            min_tail: 50,
            dacapo: DacapoConfig::default(),
            georges: GeorgesConfig::default(),
        }
    }
}

/// What [`diagnose`] found for a benchmark's runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateReport {
    /// Per-run classification.
    pub runs: Vec<RunSteadiness>,
    /// The label over all runs.
    pub consistency: Consistency,
    /// Kalibera & Jones' initialised warm-up: the largest end of start-up overhead over the
    /// runs that reached a steady state (the steady start, or the start of the final level
    /// reached earlier in a run that left it only for a while); `None` when
    /// no run reached a steady state.
    pub initialised_warmup: Option<usize>,
    /// Independent warm-up: the smallest cut c = initialised + j·step (j = 0, 1, …) such that,
    /// testing each run's outlier-free values from index c on (runs with fewer than `min_tail`
    /// such values count as not independent), strictly more than `quorum` of all runs are
    /// independent by [`independence`]. `None` when no cut qualifies.
    pub independent_warmup: Option<usize>,
    /// No independent state was found: by Kalibera & Jones' rule use a single iteration per run,
    /// the first initialised one ([`SteadyStateReport::recommendation`]). False when
    /// independence could not be tested at all (see `independence_testable`).
    pub never_independent: bool,
    /// Whether some run has at least `min_tail` iterations after the initialised warm-up, so
    /// that independence can be tested at all. When none has, the iterations after the warm-up
    /// are kept: the interval from top-level means stays valid whatever the dependence between
    /// iterations, and keeping one iteration of a short run would throw most data away on no
    /// evidence.
    pub independence_testable: bool,
    /// Independence of each run's steady part (from its own steady start, outliers left out);
    /// `None` when the run has no steady state or too short a one.
    pub steady_independence: Vec<Option<Independence>>,
    /// DaCapo 9.12's warm-up: the largest over runs, `None` if some run does not converge.
    pub dacapo: Option<usize>,
    /// Georges et al.'s warm-up: the largest over runs, `None` if some run has no stable window.
    pub georges: Option<usize>,
    /// DaCapo 9.12's warm-up per run.
    pub dacapo_runs: Vec<Option<usize>>,
    /// Georges et al.'s warm-up per run.
    pub georges_runs: Vec<Option<usize>>,
}

/// How to take measurements from runs, following Kalibera & Jones 2013 §6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Recommendation {
    /// Drop the first `warmup` iterations of each run and repeat iterations from there on.
    Iterations {
        /// Iterations to discard (the independent warm-up).
        warmup: usize,
    },
    /// Drop the first `warmup` iterations (the initialised warm-up) and keep the rest: too few
    /// iterations follow it to test their independence, so the rule cannot choose between
    /// repeating iterations and one per run. The interval over run means stays valid either way.
    Untested {
        /// Iterations to discard (the initialised warm-up).
        warmup: usize,
    },
    /// Take only iteration `index` (0-based, the first initialised one) of each run.
    SingleIteration {
        /// The iteration to take.
        index: usize,
    },
    /// No run reached a steady state: no iteration can be trusted.
    Unsettled,
}

impl SteadyStateReport {
    /// Kalibera & Jones' rule: repeat iterations after the independent warm-up if there is one,
    /// else take the first initialised iteration of each run.
    pub fn recommendation(&self) -> Recommendation {
        match (self.independent_warmup, self.initialised_warmup) {
            (Some(warmup), _) => Recommendation::Iterations { warmup },
            (None, Some(warmup)) if !self.independence_testable => {
                Recommendation::Untested { warmup }
            }
            (None, Some(index)) => Recommendation::SingleIteration { index },
            (None, None) => Recommendation::Unsettled,
        }
    }
}

/// Diagnoses warm-up, steady state and independence over the runs (process executions) of one
/// benchmark, each given as its in-process iterations in time order. Runs are analysed in
/// parallel.
///
/// Errors: no runs, an empty run, a non-finite value, or an invalid parameter.
pub fn diagnose<R: AsRef<[f64]> + Sync>(
    runs: &[R],
    cfg: &SteadyConfig,
) -> Result<SteadyStateReport> {
    validate(runs.len(), cfg)?;
    let classified: Vec<RunSteadiness> = runs
        .par_iter()
        .map(|r| classify_relative(r.as_ref(), &cfg.classify))
        .collect::<Result<_>>()?;
    let classes: Vec<RunClass> = classified.iter().map(|r| r.class).collect();
    let initialised = classified
        .iter()
        .filter_map(|r| startup_end(r, &cfg.classify))
        .max();
    let tails: Vec<Vec<(usize, f64)>> = runs
        .iter()
        .zip(&classified)
        .map(|(r, c)| without_outliers(r.as_ref(), &c.outliers))
        .collect();
    let independent = initialised.and_then(|w0| independent_cut(&tails, w0, cfg));
    let testable = initialised.is_some_and(|w0| {
        tails
            .iter()
            .any(|t| t.iter().filter(|&&(i, _)| i >= w0).count() >= cfg.min_tail)
    });
    let steady_independence = tails
        .iter()
        .zip(&classified)
        .enumerate()
        .map(|(j, (t, c))| c.steady_start.and_then(|s| test_tail(t, s, j, cfg)))
        .collect();
    let dacapo_runs: Vec<Option<usize>> = runs
        .iter()
        .map(|r| dacapo_warmup(r.as_ref(), &cfg.dacapo))
        .collect();
    let georges_runs: Vec<Option<usize>> = runs
        .iter()
        .map(|r| georges_warmup(r.as_ref(), &cfg.georges))
        .collect();
    Ok(SteadyStateReport {
        consistency: consistency(&classes).unwrap_or(Consistency::BadInconsistent),
        runs: classified,
        initialised_warmup: initialised,
        independent_warmup: independent,
        never_independent: testable && independent.is_none(),
        independence_testable: testable,
        steady_independence,
        dacapo: max_if_all(&dacapo_runs),
        georges: max_if_all(&georges_runs),
        dacapo_runs,
        georges_runs,
    })
}

/// [`diagnose`] for a hierarchy whose lowest level holds the iterations: the runs are the units
/// one level above them (e.g. executions of executions × iterations, or of builds × executions ×
/// iterations, in order).
pub fn diagnose_hierarchy(h: &Hierarchy, cfg: &SteadyConfig) -> Result<SteadyStateReport> {
    if h.depth() < 2 {
        return Err(StatsError::Shape(
            "steady-state diagnosis needs runs of iterations: at least two levels".into(),
        ));
    }
    let d = h.depth() - 2;
    let runs: Vec<&[f64]> = (0..h.units(d)).map(|i| h.unit_values(d, i)).collect();
    diagnose(&runs, cfg)
}

fn validate(runs: usize, cfg: &SteadyConfig) -> Result<()> {
    if runs == 0 {
        return Err(StatsError::TooFew {
            what: "a steady-state diagnosis (runs)",
            needed: 1,
            got: 0,
        });
    }
    if !(0.0..1.0).contains(&cfg.quorum) {
        return Err(invalid("quorum", cfg.quorum, "must lie in [0, 1)"));
    }
    if cfg.min_tail < cfg.independence.max_lag + 2 {
        return Err(invalid(
            "minimum tail",
            cfg.min_tail as f64,
            "must exceed the maximum lag + 1",
        ));
    }
    if cfg.cut_step == Some(0) {
        return Err(invalid("cut step", 0.0, "must be at least 1"));
    }
    cfg.classify.validate()
}

/// The run's non-outlier values with their indices.
fn without_outliers(run: &[f64], outliers: &[usize]) -> Vec<(usize, f64)> {
    let mut out = outliers.iter().peekable();
    run.iter()
        .enumerate()
        .filter(|(i, _)| {
            let skip = out.peek() == Some(&i);
            if skip {
                out.next();
            }
            !skip
        })
        .map(|(i, &v)| (i, v))
        .collect()
}

/// Independence of a run's values from index `cut` on, or `None` if fewer than `min_tail`.
fn test_tail(
    values: &[(usize, f64)],
    cut: usize,
    run: usize,
    cfg: &SteadyConfig,
) -> Option<Independence> {
    let from = values.partition_point(|&(i, _)| i < cut);
    let tail: Vec<f64> = values[from..].iter().map(|&(_, v)| v).collect();
    if tail.len() < cfg.min_tail {
        return None;
    }
    let seed = cfg
        .independence
        .seed
        .wrapping_add((run as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(cut as u64);
    let icfg = IndependenceConfig {
        seed,
        ..cfg.independence
    };
    independence(&tail, &icfg).ok()
}

/// The first cut from `w0` on (in steps) at which more than `quorum` of the runs are independent.
fn independent_cut(tails: &[Vec<(usize, f64)>], w0: usize, cfg: &SteadyConfig) -> Option<usize> {
    let longest = tails
        .iter()
        .filter_map(|t| t.last().map(|&(i, _)| i + 1))
        .max()?;
    let step = cfg.cut_step.unwrap_or((longest / 100).max(1));
    let needed = cfg.quorum * tails.len() as f64;
    (w0..)
        .step_by(step)
        .take_while(|c| c + cfg.min_tail <= longest)
        .find(|&c| {
            let ok = tails
                .par_iter()
                .enumerate()
                .filter(|(j, t)| test_tail(t, c, *j, cfg).is_some_and(|r| r.independent))
                .count();
            ok as f64 > needed
        })
}

fn max_if_all(values: &[Option<usize>]) -> Option<usize> {
    values
        .iter()
        .copied()
        .collect::<Option<Vec<usize>>>()?
        .into_iter()
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(start: usize, end: usize, mean: f64, var: f64) -> Segment {
        Segment {
            start,
            end,
            mean,
            var,
        }
    }

    /// Runs of microsecond iterations given in seconds are classified as the same runs in
    /// nanoseconds are: a 4× warm-up of 30 iterations is a warm-up settled at 30, a +0.5% per
    /// iteration drift has no steady state (both were "flat" with every segment's variance at
    /// PELT's floor of 10⁻¹¹ s²: a new user's synthetic runs).
    #[test]
    fn the_classification_does_not_depend_on_the_unit() {
        use rand::SeedableRng;
        use rand_distr::{Distribution, Normal};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2017);
        let noise = Normal::new(0.0, 0.01).unwrap();
        let mut runs = |f: &dyn Fn(usize) -> f64| -> Vec<Vec<f64>> {
            (0..6)
                .map(|_| {
                    (0..200)
                        .map(|i| f(i) * 1e-6 * (1.0 + noise.sample(&mut rng)))
                        .collect()
                })
                .collect()
        };
        let warm = runs(&|i| if i < 30 { 4.0 } else { 1.0 });
        let drift = runs(&|i| 1.0 + 0.005 * i as f64);
        let cfg = SteadyConfig::default();
        for (unit, scale) in [("s", 1.0), ("ns", 1e9)] {
            let of = |runs: &[Vec<f64>]| {
                let scaled: Vec<Vec<f64>> = runs
                    .iter()
                    .map(|r| r.iter().map(|x| x * scale).collect())
                    .collect();
                diagnose(&scaled, &cfg).unwrap()
            };
            let w = of(&warm);
            assert!(
                w.runs.iter().all(|r| r.class == RunClass::Warmup),
                "{unit}: {:?}",
                w.runs.iter().map(|r| r.class).collect::<Vec<_>>()
            );
            assert_eq!(w.initialised_warmup, Some(30), "{unit}");
            let d = of(&drift);
            assert!(
                d.runs.iter().all(|r| r.class == RunClass::NoSteadyState),
                "{unit}: {:?}",
                d.runs.iter().map(|r| r.class).collect::<Vec<_>>()
            );
            assert_eq!(d.recommendation(), Recommendation::Unsettled, "{unit}");
        }
    }

    /// One execution's slow excursion in its middle, or a stretch a little faster than its final
    /// level, is not start-up overhead: the initialised warm-up stays the runs' warm-up instead
    /// of discarding the same share of every run (a new user's C program lost 62–74% of its
    /// iterations to one execution's blip). A run that dips to the final level for a few
    /// iterations within its warm-up still settles where it does.
    #[test]
    fn one_runs_excursion_is_not_everyones_warm_up() {
        use rand::SeedableRng;
        use rand_distr::{Distribution, Normal};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let noise = Normal::new(0.0, 0.01).unwrap();
        let mut run = |f: &dyn Fn(usize) -> f64| -> Vec<f64> {
            (0..200)
                .map(|i| f(i) * (1.0 + noise.sample(&mut rng)))
                .collect()
        };
        let cfg = SteadyConfig::default();
        // Nine runs warming up over 10 iterations, and a tenth that runs `last`.
        let mut with = |last: &dyn Fn(usize) -> f64| {
            let mut runs: Vec<Vec<f64>> = (0..9)
                .map(|_| run(&|i| if i < 10 { 3.0 } else { 1.0 }))
                .collect();
            runs.push(run(last));
            diagnose(&runs, &cfg).unwrap()
        };
        // The tenth also slowed 1.5× over 100..120.
        let r = with(&|i| match i {
            0..10 => 3.0,
            100..120 => 1.5,
            _ => 1.0,
        });
        assert_eq!(r.runs[9].class, RunClass::Warmup);
        assert_eq!(
            r.runs[9].steady_start,
            Some(120),
            "Barrett et al.'s label as before"
        );
        assert_eq!(r.initialised_warmup, Some(10));
        // A warm-up that reaches the final level for 5 iterations, then is slow for 20 more.
        let r = with(&|i| match i {
            0..10 => 3.0,
            10..15 => 1.0,
            15..35 => 2.0,
            _ => 1.0,
        });
        assert_eq!(r.initialised_warmup, Some(35));
        // One run 5% faster for a while after its warm-up: a slowdown by Barrett et al.'s label,
        // its steady start at its final level, and no start-up overhead after its warm-up.
        let r = with(&|i| match i {
            0..10 => 3.0,
            10..100 => 0.95,
            _ => 1.0,
        });
        assert_eq!(r.runs[9].class, RunClass::Slowdown);
        assert_eq!(r.runs[9].steady_start, Some(100));
        assert_eq!(r.initialised_warmup, Some(10));
    }

    #[test]
    fn the_scheme_on_hand_made_segments() {
        let cfg = ClassifyConfig::default();
        let label = |segments: &[Segment]| classify_segments(segments, 100, &cfg);
        let flat = [seg(0, 50, 1.005, 1e-4), seg(50, 100, 1.0, 1e-4)];
        assert_eq!(label(&flat), (RunClass::Flat, Some(0)));
        // δ = 0.01 decides: 1.0 ± 1e−4 vs 1.0205 ± max(1e−4, 0.010205) do not overlap.
        let warm = [
            seg(0, 10, 1.3, 1e-4),
            seg(10, 40, 1.0, 1e-4),
            seg(40, 100, 1.0205, 1e-4),
        ];
        assert_eq!(label(&warm), (RunClass::Slowdown, Some(40)));
        let warm = [
            seg(0, 10, 1.3, 1e-4),
            seg(10, 40, 1.005, 1e-4),
            seg(40, 100, 1.0, 1e-4),
        ];
        assert_eq!(label(&warm), (RunClass::Warmup, Some(10)));
        // A slower segment ending at 80 > 75: no steady state.
        let late = [seg(0, 80, 1.0, 1e-4), seg(80, 100, 0.9, 1e-4)];
        assert_eq!(label(&late).0, RunClass::NoSteadyState);
        // Ending exactly at 75 is not in the last quarter.
        let ok = [seg(0, 75, 1.2, 1e-4), seg(75, 100, 1.0, 1e-4)];
        assert_eq!(label(&ok), (RunClass::Warmup, Some(75)));
        // A large variance makes segments equivalent (the interval is mean ± var, as Barrett et al.
        // (2017) write it).
        let wide = [seg(0, 50, 1.3, 0.5), seg(50, 100, 1.0, 1e-4)];
        assert_eq!(label(&wide).0, RunClass::Flat);
        let sd = ClassifyConfig {
            spread: Spread::StdDev,
            ..cfg
        };
        let narrow = [seg(0, 50, 1.3, 0.01), seg(50, 100, 1.0, 1e-4)];
        assert_eq!(classify_segments(&narrow, 100, &sd).0, RunClass::Warmup);
    }

    #[test]
    fn consistency_labels() {
        use RunClass::*;
        assert_eq!(consistency(&[]), None);
        assert_eq!(
            consistency(&[Warmup, Warmup]),
            Some(Consistency::Consistent(Warmup))
        );
        assert_eq!(
            consistency(&[Flat, Warmup]),
            Some(Consistency::GoodInconsistent)
        );
        assert_eq!(
            consistency(&[Flat, Slowdown]),
            Some(Consistency::BadInconsistent)
        );
        assert_eq!(
            consistency(&[Warmup, NoSteadyState]),
            Some(Consistency::BadInconsistent)
        );
    }

    #[test]
    fn baselines() {
        // DaCapo oracle (hand-worked): population CoV of (100, 103, 101) = 1.247219/101.3333.
        assert!((population_cov(&[100.0, 103.0, 101.0]) - 0.012_308).abs() < 1e-6);
        let run = [150.0, 120.0, 100.0, 103.0, 101.0, 102.0];
        // Window (150, 120, 100) has CoV 0.16; (120, 100, 103) 0.08; (100, 103, 101) converges
        // after 5 iterations, and iteration 5 is timed.
        assert_eq!(dacapo_warmup(&run, &DacapoConfig::default()), Some(5));
        assert_eq!(dacapo_warmup(&run[..5], &DacapoConfig::default()), None);
        let slow: Vec<f64> = (0..40).map(|i| 100.0 + f64::from(i % 2) * 10.0).collect();
        assert_eq!(dacapo_warmup(&slow, &DacapoConfig::default()), None);
        let mut g = vec![200.0, 150.0];
        g.extend((0..12).map(|i| 100.0 + f64::from(i % 2)));
        assert_eq!(georges_warmup(&g, &GeorgesConfig::default()), Some(2));
        assert_eq!(georges_warmup(&g[..5], &GeorgesConfig::default()), None);
    }

    #[test]
    fn classify_maps_outliers_back() {
        // Flat run with two huge outliers after the protected first half-window.
        let mut x: Vec<f64> = (0..300).map(|i| 1.0 + 0.001 * f64::from(i % 5)).collect();
        x[150] = 50.0;
        x[220] = 60.0;
        let r = classify_run(&x, &ClassifyConfig::default()).unwrap();
        assert_eq!(r.outliers, vec![150, 220]);
        assert_eq!(r.class, RunClass::Flat);
        assert_eq!(r.steady_start, Some(0));
        assert_eq!(r.segments.last().map(|s| s.end), Some(300));
        assert!(classify_run(&[], &ClassifyConfig::default()).is_err());
    }

    #[test]
    fn without_outliers_keeps_indices() {
        let v = without_outliers(&[1.0, 2.0, 3.0, 4.0], &[1, 3]);
        assert_eq!(v, vec![(0, 1.0), (2, 3.0)]);
    }
}
