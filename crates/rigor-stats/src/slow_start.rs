//! A slow start across executions: the first executions of a benchmark, in the order they ran,
//! far slower than every later one — a cold start (file-system caches, a JIT, the CPU's clock),
//! which hyperfine users know as "the first benchmarking run was significantly slower".
//!
//! The rule is deliberately strict, since the first of n exchangeable executions is the slowest
//! by chance one time in n: the prefix must lie above every later execution, by at least
//! [`MIN_RATIO`] over their median and [`Z`] robust standard deviations (the later ones' scaled
//! MAD), and leave at least three quarters of the executions after it.

use crate::descriptive::{mad_scaled, median};

/// Robust standard deviations above the later executions' median a slow start must be.
pub const Z: f64 = 5.0;

/// Least ratio of a slow start's fastest execution to the later ones' median.
pub const MIN_RATIO: f64 = 1.2;

/// Fewest executions the rule looks at.
pub const MIN_EXECUTIONS: usize = 6;

/// A slow start found by [`slow_start`].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SlowStart {
    /// How many leading executions were slow.
    pub executions: usize,
    /// Their mean over the later executions' median.
    pub ratio: f64,
}

/// The longest slow prefix of `values` (one per execution, in the order they ran), if any.
pub fn slow_start(values: &[f64]) -> Option<SlowStart> {
    let n = values.len();
    if n < MIN_EXECUTIONS || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    (1..=n / 4).rev().find_map(|k| {
        let (head, rest) = values.split_at(k);
        let centre = median(rest);
        let spread = mad_scaled(rest);
        let top = rest.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let low = head.iter().copied().fold(f64::INFINITY, f64::min);
        let slow =
            centre > 0.0 && low > top && low > centre * MIN_RATIO && low > centre + Z * spread;
        slow.then(|| SlowStart {
            executions: k,
            ratio: head.iter().sum::<f64>() / k as f64 / centre,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_distr::{Distribution, LogNormal, Normal};

    #[test]
    fn a_cold_start_is_found_with_its_length() {
        // A new user's trial: 212, 203, 219, 237 ms, then about 65 ms.
        let mut v = vec![212.0, 203.0, 219.0, 237.0];
        v.extend([
            69.0, 63.0, 66.0, 64.0, 65.0, 67.0, 62.0, 66.0, 64.0, 65.0, 63.0, 68.0,
        ]);
        let s = slow_start(&v).unwrap();
        assert_eq!(s.executions, 4);
        assert!((s.ratio - 217.75 / 65.0).abs() < 1e-12, "{s:?}");
        // One slow first execution.
        let mut one = vec![30.0];
        one.extend([10.0, 10.2, 9.9, 10.1, 10.0, 9.8]);
        assert_eq!(slow_start(&one).unwrap().executions, 1);
    }

    #[test]
    fn no_slow_start_in_steady_or_short_or_mildly_slow_runs() {
        assert_eq!(slow_start(&[30.0, 10.0, 10.0, 10.0, 10.0]), None, "too few");
        // The first is the slowest, but by 5%: not a cold start.
        assert_eq!(slow_start(&[10.5, 10.0, 10.1, 9.9, 10.0, 10.0, 10.1]), None);
        // A slow execution later on is no slow start.
        assert_eq!(slow_start(&[10.0, 30.0, 10.1, 9.9, 10.0, 10.0, 10.1]), None);
        assert_eq!(slow_start(&[f64::NAN; 8]), None);
    }

    /// Exchangeable executions (normal with a 5% SD, log-normal with a 30% SD): the rule almost
    /// never fires, although the first is the slowest one time in n.
    #[test]
    fn exchangeable_executions_rarely_look_like_a_slow_start() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
        let normal = Normal::new(10.0, 0.5).unwrap();
        let skewed = LogNormal::new(0.0, 0.3).unwrap();
        let trials = 4000;
        let mut fired = [0usize; 2];
        for t in 0..trials {
            let n = 6 + t % 40;
            let a: Vec<f64> = (0..n).map(|_| normal.sample(&mut rng)).collect();
            let b: Vec<f64> = (0..n).map(|_| skewed.sample(&mut rng)).collect();
            fired[0] += usize::from(slow_start(&a).is_some());
            fired[1] += usize::from(slow_start(&b).is_some());
        }
        assert!(fired[0] <= trials / 1000, "normal: {fired:?}");
        assert!(fired[1] <= trials / 100, "log-normal: {fired:?}");
    }
}
