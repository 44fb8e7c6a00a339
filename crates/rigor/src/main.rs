//! The rigor command-line tool.
use clap::Parser;

/// Rigorous benchmarking in reasonable time.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {}

fn main() {
    let _ = Cli::parse();
}
