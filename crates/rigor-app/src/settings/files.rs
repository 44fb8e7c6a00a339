//! Output paths checked before anything runs or is read, and the requests of the commands over
//! saved results (`rigor analyze`, `rigor compare`, `rigor report`) resolved into their
//! settings.

use std::path::{Path, PathBuf};

use rigor_store::Discard;
use rigor_store::import::Format;

use super::{AnalysisSettings, ComparisonSettings};
use crate::error::RequestError;
use crate::saved::{AnalyzeSettings, CompareFilesSettings, CsvColumns, ReportSettings};

type Result<T> = std::result::Result<T, RequestError>;

/// Whether an export path is `-`: standard output, as in hyperfine.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// An export path that names a file (not `-`).
pub(crate) fn file(path: &Option<PathBuf>) -> Option<PathBuf> {
    path.clone().filter(|p| !is_stdout(p))
}

/// Whether a file can be created at `path`: not a directory, and its directory accepts a new
/// file (tried with a temporary file, removed at once). `option` names it in the error.
///
/// # Errors
/// [`RequestError::IsDirectory`], [`RequestError::NoDirectory`], [`RequestError::CannotWrite`].
pub fn check_writable(path: &Path, option: &'static str) -> Result<()> {
    if path.is_dir() {
        return Err(RequestError::IsDirectory {
            option,
            path: path.to_path_buf(),
        });
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(RequestError::NoDirectory {
            option,
            path: path.to_path_buf(),
            dir: dir.to_path_buf(),
        });
    }
    tempfile::Builder::new()
        .prefix(".rigor-check-")
        .tempfile_in(dir)
        .map_err(|source| RequestError::CannotWrite {
            option,
            path: path.to_path_buf(),
            source,
        })?;
    Ok(())
}

