//! The CPU's cycle counter as a timer (opt-in: `RIGOR_BENCH_CLOCK=cycles`), and the clock a
//! bench target uses ([`SystemClock`]: `Instant`, or the cycle counter when chosen and stable).
//!
//! On x86_64 the time-stamp counter (`rdtsc`) is a timer only when it is invariant: it ticks at
//! a constant rate whatever the core's frequency (`constant_tsc`) and through sleep states
//! (`nonstop_tsc`); Linux lists both in `/proc/cpuinfo`. Its rate is not the nominal frequency
//! reliably, so it is calibrated against `Instant`: ticks counted over a few windows of
//! [`WINDOW_NS`] of `Instant`, the median ratio kept, and the counter refused when the windows
//! disagree by more than [`MAX_SPREAD`] (a counter that is not steady, or a migration between
//! cores whose counters differ). Anything else — another architecture, flags missing, an
//! unsteady calibration — falls back to `Instant`, and the start-up timer line says why.
//!
//! Reading the counter costs a few nanoseconds where `clock_gettime` costs tens, so short
//! batches carry less timer overhead; the overhead is measured and subtracted either way
//! ([`calibrate`](crate::timer::calibrate)). Figures: docs/benchmarks.md ("Timer"). The
//! cycle counter of aarch64 (`cntvct_el0`) is not used: it could not be tested here.
//!
//! Hand-written: the counter is one instruction and the selection needs `/proc/cpuinfo`; no
//! small crate does both without pulling in more than a benchmarked program should.

use std::time::Instant;

use crate::timer::{Clock, InstantClock};

/// Length of one calibration window of `Instant`, in nanoseconds (10 ms).
pub const WINDOW_NS: f64 = 1e7;

/// Calibration windows taken.
pub const WINDOWS: usize = 5;

/// Largest relative spread (max − min over the median) of the windows' ratios that still counts
/// as a steady counter.
pub const MAX_SPREAD: f64 = 1e-3;

/// The environment variable that chooses the clock: `instant` (the default) or `cycles`.
pub const CLOCK_VAR: &str = "RIGOR_BENCH_CLOCK";

/// A counter of ticks at a constant rate.
pub trait Ticks {
    /// The current count.
    fn ticks(&self) -> u64;
}

/// The x86_64 time-stamp counter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tsc;

impl Ticks for Tsc {
    #[inline(always)]
    fn ticks(&self) -> u64 {
        read_tsc()
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code, unused_unsafe)]
fn read_tsc() -> u64 {
    // SAFETY: rdtsc exists on every x86_64 CPU and reads a register; it touches no memory.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn read_tsc() -> u64 {
    0
}

/// Whether the `flags` line of a `/proc/cpuinfo` text lists an invariant time-stamp counter
/// (`constant_tsc` and `nonstop_tsc`).
pub fn invariant_tsc(cpuinfo: &str) -> bool {
    cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .and_then(|l| l.split_once(':'))
        .is_some_and(|(_, flags)| {
            let mut flags = flags.split_whitespace();
            let has = |name: &str, f: &mut std::str::SplitWhitespace<'_>| f.any(|x| x == name);
            has("constant_tsc", &mut flags.clone()) && has("nonstop_tsc", &mut flags)
        })
}

/// Nanoseconds per tick of `ticks`, measured against `reference` over `windows` windows of
/// `window_ns`: the median of the windows' ratios, or `None` when the counter did not advance or
/// the ratios spread by more than [`MAX_SPREAD`] of the median.
pub fn calibrate_ticks<T: Ticks, C: Clock>(
    ticks: &T,
    reference: &C,
    window_ns: f64,
    windows: usize,
) -> Option<f64> {
    let mut ratios = Vec::with_capacity(windows);
    for _ in 0..windows {
        let t0 = reference.now();
        let k0 = ticks.ticks();
        let mut ns = 0.0;
        while ns < window_ns {
            ns = reference.ns_between(t0, reference.now());
        }
        let k1 = ticks.ticks();
        let ns = reference.ns_between(t0, reference.now());
        let dk = k1.checked_sub(k0).filter(|&d| d > 0)?;
        ratios.push(ns / dk as f64);
    }
    ratios.sort_by(f64::total_cmp);
    let median = *ratios.get(ratios.len() / 2)?;
    let spread = (ratios[ratios.len() - 1] - ratios[0]) / median;
    (median.is_finite() && median > 0.0 && spread <= MAX_SPREAD).then_some(median)
}

/// Which clock was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockChoice {
    /// `Instant` (the default).
    Instant,
    /// The cycle counter, when usable.
    Cycles,
}

