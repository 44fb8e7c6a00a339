//! Collecting measurements while an experiment runs, for dimensioning and adaptive stopping.
//!
//! A [`Collector`] forwards every event to another observer (which persists and shows it) and keeps
//! what the statistics need: each benchmark's analysed values by unit, and the cost of each level.

use rigor_stats::{Hierarchy, HierarchyBuilder, StatsError};
use rigor_units::{Resolution, Seconds};

use crate::error::RunError;
use crate::schedule::{BuildRecord, Control, ExecutionRecord, FailureRecord, Observer, Shape};

/// What one benchmark has measured so far.
#[derive(Debug, Clone, Default)]
pub struct BenchData {
    /// Per measured execution: its build, its index and its analysed values.
    executions: Vec<(Option<usize>, usize, Vec<f64>)>,
    /// Whether its executions report iterations.
    has_iterations: bool,
    /// Per measured execution: wall time not spent in analysed iterations (start-up, warm-up,
    /// teardown), or the whole wall time when no iterations are reported.
    overheads: Vec<f64>,
    /// Wall time of every execution, warm-up ones included.
    walls: Vec<f64>,
    /// Wall time of every build.
    builds: Vec<f64>,
    /// Builds with at least one measured execution (the top-level units when builds are a level).
    measured_builds: std::collections::BTreeSet<usize>,
    /// Whether a failure ended the benchmark: it measures nothing more.
    ended: bool,
    /// Per measured execution (as in `executions`): the round it ran in.
    rounds: Vec<usize>,
    /// The coarsest resolution its executions reported for their iteration times.
    resolution: Option<Resolution>,
    /// Warm-up iterations [`BenchData::without_warmup`] moved out of each execution's values.
    warmup_iterations: usize,
}

impl BenchData {
    /// Level names, top → bottom.
    pub fn levels(&self, with_builds: bool) -> Vec<String> {
        let mut levels = vec!["execution".to_string()];
        if self.has_iterations {
            levels.push("iteration".into());
        }
        if with_builds {
            levels.insert(0, "build".into());
        }
        levels
    }

    /// The hierarchy of analysed values.
    pub fn hierarchy(&self, with_builds: bool) -> Result<Hierarchy, StatsError> {
        let levels = self.levels(with_builds);
        let mut b = HierarchyBuilder::new(levels.clone());
        for (build, execution, values) in &self.executions {
            let mut path = Vec::with_capacity(2);
            if with_builds {
                path.push(build.unwrap_or(0));
            }
            if self.has_iterations {
                path.push(*execution);
            }
            for &v in values {
                b.push(&path, v);
            }
        }
        b.build()
    }

    /// The time one repetition of each level adds, top → bottom (see [`BenchData::levels`]): a
    /// build's time plus its warm-up executions; an execution's time outside analysed iterations;
    /// an iteration's mean time. `warmup_per_build` is the number of warm-up executions per build.
    pub fn costs(&self, with_builds: bool, warmup_per_build: usize) -> Vec<Seconds> {
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let mut costs = vec![mean(&self.overheads).max(1e-9)];
        if self.has_iterations {
            let all: Vec<f64> = self
                .executions
                .iter()
                .flat_map(|e| e.2.iter().copied())
                .collect();
            costs.push(mean(&all).max(1e-12));
        }
        if with_builds {
            let warmups = warmup_per_build as f64 * mean(&self.walls);
            costs.insert(0, (mean(&self.builds) + warmups).max(1e-9));
        }
        costs.into_iter().map(Seconds::new).collect()
    }

    /// The data with each execution's warm-up iterations moved from its analysed values into its
    /// overhead (the execution still pays for them): the first k iterations of every execution, k
    /// where the steady-state diagnosis finds the last execution settled (Kalibera & Jones 2013's
    /// initialised state). Unchanged without iterations, when no execution settles, or when the
    /// diagnosis cannot run; at least two iterations per execution are kept.
    pub fn without_warmup(&self) -> Self {
        let mut d = self.clone();
        if !self.has_iterations || self.executions.is_empty() {
            return d;
        }
        let runs: Vec<&[f64]> = self.executions.iter().map(|e| e.2.as_slice()).collect();
        let cfg = rigor_stats::steady::SteadyConfig::default();
        let Ok(report) = rigor_stats::steady::diagnose(&runs, &cfg) else {
            return d;
        };
        let shortest = runs.iter().map(|r| r.len()).min().unwrap_or(0);
        let k = report
            .initialised_warmup
            .unwrap_or(0)
            .min(shortest.saturating_sub(2));
        if k == 0 {
            return d;
        }
        let aligned = d.overheads.len() == d.executions.len();
        for (i, e) in d.executions.iter_mut().enumerate() {
            let dropped: f64 = e.2.drain(..k).sum();
            if aligned {
                d.overheads[i] += dropped;
            }
        }
        d.warmup_iterations = k;
        d
    }

