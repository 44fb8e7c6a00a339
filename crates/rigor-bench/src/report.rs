//! The report of a standalone run: simple descriptive figures of one process's samples.
//!
//! rigor's statistics are not linked into a benchmarked program, and one process is one
//! execution: its samples say nothing about how the next process will differ. So a standalone
//! run shows the minimum, median and mean and a distribution-free interval for this process's
//! median, labelled as such, and points to `rigor bench` for an interval across processes.

use std::fmt::Write as _;

use rigor_units::{Seconds, TimeUnit, significant};

use crate::alloc::AllocsPerIter;
use crate::bench::{Measurement, Throughput};

/// What one process's samples show.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    /// Smallest sample (ns per iteration).
    pub min: f64,
    /// Median sample.
    pub median: f64,
    /// Mean of the samples.
    pub mean: f64,
    /// A 95% interval for the median of this process's samples, from order statistics; `None`
    /// with fewer than 6 samples.
    pub median_interval: Option<(f64, f64)>,
}

impl Figures {
    /// The figures of `samples` (ns); `None` for no samples.
    pub fn of(samples: &[f64]) -> Option<Self> {
        if samples.is_empty() {
            return None;
        }
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let median = if n % 2 == 1 {
            s[n / 2]
        } else {
            (s[n / 2 - 1] + s[n / 2]) / 2.0
        };
        let median_interval = median_ranks(n).map(|(lo, hi)| (s[lo - 1], s[hi - 1]));
        Some(Self {
            min: s[0],
            median,
            mean: s.iter().sum::<f64>() / n as f64,
            median_interval,
        })
    }
}

/// The 1-based ranks (j, k) of the order statistics bounding a 95% distribution-free interval
/// for the median of `n` samples: the largest j with P(X ≤ j − 1) ≤ 2.5% for X ~ binomial(n, ½),
/// and k = n + 1 − j (Conover, *Practical Nonparametric Statistics*: ranks 6 and 15 for n = 20,
/// 40 and 61 for n = 100). Exact up to 1,000 samples, the normal approximation above. `None`
/// below 6 samples, where no pair of order statistics reaches 95%.
pub fn median_ranks(n: usize) -> Option<(usize, usize)> {
    if n < 6 {
        return None;
    }
    let j = if n <= 1000 {
        // cdf(i) accumulated in logs: ln C(n, i) − n ln 2 stays finite where 2⁻ⁿ underflows.
        let (mut ln_choose, mut cdf, mut j) = (0.0_f64, 0.0, 0);
        let ln_half_n = n as f64 * std::f64::consts::LN_2;
        for i in 0..n {
            if i > 0 {
                ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
            }
            cdf += (ln_choose - ln_half_n).exp();
            if cdf > 0.025 {
                break;
            }
            j = i + 1; // P(X ≤ i) ≤ 2.5%: rank i + 1 may bound the interval
        }
        j
    } else {
        ((n as f64 - 1.96 * (n as f64).sqrt()) / 2.0).floor() as usize
    };
    Some((j.max(1), n + 1 - j.max(1)))
}

/// A time in nanoseconds, with the unit that suits its size.
pub fn time(ns: f64) -> String {
    Seconds::from_unit(ns, TimeUnit::Ns).to_string()
}

/// A rate per second with a decimal prefix: `1.234 G`, `56.70 M`.
fn rate(per_second: f64) -> String {
    let prefixes = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    for (scale, prefix) in prefixes {
        if per_second >= scale {
            return format!("{} {prefix}", significant(per_second / scale));
        }
    }
    format!("{} ", significant(per_second))
}

fn throughput_text(t: Throughput, ns_per_iter: f64) -> String {
    let per_s = |count: u64| count as f64 / (ns_per_iter * 1e-9);
    match t {
        Throughput::Bytes(n) => format!("{}B/s", rate(per_s(n))),
        Throughput::Elements(n) => format!("{}elem/s", rate(per_s(n))),
    }
}

/// A count per iteration: whole numbers as such, fractions (an allocation every few
/// iterations) with four significant digits.
fn count(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v}")
    } else {
        significant(v)
    }
}

fn allocs_text(a: AllocsPerIter) -> String {
    format!(
        "{} allocations, {} bytes per iteration",
        count(a.allocations),
        count(a.bytes)
    )
}

