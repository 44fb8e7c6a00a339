//! Each version's level, as every `rigor track` command and the dashboard show it and as change
//! detection tests it: from the runs' stored levels (no samples read), with the shift of the
//! sessions they were measured in taken out (`rigor_stats::crossed`, docs/methodology.md
//! "Sessions"), and consecutive versions whose builds are byte-identical taken as one.

use std::collections::HashMap;
use std::sync::Arc;

use rigor_history::{
    ArtifactHash, HistoryRead, MeanSpread, RunInfo, SeriesKey, SessionId, StoredLevel,
    StoredLevels, StoredSummary,
};
use rigor_stats::crossed::{Cell, CrossedFit, SessionVariance, fit};
use rigor_stats::dist::{Quantile, critical_value};
use rigor_stats::moderate::{Prior, huber_variance_df};
use rigor_units::{ConfidenceLevel, Metric, Quantity, Resolution, TimeUnit};

use crate::error::{AppError, Result};

/// One run's contribution to a version's level: the level it measured in its session.
#[derive(Debug, Clone, PartialEq)]
pub struct RunLevel {
    /// The run (its session, artifact and role).
    pub run: RunInfo,
    /// Its level (Huber's M-estimate of its top-level unit means; the mean without samples), in the
    /// benchmark's unit.
    pub level: f64,
    /// The variance of that level from the run's own units (0 with one unit).
    pub variance: f64,
    /// Its top-level units.
    pub units: usize,
}

/// A version's level.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionLevel {
    /// The version's name (its details: [`HistoryRead::versions`]), shared by every benchmark's
    /// level of the version (a long history has a level per version and benchmark).
    pub rev: Arc<str>,
    /// The point of the fit it belongs to: consecutive versions with identical builds share one.
    pub point: usize,
    /// Whether its build is byte-identical to the version before it (then no change can lie
    /// between them).
    pub identical_to_previous: bool,
    /// Its level with the sessions' shifts taken out, in the benchmark's unit.
    pub level: f64,
    /// The interval of the level at the confidence asked for (relative to the average session of
    /// the history, so the spread between sessions is in it when the history measured it).
    pub interval: (f64, f64),
    /// Whether the interval lacks the spread between sessions because the history has not
    /// measured it (no version measured in two sessions).
    pub sessions_unknown: bool,
    /// Its runs, oldest first.
    pub runs: Vec<RunLevel>,
    /// The coarsest resolution its runs reported.
    pub resolution: Option<Resolution>,
}

/// One benchmark's levels over a series.
#[derive(Debug, Clone)]
pub struct BenchmarkLevels {
    /// The benchmark.
    pub benchmark: String,
    /// The metric the levels are of (wall time unless asked otherwise).
    pub metric: Metric,
    /// The quantity the levels are: values in its base unit (seconds, bytes, a count) for every
    /// metric but wall time, whose levels are in [`BenchmarkLevels::unit`].
    pub quantity: Quantity,
    /// The unit of every level (a time unit: for a metric other than wall time, seconds standing
    /// for the quantity's base unit, factor 1).
    pub unit: TimeUnit,
    /// Its versions in history order (those that measured it).
    pub versions: Vec<VersionLevel>,
    /// The crossed fit on the log scale (points: see [`VersionLevel::point`]; sessions: indexes
    /// into [`BenchmarkLevels::sessions`]).
    pub fit: CrossedFit,
    /// The sessions, by the fit's index.
    pub sessions: Vec<SessionId>,
}

impl BenchmarkLevels {
    /// The fit's points in series order, one per stretch of identical builds, with the first
    /// version of each (what change detection runs on).
    pub fn points(&self) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = Vec::new();
        for (i, v) in self.versions.iter().enumerate() {
            if out.last().is_none_or(|(p, _)| *p != v.point) {
                out.push((v.point, i));
            }
        }
        out
    }

    /// How much sessions shift this benchmark's levels, when the history measured it.
    pub fn session_variance(&self) -> Option<SessionVariance> {
        self.fit.session_variance()
    }

    /// The sessions whose runs vary apart from the others' (a session on a loaded machine),
    /// each with how much its runs vary beyond their own intervals (τ, relative SD), and how
    /// much the other sessions' runs do (`None` when every session is apart); empty when they
    /// vary alike.
    pub fn sessions_apart(&self) -> (Vec<(SessionId, f64)>, Option<f64>) {
        let apart: Vec<(SessionId, f64)> = self
            .fit
            .sessions_apart()
            .iter()
            .filter_map(|&(j, tau2)| Some((*self.sessions.get(j)?, tau2.sqrt())))
            .collect();
        let others = (apart.len() < self.sessions.len()).then(|| self.fit.cell_variance().sqrt());
        (apart, others)
    }
}

