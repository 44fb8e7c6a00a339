//! The baselines of `rigor bench`: the file a run is saved as (`--save-baseline NAME`) and
//! compared with (`--baseline NAME`), the sessions each baseline keeps, and the widening of a
//! comparison with a baseline by how far its statistic moved between those sessions.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rigor_report::notes::Note;

use crate::cargo_bench::CargoBenchError;

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
            crate::project::keep_out_of_git(dir);
        }
        Ok(asked
            .or_else(|| self.save.as_deref().map(measuring_path))
            .or_else(|| self.compare.as_ref().map(|_| temp.join("result.json"))))
    }

    /// The evaluations per sample each benchmark of the baseline was measured with, by name:
    /// from the baseline compared with, else the one saved to when it exists (its sessions are
    /// then measured alike). Empty when there is none or it cannot be read.
    pub fn evals(&self) -> HashMap<String, u64> {
        let Some(path) = self.compare.as_ref().or(self.save.as_ref()) else {
            return HashMap::new();
        };
        let Ok(r) = rigor_store::file::load(path) else {
            return HashMap::new();
        };
        r.benchmarks
            .iter()
            .filter_map(|b| Some((b.name.clone(), evals_of(&b.command)?)))
            .collect()
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
        // A run of some of the baseline's benchmarks (a filter, `--exact`) updates those and
        // keeps the others, as criterion keeps a baseline per benchmark: it replaced the whole
        // file, and the next `--baseline` had nothing to compare the others with.
        let mut from_before = 0;
        let mut measured = 0;
        if saved != result {
            let mut new = rigor_store::file::load(result).map_err(CargoBenchError::SaveBaseline)?;
            // An interrupted run (Ctrl-C, SIGTERM) replaced a whole baseline with its few
            // executions and counted them as a session: the baseline stays, the run's data is
            // kept beside it.
            if new.status != rigor_store::RunStatus::Complete {
                return Ok(Some(Note::BaselineNotSaved {
                    path: saved.clone(),
                    measured: result.to_path_buf(),
                }));
            }
            measured = new.benchmarks.len();
            if let Ok(old) = rigor_store::file::load(saved) {
                for b in old.benchmarks {
                    if !new.benchmarks.iter().any(|n| n.name == b.name) {
                        new.benchmarks.push(b);
                        from_before += 1;
                    }
                }
            }
            rigor_store::file::save(saved, &new).map_err(CargoBenchError::SaveBaseline)?;
        }
        let dir = sessions_dir(saved);
        std::fs::create_dir_all(&dir).map_err(failed("creating", &dir))?;
        crate::project::keep_out_of_git(&dir);
        let mut kept = session_files(&dir);
        let next = kept
            .last()
            .and_then(|p| p.file_stem()?.to_str()?.parse::<u64>().ok())
            .map_or(1, |n| n + 1);
        let file = dir.join(format!("{next:06}.json"));
        // The session is what this run measured, without the benchmarks kept from before.
        std::fs::copy(result, &file).map_err(failed("saving the baseline's session", &file))?;
        if *result == measuring_path(saved) {
            let _ = std::fs::remove_file(result);
        }
        kept.push(file);
        for old in kept.iter().take(kept.len().saturating_sub(SESSIONS_KEPT)) {
            std::fs::remove_file(old).map_err(failed("removing an old session", old))?;
        }
        Ok(Some(if from_before > 0 {
            Note::BaselineKept {
                path: saved.clone(),
                measured,
                kept: from_before,
            }
        } else {
            Note::BaselineSaved(saved.clone())
        }))
    }
}

/// The `--evals N` of a bench command as a result records it (quoted words, the harness's
/// flags last).
fn evals_of(command: &str) -> Option<u64> {
    let words = shell_words::split(command).ok()?;
    let at = words.iter().rposition(|w| w == "--evals")?;
    words.get(at + 1)?.parse().ok()
}

