//! Maps the parsed command line onto `rigor-app`'s requests and settings; every check and every
//! default is theirs ([`rigor_app::settings::RunRequest::resolve`]).

use anyhow::Result;
use rigor_app::saved::{AnalyzeSettings, CompareFilesSettings, ReportSettings};
use rigor_app::settings::{
    AnalysisSettings, AnalyzeRequest, BuildDir, ComparisonSettings, ExportPaths, Hooks, Origin,
    Parameters, PlanSettings, Resolved, RunRequest, Scan,
};
use rigor_runner::{OutputMode, PilotSettings};
use rigor_store::Discard;

use rigor_cli::{
    AnalysisArgs, AnalyzeArgs, CompareArgs, ComparisonArgs, IgnoredExits, OutputTarget, PlanArgs,
    ReportArgs, RunArgs, RunOptions,
};

/// Analysis options.
pub fn analysis(a: &AnalysisArgs) -> AnalysisSettings {
    AnalysisSettings {
        confidence: a.confidence,
        quantile: a.quantile,
    }
}

/// Comparison options.
pub fn comparison(a: &ComparisonArgs) -> ComparisonSettings {
    let default = ComparisonSettings::default();
    ComparisonSettings {
        reference: a.reference.clone(),
        threshold: a.threshold,
        method: a.method.unwrap_or(default.method),
        estimator: a.estimator.unwrap_or_default(),
        resamples: a.resamples.unwrap_or(default.resamples),
        fail_on: a.fail_on,
        enabled: true,
    }
}

/// `commands` with the options of `rigor run`, as a request.
/// Whether `--shell`'s value was written attached to it (`--shell=VALUE`, `-SVALUE`,
/// `-S=VALUE`) among the options `args` (up to `--`): then it is the shell whatever it is, as
/// hyperfine takes it. clap gives the value the same either way, and a value given apart may be
/// the first command (`--shell` once took none), so only the command line itself tells.
fn shell_attached(args: impl IntoIterator<Item = std::ffi::OsString>) -> bool {
    args.into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .take_while(|a| a != "--")
        .any(|a| a.starts_with("--shell=") || (a.starts_with("-S") && a.len() > 2))
}

pub fn request(commands: &[String], o: &RunOptions) -> RunRequest {
    let scan = match o.parameter_scan.as_slice() {
        [var, min, max] => Some(Scan {
            var: var.clone(),
            min: min.clone(),
            max: max.clone(),
            step: o.parameter_step_size.clone(),
        }),
        _ => None,
    };
    // `--simulate VALUE`: a simulated project (for `track`), else the first simulated command.
    let mut commands = commands.to_vec();
    if let Some(first) = o.simulate.as_ref().filter(|v| !v.is_empty()) {
        if simulated_project(o).is_none() {
            commands.insert(0, first.clone());
        }
    }
    RunRequest {
        commands,
        names: o.names.clone(),
        executions: o.executions,
        min_runs: o.min_runs,
        max_runs: o.max_units,
        warmup_executions: o.warmup_executions,
        discard: o.discard,
        timeout: o.timeout,
        seed: o.seed,
        // -N: every command directly, shell syntax or not (as hyperfine's -N).
        shell: if o.no_shell {
            Some("none".to_string())
        } else {
            o.shell.clone()
        },
        shell_attached: o.shell.is_some() && shell_attached(std::env::args_os()),
        // clap gives the pairs of every -L in one list.
        parameters: Parameters {
            scan,
            lists: (o.parameter_list.chunks_exact(2))
                .map(|p| (p[0].clone(), p[1].clone()))
                .collect(),
        },
        hooks: Hooks {
            setup: o.setup.clone(),
            prepare: o.prepare.clone(),
            conclude: o.conclude.clone(),
            cleanup: o.cleanup.clone(),
        },
        // hyperfine's `--input null` is its default: no input file.
        input: o.input.clone().filter(|p| p.as_os_str() != "null"),
        output: match (o.show_output, &o.output) {
            (true, _) => OutputMode::Inherit,
            (false, OutputTarget::Mode(mode)) => *mode,
            (false, OutputTarget::File(_)) => OutputMode::Null,
        },
        output_file: match &o.output {
            OutputTarget::File(path) => Some(path.clone()),
            OutputTarget::Mode(_) => None,
        },
        iterations_from: o.iterations_from,
        pattern: o.pattern.clone(),
        unit: o.unit,
        build: o.build.clone(),
        builds: o.builds,
        build_root: o.build_root.clone(),
        randomize_env: o.randomize_env,
        iterations: o.iterations,
        ignore_failure: o.ignore_failure.is_some(),
        ignored_exit_codes: match &o.ignore_failure {
            Some(IgnoredExits::Codes(codes)) => codes.clone(),
            _ => Vec::new(),
        },
        simulate: o.simulate.is_some(),
        // Performance counters come with `--metric instructions` / `cycles` (not mapped yet).
        counters: Vec::new(),
        exports: ExportPaths {
            json: o.export_json.clone(),
            csv: o.export_csv.clone(),
            markdown: o.tables.export_markdown.clone(),
            asciidoc: o.tables.export_asciidoc.clone(),
            orgmode: o.tables.export_orgmode.clone(),
            html: o.report.clone(),
            bmf: o.tools.export_bmf.clone(),
            otava: o.tools.export_otava.clone(),
            hyperfine_json: o.tools.export_json_hyperfine.clone(),
            hyperfine_csv: o.tools.export_csv_hyperfine.clone(),
        },
        time_unit: o.time_unit,
        sort: o.sort.unwrap_or_default(),
        plan: o.plan.clone(),
        precision: o.precision,
        budget: o.budget,
        until_decided: o.until_decided,
        rigor_run: false,
        comparison: comparison(&o.compare),
        reference_name: o.reference_name.clone(),
        analysis: analysis(&o.analysis),
        metrics: o.analysis.metric.0.clone(),
        throughput: o.throughput.clone(),
        pilot_iterations: None,
        origin: Origin::current(o.label.clone()),
    }
}

