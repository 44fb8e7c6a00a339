//! Resolves parsed command-line options into the use cases' settings, validating them once,
//! before anything runs.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use regex::Regex;
use rigor_app::plan_file::PlanFile;
use rigor_app::saved::{AnalyzeSettings, CompareFilesSettings, CsvColumns, ReportSettings};
use rigor_app::settings::{
    AnalysisSettings, ComparisonSettings, Exports, Mode, Origin, PlanSettings, RunSettings,
    StdoutExport,
};
use rigor_runner::{
    Benchmark, BuildSettings, CommandLine, IterationSource, OutputMode, PilotSettings, Settings,
};
use rigor_store::{Discard, LevelKind, ModeRecord, RunSettingsRecord};
use rigor_units::{Fraction, Seed};

use crate::cli::{
    AnalysisArgs, AnalyzeArgs, CompareArgs, ComparisonArgs, PlanArgs, ReportArgs, RunArgs,
    RunOptions,
};
use crate::expand;

/// Builds per command when `--build` is given without `--builds`.
pub const DEFAULT_BUILDS: usize = 5;

/// Most top-level units an adaptive run may reach without `--max-runs`.
pub const DEFAULT_MAX_UNITS: usize = 10_000;

/// Most rounds of a run until decided without `--max-runs` (or `--builds` with `--build`): the
/// budget of the simulation in docs/validation/sequential.md.
pub const DEFAULT_MAX_ROUNDS: usize = 200;

/// Executions per build of a run until decided with `--build` and without `-r`: the rounds of
/// the simulation in docs/validation/sequential.md (1 build × 3 executions).
pub const DEFAULT_EXECUTIONS_PER_DECIDING_BUILD: usize = 3;

/// Resolves analysis options.
pub fn analysis(a: &AnalysisArgs) -> AnalysisSettings {
    AnalysisSettings {
        confidence: a.confidence,
        quantile: a.quantile,
    }
}

/// Resolves comparison options.
pub fn comparison(a: &ComparisonArgs) -> ComparisonSettings {
    ComparisonSettings {
        reference: a.reference.clone(),
        threshold: a.threshold,
        method: a.method,
        estimator: a.estimator.unwrap_or_default(),
        resamples: a.resamples,
        fail_on: a.fail_on,
        enabled: true,
    }
}

/// The command line as typed, for the result's provenance.
fn origin(label: Option<&String>) -> Origin {
    Origin {
        command_line: std::env::args().collect(),
        label: label.cloned(),
        working_dir: std::env::current_dir().ok(),
        versions: Vec::new(),
    }
}

/// Resolves and validates `rigor run` options, including the plan file and the mode.
pub fn run(args: &RunArgs) -> Result<RunSettings> {
    let mut s = run_commands(&args.commands, &args.options)?;
    // `rigor track` makes the directory of its results itself: only `run` and `plan` check.
    check_exports(&args.options)?;
    // `{src}` is the source directory: rigor's working directory here (a version's checkout
    // under `rigor track`), so a build running in its own directory can find the sources.
    if let (Some(build), Ok(cwd)) = (&mut s.runner.build, std::env::current_dir()) {
        build.command = build
            .command
            .substitute(&[("src", cwd.display().to_string())]);
    }
    Ok(s)
}

/// The benchmarks of `commands`: one per command and combination of parameter values (the
/// command's values vary fastest), each with its command text and its parameters.
type Expanded = (Vec<Benchmark>, Vec<String>, Vec<expand::Values>);

