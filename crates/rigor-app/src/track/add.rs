//! Storing a saved result as a version's measurement (`rigor track add`), a commit off the
//! branch's first-parent line under a label of its own.

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

/// A version placed in a branch's series by [`place_version`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedVersion {
    /// The version to store.
    pub version: VersionInfo,
    /// The commit, when it is off the branch's first-parent line (stored under
    /// [`off_line_label`], not ordered among the branch's commits unless an order was given).
    pub off_line: Option<String>,
}

/// The label a commit off a branch's first-parent line is stored under: its first ten digits and
/// the branch (`0123456789@main`), a version of its own that takes no commit's place.
pub fn off_line_label(commit: &str, branch: &str) -> String {
    let short: String = commit.chars().take(10).collect();
    format!("{short}@{branch}")
}

/// The version `rev` names for a series of `branch`: as [`version`] makes it (a commit ordered
/// by its first-parent generation, or a label ordered by `order`), except a commit of `repo`
/// that is not on the branch's first-parent line — a side branch's, a merged branch's — which
/// its generation would place among the branch's commits as if it had been one of them: it is
/// stored under a label of its own ([`off_line_label`], its commit facts kept), ordered by
/// `order` only. When the branch names no commit of `repo`, nothing can be checked.
pub fn place_version(repo: &Path, rev: &str, order: Option<i64>, branch: &str) -> PlacedVersion {
    let version = super::version(Some(repo), rev, order);
    let off_line = version.commit.clone().filter(|commit| {
        matches!(
            git::on_first_parent_line(repo, commit, branch),
            Ok(Some(false))
        )
    });
    match off_line {
        Some(commit) => PlacedVersion {
            version: VersionInfo {
                rev: off_line_label(&commit, branch),
                order,
                ..version
            },
            off_line: Some(commit),
        },
        None => PlacedVersion {
            version,
            off_line: None,
        },
    }
}
