//! Evaluations per sample for in-process microbenchmarks (Chen & Revels 2016).
//!
//! A function too fast for the timer is timed over `evals` back-to-back evaluations per sample.
//! Tuning (Chen & Revels, Alg. 1): for i = 1..j time i evaluations (T_i), estimate the time of one
//! evaluation as `t̂ = min_i T_i/i`, and look up `evals = ν(t̂)` in an oracle. Two oracles:
//!
//! - [`benchmarktools_evals`]: BenchmarkTools.jl's empirically tuned table (the default);
//! - [`chen_revels_evals`]: the paper's closed form
//!   `Y(t) = ⌊1 + (j − 1)/(1 + exp(a(t − b·τ_acc)))⌋`, `a = 0.009/τ_prec`, `b = 0.5`.
//!
//! τ_prec is the timer's smallest non-zero step and τ_acc a bound on its error; j = τ_acc/τ_prec,
//! capped at 1000 ([`max_evals`]). All times are in nanoseconds.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A tuning parameter or measured time that cannot be used.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum EvalsError {
    /// A parameter outside its domain.
    #[error("{name} = {value}: {reason}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// Its value, as text.
        value: String,
        /// What it must be.
        reason: &'static str,
    },
    /// No timings to tune from.
    #[error("no timings to tune from")]
    NoTimes,
    /// A timing that is negative or not finite.
    #[error("timing {index} is {value}, not a finite non-negative time")]
    NonFinite {
        /// Its 0-based position.
        index: usize,
        /// The value.
        value: f64,
    },
}

/// Results of this module.
pub type Result<T> = std::result::Result<T, EvalsError>;

/// Largest `t` (ns) covered by the BenchmarkTools table; above it ν = 1.
pub const TABLE_END_NS: u64 = 9000;

/// Cap on j = τ_acc/τ_prec.
pub const MAX_J: u64 = 1000;

/// BenchmarkTools' `logistic(u, l, k, t, t0) = round((u − l)/(1 + exp(−k(t − t0))) + l)`.
///
/// Julia's `round` breaks ties to even, and so does this (`f64::round_ties_even`): at `t = t0`
/// the first band gives 600.5, which rounds to 600, not 601.
pub fn logistic(u: f64, l: f64, k: f64, t: f64, t0: f64) -> f64 {
    ((u - l) / (1.0 + (-k * (t - t0)).exp()) + l).round_ties_even()
}

/// BenchmarkTools' oracle ν(t): evaluations per sample for an estimated `t` ns per evaluation.
///
/// As in BenchmarkTools' `tune!`, `t` is first rounded up to whole nanoseconds (`ceil`), and the
/// table is indexed from 1 (values below 1 ns, including 0 and negatives, count as 1 ns):
///
/// | t (ns, after `ceil`) | ν(t) |
/// |---|---|
/// | 1..=400 | `logistic(1006, 195, −0.025, t, 200)` (1000 at 1, 600 at 200, 200 at 400) |
/// | 401..=1000 | `logistic(204, −16, −0.01, t, 800)` (200 at 401, 94 at 800, 10 at 1000) |
/// | 1001..=2000, …, 8001..=9000 | 10, 9, …, 3 (one less per 1000 ns) |
/// | > 9000 | 1 |
///
/// NaN gives 1 (evaluate once).
pub fn benchmarktools_evals(t_ns: f64) -> u64 {
    if t_ns.is_nan() {
        return 1;
    }
    let t = t_ns.ceil().max(1.0);
    if t <= 400.0 {
        logistic(1006.0, 195.0, -0.025, t, 200.0) as u64
    } else if t <= 1000.0 {
        logistic(204.0, -16.0, -0.01, t, 800.0) as u64
    } else if t <= TABLE_END_NS as f64 {
        // 1001..=2000 → 10, ..., 8001..=9000 → 3.
        11 - ((t as u64 - 1) / 1000)
    } else {
        1
    }
}

/// j = ⌊τ_acc/τ_prec⌋, clamped to [1, 1000] ([`MAX_J`]). Both must be positive and finite.
pub fn max_evals(tau_acc_ns: f64, tau_prec_ns: f64) -> Result<u64> {
    check_positive("timer accuracy τ_acc", tau_acc_ns)?;
    check_positive("timer precision τ_prec", tau_prec_ns)?;
    Ok(((tau_acc_ns / tau_prec_ns).floor() as u64).clamp(1, MAX_J))
}

