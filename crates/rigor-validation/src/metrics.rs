//! Wall time against CPU time under load: real processes measured by rigor's own run use case
//! (`rigor_app::run::run` on the `ProcessExecutor`) while a CPU hog the study starts and stops
//! itself competes for the cores (docs/validation/metrics.md, `rigor-validation metrics`).
//!
//! Two C programs are compiled with `gcc` into a temporary directory: a CPU-bound loop (a fixed
//! number of iterations, calibrated to about [`CPU_MS`] of work) and a program that alternates
//! work and sleep (about [`MIXED_WORK_MS`] of work and [`MIXED_SLEEP_MS`] of sleep, in
//! [`CHUNKS`] chunks). The hog is a third C program: one busy loop per core, started as
//! children of the study and killed by a guard ([`Hog`]) when it is dropped — also when the
//! study panics; each busy loop also asks Linux to kill it when the study dies
//! (`PR_SET_PDEATHSIG`) and stops by itself after [`HOG_LIMIT_S`] seconds.
//!
//! What is measured, every run `-r` [`StudySizes::executions`] with one warm-up execution:
//!
//! - **Shift**: one run of each program without the hog and one under it, side by side,
//!   compared with rigor's comparison (`rigor_app::saved::compare_loaded`: Fieller's interval
//!   for the ratio of means, 95%, δ = 1%), for wall time and for CPU time (user + system,
//!   [`rigor_store::ResultFile::for_metric`] with [`Metric::Cpu`]). Beside it, the work-and-sleep
//!   program against itself with 10 ms more sleep: a change CPU time cannot see.
//! - **A/A pairs**: two runs of the *same* program, compared the same way, where both runs are
//!   quiet, both under the hog, or one quiet and one under the hog (which one: seeded). Every
//!   verdict of *slower* or *faster* is a false alarm. The pairs of every condition and program
//!   run in one seeded random order, so the conditions share the machine's background noise.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rand::Rng;
use rand::seq::SliceRandom;
use rigor_app::recorder::NoProgress;
use rigor_app::saved::{CompareFilesSettings, compare_loaded};
use rigor_app::settings::RunRequest;
use rigor_runner::{ProcessExecutor, StopSignal};
use rigor_stats::compare::Verdict;
use rigor_store::ResultFile;
use rigor_units::{Metric, Seed};

use crate::common::{experiment_seed, median, rng_for, row_seed};

/// Target work of the CPU-bound program, milliseconds.
pub const CPU_MS: f64 = 30.0;
/// Target work of the work-and-sleep program, milliseconds.
pub const MIXED_WORK_MS: f64 = 20.0;
/// Sleep of the work-and-sleep program, milliseconds.
pub const MIXED_SLEEP_MS: f64 = 20.0;
/// Extra sleep of the work-and-sleep program's "sleeps 10 ms more" variant, milliseconds.
pub const MORE_SLEEP_MS: f64 = 10.0;
/// Chunks the work-and-sleep program alternates its work and sleep in.
pub const CHUNKS: u32 = 4;
/// A busy loop of the hog ends by itself after this many seconds, whatever happens to the study.
pub const HOG_LIMIT_S: u32 = 900;

/// The busy loop of the hog: dies with the process that started it (Linux), ends after
/// `argv[2]` seconds in any case.
const HOG_C: &str = r#"#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
int main(int argc, char **argv) {
    if (argc < 3) return 2;
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    /* The study died before prctl: do not outlive it. */
    if (getppid() != (pid_t)strtol(argv[1], 0, 10)) return 0;
    alarm((unsigned)strtoul(argv[2], 0, 10));
    volatile unsigned long x = 0;
    for (;;) x++;
}
"#;

/// The measured program: `work ITERATIONS SLEEP_US CHUNKS` runs a fixed number of iterations
/// of an LCG and sleeps, in `CHUNKS` alternations.
const WORK_C: &str = r#"#include <errno.h>
#include <stdlib.h>
#include <time.h>
static unsigned long spin(unsigned long n, unsigned long x) {
    for (unsigned long i = 0; i < n; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
    return x;
}
int main(int argc, char **argv) {
    if (argc < 4) return 2;
    unsigned long n = strtoul(argv[1], 0, 10);
    long sleep_us = strtol(argv[2], 0, 10);
    long chunks = strtol(argv[3], 0, 10);
    if (chunks < 1) chunks = 1;
    volatile unsigned long sink = 1;
    for (long c = 0; c < chunks; c++) {
        sink = spin(n / chunks, sink);
        long us = sleep_us / chunks;
        if (us > 0) {
            struct timespec t = {us / 1000000, (us % 1000000) * 1000L};
            while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
        }
    }
    return (int)(sink & 0);
}
"#;

/// How big the study is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StudySizes {
    /// Measured executions per run (`-r`).
    pub executions: usize,
    /// A/A pairs per program and condition.
    pub pairs: usize,
    /// Measured executions per run of the shift comparisons.
    pub shift_executions: usize,
}

