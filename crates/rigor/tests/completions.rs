//! `rigor completions SHELL` and `rigor man`: generated from the command line's definition.

mod common;

use common::{rigor, stdout_of};
use predicates::prelude::*;

#[test]
fn completions_are_generated_for_every_shell_and_know_the_options() {
    for (shell, marker) in [
        ("bash", "_rigor()"),
        ("zsh", "#compdef rigor"),
        ("fish", "complete -c rigor"),
        ("elvish", "rigor"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let script = stdout_of(rigor().args(["completions", shell]));
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(script.contains("export-json-hyperfine"), "{shell}");
    }
    rigor()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid value 'tcsh'"));
}

#[test]
fn man_pages_of_rigor_and_of_each_subcommand() {
    let page = stdout_of(rigor().arg("man"));
    assert!(page.starts_with(".ie \\n(.g"), "{page}");
    assert!(page.contains(".TH rigor 1"), "{page}");
    assert!(
        page.contains("rigor\\-run(1)"),
        "the subcommands are listed: {page}"
    );
    let run = stdout_of(rigor().args(["man", "run"]));
    assert!(run.contains(".TH rigor-run 1"), "{run}");
    assert!(
        run.contains("\\-\\-parameter\\-list"),
        "every option: {run}"
    );
    let track_run = stdout_of(rigor().args(["man", "track", "run"]));
    assert!(track_run.contains(".TH rigor-track-run 1"), "{track_run}");
    rigor()
        .args(["man", "track", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "'rigor-track' has no subcommand 'nope'",
        ));
}
