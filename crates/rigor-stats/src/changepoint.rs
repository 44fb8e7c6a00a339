//! Changepoints in a run sequence: sliding-window outlier marking and PELT (docs/methodology.md,
//! "Steady state and the random initial state").
//!
//! This is the automatic part of "look at the run-sequence plot" (Kalibera & Jones 2013 §6),
//! done the way Barrett et al. 2017 did it (their `warmup_stats` tool):
//!
//! 1. **Outliers** ([`outlier_mask`]): a value is an outlier when it lies outside
//!    `median ± 3·(p90 − p10)` of a sliding window of 200 values around it (percentiles by
//!    [`quantile_of_sorted`], type 7).
//! 2. **Changepoints** ([`pelt`]): PELT (Killick, Fearnhead & Eckley 2012) minimising
//!    `Σ C(segment) + β·(number of changepoints)` with the Normal mean-and-variance cost
//!    `C = m·(ln 2π + ln σ̂² + 1)` ([`normal_meanvar_cost`]) and β = 15·ln n.
//! 3. **Segments** ([`segments`]): mean and variance of each piece between changepoints.
//!
//! PELT is exact (it returns the optimal segmentation) and its pruning makes it linear when
//! changes keep occurring, but no pruning is possible inside a long stretch *without* a change
//! (splitting a segment always lowers the cost, so every candidate stays admissible): a flat
//! series of n points costs O(n²) cost evaluations. [`pelt_blocked`] bounds that by running PELT
//! on means of consecutive blocks and refining each changepoint on the raw values.

use serde::{Deserialize, Serialize};

use crate::descriptive::{median_of_sorted, quantile_of_sorted};
use crate::error::{Result, StatsError, check_finite, invalid};

/// Default sliding-window length of the outlier filter (Barrett et al. 2017).
pub const DEFAULT_OUTLIER_WINDOW: usize = 200;

/// Default multiple of the inter-decile range `p90 − p10` that bounds non-outliers.
pub const DEFAULT_OUTLIER_SPREAD: f64 = 3.0;

/// Default penalty factor: β = 15·ln n (Barrett et al. 2017).
pub const DEFAULT_PENALTY_FACTOR: f64 = 15.0;

/// Default minimum segment length (as R's `changepoint::cpt.meanvar`).
pub const DEFAULT_MIN_SEGMENT: usize = 2;

/// Floor of the segment variance in the cost (R's `changepoint` package uses the same value).
pub const VARIANCE_FLOOR: f64 = 1e-11;

/// Parameters of the sliding-window outlier filter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OutlierConfig {
    /// Window length w (default 200).
    pub window: usize,
    /// Multiple k of `p90 − p10` (default 3).
    pub spread: f64,
}

impl Default for OutlierConfig {
    fn default() -> Self {
        Self {
            window: DEFAULT_OUTLIER_WINDOW,
            spread: DEFAULT_OUTLIER_SPREAD,
        }
    }
}

/// Marks outliers: `mask[i]` is true when `series[i]` lies strictly outside
/// `median ± spread·(p90 − p10)` of its window.
///
/// Window placement (as `warmup_stats`' `outliers.py`): value i is judged against
/// `series[max(0, i − w/2) .. min(n, i + w/2)]` (w/2 rounded down), i.e. centred and truncated
/// at both ends of the run. Values whose window is truncated at the *start* and shorter than w
/// (the first w/2 values, and every value of a run shorter than w up to index w/2) are never
/// marked: the start of a run is where warm-up lives, and a short warm-up would otherwise be
/// filtered away as outliers before changepoint detection could see it. Windows truncated at the
/// end are used as they are.
///
/// Cost O(n·w) with a sorted window updated incrementally. A constant window has `p90 − p10 = 0`,
/// so any value different from its median is marked (typical of a coarse timer).
pub fn outlier_mask(series: &[f64], cfg: &OutlierConfig) -> Result<Vec<bool>> {
    check_finite(series)?;
    validate_outliers(cfg)?;
    let (n, w, half) = (series.len(), cfg.window, cfg.window / 2);
    let mut mask = vec![false; n];
    let mut window = SortedWindow::default();
    let (mut lo, mut hi) = (0, 0);
    for (i, &x) in series.iter().enumerate() {
        let (l, r) = (i.saturating_sub(half), (i + half).min(n));
        if l == 0 && r < w {
            continue;
        }
        if l >= hi {
            window.0.clear();
            (lo, hi) = (l, l);
        }
        for &v in &series[hi..r] {
            window.insert(v);
        }
        for &v in &series[lo..l] {
            window.remove(v);
        }
        (lo, hi) = (l, r);
        mask[i] = window.is_outlier(x, cfg.spread);
    }
    Ok(mask)
}

