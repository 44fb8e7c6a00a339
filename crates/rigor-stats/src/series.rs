//! Changes in a series of versions, each measured with its own hierarchy (regression
//! benchmarking: Kalibera, Bulej & Tůma 2005b; Kalibera & Tůma 2006).
//!
//! Each version is its own build, measured in its own session, and both add variance that no
//! single version's interval shows: two back-to-back measurements of the same program differ by
//! more than either one's interval claims. So the unit of a segment (a run of versions with the
//! same performance) is the *version*, never the pooled executions of several versions. This
//! module treats the versions as a random-effects sample:
//!
//! - version `i` has a mean `mᵢ` and the variance `vᵢ` of that mean from its own hierarchy
//!   (`S²/r` of its top-level unit means, docs/methodology.md, "The interval");
//! - versions within a segment vary around the segment's level with a between-version variance
//!   `τ²`, estimated by DerSimonian & Laird's method of moments pooled over all segments;
//! - a segment's level is the mean of its versions weighted by `1/(vᵢ + τ²)`, with variance
//!   `1/Σwᵢ` — each version's own interval weighs it, the between-version spread stays in;
//! - a boundary between two segments is confirmed by the ratio of their levels: Fieller's
//!   interval and a t-test with `N − S` degrees of freedom (versions minus segments).
//!
//! Candidate boundaries come from E-divisive means ([`crate::edivisive::detect_changes`]) on the
//! version means, with loose significance; [`detect`] then drops the weakest boundary that does
//! not hold up, re-estimates, and repeats until every remaining boundary is confirmed — so a
//! spurious candidate cannot split a segment and rob a real change of its data.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};
use std::ops::Range;

use crate::compare::{Verdict, verdict_from_interval};
use crate::crossed::CrossedFit;
use crate::dist::{Quantile, critical_value};
use crate::edivisive::{ChangeConfig, ChangePoint, detect_changes, detect_changes_and_prefix};
use crate::error::{Result, StatsError, check_finite};
use crate::hierarchy::Hierarchy;

/// One version's mean and the variance of that mean from its own measurements.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VersionMean {
    /// Mean of the version's top-level unit means.
    pub mean: f64,
    /// Variance of that mean, `S²/r` (0 when the version has a single top-level unit).
    pub variance: f64,
}

impl VersionMean {
    /// From a version's hierarchy.
    pub fn of(h: &Hierarchy) -> Result<Self> {
        let means = h.top_means();
        let n = count_means(&means)?;
        let mean = crate::descriptive::mean(&means);
        let variance = if n >= 2 {
            crate::descriptive::variance(&means) / n as f64
        } else {
            0.0
        };
        Ok(Self { mean, variance })
    }

    /// A robust version of [`of`](Self::of) for timings, whose disturbances only ever slow an
    /// execution down: the median of the top-level unit means, with the variance of a median,
    /// `(π/2)·σ̂²/r`, where `σ̂ = 1.4826·MAD` (the sample variance when the MAD is 0). One
    /// execution slowed by another process then moves the version's level by little, where it
    /// would pull the mean towards a neighbouring segment (the Mono project used medians of
    /// sub-selections for the same reason: Kalibera, Bulej & Tůma 2005b).
    pub fn robust(h: &Hierarchy) -> Result<Self> {
        Self::robust_of(&h.top_means())
    }

    /// [`huber_of`](Self::huber_of) of a version's top-level unit means: the level `rigor
    /// track` stores.
    pub fn huber(h: &Hierarchy) -> Result<Self> {
        Self::huber_of(&h.top_means())
    }

    /// [`robust`](Self::robust) from the top-level unit means themselves.
    pub fn robust_of(means: &[f64]) -> Result<Self> {
        let n = count_means(means)?;
        let median = crate::descriptive::median(means);
        if n < 2 {
            return Ok(Self {
                mean: median,
                variance: 0.0,
            });
        }
        let sigma = crate::descriptive::mad_scaled(means);
        let spread = if sigma > 0.0 {
            sigma * sigma
        } else {
            crate::descriptive::variance(means)
        };
        Ok(Self {
            mean: median,
            variance: std::f64::consts::FRAC_PI_2 * spread / n as f64,
        })
    }
}

/// Huber's tuning constant: 95% efficiency at the normal distribution.
pub const HUBER_K: f64 = 1.345;

impl VersionMean {
    /// Huber's M-estimate of the top-level unit means' location, efficient and robust at once:
    /// under normal noise it loses about 5% of the mean's precision (the median loses 36%), and
    /// an execution slowed by another process moves it by a bounded amount, as it does the
    /// median. The scale is fixed at `σ̂ = 1.4826·MAD` and `k` = [`HUBER_K`]; the level solves
    /// `Σ ψ((xᵢ − μ)/σ̂) = 0`, `ψ(r) = max(−k, min(k, r))`, by iteratively reweighted means, and
    /// its variance is the sandwich `σ̂²·(Σψ(rᵢ)²/(n − 1)) / (mean ψ′(rᵢ))² / n` (Huber &
    /// Ronchetti 2009, §3.2 and §6.6). With a MAD of 0 (more than half the means tied) it is
    /// [`robust_of`](Self::robust_of), the median. Tested against an independent root-finding
    /// solver (`scripts/oracles/huber.py`).
    pub fn huber_of(means: &[f64]) -> Result<Self> {
        let n = count_means(means)?;
        // The median and the MAD by selection on one copy (O(n), bit-identical to `median` and
        // `mad_scaled`): the bootstrap of a minimum takes this estimate of every resample.
        let mut scratch = means.to_vec();
        let centre = crate::descriptive::median_in_place(&mut scratch);
        for (d, &x) in scratch.iter_mut().zip(means) {
            *d = (x - centre).abs();
        }
        let sigma =
            crate::descriptive::MAD_SCALE * crate::descriptive::median_in_place(&mut scratch);
        if n < 2 || sigma <= 0.0 {
            return Self::robust_of(means);
        }
        let psi = |r: f64| r.clamp(-HUBER_K, HUBER_K);
        let mut mu = centre;
        for _ in 0..200 {
            // Weights ψ(r)/r: 1 inside ±k, k/|r| outside.
            let (mut sw, mut swx) = (0.0, 0.0);
            for &x in means {
                let r = (x - mu) / sigma;
                let w = if r.abs() <= HUBER_K {
                    1.0
                } else {
                    HUBER_K / r.abs()
                };
                sw += w;
                swx += w * x;
            }
            let next = swx / sw;
            let done = (next - mu).abs() <= 1e-14 * sigma.max(mu.abs());
            mu = next;
            if done {
                break;
            }
        }
        let (mut psi2, mut inside) = (0.0, 0usize);
        for &x in means {
            let r = (x - mu) / sigma;
            psi2 += psi(r).powi(2);
            inside += usize::from(r.abs() <= HUBER_K);
        }
        let slope = inside as f64 / n as f64;
        let variance = sigma * sigma * psi2 / (n - 1) as f64 / (slope * slope) / n as f64;
        Ok(Self { mean: mu, variance })
    }
}

/// How many top-level unit means a version has: all finite, at least one.
fn count_means(means: &[f64]) -> Result<usize> {
    check_finite(means)?;
    if means.is_empty() {
        return Err(StatsError::TooFew {
            what: "a version's mean",
            needed: 1,
            got: 0,
        });
    }
    Ok(means.len())
}

/// The level of a run of versions `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    /// First version (index into the series).
    pub start: usize,
    /// One past the last version.
    pub end: usize,
    /// Weighted mean of the versions.
    pub mean: f64,
    /// Variance of that mean.
    pub variance: f64,
}

/// A confirmed (or tested) change between two segments.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SeriesChange {
    /// First version after the change.
    pub index: usize,
    /// The segment before.
    pub before: Segment,
    /// The segment after.
    pub after: Segment,
    /// `after.mean / before.mean` (above 1: slower, for times).
    pub ratio: f64,
    /// Fieller's interval of the ratio; `None` when unbounded (the level before is too noisy).
    pub interval: Option<(f64, f64)>,
    /// Two-sided p-value of equal levels, for a boundary at this place.
    pub p_value: f64,
    /// The p-value corrected for the search of the boundary's place: multiplied by the number of
    /// places it could have taken between its neighbours (Bonferroni), at most 1. [`detect`]
    /// keeps boundaries whose corrected p-value is below 1 − level, and a caller controlling the
    /// false discovery rate across series should use this one.
    pub p_adjusted: f64,
    /// The verdict against the practical threshold.
    pub verdict: Verdict,
    /// Whether [`SeriesChange::widen`] widened the interval to what the measurements' resolution
    /// allows (the data alone claimed a narrower one).
    #[serde(default)]
    pub at_resolution: bool,
    /// Whether the two sides were measured in sessions that share no version
    /// ([`detect_adjusted`]): the change cannot be told from a shift between sessions. Its
    /// interval then carries how much sessions vary when the history has measured that, and
    /// nothing for it when not.
    #[serde(default)]
    pub confounded: bool,
    /// Whether `ratio`, `interval` and `verdict` are those of the 10 versions on either side of
    /// the boundary rather than of its two segments: the segments' levels differ by less than
    /// the threshold, as where a step lies inside a slow drift, while the versions beside it
    /// differ by more. The interval is then at the level corrected for the boundary's places,
    /// and `p_value` and `p_adjusted` are those versions' too (docs/methodology.md, "Steps
    /// inside a drift").
    #[serde(default)]
    pub local: bool,
}

impl SeriesChange {
    /// Widens the ratio interval to contain `[lower, upper]` and gives the verdict again
    /// against `threshold` — the floor a coarse clock puts under the ratio of two levels each
    /// known only to within half its step, as [`crate::compare::Comparison::widen`] does for
    /// a comparison. An unbounded interval stays unbounded; an interval already as wide is
    /// left alone.
    pub fn widen(&mut self, lower: f64, upper: f64, threshold: f64) {
        let Some((lo, hi)) = self.interval else {
            return;
        };
        if lower >= lo && upper <= hi {
            return;
        }
        let widened = (lo.min(lower), hi.max(upper));
        self.interval = Some(widened);
        self.at_resolution = true;
        self.verdict = verdict_from_interval(widened.0, widened.1, threshold);
    }
}

/// The floor under a change's ratio interval: given the segments before and after and the
/// interval from the data, the interval widened to the ratios that the measurements'
/// resolution cannot exclude. Statistics here knows no units or clocks; the caller that knows
/// each version's resolution supplies it ([`detect_floored`]).
pub type RatioFloor<'a> = dyn Fn(&Segment, &Segment, (f64, f64)) -> (f64, f64) + 'a;

/// Parameters of [`detect`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SeriesConfig {
    /// Where candidate boundaries come from (loose significance: confirmation decides).
    pub candidates: ChangeConfig,
    /// Confidence level of the ratio intervals.
    pub level: f64,
    /// Practical threshold δ: smaller changes are not changes.
    pub threshold: f64,
}

impl Default for SeriesConfig {
    fn default() -> Self {
        Self {
            candidates: ChangeConfig {
                window: 50,
                step: 25,
                max_p_value: 0.01,
                split_p_value: 0.05,
                min_magnitude: 0.0,
                within_span: true,
            },
            level: 0.95,
            threshold: 0.01,
        }
    }
}

/// What [`detect`] found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesAnalysis {
    /// Confirmed changes, oldest first.
    pub changes: Vec<SeriesChange>,
    /// The segments between them.
    pub segments: Vec<Segment>,
    /// Estimated between-version variance τ² within segments.
    pub tau2: f64,
    /// Degrees of freedom of the tests: versions minus segments.
    pub df: f64,
}

/// DerSimonian & Laird's between-version variance τ², pooled over the segments that
/// `boundaries` (indexes of first versions after a change, sorted) cut the series into:
/// `τ² = max(0, (Q − (N − S)) / (Σw − Σₛ Σw²/Σw))` with `w = 1/vᵢ` and `Q` the weighted squares
/// around each segment's weighted mean. When some `vᵢ` is zero (a version with one top-level
/// unit) the method-of-moments estimate without weights is used instead: the sample variance of
/// the version means around their segment means, less the mean within-version variance.
pub fn between_version_variance(versions: &[VersionMean], boundaries: &[usize]) -> f64 {
    let segments = cut(versions.len(), boundaries);
    let n = versions.len();
    let s = segments.len();
    if n <= s {
        return 0.0;
    }
    if versions
        .iter()
        .any(|v| v.variance.is_nan() || v.variance <= 0.0)
    {
        let mut ss = 0.0;
        for &(a, b) in &segments {
            let m = versions[a..b].iter().map(|v| v.mean).sum::<f64>() / (b - a) as f64;
            ss += versions[a..b]
                .iter()
                .map(|v| (v.mean - m).powi(2))
                .sum::<f64>();
        }
        let within = versions.iter().map(|v| v.variance.max(0.0)).sum::<f64>() / n as f64;
        return (ss / (n - s) as f64 - within).max(0.0);
    }
    let (mut q, mut sum_w, mut sum_w2_over) = (0.0, 0.0, 0.0);
    for &(a, b) in &segments {
        let w: Vec<f64> = versions[a..b].iter().map(|v| 1.0 / v.variance).collect();
        let sw: f64 = w.iter().sum();
        let m = versions[a..b]
            .iter()
            .zip(&w)
            .map(|(v, w)| w * v.mean)
            .sum::<f64>()
            / sw;
        q += versions[a..b]
            .iter()
            .zip(&w)
            .map(|(v, w)| w * (v.mean - m).powi(2))
            .sum::<f64>();
        sum_w += sw;
        sum_w2_over += w.iter().map(|w| w * w).sum::<f64>() / sw;
    }
    let denominator = sum_w - sum_w2_over;
    if denominator <= 0.0 {
        return 0.0;
    }
    ((q - (n - s) as f64) / denominator).max(0.0)
}

/// `[start, end)` of each segment.
fn cut(n: usize, boundaries: &[usize]) -> Vec<(usize, usize)> {
    let mut edges = vec![0];
    edges.extend(boundaries.iter().copied().filter(|&b| b > 0 && b < n));
    edges.push(n);
    edges.windows(2).map(|w| (w[0], w[1])).collect()
}

/// The level of versions `[start, end)` weighted by `1/(vᵢ + τ²)`.
pub fn segment(versions: &[VersionMean], start: usize, end: usize, tau2: f64) -> Segment {
    let part = &versions[start..end];
    // Two passes rather than a vector of the weights: the joint scan asks for two segments at
    // every version of every benchmark.
    let weight = |v: &VersionMean| 1.0 / (v.variance.max(0.0) + tau2);
    if part.iter().all(|v| weight(v).is_finite()) {
        let sw: f64 = part.iter().map(weight).sum();
        Segment {
            start,
            end,
            mean: part.iter().map(|v| weight(v) * v.mean).sum::<f64>() / sw,
            variance: 1.0 / sw,
        }
    } else {
        // τ² = 0 and some version has no within-version variance: plain mean, its variance
        // from the versions' own variances.
        let k = part.len() as f64;
        Segment {
            start,
            end,
            mean: part.iter().map(|v| v.mean).sum::<f64>() / k,
            variance: part.iter().map(|v| v.variance.max(0.0)).sum::<f64>() / (k * k),
        }
    }
}

