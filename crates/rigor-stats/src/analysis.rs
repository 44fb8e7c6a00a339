//! One benchmark's standard analysis: the mean interval that respects the hierarchy, variance
//! components, descriptive statistics and the warnings a careful person would raise.
//!
//! Warnings are data ([`Warning`]); turning them into words is the reporter's job.

use serde::{Deserialize, Serialize};

use crate::descriptive::Summary;
use crate::dist::Quantile;
use crate::error::Result;
use crate::hierarchy::Hierarchy;
use crate::interval::{MeanInterval, mean_interval, pooled_interval};
use crate::variance::{VarianceComponents, variance_components};

/// Below this many top-level units an interval is unreliable (Kalibera & Jones).
pub const MIN_RELIABLE_TOP_UNITS: usize = crate::interval::RECOMMENDED_TOP_UNITS;

/// Settings of the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AnalysisConfig {
    /// Confidence level, e.g. 0.95.
    pub level: f64,
    /// Quantile of the mean interval.
    pub quantile: Quantile,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        Self {
            level: 0.95,
            quantile: Quantile::StudentT,
        }
    }
}

/// Something about the data the user should know and act on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Warning {
    /// Fewer than [`MIN_RELIABLE_TOP_UNITS`] top-level units.
    FewTopUnits {
        /// The top level's name.
        level: String,
        /// How many units it has.
        units: usize,
    },
    /// A level above the lowest holds most of the variance: repeating the lowest level more will
    /// not narrow the interval, and tools that pool the lowest level report too narrow intervals.
    UpperLevelDominates {
        /// The dominant level.
        level: String,
        /// The lowest level.
        lowest: String,
        /// Its share of the variance, percent.
        share: f64,
        /// How many times wider rigor's interval is than the naive pooled one.
        pooled_ratio: f64,
    },
    /// The top-level means are significantly skewed, so the interval was widened toward the
    /// skew and is asymmetric ([`crate::top_means::skew_adaptive_bounds`]).
    SkewAdjusted {
        /// The top level's name.
        level: String,
        /// The skewness test that rejected symmetry.
        test: crate::top_means::SkewTest,
        /// Top-level units to use ([`crate::top_means::SKEWED_UNITS_NEEDED`]) when there are
        /// fewer and no [`Warning::RareModes`] already says so.
        advise: Option<usize>,
        /// Which ends stop at the range of the means (the lowest, the highest unit's mean): the
        /// interval reaches no further than the units measured
        /// ([`crate::top_means::RANGE_HOLD_UNITS`]), so an end equal to the fastest or slowest
        /// unit is that rule, not a coincidence.
        #[serde(default)]
        held: Held,
    },
    /// The data are unbalanced; components come from Henderson's method I.
    Unbalanced,
    /// The top-level units were measured one after another, each in a block of its own (builds
    /// made and measured in turn), and vary: load that changed over the run is part of their
    /// variance, which is then not theirs alone. Set by whoever knows the measuring order.
    MeasuredInBlocks {
        /// The top level's name.
        level: String,
    },
    /// Executions that timed out are left out of the analysis: what remains is the executions
    /// that finished within the limit, whose mean is below the command's own when the slow
    /// ones are those that time out (a censored sample). Set by whoever knows the failures.
    TimedOutLeftOut {
        /// Executions left out.
        left_out: usize,
        /// Executions analysed.
        measured: usize,
    },
    /// The iteration times an execution reported add up to more than its wall time (`ratio`
    /// times, the median over executions): they cannot all have run inside it, so they are in
    /// another unit than they were read in, or ran in parallel. Set by whoever knows the wall
    /// times.
    IterationsExceedWall {
        /// Sum of an execution's iteration times over its wall time, the median over executions.
        ratio: f64,
    },
    /// The first executions, in the order they ran, were far slower than every later one
    /// ([`crate::slow_start`]): a cold start, which is in the mean. Set by whoever knows the
    /// order the executions ran in.
    SlowStart {
        /// How many leading executions, and their mean over the later ones' median.
        start: crate::slow_start::SlowStart,
    },
    /// The first executions were far slower than every later one ([`crate::slow_start`]) and
    /// were preempted far more often ([`crate::preemption::contended`]): other processes took
    /// their CPU. Not a cold start: more warm-up executions would not remove it. Set instead of
    /// [`Warning::SlowStart`] by whoever knows the executions' preemptions.
    ContendedStart {
        /// How many leading executions, and their mean over the later ones' median.
        start: crate::slow_start::SlowStart,
        /// Their preemptions a second, and the later ones'.
        preemption: crate::preemption::Preemption,
    },
    /// Executions in the middle of the run were preempted far more often than the rest and
    /// ran longer ([`crate::preemption::preempted`]): other processes took their CPU. They are
    /// in the mean. Set by whoever knows the executions' preemptions.
    Preempted {
        /// The executions, their preemptions and slowdown.
        found: crate::preemption::Preempted,
    },
    /// Executions killed by a signal (a crash) were recorded and left out, as `-i` asks: what
    /// remains is the executions that did not crash, which may not be the command's typical
    /// ones. Set by whoever knows the failures.
    CrashedLeftOut {
        /// Executions left out.
        left_out: usize,
        /// Executions analysed.
        measured: usize,
        /// The signals that killed them, ascending, each once.
        signals: Vec<i32>,
    },
    /// The top-level units' least samples fall into two states far apart, each tight
    /// ([`crate::states::two_states`]): a figure located over the units is the larger state's,
    /// and which state holds more units is chance.
    TwoStates {
        /// The top level's name.
        level: String,
        /// The states.
        states: crate::states::TwoStates,
    },
    /// The top-level means look multimodal or heavy-tailed and are too few to have seen a mode
    /// of one unit in five with 95% probability: a mode they missed is invisible to any
    /// interval.
    RareModes {
        /// The top level's name.
        level: String,
        /// The shape and the counts.
        modes: crate::top_means::RareModes,
    },
    /// The top level lies above the process executions (builds, machines: a hierarchy of three
    /// or more levels, or builds over executions) and has fewer units than rigor's interval needs
    /// whatever their means look like: 14 to see a mode of one unit in five with 95% probability
    /// (code layout, link order: Mytkowicz et al. 2009), and 20 for strongly skewed effects that
    /// few means hide ([`crate::top_means::SKEWED_UNITS_NEEDED`]). Below that, the experiments
    /// the data-driven warnings stay silent on cover as little as 29–32% (a far mode in one
    /// build in five, 6 builds) and 77–87% (log-normal builds, 8–14 builds), and nothing in
    /// their means tells them from normal ones (docs/validation/skewed.md, section 1c).
    ModeNotExcluded {
        /// The top level's name.
        level: String,
        /// How many units it has.
        units: usize,
        /// Units from which the interval holds 93% on the skewed and far-mode shapes of the
        /// validation report (20).
        needed: usize,
        /// Units needed to see a mode of one in five with 95% probability (14).
        to_see_mode: usize,
        /// Probability that `units` units miss such a mode: `0.8^units`.
        miss_probability: f64,
    },
    /// The interval was widened to ± half the step the values move in
    /// ([`Analysis::floor_at_resolution`]): the data alone gave a narrower one (values that tie
    /// on the clock's steps), which the clock that measured them cannot support.
    AtResolution {
        /// Half the step, as a percentage of the mean.
        percent: f64,
    },
}

