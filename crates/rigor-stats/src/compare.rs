//! Comparing a candidate with a baseline: effect-size intervals and verdicts (docs/methodology.md,
//! "Comparisons").
//!
//! A comparison is reported as the ratio θ = candidate/baseline of a location estimate of *time*:
//! θ > 1 means the candidate is slower (a regression), θ < 1 faster (an improvement).
//!
//! - [`compare`] computes the ratio, its confidence interval and a [`Verdict`]. With the mean as
//!   estimator the interval is Fieller's on the top-level unit means — Welch's form for
//!   independent systems, or the paired form ([`fieller_paired`]) when both systems were
//!   measured in the same interleaved rounds — with the hierarchical bootstrap beside it
//!   (docs/methodology.md, "Comparisons"). With the median, minimum or a trimmed mean the
//!   bootstrap percentile interval decides.
//! - [`verdict_from_interval`] is the verdict rule (docs/methodology.md, "Comparisons") with a
//!   practical threshold δ (default 1%).
//! - [`overlap_verdict`] is Kalibera & Tůma's rule (non-overlapping intervals; Kalibera & Tůma
//!   2006, Kalibera, Bulej & Tůma 2005b): a change when the two systems' confidence intervals do
//!   not overlap, magnitude (new − old)/old.
//! - [`welch_p_value`] and [`paired_p_value`] feed Benjamini–Hochberg control across a suite
//!   ([`crate::fdr`]); [`geometric_mean_ratio_welch`] summarises a suite's mean ratios with a
//!   t interval on the log scale, [`geometric_mean_ratio`] any estimator's with a bootstrap
//!   interval.
//!
//! # Paired (interleaved) Fieller
//!
//! When candidate and baseline ran in the same rounds (top-level unit k of each is round k), the
//! round means `a_k`, `b_k` are correlated: drift common to a round moves both. With `a`, `b` the
//! means over r rounds, `v_a = S_a²/r`, `v_b = S_b²/r`, `c = cov(a_k, b_k)/r` (sample covariance,
//! divisor r − 1), t the quantile with r − 1 degrees of freedom and `g = t²·v_b/b²`, Fieller's
//! theorem — the set of θ with `(a − θb)² ≤ t²·Var(a − θb)`, `Var(a − θb) = v_a − 2θc + θ²v_b` —
//! gives, when g < 1,
//!
//! ```text
//! θ ∈ [ θ̂ − g·c/v_b ± (t/|b|)·sqrt( v_a − 2θ̂c + θ̂²v_b − g·(v_a − c²/v_b) ) ] / (1 − g)
//! ```
//!
//! Derivation: the quadratic `θ²(b² − t²v_b) − 2θ(ab − t²c) + (a² − t²v_a) ≤ 0` divided by b²;
//! its discriminant over b⁴ is `(t²/b²)·[v_a − 2θ̂c + θ̂²v_b − g(v_a − c²/v_b)]`. The bracket
//! equals `v_b(θ̂ − c/v_b)² + (1 − g)(v_a − c²/v_b)`, non-negative when g < 1 by Cauchy–Schwarz.
//! With c = 0 it is Fieller's interval. A linear drift common to a round adds the same amount to
//! `a_k` and `b_k`: it inflates v_a, v_b and c together and cancels in `Var(a − θb)` at θ ≈ 1.
//!
//! ```
//! use rigor_stats::Hierarchy;
//! use rigor_stats::compare::{CompareConfig, Verdict, compare};
//!
//! let base = Hierarchy::two_level(["execution", "iteration"], &[
//!     vec![100.0, 101.0], vec![99.0, 100.0], vec![101.0, 102.0], vec![100.0, 99.0],
//!     vec![100.5, 100.0], vec![99.5, 100.5],
//! ])?;
//! let cand = base.map_values(|_, v| v * 1.05)?;
//! let c = compare(&cand, &base, &CompareConfig { paired: true, ..CompareConfig::default() })?;
//! assert_eq!(c.verdict, Verdict::Regression);
//! assert!((c.ratio - 1.05).abs() < 1e-12);
//! # Ok::<(), rigor_stats::StatsError>(())
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::bootstrap::{
    BootstrapConfig, BootstrapInterval, Pairing, bootstrap_ratio, finish, ratio_replicates,
};
use crate::descriptive::{Estimator, mean, variance};
use crate::dist::Quantile;
use crate::error::{Result, StatsError, check_finite, check_level};
use crate::fieller::{DfMethod, FiellerInterval, FiellerResult, MeanEstimate, fieller};
use crate::hierarchy::Hierarchy;
use crate::interval::MeanInterval;

/// The default practical threshold δ: changes within ±1% are "equivalent" (docs/methodology.md,
/// "Comparisons").
pub const DEFAULT_THRESHOLD: f64 = 0.01;

/// The largest number of additional units [`more_units_needed`] reports; a value this large
/// means "practically unresolvable" (the estimate sits on or near the edge of the threshold
/// band: see [`MORE_UNITS_MOST_FACTOR`]).
pub const MORE_UNITS_CAP: usize = 1_000_000;

/// The most units, as a multiple of those measured, that [`more_units_needed`] suggests; beyond
/// it the estimate is so close to a band edge that the count says more about that distance
/// (which the next units move) than about the units needed — it swung from 7 to 42,639 between
/// 10 and 17 executions of one user's benchmark — and [`MORE_UNITS_CAP`] is answered instead.
pub const MORE_UNITS_MOST_FACTOR: f64 = 100.0;

/// The outcome of a comparison of candidate time against baseline time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The candidate is slower by more than the threshold: the whole interval lies above 1 + δ.
    Regression,
    /// The candidate is faster by more than the threshold: the whole interval lies below 1 − δ.
    Improvement,
    /// The whole interval lies within [1 − δ, 1 + δ]: any difference is practically irrelevant.
    Equivalent,
    /// The interval straddles a threshold: more top-level units are needed to decide.
    Inconclusive,
    /// Fieller's set is unbounded (g ≥ 1): the baseline is too noisy; more top-level repetitions
    /// are needed.
    Unbounded,
}

impl Verdict {
    /// Lower-case name: `regression`, `improvement`, `equivalent`, `inconclusive`, `unbounded`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Regression => "regression",
            Self::Improvement => "improvement",
            Self::Equivalent => "equivalent",
            Self::Inconclusive => "inconclusive",
            Self::Unbounded => "unbounded",
        }
    }

    /// Whether the verdict reports a change (regression or improvement).
    pub fn is_change(&self) -> bool {
        matches!(self, Self::Regression | Self::Improvement)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The verdict (docs/methodology.md, "Comparisons") from a ratio interval `[lower, upper]`
/// (candidate/baseline time) and a practical threshold δ ≥ 0: regression if `lower > 1 + δ`,
/// improvement if `upper < 1 − δ`, equivalent if `1 − δ ≤ lower` and `upper ≤ 1 + δ`, otherwise
/// inconclusive. NaN bounds are inconclusive.
pub fn verdict_from_interval(lower: f64, upper: f64, threshold: f64) -> Verdict {
    let (hi_edge, lo_edge) = (1.0 + threshold, 1.0 - threshold);
    if lower > hi_edge {
        Verdict::Regression
    } else if upper < lo_edge {
        Verdict::Improvement
    } else if lower >= lo_edge && upper <= hi_edge {
        Verdict::Equivalent
    } else {
        Verdict::Inconclusive
    }
}

/// Percent change of a ratio: `(ratio − 1)·100` (1.046 → 4.6, "4.6% slower").
pub fn relative_change(ratio: f64) -> f64 {
    (ratio - 1.0) * 100.0
}

/// The non-overlap rule (Kalibera & Tůma 2006; Kalibera, Bulej & Tůma 2005b; docs/methodology.md,
/// "Comparisons"): a change when the two confidence intervals do not overlap.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OverlapComparison {
    /// [`Verdict::Regression`] when the candidate's interval lies wholly above the baseline's,
    /// [`Verdict::Improvement`] when wholly below, otherwise [`Verdict::Inconclusive`].
    pub verdict: Verdict,
    /// Magnitude of the change, (new − old)/old of the means (0.05 = 5% slower).
    pub magnitude: f64,
}

/// The non-overlap rule (Kalibera & Tůma 2006): `candidate` (new) against `baseline` (old) mean
/// intervals.
///
/// Overlapping intervals are reported as [`Verdict::Inconclusive`], not
/// [`Verdict::Equivalent`]: Kalibera & Tůma read overlap as "no change detected", which is an
/// absence of evidence, not evidence that the systems perform alike. Intervals that merely touch
/// (`candidate.lower == baseline.upper`) overlap. The method has no threshold; it is kept as a
/// named alternative to [`verdict_from_interval`], whose ratio interval is the default.
pub fn overlap_verdict(candidate: &MeanInterval, baseline: &MeanInterval) -> OverlapComparison {
    OverlapComparison {
        verdict: overlap_of(
            (candidate.lower, candidate.upper),
            (baseline.lower, baseline.upper),
        ),
        magnitude: (candidate.mean - baseline.mean) / baseline.mean,
    }
}

/// The non-overlap rule on any two intervals `(lower, upper)` (e.g. the bootstrap intervals of
/// a median): a regression when the candidate's lies wholly above the baseline's, an
/// improvement when wholly below, else inconclusive.
pub fn overlap_of(candidate: (f64, f64), baseline: (f64, f64)) -> Verdict {
    if candidate.0 > baseline.1 {
        Verdict::Regression
    } else if candidate.1 < baseline.0 {
        Verdict::Improvement
    } else {
        Verdict::Inconclusive
    }
}

/// Fieller's interval for candidate/baseline when the two means have covariance
/// `cov_of_means` (= cov(a_k, b_k)/r for paired rounds), with the critical value chosen by
/// `df_method` as in [`fieller`]: Welch–Satterthwaite at θ̂ (which ignores the covariance), the
/// conservative min(r_a, r_b) − 1, or the normal quantile. With `cov_of_means = 0` the result is
/// [`fieller`]'s (up to rounding).
///
/// Errors: a zero baseline mean, an invalid level, a non-finite covariance, or one that violates
/// Cauchy–Schwarz (`c² > v_a·v_b` beyond rounding).
pub fn fieller_with_covariance(
    candidate: &MeanEstimate,
    baseline: &MeanEstimate,
    cov_of_means: f64,
    level: f64,
    df_method: DfMethod,
) -> Result<FiellerResult> {
    check_finite(&[cov_of_means])?;
    let (ratio, df, critical) =
        crate::fieller::ratio_and_critical(candidate, baseline, level, df_method)?;
    let b = baseline.mean;
    let interval = covariance_bounds(
        ratio,
        b,
        candidate.var_of_mean(),
        baseline.var_of_mean(),
        cov_of_means,
        critical,
    )?;
    Ok(FiellerResult {
        ratio,
        g: critical * critical * baseline.var_of_mean() / (b * b),
        df,
        df_method,
        critical,
        level,
        interval,
    })
}

