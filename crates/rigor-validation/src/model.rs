//! The simulated benchmarks: random-effects model, effect distributions and variance splits.
//!
//! A measurement is `μ·(1 + σ_b·B + σ_e·E + σ_i·I)` with B, E, I independent effects of the build,
//! the execution and the iteration, each drawn from a [`Family`] with mean 0 and standard
//! deviation 1, and σ the per-level variation as a fraction of the mean ([`Split`]). With normal
//! effects this is exactly the model of rigor's `SimulatedExecutor`.

use rand::Rng;
use rand_distr::{Distribution, StandardNormal, StudentT};
use rigor_stats::Hierarchy;

/// Distribution of every random effect (standardised: mean 0, standard deviation 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Normal.
    Normal,
    /// Log-normal with shape s = 0.5 (skewness 1.75), centred and scaled.
    LogNormal,
    /// Two modes: 30% of draws in a second mode 2.1 SD above the first (within-mode SD 0.3).
    Bimodal,
    /// Student t with 3 degrees of freedom, scaled to unit variance (infinite kurtosis).
    StudentT3,
    /// Strongly skewed log-normal, shape s = 0.8 (skewness 3.7), centred and scaled.
    LogNormalStrong,
    /// One draw in five in a far mode (code-layout shape): 20% of draws 2.4 SD above the rest
    /// (within-mode SD 0.2).
    FarMode,
    /// Held out (not looked at when rigor's interval was chosen): exponential, skewness 2.
    Exponential,
    /// Held out: log-normal with shape 1.0 (skewness 6.2), centred and scaled.
    LogNormalExtreme,
    /// Held out: the strongly skewed log-normal mirrored (skewed to the left).
    MirroredLogNormal,
}

/// Log-normal shape.
const LOGNORMAL_SHAPE: f64 = 0.5;
/// Bimodal: share of the second mode and within-mode SD.
const BIMODAL_P: f64 = 0.3;
const BIMODAL_W: f64 = 0.3;

impl Family {
    /// All four, in table order.
    pub const ALL: [Family; 4] = [
        Family::Normal,
        Family::LogNormal,
        Family::Bimodal,
        Family::StudentT3,
    ];

    /// Short name for tables.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Normal => "normal",
            Self::LogNormal => "log-normal",
            Self::Bimodal => "bimodal",
            Self::StudentT3 => "t₃",
            Self::LogNormalStrong => "log-normal 0.8",
            Self::FarMode => "far mode 1 in 5",
            Self::Exponential => "exponential (held out)",
            Self::LogNormalExtreme => "log-normal 1.0 (held out)",
            Self::MirroredLogNormal => "mirrored log-normal 0.8 (held out)",
        }
    }

    /// Share of the smaller mode, for the two-mode shapes.
    pub fn mode_share(&self) -> Option<f64> {
        match self {
            Self::Bimodal => Some(BIMODAL_P),
            Self::FarMode => Some(0.2),
            _ => None,
        }
    }

    /// One standardised draw.
    pub fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match self {
            Self::Normal => rng.sample(StandardNormal),
            Self::LogNormal => lognormal(rng, LOGNORMAL_SHAPE),
            Self::LogNormalStrong => lognormal(rng, 0.8),
            Self::Bimodal => two_modes(rng, BIMODAL_P, BIMODAL_W),
            Self::FarMode => two_modes(rng, 0.2, 0.2),
            Self::Exponential => {
                let u: f64 = rng.r#gen();
                -(1.0 - u).ln() - 1.0
            }
            Self::LogNormalExtreme => lognormal(rng, 1.0),
            Self::MirroredLogNormal => -lognormal(rng, 0.8),
            Self::StudentT3 => {
                let t = StudentT::new(3.0)
                    .expect("3 degrees of freedom")
                    .sample(rng);
                t / 3f64.sqrt()
            }
        }
    }
}

/// A standardised log-normal draw of shape `s`.
fn lognormal<R: Rng + ?Sized>(rng: &mut R, s: f64) -> f64 {
    let z: f64 = rng.sample(StandardNormal);
    let m = (s * s / 2.0).exp();
    let sd = (((s * s).exp() - 1.0) * (s * s).exp()).sqrt();
    ((s * z).exp() - m) / sd
}

