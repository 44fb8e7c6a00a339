//! One statistic measured in several runs: the run (session) as the top level of the hierarchy.
//!
//! A run's interval holds what varies inside it — its executions, its iterations — and nothing
//! of what stays fixed for its length: the machine's state over the minutes it ran (another
//! tenant's load on a shared host, the clock and thermal state, where the binaries sit in the
//! page cache). Measured back to back on a quiet machine, seven runs of one pair of programs
//! gave ratios from 0.60 to 0.64, each with an interval about ±0.5% wide that excluded others'
//! (docs/methodology.md, "Across runs"). Within one run that level cannot be seen: a run that
//! sits in one state has no data on the others.
//!
//! Several runs make it a level like any other (Kalibera & Tůma 2006: the top level's means are
//! the units, with as many degrees of freedom as units less one). Each run gives one value of the
//! statistic (a mean, a ratio), positive; they are combined on the log scale, where ratios are
//! symmetric:
//!
//! * the estimate is the geometric mean of the runs' values, `exp(m)`, `m` the mean of the logs;
//! * its interval is `exp(m ± t·s/√R)`, `s` the standard deviation of the `R` logs and `t`
//!   Student's quantile with `R − 1` degrees of freedom. Each run's value already carries its own
//!   within-run error, so `s` holds both levels and the interval needs no model of either;
//! * the run level's own standard deviation, by the method of moments: the variance of a run's
//!   value is the run level's `σ²_run` plus its within-run error `se²`, so
//!   `σ²_run = max(0, s² − mean(se²))`. It says how much of the spread one run's interval leaves
//!   out.
//!
//! The runs are weighed alike: the run level is what the interval is about, and a run measured
//! longer does not move less between sessions.

use serde::{Deserialize, Serialize};

use crate::dist::{Quantile, critical_value};
use crate::error::{Result, StatsError, check_finite, invalid};

/// A statistic combined over runs: [`across_runs`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AcrossRuns {
    /// How many runs.
    pub runs: usize,
    /// The geometric mean of the runs' values.
    pub estimate: f64,
    /// The interval's lower bound.
    pub lower: f64,
    /// The interval's upper bound.
    pub upper: f64,
    /// The interval's confidence level.
    pub level: f64,
    /// The standard deviation of the runs' values, on the log scale (≈ a fraction of the
    /// value): both levels, the run's own and what it measured within.
    pub spread_log: f64,
    /// The runs' own (within-run) standard errors, as the root of their mean square on the log
    /// scale; `None` when a run had none.
    pub within_log: Option<f64>,
    /// The run level's standard deviation on the log scale, `√max(0, spread² − within²)`;
    /// `None` without the within-run errors.
    pub between_log: Option<f64>,
}

impl AcrossRuns {
    /// The two-sided p-value of the runs' one-sample t-test that the value is 1 (for a ratio:
    /// no change), on the log scale with `runs − 1` degrees of freedom. Runs that all agree give
    /// 1 when they agree on 1, else 0.
    pub fn p_of_one(&self) -> f64 {
        let d = self.estimate.ln();
        let se = self.spread_log / (self.runs as f64).sqrt();
        if se == 0.0 || !se.is_finite() {
            return if d == 0.0 { 1.0 } else { 0.0 };
        }
        match statrs::distribution::StudentsT::new(0.0, 1.0, self.runs as f64 - 1.0) {
            Ok(t) => {
                let tail = 1.0 - statrs::distribution::ContinuousCDF::cdf(&t, d.abs() / se);
                (2.0 * tail).clamp(0.0, 1.0)
            }
            Err(_) => 1.0,
        }
    }

    /// How many times one run's own standard error the spread between runs is (`None` without
    /// the within-run errors, or when they are 0): 1 when runs differ by no more than their
    /// intervals say.
    pub fn spread_over_within(&self) -> Option<f64> {
        self.within_log
            .filter(|w| *w > 0.0)
            .map(|w| self.spread_log / w)
    }
}

/// The standard error, on the log scale, of a positive statistic whose interval at confidence
/// `level` is `[lower, upper]`, from `df` degrees of freedom (Student's t; `None`: the normal
/// quantile): the wider half over the quantile. `None` for an interval that is unbounded or not
/// positive.
pub fn log_se_of_interval(
    estimate: f64,
    lower: f64,
    upper: f64,
    level: f64,
    df: Option<f64>,
) -> Option<f64> {
    if !(estimate > 0.0 && lower > 0.0 && upper.is_finite() && upper >= lower) {
        return None;
    }
    let q = match df {
        Some(df) => critical_value(level, df, Quantile::StudentT).ok()?,
        None => critical_value(level, f64::INFINITY, Quantile::Normal).ok()?,
    };
    let half = (estimate.ln() - lower.ln()).max(upper.ln() - estimate.ln());
    Some(half / q)
}

