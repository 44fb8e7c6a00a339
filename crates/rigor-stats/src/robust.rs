//! Mono's robust preprocessing of runs (docs/methodology.md, "Steady state and the random initial
//! state"; Kalibera, Bulej & Tůma 2005b §4.2 and §3.1).
//!
//! The model of Kalibera, Bulej & Tůma 2005b (§3.1): m runs, n measurements each, run j's
//! measurements i.i.d. with mean μ_j and variance σ_j², the μ_j i.i.d. with mean μ and variance
//! ρ². The average of the run averages then has variance `ρ²/m + σ̄²/(mn)`, estimated by (eq. 4)
//!
//! `l_σ = u_{1−α/2} · sqrt((n·S_ρ² + S_σ²)/(m·n))`,
//!
//! with `S_ρ²` the sample variance (divisor m − 1) of the run averages, `S_σ²` the average of the
//! within-run sample variances, and u the standard normal quantile ([`plain_estimate`]).
//!
//! The robust mode (§4.2, [`robust_estimate`]) replaces each run's average and variance by
//! medians over B random sub-selections of size `n = ⌊0.75·k⌋` drawn *with replacement* from the
//! run's k measurements: M_j = median of the sub-selection means, S_σj² = median of the
//! sub-selection sample variances. The result is `M̄ = (1/m)·Σ M_j`, and the half-width is eq. 4
//! with `S_ρ² = (1/(m−1))·Σ (M_j − M̄)²`, `S_σ² = (1/m)·Σ S_σj²` and n the sub-selection size.
//!
//! Details fixed here: M_j and S_σj² come from the *same* B sub-selections (a simplification;
//! the paper draws a second set for the variances, which has the same distribution); when runs
//! differ in length, n = ⌊fraction·(shortest run)⌋ for every run; u is the normal quantile at the
//! configured level (Mono used 99 %, rigor's default is 95 %); the RNG is ChaCha8 seeded with
//! the configured seed, one stream per run, so the result is reproducible and the runs are
//! processed in parallel.
//!
//! **Breakdown.** A median over sub-selections ignores an outlier only when more than half of the
//! sub-selections miss it. One outlier among k values is missed by a sub-selection of size f·k
//! with probability (1 − 1/k)^{fk} ≈ e^{−f}, which is below 1/2 for f > ln 2 ≈ 0.69. With the
//! seed's f = 0.75 (e^{−0.75} ≈ 0.47) a single outlier per run therefore already moves M_j (by
//! about outlier/n, *more* than it moves the plain run average, outlier/k), and S_σj². Smaller
//! fractions (e.g. 0.5: e^{−0.5} ≈ 0.61) resist one outlier per run; see the tests.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::descriptive::{mean, median_in_place, variance};
use crate::dist::{Quantile, critical_value};
use crate::error::{Result, StatsError, check_finite};

/// Default number of sub-selections B per run (Kalibera, Bulej & Tůma 2005b: "e.g. 100 times").
pub const DEFAULT_SUBSAMPLES: usize = 100;

/// Default sub-selection size as a fraction of the run length (Kalibera, Bulej & Tůma 2005b:
/// "e.g. n = 0.75·k").
pub const DEFAULT_FRACTION: f64 = 0.75;

/// The seed used by [`RobustConfig::default`].
pub const DEFAULT_SEED: u64 = 0x0003_10a4;

/// Parameters of [`robust_estimate`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RobustConfig {
    /// Sub-selections per run B (default 100).
    pub subsamples: usize,
    /// Sub-selection size as a fraction of the (shortest) run length (default 0.75).
    pub fraction: f64,
    /// Confidence level of the half-width (default 0.95; Mono used 0.99).
    pub level: f64,
    /// Seed of the sub-selections (reported back).
    pub seed: u64,
}

impl Default for RobustConfig {
    fn default() -> Self {
        Self {
            subsamples: DEFAULT_SUBSAMPLES,
            fraction: DEFAULT_FRACTION,
            level: 0.95,
            seed: DEFAULT_SEED,
        }
    }
}