/// An output path of a command that reads `inputs`: writable, and none of the inputs (writing
/// it would replace the data being read).
///
/// # Errors
/// [`RequestError::IsInput`], or what [`check_writable`] finds.
pub fn check_output(path: &Path, option: &'static str, inputs: &[PathBuf]) -> Result<()> {
    let same = |input: &PathBuf| match (path.canonicalize(), input.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if let Some(input) = inputs.iter().find(|i| same(i)) {
        return Err(RequestError::IsInput {
            option,
            path: path.to_path_buf(),
            input: input.clone(),
        });
    }
    check_writable(path, option)
}

/// `rigor analyze` as asked for, before it is checked.
#[derive(Debug, Clone, Default)]
pub struct AnalyzeRequest {
    /// The files.
    pub files: Vec<PathBuf>,
    /// Their format (default: recognised from the content).
    pub format: Option<Format>,
    /// CSV: the level columns, top → bottom.
    pub levels: Vec<String>,
    /// CSV: the value column.
    pub value: String,
    /// CSV: the benchmark column.
    pub benchmark: Option<String>,
    /// CSV: accept negative values.
    pub allow_negative: bool,
    /// Re-apply a warm-up discard.
    pub discard: Option<Discard>,
    /// `--export-bmf`, `--export-otava`, `--export-json-hyperfine` and
    /// `--export-csv-hyperfine`, checked against the inputs.
    pub tool_exports: [Option<PathBuf>; 4],
    /// Intervals.
    pub analysis: AnalysisSettings,
    /// Comparisons.
    pub comparison: ComparisonSettings,
    /// `--estimator` as given: without it a result rigor wrote is compared with the statistic
    /// its run compared (the minimum for `rigor bench`), not the mean.
    pub estimator_asked: bool,
    /// Diagnose warm-up, steady state, independence and the random initial state.
    pub diagnose: bool,
    /// Also a robust estimate.
    pub robust: Option<crate::saved::Robust>,
    /// What is analysed (`--metric`; empty: wall time).
    pub metrics: Vec<rigor_units::Metric>,
    /// `--throughput`, `{VAR}` replaced by each benchmark's parameters.
    pub throughput: Option<String>,
}

/// The options of [`AnalyzeRequest::tool_exports`], in order.
pub const TOOL_EXPORT_OPTIONS: [&str; 4] = [
    "--export-bmf",
    "--export-otava",
    "--export-json-hyperfine",
    "--export-csv-hyperfine",
];

impl AnalyzeRequest {
    /// Checks the request (a CSV needs its level columns, unless rigor wrote it; the tools'
    /// exports must not replace an input) and resolves it.
    ///
    /// # Errors
    /// [`RequestError`] naming what is wrong.
    pub fn resolve(&self) -> Result<AnalyzeSettings> {
        let is_csv = !self.levels.is_empty()
            || self
                .files
                .iter()
                .any(|f| f.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")));
        if is_csv && self.format.is_some() {
            return Err(RequestError::FormatWithCsv);
        }
        // A CSV rigor exported reads back as it was written; others name their level columns.
        let own = (is_csv && self.levels.is_empty())
            .then(|| self.files.first())
            .flatten()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .and_then(|text| rigor_store::long_csv::own_export_levels(&text));
        if is_csv && self.levels.is_empty() && own.is_none() {
            // A file with nothing to analyse says so before asking for its columns.
            if let Some(file) = self.files.first() {
                // A file that cannot be read is said by the reading, later, as for any file.
                let said = std::fs::read(file)
                    .ok()
                    .and_then(|text| rigor_store::long_csv::nothing_to_analyse(file, &text));
                if let Some(e) = said {
                    return Err(RequestError::CsvNothing(e));
                }
            }
            return Err(RequestError::CsvNeedsLevels);
        }
        if is_csv && self.files.len() > 1 {
            return Err(RequestError::CsvAlone);
        }
        for (path, option) in self.tool_exports.iter().zip(TOOL_EXPORT_OPTIONS) {
            if let Some(path) = path {
                if is_stdout(path) {
                    return Err(RequestError::ToolExportToStdout(option));
                }
                check_output(path, option, &self.files)?;
            }
        }
        Ok(AnalyzeSettings {
            files: self.files.clone(),
            csv: is_csv.then(|| CsvColumns {
                levels: own.clone().unwrap_or_else(|| self.levels.clone()),
                value: self.value.clone(),
                benchmark: self
                    .benchmark
                    .clone()
                    .or_else(|| own.as_ref().map(|_| "benchmark".to_string())),
                allow_negative: self.allow_negative,
            }),
            format: self.format,
            discard: self.discard,
            analysis: self.analysis,
            comparison: self.comparison.clone(),
            estimator_asked: self.estimator_asked,
            diagnose: self.diagnose,
            robust: self.robust,
            metrics: self.metrics.clone(),
            throughput: self.throughput.clone(),
        })
    }
}

impl CompareFilesSettings {
    /// `OLD NEW`, or `OLD... -- NEW...` (`new` empty for the first form); the Markdown path
    /// (`-`: standard output) is checked before anything is read.
    ///
    /// # Errors
    /// [`RequestError::CompareSides`], [`RequestError::NothingAfterDashes`] (`dashes`: a `--`
    /// was given, nothing after it), or what [`check_output`] finds.
    pub fn from_sides(
        old: &[PathBuf],
        new: &[PathBuf],
        dashes: bool,
        markdown: Option<&Path>,
        base: Self,
    ) -> Result<Self> {
        if dashes && new.is_empty() {
            return Err(RequestError::NothingAfterDashes { old: old.len() });
        }
        // Everything after `--` is a file: an option there is a file that does not exist.
        if let Some(option) = new
            .iter()
            .find(|p| p.to_string_lossy().starts_with('-') && !p.exists())
        {
            return Err(RequestError::OptionAfterDashes {
                option: option.to_string_lossy().into_owned(),
            });
        }
        let (old, new) = match (old, new) {
            ([old, new], []) => (vec![old.clone()], vec![new.clone()]),
            (_, []) => return Err(RequestError::CompareSides),
            (old, new) => (old.to_vec(), new.to_vec()),
        };
        if let Some(path) = markdown.filter(|p| !is_stdout(p)) {
            let inputs: Vec<PathBuf> = old.iter().chain(&new).cloned().collect();
            check_output(path, "--export-markdown", &inputs)?;
        }
        Ok(Self { old, new, ..base })
    }
}

impl ReportSettings {
    /// The settings, the output path checked before anything is read.
    ///
    /// # Errors
    /// What [`check_output`] finds.
    pub fn checked(self) -> Result<Self> {
        check_output(&self.out, "--out", &self.files)?;
        if self.metrics.len() > 1 {
            return Err(RequestError::ReportMetrics {
                count: self.metrics.len(),
            });
        }
        Ok(self)
    }
}
