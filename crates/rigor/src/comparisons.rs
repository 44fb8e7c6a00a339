//! Comparisons: each command against a reference within a run, or each benchmark of a new result
//! against the same-named one of an old result. Statistics come from `rigor_stats::compare`; this
//! module pairs benchmarks, applies false-discovery-rate control and stores the outcome.

use anyhow::{Context, Result, bail};
use rigor_report::comparison::{ComparisonView, effect_text};
use rigor_stats::compare::{CompareConfig, Comparison, Verdict, compare, overlap_verdict};
use rigor_stats::fdr::bh_adjusted;
use rigor_stats::{Analysis, BootstrapConfig, Estimator, Hierarchy, Pairing};
use rigor_store::{
    BenchmarkRecord, BoundsRecord, ComparisonRecord, IntervalRecord, ResultFile, SuiteRecord,
};

use crate::cli::{ComparisonArgs, EstimatorArg, FailOn, MethodArg};
use crate::results::hierarchy_of;

/// One computed comparison.
pub struct Computed {
    /// Baseline name.
    pub baseline: String,
    /// Candidate name.
    pub candidate: String,
    /// The statistics.
    pub comparison: Comparison,
    /// The seeds' non-overlap verdict.
    pub overlap: Option<Verdict>,
    /// Benjamini–Hochberg adjusted p-value, with several comparisons.
    pub q_value: Option<f64>,
}

impl Computed {
    fn view(&self) -> ComparisonView<'_> {
        ComparisonView {
            baseline: &self.baseline,
            candidate: &self.candidate,
            comparison: &self.comparison,
            overlap: self.overlap,
            q_value: self.q_value,
        }
    }
}

/// Resolved comparison settings.
pub struct CompareSettings {
    /// Statistics settings.
    pub config: CompareConfig,
    /// Which verdict decides.
    pub method: MethodArg,
}

/// Resolves the comparison options; `seed` seeds the bootstrap.
pub fn settings(args: &ComparisonArgs, level: f64, seed: u64) -> CompareSettings {
    CompareSettings {
        config: CompareConfig {
            level,
            threshold: args.threshold,
            estimator: match args.estimator {
                EstimatorArg::Mean => Estimator::Mean,
                EstimatorArg::Median => Estimator::Median,
                EstimatorArg::Min => Estimator::Min,
            },
            bootstrap: BootstrapConfig {
                resamples: args.resamples,
                seed,
                level,
                ..BootstrapConfig::default()
            },
            ..CompareConfig::default()
        },
        method: args.method,
    }
}

