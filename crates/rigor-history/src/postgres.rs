//! The PostgreSQL backend (cargo feature `postgres`): the same tables and behaviour as
//! [`crate::sqlite`], on a server that several machines share, plus the job queue of a benchmark
//! farm ([`crate::queue`]).
//!
//! Client: the synchronous `postgres` crate (rust-postgres, well kept, pure Rust). TLS: rustls
//! (pure Rust with `ring`, so a fresh machine with only gcc builds it) when the URL asks for it
//! (`sslmode=require`); the server's certificate is checked against `PGSSLROOTCERT` when set, else
//! against the Mozilla roots. The password comes from the URL, `PGPASSWORD`, or a file named by
//! `RIGOR_DB_PASSWORD_FILE` that only its owner may read; it never appears in messages.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use postgres::config::SslMode;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::ToSql;
use postgres::{Client, Config, GenericClient, Row, Transaction};
use rigor_store::{BenchmarkRecord, SampleRecord};

use crate::error::{HistoryError, Result};
use crate::location::redact;
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
    ChangeFilter, ChangeId, ChangeStatus, DetectedChanges, Failure, Ingest, Ingested,
    LevelsBuilder, MachineInfo, NewSession, RunCpuShare, RunId, RunRecord, RunStamp, SeriesKey,
    SessionEnd, SessionId, StoredChange, StoredLevels, StoredSession, StoredSummary, StoredVersion,
    VersionData, VersionInfo,
};
use crate::{History, HistoryRead, HistoryWrite};

/// The migrations, in order; the schema version is their count.
const MIGRATIONS: [&str; 9] = [
    include_str!("../migrations/postgres/0001_initial.sql"),
    include_str!("../migrations/postgres/0002_jobs.sql"),
    include_str!("../migrations/postgres/0003_resolution.sql"),
    include_str!("../migrations/postgres/0004_sessions.sql"),
    include_str!("../migrations/postgres/0005_job_specs.sql"),
    include_str!("../migrations/postgres/0006_huber_levels.sql"),
    include_str!("../migrations/postgres/0007_metrics.sql"),
    include_str!("../migrations/postgres/0008_others_cpus.sql"),
    include_str!("../migrations/postgres/0009_run_delay.sql"),
];

/// The migration whose second half, the data of the sessions' schema, [`fill_sessions`] computes.
const SESSIONS: usize = 3;

/// The migration whose data, Huber's levels, [`fill_levels`] computes (a history from before the
/// sessions' schema gets them with that schema's data).
const HUBER_LEVELS: usize = 5;

/// The schema version this build writes and the newest it reads.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// History order, as in SQLite (NULLs last, then time, then when first stored).
const VERSION_ORDER: &str = "v.order_key NULLS LAST, v.commit_time NULLS LAST, v.first_seen";

/// A history in a PostgreSQL database.
pub struct PostgresHistory {
    client: Mutex<Client>,
    /// The URL without its password, for messages.
    shown: String,
}

impl std::fmt::Debug for PostgresHistory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresHistory")
            .field("url", &self.shown)
            .finish_non_exhaustive()
    }
}

/// Why work in a transaction stopped: the server's error (retried when it asks), or the
/// history's own.
pub(crate) enum Fail {
    /// The server's.
    Db(postgres::Error),
    /// The history's (a missing session, a lost lease).
    History(HistoryError),
}

impl From<postgres::Error> for Fail {
    fn from(e: postgres::Error) -> Self {
        Self::Db(e)
    }
}

impl From<HistoryError> for Fail {
    fn from(e: HistoryError) -> Self {
        Self::History(e)
    }
}

impl PostgresHistory {
    /// Connects to the database at `url` (`postgres://user@host:port/db?sslmode=require`),
    /// bringing an older schema up to date and refusing a newer one.
    pub fn open(url: &str) -> Result<Self> {
        let shown = redact(url);
        let mut config: Config = url.parse().map_err(|source| HistoryError::Postgres {
            url: shown.clone(),
            source,
        })?;
        if config.get_password().is_none() {
            if let Some(password) = password_from_environment(&shown)? {
                config.password(password);
            }
        }
        config.application_name("rigor");
        let connected = if config.get_ssl_mode() == SslMode::Disable {
            config.connect(postgres::NoTls)
        } else {
            config.connect(crate::tls::connector(&shown)?)
        };
        let client = connected.map_err(|source| HistoryError::Postgres {
            url: shown.clone(),
            source,
        })?;
        let mut history = Self {
            client: Mutex::new(client),
            shown,
        };
        history.migrate()?;
        Ok(history)
    }

    /// The URL, without its password.
    pub fn url(&self) -> &str {
        &self.shown
    }

    pub(crate) fn db(&self, source: postgres::Error) -> HistoryError {
        HistoryError::Postgres {
            url: self.shown.clone(),
            source,
        }
    }

    pub(crate) fn client(&self) -> MutexGuard<'_, Client> {
        // A panic while holding the lock cannot leave the client half-used in a way that
        // matters more than the panic itself.
        self.client.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn migrate(&mut self) -> Result<()> {
        let too_new = |found: i64| HistoryError::SchemaTooNew {
            path: self.shown.clone().into(),
            found,
            supported: SCHEMA_VERSION,
        };
        // Up to date: nothing is written, so a role that may only read (a dashboard) can open it.
        let found = schema_version(&mut *self.client()).map_err(|e| self.db(e))?;
        if found > SCHEMA_VERSION {
            return Err(too_new(found));
        }
        if found == SCHEMA_VERSION {
            return Ok(());
        }
        let shown = self.shown.clone();
        self.in_transaction(|tx| {
            // One migrating process at a time (the lock ends with the transaction); the version
            // is read again under the lock.
            tx.batch_execute(
                "SELECT pg_advisory_xact_lock(7262391);
                 CREATE TABLE IF NOT EXISTS rigor_schema (version BIGINT NOT NULL);",
            )?;
            let found = schema_version(tx)?;
            if found > SCHEMA_VERSION {
                return Err(too_new(found).into());
            }
            for (i, sql) in MIGRATIONS.iter().enumerate().skip(found.max(0) as usize) {
                tx.batch_execute(sql)?;
                if i == SESSIONS {
                    fill_sessions(tx, &shown)?;
                }
                if i == HUBER_LEVELS && found > SESSIONS as i64 {
                    fill_levels(tx, &shown)?;
                }
            }
            tx.execute("DELETE FROM rigor_schema", &[])?;
            tx.execute("INSERT INTO rigor_schema VALUES ($1)", &[&SCHEMA_VERSION])?;
            Ok(())
        })
    }

