//! The real executor: spawns processes directly (or through `sh -c` with `--shell`), measures wall
//! time around spawn and exit, and takes user/system time and peak RSS from `wait4`; with
//! [`ProcessExecutor::with_counters`], the performance counters of each measured execution
//! ([`crate::perf`]).
//!
//! Output is captured into reusable files in a scratch directory rather than pipes, so no reader
//! thread sits on the measuring path; the files are truncated before each execution.

// The only unsafe code of the runner: `wait4`, `waitid`, `kill`, `getrusage` and `sysconf`
// through libc, each call wrapped in a safe function there. The workspace denies unsafe code everywhere else.
#[allow(unsafe_code)]
pub(crate) mod sys;

pub mod launch;

use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use std::os::unix::process::CommandExt;

use rigor_protocol::{Resolution, SAMPLES_FILE_ENV, Samples, read_samples};
use rigor_units::{MetricValues, Seconds};

use crate::command::CommandLine;
use crate::error::RunError;
use crate::executor::{
    BuildRequest, ExecutionOutcome, ExecutionRequest, Executor, HookRequest, OutputMode,
    Termination,
};
use crate::iterations::{IterationSource, Stream, parse_pattern};
use crate::perf::Counter;
use crate::stop::StopSignal;

/// How many bytes of standard error a failure report keeps.
const STDERR_TAIL_BYTES: u64 = 2048;

/// Spawns real processes.
#[derive(Debug)]
pub struct ProcessExecutor {
    scratch: tempfile::TempDir,
    stop: StopSignal,
    /// Capture files per benchmark, opened once and truncated before each execution.
    captures: HashMap<usize, Captures>,
    /// Performance counters counted for each measured execution.
    counters: Vec<Counter>,
    /// The executable started as [`launch`]er of each measured execution, if any.
    launcher: Option<PathBuf>,
}

/// What a real executor measures of each measured execution besides its times and status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Measures {
    /// Performance counters ([`ProcessExecutor::with_counters`]).
    pub counters: Vec<Counter>,
    /// The command's own peak memory from a few MiB up, through a launcher
    /// ([`ProcessExecutor::with_launcher`]; it costs each execution a process start outside the
    /// timed interval). Without it a peak is known only above the spawning process's own.
    pub own_peak_memory: bool,
}

/// The files one benchmark's executions write to.
#[derive(Debug)]
struct Captures {
    stderr: Capture,
    stdout: Capture,
    samples: Capture,
    /// What the launcher measured ([`launch::Record`]); only when executions are launched.
    record: Option<Capture>,
}

/// A reusable capture file (opened in append mode, so truncating it rewinds every writer).
#[derive(Debug)]
struct Capture {
    path: PathBuf,
    file: File,
}

impl Capture {
    fn open(path: PathBuf) -> Result<Self, RunError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(&path)
            .map_err(|source| RunError::File {
                path: path.clone(),
                source,
            })?;
        file.set_len(0).map_err(|source| RunError::File {
            path: path.clone(),
            source,
        })?;
        Ok(Self { path, file })
    }

    /// Empties the file; a stat first avoids the costlier truncate when nothing was written.
    fn reset(&self) -> Result<(), RunError> {
        if self.is_empty()? {
            return Ok(());
        }
        self.file.set_len(0).map_err(|s| self.err(s))
    }

    fn is_empty(&self) -> Result<bool, RunError> {
        Ok(self.file.metadata().map_err(|s| self.err(s))?.len() == 0)
    }

    fn stdio(&self) -> Result<Stdio, RunError> {
        let clone = self.file.try_clone().map_err(|source| self.err(source))?;
        Ok(Stdio::from(clone))
    }

    fn err(&self, source: std::io::Error) -> RunError {
        RunError::File {
            path: self.path.clone(),
            source,
        }
    }

    fn read_all(&self) -> Result<String, RunError> {
        let bytes = fs::read(&self.path).map_err(|s| self.err(s))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    fn tail(&self) -> Result<String, RunError> {
        let mut f = File::open(&self.path).map_err(|s| self.err(s))?;
        let len = f.metadata().map_err(|s| self.err(s))?.len();
        f.seek(SeekFrom::Start(len.saturating_sub(STDERR_TAIL_BYTES)))
            .map_err(|s| self.err(s))?;
        let mut buf = Vec::new();
        f.read_to_end(&mut buf).map_err(|s| self.err(s))?;
        let tail = String::from_utf8_lossy(&buf).into_owned();
        // A Rust panic under RUST_BACKTRACE=1 ends in frames: the tail then lacks the panic's
        // message, which is what says what failed. It is put before the tail.
        if len > STDERR_TAIL_BYTES && !tail.contains("panicked at") {
            let mut head = Vec::new();
            File::open(&self.path)
                .and_then(|f| f.take(PANIC_SEARCH_BYTES).read_to_end(&mut head))
                .map_err(|s| self.err(s))?;
            if let Some(panic) = panic_message(&String::from_utf8_lossy(&head)) {
                return Ok(format!("{panic}\n[…]\n{tail}"));
            }
        }
        Ok(tail)
    }
}

