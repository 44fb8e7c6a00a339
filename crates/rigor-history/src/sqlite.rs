//! The SQLite backend: every statement of the history is in this module.
//!
//! Concurrency: WAL mode lets readers run beside one writer; writers wait for each other (a busy
//! timeout of a minute) and each ingest is one `BEGIN IMMEDIATE` transaction, so several
//! processes can ingest into one database at once, and a process killed mid-ingest leaves
//! nothing partial (the transaction is rolled back when the database is next opened).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rigor_store::{BenchmarkRecord, ExecutionRecord, RunStatus, SampleRecord};
use rigor_units::Seconds;
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use sha2::{Digest, Sha256};

use crate::History;
use crate::error::{HistoryError, Result};
use crate::merge::{RunBenchmark, RunBenchmarkRow, RunData, resolution_of, series_of};
use crate::types::{
    ChangeFilter, ChangeStatus, Ingest, Ingested, MachineInfo, NewChange, RunId, RunStamp,
    StoredChange, StoredSummary, StoredVersion, VersionData, VersionInfo,
};

/// The migrations, in order; the schema version is their count.
const MIGRATIONS: [&str; 2] = [
    include_str!("../migrations/0001_initial.sql"),
    include_str!("../migrations/0002_resolution.sql"),
];

/// The schema version this build writes and the newest it reads.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// How history order is decided: the given or first-parent position, then time, then when the
/// version was first stored.
const VERSION_ORDER: &str =
    "(v.order_key IS NULL), v.order_key, (v.commit_time IS NULL), v.commit_time, v.first_seen";

/// A history in an SQLite database file.
#[derive(Debug)]
pub struct SqliteHistory {
    conn: Connection,
    path: PathBuf,
}

impl SqliteHistory {
    /// Opens (creating it and its folder if needed) the database at `path`, bringing an older
    /// schema up to date and refusing a newer one.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| HistoryError::Database {
                path: path.to_path_buf(),
                source: rusqlite::Error::ToSqlConversionFailure(Box::new(e)),
            })?;
        }
        let conn = Connection::open(path).map_err(|source| HistoryError::Database {
            path: path.to_path_buf(),
            source,
        })?;
        let mut history = Self {
            conn,
            path: path.to_path_buf(),
        };
        // Setting up (WAL, migrations) takes locks that SQLite may refuse at once, without its
        // busy handler, while another process sets up the same new database: retry for a while.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            match history.configure().and_then(|()| history.migrate()) {
                Err(HistoryError::Database { source, .. })
                    if is_busy(&source) && std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(20));
                }
                other => return other.map(|()| history),
            }
        }
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn db<T>(&self, r: rusqlite::Result<T>) -> Result<T> {
        r.map_err(|source| HistoryError::Database {
            path: self.path.clone(),
            source,
        })
    }

    fn configure(&mut self) -> Result<()> {
        let r = self
            .conn
            .busy_timeout(Duration::from_secs(60))
            .and_then(|()| {
                // WAL is kept in the file: switch only once (switching takes an exclusive lock).
                let mode: String = self
                    .conn
                    .query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
                if !mode.eq_ignore_ascii_case("wal") {
                    self.conn
                        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))?;
                }
                Ok(())
            })
            .and_then(|()| self.conn.execute_batch("PRAGMA foreign_keys = ON;"));
        self.db(r)
    }

    fn migrate(&mut self) -> Result<()> {
        let path = self.path.clone();
        let db = |source| HistoryError::Database {
            path: path.clone(),
            source,
        };
        // Exclusive, and the version read inside: two processes opening a new database at
        // once must not both create the tables.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Exclusive)
            .map_err(db)?;
        let found: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(db)?;
        if found > SCHEMA_VERSION {
            return Err(HistoryError::SchemaTooNew {
                path: path.clone(),
                found,
                supported: SCHEMA_VERSION,
            });
        }
        for sql in &MIGRATIONS[found.max(0) as usize..] {
            tx.execute_batch(sql).map_err(db)?;
        }
        tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))
            .map_err(db)?;
        tx.commit().map_err(db)
    }

    fn write(&mut self) -> Result<Transaction<'_>> {
        let path = self.path.clone();
        self.conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|source| HistoryError::Database { path, source })
    }

    fn damaged(&self, what: &'static str, message: impl ToString) -> HistoryError {
        HistoryError::Damaged {
            path: self.path.clone(),
            what,
            message: message.to_string(),
        }
    }
}

