//! `rigor track publish`: a static performance dashboard over a history.
//!
//! [`publish`] brings the publisher's cache of stored summaries up to date (reading only the
//! runs stored since the last publish, module `cache`), cuts each series into its main page and
//! archive pages of older versions (module `views`), and renders only the pages whose key — a hash of
//! everything a page is drawn from, kept in the manifest `rigor-site.json` — changed. A new
//! version therefore redraws each benchmark's main page (at most two archive sizes of versions
//! and an overview of fixed size) and the index, whatever the length of the history. The site
//! is the same as a publish into an empty folder would write. [`site_view`] reads the whole
//! history into one view without archive pages (what the tests inspect).

use std::collections::BTreeMap;
use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rigor_history::{ChangeFilter, HistoryRead, SeriesKey, StoredChange};
use rigor_report::dashboard::plots::SPARK_POINTS;
use rigor_report::dashboard::{
    BenchmarkView, ChangeMark, ChangeRow, Measured, MetricLink, PointState, SeriesView, SiteMeta,
    SiteView, VersionPoint, archive_path, group_of, metric_path, page, page_path, render_archive,
    render_benchmark, render_index,
};
use rigor_units::Metric;
use serde::{Deserialize, Serialize};

use crate::error::{AppError, Result};

mod cache;
mod points;
mod request;
mod stats;
mod views;

use cache::{BenchCache, Cache, IndexSeries, PagesCache, SeriesCache};
pub use request::*;
pub use rigor_report::dashboard::Published;
use stats::Critical;
pub use views::ARCHIVE_SIZE;
use views::{Part, Series, layout};

/// The manifest's file name in the site folder.
pub const MANIFEST: &str = "rigor-site.json";
/// The publisher's cache of stored summaries in the site folder. The pages do not need it (it
/// need not be deployed); deleting it only makes the next publish read the whole history.
pub const CACHE: &str = "rigor-cache.bin";

/// What `rigor track publish` needs besides the history.
#[derive(Debug, Clone)]
pub struct PublishSettings {
    /// The site folder (made when missing).
    pub out: PathBuf,
    /// Title, rigor version and repository address.
    pub site: SiteMeta,
    /// The generation time shown on the index.
    pub generated: String,
    /// Versions per archive page ([`ARCHIVE_SIZE`]): a series of more than twice this many
    /// versions keeps its older ones on archive pages that new versions leave alone.
    pub archive_size: usize,
    /// How the index groups benchmarks.
    pub grouping: Grouping,
    /// The metrics published besides wall time (`--metric cpu,peak-memory`), each on pages of
    /// its own beside the wall-time pages; empty: wall time only.
    pub metrics: Vec<Metric>,
}

/// How the index groups benchmarks.
#[derive(Debug, Clone, Default)]
pub enum Grouping {
    /// By the name up to its last `/` (`parse/json/small` → `parse/json`), as asv groups by
    /// module.
    #[default]
    Prefix,
    /// By the first capture group of a pattern in the name, or its whole match when it has no
    /// group (`--group '_(small|large)$'` → `small`, `large`); names without a match have no
    /// group.
    Pattern(regex::Regex),
}

impl Grouping {
    /// The group of the benchmark `name` (empty: no group).
    pub fn of(&self, name: &str) -> String {
        match self {
            Grouping::Prefix => group_of(name).to_string(),
            Grouping::Pattern(re) => re
                .captures(name)
                .and_then(|c| c.get(1).or_else(|| c.get(0)))
                .map_or(String::new(), |m| m.as_str().to_string()),
        }
    }
}

/// The current time as the index shows it: `2026-11-24 06:30 UTC`.
pub fn now() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%d %H:%M UTC")
        .to_string()
}

/// The manifest: per page, the key of what it was drawn from.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    /// Page path → key.
    pages: BTreeMap<String, String>,
}

