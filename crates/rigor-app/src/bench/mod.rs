//! `rigor bench` around `rigor run`'s use case: the bench targets built, listed and selected
//! ([`discover`]), each benchmark's evaluations per sample tuned ([`evals`]), the run's settings
//! with one benchmark per function ([`settings`]), compared with a saved baseline
//! ([`against_baseline`]; the baselines themselves are `crate::baselines`) — or another build of
//! the project measured together with this one ([`against`], [`settings_against`],
//! [`against_compared`]).

use std::path::Path;

use rigor_report::notes::{GroupSetting, Note};
use rigor_units::{Seconds, TimeUnit};

use crate::baselines::{sessions_of, widen_for_sessions};
use crate::cargo_bench::{self, CargoBenchError, CargoSettings, Listed, Listing, Selected, Target};
use crate::saved::{CompareFilesSettings, ComparedFiles};
use crate::settings::{Resolved, RunRequest, RunSettings};

type Result<T, E = CargoBenchError> = std::result::Result<T, E>;

/// Builds the bench targets, lists their benchmarks and selects those `filters` match (all
/// without filters; with `exact`, by equal names); the notes of targets that are not rigor-bench
/// harnesses.
///
/// # Errors
/// cargo's and the harnesses' errors; no rigor-bench target; no match (unless `list`).
pub fn discover(
    cargo: &CargoSettings,
    filters: &[String],
    exact: bool,
    list: bool,
) -> Result<(Vec<Selected>, Vec<Note>)> {
    let mut listed: Vec<(Target, Vec<Listed>)> = Vec::new();
    let mut notes = Vec::new();
    for t in cargo_bench::build(cargo)? {
        match cargo_bench::list(&t)? {
            Listing::Benchmarks(names) => listed.push((t, names)),
            Listing::NotRigorBench(said) => notes.push(Note::NotRigorBench {
                target: t.name.clone(),
                said,
            }),
        }
    }
    if listed.is_empty() {
        return Err(CargoBenchError::NoRigorBench);
    }
    let selected = cargo_bench::select(&listed, filters, exact);
    // `--list` with filters that match nothing is the same error as a run's: it printed
    // nothing and exited 0.
    if selected.is_empty() && (!list || !filters.is_empty()) {
        let what = filters.join(", ");
        return Err(CargoBenchError::NoMatch(if exact {
            format!("exactly {what} (--exact)")
        } else {
            what
        }));
    }
    let unmatched: Vec<String> = filters
        .iter()
        .filter(|f| {
            !selected
                .iter()
                .any(|s| cargo_bench::matches(&s.listed.name, f, exact))
        })
        .cloned()
        .collect();
    // `--exact isort add_one` measured add_one alone, without a word about isort.
    if !selected.is_empty() && !unmatched.is_empty() {
        notes.push(Note::FiltersUnmatched {
            filters: unmatched,
            exact,
        });
    }
    Ok((selected, notes))
}

