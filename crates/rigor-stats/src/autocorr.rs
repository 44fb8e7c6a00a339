//! Independence of a run sequence: autocorrelations, Ljung–Box, and the shuffled reference
//! (docs/methodology.md, "Steady state and the random initial state"; Kalibera & Jones 2013 §6.1;
//! Kalibera, Bulej & Tůma 2005b §4.1 Fig. 4–5).
//!
//! Only iterations in an *independent* state (i.i.d.) may be repeated within a run. Kalibera &
//! Jones judged it from lag plots and the autocorrelation function; here the same evidence is
//! computed:
//!
//! * [`acf`]: sample autocorrelations `r_k` (R's `acf()` definition) and the bounds
//!   `±1.96/√n` that i.i.d. data stay inside at each lag with probability ≈ 95 %;
//! * [`ljung_box`]: the portmanteau statistic `Q = n(n+2) Σ_{k=1..h} r_k²/(n−k)`, approximately
//!   χ²(h) for i.i.d. data (Ljung & Box 1978);
//! * the same statistics on the series shuffled by a seeded permutation: the picture of this very
//!   marginal distribution when the order carries no information (Kalibera, Bulej & Tůma 2005b
//!   compare lag plots of the data and of the "randomly reordered" data).
//!
//! [`independence`] combines them with the decision rule documented on [`Independence`].

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ChiSquared, ContinuousCDF};

use crate::error::{Result, StatsError, check_finite};

/// Default number of lags (1..=4, docs/methodology.md, "Steady state and the random initial
/// state").
pub const DEFAULT_MAX_LAG: usize = 4;

/// Default significance level of the Ljung–Box test. 1 % rather than 5 %: the test is applied to
/// every run (and, in [`crate::steady::diagnose`], at several cut points), and a 5 % test would
/// call one in twenty i.i.d. runs dependent.
pub const DEFAULT_ALPHA: f64 = 0.01;

/// The seed used by [`IndependenceConfig::default`].
pub const DEFAULT_SEED: u64 = 0x0002_6244;

/// z-quantile of the ±1.96/√n autocorrelation bounds.
pub const BOUND_Z: f64 = 1.96;

/// Sample autocorrelations at lags 1..=`max_lag` (element k − 1 is lag k), as R's `acf()`:
///
/// `r_k = Σ_{t=1..n−k} (x_t − x̄)(x_{t+k} − x̄) / Σ_{t=1..n} (x_t − x̄)²`.
///
/// A constant series has no defined autocorrelation; it is reported as 0 at every lag (no linear
/// dependence can be seen in it). Errors: a non-finite value, `max_lag` = 0, or fewer than
/// `max_lag + 1` values.
pub fn acf(series: &[f64], max_lag: usize) -> Result<Vec<f64>> {
    check_finite(series)?;
    check_lags(series.len(), max_lag)?;
    let n = series.len() as f64;
    let mean = series.iter().sum::<f64>() / n;
    let d: Vec<f64> = series.iter().map(|x| x - mean).collect();
    let denom: f64 = d.iter().map(|v| v * v).sum();
    Ok((1..=max_lag)
        .map(|k| {
            let num: f64 = d.iter().zip(&d[k..]).map(|(a, b)| a * b).sum();
            if denom > 0.0 { num / denom } else { 0.0 }
        })
        .collect())
}

fn check_lags(n: usize, max_lag: usize) -> Result<()> {
    if max_lag == 0 {
        return Err(StatsError::InvalidParameter {
            name: "maximum lag",
            value: "0".into(),
            reason: "need at least lag 1",
        });
    }
    if n <= max_lag {
        return Err(StatsError::TooFew {
            what: "autocorrelations up to the maximum lag",
            needed: max_lag + 1,
            got: n,
        });
    }
    Ok(())
}

