//! The command handlers: resolve settings, call a use case, print what it returns.

use anyhow::Result;
use rigor_app::Outcome;
use rigor_app::comparisons::views;
use rigor_report::comparison::{markdown, rankings, render};
use rigor_runner::{Executor, Measures, ProcessExecutor, SimulatedExecutor, StopSignal};

use crate::output::{self, Bar, emit};
use crate::settings;
use rigor_cli::{AnalyzeArgs, CompareArgs, PlanArgs, ReportArgs, RunArgs, StyleArg};

/// Whether the user stopped the command (Ctrl-C or SIGTERM, once the handler is installed): its
/// exit status is then 130, whatever the use case made of the stop (a partial comparison, a
/// bisection cut short, or an error from a child the signal also reached).
pub static STOPPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Ctrl-C handling and the executor of a measuring command, measuring each execution of real
/// processes as `measures` says.
pub fn measuring(
    simulate: bool,
    seed: rigor_units::Seed,
    measures: &Measures,
) -> std::result::Result<(StopSignal, Box<dyn Executor>), rigor_runner::RunError> {
    let stop = StopSignal::new();
    {
        let stop = stop.clone();
        // A second handler cannot be installed (e.g. in tests calling run twice); that only loses
        // clean Ctrl-C handling, so it is not an error.
        let _ = ctrlc::set_handler(move || {
            STOPPED.store(true, std::sync::atomic::Ordering::SeqCst);
            stop.request();
        });
    }
    let executor = executor(simulate, seed, measures, &stop)?;
    Ok((stop, executor))
}

/// The executor of a measuring command: the simulator, or real processes that `stop` stops,
/// each measured execution measured as `measures` says.
pub fn executor(
    simulate: bool,
    seed: rigor_units::Seed,
    measures: &Measures,
    stop: &StopSignal,
) -> std::result::Result<Box<dyn Executor>, rigor_runner::RunError> {
    Ok(if simulate {
        Box::new(SimulatedExecutor::new(seed))
    } else {
        let executor = ProcessExecutor::new(stop.clone())?.with_counters(measures.counters.clone());
        // When peak memory is asked for, this very executable launches each measured execution,
        // so that a command's peak is its own rather than rigor's
        // (`rigor_runner::process::launch`).
        Box::new(match std::env::current_exe() {
            Ok(exe) if measures.own_peak_memory && exe.is_file() => executor.with_launcher(exe),
            _ => executor,
        })
    })
}

/// `rigor run`.
pub fn run(args: &RunArgs) -> Result<Outcome> {
    let o = &args.options;
    let bar_shown = !o.show_output && !matches!(o.style, StyleArg::Basic | StyleArg::None);
    if o.style == StyleArg::None {
        output::silence();
    }
    let resolved = settings::run(args)?;
    execute(&resolved.settings, bar_shown, false)
}

