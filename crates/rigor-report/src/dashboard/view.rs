//! The dashboard's view model: what `rigor-app` builds from a history and the pages draw.
//!
//! Every number arrives computed (means, intervals, change ratios, noise per level); the pages
//! only place them. All of it serialises, so a page's input can be hashed to know whether the
//! page must be written again.

use rigor_units::{Metric, Quantity};
use serde::{Deserialize, Serialize};

/// The whole site.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SiteView {
    /// What applies to every page.
    pub site: SiteMeta,
    /// When the site was generated (shown on the index only, so unchanged benchmark pages stay
    /// byte for byte the same).
    pub generated: String,
    /// Every benchmark, in name order.
    pub benchmarks: Vec<BenchmarkView>,
    /// The changes across the project, newest version first.
    pub changes: Vec<ChangeRow>,
}

/// What every page shares.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SiteMeta {
    /// The site's title.
    pub title: String,
    /// rigor's version.
    pub rigor_version: String,
    /// Web address of the repository; a version's commit links to `{repo_url}/commit/{id}`.
    pub repo_url: Option<String>,
}

/// One benchmark: its page and its series (one per machine and branch).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkView {
    /// Its name.
    pub name: String,
    /// Its group on the index (the name's prefix before the last `/`, or empty).
    pub group: String,
    /// Its page, relative to the site's root (`b/….html`).
    pub page: String,
    /// Its series, by machine then branch.
    pub series: Vec<SeriesView>,
    /// The metric this page draws (wall time unless `rigor track publish --metric` asked for
    /// others: each has a page of its own beside the wall-time page).
    #[serde(default, skip_serializing_if = "Metric::is_wall")]
    pub metric: Metric,
    /// The benchmark's pages, one per metric published, wall time first (empty when only wall
    /// time is: the page then links to none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<MetricLink>,
}

/// One metric's page of a benchmark, as the pages link to each other.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricLink {
    /// The metric.
    pub metric: Metric,
    /// Its page, relative to the site's root (`b/….html`).
    pub page: String,
}

/// One benchmark's history on one machine and branch.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesView {
    /// The machine.
    pub machine: String,
    /// The branch.
    pub branch: String,
    /// The quantity of its values (seconds unless the page draws another metric: bytes, a
    /// count, a program's unit), which decides the units the page shows them in.
    #[serde(default)]
    pub quantity: Quantity,
    /// Names of the measured levels, top level first (for the noise plot's legend).
    pub levels: Vec<String>,
    /// The versions this page shows (also those without this benchmark), in history order: every
    /// version of the series, or — when older ones are on archive pages — the newest ones.
    pub versions: Vec<VersionPoint>,
    /// Position in the whole history of `versions[0]` (0 when the page starts at the oldest).
    pub first: usize,
    /// The whole history in brief, when older versions are on archive pages.
    pub overview: Option<Overview>,
    /// The archive pages of older versions, oldest first.
    pub archives: Vec<ArchiveLink>,
    /// Detected changes, oldest first.
    pub changes: Vec<ChangeMark>,
    /// Student's t quantiles for the page's comparison of two versions; `None` when fewer than
    /// two versions can be compared.
    pub quantiles: Option<QuantileTable>,
    /// The comparison the page shows first (and the only one without scripts).
    pub comparison: Option<VersionComparison>,
}

/// A series' whole history in brief, drawn above the newest versions when older ones are on
/// archive pages: consecutive versions pooled into bins so that the drawing stays small however
/// long the history.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Overview {
    /// Versions in the whole history.
    pub versions: usize,
    /// Bins with at least one measured version, oldest first.
    pub bins: Vec<OverviewBin>,
    /// Whole-history positions of the changes' first versions, with their ratios.
    pub changes: Vec<(usize, f64)>,
    /// Each version's name at the axis' ticks, by whole-history position (a short commit id, or
    /// the version's name): see [`crate::dashboard::plots::short_name`].
    #[serde(default)]
    pub labels: Vec<String>,
    /// The quantity of the levels (seconds unless the page draws another metric).
    #[serde(default)]
    pub quantity: Quantity,
}

