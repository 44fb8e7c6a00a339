//! `rigor bench` around `rigor run`'s use case: the bench targets built, listed and selected
//! ([`discover`]), each benchmark's evaluations per sample tuned ([`evals`]), the run's settings
//! with one benchmark per function ([`settings`]), and the baselines a run is saved as and
//! compared with ([`Baselines`]) — or another build of the project measured together with this
//! one ([`against`], [`settings_against`], [`against_compared`]).

use std::path::{Path, PathBuf};

use rigor_report::notes::{GroupSetting, Note};
use rigor_units::{Seconds, TimeUnit};

use crate::cargo_bench::{self, CargoBenchError, CargoSettings, Listed, Listing, Selected, Target};
use crate::saved::{CompareFilesSettings, ComparedFiles};
use crate::settings::{Resolved, RunRequest, RunSettings};

type Result<T, E = CargoBenchError> = std::result::Result<T, E>;

/// Where `--save-baseline NAME` and `--baseline NAME` keep results.
pub const BASELINES: &str = ".rigor/baselines";

/// The file of the baseline `name`, a plain file name.
///
/// # Errors
/// [`CargoBenchError::BaselineName`] for a path or a hidden name.
pub fn baseline_path(name: &str) -> Result<PathBuf> {
    if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
        return Err(CargoBenchError::BaselineName(name.to_string()));
    }
    Ok(Path::new(BASELINES).join(format!("{name}.json")))
}

/// The baselines of a run: the one it is saved as, and the one it is compared with (which
/// exists).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baselines {
    /// `--save-baseline`'s file.
    pub save: Option<PathBuf>,
    /// `--baseline`'s file.
    pub compare: Option<PathBuf>,
}

impl Baselines {
    /// The files of `--save-baseline save` and `--baseline compare`, checked.
    ///
    /// # Errors
    /// A name that is no plain file name, or a baseline to compare with that is not there.
    pub fn new(save: Option<&str>, compare: Option<&str>) -> Result<Self> {
        let compare = match compare {
            Some(name) => {
                let path = baseline_path(name)?;
                if !path.exists() {
                    return Err(CargoBenchError::NoBaseline {
                        path,
                        name: name.to_string(),
                    });
                }
                Some(path)
            }
            None => None,
        };
        let save = save.map(baseline_path).transpose()?;
        Ok(Self { save, compare })
    }

    /// Where the run's result goes: the file asked for, else the baseline it is saved as, else
    /// (to compare it) `temp`; the folder of a baseline to save is made.
    ///
    /// # Errors
    /// [`CargoBenchError::Baseline`] when the folder cannot be made.
    pub fn result_path(&self, asked: Option<PathBuf>, temp: &Path) -> Result<Option<PathBuf>> {
        if let Some(dir) = self.save.as_deref().and_then(Path::parent) {
            std::fs::create_dir_all(dir).map_err(|source| CargoBenchError::Baseline {
                what: "creating",
                path: dir.to_path_buf(),
                source,
            })?;
        }
        Ok(asked
            .or_else(|| self.save.clone())
            .or_else(|| self.compare.as_ref().map(|_| temp.join("result.json"))))
    }

    /// Saves `result` as the baseline to save, if any, and as the newest of its sessions
    /// ([`sessions_of`]: the last [`SESSIONS_KEPT`] are kept); the note saying so.
    ///
    /// # Errors
    /// [`CargoBenchError::Baseline`] when it cannot be copied.
    pub fn keep(&self, result: &Path) -> Result<Option<Note>> {
        let Some(saved) = &self.save else {
            return Ok(None);
        };
        let failed = |what: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| CargoBenchError::Baseline { what, path, source }
        };
        if saved != result {
            std::fs::copy(result, saved).map_err(failed("saving the baseline", saved))?;
        }
        let dir = sessions_dir(saved);
        std::fs::create_dir_all(&dir).map_err(failed("creating", &dir))?;
        let mut kept = session_files(&dir);
        let next = kept
            .last()
            .and_then(|p| p.file_stem()?.to_str()?.parse::<u64>().ok())
            .map_or(1, |n| n + 1);
        let file = dir.join(format!("{next:06}.json"));
        std::fs::copy(result, &file).map_err(failed("saving the baseline's session", &file))?;
        kept.push(file);
        for old in kept.iter().take(kept.len().saturating_sub(SESSIONS_KEPT)) {
            std::fs::remove_file(old).map_err(failed("removing an old session", old))?;
        }
        Ok(Some(Note::BaselineSaved(saved.clone())))
    }
}

