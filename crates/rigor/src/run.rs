//! `rigor run`: measure, persisting every execution as it completes, then analyse and report.

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rigor_runner::{
    Ending, ExecutionRecord, Executor, FailureRecord, Observer, ProcessExecutor, RunError,
    Scheduler, SimulatedExecutor, StopSignal,
};
use rigor_store::{
    BenchmarkRecord, Environment, IncrementalWriter, LogEntry, ResultFile, RunStatus,
    SCHEMA_VERSION,
};

use crate::cli::RunArgs;
use crate::output;
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
}

/// Runs `rigor run`.
pub fn run(args: &RunArgs) -> Result<RunOutcome> {
    let settings = resolve_run(args)?;
    let stop = StopSignal::new();
    {
        let stop = stop.clone();
        // A second handler cannot be installed (e.g. in tests calling run twice); that only loses
        // clean Ctrl-C handling, so it is not an error.
        let _ = ctrlc::set_handler(move || stop.request());
    }
    let mut executor: Box<dyn Executor> = if args.simulate {
        Box::new(SimulatedExecutor::new(settings.runner.seed))
    } else {
        Box::new(ProcessExecutor::new(stop.clone())?)
    };
    let header = header(args, &settings);
    let writer = match &args.export_json {
        Some(path) => Some(IncrementalWriter::create(path, &header)?),
        None => None,
    };
    let mut observer = Recorder {
        writer,
        log: Vec::new(),
        discard: settings.discard,
        progress: progress_bar(),
    };
    let builds = settings
        .runner
        .build
        .as_ref()
        .map_or(String::new(), |b| format!("{} builds × ", b.builds));
    eprintln!(
        "rigor: {} command(s), {builds}{} executions each, seed {}",
        settings.benchmarks.len(),
        settings.runner.executions,
        settings.runner.seed
    );
    let report = Scheduler::new(&settings.benchmarks, &settings.runner, stop)
        .run(executor.as_mut(), &mut observer);
    observer.progress.finish_and_clear();
    let report = report?;

    let mut result = header;
    result.log = std::mem::take(&mut observer.log);
    result.status = match report.ending {
        Ending::Completed => RunStatus::Complete,
        Ending::Interrupted => RunStatus::Interrupted,
    };
    rigor_store::file::fold_log(&mut result);
    let analyses = analyze_all(&mut result, &settings.analysis);
    print!("{}", output::summaries(&result, &analyses));
    if let Some(w) = observer.writer.take() {
        w.finish(&result).context("writing the JSON result")?;
    }
    output::write_exports(
        &result,
        &analyses,
        args.export_csv.as_deref(),
        args.export_markdown.as_deref(),
    )?;
    Ok(match report.ending {
        Ending::Interrupted => RunOutcome::Interrupted,
        Ending::Completed
            if report
                .status
                .iter()
                .any(|s| *s != rigor_runner::BenchmarkStatus::Completed) =>
        {
            RunOutcome::Failed
        }
        Ending::Completed => RunOutcome::Ok,
    })
}

fn header(args: &RunArgs, s: &RunSettings) -> ResultFile {
    let levels = if s.iterations_expected {
        vec!["execution".into(), "iteration".into()]
    } else {
        vec!["execution".into()]
    };
    ResultFile {
        schema_version: SCHEMA_VERSION,
        rigor_version: env!("CARGO_PKG_VERSION").to_string(),
        status: RunStatus::Running,
        seed: s.runner.seed,
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
                failures: Vec::new(),
            })
            .collect(),
        comparisons: Vec::new(),
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
            w.append(&entry)
                .map_err(|e| RunError::Setting(format!("cannot save results: {e}")))?;
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
                wall: o.wall,
                user: o.user,
                sys: o.sys,
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
                wall: r.outcome.wall,
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
