//! `rigor track publish`: a static performance dashboard over a history.
//!
//! [`site_view`] reads the history — per machine and branch: the versions, every benchmark's
//! stored summaries (mean, interval, variance components, as analysed when the run was stored)
//! and the detected changes — into the report crate's [`SiteView`]. [`publish`] renders it and
//! writes only what changed: a manifest in the site folder keeps, per benchmark page, a hash of
//! everything the page is drawn from, so publishing again after one new version re-renders the
//! pages whose data changed (and the index), not the rest.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rigor_history::{ChangeFilter, History, StoredChange, StoredSummary, StoredVersion};
use rigor_report::dashboard::{
    BenchmarkView, ChangeMark, ChangeRow, Measured, PointState, QuantileTable, RatioInput,
    SeriesView, SiteMeta, SiteView, VersionComparison, VersionPoint, group_of, page, page_path,
    render_benchmark, render_index,
};
use rigor_stats::compare::{DEFAULT_THRESHOLD, Verdict, verdict_from_interval};
use rigor_stats::dist::{Quantile, critical_value};
use rigor_stats::fieller::{DfMethod, MeanEstimate, fieller};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{AppError, Result};

/// The manifest's file name in the site folder.
pub const MANIFEST: &str = "rigor-site.json";

/// What `rigor track publish` needs besides the history.
#[derive(Debug, Clone)]
pub struct PublishSettings {
    /// The site folder (made when missing).
    pub out: PathBuf,
    /// Title, rigor version and repository address.
    pub site: SiteMeta,
    /// The generation time shown on the index.
    pub generated: String,
}

/// The current time as the index shows it: `2026-11-24 06:30 UTC`.
pub fn now() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%d %H:%M UTC")
        .to_string()
}

/// What [`publish`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Published {
    /// Benchmark pages in the site.
    pub pages: usize,
    /// Benchmark pages rendered and written this time.
    pub written: usize,
    /// Pages of benchmarks no longer in the history, removed.
    pub removed: usize,
    /// Size of the index page in bytes.
    pub index_bytes: usize,
}

/// The manifest: per page, the hash of what it was drawn from.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    /// Page path → input hash.
    pages: BTreeMap<String, String>,
}

/// Grid step in 1/ν of the pages' t quantile tables: linear interpolation on it is within 1e-6
/// of the quantile for ν ≥ 1 at the usual levels, far below the 4 digits a page shows.
const QUANTILE_STEP: f64 = 1e-3;

/// Student's t critical values, computed once per level and degrees of freedom: a history of a
/// million stored runs shares a few dozen of them.
#[derive(Default)]
struct Critical {
    by_df: HashMap<(u64, usize), Option<f64>>,
    tables: HashMap<u64, Option<Vec<f64>>>,
}

impl Critical {
    /// The two-sided `level` quantile of Student's t with `df` degrees of freedom.
    fn t(&mut self, level: f64, df: usize) -> Option<f64> {
        *self
            .by_df
            .entry((level.to_bits(), df))
            .or_insert_with(|| critical_value(level, df as f64, Quantile::StudentT).ok())
    }

    /// The quantiles on the grid 1/ν = k·[`QUANTILE_STEP`] up to 1/ν = 1/`min_df`.
    fn table(&mut self, level: f64, min_df: usize) -> Option<QuantileTable> {
        let full = self.tables.entry(level.to_bits()).or_insert_with(|| {
            let n = (1.0 / QUANTILE_STEP).round() as usize;
            (0..=n)
                .map(|k| match k {
                    0 => critical_value(level, f64::INFINITY, Quantile::Normal).ok(),
                    _ => {
                        critical_value(level, 1.0 / (k as f64 * QUANTILE_STEP), Quantile::StudentT)
                            .ok()
                    }
                })
                .collect()
        });
        let full = full.as_ref()?;
        // One entry beyond 1/min_df so interpolation never runs off the end.
        let len =
            ((1.0 / min_df.max(1) as f64 / QUANTILE_STEP).ceil() as usize + 2).min(full.len());
        Some(QuantileTable {
            level,
            step: QUANTILE_STEP,
            values: full[..len].to_vec(),
        })
    }
}