/// Whether SQLite refused for a lock another connection holds.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
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
pub(crate) fn failure_fingerprint(
    version: &VersionInfo,
    machine: &MachineInfo,
    branch: &str,
    reason: &str,
) -> String {
    let mut h = Sha256::new();
    h.update(format!(
        "failed\0{}\0{}\0{branch}\0{reason}",
        version.rev, machine.name
    ));
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn now() -> String {
    jiff::Timestamp::now().to_string()
}

fn machine_id(tx: &Transaction<'_>, m: &MachineInfo) -> rusqlite::Result<i64> {
    let e = &m.environment;
    tx.query_row(
        "INSERT INTO machines (name, host, os, cpu, cpus, governor) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (name) DO UPDATE SET host = excluded.host, os = excluded.os,
             cpu = excluded.cpu, cpus = excluded.cpus, governor = excluded.governor
         RETURNING id",
        params![m.name, e.host, e.os, e.cpu, e.cpus as i64, e.governor],
        |r| r.get(0),
    )
}

fn version_id(tx: &Transaction<'_>, v: &VersionInfo) -> rusqlite::Result<i64> {
    tx.query_row(
        "INSERT INTO versions (rev, commit_id, parents, author, commit_time, subject, order_key, first_seen)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,
                 (SELECT COALESCE(MAX(first_seen), 0) + 1 FROM versions))
         ON CONFLICT (rev) DO UPDATE SET
             commit_id = COALESCE(excluded.commit_id, versions.commit_id),
             parents = COALESCE(excluded.parents, versions.parents),
             author = COALESCE(excluded.author, versions.author),
             commit_time = COALESCE(excluded.commit_time, versions.commit_time),
             subject = COALESCE(excluded.subject, versions.subject),
             order_key = COALESCE(excluded.order_key, versions.order_key)
         RETURNING id",
        params![
            v.rev,
            v.commit,
            (!v.parents.is_empty()).then(|| v.parents.join(" ")),
            v.author,
            v.time,
            v.subject,
            v.order,
        ],
        |r| r.get(0),
    )
}

fn benchmark_id(tx: &Transaction<'_>, name: &str) -> rusqlite::Result<i64> {
    tx.query_row(
        "INSERT INTO benchmarks (name) VALUES (?1)
         ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id",
        params![name],
        |r| r.get(0),
    )
}

pub(crate) fn status_text(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Complete => "complete",
        RunStatus::Interrupted => "interrupted",
        RunStatus::Running => "running",
    }
}

pub(crate) fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn insert_benchmark(tx: &Transaction<'_>, run: i64, b: &BenchmarkRecord) -> rusqlite::Result<()> {
    let id = benchmark_id(tx, &b.name)?;
    let a = b.analysis.as_ref();
    tx.execute(
        "INSERT INTO run_benchmarks (run_id, benchmark_id, command, levels, level_names, unit,
             mean, ci_lower, ci_upper, ci_level, components, failures, resolution)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            run,
            id,
            b.command,
            json(&b.layout),
            b.level_names.as_ref().map(json),
            b.unit.to_string(),
            a.map(|a| a.mean),
            a.map(|a| a.ci.lower),
            a.map(|a| a.ci.upper),
            a.map(|a| a.ci.level.get()),
            a.map(|a| json(&a.variance_components)),
            json(&b.failures),
            b.resolution().map(|r| r.step().get()),
        ],
    )?;
    let mut sample = tx.prepare_cached(
        "INSERT INTO samples (run_id, benchmark_id, build, round, execution, iteration, value, warmup)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for s in &b.samples {
        sample.execute(params![
            run,
            id,
            s.build.map(|x| x as i64),
            s.round as i64,
            s.execution as i64,
            s.iteration as i64,
            s.value,
            s.warmup,
        ])?;
    }
    let mut execution = tx.prepare_cached(
        "INSERT INTO executions (run_id, benchmark_id, build, round, execution, warmup, wall,
             user_time, sys_time, max_rss, resolution)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    for e in &b.executions {
        execution.execute(params![
            run,
            id,
            e.build.map(|x| x as i64),
            e.round as i64,
            e.execution as i64,
            e.warmup,
            e.wall.get(),
            e.user.get(),
            e.sys.get(),
            e.max_rss as i64,
            e.resolution.map(|r| r.step().get()),
        ])?;
    }
    Ok(())
}

