//! `rigor bench`: a Cargo project's rigor-bench targets, measured as rigor benchmarks.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rigor_app::Outcome;
use rigor_app::cargo_bench::{self, CargoSettings, Listing, Selected, Target};
use rigor_app::saved::CompareFilesSettings;
use rigor_app::settings::{BuildDir, RunSettings};
use rigor_stats::Estimator;
use rigor_units::{Seconds, TimeUnit};

use crate::cli::BenchArgs;
use crate::output::{self, emit};
use crate::{commands, settings};

/// Where `--save-baseline NAME` and `--baseline NAME` keep results.
const BASELINES: &str = ".rigor/baselines";

fn baseline_path(name: &str) -> Result<PathBuf> {
    if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
        bail!("baseline name '{name}' must be a plain file name (no '/', not starting with '.')");
    }
    Ok(Path::new(BASELINES).join(format!("{name}.json")))
}

/// `rigor bench`.
pub fn bench(args: &BenchArgs) -> Result<Outcome> {
    if !args.options.names.is_empty() {
        bail!("--name is not used by rigor bench: benchmarks are named after their functions");
    }
    let baseline = args.baseline.as_deref().map(baseline_path).transpose()?;
    if let Some(path) = &baseline {
        if !path.exists() {
            bail!(
                "no baseline at {}: save one with --save-baseline {}",
                path.display(),
                args.baseline.as_deref().unwrap_or_default()
            );
        }
    }
    let selected = discover(args)?;
    if args.list {
        for s in &selected {
            emit(&format!("{}\n", s.name));
        }
        return Ok(Outcome::Ok);
    }
    let evals = evals(args, &selected)?;
    let (mut s, _build_dir) = run_settings(args, &selected, &evals)?;
    let saved = args
        .save_baseline
        .as_deref()
        .map(baseline_path)
        .transpose()?;
    let temp = tempfile::tempdir().context("creating a temporary directory")?;
    let user_json = s.exports.files.json.clone();
    let result_path = match (&user_json, &saved, &baseline) {
        (Some(p), _, _) => Some(p.clone()),
        (None, Some(p), _) => Some(p.clone()),
        (None, None, Some(_)) => Some(temp.path().join("result.json")),
        (None, None, None) => None,
    };
    s.exports.files.json = result_path.clone();
    if let Some(dir) = saved.as_deref().and_then(Path::parent) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut outcome = commands::execute(&s, true)?;
    if let (Some(saved), Some(result)) = (&saved, &result_path) {
        if saved != result {
            std::fs::copy(result, saved)
                .with_context(|| format!("saving the baseline {}", saved.display()))?;
        }
        note!("rigor: baseline saved to {}", saved.display());
    }
    if let (Some(old), Some(new), Outcome::Ok) = (&baseline, &result_path, outcome) {
        outcome = against_baseline(old, new, &s)?;
    }
    Ok(outcome)
}

/// Builds, lists and selects the benchmarks.
fn discover(args: &BenchArgs) -> Result<Vec<Selected>> {
    let cargo = CargoSettings {
        cargo: CargoSettings::default_cargo(),
        manifest_path: args.manifest_path.clone(),
        package: args.package.clone(),
        benches: args.benches.clone(),
        features: args.features.clone(),
    };
    note!("rigor: building the bench targets (cargo bench --no-run)");
    let targets = cargo_bench::build(&cargo)?;
    let mut listed: Vec<(Target, Vec<String>)> = Vec::new();
    for t in targets {
        match cargo_bench::list(&t)? {
            Listing::Benchmarks(names) => listed.push((t, names)),
            Listing::NotRigorBench(said) => note!(
                "rigor: skipping bench target '{}': not a rigor-bench harness ({said})",
                t.name
            ),
        }
    }
    if listed.is_empty() {
        bail!(
            "no bench target uses rigor-bench (a [[bench]] with harness = false whose main runs \
             rigor_bench::Harness)"
        );
    }
    let selected = cargo_bench::select(&listed, &args.filters, args.exact);
    if selected.is_empty() && !args.list {
        bail!(
            "no benchmark matches {}: `rigor bench --list` lists them",
            args.filters.join(", ")
        );
    }
    Ok(selected)
}

