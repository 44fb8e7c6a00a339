//! The SQLite backend: every statement of the history is in this module.
//!
//! Concurrency: WAL mode lets readers run beside one writer; writers wait for each other (a busy
//! timeout of a minute) and each ingest is one `BEGIN IMMEDIATE` transaction, so several
//! processes can ingest into one database at once, and a process killed mid-ingest leaves
//! nothing partial (the transaction is rolled back when the database is next opened).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rigor_store::BenchmarkRecord;
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use crate::error::{HistoryError, Result};
use crate::merge::{RawRuns, RunBenchmark, RunBenchmarkRow, RunData, resolution_of};
use crate::migrate::{LegacyBenchmark, LegacyRun, Spreads, normalised_time, sessions_of};
use crate::remove::{self, CandidateRow, RemoveMode, Removed, RunSelection};
use crate::rows::{
    BenchmarkValues, Cells, ChangeRow, ChangeValues, Decode, ExecutionMetricRow, LevelCells,
    RUN_INFO_COLUMNS, RunValues, SessionRow, SessionValues, StoredVersionRow, SummaryRow,
    VERSION_COLUMNS, VersionValues, check_session, execution_metric_values, execution_of,
    failure_fingerprint, fingerprints, sample_of, time_text,
};
use crate::types::{
    ChangeFilter, ChangeId, ChangeStatus, DetectedChanges, Failure, Ingest, Ingested, MachineInfo,
    NewSession, RunCpuShare, RunId, RunRecord, RunStamp, SeriesKey, SessionEnd, SessionId,
    StoredChange, StoredLevel, StoredLevels, StoredSession, StoredSummary, StoredVersion,
    VersionData, VersionInfo,
};
use crate::{History, HistoryRead, HistoryWrite};

/// The migrations, in order; the schema version is their count.
const MIGRATIONS: [&str; 7] = [
    include_str!("../migrations/0001_initial.sql"),
    include_str!("../migrations/0002_resolution.sql"),
    include_str!("../migrations/0003_sessions.sql"),
    include_str!("../migrations/0004_huber_levels.sql"),
    include_str!("../migrations/0005_metrics.sql"),
    include_str!("../migrations/0006_others_cpus.sql"),
    include_str!("../migrations/0007_run_delay.sql"),
];

/// The migration whose second half, the data of schema 3, [`fill_schema_3`] computes.
const SESSIONS: usize = 2;

/// The migration whose data, the levels of schema 4, [`fill_levels`] computes (a history of
/// schema 2 or older gets them with schema 3's data).
const HUBER_LEVELS: usize = 3;

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
    /// How many runs a series has before its levels are read in two halves at once.
    parallel_levels_from: i64,
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
        let conn = Connection::open(path).map_err(db_error(path))?;
        let mut history = Self {
            conn,
            path: path.to_path_buf(),
            parallel_levels_from: PARALLEL_LEVELS_FROM,
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

    /// The same history, reading a series' levels in two halves at once from `runs` runs on
    /// (tests compare both reads on small histories).
    #[doc(hidden)]
    pub fn with_parallel_levels_from(mut self, runs: i64) -> Self {
        self.parallel_levels_from = runs;
        self
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn db<T>(&self, r: rusqlite::Result<T>) -> Result<T> {
        r.map_err(db_error(&self.path))
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
        let db = db_error(&path);
        // Up to date: nothing to write, and no write lock to wait for behind another process's
        // writing (a check opened while `track run` stores must not wait, nor touch the file).
        let current: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(db)?;
        if current == SCHEMA_VERSION {
            return Ok(());
        }
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
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(found.max(0) as usize) {
            tx.execute_batch(sql).map_err(db)?;
            if i == SESSIONS {
                fill_schema_3(&tx, &path)?;
            }
            if i == HUBER_LEVELS && found > SESSIONS as i64 {
                fill_levels(&tx, &path)?;
            }
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

    fn damaged(&self, what: &'static str, message: String) -> HistoryError {
        damaged_in(&self.path, what, message)
    }

    /// Runs `sql`, an update of one row by its id: `missing` when there is no such row.
    fn update_one(
        &self,
        sql: &str,
        values: impl rusqlite::Params,
        missing: HistoryError,
    ) -> Result<()> {
        match self.db(self.conn.execute(sql, values))? {
            0 => Err(missing),
            _ => Ok(()),
        }
    }
}

/// What an error of the database at `path` becomes.
fn db_error(path: &Path) -> impl Fn(rusqlite::Error) -> HistoryError + Copy + '_ {
    move |source| HistoryError::Database {
        path: path.to_path_buf(),
        source,
    }
}

/// How many runs a series has before [`SqliteHistory`] reads its levels in two halves at once.
const PARALLEL_LEVELS_FROM: i64 = 4096;

/// Where [`level_rows`] places each benchmark and version id.
struct IdIndexes {
    benchmarks: HashMap<i64, usize>,
    versions: HashMap<i64, usize>,
}

/// The levels of the runs of `key` whose ids lie in `first..=last`, through `conn` (the database
/// at `path`), in no particular order: each benchmark and version at its index in `ids` (an id
/// missing there is a damaged history).
fn level_rows(
    conn: &Connection,
    path: &Path,
    key: &SeriesKey,
    (first, last): (i64, i64),
    ids: &IdIndexes,
) -> Result<Vec<StoredLevel>> {
    let db = db_error(path);
    let damaged = |what, m| damaged_in(path, what, m);
    let sql = format!(
        "SELECT rb.benchmark_id, r.version_id, {RUN_INFO_COLUMNS}, rb.unit, rb.mean,
                rb.units, rb.var_of_mean, rb.level, rb.var_of_level, rb.resolution
         FROM runs r JOIN run_benchmarks rb ON rb.run_id = r.id
         WHERE r.machine_id = (SELECT id FROM machines WHERE name = ?1)
           AND r.branch = ?2 AND r.status <> 'failed' AND r.id BETWEEN ?3 AND ?4"
    );
    let mut stmt = conn.prepare(&sql).map_err(db)?;
    let mut rows = stmt
        .query(params![key.machine, key.branch, first, last])
        .map_err(db)?;
    let unknown = |id: i64| damaged("summaries", format!("unknown id {id}"));
    let mut read: Vec<StoredLevel> = Vec::new();
    while let Some(r) = rows.next().map_err(db)? {
        let borrowed = |i: usize| -> Result<Option<&str>> {
            r.get_ref(i)
                .map_err(db)?
                .as_str_or_null()
                .map_err(|e| damaged("summaries", format!("column {i}: {e}")))
        };
        let (benchmark, version): (i64, i64) = (r.get(0).map_err(db)?, r.get(1).map_err(db)?);
        let at = |map: &HashMap<i64, usize>, id| map.get(&id).copied().ok_or_else(|| unknown(id));
        let place = (at(&ids.benchmarks, benchmark)?, at(&ids.versions, version)?);
        let cells = LevelCells {
            run: (r.get(2).map_err(db)?, r.get(3).map_err(db)?),
            artifact: borrowed(4)?,
            role: borrowed(5)?.unwrap_or_default(),
            unit: borrowed(6)?.unwrap_or_default(),
            mean: r.get(7).map_err(db)?,
            spread: (r.get(8).map_err(db)?, r.get(9).map_err(db)?),
            robust: (r.get(10).map_err(db)?, r.get(11).map_err(db)?),
            resolution: r.get(12).map_err(db)?,
        };
        read.push(cells.decode(place, &damaged)?);
    }
    Ok(read)
}

/// The condition that keeps a series query to version `rev` (its 4th parameter), or none.
fn version_clause(rev: Option<&str>) -> &'static str {
    match rev {
        Some(_) => "AND r.version_id = (SELECT id FROM versions WHERE rev = ?4)",
        None => "",
    }
}

/// The parameters of a series query: machine, branch, benchmark, and the version when it is kept
/// to one ([`version_clause`]).
fn series_values<'a>(key: &'a SeriesKey, benchmark: &'a str, rev: Option<&'a str>) -> Vec<&'a str> {
    let mut values = vec![key.machine.as_str(), key.branch.as_str(), benchmark];
    values.extend(rev);
    values
}

