//! Comparisons through the public path: hand-worked Fieller oracles reproduced by `compare`, the
//! paired Fieller interval, verdict thresholds (docs/methodology.md, "Comparisons"), `more_units`,
//! the non-overlap rule (Kalibera & Tůma 2006), p-values and the suite's geometric mean.

use rigor_stats::bootstrap::{BootstrapConfig, Pairing};
use rigor_stats::compare::{
    CompareConfig, MORE_UNITS_CAP, RatioMethod, Verdict, compare, fieller_paired,
    fieller_with_covariance, geometric_mean_ratio, more_units_needed, overlap_verdict,
    paired_p_value, relative_change, verdict_from_interval, welch_p_value,
};
use rigor_stats::descriptive::Estimator;
use rigor_stats::fieller::{DfMethod, MeanEstimate, fieller};
use rigor_stats::interval::mean_interval_from_means;
use rigor_stats::{Hierarchy, Quantile};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// A two-level hierarchy whose top-level unit means are exactly `means` (each unit holds
/// `m − 1, m + 1`).
fn with_top_means(means: &[f64]) -> Hierarchy {
    let groups: Vec<Vec<f64>> = means.iter().map(|&m| vec![m - 1.0, m + 1.0]).collect();
    Hierarchy::two_level(["execution", "iteration"], &groups).unwrap()
}

/// `r` top-level means with mean `m` and sample variance `s2`: half at m − d, half at m + d.
fn means_with(m: f64, s2: f64, r: usize) -> Vec<f64> {
    assert!(r % 2 == 0);
    let d = (s2 * (r - 1) as f64 / r as f64).sqrt();
    (0..r)
        .map(|i| if i % 2 == 0 { m - d } else { m + d })
        .collect()
}

/// Hand-worked oracle systems: a = 95, S² = 16, r = 10 against b = 100, S² = 25, r = 8.
fn oracle_systems() -> (Hierarchy, Hierarchy) {
    (
        with_top_means(&means_with(95.0, 16.0, 10)),
        with_top_means(&means_with(100.0, 25.0, 8)),
    )
}

fn small_bootstrap() -> BootstrapConfig {
    BootstrapConfig {
        resamples: 500,
        seed: 42,
        ..BootstrapConfig::default()
    }
}

#[test]
fn fieller_oracle_through_compare() {
    let (a, b) = oracle_systems();
    let m = MeanEstimate::from_hierarchy(&a).unwrap();
    assert!(close(m.mean, 95.0, 1e-12) && close(m.var_of_units, 16.0, 1e-12) && m.n == 10);
    let cases = [
        (
            DfMethod::Normal,
            RatioMethod::FiellerNormal,
            0.909_893_9,
            0.992_389_7,
        ),
        (
            DfMethod::WelchSatterthwaite,
            RatioMethod::FiellerWelch,
            0.906_149_5,
            0.996_595_0,
        ),
        (
            DfMethod::MinDf,
            RatioMethod::FiellerMinDf,
            0.901_876_5,
            1.001_449_3,
        ),
    ];
    for (df, method, lo, hi) in cases {
        let cfg = CompareConfig {
            df,
            bootstrap: small_bootstrap(),
            ..CompareConfig::default()
        };
        let c = compare(&a, &b, &cfg).unwrap();
        let ci = c.ci.expect("bounded");
        assert!(
            close(ci.lower, lo, 1e-6) && close(ci.upper, hi, 1e-6),
            "{ci:?}"
        );
        assert_eq!((c.method, ci.method), (method, method));
        assert!(close(c.ratio, 0.95, 1e-12));
        assert_eq!(c.verdict, Verdict::Inconclusive, "{df:?}");
        assert!(c.more_units.is_some());
        // An estimate 5% off no change: the count if there is none is the interval's, centred
        // on a ratio of 1, fitted into ±1% — and it is more than the count towards −5%.
        assert_eq!(
            c.more_units_if_none,
            more_units_needed(1.0, ci.lower / c.ratio, ci.upper / c.ratio, c.threshold, 8)
        );
        assert!(
            c.more_units_if_none.unwrap() > c.more_units.unwrap(),
            "{c:?}"
        );
        assert!(!c.paired && c.round_correlation.is_none());
        assert_eq!((c.candidate_units, c.baseline_units), (10, 8));
        let f = c.fieller.unwrap();
        assert_eq!(c.g, Some(f.g));
        if df == DfMethod::WelchSatterthwaite {
            assert!(close(f.df.unwrap(), 13.752_68, 1e-6));
            assert!(close(f.critical, 2.148_411, 1e-6));
        }
        // The bootstrap interval is reported beside Fieller.
        let boot = c.bootstrap.unwrap();
        assert_eq!((boot.resamples, boot.seed), (500, 42));
        assert_eq!(boot.pairing, Some(Pairing::Independent));
    }
    // With δ = 0.5% the z interval [0.9099, 0.9924] lies below 0.995: improvement.
    let cfg = CompareConfig {
        df: DfMethod::Normal,
        threshold: 0.005,
        bootstrap: small_bootstrap(),
        ..CompareConfig::default()
    };
    let c = compare(&a, &b, &cfg).unwrap();
    assert_eq!(c.verdict, Verdict::Improvement);
    assert_eq!(c.more_units, None);
    let (pct, bounds) = c.percent_change();
    assert!(close(pct, -5.0, 1e-9));
    assert!(close(bounds.unwrap().1, (0.992_389_7 - 1.0) * 100.0, 1e-5));
    // Candidate and baseline swapped: the ratio inverts and so does the verdict.
    let c = compare(&b, &a, &cfg).unwrap();
    assert_eq!(c.verdict, Verdict::Regression);
}

