//! Warnings in words that tell the user what to do.

use rigor_stats::analysis::Warning;

use crate::format::percent;

/// The advice for one warning.
pub fn text(w: &Warning) -> String {
    match w {
        Warning::FewTopUnits { level, units } => format!(
            "only {units} {level}s: an interval from fewer than 5 {level}s is unreliable; use more {level}s"
        ),
        Warning::UpperLevelDominates { level, lowest, share, pooled_ratio } => format!(
            "{level}-to-{level} variation dominates ({} of the variance): more {level}s, not more {lowest}s, \
             will narrow this interval; a tool that pools {lowest}s as independent would report an \
             interval {pooled_ratio:.1}× too narrow",
            percent(*share)
        ),
        Warning::MeasuredInBlocks { level } => format!(
            "the {level}s were measured one after another, each in a block of its own: load that \
             changed over the run counts here as variance between {level}s. Measured in shared \
             rounds (with --build, each command running its build from {{build_dir}}), every \
             {level} would see the same load"
        ),
        Warning::TimedOutLeftOut { left_out, measured } => format!(
            "{} that timed out {} left out of the {measured} analysed: the mean is of those that \
             finished within the limit, below the command's own when its slow executions are \
             the ones that time out; raise --timeout to measure them",
            crate::format::count(*left_out, "execution", "executions"),
            if *left_out == 1 { "is" } else { "are" }
        ),
        Warning::SlowStart { start } => format!(
            "the first {} ran {}× as long as the median of the later ones (a cold start: \
             file-system caches, a JIT, the CPU's clock) and {} in the mean; raise -w/--warmup \
             by {} to run such executions before measuring",
            first_executions(start.executions),
            rigor_units::significant(start.ratio),
            if start.executions == 1 { "is" } else { "are" },
            start.executions,
        ),
        Warning::ContendedStart { start, preemption } => format!(
            "the first {} ran {}× as long as the median of the later ones and {} in the mean; \
             {} preempted {} times a second, the later ones {}: other processes took the CPU. \
             Not a cold start (-w/--warmup would not remove it): measure with the machine to \
             yourself, or with more executions",
            first_executions(start.executions),
            rigor_units::significant(start.ratio),
            if start.executions == 1 { "is" } else { "are" },
            if start.executions == 1 { "it was" } else { "they were" },
            preemption.rate.round(),
            preemption.usual.round(),
        ),
        Warning::Preempted { found } => format!(
            "{} of the {} executions {} preempted {} times a second, the others {}, and ran {}× \
             as long as the others' median: other processes took the CPU during {}. {} in the \
             mean (noise its interval holds, but no part of the program's own time): measure \
             with the machine to yourself",
            found.executions,
            found.of,
            if found.executions == 1 { "was" } else { "were" },
            found.preemption.rate.round(),
            found.preemption.usual.round(),
            rigor_units::significant(found.ratio),
            if found.executions == 1 { "it" } else { "them" },
            if found.executions == 1 { "It is" } else { "They are" },
        ),
        Warning::IterationsExceedWall { ratio } => format!(
            "the iteration times add up to {}× their execution's wall time (the median over \
             executions): they cannot have run one after another inside it. Numbers read from \
             the output are taken in --unit (seconds unless given): is it right? (Iterations \
             timed in parallel threads do add up to more.)",
            rigor_units::significant(*ratio)
        ),
        Warning::CrashedLeftOut {
            left_out,
            measured,
            signals,
        } => {
            let signals: Vec<String> = signals.iter().map(i32::to_string).collect();
            format!(
                "{} killed by a signal ({}) {} left out of the {measured} analysed (-i measures \
                 non-zero exits, not crashes): the mean is of the executions that did not crash, \
                 which may not be the command's typical ones",
                crate::format::count(*left_out, "execution", "executions"),
                signals.join(", "),
                if *left_out == 1 { "is" } else { "are" }
            )
        }
        Warning::Unbalanced => {
            "units have unequal numbers of measurements (failures, discards or an adaptive design): variance components \
             use Henderson's method I; the interval from top-level means stays valid"
                .to_string()
        }
        Warning::TwoStates { level, states } => format!(
            "the {level}s' least samples fall into two states: {} of {} sit {:.2}× below the \
             other {} (each process settles in one: where its code landed, the CPU it ran on). \
             A figure located over the {level}s is the larger state's, and which state holds \
             more {level}s is chance: another run can read up to {:.2}× apart",
            states.low,
            states.low + states.high,
            states.ratio,
            states.high,
            states.ratio,
        ),
        Warning::RareModes { level, modes } => {
            let shape = match modes.shape {
                rigor_stats::top_means::TopShape::Multimodal { modes: k, .. } => {
                    format!("fall into {k} groups")
                }
                _ => "are skewed or heavy-tailed".to_string(),
            };
            let skewed = if modes.needed > modes.to_see_mode() {
                format!(
                    "; use at least {} {level}s for the interval to hold its level on skewed means",
                    modes.needed
                )
            } else {
                String::new()
            };
            format!(
                "the {level} means {shape}: {} {level}s miss a mode of 1 {level} in 5 with \
                 probability {}, and no interval can show a mode it never saw; use at least {} \
                 {level}s to see such a mode with 95% probability ({} for 1 in 10){skewed}",
                modes.units,
                percent(100.0 * modes.miss_probability),
                modes.to_see_mode(),
                modes.needed_one_in_ten
            )
        }
        Warning::SkewAdjusted {
            level,
            test,
            advise,
            held,
        } => {
            // An end at the fastest or slowest unit is the rule that the interval reaches no
            // further than the data, not a coincidence (a trial read it as a bug).
            let held = match (held.low, held.high) {
                (true, true) => format!(
                    "; it ends at the lowest and the highest {level} mean, as far as the data \
                     reach"
                ),
                (true, false) => format!("; it ends at the lowest {level} mean, as far as the data reach"),
                (false, true) => format!("; it ends at the highest {level} mean, as far as the data reach"),
                (false, false) => String::new(),
            };
            let advice = advise.map_or_else(String::new, |needed| {
                format!(
                    "; with fewer than {needed} {level}s strongly skewed means are still covered \
                     less often than the level says: use {needed} or more"
                )
            });
            format!(
                "the {level} means look skewed (skewness {:.2}, {}; tested at {}): the \
                 interval is widened toward the skew (Johnson 1978; Hall 1992) and is \
                 asymmetric{held}{advice}",
                test.skewness,
                crate::comparison::p_text("p", test.p_value),
                percent(100.0 * rigor_stats::top_means::SKEW_TEST_ALPHA)
            )
        }
        Warning::ModeNotExcluded {
            level,
            units,
            needed,
            to_see_mode,
            miss_probability,
        } => format!(
            "{units} {level}s cannot exclude a mode of 1 {level} in 5 (code layout, link order) \
             nor a strong skew: they miss such a mode with probability {}, and then the interval \
             misses the mean however regular the {level} means look; {to_see_mode} {level}s see \
             such a mode with 95% probability, and from {needed} the interval holds its level \
             on skewed {level} effects: use at least {needed} {level}s",
            percent(100.0 * miss_probability)
        ),
        Warning::AtResolution { percent: p } => format!(
            "interval at the data's resolution (± {}, half a step): the values tie on the steps \
             they are measured in (a clock's, a kibibyte's, one event), and the data alone would \
             claim a precision the measurement does not have",
            percent(*p)
        ),
        _ => format!("{w:?}"),
    }
}

