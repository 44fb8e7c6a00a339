//! Whether two sides of a comparison measured apart were measured under the same conditions:
//! each benchmark's CPU share ([`rigor_store::CpuShare`]), contention measured over exactly the
//! time measured. A side measured under contention the other did not see differs from it by
//! that, which no interval of either holds: its verdict is withheld, with a warning that says
//! why (`rigor track check FILE`, `rigor bench --baseline`, `rigor compare` of separate runs).

use std::collections::HashMap;

use rigor_stats::compare::Verdict;
use rigor_store::warning::QueueShares;
use rigor_store::{ComparedWith, CpuShare, QueueShare, Queued, ResultFile, Warning};
use rigor_units::Metric;

use crate::comparisons::Computed;

/// The least tolerance of the CPU-share rule: quiet runs of a CPU-bound program agree within
/// 0.1% (0.9961–0.9975 over 12 runs of a C program in 3 sessions), so half a percent is well
/// beyond their noise.
pub const SHARE_TOLERANCE_FLOOR: f64 = 0.005;

/// How far outside the history's range a candidate's CPU share may lie before its verdict is
/// withheld: half the practical threshold (contention alone then moves a CPU-bound program's
/// wall time by half of what counts as a change), and at least [`SHARE_TOLERANCE_FLOOR`].
pub fn share_tolerance(threshold: f64) -> f64 {
    (threshold / 2.0).max(SHARE_TOLERANCE_FLOOR)
}

/// Whether conditions bear on `metric`: the times do (wall time most, CPU time a little, from
/// shared caches); counts, memory and what a program reported do not.
pub fn bear_on(metric: &Metric) -> bool {
    matches!(
        metric,
        Metric::Wall | Metric::Cpu | Metric::User | Metric::System
    )
}

/// How far apart, as a share of the machine's CPUs, what other processes used over two sides
/// must be for them to count as measured under other conditions ([`Sides`]): a quarter (half a
/// CPU of two). Below it each benchmark's own CPU share decides ([`contention`]).
pub const OTHERS_GAP: f64 = 0.25;

/// CPU shares by benchmark: the runs a side of a comparison is judged against.
pub type Shares = HashMap<String, Vec<CpuShare>>;

/// What a result measured apart is judged against: the compared runs' shares, what they are,
/// and what other processes used over them.
pub type JudgedAgainst<'a> = (&'a Shares, ComparedWith, OthersUse);

/// Each benchmark's CPU share in `result` (one each; none where its executions recorded no CPU
/// time).
pub fn shares_of<'a>(
    results: impl IntoIterator<Item = &'a ResultFile>,
) -> HashMap<String, Vec<CpuShare>> {
    let mut out: HashMap<String, Vec<CpuShare>> = HashMap::new();
    for r in results {
        for b in &r.benchmarks {
            if let Some(share) = CpuShare::of_executions(&b.executions) {
                out.entry(b.name.clone()).or_default().push(share);
            }
        }
    }
    out
}

/// What [`contention`] found.
#[derive(Debug, Default, PartialEq)]
pub struct Contention {
    /// Some benchmark had a share on both sides: contention was judged.
    pub judged: bool,
    /// One [`Warning::ContentionDiffers`] per benchmark whose share differs.
    pub warnings: Vec<Warning>,
}

/// What other processes used of the machine's CPUs over a side's runs
/// ([`rigor_store::Provenance::others_cpus`]): the least and the most over its runs, known only
/// where every one of them measured it (not an older or imported file).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct OthersUse {
    /// (least, most) CPUs others kept busy over a run; `None` where not known for every run.
    range: Option<(f64, f64)>,
    /// The machine's logical CPUs (at least 1).
    cpus: usize,
}

impl OthersUse {
    /// Over one result's run.
    pub fn of(result: &ResultFile) -> Self {
        Self::of_runs([result.provenance.others_cpus], result.environment.cpus)
    }

