//! One-dimensional Gaussian mixtures chosen by BIC, and the clustering additive filter of the
//! impact factor (docs/methodology.md, "Steady state and the random initial state"; Kalibera, Bulej
//! & Tůma 2005b §4.1).
//!
//! Within one run the measured times often gather around a few typical values ("horizontal
//! stripes" in the run-sequence plot of Kalibera, Bulej & Tůma 2005b, Fig. 1) that differ between
//! runs. The clustering additive filter splits each run's values into such clusters, subtracts
//! each cluster's average from its values, and recomputes the impact factor: a value near 1
//! afterwards means the additive model holds within clusters.
//!
//! The clusters come from a Gaussian mixture fitted by EM, as mclust does (Fraley & Raftery 2002):
//!
//! * models ([`VarianceModel`]): mclust's univariate "E" (one variance shared by all components)
//!   and "V" (a variance per component); both are tried by default, as mclust does. With a few
//!   hundred values or fewer, "V" can win with a spurious narrow component on a chance tight group
//!   of values; [`ModelSet::Equal`] avoids that and matches the observation of Kalibera, Bulej &
//!   Tůma 2005b that the clusters have about the same variance;
//! * K = 1..=9 components; the (model, K) with the highest
//!   `BIC = 2·ln L − p·ln n` is chosen (mclust's sign convention), p = 2K for "E" (K means, one
//!   variance, K − 1 weights) and 3K − 1 for "V"; ties go to the simpler model;
//! * a fit whose component variance collapses (below `min_variance` × the data variance, e.g. a
//!   component sitting on one repeated timer value) or whose component empties is *singular* and
//!   left out, as mclust reports BIC = NA for it;
//! * initialisation is deterministic: the sorted values are cut into K groups of equal count, whose
//!   means start the component means (weights 1/K, variances the pooled within-group variance),
//!   so the result does not depend on a seed or on the order of the values;
//! * EM runs on the standardised values `(x − x̄)/s` and the parameters are transformed back; the
//!   log-likelihood is reported on the original scale (`ln L_x = ln L_z − n·ln s`).
//!
//! Each value is assigned to the component with the highest posterior probability, and the
//! filter subtracts the *average of the values assigned to that cluster* (Kalibera, Bulej & Tůma
//! 2005b: "the average of durations from the cluster is subtracted from each duration in the
//! cluster").

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Result, StatsError, check_finite, invalid};
use crate::impact::{ImpactConfig, ImpactFactor, impact_factor};

/// Default largest number of components (mclust's default G = 1:9).
pub const DEFAULT_MAX_K: usize = 9;

/// mclust's univariate covariance models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VarianceModel {
    /// "E": every component has the same variance (Kalibera, Bulej & Tůma 2005b: the clusters
    /// "appear to have the same, or at least very similar, variance").
    Equal,
    /// "V": each component has its own variance.
    Unequal,
}

/// Which models [`select_mixture`] tries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelSet {
    /// Both "E" and "V" (mclust's default for univariate data).
    #[default]
    Both,
    /// Only "E".
    Equal,
    /// Only "V".
    Unequal,
}

impl ModelSet {
    fn models(self) -> &'static [VarianceModel] {
        match self {
            Self::Both => &[VarianceModel::Equal, VarianceModel::Unequal],
            Self::Equal => &[VarianceModel::Equal],
            Self::Unequal => &[VarianceModel::Unequal],
        }
    }
}

/// Parameters of the mixture fit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MixtureConfig {
    /// Largest K tried (default 9).
    pub max_k: usize,
    /// Models tried (default both).
    pub models: ModelSet,
    /// Most EM iterations per fit (default 1000).
    pub max_iter: usize,
    /// EM stops when the log-likelihood changes by at most `tol`·(1 + |ln L|) (default 1e−5, as
    /// mclust's relative tolerance).
    pub tol: f64,
    /// Smallest component variance as a fraction of the data variance; below it the fit is
    /// singular (default 1e−6).
    pub min_variance: f64,
}

