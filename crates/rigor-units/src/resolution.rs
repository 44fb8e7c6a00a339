//! [`Resolution`]: the smallest step a measurement can tell apart, and the floor it puts under
//! every interval of an estimate made from such measurements.
//!
//! A timer that advances in steps of τ cannot distinguish two durations closer than τ; a sample
//! that times ν evaluations of a routine and divides by ν is therefore quantised in steps of
//! τ/ν. When every sample (or every execution's median or minimum) lands on the same step, a
//! bootstrap or a t interval computed from them has width zero: it claims a precision the clock
//! never had. The honest interval is at least ± half a step around the estimate — the value may
//! lie anywhere within the step the clock rounded it to.

use serde::{Deserialize, Serialize};

use crate::time::Seconds;

/// The quantum of a measured time: values closer than this could not be told apart (for an
/// in-process harness, the timer's resolution divided by the evaluations per sample). Positive
/// and finite; serialised as a plain number of seconds.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "Seconds", into = "Seconds")]
pub struct Resolution(Seconds);

impl Resolution {
    /// A resolution of `step`; `None` unless it is positive and finite.
    pub fn new(step: Seconds) -> Option<Self> {
        step.is_positive().then_some(Self(step))
    }

    /// The resolution of a sample that times `evals` evaluations with a clock of step
    /// `clock_step` and divides by `evals`: `clock_step / evals`. `None` for a step that is not
    /// positive and finite, or no evaluations.
    pub fn per_evaluation(clock_step: Seconds, evals: u64) -> Option<Self> {
        if evals == 0 {
            return None;
        }
        Self::new(clock_step * (1.0 / evals as f64))
    }

    /// The step.
    pub fn step(self) -> Seconds {
        self.0
    }

    /// Half the step: the least half-width an interval of an estimate may have.
    pub fn half_step(self) -> Seconds {
        self.0 * 0.5
    }

    /// The coarser of two resolutions (data measured with both are known only to the coarser).
    pub fn coarser(self, other: Self) -> Self {
        if other.0 > self.0 { other } else { self }
    }

    /// The coarsest of several resolutions; `None` when there are none.
    pub fn coarsest(all: impl IntoIterator<Item = Self>) -> Option<Self> {
        all.into_iter().reduce(Self::coarser)
    }

    /// The half-step relative to `estimate` (0.0033 for ±0.33%): the narrowest relative
    /// half-width an interval of that estimate may have; infinite for an estimate of zero.
    pub fn relative_to(self, estimate: Seconds) -> f64 {
        self.half_step().get() / estimate.get().abs()
    }

    /// `[lower, upper]`, an interval around `estimate`, widened where needed so that each bound
    /// is at least half a step from the estimate ([`Floored::at_resolution`] says whether it
    /// was). A duration is not negative: the lower bound is widened no further than zero unless
    /// it was already below (an estimate under half a step read "0.000 ns [-13.00 ns .. ]").
    pub fn floor(self, estimate: Seconds, lower: Seconds, upper: Seconds) -> Floored<Seconds> {
        let h = self.half_step();
        let zero = if lower < Seconds::ZERO {
            lower
        } else {
            Seconds::ZERO
        };
        let lo = estimate - h;
        let (lo, hi) = (if lo < zero { zero } else { lo }, estimate + h);
        Floored {
            lower: if lo < lower { lo } else { lower },
            upper: if hi > upper { hi } else { upper },
            at_resolution: lo < lower || hi > upper,
        }
    }

    /// `[lower, upper]`, an interval of the ratio `candidate / baseline` of two estimates each
    /// known to ± half a step (`candidate` measured at this resolution, `baseline` at
    /// `baseline_resolution`), widened where needed to contain the ratio's range over those
    /// steps: `(c − h_c)/(b + h_b)` to `(c + h_c)/(b − h_b)` (infinite when the baseline's step
    /// reaches zero).
    pub fn floor_ratio(
        self,
        baseline_resolution: Self,
        candidate: Seconds,
        baseline: Seconds,
        lower: f64,
        upper: f64,
    ) -> Floored<f64> {
        let (hc, hb) = (
            self.half_step().get(),
            baseline_resolution.half_step().get(),
        );
        let (c, b) = (candidate.get(), baseline.get());
        let lo = ((c - hc) / (b + hb)).max(0.0);
        let hi = if b - hb > 0.0 {
            (c + hc) / (b - hb)
        } else {
            f64::INFINITY
        };
        Floored {
            lower: lower.min(lo),
            upper: upper.max(hi),
            at_resolution: lo < lower || hi > upper,
        }
    }
}

impl TryFrom<Seconds> for Resolution {
    type Error = String;

    fn try_from(step: Seconds) -> Result<Self, String> {
        Self::new(step).ok_or_else(|| {
            format!(
                "a resolution must be a positive, finite time, not {}",
                step.get()
            )
        })
    }
}

impl From<Resolution> for Seconds {
    fn from(r: Resolution) -> Self {
        r.0
    }
}

