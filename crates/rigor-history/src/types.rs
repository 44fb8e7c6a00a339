//! The records a history stores and returns.

use std::fmt;
use std::str::FromStr;

use jiff::Timestamp;
use rigor_stats::compare::Verdict;
use rigor_store::{BenchmarkRecord, ComponentRecord, Environment, ResultFile};
use rigor_units::{ConfidenceLevel, Metric, Resolution, TimeUnit};
use serde::{Deserialize, Serialize};

use crate::error::HistoryError;

/// A newtype over a stored row's id, shown as the bare number (and serialised as one).
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}
pub(crate) use id_type;

/// An enum stored and shown by lower-case names: `as_str`, `Display`, `FromStr` (a name that is
/// none of them is [`$crate::HistoryError::BadName`]) and serde by the same names.
macro_rules! named_enum {
    ($(#[$doc:meta])* $name:ident, $what:literal { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $($(#[$vdoc])* $variant),+
        }

        impl $name {
            /// Its name, as stored and shown.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text),+
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::HistoryError;
            fn from_str(s: &str) -> ::std::result::Result<Self, $crate::HistoryError> {
                match s {
                    $($text => Ok(Self::$variant),)+
                    other => Err($crate::HistoryError::BadName {
                        what: $what,
                        value: other.to_string(),
                        expected: [$($text),+].join(", "),
                    }),
                }
            }
        }
    };
}
pub(crate) use named_enum;

id_type!(
    /// A stored run's id.
    RunId
);
id_type!(
    /// A stored change's id (what `rigor track status` takes).
    ChangeId
);
id_type!(
    /// A stored session's id.
    SessionId
);

/// A series: one machine's results on one branch. Only results of one series are compared with
/// each other.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SeriesKey {
    /// The machine's name.
    pub machine: String,
    /// The branch.
    pub branch: String,
}

impl SeriesKey {
    /// The series of `machine` on `branch`.
    pub fn new(machine: impl Into<String>, branch: impl Into<String>) -> Self {
        Self {
            machine: machine.into(),
            branch: branch.into(),
        }
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
    /// Commit time, or a given time.
    pub time: Option<Timestamp>,
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

/// The SHA-256 of what a version's build produced (the artifact measured), stored as 64
/// lower-case hexadecimal digits: two versions whose builds produced the same artifact measure
/// the same program.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArtifactHash(pub [u8; 32]);

impl ArtifactHash {
    /// The 64 hexadecimal digits.
    pub fn to_hex(&self) -> String {
        crate::rows::hex(&self.0)
    }
}

impl fmt::Display for ArtifactHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for ArtifactHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ArtifactHash({self})")
    }
}

impl FromStr for ArtifactHash {
    type Err = HistoryError;
    fn from_str(s: &str) -> Result<Self, HistoryError> {
        let bad = || HistoryError::BadName {
            what: "artifact hash",
            value: s.to_string(),
            expected: "64 hexadecimal digits".to_string(),
        };
        if s.len() != 64 || !s.is_ascii() {
            return Err(bad());
        }
        let mut bytes = [0u8; 32];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(Self(bytes))
    }
}

impl Serialize for ArtifactHash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for ArtifactHash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

named_enum!(
    /// What a run was measured for.
    #[derive(Default)]
    Role, "run role" {
        /// A version measured for its own sake (the default).
        #[default]
        New = "new",
        /// A version measured again beside new ones, to tie a session to the ones before.
        Anchor = "anchor",
        /// A version measured again to confirm a change.
        Confirm = "confirm",
    }
);

named_enum!(
    /// What a change rests on.
    #[derive(Default)]
    Evidence, "change evidence" {
        /// Detected over the series (the default).
        #[default]
        Detected = "detected",
        /// No session measured versions on both sides of it: it cannot be told from a shift
        /// between sessions, and is not reported as a regression or an improvement.
        Confounded = "confounded",
        /// Both sides measured again together, interleaved, until decided: the change holds.
        Confirmed = "confirmed",
        /// Both sides measured again together: the change does not hold (not reported; a later
        /// detection keeps it refuted).
        Refuted = "refuted",
    }
);

