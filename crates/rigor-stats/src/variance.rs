//! Variance components: how much each level of the experiment adds to the variability of the
//! result (docs/methodology.md, "Variance components").
//!
//! The model is the nested random-effects model `Y = μ + A⁽ⁿ⁾ + … + A⁽¹⁾` with independent effects
//! of variance `σ_i²`. For every level this module reports
//!
//! - `S²`, the biased per-level estimator: the spread of the level's unit means around their
//!   parents' means, which also contains the variance that the levels below pass up;
//! - `T²`, the unbiased estimator of the level's own component `σ_i²`. It can be negative, which
//!   means the level adds no detectable variance: show it truncated at 0 to people
//!   ([`LevelComponent::t2_truncated`]) and raw in machine-readable output.
//!
//! **Level order.** Components are listed top → bottom, like [`Hierarchy::levels`]: index 0 is
//! the top level (level `n` in Kalibera & Tůma's numbering, e.g. builds) and the last index the
//! lowest (their level 1, e.g. iterations).
//!
//! **Method.** Balanced data use the closed forms of docs/methodology.md, "Variance components"
//! ([`ComponentMethod::Balanced`]); unbalanced data use Henderson's method I, the nested-ANOVA
//! method of moments ([`ComponentMethod::Henderson1`]). Both give identical answers on balanced
//! data.
//!
//! **Degenerate levels.** A level whose parents all have exactly one child carries no
//! information about its own variance: it is confounded with the level above. Such a level has
//! `df = 0` and is reported with `s2 = t2 = 0`; its variance is counted in the component of the
//! level above.
//!
//! ```
//! use rigor_stats::Hierarchy;
//! use rigor_stats::variance::variance_components;
//!
//! let h = Hierarchy::two_level(
//!     ["execution", "iteration"],
//!     &[vec![9.0, 5.0, 8.0, 3.0], vec![10.0, 6.0, 7.0, 11.0], vec![1.0, 12.0, 2.0, 4.0]],
//! )?;
//! let vc = variance_components(&h)?;
//! assert!((vc.components[1].t2 - 12.722222).abs() < 1e-6); // iterations: T₁² = S₁²
//! assert!((vc.components[0].t2 - 0.381944).abs() < 1e-6); // executions: T₂² = S₂² − S₁²/4
//! # Ok::<(), rigor_stats::StatsError>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::error::{Result, StatsError};
use crate::hierarchy::Hierarchy;

/// Which estimator produced a set of variance components.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ComponentMethod {
    /// The closed forms for balanced data (docs/methodology.md, "Variance components"): `S_i²` from
    /// unit means and `T_i² = S_i² − S_{i−1}²/r_{i−1}`. One-level data count as balanced.
    Balanced,
    /// Henderson's method I for unbalanced nested data: mean squares equated to their expected
    /// values with Henderson's k coefficients and solved from the lowest level up.
    Henderson1,
}

/// The variance estimates of one level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelComponent {
    /// Name of the level.
    pub level: String,
    /// The biased estimator `S_i²`: variance of the level's unit means around their parents'
    /// means, including what the lower levels pass up. Balanced: the closed form, equal to
    /// `MS_i / (r_1···r_{i−1})`. Henderson: `MS_i / k_ii` where `k_ii` is the coefficient of the
    /// level's own component in `E[MS_i]` (the unbalanced analogue of `r_1···r_{i−1}`, e.g. `n₀`
    /// for the top of a two-level design). 0 when `df = 0`.
    pub s2: f64,
    /// The unbiased estimator `T_i²` of the level's own component `σ_i²`, raw: may be negative.
    /// 0 when `df = 0`.
    pub t2: f64,
    /// Degrees of freedom of the level's mean square: units at this level minus units at the
    /// level above (1 above the top). 0 means the level is confounded with the one above.
    pub df: usize,
}

impl LevelComponent {
    /// `T²` truncated at 0: what to show people (a negative estimate means "no detectable
    /// variance at this level").
    pub fn t2_truncated(&self) -> f64 {
        self.t2.max(0.0)
    }

    /// Standard deviation this level contributes: `sqrt(max(T², 0))`.
    pub fn std_dev(&self) -> f64 {
        self.t2_truncated().sqrt()
    }
}

/// Variance components of every level, top → bottom.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VarianceComponents {
    /// The estimator used.
    pub method: ComponentMethod,
    /// One entry per level, ordered top → bottom like [`Hierarchy::levels`].
    pub components: Vec<LevelComponent>,
}

