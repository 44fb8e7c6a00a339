//! The run use case: measure, persisting every execution as it completes, then analyse,
//! diagnose and compare. Nothing here prints; the caller shows the outcome.

use rigor_runner::{
    AdaptiveReport, AdaptiveSettings, BenchmarkStatus, Ending, Executor, PilotSettings, Report,
    Scheduler, StopSignal, run_adaptive,
};
use rigor_store::{BenchmarkRecord, Environment, IncrementalWriter, Layout, ResultFile, RunStatus};

use crate::analysis::{Analyses, analyze_all};
use crate::comparisons::{self, CompareSettings, Computed};
use crate::diagnosis;
use crate::error::{AppError, Result};
use crate::recorder::{Progress, Recorder};
use crate::settings::{Mode, RunSettings};
use crate::{Findings, Outcome, provenance, ranking};
use rigor_report::adaptive::AdaptiveView;
use rigor_report::decided::DecidedView;
use rigor_report::notes::Note;
use rigor_units::Seconds;

/// What an adaptive run did, for the caller to explain.
#[derive(Debug, Clone)]
pub struct AdaptiveOutcome {
    /// The runner's account.
    pub report: AdaptiveReport,
    /// The pilot it started with.
    pub pilot: PilotSettings,
    /// Per benchmark, the relative half-width the plan predicts within the unit cap and the
    /// budget (`None` where the pilot could not plan it): what a target out of reach could
    /// be replaced by.
    pub reachable: Vec<Option<f64>>,
    /// The unit cap the prediction assumes.
    pub max_units: usize,
}

/// The relative half-width each benchmark's plan predicts with `max_units` top-level units, or
/// with as many as `budget` affords when that is fewer — never less than half the step its
/// values move in, when its executions reported one.
fn reachable(report: &AdaptiveReport, adaptive: &AdaptiveSettings) -> Vec<Option<f64>> {
    use rigor_stats::design::{predicted_half_width, top_count_for_budget};
    report
        .plans
        .iter()
        .zip(&report.resolutions)
        .map(|(p, r)| {
            let p = p.as_ref().ok()?;
            let units = adaptive.budget.map_or(adaptive.max_units, |b| {
                top_count_for_budget(&p.plan, b.get()).min(adaptive.max_units)
            });
            let half =
                predicted_half_width(&p.plan, units, adaptive.level.get(), adaptive.quantile)
                    .ok()?;
            let floor = r.map_or(0.0, |r| {
                r.relative_to(rigor_units::Seconds::new(p.estimate))
            });
            (p.estimate != 0.0).then(|| (half / p.estimate.abs()).max(floor))
        })
        .collect()
}

/// Everything a run produced.
#[derive(Debug)]
pub struct Measured {
    /// The result, analysed, as saved.
    pub result: ResultFile,
    /// Each benchmark's analysis or why it has none.
    pub analyses: Analyses,
    /// Comparisons of the benchmarks with the reference.
    pub comparisons: Vec<Computed>,
    /// The benchmarks ranked by the statistic compared (per parameter combination).
    pub ranking: Vec<comparisons::Ranking>,
    /// Each benchmark's compared statistic when comparisons use another than the mean
    /// ([`compared_statistics`](crate::analysis::compared_statistics)).
    pub compared: Vec<Option<rigor_report::StatisticView>>,
    /// What the adaptive rule did, for adaptive runs.
    pub adaptive: Option<AdaptiveOutcome>,
    /// Its note, for adaptive runs.
    pub adaptive_view: Option<AdaptiveView>,
    /// How a run until decided ended, as its note shows it.
    pub decided: Option<DecidedView>,
    /// How a run until each level is known ended (`track run --precision`), per benchmark.
    pub known: Option<rigor_runner::KnownReport>,
    /// With `--metric` naming other than wall time: the result analysed, compared and ranked
    /// for each metric named, in order (the summaries and comparisons shown); empty for wall
    /// time alone, which the fields above hold.
    pub by_metric: Vec<crate::saved::Analysed>,
    /// What the user should know about how it went.
    pub notes: Vec<Note>,
    /// How it ended, for the exit status.
    pub outcome: Outcome,
}