/// Consecutive versions pooled: the mean of their levels and the span of their intervals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct OverviewBin {
    /// Whole-history position of the bin's first version.
    pub first: usize,
    /// Position of its last version.
    pub last: usize,
    /// Mean of the measured versions' levels, in the quantity's base unit (seconds).
    pub mean: f64,
    /// Lowest lower bound of their intervals, in the same unit.
    pub lower: f64,
    /// Highest upper bound, in the same unit.
    pub upper: f64,
}

/// An archive page: a fixed run of older versions, written once and left alone after.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ArchiveLink {
    /// The page, relative to the site's root (`b/….html`).
    pub page: String,
    /// Whole-history position of its first version.
    pub first: usize,
    /// Position of its last version.
    pub last: usize,
}

/// Where an archive page sits among its series' pages (paths relative to the site's root).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ArchiveNav {
    /// The benchmark's main page (the newest versions).
    pub main: String,
    /// The archive page of the versions before, if any.
    pub previous: Option<String>,
    /// The archive page of the versions after, if they are archived too.
    pub next: Option<String>,
}

/// Two versions of a series compared: Fieller's ratio interval, in the words of `rigor compare`,
/// fed from the two versions' levels and their variances (`rigor_app::track::levels`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VersionComparison {
    /// Index of the baseline in [`SeriesView::versions`].
    pub baseline: usize,
    /// Index of the candidate.
    pub candidate: usize,
    /// Candidate level / baseline level.
    pub ratio: f64,
    /// The ratio's interval; `None` when Fieller's set is unbounded.
    pub interval: Option<(f64, f64)>,
    /// Fieller's g (the interval is bounded iff g < 1).
    pub g: f64,
    /// The interval's confidence level.
    pub level: f64,
    /// The practical threshold of the verdict (0.01: changes within ±1% are equivalent).
    pub threshold: f64,
    /// `regression`, `improvement`, `equivalent`, `inconclusive` or `unbounded`.
    pub verdict: String,
    /// Whether the interval lacks the spread between sessions (the history has not measured
    /// it).
    #[serde(default)]
    pub sessions_unknown: bool,
    /// Whether the two versions' levels are relative to different groups of sessions (no
    /// version ties them): their difference cannot be told from a session shift.
    #[serde(default)]
    pub confounded: bool,
}

/// Two-sided critical values of Student's t at one confidence level, on an even grid in 1/ν
/// (ν the degrees of freedom): `values[k]` is the quantile at ν = 1/(k·step), `values[0]` the
/// normal one (ν = ∞). The page interpolates linearly in 1/ν to evaluate Fieller's interval at
/// the Welch–Satterthwaite ν of the two versions it compares, as `rigor compare` does.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QuantileTable {
    /// The confidence level (0.95).
    pub level: f64,
    /// Grid step in 1/ν.
    pub step: f64,
    /// The quantiles, from 1/ν = 0 up to at least 1/ν of the smallest ν the series needs.
    pub values: Vec<f64>,
}

/// One version of a series.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VersionPoint {
    /// The version's name.
    pub rev: String,
    /// Its full commit id, when it is a commit.
    pub commit: Option<String>,
    /// The commit's subject.
    pub subject: Option<String>,
    /// Its time (RFC 3339).
    pub time: Option<String>,
    /// What was measured.
    pub state: PointState,
}

/// What a version holds for a benchmark.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PointState {
    /// Measured and analysed.
    Measured(Measured),
    /// Measured, but the run stored no analysis (too few samples).
    Unanalysed,
    /// The version failed to build or run.
    Failed,
    /// The version has runs, but none of this benchmark.
    #[default]
    Missing,
}