fn benchmarks(
    commands: &[String],
    args: &RunOptions,
    shell: Option<&[String]>,
) -> Result<Expanded> {
    if commands.is_empty() {
        bail!("no command to benchmark: give at least one COMMAND");
    }
    if args.names.len() > commands.len() {
        bail!(
            "{} names given for {} commands",
            args.names.len(),
            commands.len()
        );
    }
    let combinations = expand::combinations(args)?;
    if let Some(first) = combinations.first() {
        expand::check_used(first, commands, &args.names)?;
    }
    let mut out: Expanded = (Vec::new(), Vec::new(), Vec::new());
    for (i, text) in commands.iter().enumerate() {
        for values in &combinations {
            let command_text = expand::substitute(text, values);
            let command = CommandLine::parse_for(&command_text, shell)?;
            let name = match args.names.get(i) {
                Some(name) if values.is_empty() => name.clone(),
                Some(name) if name.contains('{') => expand::substitute(name, values),
                Some(name) => format!("{name} ({})", describe_values(values)),
                None => command_text.clone(),
            };
            out.0.push(Benchmark::new(name, command));
            out.1.push(command_text);
            out.2.push(values.clone());
        }
    }
    let names = &out.0;
    let expanded = combinations.first().is_some_and(|c| !c.is_empty());
    for (i, b) in names.iter().enumerate().filter(|_| expanded) {
        if names[..i].iter().any(|o| o.name == b.name) {
            bail!(
                "two benchmarks are named '{}': give each command its own --name",
                b.name
            );
        }
    }
    // The same command given twice (an A/A run): numbered, so that comparisons and files tell
    // them apart ("sleep 0.01 #1", "sleep 0.01 #2").
    let all: Vec<String> = out.0.iter().map(|b| b.name.clone()).collect();
    for (i, b) in out.0.iter_mut().enumerate() {
        if all.iter().filter(|n| **n == all[i]).count() > 1 {
            let k = all[..=i].iter().filter(|n| **n == all[i]).count();
            b.name = format!("{} #{k}", all[i]);
        }
    }
    Ok(out)
}