/// Which ends of an interval stop at the range of the top-level means ([`Warning::SkewAdjusted`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    /// The lower end is the lowest unit's mean.
    pub low: bool,
    /// The upper end is the highest unit's mean.
    pub high: bool,
}

/// The analysis of one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Level names, top → bottom.
    pub levels: Vec<String>,
    /// Units per level, top → bottom.
    pub counts: Vec<usize>,
    /// The mean and its interval from top-level means (docs/methodology.md, "The interval").
    pub interval: MeanInterval,
    /// Variance components (docs/methodology.md, "Variance components").
    pub components: VarianceComponents,
    /// Descriptive statistics of all analysed values.
    pub summary: Summary,
    /// Warnings, most important first.
    pub warnings: Vec<Warning>,
}

impl Analysis {
    /// Widens the mean's interval to at least ± `half_step` (half the step the values move in,
    /// in their unit) when it is narrower, and says so with [`Warning::AtResolution`]. Values
    /// quantised by a coarse clock that all tie give an interval of width zero otherwise.
    /// Nothing changes for a half-step that is not positive and finite, or an interval already
    /// as wide. A lower bound that was not negative is taken no further than zero.
    pub fn floor_at_resolution(&mut self, half_step: f64) {
        let ci = &mut self.interval;
        let shorter_side = (ci.mean - ci.lower).min(ci.upper - ci.mean);
        if !(half_step > 0.0 && half_step.is_finite()) || shorter_side >= half_step {
            return;
        }
        let longer_side = (ci.mean - ci.lower).max(ci.upper - ci.mean);
        let lower_before = ci.lower;
        ci.widen_to(half_step);
        // Resolution is a clock's: the data are durations, and the floor takes a lower bound
        // that was not negative no further than zero.
        if lower_before >= 0.0 && ci.lower < 0.0 {
            ci.lower = 0.0;
            ci.half_width = (ci.upper - ci.lower) / 2.0;
        }
        if longer_side <= half_step {
            // The floor now makes both sides: a skew among values that tie on the clock's steps
            // (or differ by rounding) is no skew to widen for.
            ci.skew = None;
            self.warnings
                .retain(|w| !matches!(w, Warning::SkewAdjusted { .. }));
        }
        self.warnings.push(Warning::AtResolution {
            percent: 100.0 * half_step / ci.mean.abs(),
        });
    }
}

