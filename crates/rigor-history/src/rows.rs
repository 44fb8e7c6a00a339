//! What both backends store and read back, without their SQL: the values a run, a benchmark of a
//! run, a session and a change are written as, and the rows they read decoded into the public
//! types. A backend fills these from its own rows; everything that is not a statement is here
//! once.

use jiff::Timestamp;
use rigor_stats::fieller::MeanEstimate;
use rigor_store::{BenchmarkRecord, ExecutionRecord, RunStatus, SampleRecord};
use rigor_units::Seconds;
use sha2::{Digest, Sha256};

use crate::error::{HistoryError, Result};
use crate::merge::resolution_of;
use crate::types::{
    ArtifactHash, ChangeId, Failure, Ingest, MeanSpread, NewChange, NewSession, RunId, RunInfo,
    SeriesKey, SessionId, SessionKind, StoredChange, StoredLevel, StoredSession, StoredSummary,
    StoredVersion, VersionInfo,
};

/// A row a backend read: its columns by position. The row types below read themselves from one
/// (each documents its columns, which each backend's statement selects in that order), so that a
/// backend holds statements only.
pub(crate) trait Cells {
    /// The backend's error.
    type Error;
    fn text(&self, i: usize) -> Result<String, Self::Error>;
    fn maybe_text(&self, i: usize) -> Result<Option<String>, Self::Error>;
    fn int(&self, i: usize) -> Result<i64, Self::Error>;
    fn maybe_int(&self, i: usize) -> Result<Option<i64>, Self::Error>;
    fn real(&self, i: usize) -> Result<f64, Self::Error>;
    fn maybe_real(&self, i: usize) -> Result<Option<f64>, Self::Error>;
    fn flag(&self, i: usize) -> Result<bool, Self::Error>;
}

/// Implements [`Cells`] for a backend's row type `$row`, whose typed getter `$get` reads every
/// column (with the backend's error `$error`).
macro_rules! impl_cells {
    ($row:ty, $error:ty, $get:ident) => {
        impl crate::rows::Cells for $row {
            type Error = $error;
            fn text(&self, i: usize) -> Result<String, $error> {
                self.$get(i)
            }
            fn maybe_text(&self, i: usize) -> Result<Option<String>, $error> {
                self.$get(i)
            }
            fn int(&self, i: usize) -> Result<i64, $error> {
                self.$get(i)
            }
            fn maybe_int(&self, i: usize) -> Result<Option<i64>, $error> {
                self.$get(i)
            }
            fn real(&self, i: usize) -> Result<f64, $error> {
                self.$get(i)
            }
            fn maybe_real(&self, i: usize) -> Result<Option<f64>, $error> {
                self.$get(i)
            }
            fn flag(&self, i: usize) -> Result<bool, $error> {
                self.$get(i)
            }
        }
    };
}
pub(crate) use impl_cells;

/// A `samples` row read as `run_id, benchmark_id, build, round, execution, iteration, value,
/// warmup`.
pub(crate) fn sample_of<R: Cells>(r: &R) -> Result<(i64, i64, SampleRecord), R::Error> {
    Ok((
        r.int(0)?,
        r.int(1)?,
        SampleRecord {
            build: r.maybe_int(2)?.map(|x| x as usize),
            round: r.int(3)? as usize,
            execution: r.int(4)? as usize,
            iteration: r.int(5)? as usize,
            value: r.real(6)?,
            warmup: r.flag(7)?,
        },
    ))
}

/// An `executions` row read as `run_id, build, round, execution, warmup, wall, user_time,
/// sys_time, max_rss, resolution, run_delay`, its resolution still undecoded.
pub(crate) fn execution_of<R: Cells>(
    r: &R,
) -> Result<(i64, ExecutionRecord, Option<f64>), R::Error> {
    Ok((
        r.int(0)?,
        ExecutionRecord {
            preempted: None,
            run_delay: r.maybe_real(10)?.map(Seconds),
            metrics: Default::default(),
            build: r.maybe_int(1)?.map(|x| x as usize),
            round: r.int(2)? as usize,
            execution: r.int(3)? as usize,
            warmup: r.flag(4)?,
            wall: Seconds(r.real(5)?),
            user: Seconds(r.real(6)?),
            sys: Seconds(r.real(7)?),
            max_rss: r.int(8)? as u64,
            exit_code: None,
            env_pad: None,
            resolution: None,
        },
        r.maybe_real(9)?,
    ))
}