fn damaged_in(path: &Path, what: &'static str, message: String) -> HistoryError {
    HistoryError::Damaged {
        path: path.to_path_buf(),
        what,
        message,
    }
}

/// Whether SQLite refused for a lock another connection holds.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// The levels of schema 4 for a history of schema 3: each run benchmark's level and its
/// variance recomputed from its samples (rows without samples keep theirs).
fn fill_levels(tx: &Transaction<'_>, path: &Path) -> Result<()> {
    let db = db_error(path);
    let damaged = |what, message| damaged_in(path, what, message);
    let mut set = tx
        .prepare_cached(
            "UPDATE run_benchmarks SET level = ?1, var_of_level = ?2
             WHERE run_id = ?3 AND benchmark_id = ?4",
        )
        .map_err(db)?;
    for ((run, benchmark), s) in spreads(tx, path)?.finish_from_samples(&damaged)? {
        set.execute(params![s.level, s.var_of_level, run, benchmark])
            .map_err(db)?;
    }
    Ok(())
}

/// Every run benchmark's samples fed to [`Spreads`], run by run.
fn spreads(tx: &Transaction<'_>, path: &Path) -> Result<Spreads> {
    let db = db_error(path);
    let damaged = |what, message| damaged_in(path, what, message);
    let benchmarks = rows_of(
        tx,
        "SELECT run_id, benchmark_id, levels, level_names, unit, mean, ci_lower, ci_upper,
                ci_level, components, resolution
         FROM run_benchmarks",
        [],
        |r| LegacyBenchmark::read(r),
    )
    .map_err(db)?;
    let mut spreads = Spreads::new(benchmarks);
    let mut stmt = tx
        .prepare(
            "SELECT run_id, benchmark_id, build, round, execution, iteration, value, warmup
             FROM samples ORDER BY run_id, benchmark_id, rowid",
        )
        .map_err(db)?;
    let mut rows = stmt.query([]).map_err(db)?;
    while let Some(r) = rows.next().map_err(db)? {
        let (run, benchmark, s) = sample_of(r).map_err(db)?;
        spreads.sample(run, benchmark, s, &damaged)?;
    }
    Ok(spreads)
}

