//! Section 3: experiment time to reach ±1% at 95% — rigor's adaptive run (the real
//! `run_adaptive` driving the real `SimulatedExecutor`: pilot kept, plan, top-level units until
//! ±1%) against the fixed designs users run today, each grown by repeating its own unit until its
//! own interval reaches ±1%, and against the oracle design (optimal counts from the true variance
//! components), the least time any design with a valid interval needs.

use std::path::{Path, PathBuf};

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use rigor_runner::{
    AdaptiveSettings, Benchmark, BuildSettings, CommandLine, DEFAULT_LOOKS, ExecutionRecord,
    Observer, PilotSettings, RunError, Settings, SimulatedExecutor, StopReason, StopSignal,
    run_adaptive,
};
use rigor_stats::design::{cost_of_top_unit, top_count_for_half_width};
use rigor_stats::{
    Hierarchy, HierarchyBuilder, LevelCost, Quantile, mean_interval, optimal_counts,
    pooled_interval,
};
use rigor_units::{ConfidenceLevel, Fraction, Seed};

use crate::common::{Rate, experiment_seed, mean, median, num, row_seed, run_experiments};
use crate::model::Split;

/// Target relative half-width.
pub const TARGET: f64 = 0.01;
/// Coverage at or above this counts as valid (the band the quick checks assert).
pub const VALID: f64 = 0.93;
/// The most top-level units rigor may add (`rigor run --max-units 10000`; the CLI default is
/// 1,000).
const MAX_UNITS: usize = 10_000;
/// Looks a fixed design may take to grow to ±1% (generous: rigor takes at most 3).
pub const FIXED_LOOKS: usize = 10;

/// A simulated benchmark with costs.
#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    /// Variance split.
    pub split: Split,
    /// Mean iteration time, seconds.
    pub mean: f64,
    /// Start-up cost of an execution (process start, warm-up), seconds.
    pub startup: f64,
    /// Seconds per build (used when the split has a build level).
    pub build_time: f64,
}

impl Scenario {
    /// Whether builds are a level.
    pub fn has_builds(&self) -> bool {
        self.split.build > 0.0
    }

    /// The `rigor run --simulate` specification.
    pub fn spec(&self) -> String {
        let mut s = format!(
            "mean={}ms,execution={}%,iteration={}%,iterations=20,startup={}s",
            num(self.mean * 1e3),
            num(self.split.execution * 100.0),
            num(self.split.iteration * 100.0),
            num(self.startup)
        );
        if self.has_builds() {
            s.push_str(&format!(
                ",build={}%,build_time={}s",
                num(self.split.build * 100.0),
                num(self.build_time)
            ));
        }
        s
    }
}

/// The optimal design for known variance components and costs (docs/methodology.md, "Builds, plans
/// and adaptive runs" with the true `T²`): the counts per level and the top-level count whose
/// half-width, computed from the true variances, is ±1%. No design that estimates its interval
/// honestly can be much cheaper.
#[derive(Debug, Clone, PartialEq)]
pub struct Oracle {
    /// Counts below the top, top → bottom.
    pub counts: Vec<usize>,
    /// Top-level units.
    pub top: usize,
    /// Experiment time, seconds.
    pub seconds: f64,
}

impl Oracle {
    /// "15 builds × 5 × 11".
    pub fn show(&self, sc: &Scenario) -> String {
        let top = if sc.has_builds() {
            "builds"
        } else {
            "executions"
        };
        let mut s = format!("{} {top}", self.top);
        for c in &self.counts {
            s.push_str(&format!(" × {c}"));
        }
        s
    }
}

/// The oracle design of a scenario.
pub fn oracle(sc: &Scenario) -> Result<Oracle, String> {
    let sq = |f: f64| (f * sc.mean).powi(2);
    let mut levels = Vec::new();
    if sc.has_builds() {
        levels.push(LevelCost::new("build", sc.build_time, sq(sc.split.build)));
    }
    levels.push(LevelCost::new(
        "execution",
        sc.startup,
        sq(sc.split.execution),
    ));
    levels.push(LevelCost::new("iteration", sc.mean, sq(sc.split.iteration)));
    let plan = optimal_counts(&levels).map_err(|e| e.to_string())?;
    let top = top_count_for_half_width(&plan, TARGET * sc.mean, 0.95, Quantile::StudentT)
        .map_err(|e| e.to_string())?;
    Ok(Oracle {
        counts: plan.counts.clone(),
        top,
        seconds: top as f64 * cost_of_top_unit(&plan),
    })
}

