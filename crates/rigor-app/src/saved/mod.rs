//! Use cases over saved results: re-analyse one (or a long-format CSV), compare two, report one.

use std::path::PathBuf;

use rigor_store::import::Format;
use rigor_store::{
    BenchmarkRecord, Discard, ResultFile, ResultSide, RunStatus, SuiteRecord, Warning,
};
use rigor_units::{ConfidenceLevel, Metric, Seed};

use crate::analysis::{Analyses, analyze_all};
use crate::comparisons::{self, CompareSettings, Computed};
use crate::error::Result;
use crate::settings::{AnalysisSettings, ComparisonSettings};
use crate::{Findings, Outcome};
use crate::{diagnosis, ranking};
use rigor_report::diagnosis::{DiagnosisView, Missing};
use rigor_stats::compare::Verdict;
use rigor_stats::robust::RobustEstimate;
use rigor_stats::steady::{Recommendation, SteadyStateReport};

/// How to read a long-format CSV.
#[derive(Debug, Clone)]
pub struct CsvColumns {
    /// Columns identifying each level, top → bottom (the last identifies the measurement).
    pub levels: Vec<String>,
    /// The column holding the value (seconds).
    pub value: String,
    /// A column naming each row's benchmark.
    pub benchmark: Option<String>,
    /// Accept negative values (differences of times).
    pub allow_negative: bool,
}

/// What `analyze` needs.
#[derive(Debug, Clone)]
pub struct AnalyzeSettings {
    /// A result file, a CSV, or several files of a one-process format read together (each one
    /// process execution; see [`rigor_store::import::load_together`]).
    pub files: Vec<PathBuf>,
    /// Read the (one) file as a long CSV with these columns.
    pub csv: Option<CsvColumns>,
    /// Read the files as this format (else their content decides: a rigor result or an import).
    pub format: Option<Format>,
    /// Re-apply a warm-up discard.
    pub discard: Option<Discard>,
    /// Intervals.
    pub analysis: AnalysisSettings,
    /// Comparisons.
    pub comparison: ComparisonSettings,
    /// Whether `--estimator` was given; without it a result rigor wrote is compared with the
    /// statistic its run compared.
    pub estimator_asked: bool,
    /// Diagnose warm-up, steady state, independence and the random initial state.
    pub diagnose: bool,
    /// Also the Mono project's robust estimate.
    pub robust: Option<Robust>,
    /// What is analysed (`--metric`; empty: wall time), each in turn.
    pub metrics: Vec<Metric>,
    /// `--throughput`, `{VAR}` replaced by each benchmark's parameters: the work of one
    /// measured value, replacing what the file says.
    pub throughput: Option<String>,
}

/// A robust estimate shown beside the plain one (`--robust`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Robust {
    /// Mono's sub-selection medians (Kalibera, Bulej & Tůma 2005b, §4.2).
    Mono,
}

/// One benchmark's `--diagnose`.
#[derive(Debug)]
pub struct Diagnosed {
    /// The benchmark.
    pub name: String,
    /// Its steady-state diagnosis (`None`: no iterations).
    pub steady: Option<std::result::Result<SteadyStateReport, rigor_stats::StatsError>>,
    /// What `--discard auto` applied.
    pub applied: Option<Recommendation>,
    /// Impact factors of the random initial state: original, centred, clustered.
    pub impact: Option<(f64, f64, Option<f64>)>,
}

impl Diagnosed {
    /// The report crate's view of it.
    pub fn view(&self) -> DiagnosisView<'_> {
        let (steady, missing) = match &self.steady {
            Some(Ok(r)) => (Some(r), None),
            Some(Err(e)) => (None, Some(Missing::Failed(e))),
            None => (None, Some(Missing::NoIterations)),
        };
        DiagnosisView {
            name: &self.name,
            steady,
            applied: self.applied,
            impact: self.impact,
            missing,
        }
    }
}

