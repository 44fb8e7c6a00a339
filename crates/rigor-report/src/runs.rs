//! Several runs of one experiment analysed together (`rigor analyze RUN1.json RUN2.json …`):
//! each benchmark's mean and each comparison across the runs, with the run level's share. The
//! figures come computed ([`rigor_stats::runs`]); this module only words them.

use std::fmt::Write;

use rigor_stats::compare::Verdict;
use rigor_stats::runs::{AcrossRuns, RunsRatio};
use rigor_units::Quantity;
use serde::Serialize;

use crate::comparison::{FACTOR_FROM, Kind, ratio_words_of, verdict_word};
use crate::format;

/// One benchmark over the runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchmarkRow {
    /// Its name.
    pub name: String,
    /// The statistic combined where it is not the mean (a `rigor bench` result's minimum):
    /// "minimum".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statistic: Option<String>,
    /// Each run's value of it (the mean unless `statistic`), seconds, in the order of the files.
    pub means: Vec<f64>,
    /// Its combination across the runs (seconds).
    pub across: AcrossRuns,
}

/// One comparison over the runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparisonRow {
    /// The baseline's name.
    pub baseline: String,
    /// The candidate's name.
    pub candidate: String,
    /// Each run's ratio (candidate / baseline) and its own interval, if it had one.
    pub ratios: Vec<(f64, Option<(f64, f64)>)>,
    /// The ratio across the runs.
    pub across: AcrossRuns,
    /// The verdict of the interval across the runs against the threshold.
    pub verdict: Verdict,
    /// The practical threshold (a fraction).
    pub threshold: f64,
    /// How many runs' own intervals exclude the ratio across the runs.
    pub runs_excluding: usize,
    /// The runs' one-sample t-test of no change.
    pub p_value: f64,
    /// Benjamini–Hochberg's adjusted p-value, with several comparisons.
    pub q_value: Option<f64>,
    /// Whether false-discovery control turned the interval's change into inconclusive.
    pub fdr_demoted: bool,
}

/// Several runs analysed together.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunsView {
    /// The runs' files, in order.
    pub files: Vec<String>,
    /// Each benchmark's mean across them.
    pub benchmarks: Vec<BenchmarkRow>,
    /// Each comparison across them.
    pub comparisons: Vec<ComparisonRow>,
    /// Benchmarks left out, with why (not in every run).
    pub left_out: Vec<String>,
    /// Comparisons left out ("B against A"): not made in every run.
    pub comparisons_left_out: Vec<String>,
}

/// One benchmark of two versions each measured in several runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparedRuns {
    /// The benchmark.
    pub name: String,
    /// The old version's statistic in each of its runs, seconds.
    pub old: Vec<f64>,
    /// The new version's, seconds.
    pub new: Vec<f64>,
    /// The ratio across the runs.
    pub ratio: RunsRatio,
    /// The verdict (after false-discovery control across the benchmarks).
    pub verdict: Verdict,
    /// Benjamini–Hochberg's adjusted p-value, with several benchmarks.
    pub q_value: Option<f64>,
    /// Whether false-discovery control turned the interval's change into inconclusive.
    pub fdr_demoted: bool,
    /// Whether the verdict was withheld: one version's runs were measured beside other
    /// processes busy on the machine, the other's quiet, or (for this benchmark) its
    /// executions waited for a CPU apart from the other version's (a warning says how much).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub withheld: bool,
}

/// `rigor compare OLD1 OLD2 … -- NEW1 NEW2 …` of runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunsCompared {
    /// The old version's runs.
    pub old_files: Vec<String>,
    /// The new version's runs.
    pub new_files: Vec<String>,
    /// The practical threshold (a fraction).
    pub threshold: f64,
    /// Each benchmark every run measured.
    pub rows: Vec<ComparedRuns>,
    /// Benchmarks some run did not measure: left out.
    pub left_out: Vec<String>,
    /// Every run of one side started before every run of the other.
    pub in_blocks: bool,
}