/// Evaluations per sample: `fixed` (`--evals`) for every benchmark, else the evaluations its
/// group fixes, else tuned once per benchmark (the consecutive benchmarks of one target in one
/// process, each benchmark within `timeout` besides tuning's own time), each tuning told to
/// `told` as it is known. A tuned benchmark that `baseline` (its
/// baseline's counts by name, [`Baselines::evals`]) measured keeps the baseline's count, unless
/// that is over [`KEPT_EVALS_LIMIT`] times the tuned one: a minimum of samples that each
/// average other evaluations is another statistic, and tuning alone moved a count 13 to 182
/// from one run to the next under load.
///
/// A benchmark whose tuning failed (its routine panicked, crashed or ran past `timeout`) is
/// `None`, told as [`Note::TuningFailed`] with what its process said: it is left out of the run,
/// and the others are measured.
///
/// # Errors
/// A harness that cannot be run or answers what is not a tuning ([`cargo_bench::tune`]).
///
/// [`Baselines::evals`]: crate::baselines::Baselines::evals
pub fn evals(
    selected: &[Selected],
    fixed: Option<u64>,
    baseline: &std::collections::HashMap<String, u64>,
    request: &RunRequest,
    told: &mut dyn FnMut(Note),
) -> Result<Vec<Option<u64>>> {
    let timeout = request.timeout;
    if let Some(n) = fixed {
        return Ok(vec![Some(n); selected.len()]);
    }
    let mut out: Vec<Option<u64>> = selected.iter().map(|s| s.listed.evals).collect();
    let untuned: Vec<usize> = (0..selected.len()).filter(|&i| out[i].is_none()).collect();
    let mut failed = vec![false; selected.len()];
    if !untuned.is_empty() {
        told(Note::Tuning(untuned.len()));
    }
    for group in untuned.chunk_by(|&a, &b| selected[a].target == selected[b].target) {
        let names: Vec<String> = group
            .iter()
            .map(|&i| selected[i].function.clone())
            .collect();
        let target = &selected[group[0]].target;
        for (&i, t) in group
            .iter()
            .zip(cargo_bench::tune(target, &names, timeout)?)
        {
            let t = match t {
                Ok(t) => t,
                Err(failure) => {
                    told(Note::TuningFailed {
                        name: selected[i].name.clone(),
                        how: failure.how,
                        stderr_tail: failure.stderr_tail,
                    });
                    failed[i] = true;
                    continue;
                }
            };
            let kept = baseline.get(&selected[i].name).copied();
            let evals = kept_or_tuned(kept, t.evals);
            told(Note::Tuned {
                name: selected[i].name.clone(),
                evals,
                per_eval: t.per_eval_ns.map(|ns| Seconds::from_unit(ns, TimeUnit::Ns)),
                allocs: t.allocs.map(|a| (a.allocations, a.bytes)),
                baseline: kept.map(|k| rigor_report::notes::KeptEvals {
                    baseline: k,
                    tuned: t.evals,
                }),
            });
            if let Some(per_eval) = t.per_eval_ns {
                let per_sample = Seconds::from_unit(per_eval * evals as f64, TimeUnit::Ns);
                let samples = request
                    .iterations
                    .or(selected[i].listed.samples)
                    .unwrap_or(HARNESS_SAMPLES);
                if per_sample.get() * samples as f64 > LONG_EXECUTION {
                    // The executions of a fixed run, as resolving the request counts them.
                    let fixed = request.plan.is_none()
                        && !request.until_decided
                        && request.precision.is_none()
                        && request.budget.is_none();
                    told(Note::LongExecutions {
                        name: selected[i].name.clone(),
                        samples,
                        per_sample,
                        executions: fixed.then(|| request.fixed_executions().ok()).flatten(),
                    });
                }
            }
            out[i] = Some(evals);
        }
    }
    Ok(out
        .into_iter()
        .zip(failed)
        .map(|(e, failed)| (!failed).then(|| e.unwrap_or(1)))
        .collect())
}

/// An execution longer than this many seconds is said before the run, with its samples'
/// time and the run's ([`Note::LongExecutions`]).
pub const LONG_EXECUTION: f64 = 10.0;

/// How many times the tuned evaluations per sample a baseline's count may be and still be
/// kept: past it the routine became much slower, and the baseline's count would make each
/// sample as many times longer.
pub const KEPT_EVALS_LIMIT: u64 = 16;

/// The baseline's evaluations per sample `kept` unless over [`KEPT_EVALS_LIMIT`] times the
/// `tuned` ones, which are taken otherwise.
fn kept_or_tuned(kept: Option<u64>, tuned: u64) -> u64 {
    match kept {
        Some(k) if k <= tuned.saturating_mul(KEPT_EVALS_LIMIT) => k,
        _ => tuned,
    }
}

/// What each group of the selected benchmarks gives them in this run, and which of its settings
/// the command line replaced: `--evals` its evaluations, `--iterations` (or an adaptive run's
/// plan, `--precision`/`--budget`) its samples per execution.
pub fn group_notes(selected: &[Selected], s: &RunSettings, evals_given: bool) -> Vec<Note> {
    let samples_by = if s.runner.iterations_per_execution.is_some() {
        Some("--iterations")
    } else if s.is_adaptive() {
        Some("the adaptive plan (--precision, --budget)")
    } else {
        None
    };
    let mut notes: Vec<Note> = Vec::new();
    for sel in selected {
        let l = &sel.listed;
        let Some(group) = &l.group else { continue };
        let (mut taken, mut replaced) = (Vec::new(), Vec::new());
        let mut put = |setting: GroupSetting, by: Option<&str>| match by {
            Some(option) => replaced.push((setting, option.to_string())),
            None => taken.push(setting),
        };
        if let Some(n) = l.samples {
            put(GroupSetting::Samples(n), samples_by);
        }
        if let Some(n) = l.evals {
            put(GroupSetting::Evals(n), evals_given.then_some("--evals"));
        }
        if let Some(t) = l.warm_up_s {
            put(GroupSetting::WarmUp(Seconds(t)), None);
        }
        if taken.is_empty() && replaced.is_empty() {
            continue;
        }
        // One note per group and settings (a group's settings may change between the
        // benchmarks it registers: each takes those given before it).
        let same = notes.iter_mut().find_map(|n| match n {
            Note::FromGroup {
                group: g,
                benchmarks,
                taken: t,
                replaced: r,
            } if g == group && *t == taken && *r == replaced => Some(benchmarks),
            _ => None,
        });
        match same {
            Some(benchmarks) => *benchmarks += 1,
            None => notes.push(Note::FromGroup {
                group: group.clone(),
                benchmarks: 1,
                taken,
                replaced,
            }),
        }
    }
    notes
}