impl Default for MixtureConfig {
    fn default() -> Self {
        Self {
            max_k: DEFAULT_MAX_K,
            models: ModelSet::Both,
            max_iter: 1000,
            tol: 1e-5,
            min_variance: 1e-6,
        }
    }
}

impl MixtureConfig {
    fn validate(&self) -> Result<()> {
        if self.max_k == 0 {
            return Err(invalid("maximum K", 0.0, "must be at least 1"));
        }
        if self.max_iter == 0 {
            return Err(invalid("EM iterations", 0.0, "must be at least 1"));
        }
        if !(self.tol > 0.0 && self.tol.is_finite()) {
            return Err(invalid("EM tolerance", self.tol, "must be positive"));
        }
        if !(self.min_variance > 0.0 && self.min_variance < 1.0) {
            return Err(invalid(
                "minimum variance",
                self.min_variance,
                "must lie in (0, 1)",
            ));
        }
        Ok(())
    }
}

/// A fitted one-dimensional Gaussian mixture, in the units of the data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mixture {
    /// The variance model.
    pub model: VarianceModel,
    /// Component weights (sum 1).
    pub weights: Vec<f64>,
    /// Component means.
    pub means: Vec<f64>,
    /// Component variances (all equal for [`VarianceModel::Equal`]).
    pub variances: Vec<f64>,
    /// Maximised log-likelihood ln L (NaN for constant data).
    pub log_likelihood: f64,
    /// Number of free parameters p.
    pub parameters: usize,
    /// `2·ln L − p·ln n` (higher is better; NaN for constant data).
    pub bic: f64,
    /// EM iterations run.
    pub iterations: usize,
    /// Whether EM met the tolerance before `max_iter`.
    pub converged: bool,
}

impl Mixture {
    /// Number of components K.
    pub fn k(&self) -> usize {
        self.means.len()
    }

    /// The component with the highest posterior probability for `x`.
    pub fn assign(&self, x: f64) -> usize {
        let mut best = (f64::NEG_INFINITY, 0);
        for j in 0..self.k() {
            let l = log_density(x, self.weights[j], self.means[j], self.variances[j]);
            if l > best.0 {
                best = (l, j);
            }
        }
        best.1
    }

    /// [`Mixture::assign`] for every value.
    pub fn classify(&self, values: &[f64]) -> Vec<usize> {
        values.iter().map(|&x| self.assign(x)).collect()
    }
}

/// `ln(w·N(x; μ, σ²))`; for σ² = 0 (constant data) 0 at μ and −∞ elsewhere.
fn log_density(x: f64, w: f64, mu: f64, var: f64) -> f64 {
    if var <= 0.0 {
        return if x == mu { 0.0 } else { f64::NEG_INFINITY };
    }
    w.ln() - 0.5 * (2.0 * std::f64::consts::PI * var).ln() - (x - mu) * (x - mu) / (2.0 * var)
}

/// Number of free parameters of a model with K components.
pub fn parameter_count(k: usize, model: VarianceModel) -> usize {
    match model {
        VarianceModel::Equal => 2 * k,
        VarianceModel::Unequal => 3 * k - 1,
    }
}

/// Fits a K-component mixture of the given model by EM (deterministic start, see the module
/// documentation). `Ok(None)` when the fit is singular (a component variance collapses or a
/// component empties) or has at least as many parameters as values.
///
/// Errors: no values, a non-finite value, K = 0, or an invalid configuration.
pub fn fit_mixture(
    values: &[f64],
    k: usize,
    model: VarianceModel,
    cfg: &MixtureConfig,
) -> Result<Option<Mixture>> {
    cfg.validate()?;
    check_values(values)?;
    if k == 0 {
        return Err(invalid("K", 0.0, "must be at least 1"));
    }
    let Some(scale) = Scale::of(values) else {
        return Ok((k == 1).then(|| constant(values[0], model)));
    };
    if parameter_count(k, model) >= values.len() {
        return Ok(None);
    }
    let z: Vec<f64> = values.iter().map(|&x| scale.to_z(x)).collect();
    Ok(em(&z, k, model, cfg).map(|fit| scale.mixture(fit, model, values.len())))
}

