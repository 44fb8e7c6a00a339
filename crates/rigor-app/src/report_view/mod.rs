//! Builds the HTML report's view model from a result: raw series, the diagnosis, lag pairs and
//! autocorrelations (from rigor-stats), components and comparisons. The report crate only draws.

use rigor_report::StatisticView;
use rigor_report::html::{
    BenchmarkSection, BuildMark, ComparedStatistic, ComparisonRow, ComponentBar, ExecutionSeries,
    ImpactView, OverviewRow, ParameterPlot, ReportView,
};
use rigor_stats::Analysis;
use rigor_stats::steady::SteadyStateReport;
use rigor_store::{BenchmarkRecord, ResultFile, SampleRecord};
use rigor_units::Seed;

use crate::analysis::Analyses;
use crate::diagnosis;

mod panels;
#[cfg(test)]
use panels::LAG_POINTS;
use panels::{acf_panel, lag_panels};

/// A report's title from what it measured: "rigor: A", "rigor: A vs B", "rigor: A, B and 3
/// more".
pub fn title(result: &ResultFile) -> String {
    let names: Vec<&str> = result.benchmarks.iter().map(|b| b.name.as_str()).collect();
    // Benchmarks that were not compared with each other (a `rigor bench` suite's functions) are
    // listed, not set against each other ("a vs b vs c" read as a comparison).
    let compared = result.settings.as_ref().is_none_or(|s| s.compared_within);
    let title = match names.as_slice() {
        [] => "rigor report".to_string(),
        [one] => format!("rigor: {one}"),
        [_, _] | [_, _, _] if compared => format!("rigor: {}", names.join(" vs ")),
        [_, _] | [_, _, _] => format!("rigor: {}", names.join(", ")),
        [a, b, rest @ ..] => format!("rigor: {a}, {b} and {} more", rest.len()),
    };
    // A report of another metric than wall time says which in its title.
    match result.benchmarks.iter().find_map(|b| b.metric.as_ref()) {
        Some(m) => format!("{title} — {}", m.metric.description()),
        None => title,
    }
}

/// The view of a whole result.
pub fn build(
    result: &ResultFile,
    analyses: &Analyses,
    compared: &[Option<StatisticView>],
    title: &str,
) -> ReportView {
    let environment = environment_rows(&result.environment);
    let (overview, overview_unit, k) = overview(result, analyses);
    let mut parameters = input_plots(&[Plotted {
        result,
        analyses,
        compared,
        label: None,
    }]);
    if parameters.is_empty() {
        parameters.extend(parameter_plot(result, analyses, k));
    }
    ReportView {
        warnings: result
            .warnings
            .iter()
            .filter(|w| !w.is_note())
            .map(ToString::to_string)
            .collect(),
        parameters,
        overview,
        overview_unit,
        what: result
            .benchmarks
            .iter()
            .find_map(|b| b.metric.as_ref())
            .map(|m| m.metric.description())
            .unwrap_or_default(),
        title: title.to_string(),
        rigor_version: result.rigor_version.clone(),
        generated: format!(
            "{} (the result is {})",
            jiff::Timestamp::now().strftime("%Y-%m-%d %H:%M:%S UTC"),
            match result.status {
                rigor_store::RunStatus::Complete => "complete",
                rigor_store::RunStatus::Interrupted => "interrupted: stopped before the end",
                // A file still marked running was left by a process that was killed.
                rigor_store::RunStatus::Running =>
                    "unfinished: its run was killed or is still going",
            }
        ),
        environment,
        seed: result
            .provenance
            .imported_from
            .is_none()
            .then(|| result.seed.get()),
        confidence: result.confidence.get(),
        benchmarks: result
            .benchmarks
            .iter()
            .zip(analyses)
            .enumerate()
            .map(|(i, (b, a))| {
                let c = compared.get(i).and_then(Option::as_ref);
                section(b, a.as_ref().ok(), c, result.seed)
            })
            .collect(),
        comparisons: result
            .comparisons
            .iter()
            .map(|c| ComparisonRow {
                baseline: c.baseline.clone(),
                candidate: c.candidate.clone(),
                estimator: c.estimator.to_string(),
                ratio: c.ratio,
                lower: c.ci.as_ref().map(|i| i.lower),
                upper: c.ci.as_ref().map(|i| i.upper),
                verdict: verdict_word(result, c)
                    + rigor_report::comparison::apart_suffix(in_blocks_of(result, c), c.verdict),
                effect_text: c.effect.clone(),
                threshold: c.threshold.get(),
            })
            .collect(),
    }
}