named_enum!(
    /// What a session did: the command that measured (or stored) its runs.
    SessionKind, "session kind" {
        /// `rigor track run`: versions measured together.
        Run = "run",
        /// `rigor track worker`: a farm's job.
        Worker = "worker",
        /// `rigor track bisect`.
        Bisect = "bisect",
        /// `rigor track add`: results measured elsewhere (and every run stored without a session).
        Add = "add",
        /// Versions measured again to confirm a change.
        Confirm = "confirm",
        /// `rigor track check`.
        Check = "check",
    }
);

/// A session to begin: one sitting of a machine in which runs are measured (a batch of versions,
/// a farm's job, a bisection), so that what varies between sittings can be told from what varies
/// between versions.
#[derive(Debug, Clone, Copy)]
pub struct NewSession<'a> {
    /// The machine it runs on.
    pub machine: &'a MachineInfo,
    /// What it does.
    pub kind: SessionKind,
    /// When it started.
    pub started: Timestamp,
    /// The machine's 1-minute load average as it started, when known.
    pub load_before: Option<f64>,
    /// The version of rigor that ran it.
    pub rigor_version: &'a str,
}

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SessionEnd {
    /// When.
    pub ended: Timestamp,
    /// The machine's 1-minute load average as it ended, when known.
    pub load_after: Option<f64>,
}

/// A stored session with its runs in one series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredSession {
    /// Its id.
    pub id: SessionId,
    /// The machine's name.
    pub machine: String,
    /// What it did.
    pub kind: SessionKind,
    /// When it started.
    pub started: Timestamp,
    /// When it ended (`None`: still running, or it was killed).
    pub ended: Option<Timestamp>,
    /// The 1-minute load average as it started.
    pub load_before: Option<f64>,
    /// The 1-minute load average as it ended.
    pub load_after: Option<f64>,
    /// The version of rigor that ran it.
    pub rigor_version: String,
    /// Its runs in the series asked for, oldest first.
    pub runs: Vec<RunId>,
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
    /// The session it was measured in; `None`: a session of its own (kind [`SessionKind::Add`],
    /// spanning the result's start and end) is made for it.
    pub session: Option<SessionId>,
    /// What the version's build produced, when known.
    pub artifact: Option<ArtifactHash>,
    /// What it was measured for.
    pub role: Role,
}

impl MeanSpread {
    /// What the top-level units of a benchmark's samples say of its mean and level (as the
    /// history stores it for each run's wall times): `None` with fewer than two top-level units.
    pub fn of(b: &BenchmarkRecord) -> Option<Self> {
        crate::rows::spread_of(b)
    }
}

impl<'a> Ingest<'a> {
    /// A result of a version measured for its own sake, in a session of its own, its artifact
    /// unknown.
    pub fn new(
        version: &'a VersionInfo,
        machine: &'a MachineInfo,
        branch: &'a str,
        result: &'a ResultFile,
    ) -> Self {
        Self {
            version,
            machine,
            branch,
            result,
            session: None,
            artifact: None,
            role: Role::New,
        }
    }
}

/// A version that could not be measured (its build failed, nothing ran), to record.
#[derive(Debug, Clone, Copy)]
pub struct Failure<'a> {
    /// The version.
    pub version: &'a VersionInfo,
    /// The machine.
    pub machine: &'a MachineInfo,
    /// The branch.
    pub branch: &'a str,
    /// Why, in words.
    pub reason: &'a str,
    /// The session it failed in; `None`: a session of its own (kind [`SessionKind::Add`]).
    pub session: Option<SessionId>,
}

impl<'a> Failure<'a> {
    /// A failure outside any session.
    pub fn new(
        version: &'a VersionInfo,
        machine: &'a MachineInfo,
        branch: &'a str,
        reason: &'a str,
    ) -> Self {
        Self {
            version,
            machine,
            branch,
            reason,
            session: None,
        }
    }
}

/// What [`crate::HistoryWrite::ingest`] did.
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

/// Where a stored run comes from: its id, session, artifact and role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RunInfo {
    /// The run.
    pub id: RunId,
    /// The session it was measured in.
    pub session: SessionId,
    /// What the version's build produced, when it was recorded.
    pub artifact: Option<ArtifactHash>,
    /// What it was measured for.
    pub role: Role,
}