/// The data of schema 3 for a history of schema 2 (see [`crate::migrate`]): sessions for the
/// stored runs, each benchmark's spread from its samples (else its interval), commit times in UTC.
fn fill_schema_3(tx: &Transaction<'_>, path: &Path) -> Result<()> {
    let db = db_error(path);
    let damaged = |what, message| damaged_in(path, what, message);
    let runs = rows_of(
        tx,
        "SELECT id, machine_id, started, ended, ingested_at, rigor_version FROM runs ORDER BY id",
        [],
        |r| LegacyRun::read(r),
    )
    .map_err(db)?;
    for s in sessions_of(runs) {
        let id = insert_session(tx, s.machine, &s.values).map_err(db)?;
        let mut set = tx
            .prepare_cached("UPDATE runs SET session_id = ?1 WHERE id = ?2")
            .map_err(db)?;
        for run in s.runs {
            set.execute(params![id, run]).map_err(db)?;
        }
    }
    let spreads = spreads(tx, path)?;
    let mut set = tx
        .prepare_cached(
            "UPDATE run_benchmarks SET var_of_mean = ?1, units = ?2, level = ?3, var_of_level = ?4
             WHERE run_id = ?5 AND benchmark_id = ?6",
        )
        .map_err(db)?;
    for ((run, benchmark), s) in spreads.finish(&damaged)? {
        set.execute(params![
            s.var_of_mean,
            s.units as i64,
            s.level,
            s.var_of_level,
            run,
            benchmark
        ])
        .map_err(db)?;
    }
    let times = rows_of(
        tx,
        "SELECT id, commit_time FROM versions WHERE commit_time IS NOT NULL",
        [],
        |r| Ok((r.int(0)?, r.text(1)?)),
    )
    .map_err(db)?;
    for (id, time) in times {
        let utc = normalised_time(&time);
        if utc.as_ref() != Some(&time) {
            tx.execute(
                "UPDATE versions SET commit_time = ?1 WHERE id = ?2",
                params![utc, id],
            )
            .map_err(db)?;
        }
    }
    Ok(())
}

/// The rows `sql` selects, each read by `row`.
fn rows_of<T>(
    conn: &Connection,
    sql: &str,
    values: impl rusqlite::Params,
    row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
    conn.prepare_cached(sql)?.query_map(values, row)?.collect()
}

crate::rows::impl_cells!(rusqlite::Row<'_>, rusqlite::Error, get);

fn machine_id(tx: &Connection, m: &MachineInfo) -> rusqlite::Result<i64> {
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

fn version_id(tx: &Connection, v: &VersionInfo) -> rusqlite::Result<i64> {
    let values = VersionValues::of(v);
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
            values.parents,
            v.author,
            values.time,
            v.subject,
            v.order,
        ],
        |r| r.get(0),
    )
}

fn benchmark_id(tx: &Connection, name: &str) -> rusqlite::Result<i64> {
    tx.query_row(
        "INSERT INTO benchmarks (name) VALUES (?1)
         ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id",
        params![name],
        |r| r.get(0),
    )
}

fn insert_session(tx: &Connection, machine: i64, s: &SessionValues) -> rusqlite::Result<i64> {
    tx.query_row(
        "INSERT INTO sessions (machine_id, kind, started, ended, load_before, load_after,
             rigor_version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
        params![
            machine,
            s.kind,
            s.started,
            s.ended,
            s.load_before,
            s.load_after,
            s.rigor_version
        ],
        |r| r.get(0),
    )
}

/// The session a run of `machine` goes into: `given` (checked to be of that machine), else a new
/// one of its own made of `own`.
fn session_for(
    tx: &Connection,
    given: Option<SessionId>,
    machine: (i64, &str),
    own: impl FnOnce() -> SessionValues,
    db: &dyn Fn(rusqlite::Error) -> HistoryError,
) -> Result<i64> {
    let Some(id) = given else {
        return insert_session(tx, machine.0, &own()).map_err(db);
    };
    let found = tx
        .query_row(
            "SELECT machine_id FROM sessions WHERE id = ?1",
            params![id.0],
            |r| r.get(0),
        )
        .optional()
        .map_err(db)?;
    check_session(id, found, machine.0, machine.1).map(|()| id.0)
}

fn insert_benchmark(tx: &Connection, run: i64, b: &BenchmarkRecord) -> rusqlite::Result<()> {
    let id = benchmark_id(tx, &b.name)?;
    let v = BenchmarkValues::of(b);
    tx.execute(
        "INSERT INTO run_benchmarks (run_id, benchmark_id, command, levels, level_names, unit,
             mean, ci_lower, ci_upper, ci_level, var_of_mean, units, components, failures,
             resolution, level, var_of_level)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
        params![
            run,
            id,
            v.command,
            v.levels,
            v.level_names,
            v.unit,
            v.mean,
            v.lower,
            v.upper,
            v.level,
            v.var_of_mean,
            v.units,
            v.components,
            v.failures,
            v.resolution,
            v.robust,
            v.var_of_robust,
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
             user_time, sys_time, max_rss, resolution, run_delay)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
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
            e.run_delay.map(|d| d.get()),
        ])?;
    }
    let mut metric = tx.prepare_cached(
        "INSERT INTO execution_metrics (run_id, benchmark_id, pos, name, unit, metric_values)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for (pos, name, unit, values) in execution_metric_values(b) {
        metric.execute(params![run, id, pos, name, unit, values])?;
    }
    Ok(())
}

impl SqliteHistory {
    /// Runs `sql` with `values` and collects a row of each result with `row`.
    fn rows<T>(
        &self,
        sql: &str,
        values: impl rusqlite::Params,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        self.db(rows_of(&self.conn, sql, values, row))
    }

