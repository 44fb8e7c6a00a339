//! Long-format CSV: one row per lowest-level measurement with its coordinates.

use std::path::Path;

use crate::error::{Result, StoreError};
use crate::schema::ResultFile;

/// First characters that make a spreadsheet read a cell as a formula (OWASP's CSV injection:
/// `=`, `+`, `-`, `@`, tab, carriage return), and the quote that neutralises them.
const FORMULA_STARTS: [char; 7] = ['=', '+', '-', '@', '\t', '\r', '\''];

/// A text cell (a name, a label) as no spreadsheet takes it for a formula: one that starts with
/// `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, as OWASP recommends (and one
/// that starts with `'` another, so [`formula_text`] reads every cell back as it was).
///
/// ```
/// use rigor_store::long_csv::{neutralised, formula_text};
/// assert_eq!(neutralised("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
/// assert_eq!(neutralised("sort"), "sort");
/// assert_eq!(formula_text(&neutralised("-O2")), "-O2");
/// ```
pub fn neutralised(text: &str) -> std::borrow::Cow<'_, str> {
    if text.starts_with(FORMULA_STARTS) {
        std::borrow::Cow::Owned(format!("'{text}"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// A cell written by [`neutralised`] as it was before: the quote before a formula's first
/// character taken off.
pub fn formula_text(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA_STARTS) => rest,
        _ => cell,
    }
}

/// Renders every sample of every benchmark as CSV:
/// `benchmark,round,execution,iteration,value,warmup`, and a last column `build` when builds
/// were a level.
pub fn to_long_csv(result: &ResultFile) -> String {
    let builds = result
        .benchmarks
        .iter()
        .any(|b| b.samples.iter().any(|s| s.build.is_some()));
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = OWN_COLUMNS.to_vec();
    if builds {
        header.push("build");
    }
    let _ = w.write_record(&header);
    for b in &result.benchmarks {
        for s in &b.samples {
            let mut row = vec![
                neutralised(&b.name).into_owned(),
                s.round.to_string(),
                s.execution.to_string(),
                s.iteration.to_string(),
                s.value.to_string(),
                s.warmup.to_string(),
            ];
            if builds {
                row.push(s.build.map_or_else(String::new, |x| x.to_string()));
            }
            let _ = w.write_record(&row);
        }
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// The columns [`to_long_csv`] writes (then `build`, when builds were a level).
const OWN_COLUMNS: [&str; 6] = [
    "benchmark",
    "round",
    "execution",
    "iteration",
    "value",
    "warmup",
];

/// The level columns of a CSV that rigor exported ([`to_long_csv`]), so that it reads back
/// without `--levels`: `build` when it has that column, `execution`, and `iteration` when some
/// execution has more than one. `None` for any other CSV.
pub fn own_export_levels(text: &str) -> Option<Vec<String>> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next()?.trim_end().split(',').collect();
    let builds = match header.split_at_checked(OWN_COLUMNS.len()) {
        Some((own, [])) if own == OWN_COLUMNS => false,
        Some((own, ["build"])) if own == OWN_COLUMNS => true,
        _ => return None,
    };
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let iterated = reader
        .records()
        .filter_map(std::result::Result::ok)
        .any(|r| r.get(3).is_some_and(|i| i != "0"));
    let mut levels = Vec::new();
    if builds {
        levels.push("build".to_string());
    }
    levels.push("execution".to_string());
    if iterated {
        levels.push("iteration".to_string());
    }
    Some(levels)
}

/// Measurements of one benchmark read from a long CSV: the keys of each value's units (top → the
/// level above the values) and the value.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvBenchmark {
    /// Benchmark name (from the grouping column, or the file name).
    pub name: String,
    /// `(unit keys, value)` per row, in file order.
    pub rows: Vec<(Vec<String>, f64)>,
}

/// Reads a long CSV. `levels` are the columns identifying each measurement, top → bottom (the
/// last tells the measurements of one unit apart); `value` is the measurement column; rows are
/// grouped into benchmarks by the `benchmark` column when given. A `warmup` column with `true`
/// drops the row. Two rows of a benchmark with the same identifiers are an error (the lowest
/// level does not identify the measurement: a replicate column is missing), and so is a negative
/// value unless `allow_negative`.
pub fn read_long_csv(
    path: &Path,
    levels: &[String],
    value: &str,
    benchmark: Option<&str>,
    allow_negative: bool,
) -> Result<Vec<CsvBenchmark>> {
    let bytes = std::fs::read(path).map_err(|e| StoreError::io(path, e))?;
    parse_long_csv(path, &bytes, levels, value, benchmark, allow_negative)
}

/// [`read_long_csv`] of text already read; `path` names the file in errors and its stem names
/// the benchmark when there is no benchmark column.
pub fn parse_long_csv(
    path: &Path,
    text: &[u8],
    levels: &[String],
    value: &str,
    benchmark: Option<&str>,
    allow_negative: bool,
) -> Result<Vec<CsvBenchmark>> {
    let err = |line: u64, message: String| StoreError::Csv {
        path: path.to_path_buf(),
        line,
        message,
    };
    if levels.is_empty() {
        return Err(err(0, "no level columns given".into()));
    }
    if let Some(e) = nothing_to_analyse(path, text) {
        return Err(e);
    }
    let mut reader = csv::Reader::from_reader(text);
    let headers = reader.headers().map_err(|e| err(1, e.to_string()))?.clone();
    let column = |name: &str| {
        headers.iter().position(|h| h == name).ok_or_else(|| {
            err(
                1,
                format!(
                    "no column '{name}' (columns: {})",
                    headers.iter().collect::<Vec<_>>().join(", ")
                ),
            )
        })
    };
    let level_cols = levels
        .iter()
        .map(|l| column(l))
        .collect::<Result<Vec<_>>>()?;
    let value_col = column(value)?;
    let bench_col = benchmark.map(column).transpose()?;
    let warmup_col = headers.iter().position(|h| h == "warmup");
    let default_name = path
        .file_stem()
        .map_or("data".into(), |s| s.to_string_lossy().into_owned());
    let mut out: Vec<CsvBenchmark> = Vec::new();
    // Lines of each (benchmark, identifiers), to find measurements the levels do not tell apart.
    let mut first_seen: std::collections::HashMap<(String, Vec<String>), Vec<u64>> =
        std::collections::HashMap::new();
    let mut repeated: Vec<(String, Vec<String>)> = Vec::new();
    for record in reader.records() {
        let record =
            record.map_err(|e| err(e.position().map_or(0, |p| p.line()), e.to_string()))?;
        let line = record.position().map_or(0, |p| p.line());
        if let Some(c) = warmup_col {
            // rigor's own export writes `true` or `false`; anything else would have been read
            // as a measured sample (a warm-up counted with the steady state).
            match record.get(c).map(str::trim) {
                Some("true") => continue,
                Some("false") => {}
                other => {
                    return Err(err(
                        line,
                        format!(
                            "'{}' in column 'warmup' is neither true nor false",
                            other.unwrap_or_default()
                        ),
                    ));
                }
            }
        }
        let text = record.get(value_col).unwrap_or_default();
        let v: f64 = text.trim().parse().map_err(|_| {
            err(
                line,
                format!("'{text}' in column '{value}' is not a number"),
            )
        })?;
        if !v.is_finite() {
            return Err(err(
                line,
                format!("'{text}' in column '{value}' is not a finite number"),
            ));
        }
        if v < 0.0 && !allow_negative {
            return Err(err(
                line,
                format!(
                    "negative time {text} in column '{value}' (a difference of times? pass \
                     --allow-negative to analyse it as it is)"
                ),
            ));
        }
        let keys: Vec<String> = level_cols
            .iter()
            .map(|&c| record.get(c).unwrap_or_default().to_string())
            .collect();
        let name = bench_col.map_or(default_name.clone(), |c| {
            formula_text(record.get(c).unwrap_or_default()).to_string()
        });
        let seen = first_seen.entry((name.clone(), keys.clone())).or_default();
        seen.push(line);
        if seen.len() == 2 {
            repeated.push((name.clone(), keys.clone()));
        }
        match out.iter_mut().find(|b| b.name == name) {
            Some(b) => b.rows.push((keys, v)),
            None => out.push(CsvBenchmark {
                name,
                rows: vec![(keys, v)],
            }),
        }
    }
    if out.is_empty() {
        return Err(err(1, "no data rows".into()));
    }
    if let Some(key) = repeated.first() {
        let lines = &first_seen[key];
        let unused: Vec<&str> = headers
            .iter()
            .filter(|h| {
                !levels.iter().any(|l| l == h)
                    && *h != value
                    && Some(*h) != benchmark
                    && *h != "warmup"
            })
            .collect();
        return Err(err(
            lines[1],
            duplicate_message(levels, key, lines, repeated.len(), &unused),
        ));
    }
    Ok(out)
}

/// Why rows with the same identifiers are refused, and what to do.
fn duplicate_message(
    levels: &[String],
    (_, keys): &(String, Vec<String>),
    lines: &[u64],
    groups: usize,
    unused: &[&str],
) -> String {
    let shown: Vec<String> = lines.iter().take(5).map(u64::to_string).collect();
    let more = if lines.len() > 5 {
        format!(" and {} more", lines.len() - 5)
    } else {
        String::new()
    };
    let (last, parents) = levels.split_last().expect("at least one level column");
    let within = if parents.is_empty() {
        String::new()
    } else {
        format!(
            " within {}",
            parents
                .iter()
                .zip(keys)
                .map(|(c, k)| format!("{c} '{k}'"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    // A column that names benchmarks belongs in --benchmark: in --levels it would pool
    // different programs into one benchmark (a new user followed the hint to that).
    let names = unused.iter().find(|c| {
        matches!(
            c.to_ascii_lowercase().as_str(),
            "benchmark" | "bench" | "name" | "command" | "program" | "test"
        )
    });
    let hint = if let Some(column) = names {
        format!(
            "if the rows are of different benchmarks, name the column that tells them apart with \
             --benchmark {column}; else add the column that tells repeats apart to --levels \
             (unused columns: {})",
            unused.join(", ")
        )
    } else if unused.is_empty() {
        "add a column that numbers the repeats (a replicate column) and name it last in --levels"
            .to_string()
    } else {
        format!(
            "add the column that tells them apart to --levels (unused columns: {}), or a \
             replicate column numbering the repeats",
            unused.join(", ")
        )
    };
    format!(
        "lines {}{more} have the same {last} '{}'{within}: --levels {} does not identify each \
         measurement ({groups} identifiers occur more than once), so repeats would be analysed as one level \
         and the interval would be too narrow; {hint}",
        shown.join(", "),
        keys.last().map_or("", String::as_str),
        levels.join(","),
    )
}

/// Why a CSV holds nothing to analyse, whatever its columns: it is empty, or it is hyperfine's
/// `--export-csv` (`command,mean,stddev,median,…`: one mean per command, no runs). Said before
/// level columns are asked for or looked up.
pub fn nothing_to_analyse(path: &Path, text: &[u8]) -> Option<StoreError> {
    if text.iter().all(u8::is_ascii_whitespace) {
        return Some(StoreError::import(path, "", "is empty"));
    }
    let mut reader = csv::Reader::from_reader(text);
    let headers = reader.headers().ok()?;
    let h: Vec<&str> = headers.iter().take(4).collect();
    (h == ["command", "mean", "stddev", "median"]).then(|| StoreError::Csv {
        path: path.to_path_buf(),
        line: 1,
        message: "this is hyperfine's summary CSV (one mean per command, no runs), which holds \
                  nothing to analyse: give rigor hyperfine's --export-json file instead"
            .into(),
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn rigor_s_own_export_is_recognised_with_its_levels() {
        let flat = "benchmark,round,execution,iteration,value,warmup\na,0,0,0,1.0,false\n";
        assert_eq!(own_export_levels(flat), Some(vec!["execution".to_string()]));
        let deep = format!("{flat}a,0,0,1,1.1,false\n");
        assert_eq!(
            own_export_levels(&deep),
            Some(vec!["execution".to_string(), "iteration".to_string()])
        );
        assert_eq!(own_export_levels("bench,run,t\nA,1,2.5\n"), None);
        let built = "benchmark,round,execution,iteration,value,warmup,build\na,0,0,0,1.0,false,0\n";
        assert_eq!(
            own_export_levels(built),
            Some(vec!["build".to_string(), "execution".to_string()])
        );
    }

    use super::*;

    #[test]
    fn names_a_spreadsheet_would_run_are_neutralised_and_read_back_as_they_were() {
        use crate::layout::Layout;
        use crate::schema::{BenchmarkRecord, SampleRecord};
        let names = [
            "=HYPERLINK(\"https://evil.example\",\"x\")",
            "+1+cmd|' /C calc'!A0",
            "-O2",
            "@SUM(A1)",
            "\tx",
            "\rx",
            "'=already quoted",
            "plain",
        ];
        let mut r = ResultFile::new(
            rigor_units::Seed(0),
            rigor_units::ConfidenceLevel::NINETY_FIVE,
        );
        for name in names {
            let mut b = BenchmarkRecord::new(name, name, Layout::new(false, false));
            b.samples = (0..2)
                .map(|i| SampleRecord {
                    build: None,
                    round: i,
                    execution: i,
                    iteration: 0,
                    value: 1.0,
                    warmup: false,
                })
                .collect();
            r.benchmarks.push(b);
        }
        let text = to_long_csv(&r);
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        for record in reader.records() {
            let cell = record.unwrap()[0].to_string();
            assert!(
                !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "{cell:?} starts a formula"
            );
        }
        let read = parse_long_csv(
            Path::new("r.csv"),
            text.as_bytes(),
            &["execution".to_string()],
            "value",
            Some("benchmark"),
            false,
        )
        .unwrap();
        let back: Vec<&str> = read.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(back, names);
    }

    #[test]
    fn an_empty_file_and_hyperfine_s_summary_are_said_for_what_they_are() {
        let read = |text: &str| {
            parse_long_csv(
                Path::new("s.csv"),
                text.as_bytes(),
                &["run".to_string()],
                "value",
                None,
                false,
            )
            .unwrap_err()
            .to_string()
        };
        let e = read("");
        assert!(e.contains("s.csv") && e.contains("empty"), "{e}");
        let e = read(
            "command,mean,stddev,median,user,system,min,max\n./a,0.15,0.01,0.16,0.05,0,0.12,0.17\n",
        );
        assert!(
            e.contains("hyperfine's summary CSV") && e.contains("--export-json"),
            "{e}"
        );
    }

    #[test]
    fn a_warmup_cell_that_is_not_true_or_false_is_refused_with_its_line() {
        for bad in ["maybe", "1", ""] {
            let text = format!(
                "benchmark,round,execution,iteration,value,warmup\na,0,0,0,1.0,{bad}\na,1,1,0,1.1,false\n"
            );
            let e = parse_long_csv(
                Path::new("w.csv"),
                text.as_bytes(),
                &["execution".to_string()],
                "value",
                Some("benchmark"),
                false,
            )
            .unwrap_err()
            .to_string();
            assert!(e.contains("w.csv") && e.contains(":2"), "{e}");
            assert!(e.contains("column 'warmup'"), "{e}");
        }
    }

    #[test]
    fn reads_groups_and_reports_bad_rows() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.csv");
        std::fs::write(
            &p,
            "bench,run,t,warmup\nA,1,2.5,false\nA,1,9,true\nB,2,3,false\n",
        )
        .unwrap();
        let got = read_long_csv(&p, &["run".into()], "t", Some("bench"), false).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].rows, vec![(vec!["1".to_string()], 2.5)]);
        std::fs::write(&p, "run,t\n1,2\n2,x\n").unwrap();
        let e = read_long_csv(&p, &["run".into()], "t", None, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("d.csv:3") && e.contains("'x'"), "{e}");
        let e = read_long_csv(&p, &["exec".into()], "t", None, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no column 'exec'"), "{e}");
    }

    #[test]
    fn repeated_identifiers_and_negative_times_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.csv");
        // 2 runs × 2 execs × 2 iterations, read with --levels run,iter: the exec is lost.
        let mut text = String::from("run,exec,iter,t\n");
        for run in 0..2 {
            for exec in 0..2 {
                for iter in 0..2 {
                    text += &format!("{run},{exec},{iter},1.5\n");
                }
            }
        }
        std::fs::write(&p, &text).unwrap();
        let levels = ["run".to_string(), "iter".to_string()];
        let e = read_long_csv(&p, &levels, "t", None, false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("d.csv:4: lines 2, 4 have the same iter '0' within run '0'"),
            "{e}"
        );
        assert!(
            e.contains("(4 identifiers occur more than once)")
                && e.contains("unused columns: exec"),
            "{e}"
        );
        let all = ["run".to_string(), "exec".to_string(), "iter".to_string()];
        assert!(read_long_csv(&p, &all, "t", None, false).is_ok());
        // A column naming benchmarks is pointed to --benchmark, not --levels (which would pool
        // two programs into one benchmark).
        std::fs::write(&p, "benchmark,run,t\na,1,2\nb,1,3\na,2,2\nb,2,3\n").unwrap();
        let e = read_long_csv(&p, &["run".into()], "t", None, false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("name the column that tells them apart with --benchmark benchmark"),
            "{e}"
        );

        std::fs::write(&p, "run,t\n1,2\n2,-0.5\n").unwrap();
        let e = read_long_csv(&p, &["run".into()], "t", None, false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("d.csv:3: negative time -0.5") && e.contains("--allow-negative"),
            "{e}"
        );
        assert!(read_long_csv(&p, &["run".into()], "t", None, true).is_ok());
    }
}