/// Measures resolved run settings, prints the summaries and comparisons, writes the exports;
/// the progress bar only when `bar_shown` (hyperfine's `--style basic|none`, `--show-output`).
/// `bench`: the run measures `rigor bench`'s functions, whose failed processes `-i` cannot make
/// measurable (a harness that fails reports no samples): its hint is left out.
pub fn execute(
    s: &rigor_app::settings::RunSettings,
    bar_shown: bool,
    bench: bool,
) -> Result<Outcome> {
    let (stop, mut executor) = measuring(s.simulate, s.runner.seed, &s.measures)?;
    if s.exports.stdout.is_some() {
        output::summaries_to_stderr();
    }
    let parameterised = s.parameters.iter().any(|p| !p.is_empty());
    let opening = rigor_report::notes::opening(
        s.commands_measured(),
        parameterised,
        s.shape(),
        s.runner.seed,
    );
    if !output::silent() {
        note!("rigor: {opening}");
    }
    let measured = {
        let mut bar = Bar::shown(bar_shown);
        rigor_app::run::run(s, executor.as_mut(), stop, &mut bar)?
    };
    let r = &measured.result;
    if measured.by_metric.is_empty() {
        emit(&rigor_app::exports::summaries(
            r,
            &measured.analyses,
            s.exports.unit,
            &measured.compared,
        ));
    }
    let warmups = r.benchmarks.iter().filter_map(|b| {
        let applied = b.steady_state.as_ref()?.applied;
        Some((b.name.as_str(), applied))
    });
    emit(&rigor_report::diagnosis::warmups(warmups));
    if let Some(a) = &measured.adaptive_view {
        emit(&format!("{}\n", rigor_report::adaptive::render(a)));
    }
    if let Some(d) = &measured.decided {
        emit(&rigor_report::decided::render(d));
    }
    if measured.by_metric.is_empty() {
        emit(&render(&views(&measured.comparisons)));
        emit(&rankings(&measured.ranking));
    }
    for a in &measured.by_metric {
        emit(&rigor_report::terminal::metric_heading(&a.metric));
        emit(&rigor_app::exports::summaries(
            &a.result,
            &a.analyses,
            s.exports.unit,
            &a.compared,
        ));
        emit(&render(&views(&a.comparisons)));
        emit(&rankings(&a.ranking));
        // The metric's own warnings; the run's (its load, its stop) once, below (a load
        // warning read three times with --metric wall,cpu).
        let own: Vec<_> = a
            .result
            .warnings
            .iter()
            .filter(|w| !r.warnings.contains(w))
            .cloned()
            .collect();
        output::warnings(&own);
    }
    output::silenced_warnings(r, &measured.analyses);
    output::result_warnings(r);
    // The tables and the report show the first metric asked for; the JSON and CSV results
    // hold every execution's raw measurements.
    let reported = match measured.by_metric.first() {
        Some(a) => rigor_app::exports::Reported {
            result: &a.result,
            analyses: &a.analyses,
            comparisons: &a.comparisons,
            compared: &a.compared,
        },
        None => rigor_app::exports::Reported {
            result: r,
            analyses: &measured.analyses,
            comparisons: &measured.comparisons,
            compared: &measured.compared,
        },
    };
    rigor_app::exports::write_all(&s.exports, &reported, r)?;
    if let Some(text) = rigor_app::exports::stdout_text(&s.exports, &reported)? {
        output::emit_data(&text);
    }
    let notes: Vec<_> = measured
        .notes
        .iter()
        // `rigor bench` says what its intervals leave out in its own words (its baselines keep
        // sessions: --save-baseline, --baseline).
        .filter(|n| {
            !(bench
                && matches!(
                    n,
                    rigor_report::notes::Note::IgnoreFailure
                        | rigor_report::notes::Note::OneRun
                        | rigor_report::notes::Note::NothingToGate { .. }
                ))
        })
        .cloned()
        .collect();
    output::notes(&notes);
    Ok(measured.outcome)
}

/// `rigor plan`.
pub fn plan(args: &PlanArgs) -> Result<Outcome> {
    let (s, _build_dir) = settings::plan(args)?;
    let (stop, mut executor) = measuring(s.run.simulate, s.run.runner.seed, &s.run.measures)?;
    let planned = {
        let mut bar = Bar::new();
        rigor_app::plan::plan(&s, executor.as_mut(), stop, &mut bar)?
    };
    output::warnings(&planned.warnings);
    for p in &planned.file.benchmark {
        emit(&rigor_report::plan::render(&p.view()));
    }
    let out = s.out.display().to_string();
    emit(&rigor_report::plan::written(planned.pilot_time, &out));
    Ok(Outcome::Ok)
}

/// `rigor analyze RUN1 RUN2 …`: several runs of one experiment, analysed together.
fn analyze_runs(args: &AnalyzeArgs, s: &rigor_app::saved::AnalyzeSettings) -> Result<Outcome> {
    let exports = [
        (&args.tables.export_markdown, "--export-markdown"),
        (&args.tables.export_asciidoc, "--export-asciidoc"),
        (&args.tables.export_orgmode, "--export-orgmode"),
        (&args.tools.export_bmf, "--export-bmf"),
        (&args.tools.export_otava, "--export-otava"),
        (&args.tools.export_json_hyperfine, "--export-json-hyperfine"),
        (&args.tools.export_csv_hyperfine, "--export-csv-hyperfine"),
    ];
    if let Some((_, option)) = exports.iter().find(|(path, _)| path.is_some()) {
        return Err(rigor_app::error::AppError::OneRunOnly { option }.into());
    }
    let working = output::Working::start("analysing");
    let over = rigor_app::runs::analyze_runs(s)?;
    drop(working);
    if args.json {
        let mut value = serde_json::to_value(&over.view)?;
        if let Some(object) = value.as_object_mut() {
            object.insert("warnings".into(), serde_json::to_value(&over.warnings)?);
            // [[file, [warning, …]], …]: each run's own warnings.
            object.insert("run_warnings".into(), serde_json::to_value(&over.each_run)?);
        }
        output::emit_json(&(serde_json::to_string_pretty(&value)? + "\n"));
    } else {
        emit(&rigor_report::runs::render(&over.view));
    }
    for (file, warnings) in &over.each_run {
        output::warnings_of(file, warnings);
    }
    output::warnings(&over.warnings);
    Ok(over.outcome)
}

