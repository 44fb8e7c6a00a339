//! Snapshots of the example report: the page layout with placeholder plots (small, for review),
//! and the whole page with plotters' SVG (guards the plots against unnoticed changes).

use rigor_report::html::plots::{AcfPlot, Drawn, LagPlot, PlotResult, Plotter};
use rigor_report::html::{
    BenchmarkSection, ComparisonRow, ComponentBar, example, render_html, render_html_with,
};

/// Draws an empty, named SVG for every plot, so the layout snapshot stays short.
struct Placeholder;

fn placeholder(what: String) -> PlotResult {
    Ok(Drawn::Svg(format!(
        "<svg width=\"10\" height=\"10\"><desc>{what}</desc></svg>"
    )))
}

impl Plotter for Placeholder {
    fn run_sequence(&self, s: &BenchmarkSection) -> PlotResult {
        placeholder(format!("run sequence of {} executions", s.executions.len()))
    }
    fn lag(&self, p: &LagPlot<'_>) -> PlotResult {
        placeholder(format!(
            "lag {} shuffled={} points={}",
            p.lag,
            p.shuffled,
            p.points.len()
        ))
    }
    fn acf(&self, p: &AcfPlot<'_>) -> PlotResult {
        placeholder(format!(
            "acf shuffled={} extent={:.3}",
            p.shuffled, p.extent
        ))
    }
    fn histogram(&self, s: &BenchmarkSection) -> PlotResult {
        placeholder(format!("histogram of {} values", s.steady_values.len()))
    }
    fn execution_means(&self, s: &BenchmarkSection) -> PlotResult {
        placeholder(format!("{} execution means", s.execution_means.len()))
    }
    fn components(&self, bars: &[ComponentBar]) -> PlotResult {
        placeholder(format!("{} components", bars.len()))
    }
    fn forest(&self, rows: &[ComparisonRow]) -> PlotResult {
        placeholder(format!("forest of {} rows", rows.len()))
    }
}

#[test]
fn example_page_layout() {
    let page = render_html_with(&example::view(), &Placeholder);
    // The style sheet is a template file; leave it out of the layout snapshot.
    let start = page.find("<style>").unwrap();
    let end = page.find("</style>").unwrap();
    let page = format!("{}<style>…</style>{}", &page[..start], &page[end + 8..]);
    insta::assert_snapshot!(page);
}

#[test]
fn example_report() {
    insta::assert_snapshot!(render_html(&example::view()));
}