/// A mean and the half-width of its confidence interval by eq. 4 of Kalibera, Bulej & Tůma 2005b,
/// with the quantities that produced them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RobustEstimate {
    /// The result M̄: the mean of the per-run values M_j.
    pub mean: f64,
    /// Half-width `u·sqrt((n·S_ρ² + S_σ²)/(m·n))`.
    pub half_width: f64,
    /// Confidence level.
    pub level: f64,
    /// The normal quantile u used.
    pub u: f64,
    /// Number of runs m.
    pub runs: usize,
    /// n: the sub-selection size (robust) or the run length (plain).
    pub n: usize,
    /// Variance of the M_j (divisor m − 1).
    pub s_rho2: f64,
    /// Mean of the S_σj².
    pub s_sigma2: f64,
    /// M_j per run: median of sub-selection means (robust) or the run average (plain).
    pub run_means: Vec<f64>,
    /// S_σj² per run: median of sub-selection variances (robust) or the run variance (plain).
    pub run_variances: Vec<f64>,
    /// Sub-selections per run B (0 for the plain estimate).
    pub subsamples: usize,
    /// Seed of the sub-selections.
    pub seed: u64,
}

impl RobustEstimate {
    /// Lower and upper bounds `M̄ ∓ half-width`.
    pub fn bounds(&self) -> (f64, f64) {
        (self.mean - self.half_width, self.mean + self.half_width)
    }
}

/// Mono's robust estimate (Kalibera, Bulej & Tůma 2005b §4.2): per run, the medians of the means
/// and of the variances of B sub-selections of size ⌊fraction·k⌋ drawn with replacement; then
/// eq. 4 on those.
///
/// Errors: fewer than two runs, an empty run, a non-finite value, B = 0, a fraction outside
/// (0, 1], a sub-selection size below 2, or a level outside (0, 1).
pub fn robust_estimate<R: AsRef<[f64]> + Sync>(
    runs: &[R],
    cfg: &RobustConfig,
) -> Result<RobustEstimate> {
    let shortest = check_runs(runs)?;
    validate(cfg)?;
    let n = (cfg.fraction * shortest as f64).floor() as usize;
    if n < 2 {
        return Err(StatsError::TooFew {
            what: "a robust sub-selection (0.75 of the shortest run)",
            needed: 2,
            got: n,
        });
    }
    let per_run: Vec<(f64, f64)> = runs
        .par_iter()
        .enumerate()
        .map(|(j, r)| subselect(r.as_ref(), n, cfg, j))
        .collect();
    let (m_j, s_j): (Vec<f64>, Vec<f64>) = per_run.into_iter().unzip();
    combine(m_j, s_j, n, cfg.level, cfg.subsamples, cfg.seed)
}

/// Eq. 4 of Kalibera, Bulej & Tůma 2005b without preprocessing: M_j the run averages, S_σj² the
/// run sample variances, n the length of the shortest run (the paper assumes equal lengths).
///
/// Errors: fewer than two runs, a run with fewer than two values, a non-finite value, or a level
/// outside (0, 1).
pub fn plain_estimate<R: AsRef<[f64]>>(runs: &[R], level: f64) -> Result<RobustEstimate> {
    let shortest = check_runs(runs)?;
    if shortest < 2 {
        return Err(StatsError::TooFew {
            what: "a within-run variance",
            needed: 2,
            got: shortest,
        });
    }
    let m_j = runs.iter().map(|r| mean(r.as_ref())).collect();
    let s_j = runs.iter().map(|r| variance(r.as_ref())).collect();
    combine(m_j, s_j, shortest, level, 0, 0)
}

/// Checks the runs and returns the shortest length.
fn check_runs<R: AsRef<[f64]>>(runs: &[R]) -> Result<usize> {
    if runs.len() < 2 {
        return Err(StatsError::TooFew {
            what: "a between-run variance (runs)",
            needed: 2,
            got: runs.len(),
        });
    }
    for r in runs {
        check_finite(r.as_ref())?;
    }
    let shortest = runs.iter().map(|r| r.as_ref().len()).min().unwrap_or(0);
    if shortest == 0 {
        return Err(StatsError::TooFew {
            what: "a run",
            needed: 1,
            got: 0,
        });
    }
    Ok(shortest)
}