/// Indices of the outliers marked by [`outlier_mask`], ascending.
pub fn outliers(series: &[f64], cfg: &OutlierConfig) -> Result<Vec<usize>> {
    let mask = outlier_mask(series, cfg)?;
    Ok(mask
        .iter()
        .enumerate()
        .filter(|(_, o)| **o)
        .map(|(i, _)| i)
        .collect())
}

fn validate_outliers(cfg: &OutlierConfig) -> Result<()> {
    if cfg.window < 2 {
        return Err(StatsError::InvalidParameter {
            name: "outlier window",
            value: cfg.window.to_string(),
            reason: "must be at least 2",
        });
    }
    if !(cfg.spread >= 0.0 && cfg.spread.is_finite()) {
        return Err(StatsError::InvalidParameter {
            name: "outlier spread",
            value: cfg.spread.to_string(),
            reason: "must be finite and non-negative",
        });
    }
    Ok(())
}

/// A window of values kept sorted by [`f64::total_cmp`].
#[derive(Default)]
struct SortedWindow(Vec<f64>);

impl SortedWindow {
    fn position(&self, x: f64) -> usize {
        self.0.partition_point(|v| v.total_cmp(&x).is_lt())
    }

    fn insert(&mut self, x: f64) {
        let at = self.position(x);
        self.0.insert(at, x);
    }

    fn remove(&mut self, x: f64) {
        let at = self.position(x);
        self.0.remove(at);
    }

    fn is_outlier(&self, x: f64, spread: f64) -> bool {
        let band = spread * (quantile_of_sorted(&self.0, 0.9) - quantile_of_sorted(&self.0, 0.1));
        let median = median_of_sorted(&self.0);
        x > median + band || x < median - band
    }
}

/// The PELT penalty β added per changepoint.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Penalty {
    /// β = factor·ln n, n the length of the series segmented (default factor 15).
    LogN(f64),
    /// A fixed β.
    Fixed(f64),
}

impl Default for Penalty {
    fn default() -> Self {
        Self::LogN(DEFAULT_PENALTY_FACTOR)
    }
}

impl Penalty {
    /// β for a series of `n` values.
    pub fn value(&self, n: usize) -> f64 {
        match *self {
            Self::LogN(factor) => factor * (n.max(1) as f64).ln(),
            Self::Fixed(beta) => beta,
        }
    }
}

/// Parameters of [`pelt`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PeltConfig {
    /// Penalty per changepoint (default 15·ln n).
    pub penalty: Penalty,
    /// Minimum number of values in a segment (default 2, as R's `cpt.meanvar`; at least 1). A
    /// one-value segment has σ̂² = 0 and hits the variance floor, so 1 is rarely sensible.
    pub min_segment: usize,
    /// Floor of σ̂² in the cost (default 1e−11, in the squared units of the data).
    pub var_floor: f64,
}

impl Default for PeltConfig {
    fn default() -> Self {
        Self {
            penalty: Penalty::default(),
            min_segment: DEFAULT_MIN_SEGMENT,
            var_floor: VARIANCE_FLOOR,
        }
    }
}

