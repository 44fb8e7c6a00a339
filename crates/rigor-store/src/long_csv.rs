//! Long-format CSV: one row per lowest-level measurement with its coordinates.

use std::path::Path;

use crate::error::{Result, StoreError};
use crate::schema::ResultFile;

/// Renders every sample of every benchmark as CSV:
/// `benchmark,round,execution,iteration,value,warmup`.
pub fn to_long_csv(result: &ResultFile) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "benchmark",
        "round",
        "execution",
        "iteration",
        "value",
        "warmup",
    ]);
    for b in &result.benchmarks {
        for s in &b.samples {
            let _ = w.write_record([
                b.name.as_str(),
                &s.round.to_string(),
                &s.execution.to_string(),
                &s.iteration.to_string(),
                &s.value.to_string(),
                &s.warmup.to_string(),
            ]);
        }
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
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

/// Reads a long CSV. `levels` are the columns identifying units from the top down to the level
/// just above the measurements; `value` is the measurement column; rows are grouped into
/// benchmarks by the `benchmark` column when given. A `warmup` column with `true` drops the row.
pub fn read_long_csv(
    path: &Path,
    levels: &[String],
    value: &str,
    benchmark: Option<&str>,
) -> Result<Vec<CsvBenchmark>> {
    let err = |line: u64, message: String| StoreError::Csv {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut reader = csv::Reader::from_path(path).map_err(|e| match e.into_kind() {
        csv::ErrorKind::Io(io) => StoreError::io(path, io),
        other => err(0, format!("{other:?}")),
    })?;
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
    for record in reader.records() {
        let record =
            record.map_err(|e| err(e.position().map_or(0, |p| p.line()), e.to_string()))?;
        let line = record.position().map_or(0, |p| p.line());
        if warmup_col.is_some_and(|c| record.get(c) == Some("true")) {
            continue;
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
        let keys = level_cols
            .iter()
            .map(|&c| record.get(c).unwrap_or_default().to_string())
            .collect();
        let name = bench_col.map_or(default_name.clone(), |c| {
            record.get(c).unwrap_or_default().to_string()
        });
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
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_groups_and_reports_bad_rows() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.csv");
        std::fs::write(
            &p,
            "bench,run,t,warmup\nA,1,2.5,false\nA,1,9,true\nB,2,3,false\n",
        )
        .unwrap();
        let got = read_long_csv(&p, &["run".into()], "t", Some("bench")).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].rows, vec![(vec!["1".to_string()], 2.5)]);
        std::fs::write(&p, "run,t\n1,2\n1,x\n").unwrap();
        let e = read_long_csv(&p, &["run".into()], "t", None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("d.csv:3") && e.contains("'x'"), "{e}");
        let e = read_long_csv(&p, &["exec".into()], "t", None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no column 'exec'"), "{e}");
    }
}