/// An `execution_metrics` row read as `run_id, pos, name, unit, metric_values`, undecoded.
pub(crate) struct ExecutionMetricRow {
    pub run: i64,
    pub pos: i64,
    pub name: String,
    pub unit: String,
    pub values: String,
}

impl ExecutionMetricRow {
    pub fn read<R: Cells>(r: &R) -> Result<Self, R::Error> {
        Ok(Self {
            run: r.int(0)?,
            pos: r.int(1)?,
            name: r.text(2)?,
            unit: r.text(3)?,
            values: r.maybe_text(4)?.unwrap_or_default(),
        })
    }

    /// Puts the metric on its execution (the `pos`-th of its run's, from 0) in `data`.
    pub fn attach(
        self,
        data: &mut std::collections::HashMap<i64, crate::merge::RunData>,
        damaged: Damage<'_>,
    ) -> Result<()> {
        let values: Vec<f64> = serde_json::from_str(&self.values)
            .map_err(|e| damaged("metric values", format!("'{}': {e}", self.values)))?;
        let execution = data
            .get_mut(&self.run)
            .and_then(|d| d.executions.get_mut(usize::try_from(self.pos).ok()?))
            .ok_or_else(|| {
                damaged(
                    "execution metrics",
                    format!("run {} has no execution {}", self.run, self.pos),
                )
            })?;
        execution.metrics.insert(
            self.name,
            rigor_units::MetricValues {
                unit: rigor_units::Quantity::of_unit(&self.unit).0,
                values,
            },
        );
        Ok(())
    }
}

/// The rows of `execution_metrics` a benchmark's executions make: position (from 0), name,
/// unit (the quantity's base unit) and values (a JSON array).
pub(crate) fn execution_metric_values(b: &BenchmarkRecord) -> Vec<(i64, &str, &str, String)> {
    b.executions
        .iter()
        .enumerate()
        .flat_map(|(pos, e)| {
            e.metrics.iter().map(move |(name, v)| {
                (
                    pos as i64,
                    name.as_str(),
                    v.unit.base_unit(),
                    json(&v.values),
                )
            })
        })
        .collect()
}

