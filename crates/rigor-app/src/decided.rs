//! Runs until decided (`rigor run A B --until-decided`): the runner's sequential rule, and its
//! decisions carried into the comparisons and the result file.
//!
//! After such a run the verdict that holds is the confidence sequence's: a fixed-sample interval
//! computed after a data-dependent stop is too narrow (optional stopping). So each comparison
//! with the reference takes the sequence's verdict and interval, and its record keeps why it
//! stopped.

use rigor_runner::{
    DecideSettings, DecidedReport, DecisionStop, Executor, Observer, StopSignal, run_until_decided,
};
use rigor_stats::compare::{RatioInterval, RatioMethod, Verdict, verdict_from_interval};
use rigor_stats::confseq::SequentialConfig;
use rigor_store::{ComparisonRecord, ResultFile, SequentialRecord, SequentialStopRecord, Warning};
use rigor_units::Seconds;

use rigor_report::comparison::Kind;
use rigor_report::decided::{DecidedView, DecisionView, Ran, Stop as DecidedStop};

use crate::comparisons::{Computed, kind_of};
use crate::error::Result;
use crate::settings::RunSettings;

/// Mixing precision ρ of the confidence sequence, in rounds (the simulation's: tightest around
/// 10–30 rounds; docs/validation/sequential.md).
pub const RHO: f64 = 4.0;

/// What a run until decided did, for the caller to explain.
#[derive(Debug, Clone)]
pub struct DecidedOutcome {
    /// The runner's account: one decision per candidate.
    pub report: DecidedReport,
    /// The reference benchmark.
    pub reference: usize,
    /// The error rate shared by all candidates (each used α/K).
    pub alpha: f64,
    /// The equivalence margin δ.
    pub threshold: f64,
    /// Rounds before the first look.
    pub min_rounds: usize,
    /// Most rounds.
    pub max_rounds: usize,
    /// Measured-time budget.
    pub budget: Option<Seconds>,
}

