//! `rigor analyze`: re-analyse a saved result or a long-format CSV.

use anyhow::{Context, Result, bail};
use rigor_store::{BenchmarkRecord, ResultFile, RunStatus, SCHEMA_VERSION, SampleRecord};

use crate::cli::{AnalyzeArgs, Discard};
use crate::comparisons;
use crate::diagnosis;
use crate::output;
use crate::results::analyze_all;
use crate::settings::analysis_config;

/// Runs `rigor analyze`.
pub fn analyze(args: &AnalyzeArgs) -> Result<bool> {
    let config = analysis_config(&args.analysis);
    let is_csv = !args.levels.is_empty()
        || args
            .file
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let mut result = if is_csv {
        from_csv(args)?
    } else {
        rigor_store::load(&args.file)?
    };
    result.confidence = config.level;
    match args.discard {
        Some(Discard::Auto) => diagnosis::auto_discard_all(&mut result),
        Some(Discard::Count(n)) => diagnosis::discard_fixed(&mut result, n),
        None => {}
    }
    let analyses = analyze_all(&mut result, &config);
    let cs = comparisons::settings(&args.compare, config.level, result.seed);
    let computed =
        comparisons::within_run(&result, &analyses, args.compare.reference.as_deref(), &cs)?;
    result.comparisons = comparisons::records(&computed);
    if args.json {
        output::emit(&rigor_store::to_json(&result).context("rendering JSON")?);
    } else {
        if result.status != RunStatus::Complete {
            eprintln!(
                "rigor: {}: the run did not finish ({:?}); analysing what was measured",
                args.file.display(),
                result.status
            );
        }
        output::emit(&output::summaries(&result, &analyses));
        output::emit(&comparisons::render(&computed));
        if args.diagnose {
            output::emit(&diagnoses(&result));
        }
        if args.robust == Some(crate::cli::RobustArg::Mono) {
            output::emit(&robust_lines(&result));
        }
    }
    Ok(comparisons::gate(&computed, args.compare.fail_on))
}

/// Reads a long CSV into a result with one benchmark per group.
fn from_csv(args: &AnalyzeArgs) -> Result<ResultFile> {
    if args.levels.is_empty() {
        bail!("a CSV needs --levels COL[,COL...] naming the level columns, top → bottom");
    }
    let path = &args.file;
    let groups =
        rigor_store::read_long_csv(path, &args.levels, &args.value, args.benchmark.as_deref())?;
    // The last level column identifies the measurement itself; units are keyed by the others.
    let unit_levels = &args.levels[..args.levels.len() - 1];
    let benchmarks = groups
        .into_iter()
        .map(|g| {
            // Each level's units get numbers in order of appearance, keyed by the path above them.
            let mut ids: Vec<std::collections::HashMap<Vec<String>, usize>> =
                vec![Default::default(); unit_levels.len()];
            let samples = g
                .rows
                .iter()
                .enumerate()
                .map(|(i, (keys, value))| {
                    let path: Vec<usize> = (0..unit_levels.len())
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
                    s.set_unit_path(&args.levels, &path);
                    s
                })
                .collect();
            BenchmarkRecord {
                name: g.name,
                command: String::new(),
                unit: "s".into(),
                levels: args.levels.clone(),
                analysis: None,
                samples,
                executions: Vec::new(),
                builds: Vec::new(),
                steady_state: None,
                failures: Vec::new(),
            }
        })
        .collect();
    Ok(ResultFile {
        schema_version: SCHEMA_VERSION,
        rigor_version: env!("CARGO_PKG_VERSION").to_string(),
        status: RunStatus::Complete,
        seed: 0,
        confidence: 0.95,
        environment: Default::default(),
        settings: None,
        benchmarks,
        comparisons: Vec::new(),
        suite: None,
        log: Vec::new(),
    })
}

/// The `--diagnose` text of every benchmark.
fn diagnoses(result: &ResultFile) -> String {
    let mut out = String::new();
    for b in &result.benchmarks {
        let steady = diagnosis::diagnose_benchmark(b, result.seed);
        let (report, missing) = match &steady {
            Some(Ok(r)) => (Some(r), None),
            Some(Err(e)) => (None, Some(format!("no steady-state diagnosis: {e}"))),
            None => (
                None,
                Some("no iterations reported: nothing to diagnose within executions".to_string()),
            ),
        };
        let impact = diagnosis::impact(b, result.seed).map(|i| {
            (
                i.original.value,
                i.centred.value,
                i.clustered.map(|c| c.value),
            )
        });
        out += &rigor_report::diagnosis::render(&rigor_report::diagnosis::DiagnosisView {
            name: &b.name,
            steady: report,
            applied: b.steady_state.as_ref().map(|s| s.applied.as_str()),
            impact,
            missing: missing.as_deref(),
        });
        out.push('\n');
    }
    out
}

/// `--robust mono`: seed 003's sub-selection estimate beside the plain one, per benchmark.
fn robust_lines(result: &ResultFile) -> String {
    use rigor_report::format::{time, time_like};
    let mut out = String::new();
    for b in &result.benchmarks {
        match diagnosis::robust(b, result.confidence, result.seed) {
            Some((r, p)) => {
                out += &format!(
                    "Robust (Mono, seed 003 §4.2) {}: {} ± {} (plain {} ± {}); {} sub-selections of {} per execution, seed {}\n",
                    b.name,
                    time(r.mean),
                    time_like(r.half_width, r.mean),
                    time(p.mean),
                    time_like(p.half_width, p.mean),
                    r.subsamples,
                    r.n,
                    r.seed
                );
            }
            None => {
                out += &format!(
                    "Robust (Mono) {}: needs iterations in at least two executions\n",
                    b.name
                )
            }
        }
    }
    out
}
