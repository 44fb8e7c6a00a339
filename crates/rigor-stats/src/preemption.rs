//! How often the kernel took a benchmark's CPU to run other processes: each execution's
//! involuntary context switches (`ru_nivcsw`), counted by the runner. A CPU-bound program alone
//! on its CPU is preempted a few times a second; beside other busy processes, tens to hundreds
//! of times. A program that waits (for the disk, a sleep, a lock) switches voluntarily, which is
//! not counted here: preemptions tell contention apart from waiting, which a CPU share (CPU time
//! over wall time) cannot.
//!
//! Two uses: a slow start across executions that other processes caused rather than a cold
//! start ([`contended`]), and executions in the middle of a run that other processes slowed
//! ([`preempted`]).

use crate::descriptive::median;
use crate::slow_start::SlowStart;

/// Preemptions a second of wall time that a slow start's executions must at least have had to
/// be called contended ([`contended`]): a CPU-bound program alone on its CPU is preempted a few
/// times a second (5 here, quiet); beside two busy loops on 2 CPUs, 80 to 120.
pub const CONTENDED_RATE: f64 = 20.0;

/// Least ratio of a contended start's preemption rate to the later executions' median rate. A
/// cold start is preempted no more often a second than the executions after it (it waits for
/// the disk, which is no preemption, or runs slower on a cold cache or clock, which does not
/// change how often the scheduler takes its CPU); a start that other processes slowed is, and
/// by more than twice where it was slowed by more than a fifth
/// ([`crate::slow_start::MIN_RATIO`]). Measured with one busy loop running all along: the later
/// executions 45 a second; the first three, beside two more busy loops, 125.
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
    far_more(count, rate, usual).then_some(Preemption { rate, usual })
}

/// The rule both uses share: `count` preemptions at `rate` a second are other processes'
/// doing against a `usual` rate when there are [`CONTENDED_COUNT`] or more of them, at
/// [`CONTENDED_RATE`] a second or more, and [`CONTENDED_RATIO`] times `usual` or more.
fn far_more(count: u64, rate: f64, usual: f64) -> bool {
    count >= CONTENDED_COUNT && rate >= CONTENDED_RATE && rate >= CONTENDED_RATIO * usual
}

/// Executions of a run that other processes slowed ([`preempted`]).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Preempted {
    /// How many executions.
    pub executions: usize,
    /// Of how many.
    pub of: usize,
    /// Their preemptions a second, and the other executions' median.
    pub preemption: Preemption,
    /// Their mean value over the other executions' median.
    pub ratio: f64,
}

/// Least ratio of preempted executions' mean value to the others' median for [`preempted`] to
/// call them slowed: a program whose own threads preempt each other is preempted often without
/// being slowed by anyone else.
pub const PREEMPTED_SLOWDOWN: f64 = 1.1;

/// The executions other processes slowed, if any: those preempted at least [`CONTENDED_RATE`]
/// times a second and [`CONTENDED_RATIO`] times the median rate of all, [`CONTENDED_COUNT`]
/// times or more each, when they are fewer than half the executions (more is a machine busy
/// throughout, which the run's own warning of other processes' use says) and their mean value
/// is at least [`PREEMPTED_SLOWDOWN`] times the others' median. `executions` are (preemptions,
/// wall seconds, value) of each execution.
pub fn preempted(executions: &[(u64, f64, f64)]) -> Option<Preempted> {
    let n = executions.len();
    if n < 3
        || executions
            .iter()
            .any(|e| e.1.is_nan() || e.1 <= 0.0 || !e.2.is_finite())
    {
        return None;
    }
    let rates: Vec<f64> = executions.iter().map(|e| e.0 as f64 / e.1).collect();
    let usual = median(&rates);
    let (slowed, rest): (Vec<_>, Vec<_>) = executions
        .iter()
        .zip(&rates)
        .partition(|(e, rate)| far_more(e.0, **rate, usual));
    if slowed.is_empty() || 2 * slowed.len() >= n {
        return None;
    }
    let others: Vec<f64> = rest.iter().map(|(e, _)| e.2).collect();
    let others_rate: Vec<f64> = rest.iter().map(|(_, r)| **r).collect();
    let typical = median(&others);
    let count: u64 = slowed.iter().map(|(e, _)| e.0).sum();
    let wall: f64 = slowed.iter().map(|(e, _)| e.1).sum();
    let ratio = slowed.iter().map(|(e, _)| e.2).sum::<f64>() / slowed.len() as f64 / typical;
    (typical > 0.0 && ratio >= PREEMPTED_SLOWDOWN).then(|| Preempted {
        executions: slowed.len(),
        of: n,
        preemption: Preemption {
            rate: count as f64 / wall,
            usual: median(&others_rate),
        },
        ratio,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Three executions of ten in the middle of a run beside two busy loops started and stopped
    /// (a trial's candidate had shares of 0.87, 0.49 and 0.58 among ones near 1): found, with
    /// their rates and slowdown; a quiet run, one busy throughout, a multi-threaded program
    /// preempted by its own threads but not slowed, and too few executions are not.
    #[test]
    fn executions_other_processes_slowed_are_found_in_the_middle_of_a_run() {
        let quiet = (1, 0.20, 0.20);
        let mut run = vec![quiet; 10];
        run[3] = (30, 0.31, 0.31);
        run[4] = (52, 0.41, 0.41);
        run[6] = (40, 0.35, 0.35);
        let p = preempted(&run).unwrap();
        assert_eq!((p.executions, p.of), (3, 10));
        assert!((p.preemption.rate - 122.0 / 1.07).abs() < 1e-9, "{p:?}");
        assert!((p.preemption.usual - 5.0).abs() < 1e-9, "{p:?}");
        assert!((p.ratio - 1.07 / 3.0 / 0.2).abs() < 1e-9, "{p:?}");
        assert_eq!(preempted(&[quiet; 10]), None);
        // Busy throughout: every execution preempted alike.
        assert_eq!(preempted(&[(25, 0.3, 0.3); 10]), None);
        // Busy for more than half of them: the run's own warning says it.
        let mostly: Vec<_> = (0..10)
            .map(|i| if i < 5 { (40, 0.35, 0.35) } else { quiet })
            .collect();
        assert_eq!(preempted(&mostly), None);
        // Preempted (its own threads) but not slowed.
        let mut threads = vec![quiet; 10];
        threads[2] = (30, 0.2, 0.2);
        assert_eq!(preempted(&threads), None);
        assert_eq!(preempted(&run[..2]), None);
    }
}
