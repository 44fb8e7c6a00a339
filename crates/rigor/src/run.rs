//! `rigor run`: measure, persisting every execution as it completes, then analyse and report.

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rigor_runner::{
    AdaptiveSettings, Ending, ExecutionRecord, Executor, FailureRecord, Observer, PilotSettings,
    ProcessExecutor, RunError, Scheduler, SimulatedExecutor, StopReason, StopSignal, run_adaptive,
};
use rigor_store::{
    BenchmarkRecord, Environment, IncrementalWriter, LogEntry, ResultFile, RunStatus,
    SCHEMA_VERSION,
};
use rigor_units::{ConfidenceLevel, Fraction, Seconds};

use crate::cli::RunArgs;
use crate::comparisons;
use crate::diagnosis;
use crate::output;
use crate::plan;
use crate::results::analyze_all;
use crate::settings::{RunSettings, resolve_run};

/// What happened, for the exit status.
pub enum RunOutcome {
    /// Everything ran.
    Ok,
    /// A benchmark failed.
    Failed,
    /// Ctrl-C.
    Interrupted,
    /// `--fail-on` matched a verdict.
    Gated,
}

/// What every measuring command sets up: resolved settings, Ctrl-C handling, the executor and
/// a progress bar.
pub struct Session {
    /// Resolved settings.
    pub settings: RunSettings,
    /// Stops the experiment on Ctrl-C.
    pub stop: StopSignal,
    /// Real processes, or the simulator with --simulate.
    pub executor: Box<dyn Executor>,
    /// Progress on standard error (hidden when it is not a terminal).
    pub progress: ProgressBar,
}

/// Resolves `args` and prepares a session.
pub fn start(args: &RunArgs) -> Result<Session> {
    let settings = resolve_run(args)?;
    let stop = StopSignal::new();
    {
        let stop = stop.clone();
        // A second handler cannot be installed (e.g. in tests calling run twice); that only loses
        // clean Ctrl-C handling, so it is not an error.
        let _ = ctrlc::set_handler(move || stop.request());
    }
    let executor: Box<dyn Executor> = if args.simulate {
        Box::new(SimulatedExecutor::new(settings.runner.seed))
    } else {
        Box::new(ProcessExecutor::new(stop.clone())?)
    };
    Ok(Session {
        settings,
        stop,
        executor,
        progress: progress_bar(),
    })
}

/// Runs `rigor run`.
pub fn run(args: &RunArgs) -> Result<RunOutcome> {
    let mut session = start(args)?;
    let plan_file = args.plan.as_deref().map(plan::load).transpose()?;
    if let Some(file) = &plan_file {
        apply_plan(&mut session.settings, file, args)?;
    }
    let header = header(args, &session.settings);
    let writer = match &args.export_json {
        Some(path) => Some(IncrementalWriter::create(path, &header)?),
        None => None,
    };
    let mut recorder = Recorder {
        writer,
        log: Vec::new(),
        discard: session.settings.discard,
        progress: session.progress.clone(),
    };
    announce(&session.settings, args);
    let adaptive = plan_file.is_none() && (args.precision.is_some() || args.budget.is_some());
    let (report, note) = if adaptive {
        run_adaptive_mode(&mut session, args, &mut recorder)?
    } else {
        let s = &session.settings;
        let report = Scheduler::new(&s.benchmarks, &s.runner, session.stop.clone())
            .run(session.executor.as_mut(), &mut recorder);
        (report, None)
    };
    session.progress.finish_and_clear();
    let report = report?;

    let mut result = header;
    result.log = std::mem::take(&mut recorder.log);
    result.status = match report.ending {
        Ending::Interrupted => RunStatus::Interrupted,
        _ => RunStatus::Complete,
    };
    rigor_store::file::fold_log(&mut result);
    if session.settings.auto_discard {
        diagnosis::auto_discard_all(&mut result);
    }
    let analyses = analyze_all(&mut result, &session.settings.analysis);
    output::emit(&output::summaries(&result, &analyses));
    for b in &result.benchmarks {
        if let Some(s) = &b.steady_state {
            output::emit(&format!(
                "Warm-up of {} (--discard auto): {}\n",
                b.name, s.applied
            ));
        }
    }
    if let Some(note) = note {
        output::emit(&format!("{note}\n"));
    }
    let cs = comparisons::settings(&args.compare, session.settings.analysis.level, result.seed);
    let computed =
        comparisons::within_run(&result, &analyses, args.compare.reference.as_deref(), &cs)?;
    output::emit(&comparisons::render(&computed));
    result.comparisons = comparisons::records(&computed);
    if let Some(w) = recorder.writer.take() {
        w.finish(&result).context("writing the JSON result")?;
    }
    output::write_exports(
        &result,
        &analyses,
        &comparisons::markdown(&computed),
        args.export_csv.as_deref(),
        args.export_markdown.as_deref(),
    )?;
    if let Some(path) = &args.report {
        let title = format!("rigor report: {}", path.display());
        crate::report_cmd::write(path, &result, &analyses, &title)?;
    }
    let failed = report
        .status
        .iter()
        .any(|s| *s != rigor_runner::BenchmarkStatus::Completed);
    Ok(match report.ending {
        Ending::Interrupted => RunOutcome::Interrupted,
        _ if failed => RunOutcome::Failed,
        _ if comparisons::gate(&computed, args.compare.fail_on) => RunOutcome::Gated,
        _ => RunOutcome::Ok,
    })
}

