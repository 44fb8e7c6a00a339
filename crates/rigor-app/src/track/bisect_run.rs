//! `rigor track bisect` as a use case: the request resolved, the bisection ([`super::bisect`])
//! run with what it says as it goes, and its ending with the followed benchmark's other stored
//! changes between the ends.

use rigor_units::Quantity;

use super::*;

/// Everything `rigor track bisect` takes.
#[derive(Debug, Clone)]
pub struct BisectRequest {
    /// The versions' source, the series and the experiment.
    pub track: TrackRequest,
    /// The last version known to be as before.
    pub good: String,
    /// A version known to differ.
    pub bad: String,
    /// The most rounds of each comparison.
    pub max_rounds: usize,
    /// The metrics asked for (`--metric`): a bisection follows one, wall time when none.
    pub metrics: Vec<Metric>,
}

/// What `rigor track bisect` shows when it ends.
#[derive(Debug, Clone)]
pub struct BisectReport {
    /// What it found.
    pub ending: rigor_report::track_run::BisectEnding,
    /// The metric it followed.
    pub metric: Metric,
    /// What it cost.
    pub cost: BisectCost,
    /// How it ended.
    pub outcome: Outcome,
    /// The followed benchmark's other stored changes between the ends (current ones, of the
    /// followed metric, besides the version found), oldest first: a bisection places one.
    pub others: Vec<rigor_report::track_run::OtherChange>,
    /// The followed benchmark's name.
    pub benchmark: String,
    /// The ends as given.
    pub ends_given: (String, String),
}

/// Resolves the request and bisects ([`bisect`]), saying through `front` what happens as it
/// happens (a bisection that stopped says why), and lists the followed benchmark's other
/// stored changes between the ends.
pub fn bisect_run(
    history: &mut dyn History,
    request: BisectRequest,
    front: &mut dyn Front,
) -> Result<BisectReport> {
    use rigor_report::track_run::BisectEnding;
    let given = [
        ("--precision", request.track.run.precision.is_some()),
        ("--budget", request.track.run.budget.is_some()),
    ];
    if let Some((option, _)) = given.iter().find(|(_, given)| *given) {
        return Err(TrackError::PrecisionNotHere {
            option,
            command: "bisect",
            bound: "--max-rounds",
        }
        .into());
    }
    let metric = match request.metrics.as_slice() {
        [] => Metric::Wall,
        [m] => m.clone(),
        many => return Err(super::TrackError::BisectMetrics(many.len()).into()),
    };
    let resolved = TrackRequest {
        kind: rigor_history::SessionKind::Bisect,
        ..request.track
    }
    .resolve_saying(front)?;
    let (settings, experiment) = (resolved.settings, resolved.experiment);
    let bisection = BisectSettings {
        chunk: experiment.runner.executions,
        max_rounds: request.max_rounds,
        threshold: experiment.comparison.threshold,
        alpha: experiment.analysis.confidence.alpha(),
        metric: metric.clone(),
    };
    let (good, bad) = (&request.good, &request.bad);
    let benchmark = experiment
        .benchmarks
        .first()
        .map(|b| b.name.clone())
        .unwrap_or_default();
    let key = settings.key.clone();
    let chain_revs: Vec<String> = super::bisect::chain(&settings.source, good, bad)?
        .into_iter()
        .map(|v| v.rev)
        .collect();
    let (outcome, cost, quantity) =
        phase(front, &experiment, None, |executor, stop, bar, said| {
            bisect(
                history.as_write(),
                &settings,
                good,
                bad,
                &experiment,
                &bisection,
                executor,
                stop,
                bar,
                said,
            )
        })?;
    let found = match &outcome {
        BisectOutcome::Found { first, .. } => Some(first.rev.clone()),
        _ => None,
    };
    let others = match &outcome {
        BisectOutcome::Stopped(_) | BisectOutcome::NoChange { ends: None } => Vec::new(),
        _ => other_changes(
            history.as_read(),
            &key,
            &benchmark,
            &metric,
            &chain_revs,
            found.as_deref(),
        )?,
    };
    let given = (request.good, request.bad);
    let ends_given = given.clone();
    let shown = |ends: &Ratio| oriented(*ends, &metric, &quantity).measured();
    let ending = match outcome {
        BisectOutcome::Found {
            before,
            first,
            ends,
        } => BisectEnding::Found {
            first: first.rev,
            subject: first.subject.unwrap_or_default(),
            before: before.rev,
            ends: shown(&ends),
        },
        BisectOutcome::Between {
            good,
            bad,
            ends,
            unbuilt,
        } => BisectEnding::Between {
            good: good.rev,
            bad: bad.rev,
            max_rounds: request.max_rounds,
            ends: shown(&ends),
            unbuilt: unbuilt.into_iter().map(|v| v.rev).collect(),
        },
        BisectOutcome::NoChange { ends: None } => BisectEnding::Identical(given.0, given.1),
        BisectOutcome::NoChange { ends: Some(ends) } => BisectEnding::NoChange {
            ends_given: given,
            equivalent: ends.verdict == Verdict::Equivalent,
            ends: shown(&ends),
        },
        BisectOutcome::Stopped(why) => {
            front.say(rigor_report::track_lines::Line::BisectStopped(why));
            BisectEnding::Stopped
        }
    };
    // Undecided is not success: a script that bisects must not read "could not tell" as an
    // answer.
    let outcome = match ending {
        BisectEnding::Stopped => Outcome::Failed,
        BisectEnding::Between { .. }
        | BisectEnding::NoChange {
            equivalent: false, ..
        } => Outcome::Undecided,
        _ => Outcome::Ok,
    };
    Ok(BisectReport {
        ending,
        metric,
        cost,
        outcome,
        others,
        benchmark,
        ends_given,
    })
}