/// The parameter a benchmark registered with an input is plotted against, in its result
/// (`rigor bench --report` draws each group's functions against it).
pub const INPUT_PARAMETER: &str = "input";
/// The parameter naming a benchmark's function (`group/function`, or the function alone): one
/// line of the plot across the input.
pub const FUNCTION_PARAMETER: &str = "function";
/// The parameter naming a benchmark's group: one plot across the input per group.
pub const GROUP_PARAMETER: &str = "group";

/// A benchmark's parameters in the result: its function (and group) and input, for one
/// registered with an input (none otherwise).
fn parameters(l: &Listed) -> std::collections::BTreeMap<String, String> {
    let mut p = std::collections::BTreeMap::new();
    let Some(input) = &l.input else {
        return p;
    };
    let function = l.function.clone().unwrap_or_else(|| {
        l.name
            .strip_suffix(&format!("/{input}"))
            .unwrap_or(&l.name)
            .to_string()
    });
    let function = match &l.group {
        Some(g) => {
            p.insert(GROUP_PARAMETER.to_string(), g.clone());
            format!("{g}/{function}")
        }
        None => function,
    };
    p.insert(FUNCTION_PARAMETER.to_string(), function);
    p.insert(INPUT_PARAMETER.to_string(), input.clone());
    p
}

/// `rigor run`'s settings for the selected benchmarks (the rest of `request` as given), one
/// benchmark per function named after it, each command fixing its evaluations.
///
/// # Errors
/// What [`RunRequest::resolve`] finds.
pub fn settings(
    selected: &[Selected],
    evals: &[u64],
    mut request: RunRequest,
) -> Result<Resolved, crate::RequestError> {
    let benchmarks: Vec<_> = selected
        .iter()
        .zip(evals)
        .map(|(s, &e)| s.benchmark(e))
        .collect();
    request.commands = benchmarks
        .iter()
        .map(|b| shell_words::join(b.command.argv()))
        .collect();
    request.names = selected.iter().map(|s| s.name.clone()).collect();
    // The commands are quoted words: run directly, whatever characters a path has.
    request.shell = Some("none".to_string());
    // `--builds N`: the layouts are linked already ([`layouts`]); the runner's build `k` only
    // puts layout `k` into the commands (`{build}`), so its build command does nothing.
    let layouts = request.builds.is_some();
    if layouts {
        request.build = Some("true".to_string());
    }
    let iterations_given = request.iterations.is_some();
    let mut resolved = request.resolve()?;
    // hyperfine has no `bench`: its option names mean nothing else here, and the note that
    // `--export-json` is rigor's format and not hyperfine's only repeated itself at every run.
    resolved
        .notes
        .retain(|n| !matches!(n, rigor_report::notes::Note::OwnFormats(_)));
    let s = &mut resolved.settings;
    if layouts {
        s.record.build = Some(
            "cargo rustc --profile bench --bench TARGET -- -C \
             link-arg=-Wl,--shuffle-sections=*=SEED (a seed per build, drawn from the run's seed)"
                .to_string(),
        );
    }
    // A group's samples are its benchmarks' samples per execution, unless --iterations or an
    // adaptive plan decides them ([`group_notes`] says which).
    let group_samples = !iterations_given && !s.is_adaptive();
    for ((b, from), sel) in s.benchmarks.iter_mut().zip(benchmarks).zip(selected) {
        b.dir = from.dir;
        if group_samples && sel.listed.samples.is_some() {
            b.iterations = sel.listed.samples;
        }
    }
    if selected.iter().any(|sel| sel.listed.input.is_some()) {
        s.parameters = selected.iter().map(|sel| parameters(&sel.listed)).collect();
    }
    Ok(resolved)
}