fn announce(s: &RunSettings, args: &RunArgs) {
    let builds = s
        .runner
        .build
        .as_ref()
        .map_or(String::new(), |b| format!("{} builds × ", b.builds));
    let shape = if args.plan.is_none() && (args.precision.is_some() || args.budget.is_some()) {
        "adaptive".to_string()
    } else {
        format!("{builds}{} executions each", s.runner.executions)
    };
    eprintln!(
        "rigor: {} command(s), {shape}, seed {}",
        s.benchmarks.len(),
        s.runner.seed
    );
}

/// `--plan FILE`: the plan's lower-level counts, and with `--precision` its top-level count.
fn apply_plan(s: &mut RunSettings, file: &plan::PlanFile, args: &RunArgs) -> Result<()> {
    let plans: Vec<plan::BenchmarkPlan> = plan::for_benchmarks(file, &s.benchmarks)?
        .into_iter()
        .cloned()
        .collect();
    for (b, p) in s.benchmarks.iter_mut().zip(&plans) {
        b.iterations = p.count("iteration").map(|k| k + s.discard);
    }
    let top = args
        .precision
        .map(|target| top_units(&plans, target, s))
        .transpose()?;
    let per_build = plans.iter().filter_map(|p| p.count("execution")).max();
    match &mut s.runner.build {
        Some(build) => {
            s.runner.executions = per_build.unwrap_or(1);
            build.builds = top.unwrap_or(build.builds);
        }
        None => s.runner.executions = top.unwrap_or(s.runner.executions),
    }
    Ok(())
}

fn top_units(plans: &[plan::BenchmarkPlan], target: f64, s: &RunSettings) -> Result<usize> {
    let mut most = 2;
    for p in plans {
        most = most.max(p.top_units_for(target, s.analysis.level, s.analysis.quantile)?);
    }
    Ok(most)
}

