//! The rigor command-line tool: parses arguments, resolves settings, calls the use cases in
//! `rigor-app` and prints what they return. One exit path with documented codes (see
//! [`cli::EXIT_CODES`]).

mod cli;
mod commands;
mod output;
mod settings;
mod text;
mod track_cmd;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Run(args) => commands::run(args),
        Command::Analyze(args) => commands::analyze(args),
        Command::Compare(args) => commands::compare(args),
        Command::Report(args) => commands::report(args),
        Command::Plan(args) => commands::plan(args),
        Command::Track(args) => track_cmd::track(args),
    };
    match outcome {
        Ok(outcome) => ExitCode::from(output::exit_code(outcome)),
        Err(err) => {
            let chain: Vec<String> = err.chain().map(ToString::to_string).collect();
            eprintln!("rigor: error: {}", chain.join(": "));
            ExitCode::from(2)
        }
    }
}
