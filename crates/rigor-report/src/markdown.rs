//! Summary tables in the markup languages people paste results into: Markdown (pull-request
//! comments), AsciiDoc and Emacs org-mode. Formatters return text; the caller writes it.

use std::fmt::Write;

use crate::format::percent;
use crate::terminal::BenchmarkView;

/// A markup language for tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Markup {
    /// GitHub-flavoured Markdown.
    Markdown,
    /// AsciiDoc.
    AsciiDoc,
    /// Emacs org-mode.
    OrgMode,
}

/// Escapes text for a table cell of `markup` (the one escaping of each markup, from
/// [`crate::escape`]: every table cell that holds a name or a command goes through it).
pub fn cell(markup: Markup, text: &str) -> String {
    match markup {
        Markup::Markdown => crate::escape::markdown_cell(text),
        Markup::AsciiDoc => crate::escape::asciidoc(text),
        Markup::OrgMode => crate::escape::org(text),
    }
}

const HEADER: [&str; 6] = ["Benchmark", "Mean", "95% CI", "±", "Median", "Units"];

/// Whether the table leads with a statistic other than the mean (`--estimator`): then its
/// first columns are that statistic and its bootstrap interval, and the mean takes the median's
/// place, so that the figure read first is the one the comparisons decide on.
fn compared_name<'a>(views: &'a [BenchmarkView<'_>]) -> Option<&'a str> {
    views
        .iter()
        .find_map(|v| v.compared.as_ref().map(|c| c.name.as_str()))
}

/// "−1.2% +3.4%" when the interval is asymmetric about `m`, else "1.2%"; a side that rounds to
/// zero (the minimum's interval starts at the minimum) is left out: "+3.4% above".
fn relative(m: f64, lower: f64, upper: f64) -> String {
    let (below, above) = (100.0 * (m - lower) / m, 100.0 * (upper - m) / m);
    let zero = rigor_units::percent_rounds_to_zero;
    if (below - above).abs() <= 1e-9 * below.abs().max(above.abs()) {
        percent(below)
    } else if zero(below) {
        format!("+{} above", percent(above))
    } else if zero(above) {
        format!("−{} below", percent(below))
    } else {
        format!("−{} +{}", percent(below), percent(above))
    }
}

/// The rows: name, mean (or the compared statistic), interval, relative half-width, median
/// (or the mean), units.
fn rows(markup: Markup, views: &[BenchmarkView<'_>]) -> Vec<[String; 6]> {
    let leads_with_compared = compared_name(views).is_some();
    views
        .iter()
        .map(|v| {
            let name = cell(markup, v.name);
            let dash = "—".to_string();
            let Some(a) = v.analysis else {
                let why = v.unanalysed.unwrap_or("no data").replace(['|', '\n'], " ");
                return [name, dash.clone(), dash.clone(), dash.clone(), dash, why];
            };
            let ci = &a.interval;
            let m = ci.mean;
            let t = |x: f64| v.scale.show(x, m);
            if leads_with_compared {
                let (value, interval, relative) = match &v.compared {
                    Some(c) => (
                        t(c.estimate),
                        c.interval.map_or_else(
                            || "— (too few units)".to_string(),
                            |(lo, hi)| format!("{} .. {}", t(lo), t(hi)),
                        ),
                        c.interval
                            .map_or_else(|| dash.clone(), |(lo, hi)| relative(c.estimate, lo, hi)),
                    ),
                    None => (dash.clone(), dash.clone(), dash.clone()),
                };
                return [
                    name,
                    value,
                    interval,
                    relative,
                    t(m),
                    crate::terminal::units(a),
                ];
            }
            let (lower, computed) = crate::format::shown_lower(a);
            let mark = computed.map_or_else(String::new, |below| {
                format!(" (lower end {} shown as 0)", t(below))
            });
            [
                name,
                t(m),
                format!("{} .. {}{mark}", t(lower), t(ci.upper)),
                if ci.is_asymmetric() {
                    relative(m, ci.lower, ci.upper)
                } else {
                    percent(100.0 * ci.half_width / m)
                },
                t(a.summary.median),
                crate::terminal::units(a),
            ]
        })
        .collect()
}

/// The line above a table of another metric than wall time, with a blank line after it:
/// "Metric: `cpu`, CPU time (user + system)" in `markup`.
pub fn metric_line(markup: Markup, metric: &rigor_units::Metric) -> String {
    let name = match markup {
        Markup::Markdown => format!("`{}`", metric.name()),
        Markup::AsciiDoc => format!("`{}`", metric.name()),
        Markup::OrgMode => format!("~{}~", metric.name()),
    };
    format!("Metric: {name}, {}\n\n", metric.description())
}

/// The header with the confidence level of the first analysed benchmark; when the table leads
/// with another statistic than the mean, its name ("Min") and "Mean" in the median's place.
fn header(views: &[BenchmarkView<'_>]) -> [String; 6] {
    let mut h = HEADER.map(str::to_string);
    let level = views
        .iter()
        .find_map(|v| v.compared.as_ref().map(|c| c.level))
        .or_else(|| {
            views
                .iter()
                .find_map(|v| v.analysis.map(|a| a.interval.level))
        });
    if let Some(level) = level {
        h[2] = format!("{}% CI", crate::format::level_percent(level));
    }
    if let Some(name) = compared_name(views) {
        let mut chars = name.chars();
        h[1] = chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect())
            .unwrap_or_default();
        h[4] = "Mean".to_string();
    }
    h
}

/// A Markdown table with one row per benchmark: mean, interval, median, units.
pub fn table(views: &[BenchmarkView<'_>]) -> String {
    table_in(Markup::Markdown, views)
}

/// A table in `markup` with one row per benchmark: mean, interval, median, units; and, when
/// commands ran through a shell whose start-up was measured beside them, a last column with
/// each one's mean net of that start-up and its interval (what hyperfine's tables show in place
/// of the times as measured), and which row is the start-up.
pub fn table_in(markup: Markup, views: &[BenchmarkView<'_>]) -> String {
    let mut rows: Vec<Vec<String>> = rows(markup, views).into_iter().map(Vec::from).collect();
    let mut header = Vec::from(header(views));
    let mut align = vec![
        Align::Left,
        Align::Right,
        Align::Center,
        Align::Right,
        Align::Right,
        Align::Left,
    ];
    if views.iter().any(|v| v.net.is_some()) {
        header.push("Net of start-up".to_string());
        align.push(Align::Right);
        for (row, v) in rows.iter_mut().zip(views) {
            row.push(net_cell(markup, v));
        }
    }
    frame(markup, &header, &rows, &align)
}

/// A benchmark's mean net of its shell's start-up with its interval, "(the start-up)" for the
/// start-up itself, else a dash.
fn net_cell(markup: Markup, v: &BenchmarkView<'_>) -> String {
    match (&v.net, v.startup_of) {
        (Some(n), _) => {
            let t = |x: f64| v.scale.show(x, n.mean);
            format!("{} ({} .. {})", t(n.mean), t(n.lower), t(n.upper))
        }
        (None, Some(shell)) => format!("(the start-up of {})", cell(markup, shell)),
        (None, None) => "—".to_string(),
    }
}

/// How a column's cells line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Center,
    Right,
}

/// A table in `markup`: the header row, then the rows, columns aligned as `align` says (in
/// the languages that can say it).
pub(crate) fn frame(
    markup: Markup,
    header: &[String],
    rows: &[Vec<String>],
    align: &[Align],
) -> String {
    let mut out = String::new();
    match markup {
        Markup::Markdown => {
            let rule: Vec<&str> = align
                .iter()
                .map(|a| match a {
                    Align::Left => ":---",
                    Align::Center => ":---:",
                    Align::Right => "---:",
                })
                .collect();
            let _ = writeln!(out, "| {} |", header.join(" | "));
            let _ = writeln!(out, "|{}|", rule.join("|"));
            for r in rows {
                let _ = writeln!(out, "| {} |", r.join(" | "));
            }
        }
        Markup::AsciiDoc => {
            let cols: Vec<&str> = align
                .iter()
                .map(|a| match a {
                    Align::Left => "<",
                    Align::Center => "^",
                    Align::Right => ">",
                })
                .collect();
            let _ = writeln!(out, "[cols=\"{}\",options=\"header\"]", cols.join(","));
            let _ = writeln!(out, "|===");
            let _ = writeln!(out, "| {}", header.join(" | "));
            for r in rows {
                let _ = writeln!(out);
                let _ = writeln!(out, "| {}", r.join(" | "));
            }
            let _ = writeln!(out, "|===");
        }
        Markup::OrgMode => {
            let _ = writeln!(out, "| {} |", header.join(" | "));
            let _ = writeln!(out, "|--");
            for r in rows {
                let _ = writeln!(out, "| {} |", r.join(" | "));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StatisticView;
    use rigor_stats::{AnalysisConfig, Hierarchy, analyze};

    fn analysis_of(values: Vec<f64>) -> rigor_stats::Analysis {
        let h = Hierarchy::flat("execution", values).unwrap();
        analyze(&h, &AnalysisConfig::default()).unwrap()
    }

    /// Benchmark "b" in milliseconds.
    fn view(a: &rigor_stats::Analysis, compared: Option<StatisticView>) -> BenchmarkView<'_> {
        BenchmarkView {
            index: 1,
            name: "b",
            analysis: Some(a),
            failures: &[],
            unanalysed: None,
            scale: crate::format::Scale::time(Some(rigor_units::TimeUnit::Ms)),
            resources: None,
            compared,
            value: None,
            net: None,
            startup_of: None,
            rate: None,
        }
    }

    fn row_of(values: Vec<f64>) -> String {
        let a = analysis_of(values);
        table(&[view(&a, None)]).lines().nth(2).unwrap().to_string()
    }

    #[test]
    fn a_table_leads_with_the_compared_statistic_when_it_is_not_the_mean() {
        let a = analysis_of(vec![0.010, 0.011, 0.012, 0.020]);
        let view = |compared| view(&a, compared);
        let min = StatisticView {
            name: "min".into(),
            estimate: 0.010,
            interval: Some((0.009, 0.0105)),
            level: 0.9,
            units: "executions".into(),
            at_resolution: false,
        };
        let text = table(&[view(Some(min.clone()))]);
        let mut lines = text.lines();
        assert_eq!(
            lines.next().unwrap(),
            "| Benchmark | Min | 90% CI | ± | Mean | Units |"
        );
        let row = lines.nth(1).unwrap();
        // Min 10 ms, interval 9 .. 10.5 ms (−10% +5%), then the mean 13.25 ms.
        assert!(
            row.starts_with("| `b` | 10.00 ms | 9.000 ms .. 10.50 ms | −10% +5.0% | 13.25 ms |"),
            "{row}"
        );
        // The minimum's interval starts at the minimum: only the side above is shown.
        let at_min = StatisticView {
            interval: Some((0.010, 0.0105)),
            ..min.clone()
        };
        let row = table(&[view(Some(at_min))])
            .lines()
            .nth(2)
            .unwrap()
            .to_string();
        assert!(row.contains("| +5.0% above |"), "{row}");
        // A benchmark without the statistic in such a table: dashes, and its mean.
        let text = table(&[view(Some(min)), view(None)]);
        let row = text.lines().nth(3).unwrap();
        assert!(row.starts_with("| `b` | — | — | — | 13.25 ms |"), "{row}");
        // Without a compared statistic the table is the mean's.
        assert!(table(&[view(None)]).starts_with("| Benchmark | Mean | 95% CI | ± | Median |"));
    }

    /// Commands run through a shell beside its measured start-up: a last column with each
    /// one's net mean and interval, the start-up named, a dash for a command run directly; no
    /// such column otherwise.
    #[test]
    fn a_table_shows_the_means_net_of_the_shells_start_up() {
        use crate::terminal::NetView;
        let a = analysis_of(vec![0.010, 0.011, 0.012, 0.013]);
        let net = NetView {
            startup: "sh -c ''".into(),
            startup_mean: 0.001,
            mean: 0.0105,
            lower: 0.0095,
            upper: 0.0115,
            level: 0.95,
        };
        let through = BenchmarkView {
            net: Some(net),
            ..view(&a, None)
        };
        let startup = BenchmarkView {
            name: "sh -c ''",
            startup_of: Some("sh"),
            ..view(&a, None)
        };
        let text = table(&[through, view(&a, None), startup]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with("| Units | Net of start-up |"), "{text}");
        assert!(lines[1].ends_with("|:---|---:|"), "{text}");
        assert!(
            lines[2].ends_with("| 10.50 ms (9.500 ms .. 11.50 ms) |"),
            "{text}"
        );
        assert!(lines[3].ends_with("| — |"), "{text}");
        assert!(lines[4].ends_with("| (the start-up of `sh`) |"), "{text}");
        let org = table_in(Markup::OrgMode, &[view(&a, None)]);
        assert!(!org.contains("Net"), "{org}");
    }

    #[test]
    fn names_with_backticks_keep_their_code_span() {
        assert_eq!(cell(Markup::Markdown, "a|b"), "`a\\|b`");
        assert_eq!(cell(Markup::Markdown, "echo `date`"), "`` echo `date` ``");
        assert_eq!(cell(Markup::Markdown, "x``y"), "``` x``y ```");
    }

    #[test]
    fn intervals_of_times_start_at_zero() {
        // Mean 17.3 ms, t interval −52.9 .. 87.6 ms: shown from 0, saying so.
        let row = row_of(vec![0.001, 0.001, 0.05]);
        assert!(row.contains("| 0.000 ms .. 87."), "{row}");
        assert!(row.contains("lower end -52.94 ms shown as 0"), "{row}");
        // Differences (negative values measured): as computed.
        let row = row_of(vec![-0.001, 0.001, 0.05]);
        assert!(!row.contains("shown as 0") && row.contains("| -"), "{row}");
    }
}
