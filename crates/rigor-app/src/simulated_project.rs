//! A simulated project for `rigor track run --simulate SPEC`: versions with true levels and
//! steps, stretches of versions whose builds are identical, sessions that shift every version
//! they measure and report a load — known truth driven through the real scheduling, anchors,
//! confirmation and detection, with no git and no processes.
//!
//! The specification is `key=value` pairs separated by commas:
//!
//! - `versions=N` (required): versions `v1` … `vN`, in history order;
//! - `step=K:+5%` (repeatable): from version `vK` on, every benchmark's level is 5% higher
//!   (`-3%` lower); `step=K:+5%@B` only benchmark `B` (1-based, in the order of the commands);
//! - `identical=A-B` (repeatable): versions `vA` … `vB` build byte-identical programs (a README
//!   change): one artifact, one level — a step inside the stretch is refused;
//! - `session=P%`: each session shifts every level it measures by a factor `exp(N(0, σ²))`
//!   with σ = P% (default 0);
//! - `load=L` or `load=A-B`: the load average each session reports (a range draws uniformly;
//!   default 0.5).
//!
//! Each command after `--` is a simulated command of `rigor run --simulate`
//! (`mean=10ms,execution=2%`); a version's benchmark in a session runs it with `scale=` its true
//! factor times the session's shift.

use std::ops::RangeInclusive;

use rand::Rng;
use sha2::{Digest, Sha256};

/// What is wrong with a simulated project's specification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--simulate '{spec}': {reason}")]
pub struct BadProject {
    /// The specification as given.
    pub spec: String,
    /// What is wrong with it.
    pub reason: String,
}

/// A step in the true level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimStep {
    /// The first version (0-based) at the new level.
    pub version: usize,
    /// New level / old level.
    pub factor: f64,
    /// Only this benchmark (0-based), or every one.
    pub benchmark: Option<usize>,
}

/// A simulated project (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct SimProject {
    /// Number of versions.
    pub versions: usize,
    /// The true changes.
    pub steps: Vec<SimStep>,
    /// Stretches of versions (0-based, inclusive) with identical builds.
    pub identical: Vec<RangeInclusive<usize>>,
    /// SD of a session's shift on the log scale.
    pub session_sd: f64,
    /// The range of the load average a session reports.
    pub load: (f64, f64),
}

/// One session of a simulated project: its shift and the load it reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimSession {
    /// The factor every level measured in it is multiplied by.
    pub shift: f64,
    /// The load average before it measures.
    pub load_before: f64,
    /// The load average after.
    pub load_after: f64,
}

fn percent(text: &str) -> Option<f64> {
    let number = text.strip_suffix('%')?;
    let value: f64 = number.parse().ok()?;
    value.is_finite().then_some(value / 100.0)
}

fn version_number(text: &str, versions: usize) -> Result<usize, String> {
    let n: usize = text
        .trim_start_matches('v')
        .parse()
        .map_err(|_| format!("'{text}' is not a version number (1 to {versions})"))?;
    if n == 0 || n > versions {
        return Err(format!("version {n} is not between 1 and {versions}"));
    }
    Ok(n - 1)
}