    /// The rows `sql` selects, each read by `row` and decoded.
    fn decoded<R: Decode>(
        &self,
        sql: &str,
        values: impl rusqlite::Params,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<R>,
    ) -> Result<Vec<R::Decoded>> {
        self.rows(sql, values, row)?
            .into_iter()
            .map(|r| r.decode(&|what, m| self.damaged(what, m)))
            .collect()
    }

    /// Every benchmark's name and every version's, by id: looked up once each rather than joined
    /// into every row of a long series.
    fn names_by_id(&self) -> Result<(HashMap<i64, String>, HashMap<i64, String>)> {
        let names = |sql: &str| -> Result<HashMap<i64, String>> {
            Ok(self
                .rows(sql, [], |r| Ok((r.get(0)?, r.get(1)?)))?
                .into_iter()
                .collect())
        };
        Ok((
            names("SELECT id, name FROM benchmarks")?,
            names("SELECT id, rev FROM versions")?,
        ))
    }
}

impl RawRuns for SqliteHistory {
    /// The stored benchmark of each run of a benchmark's series, oldest run first.
    fn run_benchmarks_of(
        &self,
        key: &SeriesKey,
        benchmark: &str,
        rev: Option<&str>,
    ) -> Result<Vec<RunBenchmark>> {
        let only = version_clause(rev);
        self.decoded(
            &format!(
                "SELECT {RUN_INFO_COLUMNS}, rb.command, rb.levels, rb.level_names, rb.unit,
                        rb.failures, v.rev
                 FROM run_benchmarks rb
                 JOIN runs r ON r.id = rb.run_id
                 JOIN versions v ON v.id = r.version_id
                 JOIN machines m ON m.id = r.machine_id
                 JOIN benchmarks b ON b.id = rb.benchmark_id
                 WHERE m.name = ?1 AND r.branch = ?2 AND b.name = ?3 AND r.status <> 'failed'
                   {only}
                 ORDER BY r.id"
            ),
            rusqlite::params_from_iter(series_values(key, benchmark, rev)),
            |r| RunBenchmarkRow::read(r),
        )
    }

    /// Every sample and execution of a benchmark's series (of version `rev` alone, when given),
    /// by run, in two queries (reading a series version by version would cost a query per
    /// version).
    fn series_data(
        &self,
        key: &SeriesKey,
        benchmark: &str,
        rev: Option<&str>,
    ) -> Result<HashMap<i64, RunData>> {
        let only = version_clause(rev);
        let query = |table: &str, columns: &str| {
            format!(
                "SELECT x.run_id, {columns} FROM {table} x
                 JOIN benchmarks b ON b.id = x.benchmark_id JOIN runs r ON r.id = x.run_id
                 JOIN machines m ON m.id = r.machine_id
                 WHERE m.name = ?1 AND r.branch = ?2 AND b.name = ?3 AND r.status <> 'failed'
                   {only}
                 ORDER BY x.run_id, x.rowid"
            )
        };
        let values = series_values(key, benchmark, rev);
        let values = || rusqlite::params_from_iter(&values);
        let mut data: HashMap<i64, RunData> = HashMap::new();
        let samples = self.rows(
            &query(
                "samples",
                "x.benchmark_id, x.build, x.round, x.execution, x.iteration, x.value, x.warmup",
            ),
            values(),
            |r| sample_of(r),
        )?;
        for (run, _, s) in samples {
            data.entry(run).or_default().samples.push(s);
        }
        let executions = self.rows(
            &query(
                "executions",
                "x.build, x.round, x.execution, x.warmup, x.wall, x.user_time, x.sys_time,
                 x.max_rss, x.resolution, x.run_delay",
            ),
            values(),
            |r| execution_of(r),
        )?;
        for (run, mut e, resolution) in executions {
            e.resolution = resolution_of(resolution, |what, m| self.damaged(what, m))?;
            data.entry(run).or_default().executions.push(e);
        }
        let metrics = self.rows(
            &format!(
                "SELECT x.run_id, x.pos, x.name, x.unit, x.metric_values FROM execution_metrics x
                 JOIN benchmarks b ON b.id = x.benchmark_id JOIN runs r ON r.id = x.run_id
                 JOIN machines m ON m.id = r.machine_id
                 WHERE m.name = ?1 AND r.branch = ?2 AND b.name = ?3 AND r.status <> 'failed'
                   {only}"
            ),
            values(),
            |r| ExecutionMetricRow::read(r),
        )?;
        for m in metrics {
            m.attach(&mut data, &|what, m| self.damaged(what, m))?;
        }
        Ok(data)
    }
}

impl SqliteHistory {}