/// How far into standard error a panic's message is looked for.
const PANIC_SEARCH_BYTES: u64 = 64 * 1024;

/// The line of a Rust panic (`thread 'main' panicked at src/lib.rs:3:5:`) and its message's
/// first line, if standard error holds one.
fn panic_message(text: &str) -> Option<String> {
    let mut lines = text.lines();
    let at = lines.find(|l| l.contains("panicked at"))?;
    Some(match lines.next() {
        Some(message) => format!("{at}\n{message}"),
        None => at.to_string(),
    })
}

impl ProcessExecutor {
    /// An executor with a fresh scratch directory; `stop` lets Ctrl-C terminate the running child.
    pub fn new(stop: StopSignal) -> Result<Self, RunError> {
        let scratch = tempfile::Builder::new()
            .prefix("rigor-")
            .tempdir()
            .map_err(|source| RunError::File {
                path: std::env::temp_dir(),
                source,
            })?;
        Ok(Self {
            scratch,
            stop,
            captures: HashMap::new(),
            counters: Vec::new(),
            launcher: None,
        })
    }

    /// Starts each measured execution (not builds or hooks) through `launcher`, an executable
    /// whose `main` hands the arguments after [`launch::LAUNCH_ARG`] to [`launch::main`] (rigor's
    /// own): the command's peak memory is then its own from the launcher's few MiB up, where a
    /// command spawned by this process reports this process's peak as its own (and is recorded as
    /// unknown below it).
    pub fn with_launcher(mut self, launcher: PathBuf) -> Self {
        self.launcher = Some(launcher);
        self
    }

    /// Counts `counters` for each measured execution (not builds or hooks), recorded in
    /// [`ExecutionOutcome::metrics`] under each counter's name. Check them with
    /// [`crate::perf::probe`] before the run: a counter that cannot be opened fails the first
    /// execution with [`RunError::Counter`].
    pub fn with_counters(mut self, counters: Vec<Counter>) -> Self {
        self.counters = counters;
        self
    }

    /// The capture files of benchmark `b` in `all` (opened in `scratch` the first time, with a
    /// record file when executions are `launched`), emptied for a new execution. A function of
    /// the fields it needs, so that the executor's other fields stay borrowable beside it.
    fn captures<'c>(
        all: &'c mut HashMap<usize, Captures>,
        scratch: &Path,
        launched: bool,
        b: usize,
    ) -> Result<&'c Captures, RunError> {
        use std::collections::hash_map::Entry;
        let c = match all.entry(b) {
            Entry::Occupied(known) => known.into_mut(),
            Entry::Vacant(new) => {
                let open = |name: String| Capture::open(scratch.join(name));
                new.insert(Captures {
                    stderr: open(format!("stderr-{b}"))?,
                    stdout: open(format!("stdout-{b}"))?,
                    samples: open(format!("samples-{b}.jsonl"))?,
                    record: launched
                        .then(|| open(format!("record-{b}.json")))
                        .transpose()?,
                })
            }
        };
        c.stderr.reset()?;
        c.stdout.reset()?;
        c.samples.reset()?;
        if let Some(record) = &c.record {
            record.reset()?;
        }
        Ok(c)
    }
}

impl ProcessExecutor {
    /// Runs a build or hook: output discarded, standard error kept for failure reports.
    fn auxiliary(
        &mut self,
        command: &CommandLine,
        dir: Option<&Path>,
        timeout: Option<Duration>,
        env: &[(String, String)],
    ) -> Result<ExecutionOutcome, RunError> {
        let stderr = Capture::open(self.scratch.path().join("stderr-aux"))?;
        let mut cmd = base_command(&command.argv());
        cmd.envs(env.iter().map(|(k, v)| (k, v)));
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr.stdio()?);
        if let Some(dir) = dir {
            cmd.current_dir(dir);
        }
        let (wall, reaped, timed_out, _) = spawn_and_wait(
            &self.stop,
            cmd,
            command.program(),
            timeout,
            false,
            &[],
            Spawned::InGroupOfItsOwn,
        )?;
        Ok(ExecutionOutcome {
            metrics: Default::default(),
            wall,
            user: Seconds::new(reaped.user),
            sys: Seconds::new(reaped.sys),
            max_rss: sys::child_peak_rss(&reaped),
            preempted: Some(reaped.preempted),
            run_delay: reaped.run_delay.map(Seconds::new),
            termination: termination(reaped.status, timed_out),
            stderr_tail: stderr.tail()?,
            iterations: None,
            resolution: None,
            iteration_error: None,
        })
    }
}