    /// Warm-up iterations per execution [`BenchData::without_warmup`] dropped from these data
    /// (0 for data as collected).
    pub fn warmup_iterations(&self) -> usize {
        self.warmup_iterations
    }

    /// The mean wall time of its executions so far, warm-up included (`None` before the
    /// first).
    pub fn spent_per_execution(&self) -> Option<Seconds> {
        (!self.walls.is_empty())
            .then(|| Seconds::new(self.walls.iter().sum::<f64>() / self.walls.len() as f64))
    }

    /// Time spent so far on this benchmark's builds and executions.
    pub fn spent(&self) -> Seconds {
        Seconds::new(self.walls.iter().sum::<f64>() + self.builds.iter().sum::<f64>())
    }

    /// Whether the benchmark still runs (no failure ended it). Stopping rules wait only for
    /// running benchmarks: an ended one will never add units.
    pub fn running(&self) -> bool {
        !self.ended
    }

    /// The value of each top-level unit, keyed by its build (with builds) or by the round its
    /// execution ran in (without): what a comparison pairs by. Each execution's values are
    /// summarised by `statistic` (their mean, or their minimum for a comparison of minimums),
    /// and a build's value is the mean of its executions'.
    pub fn unit_values(
        &self,
        with_builds: bool,
        statistic: rigor_stats::Estimator,
    ) -> std::collections::BTreeMap<usize, f64> {
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let mut units: std::collections::BTreeMap<usize, Vec<f64>> = Default::default();
        for ((build, _, values), &round) in self.executions.iter().zip(&self.rounds) {
            let key = if with_builds {
                build.unwrap_or(0)
            } else {
                round
            };
            units.entry(key).or_default().push(statistic.apply(values));
        }
        units.into_iter().map(|(k, v)| (k, mean(&v))).collect()
    }

    /// The step its analysed values move in, when its executions said (the coarsest they gave):
    /// no interval of its estimates is narrower than half of it.
    pub fn resolution(&self) -> Option<Resolution> {
        self.resolution
    }

    /// Measured (non-warm-up) executions so far.
    pub fn measured_executions(&self) -> usize {
        self.executions.len()
    }

    /// Top-level units measured so far (builds or executions), counted as they arrive so that
    /// stopping rules need not rebuild the hierarchy after every round.
    pub fn top_units(&self, with_builds: bool) -> usize {
        if with_builds {
            self.measured_builds.len()
        } else {
            self.executions.len()
        }
    }
}

/// Decides after each round whether the experiment should go on.
pub trait StopRule {
    /// Called after each measured round with everything collected so far.
    fn check(&mut self, data: &[BenchData]) -> Control;

    /// New lower-level counts after a [`StopRule::check`] that continued, if any.
    fn reshape(&mut self) -> Option<Shape> {
        None
    }

    /// Executions (warm-up included) the rule expects the whole experiment to run, if it knows
    /// better than the scheduler's own count (an adaptive rule's plan); for progress display.
    fn planned_executions(&self) -> Option<usize> {
        None
    }

    /// Benchmarks to schedule no more (after a [`StopRule::check`] that continued): e.g. a
    /// candidate whose comparison is decided.
    fn retired(&mut self) -> Vec<usize> {
        Vec::new()
    }
}

/// Never stops early.
#[derive(Debug, Clone, Copy, Default)]
pub struct NeverStop;

impl StopRule for NeverStop {
    fn check(&mut self, _data: &[BenchData]) -> Control {
        Control::Continue
    }
}

/// Forwards events to `inner` and collects the data of every benchmark.
pub struct Collector<'o, R: StopRule> {
    inner: &'o mut dyn Observer,
    discard: usize,
    data: Vec<BenchData>,
    rule: R,
    /// The planned execution count last passed on to `inner`.
    announced: Option<usize>,
}

impl<'o, R: StopRule> Collector<'o, R> {
    /// A collector for `benchmarks` benchmarks that drops the first `discard` iterations of each
    /// execution, as the analysis does.
    pub fn new(inner: &'o mut dyn Observer, benchmarks: usize, discard: usize, rule: R) -> Self {
        Self {
            inner,
            discard,
            data: vec![BenchData::default(); benchmarks],
            rule,
            announced: None,
        }
    }

