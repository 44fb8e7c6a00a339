//! Where `track run`'s versions come from: a git repository's commits, each checked out and
//! prepared once in a kept checkout (what the build produced hashed), or a simulated project with
//! known truth; a version ready to be measured; what a session knows of itself as it starts.

use rand_chacha::ChaCha8Rng;
use rigor_history::{ArtifactHash, Role};
use rigor_store::LoadAverage;

use super::*;
use crate::checkouts::{Artifacts, CheckoutFailure, Checkouts};
use crate::simulated_project::{SimProject, SimSession};

/// Where the versions come from.
#[derive(Debug)]
pub enum Source {
    /// A git repository's commits, each checked out and prepared once in a kept checkout.
    Git(GitSource),
    /// A simulated project: no git, no processes, known truth.
    Simulated(SimProject),
}

/// A git repository's versions.
#[derive(Debug)]
pub struct GitSource {
    /// The repository.
    pub repo: PathBuf,
    /// Its kept, built checkouts.
    pub checkouts: Checkouts,
    /// Run in each version's checkout before it is measured (a build that is not a level).
    pub prepare: Option<CommandLine>,
    /// What is hashed as the build's product.
    pub artifacts: Artifacts,
}

/// A version ready to be measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Ready {
    /// The version.
    pub version: VersionInfo,
    /// Its checkout (the commands' working directory and `{src}`), for a repository's version.
    pub dir: Option<PathBuf>,
    /// What its build produced, hashed.
    pub artifact: Option<ArtifactHash>,
    /// Why it is measured.
    pub role: Role,
    /// Its index in a simulated project.
    pub(super) simulated: Option<usize>,
}

impl Ready {
    /// A version already built in `dir` (a candidate's folder), measured as it is.
    pub fn in_dir(version: VersionInfo, dir: PathBuf, artifact: Option<ArtifactHash>) -> Self {
        Self {
            version,
            dir: Some(dir),
            artifact,
            role: Role::New,
            simulated: None,
        }
    }
}

/// What a session knows of itself as it starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct SessionFacts {
    pub(super) load_before: Option<f64>,
    pub(super) simulated: Option<SimSession>,
}

impl Source {
    /// The version a revision (or a simulated project's label) names.
    pub fn resolve(&self, rev: &str) -> Result<VersionInfo> {
        match self {
            Self::Git(g) => Ok(git::resolve(&g.repo, rev)?),
            Self::Simulated(p) => {
                let i = p
                    .version_of(rev)
                    .ok_or_else(|| AppError::UnknownSimulatedVersion {
                        label: rev.to_string(),
                        versions: p.versions,
                    })?;
                Ok(VersionInfo {
                    rev: SimProject::label(i),
                    order: Some(i as i64 + 1),
                    subject: Some(format!("simulated version {}", i + 1)),
                    ..VersionInfo::default()
                })
            }
        }
    }

    /// The version checked out and prepared (or the simulated one), or why it cannot be.
    pub fn prepare(
        &self,
        v: &VersionInfo,
        role: Role,
        stop: &StopSignal,
    ) -> std::result::Result<Ready, CheckoutFailure> {
        match self {
            Self::Git(g) => {
                let c = g.checkouts.get(v, g.prepare.as_ref(), &g.artifacts, stop)?;
                Ok(Ready {
                    version: v.clone(),
                    dir: Some(c.path),
                    artifact: c.artifact.map(ArtifactHash),
                    role,
                    simulated: None,
                })
            }
            Self::Simulated(p) => {
                let i = p
                    .version_of(&v.rev)
                    .ok_or_else(|| CheckoutFailure::Checkout(format!("no version {}", v.rev)))?;
                Ok(Ready {
                    version: v.clone(),
                    dir: None,
                    artifact: Some(ArtifactHash(p.artifact(i))),
                    role,
                    simulated: Some(i),
                })
            }
        }
    }

    pub(super) fn session(&self, rng: &mut ChaCha8Rng) -> SessionFacts {
        match self {
            Self::Git(_) => SessionFacts {
                load_before: LoadAverage::read().map(|l| l.one),
                simulated: None,
            },
            Self::Simulated(p) => {
                let s = p.session(rng);
                SessionFacts {
                    load_before: Some(s.load_before),
                    simulated: Some(s),
                }
            }
        }
    }

    pub(super) fn load_after(&self, facts: &SessionFacts) -> Option<f64> {
        match facts.simulated {
            Some(s) => Some(s.load_after),
            None => LoadAverage::read().map(|l| l.one),
        }
    }
}

impl TrackRunSettings {
    /// These settings for benchmark `k` of the experiment measured alone (a confirmation, a
    /// candidate check: an experiment of that one benchmark), when that changes them: a
    /// simulated project's truth is by the benchmark's place among the commands, so benchmark
    /// `k`'s steps must become the only benchmark's. `None`: these settings serve as they are.
    pub(super) fn for_benchmark(&self, k: usize) -> Option<Self> {
        let Source::Simulated(p) = &self.source else {
            return None;
        };
        Some(Self {
            source: Source::Simulated(p.only(k)),
            commits: self.commits.clone(),
            force: self.force,
            results_dir: self.results_dir.clone(),
            version_files: self.version_files,
            key: self.key.clone(),
            batch: self.batch,
            anchors: self.anchors,
            kind: self.kind,
        })
    }
}