impl ClockChoice {
    /// From the value of [`CLOCK_VAR`] (`None`, empty or `instant`: Instant; `cycles`, `tsc`:
    /// the cycle counter).
    ///
    /// # Errors
    /// Any other value, with the accepted ones.
    pub fn parse(value: Option<&str>) -> Result<Self, String> {
        match value.map(str::trim) {
            None | Some("" | "instant") => Ok(Self::Instant),
            Some("cycles" | "tsc") => Ok(Self::Cycles),
            Some(other) => Err(format!(
                "{CLOCK_VAR}={other}: expected 'instant' or 'cycles'"
            )),
        }
    }
}

/// The clock a bench target times with: `Instant`, or the cycle counter scaled to nanoseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock {
    /// Nanoseconds per tick of the time-stamp counter; `None` for `Instant`.
    ns_per_tick: Option<f64>,
}

/// A reading of a [`SystemClock`].
#[derive(Debug, Clone, Copy)]
pub enum Reading {
    /// From `Instant`.
    Instant(Instant),
    /// From the cycle counter.
    Ticks(u64),
}

impl SystemClock {
    /// `Instant`.
    pub fn instant() -> Self {
        Self { ns_per_tick: None }
    }

    /// The time-stamp counter at `ns_per_tick` (from [`calibrate_ticks`]).
    pub fn cycles(ns_per_tick: f64) -> Self {
        Self {
            ns_per_tick: Some(ns_per_tick),
        }
    }

    /// Nanoseconds per tick when this is the cycle counter.
    pub fn ns_per_tick(&self) -> Option<f64> {
        self.ns_per_tick
    }

    /// A name for the timer line: `Instant`, or the counter and its rate.
    pub fn describe(&self) -> String {
        match self.ns_per_tick {
            None => "Instant".into(),
            Some(ns) => format!("cycle counter (rdtsc, {:.4} GHz)", 1.0 / ns),
        }
    }
}

impl Clock for SystemClock {
    type Mark = Reading;

    #[inline(always)]
    fn now(&self) -> Reading {
        match self.ns_per_tick {
            None => Reading::Instant(Instant::now()),
            Some(_) => Reading::Ticks(read_tsc()),
        }
    }

    fn ns_between(&self, start: Reading, end: Reading) -> f64 {
        match (start, end, self.ns_per_tick) {
            (Reading::Instant(a), Reading::Instant(b), _) => InstantClock.ns_between(a, b),
            (Reading::Ticks(a), Reading::Ticks(b), Some(ns)) => b.saturating_sub(a) as f64 * ns,
            _ => 0.0,
        }
    }
}

/// Picks the clock: `choice`, the cycle counter only on x86_64 when `cpuinfo` (the text of
/// `/proc/cpuinfo`, `None` when unreadable) shows an invariant counter and `calibrate` returns a
/// steady rate. Returns the clock and, when the cycle counter was asked for but not used, why.
pub fn select(
    choice: ClockChoice,
    cpuinfo: Option<&str>,
    calibrate: impl FnOnce() -> Option<f64>,
) -> (SystemClock, Option<String>) {
    if choice == ClockChoice::Instant {
        return (SystemClock::instant(), None);
    }
    let fallback = |why: &str| (SystemClock::instant(), Some(why.to_string()));
    if !cfg!(target_arch = "x86_64") {
        return fallback("no cycle counter is used on this architecture");
    }
    match cpuinfo {
        None => return fallback("/proc/cpuinfo is unreadable"),
        Some(text) if !invariant_tsc(text) => {
            return fallback("the CPU does not list an invariant TSC (constant_tsc, nonstop_tsc)");
        }
        Some(_) => {}
    }
    match calibrate() {
        Some(ns) => (SystemClock::cycles(ns), None),
        None => fallback("the TSC's rate against Instant was not steady"),
    }
}

/// The clock chosen by [`CLOCK_VAR`] on this machine (see [`select`]).
///
/// # Errors
/// An unknown value of [`CLOCK_VAR`].
pub fn from_env() -> Result<(SystemClock, Option<String>), String> {
    let var = std::env::var(CLOCK_VAR).ok();
    let choice = ClockChoice::parse(var.as_deref())?;
    let cpuinfo = match choice {
        ClockChoice::Cycles => std::fs::read_to_string("/proc/cpuinfo").ok(),
        ClockChoice::Instant => None,
    };
    Ok(select(choice, cpuinfo.as_deref(), || {
        calibrate_ticks(&Tsc, &InstantClock, WINDOW_NS, WINDOWS)
    }))
}