/// What a run until each level is known aims for (`track run --precision`), when `settings`
/// are of one.
pub(crate) fn until_known(settings: &RunSettings) -> Option<rigor_runner::KnownSettings> {
    match settings.mode {
        Mode::UntilKnown {
            precision,
            budget,
            min_units,
            max_units,
        } => Some(known_aims(
            settings,
            (precision, budget),
            (min_units, max_units),
        )),
        _ => None,
    }
}

/// [`until_known`]'s settings from the mode's target, budget and bounds.
fn known_aims(
    settings: &RunSettings,
    (target, budget): (Option<rigor_units::Fraction>, Option<Seconds>),
    (min_rounds, max_rounds): (usize, usize),
) -> rigor_runner::KnownSettings {
    rigor_runner::KnownSettings {
        target,
        budget,
        level: settings.analysis.confidence,
        quantile: settings.analysis.quantile,
        min_rounds,
        max_rounds,
    }
}

/// Runs the experiment `settings` describe on `executor`, persisting as it goes.
pub fn run(
    settings: &RunSettings,
    executor: &mut dyn Executor,
    stop: StopSignal,
    progress: &mut dyn Progress,
) -> Result<Measured> {
    let header = header(settings);
    // What other processes use of the CPUs, measured over the run (not for a simulated one).
    let machine_use = (!settings.simulate)
        .then(rigor_runner::machine_use::MachineUse::now)
        .flatten();
    let writer = match &settings.exports.files.json {
        Some(path) => Some(IncrementalWriter::create(path, &header)?),
        None => None,
    };
    let mut recorder = Recorder::new(writer, settings.discard.fixed(), progress);
    let mut decided = None;
    let mut known = None;
    let mut short = None;
    let (report, adaptive) = match &settings.mode {
        Mode::Adaptive {
            precision,
            budget,
            max_units,
            min_units,
        } => {
            let adaptive = AdaptiveSettings {
                target: *precision,
                budget: *budget,
                level: settings.analysis.confidence,
                quantile: settings.analysis.quantile,
                // The statistic compared (`--estimator`) is the one whose interval must
                // reach the target.
                estimator: settings.comparison.estimator,
                bootstrap: rigor_stats::BootstrapConfig {
                    resamples: settings.comparison.resamples,
                    seed: settings.runner.seed.get(),
                    ..rigor_stats::BootstrapConfig::default()
                },
                max_looks: rigor_runner::DEFAULT_LOOKS,
                max_units: *max_units,
            };
            let mut pilot = PilotSettings {
                // As `rigor plan` does: plan from the iterations the analysis will keep.
                steady_only: settings.discard == rigor_store::Discard::Auto,
                ..PilotSettings::adaptive()
            };
            // Pilot like the run: the iterations asked for, or those a fixed run's process
            // would take (rigor bench's samples).
            if let Some(k) = settings
                .runner
                .iterations_per_execution
                .or(settings.pilot_iterations)
            {
                pilot.iterations = k;
            }
            if let Some(n) = *min_units {
                match settings.runner.build {
                    Some(_) => pilot.builds = n,
                    None => pilot.executions = n,
                }
            }
            let report = run_adaptive(
                &settings.benchmarks,
                &settings.runner,
                settings.discard.fixed(),
                &pilot,
                &adaptive,
                stop,
                executor,
                &mut recorder,
            )?;
            let reachable = reachable(&report, &adaptive);
            (
                report.report.clone(),
                Some(AdaptiveOutcome {
                    report,
                    pilot,
                    reachable,
                    max_units: *max_units,
                }),
            )
        }
        Mode::UntilDecided {
            budget,
            max_rounds,
            min_rounds,
        } => {
            let reference =
                comparisons::find_reference(&header, settings.comparison.reference.as_deref())?;
            let outcome = crate::decided::measure(
                settings,
                reference,
                (*budget, *max_rounds, *min_rounds),
                stop,
                executor,
                &mut recorder,
            )?;
            let report = outcome.report.report.clone();
            decided = Some(outcome);
            (report, None)
        }
        Mode::UntilKnown {
            precision,
            budget,
            min_units,
            max_units,
        } => {
            let aims = known_aims(settings, (*precision, *budget), (*min_units, *max_units));
            let r = rigor_runner::run_until_known(
                &settings.benchmarks,
                &settings.runner,
                settings.discard.fixed(),
                &aims,
                stop,
                executor,
                &mut recorder,
            )?;
            let report = r.report.clone();
            known = Some(r);
            (report, None)
        }
        Mode::DefaultLength(length) => {
            let r = rigor_runner::run_default_length(
                &settings.benchmarks,
                &settings.runner,
                settings.discard.fixed(),
                length,
                stop,
                executor,
                &mut recorder,
            )?;
            if r.stop == rigor_runner::LengthStop::Budget {
                short = Some(Note::DefaultLengthBudget {
                    executions: r.executions,
                    target: length.target,
                    budget: length.budget,
                });
            }
            (r.report, None)
        }
        Mode::Fixed | Mode::Planned { .. } => {
            let report = Scheduler::new(&settings.benchmarks, &settings.runner, stop)
                .run(executor, &mut recorder)?;
            (report, None)
        }
    };
    let (log, writer) = recorder.into_parts();
    let mut result = header;
    result.log = log;
    result.status = match report.ending {
        Ending::Interrupted => RunStatus::Interrupted,
        _ => RunStatus::Complete,
    };
    result.provenance.ended = Some(jiff::Timestamp::now());
    if !settings.simulate {
        result.provenance.load_after = rigor_store::LoadAverage::read().map(|l| l.one);
        result.provenance.others_cpus =
            machine_use.and_then(|start| start.others_since(&start.told_since()?));
    }
    rigor_store::file::fold_log(&mut result);
    // A run that measured nothing (a command that cannot start, a stop before the first
    // execution) has no times a load could have disturbed.
    let measured_any = result
        .benchmarks
        .iter()
        .any(|b| b.samples.iter().any(|s| !s.warmup));
    if !settings.simulate && measured_any {
        result.warnings.extend(rigor_store::Warning::busy_machine(
            &result.provenance,
            result.environment.cpus,
        ));
    }
    let (analyses, mut comparisons) = analyse(&mut result, settings)?;
    if let Some(d) = &decided {
        crate::decided::apply(d, &mut result, &mut comparisons);
    }
    let cs = CompareSettings::new(
        &settings.comparison,
        settings.analysis.confidence,
        result.seed,
    );
    let ranking = if settings.comparison.enabled {
        let by_time = settings.exports.sort != crate::settings::SortOrder::Command;
        let mut ranking = ranking::ranking(&result, &analyses, &cs, by_time);
        // Sequences decide on wall time: they replace the ranking's intervals of wall time only.
        if settings
            .metrics
            .first()
            .is_none_or(rigor_units::Metric::is_wall)
        {
            ranking::rank_by_sequences(&mut ranking, &result);
        }
        ranking
    } else {
        Vec::new()
    };
    let compared = crate::analysis::compared_statistics(&result, &cs.config);
    if let Some(w) = writer {
        w.finish(&result).map_err(|source| AppError::Write {
            what: "the JSON result",
            source,
        })?;
    }
    let mut found = findings(&report, &comparisons, &result);
    let by_metric = if metrics_shown(settings).is_empty() {
        Vec::new()
    } else {
        let mut by_metric: Vec<crate::saved::Analysed> = Vec::new();
        for m in metrics_shown(settings) {
            let ranked = settings.comparison.enabled;
            match crate::saved::analyze_measured(&result, m, settings, ranked) {
                Ok(a) => by_metric.push(a),
                // Measured all the same: the other metrics are shown; this one, which no
                // benchmark has, fails the run as `analyze` and `compare` fail (exit 2), so that
                // a gate on it never passes by checking nothing.
                Err(AppError::Metric(e)) => {
                    result.warnings.push(rigor_store::Warning::NoMetric {
                        benchmark: String::new(),
                        reason: e.to_string(),
                    });
                    found.failed = true;
                }
                Err(e) => return Err(e),
            }
        }
        // What `--fail-on` decides from is what is shown: the metrics asked for; a benchmark
        // left out of one (it has no values of it) is a warning.
        found.verdicts = by_metric
            .iter()
            .flat_map(|a| a.comparisons.iter().map(|c| c.comparison.verdict))
            .collect();
        found.warned |= by_metric.iter().any(|a| has_warnings(&a.result));
        by_metric
    };
    let outcome = found.outcome(settings.comparison.fail_on);
    let failed = (outcome == Outcome::Failed).then(|| Note::Failed {
        benchmarks: failed_benchmarks(&report, &result),
        metric_missing: result.warnings.iter().any(
            |w| matches!(w, rigor_store::Warning::NoMetric { benchmark, .. } if benchmark.is_empty()),
        ),
    });
    let mut notes = notes(settings, &result, failed);
    if !metrics_shown(settings).is_empty()
        && !settings.metrics.iter().any(rigor_units::Metric::is_wall)
        && matches!(
            settings.mode,
            Mode::Adaptive { .. } | Mode::UntilDecided { .. } | Mode::UntilKnown { .. }
        )
    {
        // The run's length was decided on wall time, whatever is shown.
        notes.push(Note::LengthOnWallTime);
    }
    notes.extend(short);
    notes.extend(plan_short(settings, &result, &analyses));
    notes.extend(startup_dominated(settings, &result, &analyses));
    if one_run_decided(&comparisons) {
        notes.push(Note::OneRun);
    }
    // A gate on verdicts with nothing compared cannot fail: said (a CI job with one command
    // passed green without a word). `rigor bench` leaves it out where a baseline judges.
    let any_compared =
        !comparisons.is_empty() || by_metric.iter().any(|a| !a.comparisons.is_empty());
    let rule = settings.comparison.fail_on.filter(|r| r.on_verdicts());
    if let (Some(rule), false, Outcome::Ok) = (rule, any_compared, outcome) {
        notes.push(Note::NothingToGate {
            rule: rule.name().to_string(),
        });
    }
    Ok(Measured {
        adaptive_view: adaptive.as_ref().map(|a| {
            let interrupted = result.status == rigor_store::RunStatus::Interrupted;
            crate::adaptive_note::adaptive_view(settings, a, interrupted)
        }),
        decided: decided.as_ref().map(|d| crate::decided::view(d, settings)),
        known,
        result,
        analyses,
        comparisons,
        ranking,
        compared,
        adaptive,
        by_metric,
        notes,
        outcome,
    })
}

