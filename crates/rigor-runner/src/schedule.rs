//! The experiment loop: warm-up rounds, then measured rounds in which every active benchmark runs
//! once in a freshly shuffled (seeded) order. Rounds are recorded so the analysis can pair them.
//!
//! The scheduler measures and emits events; it never prints or stores anything itself.

use std::path::PathBuf;
use std::time::Duration;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rigor_protocol::ITERATIONS_ENV;
use rigor_units::Seed;

use crate::command::CommandLine;
use crate::error::{RunError, SettingsError};
use crate::executor::{
    BuildRequest, ExecutionOutcome, ExecutionRequest, Executor, HookRequest, OutputMode,
    Termination,
};
use crate::iterations::IterationSource;
use crate::stop::StopSignal;

/// One benchmark: a name and the command that runs it.
#[derive(Debug, Clone)]
pub struct Benchmark {
    /// Display name (the command text unless named).
    pub name: String,
    /// The command.
    pub command: CommandLine,
    /// Iterations per execution to ask this benchmark for (overrides the settings' count).
    pub iterations: Option<usize>,
    /// Working directory of its executions and hooks (`None`: rigor's own), e.g. a version's
    /// checkout when tracking a project.
    pub dir: Option<PathBuf>,
    /// Commands run around its executions (its own parameter values substituted).
    pub hooks: Hooks,
}

impl Benchmark {
    /// A benchmark with no per-benchmark iteration count and no hooks.
    pub fn new(name: impl Into<String>, command: CommandLine) -> Self {
        Self {
            name: name.into(),
            command,
            iterations: None,
            dir: None,
            hooks: Hooks::default(),
        }
    }
}

/// The commands run around one benchmark's executions (hyperfine's `--setup`, `--prepare`,
/// `--conclude`, `--cleanup`).
///
/// When every benchmark has the same setup and cleanup, [`Scheduler::run`] runs the setup once
/// before the interleaved rounds and the cleanup once after them. When they differ, benchmarks
/// cannot share a round (one's setup would be undone by another's), so each runs in a block of
/// its own: its setup, all its executions, its cleanup ([`Scheduler::interleaved`] tells which).
/// Prepare and conclude run around each execution of their own benchmark either way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hooks {
    /// Run before the benchmark's first execution.
    pub setup: Option<CommandLine>,
    /// Run before every execution.
    pub prepare: Option<CommandLine>,
    /// Run after every execution (not timed; hyperfine's `--conclude`).
    pub conclude: Option<CommandLine>,
    /// Run after the benchmark's last execution.
    pub cleanup: Option<CommandLine>,
}

/// Whether `benchmarks` share rounds: they do unless their setups or cleanups differ
/// ([`Hooks`]), when each runs in a block of its own.
pub fn interleaved(benchmarks: &[Benchmark]) -> bool {
    let around = |b: &Benchmark| (b.hooks.setup.clone(), b.hooks.cleanup.clone());
    benchmarks
        .windows(2)
        .all(|w| around(&w[0]) == around(&w[1]))
}

/// Environment variable holding the execution's number among its benchmark's executions, as
/// hyperfine sets it: `0`, `1`, … for measured executions, `warmup-0`, … for warm-up ones. Set
/// for the execution and for the `--prepare` and `--conclude` commands around it.
pub const HYPERFINE_ITERATION_ENV: &str = "HYPERFINE_ITERATION";
/// rigor's name for [`HYPERFINE_ITERATION_ENV`] (the same value).
pub const RIGOR_ITERATION_ENV: &str = "RIGOR_ITERATION";

/// New lower-level counts for the rest of an experiment (an adaptive design reshapes the
/// experiment once its pilot has measured the variance at each level).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Shape {
    /// Per benchmark, the iterations per execution to ask for from now on (`None`: unchanged).
    pub iterations: Vec<Option<usize>>,
    /// Measured executions per build (or in all, without builds) from the next build on.
    pub executions: Option<usize>,
}

/// What an observer wants after a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Keep going.
    Continue,
    /// End the experiment now (e.g. the target precision or a time limit was reached).
    Stop,
}

/// How an experiment runs; the resolved form of the command-line options.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Measured executions per benchmark (rounds).
    pub executions: usize,
    /// Whole executions run first and marked as warm-up.
    pub warmup_executions: usize,
    /// Per-execution time limit.
    pub timeout: Option<Duration>,
    /// File connected to standard input.
    pub input: Option<PathBuf>,
    /// Where standard output goes.
    pub output: OutputMode,
    /// A file standard output is written to instead, made anew for each execution
    /// (hyperfine's `--output=FILE`: it holds the last execution's output).
    pub output_file: Option<PathBuf>,
    /// Where in-process iteration times come from.
    pub iterations: IterationSource,
    /// Measure executions that exit with a non-zero status (hyperfine's `-i`), and keep going
    /// after other failures (recording them) instead of stopping that benchmark.
    pub ignore_failure: bool,
    /// With `ignore_failure`, only these exit codes are measured (hyperfine 1.20's
    /// `--ignore-failure=1,2`); any other failure ends the benchmark as without `-i`. Empty:
    /// every non-zero exit status.
    pub ignored_exit_codes: Vec<i32>,
    /// Seed of the shuffled order within rounds (and of build seeds and environment padding).
    pub seed: Seed,
    /// Builds as the top level, when given.
    pub build: Option<BuildSettings>,
    /// Pad each execution's environment with a random-size variable (Mytkowicz et al. 2009).
    pub randomize_env: bool,
    /// Iterations per execution requested from the program (`RIGOR_ITERATIONS`).
    pub iterations_per_execution: Option<usize>,
}

impl Settings {
    /// Whether failures leave a benchmark running (`-i` without a list of exit codes): they are
    /// recorded and the benchmark goes on.
    pub fn keeps_going(&self) -> bool {
        self.ignore_failure && self.ignored_exit_codes.is_empty()
    }

    /// Checks that an experiment can run with these settings: at least 2 top-level units (2
    /// executions, or with builds 2 builds of at least 1 execution each), no zero timeout, and a
    /// positive iteration count if one is asked for. [`Scheduler::run`], [`dimension`] and
    /// [`run_adaptive`] call it before running anything.
    ///
    /// [`dimension`]: crate::dimension
    /// [`run_adaptive`]: crate::run_adaptive
    ///
    /// # Errors
    /// The first [`SettingsError`] found.
    pub fn validate(&self) -> Result<(), SettingsError> {
        match &self.build {
            Some(b) => {
                if b.builds < 2 {
                    return Err(SettingsError::TooFewBuilds { builds: b.builds });
                }
                if self.executions == 0 {
                    return Err(SettingsError::NoExecutionsPerBuild);
                }
                if b.timeout.is_some_and(|t| t.is_zero()) {
                    return Err(SettingsError::NonPositiveTimeout { what: "build" });
                }
            }
            None if self.executions < 2 => {
                return Err(SettingsError::TooFewExecutions {
                    executions: self.executions,
                });
            }
            None => {}
        }
        if self.timeout.is_some_and(|t| t.is_zero()) {
            return Err(SettingsError::NonPositiveTimeout { what: "execution" });
        }
        if self.iterations_per_execution == Some(0) {
            return Err(SettingsError::ZeroIterations);
        }
        self.check_counts(self.iterations_per_execution)
    }

    /// [`Settings::validate`], and each benchmark's own iteration count within the limits too
    /// (a plan sets them per benchmark).
    ///
    /// # Errors
    /// The first [`SettingsError`] found.
    pub fn validate_with(&self, benchmarks: &[Benchmark]) -> Result<(), SettingsError> {
        self.validate()?;
        for b in benchmarks {
            if b.iterations == Some(0) {
                return Err(SettingsError::ZeroIterations);
            }
            self.check_counts(b.iterations)?;
        }
        Ok(())
    }

    /// The counts within [`crate::limits`]: executions, warm-up executions, builds and
    /// iterations each, and the samples they multiply into.
    fn check_counts(&self, iterations: Option<usize>) -> Result<(), SettingsError> {
        use crate::limits::{self, MAX_BUILDS, MAX_EXECUTIONS, MAX_ITERATIONS};
        const WHY: &str = ": for long runs give a time --budget or a --precision instead";
        limits::check(
            self.executions,
            MAX_EXECUTIONS,
            "executions per command",
            WHY,
        )?;
        limits::check(
            self.warmup_executions,
            MAX_EXECUTIONS,
            "warm-up executions per command",
            "",
        )?;
        let builds = self.build.as_ref().map_or(1, |b| b.builds);
        if self.build.is_some() {
            limits::check(builds, MAX_BUILDS, "builds per command", "")?;
            let all = builds.saturating_mul(self.executions + self.warmup_executions);
            limits::check(
                all,
                MAX_EXECUTIONS,
                "executions per command (all builds')",
                WHY,
            )?;
        }
        if let Some(k) = iterations {
            limits::check(
                k,
                MAX_ITERATIONS,
                "iterations per execution",
                limits::SAMPLES_WHY,
            )?;
            limits::check_samples(&[builds, self.executions, k])?;
        }
        Ok(())
    }
}