/// How many sessions of a baseline are kept to tell how far a statistic moves between
/// sessions.
pub const SESSIONS_KEPT: usize = 20;

/// The folder of the sessions a baseline was saved in: `.rigor/baselines/NAME.sessions/`.
pub fn sessions_dir(baseline: &Path) -> PathBuf {
    baseline.with_extension("sessions")
}

/// The session files of a baseline's folder, oldest first.
fn session_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// The results of the sessions `baseline` was saved in (each `--save-baseline` is one), oldest
/// first: its sessions folder, or the baseline alone when it has none (saved by an older rigor).
/// Unreadable session files are skipped.
pub fn sessions_of(baseline: &Path) -> Vec<rigor_store::ResultFile> {
    let files = session_files(&sessions_dir(baseline));
    let files = if files.is_empty() {
        vec![baseline.to_path_buf()]
    } else {
        files
    };
    files
        .iter()
        .filter_map(|f| rigor_store::load(f).ok())
        .collect()
}

/// Each comparison with a saved baseline widened by how far its statistic moved between the
/// baseline's sessions ([`rigor_stats::compare::Comparison::widen_for_sessions`]): with one
/// session the verdict is inconclusive. `estimator` is the statistic compared.
pub fn widen_for_sessions(
    compared: &mut [crate::comparisons::Computed],
    sessions: &[rigor_store::ResultFile],
    estimator: rigor_stats::Estimator,
) {
    widen_by(compared, |name| {
        let values: Vec<f64> = sessions
            .iter()
            .filter_map(|r| r.benchmarks.iter().find(|b| b.name == name))
            .filter_map(|b| {
                let h = b.hierarchy().ok()?;
                Some(match estimator {
                    rigor_stats::Estimator::Mean => rigor_stats::descriptive::mean(&h.top_means()),
                    e => e.apply(h.values()),
                })
            })
            .collect();
        rigor_stats::compare::SessionSpread::of(&values)
    });
}

/// [`widen_for_sessions`] with each benchmark's spread between sessions from `spread` (by the
/// baseline's name): the widened comparisons' verdicts come from their widened intervals, and the
/// false-discovery control is redone over the p-values as they now are (a q-value computed
/// before widening could be far below its comparison's p-value).
fn widen_by(
    compared: &mut [crate::comparisons::Computed],
    spread: impl Fn(&str) -> Option<rigor_stats::compare::SessionSpread>,
) {
    let mut widened = false;
    for c in compared.iter_mut() {
        let name = c
            .baseline
            .strip_suffix(crate::comparisons::OLD)
            .unwrap_or(&c.baseline);
        if let Some(spread) = spread(name) {
            c.comparison.widen_for_sessions(spread);
            c.fdr_demoted = false;
            widened = true;
        }
    }
    if let (true, Some(level)) = (widened, compared.first().map(|c| c.comparison.level)) {
        crate::comparisons::control_fdr(compared, level);
    }
}

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
    if selected.is_empty() && !list {
        return Err(CargoBenchError::NoMatch(filters.join(", ")));
    }
    Ok((selected, notes))
}

