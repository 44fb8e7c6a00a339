//! Two states of a process: executions whose least samples (or values) gather in two groups far
//! apart, each tight. A nanosecond function often runs in one of two speeds for a whole process
//! (where its code landed, the CPU it ran on): a new user's 1 ns benchmark had 25 of 80
//! executions' minima near 0.65 ns and 55 near 1.33 ns, and the minimum located over the
//! executions read 1.327 ns [1.245 .. 1.345] with no word of the other state; a run a minute
//! later, its majority in the fast state, read 0.679 ns. Any one figure is of the larger group,
//! and which group is larger is chance.
//!
//! The rule, on the logarithms of the values sorted: the widest gap between neighbours splits
//! them in two; they are two states when each side holds at least [`MIN_SHARE`] of the values
//! (and two), the groups' medians are at least [`MIN_RATIO`] apart, and the gap is more than
//! [`GAP_SPREADS`] times the larger group's spread (1.4826 × its median absolute deviation). The
//! larger group's spread is near the whole sample's on one-mode data, where the widest gap
//! between neighbours is a fraction of a standard deviation: on normal and log-normal samples
//! of 10 to 200 values the rule fires on fewer than 1 in 200 (`one_mode_rarely_looks_like_two`).

use crate::descriptive::{mad_scaled, median};

/// The least share of the values the smaller state must hold (a few executions far off are
/// outliers, not a state).
pub const MIN_SHARE: f64 = 0.10;

/// The least ratio between the states' medians.
pub const MIN_RATIO: f64 = 1.10;

/// How many of the larger group's robust standard deviations the gap must exceed.
pub const GAP_SPREADS: f64 = 6.0;

/// Two states ([`two_states`]).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TwoStates {
    /// How many values are in the lower state.
    pub low: usize,
    /// How many in the upper one.
    pub high: usize,
    /// The upper state's median over the lower one's.
    pub ratio: f64,
}

/// Whether `values` (positive) fall into two states (module docs); `None` for fewer than 8
/// values, a value that is not positive and finite, or one state.
pub fn two_states(values: &[f64]) -> Option<TwoStates> {
    let n = values.len();
    if n < 8 || values.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return None;
    }
    let mut logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
    logs.sort_by(f64::total_cmp);
    let least = ((MIN_SHARE * n as f64).ceil() as usize).max(2);
    // The widest gap with enough values on each side: split after index k − 1.
    let (k, gap) = (least..=n - least)
        .map(|k| (k, logs[k] - logs[k - 1]))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let (low, high) = logs.split_at(k);
    let spread = mad_scaled(low).max(mad_scaled(high));
    let apart = median(high) - median(low);
    (apart >= MIN_RATIO.ln() && gap > GAP_SPREADS * spread).then(|| TwoStates {
        low: low.len(),
        high: high.len(),
        ratio: apart.exp(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_distr::{Distribution, Normal};

    /// The new user's run: 25 of 80 executions' minima near 0.65 ns, 55 near 1.33 ns, each
    /// within about 1%.
    #[test]
    fn a_nanosecond_function_in_two_states_is_told() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let noise = Normal::new(0.0, 0.01).unwrap();
        let values: Vec<f64> = (0..80)
            .map(|i| {
                let at = if i % 16 < 5 { 0.65e-9 } else { 1.33e-9 };
                at * (1.0 + noise.sample(&mut rng))
            })
            .collect();
        let s = two_states(&values).expect("two states");
        assert_eq!((s.low, s.high), (25, 55));
        assert!((s.ratio - 1.33 / 0.65).abs() < 0.05, "{s:?}");
    }

    #[test]
    fn a_few_values_off_or_states_close_together_are_not_two_states() {
        // Two of 30 far off: outliers (under a tenth), not a state.
        let mut v = vec![1.0; 28];
        for (i, x) in v.iter_mut().enumerate() {
            *x += 0.001 * i as f64;
        }
        v.extend([2.0, 2.1]);
        assert_eq!(two_states(&v), None);
        // Two tight groups 5% apart: under MIN_RATIO.
        let close: Vec<f64> = (0..20)
            .map(|i| if i < 10 { 1.0 } else { 1.05 } + 0.0001 * i as f64)
            .collect();
        assert_eq!(two_states(&close), None);
        // Too few values, or a value that is not positive.
        assert_eq!(two_states(&[1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0]), None);
        let mut zero = close.clone();
        zero[0] = 0.0;
        assert_eq!(two_states(&zero), None);
    }

    /// One-mode samples (normal with an SD of 1–20% of the mean, log-normal with σ 0.05–0.5),
    /// 10 to 200 values, 400 each: at most 1 in 200 is taken for two states.
    #[test]
    fn one_mode_rarely_looks_like_two() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let (mut fired, mut tried) = (0, 0);
        for &n in &[10usize, 20, 50, 200] {
            for &sd in &[0.01, 0.05, 0.2] {
                let normal: Normal<f64> = Normal::new(1.0, sd).unwrap();
                for _ in 0..400 {
                    let v: Vec<f64> = (0..n).map(|_| normal.sample(&mut rng).max(1e-3)).collect();
                    fired += usize::from(two_states(&v).is_some());
                    tried += 1;
                }
            }
            for &sigma in &[0.05, 0.5] {
                let log_normal = rand_distr::LogNormal::new(0.0, sigma).unwrap();
                for _ in 0..400 {
                    let v: Vec<f64> = (0..n).map(|_| log_normal.sample(&mut rng)).collect();
                    fired += usize::from(two_states(&v).is_some());
                    tried += 1;
                }
            }
        }
        assert!(
            (fired as f64) < tried as f64 / 200.0,
            "{fired} of {tried} one-mode samples taken for two states"
        );
    }
}