/// Terminates a process group (used on Ctrl-C).
pub(crate) fn terminate_group(pgid: i32) {
    sys::kill_group(pgid, libc::SIGTERM);
}

/// Waits for `pid` to exit, killing its process group if it outlives `limit`; whether it did.
/// It is left for the caller to reap.
fn wait_with_timeout(pid: i32, limit: Duration) -> std::io::Result<bool> {
    let state = Arc::new((Mutex::new((false, false)), Condvar::new()));
    let watchdog = {
        let state = Arc::clone(&state);
        std::thread::spawn(move || {
            let (lock, cvar) = &*state;
            let guard = lock.lock().unwrap_or_else(|e| e.into_inner());
            let (mut guard, _) = cvar
                .wait_timeout_while(guard, limit, |(exited, _)| !*exited)
                .unwrap_or_else(|e| e.into_inner());
            if !guard.0 {
                // Not yet reaped (the main thread reaps only after setting `exited`), so the pid
                // still names our child.
                sys::kill_group(pid, libc::SIGKILL);
                guard.1 = true;
            }
        })
    };
    let waited = sys::wait_exited_no_reap(pid);
    let timed_out = {
        let (lock, cvar) = &*state;
        let mut guard = lock.lock().unwrap_or_else(|e| e.into_inner());
        guard.0 = true;
        cvar.notify_all();
        guard.1
    };
    let _ = watchdog.join();
    waited?;
    Ok(timed_out)
}

fn termination(status: i32, timed_out: bool) -> Termination {
    if timed_out {
        return Termination::TimedOut;
    }
    match sys::decode(status) {
        (Some(code), _) => Termination::Exited { code },
        (_, Some(signal)) => Termination::Signaled { signal },
        _ => Termination::Exited { code: -1 },
    }
}

fn base_command(argv: &[String]) -> Command {
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]);
    cmd
}

fn open_input(path: &Path) -> Result<Stdio, RunError> {
    File::open(path)
        .map(Stdio::from)
        .map_err(|source| RunError::File {
            path: path.to_path_buf(),
            source,
        })
}

impl Executor for ProcessExecutor {
    fn execute(&mut self, req: &ExecutionRequest<'_>) -> Result<ExecutionOutcome, RunError> {
        let (stop, counters, launcher) = (&self.stop, &self.counters, self.launcher.as_deref());
        let captures = Self::captures(
            &mut self.captures,
            self.scratch.path(),
            launcher.is_some(),
            req.benchmark,
        )?;
        let capture_stdout = matches!(
            req.iterations,
            IterationSource::Pattern {
                stream: Stream::Stdout,
                ..
            }
        );
        let argv = req.command.argv();
        let launched = launcher.zip(captures.record.as_ref());
        let mut cmd = match launched {
            Some((launcher, record)) => launch::command(launcher, &record.path, counters, &argv),
            None => base_command(&argv),
        };
        if let Some(dir) = req.dir {
            cmd.current_dir(dir);
        }
        cmd.stdin(match req.input {
            Some(path) => open_input(path)?,
            None => Stdio::null(),
        });
        let drain = !capture_stdout && req.output_file.is_none() && req.output == OutputMode::Pipe;
        let output_file = match req.output_file.filter(|_| !capture_stdout) {
            Some(path) => Some(File::create(path).map_err(|source| RunError::File {
                path: path.to_path_buf(),
                source,
            })?),
            None => None,
        };
        cmd.stdout(match req.output {
            _ if capture_stdout => captures.stdout.stdio()?,
            _ if output_file.is_some() => output_file.map_or_else(Stdio::null, Stdio::from),
            OutputMode::Null => Stdio::null(),
            OutputMode::Pipe => Stdio::piped(),
            OutputMode::Inherit => Stdio::inherit(),
        });
        cmd.stderr(captures.stderr.stdio()?);
        cmd.env(SAMPLES_FILE_ENV, &captures.samples.path);
        for (k, v) in req.env {
            cmd.env(k, v);
        }

        let program = req.command.program();
        let (wall, reaped, timed_out, metrics) = spawn_and_wait(
            stop,
            cmd,
            program,
            req.timeout,
            drain,
            if launched.is_some() { &[] } else { counters },
            Spawned::InGroupOfItsOwn,
        )?;
        let (wall, reaped, max_rss, metrics) = if let Some((_, record)) = launched {
            match launched_record(record, program, reaped, timed_out)? {
                Some(r) => (
                    Seconds::new(r.wall),
                    sys::Reaped {
                        status: r.status,
                        user: r.user,
                        sys: r.sys,
                        max_rss: r.max_rss,
                        preempted: r.preempted,
                        run_delay: r.run_delay,
                    },
                    r.max_rss,
                    r.metrics,
                ),
                // Killed with the command: its own status, nothing measured but the wall time.
                None => (wall, reaped, 0, Metrics::new()),
            }
        } else {
            (wall, reaped, sys::child_peak_rss(&reaped), metrics)
        };

        let termination = termination(reaped.status, timed_out);
        let (reported, iteration_error) = match read_iterations(req.iterations, captures) {
            Ok(r) => (r, None),
            Err(e) => (Reported::default(), Some(e)),
        };
        // Standard error is only read when it is needed, keeping the loop between executions short.
        let stderr_tail = if termination.success() && iteration_error.is_none() {
            String::new()
        } else {
            captures.stderr.tail()?
        };
        Ok(ExecutionOutcome {
            metrics: {
                // What the program reported, and the counters rigor counted (which win over a
                // reported value of the same name).
                let mut all = reported.metrics;
                all.extend(metrics);
                all
            },
            wall,
            user: Seconds::new(reaped.user),
            sys: Seconds::new(reaped.sys),
            max_rss,
            preempted: Some(reaped.preempted),
            run_delay: reaped.run_delay.map(Seconds::new),
            termination,
            stderr_tail,
            iterations: reported.iterations,
            resolution: reported.resolution,
            iteration_error,
        })
    }