/// Commands measured as whole executions (no iterations of their own, not net of a shell) whose
/// median measured execution, less the time it waited for a CPU others held (its run-queue
/// delay, where recorded), is under [`SHORT_EXECUTION`](rigor_report::notes::SHORT_EXECUTION):
/// much of it is process start-up, which a user comparing such commands should know. Beside two
/// busy loops on this 2-CPU machine each execution of `true` took 3–13 ms, nearly all of it
/// waiting, and the note went missing.
fn startup_dominated(
    settings: &RunSettings,
    result: &ResultFile,
    analyses: &Analyses,
) -> Option<Note> {
    if settings.simulate || !metrics_shown(settings).is_empty() {
        return None;
    }
    let benchmarks: Vec<(String, Seconds)> = result
        .benchmarks
        .iter()
        .zip(analyses)
        .filter(|(b, a)| {
            a.is_ok()
                && !b.layout.has_iterations()
                && b.net_of.is_none()
                && b.shell_startup.is_none()
        })
        .filter_map(|(b, _)| {
            let walls: Vec<f64> = b
                .executions
                .iter()
                .filter(|e| !e.warmup)
                .map(|e| e.wall.get() - e.run_delay.map_or(0.0, |d| d.get().max(0.0)))
                .collect();
            if walls.is_empty() {
                return None;
            }
            let typical = rigor_stats::descriptive::median(&walls);
            (typical > 0.0 && typical < rigor_report::notes::SHORT_EXECUTION)
                .then(|| (b.name.clone(), Seconds::new(typical)))
        })
        .collect();
    (!benchmarks.is_empty()).then_some(Note::StartupDominated { benchmarks })
}

