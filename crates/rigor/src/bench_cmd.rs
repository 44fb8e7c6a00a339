//! `rigor bench`: a Cargo project's rigor-bench targets, measured as rigor benchmarks.

use anyhow::{Context, Result};
use rigor_app::Outcome;
use rigor_app::baselines::Baselines;
use rigor_app::bench;
use rigor_app::cargo_bench::{CargoBenchError, CargoSettings};
use rigor_report::notes::Note;
use rigor_units::Seed;

use crate::output::{self, emit};
use crate::{commands, settings};
use rigor_cli::BenchArgs;

/// `rigor bench`.
pub fn bench(args: &BenchArgs) -> Result<Outcome> {
    if !args.options.names.is_empty() {
        return Err(CargoBenchError::NameUnused.into());
    }
    if args.options.build.is_some() || args.options.build_root.is_some() {
        return Err(CargoBenchError::BuildUnused.into());
    }
    if args.options.ignore_failure.is_some() {
        return Err(CargoBenchError::IgnoreFailureUnused.into());
    }
    let baselines = Baselines::new(args.save_baseline.as_deref(), args.baseline.as_deref())?;
    let cargo = CargoSettings {
        cargo: CargoSettings::default_cargo(),
        manifest_path: args.manifest_path.clone(),
        package: args.package.clone(),
        benches: args.benches.clone(),
        features: args.features.clone(),
        target_dir: None,
    };
    // The other build of --against is found (and a revision checked out) before anything is
    // built, so a wrong one fails at once.
    let found = match &args.against {
        Some(what) if !args.list => Some(bench::against(&cargo, what)?),
        _ => None,
    };
    output::notes(&[Note::Building]);
    let (selected, skipped) = bench::discover(&cargo, &args.filters, args.exact, args.list)?;
    output::notes(&skipped);
    if args.list {
        emit(
            &selected
                .iter()
                .map(|s| format!("{}\n", s.name))
                .collect::<String>(),
        );
        return Ok(Outcome::Ok);
    }
    let estimator = args.options.compare.estimator;
    let mut request = bench::suite_request(settings::request(&[], &args.options), estimator);
    let against = match &found {
        Some(a) => {
            // Refused before the other build is made (30 s): as if it had every benchmark.
            bench::check_until_decided(&selected, &selected, request.until_decided)?;
            output::notes(&[Note::BuildingAgainst {
                against: a.label.clone(),
                checkout: a.checkout.clone(),
            }]);
            let (other, _) = bench::discover(&a.cargo, &args.filters, args.exact, false)?;
            Some((a, other))
        }
        None => None,
    };
    // Layouts need lld: known from the executables (read only where layouts may be linked),
    // before anything is tuned.
    let wanted = against.is_some() || request.builds.is_some_and(|n| n > 1);
    let lld = wanted
        && bench::lld_linked(&selected)
        && against
            .as_ref()
            .is_none_or(|(_, other)| bench::lld_linked(other));
    if let (Some((a, _)), false, None) = (&against, lld, request.builds) {
        output::notes(&[Note::LayoutsNeedLld {
            against: a.label.clone(),
        }]);
    }
    let layouts = bench::layout_builds(&mut request, against.is_some(), lld)?;
    // A baseline's benchmarks are measured with its evaluations per sample, as their minimums
    // are compared (or its sessions' spread taken).
    let kept = baselines.evals();
    let evals = bench::evals(&selected, args.evals, &kept, &request, &mut |n| {
        output::notes(&[n]);
    })?;
    // A benchmark whose tuning failed is left out (said above), the others measured; the exit
    // status says it after the run.
    let left_out: Vec<String> = selected
        .iter()
        .zip(&evals)
        .filter(|(_, e)| e.is_none())
        .map(|(s, _)| s.name.clone())
        .collect();
    if !left_out.is_empty() && left_out.len() == selected.len() {
        anyhow::bail!(
            "the tuning of every benchmark selected failed (shown above): nothing to measure"
        );
    }
    let (selected, evals): (Vec<_>, Vec<u64>) = selected
        .into_iter()
        .zip(evals)
        .filter_map(|(s, e)| e.map(|e| (s, e)))
        .unzip();
    let against = against.map(|(a, mut other)| {
        other.retain(|o| !left_out.contains(&o.name));
        (a, other)
    });
    // `--builds N`: N layouts of each side, linked after tuning (which the default build did).
    let (selected, against, seeds) = match layouts {
        Some(n) => {
            let seed = *request.seed.get_or_insert_with(Seed::from_entropy);
            output::notes(&[Note::BuildingLayouts {
                builds: n,
                against: against.as_ref().map(|(a, _)| a.label.clone()),
            }]);
            let other = against.as_ref().map(|(a, o)| (&a.cargo, o.as_slice()));
            let linked = bench::link_layouts(&cargo, &selected, other, n, seed)?;
            output::notes(&[Note::LayoutsLinked {
                links: linked.links,
                compilations: linked.compilations,
                took: linked.took,
            }]);
            let against = match (against, linked.other) {
                (Some((a, _)), Some(other)) => Some((a, other)),
                _ => None,
            };
            (linked.here, against, linked.seeds)
        }
        None => (selected, against, Vec::new()),
    };
    let mut resolved = match &against {
        Some((a, other)) => {
            if !selected
                .iter()
                .any(|s| other.iter().any(|o| o.name == s.name))
            {
                return Err(CargoBenchError::Against {
                    against: a.label.clone(),
                    reason: "no benchmark selected here is in that build too".into(),
                }
                .into());
            }
            let (resolved, alone) =
                bench::settings_against(&selected, other, &evals, request, &a.label)?;
            if !alone.is_empty() {
                output::notes(&[Note::OnlyInOneBuild {
                    against: a.label.clone(),
                    benchmarks: alone,
                }]);
            }
            resolved
        }
        None => bench::settings(&selected, &evals, request)?,
    };
    // Build k's seed in the result is the seed layout k was linked with.
    if let Some(build) = &mut resolved.settings.runner.build {
        build.seeds = seeds;
    }
    output::notes(&bench::group_notes(
        &selected,
        &resolved.settings,
        args.evals.is_some(),
    ));
    let s = &mut resolved.settings;
    let temp = tempfile::tempdir().context("creating a temporary directory")?;
    let asked = s.exports.files.json.take();
    // Benchmarks with inputs are tabled across them after the run, from its result.
    let inputs = selected.iter().any(|s| s.listed.input.is_some());
    let result = match (&against, asked) {
        // Compared after the run: a result file is needed.
        (Some(_), None) => Some(temp.path().join("result.json")),
        (_, asked) => baselines
            .result_path(asked, temp.path())?
            .or_else(|| inputs.then(|| temp.path().join("result.json"))),
    };
    s.exports.files.json = result.clone();
    let outcome = commands::execute(s, true, true)?;
    let run = Run {
        args,
        against: against.as_ref().map(|(a, _)| *a),
        baselines: &baselines,
        result: result.as_deref(),
        inputs,
        lld,
    };
    // The baseline is saved after the comparisons, which read it as it was before this run
    // (`--save-baseline X --baseline X` compares with the last X, then saves), and whatever
    // they find: the run's measurements are kept.
    let compared = after_run(&run, s, outcome);
    if let Some(result) = &result {
        output::notes(baselines.keep(result)?.as_slice());
    }
    if left_out.is_empty() {
        return compared;
    }
    output::notes(&[Note::Failed {
        benchmarks: left_out,
        metric_missing: false,
    }]);
    compared.map(|o| o.worst(Outcome::Failed))
}

