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

/// Preemptions a second of wall time that a slow start's executions must at least have had to
/// be called contended ([`contended`]): a CPU-bound program alone on its CPU is preempted a few
/// times a second (5 here, quiet); beside two busy loops on 2 CPUs, 80 to 120.
pub const CONTENDED_RATE: f64 = 20.0;

/// Least ratio of a contended start's preemption rate to the later executions' median rate. A
/// cold start is preempted no more often a second than the executions after it (it waits for
/// the disk, which is no preemption, or runs slower on a cold cache or clock, which does not
/// change how often the scheduler takes its CPU); a start that other processes slowed is, and
/// by more than twice where it was slowed by more than a fifth ([`MIN_RATIO`]). Measured with
/// one busy loop running all along: the later executions 45 a second; the first three, beside
/// two more busy loops, 125.
pub const CONTENDED_RATIO: f64 = 2.0;

/// Fewest preemptions the slow executions must have had in all: one preemption of a 5 ms
/// execution is 200 a second, and tells nothing.
pub const CONTENDED_COUNT: u64 = 5;

/// How often a slow start's executions lost their CPU to other processes, against the later
/// executions ([`contended`]).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Preemption {
    /// The slow executions' preemptions a second of their wall time.
    pub rate: f64,
    /// The later executions' median preemptions a second.
    pub usual: f64,
}

/// Whether `start`'s executions were slow because other processes took their CPU rather than
/// from a cold start: they were preempted (involuntary context switches) at least
/// [`CONTENDED_RATE`] times a second, [`CONTENDED_RATIO`] times the later executions' median
/// rate, and [`CONTENDED_COUNT`] times in all. A cold start waits for the disk (voluntary
/// switches), runs a colder cache or a slower clock (none): it is not preempted more.
/// `executions` are (preemptions, wall seconds) of every execution `start` was found in, in
/// the order they ran.
pub fn contended(start: &SlowStart, executions: &[(u64, f64)]) -> Option<Preemption> {
    if executions.len() <= start.executions || executions.iter().any(|e| e.1.is_nan() || e.1 <= 0.0)
    {
        return None;
    }
    let (head, rest) = executions.split_at(start.executions);
    let count: u64 = head.iter().map(|e| e.0).sum();
    let rate = count as f64 / head.iter().map(|e| e.1).sum::<f64>();
    let rates: Vec<f64> = rest.iter().map(|&(n, wall)| n as f64 / wall).collect();
    let usual = median(&rates);
    (count >= CONTENDED_COUNT && rate >= CONTENDED_RATE && rate >= CONTENDED_RATIO * usual)
        .then_some(Preemption { rate, usual })
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

    /// A first execution beside two busy loops (a trial's: 0.38 s, preempted 45 times, where
    /// the later ones, alone, took 0.20 s and were preempted once) is contended; a cold start
    /// preempted as often as the rest, or whose preemptions are too few to tell, is not.
    #[test]
    fn a_start_slowed_by_other_processes_is_told_from_a_cold_one() {
        let start = SlowStart {
            executions: 1,
            ratio: 1.9,
        };
        let mut runs = vec![(45, 0.38)];
        runs.extend([
            (1, 0.21),
            (1, 0.20),
            (2, 0.20),
            (1, 0.20),
            (0, 0.20),
            (1, 0.21),
        ]);
        let p = contended(&start, &runs).unwrap();
        assert!((p.rate - 45.0 / 0.38).abs() < 1e-9, "{p:?}");
        // The later rates sorted: 0, 4.76, 4.76, 5, 5, 10 a second.
        assert!((p.usual - (1.0 / 0.21 + 5.0) / 2.0).abs() < 1e-9, "{p:?}");
        // Cold: as often preempted (three a second more) as the later ones.
        runs[0] = (3, 0.38);
        assert_eq!(contended(&start, &runs), None);
        // A machine busy all along, and busier for the first three: a run of a 0.22 s
        // program beside one busy loop, and two more for its first 1.2 s.
        let background = [
            (56, 0.455),
            (55, 0.423),
            (46, 0.375),
            (10, 0.218),
            (13, 0.217),
            (12, 0.211),
            (7, 0.217),
            (8, 0.221),
            (7, 0.218),
            (6, 0.21),
            (9, 0.232),
            (6, 0.219),
            (7, 0.218),
            (11, 0.232),
            (15, 0.224),
            (12, 0.227),
        ];
        let three = SlowStart {
            executions: 3,
            ratio: 1.9,
        };
        let p = contended(&three, &background).unwrap();
        assert!(p.rate > 120.0 && p.usual < 50.0, "{p:?}");
        // Short executions: 2 preemptions in 8 ms are 250 a second, but only 2.
        let short = [
            (2, 0.008),
            (0, 0.004),
            (0, 0.004),
            (1, 0.004),
            (0, 0.004),
            (0, 0.004),
        ];
        assert_eq!(contended(&start, &short), None);
        // The later executions were preempted as often: the start's were no more.
        let busy: Vec<(u64, f64)> = std::iter::once((45, 0.38))
            .chain(std::iter::repeat_n((20, 0.2), 6))
            .collect();
        assert_eq!(contended(&start, &busy), None);
        // Nothing to compare with, or a wall time of zero (an imported file).
        assert_eq!(contended(&start, &runs[..1]), None);
        assert_eq!(contended(&start, &[(45, 0.38), (1, 0.0)]), None);
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
