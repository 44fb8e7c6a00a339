//! From what the publisher holds (the version lists, the changes and each benchmark's points,
//! module `points`) to the report crate's views, page by page, and the key of each page: a hash of everything the page
//! is drawn from, so that a page whose key is unchanged is not drawn again.
//!
//! A series longer than two archive sizes keeps its older versions on archive pages of
//! `size` versions each (`0..size`, `size..2·size`, …), and its main page shows the rest (between
//! `size` and `2·size − 1` versions) under an overview of the whole history. A new version only
//! changes the main page; an archive page changes only when something in its range does (a
//! version measured again, a change's status, the history's order).

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::Range;

use rigor_history::{Evidence, StoredChange, StoredVersion};
use rigor_report::dashboard::plots::short_name;
use rigor_report::dashboard::{
    ArchiveLink, ArchiveNav, ChangeMark, Overview, OverviewBin, PointState, SeriesView,
    VersionPoint, archive_path,
};
use rigor_units::Metric;

use super::cache::{BenchCache, SeriesCache};
use super::points::states;
use super::stats::{Critical, default_comparison, quantiles_for};

/// Versions per archive page unless the settings say otherwise: a benchmark's page then shows
/// its newest 100 to 199 versions in detail, which keeps drawing it again after each new version
/// cheap at any length of history.
pub const ARCHIVE_SIZE: usize = 100;
/// The most bins of a series' overview.
const OVERVIEW_BINS: usize = 240;

/// One machine and branch, as the pages are drawn from it.
pub(crate) struct Series<'a> {
    pub machine: &'a str,
    pub branch: &'a str,
    pub versions: Vec<StoredVersion>,
    /// Per version, a hash of what a page shows of it besides the benchmark's point.
    version_keys: Vec<u64>,
    /// Version name → position.
    pub position: HashMap<String, usize>,
    /// Per benchmark, its current changes in history order.
    pub marks: HashMap<String, Vec<ChangeMark>>,
    pub cache: &'a SeriesCache,
}

impl<'a> Series<'a> {
    /// The series of `metric`: its changes of that metric are marked.
    pub fn new(
        (machine, branch): (&'a str, &'a str),
        versions: Vec<StoredVersion>,
        (changes, metric): (&[StoredChange], &Metric),
        cache: &'a SeriesCache,
    ) -> Self {
        let position: HashMap<String, usize> = versions
            .iter()
            .enumerate()
            .map(|(i, v)| (v.version.rev.clone(), i))
            .collect();
        let version_keys = versions
            .iter()
            .map(|v| {
                let mut h = DefaultHasher::new();
                let i = &v.version;
                (&i.rev, &i.commit, &i.subject, &i.time, v.runs, v.failed).hash(&mut h);
                h.finish()
            })
            .collect();
        let commit = |rev: &str| {
            position
                .get(rev)
                .and_then(|&i| versions[i].version.commit.clone())
        };
        let mut marks: HashMap<String, Vec<ChangeMark>> = HashMap::new();
        for c in changes
            .iter()
            .filter(|c| shown(c, std::slice::from_ref(metric)))
        {
            let m = ChangeMark {
                rev: c.change.rev.clone(),
                commit: commit(&c.change.rev),
                previous_rev: c.change.previous_rev.clone(),
                previous_commit: c.change.previous_rev.as_deref().and_then(commit),
                ratio: c.change.ratio,
                interval: c.change.interval,
                verdict: c.change.verdict.to_string(),
                method: c.change.method.clone(),
                status: c.status.to_string(),
                confounded: confounded(&c.change),
                confirmed: c.change.evidence == Evidence::Confirmed,
            };
            marks.entry(c.benchmark.clone()).or_default().push(m);
        }
        for list in marks.values_mut() {
            list.sort_by_key(|m| position.get(&m.rev).copied().unwrap_or(usize::MAX));
        }
        Series {
            machine,
            branch,
            versions,
            version_keys,
            position,
            marks,
            cache,
        }
    }

