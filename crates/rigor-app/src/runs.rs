//! Several runs of one experiment analysed together (`rigor analyze RUN1.json RUN2.json …`):
//! each run is analysed as `rigor analyze` analyses one, and each benchmark's mean and each
//! comparison's ratio are then combined across the runs with the run as the top level
//! ([`rigor_stats::runs`]). One run's interval holds only what varied inside it; the machine's
//! state over the minutes a run takes moves a ratio by more (docs/methodology.md, "Across
//! runs").

use std::collections::BTreeMap;
use std::path::Path;

use rigor_report::runs::{BenchmarkRow, ComparedRuns, ComparisonRow, RunsCompared, RunsView};
use rigor_stats::compare::verdict_from_interval;
use rigor_stats::runs::{AcrossRuns, across_runs, log_se_of_interval, ratio_across_runs};

use crate::error::{AppError, Result};
use crate::saved::{Analysed, AnalyzeSettings, CompareFilesSettings, analyze};
use crate::{Findings, Outcome};

/// Several runs analysed or compared together (`V`: what to show), and how that ends
/// (`--fail-on` on the verdicts across the runs).
#[derive(Debug)]
pub struct OverRuns<V = RunsView> {
    /// What to show.
    pub view: V,
    /// Warnings about the runs (one version's measured busy, the other's quiet).
    pub warnings: Vec<rigor_store::Warning>,
    /// Each run's own warnings (its load, a stop), by its file as the user named it: said once
    /// each, named (`rigor analyze RUN1 RUN2 …`; a compare of runs says the load its way).
    pub each_run: Vec<(String, Vec<rigor_store::Warning>)>,
    /// How it ended.
    pub outcome: Outcome,
}

/// Whether `s` names several files that each hold their own process executions (a rigor
/// result, a hyperfine export): runs of one experiment, to analyse together. Files of a format
/// whose file is one process (Google Benchmark, criterion, …), a CSV, a directory or a file
/// that cannot be read are not: they are read as before (and their errors said there).
pub fn are_runs(s: &AnalyzeSettings) -> bool {
    s.files.len() >= 2 && s.csv.is_none() && each_a_run(&s.files, s.format)
}

/// Whether `rigor compare` was given several runs on a side ([`are_runs`]'s rule for the
/// files): each side's runs are then compared across runs ([`compare_runs`]).
pub fn compare_are_runs(s: &CompareFilesSettings) -> bool {
    (s.old.len() >= 2 || s.new.len() >= 2)
        && each_a_run(&s.old, s.format)
        && each_a_run(&s.new, s.format)
}

/// Whether `rigor report` was given several runs ([`are_runs`]'s rule for the files), which it
/// does not draw together.
pub fn report_of_runs(files: &[std::path::PathBuf]) -> bool {
    files.len() >= 2 && each_a_run(files, None)
}

/// Whether the files are runs: none is of a format whose file is one process (nor a directory,
/// as criterion's), and at least one holds its own process executions. A file that cannot be
/// read or recognised does not decide: analysed as a run, it reports its own error (its name,
/// the place), rather than the error of reading the others as one process each.
fn each_a_run(files: &[std::path::PathBuf], format: Option<rigor_store::import::Format>) -> bool {
    let mut any = false;
    for f in files {
        if f.is_dir() {
            return false;
        }
        let known = match format {
            Some(format) => Some(format),
            None => std::fs::read_to_string(f)
                .ok()
                .and_then(|text| rigor_store::import::sniff(f, &text).ok()),
        };
        match known {
            Some(k) if k.one_process() => return false,
            Some(_) => any = true,
            None => {}
        }
    }
    any
}

/// The options that read one run at a time, by flag, when given.
fn one_run_only(s: &AnalyzeSettings) -> Option<&'static str> {
    if s.diagnose {
        Some("--diagnose")
    } else if s.robust.is_some() {
        Some("--robust")
    } else if s.metrics.iter().any(|m| !m.is_wall()) {
        Some("--metric")
    } else if s.throughput.is_some() {
        Some("--throughput")
    } else {
        None
    }
}