/// How a backend reports a stored value it cannot decode: `damaged(what, message)` makes its
/// error, which names its database.
pub(crate) type Damage<'a> = &'a dyn Fn(&'static str, String) -> HistoryError;

/// A row a backend read, undecoded: the public type it stands for, or damage.
pub(crate) trait Decode {
    /// What it decodes to.
    type Decoded;
    /// Decodes the row's columns; `damaged(what, message)` makes the backend's error (which
    /// names its database).
    fn decode(self, damaged: Damage<'_>) -> Result<Self::Decoded>;
}

/// Lower-case hexadecimal digits of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A time as stored: RFC 3339 in UTC (so that stored times sort as text in time order).
pub(crate) fn time_text(t: Timestamp) -> String {
    t.to_string()
}

/// Now, as stored.
pub(crate) fn now() -> String {
    time_text(Timestamp::now())
}

/// A stored time (any RFC 3339 offset; older histories kept git's) as a timestamp.
pub(crate) fn time_of(
    text: Option<String>,
    what: &'static str,
    damaged: Damage<'_>,
) -> Result<Option<Timestamp>> {
    text.map(|t| t.parse().map_err(|e| damaged(what, format!("'{t}': {e}"))))
        .transpose()
}

/// A stored time that is never missing.
pub(crate) fn required_time(
    text: String,
    what: &'static str,
    damaged: Damage<'_>,
) -> Result<Timestamp> {
    time_of(Some(text), what, damaged)?.ok_or_else(|| damaged(what, "missing".into()))
}

/// A value as stored JSON text (plain data: serialising cannot fail).
pub(crate) fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A stored name (status, kind, role, verdict) decoded, or damage.
fn parsed<T: std::str::FromStr<Err = HistoryError>>(
    text: &str,
    what: &'static str,
    damaged: Damage<'_>,
) -> Result<T> {
    text.parse()
        .map_err(|e: HistoryError| damaged(what, e.to_string()))
}

/// The hashes that make ingesting idempotent.
pub(crate) struct Fingerprints {
    /// Of the result's content and where it is stored (version, machine, branch): the same
    /// file added for a second machine or branch is a run of its own.
    pub current: String,
    /// Of the content alone, which runs stored by earlier rigor versions carry: such a run
    /// with the same version, machine and branch is the same run.
    pub legacy: String,
}

/// The fingerprints of a result to ingest.
pub(crate) fn fingerprints(run: &Ingest<'_>) -> Fingerprints {
    let mut h = Sha256::new();
    // Serialising a result cannot fail (plain data); an empty hash input would still be unique
    // per content of what did serialise.
    h.update(serde_json::to_vec(run.result).unwrap_or_default());
    let legacy = hex(&h.finalize());
    let mut h = Sha256::new();
    h.update(format!(
        "{legacy}\0{}\0{}\0{}",
        run.version.rev, run.machine.name, run.branch
    ));
    Fingerprints {
        current: hex(&h.finalize()),
        legacy,
    }
}

/// The content hash of a failure record (the same failure twice is stored once).
pub(crate) fn failure_fingerprint(f: &Failure<'_>) -> String {
    let mut h = Sha256::new();
    h.update(format!(
        "failed\0{}\0{}\0{}\0{}",
        f.version.rev, f.machine.name, f.branch, f.reason
    ));
    hex(&h.finalize())
}

fn status_text(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Complete => "complete",
        RunStatus::Interrupted => "interrupted",
        RunStatus::Running => "running",
    }
}

/// The columns of a run row, besides its version, machine and session.
pub(crate) struct RunValues {
    pub fingerprint: String,
    pub status: &'static str,
    pub seed: String,
    pub started: Option<String>,
    pub ended: Option<String>,
    pub rigor_version: String,
    pub settings: Option<String>,
    pub artifact: Option<String>,
    pub role: &'static str,
    pub ingested_at: String,
    pub others_cpus: Option<f64>,
}

impl RunValues {
    /// A result's run, under its fingerprint.
    pub fn of(run: &Ingest<'_>, fingerprint: &str) -> Self {
        let r = run.result;
        Self {
            fingerprint: fingerprint.to_string(),
            status: status_text(r.status),
            seed: r.seed.to_string(),
            started: r.provenance.started.map(time_text),
            ended: r.provenance.ended.map(time_text),
            rigor_version: r.rigor_version.clone(),
            settings: r.settings.as_ref().map(json),
            artifact: run.artifact.map(|a| a.to_hex()),
            role: run.role.as_str(),
            ingested_at: now(),
            others_cpus: r.provenance.others_cpus.filter(|o| o.is_finite()),
        }
    }
}

/// The columns of a session row, besides its machine.
pub(crate) struct SessionValues {
    pub kind: &'static str,
    pub started: String,
    pub ended: Option<String>,
    pub load_before: Option<f64>,
    pub load_after: Option<f64>,
    pub rigor_version: String,
}

impl SessionValues {
    /// A session begun by a writer.
    pub fn of(s: &NewSession<'_>) -> Self {
        Self {
            kind: s.kind.as_str(),
            started: time_text(s.started),
            ended: None,
            load_before: s.load_before,
            load_after: None,
            rigor_version: s.rigor_version.to_string(),
        }
    }

    /// The session of its own a result stored without one gets: kind `add`, from the result's
    /// start to its end, under the loads it recorded then (when it records them; else now, and
    /// no load).
    pub fn own(run: &Ingest<'_>) -> Self {
        let p = &run.result.provenance;
        let now = Timestamp::now();
        Self {
            kind: SessionKind::Add.as_str(),
            started: time_text(p.started.unwrap_or(now)),
            ended: Some(time_text(p.ended.unwrap_or(now))),
            load_before: p.load_before,
            load_after: p.load_after,
            rigor_version: run.result.rigor_version.clone(),
        }
    }

    /// The session of its own a failure recorded without one gets: kind `add`, now.
    pub fn own_failure() -> Self {
        let now = now();
        Self {
            kind: SessionKind::Add.as_str(),
            started: now.clone(),
            ended: Some(now),
            load_before: None,
            load_after: None,
            rigor_version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

/// Checks that a run of `machine` (`machine_id`) may be stored into session `id`, whose machine
/// the database says is `found` (`None`: no such session).
pub(crate) fn check_session(
    id: SessionId,
    found: Option<i64>,
    machine_id: i64,
    machine: &str,
) -> Result<()> {
    match found {
        None => Err(HistoryError::NoSuchSession(id)),
        Some(m) if m != machine_id => Err(HistoryError::SessionOnOtherMachine {
            session: id,
            machine: machine.to_string(),
        }),
        Some(_) => Ok(()),
    }
}

/// What the top-level units of a benchmark's samples say of its mean: r and S²/r (`None` with
/// fewer than two top-level units).
pub(crate) fn spread_of(b: &BenchmarkRecord) -> Option<MeanSpread> {
    let h = b.hierarchy().ok()?;
    let e = MeanEstimate::from_hierarchy(&h).ok()?;
    let robust = rigor_stats::series::VersionMean::huber(&h).ok()?;
    Some(MeanSpread {
        units: e.n,
        var_of_mean: e.var_of_mean(),
        level: robust.mean,
        var_of_level: robust.variance,
    })
}

/// The columns of a benchmark of a run (its summary), besides the run and benchmark ids.
pub(crate) struct BenchmarkValues<'a> {
    pub command: &'a str,
    pub levels: String,
    pub level_names: Option<String>,
    pub unit: String,
    pub mean: Option<f64>,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    pub level: Option<f64>,
    pub var_of_mean: Option<f64>,
    pub units: Option<i64>,
    pub robust: Option<f64>,
    pub var_of_robust: Option<f64>,
    pub components: Option<String>,
    pub failures: String,
    pub resolution: Option<f64>,
}

impl<'a> BenchmarkValues<'a> {
    /// The summary of `b`: its analysis' mean, interval and components when it has one, and the
    /// spread of its mean from its samples.
    pub fn of(b: &'a BenchmarkRecord) -> Self {
        let a = b.analysis.as_ref();
        let spread = spread_of(b);
        Self {
            command: &b.command,
            levels: json(&b.layout),
            level_names: b.level_names.as_ref().map(json),
            unit: b.unit.to_string(),
            mean: a.map(|a| a.mean),
            lower: a.map(|a| a.ci.lower),
            upper: a.map(|a| a.ci.upper),
            level: a.map(|a| a.ci.level.get()),
            var_of_mean: spread.map(|s| s.var_of_mean),
            units: spread.map(|s| s.units as i64),
            robust: spread.map(|s| s.level),
            var_of_robust: spread.map(|s| s.var_of_level),
            components: a.map(|a| json(&a.variance_components)),
            failures: json(&b.failures),
            resolution: b.resolution().map(|r| r.step().get()),
        }
    }
}

/// The columns of a change row, besides its benchmark, machine and versions.
pub(crate) struct ChangeValues<'a> {
    pub change: &'a NewChange,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    pub verdict: &'static str,
    pub evidence: &'static str,
    pub detected_at: String,
}

impl<'a> ChangeValues<'a> {
    /// A change detected now.
    pub fn of(change: &'a NewChange) -> Self {
        Self {
            change,
            lower: change.interval.map(|i| i.0),
            upper: change.interval.map(|i| i.1),
            verdict: change.verdict.as_str(),
            evidence: change.evidence.as_str(),
            detected_at: now(),
        }
    }
}

/// The version columns [`VersionRow::read`] reads, from `versions v`.
pub(crate) const VERSION_COLUMNS: &str =
    "v.rev, v.commit_id, v.parents, v.author, v.commit_time, v.subject, v.order_key";

/// A version row (the columns [`VERSION_COLUMNS`] lists), undecoded.
pub(crate) struct VersionRow {
    pub rev: String,
    pub commit: Option<String>,
    pub parents: Option<String>,
    pub author: Option<String>,
    pub time: Option<String>,
    pub subject: Option<String>,
    pub order: Option<i64>,
}

impl VersionRow {
    /// Reads `rev, commit_id, parents, author, commit_time, subject, order_key` from column
    /// `at` on.
    pub fn read<R: Cells>(r: &R, at: usize) -> Result<Self, R::Error> {
        Ok(Self {
            rev: r.text(at)?,
            commit: r.maybe_text(at + 1)?,
            parents: r.maybe_text(at + 2)?,
            author: r.maybe_text(at + 3)?,
            time: r.maybe_text(at + 4)?,
            subject: r.maybe_text(at + 5)?,
            order: r.maybe_int(at + 6)?,
        })
    }

    pub fn decode(self, damaged: Damage<'_>) -> Result<VersionInfo> {
        Ok(VersionInfo {
            rev: self.rev,
            commit: self.commit,
            parents: self
                .parents
                .map(|p| p.split_whitespace().map(str::to_string).collect())
                .unwrap_or_default(),
            author: self.author,
            time: time_of(self.time, "commit time", damaged)?,
            subject: self.subject,
            order: self.order,
        })
    }
}

/// A version with its runs in a series: the version's columns ([`VersionRow::read`]), then how
/// many runs and how many failed runs, undecoded.
pub(crate) struct StoredVersionRow {
    version: VersionRow,
    runs: i64,
    failed: i64,
}

impl StoredVersionRow {
    pub fn read<R: Cells>(r: &R) -> Result<Self, R::Error> {
        Ok(Self {
            version: VersionRow::read(r, 0)?,
            runs: r.int(7)?,
            failed: r.int(8)?,
        })
    }
}

impl Decode for StoredVersionRow {
    type Decoded = StoredVersion;

    fn decode(self, damaged: Damage<'_>) -> Result<StoredVersion> {
        Ok(StoredVersion {
            version: self.version.decode(damaged)?,
            runs: self.runs as usize,
            failed: self.failed as usize,
        })
    }
}

/// The columns of a version that are not stored as they are.
pub(crate) struct VersionValues {
    pub parents: Option<String>,
    pub time: Option<String>,
}

impl VersionValues {
    pub fn of(version: &VersionInfo) -> Self {
        Self {
            parents: (!version.parents.is_empty()).then(|| version.parents.join(" ")),
            time: version.time.map(time_text),
        }
    }
}

/// The run columns [`RunInfoRow::read`] reads, from `runs r`.
pub(crate) const RUN_INFO_COLUMNS: &str = "r.id, r.session_id, r.artifact, r.role";

/// A run's origin as stored (the columns [`RUN_INFO_COLUMNS`] lists), undecoded.
pub(crate) struct RunInfoRow {
    pub id: i64,
    pub session: i64,
    pub artifact: Option<String>,
    pub role: String,
}

impl RunInfoRow {
    /// Reads `runs.id, session_id, artifact, role` from column `at` on.
    pub fn read<R: Cells>(r: &R, at: usize) -> Result<Self, R::Error> {
        Ok(Self {
            id: r.int(at)?,
            session: r.int(at + 1)?,
            artifact: r.maybe_text(at + 2)?,
            role: r.text(at + 3)?,
        })
    }

    pub fn decode(self, damaged: Damage<'_>) -> Result<RunInfo> {
        run_info(
            (self.id, self.session),
            self.artifact.as_deref(),
            &self.role,
            damaged,
        )
    }
}

/// A run's origin from its columns `(id, session_id)`, `artifact` and `role`.
pub(crate) fn run_info(
    (id, session): (i64, i64),
    artifact: Option<&str>,
    role: &str,
    damaged: Damage<'_>,
) -> Result<RunInfo> {
    Ok(RunInfo {
        id: RunId(id),
        session: SessionId(session),
        artifact: artifact
            .map(|a| parsed::<ArtifactHash>(a, "artifact", damaged))
            .transpose()?,
        role: parsed(role, "run role", damaged)?,
    })
}

/// The spread of a stored summary from its columns `units`, `var_of_mean`, `level` (`robust`)
/// and `var_of_level` (`var_of_robust`), with its `mean` for runs stored without a level.
pub(crate) fn stored_spread(
    (units, var_of_mean): (Option<i64>, Option<f64>),
    (robust, var_of_robust): (Option<f64>, Option<f64>),
    mean: Option<f64>,
    damaged: Damage<'_>,
) -> Result<Option<MeanSpread>> {
    let (Some(units), Some(var_of_mean)) = (units, var_of_mean) else {
        return Ok(None);
    };
    Ok(Some(MeanSpread {
        units: usize::try_from(units).map_err(|e| damaged("top-level count", e.to_string()))?,
        var_of_mean,
        level: robust.or(mean).unwrap_or(f64::NAN),
        var_of_level: var_of_robust.unwrap_or(var_of_mean),
    }))
}

/// A stored summary's columns that [`StoredLevel`] needs, borrowed from a backend's row (no
/// `String` per row): `run` is `(id, session_id)`, then `artifact`, `role`, `unit`, `mean`,
/// `(units, var_of_mean)`, `(level, var_of_level)` and `resolution`.
pub(crate) struct LevelCells<'r> {
    pub run: (i64, i64),
    pub artifact: Option<&'r str>,
    pub role: &'r str,
    pub unit: &'r str,
    pub mean: Option<f64>,
    pub spread: (Option<i64>, Option<f64>),
    pub robust: (Option<f64>, Option<f64>),
    pub resolution: Option<f64>,
}

impl LevelCells<'_> {
    /// The level of benchmark `benchmark` in version `version` (indexes into the
    /// [`crate::StoredLevels`] being read).
    pub fn decode(
        self,
        (benchmark, version): (usize, usize),
        damaged: Damage<'_>,
    ) -> Result<StoredLevel> {
        Ok(StoredLevel {
            benchmark,
            version,
            run: run_info(self.run, self.artifact, self.role, damaged)?,
            unit: self
                .unit
                .parse()
                .map_err(|e: rigor_units::UnitError| damaged("unit", e.to_string()))?,
            mean: self.mean,
            spread: stored_spread(self.spread, self.robust, self.mean, damaged)?,
            resolution: resolution_of(self.resolution, damaged)?,
        })
    }
}