impl HistoryRead for SqliteHistory {
    fn has_run(&self, key: &SeriesKey, rev: &str) -> Result<bool> {
        self.db(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM runs r JOIN versions v ON v.id = r.version_id
                 JOIN machines m ON m.id = r.machine_id
                 WHERE v.rev = ?1 AND m.name = ?2 AND r.branch = ?3)",
            params![rev, key.machine, key.branch],
            |r| r.get(0),
        ))
    }

    fn stored_benchmarks(&self, key: &SeriesKey, rev: &str) -> Result<Vec<String>> {
        self.rows(
            "SELECT DISTINCT b.name FROM run_benchmarks rb
             JOIN benchmarks b ON b.id = rb.benchmark_id
             JOIN runs r ON r.id = rb.run_id JOIN versions v ON v.id = r.version_id
             JOIN machines m ON m.id = r.machine_id
             WHERE v.rev = ?1 AND m.name = ?2 AND r.branch = ?3 AND r.status <> 'failed'
             ORDER BY b.name",
            params![rev, key.machine, key.branch],
            |r| r.get(0),
        )
    }

    fn versions(&self, key: &SeriesKey) -> Result<Vec<StoredVersion>> {
        self.decoded(
            &format!(
                "SELECT {VERSION_COLUMNS}, COUNT(r.id),
                        SUM(CASE WHEN r.status = 'failed' THEN 1 ELSE 0 END)
                 FROM runs r JOIN versions v ON v.id = r.version_id
                 JOIN machines m ON m.id = r.machine_id
                 WHERE m.name = ?1 AND r.branch = ?2
                 GROUP BY v.id ORDER BY {VERSION_ORDER}"
            ),
            params![key.machine, key.branch],
            |r| StoredVersionRow::read(r),
        )
    }

    fn benchmarks(&self, key: &SeriesKey) -> Result<Vec<String>> {
        self.rows(
            // Each benchmark asks whether one run of the series has it (a search that stops at
            // the first), where a join kept every run's row of a long history to make them
            // distinct (0.14 s of `track changes` on 50 benchmarks × 10,000 versions, now 0.1 ms).
            "SELECT b.name FROM benchmarks b WHERE EXISTS (
                 SELECT 1 FROM runs r JOIN run_benchmarks rb ON rb.run_id = r.id
                 WHERE rb.benchmark_id = b.id AND r.branch = ?2
                   AND r.machine_id = (SELECT id FROM machines WHERE name = ?1))
             ORDER BY b.name",
            params![key.machine, key.branch],
            |r| r.get(0),
        )
    }

    fn series_keys(&self) -> Result<Vec<SeriesKey>> {
        self.rows(
            "SELECT DISTINCT m.name, r.branch FROM runs r JOIN machines m ON m.id = r.machine_id
             ORDER BY m.name, r.branch",
            [],
            |r| {
                Ok(SeriesKey::new(
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                ))
            },
        )
    }

    fn series(&self, key: &SeriesKey, benchmark: &str) -> Result<Vec<VersionData>> {
        self.merged_series(key, benchmark)
    }

    fn version_data(
        &self,
        key: &SeriesKey,
        benchmark: &str,
        rev: &str,
    ) -> Result<Option<VersionData>> {
        self.merged_version(key, benchmark, rev)
    }

    fn run_records(&self, key: &SeriesKey, benchmark: &str) -> Result<Vec<RunRecord>> {
        self.raw_records(key, benchmark)
    }

    fn cpu_shares(&self, runs: &[RunId]) -> Result<Vec<RunCpuShare>> {
        // In chunks: SQLite limits a statement's parameters (32,766 since 3.32).
        let mut rows = Vec::new();
        for chunk in runs.chunks(500) {
            let marks = vec!["?"; chunk.len()].join(", ");
            rows.extend(self.rows(
                &format!(
                    "SELECT x.run_id, b.name, x.user_time + x.sys_time, x.wall, r.others_cpus,
                         m.cpus, x.run_delay
                     FROM executions x
                     JOIN benchmarks b ON b.id = x.benchmark_id
                     JOIN runs r ON r.id = x.run_id
                     JOIN machines m ON m.id = r.machine_id
                     WHERE x.warmup = 0 AND x.run_id IN ({marks})"
                ),
                rusqlite::params_from_iter(chunk.iter().map(|r| r.0)),
                |r| {
                    Ok(crate::types::ShareRow {
                        run: r.get(0)?,
                        benchmark: r.get(1)?,
                        cpu: r.get(2)?,
                        wall: r.get(3)?,
                        others_cpus: r.get(4)?,
                        cpus: r.get(5)?,
                        run_delay: r.get(6)?,
                    })
                },
            )?);
        }
        Ok(RunCpuShare::of_rows(rows))
    }

    fn measured_runs(&self, key: &SeriesKey) -> Result<Vec<RunStamp>> {
        self.rows(
            "SELECT r.id, r.fingerprint FROM runs r JOIN machines m ON m.id = r.machine_id
             WHERE m.name = ?1 AND r.branch = ?2 AND r.status <> 'failed' ORDER BY r.id",
            params![key.machine, key.branch],
            |r| {
                Ok(RunStamp {
                    id: RunId(r.get(0)?),
                    fingerprint: r.get(1)?,
                })
            },
        )
    }

    fn summaries_from(&self, key: &SeriesKey, first: RunId) -> Result<Vec<StoredSummary>> {
        // Names are looked up once each rather than joined into a million rows.
        let (benchmarks, versions) = self.names_by_id()?;
        let sql = format!(
            "SELECT rb.benchmark_id, r.version_id, {RUN_INFO_COLUMNS}, rb.unit, rb.mean,
                    rb.ci_lower, rb.ci_upper, rb.ci_level, rb.var_of_mean, rb.units,
                    rb.components, rb.resolution, rb.level, rb.var_of_level
             FROM runs r JOIN run_benchmarks rb ON rb.run_id = r.id
             WHERE r.machine_id = (SELECT id FROM machines WHERE name = ?1)
               AND r.branch = ?2 AND r.status <> 'failed' AND r.id >= ?3"
        );
        let mut stmt = self.db(self.conn.prepare(&sql))?;
        let mut out = Vec::new();
        let mut rows = self.db(stmt.query(params![key.machine, key.branch, first.0]))?;
        let damaged = |what, m| self.damaged(what, m);
        while let Some(r) = self.db(rows.next())? {
            let name = |map: &HashMap<i64, String>, i: usize| -> Result<String> {
                let id: i64 = self.db(r.get(i))?;
                map.get(&id)
                    .cloned()
                    .ok_or_else(|| self.damaged("summaries", format!("unknown id {id}")))
            };
            let row = self.db(SummaryRow::read(
                r,
                name(&benchmarks, 0)?,
                name(&versions, 1)?,
            ))?;
            out.push(row.decode(&damaged)?);
        }
        out.sort_unstable_by_key(|x| x.run.id);
        Ok(out)
    }

    fn levels(&self, key: &SeriesKey) -> Result<StoredLevels> {
        // What `summaries` reads for levels, without a `String` per row (text cells borrowed,
        // names looked up once each by id): decoding every summary in full was two fifths of
        // `track changes` over 50 benchmarks × 10,000 versions.
        //
        // The runs read are those up to the newest when the read begins, taken before the names:
        // every benchmark and version those runs name is then among the names read, even while
        // another process stores more runs.
        let span: (Option<i64>, Option<i64>, i64) = self.db(self.conn.query_row(
            "SELECT min(r.id), max(r.id), count(*) FROM runs r
             WHERE r.machine_id = (SELECT id FROM machines WHERE name = ?1)
               AND r.branch = ?2 AND r.status <> 'failed'",
            params![key.machine, key.branch],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        ))?;
        let (Some(first), Some(last), runs) = span else {
            return Ok(StoredLevels::default());
        };
        let (benchmark_names, version_names) = self.names_by_id()?;
        // Each benchmark by its rank among the names (rows are ordered by run, and within a
        // run by benchmark name, as PostgreSQL orders them), each version by its place in a
        // list of names: the rows carry indexes, looked up as they are read.
        let mut by_name: Vec<(&String, i64)> =
            benchmark_names.iter().map(|(id, n)| (n, *id)).collect();
        by_name.sort_unstable();
        let version_list: Vec<(i64, &String)> =
            version_names.iter().map(|(id, n)| (*id, n)).collect();
        let ids = IdIndexes {
            benchmarks: by_name
                .iter()
                .enumerate()
                .map(|(r, (_, id))| (*id, r))
                .collect(),
            versions: version_list
                .iter()
                .enumerate()
                .map(|(i, (id, _))| (*id, i))
                .collect(),
        };
        // A long series is read in two halves of its runs at once, the newer half through a
        // connection of its own (SQLite steps one statement on one thread; the rows' decoding
        // is most of this read, and `track changes` waits for all of it).
        let mut read = if runs >= self.parallel_levels_from {
            let middle = first + (last - first) / 2;
            let (path, ids) = (self.path.as_path(), &ids);
            let newer = move || -> Result<Vec<StoredLevel>> {
                let conn = Connection::open_with_flags(
                    path,
                    rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                        | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )
                .map_err(db_error(path))?;
                conn.busy_timeout(Duration::from_secs(60))
                    .map_err(db_error(path))?;
                level_rows(&conn, path, key, (middle + 1, last), ids)
            };
            let (older, newer) = std::thread::scope(|scope| {
                let newer = scope.spawn(newer);
                let older = level_rows(&self.conn, &self.path, key, (first, middle), ids);
                (older, newer.join())
            });
            let mut read = older?;
            read.extend(newer.unwrap_or_else(|panic| std::panic::resume_unwind(panic))?);
            read
        } else {
            level_rows(&self.conn, &self.path, key, (first, last), &ids)?
        };
        read.sort_unstable_by_key(|l| (l.run.id, l.benchmark));
        // Names indexed in the order they first appear, as `StoredLevels::of_summaries` does.
        let mut out = StoredLevels {
            levels: read,
            ..StoredLevels::default()
        };
        let mut benchmarks: Vec<Option<usize>> = vec![None; by_name.len()];
        let mut versions: Vec<Option<usize>> = vec![None; version_list.len()];
        for level in &mut out.levels {
            let r = level.benchmark;
            level.benchmark = *benchmarks[r].get_or_insert_with(|| {
                out.benchmarks.push(by_name[r].0.clone());
                out.benchmarks.len() - 1
            });
            let v = level.version;
            level.version = *versions[v].get_or_insert_with(|| {
                out.versions.push(version_list[v].1.clone());
                out.versions.len() - 1
            });
        }
        Ok(out)
    }

    fn changes(&self, filter: &ChangeFilter) -> Result<Vec<StoredChange>> {
        self.decoded(
            &format!(
                "SELECT c.id, b.name, m.name, c.branch, v.rev, pv.rev, c.ratio, c.ci_lower,
                        c.ci_upper, c.p_value, c.q_value, c.verdict, c.method, c.status,
                        c.current, c.detected_at, v.commit_time, c.evidence, c.metric
                 FROM changes c
                 JOIN benchmarks b ON b.id = c.benchmark_id
                 JOIN machines m ON m.id = c.machine_id
                 JOIN versions v ON v.id = c.version_id
                 LEFT JOIN versions pv ON pv.id = c.previous_version_id
                 WHERE (?1 IS NULL OR b.name = ?1) AND (?2 IS NULL OR m.name = ?2)
                   AND (?3 IS NULL OR c.branch = ?3) AND (?4 OR c.current = 1)
                 ORDER BY {VERSION_ORDER}, b.name, c.metric"
            ),
            params![
                filter.benchmark,
                filter.machine,
                filter.branch,
                filter.include_stale
            ],
            |r| ChangeRow::read(r),
        )
    }

    fn sessions(&self, key: &SeriesKey) -> Result<Vec<StoredSession>> {
        let rows = self.rows(
            "SELECT s.id, m.name, s.kind, s.started, s.ended, s.load_before, s.load_after,
                    s.rigor_version, r.id
             FROM sessions s JOIN machines m ON m.id = s.machine_id
             JOIN runs r ON r.session_id = s.id
             WHERE m.name = ?1 AND r.branch = ?2
             ORDER BY s.id, r.id",
            params![key.machine, key.branch],
            |r| SessionRow::read(r),
        )?;
        crate::rows::sessions_of(rows, &|what, m| self.damaged(what, m))
    }
}

