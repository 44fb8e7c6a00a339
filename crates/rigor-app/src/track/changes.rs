//! Listing a history's changes (`rigor track changes`): detection over the series asked for,
//! the stored changes filtered, the events among them, the views `rigor_report::track` draws and
//! the findings the outcome rule decides `--fail-on` from.

use super::*;

use std::collections::HashMap;

use rigor_report::track::{ChangeView, EventView, JointView, MovedView};

/// What `rigor track changes` lists.
#[derive(Debug, Clone, Default)]
pub struct ListSettings {
    /// How changes are detected (again, over every series the filter allows).
    pub detect: DetectSettings,
    /// Which changes to list (a machine or branch given also limits detection to it).
    pub filter: ChangeFilter,
    /// Only changes at versions from this time on (versions without a known time are left
    /// out; [`since_time`] reads what a user types).
    pub since: Option<jiff::Timestamp>,
    /// The metrics detected and listed (`--metric`; none: wall time).
    pub metrics: Vec<Metric>,
}

/// The changes listed, and the events among them.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    /// The changes, in history order.
    pub changes: Vec<StoredChange>,
    /// Current changes that happened together.
    pub events: Vec<Event>,
    /// Benchmarks left out of a metric asked for (they have no values of it), each once.
    pub warnings: Vec<rigor_store::Warning>,
    /// Series too short for a change at their second version to be found, with their number
    /// of versions ([`SHORT_SERIES`]).
    pub short: Vec<(SeriesKey, usize)>,
    /// For each series with no change at its newest version, how large one could be there and
    /// go undetected ([`NewestBound`], as `track run` ends): "No changes detected." over a noisy
    /// history is not "no change" (a new user's history of real +8% and −15% steps listed none,
    /// and said nothing more).
    pub newest: Vec<rigor_report::track_lines::Line>,
}

/// Fewer versions than this, and a step at a series' second version is found by nothing:
/// detection places a change only after at least two versions
/// (`rigor_stats::changepoint::DEFAULT_MIN_SEGMENT`), so three versions with a step at the
/// second listed "No changes detected." for a +66% step (a new user's trial of `track add`).
pub const SHORT_SERIES: usize = 2 * rigor_stats::changepoint::DEFAULT_MIN_SEGMENT;