/// A stored summary row, undecoded.
pub(crate) struct SummaryRow {
    pub benchmark: String,
    pub rev: String,
    pub run: RunInfoRow,
    pub unit: String,
    pub mean: Option<f64>,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    pub level: Option<f64>,
    pub var_of_mean: Option<f64>,
    pub units: Option<i64>,
    pub robust: Option<f64>,
    pub var_of_robust: Option<f64>,
    pub components: Option<String>,
    pub resolution: Option<f64>,
}

impl SummaryRow {
    /// Reads, after two columns that name the benchmark and the version (given here), the run
    /// ([`RunInfoRow::read`]) and `unit, mean, ci_lower, ci_upper, ci_level, var_of_mean, units,
    /// components, resolution, level, var_of_level`.
    pub fn read<R: Cells>(r: &R, benchmark: String, rev: String) -> Result<Self, R::Error> {
        Ok(Self {
            benchmark,
            rev,
            run: RunInfoRow::read(r, 2)?,
            unit: r.text(6)?,
            mean: r.maybe_real(7)?,
            lower: r.maybe_real(8)?,
            upper: r.maybe_real(9)?,
            level: r.maybe_real(10)?,
            var_of_mean: r.maybe_real(11)?,
            units: r.maybe_int(12)?,
            components: r.maybe_text(13)?,
            resolution: r.maybe_real(14)?,
            robust: r.maybe_real(15)?,
            var_of_robust: r.maybe_real(16)?,
        })
    }
}