/// Chen & Revels' closed-form oracle
/// `Y(t) = ⌊1 + (j − 1)/(1 + exp(a(t − b·τ_acc)))⌋` with `a = 0.009/τ_prec`, `b = 0.5`.
///
/// At `t = b·τ_acc` the exponential is 1, so `Y = ⌊1 + (j − 1)/2⌋` whatever τ_prec (500 for
/// j = 1000). Y lies in [1, j]. Errors: j = 0, or τ_acc, τ_prec not positive and finite.
pub fn chen_revels_evals(t_ns: f64, j: u64, tau_acc_ns: f64, tau_prec_ns: f64) -> Result<u64> {
    check_positive("timer accuracy τ_acc", tau_acc_ns)?;
    check_positive("timer precision τ_prec", tau_prec_ns)?;
    if j == 0 {
        return Err(EvalsError::InvalidParameter {
            name: "j",
            value: "0".into(),
            reason: "must be at least 1",
        });
    }
    let a = 0.009 / tau_prec_ns;
    let y = 1.0 + (j - 1) as f64 / (1.0 + (a * (t_ns - 0.5 * tau_acc_ns)).exp());
    Ok((y.floor() as u64).clamp(1, j))
}

fn check_positive(name: &'static str, value: f64) -> Result<()> {
    if value > 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err(EvalsError::InvalidParameter {
            name,
            value: value.to_string(),
            reason: "must be positive and finite",
        })
    }
}

/// Which oracle ν maps the per-evaluation time to evaluations per sample.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EvalsOracle {
    /// BenchmarkTools' table ([`benchmarktools_evals`]).
    #[default]
    BenchmarkTools,
    /// Chen & Revels' closed form ([`chen_revels_evals`]) with these timer properties (ns).
    ChenRevels {
        /// j, the largest useful number of evaluations.
        j: u64,
        /// Timer accuracy τ_acc.
        tau_acc_ns: f64,
        /// Timer precision τ_prec.
        tau_prec_ns: f64,
    },
}

impl EvalsOracle {
    /// ν(t) for `t_ns` nanoseconds per evaluation.
    pub fn evals(&self, t_ns: f64) -> Result<u64> {
        match *self {
            Self::BenchmarkTools => Ok(benchmarktools_evals(t_ns)),
            Self::ChenRevels {
                j,
                tau_acc_ns,
                tau_prec_ns,
            } => chen_revels_evals(t_ns, j, tau_acc_ns, tau_prec_ns),
        }
    }
}

/// The outcome of tuning.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tuning {
    /// t̂ = min_i T_i/i, the estimated time of one evaluation (ns).
    pub per_eval_ns: f64,
    /// The i attaining the minimum (first one on ties).
    pub at_evals: u64,
    /// Evaluations per sample, ν(t̂).
    pub evals: u64,
}

/// Tuning from measured totals: `times[i − 1]` is T_i, the time (ns) of i back-to-back evaluations.
///
/// Errors: no times, or a time that is negative or not finite.
pub fn tune_from_times(times: &[f64], oracle: &EvalsOracle) -> Result<Tuning> {
    if times.is_empty() {
        return Err(EvalsError::NoTimes);
    }
    if let Some(index) = times.iter().position(|t| !(t.is_finite() && *t >= 0.0)) {
        return Err(EvalsError::NonFinite {
            index,
            value: times[index],
        });
    }
    let (best, per_eval_ns) = times
        .iter()
        .enumerate()
        .map(|(k, t)| (k, t / (k + 1) as f64))
        .fold(
            (0, f64::INFINITY),
            |acc, x| if x.1 < acc.1 { x } else { acc },
        );
    Ok(Tuning {
        per_eval_ns,
        at_evals: best as u64 + 1,
        evals: oracle.evals(per_eval_ns)?,
    })
}

/// Tuning by measurement: calls `measure(i)` for i = 1..=j — it must return the time (ns) of i
/// back-to-back evaluations — then applies [`tune_from_times`].
pub fn tune(j: u64, measure: impl FnMut(u64) -> f64, oracle: &EvalsOracle) -> Result<Tuning> {
    tune_until(j, f64::INFINITY, measure, oracle)
}