    /// The data collected per benchmark.
    pub fn data(&self) -> &[BenchData] {
        &self.data
    }

    /// The stop rule (to read what it decided).
    pub fn rule(&self) -> &R {
        &self.rule
    }

    /// The stop rule, taken back after the run.
    pub fn into_rule(self) -> R {
        self.rule
    }
}

impl<R: StopRule> Observer for Collector<'_, R> {
    fn started(&mut self, planned: usize) -> Result<(), RunError> {
        let planned = self.rule.planned_executions().unwrap_or(planned);
        self.announced = Some(planned);
        self.inner.started(planned)
    }

    fn build(&mut self, r: &BuildRecord) -> Result<(), RunError> {
        self.data[r.benchmark].builds.push(r.outcome.wall.get());
        self.inner.build(r)
    }

    fn execution(&mut self, r: &ExecutionRecord) -> Result<(), RunError> {
        let d = &mut self.data[r.benchmark];
        let o = &r.outcome;
        let wall = o.wall.get();
        d.walls.push(wall);
        if !r.warmup {
            let values: Vec<f64> = match &o.iterations {
                Some(v) => v.iter().skip(self.discard).copied().collect(),
                None => vec![wall],
            };
            d.has_iterations = o.iterations.is_some();
            let overhead = if d.has_iterations {
                wall - values.iter().sum::<f64>()
            } else {
                wall
            };
            d.overheads.push(overhead);
            if !values.is_empty() {
                if let Some(b) = r.build {
                    d.measured_builds.insert(b);
                }
                d.executions.push((r.build, r.execution, values));
                d.rounds.push(r.round);
                if let Some(res) = o.resolution.filter(|_| d.has_iterations) {
                    d.resolution = Some(d.resolution.map_or(res, |old| old.coarser(res)));
                }
            }
        }
        self.inner.execution(r)
    }

    fn failure(&mut self, r: &FailureRecord) -> Result<(), RunError> {
        if r.ends_benchmark {
            self.data[r.benchmark].ended = true;
        }
        self.inner.failure(r)
    }

    fn round_finished(&mut self, round: usize) -> Result<Control, RunError> {
        let outer = self.inner.round_finished(round)?;
        let mine = self.rule.check(&self.data);
        if let Some(planned) = self.rule.planned_executions()
            && self.announced != Some(planned)
        {
            self.announced = Some(planned);
            self.inner.started(planned)?;
        }
        Ok(if outer == Control::Stop || mine == Control::Stop {
            Control::Stop
        } else {
            Control::Continue
        })
    }

    fn reshape(&mut self) -> Option<Shape> {
        self.rule.reshape().or_else(|| self.inner.reshape())
    }

    fn retired(&mut self) -> Vec<usize> {
        let mut out = self.rule.retired();
        out.extend(self.inner.retired());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A benchmark measured in rounds 0 and 1, one execution each, with `values` each.
    fn data(values: [&[f64]; 2]) -> BenchData {
        BenchData {
            executions: values
                .iter()
                .enumerate()
                .map(|(i, v)| (None, i, v.to_vec()))
                .collect(),
            has_iterations: true,
            overheads: vec![0.0; 2],
            walls: vec![1.0; 2],
            builds: Vec::new(),
            measured_builds: Default::default(),
            ended: false,
            rounds: vec![0, 1],
            resolution: None,
            warmup_iterations: 0,
        }
    }

    #[test]
    fn each_execution_is_summarised_by_the_statistic_compared() {
        let d = data([&[1.0, 5.0, 9.0], &[2.0, 3.0, 4.0]]);
        let means = d.unit_values(false, rigor_stats::Estimator::Mean);
        assert_eq!(means.into_iter().collect::<Vec<_>>(), [(0, 5.0), (1, 3.0)]);
        let minima = d.unit_values(false, rigor_stats::Estimator::Min);
        assert_eq!(minima.into_iter().collect::<Vec<_>>(), [(0, 1.0), (1, 2.0)]);
        // The sequence's ratios follow: the minimum fell where the mean rose.
        let reference = data([&[2.0, 3.0, 4.0], &[2.0, 3.0, 4.0]]);
        let by_mean =
            crate::decide::paired_log_ratios(&d, &reference, false, rigor_stats::Estimator::Mean);
        let by_min =
            crate::decide::paired_log_ratios(&d, &reference, false, rigor_stats::Estimator::Min);
        assert!(
            by_mean[0] > 0.0 && by_min[0] < 0.0,
            "{by_mean:?} {by_min:?}"
        );
    }
}
