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
    hierarchy_of(b).map_or(f64::NAN, |h| estimator.of_hierarchy(&h))
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
            // A run cut short mid-round: paired over the rounds both completed, as the
            // comparisons are (the summary read "3.9% slower (+3.3% .. +4.4%)" beside the
            // comparison's "3.8% slower (+3.3% .. +4.2%)" after Ctrl-C).
            let completed = crate::comparisons::over_completed_rounds(b, base);
            let cfg = CompareConfig {
                paired: completed.is_some() || b.top_keys() == base.top_keys(),
                ..s.config
            };
            let (h, base_h) = match completed {
                Some((h, bh)) => (Some(h), Some(bh)),
                None => (hierarchy_of(b).ok(), base_h.clone()),
            };
            let compared = h.zip(base_h.as_ref()).and_then(|(h, base_h)| {
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
        let by_ratio = ranking
            .rows
            .windows(2)
            .all(|w| ratio_of(&w[0].1) <= ratio_of(&w[1].1));
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
        rebase_on_fastest(ranking, by_ratio);
    }
}

/// A row's ratio to the fastest (1 for the fastest itself).
fn ratio_of(row: &Option<Relative>) -> f64 {
    row.map_or(1.0, |r| r.ratio)
}

/// Makes the fastest of `ranking` by its ratios the one the others are relative to: the
/// sequences' ratios (paired by round) can put another benchmark ahead of the one the means
/// ranked first, which read "fastest: old" above "new is 0.04% faster". The former fastest takes
/// the inverse of the new one's ratio and interval; the others' ratios are divided by it, with
/// no interval (no sequence compared them). `sorted`: the rows were in order of their ratios,
/// and are again.
fn rebase_on_fastest(ranking: &mut Ranking, sorted: bool) {
    let Some((at, fastest)) = ranking
        .rows
        .iter()
        .enumerate()
        .filter_map(|(i, (_, r))| r.map(|r| (i, r)))
        .min_by(|a, b| a.1.ratio.total_cmp(&b.1.ratio))
    else {
        return;
    };
    if !(fastest.ratio < 1.0 && fastest.ratio > 0.0) {
        return;
    }
    for (i, (_, row)) in ranking.rows.iter_mut().enumerate() {
        *row = if i == at {
            None
        } else {
            Some(match row {
                None => Relative {
                    ratio: 1.0 / fastest.ratio,
                    ci: fastest.ci.map(|(l, u)| (1.0 / u, 1.0 / l)),
                    within: None,
                },
                Some(r) => Relative {
                    ratio: r.ratio / fastest.ratio,
                    ci: None,
                    within: None,
                },
            })
        };
    }
    if sorted {
        ranking
            .rows
            .sort_by(|a, b| ratio_of(&a.1).total_cmp(&ratio_of(&b.1)));
    }
}

#[cfg(test)]
mod sequence_tests {
    use super::*;

    #[test]
    fn the_fastest_by_the_sequences_leads_the_ranking() {
        let relative = |ratio: f64, ci: Option<(f64, f64)>| {
            Some(Relative {
                ratio,
                ci,
                within: None,
            })
        };
        let mut r = Ranking {
            title: None,
            rows: vec![
                ("old".into(), None),
                ("new".into(), relative(0.9996, Some((0.98, 1.02)))),
                ("third".into(), relative(1.5, None)),
            ],
            level: 0.95,
            quantity: rigor_units::Quantity::Time,
        };
        rebase_on_fastest(&mut r, true);
        let names: Vec<&str> = r.rows.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["new", "old", "third"]);
        assert_eq!(r.rows[0].1, None);
        let old = r.rows[1].1.unwrap();
        assert!((old.ratio - 1.0 / 0.9996).abs() < 1e-12);
        let (l, u) = old.ci.unwrap();
        assert!((l - 1.0 / 1.02).abs() < 1e-12 && (u - 1.0 / 0.98).abs() < 1e-12);
        let third = r.rows[2].1.unwrap();
        assert!((third.ratio - 1.5 / 0.9996).abs() < 1e-12 && third.ci.is_none());
        // In command order, the rows stay where they are.
        let mut r2 = Ranking {
            rows: vec![
                ("third".into(), relative(1.5, None)),
                ("old".into(), None),
                ("new".into(), relative(0.9, None)),
            ],
            ..r.clone()
        };
        rebase_on_fastest(&mut r2, false);
        let names: Vec<&str> = r2.rows.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["third", "old", "new"]);
        assert_eq!(r2.rows[2].1, None);
        // A ranking already led by its fastest is left alone.
        let before = r.clone();
        rebase_on_fastest(&mut r, true);
        assert_eq!(format!("{before:?}"), format!("{r:?}"));
    }
}