/// The paired Fieller interval for interleaved rounds: `candidate_means[k]` and
/// `baseline_means[k]` are the two systems' means in round k (equal lengths ≥ 2). The covariance
/// of the round means enters the interval (see the module documentation); the degrees of freedom
/// are r − 1 with [`Quantile::StudentT`] (reported as [`DfMethod::MinDf`], which equals r − 1
/// here), or the normal quantile with [`Quantile::Normal`].
pub fn fieller_paired(
    candidate_means: &[f64],
    baseline_means: &[f64],
    level: f64,
    quantile: Quantile,
) -> Result<FiellerResult> {
    check_rounds(candidate_means.len(), baseline_means.len())?;
    let a = MeanEstimate::from_unit_means(candidate_means)?;
    let b = MeanEstimate::from_unit_means(baseline_means)?;
    let cov = covariance(candidate_means, baseline_means) / a.n as f64;
    let df_method = match quantile {
        Quantile::StudentT => DfMethod::MinDf,
        Quantile::Normal => DfMethod::Normal,
    };
    fieller_with_covariance(&a, &b, cov, level, df_method)
}

/// Bounds of Fieller's set with covariance (module documentation), or `Unbounded` when g ≥ 1.
fn covariance_bounds(
    ratio: f64,
    b: f64,
    va: f64,
    vb: f64,
    c: f64,
    t: f64,
) -> Result<FiellerInterval> {
    if c * c > va * vb * (1.0 + 1e-9) + f64::MIN_POSITIVE {
        return Err(StatsError::InvalidParameter {
            name: "covariance of the means",
            value: c.to_string(),
            reason: "exceeds the product of the standard errors (Cauchy-Schwarz)",
        });
    }
    let g = t * t * vb / (b * b);
    if g >= 1.0 {
        return Ok(FiellerInterval::Unbounded);
    }
    // c²/v_b ≤ v_a up to rounding; with v_b = 0 the covariance is 0 too.
    let (shift, residual) = if vb > 0.0 {
        (g * c / vb, (va - c * c / vb).max(0.0))
    } else {
        (0.0, va)
    };
    let spread = (va - 2.0 * ratio * c + ratio * ratio * vb - g * residual).max(0.0);
    let half = t / b.abs() * spread.sqrt();
    let centre = ratio - shift;
    Ok(FiellerInterval::Bounded {
        lower: (centre - half) / (1.0 - g),
        upper: (centre + half) / (1.0 - g),
    })
}

/// Sample covariance (divisor n − 1) of two equally long slices (n ≥ 2).
fn covariance(x: &[f64], y: &[f64]) -> f64 {
    let (mx, my) = (mean(x), mean(y));
    let s: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    s / (x.len() - 1) as f64
}

/// Pearson correlation of two equally long slices; 0 when either is constant.
fn correlation(x: &[f64], y: &[f64]) -> f64 {
    let (vx, vy) = (variance(x), variance(y));
    if vx > 0.0 && vy > 0.0 {
        covariance(x, y) / (vx * vy).sqrt()
    } else {
        0.0
    }
}

fn check_rounds(candidate: usize, baseline: usize) -> Result<()> {
    if candidate != baseline {
        return Err(StatsError::Shape(format!(
            "paired rounds need equal top-level counts, got {candidate} and {baseline}"
        )));
    }
    Ok(())
}

/// Two-sided p-value of a t statistic with `df` degrees of freedom (`df` = ∞: normal).
fn two_sided_p(t: f64, df: f64) -> f64 {
    if t.is_nan() {
        return 1.0;
    }
    if t.is_infinite() {
        return 0.0;
    }
    let dist = if df.is_finite() && df > 0.0 {
        StudentsT::new(0.0, 1.0, df).ok()
    } else {
        None
    };
    let tail = match dist {
        Some(d) => d.sf(t.abs()),
        None => statrs::distribution::Normal::standard().sf(t.abs()),
    };
    (2.0 * tail).min(1.0)
}

/// Two-sided Welch t-test of equal means on the top-level unit means of the two systems
/// (H0: μ_candidate = μ_baseline), for false-discovery-rate control across a suite.
///
/// Zero standard errors give p = 1 for equal means and p = 0 otherwise. Errors: fewer than two
/// top-level units in either system.
pub fn welch_p_value(candidate: &Hierarchy, baseline: &Hierarchy) -> Result<f64> {
    welch_p_of_units(&candidate.top_means(), &baseline.top_means())
}

/// [`welch_p_value`] from the two sides' top-level unit means.
fn welch_p_of_units(candidate: &[f64], baseline: &[f64]) -> Result<f64> {
    let a = MeanEstimate::from_unit_means(candidate)?;
    let b = MeanEstimate::from_unit_means(baseline)?;
    let (va, vb) = (a.var_of_mean(), b.var_of_mean());
    let se2 = va + vb;
    if se2 == 0.0 {
        return Ok(if a.mean == b.mean { 1.0 } else { 0.0 });
    }
    let t = (a.mean - b.mean) / se2.sqrt();
    let df = se2 * se2 / (va * va / (a.n - 1) as f64 + vb * vb / (b.n - 1) as f64);
    Ok(two_sided_p(t, df))
}

/// Two-sided paired t-test on the per-round differences of top-level unit means
/// (`a_k − b_k`, r − 1 degrees of freedom), for interleaved rounds.
///
/// Errors: unequal top-level counts (`Shape`), fewer than two rounds.
pub fn paired_p_value(candidate: &Hierarchy, baseline: &Hierarchy) -> Result<f64> {
    paired_p_of_units(&candidate.top_means(), &baseline.top_means())
}

/// [`paired_p_value`] from the two sides' top-level unit means, round by round.
fn paired_p_of_units(candidate: &[f64], baseline: &[f64]) -> Result<f64> {
    check_rounds(candidate.len(), baseline.len())?;
    let d: Vec<f64> = candidate.iter().zip(baseline).map(|(a, b)| a - b).collect();
    let e = MeanEstimate::from_unit_means(&d)?;
    let v = e.var_of_mean();
    if v == 0.0 {
        return Ok(if e.mean == 0.0 { 1.0 } else { 0.0 });
    }
    Ok(two_sided_p(e.mean / v.sqrt(), (e.n - 1) as f64))
}

/// A ratio of two sides' minima with its interval ([`hodges_lehmann_ratio`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MinimaRatio {
    /// Point estimate of candidate/baseline: `exp` of the median of the log ratios.
    pub ratio: f64,
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// The coverage the interval reaches (at least the level asked for; exactly so without
    /// ties, by the rank-sum distribution's discreteness a little more).
    pub achieved: f64,
}

/// The ratio of the candidate's minima to the baseline's (each top-level unit's own minimum,
/// [`Hierarchy::top_minima`]) by Hodges & Lehmann's estimate of the shift between the two sides'
/// log minima — the median of the `n_c·n_b` log ratios `ln(c_i/b_j)` — with the interval dual
/// to Mann–Whitney's test, as R's `wilcox.test(log(c), log(b), conf.int = TRUE)` gives it: the
/// sorted log ratios' `q`-th from each end, `q` the smallest count with `P(U ≤ q) ≥ α/2` under no
/// shift, from the exact distribution below [`MANN_WHITNEY_EXACT_BELOW`] units a side and the
/// normal approximation above. Distribution-free: it holds its level for any shape of the
/// minima (two states of a process, an execution slowed throughout) when the change scales
/// every execution alike, and it rests on the same ranks as the test a minimum's change must
/// pass ([`Comparison::minima_hold`]). Unpaired whatever the rounds: a process's state is its
/// own, not its round's. With too few units for the level (`P(U = 0) > α/2`: 3 against 3 at
/// 95%), the interval is the whole range of the log ratios' signs, `(0, ∞)`.
///
/// Errors: fewer than two units a side, a minimum that is not positive and finite, a level
/// outside (0, 1).
pub fn hodges_lehmann_ratio(
    candidate: &[f64],
    baseline: &[f64],
    level: f64,
) -> Result<MinimaRatio> {
    if !(level > 0.0 && level < 1.0) {
        return Err(StatsError::InvalidParameter {
            name: "confidence level",
            value: level.to_string(),
            reason: "must lie in (0, 1)",
        });
    }
    for side in [candidate, baseline] {
        if side.len() < 2 {
            return Err(StatsError::TooFew {
                what: "top-level units of a minimum's comparison",
                needed: 2,
                got: side.len(),
            });
        }
    }
    let logs = |v: &[f64]| -> Result<Vec<f64>> { v.iter().map(|&x| positive_log(x)).collect() };
    let (c, b) = (logs(candidate)?, logs(baseline)?);
    let mut diffs: Vec<f64> = c
        .iter()
        .flat_map(|x| b.iter().map(move |y| x - y))
        .collect();
    diffs.sort_unstable_by(f64::total_cmp);
    let n = diffs.len();
    let estimate = crate::descriptive::median(&diffs);
    let alpha = 1.0 - level;
    let (nc, nb) = (c.len(), b.len());
    // q: the smallest u with P(U ≤ u) ≥ α/2, and the coverage it reaches, 1 − 2·P(U ≤ q − 1).
    let (q, achieved) = if nc < MANN_WHITNEY_EXACT_BELOW && nb < MANN_WHITNEY_EXACT_BELOW {
        let counts = mann_whitney_counts(nc, nb);
        let total: f64 = counts.iter().sum();
        let mut below = 0.0;
        let mut q = 0;
        while q < counts.len() && (below + counts[q]) / total < alpha / 2.0 {
            below += counts[q];
            q += 1;
        }
        (q, 1.0 - 2.0 * below / total)
    } else {
        let z = crate::dist::critical_value(level, f64::INFINITY, crate::dist::Quantile::Normal)?;
        let sd = (nc as f64 * nb as f64 * (nc + nb + 1) as f64 / 12.0).sqrt();
        let q = (n as f64 / 2.0 - z * sd).floor().max(0.0) as usize;
        (q, level)
    };
    let (lower, upper) = if q == 0 {
        (0.0, f64::INFINITY)
    } else {
        (diffs[q - 1].exp(), diffs[n - q].exp())
    };
    Ok(MinimaRatio {
        ratio: estimate.exp(),
        lower,
        upper,
        achieved,
    })
}

/// How many more top-level units (per system; rounds when paired) would roughly resolve an
/// inconclusive interval, assuming each side of the interval shrinks like sqrt(n/n').
///
/// With the estimate θ̂ beyond a band edge (|θ̂ − 1| > δ) the interval must stop reaching that
/// edge: the side towards 1 must shrink to the distance from θ̂ to the edge. With θ̂ inside the
/// band it must fit into the band: both sides must shrink to their distances to the edges. With
/// `f` the largest shrink factor needed, `n' = ⌈n·f²⌉` and the answer is `n' − n`, capped at
/// [`MORE_UNITS_CAP`] (which also answers an estimate exactly on an edge, and any `n'` over
/// [`MORE_UNITS_MOST_FACTOR`] times `n`). `None` when the
/// interval is not inconclusive, the bounds are not finite or `n` is 0.
///
/// It ignores that the t quantile shrinks too, and that a noisier new sample may move θ̂: treat
/// it as an order of magnitude.
pub fn more_units_needed(
    ratio: f64,
    lower: f64,
    upper: f64,
    threshold: f64,
    n: usize,
) -> Option<usize> {
    if verdict_from_interval(lower, upper, threshold) != Verdict::Inconclusive
        || n == 0
        || !(ratio.is_finite() && lower.is_finite() && upper.is_finite())
    {
        return None;
    }
    let (hi_edge, lo_edge) = (1.0 + threshold, 1.0 - threshold);
    // How much a side of length `side` must shrink to fit in `room`.
    let shrink = |side: f64, room: f64| {
        if side <= 0.0 {
            0.0
        } else if room <= 0.0 {
            f64::INFINITY
        } else {
            side / room
        }
    };
    let factor = if ratio > hi_edge {
        shrink(ratio - lower, ratio - hi_edge)
    } else if ratio < lo_edge {
        shrink(upper - ratio, lo_edge - ratio)
    } else {
        let up = if upper > hi_edge {
            shrink(upper - ratio, hi_edge - ratio)
        } else {
            0.0
        };
        let down = if lower < lo_edge {
            shrink(ratio - lower, ratio - lo_edge)
        } else {
            0.0
        };
        up.max(down)
    };
    let target = (n as f64 * factor * factor).ceil();
    if target.is_nan()
        || target >= (n + MORE_UNITS_CAP) as f64
        || target > n as f64 * MORE_UNITS_MOST_FACTOR
    {
        return Some(MORE_UNITS_CAP);
    }
    Some((target as usize).saturating_sub(n).clamp(1, MORE_UNITS_CAP))
}