impl PeltConfig {
    fn validate(&self) -> Result<()> {
        let beta = match self.penalty {
            Penalty::LogN(f) | Penalty::Fixed(f) => f,
        };
        if !(beta >= 0.0 && beta.is_finite()) {
            return Err(invalid("penalty", beta, "must be finite and non-negative"));
        }
        if self.min_segment == 0 {
            return Err(invalid("minimum segment length", 0.0, "must be at least 1"));
        }
        if !(self.var_floor > 0.0 && self.var_floor.is_finite()) {
            return Err(invalid(
                "variance floor",
                self.var_floor,
                "must be positive",
            ));
        }
        Ok(())
    }
}

/// The Normal mean-and-variance segment cost (twice the negative maximised log-likelihood of m
/// i.i.d. Normal values with their own mean and variance):
///
/// `C = m·(ln 2π + ln σ̂² + 1)`, σ̂² = (1/m)·Σ(xᵢ − x̄)² the maximum-likelihood variance, floored
/// at `floor` (docs/methodology.md, "Steady state and the random initial state"; R `changepoint`'s
/// `mll.meanvar`). 0 for an empty segment.
pub fn normal_meanvar_cost(m: usize, var_mle: f64, floor: f64) -> f64 {
    if m == 0 {
        return 0.0;
    }
    let m = m as f64;
    m * ((2.0 * std::f64::consts::PI).ln() + var_mle.max(floor).ln() + 1.0)
}

/// [`normal_meanvar_cost`] of a slice of values.
pub fn segment_cost(values: &[f64], floor: f64) -> f64 {
    normal_meanvar_cost(values.len(), mle_variance(values), floor)
}

/// Mean and maximum-likelihood variance (divisor m) of a slice; NaN when empty.
fn mean_and_mle_variance(values: &[f64]) -> (f64, f64) {
    let m = values.len() as f64;
    let mean = values.iter().sum::<f64>() / m;
    let ss = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>();
    (mean, ss / m)
}

fn mle_variance(values: &[f64]) -> f64 {
    mean_and_mle_variance(values).1
}

/// Prefix sums of x and x² (of the series centred at its mean: the variance is unchanged and
/// the cancellation in `Σx² − (Σx)²/m` much smaller), so any segment's cost is O(1).
struct Prefix {
    s1: Vec<f64>,
    s2: Vec<f64>,
}

impl Prefix {
    fn new(series: &[f64]) -> Self {
        let centre = series.iter().sum::<f64>() / series.len().max(1) as f64;
        let (mut s1, mut s2) = (vec![0.0], vec![0.0]);
        let (mut a, mut b) = (0.0, 0.0);
        for &x in series {
            let d = x - centre;
            a += d;
            b += d * d;
            s1.push(a);
            s2.push(b);
        }
        Self { s1, s2 }
    }

    /// Cost of the segment `[a, b)`.
    fn cost(&self, a: usize, b: usize, floor: f64) -> f64 {
        self.cost_to(a, b, self.s1[b], self.s2[b], floor)
    }

    /// Cost of `[a, b)` given the prefix sums at b (hoisted out of PELT's inner loop).
    #[inline]
    fn cost_to(&self, a: usize, b: usize, s1_b: f64, s2_b: f64, floor: f64) -> f64 {
        let m = (b - a) as f64;
        let s1 = s1_b - self.s1[a];
        let s2 = s2_b - self.s2[a];
        let var = (s2 - s1 * s1 / m) / m;
        m * (LN_2PI_PLUS_1 + var.max(floor).ln())
    }
}

const LN_2PI_PLUS_1: f64 = 2.837_877_066_409_345_5; // ln(2π) + 1

