//! The harness's clocks on the real machine, where the pass depends on real timings: the
//! `Instant` clock's resolution and cost, and the time-stamp counter calibrated against it. The
//! timing tier (every test `#[ignore]`d; see `crates/rigor/tests/timing/main.rs`):
//! `cargo test --workspace --locked --test timing -- --ignored`.

use rigor_bench::timer::{InstantClock, calibrate};

#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn the_real_clock_has_a_plausible_resolution_and_overhead() {
    let c = calibrate(&InstantClock);
    // Nanosecond clocks on any supported system tick within a millisecond and cost less.
    assert!(c.resolution_ns > 0.0 && c.resolution_ns < 1e6, "{c:?}");
    assert!(c.overhead_ns >= 0.0 && c.overhead_ns < 1e6, "{c:?}");
}

#[cfg(target_arch = "x86_64")]
#[test]
#[ignore = "timing tier: cargo test --workspace --locked --test timing -- --ignored"]
fn the_real_counter_agrees_with_instant_where_it_is_invariant() {
    use rigor_bench::cycles::{Tsc, calibrate_ticks, invariant_tsc};
    let Some(info) = std::fs::read_to_string("/proc/cpuinfo").ok() else {
        eprintln!("SKIP: /proc/cpuinfo unreadable");
        return;
    };
    if !invariant_tsc(&info) {
        eprintln!("SKIP: no invariant TSC on this CPU");
        return;
    }
    // Windows of 1 ms; a shared machine may preempt one, so only a plausible rate is
    // required (0.1–10 GHz), not a steady one.
    let Some(ns) = calibrate_ticks(&Tsc, &InstantClock, 1e6, 3)
        .or_else(|| calibrate_ticks(&Tsc, &InstantClock, 1e6, 1))
    else {
        panic!("the TSC did not advance");
    };
    assert!((0.1..=10.0).contains(&ns), "{ns} ns per tick");
}
