//! Comparisons in words: effect sizes with their intervals and verdicts, for the terminal and for
//! Markdown pull-request comments.

use std::fmt::Write;

use rigor_stats::compare::{Comparison, Verdict};

use crate::format::percent;

/// One comparison to show.
#[derive(Debug, Clone)]
pub struct ComparisonView<'a> {
    /// Baseline name.
    pub baseline: &'a str,
    /// Candidate name.
    pub candidate: &'a str,
    /// The comparison.
    pub comparison: &'a Comparison,
    /// The non-overlap rule (Kalibera & Tůma 2006): a change when the two intervals do not overlap;
    /// shown for reference.
    pub overlap: Option<Verdict>,
    /// Benjamini–Hochberg adjusted p-value, when several benchmarks were compared.
    pub q_value: Option<f64>,
}

fn signed(p: f64) -> String {
    if p >= 0.0 {
        format!("+{}", percent(p))
    } else {
        format!("−{}", percent(-p))
    }
}

/// "B is 4.6% slower than A (95% CI +2.1% .. +7.2%)".
pub fn effect_text(v: &ComparisonView<'_>) -> String {
    let c = v.comparison;
    let (change, bounds) = c.percent_change();
    let direction = if change >= 0.0 { "slower" } else { "faster" };
    let what = match c.estimator {
        rigor_stats::Estimator::Mean => String::new(),
        e => format!(" ({e} time)"),
    };
    let level = (c.level * 100.0).round();
    let ci = match bounds {
        Some((lo, hi)) => format!("{level}% CI {} .. {}", signed(lo), signed(hi)),
        None => format!("{level}% CI unbounded"),
    };
    format!(
        "{} is {} {direction} than {}{what} ({ci})",
        v.candidate,
        percent(change.abs()),
        v.baseline
    )
}

/// Advice for the verdict, in words.
fn verdict_text(c: &Comparison) -> String {
    let band = percent(100.0 * c.threshold);
    match c.verdict {
        Verdict::Regression => format!("regression (beyond the ±{band} threshold)"),
        Verdict::Improvement => format!("improvement (beyond the ±{band} threshold)"),
        Verdict::Equivalent => format!("equivalent (within ±{band})"),
        Verdict::Inconclusive => match c.more_units {
            Some(n) => format!(
                "inconclusive: roughly {n} more top-level units per command would decide it"
            ),
            None => "inconclusive".to_string(),
        },
        Verdict::Unbounded => format!(
            "unbounded: the baseline is too noisy (Fieller g = {:.2} ≥ 1); need more top-level repetitions",
            c.g.unwrap_or(f64::NAN)
        ),
    }
}

/// Terminal lines for every comparison.
pub fn render(views: &[ComparisonView<'_>]) -> String {
    let mut out = String::new();
    if views.is_empty() {
        return out;
    }
    let _ = writeln!(out, "Comparisons");
    for v in views {
        let c = v.comparison;
        let _ = writeln!(out, "  {}", effect_text(v));
        let pairing = if c.paired { ", paired by round" } else { "" };
        let _ = writeln!(
            out,
            "    verdict: {}  [{}{pairing}]",
            verdict_text(c),
            c.method
        );
        if let Some(b) = &c.bootstrap {
            if c.ci.is_none_or(|ci| {
                ci.method != rigor_stats::compare::RatioMethod::BootstrapPercentile
            }) {
                let _ = writeln!(
                    out,
                    "    bootstrap: {} .. {} ({} resamples, seed {})",
                    signed(100.0 * (b.lower - 1.0)),
                    signed(100.0 * (b.upper - 1.0)),
                    b.resamples,
                    b.seed
                );
            }
        }
        if let Some(o) = v.overlap {
            let words = if o.is_change() {
                "the intervals do not overlap"
            } else {
                "the intervals overlap"
            };
            let _ = writeln!(
                out,
                "    non-overlap rule (Kalibera & Tůma 2006): {words} ({o})"
            );
        }
        if let Some(q) = v.q_value {
            let _ = writeln!(
                out,
                "    p = {:.3}, false-discovery-adjusted q = {q:.3}",
                c.p_value
            );
        }
    }
    out
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// A Markdown table of comparisons.
pub fn markdown(views: &[ComparisonView<'_>]) -> String {
    let mut out = String::new();
    if views.is_empty() {
        return out;
    }
    let _ = writeln!(out, "| Candidate | Baseline | Change | CI | Verdict |");
    let _ = writeln!(out, "|:---|:---|---:|:---:|:---|");
    for v in views {
        let c = v.comparison;
        let (change, bounds) = c.percent_change();
        let ci = bounds.map_or("unbounded".to_string(), |(lo, hi)| {
            format!("{} .. {}", signed(lo), signed(hi))
        });
        let _ = writeln!(
            out,
            "| `{}` | `{}` | {} | {} | **{}** |",
            cell(v.candidate),
            cell(v.baseline),
            signed(change),
            ci,
            c.verdict
        );
    }
    out
}