/// Keys of a benchmark's top-level units in measurement order: builds, or the rounds of its
/// executions. Two benchmarks with equal keys ran in the same rounds and can be paired.
fn top_keys(b: &BenchmarkRecord) -> Vec<usize> {
    let mut keys = Vec::new();
    for s in b.samples.iter().filter(|s| !s.warmup) {
        let k = if b.levels.first().is_some_and(|l| l == "build") {
            s.build.unwrap_or(0)
        } else {
            s.round
        };
        if keys.last() != Some(&k) && !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys
}

fn one(
    baseline: (&BenchmarkRecord, &Hierarchy, Option<&Analysis>),
    candidate: (&BenchmarkRecord, &Hierarchy, Option<&Analysis>),
    s: &CompareSettings,
    paired: bool,
) -> Result<Computed> {
    let cfg = CompareConfig { paired, ..s.config };
    let mut comparison = compare(candidate.1, baseline.1, &cfg).with_context(|| {
        format!(
            "comparing '{}' with '{}'",
            candidate.0.name, baseline.0.name
        )
    })?;
    let overlap = match (baseline.2, candidate.2) {
        (Some(b), Some(c)) => Some(overlap_verdict(&c.interval, &b.interval).verdict),
        _ => None,
    };
    if s.method == MethodArg::Overlap {
        if let Some(o) = overlap {
            comparison.verdict = o;
        }
    }
    Ok(Computed {
        baseline: baseline.0.name.clone(),
        candidate: candidate.0.name.clone(),
        comparison,
        overlap,
        q_value: None,
    })
}

/// Within one run: every benchmark against the reference (paired by round when they ran in the
/// same rounds).
pub fn within_run(
    result: &ResultFile,
    analyses: &[Result<Analysis, String>],
    reference: Option<&str>,
    s: &CompareSettings,
) -> Result<Vec<Computed>> {
    let n = result.benchmarks.len();
    if n < 2 {
        return Ok(Vec::new());
    }
    let r = find_reference(result, reference)?;
    let hierarchies: Vec<Option<Hierarchy>> = result
        .benchmarks
        .iter()
        .zip(analyses)
        .map(|(b, a)| a.as_ref().ok().and_then(|_| hierarchy_of(b).ok()))
        .collect();
    let Some(base_h) = &hierarchies[r] else {
        eprintln!(
            "rigor: no comparisons: the reference '{}' has no result",
            result.benchmarks[r].name
        );
        return Ok(Vec::new());
    };
    let base = &result.benchmarks[r];
    let mut out = Vec::new();
    for i in (0..n).filter(|&i| i != r) {
        let Some(h) = &hierarchies[i] else { continue };
        let cand = &result.benchmarks[i];
        let paired = top_keys(cand) == top_keys(base);
        if !paired {
            eprintln!(
                "rigor: '{}' and '{}' did not run in the same rounds (a failure?): compared unpaired",
                cand.name, base.name
            );
        }
        out.push(one(
            (base, base_h, analyses[r].as_ref().ok()),
            (cand, h, analyses[i].as_ref().ok()),
            s,
            paired,
        )?);
    }
    control_fdr(&mut out, s.config.level);
    Ok(out)
}

fn find_reference(result: &ResultFile, reference: Option<&str>) -> Result<usize> {
    let Some(name) = reference else { return Ok(0) };
    if let Some(i) = result
        .benchmarks
        .iter()
        .position(|b| b.name == name || b.command == name)
    {
        return Ok(i);
    }
    match name.parse::<usize>() {
        Ok(k) if (1..=result.benchmarks.len()).contains(&k) => Ok(k - 1),
        _ => bail!(
            "--reference '{name}' names no benchmark (names: {})",
            result
                .benchmarks
                .iter()
                .map(|b| format!("'{}'", b.name))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Between two results: each benchmark of `new` against the same-named benchmark of `old`.
pub fn between(
    old: &ResultFile,
    old_analyses: &[Result<Analysis, String>],
    new: &ResultFile,
    new_analyses: &[Result<Analysis, String>],
    s: &CompareSettings,
) -> Result<(Vec<Computed>, Option<SuiteRecord>)> {
    let mut out = Vec::new();
    let mut pairs = Vec::new();
    for (i, nb) in new.benchmarks.iter().enumerate() {
        let Some(j) = old.benchmarks.iter().position(|ob| ob.name == nb.name) else {
            eprintln!("rigor: '{}' is only in the new result", nb.name);
            continue;
        };
        let ob = &old.benchmarks[j];
        let (Ok(oa), Ok(na)) = (&old_analyses[j], &new_analyses[i]) else {
            eprintln!("rigor: '{}' has no result in one of the files", nb.name);
            continue;
        };
        let (oh, nh) = (
            hierarchy_of(ob).map_err(anyhow::Error::msg)?,
            hierarchy_of(nb).map_err(anyhow::Error::msg)?,
        );
        let mut c = one((ob, &oh, Some(oa)), (nb, &nh, Some(na)), s, false)?;
        c.baseline = format!("{} (old)", ob.name);
        c.candidate = format!("{} (new)", nb.name);
        out.push(c);
        pairs.push((nh, oh));
    }
    for ob in &old.benchmarks {
        if !new.benchmarks.iter().any(|nb| nb.name == ob.name) {
            eprintln!("rigor: '{}' is only in the old result", ob.name);
        }
    }
    if out.is_empty() {
        bail!("the two results have no benchmark in common (matched by name)");
    }
    control_fdr(&mut out, s.config.level);
    let refs: Vec<(&Hierarchy, &Hierarchy)> = pairs.iter().map(|(c, b)| (c, b)).collect();
    let gm = rigor_stats::compare::geometric_mean_ratio(
        &refs,
        s.config.estimator,
        &s.config.bootstrap,
        Pairing::Independent,
    )
    .context("the suite's geometric mean")?;
    let suite = SuiteRecord {
        geometric_mean_ratio: gm.estimate,
        ci: IntervalRecord {
            lower: gm.lower,
            upper: gm.upper,
            level: gm.level,
            method: "bootstrap-percentile".into(),
        },
        benchmarks: refs.len(),
    };
    Ok((out, Some(suite)))
}

/// Benjamini–Hochberg across several comparisons: a change whose adjusted p-value exceeds
/// α = 1 − level is not reported as a change.
fn control_fdr(out: &mut [Computed], level: f64) {
    if out.len() < 2 {
        return;
    }
    let p: Vec<f64> = out.iter().map(|c| c.comparison.p_value).collect();
    let Ok(q) = bh_adjusted(&p) else { return };
    for (c, q) in out.iter_mut().zip(q) {
        c.q_value = Some(q);
        if c.comparison.verdict.is_change() && q > 1.0 - level {
            c.comparison.verdict = Verdict::Inconclusive;
        }
    }
}

/// Terminal text of the comparisons.
pub fn render(computed: &[Computed]) -> String {
    let views: Vec<ComparisonView<'_>> = computed.iter().map(Computed::view).collect();
    rigor_report::comparison::render(&views)
}

/// Markdown table of the comparisons.
pub fn markdown(computed: &[Computed]) -> String {
    let views: Vec<ComparisonView<'_>> = computed.iter().map(Computed::view).collect();
    rigor_report::comparison::markdown(&views)
}

/// The stored form.
pub fn records(computed: &[Computed]) -> Vec<ComparisonRecord> {
    computed
        .iter()
        .map(|c| {
            let x = &c.comparison;
            ComparisonRecord {
                baseline: c.baseline.clone(),
                candidate: c.candidate.clone(),
                estimator: x.estimator.to_string(),
                ratio: x.ratio,
                ci: x.ci.map(|ci| IntervalRecord {
                    lower: ci.lower,
                    upper: ci.upper,
                    level: ci.level,
                    method: ci.method.to_string(),
                }),
                bootstrap_ci: x.bootstrap.as_ref().map(|b| BoundsRecord {
                    lower: b.lower,
                    upper: b.upper,
                }),
                g: x.g,
                verdict: x.verdict.to_string(),
                threshold: x.threshold,
                effect: effect_text(&c.view()),
                paired: x.paired,
                p_value: x.p_value,
                q_value: c.q_value,
                more_units: x.more_units,
                overlap_verdict: c.overlap.map(|o| o.to_string()),
            }
        })
        .collect()
}

/// Whether the exit status should report a failure for `--fail-on`.
pub fn gate(computed: &[Computed], fail_on: Option<FailOn>) -> bool {
    let Some(rule) = fail_on else { return false };
    computed.iter().any(|c| match rule {
        FailOn::Regression => c.comparison.verdict == Verdict::Regression,
        FailOn::Change => c.comparison.verdict.is_change(),
        FailOn::Inconclusive => {
            c.comparison.verdict != Verdict::Equivalent
                && c.comparison.verdict != Verdict::Improvement
        }
    })
}
