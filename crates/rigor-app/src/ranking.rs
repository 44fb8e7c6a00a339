//! The ranking of a run's benchmarks within each group: each against the group's fastest, with
//! the statistics comparisons use (`comparisons`), or by the sequences of a run until decided.

use rigor_report::comparison::{Ranking, Relative};
use rigor_stats::compare::CompareConfig;
use rigor_stats::{Analysis, Estimator};
use rigor_store::{BenchmarkRecord, ResultFile};

use crate::analysis::{Unanalysed, hierarchy_of};
use crate::comparable::{group_title, groups};
use crate::comparisons::{CompareSettings, floor_at_resolution};

/// The value a benchmark is ranked by: its mean, or `estimator` on all its measurements.
fn ranked_value(b: &BenchmarkRecord, a: &Analysis, estimator: Estimator) -> f64 {
    if estimator == Estimator::Mean {
        return a.interval.mean;
    }
    hierarchy_of(b).map_or(f64::NAN, |h| estimator.apply(h.values()))
}

/// Ranks the analysed benchmarks of each group by the statistic comparisons use (`s`'s
/// estimator: the mean unless `--estimator` says otherwise); each is compared with the group's
/// fastest (the same statistics as comparisons: Fieller for the mean, paired by round when the
/// benchmarks ran in the same rounds). `by_time` orders the rows fastest first, else in
/// command order. A ratio whose interval cannot be computed is shown without one: the ranking
/// never fails a run.
pub fn ranking(
    result: &ResultFile,
    analyses: &[std::result::Result<Analysis, Unanalysed>],
    s: &CompareSettings,
    by_time: bool,
) -> Vec<Ranking> {
    let groups = groups(result);
    let mut out = Vec::new();
    for group in &groups {
        let mut members: Vec<(usize, f64)> = group
            .iter()
            .filter_map(|&i| {
                let a = analyses[i].as_ref().ok()?;
                Some((
                    i,
                    ranked_value(&result.benchmarks[i], a, s.config.estimator),
                ))
            })
            // A zero time (every time 0) has no ratio with anything: left out, as comparisons
            // leave it out with a warning.
            .filter(|m| m.1.is_finite() && m.1 != 0.0)
            .collect();
        if members.len() < 2 {
            continue;
        }
        let quantity = result.benchmarks[members[0].0].quantity();
        // The best first: the least time, size or count; the highest rate.
        let higher_is_better = matches!(quantity, rigor_units::Quantity::Rate(_));
        let order = |a: &(usize, f64), b: &(usize, f64)| {
            if higher_is_better {
                b.1.total_cmp(&a.1)
            } else {
                a.1.total_cmp(&b.1)
            }
        };
        let fastest = members
            .iter()
            .min_by(|a, b| order(a, b))
            .map(|m| m.0)
            .unwrap_or(group[0]);
        if by_time {
            members.sort_by(order);
        }
        let base = &result.benchmarks[fastest];
        let base_value = members.iter().find(|m| m.0 == fastest).map_or(1.0, |m| m.1);
        let base_h = hierarchy_of(base).ok();
        let mut rows = Vec::new();
        for &(i, value) in &members {
            let b = &result.benchmarks[i];
            if i == fastest {
                rows.push((b.name.clone(), None));
                continue;
            }
            let cfg = CompareConfig {
                paired: b.top_keys() == base.top_keys(),
                ..s.config
            };
            let compared = hierarchy_of(b)
                .ok()
                .zip(base_h.as_ref())
                .and_then(|(h, base_h)| {
                    // The ranking shows the ratio and its interval: for the mean Fieller's, so
                    // the bootstrap beside it is not computed a second time here.
                    let mut c = rigor_stats::compare::compare_deciding(&h, base_h, &cfg).ok()?;
                    floor_at_resolution(&mut c, (base, base_h), (b, &h), cfg.estimator);
                    Some(c)
                });
            let ratio = match compared {
                Some(c) => Relative {
                    ratio: c.ratio,
                    ci: c.ci.map(|ci| (ci.lower, ci.upper)),
                    within: (c.verdict == rigor_stats::compare::Verdict::Equivalent)
                        .then_some(c.threshold),
                },
                None => Relative {
                    ratio: value / base_value,
                    ci: None,
                    within: None,
                },
            };
            rows.push((b.name.clone(), Some(ratio)));
        }
        let title = (groups.len() > 1).then(|| group_title(base));
        out.push(Ranking {
            title,
            rows,
            level: s.config.level,
            quantity,
        });
    }
    out
}

/// A run until decided ranks by its sequences: a fixed-sample interval computed after stopping
/// on a sequence is not valid (watched after every round it excludes the truth far more often
/// than its level says), so each row of `rankings` takes the ratio and the sequence of the
/// comparison of the same two benchmarks (inverted when the comparison runs the other way), and
/// a row no sequence decided keeps its ratio without an interval. Rankings of a result with no
/// sequences are left as they are.
pub fn rank_by_sequences(rankings: &mut [Ranking], result: &ResultFile) {
    let sequences: Vec<(&str, &str, &rigor_store::SequentialRecord)> = result
        .comparisons
        .iter()
        .filter_map(|c| {
            let s = c.sequential.as_ref()?;
            Some((c.candidate.as_str(), c.baseline.as_str(), s))
        })
        .collect();
    if sequences.is_empty() {
        return;
    }
    for ranking in rankings {
        let Some(best) = ranking
            .rows
            .iter()
            .find(|(_, r)| r.is_none())
            .map(|(n, _)| n.clone())
        else {
            continue;
        };
        for (name, row) in &mut ranking.rows {
            let Some(relative) = row.as_mut() else {
                continue;
            };
            let same = sequences.iter().find_map(|&(candidate, baseline, s)| {
                if candidate == name.as_str() && baseline == best {
                    Some((s.ratio, s.lower.zip(s.upper)))
                } else if candidate == best && baseline == name.as_str() {
                    Some((
                        1.0 / s.ratio,
                        s.lower.zip(s.upper).map(|(l, u)| (1.0 / u, 1.0 / l)),
                    ))
                } else {
                    None
                }
            });
            *relative = match same {
                Some((ratio, ci)) => Relative {
                    ratio,
                    ci,
                    within: None,
                },
                None => Relative {
                    ratio: relative.ratio,
                    ci: None,
                    within: None,
                },
            };
        }
    }
}