/// Evaluations per sample: `--evals`, or tuned once per benchmark (one process per target).
fn evals(args: &BenchArgs, selected: &[Selected]) -> Result<Vec<u64>> {
    if let Some(n) = args.evals {
        return Ok(vec![n; selected.len()]);
    }
    note!(
        "rigor: tuning evaluations per sample for {} benchmark(s)",
        selected.len()
    );
    let mut out = Vec::with_capacity(selected.len());
    let mut i = 0;
    while i < selected.len() {
        // Consecutive benchmarks of one target are tuned in one process.
        let target = &selected[i].target;
        let n = selected[i..]
            .iter()
            .take_while(|s| &s.target == target)
            .count();
        let names: Vec<String> = selected[i..i + n]
            .iter()
            .map(|s| s.function.clone())
            .collect();
        for (s, t) in selected[i..i + n]
            .iter()
            .zip(cargo_bench::tune(target, &names)?)
        {
            let per_eval = t.per_eval_ns.map(|ns| Seconds::from_unit(ns, TimeUnit::Ns));
            let allocs = t.allocs.map(|a| (a.allocations, a.bytes));
            let text = rigor_report::notes::tuned(&s.name, t.evals, per_eval, allocs);
            note!("rigor: {text}");
            out.push(t.evals);
        }
        i += n;
    }
    Ok(out)
}

/// `rigor run`'s settings for the selected benchmarks, each command fixing its evaluations.
fn run_settings(
    args: &BenchArgs,
    selected: &[Selected],
    evals: &[u64],
) -> Result<(RunSettings, BuildDir)> {
    let benchmarks: Vec<_> = selected
        .iter()
        .zip(evals)
        .map(|(s, &e)| s.benchmark(e))
        .collect();
    let texts: Vec<String> = benchmarks
        .iter()
        .map(|b| shell_words::join(b.command.argv()))
        .collect();
    let mut options = args.options.clone();
    options.names = selected.iter().map(|s| s.name.clone()).collect();
    options.shell = None;
    let mut request = settings::request(&texts, &options);
    // Benchmarks of a suite are different functions: compare them only when asked to.
    request.comparison.enabled = args.options.compare.reference.is_some();
    // The minimum, unless asked otherwise: the least disturbed estimate of an in-process
    // microbenchmark (Chen & Revels 2016), its interval from the hierarchical bootstrap.
    request.comparison.estimator = (args.options.compare.estimator).unwrap_or(Estimator::Min);
    let resolved = request.resolve()?;
    let mut s = resolved.settings;
    for (b, from) in s.benchmarks.iter_mut().zip(benchmarks) {
        b.dir = from.dir;
    }
    Ok((s, resolved.build_dir))
}

/// Compares this run's result with a saved baseline, prints the verdicts and applies --fail-on.
fn against_baseline(old: &Path, new: &Path, s: &RunSettings) -> Result<Outcome> {
    let mut comparison = s.comparison.clone();
    comparison.enabled = true;
    let c = rigor_app::saved::compare(&CompareFilesSettings {
        old: vec![old.to_path_buf()],
        new: vec![new.to_path_buf()],
        // Both are rigor's own result files.
        format: None,
        seed: s.runner.seed,
        analysis: s.analysis,
        comparison,
    })
    .with_context(|| format!("comparing with the baseline {}", old.display()))?;
    emit(&format!("Against the baseline {}:\n", old.display()));
    output::warnings(&c.warnings);
    let views = rigor_app::comparisons::views(&c.comparisons);
    emit(&rigor_report::comparison::render(&views));
    Ok(c.outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
