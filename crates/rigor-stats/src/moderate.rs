//! Moderated variances: each version's variance of its level shrunk towards what the versions of
//! its series have in common, by the empirical Bayes rule of Smyth (2004, "Linear models and
//! empirical Bayes methods for assessing differential expression in microarray experiments").
//!
//! A version's level is Huber's M-estimate of about ten execution means, and its variance the
//! sandwich estimate from those ten: itself noisy (its logarithm varies as a χ² variance's with
//! about six degrees of freedom, not nine). Weighting a series' versions by such variances
//! weighs some by chance several times more than others, and change detection loses power. The
//! versions of one benchmark mostly share their noise; where they do not (an execution slowed by
//! another process, a change that made the program noisier), the spread of the logged variances
//! is larger than their own sampling spread, and the shrinkage is less.
//!
//! With `sᵢ²` on `dᵢ` degrees of freedom, the prior — a scaled inverse χ² with `d₀` degrees of
//! freedom and scale `s₀²` — is estimated by moments of `eᵢ = ln sᵢ² − ψ(dᵢ/2) + ln(dᵢ/2)`
//! (ψ the digamma function): `ψ′(d₀/2) = var(e) − mean ψ′(dᵢ/2)` (ψ′ the trigamma function;
//! `d₀` infinite when the right side is not positive: the variances spread no more than their
//! sampling explains), and `ln s₀² = ē − ψ(d₀/2) + ln(d₀/2)` (`ē` when `d₀` is infinite). Each
//! variance is then `(d₀s₀² + dᵢsᵢ²)/(d₀ + dᵢ)` (`s₀²` itself when `d₀` is infinite). Tested
//! against an independent implementation (`scripts/oracles/moderated.py`, scipy's polygamma).

use serde::{Deserialize, Serialize};
use statrs::function::gamma::digamma;

/// The fewest variances a prior is estimated from: with fewer, their spread says too little
/// about how much they share, and each keeps its own.
pub const LEAST_FOR_PRIOR: usize = 20;

/// ψ′(x), the trigamma function, for `x > 0`: the recurrence ψ′(x) = ψ′(x + 1) + 1/x² up to
/// x ≥ 10, then its asymptotic series (relative error about 10⁻¹⁴ there). Written here because statrs has
/// the digamma function but not its derivative.
pub fn trigamma(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    let (mut x, mut sum) = (x, 0.0);
    while x < 10.0 {
        sum += 1.0 / (x * x);
        x += 1.0;
    }
    let inv = 1.0 / x;
    let inv2 = inv * inv;
    // 1/x + 1/(2x²) + 1/(6x³) − 1/(30x⁵) + 1/(42x⁷) − 1/(30x⁹) + 5/(66x¹¹)
    sum + inv
        + inv2 / 2.0
        + inv
            * inv2
            * (1.0 / 6.0
                - inv2
                    * (1.0 / 30.0 - inv2 * (1.0 / 42.0 - inv2 * (1.0 / 30.0 - inv2 * 5.0 / 66.0))))
}

/// The `x > 0` with ψ′(x) = `y` (`y > 0`), by Newton's method on 1/ψ′ from Smyth's (2004)
/// starting point; `None` for a `y` that is not positive and finite.
pub fn inverse_trigamma(y: f64) -> Option<f64> {
    if y.is_nan() || y <= 0.0 || y.is_infinite() {
        return None;
    }
    let mut x = if y > 1e7 {
        1.0 / y.sqrt()
    } else if y < 1e-6 {
        1.0 / y
    } else {
        0.5 + 1.0 / y
    };
    for _ in 0..100 {
        let t = trigamma(x);
        // d/dx ψ′ = ψ″, by a central difference (ψ′ is smooth and the step relative).
        let h = 1e-5 * x;
        let t2 = (trigamma(x + h) - trigamma(x - h)) / (2.0 * h);
        let step = t * (1.0 - t / y) / t2;
        x = (x + step).max(x / 10.0);
        if (step / x).abs() < 1e-12 {
            break;
        }
    }
    Some(x)
}

/// The degrees of freedom of the variance of [`crate::series::VersionMean::huber_of`] from
/// `units` means under normal noise: those of a χ² variance whose logarithm varies as much
/// (by simulation, 100,000 sets of each size; about 0.7·(n − 1) from ten means on, as the MAD
/// scale costs precision). Interpolated between the sizes simulated; `None` below two.
pub fn huber_variance_df(units: usize) -> Option<f64> {
    // (units, degrees of freedom): `cargo test -p rigor-stats --release moderate -- --ignored`
    // prints them again.
    const TABLE: [(usize, f64); 14] = [
        (2, 1.01),
        (3, 1.11),
        (4, 2.06),
        (5, 2.45),
        (6, 3.33),
        (7, 3.89),
        (8, 4.74),
        (10, 6.19),
        (12, 7.64),
        (15, 9.78),
        (20, 13.56),
        (30, 20.80),
        (50, 35.72),
        (100, 72.80),
    ];
    if units < 2 {
        return None;
    }
    let at = TABLE.partition_point(|(n, _)| *n < units);
    Some(match (at.checked_sub(1).map(|i| TABLE[i]), TABLE.get(at)) {
        (_, Some(&(n, d))) if n == units => d,
        (Some((n0, d0)), Some(&(n1, d1))) => {
            d0 + (d1 - d0) * (units - n0) as f64 / (n1 - n0) as f64
        }
        // Beyond the table: its last ratio to n − 1.
        _ => {
            let (n, d) = TABLE[TABLE.len() - 1];
            d / (n - 1) as f64 * (units - 1) as f64
        }
    })
}