/// How a benchmark's fit weighs its runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weights {
    /// By each run's own variance: a version's level and interval say what its own runs
    /// measured (what `track show`, `check`, `bisect` and the dashboard show; the dashboard's
    /// archived pages stay as they are when later versions arrive).
    Own,
    /// By each run's variance moderated towards what the benchmark's runs share (Smyth 2004):
    /// what detection weighs versions by, from 20 runs on.
    Moderated,
}

/// A run's stored level: its robust level and variance when it had two top-level units, else its
/// mean with no variance of its own; `None` without either.
fn run_level(run: RunInfo, mean: Option<f64>, spread: Option<MeanSpread>) -> Option<RunLevel> {
    let (level, variance, units) = match spread {
        Some(spread) if spread.level.is_finite() && spread.level > 0.0 => {
            (spread.level, spread.var_of_level.max(0.0), spread.units)
        }
        _ => (mean.filter(|m| m.is_finite() && *m > 0.0)?, 0.0, 1),
    };
    Some(RunLevel {
        run,
        level,
        variance,
        units,
    })
}

/// One run of a benchmark at its version's position in the history's order: its level in its
/// own unit (`None` when it stored none) and the resolution it reported.
struct Placed {
    at: usize,
    unit: TimeUnit,
    level: Option<RunLevel>,
    resolution: Option<Resolution>,
}

impl Placed {
    fn of_summary(at: usize, s: &StoredSummary) -> Self {
        Self {
            at,
            unit: s.unit,
            level: run_level(s.run, s.mean, s.spread),
            resolution: s.resolution,
        }
    }

    fn of_stored(at: usize, l: StoredLevel) -> Self {
        Self {
            at,
            unit: l.unit,
            level: run_level(l.run, l.mean, l.spread),
            resolution: l.resolution,
        }
    }
}

/// Each version's units per level over all its runs, top level first, by version name: the
/// counts of the stored analyses' components in `summaries` (one benchmark's), summed run by run.
pub fn counts_by_version<'s>(summaries: &[&'s StoredSummary]) -> HashMap<&'s str, Vec<usize>> {
    let mut out: HashMap<&str, Vec<usize>> = HashMap::new();
    for s in summaries {
        let total = out.entry(&s.rev).or_default();
        for (i, c) in s.components.iter().filter_map(|c| c.units).enumerate() {
            match total.get_mut(i) {
                Some(x) => *x += c,
                None => total.push(c),
            }
        }
    }
    out
}

/// Each cell's variance (on the log scale) from its run's variance moderated towards what the
/// benchmark's runs share ([`rigor_stats::moderate`], Smyth 2004), `own[i]` cell `i`'s run: its
/// variance and level in the benchmark's unit and that variance's degrees of freedom. The
/// variance of a Huber level from ten executions is itself noisy, and weighing versions by it
/// cost detection power (docs/validation/history.md). The runs are moderated in their unit, then
/// taken to the log scale by their own level: moderating the relative variances instead adds the
/// noise of each level to what the runs seem not to share. With fewer than
/// [`rigor_stats::moderate::LEAST_FOR_PRIOR`] runs that have a variance, each keeps its own.
fn moderate_cells(cells: &mut [Cell], own: &[(f64, f64, Option<f64>)]) {
    let items: Vec<(f64, f64)> = own
        .iter()
        .filter_map(|&(variance, _, df)| Some((variance, df?)))
        .collect();
    let Some(prior) = Prior::of(&items) else {
        return;
    };
    for (c, &(variance, level, df)) in cells.iter_mut().zip(own) {
        if let Some(df) = df {
            c.variance = prior.moderate(variance, df) / (level * level);
        }
    }
}