/// Terminal text for two versions compared across their runs.
pub fn render_compared(v: &RunsCompared) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Compared across runs: {} of the old version, {} of the new (each run one unit of the \
         top level; Welch's t on the runs' logarithms)",
        v.old_files.len(),
        v.new_files.len()
    );
    let band = format::percent(100.0 * v.threshold);
    for r in &v.rows {
        let x = &r.ratio;
        let (amount, ci) =
            ratio_words_of(&Quantity::Time, x.ratio, Some((x.lower, x.upper)), x.level);
        let _ = writeln!(out, "  {}: new is {amount} than old ({ci})", r.name);
        let verdict = verdict_word(Kind::Versions, r.verdict);
        let why = match r.verdict {
            Verdict::Regression | Verdict::Improvement => {
                format!("beyond the ±{band} threshold")
            }
            Verdict::Equivalent => format!("within ±{band}"),
            _ if r.withheld => "withheld: the two versions' runs were measured under other \
                                 contention for the CPUs; see the warning"
                .to_string(),
            _ if r.fdr_demoted => {
                "made so by false-discovery control across the benchmarks".to_string()
            }
            _ => format!("the interval reaches across the ±{band} threshold: more runs"),
        };
        let q = r
            .q_value
            .map(|q| format!(", {}", crate::comparison::p_text("q", q)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "    verdict: {verdict} ({why})  [{}{q}, {:.1} df]",
            crate::comparison::p_text("p", x.p_value),
            x.df
        );
        let reference = x.ratio.max(1.0) * r.old.first().copied().unwrap_or(1.0);
        let times = |v: &[f64]| {
            v.iter()
                .map(|t| format::time_like(*t, reference))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(out, "    old runs: {}", times(&r.old));
        let _ = writeln!(out, "    new runs: {}", times(&r.new));
    }
    for name in &v.left_out {
        let _ = writeln!(out, "  {name}: left out (not measured in every run)");
    }
    if v.in_blocks {
        let _ = writeln!(out, "  {IN_BLOCKS}");
    }
    out
}

/// What [`RunsCompared::in_blocks`] means for the verdicts.
const IN_BLOCKS: &str = "note: every run of one version came before every run of the other: \
     how the machine drifted between the two stretches of time is in the difference, and no \
     side's spread holds it. Alternate the runs (old, new, old, new, …), or measure both in \
     each run (`rigor run OLD NEW`) and analyse the runs together (`rigor analyze RUN…`)";

/// A Markdown table of two versions compared across their runs, for a pull-request comment:
/// one row per benchmark, then the benchmarks left out.
pub fn markdown_compared(v: &RunsCompared) -> String {
    let mut out = String::new();
    let level = v.rows.first().map_or(0.95, |r| r.ratio.level);
    let _ = writeln!(
        out,
        "Across runs: {} of the old version, {} of the new (Welch's t on the runs' logarithms).\n",
        v.old_files.len(),
        v.new_files.len()
    );
    let _ = writeln!(
        out,
        "| Benchmark | Old | New | Change | {}% CI | Verdict |",
        format::level_percent(level)
    );
    let _ = writeln!(out, "|:---|---:|---:|---:|:---|:---|");
    for r in &v.rows {
        let x = &r.ratio;
        let geo = |v: &[f64]| (v.iter().map(|t| t.ln()).sum::<f64>() / v.len() as f64).exp();
        let (old, new) = (geo(&r.old), geo(&r.new));
        let (amount, _) = ratio_words_of(&Quantity::Time, x.ratio, None, x.level);
        let ci = crate::comparison::interval_words_of(
            &Quantity::Time,
            x.ratio,
            Some((x.lower, x.upper)),
        )
        .unwrap_or_else(|| "unbounded".to_string());
        let _ = writeln!(
            out,
            "| {} | {} | {} | {amount} | {ci} | {} |",
            crate::escape::markdown_cell(&r.name),
            format::time(old),
            format::time(new),
            verdict_word(Kind::Versions, r.verdict)
        );
    }
    for name in &v.left_out {
        let _ = writeln!(
            out,
            "\n{}: left out (not measured in every run)",
            crate::escape::markdown_cell(name)
        );
    }
    if v.in_blocks {
        let _ = writeln!(out, "\n{IN_BLOCKS}");
    }
    out
}

/// "−36%", "+4.6%", "2.31× slower": one run's ratio as a change, in the words the comparison's
/// line gives ratios.
fn change(ratio: f64) -> String {
    if ratio >= FACTOR_FROM || (ratio > 0.0 && ratio <= 1.0 / FACTOR_FROM) {
        ratio_words_of(&Quantity::Time, ratio, None, 0.95).0
    } else {
        rigor_units::signed_percent_text(100.0 * (ratio - 1.0))
    }
}

/// `text` with its first letter upper case.
fn capitalised(text: &str) -> String {
    let mut c = text.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The run level in words: how far it moves the statistic and how that compares with a run's
/// own error.
fn run_level(a: &AcrossRuns) -> String {
    let spread = format::percent(100.0 * a.spread_log);
    match (a.between_log, a.spread_over_within()) {
        (Some(between), Some(times)) if times > 1.5 => format!(
            "run level: the runs' values spread {spread} (σ of the run level {}), {times:.1}× \
             what one run's own interval allows for",
            format::percent(100.0 * between)
        ),
        // Far inside (3.7% against intervals of ±28%) is not "about" what they allow.
        (Some(_), Some(times)) if times < 0.67 => format!(
            "run level: the runs' values spread {spread}, well within what their own intervals \
             allow for"
        ),
        (Some(_), Some(_)) => format!(
            "run level: the runs' values spread {spread}, about what their own intervals allow \
             for"
        ),
        _ => format!("run level: the runs' values spread {spread}"),
    }
}

/// Terminal text for several runs analysed together.
pub fn render(v: &RunsView) -> String {
    let mut out = String::new();
    let runs = v.files.len();
    let level = v
        .benchmarks
        .first()
        .map(|b| b.across.level)
        .or(v.comparisons.first().map(|c| c.across.level))
        .unwrap_or(0.95);
    let pct = format::level_percent(level);
    let _ = writeln!(
        out,
        "Across {runs} runs (each run one unit of the top level, the machine's state while it \
         ran; Student's t with {} degrees of freedom)",
        runs - 1
    );
    for b in &v.benchmarks {
        let a = &b.across;
        let _ = writeln!(out, "  {}", b.name);
        let (label, each) = match &b.statistic {
            Some(s) => (capitalised(s), format!("runs' {s}s:")),
            None => ("Mean".to_string(), "runs' means:".to_string()),
        };
        let _ = writeln!(
            out,
            "    {label} ± {pct}% CI:  {}   [{} .. {}]",
            format::time_like(a.estimate, a.estimate),
            format::time_like(a.lower, a.estimate),
            format::time_like(a.upper, a.estimate),
        );
        let means: Vec<String> = b
            .means
            .iter()
            .map(|m| format::time_like(*m, a.estimate))
            .collect();
        let _ = writeln!(out, "    {each:<14} {}", means.join(", "));
        let _ = writeln!(out, "    {}", run_level(a));
    }
    for name in &v.left_out {
        let _ = writeln!(out, "  {name}: left out (not measured in every run)");
    }
    if !v.comparisons.is_empty() || !v.comparisons_left_out.is_empty() {
        let _ = writeln!(out, "\nComparisons across {runs} runs");
    }
    for name in &v.comparisons_left_out {
        let _ = writeln!(
            out,
            "  {name}: left out (not compared in every run; --reference NAME compares each run's benchmarks with one)"
        );
    }
    for c in &v.comparisons {
        let a = &c.across;
        let (amount, ci) = ratio_words_of(
            &Quantity::Time,
            a.estimate,
            Some((a.lower, a.upper)),
            a.level,
        );
        let _ = writeln!(
            out,
            "  {} is {amount} than {} ({ci})",
            c.candidate, c.baseline
        );
        let band = format::percent(100.0 * c.threshold);
        let verdict = verdict_word(Kind::Commands, c.verdict);
        let why = match c.verdict {
            Verdict::Regression | Verdict::Improvement => {
                format!(" (beyond the ±{band} threshold)")
            }
            Verdict::Equivalent => format!(" (within ±{band})"),
            _ if c.fdr_demoted => {
                " (made so by false-discovery control across the comparisons)".to_string()
            }
            _ => format!(" (the interval reaches across the ±{band} threshold: more runs)"),
        };
        let q = c
            .q_value
            .map(|q| format!(", {}", crate::comparison::p_text("q", q)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "    verdict: {verdict}{why}  [{}{q}]",
            crate::comparison::p_text("p", c.p_value)
        );
        let each: Vec<String> = c.ratios.iter().map(|(r, _)| change(*r)).collect();
        let _ = writeln!(out, "    each run: {}", each.join(", "));
        let _ = writeln!(out, "    {}", run_level(a));
        if c.runs_excluding > 0 {
            let _ = writeln!(
                out,
                "    {} of the {runs} runs' own intervals {} the ratio across the runs",
                c.runs_excluding,
                if c.runs_excluding == 1 {
                    "excludes"
                } else {
                    "exclude"
                }
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn across(estimate: f64, lower: f64, upper: f64) -> AcrossRuns {
        AcrossRuns {
            runs: 3,
            estimate,
            lower,
            upper,
            level: 0.95,
            spread_log: 0.02,
            within_log: Some(0.005),
            between_log: Some(0.0194),
        }
    }

    /// Runs far inside their own intervals are not "about" what those allow for (a trial's
    /// 3.7% spread beside intervals of ±28%).
    #[test]
    fn the_run_level_says_how_it_compares_with_a_runs_own_error() {
        let with = |spread_log: f64, within: f64| AcrossRuns {
            spread_log,
            within_log: Some(within),
            ..across(1.0, 0.9, 1.1)
        };
        assert!(
            run_level(&with(0.037, 0.14))
                .ends_with("well within what their own intervals allow for")
        );
        assert!(
            run_level(&with(0.02, 0.02)).ends_with(", about what their own intervals allow for")
        );
        assert!(
            run_level(&with(0.02, 0.005)).contains("4.0× what one run's own interval allows for")
        );
    }

    #[test]
    fn several_runs_are_worded() {
        let v = RunsView {
            files: vec!["a.json".into(), "b.json".into(), "c.json".into()],
            benchmarks: vec![BenchmarkRow {
                name: "./loop0".into(),
                statistic: None,
                means: vec![0.0846, 0.0922, 0.0860],
                across: across(0.0875, 0.0790, 0.0969),
            }],
            comparisons: vec![ComparisonRow {
                baseline: "./loop0".into(),
                candidate: "./loop2".into(),
                ratios: vec![(0.64, Some((0.635, 0.645))), (0.61, None), (0.63, None)],
                across: across(0.6265, 0.58, 0.67),
                verdict: Verdict::Improvement,
                threshold: 0.01,
                runs_excluding: 1,
                p_value: 0.0004,
                q_value: None,
                fdr_demoted: false,
            }],
            left_out: vec!["./other".into()],
            comparisons_left_out: vec!["./other against ./loop0".into()],
        };
        insta::assert_snapshot!(render(&v));
    }

    #[test]
    fn versions_compared_across_runs_are_worded() {
        let ratio = RunsRatio {
            old_runs: 3,
            new_runs: 2,
            ratio: 1.046,
            lower: 1.021,
            upper: 1.072,
            level: 0.95,
            df: 2.7,
            p_value: 0.004,
        };
        let v = RunsCompared {
            old_files: vec!["o1.json".into(), "o2.json".into(), "o3.json".into()],
            new_files: vec!["n1.json".into(), "n2.json".into()],
            threshold: 0.01,
            rows: vec![
                ComparedRuns {
                    name: "parse".into(),
                    old: vec![0.0101, 0.0099, 0.0100],
                    new: vec![0.0105, 0.0104],
                    ratio,
                    verdict: Verdict::Regression,
                    q_value: Some(0.008),
                    fdr_demoted: false,
                    withheld: false,
                },
                ComparedRuns {
                    name: "print".into(),
                    old: vec![0.0020, 0.0021, 0.0020],
                    new: vec![0.0021, 0.0021],
                    ratio: RunsRatio {
                        ratio: 1.03,
                        lower: 1.001,
                        upper: 1.06,
                        p_value: 0.04,
                        ..ratio
                    },
                    verdict: Verdict::Inconclusive,
                    q_value: Some(0.06),
                    fdr_demoted: true,
                    withheld: false,
                },
            ],
            left_out: vec!["only-old".into()],
            in_blocks: true,
        };
        insta::assert_snapshot!(render_compared(&v));
        insta::assert_snapshot!(markdown_compared(&v));
        // A verdict withheld for the runs' load says so, not "more runs".
        let mut withheld = v.clone();
        withheld.rows[0].verdict = Verdict::Inconclusive;
        withheld.rows[0].withheld = true;
        let text = render_compared(&withheld);
        assert!(
            text.contains("verdict: inconclusive (withheld: the two versions' runs were measured under other contention"),
            "{text}"
        );
    }
}