/// How a comparison's ratio interval was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RatioMethod {
    /// Fieller, independent systems, t with Welch–Satterthwaite degrees of freedom.
    FiellerWelch,
    /// Fieller, independent systems, t with min(r_a, r_b) − 1 degrees of freedom.
    FiellerMinDf,
    /// Fieller, independent systems, normal quantile.
    FiellerNormal,
    /// Fieller for paired interleaved rounds (covariance of the round means), t with r − 1
    /// degrees of freedom.
    FiellerPaired,
    /// Fieller for paired interleaved rounds with the normal quantile.
    FiellerPairedNormal,
    /// Hierarchical bootstrap percentile interval of the estimator ratio.
    BootstrapPercentile,
    /// Anytime-valid confidence sequence on paired round log-ratios, for comparisons run until
    /// decided ([`crate::confseq`]).
    ConfidenceSequence,
    /// A suite's geometric mean of mean ratios: t on the log scale with delta-method variances
    /// and Welch–Satterthwaite degrees of freedom ([`geometric_mean_ratio_welch`]).
    LogWelch,
    /// The minimum of a hierarchy: Hodges–Lehmann's shift of the two sides' log minima (each
    /// top-level unit's own) with the interval dual to Mann–Whitney's test
    /// ([`hodges_lehmann_ratio`]).
    HodgesLehmann,
}

impl RatioMethod {
    /// Kebab-case name, e.g. `fieller-welch`, `fieller-paired`, `bootstrap-percentile`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::FiellerWelch => "fieller-welch",
            Self::FiellerMinDf => "fieller-min-df",
            Self::FiellerNormal => "fieller-normal",
            Self::FiellerPaired => "fieller-paired",
            Self::FiellerPairedNormal => "fieller-paired-normal",
            Self::BootstrapPercentile => "bootstrap-percentile",
            Self::ConfidenceSequence => "confidence-sequence",
            Self::LogWelch => "log-welch",
            Self::HodgesLehmann => "hodges-lehmann",
        }
    }
}

impl fmt::Display for RatioMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The test behind a comparison's p-value (the one false-discovery-rate control uses): a test
/// of the statistic compared, dual to the interval that decides the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PValueTest {
    /// Paired t-test on the per-round means (the mean, interleaved rounds).
    PairedT,
    /// Welch's t-test on the top-level means (the mean, independent systems).
    Welch,
    /// Two-sided hierarchical bootstrap test of a ratio of 1, from the replicates of the
    /// percentile interval (median, minimum, trimmed mean).
    Bootstrap,
    /// Mann–Whitney's rank-sum test of the two sides' top-level units' minima (the minimum of
    /// a hierarchy, dual to its Hodges–Lehmann interval).
    MannWhitney,
}

impl PValueTest {
    /// Kebab-case name: `paired-t`, `welch`, `bootstrap`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::PairedT => "paired-t",
            Self::Welch => "welch",
            Self::Bootstrap => "bootstrap",
            Self::MannWhitney => "mann-whitney",
        }
    }

    /// The test in words, for the statistic `estimator` names ("paired t-test on the round
    /// means", "bootstrap test of the minimum's ratio").
    pub fn describe(&self, estimator: Estimator) -> String {
        match self {
            Self::MannWhitney => "Mann–Whitney test of the units' own minima".to_string(),
            Self::PairedT => "paired t-test on the round means".to_string(),
            Self::Welch => "Welch t-test on the top-level means".to_string(),
            Self::Bootstrap => {
                let whose = match estimator {
                    Estimator::Mean => "mean's",
                    Estimator::Median => "median's",
                    Estimator::Min => "minimum's",
                    Estimator::TrimmedMean(_) => "trimmed mean's",
                };
                format!("bootstrap test of the {whose} ratio")
            }
        }
    }
}

/// A bounded confidence interval for the ratio candidate/baseline.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioInterval {
    /// Lower bound of the ratio.
    pub lower: f64,
    /// Upper bound of the ratio.
    pub upper: f64,
    /// Confidence level, e.g. 0.95.
    pub level: f64,
    /// How it was computed.
    pub method: RatioMethod,
}

/// Parameters of [`compare`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CompareConfig {
    /// Confidence level of the ratio interval (default 0.95); it overrides `bootstrap.level`.
    pub level: f64,
    /// Practical threshold δ ≥ 0 of [`verdict_from_interval`] (default 0.01 = 1%).
    pub threshold: f64,
    /// Critical value of the independent-systems Fieller interval (default Welch). For paired
    /// rounds [`DfMethod::Normal`] selects the normal quantile, anything else t with r − 1.
    pub df: DfMethod,
    /// The location estimator compared (default the mean: Fieller decides).
    pub estimator: Estimator,
    /// Bootstrap parameters (resamples, seed, strategy); its level is replaced by `level`.
    pub bootstrap: BootstrapConfig,
    /// The systems ran in interleaved rounds: top-level unit k of each is round k. Used only when
    /// both have the same number of top-level units; otherwise the independent analysis runs and
    /// [`Comparison::paired`] is false.
    pub paired: bool,
}

impl Default for CompareConfig {
    fn default() -> Self {
        Self {
            level: 0.95,
            threshold: DEFAULT_THRESHOLD,
            df: DfMethod::WelchSatterthwaite,
            estimator: Estimator::Mean,
            bootstrap: BootstrapConfig::default(),
            paired: false,
        }
    }
}

impl CompareConfig {
    /// Checks the level, the threshold (finite, ≥ 0), the estimator and the bootstrap settings.
    pub fn validate(&self) -> Result<()> {
        check_level(self.level)?;
        if !(self.threshold >= 0.0 && self.threshold.is_finite()) {
            return Err(StatsError::InvalidParameter {
                name: "threshold",
                value: self.threshold.to_string(),
                reason: "must be finite and non-negative",
            });
        }
        self.estimator.validate()?;
        self.bootstrap_config().validate()
    }

    fn bootstrap_config(&self) -> BootstrapConfig {
        BootstrapConfig {
            level: self.level,
            ..self.bootstrap
        }
    }
}

/// The result of [`compare`]: effect size, interval, verdict and everything needed to audit them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Comparison {
    /// The estimator compared.
    pub estimator: Estimator,
    /// Point estimate of candidate/baseline (Fieller's θ̂ = ratio of the means of the top-level
    /// means for the mean; Hodges–Lehmann's ratio of the top-level units' minima for the minimum
    /// of a hierarchy; the bootstrap estimate otherwise).
    pub ratio: f64,
    /// The interval that decided the verdict; `None` when Fieller's set is unbounded.
    pub ci: Option<RatioInterval>,
    /// How the deciding interval was (or would have been) computed.
    pub method: RatioMethod,
    /// Confidence level.
    pub level: f64,
    /// The verdict.
    pub verdict: Verdict,
    /// The practical threshold δ used.
    pub threshold: f64,
    /// Fieller's g (bounded iff g < 1), for the mean.
    pub g: Option<f64>,
    /// The full Fieller result, for the mean.
    pub fieller: Option<FiellerResult>,
    /// The bootstrap interval: beside Fieller for the mean, deciding for other estimators.
    pub bootstrap: Option<BootstrapInterval>,
    /// Whether the paired (interleaved rounds) analysis was used.
    pub paired: bool,
    /// Correlation of the per-round means of the two systems, when paired: near 1 when drift
    /// common to a round dominates (and the pairing pays).
    pub round_correlation: Option<f64>,
    /// Two-sided p-value of no change in the statistic compared, for false-discovery-rate
    /// control: for the mean a paired t-test when paired, Welch's otherwise (on the top-level
    /// means); for the minimum of a hierarchy Mann–Whitney's on the units' minima; for the other
    /// estimators the bootstrap test of a ratio of 1 that goes with their percentile interval
    /// ([`PValueTest`]).
    pub p_value: f64,
    /// The test that gave [`Comparison::p_value`].
    pub p_test: PValueTest,
    /// For an inconclusive verdict, roughly how many more top-level units per system (rounds when
    /// paired) would resolve it ([`more_units_needed`]).
    pub more_units: Option<usize>,
    /// For an inconclusive verdict whose estimate lies beyond the threshold: roughly how many
    /// more units would show the two equivalent if there were no difference (the interval
    /// centred on a ratio of 1, [`more_units_needed`]). [`Comparison::more_units`] assumes the
    /// estimate is the truth, and an estimate beyond the threshold on identical code (one
    /// interval in twenty misses) would otherwise be the only count shown: a count towards a
    /// change that is not there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more_units_if_none: Option<usize>,
    /// Its verdict was withheld ([`Comparison::withhold`]): the two sides were measured under
    /// other conditions, which no interval holds.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub withheld: bool,
    /// Number of top-level units of the candidate.
    pub candidate_units: usize,
    /// Number of top-level units of the baseline.
    pub baseline_units: usize,
    /// Whether the deciding interval was widened by [`Comparison::widen`] to what the data's
    /// resolution allows (the data alone gave a narrower one than the clock can support).
    pub at_resolution: bool,
    /// When the baseline was measured in another session: how far the statistic moves between
    /// sessions, by which the deciding interval was widened
    /// ([`Comparison::widen_for_sessions`]).
    pub between_sessions: Option<SessionSpread>,
    /// For the minimum: the two-sided p-value of no difference between the two sides'
    /// executions' own minima (Mann–Whitney's test on the top-level units' minima). A change
    /// needs this test too ([`Comparison::minima_hold`]).
    pub minima_p: Option<f64>,
}

/// How far a statistic moves between sessions (processes started at different times: another
/// memory layout, another machine state), from its value in each of `sessions` sessions: the
/// standard deviation of its logarithm, `sessions − 1` degrees of freedom.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SessionSpread {
    /// Sessions the spread was estimated from.
    pub sessions: usize,
    /// Standard deviation of the statistic's natural logarithm between sessions (0.05: about
    /// 5%); `None` with a single session, which cannot tell it.
    pub sigma_log: Option<f64>,
}

impl SessionSpread {
    /// The spread of a statistic that took `values` (one per session, each positive); `None`
    /// for no values or a value that is not positive and finite.
    pub fn of(values: &[f64]) -> Option<Self> {
        if values.is_empty() || values.iter().any(|v| !(*v > 0.0 && v.is_finite())) {
            return None;
        }
        let logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
        Some(Self {
            sessions: values.len(),
            sigma_log: (values.len() >= 2).then(|| variance(&logs).sqrt()),
        })
    }
}