/// Changepoints of `series` by PELT (Killick et al. 2012) with the Normal mean-and-variance cost.
///
/// Minimises `Σ_segments C(segment) + β·k` over all segmentations into k + 1 segments of at least
/// `min_segment` values, exactly. Recursion: F(0) = −β,
/// `F(t) = min_{τ ∈ R_t} [F(τ) + C(τ, t) + β]`, and a candidate with `F(τ) + C(τ, t) > F(t)` is
/// pruned (K = 0: the cost is a maximised likelihood, so `C(a, b) + C(b, c) ≤ C(a, c)`). With a
/// minimum segment length m the argument only covers ends s ≥ t + m (the segment `[t, s)` must be
/// admissible), so a pruned candidate is dropped m steps later; R `changepoint`'s `PELT.c` drops
/// it at once and can miss the optimum. The variance floor can break the inequality when a
/// sub-segment's σ̂² is below 1e−11; then the result may be slightly sub-optimal.
///
/// Returns the changepoints ascending: each is the index of the first value of a new segment
/// (so `[0, c₁), [c₁, c₂), …, [c_k, n)`). Series shorter than `2·min_segment` have none.
/// Errors: a non-finite value or an invalid parameter.
pub fn pelt(series: &[f64], cfg: &PeltConfig) -> Result<Vec<usize>> {
    check_finite(series)?;
    cfg.validate()?;
    let points: Vec<usize> = (0..=series.len()).collect();
    let beta = cfg.penalty.value(series.len());
    Ok(pelt_core(&Prefix::new(series), &points, cfg, beta))
}

/// The PELT recursion on prefix sums with penalty `beta`, with changepoints restricted to
/// `points` (ascending, from 0 to n inclusive; every index for exact PELT).
fn pelt_core(prefix: &Prefix, points: &[usize], cfg: &PeltConfig, beta: f64) -> Vec<usize> {
    let (min, floor) = (cfg.min_segment, cfg.var_floor);
    let n = points.last().copied().unwrap_or(0);
    if n < 2 * min {
        return Vec::new();
    }
    let mut f = vec![f64::INFINITY; n + 1];
    let mut last = vec![0usize; n + 1];
    f[0] = -beta;
    // Candidates τ with the time from which each may be dropped: pruning at t only holds for
    // ends s ≥ t + min, because [t, s) must be an admissible segment for the argument to apply.
    let (mut taus, mut expiry, mut values) = (vec![0usize], vec![usize::MAX], vec![0.0]);
    let mut next = 1;
    for (k, &t) in points.iter().enumerate().skip(1) {
        if t < min {
            continue;
        }
        while next < k && points[next] + min <= t {
            if f[points[next]].is_finite() {
                taus.push(points[next]);
                expiry.push(usize::MAX);
                values.push(0.0);
            }
            next += 1;
        }
        let (s1, s2) = (prefix.s1[t], prefix.s2[t]);
        let (mut best, mut arg) = (f64::INFINITY, 0);
        for (v, &tau) in values.iter_mut().zip(&taus) {
            *v = f[tau] + prefix.cost_to(tau, t, s1, s2, floor);
            if *v < best {
                (best, arg) = (*v, tau);
            }
        }
        f[t] = best + beta;
        last[t] = arg;
        let next_t = points.get(k + 1).copied().unwrap_or(usize::MAX);
        prune(&mut taus, &mut expiry, &mut values, f[t], t + min, next_t);
    }
    backtrack(&last, n)
}

/// Flags candidates whose value exceeds F(t) (droppable from `drop_from` = t + min) and drops
/// those whose time has come before the next end `next_t`, in one pass.
fn prune(
    taus: &mut Vec<usize>,
    expiry: &mut Vec<usize>,
    values: &mut Vec<f64>,
    f_t: f64,
    drop_from: usize,
    next_t: usize,
) {
    let mut kept = 0;
    for i in 0..taus.len() {
        let e = if values[i] > f_t {
            expiry[i].min(drop_from)
        } else {
            expiry[i]
        };
        if next_t < e {
            (taus[kept], expiry[kept]) = (taus[i], e);
            kept += 1;
        }
    }
    taus.truncate(kept);
    expiry.truncate(kept);
    values.truncate(kept);
}