/// Tests the change from `before` to `after`: Fieller's interval of the ratio of the levels and
/// the two-sided t-test of equal levels, both with `df` degrees of freedom.
pub fn test_change(
    before: Segment,
    after: Segment,
    df: f64,
    level: f64,
    threshold: f64,
) -> Result<SeriesChange> {
    check_finite(&[before.mean, after.mean, before.variance, after.variance])?;
    let df = df.max(1.0);
    let t_crit = critical_value(level, df, Quantile::StudentT)?;
    let (a, b) = (after.mean, before.mean);
    let (va, vb) = (after.variance, before.variance);
    let ratio = a / b;
    let g = t_crit * t_crit * vb / (b * b);
    let interval = (g < 1.0 && b != 0.0).then(|| {
        let half = t_crit / b.abs() * (va * (1.0 - g) + ratio * ratio * vb).sqrt();
        ((ratio - half) / (1.0 - g), (ratio + half) / (1.0 - g))
    });
    let p_value = two_sided_p(a - b, (va + vb).sqrt(), df)?;
    let verdict = match interval {
        Some((lo, hi)) => verdict_from_interval(lo, hi, threshold),
        None => Verdict::Unbounded,
    };
    Ok(SeriesChange {
        index: after.start,
        before,
        after,
        ratio,
        interval,
        p_value,
        p_adjusted: adjusted_p(p_value, &before, &after),
        verdict,
        at_resolution: false,
        confounded: false,
        local: false,
    })
}

/// The two-sided p-value of equal levels for a difference `diff` with standard error `se`, by
/// Student's t with `df` degrees of freedom (1 when both are 0, 0 when only the error is).
pub(crate) fn two_sided_p(diff: f64, se: f64, df: f64) -> Result<f64> {
    if se > 0.0 {
        let t = StudentsT::new(0.0, 1.0, df).map_err(|_| StatsError::InvalidParameter {
            name: "degrees of freedom",
            value: df.to_string(),
            reason: "must be positive",
        })?;
        Ok(2.0 * (1.0 - t.cdf((diff / se).abs())))
    } else if diff == 0.0 {
        Ok(1.0)
    } else {
        Ok(0.0)
    }
}

/// [`SeriesChange::p_adjusted`] of a boundary between `before` and `after` with p-value
/// `p_value`: multiplied by the places the boundary could have taken between its neighbours.
fn adjusted_p(p_value: f64, before: &Segment, after: &Segment) -> f64 {
    (p_value * places(before, after) as f64).min(1.0)
}

/// The places a boundary between `before` and `after` could have taken between its neighbours.
fn places(before: &Segment, after: &Segment) -> usize {
    after
        .end
        .saturating_sub(before.start)
        .saturating_sub(1)
        .max(1)
}

/// Changes in the level of a series of versions (oldest first); see the module documentation.
/// A boundary is kept when its verdict is a regression or an improvement; the caller controls
/// the false discovery rate across series with the p-values.
pub fn detect(versions: &[VersionMean], cfg: &SeriesConfig) -> Result<SeriesAnalysis> {
    detect_floored(versions, cfg, &|_, _, interval| interval)
}

/// [`detect`] with every tested boundary's ratio interval widened by `floor` before its verdict
/// ([`SeriesChange::widen`]): versions whose times move in coarse steps (a timer's resolution)
/// can differ by a step between two levels the clock cannot tell apart, and with no spread
/// within the versions the data alone give a zero-width interval and a change. A boundary the
/// floor leaves undecided is dropped like any other.
pub fn detect_floored(
    versions: &[VersionMean],
    cfg: &SeriesConfig,
    floor: &RatioFloor<'_>,
) -> Result<SeriesAnalysis> {
    for v in versions {
        check_finite(&[v.mean, v.variance])?;
    }
    search(versions, None, cfg, &[], &[], &|boundaries| {
        evaluate_floored(versions, boundaries, cfg, floor)
    })
}

/// [`detect`] with a boundary held at each of `events` (positions in `versions`: versions where
/// the benchmarks shifted together, found by their joint test, [`crate::joint`]): never dropped
/// nor moved, the other boundaries searched and placed around them. A benchmark's own data may
/// have placed one boundary between such an event and a change of its own nearby, standing for
/// both (a +3% shift and a +3% step 24 versions later, found as one change 12 versions after
/// the shift); with the event's version held, its own change is placed on its own. No blip
/// pair is tested with an event's boundary as one of its two ("Blips hold only as pairs" in
/// docs/methodology.md): every benchmark's data placed it, not this series' windows.
pub fn detect_with_events(
    versions: &[VersionMean],
    cfg: &SeriesConfig,
    events: &[usize],
) -> Result<SeriesAnalysis> {
    for v in versions {
        check_finite(&[v.mean, v.variance])?;
    }
    let events = held_events(versions.len(), events);
    search(versions, None, cfg, &[], &events, &|boundaries| {
        evaluate(versions, boundaries, cfg)
    })
}

/// The positions of `events` that can be boundaries of a series of `n` versions (after its
/// first version), sorted, without repeats.
fn held_events(n: usize, events: &[usize]) -> Vec<usize> {
    let mut held: Vec<usize> = events.iter().copied().filter(|&e| e > 0 && e < n).collect();
    held.sort_unstable();
    held.dedup();
    held
}

/// The search shared by [`detect_floored`] and [`detect_adjusted`]: candidates from E-divisive
/// over `versions`' means, then the weakest boundary that does not hold dropped (as `evaluate`
/// judges it) and the rest moved to their best split, until every boundary holds. A position
/// `pinned` (true at it; missing entries: false) is a boundary throughout, never dropped nor
/// moved: its two sides' levels have no common origin, and one segment across it would read
/// the difference between its sides as spread between versions.
fn search(
    versions: &[VersionMean],
    repeats: Option<&[usize]>,
    cfg: &SeriesConfig,
    pinned: &[bool],
    events: &[usize],
    evaluate: &dyn Fn(&[usize]) -> Result<SeriesAnalysis>,
) -> Result<SeriesAnalysis> {
    let is_pinned =
        |i: usize| pinned.get(i).copied().unwrap_or(false) || events.binary_search(&i).is_ok();
    // Candidates from the series as versions: a position standing for several versions (a
    // stretch of identical builds) repeated, so that E-divisive's windows see every version.
    // The scan runs over every version and again without the newest (made a candidate of its
    // own below), and their candidates are pooled: a step at the newest version cannot then
    // distort the scan of the others, nor is a step just before it lost where the shorter scan
    // lacks the points to see it.
    let mut means: Vec<f64> = Vec::new();
    let mut position_of: Vec<usize> = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        let n = repeats.and_then(|r| r.get(i).copied()).unwrap_or(1).max(1);
        means.extend(std::iter::repeat_n(v.mean, n));
        position_of.extend(std::iter::repeat_n(i, n));
    }
    // The positions of changes found in the first `end` means.
    let positions = |found: Vec<ChangePoint>, end: usize| {
        found
            .iter()
            .map(|c| position_of[c.index.min(end - 1)])
            .filter(|&p| p > 0)
            .collect::<Vec<usize>>()
    };
    // At least three versions, counting each of a stretch of identical builds: a stretch of
    // nine and a newest version are a series of ten.
    let enough = versions.len() >= 2 && means.len() >= 3;
    let mut boundaries = if enough && versions.len() > 2 {
        // Both scans at once: they open the same windows until the newest version's.
        let end = position_of.partition_point(|&p| p < versions.len() - 1);
        let (all, older) = detect_changes_and_prefix(&means, end, &cfg.candidates)?;
        let mut both = positions(all, means.len());
        both.extend(positions(older, end));
        both
    } else if versions.len() >= 2 {
        positions(detect_changes(&means, &cfg.candidates)?, means.len())
    } else {
        Vec::new()
    };
    boundaries.sort_unstable();
    boundaries.dedup();
    // The newest version is always a candidate on its own: E-divisive's windows need points on
    // both sides of a change, so a step at the newest version would never be proposed — and,
    // left inside the last segment, it would inflate the between-version variance τ² and hide
    // the history's other changes until a later version arrived. Like every candidate it is
    // dropped unless it holds (a one-version segment's level varies by its own variance + τ²).
    let newest = versions.len().saturating_sub(1);
    if enough && boundaries.last() != Some(&newest) {
        boundaries.push(newest);
    }
    boundaries.extend((1..versions.len()).filter(|&i| is_pinned(i)));
    boundaries.sort_unstable();
    boundaries.dedup();
    // Each pass drops a boundary or moves some; the cap only guards against a cycle of moves.
    let mut passes = 0;
    loop {
        passes += 1;
        let analysis = evaluate(&boundaries)?;
        // The boundary least supported among those that do not hold (not beyond the threshold,
        // or not significant once the search for its place is accounted for).
        let alpha = 1.0 - cfg.level;
        let weakest = analysis
            .changes
            .iter()
            .enumerate()
            .filter(|(_, c)| !is_pinned(c.index))
            .filter(|(_, c)| !c.verdict.is_change() || c.p_adjusted > alpha)
            .max_by(|a, b| a.1.p_adjusted.total_cmp(&b.1.p_adjusted))
            .map(|(i, _)| i);
        match weakest {
            Some(i) => {
                boundaries.remove(i);
            }
            None => {
                // A blip — a short segment between a rise and a fall — holds only as a pair.
                if let Some(i) =
                    weaker_of_failing_blip(versions, &analysis, cfg, &is_pinned, events)
                {
                    boundaries.remove(i);
                    continue;
                }
                let local: Vec<usize> = analysis
                    .changes
                    .iter()
                    .filter(|c| c.local)
                    .map(|c| c.index)
                    .collect();
                let refined = refine(versions, &boundaries, analysis.tau2, &is_pinned, &local);
                if refined == boundaries || passes > 4 * versions.len() + 10 {
                    return Ok(analysis);
                }
                boundaries = refined;
            }
        }
    }
}

/// The boundary to drop from the least supported blip that does not hold, if any.
///
/// A blip is a segment between two boundaries that move the level in opposite directions (a rise
/// and a fall, or a fall and a rise) and is no longer than the candidate scan's step
/// ([`ChangeConfig::step`]): its two boundaries were found together, in the same windows, and
/// the search placed them together — each one's own test, corrected for the places it alone
/// could have taken ([`SeriesChange::p_adjusted`]), does not account for the other's. In noisy
/// series a few versions that happen to lie together on one side then make a pair of changes
/// that each pass. The pair is tested as what it claims: the blip's level against the level of
/// its two flanks together (weights `1/(vᵢ + τ²)`, the analysis' degrees of freedom), corrected
/// for every pair of places the two boundaries could have taken in the flanks' span. When that
/// fails, the weaker of the two boundaries (the larger corrected p-value) is dropped and the
/// search goes on: the other is then tested on its own again. A real regression fixed a few
/// versions later is a blip that holds. For [`detect_adjusted`] the pair is tested on the
/// session-adjusted log levels with their own variances and τ², without the error of the
/// estimated session shifts that each boundary's own test carries: the pair test is then the
/// more lenient of the two, never the stricter.
fn weaker_of_failing_blip(
    versions: &[VersionMean],
    analysis: &SeriesAnalysis,
    cfg: &SeriesConfig,
    pinned: &dyn Fn(usize) -> bool,
    events: &[usize],
) -> Option<usize> {
    let alpha = 1.0 - cfg.level;
    let tau2 = analysis.tau2;
    let mut worst: Option<(usize, f64)> = None;
    for (i, pair) in analysis.changes.windows(2).enumerate() {
        let (rise, fall) = (&pair[0], &pair[1]);
        let blip = segment(versions, rise.after.start, rise.after.end, tau2);
        if (rise.ratio > 1.0) == (fall.ratio > 1.0) || blip.end - blip.start > cfg.candidates.step {
            continue;
        }
        // A pair with a machine-wide event's boundary is no pair found together: the event was
        // placed by every benchmark's data, and holds whatever this series' pair test says.
        if events.contains(&rise.index) || events.contains(&fall.index) {
            continue;
        }
        let before = segment(versions, rise.before.start, rise.before.end, tau2);
        let after = segment(versions, fall.after.start, fall.after.end, tau2);
        let flanks = pooled(&before, &after);
        let p = two_sided_p(
            blip.mean - flanks.mean,
            (blip.variance + flanks.variance).sqrt(),
            analysis.df,
        )
        .unwrap_or(1.0);
        let span = (after.end - before.start) as f64;
        let q = (p * (span - 1.0) * (span - 2.0) / 2.0).min(1.0);
        if q > alpha && worst.is_none_or(|(_, w)| q > w) {
            let (first, second) = if rise.p_adjusted >= fall.p_adjusted {
                (i, i + 1)
            } else {
                (i + 1, i)
            };
            // A pinned boundary stays: the other goes, or neither.
            let weaker = [first, second]
                .into_iter()
                .find(|&k| !pinned(analysis.changes[k].index));
            if let Some(weaker) = weaker {
                worst = Some((weaker, q));
            }
        }
    }
    worst.map(|(i, _)| i)
}

/// The level of two segments together: their levels weighted by the inverse of their variances
/// (a segment without variance counts equally with the other).
fn pooled(a: &Segment, b: &Segment) -> Segment {
    let (wa, wb) = (1.0 / a.variance, 1.0 / b.variance);
    if wa.is_finite() && wb.is_finite() {
        Segment {
            mean: (wa * a.mean + wb * b.mean) / (wa + wb),
            variance: 1.0 / (wa + wb),
            ..*a
        }
    } else {
        Segment {
            mean: (a.mean + b.mean) / 2.0,
            variance: (a.variance.max(0.0) + b.variance.max(0.0)) / 4.0,
            ..*a
        }
    }
}

/// The weighted squares of a series' levels about their weighted mean over any stretch, from
/// prefix sums of `w`, `w·m` and `w·m²` (weights `1/(vᵢ + τ²)`): each stretch's cost, and so each
/// candidate split, in O(1). A version without variance (and no τ²) would weigh infinitely: then
/// all weigh the same, as in [`segment`].
pub struct SplitCosts {
    sw: Vec<f64>,
    swm: Vec<f64>,
    swm2: Vec<f64>,
}

impl SplitCosts {
    /// The prefix sums of `versions` weighted with `tau2` added to each variance.
    pub fn new(versions: &[VersionMean], tau2: f64) -> Self {
        let n = versions.len();
        let (mut sw, mut swm, mut swm2) = (vec![0.0; n + 1], vec![0.0; n + 1], vec![0.0; n + 1]);
        let uniform = versions.iter().any(|v| v.variance.max(0.0) + tau2 <= 0.0);
        for (i, v) in versions.iter().enumerate() {
            let w = if uniform {
                1.0
            } else {
                1.0 / (v.variance.max(0.0) + tau2)
            };
            sw[i + 1] = sw[i] + w;
            swm[i + 1] = swm[i] + w * v.mean;
            swm2[i + 1] = swm2[i] + w * v.mean * v.mean;
        }
        Self { sw, swm, swm2 }
    }