/// A saved result, analysed again.
#[derive(Debug)]
pub struct Analysed {
    /// What was analysed (`--metric`): the result's samples are this metric's values.
    pub metric: Metric,
    /// The result with fresh estimates and warnings.
    pub result: ResultFile,
    /// Each benchmark's analysis or why it has none.
    pub analyses: Analyses,
    /// Comparisons with the reference.
    pub comparisons: Vec<Computed>,
    /// Each benchmark's compared statistic when comparisons use another than the mean.
    pub compared: Vec<Option<rigor_report::StatisticView>>,
    /// The benchmarks ranked by the statistic compared.
    pub ranking: Vec<comparisons::Ranking>,
    /// How a saved run until decided ended.
    pub decided: Option<rigor_report::decided::DecidedView>,
    /// Each benchmark's diagnosis (with `diagnose`).
    pub diagnoses: Vec<Diagnosed>,
    /// Each benchmark's robust and plain estimates (with `robust`; `None`: too few
    /// executions with iterations).
    pub robust: Vec<(String, Option<(RobustEstimate, RobustEstimate)>)>,
    /// What the user should know about the outcome.
    pub notes: Vec<rigor_report::notes::Note>,
    /// How it ended, for the exit status.
    pub outcome: Outcome,
}

/// Re-analyses a saved result (even a killed run's) or a long CSV, for the first metric asked
/// for ([`analyze_metrics`] for all of them).
pub fn analyze(s: &AnalyzeSettings) -> Result<Analysed> {
    let mut all = analyze_metrics(&AnalyzeSettings {
        metrics: s.metrics.first().cloned().into_iter().collect(),
        ..s.clone()
    })?;
    Ok(all.remove(0))
}

/// The metrics asked for, wall time when none.
fn or_wall(metrics: &[Metric]) -> Vec<Metric> {
    if metrics.is_empty() {
        vec![Metric::Wall]
    } else {
        metrics.to_vec()
    }
}

/// Re-analyses a saved result (even a killed run's) or a long CSV once per metric asked for
/// (`--metric wall,cpu`), in that order.
///
/// # Errors
/// What reading finds, and a metric no benchmark has ([`AppError::Metric`]).
///
/// [`AppError::Metric`]: crate::error::AppError::Metric
pub fn analyze_metrics(s: &AnalyzeSettings) -> Result<Vec<Analysed>> {
    let first = s.files.first().map_or(std::path::Path::new(""), |f| f);
    let mut loaded = match &s.csv {
        Some(columns) => from_csv(first, columns)?,
        None => load_together(&s.files, s.format)?,
    };
    if let Some(t) = &s.throughput {
        for b in &mut loaded.benchmarks {
            let values: crate::settings::expand::Values =
                b.parameters.clone().into_iter().collect();
            b.throughput = Some(crate::settings::throughput(t, &values)?);
        }
    }
    or_wall(&s.metrics)
        .iter()
        .map(|metric| {
            let mut result = loaded.for_metric(metric)?;
            let mut a = analyze_one(s, &mut result, first)?;
            // Sequences decide on wall time: they replace the ranking's intervals of wall time.
            if metric.is_wall() {
                ranking::rank_by_sequences(&mut a.ranking, &a.result);
            }
            a.metric = metric.clone();
            Ok(a)
        })
        .collect()
}

/// A run's measured result seen through `metric`: analysed, compared and (`ranked`) ranked
/// with the run's settings, as `rigor run --metric` shows it.
///
/// # Errors
/// A metric no benchmark has; a comparison that cannot be computed.
pub fn analyze_measured(
    result: &ResultFile,
    metric: &Metric,
    settings: &crate::settings::RunSettings,
    ranked: bool,
) -> Result<Analysed> {
    let mut projected = result.for_metric(metric)?;
    // A stopped run's status is said once, by the run.
    projected.status = RunStatus::Complete;
    let mut a = analyze_loaded(
        &mut projected,
        std::path::Path::new(""),
        None,
        &settings.analysis,
        &settings.comparison,
    )?;
    let r = &a.result;
    let cs = CompareSettings::new(&settings.comparison, settings.analysis.confidence, r.seed);
    a.compared = crate::analysis::compared_statistics(r, &cs.config);
    if ranked {
        let by_time = settings.exports.sort != crate::settings::SortOrder::Command;
        a.ranking = ranking::ranking(r, &a.analyses, &cs, by_time);
        if metric.is_wall() {
            ranking::rank_by_sequences(&mut a.ranking, r);
        }
    }
    a.metric = metric.clone();
    Ok(a)
}