/// One benchmark's data for one version.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionData {
    /// The version.
    pub version: VersionInfo,
    /// The runs it came from, oldest first.
    pub runs: Vec<RunInfo>,
    /// The benchmark's raw data, runs merged (each run's rounds and builds renumbered apart).
    pub benchmark: BenchmarkRecord,
}

/// One benchmark's raw data in one run (not merged with the version's other runs): what a
/// metric other than wall time is computed from, run by run, as the stored summaries are for
/// wall time.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// The version's name.
    pub rev: String,
    /// The run.
    pub run: RunInfo,
    /// The benchmark's samples and executions in that run (with every execution's CPU times,
    /// peak memory and reported metrics).
    pub benchmark: BenchmarkRecord,
}

/// One benchmark's CPU share in one stored run ([`crate::HistoryRead::cpu_shares`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RunCpuShare {
    /// The run.
    pub run: RunId,
    /// The benchmark.
    pub benchmark: String,
    /// The median share of its measured executions.
    pub share: rigor_store::CpuShare,
    /// What other processes used of the machine's CPUs over the run
    /// ([`rigor_store::Provenance::others_cpus`]); `None` where it was not measured.
    pub others_cpus: Option<f64>,
    /// The machine's logical CPUs.
    pub cpus: usize,
}

impl RunCpuShare {
    /// The shares of executions read as rows, in any order: one per run and benchmark that
    /// recorded a CPU time.
    pub(crate) fn of_rows(rows: Vec<ShareRow>) -> Vec<Self> {
        type Run = (Option<f64>, usize, Vec<(f64, f64, Option<f64>)>);
        let mut by: std::collections::BTreeMap<(i64, String), Run> =
            std::collections::BTreeMap::new();
        for r in rows {
            let cpus = usize::try_from(r.cpus).unwrap_or(1);
            by.entry((r.run, r.benchmark))
                .or_insert_with(|| (r.others_cpus, cpus, Vec::new()))
                .2
                .push((r.cpu, r.wall, r.run_delay));
        }
        by.into_iter()
            .filter_map(|((run, benchmark), (others_cpus, cpus, times))| {
                let queue = rigor_store::QueueShare::of_delays(times.iter().map(|t| (t.2, t.1)));
                let share = rigor_store::CpuShare::of_times(times.iter().map(|t| (t.0, t.1)))?;
                Some(Self {
                    run: RunId(run),
                    benchmark,
                    share: share.with_queue(queue),
                    others_cpus,
                    cpus,
                })
            })
            .collect()
    }
}

/// One measured execution as [`crate::HistoryRead::cpu_shares`] reads it.
pub(crate) struct ShareRow {
    pub run: i64,
    pub benchmark: String,
    /// User and system time, in seconds.
    pub cpu: f64,
    /// Wall time, in seconds.
    pub wall: f64,
    /// The run's [`RunCpuShare::others_cpus`].
    pub others_cpus: Option<f64>,
    /// The machine's logical CPUs.
    pub cpus: i64,
    /// Seconds the execution waited for a CPU ([`rigor_store::ExecutionRecord::run_delay`]).
    pub run_delay: Option<f64>,
}

/// What comparing a stored mean with another needs besides the mean (Fieller's inputs), from the
/// run's own samples: the top-level units' count r and the variance of the mean S²/r (S²: the
/// sample variance of the top-level unit means), in the square of the summary's unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanSpread {
    /// The top-level units r (at least 2).
    pub units: usize,
    /// S²/r.
    pub var_of_mean: f64,
    /// The run's level as change detection and the pages take it: Huber's M-estimate of the
    /// top-level unit means, efficient under ordinary noise and robust to an execution another
    /// process slowed down (runs stored without samples: the mean).
    pub level: f64,
    /// Its variance, the M-estimate's sandwich variance
    /// (`rigor_stats::series::VersionMean::huber`; runs stored without samples: S²/r).
    pub var_of_level: f64,
}