/// Measures `settings`' benchmarks until each comparison with the reference (at position
/// `reference`) is decided or the budget is spent.
///
/// # Errors
/// As [`run_until_decided`].
#[allow(clippy::too_many_arguments)] // the run's parts plus the mode's three bounds
pub fn measure(
    settings: &RunSettings,
    reference: usize,
    (budget, max_rounds, min_rounds): (Option<Seconds>, usize, usize),
    stop: StopSignal,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<DecidedOutcome> {
    let sequential = SequentialConfig {
        alpha: 1.0 - settings.analysis.confidence.get(),
        threshold: settings.comparison.threshold.get(),
        rho: RHO,
        min_rounds,
    };
    let decide = DecideSettings {
        reference,
        sequential,
        max_rounds,
        budget,
        // The statistic compared: its comparison and its sequence decide on the same thing.
        per_execution: settings.comparison.estimator,
    };
    let report = run_until_decided(
        &settings.benchmarks,
        &settings.runner,
        settings.discard.fixed(),
        &decide,
        stop,
        executor,
        observer,
    )?;
    Ok(DecidedOutcome {
        report,
        reference,
        alpha: sequential.alpha,
        threshold: sequential.threshold,
        min_rounds,
        max_rounds,
        budget,
    })
}

/// Why a comparison stopped, as the result file records it.
pub fn stop_record(stop: DecisionStop) -> SequentialStopRecord {
    match stop {
        DecisionStop::Decided => SequentialStopRecord::Decided,
        DecisionStop::BudgetSpent => SequentialStopRecord::Budget,
        DecisionStop::RoundsSpent => SequentialStopRecord::MaxRounds,
        DecisionStop::Interrupted => SequentialStopRecord::Interrupted,
        DecisionStop::Failed => SequentialStopRecord::Failed,
    }
}

/// The sequence at a comparison's stop, as carried into its comparison.
struct Look {
    ratio: f64,
    bounds: Option<(f64, f64)>,
    verdict: Verdict,
    level: f64,
}

/// Makes the comparison of `candidate` with `baseline` in `computed` (if any) take the sequence's
/// verdict and interval.
fn carry(computed: &mut [Computed], baseline: &str, candidate: &str, look: &Look) {
    let Some(c) = computed
        .iter_mut()
        .find(|c| c.baseline == baseline && c.candidate == candidate)
    else {
        return;
    };
    // The fixed-sample cross-checks (a bootstrap interval of the ratio, the non-overlap rule of
    // each side's interval) assume the number of rounds was fixed in advance: a run stopped
    // when the sequence decided made them narrower than they are, so they are not shown.
    c.overlap = None;
    let x = &mut c.comparison;
    x.bootstrap = None;
    x.verdict = look.verdict;
    x.ratio = look.ratio;
    x.method = RatioMethod::ConfidenceSequence;
    x.level = look.level;
    x.ci = look.bounds.map(|(lower, upper)| RatioInterval {
        lower,
        upper,
        level: look.level,
        method: RatioMethod::ConfidenceSequence,
    });
    x.more_units = None;
}

/// Drops the "unpaired" warning of a candidate retired at its decision: it ran fewer rounds than
/// the reference by design.
fn drop_unpaired(result: &mut ResultFile, baseline: &str, candidate: &str) {
    result.warnings.retain(|w| {
        !matches!(w, Warning::Unpaired { candidate: c, baseline: b }
            if c == candidate && b == baseline)
    });
}

/// Writes `computed` into the result's comparison records, each with its sequential record.
fn write_records(
    result: &mut ResultFile,
    computed: &[Computed],
    records: Vec<(String, String, SequentialRecord)>,
) {
    result.comparisons = crate::comparisons::records(computed);
    for (baseline, candidate, record) in records {
        if let Some(r) = result
            .comparisons
            .iter_mut()
            .find(|r| r.baseline == baseline && r.candidate == candidate)
        {
            r.sequential = Some(record);
        }
    }
}

/// Gives each comparison with the reference its sequence's verdict and interval, records why it
/// stopped, and drops the "unpaired" warnings that only say a decided candidate ran fewer rounds
/// than the reference.
pub fn apply(outcome: &DecidedOutcome, result: &mut ResultFile, computed: &mut [Computed]) {
    let baseline = result.benchmarks[outcome.reference].name.clone();
    let mut records = Vec::new();
    for d in &outcome.report.decisions {
        let candidate = result.benchmarks[d.candidate].name.clone();
        let l = &d.look;
        let bounds = (l.lower > 0.0 && l.upper.is_finite()).then_some((l.lower, l.upper));
        let look = Look {
            ratio: l.ratio,
            bounds,
            verdict: l.verdict,
            level: 1.0 - outcome.report.alpha_each,
        };
        carry(computed, &baseline, &candidate, &look);
        let record = SequentialRecord {
            stop: stop_record(d.stop),
            rounds: l.rounds,
            ratio: l.ratio,
            lower: bounds.map(|b| b.0),
            upper: bounds.map(|b| b.1),
            verdict: l.verdict,
            alpha: outcome.report.alpha_each,
        };
        drop_unpaired(result, &baseline, &candidate);
        records.push((baseline.clone(), candidate, record));
    }
    write_records(result, computed, records);
}

/// Re-analysis of a saved run until decided (`rigor analyze`, `rigor report`): the comparisons
/// re-derived from the samples take back the `saved` sequences' verdicts and intervals, keep
/// their `sequential` records, and lose the "unpaired" warnings of candidates retired at their
/// decision. The sequence is not recomputed: it is read as saved. A confidence sequence holds at
/// any stop, so with another `--threshold` its saved interval is read again against the new δ.
/// A comparison of another statistic (`--estimator median`) keeps its own interval and verdict
/// (the sequence is on the mean), but still carries the record of how the run ended.
pub fn reapply_saved(
    saved: &[ComparisonRecord],
    result: &mut ResultFile,
    computed: &mut [Computed],
) {
    let mut records = Vec::new();
    for r in saved {
        let Some(seq) = &r.sequential else { continue };
        let Some(c) = computed
            .iter()
            .find(|c| c.baseline == r.baseline && c.candidate == r.candidate)
        else {
            continue;
        };
        if c.comparison.estimator == r.estimator {
            let bounds = seq.lower.zip(seq.upper);
            let threshold = c.comparison.threshold;
            let verdict = match bounds {
                Some((lo, hi)) if (threshold - r.threshold.get()).abs() > 1e-12 => {
                    verdict_from_interval(lo, hi, threshold)
                }
                _ => seq.verdict,
            };
            let look = Look {
                ratio: seq.ratio,
                bounds,
                verdict,
                level: 1.0 - seq.alpha,
            };
            carry(computed, &r.baseline, &r.candidate, &look);
            drop_unpaired(result, &r.baseline, &r.candidate);
        }
        records.push((r.baseline.clone(), r.candidate.clone(), seq.clone()));
    }
    if !records.is_empty() {
        write_records(result, computed, records);
    }
}

/// A recorded stop in the report's words.
fn stop_view(stop: SequentialStopRecord) -> DecidedStop {
    match stop {
        SequentialStopRecord::Decided => DecidedStop::Decided,
        SequentialStopRecord::Budget => DecidedStop::Budget,
        SequentialStopRecord::MaxRounds => DecidedStop::MaxRounds,
        SequentialStopRecord::Interrupted => DecidedStop::Interrupted,
        SequentialStopRecord::Failed => DecidedStop::Failed,
    }
}

/// One candidate's ending from its record.
fn decision(candidate: &str, reference: &str, kind: Kind, r: &SequentialRecord) -> DecisionView {
    DecisionView {
        candidate: candidate.to_string(),
        reference: reference.to_string(),
        kind,
        stop: stop_view(r.stop),
        rounds: r.rounds,
        ratio: r.ratio,
        bounds: r.lower.zip(r.upper),
        verdict: r.verdict,
        alpha: r.alpha,
    }
}

/// How the run until decided that `settings` describe ended, as its note shows it.
pub fn view(d: &DecidedOutcome, settings: &RunSettings) -> DecidedView {
    let reference = &settings.benchmarks[d.reference].name;
    let decisions = d
        .report
        .decisions
        .iter()
        .map(|x| {
            let l = &x.look;
            let bounded = l.lower > 0.0 && l.upper.is_finite();
            let record = SequentialRecord {
                stop: stop_record(x.stop),
                rounds: l.rounds,
                ratio: l.ratio,
                lower: bounded.then_some(l.lower),
                upper: bounded.then_some(l.upper),
                verdict: l.verdict,
                alpha: d.report.alpha_each,
            };
            let kind = kind_of(
                &settings.commands[d.reference],
                &settings.commands[x.candidate],
            );
            decision(
                &settings.benchmarks[x.candidate].name,
                reference,
                kind,
                &record,
            )
        })
        .collect();
    DecidedView {
        alpha: d.alpha,
        candidates: d.report.decisions.len(),
        threshold: d.threshold,
        rounds: Some((d.min_rounds, d.max_rounds)),
        budget: d.budget,
        ran: Ran::Now {
            rounds: d.report.rounds,
            seconds: d.report.seconds,
        },
        decisions,
    }
}

/// The note of a saved run until decided, from the `sequential` records of its comparisons:
/// the same lines `rigor run --until-decided` printed. `None` for other results.
pub fn saved_view(r: &ResultFile) -> Option<DecidedView> {
    let ended: Vec<_> = r
        .comparisons
        .iter()
        .filter_map(|c| c.sequential.as_ref().map(|s| (c, s)))
        .collect();
    let (first_comparison, first) = ended.first()?;
    let settings = r.settings.as_ref();
    let (rounds, budget) = match settings.map(|s| &s.mode) {
        Some(rigor_store::ModeRecord::UntilDecided {
            budget,
            max_rounds,
            min_rounds,
        }) => (Some((*min_rounds, *max_rounds)), *budget),
        _ => (None, None),
    };
    let command = |name: &str| {
        r.benchmarks
            .iter()
            .find(|b| b.name == name)
            .map_or_else(|| name.to_string(), |b| b.command.clone())
    };
    let decisions = ended
        .iter()
        .map(|(c, s)| {
            let kind = kind_of(&command(&c.baseline), &command(&c.candidate));
            decision(&c.candidate, &c.baseline, kind, s)
        })
        .collect();
    Some(DecidedView {
        alpha: first.alpha * ended.len() as f64,
        candidates: ended.len(),
        threshold: settings.map_or(first_comparison.threshold.get(), |s| s.threshold.get()),
        rounds,
        budget,
        ran: Ran::Saved {
            rounds: ended.iter().map(|(_, s)| s.rounds).max().unwrap_or(0),
        },
        decisions,
    })
}