/// "x = 1, y = a".
fn describe_values(values: &expand::Values) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Resolves `commands` with the options of `rigor run`.
pub fn run_commands(commands: &[String], args: &RunOptions) -> Result<RunSettings> {
    let (shell, commands) = expand::shell(args, commands);
    let shell = shell.as_deref();
    let (benchmarks, command_texts, parameters) = benchmarks(&commands, args, shell)?;
    let hook = |c: &Option<String>| {
        c.as_deref()
            .map(|t| CommandLine::parse_for(t, shell))
            .transpose()
    };
    let iterations = iteration_source(args)?;
    let iterations_expected = matches!(iterations, IterationSource::Pattern { .. });
    let timeout = args.timeout.and_then(|t| t.to_duration());
    if let Some(input) = &args.input {
        std::fs::metadata(input).with_context(|| format!("--input {}", input.display()))?;
    }
    let (build, build_root) = build(args, timeout, shell)?;
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
        executions: match (args.until_decided, &build) {
            (true, Some(_)) => args
                .executions
                .unwrap_or(DEFAULT_EXECUTIONS_PER_DECIDING_BUILD),
            _ => executions(args)?,
        },
        warmup_executions: args.warmup_executions.unwrap_or(if iterations_expected {
            0
        } else {
            1
        }),
        timeout,
        input: args.input.clone(),
        output: if args.show_output {
            OutputMode::Inherit
        } else {
            args.output
        },
        iterations,
        setup: hook(&args.setup)?,
        prepare: hook(&args.prepare)?,
        conclude: hook(&args.conclude)?,
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
        None if args.until_decided => until_decided(args, benchmarks.len())?,
        None if args.precision.is_some() || args.budget.is_some() => adaptive(args)?,
        None => Mode::Fixed,
    };
    check_reference(
        args.compare.reference.as_deref(),
        &benchmarks,
        &command_texts,
    )?;
    let record = record(
        &mode,
        &runner,
        &analysis,
        &comparison,
        args,
        shell.is_some(),
    );
    Ok(RunSettings {
        benchmarks,
        commands: command_texts,
        parameters: parameters
            .into_iter()
            .map(|v| v.into_iter().collect())
            .collect(),
        runner,
        discard: args.discard,
        iterations_expected,
        mode,
        analysis,
        comparison,
        exports: Exports {
            json: file(&args.export_json),
            csv: file(&args.export_csv),
            markdown: file(&args.export_markdown),
            asciidoc: file(&args.export_asciidoc),
            orgmode: file(&args.export_orgmode),
            html: args.report.clone(),
            unit: args.time_unit,
            sort: args.sort,
            bmf: args.tools.export_bmf.clone(),
            otava: args.tools.export_otava.clone(),
            stdout: stdout_export(args)?,
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
    shell: bool,
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
                ..
            } => ModeRecord::Adaptive {
                precision: *precision,
                budget: *budget,
                max_units: *max_units,
            },
            Mode::UntilDecided {
                budget,
                max_rounds,
                min_rounds,
            } => ModeRecord::UntilDecided {
                budget: *budget,
                max_rounds: *max_rounds,
                min_rounds: *min_rounds,
            },
        },
        executions: runner.executions,
        warmup_executions: runner.warmup_executions,
        discard: args.discard,
        timeout: args.timeout,
        shell,
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

/// `--reference` names a benchmark (by name, command or 1-based position), checked before
/// anything runs.
fn check_reference(
    reference: Option<&str>,
    benchmarks: &[Benchmark],
    commands: &[String],
) -> Result<()> {
    let Some(name) = reference else { return Ok(()) };
    let found = benchmarks.iter().any(|b| b.name == name)
        || commands.iter().any(|c| c == name)
        || name
            .parse::<usize>()
            .is_ok_and(|k| (1..=benchmarks.len()).contains(&k));
    if !found {
        let names: Vec<String> = benchmarks.iter().map(|b| format!("'{}'", b.name)).collect();
        bail!(
            "--reference '{name}' is none of the benchmarks ({}) nor a position from 1 to {}",
            names.join(", "),
            benchmarks.len()
        );
    }
    Ok(())
}

/// Whether an export path is `-`: standard output, as in hyperfine.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// An export path that names a file (not `-`).
fn file(path: &Option<PathBuf>) -> Option<PathBuf> {
    path.clone().filter(|p| !is_stdout(p))
}

/// The export given `-` (standard output), if any; more than one is an error, since two formats
/// on one stream could not be told apart.
fn stdout_export(args: &RunOptions) -> Result<Option<StdoutExport>> {
    let asked: Vec<(StdoutExport, &str)> = [
        (&args.export_json, StdoutExport::Json, "--export-json"),
        (&args.export_csv, StdoutExport::Csv, "--export-csv"),
        (
            &args.export_markdown,
            StdoutExport::Markdown,
            "--export-markdown",
        ),
        (
            &args.export_asciidoc,
            StdoutExport::AsciiDoc,
            "--export-asciidoc",
        ),
        (
            &args.export_orgmode,
            StdoutExport::OrgMode,
            "--export-orgmode",
        ),
    ]
    .into_iter()
    .filter(|(path, _, _)| path.as_deref().is_some_and(is_stdout))
    .map(|(_, which, option)| (which, option))
    .collect();
    match asked.as_slice() {
        [] => Ok(None),
        [(which, _)] => Ok(Some(*which)),
        more => {
            let options: Vec<&str> = more.iter().map(|(_, o)| *o).collect();
            bail!(
                "{} each name standard output ('-'), but only one export can go there: give \
                 the others a file name",
                options.join(", ")
            )
        }
    }
}

/// Every export path can be written, checked before anything runs (a full run is not lost to a
/// typo in a directory name). `-` is standard output.
fn check_exports(args: &RunOptions) -> Result<()> {
    let exports = [
        (&args.export_json, "--export-json"),
        (&args.export_csv, "--export-csv"),
        (&args.export_markdown, "--export-markdown"),
        (&args.export_asciidoc, "--export-asciidoc"),
        (&args.export_orgmode, "--export-orgmode"),
        (&args.report, "--report"),
    ];
    for (path, option) in exports {
        if let Some(path) = path.as_deref().filter(|p| !is_stdout(p)) {
            check_writable(path, option)?;
        }
    }
    stdout_export(args).map(|_| ())
}

/// Whether a file can be created at `path`: not a directory, and its directory accepts a new
/// file (tried with a temporary file, removed at once).
pub fn check_writable(path: &std::path::Path, option: &str) -> Result<()> {
    if path.is_dir() {
        bail!("{option} {}: is a directory", path.display());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    if !dir.is_dir() {
        bail!(
            "{option} {}: the directory {} does not exist",
            path.display(),
            dir.display()
        );
    }
    tempfile::Builder::new()
        .prefix(".rigor-check-")
        .tempfile_in(dir)
        .with_context(|| format!("{option} {}: cannot write there", path.display()))?;
    Ok(())
}

/// The top-level count of a fixed run: `-r`, else 10 within `--min-runs` and `--max-runs`.
fn executions(args: &RunOptions) -> Result<usize> {
    let (lo, hi) = run_bounds(args)?;
    Ok(args.executions.unwrap_or(10).clamp(lo, hi))
}

/// `--min-runs` and `--max-runs`, checked.
fn run_bounds(args: &RunOptions) -> Result<(usize, usize)> {
    let lo = args.min_runs.unwrap_or(0);
    let hi = args.max_units.unwrap_or(usize::MAX);
    if args.min_runs.is_some_and(|m| m < 2) {
        bail!("--min-runs must be at least 2: an interval needs two executions (or builds)");
    }
    if args.max_units.is_some_and(|m| m < 2) {
        bail!("--max-runs must be at least 2: an interval needs two executions (or builds)");
    }
    if lo > hi {
        bail!("--min-runs {lo} is above --max-runs {hi}");
    }
    Ok((lo, hi))
}

/// A run until decided: `--min-runs` rounds before the first look, `--max-runs` (or `--builds`
/// with `--build`) the most rounds.
fn until_decided(args: &RunOptions, benchmarks: usize) -> Result<Mode> {
    if benchmarks < 2 {
        bail!(
            "--until-decided compares commands with a reference: give at least two commands \
             (got {benchmarks})"
        );
    }
    if args.build.is_none() && args.executions.is_some() {
        bail!(
            "-r/--runs fixes the number of executions; with --until-decided the rounds are bounded \
             by --max-runs or --budget instead"
        );
    }
    let (lo, _) = run_bounds(args)?;
    let min_rounds = args
        .min_runs
        .unwrap_or(rigor_stats::confseq::SequentialConfig::default().min_rounds)
        .max(lo);
    let max_rounds = args
        .max_units
        .or(args.build.as_ref().and(args.builds))
        .unwrap_or(DEFAULT_MAX_ROUNDS);
    if max_rounds < min_rounds {
        bail!(
            "at most {max_rounds} rounds, but --until-decided first looks after {min_rounds} \
             (--min-runs)"
        );
    }
    Ok(Mode::UntilDecided {
        budget: args.budget,
        max_rounds,
        min_rounds,
    })
}

/// An adaptive run: `--min-runs` sizes the pilot, `--max-runs` bounds the units.
fn adaptive(args: &RunOptions) -> Result<Mode> {
    run_bounds(args)?;
    Ok(Mode::Adaptive {
        precision: args.precision,
        budget: args.budget,
        max_units: args.max_units.unwrap_or(DEFAULT_MAX_UNITS),
        min_units: args.min_runs,
    })
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
        stream: *stream,
        regex,
        unit: args.unit,
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
    for (b, p) in benchmarks.iter().zip(&plans) {
        if p.name != b.name {
            note!(
                "rigor: note: the plan has no benchmark named '{}': it gets the plan of '{}', \
                 the benchmark in its place in the plan file",
                b.name,
                p.name
            );
        }
    }
    for (b, p) in benchmarks.iter_mut().zip(&plans) {
        // The plan counts steady iterations: the warm-up before them comes on top, the fixed
        // count discarded or (with `--discard auto`) what the pilot found.
        let warmup = match discard {
            Discard::Auto => p.warmup_iterations,
            Discard::Count(n) => n,
        };
        b.iterations = p.count(LevelKind::Iteration).map(|k| k + warmup);
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
    shell: Option<&[String]>,
) -> Result<(Option<BuildSettings>, Option<tempfile::TempDir>)> {
    let Some(text) = &args.build else {
        return Ok((None, None));
    };
    let command = CommandLine::parse_for(text, shell)?;
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
            builds: match args.builds {
                Some(n) => n,
                None => {
                    let (lo, hi) = run_bounds(args)?;
                    DEFAULT_BUILDS.clamp(lo, hi)
                }
            },
            root,
            timeout,
        }),
        temp,
    ))
}