/// A run of a plan's counts for `--precision` whose intervals ended wider than the target: the
/// plan is a prediction from its pilot, and nothing else would say the target was missed.
fn plan_short(settings: &RunSettings, result: &ResultFile, analyses: &Analyses) -> Option<Note> {
    let Mode::Planned {
        precision: Some(target),
        ..
    } = &settings.mode
    else {
        return None;
    };
    let benchmarks: Vec<(String, f64)> = result
        .benchmarks
        .iter()
        .zip(analyses)
        .filter_map(|(b, a)| {
            let r = a.as_ref().ok()?.interval.relative_half_width();
            (r > target.get()).then(|| (b.name.clone(), r))
        })
        .collect();
    (!benchmarks.is_empty()).then_some(Note::PlanShort {
        target: *target,
        benchmarks,
    })
}

/// Whether a comparison of times in one run reached a verdict (a change or equivalence): one
/// run's interval holds no run level, which [`Note::OneRun`] says.
fn one_run_decided(comparisons: &[Computed]) -> bool {
    comparisons.iter().any(|c| {
        c.quantity == rigor_units::Quantity::Time
            && c.apart.is_none()
            && matches!(
                c.comparison.verdict,
                rigor_stats::compare::Verdict::Regression
                    | rigor_stats::compare::Verdict::Improvement
                    | rigor_stats::compare::Verdict::Equivalent
            )
    })
}

