//! The adaptive rule must keep the interval honest: over seeded repetitions of a simulated
//! benchmark with a known mean, the final 95% interval covers the truth 93–97% of the time, and
//! the plan follows the closed form.

use rigor_runner::{
    AdaptiveSettings, Benchmark, CommandLine, Observer, PilotSettings, Settings, SimulatedExecutor,
    StopReason, StopSignal, run_adaptive,
};
use rigor_runner::{RunError, Scheduler};
use rigor_stats::{Quantile, mean_interval};

struct Quiet;
impl Observer for Quiet {}

fn spec_bench(spec: &str) -> Benchmark {
    Benchmark::new(spec, CommandLine::parse(spec, false).unwrap())
}

fn adaptive(target: f64) -> AdaptiveSettings {
    AdaptiveSettings {
        target: Some(target),
        budget: None,
        level: 0.95,
        quantile: Quantile::StudentT,
        max_looks: 2,
        max_units: 10_000,
    }
}

fn small_pilot() -> PilotSettings {
    PilotSettings {
        executions: 10,
        iterations: 10,
        builds: 5,
        max_time: None,
    }
}

/// Runs one adaptive experiment and returns (covered, reached target, top units).
fn one(seed: u64, spec: &str, target: f64) -> (bool, bool, usize) {
    let benches = [spec_bench(spec)];
    let settings = Settings {
        executions: 10,
        warmup_executions: 0,
        seed,
        ..Settings::default()
    };
    let mut ex = SimulatedExecutor::new(seed);
    let mut main = Recorder::default();
    let report = run_adaptive(
        &benches,
        &settings,
        0,
        &small_pilot(),
        &adaptive(target),
        StopSignal::new(),
        &mut ex,
        &mut Quiet,
        &mut main,
    )
    .unwrap();
    let h = main.hierarchy();
    let ci = mean_interval(&h, 0.95, Quantile::StudentT).unwrap();
    let truth = 0.010;
    (
        ci.lower <= truth && truth <= ci.upper,
        report.reason == StopReason::PrecisionReached,
        h.units(0),
    )
}

#[derive(Default)]
struct Recorder(Vec<(usize, Vec<f64>)>);

impl Observer for Recorder {
    fn execution(&mut self, r: &rigor_runner::ExecutionRecord) -> Result<(), RunError> {
        if !r.warmup {
            self.0.push((
                r.execution,
                r.outcome.iterations.clone().unwrap_or_default(),
            ));
        }
        Ok(())
    }
}

impl Recorder {
    fn hierarchy(&self) -> rigor_stats::Hierarchy {
        let groups: Vec<Vec<f64>> = self.0.iter().map(|(_, v)| v.clone()).collect();
        rigor_stats::Hierarchy::two_level(["execution", "iteration"], &groups).unwrap()
    }
}

#[test]
fn adaptive_precision_keeps_coverage() {
    let reps = if cfg!(debug_assertions) { 600 } else { 2000 };
    let spec = "mean=10ms,execution=3%,iteration=2%,iterations=10,startup=20ms";
    let (mut covered, mut reached) = (0, 0);
    for seed in 0..reps {
        let (c, r, _) = one(seed, spec, 0.01);
        covered += usize::from(c);
        reached += usize::from(r);
    }
    let coverage = covered as f64 / reps as f64;
    let reach = reached as f64 / reps as f64;
    eprintln!("adaptive ±1%: coverage {coverage:.3}, target reached {reach:.3} over {reps} seeds");
    // Binomial standard error at 95% is 0.9% for 600 repetitions: 93–97% is about ±2.2 SE.
    assert!((0.93..=0.97).contains(&coverage), "coverage {coverage}");
    assert!(reach >= 0.9, "target reached in {reach}");
}

#[test]
fn plan_follows_the_closed_form_and_the_variance() {
    // Execution variance dominates (like lusearch): one iteration per execution.
    let settings = Settings {
        executions: 10,
        seed: 1,
        ..Settings::default()
    };
    let pilot = PilotSettings {
        executions: 60,
        iterations: 30,
        builds: 5,
        max_time: None,
    };
    let plan_of = |spec: &str| {
        let mut ex = SimulatedExecutor::new(7);
        let plans = rigor_runner::dimension(
            &[spec_bench(spec)],
            &settings,
            0,
            &pilot,
            StopSignal::new(),
            &mut ex,
            &mut Quiet,
        )
        .unwrap();
        plans.plans.into_iter().next().unwrap().unwrap()
    };
    let lusearch = plan_of("mean=10ms,execution=30.3%,iteration=3.3%,iterations=30,startup=50ms");
    assert_eq!(lusearch.count("iteration"), Some(1), "{:?}", lusearch.plan);
    // Iteration variance dominates (like bloat6): many iterations per execution.
    let bloat = plan_of("mean=10ms,execution=3.7%,iteration=14.1%,iterations=30,startup=50ms");
    let k = bloat.count("iteration").unwrap();
    assert!(k >= 10, "bloat-like plan takes {k} iterations");
    // The count is the closed form on the pilot's own estimates.
    let c = &bloat.costs;
    let t2 = bloat.components.t2();
    let closed = ((c[0] / c[1]) * (t2[1] / t2[0])).sqrt().ceil() as usize;
    assert_eq!(k, closed.max(1));
    // Costs: the start-up is charged to executions, iterations cost their mean time.
    assert!((c[0] - 0.05).abs() < 0.005, "execution cost {}", c[0]);
    assert!((c[1] - 0.01).abs() < 0.001, "iteration cost {}", c[1]);
}

#[test]
fn budget_stops_the_experiment() {
    let benches = [spec_bench(
        "mean=10ms,execution=30%,iteration=1%,iterations=5",
    )];
    let settings = Settings {
        executions: 10,
        seed: 3,
        ..Settings::default()
    };
    let a = AdaptiveSettings {
        target: Some(0.001),
        budget: Some(5.0),
        ..adaptive(0.001)
    };
    let mut ex = SimulatedExecutor::new(3);
    let report = run_adaptive(
        &benches,
        &settings,
        0,
        &small_pilot(),
        &a,
        StopSignal::new(),
        &mut ex,
        &mut Quiet,
        &mut Quiet,
    )
    .unwrap();
    assert_eq!(report.reason, StopReason::BudgetSpent);
    assert!(
        report.pilot_seconds + report.main_seconds <= 5.0 + 0.2,
        "{} + {}",
        report.pilot_seconds,
        report.main_seconds
    );
}

#[test]
fn scheduler_stops_when_the_observer_says_so() {
    struct StopAfter(usize);
    impl Observer for StopAfter {
        fn round_finished(&mut self, round: usize) -> Result<rigor_runner::Control, RunError> {
            Ok(if round + 1 >= self.0 {
                rigor_runner::Control::Stop
            } else {
                rigor_runner::Control::Continue
            })
        }
    }
    let benches = [spec_bench("mean=1ms")];
    let settings = Settings {
        executions: 50,
        seed: 1,
        ..Settings::default()
    };
    let mut ex = SimulatedExecutor::new(1);
    let report = Scheduler::new(&benches, &settings, StopSignal::new())
        .run(&mut ex, &mut StopAfter(7))
        .unwrap();
    assert_eq!(report.ending, rigor_runner::Ending::Stopped);
}
