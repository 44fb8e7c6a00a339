//! How much of its wall time a benchmark's executions spent on a CPU: what tells a run measured
//! while other processes competed for the CPUs from one that had them.
//!
//! The minute's load average ([`crate::warning::busy`]) is a lagging, machine-wide proxy: on a
//! 2-CPU machine, a run started 3 s after two busy loops were stopped still read a load of 1.12
//! while its executions had the CPU 99.5% of their time, and one started 5 s after they began
//! read 0.33 while its executions were slowed. An execution's own CPU time over its wall time is
//! measured where it matters, over exactly the time measured: a single-threaded CPU-bound
//! program shows 0.997 on a quiet machine and 0.5 beside two busy loops on 2 CPUs (its wall
//! time doubled, its CPU time grew 4%). The share is the program's own: one waiting for I/O has
//! a lower one, one with several threads a higher one; what tells contention is a share unlike
//! the same program's in other runs.

use serde::{Deserialize, Serialize};

use crate::schema::ExecutionRecord;

/// The median, over a run's measured executions, of each execution's CPU time (user + system)
/// over its wall time: near 1 for a single-threaded program that had a CPU throughout, lower
/// when it waited (for a CPU others held, or for I/O), above 1 with several threads.
///
/// The median rather than the ratio of sums: a robust level ignores an execution another
/// process slowed now and then, and so does this; contention that slowed most executions
/// moves it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CpuShare {
    /// The median.
    median: f64,
    /// Its standard error from the executions' spread: 1.2533 · 1.4826 · MAD / √n
    /// (`rigor_stats::descriptive::mad_scaled`), the median's large-sample error under normal
    /// noise with the MAD as a robust SD.
    se: f64,
    /// The executions it is the median of.
    n: usize,
    /// How much of their wall time the same executions waited, runnable, for a CPU
    /// ([`QueueShare`]); `None` where not every one of them told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    queue: Option<QueueShare>,
}

/// How far apart two shares must be, besides the tolerance, to differ: Student's t at this
/// two-sided level (three normal standard errors' worth) on the fewer executions less one degree
/// of freedom (of the sides with more than one), times the standard error of their difference. A short command's share moves from
/// run to run by a few percent (`true`: 0.84–0.89 in three quiet runs, its wall time holding the
/// fork and wait of the process that times it), which is noise, not contention. A fixed 3 SE
/// called 1.1% of simulated alike pairs of 20 executions different (5% at 5 executions), the MAD
/// being noisy itself; with t, 0.2–0.4% at 5 to 50 (`alike_runs_rarely_differ…`).
const SHARE_LEVEL: f64 = 0.9973;

impl CpuShare {
    /// The share of executions given as (CPU time, wall time) in seconds: `None` when none had
    /// a positive wall time and a CPU time recorded (an imported file without CPU times, where
    /// every CPU time is zero).
    pub fn of_times(times: impl IntoIterator<Item = (f64, f64)>) -> Option<Self> {
        let shares: Vec<f64> = times
            .into_iter()
            .filter(|&(cpu, wall)| wall > 0.0 && cpu.is_finite() && wall.is_finite())
            .map(|(cpu, wall)| cpu.max(0.0) / wall)
            .collect();
        if shares.is_empty() || shares.iter().all(|&s| s == 0.0) {
            return None;
        }
        let median = rigor_stats::descriptive::median(&shares);
        let sd = rigor_stats::descriptive::mad_scaled(&shares);
        let se = 1.2533 * sd / (shares.len() as f64).sqrt();
        Some(Self {
            median,
            se,
            n: shares.len(),
            queue: None,
        })
    }

