//! Impact factor of the random initial state (docs/methodology.md, "Steady state and the random
//! initial state"; Kalibera, Bulej & Tůma 2005a, Fig. 2).
//!
//! Given m runs (process executions) of n samples each, repeat k times:
//!
//! 1. pick c runs without replacement and one random sample from each → SD1 (sample SD of the c
//!    values: variation *between* runs);
//! 2. pick one run at random and c of its samples without replacement → SD2 (variation *within*
//!    a run);
//! 3. record SD1/SD2.
//!
//! The impact factor is the median of the k ratios. Under the additive model (run effect with
//! variance σ_run² plus independent noise σ_within²) it estimates `sqrt(1 + σ_run²/σ_within²)`; a
//! value near 1 means the runs do not differ. Defaults: k = 10,000 and c = ⌊0.75·min(m, n)⌋
//! (n the shortest run's length when runs differ in length).
//!
//! The additive-model check ([`impact_factor_centred`]) subtracts each run's mean from its samples
//! first: a value near 1 on the centred data means the additive model fits (Kalibera, Bulej &
//! Tůma 2005a, Table 3).
//!
//! The clustering additive filter (Kalibera, Bulej & Tůma 2005b §4.1, a Gaussian mixture chosen by
//! BIC) is in [`crate::mixture`], and the Mono robust preprocessing (Kalibera, Bulej & Tůma 2005b
//! §4.2) in [`crate::robust`].
//!
//! Iterations with SD2 = 0 (a run whose chosen samples are all equal, e.g. on a coarse timer) have
//! no ratio; they are skipped and counted in [`ImpactFactor::skipped`].

use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::descriptive::{mean, median_in_place, std_dev};
use crate::error::{Result, StatsError, check_finite};
use crate::hierarchy::Hierarchy;

/// The default number of iterations k.
pub const DEFAULT_ITERATIONS: usize = 10_000;

/// The seed used by [`ImpactConfig::default`].
pub const DEFAULT_SEED: u64 = 0x0001_f579;

/// Parameters of the impact-factor computation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImpactConfig {
    /// Number of iterations k (default 10,000).
    pub k: usize,
    /// Samples per standard deviation c; `None` for ⌊0.75·min(runs, samples per run)⌋.
    pub c: Option<usize>,
    /// Seed of the random stream (reported back).
    pub seed: u64,
}

impl Default for ImpactConfig {
    fn default() -> Self {
        Self {
            k: DEFAULT_ITERATIONS,
            c: None,
            seed: DEFAULT_SEED,
        }
    }
}

/// The impact factor and the parameters that reproduce it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ImpactFactor {
    /// Median of the SD1/SD2 ratios.
    pub value: f64,
    /// Number of iterations k.
    pub k: usize,
    /// Samples per standard deviation c.
    pub c: usize,
    /// The seed used.
    pub seed: u64,
    /// Iterations skipped because SD2 was 0.
    pub skipped: usize,
    /// Whether each run's mean was subtracted first (the additive-model check).
    pub centred: bool,
}

/// The default c = ⌊0.75·min(runs, samples per run)⌋.
pub fn default_c(runs: usize, samples_per_run: usize) -> usize {
    3 * runs.min(samples_per_run) / 4
}

/// Impact factor of runs given as slices of samples (docs/methodology.md, "Steady state and the
/// random initial state").
///
/// Errors: fewer than two runs, an empty run, a non-finite value, c outside
/// [2, min(runs, shortest run)], k = 0, or every iteration having SD2 = 0.
pub fn impact_factor<R: AsRef<[f64]>>(runs: &[R], cfg: &ImpactConfig) -> Result<ImpactFactor> {
    let runs: Vec<&[f64]> = runs.iter().map(AsRef::as_ref).collect();
    compute(&runs, cfg, false)
}

/// Impact factor after subtracting each run's mean from its samples: the additive-model check.
pub fn impact_factor_centred<R: AsRef<[f64]>>(
    runs: &[R],
    cfg: &ImpactConfig,
) -> Result<ImpactFactor> {
    let centred: Vec<Vec<f64>> = runs
        .iter()
        .map(|r| {
            let m = mean(r.as_ref());
            r.as_ref().iter().map(|v| v - m).collect()
        })
        .collect();
    let runs: Vec<&[f64]> = centred.iter().map(Vec::as_slice).collect();
    compute(&runs, cfg, true)
}

/// [`impact_factor`] of a two-level hierarchy: runs × samples.
pub fn impact_factor_of(h: &Hierarchy, cfg: &ImpactConfig) -> Result<ImpactFactor> {
    impact_factor(&runs_of(h)?, cfg)
}