/// The build level: a command run once per build in its own directory.
#[derive(Debug, Clone)]
pub struct BuildSettings {
    /// The build command; `{build_dir}`, `{build}` and `{build_seed}` are substituted.
    pub command: CommandLine,
    /// Builds per benchmark.
    pub builds: usize,
    /// Directory under which each build gets its own directory.
    pub root: PathBuf,
    /// Kill a build after this long.
    pub timeout: Option<Duration>,
    /// Every build made first, then rounds that each run every build of every benchmark: the
    /// builds in a shuffled order, and within each the benchmarks in a shuffled order (so that
    /// build `k` of each benchmark is measured side by side, and they stay paired by build).
    /// Load that drifts over the run then falls on every build alike instead of making the
    /// builds measured later look slower (between-build variance that is not the builds').
    /// False: each build's executions in a block of their own, after it is made — what a
    /// design that decides after each build (adaptive, until decided) needs.
    pub interleaved: bool,
    /// A benchmark's own build command where it is not [`command`](Self::command) (benchmark
    /// `b`'s at `b`: a tracked version's, its checkout put in for `{src}`); empty or `None`:
    /// [`command`](Self::command).
    pub for_benchmark: Vec<Option<CommandLine>>,
    /// Build `k`'s `{build_seed}` where the builds were seeded before the run (`rigor bench`'s
    /// layouts: the seed each was linked with, so the result says which); empty, or beyond its
    /// end: drawn from the run's generator.
    pub seeds: Vec<u32>,
}

/// Environment variable holding the random padding of `--randomize-env`.
pub const ENV_PAD: &str = "RIGOR_ENV_PAD";
/// Largest padding, bytes (a few pages of stack offset, as in Mytkowicz et al.).
pub const MAX_ENV_PAD: usize = 4096;

/// A successful build.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildRecord {
    /// Benchmark index.
    pub benchmark: usize,
    /// Build index (0-based).
    pub build: usize,
    /// The `{build_seed}` given to it.
    pub seed: u32,
    /// Its directory.
    pub dir: PathBuf,
    /// Its measurements (wall time is the cost of a build).
    pub outcome: ExecutionOutcome,
}

/// A successfully measured execution.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecutionRecord {
    /// Benchmark index.
    pub benchmark: usize,
    /// Round (0-based, warm-up rounds first).
    pub round: usize,
    /// Execution index within the benchmark (0-based, warm-up executions first).
    pub execution: usize,
    /// The build it ran, when builds are a level.
    pub build: Option<usize>,
    /// Size of the `--randomize-env` padding, if any.
    pub env_pad: Option<usize>,
    /// Whether this was a warm-up execution.
    pub warmup: bool,
    /// Position within the round's shuffled order.
    pub order: usize,
    /// What was measured.
    pub outcome: ExecutionOutcome,
}

/// What failed: the benchmarked command, its build, or one of the hook commands around it.
pub use rigor_units::FailureStage;

/// A failed execution, build or hook.
#[derive(Debug, Clone, PartialEq)]
pub struct FailureRecord {
    /// Benchmark index.
    pub benchmark: usize,
    /// What failed.
    pub stage: FailureStage,
    /// Round of the failure.
    pub round: usize,
    /// Execution index (as in [`ExecutionRecord`]).
    pub execution: usize,
    /// Whether it was a warm-up execution.
    pub warmup: bool,
    /// Its number as a user counts them, from 1: among the benchmark's measured executions, or
    /// among its warm-up executions when `warmup` (the first measured execution is 1 whatever
    /// the warm-up before it). For a build, `--setup` or `--cleanup`, the number the next
    /// execution would have had.
    pub number: usize,
    /// How the process ended, if it ran.
    pub termination: Option<Termination>,
    /// The last part of its standard error.
    pub stderr_tail: String,
    /// What went wrong, in words.
    pub reason: String,
    /// Whether this failure ended the benchmark (no more executions of it will run).
    pub ends_benchmark: bool,
}

/// Receives the experiment's events as they happen (to store, show progress, ...).
///
/// Every method may fail; the error ends the experiment and is returned by [`Scheduler::run`]
/// (and [`dimension`](crate::dimension), [`run_adaptive`](crate::run_adaptive)) as it is.
/// An observer reports its own failures as [`RunError::Observer`] (see [`RunError::observer`]),
/// which keeps the underlying error and its source chain, e.g. a store that cannot save:
///
/// ```
/// use rigor_runner::{ExecutionRecord, Observer, RunError};
///
/// struct Store(std::fs::File);
///
/// impl Observer for Store {
///     fn execution(&mut self, r: &ExecutionRecord) -> Result<(), RunError> {
///         use std::io::Write;
///         writeln!(self.0, "{} {}", r.benchmark, r.outcome.wall.get()).map_err(RunError::observer)
///     }
/// }
/// ```
pub trait Observer {
    /// Called before the first execution with the number of executions planned, and again
    /// (without restarting anything) whenever an adaptive rule changes that number.
    fn started(&mut self, _planned: usize) -> Result<(), RunError> {
        Ok(())
    }
    /// Called after each successful build.
    fn build(&mut self, _record: &BuildRecord) -> Result<(), RunError> {
        Ok(())
    }
    /// Called after each successful execution.
    fn execution(&mut self, _record: &ExecutionRecord) -> Result<(), RunError> {
        Ok(())
    }
    /// Called after each failure.
    fn failure(&mut self, _record: &FailureRecord) -> Result<(), RunError> {
        Ok(())
    }
    /// Called after each measured (non-warm-up) round; [`Control::Stop`] ends the experiment.
    fn round_finished(&mut self, _round: usize) -> Result<Control, RunError> {
        Ok(Control::Continue)
    }
    /// Asked after each [`Observer::round_finished`] that continues: new lower-level counts, if
    /// any. Iteration counts apply from the next execution, execution counts from the next build
    /// (without builds, to the experiment as a whole).
    fn reshape(&mut self) -> Option<Shape> {
        None
    }

    /// Benchmarks to schedule no more from the next round on (asked after each
    /// [`Observer::round_finished`] that continued): a candidate whose comparison is decided.
    /// A retired benchmark's status stays [`BenchmarkStatus::Completed`].
    fn retired(&mut self) -> Vec<usize> {
        Vec::new()
    }
}

/// Why the experiment ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Every round ran (benchmarks may have stopped after failures).
    Completed,
    /// A stop was requested (Ctrl-C); data measured so far was reported.
    Interrupted,
    /// The observer ended the experiment (target reached, time limit).
    Stopped,
}

/// What became of each benchmark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BenchmarkStatus {
    /// Ran all its executions (possibly with ignored failures).
    Completed,
    /// Stopped after a failure.
    Failed(String),
}

/// The experiment's result: the ending and each benchmark's status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Why it ended.
    pub ending: Ending,
    /// Status per benchmark.
    pub status: Vec<BenchmarkStatus>,
}

/// Runs benchmarks with an executor, reporting to an observer.
pub struct Scheduler<'a> {
    benchmarks: &'a [Benchmark],
    settings: &'a Settings,
    stop: StopSignal,
}

struct State {
    status: Vec<BenchmarkStatus>,
    /// Benchmarks an observer retired ([`Observer::retired`]).
    retired: Vec<bool>,
    executions: Vec<usize>,
    /// Measured (not warm-up) executions started, per benchmark.
    measured: Vec<usize>,
    /// Iterations per execution to ask each benchmark for (changed by [`Observer::reshape`]).
    iterations: Vec<Option<usize>>,
    /// Measured executions per build (in all, without builds).
    per_build: usize,
    /// Whether each benchmark reports iterations (decided by its first measured execution).
    reports_iterations: Vec<Option<bool>>,
    /// Each benchmark's command for each build (placeholders substituted; one without builds).
    commands: Vec<Vec<CommandLine>>,
    rng: ChaCha8Rng,
    round: usize,
    /// The one benchmark running now when benchmarks run in blocks ([`Scheduler::interleaved`]).
    block: Option<usize>,
}

