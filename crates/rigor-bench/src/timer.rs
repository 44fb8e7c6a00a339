//! The timer: a clock abstraction (so the sampling loop can be tested against a clock with known
//! costs) and the calibration of its resolution and overhead.

use std::time::Instant;

use serde::{Deserialize, Serialize};

/// A monotonic clock the sampling loop reads before and after each timed batch.
pub trait Clock {
    /// A point in time.
    type Mark: Copy;
    /// The current time.
    fn now(&self) -> Self::Mark;
    /// Nanoseconds from `start` to `end` (0 when `end` is not later).
    fn ns_between(&self, start: Self::Mark, end: Self::Mark) -> f64;
}

/// [`std::time::Instant`]: the operating system's monotonic clock (on Linux `clock_gettime`
/// through the vDSO, nanosecond resolution, some tens of nanoseconds to read).
#[derive(Debug, Clone, Copy, Default)]
pub struct InstantClock;

impl Clock for InstantClock {
    type Mark = Instant;

    #[inline(always)]
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn ns_between(&self, start: Instant, end: Instant) -> f64 {
        end.saturating_duration_since(start).as_nanos() as f64
    }
}

impl<C: Clock> Clock for &C {
    type Mark = C::Mark;

    #[inline(always)]
    fn now(&self) -> C::Mark {
        (**self).now()
    }

    fn ns_between(&self, start: C::Mark, end: C::Mark) -> f64 {
        (**self).ns_between(start, end)
    }
}

/// What calibration found about a clock, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// τ_prec: the smallest non-zero difference seen between two readings.
    pub resolution_ns: f64,
    /// The smallest time measured for an empty timed region (two readings back to back): the
    /// cost of timing itself, subtracted from every sample.
    pub overhead_ns: f64,
}

impl Calibration {
    /// The timer's error bound τ_acc used to decide when a timing is long enough: the larger
    /// of its resolution and its overhead.
    pub fn accuracy_ns(&self) -> f64 {
        self.resolution_ns.max(self.overhead_ns).max(1.0)
    }
}

/// Readings taken to calibrate (each phase): enough that the minimum is the undisturbed cost.
const CALIBRATION_READS: usize = 2_000;

/// Most readings spent waiting for a clock to tick once (a clock that never advances).
const MAX_SPINS: usize = 1_000_000;

/// Measures the clock's resolution and overhead.
///
/// Resolution: for each trial, read until the reading changes and keep the smallest step.
/// Overhead: the smallest difference of two back-to-back readings, as BenchmarkTools estimates it
/// (Chen & Revels 2016). Taking the minimum means the subtracted overhead never exceeds the real
/// one, so subtracting it cannot make a sample read faster than its code ran.
pub fn calibrate<C: Clock>(clock: &C) -> Calibration {
    let mut overhead = f64::INFINITY;
    for _ in 0..CALIBRATION_READS {
        let a = clock.now();
        let b = clock.now();
        overhead = overhead.min(clock.ns_between(a, b));
    }
    let mut resolution = f64::INFINITY;
    'trials: for _ in 0..CALIBRATION_READS {
        let a = clock.now();
        for _ in 0..MAX_SPINS {
            let step = clock.ns_between(a, clock.now());
            if step > 0.0 {
                resolution = resolution.min(step);
                continue 'trials;
            }
        }
        break; // The clock did not tick in a million readings: no point waiting again.
    }
    Calibration {
        resolution_ns: if resolution.is_finite() {
            resolution
        } else {
            f64::NAN
        },
        overhead_ns: if overhead.is_finite() { overhead } else { 0.0 },
    }
}

#[cfg(test)]
pub(crate) mod fake {
    //! A clock with known costs, for tests: every reading takes `read_cost` ns, and work
    //! advances it explicitly.

    use std::cell::Cell;

    use super::Clock;

    /// A simulated clock.
    #[derive(Debug, Default)]
    pub struct FakeClock {
        pub t: Cell<u64>,
        pub read_cost: u64,
    }

    impl FakeClock {
        pub fn new(read_cost: u64) -> Self {
            Self {
                t: Cell::new(1_000),
                read_cost,
            }
        }

        /// Work taking `ns`.
        pub fn advance(&self, ns: u64) {
            self.t.set(self.t.get() + ns);
        }
    }

    impl Clock for FakeClock {
        type Mark = u64;

        fn now(&self) -> u64 {
            // The reading is taken, then the rest of the call costs time.
            let t = self.t.get();
            self.advance(self.read_cost);
            t
        }

        fn ns_between(&self, start: u64, end: u64) -> f64 {
            end.saturating_sub(start) as f64
        }
    }
}

/// The real clock's calibration is tested in the timing tier, `tests/timing.rs`.
#[cfg(test)]
mod tests {
    use super::fake::FakeClock;
    use super::*;

    #[test]
    fn calibration_finds_a_known_clock_cost() {
        let c = calibrate(&FakeClock::new(25));
        assert_eq!(c.overhead_ns, 25.0);
        assert_eq!(c.resolution_ns, 25.0);
        assert_eq!(c.accuracy_ns(), 25.0);
    }
}