/// A suite's request as `rigor bench` measures it: its benchmarks are different functions,
/// compared only when a `--reference` is given, and by the minimum unless another `estimator`
/// is asked for — the least disturbed estimate of an in-process microbenchmark (Chen & Revels
/// 2016), its interval from the hierarchical bootstrap.
pub fn suite_request(
    mut request: RunRequest,
    estimator: Option<rigor_stats::Estimator>,
) -> RunRequest {
    request.comparison.enabled = request.comparison.reference.is_some();
    request.comparison.estimator = estimator.unwrap_or(rigor_stats::Estimator::Min);
    // An adaptive run's pilot takes a fixed run's samples per process (the harness's 100), not
    // 10: the minimum of 10 samples moves far more between processes than that of 100, and a
    // plan from it asked for 17 times the default run's length.
    request.pilot_iterations.get_or_insert(HARNESS_SAMPLES);
    request
}

/// The samples a rigor-bench harness takes per process when rigor does not ask for a count
/// (rigor-bench's `DEFAULT_SAMPLES`).
pub const HARNESS_SAMPLES: usize = 100;

/// Compares the run's result `new` with the baseline `old`, with the run's comparison settings.
///
/// # Errors
/// [`CargoBenchError::Compare`] when they cannot be compared.
pub fn against_baseline(old: &Path, new: &Path, s: &RunSettings) -> Result<ComparedFiles> {
    let settings = compare_settings(old, new, s);
    let sessions = sessions_of(old);
    // A run measured under contention none of the baseline's sessions saw (or the reverse) is
    // no comparison of the code: judged against all of them.
    let shares = crate::conditions::shares_of(&sessions);
    let compared = crate::saved::compare_metrics_judged(
        &CompareFilesSettings {
            metrics: settings.metrics.first().cloned().into_iter().collect(),
            ..settings
        },
        Some((
            &shares,
            rigor_store::ComparedWith::Baseline,
            crate::conditions::OthersUse::of_all(&sessions),
        )),
    )
    .map(|mut all| all.remove(0));
    // Benchmarks the baseline does not have (new ones) are measured and said, not compared: a
    // CI gate whose change adds a benchmark had ended in an error (exit 2) after measuring,
    // advising `-n NAME` for names the code gives.
    let mut compared = match compared {
        Err(crate::error::AppError::NothingInCommon { .. }) => {
            nothing_in_common(new, s).map_err(|e| CargoBenchError::Compare {
                path: old.to_path_buf(),
                source: Box::new(e),
            })?
        }
        other => other.map_err(|e| CargoBenchError::Compare {
            path: old.to_path_buf(),
            source: Box::new(e),
        })?,
    };
    // The baseline was measured in other sessions: its verdicts carry how far a session moves
    // the statistic (issue: a minimum's interval covers one session only).
    widen_for_sessions(&mut compared.comparisons, &sessions, s.comparison.estimator);
    // That the two were measured apart is what the widening answers, and the run's note says
    // so: a warning that "these intervals do not cover" it would contradict both.
    compared
        .warnings
        .retain(|w| !matches!(w, rigor_store::Warning::SeparateRuns { .. }));
    for c in &mut compared.comparisons {
        c.apart = None;
    }
    // The run's own warnings (a busy machine) were said with the run: not again here.
    let said = rigor_store::load(new)
        .map(|r| r.warnings)
        .unwrap_or_default();
    compared.warnings.retain(|w| {
        !said.contains(w)
            && !matches!(
                w,
                rigor_store::Warning::OthersBusy {
                    side: Some(rigor_store::ResultSide::New),
                    ..
                }
            )
    });
    compared.decide(s.comparison.fail_on);
    Ok(compared)
}

/// A run none of whose benchmarks the baseline has, compared: nothing, each benchmark said to be
/// only in the new result.
fn nothing_in_common(new: &Path, s: &RunSettings) -> crate::error::Result<ComparedFiles> {
    let result = rigor_store::load(new)?;
    Ok(ComparedFiles {
        metric: s.metrics.first().cloned().unwrap_or_default(),
        comparisons: Vec::new(),
        suite: None,
        values_only: Vec::new(),
        warnings: result
            .benchmarks
            .iter()
            .map(|b| rigor_store::Warning::OnlyInNew {
                benchmark: b.name.clone(),
            })
            .collect(),
        analysis_warnings: false,
        confidence: s.analysis.confidence,
        outcome: crate::Outcome::Ok,
    })
}

