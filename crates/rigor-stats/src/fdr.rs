//! False-discovery-rate control across a suite of benchmarks: Benjamini–Hochberg
//! (docs/methodology.md, "Comparisons").
//!
//! With m p-values sorted ascending `p_(1) ≤ … ≤ p_(m)`, the step-up procedure at level q rejects
//! the hypotheses of the k smallest, k the largest index with `p_(k) ≤ k·q/m`. Equivalently it
//! rejects every hypothesis whose adjusted p-value ([`bh_adjusted`], R's
//! `p.adjust(method = "BH")`) is at most q:
//!
//! ```text
//! p̃_(i) = min_{j ≥ i} min(1, m·p_(j)/j)
//! ```
//!
//! Under independence (or positive regression dependence) the expected share of false discoveries
//! among the rejections is at most q.
//!
//! ```
//! use rigor_stats::fdr::{benjamini_hochberg, bh_adjusted};
//!
//! let p = [0.01, 0.04, 0.03, 0.005];
//! // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH") = 0.02 0.04 0.04 0.02
//! let adj = bh_adjusted(&p)?;
//! assert!((adj[0] - 0.02).abs() < 1e-12 && (adj[1] - 0.04).abs() < 1e-12);
//! assert_eq!(benjamini_hochberg(&p, 0.03)?, vec![true, false, false, true]);
//! # Ok::<(), rigor_stats::StatsError>(())
//! ```

use crate::error::{Result, StatsError};

/// Benjamini–Hochberg adjusted p-values, in the input order (R's `p.adjust(p, "BH")`).
///
/// An empty input gives an empty output. Errors: a p-value that is NaN or outside [0, 1].
pub fn bh_adjusted(p_values: &[f64]) -> Result<Vec<f64>> {
    check_p_values(p_values)?;
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p_values[i].total_cmp(&p_values[j]));
    let mut adjusted = vec![0.0; m];
    let mut running = 1.0_f64;
    for (rank0, &i) in order.iter().enumerate().rev() {
        let scaled = p_values[i] * m as f64 / (rank0 + 1) as f64;
        running = running.min(scaled);
        adjusted[i] = running;
    }
    Ok(adjusted)
}

/// Which hypotheses the Benjamini–Hochberg step-up procedure rejects at false discovery rate `q`
/// (`true` = reject, i.e. a discovery), in the input order.
///
/// Errors: a p-value that is NaN or outside [0, 1]; `q` not in (0, 1].
pub fn benjamini_hochberg(p_values: &[f64], q: f64) -> Result<Vec<bool>> {
    if !(q > 0.0 && q <= 1.0) {
        return Err(StatsError::InvalidParameter {
            name: "false discovery rate q",
            value: q.to_string(),
            reason: "must lie in (0, 1]",
        });
    }
    Ok(bh_adjusted(p_values)?.into_iter().map(|a| a <= q).collect())
}

fn check_p_values(p_values: &[f64]) -> Result<()> {
    match p_values.iter().find(|p| !(0.0..=1.0).contains(*p)) {
        Some(p) => Err(StatsError::InvalidParameter {
            name: "p-value",
            value: p.to_string(),
            reason: "must lie in [0, 1]",
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
    }

    /// The step-up definition, written out directly.
    fn step_up(p: &[f64], q: f64) -> Vec<bool> {
        let m = p.len();
        let mut sorted = p.to_vec();
        sorted.sort_by(f64::total_cmp);
        let k = (1..=m)
            .rev()
            .find(|&k| sorted[k - 1] <= k as f64 * q / m as f64);
        match k {
            Some(k) => p.iter().map(|&x| x <= sorted[k - 1]).collect(),
            None => vec![false; m],
        }
    }

    #[test]
    fn r_p_adjust_examples() {
        // p = (0.01, 0.04, 0.03, 0.005), m = 4, sorted 0.005, 0.01, 0.03, 0.04:
        // m·p/rank = 0.02, 0.02, 0.04, 0.04; running minimum from the largest keeps them.
        let adj = bh_adjusted(&[0.01, 0.04, 0.03, 0.005]).unwrap();
        assert!(close(&adj, &[0.02, 0.04, 0.04, 0.02]), "{adj:?}");

        // R: p.adjust(c(0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216), "BH")
        // = 0.010 0.040 0.084 0.084 0.084 0.100 0.1057143 0.216 0.216 0.216
        // (m = 10: 10·p/rank = 0.01, 0.04, 0.13, 0.1025, 0.084, 0.1, 0.1057143, 0.25625,
        // 0.2355556, 0.216, then the running minimum from the end.)
        let p = [
            0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216,
        ];
        let adj = bh_adjusted(&p).unwrap();
        let r = [
            0.010,
            0.040,
            0.084,
            0.084,
            0.084,
            0.100,
            0.074 * 10.0 / 7.0,
            0.216,
            0.216,
            0.216,
        ];
        assert!(close(&adj, &r), "{adj:?}");
        assert_eq!(
            benjamini_hochberg(&p, 0.05).unwrap(),
            vec![
                true, true, false, false, false, false, false, false, false, false
            ]
        );
        // Away from the exact boundary 0.1 (adjusted p of rank 6) to avoid rounding ties.
        assert_eq!(benjamini_hochberg(&p, 0.11).unwrap(), step_up(&p, 0.11));
        let count = |q| {
            benjamini_hochberg(&p, q)
                .unwrap()
                .iter()
                .filter(|&&r| r)
                .count()
        };
        assert_eq!((count(0.09), count(0.11)), (5, 7));
    }

    #[test]
    fn caps_at_one_and_handles_ties_and_empty() {
        // m·p/rank = 3·0.5/1 = 1.5 → capped by the running minimum from 0.9·3/3 = 0.9.
        let adj = bh_adjusted(&[0.5, 0.9, 0.9]).unwrap();
        assert!(close(&adj, &[0.9, 0.9, 0.9]), "{adj:?}");
        let adj = bh_adjusted(&[1.0, 1.0]).unwrap();
        assert!(close(&adj, &[1.0, 1.0]));
        let adj = bh_adjusted(&[0.02, 0.02, 0.02]).unwrap();
        assert!(close(&adj, &[0.02, 0.02, 0.02]));
        assert!(bh_adjusted(&[]).unwrap().is_empty());
        assert!(benjamini_hochberg(&[], 0.05).unwrap().is_empty());
    }

    #[test]
    fn matches_step_up_definition() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for _ in 0..200 {
            let m = rng.gen_range(1..30);
            let p: Vec<f64> = (0..m)
                .map(|_| rng.r#gen::<f64>().powi(rng.gen_range(1..4)))
                .collect();
            for q in [0.01, 0.05, 0.1, 0.25, 1.0] {
                assert_eq!(
                    benjamini_hochberg(&p, q).unwrap(),
                    step_up(&p, q),
                    "{p:?} {q}"
                );
            }
            let adj = bh_adjusted(&p).unwrap();
            assert!(
                adj.iter()
                    .zip(&p)
                    .all(|(a, x)| *a >= x * (1.0 - 1e-12) && *a <= 1.0)
            );
        }
    }

    #[test]
    fn rejects_bad_input() {
        assert!(bh_adjusted(&[0.1, f64::NAN]).is_err());
        assert!(bh_adjusted(&[1.5]).is_err());
        assert!(bh_adjusted(&[-0.1]).is_err());
        assert!(benjamini_hochberg(&[0.1], 0.0).is_err());
        assert!(benjamini_hochberg(&[0.1], 1.5).is_err());
    }
}