impl StudySizes {
    /// The published study (about four minutes on two cores).
    pub fn full() -> Self {
        Self {
            executions: 15,
            pairs: 20,
            shift_executions: 30,
        }
    }

    /// A few seconds: to try the machinery, not for figures.
    pub fn tiny() -> Self {
        Self {
            executions: 3,
            pairs: 1,
            shift_executions: 3,
        }
    }
}

/// The C programs, compiled into a temporary directory.
#[derive(Debug)]
pub struct Programs {
    dir: tempfile::TempDir,
    /// The measured program (`work ITERATIONS SLEEP_US CHUNKS`).
    pub work: PathBuf,
    /// The busy loop (`hog PARENT_PID LIMIT_S`).
    pub hog: PathBuf,
}

impl Programs {
    /// Writes the sources and compiles them with `gcc -O2`.
    ///
    /// # Errors
    /// gcc missing or failing.
    pub fn compile() -> Result<Self> {
        let dir = tempfile::tempdir().context("creating a temporary directory")?;
        let build = |name: &str, source: &str| -> Result<PathBuf> {
            let c = dir.path().join(format!("{name}.c"));
            std::fs::write(&c, source)?;
            let bin = dir.path().join(name);
            let out = Command::new("gcc")
                .args(["-O2", "-o"])
                .arg(&bin)
                .arg(&c)
                .output()
                .context("running gcc (needed to build the study's programs)")?;
            crate::common::succeeded(out, &format!("gcc {name}.c"))?;
            Ok(bin)
        };
        let work = build("work", WORK_C)?;
        let hog = build("hog", HOG_C)?;
        Ok(Self { dir, work, hog })
    }

    /// The directory the programs are in.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

/// A CPU hog: busy loops that are children of this process, killed and reaped when it is
/// dropped (at the end of a scope, or while a panic unwinds).
#[derive(Debug)]
pub struct Hog {
    children: Vec<Child>,
}

impl Hog {
    /// Starts `loops` busy loops of `program` (the study's `hog`).
    ///
    /// # Errors
    /// A busy loop that cannot be started (those already started are killed).
    pub fn start(program: &Path, loops: usize) -> Result<Self> {
        let mut hog = Self {
            children: Vec::with_capacity(loops),
        };
        for _ in 0..loops {
            let child = Command::new(program)
                .arg(std::process::id().to_string())
                .arg(HOG_LIMIT_S.to_string())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .with_context(|| format!("starting the CPU hog {}", program.display()))?;
            hog.children.push(child);
        }
        Ok(hog)
    }

    /// The process ids of its busy loops.
    pub fn pids(&self) -> Vec<u32> {
        self.children.iter().map(Child::id).collect()
    }

    /// Whether every busy loop is still running.
    ///
    /// # Errors
    /// One has ended (the load would silently be less than reported).
    pub fn check(&mut self) -> Result<()> {
        for c in &mut self.children {
            if let Some(status) = c.try_wait()? {
                bail!("a busy loop of the CPU hog ended early ({status})");
            }
        }
        Ok(())
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
        }
        for c in &mut self.children {
            let _ = c.wait();
        }
    }
}

/// The load during a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Load {
    /// No hog (the machine as it is).
    Quiet,
    /// One busy loop per core.
    Hog,
}

impl Load {
    fn name(self) -> &'static str {
        match self {
            Self::Quiet => "quiet",
            Self::Hog => "hog",
        }
    }
}

/// The hog on or off, as the next run needs it.
struct LoadSwitch<'a> {
    program: &'a Path,
    loops: usize,
    hog: Option<Hog>,
}