#[test]
fn covariance_form_with_zero_covariance_is_section_4() {
    let a = MeanEstimate::new(95.0, 16.0, 10).unwrap();
    let b = MeanEstimate::new(100.0, 25.0, 8).unwrap();
    let oracle = [
        (DfMethod::Normal, 0.909_893_9, 0.992_389_7),
        (DfMethod::WelchSatterthwaite, 0.906_149_5, 0.996_595_0),
        (DfMethod::MinDf, 0.901_876_5, 1.001_449_3),
    ];
    for (df, lo, hi) in oracle {
        let r = fieller_with_covariance(&a, &b, 0.0, 0.95, df).unwrap();
        let (l, h) = r.bounds().unwrap();
        assert!(
            close(l, lo, 1e-6) && close(h, hi, 1e-6),
            "{df:?}: [{l}, {h}]"
        );
        let plain = fieller(&a, &b, 0.95, df).unwrap();
        let (pl, ph) = plain.bounds().unwrap();
        assert!(close(l, pl, 1e-14) && close(h, ph, 1e-14));
        assert_eq!((r.g, r.df, r.critical), (plain.g, plain.df, plain.critical));
    }
    // The unbounded oracle: a = 10, v_a = 4, b = 1, v_b = 0.5, z: g = 1.92073.
    let a = MeanEstimate::new(10.0, 8.0, 2).unwrap();
    let b = MeanEstimate::new(1.0, 1.0, 2).unwrap();
    let r = fieller_with_covariance(&a, &b, 0.0, 0.95, DfMethod::Normal).unwrap();
    assert!(close(r.g, 1.920_73, 1e-5) && !r.is_bounded());
}

/// Round means with the equal-r oracle's moments (Ȳ = 5.2, S² = 0.09; Ȳ' = 5.0, S'² = 0.04;
/// r = 6) and zero sample covariance: u ⟂ w, both with mean 0 and sample variance 1.
fn equal_r_rounds() -> (Vec<f64>, Vec<f64>) {
    let su = (5.0_f64 / 6.0).sqrt();
    let sw = 5.0_f64.sqrt() / 2.0;
    let u = [1.0, -1.0, 1.0, -1.0, 1.0, -1.0].map(|x| x * su);
    let w = [1.0, 1.0, -1.0, -1.0, 0.0, 0.0].map(|x| x * sw);
    (
        u.iter().map(|x| 5.2 + 0.3 * x).collect(),
        w.iter().map(|x| 5.0 + 0.2 * x).collect(),
    )
}