    /// Weighted squares of versions `[a, b)` around their weighted mean.
    fn cost(&self, a: usize, b: usize) -> f64 {
        let w = self.sw[b] - self.sw[a];
        if w <= 0.0 {
            return 0.0;
        }
        let m = self.swm[b] - self.swm[a];
        (self.swm2[b] - self.swm2[a] - m * m / w).max(0.0)
    }

    /// The split `k` of versions `[lo, hi)` into `[lo, k)` and `[k, hi)` that fits the two sides'
    /// levels best (least weighted squares); `None` when there is no room for one.
    pub fn best_split(&self, lo: usize, hi: usize) -> Option<usize> {
        (lo + 1..hi)
            .map(|k| (k, self.cost(lo, k) + self.cost(k, hi)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(k, _)| k)
    }
}

/// Moves each boundary but the `pinned` ones to the split between its neighbours that fits the
/// two sides' weighted levels best ([`SplitCosts::best_split`]): E-divisive places a change to
/// within its windows, this places it exactly when the data allow. Boundaries stay in order.
/// A boundary that holds as a `local` step ([`SeriesChange::local`]) moves only among the
/// [`LOCAL_STEP`] versions on either side: between its neighbours, a drift's rise, not the
/// step, fits the two levels best.
fn refine(
    versions: &[VersionMean],
    boundaries: &[usize],
    tau2: f64,
    pinned: &dyn Fn(usize) -> bool,
    local: &[usize],
) -> Vec<usize> {
    let n = versions.len();
    let costs = SplitCosts::new(versions, tau2);
    let mut out = boundaries.to_vec();
    for j in 0..out.len() {
        if pinned(out[j]) {
            continue;
        }
        let mut lo = if j == 0 { 0 } else { out[j - 1] };
        let mut hi = if j + 1 < out.len() { out[j + 1] } else { n };
        if local.contains(&out[j]) {
            lo = lo.max(out[j].saturating_sub(LOCAL_STEP));
            hi = hi.min(out[j] + LOCAL_STEP);
        }
        if let Some(k) = costs.best_split(lo, hi) {
            out[j] = k;
        }
    }
    out
}

/// Segments, τ² and the test of every boundary, for fixed boundaries.
pub fn evaluate(
    versions: &[VersionMean],
    boundaries: &[usize],
    cfg: &SeriesConfig,
) -> Result<SeriesAnalysis> {
    evaluate_floored(versions, boundaries, cfg, &|_, _, interval| interval)
}

/// [`evaluate`] with each boundary's interval widened by `floor` ([`detect_floored`]).
pub fn evaluate_floored(
    versions: &[VersionMean],
    boundaries: &[usize],
    cfg: &SeriesConfig,
    floor: &RatioFloor<'_>,
) -> Result<SeriesAnalysis> {
    let (tau2, segments, df) = segments_of(versions, boundaries);
    let changes = segments
        .windows(2)
        .map(|w| {
            let mut change = test_change(w[0], w[1], df, cfg.level, cfg.threshold)?;
            if let Some(interval) = change.interval {
                let (lower, upper) = floor(&w[0], &w[1], interval);
                change.widen(lower, upper, cfg.threshold);
            }
            if let Some(local) = local_step(versions, &change, tau2, df, cfg, floor)? {
                change = local;
            }
            Ok(change)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(SeriesAnalysis {
        changes,
        segments,
        tau2,
        df,
    })
}

/// The versions on either side of a boundary that [`local_step`] compares.
const LOCAL_STEP: usize = 10;

/// A boundary whose segments' levels differ by less than the threshold, tested again between the
/// [`LOCAL_STEP`] versions on either side of it: where a segment drifts (a slow rise over a
/// hundred versions), its mean is the drift's middle, and a step inside the drift reads between
/// the segments' means as the step less the drift's rise (a −3% step 32 versions into a +5% drift
/// reads −0.7%). The change is then the local one — its ratio, interval and verdict those of the
/// versions next to the boundary ([`SeriesChange::local`]), its p-value theirs corrected for
/// the boundary's places — when that one lies beyond the threshold; `None` otherwise. Between
/// its segments the step may be not significant at all (their levels the drift's middles), or
/// even point the drift's way. Its level is corrected for the
/// boundary's places ([`near`]) and the versions weigh with the segments' τ², which a drift
/// only inflates.
fn local_step(
    versions: &[VersionMean],
    change: &SeriesChange,
    tau2: f64,
    df: f64,
    cfg: &SeriesConfig,
    floor: &RatioFloor<'_>,
) -> Result<Option<SeriesChange>> {
    let Some((near_before, near_after, level)) = near(change, (&change.before, &change.after), cfg)
    else {
        return Ok(None);
    };
    let near_before = segment(versions, near_before.start, near_before.end, tau2);
    let near_after = segment(versions, near_after.start, near_after.end, tau2);
    let mut local = test_change(near_before, near_after, df, level, cfg.threshold)?;
    if let Some(interval) = local.interval {
        let (lower, upper) = floor(&near_before, &near_after, interval);
        local.widen(lower, upper, cfg.threshold);
    }
    Ok(local_holds(change, local))
}

/// Where [`local_step`] applies to `change` between `segments` (on the scale the versions are
/// analysed on): the stretches of at most [`LOCAL_STEP`] versions on either side of it (their
/// levels still to be weighed) and the level of their test — `cfg.level` corrected for the
/// places the boundary could take, as its p-value is: the segments' test no longer guards the
/// verdict, and the versions beside it are few. `None` when the change needs no second look
/// (already a change, or unbounded), or its segments are that short anyway.
fn near(
    change: &SeriesChange,
    (before, after): (&Segment, &Segment),
    cfg: &SeriesConfig,
) -> Option<(Range<usize>, Range<usize>, f64)> {
    let short = |s: &Segment| s.end - s.start <= LOCAL_STEP;
    if change.verdict.is_change() || change.interval.is_none() || (short(before) && short(after)) {
        return None;
    }
    let from = before.end.saturating_sub(LOCAL_STEP).max(before.start);
    let to = (after.start + LOCAL_STEP).min(after.end);
    let level = 1.0 - (1.0 - cfg.level) / places(before, after) as f64;
    Some((from..before.end, after.start..to, level))
}

/// The `local` test of `change` in its place ([`SeriesChange::local`]) when it finds a change
/// (its p-value corrected for the places the boundary could take between its neighbours, as a
/// segment's is); `None` otherwise.
fn local_holds(change: &SeriesChange, local: SeriesChange) -> Option<SeriesChange> {
    local.verdict.is_change().then(|| SeriesChange {
        before: change.before,
        after: change.after,
        p_adjusted: adjusted_p(local.p_value, &change.before, &change.after),
        local: true,
        ..local
    })
}

/// Changes in a series of points whose levels come from a crossed fit of versions and sessions
/// ([`crate::crossed`]): `points[i]` is the fit's point at position `i` of the series (oldest
/// first; every one must have a level). The search is [`detect`]'s, on the session-adjusted log
/// levels; each boundary's test carries, beside the segments' own variances and the
/// between-version spread τ², the error of the estimated session shifts
/// ([`CrossedFit::contrast_variance`]) and — across connected components — σ_s² for the
/// components' origins. A boundary whose two sides lie in different components is marked
/// [`SeriesChange::confounded`]. Ratios and intervals are on the level's own scale (`exp` of the
/// log scale), and `floor` sees segments on that scale too.
pub fn detect_adjusted(
    fit: &CrossedFit,
    points: &[usize],
    cfg: &SeriesConfig,
    floor: &RatioFloor<'_>,
) -> Result<SeriesAnalysis> {
    detect_adjusted_repeated(fit, points, &[], cfg, floor)
}

/// The positions of the series (`points[i]` the fit's point at position `i`) whose point and
/// the one before lie in different connected components, one of them of several sessions: a
/// version measured in a session tied to none of the history (`track run --anchors 0`) beside
/// a connected history whose sessions' shifts are taken out. Its level keeps its own session's
/// shift (on a loaded machine, a factor of several), and a segment across it would read that
/// as spread between versions and hide every change of the segment. Such a boundary stays (its
/// test carries σ_s², so it is a change only when the step is beyond what sessions shift); one
/// between two versions each alone in a session of its own (a history built by `track add`)
/// does not, as there every boundary is one and the spread between them is what sessions do.
fn origin_boundaries(fit: &CrossedFit, points: &[usize]) -> Vec<bool> {
    let several = |p: usize| fit.component(p).is_some_and(|k| fit.sessions_in(k) > 1);
    let mut out = vec![false; points.len()];
    for i in 1..points.len() {
        let (a, b) = (points[i - 1], points[i]);
        out[i] = fit.component(a) != fit.component(b) && (several(a) || several(b));
    }
    out
}

/// [`detect_adjusted`] where position `i` of the series stands for `repeats[i]` versions (a
/// stretch of byte-identical builds, one point of the fit; missing entries: 1): candidates are
/// sought over the versions, each stretch's level repeated, so a short series of points that
/// stand for many versions is searched as the versions it is.
pub fn detect_adjusted_repeated(
    fit: &CrossedFit,
    points: &[usize],
    repeats: &[usize],
    cfg: &SeriesConfig,
    floor: &RatioFloor<'_>,
) -> Result<SeriesAnalysis> {
    detect_adjusted_with_events(fit, points, repeats, cfg, floor, &[])
}

/// [`detect_adjusted_repeated`] with a boundary held at each of `events` (positions of the
/// series where the benchmarks shifted together), as [`detect_with_events`] holds them.
pub fn detect_adjusted_with_events(
    fit: &CrossedFit,
    points: &[usize],
    repeats: &[usize],
    cfg: &SeriesConfig,
    floor: &RatioFloor<'_>,
    events: &[usize],
) -> Result<SeriesAnalysis> {
    let versions = adjusted_levels(fit, points)?;
    let adjusted = Adjusted::new(fit, points, &versions);
    let pinned = origin_boundaries(fit, points);
    let events = held_events(versions.len(), events);
    search(
        &versions,
        Some(repeats),
        cfg,
        &pinned,
        &events,
        &|boundaries| adjusted.evaluate(boundaries, cfg, floor),
    )
}

/// A new version measured in a session of its own — one that shares no version with the
/// history, as a pull request's result measured elsewhere — against the last segment of a
/// [`detect_adjusted`] analysis of the history (`analysis`, over the same `fit` and `points`).
/// `candidate` is the new version's log level and the variance of that log level from its own
/// measurements. Its unknown session shift adds σ_s² (how much sessions vary, from the history),
/// the segment's shifts their estimation error and origin; the candidate varies around the
/// segment's level by the between-version spread τ² too. The change is marked
/// [`SeriesChange::confounded`] when the history has not measured how much sessions vary (all
/// its versions in one session, or sessions that share none): then nothing bounds the new
/// session's shift, and the interval does not contain it. It is marked so too when the history
/// compared sessions only once (σ_s² with fewer than [`NEW_SESSION_MIN_DF`] degrees of freedom).
pub fn new_session_against_last(
    fit: &CrossedFit,
    points: &[usize],
    analysis: &SeriesAnalysis,
    candidate: VersionMean,
    cfg: &SeriesConfig,
) -> Result<SeriesChange> {
    check_finite(&[candidate.mean, candidate.variance])?;
    let versions = adjusted_levels(fit, points)?;
    let n = versions.len();
    if n == 0 {
        return Err(StatsError::TooFew {
            what: "a history to check against",
            needed: 1,
            got: 0,
        });
    }
    let start = analysis.changes.last().map_or(0, |c| c.index).min(n - 1);
    let tau2 = analysis.tau2;
    let before = segment(&versions, start, n, tau2);
    let (contrast, own) = contrast_of(points, &versions, side_weights(&versions, &before, tau2));
    let parts = fit.contrast_variance(&contrast);
    let sessions = fit.session_variance();
    let new_session = sessions.map_or(0.0, |s| s.value * (1.0 + parts.origins));
    let variance = before.variance
        + (parts.estimation - own).max(0.0)
        + new_session
        + candidate.variance.max(0.0)
        + tau2;
    let df = match sessions {
        Some(s) => analysis.df.min(s.df.max(1) as f64),
        None => analysis.df,
    }
    .max(1.0);
    let t_crit = critical_value(cfg.level, df, Quantile::StudentT)?;
    let diff = candidate.mean - before.mean;
    let (p_value, interval) = log_test(diff, variance, df, t_crit)?;
    let after = Segment {
        start: n,
        end: n + 1,
        mean: candidate.mean,
        variance: candidate.variance,
    };
    Ok(SeriesChange {
        index: n,
        before: on_scale(&before),
        after: on_scale(&after),
        ratio: diff.exp(),
        interval: Some(interval),
        p_value,
        p_adjusted: p_value,
        verdict: verdict_from_interval(interval.0, interval.1, cfg.threshold),
        at_resolution: false,
        confounded: sessions.is_none_or(|s| s.df < NEW_SESSION_MIN_DF),
        local: false,
    })
}

/// The fewest degrees of freedom of σ_s² that bound a new session's shift
/// ([`new_session_against_last`]). With one (two sessions compared once) the estimate is
/// `σ_s²·χ²₁`: below a hundredth of σ_s² one time in twelve, and then the interval is as narrow
/// as if sessions did not differ — a pull request measured on a busy afternoon was called 21%
/// faster than identical code. The t interval with one degree of freedom covers on average,
/// but not given the estimate the user sees; with two, such an estimate comes one time in a
/// hundred.
pub const NEW_SESSION_MIN_DF: usize = 2;

/// The session-adjusted log level of each point with the variance of its own cells.
pub(crate) fn adjusted_levels(fit: &CrossedFit, points: &[usize]) -> Result<Vec<VersionMean>> {
    points
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let mean = fit.level(p).ok_or_else(|| {
                StatsError::Shape(format!(
                    "point {p} (position {i} of the series) has no cells"
                ))
            })?;
            Ok(VersionMean {
                mean,
                variance: fit.own_variance(p),
            })
        })
        .collect()
}

/// The contrast weights of the versions of a segment of log levels: `1/(vᵢ + τ²)`, normalised
/// within it (all alike when one is infinite), by version.
pub(crate) fn side_weights(versions: &[VersionMean], s: &Segment, tau2: f64) -> Vec<(usize, f64)> {
    let w: Vec<f64> = versions[s.start..s.end]
        .iter()
        .map(|v| 1.0 / (v.variance.max(0.0) + tau2))
        .collect();
    let uniform = w.iter().any(|w| !w.is_finite());
    let total: f64 = if uniform {
        w.len() as f64
    } else {
        w.iter().sum()
    };
    (s.start..s.end)
        .zip(w)
        .map(|(i, w)| (i, if uniform { 1.0 } else { w } / total))
        .collect()
}

/// The fit's contrast of versions weighted `weights` (by version; the fit's points are
/// `points`), and the part of its variance that the versions' own cells make.
pub(crate) fn contrast_of(
    points: &[usize],
    versions: &[VersionMean],
    weights: impl IntoIterator<Item = (usize, f64)>,
) -> (Vec<(usize, f64)>, f64) {
    let mut own = 0.0;
    let contrast = weights
        .into_iter()
        .map(|(i, c)| {
            own += c * c * versions[i].variance.max(0.0);
            (points[i], c)
        })
        .collect();
    (contrast, own)
}

/// A difference of log levels with variance `variance` tested with `df` degrees of freedom:
/// its two-sided p-value and the interval of the ratio, `exp(diff ± t_crit·se)`.
fn log_test(diff: f64, variance: f64, df: f64, t_crit: f64) -> Result<(f64, (f64, f64))> {
    let se = variance.sqrt();
    let p_value = two_sided_p(diff, se, df)?;
    Ok((
        p_value,
        ((diff - t_crit * se).exp(), (diff + t_crit * se).exp()),
    ))
}

/// The change between two segments of log levels whose difference has `variance`, tested with
/// `test` (degrees of freedom and critical value), on the levels' own scale, its interval
/// widened by `floor`.
fn log_change(
    before: Segment,
    after: Segment,
    variance: f64,
    test: (f64, f64),
    confounded: bool,
    cfg: &SeriesConfig,
    floor: &RatioFloor<'_>,
) -> Result<SeriesChange> {
    let diff = after.mean - before.mean;
    let (p_value, interval) = log_test(diff, variance, test.0, test.1)?;
    let mut change = SeriesChange {
        index: after.start,
        before: on_scale(&before),
        after: on_scale(&after),
        ratio: diff.exp(),
        interval: Some(interval),
        p_value,
        p_adjusted: adjusted_p(p_value, &before, &after),
        verdict: verdict_from_interval(interval.0, interval.1, cfg.threshold),
        at_resolution: false,
        confounded,
        local: false,
    };
    let (lower, upper) = floor(&change.before, &change.after, interval);
    change.widen(lower, upper, cfg.threshold);
    Ok(change)
}

/// [`local_step`] for [`evaluate_adjusted`] and its shortcut: `change` between the log
/// segments `sides` of `series` (the fit, its points, the adjusted log levels) tested again
/// between the versions beside it, with their session terms, at the segments' τ² and the
/// analysis' degrees of freedom; the local change where it holds, else `change`. A boundary
/// confounded with a session boundary gets no second look.
fn or_local(
    (fit, points, versions): (&CrossedFit, &[usize], &[VersionMean]),
    change: SeriesChange,
    sides: (&Segment, &Segment),
    (tau2, df): (f64, f64),
    cfg: &SeriesConfig,
    floor: &RatioFloor<'_>,
) -> Result<SeriesChange> {
    let Some((near_before, near_after, level)) = near(&change, sides, cfg) else {
        return Ok(change);
    };
    if change.confounded {
        return Ok(change);
    }
    let near_before = segment(versions, near_before.start, near_before.end, tau2);
    let near_after = segment(versions, near_after.start, near_after.end, tau2);
    let sides = (near_before, near_after);
    let t_crit = critical_value(level, df, Quantile::StudentT)?;
    let test = |sessions: f64, confounded: bool| {
        let variance = near_before.variance + near_after.variance + sessions;
        log_change(
            sides.0,
            sides.1,
            variance,
            (df, t_crit),
            confounded,
            cfg,
            floor,
        )
    };
    // The session terms only widen it: most boundaries fail without them, and are not worth
    // the contrast's estimation error.
    if !test(0.0, false)?.verdict.is_change() {
        return Ok(change);
    }
    let (sessions, confounded) = session_terms(fit, points, versions, (&sides.0, &sides.1), tau2);
    let local = test(sessions, confounded)?;
    Ok(local_holds(&change, local).unwrap_or(change))
}

/// A segment of log levels on the levels' own scale (its variance by the delta method).
fn on_scale(s: &Segment) -> Segment {
    Segment {
        mean: s.mean.exp(),
        variance: s.variance * (2.0 * s.mean).exp(),
        ..*s
    }
}

/// τ², the segments `boundaries` cut `versions` into, and the tests' degrees of freedom
/// (versions minus segments, at least 1).
fn segments_of(versions: &[VersionMean], boundaries: &[usize]) -> (f64, Vec<Segment>, f64) {
    let tau2 = between_version_variance(versions, boundaries);
    let segments: Vec<Segment> = cut(versions.len(), boundaries)
        .into_iter()
        .map(|(a, b)| segment(versions, a, b, tau2))
        .collect();
    let df = versions.len().saturating_sub(segments.len()).max(1) as f64;
    (tau2, segments, df)
}

/// The newest point against the segment before it, given the `boundaries` a
/// [`detect_adjusted`] analysis over the same `fit` and `points` kept: the change a boundary at
/// the newest point would be, its ratio and interval, when detection kept none there (`None`
/// when it did, or the series has fewer than two points). The interval is at the level that
/// detection's test of a boundary there asks for — `cfg.level` corrected by Bonferroni for the
/// places the boundary could take between its neighbours ([`SeriesChange::p_adjusted`]) — so
/// that it holds no change whenever detection found none for want of significance. A change at
/// the newest version within it cannot be excluded: how small a change the history could have
/// told from its noise there. With it, where that test's variance comes from
/// ([`VarianceSources`]): what would narrow it.
pub fn newest_against_before(
    fit: &CrossedFit,
    points: &[usize],
    boundaries: &[usize],
    cfg: &SeriesConfig,
    floor: &RatioFloor<'_>,
) -> Result<Option<(SeriesChange, VarianceSources)>> {
    let Some(newest) = points.len().checked_sub(1).filter(|&n| n > 0) else {
        return Ok(None);
    };
    if boundaries.contains(&newest) {
        return Ok(None);
    }
    let versions = adjusted_levels(fit, points)?;
    let mut cuts: Vec<usize> = boundaries
        .iter()
        .copied()
        .filter(|&b| b > 0 && b < newest)
        .collect();
    cuts.push(newest);
    cuts.sort_unstable();
    cuts.dedup();
    // The places a boundary between its neighbours could take, as `adjusted_p` counts them:
    // from the cut before the newest point (or the start) to the end.
    let before = cuts.iter().rev().nth(1).copied().unwrap_or(0);
    let places = points.len().saturating_sub(before).saturating_sub(1).max(1);
    let level = SeriesConfig {
        level: 1.0 - (1.0 - cfg.level) / places as f64,
        ..*cfg
    };
    let analysis = evaluate_adjusted(fit, points, &versions, &cuts, &level, floor)?;
    let Some(change) = analysis.changes.into_iter().find(|c| c.index == newest) else {
        return Ok(None);
    };
    // The newest segment and the one before it, as the test above had them.
    let (tau2, segments, _) = segments_of(&versions, &cuts);
    let [.., before, after] = segments.as_slice() else {
        return Ok(None);
    };
    let (sessions, _) = session_terms(fit, points, &versions, (before, after), tau2);
    let own = segment(&versions, before.start, before.end, 0.0).variance
        + segment(&versions, after.start, after.end, 0.0).variance;
    let sources = VarianceSources {
        own,
        between: (before.variance + after.variance - own).max(0.0),
        sessions,
    };
    Ok(Some((change, sources)))
}

/// The session terms of the test of the boundary between two adjacent segments of log levels
/// (`sides`): the estimated shifts' error beyond the versions' own cells and, across connected
/// components, σ_s² for their origins; and whether the boundary is confounded with a session
/// boundary.
fn session_terms(
    fit: &CrossedFit,
    points: &[usize],
    versions: &[VersionMean],
    sides: (&Segment, &Segment),
    tau2: f64,
) -> (f64, bool) {
    let weights = side_weights(versions, sides.0, tau2)
        .into_iter()
        .map(|(i, c)| (i, -c))
        .chain(side_weights(versions, sides.1, tau2));
    let (contrast, own) = contrast_of(points, versions, weights);
    let parts = fit.contrast_variance(&contrast);
    let sessions = (parts.estimation - own).max(0.0)
        + parts
            .total(fit.session_variance())
            .map_or(0.0, |t| t - parts.estimation);
    (sessions, parts.confounded)
}

/// Where the variance of a boundary's test comes from, on the log scale: which more
/// measurement narrows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VarianceSources {
    /// The versions' own measurements: more executions narrow it.
    pub own: f64,
    /// The spread between versions beyond their own measurements (τ²: builds, code layout, and
    /// what the sessions' estimated shifts left in the levels): more executions narrow it
    /// little.
    pub between: f64,
    /// The sessions' shifts and the error of their estimates: more anchors narrow it, and
    /// sessions that the load shifts less.
    pub sessions: f64,
}