fn version_of(r: &rusqlite::Row<'_>, offset: usize) -> rusqlite::Result<VersionInfo> {
    let parents: Option<String> = r.get(offset + 2)?;
    Ok(VersionInfo {
        rev: r.get(offset)?,
        commit: r.get(offset + 1)?,
        parents: parents
            .map(|p| p.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default(),
        author: r.get(offset + 3)?,
        time: r.get(offset + 4)?,
        subject: r.get(offset + 5)?,
        order: r.get(offset + 6)?,
    })
}

/// The version columns [`version_of`] reads, from `versions v`.
const VERSION_COLUMNS: &str =
    "v.rev, v.commit_id, v.parents, v.author, v.commit_time, v.subject, v.order_key";

impl SqliteHistory {
    /// The stored benchmark of each run of `version` (every version: `None`) on a machine and
    /// branch, oldest run first.
    fn run_benchmarks_of(
        &self,
        version: Option<&str>,
        machine: &str,
        branch: &str,
        benchmark: &str,
    ) -> Result<Vec<RunBenchmark>> {
        let mut stmt = self.db(self.conn.prepare_cached(
            "SELECT rb.run_id, rb.command, rb.levels, rb.level_names, rb.unit, rb.failures, v.rev
             FROM run_benchmarks rb
             JOIN runs r ON r.id = rb.run_id
             JOIN versions v ON v.id = r.version_id
             JOIN machines m ON m.id = r.machine_id
             JOIN benchmarks b ON b.id = rb.benchmark_id
             WHERE (?1 IS NULL OR v.rev = ?1) AND m.name = ?2 AND r.branch = ?3 AND b.name = ?4
               AND r.status <> 'failed'
             ORDER BY r.id",
        ))?;
        let rows = self.db(stmt
            .query_map(params![version, machine, branch, benchmark], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                ))
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>()))?;
        rows.into_iter()
            .map(|(run, command, levels, level_names, unit, failures, rev)| {
                RunBenchmarkRow {
                    run,
                    command,
                    levels,
                    level_names,
                    unit,
                    failures,
                    rev,
                }
                .decode(|what, message| self.damaged(what, message))
            })
            .collect()
    }

    /// Every sample and execution of a benchmark's series, by run, in two queries (reading a
    /// series version by version would cost a query per version).
    fn series_data(
        &self,
        machine: &str,
        branch: &str,
        benchmark: &str,
    ) -> Result<HashMap<i64, RunData>> {
        self.run_data(
            "m.name = ?1 AND r.branch = ?2 AND b.name = ?3 AND r.status <> 'failed'",
            params![machine, branch, benchmark],
        )
    }

    /// The samples and executions, by run, of the rows of `samples` and `executions` (each
    /// aliased `x`, joined with its benchmark `b`, run `r` and machine `m`) that `filter` keeps.
    fn run_data(
        &self,
        filter: &str,
        values: &[&dyn rusqlite::ToSql],
    ) -> Result<HashMap<i64, RunData>> {
        let query = |table: &str, columns: &str| {
            format!(
                "SELECT x.run_id, {columns} FROM {table} x
                 JOIN benchmarks b ON b.id = x.benchmark_id JOIN runs r ON r.id = x.run_id
                 JOIN machines m ON m.id = r.machine_id
                 WHERE {filter} ORDER BY x.run_id, x.rowid"
            )
        };
        let mut data: HashMap<i64, RunData> = HashMap::new();
        let mut stmt = self.db(self.conn.prepare_cached(&query(
            "samples",
            "x.build, x.round, x.execution, x.iteration, x.value, x.warmup",
        )))?;
        let rows = self.db(stmt.query_map(values, |r| {
            Ok((
                r.get::<_, i64>(0)?,
                SampleRecord {
                    build: r.get::<_, Option<i64>>(1)?.map(|x| x as usize),
                    round: r.get::<_, i64>(2)? as usize,
                    execution: r.get::<_, i64>(3)? as usize,
                    iteration: r.get::<_, i64>(4)? as usize,
                    value: r.get(5)?,
                    warmup: r.get(6)?,
                },
            ))
        }))?;
        for row in rows {
            let (run, s) = self.db(row)?;
            data.entry(run).or_default().samples.push(s);
        }
        let mut stmt = self.db(self.conn.prepare_cached(&query(
            "executions",
            "x.build, x.round, x.execution, x.warmup, x.wall, x.user_time, x.sys_time, x.max_rss,
             x.resolution",
        )))?;
        let rows = self.db(stmt.query_map(values, |r| {
            Ok((
                r.get::<_, i64>(0)?,
                ExecutionRecord {
                    build: r.get::<_, Option<i64>>(1)?.map(|x| x as usize),
                    round: r.get::<_, i64>(2)? as usize,
                    execution: r.get::<_, i64>(3)? as usize,
                    warmup: r.get(4)?,
                    wall: Seconds(r.get(5)?),
                    user: Seconds(r.get(6)?),
                    sys: Seconds(r.get(7)?),
                    max_rss: r.get::<_, i64>(8)? as u64,
                    exit_code: None,
                    env_pad: None,
                    resolution: None,
                },
                r.get::<_, Option<f64>>(9)?,
            ))
        }))?;
        for row in rows {
            let (run, mut e, resolution) = self.db(row)?;
            e.resolution = resolution_of(resolution, |what, m| self.damaged(what, m))?;
            data.entry(run).or_default().executions.push(e);
        }
        Ok(data)
    }
}