impl VarianceComponents {
    /// Sum of the truncated components `Σ max(T_i², 0)`: the estimated variance of a single
    /// measurement.
    pub fn total(&self) -> f64 {
        self.components
            .iter()
            .map(LevelComponent::t2_truncated)
            .sum()
    }

    /// Each level's share of [`total`](Self::total) in percent, top → bottom. All zeros when
    /// the total is 0 (no detectable variance anywhere).
    pub fn shares(&self) -> Vec<f64> {
        let total = self.total();
        self.components
            .iter()
            .map(|c| {
                if total > 0.0 {
                    100.0 * c.t2_truncated() / total
                } else {
                    0.0
                }
            })
            .collect()
    }

    /// Raw `T²` of every level, top → bottom.
    pub fn t2(&self) -> Vec<f64> {
        self.components.iter().map(|c| c.t2).collect()
    }

    /// The component of the level with this name.
    pub fn level(&self, name: &str) -> Option<&LevelComponent> {
        self.components.iter().find(|c| c.level == name)
    }
}

/// Estimates the variance components of every level of `h` (docs/methodology.md, "Variance
/// components"), top → bottom.
///
/// Balanced data use the closed forms ([`ComponentMethod::Balanced`]); one-level data give the
/// sample variance as both `S²` and `T²`. Unbalanced data use Henderson's method I
/// ([`ComponentMethod::Henderson1`]).
///
/// # Errors
/// [`StatsError::TooFew`] when the top level has fewer than two units: no variance at the top
/// can be estimated.
pub fn variance_components(h: &Hierarchy) -> Result<VarianceComponents> {
    let top = h.units(0);
    if top < 2 {
        return Err(StatsError::TooFew {
            what: "variance components (top-level units)",
            needed: 2,
            got: top,
        });
    }
    Ok(match h.balanced_counts() {
        Some(counts) => VarianceComponents {
            method: ComponentMethod::Balanced,
            components: balanced(h, &counts),
        },
        None => VarianceComponents {
            method: ComponentMethod::Henderson1,
            components: henderson(h),
        },
    })
}

/// The closed forms (docs/methodology.md, "Variance components") for balanced data, `counts` top →
/// bottom.
///
/// Walks from the lowest level up carrying `lower = S_{i−1}²/r_{i−1}`, the part of `E[S_i²]` the
/// levels below contribute. A level with `r = 1` has no within information: it reports zeros and
/// passes `lower` up unchanged, so its variance lands in the component of the level above.
fn balanced(h: &Hierarchy, counts: &[usize]) -> Vec<LevelComponent> {
    let n = h.depth();
    let mut out = Vec::with_capacity(n);
    let mut lower = 0.0;
    let mut child_means = h.unit_means(n - 1);
    for d in (0..n).rev() {
        let parent_means = if d == 0 {
            vec![h.grand_mean()]
        } else {
            h.unit_means(d - 1)
        };
        let r = counts[d];
        let df = parent_means.len() * (r - 1);
        let (s2, t2) = if r >= 2 {
            let ss: f64 = child_means
                .iter()
                .enumerate()
                .map(|(u, m)| (m - parent_means[u / r]).powi(2))
                .sum();
            let s2 = ss / df as f64;
            let t2 = s2 - lower;
            lower = s2 / r as f64;
            (s2, t2)
        } else {
            (0.0, 0.0)
        };
        out.push(LevelComponent {
            level: h.levels()[d].clone(),
            s2,
            t2,
            df,
        });
        child_means = parent_means;
    }
    out.reverse();
    out
}

/// Sizes, parents and means of every unit at every depth, for Henderson's method.
struct Layout {
    /// `sizes[d][u]`: number of values under unit `u` at depth `d`.
    sizes: Vec<Vec<f64>>,
    /// `parent[d][u]`: index at depth `d − 1` of the parent of unit `u` (empty at depth 0).
    parent: Vec<Vec<usize>>,
    /// `means[d][u]`: mean of the values under unit `u` at depth `d`.
    means: Vec<Vec<f64>>,
}

impl Layout {
    fn new(h: &Hierarchy) -> Self {
        let n = h.depth();
        let sizes = (0..n)
            .map(|d| {
                (0..h.units(d))
                    .map(|u| h.value_range(d, u).len() as f64)
                    .collect()
            })
            .collect();
        let mut parent = vec![Vec::new()];
        for d in 0..n - 1 {
            let mut p = vec![0; h.units(d + 1)];
            for u in 0..h.units(d) {
                p[h.children(d, u)].fill(u);
            }
            parent.push(p);
        }
        let means = (0..n).map(|d| h.unit_means(d)).collect();
        Self {
            sizes,
            parent,
            means,
        }
    }