/// Whether `result`'s benchmarks are compared with each other: unless `--reference` asks for
/// it, not where the run did not (a `rigor bench` result holds different functions; comparing
/// each with the first read "sort_100k is 7028503× slower than mix").
/// Nor where it holds two builds measured together (`rigor bench --against`): those are compared
/// build with build ([`compare_builds`]).
fn compares_within(result: &ResultFile, comparison: &ComparisonSettings) -> bool {
    comparison.reference.is_some()
        || (result.settings.as_ref().is_none_or(|s| s.compared_within)
            && crate::bench::other_build(result).is_none())
}

/// A result of two builds measured together (`rigor bench --against`) read back: each benchmark
/// of this build compared with the other build's, paired by the rounds they ran in, as the run
/// compared them (a new user's `analyze` of the saved file had shown no comparison). Without
/// `--reference` only, which compares within the result instead.
fn compare_builds(
    a: &mut Analysed,
    s: &AnalyzeSettings,
    comparison: &ComparisonSettings,
) -> Result<()> {
    if comparison.reference.is_some() {
        return Ok(());
    }
    let Some(label) = crate::bench::other_build(&a.result).map(str::to_string) else {
        return Ok(());
    };
    let (old, new) = crate::bench::split_builds(&a.result, &label);
    let settings = CompareFilesSettings {
        old: Vec::new(),
        new: Vec::new(),
        format: None,
        seed: a.result.seed,
        analysis: s.analysis,
        comparison: ComparisonSettings {
            enabled: true,
            ..comparison.clone()
        },
        metrics: Vec::new(),
        estimator_asked: true,
    };
    let mut c = compare_loaded(old, new, &settings, true)?;
    crate::bench::name_builds(&mut c, &label);
    // The file's own warnings are the result's already; what comparing adds is a pair that
    // could not be compared.
    a.result.warnings.extend(
        c.warnings
            .into_iter()
            .filter(|w| matches!(w, Warning::NotCompared { .. })),
    );
    a.result.comparisons = comparisons::records(&c.comparisons);
    a.comparisons = c.comparisons;
    Ok(())
}

/// `comparison` with the statistic `result`'s run compared, unless `--estimator` was given
/// (`asked`): a `rigor bench` result compared minimums, and read back it compares them again
/// (the mean had been compared instead, silently).
fn as_recorded(
    result: &ResultFile,
    comparison: &ComparisonSettings,
    asked: bool,
) -> ComparisonSettings {
    let mut c = comparison.clone();
    if !asked {
        if let Some(recorded) = result.settings.as_ref().map(|r| r.estimator) {
            c.estimator = recorded;
        }
    }
    c
}

/// Analyses one result (already seen through its metric) as `analyze` asks.
fn analyze_one(
    s: &AnalyzeSettings,
    result: &mut ResultFile,
    first: &std::path::Path,
) -> Result<Analysed> {
    let comparison = as_recorded(result, &s.comparison, s.estimator_asked);
    let mut a = analyze_loaded(result, first, s.discard, &s.analysis, &comparison)?;
    compare_builds(&mut a, s, &comparison)?;
    let r = &a.result;
    let cs = CompareSettings::new(&comparison, s.analysis.confidence, r.seed);
    a.compared = crate::analysis::compared_statistics(r, &cs.config);
    if compares_within(r, &comparison) {
        a.ranking = ranking::ranking(r, &a.analyses, &cs, true);
    }
    a.decided = crate::decided::saved_view(r);
    if s.diagnose {
        a.diagnoses = r
            .benchmarks
            .iter()
            .map(|b| Diagnosed {
                name: b.name.clone(),
                steady: diagnosis::diagnose_benchmark(b, r.seed),
                applied: b.steady_state.as_ref().map(|s| s.applied),
                impact: diagnosis::impact(b, r.seed).map(|i| {
                    (
                        i.original.value,
                        i.centred.value,
                        i.clustered.map(|c| c.value),
                    )
                }),
            })
            .collect();
    }
    if s.robust == Some(Robust::Mono) {
        a.robust = r
            .benchmarks
            .iter()
            .map(|b| (b.name.clone(), diagnosis::robust(b, r.confidence, r.seed)))
            .collect();
    }
    // A benchmark that measured nothing fails the analysis as it failed the run (exit 2).
    let findings = Findings {
        failed: a
            .analyses
            .iter()
            .any(|x| x.as_ref().is_err_and(|e| e.measured_nothing())),
        verdicts: a
            .comparisons
            .iter()
            .map(|c| c.comparison.verdict)
            .chain(crate::outcome::not_compared(&r.warnings))
            .collect(),
        warned: crate::run::has_warnings(r),
        ..Findings::default()
    };
    a.outcome = findings.outcome(s.comparison.fail_on);
    if a.outcome == Outcome::Failed {
        a.notes.push(rigor_report::notes::Note::NothingMeasured);
    }
    Ok(a)
}

