//! Anytime-valid confidence sequences, for comparisons that run until they are decided.
//!
//! Re-testing a fixed-n interval after every round inflates the false-alarm rate (optional
//! stopping). A confidence sequence holds at every round at once: for increments `xᵢ` with mean
//! μ and standard deviation σ, `S_n = Σ(xᵢ − μ)` stays inside the two-sided normal-mixture
//! boundary (Robbins 1970; Howard et al. 2021)
//!
//! ```text
//! |S_n| < σ·√((n + ρ)·ln((n + ρ)/(ρ·α²)))
//! ```
//!
//! for all n with probability ≥ 1 − α (Ville's inequality on the mixture martingale), ρ being
//! the mixing precision (in rounds: the boundary is tightest, relative to a fixed-n interval, a
//! few times ρ rounds in). With σ unknown rigor plugs in the sample standard deviation of the
//! increments seen so far, times [`sigma_inflation`] (`t_{1−α/2, n−1}/z_{1−α/2}`), and starts
//! looking after [`SequentialConfig::min_rounds`] rounds; the validation command checks by
//! simulation that the error rate stays within α under continuous monitoring.
//!
//! For a comparison the increments are the paired per-round log-ratios `ln(candidateₖ/baselineₖ)`
//! (a round runs both once, in random order, so drift common to the round cancels); the sequence
//! for their mean, exponentiated, bounds the ratio of geometric means, and is read like any
//! ratio interval: regression when it lies above `1 + δ`, improvement below `1 − δ`, equivalent
//! inside `[1 − δ, 1 + δ]` ([`crate::compare::verdict_from_interval`]).
//!
//! ```
//! use rigor_stats::confseq::normal_mixture_radius;
//!
//! // σ = 1, ρ = 1, α = 0.05, n = 10.
//! assert!((normal_mixture_radius(10, 1.0, 1.0, 0.05) - 9.606402).abs() < 1e-6);
//! ```

use serde::{Deserialize, Serialize};

use crate::compare::{Verdict, verdict_from_interval};
use crate::descriptive::{mean, variance};
use crate::error::{Result, StatsError, check_finite};

/// Radius of the two-sided normal-mixture boundary on the centred sum `S_n`:
/// `σ·√((n + ρ)·ln((n + ρ)/(ρ·α²)))`.
pub fn normal_mixture_radius(n: usize, sigma: f64, rho: f64, alpha: f64) -> f64 {
    let m = n as f64 + rho;
    sigma * (m * (m / (rho * alpha * alpha)).ln()).sqrt()
}

/// Settings of a sequential comparison.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SequentialConfig {
    /// Error rate α of the whole sequence (default 0.05). With several candidates compared with
    /// one baseline, each uses α/K (see [`SequentialConfig::for_candidates`]).
    pub alpha: f64,
    /// Equivalence margin δ: ratios in `[1 − δ, 1 + δ]` count as no change (default 0.01).
    pub threshold: f64,
    /// Mixing precision ρ in rounds (default 4: tightest around 10–30 rounds).
    pub rho: f64,
    /// Rounds before the first look (default 8), so that σ is estimated from some data.
    pub min_rounds: usize,
}

impl Default for SequentialConfig {
    fn default() -> Self {
        Self {
            alpha: 0.05,
            threshold: 0.01,
            rho: 4.0,
            min_rounds: 8,
        }
    }
}

impl SequentialConfig {
    /// The per-candidate settings when `k` candidates are compared with one baseline: α/k each
    /// (Bonferroni), so the chance of any false decision — and hence the false discovery rate
    /// across candidates — stays at most α under any dependence between the candidates.
    pub fn for_candidates(&self, k: usize) -> Self {
        Self {
            alpha: self.alpha / k.max(1) as f64,
            ..*self
        }
    }