/// The machine facts that were recorded, as (key, value) rows: an imported file (hyperfine's,
/// criterion's) records none, and blank rows or "0 logical CPUs" would read as measured facts.
fn environment_rows(env: &rigor_store::Environment) -> Vec<(String, String)> {
    let cpu = match (env.cpu.is_empty(), env.cpus) {
        (true, 0) => String::new(),
        (true, n) => format!("{n} logical CPUs"),
        (false, 0) => env.cpu.clone(),
        (false, n) => format!("{} ({n} logical CPUs)", env.cpu),
    };
    [
        ("host", env.host.clone()),
        ("OS", env.os.clone()),
        ("CPU", cpu),
        ("governor", env.governor.clone().unwrap_or_default()),
    ]
    .into_iter()
    .filter(|(_, v)| !v.is_empty())
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Every analysed benchmark on one axis, in the unit that suits the slowest mean: its mean and
/// interval, its execution means and their quartiles.
fn overview(result: &ResultFile, analyses: &Analyses) -> (Vec<OverviewRow>, String, f64) {
    let slowest = analyses
        .iter()
        .filter_map(|a| a.as_ref().ok().map(|a| a.interval.mean))
        .fold(0.0, f64::max);
    let quantity = result
        .benchmarks
        .first()
        .map(BenchmarkRecord::quantity)
        .unwrap_or_default();
    let (label, k) = unit(&quantity, slowest);
    let rows = result
        .benchmarks
        .iter()
        .zip(analyses)
        .filter_map(|(b, a)| {
            let a = a.as_ref().ok()?;
            let values = execution_means(b, k);
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);
            let q = |p| rigor_stats::descriptive::quantile_of_sorted(&sorted, p);
            Some(OverviewRow {
                name: b.name.clone(),
                mean: a.interval.mean * k,
                ci_lower: rigor_report::format::shown_lower(a).0 * k,
                ci_upper: a.interval.upper * k,
                quartiles: (!sorted.is_empty()).then(|| [q(0.25), q(0.5), q(0.75)]),
                values,
            })
        })
        .collect();
    (rows, label, k)
}

/// Means against the first parameter whose values are all numbers (at least two of them), one
/// line per command and combination of the other parameters; `None` without such a parameter.
fn parameter_plot(result: &ResultFile, analyses: &Analyses, k: f64) -> Option<ParameterPlot> {
    let first = result.benchmarks.first()?;
    let name = first.parameters.keys().find(|name| {
        let values: Vec<Option<f64>> = result
            .benchmarks
            .iter()
            .map(|b| b.parameters.get(*name).and_then(|v| v.parse::<f64>().ok()))
            .collect();
        let mut distinct: Vec<f64> = values.iter().flatten().copied().collect();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        values.iter().all(Option::is_some) && distinct.len() >= 2
    })?;
    // A benchmark's series: its position among the benchmarks sharing its parameter values
    // (the command) and the values of the other parameters.
    let groups = crate::comparisons::groups(result);
    let mut series: Vec<(String, Vec<[f64; 4]>)> = Vec::new();
    for (i, (b, a)) in result.benchmarks.iter().zip(analyses).enumerate() {
        let Ok(a) = a else { continue };
        let command = groups
            .iter()
            .find_map(|g| g.iter().position(|&j| j == i).filter(|_| g.len() > 1));
        let mut label: Vec<String> = b
            .parameters
            .iter()
            .filter(|(k, _)| *k != name)
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        if let Some(c) = command {
            label.insert(0, format!("command {}", c + 1));
        }
        let label = if label.is_empty() {
            "mean".to_string()
        } else {
            label.join(", ")
        };
        let x = b.parameters[name].parse::<f64>().ok()?;
        let point = [
            x,
            a.interval.mean * k,
            rigor_report::format::shown_lower(a).0 * k,
            a.interval.upper * k,
        ];
        match series.iter_mut().find(|(l, _)| *l == label) {
            Some((_, points)) => points.push(point),
            None => series.push((label, vec![point])),
        }
    }
    for (_, points) in &mut series {
        points.sort_by(|a, b| a[0].total_cmp(&b[0]));
    }
    Some(ParameterPlot {
        name: name.clone(),
        statistic: "mean".into(),
        series,
        ..ParameterPlot::default()
    })
}