impl SimProject {
    /// Parses a specification (see the module documentation).
    pub fn parse(spec: &str) -> Result<Self, BadProject> {
        let bad = |reason: String| BadProject {
            spec: spec.to_string(),
            reason,
        };
        let pairs: Vec<(&str, &str)> = spec
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                p.split_once('=')
                    .ok_or_else(|| bad(format!("'{p}' is not key=value")))
            })
            .collect::<Result<_, _>>()?;
        let versions = match pairs.iter().rev().find(|(k, _)| *k == "versions") {
            Some((_, v)) => v
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=1_000_000).contains(n))
                .ok_or_else(|| bad(format!("versions={v} is not a count from 1 to 1000000")))?,
            None => return Err(bad("'versions' is required (versions=40)".into())),
        };
        let mut project = Self {
            versions,
            steps: Vec::new(),
            identical: Vec::new(),
            session_sd: 0.0,
            load: (0.5, 0.5),
        };
        for (key, value) in pairs {
            match key {
                "versions" => {}
                "step" => {
                    let (at, rest) = value
                        .split_once(':')
                        .ok_or_else(|| bad(format!("step={value} is not K:+P% (step=12:+5%)")))?;
                    let (size, benchmark) = match rest.split_once('@') {
                        Some((size, b)) => {
                            let b: usize = b.parse().ok().filter(|b| *b >= 1).ok_or_else(|| {
                                bad(format!("step={value}: '@{b}' is not a benchmark number"))
                            })?;
                            (size, Some(b - 1))
                        }
                        None => (rest, None),
                    };
                    let change = percent(size).filter(|p| *p > -1.0).ok_or_else(|| {
                        bad(format!(
                            "step={value}: '{size}' is not a percentage above -100%"
                        ))
                    })?;
                    let version = version_number(at, versions).map_err(&bad)?;
                    if version == 0 {
                        return Err(bad(format!(
                            "step={value}: the first version has no version before it"
                        )));
                    }
                    project.steps.push(SimStep {
                        version,
                        factor: 1.0 + change,
                        benchmark,
                    });
                }
                "identical" => {
                    let (a, b) = value
                        .split_once('-')
                        .ok_or_else(|| bad(format!("identical={value} is not A-B")))?;
                    let (a, b) = (
                        version_number(a, versions).map_err(&bad)?,
                        version_number(b, versions).map_err(&bad)?,
                    );
                    if a >= b {
                        return Err(bad(format!(
                            "identical={value}: give two versions, the first before the second"
                        )));
                    }
                    project.identical.push(a..=b);
                }
                "session" => {
                    project.session_sd = percent(value)
                        .filter(|p| (0.0..=1.0).contains(p))
                        .ok_or_else(|| {
                            bad(format!(
                                "session={value} is not a percentage from 0% to 100%"
                            ))
                        })?;
                }
                "load" => {
                    let number =
                        |t: &str| t.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
                    project.load = match value.split_once('-') {
                        Some((a, b)) => match (number(a), number(b)) {
                            (Some(a), Some(b)) if a <= b => (a, b),
                            _ => {
                                return Err(bad(format!(
                                    "load={value} is not a range A-B of load averages"
                                )));
                            }
                        },
                        None => {
                            let l = number(value).ok_or_else(|| {
                                bad(format!("load={value} is not a load average"))
                            })?;
                            (l, l)
                        }
                    };
                }
                other => {
                    return Err(bad(format!(
                        "unknown key '{other}' (versions, step, identical, session, load)"
                    )));
                }
            }
        }
        for s in &project.steps {
            if let Some(r) = project
                .identical
                .iter()
                .find(|r| *r.start() < s.version && s.version <= *r.end())
            {
                return Err(bad(format!(
                    "a step at v{} lies inside identical={}-{}: identical builds have one level",
                    s.version + 1,
                    r.start() + 1,
                    r.end() + 1
                )));
            }
        }
        Ok(project)
    }

    /// The project as seen by benchmark `benchmark` (0-based) measured alone, as the first and
    /// only benchmark of an experiment (a confirmation, a candidate check): its own steps and
    /// those of every benchmark, the others' left out.
    pub fn only(&self, benchmark: usize) -> Self {
        Self {
            steps: self
                .steps
                .iter()
                .filter(|s| s.benchmark.is_none_or(|b| b == benchmark))
                .map(|s| SimStep {
                    benchmark: s.benchmark.map(|_| 0),
                    ..*s
                })
                .collect(),
            ..self.clone()
        }
    }

    /// The label of version `i` (0-based): `v1`, `v2`, ….
    pub fn label(i: usize) -> String {
        format!("v{}", i + 1)
    }

    /// The 0-based version a label names (`v7` → 6), when it is one of this project's.
    pub fn version_of(&self, label: &str) -> Option<usize> {
        version_number(label, self.versions).ok()
    }

    /// The true level of `benchmark` at `version` relative to the first version.
    pub fn factor(&self, version: usize, benchmark: usize) -> f64 {
        self.steps
            .iter()
            .filter(|s| s.version <= version && s.benchmark.is_none_or(|b| b == benchmark))
            .map(|s| s.factor)
            .product()
    }

    /// The hash of what version `version` builds: the same for every version of an identical
    /// stretch, distinct otherwise.
    pub fn artifact(&self, version: usize) -> [u8; 32] {
        let first = self
            .identical
            .iter()
            .find(|r| r.contains(&version))
            .map_or(version, |r| *r.start());
        Sha256::digest(format!("simulated build of v{}", first + 1)).into()
    }

    /// A new session: its shift and load, drawn from `rng`.
    pub fn session(&self, rng: &mut impl Rng) -> SimSession {
        let z: f64 = rng.sample(rand_distr::StandardNormal);
        let (lo, hi) = self.load;
        let mut load = || if hi > lo { rng.gen_range(lo..=hi) } else { lo };
        SimSession {
            shift: (self.session_sd * z).exp(),
            load_before: load(),
            load_after: load(),
        }
    }

    /// The simulated command that measures `benchmark` (0-based) of `version` in `session`:
    /// `command` with its scale set to the true factor times the session's shift.
    pub fn command(
        &self,
        command: &str,
        version: usize,
        benchmark: usize,
        session: &SimSession,
    ) -> String {
        format!(
            "{command},scale={}",
            self.factor(version, benchmark) * session.shift
        )
    }
}

