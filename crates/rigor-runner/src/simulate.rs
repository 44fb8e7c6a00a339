//! A simulated executor with known variance components, for tests, teaching and validation.
//!
//! Each benchmarked "command" is a specification such as
//! `mean=10ms,execution=3%,iteration=1%,iterations=20`: every execution draws an execution effect
//! `N(0, σ_execution²)`, then each iteration adds `N(0, σ_iteration²)`. Spreads are absolute times
//! (`0.2ms`) or percentages of the mean (`3%`). No process is spawned and no clock is read, so runs
//! are exactly reproducible from the seed.
//!
//! Keys: `mean` (required), `build`, `execution`, `iteration` (spreads, default 0), `iterations`
//! (per execution; 0 or absent = wall time only; `RIGOR_ITERATIONS` in the request's environment
//! overrides it, as a real benchmark honouring rigor's plan would), `startup` (cost of starting an
//! execution, added to its wall time, default 0), `build_time` (seconds one build takes, default
//! 1s), `slow` (extra time of each of the first `warm` iterations of an execution, e.g. `30%`),
//! `warm` (number of such slow iterations), `tail` (mean of an exponentially distributed extra
//! time of each execution, e.g. `20%`: right-skewed execution means, as real machines give), `ar` (AR(1) coefficient of the iteration noise, so
//! iterations are correlated: never independent for large values), `drift` (relative slowdown per execution of the whole experiment, e.g.
//! `0.1%`, shared by all benchmarks so that interleaving can cancel it), `fail` (this 1-based
//! execution exits with code 1), `hang` (this execution times out), `garbage` (this execution's
//! reported iteration times are unreadable), `scale` (a factor on every time above but the build's
//! duration, as a slower version or a loaded machine would give: `rigor track run --simulate`
//! appends it for each version's true level and each session's shift).

use std::collections::HashMap;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rigor_units::{Seconds, Seed, TimeUnit};

use crate::command::CommandLine;
use crate::error::RunError;
use crate::executor::{
    BuildRequest, ExecutionOutcome, ExecutionRequest, Executor, HookRequest, Termination,
};

/// A parsed simulation specification.
#[derive(Debug, Clone, PartialEq)]
pub struct SimSpec {
    /// True mean of one measurement, seconds.
    pub mean: f64,
    /// Standard deviation of the build effect, seconds.
    pub build_sd: f64,
    /// Seconds one build takes.
    pub build_time: f64,
    /// Extra time of each warm-up iteration, seconds.
    pub slow: f64,
    /// Number of slow warm-up iterations at the start of each execution.
    pub warm: usize,
    /// AR(1) coefficient of the iteration noise (0: independent iterations).
    pub ar: f64,
    /// Standard deviation of the execution effect, seconds.
    pub execution_sd: f64,
    /// Standard deviation of iteration noise, seconds.
    pub iteration_sd: f64,
    /// Mean of the exponential extra time of each execution, seconds (0: none).
    pub tail: f64,
    /// Iterations reported per execution (0: wall time only).
    pub iterations: usize,
    /// Start-up cost added to each execution's wall time, seconds.
    pub startup: f64,
    /// Relative slowdown per execution of the experiment.
    pub drift: f64,
    /// 1-based execution that fails.
    pub fail: Option<usize>,
    /// 1-based execution that hangs until the timeout.
    pub hang: Option<usize>,
    /// 1-based execution whose iteration output is garbage.
    pub garbage: Option<usize>,
}

impl SimSpec {
    /// Parses `key=value,...`.
    pub fn parse(spec: &str) -> Result<Self, RunError> {
        let bad = |reason: String| RunError::BadSimulation {
            spec: spec.to_string(),
            reason,
        };
        let mut map = HashMap::new();
        for part in spec.split([',', ' ']).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("'{part}' is not key=value")))?;
            map.insert(k.trim(), v.trim());
        }
        let mean_text = map
            .remove("mean")
            .ok_or_else(|| bad("'mean' is required".into()))?;
        let mean = parse_time(mean_text, None).map_err(&bad)?;
        if mean <= 0.0 {
            return Err(bad("mean must be positive".into()));
        }
        let mut take_time = |key: &str| -> Result<f64, RunError> {
            map.remove(key)
                .map_or(Ok(0.0), |v| parse_time(v, Some(mean)).map_err(&bad))
        };
        let build_sd = take_time("build")?;
        let slow = take_time("slow")?;
        let execution_sd = take_time("execution")?;
        let iteration_sd = take_time("iteration")?;
        let startup = take_time("startup")?;
        let tail = take_time("tail")?;
        let ar = match map.remove("ar") {
            Some(v) => match v.parse::<f64>() {
                Ok(a) if (0.0..1.0).contains(&a) => a,
                _ => return Err(bad(format!("ar={v} must lie in [0, 1)"))),
            },
            None => 0.0,
        };
        let build_time = match map.remove("build_time") {
            Some(v) => parse_time(v, None).map_err(&bad)?,
            None => 1.0,
        };
        let scale = match map.remove("scale") {
            Some(v) => match v.parse::<f64>() {
                Ok(f) if f.is_finite() && f > 0.0 => f,
                _ => return Err(bad(format!("scale={v} must be a positive number"))),
            },
            None => 1.0,
        };
        let drift = match map.remove("drift") {
            Some(v) => parse_time(v, Some(1.0)).map_err(&bad)?,
            None => 0.0,
        };
        let mut take_count = |key: &str| -> Result<Option<usize>, RunError> {
            map.remove(key)
                .map(|v| {
                    v.parse::<usize>()
                        .map_err(|_| bad(format!("{key}={v} is not a whole number")))
                })
                .transpose()
        };
        let iterations = take_count("iterations")?.unwrap_or(0);
        let warm = take_count("warm")?.unwrap_or(0);
        let fail = take_count("fail")?;
        let hang = take_count("hang")?;
        let garbage = take_count("garbage")?;
        if let Some(k) = map.keys().next() {
            return Err(bad(format!("unknown key '{k}'")));
        }
        Ok(Self {
            mean: mean * scale,
            build_sd: build_sd * scale,
            build_time,
            slow: slow * scale,
            warm,
            ar,
            execution_sd: execution_sd * scale,
            iteration_sd: iteration_sd * scale,
            tail: tail * scale,
            iterations,
            startup: startup * scale,
            drift,
            fail,
            hang,
            garbage,
        })
    }
}