/// What one experiment of one design ended with.
#[derive(Debug, Clone, Copy)]
struct Outcome {
    covered: bool,
    reached: bool,
    seconds: f64,
    units: usize,
}

/// A design's results over the seeds.
#[derive(Debug, Clone)]
pub struct DesignResult {
    /// Design name.
    pub name: String,
    /// What it repeats and how it computes its interval.
    pub description: String,
    /// Experiments that reached ±1%.
    pub reached: Rate,
    /// Coverage of the true mean by the final interval.
    pub coverage: Rate,
    /// Mean experiment time, simulated seconds.
    pub mean_seconds: f64,
    /// Median experiment time.
    pub median_seconds: f64,
    /// Median number of units at the end.
    pub median_units: f64,
    /// Experiments that failed to run (errors).
    pub errors: usize,
}

/// Whether a design's coverage is valid, given the Monte-Carlo error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validity {
    /// Coverage at least [`VALID`].
    Valid,
    /// Below [`VALID`] but within two Monte-Carlo standard errors of it.
    Undecided,
    /// More than two standard errors below [`VALID`].
    Invalid,
}

impl DesignResult {
    /// Valid, invalid, or too close to [`VALID`] to tell at this number of experiments.
    pub fn validity(&self) -> Validity {
        let (p, se) = (self.coverage.p(), self.coverage.se());
        if p >= VALID {
            Validity::Valid
        } else if p + 2.0 * se >= VALID {
            Validity::Undecided
        } else {
            Validity::Invalid
        }
    }

    /// Coverage at least [`VALID`].
    pub fn valid(&self) -> bool {
        self.validity() == Validity::Valid
    }

    /// Not shown to be invalid (valid or undecided): how competitors are judged, giving them
    /// the benefit of the doubt.
    pub fn maybe_valid(&self) -> bool {
        self.validity() != Validity::Invalid
    }

    fn from(name: &str, description: &str, outcomes: &[Option<Outcome>]) -> Self {
        let ok: Vec<Outcome> = outcomes.iter().flatten().copied().collect();
        let secs: Vec<f64> = ok.iter().map(|o| o.seconds).collect();
        let units: Vec<f64> = ok.iter().map(|o| o.units as f64).collect();
        Self {
            name: name.into(),
            description: description.into(),
            reached: Rate::of(ok.iter().map(|o| o.reached)),
            coverage: Rate::of(ok.iter().map(|o| o.covered)),
            mean_seconds: mean(&secs),
            median_seconds: median(&secs),
            median_units: median(&units),
            errors: outcomes.len() - ok.len(),
        }
    }
}

/// One scenario: every design.
#[derive(Debug, Clone)]
pub struct PrecisionRow {
    /// The benchmark.
    pub scenario: Scenario,
    /// Row seed.
    pub seed: u64,
    /// Experiments per design.
    pub n: usize,
    /// rigor first, then the fixed designs.
    pub designs: Vec<DesignResult>,
    /// The optimal design for the true variances.
    pub oracle: Result<Oracle, String>,
}

impl PrecisionRow {
    /// The cheapest fixed design whose coverage is not shown to be invalid, if any.
    pub fn cheapest_valid_fixed(&self) -> Option<&DesignResult> {
        self.designs
            .iter()
            .filter(|d| !d.name.starts_with("rigor") && d.maybe_valid() && d.reached.p() > 0.5)
            .min_by(|a, b| a.mean_seconds.total_cmp(&b.mean_seconds))
    }

    /// The cheapest fixed design whatever its coverage.
    pub fn cheapest_fixed(&self) -> Option<&DesignResult> {
        self.designs
            .iter()
            .filter(|d| !d.name.starts_with("rigor"))
            .min_by(|a, b| a.mean_seconds.total_cmp(&b.mean_seconds))
    }

    /// rigor.
    pub fn rigor(&self) -> &DesignResult {
        &self.designs[0]
    }
}

// ---------------------------------------------------------------------------------------------
// rigor through the real adaptive loop and simulator.

#[derive(Default)]
struct Recorder(Vec<(usize, usize, Vec<f64>)>);