impl LoadSwitch<'_> {
    fn set(&mut self, load: Load) -> Result<()> {
        match (load, &mut self.hog) {
            (Load::Quiet, _) => self.hog = None,
            (Load::Hog, Some(h)) => h.check()?,
            (Load::Hog, None) => {
                self.hog = Some(Hog::start(self.program, self.loops)?);
                // Let the busy loops reach the scheduler's steady share.
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        Ok(())
    }
}

/// One measured program.
#[derive(Debug, Clone)]
pub struct Program {
    /// Its name in the tables.
    pub name: &'static str,
    /// Its command line.
    pub command: String,
}

/// Iterations of the work loop per millisecond on this machine: the fastest of 5 runs of a
/// fixed count, without the hog.
fn calibrate(work: &Path) -> Result<f64> {
    const N: u64 = 20_000_000;
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let start = Instant::now();
        let out = Command::new(work)
            .args([N.to_string().as_str(), "0", "1"])
            .output()
            .context("running the work program")?;
        crate::common::succeeded(out, "the work program")?;
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
    }
    Ok(N as f64 / best.max(1e-3))
}

/// The command running `work_ms` of work (at `per_ms` iterations per ms) and `sleep_ms` of sleep.
fn command(work: &Path, per_ms: f64, work_ms: f64, sleep_ms: f64, chunks: u32) -> Result<String> {
    let path = work.display().to_string();
    if path.contains('\'') {
        bail!("the temporary directory's path has a quote: {path}");
    }
    Ok(format!(
        "'{path}' {} {} {chunks}",
        (per_ms * work_ms).round() as u64,
        (sleep_ms * 1e3).round() as u64
    ))
}

/// One run of `program` through rigor's run use case on real processes: `-r executions`, one
/// warm-up execution, no shell.
fn measure(program: &Program, executions: usize, seed: u64) -> Result<ResultFile> {
    let request = RunRequest {
        commands: vec![program.command.clone()],
        names: vec![program.name.to_string()],
        executions: Some(executions),
        warmup_executions: Some(1),
        seed: Some(Seed::from(seed)),
        shell: Some("none".into()),
        ..RunRequest::default()
    };
    let settings = request.resolve()?.settings;
    let stop = StopSignal::new();
    let mut executor = ProcessExecutor::new(stop.clone())?;
    let measured = rigor_app::run::run(&settings, &mut executor, stop, &mut NoProgress)?;
    Ok(measured.result)
}

/// A comparison of one metric: new against old.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Compared {
    /// Mean of the old run (seconds).
    pub old: f64,
    /// Mean of the new run (seconds).
    pub new: f64,
    /// Ratio new/old.
    pub ratio: f64,
    /// Its 95% interval (`None`: unbounded).
    pub interval: Option<(f64, f64)>,
    /// rigor's verdict.
    pub verdict: Verdict,
}

impl Compared {
    /// The same comparison the other way round (old against new).
    pub fn inverted(self) -> Self {
        Self {
            old: self.new,
            new: self.old,
            ratio: 1.0 / self.ratio,
            interval: self.interval.map(|(a, b)| (1.0 / b, 1.0 / a)),
            verdict: match self.verdict {
                Verdict::Regression => Verdict::Improvement,
                Verdict::Improvement => Verdict::Regression,
                v => v,
            },
        }
    }

    /// A reported change: rigor said slower or faster.
    pub fn alarm(&self) -> bool {
        matches!(self.verdict, Verdict::Regression | Verdict::Improvement)
    }
}

/// The mean of a metric over the measured executions of a run's only benchmark (seconds).
fn mean_of(result: &ResultFile, metric: &Metric) -> f64 {
    let values: Vec<f64> = result
        .benchmarks
        .iter()
        .flat_map(|b| &b.executions)
        .filter(|e| !e.warmup)
        .map(|e| match metric {
            Metric::Cpu => e.user.get() + e.sys.get(),
            _ => e.wall.get(),
        })
        .collect();
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// rigor's comparison of `new` with `old` for `metric`, at 95% with the default threshold.
///
/// # Errors
/// A result without the metric, or no comparison computed.
pub fn compare(old: &ResultFile, new: &ResultFile, metric: &Metric, seed: u64) -> Result<Compared> {
    let settings = CompareFilesSettings {
        old: Vec::new(),
        new: Vec::new(),
        format: None,
        seed: Seed::from(seed),
        analysis: Default::default(),
        comparison: Default::default(),
        // The results are projected onto the metric here.
        metrics: Vec::new(),
        estimator_asked: true,
    };
    let compared = compare_loaded(
        old.for_metric(metric)?,
        new.for_metric(metric)?,
        &settings,
        false,
    )?;
    let c = &compared
        .comparisons
        .first()
        .with_context(|| format!("no {metric} comparison was computed"))?
        .comparison;
    Ok(Compared {
        old: mean_of(old, metric),
        new: mean_of(new, metric),
        ratio: c.ratio,
        interval: c.ci.map(|i| (i.lower, i.upper)),
        verdict: c.verdict,
    })
}

/// Wall time and CPU time of one comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Both {
    /// Wall time.
    pub wall: Compared,
    /// CPU time (user + system).
    pub cpu: Compared,
}

