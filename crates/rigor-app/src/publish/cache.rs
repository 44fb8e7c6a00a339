//! The publisher's own copy of the stored summaries, kept in the site folder so that publishing
//! again reads only the runs stored since.
//!
//! Per series (machine and branch) it keeps the runs it has read (id and content hash) and, per
//! benchmark and version, the point as the pages draw it (mean, interval, noise per level,
//! Fieller's inputs as the history stores them) from that version's latest run. [`Cache::refresh`] asks the history for its measured
//! runs, reads the summaries of the runs it does not know, and starts that series over when a
//! run it knows is gone or different (another history, a rebuilt database). A missing, damaged
//! or older cache is the same as an empty one: everything is read again, and the site comes out
//! the same. It is written with postcard (a compact binary serde format): at a million stored
//! summaries JSON would take longer to parse than reading the history itself.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::path::Path;

use rigor_history::{HistoryRead, RunId, RunStamp, SeriesKey, StoredSummary};
use rigor_report::dashboard::{Measured, PointState, RatioInput};
use serde::{Deserialize, Serialize};

use crate::error::{AppError, Result};

/// Bumped whenever what is cached, or how a point is computed from a summary, changes.
const FORMAT: u32 = 3;

/// Everything the publisher has read.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Cache {
    format: u32,
    rigor: String,
    /// By series.
    pub series: BTreeMap<SeriesKey, SeriesCache>,
    /// Whether [`Cache::refresh`] changed anything (not stored).
    #[serde(skip)]
    changed: bool,
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
    /// By version name: the point from the version's latest run.
    pub points: HashMap<String, CachedPoint>,
}

/// A version's point and the run it came from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CachedPoint {
    run: RunId,
    /// `Measured` or `Unanalysed` (failed and missing versions come from the version list).
    #[serde(with = "codec")]
    pub state: PointState,
}

/// [`PointState`] in the cache: postcard, which does not describe itself, cannot read the
/// internally tagged form the view uses for JSON, so the cache writes this plain enum.
mod codec {
    use rigor_report::dashboard::{Measured, PointState, RatioInput};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    enum Stored {
        Measured {
            mean: f64,
            lower: f64,
            upper: f64,
            level: f64,
            noise: Vec<f64>,
            ratio_input: Option<(usize, f64, Option<f64>)>,
        },
        Unanalysed,
    }

    pub fn serialize<S: Serializer>(state: &PointState, s: S) -> Result<S::Ok, S::Error> {
        match state {
            PointState::Measured(m) => Stored::Measured {
                mean: m.mean,
                lower: m.lower,
                upper: m.upper,
                level: m.level,
                noise: m.noise.clone(),
                ratio_input: m.ratio_input.map(|r| (r.units, r.var_of_mean, r.step)),
            },
            _ => Stored::Unanalysed,
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PointState, D::Error> {
        Ok(match Stored::deserialize(d)? {
            Stored::Measured {
                mean,
                lower,
                upper,
                level,
                noise,
                ratio_input,
            } => PointState::Measured(Measured {
                mean,
                lower,
                upper,
                level,
                noise,
                ratio_input: ratio_input.map(|(units, var_of_mean, step)| RatioInput {
                    units,
                    var_of_mean,
                    step,
                }),
            }),
            Stored::Unanalysed => PointState::Unanalysed,
        })
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
                // In run order, so that a version measured again shows its latest run.
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
        if b.points.get(&s.rev).is_some_and(|p| p.run > run) {
            return;
        }
        let state = state_of(&s);
        b.points.insert(s.rev, CachedPoint { run, state });
    }
}

/// A stored summary as the pages draw it.
fn state_of(s: &StoredSummary) -> PointState {
    match (s.mean, s.interval) {
        (Some(mean), Some((lower, upper))) => PointState::Measured(Measured {
            mean,
            lower,
            upper,
            level: s.level.map_or(f64::NAN, |l| l.get()),
            noise: noise(s, mean),
            ratio_input: ratio_input(s),
        }),
        _ => PointState::Unanalysed,
    }
}

/// Each level's standard deviation (√T², none when T² ≤ 0) as a percentage of the mean.
fn noise(s: &StoredSummary, mean: f64) -> Vec<f64> {
    s.components
        .iter()
        .map(|c| c.t2.max(0.0).sqrt() / mean.abs() * 100.0)
        .collect()
}

/// What Fieller's interval needs of a stored mean: the top-level count r and the variance of the
/// mean S²/r, which the history stores with the run (from its own samples, not from its interval,
/// which a floor at the resolution or a skew may have widened), and the resolution that floors a
/// ratio with it. `None` with fewer than two top-level units.
fn ratio_input(s: &StoredSummary) -> Option<RatioInput> {
    let spread = s.spread?;
    Some(RatioInput {
        units: spread.units,
        var_of_mean: spread.var_of_mean,
        step: s.resolution.map(|r| r.step().in_unit(s.unit)),
    })
}