fn analyze_loaded(
    result: &mut ResultFile,
    file: &std::path::Path,
    discard: Option<Discard>,
    analysis: &AnalysisSettings,
    comparison: &ComparisonSettings,
) -> Result<Analysed> {
    // A run until decided saved how each comparison ended; the rest is re-derived.
    let saved = std::mem::take(&mut result.comparisons);
    // What an import found missing stays true of the data; the rest is re-derived.
    result.warnings.retain(|w| {
        matches!(
            w,
            Warning::LevelNotRecorded { .. }
                | Warning::Imported { .. }
                | Warning::Repaired { .. }
                | Warning::NoMetric { .. }
                | Warning::BusyMachine { .. }
                | Warning::OthersBusy { .. }
        )
    });
    if result.status != RunStatus::Complete {
        result.warnings.push(Warning::Unfinished {
            file: file.display().to_string(),
            status: result.status,
        });
    }
    match discard {
        Some(Discard::Auto) => {
            let w = diagnosis::auto_discard_all(result);
            result.warnings.extend(w);
        }
        Some(Discard::Count(n)) => diagnosis::discard_fixed(result, n),
        None => {}
    }
    let analyses = analyze_all(result, analysis);
    let cs = CompareSettings::new(comparison, analysis.confidence, result.seed);
    // Without `--reference`, one of rigor's own runs is compared with the reference it had.
    let reference = comparison
        .reference
        .clone()
        .or_else(|| result.settings.as_ref().and_then(|s| s.reference.clone()));
    let (mut computed, warnings) = if compares_within(result, comparison) {
        comparisons::within_run(result, &analyses, reference.as_deref(), &cs)?
    } else {
        (Vec::new(), Vec::new())
    };
    result.warnings.extend(warnings);
    result.comparisons = comparisons::records(&computed);
    crate::decided::reapply_saved(&saved, result, &mut computed);
    Ok(Analysed {
        metric: Metric::Wall,
        result: std::mem::replace(result, ResultFile::new(Seed(0), analysis.confidence)),
        analyses,
        comparisons: computed,
        compared: Vec::new(),
        ranking: Vec::new(),
        decided: None,
        diagnoses: Vec::new(),
        robust: Vec::new(),
        notes: Vec::new(),
        outcome: Outcome::Ok,
    })
}

/// What `report` needs.
#[derive(Debug, Clone)]
pub struct ReportSettings {
    /// The result file (or several files of a one-process format, read together).
    pub files: Vec<PathBuf>,
    /// Where the HTML goes.
    pub out: PathBuf,
    /// Intervals.
    pub analysis: AnalysisSettings,
    /// Comparisons.
    pub comparison: ComparisonSettings,
    /// What the report shows (`--metric`; empty: wall time; at most one,
    /// [`ReportSettings::checked`]).
    pub metrics: Vec<Metric>,
    /// Whether `--estimator` was given; without it a result rigor wrote is compared with the
    /// statistic its run compared, as `analyze` does.
    pub estimator_asked: bool,
}