    fn damaged(&self, what: &'static str, message: String) -> HistoryError {
        damaged_in(&self.shown, what, message)
    }

    /// Runs `sql`, an update of one row by its id: `missing` when there is no such row.
    fn update_one(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        missing: HistoryError,
    ) -> Result<()> {
        match self.client().execute(sql, params).map_err(|e| self.db(e))? {
            0 => Err(missing),
            _ => Ok(()),
        }
    }

    /// Runs `work` in a transaction, again when the server asks (deadlock, serialization).
    pub(crate) fn in_transaction<T>(
        &self,
        mut work: impl FnMut(&mut Transaction<'_>) -> Result<T, Fail>,
    ) -> Result<T> {
        let mut client = self.client();
        let mut tries = 0;
        loop {
            let attempt = client.transaction().map_err(Fail::Db).and_then(|mut tx| {
                let out = work(&mut tx)?;
                tx.commit()?;
                Ok(out)
            });
            match attempt {
                Ok(out) => return Ok(out),
                Err(Fail::Db(e)) if tries < 5 && is_retryable(&e) => tries += 1,
                Err(Fail::Db(e)) => return Err(self.db(e)),
                Err(Fail::History(e)) => return Err(e),
            }
        }
    }
}

impl PostgresHistory {
    /// Runs `work` in a transaction that is then rolled back (a dry run).
    fn rolled_back<T>(
        &self,
        work: impl FnOnce(&mut Transaction<'_>) -> Result<T, Fail>,
    ) -> Result<T> {
        let mut client = self.client();
        let mut tx = client.transaction().map_err(|e| self.db(e))?;
        let out = work(&mut tx);
        tx.rollback().map_err(|e| self.db(e))?;
        out.map_err(|e| match e {
            Fail::Db(e) => self.db(e),
            Fail::History(e) => e,
        })
    }
}

/// [`History::remove_runs`] in a transaction (see [`crate::remove`] for what goes).
fn remove_in(tx: &mut Transaction<'_>, selection: &RunSelection) -> Result<Removed, Fail> {
    let key = &selection.series;
    let (session, rev) = selection.session_and_rev();
    let rows = read_all(
        tx,
        "SELECT r.id, r.version_id, v.rev, r.session_id, r.status = 'failed', rb.benchmark_id,
                b.name,
                (SELECT COUNT(*) FROM samples s
                 WHERE s.run_id = r.id AND s.benchmark_id = rb.benchmark_id)
         FROM runs r JOIN versions v ON v.id = r.version_id
         JOIN machines m ON m.id = r.machine_id
         LEFT JOIN run_benchmarks rb ON rb.run_id = r.id
         LEFT JOIN benchmarks b ON b.id = rb.benchmark_id
         WHERE m.name = $1 AND r.branch = $2 AND ($3::bigint IS NULL OR r.session_id = $3)
           AND ($4::text IS NULL OR v.rev = $4)
         ORDER BY r.id, b.name",
        &[&key.machine, &key.branch, &session, &rev],
        CandidateRow::read,
    )?;
    let plan = remove::plan(rows, selection.benchmark.as_deref());
    let (runs, benchmarks): (Vec<i64>, Vec<i64>) = plan.parts.iter().copied().unzip();
    for table in remove::BENCHMARK_TABLES {
        tx.execute(
            &format!(
                "DELETE FROM {table} x USING unnest($1::bigint[], $2::bigint[]) AS p(run, benchmark)
                 WHERE x.run_id = p.run AND x.benchmark_id = p.benchmark"
            ),
            &[&runs, &benchmarks],
        )?;
    }
    tx.execute("DELETE FROM runs WHERE id = ANY($1)", &[&plan.runs])?;
    let mut removed = plan.removed;
    let gone = read_all(
        tx,
        "DELETE FROM sessions s WHERE s.id = ANY($1)
             AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.session_id = s.id)
         RETURNING s.id",
        &[&plan.sessions],
        |r| r.int(0),
    )?;
    removed.sessions = gone.into_iter().map(SessionId).collect();
    removed.sessions.sort_unstable();
    let (benchmarks, versions): (Vec<i64>, Vec<i64>) = plan.changed.iter().copied().unzip();
    let changed = read_all(
        tx,
        "UPDATE changes c SET current = FALSE
         FROM unnest($3::bigint[], $4::bigint[]) AS p(benchmark, version)
         WHERE c.machine_id = (SELECT id FROM machines WHERE name = $1) AND c.branch = $2
           AND c.benchmark_id = p.benchmark AND c.current
           AND (c.version_id = p.version OR c.previous_version_id = p.version)
         RETURNING c.id",
        &[&key.machine, &key.branch, &benchmarks, &versions],
        |r| r.int(0),
    )?;
    removed.changes = changed.into_iter().map(ChangeId).collect();
    removed.changes.sort_unstable();
    removed.changes.dedup();
    Ok(removed)
}

fn damaged_in(shown: &str, what: &'static str, message: String) -> HistoryError {
    HistoryError::Damaged {
        path: shown.into(),
        what,
        message,
    }
}

/// The schema version stored in the database (0 before any migration).
fn schema_version(c: &mut impl GenericClient) -> Result<i64, postgres::Error> {
    let exists: bool = c
        .query_one("SELECT to_regclass('rigor_schema') IS NOT NULL", &[])?
        .get(0);
    if !exists {
        return Ok(0);
    }
    Ok(c.query_opt("SELECT version FROM rigor_schema", &[])?
        .map_or(0, |r| r.get(0)))
}

/// The data of the sessions' schema for an older history (see [`crate::migrate`]): sessions for
/// the stored runs, each benchmark's spread from its samples (else its interval), commit times in
/// UTC; then every run is checked to have a session.
fn fill_sessions(tx: &mut Transaction<'_>, shown: &str) -> Result<(), Fail> {
    let damaged = |what, message| damaged_in(shown, what, message);
    let runs = read_all(
        tx,
        "SELECT id, machine_id, started, ended, ingested_at, rigor_version FROM runs ORDER BY id",
        &[],
        LegacyRun::read,
    )?;
    for s in sessions_of(runs) {
        let id = insert_session(tx, s.machine, &s.values)?;
        tx.execute(
            "UPDATE runs SET session_id = $1 WHERE id = ANY($2)",
            &[&id, &s.runs],
        )?;
    }
    tx.batch_execute("ALTER TABLE runs VALIDATE CONSTRAINT runs_need_a_session")?;
    let spreads = spreads(tx, shown)?;
    for ((run, benchmark), s) in spreads.finish(&damaged)? {
        tx.execute(
            "UPDATE run_benchmarks SET var_of_mean = $1, units = $2, level = $3,
                 var_of_level = $4
             WHERE run_id = $5 AND benchmark_id = $6",
            &[
                &s.var_of_mean,
                &(s.units as i64),
                &s.level,
                &s.var_of_level,
                &run,
                &benchmark,
            ],
        )?;
    }
    let times = read_all(
        tx,
        "SELECT id, commit_time FROM versions WHERE commit_time IS NOT NULL",
        &[],
        |r| Ok((r.int(0)?, r.text(1)?)),
    )?;
    for (id, time) in times {
        let utc = normalised_time(&time);
        if utc.as_ref() != Some(&time) {
            tx.execute(
                "UPDATE versions SET commit_time = $1 WHERE id = $2",
                &[&utc, &id],
            )?;
        }
    }
    Ok(())
}

/// Huber's levels for a history of the sessions' schema: each run benchmark's level and its
/// variance recomputed from its samples (rows without samples keep theirs).
fn fill_levels(tx: &mut Transaction<'_>, shown: &str) -> Result<(), Fail> {
    let damaged = |what, message| damaged_in(shown, what, message);
    for ((run, benchmark), s) in spreads(tx, shown)?.finish_from_samples(&damaged)? {
        tx.execute(
            "UPDATE run_benchmarks SET level = $1, var_of_level = $2
             WHERE run_id = $3 AND benchmark_id = $4",
            &[&s.level, &s.var_of_level, &run, &benchmark],
        )?;
    }
    Ok(())
}

/// Every run benchmark's samples fed to [`Spreads`], run by run (streamed: a history's samples
/// need not fit in memory).
fn spreads(tx: &mut Transaction<'_>, shown: &str) -> Result<Spreads, Fail> {
    let damaged = |what, message| damaged_in(shown, what, message);
    let benchmarks = read_all(
        tx,
        "SELECT run_id, benchmark_id, levels, level_names, unit, mean, ci_lower, ci_upper,
                ci_level, components, resolution
         FROM run_benchmarks",
        &[],
        LegacyBenchmark::read,
    )?;
    let mut spreads = Spreads::new(benchmarks);
    let mut rows = tx.query_raw(
        "SELECT run_id, benchmark_id, build, round, execution, iteration, value, warmup
         FROM samples ORDER BY run_id, benchmark_id, pos",
        std::iter::empty::<i64>(),
    )?;
    while let Some(r) = rows.next()? {
        let (run, benchmark, s) = sample_of(&r)?;
        spreads.sample(run, benchmark, s, &damaged)?;
    }
    Ok(spreads)
}

/// The rows `sql` selects, each read by `row`.
fn read_all<T>(
    c: &mut impl GenericClient,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
    row: impl Fn(&Row) -> Result<T, postgres::Error>,
) -> Result<Vec<T>, postgres::Error> {
    c.query(sql, params)?.iter().map(row).collect()
}

crate::rows::impl_cells!(Row, postgres::Error, try_get);

/// Whether the server aborted a transaction that may succeed when run again.
fn is_retryable(e: &postgres::Error) -> bool {
    use postgres::error::SqlState;
    e.code().is_some_and(|c| {
        *c == SqlState::T_R_DEADLOCK_DETECTED || *c == SqlState::T_R_SERIALIZATION_FAILURE
    })
}

/// The password from `PGPASSWORD`, else from the file `RIGOR_DB_PASSWORD_FILE` names (which
/// must not be readable by group or others).
fn password_from_environment(shown: &str) -> Result<Option<String>> {
    if let Ok(p) = std::env::var("PGPASSWORD") {
        return Ok(Some(p));
    }
    let Some(file) = std::env::var_os("RIGOR_DB_PASSWORD_FILE") else {
        return Ok(None);
    };
    let bad = |message: String| HistoryError::Credentials {
        url: shown.to_string(),
        message,
    };
    let path = std::path::PathBuf::from(file);
    let meta = std::fs::metadata(&path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            return Err(bad(format!(
                "{} may be read by others: make it private (chmod 600)",
                path.display()
            )));
        }
    }
    #[cfg(not(unix))]
    let _ = meta;
    let text =
        std::fs::read_to_string(&path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
    Ok(Some(text.trim_end_matches(['\n', '\r']).to_string()))
}

/// The machine's id. Read first: writing the row (when new or changed) locks it until commit,
/// and every worker of a class stores under the same machine.
pub(crate) fn machine_id(
    tx: &mut impl GenericClient,
    m: &MachineInfo,
) -> Result<i64, postgres::Error> {
    let e = &m.environment;
    let cpus = e.cpus as i64;
    let values: [&(dyn ToSql + Sync); 6] = [&m.name, &e.host, &e.os, &e.cpu, &cpus, &e.governor];
    let same = tx.query_opt(
        "SELECT id FROM machines WHERE name = $1 AND host = $2 AND os = $3 AND cpu = $4
             AND cpus = $5 AND governor IS NOT DISTINCT FROM $6",
        &values,
    )?;
    if let Some(row) = same {
        return Ok(row.get(0));
    }
    tx.query_one(
        "INSERT INTO machines (name, host, os, cpu, cpus, governor) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (name) DO UPDATE SET host = excluded.host, os = excluded.os,
             cpu = excluded.cpu, cpus = excluded.cpus, governor = excluded.governor
         RETURNING id",
        &values,
    )
    .map(|r| r.get(0))
}

fn version_id(tx: &mut impl GenericClient, v: &VersionInfo) -> Result<i64, postgres::Error> {
    let values = VersionValues::of(v);
    tx.query_one(
        "INSERT INTO versions (rev, commit_id, parents, author, commit_time, subject, order_key)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (rev) DO UPDATE SET
             commit_id = COALESCE(excluded.commit_id, versions.commit_id),
             parents = COALESCE(excluded.parents, versions.parents),
             author = COALESCE(excluded.author, versions.author),
             commit_time = COALESCE(excluded.commit_time, versions.commit_time),
             subject = COALESCE(excluded.subject, versions.subject),
             order_key = COALESCE(excluded.order_key, versions.order_key)
         RETURNING id",
        &[
            &v.rev,
            &v.commit,
            &values.parents,
            &v.author,
            &values.time,
            &v.subject,
            &v.order,
        ],
    )
    .map(|r| r.get(0))
}

/// The benchmark's id, read first for the same reason as [`machine_id`].
fn benchmark_id(tx: &mut impl GenericClient, name: &str) -> Result<i64, postgres::Error> {
    if let Some(row) = tx.query_opt("SELECT id FROM benchmarks WHERE name = $1", &[&name])? {
        return Ok(row.get(0));
    }
    tx.query_one(
        "INSERT INTO benchmarks (name) VALUES ($1)
         ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id",
        &[&name],
    )
    .map(|r| r.get(0))
}

pub(crate) fn insert_session(
    tx: &mut impl GenericClient,
    machine: i64,
    s: &SessionValues,
) -> Result<i64, postgres::Error> {
    tx.query_one(
        "INSERT INTO sessions (machine_id, kind, started, ended, load_before, load_after,
             rigor_version)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        &[
            &machine,
            &s.kind,
            &s.started,
            &s.ended,
            &s.load_before,
            &s.load_after,
            &s.rigor_version,
        ],
    )
    .map(|r| r.get(0))
}

