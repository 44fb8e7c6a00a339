//! Finding the first version that changed a benchmark (`rigor track bisect`).

use super::*;

/// One step of a bisection.
#[derive(Debug, Clone)]
pub struct BisectStep {
    /// The versions measured together, oldest first (the range's ends, and its midpoint).
    pub measured: Vec<VersionInfo>,
    /// Each later version against the first.
    pub comparisons: Vec<Ratio>,
}

/// What a bisection found.
#[derive(Debug, Clone)]
pub enum BisectOutcome {
    /// The last good and the first changed version, with the change measured between them.
    Found {
        /// The last version before the change.
        before: Box<VersionInfo>,
        /// The first version with it.
        first: Box<VersionInfo>,
        /// `first / before`, measured together.
        change: Ratio,
    },
    /// The two ends do not differ beyond the threshold.
    NoChange {
        /// The ends' ratio.
        ends: Ratio,
    },
    /// Stopped (Ctrl-C) or a version could not be measured.
    Stopped(String),
}

/// Hears about each step of a bisection.
pub trait BisectObserver {
    /// A step is done.
    fn step(&mut self, _step: &BisectStep) {}
}

/// Finds the first version between `good` (excluded) and `bad` whose benchmark differs from
/// `good`: the ends are measured together, then the midpoint of the remaining range together
/// with its ends, halving the range each time — about log₂ N versions instead of N. Every
/// measured version is stored in the history. Uses the first command of the experiment.
#[allow(clippy::too_many_arguments)]
pub fn bisect(
    history: &mut dyn HistoryWrite,
    settings: &TrackRunSettings,
    good: &str,
    bad: &str,
    experiment: &mut RunSettings,
    executor: &mut dyn Executor,
    stop: StopSignal,
    progress: &mut dyn Progress,
    observer: &mut dyn BisectObserver,
) -> Result<BisectOutcome> {
    let mut chain = vec![git::resolve(&settings.repo, good)?.rev];
    chain.extend(git::commits(&settings.repo, &[format!("{good}..{bad}")])?);
    if chain.len() < 2 {
        return Err(AppError::NotAnAncestor {
            good: good.to_string(),
            bad: bad.to_string(),
        });
    }
    let machine = this_machine(Some(&settings.key.machine));
    experiment.benchmarks.truncate(1);
    experiment.commands.truncate(1);
    let measure = |revs: &[&String],
                   history: &mut dyn HistoryWrite,
                   experiment: &mut RunSettings,
                   executor: &mut dyn Executor,
                   progress: &mut dyn Progress|
     -> Result<std::result::Result<BisectStep, String>> {
        let mut ready = Vec::new();
        for rev in revs {
            let v = git::resolve(&settings.repo, rev)?;
            match check_out(settings, &v) {
                Ok(tree) => ready.push((v, tree)),
                Err(reason) => {
                    history.record_failure(&Failure::new(
                        &v,
                        &machine,
                        &settings.key.branch,
                        &reason,
                    ))?;
                    return Ok(Err(format!("{}: {reason}", short(&v.rev))));
                }
            }
        }
        let Measurement {
            outcomes,
            comparisons: computed,
            failures,
        } = measure_together(
            history,
            settings,
            experiment,
            &ready,
            &machine,
            executor,
            stop.clone(),
            progress,
            true,
        )?;
        if outcomes.iter().any(|o| {
            !matches!(
                o,
                VersionOutcome::Measured {
                    outcome: Outcome::Ok | Outcome::Gated,
                    ..
                }
            )
        }) {
            let why = if failures.is_empty() {
                "the measurement was interrupted".to_string()
            } else {
                format!("a measurement failed: {}", failures.join("; "))
            };
            return Ok(Err(why));
        }
        let comparisons = computed
            .iter()
            .map(|c| {
                let x = &c.comparison;
                Ratio {
                    ratio: x.ratio,
                    interval: x.ci.map(|i| (i.lower, i.upper)),
                    verdict: x.verdict,
                    at_resolution: x.at_resolution,
                }
            })
            .collect();
        Ok(Ok(BisectStep {
            measured: ready.into_iter().map(|(v, _)| v).collect(),
            comparisons,
        }))
    };
    // Measures `revs` together; while `decided` says the verdict cannot place the step, again
    // with twice the executions (twice more at most). The last step either way.
    let repeat = |revs: &[&String],
                  history: &mut dyn HistoryWrite,
                  experiment: &mut RunSettings,
                  executor: &mut dyn Executor,
                  progress: &mut dyn Progress,
                  observer: &mut dyn BisectObserver,
                  decided: &dyn Fn(&BisectStep) -> bool|
     -> Result<std::result::Result<BisectStep, String>> {
        let base = experiment.runner.executions;
        let mut last = Err("no measurement".to_string());
        for _ in 0..3 {
            let step = match measure(revs, history, experiment, executor, progress) {
                Ok(Ok(step)) => step,
                other => {
                    experiment.runner.executions = base;
                    return other;
                }
            };
            observer.step(&step);
            let done = decided(&step);
            last = Ok(step);
            if done {
                break;
            }
            experiment.runner.executions *= 2;
        }
        experiment.runner.executions = base;
        Ok(last)
    };
    let (mut lo, mut hi) = (0, chain.len() - 1);
    let ends = match repeat(
        &[&chain[lo], &chain[hi]],
        history,
        experiment,
        executor,
        progress,
        observer,
        &|s| {
            s.comparisons
                .first()
                .is_none_or(|o| o.verdict.is_change() || o.verdict == Verdict::Equivalent)
        },
    )? {
        Ok(step) => step,
        Err(why) => return Ok(BisectOutcome::Stopped(why)),
    };
    let Some(&overall) = ends.comparisons.first() else {
        return Ok(BisectOutcome::Stopped(
            "the ends could not be compared".into(),
        ));
    };
    if !overall.verdict.is_change() {
        return Ok(BisectOutcome::NoChange { ends: overall });
    }
    let direction = overall.ratio.ln().signum();
    // The change is at or before mid when mid already differs from lo in the change's
    // direction, after it when mid is equivalent to lo.
    let placed = |r: &Ratio| {
        (r.verdict.is_change() && r.ratio.ln().signum() == direction)
            .then_some(true)
            .or((r.verdict == Verdict::Equivalent).then_some(false))
    };
    let mut last_pair = Some(overall);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let step = match repeat(
            &[&chain[lo], &chain[mid], &chain[hi]],
            history,
            experiment,
            executor,
            progress,
            observer,
            &|s| s.comparisons.first().is_none_or(|r| placed(r).is_some()),
        )? {
            Ok(step) => step,
            Err(why) => return Ok(BisectOutcome::Stopped(why)),
        };
        let (Some(&mid_vs_lo), Some(&hi_vs_lo)) =
            (step.comparisons.first(), step.comparisons.get(1))
        else {
            return Ok(BisectOutcome::Stopped(
                "a step could not be compared".into(),
            ));
        };
        // When the verdict cannot place mid, its closeness to either end decides.
        let changed = placed(&mid_vs_lo).unwrap_or_else(|| {
            let (d_mid, d_hi) = (mid_vs_lo.ratio.ln(), hi_vs_lo.ratio.ln());
            d_mid.abs() > (d_hi - d_mid).abs()
        });
        if changed {
            hi = mid;
            last_pair = Some(mid_vs_lo);
        } else {
            lo = mid;
            last_pair = None;
        }
    }
    let change = match last_pair {
        Some(c) => c,
        None => match measure(
            &[&chain[lo], &chain[hi]],
            history,
            experiment,
            executor,
            progress,
        )? {
            Ok(step) => {
                observer.step(&step);
                match step.comparisons.first() {
                    Some(&c) => c,
                    None => return Ok(BisectOutcome::Stopped("no comparison".into())),
                }
            }
            Err(why) => return Ok(BisectOutcome::Stopped(why)),
        },
    };
    Ok(BisectOutcome::Found {
        before: Box::new(git::resolve(&settings.repo, &chain[lo])?),
        first: Box::new(git::resolve(&settings.repo, &chain[hi])?),
        change,
    })
}
