//! The launcher: a small process between rigor and each measured execution, so that the peak
//! memory the kernel reports is the command's own.
//!
//! Linux folds the address space a process replaces at `exec` into the peak resident set that
//! `wait4` reports for it: a command spawned by rigor reports at least rigor's own peak (tens of
//! MiB, more with transparent huge pages), so a smaller command's peak could not be told from
//! rigor's. A process that has only just started has a small address space: rigor spawns its
//! own executable with [`LAUNCH_ARG`] (a few MiB resident), which spawns the command, times it,
//! counts it, reaps it and writes a record of it to a file rigor names. The command's peak is then
//! known from the launcher's size up, and the launcher's start-up is outside the timed interval
//! (the launcher times the command itself).
//!
//! The launcher does not make a process group of its own: rigor makes the launcher the leader of
//! a new group, which the command joins, so a timeout or Ctrl-C reaches both.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{Metrics, Spawned, spawn_and_wait, sys};
use crate::error::RunError;
use crate::perf::Counter;
use crate::stop::StopSignal;

/// The first argument that makes rigor's executable a launcher (not a subcommand users type).
pub const LAUNCH_ARG: &str = "__launch";

/// What the launcher writes for rigor: one execution, measured.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Record {
    /// The command's raw wait status.
    pub status: i32,
    /// User CPU seconds.
    pub user: f64,
    /// System CPU seconds.
    pub sys: f64,
    /// The command's own peak resident set, bytes (0 when not above the launcher's).
    pub max_rss: u64,
    /// Its involuntary context switches (absent from an older launcher's record).
    #[serde(default)]
    pub preempted: u64,
    /// Seconds it waited, runnable, for a CPU (`sys::run_delay`; absent where not told, and
    /// from an older launcher's record).
    #[serde(default)]
    pub run_delay: Option<f64>,
    /// Wall-clock seconds from just before the spawn to the reaping.
    pub wall: f64,
    /// The counters counted.
    pub metrics: Metrics,
    /// Why the command could not be started, counted or waited for.
    pub error: Option<Failure>,
}

/// A launcher's failure to measure, as rigor reports it.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Failure {
    /// Which step failed.
    pub step: Step,
    /// The operating system's error number, when the step failed with one.
    pub os_error: Option<i32>,
    /// The error's message.
    pub message: String,
}

/// The steps of a launched execution that can fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Step {
    /// Starting the command.
    Spawn,
    /// Waiting for it.
    Wait,
    /// Opening or reading its counters.
    Count,
}

impl Failure {
    /// The error rigor reports for the launched `program`.
    pub(super) fn into_error(self, program: &str) -> RunError {
        let source = match self.os_error {
            Some(code) => std::io::Error::from_raw_os_error(code),
            None => std::io::Error::other(self.message.clone()),
        };
        let program = program.to_string();
        match self.step {
            Step::Spawn => RunError::Spawn { program, source },
            Step::Wait => RunError::Wait { program, source },
            Step::Count => RunError::Launch {
                program,
                reason: self.message,
            },
        }
    }
}

/// The arguments rigor passes to `launcher` to measure `argv` counting `counters`, the record
/// written to `record`.
pub(super) fn command(
    launcher: &Path,
    record: &Path,
    counters: &[Counter],
    argv: &[String],
) -> Command {
    let mut cmd = Command::new(launcher);
    let names: Vec<&str> = counters.iter().map(|c| c.name()).collect();
    cmd.arg(LAUNCH_ARG)
        .arg(record)
        .arg(names.join(","))
        .arg("--")
        .args(argv);
    cmd
}

/// The launcher's `main`: `args` are what follows [`LAUNCH_ARG`] (the record's path, the
/// counters' names joined by commas, `--`, the command's words). Returns the exit code: 0 when
/// the record was written (whatever the command did), 2 on arguments rigor never passes, 1 when
/// the record could not be written (said on standard error, which rigor keeps).
pub fn main(args: &[OsString]) -> i32 {
    let (record, counters, argv) = match parse(args) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("rigor {LAUNCH_ARG}: {message}");
            return 2;
        }
    };
    let rec = measure(&counters, &argv);
    let written = serde_json::to_vec(&rec)
        .map_err(std::io::Error::other)
        .and_then(|bytes| std::fs::write(&record, bytes));
    match written {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("rigor {LAUNCH_ARG}: {}: {e}", Path::new(&record).display());
            1
        }
    }
}

type Parsed = (OsString, Result<Vec<Counter>, String>, Vec<OsString>);

fn parse(args: &[OsString]) -> Result<Parsed, String> {
    let [record, counters, dashes, argv @ ..] = args else {
        return Err("usage: RECORD COUNTERS -- COMMAND [ARG]...".into());
    };
    if dashes != "--" || argv.is_empty() {
        return Err("usage: RECORD COUNTERS -- COMMAND [ARG]...".into());
    }
    let counters = counters
        .to_str()
        .ok_or_else(|| "counter names are not UTF-8".to_string())
        .and_then(|names| {
            names
                .split(',')
                .filter(|n| !n.is_empty())
                .map(|n| Counter::from_str(n).map_err(|e| e.to_string()))
                .collect()
        });
    Ok((record.clone(), counters, argv.to_vec()))
}

fn measure(counters: &Result<Vec<Counter>, String>, argv: &[OsString]) -> Record {
    let failed = |step, os_error, message| Record {
        status: 0,
        user: 0.0,
        sys: 0.0,
        max_rss: 0,
        preempted: 0,
        run_delay: None,
        wall: 0.0,
        metrics: Metrics::new(),
        error: Some(Failure {
            step,
            os_error,
            message,
        }),
    };
    let counters = match counters {
        Ok(c) => c,
        Err(message) => return failed(Step::Count, None, message.clone()),
    };
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]);
    let program = argv[0].to_string_lossy();
    match spawn_and_wait(
        &StopSignal::new(),
        cmd,
        &program,
        None,
        false,
        counters,
        Spawned::InCallersGroup,
    ) {
        Ok((wall, reaped, _, metrics)) => Record {
            status: reaped.status,
            user: reaped.user,
            sys: reaped.sys,
            max_rss: sys::child_peak_rss(&reaped),
            preempted: reaped.preempted,
            run_delay: reaped.run_delay,
            wall: wall.get(),
            metrics,
            error: None,
        },
        Err(RunError::Spawn { source, .. }) => {
            failed(Step::Spawn, source.raw_os_error(), source.to_string())
        }
        Err(RunError::Wait { source, .. }) => {
            failed(Step::Wait, source.raw_os_error(), source.to_string())
        }
        Err(other) => failed(Step::Count, None, other.to_string()),
    }
}
