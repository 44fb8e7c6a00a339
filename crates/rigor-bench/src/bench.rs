//! [`Bench`]: what a benchmark function receives, and the sampling loop behind `iter`.

use std::hint::black_box;
use std::io;

use rigor_protocol::{Metric, MetricSample, Resolution, Sample, SampleWriter, Seconds, TimeUnit};
use serde::{Deserialize, Serialize};

use crate::alloc::{AllocSnapshot, AllocsPerIter};
use crate::cycles::SystemClock;
use crate::evals::{EvalsOracle, MAX_J, Tuning, tune_until};
use crate::timer::{Calibration, Clock};

/// How much work one iteration does, to report a rate beside the time (as criterion's
/// `Throughput`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Throughput {
    /// Bytes processed per iteration (reported in bytes per second).
    Bytes(u64),
    /// Elements processed per iteration (reported in elements per second).
    Elements(u64),
}

/// What to do with a benchmark: set by the harness from its command line and environment.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Plan {
    /// Evaluations per sample; `None`: tune them (Chen & Revels 2016).
    pub evals: Option<u64>,
    /// Samples to collect (after tuning).
    pub samples: usize,
    /// Stop collecting once this much time (ns) was sampled, with at least `min_samples`.
    pub max_time_ns: Option<f64>,
    /// Fewest samples when `max_time_ns` stops collection early.
    pub min_samples: usize,
    /// Time (ns) spent running the routine before tuning and sampling.
    pub warm_up_ns: f64,
    /// Only tune: collect no samples.
    pub tune_only: bool,
    /// Count allocations (the counting allocator is installed).
    pub count_allocs: bool,
}

/// What a benchmark measured.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Measurement {
    /// The tuning, when evaluations were tuned in this process.
    pub tuning: Option<Tuning>,
    /// Evaluations per sample used.
    pub evals: u64,
    /// Time per evaluation of each sample (ns), the timer's overhead subtracted.
    pub samples_ns: Vec<f64>,
    /// The step the samples move in: the timer's resolution divided by the evaluations per
    /// sample (`None` when the timer's resolution is unknown).
    pub resolution: Option<Resolution>,
    /// Allocations per iteration, when the counting allocator is installed.
    pub allocs: Option<AllocsPerIter>,
    /// The throughput declared by the benchmark.
    pub throughput: Option<Throughput>,
}

/// One timed batch: raw elapsed time and what was allocated inside it.
struct Timing {
    ns: f64,
    allocs: AllocSnapshot,
}

/// Handed to every benchmark function: declare the throughput, then time a routine with
/// [`iter`](Bench::iter) or [`iter_batched`](Bench::iter_batched) (once per function).
pub struct Bench<'a, C: Clock = SystemClock> {
    clock: C,
    calibration: Calibration,
    plan: Plan,
    writer: Option<&'a mut SampleWriter>,
    measurement: Measurement,
    error: Option<io::Error>,
    used: bool,
}

impl<'a, C: Clock> Bench<'a, C> {
    pub(crate) fn new(
        clock: C,
        calibration: Calibration,
        plan: Plan,
        writer: Option<&'a mut SampleWriter>,
    ) -> Self {
        Self {
            clock,
            calibration,
            plan,
            writer,
            measurement: Measurement::default(),
            error: None,
            used: false,
        }
    }

    /// Declares how much work one iteration does; the report adds a rate.
    pub fn throughput(&mut self, throughput: Throughput) -> &mut Self {
        self.measurement.throughput = Some(throughput);
        self
    }

    /// Times `routine`: many evaluations back to back per sample. Its result is passed through
    /// [`black_box`] (so it is not optimised away) and dropped inside the timing; wrap the
    /// routine's inputs in [`black_box`] too, so they are not constant-folded.
    pub fn iter<O>(&mut self, mut routine: impl FnMut() -> O) {
        self.measure(|clock, evals| {
            let before = AllocSnapshot::now();
            let start = clock.now();
            for _ in 0..evals {
                black_box(routine());
            }
            let end = clock.now();
            Timing {
                ns: clock.ns_between(start, end),
                allocs: before.until(AllocSnapshot::now()),
            }
        });
    }

