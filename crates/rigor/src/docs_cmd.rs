//! `rigor completions SHELL` and `rigor man`: generated from the clap definitions, so they
//! always list the options this binary takes.

use anyhow::{Result, anyhow};
use rigor_app::Outcome;
use rigor_cli::{Cli, CompletionsArgs, ManArgs};

/// The command line's definition, as `main` parses it.
fn definition() -> clap::Command {
    Cli::definition(env!("CARGO_PKG_VERSION"), env!("CARGO_PKG_DESCRIPTION"))
}

/// `rigor completions SHELL`: the completion script on standard output.
pub fn completions(args: &CompletionsArgs) -> Result<Outcome> {
    let mut command = definition();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "rigor", &mut out);
    crate::output::emit_data(&String::from_utf8_lossy(&out));
    Ok(Outcome::Ok)
}

/// `rigor man [SUBCOMMAND…]`: the man page (section 1, roff) of rigor or of a subcommand, on
/// standard output.
pub fn man(args: &ManArgs) -> Result<Outcome> {
    let mut command = definition();
    command.build();
    let mut name = String::from("rigor");
    for word in &args.subcommand {
        let sub = command
            .find_subcommand(word)
            .cloned()
            .ok_or_else(|| anyhow!("'{name}' has no subcommand '{word}' (rigor man)"))?;
        name = format!("{name}-{}", sub.get_name());
        command = sub
            .display_name(name.clone())
            .version(env!("CARGO_PKG_VERSION"))
            .bin_name(name.replace('-', " "));
    }
    let mut out = Vec::new();
    clap_mangen::Man::new(command).render(&mut out)?;
    crate::output::emit_data(&String::from_utf8_lossy(&out));
    Ok(Outcome::Ok)
}