/// `--precision` / `--budget` without a plan: one experiment that starts with a pilot (kept),
/// takes the optimal lower-level counts from it, and adds top-level units until the target or
/// the budget is reached.
fn run_adaptive_mode(
    session: &mut Session,
    args: &RunArgs,
    recorder: &mut Recorder,
) -> Result<(Result<rigor_runner::Report, RunError>, Option<String>)> {
    let s = &session.settings;
    let adaptive = AdaptiveSettings {
        target: args
            .precision
            .map(|p| Fraction::new(p).context("--precision is not a proportion"))
            .transpose()?,
        budget: args.budget.map(Seconds::new),
        level: ConfidenceLevel::new(s.analysis.level)
            .context("the confidence level is not between 0 and 100%")?,
        quantile: s.analysis.quantile,
        max_looks: rigor_runner::DEFAULT_LOOKS,
        max_units: args.max_units,
    };
    let pilot = PilotSettings::adaptive();
    let outcome = run_adaptive(
        &s.benchmarks,
        &s.runner,
        s.discard,
        &pilot,
        &adaptive,
        session.stop.clone(),
        session.executor.as_mut(),
        recorder,
    );
    let report = match outcome {
        Ok(r) => r,
        Err(e) => return Ok((Err(e), None)),
    };
    Ok((
        Ok(report.report.clone()),
        Some(adaptive_note(s, &report, &pilot)),
    ))
}

/// What stopped an adaptive run, what it spent, and the counts it planned.
fn adaptive_note(
    s: &RunSettings,
    report: &rigor_runner::AdaptiveReport,
    pilot: &PilotSettings,
) -> String {
    let why = match report.reason {
        StopReason::PrecisionReached => "the target precision was reached",
        StopReason::BudgetSpent if report.planned_top == 0 => {
            "the time budget was spent during the pilot (a larger budget lets rigor plan)"
        }
        StopReason::BudgetSpent => "the time budget was spent",
        StopReason::PrecisionNotReached => "the planned units ran without reaching the target",
        StopReason::Ended => "the run ended",
    };
    let top = if s.runner.build.is_some() {
        format!("{} builds", pilot.builds)
    } else {
        format!("{} executions", pilot.executions)
    };
    let per_build = report
        .shape
        .executions
        .map_or(String::new(), |e| format!("{e} execution(s) per build"));
    let plans: Vec<String> = s
        .benchmarks
        .iter()
        .zip(&report.shape.iterations)
        .zip(&report.plans)
        .map(|((b, k), plan)| {
            let mut counts: Vec<String> = Vec::new();
            if !per_build.is_empty() {
                counts.push(per_build.clone());
            }
            let reports_iterations = plan
                .as_ref()
                .is_ok_and(|p| p.levels.iter().any(|l| l == "iteration"));
            if let Some(k) = k.filter(|_| reports_iterations) {
                counts.push(format!(
                    "{} iteration(s) per execution",
                    k.saturating_sub(s.discard)
                ));
            }
            if counts.is_empty() {
                counts.push("top level only".into());
            }
            format!("  {}: {}", b.name, counts.join(", "))
        })
        .collect();
    let mut note = format!(
        "Adaptive run: stopped because {why}. Measured time: pilot ({top}, kept in the results) {}",
        rigor_report::format::time(report.pilot_seconds.get()),
    );
    if report.main_seconds > Seconds::ZERO {
        note.push_str(&format!(
            " + {} after it",
            rigor_report::format::time(report.main_seconds.get())
        ));
    }
    note.push('.');
    if report.planned_top > 0 {
        note.push_str(&format!(
            " First planned {} top-level units in all.\nCounts in use at the end (from the latest plan):\n{}",
            report.planned_top,
            plans.join("\n")
        ));
    }
    note
}

/// Shows progress and nothing else (for `rigor plan`'s pilot, whose data are not kept).
pub struct ProgressOnly(pub ProgressBar);

impl Observer for ProgressOnly {
    fn started(&mut self, planned: usize) -> Result<(), RunError> {
        self.0.set_position(0);
        self.0.set_length(planned as u64);
        Ok(())
    }
    fn execution(&mut self, _r: &ExecutionRecord) -> Result<(), RunError> {
        self.0.inc(1);
        Ok(())
    }
}

