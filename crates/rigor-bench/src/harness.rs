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
use crate::group::{Group, GroupSettings};
use crate::timer::{Calibration, calibrate};
use crate::{AllocsPerIter, HarnessError, report};

/// A registered benchmark function; it may borrow set-up data that outlives the harness
/// (`'a`).
type BenchFn<'a> = Box<dyn Fn(&mut Bench<'_>) + 'a>;

/// A registered benchmark: its name (`group/function/input`), the parts of the name, and the
/// settings of its group.
struct Registered<'a> {
    name: String,
    group: Option<String>,
    function: String,
    input: Option<String>,
    settings: GroupSettings,
    f: BenchFn<'a>,
}

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

/// One line of `--rigor-list`: the name, its parts when it has them (`rigor bench` plots a
/// function against its input), and the settings of its group.
#[derive(Serialize)]
struct ListLine<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<&'a str>,
    #[serde(flatten)]
    settings: GroupSettings,
}

impl<'a> ListLine<'a> {
    fn of(r: &'a Registered<'_>) -> Self {
        // A plain benchmark's name is its function: only a group's or an input's is written.
        let parts = r.group.is_some() || r.input.is_some();
        Self {
            name: &r.name,
            group: r.group.as_deref(),
            function: parts.then_some(r.function.as_str()),
            input: r.input.as_deref(),
            settings: r.settings,
        }
    }
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
    benches: Vec<Registered<'a>>,
    /// Settings of groups that cannot be taken (group, what is wrong), refused when the harness
    /// runs.
    refused: Vec<(String, String)>,
}