    /// Over several results' runs (a baseline's sessions).
    pub fn of_all<'a>(results: impl IntoIterator<Item = &'a ResultFile>) -> Self {
        let mut cpus = 1;
        let used: Vec<Option<f64>> = results
            .into_iter()
            .map(|r| {
                cpus = cpus.max(r.environment.cpus);
                r.provenance.others_cpus
            })
            .collect();
        Self::of_runs(used, cpus)
    }

    /// Over runs that measured `used` each (`None`: not measured) on a machine of `cpus`.
    pub fn of_runs(used: impl IntoIterator<Item = Option<f64>>, cpus: usize) -> Self {
        // Every run's figure, or none: one run not measured leaves the side unknown.
        let used: Option<Vec<f64>> = used
            .into_iter()
            .map(|u| u.filter(|u| u.is_finite()))
            .collect();
        let range = used.and_then(|u| {
            let lo = u.iter().copied().reduce(f64::min)?;
            Some((lo, u.iter().copied().fold(lo, f64::max)))
        });
        Self {
            range,
            cpus: cpus.max(1),
        }
    }

    /// Known to have had the CPUs to itself: others kept under half of them busy over every
    /// run ([`rigor_store::warning::busy`]).
    pub fn quiet(&self) -> bool {
        self.range
            .is_some_and(|(_, hi)| !rigor_store::warning::busy(hi, self.cpus))
    }

    /// Known busy: others kept at least half the CPUs busy over every run.
    pub fn busy(&self) -> bool {
        self.range
            .is_some_and(|(lo, _)| rigor_store::warning::busy(lo, self.cpus))
    }
}

/// What other processes used over each side of a comparison ([`OthersUse`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Sides {
    /// The candidate (the new result).
    pub candidate: OthersUse,
    /// The runs it is compared with.
    pub others: OthersUse,
}

impl Sides {
    /// [`Warning::OthersDiffer`] where one side is known busy and the other known quiet, by at
    /// least [`OTHERS_GAP`] of the machine's CPUs between the busy side's least and the quiet
    /// side's most: two runs beside the same steady load of about half the CPUs (1.00 and
    /// 0.998 of 2) fall on either side of the line between busy and quiet, and were said to
    /// have been measured under other conditions.
    pub fn differ(&self, against: ComparedWith) -> Option<Warning> {
        let (c, o) = (self.candidate, self.others);
        if !(c.busy() && o.quiet() || c.quiet() && o.busy()) {
            return None;
        }
        let ((candidate, candidate_high), (low, high)) = (c.range?, o.range?);
        let gap = if c.busy() {
            candidate - high
        } else {
            low - candidate_high
        };
        let cpus = c.cpus.max(o.cpus) as f64;
        if gap < OTHERS_GAP * cpus {
            return None;
        }
        let centi = rigor_store::warning::hundredths;
        Some(Warning::OthersDiffer {
            against,
            candidate: centi(candidate),
            others_low: centi(low),
            others_high: centi(high),
            cpus: c.cpus.max(o.cpus),
        })
    }
}

/// Where one side is known busy and the other known quiet (`sides`), one
/// [`Warning::OthersDiffer`] for every benchmark. Otherwise each benchmark of `candidate` whose
/// CPU share lies outside the range of `others`' shares for it (the runs it is compared with,
/// `against`) by more than `tolerance` ([`rigor_store::contention::differs`]):
/// [`Warning::ContentionDiffers`], its verdict to be withheld, unless the side with the lower
/// share is known to have been measured quiet: then no process contended, the code itself
/// waits more there, and a note says so ([`Warning::WaitsDiffer`]) while the verdict stands. A
/// change that adds a 3 ms sleep to a 55 ms program, measured quiet, was withheld before this
/// and passed a `--fail-on regression` gate; a candidate measured beside two busy loops whose
/// median share stayed at 99.6% (three executions of ten at half a CPU, its mean time up by a
/// quarter) was taken for one that waits less before the busy side was judged first.
pub fn contention(
    candidate: &ResultFile,
    others: &HashMap<String, Vec<CpuShare>>,
    tolerance: f64,
    against: ComparedWith,
    sides: Sides,
) -> Contention {
    let mut found = Contention::default();
    if let Some(w) = sides.differ(against) {
        found.judged = true;
        found.warnings.push(w);
        return found;
    }
    for b in &candidate.benchmarks {
        let (Some(share), Some(stored)) = (
            CpuShare::of_executions(&b.executions),
            others.get(&b.name).filter(|s| !s.is_empty()),
        ) else {
            continue;
        };
        found.judged = true;
        found
            .warnings
            .extend(judge(&b.name, &[share], stored, tolerance, against, sides));
    }
    found
}

