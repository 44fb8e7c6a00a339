//! The joint test's reach (issue #29): how far from a version a benchmark's own change may lie
//! and still be taken for the same step as a machine-wide shift there
//! (`rigor_stats::joint::JointConfig::reach`). A wider reach keeps a benchmark whose own
//! detection placed the shift a few versions off in the joint test at the shift's version,
//! instead of cutting its series there; it may also keep a benchmark's own change inside a
//! step and make an event where there is none. This study measures both over the history
//! study's scenarios ([`crate::history::scenarios`]) on histories drawn apart from the study's
//! own (another seed): the shift found as one event in histories with it, and the false events
//! in as many histories again and twice more without any machine-wide shift.

use rayon::prelude::*;
use rigor_stats::joint::JointConfig;
use rigor_stats::series::VersionMean;

use crate::common::Rate;
use crate::events::{NEAR, TOLERANCE, found_as_one, joint_events, own_boundaries};
use crate::history::{
    HistorySizes, Scenario, Series, grouped_at, own_changes, simulate_histories_with,
};

/// What the seed of the study's histories is mixed with, so that they are not the history
/// study's own (whose runs suggested the change this study tests).
const SEED_MIX: u64 = 0x7265_6163_6800_0000;

/// One scenario's counts at one reach.
#[derive(Debug, Clone, Default)]
pub struct ReachScore {
    /// The reach.
    pub reach: usize,
    /// Histories with the shift where the joint test found it as one event.
    pub joint: Rate,
    /// The same by either rule of `rigor track changes` (the joint test, or the benchmarks'
    /// own changes grouped).
    pub either: Rate,
    /// Events farther than ±2 versions from the shift in the histories with it.
    pub false_shifted: usize,
    /// Of those, the events farther than ±10 versions from it.
    pub far_shifted: usize,
    /// Histories without a shift in which the joint test reported any event.
    pub null_any: Rate,
    /// Events in the histories without a shift.
    pub null_events: usize,
}

/// One scenario's scores, one per reach.
#[derive(Debug, Clone)]
pub struct ReachResult {
    /// The scenario's name.
    pub scenario: String,
    /// Per reach, in the order asked for.
    pub scores: Vec<ReachScore>,
}

/// The benchmarks' levels of one history.
fn levels(history: &[Series]) -> Vec<&[VersionMean]> {
    history.iter().map(|s| s.levels()).collect()
}

/// Each benchmark's own boundaries before the false-discovery-rate step: the cuts `rigor track
/// changes` gives the joint scan (the study used the changes the FDR kept before 2026-11-27).
fn cuts(history: &[Series]) -> Vec<Vec<usize>> {
    own_boundaries(&levels(history))
        .iter()
        .map(|o| o.iter().map(|c| c.index).collect())
        .collect()
}

/// Scores `reaches` on one scenario: `sizes.histories` histories with the shift and
/// `null_histories` without.
pub fn study(
    sizes: HistorySizes,
    null_histories: usize,
    scenario: &Scenario,
    reaches: &[usize],
    seed: u64,
) -> ReachResult {
    let seed = seed ^ SEED_MIX;
    let shifted = simulate_histories_with(sizes, scenario, seed, true);
    let own = own_changes(&shifted);
    let nulls = simulate_histories_with(
        HistorySizes {
            histories: null_histories,
            ..sizes
        },
        scenario,
        seed ^ 1,
        false,
    );
    let at = sizes.versions / 2;
    let scores = reaches
        .iter()
        .map(|&reach| {
            let cfg = JointConfig {
                reach,
                ..JointConfig::default()
            };
            let found: Vec<(bool, bool, usize, usize)> = shifted
                .par_iter()
                .zip(&own)
                .map(|(history, own)| {
                    let events = joint_events(&levels(history), &cuts(history), &cfg);
                    let joint = found_as_one(&events, at);
                    let either = joint || grouped_at(history, own, at);
                    let away = |d: usize| events.iter().filter(|v| v.abs_diff(at) > d).count();
                    (joint, either, away(TOLERANCE), away(NEAR))
                })
                .collect();
            let null: Vec<usize> = nulls
                .par_iter()
                .map(|history| joint_events(&levels(history), &cuts(history), &cfg).len())
                .collect();
            ReachScore {
                reach,
                joint: Rate::of(found.iter().map(|f| f.0)),
                either: Rate::of(found.iter().map(|f| f.1)),
                false_shifted: found.iter().map(|f| f.2).sum(),
                far_shifted: found.iter().map(|f| f.3).sum(),
                null_any: Rate::of(null.iter().map(|&n| n > 0)),
                null_events: null.iter().sum(),
            }
        })
        .collect();
    ReachResult {
        scenario: scenario.name.clone(),
        scores,
    }
}