fn validate(cfg: &RobustConfig) -> Result<()> {
    if cfg.subsamples == 0 {
        return Err(StatsError::InvalidParameter {
            name: "sub-selections",
            value: "0".into(),
            reason: "need at least one",
        });
    }
    if !(cfg.fraction > 0.0 && cfg.fraction <= 1.0) {
        return Err(StatsError::InvalidParameter {
            name: "sub-selection fraction",
            value: cfg.fraction.to_string(),
            reason: "must lie in (0, 1]",
        });
    }
    Ok(())
}

/// (M_j, S_σj²) of one run: medians over B sub-selections of size n with replacement.
fn subselect(run: &[f64], n: usize, cfg: &RobustConfig, j: usize) -> (f64, f64) {
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    rng.set_stream(j as u64);
    let mut pick = vec![0.0; n];
    let mut means = Vec::with_capacity(cfg.subsamples);
    let mut vars = Vec::with_capacity(cfg.subsamples);
    for _ in 0..cfg.subsamples {
        for slot in &mut pick {
            *slot = run[rng.gen_range(0..run.len())];
        }
        means.push(mean(&pick));
        vars.push(variance(&pick));
    }
    (median_in_place(&mut means), median_in_place(&mut vars))
}

/// Eq. 4 from the per-run M_j and S_σj².
fn combine(
    m_j: Vec<f64>,
    s_j: Vec<f64>,
    n: usize,
    level: f64,
    subsamples: usize,
    seed: u64,
) -> Result<RobustEstimate> {
    let u = critical_value(level, 1.0, Quantile::Normal)?;
    let m = m_j.len();
    let s_rho2 = variance(&m_j);
    let s_sigma2 = mean(&s_j);
    let nf = n as f64;
    Ok(RobustEstimate {
        mean: mean(&m_j),
        half_width: u * ((nf * s_rho2 + s_sigma2) / (m as f64 * nf)).sqrt(),
        level,
        u,
        runs: m,
        n,
        s_rho2,
        s_sigma2,
        run_means: m_j,
        run_variances: s_j,
        subsamples,
        seed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_formula_by_hand() {
        // Runs (1, 3), (2, 6), (4, 8): averages 2, 4, 6 → M̄ = 4, S_ρ² = (4 + 0 + 4)/2 = 4;
        // variances 2, 8, 8 → S_σ² = 6; n = 2, m = 3:
        // l = 1.959964·sqrt((2·4 + 6)/(3·2)) = 1.959964·1.527525 = 2.993893.
        let runs = [vec![1.0, 3.0], vec![2.0, 6.0], vec![4.0, 8.0]];
        let e = plain_estimate(&runs, 0.95).unwrap();
        assert_eq!(
            (e.mean, e.s_rho2, e.s_sigma2, e.n, e.runs),
            (4.0, 4.0, 6.0, 2, 3)
        );
        assert!((e.half_width - 2.993_893).abs() < 1e-5, "{}", e.half_width);
        assert_eq!(e.bounds().0, e.mean - e.half_width);
    }

    #[test]
    fn constant_runs_and_bad_input() {
        let runs = [vec![5.0; 8], vec![7.0; 8]];
        let e = robust_estimate(&runs, &RobustConfig::default()).unwrap();
        assert_eq!(
            (e.mean, e.run_means.clone(), e.s_sigma2, e.n),
            (6.0, vec![5.0, 7.0], 0.0, 6)
        );
        assert!(robust_estimate(&runs[..1], &RobustConfig::default()).is_err());
        assert!(
            robust_estimate(&[vec![1.0, 2.0], vec![1.0, 2.0]], &RobustConfig::default()).is_err()
        );
        let bad = RobustConfig {
            fraction: 1.5,
            ..RobustConfig::default()
        };
        assert!(robust_estimate(&runs, &bad).is_err());
        let zero = RobustConfig {
            subsamples: 0,
            ..RobustConfig::default()
        };
        assert!(robust_estimate(&runs, &zero).is_err());
        assert!(plain_estimate(&[vec![1.0], vec![2.0]], 0.95).is_err());
    }
}