/// A result whose benchmarks with inputs are plotted against them, and the words its lines are
/// labelled with (`None`: the run's own).
#[derive(Debug, Clone, Copy)]
pub struct Plotted<'a> {
    /// The result.
    pub result: &'a ResultFile,
    /// Its analyses.
    pub analyses: &'a Analyses,
    /// Its compared statistics ([`crate::analysis::compared_statistics`]).
    pub compared: &'a [Option<StatisticView>],
    /// The words after each of its lines' function, in parentheses: `baseline main`.
    pub label: Option<&'a str>,
}

/// The plots of `rigor bench`'s functions against their inputs (the parameters
/// [`crate::bench::FUNCTION_PARAMETER`] and [`crate::bench::INPUT_PARAMETER`]): one per group (or
/// per function outside a group) with two inputs or more, one line per function and build
/// (`--against`), each point the statistic compared (`compared`, else the mean) with its
/// interval. Inputs that are not all numbers are categories, in the order first met.
pub fn input_plots(sources: &[Plotted<'_>]) -> Vec<ParameterPlot> {
    use crate::bench::{FUNCTION_PARAMETER, GROUP_PARAMETER, INPUT_PARAMETER};
    /// A point: its line, its input, the mean and the compared statistic, each with its
    /// interval (value, lower, upper).
    struct Point<'r> {
        line: String,
        input: &'r str,
        mean: [f64; 3],
        compared: Option<(String, [f64; 3])>,
    }
    let mut plots: Vec<(String, Vec<Point<'_>>)> = Vec::new();
    let benchmarks = sources.iter().flat_map(|s| {
        let compared = |i: usize| s.compared.get(i).and_then(Option::as_ref);
        (s.result.benchmarks.iter().zip(s.analyses).enumerate())
            .map(move |(i, (b, a))| (b, a, compared(i), s.label))
    });
    for (b, a, compared, label) in benchmarks {
        let (Some(function), Some(input), Ok(a)) = (
            b.parameters.get(FUNCTION_PARAMETER),
            b.parameters.get(INPUT_PARAMETER),
            a,
        ) else {
            continue;
        };
        let key = b
            .parameters
            .get(GROUP_PARAMETER)
            .unwrap_or(function)
            .clone();
        let point = Point {
            line: match (&b.version, label) {
                (_, Some(l)) => format!("{function} ({l})"),
                (Some(v), None) => crate::bench::against_name(function, v),
                (None, None) => function.clone(),
            },
            input,
            mean: [
                a.interval.mean,
                rigor_report::format::shown_lower(a).0,
                a.interval.upper,
            ],
            compared: compared.map(|c| {
                let (lo, hi) = c.interval.unwrap_or((c.estimate, c.estimate));
                (c.name.clone(), [c.estimate, lo, hi])
            }),
        };
        match plots.iter_mut().find(|(k, _)| *k == key) {
            Some((_, points)) => points.push(point),
            None => plots.push((key, vec![point])),
        }
    }
    let quantity = sources
        .first()
        .and_then(|s| s.result.benchmarks.first())
        .map(BenchmarkRecord::quantity)
        .unwrap_or_default();
    plots
        .into_iter()
        .filter_map(|(title, points)| {
            let mut inputs: Vec<&str> = Vec::new();
            for p in &points {
                if !inputs.contains(&p.input) {
                    inputs.push(p.input);
                }
            }
            if inputs.len() < 2 {
                return None;
            }
            let numeric = inputs
                .iter()
                .all(|v| v.parse::<f64>().is_ok_and(f64::is_finite));
            // One statistic for the whole plot: the one compared when every point has it.
            let names: Option<Vec<&str>> = points
                .iter()
                .map(|p| p.compared.as_ref().map(|c| c.0.as_str()))
                .collect();
            let statistic = match names {
                Some(n) if n.windows(2).all(|w| w[0] == w[1]) => Some(n[0].to_string()),
                _ => None,
            };
            let value = |p: &Point<'_>| match (&statistic, &p.compared) {
                (Some(_), Some((_, v))) => *v,
                _ => p.mean,
            };
            let slowest = points.iter().map(|p| value(p)[0]).fold(0.0, f64::max);
            let (label, k) = unit(&quantity, slowest);
            let mut series: Vec<(String, Vec<[f64; 4]>)> = Vec::new();
            for p in &points {
                let [v, lo, hi] = value(p);
                let x = if numeric {
                    p.input.parse::<f64>().unwrap_or(f64::NAN)
                } else {
                    inputs
                        .iter()
                        .position(|v| *v == p.input)
                        .map_or(f64::NAN, |i| i as f64)
                };
                let point = [x, v * k, lo * k, hi * k];
                match series.iter_mut().find(|(l, _)| *l == p.line) {
                    Some((_, pts)) => pts.push(point),
                    None => series.push((p.line.clone(), vec![point])),
                }
            }
            for (_, pts) in &mut series {
                pts.sort_by(|a, b| a[0].total_cmp(&b[0]));
            }
            Some(ParameterPlot {
                title,
                name: INPUT_PARAMETER.to_string(),
                statistic: statistic.unwrap_or_else(|| "mean".into()),
                unit: label,
                categories: if numeric {
                    Vec::new()
                } else {
                    inputs.iter().map(ToString::to_string).collect()
                },
                series,
            })
        })
        .collect()
}