/// As [`tune`], but stops after the first i whose T_i reaches `long_ns`: a timing that long is
/// far above the timer's error, so larger i cannot lower t̂ by more than that error, and a slow
/// function is not evaluated j(j + 1)/2 times just to tune it (a 10 µs function would take 5 s).
pub fn tune_until(
    j: u64,
    long_ns: f64,
    mut measure: impl FnMut(u64) -> f64,
    oracle: &EvalsOracle,
) -> Result<Tuning> {
    let mut times = Vec::new();
    for i in 1..=j.max(1) {
        let t = measure(i);
        times.push(t);
        if t >= long_ns {
            break;
        }
    }
    tune_from_times(&times, oracle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn benchmarktools_spot_values() {
        for (t, nu) in [
            (1.0, 1000),
            (100.0, 944),
            (200.0, 600),
            (400.0, 200),
            (800.0, 94),
            (1000.0, 10),
        ] {
            assert_eq!(benchmarktools_evals(t), nu, "t = {t}");
        }
    }

    #[test]
    fn benchmarktools_band_edges_and_fractions() {
        // 200.5 would be 601 with round-half-away-from-zero; Julia rounds to even.
        assert_eq!(logistic(1006.0, 195.0, -0.025, 200.0, 200.0), 600.0);
        assert_eq!(benchmarktools_evals(401.0), 200);
        assert_eq!(benchmarktools_evals(400.2), 200); // ceil → 401, second band
        assert_eq!(benchmarktools_evals(199.5), 600); // ceil → 200
        assert_eq!(benchmarktools_evals(1000.5), 10); // ceil → 1001
        assert_eq!(benchmarktools_evals(1001.0), 10);
        assert_eq!(benchmarktools_evals(2000.0), 10);
        assert_eq!(benchmarktools_evals(2001.0), 9);
        assert_eq!(benchmarktools_evals(8001.0), 3);
        assert_eq!(benchmarktools_evals(9000.0), 3);
        assert_eq!(benchmarktools_evals(9000.1), 1);
        assert_eq!(benchmarktools_evals(1e12), 1);
        assert_eq!(benchmarktools_evals(0.0), 1000);
        assert_eq!(benchmarktools_evals(0.3), 1000);
        assert_eq!(benchmarktools_evals(-5.0), 1000);
        assert_eq!(benchmarktools_evals(f64::NAN), 1);
        // Monotone non-increasing over the whole table.
        let nu: Vec<u64> = (1..=9001)
            .map(|t| benchmarktools_evals(f64::from(t)))
            .collect();
        assert!(nu.windows(2).all(|w| w[0] >= w[1]));
    }

    #[test]
    fn chen_revels_closed_form() {
        for tau_prec in [1.0, 0.5, 30.0] {
            assert_eq!(
                chen_revels_evals(500.0, 1000, 1000.0, tau_prec).unwrap(),
                500
            );
        }
        assert_eq!(chen_revels_evals(0.0, 1000, 1000.0, 1.0).unwrap(), 989);
        assert_eq!(chen_revels_evals(2000.0, 1000, 1000.0, 1.0).unwrap(), 1);
        assert_eq!(chen_revels_evals(-1e9, 1000, 1000.0, 1.0).unwrap(), 1000);
        assert_eq!(max_evals(1000.0, 1.0).unwrap(), 1000);
        assert_eq!(max_evals(1e6, 1.0).unwrap(), 1000);
        assert_eq!(max_evals(30.0, 7.0).unwrap(), 4);
        assert!(max_evals(0.0, 1.0).is_err());
        assert!(chen_revels_evals(1.0, 0, 1000.0, 1.0).is_err());
    }

    #[test]
    fn tuning_takes_min_per_evaluation() {
        // 100 ns per evaluation plus a 1000 ns fixed overhead per timing: T_i/i falls with i.
        let t = tune(1000, |i| 1000.0 + 100.0 * i as f64, &EvalsOracle::default()).unwrap();
        assert_eq!(t.at_evals, 1000);
        assert!((t.per_eval_ns - 101.0).abs() < 1e-9);
        assert_eq!(t.evals, benchmarktools_evals(101.0));
        let t = tune_from_times(&[250.0, 380.0, 600.0], &EvalsOracle::default()).unwrap();
        // min(250/1, 380/2, 600/3) = 190 at i = 2; ν(190) = round(811/(1 + e^{-0.25}) + 195) = 651.
        assert_eq!((t.per_eval_ns, t.at_evals, t.evals), (190.0, 2, 651));
        assert!(tune_from_times(&[], &EvalsOracle::default()).is_err());
        assert!(tune_from_times(&[1.0, f64::NAN], &EvalsOracle::default()).is_err());
        let cr = EvalsOracle::ChenRevels {
            j: 1000,
            tau_acc_ns: 1000.0,
            tau_prec_ns: 1.0,
        };
        assert_eq!(tune_from_times(&[500.0], &cr).unwrap().evals, 500);
    }

    #[test]
    fn tuning_stops_once_a_timing_is_long() {
        // 10 µs per evaluation: T_1 = 10 µs, T_10 = 100 µs reaches the bound; 10 timings taken.
        let mut calls = Vec::new();
        let t = tune_until(
            1000,
            100_000.0,
            |i| {
                calls.push(i);
                10_000.0 * i as f64
            },
            &EvalsOracle::default(),
        )
        .unwrap();
        assert_eq!(calls, (1..=10).collect::<Vec<_>>());
        assert_eq!((t.per_eval_ns, t.evals), (10_000.0, 1));
        // A 1 ns function never reaches it: all j timings, ν = 1000 (the oracle's spot value).
        let mut n = 0;
        let t = tune_until(
            1000,
            100_000.0,
            |i| {
                n += 1;
                20.0 + i as f64
            },
            &EvalsOracle::default(),
        )
        .unwrap();
        assert_eq!((n, t.at_evals, t.evals), (1000, 1000, 1000));
    }
}