/// Combines one positive statistic measured in `values.len()` runs into an estimate and an
/// interval at confidence `level` that hold the run level (module docs). `within_se_log[i]` is
/// run `i`'s own standard error on the log scale ([`log_se_of_interval`]), if it has one; it is
/// used only to split the spread into its levels, never in the interval.
///
/// # Errors
/// Fewer than 2 runs (one run says nothing of how far another moves the statistic), a value that
/// is not positive and finite, a level outside (0, 1), or `within_se_log` of another length.
pub fn across_runs(
    values: &[f64],
    within_se_log: &[Option<f64>],
    level: f64,
) -> Result<AcrossRuns> {
    check_finite(values)?;
    if values.len() < 2 {
        return Err(StatsError::TooFew {
            what: "an interval across runs",
            needed: 2,
            got: values.len(),
        });
    }
    if let Some(bad) = values.iter().find(|v| **v <= 0.0) {
        return Err(invalid("a run's value", bad, "must be positive"));
    }
    if within_se_log.len() != values.len() {
        return Err(StatsError::Shape(format!(
            "{} runs but {} within-run errors",
            values.len(),
            within_se_log.len()
        )));
    }
    let runs = values.len();
    let r = runs as f64;
    let logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
    let mean = logs.iter().sum::<f64>() / r;
    let spread_log = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (r - 1.0)).sqrt();
    let t = critical_value(level, r - 1.0, Quantile::StudentT)?;
    let half = t * spread_log / r.sqrt();
    let within_log = within_se_log
        .iter()
        .map(|s| s.filter(|s| s.is_finite() && *s >= 0.0))
        .collect::<Option<Vec<f64>>>()
        .map(|s| (s.iter().map(|s| s * s).sum::<f64>() / r).sqrt());
    let between_log = within_log.map(|w| (spread_log * spread_log - w * w).max(0.0).sqrt());
    Ok(AcrossRuns {
        runs,
        estimate: mean.exp(),
        lower: (mean - half).exp(),
        upper: (mean + half).exp(),
        level,
        spread_log,
        within_log,
        between_log,
    })
}

/// Two versions each measured in several runs, compared with the run as the top level:
/// [`ratio_across_runs`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RunsRatio {
    /// The old version's runs.
    pub old_runs: usize,
    /// The new version's runs.
    pub new_runs: usize,
    /// The ratio of the new version's geometric mean over its runs to the old one's.
    pub ratio: f64,
    /// The interval's lower bound.
    pub lower: f64,
    /// The interval's upper bound.
    pub upper: f64,
    /// The interval's confidence level.
    pub level: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// The two-sided p-value of Welch's test of a ratio of 1.
    pub p_value: f64,
}