/// Evaluations per sample: `fixed` (`--evals`) for every benchmark, else the evaluations its
/// group fixes, else tuned once per benchmark (the consecutive benchmarks of one target in one
/// process), each tuning told to `told` as it is known.
///
/// # Errors
/// A harness that fails to tune.
pub fn evals(
    selected: &[Selected],
    fixed: Option<u64>,
    told: &mut dyn FnMut(Note),
) -> Result<Vec<u64>> {
    if let Some(n) = fixed {
        return Ok(vec![n; selected.len()]);
    }
    let mut out: Vec<Option<u64>> = selected.iter().map(|s| s.listed.evals).collect();
    let untuned: Vec<usize> = (0..selected.len()).filter(|&i| out[i].is_none()).collect();
    if !untuned.is_empty() {
        told(Note::Tuning(untuned.len()));
    }
    for group in untuned.chunk_by(|&a, &b| selected[a].target == selected[b].target) {
        let names: Vec<String> = group
            .iter()
            .map(|&i| selected[i].function.clone())
            .collect();
        let target = &selected[group[0]].target;
        for (&i, t) in group.iter().zip(cargo_bench::tune(target, &names)?) {
            told(Note::Tuned {
                name: selected[i].name.clone(),
                evals: t.evals,
                per_eval: t.per_eval_ns.map(|ns| Seconds::from_unit(ns, TimeUnit::Ns)),
                allocs: t.allocs.map(|a| (a.allocations, a.bytes)),
            });
            out[i] = Some(t.evals);
        }
    }
    Ok(out.into_iter().map(|e| e.unwrap_or(1)).collect())
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
    let iterations_given = request.iterations.is_some();
    let mut resolved = request.resolve()?;
    let s = &mut resolved.settings;
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
    let mut comparison = s.comparison.clone();
    comparison.enabled = true;
    let mut compared = crate::saved::compare(&CompareFilesSettings {
        old: vec![old.to_path_buf()],
        new: vec![new.to_path_buf()],
        // Both are rigor's own result files.
        format: None,
        seed: s.runner.seed,
        analysis: s.analysis,
        comparison,
        // The first metric asked for, as the tables show.
        metrics: s.metrics.first().cloned().into_iter().collect(),
    })
    .map_err(|e| CargoBenchError::Compare {
        path: old.to_path_buf(),
        source: Box::new(e),
    })?;
    // The baseline was measured in other sessions: its verdicts carry how far a session moves
    // the statistic (issue: a minimum's interval covers one session only).
    widen_for_sessions(
        &mut compared.comparisons,
        &sessions_of(old),
        s.comparison.estimator,
    );
    compared.decide(s.comparison.fail_on);
    Ok(compared)
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
    if baseline.is_some() {
        let plots = across_inputs(result, s, baseline)?;
        if !plots.is_empty() {
            view.parameters = plots;
        }
    }
    crate::exports::write_view(html, &view)
}

/// The note a run that compares minimums without `--against` ends with: their intervals cover
/// the run's executions, not how a minimum moves between sessions (`baseline`: it was compared
/// with a baseline saved in another session).
pub fn within_run_note(s: &RunSettings, baseline: bool) -> Option<Note> {
    (s.comparison.estimator == rigor_stats::Estimator::Min)
        .then_some(Note::MinimumWithinRun { baseline })
}

/// The other build `rigor bench --against` measures together with the current one.
#[derive(Debug, Clone)]
pub struct Against {
    /// How to build it: the current settings with the other copy's manifest, built into a
    /// target folder of its own.
    pub cargo: CargoSettings,
    /// The other build as the user named it: a revision, or a folder.
    pub label: String,
    /// For a revision, where it is checked out (kept among the checkouts that `rigor track`
    /// keeps, `.rigor/checkouts`, so a second comparison reuses the build).
    pub checkout: Option<PathBuf>,
}

/// Finds the other build of `--against WHAT`: a folder holding the other copy of the current
/// project (the folder of its `Cargo.toml`), or a revision of the repository the project is
/// in, checked out (once: the checkout is kept) at the same place in the tree.
///
/// # Errors
/// [`CargoBenchError::Against`] when WHAT is neither, or the checkout fails; cargo's errors
/// when the current manifest cannot be located.
pub fn against(cargo: &CargoSettings, what: &str) -> Result<Against> {
    let fail = |reason: String| CargoBenchError::Against {
        against: what.to_string(),
        reason,
    };
    let manifest = cargo_bench::manifest(cargo)?;
    let name = manifest
        .file_name()
        .map_or_else(|| "Cargo.toml".into(), |n| n.to_os_string());
    let dir = Path::new(what);
    let (other, checkout) = if dir.is_dir() {
        let other = dir.join(&name);
        if !other.is_file() {
            return Err(fail(format!(
                "the folder has no {} (give the other copy of the folder of {})",
                name.to_string_lossy(),
                manifest.display()
            )));
        }
        (other, None)
    } else {
        let here = manifest.parent().unwrap_or(Path::new("."));
        let root = crate::git::run(here, &["rev-parse", "--show-toplevel"]).map_err(|_| {
            fail(format!(
                "not a folder, and {} is not in a git repository to take it as a revision of",
                here.display()
            ))
        })?;
        let root = PathBuf::from(root);
        let root = root.canonicalize().unwrap_or(root);
        let version = crate::git::resolve(&root, what).map_err(|e| fail(e.to_string()))?;
        let within = manifest
            .strip_prefix(&root)
            .map_err(|_| {
                fail(format!(
                    "{} is not inside {}",
                    manifest.display(),
                    root.display()
                ))
            })?
            .to_path_buf();
        let store = crate::checkouts::Checkouts::open(&root, &root.join(".rigor/checkouts"), 20)
            .map_err(|e| fail(e.to_string()))?;
        let c = store
            .get(
                &version,
                None,
                &crate::checkouts::Artifacts::None,
                &rigor_runner::StopSignal::new(),
            )
            .map_err(|e| fail(e.to_string()))?;
        let other = c.path.join(&within);
        if !other.is_file() {
            return Err(fail(format!("the revision has no {}", within.display())));
        }
        (other, Some(c.path))
    };
    let target_dir = other
        .parent()
        .map_or_else(|| PathBuf::from("target"), |p| p.join("target"));
    Ok(Against {
        cargo: CargoSettings {
            manifest_path: Some(other),
            target_dir: Some(target_dir),
            ..cargo.clone()
        },
        label: what.to_string(),
        checkout,
    })
}