/// One benchmark's stored summary in one run, as analysed when the run was stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredSummary {
    /// The benchmark.
    pub benchmark: String,
    /// The version's name (see [`crate::HistoryRead::versions`] for its details and order).
    pub rev: String,
    /// The run.
    pub run: RunInfo,
    /// The unit of the run's values, and so of `mean`, `interval` and `spread` (seconds for
    /// everything rigor measures or imports; older result files may name another).
    pub unit: TimeUnit,
    /// Mean, in `unit`; `None` when the run stored no analysis (e.g. too few samples).
    pub mean: Option<f64>,
    /// The interval of the mean, in `unit`.
    pub interval: Option<(f64, f64)>,
    /// The interval's confidence level.
    pub level: Option<ConfidenceLevel>,
    /// The top-level count and the variance of the mean, computed from the run's samples when it
    /// was stored (and for runs stored before schema 3, when the history was upgraded); `None`
    /// with fewer than two top-level units.
    pub spread: Option<MeanSpread>,
    /// Variance components per level, top level first (empty without an analysis).
    pub components: Vec<ComponentRecord>,
    /// The step its times move in (the coarsest its measured executions reported): no interval
    /// of its mean or of a ratio with it is narrower than half a step allows
    /// ([`Resolution::floor`], [`Resolution::floor_ratio`]). `None` when none was reported,
    /// and for every run stored before the history kept it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
}

/// Every stored run's level of every benchmark of a series, as the versions' levels are
/// computed from them ([`crate::HistoryRead::levels`]): what [`StoredSummary`] carries for that,
/// without the analysis' interval and variance components (decoding those for every run was
/// most of the read), each name held once. Ordered by run (oldest first), as summaries are, and
/// within a run by benchmark name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoredLevels {
    /// The benchmarks, indexed by [`StoredLevel::benchmark`].
    pub benchmarks: Vec<String>,
    /// The versions' names, indexed by [`StoredLevel::version`].
    pub versions: Vec<String>,
    /// One per benchmark of each measured run.
    pub levels: Vec<StoredLevel>,
}

/// One benchmark's stored level in one run (see [`StoredLevels`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredLevel {
    /// The benchmark: its index in [`StoredLevels::benchmarks`].
    pub benchmark: usize,
    /// The version: its index in [`StoredLevels::versions`].
    pub version: usize,
    /// The run.
    pub run: RunInfo,
    /// The unit of `mean` and `spread`.
    pub unit: TimeUnit,
    /// As [`StoredSummary::mean`].
    pub mean: Option<f64>,
    /// As [`StoredSummary::spread`].
    pub spread: Option<MeanSpread>,
    /// As [`StoredSummary::resolution`].
    pub resolution: Option<Resolution>,
}

impl StoredLevels {
    /// The levels of `summaries` (in the order given), names held once.
    pub fn of_summaries(summaries: Vec<StoredSummary>) -> Self {
        let mut out = LevelsBuilder::default();
        for s in summaries {
            let (benchmark, version) = out.names(&s.benchmark, &s.rev);
            out.levels.levels.push(StoredLevel {
                benchmark,
                version,
                run: s.run,
                unit: s.unit,
                mean: s.mean,
                spread: s.spread,
                resolution: s.resolution,
            });
        }
        out.levels
    }
}

/// [`StoredLevels`] as they are read: each benchmark's and version's name indexed once, in the
/// order it first appears.
#[derive(Default)]
pub(crate) struct LevelsBuilder {
    /// The levels so far.
    pub(crate) levels: StoredLevels,
    benchmarks: std::collections::HashMap<String, usize>,
    versions: std::collections::HashMap<String, usize>,
}

impl LevelsBuilder {
    /// The indexes of `benchmark` and `rev` ([`StoredLevel::benchmark`],
    /// [`StoredLevel::version`]), each added on first sight.
    pub(crate) fn names(&mut self, benchmark: &str, rev: &str) -> (usize, usize) {
        let index = |map: &mut std::collections::HashMap<String, usize>,
                     names: &mut Vec<String>,
                     name: &str| {
            if let Some(&i) = map.get(name) {
                return i;
            }
            names.push(name.to_string());
            map.insert(name.to_string(), names.len() - 1);
            names.len() - 1
        };
        (
            index(&mut self.benchmarks, &mut self.levels.benchmarks, benchmark),
            index(&mut self.versions, &mut self.levels.versions, rev),
        )
    }
}