/// The session a run of `machine` goes into: `given` (checked to be of that machine), else a new
/// one of its own made of `own`. The second value says whether it was made here.
fn session_for(
    tx: &mut impl GenericClient,
    given: Option<SessionId>,
    machine: (i64, &str),
    own: impl FnOnce() -> SessionValues,
) -> Result<(i64, bool), Fail> {
    let Some(id) = given else {
        return Ok((insert_session(tx, machine.0, &own())?, true));
    };
    let found = tx
        .query_opt("SELECT machine_id FROM sessions WHERE id = $1", &[&id.0])?
        .map(|r| r.get(0));
    check_session(id, found, machine.0, machine.1)?;
    Ok((id.0, false))
}

/// Removes a session made for a run that turned out to be stored already (by a concurrent
/// writer), so that no session is left without runs.
fn drop_unused(
    tx: &mut impl GenericClient,
    (session, made): (i64, bool),
    used: i64,
) -> Result<(), postgres::Error> {
    if made && used != session {
        tx.execute("DELETE FROM sessions WHERE id = $1", &[&session])?;
    }
    Ok(())
}

/// Stores one benchmark of a run; samples and executions go in one statement each (arrays
/// unnested by the server), so a result with many samples costs a few round trips.
fn insert_benchmark(
    tx: &mut impl GenericClient,
    run: i64,
    b: &BenchmarkRecord,
) -> Result<(), postgres::Error> {
    let id = benchmark_id(tx, &b.name)?;
    let v = BenchmarkValues::of(b);
    tx.execute(
        "INSERT INTO run_benchmarks (run_id, benchmark_id, command, levels, level_names, unit,
             mean, ci_lower, ci_upper, ci_level, var_of_mean, units, components, failures,
             resolution, level, var_of_level)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)",
        &[
            &run,
            &id,
            &v.command,
            &v.levels,
            &v.level_names,
            &v.unit,
            &v.mean,
            &v.lower,
            &v.upper,
            &v.level,
            &v.var_of_mean,
            &v.units,
            &v.components,
            &v.failures,
            &v.resolution,
            &v.robust,
            &v.var_of_robust,
        ],
    )?;
    let s = &b.samples;
    let column = |f: &dyn Fn(&SampleRecord) -> i64| s.iter().map(f).collect::<Vec<i64>>();
    tx.execute(
        "INSERT INTO samples (run_id, benchmark_id, pos, build, round, execution, iteration, value, warmup)
         SELECT $1, $2, x.pos, x.build, x.round, x.execution, x.iteration, x.value, x.warmup
         FROM unnest($3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::float8[], $8::bool[])
              WITH ORDINALITY AS x(build, round, execution, iteration, value, warmup, pos)",
        &[
            &run,
            &id,
            &s.iter().map(|x| x.build.map(|b| b as i64)).collect::<Vec<_>>(),
            &column(&|x| x.round as i64),
            &column(&|x| x.execution as i64),
            &column(&|x| x.iteration as i64),
            &s.iter().map(|x| x.value).collect::<Vec<f64>>(),
            &s.iter().map(|x| x.warmup).collect::<Vec<bool>>(),
        ],
    )?;
    let e = &b.executions;
    tx.execute(
        "INSERT INTO executions (run_id, benchmark_id, pos, build, round, execution, warmup, wall,
             user_time, sys_time, max_rss, resolution, run_delay)
         SELECT $1, $2, x.pos, x.build, x.round, x.execution, x.warmup, x.wall, x.user_time,
                x.sys_time, x.max_rss, x.resolution, x.run_delay
         FROM unnest($3::bigint[], $4::bigint[], $5::bigint[], $6::bool[], $7::float8[],
                     $8::float8[], $9::float8[], $10::bigint[], $11::float8[], $12::float8[])
              WITH ORDINALITY AS x(build, round, execution, warmup, wall, user_time, sys_time,
                                   max_rss, resolution, run_delay, pos)",
        &[
            &run,
            &id,
            &e.iter()
                .map(|x| x.build.map(|b| b as i64))
                .collect::<Vec<_>>(),
            &e.iter().map(|x| x.round as i64).collect::<Vec<_>>(),
            &e.iter().map(|x| x.execution as i64).collect::<Vec<_>>(),
            &e.iter().map(|x| x.warmup).collect::<Vec<_>>(),
            &e.iter().map(|x| x.wall.get()).collect::<Vec<_>>(),
            &e.iter().map(|x| x.user.get()).collect::<Vec<_>>(),
            &e.iter().map(|x| x.sys.get()).collect::<Vec<_>>(),
            &e.iter().map(|x| x.max_rss as i64).collect::<Vec<_>>(),
            &e.iter()
                .map(|x| x.resolution.map(|r| r.step().get()))
                .collect::<Vec<_>>(),
            &e.iter()
                .map(|x| x.run_delay.map(|d| d.get()))
                .collect::<Vec<_>>(),
        ],
    )?;
    let m = execution_metric_values(b);
    if !m.is_empty() {
        tx.execute(
            "INSERT INTO execution_metrics (run_id, benchmark_id, pos, name, unit, metric_values)
             SELECT $1, $2, x.pos, x.name, x.unit, x.metric_values
             FROM unnest($3::bigint[], $4::text[], $5::text[], $6::text[])
                  AS x(pos, name, unit, metric_values)",
            &[
                &run,
                &id,
                &m.iter().map(|x| x.0).collect::<Vec<_>>(),
                &m.iter().map(|x| x.1).collect::<Vec<_>>(),
                &m.iter().map(|x| x.2).collect::<Vec<_>>(),
                &m.iter().map(|x| x.3.as_str()).collect::<Vec<_>>(),
            ],
        )?;
    }
    Ok(())
}

