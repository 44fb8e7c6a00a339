//! A result seen through one metric: the samples of each benchmark replaced by that metric's
//! values, so every analysis, comparison and rendering that works on wall times works on CPU
//! time, peak memory or a count the program reported, unchanged.
//!
//! Wall time is the benchmark's own samples (per execution, or per iteration the program
//! timed). The process-level metrics (`cpu`, `user`, `system`, `peak-memory`) are one value per
//! execution, so their hierarchy has no iteration level: builds (when they are a level) and
//! executions. A reported metric is one value per execution, or one per iteration when the
//! program reported several in an execution.

use rigor_units::{Metric, Quantity, Resolution, Seconds, TimeUnit};
use serde::{Deserialize, Serialize};

use crate::layout::Layout;
use crate::schema::{BenchmarkRecord, ExecutionRecord, ResultFile, SampleRecord};
use crate::warning::Warning;

/// What a benchmark's samples are when a metric other than wall time was chosen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricRecord {
    /// The metric.
    pub metric: Metric,
    /// The quantity its values are, in its base unit (seconds, bytes, a count).
    pub quantity: Quantity,
    /// The step its values move in, in the base unit, when known (1 µs for the CPU times Linux
    /// reports, 1 KiB for peak memory, 1 for a count of whole events): no interval of them is
    /// narrower than half of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<f64>,
}

/// Why a metric cannot be had of a benchmark.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetricError {
    /// No execution of the benchmark recorded it.
    #[error("'{benchmark}' has no {metric} values: {why}")]
    Missing {
        /// The benchmark.
        benchmark: String,
        /// The metric.
        metric: Metric,
        /// Why, in words, with what would record it.
        why: String,
    },
    /// The executions reported it in different units.
    #[error("'{benchmark}': its executions report {metric} in different units ({first}, {other})")]
    MixedUnits {
        /// The benchmark.
        benchmark: String,
        /// The metric.
        metric: Metric,
        /// One unit.
        first: String,
        /// Another.
        other: String,
    },
    /// No benchmark of the result has it.
    #[error("no benchmark has {metric} values ({first})")]
    NoneHave {
        /// The metric.
        metric: Metric,
        /// The first benchmark's reason.
        first: Box<MetricError>,
    },
}

/// The step of the CPU times Linux's `wait4` reports: microseconds.
const RUSAGE_STEP: f64 = 1e-6;
/// The step of the peak resident set Linux reports: kibibytes.
const MAX_RSS_STEP: f64 = 1024.0;

/// The step user or system CPU times move in: the smallest gap between two distinct values
/// when it is over 100 µs (tick-based accounting: values a few milliseconds apart and nothing
/// between), else the microsecond `wait4` reports in.
fn tick_step(values: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    let gap = v
        .windows(2)
        .map(|w| w[1] - w[0])
        .fold(f64::INFINITY, f64::min);
    if gap.is_finite() && gap > 1e-4 {
        gap
    } else {
        RUSAGE_STEP
    }
}

impl BenchmarkRecord {
    /// The metrics recorded for this benchmark, besides wall time (which every benchmark has):
    /// the CPU times when executions were measured as processes, peak memory when it was known,
    /// and every name a program or an imported file reported.
    pub fn metrics(&self) -> Vec<Metric> {
        let measured = || self.executions.iter().filter(|e| !e.warmup);
        let mut all = vec![Metric::Wall];
        if measured().any(|e| e.user.get() > 0.0 || e.sys.get() > 0.0) {
            all.extend([Metric::Cpu, Metric::User, Metric::System]);
        }
        if measured().any(|e| e.max_rss > 0) {
            all.push(Metric::PeakMemory);
        }
        for e in measured() {
            for name in e.metrics.keys() {
                let m: Metric = name
                    .parse()
                    .unwrap_or_else(|_| Metric::Reported(name.clone()));
                if !all.contains(&m) {
                    all.push(m);
                }
            }
        }
        all
    }

