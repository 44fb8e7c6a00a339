//! What `rigor track run` did: each session's account (what it measured, the machine's load,
//! what the anchors cost) and each version's outcome, with the views the terminal shows.

use rigor_history::SessionId;
use rigor_report::track_lines::Line;

use super::*;

/// A session's account: what it measured, the machine's load, what the anchors cost.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionReport {
    /// Its id in the history.
    pub id: SessionId,
    /// The new versions it measured.
    pub versions: Vec<String>,
    /// How many of them failed (their builds or every execution; a timeout).
    pub failed: usize,
    /// The stored versions it measured again.
    pub anchors: Vec<String>,
    /// The 1-minute load average before and after.
    pub load: (Option<f64>, Option<f64>),
    /// The CPUs other processes kept busy on average while it measured, when known.
    pub others_cpus: Option<f64>,
    /// Whether its timings are of a busy machine: other processes kept half the CPUs busy or
    /// more where that is known (as `rigor run` judges a run), else the load average reached
    /// the CPU count.
    pub busy: bool,
    /// Measured time, all of it and the anchors' part.
    pub measured: (Seconds, Seconds),
    /// With `--precision`/`--budget`: what measuring each version until its level was known
    /// cost, per benchmark.
    pub precision: Option<rigor_report::track_run::PrecisionView>,
}

impl SessionReport {
    /// What the terminal shows of it.
    pub fn view(&self) -> rigor_report::track_run::SessionView {
        rigor_report::track_run::SessionView {
            id: self.id.0,
            versions: self.versions.len(),
            failed: self.failed,
            anchors: self.anchors.len(),
            load: self.load,
            busy: self.busy,
            others_cpus: self.others_cpus,
            cpus: Environment::detect().cpus,
            measured: self.measured,
            precision: self.precision.clone(),
        }
    }
}

/// What `track run` did.
#[derive(Debug, Clone, Default)]
pub struct Tracked {
    /// Each version asked for, with what happened to it.
    pub versions: Vec<(VersionInfo, VersionOutcome)>,
    /// Each session.
    pub sessions: Vec<SessionReport>,
    /// Stopped by the user (what was stored before stays).
    pub interrupted: bool,
    /// Versions asked for that were stored before and, with `--force`, are measured again.
    pub again: usize,
}

impl Tracked {
    /// What the terminal shows of it, stored in `history` (its name).
    pub fn view(&self, history: &str) -> rigor_report::track_run::TrackedView {
        let mut v = rigor_report::track_run::TrackedView {
            sessions: self.sessions.len(),
            anchors: self.sessions.iter().map(|s| s.anchors.len()).sum(),
            history: history.to_string(),
            interrupted: self.interrupted,
            again: self.again,
            ..Default::default()
        };
        for (_, o) in &self.versions {
            match o {
                VersionOutcome::Measured {
                    stored: false,
                    file,
                    ..
                } => {
                    v.unfinished += 1;
                    v.unfinished_file = Some(file.display().to_string());
                }
                VersionOutcome::Measured { nothing, .. } => {
                    v.measured += 1;
                    v.failed += usize::from(!nothing.is_empty());
                }
                VersionOutcome::Skipped { failed_before } => {
                    v.skipped += 1;
                    v.failed_before += usize::from(*failed_before);
                }
                VersionOutcome::Failed { .. } => v.failed += 1,
            }
        }
        v
    }
}

impl Tracked {
    /// When a version failed because a benchmarked command exited with a status other than
    /// zero and `-i/--ignore-failure` was not given: the advice to give it, as `rigor run`
    /// gives it.
    pub fn ignore_failure_hint(&self, ignore_failure: bool) -> Option<Line> {
        let exited = self
            .versions
            .iter()
            .any(|(_, o)| matches!(o, VersionOutcome::Failed { exited: true, .. }));
        (exited && !ignore_failure).then_some(Line::IgnoreFailure)
    }

    /// When some benchmark measured nothing in any version it was measured in and several
    /// commands were given, they may have been meant as one (`-- sh bench.sh` is two commands:
    /// `sh`, and `bench.sh`, which cannot start): the advice to quote it, with the names.
    pub fn one_command_hint(&self, commands: &[String]) -> Option<Line> {
        if commands.len() < 2 {
            return None;
        }
        let measured: Vec<&Vec<String>> = self
            .versions
            .iter()
            .filter_map(|(_, o)| match o {
                VersionOutcome::Measured { nothing, .. } => Some(nothing),
                _ => None,
            })
            .collect();
        let never: Vec<String> = commands
            .iter()
            .filter(|c| !measured.is_empty() && measured.iter().all(|n| n.contains(c)))
            .cloned()
            .collect();
        (!never.is_empty()).then(|| Line::OneCommand {
            never,
            commands: commands.to_vec(),
        })
    }
}
