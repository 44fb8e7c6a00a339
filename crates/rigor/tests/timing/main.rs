//! The timing tier: tests whose pass depends on real timings — how long real processes take, as
//! measured by rigor (a sleep measured at least as long as it sleeps, a timeout that fires in
//! time, a 5× slower command decided slower, a 20× slower bench function a regression, a 25%
//! slower commit found at its commit) — as opposed to tests that merely run processes and check
//! what rigor does with them, which stay in the default tier.
//!
//! Every test here is `#[ignore]`d, so `cargo test --workspace --locked` (the README's command)
//! lists them as ignored and runs everything else; the tier has its own command and CI step:
//!
//! ```sh
//! cargo test --workspace --locked --test timing -- --ignored
//! ```
//!
//! (`--test timing` picks this binary and its siblings `crates/rigor-runner/tests/timing.rs` and
//! `crates/rigor-bench/tests/timing.rs`.) The tests of this binary take turns ([`alone`]), so
//! none of them loads the machine while another measures.

#[path = "../common/mod.rs"]
mod common;

mod bench;
mod run;
mod sessions;
mod track;
mod track_metrics;
mod until_decided;

use std::sync::{Mutex, MutexGuard};

/// Two busy loops (as many as these machines' cores), killed when dropped.
struct Load(Vec<std::process::Child>);

impl Load {
    fn start() -> Self {
        Self(
            (0..2)
                .map(|_| {
                    std::process::Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .expect("sh runs")
                })
                .collect(),
        )
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Held by each test while it measures: the tests of the tier run one at a time whatever
/// `--test-threads` says (a failed test does not stop the others).
fn alone() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `attempt` up to three times (its argument: the attempt's number, 0–2), until one passes:
/// a broken pipeline fails all three, a noisy moment of the shared machine only one.
fn up_to_three_attempts(attempt: impl Fn(u64) + std::panic::RefUnwindSafe) {
    let mut last = None;
    for k in 0..3 {
        match std::panic::catch_unwind(|| attempt(k)) {
            Ok(()) => return,
            Err(e) => {
                eprintln!("attempt {} of 3 failed (above); measuring again", k + 1);
                last = Some(e);
            }
        }
    }
    std::panic::resume_unwind(last.expect("three attempts failed"));
}