impl std::fmt::Debug for Harness<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.names().collect();
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
    pub fn bench(self, name: impl Into<String>, f: impl Fn(&mut Bench<'_>) + 'a) -> Self {
        let name = name.into();
        self.register(None, &name, None, GroupSettings::default(), Box::new(f))
    }

    /// Registers one benchmark per input, named `name/input` (`sort/1000`): `f` receives the
    /// [`Bench`] and the input.
    pub fn bench_with_inputs<I: Display + 'a>(
        self,
        name: &str,
        inputs: impl IntoIterator<Item = I>,
        f: impl Fn(&mut Bench<'_>, &I) + 'a,
    ) -> Self {
        self.register_inputs(None, name, inputs, GroupSettings::default(), f)
    }

    /// Starts the group `name`: its benchmarks are named `name/function[/input]` and take the
    /// settings given to the [`Group`] (samples, evaluations per sample, warm-up, throughput);
    /// [`Group::finish`] gives the harness back.
    pub fn group(self, name: impl Into<String>) -> Group<'a> {
        Group::new(self, name.into())
    }

    pub(crate) fn register(
        mut self,
        group: Option<&str>,
        function: &str,
        input: Option<String>,
        settings: GroupSettings,
        f: BenchFn<'a>,
    ) -> Self {
        let name = [group, Some(function), input.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("/");
        self.benches.push(Registered {
            name,
            group: group.map(str::to_string),
            function: function.to_string(),
            input,
            settings,
            f,
        });
        self
    }

    pub(crate) fn register_inputs<I: Display + 'a>(
        mut self,
        group: Option<&str>,
        function: &str,
        inputs: impl IntoIterator<Item = I>,
        settings: GroupSettings,
        f: impl Fn(&mut Bench<'_>, &I) + 'a,
    ) -> Self {
        let f = Rc::new(f);
        for input in inputs {
            let f = Rc::clone(&f);
            let text = input.to_string();
            let run: BenchFn<'a> = Box::new(move |b: &mut Bench<'_>| f(b, &input));
            self = self.register(group, function, Some(text), settings, run);
        }
        self
    }

    /// Keeps a group's setting it cannot take, refused when the harness runs.
    pub(crate) fn refuse(&mut self, group: &str, message: String) {
        self.refused.push((group.to_string(), message));
    }

    /// The registered names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.benches.iter().map(|r| r.name.as_str())
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
        let selected = self.selected(&a)?;
        if a.list || a.rigor_list {
            for r in &selected {
                if a.rigor_list {
                    serde_json::to_writer(&mut *out, &ListLine::of(r))?;
                    writeln!(out)?;
                } else {
                    writeln!(out, "{}: benchmark", r.name)?;
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
        let selected = self.selected(&a)?;
        under_rigor(&a, &selected, writer, iterations)
    }

    /// The benchmarks the command line selects, once the names are known to be unique.
    fn selected(&self, a: &Args) -> Result<Vec<&Registered<'_>>, HarnessError> {
        self.check_unique()?;
        Ok(self
            .benches
            .iter()
            .filter(|r| selects(a, &r.name))
            .collect())
    }

    /// The first refused group setting, else the first name given twice.
    fn check_unique(&self) -> Result<(), HarnessError> {
        if let Some((group, message)) = self.refused.first() {
            return Err(HarnessError::Group {
                group: group.clone(),
                message: message.clone(),
            });
        }
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

/// What to do with benchmark `r`: the command line's settings, else its group's, else the
/// defaults.
fn plan(a: &Args, r: &Registered<'_>, samples: usize, max_time: Option<f64>) -> Plan {
    Plan {
        evals: a.evals.or(r.settings.evals),
        samples,
        max_time_ns: max_time.map(|s| s * 1e9),
        min_samples: MIN_SAMPLES,
        warm_up_ns: a.warm_up.or(r.settings.warm_up).unwrap_or(DEFAULT_WARM_UP) * 1e9,
        tune_only: a.rigor_tune,
        count_allocs: crate::alloc::installed(),
    }
}

fn measure(
    r: &Registered<'_>,
    clock: SystemClock,
    calibration: Calibration,
    plan: Plan,
    writer: Option<&mut SampleWriter>,
) -> Result<Measurement, HarnessError> {
    let mut b = Bench::new(clock, calibration, plan, writer);
    if let Some(t) = r.settings.throughput {
        // The group's: the benchmark's own `b.throughput` replaces it.
        b.throughput(t);
    }
    (r.f)(&mut b);
    b.finish().map_err(|e| match e {
        HarnessError::NothingTimed { .. } => HarnessError::NothingTimed {
            name: r.name.clone(),
        },
        e => e,
    })
}

/// The clock [`cycles::CLOCK_VAR`] chooses, and why the cycle counter was not used if it was
/// asked for.
fn timer() -> Result<(SystemClock, Option<String>), HarnessError> {
    cycles::from_env().map_err(|message| HarnessError::Usage { message })
}

/// The settings of `r`'s group that this run takes, and those the command line replaced: the
/// line a standalone report adds under the benchmark's (`None` outside a group).
fn group_line(a: &Args, r: &Registered<'_>, m: &Measurement) -> Option<String> {
    let group = r.group.as_deref()?;
    let s = r.settings;
    let (mut taken, mut replaced) = (GroupSettings::default(), GroupSettings::default());
    let mut split = |given: bool, set: &mut dyn FnMut(&mut GroupSettings)| {
        set(if given { &mut replaced } else { &mut taken });
    };
    split(a.samples.is_some(), &mut |g| g.samples = s.samples);
    split(a.evals.is_some(), &mut |g| g.evals = s.evals);
    split(a.warm_up.is_some(), &mut |g| g.warm_up = s.warm_up);
    // The benchmark's own throughput replaces the group's.
    taken.throughput = s.throughput.filter(|t| m.throughput == Some(*t));
    let (taken, replaced) = (taken.describe(), replaced.describe());
    if taken.is_empty() && replaced.is_empty() {
        return None;
    }
    let mut line = format!("  group '{group}'");
    if !taken.is_empty() {
        line += &format!(": {}", taken.join(", "));
    }
    if !replaced.is_empty() {
        line += &format!(
            "; the command line's options replace its {}",
            replaced.join(", ")
        );
    }
    Some(line)
}

/// Standalone (or `--rigor-tune`): every selected benchmark, one report (or JSON line) each.
fn standalone(
    a: &Args,
    selected: &[&Registered<'_>],
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
    for r in selected {
        let samples = a.samples.or(r.settings.samples);
        let max_time = match samples {
            Some(_) => a.max_time,
            None => Some(a.max_time.unwrap_or(DEFAULT_MAX_TIME)),
        };
        let samples = samples.unwrap_or(DEFAULT_SAMPLES);
        let m = measure(r, clock, calibration, plan(a, r, samples, max_time), None)?;
        if a.rigor_tune {
            let line = TuneLine {
                name: &r.name,
                evals: m.evals,
                per_eval_ns: m.tuning.map(|t| t.per_eval_ns),
                timer: calibration,
                allocs: m.allocs,
                throughput: m.throughput,
            };
            serde_json::to_writer(&mut *out, &line)?;
            writeln!(out)?;
        } else {
            let mut text = report::benchmark(&r.name, &m);
            if let Some(line) = group_line(a, r, &m) {
                text += &line;
                text.push('\n');
            }
            writeln!(out, "{text}")?;
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
    selected: &[&Registered<'_>],
    mut writer: SampleWriter,
    iterations: Option<usize>,
) -> Result<(), HarnessError> {
    let r = match selected {
        [one] => one,
        _ => {
            return Err(HarnessError::NotOne {
                selected: selected.iter().map(|r| r.name.clone()).collect(),
            });
        }
    };
    let name = &r.name;
    let samples = iterations
        .or(a.samples)
        .or(r.settings.samples)
        .unwrap_or(DEFAULT_SAMPLES);
    let (clock, _) = timer()?;
    let calibration = calibrate(&clock);
    let plan = plan(a, r, samples, None);
    let given = plan.evals.is_some();
    let m = measure(r, clock, calibration, plan, Some(&mut writer))?;
    if !given {
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

    fn grouped() -> Harness<'static> {
        Harness::new()
            .bench("add", |b| b.iter(|| std::hint::black_box(1u64) + 1))
            .group("sum")
            .samples(6)
            .evals(4)
            .warm_up(std::time::Duration::ZERO)
            .throughput(Throughput::Bytes(8))
            .bench("one", |b| b.iter(|| std::hint::black_box(1u64)))
            .bench_with_inputs("to", [10u64, 1000], |b, &n| {
                b.throughput(Throughput::Elements(n));
                b.iter(|| (0..std::hint::black_box(n)).sum::<u64>())
            })
            .finish()
    }

    #[test]
    fn groups_name_their_benchmarks_and_list_their_settings() {
        assert_eq!(
            grouped().names().collect::<Vec<_>>(),
            ["add", "sum/one", "sum/to/10", "sum/to/1000"]
        );
        let lines: Vec<serde_json::Value> = run(grouped(), &["--rigor-list"])
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // A plain benchmark lists its name alone, as before groups.
        assert_eq!(lines[0], serde_json::json!({"name": "add"}));
        assert_eq!(
            lines[3],
            serde_json::json!({
                "name": "sum/to/1000", "group": "sum", "function": "to", "input": "1000",
                "samples": 6, "evals": 4, "warm_up_s": 0.0, "throughput": {"bytes": 8}
            })
        );
        // An input without a group: its function and input, no settings.
        let line = run(harness(), &["--rigor-list", "--exact", "sum/10"]).unwrap();
        assert_eq!(
            line,
            "{\"name\":\"sum/10\",\"function\":\"sum\",\"input\":\"10\"}\n"
        );
    }

    #[test]
    fn a_groups_settings_reach_the_measurement_unless_the_command_line_replaces_them() {
        let text = run(grouped(), &["--exact", "sum/to/10"]).unwrap();
        assert!(
            text.contains("sum/to/10: 6 samples of 4 evaluations (given)"),
            "{text}"
        );
        // The benchmark's own throughput replaces the group's.
        assert!(text.contains("elem/s (at the median)"), "{text}");
        assert!(
            text.contains("  group 'sum': 6 samples, 4 evaluations per sample, no warm-up\n"),
            "{text}"
        );
        let text = run(grouped(), &["--exact", "sum/one"]).unwrap();
        assert!(text.contains("B/s (at the median)"), "{text}");
        let text = run(grouped(), &["--exact", "sum/one", "--samples", "3"]).unwrap();
        assert!(
            text.contains("sum/one: 3 samples of 4 evaluations (given)"),
            "{text}"
        );
        assert!(
            text.contains("; the command line's options replace its 6 samples\n"),
            "{text}"
        );
        // Under rigor: RIGOR_ITERATIONS wins, else the group's samples.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples");
        let a = args(&["--exact", "sum/one"]);
        grouped()
            .run_under_rigor(&a, SampleWriter::open(&path).unwrap(), None)
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(rigor_protocol::parse_samples(&text).unwrap().len(), 6);
        // A benchmark outside the group takes none of its settings.
        let text = run(grouped(), &["--exact", "add", "--warm-up", "0"]).unwrap();
        assert!(
            text.contains("add: 100 samples") || text.contains("(tuned)"),
            "{text}"
        );
        assert!(!text.contains("group '"), "{text}");
    }

    #[test]
    fn each_benchmark_of_a_group_takes_the_settings_given_before_it() {
        let h = Harness::new()
            .group("g")
            .bench("plain", |b| b.iter(|| 1))
            .samples(5)
            .bench("five", |b| b.iter(|| 1))
            .finish();
        let text = run(h, &["--rigor-list"]).unwrap();
        assert_eq!(
            text,
            "{\"name\":\"g/plain\",\"group\":\"g\",\"function\":\"plain\"}\n\
             {\"name\":\"g/five\",\"group\":\"g\",\"function\":\"five\",\"samples\":5}\n"
        );
    }

    #[test]
    fn a_group_setting_it_cannot_take_is_refused_when_the_harness_runs() {
        let h = Harness::new()
            .group("g")
            .samples(0)
            .bench("x", |b| b.iter(|| 1))
            .finish();
        assert_eq!(
            run(h, &["--list"]).unwrap_err().to_string(),
            "group 'g': samples(0): at least 1"
        );
        let h = Harness::new()
            .group("g")
            .evals(0)
            .bench("x", |b| b.iter(|| 1))
            .finish();
        assert!(matches!(
            run(h, &["--list"]).unwrap_err(),
            HarnessError::Group { .. }
        ));
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