    /// Every version's point for one benchmark, in history order.
    pub fn slots(&self, name: &str, bench: &BenchCache) -> Vec<PointState> {
        states(name, bench, &self.versions)
    }

    fn point(&self, i: usize, state: &PointState) -> VersionPoint {
        let v = &self.versions[i].version;
        VersionPoint {
            rev: v.rev.clone(),
            commit: v.commit.clone(),
            subject: v.subject.clone(),
            time: v.time.map(|t| t.to_string()),
            state: state.clone(),
        }
    }

    /// Feeds everything `name`'s part of this series is drawn from into `h`: the versions, the
    /// benchmark's runs (a run's id stands for its content: the cache starts a series over when
    /// a run it knows changes) and its changes.
    pub fn hash_input(&self, name: &str, bench: &BenchCache, h: &mut DefaultHasher) {
        (self.machine, self.branch, &self.version_keys, &bench.levels).hash(h);
        bench.runs.len().hash(h);
        for r in &bench.runs {
            r.run.id.hash(h);
        }
        for m in self.marks.get(name).into_iter().flatten() {
            hash_mark(m, h);
        }
    }

    /// A benchmark's changes whose first version is in `range`.
    fn marks_in(&self, name: &str, range: &Range<usize>) -> Vec<ChangeMark> {
        self.marks.get(name).map_or_else(Vec::new, |all| {
            all.iter()
                .filter(|m| self.position.get(&m.rev).is_some_and(|i| range.contains(i)))
                .cloned()
                .collect()
        })
    }
}

/// How a series of `n` versions is split: the main page's first version and the archive pages'
/// ranges. With `size` ≥ `n`/2 everything is on the main page.
pub(crate) fn layout(n: usize, size: usize) -> (usize, Vec<Range<usize>>) {
    let chunks = (n / size.max(1)).saturating_sub(1);
    let ranges: Vec<Range<usize>> = (0..chunks).map(|k| k * size..(k + 1) * size).collect();
    (ranges.last().map_or(0, |r| r.end), ranges)
}

/// What one page of a series is drawn from.
pub(crate) struct Part<'s, 'a> {
    pub series: &'s Series<'a>,
    pub name: &'s str,
    pub bench: &'a BenchCache,
    pub slots: &'s [PointState],
}

impl Part<'_, '_> {
    /// The series' view on the main page: the versions from `start` on, and, when older ones
    /// are archived, the overview and the links to the archive pages.
    pub fn main_view(&self, page: &str, size: usize, critical: &mut Critical) -> SeriesView {
        let n = self.slots.len();
        let (start, archives) = layout(n, size);
        let marks = self
            .series
            .marks
            .get(self.name)
            .cloned()
            .unwrap_or_default();
        let mut view = self.view(start..n, marks, critical);
        if start > 0 {
            view.overview = Some(self.overview());
            view.archives = archives
                .iter()
                .map(|r| ArchiveLink {
                    page: archive_path(page, self.series.machine, self.series.branch, r.start),
                    first: r.start,
                    last: r.end - 1,
                })
                .collect();
        }
        view
    }

    /// The series' view on the archive page of `range`.
    pub fn archive_view(&self, range: Range<usize>, critical: &mut Critical) -> SeriesView {
        let marks = self.series.marks_in(self.name, &range);
        self.view(range, marks, critical)
    }

    fn view(
        &self,
        range: Range<usize>,
        marks: Vec<ChangeMark>,
        critical: &mut Critical,
    ) -> SeriesView {
        let first = range.start;
        let points: Vec<VersionPoint> = range
            .map(|i| self.series.point(i, &self.slots[i]))
            .collect();
        let quantiles = quantiles_for(&points, critical);
        let lower_is_better = !matches!(self.bench.quantity, rigor_units::Quantity::Rate(_));
        // At the table's level, so that the page's script and this agree for every pair.
        let comparison = quantiles
            .as_ref()
            .and_then(|q| default_comparison(&points, &marks, q.level, lower_is_better));
        SeriesView {
            machine: self.series.machine.to_string(),
            branch: self.series.branch.to_string(),
            quantity: self.bench.quantity.clone(),
            levels: self.bench.levels.clone(),
            versions: points,
            first,
            overview: None,
            archives: Vec::new(),
            changes: marks,
            quantiles,
            comparison,
        }
    }