/// Follows the last-changepoint pointers back from n.
fn backtrack(last: &[usize], n: usize) -> Vec<usize> {
    let mut cps = Vec::new();
    let mut t = n;
    while t > 0 {
        t = last[t];
        if t > 0 {
            cps.push(t);
        }
    }
    cps.reverse();
    cps
}

/// An approximation of [`pelt`] for very long series: PELT with changepoints restricted to block
/// boundaries, then refined.
///
/// 1. *Selection*: the PELT recursion with the raw Normal mean-and-variance cost (segment costs
///    come from prefix sums of the raw values, so each decision uses the full likelihood), the
///    full penalty β = factor·ln n and the configured minimum segment, but with changepoints
///    allowed only at multiples of `block`.
/// 2. *Refinement*: each selected changepoint c moves to the τ within ±block of c that minimises
///    `C(a, τ) + C(τ, b)`, with a the previous refined changepoint (or 0) and b the next selected
///    one (or n), keeping `min_segment` values on each side.
///
/// Cost: O((n/block)²) cost evaluations in the worst case (a series without changes) plus
/// O(block) per change, instead of [`pelt`]'s O(n²). Changes closer together than about a block
/// can merge or be missed; a change inside a block is found at the nearer boundary and then
/// refined. `block ≤ 1` is [`pelt`].
pub fn pelt_blocked(series: &[f64], cfg: &PeltConfig, block: usize) -> Result<Vec<usize>> {
    if block <= 1 {
        return pelt(series, cfg);
    }
    check_finite(series)?;
    cfg.validate()?;
    let n = series.len();
    let mut points: Vec<usize> = (0..n).step_by(block).collect();
    points.push(n);
    let prefix = Prefix::new(series);
    let selected = pelt_core(&prefix, &points, cfg, cfg.penalty.value(n));
    Ok(refine(&prefix, n, &selected, block, cfg))
}

/// Moves each selected changepoint to the best split of its neighbourhood (see
/// [`pelt_blocked`]).
fn refine(
    prefix: &Prefix,
    n: usize,
    selected: &[usize],
    block: usize,
    cfg: &PeltConfig,
) -> Vec<usize> {
    let (min, floor) = (cfg.min_segment, cfg.var_floor);
    let mut refined: Vec<usize> = Vec::with_capacity(selected.len());
    for (i, &c) in selected.iter().enumerate() {
        let a = refined.last().copied().unwrap_or(0);
        let b = selected.get(i + 1).copied().unwrap_or(n);
        let lo = c.saturating_sub(block).max(a + min);
        let hi = (c + block).min(b.saturating_sub(min));
        let best = (lo..=hi)
            .map(|tau| (prefix.cost(a, tau, floor) + prefix.cost(tau, b, floor), tau))
            .min_by(|x, y| x.0.total_cmp(&y.0));
        refined.push(best.map_or(c, |(_, tau)| tau));
    }
    refined
}

/// One piece of a segmented series: `[start, end)` with its mean and maximum-likelihood variance
/// (divisor m, the σ̂² of the cost).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    /// Index of the first value.
    pub start: usize,
    /// One past the index of the last value.
    pub end: usize,
    /// Mean of the values.
    pub mean: f64,
    /// Maximum-likelihood variance of the values (divisor m).
    pub var: f64,
}