/// Detects changes over each series the filter allows (storing them) and lists them.
pub fn list_changes(history: &mut dyn History, s: &ListSettings) -> Result<Listed> {
    let keys: Vec<SeriesKey> = history
        .series_keys()?
        .into_iter()
        .filter(|k| {
            s.filter.machine.as_ref().is_none_or(|x| *x == k.machine)
                && s.filter.branch.as_ref().is_none_or(|x| *x == k.branch)
        })
        .collect();
    let metrics = metrics_or_wall(&s.metrics);
    // A metric some series lack (imported results without CPU times) is detected where it is;
    // a metric no series has is an error.
    // A metric no series has is refused before anything is detected: detecting the others first
    // stored their changes, though the command then failed.
    for m in metrics.iter().filter(|m| !m.is_wall()) {
        let mut refused = None;
        for key in &keys {
            match levels::metric_levels_noting(
                history.as_read(),
                key,
                m,
                s.detect.confidence,
                levels::Weights::Own,
                &mut Vec::new(),
            ) {
                Ok(_) => {
                    refused = None;
                    break;
                }
                Err(e @ AppError::Track(TrackError::NoMetric { .. })) => {
                    refused.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        if let Some(e) = refused {
            return Err(e);
        }
    }
    let mut lacking: Vec<(Metric, AppError)> = Vec::new();
    let mut lacked: HashMap<Metric, usize> = HashMap::new();
    let mut warnings: Vec<rigor_store::Warning> = Vec::new();
    let mut shifts: Vec<(SeriesKey, JointShift)> = Vec::new();
    let mut newest = Vec::new();
    for key in &keys {
        let detected = detect_available(history, key, &s.detect, &metrics, false, true)?;
        newest.extend(detected.newest.map(NewestBound::line));
        shifts.extend(detected.shifts.into_iter().map(|j| (key.clone(), j)));
        for (m, e) in detected.missing {
            *lacked.entry(m.clone()).or_default() += 1;
            lacking.push((m, e));
        }
        for w in detected.left_out {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
    }
    if let Some((_, e)) = lacking
        .into_iter()
        .find(|(m, _)| lacked.get(m) == Some(&keys.len()))
    {
        return Err(e);
    }
    let mut changes = history.changes(&s.filter)?;
    changes.retain(|c| metrics.contains(&c.metric));
    if let Some(from) = s.since {
        changes = changes_from(changes, from);
    }
    let counts = |k: &SeriesKey| history.benchmarks(k).map_or(0, |v| v.len());
    let events = with_shifts(events(&changes, &counts), &shifts);
    let mut short = Vec::new();
    for key in keys {
        let n = history.versions(&key)?.len();
        if (2..SHORT_SERIES).contains(&n) {
            short.push((key, n));
        }
    }
    Ok(Listed {
        changes,
        events,
        warnings,
        short,
        newest,
    })
}

/// What `--fail-on` decides from (through [`crate::Findings::outcome`], the rule of every
/// command): the verdicts of the current changes that no user marked invalid and that rest on
/// more than a session boundary (with `confounded`, changes confounded with one too); a refuted
/// change never counts.
pub fn findings(changes: &[StoredChange], confounded: bool) -> crate::Findings {
    crate::Findings {
        verdicts: changes
            .iter()
            .filter(|c| {
                // Only changes nobody has looked at fail a gate: an acknowledged one is real
                // and accepted (like a dismissed alert), an invalid one is noise.
                c.current
                    && c.status == ChangeStatus::New
                    && match c.change.evidence {
                        Evidence::Detected | Evidence::Confirmed => true,
                        Evidence::Confounded => confounded,
                        Evidence::Refuted => false,
                    }
            })
            .map(|c| Verdict::from(c.change.verdict))
            .collect(),
        ..crate::Findings::default()
    }
}

/// The changes as the change tables show them.
pub fn change_views(changes: &[StoredChange]) -> Vec<ChangeView<'_>> {
    changes
        .iter()
        .map(|c| ChangeView {
            id: c.id.0,
            rev: &c.change.rev,
            benchmark: &c.benchmark,
            metric: c.metric.name(),
            ratio: c.change.ratio,
            interval: c.change.interval,
            verdict: c.change.verdict.into(),
            // A benchmark's part in a machine-wide event says so.
            evidence: match c.change.evidence {
                Evidence::Detected if super::shift::is_event_method(&c.change.method) => "event",
                // Its figures are those of the versions beside it: the level drifts there.
                Evidence::Detected if c.change.method == super::METHOD_LOCAL => "in drift",
                e => e.as_str(),
            },
            previous: c.change.previous_rev.as_deref(),
            machine: &c.series.machine,
            branch: &c.series.branch,
            status: c.status.as_str(),
            current: c.current,
        })
        .collect()
}

/// The events as the lines under the table show them.
pub fn event_views(events: &[Event]) -> Vec<EventView<'_>> {
    events
        .iter()
        .map(|e| EventView {
            rev: &e.rev,
            machine: &e.series.machine,
            branch: &e.series.branch,
            changes: e.changes.iter().map(|c| c.0).collect(),
            metric: e.metric.name(),
            benchmarks: e.benchmarks,
            range: e.range,
            joint: e.joint.as_ref().map(|j| JointView {
                ratio: j.ratio,
                interval: j.interval,
                p_value: j.p_value,
                tested: j.tested,
                moved: j
                    .moved
                    .iter()
                    .map(|m| MovedView {
                        benchmark: &m.benchmark,
                        ratio: m.ratio,
                        alone: m.alone,
                        own: m.own.as_deref(),
                        clear: m.clear,
                    })
                    .collect(),
                confounded: j.confounded,
            }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::FailOn;

    fn change(verdict: ChangeVerdict, status: ChangeStatus, current: bool) -> StoredChange {
        with_evidence(verdict, status, current, Evidence::Detected)
    }

    fn with_evidence(
        verdict: ChangeVerdict,
        status: ChangeStatus,
        current: bool,
        evidence: Evidence,
    ) -> StoredChange {
        StoredChange {
            metric: Metric::Wall,
            id: ChangeId(1),
            benchmark: "b".into(),
            series: SeriesKey::new("m", "main"),
            change: NewChange {
                rev: "v2".into(),
                previous_rev: Some("v1".into()),
                ratio: 1.1,
                interval: None,
                p_value: 0.001,
                q_value: None,
                verdict,
                method: METHOD.into(),
                evidence,
            },
            status,
            current,
            detected_at: jiff::Timestamp::UNIX_EPOCH,
            version_time: None,
        }
    }

    #[test]
    fn fail_on_counts_current_changes_nobody_has_marked() {
        use ChangeStatus::{Acknowledged, Invalid, New};
        use ChangeVerdict::{Improvement, Regression};
        let gate = |list: &[StoredChange], rule| findings(list, false).outcome(Some(rule));
        let new = change(Regression, New, true);
        assert_eq!(gate(&[new], FailOn::Regression), Outcome::Gated);
        for ignored in [
            change(Regression, Acknowledged, true),
            change(Regression, Invalid, true),
            change(Regression, New, false),
        ] {
            assert_eq!(gate(&[ignored], FailOn::Regression), Outcome::Ok);
        }
        let better = [change(Improvement, New, true)];
        assert_eq!(gate(&better, FailOn::Regression), Outcome::Ok);
        assert_eq!(gate(&better, FailOn::Change), Outcome::Gated);
        assert_eq!(findings(&better, false).outcome(None), Outcome::Ok);
        // A change confounded with a session boundary counts only when asked for; a refuted
        // one never.
        let confounded = [with_evidence(Regression, New, true, Evidence::Confounded)];
        assert_eq!(gate(&confounded, FailOn::Regression), Outcome::Ok);
        let rule = Some(FailOn::Regression);
        assert_eq!(findings(&confounded, true).outcome(rule), Outcome::Gated);
        let refuted = [with_evidence(Regression, New, true, Evidence::Refuted)];
        assert_eq!(findings(&refuted, true).outcome(rule), Outcome::Ok);
    }

    /// A change whose figures are the versions' beside it (a step inside a drift) says so in
    /// the table's evidence column, and gates as any detected change; a confirmed one reads
    /// confirmed.
    #[test]
    fn a_step_beside_a_drift_is_listed_as_such_and_gates() {
        let mut local = change(ChangeVerdict::Regression, ChangeStatus::New, true);
        local.change.method = super::super::METHOD_LOCAL.into();
        let views = change_views(std::slice::from_ref(&local));
        assert_eq!(views[0].evidence, "in drift");
        let rule = Some(FailOn::Regression);
        let listed = std::slice::from_ref(&local);
        assert_eq!(findings(listed, false).outcome(rule), Outcome::Gated);
        local.change.evidence = Evidence::Confirmed;
        assert_eq!(change_views(&[local])[0].evidence, "confirmed");
    }
}

/// Which listed changes `rigor track changes --fail-on` fails on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum ChangesFailOn {
    /// A regression (not one confounded with a session boundary).
    Regression,
    /// A regression, also one confounded with a session boundary (no session measured versions
    /// on both sides of it).
    Confounded,
    /// A regression or an improvement (not one confounded with a session boundary).
    Change,
}

/// Everything `rigor track changes` takes.
#[derive(Debug, Clone, Default)]
pub struct ChangesRequest {
    /// How changes are detected.
    pub detect: DetectSettings,
    /// Which changes to list.
    pub filter: ChangeFilter,
    /// Only changes at versions from this date on, as the user typed it ([`since_time`]).
    pub since: Option<String>,
    /// What fails the command.
    pub fail_on: Option<ChangesFailOn>,
    /// The metrics detected and listed (`--metric`; none: wall time).
    pub metrics: Vec<Metric>,
}

/// What `rigor track changes` lists, and its outcome.
#[derive(Debug, Clone)]
pub struct ChangesReport {
    /// The changes and the events among them.
    pub listed: Listed,
    /// The outcome `--fail-on` decides.
    pub outcome: Outcome,
}

/// `rigor track changes`: `--since` checked before anything is detected or written, changes
/// detected and listed ([`list_changes`]), `--fail-on` decided ([`findings`]).
pub fn list(history: &mut dyn History, request: &ChangesRequest) -> Result<ChangesReport> {
    let since = request.since.as_deref().map(since_time).transpose();
    let settings = ListSettings {
        detect: request.detect,
        filter: request.filter.clone(),
        since: since.map_err(TrackError::from)?,
        metrics: request.metrics.clone(),
    };
    let listed = list_changes(history, &settings)?;
    let fail_on = request.fail_on.map(|f| match f {
        ChangesFailOn::Regression | ChangesFailOn::Confounded => {
            crate::settings::FailOn::Regression
        }
        ChangesFailOn::Change => crate::settings::FailOn::Change,
    });
    let confounded = request.fail_on == Some(ChangesFailOn::Confounded);
    let outcome = findings(&listed.changes, confounded).outcome(fail_on);
    Ok(ChangesReport { listed, outcome })
}