/// Stores a result inside an open transaction (the queue completes a job in the same one).
pub(crate) fn ingest_in(tx: &mut impl GenericClient, run: &Ingest<'_>) -> Result<Ingested, Fail> {
    let prints = fingerprints(run);
    let print = &prints.current;
    let earlier = tx.query_opt(
        "SELECT r.id FROM runs r JOIN versions v ON v.id = r.version_id
         JOIN machines m ON m.id = r.machine_id
         WHERE r.fingerprint = $1 AND v.rev = $2 AND m.name = $3 AND r.branch = $4",
        &[
            &prints.legacy,
            &run.version.rev,
            &run.machine.name,
            &run.branch,
        ],
    )?;
    if let Some(row) = earlier {
        return Ok(Ingested::AlreadyStored(RunId(row.get(0))));
    }
    let machine = machine_id(tx, run.machine)?;
    let session = session_for(tx, run.session, (machine, &run.machine.name), || {
        SessionValues::own(run)
    })?;
    let version = version_id(tx, run.version)?;
    let v = RunValues::of(run, print);
    // A concurrent ingest of the same result waits for the first to commit, then adds nothing.
    let inserted = tx.query_opt(
        "INSERT INTO runs (fingerprint, version_id, machine_id, session_id, branch, status, seed,
             started, ended, rigor_version, settings, note, artifact, role, ingested_at,
             others_cpus)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL, $12, $13, $14, $15)
         ON CONFLICT (fingerprint) DO NOTHING RETURNING id",
        &[
            &v.fingerprint,
            &version,
            &machine,
            &session.0,
            &run.branch,
            &v.status,
            &v.seed,
            &v.started,
            &v.ended,
            &v.rigor_version,
            &v.settings,
            &v.artifact,
            &v.role,
            &v.ingested_at,
            &v.others_cpus,
        ],
    )?;
    let Some(row) = inserted else {
        let (id, used): (i64, i64) = tx
            .query_one(
                "SELECT id, session_id FROM runs WHERE fingerprint = $1",
                &[print],
            )
            .map(|r| (r.get(0), r.get(1)))?;
        drop_unused(tx, session, used)?;
        return Ok(Ingested::AlreadyStored(RunId(id)));
    };
    let id: i64 = row.get(0);
    for b in &run.result.benchmarks {
        insert_benchmark(tx, id, b)?;
    }
    Ok(Ingested::Added(RunId(id)))
}

