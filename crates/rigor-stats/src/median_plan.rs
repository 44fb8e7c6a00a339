//! Planning an experiment for the median's own interval (docs/methodology.md, "Builds, plans and
//! adaptive runs").
//!
//! The median of an experiment is the median of the values of all its executions pooled; its
//! interval is the bootstrap's over whole executions. To first order (the influence function of
//! the median) the pooled median moves like the mean of the executions' own medians, each of
//! which varies by
//!
//! ```text
//! Var(median of execution j) = σ_b² + w / n_j
//! ```
//!
//! with σ_b² the variance between the executions' true medians, `n_j` the samples of execution
//! j and `w / n` the sampling variance of a median of `n` samples (`w = 1/(4 f(m)²)`, `f` the
//! density at the median). These are the median's variance components: σ_b² is the execution
//! level's, `w` the sample level's, and Kalibera & Jones 2013's cost-optimal allocation
//! ([`optimal_counts`](crate::design::optimal_counts)) applies to them as to the mean's `T²`.
//!
//! `w` is estimated per execution from the Maritz–Jarrett variance of its median
//! ([`median_sampling_variance`]): the variance of the median under resampling of that
//! execution's samples, computed exactly from binomial probabilities rather than by drawing
//! resamples. It was chosen over the asymptotic `1/(4 n f̂(m)²)` because that needs a density
//! estimate, whose bandwidth is a free choice and which is unstable on timings that move in
//! clock steps (many ties near the median), and over a drawn bootstrap because the exact form
//! has no resampling noise, needs no seed, and costs one pass over the sorted samples. σ_b² is
//! then the variance of the executions' medians minus the mean of their sampling variances (the
//! `T₂² = S₂² − S₁²/r₁` of the variance components, for the median), and may come out ≤ 0: the
//! executions' medians differ no more than their sampling explains.

use statrs::function::beta::checked_beta_reg;

use crate::design::LevelCost;
use crate::error::{Result, StatsError};
use crate::hierarchy::Hierarchy;

/// The Maritz–Jarrett estimate of the variance of the median of `values` (Maritz & Jarrett
/// 1978): with `x_(1) ≤ … ≤ x_(n)` the sorted values and `m = ⌈n/2⌉`, the median is taken as
/// the order statistic `x_(m)`, and its variance under resampling `n` of the values with
/// replacement is `Σ W_i x_(i)² − (Σ W_i x_(i))²` with
/// `W_i = I_{i/n}(m, n − m + 1) − I_{(i−1)/n}(m, n − m + 1)`, `I` the regularised incomplete beta
/// function: `W_i` is the probability that the resample's `m`-th smallest value is `x_(i)`. This
/// is the bootstrap variance of the median with infinitely many resamples. It is 0 when the
/// middle values tie.
///
/// # Errors
/// [`StatsError::TooFew`] for fewer than two values; [`StatsError::NonFinite`] for a value
/// that is not finite.
pub fn median_sampling_variance(values: &[f64]) -> Result<f64> {
    if values.len() < 2 {
        return Err(StatsError::TooFew {
            what: "the sampling variance of a median (values)",
            needed: 2,
            got: values.len(),
        });
    }
    if let Some(index) = values.iter().position(|v| !v.is_finite()) {
        return Err(StatsError::NonFinite {
            index,
            value: values[index],
        });
    }
    let mut x = values.to_vec();
    x.sort_by(f64::total_cmp);
    let n = x.len();
    let m = n.div_ceil(2);
    let (a, b) = (m as f64, (n - m + 1) as f64);
    let cdf = |i: usize| -> Result<f64> {
        if i == 0 {
            return Ok(0.0);
        }
        if i == n {
            return Ok(1.0);
        }
        checked_beta_reg(a, b, i as f64 / n as f64).map_err(|_| StatsError::InvalidParameter {
            name: "order statistic",
            value: format!("{m} of {n}"),
            reason: "its resampling probabilities could not be computed",
        })
    };
    // Centre on the median so that the sum of squares does not cancel.
    let centre = x[m - 1];
    let (mut first, mut second) = (0.0, 0.0);
    let mut below = 0.0;
    for (i, &xi) in x.iter().enumerate() {
        let upto = cdf(i + 1)?;
        let w = upto - below;
        below = upto;
        let d = xi - centre;
        first += w * d;
        second += w * d * d;
    }
    Ok((second - first * first).max(0.0))
}

/// The median's variance components of a two-level experiment (executions of samples), from
/// which [`MedianComponents::level_costs`] plans it. See the module documentation.
#[derive(Debug, Clone, PartialEq)]
pub struct MedianComponents {
    /// The median of each top-level unit's values.
    pub unit_medians: Vec<f64>,
    /// The number of values of each top-level unit.
    pub unit_sizes: Vec<usize>,
    /// The Maritz–Jarrett variance of each unit's median ([`median_sampling_variance`]).
    pub unit_variances: Vec<f64>,
    /// The sample variance of the units' medians.
    pub spread: f64,
    /// σ_b², the variance between the units' true medians: [`Self::spread`] minus the mean of
    /// [`Self::unit_variances`]. Raw: ≤ 0 when the units' medians differ no more than their
    /// sampling explains.
    pub between: f64,
    /// `w`, the sampling variance of one unit's median times its number of values (the
    /// mean over the units): a median of `n` values varies by `w / n` within its unit.
    pub within: f64,
}

