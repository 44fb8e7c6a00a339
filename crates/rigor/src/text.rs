//! Presentation of what the use cases return: the adaptive note, plans, diagnoses, robust
//! estimates and the suite line. Formatting only; every number comes from `rigor-app`.

use std::fmt::Write as _;

use rigor_app::comparisons::kind_of;
use rigor_app::diagnosis;
use rigor_app::plan_file::BenchmarkPlan;
use rigor_app::run::AdaptiveOutcome;
use rigor_app::settings::RunSettings;
use rigor_report::comparison::{Kind, interval_words, ratio_words, verdict_word};
use rigor_report::format::{count, percent, time, time_like};
use rigor_runner::StopReason;
use rigor_store::{LevelKind, ResultFile, SuiteRecord};
use rigor_units::Seed;

/// What stopped an adaptive run, what it spent, and the counts it planned.
pub fn adaptive_note(s: &RunSettings, outcome: &AdaptiveOutcome) -> String {
    let (report, pilot) = (&outcome.report, &outcome.pilot);
    let why = match report.reason {
        StopReason::PrecisionReached => "the target precision was reached",
        StopReason::BudgetSpent if report.planned_top == 0 => {
            "the time budget was spent during the pilot (a larger budget lets rigor plan)"
        }
        StopReason::BudgetSpent => "the time budget was spent",
        StopReason::PrecisionNotReached => "the planned units ran without reaching the target",
        StopReason::Unplannable => "the experiment could not be planned from the pilot",
        StopReason::Ended => "the run ended",
    };
    let top = if s.runner.build.is_some() {
        format!("{} builds", pilot.builds)
    } else {
        format!("{} executions", pilot.executions)
    };
    let per_build = report
        .shape
        .executions
        .map_or(String::new(), |e| format!("{e} execution(s) per build"));
    let discard = s.discard.fixed();
    let plans: Vec<String> = s
        .benchmarks
        .iter()
        .zip(&report.shape.iterations)
        .zip(&report.plans)
        .map(|((b, k), plan)| {
            let mut counts: Vec<String> = Vec::new();
            if !per_build.is_empty() {
                counts.push(per_build.clone());
            }
            let reports_iterations = plan
                .as_ref()
                .is_ok_and(|p| p.levels.iter().any(|l| l == LevelKind::Iteration.name()));
            if let Some(k) = k.filter(|_| reports_iterations) {
                let warm = plan.as_ref().map_or(0, |p| p.warmup_iterations);
                let mut text = format!(
                    "{} iteration(s) per execution",
                    k.saturating_sub(discard + warm)
                );
                if warm > 0 {
                    text.push_str(&format!(" after {warm} warm-up"));
                }
                counts.push(text);
            }
            if counts.is_empty() {
                counts.push("top level only".into());
            }
            format!("  {}: {}", b.name, counts.join(", "))
        })
        .collect();
    let mut note = format!(
        "Adaptive run: stopped because {why}. Measured time: pilot ({top}, kept in the results) {}",
        report.pilot_seconds,
    );
    if report.main_seconds > rigor_units::Seconds::ZERO {
        note.push_str(&format!(" + {} after it", report.main_seconds));
    }
    note.push('.');
    if report.planned_top > 0 {
        note.push_str(&format!(
            " First planned {} {} in all.\nCounts in use at the end (from the latest plan):\n{}",
            report.planned_top,
            if s.runner.build.is_some() {
                "builds"
            } else {
                "executions"
            },
            plans.join("\n")
        ));
    }
    note.push_str(&estimator_note(s, outcome));
    if matches!(
        report.reason,
        StopReason::Unplannable | StopReason::PrecisionNotReached | StopReason::BudgetSpent
    ) {
        note.push_str(&reachable_note(s, outcome));
    }
    note
}