/// The Ljung–Box statistic of autocorrelations `r` (lags 1..=h) of a series of length `n`, and its
/// p-value `P(χ²(h) ≥ Q)`:
///
/// `Q = n(n + 2) Σ_{k=1..h} r_k² / (n − k)`.
///
/// Requires `n > h` (as [`acf`] guarantees).
pub fn ljung_box(r: &[f64], n: usize) -> (f64, f64) {
    let nf = n as f64;
    let q = nf
        * (nf + 2.0)
        * r.iter()
            .enumerate()
            .map(|(i, rk)| rk * rk / (nf - (i + 1) as f64))
            .sum::<f64>();
    let p = match ChiSquared::new(r.len() as f64) {
        Ok(chi) => chi.sf(q),
        Err(_) => f64::NAN,
    };
    (q, p)
}

/// Parameters of [`independence`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct IndependenceConfig {
    /// Lags tested, 1..=`max_lag` (default 4).
    pub max_lag: usize,
    /// Significance level α of the Ljung–Box test (default 0.01).
    pub alpha: f64,
    /// Seed of the shuffle (reported back).
    pub seed: u64,
}

impl Default for IndependenceConfig {
    fn default() -> Self {
        Self {
            max_lag: DEFAULT_MAX_LAG,
            alpha: DEFAULT_ALPHA,
            seed: DEFAULT_SEED,
        }
    }
}

/// Evidence about the independence of a series, and the verdict.
///
/// **Decision rule.** The series is *dependent* when the Ljung–Box test over lags 1..=h rejects
/// at level α (`p_value < α`) **and** its statistic exceeds that of the same values in a random
/// order (`ljung_box_q > shuffled_q`); otherwise it is *independent*. Ljung–Box is the joint test
/// of the individual bounds (Q ≈ n·Σ r_k²), so it gives the verdict; the shuffle guards against a
/// marginal distribution for which the χ² approximation misbehaves (if the values in a random
/// order look at least as dependent, the order carries no evidence). For i.i.d. data the rule
/// says "independent" with probability ≥ 1 − α; a strongly dependent series has Q far above any
/// shuffle's, so the guard costs no power there. `within_bounds` (every |r_k| ≤ 1.96/√n) is
/// reported for people but not used: with four lags it fails for about 1 − 0.95⁴ ≈ 19 % of
/// i.i.d. series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Independence {
    /// Number of values tested.
    pub n: usize,
    /// Autocorrelations at lags 1..=h.
    pub acf: Vec<f64>,
    /// The bound 1.96/√n.
    pub bound: f64,
    /// Whether every |r_k| ≤ bound.
    pub within_bounds: bool,
    /// Ljung–Box Q over lags 1..=h.
    pub ljung_box_q: f64,
    /// P(χ²(h) ≥ Q).
    pub p_value: f64,
    /// Autocorrelations of the shuffled series.
    pub shuffled_acf: Vec<f64>,
    /// Ljung–Box Q of the shuffled series.
    pub shuffled_q: f64,
    /// p-value of the shuffled series.
    pub shuffled_p_value: f64,
    /// Significance level used.
    pub alpha: f64,
    /// Seed of the shuffle.
    pub seed: u64,
    /// The verdict (see the decision rule above).
    pub independent: bool,
}