impl MedianComponents {
    /// The predicted variance of the median of a unit of `n` values: `max(σ_b², 0) + w / n`.
    pub fn unit_variance(&self, n: usize) -> f64 {
        self.between.max(0.0) + self.within / n.max(1) as f64
    }

    /// [`Self::unit_variance`] of each measured unit, as
    /// [`top_count_with_existing`](crate::sequential::top_count_with_existing) counts them.
    pub fn existing(&self) -> Vec<f64> {
        self.unit_sizes
            .iter()
            .map(|&n| self.unit_variance(n))
            .collect()
    }

    /// The two levels with their costs (`top_cost` per unit excluding its values, `value_cost`
    /// per value) and the median's components as their `T²` (σ_b² raw, then `w`), for
    /// [`optimal_counts`](crate::design::optimal_counts).
    pub fn level_costs(&self, levels: [&str; 2], top_cost: f64, value_cost: f64) -> Vec<LevelCost> {
        vec![
            LevelCost::new(levels[0], top_cost, self.between),
            LevelCost::new(levels[1], value_cost, self.within),
        ]
    }
}

/// The median's variance components of a two-level hierarchy (see the module documentation).
///
/// # Errors
/// [`StatsError::InvalidParameter`] for a hierarchy that is not of two levels;
/// [`StatsError::TooFew`] for fewer than two top-level units or a unit of fewer than two values.
pub fn median_components(h: &Hierarchy) -> Result<MedianComponents> {
    if h.depth() != 2 {
        return Err(StatsError::InvalidParameter {
            name: "levels",
            value: h.depth().to_string(),
            reason: "the median's components are planned for executions of samples (two levels)",
        });
    }
    let r = h.units(0);
    if r < 2 {
        return Err(StatsError::TooFew {
            what: "the median's variance components (top-level units)",
            needed: 2,
            got: r,
        });
    }
    let mut unit_medians = Vec::with_capacity(r);
    let mut unit_sizes = Vec::with_capacity(r);
    let mut unit_variances = Vec::with_capacity(r);
    for u in 0..r {
        let values = h.unit_values(0, u);
        unit_medians.push(crate::descriptive::median(values));
        unit_sizes.push(values.len());
        unit_variances.push(median_sampling_variance(values)?);
    }
    let mean = unit_medians.iter().sum::<f64>() / r as f64;
    let spread = unit_medians.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (r - 1) as f64;
    let sampling = unit_variances.iter().sum::<f64>() / r as f64;
    let within = unit_variances
        .iter()
        .zip(&unit_sizes)
        .map(|(v, &n)| v * n as f64)
        .sum::<f64>()
        / r as f64;
    Ok(MedianComponents {
        unit_medians,
        unit_sizes,
        unit_variances,
        spread,
        between: spread - sampling,
        within,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::{optimal_counts, top_count_for_half_width};
    use crate::dist::Quantile;
    use crate::sequential::top_count_with_existing;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    /// Brute force: every one of the nⁿ resamples of a small sample, its `⌈n/2⌉`-th smallest
    /// value, and the variance of that over all of them.
    fn enumerated(values: &[f64]) -> f64 {
        let n = values.len();
        let m = n.div_ceil(2);
        let total = n.pow(n as u32);
        let (mut s, mut s2) = (0.0, 0.0);
        for mut code in 0..total {
            let mut draw: Vec<f64> = (0..n)
                .map(|_| {
                    let v = values[code % n];
                    code /= n;
                    v
                })
                .collect();
            draw.sort_by(f64::total_cmp);
            s += draw[m - 1];
            s2 += draw[m - 1] * draw[m - 1];
        }
        let mean = s / total as f64;
        s2 / total as f64 - mean * mean
    }

    #[test]
    fn maritz_jarrett_is_the_exact_bootstrap_variance_of_the_median() {
        for values in [
            vec![3.0, 1.0, 4.0, 1.5, 9.0],
            vec![2.0, 7.0, 1.0, 8.0, 2.5, 8.5],
            vec![1.0, 1.0, 2.0, 5.0, 5.0, 5.0, 6.0],
        ] {
            let exact = median_sampling_variance(&values).unwrap();
            let brute = enumerated(&values);
            assert!(close(exact, brute, 1e-9), "{values:?}: {exact} vs {brute}");
        }
    }

    #[test]
    fn maritz_jarrett_matches_scipy() {
        // Oracle (Python 3, scipy 1.17.1), 11 values, m = 6:
        //   import numpy as np; from scipy.stats import beta
        //   x = np.sort([10.2, 9.8, 10.5, 10.1, 9.9, 10.0, 11.3, 10.4, 9.7, 10.05, 10.3])
        //   n = len(x); m = (n + 1) // 2; c = beta.cdf(np.arange(n + 1) / n, m, n - m + 1)
        //   w = np.diff(c); print(repr((w * x**2).sum() - ((w * x).sum())**2))
        // → 0.015643728715247107
        let x = [
            10.2, 9.8, 10.5, 10.1, 9.9, 10.0, 11.3, 10.4, 9.7, 10.05, 10.3,
        ];
        let v = median_sampling_variance(&x).unwrap();
        assert!(close(v, 0.015_643_728_715_247_107, 1e-9), "{v}");
    }

    #[test]
    fn the_estimate_follows_the_asymptotic_law_on_a_known_distribution() {
        // Uniform(0, 1) quantiles (no sampling noise): f(m) = 1, so the median of n values
        // varies by 1/(4n) (1/(4 f(m)² n)); at n = 2001 that is 1.2494e-4.
        let n = 2001;
        let x: Vec<f64> = (1..=n).map(|i| i as f64 / (n + 1) as f64).collect();
        let v = median_sampling_variance(&x).unwrap();
        let asymptotic = 1.0 / (4.0 * n as f64);
        assert!(close(v, asymptotic, 0.01), "{v} vs {asymptotic}");
        // Ties at the median: no sampling variance.
        assert_eq!(median_sampling_variance(&[2.0; 9]).unwrap(), 0.0);
        assert!(median_sampling_variance(&[1.0]).is_err());
        assert!(median_sampling_variance(&[1.0, f64::NAN]).is_err());
    }

    #[test]
    fn components_and_the_plan_they_give_by_hand() {
        // Three executions of five samples each: the same five shifted by 0, 4 and 10.
        let base = [3.0, 1.0, 4.0, 1.5, 9.0];
        let groups: Vec<Vec<f64>> = [0.0, 4.0, 10.0]
            .iter()
            .map(|s| base.iter().map(|x| x + s).collect())
            .collect();
        let h = Hierarchy::two_level(["execution", "iteration"], &groups).unwrap();
        let c = median_components(&h).unwrap();
        // Medians 3, 7, 13 (mean 23/3): spread ((14/3)² + (2/3)² + (16/3)²)/2 = 76/3. Each
        // execution is the first shifted, so all three have its Maritz–Jarrett variance v,
        // 3.1498523136 (enumerated above; scipy as in the oracle test gives the same).
        assert_eq!(c.unit_medians, vec![3.0, 7.0, 13.0]);
        assert!(close(c.spread, 76.0 / 3.0, 1e-12));
        let v = 3.149_852_313_6;
        assert!(close(enumerated(&base), v, 1e-9));
        for u in &c.unit_variances {
            assert!(close(*u, v, 1e-9));
        }
        // σ_b² = 76/3 − v = 22.1834810197, w = 5v = 15.749261568.
        assert!(close(c.between, 76.0 / 3.0 - v, 1e-9));
        assert!(close(c.within, 5.0 * v, 1e-9));
        // Costs: 50 ms to start an execution, 10 µs a sample. Samples per execution:
        // sqrt((0.05/1e-5)·(15.749261568/22.1834810197)) = 59.5799661 → 60.
        let plan = optimal_counts(&c.level_costs(["execution", "iteration"], 0.05, 1e-5)).unwrap();
        assert!(
            close(plan.raw[0], 59.579_966_121_556, 1e-9),
            "{}",
            plan.raw[0]
        );
        assert_eq!(plan.counts, vec![60]);
        // Executions for ±2.3 at 95% (t), counted by hand (numpy/scipy, the t quantile with
        // N − 1 degrees of freedom): a new execution's median varies by σ_b² + w/60 =
        // 22.4459687125, each measured one by σ_b² + w/5 = 76/3. With the three measured:
        // N = 19 gives 2.1009220·sqrt((76 + 16·22.4459687)/19²) = 2.30658 > 2.3, N = 20 gives
        // 2.0930241·sqrt((76 + 17·22.4459687)/20²) = 2.23861.
        let n =
            top_count_with_existing(&c.existing(), &plan, 2.3, 0.95, Quantile::StudentT).unwrap();
        assert_eq!(n, 20);
        // From scratch: 2.1009220·sqrt(22.4459687/19) = 2.28351 ≤ 2.3 at N = 19, and
        // 2.1098156·sqrt(22.4459687/18) = 2.35601 at N = 18.
        assert_eq!(
            top_count_for_half_width(&plan, 2.3, 0.95, Quantile::StudentT).unwrap(),
            19
        );
    }

    #[test]
    fn components_need_two_levels_and_two_units() {
        let flat = Hierarchy::flat("execution", vec![1.0, 2.0, 3.0]).unwrap();
        assert!(median_components(&flat).is_err());
        let one = Hierarchy::two_level(["execution", "iteration"], &[vec![1.0, 2.0]]).unwrap();
        assert!(median_components(&one).is_err());
    }
}