    /// The whole history pooled into at most [`OVERVIEW_BINS`] bins of equal width.
    fn overview(&self) -> Overview {
        let n = self.slots.len();
        let width = n.div_ceil(OVERVIEW_BINS).max(1);
        let bins = (0..n)
            .step_by(width)
            .filter_map(|first| {
                let last = (first + width).min(n) - 1;
                let measured: Vec<_> = self.slots[first..=last]
                    .iter()
                    .filter_map(|s| match s {
                        PointState::Measured(m) if m.mean.is_finite() => Some(m),
                        _ => None,
                    })
                    .collect();
                (!measured.is_empty()).then(|| OverviewBin {
                    first,
                    last,
                    mean: measured.iter().map(|m| m.mean).sum::<f64>() / measured.len() as f64,
                    lower: measured
                        .iter()
                        .map(|m| m.lower)
                        .fold(f64::INFINITY, f64::min),
                    upper: measured
                        .iter()
                        .map(|m| m.upper)
                        .fold(f64::NEG_INFINITY, f64::max),
                })
            })
            .collect();
        let changes = self
            .series
            .marks
            .get(self.name)
            .map_or_else(Vec::new, |all| {
                all.iter()
                    .filter_map(|m| Some((*self.series.position.get(&m.rev)?, m.ratio)))
                    .collect()
            });
        let labels = self
            .series
            .versions
            .iter()
            .map(|v| short_name(v.version.commit.as_deref(), &v.version.rev))
            .collect();
        Overview {
            versions: n,
            bins,
            changes,
            labels,
            quantity: self.bench.quantity.clone(),
        }
    }

    /// Feeds what the versions in `range` show into `h`.
    pub fn hash_range(&self, range: Range<usize>, h: &mut DefaultHasher) {
        (self.series.machine, self.series.branch, &self.bench.levels).hash(h);
        (range.start, range.end).hash(h);
        self.series.version_keys[range.clone()].hash(h);
        for slot in &self.slots[range.clone()] {
            hash_slot(slot, h);
        }
        for m in self.series.marks_in(self.name, &range) {
            hash_mark(&m, h);
        }
    }

    /// Feeds what the main page's part of this series shows into `h`, besides the archived
    /// versions (whose archive pages' keys the caller feeds in): the versions from `start` on,
    /// every change (the overview and the change table cover them all) and the series' length.
    pub fn hash_main(&self, start: usize, h: &mut DefaultHasher) {
        let n = self.slots.len();
        self.hash_range(start..n, h);
        n.hash(h);
        for m in self.series.marks.get(self.name).into_iter().flatten() {
            hash_mark(m, h);
        }
    }

    /// Where the archive page of `range` sits among the series' pages.
    pub fn nav(&self, page: &str, range: &Range<usize>, size: usize) -> ArchiveNav {
        let (start, _) = layout(self.slots.len(), size);
        let path =
            |first: usize| archive_path(page, self.series.machine, self.series.branch, first);
        ArchiveNav {
            main: page.to_string(),
            previous: (range.start > 0).then(|| path(range.start - size)),
            next: (range.end < start).then(|| path(range.end)),
        }
    }
}

/// Feeds what a page draws of a version's point into `h`.
fn hash_slot(slot: &PointState, h: &mut DefaultHasher) {
    match slot {
        PointState::Measured(m) => {
            0u8.hash(h);
            for x in [m.mean, m.lower, m.upper, m.level] {
                x.to_bits().hash(h);
            }
            for x in &m.noise {
                x.to_bits().hash(h);
            }
            m.ratio_input
                .map(|r| (r.units, r.var_of_mean.to_bits(), r.step.map(f64::to_bits)))
                .hash(h);
            (m.identical, m.sessions_unknown, m.component, &m.runs).hash(h);
        }
        PointState::Unanalysed => 1u8.hash(h),
        PointState::Failed => 2u8.hash(h),
        PointState::Missing => 3u8.hash(h),
    }
}

