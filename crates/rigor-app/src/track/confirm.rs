//! Confirming newly detected changes before they are reported (`rigor track run`, unless
//! `--no-confirm`): both sides of each change — the last version before it and the first after
//! — measured again together, in shuffled interleaved rounds until decided (as Perfherder's
//! retriggers and Pinpoint do by hand). A change whose two sides differ in its direction is
//! confirmed; one whose sides are equivalent, differ the other way, or differ by an amount the
//! detected change's interval excludes (the detected step was something else: a session's
//! shift) is refuted and no longer reported; one still undecided when the budget is spent stays
//! as detected, and is said so.

use rigor_history::{Role, SessionKind};

use super::*;

/// How changes are confirmed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConfirmSettings {
    /// Measured-time budget of each confirmation.
    pub budget: Option<Seconds>,
    /// The most rounds of each.
    pub max_rounds: usize,
    /// The most changes confirmed in one run (the largest first).
    pub most: usize,
}

impl Default for ConfirmSettings {
    fn default() -> Self {
        Self {
            budget: Some(Seconds(60.0)),
            max_rounds: 100,
            most: 10,
        }
    }
}

/// What confirming a change found.
#[derive(Debug, Clone, PartialEq)]
pub enum Confirmed {
    /// The two sides differ in the change's direction.
    Confirmed(Ratio),
    /// They do not: equivalent, or the other way.
    Refuted(Ratio),
    /// Not decided within the budget: the change stays as detected.
    Undecided(Ratio),
    /// The two sides could not be measured.
    Failed(String),
}

/// A change and what its confirmation found.
#[derive(Debug, Clone)]
pub struct Confirmation {
    /// The change as detected.
    pub change: StoredChange,
    /// What measuring both sides again together found.
    pub result: Confirmed,
}

impl Confirmation {
    /// What the terminal shows of it.
    pub fn view(&self) -> rigor_report::track_run::ConfirmationView {
        let (outcome, measured) = match &self.result {
            Confirmed::Confirmed(r) => ("confirmed".to_string(), Some(r)),
            Confirmed::Refuted(r) => ("refuted".to_string(), Some(r)),
            Confirmed::Undecided(r) => ("undecided".to_string(), Some(r)),
            Confirmed::Failed(why) => (why.clone(), None),
        };
        rigor_report::track_run::ConfirmationView {
            benchmark: self.change.benchmark.clone(),
            revs: (
                self.change.change.previous_rev.clone().unwrap_or_default(),
                self.change.change.rev.clone(),
            ),
            detected: self.change.change.ratio,
            outcome,
            measured: measured.map(|r| rigor_report::track_run::MeasuredRatio {
                ratio: r.ratio,
                interval: r.interval,
                verdict: r.verdict.to_string(),
                spent: r.spent,
            }),
            // `track run` takes only the budget from the command line.
            max_rounds: ConfirmSettings::default().max_rounds,
        }
    }
}

/// Confirms `changes` (newly detected ones; at most `cfg.most`, the largest first), each with
/// its benchmark alone, and records what each rests on ([`Evidence::Confirmed`] or
/// [`Evidence::Refuted`]); the measurements are stored as runs of role `confirm`, each
/// confirmation a session of its own.
#[allow(clippy::too_many_arguments)]
pub fn confirm_changes(
    history: &mut dyn History,
    settings: &TrackRunSettings,
    experiment: &RunSettings,
    changes: &[StoredChange],
    cfg: &ConfirmSettings,
    executor: &mut dyn Executor,
    stop: StopSignal,
    progress: &mut dyn Progress,
) -> Result<Vec<Confirmation>> {
    let mut order: Vec<&StoredChange> = changes
        .iter()
        .filter(|c| c.change.previous_rev.is_some())
        .collect();
    order.sort_by(|a, b| {
        b.change
            .ratio
            .ln()
            .abs()
            .total_cmp(&a.change.ratio.ln().abs())
    });
    let mut out = Vec::new();
    for c in order.into_iter().take(cfg.most) {
        if stop.is_requested() {
            break;
        }
        let Some(k) = experiment
            .benchmarks
            .iter()
            .position(|b| b.name == c.benchmark)
        else {
            continue;
        };
        let mut one = experiment.clone();
        one.benchmarks = vec![experiment.benchmarks[k].clone()];
        one.commands = vec![experiment.commands[k].clone()];
        one.parameters = experiment.parameters.get(k).cloned().into_iter().collect();
        one.versions.clear();
        let (Some(before_rev), after_rev) = (&c.change.previous_rev, &c.change.rev) else {
            continue;
        };
        let alone = settings.for_benchmark(k);
        let settings = alone.as_ref().unwrap_or(settings);
        let before = settings.source.resolve(before_rev)?;
        let after = settings.source.resolve(after_rev)?;
        let measured = measure_until_decided(
            history.as_write(),
            settings,
            &one,
            [(&before, None), (&after, None)],
            SessionKind::Confirm,
            Role::Confirm,
            (cfg.budget, cfg.max_rounds),
            executor,
            stop.clone(),
            progress,
        )?;
        let result = match measured {
            Err(why) => Confirmed::Failed(why),
            Ok(r) => {
                let same_way = (r.ratio > 1.0) == (c.change.ratio > 1.0);
                // Measured together, the two sides cannot differ by what was detected: the
                // detected step was something else (a session's shift).
                let disagrees = match (r.interval, c.change.interval) {
                    (Some((lo, hi)), Some((dlo, dhi))) => hi < dlo || lo > dhi,
                    _ => false,
                };
                match r.verdict {
                    v if v.is_change() && same_way && !disagrees => Confirmed::Confirmed(r),
                    v if v.is_change() || v == Verdict::Equivalent || disagrees => {
                        Confirmed::Refuted(r)
                    }
                    _ => Confirmed::Undecided(r),
                }
            }
        };
        match &result {
            Confirmed::Confirmed(_) => history.set_evidence(c.id, Evidence::Confirmed)?,
            Confirmed::Refuted(_) => history.set_evidence(c.id, Evidence::Refuted)?,
            _ => {}
        }
        out.push(Confirmation {
            change: c.clone(),
            result,
        });
    }
    Ok(out)
}