/// Compares a statistic measured in the runs `old` and `new` (one positive value a run, each
/// side's runs apart from the other's): Welch's two-sample t on the runs' logarithms, so each
/// side's spread between runs — the run level with what each run measured within — is the
/// error, and the interval of the difference of mean logs, `d ± t_ν·√(s_o²/n_o + s_n²/n_n)`
/// with Welch–Satterthwaite's ν, is the ratio's interval after `exp`. A side whose runs all
/// agree exactly (every value equal on both sides) gives an interval of no width.
///
/// # Errors
/// Fewer than 2 runs a side (one run says nothing of how far another moves the statistic), a
/// value that is not positive and finite, a level outside (0, 1).
pub fn ratio_across_runs(old: &[f64], new: &[f64], level: f64) -> Result<RunsRatio> {
    check_finite(old)?;
    check_finite(new)?;
    for side in [old, new] {
        if side.len() < 2 {
            return Err(StatsError::TooFew {
                what: "a side's runs in a comparison across runs",
                needed: 2,
                got: side.len(),
            });
        }
        if let Some(bad) = side.iter().find(|v| **v <= 0.0) {
            return Err(invalid("a run's value", bad, "must be positive"));
        }
    }
    let moments = |side: &[f64]| {
        let n = side.len() as f64;
        let logs: Vec<f64> = side.iter().map(|v| v.ln()).collect();
        let mean = logs.iter().sum::<f64>() / n;
        let var = logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (n, mean, var / n)
    };
    let (n_old, m_old, v_old) = moments(old);
    let (n_new, m_new, v_new) = moments(new);
    let d = m_new - m_old;
    let se2 = v_old + v_new;
    let (lower, upper, df, p_value) = if se2 > 0.0 {
        let df = se2 * se2 / (v_old * v_old / (n_old - 1.0) + v_new * v_new / (n_new - 1.0));
        let t = critical_value(level, df, Quantile::StudentT)?;
        let se = se2.sqrt();
        let dist = statrs::distribution::StudentsT::new(0.0, 1.0, df)
            .map_err(|_| invalid("degrees of freedom", df, "rejected by the t distribution"))?;
        let p = 2.0 * (1.0 - statrs::distribution::ContinuousCDF::cdf(&dist, d.abs() / se));
        (
            (d - t * se).exp(),
            (d + t * se).exp(),
            df,
            p.clamp(0.0, 1.0),
        )
    } else {
        let df = n_old + n_new - 2.0;
        (d.exp(), d.exp(), df, if d == 0.0 { 1.0 } else { 0.0 })
    };
    Ok(RunsRatio {
        old_runs: old.len(),
        new_runs: new.len(),
        ratio: d.exp(),
        lower,
        upper,
        level,
        df,
        p_value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use rand_distr::{Distribution, Normal};
    use statrs::distribution::ContinuousCDF;

    /// Six runs' ratios of a real -O0/-O2 pair (run back to back on a quiet machine), checked
    /// against figures computed apart (Python's `statistics`, t₅ = 2.5705818366147395).
    #[test]
    fn six_runs_match_figures_computed_apart() {
        let v = [0.6407, 0.6368, 0.6066, 0.6322, 0.6256, 0.6156];
        let w = [0.009, 0.003, 0.004, 0.005, 0.006, 0.007].map(Some);
        let a = across_runs(&v, &w, 0.95).unwrap();
        assert_eq!(a.runs, 6);
        assert!((a.estimate - 0.626_135_514_745_277_6).abs() < 1e-12);
        assert!((a.lower - 0.612_501_990_825_172_6).abs() < 1e-9);
        assert!((a.upper - 0.640_072_503_759_805_6).abs() < 1e-9);
        assert!((a.spread_log - 0.020_977_591_493_417_012).abs() < 1e-12);
        assert!((a.within_log.unwrap() - 0.006).abs() < 1e-12);
        assert!((a.between_log.unwrap() - 0.020_101_227_446_717_82).abs() < 1e-12);
        assert!((a.spread_over_within().unwrap() - 3.496).abs() < 1e-3);
        // Ratios this far below 1 on 5 degrees of freedom: t = 54.7, p far below 1e-6.
        assert!(a.p_of_one() < 1e-6);
        // Four ratios with logs 0.05, 0.07, 0.03, 0.06: t = 0.0525 / (0.017078 / 2) = 6.1482 on
        // 3 df, p = 0.0086565 (t₃'s closed-form distribution function, computed apart).
        let r = [0.05f64, 0.07, 0.03, 0.06].map(f64::exp);
        let b = across_runs(&r, &[None; 4], 0.95).unwrap();
        assert!(
            (b.p_of_one() - 0.008_656_533_573).abs() < 1e-9,
            "{}",
            b.p_of_one()
        );
        let same = across_runs(&[1.0, 1.0], &[None, None], 0.95).unwrap();
        assert_eq!(same.p_of_one(), 1.0);
    }

    #[test]
    fn one_run_or_bad_values_are_refused() {
        assert!(matches!(
            across_runs(&[1.0], &[None], 0.95),
            Err(StatsError::TooFew { got: 1, .. })
        ));
        assert!(across_runs(&[1.0, 0.0], &[None, None], 0.95).is_err());
        assert!(across_runs(&[1.0, f64::NAN], &[None, None], 0.95).is_err());
        assert!(across_runs(&[1.0, 1.1], &[None], 0.95).is_err());
        assert!(across_runs(&[1.0, 1.1], &[None, None], 1.5).is_err());
    }

    #[test]
    fn without_a_runs_own_error_the_levels_are_not_split() {
        let a = across_runs(&[1.0, 1.1, 1.05], &[Some(0.01), None, Some(0.01)], 0.95).unwrap();
        assert_eq!(a.within_log, None);
        assert_eq!(a.between_log, None);
        assert_eq!(a.spread_over_within(), None);
    }

    #[test]
    fn a_runs_standard_error_is_read_back_from_its_interval() {
        // exp(±1.96·0.01) around 2: the normal quantile gives 0.01 back.
        let z = 1.959_963_984_540_054;
        let (lo, hi) = (2.0 * (-z * 0.01f64).exp(), 2.0 * (z * 0.01f64).exp());
        let se = log_se_of_interval(2.0, lo, hi, 0.95, None).unwrap();
        assert!((se - 0.01).abs() < 1e-12);
        // With 4 degrees of freedom the quantile is t₄ = 2.776445105: a smaller error.
        let se4 = log_se_of_interval(2.0, lo, hi, 0.95, Some(4.0)).unwrap();
        assert!((se4 - 0.01 * z / 2.776_445_105_197_793).abs() < 1e-9);
        assert_eq!(log_se_of_interval(2.0, 0.0, 3.0, 0.95, None), None);
        assert_eq!(
            log_se_of_interval(2.0, 1.0, f64::INFINITY, 0.95, None),
            None
        );
    }

    /// Known truth: each run's log value is μ + a run effect N(0, τ²) + its own error
    /// N(0, σ²), with the run's interval as a run would report it. The interval across runs
    /// covers the truth at its level (±2.5 standard errors of 4,000 trials); each run's own
    /// interval, which leaves the run level out, does not.
    #[test]
    fn the_interval_across_runs_covers_the_truth_a_runs_own_misses() {
        let trials = 4_000;
        let mut rng = ChaCha8Rng::seed_from_u64(0x5e55);
        let z = 1.959_963_984_540_054;
        for (runs, tau, sigma) in [(3, 0.02, 0.005), (5, 0.01, 0.004), (10, 0.005, 0.01)] {
            let effect = Normal::new(0.0, tau).unwrap();
            let own = Normal::new(0.0, sigma).unwrap();
            let (mut covered, mut own_covered, mut n_own) = (0usize, 0usize, 0usize);
            for _ in 0..trials {
                let logs: Vec<f64> = (0..runs)
                    .map(|_| effect.sample(&mut rng) + own.sample(&mut rng))
                    .collect();
                let values: Vec<f64> = logs.iter().map(|l| l.exp()).collect();
                let within = vec![Some(sigma); runs];
                let a = across_runs(&values, &within, 0.95).unwrap();
                covered += usize::from(a.lower <= 1.0 && 1.0 <= a.upper);
                for l in &logs {
                    n_own += 1;
                    own_covered += usize::from((l.abs()) <= z * sigma);
                }
            }
            let rate = covered as f64 / trials as f64;
            let se = (0.95 * 0.05 / trials as f64).sqrt();
            assert!(
                (rate - 0.95).abs() < 2.5 * se,
                "{runs} runs, τ {tau}, σ {sigma}: covered {rate}"
            );
            // A run's own interval covers 2Φ(zσ/√(τ² + σ²)) − 1 of the time: 0.58, 0.88, 0.92.
            let own_rate = own_covered as f64 / n_own as f64;
            let expected = 2.0
                * statrs::distribution::Normal::standard().cdf(z * sigma / tau.hypot(sigma))
                - 1.0;
            assert!(expected < 0.93);
            assert!(
                (own_rate - expected).abs() < 0.02,
                "a run's own interval covered {own_rate}, not {expected}"
            );
        }
    }

    /// The run level's estimate is unbiased enough to tell: over many trials its square
    /// averages τ² within 10% where τ is well above the runs' own error.
    #[test]
    fn the_run_levels_share_is_estimated() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let (tau, sigma, runs) = (0.02, 0.005, 8);
        let effect = Normal::new(0.0, tau).unwrap();
        let own = Normal::new(0.0, sigma).unwrap();
        let trials = 2_000;
        let mut sum = 0.0;
        for _ in 0..trials {
            let values: Vec<f64> = (0..runs)
                .map(|_| {
                    let l: f64 = effect.sample(&mut rng) + own.sample(&mut rng);
                    l.exp()
                })
                .collect();
            let a = across_runs(&values, &vec![Some(sigma); runs], 0.95).unwrap();
            sum += a.between_log.unwrap().powi(2);
        }
        let mean = sum / trials as f64;
        assert!((mean / (tau * tau) - 1.0).abs() < 0.1, "σ²_run {mean}");
    }

    /// Equal spreads and counts make Welch's ν = 2(n − 1): four runs a side give t₆ =
    /// 2.446911851 at 95%. Figures computed apart (Python's `statistics`).
    #[test]
    fn two_sides_of_runs_match_figures_computed_apart() {
        // Logs of old: 0, 0.02, −0.02, 0.01 (sd² 0.000291667); new the same shifted by 0.05.
        let old: Vec<f64> = [0.0f64, 0.02, -0.02, 0.01]
            .iter()
            .map(|l| l.exp())
            .collect();
        let new: Vec<f64> = [0.05f64, 0.07, 0.03, 0.06]
            .iter()
            .map(|l| l.exp())
            .collect();
        let r = ratio_across_runs(&old, &new, 0.95).unwrap();
        assert!((r.df - 6.0).abs() < 1e-9, "{}", r.df);
        let se = (2.0 * 0.000_291_666_666_666_666_7f64 / 4.0).sqrt();
        let t6 = 2.446_911_851_144_969;
        assert!((r.ratio - 0.05f64.exp()).abs() < 1e-12);
        assert!((r.lower - (0.05 - t6 * se).exp()).abs() < 1e-9);
        assert!((r.upper - (0.05 + t6 * se).exp()).abs() < 1e-9);
        // t = 0.05 / 0.012076 = 4.1404 on 6 df: p = 0.0060759 (the t density integrated apart).
        assert!((r.p_value - 0.006_075_9).abs() < 1e-6, "{}", r.p_value);
        assert!(ratio_across_runs(&old[..1], &new, 0.95).is_err());
        assert!(ratio_across_runs(&old, &[1.0, -1.0], 0.95).is_err());
        let same = ratio_across_runs(&[1.0, 1.0], &[1.0, 1.0], 0.95).unwrap();
        assert_eq!((same.lower, same.upper, same.p_value), (1.0, 1.0, 1.0));
    }

    /// Known truth: two versions, the new one 3% slower, each run moved by a run level of 2%
    /// beside 0.5% of its own; 3 to 8 runs a side. The interval covers the true ratio at least at
    /// its level (within 2.5 standard errors of 4,000 trials below it, at most 97.5%); for the
    /// same code (ratio 1) the test rejects at most at its level.
    #[test]
    fn the_ratio_across_runs_covers_the_truth() {
        let mut rng = ChaCha8Rng::seed_from_u64(0xab);
        let trials = 4_000;
        let effect = Normal::new(0.0, 0.02).unwrap();
        let own = Normal::new(0.0, 0.005).unwrap();
        for (n_old, n_new, truth) in [(3, 3, 1.03), (5, 3, 1.0), (8, 8, 1.03)] {
            let mut side = |n: usize, level: f64| -> Vec<f64> {
                (0..n)
                    .map(|_| {
                        let l: f64 = effect.sample(&mut rng) + own.sample(&mut rng);
                        level * l.exp()
                    })
                    .collect()
            };
            let (mut covered, mut rejected) = (0usize, 0usize);
            for _ in 0..trials {
                let old = side(n_old, 1.0);
                let new = side(n_new, truth);
                let r = ratio_across_runs(&old, &new, 0.95).unwrap();
                covered += usize::from(r.lower <= truth && truth <= r.upper);
                rejected += usize::from(r.p_value < 0.05);
            }
            let rate = covered as f64 / trials as f64;
            let se = (0.95 * 0.05 / trials as f64).sqrt();
            // Welch's degrees of freedom are conservative with few runs a side (3 and 3:
            // about 96%): no less than the level, and not far above it.
            assert!(
                rate > 0.95 - 2.5 * se && rate < 0.975,
                "{n_old}/{n_new}: covered {rate}"
            );
            if truth == 1.0 {
                let false_alarms = rejected as f64 / trials as f64;
                assert!(false_alarms < 0.05 + 2.5 * se, "{false_alarms}");
            }
        }
    }

    proptest! {
        #[test]
        fn the_interval_holds_the_estimate_and_scales_with_the_values(
            values in proptest::collection::vec(0.01f64..100.0, 2..12),
            scale in 0.01f64..100.0,
        ) {
            let none = vec![None; values.len()];
            let a = across_runs(&values, &none, 0.95).unwrap();
            prop_assert!(a.lower <= a.estimate * (1.0 + 1e-12));
            prop_assert!(a.estimate <= a.upper * (1.0 + 1e-12));
            let scaled: Vec<f64> = values.iter().map(|v| v * scale).collect();
            let b = across_runs(&scaled, &none, 0.95).unwrap();
            prop_assert!((b.estimate / (a.estimate * scale) - 1.0).abs() < 1e-9);
            prop_assert!((b.spread_log - a.spread_log).abs() < 1e-9);
            let mut reversed = values.clone();
            reversed.reverse();
            let c = across_runs(&reversed, &none, 0.95).unwrap();
            prop_assert!((c.estimate / a.estimate - 1.0).abs() < 1e-12);
        }
    }
}