impl HistoryWrite for SqliteHistory {
    fn begin_session(&mut self, session: &NewSession<'_>) -> Result<SessionId> {
        let path = self.path.clone();
        let db = db_error(&path);
        let tx = self.write()?;
        let machine = machine_id(&tx, session.machine).map_err(db)?;
        let id = insert_session(&tx, machine, &SessionValues::of(session)).map_err(db)?;
        tx.commit().map_err(db)?;
        Ok(SessionId(id))
    }

    fn end_session(&mut self, id: SessionId, end: &SessionEnd) -> Result<()> {
        self.update_one(
            "UPDATE sessions SET ended = ?1, load_after = ?2 WHERE id = ?3",
            params![time_text(end.ended), end.load_after, id.0],
            HistoryError::NoSuchSession(id),
        )
    }

    fn ingest(&mut self, run: &Ingest<'_>) -> Result<Ingested> {
        let prints = fingerprints(run);
        let print = &prints.current;
        let path = self.path.clone();
        let db = db_error(&path);
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
        let session = session_for(
            &tx,
            run.session,
            (machine, &run.machine.name),
            || SessionValues::own(run),
            &db,
        )?;
        let version = version_id(&tx, run.version).map_err(db)?;
        let v = RunValues::of(run, print);
        let id: i64 = tx
            .query_row(
                "INSERT INTO runs (fingerprint, version_id, machine_id, session_id, branch, status,
                     seed, started, ended, rigor_version, settings, note, artifact, role,
                     ingested_at, others_cpus)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, NULL, ?12, ?13, ?14, ?15)
                 RETURNING id",
                params![
                    v.fingerprint,
                    version,
                    machine,
                    session,
                    run.branch,
                    v.status,
                    v.seed,
                    v.started,
                    v.ended,
                    v.rigor_version,
                    v.settings,
                    v.artifact,
                    v.role,
                    v.ingested_at,
                    v.others_cpus,
                ],
                |row| row.get(0),
            )
            .map_err(db)?;
        for b in &run.result.benchmarks {
            insert_benchmark(&tx, id, b).map_err(db)?;
        }
        tx.commit().map_err(db)?;
        Ok(Ingested::Added(RunId(id)))
    }

    fn record_failure(&mut self, f: &Failure<'_>) -> Result<RunId> {
        let print = failure_fingerprint(f);
        let path = self.path.clone();
        let db = db_error(&path);
        let tx = self.write()?;
        let existing: Option<i64> = tx
            .query_row(
                "UPDATE runs SET note = ?2 WHERE fingerprint = ?1 RETURNING id",
                params![print, f.reason],
                |r| r.get(0),
            )
            .optional()
            .map_err(db)?;
        let id = match existing {
            Some(id) => id,
            None => {
                let m = machine_id(&tx, f.machine).map_err(db)?;
                let session = session_for(
                    &tx,
                    f.session,
                    (m, &f.machine.name),
                    SessionValues::own_failure,
                    &db,
                )?;
                let v = version_id(&tx, f.version).map_err(db)?;
                tx.query_row(
                    "INSERT INTO runs (fingerprint, version_id, machine_id, session_id, branch,
                         status, seed, rigor_version, note, ingested_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, 'failed', '0', ?6, ?7, ?8)
                     RETURNING id",
                    params![
                        print,
                        v,
                        m,
                        session,
                        f.branch,
                        env!("CARGO_PKG_VERSION"),
                        f.reason,
                        crate::rows::now()
                    ],
                    |r| r.get(0),
                )
                .map_err(db)?
            }
        };
        tx.commit().map_err(db)?;
        Ok(RunId(id))
    }
}

