//! The publisher's own copy of the stored summaries, kept in the site folder so that publishing
//! again reads only the runs stored since.
//!
//! Per series (machine and branch) it keeps the runs it has read (id and content hash) and, per
//! benchmark, every run's summary as the levels need it (`rigor_app::track::levels`: the run's
//! session, role and artifact, its level and that level's variance, its mean, interval and
//! resolution) and the noise per level the pages draw. Each version's level depends on all runs
//! of the benchmark (the sessions' shifts are estimated from all of them), so the levels are not
//! cached: `publish::views` computes each benchmark's from these summaries, which takes no
//! samples and a millisecond or two per benchmark. [`Cache::refresh`] asks the history for its
//! measured runs, reads the summaries of the runs it does not know, and starts that series over
//! when a run it knows is gone or different (another history, a rebuilt database). A missing,
//! damaged or older cache is the same as an empty one: everything is read again, and the site
//! comes out the same. It is written with postcard (a compact binary serde format): at a million
//! stored summaries JSON would take longer to parse than reading the history itself.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::Path;

use rigor_history::{HistoryRead, MeanSpread, RunId, RunInfo, RunStamp, SeriesKey, StoredSummary};
use rigor_units::{ConfidenceLevel, Quantity, Resolution, TimeUnit};
use serde::{Deserialize, Serialize};

use crate::error::{AppError, Result};

/// Bumped whenever what is cached, or how it is computed from a summary, changes.
const FORMAT: u32 = 4;

/// Everything the publisher has read.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Cache {
    format: u32,
    rigor: String,
    /// By series.
    pub series: BTreeMap<SeriesKey, SeriesCache>,
    /// By benchmark: what its pages were drawn from and what the index shows of it, so that a
    /// benchmark nothing new reached costs no levels and no views.
    pub pages: BTreeMap<String, PagesCache>,
    /// Whether [`Cache::refresh`] changed anything (not stored).
    #[serde(skip)]
    pub changed: bool,
}

/// One benchmark's pages as last published.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct PagesCache {
    /// A hash of everything its pages are drawn from (module `views`: the site's settings, each
    /// series' versions, the benchmark's runs and changes).
    pub input: u64,
    /// Its pages' paths and keys.
    pub pages: Vec<(String, String)>,
    /// What the index shows of each series.
    pub index: Vec<IndexSeries>,
}

/// What the index shows of one series of a benchmark: its newest levels (the sparkline's), the
/// newest one's interval, and its newest change.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct IndexSeries {
    pub machine: String,
    pub branch: String,
    /// Whole-history position and level of the newest measured versions, oldest first.
    pub spark: Vec<(usize, f64)>,
    /// The newest measured version: its name, interval and confidence level.
    pub latest: Option<(String, f64, f64, f64)>,
    /// The newest change.
    pub change: Option<rigor_report::dashboard::ChangeMark>,
}

/// One machine and branch.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct SeriesCache {
    /// The runs read, in id order.
    runs: Vec<RunStamp>,
    /// By benchmark name.
    pub benchmarks: BTreeMap<String, BenchCache>,
}

/// One benchmark on one machine and branch.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct BenchCache {
    /// Names of the measured levels, top first, from the latest run that stored components.
    pub levels: Vec<String>,
    /// That run.
    levels_run: Option<RunId>,
    /// Every run's summary, in run order.
    pub runs: Vec<CachedRun>,
    /// The quantity of the values: seconds for wall time (what is cached); another metric's
    /// summaries are computed on each publish ([`BenchCache::of_metric`]) and never stored.
    #[serde(skip)]
    pub quantity: Quantity,
}

impl BenchCache {
    /// A benchmark's runs in a metric other than wall time, from its summaries of that metric
    /// (`track::levels::metric_summaries`, in run order) and their quantity.
    pub fn of_metric(summaries: &[StoredSummary], quantity: Quantity) -> Self {
        BenchCache {
            runs: summaries.iter().map(CachedRun::of).collect(),
            quantity,
            ..BenchCache::default()
        }
    }
}

/// One run's summary of one benchmark, as the levels and the pages need it. Plain fields only:
/// postcard, which does not describe itself, cannot read the history's types that skip empty
/// fields when serialised.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CachedRun {
    /// The version's name.
    pub rev: String,
    /// The run's id, session, artifact and role.
    pub run: RunInfo,
    /// The unit of its values.
    pub unit: TimeUnit,
    /// Its mean, when analysed.
    pub mean: Option<f64>,
    /// Its mean's interval.
    pub interval: Option<(f64, f64)>,
    /// That interval's confidence level.
    pub confidence: Option<ConfidenceLevel>,
    /// Top-level units, variance of the mean, level, variance of the level.
    pub spread: Option<(usize, f64, f64, f64)>,
    /// The step its times move in.
    pub resolution: Option<Resolution>,
    /// Each level's standard deviation as a percentage of the mean.
    pub noise: Vec<f64>,
}