/// The mixture with the highest BIC over K = 1..=`max_k` and the configured models.
///
/// Errors: no values, a non-finite value, or an invalid configuration.
pub fn select_mixture(values: &[f64], cfg: &MixtureConfig) -> Result<Mixture> {
    cfg.validate()?;
    check_values(values)?;
    if Scale::of(values).is_none() {
        return Ok(constant(values[0], cfg.models.models()[0]));
    }
    let mut best: Option<Mixture> = None;
    for k in 1..=cfg.max_k {
        for &model in cfg.models.models() {
            if k == 1 && model == VarianceModel::Unequal && cfg.models == ModelSet::Both {
                continue; // identical to "E" with one component
            }
            if let Some(m) = fit_mixture(values, k, model, cfg)? {
                if best.as_ref().is_none_or(|b| m.bic > b.bic) {
                    best = Some(m);
                }
            }
        }
    }
    best.ok_or(StatsError::TooFew {
        what: "a Gaussian mixture",
        needed: 3,
        got: values.len(),
    })
}

fn check_values(values: &[f64]) -> Result<()> {
    if values.is_empty() {
        return Err(StatsError::TooFew {
            what: "a Gaussian mixture",
            needed: 1,
            got: 0,
        });
    }
    check_finite(values)
}

/// The one-component "mixture" of constant data.
fn constant(value: f64, model: VarianceModel) -> Mixture {
    Mixture {
        model,
        weights: vec![1.0],
        means: vec![value],
        variances: vec![0.0],
        log_likelihood: f64::NAN,
        parameters: 2,
        bic: f64::NAN,
        iterations: 0,
        converged: true,
    }
}

/// Standardisation `z = (x − x̄)/s` (s the population SD).
struct Scale {
    mean: f64,
    sd: f64,
}

impl Scale {
    /// `None` when every value is equal.
    fn of(values: &[f64]) -> Option<Self> {
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let sd = (values.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n).sqrt();
        (sd > 0.0).then_some(Self { mean, sd })
    }

    fn to_z(&self, x: f64) -> f64 {
        (x - self.mean) / self.sd
    }

    /// Back to the data's units.
    fn mixture(&self, fit: Fit, model: VarianceModel, n: usize) -> Mixture {
        let log_likelihood = fit.log_likelihood - n as f64 * self.sd.ln();
        let parameters = parameter_count(fit.means.len(), model);
        Mixture {
            model,
            means: fit.means.iter().map(|m| self.mean + self.sd * m).collect(),
            variances: fit
                .variances
                .iter()
                .map(|v| v * self.sd * self.sd)
                .collect(),
            weights: fit.weights,
            log_likelihood,
            parameters,
            bic: 2.0 * log_likelihood - parameters as f64 * (n as f64).ln(),
            iterations: fit.iterations,
            converged: fit.converged,
        }
    }
}

/// A fit on the standardised scale.
struct Fit {
    weights: Vec<f64>,
    means: Vec<f64>,
    variances: Vec<f64>,
    log_likelihood: f64,
    iterations: usize,
    converged: bool,
}

/// EM from the quantile-group start; `None` when singular.
fn em(z: &[f64], k: usize, model: VarianceModel, cfg: &MixtureConfig) -> Option<Fit> {
    let mut fit = initial(z, k);
    let mut resp = vec![0.0; z.len() * k];
    let mut previous = f64::NEG_INFINITY;
    for iteration in 1..=cfg.max_iter {
        let ll = e_step(z, &fit, &mut resp);
        fit.log_likelihood = ll;
        fit.iterations = iteration;
        if (ll - previous).abs() <= cfg.tol * (1.0 + ll.abs()) {
            fit.converged = true;
            return Some(fit);
        }
        previous = ll;
        m_step(z, &resp, model, cfg.min_variance, &mut fit)?;
    }
    fit.log_likelihood = e_step(z, &fit, &mut resp);
    Some(fit)
}