    /// The share of a run's measured (not warm-up) executions ([`CpuShare::of_times`]).
    pub fn of_executions<'a>(
        executions: impl IntoIterator<Item = &'a ExecutionRecord>,
    ) -> Option<Self> {
        let measured: Vec<&ExecutionRecord> =
            executions.into_iter().filter(|e| !e.warmup).collect();
        let share = Self::of_times(
            measured
                .iter()
                .map(|e| (e.user.get() + e.sys.get(), e.wall.get())),
        )?;
        Some(Self {
            queue: QueueShare::of_executions(measured.iter().copied()),
            ..share
        })
    }

    /// How much of their wall time its executions waited for a CPU, where they all told.
    pub fn queue(self) -> Option<QueueShare> {
        self.queue
    }

    /// The share with `queue` as its executions' run-queue share (a history's, read apart).
    pub fn with_queue(self, queue: Option<QueueShare>) -> Self {
        Self { queue, ..self }
    }

    /// The share as a fraction (0.5: half the wall time on a CPU).
    pub fn get(self) -> f64 {
        self.median
    }

    /// Its standard error (see the field).
    pub fn standard_error(self) -> f64 {
        self.se
    }

    /// The share in thousandths, as warnings hold it (0.9967 → 997).
    pub fn per_mille(self) -> u32 {
        (1000.0 * self.median)
            .round()
            .clamp(0.0, f64::from(u32::MAX)) as u32
    }

    /// Whether `self` lies below `other` by more than `tolerance` (a fraction of `other`) and
    /// by more than [`SHARE_LEVEL`]'s t quantile times the standard error of their difference.
    fn below(self, other: Self, tolerance: f64) -> bool {
        self.median < other.median * (1.0 - tolerance)
            && other.median - self.median
                > noise(SHARE_LEVEL, (self.n, self.se), (other.n, other.se))
    }
}

/// Student's t at the two-sided `level` times the standard error of the difference of two
/// figures, each of `n` executions with standard error `se`: t on the fewer executions less one,
/// of the sides whose spread was seen (one execution has no standard error to scale).
fn noise(level: f64, (n_a, se_a): (usize, f64), (n_b, se_b): (usize, f64)) -> f64 {
    let df = [n_a, n_b]
        .into_iter()
        .filter(|&n| n >= 2)
        .min()
        .map_or(1, |n| n - 1) as f64;
    rigor_stats::dist::critical_value(level, df, rigor_stats::dist::Quantile::StudentT)
        .unwrap_or(f64::INFINITY)
        * se_a.hypot(se_b)
}

/// The mean, over a run's measured executions, of the share of each one's wall time it spent
/// runnable but waiting for a CPU that other processes held ([`ExecutionRecord::run_delay`]):
/// contention itself, measured by the kernel, where the CPU share ([`CpuShare`]) only infers it
/// (a program that sleeps has a low CPU share on a quiet machine and no run-queue delay). A
/// C program measured alone waited 0.01–0.1% of its time; beside two busy loops on 2 CPUs, 40%
/// (a 0.3 s `sleep` 1.3%: each wake-up waits for a CPU).
///
/// The mean rather than the median: contention that slowed a few executions moves a mean
/// level, and so it moves this.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct QueueShare {
    /// The mean share.
    mean: f64,
    /// Its standard error, the executions' standard deviation over √n.
    se: f64,
    /// The executions it is the mean of.
    n: usize,
}

/// What the run-queue delays of two sides of a comparison say of their contention
/// ([`queued`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    /// Alike within the tolerance, beyond the shares' noise: a gap in CPU share is then the
    /// program's own waiting.
    Alike,
    /// Apart by more than the tolerance and beyond their noise: one side waited for CPUs the
    /// other had.
    Differs,
    /// Neither, or not known for every run.
    Unsure,
}

impl QueueShare {
    /// The share of `executions` (all measured ones): `None` unless each has a run-queue delay
    /// and a positive wall time.
    pub fn of_executions<'a>(
        executions: impl IntoIterator<Item = &'a ExecutionRecord>,
    ) -> Option<Self> {
        Self::of_delays(
            executions
                .into_iter()
                .map(|e| (e.run_delay.map(|d| d.get()), e.wall.get())),
        )
    }

    /// The share of executions given as (run-queue delay, wall time) in seconds: `None` unless
    /// each has a delay and a positive wall time.
    pub fn of_delays(executions: impl IntoIterator<Item = (Option<f64>, f64)>) -> Option<Self> {
        let shares: Option<Vec<f64>> = executions
            .into_iter()
            .map(|(delay, wall)| {
                let delay = delay?;
                (wall > 0.0 && delay.is_finite() && wall.is_finite())
                    .then(|| (delay.max(0.0) / wall).min(1.0))
            })
            .collect();
        let shares = shares.filter(|s| !s.is_empty())?;
        let n = shares.len();
        let se = if n > 1 {
            (rigor_stats::descriptive::variance(&shares) / n as f64).sqrt()
        } else {
            0.0
        };
        let mean = rigor_stats::descriptive::mean(&shares);
        Some(Self { mean, se, n })
    }

    /// The share as a fraction (0.4: 40% of the wall time spent waiting for a CPU).
    pub fn get(self) -> f64 {
        self.mean
    }

    /// The share in thousandths, as warnings hold it.
    pub fn per_mille(self) -> u32 {
        (1000.0 * self.mean).round().clamp(0.0, 1000.0) as u32
    }
}