    /// This benchmark with `metric`'s values as its samples (wall time: itself). Estimates and
    /// steady-state diagnoses of the wall times are dropped; the rest (failures, parameters,
    /// versions, the shell it ran through) is kept.
    ///
    /// # Errors
    /// [`MetricError::Missing`] when no measured execution recorded the metric (peak memory that
    /// was not above rigor's own, a count the program did not report, CPU times of imported
    /// data), [`MetricError::MixedUnits`] when executions reported it in different units.
    pub fn for_metric(&self, metric: &Metric) -> Result<Self, MetricError> {
        if metric.is_wall() {
            return Ok(self.clone());
        }
        let missing = |why: &str| MetricError::Missing {
            benchmark: self.name.clone(),
            metric: metric.clone(),
            why: why.to_string(),
        };
        let (quantity, step, per_execution): (Quantity, Option<f64>, Vec<Option<Vec<f64>>>) =
            match metric {
                Metric::Cpu | Metric::User | Metric::System => {
                    let value = |e: &ExecutionRecord| match metric {
                        Metric::User => e.user.get(),
                        Metric::System => e.sys.get(),
                        _ => e.user.get() + e.sys.get(),
                    };
                    if !self
                        .executions
                        .iter()
                        .any(|e| !e.warmup && (e.user.get() > 0.0 || e.sys.get() > 0.0))
                    {
                        return Err(missing(
                            "no execution recorded CPU time (imported data, or a command \
                             too short for the kernel to account)",
                        ));
                    }
                    let values: Vec<Option<Vec<f64>>> = self
                        .executions
                        .iter()
                        .map(|e| Some(vec![value(e)]))
                        .collect();
                    let step = match metric {
                        // Linux splits a process's exact CPU time into user and system time by
                        // the clock ticks each was sampled in (without virtual CPU
                        // accounting): each alone moves in steps of about a tick (4 ms here),
                        // their sum does not.
                        Metric::User | Metric::System => {
                            tick_step(values.iter().flatten().flatten().copied())
                        }
                        _ => RUSAGE_STEP,
                    };
                    (Quantity::Time, Some(step), values)
                }
                Metric::PeakMemory => {
                    // 0 is unknown: Linux folds the spawning process's peak into a child's, so
                    // a peak not above it cannot be told apart from it (rigor-runner).
                    let values: Vec<Option<Vec<f64>>> = self
                        .executions
                        .iter()
                        .map(|e| (e.max_rss > 0).then(|| vec![e.max_rss as f64]))
                        .collect();
                    if !values
                        .iter()
                        .zip(&self.executions)
                        .any(|(v, e)| v.is_some() && !e.warmup)
                    {
                        if self.family.as_deref() == Some("hyperfine") {
                            return Err(missing(
                                "the hyperfine file holds no peak memory (hyperfine writes \
                                 `memory_usage_byte` for each run from version 1.19)",
                            ));
                        }
                        return Err(missing(
                            "peak memory is known only when it exceeds that of the process that started the \
                             command (Linux counts it toward the command's peak): a launcher of 5 to 10 MiB \
                             when the run asked for --metric peak-memory, rigor's own resident set (10 to 30 \
                             MiB) when it did not; or it was not recorded",
                        ));
                    }
                    (Quantity::Bytes, Some(MAX_RSS_STEP), values)
                }
                other => {
                    let name = other.name();
                    let mut quantity: Option<Quantity> = None;
                    let mut values = Vec::with_capacity(self.executions.len());
                    for e in &self.executions {
                        match e.metrics.get(name) {
                            Some(v) if !v.values.is_empty() => {
                                match &quantity {
                                    Some(q) if *q != v.unit => {
                                        return Err(MetricError::MixedUnits {
                                            benchmark: self.name.clone(),
                                            metric: metric.clone(),
                                            first: q.to_string(),
                                            other: v.unit.to_string(),
                                        });
                                    }
                                    _ => quantity = Some(v.unit.clone()),
                                }
                                values.push(Some(v.values.clone()));
                            }
                            _ => values.push(None),
                        }
                    }
                    let Some(quantity) = quantity else {
                        return Err(missing(match other {
                            Metric::Instructions | Metric::Cycles => {
                                "hardware counters were not recorded (`rigor run --metric \
                                 instructions` counts them where the kernel exposes them)"
                            }
                            _ => {
                                "no execution reported it (a program reports one with a line \
                                 {\"metric\": NAME, \"value\": V, \"unit\": U} in its samples \
                                 file)"
                            }
                        }));
                    };
                    let whole = values.iter().flatten().flatten().all(|v| v.fract() == 0.0);
                    let step = (matches!(quantity, Quantity::Count | Quantity::Bytes) && whole)
                        .then_some(1.0);
                    (quantity, step, values)
                }
            };
        let iterations = per_execution.iter().flatten().any(|v| v.len() > 1);
        // The iterations of the wall times that are warm-up (`--discard`): a metric reported
        // per iteration leaves out the same ones.
        let discarded: std::collections::HashSet<(Option<usize>, usize, usize)> = self
            .samples
            .iter()
            .filter(|s| s.warmup)
            .map(|s| (s.build, s.execution, s.iteration))
            .collect();
        let mut samples = Vec::new();
        for (e, values) in self.executions.iter().zip(&per_execution) {
            let Some(values) = values else { continue };
            let per_iteration = values.len() > 1;
            for (i, &value) in values.iter().enumerate() {
                samples.push(SampleRecord {
                    build: e.build,
                    round: e.round,
                    execution: e.execution,
                    iteration: i,
                    value,
                    warmup: e.warmup
                        || (per_iteration && discarded.contains(&(e.build, e.execution, i))),
                });
            }
        }
        let time_resolution = match quantity {
            Quantity::Time => step.and_then(|s| Resolution::new(Seconds(s))),
            _ => None,
        };
        let executions = self
            .executions
            .iter()
            .map(|e| ExecutionRecord {
                resolution: time_resolution,
                ..e.clone()
            })
            .collect();
        let layout = Layout::new(self.layout.has_builds(), iterations);
        let level_names = self.level_names.as_ref().map(|names| {
            let own = self.layout.levels();
            layout
                .levels()
                .iter()
                .map(|l| {
                    own.iter()
                        .position(|o| o == l)
                        .and_then(|i| names.get(i).cloned())
                        .unwrap_or_else(|| l.name().to_string())
                })
                .collect()
        });
        Ok(Self {
            unit: TimeUnit::S,
            layout,
            level_names,
            analysis: None,
            samples,
            executions,
            steady_state: None,
            metric: Some(MetricRecord {
                metric: metric.clone(),
                quantity,
                step,
            }),
            ..self.clone()
        })
    }

