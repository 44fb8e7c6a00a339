//! The rigor command-line tool: parses arguments, resolves settings and calls into the crates.
//! One exit path with documented codes (see [`cli::EXIT_CODES`]).

mod analyze;
mod cli;
mod compare_cmd;
mod comparisons;
mod diagnosis;
mod html_view;
mod output;
mod plan;
mod report_cmd;
mod results;
mod run;
mod settings;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::run::RunOutcome;

fn gated(hit: bool) -> RunOutcome {
    if hit {
        RunOutcome::Gated
    } else {
        RunOutcome::Ok
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Run(args) => run::run(args),
        Command::Analyze(args) => analyze::analyze(args).map(gated),
        Command::Compare(args) => compare_cmd::compare(args).map(gated),
        Command::Report(args) => report_cmd::report(args).map(|()| RunOutcome::Ok),
        Command::Plan(args) => plan::plan(args).map(|()| RunOutcome::Ok),
    };
    match outcome {
        Ok(RunOutcome::Ok) => ExitCode::SUCCESS,
        Ok(RunOutcome::Failed) => ExitCode::from(2),
        Ok(RunOutcome::Interrupted) => ExitCode::from(130),
        Ok(RunOutcome::Gated) => ExitCode::from(1),
        Err(err) => {
            let chain: Vec<String> = err.chain().map(ToString::to_string).collect();
            eprintln!("rigor: error: {}", chain.join(": "));
            ExitCode::from(2)
        }
    }
}