    /// Ancestor at depth `to` of unit `u` at depth `from` (`to ≤ from`).
    fn ancestor(&self, from: usize, mut u: usize, to: usize) -> usize {
        for d in (to + 1..=from).rev() {
            u = self.parent[d][u];
        }
        u
    }
}

/// Henderson's method I for unbalanced nested data.
///
/// With `n_u` the number of values under unit `u`, the sum of squares of depth `d` is
/// `SS_d = Σ_u n_u (Ȳ_u − Ȳ_parent(u))²` on `df_d = units(d) − units(d − 1)` degrees of freedom,
/// and `E[SS_d] = Σ_{e ≥ d} σ_e² (a(d, e) − a(d − 1, e))` where `a(d, e) = Σ_{w at e}
/// n_w² / n_{ancestor of w at d}` (`a(d, d) = N`; depth −1 is the whole sample). Dividing by
/// `df_d` gives the k coefficients `k_de` of Henderson's method I (`k1 = k_BB`, `k2 = k_AB`, `k3 =
/// k_AA`). The system is triangular: solve from the lowest level up. Levels with `df = 0` are left
/// out (component 0), which moves their variance into the level above, as in the balanced case.
fn henderson(h: &Hierarchy) -> Vec<LevelComponent> {
    let n = h.depth();
    let layout = Layout::new(h);
    let big_n = h.values().len() as f64;
    let grand = h.grand_mean();
    // a[row][e] with row = d + 1 (row 0 is the whole sample), for e ≥ d.
    let mut a = vec![vec![0.0; n]; n + 1];
    for e in 0..n {
        a[e + 1][e] = big_n;
        for (w, &nw) in layout.sizes[e].iter().enumerate() {
            a[0][e] += nw * nw / big_n;
            for d in 0..e {
                let anc = layout.ancestor(e, w, d);
                a[d + 1][e] += nw * nw / layout.sizes[d][anc];
            }
        }
    }
    let mut sigma = vec![0.0; n];
    let mut out = Vec::with_capacity(n);
    for d in (0..n).rev() {
        let above = if d == 0 { 1 } else { h.units(d - 1) };
        let df = h.units(d) - above;
        let (s2, t2) = if df > 0 {
            let ss: f64 = (0..h.units(d))
                .map(|u| {
                    let parent = if d == 0 {
                        grand
                    } else {
                        layout.means[d - 1][layout.parent[d][u]]
                    };
                    layout.sizes[d][u] * (layout.means[d][u] - parent).powi(2)
                })
                .sum();
            let k = |e: usize| (a[d + 1][e] - a[d][e]) / df as f64;
            let ms = ss / df as f64;
            let lower: f64 = (d + 1..n).map(|e| k(e) * sigma[e]).sum();
            let kdd = k(d);
            ((ms / kdd), (ms - lower) / kdd)
        } else {
            (0.0, 0.0)
        };
        sigma[d] = t2;
        out.push(LevelComponent {
            level: h.levels()[d].clone(),
            s2,
            t2,
            df,
        });
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Relative closeness to 1e-6 (absolute near 0).
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1e-3)
    }

    fn kalibera3() -> Hierarchy {
        let values = vec![9., 5., 8., 3., 10., 6., 7., 11., 1., 12., 2., 4.];
        Hierarchy::balanced(vec!["build", "execution", "iteration"], &[3, 2, 2], values).unwrap()
    }

    #[test]
    fn methods_three_level_oracle() {
        let vc = variance_components(&kalibera3()).unwrap();
        assert_eq!(vc.method, ComponentMethod::Balanced);
        let c = &vc.components;
        assert_eq!(c[0].level, "build");
        // Hand-worked: S_1² = 16.5, S_2² = 2.58333, S_3² = 3.5625 (level 1 = iterations).
        assert!(close(c[2].s2, 16.5));
        assert!(close(c[1].s2, 2.583_333_3));
        assert!(close(c[0].s2, 3.5625));
        // T_1² = 16.5, T_2² = −5.66667, T_3² = 2.27083.
        assert!(close(c[2].t2, 16.5));
        assert!(close(c[1].t2, -5.666_666_7));
        assert!(close(c[0].t2, 2.270_833_3));
        assert_eq!(c.iter().map(|c| c.df).collect::<Vec<_>>(), vec![2, 3, 6]);
        assert_eq!(c[1].t2_truncated(), 0.0);
        assert!(close(vc.total(), 16.5 + 2.270_833_3));
    }

    #[test]
    fn methods_two_level_oracle() {
        let values = vec![9., 5., 8., 3., 10., 6., 7., 11., 1., 12., 2., 4.];
        let h = Hierarchy::balanced(vec!["execution", "iteration"], &[3, 4], values).unwrap();
        let vc = variance_components(&h).unwrap();
        // S_1² = 12.7222, S_2² = 3.5625, T_2² = 0.381944.
        assert!(close(vc.components[1].s2, 12.722_222));
        assert!(close(vc.components[1].t2, 12.722_222));
        assert!(close(vc.components[0].s2, 3.5625));
        assert!(close(vc.components[0].t2, 0.381_944_4));
    }

    #[test]
    fn libkalibera_design_oracle() {
        // Hand-worked: r = (2, 2, 3) top → bottom; T² levels 1..3 = (0.726667, 0.262778, 0.774722).
        let values = vec![3., 4., 3., 1.2, 3.1, 3., 0.2, 1., 1.5, 1., 2., 3.];
        let h = Hierarchy::balanced(vec!["b", "e", "i"], &[2, 2, 3], values).unwrap();
        let t2 = variance_components(&h).unwrap().t2();
        assert!(close(t2[2], 0.726_666_7));
        assert!(close(t2[1], 0.262_777_8));
        assert!(close(t2[0], 0.774_722_2));
    }

    #[test]
    fn one_level_is_sample_variance() {
        let h = Hierarchy::flat("run", vec![1.0, 2.0, 4.0]).unwrap();
        let vc = variance_components(&h).unwrap();
        assert_eq!(vc.method, ComponentMethod::Balanced);
        let var = crate::descriptive::variance(&[1.0, 2.0, 4.0]);
        assert!(close(vc.components[0].s2, var));
        assert!(close(vc.components[0].t2, var));
        assert_eq!(vc.components[0].df, 2);
    }

    #[test]
    fn refuses_a_single_top_unit() {
        let h = Hierarchy::two_level(["e", "i"], &[vec![1.0, 2.0, 3.0]]).unwrap();
        assert!(matches!(
            variance_components(&h),
            Err(StatsError::TooFew {
                needed: 2,
                got: 1,
                ..
            })
        ));
        let h = Hierarchy::flat("x", vec![1.0]).unwrap();
        assert!(variance_components(&h).is_err());
    }

    #[test]
    fn henderson_equals_balanced_on_balanced_data() {
        for h in [kalibera3(), kalibera3().collapse_lowest().unwrap()] {
            let counts = h.balanced_counts().unwrap();
            let b = balanced(&h, &counts);
            let u = henderson(&h);
            for (x, y) in b.iter().zip(&u) {
                assert!(close(x.s2, y.s2), "{x:?} vs {y:?}");
                assert!(close(x.t2, y.t2), "{x:?} vs {y:?}");
                assert_eq!(x.df, y.df);
            }
        }
    }

    #[test]
    fn single_child_levels_give_zero_without_nan() {
        // One execution per build: executions are confounded with builds.
        let values = vec![1.0, 2.0, 5.0, 7.0, 3.0, 3.5];
        let h = Hierarchy::balanced(vec!["b", "e", "i"], &[3, 1, 2], values).unwrap();
        let vc = variance_components(&h).unwrap();
        let c = &vc.components;
        assert_eq!((c[1].s2, c[1].t2, c[1].df), (0.0, 0.0, 0));
        // The build level then estimates σ_b² + σ_e²: S_b² − S_i²/2, as in a two-level design.
        let two = Hierarchy::balanced(vec!["b", "i"], &[3, 2], vec![1.0, 2.0, 5.0, 7.0, 3.0, 3.5])
            .unwrap();
        let vc2 = variance_components(&two).unwrap();
        assert!(close(c[0].t2, vc2.components[0].t2));
        assert!(close(c[2].t2, vc2.components[1].t2));
        // Henderson handles the same degenerate level identically.
        let u = henderson(&h);
        for (x, y) in c.iter().zip(&u) {
            assert!(close(x.t2, y.t2) && close(x.s2, y.s2), "{x:?} vs {y:?}");
        }
        // One iteration per execution: the lowest level is degenerate.
        let h = Hierarchy::balanced(vec!["e", "i"], &[3, 1], vec![1.0, 2.0, 4.0]).unwrap();
        let vc = variance_components(&h).unwrap();
        assert_eq!(vc.components[1].t2, 0.0);
        assert!(close(vc.components[0].t2, 7.0 / 3.0));
    }

    #[test]
    fn henderson_two_level_by_hand() {
        // Groups (1, 3), (4, 6, 8), (10): N = 6, a = 3, n = (2, 3, 1), means 2, 6, 10,
        // grand mean 16/3.
        // SS_W = 1 + 1 + 4 + 0 + 4 = 10 on N − a = 3 df → MS_W = 10/3 = σ_E².
        // SS_A = 2(2 − 16/3)² + 3(6 − 16/3)² + (10 − 16/3)² = 200/9 + 4/3 + 196/9 = 136/3,
        // MS_A = 68/3 on 2 df. n₀ = k3 = (6 − 14/6)/2 = 11/6.
        // σ_A² = (MS_A − MS_W)/n₀ = (58/3)(6/11) = 116/11; S_A² = MS_A/n₀ = 136/11.
        let h = Hierarchy::two_level(
            ["execution", "iteration"],
            &[vec![1.0, 3.0], vec![4.0, 6.0, 8.0], vec![10.0]],
        )
        .unwrap();
        let vc = variance_components(&h).unwrap();
        assert_eq!(vc.method, ComponentMethod::Henderson1);
        let c = &vc.components;
        assert!(close(c[1].t2, 10.0 / 3.0) && close(c[1].s2, 10.0 / 3.0));
        assert!(close(c[0].t2, 116.0 / 11.0));
        assert!(close(c[0].s2, 136.0 / 11.0));
        assert_eq!((c[0].df, c[1].df), (2, 3));
    }

    #[test]
    fn henderson_three_level_by_hand() {
        // A1: B11 = (2, 4), B12 = (6); A2: B21 = (1), B22 = (5, 7, 9), B23 = (3).
        // N = 8, a = 2, B = 5; n_i. = (3, 5); n_ij = (2, 1 | 1, 3, 1).
        // Means: B = 3, 6 | 1, 7, 3; A = 4, 5; grand = 37/8.
        // SS_E = (1 + 1) + (4 + 0 + 4) = 10 on N − B = 3 df: MS_E = 10/3.
        // SS_B(A) = 2·1 + 1·4 + 1·16 + 3·4 + 1·4 = 38 on B − a = 3 df: MS_B = 38/3.
        // SS_A = 3(4 − 37/8)² + 5(5 − 37/8)² = 75/64 + 45/64 = 15/8 on 1 df: MS_A = 15/8.
        // Σ n_ij²/n_i. = 5/3 + 11/5 = 58/15; Σ n_ij²/N = 16/8 = 2; Σ n_i.²/N = 34/8 = 17/4.
        // Hand-worked: k1 = (8 − 58/15)/3 = 62/45; k2 = (58/15 − 2)/1 = 28/15; k3 = 8 − 17/4 =
        // 15/4. σ_E² = 10/3; σ_B² = (38/3 − 10/3)/(62/45) = 210/31;
        // σ_A² = (15/8 − 10/3 − (28/15)(210/31))/(15/4) = −10493/2790 (checked with exact
        // fractions). S_B² = MS_B/k1 = 285/31, S_A² = MS_A/k3 = 1/2.
        let h = Hierarchy::three_level(
            ["build", "execution", "iteration"],
            &[
                vec![vec![2.0, 4.0], vec![6.0]],
                vec![vec![1.0], vec![5.0, 7.0, 9.0], vec![3.0]],
            ],
        )
        .unwrap();
        let vc = variance_components(&h).unwrap();
        assert_eq!(vc.method, ComponentMethod::Henderson1);
        let c = &vc.components;
        assert!(close(c[2].t2, 10.0 / 3.0) && close(c[2].s2, 10.0 / 3.0));
        assert!(close(c[1].t2, 210.0 / 31.0));
        assert!(close(c[1].s2, 285.0 / 31.0));
        assert!(close(c[0].t2, -10_493.0 / 2790.0));
        assert!(close(c[0].s2, 0.5));
        assert_eq!(c.iter().map(|c| c.df).collect::<Vec<_>>(), vec![1, 3, 3]);
    }

    #[test]
    fn shares_and_lookup() {
        let vc = variance_components(&kalibera3()).unwrap();
        let shares = vc.shares();
        assert!(close(shares.iter().sum::<f64>(), 100.0));
        assert_eq!(shares[1], 0.0);
        assert_eq!(vc.level("iteration").map(|c| c.df), Some(6));
        assert!(vc.level("nope").is_none());
        let flat = Hierarchy::flat("x", vec![2.0, 2.0]).unwrap();
        assert_eq!(variance_components(&flat).unwrap().shares(), vec![0.0]);
    }
}