impl Comparison {
    /// Widens the deciding interval to include `[lower, upper]` — the range of the ratio that
    /// the measurements' resolution cannot exclude, from the caller — and recomputes the
    /// verdict from the widened interval (and sets the p-value to 1 when the widened interval
    /// holds a ratio of 1). More units cannot narrow an interval set by the
    /// resolution, so no count of them is suggested ([`Comparison::more_units`] is `None`).
    /// Nothing changes when the interval already contains the range, or is unbounded.
    pub fn widen(&mut self, lower: f64, upper: f64) {
        let Some(ci) = self.ci.as_mut() else { return };
        if lower >= ci.lower && upper <= ci.upper {
            return;
        }
        ci.lower = ci.lower.min(lower);
        ci.upper = ci.upper.max(upper);
        self.at_resolution = true;
        self.verdict = verdict_from_interval(ci.lower, ci.upper, self.threshold);
        self.more_units = None;
        self.more_units_if_none = None;
        // The data's own test cannot be more decided than what the resolution allows: when the
        // widened interval holds 1, no change is possible, and false-discovery control must not
        // count this comparison as a discovery.
        if ci.lower <= 1.0 && 1.0 <= ci.upper {
            self.p_value = 1.0;
        }
        self.guard_minima();
    }

    /// Withholds the verdict: the interval unbounded, the verdict inconclusive, p = 1 and no
    /// count of further units suggested, for a comparison whose two sides differ by what no
    /// interval of theirs holds (measured on a busy machine against a quiet one).
    pub fn withhold(&mut self) {
        if let Some(ci) = self.ci.as_mut() {
            ci.lower = 0.0;
            ci.upper = f64::INFINITY;
        }
        self.verdict = Verdict::Inconclusive;
        self.p_value = 1.0;
        self.more_units = None;
        self.more_units_if_none = None;
        self.withheld = true;
    }

    /// Widens the deciding interval for a baseline measured in another session, whose statistic
    /// moves between sessions by `spread`: both the baseline's session and this one carry a
    /// session effect, so the log-ratio gains a variance of 2σ², and each side of the interval
    /// (on the log scale) grows to `√(h² + (t·σ·√2)²)`, t Student's at the comparison's level
    /// with `sessions − 1` degrees of freedom (σ is itself estimated). The verdict is recomputed
    /// from the widened interval (p = 1 when it holds 1). With a single session the spread is
    /// unknown: the interval is unbounded and the verdict inconclusive, since no data says how
    /// far a session moves the statistic. Nothing changes for an unbounded interval.
    pub fn widen_for_sessions(&mut self, spread: SessionSpread) {
        self.between_sessions = Some(spread);
        let Some(ci) = self.ci.as_mut() else { return };
        let extra = match spread.sigma_log {
            Some(sigma) => {
                let df = (spread.sessions - 1) as f64;
                let t = StudentsT::new(0.0, 1.0, df)
                    .map(|d| d.inverse_cdf(0.5 + self.level / 2.0))
                    .unwrap_or(f64::INFINITY);
                t * sigma * std::f64::consts::SQRT_2
            }
            None => f64::INFINITY,
        };
        let r = self.ratio.ln();
        let below = (r - ci.lower.max(f64::MIN_POSITIVE).ln()).max(0.0);
        let above = (ci.upper.ln() - r).max(0.0);
        let grow = |h: f64| (h * h + extra * extra).sqrt();
        ci.lower = (r - grow(below)).exp();
        ci.upper = (r + grow(above)).exp();
        self.verdict = verdict_from_interval(ci.lower, ci.upper, self.threshold);
        self.more_units = None;
        self.more_units_if_none = None;
        if ci.lower <= 1.0 && 1.0 <= ci.upper {
            self.p_value = 1.0;
        }
        self.guard_minima();
    }

    /// Whether the executions' own minima bear out a change of the minimum of all
    /// ([`Comparison::minima_p`] at the comparison's level; always for other estimators).
    ///
    /// The minimum of all samples rests on the few processes that reached it, and its
    /// bootstrap over executions cannot draw a process state that one side never showed: a
    /// function that runs at 0.65 ns in some processes and 1.0 ns in others (its code's
    /// placement) gave a "55% slower, +13% .. +74%, p = 0.001" on identical code when none of
    /// one side's 10 executions landed in the fast state. A change must then also show in the
    /// executions' own minima — an intersection-union test, whose error stays within the level
    /// of each (Berger 1982) — and [`Comparison::p_value`] is the larger of the two.
    pub fn minima_hold(&self) -> bool {
        self.minima_p.is_none_or(|p| p <= 1.0 - self.level)
    }

    /// Whether the executions' own minima alone made this comparison inconclusive: its
    /// interval lies beyond the threshold, and [`Comparison::minima_hold`] does not.
    pub fn demoted_by_minima(&self) -> bool {
        !self.minima_hold()
            && self.verdict == Verdict::Inconclusive
            && self.ci.is_some_and(|ci| {
                verdict_from_interval(ci.lower, ci.upper, self.threshold).is_change()
            })
    }

    /// Whether the p-value is the units' own minima's (Mann–Whitney's, the larger of the two
    /// tests a minimum's change must pass) rather than the bootstrap's, where that shows: both
    /// below 0.001 read alike.
    pub fn p_from_minima(&self) -> bool {
        // Hodges–Lehmann's interval already rests on Mann–Whitney's test: its p is the test's.
        let own = self.bootstrap.and_then(|b| b.p_value).unwrap_or(0.0);
        self.p_test != PValueTest::MannWhitney
            && self
                .minima_p
                .is_some_and(|m| m == self.p_value && m > own && m >= 0.001)
    }

    /// Whether the two sides' units' own minima lie entirely apart, and so few that even that
    /// cannot pass the level: Mann–Whitney's p is the least an exact test of so few units can
    /// give (2 / C(n_a + n_b, n_a)), and that least is not below 1 − level (fewer than 4 a side
    /// at 95%). With more units the least p passes, and an inconclusive verdict has another
    /// cause (a new user's 10 against 10, "p < 0.001 … cannot show it at this level", was an
    /// interval widened for a baseline's sessions).
    pub fn minima_apart(&self) -> bool {
        let (a, b) = (self.candidate_units, self.baseline_units);
        self.minima_p.is_some_and(|p| {
            let least = mann_whitney_exact_p(0, a, b);
            a < MANN_WHITNEY_EXACT_BELOW
                && b < MANN_WHITNEY_EXACT_BELOW
                && (p - least).abs() < 1e-12
                && least >= 1.0 - self.level
        })
    }

    /// Demotes a change that the executions' own minima do not bear out
    /// ([`Comparison::minima_hold`]) to inconclusive.
    fn guard_minima(&mut self) {
        if let Some(p) = self.minima_p {
            self.p_value = self.p_value.max(p);
            if self.verdict.is_change() && !self.minima_hold() {
                self.verdict = Verdict::Inconclusive;
            }
        }
    }

    /// The estimate and bounds as percent changes ((θ − 1)·100), for reporting an effect size.
    pub fn percent_change(&self) -> (f64, Option<(f64, f64)>) {
        (
            relative_change(self.ratio),
            self.ci
                .map(|ci| (relative_change(ci.lower), relative_change(ci.upper))),
        )
    }
}

/// Compares `candidate` with `baseline` (ratio of `cfg.estimator`, candidate/baseline) and gives a
/// The verdict (docs/methodology.md, "Comparisons").
///
/// - Mean: Fieller on the top-level unit means — paired ([`fieller_paired`]) when `cfg.paired`
///   and both have the same number of top-level units, Welch-style otherwise ([`fieller`] with
///   `cfg.df`) — with the bootstrap ratio interval beside it (resampling rounds when paired).
///   An unbounded Fieller set gives [`Verdict::Unbounded`] and reports g; there is no fallback.
/// - Minimum of a hierarchy (two levels or more): Hodges–Lehmann's ratio of the top-level units'
///   own minima with the interval of Mann–Whitney's test ([`hodges_lehmann_ratio`]), unpaired.
/// - Median, trimmed mean, minimum of a flat hierarchy: the hierarchical bootstrap percentile
///   interval of the ratio decides.
///
/// Errors: an invalid configuration, fewer than two top-level units in either system, a zero
/// baseline estimate, a non-finite bootstrap replicate.
pub fn compare(
    candidate: &Hierarchy,
    baseline: &Hierarchy,
    cfg: &CompareConfig,
) -> Result<Comparison> {
    compare_with(candidate, baseline, cfg, true)
}

/// [`compare`] with only the interval that decides: for the mean Fieller's, without the
/// bootstrap interval beside it (`bootstrap` is `None`), which costs B resamples of every
/// top-level unit — for a caller that shows only the ratio and its interval (a ranking). Other
/// estimators are decided by the bootstrap, as in [`compare`].
///
/// # Errors
/// As [`compare`].
pub fn compare_deciding(
    candidate: &Hierarchy,
    baseline: &Hierarchy,
    cfg: &CompareConfig,
) -> Result<Comparison> {
    compare_with(candidate, baseline, cfg, false)
}