/// The largest of [`VarianceSources`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoiseSource {
    /// The versions' own measurements.
    Own,
    /// The spread between versions.
    Between,
    /// The sessions' shifts.
    Sessions,
}

impl VarianceSources {
    /// The largest source (the versions' own measurements on a tie).
    pub fn largest(&self) -> NoiseSource {
        if self.sessions > self.own.max(self.between) {
            NoiseSource::Sessions
        } else if self.between > self.own {
            NoiseSource::Between
        } else {
            NoiseSource::Own
        }
    }
}

/// [`evaluate_floored`] for [`detect_adjusted`]: segments of log levels, each boundary tested
/// with the session terms of its contrast.
pub fn evaluate_adjusted(
    fit: &CrossedFit,
    points: &[usize],
    versions: &[VersionMean],
    boundaries: &[usize],
    cfg: &SeriesConfig,
    floor: &RatioFloor<'_>,
) -> Result<SeriesAnalysis> {
    let (tau2, log_segments, df) = segments_of(versions, boundaries);
    // With segments of one point each (stretches of identical builds) there is no spread
    // between points to estimate: the uncertainty is then the cells' own, whose degrees of
    // freedom the fit's residuals give.
    let df = df.max(fit.df() as f64);
    let t_crit = critical_value(cfg.level, df, Quantile::StudentT)?;
    let mut changes = Vec::with_capacity(log_segments.len().saturating_sub(1));
    for w in log_segments.windows(2) {
        let (before, after) = (w[0], w[1]);
        let (sessions, confounded) = session_terms(fit, points, versions, (&before, &after), tau2);
        let variance = before.variance + after.variance + sessions;
        let test = (df, t_crit);
        let change = log_change(before, after, variance, test, confounded, cfg, floor)?;
        let series = (fit, points, versions);
        let sides = (&before, &after);
        changes.push(or_local(series, change, sides, (tau2, df), cfg, floor)?);
    }
    Ok(SeriesAnalysis {
        changes,
        segments: log_segments.iter().map(on_scale).collect(),
        tau2,
        df,
    })
}

/// Prefix sums kept with their rounding error (Neumaier's compensation), so that the sum over
/// any range `[a, b)` is as accurate as a sum over that range alone, however long the series
/// before it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Prefix {
    hi: Vec<f64>,
    lo: Vec<f64>,
}

impl Prefix {
    /// The prefix sums of `values`.
    pub(crate) fn new(values: impl IntoIterator<Item = f64>) -> Self {
        let (mut hi, mut lo) = (vec![0.0], vec![0.0]);
        let (mut s, mut c) = (0.0_f64, 0.0_f64);
        for x in values {
            let t = s + x;
            c += if s.abs() >= x.abs() {
                (s - t) + x
            } else {
                (x - t) + s
            };
            s = t;
            hi.push(s);
            lo.push(c);
        }
        Self { hi, lo }
    }

    /// The sum of the values `[a, b)`.
    pub(crate) fn range(&self, a: usize, b: usize) -> f64 {
        (self.hi[b] - self.hi[a]) + (self.lo[b] - self.lo[a])
    }
}

/// What [`between_version_variance`] needs of a series, as prefix sums: τ² of any cut of it in
/// O(segments) rather than O(versions). The versions are centred on their mean first, so that
/// a segment's weighted squares are not the difference of two large numbers.
#[derive(Debug, Clone)]
pub(crate) struct Moments {
    n: usize,
    /// Some version has no variance of its own: the unweighted method of moments.
    unweighted: bool,
    /// The weights (`1/vᵢ`, or 1), the weighted centred means and their squares, and the
    /// squared weights.
    w: Prefix,
    wd: Prefix,
    wd2: Prefix,
    w2: Prefix,
    /// The mean within-version variance (the unweighted method).
    within: f64,
}

impl Moments {
    /// The prefix sums of `versions`.
    pub(crate) fn new(versions: &[VersionMean]) -> Self {
        let n = versions.len();
        let unweighted = versions
            .iter()
            .any(|v| v.variance.is_nan() || v.variance <= 0.0);
        let centre = if n == 0 {
            0.0
        } else {
            versions.iter().map(|v| v.mean).sum::<f64>() / n as f64
        };
        let weight = |v: &VersionMean| if unweighted { 1.0 } else { 1.0 / v.variance };
        let within = if unweighted && n > 0 {
            versions.iter().map(|v| v.variance.max(0.0)).sum::<f64>() / n as f64
        } else {
            0.0
        };
        Self {
            n,
            unweighted,
            w: Prefix::new(versions.iter().map(weight)),
            wd: Prefix::new(versions.iter().map(|v| weight(v) * (v.mean - centre))),
            wd2: Prefix::new(
                versions
                    .iter()
                    .map(|v| weight(v) * (v.mean - centre) * (v.mean - centre)),
            ),
            w2: Prefix::new(versions.iter().map(|v| weight(v) * weight(v))),
            within,
        }
    }

    /// [`between_version_variance`] of the series cut at `boundaries` (sorted, distinct), equal
    /// to it up to rounding.
    pub(crate) fn tau2(&self, boundaries: &[usize]) -> f64 {
        let n = self.n;
        let (mut s, mut q, mut sum_w, mut sum_w2_over) = (0, 0.0, 0.0, 0.0);
        let mut a = 0;
        let inner = boundaries.iter().copied().filter(|&b| b > 0 && b < n);
        for b in inner.chain(std::iter::once(n)) {
            s += 1;
            let sw = self.w.range(a, b);
            let swd = self.wd.range(a, b);
            q += (self.wd2.range(a, b) - swd * swd / sw).max(0.0);
            sum_w += sw;
            sum_w2_over += self.w2.range(a, b) / sw;
            a = b;
        }
        if n <= s {
            return 0.0;
        }
        if self.unweighted {
            return (q / (n - s) as f64 - self.within).max(0.0);
        }
        let denominator = sum_w - sum_w2_over;
        if denominator <= 0.0 {
            return 0.0;
        }
        ((q - (n - s) as f64) / denominator).max(0.0)
    }
}