/// Component means from K equal-count groups of the sorted values; weights 1/K; every variance
/// the pooled within-group variance (at least 1e−4 on the standardised scale).
fn initial(z: &[f64], k: usize) -> Fit {
    let mut sorted = z.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let n = sorted.len();
    let mut means = Vec::with_capacity(k);
    let mut ss = 0.0;
    for j in 0..k {
        let group = &sorted[j * n / k..((j + 1) * n / k).max(j * n / k + 1).min(n)];
        let m = group.iter().sum::<f64>() / group.len() as f64;
        ss += group.iter().map(|x| (x - m) * (x - m)).sum::<f64>();
        means.push(m);
    }
    let var = (ss / n as f64).max(1e-4);
    Fit {
        weights: vec![1.0 / k as f64; k],
        means,
        variances: vec![var; k],
        log_likelihood: f64::NEG_INFINITY,
        iterations: 0,
        converged: false,
    }
}

/// Posterior probabilities (row-major n × K) and the log-likelihood, by log-sum-exp.
fn e_step(z: &[f64], fit: &Fit, resp: &mut [f64]) -> f64 {
    let k = fit.means.len();
    // ln(w_j·N(x; μ_j, σ_j²)) = a_j − (x − μ_j)²·b_j
    let a: Vec<f64> = (0..k)
        .map(|j| fit.weights[j].ln() - 0.5 * (2.0 * std::f64::consts::PI * fit.variances[j]).ln())
        .collect();
    let b: Vec<f64> = fit.variances.iter().map(|v| 0.5 / v).collect();
    let mut ll = 0.0;
    for (x, row) in z.iter().zip(resp.chunks_mut(k)) {
        let mut top = f64::NEG_INFINITY;
        for (j, r) in row.iter_mut().enumerate() {
            let d = x - fit.means[j];
            *r = a[j] - d * d * b[j];
            top = top.max(*r);
        }
        let mut sum = 0.0;
        for r in row.iter_mut() {
            *r = (*r - top).exp();
            sum += *r;
        }
        for r in row.iter_mut() {
            *r /= sum;
        }
        ll += top + sum.ln();
    }
    ll
}

/// Weights, means and variances from the posteriors; `None` when a component empties or its
/// variance falls below `min_variance` (the standardised data have variance 1).
fn m_step(
    z: &[f64],
    resp: &[f64],
    model: VarianceModel,
    min_variance: f64,
    fit: &mut Fit,
) -> Option<()> {
    let (n, k) = (z.len(), fit.means.len());
    let mut pooled = 0.0;
    for j in 0..k {
        let column = || resp.iter().skip(j).step_by(k);
        let nj: f64 = column().sum();
        if nj < 1e-8 * n as f64 {
            return None;
        }
        let mu = column().zip(z).map(|(r, x)| r * x).sum::<f64>() / nj;
        let ss = column()
            .zip(z)
            .map(|(r, x)| r * (x - mu) * (x - mu))
            .sum::<f64>();
        (fit.weights[j], fit.means[j], fit.variances[j]) = (nj / n as f64, mu, ss / nj);
        pooled += ss;
    }
    if model == VarianceModel::Equal {
        fit.variances.fill(pooled / n as f64);
    }
    fit.variances
        .iter()
        .all(|&v| v >= min_variance)
        .then_some(())
}

/// The clustering additive filter applied to one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterFilter {
    /// Each value minus the average of its cluster.
    pub values: Vec<f64>,
    /// The cluster (component) of each value.
    pub labels: Vec<usize>,
    /// Average of the values in each cluster (NaN for a component no value was assigned to).
    pub cluster_means: Vec<f64>,
    /// The mixture chosen by BIC.
    pub mixture: Mixture,
}

/// Splits `values` into clusters by the BIC-best mixture ([`select_mixture`]) and subtracts from
/// each value the average of the values in its cluster (Kalibera, Bulej & Tůma 2005b §4.1).
pub fn cluster_filter(values: &[f64], cfg: &MixtureConfig) -> Result<ClusterFilter> {
    let mixture = select_mixture(values, cfg)?;
    let labels = mixture.classify(values);
    let mut sums = vec![(0.0, 0usize); mixture.k()];
    for (&x, &l) in values.iter().zip(&labels) {
        sums[l].0 += x;
        sums[l].1 += 1;
    }
    let cluster_means: Vec<f64> = sums.iter().map(|&(s, c)| s / c as f64).collect();
    Ok(ClusterFilter {
        values: values
            .iter()
            .zip(&labels)
            .map(|(x, &l)| x - cluster_means[l])
            .collect(),
        labels,
        cluster_means,
        mixture,
    })
}