impl Decode for SummaryRow {
    type Decoded = StoredSummary;

    fn decode(self, damaged: Damage<'_>) -> Result<StoredSummary> {
        let spread = stored_spread(
            (self.units, self.var_of_mean),
            (self.robust, self.var_of_robust),
            self.mean,
            damaged,
        )?;
        Ok(StoredSummary {
            benchmark: self.benchmark,
            rev: self.rev,
            run: self.run.decode(damaged)?,
            unit: self
                .unit
                .parse()
                .map_err(|e: rigor_units::UnitError| damaged("unit", e.to_string()))?,
            mean: self.mean,
            interval: self.lower.zip(self.upper),
            level: self
                .level
                .map(|l| {
                    rigor_units::ConfidenceLevel::new(l)
                        .ok_or_else(|| damaged("confidence level", format!("{l} is not in (0, 1)")))
                })
                .transpose()?,
            spread,
            components: self
                .components
                .map(|c| serde_json::from_str(&c))
                .transpose()
                .map_err(|e| damaged("components", e.to_string()))?
                .unwrap_or_default(),
            resolution: resolution_of(self.resolution, damaged)?,
        })
    }
}

/// A stored change row, undecoded.
pub(crate) struct ChangeRow {
    pub id: i64,
    pub benchmark: String,
    pub machine: String,
    pub branch: String,
    pub rev: String,
    pub previous_rev: Option<String>,
    pub ratio: f64,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    pub p_value: f64,
    pub q_value: Option<f64>,
    pub verdict: String,
    pub method: String,
    pub status: String,
    pub current: bool,
    pub detected_at: String,
    pub version_time: Option<String>,
    pub evidence: String,
    pub metric: String,
}