named_enum!(
    /// The status of a detected change, set by a user.
    ChangeStatus, "change status" {
        /// Not looked at yet.
        New = "new",
        /// A real change someone has seen.
        Acknowledged = "acknowledged",
        /// Not a real change (noise, an environment change).
        Invalid = "invalid",
    }
);

named_enum!(
    /// The direction of a detected change: the verdicts of [`Verdict`] that report a change.
    ChangeVerdict, "change verdict" {
        /// Slower by more than the threshold.
        Regression = "regression",
        /// Faster by more than the threshold.
        Improvement = "improvement",
    }
);

impl ChangeVerdict {
    /// The change a comparison's verdict reports; `None` for the verdicts that report none.
    pub fn of(verdict: Verdict) -> Option<Self> {
        match verdict {
            Verdict::Regression => Some(Self::Regression),
            Verdict::Improvement => Some(Self::Improvement),
            Verdict::Equivalent | Verdict::Inconclusive | Verdict::Unbounded => None,
        }
    }
}

impl From<ChangeVerdict> for Verdict {
    fn from(v: ChangeVerdict) -> Self {
        match v {
            ChangeVerdict::Regression => Verdict::Regression,
            ChangeVerdict::Improvement => Verdict::Improvement,
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
    /// Regression or improvement.
    pub verdict: ChangeVerdict,
    /// How it was found.
    pub method: String,
    /// What it rests on.
    #[serde(default)]
    pub evidence: Evidence,
}

/// The changes detected over one benchmark of a series in one metric, to save
/// ([`History::save_metric_changes`](crate::History::save_metric_changes)).
#[derive(Debug, Clone, Copy)]
pub struct DetectedChanges<'a> {
    /// The series.
    pub series: &'a SeriesKey,
    /// The benchmark.
    pub benchmark: &'a str,
    /// The metric.
    pub metric: &'a Metric,
    /// The changes found (none: every stored change of the three is no longer current).
    pub changes: &'a [NewChange],
}

/// A stored change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredChange {
    /// Its id (for `rigor track status`).
    pub id: ChangeId,
    /// The benchmark.
    pub benchmark: String,
    /// The metric it is a change of (wall time for every change stored before schema 5).
    #[serde(default)]
    pub metric: Metric,
    /// The machine and branch.
    #[serde(flatten)]
    pub series: SeriesKey,
    /// What was detected.
    #[serde(flatten)]
    pub change: NewChange,
    /// The user's status.
    pub status: ChangeStatus,
    /// Whether the latest detection still finds it.
    pub current: bool,
    /// When it was first detected.
    pub detected_at: Timestamp,
    /// The time of its version (commit time, or a time given with a label), when known.
    pub version_time: Option<Timestamp>,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_hashes_are_64_hexadecimal_digits_both_ways() {
        let hex = format!("{}{}", "0f".repeat(16), "A0".repeat(16));
        let a: ArtifactHash = hex.parse().unwrap();
        assert_eq!(a.to_string(), hex.to_lowercase());
        assert_eq!(serde_json::to_string(&a).unwrap(), format!("\"{a}\""));
        for bad in ["", "0f", &"g0".repeat(32), &"é".repeat(32)] {
            assert!(bad.parse::<ArtifactHash>().is_err(), "{bad}");
        }
    }

    #[test]
    fn names_round_trip_and_say_what_they_could_be() {
        for k in ["run", "worker", "bisect", "add", "confirm", "check"] {
            assert_eq!(k.parse::<SessionKind>().unwrap().as_str(), k);
        }
        let e = "maybe".parse::<ChangeStatus>().unwrap_err().to_string();
        assert_eq!(
            e,
            "'maybe' is not a change status (new, acknowledged, invalid)"
        );
        assert_eq!(Role::default(), Role::New);
        assert_eq!(serde_json::to_string(&Role::Anchor).unwrap(), "\"anchor\"");
        assert_eq!(
            ChangeVerdict::of(Verdict::Improvement),
            Some(ChangeVerdict::Improvement)
        );
        assert_eq!(ChangeVerdict::of(Verdict::Inconclusive), None);
        assert_eq!(
            Verdict::from(ChangeVerdict::Regression).to_string(),
            ChangeVerdict::Regression.to_string()
        );
    }
}