fn header(args: &RunArgs, s: &RunSettings) -> ResultFile {
    let mut levels: Vec<String> = vec!["execution".into()];
    if s.iterations_expected {
        levels.push("iteration".into());
    }
    if s.runner.build.is_some() {
        levels.insert(0, "build".into());
    }
    ResultFile {
        schema_version: SCHEMA_VERSION,
        rigor_version: env!("CARGO_PKG_VERSION").to_string(),
        status: RunStatus::Running,
        seed: s.runner.seed.get(),
        confidence: s.analysis.level,
        environment: if args.simulate {
            Environment {
                host: "simulated".into(),
                ..Environment::default()
            }
        } else {
            Environment::detect()
        },
        settings: Some(serde_json::json!({
            "executions": s.runner.executions,
            "warmup_executions": s.runner.warmup_executions,
            "discard": s.discard,
            "timeout": args.timeout,
            "shell": args.shell,
            "simulate": args.simulate,
            "ignore_failure": args.ignore_failure,
            "quantile": s.analysis.quantile,
            "build": args.build,
            "builds": s.runner.build.as_ref().map(|b| b.builds),
            "randomize_env": args.randomize_env,
            "iterations": args.iterations,
        })),
        benchmarks: s
            .benchmarks
            .iter()
            .zip(&args.commands)
            .map(|(b, command)| BenchmarkRecord {
                name: b.name.clone(),
                command: command.clone(),
                unit: "s".into(),
                levels: levels.clone(),
                analysis: None,
                samples: Vec::new(),
                executions: Vec::new(),
                builds: Vec::new(),
                steady_state: None,
                failures: Vec::new(),
            })
            .collect(),
        comparisons: Vec::new(),
        suite: None,
        log: Vec::new(),
    }
}

fn progress_bar() -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{spinner} {wide_bar} {pos}/{len} executions, ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// Persists and shows every event as it happens.
struct Recorder {
    writer: Option<IncrementalWriter>,
    log: Vec<LogEntry>,
    discard: usize,
    progress: ProgressBar,
}

impl Recorder {
    fn record(&mut self, entry: LogEntry) -> Result<(), RunError> {
        if let Some(w) = &mut self.writer {
            w.append(&entry).map_err(|e| {
                RunError::observer(anyhow::Error::new(e).context("cannot save results"))
            })?;
        }
        self.log.push(entry);
        Ok(())
    }
}

impl Observer for Recorder {
    fn started(&mut self, planned: usize) -> Result<(), RunError> {
        self.progress.set_length(planned as u64);
        Ok(())
    }

    fn execution(&mut self, r: &ExecutionRecord) -> Result<(), RunError> {
        self.progress.inc(1);
        let o = &r.outcome;
        self.record(LogEntry::Execution {
            benchmark: r.benchmark,
            record: rigor_store::ExecutionRecord {
                build: r.build,
                env_pad: r.env_pad,
                round: r.round,
                execution: r.execution,
                warmup: r.warmup,
                wall: o.wall.get(),
                user: o.user.get(),
                sys: o.sys.get(),
                max_rss: o.max_rss,
            },
            iterations: o.iterations.clone(),
            discarded: if o.iterations.is_some() {
                self.discard
            } else {
                0
            },
        })
    }

    fn build(&mut self, r: &rigor_runner::BuildRecord) -> Result<(), RunError> {
        self.record(LogEntry::Build {
            benchmark: r.benchmark,
            record: rigor_store::BuildRecord {
                build: r.build,
                wall: r.outcome.wall.get(),
                seed: r.seed,
                dir: r.dir.display().to_string(),
            },
        })
    }

    fn failure(&mut self, r: &FailureRecord) -> Result<(), RunError> {
        self.progress.inc(1);
        let (exit_code, signal, timed_out) = match r.termination {
            Some(rigor_runner::Termination::Exited { code }) => (Some(code), None, false),
            Some(rigor_runner::Termination::Signaled { signal }) => (None, Some(signal), false),
            Some(rigor_runner::Termination::TimedOut) => (None, None, true),
            None => (None, None, false),
        };
        self.record(LogEntry::Failure {
            benchmark: r.benchmark,
            record: rigor_store::FailureRecord {
                round: r.round,
                execution: r.execution,
                exit_code,
                signal,
                timed_out,
                stderr_tail: r.stderr_tail.clone(),
                reason: r.reason.clone(),
            },
        })
    }
}
