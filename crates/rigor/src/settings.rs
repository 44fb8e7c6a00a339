//! Resolves parsed command-line options into the use cases' settings, validating them once,
//! before anything runs.

use anyhow::{Context, Result, bail};
use regex::Regex;
use rigor_app::plan_file::PlanFile;
use rigor_app::saved::{AnalyzeSettings, CompareFilesSettings, CsvColumns, ReportSettings};
use rigor_app::settings::{
    AnalysisSettings, ComparisonSettings, Exports, FailOn, Mode, Origin, PlanSettings, RunSettings,
};
use rigor_runner::{
    Benchmark, BuildSettings, CommandLine, IterationSource, OutputMode, PilotSettings, Settings,
    Stream,
};
use rigor_stats::{Estimator, Quantile};
use rigor_store::{Discard, LevelKind, ModeRecord, RunSettingsRecord, VerdictMethod};
use rigor_units::{Fraction, Seed, TimeUnit};

use crate::cli::{
    AnalysisArgs, AnalyzeArgs, CompareArgs, ComparisonArgs, EstimatorArg, FailOnArg, MethodArg,
    OutputArg, PlanArgs, QuantileArg, ReportArgs, RunArgs, RunOptions, StreamArg, UnitArg,
};

/// Builds per command when `--build` is given without `--builds`.
pub const DEFAULT_BUILDS: usize = 5;

/// Resolves analysis options.
pub fn analysis(a: &AnalysisArgs) -> AnalysisSettings {
    AnalysisSettings {
        confidence: a.confidence,
        quantile: match a.quantile {
            QuantileArg::T => Quantile::StudentT,
            QuantileArg::Normal => Quantile::Normal,
        },
    }
}

/// Resolves comparison options.
pub fn comparison(a: &ComparisonArgs) -> ComparisonSettings {
    ComparisonSettings {
        reference: a.reference.clone(),
        threshold: a.threshold,
        method: match a.method {
            MethodArg::Ratio => VerdictMethod::Ratio,
            MethodArg::Overlap => VerdictMethod::Overlap,
        },
        estimator: match a.estimator {
            EstimatorArg::Mean => Estimator::Mean,
            EstimatorArg::Median => Estimator::Median,
            EstimatorArg::Min => Estimator::Min,
        },
        resamples: a.resamples,
        fail_on: a.fail_on.map(|f| match f {
            FailOnArg::Regression => FailOn::Regression,
            FailOnArg::Change => FailOn::Change,
            FailOnArg::Inconclusive => FailOn::Inconclusive,
            FailOnArg::Warning => FailOn::Warning,
        }),
        enabled: true,
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

/// The command line as typed, for the result's provenance.
fn origin(label: Option<&String>) -> Origin {
    Origin {
        command_line: std::env::args().collect(),
        label: label.cloned(),
        working_dir: std::env::current_dir().ok(),
    }
}

/// Resolves and validates `rigor run` options, including the plan file and the mode.
pub fn run(args: &RunArgs) -> Result<RunSettings> {
    let mut s = run_commands(&args.commands, &args.options)?;
    // `{src}` is the source directory: rigor's working directory here (a version's checkout
    // under `rigor track`), so a build running in its own directory can find the sources.
    if let (Some(build), Ok(cwd)) = (&mut s.runner.build, std::env::current_dir()) {
        build.command = build
            .command
            .substitute(&[("src", cwd.display().to_string())]);
    }
    Ok(s)
}

/// Resolves `commands` with the options of `rigor run`.
pub fn run_commands(commands: &[String], args: &RunOptions) -> Result<RunSettings> {
    if args.names.len() > commands.len() {
        bail!(
            "{} names given for {} commands",
            args.names.len(),
            commands.len()
        );
    }
    let benchmarks = commands
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
    let iterations = iteration_source(args)?;
    let iterations_expected = matches!(iterations, IterationSource::Pattern { .. });
    let timeout = args.timeout.and_then(|t| t.to_duration());
    if let Some(input) = &args.input {
        std::fs::metadata(input).with_context(|| format!("--input {}", input.display()))?;
    }
    let (build, build_root) = build(args, timeout)?;
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
        seed: args.seed.unwrap_or_else(Seed::from_entropy),
        build,
        randomize_env: args.randomize_env,
        iterations_per_execution: args.iterations,
    };
    runner.validate()?;
    let analysis = analysis(&args.analysis);
    let comparison = comparison(&args.compare);
    let (mut benchmarks, mut runner) = (benchmarks, runner);
    let mode = match &args.plan {
        Some(path) => {
            let plan = PlanFile::load(path)?;
            apply_plan(
                &mut benchmarks,
                &mut runner,
                args.discard,
                &analysis,
                &plan,
                args.precision,
            )?;
            Mode::Planned {
                plan: Box::new(plan),
                precision: args.precision,
            }
        }
        None if args.precision.is_some() || args.budget.is_some() => Mode::Adaptive {
            precision: args.precision,
            budget: args.budget,
            max_units: args.max_units,
        },
        None => Mode::Fixed,
    };
    let record = record(&mode, &runner, &analysis, &comparison, args);
    Ok(RunSettings {
        benchmarks,
        commands: commands.to_vec(),
        runner,
        discard: args.discard,
        iterations_expected,
        mode,
        analysis,
        comparison,
        exports: Exports {
            json: args.export_json.clone(),
            csv: args.export_csv.clone(),
            markdown: args.export_markdown.clone(),
            html: args.report.clone(),
            bmf: args.tools.export_bmf.clone(),
            otava: args.tools.export_otava.clone(),
        },
        simulate: args.simulate,
        origin: origin(args.label.as_ref()),
        record,
        build_root,
    })
}

/// The settings as saved in the result.
fn record(
    mode: &Mode,
    runner: &Settings,
    analysis: &AnalysisSettings,
    comparison: &ComparisonSettings,
    args: &RunOptions,
) -> RunSettingsRecord {
    RunSettingsRecord {
        mode: match mode {
            Mode::Fixed => ModeRecord::Fixed,
            Mode::Planned { precision, .. } => ModeRecord::Planned {
                precision: *precision,
            },
            Mode::Adaptive {
                precision,
                budget,
                max_units,
            } => ModeRecord::Adaptive {
                precision: *precision,
                budget: *budget,
                max_units: *max_units,
            },
        },
        executions: runner.executions,
        warmup_executions: runner.warmup_executions,
        discard: args.discard,
        timeout: args.timeout,
        shell: args.shell,
        simulate: args.simulate,
        ignore_failure: args.ignore_failure,
        quantile: analysis.quantile,
        build: args.build.clone(),
        builds: runner.build.as_ref().map(|b| b.builds),
        randomize_env: args.randomize_env,
        iterations: args.iterations,
        threshold: comparison.threshold,
        method: comparison.method,
        estimator: comparison.estimator,
        resamples: comparison.resamples,
    }
}

/// Where iteration times come from: a pattern over a stream, else the native samples file.
fn iteration_source(args: &RunOptions) -> Result<IterationSource> {
    let (Some(stream), Some(pattern)) = (&args.iterations_from, &args.pattern) else {
        return Ok(IterationSource::SamplesFile);
    };
    let regex = Regex::new(pattern).with_context(|| format!("invalid --pattern '{pattern}'"))?;
    if regex.captures_len() < 2 {
        bail!(
            "--pattern '{pattern}' needs a capture group around the time, e.g. 'time: ([0-9.]+)'"
        );
    }
    Ok(IterationSource::Pattern {
        stream: match stream {
            StreamArg::Stdout => Stream::Stdout,
            StreamArg::Stderr => Stream::Stderr,
        },
        regex,
        unit: unit(args.unit),
    })
}

/// `--plan FILE`: the plan's lower-level counts, and with `--precision` its top-level count.
fn apply_plan(
    benchmarks: &mut [Benchmark],
    runner: &mut Settings,
    discard: Discard,
    analysis: &AnalysisSettings,
    file: &PlanFile,
    precision: Option<Fraction>,
) -> Result<()> {
    let plans = file.for_benchmarks(benchmarks)?;
    for (b, p) in benchmarks.iter_mut().zip(&plans) {
        b.iterations = p.count(LevelKind::Iteration).map(|k| k + discard.fixed());
    }
    let top = match precision {
        Some(target) => {
            let mut most = 2;
            for p in &plans {
                most = most.max(p.top_units_for(target, analysis.confidence, analysis.quantile)?);
            }
            Some(most)
        }
        None => None,
    };
    let per_build = plans
        .iter()
        .filter_map(|p| p.count(LevelKind::Execution))
        .max();
    match &mut runner.build {
        Some(build) => {
            runner.executions = per_build.unwrap_or(1);
            build.builds = top.unwrap_or(build.builds);
        }
        None => runner.executions = top.unwrap_or(runner.executions),
    }
    Ok(())
}

/// The build level, if `--build` was given, and the temporary root it may need.
fn build(
    args: &RunOptions,
    timeout: Option<std::time::Duration>,
) -> Result<(Option<BuildSettings>, Option<tempfile::TempDir>)> {
    let Some(text) = &args.build else {
        return Ok((None, None));
    };
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
            builds: args.builds.unwrap_or(DEFAULT_BUILDS),
            root,
            timeout,
        }),
        temp,
    ))
}