/// The name of a benchmark of the other build in a run with both: `NAME @ LABEL`.
pub fn against_name(name: &str, label: &str) -> String {
    format!("{name} @ {label}")
}

/// `rigor run`'s settings for both builds measured together: for each selected benchmark of the
/// current build that the other build has too, the other's (named [`against_name`], version
/// `label`) then the current one's, each with the evaluations tuned on the current build (the
/// same work per sample on both sides). Also returns the names only one build has.
///
/// # Errors
/// What [`RunRequest::resolve`] finds.
pub fn settings_against(
    selected: &[Selected],
    other: &[Selected],
    evals: &[u64],
    request: RunRequest,
    label: &str,
) -> Result<(Resolved, Vec<String>), crate::RequestError> {
    let mut both = Vec::new();
    let mut both_evals = Vec::new();
    let mut versions = Vec::new();
    let mut alone = Vec::new();
    for (s, &e) in selected.iter().zip(evals) {
        match other.iter().find(|o| o.name == s.name) {
            Some(o) => {
                both.push(Selected {
                    name: against_name(&o.name, label),
                    ..o.clone()
                });
                both.push(s.clone());
                both_evals.extend([e, e]);
                versions.extend([Some(label.to_string()), None]);
            }
            None => alone.push(s.name.clone()),
        }
    }
    alone.extend(
        other
            .iter()
            .filter(|o| !selected.iter().any(|s| s.name == o.name))
            .map(|o| against_name(&o.name, label)),
    );
    let mut resolved = settings(&both, &both_evals, request)?;
    resolved.settings.versions = versions;
    Ok((resolved, alone))
}