/// A measured version's level, as every `rigor track` command shows it: from all of its runs,
/// with the shifts of the sessions they were measured in taken out (`rigor_app::track::levels`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// The level (the runs' robust levels pooled, sessions' shifts taken out), in the
    /// quantity's base unit (seconds, bytes, a count).
    pub mean: f64,
    /// Lower bound of its interval, in the same unit.
    pub lower: f64,
    /// Upper bound, in the same unit.
    pub upper: f64,
    /// The interval's confidence level (0.95).
    pub level: f64,
    /// Each level's standard deviation as a percentage of the mean, top level first (levels
    /// without detectable variance are 0), from the version's latest run.
    pub noise: Vec<f64>,
    /// What a ratio interval between two versions needs (Fieller, fed from the levels): `None`
    /// without a variance of the level.
    pub ratio_input: Option<RatioInput>,
    /// Whether its build is byte-identical to the version before (one point with it: the same
    /// level, and no change can lie between them).
    #[serde(default)]
    pub identical: bool,
    /// Whether its interval lacks the spread between sessions because the history has not
    /// measured it (no version measured in two sessions).
    #[serde(default)]
    pub sessions_unknown: bool,
    /// The connected group of sessions its level is relative to: two versions of different
    /// groups cannot be compared without the spread between sessions.
    #[serde(default)]
    pub component: usize,
    /// Its runs, oldest first.
    #[serde(default)]
    pub runs: Vec<RunMark>,
}

/// One run of a version: the session it was measured in and what for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RunMark {
    /// The session's id.
    pub session: i64,
    /// `new`, `anchor` (measured again beside new versions, to tie sessions together) or
    /// `confirm` (measured again to confirm a change).
    pub role: String,
}

impl Measured {
    /// The session the version was measured in for its own sake (its first run not an anchor or
    /// a confirmation; else its first run): where the plot draws session boundaries.
    pub fn home_session(&self) -> Option<i64> {
        self.runs
            .iter()
            .find(|r| r.role == "new")
            .or(self.runs.first())
            .map(|r| r.session)
    }

    /// Whether one of its runs re-measured it as an anchor.
    pub fn anchored(&self) -> bool {
        self.runs.iter().any(|r| r.role == "anchor")
    }
}

/// A version's level as an input of Fieller's ratio interval: r = its degrees of freedom + 1 and
/// the variance of the level (the level itself is [`Measured::mean`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RatioInput {
    /// r: the level's degrees of freedom + 1.
    pub units: usize,
    /// Variance of the level, in the level's unit squared (seconds²).
    pub var_of_mean: f64,
    /// The step its times move in (a timer's resolution), in the unit of the mean, when the run
    /// reported one: a ratio with this mean is floored at the range its half step allows
    /// (`rigor_units::Resolution::floor_ratio`), as `rigor compare` floors it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<f64>,
}

/// A detected change.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChangeMark {
    /// The first version after the change.
    pub rev: String,
    /// Its full commit id, when known.
    pub commit: Option<String>,
    /// The last version before it.
    pub previous_rev: Option<String>,
    /// Its full commit id, when known.
    pub previous_commit: Option<String>,
    /// New level / old level.
    pub ratio: f64,
    /// The ratio's interval.
    pub interval: Option<(f64, f64)>,
    /// `regression` or `improvement`.
    pub verdict: String,
    /// How it was found.
    pub method: String,
    /// The user's status (`new`, `acknowledged`, `invalid`).
    pub status: String,
    /// Whether it cannot be told from a session boundary (its two sides were measured in
    /// sessions that share no version): drawn apart, never as a plain regression.
    #[serde(default)]
    pub confounded: bool,
    /// Whether both of its sides were measured again together and it held.
    #[serde(default)]
    pub confirmed: bool,
}

/// A change in the project-wide table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChangeRow {
    /// The benchmark.
    pub benchmark: String,
    /// The benchmark's page.
    pub page: String,
    /// The machine.
    pub machine: String,
    /// The branch.
    pub branch: String,
    /// The version's full commit id, when known.
    pub commit: Option<String>,
    /// The version's time, when known.
    pub time: Option<String>,
    /// The version's commit subject, when known.
    #[serde(default)]
    pub subject: Option<String>,
    /// The metric that changed (its page is [`ChangeRow::page`]).
    #[serde(default, skip_serializing_if = "Metric::is_wall")]
    pub metric: Metric,
    /// The change.
    pub change: ChangeMark,
}
