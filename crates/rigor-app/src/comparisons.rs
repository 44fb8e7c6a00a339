//! Comparisons: each command against a reference within a run, or each benchmark of a new result
//! against the same-named one of an old result. Statistics come from `rigor_stats::compare`; this
//! module pairs benchmarks, applies false-discovery-rate control and stores the outcome.

pub use rigor_report::comparison::Ranking;
pub use rigor_report::comparison::ValueOnly;
use rigor_report::comparison::{ComparisonView, Kind, effect_text};
use rigor_stats::compare::{
    CompareConfig, Comparison, RatioInterval, RatioMethod, Verdict, compare, overlap_of,
};
use rigor_stats::fdr::bh_adjusted;
use rigor_stats::{Analysis, Estimator, Hierarchy, Pairing};
use rigor_store::{
    BenchmarkRecord, BoundsRecord, ComparisonRecord, ResultFile, SuiteRecord, VerdictMethod,
    Warning,
};
use rigor_units::{ConfidenceLevel, Floored, Fraction, Resolution, Seconds, Seed};

use crate::analysis::{Unanalysed, hierarchy_of};
use crate::error::{AppError, Result};
use crate::settings::ComparisonSettings;

pub use crate::comparable::{families, groups, kind_of};

/// One computed comparison.
#[derive(Debug)]
pub struct Computed {
    /// Baseline name.
    pub baseline: String,
    /// Candidate name.
    pub candidate: String,
    /// The statistics.
    pub comparison: Comparison,
    /// The verdict of the non-overlap rule (Kalibera & Tůma 2006).
    pub overlap: Option<Verdict>,
    /// Benjamini–Hochberg adjusted p-value, with several comparisons.
    pub q_value: Option<f64>,
    /// Whether false-discovery-rate control turned the change the interval showed into an
    /// inconclusive verdict.
    pub fdr_demoted: bool,
    /// Different commands of one run, or versions of one program (old and new results).
    pub kind: Kind,
    /// The top-level units in the plural ("executions", "builds").
    pub units: String,
    /// The quantity compared (`--metric`).
    pub quantity: rigor_units::Quantity,
    /// Both sides' one value, when each gave the same value in every execution of a metric
    /// that is not a time (peak memory, a count): compared exactly.
    pub exact: Option<(f64, f64)>,
    /// When the two were not measured in shared rounds (separate runs, or blocks of one run).
    pub apart: Option<rigor_report::comparison::Apart>,
}

impl Computed {
    /// The report crate's view of it.
    pub fn view(&self) -> ComparisonView<'_> {
        ComparisonView {
            kind: self.kind,
            units: &self.units,
            baseline: &self.baseline,
            candidate: &self.candidate,
            comparison: &self.comparison,
            overlap: self.overlap,
            q_value: self.q_value,
            quantity: self.quantity.clone(),
            exact: self.exact,
            fdr_demoted: self.fdr_demoted,
            apart: self.apart,
        }
    }
}

/// Comparison settings resolved for one comparison set: the statistics' configuration and
/// what decides the verdict.
pub struct CompareSettings {
    /// Statistics settings.
    pub config: CompareConfig,
    /// Which verdict decides.
    pub method: VerdictMethod,
}

impl CompareSettings {
    /// From the use case's settings, at `level`, the bootstrap seeded by `seed`.
    pub fn new(s: &ComparisonSettings, level: ConfidenceLevel, seed: Seed) -> Self {
        Self {
            config: s.config(level, seed),
            method: s.method,
        }
    }
}

/// The interval the non-overlap rule reads for each benchmark, computed once per benchmark: the
/// mean's, or with another estimator its bootstrap interval as the summaries show it
/// ([`compared_statistic`](crate::analysis::compared_statistic)). `None` without a result.
fn overlap_intervals(
    result: &ResultFile,
    analyses: &[std::result::Result<Analysis, Unanalysed>],
    s: &CompareSettings,
) -> Vec<Option<(f64, f64)>> {
    result
        .benchmarks
        .iter()
        .zip(analyses)
        .map(|(b, a)| {
            let a = a.as_ref().ok()?;
            if s.config.estimator == Estimator::Mean {
                Some((a.interval.lower, a.interval.upper))
            } else {
                crate::analysis::compared_statistic(b, &s.config)?.interval
            }
        })
        .collect()
}