/// Where one execution sits in the experiment.
struct Slot {
    benchmark: usize,
    round: usize,
    build: Option<usize>,
    warmup: bool,
    order: usize,
}

impl<'a> Scheduler<'a> {
    /// A scheduler for `benchmarks` under `settings`; `stop` ends it early.
    pub fn new(benchmarks: &'a [Benchmark], settings: &'a Settings, stop: StopSignal) -> Self {
        Self {
            benchmarks,
            settings,
            stop,
        }
    }

    /// Runs the whole experiment: per build (one when builds are not a level), build every
    /// benchmark in shuffled order, then warm-up and measured rounds.
    ///
    /// # Errors
    /// [`RunError::Settings`] before anything runs when [`Settings::validate`] refuses the
    /// settings; otherwise an executor's error that is not a failure of the benchmark itself,
    /// or an observer's error.
    pub fn run(
        &self,
        executor: &mut dyn Executor,
        observer: &mut dyn Observer,
    ) -> Result<Report, RunError> {
        self.settings.validate_with(self.benchmarks)?;
        let n = self.benchmarks.len();
        let s = self.settings;
        let builds = s.build.as_ref().map_or(1, |b| b.builds);
        let mut state = State {
            status: vec![BenchmarkStatus::Completed; n],
            retired: vec![false; n],
            executions: vec![0; n],
            measured: vec![0; n],
            iterations: self
                .benchmarks
                .iter()
                .map(|b| b.iterations.or(s.iterations_per_execution))
                .collect(),
            per_build: s.executions,
            reports_iterations: vec![None; n],
            commands: self
                .benchmarks
                .iter()
                .map(|b| vec![b.command.clone(); builds])
                .collect(),
            rng: ChaCha8Rng::seed_from_u64(s.seed.get()),
            round: 0,
            block: None,
        };
        observer.started(n * builds * (s.executions + s.warmup_executions))?;
        let blocks: Vec<Option<usize>> = if self.interleaved() {
            vec![None]
        } else {
            (0..n).map(Some).collect()
        };
        let mut ending = Ending::Completed;
        for block in blocks {
            state.block = block;
            ending = self.block(executor, observer, &mut state, builds)?;
            if ending != Ending::Completed {
                break;
            }
        }
        Ok(Report {
            ending,
            status: state.status,
        })
    }

    /// Whether the benchmarks share rounds ([`interleaved`]).
    pub fn interleaved(&self) -> bool {
        interleaved(self.benchmarks)
    }

    /// The setup, every build's rounds and the cleanup of the benchmarks `state.block` lets run
    /// (all of them when interleaved: one setup and one cleanup around all).
    fn block(
        &self,
        executor: &mut dyn Executor,
        observer: &mut dyn Observer,
        state: &mut State,
        builds: usize,
    ) -> Result<Ending, RunError> {
        let s = self.settings;
        let first = state.block.unwrap_or(0);
        let Some(hooks) = self.benchmarks.get(first).map(|b| &b.hooks) else {
            return Ok(Ending::Completed);
        };
        if let Some(setup) = &hooks.setup {
            self.hook(executor, observer, state, setup, FailureStage::Setup)?;
        }
        let mut ending = Ending::Completed;
        if s.build.as_ref().is_some_and(|b| b.interleaved) {
            for build in 0..builds {
                if self.stop.is_requested() || !self.build_all(executor, observer, state, build)? {
                    ending = Ending::Interrupted;
                    break;
                }
            }
            if ending == Ending::Completed
                && let Some(end) = self.rounds_across_builds(executor, observer, state, builds)?
            {
                ending = end;
            }
        } else {
            for build in 0..builds {
                if self.stop.is_requested() || !self.build_all(executor, observer, state, build)? {
                    ending = Ending::Interrupted;
                    break;
                }
                let build = s.build.as_ref().map(|_| build);
                if let Some(end) = self.rounds(executor, observer, state, build)? {
                    ending = end;
                    break;
                }
            }
        }
        if self.stop.is_requested() {
            ending = Ending::Interrupted;
        }
        if ending != Ending::Interrupted
            && let Some(cleanup) = &hooks.cleanup
        {
            self.hook(executor, observer, state, cleanup, FailureStage::Cleanup)?;
        }
        Ok(ending)
    }

    /// Warm-up then measured rounds for one build; `Some(ending)` when the experiment ends early.
    /// With builds, the observer is asked after the build's last round (a build is the top unit).
    fn rounds(
        &self,
        executor: &mut dyn Executor,
        observer: &mut dyn Observer,
        state: &mut State,
        build: Option<usize>,
    ) -> Result<Option<Ending>, RunError> {
        let s = self.settings;
        // A build keeps the count it started with; without builds a new count applies at once.
        let started_with = state.per_build;
        let planned = |state: &State| {
            s.warmup_executions
                + match build {
                    Some(_) => started_with,
                    None => state.per_build,
                }
        };
        let mut r = 0;
        while r < planned(state) {
            let mut order: Vec<usize> = (0..self.benchmarks.len())
                .filter(|&b| state.active(b))
                .collect();
            if order.is_empty() {
                break;
            }
            order.shuffle(&mut state.rng);
            let round = state.round;
            state.round += 1;
            for (position, &benchmark) in order.iter().enumerate() {
                if self.stop.is_requested() {
                    return Ok(Some(Ending::Interrupted));
                }
                let slot = Slot {
                    benchmark,
                    round,
                    build,
                    warmup: r < s.warmup_executions,
                    order: position,
                };
                self.one(executor, observer, state, &slot)?;
            }
            r += 1;
            let last = r == planned(state);
            let ask = r > s.warmup_executions && (build.is_none() || last);
            if ask {
                if observer.round_finished(round)? == Control::Stop {
                    return Ok(Some(Ending::Stopped));
                }
                if let Some(shape) = observer.reshape() {
                    state.apply(shape, build.is_some());
                }
                for b in observer.retired() {
                    if let Some(r) = state.retired.get_mut(b) {
                        *r = true;
                    }
                }
            }
        }
        Ok(None)
    }

    /// Warm-up then measured rounds over every build at once ([`BuildSettings::interleaved`]):
    /// each round runs the builds in a shuffled order and, within each, the active benchmarks in
    /// a shuffled order. The observer is asked once, after the last round (a build is the top
    /// unit, and every build ends there); the counts do not change on the way.
    fn rounds_across_builds(
        &self,
        executor: &mut dyn Executor,
        observer: &mut dyn Observer,
        state: &mut State,
        builds: usize,
    ) -> Result<Option<Ending>, RunError> {
        let s = self.settings;
        let planned = s.warmup_executions + state.per_build;
        for r in 0..planned {
            let mut order: Vec<usize> = (0..builds).collect();
            order.shuffle(&mut state.rng);
            let mut slots: Vec<(usize, usize)> = Vec::new();
            for build in order {
                let mut benchmarks: Vec<usize> = (0..self.benchmarks.len())
                    .filter(|&b| state.active(b))
                    .collect();
                benchmarks.shuffle(&mut state.rng);
                slots.extend(benchmarks.into_iter().map(|b| (b, build)));
            }
            if slots.is_empty() {
                break;
            }
            let round = state.round;
            state.round += 1;
            for (position, &(benchmark, build)) in slots.iter().enumerate() {
                if self.stop.is_requested() {
                    return Ok(Some(Ending::Interrupted));
                }
                // A failure earlier in the round ended the benchmark: its other builds rest.
                if !state.active(benchmark) {
                    continue;
                }
                let slot = Slot {
                    benchmark,
                    round,
                    build: Some(build),
                    warmup: r < s.warmup_executions,
                    order: position,
                };
                self.one(executor, observer, state, &slot)?;
            }
            if r + 1 == planned
                && r + 1 > s.warmup_executions
                && observer.round_finished(round)? == Control::Stop
            {
                return Ok(Some(Ending::Stopped));
            }
        }
        Ok(None)
    }

