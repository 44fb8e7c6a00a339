//! The dashboard's view model: what `rigor-app` builds from a history and the pages draw.
//!
//! Every number arrives computed (means, intervals, change ratios, noise per level); the pages
//! only place them. All of it serialises, so a page's input can be hashed to know whether the
//! page must be written again.

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
}

/// One benchmark's history on one machine and branch.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesView {
    /// The machine.
    pub machine: String,
    /// The branch.
    pub branch: String,
    /// Names of the measured levels, top level first (for the noise plot's legend).
    pub levels: Vec<String>,
    /// Every version of the series (also those without this benchmark), in history order.
    pub versions: Vec<VersionPoint>,
    /// Detected changes, oldest first.
    pub changes: Vec<ChangeMark>,
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

/// A measured version's estimate.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Mean, seconds.
    pub mean: f64,
    /// Lower bound of its interval, seconds.
    pub lower: f64,
    /// Upper bound, seconds.
    pub upper: f64,
    /// The interval's confidence level (0.95).
    pub level: f64,
    /// Each level's standard deviation as a percentage of the mean, top level first (levels
    /// without detectable variance are 0).
    pub noise: Vec<f64>,
}

/// A detected change.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChangeMark {
    /// The first version after the change.
    pub rev: String,
    /// The last version before it.
    pub previous_rev: Option<String>,
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
    /// The change.
    pub change: ChangeMark,
}
