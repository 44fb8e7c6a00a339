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
//! **Estimation: split halves.** Each execution's samples are split into the ones at even and
//! at odd positions, and the median of each half taken (`a_j`, `b_j`). The two halves share
//! the execution's level and are sampled independently, so
//! - `a_j − b_j` has variance `2·w/(n_j/2)`, free of σ_b²: `w = mean_j(n_j·(a_j − b_j)²/4)`;
//! - the covariance of `a_j` and `b_j` across executions is σ_b² itself.
//!
//! Both are unbiased whatever the samples' distribution, need no density estimate and no
//! resampling. The alternatives were worse on the sizes an adaptive pilot has: the asymptotic
//! `1/(4 n f̂(m)²)` needs a density estimate whose bandwidth is a free choice and which is
//! unstable on timings that move in clock steps (ties near the median); and the bootstrap
//! variance of a median (computed exactly, Maritz & Jarrett 1978) overestimates it — by 30% at
//! 10 normal samples and 9% at 100 (simulated, 20,000 samples of each) — which, subtracted from
//! the variance of the executions' medians, sent σ_b² below 0 whenever the samples' noise
//! dominated. Interleaved halves see a drift within an execution alike; correlated neighbours
//! (samples not independent) make the halves' medians agree more than independent ones would,
//! so `w` comes out low and σ_b² high, and the plan takes fewer samples per execution than
//! optimal — never an interval too narrow, since the interval itself is the bootstrap's over
//! executions.

use crate::descriptive::median;
use crate::design::LevelCost;
use crate::error::{Result, StatsError};
use crate::hierarchy::Hierarchy;

