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

/// One benchmark as hyperfine 1.20 summarises it (`--export-json`'s `results[]`): statistics of
/// the measured executions' wall times (warm-up left out), in seconds.
struct HyperfineSummary<'a> {
    b: &'a BenchmarkRecord,
    times: Vec<f64>,
    mean: f64,
    stddev: Option<f64>,
    median: f64,
    user: f64,
    system: f64,
    min: f64,
    max: f64,
}

impl<'a> HyperfineSummary<'a> {
    /// The benchmarks of `result` as hyperfine writes them: the empty shell measured for the
    /// start-up is left out, and a command run through a shell is net of it, as hyperfine
    /// reports it (each time less the start-up's mean wall, user and system time, at least 0).
    fn all(result: &'a ResultFile) -> Vec<Self> {
        result
            .benchmarks
            .iter()
            .filter(|b| b.shell_startup.is_none())
            .filter_map(|b| {
                let startup = b
                    .net_of
                    .as_deref()
                    .and_then(|n| result.benchmarks.iter().find(|s| s.name == n));
                Self::of(b, startup)
            })
            .collect()
    }

    /// `None` for a benchmark without a measured execution (hyperfine never writes one).
    fn of(b: &'a BenchmarkRecord, startup: Option<&BenchmarkRecord>) -> Option<Self> {
        use rigor_stats::descriptive as d;
        let measured: Vec<_> = b.executions.iter().filter(|e| !e.warmup).collect();
        if measured.is_empty() {
            return None;
        }
        // The start-up's mean wall, user and system time (0 without one).
        let overhead = startup
            .map(|s| {
                let m: Vec<_> = s.executions.iter().filter(|e| !e.warmup).collect();
                let mean = |f: &dyn Fn(&crate::ExecutionRecord) -> f64| {
                    d::mean(&m.iter().map(|e| f(e)).collect::<Vec<_>>())
                };
                [
                    mean(&|e| e.wall.get()),
                    mean(&|e| e.user.get()),
                    mean(&|e| e.sys.get()),
                ]
            })
            .filter(|o| o.iter().all(|x| x.is_finite()))
            .unwrap_or([0.0; 3]);
        let net = |x: f64, k: usize| (x - overhead[k]).max(0.0);
        let times: Vec<f64> = measured.iter().map(|e| net(e.wall.get(), 0)).collect();
        let user: Vec<f64> = measured.iter().map(|e| net(e.user.get(), 1)).collect();
        let system: Vec<f64> = measured.iter().map(|e| net(e.sys.get(), 2)).collect();
        let mean = d::mean(&times);
        Some(Self {
            b,
            mean,
            // hyperfine's sample standard deviation, absent (null) for a single run.
            stddev: (times.len() > 1).then(|| d::std_dev(&times)),
            median: d::median(&times),
            user: d::mean(&user),
            system: d::mean(&system),
            min: d::min(&times),
            max: d::max(&times),
            times,
        })
    }

    /// rigor's own estimate, in seconds: the mean over its hierarchy (net of the shell's
    /// start-up, for a command run through one), its confidence interval and level (`None`
    /// when the benchmark was not analysed).
    fn rigor(&self) -> Option<(f64, f64, f64, f64)> {
        let a = self.b.analysis.as_ref()?;
        let s = |v: f64| self.b.unit.to_seconds(v);
        let level = a.ci.level.get();
        Some(match &a.net {
            Some(n) => (s(n.mean), s(n.lower), s(n.upper), level),
            None => (s(a.mean), s(a.ci.lower), s(a.ci.upper), level),
        })
    }
}