/// "the first execution", "the first 3 executions": the words after "the first" of a slow
/// start ("the first 1 execution" read wrong).
fn first_executions(n: usize) -> String {
    if n == 1 {
        "execution".to_string()
    } else {
        format!("{n} executions")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigor_stats::top_means::SkewTest;

    #[test]
    fn two_states_are_counted_and_their_ratio_given() {
        let w = Warning::TwoStates {
            level: "execution".into(),
            states: rigor_stats::states::TwoStates {
                low: 25,
                high: 55,
                ratio: 2.013,
            },
        };
        assert!(
            text(&w).starts_with(
                "the executions' least samples fall into two states: 25 of 80 sit 2.01× below \
                 the other 55"
            ),
            "{}",
            text(&w)
        );
    }

    /// A p-value too small for three decimals reads "p < 0.001", not "p = 0.000" (a trial).
    #[test]
    fn a_tiny_skewness_p_value_is_not_printed_as_zero() {
        let w = |p_value| Warning::SkewAdjusted {
            level: "execution".into(),
            test: SkewTest {
                skewness: 2.5,
                z: 3.9,
                p_value,
            },
            advise: None,
            held: Default::default(),
        };
        assert!(text(&w(0.00004)).contains("(skewness 2.50, p < 0.001; tested at 10%)"));
        assert!(text(&w(0.035)).contains("(skewness 2.50, p = 0.035; tested at 10%)"));
        let held = Warning::SkewAdjusted {
            level: "execution".into(),
            test: SkewTest {
                skewness: 2.5,
                z: 3.9,
                p_value: 0.01,
            },
            advise: None,
            held: rigor_stats::analysis::Held {
                low: true,
                high: true,
            },
        };
        assert!(
            text(&held).contains(
                "and is asymmetric; it ends at the lowest and the highest execution mean, as far \
                 as the data reach"
            ),
            "{}",
            text(&held)
        );
    }

    /// One slow first execution is "the first execution", not "the first 1 execution".
    #[test]
    fn a_slow_start_of_one_execution_reads_as_the_first_execution() {
        let start = rigor_stats::slow_start::SlowStart {
            executions: 1,
            ratio: 2.0,
        };
        assert!(text(&Warning::SlowStart { start }).starts_with("the first execution ran 2"));
        let three = rigor_stats::slow_start::SlowStart {
            executions: 3,
            ..start
        };
        let w = Warning::SlowStart { start: three };
        assert!(text(&w).starts_with("the first 3 executions ran 2"));
    }
}