/// `--simulate`'s value when it is a simulated project's specification (`versions=…`), not a
/// simulated command.
pub fn project_spec(simulate: Option<&str>) -> Option<String> {
    simulate
        .filter(|v| v.split(',').any(|p| p.trim().starts_with("versions=")))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn parses_a_project() {
        let p = SimProject::parse(
            "versions=12, step=8:+10%, step=10:-3%@2, identical=3-5, session=20%, load=0.5-6",
        )
        .unwrap();
        assert_eq!(p.versions, 12);
        assert_eq!(p.identical, vec![2..=4]);
        assert_eq!(p.session_sd, 0.2);
        assert_eq!(p.load, (0.5, 6.0));
        assert!((p.factor(6, 0) - 1.0).abs() < 1e-12);
        assert!((p.factor(7, 0) - 1.1).abs() < 1e-12);
        assert!((p.factor(11, 0) - 1.1).abs() < 1e-12);
        assert!((p.factor(11, 1) - 1.1 * 0.97).abs() < 1e-12);
        assert_eq!(p.artifact(2), p.artifact(4));
        assert_ne!(p.artifact(1), p.artifact(2));
        assert_ne!(p.artifact(5), p.artifact(4));
        assert_eq!(SimProject::label(0), "v1");
        assert_eq!(p.version_of("v12"), Some(11));
        assert_eq!(p.version_of("v13"), None);
        // The second benchmark measured alone keeps its own truth.
        let second = p.only(1);
        assert!((second.factor(11, 0) - 1.1 * 0.97).abs() < 1e-12);
        assert!((p.only(0).factor(11, 0) - 1.1).abs() < 1e-12);
    }

    #[test]
    fn refuses_what_cannot_be() {
        for (spec, says) in [
            ("step=3:+5%", "'versions' is required"),
            ("versions=0", "versions=0"),
            ("versions=5,step=9:+5%", "not between 1 and 5"),
            ("versions=5,step=1:+5%", "no version before it"),
            ("versions=5,step=3:5", "not a percentage"),
            ("versions=5,step=3:-100%", "above -100%"),
            ("versions=5,identical=4-2", "the first before the second"),
            (
                "versions=9,identical=2-6,step=4:+5%",
                "inside identical=2-6",
            ),
            ("versions=5,session=200%", "session=200%"),
            ("versions=5,load=3-1", "load=3-1"),
            ("versions=5,colour=red", "unknown key 'colour'"),
            ("versions=5,step", "'step' is not key=value"),
        ] {
            let e = SimProject::parse(spec).unwrap_err().to_string();
            assert!(e.contains(says), "{spec}: {e}");
        }
        // A step at the first version of an identical stretch is where its builds start.
        assert!(SimProject::parse("versions=9,identical=4-6,step=4:+5%").is_ok());
    }

    #[test]
    fn sessions_shift_by_the_given_spread() {
        let p = SimProject::parse("versions=2,session=10%,load=1-3").unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let logs: Vec<f64> = (0..4000).map(|_| p.session(&mut rng).shift.ln()).collect();
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        let sd =
            (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (logs.len() - 1) as f64).sqrt();
        assert!(mean.abs() < 0.01 && (sd - 0.1).abs() < 0.005, "{mean} {sd}");
        let s = p.session(&mut rng);
        assert!((1.0..=3.0).contains(&s.load_before) && (1.0..=3.0).contains(&s.load_after));
        let still = SimProject::parse("versions=2").unwrap().session(&mut rng);
        assert_eq!((still.shift, still.load_before), (1.0, 0.5));
        assert_eq!(
            p.command(
                "mean=10ms",
                1,
                0,
                &SimSession {
                    shift: 1.5,
                    load_before: 0.0,
                    load_after: 0.0
                }
            ),
            "mean=10ms,scale=1.5"
        );
    }
}