/// The interval the rule judged, when it is not the mean's (shown in the summary above): the
/// estimator, its bootstrap interval over the top level, and the relative half-width.
fn estimator_note(s: &RunSettings, outcome: &AdaptiveOutcome) -> String {
    let estimator = s.comparison.estimator;
    if estimator == rigor_stats::Estimator::Mean {
        return String::new();
    }
    let top = if s.runner.build.is_some() {
        "builds"
    } else {
        "executions"
    };
    let mut out = format!(
        "\nThe target applies to the {estimator} (--estimator {estimator}); its {} interval, \
         from a bootstrap that resamples whole {top}:",
        percent(100.0 * s.analysis.confidence.get())
    );
    for (b, i) in s.benchmarks.iter().zip(&outcome.report.intervals) {
        match i {
            Some(i) => out.push_str(&format!(
                "\n  {}: {} {} [{}, {}] (± {}){}",
                b.name,
                estimator,
                time(i.estimate),
                time(i.lower),
                time(i.upper),
                percent(100.0 * i.relative_half_width()),
                if i.at_resolution {
                    ", at the timer's resolution"
                } else {
                    ""
                }
            )),
            None => out.push_str(&format!("\n  {}: too few {top} for an interval", b.name)),
        }
    }
    out
}

/// Why the target was not reached and what precision the cap and budget can reach, per
/// benchmark.
fn reachable_note(s: &RunSettings, outcome: &AdaptiveOutcome) -> String {
    let mut out = String::new();
    if let Some(problem) = &outcome.report.problem {
        out.push_str(&format!(
            "\nThe pilot's data are the result above (the planner: {problem})."
        ));
    }
    let (target, budget) = match &s.mode {
        rigor_app::settings::Mode::Adaptive {
            precision, budget, ..
        } => (*precision, *budget),
        _ => (None, None),
    };
    let Some(target) = target else { return out };
    let within = match budget {
        Some(b) => format!("--max-runs {} and a budget of {b}", outcome.max_units),
        None => format!("--max-runs {}", outcome.max_units),
    };
    out.push_str(&format!(
        "\nTarget ±{}%; the pilot predicts within {within}:",
        // As given (0.001%), not rounded to the display's precision.
        format!("{:.6}", 100.0 * target.get())
            .trim_end_matches('0')
            .trim_end_matches('.')
    ));
    for (b, r) in s.benchmarks.iter().zip(&outcome.reachable) {
        match r {
            Some(r) => out.push_str(&format!("\n  {}: about ±{}", b.name, percent(100.0 * r))),
            None => out.push_str(&format!("\n  {}: not predictable from the pilot", b.name)),
        }
    }
    out
}

/// A plan in words (printed by `rigor plan`).
pub fn plan(p: &BenchmarkPlan) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Plan for {}", p.name);
    let total: f64 = p.t2.iter().map(|t| t.max(0.0)).sum();
    let mean = p.mean.get();
    for (i, level) in p.levels.iter().enumerate() {
        let share = if total > 0.0 {
            100.0 * p.t2[i].max(0.0) / total
        } else {
            0.0
        };
        let count = if i == 0 {
            "top".to_string()
        } else {
            format!("{} per {}", p.counts[i - 1], p.levels[i - 1])
        };
        let _ = writeln!(
            out,
            "  {:<10} cost {:>10}   σ {:>6} of mean   {:>4.0}% of variance   {count}",
            level.name(),
            time(p.costs[i].get()),
            percent(100.0 * p.t2[i].max(0.0).sqrt() / mean.abs()),
            share
        );
    }
    if p.warmup_iterations > 0 {
        let _ = writeln!(
            out,
            "  warm-up: the first {} iteration(s) of each execution, counted in its cost; run \
             with --discard auto to run them before the planned iterations",
            p.warmup_iterations
        );
    }
    if !p.collapsed.is_empty() {
        let names: Vec<&str> = p.collapsed.iter().map(|l| l.name()).collect();
        let _ = writeln!(
            out,
            "  no detectable variance at: {} (repeated once)",
            names.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "  {:>10} {:>12} {:>12} {:>18}",
        "± (95%)",
        format!("{}s", p.levels[0]),
        "time",
        "top level only"
    );
    for r in &p.targets {
        let fmt_s =
            |s: Option<rigor_units::Seconds>| s.map_or("—".to_string(), |s| time(s.get()));
        let _ = writeln!(
            out,
            "  {:>10} {:>12} {:>12} {:>18}",
            percent(r.half_width.as_percent()),
            r.top_units.map_or("—".to_string(), |u| u.to_string()),
            fmt_s(r.seconds),
            fmt_s(r.top_only_seconds)
        );
    }
    out
}