impl History for SqliteHistory {
    fn save_metric_changes(&mut self, detected: &DetectedChanges<'_>) -> Result<()> {
        let path = self.path.clone();
        let db = db_error(&path);
        let tx = self.write()?;
        let ids: Option<(i64, i64)> = tx
            .query_row(
                "SELECT (SELECT id FROM benchmarks WHERE name = ?1),
                        (SELECT id FROM machines WHERE name = ?2)",
                params![detected.benchmark, detected.series.machine],
                |r| Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, Option<i64>>(1)?)),
            )
            .map(|(b, m)| b.zip(m))
            .map_err(db)?;
        let Some((b, m)) = ids else {
            return Ok(());
        };
        tx.execute(
            "UPDATE changes SET current = 0
             WHERE benchmark_id = ?1 AND machine_id = ?2 AND branch = ?3 AND metric = ?4",
            params![b, m, detected.series.branch, detected.metric.name()],
        )
        .map_err(db)?;
        for c in detected.changes.iter().map(ChangeValues::of) {
            tx.execute(
                "INSERT INTO changes (benchmark_id, machine_id, branch, version_id, previous_version_id,
                     ratio, ci_lower, ci_upper, p_value, q_value, verdict, method, current, detected_at,
                     evidence, metric)
                 VALUES (?1, ?2, ?3, (SELECT id FROM versions WHERE rev = ?4),
                         (SELECT id FROM versions WHERE rev = ?5), ?6, ?7, ?8, ?9, ?10, ?11, ?12, 1, ?13,
                         ?14, ?15)
                 ON CONFLICT (benchmark_id, machine_id, branch, version_id, metric) DO UPDATE SET
                     previous_version_id = excluded.previous_version_id, ratio = excluded.ratio,
                     ci_lower = excluded.ci_lower, ci_upper = excluded.ci_upper,
                     p_value = excluded.p_value, q_value = excluded.q_value,
                     verdict = excluded.verdict, method = excluded.method, current = 1,
                     evidence = CASE WHEN changes.evidence IN ('confirmed', 'refuted')
                                      AND excluded.evidence = 'detected'
                                     THEN changes.evidence ELSE excluded.evidence END",
                params![
                    b,
                    m,
                    detected.series.branch,
                    c.change.rev,
                    c.change.previous_rev,
                    c.change.ratio,
                    c.lower,
                    c.upper,
                    c.change.p_value,
                    c.change.q_value,
                    c.verdict,
                    c.change.method,
                    c.detected_at,
                    c.evidence,
                    detected.metric.name(),
                ],
            )
            .map_err(db)?;
        }
        tx.commit().map_err(db)
    }

    fn set_status(&mut self, id: ChangeId, status: ChangeStatus) -> Result<()> {
        self.update_one(
            "UPDATE changes SET status = ?1 WHERE id = ?2",
            params![status.as_str(), id.0],
            HistoryError::NoSuchChange(id),
        )
    }

    fn remove_runs(&mut self, selection: &RunSelection, mode: RemoveMode) -> Result<Removed> {
        let path = self.path.clone();
        let db = db_error(&path);
        let tx = self.write()?;
        let key = &selection.series;
        let (session, rev) = selection.session_and_rev();
        let rows = rows_of(
            &tx,
            "SELECT r.id, r.version_id, v.rev, r.session_id, r.status = 'failed', rb.benchmark_id,
                    b.name,
                    (SELECT COUNT(*) FROM samples s
                     WHERE s.run_id = r.id AND s.benchmark_id = rb.benchmark_id)
             FROM runs r JOIN versions v ON v.id = r.version_id
             JOIN machines m ON m.id = r.machine_id
             LEFT JOIN run_benchmarks rb ON rb.run_id = r.id
             LEFT JOIN benchmarks b ON b.id = rb.benchmark_id
             WHERE m.name = ?1 AND r.branch = ?2 AND (?3 IS NULL OR r.session_id = ?3)
               AND (?4 IS NULL OR v.rev = ?4)
             ORDER BY r.id, b.name",
            params![key.machine, key.branch, session, rev],
            |r| CandidateRow::read(r),
        )
        .map_err(db)?;
        let plan = remove::plan(rows, selection.benchmark.as_deref());
        for table in remove::BENCHMARK_TABLES {
            let mut delete = tx
                .prepare_cached(&format!(
                    "DELETE FROM {table} WHERE run_id = ?1 AND benchmark_id = ?2"
                ))
                .map_err(db)?;
            for (run, benchmark) in &plan.parts {
                delete.execute(params![run, benchmark]).map_err(db)?;
            }
        }
        for run in &plan.runs {
            tx.execute("DELETE FROM runs WHERE id = ?1", params![run])
                .map_err(db)?;
        }
        let mut removed = plan.removed;
        for session in &plan.sessions {
            let gone: Option<i64> = tx
                .query_row(
                    "DELETE FROM sessions
                     WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM runs WHERE session_id = ?1)
                     RETURNING id",
                    params![session],
                    |r| r.get(0),
                )
                .optional()
                .map_err(db)?;
            removed.sessions.extend(gone.map(SessionId));
        }
        for (benchmark, version) in &plan.changed {
            let ids = rows_of(
                &tx,
                "UPDATE changes SET current = 0
                 WHERE machine_id = (SELECT id FROM machines WHERE name = ?1) AND branch = ?2
                   AND benchmark_id = ?3 AND current = 1
                   AND (version_id = ?4 OR previous_version_id = ?4)
                 RETURNING id",
                params![key.machine, key.branch, benchmark, version],
                |r| r.get(0),
            )
            .map_err(db)?;
            removed.changes.extend(ids.into_iter().map(ChangeId));
        }
        removed.changes.sort_unstable();
        match mode {
            RemoveMode::Remove => tx.commit().map_err(db)?,
            RemoveMode::DryRun => tx.rollback().map_err(db)?,
        }
        Ok(removed)
    }

    fn set_evidence(&mut self, id: ChangeId, evidence: crate::Evidence) -> Result<()> {
        self.update_one(
            "UPDATE changes SET evidence = ?1 WHERE id = ?2",
            params![evidence.as_str(), id.0],
            HistoryError::NoSuchChange(id),
        )
    }

    fn as_read(&self) -> &dyn HistoryRead {
        self
    }

    fn as_write(&mut self) -> &mut dyn HistoryWrite {
        self
    }
}