/// Analyses a hierarchy (at least two top-level units and two values).
pub fn analyze(h: &Hierarchy, config: &AnalysisConfig) -> Result<Analysis> {
    let interval = mean_interval(h, config.level, config.quantile)?;
    let components = variance_components(h)?;
    let summary = Summary::of(h.values())?;
    let mut warnings = Vec::new();
    if h.units(0) < MIN_RELIABLE_TOP_UNITS {
        warnings.push(Warning::FewTopUnits {
            level: h.levels()[0].clone(),
            units: h.units(0),
        });
    }
    // With one measurement per unit of the level above, pooling is not possible: no warning.
    let lowest_has_df = components.components.last().is_some_and(|c| c.df > 0);
    if h.depth() >= 2 && lowest_has_df {
        let shares = components.shares();
        let lowest = h.depth() - 1;
        if let Some((k, &share)) = shares[..lowest]
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
        {
            let pooled_ratio = if share > 50.0 {
                interval.half_width / pooled_interval(h, config.level, config.quantile)?.half_width
            } else {
                f64::NAN
            };
            // Only where pooling would narrow the interval: with rounding dust for variance
            // (values that tie within each unit) the share is noise, and the ratio was printed as
            // "0.0× too narrow".
            if pooled_ratio.is_finite() && pooled_ratio > 1.0 {
                warnings.push(Warning::UpperLevelDominates {
                    level: h.levels()[k].clone(),
                    lowest: h.levels()[lowest].clone(),
                    share,
                    pooled_ratio,
                });
            }
        }
    }
    if let Some(modes) = crate::top_means::rare_modes(&crate::top_means::TopUnits::of(h))? {
        warnings.push(Warning::RareModes {
            level: h.levels()[0].clone(),
            modes,
        });
    }
    if let Some(states) = h.top_minima().and_then(|m| crate::states::two_states(&m)) {
        warnings.push(Warning::TwoStates {
            level: h.levels()[0].clone(),
            states,
        });
    }
    let said = warnings
        .iter()
        .any(|w| matches!(w, Warning::RareModes { .. }));
    if let Some(w) = mode_not_excluded(h, said)? {
        warnings.push(w);
    }
    if let Some(test) = interval.skew {
        let needed = crate::top_means::SKEWED_UNITS_NEEDED;
        let means = h.top_means();
        let (min, max) = means
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &y| {
                (lo.min(y), hi.max(y))
            });
        let range = h.units(0) >= crate::top_means::RANGE_HOLD_UNITS;
        warnings.push(Warning::SkewAdjusted {
            level: h.levels()[0].clone(),
            test,
            advise: (h.units(0) < needed && !said).then_some(needed),
            held: Held {
                low: range && interval.lower <= min,
                high: range && interval.upper >= max,
            },
        });
    }
    if !h.is_balanced() {
        warnings.push(Warning::Unbalanced);
    }
    Ok(Analysis {
        levels: h.levels().to_vec(),
        counts: h.counts(),
        interval,
        components,
        summary,
        warnings,
    })
}