/// A comparison, or — when its statistics cannot be formed (a ratio with a statistic of 0) —
/// `None` with a [`Warning::NotCompared`] naming `(candidate, baseline)`; other errors stand.
fn or_not_compared(
    computed: Result<Computed>,
    (candidate, baseline): (String, String),
    warnings: &mut Vec<Warning>,
) -> Result<Option<Computed>> {
    match computed {
        Ok(c) => Ok(Some(c)),
        Err(AppError::Compare { source, .. }) => {
            warnings.push(Warning::NotCompared {
                candidate,
                baseline,
                reason: source.to_string(),
            });
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// One comparison; each side is its record, hierarchy and the interval the non-overlap rule
/// reads ([`overlap_intervals`]).
fn one(
    baseline: (&BenchmarkRecord, &Hierarchy, Option<(f64, f64)>),
    candidate: (&BenchmarkRecord, &Hierarchy, Option<(f64, f64)>),
    s: &CompareSettings,
    paired: bool,
) -> Result<Computed> {
    let cfg = CompareConfig { paired, ..s.config };
    let mut comparison =
        compare(candidate.1, baseline.1, &cfg).map_err(|source| AppError::Compare {
            candidate: candidate.0.name.clone(),
            baseline: baseline.0.name.clone(),
            source,
        })?;
    floor_at_resolution(
        &mut comparison,
        (baseline.0, baseline.1),
        (candidate.0, candidate.1),
        s.config.estimator,
    );
    let overlap = baseline.2.zip(candidate.2).map(|(b, c)| overlap_of(c, b));
    if s.method == VerdictMethod::Overlap {
        if let Some(o) = overlap {
            comparison.verdict = o;
        }
    }
    let top = baseline
        .0
        .level_names()
        .first()
        .cloned()
        .unwrap_or_default();
    let quantity = candidate.0.quantity();
    let exact = exact_values(baseline.1, candidate.1, &quantity);
    if let Some((old, new)) = exact {
        // No variation on either side: the ratio is known exactly, and only the threshold
        // says whether it matters.
        let ratio = new / old;
        comparison.verdict = if (ratio - 1.0).abs() <= comparison.threshold {
            Verdict::Equivalent
        } else if ratio > 1.0 {
            Verdict::Regression
        } else {
            Verdict::Improvement
        };
    }
    let mut overlap = overlap;
    if matches!(quantity, rigor_units::Quantity::Rate(_)) {
        // More is better for a rate: a higher one is the improvement.
        fn flip(v: Verdict) -> Verdict {
            match v {
                Verdict::Regression => Verdict::Improvement,
                Verdict::Improvement => Verdict::Regression,
                other => other,
            }
        }
        comparison.verdict = flip(comparison.verdict);
        overlap = overlap.map(flip);
    }
    Ok(Computed {
        quantity,
        exact,
        baseline: baseline.0.name.clone(),
        candidate: candidate.0.name.clone(),
        comparison,
        overlap,
        q_value: None,
        fdr_demoted: false,
        kind: Kind::Versions,
        units: format!("{top}s"),
        apart: None,
    })
}

/// Both sides' value when each side's values are all one value and the quantity is not a time
/// (a deterministic metric; a time never repeats exactly but on a coarse clock, which the
/// resolution floor handles).
fn exact_values(
    baseline: &Hierarchy,
    candidate: &Hierarchy,
    quantity: &rigor_units::Quantity,
) -> Option<(f64, f64)> {
    let constant = |h: &Hierarchy| {
        let v = h.values();
        let first = *v.first()?;
        (first != 0.0 && v.iter().all(|x| *x == first)).then_some(first)
    };
    if *quantity == rigor_units::Quantity::Time {
        return None;
    }
    constant(baseline).zip(constant(candidate))
}

/// Widens the comparison's interval to the range of ratios the two benchmarks' resolutions
/// cannot exclude ([`ratio_floor`]), so that samples quantised by a coarse clock — every
/// execution's minimum on the same step — do not give a zero-width interval and a verdict the
/// clock cannot support.
pub(crate) fn floor_at_resolution(
    comparison: &mut Comparison,
    baseline: (&BenchmarkRecord, &Hierarchy),
    candidate: (&BenchmarkRecord, &Hierarchy),
    estimator: Estimator,
) {
    let estimate = |(b, h): (&BenchmarkRecord, &Hierarchy)| {
        (
            b.resolution(),
            Seconds::from_unit(estimator.of_hierarchy(h), b.unit),
        )
    };
    let Some(ci) = comparison.ci else { return };
    if let Some(f) = ratio_floor(
        estimate(baseline),
        estimate(candidate),
        (ci.lower, ci.upper),
    ) {
        comparison.widen(f.lower, f.upper);
    }
}

/// The interval `(lower, upper)` of the ratio candidate / baseline widened to the ratios the two
/// estimates' resolutions cannot exclude (each estimate ± half its step,
/// [`rigor_units::Resolution::floor_ratio`]); each side is (its resolution, its estimate). An
/// estimate that reported no resolution (an older result, a run stored before the history kept
/// it) is taken to have the other's; `None` when neither did (no floor). Every ratio of two
/// measured times — comparisons, `rigor track`'s changes and the dashboard's — is floored here.
pub(crate) fn ratio_floor(
    baseline: (Option<Resolution>, Seconds),
    candidate: (Option<Resolution>, Seconds),
    (lower, upper): (f64, f64),
) -> Option<Floored<f64>> {
    let (rb, rc) = (baseline.0, candidate.0);
    let (Some(rb), Some(rc)) = (rb.or(rc), rc.or(rb)) else {
        return None;
    };
    Some(rc.floor_ratio(rb, candidate.1, baseline.1, lower, upper))
}

/// The rounds two benchmarks both completed, when each has at most one round beyond them, at
/// the end (a run cut short mid-round), and at least two are left; `None` otherwise.
fn completed_rounds(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = |k: &[usize]| k.len() - n <= 1;
    (n >= 2 && tail(a) && tail(b)).then(|| a[..n].to_vec())
}

/// Two benchmarks of a run cut short mid-round: each one's hierarchy over the rounds both
/// completed, compared paired as [`within_run`] does; `None` where their rounds are the same.
pub(crate) fn over_completed_rounds(
    a: &BenchmarkRecord,
    b: &BenchmarkRecord,
) -> Option<(Hierarchy, Hierarchy)> {
    let (ka, kb) = (a.top_keys(), b.top_keys());
    if ka == kb {
        return None;
    }
    let common = completed_rounds(&ka, &kb)?;
    Some((restricted(a, &common)?, restricted(b, &common)?))
}

/// A benchmark's hierarchy over the rounds `keys` only.
fn restricted(b: &BenchmarkRecord, keys: &[usize]) -> Option<Hierarchy> {
    let keep: std::collections::HashSet<&usize> = keys.iter().collect();
    let mut only = b.clone();
    only.samples.retain(|s| keep.contains(&b.layout.top_key(s)));
    hierarchy_of(&only).ok()
}

/// Comparisons and the warnings met on the way.
pub type Compared = (Vec<Computed>, Vec<Warning>);

/// Within one run: every benchmark against the reference (paired by round when they ran in the
/// same rounds).
pub fn within_run(
    result: &ResultFile,
    analyses: &[std::result::Result<Analysis, Unanalysed>],
    reference: Option<&str>,
    s: &CompareSettings,
) -> Result<Compared> {
    let n = result.benchmarks.len();
    let mut warnings = Vec::new();
    // The empty shell measured for the start-up is not compared: one command beside it has
    // nothing to be compared with (it had warned "no comparisons" when that command failed).
    let commands = result
        .benchmarks
        .iter()
        .filter(|b| b.shell_startup.is_none())
        .count();
    if n < 2 || commands < 2 {
        return Ok((Vec::new(), warnings));
    }
    let r = find_reference(result, reference)?;
    // In another tool's file, a reference the user named is compared with every benchmark,
    // whatever their families.
    let groups = match (reference, &result.provenance.imported_from) {
        (Some(_), Some(_)) => vec![(0..n).collect()],
        _ => groups(result),
    };
    let intervals = overlap_intervals(result, analyses, s);
    let hierarchies: Vec<Option<Hierarchy>> = result
        .benchmarks
        .iter()
        .zip(analyses)
        .map(|(b, a)| a.as_ref().ok().and_then(|_| hierarchy_of(b).ok()))
        .collect();
    let mut out = Vec::new();
    // Benchmarks compared that ran one after another, each in a block (said once, below).
    let mut in_blocks: Vec<usize> = Vec::new();
    let at = groups
        .iter()
        .find_map(|g| g.iter().position(|&i| i == r))
        .unwrap_or(0);
    for group in &groups {
        let r = group.get(at).copied().unwrap_or(group[0]);
        let Some(base_h) = &hierarchies[r] else {
            // Measured once (Google Benchmark without repetitions): a value, but no interval.
            warnings.push(Warning::ReferenceHasNoResult {
                reference: result.benchmarks[r].name.clone(),
                why: analyses[r].as_ref().err().map(ToString::to_string),
            });
            continue;
        };
        let base = &result.benchmarks[r];
        if all_zero(base, &mut warnings) {
            continue;
        }
        for &i in group.iter().filter(|&&i| i != r) {
            let Some(h) = &hierarchies[i] else { continue };
            let cand = &result.benchmarks[i];
            if all_zero(cand, &mut warnings) {
                continue;
            }
            let (keys, base_keys) = (cand.top_keys(), base.top_keys());
            let paired = keys == base_keys;
            // Disjoint rounds are benchmarks measured one after another (an imported file), not
            // a failure: compared unpaired without a warning.
            let disjoint = {
                let base: std::collections::HashSet<&usize> = base_keys.iter().collect();
                !keys.iter().any(|k| base.contains(k))
            };
            // A run cut short mid-round (interrupted, or a torn file repaired) leaves one
            // benchmark a last round the other lacks: the rounds both completed stay paired.
            let common = (!paired && !disjoint)
                .then(|| completed_rounds(&keys, &base_keys))
                .flatten()
                .and_then(|c| Some((c.len(), restricted(cand, &c)?, restricted(base, &c)?)));
            if disjoint {
                for k in [r, i] {
                    if !in_blocks.contains(&k) {
                        in_blocks.push(k);
                    }
                }
            }
            let (h, base_h, paired) = match &common {
                Some((rounds, ch, bh)) => {
                    warnings.push(Warning::LastRoundUnpaired {
                        candidate: cand.name.clone(),
                        baseline: base.name.clone(),
                        rounds: *rounds,
                    });
                    (ch, bh, true)
                }
                None => {
                    if !paired && !disjoint {
                        warnings.push(Warning::Unpaired {
                            candidate: cand.name.clone(),
                            baseline: base.name.clone(),
                        });
                    }
                    (h, base_h, paired)
                }
            };
            // A pair whose statistics cannot be formed (a baseline near zero whose resampled
            // estimate is 0: an infinite ratio) is said and skipped; the other pairs stand.
            let computed = one(
                (base, base_h, intervals[r]),
                (cand, h, intervals[i]),
                s,
                paired,
            );
            let names = (cand.name.clone(), base.name.clone());
            let Some(mut c) = or_not_compared(computed, names, &mut warnings)? else {
                continue;
            };
            c.kind = kind_of(&base.command, &cand.command);
            c.apart = disjoint.then_some(rigor_report::comparison::Apart::Blocks);
            warnings.extend(crate::conditions::startup_one_side(result, base, cand));
            out.push(c);
        }
    }
    if !in_blocks.is_empty() {
        in_blocks.sort_unstable();
        warnings.push(Warning::InBlocks {
            benchmarks: in_blocks
                .iter()
                .map(|&k| result.benchmarks[k].name.clone())
                .collect(),
            tool: result.provenance.imported_from.clone(),
        });
    }
    control_fdr(&mut out, s.config.level);
    Ok((out, warnings))
}

/// Whether every measured time of `b` is zero (no ratio can be formed with it), said once in
/// `warnings`.
fn all_zero(b: &BenchmarkRecord, warnings: &mut Vec<Warning>) -> bool {
    let zero = b.samples.iter().any(|s| !s.warmup)
        && b.samples
            .iter()
            .filter(|s| !s.warmup)
            .all(|s| s.value == 0.0);
    let warning = Warning::AllTimesZero {
        benchmark: b.name.clone(),
    };
    if zero && !warnings.contains(&warning) {
        warnings.push(warning);
    }
    zero
}

/// The position of `reference` (a name, a command or a 1-based position; the first benchmark
/// when `None`) among `result`'s benchmarks.
///
/// # Errors
/// [`AppError::NoSuchReference`] when it names none of them.
pub fn find_reference(result: &ResultFile, reference: Option<&str>) -> Result<usize> {
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
        _ => Err(AppError::NoSuchReference {
            reference: name.to_string(),
            names: result
                .benchmarks
                .iter()
                .map(|b| format!("'{}'", b.name))
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// What [`between`] appends to the name of a benchmark of the old result.
pub const OLD: &str = " (old)";

/// What [`between`] appends to the name of a benchmark of the new result.
pub const NEW: &str = " (new)";

/// What [`between`] found: the comparisons, the suite's geometric mean, the benchmarks compared
/// without an interval, and the warnings.
#[derive(Debug)]
pub struct Between {
    /// Each benchmark of both results with an interval on each side, new against old.
    pub comparisons: Vec<Computed>,
    /// The geometric-mean ratio over them.
    pub suite: Option<SuiteRecord>,
    /// Benchmarks of both results measured once on a side: their values, without a verdict.
    pub values_only: Vec<ValueOnly>,
    /// Benchmarks not compared, and other problems.
    pub warnings: Vec<Warning>,
}

/// Between two results: each benchmark of `new` against the same-named benchmark of `old`;
/// `paired` when the two were measured in the same interleaved rounds (two builds measured
/// together): each pair is then compared round by round, when both kept every round.
pub fn between(
    old: &ResultFile,
    old_analyses: &[std::result::Result<Analysis, Unanalysed>],
    new: &ResultFile,
    new_analyses: &[std::result::Result<Analysis, Unanalysed>],
    s: &CompareSettings,
    paired: bool,
) -> Result<Between> {
    let mut warnings = Vec::new();
    let mut values_only = Vec::new();
    let mut out = Vec::new();
    let mut pairs = Vec::new();
    let mut ranges = Vec::new();
    let old_intervals = overlap_intervals(old, old_analyses, s);
    let new_intervals = overlap_intervals(new, new_analyses, s);
    // The empty shell measured for the start-up is subtracted within a run, not compared.
    let compared = |b: &&BenchmarkRecord| b.shell_startup.is_none();
    for (i, nb) in new.benchmarks.iter().enumerate() {
        if !compared(&nb) {
            continue;
        }
        let Some(j) = old.benchmarks.iter().position(|ob| ob.name == nb.name) else {
            warnings.push(Warning::OnlyInNew {
                benchmark: nb.name.clone(),
            });
            continue;
        };
        let ob = &old.benchmarks[j];
        let (Ok(_), Ok(_)) = (&old_analyses[j], &new_analyses[i]) else {
            // Measured once on a side: the two values, without an interval or a verdict.
            let value = |b: &BenchmarkRecord, a: &std::result::Result<Analysis, Unanalysed>| match a
            {
                Ok(x) => Some(Seconds::from_unit(x.interval.mean, b.unit).get()),
                Err(_) => crate::exports::value_alone(b, a).map(|(v, _)| v),
            };
            if let (Some(o), Some(n)) = (value(ob, &old_analyses[j]), value(nb, &new_analyses[i])) {
                // The side without an interval: one unit of several iterations is one process
                // (a JMH fork), else one execution or repetition.
                let (b, _) = [(nb, &new_analyses[i]), (ob, &old_analyses[j])]
                    .into_iter()
                    .find(|(_, a)| a.is_err())
                    .unwrap_or((nb, &new_analyses[i]));
                let why = if b.layout.has_iterations() {
                    "measured in one process"
                } else {
                    "measured once"
                };
                values_only.push(ValueOnly {
                    benchmark: nb.name.clone(),
                    old: o,
                    new: n,
                    why: why.to_string(),
                });
                continue;
            }
            warnings.push(Warning::NoResultToCompare {
                benchmark: nb.name.clone(),
            });
            continue;
        };
        if all_zero(ob, &mut warnings) || all_zero(nb, &mut warnings) {
            continue;
        }
        let stats = |source| AppError::Compare {
            candidate: nb.name.clone(),
            baseline: ob.name.clone(),
            source,
        };
        let (oh, nh) = (
            hierarchy_of(ob).map_err(stats)?,
            hierarchy_of(nb).map_err(stats)?,
        );
        // A pair whose statistic cannot be formed (a minimum of 0: every evaluation of a
        // sample below the clock's step) is said and skipped, as within a run; the others stand.
        let computed = one(
            (ob, &oh, old_intervals[j]),
            (nb, &nh, new_intervals[i]),
            s,
            paired,
        );
        let names = (format!("{}{NEW}", nb.name), format!("{}{OLD}", ob.name));
        let Some(mut c) = or_not_compared(computed, names, &mut warnings)? else {
            continue;
        };
        ranges.push(member_range((ob, &oh), (nb, &nh), s.config.estimator));
        c.baseline = format!("{}{OLD}", ob.name);
        c.candidate = format!("{}{NEW}", nb.name);
        out.push(c);
        pairs.push((nh, oh));
    }
    for ob in old.benchmarks.iter().filter(compared) {
        if !new.benchmarks.iter().any(|nb| nb.name == ob.name) {
            warnings.push(Warning::OnlyInOld {
                benchmark: ob.name.clone(),
            });
        }
    }
    if out.is_empty() && !values_only.is_empty() {
        return Ok(Between {
            comparisons: out,
            suite: None,
            values_only,
            warnings,
        });
    }
    if out.is_empty() {
        let names = |r: &ResultFile| {
            let quoted: Vec<String> = r
                .benchmarks
                .iter()
                .map(|b| format!("'{}'", b.name))
                .collect();
            quoted.join(", ")
        };
        return Err(AppError::NothingInCommon {
            old: names(old),
            new: names(new),
            without_result: warnings
                .iter()
                .filter_map(|w| match w {
                    Warning::NoResultToCompare { benchmark }
                    | Warning::AllTimesZero { benchmark } => Some(format!("'{benchmark}'")),
                    Warning::NotCompared {
                        baseline, reason, ..
                    } => Some(format!("'{baseline}' ({reason})")),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    control_fdr(&mut out, s.config.level);
    let refs: Vec<(&Hierarchy, &Hierarchy)> = pairs.iter().map(|(c, b)| (c, b)).collect();
    // The mean's ratios have a t interval on the log scale; the bootstrap's percentiles
    // resample the few top-level units as if they were the population (too narrow with 10 a
    // side), so they serve only the estimators that have nothing else.
    let (estimate, lower, upper, level, method) =
        if s.config.estimator == rigor_stats::Estimator::Mean {
            let g = rigor_stats::compare::geometric_mean_ratio_welch(&refs, s.config.level)
                .map_err(AppError::Suite)?;
            (g.estimate, g.lower, g.upper, g.level, RatioMethod::LogWelch)
        } else {
            let g = rigor_stats::compare::geometric_mean_ratio(
                &refs,
                s.config.estimator,
                &s.config.bootstrap,
                Pairing::Independent,
            )
            .map_err(AppError::Suite)?;
            let method = RatioMethod::BootstrapPercentile;
            (g.estimate, g.lower, g.upper, g.level, method)
        };
    let ci = RatioInterval {
        lower,
        upper,
        level,
        method,
    };
    let mut suite = SuiteRecord {
        geometric_mean_ratio: estimate,
        ci,
        benchmarks: refs.len(),
        at_resolution: false,
    };
    floor_suite(&mut suite, &ranges);
    Ok(Between {
        comparisons: out,
        suite: Some(suite),
        values_only,
        warnings,
    })
}

/// A matched benchmark's ratio new/old of the estimates, and the range the two estimates'
/// resolutions leave open around it ([`ratio_floor`]; `None` when neither reported one).
fn member_range(
    old: (&BenchmarkRecord, &Hierarchy),
    new: (&BenchmarkRecord, &Hierarchy),
    estimator: Estimator,
) -> (f64, Option<(f64, f64)>) {
    let estimate = |(b, h): (&BenchmarkRecord, &Hierarchy)| {
        (
            b.resolution(),
            Seconds::from_unit(estimator.of_hierarchy(h), b.unit),
        )
    };
    let (o, n) = (estimate(old), estimate(new));
    let ratio = n.1.get() / o.1.get();
    let range = ratio_floor(o, n, (ratio, ratio)).map(|f| (f.lower, f.upper));
    (ratio, range)
}

/// Widens the suite's interval to contain the range of its geometric mean that the members'
/// resolutions leave open (`rigor_stats::compare::geometric_mean_range`; a member that reported
/// no step contributes its ratio to both ends). Nothing changes when no member reported one.
fn floor_suite(suite: &mut SuiteRecord, ranges: &[(f64, Option<(f64, f64)>)]) {
    if ranges.iter().all(|(_, r)| r.is_none()) {
        return;
    }
    let ends: Vec<(f64, f64)> = ranges
        .iter()
        .map(|&(ratio, range)| range.unwrap_or((ratio, ratio)))
        .collect();
    let Some((lower, upper)) = rigor_stats::compare::geometric_mean_range(&ends) else {
        return;
    };
    let ci = &mut suite.ci;
    if lower < ci.lower || upper > ci.upper {
        ci.lower = ci.lower.min(lower);
        ci.upper = ci.upper.max(upper);
        suite.at_resolution = true;
    }
}

/// Benjamini–Hochberg across several comparisons: a change whose adjusted p-value exceeds
/// α = 1 − level is not reported as a change.
pub(crate) fn control_fdr(out: &mut [Computed], level: f64) {
    if out.len() < 2 {
        return;
    }
    let p: Vec<f64> = out.iter().map(|c| c.comparison.p_value).collect();
    let Ok(q) = bh_adjusted(&p) else { return };
    for (c, q) in out.iter_mut().zip(q) {
        c.q_value = Some(q);
        if c.comparison.verdict.is_change() && q > 1.0 - level {
            c.comparison.verdict = Verdict::Inconclusive;
            c.fdr_demoted = true;
        }
    }
}

/// The report crate's views of the comparisons.
pub fn views(computed: &[Computed]) -> Vec<ComparisonView<'_>> {
    computed.iter().map(Computed::view).collect()
}

/// The report crate's view of a suite's geometric mean.
pub fn suite_view(s: &SuiteRecord) -> rigor_report::comparison::SuiteView {
    rigor_report::comparison::SuiteView {
        benchmarks: s.benchmarks,
        ratio: s.geometric_mean_ratio,
        level: s.ci.level,
        lower: s.ci.lower,
        upper: s.ci.upper,
        at_resolution: s.at_resolution,
        bootstrap: s.ci.method == RatioMethod::BootstrapPercentile,
        apart: None,
    }
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
                estimator: x.estimator,
                ratio: x.ratio,
                ci: x.ci,
                // Withheld: its resampled interval holds the conditions' difference too.
                bootstrap_ci: x
                    .bootstrap
                    .as_ref()
                    .filter(|_| !x.withheld)
                    .map(|b| BoundsRecord {
                        lower: b.lower,
                        upper: b.upper,
                    }),
                g: x.g,
                verdict: x.verdict,
                threshold: Fraction::new(x.threshold).unwrap_or_default(),
                effect: effect_text(&c.view()),
                paired: x.paired,
                p_value: x.p_value,
                p_test: Some(x.p_test),
                fdr_demoted: c.fdr_demoted,
                q_value: c.q_value,
                more_units: x.more_units,
                overlap_verdict: c.overlap,
                sequential: None,
                between_sessions: x.between_sessions,
                withheld: x.withheld,
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "comparisons_tests.rs"]
mod tests;