/// Resolves `rigor plan` options.
pub fn plan(args: &PlanArgs) -> Result<PlanSettings> {
    check_writable(&args.out, "--out")?;
    let run = run(&args.run)?;
    Ok(PlanSettings {
        pilot: PilotSettings {
            executions: args.pilot_executions,
            iterations: args.pilot_iterations,
            builds: args.pilot_builds,
            max_time: args.max_time,
            steady_only: run.discard == Discard::Auto,
        },
        run,
        out: args.out.clone(),
    })
}

/// Resolves `rigor analyze` options.
pub fn analyze(args: &AnalyzeArgs) -> Result<AnalyzeSettings> {
    let is_csv = !args.levels.is_empty()
        || args
            .files
            .iter()
            .any(|f| f.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")));
    if is_csv && args.format.is_some() {
        bail!("--format reads another tool's file; a CSV is read with --levels");
    }
    // A CSV rigor exported reads back as it was written; others name their level columns.
    let own = (is_csv && args.levels.is_empty())
        .then(|| args.files.first())
        .flatten()
        .and_then(|f| std::fs::read_to_string(f).ok())
        .and_then(|text| rigor_store::long_csv::own_export_levels(&text));
    if is_csv && args.levels.is_empty() && own.is_none() {
        bail!("a CSV needs --levels COL[,COL...] naming the level columns, top → bottom");
    }
    if is_csv && args.files.len() > 1 {
        bail!("a CSV is analysed alone: give one file (its level columns identify every row)");
    }
    for (path, option) in [
        (&args.tools.export_bmf, "--export-bmf"),
        (&args.tools.export_otava, "--export-otava"),
    ] {
        if let Some(path) = path {
            check_output(path, option, &args.files)?;
        }
    }
    Ok(AnalyzeSettings {
        files: args.files.clone(),
        csv: is_csv.then(|| CsvColumns {
            levels: own.clone().unwrap_or_else(|| args.levels.clone()),
            value: args.value.clone(),
            benchmark: args
                .benchmark
                .clone()
                .or_else(|| own.as_ref().map(|_| "benchmark".to_string())),
            allow_negative: args.allow_negative,
        }),
        format: args.format.map(Into::into),
        discard: args.discard,
        analysis: analysis(&args.analysis),
        comparison: comparison(&args.compare),
    })
}

/// Resolves `rigor compare` options: `OLD NEW`, or `OLD... -- NEW...`; the Markdown path is
/// checked before anything is read.
pub fn compare(args: &CompareArgs) -> Result<CompareFilesSettings> {
    let (old, new) = match (args.old.as_slice(), args.new.as_slice()) {
        ([old, new], []) => (vec![old.clone()], vec![new.clone()]),
        (_, []) => bail!(
            "give the old and the new result (OLD NEW), or several files per side as \
             OLD... -- NEW..."
        ),
        (old, new) => (old.to_vec(), new.to_vec()),
    };
    if let Some(path) = args.export_markdown.as_deref().filter(|p| !is_stdout(p)) {
        let inputs: Vec<PathBuf> = old.iter().chain(&new).cloned().collect();
        check_output(path, "--export-markdown", &inputs)?;
    }
    Ok(CompareFilesSettings {
        old,
        new,
        format: args.format.map(Into::into),
        seed: args.seed,
        analysis: analysis(&args.analysis),
        comparison: comparison(&args.compare),
    })
}

/// Resolves `rigor report` options; the output path is checked before anything is read.
pub fn report(args: &ReportArgs) -> Result<ReportSettings> {
    check_output(&args.out, "--out", &args.files)?;
    Ok(ReportSettings {
        files: args.files.clone(),
        out: args.out.clone(),
        analysis: analysis(&args.analysis),
        comparison: comparison(&args.compare),
    })
}

/// An output path of a command that reads `inputs`: writable, and none of the inputs (writing
/// it would replace the data being read).
fn check_output(path: &Path, option: &str, inputs: &[PathBuf]) -> Result<()> {
    let same = |input: &PathBuf| match (path.canonicalize(), input.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if let Some(input) = inputs.iter().find(|i| same(i)) {
        bail!(
            "{option} {}: is the input file {}; writing there would replace it",
            path.display(),
            input.display()
        );
    }
    check_writable(path, option)
}