/// Tests a series for independence: autocorrelations at lags 1..=h with their bounds, Ljung–Box,
/// and the same on a seeded shuffle of the series; verdict by the rule on [`Independence`].
///
/// Errors: a non-finite value, `max_lag` = 0, α outside (0, 1), or fewer than `max_lag + 2`
/// values.
pub fn independence(series: &[f64], cfg: &IndependenceConfig) -> Result<Independence> {
    if !(cfg.alpha > 0.0 && cfg.alpha < 1.0) {
        return Err(StatsError::InvalidParameter {
            name: "alpha",
            value: cfg.alpha.to_string(),
            reason: "must lie strictly between 0 and 1",
        });
    }
    check_lags(series.len(), cfg.max_lag + 1)?;
    let n = series.len();
    let r = acf(series, cfg.max_lag)?;
    let (q, p) = ljung_box(&r, n);
    let mut shuffled = series.to_vec();
    shuffled.shuffle(&mut ChaCha8Rng::seed_from_u64(cfg.seed));
    let rs = acf(&shuffled, cfg.max_lag)?;
    let (qs, ps) = ljung_box(&rs, n);
    let bound = BOUND_Z / (n as f64).sqrt();
    Ok(Independence {
        n,
        within_bounds: r.iter().all(|rk| rk.abs() <= bound),
        acf: r,
        bound,
        ljung_box_q: q,
        p_value: p,
        shuffled_acf: rs,
        shuffled_q: qs,
        shuffled_p_value: ps,
        alpha: cfg.alpha,
        seed: cfg.seed,
        independent: !(p < cfg.alpha && q > qs),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acf_and_ljung_box_by_hand() {
        // x = (1, 3, 2, 5, 4, 6, 8, 7, 9, 10): x̄ = 5.5, deviations d =
        // (−4.5, −2.5, −3.5, −0.5, −1.5, 0.5, 2.5, 1.5, 3.5, 4.5), Σd² = 82.5.
        // Lag sums Σ d_t d_{t+k}: k=1: 11.25+8.75+1.75+0.75−0.75+1.25+3.75+5.25+15.75 = 47.75,
        // k=2: 15.75+1.25+5.25−0.25−3.75+0.75+8.75+6.75 = 34.5,
        // k=3: 2.25+3.75−1.75−1.25−2.25+1.75+11.25 = 13.75,
        // k=4: 6.75−1.25−8.75−0.75−5.25+2.25 = −7.0.
        // r = (0.5787879, 0.4181818, 0.1666667, −0.0848485), the definition of R's
        // acf(x, lag.max = 4) (checked here with exact rational arithmetic, not with R).
        let x = [1.0, 3.0, 2.0, 5.0, 4.0, 6.0, 8.0, 7.0, 9.0, 10.0];
        let r = acf(&x, 4).unwrap();
        let expected = [47.75 / 82.5, 34.5 / 82.5, 13.75 / 82.5, -7.0 / 82.5];
        for (a, b) in r.iter().zip(expected) {
            assert!((a - b).abs() < 1e-12, "{r:?}");
        }
        // Q = n(n+2)·Σ r_k²/(n−k) = 10·12·(r1²/9 + r2²/8 + r3²/7 + r4²/6)
        //   = 120·(0.0372217 + 0.0218595 + 0.0039683 + 0.0011999) = 7.709922,
        // and for 4 degrees of freedom P(χ²₄ ≥ Q) = e^{−Q/2}(1 + Q/2) = 0.102801
        // (the formula of R's Box.test(x, lag = 4, type = "Ljung-Box")).
        let (q, p) = ljung_box(&r, x.len());
        assert!((q - 7.709_922).abs() < 1e-6, "{q}");
        let p_hand = (-q / 2.0).exp() * (1.0 + q / 2.0);
        assert!((p - p_hand).abs() < 1e-10, "{p} vs {p_hand}");
        assert!((p - 0.102_801).abs() < 1e-6, "{p}");
    }

    #[test]
    fn degenerate_input() {
        assert_eq!(acf(&[2.0; 5], 2).unwrap(), vec![0.0, 0.0]);
        assert!(acf(&[1.0, 2.0], 2).is_err());
        assert!(acf(&[1.0, 2.0, 3.0], 0).is_err());
        assert!(acf(&[1.0, f64::INFINITY, 3.0], 1).is_err());
        let cfg = IndependenceConfig::default();
        assert!(independence(&[1.0, 2.0, 3.0, 4.0, 5.0], &cfg).is_err());
        let bad = IndependenceConfig { alpha: 1.0, ..cfg };
        assert!(independence(&[1.0; 20], &bad).is_err());
        assert!(independence(&[1.0; 20], &cfg).unwrap().independent);
    }

    #[test]
    fn trend_is_dependent_and_shuffle_is_not() {
        let x: Vec<f64> = (0..200).map(|i| f64::from(i) + f64::from(i % 7)).collect();
        let ind = independence(&x, &IndependenceConfig::default()).unwrap();
        assert!(!ind.independent && !ind.within_bounds);
        assert!(ind.p_value < 1e-10 && ind.ljung_box_q > ind.shuffled_q);
        assert_eq!(
            ind,
            independence(&x, &IndependenceConfig::default()).unwrap()
        );
    }
}