/// The metrics a run shows besides (or instead of) its wall times: none when only wall time is
/// asked for (`--metric wall`, the default).
fn metrics_shown(settings: &RunSettings) -> &[rigor_units::Metric] {
    if settings.metrics.iter().all(rigor_units::Metric::is_wall) {
        &[]
    } else {
        &settings.metrics
    }
}

/// Warm-up detection (when asked), analysis and comparisons of a measured result.
fn analyse(result: &mut ResultFile, settings: &RunSettings) -> Result<(Analyses, Vec<Computed>)> {
    if settings.discard == rigor_store::Discard::Auto {
        let warnings = diagnosis::auto_discard_all(result);
        result.warnings.extend(warnings);
    }
    let analyses = analyze_all(result, &settings.analysis);
    let cs = CompareSettings::new(
        &settings.comparison,
        settings.analysis.confidence,
        result.seed,
    );
    let (computed, warnings) = if settings.comparison.enabled {
        comparisons::within_run(
            result,
            &analyses,
            settings.comparison.reference.as_deref(),
            &cs,
        )?
    } else {
        (Vec::new(), Vec::new())
    };
    result.warnings.extend(warnings);
    result.comparisons = comparisons::records(&computed);
    Ok((analyses, computed))
}

/// The benchmarks that stopped after a failure or measured nothing. With --ignore-failure a
/// benchmark whose every execution failed still "completes": it measured nothing, which is a
/// failure all the same.
fn failed_benchmarks(report: &Report, result: &ResultFile) -> Vec<String> {
    result
        .benchmarks
        .iter()
        .enumerate()
        .filter(|(i, b)| {
            report
                .status
                .get(*i)
                .is_some_and(|s| *s != BenchmarkStatus::Completed)
                || (!b.failures.is_empty() && b.samples.iter().all(|s| s.warmup))
        })
        .map(|(_, b)| b.name.clone())
        .collect()
}

/// What a run found, for its outcome.
fn findings(report: &Report, computed: &[Computed], result: &ResultFile) -> Findings {
    Findings {
        interrupted: matches!(report.ending, Ending::Interrupted),
        failed: !failed_benchmarks(report, result).is_empty(),
        verdicts: computed
            .iter()
            .map(|c| c.comparison.verdict)
            .chain(crate::outcome::not_compared(&result.warnings))
            .collect(),
        warned: has_warnings(result),
    }
}