/// A standardised two-mode draw: share `p` in the second mode, within-mode SD `w`.
fn two_modes<R: Rng + ?Sized>(rng: &mut R, p: f64, w: f64) -> f64 {
    let d = ((1.0 - w * w) / (p * (1.0 - p))).sqrt();
    let b = if rng.r#gen::<f64>() < p { 1.0 } else { 0.0 };
    let z: f64 = rng.sample(StandardNormal);
    d * (b - p) + w * z
}

/// Variation per level as a fraction of the mean (standard deviations of the effects).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Split {
    /// Name, e.g. "bloat6".
    pub name: &'static str,
    /// σ of the build effect / μ (0: no build level).
    pub build: f64,
    /// σ of the execution effect / μ.
    pub execution: f64,
    /// σ of the iteration noise / μ.
    pub iteration: f64,
    /// Where the numbers come from.
    pub source: &'static str,
}

/// Kalibera & Jones 2013, Table 4, "Percentage Variation", DaCapo/OpenJDK on P1: the
/// iteration variation (within an execution) and the execution variation (between execution
/// means), both as % of the mean.
pub const BLOAT6: Split = Split {
    name: "bloat6",
    build: 0.0,
    execution: 0.037,
    iteration: 0.141,
    source: "Kalibera & Jones 2013, Table 4: iteration 14.1%, execution 3.7%",
};
/// Kalibera & Jones 2013, Table 4.
pub const LUSEARCH9: Split = Split {
    name: "lusearch9",
    build: 0.0,
    execution: 0.303,
    iteration: 0.033,
    source: "Kalibera & Jones 2013, Table 4: iteration 3.3%, execution 30.3%",
};
/// Kalibera & Jones 2013, Table 4.
pub const XALAN6: Split = Split {
    name: "xalan6",
    build: 0.0,
    execution: 0.091,
    iteration: 0.070,
    source: "Kalibera & Jones 2013, Table 4: iteration 7.0%, execution 9.1%",
};
/// Kalibera & Jones 2013, Table 4.
pub const XALAN9: Split = Split {
    name: "xalan9",
    build: 0.0,
    execution: 0.010,
    iteration: 0.035,
    source: "Kalibera & Jones 2013, Table 4: iteration 3.5%, execution 1.0%",
};
/// Kalibera & Jones 2013, Table 4: execution variation at the level iteration noise alone gives
/// (0.8/√40).
pub const TRADEBEANS9: Split = Split {
    name: "tradebeans9",
    build: 0.0,
    execution: 0.004,
    iteration: 0.015,
    source: "Kalibera & Jones 2013, Table 4: iteration 1.5%, execution 0.4%",
};
/// Kalibera & Jones 2013, §8.1: antlr6 varied 9% over binaries (randomised code layout) and 3%
/// over executions of one binary (10th iteration of each): σ_build = √(9² − 3²) = 8.5%; the 3% per
/// single measurement is split evenly between executions and iterations (2.1% each; assumed).
pub const ANTLR6_LAYOUT: Split = Split {
    name: "antlr6 layout",
    build: 0.085,
    execution: 0.021,
    iteration: 0.021,
    source: "Kalibera & Jones 2013, §8.1: 9% over binaries vs 3% over executions → build 8.5%; execution = iteration = 2.1% (3% split evenly, assumed)",
};
/// Kalibera & Jones 2013, §8: xalancbmk varied 4% with randomised link order and 1% without:
/// σ_build = √(4² − 1²) = 3.9%; the 1% split evenly (0.7% each; assumed).
pub const XALANCBMK_LINK: Split = Split {
    name: "xalancbmk link order",
    build: 0.039,
    execution: 0.007,
    iteration: 0.007,
    source: "Kalibera & Jones 2013, §8: 4% with randomised link order vs 1% without → build 3.9%; execution = iteration = 0.7% (assumed)",
};
/// xalan9's execution and iteration variation (Kalibera & Jones 2013, Table 4) with the largest
/// variation over randomised-layout binaries that Kalibera & Jones 2013 report for reference inputs
/// (Figure 2: 1.7%, xalancbmk).
pub const XALAN9_LAYOUT: Split = Split {
    name: "xalan9 + layout",
    build: 0.017,
    execution: 0.010,
    iteration: 0.035,
    source: "Kalibera & Jones 2013, Table 4 (xalan9) + §8.2/Figure 2 (1.7% over randomised binaries, xalancbmk)",
};

