//! Fixtures shared by the history tests: results whose times sit on a timer's steps, and
//! versions stored one after another.

#![allow(dead_code)] // each test binary uses its own part

use rigor_app::analysis::analyze_all;
use rigor_app::settings::AnalysisSettings;
use rigor_history::{HistoryWrite, Ingest, MachineInfo, SqliteHistory, VersionInfo};
use rigor_store::{BenchmarkRecord, ExecutionRecord, Layout, ResultFile, SampleRecord};
use rigor_units::{ConfidenceLevel, Resolution, Seconds, Seed, TimeUnit};

/// One version's result of benchmark `name`: 6 executions of 5 samples, every sample `value`
/// (in `unit`), each execution reporting `resolution`; analysed, as `rigor track add` stores it.
pub fn quantised(
    name: &str,
    seed: u64,
    (value, unit): (f64, TimeUnit),
    resolution: Option<Resolution>,
) -> ResultFile {
    let mut b = BenchmarkRecord::new(name, "./add", Layout::new(false, true));
    b.unit = unit;
    for e in 0..6 {
        for i in 0..5 {
            b.samples.push(SampleRecord {
                build: None,
                round: e,
                execution: e,
                iteration: i,
                value,
                warmup: false,
            });
        }
        b.executions.push(ExecutionRecord {
            preempted: None,
            run_delay: None,
            metrics: Default::default(),
            build: None,
            round: e,
            execution: e,
            warmup: false,
            wall: Seconds(0.01),
            user: Seconds(0.01),
            sys: Seconds(0.0),
            max_rss: 1 << 20,
            exit_code: None,
            env_pad: None,
            resolution,
        });
    }
    let mut r = ResultFile {
        benchmarks: vec![b],
        ..ResultFile::new(Seed(seed), ConfidenceLevel::NINETY_FIVE)
    };
    analyze_all(&mut r, &AnalysisSettings::default());
    r
}

/// A machine without environment facts.
pub fn machine(name: &str) -> MachineInfo {
    MachineInfo {
        name: name.into(),
        environment: Default::default(),
    }
}

/// Stores `result` as version `v{k}` (ordered by `k`) of branch `main` on `machine`.
pub fn ingest(h: &mut SqliteHistory, machine: &MachineInfo, k: i64, result: &ResultFile) {
    let version = VersionInfo {
        rev: format!("v{k}"),
        order: Some(k),
        ..Default::default()
    };
    h.ingest(&Ingest::new(&version, machine, "main", result))
        .unwrap();
}

/// One version's level as the dashboard's oracle takes it from the history itself.
pub struct LevelEstimate {
    /// The version.
    pub rev: String,
    /// The level in seconds as Fieller's input: its variance from the fit (the spread between
    /// sessions in it when known) and its degrees of freedom + 1, as `track::levels` takes them.
    pub estimate: rigor_stats::fieller::MeanEstimate,
    /// The coarsest resolution its runs reported.
    pub resolution: Option<Resolution>,
    /// Its group of connected sessions.
    pub component: Option<usize>,
    /// Whether the spread between sessions is unknown.
    pub unknown: bool,
}

/// Every version's level of `benchmark` on `machine` / main, by `track::levels::series_levels`.
pub fn level_estimates(h: &SqliteHistory, machine: &str, benchmark: &str) -> Vec<LevelEstimate> {
    use rigor_app::track::levels::series_levels;
    use rigor_history::SeriesKey;
    let all = series_levels(
        h,
        &SeriesKey::new(machine, "main"),
        ConfidenceLevel::NINETY_FIVE,
    )
    .unwrap();
    let l = all.iter().find(|l| l.benchmark == benchmark).unwrap();
    let across = l.fit.session_variance();
    l.versions
        .iter()
        .map(|v| {
            let parts = l.fit.contrast_variance(&[(v.point, 1.0)]);
            let var = parts.total(across).unwrap_or(parts.estimation);
            let own: usize = v.runs.iter().map(|r| r.units - 1).sum();
            let df = across.map_or(own, |s| own.min(s.df.max(1))).max(1);
            let level = Seconds::from_unit(v.level, l.unit).0;
            let e = rigor_stats::fieller::MeanEstimate::new(
                level,
                level * level * var * (df + 1) as f64,
                df + 1,
            );
            LevelEstimate {
                rev: v.rev.to_string(),
                estimate: e.unwrap(),
                resolution: v.resolution,
                component: l.fit.component(v.point),
                unknown: v.sessions_unknown,
            }
        })
        .collect()
}

/// A session of `machine`, begun now (its runs measured together, as `rigor track run` measures
/// a batch).
#[allow(dead_code)]
pub fn session(h: &mut SqliteHistory, machine: &MachineInfo) -> rigor_history::SessionId {
    h.begin_session(&rigor_history::NewSession {
        machine,
        kind: rigor_history::SessionKind::Run,
        started: jiff::Timestamp::now(),
        load_before: None,
        rigor_version: "test",
    })
    .unwrap()
}

/// [`ingest`] into a session.
#[allow(dead_code)]
pub fn ingest_in(
    h: &mut SqliteHistory,
    machine: &MachineInfo,
    k: i64,
    result: &ResultFile,
    session: rigor_history::SessionId,
) {
    let version = VersionInfo {
        rev: format!("v{k}"),
        order: Some(k),
        ..Default::default()
    };
    h.ingest(&Ingest {
        session: Some(session),
        ..Ingest::new(&version, machine, "main", result)
    })
    .unwrap();
}