/// Records a failed version inside an open transaction.
pub(crate) fn record_failure_in(
    tx: &mut impl GenericClient,
    f: &Failure<'_>,
) -> Result<RunId, Fail> {
    let print = failure_fingerprint(f);
    let existing = tx.query_opt(
        "UPDATE runs SET note = $2 WHERE fingerprint = $1 RETURNING id",
        &[&print, &f.reason],
    )?;
    if let Some(row) = existing {
        return Ok(RunId(row.get(0)));
    }
    let m = machine_id(tx, f.machine)?;
    let session = session_for(
        tx,
        f.session,
        (m, &f.machine.name),
        SessionValues::own_failure,
    )?;
    let v = version_id(tx, f.version)?;
    let (id, used): (i64, i64) = tx
        .query_one(
            "INSERT INTO runs (fingerprint, version_id, machine_id, session_id, branch, status,
                 seed, rigor_version, note, ingested_at)
             VALUES ($1, $2, $3, $4, $5, 'failed', '0', $6, $7, $8)
             ON CONFLICT (fingerprint) DO UPDATE SET note = excluded.note
             RETURNING id, session_id",
            &[
                &print,
                &v,
                &m,
                &session.0,
                &f.branch,
                &env!("CARGO_PKG_VERSION"),
                &f.reason,
                &crate::rows::now(),
            ],
        )
        .map(|r| (r.get(0), r.get(1)))?;
    drop_unused(tx, session, used)?;
    Ok(RunId(id))
}

/// The condition of a series query that keeps it to the version its 4th parameter names, when
/// that is not NULL.
const ONE_VERSION: &str =
    "($4::text IS NULL OR r.version_id = (SELECT id FROM versions WHERE rev = $4::text))";