/// The notes after a run: a `--discard` that found nothing to discard, a failure and, when a
/// command exited with a non-zero status, `-i`.
fn notes(s: &RunSettings, r: &ResultFile, failed: Option<Note>) -> Vec<Note> {
    let mut notes = Vec::new();
    let timed_only: Vec<String> = r
        .benchmarks
        .iter()
        .filter(|b| !b.layout.has_iterations() && !b.samples.is_empty())
        .map(|b| b.name.clone())
        .collect();
    if s.discard != rigor_store::Discard::Count(0) && !timed_only.is_empty() {
        notes.push(Note::NothingDiscarded {
            benchmarks: timed_only,
        });
    }
    if s.simulate {
        for b in &r.benchmarks {
            let measured = b.samples.iter().filter(|x| !x.warmup);
            let (count, of) = measured.fold((0, 0), |(n, all), x| {
                (n + usize::from(x.value <= 0.0), all + 1)
            });
            if count > 0 {
                notes.push(Note::NonPositiveSimulated {
                    benchmark: b.name.clone(),
                    count,
                    of,
                });
            }
        }
    }
    if let Some(failed) = failed {
        notes.push(failed);
        // The one failure `-i/--ignore-failure` is meant for (as hyperfine suggests it): a
        // benchmarked command (not a build or a hook) exited with a non-zero status.
        let exited = r.benchmarks.iter().any(|b| {
            b.failures
                .iter()
                // 126 and 127: a shell that could not run the command, which -i would not
                // make measurable; nor a shell's syntax error (`sh -S python3 'print(1)'`: the
                // command never ran).
                .any(|f| {
                    f.stage.is_command()
                        && f.exit_code.is_some_and(|c| c != 0 && c != 126 && c != 127)
                        && !f.stderr_tail.to_lowercase().contains("syntax error")
                })
        });
        if !s.runner.ignore_failure && exited {
            notes.push(Note::IgnoreFailure);
        }
    }
    // hyperfine's -i keeps a crashed run's time; rigor's records and skips it: said where it
    // happened, since a crashing command then has no result here and one under hyperfine.
    if s.runner.ignore_failure {
        let crashed: Vec<String> = r
            .benchmarks
            .iter()
            .filter(|b| {
                b.failures
                    .iter()
                    .any(|f| f.stage.is_command() && (f.signal.is_some() || f.timed_out))
            })
            .map(|b| b.name.clone())
            .collect();
        if !crashed.is_empty() {
            notes.push(Note::CrashesSkipped {
                benchmarks: crashed,
            });
        }
    }
    notes
}

/// The result file as it starts: settings, provenance, machine, and one empty record per
/// benchmark with its level layout.
pub fn header(s: &RunSettings) -> ResultFile {
    let layout = Layout::new(s.runner.build.is_some(), s.iterations_expected);
    let mut result = ResultFile::new(s.runner.seed, s.analysis.confidence);
    result.status = RunStatus::Running;
    result.provenance = provenance::starting(&s.origin);
    result.environment = if s.simulate {
        Environment {
            host: "simulated".into(),
            ..Environment::default()
        }
    } else {
        result.provenance.load_before = rigor_store::LoadAverage::read().map(|l| l.one);
        Environment::detect()
    };
    result.settings = Some(s.record.clone());
    result.benchmarks = s
        .benchmarks
        .iter()
        .zip(&s.commands)
        .enumerate()
        .map(|(i, (b, command))| {
            let mut record = BenchmarkRecord::new(b.name.clone(), command.clone(), layout);
            record.parameters = s.parameters.get(i).cloned().unwrap_or_default();
            record.version = s.versions.get(i).cloned().flatten();
            record.artifact = s.artifacts.get(i).cloned().flatten();
            record.throughput = s.throughputs.get(i).copied();
            match s.shell_roles.get(i) {
                Some(crate::settings::ShellRole::NetOf(startup)) => {
                    record.net_of = Some(startup.clone());
                }
                Some(crate::settings::ShellRole::Startup(shell)) => {
                    record.shell_startup = Some(shell.clone());
                }
                _ => {}
            }
            record
        })
        .collect();
    result
}

/// Whether `warnings` would make `--fail-on warning` fail: run-level warnings or any analysis's.
pub fn has_warnings(result: &ResultFile) -> bool {
    result.warnings.iter().any(|w| !w.is_note())
        || result
            .benchmarks
            .iter()
            .any(|b| b.analysis.as_ref().is_some_and(|a| !a.warnings.is_empty()))
}
