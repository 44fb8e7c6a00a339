//! Storing a saved result as a version's measurement (`rigor track add`).

use super::*;

/// Ingests a result read from files (a killed run's too, or another tool's results, see
/// [`crate::saved::load_together`]), analysed so its summaries are stored. Returns the result's
/// warnings (levels the format did not record) with what was stored.
pub fn add(
    history: &mut dyn HistoryWrite,
    result: ResultFile,
    version: &VersionInfo,
    machine: &MachineInfo,
    branch: &str,
) -> Result<(Added, Vec<rigor_store::Warning>)> {
    add_in(history, result, version, machine, branch, None)
}

/// Begins the session of results that were measured together elsewhere (the versions of one
/// `track run` file): stored in one session, they tie together as they were measured.
pub fn add_session(
    history: &mut dyn HistoryWrite,
    machine: &MachineInfo,
) -> Result<rigor_history::SessionId> {
    Ok(history.begin_session(&rigor_history::NewSession {
        machine,
        kind: rigor_history::SessionKind::Add,
        started: jiff::Timestamp::now(),
        load_before: None,
        rigor_version: env!("CARGO_PKG_VERSION"),
    })?)
}

/// [`add`] into a session (`None`: a session of its own).
pub fn add_in(
    history: &mut dyn HistoryWrite,
    mut result: ResultFile,
    version: &VersionInfo,
    machine: &MachineInfo,
    branch: &str,
    session: Option<rigor_history::SessionId>,
) -> Result<(Added, Vec<rigor_store::Warning>)> {
    // A complete result that measured nothing (every build or execution failed) is a failed
    // version, as `track run` records one, not a run of empty series.
    let nothing = result.status == RunStatus::Complete
        && !result.benchmarks.is_empty()
        && result
            .benchmarks
            .iter()
            .all(|b| b.samples.iter().all(|s| s.warmup));
    if nothing {
        let reason = why_nothing(&result.benchmarks);
        history.record_failure(&Failure {
            session,
            ..Failure::new(version, machine, branch, &reason)
        })?;
        return Ok((Added::Failed(reason), result.warnings));
    }
    analyze_all(&mut result, &AnalysisSettings::default());
    let ingested = history.ingest(&Ingest {
        session,
        ..Ingest::new(version, machine, branch, &result)
    })?;
    Ok((Added::Stored(ingested), result.warnings))
}

/// Why benchmarks measured nothing: their first three failures, for a failed version's record.
pub(super) fn why_nothing(benchmarks: &[BenchmarkRecord]) -> String {
    let reasons: Vec<String> = benchmarks
        .iter()
        .flat_map(crate::exports::failure_lines)
        .take(3)
        .collect();
    if reasons.is_empty() {
        "nothing was measured".to_string()
    } else {
        reasons.join("; ")
    }
}

/// What [`add`] did with a result.
#[derive(Debug, Clone, PartialEq)]
pub enum Added {
    /// Stored as a run (or found stored already).
    Stored(Ingested),
    /// It measured nothing: the version is recorded as failed, for this reason.
    Failed(String),
}