    /// The work of one measured value: `--throughput`'s, else what the program declared through
    /// the metric `work-bytes` or `work-items` (rigor-bench's `Bench::throughput`), when every
    /// measured execution declared the same.
    pub fn work(&self) -> Option<rigor_units::Throughput> {
        if self.throughput.is_some() {
            return self.throughput;
        }
        let declared = |name: &str| {
            let mut values = self
                .executions
                .iter()
                .filter(|e| !e.warmup)
                .map(|e| e.metrics.get(name).and_then(|m| m.values.first().copied()));
            let first = values.next().flatten()?;
            values
                .all(|v| v == Some(first))
                .then_some(first)
                .filter(|v| *v > 0.0)
        };
        declared("work-bytes")
            .map(rigor_units::Throughput::Bytes)
            .or_else(|| declared("work-items").map(rigor_units::Throughput::Items))
    }

    /// The quantity of its samples: time, unless a metric says otherwise.
    pub fn quantity(&self) -> Quantity {
        self.metric
            .as_ref()
            .map_or(Quantity::Time, |m| m.quantity.clone())
    }

    /// The metric its samples are (wall time unless [`for_metric`](Self::for_metric) chose
    /// another).
    pub fn metric_of_samples(&self) -> Metric {
        self.metric
            .as_ref()
            .map_or(Metric::Wall, |m| m.metric.clone())
    }
}