/// The prior the variances of a series share (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Prior {
    /// Its degrees of freedom `d₀` (infinite: the variances spread no more than their own
    /// sampling explains, and all become `variance`).
    pub df: f64,
    /// Its scale `s₀²`.
    pub variance: f64,
}

impl Prior {
    /// The prior of `variances`, each `(sᵢ², dᵢ)`; those without a positive, finite variance and
    /// degrees of freedom are left out. `None` with fewer than [`LEAST_FOR_PRIOR`] left.
    pub fn of(variances: &[(f64, f64)]) -> Option<Self> {
        let used: Vec<(f64, f64)> = variances
            .iter()
            .copied()
            .filter(|&(v, d)| v > 0.0 && v.is_finite() && d > 0.0 && d.is_finite())
            .collect();
        if used.len() < LEAST_FOR_PRIOR {
            return None;
        }
        let n = used.len() as f64;
        let centred = |d: f64| digamma(d / 2.0) - (d / 2.0).ln();
        let e: Vec<f64> = used.iter().map(|&(v, d)| v.ln() - centred(d)).collect();
        let mean = e.iter().sum::<f64>() / n;
        let spread = e.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let sampling = used.iter().map(|&(_, d)| trigamma(d / 2.0)).sum::<f64>() / n;
        let df = match inverse_trigamma(spread - sampling) {
            Some(half) => 2.0 * half,
            None => f64::INFINITY,
        };
        let log_scale = if df.is_finite() {
            mean - centred(df)
        } else {
            mean
        };
        Some(Self {
            df,
            variance: log_scale.exp(),
        })
    }

    /// A variance `v` on `df` degrees of freedom, moderated: `(d₀s₀² + d·v)/(d₀ + d)`; a
    /// variance without degrees of freedom (or not positive) is left as it is.
    pub fn moderate(&self, v: f64, df: f64) -> f64 {
        if !(v > 0.0 && v.is_finite() && df > 0.0 && df.is_finite()) {
            return v;
        }
        if self.df.is_infinite() {
            return self.variance;
        }
        (self.df * self.variance + df * v) / (self.df + df)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64, what: &str) {
        assert!(
            (a - b).abs() <= tolerance * b.abs(),
            "{what}: {a} against {b} ({:e} relative)",
            (a - b).abs() / b.abs()
        );
    }

    /// ψ′(1) = π²/6 and ψ′(½) = π²/2 exactly; ψ′(7.3) from scipy's polygamma
    /// (`scripts/oracles/moderated.py`); the inverse finds each again.
    #[test]
    fn trigamma_and_its_inverse_match_known_values() {
        use std::f64::consts::PI;
        close(trigamma(1.0), PI * PI / 6.0, 1e-12, "ψ′(1)");
        close(trigamma(0.5), PI * PI / 2.0, 1e-12, "ψ′(½)");
        close(trigamma(7.3), 0.146_795_768_131_427_03, 1e-12, "ψ′(7.3)");
        for x in [1e-4, 0.03, 0.5, 1.0, 3.1, 7.3, 40.0, 1e5] {
            let back = inverse_trigamma(trigamma(x)).unwrap();
            close(back, x, 1e-9, &format!("ψ′⁻¹(ψ′({x}))"));
        }
        assert!(trigamma(0.0).is_nan() && trigamma(-1.0).is_nan());
        assert_eq!(inverse_trigamma(0.0), None);
        assert_eq!(inverse_trigamma(f64::INFINITY), None);
    }