/// The Markdown page (docs/validation/reach.md) over every scenario of the history study (or
/// those whose name holds `only`).
pub fn report(
    sizes: HistorySizes,
    null_histories: usize,
    reaches: &[usize],
    seed: u64,
    only: Option<&str>,
) -> String {
    let started = std::time::Instant::now();
    let results: Vec<ReachResult> = crate::history::scenarios()
        .iter()
        .filter(|s| only.is_none_or(|o| s.name.contains(o)))
        .map(|s| {
            let r = study(sizes, null_histories, s, reaches, seed);
            eprintln!("{}: {:.0} s", s.name, started.elapsed().as_secs_f64());
            r
        })
        .collect();
    page(
        sizes,
        null_histories,
        reaches,
        seed,
        &results,
        started.elapsed().as_secs_f64(),
    )
}

fn page(
    sizes: HistorySizes,
    null_histories: usize,
    reaches: &[usize],
    seed: u64,
    results: &[ReachResult],
    seconds: f64,
) -> String {
    let each = |f: &dyn Fn(&ReachScore) -> String, r: &ReachResult| {
        r.scores.iter().map(f).collect::<Vec<_>>().join(" / ")
    };
    let rate = |r: &Rate| format!("{}", r.hits);
    let mut out = format!(
        "# The joint test's reach\n\n\
         Regenerate with `cargo run --release -p rigor-validation -- reach` (seed {seed}, mixed \
         apart from the history study's; this run took {:.1} minutes on this machine, 2 shared \
         cores).\n\n\
         The joint test across benchmarks (docs/methodology.md, \"Changes that hit many \
         benchmarks at once\") takes a benchmark's own change within its *reach* of the version \
         tested for the same step, and does not cut the benchmark's series there. Each scenario \
         of the change-detection study ([history.md](history.md)) is simulated again on other \
         seeds: {} histories of {} versions × {} benchmarks with its +3% machine-wide shift at \
         the middle version, and {} without any machine-wide shift. Each benchmark's own changes \
         are found as rigor's row finds them; the joint test then runs at each reach ({}), each \
         series cut where its own detection kept a boundary before the false-discovery-rate \
         step across benchmarks, as `rigor track changes` cuts it (the grouping of the \
         benchmarks' own changes takes those the false-discovery rate keeps).\n\n\
         Columns, one figure per reach: **one event (joint)**: histories in which the joint \
         test finds the shift as one event (one event within ±2 versions, no other within ±10); \
         **one event (either rule)**: the same by the joint test or by grouping the benchmarks' \
         own changes, as `rigor track changes` shows events; **other events**: events farther \
         than ±2 versions from the shift in those histories, and of them (in brackets) those \
         farther than ±10; **null histories with an event**: \
         histories without a shift in which the joint test reported any event (its level bounds \
         the chance at 5% per history); **null events**: the events in them.\n\n\
         | scenario | one event (joint) | one event (either rule) | other events | null histories with an event | null events |\n\
         |---|---:|---:|---:|---:|---:|\n",
        seconds / 60.0,
        sizes.histories,
        sizes.versions,
        sizes.benchmarks,
        null_histories,
        reaches
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    );
    for r in results {
        out += &format!(
            "| {} | {} of {} | {} | {} | {} of {} | {} |\n",
            r.scenario,
            each(&|s| rate(&s.joint), r),
            sizes.histories,
            each(&|s| rate(&s.either), r),
            each(&|s| format!("{} ({})", s.false_shifted, s.far_shifted), r),
            each(&|s| rate(&s.null_any), r),
            null_histories,
            each(&|s| s.null_events.to_string(), r),
        );
    }
    // Totals per reach.
    let total = |f: &dyn Fn(&ReachScore) -> usize, i: usize| total(results, f, i);
    let totals = |f: &dyn Fn(&ReachScore) -> usize| {
        (0..reaches.len())
            .map(|i| total(f, i).to_string())
            .collect::<Vec<_>>()
            .join(" / ")
    };
    out += &format!(
        "| **all scenarios** | {} of {} | {} | {} | {} of {} | {} |\n",
        totals(&|s| s.joint.hits),
        results.len() * sizes.histories,
        totals(&|s| s.either.hits),
        (0..reaches.len())
            .map(|i| format!(
                "{} ({})",
                total(&|s| s.false_shifted, i),
                total(&|s| s.far_shifted, i)
            ))
            .collect::<Vec<_>>()
            .join(" / "),
        totals(&|s| s.null_any.hits),
        results.len() * null_histories,
        totals(&|s| s.null_events),
    );
    out += &summary(reaches, results, sizes.histories, null_histories);
    out
}