/// What Fieller's interval needs of a stored mean: the top-level count r, stored with the
/// variance components, and the variance of the mean S²/r, recovered from the stored interval
/// mean ± t(r − 1)·√(S²/r). `None` for runs stored before the count was recorded.
fn ratio_input(
    s: &StoredSummary,
    (lower, upper): (f64, f64),
    level: f64,
    critical: &mut Critical,
) -> Option<RatioInput> {
    let units = s.components.first()?.units?;
    let t = critical.t(level, units.checked_sub(1).filter(|&df| df > 0)?)?;
    let half = (upper - lower) / 2.0;
    Some(RatioInput {
        units,
        var_of_mean: (half / t).powi(2),
    })
}

/// A version's state for one benchmark.
fn state(
    v: &StoredVersion,
    summary: Option<&StoredSummary>,
    critical: &mut Critical,
) -> PointState {
    match summary {
        Some(s) => match (s.mean, s.interval) {
            (Some(mean), Some((lower, upper))) => PointState::Measured(Measured {
                mean,
                lower,
                upper,
                level: s.level.unwrap_or(f64::NAN),
                noise: noise(s, mean),
                ratio_input: s
                    .level
                    .and_then(|level| ratio_input(s, (lower, upper), level, critical)),
            }),
            _ => PointState::Unanalysed,
        },
        None if v.failed > 0 && v.failed == v.runs => PointState::Failed,
        None => PointState::Missing,
    }
}

/// Each level's standard deviation (√T², none when T² ≤ 0) as a percentage of the mean.
fn noise(s: &StoredSummary, mean: f64) -> Vec<f64> {
    s.components
        .iter()
        .map(|c| c.t2.max(0.0).sqrt() / mean.abs() * 100.0)
        .collect()
}

fn mark(c: &StoredChange) -> ChangeMark {
    ChangeMark {
        rev: c.change.rev.clone(),
        previous_rev: c.change.previous_rev.clone(),
        ratio: c.change.ratio,
        interval: c.change.interval,
        verdict: c.change.verdict.clone(),
        method: c.change.method.clone(),
        status: c.status.to_string(),
    }
}

/// The t table a series' page needs: at its level, down to its smallest top-level count; `None`
/// with fewer than two comparable versions.
fn quantiles_for(points: &[VersionPoint], critical: &mut Critical) -> Option<QuantileTable> {
    let inputs: Vec<(f64, usize)> = points
        .iter()
        .filter_map(|p| match &p.state {
            PointState::Measured(m) => m.ratio_input.map(|r| (m.level, r.units)),
            _ => None,
        })
        .collect();
    let min_units = inputs.iter().map(|&(_, r)| r).min()?;
    (inputs.len() >= 2).then_some(())?;
    critical.table(inputs[0].0, min_units - 1)
}

/// A measured version's mean as Fieller's input: S² = r·(S²/r) back from the variance of the mean.
fn estimate_of(p: &VersionPoint) -> Option<(f64, MeanEstimate)> {
    match &p.state {
        PointState::Measured(m) => {
            let r = m.ratio_input?;
            let e = MeanEstimate::new(m.mean, r.var_of_mean * r.units as f64, r.units).ok()?;
            Some((m.level, e))
        }
        _ => None,
    }
}

/// The comparison a page opens with: the newest comparable version against the last version
/// before the newest change (or, without changes, against the version before it).
fn default_comparison(
    points: &[VersionPoint],
    marks: &[ChangeMark],
    level: f64,
) -> Option<VersionComparison> {
    let comparable: Vec<usize> = (0..points.len())
        .filter(|&i| estimate_of(&points[i]).is_some())
        .collect();
    let (&candidate, rest) = comparable.split_last()?;
    let before_change = marks.last().and_then(|m| {
        let prev = m.previous_rev.as_deref()?;
        rest.iter().copied().find(|&i| points[i].rev == prev)
    });
    let baseline = before_change.or_else(|| rest.last().copied())?;
    let (_, cand) = estimate_of(&points[candidate])?;
    let (_, base) = estimate_of(&points[baseline])?;
    let f = fieller(&cand, &base, level, DfMethod::WelchSatterthwaite).ok()?;
    let verdict = match f.bounds() {
        Some((lo, hi)) => verdict_word(verdict_from_interval(lo, hi, DEFAULT_THRESHOLD)),
        None => "unbounded",
    };
    Some(VersionComparison {
        baseline,
        candidate,
        ratio: f.ratio,
        interval: f.bounds(),
        g: f.g,
        level,
        threshold: DEFAULT_THRESHOLD,
        verdict: verdict.to_string(),
    })
}

fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Regression => "regression",
        Verdict::Improvement => "improvement",
        Verdict::Equivalent => "equivalent",
        Verdict::Inconclusive => "inconclusive",
        Verdict::Unbounded => "unbounded",
    }
}

/// One machine and branch: every benchmark's series.
fn series_of(
    history: &dyn History,
    machine: &str,
    branch: &str,
    out: &mut BTreeMap<String, BenchmarkView>,
    critical: &mut Critical,
) -> Result<()> {
    let versions = history.versions(machine, branch)?;
    let mut by_benchmark: BTreeMap<String, HashMap<String, StoredSummary>> = BTreeMap::new();
    // Ordered by run: a version measured twice shows its latest run.
    for s in history.summaries(machine, branch)? {
        by_benchmark
            .entry(s.benchmark.clone())
            .or_default()
            .insert(s.rev.clone(), s);
    }
    let mut changes: HashMap<String, Vec<StoredChange>> = HashMap::new();
    for c in history.changes(&ChangeFilter {
        machine: Some(machine.to_string()),
        branch: Some(branch.to_string()),
        ..ChangeFilter::default()
    })? {
        changes.entry(c.benchmark.clone()).or_default().push(c);
    }
    let order: HashMap<&str, usize> = versions
        .iter()
        .enumerate()
        .map(|(i, v)| (v.version.rev.as_str(), i))
        .collect();
    for (name, summaries) in by_benchmark {
        let levels = summaries
            .values()
            .find(|s| !s.components.is_empty())
            .map(|s| s.components.iter().map(|c| c.level.clone()).collect())
            .unwrap_or_default();
        let points: Vec<VersionPoint> = versions
            .iter()
            .map(|v| VersionPoint {
                rev: v.version.rev.clone(),
                commit: v.version.commit.clone(),
                subject: v.version.subject.clone(),
                time: v.version.time.clone(),
                state: state(v, summaries.get(&v.version.rev), critical),
            })
            .collect();
        let mut marks: Vec<ChangeMark> = changes
            .remove(&name)
            .unwrap_or_default()
            .iter()
            .map(mark)
            .collect();
        marks.sort_by_key(|m| order.get(m.rev.as_str()).copied().unwrap_or(usize::MAX));
        let quantiles = quantiles_for(&points, critical);
        // At the table's level, so that the page's script and this agree for every pair.
        let comparison = quantiles
            .as_ref()
            .and_then(|q| default_comparison(&points, &marks, q.level));
        let b = out.entry(name.clone()).or_insert_with(|| BenchmarkView {
            group: group_of(&name).to_string(),
            page: page_path(&name),
            name,
            series: Vec::new(),
        });
        b.series.push(SeriesView {
            machine: machine.to_string(),
            branch: branch.to_string(),
            levels,
            versions: points,
            changes: marks,
            quantiles,
            comparison,
        });
    }
    Ok(())
}

/// Reads the whole history into the dashboard's view.
pub fn site_view(history: &dyn History, site: SiteMeta, generated: String) -> Result<SiteView> {
    let mut benchmarks = BTreeMap::new();
    let mut critical = Critical::default();
    for (machine, branch) in history.series_keys()? {
        series_of(history, &machine, &branch, &mut benchmarks, &mut critical)?;
    }
    let commit_of = |c: &StoredChange| {
        let b: &BenchmarkView = benchmarks.get(&c.benchmark)?;
        let s = b
            .series
            .iter()
            .find(|s| s.machine == c.machine && s.branch == c.branch)?;
        let v = s.versions.iter().find(|v| v.rev == c.change.rev)?;
        Some((b.page.clone(), v.commit.clone()))
    };
    // The history lists changes in history order; the dashboard shows the newest first.
    let changes = history
        .changes(&ChangeFilter::default())?
        .iter()
        .rev()
        .map(|c| {
            let (page, commit) = commit_of(c).unwrap_or_else(|| (page_path(&c.benchmark), None));
            ChangeRow {
                benchmark: c.benchmark.clone(),
                page,
                machine: c.machine.clone(),
                branch: c.branch.clone(),
                commit,
                time: c.version_time.clone(),
                change: mark(c),
            }
        })
        .collect();
    Ok(SiteView {
        site,
        generated,
        benchmarks: benchmarks.into_values().collect(),
        changes,
    })
}

