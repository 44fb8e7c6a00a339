//! Printing analysed results and writing the export files.

use std::path::Path;

use anyhow::{Context, Result};
use rigor_report::{BenchmarkView, markdown, render};
use rigor_stats::analysis::Analysis;
use rigor_store::ResultFile;

use crate::results::failure_lines;

/// Writes to standard output. A closed pipe (`rigor run … | head`) is not an error: the rest of
/// the output is dropped and the run goes on to save its results.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Terminal summaries of every benchmark.
pub fn summaries(result: &ResultFile, analyses: &[Result<Analysis, String>]) -> String {
    let failures: Vec<Vec<String>> = result.benchmarks.iter().map(failure_lines).collect();
    let views = views(result, analyses, &failures);
    views.iter().map(|v| render(v) + "\n").collect()
}

fn views<'a>(
    result: &'a ResultFile,
    analyses: &'a [Result<Analysis, String>],
    failures: &'a [Vec<String>],
) -> Vec<BenchmarkView<'a>> {
    result
        .benchmarks
        .iter()
        .zip(analyses)
        .zip(failures)
        .enumerate()
        .map(|(i, ((b, a), f))| BenchmarkView {
            index: i + 1,
            name: &b.name,
            analysis: a.as_ref().ok(),
            failures: f,
            unanalysed: a.as_ref().err().map(String::as_str),
        })
        .collect()
}

/// The Markdown export.
pub fn markdown_table(result: &ResultFile, analyses: &[Result<Analysis, String>]) -> String {
    let none = vec![Vec::new(); result.benchmarks.len()];
    markdown::table(&views(result, analyses, &none))
}

/// Writes the CSV and Markdown exports that were asked for; `extra_md` (comparisons) follows the
/// summary table.
pub fn write_exports(
    result: &ResultFile,
    analyses: &[Result<Analysis, String>],
    extra_md: &str,
    csv: Option<&Path>,
    md: Option<&Path>,
) -> Result<()> {
    if let Some(path) = csv {
        rigor_store::write_atomic(path, rigor_store::to_long_csv(result).as_bytes())
            .context("writing the CSV export")?;
    }
    if let Some(path) = md {
        let text = if extra_md.is_empty() {
            markdown_table(result, analyses)
        } else {
            format!("{}\n{extra_md}", markdown_table(result, analyses))
        };
        rigor_store::write_atomic(path, text.as_bytes()).context("writing the Markdown export")?;
    }
    Ok(())
}