impl Observer for Recorder {
    fn execution(&mut self, r: &ExecutionRecord) -> Result<(), RunError> {
        if !r.warmup {
            let values = r
                .outcome
                .iterations
                .clone()
                .unwrap_or_else(|| vec![r.outcome.wall.get()]);
            self.0.push((r.build.unwrap_or(0), r.execution, values));
        }
        Ok(())
    }
}

impl Recorder {
    fn hierarchy(&self, builds: bool) -> Result<Hierarchy, rigor_stats::StatsError> {
        let levels: Vec<&str> = if builds {
            vec!["build", "execution", "iteration"]
        } else {
            vec!["execution", "iteration"]
        };
        let mut b = HierarchyBuilder::new(levels);
        for (build, execution, values) in &self.0 {
            let path: Vec<usize> = if builds {
                vec![*build, *execution]
            } else {
                vec![*execution]
            };
            for &v in values {
                b.push(&path, v);
            }
        }
        b.build()
    }
}

fn rigor_once(scenario: &Scenario, seed: u64, build_root: &Path) -> Result<Outcome, String> {
    let spec = scenario.spec();
    let benches = [Benchmark::new(
        spec.clone(),
        CommandLine::parse(&spec, false).map_err(|e| e.to_string())?,
    )];
    let builds = scenario.has_builds();
    let settings = Settings {
        executions: 10,
        warmup_executions: 0,
        seed: Seed(seed),
        build: builds.then(|| BuildSettings {
            command: CommandLine::parse("true", false).expect("a command"),
            builds: 10,
            root: build_root.to_path_buf(),
            timeout: None,
            interleaved: false,
            for_benchmark: Vec::new(),
            seeds: Vec::new(),
        }),
        ..Settings::default()
    };
    let adaptive = AdaptiveSettings {
        target: Some(Fraction::new(TARGET).expect("the target is a proportion")),
        budget: None,
        level: ConfidenceLevel::NINETY_FIVE,
        quantile: Quantile::StudentT,
        estimator: rigor_stats::Estimator::Mean,
        bootstrap: rigor_stats::BootstrapConfig::default(),
        max_looks: DEFAULT_LOOKS,
        max_units: MAX_UNITS,
    };
    let mut ex = SimulatedExecutor::new(seed);
    let mut main = Recorder::default();
    let report = run_adaptive(
        &benches,
        &settings,
        0,
        &PilotSettings::adaptive(),
        &adaptive,
        StopSignal::new(),
        &mut ex,
        &mut main,
    )
    .map_err(|e| e.to_string())?;
    let h = main.hierarchy(builds).map_err(|e| e.to_string())?;
    let ci = mean_interval(&h, 0.95, Quantile::StudentT).map_err(|e| e.to_string())?;
    Ok(Outcome {
        covered: ci.contains(scenario.mean),
        reached: report.reason == StopReason::PrecisionReached,
        seconds: (report.pilot_seconds + report.main_seconds).get(),
        units: h.units(0),
    })
}

// ---------------------------------------------------------------------------------------------
// Fixed designs, simulated with the same model as the simulator (normal effects; an execution
// costs its start-up plus its iterations; a build costs build_time).

/// A fixed design that users run today.
#[derive(Debug, Clone, Copy)]
pub struct Fixed {
    /// Name.
    pub name: &'static str,
    /// What it does.
    pub description: &'static str,
    /// Units of the base design.
    pub base: usize,
    /// Iterations measured per process (0: the unit is an iteration in one process).
    pub per_process: usize,
    /// Interval from all iterations pooled (true) or from process means (false).
    pub pooled: bool,
}

/// The four fixed designs.
pub const FIXED: [Fixed; 4] = [
    Fixed {
        name: "hyperfine-style",
        description: "1 measurement per execution, base 10 executions; grows executions; t over executions",
        base: 10,
        per_process: 1,
        pooled: false,
    },
    Fixed {
        name: "JMH-style",
        description: "5 forks × 5 iterations; grows forks; t over all iterations pooled",
        base: 5,
        per_process: 5,
        pooled: true,
    },
    Fixed {
        name: "pyperf-style",
        description: "20 processes × 3 values; grows processes; t over all values pooled",
        base: 20,
        per_process: 3,
        pooled: true,
    },
    Fixed {
        name: "criterion-style",
        description: "1 process × 100 iterations; grows iterations in that process; t over iterations pooled",
        base: 100,
        per_process: 0,
        pooled: true,
    },
];

