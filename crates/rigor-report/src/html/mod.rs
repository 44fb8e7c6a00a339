//! The HTML report: one self-contained page from a serialisable view model.
//!
//! [`render_html`] turns a [`ReportView`] into a complete HTML document with an embedded style
//! sheet and inline SVG plots. The page loads nothing from anywhere (no scripts, fonts, style
//! sheets or images from outside; a Content-Security-Policy forbids them), so it can be archived,
//! mailed or attached to a CI run as one file.
//!
//! The renderer computes no statistics: autocorrelations, changepoints, intervals, variance
//! shares and impact factors all arrive in the view. It only chooses axis ranges, bins the
//! histogram and lays things out. Every user-supplied string is HTML-escaped (see [`escape`]).
//!
//! Layout lives in [`page`] and `templates/`, plots in [`plots`] behind the [`Plotter`] trait.
//!
//! ```
//! use rigor_report::html::{ReportView, example, render_html};
//!
//! let page = render_html(&example::view());
//! assert!(page.starts_with("<!DOCTYPE html>"));
//! assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
//! assert!(!page.contains("<script"));
//!
//! // An empty view renders too.
//! assert!(render_html(&ReportView::default()).contains("no benchmarks"));
//! ```

pub mod escape;
pub mod example;
pub mod page;
pub mod plots;
pub mod scale;
pub mod view;

pub use plots::{Plotter, PlottersSvg};
pub use view::{
    AcfPanel, BenchmarkSection, BuildMark, ComparedStatistic, ComparisonRow, ComponentBar,
    ExecutionSeries, ImpactView, LagPanel, OverviewRow, ParameterPlot, ReportView,
};

/// Renders the report as one self-contained HTML document, plots drawn by [`PlottersSvg`].
pub fn render_html(view: &ReportView) -> String {
    render_html_with(view, &PlottersSvg)
}

/// Renders the report with another [`Plotter`], e.g. one that draws nothing, for layout tests.
pub fn render_html_with(view: &ReportView, plotter: &dyn Plotter) -> String {
    page::render(view, plotter)
}

/// What `rigor report` says when the report is written.
pub fn written(out: &str) -> String {
    format!("Report written to {out}\n")
}
