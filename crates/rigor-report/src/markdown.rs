//! Markdown summary tables for pull-request comments.

use std::fmt::Write;

use crate::format::{percent, time, time_like};
use crate::terminal::BenchmarkView;

/// Escapes text for a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// A table with one row per benchmark: mean, interval, median, units, variation.
pub fn table(views: &[BenchmarkView<'_>]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "| Benchmark | Mean | 95% CI | ± | Median | Units |");
    let _ = writeln!(out, "|:---|---:|:---:|---:|---:|:---|");
    for v in views {
        let Some(a) = v.analysis else {
            let _ = writeln!(
                out,
                "| `{}` | — | — | — | — | {} |",
                cell(v.name),
                cell(v.unanalysed.unwrap_or("no data"))
            );
            continue;
        };
        let ci = &a.interval;
        let m = ci.mean;
        let _ = writeln!(
            out,
            "| `{}` | {} | {} .. {} | {} | {} | {} |",
            cell(v.name),
            time(m),
            time_like(ci.lower, m),
            time_like(ci.upper, m),
            percent(100.0 * ci.half_width / m),
            time_like(a.summary.median, m),
            crate::terminal::units(a)
        );
    }
    if let Some(level) = views
        .iter()
        .find_map(|v| v.analysis.map(|a| a.interval.level))
    {
        if (level - 0.95).abs() > 1e-9 {
            out = out.replacen("95% CI", &format!("{}% CI", (level * 100.0).round()), 1);
        }
    }
    out
}