/// Writes the HTML report of a saved result; returns the analysed result.
///
/// # Errors
/// Several runs ([`AppError::ReportOfRuns`]: `analyze` takes them together), what reading and
/// analysing find, a file that cannot be written.
///
/// [`AppError::ReportOfRuns`]: crate::error::AppError::ReportOfRuns
pub fn report(s: &ReportSettings) -> Result<Analysed> {
    if crate::runs::report_of_runs(&s.files) {
        return Err(crate::error::AppError::ReportOfRuns(s.files.len()));
    }
    let metric = or_wall(&s.metrics).remove(0);
    let mut result = load_together(&s.files, None)?.for_metric(&metric)?;
    let first = s.files.first().map_or(std::path::Path::new(""), |f| f);
    let comparison = as_recorded(&result, &s.comparison, s.estimator_asked);
    let analysed = analyze_loaded(&mut result, first, None, &s.analysis, &comparison)?;
    let title = crate::report_view::title(&analysed.result);
    let cs =
        comparisons::CompareSettings::new(&comparison, s.analysis.confidence, analysed.result.seed);
    let compared = crate::analysis::compared_statistics(&analysed.result, &cs.config);
    let reported = crate::exports::Reported {
        result: &analysed.result,
        analyses: &analysed.analyses,
        comparisons: &analysed.comparisons,
        compared: &compared,
    };
    crate::exports::write_html(&s.out, &reported, &title)?;
    Ok(analysed)
}

/// What `compare` needs.
#[derive(Debug, Clone)]
pub struct CompareFilesSettings {
    /// The baseline result (several files of a one-process format are read together, each one
    /// process execution).
    pub old: Vec<PathBuf>,
    /// The candidate result (likewise).
    pub new: Vec<PathBuf>,
    /// Read both files as this format (else each file's content decides).
    pub format: Option<Format>,
    /// Seed of the bootstrap.
    pub seed: Seed,
    /// Intervals.
    pub analysis: AnalysisSettings,
    /// Comparisons.
    pub comparison: ComparisonSettings,
    /// What is compared (`--metric`; empty: wall time).
    pub metrics: Vec<Metric>,
    /// Whether `--estimator` was given; without it, two results whose runs compared the same
    /// statistic (`rigor bench`'s: the minimum) are compared with it, as `analyze` does.
    pub estimator_asked: bool,
}

/// Two results compared benchmark by benchmark.
#[derive(Debug)]
pub struct ComparedFiles {
    /// What was compared (`--metric`).
    pub metric: Metric,
    /// Each matched benchmark, new against old.
    pub comparisons: Vec<Computed>,
    /// The geometric-mean ratio over the suite.
    pub suite: Option<SuiteRecord>,
    /// Benchmarks measured once on a side, compared by value without an interval or a verdict.
    pub values_only: Vec<comparisons::ValueOnly>,
    /// Benchmarks not compared, and other problems.
    pub warnings: Vec<Warning>,
    /// Analysis warnings of either file, for `--fail-on warning`.
    pub analysis_warnings: bool,
    /// The confidence level used.
    pub confidence: ConfidenceLevel,
    /// How it ended, for the exit status.
    pub outcome: Outcome,
}

impl ComparedFiles {
    /// Sets the outcome from the comparisons' verdicts and the warnings, under `fail_on` (again
    /// after the verdicts changed, as a baseline's sessions widen them).
    pub fn decide(&mut self, fail_on: Option<crate::settings::FailOn>) {
        let findings = Findings {
            // A benchmark compared without an interval (measured once) has no verdict: not
            // shown equivalent or better, so `--fail-on inconclusive` fails on it as on an
            // inconclusive one (it passed, as if there were nothing to decide).
            verdicts: self
                .comparisons
                .iter()
                .map(|c| c.comparison.verdict)
                .chain(self.values_only.iter().map(|_| Verdict::Unbounded))
                .chain(crate::outcome::not_compared(&self.warnings))
                .collect(),
            warned: self.warnings.iter().any(|w| !w.is_note()) || self.analysis_warnings,
            ..Findings::default()
        };
        self.outcome = findings.outcome(fail_on);
    }

