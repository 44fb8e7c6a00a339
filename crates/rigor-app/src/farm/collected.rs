//! What a job measured, kept in memory until the transaction that completes the job.

use super::*;

/// A session as a job measured it, to be stored when the job completes.
#[derive(Debug, Clone)]
pub struct CollectedSession {
    /// The machine.
    pub machine: MachineInfo,
    /// What it was.
    pub kind: SessionKind,
    /// When it began.
    pub started: jiff::Timestamp,
    /// The 1-minute load average as it began.
    pub load_before: Option<f64>,
    /// The rigor that ran it.
    pub rigor_version: String,
    /// How it ended.
    pub end: Option<SessionEnd>,
    /// Its results.
    pub results: Vec<CollectedRun>,
    /// Its versions that could not be measured.
    pub failures: Vec<CollectedFailure>,
}

/// A result a job measured.
#[derive(Debug, Clone)]
pub struct CollectedRun {
    /// The version.
    pub version: VersionInfo,
    /// The machine.
    pub machine: MachineInfo,
    /// The branch.
    pub branch: String,
    /// The result.
    pub result: ResultFile,
    /// What its build produced.
    pub artifact: Option<ArtifactHash>,
    /// Why it was measured.
    pub role: Role,
}

/// A version a job could not measure.
#[derive(Debug, Clone)]
pub struct CollectedFailure {
    /// The version.
    pub version: VersionInfo,
    /// The machine.
    pub machine: MachineInfo,
    /// The branch.
    pub branch: String,
    /// Why.
    pub reason: String,
}

/// A history that keeps what a job stores in memory, so that the worker stores it in the
/// transaction that completes the job: only written, never read. The session ids it returns
/// are its own (the index of the session in [`Collected::sessions`]); the job's completion
/// stores each session with its runs. The run ids it returns are placeholders (0).
#[derive(Debug, Default)]
pub struct Collected {
    /// The sessions, each with what was measured in it.
    pub sessions: Vec<CollectedSession>,
    /// Results outside any session.
    pub results: Vec<CollectedRun>,
    /// Failures outside any session.
    pub failures: Vec<CollectedFailure>,
}

impl Collected {
    fn session(&mut self, id: SessionId) -> rigor_history::Result<&mut CollectedSession> {
        usize::try_from(id.0)
            .ok()
            .and_then(|i| self.sessions.get_mut(i))
            .ok_or(HistoryError::NoSuchSession(id))
    }
}

impl HistoryWrite for Collected {
    fn begin_session(&mut self, s: &NewSession<'_>) -> rigor_history::Result<SessionId> {
        self.sessions.push(CollectedSession {
            machine: s.machine.clone(),
            kind: s.kind,
            started: s.started,
            load_before: s.load_before,
            rigor_version: s.rigor_version.to_string(),
            end: None,
            results: Vec::new(),
            failures: Vec::new(),
        });
        Ok(SessionId(self.sessions.len() as i64 - 1))
    }
    fn end_session(&mut self, id: SessionId, end: &SessionEnd) -> rigor_history::Result<()> {
        self.session(id)?.end = Some(*end);
        Ok(())
    }
    fn ingest(&mut self, run: &Ingest<'_>) -> rigor_history::Result<Ingested> {
        let collected = CollectedRun {
            version: run.version.clone(),
            machine: run.machine.clone(),
            branch: run.branch.to_string(),
            result: run.result.clone(),
            artifact: run.artifact,
            role: run.role,
        };
        match run.session {
            Some(id) => self.session(id)?.results.push(collected),
            None => self.results.push(collected),
        }
        Ok(Ingested::Added(RunId(0)))
    }
    fn record_failure(&mut self, f: &rigor_history::Failure<'_>) -> rigor_history::Result<RunId> {
        let collected = CollectedFailure {
            version: f.version.clone(),
            machine: f.machine.clone(),
            branch: f.branch.to_string(),
            reason: f.reason.to_string(),
        };
        match f.session {
            Some(id) => self.session(id)?.failures.push(collected),
            None => self.failures.push(collected),
        }
        Ok(RunId(0))
    }
}