/// The `--diagnose` text of every benchmark.
pub fn diagnoses(result: &ResultFile) -> String {
    let mut out = String::new();
    for b in &result.benchmarks {
        let steady = diagnosis::diagnose_benchmark(b, result.seed);
        let (report, missing) = match &steady {
            Some(Ok(r)) => (Some(r), None),
            Some(Err(e)) => (None, Some(format!("no steady-state diagnosis: {e}"))),
            None => (
                None,
                Some("no iterations reported: nothing to diagnose within executions".to_string()),
            ),
        };
        let impact = diagnosis::impact(b, result.seed).map(|i| {
            (
                i.original.value,
                i.centred.value,
                i.clustered.map(|c| c.value),
            )
        });
        out += &rigor_report::diagnosis::render(&rigor_report::diagnosis::DiagnosisView {
            name: &b.name,
            steady: report,
            applied: b.steady_state.as_ref().map(|s| s.applied),
            impact,
            missing: missing.as_deref(),
        });
        out.push('\n');
    }
    out
}

/// `--robust mono`: the Mono project's sub-selection estimate beside the plain one.
pub fn robust(result: &ResultFile) -> String {
    let mut out = String::new();
    for b in &result.benchmarks {
        match diagnosis::robust(b, result.confidence, result.seed) {
            Some((r, p)) => {
                out += &format!(
                    "Robust (Mono, Kalibera, Bulej & Tůma 2005b §4.2) {}: {} ± {} (their Eq. 4 without sub-selection: {} ± {}; both with the normal quantile, as the paper's, so not the t interval above); {} sub-selections of {} per execution, seed {}\n",
                    b.name,
                    time(r.mean),
                    time_like(r.half_width, r.mean),
                    time(p.mean),
                    time_like(p.half_width, p.mean),
                    r.subsamples,
                    r.n,
                    r.seed
                );
            }
            None => {
                out += &format!(
                    "Robust (Mono) {}: needs iterations in at least two executions\n",
                    b.name
                )
            }
        }
    }
    out
}

/// The suite line of `rigor compare`.
pub fn suite(s: &SuiteRecord, seed: Seed) -> String {
    format!(
        "Suite: geometric mean of {} {:.4} ({}% CI {:.4} .. {:.4}{}), i.e. {} {}; bootstrap seed {}\n",
        count(s.benchmarks, "ratio", "ratios"),
        s.geometric_mean_ratio,
        (s.ci.level * 100.0).round(),
        s.ci.lower,
        s.ci.upper,
        if s.at_resolution {
            ", at the timer's resolution"
        } else {
            ""
        },
        percent(100.0 * (s.geometric_mean_ratio - 1.0).abs()),
        if s.geometric_mean_ratio >= 1.0 {
            "slower"
        } else {
            "faster"
        },
        seed
    )
}

/// The rule of a run until decided, as its note opens.
struct DecidedRule {
    /// The error rate shared by the candidates.
    alpha: f64,
    /// Candidates (each used α/K).
    candidates: usize,
    /// δ.
    threshold: f64,
    /// Rounds before the first look, and the most rounds (unknown for a file without settings).
    rounds: Option<(usize, usize)>,
    /// Measured-time budget.
    budget: Option<rigor_units::Seconds>,
}

impl DecidedRule {
    /// "Until decided: confidence sequence …, α = …, δ = ±…, first look after …"
    fn opening(&self) -> String {
        let k = self.candidates;
        let share = if k > 1 {
            format!(
                " shared by {k} candidates ({} each)",
                percent(100.0 * self.alpha / k as f64)
            )
        } else {
            String::new()
        };
        let rounds = self.rounds.map_or(String::new(), |(min, max)| {
            format!(", first look after {min} rounds, at most {max} rounds")
        });
        let budget = self
            .budget
            .map_or(String::new(), |b| format!(", budget {b}"));
        format!(
            "Until decided: confidence sequence on the paired round ratios, α = {}{share}, \
             δ = ±{}{rounds}{budget}",
            percent(100.0 * self.alpha),
            percent(100.0 * self.threshold),
        )
    }
}