/// [`evaluate_adjusted`] made cheap for the passes of [`detect_adjusted_repeated`]'s search,
/// which evaluate one series at many sets of boundaries. τ² comes from prefix sums
/// ([`Moments`]); each segment's level is one pass over it with no allocation; and a contrast's
/// session terms take the points alone in a component of one session (every version of a
/// history built by `track add`) from those passes too — such a point adds `c²/D_p` to the
/// estimation, which is its own variance and cancels, and `c²` to the origins — so that only
/// the other points go through [`CrossedFit::contrast_variance`]. The same numbers as
/// [`evaluate_adjusted`] up to rounding (a test compares the two); where a condition of that
/// equality is not met (a version without variance of its own, or versions' variances more
/// than 10¹²/versions apart, so that a coefficient could fall below the tolerance of a
/// component's net coefficient), it is [`evaluate_adjusted`] itself.
struct Adjusted<'a> {
    fit: &'a CrossedFit,
    points: &'a [usize],
    versions: &'a [VersionMean],
    moments: Moments,
    /// The series' mean log level, which the weighted sums are centred on.
    centre: f64,
    /// Which positions' points are alone in their component.
    alone: Alone,
}

/// Which positions of a session-adjusted series have their point alone in a component of one
/// session (every version of a history built by `track add`): a contrast's session terms take
/// such a point from its coefficient alone (`c²` to the origins, and to the estimation its own
/// variance, which cancels against the contrast's own part), so that only the other points go
/// through [`CrossedFit::contrast_parts`]. Shared by [`Adjusted`] and the joint scan's steps
/// ([`crate::joint`]).
#[derive(Debug, Clone)]
pub(crate) struct Alone {
    /// Whether each position's point is alone in a component of one session.
    pub(crate) alone: Vec<bool>,
    /// How many positions before each are alone (prefix counts).
    pub(crate) alone_before: Vec<usize>,
    /// The positions that are not alone, in order.
    pub(crate) general: Vec<usize>,
    /// Whether the shortcut gives the direct computation's numbers: every version has a
    /// positive, finite variance of its own, none more than 10¹²/versions times another's (so
    /// that no coefficient could fall below the tolerance of a component's net coefficient),
    /// and the points are the fit's.
    pub(crate) usable: bool,
}

impl Alone {
    /// Of the series whose position `i` is the fit's point `points[i]`, with levels `versions`.
    pub(crate) fn of(fit: &CrossedFit, points: &[usize], versions: &[VersionMean]) -> Self {
        let n = versions.len();
        let per_component = fit.points_per_component();
        let alone: Vec<bool> = points
            .iter()
            .map(|&p| fit.alone(p, &per_component))
            .collect();
        let mut alone_before = Vec::with_capacity(n + 1);
        alone_before.push(0);
        for (i, a) in alone.iter().enumerate() {
            alone_before.push(alone_before[i] + usize::from(*a));
        }
        let general = (0..alone.len()).filter(|&i| !alone[i]).collect();
        let (least, most) = versions.iter().fold((f64::INFINITY, 0.0_f64), |(l, m), v| {
            (l.min(v.variance), m.max(v.variance))
        });
        let usable = n > 0
            && points.len() == n
            && fit.points() >= n
            && versions
                .iter()
                .all(|v| v.variance.is_finite() && v.mean.is_finite())
            && least > 0.0
            && most / least * (n as f64) < 1e12;
        Self {
            alone,
            alone_before,
            general,
            usable,
        }
    }

    /// The positions in `[start, end)` that are not alone.
    pub(crate) fn general_in(&self, start: usize, end: usize) -> &[usize] {
        let from = self.general.partition_point(|&i| i < start);
        let to = self.general.partition_point(|&i| i < end);
        &self.general[from..to]
    }
}

/// One segment's sums at a τ²: of the weights `wᵢ = 1/(vᵢ + τ²)`, of `w·(m − centre)`, and of
/// `w²` over its points alone in their component.
struct Sums {
    w: f64,
    wd: f64,
    w2_alone: f64,
}

impl<'a> Adjusted<'a> {
    fn new(fit: &'a CrossedFit, points: &'a [usize], versions: &'a [VersionMean]) -> Self {
        let n = versions.len();
        let centre = if n == 0 {
            0.0
        } else {
            versions.iter().map(|v| v.mean).sum::<f64>() / n as f64
        };
        Self {
            fit,
            points,
            versions,
            moments: Moments::new(versions),
            centre,
            alone: Alone::of(fit, points, versions),
        }
    }

    /// The sums of versions `[a, b)` at `tau2`.
    fn sums(&self, a: usize, b: usize, tau2: f64) -> Sums {
        let mut s = Sums {
            w: 0.0,
            wd: 0.0,
            w2_alone: 0.0,
        };
        for (v, alone) in self.versions[a..b].iter().zip(&self.alone.alone[a..b]) {
            let w = 1.0 / (v.variance + tau2);
            s.w += w;
            s.wd += w * (v.mean - self.centre);
            if *alone {
                s.w2_alone += w * w;
            }
        }
        s
    }

