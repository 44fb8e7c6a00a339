//! Exports for other tools: Bencher Metric Format JSON and a CSV that Apache Otava (formerly
//! Hunter) reads. Both take an analysed result (benchmarks without an analysis are left out).

use serde_json::{Map, Value, json};

use crate::schema::{BenchmarkRecord, ResultFile};

/// Mean and interval bounds of an analysed benchmark, in seconds.
fn estimate(b: &BenchmarkRecord) -> Option<(f64, f64, f64)> {
    let a = b.analysis.as_ref()?;
    let s = |v: f64| b.unit.to_seconds(v);
    Some((s(a.mean), s(a.ci.lower), s(a.ci.upper)))
}

/// Bencher Metric Format: `{"<benchmark>": {"latency": {"value", "lower_value", "upper_value"}}}`
/// with the mean and its confidence interval in nanoseconds (Bencher's `latency` measure).
pub fn to_bmf(result: &ResultFile) -> String {
    let mut doc = Map::new();
    for b in &result.benchmarks {
        if let Some((mean, lower, upper)) = estimate(b) {
            doc.insert(
                b.name.clone(),
                json!({"latency": {
                    "value": mean * 1e9,
                    "lower_value": lower * 1e9,
                    "upper_value": upper * 1e9,
                }}),
            );
        }
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or_default();
    text.push('\n');
    text
}

/// The header of the Otava CSV of `result`: `time,commit`, then one column per analysed
/// benchmark holding its mean in seconds.
pub fn otava_header(result: &ResultFile) -> Vec<String> {
    let mut h = vec!["time".to_string(), "commit".to_string()];
    h.extend(
        result
            .benchmarks
            .iter()
            .filter(|b| b.analysis.is_some())
            .map(|b| crate::long_csv::neutralised(&b.name).into_owned()),
    );
    h
}

/// One Otava CSV row of `result` for [`otava_header`]: the run's time (`YYYY-MM-DD HH:MM:SS
/// +0000`, the end of the run, else its start, else `now`), its `--label` (else its git
/// commit), each mean.
pub fn otava_row(result: &ResultFile, now: jiff::Timestamp) -> Vec<String> {
    let p = &result.provenance;
    let time = p.ended.or(p.started).unwrap_or(now);
    let mut row = vec![
        time.strftime("%Y-%m-%d %H:%M:%S +0000").to_string(),
        p.label
            .as_deref()
            .map(|l| crate::long_csv::neutralised(l).into_owned())
            .or_else(|| p.git.as_ref().map(|g| g.commit.clone()))
            .unwrap_or_default(),
    ];
    row.extend(
        result
            .benchmarks
            .iter()
            .filter_map(estimate)
            .map(|(mean, _, _)| mean.to_string()),
    );
    row
}

/// Renders CSV records.
pub fn csv_text(records: &[Vec<String>]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in records {
        let _ = w.write_record(r);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Layout;
    use crate::schema::{AnalysisRecord, IntervalRecord, MeanMethod, Provenance, SummaryRecord};
    use rigor_stats::variance::ComponentMethod;
    use rigor_units::{ConfidenceLevel, Seed, TimeUnit};

    fn analysed(name: &str, unit: TimeUnit, mean: f64, lower: f64, upper: f64) -> BenchmarkRecord {
        let mut b = BenchmarkRecord::new(name, "", Layout::EXECUTIONS);
        b.unit = unit;
        b.analysis = Some(AnalysisRecord {
            counts: vec![3],
            mean,
            ci: IntervalRecord {
                lower,
                upper,
                level: ConfidenceLevel::NINETY_FIVE,
                method: MeanMethod::TTopLevelMeans,
            },
            variance_components: Vec::new(),
            variance_method: ComponentMethod::Balanced,
            summary: SummaryRecord {
                n: 3,
                median: mean,
                min: lower,
                max: upper,
                std_dev: 0.0,
            },
            warnings: Vec::new(),
        });
        b
    }

    fn result() -> ResultFile {
        let mut r = ResultFile::new(Seed(1), ConfidenceLevel::NINETY_FIVE);
        r.benchmarks = vec![
            analysed("a,b", TimeUnit::S, 0.002, 0.0015, 0.0025),
            analysed("ns", TimeUnit::Ns, 120.0, 110.0, 130.0),
            BenchmarkRecord::new("unanalysed", "", Layout::EXECUTIONS),
        ];
        r.provenance = Provenance {
            started: Some("2026-01-02T03:04:05Z".parse().unwrap()),
            label: Some("v1.2".into()),
            ..Provenance::default()
        };
        r
    }

    #[test]
    fn bmf_is_latency_in_nanoseconds() {
        let v: Value = serde_json::from_str(&to_bmf(&result())).unwrap();
        assert_eq!(v["a,b"]["latency"]["value"], 2_000_000.0);
        assert_eq!(v["a,b"]["latency"]["lower_value"], 1_500_000.0);
        let ns = v["ns"]["latency"]["upper_value"].as_f64().unwrap();
        assert!((ns - 130.0).abs() < 1e-9);
        assert!(v.get("unanalysed").is_none());
    }

    #[test]
    fn otava_rows_line_up_with_the_header() {
        let r = result();
        let text = csv_text(&[otava_header(&r), otava_row(&r, jiff::Timestamp::UNIX_EPOCH)]);
        assert_eq!(
            text,
            "time,commit,\"a,b\",ns\n2026-01-02 03:04:05 +0000,v1.2,0.002,0.00000012\n"
        );
    }
}