impl Both {
    /// CPU time when `cpu`, else wall time.
    pub fn of(&self, cpu: bool) -> &Compared {
        if cpu { &self.cpu } else { &self.wall }
    }
}

fn both(old: &ResultFile, new: &ResultFile, seed: u64) -> Result<Both> {
    Ok(Both {
        wall: compare(old, new, &Metric::Wall, seed)?,
        cpu: compare(old, new, &Metric::Cpu, seed)?,
    })
}

/// The A/A conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    /// Both runs quiet.
    Quiet,
    /// Both runs under the hog.
    Hog,
    /// One run quiet, the other under the hog.
    Changing,
}

impl Condition {
    /// Every condition, in table order.
    pub const ALL: [Self; 3] = [Self::Quiet, Self::Hog, Self::Changing];

    /// Its name in the tables.
    pub fn name(self) -> &'static str {
        match self {
            Self::Quiet => "quiet / quiet",
            Self::Hog => "hog / hog",
            Self::Changing => "quiet / hog (changing load)",
        }
    }
}

/// One A/A pair: the same program run twice.
#[derive(Debug, Clone)]
pub struct Pair {
    /// Index of the program.
    pub program: usize,
    /// Its condition.
    pub condition: Condition,
    /// The load of the first and of the second run.
    pub loads: [Load; 2],
    /// rigor's seed of both runs (and of the comparison's bootstrap).
    pub seed: u64,
    /// The second run against the first.
    pub compared: Both,
}

/// A shift: new against old, for both metrics.
#[derive(Debug, Clone)]
pub struct Shift {
    /// What changed, in words.
    pub what: String,
    /// The program.
    pub program: &'static str,
    /// New against old.
    pub compared: Both,
}

/// Everything the study measured.
#[derive(Debug, Clone)]
pub struct Study {
    /// Master seed.
    pub seed: u64,
    /// Its sizes.
    pub sizes: StudySizes,
    /// Busy loops of the hog (one per core).
    pub loops: usize,
    /// The programs' commands as measured (in the temporary directory).
    pub programs: Vec<Program>,
    /// Work-loop iterations per millisecond found by the calibration.
    pub per_ms: f64,
    /// Hog against quiet, and the extra sleep.
    pub shifts: Vec<Shift>,
    /// Every A/A pair, in the order run.
    pub pairs: Vec<Pair>,
    /// Load average (1, 5, 15 min) before and after.
    pub load: (String, String),
    /// Wall time of the whole study, seconds.
    pub seconds: f64,
}