/// Parses `10ms`, `2.5us`, `1e-3` (seconds) or, when `relative_to` is given, `3%`.
fn parse_time(text: &str, relative_to: Option<f64>) -> Result<f64, String> {
    let number = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
    if let (Some(p), Some(base)) = (text.strip_suffix('%'), relative_to) {
        return number(p)
            .map(|v| v / 100.0 * base)
            .ok_or(format!("'{text}' is not a percentage"));
    }
    // A unit suffix is whatever follows the number (`1e-3` has none: the exponent's `e` is
    // followed by digits).
    let split = text
        .rfind(|c: char| c.is_ascii_digit() || c == '.')
        .map_or(0, |i| i + 1);
    let (value, suffix) = text.split_at(split);
    let unit = if suffix.is_empty() {
        TimeUnit::S
    } else {
        suffix
            .parse::<TimeUnit>()
            .map_err(|_| format!("'{text}' is not a time"))?
    };
    number(value)
        .map(|v| unit.to_seconds(v))
        .ok_or(format!("'{text}' is not a time"))
}

/// Produces measurements from [`SimSpec`]s instead of running processes.
#[derive(Debug)]
pub struct SimulatedExecutor {
    rng: ChaCha8Rng,
    /// Parsed specs by benchmark and command text: an executor that runs several experiments in
    /// turn (the batches of `rigor track run --simulate`) sees other commands at one index.
    specs: HashMap<(usize, String), SimSpec>,
    executions: HashMap<usize, usize>,
    builds: HashMap<(usize, usize), f64>,
    clock: usize,
}

impl SimulatedExecutor {
    /// A simulator whose random draws all come from `seed` (a [`Seed`] or a plain `u64`).
    pub fn new(seed: impl Into<Seed>) -> Self {
        Self {
            rng: ChaCha8Rng::seed_from_u64(seed.into().get()),
            specs: HashMap::new(),
            executions: HashMap::new(),
            builds: HashMap::new(),
            clock: 0,
        }
    }

    fn spec(&mut self, benchmark: usize, command: &CommandLine) -> Result<SimSpec, RunError> {
        let text = command.text();
        if let Some(s) = self.specs.get(&(benchmark, text.clone())) {
            return Ok(s.clone());
        }
        let spec = SimSpec::parse(&text)?;
        self.specs.insert((benchmark, text), spec.clone());
        Ok(spec)
    }

    fn normal(&mut self, sd: f64) -> f64 {
        if sd == 0.0 {
            return 0.0;
        }
        Normal::new(0.0, sd).map_or(0.0, |n| n.sample(&mut self.rng))
    }
}

fn outcome(wall: f64, termination: Termination, stderr: &str) -> ExecutionOutcome {
    ExecutionOutcome {
        preempted: None,
        run_delay: None,
        metrics: Default::default(),
        wall: Seconds::new(wall),
        user: Seconds::new(wall),
        sys: Seconds::ZERO,
        max_rss: 0,
        termination,
        stderr_tail: stderr.to_string(),
        iterations: None,
        resolution: None,
        iteration_error: None,
    }
}