    /// The three sets of `scripts/oracles/moderated.py`: a prior of less than one degree of
    /// freedom (variances over four orders of magnitude, two kinds of degrees of freedom), an
    /// infinite one (variances spread less than their sampling explains), and one of about seven.
    #[test]
    fn priors_and_moderated_variances_match_the_independent_oracle() {
        let wide: Vec<(f64, f64)> = (0..24)
            .map(|i| {
                let v = (1.0 + (i % 7) as f64 / 3.0) * 10f64.powi(i % 5 - 2) / 100.0;
                (v, if i % 2 == 0 { 6.19 } else { 2.45 })
            })
            .collect();
        let narrow: Vec<(f64, f64)> = (0..24)
            .map(|i| ((1.0 + (i % 7) as f64 / 30.0) * 1e-4, 6.19))
            .collect();
        let medium: Vec<(f64, f64)> = (0..24)
            .map(|i| {
                let v = (1.0 + (i % 7) as f64 / 3.0) * (0.6 * ((i % 3) as f64 - 1.0)).exp() * 1e-3;
                (v, 20.0)
            })
            .collect();
        let cases = [
            (
                &wide,
                0.667_901_530_841_719_7,
                0.154_590_467_505_860_42,
                0.190_272_593_291_471,
            ),
            (
                &narrow,
                f64::INFINITY,
                0.000_129_175_700_677_657_8,
                0.000_129_175_700_677_657_8,
            ),
            (
                &medium,
                7.336_174_514_823_87,
                0.002_178_992_903_312_764,
                0.001_387_829_069_808_331_4,
            ),
        ];
        for (items, d0, s0, third) in cases {
            let p = Prior::of(items).unwrap();
            if d0.is_infinite() {
                assert!(p.df.is_infinite(), "{p:?}");
            } else {
                close(p.df, d0, 1e-8, "d₀");
            }
            close(p.variance, s0, 1e-9, "s₀²");
            close(p.moderate(items[3].0, items[3].1), third, 1e-9, "moderated");
        }
    }

    /// A moderated variance lies between its own and the prior's; one without degrees of
    /// freedom or variance is kept; too few variances give no prior.
    #[test]
    fn moderation_lies_between_and_needs_enough_variances() {
        let p = Prior {
            df: 4.0,
            variance: 2.0,
        };
        for (v, d) in [(0.5, 6.0), (8.0, 2.0), (2.0, 9.0)] {
            let m = p.moderate(v, d);
            assert!(m >= v.min(2.0) && m <= v.max(2.0), "{v} {d} → {m}");
        }
        assert_eq!(p.moderate(0.0, 6.0), 0.0);
        assert_eq!(p.moderate(3.0, 0.0), 3.0);
        let few: Vec<(f64, f64)> = (0..LEAST_FOR_PRIOR - 1)
            .map(|i| (1.0 + i as f64, 6.0))
            .collect();
        assert_eq!(Prior::of(&few), None);
        // Unusable ones are left out of the count.
        let mut some = few.clone();
        some.push((0.0, 6.0));
        assert_eq!(Prior::of(&some), None);
        some.push((1.0, 6.0));
        assert!(Prior::of(&some).is_some());
    }

    /// The table of [`huber_variance_df`]: its sizes exactly, interpolated between them, about
    /// 0.74·(n − 1) beyond; and, by a fresh simulation at ten means, the logged variance of
    /// Huber's level spreads as a χ² variance's on the table's degrees of freedom (ψ′(d/2) within
    /// 5%).
    #[test]
    fn huber_variance_df_follows_the_simulation() {
        use rand::SeedableRng;
        use rand_distr::{Distribution, Normal};
        assert_eq!(huber_variance_df(1), None);
        assert_eq!(huber_variance_df(10), Some(6.19));
        close(
            huber_variance_df(9).unwrap(),
            (4.74 + 6.19) / 2.0,
            1e-12,
            "n = 9",
        );
        close(
            huber_variance_df(199).unwrap(),
            72.8 / 99.0 * 198.0,
            1e-12,
            "n = 199",
        );
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
        let normal = Normal::new(0.0, 1.0).unwrap();
        let logs: Vec<f64> = (0..20_000)
            .map(|_| {
                let x: Vec<f64> = (0..10).map(|_| normal.sample(&mut rng)).collect();
                crate::series::VersionMean::huber_of(&x)
                    .unwrap()
                    .variance
                    .ln()
            })
            .collect();
        let n = logs.len() as f64;
        let mean = logs.iter().sum::<f64>() / n;
        let spread = logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        close(spread, trigamma(6.19 / 2.0), 0.05, "var ln v at ten means");
    }

    /// Prints the table's degrees of freedom again (100,000 sets of each size).
    #[test]
    #[ignore]
    fn print_huber_variance_df() {
        use rand::SeedableRng;
        use rand_distr::{Distribution, Normal};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let normal = Normal::new(0.0, 1.0).unwrap();
        for n in [2usize, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30, 50, 100] {
            let logs: Vec<f64> = (0..100_000)
                .map(|_| {
                    let x: Vec<f64> = (0..n).map(|_| normal.sample(&mut rng)).collect();
                    crate::series::VersionMean::huber_of(&x)
                        .unwrap()
                        .variance
                        .ln()
                })
                .filter(|v| v.is_finite())
                .collect();
            let m = logs.iter().sum::<f64>() / logs.len() as f64;
            let v = logs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (logs.len() - 1) as f64;
            println!("({n}, {:.2}),", 2.0 * inverse_trigamma(v).unwrap());
        }
    }
}