/// The real counter against the real clock is tested in the timing tier, `tests/timing.rs`.
#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::timer::fake::FakeClock;

    /// Ticks at `per_ns` ticks per nanosecond of a fake clock, the rate changing by `drift`
    /// (relative) at every reading.
    struct FakeTicks<'a> {
        clock: &'a FakeClock,
        per_ns: Cell<f64>,
        drift: f64,
        count: Cell<f64>,
        last: Cell<u64>,
    }

    impl<'a> FakeTicks<'a> {
        fn new(clock: &'a FakeClock, per_ns: f64, drift: f64) -> Self {
            Self {
                clock,
                per_ns: Cell::new(per_ns),
                drift,
                count: Cell::new(0.0),
                last: Cell::new(clock.t.get()),
            }
        }
    }

    impl Ticks for FakeTicks<'_> {
        fn ticks(&self) -> u64 {
            let t = self.clock.t.get();
            let count = self.count.get() + (t - self.last.get()) as f64 * self.per_ns.get();
            self.count.set(count);
            self.last.set(t);
            self.per_ns.set(self.per_ns.get() * (1.0 + self.drift));
            self.clock.advance(2);
            count as u64
        }
    }

    const CPUINFO: &str = "processor\t: 0\nflags\t\t: fpu tsc constant_tsc rdtscp nonstop_tsc\n";

    #[test]
    fn the_flags_line_decides_whether_the_tsc_is_invariant() {
        assert!(invariant_tsc(CPUINFO));
        assert!(!invariant_tsc("flags\t: fpu tsc constant_tsc rdtscp\n"));
        assert!(!invariant_tsc("flags\t: fpu tsc nonstop_tsc\n"));
        // A flag's name inside another does not count.
        assert!(!invariant_tsc("flags\t: xconstant_tsc nonstop_tscx\n"));
        assert!(!invariant_tsc("processor : 0\n"));
    }

    #[test]
    fn calibration_recovers_a_known_rate() {
        let clock = FakeClock::new(20);
        // 3 ticks per nanosecond: 1/3 ns per tick.
        let ticks = FakeTicks::new(&clock, 3.0, 0.0);
        let ns = calibrate_ticks(&ticks, &clock, 1e6, WINDOWS).unwrap();
        assert!((ns - 1.0 / 3.0).abs() < 1e-4 / 3.0, "{ns}");
    }

    #[test]
    fn an_unsteady_counter_is_refused() {
        let clock = FakeClock::new(20);
        // The rate moves by 1% per reading: windows disagree far beyond MAX_SPREAD.
        let ticks = FakeTicks::new(&clock, 3.0, 0.01);
        assert_eq!(calibrate_ticks(&ticks, &clock, 1e6, WINDOWS), None);
        // A counter that never advances.
        let stuck = FakeTicks::new(&clock, 0.0, 0.0);
        assert_eq!(calibrate_ticks(&stuck, &clock, 1e6, WINDOWS), None);
    }

    #[test]
    fn selection_falls_back_to_instant_with_a_reason() {
        let never = || -> Option<f64> { panic!("calibrated without being asked") };
        let (c, why) = select(ClockChoice::Instant, Some(CPUINFO), never);
        assert!(c.ns_per_tick().is_none() && why.is_none());
        if !cfg!(target_arch = "x86_64") {
            let (c, why) = select(ClockChoice::Cycles, Some(CPUINFO), || Some(0.4));
            assert!(c.ns_per_tick().is_none() && why.is_some());
            return;
        }
        let (c, why) = select(ClockChoice::Cycles, Some(CPUINFO), || Some(0.4));
        assert_eq!(c.ns_per_tick(), Some(0.4));
        assert!(why.is_none());
        let (c, why) = select(ClockChoice::Cycles, Some("flags : tsc\n"), never);
        assert!(c.ns_per_tick().is_none());
        assert!(why.unwrap().contains("invariant TSC"));
        let (c, why) = select(ClockChoice::Cycles, None, never);
        assert!(c.ns_per_tick().is_none());
        assert!(why.unwrap().contains("unreadable"));
        let (c, why) = select(ClockChoice::Cycles, Some(CPUINFO), || None);
        assert!(c.ns_per_tick().is_none());
        assert!(why.unwrap().contains("not steady"));
    }

    #[test]
    fn the_variable_names_the_clock() {
        assert_eq!(ClockChoice::parse(None), Ok(ClockChoice::Instant));
        assert_eq!(ClockChoice::parse(Some("")), Ok(ClockChoice::Instant));
        assert_eq!(
            ClockChoice::parse(Some("instant")),
            Ok(ClockChoice::Instant)
        );
        assert_eq!(ClockChoice::parse(Some("cycles")), Ok(ClockChoice::Cycles));
        assert_eq!(ClockChoice::parse(Some("tsc")), Ok(ClockChoice::Cycles));
        assert!(
            ClockChoice::parse(Some("rdtscp"))
                .unwrap_err()
                .contains(CLOCK_VAR)
        );
    }

    #[test]
    fn ticks_scale_to_nanoseconds() {
        let c = SystemClock::cycles(0.5);
        assert_eq!(
            c.ns_between(Reading::Ticks(100), Reading::Ticks(300)),
            100.0
        );
        assert_eq!(c.ns_between(Reading::Ticks(300), Reading::Ticks(100)), 0.0);
    }
}