    fn build(&mut self, req: &BuildRequest<'_>) -> Result<ExecutionOutcome, RunError> {
        self.auxiliary(req.command, Some(req.dir), req.timeout, &[])
    }

    fn run_hook(&mut self, req: &HookRequest<'_>) -> Result<ExecutionOutcome, RunError> {
        self.auxiliary(req.command, req.dir, None, req.env)
    }
}

/// What the launcher of `program` recorded: `None` when it was killed before it could (a
/// timeout, or a signal to the group it leads); an error when it failed to measure.
fn launched_record(
    record: &Capture,
    program: &str,
    launcher: sys::Reaped,
    timed_out: bool,
) -> Result<Option<launch::Record>, RunError> {
    let text = record.read_all()?;
    if text.is_empty() {
        if timed_out || sys::decode(launcher.status).1.is_some() {
            return Ok(None);
        }
        return Err(RunError::Launch {
            program: program.to_string(),
            reason: format!(
                "the launcher exited ({}) without its record",
                launcher.status
            ),
        });
    }
    let r: launch::Record = serde_json::from_str(&text).map_err(|e| RunError::Launch {
        program: program.to_string(),
        reason: format!("unreadable record {}: {e}", record.path.display()),
    })?;
    match r.error {
        Some(failure) => Err(failure.into_error(program)),
        None => Ok(Some(r)),
    }
}

/// Which process group a spawned child is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spawned {
    /// A new one it leads, so that the whole group can be killed (what rigor spawns).
    InGroupOfItsOwn,
    /// The spawner's (what the launcher spawns: rigor kills the launcher's group).
    InCallersGroup,
}

/// Spawns `cmd` (in the process group `group` says), waits for it (killing the group after
/// `timeout`) and returns (wall time, status and usage, timed out, the counts of `counters`).
/// With `drain`, a reader thread empties the piped standard output so the child never blocks
/// on a full pipe.
fn spawn_and_wait(
    stop: &StopSignal,
    mut cmd: Command,
    program: &str,
    timeout: Option<Duration>,
    drain: bool,
    counters: &[Counter],
    group: Spawned,
) -> Result<(Seconds, sys::Reaped, bool, Metrics), RunError> {
    if group == Spawned::InGroupOfItsOwn {
        cmd.process_group(0);
    }
    let counting = |source| RunError::Counter {
        program: program.to_string(),
        source,
    };
    let counts = counters::start(counters).map_err(counting)?;
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|source| RunError::Spawn {
        program: program.to_string(),
        source,
    })?;
    let pid = child.id() as i32;
    stop.set_child(pid);
    let drainer = drain.then(|| {
        let mut out = child.stdout.take();
        std::thread::spawn(move || {
            if let Some(out) = out.as_mut() {
                let _ = std::io::copy(out, &mut std::io::sink());
            }
        })
    });
    // Waited for without reaping: its run-queue delay is read from `/proc` between its exit
    // and its reaping, after the wall time is taken.
    let exited = match timeout {
        None => sys::wait_exited_no_reap(pid).map(|()| false),
        Some(limit) => wait_with_timeout(pid, limit),
    };
    if let Some(d) = drainer {
        let _ = d.join();
    }
    let wall = Seconds::from_duration(start.elapsed());
    let waited = exited.and_then(|timed_out| {
        let proc_file = sys::schedstat_of(pid);
        let mut reaped = sys::wait4(pid)?;
        reaped.run_delay =
            proc_file.and_then(|text| sys::run_delay(&text, reaped.user + reaped.sys));
        Ok((reaped, timed_out))
    });
    stop.set_child(0);
    // Reaped by wait4 above; `child` holds only closed handles now.
    drop(child);
    let (reaped, timed_out) = waited.map_err(|source| RunError::Wait {
        program: program.to_string(),
        source,
    })?;
    let metrics = counters::read(counts).map_err(counting)?;
    Ok((wall, reaped, timed_out, metrics))
}