/// [`Warning::ModeNotExcluded`] for `h` when its top level is above the executions (three or
/// more levels, or a level named `execution` below the top, as rigor's builds have) and has fewer units than it takes to see a mode of
/// [`crate::top_means::RARE_MODE_SHARE`] with [`crate::top_means::RARE_MODE_PROBABILITY`], and
/// no [`Warning::RareModes`] has already said so (`said`).
fn mode_not_excluded(h: &Hierarchy, said: bool) -> Result<Option<Warning>> {
    use crate::top_means::{
        RARE_MODE_PROBABILITY, RARE_MODE_SHARE, SKEWED_UNITS_NEEDED, miss_probability,
        units_to_see_mode,
    };
    let to_see_mode = units_to_see_mode(RARE_MODE_SHARE, RARE_MODE_PROBABILITY)?;
    let needed = to_see_mode.max(SKEWED_UNITS_NEEDED);
    let units = h.units(0);
    let above_executions = h.depth() >= 3 || h.levels().get(1).is_some_and(|l| l == "execution");
    Ok(
        (above_executions && units < needed && !said).then(|| Warning::ModeNotExcluded {
            level: h.levels()[0].clone(),
            units,
            needed,
            to_see_mode,
            miss_probability: miss_probability(RARE_MODE_SHARE, units),
        }),
    )
}

#[cfg(test)]
mod tests {
    /// An end held at the range of the means is said to be (a trial read `[1.659 ms .. 3.505 ms]`,
    /// the fastest and slowest of ten runs, as a coincidence or a bug); an end inside it is not.
    #[test]
    fn an_end_held_at_the_range_of_the_means_is_said() {
        let held_of = |values: Vec<f64>| {
            let h = Hierarchy::flat("execution", values).unwrap();
            let a = analyze(&h, &AnalysisConfig::default()).unwrap();
            let held = a.warnings.iter().find_map(|w| match w {
                Warning::SkewAdjusted { held, .. } => Some(*held),
                _ => None,
            });
            (a.interval, held)
        };
        let mut skewed = vec![1.0; 11];
        skewed.push(5.0);
        let (ci, held) = held_of(skewed);
        let held = held.expect("skewed");
        // Eleven alike and one far above: the lower end stops at the eleven.
        assert_eq!(ci.lower, 1.0, "{ci:?}");
        assert!(ci.upper < 5.0, "{ci:?}");
        assert!(held.low && !held.high, "{held:?} {ci:?}");
        // A milder skew whose widened end stays inside the data.
        let mild: Vec<f64> = (0..40)
            .map(|i| 1.0 + f64::from(i).powi(2) / 400.0)
            .collect();
        let (ci, held) = held_of(mild);
        if let Some(held) = held {
            assert!(!held.high && !held.low, "{held:?} {ci:?}");
        }
    }
    use super::*;