/// Each series with its versions and its changes of `metric`, over the points of `caches` (the
/// cache's for wall time, [`metric_caches`] for another metric).
fn series_of<'a>(
    history: &dyn HistoryRead,
    caches: &'a BTreeMap<SeriesKey, SeriesCache>,
    metric: &Metric,
) -> Result<Vec<Series<'a>>> {
    let mut out = Vec::new();
    for (key, sc) in caches {
        let versions = history.versions(key)?;
        let changes = history.changes(&ChangeFilter {
            machine: Some(key.machine.clone()),
            branch: Some(key.branch.clone()),
            ..ChangeFilter::default()
        })?;
        out.push(Series::new(
            (&key.machine, &key.branch),
            versions,
            (&changes, metric),
            sc,
        ));
    }
    Ok(out)
}

/// Every benchmark's runs in `metric` (other than wall time), per series: each run's executions
/// projected on the metric (`track::levels::metric_summaries`), read from the history on every
/// publish (the publisher caches wall-time summaries only). Benchmarks that did not record it
/// are left out; [`crate::track::TrackError::PublishMetric`] when none did.
fn metric_caches(
    history: &dyn HistoryRead,
    cache: &Cache,
    metric: &Metric,
) -> Result<BTreeMap<SeriesKey, SeriesCache>> {
    let mut out = BTreeMap::new();
    let mut why = None;
    for (key, sc) in &cache.series {
        let mut series = SeriesCache::default();
        for name in sc.benchmarks.keys() {
            let (summaries, quantity) =
                crate::track::levels::metric_summaries(history, key, name, metric)?;
            match quantity {
                Ok(q) if !summaries.is_empty() => {
                    series
                        .benchmarks
                        .insert(name.clone(), BenchCache::of_metric(&summaries, q));
                }
                Ok(_) => {}
                Err(reason) => {
                    why.get_or_insert(reason);
                }
            }
        }
        if !series.benchmarks.is_empty() {
            out.insert(key.clone(), series);
        }
    }
    if out.is_empty() && !cache.series.is_empty() {
        return Err(crate::track::TrackError::PublishMetric {
            metric: metric.to_string(),
            why: why.unwrap_or_else(|| "nothing is stored".to_string()),
        }
        .into());
    }
    Ok(out)
}

/// Benchmark name → the series (by position in `series`) that measured it.
fn benchmarks_of(series: &[Series<'_>]) -> BTreeMap<String, Vec<usize>> {
    let mut out: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, s) in series.iter().enumerate() {
        for name in s.cache.benchmarks.keys() {
            out.entry(name.clone()).or_default().push(i);
        }
    }
    out
}