/// One benchmark's contention: the `candidate` side's shares (one result's, or a version's
/// runs') against the `others` side's, as [`contention`] says — the run queue first where
/// every run has it ([`Warning::QueueDiffers`] where every candidate run lies apart from the
/// others' range on one side; alike for every one, a gap in CPU share is the program's own
/// waiting), else the CPU share ([`Warning::ContentionDiffers`] where every candidate share
/// lies outside the others' range on one side, unless the side with the lower shares is known
/// quiet, or the run queues were alike: then [`Warning::WaitsDiffer`]). Each figure a
/// warning gives is the candidate runs' lowest and (where it differs) highest.
fn judge(
    benchmark: &str,
    candidate: &[CpuShare],
    others: &[CpuShare],
    tolerance: f64,
    against: ComparedWith,
    sides: Sides,
) -> Option<Warning> {
    let span = |v: Vec<u32>| Some((v.iter().copied().min()?, v.iter().copied().max()?));
    let high = |lo: u32, hi: u32| (hi != lo).then_some(hi);
    // Every candidate figure below the others' lowest, or every one above their highest, by
    // more than `margin`.
    let one_side = |mine: Vec<f64>, theirs: Vec<f64>, margin: f64| {
        let low = theirs.iter().copied().fold(f64::INFINITY, f64::min);
        let high = theirs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        mine.iter().all(|&x| x < low - margin) || mine.iter().all(|&x| x > high + margin)
    };
    let queues = |s: &[CpuShare]| s.iter().map(|x| x.queue()).collect::<Option<Vec<_>>>();
    let mut alike = None;
    // The mean shares apart by more than the tolerance, shown or not: what the wall times hold.
    let mut uneven = None;
    if let (Some(mine), Some(theirs)) = (queues(candidate), queues(others)) {
        let judged: Vec<Queued> = mine
            .iter()
            .map(|q| rigor_store::contention::queued(*q, &theirs, tolerance))
            .collect();
        let per_mille = |q: &[QueueShare]| q.iter().map(|q| q.per_mille()).collect();
        let ((lo, hi), (others_low, others_high)) =
            (span(per_mille(&mine))?, span(per_mille(&theirs))?);
        let get = |q: &[QueueShare]| q.iter().map(|q| q.get()).collect();
        if judged.iter().all(|j| *j == Queued::Differs) && one_side(get(&mine), get(&theirs), 0.0) {
            return Some(Warning::QueueDiffers {
                benchmark: benchmark.to_string(),
                against,
                candidate: lo,
                candidate_high: high(lo, hi),
                others_low,
                others_high,
            });
        }
        if judged.iter().all(|j| *j == Queued::Alike) {
            alike = Some(QueueShares {
                candidate: lo,
                others_low,
                others_high,
            });
        }
        if one_side(get(&mine), get(&theirs), tolerance) {
            uneven = Some(Warning::WaitedUnevenly {
                benchmark: benchmark.to_string(),
                against,
                candidate: lo,
                others_low,
                others_high,
            });
        }
    }
    let get = |s: &[CpuShare]| s.iter().map(|s| s.get()).collect();
    let differ = candidate
        .iter()
        .all(|s| rigor_store::contention::differs(*s, others, tolerance));
    if !differ || !one_side(get(candidate), get(others), 0.0) {
        return uneven;
    }
    // The side with the lower shares known quiet: its code waits more, not contention. (Every
    // candidate share lies on one side of all the others', so any pair tells which.)
    let lower_quiet = if candidate[0].get() < others[0].get() {
        sides.candidate.quiet()
    } else {
        sides.others.quiet()
    };
    let per_mille = |s: &[CpuShare]| s.iter().map(|s| s.per_mille()).collect();
    let ((lo, hi), (others_low, others_high)) =
        (span(per_mille(candidate))?, span(per_mille(others))?);
    let benchmark = benchmark.to_string();
    Some(if lower_quiet || alike.is_some() {
        Warning::WaitsDiffer {
            benchmark,
            against,
            candidate: lo,
            others_low,
            others_high,
            queued: alike,
        }
    } else {
        Warning::ContentionDiffers {
            benchmark,
            against,
            candidate: lo,
            candidate_high: high(lo, hi),
            others_low,
            others_high,
        }
    })
}

