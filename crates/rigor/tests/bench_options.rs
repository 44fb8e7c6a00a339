//! `rigor bench`'s refusals of `rigor run` options that mean nothing for its functions, before
//! anything is built.

mod common;

use common::{Dir, rigor};
use predicates::prelude::*;

#[test]
fn options_of_run_that_bench_cannot_honour_are_refused_before_building() {
    let dir = Dir::new();
    for (args, said) in [
        (
            &["-i"][..],
            "-i/--ignore-failure is not used by rigor bench: a benchmark whose process fails \
             reports no samples",
        ),
        (&["-n", "x"][..], "--name is not used by rigor bench"),
    ] {
        rigor()
            .current_dir(dir.path("."))
            .arg("bench")
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(said))
            .stderr(predicate::str::contains("building").not());
    }
}