    /// Times `routine` on inputs made by `setup`, which is not timed: each sample first makes one
    /// input per evaluation, then times the routine over them; the outputs are dropped after the
    /// timing. For routines that consume or mutate their input (sorting a vector).
    pub fn iter_batched<I, O>(
        &mut self,
        mut setup: impl FnMut() -> I,
        mut routine: impl FnMut(I) -> O,
    ) {
        self.measure(|clock, evals| {
            let inputs: Vec<I> = (0..evals).map(|_| setup()).collect();
            let mut outputs = Vec::with_capacity(inputs.len());
            let before = AllocSnapshot::now();
            let start = clock.now();
            for input in inputs {
                outputs.push(black_box(routine(black_box(input))));
            }
            let end = clock.now();
            let allocs = before.until(AllocSnapshot::now());
            drop(outputs);
            Timing {
                ns: clock.ns_between(start, end),
                allocs,
            }
        });
    }

    pub(crate) fn finish(self) -> Result<Measurement, crate::HarnessError> {
        if let Some(e) = self.error {
            return Err(crate::HarnessError::Samples(e));
        }
        if !self.used {
            return Err(crate::HarnessError::NothingTimed {
                name: String::new(),
            });
        }
        Ok(self.measurement)
    }

    /// Warm-up, tuning, allocation count and samples, over one timing function.
    fn measure(&mut self, mut time: impl FnMut(&C, u64) -> Timing) {
        if std::mem::replace(&mut self.used, true) {
            return; // A second `iter` in one function: the first one's measurement stands.
        }
        self.warm_up(&mut time);
        let evals = match self.plan.evals {
            Some(evals) => evals.max(1),
            None => {
                let tuning = self.tune(&mut time);
                self.measurement.tuning = Some(tuning);
                tuning.evals
            }
        };
        self.measurement.evals = evals;
        if self.plan.count_allocs {
            let t = time(&self.clock, evals);
            self.measurement.allocs = Some(AllocsPerIter {
                allocations: t.allocs.allocations as f64 / evals as f64,
                bytes: t.allocs.bytes as f64 / evals as f64,
            });
        }
        if !self.plan.tune_only {
            self.sample(&mut time, evals);
        }
    }

    fn warm_up(&mut self, time: &mut impl FnMut(&C, u64) -> Timing) {
        let mut spent = 0.0;
        let mut evals = 1;
        while spent < self.plan.warm_up_ns {
            spent += time(&self.clock, evals).ns;
            evals = (evals * 2).min(MAX_J);
        }
    }

    /// Chen & Revels' tuning: T_i for i = 1, 2, … up to j = 1000, stopping once a timing is
    /// 1,000 times the timer's error (longer ones cannot change the estimate by more than 0.1%).
    fn tune(&mut self, time: &mut impl FnMut(&C, u64) -> Timing) -> Tuning {
        let long_ns = 1000.0 * self.calibration.accuracy_ns();
        let clock = &self.clock;
        tune_until(
            MAX_J,
            long_ns,
            |i| time(clock, i).ns,
            &EvalsOracle::BenchmarkTools,
        )
        .expect("timings are finite and non-negative, and at least one is taken")
    }

    fn sample(&mut self, time: &mut impl FnMut(&C, u64) -> Timing, evals: u64) {
        let overhead = self.calibration.overhead_ns;
        let resolution = Resolution::per_evaluation(
            Seconds::from_unit(self.calibration.resolution_ns, TimeUnit::Ns),
            evals,
        );
        self.measurement.resolution = resolution;
        let mut spent = 0.0;
        for n in 0..self.plan.samples {
            let t = time(&self.clock, evals);
            spent += t.ns;
            let per_eval = (t.ns - overhead).max(0.0) / evals as f64;
            self.measurement.samples_ns.push(per_eval);
            if let Some(w) = self.writer.as_deref_mut() {
                let mut sample = Sample::new(per_eval, TimeUnit::Ns);
                if resolution.is_some() {
                    // In ns as calibrated (τ/ν), not through seconds and back.
                    sample = sample.with_resolution(self.calibration.resolution_ns / evals as f64);
                }
                let mut written = w.record(sample);
                if self.plan.count_allocs && written.is_ok() {
                    written = record_allocations(w, t.allocs, evals);
                }
                if let Err(e) = written {
                    self.error = Some(e);
                    return;
                }
            }
            let enough = n + 1 >= self.plan.min_samples;
            if enough && self.plan.max_time_ns.is_some_and(|max| spent >= max) {
                return;
            }
        }
    }
}