/// The project's changes of the metrics published (`metrics`, wall time first), newest first,
/// as the index lists them.
fn change_rows(
    history: &dyn HistoryRead,
    series: &[Series<'_>],
    metrics: &[Metric],
) -> Result<Vec<ChangeRow>> {
    let version_of = |c: &StoredChange| {
        let s = series
            .iter()
            .find(|s| s.machine == c.series.machine && s.branch == c.series.branch)?;
        let &i = s.position.get(&c.change.rev)?;
        Some(&s.versions[i].version)
    };
    let commit_of = |c: &StoredChange| version_of(c)?.commit.clone();
    // The history lists changes oldest first; the dashboard shows the newest first.
    Ok(history
        .changes(&ChangeFilter::default())?
        .iter()
        .rev()
        .filter(|c| views::shown(c, metrics))
        .map(|c| ChangeRow {
            benchmark: c.benchmark.clone(),
            page: metric_path(&page_path(&c.benchmark), &c.metric),
            metric: c.metric.clone(),
            machine: c.series.machine.clone(),
            branch: c.series.branch.clone(),
            commit: commit_of(c),
            time: c.version_time.map(|t| t.to_string()),
            subject: version_of(c).and_then(|v| v.subject.clone()),
            change: ChangeMark {
                rev: c.change.rev.clone(),
                commit: commit_of(c),
                previous_rev: c.change.previous_rev.clone(),
                previous_commit: None,
                ratio: c.change.ratio,
                interval: c.change.interval,
                verdict: c.change.verdict.to_string(),
                method: c.change.method.clone(),
                status: c.status.to_string(),
                confounded: views::confounded(&c.change),
                confirmed: c.change.evidence == rigor_history::Evidence::Confirmed,
            },
        })
        .collect())
}

/// Reads the whole history into the dashboard's view, every version of each series on its
/// benchmark's page (no archive pages).
pub fn site_view(history: &dyn HistoryRead, site: SiteMeta, generated: String) -> Result<SiteView> {
    let mut cache = Cache::default();
    cache.refresh(history)?;
    let series = series_of(history, &cache.series, &Metric::Wall)?;
    let mut critical = Critical::default();
    let benchmarks = benchmarks_of(&series)
        .into_iter()
        .map(|(name, which)| {
            let page = page_path(&name);
            let series = which
                .iter()
                .map(|&i| {
                    let s = &series[i];
                    let bench = &s.cache.benchmarks[&name];
                    let slots = s.slots(&name, bench);
                    let part = Part {
                        series: s,
                        name: &name,
                        bench,
                        slots: &slots,
                    };
                    part.main_view(&page, usize::MAX, &mut critical)
                })
                .collect();
            BenchmarkView {
                group: group_of(&name).to_string(),
                page,
                name,
                series,
                ..BenchmarkView::default()
            }
        })
        .collect();
    Ok(SiteView {
        changes: change_rows(history, &series, &[Metric::Wall])?,
        site,
        generated,
        benchmarks,
    })
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

/// What every page's key starts from: the site's settings, the renderer (a new script or page
/// format draws every page again) and the archive size.
fn site_key(site: &SiteMeta, size: usize) -> u64 {
    let mut h = DefaultHasher::new();
    serde_json::to_string(site).unwrap_or_default().hash(&mut h);
    page::script_source().hash(&mut h);
    env!("CARGO_PKG_VERSION").hash(&mut h);
    size.hash(&mut h);
    h.finish()
}

/// One benchmark's pages: what the index shows of it, every page's path and key (the stale
/// ones rendered and written), and what the next publish needs to know it unchanged.
struct Done {
    view: BenchmarkView,
    pages: Vec<(String, String)>,
    written: usize,
    cache: PagesCache,
}

/// What the index shows of a series, from its main view.
fn index_series(s: &SeriesView) -> IndexSeries {
    let measured: Vec<(usize, &VersionPoint, &Measured)> = s
        .versions
        .iter()
        .enumerate()
        .filter_map(|(i, v)| match &v.state {
            PointState::Measured(m) if m.mean.is_finite() => Some((s.first + i, v, m)),
            _ => None,
        })
        .collect();
    let newest = &measured[measured.len().saturating_sub(SPARK_POINTS)..];
    IndexSeries {
        machine: s.machine.clone(),
        branch: s.branch.clone(),
        spark: newest.iter().map(|(i, _, m)| (*i, m.mean)).collect(),
        latest: newest
            .last()
            .map(|(_, v, m)| (v.rev.clone(), m.lower, m.upper, m.level)),
        change: s.changes.last().cloned(),
    }
}

/// The index's view of a benchmark from what it shows of each series: the newest levels at
/// their places (the versions between them missing), the newest one's interval, the newest
/// change. Both a benchmark drawn again and one left alone reach the index this way, so the
/// index is the same either way.
fn index_view(name: &str, index: &[IndexSeries]) -> BenchmarkView {
    let series = index
        .iter()
        .map(|x| {
            let first = x.spark.first().map_or(0, |p| p.0);
            let last = x.spark.last().map_or(0, |p| p.0);
            let mut versions = vec![VersionPoint::default(); (last + 1).saturating_sub(first)];
            for (k, &(at, mean)) in x.spark.iter().enumerate() {
                let (rev, lower, upper, level) = match (&x.latest, k + 1 == x.spark.len()) {
                    (Some((rev, lo, hi, level)), true) => (rev.clone(), *lo, *hi, *level),
                    _ => (String::new(), mean, mean, f64::NAN),
                };
                versions[at - first] = VersionPoint {
                    rev,
                    state: PointState::Measured(Measured {
                        mean,
                        lower,
                        upper,
                        level,
                        ..Measured::default()
                    }),
                    ..VersionPoint::default()
                };
            }
            SeriesView {
                machine: x.machine.clone(),
                branch: x.branch.clone(),
                versions,
                first,
                changes: x.change.clone().into_iter().collect(),
                ..SeriesView::default()
            }
        })
        .collect();
    BenchmarkView {
        name: name.to_string(),
        group: group_of(name).to_string(),
        page: page_path(name),
        series,
        ..BenchmarkView::default()
    }
}

/// Which of a benchmark's pages: its metric's, with the links to its pages of every metric
/// published (empty when only wall time is).
#[derive(Clone, Copy)]
struct Target<'x> {
    metric: &'x Metric,
    links: &'x [MetricLink],
}

impl Target<'_> {
    /// Feeds what a page shows of its metric into `h`: nothing for a wall-time page without
    /// links (so that its key is what it was before pages of other metrics existed).
    fn hash(&self, h: &mut DefaultHasher) {
        if !self.metric.is_wall() {
            self.metric.name().hash(h);
        }
        for l in self.links {
            (l.metric.name(), &l.page).hash(h);
        }
    }

    /// `view` as this metric's page: its path, metric and links.
    fn mark(&self, mut view: BenchmarkView) -> BenchmarkView {
        view.page = metric_path(&view.page, self.metric);
        view.metric = self.metric.clone();
        view.metrics = self.links.to_vec();
        view
    }
}