    #[test]
    fn a_tied_interval_is_floored_at_half_a_step() {
        let mut b = crate::HierarchyBuilder::new(["execution", "iteration"]);
        for e in 0..10usize {
            for _ in 0..20 {
                b.push(&[e], 3.0);
            }
        }
        let mut a = analyze(&b.build().unwrap(), &AnalysisConfig::default()).unwrap();
        assert!(a.interval.half_width < 1e-12, "{:?}", a.interval);
        // Values in steps of 0.02: ± 0.01 at least, 0.333% of 3.
        a.floor_at_resolution(0.01);
        let ci = a.interval;
        assert!((ci.half_width - 0.01).abs() < 1e-12, "{ci:?}");
        assert!(
            (ci.lower - 2.99).abs() < 1e-12 && (ci.upper - 3.01).abs() < 1e-12,
            "{ci:?}"
        );
        let Some(Warning::AtResolution { percent }) = a.warnings.last() else {
            panic!("{:?}", a.warnings)
        };
        assert!((percent - 1.0 / 3.0).abs() < 1e-12, "{percent}");
        // A wider interval, or no step, is left alone.
        let before = a.clone();
        a.floor_at_resolution(0.005);
        a.floor_at_resolution(f64::NAN);
        assert_eq!(a, before);
        // A half-step beyond the estimate: the lower bound stops at zero (a duration).
        a.floor_at_resolution(5.0);
        let ci = a.interval;
        assert_eq!(ci.lower, 0.0, "{ci:?}");
        assert!(
            (ci.upper - 8.0).abs() < 1e-12 && (ci.half_width - 4.0).abs() < 1e-12,
            "{ci:?}"
        );
    }

    fn two_level(groups: &[Vec<f64>]) -> Analysis {
        let h = Hierarchy::two_level(["execution", "iteration"], groups).unwrap();
        analyze(&h, &AnalysisConfig::default()).unwrap()
    }

    #[test]
    fn values_that_tie_within_units_say_nothing_of_dominance() {
        // Every value the same (a benchmark at its timer's resolution): the variance found is
        // rounding dust of the means, and its shares are noise.
        let a = two_level(&vec![vec![4e-8; 5]; 4]);
        assert!(
            !a.warnings
                .iter()
                .any(|w| matches!(w, Warning::UpperLevelDominates { .. })),
            "{:?}",
            a.warnings
        );
    }

    #[test]
    fn warns_when_executions_dominate_and_few_units() {
        let a = two_level(&[vec![1.0, 1.01], vec![2.0, 2.01], vec![3.0, 3.02]]);
        assert!(matches!(
            a.warnings[0],
            Warning::FewTopUnits { units: 3, .. }
        ));
        match &a.warnings[1] {
            Warning::UpperLevelDominates {
                level,
                share,
                pooled_ratio,
                ..
            } => {
                assert_eq!(level, "execution");
                assert!(*share > 99.0);
                assert!(*pooled_ratio > 1.0);
            }
            w => panic!("unexpected {w:?}"),
        }
    }

    #[test]
    fn no_pooling_warning_with_one_iteration_per_execution() {
        let groups: Vec<Vec<f64>> = (0..6).map(|i| vec![1.0 + i as f64]).collect();
        let a = two_level(&groups);
        assert!(a.warnings.is_empty(), "{:?}", a.warnings);
    }

    #[test]
    fn executions_whose_minima_fall_into_two_states_are_warned_of() {
        // 30 executions of 20 iterations: a third with their least near 0.5, the rest near 1.
        let rows: Vec<Vec<f64>> = (0..30)
            .map(|e| {
                let at = if e % 3 == 0 { 0.5 } else { 1.0 };
                (0..20)
                    .map(|i| at * (1.0 + 0.001 * (i as f64 + e as f64 % 7.0)))
                    .collect()
            })
            .collect();
        let h = Hierarchy::two_level(["execution", "iteration"], &rows).unwrap();
        let a = analyze(&h, &AnalysisConfig::default()).unwrap();
        let states = a.warnings.iter().find_map(|w| match w {
            Warning::TwoStates { level, states } => Some((level.clone(), *states)),
            _ => None,
        });
        let (level, s) = states.expect("two states");
        assert_eq!((level.as_str(), s.low, s.high), ("execution", 10, 20));
        // One state: no warning.
        let one: Vec<Vec<f64>> = (0..30)
            .map(|e| (0..20).map(|i| 1.0 + 0.001 * (i + e % 7) as f64).collect())
            .collect();
        let h = Hierarchy::two_level(["execution", "iteration"], &one).unwrap();
        let a = analyze(&h, &AnalysisConfig::default()).unwrap();
        assert!(
            !a.warnings
                .iter()
                .any(|w| matches!(w, Warning::TwoStates { .. })),
            "{:?}",
            a.warnings
        );
    }