#[test]
fn paired_fieller_zero_covariance_oracle() {
    let (a, b) = equal_r_rounds();
    let r = fieller_paired(&a, &b, 0.95, Quantile::StudentT).unwrap();
    assert_eq!(r.df, Some(5.0));
    let (lo, hi) = r.bounds().unwrap();
    assert!(
        close(lo, 0.965_126_2, 1e-6) && close(hi, 1.118_545_4, 1e-6),
        "[{lo}, {hi}]"
    );
    // Through `compare`, paired: the same interval, named fieller-paired.
    let cfg = CompareConfig {
        paired: true,
        bootstrap: small_bootstrap(),
        ..CompareConfig::default()
    };
    let c = compare(&with_top_means(&a), &with_top_means(&b), &cfg).unwrap();
    let ci = c.ci.unwrap();
    assert!(close(ci.lower, 0.965_126_2, 1e-6) && close(ci.upper, 1.118_545_4, 1e-6));
    assert_eq!(c.method, RatioMethod::FiellerPaired);
    assert!(c.paired && c.round_correlation.unwrap().abs() < 1e-12);
    assert_eq!(c.bootstrap.unwrap().pairing, Some(Pairing::Rounds));
    // Paired requested with unequal counts: the independent analysis runs.
    let c = compare(&with_top_means(&a), &with_top_means(&b[..4]), &cfg).unwrap();
    assert!(!c.paired);
    assert_eq!(c.method, RatioMethod::FiellerWelch);
}

#[test]
fn paired_bounds_solve_fiellers_quadratic() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    for _ in 0..200 {
        let r = rng.gen_range(3..15);
        let rho: f64 = rng.gen_range(-0.9..0.99);
        let b: Vec<f64> = (0..r).map(|_| 100.0 + rng.gen_range(-5.0..5.0)).collect();
        let a: Vec<f64> = b
            .iter()
            .map(|x| 1.03 * (100.0 + rho * (x - 100.0)) + rng.gen_range(-3.0..3.0))
            .collect();
        let f = fieller_paired(&a, &b, 0.95, Quantile::StudentT).unwrap();
        let (lo, hi) = f.bounds().unwrap();
        let (ea, eb) = (
            MeanEstimate::from_unit_means(&a).unwrap(),
            MeanEstimate::from_unit_means(&b).unwrap(),
        );
        let (ma, mb) = (ea.mean, eb.mean);
        let c = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x - ma) * (y - mb))
            .sum::<f64>()
            / ((r - 1) * r) as f64;
        let t = f.critical;
        let (va, vb) = (ea.var_of_mean(), eb.var_of_mean());
        // Each bound θ solves (a − θb)² = t²(v_a − 2θc + θ²v_b).
        for theta in [lo, hi] {
            let lhs = (ma - theta * mb).powi(2);
            let rhs = t * t * (va - 2.0 * theta * c + theta * theta * vb);
            assert!((lhs - rhs).abs() < 1e-7 * (1.0 + lhs), "{lhs} vs {rhs}");
        }
        assert!(lo <= f.ratio && f.ratio <= hi);
        assert_eq!(f.df, Some((r - 1) as f64));
    }
}

#[test]
fn paired_analysis_cancels_common_drift() {
    // Baseline rounds drift by 1% per round; the candidate is exactly 2% slower in every round.
    let b: Vec<f64> = (0..10).map(|k| 100.0 * (1.0 + 0.01 * k as f64)).collect();
    let a: Vec<f64> = b.iter().map(|x| x * 1.02).collect();
    let (ha, hb) = (with_top_means(&a), with_top_means(&b));
    let paired = CompareConfig {
        paired: true,
        bootstrap: small_bootstrap(),
        ..CompareConfig::default()
    };
    let c = compare(&ha, &hb, &paired).unwrap();
    let ci = c.ci.unwrap();
    assert!(
        close(ci.lower, 1.02, 1e-9) && close(ci.upper, 1.02, 1e-9),
        "{ci:?}"
    );
    assert_eq!(c.verdict, Verdict::Regression);
    assert!(close(c.round_correlation.unwrap(), 1.0, 1e-12));
    assert!(c.p_value < 1e-6);
    // Unpaired, the drift is noise: the interval is wide and the verdict inconclusive.
    let unpaired = CompareConfig {
        paired: false,
        ..paired
    };
    let c = compare(&ha, &hb, &unpaired).unwrap();
    assert_eq!(c.verdict, Verdict::Inconclusive);
    assert!(c.ci.unwrap().upper - c.ci.unwrap().lower > 0.03);
}