/// Where a run saving baseline `saved` writes as it measures: beside it, so that a killed run
/// keeps what it measured and leaves the previous baseline whole (`NAME.json.measuring`).
fn measuring_path(saved: &Path) -> PathBuf {
    let mut name = saved.as_os_str().to_owned();
    name.push(".measuring");
    PathBuf::from(name)
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
                    e => e.of_hierarchy(&h),
                })
            })
            .collect();
        rigor_stats::compare::SessionSpread::of(&values)
    });
}

/// Each comparison of two results measured in separate runs, one run a side, as a baseline of
/// one session: its interval unbounded and its verdict inconclusive, since nothing measured
/// how far a run moves the statistic on this machine. Within a run's own noise, separate quiet
/// runs of one binary on this machine differed by up to 11% within three minutes (means of
/// 74.2, 72.3, 70.7 and 67.0 ms), and 52 of 120 A/A comparisons of separate runs were false
/// alarms for wall time (docs/validation/metrics.md): their intervals, each run's own, do not
/// cover the difference between runs.
/// Only times: counts, memory and what a program reported do not move with the machine
/// ([`crate::conditions::bear_on`]). The suite's mean is dropped, and a note that a verdict
/// stands ([`rigor_store::Warning::WaitsDiffer`]); the outcome is decided again under
/// `settings`.
pub(crate) fn one_run_each(
    compared: &mut crate::saved::ComparedFiles,
    settings: &crate::settings::ComparisonSettings,
) {
    if !crate::conditions::bear_on(&compared.metric) {
        return;
    }
    for c in &mut compared.comparisons {
        c.apart = Some(rigor_report::comparison::Apart::Runs);
    }
    widen_by(&mut compared.comparisons, |_| {
        Some(rigor_stats::compare::SessionSpread {
            sessions: 1,
            sigma_log: None,
        })
    });
    compared.suite = None;
    compared
        .warnings
        .retain(|w| !matches!(w, rigor_store::Warning::WaitsDiffer { .. }));
    compared.decide(settings.fail_on);
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
        // A withheld comparison has no interval to widen, and its sessions' spread would read
        // as a figure of a verdict it does not have.
        if c.comparison.withheld {
            continue;
        }
        if let Some(spread) = spread(name) {
            c.comparison.widen_for_sessions(spread);
            c.fdr_demoted = false;
            // The non-overlap rule sets the run's intervals side by side, which cover neither
            // session's shift: under a widened verdict it read as a second verdict, of a change.
            c.overlap = None;
            widened = true;
        }
    }
    if let (true, Some(level)) = (widened, compared.first().map(|c| c.comparison.level)) {
        crate::comparisons::control_fdr(compared, level);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bench_commands_evaluations_are_read_back() {
        assert_eq!(
            evals_of("'/t/my bench' --bench --exact 'sum/10' --evals 37"),
            Some(37)
        );
        assert_eq!(evals_of("/t/b --bench --exact --evals --evals 5"), Some(5));
        assert_eq!(evals_of("/t/b --bench --exact x"), None);
        assert_eq!(evals_of("/t/b --evals"), None);
        assert_eq!(evals_of("'unclosed --evals 3"), None);
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
            apart: None,
        }
    }

    /// A comparison withheld for its conditions (p = 1) has its q-value redone with the others':
    /// no q below its p ("p = 1.000, q < 0.001" was shown for two runs under other loads).
    #[test]
    fn a_withheld_comparison_has_its_q_value_redone() {
        let mut compared = vec![computed("a", 1.1), computed("b", 1.1)];
        crate::comparisons::control_fdr(&mut compared, 0.95);
        assert!(compared.iter().all(|c| c.q_value.unwrap() < 0.01));
        let load = rigor_store::Warning::ContentionDiffers {
            benchmark: "a".into(),
            against: rigor_store::ComparedWith::OldResult,
            candidate: 510,
            candidate_high: None,
            others_low: 997,
            others_high: 997,
        };
        assert!(
            crate::conditions::withhold(&mut compared, &load, rigor_store::ComparedWith::OldResult)
                .any
        );
        assert!(compared[0].comparison.withheld);
        assert_eq!(compared[0].comparison.p_value, 1.0);
        assert_eq!(compared[0].q_value, Some(1.0));
        for c in &compared {
            assert!(c.q_value.unwrap() >= c.comparison.p_value, "{c:?}");
        }
        // The other still holds: its q among two, one of them at p = 1.
        assert!(compared[1].q_value.unwrap() < 0.01);
        assert!(compared[1].comparison.verdict.is_change());
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
        // A comparison withheld for its conditions is left as it was, with no sessions' spread.
        let mut withheld = vec![computed("c", 1.1)];
        withheld[0].comparison.withhold();
        let before = withheld[0].comparison;
        widen_by(&mut withheld, |_| {
            Some(rigor_stats::compare::SessionSpread {
                sessions: 3,
                sigma_log: Some(0.01),
            })
        });
        assert_eq!(withheld[0].comparison, before);
        assert!(withheld[0].comparison.between_sessions.is_none());
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

    /// A save of some of a baseline's benchmarks (`--exact mix --save-baseline v3`) updates
    /// those and keeps the others; the session holds only what was measured; a killed run's
    /// file was beside the baseline, which stayed whole until the run ended.
    #[test]
    fn a_filtered_save_keeps_the_baselines_other_benchmarks() {
        use rigor_store::{BenchmarkRecord, ResultFile, layout::Layout};
        let dir = tempfile::tempdir().unwrap();
        let saved = dir.path().join("v3.json");
        let result = |names: &[&str], value: f64| {
            let mut r = ResultFile::new(
                rigor_units::Seed(1),
                rigor_units::ConfidenceLevel::NINETY_FIVE,
            );
            for name in names {
                let mut b = BenchmarkRecord::new(*name, *name, Layout::new(false, false));
                b.samples = (0..2)
                    .map(|i| rigor_store::schema::SampleRecord {
                        build: None,
                        round: i,
                        execution: i,
                        iteration: 0,
                        value,
                        warmup: false,
                    })
                    .collect();
                r.benchmarks.push(b);
            }
            r
        };
        let b = Baselines {
            save: Some(saved.clone()),
            compare: None,
        };
        let first = b.result_path(None, dir.path()).unwrap().unwrap();
        assert_eq!(first, dir.path().join("v3.json.measuring"));
        rigor_store::file::save(&first, &result(&["mix", "sort"], 1.0)).unwrap();
        b.keep(&first).unwrap();
        assert!(!first.exists());
        rigor_store::file::save(&first, &result(&["mix"], 2.0)).unwrap();
        let note = b.keep(&first).unwrap().unwrap().to_string();
        assert!(
            note.contains("1 benchmark(s) measured now, 1 kept"),
            "{note}"
        );
        let merged = rigor_store::file::load(&saved).unwrap();
        let values: Vec<(String, f64)> = merged
            .benchmarks
            .iter()
            .map(|b| (b.name.clone(), b.samples[0].value))
            .collect();
        assert_eq!(values, [("mix".into(), 2.0), ("sort".into(), 1.0)]);
        let sessions = sessions_of(&saved);
        assert_eq!(sessions.len(), 2);
        assert_eq!(
            sessions[1].benchmarks.len(),
            1,
            "the session is what was measured"
        );
        // An interrupted run leaves the baseline and its sessions as they were, and its data
        // where it was measured (a Ctrl-C replaced a 4.6 MB baseline with 8 executions).
        let mut stopped = result(&["mix", "sort"], 9.0);
        stopped.status = rigor_store::RunStatus::Interrupted;
        rigor_store::file::save(&first, &stopped).unwrap();
        let note = b.keep(&first).unwrap().unwrap().to_string();
        assert!(
            note.starts_with("the run was interrupted: the baseline ")
                && note.contains("is left as it was"),
            "{note}"
        );
        assert!(first.exists());
        assert_eq!(rigor_store::file::load(&saved).unwrap(), merged);
        assert_eq!(sessions_of(&saved).len(), 2);
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
