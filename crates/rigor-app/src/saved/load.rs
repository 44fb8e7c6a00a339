//! Reading saved results: rigor's own files, other tools' ([`load`], [`load_together`]), and
//! long CSVs ([`from_csv`]).

use std::collections::HashMap;
use std::path::PathBuf;

use rigor_store::import::Format;
use rigor_store::{BenchmarkRecord, Layout, ResultFile, SampleRecord};
use rigor_units::{ConfidenceLevel, Seed};

use super::CsvColumns;
use crate::error::Result;

/// Reads a rigor result or another tool's result file (`format`, or sniffed from the content).
pub fn load(path: &std::path::Path, format: Option<Format>) -> Result<ResultFile> {
    Ok(rigor_store::import::load(path, format)?.result)
}

/// Reads one file as [`load`] does, or several files of a one-process format (Google Benchmark,
/// criterion, cargo-criterion, BenchmarkTools.jl) as one result, each file one process execution.
///
/// # Errors
/// What reading finds, and [`AppError::NoBenchmarks`] for a result that holds no benchmark
/// (nothing to analyse, which is not a success).
///
/// [`AppError::NoBenchmarks`]: crate::error::AppError::NoBenchmarks
pub fn load_together(paths: &[PathBuf], format: Option<Format>) -> Result<ResultFile> {
    let result = rigor_store::import::load_together(paths, format)?.result;
    holds_benchmarks(&result, paths)?;
    Ok(result)
}

/// Whether the result read from `paths` holds a benchmark.
///
/// # Errors
/// [`AppError::NoBenchmarks`] naming the files when it holds none.
///
/// [`AppError::NoBenchmarks`]: crate::error::AppError::NoBenchmarks
pub fn holds_benchmarks(result: &ResultFile, paths: &[PathBuf]) -> Result<()> {
    if result.benchmarks.is_empty() {
        return Err(crate::error::AppError::NoBenchmarks(
            crate::track::files_shown(paths),
        ));
    }
    Ok(())
}

/// Reads a long CSV into a result with one benchmark per group. Levels are assigned by depth
/// (executions; executions × iterations; builds × executions × iterations) and keep the CSV's
/// column names for display.
pub fn from_csv(path: &std::path::Path, columns: &CsvColumns) -> Result<ResultFile> {
    let groups = rigor_store::read_long_csv(
        path,
        &columns.levels,
        &columns.value,
        columns.benchmark.as_deref(),
        columns.allow_negative,
    )?;
    let layout =
        Layout::for_depth(columns.levels.len()).ok_or_else(|| rigor_store::StoreError::Csv {
            path: path.to_path_buf(),
            line: 0,
            message: format!(
                "{} level columns given; rigor analyses 1 to 3 levels",
                columns.levels.len()
            ),
        })?;
    // The last level column identifies the measurement itself; units are keyed by the others.
    let unit_levels = columns.levels.len() - 1;
    let benchmarks = groups
        .into_iter()
        .map(|g| {
            // Each level's units get numbers in order of appearance, keyed by the path above them.
            let mut ids: Vec<HashMap<Vec<String>, usize>> = vec![HashMap::new(); unit_levels];
            let samples = g
                .rows
                .iter()
                .enumerate()
                .map(|(i, (keys, value))| {
                    let path: Vec<usize> = (0..unit_levels)
                        .map(|d| {
                            let next = ids[d].len();
                            *ids[d].entry(keys[..=d].to_vec()).or_insert(next)
                        })
                        .collect();
                    let mut s = SampleRecord {
                        build: None,
                        round: i,
                        execution: i,
                        iteration: i,
                        value: *value,
                        warmup: false,
                    };
                    layout.set_unit_path(&mut s, &path);
                    s
                })
                .collect();
            let mut b = BenchmarkRecord::new(g.name, String::new(), layout);
            b.level_names = Some(columns.levels.clone());
            b.samples = samples;
            b
        })
        .collect();
    let mut result = ResultFile {
        benchmarks,
        ..ResultFile::new(Seed(0), ConfidenceLevel::NINETY_FIVE)
    };
    result.provenance.imported_from = Some("long CSV".to_string());
    Ok(result)
}