/// How much faster than on the other side a benchmark must be on the side measured under more
/// contention for its verdict to stand all the same ([`crate::Warning::StandsDespiteContention`]),
/// at its interval's nearer end: contention slows a program (waiting for a CPU, evicted caches),
/// but a load can also hold a CPU's clock up, and in the A/A pairs of docs/validation/metrics.md
/// a program measured beside two busy loops ran up to 3.5% faster in CPU time and 3.1% faster in
/// wall time than alone. 5% lies beyond those.
pub const CONTENTION_MARGIN: f64 = 0.05;

/// The two-sided level at which run-queue shares differ ([`Queued::Differs`]): 95%, not
/// [`SHARE_LEVEL`]'s 99.73%. To withhold a verdict is the cautious answer, and quiet runs,
/// whose shares lie within a tenth of a percent, never differ by the tolerance: only runs that
/// both waited for CPUs (beside busy neighbours) are called apart by chance, in about 5% of
/// pairs. Alike is claimed at [`SHARE_LEVEL`], since it lets a verdict stand. (Contention that
/// slowed only a few executions spreads a run's shares widely — three of ten at 50%, the rest
/// at 0.1%: a mean of 15% with a standard error of 8% — and is not shown apart from ten
/// executions; the CPU share and what others used of the CPUs still judge it.)
const QUEUE_DIFFERS_LEVEL: f64 = 0.95;

/// Whether a candidate's run-queue share and those of the runs it is compared with say their
/// contention was alike or not ([`Queued`]), `tolerance` being a fraction of the wall time
/// (waiting a share `d` more of it lengthens a wall time by about `d`): [`Queued::Differs`]
/// where the candidate lies beyond the others' range by more than `tolerance` and by more than
/// Student's t at 95% (two-sided; the fewer executions less one degree of freedom) times the
/// standard error of the difference; [`Queued::Alike`] where it lies within the range widened
/// by `tolerance` even at t at 99.73% times that standard error; else, or with nothing to
/// compare, [`Queued::Unsure`].
pub fn queued(candidate: QueueShare, others: &[QueueShare], tolerance: f64) -> Queued {
    let pick = |better: fn(f64, f64) -> bool| {
        others
            .iter()
            .copied()
            .reduce(|a, b| if better(b.mean, a.mean) { b } else { a })
    };
    let (Some(low), Some(high)) = (pick(|b, a| b < a), pick(|b, a| b > a)) else {
        return Queued::Unsure;
    };
    let t = |level: f64, other: QueueShare| {
        noise(level, (candidate.n, candidate.se), (other.n, other.se))
    };
    let (above, below) = (candidate.mean - high.mean, low.mean - candidate.mean);
    let apart = |gap: f64, other| gap > tolerance && gap > t(QUEUE_DIFFERS_LEVEL, other);
    if apart(above, high) || apart(below, low) {
        Queued::Differs
    } else if above + t(SHARE_LEVEL, high) <= tolerance && below + t(SHARE_LEVEL, low) <= tolerance
    {
        Queued::Alike
    } else {
        Queued::Unsure
    }
}

/// Whether a candidate run's share lies outside the range of the shares of the runs it is
/// compared with by more than `tolerance` (a fraction) at either end: then it was measured under
/// contention the others did not see (or without the contention they all saw), and its wall
/// time differs from theirs by about the shares' ratio, which no interval of either holds.
/// `history` empty: no judgement (`false`).
///
/// A range rather than a centre: a history whose runs saw both quiet and busy machines has its
/// spread between sessions or versions widened by them, which the comparison already holds.
pub fn differs(candidate: CpuShare, history: &[CpuShare], tolerance: f64) -> bool {
    let Some((low, high)) = range(history) else {
        return false;
    };
    candidate.below(low, tolerance) || high.below(candidate, tolerance / (1.0 + tolerance))
}