    /// Checks the settings: α in (0, 1), threshold in [0, 1), ρ positive and finite.
    ///
    /// # Errors
    /// [`StatsError::InvalidParameter`] naming the first setting out of range.
    pub fn check(&self) -> Result<()> {
        let bad = |name, value: f64, reason| StatsError::InvalidParameter {
            name,
            value: value.to_string(),
            reason,
        };
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(bad("alpha", self.alpha, "must lie in (0, 1)"));
        }
        if !(self.threshold >= 0.0 && self.threshold < 1.0) {
            return Err(bad("threshold", self.threshold, "must lie in [0, 1)"));
        }
        if !(self.rho > 0.0 && self.rho.is_finite()) {
            return Err(bad("rho", self.rho, "must be positive"));
        }
        Ok(())
    }
}

/// One look at a sequential comparison.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Look {
    /// Rounds seen.
    pub rounds: usize,
    /// Ratio of geometric means, `exp(mean log-ratio)`.
    pub ratio: f64,
    /// Lower end of the confidence sequence for the ratio at this round.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// The verdict the sequence supports now (`Inconclusive` before `min_rounds`).
    pub verdict: Verdict,
}

impl Look {
    /// Whether the comparison is decided (regression, improvement or equivalent).
    pub fn decided(&self) -> bool {
        self.verdict != Verdict::Inconclusive && self.verdict != Verdict::Unbounded
    }
}

/// Looks at the comparison after the rounds whose paired log-ratios are `log_ratios`.
///
/// Errors: non-finite log-ratios or invalid settings. Fewer than two rounds, or fewer than
/// `min_rounds`, give an unbounded, inconclusive look.
pub fn look(log_ratios: &[f64], cfg: &SequentialConfig) -> Result<Look> {
    cfg.check()?;
    check_finite(log_ratios)?;
    let n = log_ratios.len();
    if n < cfg.min_rounds.max(2) {
        let ratio = if n == 0 { 1.0 } else { mean(log_ratios).exp() };
        return Ok(Look {
            rounds: n,
            ratio,
            lower: 0.0,
            upper: f64::INFINITY,
            verdict: Verdict::Inconclusive,
        });
    }
    let m = mean(log_ratios);
    let sigma = variance(log_ratios).sqrt() * sigma_inflation(n, cfg.alpha)?;
    let r = normal_mixture_radius(n, sigma, cfg.rho, cfg.alpha) / n as f64;
    let (lower, upper) = ((m - r).exp(), (m + r).exp());
    Ok(Look {
        rounds: n,
        ratio: m.exp(),
        lower,
        upper,
        verdict: verdict_from_interval(lower, upper, cfg.threshold),
    })
}

/// The factor `t_{1−α/2, n−1} / z_{1−α/2}` applied to the sample standard deviation: the plug-in
/// σ alone makes the sequence miss the truth in about 6% of A/A runs under continuous monitoring
/// from 8 rounds (validation: docs/validation/sequential.md), because s underestimates σ half the
/// time when n is small; the factor, 1.21 at n = 8 and 1.01 at n = 100, brings it back under α.
pub fn sigma_inflation(n: usize, alpha: f64) -> Result<f64> {
    let level = 1.0 - alpha;
    let t = crate::dist::critical_value(
        level,
        (n.max(2) - 1) as f64,
        crate::dist::Quantile::StudentT,
    )?;
    let z = crate::dist::critical_value(level, 1.0, crate::dist::Quantile::Normal)?;
    Ok(t / z)
}

/// Why a sequential comparison stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SequentialStop {
    /// The sequence decided: regression, improvement or equivalent.
    Decided,
    /// The budget ran out first; the verdict is inconclusive.
    BudgetSpent,
}