/// `f` of the `i`-th reach's scores, summed over the scenarios.
fn total(results: &[ReachResult], f: &dyn Fn(&ReachScore) -> usize, i: usize) -> usize {
    results.iter().map(|r| f(&r.scores[i])).sum()
}

/// The paragraph under the table: the default reach against the others, from the totals.
fn summary(
    reaches: &[usize],
    results: &[ReachResult],
    histories: usize,
    null_histories: usize,
) -> String {
    let chosen = JointConfig::default().reach;
    let Some(c) = reaches.iter().position(|&r| r == chosen) else {
        return String::new();
    };
    let sum = |f: &dyn Fn(&ReachScore) -> usize, i: usize| total(results, f, i);
    let others: Vec<String> = (0..reaches.len())
        .filter(|&i| i != c)
        .map(|i| {
            format!(
                "reach {}: {} by the joint test, {} by either rule, {} other events near it \
                 ({} farther than ±10), {} null histories with an event",
                reaches[i],
                sum(&|s| s.joint.hits, i),
                sum(&|s| s.either.hits, i),
                sum(&|s| s.false_shifted, i),
                sum(&|s| s.far_shifted, i),
                sum(&|s| s.null_any.hits, i),
            )
        })
        .collect();
    format!(
        "\nrigor's joint test takes a reach of {chosen} (`rigor track changes`). Over all \
         scenarios it found the shift as one event in {} histories of {} by the joint test and \
         {} by either rule, with {} other events in those histories ({} farther than ±10 \
         versions from the shift) and an event in {} of {} histories without a shift; {}. A \
         wider reach keeps a benchmark whose own detection placed the shift a few versions off \
         in the step at the shift, and more often places the shift a few versions off (an \
         event 3–10 versions from it): a step tested within the reach of benchmarks' own \
         changes at the shift still holds most of it.{}\n",
        sum(&|s| s.joint.hits, c),
        results.len() * histories,
        sum(&|s| s.either.hits, c),
        sum(&|s| s.false_shifted, c),
        sum(&|s| s.far_shifted, c),
        sum(&|s| s.null_any.hits, c),
        results.len() * null_histories,
        others.join("; "),
        if (0..reaches.len()).all(|i| sum(&|s| s.null_any.hits, i) == sum(&|s| s.null_any.hits, c))
        {
            " The histories without a shift got as many events at every reach."
        } else {
            ""
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small run: every count is within its histories, and a history without a shift rarely
    /// gets an event (the joint test's level bounds the chance at 5%).
    #[test]
    fn counts_stay_within_their_histories() {
        let scenario = crate::history::scenarios()
            .into_iter()
            .find(|s| s.name.starts_with("xalan9; no interference; no build"))
            .expect("the scenario");
        let sizes = HistorySizes {
            versions: 200,
            benchmarks: 10,
            histories: 3,
        };
        let r = study(sizes, 6, &scenario, &[2, 4], 7);
        assert_eq!(r.scores.len(), 2);
        for s in &r.scores {
            assert_eq!(s.joint.n, 3);
            assert!(s.joint.hits <= s.either.hits, "{s:?}");
            assert_eq!(s.null_any.n, 6);
            assert!(s.null_any.hits <= 1, "{s:?}");
            // xalan9's quiet noise: the +3% shift on ten benchmarks is found.
            assert!(s.either.hits >= 2, "{s:?}");
        }
    }
}