/// `rigor analyze`.
pub fn analyze(args: &AnalyzeArgs) -> Result<Outcome> {
    let s = settings::analyze(args)?;
    if rigor_app::runs::are_runs(&s) {
        return analyze_runs(args, &s);
    }
    use rigor_app::settings::{StdoutExport, is_stdout};
    let tables = [
        (
            &args.tables.export_markdown,
            StdoutExport::Markdown,
            "--export-markdown",
        ),
        (
            &args.tables.export_asciidoc,
            StdoutExport::AsciiDoc,
            "--export-asciidoc",
        ),
        (
            &args.tables.export_orgmode,
            StdoutExport::OrgMode,
            "--export-orgmode",
        ),
    ];
    let to_stdout: Vec<&str> = tables
        .iter()
        .filter(|(path, _, _)| path.as_deref().is_some_and(is_stdout))
        .map(|(_, _, flag)| *flag)
        .collect();
    match (to_stdout.as_slice(), args.json) {
        ([_, _, ..], _) => anyhow::bail!(
            "{} {} write to standard output: one export at most can (give the others a file)",
            to_stdout.join(" and "),
            if to_stdout.len() == 2 { "both" } else { "all" }
        ),
        ([flag], true) => {
            anyhow::bail!("--json and {flag} - both write to standard output: give {flag} a file")
        }
        ([_], false) => output::summaries_to_stderr(),
        _ => {}
    }
    let working = output::Working::start("analysing");
    let all = rigor_app::saved::analyze_metrics(&s)?;
    drop(working);
    let headed = all.len() > 1 || all.iter().any(|a| !a.metric.is_wall());
    if args.json {
        if let [a] = all.as_slice() {
            output::emit_json(&rigor_store::to_json(&a.result)?);
        } else {
            let by_metric: serde_json::Map<String, serde_json::Value> = all
                .iter()
                .map(|a| Ok((a.metric.to_string(), serde_json::to_value(&a.result)?)))
                .collect::<Result<_>>()?;
            output::emit_json(&(serde_json::to_string_pretty(&by_metric)? + "\n"));
        }
    }
    let mut outcome = Outcome::Ok;
    for a in &all {
        let r = &a.result;
        if !args.json {
            if headed {
                emit(&rigor_report::terminal::metric_heading(&a.metric));
            }
            output::result_warnings(r);
            emit(&rigor_app::exports::summaries(
                r,
                &a.analyses,
                None,
                &a.compared,
            ));
            if let Some(d) = &a.decided {
                emit(&rigor_report::decided::render(d));
            }
            emit(&render(&views(&a.comparisons)));
            emit(&rankings(&a.ranking));
            for d in &a.diagnoses {
                emit(&(rigor_report::diagnosis::render(&d.view()) + "\n"));
            }
            for (name, estimates) in &a.robust {
                let estimates = estimates.as_ref().map(|(r, p)| (r, p));
                emit(&rigor_report::diagnosis::robust(name, estimates));
            }
        }
        output::notes(&a.notes);
        outcome = outcome.worst(a.outcome);
    }
    // The tables show the first metric, as `rigor run`'s do.
    if let Some(first) = all.first() {
        // A file each, or the one `-` to standard output (as `rigor run` resolves them).
        let file = |path: &Option<std::path::PathBuf>| path.clone().filter(|p| !is_stdout(p));
        let exports = rigor_app::settings::Exports {
            files: rigor_app::settings::ExportPaths {
                markdown: file(&args.tables.export_markdown),
                asciidoc: file(&args.tables.export_asciidoc),
                orgmode: file(&args.tables.export_orgmode),
                ..Default::default()
            },
            stdout: tables
                .iter()
                .find(|(path, _, _)| path.as_deref().is_some_and(is_stdout))
                .map(|(_, which, _)| *which),
            ..Default::default()
        };
        let reported = rigor_app::exports::Reported {
            result: &first.result,
            analyses: &first.analyses,
            comparisons: &first.comparisons,
            compared: &first.compared,
        };
        rigor_app::exports::write_tables(&exports, &reported)?;
        if let Some(text) = rigor_app::exports::stdout_text(&exports, &reported)? {
            output::emit_data(&text);
        }
    }
    let tools = rigor_app::settings::ExportPaths {
        bmf: args.tools.export_bmf.clone(),
        otava: args.tools.export_otava.clone(),
        hyperfine_json: args.tools.export_json_hyperfine.clone(),
        hyperfine_csv: args.tools.export_csv_hyperfine.clone(),
        ..Default::default()
    };
    // Other tools' formats hold times: they are written from the wall-time analysis.
    match all.iter().find(|a| a.metric.is_wall()) {
        Some(wall) => rigor_app::exports::write_for_tools(&tools, &wall.result)?,
        None if tools != rigor_app::settings::ExportPaths::default() => {
            output::notes(&[rigor_report::notes::Note::ToolExportsNeedWall]);
        }
        None => {}
    }
    Ok(outcome)
}