fn compare_with(
    candidate: &Hierarchy,
    baseline: &Hierarchy,
    cfg: &CompareConfig,
    beside: bool,
) -> Result<Comparison> {
    cfg.validate()?;
    let (rc, rb) = (candidate.units(0), baseline.units(0));
    let minima = match cfg.estimator {
        Estimator::Min => candidate.top_minima().zip(baseline.top_minima()),
        _ => None,
    };
    // Hodges–Lehmann's interval of minima is unpaired (a process's state is its own).
    let paired = cfg.paired && rc == rb && minima.is_none();
    let boot_cfg = cfg.bootstrap_config();
    let pairing = if paired {
        Pairing::Rounds
    } else {
        Pairing::Independent
    };
    // The minimum of a hierarchy compares the top-level units' own minima (each execution's,
    // `Hierarchy::top_minima`) by Hodges & Lehmann's shift with the interval of the rank test
    // it must pass: the least value of all is an extreme whose bootstrap is not consistent (an
    // A/A pair of 10 executions a side left 1 out of its 95% interval in 15–24% of simulated
    // comparisons), and a mean of minima follows an execution slowed throughout
    // (docs/methodology.md, "Comparisons").
    let (cand_means, base_means) = (candidate.top_means(), baseline.top_means());
    let round_correlation = paired.then(|| correlation(&cand_means, &base_means));
    let shift = minima
        .as_ref()
        .map(|(a, b)| hodges_lehmann_ratio(a, b, cfg.level))
        .transpose()?;

    let (ratio, ci, method, fieller_result, boot) = if let Some(h) = shift {
        let method = RatioMethod::HodgesLehmann;
        let ci = RatioInterval {
            lower: h.lower,
            upper: h.upper,
            level: cfg.level,
            method,
        };
        (h.ratio, Some(ci), method, None, None)
    } else if cfg.estimator == Estimator::Mean {
        let (f, method) = if paired {
            let quantile = match cfg.df {
                DfMethod::Normal => Quantile::Normal,
                _ => Quantile::StudentT,
            };
            let method = match quantile {
                Quantile::Normal => RatioMethod::FiellerPairedNormal,
                Quantile::StudentT => RatioMethod::FiellerPaired,
            };
            (
                fieller_paired(&cand_means, &base_means, cfg.level, quantile)?,
                method,
            )
        } else {
            let method = match cfg.df {
                DfMethod::WelchSatterthwaite => RatioMethod::FiellerWelch,
                DfMethod::MinDf => RatioMethod::FiellerMinDf,
                DfMethod::Normal => RatioMethod::FiellerNormal,
            };
            let a = MeanEstimate::from_unit_means(&cand_means)?;
            let b = MeanEstimate::from_unit_means(&base_means)?;
            (fieller(&a, &b, cfg.level, cfg.df)?, method)
        };
        // The bootstrap beside Fieller's interval takes its percentiles at the expanded level
        // (Hesterberg 2015: the level whose normal quantile is √(n/(n − 1)) times Student's):
        // at the nominal level it resamples few top-level units as if they were the
        // population, and an A/A pair of 10 executions a side left 1 out 8.9% of the time at
        // 95% (6.1% expanded; 12.4% and 6.8% with 5; 1,000 seeds), so a cross-check read as
        // a finding beside an inconclusive verdict. It is reported at the nominal level.
        let expanded = BootstrapConfig {
            level: crate::dist::expanded_level(cfg.level, rc.min(rb).max(2))?,
            ..boot_cfg
        };
        let boot = beside
            .then(|| bootstrap_ratio(candidate, baseline, cfg.estimator, &expanded, pairing))
            .transpose()?
            .map(|b| BootstrapInterval {
                level: cfg.level,
                ..b
            });
        let ci = f.bounds().map(|(lower, upper)| RatioInterval {
            lower,
            upper,
            level: cfg.level,
            method,
        });
        (f.ratio, ci, method, Some(f), boot)
    } else {
        let boot = bootstrap_ratio(candidate, baseline, cfg.estimator, &boot_cfg, pairing)?;
        let method = RatioMethod::BootstrapPercentile;
        let ci = RatioInterval {
            lower: boot.lower,
            upper: boot.upper,
            level: cfg.level,
            method,
        };
        (boot.estimate, Some(ci), method, None, Some(boot))
    };

    // The p-value is of the statistic compared: a t-test of the means for the mean, the rank
    // test of the units' minima for a hierarchy's minimum, the bootstrap test dual to the
    // deciding interval for the others (a test of the means would
    // gate a minimum's verdict on how noisy the means are).
    let (p_value, p_test) = match (cfg.estimator, paired, &minima) {
        (_, _, Some((a, b))) => (mann_whitney_p(a, b), PValueTest::MannWhitney),
        (Estimator::Mean, true, None) => (
            paired_p_of_units(&cand_means, &base_means)?,
            PValueTest::PairedT,
        ),
        (Estimator::Mean, false, None) => (
            welch_p_of_units(&cand_means, &base_means)?,
            PValueTest::Welch,
        ),
        _ => (
            // bootstrap_ratio always gives it (and always runs for these estimators); a missing
            // one decides nothing.
            boot.and_then(|b| b.p_value).unwrap_or(1.0),
            PValueTest::Bootstrap,
        ),
    };
    let verdict = ci.map_or(Verdict::Unbounded, |ci| {
        verdict_from_interval(ci.lower, ci.upper, cfg.threshold)
    });
    // The least value of a flat hierarchy's interval does not shrink as 1/√n (it is set by the
    // spacing of the smallest values): no count of units is suggested for it.
    let more_units = ci
        .filter(|_| cfg.estimator != Estimator::Min || shift.is_some())
        .and_then(|ci| more_units_needed(ratio, ci.lower, ci.upper, cfg.threshold, rc.min(rb)));
    let more_units_if_none = ci
        .filter(|_| more_units.is_some() && (ratio - 1.0).abs() > cfg.threshold)
        .and_then(|ci| {
            more_units_needed(
                1.0,
                ci.lower / ratio,
                ci.upper / ratio,
                cfg.threshold,
                rc.min(rb),
            )
        });
    // With the units' minima compared, their rank test is the p-value already.
    let minima_p = (cfg.estimator == Estimator::Min).then(|| match &minima {
        Some(_) => p_value,
        None => minima_p_value(candidate, baseline),
    });
    let mut comparison = Comparison {
        estimator: cfg.estimator,
        ratio,
        ci,
        method,
        level: cfg.level,
        verdict,
        threshold: cfg.threshold,
        g: fieller_result.map(|f| f.g),
        fieller: fieller_result,
        bootstrap: boot,
        paired,
        round_correlation,
        p_value,
        p_test,
        more_units,
        more_units_if_none,
        withheld: false,
        candidate_units: rc,
        baseline_units: rb,
        at_resolution: false,
        between_sessions: None,
        minima_p,
    };
    comparison.guard_minima();
    Ok(comparison)
}

/// The two-sided p-value of no difference between the executions' own minima (each top-level
/// unit's smallest value): Mann–Whitney's rank-sum test ([`mann_whitney_p`]). A rank test,
/// since those minima are often bimodal (a process in the fast state or not), where a t-test
/// on ten of them is too ready to reject; unpaired even for interleaved rounds, which a drift
/// common to a round only makes conservative ([`Comparison::minima_hold`]).
fn minima_p_value(candidate: &Hierarchy, baseline: &Hierarchy) -> f64 {
    let minima = |h: &Hierarchy| -> Vec<f64> {
        (0..h.units(0))
            .map(|i| crate::descriptive::min(h.unit_values(0, i)))
            .collect()
    };
    mann_whitney_p(&minima(candidate), &minima(baseline))
}

/// Mann–Whitney's (Wilcoxon's rank-sum) two-sided p-value of no shift between `a` and `b`, as
/// R's `wilcox.test(a, b)` gives it: exact when both sides have fewer than
/// [`MANN_WHITNEY_EXACT_BELOW`] values and none is tied ([`mann_whitney_exact_p`]), else by the
/// normal approximation with the tie correction and a continuity correction of ½ (R's
/// `exact = FALSE, correct = TRUE`): ranks averaged over ties, `U = R_a − n_a(n_a + 1)/2`,
/// `Var U = n_a·n_b/12 · (N + 1 − Σ(t³ − t)/(N(N − 1)))`. 1 when either side is empty or every
/// value is tied. The exact form matters for few units: five builds a side entirely apart give
/// 0.0079 exactly and 0.012 approximated, which false-discovery control over six comparisons
/// then could never pass. Written here: the one rank test rigor needs, a few lines on the ranks.
pub fn mann_whitney_p(a: &[f64], b: &[f64]) -> f64 {
    let (na, nb) = (a.len(), b.len());
    if na == 0 || nb == 0 {
        return 1.0;
    }
    let mut all: Vec<(f64, bool)> = a
        .iter()
        .map(|&v| (v, true))
        .chain(b.iter().map(|&v| (v, false)))
        .collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    let n = all.len();
    let (mut rank_a, mut ties, mut i) = (0.0, 0.0, 0);
    while i < n {
        let mut j = i;
        while j + 1 < n && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        rank_a += rank * all[i..=j].iter().filter(|x| x.1).count() as f64;
        let t = (j - i + 1) as f64;
        ties += t * t * t - t;
        i = j + 1;
    }
    if ties == 0.0 && na < MANN_WHITNEY_EXACT_BELOW && nb < MANN_WHITNEY_EXACT_BELOW {
        // Without ties the ranks are 1..N and U an integer.
        let u = (rank_a - (na * (na + 1)) as f64 / 2.0).round() as usize;
        return mann_whitney_exact_p(u, na, nb);
    }
    let (na, nb, n) = (na as f64, nb as f64, n as f64);
    let u = rank_a - na * (na + 1.0) / 2.0;
    let var = na * nb / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    if var <= 0.0 {
        return 1.0;
    }
    let z = ((u - na * nb / 2.0).abs() - 0.5).max(0.0) / var.sqrt();
    two_sided_p(z, f64::INFINITY)
}

/// Sides at least this large take Mann–Whitney's normal approximation (R's `wilcox.test` the
/// same: exact below 50 values a side).
pub const MANN_WHITNEY_EXACT_BELOW: usize = 50;

/// The exact two-sided p-value of Mann–Whitney's `u` (pairs with a value of the first side above
/// one of the second) for sides of `na` and `nb` values without ties: `2·min(P(U ≤ u), P(U ≥ u))`
/// under every arrangement equally likely, at most 1. The arrangements with each U are counted
/// by the recurrence `c(m, n, u) = c(m − 1, n, u − n) + c(m, n − 1, u)` (the largest value is
/// from the first side, above all n of the second, or from the second), row by row in f64: the
/// counts, up to C(98, 49) ≈ 2.5·10²⁸, keep their ratios to within rounding.
pub fn mann_whitney_exact_p(u: usize, na: usize, nb: usize) -> f64 {
    let top = na * nb;
    if top == 0 {
        return 1.0;
    }
    let counts = mann_whitney_counts(na, nb);
    let total: f64 = counts.iter().sum();
    let u = u.min(top);
    let below: f64 = counts[..=u].iter().sum();
    let above: f64 = counts[u..].iter().sum();
    (2.0 * below.min(above) / total).min(1.0)
}

/// The number of arrangements of `na` and `nb` values without ties with each Mann–Whitney U,
/// `0..=na·nb` (see [`mann_whitney_exact_p`]).
fn mann_whitney_counts(na: usize, nb: usize) -> Vec<f64> {
    let top = na * nb;
    // prev[j] = counts for (i − 1, j); row[j] for (i, j). c(0, j, 0) = c(i, 0, 0) = 1.
    let unit = |len: usize| {
        let mut v = vec![0.0; len + 1];
        v[0] = 1.0;
        v
    };
    let mut prev: Vec<Vec<f64>> = (0..=nb).map(|_| unit(top)).collect();
    for _ in 0..na {
        let mut row: Vec<Vec<f64>> = Vec::with_capacity(nb + 1);
        row.push(unit(top));
        for j in 1..=nb {
            let mut c = row[j - 1].clone();
            for (k, slot) in c.iter_mut().enumerate().skip(j) {
                *slot += prev[j][k - j];
            }
            row.push(c);
        }
        prev = row;
    }
    prev.swap_remove(nb)
}

/// Geometric mean of the ratios of a suite of benchmarks, `exp(mean_i ln θ̂_i)`, with a bootstrap
/// percentile interval (the index convention of the hierarchical bootstrap).
///
/// `pairs[i]` is (candidate, baseline) of benchmark i and θ̂_i = estimator(candidate) /
/// estimator(baseline) of its pooled values, as in [`bootstrap_ratio`]. Each bootstrap resample
/// resamples every benchmark's top-level units — independently per benchmark, and per system or
/// per round according to `pairing` — and takes the geometric mean of the resampled ratios.
/// Benchmark i draws from the streams of seed `splitmix64(cfg.seed + i·φ)` (φ the 64-bit golden
/// ratio), so the result is reproducible from `cfg.seed` and independent of the thread count.
///
/// The returned interval reports `cfg.seed`, `Some(pairing)` and the estimator.
///
/// Errors: no benchmarks, an invalid configuration, fewer than two top-level units, a
/// non-positive ratio or replicate (no logarithm).
pub fn geometric_mean_ratio(
    pairs: &[(&Hierarchy, &Hierarchy)],
    estimator: Estimator,
    cfg: &BootstrapConfig,
    pairing: Pairing,
) -> Result<BootstrapInterval> {
    if pairs.is_empty() {
        return Err(StatsError::TooFew {
            what: "a geometric mean of ratios (benchmarks)",
            needed: 1,
            got: 0,
        });
    }
    cfg.validate()?;
    estimator.validate()?;
    let k = pairs.len() as f64;
    let mut log_sums = vec![0.0; cfg.resamples];
    let mut log_estimate = 0.0;
    for (i, (cand, base)) in pairs.iter().enumerate() {
        let bench_cfg = BootstrapConfig {
            seed: benchmark_seed(cfg.seed, i),
            ..*cfg
        };
        let reps = ratio_replicates(cand, base, estimator, &bench_cfg, pairing)?;
        let estimate = estimator.of_hierarchy(cand) / estimator.of_hierarchy(base);
        log_estimate += positive_log(estimate)?;
        for (sum, r) in log_sums.iter_mut().zip(&reps) {
            *sum += positive_log(*r)?;
        }
    }
    let replicates: Vec<f64> = log_sums.iter().map(|s| (s / k).exp()).collect();
    finish(
        (log_estimate / k).exp(),
        replicates,
        estimator,
        cfg,
        Some(pairing),
    )
}