impl Executor for SimulatedExecutor {
    fn execute(&mut self, req: &ExecutionRequest<'_>) -> Result<ExecutionOutcome, RunError> {
        let spec = self.spec(req.benchmark, req.command)?;
        let n = {
            let e = self.executions.entry(req.benchmark).or_insert(0);
            *e += 1;
            *e
        };
        self.clock += 1;
        if spec.fail == Some(n) {
            return Ok(outcome(
                spec.startup,
                Termination::Exited { code: 1 },
                "simulated failure\n",
            ));
        }
        if spec.hang == Some(n) {
            let limit = req.timeout.map_or(f64::INFINITY, |t| t.as_secs_f64());
            return Ok(outcome(limit, Termination::TimedOut, ""));
        }
        let scale = 1.0 + spec.drift * (self.clock - 1) as f64;
        let build_effect = req
            .build
            .and_then(|k| self.builds.get(&(req.benchmark, k)).copied())
            .unwrap_or(0.0);
        let mut level = spec.mean + build_effect + self.normal(spec.execution_sd);
        if spec.tail > 0.0 {
            // Drawn only when asked for, so that other specifications keep their numbers.
            level += rand_distr::Exp::new(1.0 / spec.tail).map_or(0.0, |e| e.sample(&mut self.rng));
        }
        let iterations = req
            .env
            .iter()
            .find(|(k, _)| k == rigor_protocol::ITERATIONS_ENV)
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(spec.iterations);
        if iterations == 0 {
            let value = (level + self.normal(spec.iteration_sd)) * scale;
            return Ok(outcome(
                spec.startup + value,
                Termination::Exited { code: 0 },
                "",
            ));
        }
        // AR(1) noise with the stationary spread of the iteration noise.
        let innovation = spec.iteration_sd * (1.0 - spec.ar * spec.ar).sqrt();
        let mut noise = self.normal(spec.iteration_sd);
        let values: Vec<f64> = (0..iterations)
            .map(|i| {
                if i > 0 {
                    noise = spec.ar * noise + self.normal(innovation);
                }
                let warm = if i < spec.warm { spec.slow } else { 0.0 };
                (level + warm + noise) * scale
            })
            .collect();
        let mut o = outcome(
            spec.startup + values.iter().sum::<f64>(),
            Termination::Exited { code: 0 },
            "",
        );
        if spec.garbage == Some(n) {
            o.iteration_error = Some("simulated garbage output".into());
        } else {
            o.iterations = Some(values);
        }
        Ok(o)
    }

    fn build(&mut self, req: &BuildRequest<'_>) -> Result<ExecutionOutcome, RunError> {
        let spec = self.spec(req.benchmark, req.command_of_benchmark)?;
        let effect = self.normal(spec.build_sd);
        self.builds.insert((req.benchmark, req.build), effect);
        Ok(outcome(
            spec.build_time,
            Termination::Exited { code: 0 },
            "",
        ))
    }

    fn run_hook(&mut self, _: &HookRequest<'_>) -> Result<ExecutionOutcome, RunError> {
        Ok(outcome(0.0, Termination::Exited { code: 0 }, ""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_specs() {
        let s =
            SimSpec::parse("mean=10ms,execution=3%,iteration=0.1ms,iterations=20,fail=3").unwrap();
        assert_eq!(s.mean, 0.01);
        assert!((s.execution_sd - 3e-4).abs() < 1e-15);
        assert!((s.iteration_sd - 1e-4).abs() < 1e-15);
        assert_eq!((s.iterations, s.fail), (20, Some(3)));
        assert!(SimSpec::parse("execution=1ms").is_err());
        assert!(
            SimSpec::parse("mean=1ms,colour=red")
                .unwrap_err()
                .to_string()
                .contains("colour")
        );
        assert!(SimSpec::parse("mean=-1").is_err());
        // A scale multiplies every time, percentages taken of the unscaled mean first.
        let scaled = SimSpec::parse("mean=10ms,execution=3%,startup=1ms,scale=1.5").unwrap();
        assert!((scaled.mean - 0.015).abs() < 1e-15);
        assert!((scaled.execution_sd - 4.5e-4).abs() < 1e-15);
        assert!((scaled.startup - 0.0015).abs() < 1e-15);
        assert!(SimSpec::parse("mean=1ms,scale=0").is_err());
        assert!(SimSpec::parse("mean=1ms,scale=-2").is_err());
    }

    /// One executor running two experiments in turn: the second one's benchmark 0 is its own
    /// command, not the first's.
    #[test]
    fn another_command_at_the_same_index_is_its_own() {
        let mut sim = SimulatedExecutor::new(1);
        let mean_of = |sim: &mut SimulatedExecutor, text: &str| {
            let command = CommandLine::Direct(vec![text.to_string()]);
            let req = ExecutionRequest {
                benchmark: 0,
                build: None,
                command: &command,
                iterations: &crate::IterationSource::SamplesFile,
                input: None,
                output: crate::OutputMode::Null,
                output_file: None,
                timeout: None,
                env: &[],
                dir: None,
            };
            sim.execute(&req).unwrap().wall.get()
        };
        assert!((mean_of(&mut sim, "mean=1ms") - 0.001).abs() < 1e-12);
        assert!((mean_of(&mut sim, "mean=5ms") - 0.005).abs() < 1e-12);
    }
}