struct FixedState<'a> {
    sc: &'a Scenario,
    rng: ChaCha8Rng,
    build_effect: f64,
    processes: Vec<Vec<f64>>,
    seconds: f64,
}

impl FixedState<'_> {
    fn normal(&mut self, sd: f64) -> f64 {
        sd * self.rng.sample::<f64, _>(StandardNormal)
    }

    fn level(&mut self) -> f64 {
        let mu = self.sc.mean;
        mu + self.build_effect + self.normal(self.sc.split.execution * mu)
    }

    fn add_process(&mut self, iterations: usize) {
        let level = self.level();
        let sd = self.sc.split.iteration * self.sc.mean;
        let values: Vec<f64> = (0..iterations).map(|_| level + self.normal(sd)).collect();
        self.seconds += self.sc.startup + values.iter().sum::<f64>();
        self.processes.push(values);
    }

    /// criterion: more iterations in the one process, whose level was fixed when it started.
    fn add_iterations(&mut self, level: f64, k: usize) {
        let sd = self.sc.split.iteration * self.sc.mean;
        for _ in 0..k {
            let v = level + self.normal(sd);
            self.seconds += v;
            self.processes[0].push(v);
        }
    }

    fn interval(&self, pooled: bool) -> rigor_stats::MeanInterval {
        let h = Hierarchy::two_level(["execution", "iteration"], &self.processes).expect("data");
        if pooled {
            pooled_interval(&h, 0.95, Quantile::StudentT).expect("≥ 2 values")
        } else {
            mean_interval(&h, 0.95, Quantile::StudentT).expect("≥ 2 executions")
        }
    }
}

fn fixed_once(sc: &Scenario, design: &Fixed, seed: u64) -> Outcome {
    let mut st = FixedState {
        sc,
        rng: rand::SeedableRng::seed_from_u64(seed),
        build_effect: 0.0,
        processes: Vec::new(),
        seconds: 0.0,
    };
    if sc.has_builds() {
        st.build_effect = st.normal(sc.split.build * sc.mean);
        st.seconds += sc.build_time;
    }
    let criterion_level = if design.per_process == 0 {
        let level = st.level();
        st.seconds += sc.startup;
        st.processes.push(Vec::new());
        st.add_iterations(level, design.base);
        Some(level)
    } else {
        for _ in 0..design.base {
            st.add_process(design.per_process);
        }
        None
    };
    let cap = if design.per_process == 0 {
        2_000_000
    } else {
        200_000
    };
    let mut units = design.base;
    let mut looks = 0;
    loop {
        let ci = st.interval(design.pooled);
        let rel = ci.relative_half_width();
        if rel <= TARGET || looks >= FIXED_LOOKS || units >= cap {
            return Outcome {
                covered: ci.contains(sc.mean),
                reached: rel <= TARGET,
                seconds: st.seconds,
                units,
            };
        }
        looks += 1;
        let needed = ((units as f64) * (rel / TARGET).powi(2)).ceil() as usize;
        let next = needed.clamp(units + 1, cap);
        match criterion_level {
            Some(level) => st.add_iterations(level, next - units),
            None => {
                for _ in units..next {
                    st.add_process(design.per_process);
                }
            }
        }
        units = next;
    }
}

/// Runs every design `n` times on one scenario.
pub fn run_row(master: u64, scenario: Scenario, n: usize, build_root: &Path) -> PrecisionRow {
    let seed = row_seed(master, &format!("precision/{}", scenario.spec()));
    let outcomes = run_experiments(n, |i| {
        rigor_once(&scenario, experiment_seed(seed, i), build_root).ok()
    });
    let mut designs = vec![DesignResult::from(
        "rigor",
        "pilot 10 executions × 10 iterations (10 builds × 2 executions) kept, plan, adaptive to ±1%",
        &outcomes,
    )];
    for design in &FIXED {
        let outcomes = run_experiments(n, |i| {
            // Fixed designs draw from their own streams, independent of rigor's.
            let s = experiment_seed(seed ^ 0xF1ED, i);
            Some(fixed_once(&scenario, design, s))
        });
        designs.push(DesignResult::from(
            design.name,
            design.description,
            &outcomes,
        ));
    }
    PrecisionRow {
        scenario,
        seed,
        n,
        designs,
        oracle: oracle(&scenario),
    }
}

/// A scratch directory for the simulated builds' directories (the scheduler creates one per
/// build); removed by the caller.
pub fn build_root() -> PathBuf {
    std::env::temp_dir().join(format!("rigor-validation-builds-{}", std::process::id()))
}

