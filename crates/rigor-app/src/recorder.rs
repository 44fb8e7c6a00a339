//! The recorder: persists every event of an experiment the moment it happens (appended to the
//! result file) and keeps it for the analysis, while telling a progress display.

use rigor_runner::{ExecutionRecord, FailureRecord, Observer, RunError, Termination};
use rigor_store::{IncrementalWriter, LogEntry};

/// Where progress goes (a terminal bar, a log, nothing). Every method has a no-op default.
pub trait Progress {
    /// The number of executions now planned.
    fn set_length(&mut self, _planned: usize) {}
    /// Start counting again from zero, with `planned` executions.
    fn restart(&mut self, planned: usize) {
        self.set_length(planned);
    }
    /// One more execution ended (measured or failed).
    fn advance(&mut self) {}
}

/// No progress display.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// Persists and shows every event as it happens.
pub struct Recorder<'p> {
    writer: Option<IncrementalWriter>,
    log: Vec<LogEntry>,
    discard: usize,
    progress: &'p mut dyn Progress,
}

impl<'p> Recorder<'p> {
    /// A recorder appending to `writer` (when there is one), marking the first `discard`
    /// iterations of every execution as warm-up.
    pub fn new(
        writer: Option<IncrementalWriter>,
        discard: usize,
        progress: &'p mut dyn Progress,
    ) -> Self {
        Self {
            writer,
            log: Vec::new(),
            discard,
            progress,
        }
    }

    /// The records so far, and the writer to finish the file with.
    pub fn into_parts(self) -> (Vec<LogEntry>, Option<IncrementalWriter>) {
        (self.log, self.writer)
    }

    fn record(&mut self, entry: LogEntry) -> Result<(), RunError> {
        if let Some(w) = &mut self.writer {
            w.append(&entry).map_err(|e| RunError::Observer {
                source: Box::new(e),
            })?;
        }
        self.log.push(entry);
        Ok(())
    }
}

impl Observer for Recorder<'_> {
    fn started(&mut self, planned: usize) -> Result<(), RunError> {
        self.progress.set_length(planned);
        Ok(())
    }

    fn execution(&mut self, r: &ExecutionRecord) -> Result<(), RunError> {
        self.progress.advance();
        let o = &r.outcome;
        self.record(LogEntry::Execution {
            benchmark: r.benchmark,
            record: rigor_store::ExecutionRecord {
                metrics: o.metrics.clone(),
                build: r.build,
                env_pad: r.env_pad,
                round: r.round,
                execution: r.execution,
                warmup: r.warmup,
                wall: o.wall,
                user: o.user,
                sys: o.sys,
                max_rss: o.max_rss,
                preempted: o.preempted,
                run_delay: o.run_delay,
                exit_code: match o.termination {
                    Termination::Exited { code } if code != 0 => Some(code),
                    _ => None,
                },
                resolution: o.resolution,
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
        self.progress.advance();
        let (exit_code, signal, timed_out) = match r.termination {
            Some(Termination::Exited { code }) => (Some(code), None, false),
            Some(Termination::Signaled { signal }) => (None, Some(signal), false),
            Some(Termination::TimedOut) => (None, None, true),
            None => (None, None, false),
        };
        self.record(LogEntry::Failure {
            benchmark: r.benchmark,
            record: rigor_store::FailureRecord {
                stage: r.stage,
                round: r.round,
                execution: r.execution,
                warmup: r.warmup,
                number: Some(r.number),
                exit_code,
                signal,
                timed_out,
                stderr_tail: r.stderr_tail.clone(),
                reason: r.reason.clone(),
            },
        })
    }
}

/// Shows progress and keeps nothing (for `plan`'s pilot, whose data are not kept).
pub struct ProgressOnly<'p>(pub &'p mut dyn Progress);

impl Observer for ProgressOnly<'_> {
    fn started(&mut self, planned: usize) -> Result<(), RunError> {
        self.0.restart(planned);
        Ok(())
    }
    fn execution(&mut self, _r: &ExecutionRecord) -> Result<(), RunError> {
        self.0.advance();
        Ok(())
    }
}