/// How one candidate of a run until decided ended: its verdict, in the words the comparisons use
/// for its `kind` ("regression" for versions of one program, "slower" for different commands),
/// the change and its sequence ("new is 3.6% slower than old, sequence +2.3% .. +4.9%"), and
/// why it stopped.
fn decision_line(
    candidate: &str,
    reference: &str,
    kind: Kind,
    r: &rigor_store::SequentialRecord,
) -> String {
    use rigor_stats::compare::Verdict;
    use rigor_store::SequentialStopRecord as Stop;
    let verdict = match r.verdict {
        v @ (Verdict::Regression | Verdict::Improvement) => verdict_word(kind, v),
        Verdict::Equivalent => "equivalent".to_string(),
        _ => "inconclusive".to_string(),
    };
    let (amount, _) = ratio_words(r.ratio, None, 1.0 - r.alpha);
    let sequence = r
        .lower
        .zip(r.upper)
        .and_then(|bounds| interval_words(r.ratio, Some(bounds)))
        .map_or("no sequence yet".to_string(), |i| format!("sequence {i}"));
    let said = format!("{verdict} ({candidate} is {amount} than {reference}, {sequence})");
    let rounds = r.rounds;
    match r.stop {
        Stop::Decided => format!("decided: {said} after {rounds} rounds"),
        Stop::Budget => {
            format!("budget reached after {rounds} rounds: {said}; a larger --budget may decide it")
        }
        Stop::MaxRounds => format!(
            "round limit reached after {rounds} rounds: {said}; a larger --max-runs may decide it"
        ),
        Stop::Interrupted => format!("interrupted after {rounds} rounds: {said}"),
        Stop::Failed => format!("stopped after {rounds} rounds by a failure: {said}"),
    }
}

/// How a run until decided ended: the rule's settings, then one line per candidate with its
/// verdict, its confidence sequence and why it stopped.
pub fn decided_note(s: &RunSettings, d: &rigor_app::decided::DecidedOutcome) -> String {
    let rule = DecidedRule {
        alpha: d.alpha,
        candidates: d.report.decisions.len(),
        threshold: d.threshold,
        rounds: Some((d.min_rounds, d.max_rounds)),
        budget: d.budget,
    };
    let mut out = format!(
        "{}; {} rounds run, {} of measured time.\n",
        rule.opening(),
        d.report.rounds,
        d.report.seconds
    );
    let reference = &s.benchmarks[d.reference].name;
    for x in &d.report.decisions {
        let l = &x.look;
        let bounded = l.lower > 0.0 && l.upper.is_finite();
        let record = rigor_store::SequentialRecord {
            stop: rigor_app::decided::stop_record(x.stop),
            rounds: l.rounds,
            ratio: l.ratio,
            lower: bounded.then_some(l.lower),
            upper: bounded.then_some(l.upper),
            verdict: l.verdict,
            alpha: d.report.alpha_each,
        };
        let name = &s.benchmarks[x.candidate].name;
        let kind = kind_of(&s.commands[d.reference], &s.commands[x.candidate]);
        let _ = writeln!(out, "  {}", decision_line(name, reference, kind, &record));
    }
    out
}

/// The note of a saved run until decided (`rigor analyze`), from the `sequential` records of its
/// comparisons: the same lines `rigor run --until-decided` printed. `None` for other results.
pub fn saved_decided_note(r: &ResultFile) -> Option<String> {
    let ended: Vec<_> = r
        .comparisons
        .iter()
        .filter_map(|c| c.sequential.as_ref().map(|s| (c, s)))
        .collect();
    let (_, first) = ended.first()?;
    let settings = r.settings.as_ref();
    let (rounds, budget) = match settings.map(|s| &s.mode) {
        Some(rigor_store::ModeRecord::UntilDecided {
            budget,
            max_rounds,
            min_rounds,
        }) => (Some((*min_rounds, *max_rounds)), *budget),
        _ => (None, None),
    };
    let rule = DecidedRule {
        alpha: first.alpha * ended.len() as f64,
        candidates: ended.len(),
        threshold: settings.map_or(ended[0].0.threshold.get(), |s| s.threshold.get()),
        rounds,
        budget,
    };
    let ran = ended.iter().map(|(_, s)| s.rounds).max().unwrap_or(0);
    let mut out = format!("{}; {ran} rounds run (as saved).\n", rule.opening());
    let command = |name: &str| {
        r.benchmarks
            .iter()
            .find(|b| b.name == name)
            .map_or_else(|| name.to_string(), |b| b.command.clone())
    };
    for (c, s) in &ended {
        let kind = kind_of(&command(&c.baseline), &command(&c.candidate));
        let _ = writeln!(
            out,
            "  {}",
            decision_line(&c.candidate, &c.baseline, kind, s)
        );
    }
    Some(out)
}
