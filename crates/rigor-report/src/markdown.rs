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
            [
                name,
                t(m),
                format!("{} .. {}", t(ci.lower), t(ci.upper)),
                percent(100.0 * ci.half_width / m),
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