/// What one execution measured besides times and memory, by metric name.
type Metrics = std::collections::BTreeMap<String, rigor_units::MetricValues>;

/// The counters of one execution: nothing when none are asked for; elsewhere than on Linux, the
/// error that they are not supported.
mod counters {
    use super::Metrics;
    use crate::perf::{Counter, CounterError};

    #[cfg(target_os = "linux")]
    type Counting = Option<crate::perf::Counting>;
    /// Nothing is ever counted here.
    #[cfg(not(target_os = "linux"))]
    type Counting = Option<std::convert::Infallible>;

    /// Opens `counters` for the next process this thread spawns.
    pub(super) fn start(counters: &[Counter]) -> Result<Counting, CounterError> {
        if counters.is_empty() {
            return Ok(None);
        }
        #[cfg(target_os = "linux")]
        {
            crate::perf::Counting::start(counters).map(Some)
        }
        #[cfg(not(target_os = "linux"))]
        {
            Err(CounterError::Unsupported {
                counter: counters[0],
            })
        }
    }

    /// After the child was reaped: its counts.
    pub(super) fn read(counting: Counting) -> Result<Metrics, CounterError> {
        #[cfg(target_os = "linux")]
        {
            counting.map_or_else(|| Ok(Metrics::new()), crate::perf::Counting::read)
        }
        #[cfg(not(target_os = "linux"))]
        {
            counting.map_or_else(|| Ok(Metrics::new()), |never| match never {})
        }
    }
}

/// What an execution reported itself: iteration times (seconds), the resolution its samples
/// file gave, and the metrics of its samples file's `{"metric": ...}` lines.
#[derive(Debug, Default)]
struct Reported {
    iterations: Option<Vec<f64>>,
    resolution: Option<Resolution>,
    metrics: BTreeMap<String, MetricValues>,
}

/// The samples file's content, when the program wrote to it.
fn read_samples_file(c: &Captures) -> Result<Option<Samples>, String> {
    if c.samples.is_empty().map_err(|e| e.to_string())? {
        return Ok(None);
    }
    let text = c.samples.read_all().map_err(|e| e.to_string())?;
    read_samples(&text)
        .map(Some)
        .map_err(|e| format!("{SAMPLES_FILE_ENV}: {e}"))
}

fn read_iterations(source: &IterationSource, c: &Captures) -> Result<Reported, String> {
    match source {
        IterationSource::Pattern {
            stream,
            regex,
            unit,
        } => {
            let capture = match stream {
                Stream::Stdout => &c.stdout,
                Stream::Stderr => &c.stderr,
            };
            let text = capture.read_all().map_err(|e| e.to_string())?;
            let iterations = parse_pattern(&text, regex, *unit).map_err(|e| e.to_string())?;
            // Times come from the output; the samples file may still carry metrics.
            let metrics = read_samples_file(c)?.map(|s| s.metrics).unwrap_or_default();
            Ok(Reported {
                iterations: Some(iterations),
                resolution: None,
                metrics,
            })
        }
        IterationSource::SamplesFile => {
            let Some(s) = read_samples_file(c)? else {
                return Ok(Reported::default());
            };
            // A program that reports metrics only: its time is the execution's wall time.
            let iterations =
                (!s.values.is_empty()).then(|| s.values.into_iter().map(Seconds::get).collect());
            Ok(Reported {
                resolution: iterations.as_ref().and(s.resolution),
                iterations,
                metrics: s.metrics,
            })
        }
    }
}

/// What these executions measure (a sleep's wall time, a timeout's timing) is tested in the
/// timing tier, `tests/timing.rs`.
#[cfg(test)]
mod tests {
    use super::*;