/// The one artifact every run of a version reported, if they all reported the same.
fn artifact_of(runs: &[RunLevel]) -> Option<ArtifactHash> {
    let first = runs.first()?.run.artifact?;
    runs.iter()
        .all(|r| r.run.artifact == Some(first))
        .then_some(first)
}

/// The levels of one benchmark from its stored summaries (any order) and the series' versions in
/// history order. `None` when no run measured it.
pub fn benchmark_levels(
    benchmark: &str,
    summaries: &[&StoredSummary],
    order: &[String],
    confidence: ConfidenceLevel,
) -> Result<Option<BenchmarkLevels>> {
    let order: Vec<Arc<str>> = order.iter().map(|r| Arc::from(r.as_str())).collect();
    levels_of_summaries(benchmark, summaries, &order, confidence, Weights::Own)
}

/// [`benchmark_levels`] over versions named once each for every benchmark's levels.
fn levels_of_summaries(
    benchmark: &str,
    summaries: &[&StoredSummary],
    order: &[Arc<str>],
    confidence: ConfidenceLevel,
    weights: Weights,
) -> Result<Option<BenchmarkLevels>> {
    let positions = VersionPositions::of(order);
    benchmark_levels_at(
        benchmark,
        positions.of_summaries(summaries),
        order,
        confidence,
        weights,
    )
}

/// The series' versions in history order, each name held once for every benchmark's levels.
fn version_order(history: &dyn HistoryRead, key: &SeriesKey) -> Result<Vec<Arc<str>>> {
    Ok(history
        .versions(key)?
        .into_iter()
        .map(|v| Arc::from(v.version.rev))
        .collect())
}

/// Where each version (by name) is in the history's order: looked up once per summary.
struct VersionPositions<'a>(HashMap<&'a str, usize>);

impl<'a> VersionPositions<'a> {
    fn of(order: &'a [Arc<str>]) -> Self {
        Self(order.iter().enumerate().map(|(i, r)| (&**r, i)).collect())
    }

    /// The stored runs of versions in the order, each at its version's position, by benchmark
    /// (as [`StoredLevels::benchmarks`] lists them): each version's position looked up once,
    /// not once per run.
    fn of_stored(&self, stored: StoredLevels) -> Vec<(String, Vec<Placed>)> {
        let at: Vec<Option<usize>> = stored
            .versions
            .iter()
            .map(|rev| self.0.get(rev.as_str()).copied())
            .collect();
        let mut runs: Vec<Vec<Placed>> = stored.benchmarks.iter().map(|_| Vec::new()).collect();
        for l in stored.levels {
            if let Some(at) = at[l.version] {
                runs[l.benchmark].push(Placed::of_stored(at, l));
            }
        }
        stored.benchmarks.into_iter().zip(runs).collect()
    }

    /// The runs of versions in the order, each at its version's position.
    fn of_summaries(&self, summaries: &[&StoredSummary]) -> Vec<Placed> {
        summaries
            .iter()
            .filter_map(|s| Some(Placed::of_summary(*self.0.get(s.rev.as_str())?, s)))
            .collect()
    }
}

