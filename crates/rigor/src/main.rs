//! The rigor command-line tool: parses arguments, resolves settings, calls the use cases in
//! `rigor-app` and prints what they return. One exit path with documented codes (see
//! [`rigor_cli::EXIT_CODES`]).

/// Writes a line to standard error, like `eprintln!`, but never panics: a closed standard error
/// (`rigor … 2>&1 | head`) drops the line and the run goes on to save its results.
/// Writes a line for people to standard error, through the terminal's escaping
/// ([`rigor_report::escape::terminal`]).
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($arg)*);
        let _ = writeln!(std::io::stderr(), "{}", rigor_report::escape::terminal(&line));
    }};
}

mod bench_cmd;
mod commands;
mod docs_cmd;
mod farm_cmd;
mod output;
mod settings;
mod track_cmd;

use std::process::ExitCode;

use rigor_app::Outcome;

use rigor_cli::{Cli, Command};

/// The error and its causes, joined by ": ". Some errors also show their source in their own
/// message (an I/O error after its path); a cause already at the end of the text is not
/// repeated.
fn cause_chain(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain().map(ToString::to_string) {
        if text.ends_with(&cause) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&cause);
    }
    text
}

fn main() -> ExitCode {
    // Started by rigor itself as the launcher of a measured execution (before anything else, so
    // that it stays as small as a process can be: its size is the floor of the peak memory
    // rigor can tell).
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args
        .first()
        .is_some_and(|a| a == rigor_runner::process::launch::LAUNCH_ARG)
    {
        let code = rigor_runner::process::launch::main(&args[1..]);
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let cli = Cli::parse_as(env!("CARGO_PKG_VERSION"), env!("CARGO_PKG_DESCRIPTION"));
    let outcome = match &cli.command {
        Command::Run(args) => commands::run(args),
        Command::Bench(args) => bench_cmd::bench(args),
        Command::Analyze(args) => commands::analyze(args),
        Command::Compare(args) => commands::compare(args),
        Command::Report(args) => commands::report(args),
        Command::Plan(args) => commands::plan(args),
        Command::Track(args) => track_cmd::track(args),
        Command::Completions(args) => docs_cmd::completions(args),
        Command::Man(args) => docs_cmd::man(args),
    };
    let stopped = commands::STOPPED.load(std::sync::atomic::Ordering::SeqCst);
    match outcome {
        // Stopped by the user: 130, as the exit-status table says, whatever the use case made
        // of the stop (`track check` had reported a partial comparison and exited 0).
        Ok(_) if stopped && !matches!(cli.command, Command::Run(_) | Command::Bench(_)) => {
            let told = matches!(&cli.command, Command::Track(t) if matches!(t.command, rigor_cli::TrackCommand::Run(_)));
            if !told {
                output::notes(&[rigor_report::notes::Note::Stopped]);
            }
            ExitCode::from(output::exit_code(Outcome::Interrupted))
        }
        Err(err) if stopped => {
            note!("rigor: interrupted ({})", cause_chain(&err));
            ExitCode::from(output::exit_code(Outcome::Interrupted))
        }
        Ok(outcome) => {
            if outcome == Outcome::Gated {
                // Every command gates only on --fail-on: say so, as a CI log should.
                output::notes(&[rigor_report::notes::Note::Gated]);
            }
            if outcome == Outcome::Undecided {
                output::notes(&[rigor_report::notes::Note::Undecided]);
            }
            // `track` commands say what a stop left stored in their own closing lines.
            if let (Outcome::Interrupted, Command::Run(args)) = (outcome, &cli.command) {
                let kept = args
                    .options
                    .export_json
                    .as_ref()
                    .filter(|p| !rigor_app::settings::is_stdout(p))
                    .map(|p| p.display().to_string());
                output::notes(&[rigor_report::notes::Note::Interrupted { kept }]);
            }
            ExitCode::from(output::exit_code(outcome))
        }
        Err(err) => {
            note!("rigor: error: {}", cause_chain(&err));
            ExitCode::from(2)
        }
    }
}
