//! `rigor report`: the HTML report of a saved result.

use std::path::Path;

use anyhow::{Context, Result};
use rigor_stats::Analysis;
use rigor_store::ResultFile;

use crate::cli::ReportArgs;
use crate::comparisons;
use crate::html_view;
use crate::results::analyze_all;
use crate::settings::analysis_config;

/// Runs `rigor report`.
pub fn report(args: &ReportArgs) -> Result<()> {
    let config = analysis_config(&args.analysis);
    let mut result = rigor_store::load(&args.file)?;
    result.confidence = config.level;
    let analyses = analyze_all(&mut result, &config);
    let cs = comparisons::settings(&args.compare, config.level, result.seed);
    let computed =
        comparisons::within_run(&result, &analyses, args.compare.reference.as_deref(), &cs)?;
    result.comparisons = comparisons::records(&computed);
    let title = format!("rigor report: {}", args.file.display());
    write(&args.out, &result, &analyses, &title)?;
    crate::output::emit(&format!("Report written to {}\n", args.out.display()));
    Ok(())
}

/// Renders and writes the report of an analysed result.
pub fn write(
    path: &Path,
    result: &ResultFile,
    analyses: &[Result<Analysis, String>],
    title: &str,
) -> Result<()> {
    let view = html_view::build(result, analyses, title);
    let html = rigor_report::html::render_html(&view);
    rigor_store::write_atomic(path, html.as_bytes()).context("writing the HTML report")
}