/// A balanced design: `builds` (0 = no build level) × `executions` × `iterations`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Design {
    /// Builds (0: two levels, executions on top).
    pub builds: usize,
    /// Executions per build (or in total without builds).
    pub executions: usize,
    /// Iterations per execution.
    pub iterations: usize,
}

impl Design {
    /// "6 × 10 × 10" or "10 × 20".
    pub fn show(&self) -> String {
        if self.builds > 0 {
            format!(
                "{} × {} × {}",
                self.builds, self.executions, self.iterations
            )
        } else {
            format!("{} × {}", self.executions, self.iterations)
        }
    }
}

/// One simulated experiment's values, balanced, in experiment order (builds outermost).
#[derive(Debug, Clone)]
pub struct Data {
    /// The design.
    pub design: Design,
    /// All values, lexicographic (build, execution, iteration).
    pub values: Vec<f64>,
}

impl Data {
    /// Draws an experiment with true mean `mu`.
    pub fn draw<R: Rng + ?Sized>(
        rng: &mut R,
        split: &Split,
        family: Family,
        design: Design,
        mu: f64,
    ) -> Self {
        let builds = design.builds.max(1);
        let mut values = Vec::with_capacity(builds * design.executions * design.iterations);
        for _ in 0..builds {
            let b = if design.builds > 0 {
                split.build * family.draw(rng)
            } else {
                0.0
            };
            for _ in 0..design.executions {
                let e = split.execution * family.draw(rng);
                for _ in 0..design.iterations {
                    let i = split.iteration * family.draw(rng);
                    values.push(mu * (1.0 + b + e + i));
                }
            }
        }
        Self { design, values }
    }

    /// The full hierarchy (builds on top when the design has them).
    pub fn hierarchy(&self) -> Hierarchy {
        let d = self.design;
        let h = if d.builds > 0 {
            Hierarchy::balanced(
                vec!["build", "execution", "iteration"],
                &[d.builds, d.executions, d.iterations],
                self.values.clone(),
            )
        } else {
            Hierarchy::balanced(
                vec!["execution", "iteration"],
                &[d.executions, d.iterations],
                self.values.clone(),
            )
        };
        h.expect("a balanced design is a valid hierarchy")
    }

    /// The same values with the build level dropped: executions on top.
    pub fn ignoring_builds(&self) -> Hierarchy {
        let d = self.design;
        Hierarchy::balanced(
            vec!["execution", "iteration"],
            &[d.builds.max(1) * d.executions, d.iterations],
            self.values.clone(),
        )
        .expect("balanced")
    }

    /// The executions of the first build only (what a tool sees that benchmarks one binary).
    pub fn first_build(&self) -> Hierarchy {
        let d = self.design;
        let n = d.executions * d.iterations;
        Hierarchy::balanced(
            vec!["execution", "iteration"],
            &[d.executions, d.iterations],
            self.values[..n].to_vec(),
        )
        .expect("balanced")
    }

    /// Every value as its own top-level unit (tools that pool iterations as i.i.d.).
    pub fn flat(&self) -> Hierarchy {
        Hierarchy::flat("value", self.values.clone()).expect("non-empty")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn families_are_standardised() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for f in Family::ALL {
            let n = 400_000;
            let xs: Vec<f64> = (0..n).map(|_| f.draw(&mut rng)).collect();
            let m = xs.iter().sum::<f64>() / n as f64;
            let v = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n as f64;
            assert!(m.abs() < 0.01, "{f:?} mean {m}");
            assert!((v - 1.0).abs() < 0.06, "{f:?} variance {v}");
        }
    }

    #[test]
    fn data_shapes() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let d = Design {
            builds: 3,
            executions: 4,
            iterations: 5,
        };
        let x = Data::draw(&mut rng, &XALAN9_LAYOUT, Family::Normal, d, 1.0);
        assert_eq!(x.hierarchy().counts(), vec![3, 12, 60]);
        assert_eq!(x.ignoring_builds().counts(), vec![12, 60]);
        assert_eq!(x.first_build().counts(), vec![4, 20]);
        assert_eq!(x.flat().counts(), vec![60]);
    }
}