/// How many times newly detected changes are confirmed in one run ([`confirm_in_rounds`]).
pub const CONFIRM_ROUNDS: usize = 3;

/// Confirms the new changes among `found` (wall time's, detected or confounded, not among
/// `tried`: those the history held before, or already confirmed) with `confirm` (given the
/// round, from 0), then detects again with `detect` — the confirmations' measurements now in the
/// history — and confirms the changes detected anew in turn, for at most [`CONFIRM_ROUNDS`]
/// rounds. A refuted change whose benchmark did step is often placed again a version away (a +4%
/// step at v20 detected at v18, refuted, then at v19, refuted, then at v20, confirmed): without
/// the later rounds it stayed in the table as merely detected, a version off. Returns the
/// changes as last detected (`found` when there was nothing to confirm).
pub fn confirm_in_rounds<H: ?Sized>(
    history: &mut H,
    mut found: Vec<StoredChange>,
    mut tried: Vec<ChangeId>,
    mut confirm: impl FnMut(&mut H, &[StoredChange], usize) -> Result<Vec<Confirmation>>,
    mut detect: impl FnMut(&mut H) -> Result<Vec<StoredChange>>,
) -> Result<Vec<StoredChange>> {
    for round in 0..CONFIRM_ROUNDS {
        let new: Vec<StoredChange> = found
            .iter()
            .filter(|c| {
                !tried.contains(&c.id)
                    && c.metric.is_wall()
                    && matches!(c.change.evidence, Evidence::Detected | Evidence::Confounded)
            })
            .cloned()
            .collect();
        if new.is_empty() {
            break;
        }
        let done = confirm(history, &new, round)?;
        tried.extend(new.iter().map(|c| c.id));
        // Detected again with the confirmations' runs in the series, as `track changes` will
        // show them (the intervals from before them differed: +25% .. +26% where `track
        // changes` then said +24% .. +26%).
        found = detect(history)?;
        if done.is_empty() {
            break;
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::NoProgress;

    /// A simulated project whose second benchmark alone steps by +10%: the change is detected
    /// on that benchmark and its confirmation, which measures it alone, measures that
    /// benchmark's truth (not the first benchmark's, which does not change) and confirms it.
    #[test]
    fn a_change_of_the_second_benchmark_is_confirmed_with_its_own_truth() {
        let dir = tempfile::tempdir().unwrap();
        let (mut history, settings, experiment, mut executor) =
            super::super::fixture::tracked(dir.path(), "versions=16,step=9:+10%@2", 10, 3, 16, 0);
        let found =
            detect_changes(&mut history, &settings.key, &DetectSettings::default()).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].benchmark.as_str(), found[0].change.rev.as_str()),
            ("b", "v9")
        );
        let done = confirm_changes(
            &mut history,
            &settings,
            &experiment,
            &found,
            &ConfirmSettings::default(),
            &mut executor,
            StopSignal::new(),
            &mut NoProgress,
        )
        .unwrap();
        assert!(
            matches!(&done[0].result, Confirmed::Confirmed(r) if r.ratio > 1.05),
            "{:?}",
            done[0].result
        );
    }
}
