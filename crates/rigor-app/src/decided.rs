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
use rigor_stats::compare::{RatioInterval, RatioMethod};
use rigor_stats::confseq::SequentialConfig;
use rigor_store::{ResultFile, SequentialRecord, SequentialStopRecord, Warning};
use rigor_units::Seconds;

use crate::comparisons::Computed;
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

fn stop_record(stop: DecisionStop) -> SequentialStopRecord {
    match stop {
        DecisionStop::Decided => SequentialStopRecord::Decided,
        DecisionStop::BudgetSpent => SequentialStopRecord::Budget,
        DecisionStop::RoundsSpent => SequentialStopRecord::MaxRounds,
        DecisionStop::Interrupted => SequentialStopRecord::Interrupted,
        DecisionStop::Failed => SequentialStopRecord::Failed,
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
        let bounded = l.lower > 0.0 && l.upper.is_finite();
        if let Some(c) = computed
            .iter_mut()
            .find(|c| c.baseline == baseline && c.candidate == candidate)
        {
            let x = &mut c.comparison;
            x.verdict = l.verdict;
            x.ratio = l.ratio;
            x.method = RatioMethod::ConfidenceSequence;
            x.level = 1.0 - outcome.report.alpha_each;
            x.ci = bounded.then_some(RatioInterval {
                lower: l.lower,
                upper: l.upper,
                level: x.level,
                method: RatioMethod::ConfidenceSequence,
            });
            x.more_units = None;
        }
        let record = SequentialRecord {
            stop: stop_record(d.stop),
            rounds: l.rounds,
            ratio: l.ratio,
            lower: bounded.then_some(l.lower),
            upper: bounded.then_some(l.upper),
            verdict: l.verdict,
            alpha: outcome.report.alpha_each,
        };
        records.push((candidate.clone(), record));
        result.warnings.retain(|w| {
            !matches!(w, Warning::Unpaired { candidate: c, baseline: b }
                if *c == candidate && *b == baseline)
        });
    }
    result.comparisons = crate::comparisons::records(computed);
    for (candidate, record) in records {
        if let Some(r) = result
            .comparisons
            .iter_mut()
            .find(|r| r.baseline == baseline && r.candidate == candidate)
        {
            r.sequential = Some(record);
        }
    }
}
