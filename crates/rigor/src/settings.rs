//! Resolves parsed command-line options into the engines' settings, validating them once.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use regex::Regex;
use rigor_runner::{
    Benchmark, BuildSettings, CommandLine, IterationSource, OutputMode, Settings, Stream, TimeUnit,
};
use rigor_stats::Quantile;
use rigor_stats::analysis::AnalysisConfig;
use rigor_units::Seed;

use crate::cli::{AnalysisArgs, Discard, OutputArg, QuantileArg, RunArgs, StreamArg, UnitArg};

/// Everything `rigor run` needs, resolved.
#[derive(Debug)]
pub struct RunSettings {
    /// The benchmarks.
    pub benchmarks: Vec<Benchmark>,
    /// The runner's settings.
    pub runner: Settings,
    /// Leading iterations of each execution marked as warm-up.
    pub discard: usize,
    /// Detect the warm-up from the data (`--discard auto`).
    pub auto_discard: bool,
    /// Analysis settings.
    pub analysis: AnalysisConfig,
    /// Whether iteration times are expected (pattern given).
    pub iterations_expected: bool,
    /// Keeps the temporary build root alive for the run (removed when dropped).
    pub _build_root: Option<tempfile::TempDir>,
}

/// Resolves analysis options.
pub fn analysis_config(a: &AnalysisArgs) -> AnalysisConfig {
    AnalysisConfig {
        level: a.confidence,
        quantile: match a.quantile {
            QuantileArg::T => Quantile::StudentT,
            QuantileArg::Normal => Quantile::Normal,
        },
    }
}

fn unit(u: UnitArg) -> TimeUnit {
    match u {
        UnitArg::Ns => TimeUnit::Ns,
        UnitArg::Us => TimeUnit::Us,
        UnitArg::Ms => TimeUnit::Ms,
        UnitArg::S => TimeUnit::S,
    }
}

/// Resolves and validates `rigor run` options.
pub fn resolve_run(args: &RunArgs) -> Result<RunSettings> {
    if args.executions < 2 {
        bail!(
            "--executions must be at least 2: an interval needs two top-level units (5 or more for a reliable one)"
        );
    }
    if args.names.len() > args.commands.len() {
        bail!(
            "{} names given for {} commands",
            args.names.len(),
            args.commands.len()
        );
    }
    let benchmarks = args
        .commands
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let command = CommandLine::parse(text, args.shell)?;
            let name = args.names.get(i).cloned().unwrap_or_else(|| text.clone());
            Ok(Benchmark::new(name, command))
        })
        .collect::<Result<Vec<_>, rigor_runner::RunError>>()?;
    let hook = |c: &Option<String>| {
        c.as_deref()
            .map(|t| CommandLine::parse(t, args.shell))
            .transpose()
    };
    let iterations = match (&args.iterations_from, &args.pattern) {
        (Some(stream), Some(pattern)) => {
            let regex =
                Regex::new(pattern).with_context(|| format!("invalid --pattern '{pattern}'"))?;
            if regex.captures_len() < 2 {
                bail!(
                    "--pattern '{pattern}' needs a capture group around the time, e.g. 'time: ([0-9.]+)'"
                );
            }
            let stream = match stream {
                StreamArg::Stdout => Stream::Stdout,
                StreamArg::Stderr => Stream::Stderr,
            };
            IterationSource::Pattern {
                stream,
                regex,
                unit: unit(args.unit),
            }
        }
        _ => IterationSource::SamplesFile,
    };
    let iterations_expected = matches!(iterations, IterationSource::Pattern { .. });
    let timeout = match args.timeout {
        Some(t) if !(t > 0.0 && t.is_finite()) => {
            bail!("--timeout must be a positive number of seconds")
        }
        Some(t) => Some(Duration::from_secs_f64(t)),
        None => None,
    };
    if let Some(input) = &args.input {
        std::fs::metadata(input).with_context(|| format!("--input {}", input.display()))?;
    }
    let (build, build_root) = resolve_build(args, timeout)?;
    let benchmarks = match args.iterations {
        Some(k) => benchmarks
            .into_iter()
            .map(|b| Benchmark {
                command: b.command.substitute(&[("iterations", k.to_string())]),
                ..b
            })
            .collect(),
        None => benchmarks,
    };
    let runner = Settings {
        executions: args.executions,
        warmup_executions: args.warmup_executions.unwrap_or(if iterations_expected {
            0
        } else {
            1
        }),
        timeout,
        input: args.input.clone(),
        output: match args.output {
            OutputArg::Null => OutputMode::Null,
            OutputArg::Pipe => OutputMode::Pipe,
            OutputArg::Inherit => OutputMode::Inherit,
        },
        iterations,
        setup: hook(&args.setup)?,
        prepare: hook(&args.prepare)?,
        cleanup: hook(&args.cleanup)?,
        ignore_failure: args.ignore_failure,
        seed: Seed(args.seed.unwrap_or_else(rand_seed)),
        build,
        randomize_env: args.randomize_env,
        iterations_per_execution: args.iterations,
    };
    Ok(RunSettings {
        benchmarks,
        runner,
        discard: match args.discard {
            Discard::Count(n) => n,
            Discard::Auto => 0,
        },
        auto_discard: args.discard == Discard::Auto,
        analysis: analysis_config(&args.analysis),
        iterations_expected,
        _build_root: build_root,
    })
}

/// The build level, if `--build` was given, and the temporary root it may need.
fn resolve_build(
    args: &RunArgs,
    timeout: Option<Duration>,
) -> Result<(Option<BuildSettings>, Option<tempfile::TempDir>)> {
    let Some(text) = &args.build else {
        return Ok((None, None));
    };
    if args.builds < 2 {
        bail!(
            "--builds must be at least 2: an interval over builds needs two builds (5 or more for a reliable one)"
        );
    }
    let command = CommandLine::parse(text, args.shell)?;
    let (root, temp) = match &args.build_root {
        Some(dir) => (dir.clone(), None),
        None => {
            let temp = tempfile::Builder::new()
                .prefix("rigor-builds-")
                .tempdir()
                .context("creating a directory for builds")?;
            (temp.path().to_path_buf(), Some(temp))
        }
    };
    Ok((
        Some(BuildSettings {
            command,
            builds: args.builds,
            root,
            timeout,
        }),
        temp,
    ))
}

/// A fresh seed from the clock and process id (only used when none is given; it is printed).
fn rand_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // SplitMix64 finaliser to spread the bits.
    let mut z = nanos ^ (u64::from(std::process::id()) << 32);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