/// Markdown table for one scenario.
pub fn table(rows: &[PrecisionRow]) -> String {
    let mut s = String::from(
        "| benchmark (simulated) | seed | design | reached ±1% | coverage of the true mean | mean time | median time | median units at the end |\n\
         |---|---:|---|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        for (k, d) in r.designs.iter().enumerate() {
            let first = k == 0;
            s.push_str(&format!(
                "| {} | {} | {} | {} | {}{} | {} | {} | {:.0}{} |\n",
                if first {
                    format!("{} (`{}`)", r.scenario.split.name, r.scenario.spec())
                } else {
                    String::new()
                },
                if first {
                    r.seed.to_string()
                } else {
                    String::new()
                },
                d.name,
                d.reached.pct(),
                d.coverage.show(),
                mark(d),
                crate::common::seconds(d.mean_seconds),
                crate::common::seconds(d.median_seconds),
                d.median_units,
                if d.errors > 0 {
                    format!(" ({} errors)", d.errors)
                } else {
                    String::new()
                }
            ));
        }
    }
    s
}

fn mark(d: &DesignResult) -> &'static str {
    match d.validity() {
        Validity::Valid => "",
        Validity::Undecided => " (†)",
        Validity::Invalid => " (✗)",
    }
}

/// One line per scenario: is rigor within half the time of the cheapest valid fixed design, and
/// could any design be?
pub fn verdicts(rows: &[PrecisionRow]) -> String {
    let mut s = String::from(
        "| benchmark | experiments per design | rigor: coverage, mean time | cheapest fixed design not shown invalid | rigor / it | oracle design, time | oracle / that fixed design | rigor / oracle | target (rigor / fixed ≤ 0.5) |\n\
         |---|---:|---|---|---:|---|---:|---:|---|\n",
    );
    for r in rows {
        let ours = r.rigor();
        let oracle = r.oracle.as_ref().ok();
        let oracle_text = oracle.map_or("–".to_string(), |o| {
            format!(
                "{}, {}",
                o.show(&r.scenario),
                crate::common::seconds(o.seconds)
            )
        });
        let rigor_vs_oracle = oracle.map_or("–".to_string(), |o| {
            format!("{:.2}", ours.mean_seconds / o.seconds)
        });
        let (best, ratio, best_possible, verdict) = match r.cheapest_valid_fixed() {
            Some(b) => {
                let ratio = ours.mean_seconds / b.mean_seconds;
                let possible = oracle.map(|o| o.seconds / b.mean_seconds);
                let verdict = match (ours.validity(), ratio <= 0.5, possible) {
                    (Validity::Valid, true, _) => "met".to_string(),
                    (Validity::Valid, false, Some(p)) if p > 0.5 => format!(
                        "not met; unattainable: even the oracle design takes {p:.2}× that fixed design"
                    ),
                    (Validity::Valid, false, _) => "not met".to_string(),
                    (Validity::Undecided, _, _) => {
                        "not established (rigor's coverage within MC error of 93%)".to_string()
                    }
                    (Validity::Invalid, _, _) => {
                        "not met (rigor's coverage is not valid)".to_string()
                    }
                };
                (
                    format!(
                        "{}{} ({}, {})",
                        b.name,
                        mark(b),
                        b.coverage.show(),
                        crate::common::seconds(b.mean_seconds)
                    ),
                    format!("{ratio:.2}"),
                    possible.map_or("–".to_string(), |p| format!("{p:.2}")),
                    verdict,
                )
            }
            None => (
                "none: every fixed design's coverage is invalid".to_string(),
                "–".to_string(),
                "–".to_string(),
                match ours.validity() {
                    Validity::Valid => "met (only rigor is valid)",
                    Validity::Undecided => {
                        "not established (rigor's coverage within MC error of 93%)"
                    }
                    Validity::Invalid => "not met",
                }
                .to_string(),
            ),
        };
        s.push_str(&format!(
            "| {} | {} | {}{}, {} | {} | {} | {} | {} | {} | {} |\n",
            r.scenario.split.name,
            r.n,
            ours.coverage.show(),
            mark(ours),
            crate::common::seconds(ours.mean_seconds),
            best,
            ratio,
            oracle_text,
            best_possible,
            rigor_vs_oracle,
            verdict
        ));
    }
    s
}
