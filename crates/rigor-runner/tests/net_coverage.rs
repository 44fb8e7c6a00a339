//! The net-of-shell interval must be honest: over seeded repetitions of a simulated command
//! (5 ms) and a simulated empty shell (1 ms) measured in the same rounds, the 95% interval of
//! the net mean covers the true 4 ms 93–97% of the time. Subtracting the shell's mean as a
//! point estimate, as hyperfine does, keeps only the command's variance and covers far less.

use rigor_runner::{
    Benchmark, CommandLine, ExecutionRecord, Observer, RunError, Scheduler, Settings,
    SimulatedExecutor, StopSignal,
};
use rigor_stats::{Hierarchy, MeanEstimate, Quantile, critical_value, net_mean};
use rigor_units::Seed;

/// Wall times per benchmark.
#[derive(Default)]
struct Walls(Vec<Vec<f64>>);

impl Observer for Walls {
    fn execution(&mut self, r: &ExecutionRecord) -> Result<(), RunError> {
        if self.0.len() <= r.benchmark {
            self.0.resize(r.benchmark + 1, Vec::new());
        }
        if !r.warmup {
            self.0[r.benchmark].push(r.outcome.wall.get());
        }
        Ok(())
    }
}

#[test]
fn the_net_interval_covers_the_truth_and_a_point_subtraction_does_not() {
    let spec = |s: &str| Benchmark::new(s, CommandLine::parse(s, false).unwrap());
    // The shell's start-up varies as much as the command does (both 0.4 ms).
    let benches = [
        spec("mean=5ms,execution=8%"),
        spec("mean=1ms,execution=40%"),
    ];
    let truth = 4e-3;
    let reps = 1000;
    let (mut honest, mut point) = (0, 0);
    for seed in 0..reps {
        let settings = Settings {
            executions: 8,
            warmup_executions: 0,
            seed: Seed(seed),
            ..Settings::default()
        };
        let mut walls = Walls::default();
        let mut ex = SimulatedExecutor::new(Seed(seed));
        Scheduler::new(&benches, &settings, StopSignal::new())
            .run(&mut ex, &mut walls)
            .unwrap();
        let gross = Hierarchy::flat("execution", walls.0[0].clone()).unwrap();
        let shell = Hierarchy::flat("execution", walls.0[1].clone()).unwrap();
        let net = net_mean(&gross, &shell, 0.95, Quantile::StudentT).unwrap();
        honest += usize::from(net.lower <= truth && truth <= net.upper);
        // hyperfine's way: the command's own t interval, shifted by the shell's mean.
        let g = MeanEstimate::from_hierarchy(&gross).unwrap();
        let s = MeanEstimate::from_hierarchy(&shell).unwrap();
        let half = critical_value(0.95, (g.n - 1) as f64, Quantile::StudentT).unwrap()
            * g.var_of_mean().sqrt();
        let shifted = g.mean - s.mean;
        point += usize::from((shifted - truth).abs() <= half);
    }
    let honest = honest as f64 / reps as f64;
    let point = point as f64 / reps as f64;
    assert!(
        (0.93..=0.97).contains(&honest),
        "net interval coverage {honest}"
    );
    assert!(point < 0.90, "point subtraction coverage {point}");
}
