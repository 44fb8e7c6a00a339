//! [`Harness`]: the registered benchmarks, the command line of a bench target, and its modes
//! (list, tune, measure standalone, measure under rigor).

use std::fmt::Display;
use std::io::{self, Write};
use std::rc::Rc;

use rigor_protocol::{SampleWriter, requested_iterations};
use rigor_units::Seconds;
use serde::Serialize;

use crate::bench::{Bench, Measurement, Plan, Throughput};
use crate::cycles::{self, SystemClock};
use crate::timer::{Calibration, calibrate};
use crate::{AllocsPerIter, HarnessError, report};

/// A registered benchmark function; it may borrow set-up data that outlives the harness
/// (`'a`).
type BenchFn<'a> = Box<dyn Fn(&mut Bench<'_>) + 'a>;

/// Samples per benchmark when neither `--samples` nor rigor (`RIGOR_ITERATIONS`) says.
pub const DEFAULT_SAMPLES: usize = 100;
/// A standalone run stops sampling a benchmark after this much sampled time (seconds)…
pub const DEFAULT_MAX_TIME: f64 = 5.0;
/// …once it has at least this many samples.
pub const MIN_SAMPLES: usize = 10;
/// Time the routine runs before tuning and sampling (seconds).
pub const DEFAULT_WARM_UP: f64 = 0.1;

const USAGE: &str = "\
Usage: BENCH [OPTIONS] [FILTER]...

Runs the benchmarks whose names contain any FILTER (all without one). Standalone, each is tuned,
sampled and summarised for this process; under rigor (RIGOR_SAMPLES_FILE set, as `rigor bench`
runs it) the one selected benchmark writes every sample to rigor.

Options:
  --exact           FILTERs must equal the names
  --list            list the benchmarks (NAME: benchmark) and exit
  --evals N         evaluations per sample (default: tuned, Chen & Revels 2016)
  --samples N       samples per benchmark (default 100, or RIGOR_ITERATIONS under rigor)
  --max-time TIME   standalone: stop sampling after this much time, once 10 samples are in
                    (default 5s)
  --warm-up TIME    run the routine this long before tuning and sampling (default 0.1s; 0: none)
  --rigor-list      list the benchmarks as JSON lines (used by rigor bench)
  --rigor-tune      tune each benchmark, print its evaluations as JSON lines (used by rigor bench)
  --bench           accepted and ignored (cargo bench passes it)
  -h, --help        this help
";

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Default)]
struct Args {
    filters: Vec<String>,
    exact: bool,
    list: bool,
    rigor_list: bool,
    rigor_tune: bool,
    help: bool,
    evals: Option<u64>,
    samples: Option<usize>,
    max_time: Option<f64>,
    warm_up: Option<f64>,
}

fn parse_args(args: &[String]) -> Result<Args, HarnessError> {
    let mut a = Args::default();
    let mut it = args.iter();
    let usage = |message: String| HarnessError::Usage { message };
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| usage(format!("{name} needs a value")))
        };
        match arg.as_str() {
            "--exact" => a.exact = true,
            "--list" => a.list = true,
            "--rigor-list" => a.rigor_list = true,
            "--rigor-tune" => a.rigor_tune = true,
            "--bench" => {}
            "-h" | "--help" => a.help = true,
            "--evals" => a.evals = Some(positive(&value("--evals")?, "--evals")?),
            "--samples" => a.samples = Some(positive(&value("--samples")?, "--samples")? as usize),
            "--max-time" => a.max_time = Some(duration(&value("--max-time")?, "--max-time")?),
            "--warm-up" => a.warm_up = Some(duration(&value("--warm-up")?, "--warm-up")?),
            // criterion's baselines: rigor keeps them, across processes and sessions.
            flag @ ("--save-baseline" | "--baseline" | "--load-baseline") => {
                return Err(usage(format!(
                    "{flag} is rigor bench's: run `rigor bench {flag} NAME` in this project \
                     (baselines compared across processes and the sessions they were saved in)"
                )));
            }
            flag if flag.starts_with('-') => {
                return Err(usage(format!("unknown option '{flag}'")));
            }
            filter => a.filters.push(filter.to_string()),
        }
    }
    Ok(a)
}

fn positive(text: &str, name: &str) -> Result<u64, HarnessError> {
    match text.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(HarnessError::Usage {
            message: format!("{name} '{text}' is not a positive whole number"),
        }),
    }
}

/// Seconds from `90`, `250ms`, `1.5s` (as rigor reads durations); `0` is allowed.
fn duration(text: &str, name: &str) -> Result<f64, HarnessError> {
    if text.trim().parse::<f64>() == Ok(0.0) {
        return Ok(0.0);
    }
    text.parse::<Seconds>()
        .map(|s| s.0)
        .map_err(|e| HarnessError::Usage {
            message: format!("{name}: {e}"),
        })
}