/// What [`after_run`] needs of the run.
struct Run<'a> {
    args: &'a BenchArgs,
    against: Option<&'a bench::Against>,
    baselines: &'a Baselines,
    result: Option<&'a std::path::Path>,
    inputs: bool,
    /// The bench targets were linked by lld: `--builds` can link layouts of them.
    lld: bool,
}

/// After the measurements: the tables across inputs, the comparisons with the other build and
/// with the baseline, and the outcome they decide.
fn after_run(
    run: &Run<'_>,
    s: &rigor_app::settings::RunSettings,
    mut outcome: Outcome,
) -> Result<Outcome> {
    let Run {
        args,
        against,
        baselines,
        result,
        inputs,
        lld,
    } = *run;
    if let (true, Some(result), Outcome::Ok) = (inputs, result, outcome) {
        let baseline = baselines.compare.as_deref().zip(args.baseline.as_deref());
        across_inputs(s, &bench::across_inputs(result, s, baseline)?)?;
    }
    if let (Some(a), Some(both), Outcome::Ok) = (against, result, outcome) {
        let c = bench::against_compared(both, &a.label, s)?;
        let layouts = s.runner.build.as_ref().map(|b| b.builds);
        let heading = rigor_report::comparison::against_build(&a.label, layouts);
        emit(&heading);
        output::warnings(&c.warnings);
        let views = rigor_app::comparisons::views(&c.comparisons);
        emit(&rigor_report::comparison::render(&views));
        let how = format!(", {}", rigor_report::comparison::against_how(layouts));
        append_to_exports(s, ("Against", a.label.as_str(), &how), &views)?;
        bench::report_with(both, s, &c.comparisons, None)?;
        outcome = c.outcome;
        // (Where lld did not link the targets, the note before the run said why.)
        if s.runner.build.is_none() && lld {
            output::notes(&[Note::OneLayoutPerSide {
                against: a.label.clone(),
            }]);
        }
    }
    let baseline = match (&baselines.compare, result, outcome) {
        (Some(old), Some(new), Outcome::Ok) => {
            Some((old, new, bench::against_baseline(old, new, s)?))
        }
        _ => None,
    };
    if against.is_none() {
        // What the baseline's sessions carry is said only where a benchmark was compared with
        // it (not for a run of benchmarks it does not have).
        let compared = baseline
            .as_ref()
            .is_some_and(|(_, _, c)| !c.comparisons.is_empty());
        let with_baseline = baselines.compare.is_some() && (baseline.is_none() || compared);
        output::notes(bench::within_run_note(s, with_baseline).as_slice());
    }
    if let Some((old, new, c)) = baseline {
        // A minimum over more layouts is the best of more: like is compared with like only.
        let run = s.runner.build.as_ref().map_or(1, |b| b.builds);
        if let Some(saved) = bench::builds_of(old).filter(|&b| b != run) {
            output::notes(&[Note::BaselineLayouts { saved, run }]);
        }
        let heading = rigor_report::comparison::against_baseline(&old.display().to_string());
        emit(&heading);
        output::warnings(&c.warnings);
        let views = rigor_app::comparisons::views(&c.comparisons);
        emit(&rigor_report::comparison::render(&views));
        let old_path = old.as_path();
        let old = old.display().to_string();
        append_to_exports(s, ("Against the baseline", &old, ""), &views)?;
        let name = args.baseline.as_deref().unwrap_or_default();
        bench::report_with(new, s, &c.comparisons, Some((old_path, name)))?;
        outcome = c.outcome;
    }
    Ok(outcome)
}