/// What a benchmark page is drawn from, hashed: the page is re-rendered when this changes.
fn input_hash(site: &SiteMeta, b: &BenchmarkView) -> String {
    let mut h = Sha256::new();
    h.update(serde_json::to_vec(site).unwrap_or_default());
    h.update(serde_json::to_vec(b).unwrap_or_default());
    // The renderer itself: a new rigor draws every page again.
    h.update(page::script_source());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> AppError + '_ {
    move |source| AppError::Site {
        path: path.to_path_buf(),
        source,
    }
}

/// Reads the manifest; a missing or unreadable one means every page is drawn again.
fn read_manifest(out: &Path) -> Manifest {
    fs::read(out.join(MANIFEST))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Renders and writes the site for `view`: the benchmark pages whose input changed (or whose
/// file is gone), the index, and the manifest; pages of benchmarks no longer in the view are
/// removed.
pub fn write_site(view: &SiteView, out: &Path) -> Result<Published> {
    fs::create_dir_all(out.join("b")).map_err(io(out))?;
    let old = read_manifest(out);
    let hashes: Vec<(String, String)> = view
        .benchmarks
        .par_iter()
        .map(|b| (b.page.clone(), input_hash(&view.site, b)))
        .collect();
    let stale: Vec<&BenchmarkView> = view
        .benchmarks
        .iter()
        .zip(&hashes)
        .filter(|(b, (path, hash))| {
            old.pages.get(path) != Some(hash) || !out.join(&b.page).is_file()
        })
        .map(|(b, _)| b)
        .collect();
    stale
        .par_iter()
        .map(|b| {
            let path = out.join(&b.page);
            fs::write(&path, render_benchmark(&view.site, b)).map_err(io(&path))
        })
        .collect::<Result<Vec<()>>>()?;
    let pages: BTreeMap<String, String> = hashes.into_iter().collect();
    let mut removed = 0;
    for gone in old.pages.keys().filter(|p| !pages.contains_key(*p)) {
        // Only names this site made (`b/….html`), never a path a hand-edited manifest holds.
        if gone.starts_with("b/") && !gone.contains("..") && fs::remove_file(out.join(gone)).is_ok()
        {
            removed += 1;
        }
    }
    let index = render_index(view);
    let index_path = out.join("index.html");
    fs::write(&index_path, &index).map_err(io(&index_path))?;
    let manifest = Manifest { pages };
    let manifest_path = out.join(MANIFEST);
    let text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
    fs::write(&manifest_path, text).map_err(io(&manifest_path))?;
    Ok(Published {
        pages: view.benchmarks.len(),
        written: stale.len(),
        removed,
        index_bytes: index.len(),
    })
}

/// Reads the history and writes its dashboard to `settings.out`.
pub fn publish(history: &dyn History, settings: &PublishSettings) -> Result<Published> {
    let view = site_view(history, settings.site.clone(), settings.generated.clone())?;
    write_site(&view, &settings.out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the page's script does: linear interpolation in 1/ν.
    fn interpolate(q: &QuantileTable, nu: f64) -> f64 {
        let u = 1.0 / nu / q.step;
        let k = u.floor() as usize;
        if k + 1 >= q.values.len() {
            return q.values[q.values.len() - 1];
        }
        q.values[k] + (q.values[k + 1] - q.values[k]) * (u - k as f64)
    }

    #[test]
    fn the_pages_t_table_interpolates_to_a_millionth() {
        let mut c = Critical::default();
        for level in [0.9, 0.95, 0.99] {
            let q = c.table(level, 1).unwrap();
            for nu in [1.0, 1.37, 2.5, 4.93, 13.75268, 40.2, 333.3, 2000.0] {
                let exact = critical_value(level, nu, Quantile::StudentT).unwrap();
                let got = interpolate(&q, nu);
                assert!(
                    (got / exact - 1.0).abs() < 1e-6,
                    "{level} {nu}: {got} vs {exact}"
                );
            }
            // A series whose smallest count is 4 (ν ≥ 3) gets the table down to 1/ν = 1/3.
            let short = c.table(level, 3).unwrap();
            assert_eq!(short.values.len(), 336);
            assert_eq!(short.values[..], q.values[..336]);
        }
    }
}
