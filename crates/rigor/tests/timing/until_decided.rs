//! `rigor run --until-decided` on real commands: `sleep` for 5 ms against 25 ms is decided
//! slower (a regression between versions of one program) at the first look, from real timings.
//! The rule itself is tested with the simulator in `until_decided.rs`, in the default tier.

use crate::common::{Dir, json, rigor, stdout_of};

#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn real_commands_a_clear_difference_is_decided() {
    let _alone = crate::alone();
    // `sleep` for 5 ms against 25 ms: five times slower, decided at the first look.
    let dir = Dir::new();
    let path = dir.path("r.json");
    let out = stdout_of(
        rigor()
            .args(["run", "--until-decided", "--seed", "1", "-w", "0"])
            .args(["sleep 0.005", "sleep 0.025", "--export-json"])
            .arg(&path),
    );
    assert!(out.contains("decided: slower (sleep 0.025 is "), "{out}");
    let r = json(&path);
    assert_eq!(r["comparisons"][0]["sequential"]["stop"], "decided");
}

#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn versions_of_one_program_are_a_regression_in_both_outputs() {
    let _alone = crate::alone();
    // ./old/app and ./new/app: one program from two places, so a slowdown is a regression, in
    // the until-decided line as in the comparison (different commands are "slower" in both).
    let dir = Dir::new();
    for (version, seconds) in [("old", "0.005"), ("new", "0.025")] {
        let app = dir.path(&format!("{version}/app"));
        std::fs::create_dir_all(app.parent().unwrap()).unwrap();
        std::fs::write(&app, format!("#!/bin/sh\nexec sleep {seconds}\n")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&app, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = stdout_of(
        rigor()
            .current_dir(dir.0.path())
            .args(["run", "--until-decided", "--seed", "1", "-w", "0"])
            .args(["./old/app", "./new/app"]),
    );
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("decided: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.starts_with("  decided: regression (./new/app is ")
            && line.contains(" slower than ./old/app, sequence "),
        "{line}"
    );
    assert!(out.contains("verdict: regression (beyond"), "{out}");
}