impl ResultFile {
    /// The result with every benchmark's samples replaced by `metric`'s values (wall time:
    /// itself). A benchmark without the metric is left out, said in a [`Warning::NoMetric`];
    /// comparisons of the wall times are dropped.
    ///
    /// # Errors
    /// [`MetricError::NoneHave`] when no benchmark has the metric.
    pub fn for_metric(&self, metric: &Metric) -> Result<Self, MetricError> {
        if metric.is_wall() {
            return Ok(self.clone());
        }
        let mut out = Self {
            benchmarks: Vec::with_capacity(self.benchmarks.len()),
            comparisons: Vec::new(),
            suite: None,
            ..self.clone()
        };
        let mut first_error = None;
        for b in &self.benchmarks {
            match b.for_metric(metric) {
                Ok(m) => out.benchmarks.push(m),
                Err(e) => {
                    out.warnings.push(Warning::NoMetric {
                        benchmark: b.name.clone(),
                        reason: e.to_string(),
                    });
                    first_error.get_or_insert(e);
                }
            }
        }
        match (out.benchmarks.is_empty(), first_error) {
            (true, Some(first)) => Err(MetricError::NoneHave {
                metric: metric.clone(),
                first: Box::new(first),
            }),
            _ => Ok(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::schema::MetricValues;

    fn execution(i: usize, user: f64, sys: f64, rss: u64) -> ExecutionRecord {
        ExecutionRecord {
            preempted: None,
            run_delay: None,
            build: None,
            round: i,
            execution: i,
            warmup: i == 0,
            wall: Seconds(0.01),
            user: Seconds(user),
            sys: Seconds(sys),
            max_rss: rss,
            exit_code: None,
            env_pad: None,
            resolution: None,
            metrics: BTreeMap::new(),
        }
    }

    fn bench(executions: Vec<ExecutionRecord>) -> BenchmarkRecord {
        let mut b = BenchmarkRecord::new("b", "prog", Layout::EXECUTIONS);
        b.samples = executions
            .iter()
            .map(|e| SampleRecord {
                build: None,
                round: e.round,
                execution: e.execution,
                iteration: 0,
                value: e.wall.get(),
                warmup: e.warmup,
            })
            .collect();
        b.executions = executions;
        b
    }

    #[test]
    fn cpu_time_is_user_plus_system_per_execution() {
        let b = bench(
            (0..4)
                .map(|i| execution(i, 0.002 * i as f64, 0.001, 0))
                .collect(),
        );
        let cpu = b.for_metric(&Metric::Cpu).unwrap();
        let values: Vec<f64> = cpu.samples.iter().map(|s| s.value).collect();
        assert_eq!(values, vec![0.001, 0.003, 0.005, 0.007]);
        assert!(cpu.samples[0].warmup && !cpu.samples[1].warmup);
        assert_eq!(cpu.quantity(), Quantity::Time);
        assert_eq!(cpu.resolution().unwrap().step(), Seconds(1e-6));
        let user = b.for_metric(&Metric::System).unwrap();
        assert!(user.samples.iter().all(|s| s.value == 0.001));
        // Wall time is the benchmark itself.
        assert_eq!(b.for_metric(&Metric::Wall).unwrap(), b);
        assert!(b.metrics().contains(&Metric::Cpu));
        assert!(!b.metrics().contains(&Metric::PeakMemory));
    }

    #[test]
    fn user_and_system_times_move_in_ticks_their_sum_does_not() {
        // User times sampled in 4 ms ticks (scaled: 3.7, 7.2, 10.8 ms), their sums exact.
        let b = bench(
            [0.0, 0.0037, 0.0072, 0.0108, 0.0072]
                .iter()
                .enumerate()
                .map(|(i, u)| execution(i, *u, 0.0108 - u + 1e-6 * i as f64, 0))
                .collect(),
        );
        let user = b.for_metric(&Metric::User).unwrap();
        let step = user.metric.as_ref().unwrap().step.unwrap();
        assert!((step - 0.0035).abs() < 1e-9, "{step}");
        let cpu = b.for_metric(&Metric::Cpu).unwrap();
        assert_eq!(cpu.metric.as_ref().unwrap().step, Some(1e-6));
    }

    #[test]
    fn unknown_peak_memory_is_left_out_never_zero() {
        let b = bench(vec![
            execution(0, 0.1, 0.0, 8 << 20),
            execution(1, 0.1, 0.0, 0),
            execution(2, 0.1, 0.0, 64 << 20),
        ]);
        let m = b.for_metric(&Metric::PeakMemory).unwrap();
        let values: Vec<f64> = m.samples.iter().map(|s| s.value).collect();
        assert_eq!(values, vec![(8 << 20) as f64, (64 << 20) as f64]);
        assert_eq!(m.quantity(), Quantity::Bytes);
        assert_eq!(m.metric.as_ref().unwrap().step, Some(1024.0));
        let none = bench(vec![execution(0, 0.1, 0.0, 0), execution(1, 0.1, 0.0, 0)]);
        let err = none.for_metric(&Metric::PeakMemory).unwrap_err();
        assert!(
            err.to_string()
                .contains("when the run asked for --metric peak-memory"),
            "{err}"
        );
    }

    #[test]
    fn reported_metrics_per_execution_or_per_iteration() {
        let mut executions: Vec<ExecutionRecord> =
            (0..3).map(|i| execution(i, 0.1, 0.0, 0)).collect();
        for (i, e) in executions.iter_mut().enumerate() {
            e.metrics.insert(
                "allocations".into(),
                MetricValues {
                    unit: Quantity::Count,
                    values: vec![100.0 + i as f64, 200.0],
                },
            );
        }
        let b = bench(executions);
        let m = b
            .for_metric(&Metric::Reported("allocations".into()))
            .unwrap();
        assert!(m.layout.has_iterations());
        assert_eq!(m.samples.len(), 6);
        assert_eq!(m.samples[3].iteration, 1);
        // The first iteration of execution 1 was discarded (`--discard`): its allocation count
        // is warm-up too.
        let mut discarded = b.clone();
        discarded.samples.push(SampleRecord {
            build: None,
            round: 1,
            execution: 1,
            iteration: 0,
            value: 0.01,
            warmup: true,
        });
        let m2 = discarded
            .for_metric(&Metric::Reported("allocations".into()))
            .unwrap();
        let warm: Vec<bool> = m2.samples.iter().map(|s| s.warmup).collect();
        assert_eq!(warm, [true, true, true, false, false, false]);
        assert_eq!(m.metric.as_ref().unwrap().step, Some(1.0));
        let err = b.for_metric(&Metric::Reported("frees".into())).unwrap_err();
        assert!(
            err.to_string().contains("no execution reported it"),
            "{err}"
        );
        let err = b.for_metric(&Metric::Instructions).unwrap_err();
        assert!(err.to_string().contains("hardware counters"), "{err}");
    }

    #[test]
    fn the_work_of_a_value_is_the_options_or_what_every_execution_declared() {
        let declare = |e: &mut ExecutionRecord, v: f64| {
            e.metrics.insert(
                "work-bytes".into(),
                MetricValues {
                    unit: Quantity::Bytes,
                    values: vec![v],
                },
            );
        };
        let mut executions: Vec<ExecutionRecord> =
            (0..3).map(|i| execution(i, 0.1, 0.0, 0)).collect();
        executions.iter_mut().for_each(|e| declare(e, 4096.0));
        let mut b = bench(executions);
        assert_eq!(b.work(), Some(rigor_units::Throughput::Bytes(4096.0)));
        b.throughput = Some(rigor_units::Throughput::Items(10.0));
        assert_eq!(b.work(), Some(rigor_units::Throughput::Items(10.0)));
        b.throughput = None;
        declare(&mut b.executions[2], 8192.0);
        assert_eq!(b.work(), None, "executions that disagree declare nothing");
    }

    #[test]
    fn a_result_keeps_the_benchmarks_that_have_the_metric_and_says_which_do_not() {
        let with = bench(vec![
            execution(0, 0.1, 0.0, 1 << 30),
            execution(1, 0.1, 0.0, 1 << 30),
        ]);
        let mut without = bench(vec![execution(0, 0.1, 0.0, 0), execution(1, 0.1, 0.0, 0)]);
        without.name = "small".into();
        let mut r = ResultFile::new(
            rigor_units::Seed(1),
            rigor_units::ConfidenceLevel::default(),
        );
        r.benchmarks = vec![with, without.clone()];
        let m = r.for_metric(&Metric::PeakMemory).unwrap();
        assert_eq!(m.benchmarks.len(), 1);
        assert!(
            matches!(&m.warnings[0], Warning::NoMetric { benchmark, .. } if benchmark == "small")
        );
        r.benchmarks = vec![without];
        assert!(matches!(
            r.for_metric(&Metric::PeakMemory),
            Err(MetricError::NoneHave { .. })
        ));
    }
}