    #[test]
    fn skewed_few_builds_warn_of_rare_modes() {
        let groups: Vec<Vec<f64>> = [1.2, 0.9, 1.1, 3.5, 1.0, 1.3]
            .iter()
            .map(|&m| vec![m - 0.01, m + 0.01])
            .collect();
        let h = Hierarchy::two_level(["build", "execution"], &groups).unwrap();
        let a = analyze(&h, &AnalysisConfig::default()).unwrap();
        match a
            .warnings
            .iter()
            .find(|w| matches!(w, Warning::RareModes { .. }))
        {
            Some(Warning::RareModes { level, modes }) => {
                assert_eq!(level, "build");
                assert_eq!((modes.units, modes.needed), (6, 14));
            }
            _ => panic!("no rare-modes warning in {:?}", a.warnings),
        }
        // Said once: the standing count (ModeNotExcluded) does not repeat it.
        assert!(standing(&a).is_empty(), "{:?}", a.warnings);
    }

    /// Regular-looking means: 3 × 2 × 2 values around build means (1.0, 1.1, ..., 1.0 + 0.1·(k−1)).
    fn three_level(builds: usize) -> Hierarchy {
        let values: Vec<f64> = (0..builds)
            .flat_map(|b| {
                let m = 1.0 + 0.1 * (b % 7) as f64;
                [m - 0.01, m + 0.01, m - 0.02, m + 0.02]
            })
            .collect();
        Hierarchy::balanced(
            vec!["build", "execution", "iteration"],
            &[builds, 2, 2],
            values,
        )
        .unwrap()
    }

    fn standing(a: &Analysis) -> Vec<&Warning> {
        a.warnings
            .iter()
            .filter(|w| matches!(w, Warning::ModeNotExcluded { .. }))
            .collect()
    }

    /// Fewer than 20 builds cannot exclude a mode of one build in five however regular their
    /// means look: the analysis says so, with 20 units to use and 14 to see the mode.
    #[test]
    fn few_builds_cannot_exclude_a_mode() {
        let a = analyze(&three_level(6), &AnalysisConfig::default()).unwrap();
        // The probability to 10⁻¹² (an optimised build may fold 0.8⁶ at compile time, to a
        // different last bit).
        let [
            Warning::ModeNotExcluded {
                level,
                units: 6,
                needed: 20,
                to_see_mode: 14,
                miss_probability,
            },
        ] = standing(&a)[..]
        else {
            panic!("{:?}", a.warnings);
        };
        assert_eq!(level, "build");
        assert!((miss_probability - 0.8f64.powi(6)).abs() < 1e-12);
        assert!((0.8f64.powi(6) - 0.262144).abs() < 1e-12);
        let a = analyze(&three_level(19), &AnalysisConfig::default()).unwrap();
        assert_eq!(standing(&a).len(), 1, "{:?}", a.warnings);
        let a = analyze(&three_level(20), &AnalysisConfig::default()).unwrap();
        assert!(standing(&a).is_empty(), "{:?}", a.warnings);
    }

    /// Builds over executions (two levels, as rigor names them) count too; executions over
    /// iterations do not: the standing count is about units above the process.
    #[test]
    fn standing_count_only_above_executions() {
        let groups: Vec<Vec<f64>> = (0..6).map(|i| vec![1.0 + 0.1 * i as f64, 1.05]).collect();
        let builds = Hierarchy::two_level(["build", "execution"], &groups).unwrap();
        let a = analyze(&builds, &AnalysisConfig::default()).unwrap();
        assert_eq!(standing(&a).len(), 1, "{:?}", a.warnings);
        let a = two_level(&groups);
        assert!(standing(&a).is_empty(), "{:?}", a.warnings);
    }

    #[test]
    fn unbalanced_is_flagged() {
        let a = two_level(&[
            vec![1.0, 1.1],
            vec![2.0],
            vec![1.5, 1.4, 1.6],
            vec![1.2, 1.3],
            vec![1.0, 1.1],
        ]);
        assert!(a.warnings.contains(&Warning::Unbalanced));
    }
}