/// The result as hyperfine 1.20's `--export-json` writes it, so that scripts written for
/// hyperfine read it unchanged: `{"results": [{"command", "mean", "stddev", "median", "user",
/// "system", "min", "max", "times", "memory_usage_byte", "exit_codes", "parameters"}]}`, every
/// time in seconds, statistics of the measured executions' wall times (hyperfine's `command` is
/// the benchmark's name; `memory_usage_byte` only when the peaks are known, never a made-up 0).
/// As hyperfine, a command run through a shell is reported net of the shell's start-up (the
/// empty shell measured beside it, left out of the results), each time less its mean.
/// rigor's estimate is an extra field per result, `"rigor": {"mean",
/// "ci_lower", "ci_upper", "confidence", "rounds"}` (its hierarchical mean and interval, seconds;
/// each time's round, which rigor's importer reads to pair the commands as the run did).
/// Benchmarks without a measured execution are left out.
pub fn to_hyperfine_json(result: &ResultFile) -> String {
    let results: Vec<Value> = HyperfineSummary::all(result)
        .into_iter()
        .map(|h| {
            let measured = h.b.executions.iter().filter(|e| !e.warmup);
            let mut r = Map::new();
            r.insert("command".into(), json!(h.b.name));
            r.insert("mean".into(), json!(h.mean));
            r.insert("stddev".into(), json!(h.stddev));
            r.insert("median".into(), json!(h.median));
            r.insert("user".into(), json!(h.user));
            r.insert("system".into(), json!(h.system));
            r.insert("min".into(), json!(h.min));
            r.insert("max".into(), json!(h.max));
            r.insert("times".into(), json!(h.times));
            let memory: Vec<u64> = measured.clone().map(|e| e.max_rss).collect();
            if memory.iter().any(|&m| m > 0) {
                r.insert("memory_usage_byte".into(), json!(memory));
            }
            // A measured execution recorded as a failure without an exit status (an imported
            // hyperfine run a signal ended) is `null`, as hyperfine writes it.
            let killed = |e: &crate::ExecutionRecord| {
                h.b.failures.iter().any(|f| {
                    f.stage.is_command()
                        && !f.warmup
                        && f.execution == e.execution
                        && f.exit_code.is_none()
                        && !f.timed_out
                })
            };
            let codes: Vec<Option<i32>> = measured
                .map(|e| match e.exit_code {
                    Some(c) => Some(c),
                    None if killed(e) => None,
                    None => Some(0),
                })
                .collect();
            r.insert("exit_codes".into(), json!(codes));
            if !h.b.parameters.is_empty() {
                r.insert("parameters".into(), json!(h.b.parameters));
            }
            if let Some((mean, lower, upper, level)) = h.rigor() {
                let mut extra = json!({"mean": mean, "ci_lower": lower, "ci_upper": upper, "confidence": level});
                // Each time's round, so that reading the file back pairs the commands by round
                // as the run did (without it they read as measured one after another). Not with
                // builds, whose rounds repeat in each build.
                let measured: Vec<&crate::ExecutionRecord> =
                    h.b.executions.iter().filter(|e| !e.warmup).collect();
                if measured.len() == h.times.len() && measured.iter().all(|e| e.build.is_none()) {
                    extra["rounds"] = json!(measured.iter().map(|e| e.round).collect::<Vec<_>>());
                }
                // The times are net of this start-up, as hyperfine's are: reading them back says
                // so (their interval leaves the start-up's variance out).
                if let Some(startup) = &h.b.net_of {
                    extra["net_of"] = json!(startup);
                }
                r.insert("rigor".into(), extra);
            }
            Value::Object(r)
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&json!({ "results": results })).unwrap_or_default();
    text.push('\n');
    text
}

/// The result as hyperfine 1.20's `--export-csv` writes it: `command,mean,stddev,median,user,
/// system,min,max`, a `parameter_NAME` column per parameter of the first benchmark (sorted by
/// name), seconds throughout (stddev 0 for a single run, as hyperfine writes it); then rigor's
/// estimate, `rigor_mean,rigor_ci_lower,rigor_ci_upper` (empty when not analysed).
pub fn to_hyperfine_csv(result: &ResultFile) -> String {
    let summaries: Vec<HyperfineSummary<'_>> = HyperfineSummary::all(result);
    let params: Vec<&String> = summaries
        .first()
        .map(|h| h.b.parameters.keys().collect())
        .unwrap_or_default();
    let mut header: Vec<String> = [
        "command", "mean", "stddev", "median", "user", "system", "min", "max",
    ]
    .map(String::from)
    .to_vec();
    header.extend(params.iter().map(|p| format!("parameter_{p}")));
    header.extend(["rigor_mean", "rigor_ci_lower", "rigor_ci_upper"].map(String::from));
    let mut records = vec![header];
    for h in &summaries {
        let mut row = vec![crate::long_csv::neutralised(&h.b.name).into_owned()];
        row.extend(
            [
                h.mean,
                h.stddev.unwrap_or(0.0),
                h.median,
                h.user,
                h.system,
                h.min,
                h.max,
            ]
            .map(|v| v.to_string()),
        );
        row.extend(
            params
                .iter()
                .map(|p| h.b.parameters.get(*p).cloned().unwrap_or_default()),
        );
        match h.rigor() {
            Some((mean, lower, upper, _)) => {
                row.extend([mean, lower, upper].map(|v| v.to_string()));
            }
            None => row.extend([String::new(), String::new(), String::new()]),
        }
        records.push(row);
    }
    csv_text(&records)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Layout;
    use crate::schema::{
        AnalysisRecord, ExecutionRecord, IntervalRecord, MeanMethod, Provenance, SummaryRecord,
    };
    use rigor_stats::variance::ComponentMethod;
    use rigor_units::{ConfidenceLevel, Seconds, Seed, TimeUnit};

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
            net: None,
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

    fn execution(i: usize, wall: f64, warmup: bool, code: Option<i32>) -> ExecutionRecord {
        ExecutionRecord {
            preempted: None,
            run_delay: None,
            metrics: Default::default(),
            build: None,
            round: i,
            execution: i,
            warmup,
            wall: Seconds(wall),
            user: Seconds(wall / 4.0),
            sys: Seconds(0.0),
            max_rss: 0,
            exit_code: code,
            env_pad: None,
            resolution: None,
        }
    }

    #[test]
    fn hyperfine_json_has_hyperfine_fields_of_the_measured_executions() {
        let mut r = result();
        r.benchmarks[0].executions = vec![
            execution(0, 9.0, true, None),
            execution(1, 0.001, false, None),
            execution(2, 0.003, false, Some(1)),
            execution(3, 0.002, false, None),
        ];
        r.benchmarks[0].parameters.insert("n".into(), "3".into());
        r.benchmarks[1].executions = vec![execution(0, 0.5, false, None)];
        let v: Value = serde_json::from_str(&to_hyperfine_json(&r)).unwrap();
        let results = v["results"].as_array().unwrap();
        assert_eq!(
            results.len(),
            2,
            "the benchmark without executions is left out"
        );
        let a = &results[0];
        assert_eq!(a["command"], "a,b");
        assert!((a["mean"].as_f64().unwrap() - 0.002).abs() < 1e-12);
        assert!((a["stddev"].as_f64().unwrap() - 0.001).abs() < 1e-12);
        assert_eq!(a["median"], 0.002);
        assert_eq!(a["min"], 0.001);
        assert_eq!(a["max"], 0.003);
        assert_eq!(a["times"], json!([0.001, 0.003, 0.002]));
        assert_eq!(a["exit_codes"], json!([0, 1, 0]));
        // An execution a signal ended (an imported hyperfine `null`) is written `null` again.
        r.benchmarks[0].failures.push(crate::schema::FailureRecord {
            stage: crate::schema::FailureStage::Command,
            round: 3,
            execution: 3,
            warmup: false,
            number: Some(3),
            exit_code: None,
            signal: None,
            timed_out: false,
            stderr_tail: String::new(),
            reason: "was killed by a signal".into(),
        });
        let v: Value = serde_json::from_str(&to_hyperfine_json(&r)).unwrap();
        assert_eq!(v["results"][0]["exit_codes"], json!([0, 1, null]));
        assert_eq!(a["parameters"], json!({"n": "3"}));
        assert_eq!(a["rigor"]["ci_lower"], 0.0015);
        assert!(a.get("memory_usage_byte").is_none());
        // One run: hyperfine writes a null standard deviation, and no parameters key.
        assert_eq!(results[1]["stddev"], Value::Null);
        assert!(results[1].get("parameters").is_none());
        let csv = to_hyperfine_csv(&r);
        let mut lines = csv.lines();
        assert_eq!(
            lines.next().unwrap(),
            "command,mean,stddev,median,user,system,min,max,parameter_n,\
             rigor_mean,rigor_ci_lower,rigor_ci_upper"
        );
        assert!(lines.next().unwrap().starts_with("\"a,b\",0.002,"), "{csv}");
        let ns = lines.next().unwrap();
        assert!(ns.starts_with("ns,0.5,0,0.5,0.125,0,0.5,0.5,,"), "{ns}");
    }
}