/// An interval for a suite's geometric mean of mean ratios: [`geometric_mean_ratio_welch`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SuiteInterval {
    /// `G = (Π θᵢ)^(1/k)`, θᵢ the ratio of benchmark i's means of top-level means.
    pub estimate: f64,
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// Confidence level.
    pub level: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
}

/// The interval for a suite's geometric mean of mean ratios from the top-level means, on the
/// log scale: `ln G = (1/k)·Σ (ln Ȳ_cᵢ − ln Ȳ_bᵢ)` with the delta-method variance
/// `Var(ln G) ≈ (1/k²)·Σ (v_cᵢ/Ȳ_cᵢ² + v_bᵢ/Ȳ_bᵢ²)`, `v = S²/r` (each system's top-level means
/// independent of the others'), and Student's t with Welch–Satterthwaite degrees of freedom
/// over the 2k terms, `df = (Σ u)² / Σ (u²/(r − 1))`, `u = v/Ȳ²`. The interval is
/// `exp(ln G ± t·√Var(ln G))`.
///
/// For one benchmark it is the log-scale counterpart of Fieller's interval with Welch's degrees
/// of freedom (to first order the same). The percentile bootstrap used before for the mean
/// resampled few top-level units as if they were the population: with 10 executions a side it
/// covered an A/A suite's ratio of 1 93.0–93.4% of the time at 95%, this interval 95.1–96.2%
/// (`tests/compare_simulation.rs`, 2,000 seeds, 1 and 3 benchmarks).
///
/// # Errors
/// No pairs; a benchmark with fewer than two top-level units or a mean that is not positive.
pub fn geometric_mean_ratio_welch(
    pairs: &[(&Hierarchy, &Hierarchy)],
    level: f64,
) -> Result<SuiteInterval> {
    check_level(level)?;
    if pairs.is_empty() {
        return Err(StatsError::TooFew {
            what: "a geometric mean of ratios (benchmarks)",
            needed: 1,
            got: 0,
        });
    }
    let k = pairs.len() as f64;
    let (mut log_sum, mut u_sum, mut u2_df) = (0.0, 0.0, 0.0);
    for (cand, base) in pairs {
        for (h, sign) in [(cand, 1.0), (base, -1.0)] {
            let m = MeanEstimate::from_hierarchy(h)?;
            log_sum += sign * positive_log(m.mean)?;
            let u = m.var_of_mean() / (m.mean * m.mean);
            u_sum += u;
            u2_df += u * u / (m.n - 1) as f64;
        }
    }
    let log_g = log_sum / k;
    let estimate = log_g.exp();
    if u_sum == 0.0 {
        return Ok(SuiteInterval {
            estimate,
            lower: estimate,
            upper: estimate,
            level,
            df: f64::INFINITY,
        });
    }
    let df = u_sum * u_sum / u2_df;
    let t = crate::dist::critical_value(level, df, Quantile::StudentT)?;
    let half = t * u_sum.sqrt() / k;
    Ok(SuiteInterval {
        estimate,
        lower: (log_g - half).exp(),
        upper: (log_g + half).exp(),
        level,
        df,
    })
}

/// The range of a suite's geometric-mean ratio that its members' measurement resolution leaves
/// open: member i's ratio is known only to lie in `ranges[i]` (its two estimates each ± half a
/// step of the clock: `rigor_units::Resolution::floor_ratio`), and the geometric mean, increasing
/// in every ratio, then lies between the geometric mean of the lower ends and that of the upper
/// ends. The ends go together because rounding to a clock's step is a systematic error, not
/// noise that averages out over the members: one clock, and nothing stops every member's
/// estimate from being rounded the same way. A suite's bootstrap interval (which sees only the
/// values as rounded) is widened to contain this range, as each member's interval is widened to
/// contain its own. A lower end of 0 gives 0, an infinite upper end infinity; `None` for no
/// members.
pub fn geometric_mean_range(ranges: &[(f64, f64)]) -> Option<(f64, f64)> {
    if ranges.is_empty() {
        return None;
    }
    let k = ranges.len() as f64;
    let mean_log =
        |end: fn(&(f64, f64)) -> f64| ranges.iter().map(|r| end(r).ln()).sum::<f64>() / k;
    Some((mean_log(|r| r.0).exp(), mean_log(|r| r.1).exp()))
}

fn positive_log(ratio: f64) -> Result<f64> {
    if ratio > 0.0 && ratio.is_finite() {
        Ok(ratio.ln())
    } else {
        Err(StatsError::InvalidParameter {
            name: "ratio",
            value: ratio.to_string(),
            reason: "a geometric mean needs positive finite ratios",
        })
    }
}

