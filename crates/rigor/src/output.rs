//! Everything the binary prints: summaries, warnings, notes, and the progress bar.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rigor_app::Outcome;
use rigor_app::recorder::Progress;
use rigor_report::track_lines::Line;
use rigor_runner::{Executor, RunError, StopSignal};
use rigor_store::{ResultFile, Warning};

/// Whether the summaries go to standard error, standard output being taken by an export
/// (`--export-markdown -`).
static SUMMARIES_TO_STDERR: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Whether the summaries and notes are not shown at all (`--style none`, as hyperfine's: only
/// warnings, errors and exports to standard output are printed).
static SILENT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Shows nothing from now on but warnings, errors, the notes that explain the exit status, and
/// exports to standard output (`--style none`).
pub fn silence() {
    SILENT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether [`silence`] was called.
pub fn silent() -> bool {
    SILENT.load(std::sync::atomic::Ordering::Relaxed)
}

/// Sends what [`emit`] writes to standard error from now on, when an export takes standard
/// output: `rigor run --export-markdown - cmd > table.md` then holds the table alone.
pub fn summaries_to_stderr() {
    SUMMARIES_TO_STDERR.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Writes text for people to standard output (standard error after [`summaries_to_stderr`]),
/// through the terminal's escaping ([`rigor_report::escape::terminal`]: no name can send the
/// terminal a control sequence). A closed pipe (`rigor run … | head`) is not an error: the rest
/// of the output is dropped and the run goes on to save its results.
pub fn emit(text: &str) {
    emit_json(&rigor_report::escape::terminal(text));
}

/// Writes a document for programs (JSON, whose own escaping holds any name) where [`emit`]
/// writes, unchanged.
pub fn emit_json(text: &str) {
    use std::io::Write;
    if silent() {
        return;
    }
    if SUMMARIES_TO_STDERR.load(std::sync::atomic::Ordering::Relaxed) {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
    } else {
        emit_data(text);
    }
}

/// Writes an export to standard output (`--export-… -`), whatever [`emit`] does: unchanged
/// for a program reading it, through the terminal's escaping when standard output is a
/// terminal (a CSV keeps names as they are, and a name's control sequence must not reach the
/// screen of the person reading it).
pub fn emit_data(text: &str) {
    use std::io::{IsTerminal, Write};
    let mut out = std::io::stdout().lock();
    let shown = if out.is_terminal() {
        rigor_report::escape::terminal(text)
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    let _ = out.write_all(shown.as_bytes()).and_then(|()| out.flush());
}

/// Shows the non-fatal problems of a result (not an analysis's own, which its summary shows) on
/// standard error: the one place warnings are printed.
pub fn warnings(list: &[Warning]) {
    warnings_of("", list);
}

/// [`warnings`] of one of several files read together (`file`; empty: none), each named by it
/// unless its text names it already (a run that did not finish).
pub fn warnings_of(file: &str, list: &[Warning]) {
    for w in list {
        // A note says what a file held; it is no doubt about the results (`--fail-on warning`
        // does not count it either).
        let kind = if w.is_note() { "note" } else { "warning" };
        let text = w.to_string();
        let named = if file.is_empty() || text.starts_with(file) {
            text
        } else {
            format!("{file}: {text}")
        };
        note!("rigor: {kind}: {named}");
    }
}

/// Shows notes on standard error (after [`silence`], only those that explain the exit status).
pub fn notes(list: &[rigor_report::notes::Note]) {
    use rigor_report::notes::Note;
    for n in list {
        let status = matches!(
            n,
            Note::Failed { .. } | Note::IgnoreFailure | Note::NothingMeasured | Note::Gated
        );
        if status || !silent() {
            note!("rigor: {n}");
        }
    }
}

/// After [`silence`], the warnings the summaries would have shown, on standard error (as
/// hyperfine's `--style none` still prints its warnings); nothing otherwise.
pub fn silenced_warnings(result: &ResultFile, analyses: &rigor_app::analysis::Analyses) {
    if !silent() {
        return;
    }
    for (b, a) in result.benchmarks.iter().zip(analyses) {
        for w in a.iter().flat_map(|a| &a.warnings) {
            note!(
                "rigor: warning: {}: {}",
                b.name,
                rigor_report::warnings::text(w)
            );
        }
    }
}

/// Shows the lines of a `track` command: notes on standard error, output on standard output.
pub fn lines(list: &[Line]) {
    for line in list {
        if line.is_output() {
            emit(&line.to_string());
        } else {
            note!("{line}");
        }
    }
}

/// The terminal as the front end of `track`'s use cases: executors with Ctrl-C handling, a
/// progress bar per measuring phase, their lines as they come.
pub struct Terminal;

impl rigor_app::track::Executors for Terminal {
    fn executor(
        &mut self,
        simulate: bool,
        seed: rigor_units::Seed,
        measures: &rigor_runner::Measures,
    ) -> Result<(StopSignal, Box<dyn Executor>), RunError> {
        crate::commands::measuring(simulate, seed, measures)
    }
}

impl rigor_app::track::Front for Terminal {
    fn progress(&mut self) -> Box<dyn Progress> {
        Box::new(Bar::new())
    }
    fn say(&mut self, line: Line) {
        lines(&[line]);
    }
}

/// Shows the warnings a result carries.
pub fn result_warnings(result: &ResultFile) {
    warnings(&result.warnings);
}

/// The exit status of an outcome (see [`rigor_cli::EXIT_CODES`]).
pub fn exit_code(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Ok => 0,
        Outcome::Gated | Outcome::Undecided => 1,
        Outcome::Failed => 2,
        Outcome::Interrupted => 130,
    }
}

/// A progress bar on standard error (hidden when it is not a terminal).
pub struct Bar(pub ProgressBar);

impl Bar {
    /// A bar counting executions.
    pub fn new() -> Self {
        Self::shown(true)
    }

    /// A bar counting executions, drawn only when `shown` (`--style basic|none` and
    /// `--show-output` hide it).
    pub fn shown(shown: bool) -> Self {
        let target = if shown {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(0), target);
        bar.set_style(
            ProgressStyle::with_template("{spinner} {wide_bar} {pos}/{len} executions, ETA {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Self(bar)
    }
}

impl Progress for Bar {
    fn set_length(&mut self, planned: usize) {
        self.0.set_length(planned as u64);
    }
    fn restart(&mut self, planned: usize) {
        self.0.set_position(0);
        self.0.set_length(planned as u64);
    }
    fn advance(&mut self) {
        self.0.inc(1);
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// A spinner on standard error for work that takes a while (an analysis of a large result),
/// shown only once it has taken a second and only on a terminal; cleared when dropped.
pub struct Working(ProgressBar);

/// How long work goes unannounced.
const QUIET: std::time::Duration = std::time::Duration::from_secs(1);

impl Working {
    /// Starts timing `what` (e.g. "analysing").
    pub fn start(what: &str) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(what.to_string());
        let shown = bar.clone();
        std::thread::spawn(move || {
            std::thread::sleep(QUIET);
            if !shown.is_finished() {
                // Drawn only when standard error is a terminal (indicatif checks).
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(std::time::Duration::from_millis(120));
            }
        });
        Self(bar)
    }
}

impl Drop for Working {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