impl ChangeRow {
    /// Reads `changes.id, benchmark, machine, branch, rev, previous rev, ratio, ci_lower,
    /// ci_upper, p_value, q_value, verdict, method, status, current, detected_at, commit_time,
    /// evidence, metric`.
    pub fn read<R: Cells>(r: &R) -> Result<Self, R::Error> {
        Ok(Self {
            id: r.int(0)?,
            benchmark: r.text(1)?,
            machine: r.text(2)?,
            branch: r.text(3)?,
            rev: r.text(4)?,
            previous_rev: r.maybe_text(5)?,
            ratio: r.real(6)?,
            lower: r.maybe_real(7)?,
            upper: r.maybe_real(8)?,
            p_value: r.real(9)?,
            q_value: r.maybe_real(10)?,
            verdict: r.text(11)?,
            method: r.text(12)?,
            status: r.text(13)?,
            current: r.flag(14)?,
            detected_at: r.text(15)?,
            version_time: r.maybe_text(16)?,
            evidence: r.text(17)?,
            metric: r.text(18)?,
        })
    }
}

impl Decode for ChangeRow {
    type Decoded = StoredChange;

    fn decode(self, damaged: Damage<'_>) -> Result<StoredChange> {
        Ok(StoredChange {
            id: ChangeId(self.id),
            benchmark: self.benchmark,
            metric: self
                .metric
                .parse()
                .map_err(|e: rigor_units::UnitError| damaged("metric", e.to_string()))?,
            series: SeriesKey::new(self.machine, self.branch),
            change: NewChange {
                rev: self.rev,
                previous_rev: self.previous_rev,
                ratio: self.ratio,
                interval: self.lower.zip(self.upper),
                p_value: self.p_value,
                q_value: self.q_value,
                verdict: parsed(&self.verdict, "verdict", damaged)?,
                method: self.method,
                evidence: parsed(&self.evidence, "evidence", damaged)?,
            },
            status: parsed(&self.status, "status", damaged)?,
            current: self.current,
            detected_at: required_time(self.detected_at, "detection time", damaged)?,
            version_time: time_of(self.version_time, "commit time", damaged)?,
        })
    }
}