/// [`benchmark_levels`] of summaries given with their versions' positions in `order` (any
/// order; those of versions not in it are left out, as a version not in the history is): the
/// versions are walked in order without looking a name up, where a map from names to runs
/// cost a hash and a string comparison per version and per run (a quarter of `track changes`
/// on a history of 50 benchmarks × 10,000 versions).
fn benchmark_levels_at(
    benchmark: &str,
    runs: Vec<Placed>,
    order: &[Arc<str>],
    confidence: ConfidenceLevel,
    weights: Weights,
) -> Result<Option<BenchmarkLevels>> {
    let Some(unit) = runs.first().map(|p| p.unit) else {
        return Ok(None);
    };
    // Runs by version, in the unit of the first, each version's in the order they were stored.
    let mut runs: Vec<(usize, RunLevel, Option<Resolution>)> = runs
        .into_iter()
        .filter_map(|p| {
            let mut r = p.level?;
            let factor = rigor_units::Seconds::from_unit(1.0, p.unit).in_unit(unit);
            r.level *= factor;
            r.variance *= factor * factor;
            Some((p.at, r, p.resolution))
        })
        .collect();
    runs.sort_by_key(|(at, r, _)| (*at, r.run.id));
    let mut by_version = runs.into_iter();
    let mut next = by_version.next();
    let mut versions: Vec<VersionLevel> = Vec::new();
    let mut sessions: Vec<SessionId> = Vec::new();
    let mut session_index: HashMap<SessionId, usize> = HashMap::new();
    let mut cells: Vec<Cell> = Vec::new();
    // Each cell's run: its variance and level in the benchmark's unit, and the degrees of
    // freedom of that variance.
    let mut own: Vec<(f64, f64, Option<f64>)> = Vec::new();
    let mut previous_artifact: Option<ArtifactHash> = None;
    let mut points = 0;
    for (at, rev) in order.iter().enumerate() {
        let mut runs: Vec<RunLevel> = Vec::new();
        let mut resolution: Option<Resolution> = None;
        while let Some((_, r, res)) = next.take_if(|(v, _, _)| *v == at) {
            runs.push(r);
            resolution = Resolution::coarsest(resolution.into_iter().chain(res));
            next = by_version.next();
        }
        // A version without runs of this benchmark (it failed, or was not measured) leaves the
        // one before it in place: the next whose build is byte-identical to that one is the same
        // program, with no change between them for the failures in between.
        if runs.is_empty() {
            continue;
        }
        let artifact = artifact_of(&runs);
        let identical = artifact.is_some() && artifact == previous_artifact;
        if !identical {
            points += 1;
        }
        let point = points - 1;
        for r in &runs {
            let next = sessions.len();
            let session = *session_index.entry(r.run.session).or_insert(next);
            if session == next {
                sessions.push(r.run.session);
            }
            cells.push(Cell {
                point,
                session,
                value: r.level.ln(),
                variance: r.variance / (r.level * r.level),
            });
            own.push((r.variance, r.level, huber_variance_df(r.units)));
        }
        previous_artifact = artifact;
        versions.push(VersionLevel {
            rev: rev.clone(),
            point,
            identical_to_previous: identical,
            level: f64::NAN,
            interval: (f64::NAN, f64::NAN),
            sessions_unknown: false,
            runs,
            resolution,
        });
    }
    if versions.is_empty() {
        return Ok(None);
    }
    if weights == Weights::Moderated {
        moderate_cells(&mut cells, &own);
    }
    let fit = fit(points, sessions.len(), &cells).map_err(|source| AppError::Compare {
        candidate: benchmark.to_string(),
        baseline: "its history".to_string(),
        source,
    })?;
    let across = fit.session_variance();
    // The critical value by degrees of freedom: a Student-t quantile costs microseconds, and a
    // long history has few distinct degrees of freedom among many versions.
    let mut critical: HashMap<usize, f64> = HashMap::new();
    // Versions of one point (identical builds) share its level, pooled from all their runs: its
    // degrees of freedom are those of all the runs, so that they share one interval too (each
    // version's own had given two intervals to one pooled level).
    let mut own_of_point: HashMap<usize, usize> = HashMap::new();
    for v in &versions {
        *own_of_point.entry(v.point).or_default() += v
            .runs
            .iter()
            .map(|r| r.units.saturating_sub(1))
            .sum::<usize>();
    }
    for v in &mut versions {
        let Some(log_level) = fit.level(v.point) else {
            continue;
        };
        let parts = fit.contrast_variance(&[(v.point, 1.0)]);
        let variance = parts.total(across);
        v.sessions_unknown = variance.is_none();
        let variance = variance.unwrap_or(parts.estimation);
        // Degrees of freedom: the point's own units, or the sessions' when those are in.
        let own = own_of_point.get(&v.point).copied().unwrap_or(0);
        let df = across.map_or(own, |s| own.min(s.df.max(1))).max(1);
        let t = *critical.entry(df).or_insert_with(|| {
            critical_value(confidence.get(), df as f64, Quantile::StudentT).unwrap_or(1.96)
        });
        let half = t * variance.sqrt();
        v.level = log_level.exp();
        v.interval = ((log_level - half).exp(), (log_level + half).exp());
        // No narrower than the clock: ± half the coarsest step its runs reported.
        if let Some(r) = v.resolution {
            let s = |x: f64| rigor_units::Seconds::from_unit(x, unit);
            let f = r.floor(s(v.level), s(v.interval.0), s(v.interval.1));
            v.interval = (f.lower.in_unit(unit), f.upper.in_unit(unit));
        }
    }
    Ok(Some(BenchmarkLevels {
        benchmark: benchmark.to_string(),
        metric: Metric::Wall,
        quantity: Quantity::Time,
        unit,
        versions,
        fit,
        sessions,
    }))
}