/// One benchmark's lines.
pub fn benchmark(name: &str, m: &Measurement) -> String {
    let mut out = String::new();
    let tuned = if m.tuning.is_some() { "tuned" } else { "given" };
    let _ = writeln!(
        out,
        "{name}: {} samples of {} evaluation{} ({tuned})",
        m.samples_ns.len(),
        m.evals,
        if m.evals == 1 { "" } else { "s" }
    );
    let Some(f) = Figures::of(&m.samples_ns) else {
        return out;
    };
    let _ = write!(
        out,
        "  min {}   median {}   mean {}",
        time(f.min),
        time(f.median),
        time(f.mean)
    );
    if let Some((lo, hi)) = f.median_interval {
        let (lo, hi, note) = floored(f.median, lo, hi, m);
        let _ = write!(
            out,
            "   median 95% [{}, {}] in this process{note}",
            time(lo),
            time(hi)
        );
    }
    out.push('\n');
    if let (Some(t), true) = (m.throughput, f.median > 0.0) {
        let _ = writeln!(
            out,
            "  throughput {} (at the median)",
            throughput_text(t, f.median)
        );
    }
    if let Some(a) = m.allocs {
        let _ = writeln!(out, "  {}", allocs_text(a));
    }
    out
}

/// The median's interval `[lo, hi]` (ns) widened to ± half the samples' step where it is
/// narrower (samples that tie give a zero-width interval the clock cannot support), with the
/// note that says so.
fn floored(median: f64, lo: f64, hi: f64, m: &Measurement) -> (f64, f64, &'static str) {
    let Some(r) = m.resolution else {
        return (lo, hi, "");
    };
    let ns = |v: f64| Seconds::from_unit(v, TimeUnit::Ns);
    let f = r.floor(ns(median), ns(lo), ns(hi));
    let note = if f.at_resolution {
        " (at the timer's resolution)"
    } else {
        ""
    };
    (
        f.lower.in_unit(TimeUnit::Ns),
        f.upper.in_unit(TimeUnit::Ns),
        note,
    )
}

/// The closing note of a standalone run.
pub const ONE_PROCESS: &str = "\
One process is one execution: the figures above come from this process alone, and the next
process may differ by more than their interval. Run `rigor bench` for an interval across
processes and the variance at each level.
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_ranks_match_the_textbook() {
        // Conover's table: n = 100 → 40th and 61st; n = 20 → 6th and 15th; n = 6 → 1st, 6th.
        assert_eq!(median_ranks(100), Some((40, 61)));
        assert_eq!(median_ranks(20), Some((6, 15)));
        assert_eq!(median_ranks(6), Some((1, 6)));
        // The normal approximation beyond 1,000 continues the exact ranks smoothly.
        let (j, _) = median_ranks(1000).unwrap();
        let (j2, _) = median_ranks(1001).unwrap();
        assert!(j.abs_diff(j2) <= 1, "{j} {j2}");
        assert_eq!(median_ranks(5), None);
        for n in 6..500 {
            let (j, k) = median_ranks(n).unwrap();
            assert!(1 <= j && j < k && k <= n, "{n}");
        }
    }

    #[test]
    fn figures_of_known_samples() {
        let s: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let f = Figures::of(&s).unwrap();
        assert_eq!((f.min, f.median, f.mean), (1.0, 50.5, 50.5));
        assert_eq!(f.median_interval, Some((40.0, 61.0)));
        assert_eq!(Figures::of(&[]), None);
        assert_eq!(Figures::of(&[3.0]).unwrap().median_interval, None);
    }

    #[test]
    fn report_lines() {
        let m = Measurement {
            tuning: None,
            evals: 1000,
            samples_ns: vec![2.0; 10],
            resolution: None,
            allocs: Some(AllocsPerIter {
                allocations: 1.0,
                bytes: 64.0,
            }),
            throughput: Some(Throughput::Bytes(1024)),
        };
        let text = benchmark("copy", &m);
        assert!(
            text.starts_with("copy: 10 samples of 1000 evaluations (given)\n"),
            "{text}"
        );
        assert!(
            text.contains("min 2.000 ns   median 2.000 ns   mean 2.000 ns"),
            "{text}"
        );
        // 1024 bytes in 2 ns = 512 GB/s.
        assert!(text.contains("throughput 512.0 GB/s"), "{text}");
        assert!(
            text.contains("1 allocations, 64 bytes per iteration"),
            "{text}"
        );
        // Ten equal samples: the order statistics give [2, 2], which the timer cannot support.
        assert!(
            text.contains("median 95% [2.000 ns, 2.000 ns] in this process\n"),
            "{text}"
        );
        // A 20 ns step over 1000 evaluations: samples move by 0.02 ns, so ± 0.01 ns at least.
        let m = Measurement {
            resolution: rigor_units::Resolution::per_evaluation(
                Seconds::from_unit(20.0, TimeUnit::Ns),
                1000,
            ),
            ..m
        };
        let text = benchmark("copy", &m);
        assert!(
            text.contains(
                "median 95% [1.990 ns, 2.010 ns] in this process (at the timer's resolution)\n"
            ),
            "{text}"
        );
        // An interval wider than the step is left alone and not annotated.
        let mut m = m;
        m.samples_ns = (0..20).map(|i| 2.0 + 0.1 * f64::from(i)).collect();
        let text = benchmark("copy", &m);
        assert!(text.contains("in this process\n"), "{text}");
    }
}