/// Runs the rule over a stream of log-ratios: the first round (from `min_rounds` on) at which the
/// look is decided, or the last look when `budget` rounds pass undecided.
pub fn run_until_decided(
    log_ratios: &[f64],
    budget: usize,
    cfg: &SequentialConfig,
) -> Result<(Look, SequentialStop)> {
    let end = budget.min(log_ratios.len());
    let mut last = look(&log_ratios[..end], cfg)?;
    for n in cfg.min_rounds.max(2)..=end {
        last = look(&log_ratios[..n], cfg)?;
        if last.decided() {
            return Ok((last, SequentialStop::Decided));
        }
    }
    Ok((last, SequentialStop::BudgetSpent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundary_matches_oracle() {
        assert!((normal_mixture_radius(10, 1.0, 1.0, 0.05) - 9.606402).abs() < 1e-6);
        assert!((normal_mixture_radius(100, 1.0, 1.0, 0.05) - 32.730186).abs() < 1e-6);
        assert!((normal_mixture_radius(1000, 1.0, 10.0, 0.05) - 103.501937).abs() < 1e-6);
        // Linear in σ.
        assert!((normal_mixture_radius(10, 2.0, 1.0, 0.05) - 2.0 * 9.606402).abs() < 1e-5);
    }

    #[test]
    fn decides_regression_and_equivalence() {
        let cfg = SequentialConfig::default();
        // 5% slower with 1% noise: regression.
        let slow: Vec<f64> = (0..30)
            .map(|i| 1.05f64.ln() + 0.01 * ((i % 5) as f64 - 2.0) / 1.4)
            .collect();
        let (l, stop) = run_until_decided(&slow, 100, &cfg).unwrap();
        assert_eq!(
            (l.verdict, stop),
            (Verdict::Regression, SequentialStop::Decided)
        );
        assert_eq!(l.rounds, cfg.min_rounds);
        // No change, 0.2% noise: equivalent within ±1%.
        let same: Vec<f64> = (0..30).map(|i| 0.002 * ((i % 3) as f64 - 1.0)).collect();
        let (l, _) = run_until_decided(&same, 100, &cfg).unwrap();
        assert_eq!(l.verdict, Verdict::Equivalent);
        assert!(l.lower < 1.0 && 1.0 < l.upper);
        // Noisy: the budget runs out.
        let noisy: Vec<f64> = (0..20).map(|i| 0.2 * ((i % 2) as f64 - 0.5)).collect();
        let (l, stop) = run_until_decided(&noisy, 20, &cfg).unwrap();
        assert_eq!(
            (l.verdict, stop, l.rounds),
            (Verdict::Inconclusive, SequentialStop::BudgetSpent, 20)
        );
    }

    #[test]
    fn sequence_is_wider_than_the_fixed_interval_and_shrinks() {
        let cfg = SequentialConfig::default();
        let x: Vec<f64> = (0..200)
            .map(|i| 0.01 * (((i * 7) % 11) as f64 - 5.0) / 3.2)
            .collect();
        let w = |n: usize| {
            let l = look(&x[..n], &cfg).unwrap();
            l.upper.ln() - l.lower.ln()
        };
        assert!(w(20) > w(50) && w(50) > w(200));
        // Wider than the fixed-n 95% t interval at the same n.
        let fixed = 2.0 * 2.093 * (variance(&x[..20]) / 20.0).sqrt();
        assert!(w(20) > fixed);
    }

    #[test]
    fn inflation_is_t_over_z() {
        // t_{0.975,7} = 2.364624, z_{0.975} = 1.959964.
        assert!((sigma_inflation(8, 0.05).unwrap() - 2.364624 / 1.959964).abs() < 1e-5);
        assert!((sigma_inflation(100_000, 0.05).unwrap() - 1.0).abs() < 1e-4);
    }

    #[test]
    fn bad_settings_are_errors() {
        let bad = SequentialConfig {
            alpha: 0.0,
            ..SequentialConfig::default()
        };
        assert!(look(&[0.0; 10], &bad).is_err());
        assert!(look(&[0.0, f64::NAN], &SequentialConfig::default()).is_err());
        let l = look(&[0.01; 3], &SequentialConfig::default()).unwrap();
        assert_eq!(l.verdict, Verdict::Inconclusive);
        assert_eq!(SequentialConfig::default().for_candidates(4).alpha, 0.0125);
    }
}
