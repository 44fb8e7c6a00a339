//! The numbers a page's comparison of two versions needs: Student's t quantiles (one table per
//! page, which the page's script interpolates) and the comparison a page opens with, computed
//! with `rigor_stats::fieller` as `rigor compare` computes it, fed from the two versions' levels
//! (module `points`): each level with its variance (the spread between sessions in it where the
//! history measured it) and degrees of freedom, the two taken as independent. The page's script
//! evaluates the same formula for any other pair.

use std::collections::HashMap;

use rigor_report::dashboard::{
    ChangeMark, PointState, QuantileTable, VersionComparison, VersionPoint,
};
use rigor_stats::compare::{DEFAULT_THRESHOLD, Verdict, verdict_from_interval};
use rigor_stats::dist::{Quantile, critical_value};
use rigor_stats::fieller::{DfMethod, MeanEstimate, fieller};
use rigor_units::{Resolution, Seconds};

use crate::comparisons::ratio_floor;

/// Grid step in 1/ν of the pages' t quantile tables: linear interpolation on it is within 1e-6
/// of the quantile for ν ≥ 1 at the usual levels, far below the 4 digits a page shows.
const QUANTILE_STEP: f64 = 1e-3;

/// Student's t critical values on a grid, computed once per level: a site of many pages shares
/// a few tables.
#[derive(Default)]
pub(crate) struct Critical {
    tables: HashMap<u64, Option<Vec<f64>>>,
}

impl Critical {
    /// The quantiles on the grid 1/ν = k·[`QUANTILE_STEP`] up to 1/ν = 1/`min_df`.
    pub fn table(&mut self, level: f64, min_df: usize) -> Option<QuantileTable> {
        let full = self.tables.entry(level.to_bits()).or_insert_with(|| {
            let n = (1.0 / QUANTILE_STEP).round() as usize;
            (0..=n)
                .map(|k| match k {
                    0 => critical_value(level, f64::INFINITY, Quantile::Normal).ok(),
                    _ => {
                        critical_value(level, 1.0 / (k as f64 * QUANTILE_STEP), Quantile::StudentT)
                            .ok()
                    }
                })
                .collect()
        });
        let full = full.as_ref()?;
        // One entry beyond 1/min_df so interpolation never runs off the end.
        let len =
            ((1.0 / min_df.max(1) as f64 / QUANTILE_STEP).ceil() as usize + 2).min(full.len());
        Some(QuantileTable {
            level,
            step: QUANTILE_STEP,
            values: full[..len].to_vec(),
        })
    }
}

/// The t table a page's series needs: at its level, down to its smallest degrees of freedom;
/// `None` with fewer than two comparable versions.
pub(crate) fn quantiles_for(
    points: &[VersionPoint],
    critical: &mut Critical,
) -> Option<QuantileTable> {
    let inputs: Vec<(f64, usize)> = points
        .iter()
        .filter_map(|p| match &p.state {
            PointState::Measured(m) => m.ratio_input.map(|r| (m.level, r.units)),
            _ => None,
        })
        .collect();
    let min_units = inputs.iter().map(|&(_, r)| r).min()?;
    (inputs.len() >= 2).then_some(())?;
    critical.table(inputs[0].0, min_units - 1)
}

/// A measured version's level as Fieller's input: S² = r·var back from the level's variance.
fn estimate_of(p: &VersionPoint) -> Option<(f64, MeanEstimate)> {
    match &p.state {
        PointState::Measured(m) => {
            let r = m.ratio_input?;
            let e = MeanEstimate::new(m.mean, r.var_of_mean * r.units as f64, r.units).ok()?;
            Some((m.level, e))
        }
        _ => None,
    }
}