/// The verdict as the terminal says it: "slower"/"faster" between different commands,
/// "regression"/"improvement" between versions of one program.
/// Whether both sides of `c` are among the benchmarks `result` says were measured one after
/// another, each in a block of its own (hyperfine's files, or setups that differ).
fn in_blocks_of(
    result: &ResultFile,
    c: &rigor_store::ComparisonRecord,
) -> Option<rigor_report::comparison::Apart> {
    result.warnings.iter().find_map(|w| match w {
        rigor_store::Warning::InBlocks { benchmarks, .. }
            if benchmarks.contains(&c.baseline) && benchmarks.contains(&c.candidate) =>
        {
            Some(rigor_report::comparison::Apart::Blocks)
        }
        _ => None,
    })
}

fn verdict_word(result: &ResultFile, c: &rigor_store::ComparisonRecord) -> String {
    let command = |name: &str| {
        result
            .benchmarks
            .iter()
            .find(|b| b.name == name)
            .map(|b| b.command.as_str())
    };
    let kind = match (command(&c.baseline), command(&c.candidate)) {
        (Some(b), Some(c)) => crate::comparisons::kind_of(b, c),
        _ => rigor_report::comparison::Kind::Versions,
    };
    let quantity = result
        .benchmarks
        .iter()
        .find(|b| b.name == c.candidate)
        .map(BenchmarkRecord::quantity)
        .unwrap_or_default();
    rigor_report::comparison::verdict_word_of(kind, c.verdict, &quantity)
}

/// Display unit for values of `quantity` around `mean`: (label, factor), from the one display
/// scaler ([`rigor_report::format::Scale`]).
fn unit(quantity: &rigor_units::Quantity, mean: f64) -> (String, f64) {
    rigor_report::format::Scale::of(quantity.clone()).unit_for(mean)
}