/// The current stored changes of `benchmark` in `metric` on the series `key` whose first
/// version lies in the bisected range after its good end (`chain`: the good end, then every
/// version up to the bad end), besides the version `found`, oldest first.
fn other_changes(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    benchmark: &str,
    metric: &Metric,
    chain: &[String],
    found: Option<&str>,
) -> Result<Vec<rigor_report::track_run::OtherChange>> {
    let stored = history.changes(&rigor_history::ChangeFilter {
        benchmark: Some(benchmark.to_string()),
        machine: Some(key.machine.clone()),
        branch: Some(key.branch.clone()),
        include_stale: false,
    })?;
    let place = |rev: &str| chain.iter().skip(1).position(|r| r == rev);
    let mut others: Vec<(usize, rigor_report::track_run::OtherChange)> = stored
        .into_iter()
        .filter(|c| c.metric == *metric && Some(c.change.rev.as_str()) != found)
        .filter_map(|c| {
            place(&c.change.rev).map(|at| {
                (
                    at,
                    rigor_report::track_run::OtherChange {
                        rev: c.change.rev,
                        ratio: c.change.ratio,
                        verdict: c.change.verdict.into(),
                    },
                )
            })
        })
        .collect();
    others.sort_by_key(|(at, _)| *at);
    Ok(others.into_iter().map(|(_, c)| c).collect())
}

/// The ends' ratio with the verdict in the metric's sense: a rate is better higher, so its
/// ratio above 1 is an improvement (the sequence decides on times' sense, lower is better).
fn oriented(mut ends: Ratio, metric: &Metric, quantity: &Quantity) -> Ratio {
    if !metric.lower_is_better(quantity) {
        ends.verdict = match ends.verdict {
            Verdict::Regression => Verdict::Improvement,
            Verdict::Improvement => Verdict::Regression,
            v => v,
        };
    }
    ends
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_that_rises_is_an_improvement_a_time_that_rises_a_regression() {
        let up = Ratio {
            ratio: 1.1,
            interval: Some((1.05, 1.15)),
            verdict: Verdict::Regression,
            at_resolution: false,
            spent: None,
        };
        let rate = Metric::Reported("throughput".into());
        let per_s = Quantity::Rate("MB/s".into());
        assert_eq!(oriented(up, &rate, &per_s).verdict, Verdict::Improvement);
        assert_eq!(
            oriented(up, &Metric::Cpu, &Quantity::Time).verdict,
            Verdict::Regression
        );
        let same = Ratio {
            verdict: Verdict::Equivalent,
            ..up
        };
        assert_eq!(oriented(same, &rate, &per_s).verdict, Verdict::Equivalent);
    }
}