/// The number of cores, as the hog's busy loops.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// Runs the study: compiles the programs, calibrates, measures the shifts and the A/A pairs.
///
/// # Errors
/// gcc missing, a run or a comparison that fails, a hog that dies.
pub fn study(sizes: StudySizes, seed: u64, loops: usize, verbose: bool) -> Result<Study> {
    let started = Instant::now();
    let load_before = crate::sequential_real::load_average();
    let compiled = Programs::compile()?;
    let per_ms = calibrate(&compiled.work)?;
    let work = &compiled.work;
    let programs = vec![
        Program {
            name: "CPU-bound",
            command: command(work, per_ms, CPU_MS, 0.0, 1)?,
        },
        Program {
            name: "work and sleep",
            command: command(work, per_ms, MIXED_WORK_MS, MIXED_SLEEP_MS, CHUNKS)?,
        },
    ];
    let more_sleep = Program {
        name: "work and sleep",
        command: command(
            work,
            per_ms,
            MIXED_WORK_MS,
            MIXED_SLEEP_MS + MORE_SLEEP_MS,
            CHUNKS,
        )?,
    };
    if verbose {
        eprintln!(
            "metrics: seed {seed}; {per_ms:.0} iterations/ms; {loops} busy loops; programs in {}",
            compiled.dir().display()
        );
    }
    let mut switch = LoadSwitch {
        program: &compiled.hog,
        loops,
        hog: None,
    };
    let mut shifts = Vec::new();
    // Shifts: each program quiet, then under the hog, side by side.
    for (i, p) in programs.iter().enumerate() {
        let s = row_seed(seed, &format!("metrics/shift/{}", p.name));
        switch.set(Load::Quiet)?;
        let quiet = measure(p, sizes.shift_executions, s)?;
        switch.set(Load::Hog)?;
        let hog = measure(p, sizes.shift_executions, s)?;
        switch.set(Load::Quiet)?;
        shifts.push(Shift {
            what: format!("under the hog ({loops} busy loops) / quiet"),
            program: programs[i].name,
            compared: both(&quiet, &hog, s)?,
        });
        if verbose {
            eprintln!("metrics: shift of {} measured", p.name);
        }
    }
    // A change CPU time cannot see: 10 ms more sleep, quiet.
    {
        let s = row_seed(seed, "metrics/shift/sleep");
        let before = measure(&programs[1], sizes.shift_executions, s)?;
        let after = measure(&more_sleep, sizes.shift_executions, s)?;
        shifts.push(Shift {
            what: format!("{MORE_SLEEP_MS:.0} ms more sleep / as before (quiet)"),
            program: programs[1].name,
            compared: both(&before, &after, s)?,
        });
    }
    // The A/A pairs, every program and condition in one seeded random order.
    let order_seed = row_seed(seed, "metrics/pairs");
    let mut rng = rng_for(order_seed, 0);
    let mut plan = Vec::new();
    for program in 0..programs.len() {
        for condition in Condition::ALL {
            for _ in 0..sizes.pairs {
                let loads = match condition {
                    Condition::Quiet => [Load::Quiet; 2],
                    Condition::Hog => [Load::Hog; 2],
                    Condition::Changing if rng.gen_bool(0.5) => [Load::Hog, Load::Quiet],
                    Condition::Changing => [Load::Quiet, Load::Hog],
                };
                plan.push((program, condition, loads));
            }
        }
    }
    plan.shuffle(&mut rng);
    let mut pairs = Vec::with_capacity(plan.len());
    for (i, (program, condition, loads)) in plan.into_iter().enumerate() {
        let s = experiment_seed(order_seed, i + 1) & 0xFFFF_FFFF;
        let p = &programs[program];
        switch.set(loads[0])?;
        let first = measure(p, sizes.executions, s)?;
        switch.set(loads[1])?;
        let second = measure(p, sizes.executions, s)?;
        pairs.push(Pair {
            program,
            condition,
            loads,
            seed: s,
            compared: both(&first, &second, s)?,
        });
        if verbose && (i + 1) % 10 == 0 {
            eprintln!("metrics: {} A/A pairs measured", i + 1);
        }
    }
    drop(switch);
    Ok(Study {
        seed,
        sizes,
        loops,
        programs,
        per_ms,
        shifts,
        pairs,
        load: (load_before, crate::sequential_real::load_average()),
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn ms(seconds: f64) -> String {
    format!("{:.1} ms", seconds * 1e3)
}

fn interval(c: &Compared) -> String {
    c.interval
        .map_or("unbounded".into(), |(a, b)| format!("{a:.3} .. {b:.3}"))
}

/// Count of pairs of `program` and `condition` whose `metric`'s verdict satisfies `f`.
fn count(
    study: &Study,
    program: usize,
    condition: Condition,
    cpu: bool,
    f: impl Fn(&Compared) -> bool,
) -> usize {
    study
        .pairs
        .iter()
        .filter(|p| p.program == program && p.condition == condition)
        .filter(|p| f(p.compared.of(cpu)))
        .count()
}

/// The ratios hog/quiet of the changing-load pairs of `program` (each pair oriented so).
fn hog_over_quiet(study: &Study, program: usize, cpu: bool) -> Vec<Compared> {
    study
        .pairs
        .iter()
        .filter(|p| p.program == program && p.condition == Condition::Changing)
        .map(|p| {
            let c = *p.compared.of(cpu);
            if p.loads[0] == Load::Hog {
                c.inverted()
            } else {
                c
            }
        })
        .collect()
}

/// The page docs/validation/metrics.md.
pub fn report(study: &Study) -> String {
    let mut s = String::new();
    let z = &study.sizes;
    let _ = writeln!(
        s,
        "# Wall time and CPU time under load\n\n<!-- Generated by `cargo run --release -p \
         rigor-validation -- metrics{args}`; do not edit by hand. -->\n\n\
         Master seed {seed} (`--seed`); every run's seed and the order of the A/A pairs derive \
         from it and are printed below. Real processes on this machine ({cores} cores, load \
         average over 1, 5 and 15 min before: {before}; after: {after}), measured by rigor's own \
         run use case (`rigor_app::run::run` on the process executor, no shell, one warm-up \
         execution) and compared with rigor's comparison (`rigor_app::saved::compare_loaded`: \
         Fieller's 95% interval for the ratio of means over executions, δ = 1%), for wall time \
         and for CPU time (user + system of the process, `--metric cpu`, through \
         `ResultFile::for_metric`). The whole study took {secs:.0} s.\n",
        args = arguments(study),
        seed = study.seed,
        cores = cores(),
        before = study.load.0,
        after = study.load.1,
        secs = study.seconds,
    );
    let _ = writeln!(
        s,
        "Programs (C, compiled with `gcc -O2` when the study starts; the work is a fixed number of \
         iterations of a loop, {per_ms:.0} per ms on this machine when calibrated):\n\n\
         - **CPU-bound**: about {CPU_MS:.0} ms of work.\n\
         - **work and sleep**: about {MIXED_WORK_MS:.0} ms of work and {MIXED_SLEEP_MS:.0} ms of \
         sleep, alternating in {CHUNKS} chunks.\n\n\
         The **hog** is {loops} busy loops (as many as cores), child processes the study starts \
         before a run under load and kills after it (a guard kills them when the study ends or \
         panics, and Linux kills them if the study dies). The machine is shared: *quiet* means \
         without the hog, not idle.\n",
        per_ms = study.per_ms,
        loops = study.loops,
    );
    let _ = writeln!(
        s,
        "## How far the mean moves\n\nEach row is one run of {n} executions against another of \
         {n}, side by side (the second right after the first), compared unpaired as two saved \
         results are.\n\n\
         | program | change | metric | first run, mean | second run, mean | ratio | 95% interval | verdict |\n\
         |---|---|---|---:|---:|---:|---|---|",
        n = z.shift_executions
    );
    for sh in &study.shifts {
        for (metric, c) in [("wall", &sh.compared.wall), ("CPU", &sh.compared.cpu)] {
            let _ = writeln!(
                s,
                "| {} | {} | {metric} | {} | {} | {:.3} | {} | {} |",
                sh.program,
                sh.what,
                ms(c.old),
                ms(c.new),
                c.ratio,
                interval(c),
                c.verdict.as_str()
            );
        }
    }
    let _ = writeln!(
        s,
        "\n## A/A false alarms\n\n{pairs} pairs per program and condition: the same program run \
         twice ({n} executions each), the second run compared with the first. The truth is no \
         change, so every *slower* or *faster* verdict is a false alarm. In the changing-load \
         pairs the hog is on during one run of the two (which one: seeded, half each way).\n\n\
         | program | condition | wall: false alarms (slower / faster) | wall: equivalent | wall: inconclusive or unbounded | CPU: false alarms (slower / faster) | CPU: equivalent | CPU: inconclusive or unbounded |\n\
         |---|---|---:|---:|---:|---:|---:|---:|",
        pairs = z.pairs,
        n = z.executions
    );
    for (i, p) in study.programs.iter().enumerate() {
        for condition in Condition::ALL {
            let n = count(study, i, condition, false, |_| true);
            let mut cells = Vec::new();
            for of in [false, true] {
                let slower = count(study, i, condition, of, |c| {
                    c.verdict == Verdict::Regression
                });
                let faster = count(study, i, condition, of, |c| {
                    c.verdict == Verdict::Improvement
                });
                let eq = count(study, i, condition, of, |c| {
                    c.verdict == Verdict::Equivalent
                });
                let open = n - slower - faster - eq;
                cells.push(format!(
                    "{} of {n} ({slower} / {faster}) | {eq} of {n} | {open} of {n}",
                    slower + faster
                ));
            }
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} |",
                p.name,
                condition.name(),
                cells[0],
                cells[1]
            );
        }
    }
    let _ = writeln!(
        s,
        "\nThe ratio hog/quiet in the changing-load pairs (each pair oriented so), median and range \
         over the pairs:\n\n| program | wall: hog/quiet | CPU: hog/quiet |\n|---|---|---|"
    );
    for (i, p) in study.programs.iter().enumerate() {
        let cell = |of: bool| {
            let r: Vec<f64> = hog_over_quiet(study, i, of)
                .iter()
                .map(|c| c.ratio)
                .collect();
            if r.is_empty() {
                return "–".to_string();
            }
            let (lo, hi) = crate::range(r.iter().copied());
            format!("{:.3} ({lo:.3}–{hi:.3})", median(&r))
        };
        let _ = writeln!(s, "| {} | {} | {} |", p.name, cell(false), cell(true));
    }
    let _ = writeln!(
        s,
        "\n<details><summary>Every A/A pair, in the order run</summary>\n\n\
         | # | program | loads (first, second) | rigor --seed | wall: ratio | wall: 95% interval | wall: verdict | CPU: ratio | CPU: 95% interval | CPU: verdict |\n\
         |---:|---|---|---:|---:|---|---|---:|---|---|"
    );
    for (k, p) in study.pairs.iter().enumerate() {
        let (w, c) = (&p.compared.wall, &p.compared.cpu);
        let _ = writeln!(
            s,
            "| {} | {} | {}, {} | {} | {:.3} | {} | {} | {:.3} | {} | {} |",
            k + 1,
            study.programs[p.program].name,
            p.loads[0].name(),
            p.loads[1].name(),
            p.seed,
            w.ratio,
            interval(w),
            w.verdict.as_str(),
            c.ratio,
            interval(c),
            c.verdict.as_str()
        );
    }
    let _ = writeln!(s, "\n</details>\n");
    findings(study, &mut s);
    s
}

/// The arguments that reproduce `study` besides `metrics` (its seed and pairs when not the
/// defaults).
fn arguments(study: &Study) -> String {
    let mut a = String::new();
    if study.seed != crate::DEFAULT_SEED {
        let _ = write!(a, " --seed {}", study.seed);
    }
    if study.sizes.pairs != StudySizes::full().pairs {
        let _ = write!(a, " --pairs {}", study.sizes.pairs);
    }
    a
}

/// `c`'s ratio as a signed percentage.
fn percent(c: &Compared) -> String {
    format!("{:+.1}%", 100.0 * (c.ratio - 1.0))
}

/// Whether `c`'s interval excludes 1 (a change, whatever the threshold).
fn excludes_one(c: &Compared) -> bool {
    c.interval.is_some_and(|(a, b)| a > 1.0 || b < 1.0)
}

/// False alarms of `cpu` (else wall) over the pairs of `conditions`: (alarms, pairs).
fn alarms(study: &Study, conditions: &[Condition], cpu: bool) -> (usize, usize) {
    let pairs = study
        .pairs
        .iter()
        .filter(|p| conditions.contains(&p.condition));
    let (mut hits, mut n) = (0, 0);
    for p in pairs {
        n += 1;
        hits += usize::from(p.compared.of(cpu).alarm());
    }
    (hits, n)
}

/// The median relative half-width of the ratio intervals of `cpu` (else wall) over the bounded
/// pairs of `conditions`, as a percentage.
fn half_width(study: &Study, conditions: &[Condition], cpu: bool) -> String {
    let widths: Vec<f64> = study
        .pairs
        .iter()
        .filter(|p| conditions.contains(&p.condition))
        .filter_map(|p| p.compared.of(cpu).interval)
        .map(|(a, b)| (b - a) / 2.0)
        .collect();
    if widths.is_empty() {
        "–".into()
    } else {
        format!("±{:.1}%", 100.0 * median(&widths))
    }
}

/// The "What it shows" section: the figures above in words, with what CPU time cannot see.
fn findings(study: &Study, s: &mut String) {
    let _ = writeln!(s, "## What it shows\n");
    let hog_shifts: Vec<&Shift> = study
        .shifts
        .iter()
        .filter(|x| x.what.starts_with("under the hog"))
        .collect();
    for sh in &hog_shifts {
        let (w, c) = (&sh.compared.wall, &sh.compared.cpu);
        let cpu_moved = if excludes_one(c) {
            format!(
                "CPU time moved too, by {} ({}), which rigor calls *{}*",
                percent(c),
                interval(c),
                c.verdict.as_str()
            )
        } else {
            format!(
                "CPU time's interval ({}) contains 1: no shift shown",
                interval(c)
            )
        };
        let _ = writeln!(
            s,
            "- **{}** under the hog: wall time {} ({}); {}.",
            sh.program,
            percent(w),
            interval(w),
            cpu_moved
        );
    }
    if let Some(sh) = study.shifts.iter().find(|x| x.what.contains("more sleep")) {
        let (w, c) = (&sh.compared.wall, &sh.compared.cpu);
        let _ = writeln!(
            s,
            "- **{MORE_SLEEP_MS:.0} ms more sleep** (a real slowdown of the work-and-sleep \
             program, without the hog): wall time {} (*{}*), CPU time {} (*{}*).",
            percent(w),
            w.verdict.as_str(),
            percent(c),
            c.verdict.as_str()
        );
    }
    let steady = [Condition::Quiet, Condition::Hog];
    let changing = [Condition::Changing];
    let (wc, nc) = alarms(study, &changing, false);
    let (cc, _) = alarms(study, &changing, true);
    let (ws, ns) = alarms(study, &steady, false);
    let (cs, _) = alarms(study, &steady, true);
    let _ = writeln!(
        s,
        "- **A/A false alarms** when the load changed between the two runs: wall time {wc} of \
         {nc}, CPU time {cc} of {nc}; when it did not (quiet / quiet and hog / hog): wall time \
         {ws} of {ns}, CPU time {cs} of {ns}. The median half-width of the A/A ratio \
         intervals with steady load: wall time {}, CPU time {}.\n",
        half_width(study, &steady, false),
        half_width(study, &steady, true),
    );
    let (call, nall) = alarms(study, &Condition::ALL, true);
    let (wall_all, _) = alarms(study, &Condition::ALL, false);
    let steady_cpu: Vec<f64> = study
        .pairs
        .iter()
        .filter(|p| steady.contains(&p.condition))
        .map(|p| p.compared.cpu.ratio)
        .collect();
    if nall > 0 && !steady_cpu.is_empty() {
        let (lo, hi) = crate::range(steady_cpu.iter().copied());
        let rate = call as f64 / nall as f64;
        let against = if rate > 0.05 {
            "more than the 5% a 95% interval allows if two runs of a program were exchangeable"
        } else {
            "within the 5% a 95% interval allows"
        };
        let _ = writeln!(
            s,
            "Over all {nall} A/A pairs CPU time raised {call} false alarms ({:.1}%), wall time \
             {wall_all}: {against}. Two runs of one program differ by more than the executions \
             of one run show (the CPU-time ratios of the steady-load pairs range over \
             {lo:.3}–{hi:.3}), and CPU time's narrow intervals turn such differences between \
             runs into verdicts: the effect Kalibera & Tůma 2006 found one level down (the \
             executions of one binary differ by more than their iterations do). Only repeated \
             runs, or commands interleaved in one run, show how far runs move.\n",
            100.0 * rate
        );
    }
    let (wq, nq) = alarms(study, &[Condition::Quiet], false);
    let (cq, _) = alarms(study, &[Condition::Quiet], true);
    if wq > 0 {
        let _ = writeln!(
            s,
            "Without the hog wall time still raised {wq} false alarms in {nq} quiet / quiet \
             pairs (CPU time {cq}): the two runs of a pair are measured one after the other, so \
             whatever else the machine does changes between them as the hog does. A comparison \
             of two saved results (`rigor compare old.json new.json`, unpaired, as here) cannot \
             tell that from a change of the program; commands measured together (`rigor run A \
             B`, interleaved in rounds and compared round by round) can.\n"
        );
    }
    let _ = writeln!(
        s,
        "What CPU time sees and what it does not. It is the time the kernel charged to the \
         process (user + system, from `wait4`): time spent *waiting* is not in it — sleeping, \
         disk and network I/O, locks, another machine's answer — so a program that became slower because it waits more is not slower in CPU time \
         (the extra-sleep row: whatever CPU time says there is noise), and a program made faster by running threads in parallel looks \
         slower (CPU time adds the threads up). Measuring it instead of wall time is a choice \
         of question, not a cure for noise. What it gains is less sensitivity to load: time \
         the process spends runnable but not running, while another process has the core, is \
         not charged to it. Less is not none: a program sharing a core or a cache with a busy \
         neighbour runs slower per instruction (its caches and TLB are evicted between time \
         slices; SMT siblings share execution units; the clock frequency depends on how many \
         cores are busy and on temperature), and all of that *is* charged to it. CPU time's \
         intervals are also narrower (its noise is smaller and Linux reports it in \
         microseconds), so a small systematic shift under load is declared with confidence: \
         when the load differs between the runs compared, CPU time can give a confident wrong \
         verdict too — compare under the same conditions, or interleave the runs \
         (`rigor run A B` rounds) so the load falls on both."
    );
}

/// Where the page goes: `docs/validation/metrics.md` under `repo`.
pub fn page(repo: &Path) -> PathBuf {
    repo.join("docs").join("validation").join("metrics.md")
}