fn section(
    b: &BenchmarkRecord,
    a: Option<&Analysis>,
    compared: Option<&StatisticView>,
    seed: Seed,
) -> BenchmarkSection {
    let mean = a.map_or(0.0, |a| a.interval.mean);
    let (label, k) = unit(&b.quantity(), mean);
    let scale = |v: &[f64]| v.iter().map(|x| x * k).collect::<Vec<_>>();
    let runs = diagnosis::runs_of(b).unwrap_or_else(|| vec![analysed(b)]);
    let steady = diagnosis::diagnose_benchmark(b, seed).and_then(Result::ok);
    let cut = warmup_cut(b, steady.as_ref());
    let tails: Vec<Vec<f64>> = runs
        .iter()
        .map(|r| scale(&r[cut.unwrap_or(0).min(r.len())..]))
        .collect();
    let mut diag = Vec::new();
    if let Some(s) = &steady {
        diag.extend(
            rigor_report::diagnosis::render(&rigor_report::diagnosis::DiagnosisView {
                name: &b.name,
                steady: Some(s),
                applied: b.steady_state.as_ref().map(|s| s.applied),
                impact: None,
                missing: None,
            })
            .lines()
            .skip(1)
            .map(|l| l.trim().to_string()),
        );
    }
    BenchmarkSection {
        name: b.name.clone(),
        command: b.command.clone(),
        unit_label: label,
        compared: compared.map(|c| ComparedStatistic {
            name: c.name.clone(),
            estimate: c.estimate * k,
            interval: c.interval.map(|(lo, hi)| (lo * k, hi * k)),
            units: c.units.clone(),
        }),
        mean: mean * k,
        ci_lower: a.map_or(0.0, |a| rigor_report::format::shown_lower(a).0 * k),
        ci_upper: a.map_or(0.0, |a| a.interval.upper * k),
        levels: b.level_names(),
        counts: a.map_or_else(Vec::new, |a| a.counts.clone()),
        executions: runs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let run = steady.as_ref().and_then(|s| s.runs.get(i));
                ExecutionSeries {
                    values: scale(r),
                    changepoints: run.map_or_else(Vec::new, |r| r.changepoints.clone()),
                    steady_start: run.and_then(|r| r.steady_start),
                    outliers: run.map_or_else(Vec::new, |r| r.outliers.clone()),
                    class: run.map_or_else(String::new, |r| r.class.to_string()),
                }
            })
            .collect(),
        builds: build_marks(b),
        warmup_cut: cut,
        lag: lag_panels(&tails, seed),
        acf: acf_panel(&tails, seed),
        steady_values: scale(&analysed(b)),
        execution_means: a.map_or_else(Vec::new, |_| execution_means(b, k)),
        components: a.map_or_else(Vec::new, |a| {
            a.components
                .components
                .iter()
                .zip(a.components.shares())
                .map(|(c, share)| ComponentBar {
                    level: c.level.clone(),
                    share_percent: share,
                    sd_percent_of_mean: 100.0 * c.std_dev() / a.interval.mean.abs(),
                })
                .collect()
        }),
        impact: diagnosis::impact(b, seed).map(|i| ImpactView {
            original: i.original.value,
            centred: i.centred.value,
            clustered: i.clustered.map(|c| c.value),
        }),
        diagnosis: diag,
        warnings: b.analysis.as_ref().map_or_else(Vec::new, |a| {
            a.warnings
                .iter()
                .map(rigor_report::warnings::text)
                .collect()
        }),
    }
}

/// The analysed (non-warm-up) values in order.
/// Where each build starts among the plotted values (the iterations of measured executions, or
/// the analysed values without iterations) and among the executions; empty unless builds are a
/// level, more than one was measured, and each was measured in one stretch (not interleaved).
fn build_marks(b: &BenchmarkRecord) -> Vec<BuildMark> {
    let plotted: Vec<&SampleRecord> = if b.layout.has_iterations() {
        diagnosis::measured_executions(b).collect()
    } else {
        b.samples.iter().filter(|s| !s.warmup).collect()
    };
    let mut marks: Vec<(usize, BuildMark)> = Vec::new();
    let mut execution = None;
    let mut executions = 0;
    for (i, s) in plotted.iter().enumerate() {
        let Some(build) = s.build else {
            return Vec::new();
        };
        if execution.replace((build, s.execution)) != Some((build, s.execution)) {
            executions += 1;
        }
        if marks.last().is_none_or(|(last, _)| *last != build) {
            // A build met again after another: builds measured in shared rounds (interleaved),
            // where the values in time order have no stretch of one build to mark.
            if marks.iter().any(|(seen, _)| *seen == build) {
                return Vec::new();
            }
            let mark = BuildMark {
                label: format!("build {}", build + 1),
                first_value: i,
                first_execution: executions - 1,
            };
            marks.push((build, mark));
        }
    }
    if marks.len() < 2 {
        return Vec::new();
    }
    marks.into_iter().map(|(_, m)| m).collect()
}

