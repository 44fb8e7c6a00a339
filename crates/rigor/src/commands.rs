//! The command handlers: resolve settings, call a use case, print what it returns.

use anyhow::Result;
use rigor_app::Outcome;
use rigor_runner::{Executor, ProcessExecutor, SimulatedExecutor, StopSignal};

use crate::cli::{AnalyzeArgs, CompareArgs, PlanArgs, ReportArgs, RobustArg, RunArgs};
use crate::output::{self, Bar, emit};
use crate::{settings, text};

/// Ctrl-C handling and the executor of a measuring command.
pub fn measuring(
    simulate: bool,
    seed: rigor_units::Seed,
) -> Result<(StopSignal, Box<dyn Executor>)> {
    let stop = StopSignal::new();
    {
        let stop = stop.clone();
        // A second handler cannot be installed (e.g. in tests calling run twice); that only loses
        // clean Ctrl-C handling, so it is not an error.
        let _ = ctrlc::set_handler(move || stop.request());
    }
    let executor: Box<dyn Executor> = if simulate {
        Box::new(SimulatedExecutor::new(seed))
    } else {
        Box::new(ProcessExecutor::new(stop.clone())?)
    };
    Ok((stop, executor))
}

/// `rigor run`.
pub fn run(args: &RunArgs) -> Result<Outcome> {
    let o = &args.options;
    let bar_shown = !o.show_output
        && !matches!(
            o.style,
            crate::cli::StyleArg::Basic | crate::cli::StyleArg::None
        );
    let resolved = settings::run(args)?;
    execute(&resolved.settings, bar_shown)
}

/// Measures resolved run settings, prints the summaries and comparisons, writes the exports;
/// the progress bar only when `bar_shown` (hyperfine's `--style basic|none`, `--show-output`).
pub fn execute(s: &rigor_app::settings::RunSettings, bar_shown: bool) -> Result<Outcome> {
    let (stop, mut executor) = measuring(s.simulate, s.runner.seed)?;
    if s.exports.stdout.is_some() {
        output::summaries_to_stderr();
    }
    let shape = if s.is_adaptive() {
        "adaptive".to_string()
    } else if let rigor_app::settings::Mode::UntilDecided { max_rounds, .. } = &s.mode {
        let round = s
            .runner
            .build
            .as_ref()
            .map_or("1 execution".to_string(), |_| {
                format!("1 build × {} executions", s.runner.executions)
            });
        format!("until decided (rounds of {round} each, at most {max_rounds})")
    } else {
        let builds = s
            .runner
            .build
            .as_ref()
            .map_or(String::new(), |b| format!("{} builds × ", b.builds));
        format!("{builds}{} executions each", s.runner.executions)
    };
    note!(
        "rigor: {}, {shape}, seed {}",
        rigor_report::format::count(s.benchmarks.len(), "command", "commands"),
        s.runner.seed
    );
    let measured = {
        let mut bar = Bar::shown(bar_shown);
        rigor_app::run::run(s, executor.as_mut(), stop, &mut bar)?
    };
    let r = &measured.result;
    emit(&rigor_app::exports::summaries(
        r,
        &measured.analyses,
        s.exports.unit,
        &measured.compared,
    ));
    for b in &r.benchmarks {
        if let Some(st) = &b.steady_state {
            emit(&format!(
                "Warm-up of {} (--discard auto): {}\n",
                b.name,
                rigor_report::diagnosis::applied_text(st.applied)
            ));
        }
    }
    if let Some(a) = &measured.adaptive {
        emit(&format!("{}\n", text::adaptive_note(s, a)));
    }
    if let Some(d) = &measured.decided {
        emit(&text::decided_note(s, d));
    }
    emit(&rigor_app::comparisons::render(&measured.comparisons));
    emit(&rigor_app::comparisons::render_ranking(&measured.ranking));
    output::result_warnings(r);
    let discards = s.discard != rigor_store::Discard::Count(0);
    let timed_only: Vec<&str> = r
        .benchmarks
        .iter()
        .filter(|b| !b.layout.has_iterations() && !b.samples.is_empty())
        .map(|b| b.name.as_str())
        .collect();
    if discards && !timed_only.is_empty() {
        note!(
            "rigor: note: --discard drops warm-up iterations, and {} reported none (only its \
             wall time was measured): nothing was discarded there; -w/--warmup skips whole \
             executions",
            timed_only.join(", ")
        );
    }
    let reported = rigor_app::exports::Reported {
        result: r,
        analyses: &measured.analyses,
        comparisons: &measured.comparisons,
        compared: &measured.compared,
    };
    rigor_app::exports::write_all(&s.exports, &reported)?;
    if let Some(text) = rigor_app::exports::stdout_text(&s.exports, &reported)? {
        output::emit_data(&text);
    }
    if measured.outcome == Outcome::Failed {
        note!("rigor: a benchmark failed or measured nothing (shown above), exit status 2");
        if !s.runner.ignore_failure && exited_non_zero(r) {
            note!(
                "rigor: to measure a command whose exit status is not zero, use -i/--ignore-failure"
            );
        }
    }
    Ok(measured.outcome)
}