    /// The report crate's view of the suite's geometric mean, saying where the two sides were
    /// measured apart (separate runs move every benchmark together).
    pub fn suite_view(&self) -> Option<rigor_report::comparison::SuiteView> {
        let mut view = comparisons::suite_view(self.suite.as_ref()?);
        view.apart = self.comparisons.first().and_then(|c| c.apart);
        Some(view)
    }

    /// The comparisons as `rigor compare --json` prints them, of the files `s` names.
    pub fn json(&self, s: &CompareFilesSettings) -> serde_json::Value {
        serde_json::json!({
            "old": crate::track::files_shown(&s.old),
            "new": crate::track::files_shown(&s.new),
            "seed": s.seed,
            "confidence": self.confidence,
            "comparisons": comparisons::records(&self.comparisons),
            "suite": self.suite,
            "values_only": self.values_only.iter().map(|v| serde_json::json!({
                "benchmark": v.benchmark,
                "old": v.old,
                "new": v.new,
                "ratio": v.new / v.old,
            })).collect::<Vec<_>>(),
            "warnings": self.warnings,
        })
    }
}

/// Compares each benchmark of `new` with the same-named one of `old`, for the first metric asked
/// for ([`compare_metrics`] for all of them).
pub fn compare(s: &CompareFilesSettings) -> Result<ComparedFiles> {
    let mut all = compare_metrics(&CompareFilesSettings {
        metrics: s.metrics.first().cloned().into_iter().collect(),
        ..s.clone()
    })?;
    Ok(all.remove(0))
}

/// Compares each benchmark of `new` with the same-named one of `old`, once per metric asked for
/// (`--metric wall,cpu`), in that order.
///
/// # Errors
/// What reading finds, a reference named (files have none), the same result twice, a metric
/// neither file has.
pub fn compare_metrics(s: &CompareFilesSettings) -> Result<Vec<ComparedFiles>> {
    compare_metrics_judged(s, None)
}

