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
    BenchmarkView, ChangeMark, ChangeRow, Measured, PointState, SeriesView, SiteMeta, SiteView,
    VersionPoint, group_of, page, page_path, render_benchmark, render_index,
};
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

/// A version's state for one benchmark.
fn state(v: &StoredVersion, summary: Option<&StoredSummary>) -> PointState {
    match summary {
        Some(s) => match (s.mean, s.interval) {
            (Some(mean), Some((lower, upper))) => PointState::Measured(Measured {
                mean,
                lower,
                upper,
                level: s.level.unwrap_or(f64::NAN),
                noise: noise(s, mean),
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

/// One machine and branch: every benchmark's series.
fn series_of(
    history: &dyn History,
    machine: &str,
    branch: &str,
    out: &mut BTreeMap<String, BenchmarkView>,
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
        let points = versions
            .iter()
            .map(|v| VersionPoint {
                rev: v.version.rev.clone(),
                commit: v.version.commit.clone(),
                subject: v.version.subject.clone(),
                time: v.version.time.clone(),
                state: state(v, summaries.get(&v.version.rev)),
            })
            .collect();
        let mut marks: Vec<ChangeMark> = changes
            .remove(&name)
            .unwrap_or_default()
            .iter()
            .map(mark)
            .collect();
        marks.sort_by_key(|m| order.get(m.rev.as_str()).copied().unwrap_or(usize::MAX));
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
        });
    }
    Ok(())
}

/// Reads the whole history into the dashboard's view.
pub fn site_view(history: &dyn History, site: SiteMeta, generated: String) -> Result<SiteView> {
    let mut benchmarks = BTreeMap::new();
    for (machine, branch) in history.series_keys()? {
        series_of(history, &machine, &branch, &mut benchmarks)?;
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