impl PostgresHistory {
    /// The rows `sql` selects, each read by `row`.
    fn read<T>(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        row: impl Fn(&Row) -> Result<T, postgres::Error>,
    ) -> Result<Vec<T>> {
        read_all(&mut *self.client(), sql, params, row).map_err(|e| self.db(e))
    }

    /// The rows `sql` selects, each read by `row` and decoded.
    fn decoded<R: Decode>(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        row: impl Fn(&Row) -> Result<R, postgres::Error>,
    ) -> Result<Vec<R::Decoded>> {
        self.read(sql, params, row)?
            .into_iter()
            .map(|r| r.decode(&|what, m| self.damaged(what, m)))
            .collect()
    }
}

impl RawRuns for PostgresHistory {
    /// The stored benchmark of each run of a benchmark's series (of version `rev` alone, when
    /// given), oldest run first.
    fn run_benchmarks_of(
        &self,
        key: &SeriesKey,
        benchmark: &str,
        rev: Option<&str>,
    ) -> Result<Vec<RunBenchmark>> {
        self.decoded(
            &format!(
                "SELECT {RUN_INFO_COLUMNS}, rb.command, rb.levels, rb.level_names, rb.unit,
                        rb.failures, v.rev
                 FROM run_benchmarks rb
                 JOIN runs r ON r.id = rb.run_id
                 JOIN versions v ON v.id = r.version_id
                 JOIN machines m ON m.id = r.machine_id
                 JOIN benchmarks b ON b.id = rb.benchmark_id
                 WHERE m.name = $1 AND r.branch = $2 AND b.name = $3 AND r.status <> 'failed'
                   AND {ONE_VERSION}
                 ORDER BY r.id"
            ),
            &[&key.machine, &key.branch, &benchmark, &rev],
            RunBenchmarkRow::read,
        )
    }

    /// Every sample and execution of a benchmark's series (of version `rev` alone, when given),
    /// by run, in two queries.
    fn series_data(
        &self,
        key: &SeriesKey,
        benchmark: &str,
        rev: Option<&str>,
    ) -> Result<HashMap<i64, RunData>> {
        let query = |table: &str, columns: &str| {
            format!(
                "SELECT x.run_id, {columns} FROM {table} x
                 JOIN benchmarks b ON b.id = x.benchmark_id JOIN runs r ON r.id = x.run_id
                 JOIN machines m ON m.id = r.machine_id
                 WHERE m.name = $1 AND r.branch = $2 AND b.name = $3 AND r.status <> 'failed'
                   AND {ONE_VERSION}
                 ORDER BY x.run_id, x.pos"
            )
        };
        let params: [&(dyn ToSql + Sync); 4] = [&key.machine, &key.branch, &benchmark, &rev];
        let mut data: HashMap<i64, RunData> = HashMap::new();
        let samples = query(
            "samples",
            "x.benchmark_id, x.build, x.round, x.execution, x.iteration, x.value, x.warmup",
        );
        for (run, _, s) in self.read(&samples, &params, sample_of)? {
            data.entry(run).or_default().samples.push(s);
        }
        let executions = query(
            "executions",
            "x.build, x.round, x.execution, x.warmup, x.wall, x.user_time, x.sys_time, x.max_rss,
             x.resolution, x.run_delay",
        );
        for (run, mut e, resolution) in self.read(&executions, &params, execution_of)? {
            e.resolution = resolution_of(resolution, |what, m| self.damaged(what, m))?;
            data.entry(run).or_default().executions.push(e);
        }
        let metrics = self.read(
            &format!(
                "SELECT x.run_id, x.pos, x.name, x.unit, x.metric_values FROM execution_metrics x
                 JOIN benchmarks b ON b.id = x.benchmark_id JOIN runs r ON r.id = x.run_id
                 JOIN machines m ON m.id = r.machine_id
                 WHERE m.name = $1 AND r.branch = $2 AND b.name = $3 AND r.status <> 'failed'
                   AND {ONE_VERSION}"
            ),
            &params,
            ExecutionMetricRow::read,
        )?;
        for m in metrics {
            m.attach(&mut data, &|what, m| self.damaged(what, m))?;
        }
        Ok(data)
    }
}

impl PostgresHistory {}