/// Resolves `rigor plan` options.
pub fn plan(args: &PlanArgs) -> Result<PlanSettings> {
    Ok(PlanSettings {
        run: run(&args.run)?,
        pilot: PilotSettings {
            executions: args.pilot_executions,
            iterations: args.pilot_iterations,
            builds: args.pilot_builds,
            max_time: args.max_time,
        },
        out: args.out.clone(),
    })
}

/// Resolves `rigor analyze` options.
pub fn analyze(args: &AnalyzeArgs) -> Result<AnalyzeSettings> {
    let is_csv = !args.levels.is_empty()
        || args
            .file
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    if is_csv && args.format.is_some() {
        bail!("--format reads another tool's file; a CSV is read with --levels");
    }
    if is_csv && args.levels.is_empty() {
        bail!("a CSV needs --levels COL[,COL...] naming the level columns, top → bottom");
    }
    Ok(AnalyzeSettings {
        file: args.file.clone(),
        csv: is_csv.then(|| CsvColumns {
            levels: args.levels.clone(),
            value: args.value.clone(),
            benchmark: args.benchmark.clone(),
            allow_negative: args.allow_negative,
        }),
        format: args.format.map(Into::into),
        discard: args.discard,
        analysis: analysis(&args.analysis),
        comparison: comparison(&args.compare),
    })
}

/// Resolves `rigor compare` options.
pub fn compare(args: &CompareArgs) -> CompareFilesSettings {
    CompareFilesSettings {
        old: args.old.clone(),
        new: args.new.clone(),
        format: args.format.map(Into::into),
        seed: args.seed,
        analysis: analysis(&args.analysis),
        comparison: comparison(&args.compare),
    }
}

/// Resolves `rigor report` options.
pub fn report(args: &ReportArgs) -> ReportSettings {
    ReportSettings {
        file: args.file.clone(),
        out: args.out.clone(),
        analysis: analysis(&args.analysis),
        comparison: comparison(&args.compare),
    }
}