/// The comparisons of a run of both builds (its result file `result`): each benchmark of the
/// current build against the other build's, paired by the rounds they ran in.
///
/// # Errors
/// [`CargoBenchError::Compare`] when the result cannot be read or compared.
pub fn against_compared(result: &Path, label: &str, s: &RunSettings) -> Result<ComparedFiles> {
    let fail = |e| CargoBenchError::Compare {
        path: result.to_path_buf(),
        source: Box::new(e),
    };
    let both = crate::saved::load(result, None).map_err(fail)?;
    let suffix = format!(" @ {label}");
    let (mut old, mut new) = (both.clone(), both);
    old.benchmarks
        .retain(|b| b.version.as_deref() == Some(label));
    for b in &mut old.benchmarks {
        if let Some(name) = b.name.strip_suffix(&suffix) {
            b.name = name.to_string();
        }
    }
    new.benchmarks
        .retain(|b| b.version.as_deref() != Some(label));
    let mut comparison = s.comparison.clone();
    comparison.enabled = true;
    let mut compared = crate::saved::compare_loaded(
        old,
        new,
        &CompareFilesSettings {
            old: vec![result.to_path_buf()],
            new: vec![result.to_path_buf()],
            format: None,
            seed: s.runner.seed,
            analysis: s.analysis,
            comparison,
            metrics: Vec::new(),
        },
        true,
    )
    .map_err(fail)?;
    // The two builds by their names, not as the old and the new file of a comparison.
    let rename = |baseline: &mut String, candidate: &mut String| {
        if let Some(name) = baseline.strip_suffix(crate::comparisons::OLD) {
            *baseline = against_name(name, label);
        }
        if let Some(name) = candidate.strip_suffix(crate::comparisons::NEW) {
            *candidate = name.to_string();
        }
    };
    for c in &mut compared.comparisons {
        rename(&mut c.baseline, &mut c.candidate);
    }
    for w in &mut compared.warnings {
        if let rigor_store::Warning::NotCompared {
            baseline,
            candidate,
            ..
        } = w
        {
            rename(baseline, candidate);
        }
    }
    Ok(compared)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pair `--against` cannot compare (a minimum of 0: the first sample of each execution
    /// below the clock's step) is named by the builds' names in its warning, not as the old and
    /// new file of a comparison; the other pair stands.
    #[test]
    fn a_pair_against_the_other_build_that_cannot_be_compared_is_named_by_its_builds() {
        let file =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/against_zero_minimum.json");
        let mut request = RunRequest {
            commands: vec!["mean=1ms".into()],
            simulate: true,
            ..RunRequest::default()
        };
        request.comparison.estimator = rigor_stats::Estimator::Min;
        let settings = request.resolve().unwrap().settings;
        let compared = against_compared(&file, "other", &settings).unwrap();
        assert_eq!(compared.comparisons.len(), 1);
        assert_eq!(compared.comparisons[0].candidate, "steady");
        let said: Vec<String> = compared.warnings.iter().map(ToString::to_string).collect();
        assert!(
            said.iter()
                .any(|w| w.contains("'zero' could not be compared with 'zero @ other'")),
            "{said:?}"
        );
        assert!(
            !said
                .iter()
                .any(|w| w.contains("(new)") || w.contains("(old)")),
            "{said:?}"
        );
    }

    fn selected(name: &str, listed: Listed) -> Selected {
        Selected {
            name: name.into(),
            function: name.into(),
            target: Target {
                name: "t".into(),
                executable: "/x/t".into(),
                dir: "/p".into(),
            },
            listed,
        }
    }

    /// `fib` alone; `sort/std/10` and `sort/std/1000` of the group `sort`, whose settings are 7
    /// samples, 3 evaluations and no warm-up.
    fn suite() -> Vec<Selected> {
        let sort = |input: &str| Listed {
            name: format!("sort/std/{input}"),
            group: Some("sort".into()),
            function: Some("std".into()),
            input: Some(input.into()),
            samples: Some(7),
            evals: Some(3),
            warm_up_s: Some(0.0),
        };
        vec![
            selected("fib", Listed::named("fib")),
            selected("sort/std/10", sort("10")),
            selected("sort/std/1000", sort("1000")),
        ]
    }

    fn request(iterations: Option<usize>) -> RunRequest {
        RunRequest {
            seed: Some(rigor_units::Seed(1)),
            iterations,
            ..RunRequest::default()
        }
    }

    /// A baseline comparison of `ratio` (10 executions of 5 samples each side), named `name`.
    fn computed(name: &str, ratio: f64) -> crate::comparisons::Computed {
        use rigor_stats::Hierarchy;
        use rigor_stats::compare::{CompareConfig, compare};
        let unit = |m: f64| -> Vec<Vec<f64>> {
            (0..10)
                .map(|e| {
                    (0..5)
                        .map(|i| m * (1.0 + ((e * 7 + i * 3) % 5) as f64 * 1e-3))
                        .collect()
                })
                .collect()
        };
        let old = Hierarchy::two_level(["execution", "iteration"], &unit(100.0)).unwrap();
        let new = Hierarchy::two_level(["execution", "iteration"], &unit(100.0 * ratio)).unwrap();
        let cfg = CompareConfig {
            estimator: rigor_stats::Estimator::Min,
            ..CompareConfig::default()
        };
        crate::comparisons::Computed {
            baseline: format!("{name}{}", crate::comparisons::OLD),
            candidate: format!("{name}{}", crate::comparisons::NEW),
            comparison: compare(&new, &old, &cfg).unwrap(),
            overlap: None,
            q_value: None,
            fdr_demoted: false,
            kind: rigor_report::comparison::Kind::Versions,
            units: "executions".into(),
            quantity: rigor_units::Quantity::Time,
            exact: None,
        }
    }

    #[test]
    fn a_groups_settings_reach_its_benchmarks_unless_the_command_line_replaces_them() {
        let suite = suite();
        // Its evaluations are not tuned (no harness is run here: tuning would fail).
        let mut told = Vec::new();
        assert_eq!(
            evals(&suite[1..], None, &mut |n| told.push(n)).unwrap(),
            [3, 3]
        );
        assert!(told.is_empty(), "{told:?}");
        assert_eq!(evals(&suite, Some(5), &mut |_| {}).unwrap(), [5, 5, 5]);

        let r = settings(&suite, &[9, 3, 3], request(None)).unwrap();
        let s = &r.settings;
        let iterations: Vec<_> = s.benchmarks.iter().map(|b| b.iterations).collect();
        assert_eq!(iterations, [None, Some(7), Some(7)]);
        assert!(
            s.benchmarks[1]
                .command
                .argv()
                .ends_with(&["--evals".into(), "3".into()])
        );
        let notes = group_notes(&suite, s, false);
        assert_eq!(
            notes.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "group 'sort' (2 benchmarks): 7 samples per execution, 3 evaluations per sample, \
              no warm-up"
            ]
        );
        // --iterations and --evals replace the group's, and the note says so.
        let r = settings(&suite, &[5, 5, 5], request(Some(4))).unwrap();
        assert!(r.settings.benchmarks.iter().all(|b| b.iterations.is_none()));
        assert_eq!(r.settings.runner.iterations_per_execution, Some(4));
        assert_eq!(
            group_notes(&suite, &r.settings, true)[0].to_string(),
            "group 'sort' (2 benchmarks): no warm-up; --iterations replaces its 7 samples per \
             execution; --evals replaces its 3 evaluations per sample"
        );
    }

    #[test]
    fn benchmarks_with_inputs_carry_their_function_and_input_as_parameters() {
        let mut suite = suite();
        suite.push(selected(
            "sum/10",
            Listed {
                function: Some("sum".into()),
                input: Some("10".into()),
                ..Listed::named("sum/10")
            },
        ));
        let r = settings(&suite, &[1, 1, 1, 1], request(None)).unwrap();
        let p: Vec<Vec<(&str, &str)>> = r
            .settings
            .parameters
            .iter()
            .map(|m| m.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect())
            .collect();
        assert_eq!(
            p,
            [
                vec![],
                vec![("function", "sort/std"), ("group", "sort"), ("input", "10")],
                vec![
                    ("function", "sort/std"),
                    ("group", "sort"),
                    ("input", "1000")
                ],
                vec![("function", "sum"), ("input", "10")],
            ]
        );
        // Without inputs, no parameters at all (as before groups).
        let r = settings(&suite[..1], &[1], request(None)).unwrap();
        assert!(r.settings.parameters.iter().all(|m| m.is_empty()));
    }

    #[test]
    fn a_baseline_comparison_widened_for_its_sessions_has_its_q_value_redone() {
        // Two clear changes; the first benchmark's sessions moved by 20%, the second's by 0.1%.
        let mut compared = vec![computed("a", 1.1), computed("b", 1.1)];
        crate::comparisons::control_fdr(&mut compared, 0.95);
        assert!(compared.iter().all(|c| c.q_value.unwrap() < 0.01));
        widen_by(&mut compared, |name| {
            Some(rigor_stats::compare::SessionSpread {
                sessions: 3,
                sigma_log: Some(if name == "a" { 0.2 } else { 0.001 }),
            })
        });
        let (a, b) = (&compared[0], &compared[1]);
        assert_eq!(
            a.comparison.verdict,
            rigor_stats::compare::Verdict::Inconclusive
        );
        assert_eq!(a.comparison.p_value, 1.0);
        // Not the q-value of the narrow interval (it was below 0.01): none is below its p.
        assert_eq!(a.q_value, Some(1.0));
        assert!(b.comparison.verdict.is_change());
        assert!(b.q_value.unwrap() >= b.comparison.p_value);
    }

    #[test]
    fn baseline_names_are_plain_file_names() {
        assert_eq!(
            baseline_path("main").unwrap(),
            Path::new(".rigor/baselines/main.json")
        );
        for bad in ["", "../x", "a/b", ".hidden"] {
            assert!(baseline_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_result_goes_where_asked_else_to_the_baseline_else_beside_it() {
        let temp = Path::new("/tmp/x");
        let none = Baselines::default();
        assert_eq!(none.result_path(None, temp).unwrap(), None);
        let compare = Baselines {
            save: None,
            compare: Some("old.json".into()),
        };
        let asked = Some(PathBuf::from("r.json"));
        assert_eq!(compare.result_path(asked.clone(), temp).unwrap(), asked);
        assert_eq!(
            compare.result_path(None, temp).unwrap(),
            Some(temp.join("result.json"))
        );
    }
}
