//! The records a history stores and returns.

use std::fmt;
use std::str::FromStr;

use rigor_store::{BenchmarkRecord, ComponentRecord, Environment, ResultFile};
use rigor_units::Resolution;
use serde::{Deserialize, Serialize};

use crate::error::HistoryError;

/// A stored run's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RunId(pub i64);

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A stored run's identity: its id and the content hash that made ingesting it idempotent.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RunStamp {
    /// The run's id.
    pub id: RunId,
    /// Its content hash.
    pub fingerprint: String,
}

/// A version: a commit with its graph facts, or a label.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct VersionInfo {
    /// How the user names it: a commit id, or a label such as `gcc-14` or `v1.2`.
    pub rev: String,
    /// The full commit id, when it is a commit.
    pub commit: Option<String>,
    /// Parent commit ids, first parent first.
    pub parents: Vec<String>,
    /// Author name.
    pub author: Option<String>,
    /// Commit time (RFC 3339) or a given time.
    pub time: Option<String>,
    /// First line of the commit message.
    pub subject: Option<String>,
    /// Position in the history: the first-parent generation of a commit, or an order key the
    /// user gave. Versions without one are ordered by time, then by when first stored.
    pub order: Option<i64>,
}

/// A machine: the name the user gave it and what rigor detected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineInfo {
    /// The name (`--machine`, else the host name).
    pub name: String,
    /// What rigor detected.
    pub environment: Environment,
}

/// A result to store.
#[derive(Debug, Clone, Copy)]
pub struct Ingest<'a> {
    /// Its version.
    pub version: &'a VersionInfo,
    /// Its machine.
    pub machine: &'a MachineInfo,
    /// Its branch.
    pub branch: &'a str,
    /// The result (raw samples; summaries are taken from its analyses when present).
    pub result: &'a ResultFile,
}

/// What [`crate::History::ingest`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ingested {
    /// Stored as a new run.
    Added(RunId),
    /// The same result was already stored.
    AlreadyStored(RunId),
}

impl Ingested {
    /// The run's id either way.
    pub fn id(self) -> RunId {
        match self {
            Self::Added(id) | Self::AlreadyStored(id) => id,
        }
    }
}

/// A version with runs, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredVersion {
    /// The version.
    pub version: VersionInfo,
    /// Its runs on this machine and branch.
    pub runs: usize,
    /// Runs that failed (nothing measured).
    pub failed: usize,
}

/// One benchmark's data for one version.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionData {
    /// The version.
    pub version: VersionInfo,
    /// The runs it came from.
    pub runs: Vec<RunId>,
    /// The benchmark's raw data, runs merged (each run's rounds and builds renumbered apart).
    pub benchmark: BenchmarkRecord,
}

/// One benchmark's stored summary in one run, as analysed when the run was stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredSummary {
    /// The benchmark.
    pub benchmark: String,
    /// The version's name (see [`crate::History::versions`] for its details and order).
    pub rev: String,
    /// The run.
    pub run: RunId,
    /// The unit of the run's values, and so of `mean` and `interval` (seconds for everything
    /// rigor measures or imports; older result files may name another).
    pub unit: String,
    /// Mean, in `unit`; `None` when the run stored no analysis (e.g. too few samples).
    pub mean: Option<f64>,
    /// The interval of the mean, in `unit`.
    pub interval: Option<(f64, f64)>,
    /// The interval's confidence level.
    pub level: Option<f64>,
    /// Variance components per level, top level first (empty without an analysis).
    pub components: Vec<ComponentRecord>,
    /// The step its times move in (the coarsest its measured executions reported): no interval
    /// of its mean or of a ratio with it is narrower than half a step allows
    /// ([`Resolution::floor`], [`Resolution::floor_ratio`]). `None` when none was reported,
    /// and for every run stored before the history kept it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
}

/// The status of a detected change, set by a user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeStatus {
    /// Not looked at yet.
    New,
    /// A real change someone has seen.
    Acknowledged,
    /// Not a real change (noise, an environment change).
    Invalid,
}

impl ChangeStatus {
    /// `new`, `acknowledged`, `invalid`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::New => "new",
            Self::Acknowledged => "acknowledged",
            Self::Invalid => "invalid",
        }
    }
}

impl fmt::Display for ChangeStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ChangeStatus {
    type Err = HistoryError;
    fn from_str(s: &str) -> Result<Self, HistoryError> {
        match s {
            "new" => Ok(Self::New),
            "acknowledged" => Ok(Self::Acknowledged),
            "invalid" => Ok(Self::Invalid),
            other => Err(HistoryError::BadStatus(other.to_string())),
        }
    }
}

/// A change to store: at a version, against the version before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewChange {
    /// The first version after the change.
    pub rev: String,
    /// The last version before it.
    pub previous_rev: Option<String>,
    /// New level / old level.
    pub ratio: f64,
    /// The interval of the ratio.
    pub interval: Option<(f64, f64)>,
    /// p-value of equal levels.
    pub p_value: f64,
    /// Benjamini–Hochberg adjusted p-value across the benchmarks.
    pub q_value: Option<f64>,
    /// `regression` or `improvement`.
    pub verdict: String,
    /// How it was found.
    pub method: String,
}

/// A stored change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredChange {
    /// Its id (for `rigor track status`).
    pub id: i64,
    /// The benchmark.
    pub benchmark: String,
    /// The machine.
    pub machine: String,
    /// The branch.
    pub branch: String,
    /// What was detected.
    #[serde(flatten)]
    pub change: NewChange,
    /// The user's status.
    pub status: ChangeStatus,
    /// Whether the latest detection still finds it.
    pub current: bool,
    /// When it was first detected.
    pub detected_at: String,
    /// The time of its version (commit time, or a time given with a label), when known.
    pub version_time: Option<String>,
}

/// Which changes to list.
#[derive(Debug, Clone, Default)]
pub struct ChangeFilter {
    /// Only this benchmark.
    pub benchmark: Option<String>,
    /// Only this machine.
    pub machine: Option<String>,
    /// Only this branch.
    pub branch: Option<String>,
    /// Include changes the latest detection no longer finds.
    pub include_stale: bool,
}