/// How a run compares two result files of its own (`old` against `new`, which may be one file
/// holding both builds): with the run's comparison settings, its statistic whatever the other
/// run compared, and the first `--metric` asked for, which the summaries show (wall time when
/// none was asked for).
fn compare_settings(old: &Path, new: &Path, s: &RunSettings) -> CompareFilesSettings {
    let mut comparison = s.comparison.clone();
    comparison.enabled = true;
    CompareFilesSettings {
        old: vec![old.to_path_buf()],
        new: vec![new.to_path_buf()],
        // Both are rigor's own result files.
        format: None,
        seed: s.runner.seed,
        analysis: s.analysis,
        comparison,
        metrics: s.metrics.first().cloned().into_iter().collect(),
        estimator_asked: true,
    }
}

/// A result file read back and analysed as the run analysed it, with its compared statistics.
fn analysed(
    path: &Path,
    s: &RunSettings,
) -> crate::error::Result<(
    rigor_store::ResultFile,
    crate::analysis::Analyses,
    Vec<Option<rigor_report::StatisticView>>,
)> {
    let mut r = rigor_store::load(path)?;
    let analyses = crate::analysis::analyze_all(&mut r, &s.analysis);
    let cs = crate::comparisons::CompareSettings::new(&s.comparison, s.analysis.confidence, r.seed);
    let compared = crate::analysis::compared_statistics(&r, &cs.config);
    Ok((r, analyses, compared))
}

/// Each group's functions against their input in the run's `result` (the statistic compared,
/// with its interval; one line per function and build), with `baseline`'s lines (its file and
/// name) beside the run's: for the report's plots and the tables after the run. Empty when no
/// group has two inputs.
///
/// # Errors
/// The result file or the baseline cannot be read.
pub fn across_inputs(
    result: &Path,
    s: &RunSettings,
    baseline: Option<(&Path, &str)>,
) -> crate::error::Result<Vec<rigor_report::html::ParameterPlot>> {
    use crate::report_view::{Plotted, input_plots};
    let (r, analyses, compared) = analysed(result, s)?;
    let run = Plotted {
        result: &r,
        analyses: &analyses,
        compared: &compared,
        label: None,
    };
    let Some((path, name)) = baseline else {
        return Ok(input_plots(&[run]));
    };
    let (old, old_analyses, old_compared) = analysed(path, s)?;
    let label = format!("baseline {name}");
    Ok(input_plots(&[
        run,
        Plotted {
            result: &old,
            analyses: &old_analyses,
            compared: &old_compared,
            label: Some(&label),
        },
    ]))
}

/// Writes the run's HTML report again with `extra` comparisons added to its own (with the
/// baseline or the other build: the report is written when the run ends, before they are made),
/// when a report was asked for; the run's `result` file is read back and analysed as the run
/// analysed it. With `baseline` (its file and name), the plots of functions against their
/// inputs draw the baseline's lines beside the run's.
///
/// # Errors
/// The result file or the baseline cannot be read, or the report written.
pub fn report_with(
    result: &Path,
    s: &RunSettings,
    extra: &[crate::comparisons::Computed],
    baseline: Option<(&Path, &str)>,
) -> crate::error::Result<()> {
    let Some(html) = &s.exports.files.html else {
        return Ok(());
    };
    let (mut r, analyses, compared) = analysed(result, s)?;
    r.comparisons.extend(crate::comparisons::records(extra));
    let title = crate::report_view::title(&r);
    let mut view = crate::report_view::build(&r, &analyses, &compared, &title);
    // A baseline's comparisons were measured in separate runs: their verdicts say so.
    let from = view.comparisons.len().saturating_sub(extra.len());
    for (row, c) in view.comparisons[from..].iter_mut().zip(extra) {
        let suffix = rigor_report::comparison::apart_suffix(c.apart, c.comparison.verdict);
        if !row.verdict.ends_with(suffix) {
            row.verdict.push_str(suffix);
        }
    }
    if baseline.is_some() {
        let plots = across_inputs(result, s, baseline)?;
        if !plots.is_empty() {
            view.parameters = plots;
        }
    }
    crate::exports::write_view(html, &view)
}

/// The note a run that compares minimums without `--against` (with `--reference` or a baseline)
/// ends with: their intervals cover the run's executions, not how a minimum moves between sessions (`baseline`: it was compared
/// with a baseline saved in another session).
pub fn within_run_note(s: &RunSettings, baseline: bool) -> Option<Note> {
    // Only beside comparisons: a run that compared nothing has no verdict to qualify.
    (s.comparison.estimator == rigor_stats::Estimator::Min && (s.comparison.enabled || baseline))
        .then_some(Note::MinimumWithinRun { baseline })
}

mod against;
pub use against::*;
mod layouts;
pub use layouts::*;

#[cfg(test)]
mod tests;