/// Whether a benchmarked command (not a build or a hook) exited with a non-zero status, the one
/// failure `-i/--ignore-failure` is meant for (as hyperfine suggests it).
fn exited_non_zero(r: &rigor_store::ResultFile) -> bool {
    r.benchmarks.iter().any(|b| {
        b.failures
            .iter()
            .any(|f| f.stage.is_command() && f.exit_code.is_some_and(|c| c != 0))
    })
}

/// `rigor plan`.
pub fn plan(args: &PlanArgs) -> Result<Outcome> {
    let (s, _build_dir) = settings::plan(args)?;
    let (stop, mut executor) = measuring(s.run.simulate, s.run.runner.seed)?;
    let planned = {
        let mut bar = Bar::new();
        rigor_app::plan::plan(&s, executor.as_mut(), stop, &mut bar)?
    };
    output::warnings(&planned.warnings);
    for p in &planned.file.benchmark {
        emit(&text::plan(p));
    }
    emit(&format!(
        "Pilot: {} of measured time.\n",
        planned.pilot_time
    ));
    emit(&format!("Plan written to {}\n", s.out.display()));
    Ok(Outcome::Ok)
}

/// `rigor analyze`.
pub fn analyze(args: &AnalyzeArgs) -> Result<Outcome> {
    let s = settings::analyze(args)?;
    let a = rigor_app::saved::analyze(&s)?;
    let r = &a.result;
    if args.json {
        emit(&rigor_store::to_json(r)?);
    } else {
        output::result_warnings(r);
        let cs = rigor_app::comparisons::CompareSettings::new(
            &s.comparison,
            s.analysis.confidence,
            r.seed,
        );
        let compared = rigor_app::analysis::compared_statistics(r, &cs.config);
        emit(&rigor_app::exports::summaries(
            r,
            &a.analyses,
            None,
            &compared,
        ));
        if let Some(note) = text::saved_decided_note(r) {
            emit(&note);
        }
        emit(&rigor_app::comparisons::render(&a.comparisons));
        let ranking = rigor_app::comparisons::ranking(r, &a.analyses, &cs, true);
        emit(&rigor_app::comparisons::render_ranking(&ranking));
        if args.diagnose {
            emit(&text::diagnoses(r));
        }
        if args.robust == Some(RobustArg::Mono) {
            emit(&text::robust(r));
        }
    }
    let tools = rigor_app::settings::Exports {
        bmf: args.tools.export_bmf.clone(),
        otava: args.tools.export_otava.clone(),
        ..Default::default()
    };
    rigor_app::exports::write_for_tools(&tools, r)?;
    // A benchmark that measured nothing fails the analysis as it failed the run (exit 2).
    let nothing = a
        .analyses
        .iter()
        .any(|x| matches!(x, Err(rigor_app::analysis::Unanalysed::NothingMeasured)));
    Ok(if nothing {
        note!("rigor: a benchmark measured nothing (shown above), exit status 2");
        Outcome::Failed
    } else if rigor_app::gated(&a.comparisons, r, s.comparison.fail_on) {
        Outcome::Gated
    } else {
        Outcome::Ok
    })
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
    let c = rigor_app::saved::compare(&s)?;
    output::warnings(&c.warnings);
    if args.json {
        let doc = serde_json::json!({
            "old": names(&s.old),
            "new": names(&s.new),
            "seed": s.seed,
            "confidence": c.confidence,
            "comparisons": rigor_app::comparisons::records(&c.comparisons),
            "suite": c.suite,
            "warnings": c.warnings,
        });
        emit(&(serde_json::to_string_pretty(&doc)? + "\n"));
    } else {
        emit(&rigor_app::comparisons::render(&c.comparisons));
        if let Some(suite) = &c.suite {
            emit(&text::suite(suite, s.seed));
        }
    }
    if markdown_to_stdout {
        output::emit_data(&rigor_app::comparisons::markdown(&c.comparisons));
    } else if let Some(path) = &args.export_markdown {
        rigor_store::write_atomic(
            path,
            rigor_app::comparisons::markdown(&c.comparisons).as_bytes(),
        )?;
    }
    let warned = !c.warnings.is_empty() || c.analysis_warnings;
    let gated = match s.comparison.fail_on {
        Some(rigor_app::settings::FailOn::Warning) => warned,
        rule => rigor_app::comparisons::gate(&c.comparisons, rule),
    };
    Ok(if gated { Outcome::Gated } else { Outcome::Ok })
}

/// Files as one string: a path, or paths joined with " + " (read together).
fn names(files: &[std::path::PathBuf]) -> String {
    files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" + ")
}

/// `rigor report`.
pub fn report(args: &ReportArgs) -> Result<Outcome> {
    let s = settings::report(args)?;
    let a = rigor_app::saved::report(&s)?;
    output::result_warnings(&a.result);
    emit(&format!("Report written to {}\n", s.out.display()));
    Ok(Outcome::Ok)
}