/// An interval after [`Resolution::floor`]: its bounds, and whether the resolution widened it
/// (the data alone would have claimed more precision than the measurement has).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Floored<T> {
    /// Lower bound.
    pub lower: T,
    /// Upper bound.
    pub upper: T,
    /// Whether either bound was moved out to half a step from the estimate.
    pub at_resolution: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(v: f64) -> Seconds {
        Seconds(v * 1e-9)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-30)
    }

    #[test]
    fn per_evaluation_divides_the_clock_step() {
        // A 20 ns clock step over 1000 evaluations: samples move in steps of 0.02 ns.
        let r = Resolution::per_evaluation(ns(20.0), 1000).unwrap();
        assert!(close(r.step().get(), 0.02e-9));
        assert!(close(r.half_step().get(), 0.01e-9));
        // ±0.01 ns at 3 ns is ±0.333…%.
        assert!(close(r.relative_to(ns(3.0)), 0.01 / 3.0));
        assert_eq!(Resolution::per_evaluation(ns(20.0), 0), None);
        assert_eq!(Resolution::per_evaluation(Seconds(f64::NAN), 10), None);
        assert_eq!(Resolution::new(Seconds::ZERO), None);
        assert_eq!(Resolution::new(Seconds(-1e-9)), None);
        assert_eq!(Resolution::new(Seconds(f64::INFINITY)), None);
    }

    #[test]
    fn a_zero_width_interval_is_widened_to_half_a_step() {
        let r = Resolution::per_evaluation(ns(20.0), 1000).unwrap();
        let f = r.floor(ns(3.0), ns(3.0), ns(3.0));
        assert!(f.at_resolution);
        assert!(close(f.lower.get(), 2.99e-9), "{f:?}");
        assert!(close(f.upper.get(), 3.01e-9), "{f:?}");
        // One side already wider than the floor keeps its bound; the other is widened.
        let f = r.floor(ns(3.0), ns(2.9), ns(3.004));
        assert!(f.at_resolution);
        assert_eq!(f.lower, ns(2.9));
        assert!(close(f.upper.get(), 3.01e-9), "{f:?}");
        // An interval wider than the floor on both sides is left alone.
        let f = r.floor(ns(3.0), ns(2.9), ns(3.1));
        assert!(!f.at_resolution);
        assert_eq!((f.lower, f.upper), (ns(2.9), ns(3.1)));
    }

    #[test]
    fn a_duration_under_half_a_step_keeps_a_lower_bound_of_zero() {
        // --evals 1 with a 26 ns clock: a 1 ns routine reads 0 in every sample.
        let r = Resolution::per_evaluation(ns(26.0), 1).unwrap();
        let f = r.floor(ns(0.0), ns(0.0), ns(0.0));
        assert!(f.at_resolution);
        assert_eq!(f.lower, Seconds::ZERO);
        assert!(close(f.upper.get(), 13e-9), "{f:?}");
        let f = r.floor(ns(5.0), ns(4.0), ns(6.0));
        assert_eq!(f.lower, Seconds::ZERO);
        // A bound already below zero (an estimate that can be negative) is kept.
        let f = r.floor(ns(0.0), ns(-1.0), ns(1.0));
        assert_eq!(f.lower, ns(-1.0));
    }

    #[test]
    fn a_ratio_of_two_quantised_estimates_spans_their_steps() {
        // 3.00 ns against 3.00 ns, each ± 0.01 ns: the ratio lies in [2.99/3.01, 3.01/2.99].
        let r = Resolution::per_evaluation(ns(20.0), 1000).unwrap();
        let f = r.floor_ratio(r, ns(3.0), ns(3.0), 1.0, 1.0);
        assert!(f.at_resolution);
        assert!(close(f.lower, 2.99 / 3.01), "{f:?}");
        assert!(close(f.upper, 3.01 / 2.99), "{f:?}");
        // A wide interval is kept.
        let f = r.floor_ratio(r, ns(3.0), ns(3.0), 0.9, 1.1);
        assert!(!f.at_resolution);
        assert_eq!((f.lower, f.upper), (0.9, 1.1));
        // A baseline within half a step of zero bounds nothing above.
        let coarse = Resolution::new(ns(1.0)).unwrap();
        let f = r.floor_ratio(coarse, ns(3.0), ns(0.4), 7.5, 7.5);
        assert_eq!(f.upper, f64::INFINITY);
        assert!(close(f.lower, 2.99 / 0.9), "{f:?}");
    }

    #[test]
    fn the_coarsest_resolution_wins_and_serialises_as_seconds() {
        let a = Resolution::new(ns(0.02)).unwrap();
        let b = Resolution::new(ns(0.5)).unwrap();
        assert_eq!(Resolution::coarsest([a, b, a]), Some(b));
        assert_eq!(Resolution::coarsest([]), None);
        let json = serde_json::to_string(&b).unwrap();
        assert_eq!(json, "5e-10");
        assert_eq!(serde_json::from_str::<Resolution>(&json).unwrap(), b);
        assert!(serde_json::from_str::<Resolution>("0").is_err());
        assert!(serde_json::from_str::<Resolution>("-1e-9").is_err());
    }
}