/// The name of the allocations per evaluation each sample reports under rigor, a count.
pub const ALLOCATIONS_METRIC: &str = "allocations";
/// The name of the bytes allocated per evaluation each sample reports under rigor.
pub const ALLOCATED_BYTES_METRIC: &str = "allocated-bytes";

/// Writes what one sample allocated, per evaluation (as its time is), as the metrics
/// [`ALLOCATIONS_METRIC`] (a count) and [`ALLOCATED_BYTES_METRIC`] (bytes).
fn record_allocations(w: &mut SampleWriter, allocs: AllocSnapshot, evals: u64) -> io::Result<()> {
    let per_eval = |n: u64| n as f64 / evals as f64;
    w.record_metric(&MetricSample::count(
        Metric::Reported(ALLOCATIONS_METRIC.into()),
        per_eval(allocs.allocations),
    ))?;
    w.record_metric(&MetricSample::bytes(
        Metric::Reported(ALLOCATED_BYTES_METRIC.into()),
        per_eval(allocs.bytes),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evals::benchmarktools_evals;
    use crate::timer::{calibrate, fake::FakeClock};

    fn plan(evals: Option<u64>) -> Plan {
        Plan {
            evals,
            samples: 50,
            max_time_ns: None,
            min_samples: 10,
            warm_up_ns: 10_000.0,
            tune_only: false,
            count_allocs: false,
        }
    }

    /// Runs a routine costing `cost_ns` per evaluation on a clock costing `read_ns` per reading.
    fn measure_known(cost_ns: u64, read_ns: u64, plan: Plan) -> Measurement {
        let clock = FakeClock::new(read_ns);
        let calibration = calibrate(&clock);
        let mut b = Bench::new(&clock, calibration, plan, None);
        b.iter(|| clock.advance(cost_ns));
        b.finish().unwrap()
    }

    #[test]
    fn timer_overhead_is_subtracted_exactly() {
        // A 3 ns routine timed with a clock that costs 40 ns per reading: without subtracting
        // the overhead a sample of 1 evaluation would read 43 ns, of 1000 evaluations 3.04 ns.
        for evals in [1, 7, 1000] {
            let m = measure_known(3, 40, plan(Some(evals)));
            assert_eq!(m.evals, evals);
            assert_eq!(m.samples_ns.len(), 50);
            assert!(m.samples_ns.iter().all(|&s| s == 3.0), "{evals}: {m:?}");
        }
        // An empty routine reads zero, never negative.
        let m = measure_known(0, 40, plan(Some(10)));
        assert!(m.samples_ns.iter().all(|&s| s == 0.0), "{m:?}");
    }

    #[test]
    fn tuning_follows_the_oracle_for_known_costs() {
        // Per-evaluation estimate t̂ = min T_i/i = cost + overhead/i; the oracle's spot values
        // (Chen & Revels 2016; BenchmarkTools' table) at the resulting t̂.
        // Costs are chosen so that ⌈t̂⌉ lands on the table's spot values 1 (as 2), 100, 200, 400,
        // 800 and 1000 ns; a 20 µs routine is evaluated once per sample.
        let cases = [
            (1, 1000),
            (99, 944),
            (199, 600),
            (399, 200),
            (799, 94),
            (999, 10),
            (20_000, 1),
        ];
        for (cost, expected) in cases {
            let m = measure_known(cost, 20, plan(None));
            let t = m.tuning.unwrap();
            assert_eq!(t.evals, benchmarktools_evals(t.per_eval_ns), "{cost}");
            assert_eq!(m.evals, expected, "cost {cost} ns: {t:?}");
            assert!(m.samples_ns.iter().all(|&s| s == cost as f64));
        }
    }

    #[test]
    fn a_time_limit_stops_sampling_after_the_minimum() {
        let mut p = plan(Some(1));
        p.max_time_ns = Some(1.0);
        assert_eq!(measure_known(5, 1, p).samples_ns.len(), 10);
        let mut p = plan(Some(1));
        p.tune_only = true;
        assert!(measure_known(5, 1, p).samples_ns.is_empty());
    }

    #[test]
    fn batched_setup_is_not_timed() {
        let clock = FakeClock::new(10);
        let calibration = calibrate(&clock);
        let mut b = Bench::new(&clock, calibration, plan(Some(20)), None);
        b.iter_batched(
            || {
                clock.advance(1_000); // set-up: expensive, untimed
                5u64
            },
            |x| clock.advance(x),
        );
        let m = b.finish().unwrap();
        assert!(m.samples_ns.iter().all(|&s| s == 5.0), "{m:?}");
    }

    #[test]
    fn samples_reach_the_protocol_file_as_measured() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples");
        let mut w = SampleWriter::open(&path).unwrap();
        let clock = FakeClock::new(10);
        let calibration = calibrate(&clock);
        let mut b = Bench::new(&clock, calibration, plan(Some(4)), Some(&mut w));
        b.iter(|| clock.advance(250));
        b.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let samples = rigor_protocol::read_samples(&text).unwrap();
        let values = &samples.values;
        assert_eq!(values.len(), 50);
        assert!(
            values.iter().all(|v| (v.0 - 250e-9).abs() < 1e-18),
            "{values:?}"
        );
        // The clock's 10 ns step over 4 evaluations: every sample moves in steps of 2.5 ns.
        let step = samples.resolution.unwrap().step().get();
        assert!((step - 2.5e-9).abs() < 1e-21, "{step}");
        assert!(text.contains("\"resolution\":2.5}"), "{text}");
    }

    #[test]
    fn allocations_per_evaluation_reach_the_protocol_file_as_metrics() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples");
        let mut w = SampleWriter::open(&path).unwrap();
        let clock = FakeClock::new(10);
        let calibration = calibrate(&clock);
        let counting = Plan {
            count_allocs: true,
            ..plan(Some(4))
        };
        let mut b = Bench::new(&clock, calibration, counting, Some(&mut w));
        // Counted as the installed allocator would: 3 allocations of 16 bytes per evaluation.
        b.iter(|| {
            for _ in 0..3 {
                crate::alloc::count(16);
            }
            clock.advance(250)
        });
        b.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let samples = rigor_protocol::read_samples(&text).unwrap();
        assert_eq!(samples.values.len(), 50);
        let allocations = &samples.metrics[ALLOCATIONS_METRIC];
        assert_eq!(allocations.unit, rigor_protocol::Quantity::Count);
        // One value per sample, per evaluation (the sample's 12 divided by its 4 evaluations).
        assert_eq!(allocations.values, vec![3.0; 50]);
        let bytes = &samples.metrics[ALLOCATED_BYTES_METRIC];
        assert_eq!(bytes.unit, rigor_protocol::Quantity::Bytes);
        assert_eq!(bytes.values, vec![48.0; 50]);
        // Without the counting allocator, no metric lines.
        let path = dir.path().join("plain");
        let mut w = SampleWriter::open(&path).unwrap();
        let mut b = Bench::new(&clock, calibrate(&clock), plan(Some(4)), Some(&mut w));
        b.iter(|| clock.advance(250));
        b.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("metric"), "{text}");
    }

    #[test]
    fn a_function_that_times_nothing_is_an_error() {
        let clock = FakeClock::new(10);
        let b = Bench::new(&clock, calibrate(&clock), plan(None), None);
        assert!(matches!(
            b.finish(),
            Err(crate::HarnessError::NothingTimed { .. })
        ));
    }
}