/// Every benchmark's levels over a series, from one read of its stored summaries, by benchmark
/// name, each weighing its runs by their own variances.
pub fn series_levels(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    confidence: ConfidenceLevel,
) -> Result<Vec<BenchmarkLevels>> {
    series_levels_weighted(history, key, confidence, Weights::Own)
}

/// [`series_levels`], the runs weighed as `weights` says.
pub fn series_levels_weighted(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    confidence: ConfidenceLevel,
    weights: Weights,
) -> Result<Vec<BenchmarkLevels>> {
    let order = version_order(history, key)?;
    let mut by_benchmark = VersionPositions::of(&order).of_stored(history.levels(key)?);
    by_benchmark.sort_by(|a, b| a.0.cmp(&b.0));
    // Each benchmark's fit is its own: they are computed in parallel, in name order.
    use rayon::prelude::*;
    let levels: Vec<Option<BenchmarkLevels>> = by_benchmark
        .into_par_iter()
        .map(|(name, list)| benchmark_levels_at(&name, list, &order, confidence, weights))
        .collect::<Result<_>>()?;
    Ok(levels.into_iter().flatten().collect())
}

/// One benchmark's runs in a metric other than wall time, as summaries: each stored run's
/// executions projected on the metric (`rigor_store::BenchmarkRecord::for_metric`, as `rigor
/// analyze --metric` projects a result) and summarised as ingest summarises wall times (the
/// spread and Huber level of the top-level units, [`MeanSpread::of`]). Runs that did not record
/// it are left out; with the quantity of the values, or why no run had it.
pub fn metric_summaries(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    benchmark: &str,
    metric: &Metric,
) -> Result<(Vec<StoredSummary>, std::result::Result<Quantity, String>)> {
    let mut out = Vec::new();
    let mut quantity: std::result::Result<Quantity, String> =
        Err(format!("no run of '{benchmark}' is stored"));
    for r in history.run_records(key, benchmark)? {
        let projected = match r.benchmark.for_metric(metric) {
            Ok(p) => p,
            Err(e) => {
                if quantity.is_err() {
                    quantity = Err(e.to_string());
                }
                continue;
            }
        };
        let q = projected
            .metric
            .as_ref()
            .map_or(Quantity::Time, |m| m.quantity.clone());
        match &quantity {
            Ok(first) if *first != q => {
                let mixed = super::TrackError::Metric(rigor_store::MetricError::MixedUnits {
                    benchmark: benchmark.to_string(),
                    metric: metric.clone(),
                    first: first.to_string(),
                    other: q.to_string(),
                });
                return Err(mixed.into());
            }
            _ => quantity = Ok(q),
        }
        let measured: Vec<f64> = projected
            .samples
            .iter()
            .filter(|s| !s.warmup)
            .map(|s| s.value)
            .collect();
        let mean =
            (!measured.is_empty()).then(|| measured.iter().sum::<f64>() / measured.len() as f64);
        out.push(StoredSummary {
            benchmark: benchmark.to_string(),
            rev: r.rev,
            run: r.run,
            unit: TimeUnit::S,
            mean,
            interval: None,
            level: None,
            spread: MeanSpread::of(&projected),
            components: Vec::new(),
            resolution: projected.resolution(),
        });
    }
    Ok((out, quantity))
}