/// Prints each group's table across its inputs and appends it to the Markdown export.
fn across_inputs(
    s: &rigor_app::settings::RunSettings,
    plots: &[rigor_report::html::ParameterPlot],
) -> Result<()> {
    if plots.is_empty() {
        return Ok(());
    }
    let mut text = String::new();
    for p in plots {
        text += &rigor_report::across::text(p);
    }
    emit(&text);
    if let Some(path) = &s.exports.files.markdown {
        let mut md =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        for p in plots {
            md += &rigor_report::across::markdown(p);
        }
        rigor_store::write_atomic(path, md.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Appends the comparisons with the baseline or the other build to the Markdown, AsciiDoc and
/// org-mode files the run exported (written before the comparison was made).
fn append_to_exports(
    s: &rigor_app::settings::RunSettings,
    heading: (&str, &str, &str),
    views: &[rigor_report::comparison::ComparisonView<'_>],
) -> Result<()> {
    use rigor_report::markdown::Markup;
    let files = &s.exports.files;
    for (path, markup) in [
        (&files.markdown, Markup::Markdown),
        (&files.asciidoc, Markup::AsciiDoc),
        (&files.orgmode, Markup::OrgMode),
    ] {
        let Some(path) = path else { continue };
        let mut text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        text += &rigor_report::comparison::section_in(markup, heading, views);
        rigor_store::write_atomic(path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