fn analysed(b: &BenchmarkRecord) -> Vec<f64> {
    b.samples
        .iter()
        .filter(|s| !s.warmup)
        .map(|s| s.value)
        .collect()
}

/// Iterations cut at the start of every execution: what `--discard auto` applied, else the
/// detected independent warm-up, else the run's fixed `--discard`.
fn warmup_cut(b: &BenchmarkRecord, steady: Option<&SteadyStateReport>) -> Option<usize> {
    b.steady_state
        .as_ref()
        .and_then(|s| s.independent_warmup.or(s.initialised_warmup))
        .or_else(|| steady.and_then(|s| s.independent_warmup))
        .filter(|&c| c > 0)
}

/// Each measured execution's mean (of its analysed iterations, or its one value), in the order
/// the executions ran. With builds and no iterations the means of the level above the values are
/// the builds', not the executions' (the plots said "each execution" of six build means).
fn execution_means(b: &BenchmarkRecord, k: f64) -> Vec<f64> {
    let mut means: Vec<f64> = Vec::new();
    let mut current: Option<((Option<usize>, usize), f64, usize)> = None;
    for s in b.samples.iter().filter(|s| !s.warmup) {
        let key = (s.build, s.execution);
        match &mut current {
            Some((at, sum, n)) if *at == key => {
                *sum += s.value;
                *n += 1;
            }
            _ => {
                if let Some((_, sum, n)) = current.replace((key, s.value, 1)) {
                    means.push(k * sum / n as f64);
                }
            }
        }
    }
    if let Some((_, sum, n)) = current {
        means.push(k * sum / n as f64);
    }
    means
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A benchmark of `rigor bench` with parameters `params`: 8 executions, each value `ns`
    /// nanoseconds and a little more.
    fn bench(name: &str, ns: f64, params: &[(&str, &str)]) -> BenchmarkRecord {
        let layout = rigor_store::Layout::new(false, false);
        let mut b = BenchmarkRecord::new(name, name, layout);
        for e in 0..8 {
            b.samples.push(SampleRecord {
                build: None,
                round: e,
                execution: e,
                iteration: 0,
                value: ns * 1e-9 * (1.0 + e as f64 / 100.0),
                warmup: false,
            });
        }
        b.parameters = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        b
    }

    fn view(
        benchmarks: Vec<BenchmarkRecord>,
        estimator: rigor_stats::Estimator,
    ) -> rigor_report::html::ReportView {
        let mut r = ResultFile::new(Seed(1), rigor_units::ConfidenceLevel::NINETY_FIVE);
        r.benchmarks = benchmarks;
        let analyses = crate::analysis::analyze_all(&mut r, &Default::default());
        let settings = crate::settings::ComparisonSettings {
            estimator,
            ..Default::default()
        };
        let cs = crate::comparisons::CompareSettings::new(&settings, r.confidence, r.seed);
        let compared = crate::analysis::compared_statistics(&r, &cs.config);
        build(&r, &analyses, &compared, "t")
    }

    #[test]
    fn a_groups_functions_are_plotted_against_their_input_with_the_statistic_compared() {
        let sort = |f: &str, n: &str, ns: f64| {
            let function = format!("sort/{f}");
            bench(
                &format!("{function}/{n}"),
                ns,
                &[("function", &function), ("group", "sort"), ("input", n)],
            )
        };
        let v = view(
            vec![
                bench("fib", 50.0, &[]),
                sort("std", "10", 40.0),
                sort("std", "1000", 9000.0),
                sort("unstable", "10", 30.0),
                sort("unstable", "1000", 6000.0),
                // One input only: no plot of its own.
                bench("hash/8", 5.0, &[("function", "hash"), ("input", "8")]),
            ],
            rigor_stats::Estimator::Min,
        );
        assert_eq!(v.parameters.len(), 1, "{:?}", v.parameters);
        let p = &v.parameters[0];
        assert_eq!((p.title.as_str(), p.name.as_str()), ("sort", "input"));
        assert_eq!((p.statistic.as_str(), p.unit.as_str()), ("min", "µs"));
        assert!(p.categories.is_empty());
        let labels: Vec<&str> = p.series.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(labels, ["sort/std", "sort/unstable"]);
        // The minimum (the first execution's value), in µs, against the input.
        let std = &p.series[0].1;
        assert_eq!(std.len(), 2);
        assert_eq!(std[0][0], 10.0);
        assert!((std[0][1] - 0.040).abs() < 1e-9, "{std:?}");
        assert!((std[1][1] - 9.0).abs() < 1e-9, "{std:?}");
        assert!(std.iter().all(|q| q[2] <= q[1] && q[1] <= q[3]), "{std:?}");
    }

    #[test]
    fn inputs_that_are_not_numbers_are_categories_and_each_build_is_a_line() {
        let mut benches = Vec::new();
        for (i, n) in ["small", "large"].into_iter().enumerate() {
            let params = [("function", "parse"), ("input", n)];
            let mut old = bench(
                &format!("parse/{n} @ HEAD~1"),
                100.0 * (i + 1) as f64,
                &params,
            );
            old.version = Some("HEAD~1".into());
            benches.push(old);
            benches.push(bench(&format!("parse/{n}"), 90.0 * (i + 1) as f64, &params));
        }
        let v = view(benches, rigor_stats::Estimator::Mean);
        let p = &v.parameters[0];
        assert_eq!(p.categories, ["small", "large"]);
        assert_eq!(p.statistic, "mean");
        let labels: Vec<&str> = p.series.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(labels, ["parse @ HEAD~1", "parse"]);
        let xs: Vec<f64> = p.series[1].1.iter().map(|q| q[0]).collect();
        assert_eq!(xs, [0.0, 1.0]);
    }

    #[test]
    fn a_baselines_lines_are_drawn_beside_the_runs() {
        let run = |ns: f64| {
            let mut r = ResultFile::new(Seed(1), rigor_units::ConfidenceLevel::NINETY_FIVE);
            r.benchmarks = ["10", "100"]
                .iter()
                .map(|n| {
                    bench(
                        &format!("sum/{n}"),
                        ns,
                        &[("function", "sum"), ("input", n)],
                    )
                })
                .collect();
            let analyses = crate::analysis::analyze_all(&mut r, &Default::default());
            (r, analyses)
        };
        let ((new, a_new), (old, a_old)) = (run(10.0), run(20.0));
        let v = build(&new, &a_new, &[], "t");
        assert_eq!(v.parameters[0].series.len(), 1);
        let plotted = |result, analyses, label| Plotted {
            result,
            analyses,
            compared: &[],
            label,
        };
        let plots = input_plots(&[
            plotted(&new, &a_new, None),
            plotted(&old, &a_old, Some("baseline main")),
        ]);
        let labels: Vec<&str> = plots[0].series.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(labels, ["sum", "sum (baseline main)"]);
    }

    #[test]
    fn lag_plots_draw_a_few_hundred_pairs_from_every_execution() {
        // 30 executions of 1,000 iterations; execution i's values are all i.
        let runs: Vec<Vec<f64>> = (0..30).map(|i| vec![i as f64; 1000]).collect();
        for panel in lag_panels(&runs, Seed(1)) {
            assert!(panel.points.len() <= LAG_POINTS, "{}", panel.points.len());
            assert!(panel.points.len() >= LAG_POINTS / 2);
            // The last execution is drawn too, not only the first ones.
            assert!(
                panel.points.iter().any(|p| p.0 == 29.0),
                "lag {}",
                panel.lag
            );
            assert!(panel.shuffled_points.len() <= LAG_POINTS);
        }
        // Short runs keep every pair.
        let short = vec![vec![1.0, 2.0, 3.0]];
        assert_eq!(
            lag_panels(&short, Seed(1))[0].points,
            vec![(1.0, 2.0), (2.0, 3.0)]
        );
    }
}