    fn evaluate(
        &self,
        boundaries: &[usize],
        cfg: &SeriesConfig,
        floor: &RatioFloor<'_>,
    ) -> Result<SeriesAnalysis> {
        let fallback =
            || evaluate_adjusted(self.fit, self.points, self.versions, boundaries, cfg, floor);
        if !self.alone.usable || boundaries.windows(2).any(|w| w[0] >= w[1]) {
            return fallback();
        }
        let n = self.versions.len();
        let tau2 = self.moments.tau2(boundaries);
        let mut log_segments: Vec<Segment> = Vec::with_capacity(boundaries.len() + 1);
        let mut alone_squares: Vec<f64> = Vec::with_capacity(boundaries.len() + 1);
        let mut a = 0;
        let inner = boundaries.iter().copied().filter(|&b| b > 0 && b < n);
        for b in inner.chain(std::iter::once(n)) {
            let sums = self.sums(a, b, tau2);
            log_segments.push(Segment {
                start: a,
                end: b,
                mean: self.centre + sums.wd / sums.w,
                variance: 1.0 / sums.w,
            });
            alone_squares.push(sums.w2_alone);
            a = b;
        }
        if log_segments
            .iter()
            .any(|s| !(s.variance.is_finite() && s.variance > 0.0 && s.mean.is_finite()))
        {
            return fallback();
        }
        let df = n.saturating_sub(log_segments.len()).max(1) as f64;
        let df = df.max(self.fit.df() as f64);
        let t_crit = critical_value(cfg.level, df, Quantile::StudentT)?;
        let sessions = self.fit.session_variance();
        let mut changes = Vec::with_capacity(log_segments.len().saturating_sub(1));
        let mut contrast: Vec<(usize, f64)> = Vec::new();
        for (k, w) in log_segments.windows(2).enumerate() {
            let (before, after) = (w[0], w[1]);
            let (wb, wa) = (1.0 / before.variance, 1.0 / after.variance);
            let (start, end) = (before.start, after.end);
            // The points alone: no estimation beyond their own variance, c² each to the
            // origins, a component each.
            let mut origins = alone_squares[k] / (wb * wb) + alone_squares[k + 1] / (wa * wa);
            let mut spanned = self.alone.alone_before[end] - self.alone.alone_before[start];
            let mut beyond_own = 0.0;
            let general = self.alone.general_in(start, end);
            if !general.is_empty() {
                let coefficient = |i: usize| {
                    let w = 1.0 / (self.versions[i].variance + tau2);
                    if i < after.start { -w / wb } else { w / wa }
                };
                contrast.clear();
                let mut own = 0.0;
                for &i in general {
                    let c = coefficient(i);
                    own += c * c * self.versions[i].variance;
                    contrast.push((self.points[i], c));
                }
                let largest = (start..end)
                    .map(|i| coefficient(i).abs())
                    .fold(0.0_f64, f64::max);
                let (parts, count) = self.fit.contrast_parts(&contrast, largest);
                beyond_own = (parts.estimation - own).max(0.0);
                origins += parts.origins;
                spanned += count;
            }
            let across = if origins > 0.0 {
                sessions.map_or(0.0, |s| origins * s.value)
            } else {
                0.0
            };
            let variance = before.variance + after.variance + beyond_own + across;
            let test = (df, t_crit);
            let change = log_change(before, after, variance, test, spanned >= 2, cfg, floor)?;
            let series = (self.fit, self.points, self.versions);
            let sides = (&before, &after);
            changes.push(or_local(series, change, sides, (tau2, df), cfg, floor)?);
        }
        Ok(SeriesAnalysis {
            changes,
            segments: log_segments.iter().map(on_scale).collect(),
            tau2,
            df,
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `scripts/oracles/huber.py` (scipy's brentq on the estimating equation).
    #[test]
    fn huber_levels_match_the_independent_solver() {
        let cases: [(&[f64], f64, f64); 3] = [
            (
                &[10.2, 9.8, 10.1, 10.4, 9.7, 10.0, 10.3, 9.9, 10.6, 9.5],
                10.05,
                0.015_921_056_522_154_954,
            ),
            (
                &[10.2, 9.8, 10.1, 10.4, 9.7, 10.0, 10.3, 9.9, 10.6, 19.0],
                10.166_502_694_444_445,
                0.013_237_714_187_441_893,
            ),
            (
                &[
                    5.01, 5.03, 4.98, 5.00, 5.02, 7.5, 4.99, 5.04, 8.1, 5.00, 4.97, 5.01,
                ],
                5.013_320_215_555_556,
                0.000_105_553_214_917_442_27,
            ),
        ];
        for (x, level, variance) in cases {
            let h = VersionMean::huber_of(x).unwrap();
            assert!((h.mean - level).abs() < 1e-10, "{x:?}: {}", h.mean);
            assert!(
                (h.variance - variance).abs() < 1e-10 * variance.max(1e-12) + 1e-15,
                "{x:?}: {}",
                h.variance
            );
        }
        // More than half tied: the median.
        let tied = [3.0, 3.0, 3.0, 3.0, 4.0];
        assert_eq!(
            VersionMean::huber_of(&tied).unwrap(),
            VersionMean::robust_of(&tied).unwrap()
        );
        assert!(VersionMean::huber_of(&[]).is_err());
    }

    /// Efficiency and robustness by simulation with known truth (seeded): under normal noise
    /// (10 executions) Huber's level varies about 5% more than the mean and the median about
    /// 40% more; with one execution in ten slowed by 10–100% the mean is pulled off by several
    /// of its standard errors while Huber's level stays near the median's.
    #[test]
    fn huber_levels_are_efficient_and_robust() {
        use rand::{Rng, SeedableRng};
        use rand_distr::{Distribution, Normal};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2013);
        let noise = Normal::new(0.0, 1.0).unwrap();
        let var_of = |xs: &[f64]| crate::descriptive::variance(xs);
        let (mut mean, mut median, mut huber) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..4000 {
            let x: Vec<f64> = (0..10).map(|_| 100.0 + noise.sample(&mut rng)).collect();
            mean.push(crate::descriptive::mean(&x));
            median.push(crate::descriptive::median(&x));
            huber.push(VersionMean::huber_of(&x).unwrap().mean);
        }
        let (e_median, e_huber) = (
            var_of(&mean) / var_of(&median),
            var_of(&mean) / var_of(&huber),
        );
        assert!(e_huber > 0.9, "Huber's efficiency {e_huber}");
        assert!(e_median < 0.8, "the median's efficiency {e_median}");
        assert!(e_huber > e_median + 0.1);
        // Interference: one slowed execution in ten, on average.
        let (mut bias_mean, mut bias_huber) = (0.0, 0.0);
        for _ in 0..4000 {
            let x: Vec<f64> = (0..10)
                .map(|_| {
                    let slow = if rng.gen_bool(0.1) {
                        rng.gen_range(10.0..100.0)
                    } else {
                        0.0
                    };
                    100.0 + noise.sample(&mut rng) + slow
                })
                .collect();
            bias_mean += crate::descriptive::mean(&x) - 100.0;
            bias_huber += VersionMean::huber_of(&x).unwrap().mean - 100.0;
        }
        let (bias_mean, bias_huber) = (bias_mean / 4000.0, bias_huber / 4000.0);
        assert!(bias_mean > 4.0, "{bias_mean}");
        assert!(bias_huber < 0.4, "{bias_huber}");
    }
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use rand_distr::{Distribution, Normal};

    fn v(mean: f64, variance: f64) -> VersionMean {
        VersionMean { mean, variance }
    }

    /// A rise, a fall back ten versions later and a rise at the newest version (levels from a
    /// history measured in sessions that shift by ±50%): all three are changes. The candidate
    /// scan found none of them (its first split, tested against a rest that the fall dilutes,
    /// failed and stopped the window), and `rigor track changes` said "No changes detected".
    #[test]
    fn a_rise_and_a_fall_back_before_the_newest_are_all_found() {
        let means = crate::edivisive::tests::RISE_AND_FALL_BACK;
        let versions: Vec<VersionMean> = means.iter().map(|&m| v(m, 0.012f64.powi(2))).collect();
        let found = detect(&versions, &SeriesConfig::default()).unwrap();
        let at: Vec<usize> = found.changes.iter().map(|c| c.after.start).collect();
        assert_eq!(at, [9, 19, 29], "{found:?}");
        // The history before the newest version keeps its two.
        let older = detect(&versions[..29], &SeriesConfig::default()).unwrap();
        let at: Vec<usize> = older.changes.iter().map(|c| c.after.start).collect();
        assert_eq!(at, [9, 19], "{older:?}");
    }

    /// τ² by hand: one segment, means 1, 2, 3 with variances 1, 1, 1: weights 1, Q = 2,
    /// N − S = 2, so τ² = max(0, 0) = 0; with means 0, 3, 6: Q = 18, Σw − Σw²/Σw = 3 − 1 = 2,
    /// τ² = (18 − 2)/2 = 8.
    #[test]
    fn dersimonian_laird_by_hand() {
        assert_eq!(
            between_version_variance(&[v(1.0, 1.0), v(2.0, 1.0), v(3.0, 1.0)], &[]),
            0.0
        );
        let tau2 = between_version_variance(&[v(0.0, 1.0), v(3.0, 1.0), v(6.0, 1.0)], &[]);
        assert!((tau2 - 8.0).abs() < 1e-12, "{tau2}");
        // Two segments pool their Q and their weights: each as above gives Q = 18 and 2.
        let pooled = between_version_variance(
            &[
                v(0.0, 1.0),
                v(3.0, 1.0),
                v(6.0, 1.0),
                v(100.0, 1.0),
                v(103.0, 1.0),
                v(106.0, 1.0),
            ],
            &[3],
        );
        assert!((pooled - 8.0).abs() < 1e-12, "{pooled}");
    }

    /// Fieller with df: a = 11 ± v 0.25, b = 10 ± v 0.25, t(10, 95%) = 2.228138852:
    /// g = t²·0.25/100, half = t/10·sqrt(0.25(1 − g) + 1.21·0.25).
    #[test]
    fn fieller_of_segments_by_hand() {
        let seg = |mean, variance| Segment {
            start: 0,
            end: 1,
            mean,
            variance,
        };
        let c = test_change(seg(10.0, 0.25), seg(11.0, 0.25), 10.0, 0.95, 0.01).unwrap();
        let t: f64 = 2.228_138_851_986_273_5;
        let g = t * t * 0.25 / 100.0;
        let half = t / 10.0 * (0.25 * (1.0 - g) + 1.21 * 0.25).sqrt();
        let (lo, hi) = c.interval.unwrap();
        assert!((lo - (1.1 - half) / (1.0 - g)).abs() < 1e-9);
        assert!((hi - (1.1 + half) / (1.0 - g)).abs() < 1e-9);
        // t = 1/sqrt(0.5) = sqrt(2) with 10 df: two-sided p = 0.1876699 (Simpson integration of
        // the t density, computed independently).
        assert!((c.p_value - 0.187_669_87).abs() < 1e-7, "{}", c.p_value);
        assert_eq!(c.verdict, Verdict::Inconclusive);
    }

    /// A −3% step 32 or 68 versions into a +5% drift over 100 versions (per-version noise
    /// 0.2%, as Kalibera & Jones 2013's tradebeans): between the segments' means around it, one
    /// of them drifting, it reads less than the 1% threshold, and it was dropped in 15 and 19
    /// of 20 histories. The 10 versions on either side show it, and it is found where it is —
    /// where found by those versions (most histories at 368), with an interval holding the ratio
    /// of their true levels (0.9747: 1.00516 / 1.03125). The drift alone, with the same noise, never makes a local change.
    #[test]
    fn a_step_inside_a_drift_is_found_by_the_versions_beside_it() {
        let drifted = |step: f64, at: usize, seed: u64| -> Vec<VersionMean> {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let noise = Normal::new(0.0, 0.002).unwrap();
            (0..500)
                .map(|i| {
                    let drift = 1.0 + 0.05 * ((i as f64 - 300.0) / 100.0).clamp(0.0, 1.0);
                    let level = drift * if i >= at { 1.0 + step } else { 1.0 };
                    v(level * (1.0 + noise.sample(&mut rng)), 0.002f64.powi(2))
                })
                .collect()
        };
        let cfg = SeriesConfig::default();
        for at in [332, 368] {
            let (mut found, mut local, mut held) = (0, 0, 0);
            let (mut adjusted, points): (usize, Vec<usize>) = (0, (0..500).collect());
            for seed in 0..20 {
                let versions = drifted(-0.03, at, seed);
                // `rigor track changes` searches session-adjusted log levels: one session here.
                let logs: Vec<f64> = versions.iter().map(|v| v.mean.ln()).collect();
                let fit = one_session_fit(&logs);
                let b = detect_adjusted(&fit, &points, &cfg, &|_, _, i| i).unwrap();
                adjusted += usize::from(
                    b.changes
                        .iter()
                        .any(|c| c.index.abs_diff(at) <= 2 && c.verdict == Verdict::Improvement),
                );
                let a = detect(&versions, &cfg).unwrap();
                let Some(c) = a.changes.iter().find(|c| c.index.abs_diff(at) <= 2) else {
                    continue;
                };
                found += 1;
                assert_eq!(c.verdict, Verdict::Improvement, "{c:?}");
                if at == 368 && c.index == at && c.local {
                    local += 1;
                    let (lo, hi) = c.interval.unwrap();
                    held += usize::from(lo <= 0.9747 && 0.9747 <= hi);
                }
            }
            assert!(found >= 19, "the step at {at}: found in {found} of 20");
            assert!(
                adjusted >= 19,
                "adjusted, the step at {at}: {adjusted} of 20"
            );
            if at == 368 {
                assert!(local >= 10 && held + 1 >= local, "{held} of {local}");
            }
        }
        for seed in 0..20 {
            let alone = detect(&drifted(0.0, 0, seed), &cfg).unwrap();
            assert!(alone.changes.iter().all(|c| !c.local), "{alone:?}");
        }
    }

    /// Versions whose means vary by build noise σ_b on top of their own measurement noise.
    fn series(steps: &[(usize, f64)], n: usize, build_sd: f64, seed: u64) -> Vec<VersionMean> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let build = Normal::new(0.0, build_sd).unwrap();
        let within_sd = 0.005;
        let within = Normal::new(0.0, within_sd).unwrap();
        (0..n)
            .map(|i| {
                let level: f64 = steps
                    .iter()
                    .filter(|(at, _)| i >= *at)
                    .map(|(_, f)| 1.0 + f)
                    .product();
                v(
                    level * (1.0 + build.sample(&mut rng) + within.sample(&mut rng)),
                    within_sd * within_sd,
                )
            })
            .collect()
    }

    #[test]
    fn finds_injected_steps_where_they_are() {
        let cfg = SeriesConfig::default();
        for seed in 0..20 {
            let s = series(&[(7, 0.10), (14, -0.05)], 20, 0.005, seed);
            let found = detect(&s, &cfg).unwrap();
            let at: Vec<usize> = found.changes.iter().map(|c| c.index).collect();
            assert_eq!(at, vec![7, 14], "seed {seed}: {found:?}");
            assert_eq!(found.changes[0].verdict, Verdict::Regression);
            assert_eq!(found.changes[1].verdict, Verdict::Improvement);
        }
    }

    /// A step at the newest version is found when it arrives (E-divisive alone never proposes
    /// it), and it does not hide the history's earlier step by inflating τ²; without a step there,
    /// the newest version raises no alarm.
    #[test]
    fn a_step_at_the_newest_version_is_found_and_hides_nothing() {
        let cfg = SeriesConfig::default();
        let mut quiet_alarms = 0;
        for seed in 0..20 {
            let s = series(&[(10, 0.10), (19, 0.50)], 20, 0.005, 300 + seed);
            let found = detect(&s, &cfg).unwrap();
            let at: Vec<usize> = found.changes.iter().map(|c| c.index).collect();
            assert_eq!(at, vec![10, 19], "seed {seed}: {found:?}");
            let quiet = series(&[(10, 0.10)], 20, 0.005, 600 + seed);
            let found = detect(&quiet, &cfg).unwrap();
            quiet_alarms += found.changes.iter().filter(|c| c.index == 19).count();
            assert!(found.changes.iter().any(|c| c.index == 10), "seed {seed}");
        }
        assert_eq!(quiet_alarms, 0);
    }

    /// Build (between-version) noise three times the within-version noise: a consecutive-pair
    /// test that trusts each version's own interval raises false alarms; the random-effects test
    /// does not.
    #[test]
    fn build_noise_does_not_pose_as_changes() {
        let cfg = SeriesConfig::default();
        let mut alarms = 0;
        let mut naive = 0;
        let runs = 200;
        for seed in 0..runs {
            let s = series(&[], 30, 0.015, 1000 + seed);
            alarms += detect(&s, &cfg).unwrap().changes.len();
            naive += s
                .windows(2)
                .filter(|w| {
                    let one = |x: VersionMean| Segment {
                        start: 0,
                        end: 1,
                        mean: x.mean,
                        variance: x.variance,
                    };
                    test_change(one(w[0]), one(w[1]), 20.0, 0.95, 0.01)
                        .unwrap()
                        .verdict
                        .is_change()
                })
                .count();
        }
        let pairs = (runs * 29) as f64;
        let rate = alarms as f64 / pairs;
        let naive_rate = naive as f64 / pairs;
        assert!(rate < 0.005, "random-effects false alarms per pair {rate}");
        assert!(naive_rate > 0.1, "naive consecutive test {naive_rate}");
    }

    /// Median 3, MAD 1 (deviations 2, 1, 0, 1, 97): σ̂ = 1.4826, variance (π/2)·1.4826²/5.
    #[test]
    fn robust_version_level_by_hand() {
        let r = VersionMean::robust_of(&[1.0, 2.0, 3.0, 4.0, 100.0]).unwrap();
        assert_eq!(r.mean, 3.0);
        let want = std::f64::consts::FRAC_PI_2 * 1.4826_f64.powi(2) / 5.0;
        assert!((r.variance - want).abs() < 1e-12, "{}", r.variance);
        let flat = VersionMean::robust_of(&[2.0, 2.0, 2.0, 5.0]).unwrap();
        assert_eq!(flat.mean, 2.0);
        // MAD 0: the sample variance of 2, 2, 2, 5 (2.25) with the median's factor.
        assert!((flat.variance - std::f64::consts::FRAC_PI_2 * 2.25 / 4.0).abs() < 1e-12);
    }

    /// Found by a user: 10 versions, up 15% at the 4th and back down 10% at the 8th. E-divisive's
    /// first split compares the first segment with everything after it (both later levels
    /// mixed), so strict candidate thresholds missed both changes.
    /// A +3% machine-wide shift at version 100 and a change of the benchmark's own 8–16 versions
    /// away (±3%, either side): with the shift's version held, its own change is placed within
    /// ±2 versions more often, and placed more than 10 versions from both less often, than by
    /// its own data alone (200 seeded series; the held boundary is always among the changes).
    #[test]
    fn an_events_version_held_places_a_change_beside_it() {
        let cfg = SeriesConfig::default();
        let (mut alone_found, mut held_found, mut alone_off, mut held_off) = (0, 0, 0, 0);
        for seed in 0..200u64 {
            let k = 8 + (seed % 9) as usize;
            let own_at = if seed % 2 == 0 { 100 + k } else { 100 - k };
            let own = if seed % 4 < 2 { 0.03 } else { -0.03 };
            let v = series(&[(100, 0.03), (own_at, own)], 200, 0.02, seed);
            let score = |changes: &[SeriesChange]| {
                let found = changes.iter().any(|c| c.index.abs_diff(own_at) <= 2);
                let off = changes
                    .iter()
                    .filter(|c| c.index.abs_diff(own_at) > 10 && c.index.abs_diff(100) > 10)
                    .count();
                (usize::from(found), off)
            };
            let alone = detect(&v, &cfg).unwrap();
            let held = detect_with_events(&v, &cfg, &[100]).unwrap();
            assert!(held.changes.iter().any(|c| c.index == 100), "seed {seed}");
            let (f, o) = score(&alone.changes);
            alone_found += f;
            alone_off += o;
            let (f, o) = score(&held.changes);
            held_found += f;
            held_off += o;
        }
        // 141 against 116 found, 8 against 12 placed off, when written.
        assert!(
            held_found > alone_found + 10,
            "{held_found} vs {alone_found}"
        );
        assert!(held_off <= alone_off, "{held_off} vs {alone_off}");
    }

    #[test]
    fn a_step_up_and_back_down_in_ten_versions() {
        let means = [32.4, 32.8, 32.0, 38.0, 37.1, 37.3, 36.2, 33.6, 32.3, 34.9];
        let versions: Vec<VersionMean> = means.iter().map(|&m| v(m, 0.09)).collect();
        let found = detect(&versions, &SeriesConfig::default()).unwrap();
        let at: Vec<usize> = found.changes.iter().map(|c| c.index).collect();
        assert_eq!(at, vec![3, 7], "{found:?}");
    }

    /// Versions quantised to a 0.04 step: ten versions at 3.00 and ten at 3.04, every version's
    /// units tied (no within-version variance, no between-version spread). The data alone give
    /// the ratio 3.04/3.00 = 1.01333 with an interval of width zero: a 1.3% regression beyond
    /// the 1% threshold. With each level known only to ± 0.02 the ratio may be anywhere in
    /// [3.02/3.02, 3.06/2.98] = [1, 1.026846…] (by hand), which crosses the threshold:
    /// undecided, no change.
    #[test]
    fn a_floor_under_the_ratio_keeps_quantised_steps_from_posing_as_changes() {
        let mut versions = vec![v(3.0, 0.0); 10];
        versions.extend(vec![v(3.04, 0.0); 10]);
        let cfg = SeriesConfig::default();
        let plain = evaluate(&versions, &[10], &cfg).unwrap();
        let c = plain.changes[0];
        assert_eq!(c.verdict, Verdict::Regression);
        assert!(!c.at_resolution);
        let (lo, hi) = c.interval.unwrap();
        assert!((lo - 3.04 / 3.0).abs() < 1e-12 && (hi - 3.04 / 3.0).abs() < 1e-12);
        assert_eq!(detect(&versions, &cfg).unwrap().changes.len(), 1);
        // The floor a caller with a resolution of 0.04 supplies (± 0.02 on each level).
        let half = 0.02;
        let floor = |b: &Segment, a: &Segment, (lo, hi): (f64, f64)| {
            (
                lo.min((a.mean - half) / (b.mean + half)),
                hi.max((a.mean + half) / (b.mean - half)),
            )
        };
        let floored = evaluate_floored(&versions, &[10], &cfg, &floor).unwrap();
        let c = floored.changes[0];
        assert!(c.at_resolution);
        assert_eq!(c.verdict, Verdict::Inconclusive);
        let (lo, hi) = c.interval.unwrap();
        assert!((lo - 1.0).abs() < 1e-12, "{lo}");
        assert!((hi - 1.026_845_637_583_892_6).abs() < 1e-12, "{hi}");
        assert!(
            detect_floored(&versions, &cfg, &floor)
                .unwrap()
                .changes
                .is_empty()
        );
        // A real step of 20 quanta stays a change under the same floor.
        let mut real = vec![v(3.0, 0.0); 10];
        real.extend(vec![v(3.4, 0.0); 10]);
        let found = detect_floored(&real, &cfg, &floor).unwrap();
        assert_eq!(found.changes.len(), 1);
        assert_eq!(found.changes[0].verdict, Verdict::Regression);
    }

    /// A project measured in sessions of `size` versions, each session shifted by a factor
    /// drawn with SD `shift_sd` (log scale), and re-measuring `anchors` earlier versions (the
    /// newest stored one, then evenly spaced earlier ones) beside its new ones. `steps` are
    /// (version, log step). Cells carry noise of SD 0.005 and say so.
    fn sessions_project(
        n: usize,
        size: usize,
        anchors: usize,
        shift_sd: f64,
        steps: &[(usize, f64)],
        shifts: Option<&[f64]>,
        seed: u64,
    ) -> crate::crossed::CrossedFit {
        use crate::crossed::{Cell, fit};
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let shift = Normal::new(0.0, shift_sd.max(1e-300)).unwrap();
        let noise = Normal::new(0.0, 0.005).unwrap();
        let truth = |p: usize| -> f64 {
            steps
                .iter()
                .filter(|(at, _)| p >= *at)
                .map(|(_, s)| s)
                .sum()
        };
        let mut cells = Vec::new();
        let (mut start, mut session) = (0, 0);
        while start < n {
            let end = (start + size).min(n);
            let s = match shifts {
                Some(given) => given[session],
                None => shift.sample(&mut rng),
            };
            let mut members: Vec<usize> = (start..end).collect();
            for a in 0..anchors.min(start) {
                members.push(if a == 0 {
                    start - 1
                } else {
                    (start - 1) * a / anchors
                });
            }
            for p in members {
                cells.push(Cell {
                    point: p,
                    session,
                    value: truth(p) + s + noise.sample(&mut rng),
                    variance: 0.005 * 0.005,
                });
            }
            session += 1;
            start = end;
        }
        fit(n, session, &cells).unwrap()
    }

    /// A seeded history mixing the shapes a series takes: versions each in a session of its own
    /// (as `track add` stores them; each alone in its component), sessions of several versions
    /// re-measuring earlier ones (as `track run` measures), and a session of several versions
    /// that shares none; each version's variance of its own drawn over two orders of magnitude,
    /// a spread between builds, steps, levels far from 1 (log levels far from 0).
    pub(crate) fn mixed_history(seed: u64, n: usize) -> crate::crossed::CrossedFit {
        shaped_history(seed, n, false)
    }

    /// [`mixed_history`], or with `mostly_added` one a long stretch of whose versions are each in
    /// a session of their own (19 in 20 sessions `track add`'s).
    pub(crate) fn shaped_history(
        seed: u64,
        n: usize,
        mostly_added: bool,
    ) -> crate::crossed::CrossedFit {
        use crate::crossed::{Cell, fit};
        use rand::Rng;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let base = rng.gen_range(-9.0..3.0);
        let build = rng.gen_range(0.0..0.004);
        let truth: Vec<f64> = {
            let mut level = base;
            (0..n)
                .map(|_| {
                    if rng.gen_bool(0.01) {
                        level += rng.gen_range(-0.1..0.1);
                    }
                    level + build * Normal::new(0.0, 1.0).unwrap().sample(&mut rng)
                })
                .collect()
        };
        let mut cells = Vec::new();
        let mut session = 0;
        let mut p = 0;
        let mut cell = |rng: &mut ChaCha8Rng, p: usize, session: usize, shift: f64| {
            let sd = 10f64.powf(rng.gen_range(-3.3..-2.3));
            cells.push(Cell {
                point: p,
                session,
                value: truth[p] + shift + sd * Normal::new(0.0, 1.0).unwrap().sample(rng),
                variance: sd * sd,
            });
        };
        while p < n {
            let shift = rng.gen_range(-0.05..0.05);
            let shape = if mostly_added && rng.gen_bool(0.95) {
                0
            } else {
                rng.gen_range(0..3)
            };
            match shape {
                0 => {
                    // `track add`: a version alone in its session.
                    cell(&mut rng, p, session, shift);
                    p += 1;
                }
                1 => {
                    // `track run`: up to 11 new versions, anchored on two earlier ones.
                    let end = (p + rng.gen_range(2..12)).min(n);
                    if p > 1 {
                        cell(&mut rng, p - 1, session, shift);
                        let earlier = rng.gen_range(0..p - 1);
                        cell(&mut rng, earlier, session, shift);
                    }
                    for q in p..end {
                        cell(&mut rng, q, session, shift);
                    }
                    p = end;
                }
                _ => {
                    // Several versions in a session that shares none.
                    let end = (p + rng.gen_range(2..6)).min(n);
                    for q in p..end {
                        cell(&mut rng, q, session, shift);
                    }
                    p = end;
                }
            }
            session += 1;
        }
        fit(n, session, &cells).unwrap()
    }

    /// `a` equals `b` to `tolerance` relative (of the larger).
    fn same(a: f64, b: f64, tolerance: f64, what: &str) {
        let scale = a.abs().max(b.abs());
        assert!(
            (a - b).abs() <= tolerance * scale,
            "{what}: {a} against {b} ({:e} relative)",
            (a - b).abs() / scale
        );
    }

    /// Two analyses of one series are the same: boundaries, verdicts and whether confounded
    /// exactly; ratios, intervals and levels to 10⁻¹² relative, p-values to 10⁻¹¹; τ² to 10⁻¹² of the
    /// versions' variances (τ² is a difference of sums that may nearly cancel, so it is compared
    /// on the scale of what it is added to).
    fn same_analysis(a: &SeriesAnalysis, b: &SeriesAnalysis, scale: f64, what: &str) {
        assert_eq!(a.changes.len(), b.changes.len(), "{what}");
        assert!(
            (a.tau2 - b.tau2).abs() <= 1e-12 * scale,
            "{what}: τ² {} {}",
            a.tau2,
            b.tau2
        );
        assert_eq!(a.df, b.df, "{what}");
        for (x, y) in a.changes.iter().zip(&b.changes) {
            assert_eq!(
                (x.index, x.verdict, x.confounded, x.at_resolution),
                (y.index, y.verdict, y.confounded, y.at_resolution),
                "{what}"
            );
            same(x.ratio, y.ratio, 1e-12, &format!("{what}: ratio"));
            let (i, j) = (x.interval.unwrap(), y.interval.unwrap());
            same(i.0, j.0, 1e-12, &format!("{what}: lower bound"));
            same(i.1, j.1, 1e-12, &format!("{what}: upper bound"));
            same(
                x.before.mean,
                y.before.mean,
                1e-12,
                &format!("{what}: level"),
            );
            same(
                x.after.variance,
                y.after.variance,
                1e-12,
                &format!("{what}: variance"),
            );
            // A tail probability magnifies its statistic's rounding: d ln p / d ln t is about
            // t² (≈ 10 at p ≈ 0.001), so a t equal to 10⁻¹³ gives p-values equal to 10⁻¹²,
            // and 10⁻¹¹ is allowed (the direct path's levels, summed uncentred, are the less
            // accurate of the two).
            same(x.p_value, y.p_value, 1e-11, &format!("{what}: p-value"));
            same(
                x.p_adjusted,
                y.p_adjusted,
                1e-11,
                &format!("{what}: adjusted p-value"),
            );
        }
    }

    /// The prefix sums stand for the direct sums: τ² of random cuts of random series (with and
    /// without versions that have no variance of their own) is `between_version_variance`'s.
    #[test]
    fn moments_give_the_between_version_variance() {
        use rand::Rng;
        let mut rng = ChaCha8Rng::seed_from_u64(29);
        for case in 0..200 {
            let n = rng.gen_range(2..400);
            let base = rng.gen_range(-9.0..3.0);
            let spread = rng.gen_range(0.0..0.02);
            let versions: Vec<VersionMean> = (0..n)
                .map(|i| VersionMean {
                    mean: base + if i > n / 2 { 0.05 } else { 0.0 } + spread * rng.r#gen::<f64>(),
                    variance: if case % 5 == 0 && rng.gen_bool(0.1) {
                        0.0
                    } else {
                        10f64.powf(rng.gen_range(-7.0..-4.0))
                    },
                })
                .collect();
            let mut cuts: Vec<usize> = (0..rng.gen_range(0..6))
                .map(|_| rng.gen_range(0..n))
                .collect();
            cuts.sort_unstable();
            cuts.dedup();
            let direct = between_version_variance(&versions, &cuts);
            let fast = Moments::new(&versions).tau2(&cuts);
            let scale = versions.iter().map(|v| v.variance).fold(0.0, f64::max) + direct;
            assert!(
                (direct - fast).abs() <= 1e-12 * scale,
                "case {case}: {direct} against {fast}"
            );
        }
    }

    /// The fast evaluation of [`detect_adjusted_repeated`]'s passes gives what
    /// [`evaluate_adjusted`] gives, on seeded random histories with sessions of every shape:
    /// at random sets of boundaries, and through the whole search (the same changes found).
    #[test]
    fn fast_passes_equal_the_direct_evaluation() {
        use rand::Rng;
        let cfg = SeriesConfig::default();
        let floor = |_: &Segment, _: &Segment, i: (f64, f64)| i;
        let mut rng = ChaCha8Rng::seed_from_u64(2029);
        let mut found = 0;
        for seed in 0..24 {
            let n = 300;
            let fit = mixed_history(seed, n);
            let points: Vec<usize> = (0..n).collect();
            let versions = adjusted_levels(&fit, &points).unwrap();
            let scale = versions.iter().map(|v| v.variance).fold(0.0, f64::max);
            let fast = Adjusted::new(&fit, &points, &versions);
            assert!(fast.alone.usable, "{seed}");
            for _ in 0..10 {
                let mut b: Vec<usize> = (0..rng.gen_range(0..30))
                    .map(|_| rng.gen_range(1..n))
                    .collect();
                b.sort_unstable();
                b.dedup();
                let direct = evaluate_adjusted(&fit, &points, &versions, &b, &cfg, &floor).unwrap();
                let quick = fast.evaluate(&b, &cfg, &floor).unwrap();
                same_analysis(
                    &direct,
                    &quick,
                    scale,
                    &format!("seed {seed}, boundaries {b:?}"),
                );
            }
            let pinned = origin_boundaries(&fit, &points);
            let direct = search(&versions, None, &cfg, &pinned, &[], &|b| {
                evaluate_adjusted(&fit, &points, &versions, b, &cfg, &floor)
            })
            .unwrap();
            let quick = detect_adjusted(&fit, &points, &cfg, &floor).unwrap();
            same_analysis(&direct, &quick, scale, &format!("seed {seed}, searched"));
            found += quick.changes.len();
        }
        // The histories have changes, and they are found.
        assert!(found >= 10, "{found}");
    }

    fn adjusted(fit: &crate::crossed::CrossedFit, n: usize) -> SeriesAnalysis {
        let points: Vec<usize> = (0..n).collect();
        detect_adjusted(fit, &points, &SeriesConfig::default(), &|_, _, i| i).unwrap()
    }

    /// What a user saw on lz4: two sessions an hour apart, the second 45% slower throughout
    /// (the machine's load), no version re-measured. The step at the session boundary is a
    /// change of 1.45 by the data, but it is marked confounded with the session.
    #[test]
    fn a_session_boundary_without_anchors_is_confounded() {
        let shifts = [0.0, 1.45_f64.ln()];
        let fit = sessions_project(35, 20, 0, 0.0, &[], Some(&shifts), 1);
        assert_eq!(fit.components(), 2);
        let found = adjusted(&fit, 35);
        assert_eq!(found.changes.len(), 1, "{found:?}");
        let c = found.changes[0];
        assert_eq!(c.index, 20);
        assert!(c.confounded);
        assert!((c.ratio - 1.45).abs() < 0.01, "{}", c.ratio);
    }

    /// What a new user saw on a C project: a connected history (sessions with anchors) with a
    /// rise and a fall back, then one version measured with `--anchors 0` in a session three
    /// times slower (a loaded machine). That version's level keeps its session's shift; merged
    /// into the last segment it made the spread between versions so large that every change of
    /// the history went ("No changes detected"; without the boundary kept, this test finds
    /// none). The boundary before it stays, confounded and no change (its test carries how much
    /// sessions vary, here about ±50% on 4 degrees of freedom); the history's changes are found.
    #[test]
    fn a_version_in_a_session_of_its_own_does_not_erase_the_history() {
        use crate::crossed::{Cell, fit};
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let noise = Normal::new(0.0, 0.005).unwrap();
        let truth = |p: usize| match p {
            10..20 => 0.2,
            _ => 0.0,
        };
        let shifts = [0.0, 0.6, -0.4, 0.5, -0.5];
        let mut cells = Vec::new();
        for (session, shift) in shifts.iter().enumerate() {
            let start = 6 * session;
            let mut members: Vec<usize> = (start..start + 6).collect();
            if start > 0 {
                members.extend([start - 1, start / 2]);
            }
            for p in members {
                let value = truth(p) + shift + noise.sample(&mut rng);
                cells.push(Cell {
                    point: p,
                    session,
                    value,
                    variance: 0.005 * 0.005,
                });
            }
        }
        cells.push(Cell {
            point: 30,
            session: 5,
            value: 3.0_f64.ln(),
            variance: 0.005 * 0.005,
        });
        let f = fit(31, 6, &cells).unwrap();
        assert_eq!(f.components(), 2);
        let found = adjusted(&f, 31);
        let changes: Vec<(usize, bool, bool)> = found
            .changes
            .iter()
            .map(|c| (c.index, c.verdict.is_change(), c.confounded))
            .collect();
        assert_eq!(
            changes,
            vec![(10, true, false), (20, true, false), (30, false, true)],
            "{found:?}"
        );
    }

    /// The same sessions with two anchors each: the shift is estimated and taken out, nothing
    /// is found; a real 5% step inside the second session is found where it is, not confounded.
    #[test]
    fn anchors_take_the_session_shift_out() {
        let shifts = [0.0, 1.45_f64.ln()];
        for seed in 0..10 {
            let fit = sessions_project(35, 20, 2, 0.0, &[], Some(&shifts), seed);
            assert_eq!(fit.components(), 1);
            let found = adjusted(&fit, 35);
            assert!(found.changes.is_empty(), "seed {seed}: {found:?}");
            let fit = sessions_project(35, 20, 2, 0.0, &[(27, 0.05)], Some(&shifts), seed);
            let found = adjusted(&fit, 35);
            let at: Vec<(usize, bool)> = found
                .changes
                .iter()
                .map(|c| (c.index, c.confounded))
                .collect();
            assert_eq!(at, vec![(27, false)], "seed {seed}: {found:?}");
            assert!((found.changes[0].ratio - 0.05_f64.exp()).abs() < 0.01);
        }
    }

    /// Known truth: sessions of 10 versions shifted with SD 20%, two anchors each, no change.
    /// Today's method (each version's level as measured, sessions ignored) calls the session
    /// boundaries changes; the adjusted detection stays within the false-alarm target.
    #[test]
    fn session_shifts_do_not_pose_as_changes() {
        let (mut alarms, mut naive, runs, n) = (0, 0, 100, 40);
        for seed in 0..runs {
            let fit = sessions_project(n, 10, 2, 0.2, &[], None, 500 + seed);
            alarms += adjusted(&fit, n)
                .changes
                .iter()
                .filter(|c| !c.confounded)
                .count();
            // Today's method: each version's level as measured in its one session.
            let fit_plain = sessions_project(n, 10, 0, 0.2, &[], None, 500 + seed);
            let plain: Vec<VersionMean> = (0..n)
                .map(|p| v(fit_plain.level(p).unwrap(), 0.005 * 0.005))
                .collect();
            naive += detect(&plain, &SeriesConfig::default())
                .unwrap()
                .changes
                .len();
        }
        let pairs = (runs * (n as u64 - 1)) as f64;
        assert!(
            (alarms as f64) / pairs < 0.002,
            "adjusted false alarms {alarms} in {pairs} pairs"
        );
        assert!(
            (naive as f64) / pairs > 0.02,
            "unadjusted false alarms {naive} in {pairs} pairs"
        );
    }

    /// Known truth: the same noisy sessions with a 5% step at a random version: found at its
    /// version (± 1) in at least 95% of the series.
    #[test]
    fn steps_are_found_through_session_shifts() {
        let (mut found, runs, n) = (0, 100, 40);
        for seed in 0..runs {
            let at = 5 + (seed as usize * 7) % 30;
            let fit = sessions_project(n, 10, 2, 0.2, &[(at, 0.05)], None, 900 + seed);
            let changes = adjusted(&fit, n).changes;
            if changes
                .iter()
                .any(|c| c.index.abs_diff(at) <= 1 && c.verdict == Verdict::Regression)
            {
                found += 1;
            }
        }
        assert!(found >= 95, "found {found} of {runs}");
    }

    /// An identical candidate measured in a new session against a history of sessions shifted
    /// with SD 10% (anchored): the verdict is no regression and no improvement in at least 19
    /// of 20 trials, where comparing with the segment's level alone (no session spread) calls a
    /// change most of the time; a history of one session says it cannot tell.
    #[test]
    fn a_new_session_carries_the_spread_between_sessions() {
        let cfg = SeriesConfig::default();
        let mut shift = ChaCha8Rng::seed_from_u64(77);
        let draw = Normal::new(0.0, 0.1).unwrap();
        let (mut changes, mut naive) = (0, 0);
        for seed in 0..20 {
            let fit = sessions_project(30, 6, 2, 0.1, &[], None, 3000 + seed);
            let points: Vec<usize> = (0..30).collect();
            let found = detect_adjusted(&fit, &points, &cfg, &|_, _, i| i).unwrap();
            let candidate = VersionMean {
                mean: draw.sample(&mut shift),
                variance: 0.005 * 0.005,
            };
            let c = new_session_against_last(&fit, &points, &found, candidate, &cfg).unwrap();
            assert!(!c.confounded);
            changes += usize::from(c.verdict.is_change());
            let plain = test_change(
                segment(&adjusted_levels(&fit, &points).unwrap(), 0, 30, found.tau2),
                Segment {
                    start: 30,
                    end: 31,
                    mean: candidate.mean,
                    variance: candidate.variance,
                },
                found.df,
                cfg.level,
                cfg.threshold,
            )
            .unwrap();
            naive += usize::from(plain.verdict.is_change());
        }
        assert!(changes <= 1, "{changes} of 20 called a change");
        assert!(naive >= 10, "without the session spread: {naive} of 20");
        let one = sessions_project(10, 10, 0, 0.0, &[], None, 1);
        let points: Vec<usize> = (0..10).collect();
        let found = detect_adjusted(&one, &points, &cfg, &|_, _, i| i).unwrap();
        let c = new_session_against_last(
            &one,
            &points,
            &found,
            VersionMean {
                mean: 0.3,
                variance: 1e-6,
            },
            &cfg,
        )
        .unwrap();
        assert!(c.confounded);
    }

    /// Two sessions whose shifts happen to agree (σ_s = 30%, drawn 0.20 and 0.21): σ_s² from
    /// its one degree of freedom is about 0, and an identical candidate measured in a session
    /// shifted by −25% was called a 22% improvement with an interval of a few percent. Two
    /// sessions no longer bound a new one (no verdict); a third session, with a shift of its
    /// own, does, and the same candidate is then no change.
    #[test]
    fn two_sessions_compared_once_do_not_bound_a_new_one() {
        let cfg = SeriesConfig::default();
        let candidate = VersionMean {
            mean: -0.25,
            variance: 0.005 * 0.005,
        };
        let check = |shifts: &[f64]| {
            let n = 6 * shifts.len();
            let fit = sessions_project(n, 6, 2, 0.3, &[], Some(shifts), 41);
            let points: Vec<usize> = (0..n).collect();
            let found = detect_adjusted(&fit, &points, &cfg, &|_, _, i| i).unwrap();
            let c = new_session_against_last(&fit, &points, &found, candidate, &cfg).unwrap();
            (fit.session_variance().unwrap(), c)
        };
        let (sessions, two) = check(&[0.20, 0.21]);
        assert_eq!(sessions.df, 1);
        assert!(sessions.value < 0.01 * 0.09, "{sessions:?}");
        assert!(two.confounded, "{two:?}");
        // What its interval alone says, which the caller must not report as a verdict.
        assert_eq!(two.verdict, Verdict::Improvement, "{two:?}");
        let (sessions, three) = check(&[0.20, 0.21, -0.30]);
        assert_eq!(sessions.df, 2);
        assert!(!three.confounded, "{three:?}");
        assert!(!three.verdict.is_change(), "{three:?}");
    }

    /// Versions that do not spread beyond their own cells' noise: the newest one's bound rests
    /// on those cells, which more executions narrow. The largest source names it.
    #[test]
    fn a_bound_from_the_versions_own_noise_says_so() {
        use crate::crossed::{Cell, fit};
        let cfg = SeriesConfig::default();
        let mut rng = ChaCha8Rng::seed_from_u64(43);
        let noise = Normal::new(0.0, 0.03).unwrap();
        // Each level's own variance is 0.03²; the levels spread by just that.
        let cells: Vec<Cell> = (0..20)
            .map(|p| Cell {
                point: p,
                session: 0,
                value: noise.sample(&mut rng),
                variance: 0.03 * 0.03,
            })
            .collect();
        let f = fit(20, 1, &cells).unwrap();
        let points: Vec<usize> = (0..20).collect();
        let found = detect_adjusted(&f, &points, &cfg, &|_, _, i| i).unwrap();
        let kept: Vec<usize> = found.changes.iter().map(|c| c.index).collect();
        let (_, sources) = newest_against_before(&f, &points, &kept, &cfg, &|_, _, i| i)
            .unwrap()
            .unwrap();
        assert_eq!(sources.largest(), NoiseSource::Own, "{sources:?}");
        let by = |own, between, sessions| {
            VarianceSources {
                own,
                between,
                sessions,
            }
            .largest()
        };
        assert_eq!(by(1.0, 2.0, 3.0), NoiseSource::Sessions);
        assert_eq!(by(1.0, 2.0, 0.5), NoiseSource::Between);
        assert_eq!(by(1.0, 1.0, 1.0), NoiseSource::Own);
    }

    /// The crossed fit of `levels` (log levels, one point each, variance 10⁻⁶) in one session.
    fn one_session_fit(levels: &[f64]) -> crate::crossed::CrossedFit {
        use crate::crossed::{Cell, fit};
        let cells: Vec<Cell> = levels
            .iter()
            .enumerate()
            .map(|(p, &v)| Cell {
                point: p,
                session: 0,
                value: v,
                variance: 1e-6,
            })
            .collect();
        fit(levels.len(), 1, &cells).unwrap()
    }

    /// The newest version against the segment before it, where detection kept no change there:
    /// its interval (at the level corrected for the boundary's 19 places) holds no change, is
    /// wider than at 95% alone, and is about six times as wide for versions six times as noisy
    /// (the spread between versions, τ, makes it); a step at the newest version that detection
    /// kept gives none (it is a change, in the table).
    #[test]
    fn the_newest_version_bounds_what_could_not_be_told_from_noise() {
        let cfg = SeriesConfig::default();
        let mut rng = ChaCha8Rng::seed_from_u64(41);
        let noise = Normal::new(0.0, 1.0).unwrap();
        let z: Vec<f64> = (0..20).map(|_| noise.sample(&mut rng)).collect();
        let points: Vec<usize> = (0..20).collect();
        let width = |sd: f64| {
            let f = one_session_fit(&z.iter().map(|z| sd * z).collect::<Vec<_>>());
            let found = detect_adjusted(&f, &points, &cfg, &|_, _, i| i).unwrap();
            let kept: Vec<usize> = found.changes.iter().map(|c| c.index).collect();
            assert!(kept.is_empty(), "{found:?}");
            let (c, sources) = newest_against_before(&f, &points, &kept, &cfg, &|_, _, i| i)
                .unwrap()
                .unwrap();
            assert_eq!(c.index, 19);
            // The spread between versions makes it (their own cells are known to 0.1%, and
            // there is one session): more versions narrow it, not more executions.
            assert_eq!(sources.largest(), NoiseSource::Between, "{sources:?}");
            assert_eq!(sources.sessions, 0.0, "{sources:?}");
            let (lo, hi) = c.interval.unwrap();
            assert!(lo < 1.0 && 1.0 < hi, "{c:?}");
            assert!(!c.verdict.is_change(), "{c:?}");
            let plain = evaluate_adjusted(
                &f,
                &points,
                &adjusted_levels(&f, &points).unwrap(),
                &[19],
                &cfg,
                &|_, _, i| i,
            )
            .unwrap()
            .changes[0];
            let (a, b) = plain.interval.unwrap();
            assert!(lo < a && b < hi, "{c:?} against {plain:?}");
            hi.ln() - lo.ln()
        };
        let (quiet, noisy) = (width(0.01), width(0.06));
        assert!((5.0..7.0).contains(&(noisy / quiet)), "{quiet} and {noisy}");
        // A step at the newest version, kept: nothing to bound.
        let mut stepped: Vec<f64> = z.iter().map(|z| 0.01 * z).collect();
        stepped[19] += 0.3;
        let f = one_session_fit(&stepped);
        let found = detect_adjusted(&f, &points, &cfg, &|_, _, i| i).unwrap();
        let kept: Vec<usize> = found.changes.iter().map(|c| c.index).collect();
        assert_eq!(kept, [19]);
        assert!(
            newest_against_before(&f, &points, &kept, &cfg, &|_, _, i| i)
                .unwrap()
                .is_none()
        );
    }

    /// Found by the real-process test: 20 versions whose builds are identical in three stretches
    /// (7, 7 and 6 versions) are three points; E-divisive finds nothing in three values, but
    /// searched as the versions they stand for the two steps are found between the points.
    #[test]
    fn identical_stretches_are_searched_as_their_versions() {
        let f = one_session_fit(&[0.0, 0.25_f64.ln_1p(), (1.25_f64 * 0.9).ln()]);
        let cfg = SeriesConfig::default();
        let plain = detect_adjusted(&f, &[0, 1, 2], &cfg, &|_, _, i| i).unwrap();
        assert!(plain.changes.is_empty(), "three values alone: {plain:?}");
        let found =
            detect_adjusted_repeated(&f, &[0, 1, 2], &[7, 7, 6], &cfg, &|_, _, i| i).unwrap();
        let at: Vec<usize> = found.changes.iter().map(|c| c.index).collect();
        assert_eq!(at, vec![1, 2], "{found:?}");
    }

    /// Nine identical builds then a newest version 40% slower (a real C project's history: the
    /// builds of commits that changed nothing in the program are one point): the step at the
    /// newest version is found, as in a series of ten distinct versions.
    #[test]
    fn a_step_after_a_stretch_of_identical_builds_is_found_at_the_newest() {
        let f = one_session_fit(&[0.0, 1.4_f64.ln()]);
        let cfg = SeriesConfig::default();
        let found = detect_adjusted_repeated(&f, &[0, 1], &[9, 1], &cfg, &|_, _, i| i).unwrap();
        let at: Vec<usize> = found.changes.iter().map(|c| c.index).collect();
        assert_eq!(at, vec![1], "{found:?}");
    }

    /// 120 versions (variance 1 each, no noise): level 10, a step to 12 at version 60, and
    /// versions 80..84 at `12 + blip`, then 12 again (`staircase`: the level stays up at
    /// `12 + 2·blip` after 84 instead).
    fn blip_series(blip: f64, staircase: bool) -> Vec<VersionMean> {
        (0..120)
            .map(|i| {
                let level = match i {
                    0..60 => 10.0,
                    80..84 => 12.0 + blip,
                    84.. if staircase => 12.0 + 2.0 * blip,
                    _ => 12.0,
                };
                v(level, 1.0)
            })
            .collect()
    }

    /// A blip of four versions 1.9 (their own standard deviations) above its flanks: each of its
    /// two boundaries passes its own test (corrected for its own places), but the pair, tested as
    /// a pair against the flanks together and corrected for the pairs of places, does not. One of
    /// 6 holds. Two rises in a row are not a blip. (E-divisive does not propose these boundaries
    /// in noise-free data: the search is tested on noisy series below.)
    #[test]
    fn a_blip_holds_only_as_a_pair() {
        let cfg = SeriesConfig::default();
        let versions = blip_series(1.9, false);
        let each = evaluate(&versions, &[60, 80, 84], &cfg).unwrap();
        for c in &each.changes {
            assert!(
                c.verdict.is_change() && c.p_adjusted <= 0.05,
                "each boundary holds alone: {c:?}"
            );
        }
        // The weaker of the two goes: 84 (corrected p 0.018 against 0.017 for 80).
        assert!(each.changes[2].p_adjusted > each.changes[1].p_adjusted);
        assert_eq!(
            weaker_of_failing_blip(&versions, &each, &cfg, &|_| false, &[]),
            Some(2)
        );
        let clear = blip_series(6.0, false);
        let a = evaluate(&clear, &[60, 80, 84], &cfg).unwrap();
        assert_eq!(
            weaker_of_failing_blip(&clear, &a, &cfg, &|_| false, &[]),
            None
        );
        let stairs = blip_series(1.9, true);
        let a = evaluate(&stairs, &[60, 80, 84], &cfg).unwrap();
        assert_eq!(
            weaker_of_failing_blip(&stairs, &a, &cfg, &|_| false, &[]),
            None
        );
    }

    /// 200 seeded series of 300 versions (noise 1, variance 1): steps of +3 at 100 and −2 at 200.
    /// Before the pair test the search reported 51 changes more than 2 versions from either step
    /// (mostly pairs a few versions apart: seed 78 gave 100, 114, 120, 200) and 383 of the 400
    /// steps; with it, 25 and 382.
    #[test]
    fn noise_blips_next_to_real_steps_are_dropped() {
        let cfg = SeriesConfig::default();
        let noise = Normal::new(0.0, 1.0).unwrap();
        let (mut spurious, mut found) = (0, 0);
        for seed in 0..200u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let versions: Vec<VersionMean> = (0..300)
                .map(|i| {
                    let level = match i {
                        0..100 => 50.0,
                        100..200 => 53.0,
                        _ => 51.0,
                    };
                    v(level + noise.sample(&mut rng), 1.0)
                })
                .collect();
            let at: Vec<usize> = detect(&versions, &cfg)
                .unwrap()
                .changes
                .iter()
                .map(|c| c.index)
                .collect();
            if seed == 78 {
                assert_eq!(at, vec![100, 200]);
            }
            spurious += at
                .iter()
                .filter(|a| a.abs_diff(100).min(a.abs_diff(200)) > 2)
                .count();
            found += [100, 200]
                .iter()
                .filter(|s| at.iter().any(|a| a.abs_diff(**s) <= 2))
                .count();
        }
        assert!(spurious <= 30, "{spurious} changes away from the steps");
        assert!(found >= 380, "{found} of 400 steps found");
    }

    #[test]
    fn short_and_flat_series() {
        let cfg = SeriesConfig::default();
        assert!(detect(&[], &cfg).unwrap().changes.is_empty());
        assert!(detect(&[v(1.0, 0.0)], &cfg).unwrap().changes.is_empty());
        let flat = vec![v(1.0, 0.0); 10];
        let a = detect(&flat, &cfg).unwrap();
        assert!(a.changes.is_empty());
        assert_eq!(a.tau2, 0.0);
        assert!(detect(&[v(f64::NAN, 0.0), v(1.0, 0.0)], &cfg).is_err());
    }
}