/// [`impact_factor_centred`] of a two-level hierarchy: runs × samples.
pub fn impact_factor_centred_of(h: &Hierarchy, cfg: &ImpactConfig) -> Result<ImpactFactor> {
    impact_factor_centred(&runs_of(h)?, cfg)
}

fn runs_of(h: &Hierarchy) -> Result<Vec<&[f64]>> {
    if h.depth() != 2 {
        return Err(StatsError::Shape(format!(
            "the impact factor needs two levels (runs × samples), got {}",
            h.depth()
        )));
    }
    Ok((0..h.units(0)).map(|i| h.unit_values(0, i)).collect())
}

fn compute(runs: &[&[f64]], cfg: &ImpactConfig, centred: bool) -> Result<ImpactFactor> {
    let c = check(runs, cfg)?;
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let mut ratios = Vec::with_capacity(cfg.k);
    let mut picked = vec![0.0; c];
    for _ in 0..cfg.k {
        for (slot, r) in picked.iter_mut().zip(sample(&mut rng, runs.len(), c)) {
            *slot = runs[r][rng.gen_range(0..runs[r].len())];
        }
        let sd1 = std_dev(&picked);
        let run = runs[rng.gen_range(0..runs.len())];
        for (slot, j) in picked.iter_mut().zip(sample(&mut rng, run.len(), c)) {
            *slot = run[j];
        }
        let sd2 = std_dev(&picked);
        if sd2 > 0.0 {
            ratios.push(sd1 / sd2);
        }
    }
    if ratios.is_empty() {
        return Err(StatsError::InvalidParameter {
            name: "runs",
            value: format!("{} runs", runs.len()),
            reason: "every within-run standard deviation was 0",
        });
    }
    Ok(ImpactFactor {
        value: median_in_place(&mut ratios),
        k: cfg.k,
        c,
        seed: cfg.seed,
        skipped: cfg.k - ratios.len(),
        centred,
    })
}

/// Validates the input and returns c.
fn check(runs: &[&[f64]], cfg: &ImpactConfig) -> Result<usize> {
    if runs.len() < 2 {
        return Err(StatsError::TooFew {
            what: "an impact factor (runs)",
            needed: 2,
            got: runs.len(),
        });
    }
    for run in runs {
        check_finite(run)?;
    }
    let shortest = runs.iter().map(|r| r.len()).min().unwrap_or(0);
    let c = cfg.c.unwrap_or_else(|| default_c(runs.len(), shortest));
    if c < 2 || c > runs.len().min(shortest) {
        return Err(StatsError::InvalidParameter {
            name: "c (samples per standard deviation)",
            value: c.to_string(),
            reason: "must lie in [2, min(runs, samples in the shortest run)]",
        });
    }
    if cfg.k == 0 {
        return Err(StatsError::InvalidParameter {
            name: "k (iterations)",
            value: "0".into(),
            reason: "need at least one iteration",
        });
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_c_is_three_quarters_of_the_smaller_count() {
        assert_eq!(default_c(100, 2000), 75);
        assert_eq!(default_c(30, 200), 22);
        assert_eq!(default_c(10, 3), 2);
    }

    #[test]
    fn rejects_bad_input() {
        let cfg = ImpactConfig::default();
        assert!(impact_factor(&[vec![1.0, 2.0]], &cfg).is_err());
        assert!(impact_factor(&[vec![1.0, 2.0], vec![]], &cfg).is_err());
        assert!(impact_factor(&[vec![1.0, 2.0], vec![1.0, f64::NAN]], &cfg).is_err());
        let too_big = ImpactConfig { c: Some(3), ..cfg };
        assert!(impact_factor(&[vec![1.0, 2.0, 3.0], vec![1.0, 2.0, 3.0]], &too_big).is_err());
        let constant = vec![vec![1.0; 4]; 4];
        let two = ImpactConfig { c: Some(2), ..cfg };
        assert!(impact_factor(&constant, &two).is_err());
        let three = Hierarchy::three_level(["b", "e", "i"], &[vec![vec![1.0]], vec![vec![2.0]]]);
        assert!(impact_factor_of(&three.unwrap(), &cfg).is_err());
    }

    #[test]
    fn reproducible_and_reports_parameters() {
        let runs: Vec<Vec<f64>> = (0..8)
            .map(|r| (0..12).map(|j| f64::from(r * 7 + j * 13 % 11)).collect())
            .collect();
        let cfg = ImpactConfig {
            k: 500,
            c: None,
            seed: 42,
        };
        let a = impact_factor(&runs, &cfg).unwrap();
        assert_eq!(a, impact_factor(&runs, &cfg).unwrap());
        assert_eq!((a.k, a.c, a.seed, a.centred), (500, 6, 42, false));
        assert!(impact_factor_centred(&runs, &cfg).unwrap().centred);
    }
}