/// The impact factor after the clustering additive filter, with the clusters found per run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusteredImpact {
    /// Impact factor of the filtered runs ([`crate::impact::impact_factor`]); `centred` is set,
    /// the values having been centred per cluster.
    pub impact: ImpactFactor,
    /// Number of clusters chosen in each run.
    pub clusters: Vec<usize>,
}

/// The clustering additive filter of Kalibera, Bulej & Tůma 2005b §4.1 (docs/methodology.md,
/// "Steady state and the random initial state"): per run, [`cluster_filter`]; then the impact
/// factor of the filtered runs. A value near 1 means the additive model fits within clusters. Runs
/// are filtered in parallel.
///
/// Errors: those of [`select_mixture`] for any run and of [`crate::impact::impact_factor`].
pub fn impact_factor_clustered<R: AsRef<[f64]> + Sync>(
    runs: &[R],
    mixture: &MixtureConfig,
    impact: &ImpactConfig,
) -> Result<ClusteredImpact> {
    let filtered: Vec<ClusterFilter> = runs
        .par_iter()
        .map(|r| cluster_filter(r.as_ref(), mixture))
        .collect::<Result<_>>()?;
    let values: Vec<&[f64]> = filtered.iter().map(|f| f.values.as_slice()).collect();
    let mut factor = impact_factor(&values, impact)?;
    factor.centred = true;
    Ok(ClusteredImpact {
        impact: factor,
        clusters: filtered.iter().map(|f| f.mixture.k()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_and_bic() {
        assert_eq!(parameter_count(1, VarianceModel::Equal), 2);
        assert_eq!(parameter_count(3, VarianceModel::Equal), 6);
        assert_eq!(parameter_count(3, VarianceModel::Unequal), 8);
        // One component: the MLE normal. x = (1, 2, 3, 6): mean 3, σ̂² = 3.5,
        // ln L = −(4/2)(ln 2π + ln 3.5 + 1) = −8.1812801, BIC = 2 ln L − 2 ln 4 = −19.1351489.
        let m = fit_mixture(
            &[1.0, 2.0, 3.0, 6.0],
            1,
            VarianceModel::Equal,
            &MixtureConfig::default(),
        )
        .unwrap()
        .unwrap();
        assert!((m.means[0] - 3.0).abs() < 1e-12 && (m.variances[0] - 3.5).abs() < 1e-12);
        assert!(
            (m.log_likelihood + 8.181_280_1).abs() < 1e-6,
            "{}",
            m.log_likelihood
        );
        assert!((m.bic + 19.135_148_9).abs() < 1e-6, "{}", m.bic);
    }

    #[test]
    fn degenerate_input() {
        let cfg = MixtureConfig::default();
        assert!(select_mixture(&[], &cfg).is_err());
        assert!(select_mixture(&[1.0, f64::NAN], &cfg).is_err());
        let c = select_mixture(&[4.0; 10], &cfg).unwrap();
        assert_eq!((c.k(), c.means[0]), (1, 4.0));
        assert_eq!(
            cluster_filter(&[4.0; 10], &cfg).unwrap().values,
            vec![0.0; 10]
        );
        // Too many parameters for the data: not fitted.
        assert!(
            fit_mixture(&[1.0, 2.0, 3.0], 2, VarianceModel::Equal, &cfg)
                .unwrap()
                .is_none()
        );
        // Repeated values collapse the unequal-variance components: singular, left out.
        let ties: Vec<f64> = (0..60).map(|i| f64::from(i % 3)).collect();
        assert!(
            fit_mixture(&ties, 3, VarianceModel::Unequal, &cfg)
                .unwrap()
                .is_none()
        );
    }
}