impl HistoryRead for PostgresHistory {
    fn has_run(&self, key: &SeriesKey, rev: &str) -> Result<bool> {
        let found = self.read(
            "SELECT EXISTS (SELECT 1 FROM runs r JOIN versions v ON v.id = r.version_id
                 JOIN machines m ON m.id = r.machine_id
                 WHERE v.rev = $1 AND m.name = $2 AND r.branch = $3)",
            &[&rev, &key.machine, &key.branch],
            |r| r.flag(0),
        )?;
        Ok(found.first().copied().unwrap_or(false))
    }

    fn stored_benchmarks(&self, key: &SeriesKey, rev: &str) -> Result<Vec<String>> {
        self.read(
            "SELECT DISTINCT b.name FROM run_benchmarks rb
             JOIN benchmarks b ON b.id = rb.benchmark_id
             JOIN runs r ON r.id = rb.run_id JOIN versions v ON v.id = r.version_id
             JOIN machines m ON m.id = r.machine_id
             WHERE v.rev = $1 AND m.name = $2 AND r.branch = $3 AND r.status <> 'failed'
             ORDER BY b.name",
            &[&rev, &key.machine, &key.branch],
            |r| r.text(0),
        )
    }

    fn versions(&self, key: &SeriesKey) -> Result<Vec<StoredVersion>> {
        let sql = format!(
            "SELECT {VERSION_COLUMNS}, COUNT(r.id), SUM(CASE WHEN r.status = 'failed' THEN 1 ELSE 0 END)
             FROM runs r JOIN versions v ON v.id = r.version_id
             JOIN machines m ON m.id = r.machine_id
             WHERE m.name = $1 AND r.branch = $2
             GROUP BY v.id ORDER BY {VERSION_ORDER}"
        );
        self.decoded(&sql, &[&key.machine, &key.branch], |r| {
            StoredVersionRow::read(r)
        })
    }

    fn benchmarks(&self, key: &SeriesKey) -> Result<Vec<String>> {
        self.read(
            // Each benchmark asks whether one run of the series has it (a search that stops at
            // the first), where a join kept every run's row of a long history to make them
            // distinct (0.14 s of `track changes` on 50 benchmarks × 10,000 versions, now 0.1 ms).
            "SELECT b.name FROM benchmarks b WHERE EXISTS (
                 SELECT 1 FROM runs r JOIN run_benchmarks rb ON rb.run_id = r.id
                 WHERE rb.benchmark_id = b.id AND r.branch = $2
                   AND r.machine_id = (SELECT id FROM machines WHERE name = $1))
             ORDER BY b.name",
            &[&key.machine, &key.branch],
            |r| r.text(0),
        )
    }

    fn series_keys(&self) -> Result<Vec<SeriesKey>> {
        self.read(
            "SELECT DISTINCT m.name, r.branch FROM runs r JOIN machines m ON m.id = r.machine_id
             ORDER BY m.name, r.branch",
            &[],
            |r| Ok(SeriesKey::new(r.text(0)?, r.text(1)?)),
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

    fn levels(&self, key: &SeriesKey) -> Result<StoredLevels> {
        // What `summaries` reads for levels, text cells borrowed from each row and each name
        // indexed once (decoding every summary in full was two fifths of `track changes` over
        // 50 benchmarks × 10,000 versions on SQLite).
        let sql = format!(
            "SELECT b.name, v.rev, {RUN_INFO_COLUMNS}, rb.unit, rb.mean, rb.units, rb.var_of_mean,
                    rb.level, rb.var_of_level, rb.resolution
             FROM runs r JOIN run_benchmarks rb ON rb.run_id = r.id
             JOIN benchmarks b ON b.id = rb.benchmark_id JOIN versions v ON v.id = r.version_id
             WHERE r.machine_id = (SELECT id FROM machines WHERE name = $1)
               AND r.branch = $2 AND r.status <> 'failed'
             ORDER BY rb.run_id, b.name"
        );
        let rows = self
            .client()
            .query(&sql, &[&key.machine, &key.branch])
            .map_err(|e| self.db(e))?;
        let damaged = |what, m| self.damaged(what, m);
        let mut out = LevelsBuilder::default();
        out.levels.levels.reserve(rows.len());
        for r in &rows {
            let cells = (|| {
                Ok::<_, postgres::Error>((
                    r.try_get::<_, &str>(0)?,
                    r.try_get::<_, &str>(1)?,
                    LevelCells {
                        run: (r.try_get(2)?, r.try_get(3)?),
                        artifact: r.try_get(4)?,
                        role: r.try_get(5)?,
                        unit: r.try_get(6)?,
                        mean: r.try_get(7)?,
                        spread: (r.try_get(8)?, r.try_get(9)?),
                        robust: (r.try_get(10)?, r.try_get(11)?),
                        resolution: r.try_get(12)?,
                    },
                ))
            })();
            let (benchmark, rev, cells) = cells.map_err(|e| self.db(e))?;
            let at = out.names(benchmark, rev);
            out.levels.levels.push(cells.decode(at, &damaged)?);
        }
        Ok(out.levels)
    }

    fn run_records(&self, key: &SeriesKey, benchmark: &str) -> Result<Vec<RunRecord>> {
        self.raw_records(key, benchmark)
    }

    fn cpu_shares(&self, runs: &[RunId]) -> Result<Vec<RunCpuShare>> {
        let ids: Vec<i64> = runs.iter().map(|r| r.0).collect();
        let rows = self.read(
            "SELECT x.run_id, b.name, x.user_time + x.sys_time, x.wall, r.others_cpus, m.cpus,
                 x.run_delay
             FROM executions x
             JOIN benchmarks b ON b.id = x.benchmark_id
             JOIN runs r ON r.id = x.run_id
             JOIN machines m ON m.id = r.machine_id
             WHERE NOT x.warmup AND x.run_id = ANY($1)",
            &[&ids],
            |r| {
                Ok(crate::types::ShareRow {
                    run: r.int(0)?,
                    benchmark: r.text(1)?,
                    cpu: r.real(2)?,
                    wall: r.real(3)?,
                    others_cpus: r.maybe_real(4)?,
                    cpus: r.int(5)?,
                    run_delay: r.maybe_real(6)?,
                })
            },
        )?;
        Ok(RunCpuShare::of_rows(rows))
    }

    fn measured_runs(&self, key: &SeriesKey) -> Result<Vec<RunStamp>> {
        self.read(
            "SELECT r.id, r.fingerprint FROM runs r JOIN machines m ON m.id = r.machine_id
             WHERE m.name = $1 AND r.branch = $2 AND r.status <> 'failed' ORDER BY r.id",
            &[&key.machine, &key.branch],
            |r| {
                Ok(RunStamp {
                    id: RunId(r.int(0)?),
                    fingerprint: r.text(1)?,
                })
            },
        )
    }

    fn summaries_from(&self, key: &SeriesKey, first: RunId) -> Result<Vec<StoredSummary>> {
        self.decoded(
            &format!(
                "SELECT b.name, v.rev, {RUN_INFO_COLUMNS}, rb.unit, rb.mean, rb.ci_lower,
                        rb.ci_upper, rb.ci_level, rb.var_of_mean, rb.units, rb.components,
                        rb.resolution, rb.level, rb.var_of_level
                 FROM runs r JOIN run_benchmarks rb ON rb.run_id = r.id
                 JOIN benchmarks b ON b.id = rb.benchmark_id JOIN versions v ON v.id = r.version_id
                 WHERE r.machine_id = (SELECT id FROM machines WHERE name = $1)
                   AND r.branch = $2 AND r.status <> 'failed' AND r.id >= $3
                 ORDER BY rb.run_id"
            ),
            &[&key.machine, &key.branch, &first.0],
            |r| SummaryRow::read(r, r.text(0)?, r.text(1)?),
        )
    }

    fn changes(&self, filter: &ChangeFilter) -> Result<Vec<StoredChange>> {
        let sql = format!(
            "SELECT c.id, b.name, m.name, c.branch, v.rev, pv.rev, c.ratio, c.ci_lower, c.ci_upper,
                    c.p_value, c.q_value, c.verdict, c.method, c.status, c.current, c.detected_at,
                    v.commit_time, c.evidence, c.metric
             FROM changes c
             JOIN benchmarks b ON b.id = c.benchmark_id
             JOIN machines m ON m.id = c.machine_id
             JOIN versions v ON v.id = c.version_id
             LEFT JOIN versions pv ON pv.id = c.previous_version_id
             WHERE ($1::text IS NULL OR b.name = $1) AND ($2::text IS NULL OR m.name = $2)
               AND ($3::text IS NULL OR c.branch = $3) AND ($4 OR c.current)
             ORDER BY {VERSION_ORDER}, b.name, c.metric"
        );
        self.decoded(
            &sql,
            &[
                &filter.benchmark,
                &filter.machine,
                &filter.branch,
                &filter.include_stale,
            ],
            ChangeRow::read,
        )
    }

    fn sessions(&self, key: &SeriesKey) -> Result<Vec<StoredSession>> {
        let rows = self.read(
            "SELECT s.id, m.name, s.kind, s.started, s.ended, s.load_before, s.load_after,
                    s.rigor_version, r.id
             FROM sessions s JOIN machines m ON m.id = s.machine_id
             JOIN runs r ON r.session_id = s.id
             WHERE m.name = $1 AND r.branch = $2
             ORDER BY s.id, r.id",
            &[&key.machine, &key.branch],
            SessionRow::read,
        )?;
        crate::rows::sessions_of(rows, &|what, m| self.damaged(what, m))
    }
}

impl HistoryWrite for PostgresHistory {
    fn begin_session(&mut self, session: &NewSession<'_>) -> Result<SessionId> {
        let values = SessionValues::of(session);
        self.in_transaction(|tx| {
            let machine = machine_id(tx, session.machine)?;
            Ok(SessionId(insert_session(tx, machine, &values)?))
        })
    }

    fn end_session(&mut self, id: SessionId, end: &SessionEnd) -> Result<()> {
        self.update_one(
            "UPDATE sessions SET ended = $1, load_after = $2 WHERE id = $3",
            &[&time_text(end.ended), &end.load_after, &id.0],
            HistoryError::NoSuchSession(id),
        )
    }

    fn ingest(&mut self, run: &Ingest<'_>) -> Result<Ingested> {
        self.in_transaction(|tx| ingest_in(tx, run))
    }

    fn record_failure(&mut self, failure: &Failure<'_>) -> Result<RunId> {
        self.in_transaction(|tx| record_failure_in(tx, failure))
    }
}

impl History for PostgresHistory {
    fn save_metric_changes(&mut self, detected: &DetectedChanges<'_>) -> Result<()> {
        self.in_transaction(|tx| {
            let ids = tx.query_one(
                "SELECT (SELECT id FROM benchmarks WHERE name = $1),
                        (SELECT id FROM machines WHERE name = $2)",
                &[&detected.benchmark, &detected.series.machine],
            )?;
            let (Some(b), Some(m)) = (ids.get::<_, Option<i64>>(0), ids.get::<_, Option<i64>>(1))
            else {
                return Ok(());
            };
            tx.execute(
                "UPDATE changes SET current = FALSE
                 WHERE benchmark_id = $1 AND machine_id = $2 AND branch = $3 AND metric = $4",
                &[&b, &m, &detected.series.branch, &detected.metric.name()],
            )?;
            for c in detected.changes.iter().map(ChangeValues::of) {
                tx.execute(
                    "INSERT INTO changes (benchmark_id, machine_id, branch, version_id, previous_version_id,
                         ratio, ci_lower, ci_upper, p_value, q_value, verdict, method, current, detected_at,
                         evidence, metric)
                     VALUES ($1, $2, $3, (SELECT id FROM versions WHERE rev = $4),
                             (SELECT id FROM versions WHERE rev = $5), $6, $7, $8, $9, $10, $11, $12, TRUE, $13,
                             $14, $15)
                     ON CONFLICT (benchmark_id, machine_id, branch, version_id, metric) DO UPDATE SET
                         previous_version_id = excluded.previous_version_id, ratio = excluded.ratio,
                         ci_lower = excluded.ci_lower, ci_upper = excluded.ci_upper,
                         p_value = excluded.p_value, q_value = excluded.q_value,
                         verdict = excluded.verdict, method = excluded.method, current = TRUE,
                         evidence = CASE WHEN changes.evidence IN ('confirmed', 'refuted')
                                          AND excluded.evidence = 'detected'
                                         THEN changes.evidence ELSE excluded.evidence END",
                    &[
                        &b,
                        &m,
                        &detected.series.branch,
                        &c.change.rev,
                        &c.change.previous_rev,
                        &c.change.ratio,
                        &c.lower,
                        &c.upper,
                        &c.change.p_value,
                        &c.change.q_value,
                        &c.verdict,
                        &c.change.method,
                        &c.detected_at,
                        &c.evidence,
                        &detected.metric.name(),
                    ],
                )?;
            }
            Ok(())
        })
    }

    fn set_status(&mut self, id: ChangeId, status: ChangeStatus) -> Result<()> {
        self.update_one(
            "UPDATE changes SET status = $1 WHERE id = $2",
            &[&status.as_str(), &id.0],
            HistoryError::NoSuchChange(id),
        )
    }

    fn remove_runs(&mut self, selection: &RunSelection, mode: RemoveMode) -> Result<Removed> {
        match mode {
            RemoveMode::Remove => self.in_transaction(|tx| remove_in(tx, selection)),
            RemoveMode::DryRun => self.rolled_back(|tx| remove_in(tx, selection)),
        }
    }

    fn set_evidence(&mut self, id: ChangeId, evidence: crate::Evidence) -> Result<()> {
        self.update_one(
            "UPDATE changes SET evidence = $1 WHERE id = $2",
            &[&evidence.as_str(), &id.0],
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