/// The median's variance components of a two-level experiment (executions of samples), from
/// which [`MedianComponents::level_costs`] plans it. See the module documentation.
#[derive(Debug, Clone, PartialEq)]
pub struct MedianComponents {
    /// The number of values of each top-level unit.
    pub unit_sizes: Vec<usize>,
    /// Per unit, the medians of its values at even and at odd positions.
    pub half_medians: Vec<(f64, f64)>,
    /// σ_b², the variance between the units' true medians: the covariance of the two halves'
    /// medians across units. Raw: ≤ 0 when the units' medians differ no more than their
    /// sampling explains.
    pub between: f64,
    /// `w`: a median of `n` values varies by `w / n` within its unit (the mean over the units
    /// of `n_j·(a_j − b_j)²/4`).
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

/// The median's variance components of a two-level hierarchy, from split halves (see the
/// module documentation).
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
    let mut unit_sizes = Vec::with_capacity(r);
    let mut half_medians = Vec::with_capacity(r);
    for u in 0..r {
        let values = h.unit_values(0, u);
        if values.len() < 2 {
            return Err(StatsError::TooFew {
                what: "the median's variance components (values in a unit)",
                needed: 2,
                got: values.len(),
            });
        }
        let even: Vec<f64> = values.iter().step_by(2).copied().collect();
        let odd: Vec<f64> = values.iter().skip(1).step_by(2).copied().collect();
        unit_sizes.push(values.len());
        half_medians.push((median(&even), median(&odd)));
    }
    let (mean_a, mean_b) = half_medians
        .iter()
        .fold((0.0, 0.0), |(sa, sb), (a, b)| (sa + a, sb + b));
    let (mean_a, mean_b) = (mean_a / r as f64, mean_b / r as f64);
    let between = half_medians
        .iter()
        .map(|(a, b)| (a - mean_a) * (b - mean_b))
        .sum::<f64>()
        / (r - 1) as f64;
    let within = half_medians
        .iter()
        .zip(&unit_sizes)
        .map(|((a, b), &n)| n as f64 * (a - b).powi(2) / 4.0)
        .sum::<f64>()
        / r as f64;
    Ok(MedianComponents {
        unit_sizes,
        half_medians,
        between,
        within,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::optimal_counts;
    use crate::dist::Quantile;
    use crate::sequential::top_count_with_existing;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    /// Four executions of 6–8 samples, in run order.
    fn groups() -> Vec<Vec<f64>> {
        vec![
            vec![10.0, 10.4, 9.9, 10.2, 10.1, 10.6, 9.8],
            vec![11.0, 11.3, 10.8, 11.1, 11.4, 10.9],
            vec![9.5, 9.9, 9.6, 9.4, 9.8, 10.0, 9.7, 9.6],
            vec![10.5, 10.2, 10.7, 10.4, 10.3, 10.6],
        ]
    }

    #[test]
    fn split_half_components_match_numpy() {
        // Oracle (Python 3, numpy), G = groups() above:
        //   A = [np.median(g[0::2]) for g in G]; B = [np.median(g[1::2]) for g in G]
        //   n = [len(g) for g in G]
        //   between = np.cov(A, B)[0, 1]; within = np.mean(n * (A - B)**2 / 4)
        // → A = (9.95, 11, 9.65, 10.5), B = (10.4, 11.1, 9.75, 10.4),
        //   between 0.30458333333333354, within 0.10109375000000051.
        let h = Hierarchy::two_level(["execution", "iteration"], &groups()).unwrap();
        let c = median_components(&h).unwrap();
        let expected = [(9.95, 10.4), (11.0, 11.1), (9.65, 9.75), (10.5, 10.4)];
        for (got, want) in c.half_medians.iter().zip(expected) {
            assert!(
                close(got.0, want.0, 1e-12) && close(got.1, want.1, 1e-12),
                "{got:?}"
            );
        }
        assert_eq!(c.unit_sizes, vec![7, 6, 8, 6]);
        assert!(
            close(c.between, 0.304_583_333_333_333_54, 1e-12),
            "{}",
            c.between
        );
        assert!(
            close(c.within, 0.101_093_750_000_000_51, 1e-12),
            "{}",
            c.within
        );
    }

    #[test]
    fn split_half_components_recover_a_known_distribution() {
        // 400 executions of 100 normal samples (σ = 1) around levels that vary by σ_b = 0.3
        // (seeded): the median of n normal samples varies by (π/2)/n for large n (1/(4 f(m)²),
        // f(m) = 1/√(2π)), so w ≈ π/2 = 1.5708 (a median of 50 values, the halves here: 1.55 by
        // simulation); σ_b² = 0.09.
        let mut rng = ChaCha8Rng::seed_from_u64(30);
        let mut normal = move || {
            // Box–Muller.
            let (u, v): (f64, f64) = (rng.r#gen(), rng.r#gen());
            (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        let groups: Vec<Vec<f64>> = (0..400)
            .map(|_| {
                let level = 0.3 * normal();
                (0..100).map(|_| level + normal()).collect()
            })
            .collect();
        let h = Hierarchy::two_level(["execution", "iteration"], &groups).unwrap();
        let c = median_components(&h).unwrap();
        assert!(
            close(c.within, std::f64::consts::FRAC_PI_2, 0.08),
            "{}",
            c.within
        );
        assert!((c.between - 0.09).abs() < 0.025, "{}", c.between);
    }

    #[test]
    fn components_and_the_plan_they_give_by_hand() {
        let h = Hierarchy::two_level(["execution", "iteration"], &groups()).unwrap();
        let c = median_components(&h).unwrap();
        // Costs: 50 ms to start an execution, 20 µs a sample. Samples per execution:
        // sqrt((0.05/2e-5)·(0.10109375/0.30458333)) = 28.8057 → 29.
        let plan = optimal_counts(&c.level_costs(["execution", "iteration"], 0.05, 2e-5)).unwrap();
        assert!(
            close(plan.raw[0], 28.805_743_556_331_073, 1e-9),
            "{}",
            plan.raw[0]
        );
        assert_eq!(plan.counts, vec![29]);
        // Executions for ±0.3 at 95% (t), counted by hand (numpy/scipy): a new execution's
        // median varies by σ_b² + w/29 = 0.30806932, the four measured ones by σ_b² + w/n_j
        // (sum 1.27910993). N = 15 gives 2.1447867·sqrt((1.27910993 + 11·0.30806932)/15²) =
        // 0.30892 > 0.3; N = 16 gives 2.1314495·sqrt((1.27910993 + 12·0.30806932)/16²) =
        // 0.29716.
        assert!(close(c.unit_variance(29), 0.308_069_324_712_643_9, 1e-9));
        let n =
            top_count_with_existing(&c.existing(), &plan, 0.3, 0.95, Quantile::StudentT).unwrap();
        assert_eq!(n, 16);
    }

    #[test]
    fn components_need_two_levels_two_units_and_two_values_each() {
        let flat = Hierarchy::flat("execution", vec![1.0, 2.0, 3.0]).unwrap();
        assert!(median_components(&flat).is_err());
        let one = Hierarchy::two_level(["execution", "iteration"], &[vec![1.0, 2.0]]).unwrap();
        assert!(median_components(&one).is_err());
        let single =
            Hierarchy::two_level(["execution", "iteration"], &[vec![1.0, 2.0], vec![3.0]]).unwrap();
        assert!(median_components(&single).is_err());
    }
}