/// The seed of benchmark `i` in a suite bootstrap: SplitMix64 of `seed + i·φ`.
fn benchmark_seed(seed: u64, i: usize) -> u64 {
    let mut z = seed.wrapping_add((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_non_overlap_rule_on_any_two_intervals() {
        assert_eq!(overlap_of((1.1, 1.2), (1.0, 1.05)), Verdict::Regression);
        assert_eq!(overlap_of((0.8, 0.9), (1.0, 1.05)), Verdict::Improvement);
        assert_eq!(overlap_of((0.9, 1.0), (1.0, 1.05)), Verdict::Inconclusive);
    }

    use super::*;

    /// scipy: `t.ppf(0.975, 2)` = 4.302652729749462; the extra log half-width
    /// 4.3027 · 0.05 · √2, combined in quadrature with ln 1.1 − ln 1.05 and ln 1.15 − ln 1.1,
    /// gives [0.8085851313204022, 1.4959835093589648]; `statistics.stdev` of the logs of 1,
    /// 1.05, 0.97 is 0.0399764646341085.
    #[test]
    fn a_baseline_from_another_session_widens_by_the_spread_between_sessions() {
        let spread = SessionSpread::of(&[1.0, 1.05, 0.97]).unwrap();
        assert_eq!(spread.sessions, 3);
        assert!((spread.sigma_log.unwrap() - 0.039_976_464_634_108_5).abs() < 1e-12);
        assert_eq!(SessionSpread::of(&[2.0]).unwrap().sigma_log, None);
        assert!(SessionSpread::of(&[1.0, 0.0]).is_none());
        let h = Hierarchy::flat("execution", vec![1.0, 1.01, 0.99, 1.0]).unwrap();
        let mut c = compare(&h, &h, &CompareConfig::default()).unwrap();
        c.ratio = 1.1;
        c.ci = c.ci.map(|ci| RatioInterval {
            lower: 1.05,
            upper: 1.15,
            ..ci
        });
        c.verdict = Verdict::Regression;
        c.widen_for_sessions(SessionSpread {
            sessions: 3,
            sigma_log: Some(0.05),
        });
        let ci = c.ci.unwrap();
        assert!((ci.lower - 0.808_585_131_320_402_2).abs() < 1e-9, "{ci:?}");
        assert!((ci.upper - 1.495_983_509_364_898_6).abs() < 1e-9, "{ci:?}");
        assert_eq!(c.verdict, Verdict::Inconclusive);
        assert_eq!(c.p_value, 1.0);
        // One session cannot tell how far a session moves the statistic: no verdict.
        let mut one = compare(&h, &h, &CompareConfig::default()).unwrap();
        one.widen_for_sessions(SessionSpread::of(&[1.0]).unwrap());
        assert_eq!(one.verdict, Verdict::Inconclusive);
        assert!(one.ci.unwrap().upper.is_infinite());
        // Withheld (two sides measured under loads that no interval holds): the same, whatever
        // the data said.
        c.verdict = Verdict::Regression;
        c.withhold();
        let ci = c.ci.unwrap();
        assert_eq!((ci.lower, ci.upper), (0.0, f64::INFINITY));
        assert_eq!(
            (c.verdict, c.p_value, c.more_units),
            (Verdict::Inconclusive, 1.0, None)
        );
    }

    /// Same code measured in sessions that each shift the statistic by a random factor (σ = 5%
    /// on the log scale), 20 executions of 1% noise per session: the within-run interval of a new
    /// session against the last of 5 baseline sessions rarely holds the true ratio 1; widened
    /// by the spread estimated from the 5 sessions it holds it at least 95% of the time.
    #[test]
    fn the_widened_interval_covers_the_truth_across_sessions() {
        use rand::SeedableRng;
        use rand_distr::{Distribution, Normal};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2006);
        let session = Normal::new(0.0, 0.05).unwrap();
        let noise = Normal::new(0.0, 0.01).unwrap();
        let measure = |rng: &mut rand_chacha::ChaCha8Rng| {
            let shift: f64 = session.sample(rng);
            let values = (0..20).map(|_| (shift + noise.sample(rng)).exp()).collect();
            Hierarchy::flat("execution", values).unwrap()
        };
        let trials = 400;
        let (mut within, mut widened) = (0, 0);
        for _ in 0..trials {
            let sessions: Vec<Hierarchy> = (0..5).map(|_| measure(&mut rng)).collect();
            let means: Vec<f64> = sessions.iter().map(|h| mean(h.values())).collect();
            let new = measure(&mut rng);
            let mut c = compare(&new, &sessions[4], &CompareConfig::default()).unwrap();
            let holds = |c: &Comparison| c.ci.is_some_and(|ci| ci.lower <= 1.0 && 1.0 <= ci.upper);
            within += usize::from(holds(&c));
            c.widen_for_sessions(SessionSpread::of(&means).unwrap());
            widened += usize::from(holds(&c));
        }
        let (within, widened) = (
            within as f64 / trials as f64,
            widened as f64 / trials as f64,
        );
        eprintln!("coverage of the true ratio: within-run {within}, widened {widened}");
        assert!(within < 0.5, "within-run coverage {within}");
        assert!(widened >= 0.95, "widened coverage {widened}");
    }

    /// Member ranges [0.99, 1.02], [1.5, 1.6], [0.25, 0.5]: the cube roots of
    /// 0.99·1.5·0.25 = 0.37125 and 1.02·1.6·0.5 = 0.816 (Python:
    /// `math.prod(ends) ** (1/3)` = 0.7187129785594176 and 0.934465745671052).
    #[test]
    fn a_suites_geometric_mean_spans_its_members_ranges() {
        let (lo, hi) = geometric_mean_range(&[(0.99, 1.02), (1.5, 1.6), (0.25, 0.5)]).unwrap();
        assert!((lo - 0.718_712_978_559_417_6).abs() < 1e-12, "{lo}");
        assert!((hi - 0.934_465_745_671_052).abs() < 1e-12, "{hi}");
        // A member without a step contributes its ratio to both ends.
        let (lo, hi) = geometric_mean_range(&[(2.0, 2.0), (0.5, 2.0)]).unwrap();
        assert!(
            (lo - 1.0).abs() < 1e-12 && (hi - 2.0).abs() < 1e-12,
            "{lo} {hi}"
        );
        // A baseline within half a step of zero bounds nothing above; a lower end of 0 is 0.
        assert_eq!(
            geometric_mean_range(&[(0.0, f64::INFINITY), (1.0, 1.0)]),
            Some((0.0, f64::INFINITY))
        );
        assert_eq!(geometric_mean_range(&[]), None);
    }

    #[test]
    fn covariance_and_correlation() {
        let x = [1.0, 2.0, 3.0, 4.0];
        let y = [2.0, 4.0, 6.0, 8.0];
        assert!((covariance(&x, &y) - 10.0 / 3.0).abs() < 1e-12);
        assert!((correlation(&x, &y) - 1.0).abs() < 1e-12);
        assert_eq!(correlation(&x, &[1.0; 4]), 0.0);
    }

    #[test]
    fn two_sided_p_values() {
        // R: 2 * pt(-2.262157, 9) = 0.05; 2 * pnorm(-1.959964) = 0.05.
        assert!((two_sided_p(2.262_157, 9.0) - 0.05).abs() < 1e-6);
        assert!((two_sided_p(-1.959_964, f64::INFINITY) - 0.05).abs() < 1e-6);
        assert_eq!(two_sided_p(f64::INFINITY, 3.0), 0.0);
        assert_eq!(two_sided_p(f64::NAN, 3.0), 1.0);
        assert_eq!(two_sided_p(0.0, 3.0), 1.0);
    }

    /// Replicates 0.9, 0.95, 1.0, 1.05, 1.1, 1.2, …, 1.6: 2.5 below 1 (the tie counts half),
    /// 7.5 above, so p = 2·2.5/10 = 0.5 (by hand).
    #[test]
    fn bootstrap_p_values_by_hand() {
        use crate::bootstrap::two_sided_p_value;
        let r = [0.9, 0.95, 1.0, 1.05, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6];
        assert!((two_sided_p_value(&r, 1.0) - 0.5).abs() < 1e-15);
        assert_eq!(two_sided_p_value(&[1.1, 1.2, 1.3], 1.0), 0.0);
        assert_eq!(two_sided_p_value(&[0.5, 1.5], 1.0), 1.0);
        assert_eq!(two_sided_p_value(&[], 1.0), 1.0);
    }

    /// Executions whose minimum is 8.9 (baseline) or 15.1 (candidate, +70%) but whose means are
    /// dominated by disturbed executions: a test of the means sees nothing (Welch p ≈ 0.6), the
    /// minimum's interval is far from 1, and the p-value that false-discovery control reads must
    /// be the minimum's own (as `rigor bench -r 30` found: "70% slower … inconclusive, p = 0.618").
    fn outlier_runs(floor: f64, seed: u64) -> Hierarchy {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut b = crate::HierarchyBuilder::new(["execution", "iteration"]);
        for e in 0..30usize {
            // A disturbed execution (another tenant, a migration) is slow throughout.
            let disturbed = if rng.gen_bool(0.3) {
                200.0 * rng.r#gen::<f64>()
            } else {
                0.0
            };
            for _ in 0..20 {
                b.push(&[e], floor * (1.0 + 0.01 * rng.r#gen::<f64>()) + disturbed);
            }
        }
        b.build().unwrap()
    }

    #[test]
    fn the_minimums_verdict_is_tested_on_the_minimum() {
        let (base, cand) = (outlier_runs(8.9, 1), outlier_runs(15.1, 2));
        let cfg = CompareConfig {
            estimator: Estimator::Min,
            ..CompareConfig::default()
        };
        let c = compare(&cand, &base, &cfg).unwrap();
        let welch = welch_p_value(&cand, &base).unwrap();
        assert!(
            welch > 0.05,
            "the means must not show it: Welch p = {welch}"
        );
        assert_eq!(c.verdict, Verdict::Regression);
        assert_eq!(c.method, RatioMethod::HodgesLehmann);
        assert_eq!(c.p_test, PValueTest::MannWhitney);
        assert!(c.p_value < 0.001, "p = {}", c.p_value);
        assert_eq!(
            c.p_test.describe(c.estimator),
            "Mann–Whitney test of the units' own minima"
        );
        // The least value of each side moved by 70%; so does the shift of the executions'
        // minima, which the disturbed executions move little.
        assert!(
            (c.ratio - 15.1 / 8.9).abs() < 0.1 * 15.1 / 8.9,
            "{}",
            c.ratio
        );
        // The mean keeps its t-tests.
        let m = compare(&cand, &base, &CompareConfig::default()).unwrap();
        assert_eq!(m.p_test, PValueTest::Welch);
        assert!((m.p_value - welch).abs() < 1e-12);
    }

    /// The bootstrap p-value is dual to the percentile interval: whenever the interval leaves 1
    /// out, p ≤ α (so a lone comparison's verdict survives a Benjamini–Hochberg step at α),
    /// and whenever p ≤ α/2 the interval leaves 1 out. Seeded data of every kind of overlap.
    #[test]
    fn bootstrap_p_values_agree_with_their_intervals() {
        for seed in 0..40u64 {
            let shift = 1.0 + 0.004 * (seed % 10) as f64;
            let (base, cand) = (
                outlier_runs(10.0, 100 + seed),
                outlier_runs(10.0 * shift, 200 + seed),
            );
            // The minimum's Hodges–Lehmann interval and its rank test agree.
            let min = compare(
                &cand,
                &base,
                &CompareConfig {
                    estimator: Estimator::Min,
                    ..CompareConfig::default()
                },
            )
            .unwrap();
            let ci = min.ci.unwrap();
            let alpha = 1.0 - min.level;
            assert_eq!(
                ci.lower > 1.0 || ci.upper < 1.0,
                min.p_value <= alpha,
                "seed {seed}: {ci:?}, p = {}",
                min.p_value
            );
            for estimator in [Estimator::Median, Estimator::TrimmedMean(0.1)] {
                let cfg = CompareConfig {
                    estimator,
                    bootstrap: BootstrapConfig {
                        resamples: 2_000,
                        seed,
                        ..BootstrapConfig::default()
                    },
                    ..CompareConfig::default()
                };
                let c = compare(&cand, &base, &cfg).unwrap();
                let ci = c.ci.unwrap();
                let alpha = 1.0 - c.level;
                // The bootstrap's own test; the comparison's p-value is at least it (for the
                // minimum, the larger of it and the executions' minima's test).
                let p = c.bootstrap.and_then(|b| b.p_value).unwrap();
                assert!(c.p_value >= p);
                if ci.lower > 1.0 || ci.upper < 1.0 {
                    assert!(p <= alpha, "seed {seed}: {ci:?} but p = {p}");
                }
                if p <= alpha / 2.0 {
                    assert!(
                        ci.lower > 1.0 || ci.upper < 1.0,
                        "seed {seed}: p = {p} but {ci:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn deciding_alone_skips_only_the_bootstrap_beside_fieller() {
        let unit = |m: f64| -> Vec<Vec<f64>> {
            (0..8)
                .map(|e| (0..5).map(|i| m + (e * 7 + i * 3) as f64 % 5.0).collect())
                .collect()
        };
        let a = Hierarchy::two_level(["execution", "iteration"], &unit(100.0)).unwrap();
        let b = Hierarchy::two_level(["execution", "iteration"], &unit(110.0)).unwrap();
        for paired in [false, true] {
            let cfg = CompareConfig {
                paired,
                ..CompareConfig::default()
            };
            let full = compare(&b, &a, &cfg).unwrap();
            let deciding = compare_deciding(&b, &a, &cfg).unwrap();
            assert!(full.bootstrap.is_some() && deciding.bootstrap.is_none());
            assert_eq!(
                Comparison {
                    bootstrap: None,
                    ..full
                },
                deciding
            );
            // The bootstrap decides for other estimators: computed all the same.
            let median = CompareConfig {
                estimator: Estimator::Median,
                ..cfg
            };
            assert_eq!(
                compare(&b, &a, &median).unwrap(),
                compare_deciding(&b, &a, &median).unwrap()
            );
        }
    }

    #[test]
    fn benchmark_seeds_differ() {
        let s: Vec<u64> = (0..4).map(|i| benchmark_seed(7, i)).collect();
        for i in 0..4 {
            for j in 0..i {
                assert_ne!(s[i], s[j]);
            }
        }
    }

    /// `executions` executions of 100 samples each; execution `e` runs in the fast state
    /// (0.65 ns) when `fast(e)`, else in the slow one (1.0 ns), with every sample a little above
    /// its state's floor — the shape of a tiny function whose speed depends on its code's
    /// placement in each process (a new user's `rigor bench` trial).
    fn bimodal(executions: usize, fast: impl Fn(usize) -> bool, scale: f64) -> Hierarchy {
        let units: Vec<Vec<f64>> = (0..executions)
            .map(|e| {
                let floor = if fast(e) {
                    0.65
                } else {
                    1.0 + 0.03 * (e % 4) as f64
                };
                (0..100)
                    .map(|i| scale * (floor + 0.002 * ((e * 31 + i * 17) % 23) as f64))
                    .collect()
            })
            .collect();
        Hierarchy::two_level(["execution", "iteration"], &units).unwrap()
    }

    /// Identical code whose executions land in a fast or a slow state: one side with no fast
    /// execution in 10 had a minimum 55% above the other's, with a bootstrap interval that
    /// excluded 1 (the bootstrap cannot draw the state it never saw). The executions' own
    /// minima do not differ beyond their spread, so no change is claimed; a real change that
    /// moves every execution still is.
    #[test]
    fn a_minimum_that_rests_on_a_process_state_one_side_missed_is_no_change() {
        let baseline = bimodal(10, |e| e % 3 == 0, 1.0);
        let candidate = bimodal(10, |_| false, 1.0);
        for paired in [false, true] {
            let cfg = CompareConfig {
                estimator: Estimator::Min,
                paired,
                ..CompareConfig::default()
            };
            let c = compare(&candidate, &baseline, &cfg).unwrap();
            let ci = c.ci.unwrap();
            // The least of all was 55% above the other side's, with a bootstrap interval that
            // left 1 out; the executions' own minima, located by Huber's estimate, hold no
            // change (their mixture of states spreads them).
            assert!(ci.lower <= 1.0 && ci.upper > 1.0, "{c:?}");
            let p = c.minima_p.unwrap();
            assert!(p > 0.05, "the executions' minima: p = {p}");
            assert_eq!(c.verdict, Verdict::Inconclusive, "paired: {paired}");
            assert!(!c.demoted_by_minima());
            // An interval beyond the threshold that the rank test of the minima does not bear
            // out is said to be demoted by them.
            let beyond = Comparison {
                ci: Some(RatioInterval {
                    lower: 1.2,
                    upper: 1.5,
                    ..ci
                }),
                ..c
            };
            assert!(beyond.demoted_by_minima());
            let wide = Comparison {
                ci: Some(RatioInterval {
                    lower: 0.94,
                    upper: 2.3,
                    ..ci
                }),
                ..c
            };
            assert!(!wide.demoted_by_minima());
            assert!(c.p_value >= p);
            // Every execution 10% slower: a regression, by both tests — at once when the
            // executions share one state, from 20 executions a side when they are split between
            // two (the states' mixture then spreads the minima as much as the change moves them).
            let one_state = bimodal(10, |_| false, 1.0);
            let slower = bimodal(10, |_| false, 1.1);
            let c = compare(&slower, &one_state, &cfg).unwrap();
            assert_eq!(c.verdict, Verdict::Regression, "paired: {paired}: {c:?}");
            assert!(c.minima_p.unwrap() < 0.001);
            let split = bimodal(20, |e| e % 5 < 2, 1.0);
            let slower = bimodal(20, |e| e % 5 < 2, 1.1);
            let c = compare(&slower, &split, &cfg).unwrap();
            assert_eq!(c.verdict, Verdict::Regression, "paired: {paired}: {c:?}");
        }
        // Other estimators carry no such test.
        let mean = compare(&candidate, &baseline, &CompareConfig::default()).unwrap();
        assert_eq!(mean.minima_p, None);
    }

    /// R's `wilcox.test(a, b, exact = FALSE, correct = TRUE)` formula computed independently
    /// (Python, math.erfc) for these samples.
    #[test]
    fn mann_whitney_matches_the_normal_approximation_with_ties_and_continuity() {
        let p = mann_whitney_p(&[1.0, 2.0, 3.0, 4.0, 5.0], &[3.0, 6.0, 7.0, 8.0, 9.0]);
        assert!((p - 0.046_532_985_074_510_6).abs() < 1e-9, "{p}");
        let p = mann_whitney_p(
            &[0.65, 0.65, 0.65, 0.65, 1.0, 1.03, 1.06, 1.09, 1.0, 1.03],
            &[1.0, 1.03, 1.06, 1.09, 1.0, 1.03, 1.06, 1.09, 1.0, 1.03],
        );
        assert!((p - 0.096_535_272_735_822_42).abs() < 1e-9, "{p}");
        assert_eq!(mann_whitney_p(&[1.0, 1.0], &[1.0, 1.0]), 1.0);
        assert_eq!(mann_whitney_p(&[], &[1.0]), 1.0);
    }

    /// Units' minima entirely apart are told by the exact test's least p for their counts, and
    /// a p that Mann–Whitney set (above the bootstrap's, and above 0.001) is told as its.
    #[test]
    fn minima_apart_and_a_p_set_by_them_are_told() {
        let cfg = CompareConfig {
            estimator: Estimator::Min,
            ..CompareConfig::default()
        };
        let c = compare(
            &bimodal(10, |_| false, 1.2),
            &bimodal(10, |_| false, 1.0),
            &cfg,
        )
        .unwrap();
        // As a flat minimum's bootstrap test would give it.
        let three = Comparison {
            p_test: PValueTest::Bootstrap,
            candidate_units: 3,
            baseline_units: 3,
            minima_p: Some(0.1),
            p_value: 0.1,
            ..c
        };
        assert!(three.minima_apart() && three.p_from_minima());
        let overlapping = Comparison {
            minima_p: Some(0.2),
            p_value: 0.2,
            ..three
        };
        assert!(!overlapping.minima_apart() && overlapping.p_from_minima());
        let tiny = Comparison {
            minima_p: Some(0.0005),
            p_value: 0.0005,
            ..three
        };
        assert!(!tiny.p_from_minima());
        let many = Comparison {
            candidate_units: 60,
            baseline_units: 60,
            ..three
        };
        assert!(!many.minima_apart());
        // Ten a side apart give the least p (2 / C(20, 10) ≈ 1.1e-5), which passes 95%: not
        // "so few cannot show it" (the verdict was inconclusive for another reason).
        let ten = Comparison {
            candidate_units: 10,
            baseline_units: 10,
            minima_p: Some(mann_whitney_exact_p(0, 10, 10)),
            ..three
        };
        assert!(!ten.minima_apart());
    }

    /// Hodges–Lehmann's ratio of minima and its interval against an independent computation
    /// (Python: the 30 log ratios sorted by hand, and the rank-sum distribution by enumerating
    /// all 462 splits of 11 ranks into 5 and 6 with itertools.combinations): q = 4, the 4th log
    /// ratio from each end, coverage 1 − 2·P(U ≤ 3) = 0.9697.
    #[test]
    fn hodges_lehmann_matches_an_enumeration() {
        let c = [1.10, 1.31, 1.25, 1.42, 1.19];
        let b = [1.00, 1.05, 0.98, 1.12, 1.02, 1.07];
        let h = hodges_lehmann_ratio(&c, &b, 0.95).unwrap();
        assert!((h.ratio - 1.202322016471676).abs() < 1e-12, "{h:?}");
        assert!((h.lower - 1.0625).abs() < 1e-12, "{h:?}");
        assert!((h.upper - 1.352380952380952).abs() < 1e-12, "{h:?}");
        assert!((h.achieved - 0.9696969696969697).abs() < 1e-12, "{h:?}");
        // Too few for the level: the whole range; bad input is an error.
        let few = hodges_lehmann_ratio(&c[..3], &b[..3], 0.95).unwrap();
        assert_eq!((few.lower, few.upper), (0.0, f64::INFINITY));
        assert!(hodges_lehmann_ratio(&c[..1], &b, 0.95).is_err());
        assert!(hodges_lehmann_ratio(&[1.0, 0.0], &b, 0.95).is_err());
        assert!(hodges_lehmann_ratio(&c, &b, 1.0).is_err());
    }

    /// With no change, the interval of the executions' minima holds its level, whatever their
    /// shape: 400 A/A pairs of 10 executions a side each, of minima spread by a process floor
    /// (2%·Exp), of two process states (a quarter faster in two of five processes) and of
    /// executions slowed throughout (three in ten, by up to 30%); the least of all samples,
    /// bootstrapped, had left 1 out in 15–24% of such pairs.
    #[test]
    fn the_minimums_interval_holds_its_level_on_a_a_pairs() {
        use rand::{Rng, SeedableRng};
        use rand_distr::{Distribution, Exp};
        let exp = Exp::new(1.0).unwrap();
        for shape in 0..3 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11 + shape);
            let side = |rng: &mut rand_chacha::ChaCha8Rng| -> Vec<f64> {
                (0..10)
                    .map(|_| {
                        let mut floor = 1.0 + 0.02 * exp.sample(rng);
                        match shape {
                            1 if rng.gen_bool(0.4) => floor *= 0.75,
                            2 if rng.gen_bool(0.3) => floor *= 1.0 + 0.3 * rng.r#gen::<f64>(),
                            _ => {}
                        }
                        floor
                    })
                    .collect()
            };
            let runs = 400;
            let excluded = (0..runs)
                .filter(|_| {
                    let (a, b) = (side(&mut rng), side(&mut rng));
                    let h = hodges_lehmann_ratio(&a, &b, 0.95).unwrap();
                    h.lower > 1.0 || h.upper < 1.0
                })
                .count();
            // 95% nominal (97% reached by the discreteness at 10 a side): at most 8% out, a
            // bound 3 standard errors above 5%.
            assert!(
                excluded <= runs * 8 / 100,
                "shape {shape}: {excluded} of {runs}"
            );
        }
    }

    /// Without ties and below 50 a side, the exact p-value, as R's `wilcox.test(a, b)` gives it:
    /// the oracle enumerates every split of the pooled values (Python, itertools.combinations).
    #[test]
    fn mann_whitney_is_exact_for_few_untied_values() {
        let close = |a: &[f64], b: &[f64], want: f64| {
            let p = mann_whitney_p(a, b);
            assert!((p - want).abs() < 1e-12, "{a:?} {b:?}: {p} against {want}");
            // Symmetric in its sides.
            assert!((mann_whitney_p(b, a) - want).abs() < 1e-12);
        };
        close(
            &[1.0, 2.0, 3.0, 4.0, 5.0],
            &[6.0, 7.0, 8.0, 9.0, 10.0],
            0.007_936_507_936_507_936,
        );
        close(
            &[1.0, 2.0, 3.0, 4.0, 5.0],
            &[3.5, 6.0, 7.0, 8.0, 9.0],
            0.031_746_031_746_031_744,
        );
        close(
            &[6.1, 6.2, 6.25, 6.3, 6.4, 6.5],
            &[5.6, 5.7, 5.8, 5.9, 6.0, 6.15],
            0.004_329_004_329_004_329,
        );
        close(
            &[2.0, 7.5, 3.1],
            &[4.2, 1.1, 9.9, 5.5],
            0.857_142_857_142_857_1,
        );
        // The counts sum to C(na + nb, na); the middle of the distribution gives 1.
        assert_eq!(mann_whitney_exact_p(12, 5, 5), 1.0);
        assert_eq!(mann_whitney_exact_p(0, 0, 3), 1.0);
        // At 49 a side still exact: entirely apart, 2 / C(98, 49).
        let p = mann_whitney_exact_p(0, 49, 49);
        assert!(p > 0.0 && p < 1e-27, "{p}");
    }

    fn tied(value: f64) -> Hierarchy {
        let mut b = crate::HierarchyBuilder::new(["execution", "iteration"]);
        for e in 0..10usize {
            for _ in 0..20 {
                b.push(&[e], value);
            }
        }
        b.build().unwrap()
    }

    #[test]
    fn widening_to_the_resolution_recomputes_the_verdict() {
        // Every sample of the candidate reads 3.02 ns and of the baseline 3.00 ns: one step of
        // 0.02 ns apart. The bootstrap of the minimum has zero width at 3.02/3.00 = 1.00667,
        // a "regression" beyond a 0.5% threshold that the clock cannot support.
        let cfg = CompareConfig {
            estimator: Estimator::Min,
            threshold: 0.005,
            paired: true,
            ..CompareConfig::default()
        };
        let mut c = compare(&tied(3.02), &tied(3.0), &cfg).unwrap();
        let ci = c.ci.unwrap();
        assert_eq!(ci.lower, ci.upper);
        assert_eq!(c.verdict, Verdict::Regression);
        assert!(!c.at_resolution);
        assert!(
            c.p_value < 0.001,
            "every replicate is 1.00667: p = {}",
            c.p_value
        );
        // ± half a step on each: (3.02 − 0.01)/(3.00 + 0.01) = 1 to 3.03/2.99.
        let (lo, hi) = (3.01 / 3.01, 3.03 / 2.99);
        c.widen(lo, hi);
        let ci = c.ci.unwrap();
        assert_eq!((ci.lower, ci.upper), (lo, hi));
        assert!(c.at_resolution);
        assert_eq!(c.verdict, Verdict::Inconclusive);
        assert_eq!(
            c.more_units, None,
            "more units cannot narrow the clock's step"
        );
        assert_eq!(c.p_value, 1.0, "the resolution cannot exclude no change");
        // An interval already containing the range is left alone.
        let before = c;
        c.widen(1.001, 1.002);
        assert_eq!(c.ci, before.ci);
    }

    #[test]
    fn rejects_impossible_covariance() {
        let a = MeanEstimate::new(1.0, 1.0, 5).unwrap();
        let b = MeanEstimate::new(1.0, 1.0, 5).unwrap();
        assert!(fieller_with_covariance(&a, &b, 0.5, 0.95, DfMethod::MinDf).is_err());
        assert!(fieller_with_covariance(&a, &b, f64::NAN, 0.95, DfMethod::MinDf).is_err());
        assert!(fieller_with_covariance(&a, &b, 0.2, 0.95, DfMethod::MinDf).is_ok());
    }
}