    /// Builds every active benchmark (in shuffled order) and substitutes the build's placeholders
    /// into its command; false when interrupted.
    fn build_all(
        &self,
        executor: &mut dyn Executor,
        observer: &mut dyn Observer,
        state: &mut State,
        build: usize,
    ) -> Result<bool, RunError> {
        let Some(settings) = &self.settings.build else {
            return Ok(true);
        };
        let mut order: Vec<usize> = (0..self.benchmarks.len())
            .filter(|&b| state.active(b))
            .collect();
        order.shuffle(&mut state.rng);
        for b in order {
            if self.stop.is_requested() {
                return Ok(false);
            }
            let dir = settings.root.join(format!("benchmark{b}-build{build}"));
            std::fs::create_dir_all(&dir).map_err(|source| RunError::File {
                path: dir.clone(),
                source,
            })?;
            let seed: u32 = match settings.seeds.get(build) {
                Some(&seed) => seed,
                None => state.rng.r#gen(),
            };
            let vars = [
                ("build_dir", dir.display().to_string()),
                ("build", build.to_string()),
                ("build_seed", seed.to_string()),
            ];
            let command = settings
                .for_benchmark
                .get(b)
                .and_then(Option::as_ref)
                .unwrap_or(&settings.command)
                .substitute(&vars);
            let request = BuildRequest {
                benchmark: b,
                build,
                command: &command,
                command_of_benchmark: &self.benchmarks[b].command,
                dir: &dir,
                timeout: settings.timeout,
            };
            let outcome = executor.build(&request);
            if self.stop.is_requested() {
                return Ok(false);
            }
            let failure = match outcome {
                Ok(o) if o.termination.success() => {
                    state.commands[b][build] = self.benchmarks[b].command.substitute(&vars);
                    observer.build(&BuildRecord {
                        benchmark: b,
                        build,
                        seed,
                        dir: dir.clone(),
                        outcome: o,
                    })?;
                    continue;
                }
                Ok(o) => (
                    Some(o.termination),
                    o.stderr_tail,
                    format!(
                        "build {} {}",
                        build + 1,
                        describe(o.termination, settings.timeout)
                    ),
                ),
                Err(e) => (None, String::new(), format!("build {}: {e}", build + 1)),
            };
            let record = FailureRecord {
                benchmark: b,
                stage: FailureStage::Build,
                round: state.round,
                execution: state.executions[b],
                warmup: false,
                number: state.measured[b] + 1,
                termination: failure.0,
                stderr_tail: failure.1,
                reason: failure.2,
                ends_benchmark: true,
            };
            observer.failure(&record)?;
            state.status[b] = BenchmarkStatus::Failed(record.reason);
        }
        Ok(true)
    }

    fn one(
        &self,
        executor: &mut dyn Executor,
        observer: &mut dyn Observer,
        state: &mut State,
        slot: &Slot,
    ) -> Result<(), RunError> {
        let s = self.settings;
        let b = slot.benchmark;
        let execution = state.executions[b];
        let number = if slot.warmup {
            execution - state.measured[b] + 1
        } else {
            state.measured[b] + 1
        };
        state.executions[b] += 1;
        if !slot.warmup {
            state.measured[b] += 1;
        }
        let fail = |stage, termination, stderr_tail: String, reason: String| FailureRecord {
            benchmark: b,
            stage,
            round: slot.round,
            execution,
            warmup: slot.warmup,
            number,
            termination,
            stderr_tail,
            reason,
            ends_benchmark: true,
        };
        // hyperfine's numbering: from 0 among the measured executions, `warmup-0`, … before.
        let iteration = if slot.warmup {
            format!("warmup-{}", number - 1)
        } else {
            (number - 1).to_string()
        };
        let mut env = vec![
            (HYPERFINE_ITERATION_ENV.to_string(), iteration.clone()),
            (RIGOR_ITERATION_ENV.to_string(), iteration),
        ];
        let hooks = &self.benchmarks[b].hooks;
        let hook_env = env.clone();
        let run_hook = |executor: &mut dyn Executor, stage, command| {
            let at = execution_name(slot.warmup, number);
            let failed = self.run_hook(executor, b, command, stage, &at, &hook_env)?;
            Ok::<_, RunError>(failed.map(|(t, tail, reason)| fail(stage, t, tail, reason)))
        };
        if let Some(prepare) = &hooks.prepare
            && let Some(record) = run_hook(executor, FailureStage::Prepare, prepare)?
        {
            return self.failed(observer, state, record);
        }
        let env_pad = s
            .randomize_env
            .then(|| state.rng.gen_range(0..=MAX_ENV_PAD));
        let mut command = state.commands[b][slot.build.unwrap_or(0)].clone();
        if let Some(k) = state.iterations[b] {
            env.push((ITERATIONS_ENV.to_string(), k.to_string()));
            command = command.substitute(&[("iterations", k.to_string())]);
        }
        if let Some(pad) = env_pad {
            env.push((ENV_PAD.to_string(), "x".repeat(pad)));
        }
        let request = ExecutionRequest {
            benchmark: b,
            build: slot.build,
            command: &command,
            iterations: &s.iterations,
            input: s.input.as_ref(),
            output: s.output,
            output_file: s.output_file.as_deref(),
            timeout: s.timeout,
            env: &env,
            dir: self.benchmarks[b].dir.as_deref(),
        };
        let outcome = match executor.execute(&request) {
            Ok(o) => o,
            Err(e @ (RunError::Spawn { .. } | RunError::File { .. })) => {
                let record = fail(FailureStage::Command, None, String::new(), e.to_string());
                observer.failure(&record)?;
                state.status[b] = BenchmarkStatus::Failed(record.reason);
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        if self.stop.is_requested() {
            return Ok(()); // interrupted mid-execution: not a measurement
        }
        // The execution is recorded (or its failure) before `--conclude` runs: the conclude
        // command is not timed, so its failure says nothing of the measurement already taken.
        let expected = state.reports_iterations[b];
        if let Some(reason) = problem(&outcome, expected, slot.warmup, s) {
            let record = fail(
                FailureStage::Command,
                Some(outcome.termination),
                outcome.stderr_tail,
                reason,
            );
            self.failed(observer, state, record)?;
        } else {
            if !slot.warmup && state.reports_iterations[b].is_none() {
                state.reports_iterations[b] = Some(outcome.iterations.is_some());
            }
            observer.execution(&ExecutionRecord {
                benchmark: b,
                round: slot.round,
                execution,
                build: slot.build,
                warmup: slot.warmup,
                order: slot.order,
                env_pad,
                outcome,
            })?;
        }
        if let Some(conclude) = &hooks.conclude
            && let Some(record) = run_hook(executor, FailureStage::Conclude, conclude)?
            && state.status[b] == BenchmarkStatus::Completed
        {
            // (A benchmark that this execution's own failure ended keeps that reason.)
            return self.failed(observer, state, record);
        }
        Ok(())
    }

    fn failed(
        &self,
        observer: &mut dyn Observer,
        state: &mut State,
        mut record: FailureRecord,
    ) -> Result<(), RunError> {
        record.ends_benchmark = !self.settings.keeps_going();
        observer.failure(&record)?;
        if record.ends_benchmark {
            state.status[record.benchmark] = BenchmarkStatus::Failed(record.reason);
        }
        Ok(())
    }

    /// Runs `--setup` or `--cleanup` (`stage`) once for the benchmarks of the current block, in
    /// each working directory they run in (versions' checkouts under `rigor track`: once per
    /// checkout); a failure ends each benchmark of that directory (it is recorded for each).
    fn hook(
        &self,
        executor: &mut dyn Executor,
        observer: &mut dyn Observer,
        state: &mut State,
        command: &CommandLine,
        stage: FailureStage,
    ) -> Result<(), RunError> {
        let members: Vec<usize> = (0..self.benchmarks.len())
            .filter(|&b| state.active(b))
            .collect();
        let dir = |b: usize| self.benchmarks[b].dir.as_deref();
        for (k, &first) in members.iter().enumerate() {
            if members[..k].iter().any(|&o| dir(o) == dir(first)) {
                continue; // its directory's hook already ran
            }
            let Some((termination, stderr_tail, reason)) =
                self.run_hook(executor, first, command, stage, "", &[])?
            else {
                continue;
            };
            for &b in members.iter().filter(|&&b| dir(b) == dir(first)) {
                let record = FailureRecord {
                    benchmark: b,
                    stage,
                    round: 0,
                    execution: state.executions[b],
                    warmup: false,
                    number: state.measured[b] + 1,
                    termination,
                    stderr_tail: stderr_tail.clone(),
                    reason: reason.clone(),
                    ends_benchmark: true,
                };
                observer.failure(&record)?;
                state.status[b] = BenchmarkStatus::Failed(record.reason);
            }
        }
        Ok(())
    }

    /// Runs a hook command of benchmark `b` (`execution`: the one a `--prepare` or `--conclude`
    /// runs around): `None` when it succeeded, else how it ended (if it ran), its standard
    /// error's tail and the reason ([`hook_failure`]). A command that cannot start is such a
    /// failure too; other errors end the experiment.
    #[allow(clippy::type_complexity)]
    fn run_hook(
        &self,
        executor: &mut dyn Executor,
        b: usize,
        command: &CommandLine,
        stage: FailureStage,
        execution: &str,
        env: &[(String, String)],
    ) -> Result<Option<(Option<Termination>, String, String)>, RunError> {
        let failed = |why: String| hook_failure(stage, execution, &why);
        Ok(
            match executor.run_hook(&HookRequest {
                command,
                dir: self.benchmarks[b].dir.as_deref(),
                env,
            }) {
                Ok(o) if o.termination.success() => None,
                Ok(o) => Some((
                    Some(o.termination),
                    o.stderr_tail,
                    failed(describe(o.termination, None)),
                )),
                Err(e @ (RunError::Spawn { .. } | RunError::File { .. })) => {
                    Some((None, String::new(), failed(e.to_string())))
                }
                Err(e) => return Err(e),
            },
        )
    }
}

/// "execution 3" (among the measured ones) or "warm-up execution 1".
fn execution_name(warmup: bool, number: usize) -> String {
    if warmup {
        format!("warm-up execution {number}")
    } else {
        format!("execution {number}")
    }
}

/// A hook's failure in words, naming the hook and when it ran: "--setup command before the
/// first execution failed: exited with code 1", "--prepare command before execution 3 failed:
/// …" (`execution` names the execution a `--prepare` or `--conclude` ran around).
fn hook_failure(stage: FailureStage, execution: &str, why: &str) -> String {
    let (option, when) = match stage {
        FailureStage::Setup => ("--setup", "before the first execution".to_string()),
        FailureStage::Prepare => ("--prepare", format!("before {execution}")),
        FailureStage::Conclude => ("--conclude", format!("after {execution}")),
        FailureStage::Cleanup => ("--cleanup", "after the last execution".to_string()),
        FailureStage::Command | FailureStage::Build => ("the", format!("of {execution}")),
    };
    format!("{option} command {when} failed: {why}")
}

/// What is wrong with a finished execution, if anything: a failure, unreadable iteration times,
/// or iteration times that appear or vanish compared with earlier executions.
fn problem(
    outcome: &ExecutionOutcome,
    expected: Option<bool>,
    warmup: bool,
    s: &Settings,
) -> Option<String> {
    // With `-i` a non-zero exit status is measured, as hyperfine's `--ignore-failure` does
    // (with `-i=1,2` only those); a crash (signal) or a timeout is still a failure.
    let ignored = match outcome.termination {
        Termination::Exited { code } => {
            s.ignore_failure
                && (s.ignored_exit_codes.is_empty() || s.ignored_exit_codes.contains(&code))
        }
        _ => false,
    };
    if !outcome.termination.success() && !ignored {
        return Some(format!(
            "the command {}",
            describe(outcome.termination, s.timeout)
        ));
    }
    if let Some(err) = &outcome.iteration_error {
        return Some(format!("cannot read its iteration times: {err}"));
    }
    let reports = outcome.iterations.is_some();
    match expected {
        Some(true) if !reports && !warmup => {
            Some("it reported no iteration times, unlike its earlier executions".into())
        }
        Some(false) if reports && !warmup => {
            Some("it reported iteration times, unlike its earlier executions".into())
        }
        _ => None,
    }
}

impl State {
    fn active(&self, b: usize) -> bool {
        self.status[b] == BenchmarkStatus::Completed
            && !self.retired[b]
            && self.block.is_none_or(|only| only == b)
    }

    /// Takes new lower-level counts; without builds the execution count is the experiment's
    /// total (a count below what already ran ends the experiment after this round).
    fn apply(&mut self, shape: Shape, builds: bool) {
        for (mine, new) in self.iterations.iter_mut().zip(shape.iterations) {
            if new.is_some() {
                *mine = new;
            }
        }
        if let Some(e) = shape.executions {
            self.per_build = if builds { e.max(1) } else { e };
        }
    }
}

/// The name of a signal that ends programs, by this platform's numbering (`SIGSEGV` is 11 on
/// Linux, `SIGBUS` 7 on Linux and 10 on macOS).
#[cfg(unix)]
pub fn signal_name(signal: i32) -> Option<&'static str> {
    let names = [
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGTRAP, "SIGTRAP"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGPIPE, "SIGPIPE"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGXCPU, "SIGXCPU"),
        (libc::SIGXFSZ, "SIGXFSZ"),
    ];
    names
        .iter()
        .find(|(n, _)| *n == signal)
        .map(|(_, name)| *name)
}