/// `rigor compare`.
pub fn compare(args: &CompareArgs) -> Result<Outcome> {
    let s = settings::compare(args)?;
    let markdown_to_stdout = args
        .export_markdown
        .as_deref()
        .is_some_and(rigor_app::settings::is_stdout);
    if markdown_to_stdout {
        output::summaries_to_stderr();
    }
    if rigor_app::runs::compare_are_runs(&s) {
        let working = output::Working::start("comparing");
        let over = rigor_app::runs::compare_runs(&s)?;
        drop(working);
        if args.json {
            let mut value = serde_json::to_value(&over.view)?;
            if let Some(object) = value.as_object_mut() {
                object.insert("warnings".into(), serde_json::to_value(&over.warnings)?);
            }
            output::emit_json(&(serde_json::to_string_pretty(&value)? + "\n"));
        } else {
            emit(&rigor_report::runs::render_compared(&over.view));
        }
        output::warnings(&over.warnings);
        let table = rigor_report::runs::markdown_compared(&over.view);
        if markdown_to_stdout {
            output::emit_data(&table);
        } else if let Some(path) = &args.export_markdown {
            rigor_store::write_atomic(path, table.as_bytes())?;
        }
        return Ok(over.outcome);
    }
    let working = output::Working::start("comparing");
    let all = rigor_app::saved::compare_metrics(&s)?;
    drop(working);
    let headed = all.len() > 1 || all.iter().any(|c| !c.metric.is_wall());
    let mut outcome = Outcome::Ok;
    let mut tables = String::new();
    let mut json = serde_json::Map::new();
    for c in &all {
        if headed && !args.json {
            emit(&rigor_report::terminal::metric_heading(&c.metric));
        }
        output::warnings(&c.warnings);
        if args.json {
            json.insert(c.metric.to_string(), c.json(&s));
        } else {
            emit(&render(&views(&c.comparisons)));
            emit(&rigor_report::comparison::values_only(&c.values_only));
            if let Some(view) = c.suite_view() {
                let quantity = c.comparisons.first().map(|x| x.quantity.clone());
                emit(&rigor_report::comparison::suite_of(
                    &view,
                    s.seed,
                    &quantity.unwrap_or_default(),
                ));
            }
        }
        if headed {
            tables.push_str(&rigor_report::terminal::metric_heading(&c.metric));
        }
        tables.push_str(&markdown(&views(&c.comparisons)));
        outcome = outcome.worst(c.outcome);
    }
    if args.json {
        let value = match (all.as_slice(), json) {
            ([c], _) => c.json(&s),
            (_, by_metric) => serde_json::Value::Object(by_metric),
        };
        output::emit_json(&(serde_json::to_string_pretty(&value)? + "\n"));
    }
    if markdown_to_stdout {
        output::emit_data(&tables);
    } else if let Some(path) = &args.export_markdown {
        rigor_store::write_atomic(path, tables.as_bytes())?;
    }
    Ok(outcome)
}

/// `rigor report`.
pub fn report(args: &ReportArgs) -> Result<Outcome> {
    let s = settings::report(args)?;
    let working = output::Working::start("analysing and drawing the report");
    let a = rigor_app::saved::report(&s)?;
    drop(working);
    output::result_warnings(&a.result);
    emit(&rigor_report::html::written(&s.out.display().to_string()));
    Ok(Outcome::Ok)
}
