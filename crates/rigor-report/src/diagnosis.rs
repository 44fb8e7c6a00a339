//! Warm-up, steady-state and random-initial-state diagnostics in words.

use std::fmt::Write;

use crate::format::{time, time_like};
use rigor_stats::steady::{Consistency, Recommendation, RunClass, SteadyStateReport};

/// Everything the diagnosis section shows for one benchmark.
#[derive(Debug, Clone)]
pub struct DiagnosisView<'a> {
    /// Benchmark name.
    pub name: &'a str,
    /// The steady-state report, when the benchmark has iterations.
    pub steady: Option<&'a SteadyStateReport>,
    /// What was applied (for `--discard auto`).
    pub applied: Option<Recommendation>,
    /// Impact factor on the original data, on run-mean-centred data, and after the clustering
    /// additive filter.
    pub impact: Option<(f64, f64, Option<f64>)>,
    /// Why there is no diagnosis, when there is none.
    pub missing: Option<Missing<'a>>,
}

/// Why a benchmark has no steady-state diagnosis.
#[derive(Debug, Clone, Copy)]
pub enum Missing<'a> {
    /// It reported no iterations.
    NoIterations,
    /// The diagnosis failed.
    Failed(&'a rigor_stats::StatsError),
}

fn count_classes(report: &SteadyStateReport) -> String {
    let classes = [
        RunClass::Flat,
        RunClass::Warmup,
        RunClass::Slowdown,
        RunClass::NoSteadyState,
    ];
    classes
        .iter()
        .filter_map(|c| {
            let n = report.runs.iter().filter(|r| r.class == *c).count();
            (n > 0).then(|| format!("{n} {c}"))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn opt(v: Option<usize>) -> String {
    v.map_or("none".to_string(), |n| n.to_string())
}

/// What applying Kalibera & Jones' rule did to the data, in words.
pub fn applied_text(rule: Recommendation) -> String {
    match rule {
        Recommendation::Iterations { warmup } => format!(
            "discarded the first {warmup} iteration(s) of every execution (independent state)"
        ),
        Recommendation::Untested { warmup } => format!(
            "discarded the first {warmup} iteration(s) of every execution (until it settled) and kept \
             the rest: too few iterations after the warm-up to test independence (ask for 50 or \
             more); the interval over execution means is valid either way"
        ),
        Recommendation::SingleIteration { index } => format!(
            "never independent: kept only iteration {} of every execution, the first after it settled",
            index + 1
        ),
        Recommendation::Unsettled => {
            "no execution reached a steady state: all iterations kept; treat the result with care"
                .to_string()
        }
    }
}

/// `--robust mono`: the Mono project's sub-selection estimate `robust` beside the plain one
/// `plain` (`None`: too few executions with iterations).
pub fn robust(
    name: &str,
    estimates: Option<(
        &rigor_stats::robust::RobustEstimate,
        &rigor_stats::robust::RobustEstimate,
    )>,
) -> String {
    match estimates {
        Some((r, p)) => format!(
            "Robust (Mono, Kalibera, Bulej & Tůma 2005b §4.2) {name}: {} ± {} (their Eq. 4 \
             without sub-selection: {} ± {}; both with the normal quantile, as the paper's, so \
             not the t interval above); {} sub-selections of {} per execution, seed {}\n",
            time(r.mean),
            time_like(r.half_width, r.mean),
            time(p.mean),
            time_like(p.half_width, p.mean),
            r.subsamples,
            r.n,
            r.seed
        ),
        None => format!("Robust (Mono) {name}: needs iterations in at least two executions\n"),
    }
}

/// The lines of the warm-up `--discard auto` applied to each benchmark (name, rule).
pub fn warmups<'a>(applied: impl IntoIterator<Item = (&'a str, Recommendation)>) -> String {
    applied
        .into_iter()
        .map(|(name, rule)| {
            format!(
                "Warm-up of {name} (--discard auto): {}\n",
                applied_text(rule)
            )
        })
        .collect()
}

/// Renders the diagnosis of one benchmark.
pub fn render(v: &DiagnosisView<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Diagnosis: {}", v.name);
    match v.missing {
        Some(Missing::NoIterations) => {
            let _ = writeln!(
                out,
                "  no iterations reported: nothing to diagnose within executions"
            );
        }
        Some(Missing::Failed(e)) => {
            let _ = writeln!(out, "  no steady-state diagnosis: {e}");
        }
        None => {}
    }
    if let Some(r) = v.steady {
        let consistency = match r.consistency {
            Consistency::Consistent(c) => format!("consistent: every execution is {c}"),
            Consistency::GoodInconsistent => "executions differ, but every one settles".into(),
            Consistency::BadInconsistent => {
                "not all settle: some executions slow down or never reach a steady state".into()
            }
        };
        let _ = writeln!(
            out,
            "  Executions:          {} ({consistency})",
            count_classes(r)
        );
        let _ = writeln!(
            out,
            "  Warm-up iterations:  settled after {}, independent after {}; DaCapo {}, Georges {}",
            opt(r.initialised_warmup),
            if r.independence_testable {
                opt(r.independent_warmup)
            } else {
                "(not testable)".to_string()
            },
            opt(r.dacapo),
            opt(r.georges)
        );
        let independent = r
            .steady_independence
            .iter()
            .flatten()
            .filter(|i| i.independent)
            .count();
        let tested = r.steady_independence.iter().flatten().count();
        if r.independence_testable {
            let _ = writeln!(
                out,
                "  Independence:        {independent} of {tested} steady executions pass (lag 1–4 Ljung–Box against shuffled data)"
            );
        } else {
            let _ = writeln!(
                out,
                "  Independence:        not testable: too few iterations after the warm-up (ask for 50 or more); the iterations after it are kept"
            );
        }
        if r.never_independent {
            let _ = writeln!(
                out,
                "  Iterations never become independent: use one iteration per execution (Kalibera & Jones)."
            );
        }
    }
    if let Some(applied) = v.applied {
        let _ = writeln!(out, "  Applied:             {}", applied_text(applied));
    }
    if let Some((original, centred, clustered)) = v.impact {
        let _ = writeln!(
            out,
            "  Impact factor:       {original:.2} (1 would mean executions do not differ); on run-mean-centred data {centred:.2} (1 would mean the additive model fits)"
        );
        if let Some(c) = clustered {
            let _ = writeln!(
                out,
                "                       {c:.2} after subtracting the mean of each cluster of values within an execution (the clustering additive filter, Kalibera, Bulej & Tůma 2005b)"
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigor_stats::steady::{SteadyConfig, diagnose};

    /// A deterministic wiggle of ±0.5% (no random numbers needed).
    fn noise(i: usize, j: usize) -> f64 {
        0.005 * (((i * 7919 + j * 104_729) % 1000) as f64 / 500.0 - 1.0)
    }

    /// Six executions of 200 iterations around 1 ([`noise`]), every second one 0.5 slower at
    /// the iterations `i` where `slower(i)`.
    fn half_slower(slower: impl Fn(usize) -> bool) -> Vec<Vec<f64>> {
        (0..6)
            .map(|j| {
                (0..200)
                    .map(|i| 1.0 + noise(i, j) + if j % 2 == 1 && slower(i) { 0.5 } else { 0.0 })
                    .collect()
            })
            .collect()
    }

    fn text_of(runs: &[Vec<f64>]) -> (Consistency, String) {
        let report = diagnose(runs, &SteadyConfig::default()).unwrap();
        let view = DiagnosisView {
            name: "b",
            steady: Some(&report),
            applied: Some(report.recommendation()),
            impact: None,
            missing: None,
        };
        (report.consistency, render(&view))
    }

    #[test]
    fn steady_state_in_plain_words() {
        // Half the executions flat, half slowing down for good after 100 iterations.
        let (consistency, text) = text_of(&half_slower(|i| i >= 100));
        assert_eq!(consistency, Consistency::BadInconsistent, "{text}");
        assert!(
            text.contains("not all settle: some executions slow down"),
            "{text}"
        );
        // Half flat, half warming up for 50 iterations: every one settles.
        let (consistency, text) = text_of(&half_slower(|i| i < 50));
        assert_eq!(consistency, Consistency::GoodInconsistent, "{text}");
        assert!(
            text.contains("executions differ, but every one settles"),
            "{text}"
        );
        assert!(text.contains("settled after 50"), "{text}");
        for jargon in ["initialised", "inconsistent"] {
            assert!(!text.contains(jargon), "{jargon}: {text}");
        }
    }
}