impl History for SqliteHistory {
    fn ingest(&mut self, run: &Ingest<'_>) -> Result<Ingested> {
        let prints = fingerprints(run);
        let print = &prints.current;
        let path = self.path.clone();
        let db = |source| HistoryError::Database {
            path: path.clone(),
            source,
        };
        let tx = self.write()?;
        let existing: Option<i64> = tx
            .query_row(
                "SELECT id FROM runs WHERE fingerprint = ?1
                 UNION ALL
                 SELECT r.id FROM runs r JOIN versions v ON v.id = r.version_id
                 JOIN machines m ON m.id = r.machine_id
                 WHERE r.fingerprint = ?2 AND v.rev = ?3 AND m.name = ?4 AND r.branch = ?5
                 LIMIT 1",
                params![
                    print,
                    prints.legacy,
                    run.version.rev,
                    run.machine.name,
                    run.branch
                ],
                |r| r.get(0),
            )
            .optional()
            .map_err(db)?;
        if let Some(id) = existing {
            return Ok(Ingested::AlreadyStored(RunId(id)));
        }
        let machine = machine_id(&tx, run.machine).map_err(db)?;
        let version = version_id(&tx, run.version).map_err(db)?;
        let r = run.result;
        let id: i64 = tx
            .query_row(
                "INSERT INTO runs (fingerprint, version_id, machine_id, branch, status, seed,
                     started, ended, rigor_version, settings, note, ingested_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, NULL, ?11) RETURNING id",
                params![
                    print,
                    version,
                    machine,
                    run.branch,
                    status_text(r.status),
                    r.seed.to_string(),
                    r.provenance.started.map(|t| t.to_string()),
                    r.provenance.ended.map(|t| t.to_string()),
                    r.rigor_version,
                    r.settings.as_ref().map(json),
                    now(),
                ],
                |row| row.get(0),
            )
            .map_err(db)?;
        for b in &r.benchmarks {
            insert_benchmark(&tx, id, b).map_err(db)?;
        }
        tx.commit().map_err(db)?;
        Ok(Ingested::Added(RunId(id)))
    }

    fn record_failure(
        &mut self,
        version: &VersionInfo,
        machine: &MachineInfo,
        branch: &str,
        reason: &str,
    ) -> Result<RunId> {
        let print = failure_fingerprint(version, machine, branch, reason);
        let path = self.path.clone();
        let db = |source| HistoryError::Database {
            path: path.clone(),
            source,
        };
        let tx = self.write()?;
        let m = machine_id(&tx, machine).map_err(db)?;
        let v = version_id(&tx, version).map_err(db)?;
        let id: i64 = tx
            .query_row(
                "INSERT INTO runs (fingerprint, version_id, machine_id, branch, status, seed,
                     rigor_version, note, ingested_at)
                 VALUES (?1, ?2, ?3, ?4, 'failed', '0', ?5, ?6, ?7)
                 ON CONFLICT (fingerprint) DO UPDATE SET note = excluded.note
                 RETURNING id",
                params![
                    print,
                    v,
                    m,
                    branch,
                    env!("CARGO_PKG_VERSION"),
                    reason,
                    now()
                ],
                |r| r.get(0),
            )
            .map_err(db)?;
        tx.commit().map_err(db)?;
        Ok(RunId(id))
    }

    fn has_run(&self, rev: &str, machine: &str, branch: &str) -> Result<bool> {
        self.db(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM runs r JOIN versions v ON v.id = r.version_id
                 JOIN machines m ON m.id = r.machine_id
                 WHERE v.rev = ?1 AND m.name = ?2 AND r.branch = ?3)",
            params![rev, machine, branch],
            |r| r.get(0),
        ))
    }

    fn stored_benchmarks(&self, rev: &str, machine: &str, branch: &str) -> Result<Vec<String>> {
        let mut stmt = self.db(self.conn.prepare(
            "SELECT DISTINCT b.name FROM run_benchmarks rb
             JOIN benchmarks b ON b.id = rb.benchmark_id
             JOIN runs r ON r.id = rb.run_id JOIN versions v ON v.id = r.version_id
             JOIN machines m ON m.id = r.machine_id
             WHERE v.rev = ?1 AND m.name = ?2 AND r.branch = ?3 AND r.status <> 'failed'
             ORDER BY b.name",
        ))?;
        self.db(stmt
            .query_map(params![rev, machine, branch], |r| r.get(0))
            .and_then(|rows| rows.collect()))
    }

    fn versions(&self, machine: &str, branch: &str) -> Result<Vec<StoredVersion>> {
        let sql = format!(
            "SELECT {VERSION_COLUMNS}, COUNT(r.id), SUM(CASE WHEN r.status = 'failed' THEN 1 ELSE 0 END)
             FROM runs r JOIN versions v ON v.id = r.version_id
             JOIN machines m ON m.id = r.machine_id
             WHERE m.name = ?1 AND r.branch = ?2
             GROUP BY v.id ORDER BY {VERSION_ORDER}"
        );
        let mut stmt = self.db(self.conn.prepare(&sql))?;
        self.db(stmt
            .query_map(params![machine, branch], |r| {
                Ok(StoredVersion {
                    version: version_of(r, 0)?,
                    runs: r.get::<_, i64>(7)? as usize,
                    failed: r.get::<_, i64>(8)? as usize,
                })
            })
            .and_then(|rows| rows.collect()))
    }

    fn benchmarks(&self, machine: &str, branch: &str) -> Result<Vec<String>> {
        let mut stmt = self.db(self.conn.prepare(
            "SELECT DISTINCT b.name FROM run_benchmarks rb
             JOIN benchmarks b ON b.id = rb.benchmark_id
             JOIN runs r ON r.id = rb.run_id JOIN machines m ON m.id = r.machine_id
             WHERE m.name = ?1 AND r.branch = ?2 ORDER BY b.name",
        ))?;
        self.db(stmt
            .query_map(params![machine, branch], |r| r.get(0))
            .and_then(|rows| rows.collect()))
    }

    fn series_keys(&self) -> Result<Vec<(String, String)>> {
        let mut stmt = self.db(self.conn.prepare(
            "SELECT DISTINCT m.name, r.branch FROM runs r JOIN machines m ON m.id = r.machine_id
             ORDER BY m.name, r.branch",
        ))?;
        self.db(stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(|rows| rows.collect()))
    }

    fn series(&self, machine: &str, branch: &str, benchmark: &str) -> Result<Vec<VersionData>> {
        let parts = self.run_benchmarks_of(None, machine, branch, benchmark)?;
        let data = self.series_data(machine, branch, benchmark)?;
        Ok(series_of(
            benchmark,
            self.versions(machine, branch)?,
            parts,
            data,
        ))
    }

    fn measured_runs(&self, machine: &str, branch: &str) -> Result<Vec<RunStamp>> {
        let mut stmt = self.db(self.conn.prepare(
            "SELECT r.id, r.fingerprint FROM runs r JOIN machines m ON m.id = r.machine_id
             WHERE m.name = ?1 AND r.branch = ?2 AND r.status <> 'failed' ORDER BY r.id",
        ))?;
        self.db(stmt
            .query_map(params![machine, branch], |r| {
                Ok(RunStamp {
                    id: RunId(r.get(0)?),
                    fingerprint: r.get(1)?,
                })
            })
            .and_then(|rows| rows.collect()))
    }

    fn summaries_from(
        &self,
        machine: &str,
        branch: &str,
        first: RunId,
    ) -> Result<Vec<StoredSummary>> {
        // Names are looked up once each rather than joined into a million rows.
        let names = |sql: &str| -> Result<HashMap<i64, String>> {
            let mut stmt = self.db(self.conn.prepare(sql))?;
            self.db(stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .and_then(|rows| rows.collect()))
        };
        let benchmarks = names("SELECT id, name FROM benchmarks")?;
        let versions = names("SELECT id, rev FROM versions")?;
        let mut stmt = self.db(self.conn.prepare(
            "SELECT rb.benchmark_id, r.version_id, rb.run_id, rb.unit, rb.mean, rb.ci_lower,
                    rb.ci_upper, rb.ci_level, rb.components, rb.resolution
             FROM runs r JOIN run_benchmarks rb ON rb.run_id = r.id
             WHERE r.machine_id = (SELECT id FROM machines WHERE name = ?1)
               AND r.branch = ?2 AND r.status <> 'failed' AND r.id >= ?3",
        ))?;
        let mut out = Vec::new();
        let mut rows = self.db(stmt.query(params![machine, branch, first.0]))?;
        while let Some(r) = self.db(rows.next())? {
            let name = |map: &HashMap<i64, String>, i: usize| -> Result<String> {
                let id: i64 = self.db(r.get(i))?;
                map.get(&id)
                    .cloned()
                    .ok_or_else(|| self.damaged("summaries", format!("unknown id {id}")))
            };
            let components: Option<String> = self.db(r.get(8))?;
            let lo: Option<f64> = self.db(r.get(5))?;
            let hi: Option<f64> = self.db(r.get(6))?;
            out.push(StoredSummary {
                benchmark: name(&benchmarks, 0)?,
                rev: name(&versions, 1)?,
                run: RunId(self.db(r.get(2))?),
                unit: self.db(r.get(3))?,
                mean: self.db(r.get(4))?,
                interval: lo.zip(hi),
                level: self.db(r.get(7))?,
                components: components
                    .map(|c| serde_json::from_str(&c))
                    .transpose()
                    .map_err(|e| self.damaged("components", e))?
                    .unwrap_or_default(),
                resolution: resolution_of(self.db(r.get(9))?, |what, m| self.damaged(what, m))?,
            });
        }
        out.sort_unstable_by_key(|x| x.run);
        Ok(out)
    }

    fn save_changes(
        &mut self,
        machine: &str,
        branch: &str,
        benchmark: &str,
        changes: &[NewChange],
    ) -> Result<()> {
        let path = self.path.clone();
        let db = |source| HistoryError::Database {
            path: path.clone(),
            source,
        };
        let tx = self.write()?;
        let ids: Option<(i64, i64)> = tx
            .query_row(
                "SELECT (SELECT id FROM benchmarks WHERE name = ?1),
                        (SELECT id FROM machines WHERE name = ?2)",
                params![benchmark, machine],
                |r| Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, Option<i64>>(1)?)),
            )
            .map(|(b, m)| b.zip(m))
            .map_err(db)?;
        let Some((b, m)) = ids else {
            return Ok(());
        };
        tx.execute(
            "UPDATE changes SET current = 0 WHERE benchmark_id = ?1 AND machine_id = ?2 AND branch = ?3",
            params![b, m, branch],
        )
        .map_err(db)?;
        for c in changes {
            tx.execute(
                "INSERT INTO changes (benchmark_id, machine_id, branch, version_id, previous_version_id,
                     ratio, ci_lower, ci_upper, p_value, q_value, verdict, method, current, detected_at)
                 VALUES (?1, ?2, ?3, (SELECT id FROM versions WHERE rev = ?4),
                         (SELECT id FROM versions WHERE rev = ?5), ?6, ?7, ?8, ?9, ?10, ?11, ?12, 1, ?13)
                 ON CONFLICT (benchmark_id, machine_id, branch, version_id) DO UPDATE SET
                     previous_version_id = excluded.previous_version_id, ratio = excluded.ratio,
                     ci_lower = excluded.ci_lower, ci_upper = excluded.ci_upper,
                     p_value = excluded.p_value, q_value = excluded.q_value,
                     verdict = excluded.verdict, method = excluded.method, current = 1",
                params![
                    b,
                    m,
                    branch,
                    c.rev,
                    c.previous_rev,
                    c.ratio,
                    c.interval.map(|i| i.0),
                    c.interval.map(|i| i.1),
                    c.p_value,
                    c.q_value,
                    c.verdict,
                    c.method,
                    now(),
                ],
            )
            .map_err(db)?;
        }
        tx.commit().map_err(db)
    }

    fn changes(&self, filter: &ChangeFilter) -> Result<Vec<StoredChange>> {
        let sql = format!(
            "SELECT c.id, b.name, m.name, c.branch, v.rev, pv.rev, c.ratio, c.ci_lower, c.ci_upper,
                    c.p_value, c.q_value, c.verdict, c.method, c.status, c.current, c.detected_at,
                    v.commit_time
             FROM changes c
             JOIN benchmarks b ON b.id = c.benchmark_id
             JOIN machines m ON m.id = c.machine_id
             JOIN versions v ON v.id = c.version_id
             LEFT JOIN versions pv ON pv.id = c.previous_version_id
             WHERE (?1 IS NULL OR b.name = ?1) AND (?2 IS NULL OR m.name = ?2)
               AND (?3 IS NULL OR c.branch = ?3) AND (?4 OR c.current = 1)
             ORDER BY {VERSION_ORDER}, b.name"
        );
        let mut stmt = self.db(self.conn.prepare(&sql))?;
        let rows = self.db(stmt
            .query_map(
                params![
                    filter.benchmark,
                    filter.machine,
                    filter.branch,
                    filter.include_stale
                ],
                |r| {
                    let lower: Option<f64> = r.get(7)?;
                    let upper: Option<f64> = r.get(8)?;
                    Ok((
                        StoredChange {
                            id: r.get(0)?,
                            benchmark: r.get(1)?,
                            machine: r.get(2)?,
                            branch: r.get(3)?,
                            change: NewChange {
                                rev: r.get(4)?,
                                previous_rev: r.get(5)?,
                                ratio: r.get(6)?,
                                interval: lower.zip(upper),
                                p_value: r.get(9)?,
                                q_value: r.get(10)?,
                                verdict: r.get(11)?,
                                method: r.get(12)?,
                            },
                            status: ChangeStatus::New,
                            current: r.get(14)?,
                            detected_at: r.get(15)?,
                            version_time: r.get(16)?,
                        },
                        r.get::<_, String>(13)?,
                    ))
                },
            )
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>()))?;
        rows.into_iter()
            .map(|(mut c, status)| {
                c.status = status.parse().map_err(|e| self.damaged("status", e))?;
                Ok(c)
            })
            .collect()
    }

    fn set_status(&mut self, id: i64, status: ChangeStatus) -> Result<()> {
        let n = self.db(self.conn.execute(
            "UPDATE changes SET status = ?1 WHERE id = ?2",
            params![status.as_str(), id],
        ))?;
        if n == 0 {
            return Err(HistoryError::NoSuchChange(id));
        }
        Ok(())
    }
}
