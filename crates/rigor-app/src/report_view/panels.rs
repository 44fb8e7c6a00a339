//! The diagnostic panels of a benchmark's section: lag plots and autocorrelations of the
//! steady iterations, each beside the same values shuffled within their execution (seeded).

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rigor_report::html::{AcfPanel, LagPanel};
use rigor_stats::autocorr::acf;
use rigor_units::Seed;

/// Lags of the autocorrelation plot.
const ACF_LAGS: usize = 20;

fn shuffled(runs: &[Vec<f64>], seed: Seed) -> Vec<Vec<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed.get());
    runs.iter()
        .map(|r| {
            let mut s = r.clone();
            s.shuffle(&mut rng);
            s
        })
        .collect()
}

/// Most points of one lag plot: beyond a few hundred a scatter shows no more, and each point
/// is an SVG element (5,000 made a report of 7 benchmarks 15 MB).
pub(super) const LAG_POINTS: usize = 800;

/// Pairs (x_t, x_{t+lag}) within each execution's steady part, for lags 1–4, beside the same for
/// the values shuffled within each execution.
pub(super) fn lag_panels(runs: &[Vec<f64>], seed: Seed) -> Vec<LagPanel> {
    let mixed = shuffled(runs, seed);
    let pairs = |rs: &[Vec<f64>], lag: usize| -> Vec<(f64, f64)> {
        let all = || {
            rs.iter()
                .flat_map(|r| r.windows(lag + 1).map(move |w| (w[0], w[lag])))
        };
        // Every k-th pair, so that every execution is represented (not only the first ones).
        let stride = all().count().div_ceil(LAG_POINTS).max(1);
        all().step_by(stride).collect()
    };
    (1..=4)
        .map(|lag| LagPanel {
            lag,
            points: pairs(runs, lag),
            shuffled_points: pairs(&mixed, lag),
        })
        .collect()
}

/// Autocorrelations of the longest steady part, beside the same values shuffled.
pub(super) fn acf_panel(runs: &[Vec<f64>], seed: Seed) -> Option<AcfPanel> {
    let longest = runs.iter().max_by_key(|r| r.len())?;
    let lags = ACF_LAGS.min(longest.len().saturating_sub(2));
    if lags == 0 {
        return None;
    }
    let values = acf(longest, lags).ok()?;
    let mixed = shuffled(std::slice::from_ref(longest), seed);
    let shuffled = acf(&mixed[0], lags).ok()?;
    Some(AcfPanel {
        values,
        shuffled,
        bound: 1.96 / (longest.len() as f64).sqrt(),
    })
}