/// No signals elsewhere.
#[cfg(not(unix))]
pub fn signal_name(_signal: i32) -> Option<&'static str> {
    None
}

/// "exited with code 3", "was killed by signal 9 (SIGKILL)", "timed out (limit 5s)": `limit` is the time
/// limit that killed it, when known.
pub fn describe(t: Termination, limit: Option<Duration>) -> String {
    match (t, limit) {
        // The codes a POSIX shell gives a command it could not run.
        (Termination::Exited { code: 127 }, _) => {
            "exited with code 127 (a shell's 'command not found')".to_string()
        }
        (Termination::Exited { code: 126 }, _) => {
            "exited with code 126 (a shell's 'found but cannot be executed')".to_string()
        }
        (Termination::Exited { code }, _) => format!("exited with code {code}"),
        (Termination::Signaled { signal }, _) => match signal_name(signal) {
            Some(name) => format!("was killed by signal {signal} ({name})"),
            None => format!("was killed by signal {signal}"),
        },
        (Termination::TimedOut, Some(limit)) => format!("timed out (limit {limit:?})"),
        (Termination::TimedOut, None) => "timed out".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::SimulatedExecutor;
    use crate::test_support::bench;

    #[derive(Default)]
    struct Log {
        executions: Vec<ExecutionRecord>,
        failures: Vec<FailureRecord>,
        builds: Vec<BuildRecord>,
    }

    impl Observer for Log {
        fn build(&mut self, r: &BuildRecord) -> Result<(), RunError> {
            self.builds.push(r.clone());
            Ok(())
        }
        fn execution(&mut self, r: &ExecutionRecord) -> Result<(), RunError> {
            self.executions.push(r.clone());
            Ok(())
        }
        fn failure(&mut self, r: &FailureRecord) -> Result<(), RunError> {
            self.failures.push(r.clone());
            Ok(())
        }
    }

    fn run(benches: &[Benchmark], settings: &Settings) -> (Report, Log) {
        let mut log = Log::default();
        let mut ex = SimulatedExecutor::new(1);
        let report = Scheduler::new(benches, settings, StopSignal::new())
            .run(&mut ex, &mut log)
            .unwrap();
        (report, log)
    }

    #[test]
    fn rounds_are_shuffled_and_complete() {
        let benches = [bench("mean=1ms"), bench("mean=2ms"), bench("mean=3ms")];
        let settings = Settings {
            executions: 20,
            warmup_executions: 1,
            seed: Seed(7),
            ..Settings::default()
        };
        let (report, log) = run(&benches, &settings);
        assert_eq!(report.ending, Ending::Completed);
        assert_eq!(log.executions.len(), 63);
        for round in 0..21 {
            let mut in_round: Vec<_> = log
                .executions
                .iter()
                .filter(|r| r.round == round)
                .map(|r| r.benchmark)
                .collect();
            assert_eq!(in_round.len(), 3);
            in_round.sort();
            assert_eq!(in_round, vec![0, 1, 2]);
        }
        let firsts: std::collections::HashSet<_> = (0..21)
            .map(|round| {
                log.executions
                    .iter()
                    .find(|r| r.round == round)
                    .unwrap()
                    .benchmark
            })
            .collect();
        assert!(firsts.len() > 1, "the order within rounds is shuffled");
        assert_eq!(log.executions.iter().filter(|r| r.warmup).count(), 3);
    }

    #[test]
    fn failure_stops_only_that_benchmark_unless_ignored() {
        let benches = [bench("mean=1ms,fail=3"), bench("mean=2ms")];
        let settings = Settings {
            executions: 5,
            seed: Seed(1),
            ..Settings::default()
        };
        let (report, log) = run(&benches, &settings);
        assert!(matches!(report.status[0], BenchmarkStatus::Failed(_)));
        assert_eq!(report.status[1], BenchmarkStatus::Completed);
        assert_eq!(log.failures.len(), 1);
        assert_eq!(
            log.executions.iter().filter(|r| r.benchmark == 0).count(),
            2
        );
        assert_eq!(
            log.executions.iter().filter(|r| r.benchmark == 1).count(),
            5
        );

        let settings = Settings {
            ignore_failure: true,
            ..settings
        };
        let (report, log) = run(&benches, &settings);
        assert_eq!(report.status[0], BenchmarkStatus::Completed);
        // With -i a non-zero exit status is measured (hyperfine's -i), not a failure.
        let first: Vec<_> = log.executions.iter().filter(|r| r.benchmark == 0).collect();
        assert_eq!(first.len(), 5);
        assert_eq!(
            first
                .iter()
                .filter(|r| r.outcome.termination == Termination::Exited { code: 1 })
                .count(),
            1
        );
        assert!(log.failures.is_empty());
    }

    #[test]
    fn a_failed_conclude_keeps_the_execution_it_followed() {
        /// Simulated executions whose hook commands all exit with code 1.
        struct FailingHooks(SimulatedExecutor);
        impl Executor for FailingHooks {
            fn execute(&mut self, r: &ExecutionRequest) -> Result<ExecutionOutcome, RunError> {
                self.0.execute(r)
            }
            fn build(&mut self, r: &BuildRequest) -> Result<ExecutionOutcome, RunError> {
                self.0.build(r)
            }
            fn run_hook(&mut self, r: &HookRequest) -> Result<ExecutionOutcome, RunError> {
                let mut o = self.0.run_hook(r)?;
                o.termination = Termination::Exited { code: 1 };
                Ok(o)
            }
        }
        let run = |ignore_failure| {
            let settings = Settings {
                executions: 4,
                ignore_failure,
                ..Settings::default()
            };
            let mut b = bench("mean=1ms");
            b.hooks.conclude = Some(CommandLine::parse("false", false).unwrap());
            let mut log = Log::default();
            let report = Scheduler::new(&[b], &settings, StopSignal::new())
                .run(&mut FailingHooks(SimulatedExecutor::new(1)), &mut log)
                .unwrap();
            (report, log)
        };
        // The first execution is measured and kept; its conclude's failure ends the benchmark.
        let (report, log) = run(false);
        assert!(matches!(report.status[0], BenchmarkStatus::Failed(_)));
        assert_eq!(log.executions.len(), 1);
        assert_eq!(log.failures.len(), 1);
        assert_eq!(log.failures[0].stage, FailureStage::Conclude);
        assert_eq!(log.failures[0].execution, log.executions[0].execution);
        // With -i every execution is kept and every conclude failure recorded.
        let (report, log) = run(true);
        assert_eq!(report.status[0], BenchmarkStatus::Completed);
        assert_eq!(log.executions.len(), 4);
        assert_eq!(log.failures.len(), 4);
        assert!(log.failures.iter().all(|f| !f.ends_benchmark));
    }

    #[test]
    fn same_seed_same_order() {
        let benches = [bench("mean=1ms"), bench("mean=2ms")];
        let settings = Settings {
            executions: 10,
            seed: Seed(3),
            ..Settings::default()
        };
        let a: Vec<_> = run(&benches, &settings)
            .1
            .executions
            .iter()
            .map(|r| r.benchmark)
            .collect();
        let b: Vec<_> = run(&benches, &settings)
            .1
            .executions
            .iter()
            .map(|r| r.benchmark)
            .collect();
        assert_eq!(a, b);
    }

    /// Reshapes once, after the second measured round (or build).
    struct ReshapeOnce {
        log: Log,
        asked: usize,
        shape: Shape,
    }

    impl Observer for ReshapeOnce {
        fn execution(&mut self, r: &ExecutionRecord) -> Result<(), RunError> {
            self.log.execution(r)
        }
        fn round_finished(&mut self, _round: usize) -> Result<Control, RunError> {
            self.asked += 1;
            Ok(Control::Continue)
        }
        fn reshape(&mut self) -> Option<Shape> {
            (self.asked == 2).then(|| self.shape.clone())
        }
    }

    #[test]
    fn reshaping_changes_iterations_from_the_next_execution_and_executions_from_the_next_build() {
        // The simulator reports as many iterations as RIGOR_ITERATIONS asks for.
        let benches = [bench("mean=1ms,iterations=3")];
        let settings = Settings {
            executions: 5,
            seed: Seed(2),
            ..Settings::default()
        };
        let mut observer = ReshapeOnce {
            log: Log::default(),
            asked: 0,
            shape: Shape {
                iterations: vec![Some(7)],
                executions: Some(4),
            },
        };
        let mut ex = SimulatedExecutor::new(1);
        Scheduler::new(&benches, &settings, StopSignal::new())
            .run(&mut ex, &mut observer)
            .unwrap();
        let counts: Vec<usize> = observer
            .log
            .executions
            .iter()
            .map(|r| r.outcome.iterations.as_ref().unwrap().len())
            .collect();
        // Without builds the execution count is the total: 5 → 4.
        assert_eq!(counts, vec![3, 3, 7, 7]);

        let root = tempfile::tempdir().unwrap();
        let settings = Settings {
            executions: 2,
            seed: Seed(2),
            build: Some(BuildSettings {
                command: CommandLine::parse("true", false).unwrap(),
                builds: 3,
                root: root.path().to_path_buf(),
                timeout: None,
                interleaved: false,
                for_benchmark: Vec::new(),
                seeds: Vec::new(),
            }),
            ..Settings::default()
        };
        let mut observer = ReshapeOnce {
            log: Log::default(),
            asked: 0,
            shape: Shape {
                iterations: vec![None],
                executions: Some(3),
            },
        };
        Scheduler::new(&benches, &settings, StopSignal::new())
            .run(&mut ex, &mut observer)
            .unwrap();
        let per_build: Vec<usize> = (0..3)
            .map(|b| {
                observer
                    .log
                    .executions
                    .iter()
                    .filter(|r| r.build == Some(b))
                    .count()
            })
            .collect();
        assert_eq!(per_build, vec![2, 2, 3], "asked after each build");
    }

    #[test]
    fn iteration_counts_fill_the_iterations_placeholder() {
        let settings = Settings {
            executions: 2,
            iterations_per_execution: Some(9),
            ..Settings::default()
        };
        struct Commands(Vec<String>);
        impl Executor for Commands {
            fn execute(&mut self, r: &ExecutionRequest) -> Result<ExecutionOutcome, RunError> {
                self.0.push(r.command.argv().join(" "));
                SimulatedExecutor::new(1).execute(&ExecutionRequest {
                    command: &CommandLine::parse("mean=1ms", false).unwrap(),
                    ..*r
                })
            }
            fn build(&mut self, _r: &BuildRequest) -> Result<ExecutionOutcome, RunError> {
                unreachable!("no builds")
            }
            fn run_hook(&mut self, _r: &HookRequest) -> Result<ExecutionOutcome, RunError> {
                unreachable!("no hooks")
            }
        }
        let mut ex = Commands(Vec::new());
        let benches = [bench("prog --iters {iterations}")];
        Scheduler::new(&benches, &settings, StopSignal::new())
            .run(&mut ex, &mut Log::default())
            .unwrap();
        assert_eq!(ex.0, vec!["prog --iters 9"; 2]);
    }

    /// Interleaved builds: every build is made before the first execution; each round runs
    /// every build of every benchmark once, build by build (a build's benchmarks side by side),
    /// with the warm-up rounds first; each build gets its own substituted command.
    #[test]
    fn interleaved_builds_are_made_first_and_share_every_round() {
        let root = tempfile::tempdir().unwrap();
        let benches = [
            bench("mean=1ms,build=5% {build_dir}"),
            bench("mean=2ms,build=5% {build_dir}"),
        ];
        let settings = Settings {
            executions: 3,
            warmup_executions: 1,
            seed: Seed(5),
            build: Some(BuildSettings {
                command: CommandLine::parse("make -C {build_dir}", false).unwrap(),
                builds: 4,
                root: root.path().to_path_buf(),
                timeout: None,
                interleaved: true,
                for_benchmark: Vec::new(),
                seeds: Vec::new(),
            }),
            ..Settings::default()
        };
        struct Order {
            log: Log,
            /// (benchmark, build, command) in the order things ran; builds with `None`.
            seen: Vec<(usize, Option<usize>, String)>,
        }
        impl Observer for Order {
            fn build(&mut self, r: &BuildRecord) -> Result<(), RunError> {
                self.seen.push((r.benchmark, None, String::new()));
                self.log.build(r)
            }
            fn execution(&mut self, r: &ExecutionRecord) -> Result<(), RunError> {
                self.seen.push((r.benchmark, r.build, String::new()));
                self.log.execution(r)
            }
        }
        struct Commands(Vec<(usize, Option<usize>, String)>);
        impl Executor for Commands {
            fn execute(&mut self, r: &ExecutionRequest) -> Result<ExecutionOutcome, RunError> {
                self.0
                    .push((r.benchmark, r.build, r.command.argv().join(" ")));
                let spec = r.command.argv()[0].to_string();
                SimulatedExecutor::new(1).execute(&ExecutionRequest {
                    command: &CommandLine::parse(&spec, false).unwrap(),
                    ..*r
                })
            }
            fn build(&mut self, r: &BuildRequest) -> Result<ExecutionOutcome, RunError> {
                let spec = r.command_of_benchmark.argv()[0].to_string();
                SimulatedExecutor::new(1).build(&BuildRequest {
                    command_of_benchmark: &CommandLine::parse(&spec, false).unwrap(),
                    ..*r
                })
            }
            fn run_hook(&mut self, _r: &HookRequest) -> Result<ExecutionOutcome, RunError> {
                unreachable!("no hooks")
            }
        }
        let mut observer = Order {
            log: Log::default(),
            seen: Vec::new(),
        };
        let mut ex = Commands(Vec::new());
        let report = Scheduler::new(&benches, &settings, StopSignal::new())
            .run(&mut ex, &mut observer)
            .unwrap();
        assert_eq!(report.ending, Ending::Completed);
        let log = &observer.log;
        assert_eq!(log.builds.len(), 8);
        assert!(
            observer.seen[..8].iter().all(|s| s.1.is_none()),
            "every build before any execution: {:?}",
            observer.seen
        );
        assert_eq!(log.executions.len(), 2 * 4 * (3 + 1));
        for (round, chunk) in log.executions.chunks(8).enumerate() {
            assert!(chunk.iter().all(|r| r.round == round), "{chunk:?}");
            assert!(chunk.iter().all(|r| r.warmup == (round == 0)), "{chunk:?}");
            let mut pairs: Vec<(usize, usize)> = chunk
                .iter()
                .map(|r| (r.benchmark, r.build.unwrap()))
                .collect();
            // Build by build: each build's two benchmarks next to each other.
            for two in pairs.chunks(2) {
                assert_eq!(two[0].1, two[1].1, "{pairs:?}");
                assert_ne!(two[0].0, two[1].0, "{pairs:?}");
            }
            pairs.sort_unstable();
            let all: Vec<(usize, usize)> =
                (0..2).flat_map(|b| (0..4).map(move |k| (b, k))).collect();
            assert_eq!(pairs, all, "round {round}");
        }
        // The builds' order differs between rounds (shuffled), and each build ran its own
        // command.
        let firsts: std::collections::HashSet<usize> = log
            .executions
            .chunks(8)
            .map(|c| c[0].build.unwrap())
            .collect();
        assert!(firsts.len() > 1, "{firsts:?}");
        for (b, build, command) in &ex.0 {
            let dir = root
                .path()
                .join(format!("benchmark{b}-build{}", build.unwrap()));
            assert!(command.ends_with(&dir.display().to_string()), "{command}");
        }
    }

    /// Load that drifts over a run (the simulator's `drift`: each execution 0.1% slower than
    /// the one before, on every benchmark) makes the builds measured later look slower when each
    /// build's executions run in a block: the spread of identical builds' means is then the
    /// drift's. Interleaved, every build sees the whole run, and their means agree to within
    /// the executions' own noise.
    #[test]
    fn interleaved_builds_keep_a_drift_out_of_the_build_level() {
        let spread = |interleaved: bool| {
            let root = tempfile::tempdir().unwrap();
            let benches = [bench("mean=10ms,execution=0.2%,drift=0.1%")];
            let settings = Settings {
                executions: 10,
                seed: Seed(11),
                build: Some(BuildSettings {
                    command: CommandLine::parse("true", false).unwrap(),
                    builds: 6,
                    root: root.path().to_path_buf(),
                    timeout: None,
                    interleaved,
                    for_benchmark: Vec::new(),
                    seeds: Vec::new(),
                }),
                ..Settings::default()
            };
            let (_, log) = run(&benches, &settings);
            let means: Vec<f64> = (0..6)
                .map(|k| {
                    let w: Vec<f64> = log
                        .executions
                        .iter()
                        .filter(|r| r.build == Some(k))
                        .map(|r| r.outcome.wall.get())
                        .collect();
                    w.iter().sum::<f64>() / w.len() as f64
                })
                .collect();
            let m = means.iter().sum::<f64>() / 6.0;
            (means.iter().map(|x| (x - m).powi(2)).sum::<f64>() / 5.0).sqrt() / m
        };
        let (blocks, interleaved) = (spread(false), spread(true));
        // Blocks: build means 1% apart in turn (10 executions × 0.1%), an SD near 1.9%.
        assert!(blocks > 0.015, "blocks {blocks}");
        // Interleaved: what 10 executions' noise and a build's place within each round leave.
        assert!(
            interleaved < 0.2 * blocks,
            "interleaved {interleaved}, blocks {blocks}"
        );
    }

    #[test]
    fn builds_wrap_rounds_and_substitute_placeholders() {
        let root = tempfile::tempdir().unwrap();
        let benches = [bench("mean=1ms,build=5%"), bench("mean=2ms,build=5%")];
        let settings = Settings {
            executions: 3,
            warmup_executions: 1,
            seed: Seed(5),
            randomize_env: true,
            build: Some(BuildSettings {
                command: CommandLine::parse("make -C {build_dir} SEED={build_seed}", false)
                    .unwrap(),
                builds: 4,
                root: root.path().to_path_buf(),
                timeout: None,
                interleaved: false,
                for_benchmark: Vec::new(),
                seeds: Vec::new(),
            }),
            ..Settings::default()
        };
        let (report, log) = run(&benches, &settings);
        assert_eq!(report.ending, Ending::Completed);
        assert_eq!(log.builds.len(), 8);
        assert_eq!(log.executions.len(), 2 * 4 * 4);
        for r in &log.executions {
            let build_rounds = r.round / 4;
            assert_eq!(r.build, Some(build_rounds), "rounds are nested in builds");
            assert!(r.env_pad.is_some_and(|p| p <= MAX_ENV_PAD));
        }
        assert!(
            log.builds
                .iter()
                .all(|b| b.dir.starts_with(root.path()) && b.dir.is_dir())
        );
        let pads: Vec<_> = log.executions.iter().map(|r| r.env_pad).collect();
        assert_eq!(
            pads,
            run(&benches, &settings)
                .1
                .executions
                .iter()
                .map(|r| r.env_pad)
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn invalid_settings_are_refused_before_anything_runs() {
        struct Refuse;
        impl Executor for Refuse {
            fn execute(&mut self, _r: &ExecutionRequest) -> Result<ExecutionOutcome, RunError> {
                unreachable!("nothing runs with invalid settings")
            }
            fn build(&mut self, _r: &BuildRequest) -> Result<ExecutionOutcome, RunError> {
                unreachable!("nothing runs with invalid settings")
            }
            fn run_hook(&mut self, _r: &HookRequest) -> Result<ExecutionOutcome, RunError> {
                unreachable!("nothing runs with invalid settings")
            }
        }
        let builds = |builds, executions| Settings {
            executions,
            build: Some(BuildSettings {
                command: CommandLine::parse("true", false).unwrap(),
                builds,
                root: std::env::temp_dir(),
                timeout: None,
                interleaved: false,
                for_benchmark: Vec::new(),
                seeds: Vec::new(),
            }),
            ..Settings::default()
        };
        let cases = [
            (
                Settings {
                    executions: 1,
                    ..Settings::default()
                },
                SettingsError::TooFewExecutions { executions: 1 },
            ),
            (builds(1, 3), SettingsError::TooFewBuilds { builds: 1 }),
            (builds(3, 0), SettingsError::NoExecutionsPerBuild),
            (
                Settings {
                    executions: 2,
                    timeout: Some(Duration::ZERO),
                    ..Settings::default()
                },
                SettingsError::NonPositiveTimeout { what: "execution" },
            ),
            (
                Settings {
                    executions: 2,
                    iterations_per_execution: Some(0),
                    ..Settings::default()
                },
                SettingsError::ZeroIterations,
            ),
        ];
        for (settings, expected) in cases {
            assert_eq!(settings.validate(), Err(expected.clone()));
            let err = Scheduler::new(&[bench("mean=1ms")], &settings, StopSignal::new())
                .run(&mut Refuse, &mut Log::default())
                .unwrap_err();
            assert!(
                matches!(&err, RunError::Settings(e) if *e == expected),
                "{err:?}"
            );
            assert_eq!(err.to_string(), format!("invalid setting: {expected}"));
            // The message carries the reason, so it is not a source too (printed twice).
            assert!(std::error::Error::source(&err).is_none());
        }
        // Builds are the top level: one execution per build is a valid design.
        assert_eq!(builds(2, 1).validate(), Ok(()));
        assert_eq!(
            SettingsError::TooFewExecutions { executions: 1 }.to_string(),
            "1 execution(s) per benchmark: an interval needs at least 2 top-level units (5 or more for a reliable one); hyperfine's -r 1 measures once without a spread, rigor measures at least twice (or with --build, builds are the top level)"
        );

        // Absurd counts are refused before anything runs, naming the limit.
        use crate::limits::{MAX_BUILDS, MAX_EXECUTIONS, MAX_SAMPLES};
        let base = || Settings {
            executions: 10,
            ..Settings::default()
        };
        let cases: [(Settings, &str); 5] = [
            (
                Settings {
                    warmup_executions: 1_000_000_000_000,
                    ..base()
                },
                "warm-up executions per command",
            ),
            (
                Settings {
                    iterations_per_execution: Some(1_000_000_000_000),
                    ..base()
                },
                "iterations per execution",
            ),
            (
                Settings {
                    executions: 1_000,
                    iterations_per_execution: Some(MAX_SAMPLES / 10),
                    ..base()
                },
                "samples per benchmark",
            ),
            (builds(MAX_BUILDS + 1, 1), "builds per command"),
            (builds(1_000, MAX_EXECUTIONS / 100), "all builds'"),
        ];
        for (settings, what) in cases {
            let err = Scheduler::new(&[bench("mean=1ms")], &settings, StopSignal::new())
                .run(&mut Refuse, &mut Log::default())
                .unwrap_err();
            assert!(
                matches!(&err, RunError::Settings(SettingsError::TooLarge(_))),
                "{err:?}"
            );
            let text = err.to_string();
            assert!(
                text.contains(what) && text.contains("rigor allows"),
                "{text}"
            );
        }
        // A benchmark's own count (from a plan) is checked too.
        let mut huge = bench("mean=1ms");
        huge.iterations = Some(1_000_000_000_000);
        let err = Scheduler::new(&[huge], &base(), StopSignal::new())
            .run(&mut Refuse, &mut Log::default())
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("100000000 iterations per execution"),
            "{err}"
        );
    }

    #[test]
    fn observer_errors_keep_their_source() {
        #[derive(Debug)]
        struct Full;
        impl std::fmt::Display for Full {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("disk full")
            }
        }
        impl std::error::Error for Full {}
        #[derive(Debug)]
        struct Save(Full);
        impl std::fmt::Display for Save {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("cannot save results")
            }
        }
        impl std::error::Error for Save {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        struct Store;
        impl Observer for Store {
            fn execution(&mut self, _r: &ExecutionRecord) -> Result<(), RunError> {
                Err(RunError::observer(Save(Full)))
            }
        }
        let settings = Settings {
            executions: 3,
            ..Settings::default()
        };
        let err = Scheduler::new(&[bench("mean=1ms")], &settings, StopSignal::new())
            .run(&mut SimulatedExecutor::new(1), &mut Store)
            .unwrap_err();
        let RunError::Observer { source } = &err else {
            panic!("{err:?}");
        };
        assert!(source.downcast_ref::<Save>().is_some());
        // Shown as the observer's own error, its chain continuing below it.
        assert_eq!(err.to_string(), "cannot save results");
        let below = std::error::Error::source(&err).map(ToString::to_string);
        assert_eq!(below.as_deref(), Some("disk full"));
    }

    /// Simulated executions that write down, in order, every execution (its benchmark and
    /// `RIGOR_ITERATION`) and every hook (its command and the `HYPERFINE_ITERATION` it saw).
    struct Recording {
        inner: SimulatedExecutor,
        log: Vec<String>,
    }

    impl Executor for Recording {
        fn execute(&mut self, r: &ExecutionRequest) -> Result<ExecutionOutcome, RunError> {
            let var = |k: &str| r.env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
            assert_eq!(var(RIGOR_ITERATION_ENV), var(HYPERFINE_ITERATION_ENV));
            let at = var(RIGOR_ITERATION_ENV).unwrap_or_default();
            self.log.push(format!("{}@{at}", r.benchmark));
            self.inner.execute(r)
        }
        fn build(&mut self, r: &BuildRequest) -> Result<ExecutionOutcome, RunError> {
            self.inner.build(r)
        }
        fn run_hook(&mut self, r: &HookRequest) -> Result<ExecutionOutcome, RunError> {
            match r.env.iter().find(|(n, _)| n == HYPERFINE_ITERATION_ENV) {
                Some((_, at)) => self.log.push(format!("{}@{at}", r.command.text())),
                None => self.log.push(r.command.text()),
            }
            self.inner.run_hook(r)
        }
    }

    fn recorded(benches: &[Benchmark], executions: usize, warmup: usize) -> Vec<String> {
        let settings = Settings {
            executions,
            warmup_executions: warmup,
            seed: Seed(5),
            ..Settings::default()
        };
        let mut ex = Recording {
            inner: SimulatedExecutor::new(1),
            log: Vec::new(),
        };
        let report = Scheduler::new(benches, &settings, StopSignal::new())
            .run(&mut ex, &mut Log::default())
            .unwrap();
        assert_eq!(report.ending, Ending::Completed);
        ex.log
    }

    fn with_hooks(spec: &str, setup: &str, prepare: Option<&str>, cleanup: &str) -> Benchmark {
        let c = |t: &str| Some(CommandLine::parse(t, false).unwrap());
        let mut b = bench(spec);
        b.hooks = Hooks {
            setup: c(setup),
            prepare: prepare.and_then(c),
            conclude: None,
            cleanup: c(cleanup),
        };
        b
    }

    #[test]
    fn executions_and_their_prepare_know_their_number_as_hyperfine_counts() {
        let b = with_hooks("mean=1ms", "setup", Some("prep"), "cleanup");
        let log = recorded(&[b], 2, 1);
        assert_eq!(
            log,
            [
                "setup",
                "prep@warmup-0",
                "0@warmup-0",
                "prep@0",
                "0@0",
                "prep@1",
                "0@1",
                "cleanup"
            ]
        );
    }

    #[test]
    fn one_shared_setup_runs_once_around_the_interleaved_rounds() {
        let a = with_hooks("mean=1ms", "setup", None, "cleanup");
        let b = with_hooks("mean=2ms", "setup", None, "cleanup");
        let log = recorded(&[a.clone(), b.clone()], 3, 0);
        assert_eq!(log.first().map(String::as_str), Some("setup"));
        assert_eq!(log.last().map(String::as_str), Some("cleanup"));
        assert_eq!(log.iter().filter(|l| *l == "setup").count(), 1);
        assert_eq!(log.len(), 2 + 6);
        assert!(Scheduler::new(&[a, b], &Settings::default(), StopSignal::new()).interleaved());
    }

    #[test]
    fn a_shared_setup_runs_once_in_each_working_directory() {
        // Versions' checkouts under `rigor track`: the same setup, run in each checkout.
        let mut a = with_hooks("mean=1ms", "setup", None, "cleanup");
        let mut b = with_hooks("mean=2ms", "setup", None, "cleanup");
        let mut c = with_hooks("mean=3ms", "setup", None, "cleanup");
        a.dir = Some("/v1".into());
        b.dir = Some("/v2".into());
        c.dir = Some("/v1".into());
        let log = recorded(&[a, b, c], 2, 0);
        assert_eq!(log[..2], ["setup", "setup"]);
        assert_eq!(log[log.len() - 2..], ["cleanup", "cleanup"]);
        assert_eq!(log.len(), 4 + 6);
    }

    #[test]
    fn differing_setups_run_each_benchmark_in_its_own_block() {
        let a = with_hooks("mean=1ms", "setup-a", None, "cleanup-a");
        let b = with_hooks("mean=2ms", "setup-b", None, "cleanup-b");
        let log = recorded(&[a.clone(), b.clone()], 2, 1);
        assert_eq!(
            log,
            [
                "setup-a",
                "0@warmup-0",
                "0@0",
                "0@1",
                "cleanup-a",
                "setup-b",
                "1@warmup-0",
                "1@0",
                "1@1",
                "cleanup-b"
            ]
        );
        assert!(!Scheduler::new(&[a, b], &Settings::default(), StopSignal::new()).interleaved());
    }
}