/// Across runs (`rigor compare OLD… -- NEW…`, no side known busy against the other known
/// quiet): whether benchmark `name`'s new version was measured under other contention than its
/// old one, which no spread between runs holds (judged as [`contention`] judges one result, over every run of both versions): the
/// warning that withholds its verdict ([`concerns`]), if any. `None` also where a run has no
/// CPU times (an imported file).
pub fn contention_across_runs<'a>(
    name: &str,
    old: &[&'a ResultFile],
    new: &[&'a ResultFile],
    tolerance: f64,
    sides: Sides,
) -> Option<Warning> {
    let shares = |runs: &[&'a ResultFile]| -> Option<Vec<CpuShare>> {
        runs.iter()
            .map(|r| {
                let b = r.benchmarks.iter().find(|b| b.name == name)?;
                CpuShare::of_executions(&b.executions)
            })
            .collect()
    };
    let (old, new) = (shares(old)?, shares(new)?);
    if new.is_empty() || old.is_empty() {
        return None;
    }
    judge(name, &new, &old, tolerance, ComparedWith::OldRuns, sides).filter(|w| concerns(w, name))
}

/// Whether `warning` withholds the benchmark `name`'s verdict: a CPU share its own, a
/// condition of the whole run (the machine's load, the time) every benchmark's; anything else
/// (a note that the code waits more) none.
pub fn concerns(warning: &Warning, name: &str) -> bool {
    match warning {
        Warning::ContentionDiffers { benchmark, .. } | Warning::QueueDiffers { benchmark, .. } => {
            benchmark == name
        }
        Warning::LoadDiffers { .. }
        | Warning::OthersDiffer { .. }
        | Warning::FarFromSessions { .. } => true,
        _ => false,
    }
}

/// Whether a verdict stands although its two sides were measured under other contention
/// ([`Warning::contended_candidate`]): the contended side was the faster, by more than the
/// `threshold` even were contention to have sped it up by
/// [`rigor_store::contention::CONTENTION_MARGIN`] (a load can hold a CPU's clock up). Contention
/// only slows a program otherwise, so a side that was faster under it is faster without it,
/// by at least as much. `interval` is the ratio candidate / the others' (`None`: unbounded).
/// A quiet candidate 2.6 times slower than a history measured beside busy loops was withheld
/// before this, and passed a `--fail-on regression` gate.
pub fn stands_despite_contention(
    verdict: Verdict,
    interval: Option<(f64, f64)>,
    threshold: f64,
    candidate_contended: bool,
) -> bool {
    let Some((lower, upper)) = interval else {
        return false;
    };
    let sped_up = 1.0 + rigor_store::contention::CONTENTION_MARGIN;
    if candidate_contended {
        // Its time without contention at most `sped_up` times what was measured.
        verdict == Verdict::Improvement && upper * sped_up < 1.0 - threshold
    } else {
        verdict == Verdict::Regression && lower / sped_up > 1.0 + threshold
    }
}

/// [`Warning::StandsDespiteContention`] for `benchmark` where `warning` withholds for
/// contention and its verdict (with `interval`, candidate / the others') stands all the same
/// ([`stands_despite_contention`] at `threshold`); `None` where it is to be withheld.
pub fn stood(
    warning: &Warning,
    benchmark: &str,
    (verdict, interval): (Verdict, Option<(f64, f64)>),
    threshold: f64,
    against: ComparedWith,
) -> Option<Warning> {
    let candidate_contended = warning.contended_candidate()?;
    stands_despite_contention(verdict, interval, threshold, candidate_contended).then(|| {
        Warning::StandsDespiteContention {
            benchmark: benchmark.to_string(),
            against,
            candidate_contended,
        }
    })
}

/// What [`withhold`] did.
#[derive(Debug, Default, PartialEq)]
pub struct Withheld {
    /// Some verdict was withheld.
    pub any: bool,
    /// The benchmarks whose verdicts stood although the warning concerns them
    /// ([`stands_despite_contention`]), each with its note
    /// ([`Warning::StandsDespiteContention`]).
    pub stood: Vec<Warning>,
}

/// Withholds the verdicts of the `comparisons` that `warning` concerns ([`concerns`]): each
/// inconclusive, its interval unbounded and marked withheld, and the non-overlap rule's verdict
/// dropped (it sets the same contended intervals side by side) — except where the side that
/// warning says was contended was the faster beyond what contention explains
/// ([`stands_despite_contention`]): a note each. The false-discovery control across the
/// comparisons is done again with the withheld ones' p = 1 (a q-value stays at least its
/// p-value: "p = 1.000, q < 0.001" was shown before).
pub fn withhold(
    comparisons: &mut [Computed],
    warning: &Warning,
    against: ComparedWith,
) -> Withheld {
    let done = withhold_each(comparisons, warning, against);
    if done.any && comparisons.iter().any(|c| c.q_value.is_some()) {
        let level = comparisons[0].comparison.level;
        crate::comparisons::control_fdr(comparisons, level);
    }
    done
}

/// [`withhold`] without the false-discovery control again.
fn withhold_each(
    comparisons: &mut [Computed],
    warning: &Warning,
    against: ComparedWith,
) -> Withheld {
    let mut done = Withheld::default();
    for c in comparisons.iter_mut() {
        // A comparison of two results names its sides "NAME (new)" and "NAME (old)".
        let name = c
            .candidate
            .strip_suffix(crate::comparisons::NEW)
            .unwrap_or(&c.candidate);
        if !concerns(warning, name) {
            continue;
        }
        let k = &c.comparison;
        let shown = (k.verdict, k.ci.map(|ci| (ci.lower, ci.upper)));
        if let Some(note) = stood(warning, name, shown, k.threshold, against) {
            done.stood.push(note);
            continue;
        }
        c.comparison.withhold();
        c.overlap = None;
        done.any = true;
    }
    done
}

/// `compared` (a comparison of result files measured apart) with the verdicts of the benchmarks
/// of `new` measured under other contention than `others` (by benchmark, `against`) withheld,
/// a warning each, and the suite's geometric mean dropped when any is (it would hold their
/// contention); the outcome decided again under the run's `settings`. Nothing where conditions
/// do not bear on the metric compared.
pub fn withhold_contended(
    compared: &mut crate::saved::ComparedFiles,
    new: &ResultFile,
    others: &HashMap<String, Vec<CpuShare>>,
    against: ComparedWith,
    sides: Sides,
    settings: &crate::settings::ComparisonSettings,
) {
    if !bear_on(&compared.metric) {
        return;
    }
    let found = contention(
        new,
        others,
        share_tolerance(settings.threshold.get()),
        against,
        sides,
    );
    let mut withheld = false;
    for w in found.warnings {
        let done = withhold(&mut compared.comparisons, &w, against);
        withheld |= done.any;
        // The busy side's own warning, carried from its run, says less than this one.
        if matches!(w, Warning::OthersDiffer { .. }) {
            compared
                .warnings
                .retain(|c| !matches!(c, Warning::OthersBusy { .. }));
        }
        compared.warnings.push(w);
        compared.warnings.extend(done.stood);
    }
    if withheld {
        compared.suite = None;
    }
    compared.decide(settings.fail_on);
}

/// The warning that `old` and `new` were measured in separate runs, unless they are one run
/// (the same start, or the same measurements) or rigor's runs of several files each (a
/// one-process format's files read as executions, where no start is kept). Another tool's
/// files are separate runs too when their starts are unknown.
pub(crate) fn separate_runs(old: &ResultFile, new: &ResultFile) -> Option<Warning> {
    let (a, b) = (old.provenance.started, new.provenance.started);
    if crate::saved::same_measurements(old, new) || (a.is_some() && a == b) {
        return None;
    }
    if a.is_none() && b.is_none() && old.provenance.imported_from.is_none() {
        return None;
    }
    Some(Warning::SeparateRuns {
        old_started: a.map(|t| t.strftime("%Y-%m-%d %H:%M:%S UTC").to_string()),
        new_started: b.map(|t| t.strftime("%Y-%m-%d %H:%M:%S UTC").to_string()),
        suite: [old, new].iter().all(|r| is_suite(r)),
    })
}

/// Whether `result` is a `rigor bench` run's: its benchmarks, a suite's functions, were not
/// compared with each other.
fn is_suite(result: &ResultFile) -> bool {
    result.settings.as_ref().is_some_and(|s| !s.compared_within)
}

/// The warnings each of two compared results carries, old's first, a busy machine labelled
/// with the run it was said of.
pub(crate) fn carried_warnings(old: &ResultFile, new: &ResultFile) -> Vec<Warning> {
    let sided = |r: &ResultFile, which: rigor_store::ResultSide| {
        r.warnings
            .iter()
            .cloned()
            .map(move |w| match w {
                Warning::OthersBusy { others, cpus, .. } => Warning::OthersBusy {
                    others,
                    cpus,
                    side: Some(which),
                },
                w => w,
            })
            .collect::<Vec<_>>()
    };
    let mut all = sided(old, rigor_store::ResultSide::Old);
    all.extend(sided(new, rigor_store::ResultSide::New));
    all
}

/// The warning that one of `base` and `cand` ran through a shell whose start-up was measured
/// (`net_of`) and the other directly: the start-up does not cancel in their comparison.
pub(crate) fn startup_one_side(
    result: &ResultFile,
    base: &rigor_store::BenchmarkRecord,
    cand: &rigor_store::BenchmarkRecord,
) -> Option<Warning> {
    let (through, direct) = match (&base.net_of, &cand.net_of) {
        (Some(_), None) => (base, cand),
        (None, Some(_)) => (cand, base),
        _ => return None,
    };
    let startup = through.net_of.clone()?;
    let startup_ns = result
        .benchmarks
        .iter()
        .find(|b| b.name == startup)
        .and_then(|b| Some(b.unit.to_seconds(b.analysis.as_ref()?.mean)))
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| (s * 1e9).round() as u64);
    Some(Warning::StartupOneSide {
        through_shell: through.name.clone(),
        direct: direct.name.clone(),
        startup,
        startup_ns,
    })
}

#[cfg(test)]
#[path = "conditions_tests.rs"]
mod tests;