/// Every benchmark's levels over a series in `metric`: wall time's from the stored levels
/// ([`series_levels`]); any other metric's from each run's executions ([`metric_summaries`]),
/// computed when asked rather than stored, so that every metric a run recorded (a program's
/// reported ones included) can be asked for without the history knowing them in advance.
/// Benchmarks without the metric are left out; [`super::TrackError::NoMetric`] when none has it.
pub fn metric_levels(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    metric: &Metric,
    confidence: ConfidenceLevel,
) -> Result<Vec<BenchmarkLevels>> {
    metric_levels_noting(
        history,
        key,
        metric,
        confidence,
        Weights::Own,
        &mut Vec::new(),
    )
}

/// [`metric_levels`], the runs weighed as `weights` says, each benchmark left out (it has no
/// values of the metric) said in `left_out` ([`rigor_store::Warning::NoMetric`]).
pub fn metric_levels_noting(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    metric: &Metric,
    confidence: ConfidenceLevel,
    weights: Weights,
    left_out: &mut Vec<rigor_store::Warning>,
) -> Result<Vec<BenchmarkLevels>> {
    if metric.is_wall() {
        return series_levels_weighted(history, key, confidence, weights);
    }
    let order = version_order(history, key)?;
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for name in history.benchmarks(key)? {
        match benchmark_metric_levels_in(history, key, &name, metric, &order, confidence, weights)?
        {
            Ok(Some(l)) => out.push(l),
            Ok(None) => {}
            Err(reason) => skipped.push(rigor_store::Warning::NoMetric {
                benchmark: name,
                reason,
            }),
        }
    }
    if out.is_empty() {
        let why = skipped.into_iter().find_map(|w| match w {
            rigor_store::Warning::NoMetric { reason, .. } => Some(reason),
            _ => None,
        });
        return Err(no_metric(key, metric, why));
    }
    left_out.extend(skipped);
    Ok(out)
}

/// [`super::TrackError::NoMetric`] for a series.
fn no_metric(key: &SeriesKey, metric: &Metric, why: Option<String>) -> AppError {
    super::TrackError::NoMetric {
        metric: metric.to_string(),
        machine: key.machine.clone(),
        branch: key.branch.clone(),
        why: why.unwrap_or_else(|| "nothing is stored".to_string()),
    }
    .into()
}

/// One benchmark's levels in `metric` (wall time: from its stored levels), `None` when no run
/// measured it; [`super::TrackError::NoMetric`] when its runs did not record the metric.
pub fn benchmark_metric_levels(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    benchmark: &str,
    metric: &Metric,
    confidence: ConfidenceLevel,
) -> Result<Option<BenchmarkLevels>> {
    let order = version_order(history, key)?;
    if metric.is_wall() {
        let stored = VersionPositions::of(&order).of_stored(history.levels(key)?);
        let Some((_, runs)) = stored.into_iter().find(|(name, _)| name == benchmark) else {
            return Ok(None);
        };
        return benchmark_levels_at(benchmark, runs, &order, confidence, Weights::Own);
    }
    benchmark_metric_levels_in(
        history,
        key,
        benchmark,
        metric,
        &order,
        confidence,
        Weights::Own,
    )?
    .map_err(|why| no_metric(key, metric, Some(why)))
}

/// One benchmark's levels in a metric other than wall time over the versions `order`: `Err`
/// with the reason when no run of it recorded the metric.
fn benchmark_metric_levels_in(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    benchmark: &str,
    metric: &Metric,
    order: &[Arc<str>],
    confidence: ConfidenceLevel,
    weights: Weights,
) -> Result<std::result::Result<Option<BenchmarkLevels>, String>> {
    let (summaries, quantity) = metric_summaries(history, key, benchmark, metric)?;
    let quantity = match quantity {
        Ok(q) => q,
        Err(why) => return Ok(Err(why)),
    };
    let refs: Vec<&StoredSummary> = summaries.iter().collect();
    Ok(Ok(levels_of_summaries(
        benchmark, &refs, order, confidence, weights,
    )?
    .map(|mut l| {
        l.metric = metric.clone();
        l.quantity = quantity;
        l
    })))
}

#[cfg(test)]
#[path = "levels_tests.rs"]
mod tests;
