//! `rigor bench --against REV|DIR`: another build of the project, measured together with this
//! one in interleaved rounds ([`against`], [`settings_against`], [`against_compared`]).

use std::path::{Path, PathBuf};

use super::{Result, settings};
use crate::cargo_bench::{self, CargoBenchError, CargoSettings, Selected};
use crate::saved::ComparedFiles;
use crate::settings::{Resolved, RunRequest, RunSettings};

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
        let root_manifest = c.path.join(&name);
        for m in std::iter::once(&other).chain((root_manifest != other).then_some(&root_manifest)) {
            if let Some((dep, path)) = lost_path_dependencies(m, &c.path).into_iter().next() {
                return Err(fail(format!(
                    "its {} names dependency '{dep}' by path = \"{}\", outside the repository: \
                     from rigor's checkout of it ({}) that path leads nowhere, so cargo could not \
                     build it. Name it by an absolute path (or a git or registry source), or give \
                     --against a folder holding the other copy of the project",
                    m.strip_prefix(&c.path).unwrap_or(m).display(),
                    path.display(),
                    c.path.display()
                )));
            }
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

/// The dependencies of `manifest` named by a relative path that leaves `root` (a checkout of the
/// repository) and leads to nothing there: with the user's `path = "../rigor/crates/rigor-bench"`
/// (beside the repository) cargo failed in the checkout, three folders deeper, with "failed to
/// get `rigor-bench` as a dependency … No such file or directory". Each with its path as
/// written; none when the manifest cannot be read.
fn lost_path_dependencies(manifest: &Path, root: &Path) -> Vec<(String, PathBuf)> {
    let Ok(text) = std::fs::read_to_string(manifest) else {
        return Vec::new();
    };
    let Ok(doc) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let dir = manifest.parent().unwrap_or(root);
    let tables = |t: &toml::Table| -> Vec<toml::Table> {
        ["dependencies", "dev-dependencies", "build-dependencies"]
            .iter()
            .filter_map(|k| t.get(*k)?.as_table().cloned())
            .collect()
    };
    let mut all = tables(&doc);
    if let Some(w) = doc.get("workspace").and_then(|w| w.as_table()) {
        all.extend(tables(w));
    }
    if let Some(targets) = doc.get("target").and_then(|t| t.as_table()) {
        for t in targets.values().filter_map(|t| t.as_table()) {
            all.extend(tables(t));
        }
    }
    let mut out = Vec::new();
    for deps in all {
        for (name, spec) in deps {
            let Some(path) = spec.get("path").and_then(|p| p.as_str()).map(PathBuf::from) else {
                continue;
            };
            if path.is_absolute() {
                continue;
            }
            // Lexically, as cargo joins it: `..` leaves the checkout where it climbs above it.
            let mut depth = dir.strip_prefix(root).map_or(0, |d| d.components().count());
            let mut leaves = false;
            for c in path.components() {
                match c {
                    std::path::Component::ParentDir if depth == 0 => leaves = true,
                    std::path::Component::ParentDir => depth -= 1,
                    std::path::Component::Normal(_) => depth += 1,
                    _ => {}
                }
            }
            if leaves && !dir.join(&path).exists() {
                out.push((name, path));
            }
        }
    }
    out
}

/// The name of a benchmark of the other build in a run with both: `NAME @ LABEL`.
pub fn against_name(name: &str, label: &str) -> String {
    format!("{name} @ {label}")
}

/// Whether `--until-decided` (`until_decided`) can measure `selected` against the other
/// build's `other`: one pair only. The sequence compares each benchmark with the first (the
/// reference): right for one pair, every benchmark against the first's other build for more (a
/// new user's trial). Checked before tuning, which it would otherwise follow.
///
/// # Errors
/// [`RequestError::UntilDecidedAgainst`](crate::RequestError::UntilDecidedAgainst) with the
/// number of pairs.
pub fn check_until_decided(
    selected: &[Selected],
    other: &[Selected],
    until_decided: bool,
) -> Result<(), crate::RequestError> {
    let pairs = selected
        .iter()
        .filter(|s| other.iter().any(|o| o.name == s.name))
        .count();
    if until_decided && pairs > 1 {
        return Err(crate::RequestError::UntilDecidedAgainst(pairs));
    }
    Ok(())
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
    check_until_decided(selected, other, request.until_decided)?;
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
    let settings = super::compare_settings(result, result, s);
    let both = crate::saved::load(result, None).map_err(fail)?;
    let (old, new) = split_builds(&both, label);
    // The metric asked for, as the summaries show it (wall time when none was).
    let metric = settings.metrics.first().cloned().unwrap_or_default();
    let mut compared =
        crate::saved::compare_loaded_metric(&old, &new, &settings, true, &metric).map_err(fail)?;
    name_builds(&mut compared, label);
    Ok(compared)
}

/// The other build's label in a result of two builds measured together (`rigor bench
/// --against LABEL`, read back): the version of benchmarks named [`against_name`] with it whose
/// plain name is a benchmark of this build (no version). `None` for any other result.
pub fn other_build(result: &rigor_store::ResultFile) -> Option<&str> {
    let label = result
        .benchmarks
        .iter()
        .find_map(|b| b.version.as_deref())?;
    let suffix = format!(" @ {label}");
    let pairs = result.benchmarks.iter().filter(|b| {
        b.version.as_deref() == Some(label)
            && b.name.strip_suffix(&suffix).is_some_and(|name| {
                result
                    .benchmarks
                    .iter()
                    .any(|c| c.version.is_none() && c.name == name)
            })
    });
    (pairs.count() > 0).then_some(label)
}

/// The two builds of a result of both (`label`: the other's), each as a result of its own with
/// the other build's benchmarks under their plain names: the old and the new side of a
/// comparison.
pub fn split_builds(
    both: &rigor_store::ResultFile,
    label: &str,
) -> (rigor_store::ResultFile, rigor_store::ResultFile) {
    let suffix = format!(" @ {label}");
    let (mut old, mut new) = (both.clone(), both.clone());
    old.benchmarks
        .retain(|b| b.version.as_deref() == Some(label));
    for b in &mut old.benchmarks {
        if let Some(name) = b.name.strip_suffix(&suffix) {
            b.name = name.to_string();
        }
    }
    new.benchmarks
        .retain(|b| b.version.as_deref() != Some(label));
    (old, new)
}

/// Names the two builds of `compared` (a comparison of [`split_builds`]' sides) by their
/// names, not as the old and the new file of a comparison, and leaves the busy machine to the
/// one run both sides come from (its own warning says it).
pub fn name_builds(compared: &mut ComparedFiles, label: &str) {
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
    // Both sides are one run, whose busy machine its own warning says: the comparison said it
    // again for "the old result's run" and "the new result's run" (three times in all).
    compared.warnings.retain(|w| {
        !matches!(
            w,
            rigor_store::Warning::OthersBusy { .. } | rigor_store::Warning::BusyMachine { .. }
        )
    });
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The busy machine of a run of both builds is the run's, said once by it: not again for
    /// each side of the comparison of its builds.
    #[test]
    fn the_builds_comparison_leaves_the_runs_busy_machine_to_the_run() {
        use rigor_store::{ResultSide, Warning};
        let busy = |side| Warning::OthersBusy {
            others: 131,
            cpus: 2,
            side: Some(side),
        };
        let mut compared = ComparedFiles {
            metric: rigor_units::Metric::Wall,
            comparisons: Vec::new(),
            suite: None,
            values_only: Vec::new(),
            warnings: vec![
                busy(ResultSide::Old),
                busy(ResultSide::New),
                Warning::NotCompared {
                    candidate: format!("f{}", crate::comparisons::NEW),
                    baseline: format!("f{}", crate::comparisons::OLD),
                    reason: "r".into(),
                },
            ],
            analysis_warnings: false,
            confidence: rigor_units::ConfidenceLevel::NINETY_FIVE,
            outcome: crate::Outcome::Ok,
        };
        name_builds(&mut compared, "HEAD~1");
        assert_eq!(
            compared.warnings,
            [Warning::NotCompared {
                candidate: "f".into(),
                baseline: "f @ HEAD~1".into(),
                reason: "r".into(),
            }]
        );
    }

    #[test]
    fn path_dependencies_that_leave_the_checkout_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("checkout");
        std::fs::create_dir_all(root.join("lib/inner")).unwrap();
        let manifest = root.join("lib/Cargo.toml");
        std::fs::write(
            &manifest,
            "[package]\nname = \"lib\"\n\n[dependencies]\nserde = \"1\"\n\
             inner = { path = \"inner\" }\n\n[dev-dependencies]\n\
             rigor-bench = { path = \"../../rigor/crates/rigor-bench\" }\n\n\
             [target.'cfg(unix)'.dependencies]\nfar = { path = \"/abs/far\" }\n",
        )
        .unwrap();
        assert_eq!(
            lost_path_dependencies(&manifest, &root),
            [(
                "rigor-bench".to_string(),
                PathBuf::from("../../rigor/crates/rigor-bench")
            )]
        );
        // One level up stays inside the checkout; what exists where it leads is not lost.
        std::fs::write(&manifest, "[dependencies]\nup = { path = \"../up\" }\n").unwrap();
        assert!(lost_path_dependencies(&manifest, &root).is_empty());
        std::fs::create_dir_all(dir.path().join("there")).unwrap();
        std::fs::write(
            &manifest,
            "[dependencies]\nt = { path = \"../../there\" }\n",
        )
        .unwrap();
        assert!(lost_path_dependencies(&manifest, &root).is_empty());
        // A workspace's dependencies are read too; an unreadable manifest finds nothing.
        std::fs::write(
            &manifest,
            "[workspace.dependencies]\nw = { path = \"../../w\" }\n",
        )
        .unwrap();
        assert_eq!(lost_path_dependencies(&manifest, &root).len(), 1);
        std::fs::write(&manifest, "not toml [").unwrap();
        assert!(lost_path_dependencies(&manifest, &root).is_empty());
    }
}