#[test]
fn unbounded_fieller_is_reported_not_hidden() {
    let base = with_top_means(&[0.1, 2.0, -1.5, 0.2]);
    let cand = with_top_means(&[1.0, 1.1, 0.9, 1.0]);
    let cfg = CompareConfig {
        bootstrap: small_bootstrap(),
        ..CompareConfig::default()
    };
    let c = compare(&cand, &base, &cfg).unwrap();
    assert_eq!(c.verdict, Verdict::Unbounded);
    assert!(c.ci.is_none() && c.more_units.is_none());
    assert!(c.g.unwrap() >= 1.0);
    assert_eq!(c.method, RatioMethod::FiellerWelch);
    assert_eq!(c.percent_change().1, None);
}

#[test]
fn verdict_branches() {
    let d = 0.01;
    assert_eq!(verdict_from_interval(1.02, 1.05, d), Verdict::Regression);
    assert_eq!(verdict_from_interval(0.95, 0.98, d), Verdict::Improvement);
    assert_eq!(verdict_from_interval(0.995, 1.005, d), Verdict::Equivalent);
    assert_eq!(verdict_from_interval(0.99, 1.01, d), Verdict::Equivalent);
    // Significant but below the threshold, or straddling an edge: inconclusive.
    assert_eq!(verdict_from_interval(1.005, 1.02, d), Verdict::Inconclusive);
    assert_eq!(verdict_from_interval(0.98, 0.995, d), Verdict::Inconclusive);
    assert_eq!(verdict_from_interval(0.97, 1.03, d), Verdict::Inconclusive);
    // Exactly on the edge is not beyond it.
    assert_eq!(verdict_from_interval(1.01, 1.03, d), Verdict::Inconclusive);
    assert_eq!(verdict_from_interval(0.97, 0.99, d), Verdict::Inconclusive);
    // δ = 0: any interval excluding 1 is a change.
    assert_eq!(
        verdict_from_interval(1.001, 1.002, 0.0),
        Verdict::Regression
    );
    assert_eq!(
        verdict_from_interval(0.999, 1.001, 0.0),
        Verdict::Inconclusive
    );
    assert_eq!(verdict_from_interval(1.0, 1.0, 0.0), Verdict::Equivalent);
    assert_eq!(
        verdict_from_interval(f64::NAN, 1.0, d),
        Verdict::Inconclusive
    );
    let names: Vec<String> = [
        Verdict::Regression,
        Verdict::Improvement,
        Verdict::Equivalent,
        Verdict::Inconclusive,
        Verdict::Unbounded,
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    assert_eq!(
        names,
        [
            "regression",
            "improvement",
            "equivalent",
            "inconclusive",
            "unbounded"
        ]
    );
    assert!(Verdict::Regression.is_change() && !Verdict::Equivalent.is_change());
    assert_eq!(RatioMethod::FiellerPaired.to_string(), "fieller-paired");
    assert!(close(relative_change(1.046), 4.6, 1e-12));
}

#[test]
fn more_units_sanity() {
    let d = 0.01;
    // Resolved verdicts need nothing more.
    assert_eq!(more_units_needed(1.03, 1.02, 1.04, d, 10), None);
    assert_eq!(more_units_needed(1.0, 0.995, 1.005, d, 10), None);
    // θ̂ = 1.03 beyond the band, lower side 0.03 must shrink to 0.02: n' = ⌈10·1.5²⌉ = 23.
    assert_eq!(more_units_needed(1.03, 1.0, 1.06, d, 10), Some(13));
    // θ̂ = 0.97 below: upper side 0.03 must shrink to 0.02.
    assert_eq!(more_units_needed(0.97, 0.94, 1.0, d, 10), Some(13));
    // θ̂ = 1.0 inside the band, half-width 0.025 must shrink to 0.01: n' = ⌈10·2.5²⌉ = 63.
    assert_eq!(more_units_needed(1.0, 0.975, 1.025, d, 10), Some(53));
    // Only the side that sticks out counts: 0.015 → 0.01, n' = ⌈10·1.5²⌉ = 23.
    assert_eq!(more_units_needed(1.0, 0.995, 1.015, d, 10), Some(13));
    // More noise (a wider interval around the same estimate) needs more units.
    let narrow = more_units_needed(1.0, 0.985, 1.015, d, 10).unwrap();
    let wide = more_units_needed(1.0, 0.97, 1.03, d, 10).unwrap();
    assert!(wide > narrow, "{wide} vs {narrow}");
    // On the edge: practically unresolvable.
    assert_eq!(
        more_units_needed(1.01, 1.0, 1.02, d, 10),
        Some(MORE_UNITS_CAP)
    );
    assert_eq!(more_units_needed(1.0, 0.98, 1.02, d, 0), None);
    // Near the edge: 0.03 must shrink to 0.002, n' = ⌈10·15²⌉ = 2250 > 100 × 10: no count
    // (it would swing with the estimate); 0.03 to 0.004 is n' = ⌈10·7.5²⌉ = 563, suggested.
    assert_eq!(
        more_units_needed(1.012, 0.982, 1.042, d, 10),
        Some(MORE_UNITS_CAP)
    );
    assert_eq!(more_units_needed(1.014, 0.984, 1.044, d, 10), Some(553));

    // Through compare: noisier data of the same means → more units.
    let base = with_top_means(&means_with(100.0, 4.0, 10));
    let quiet = with_top_means(&means_with(100.5, 4.0, 10));
    let noisy = with_top_means(&means_with(100.5, 16.0, 10));
    let cfg = CompareConfig {
        bootstrap: small_bootstrap(),
        ..CompareConfig::default()
    };
    let q = compare(&quiet, &base, &cfg).unwrap();
    let n = compare(&noisy, &base, &cfg).unwrap();
    assert_eq!(
        (q.verdict, n.verdict),
        (Verdict::Inconclusive, Verdict::Inconclusive)
    );
    assert!(n.more_units.unwrap() > q.more_units.unwrap(), "{n:?} {q:?}");
    // A minimum's (Hodges–Lehmann's, of the executions' own minima) shrinks as 1/√n too: a
    // count is suggested for it.
    let min = CompareConfig {
        estimator: rigor_stats::Estimator::Min,
        ..cfg
    };
    let spread = |first: f64| {
        with_top_means(&[
            first, 103.0, 99.0, 104.0, 98.5, 102.0, 101.0, 105.0, 100.5, 99.5,
        ])
    };
    let m = compare(&spread(97.5), &spread(100.0), &min).unwrap();
    assert_eq!(m.verdict, Verdict::Inconclusive, "{m:?}");
    assert!(m.more_units.is_some_and(|n| n > 0), "{m:?}");
}

#[test]
fn overlap_method_of_the_seeds() {
    let old =
        mean_interval_from_means(&[99.0, 100.0, 101.0, 100.0], 0.95, Quantile::StudentT).unwrap();
    let slower =
        mean_interval_from_means(&[109.0, 110.0, 111.0, 110.0], 0.95, Quantile::StudentT).unwrap();
    let faster =
        mean_interval_from_means(&[89.0, 90.0, 91.0, 90.0], 0.95, Quantile::StudentT).unwrap();
    let same =
        mean_interval_from_means(&[99.5, 100.5, 101.5, 100.5], 0.95, Quantile::StudentT).unwrap();
    let r = overlap_verdict(&slower, &old);
    assert_eq!(r.verdict, Verdict::Regression);
    assert!(close(r.magnitude, 0.1, 1e-12));
    let r = overlap_verdict(&faster, &old);
    assert_eq!(r.verdict, Verdict::Improvement);
    assert!(close(r.magnitude, -0.1, 1e-12));
    let r = overlap_verdict(&same, &old);
    assert_eq!(r.verdict, Verdict::Inconclusive);
    assert!(close(r.magnitude, 0.005, 1e-12));
}

#[test]
fn p_values_match_r() {
    // R: t.test(1:5, c(2, 4, 6, 8, 10)) → t = −1.8974, df = 5.8824, p = 0.1075312.
    let a = with_top_means(&[1.0, 2.0, 3.0, 4.0, 5.0]);
    let b = with_top_means(&[2.0, 4.0, 6.0, 8.0, 10.0]);
    assert!(close(welch_p_value(&a, &b).unwrap(), 0.107_531_2, 1e-5));
    // R: t.test(a, b, paired = TRUE) for the rounds below → t = 3.6274, df = 5, p = 0.015102.
    let a = with_top_means(&[10.0, 10.4, 9.9, 10.6, 10.2, 10.8]);
    let b = with_top_means(&[9.7, 10.1, 9.8, 10.0, 10.1, 10.2]);
    assert!(close(paired_p_value(&a, &b).unwrap(), 0.015_102_0, 1e-5));
    assert!(paired_p_value(&a, &with_top_means(&[1.0, 2.0])).is_err());
    // Identical systems: p = 1; zero noise with different means: p = 0.
    assert_eq!(welch_p_value(&a, &a).unwrap(), 1.0);
    let flat = with_top_means(&[5.0, 5.0, 5.0]);
    let flat2 = with_top_means(&[6.0, 6.0, 6.0]);
    assert_eq!(welch_p_value(&flat, &flat2).unwrap(), 0.0);
    // compare reports the paired p-value when paired.
    let cfg = CompareConfig {
        paired: true,
        bootstrap: small_bootstrap(),
        ..CompareConfig::default()
    };
    let c = compare(&a, &b, &cfg).unwrap();
    assert!(close(c.p_value, 0.015_102_0, 1e-5));
}

#[test]
fn bootstrap_estimators_decide_for_non_means() {
    let base = Hierarchy::two_level(
        ["execution", "iteration"],
        &(0..12)
            .map(|i| {
                (0..5)
                    .map(|j| 100.0 + (i % 3) as f64 + 0.1 * j as f64)
                    .collect()
            })
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let cand = base.map_values(|_, v| v * 1.05).unwrap();
    // The minimum of a hierarchy is Hodges–Lehmann's (every log ratio of an exact 5% scaling
    // is ln 1.05 up to the spread of the units' minima: 100, 101, 102 against 105, 106.05,
    // 107.1).
    let min = compare(
        &cand,
        &base,
        &CompareConfig {
            estimator: Estimator::Min,
            ..CompareConfig::default()
        },
    )
    .unwrap();
    assert_eq!(min.method, RatioMethod::HodgesLehmann);
    assert!(close(min.ratio, 1.05, 1e-12), "{min:?}");
    for estimator in [Estimator::Median, Estimator::TrimmedMean(0.1)] {
        let cfg = CompareConfig {
            estimator,
            paired: true,
            bootstrap: small_bootstrap(),
            ..CompareConfig::default()
        };
        let c = compare(&cand, &base, &cfg).unwrap();
        assert_eq!(c.method, RatioMethod::BootstrapPercentile);
        assert!(c.fieller.is_none() && c.g.is_none());
        assert!(close(c.ratio, 1.05, 1e-12));
        // Paired rounds of an exact 5% scaling: every replicate is 1.05.
        let ci = c.ci.unwrap();
        assert!(close(ci.lower, 1.05, 1e-9) && close(ci.upper, 1.05, 1e-9));
        assert_eq!(c.verdict, Verdict::Regression);
        assert_eq!(c.bootstrap.unwrap().estimator, estimator);
    }
}

#[test]
fn rejects_bad_configurations() {
    let (a, b) = oracle_systems();
    let bad = [
        CompareConfig {
            level: 1.0,
            ..CompareConfig::default()
        },
        CompareConfig {
            threshold: -0.1,
            ..CompareConfig::default()
        },
        CompareConfig {
            threshold: f64::NAN,
            ..CompareConfig::default()
        },
        CompareConfig {
            estimator: Estimator::TrimmedMean(0.6),
            ..CompareConfig::default()
        },
    ];
    for cfg in bad {
        assert!(compare(&a, &b, &cfg).is_err(), "{cfg:?}");
    }
    let one = with_top_means(&[1.0]);
    assert!(compare(&one, &b, &CompareConfig::default()).is_err());
}

/// Oracle: numpy/scipy 1.17 (`np.log`, `var(ddof=1)`, `stats.t.ppf(0.975, df)`), the formula of
/// `geometric_mean_ratio_welch` computed independently.
#[test]
fn log_welch_interval_of_a_suite_matches_scipy() {
    use rigor_stats::compare::geometric_mean_ratio_welch;
    let base1 = with_top_means(&[10.0, 11.0, 9.0, 10.5, 9.5]);
    let cand1 = with_top_means(&[10.4, 11.9, 10.1, 11.2, 10.0, 12.3]);
    let base2 = with_top_means(&[50.0, 52.0, 49.0, 51.0, 48.0]);
    let cand2 = with_top_means(&[49.0, 51.5, 50.5, 47.9]);
    let g = geometric_mean_ratio_welch(&[(&cand1, &base1), (&cand2, &base2)], 0.95).unwrap();
    assert!(close(g.estimate, 1.0451279825935196, 1e-12), "{g:?}");
    assert!(close(g.lower, 0.9844539635872991, 1e-9), "{g:?}");
    assert!(close(g.upper, 1.1095414721270895, 1e-9), "{g:?}");
    assert!(close(g.df, 11.884019684590397, 1e-9), "{g:?}");
    // Exact scalings have no spread: the interval is the point.
    let same = base1.map_values(|_, v| v * 1.21).unwrap();
    let exact = with_top_means(&[10.0; 5]);
    let p = geometric_mean_ratio_welch(&[(&exact, &exact)], 0.95).unwrap();
    assert_eq!((p.lower, p.upper), (1.0, 1.0));
    assert!(
        geometric_mean_ratio_welch(&[(&same, &base1)], 0.95)
            .unwrap()
            .lower
            < 1.21
    );
    assert!(geometric_mean_ratio_welch(&[], 0.95).is_err());
    let negative = base1.map_values(|_, v| -v).unwrap();
    assert!(geometric_mean_ratio_welch(&[(&negative, &base1)], 0.95).is_err());
}

#[test]
fn geometric_mean_of_a_suite() {
    let base1 = with_top_means(&[10.0, 11.0, 9.0, 10.5, 9.5]);
    let base2 = with_top_means(&[50.0, 52.0, 49.0, 51.0, 48.0]);
    let cand1 = base1.map_values(|_, v| v * 1.21).unwrap();
    let cand2 = base2.clone();
    let pairs = [(&cand1, &base1), (&cand2, &base2)];
    let cfg = small_bootstrap();
    // Paired rounds of exact scalings: every replicate is sqrt(1.21 · 1) = 1.1.
    let g = geometric_mean_ratio(&pairs, Estimator::Mean, &cfg, Pairing::Rounds).unwrap();
    assert!(close(g.estimate, 1.1, 1e-12));
    assert!(close(g.lower, 1.1, 1e-9) && close(g.upper, 1.1, 1e-9));
    assert_eq!((g.seed, g.pairing), (42, Some(Pairing::Rounds)));
    // Independent resampling: an interval around 1.1, reproducible from the seed.
    let g1 = geometric_mean_ratio(&pairs, Estimator::Median, &cfg, Pairing::Independent).unwrap();
    let g2 = geometric_mean_ratio(&pairs, Estimator::Median, &cfg, Pairing::Independent).unwrap();
    assert_eq!(g1, g2);
    assert!(g1.lower < 1.1 && 1.1 < g1.upper, "{g1:?}");
    let other = BootstrapConfig { seed: 43, ..cfg };
    let g3 = geometric_mean_ratio(&pairs, Estimator::Median, &other, Pairing::Independent).unwrap();
    assert_ne!((g1.lower, g1.upper), (g3.lower, g3.upper));
    // Errors: no benchmarks; a non-positive ratio.
    assert!(geometric_mean_ratio(&[], Estimator::Mean, &cfg, Pairing::Independent).is_err());
    let negative = base1.map_values(|_, v| -v).unwrap();
    assert!(
        geometric_mean_ratio(
            &[(&negative, &base1)],
            Estimator::Mean,
            &cfg,
            Pairing::Independent
        )
        .is_err()
    );
}