/// [`compare_metrics`], the new result's CPU shares judged against `others` (by benchmark; what
/// they are the shares of; what other processes used over those runs) where the two were
/// measured apart, by default against the old result's
/// ([`crate::conditions::withhold_contended`]).
///
/// # Errors
/// As [`compare_metrics`].
pub fn compare_metrics_judged(
    s: &CompareFilesSettings,
    others: Option<crate::conditions::JudgedAgainst<'_>>,
) -> Result<Vec<ComparedFiles>> {
    let old = load_together(&s.old, s.format)?;
    let new = load_together(&s.new, s.format)?;
    if let Some(reference) = &s.comparison.reference {
        let mut names: Vec<String> = Vec::new();
        for b in old.benchmarks.iter().chain(&new.benchmarks) {
            let quoted = format!("'{}'", b.name);
            if !names.contains(&quoted) {
                names.push(quoted);
            }
        }
        return Err(crate::error::AppError::ReferenceInCompare {
            reference: reference.clone(),
            names: names.join(", "),
        });
    }
    if same_measurements(&old, &new) {
        let join = |paths: &[PathBuf]| {
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(crate::error::AppError::SameResult {
            old: join(&s.old),
            new: join(&s.new),
        });
    }
    let mut s = s.clone();
    if !s.estimator_asked {
        let recorded = |r: &ResultFile| r.settings.as_ref().map(|x| x.estimator);
        if let (Some(a), Some(b)) = (recorded(&old), recorded(&new)) {
            if a == b {
                s.comparison.estimator = a;
            }
        }
    }
    let s = &s;
    let apart = crate::conditions::separate_runs(&old, &new).is_some();
    let one_run_a_side = others.is_none(); // (a baseline's sessions carry their own spread)
    let own = crate::conditions::shares_of([&old]);
    let (others, against, others_use) = others.unwrap_or((
        &own,
        rigor_store::ComparedWith::OldResult,
        crate::conditions::OthersUse::of(&old),
    ));
    let sides = crate::conditions::Sides {
        candidate: crate::conditions::OthersUse::of(&new),
        others: others_use,
    };
    or_wall(&s.metrics)
        .iter()
        .map(|metric| {
            let mut c = compare_loaded_metric(&old, &new, s, false, metric)?;
            if apart {
                crate::conditions::withhold_contended(
                    &mut c,
                    &new,
                    others,
                    against,
                    sides,
                    &s.comparison,
                );
                if one_run_a_side {
                    crate::baselines::one_run_each(&mut c, &s.comparison);
                }
            }
            Ok(c)
        })
        .collect()
}

/// [`compare_loaded`] of `metric`: each result's measurements of it.
///
/// # Errors
/// A metric a result does not hold; a comparison that cannot be computed.
pub fn compare_loaded_metric(
    old: &ResultFile,
    new: &ResultFile,
    s: &CompareFilesSettings,
    paired: bool,
    metric: &Metric,
) -> Result<ComparedFiles> {
    let mut c = compare_loaded(old.for_metric(metric)?, new.for_metric(metric)?, s, paired)?;
    c.metric = metric.clone();
    Ok(c)
}

/// Compares two loaded results as [`compare`] does; `paired`: they ran in the same interleaved
/// rounds (two builds measured together), so each benchmark is compared round by round.
///
/// # Errors
/// A comparison that cannot be computed.
pub fn compare_loaded(
    mut old: ResultFile,
    mut new: ResultFile,
    s: &CompareFilesSettings,
    paired: bool,
) -> Result<ComparedFiles> {
    let old_analyses = analyze_all(&mut old, &s.analysis);
    let new_analyses = analyze_all(&mut new, &s.analysis);
    let cs = CompareSettings::new(&s.comparison, s.analysis.confidence, s.seed);
    let comparisons::Between {
        mut comparisons,
        suite,
        values_only,
        mut warnings,
    } = comparisons::between(&old, &old_analyses, &new, &new_analyses, &cs, paired)?;
    let carried = crate::conditions::carried_warnings(&old, &new);
    warnings.splice(0..0, carried);
    warnings
        .extend(non_zero_exits(&old, ResultSide::Old).chain(non_zero_exits(&new, ResultSide::New)));
    if let Some(w) = crate::conditions::separate_runs(&old, &new) {
        warnings.push(w);
        for c in &mut comparisons {
            c.apart = Some(rigor_report::comparison::Apart::Runs);
        }
    }
    let analysis_warnings = crate::run::has_warnings(&old) || crate::run::has_warnings(&new);
    let mut compared = ComparedFiles {
        metric: old
            .benchmarks
            .first()
            .map_or(Metric::Wall, BenchmarkRecord::metric_of_samples),
        outcome: Outcome::Ok,
        comparisons,
        suite,
        values_only,
        warnings,
        analysis_warnings,
        confidence: s.analysis.confidence,
    };
    compared.decide(s.comparison.fail_on);
    Ok(compared)
}

/// A warning per benchmark of `result` some of whose measured executions exited with a
/// non-zero status (kept by `-i`, rigor's or hyperfine's): the comparison alone would not show
/// it, where `analyze` lists it with the benchmark's summary.
fn non_zero_exits(result: &ResultFile, side: ResultSide) -> impl Iterator<Item = Warning> + '_ {
    result.benchmarks.iter().filter_map(move |b| {
        let (measured, mut codes) = b.non_zero_exits();
        let non_zero = codes.len();
        codes.sort_unstable();
        codes.dedup();
        (non_zero > 0).then(|| Warning::NonZeroExits {
            benchmark: b.name.clone(),
            side,
            non_zero,
            measured,
            codes,
        })
    })
}

/// Whether two results hold the same benchmarks with the same measurements (a file compared
/// with itself, or with a copy of itself).
pub(crate) fn same_measurements(old: &ResultFile, new: &ResultFile) -> bool {
    old.benchmarks.len() == new.benchmarks.len()
        && old
            .benchmarks
            .iter()
            .zip(&new.benchmarks)
            .all(|(a, b)| a.name == b.name && a.samples == b.samples)
}

mod load;
pub use load::*;