/// `--simulate`'s value when it is a simulated project's specification (`versions=…`).
pub fn simulated_project(o: &RunOptions) -> Option<String> {
    rigor_app::simulated_project::project_spec(o.simulate.as_deref())
}

/// Prints the notes of a resolution and passes it on.
fn noted(r: Resolved) -> Resolved {
    crate::output::notes(&r.notes);
    r
}

/// Resolves `rigor run`.
pub fn run(args: &RunArgs) -> Result<Resolved> {
    resolve_run(args, true)
}

/// Resolves the run of `rigor run` (`rigor_run`: with the meanings only `rigor run` gives its
/// options, [`RunRequest::rigor_run`]) or of `rigor plan`.
fn resolve_run(args: &RunArgs, rigor_run: bool) -> Result<Resolved> {
    if let Some(project) = simulated_project(&args.options) {
        return Err(rigor_app::RequestError::SimulatedProject(project).into());
    }
    let mut request = request(&args.commands, &args.options);
    request.rigor_run = rigor_run;
    Ok(noted(request.resolve_checked()?))
}

/// Resolves `rigor plan`.
pub fn plan(args: &PlanArgs) -> Result<(PlanSettings, BuildDir)> {
    rigor_app::settings::check_writable(&args.out, "--out")?;
    let r = resolve_run(&args.run, false)?;
    let pilot = PilotSettings {
        executions: args.pilot_executions,
        iterations: args.pilot_iterations,
        builds: args.pilot_builds,
        max_time: args.max_time,
        steady_only: r.settings.discard == Discard::Auto,
    };
    let run = r.settings;
    let out = args.out.clone();
    Ok((PlanSettings { pilot, run, out }, r.build_dir))
}

/// Resolves `rigor analyze`.
pub fn analyze(args: &AnalyzeArgs) -> Result<AnalyzeSettings> {
    let request = AnalyzeRequest {
        files: args.files.clone(),
        format: args.format,
        levels: args.levels.clone(),
        value: args.value.clone(),
        benchmark: args.benchmark.clone(),
        allow_negative: args.allow_negative,
        discard: args.discard,
        tool_exports: [
            args.tools.export_bmf.clone(),
            args.tools.export_otava.clone(),
            args.tools.export_json_hyperfine.clone(),
            args.tools.export_csv_hyperfine.clone(),
        ],
        analysis: analysis(&args.analysis),
        comparison: comparison(&args.compare),
        estimator_asked: args.compare.estimator.is_some(),
        diagnose: args.diagnose,
        robust: args.robust,
        metrics: args.analysis.metric.0.clone(),
        throughput: args.throughput.clone(),
    };
    Ok(request.resolve()?)
}

/// Resolves `rigor compare`: `OLD NEW`, or `OLD... -- NEW...`.
pub fn compare(args: &CompareArgs) -> Result<CompareFilesSettings> {
    let base = CompareFilesSettings {
        old: Vec::new(),
        new: Vec::new(),
        format: args.format,
        seed: args.seed,
        analysis: analysis(&args.analysis),
        comparison: comparison(&args.compare),
        metrics: args.analysis.metric.0.clone(),
        estimator_asked: args.compare.estimator.is_some(),
    };
    let markdown = args.export_markdown.as_deref();
    // clap gives no `NEW` for a `--` with nothing after it: the command line says whether one
    // was typed (a `--` is the end of options, never a value).
    let dashes = std::env::args_os().any(|a| a == "--");
    Ok(CompareFilesSettings::from_sides(
        &args.old, &args.new, dashes, markdown, base,
    )?)
}

/// Resolves `rigor report`.
pub fn report(args: &ReportArgs) -> Result<ReportSettings> {
    let s = ReportSettings {
        files: args.files.clone(),
        out: args.out.clone(),
        analysis: analysis(&args.analysis),
        comparison: comparison(&args.compare),
        metrics: args.analysis.metric.0.clone(),
        estimator_asked: args.compare.estimator.is_some(),
    };
    Ok(s.checked()?)
}