impl CachedRun {
    fn of(s: &StoredSummary) -> Self {
        CachedRun {
            rev: s.rev.clone(),
            run: s.run,
            unit: s.unit,
            mean: s.mean,
            interval: s.interval,
            confidence: s.level,
            spread: s
                .spread
                .map(|m| (m.units, m.var_of_mean, m.level, m.var_of_level)),
            resolution: s.resolution,
            noise: s.mean.map_or_else(Vec::new, |mean| noise(s, mean)),
        }
    }

    /// The stored summary back (without variance components), as `track::levels` takes it.
    pub fn summary(&self, benchmark: &str) -> StoredSummary {
        StoredSummary {
            benchmark: benchmark.to_string(),
            rev: self.rev.clone(),
            run: self.run,
            unit: self.unit,
            mean: self.mean,
            interval: self.interval,
            level: self.confidence,
            spread: self
                .spread
                .map(|(units, var_of_mean, level, var_of_level)| MeanSpread {
                    units,
                    var_of_mean,
                    level,
                    var_of_level,
                }),
            components: Vec::new(),
            resolution: self.resolution,
        }
    }
}

impl Cache {
    /// The cache at `path`, or an empty one when it is missing, damaged or of another format or
    /// rigor version.
    pub fn load(path: &Path) -> Cache {
        let current = |c: &Cache| c.format == FORMAT && c.rigor == env!("CARGO_PKG_VERSION");
        fs::read(path)
            .ok()
            .and_then(|bytes| postcard::from_bytes::<Cache>(&bytes).ok())
            .filter(current)
            .unwrap_or_default()
    }

    /// Writes the cache to `path` (through a temporary file, so a killed publish leaves the old
    /// cache or the new one).
    pub fn save(&mut self, path: &Path) -> Result<()> {
        if !self.changed && path.is_file() {
            return Ok(());
        }
        self.format = FORMAT;
        self.rigor = env!("CARGO_PKG_VERSION").to_string();
        let bytes = postcard::to_stdvec(self).map_err(|e| AppError::Site {
            path: path.to_path_buf(),
            source: std::io::Error::other(e),
        })?;
        rigor_store::write_atomic(path, &bytes)?;
        Ok(())
    }

    /// Brings the cache up to date with `history`: the summaries of runs it has not read are
    /// read and merged, series no longer in the history dropped. Returns how many runs were read.
    pub fn refresh(&mut self, history: &dyn HistoryRead) -> Result<usize> {
        let keys = history.series_keys()?;
        let wanted: HashSet<&SeriesKey> = keys.iter().collect();
        let before = self.series.len();
        self.series.retain(|k, _| wanted.contains(k));
        self.changed |= self.series.len() != before;
        let mut read = 0;
        for key in keys {
            let stamps = history.measured_runs(&key)?;
            let entry = self.series.entry(key.clone()).or_default();
            let current: HashSet<&RunStamp> = stamps.iter().collect();
            if !entry.runs.iter().all(|r| current.contains(r)) {
                *entry = SeriesCache::default();
                self.changed = true;
            }
            let known: HashSet<&RunStamp> = entry.runs.iter().collect();
            let new: HashSet<RunId> = stamps
                .iter()
                .filter(|s| !known.contains(s))
                .map(|s| s.id)
                .collect();
            if let Some(&first) = new.iter().min() {
                // In run order.
                for s in history.summaries_from(&key, first)? {
                    if new.contains(&s.run.id) {
                        entry.add(s);
                    }
                }
            }
            read += new.len();
            self.changed |= !new.is_empty() || entry.runs.len() != stamps.len();
            entry.runs = stamps;
        }
        Ok(read)
    }
}

impl SeriesCache {
    /// Merges one stored summary (summaries arrive in run order).
    fn add(&mut self, s: StoredSummary) {
        let run = s.run.id;
        let b = self.benchmarks.entry(s.benchmark.clone()).or_default();
        if !s.components.is_empty() && b.levels_run.is_none_or(|r| r <= run) {
            b.levels = s.components.iter().map(|c| c.level.clone()).collect();
            b.levels_run = Some(run);
        }
        b.runs.push(CachedRun::of(&s));
    }
}

/// Each level's standard deviation (√T², none when T² ≤ 0) as a percentage of the mean.
fn noise(s: &StoredSummary, mean: f64) -> Vec<f64> {
    s.components
        .iter()
        .map(|c| c.t2.max(0.0).sqrt() / mean.abs() * 100.0)
        .collect()
}