/// One run of a session, as the sessions query lists them (ordered by session, then run).
pub(crate) struct SessionRow {
    pub id: i64,
    pub machine: String,
    pub kind: String,
    pub started: String,
    pub ended: Option<String>,
    pub load_before: Option<f64>,
    pub load_after: Option<f64>,
    pub rigor_version: String,
    pub run: i64,
}

impl SessionRow {
    /// Reads `sessions.id, machine name, kind, started, ended, load_before, load_after,
    /// rigor_version, runs.id`.
    pub fn read<R: Cells>(r: &R) -> Result<Self, R::Error> {
        Ok(Self {
            id: r.int(0)?,
            machine: r.text(1)?,
            kind: r.text(2)?,
            started: r.text(3)?,
            ended: r.maybe_text(4)?,
            load_before: r.maybe_real(5)?,
            load_after: r.maybe_real(6)?,
            rigor_version: r.text(7)?,
            run: r.int(8)?,
        })
    }
}

/// Sessions from their rows (one per run, ordered by session), each with its runs.
pub(crate) fn sessions_of(
    rows: Vec<SessionRow>,
    damaged: Damage<'_>,
) -> Result<Vec<StoredSession>> {
    let mut out: Vec<StoredSession> = Vec::new();
    for r in rows {
        if let Some(last) = out.last_mut().filter(|s| s.id.0 == r.id) {
            last.runs.push(RunId(r.run));
            continue;
        }
        out.push(StoredSession {
            id: SessionId(r.id),
            machine: r.machine,
            kind: parsed(&r.kind, "session kind", damaged)?,
            started: required_time(r.started, "session start", damaged)?,
            ended: time_of(r.ended, "session end", damaged)?,
            load_before: r.load_before,
            load_after: r.load_after,
            rigor_version: r.rigor_version,
            runs: vec![RunId(r.run)],
        });
    }
    Ok(out)
}