    /// A request to run the hook `command` in `dir` (`None`: rigor's directory) with `env`.
    fn hook_request<'a>(
        command: &'a CommandLine,
        dir: Option<&'a Path>,
        env: &'a [(String, String)],
    ) -> HookRequest<'a> {
        HookRequest { command, dir, env }
    }

    /// A request to run `command` as benchmark 0, without a build, input, output or extra
    /// environment, in `dir` (`None`: rigor's directory).
    fn request<'a>(
        command: &'a CommandLine,
        iterations: &'a IterationSource,
        timeout: Option<Duration>,
        dir: Option<&'a Path>,
    ) -> ExecutionRequest<'a> {
        ExecutionRequest {
            benchmark: 0,
            build: None,
            command,
            iterations,
            input: None,
            output: OutputMode::Null,
            output_file: None,
            timeout,
            env: &[],
            dir,
        }
    }

    fn run(
        cmd: &str,
        shell: bool,
        timeout: Option<Duration>,
        source: IterationSource,
    ) -> ExecutionOutcome {
        let mut ex = ProcessExecutor::new(StopSignal::new()).unwrap();
        let command = CommandLine::parse(cmd, shell).unwrap();
        ex.execute(&request(&command, &source, timeout, None))
            .unwrap()
    }

    #[test]
    fn peak_memory_is_the_commands_own_or_unknown() {
        // `sleep` is far smaller than this test process, whose peak Linux folds into the
        // child's: unknown, not this process's size.
        let small = run("sleep 0", false, None, IterationSource::SamplesFile);
        assert_eq!(small.max_rss, 0);
        // dd's 256 MiB buffer, filled from /dev/zero, is its own.
        let big = run(
            "dd if=/dev/zero of=/dev/null bs=256M count=1",
            false,
            None,
            IterationSource::SamplesFile,
        );
        assert!(big.termination.success());
        assert!(
            big.max_rss > 256 << 20 && big.max_rss < 400 << 20,
            "{}",
            big.max_rss
        );
    }

    /// The times the kernel took the CPU from a command are counted: a busy loop that shares
    /// one CPU with another (both pinned to CPU 0 by `taskset`) is preempted every few
    /// milliseconds, its children's preemptions included; counted with the launcher (counters
    /// asked for) as without.
    #[cfg(target_os = "linux")]
    #[test]
    fn preemptions_by_another_process_are_counted() {
        if !have_taskset() {
            return;
        }
        let contended = "taskset -c 0 sh -c 'yes > /dev/null & y=$!; \
                         (i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done); kill $y'";
        for counters in [&[][..], &[Counter::TaskClock][..]] {
            let o = counted(contended, counters).unwrap();
            assert!(o.termination.success());
            let preempted = o.preempted.expect("counted");
            // The loop runs for 100 ms or more (about 0.15 s alone here); sharing a
            // CPU, it loses it at least every 20 ms.
            assert!(
                preempted as f64 >= 0.1 / 0.02,
                "{preempted} preemptions in {:?}",
                o.wall
            );
        }
    }

    /// How long a command waited for a CPU is its own process's run-queue delay: a shell loop
    /// pinned to the CPU a busy `yes` holds waits for it a good share of its time (about half
    /// here); where the loop runs in a child process (a subshell), its waiting is not the
    /// command's process's, and none is reported rather than the little the shell itself waited.
    #[cfg(target_os = "linux")]
    #[test]
    fn run_queue_delay_is_the_commands_own_waiting_for_a_cpu() {
        if !have_taskset() {
            return;
        }
        let mut busy = std::process::Command::new("taskset")
            .args(["-c", "0", "yes"])
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let run = |text: &str| {
            let mut ex = ProcessExecutor::new(StopSignal::new()).unwrap();
            executed(&mut ex, CommandLine::parse(text, false).unwrap()).unwrap()
        };
        let looped = "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done";
        let own = run(&format!("taskset -c 0 sh -c '{looped}'"));
        let child = run(&format!("taskset -c 0 sh -c '({looped}); true'"));
        let _ = busy.kill();
        let _ = busy.wait();
        assert!(own.termination.success() && child.termination.success());
        let delay = own.run_delay.expect("told").get();
        // Sharing one CPU with a program that never yields it, the loop waits for it about as
        // long as it runs; a tenth of its wall time is far beyond a quiet machine's (0.1%).
        assert!(delay > 0.1 * own.wall.get(), "{delay} s of {:?}", own.wall);
        assert!(child.run_delay.is_none(), "{:?}", child.run_delay);
    }

    #[test]
    fn schedstat_lines_are_read_and_a_delay_told_only_for_the_processs_own_work() {
        assert_eq!(sys::run_delay("2000000000 500000000 40\n", 2.1), Some(0.5));
        // Its own 2 s of 2.5 s of CPU time: its threads or children did the rest.
        assert_eq!(sys::run_delay("2000000000 500000000 40\n", 2.5), None);
        assert_eq!(sys::run_delay("", 1.0), None);
        assert_eq!(sys::run_delay("x y z", 1.0), None);
    }

    /// Runs `cmd` through `sh -c` counting `counters`.
    #[cfg(target_os = "linux")]
    fn counted(cmd: &str, counters: &[Counter]) -> Result<ExecutionOutcome, RunError> {
        let mut ex = ProcessExecutor::new(StopSignal::new())
            .unwrap()
            .with_counters(counters.to_vec());
        executed(&mut ex, CommandLine::parse(cmd, true).unwrap())
    }

    /// One execution of `command` by `ex`, its iterations from the samples file.
    #[cfg(target_os = "linux")]
    fn executed(
        ex: &mut ProcessExecutor,
        command: CommandLine,
    ) -> Result<ExecutionOutcome, RunError> {
        ex.execute(&request(
            &command,
            &IterationSource::SamplesFile,
            None,
            None,
        ))
    }

    /// Whether `taskset` is there to pin processes to a CPU (a test that needs it says it skips).
    #[cfg(target_os = "linux")]
    fn have_taskset() -> bool {
        let there = std::process::Command::new("taskset")
            .arg("-V")
            .output()
            .is_ok();
        if !there {
            eprintln!("SKIP: taskset is needed");
        }
        there
    }

    /// The software task clock (which needs no hardware counter) proves the counting: it counts
    /// the command, including the processes it starts (the busy loop runs in a subshell), and a
    /// loop 100 times longer counts far more.
    #[cfg(target_os = "linux")]
    #[test]
    fn counters_count_the_command_and_its_children() {
        let clock = |n: u32| {
            let o = counted(
                &format!("(i=0; while [ $i -lt {n} ]; do i=$((i+1)); done); true"),
                &[Counter::TaskClock],
            )
            .unwrap();
            assert!(o.termination.success());
            let m = &o.metrics["task-clock"];
            assert_eq!(m.unit, rigor_units::Quantity::Time);
            assert_eq!(m.values.len(), 1);
            m.values[0]
        };
        let short = clock(1_000);
        let long = clock(100_000);
        assert!(short > 0.0, "{short}");
        // Without the subshell's count, both would be the shell's own start-up alone.
        assert!(long > 5.0 * short, "{long} s not well above {short} s");
        // Builds and hooks are not counted.
        let mut ex = ProcessExecutor::new(StopSignal::new())
            .unwrap()
            .with_counters(vec![Counter::TaskClock]);
        let hook = CommandLine::parse("true", false).unwrap();
        assert!(
            ex.run_hook(&hook_request(&hook, None, &[]))
                .unwrap()
                .metrics
                .is_empty()
        );
    }

    /// A hardware counter the machine lacks fails the execution with the reason (this
    /// workplace's virtual machines have none); where it exists, it counts.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_missing_hardware_counter_fails_with_the_reason_never_zero() {
        let counters = [Counter::TaskClock, Counter::Instructions];
        match counted("exit 0", &counters) {
            Ok(o) => {
                assert!(o.metrics["instructions"].values[0] > 0.0);
                assert!(o.metrics["task-clock"].values[0] > 0.0);
            }
            Err(RunError::Counter { program, source }) => {
                assert_eq!(program, "sh");
                assert_eq!(
                    Err(source.clone()),
                    crate::perf::probe(Counter::Instructions)
                );
                assert_eq!(source.counter(), Counter::Instructions);
            }
            Err(e) => panic!("unexpected error: {e}"),
        }
    }

    #[test]
    fn a_panic_message_is_found_before_a_backtrace() {
        let text = "thread 'main' panicked at benches/b.rs:9:5:\nboom\nstack backtrace:\n   0: x\n";
        assert_eq!(
            super::panic_message(text).as_deref(),
            Some("thread 'main' panicked at benches/b.rs:9:5:\nboom")
        );
        assert_eq!(super::panic_message("just an error\n"), None);
    }

    #[test]
    fn failure_keeps_stderr_tail_and_code() {
        let o = run(
            "echo oops >&2; exit 3",
            true,
            None,
            IterationSource::SamplesFile,
        );
        assert_eq!(o.termination, Termination::Exited { code: 3 });
        assert_eq!(o.stderr_tail.trim(), "oops");
    }

    #[test]
    fn native_samples_file_and_pattern() {
        let o = run(
            r#"printf '{"value": 5, "unit": "ms"}\n{"value": 7, "unit": "ms"}\n' >> "$RIGOR_SAMPLES_FILE""#,
            true,
            None,
            IterationSource::SamplesFile,
        );
        assert_eq!(o.iterations, Some(vec![0.005, 0.007]));
        let source = IterationSource::Pattern {
            stream: Stream::Stdout,
            regex: regex::Regex::new(r"t=(\d+)").unwrap(),
            unit: rigor_units::TimeUnit::Us,
        };
        let o = run("printf 't=10\\nt=20\\n'", true, None, source);
        assert_eq!(o.iterations, Some(vec![10e-6, 20e-6]));
    }

    #[test]
    fn metrics_of_the_samples_file_fill_the_outcome_in_base_units() {
        let o = run(
            r#"printf '{"value": 5, "unit": "ms"}\n{"metric": "allocations", "value": 3}\n{"value": 7, "unit": "ms"}\n{"metric": "allocations", "value": 4}\n{"metric": "heap", "value": 2, "unit": "KiB"}\n' >> "$RIGOR_SAMPLES_FILE""#,
            true,
            None,
            IterationSource::SamplesFile,
        );
        assert_eq!(o.iterations, Some(vec![0.005, 0.007]));
        assert_eq!(o.iteration_error, None);
        let allocations = &o.metrics["allocations"];
        assert_eq!(allocations.unit, rigor_units::Quantity::Count);
        assert_eq!(allocations.values, vec![3.0, 4.0]);
        assert_eq!(o.metrics["heap"].unit, rigor_units::Quantity::Bytes);
        assert_eq!(o.metrics["heap"].values, vec![2048.0]);

        // Metrics alone: no iteration times, the execution's wall time is its time.
        let o = run(
            r#"printf '{"metric": "allocations", "value": 9}\n' >> "$RIGOR_SAMPLES_FILE""#,
            true,
            None,
            IterationSource::SamplesFile,
        );
        assert_eq!(o.iterations, None);
        assert_eq!(o.iteration_error, None);
        assert_eq!(o.metrics["allocations"].values, vec![9.0]);

        // With times from a pattern, the samples file's metrics are kept too.
        let source = IterationSource::Pattern {
            stream: Stream::Stdout,
            regex: regex::Regex::new(r"t=(\d+)").unwrap(),
            unit: rigor_units::TimeUnit::Us,
        };
        let o = run(
            r#"printf 't=10\n'; printf '{"metric": "frees", "value": 2}\n' >> "$RIGOR_SAMPLES_FILE""#,
            true,
            None,
            source,
        );
        assert_eq!(o.iterations, Some(vec![10e-6]));
        assert_eq!(o.metrics["frees"].values, vec![2.0]);

        // A bad metric line fails the execution's report, naming the line.
        let o = run(
            r#"printf '{"value": 5}\n{"metric": "cpu", "value": 1}\n' >> "$RIGOR_SAMPLES_FILE""#,
            true,
            None,
            IterationSource::SamplesFile,
        );
        assert!(o.metrics.is_empty());
        let e = o.iteration_error.unwrap();
        assert!(
            e.starts_with("RIGOR_SAMPLES_FILE: line 2: metric 'cpu': "),
            "{e}"
        );
    }

    #[test]
    fn unreadable_iteration_times_are_reported_not_fatal() {
        let o = run(
            r#"printf '{"value": 5}\n{"value": -5}\n' >> "$RIGOR_SAMPLES_FILE""#,
            true,
            None,
            IterationSource::SamplesFile,
        );
        assert!(o.termination.success());
        assert_eq!(o.iterations, None);
        assert_eq!(
            o.iteration_error.as_deref(),
            Some("RIGOR_SAMPLES_FILE: line 2: value -5 is not a finite, non-negative time")
        );
        let source = IterationSource::Pattern {
            stream: Stream::Stderr,
            regex: regex::Regex::new(r"t=(\d+)").unwrap(),
            unit: rigor_units::TimeUnit::Ms,
        };
        let o = run("echo nothing", true, None, source);
        assert_eq!(
            o.iteration_error.as_deref(),
            Some(r"no output line matched the pattern 't=(\d+)'")
        );
    }

    #[test]
    fn missing_program_is_a_spawn_error() {
        let mut ex = ProcessExecutor::new(StopSignal::new()).unwrap();
        let command = CommandLine::parse("definitely-not-a-program-xyz", false).unwrap();
        let err = ex
            .execute(&request(
                &command,
                &IterationSource::SamplesFile,
                None,
                None,
            ))
            .unwrap_err();
        assert!(matches!(err, RunError::Spawn { .. }));
    }

    /// A benchmark's directory is its working directory, and a relative program is found there
    /// (how `rigor track` runs `./bench` in each version's checkout).
    #[test]
    fn executions_run_in_their_directory() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("here.sh");
        std::fs::write(&script, "#!/bin/sh\ntest -f here.sh\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut ex = ProcessExecutor::new(StopSignal::new()).unwrap();
        let command = CommandLine::parse("./here.sh", false).unwrap();
        let run = |ex: &mut ProcessExecutor, d: Option<&Path>| {
            ex.execute(&request(&command, &IterationSource::SamplesFile, None, d))
        };
        let o = run(&mut ex, Some(dir.path())).unwrap();
        assert!(o.termination.success(), "{:?}", o.termination);
        assert!(
            run(&mut ex, None).is_err(),
            "./here.sh is not in rigor's directory"
        );
        let hook = CommandLine::parse("test -f here.sh", false).unwrap();
        assert!(
            ex.run_hook(&hook_request(&hook, Some(dir.path()), &[]))
                .unwrap()
                .termination
                .success()
        );
        assert!(
            !ex.run_hook(&hook_request(&hook, None, &[]))
                .unwrap()
                .termination
                .success()
        );
        // A hook sees the environment it is given (the execution's number, for --prepare).
        let env_hook = CommandLine::parse("test \"$RIGOR_ITERATION\" = 3", true).unwrap();
        let env = [("RIGOR_ITERATION".to_string(), "3".to_string())];
        assert!(
            ex.run_hook(&hook_request(&env_hook, None, &env))
                .unwrap()
                .termination
                .success()
        );
        assert!(
            !ex.run_hook(&hook_request(&env_hook, None, &[]))
                .unwrap()
                .termination
                .success()
        );
    }
}