impl Segment {
    /// Number of values.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the segment is empty (never, for segments made by [`segments`]).
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// The segments `[0, c₁), [c₁, c₂), …, [c_k, n)` of `series` cut at the changepoints `cps`
/// (ascending, as [`pelt`] returns them). Changepoints that are out of range, unsorted or
/// repeated are ignored. An empty series has no segments.
pub fn segments(series: &[f64], cps: &[usize]) -> Vec<Segment> {
    let n = series.len();
    let mut bounds = vec![0];
    for &c in cps {
        if c > *bounds.last().unwrap_or(&0) && c < n {
            bounds.push(c);
        }
    }
    bounds.push(n);
    bounds
        .windows(2)
        .filter(|w| w[1] > w[0])
        .map(|w| {
            let (mean, var) = mean_and_mle_variance(&series[w[0]..w[1]]);
            Segment {
                start: w[0],
                end: w[1],
                mean,
                var,
            }
        })
        .collect()
}

/// Total penalised cost `Σ C(segment) + β·k` of a segmentation (for checking optimality).
pub fn penalised_cost(series: &[f64], cps: &[usize], cfg: &PeltConfig) -> f64 {
    let segs = segments(series, cps);
    let beta = cfg.penalty.value(series.len());
    segs.iter()
        .map(|s| segment_cost(&series[s.start..s.end], cfg.var_floor))
        .sum::<f64>()
        + beta * segs.len().saturating_sub(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use rand_distr::{Distribution, Normal};

    fn noise(seed: u64, n: usize, sd: f64) -> Vec<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let normal = Normal::new(0.0, sd).unwrap();
        (0..n).map(|_| normal.sample(&mut rng)).collect()
    }

    /// Optimal partitioning without pruning (Jackson et al. 2005): the O(n²) reference.
    fn optimal_partitioning(series: &[f64], cfg: &PeltConfig) -> Vec<usize> {
        let (n, min) = (series.len(), cfg.min_segment);
        if n < 2 * min {
            return Vec::new();
        }
        let beta = cfg.penalty.value(n);
        let mut f = vec![f64::INFINITY; n + 1];
        let mut last = vec![0; n + 1];
        f[0] = -beta;
        for t in min..=n {
            for tau in (0..=t - min).filter(|&tau| tau == 0 || tau >= min) {
                let v = f[tau] + segment_cost(&series[tau..t], cfg.var_floor) + beta;
                if v < f[t] {
                    (f[t], last[t]) = (v, tau);
                }
            }
        }
        backtrack(&last, n)
    }

    #[test]
    fn cost_matches_hand_computation() {
        // x = (1, 2, 3, 6): mean 3, Σ(x − 3)² = 4 + 1 + 0 + 9 = 14, σ̂² = 14/4 = 3.5;
        // C = 4·(ln 2π + ln 3.5 + 1) = 4·(1.8378771 + 1.2527630 + 1) = 16.3625603.
        let c = segment_cost(&[1.0, 2.0, 3.0, 6.0], VARIANCE_FLOOR);
        assert!((c - 16.362_560_3).abs() < 1e-6, "{c}");
        // A constant segment hits the floor: 3·(ln 2π + ln 1e−11 + 1) = 3·(2.8378771 − 25.3284360).
        let flat = segment_cost(&[5.0; 3], VARIANCE_FLOOR);
        assert!(
            (flat - 3.0 * (2.837_877_1 - 25.328_436_0)).abs() < 1e-5,
            "{flat}"
        );
        // The prefix-sum cost agrees with the direct one on every sub-segment.
        let x = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
        let p = Prefix::new(&x);
        for a in 0..x.len() {
            for b in a + 1..=x.len() {
                let direct = segment_cost(&x[a..b], VARIANCE_FLOOR);
                assert!((p.cost(a, b, VARIANCE_FLOOR) - direct).abs() < 1e-9);
            }
        }
        assert_eq!(Penalty::LogN(15.0).value(100), 15.0 * 100f64.ln());
    }

    #[test]
    fn pelt_equals_optimal_partitioning() {
        for seed in 0..10 {
            let mut x = noise(seed, 120, 1.0);
            for v in &mut x[40..70] {
                *v += 2.0;
            }
            for v in &mut x[90..] {
                *v *= 3.0;
            }
            for penalty in [Penalty::LogN(2.0), Penalty::LogN(15.0), Penalty::Fixed(4.0)] {
                for min_segment in [1, 2, 5] {
                    let cfg = PeltConfig {
                        penalty,
                        min_segment,
                        ..PeltConfig::default()
                    };
                    let fast = pelt(&x, &cfg).unwrap();
                    let slow = optimal_partitioning(&x, &cfg);
                    let (a, b) = (
                        penalised_cost(&x, &fast, &cfg),
                        penalised_cost(&x, &slow, &cfg),
                    );
                    assert!(
                        (a - b).abs() < 1e-7 * b.abs().max(1.0),
                        "{fast:?} vs {slow:?}"
                    );
                    assert!(segments(&x, &fast).iter().all(|s| s.len() >= min_segment));
                }
            }
        }
    }

    #[test]
    fn edge_cases() {
        let cfg = PeltConfig::default();
        assert!(pelt(&[], &cfg).unwrap().is_empty());
        assert!(pelt(&[1.0, 2.0, 3.0], &cfg).unwrap().is_empty());
        assert!(pelt(&[1.0, f64::NAN, 3.0, 4.0], &cfg).is_err());
        let bad = PeltConfig {
            min_segment: 0,
            ..cfg
        };
        assert!(pelt(&[1.0; 10], &bad).is_err());
        assert!(segments(&[], &[]).is_empty());
        let s = segments(&[1.0, 1.0, 3.0, 5.0], &[2, 2, 9]);
        assert_eq!(s.len(), 2);
        assert_eq!(
            (s[1].start, s[1].end, s[1].mean, s[1].var),
            (2, 4, 4.0, 1.0)
        );
        assert!(
            outlier_mask(
                &[1.0],
                &OutlierConfig {
                    window: 1,
                    spread: 3.0
                }
            )
            .is_err()
        );
    }

    #[test]
    fn outlier_window_placement() {
        // 400 values alternating 10, 11 with spikes at 50 (inside the protected first half
        // window), 150, and 399 (window truncated at the end, still judged).
        let mut x: Vec<f64> = (0..400).map(|i| 10.0 + f64::from(i % 2)).collect();
        for i in [50, 150, 399] {
            x[i] = 100.0;
        }
        x[300] = 10.5; // inside median ± 3·(11 − 10)
        assert_eq!(
            outliers(&x, &OutlierConfig::default()).unwrap(),
            vec![150, 399]
        );
        // The incremental window agrees with a direct computation at every judged index.
        let y = noise(7, 500, 1.0);
        let mask = outlier_mask(
            &y,
            &OutlierConfig {
                window: 20,
                spread: 0.5,
            },
        )
        .unwrap();
        for (i, &m) in mask.iter().enumerate().skip(10) {
            let mut w = y[i - 10..(i + 10).min(500)].to_vec();
            w.sort_by(f64::total_cmp);
            let band = 0.5 * (quantile_of_sorted(&w, 0.9) - quantile_of_sorted(&w, 0.1));
            let med = median_of_sorted(&w);
            assert_eq!(m, (y[i] - med).abs() > band, "index {i}");
        }
    }

    #[test]
    fn blocked_pelt_finds_the_same_changes() {
        let mut x = noise(3, 6000, 1.0);
        for v in &mut x[2000..4500] {
            *v += 1.5;
        }
        let cfg = PeltConfig::default();
        let cps = pelt_blocked(&x, &cfg, 10).unwrap();
        assert_eq!(cps.len(), 2, "{cps:?}");
        assert!(
            cps[0].abs_diff(2000) <= 5 && cps[1].abs_diff(4500) <= 5,
            "{cps:?}"
        );
        assert_eq!(
            pelt_blocked(&x[..300], &cfg, 1).unwrap(),
            pelt(&x[..300], &cfg).unwrap()
        );
    }
}