/// The lowest and highest of `shares`, `None` when there are none.
pub fn range(shares: &[CpuShare]) -> Option<(CpuShare, CpuShare)> {
    let pick = |better: fn(f64, f64) -> bool| {
        shares
            .iter()
            .copied()
            .reduce(|a, b| if better(b.median, a.median) { b } else { a })
    };
    Some((pick(|b, a| b < a)?, pick(|b, a| b > a)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(x: f64) -> CpuShare {
        CpuShare::of_times([(x, 1.0)]).unwrap()
    }

    #[test]
    fn the_share_is_the_median_of_the_executions_ratios() {
        // A run measured in /tmp/s1 beside two busy loops started 5 s before: one execution of
        // ten got half a CPU; the median ignores it, the ratio of sums (0.897) would not.
        let times = [
            (0.5, 1.0),
            (0.92, 1.0),
            (0.99, 1.0),
            (1.0, 1.0),
            (1.0, 1.0),
            (1.0, 1.0),
            (0.99, 1.0),
            (0.98, 1.0),
            (0.99, 1.0),
            (0.99, 1.0),
        ];
        assert_eq!(CpuShare::of_times(times).unwrap().get(), 0.99);
        // Even counts: the middle two averaged; times in seconds of any size.
        let s = CpuShare::of_times([(0.02, 0.04), (0.03, 0.04), (0.5, 0.5), (0.0, 0.1)]).unwrap();
        assert!((s.get() - (0.5 + 0.75) / 2.0).abs() < 1e-12);
        assert_eq!(s.per_mille(), 625);
    }

    #[test]
    fn no_share_without_cpu_times_or_wall_times() {
        assert_eq!(CpuShare::of_times([(0.0, 1.0), (0.0, 2.0)]), None);
        assert_eq!(CpuShare::of_times([(1.0, 0.0)]), None);
        assert_eq!(CpuShare::of_times(std::iter::empty()), None);
        assert_eq!(CpuShare::of_times([(f64::NAN, 1.0)]), None);
    }

    #[test]
    fn warm_up_executions_are_left_out() {
        let e = |warmup, cpu: f64| ExecutionRecord {
            preempted: None,
            run_delay: None,
            build: None,
            round: 0,
            execution: 0,
            warmup,
            wall: rigor_units::Seconds::new(1.0),
            user: rigor_units::Seconds::new(cpu),
            sys: rigor_units::Seconds::ZERO,
            max_rss: 0,
            exit_code: None,
            env_pad: None,
            resolution: None,
            metrics: Default::default(),
        };
        let runs = [e(true, 0.1), e(false, 0.9), e(false, 0.95), e(false, 1.0)];
        assert_eq!(CpuShare::of_executions(&runs).unwrap().get(), 0.95);
    }

    /// Executions of one wall time each, waiting for a CPU the given shares of it.
    fn waited(delays: &[f64]) -> QueueShare {
        let runs: Vec<ExecutionRecord> = delays
            .iter()
            .map(|&d| ExecutionRecord {
                run_delay: Some(rigor_units::Seconds::new(0.05 * d)),
                ..execution(false, 0.05, 0.05)
            })
            .collect();
        QueueShare::of_executions(&runs).unwrap()
    }

    fn execution(warmup: bool, cpu: f64, wall: f64) -> ExecutionRecord {
        ExecutionRecord {
            warmup,
            wall: rigor_units::Seconds::new(wall),
            user: rigor_units::Seconds::new(cpu),
            ..Default::default()
        }
    }

    /// The run-queue share is the mean of the executions' shares of their wall time, with its
    /// standard error; it is known only where every measured execution told, and the CPU share
    /// of a run carries it.
    #[test]
    fn the_queue_share_is_the_mean_of_each_executions_waiting() {
        let q = waited(&[0.0, 0.5, 0.0, 0.1]);
        assert!((q.get() - 0.15).abs() < 1e-12);
        // SD of (0, 0.5, 0, 0.1) about 0.15: √(0.17 / 3); over √4.
        assert!((q.se - (0.17f64 / 3.0).sqrt() / 2.0).abs() < 1e-12);
        assert_eq!(q.per_mille(), 150);
        let mut runs = vec![
            ExecutionRecord {
                run_delay: Some(rigor_units::Seconds::new(0.01)),
                ..execution(false, 0.05, 0.1)
            },
            execution(true, 0.05, 0.1),
        ];
        // The warm-up execution, which did not tell, is left out.
        let share = CpuShare::of_executions(&runs).unwrap();
        assert!((share.queue().unwrap().get() - 0.1).abs() < 1e-12);
        runs.push(execution(false, 0.05, 0.1));
        assert_eq!(CpuShare::of_executions(&runs).unwrap().queue(), None);
        assert_eq!(QueueShare::of_executions(&[]), None);
    }

    /// Measured on this 2-CPU machine (a 0.4 s shell loop, a 0.3 s `sleep`, a Python program
    /// sleeping and computing): alone they waited 0.0–0.1% of their wall time; beside two busy
    /// loops 40–47%, 1.3% and 23–24%. Quiet runs are alike; a contended one differs from them;
    /// two contended runs far apart in their spread are neither.
    #[test]
    fn run_queue_shares_tell_alike_from_contended() {
        let quiet = [
            waited(&[0.0, 0.001, 0.0005, 0.0002, 0.0008, 0.0001]),
            waited(&[0.0, 0.0, 0.001, 0.0004, 0.0003, 0.0006]),
        ];
        assert_eq!(
            queued(
                waited(&[0.0005, 0.0, 0.001, 0.0003, 0.0002, 0.0007]),
                &quiet,
                0.005
            ),
            Queued::Alike
        );
        assert_eq!(
            queued(waited(&[0.40, 0.47, 0.43]), &quiet, 0.005),
            Queued::Differs
        );
        // The other way round: a quiet candidate against contended runs.
        assert_eq!(
            queued(
                waited(&[0.0, 0.001, 0.0, 0.0005, 0.0002]),
                &[waited(&[0.4, 0.47, 0.41, 0.45, 0.43])],
                0.005
            ),
            Queued::Differs
        );
        // A sleeping program beside busy loops waits 1.3% at each wake-up: beyond 0.5%.
        assert_eq!(
            queued(waited(&[0.013, 0.013, 0.012]), &quiet, 0.005),
            Queued::Differs
        );
        // Noisy contention on both sides: not shown apart, nor shown alike.
        assert_eq!(
            queued(
                waited(&[0.2, 0.5, 0.3]),
                &[waited(&[0.4, 0.1, 0.45])],
                0.005
            ),
            Queued::Unsure
        );
        assert_eq!(queued(waited(&[0.0]), &[], 0.005), Queued::Unsure);
    }

    /// Known truth, simulated (seeded): runs whose executions wait alike are never called
    /// different when quiet (each a share drawn from 0.1% ± 0.05%) and in about 5% of pairs
    /// beside busy loops (30% ± 5%; under 6.5% asserted) at 5 to 50 executions, and quiet ones
    /// alike in over 99% of pairs; a run at 30% against quiet ones differs in every pair.
    #[test]
    fn alike_waiting_rarely_differs_and_contention_always_does() {
        use rand::SeedableRng;
        use rand_distr::{Distribution, Normal};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2029);
        let mut run = |n: usize, mean: f64, sd: f64| {
            let d = Normal::new(mean, sd).unwrap();
            let shares: Vec<f64> = (0..n).map(|_| d.sample(&mut rng).max(0.0)).collect();
            waited(&shares)
        };
        let pairs = 4000;
        for n in [5, 10, 20, 50] {
            // Quiet pairs never differ by the tolerance; contended ones about 5% of the time
            // (the level's complement: the t test on the executions' shares).
            for (mean, sd, most) in [(0.001, 0.0005, 0.0), (0.3, 0.05, 0.065)] {
                let differ = (0..pairs)
                    .filter(|_| {
                        queued(run(n, mean, sd), &[run(n, mean, sd)], 0.005) == Queued::Differs
                    })
                    .count();
                assert!(
                    differ as f64 <= most * pairs as f64,
                    "{differ} of {pairs} alike pairs of {n} at {mean} differ"
                );
            }
            let alike = (0..pairs)
                .filter(|_| {
                    queued(run(n, 0.001, 0.0005), &[run(n, 0.001, 0.0005)], 0.005) == Queued::Alike
                })
                .count();
            assert!(
                alike as f64 > 0.99 * pairs as f64,
                "{alike} of {pairs} quiet pairs of {n}"
            );
        }
        let contended = (0..pairs)
            .filter(|_| {
                queued(run(10, 0.3, 0.05), &[run(10, 0.001, 0.0005)], 0.005) == Queued::Differs
            })
            .count();
        assert_eq!(contended, pairs);
    }

    #[test]
    fn a_share_outside_the_histories_range_by_more_than_the_tolerance_differs() {
        let quiet = [share(0.9967), share(0.9975), share(0.997)];
        // Beside two busy loops (0.51), and 5 s after they began (0.99): the first differs, the
        // second is within 0.5% of the range's low end.
        assert!(differs(share(0.51), &quiet, 0.005));
        assert!(!differs(share(0.993), &quiet, 0.005));
        assert!(differs(share(0.99), &quiet, 0.005));
        // The other way round: a quiet candidate against a history measured busy.
        assert!(differs(share(0.997), &[share(0.6), share(0.7)], 0.005));
        // A history of both kinds holds either.
        let mixed = [share(0.35), share(0.997)];
        assert!(!differs(share(0.5), &mixed, 0.005));
        assert!(!differs(share(0.997), &mixed, 0.005));
        // Nothing to judge against.
        assert!(!differs(share(0.5), &[], 0.005));
        assert_eq!(range(&quiet), Some((share(0.9967), share(0.9975))));
    }

    /// A short command's executions spread their shares widely (its wall time holds the fork
    /// and wait around it): a median 5% lower is within the t-scaled standard errors and does
    /// not differ; the same medians from tight executions do.
    #[test]
    fn shares_differ_only_beyond_their_standard_errors() {
        let spread = |centre: f64, half: f64| {
            let times: Vec<(f64, f64)> = (0..10)
                .map(|i| (centre + half * (f64::from(i) / 4.5 - 1.0), 1.0))
                .collect();
            CpuShare::of_times(times).unwrap()
        };
        let (noisy_old, noisy_new) = (spread(0.89, 0.15), spread(0.84, 0.15));
        assert!((noisy_old.get() - 0.89).abs() < 1e-9);
        // MAD of 10 evenly spaced values over ±0.15: 0.0833; SE = 1.2533 · 1.4826 · 0.0833 / √10.
        let expected = 1.2533 * 1.4826 * (0.15 * 2.5 / 4.5) / 10f64.sqrt();
        assert!((noisy_old.standard_error() - expected).abs() < 1e-9);
        assert!(!differs(noisy_new, &[noisy_old], 0.005));
        let (tight_old, tight_new) = (spread(0.89, 0.002), spread(0.84, 0.002));
        assert!(differs(tight_new, &[tight_old], 0.005));
        assert!(differs(tight_old, &[tight_new], 0.005));
    }

    /// Known truth, simulated (seeded): two runs whose executions' shares are drawn alike (a
    /// short command's: 0.87 ± 0.05, normal) differ by the rule in about 0.27% of pairs (the
    /// level's complement) whatever their executions (5, 10, 20, 50; under 0.6% asserted, over
    /// 4,000 pairs each), while a run at half a CPU (0.5 ± 0.05) against quiet runs
    /// (0.997 ± 0.002) differs in every pair.
    #[test]
    fn alike_runs_rarely_differ_and_contended_ones_always_do() {
        use rand::SeedableRng;
        use rand_distr::{Distribution, Normal};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
        let mut run = |n: usize, mean: f64, sd: f64| {
            let d = Normal::new(mean, sd).unwrap();
            let times: Vec<(f64, f64)> = (0..n).map(|_| (d.sample(&mut rng), 1.0)).collect();
            CpuShare::of_times(times).unwrap()
        };
        let pairs = 4000;
        for n in [5, 10, 20, 50] {
            let alike = (0..pairs)
                .filter(|_| differs(run(n, 0.87, 0.05), &[run(n, 0.87, 0.05)], 0.005))
                .count();
            let rate = alike as f64 / pairs as f64;
            assert!(rate < 0.006, "{alike} of {pairs} alike pairs of {n} differ");
        }
        let contended = (0..pairs)
            .filter(|_| differs(run(20, 0.5, 0.05), &[run(20, 0.997, 0.002)], 0.005))
            .count();
        assert_eq!(contended, pairs);
    }
}