/// Writes `name`'s pages of `target`'s metric whose key differs from the manifest's (or whose
/// file is gone).
fn benchmark_pages(
    ctx: (
        &[Series<'_>],
        &SettingsKey<'_>,
        &Manifest,
        &BTreeMap<String, PagesCache>,
    ),
    (name, target): (&str, Target<'_>),
    which: &[usize],
    critical: &mut Critical,
) -> Result<Done> {
    let (series, key, old, cached) = ctx;
    let size = key.size;
    let page = metric_path(&page_path(name), target.metric);
    let stale = |path: &str, k: &str| {
        old.pages.get(path).map(String::as_str) != Some(k) || !key.out.join(path).is_file()
    };
    // Nothing it is drawn from changed, and its pages are there as they were written: no levels,
    // no views, no page keys.
    let mut input = DefaultHasher::new();
    (key.site, name).hash(&mut input);
    target.hash(&mut input);
    for &i in which {
        series[i].hash_input(name, &series[i].cache.benchmarks[name], &mut input);
    }
    let input = input.finish();
    if let Some(c) = cached.get(name).filter(|c| c.input == input)
        && c.pages.iter().all(|(path, k)| !stale(path, k))
    {
        return Ok(Done {
            view: target.mark(index_view(name, &c.index)),
            pages: c.pages.clone(),
            written: 0,
            cache: c.clone(),
        });
    }
    let write = |path: &str, html: String| {
        let file = key.out.join(path);
        fs::write(&file, html).map_err(io(&file))
    };
    let slots: Vec<_> = which
        .iter()
        .map(|&i| series[i].slots(name, &series[i].cache.benchmarks[name]))
        .collect();
    let parts: Vec<Part<'_, '_>> = which
        .iter()
        .zip(&slots)
        .map(|(&i, slots)| Part {
            series: &series[i],
            name,
            bench: &series[i].cache.benchmarks[name],
            slots,
        })
        .collect();
    let mut pages = Vec::new();
    let mut written = 0;
    let mut main = DefaultHasher::new();
    (key.site, name).hash(&mut main);
    target.hash(&mut main);
    // Archive pages first: each is one series' fixed run of older versions. Their keys cover
    // the archived versions for the main page's key too, so those are hashed once.
    for part in &parts {
        let (start, ranges) = layout(part.slots.len(), size);
        for range in ranges {
            let path = archive_path(&page, part.series.machine, part.series.branch, range.start);
            let nav = part.nav(&page, &range, size);
            let mut h = DefaultHasher::new();
            (key.site, name, &nav.previous, &nav.next).hash(&mut h);
            if !target.metric.is_wall() {
                target.metric.name().hash(&mut h);
            }
            part.hash_range(range.clone(), &mut h);
            let k = format!("{:016x}", h.finish());
            k.hash(&mut main);
            if stale(&path, &k) {
                let view = BenchmarkView {
                    name: name.to_string(),
                    group: group_of(name).to_string(),
                    page: page.clone(),
                    series: vec![part.archive_view(range, critical)],
                    metric: target.metric.clone(),
                    ..BenchmarkView::default()
                };
                write(&path, render_archive(key.meta, &view, &nav))?;
                written += 1;
            }
            pages.push((path, k));
        }
        part.hash_main(start, &mut main);
    }
    let k = format!("{:016x}", main.finish());
    let view = BenchmarkView {
        name: name.to_string(),
        group: group_of(name).to_string(),
        page: page.clone(),
        series: parts
            .iter()
            .map(|p| p.main_view(&page, size, critical))
            .collect(),
        metric: target.metric.clone(),
        metrics: target.links.to_vec(),
    };
    if stale(&page, &k) {
        write(&page, render_benchmark(key.meta, &view))?;
        written += 1;
    }
    pages.push((page, k));
    let index: Vec<IndexSeries> = view.series.iter().map(index_series).collect();
    let mut shown = target.mark(index_view(name, &index));
    for (s, part) in shown.series.iter_mut().zip(&parts) {
        s.quantity = part.bench.quantity.clone();
    }
    Ok(Done {
        view: shown,
        cache: PagesCache {
            input,
            pages: pages.clone(),
            index,
        },
        pages,
        written,
    })
}

/// What every page shares.
struct SettingsKey<'a> {
    out: &'a Path,
    meta: &'a SiteMeta,
    site: u64,
    size: usize,
}

/// Reads what is new in the history and writes the dashboard to `settings.out`: the pages whose
/// key changed (or whose file is gone), the index, the manifest and the cache; pages no longer
/// in the site are removed.
pub fn publish(history: &dyn HistoryRead, settings: &PublishSettings) -> Result<Published> {
    let out = &settings.out;
    fs::create_dir_all(out.join("b")).map_err(io(out))?;
    let cache_path = out.join(CACHE);
    let mut cache = Cache::load(&cache_path);
    let runs_read = cache.refresh(history)?;
    let series = series_of(history, &cache.series, &Metric::Wall)?;
    // Other metrics' summaries, read from the history on every publish: they are not cached.
    let others: Vec<(&Metric, BTreeMap<SeriesKey, SeriesCache>)> = settings
        .metrics
        .iter()
        .filter(|m| !m.is_wall())
        .map(|m| Ok((m, metric_caches(history, &cache, m)?)))
        .collect::<Result<_>>()?;
    let other_series: Vec<(&Metric, Vec<Series<'_>>)> = others
        .iter()
        .map(|(m, caches)| Ok((*m, series_of(history, caches, m)?)))
        .collect::<Result<_>>()?;
    let old = read_manifest(out);
    let size = settings.archive_size.max(1);
    let key = SettingsKey {
        out,
        meta: &settings.site,
        site: site_key(&settings.site, size),
        size,
    };
    let names: Vec<(String, Vec<usize>)> = benchmarks_of(&series).into_iter().collect();
    let other_names: Vec<BTreeMap<String, Vec<usize>>> =
        other_series.iter().map(|(_, s)| benchmarks_of(s)).collect();
    // Each benchmark's pages of the metrics it has, wall time first: none when wall time is
    // all that is published (its pages then stay as they were).
    let links: BTreeMap<&str, Vec<MetricLink>> = names
        .iter()
        .map(|(name, _)| {
            let page = page_path(name);
            let mut list = vec![MetricLink {
                metric: Metric::Wall,
                page: page.clone(),
            }];
            for ((m, _), with) in other_series.iter().zip(&other_names) {
                if with.contains_key(name) {
                    list.push(MetricLink {
                        metric: (*m).clone(),
                        page: metric_path(&page, m),
                    });
                }
            }
            if list.len() == 1 {
                list.clear();
            }
            (name.as_str(), list)
        })
        .collect();
    let links_of = |name: &str| links.get(name).map_or(&[][..], Vec::as_slice);
    let wall = Metric::Wall;
    let mut done: Vec<Done> = names
        .par_iter()
        .map_init(Critical::default, |critical, (name, which)| {
            let target = Target {
                metric: &wall,
                links: links_of(name),
            };
            benchmark_pages(
                (&series, &key, &old, &cache.pages),
                (name, target),
                which,
                critical,
            )
        })
        .collect::<Result<_>>()?;
    let pages_cache: BTreeMap<String, PagesCache> = done
        .iter()
        .map(|d| (d.view.name.clone(), d.cache.clone()))
        .collect();
    // Other metrics' pages: their levels computed again each time (nothing cached to compare
    // with), each page written only when its key changed.
    let none = BTreeMap::new();
    for ((metric, s), with) in other_series.iter().zip(&other_names) {
        let list: Vec<(&String, &Vec<usize>)> = with.iter().collect();
        let more: Vec<Done> = list
            .par_iter()
            .map_init(Critical::default, |critical, (name, which)| {
                let target = Target {
                    metric,
                    links: links_of(name),
                };
                benchmark_pages((s, &key, &old, &none), (name, target), which, critical)
            })
            .collect::<Result<_>>()?;
        done.extend(more);
    }
    let pages: BTreeMap<String, String> = done.iter().flat_map(|d| d.pages.clone()).collect();
    let mut removed = 0;
    for gone in old.pages.keys().filter(|p| !pages.contains_key(*p)) {
        // Only names this site made (`b/….html`), never a path a hand-edited manifest holds.
        if gone.starts_with("b/") && !gone.contains("..") && fs::remove_file(out.join(gone)).is_ok()
        {
            removed += 1;
        }
    }
    let written = done.iter().map(|d| d.written).sum();
    let mut benchmarks: Vec<BenchmarkView> = done.into_iter().map(|d| d.view).collect();
    // The group shows on the index only, so pages need not be drawn again when it changes.
    for b in &mut benchmarks {
        b.group = settings.grouping.of(&b.name);
    }
    benchmarks.sort_by(|a, b| (&a.group, &a.name, &a.metric).cmp(&(&b.group, &b.name, &b.metric)));
    let mut shown = vec![Metric::Wall];
    shown.extend(other_series.iter().map(|(m, _)| (*m).clone()));
    let view = SiteView {
        site: settings.site.clone(),
        generated: settings.generated.clone(),
        changes: change_rows(history, &series, &shown)?,
        benchmarks,
    };
    let index = render_index(&view);
    let index_path = out.join("index.html");
    fs::write(&index_path, &index).map_err(io(&index_path))?;
    let archives = pages.len() - view.benchmarks.len();
    let manifest = Manifest { pages };
    let manifest_path = out.join(MANIFEST);
    let text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
    fs::write(&manifest_path, text).map_err(io(&manifest_path))?;
    drop(series);
    drop(other_series);
    let known = |(name, c): (&String, &PagesCache)| {
        cache.pages.get(name).is_some_and(|o| o.input == c.input)
    };
    if pages_cache.len() != cache.pages.len() || !pages_cache.iter().all(known) {
        cache.changed = true;
    }
    cache.pages = pages_cache;
    cache.save(&cache_path)?;
    let metric_pages = view
        .benchmarks
        .iter()
        .filter(|b| !b.metric.is_wall())
        .count();
    Ok(Published {
        pages: view.benchmarks.len() - metric_pages,
        metric_pages,
        archives,
        written,
        removed,
        index_bytes: index.len(),
        runs_read,
    })
}