/// Analyses each of `s.files` as one run and combines them (module docs).
///
/// # Errors
/// An option that reads one run ([`AppError::OneRunOnly`]), what analysing a run finds, a run
/// that measured none of the first run's benchmarks ([`AppError::OtherRun`]), one run given
/// twice ([`AppError::SameRun`]).
pub fn analyze_runs(s: &AnalyzeSettings) -> Result<OverRuns> {
    if let Some(option) = one_run_only(s) {
        return Err(AppError::OneRunOnly { option });
    }
    same_run_twice(&s.files)?;
    let runs = each_analysed(&s.files, s)?;
    let first = &runs[0].result;
    let names: Vec<&str> = first.benchmarks.iter().map(|b| b.name.as_str()).collect();
    for (run, file) in runs.iter().zip(&s.files).skip(1) {
        if !run
            .result
            .benchmarks
            .iter()
            .any(|b| names.contains(&b.name.as_str()))
        {
            return Err(AppError::OtherRun {
                file: file.clone(),
                first: s.files[0].clone(),
                names: names
                    .iter()
                    .map(|n| format!("'{n}'"))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
    }
    let mut benchmarks = Vec::new();
    let mut left_out = Vec::new();
    for name in &names {
        match benchmark_over_runs(name, &runs)? {
            Some(row) => benchmarks.push(row),
            None => left_out.push(name.to_string()),
        }
    }
    // A later run's benchmark the first run did not measure is left out too, and named.
    for b in runs.iter().skip(1).flat_map(|r| &r.result.benchmarks) {
        if !names.contains(&b.name.as_str()) && !left_out.contains(&b.name) {
            left_out.push(b.name.clone());
        }
    }
    let (comparisons, comparisons_left_out) = comparisons_over_runs(&runs)?;
    let warnings = runs_warnings(&runs, &s.files, &names);
    let each_run: Vec<(String, Vec<rigor_store::Warning>)> = runs
        .iter()
        .zip(&s.files)
        .filter(|(r, _)| !r.result.warnings.is_empty())
        .map(|(r, f)| (shown(f), r.result.warnings.clone()))
        .collect();
    let findings = Findings {
        verdicts: comparisons.iter().map(|c| c.verdict).collect(),
        // The runs' own warnings count as they do for one run (`--fail-on warning` passed
        // several runs whose every one it failed alone).
        warned: !warnings.is_empty() || runs.iter().any(|r| crate::run::has_warnings(&r.result)),
        ..Findings::default()
    };
    Ok(OverRuns {
        warnings,
        each_run,
        view: RunsView {
            files: s.files.iter().map(|f| shown(f)).collect(),
            benchmarks,
            comparisons,
            left_out,
            comparisons_left_out,
        },
        outcome: findings.outcome(s.comparison.fail_on),
    })
}

/// What runs analysed together warn of beyond each run's own: a benchmark that ran different
/// commands in different runs (a new user pooled a version 30% slower into the first's mean
/// without a word).
fn runs_warnings(
    runs: &[Analysed],
    files: &[std::path::PathBuf],
    names: &[&str],
) -> Vec<rigor_store::Warning> {
    let mut warnings: Vec<rigor_store::Warning> = Vec::new();
    for name in names {
        let mut commands: Vec<(String, String)> = Vec::new();
        for (run, file) in runs.iter().zip(files) {
            if let Some(b) = run.result.benchmarks.iter().find(|b| b.name == *name) {
                if !commands.iter().any(|(c, _)| *c == b.command) {
                    commands.push((b.command.clone(), shown(file)));
                }
            }
        }
        if commands.len() > 1 {
            warnings.push(rigor_store::Warning::CommandsDiffer {
                benchmark: (*name).to_string(),
                commands,
            });
        }
    }
    warnings
}

/// [`AppError::SameRun`] when two of `files` hold the same bytes (one file named twice, or a
/// copy of it). Files that cannot be read are left to the analysis to report.
fn same_run_twice(files: &[std::path::PathBuf]) -> Result<()> {
    let mut seen: Vec<(&std::path::PathBuf, Vec<u8>)> = Vec::new();
    for f in files {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        if let Some((first, _)) = seen.iter().find(|(_, b)| *b == bytes) {
            return Err(AppError::SameRun {
                first: (*first).clone(),
                second: f.clone(),
            });
        }
        seen.push((f, bytes));
    }
    Ok(())
}

/// A file as the user named it.
fn shown(f: &Path) -> String {
    f.display().to_string()
}

/// A statistic as `--estimator` spells it, in words: "min" → "minimum", "trimmed-mean:0.1" →
/// "trimmed mean".
fn statistic_word(name: &str) -> String {
    match name.split(':').next().unwrap_or(name) {
        "min" => "minimum".to_string(),
        other => other.replace('-', " "),
    }
}

/// `name`'s compared statistic (the mean, or the one its runs compared: a `rigor bench`
/// result's minimum, which the runs' comparisons combine too) in every run, combined; `None`
/// when a run did not measure it (or has no value of it).
fn benchmark_over_runs(name: &str, runs: &[Analysed]) -> Result<Option<BenchmarkRow>> {
    let mut means = Vec::with_capacity(runs.len());
    let mut within = Vec::with_capacity(runs.len());
    let mut level = 0.95;
    let mut statistic = None;
    for run in runs {
        let Some((i, b)) = run
            .result
            .benchmarks
            .iter()
            .enumerate()
            .find(|(_, b)| b.name == name)
        else {
            return Ok(None);
        };
        let Some(a) = &b.analysis else {
            return Ok(None);
        };
        let df = a.counts.first().map(|n| n.saturating_sub(1) as f64);
        let (value, bounds) = match run.compared.get(i).and_then(Option::as_ref) {
            Some(view) => {
                statistic = Some(statistic_word(&view.name));
                level = view.level;
                (view.estimate, view.interval)
            }
            None => {
                level = a.ci.level.get();
                (a.mean, Some((a.ci.lower, a.ci.upper)))
            }
        };
        let value = b.unit.to_seconds(value);
        within.push(bounds.and_then(|(lo, hi)| {
            log_se_of_interval(
                value,
                b.unit.to_seconds(lo),
                b.unit.to_seconds(hi),
                level,
                df.filter(|d| *d > 0.0),
            )
        }));
        means.push(value);
    }
    let across = combine(name, &means, &within, level)?;
    Ok(Some(BenchmarkRow {
        name: name.to_string(),
        statistic,
        means,
        across,
    }))
}

/// [`across_runs`], its error named.
fn combine(name: &str, values: &[f64], within: &[Option<f64>], level: f64) -> Result<AcrossRuns> {
    across_runs(values, within, level).map_err(|source| AppError::AcrossRuns {
        name: name.to_string(),
        source,
    })
}

/// One run's comparison of a baseline and a candidate.
struct RunRatio {
    /// Candidate over baseline.
    ratio: f64,
    /// Its own interval, when bounded.
    bounds: Option<(f64, f64)>,
    /// Its standard error on the log scale, read back from the interval.
    se: Option<f64>,
    /// The practical threshold it was judged against.
    threshold: f64,
    /// The interval's level.
    level: f64,
}

impl RunRatio {
    /// The same comparison with baseline and candidate swapped.
    fn inverted(self) -> Self {
        Self {
            ratio: 1.0 / self.ratio,
            bounds: self.bounds.map(|(lo, hi)| (1.0 / hi, 1.0 / lo)),
            ..self
        }
    }

    fn of(c: &rigor_stats::compare::Comparison) -> Self {
        let bounds = c.ci.map(|ci| (ci.lower, ci.upper));
        let df = c.candidate_units.min(c.baseline_units).saturating_sub(1) as f64;
        Self {
            ratio: c.ratio,
            bounds,
            se: bounds.and_then(|(lo, hi)| {
                log_se_of_interval(c.ratio, lo, hi, c.level, (df > 0.0).then_some(df))
            }),
            threshold: c.threshold,
            level: c.level,
        }
    }
}

/// Each comparison every run made (the same baseline and candidate, or the two the other way
/// round), combined, in the order the runs made them; those some run did not make, named.
fn comparisons_over_runs(runs: &[Analysed]) -> Result<(Vec<ComparisonRow>, Vec<String>)> {
    let mut order: Vec<(String, String)> = Vec::new();
    let mut found: BTreeMap<(String, String), Vec<RunRatio>> = BTreeMap::new();
    for run in runs {
        for c in &run.comparisons {
            let key = (c.baseline.clone(), c.candidate.clone());
            let swapped = (c.candidate.clone(), c.baseline.clone());
            // A run that compared the other way round (its commands in the other order, or
            // another reference) gives the same comparison inverted.
            if order.contains(&swapped) {
                found
                    .entry(swapped)
                    .or_default()
                    .push(RunRatio::of(&c.comparison).inverted());
                continue;
            }
            if !order.contains(&key) {
                order.push(key.clone());
            }
            found
                .entry(key)
                .or_default()
                .push(RunRatio::of(&c.comparison));
        }
    }
    let mut rows = Vec::new();
    let mut left_out = Vec::new();
    for key in order {
        let each = &found[&key];
        if each.len() != runs.len() {
            left_out.push(format!("{} against {}", key.1, key.0));
            continue;
        }
        let values: Vec<f64> = each.iter().map(|r| r.ratio).collect();
        let within: Vec<Option<f64>> = each.iter().map(|r| r.se).collect();
        let name = format!("{} against {}", key.1, key.0);
        let across = combine(&name, &values, &within, each[0].level)?;
        let runs_excluding = each
            .iter()
            .filter(|r| {
                r.bounds
                    .is_some_and(|(lo, hi)| across.estimate < lo || across.estimate > hi)
            })
            .count();
        let threshold = each[0].threshold;
        rows.push(ComparisonRow {
            baseline: key.0,
            candidate: key.1,
            ratios: each.iter().map(|r| (r.ratio, r.bounds)).collect(),
            verdict: verdict_from_interval(across.lower, across.upper, threshold),
            threshold,
            runs_excluding,
            p_value: across.p_of_one(),
            q_value: None,
            fdr_demoted: false,
            across,
        });
    }
    // Several comparisons: their false-discovery rate controlled, as within a run.
    if rows.len() > 1 {
        let p: Vec<f64> = rows.iter().map(|r| r.p_value).collect();
        if let Ok(q) = rigor_stats::fdr::bh_adjusted(&p) {
            for (row, q) in rows.iter_mut().zip(q) {
                row.q_value = Some(q);
                if row.verdict.is_change() && q > 1.0 - row.across.level {
                    row.verdict = rigor_stats::compare::Verdict::Inconclusive;
                    row.fdr_demoted = true;
                }
            }
        }
    }
    Ok((rows, left_out))
}

/// Each of `files` analysed as one run with the settings `s`.
fn each_analysed(files: &[std::path::PathBuf], s: &AnalyzeSettings) -> Result<Vec<Analysed>> {
    files
        .iter()
        .map(|f| {
            analyze(&AnalyzeSettings {
                files: vec![f.clone()],
                ..s.clone()
            })
        })
        .collect()
}

/// Whether every run of one side started before every run of the other (each run's start
/// known): the machine's drift between the two blocks of time is then in the difference, and
/// no side's spread holds it. `false` when a start is unknown (another tool's file).
fn in_blocks(old: &[Analysed], new: &[Analysed]) -> bool {
    let starts = |runs: &[Analysed]| -> Option<Vec<jiff::Timestamp>> {
        runs.iter().map(|r| r.result.provenance.started).collect()
    };
    let (Some(old), Some(new)) = (starts(old), starts(new)) else {
        return false;
    };
    let (Some(old_first), Some(old_last)) = (old.iter().min(), old.iter().max()) else {
        return false;
    };
    let (Some(new_first), Some(new_last)) = (new.iter().min(), new.iter().max()) else {
        return false;
    };
    old_last < new_first || new_last < old_first
}

/// Each benchmark's compared statistic (the mean, or `--estimator`'s), seconds, by name.
fn statistics(run: &Analysed) -> BTreeMap<String, f64> {
    run.result
        .benchmarks
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            let value = match run.compared.get(i).and_then(Option::as_ref) {
                Some(view) => view.estimate,
                None => b.analysis.as_ref()?.mean,
            };
            Some((b.name.clone(), b.unit.to_seconds(value)))
        })
        .collect()
}

/// `rigor compare OLD1 OLD2 … -- NEW1 NEW2 …` of runs: each benchmark both sides measured in
/// every run, compared with the run as the top level ([`ratio_across_runs`]: Welch's t on the
/// runs' logarithms), the verdicts' false-discovery rate controlled across the benchmarks
/// (Benjamini–Hochberg at 1 − the level).
///
/// # Errors
/// One run on a side ([`AppError::OneRunASide`]), one run given twice ([`AppError::SameRun`]),
/// what analysing a run finds, sides that share no benchmark ([`AppError::OtherRun`]).
pub fn compare_runs(s: &CompareFilesSettings) -> Result<OverRuns<RunsCompared>> {
    if s.metrics.iter().any(|m| !m.is_wall()) {
        return Err(AppError::OneRunOnly { option: "--metric" });
    }
    for (side, files) in [("the old version", &s.old), ("the new version", &s.new)] {
        if files.len() < 2 {
            return Err(AppError::OneRunASide {
                side,
                runs: files.len(),
                file: files.first().map(|f| shown(f)).unwrap_or_default(),
            });
        }
    }
    let all: Vec<std::path::PathBuf> = s.old.iter().chain(&s.new).cloned().collect();
    same_run_twice(&all)?;
    let settings = AnalyzeSettings {
        files: Vec::new(),
        csv: None,
        format: s.format,
        discard: None,
        analysis: s.analysis,
        comparison: s.comparison.clone(),
        estimator_asked: s.estimator_asked,
        diagnose: false,
        robust: None,
        metrics: Vec::new(),
        throughput: None,
    };
    let old_runs = each_analysed(&s.old, &settings)?;
    let new_runs = each_analysed(&s.new, &settings)?;
    let in_blocks = in_blocks(&old_runs, &new_runs);
    // One version's runs all measured beside busy processes, the other's all quiet: the
    // difference holds that load, which no spread between runs of either side does.
    let sides = crate::conditions::Sides {
        candidate: crate::conditions::OthersUse::of_all(new_runs.iter().map(|r| &r.result)),
        others: crate::conditions::OthersUse::of_all(old_runs.iter().map(|r| &r.result)),
    };
    let load = sides.differ(rigor_store::ComparedWith::OldRuns);
    let old: Vec<BTreeMap<String, f64>> = old_runs.iter().map(statistics).collect();
    let new: Vec<BTreeMap<String, f64>> = new_runs.iter().map(statistics).collect();
    let in_all = |name: &String| old.iter().chain(&new).all(|run| run.contains_key(name));
    let names: Vec<String> = old[0].keys().filter(|n| in_all(n)).cloned().collect();
    if names.is_empty() {
        return Err(AppError::OtherRun {
            file: s.new[0].clone(),
            first: s.old[0].clone(),
            names: old[0]
                .keys()
                .map(|n| format!("'{n}'"))
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let level = s.analysis.confidence.get();
    let threshold = s.comparison.threshold.get();
    let mut rows = Vec::with_capacity(names.len());
    let every = load.is_some();
    let mut warnings: Vec<rigor_store::Warning> = load.iter().cloned().collect();
    let (old_results, new_results): (Vec<&rigor_store::ResultFile>, Vec<&rigor_store::ResultFile>) = (
        old_runs.iter().map(|r| &r.result).collect(),
        new_runs.iter().map(|r| &r.result).collect(),
    );
    for name in &names {
        // Each benchmark's contention, by its run queue or its CPU share (where the load does
        // not withhold every benchmark already).
        let contended = (!every)
            .then(|| {
                crate::conditions::contention_across_runs(
                    name,
                    &old_results,
                    &new_results,
                    crate::conditions::share_tolerance(threshold),
                    sides,
                )
            })
            .flatten();
        let o: Vec<f64> = old.iter().map(|run| run[name]).collect();
        let n: Vec<f64> = new.iter().map(|run| run[name]).collect();
        let ratio = ratio_across_runs(&o, &n, level).map_err(|source| AppError::AcrossRuns {
            name: name.clone(),
            source,
        })?;
        let verdict = verdict_from_interval(ratio.lower, ratio.upper, threshold);
        // The warning that withholds it: the runs' load, or this benchmark's contention; a
        // verdict whose contended side was the faster beyond what contention explains stands.
        let why = contended.as_ref().or(load.as_ref());
        let shown = (verdict, Some((ratio.lower, ratio.upper)));
        let stood = why.and_then(|w| {
            crate::conditions::stood(
                w,
                name,
                shown,
                threshold,
                rigor_store::ComparedWith::OldRuns,
            )
        });
        let withheld = why.is_some() && stood.is_none();
        warnings.extend(contended);
        warnings.extend(stood);
        rows.push(ComparedRuns {
            name: name.clone(),
            old: o,
            new: n,
            verdict: if withheld {
                rigor_stats::compare::Verdict::Inconclusive
            } else {
                verdict
            },
            q_value: None,
            fdr_demoted: false,
            withheld,
            ratio,
        });
    }
    if rows.len() > 1 {
        let p: Vec<f64> = rows.iter().map(|r| r.ratio.p_value).collect();
        if let Ok(q) = rigor_stats::fdr::bh_adjusted(&p) {
            for (row, q) in rows.iter_mut().zip(q) {
                row.q_value = Some(q);
                if row.verdict.is_change() && q > 1.0 - level {
                    row.verdict = rigor_stats::compare::Verdict::Inconclusive;
                    row.fdr_demoted = true;
                }
            }
        }
    }
    let left_out = old
        .iter()
        .chain(&new)
        .flat_map(|run| run.keys())
        .filter(|n| !names.contains(n))
        .fold(Vec::new(), |mut v: Vec<String>, n| {
            if !v.contains(n) {
                v.push(n.clone());
            }
            v
        });
    // Runs in two blocks of time carry the drift between them: `--fail-on warning` fails on it.
    let findings = Findings {
        verdicts: rows.iter().map(|r| r.verdict).collect(),
        warned: in_blocks || !warnings.is_empty(),
        ..Findings::default()
    };
    Ok(OverRuns {
        each_run: Vec::new(),
        warnings,
        view: RunsCompared {
            old_files: s.old.iter().map(|f| shown(f)).collect(),
            new_files: s.new.iter().map(|f| shown(f)).collect(),
            threshold,
            rows,
            left_out,
            in_blocks,
        },
        outcome: findings.outcome(s.comparison.fail_on),
    })
}