/// One line of `--rigor-list`.
#[derive(Serialize)]
struct ListLine<'a> {
    name: &'a str,
}

/// One line of `--rigor-tune`: what `rigor bench` fixes for every execution.
#[derive(Serialize)]
struct TuneLine<'a> {
    name: &'a str,
    evals: u64,
    per_eval_ns: Option<f64>,
    timer: Calibration,
    allocs: Option<AllocsPerIter>,
    throughput: Option<Throughput>,
}

/// The benchmarks of a bench target and its `main`: register functions with
/// [`bench`](Harness::bench) (or [`bench_with_inputs`](Harness::bench_with_inputs)), then
/// [`run`](Harness::run). [`main!`](crate::main) writes this for plain functions.
#[derive(Default)]
pub struct Harness<'a> {
    benches: Vec<(String, BenchFn<'a>)>,
}

impl std::fmt::Debug for Harness<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.benches.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Harness").field("benches", &names).finish()
    }
}

impl<'a> Harness<'a> {
    /// No benchmarks yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers the benchmark `name`: `f` receives a [`Bench`] and times its routine with
    /// [`Bench::iter`], [`Bench::iter_batched`] or [`Bench::iter_custom`]. It may borrow data
    /// made before the harness (set-up shared by several benchmarks): `let data = …;
    /// Harness::new().bench("sum", |b| b.iter(|| data.iter().sum::<u64>())).run()`.
    pub fn bench(mut self, name: impl Into<String>, f: impl Fn(&mut Bench<'_>) + 'a) -> Self {
        self.benches.push((name.into(), Box::new(f)));
        self
    }

    /// Registers one benchmark per input, named `name/input` (`sort/1000`): `f` receives the
    /// [`Bench`] and the input.
    pub fn bench_with_inputs<I: Display + 'a>(
        mut self,
        name: &str,
        inputs: impl IntoIterator<Item = I>,
        f: impl Fn(&mut Bench<'_>, &I) + 'a,
    ) -> Self {
        let f = Rc::new(f);
        for input in inputs {
            let f = Rc::clone(&f);
            let full = format!("{name}/{input}");
            self.benches
                .push((full, Box::new(move |b: &mut Bench<'_>| f(b, &input))));
        }
        self
    }

    /// The registered names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.benches.iter().map(|(n, _)| n.as_str())
    }

    /// Runs with the process's arguments; prints an error and exits with status 2 on failure.
    pub fn run(self) {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let stdout = io::stdout();
        if let Err(e) = self.run_with(&args, &mut stdout.lock()) {
            let _ = writeln!(io::stderr(), "rigor-bench: error: {e}");
            std::process::exit(2);
        }
    }

    /// Runs with `args` (without the program name), writing reports to `out`.
    ///
    /// # Errors
    /// A bad command line, a duplicate name, several benchmarks selected under rigor, a
    /// benchmark that timed nothing, or a samples file or output that cannot be written.
    pub fn run_with(self, args: &[String], out: &mut dyn Write) -> Result<(), HarnessError> {
        let a = parse_args(args)?;
        if a.help {
            return Ok(out.write_all(USAGE.as_bytes())?);
        }
        self.check_unique()?;
        let selected: Vec<&(String, BenchFn<'_>)> = self
            .benches
            .iter()
            .filter(|(name, _)| selects(&a, name))
            .collect();
        if a.list || a.rigor_list {
            for (name, _) in &selected {
                if a.rigor_list {
                    serde_json::to_writer(&mut *out, &ListLine { name })?;
                    writeln!(out)?;
                } else {
                    writeln!(out, "{name}: benchmark")?;
                }
            }
            return Ok(());
        }
        match SampleWriter::from_env()? {
            Some(w) if !a.rigor_tune => under_rigor(&a, &selected, w, requested_iterations()?),
            _ => standalone(&a, &selected, out),
        }
    }

    /// As [`run_with`](Self::run_with) under rigor, with the samples file and iteration count
    /// given rather than read from the environment (for tests).
    #[cfg(test)]
    fn run_under_rigor(
        self,
        args: &[String],
        writer: SampleWriter,
        iterations: Option<usize>,
    ) -> Result<(), HarnessError> {
        let a = parse_args(args)?;
        let selected: Vec<&(String, BenchFn<'_>)> = self
            .benches
            .iter()
            .filter(|(name, _)| selects(&a, name))
            .collect();
        under_rigor(&a, &selected, writer, iterations)
    }

    fn check_unique(&self) -> Result<(), HarnessError> {
        let mut names: Vec<&str> = self.names().collect();
        names.sort_unstable();
        match names.windows(2).find(|w| w[0] == w[1]) {
            Some(w) => Err(HarnessError::Duplicate {
                name: w[0].to_string(),
            }),
            None => Ok(()),
        }
    }
}

fn selects(a: &Args, name: &str) -> bool {
    a.filters.is_empty()
        || a.filters.iter().any(|f| {
            if a.exact {
                name == f
            } else {
                name.contains(f.as_str())
            }
        })
}

fn plan(a: &Args, samples: usize, max_time: Option<f64>) -> Plan {
    Plan {
        evals: a.evals,
        samples,
        max_time_ns: max_time.map(|s| s * 1e9),
        min_samples: MIN_SAMPLES,
        warm_up_ns: a.warm_up.unwrap_or(DEFAULT_WARM_UP) * 1e9,
        tune_only: a.rigor_tune,
        count_allocs: crate::alloc::installed(),
    }
}

fn measure(
    f: &BenchFn<'_>,
    name: &str,
    clock: SystemClock,
    calibration: Calibration,
    plan: Plan,
    writer: Option<&mut SampleWriter>,
) -> Result<Measurement, HarnessError> {
    let mut b = Bench::new(clock, calibration, plan, writer);
    f(&mut b);
    b.finish().map_err(|e| match e {
        HarnessError::NothingTimed { .. } => HarnessError::NothingTimed {
            name: name.to_string(),
        },
        e => e,
    })
}

/// The clock [`cycles::CLOCK_VAR`] chooses, and why the cycle counter was not used if it was
/// asked for.
fn timer() -> Result<(SystemClock, Option<String>), HarnessError> {
    cycles::from_env().map_err(|message| HarnessError::Usage { message })
}

/// Standalone (or `--rigor-tune`): every selected benchmark, one report (or JSON line) each.
fn standalone(
    a: &Args,
    selected: &[&(String, BenchFn<'_>)],
    out: &mut dyn Write,
) -> Result<(), HarnessError> {
    let (clock, fallback) = timer()?;
    let calibration = calibrate(&clock);
    if !a.rigor_tune {
        writeln!(
            out,
            "Timer: {}, resolution {}, overhead {} (subtracted from every sample){}\n",
            clock.describe(),
            report::time(calibration.resolution_ns),
            report::time(calibration.overhead_ns),
            fallback.map_or(String::new(), |why| format!(
                "\n  (the cycle counter was asked for, but {why})"
            ))
        )?;
    }
    let samples = a.samples.unwrap_or(DEFAULT_SAMPLES);
    let max_time = match a.samples {
        Some(_) => a.max_time,
        None => Some(a.max_time.unwrap_or(DEFAULT_MAX_TIME)),
    };
    for (name, f) in selected {
        let m = measure(
            f,
            name,
            clock,
            calibration,
            plan(a, samples, max_time),
            None,
        )?;
        if a.rigor_tune {
            let line = TuneLine {
                name,
                evals: m.evals,
                per_eval_ns: m.tuning.map(|t| t.per_eval_ns),
                timer: calibration,
                allocs: m.allocs,
                throughput: m.throughput,
            };
            serde_json::to_writer(&mut *out, &line)?;
            writeln!(out)?;
        } else {
            writeln!(out, "{}", report::benchmark(name, &m))?;
        }
        out.flush()?;
    }
    if selected.is_empty() {
        writeln!(out, "No benchmark matches {:?}.", a.filters)?;
    } else if !a.rigor_tune {
        out.write_all(report::ONE_PROCESS.as_bytes())?;
    }
    Ok(())
}

/// Under rigor: one benchmark, every sample written to the samples file as it is taken.
fn under_rigor(
    a: &Args,
    selected: &[&(String, BenchFn<'_>)],
    mut writer: SampleWriter,
    iterations: Option<usize>,
) -> Result<(), HarnessError> {
    let (name, f) = match selected {
        [one] => one,
        _ => {
            return Err(HarnessError::NotOne {
                selected: selected.iter().map(|(n, _)| n.clone()).collect(),
            });
        }
    };
    let samples = iterations.or(a.samples).unwrap_or(DEFAULT_SAMPLES);
    let (clock, _) = timer()?;
    let calibration = calibrate(&clock);
    let m = measure(
        f,
        name,
        clock,
        calibration,
        plan(a, samples, None),
        Some(&mut writer),
    )?;
    if a.evals.is_none() {
        let _ = writeln!(
            io::stderr(),
            "rigor-bench: {name}: {} evaluations per sample tuned in this process; pass --evals {} \
             to keep them fixed across executions (rigor bench does)",
            m.evals,
            m.evals
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn criterions_baseline_options_point_to_rigor_bench() {
        for flag in ["--save-baseline", "--baseline", "--load-baseline"] {
            let err = parse_args(&[flag.to_string(), "main".into()]).unwrap_err();
            assert!(
                err.to_string()
                    .contains(&format!("run `rigor bench {flag} NAME`")),
                "{err}"
            );
        }
    }

    #[test]
    fn benchmarks_may_borrow_set_up_data() {
        let data: Vec<u64> = (0..100).collect();
        let inputs = vec![10usize, 20];
        let h = Harness::new()
            .bench("sum", |b| b.iter(|| data.iter().sum::<u64>()))
            .bench_with_inputs("prefix", inputs.clone(), |b, n| {
                b.iter(|| data[..*n].iter().sum::<u64>())
            });
        assert_eq!(
            h.names().collect::<Vec<_>>(),
            ["sum", "prefix/10", "prefix/20"]
        );
        let mut out = Vec::new();
        h.run_with(&["--list".to_string()], &mut out).unwrap();
        assert!(String::from_utf8(out).unwrap().contains("prefix/20"));
    }

    fn harness() -> Harness<'static> {
        Harness::new()
            .bench("add", |b| b.iter(|| std::hint::black_box(1u64) + 1))
            .bench_with_inputs("sum", [10u64, 1000], |b, &n| {
                b.throughput(Throughput::Elements(n));
                b.iter(|| (0..std::hint::black_box(n)).sum::<u64>())
            })
    }

    fn run(h: Harness, a: &[&str]) -> Result<String, HarnessError> {
        let mut out = Vec::new();
        h.run_with(&args(a), &mut out)?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn lists_and_filters() {
        assert_eq!(
            run(harness(), &["--bench", "--list"]).unwrap(),
            "add: benchmark\nsum/10: benchmark\nsum/1000: benchmark\n"
        );
        assert_eq!(
            run(harness(), &["--list", "sum"]).unwrap(),
            "sum/10: benchmark\nsum/1000: benchmark\n"
        );
        assert_eq!(
            run(harness(), &["--list", "--exact", "sum/10"]).unwrap(),
            "sum/10: benchmark\n"
        );
        assert_eq!(
            run(harness(), &["--rigor-list", "add"]).unwrap(),
            "{\"name\":\"add\"}\n"
        );
    }

    #[test]
    fn bad_command_lines_are_usage_errors() {
        for bad in [
            &["--evals"][..],
            &["--evals", "0"],
            &["--samples", "many"],
            &["--warm-up", "soon"],
            &["--frobnicate"],
        ] {
            let e = run(harness(), bad).unwrap_err();
            assert!(matches!(e, HarnessError::Usage { .. }), "{bad:?}: {e}");
        }
        let dup = Harness::new()
            .bench("x", |b| b.iter(|| 1))
            .bench("x", |b| b.iter(|| 2));
        assert_eq!(
            run(dup, &["--list"]).unwrap_err().to_string(),
            "two benchmarks are named 'x'"
        );
        let lazy = Harness::new().bench("lazy", |_| {});
        let e = run(lazy, &["--warm-up", "0", "--samples", "3"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "benchmark 'lazy' timed nothing (call b.iter or b.iter_batched)"
        );
    }

    #[test]
    fn standalone_reports_and_tuning_lines() {
        let text = run(
            harness(),
            &["--warm-up", "0", "--samples", "12", "--evals", "5", "sum"],
        )
        .unwrap();
        assert!(text.starts_with("Timer: Instant, resolution "), "{text}");
        assert!(
            text.contains("sum/10: 12 samples of 5 evaluations (given)"),
            "{text}"
        );
        assert!(text.contains("sum/1000: 12 samples"), "{text}");
        assert!(text.contains("elem/s (at the median)"), "{text}");
        assert!(text.ends_with(report::ONE_PROCESS), "{text}");
        let tune = run(harness(), &["--warm-up", "0", "--rigor-tune", "add"]).unwrap();
        let v: serde_json::Value = serde_json::from_str(tune.trim()).unwrap();
        assert_eq!(v["name"], "add");
        assert!(v["evals"].as_u64().unwrap() >= 1, "{v}");
        assert!(v["timer"]["overhead_ns"].is_number(), "{v}");
    }

    #[test]
    fn under_rigor_one_benchmark_writes_every_sample() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples");
        let w = || SampleWriter::open(&path).unwrap();
        let a = args(&["--warm-up", "0", "--exact", "sum/10", "--evals", "3"]);
        harness().run_under_rigor(&a, w(), Some(7)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(rigor_protocol::parse_samples(&text).unwrap().len(), 7);
        // Without RIGOR_ITERATIONS: --samples, else the default.
        let a = args(&["--warm-up", "0", "add", "--samples", "4"]);
        harness().run_under_rigor(&a, w(), None).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(rigor_protocol::parse_samples(&text).unwrap().len(), 11);
        // Several benchmarks cannot share one execution's samples.
        let e = harness()
            .run_under_rigor(&args(&["sum"]), w(), None)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "under rigor one execution measures one benchmark, but 2 are selected \
             (sum/10, sum/1000): select one with --exact NAME"
        );
    }
}
