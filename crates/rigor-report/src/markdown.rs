//! Summary tables in the markup languages people paste results into: Markdown (pull-request
//! comments), AsciiDoc and Emacs org-mode. Formatters return text; the caller writes it.

use std::fmt::Write;

use crate::format::{percent, time_in};
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

/// Escapes text for a table cell of `markup`.
fn cell(markup: Markup, text: &str) -> String {
    let text = text.replace('\n', " ");
    match markup {
        Markup::Markdown => format!("`{}`", text.replace('|', "\\|")),
        Markup::AsciiDoc => format!("`{}`", text.replace('|', "\\|")),
        Markup::OrgMode => format!("={}=", text.replace('|', "\\vert{}")),
    }
}

const HEADER: [&str; 6] = ["Benchmark", "Mean", "95% CI", "±", "Median", "Units"];

/// The rows: name, mean, interval, relative half-width, median, units.
fn rows(markup: Markup, views: &[BenchmarkView<'_>]) -> Vec<[String; 6]> {
    views
        .iter()
        .map(|v| {
            let name = cell(markup, v.name);
            let Some(a) = v.analysis else {
                let why = v.unanalysed.unwrap_or("no data").replace(['|', '\n'], " ");
                let dash = "—".to_string();
                return [name, dash.clone(), dash.clone(), dash.clone(), dash, why];
            };
            let ci = &a.interval;
            let m = ci.mean;
            let t = |x: f64| time_in(x, m, v.unit);
            let (lower, computed) = crate::format::shown_lower(a);
            let mark = computed.map_or_else(String::new, |below| {
                format!(" (lower end {} shown as 0)", t(below))
            });
            [
                name,
                t(m),
                format!("{} .. {}{mark}", t(lower), t(ci.upper)),
                if ci.is_asymmetric() {
                    format!(
                        "−{} +{}",
                        percent(100.0 * (m - ci.lower) / m),
                        percent(100.0 * (ci.upper - m) / m)
                    )
                } else {
                    percent(100.0 * ci.half_width / m)
                },
                t(a.summary.median),
                crate::terminal::units(a),
            ]
        })
        .collect()
}

/// The header with the confidence level of the first analysed benchmark.
fn header(views: &[BenchmarkView<'_>]) -> [String; 6] {
    let mut h = HEADER.map(str::to_string);
    if let Some(level) = views
        .iter()
        .find_map(|v| v.analysis.map(|a| a.interval.level))
    {
        h[2] = format!("{}% CI", (level * 100.0).round());
    }
    h
}

/// A Markdown table with one row per benchmark: mean, interval, median, units.
pub fn table(views: &[BenchmarkView<'_>]) -> String {
    table_in(Markup::Markdown, views)
}

/// A table in `markup` with one row per benchmark: mean, interval, median, units.
pub fn table_in(markup: Markup, views: &[BenchmarkView<'_>]) -> String {
    let mut out = String::new();
    let h = header(views);
    let rows = rows(markup, views);
    match markup {
        Markup::Markdown => {
            let _ = writeln!(out, "| {} |", h.join(" | "));
            let _ = writeln!(out, "|:---|---:|:---:|---:|---:|:---|");
            for r in &rows {
                let _ = writeln!(out, "| {} |", r.join(" | "));
            }
        }
        Markup::AsciiDoc => {
            let _ = writeln!(out, "[cols=\"<,>,^,>,>,<\",options=\"header\"]");
            let _ = writeln!(out, "|===");
            let _ = writeln!(out, "| {}", h.join(" | "));
            for r in &rows {
                let _ = writeln!(out);
                let _ = writeln!(out, "| {}", r.join(" | "));
            }
            let _ = writeln!(out, "|===");
        }
        Markup::OrgMode => {
            let _ = writeln!(out, "| {} |", h.join(" | "));
            let _ = writeln!(out, "|--");
            for r in &rows {
                let _ = writeln!(out, "| {} |", r.join(" | "));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigor_stats::{AnalysisConfig, Hierarchy, analyze};

    fn row_of(values: Vec<f64>) -> String {
        let h = Hierarchy::flat("execution", values).unwrap();
        let a = analyze(&h, &AnalysisConfig::default()).unwrap();
        let view = BenchmarkView {
            index: 1,
            name: "b",
            analysis: Some(&a),
            failures: &[],
            unanalysed: None,
            unit: Some(rigor_units::TimeUnit::Ms),
            resources: None,
            compared: None,
        };
        table(&[view]).lines().nth(2).unwrap().to_string()
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