/// Whether a stored change cannot be told from a session boundary: its evidence says so (or,
/// for a change stored by a detection that only said so in words, its method). The pages draw
/// such changes apart.
pub(crate) fn confounded(c: &rigor_history::NewChange) -> bool {
    c.evidence == Evidence::Confounded || c.method.to_ascii_lowercase().contains("confounded")
}

/// Whether the pages of `metrics` show a stored change: one of those metrics' (a page marks
/// its own metric's changes only), and not when measuring both sides again refuted it (as `rigor
/// track run` leaves it out of its report).
pub(crate) fn shown(c: &StoredChange, metrics: &[Metric]) -> bool {
    c.change.evidence != Evidence::Refuted && metrics.contains(&c.metric)
}

fn hash_mark(m: &ChangeMark, h: &mut DefaultHasher) {
    (&m.rev, &m.commit, &m.previous_rev, &m.previous_commit).hash(h);
    (&m.verdict, &m.method, &m.status, m.confounded, m.confirmed).hash(h);
    m.ratio.to_bits().hash(h);
    m.interval.map(|(a, b)| (a.to_bits(), b.to_bits())).hash(h);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_versions_go_to_archives_of_fixed_ranges() {
        assert_eq!(layout(30, 100), (0, vec![]));
        assert_eq!(layout(199, 100), (0, vec![]));
        let (start, archives) = layout(200, 100);
        assert_eq!(
            (start, archives.len(), archives[0].clone()),
            (100, 1, 0..100)
        );
        assert_eq!(layout(1000, 100).0, 900);
        assert_eq!(layout(1001, 100).0, 900);
        assert_eq!(layout(1100, 100).0, 1000);
        // A new version never moves an archive's range.
        let (_, a) = layout(1099, 100);
        let (_, b) = layout(1100, 100);
        assert_eq!(a[..], b[..a.len()]);
    }

    /// A page marks its own metric's changes: a change of CPU time or peak memory is not marked
    /// on the wall-time pages (nor listed on the index when only wall time is published), but
    /// on its metric's; a refuted one on none.
    #[test]
    fn the_pages_show_their_own_metrics_changes() {
        let change = |metric: rigor_units::Metric, evidence: Evidence| StoredChange {
            id: rigor_history::ChangeId(1),
            benchmark: "b".into(),
            metric,
            series: rigor_history::SeriesKey::new("m", "main"),
            change: rigor_history::NewChange {
                rev: "v2".into(),
                previous_rev: Some("v1".into()),
                ratio: 1.1,
                interval: Some((1.05, 1.15)),
                p_value: 0.001,
                q_value: Some(0.001),
                verdict: rigor_history::ChangeVerdict::Regression,
                method: "m".into(),
                evidence,
            },
            status: rigor_history::ChangeStatus::New,
            current: true,
            detected_at: jiff::Timestamp::UNIX_EPOCH,
            version_time: None,
        };
        let wall = [Metric::Wall];
        assert!(shown(&change(Metric::Wall, Evidence::Detected), &wall));
        assert!(!shown(&change(Metric::Wall, Evidence::Refuted), &wall));
        assert!(!shown(&change(Metric::Cpu, Evidence::Detected), &wall));
        assert!(!shown(
            &change(Metric::PeakMemory, Evidence::Confirmed),
            &wall
        ));
        let memory = [Metric::Wall, Metric::PeakMemory];
        assert!(shown(
            &change(Metric::PeakMemory, Evidence::Confirmed),
            &memory
        ));
        assert!(!shown(
            &change(Metric::PeakMemory, Evidence::Refuted),
            &memory
        ));
        assert!(!shown(&change(Metric::Cpu, Evidence::Detected), &memory));
    }
}