/// The comparison a page opens with: the newest comparable version on the page against the last
/// version before the newest change (when that is on the page too), else against the comparable
/// version before it. `lower_is_better` is false for a rate (more is better): a ratio above
/// the threshold is then an improvement.
pub(crate) fn default_comparison(
    points: &[VersionPoint],
    marks: &[ChangeMark],
    level: f64,
    lower_is_better: bool,
) -> Option<VersionComparison> {
    let comparable: Vec<usize> = (0..points.len())
        .filter(|&i| estimate_of(&points[i]).is_some())
        .collect();
    let (&candidate, rest) = comparable.split_last()?;
    let before_change = marks.last().and_then(|m| {
        let prev = m.previous_rev.as_deref()?;
        rest.iter().copied().find(|&i| points[i].rev == prev)
    });
    let baseline = before_change.or_else(|| rest.last().copied())?;
    let (_, cand) = estimate_of(&points[candidate])?;
    let (_, base) = estimate_of(&points[baseline])?;
    let f = fieller(&cand, &base, level, DfMethod::WelchSatterthwaite).ok()?;
    let interval = f.bounds().map(|i| {
        let side = |p: &VersionPoint, e: &MeanEstimate| (resolution_of(p), Seconds(e.mean));
        ratio_floor(
            side(&points[baseline], &base),
            side(&points[candidate], &cand),
            i,
        )
        .map_or(i, |f| (f.lower, f.upper))
    });
    let verdict = match interval {
        Some((lo, hi)) => verdict_word(match verdict_from_interval(lo, hi, DEFAULT_THRESHOLD) {
            Verdict::Regression if !lower_is_better => Verdict::Improvement,
            Verdict::Improvement if !lower_is_better => Verdict::Regression,
            v => v,
        }),
        None => "unbounded",
    };
    // Levels of groups of sessions that no version ties together differ by the groups' unknown
    // origins too, when the spread between sessions is unknown.
    let group = |i: usize| match &points[i].state {
        PointState::Measured(m) => Some(m.component),
        _ => None,
    };
    let unknown = [baseline, candidate]
        .iter()
        .any(|&i| matches!(&points[i].state, PointState::Measured(m) if m.sessions_unknown));
    Some(VersionComparison {
        baseline,
        candidate,
        ratio: f.ratio,
        interval,
        g: f.g,
        level,
        threshold: DEFAULT_THRESHOLD,
        verdict: verdict.to_string(),
        sessions_unknown: unknown,
        confounded: unknown && group(baseline) != group(candidate),
    })
}

/// A measured version's resolution, as a step in the unit of its mean. The floor of a ratio
/// depends on the two means and steps only through their ratios, so their common unit does not
/// matter: it is read as seconds.
fn resolution_of(p: &VersionPoint) -> Option<Resolution> {
    match &p.state {
        PointState::Measured(m) => Resolution::new(Seconds(m.ratio_input?.step?)),
        _ => None,
    }
}

fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Regression => "regression",
        Verdict::Improvement => "improvement",
        Verdict::Equivalent => "equivalent",
        Verdict::Inconclusive => "inconclusive",
        Verdict::Unbounded => "unbounded",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the page's script does: linear interpolation in 1/ν.
    fn interpolate(q: &QuantileTable, nu: f64) -> f64 {
        let u = 1.0 / nu / q.step;
        let k = u.floor() as usize;
        if k + 1 >= q.values.len() {
            return q.values[q.values.len() - 1];
        }
        q.values[k] + (q.values[k + 1] - q.values[k]) * (u - k as f64)
    }

    #[test]
    fn the_pages_t_table_interpolates_to_a_millionth() {
        let mut c = Critical::default();
        for level in [0.9, 0.95, 0.99] {
            let q = c.table(level, 1).unwrap();
            for nu in [1.0, 1.37, 2.5, 4.93, 13.75268, 40.2, 333.3, 2000.0] {
                let exact = critical_value(level, nu, Quantile::StudentT).unwrap();
                let got = interpolate(&q, nu);
                assert!(
                    (got / exact - 1.0).abs() < 1e-6,
                    "{level} {nu}: {got} vs {exact}"
                );
            }
            // A series whose smallest count is 4 (ν ≥ 3) gets the table down to 1/ν = 1/3.
            let short = c.table(level, 3).unwrap();
            assert_eq!(short.values.len(), 336);
            assert_eq!(short.values[..], q.values[..336]);
        }
    }
}
