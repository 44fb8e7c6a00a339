//! Storing a saved result as a version's measurement (`rigor track add`), a commit off the
//! branch's first-parent line under a label of its own.

use rigor_report::track::{AddedOutcome, AddedView};
use rigor_report::track_lines::Line;

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
/// `track run` file, its `provenance`): stored in one session, they tie together as they were
/// measured, from the time and under the load the file recorded (else now, and no load).
pub fn add_session(
    history: &mut dyn HistoryWrite,
    machine: &MachineInfo,
    provenance: &rigor_store::Provenance,
) -> Result<rigor_history::SessionId> {
    Ok(history.begin_session(&rigor_history::NewSession {
        machine,
        kind: rigor_history::SessionKind::Add,
        started: provenance.started.unwrap_or_else(jiff::Timestamp::now),
        load_before: provenance.load_before,
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
        artifact: artifact_of(&result),
        ..Ingest::new(version, machine, branch, &result)
    })?;
    Ok((Added::Stored(ingested), result.warnings))
}

/// The hash of what the version's build produced, as a `track run` file records it with each
/// benchmark (`None` when none does, or they disagree): stored with the run, so that versions
/// whose builds are byte-identical share a level as they do when `track run` stores them.
fn artifact_of(result: &ResultFile) -> Option<rigor_history::ArtifactHash> {
    let mut hashes = result.benchmarks.iter().map(|b| b.artifact.as_deref());
    let first = hashes.next().flatten()?;
    hashes
        .all(|h| h == Some(first))
        .then(|| first.parse().ok())
        .flatten()
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

/// What `rigor track add` stores.
#[derive(Debug, Clone)]
pub struct AddRequest {
    /// The files: results of rigor or of other tools.
    pub files: Vec<PathBuf>,
    /// Their format (default: recognised from each file's content).
    pub format: Option<rigor_store::import::Format>,
    /// The version measured (default: the version each result names, [`version_of`]).
    pub version: Option<String>,
    /// The repository the versions belong to.
    pub repo: PathBuf,
    /// The position of a labelled version.
    pub order: Option<i64>,
    /// The series ([`series_key`]).
    pub key: SeriesKey,
}

/// What `rigor track add` did with one result: the notes it has (a commit that differs from
/// the version's, a label, a commit off the branch's line), the result's warnings, and the
/// line that says where it went.
#[derive(Debug, Clone)]
pub struct AddReport {
    /// Notes and warnings about the version.
    pub notes: Vec<Line>,
    /// The result's warnings (levels its format did not record).
    pub warnings: Vec<rigor_store::Warning>,
    /// What became of it.
    pub added: AddedView,
}

/// Stores each result the files hold (files of a format that measures in one process read
/// together, per format, [`ingest_groups`]; a `track run` file of several versions as each of
/// them, in one session), telling `told` of each as it is stored.
pub fn add_files(
    history: &mut dyn HistoryWrite,
    request: &AddRequest,
    told: &mut dyn FnMut(AddReport),
) -> Result<()> {
    let groups = ingest_groups(&request.files, request.format)?;
    if request.version.is_some() && groups.len() > 1 {
        return Err(TrackError::VersionForGroups(groups.len()).into());
    }
    // A file of several versions (a `track run` session's) carries its run's warnings for each:
    // told once (a new user's file of 15 versions said its busy machine 15 times).
    let mut said: Vec<rigor_store::Warning> = Vec::new();
    let mut once = |mut r: AddReport| {
        r.warnings.retain(|w| !said.contains(w));
        said.extend(r.warnings.iter().cloned());
        told(r);
    };
    for files in &groups {
        add_group(history, request, files, &mut once)?;
    }
    Ok(())
}

/// The files grouped into the results to store: files of a format that measures in one process
/// (Google Benchmark, criterion, cargo-criterion, BenchmarkTools.jl) together, per format, as the
/// process executions of one result; every other file alone.
pub fn ingest_groups(
    files: &[PathBuf],
    format: Option<rigor_store::import::Format>,
) -> Result<Vec<Vec<PathBuf>>> {
    let mut groups: Vec<(Option<rigor_store::import::Format>, Vec<PathBuf>)> = Vec::new();
    for file in files {
        let found = rigor_store::import::load(file, format)?.format;
        let key = found.one_process().then_some(found);
        match groups.iter_mut().find(|(k, _)| key.is_some() && *k == key) {
            Some((_, g)) => g.push(file.clone()),
            None => groups.push((key, vec![file.clone()])),
        }
    }
    Ok(groups.into_iter().map(|(_, g)| g).collect())
}

/// Files as one name: a path, or paths joined with " + " (read together).
pub fn files_shown(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The version a result says it measured: the label `track run` gives each version's file,
/// else the commit it was run at (rigor's results; ReBench's `# Source:` lines); `files` names
/// it in the error.
pub fn version_of(result: &ResultFile, files: &str) -> Result<String> {
    result
        .provenance
        .label
        .clone()
        .or(result.provenance.git.as_ref().map(|g| g.commit.clone()))
        .ok_or_else(|| TrackError::NoVersionNamed(files.to_string()).into())
}

/// The note on a result stored as `commit`: measured at another commit (a warning), or of a
/// format that records none (nothing can be checked).
pub fn commit_note(
    imported: &rigor_store::import::Imported,
    files: &str,
    commit: &str,
) -> Option<Line> {
    let recorded = imported.result.provenance.git.as_ref();
    match recorded.filter(|g| !g.commit.is_empty()) {
        // A recorded commit may be abbreviated (ReBench's).
        Some(git) if !commit.starts_with(git.commit.as_str()) => Some(Line::OtherCommit {
            files: files.to_string(),
            measured: git.commit.clone(),
            dirty: git.dirty,
            stored: commit.to_string(),
        }),
        Some(_) => None,
        None => Some(Line::NoCommitRecorded {
            files: files.to_string(),
            format: imported.format.to_string(),
            stored: commit.to_string(),
        }),
    }
}

/// Stores the result of one group of files.
fn add_group(
    history: &mut dyn HistoryWrite,
    request: &AddRequest,
    files: &[PathBuf],
    told: &mut dyn FnMut(AddReport),
) -> Result<()> {
    let name = files_shown(files);
    let imported = rigor_store::import::load_together(files, request.format)?;
    crate::saved::holds_benchmarks(&imported.result, files)?;
    refuse_single_units(&imported.result, &name)?;
    // A `track run` file of several versions measured together: each version stored as its own.
    if let Some(parts) = split_versions(&imported.result) {
        if request.version.is_some() {
            return Err(TrackError::VersionOfSeveral {
                files: name,
                versions: parts.len(),
            }
            .into());
        }
        // Measured together: one session, so the history ties them together.
        let machine = this_machine(Some(&request.key.machine));
        let provenance = imported.result.provenance.clone();
        let session = add_session(history, &machine, &provenance)?;
        for (rev, result) in parts {
            let part = rigor_store::import::Imported {
                result,
                ..imported.clone()
            };
            let shown = format!("{name} ({})", rigor_report::track_run::short(&rev));
            told(add_result(
                history,
                request,
                shown,
                part,
                &rev,
                (Some(session), true),
            )?);
        }
        let end = rigor_history::SessionEnd {
            ended: provenance.ended.unwrap_or_else(jiff::Timestamp::now),
            load_after: provenance.load_after,
        };
        history.end_session(session, &end)?;
        return Ok(());
    }
    let rev = match &request.version {
        Some(v) => v.clone(),
        None => version_of(&imported.result, &name)?,
    };
    told(add_result(
        history,
        request,
        name,
        imported,
        &rev,
        (None, false),
    )?);
    Ok(())
}

/// Refuses a result in which every benchmark that measured something measured one top-level
/// unit: its summaries (what the history tracks) would all be missing, and "Stored" would
/// store nothing to show.
fn refuse_single_units(result: &ResultFile, name: &str) -> Result<()> {
    let mut measured = result
        .benchmarks
        .iter()
        .filter_map(|b| b.hierarchy().ok().map(|h| (b, h.units(0))));
    let Some((first, _)) = measured.clone().next() else {
        return Ok(());
    };
    if measured.all(|(_, units)| units < 2) {
        return Err(TrackError::NothingToTrack {
            files: name.to_string(),
            level: first.level_names()[0].clone(),
        }
        .into());
    }
    Ok(())
}

/// Stores one version's result (`name`: the files it came from, for messages) in `session`
/// (`None`: one of its own); `named`: the file itself names `rev` as the version measured (a
/// `track run` file of several versions), so there is no commit to check it against.
fn add_result(
    history: &mut dyn HistoryWrite,
    request: &AddRequest,
    name: String,
    imported: rigor_store::import::Imported,
    rev: &str,
    (session, named): (Option<rigor_history::SessionId>, bool),
) -> Result<AddReport> {
    let key = &request.key;
    let placed = place_version(&request.repo, rev, request.order, &key.branch);
    let version = placed.version;
    let mut notes = Vec::new();
    match &version.commit {
        Some(_) if named => {}
        Some(commit) => notes.extend(commit_note(&imported, &name, commit)),
        None => notes.push(Line::Label {
            rev: rev.to_string(),
            repo: request.repo.display().to_string(),
        }),
    }
    if let Some(commit) = placed.off_line {
        notes.push(Line::OffLine {
            commit,
            branch: key.branch.clone(),
            label: version.rev.clone(),
            ordered: request.order.is_some(),
        });
    }
    let machine = this_machine(Some(&key.machine));
    let (added, warnings) = add_in(
        history,
        imported.result,
        &version,
        &machine,
        &key.branch,
        session,
    )?;
    let outcome = match added {
        Added::Failed(reason) => AddedOutcome::Failed(reason),
        Added::Stored(Ingested::Added(id)) => AddedOutcome::Stored(id.0),
        Added::Stored(Ingested::AlreadyStored(id)) => AddedOutcome::AlreadyStored(id.0),
    };
    Ok(AddReport {
        notes,
        warnings,
        added: AddedView {
            files: name,
            rev: version.rev,
            machine: key.machine.clone(),
            branch: key.branch.clone(),
            outcome,
        },
    })
}
