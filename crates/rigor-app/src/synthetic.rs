//! Synthetic histories with known changes, for the dashboard's tests, its scale benchmark and
//! demonstrations: every benchmark of every version measured as executions × iterations with
//! seeded noise, analysed like a real run and stored through [`HistoryWrite::ingest`].

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rigor_history::{
    ArtifactHash, Failure, HistoryWrite, Ingest, MachineInfo, NewSession, Role, SessionEnd,
    SessionId, SessionKind, VersionInfo,
};
use rigor_store::{BenchmarkRecord, ExecutionRecord, Layout, ResultFile, SampleRecord};
use rigor_units::{ConfidenceLevel, Seconds, Seed};

use crate::analysis::analyze_all;
use crate::error::Result;
use crate::settings::AnalysisSettings;

/// A step in one benchmark's level from one version on.
#[derive(Debug, Clone)]
pub struct Step {
    /// The benchmark's index in [`Spec::names`].
    pub benchmark: usize,
    /// The first version (index) at the new level.
    pub version: usize,
    /// New level / old level.
    pub factor: f64,
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Benchmark names.
    pub names: Vec<String>,
    /// Number of versions (`v0`, `v1`, … in history order).
    pub versions: usize,
    /// The injected changes.
    pub steps: Vec<Step>,
    /// Versions recorded as failed builds (no measurements).
    pub failed: Vec<usize>,
    /// Executions per benchmark and version.
    pub executions: usize,
    /// Iterations per execution (1: the layout is executions only).
    pub iterations: usize,
    /// Relative noise of each value (uniform ±).
    pub noise: f64,
    /// The seed of the noise.
    pub seed: u64,
    /// Machine and branch.
    pub machine: String,
    /// The branch.
    pub branch: String,
    /// Versions measured per session, as `rigor track run` measures them in batches: each
    /// session shifts every level by a factor of its own (within ±[`Spec::session_shift`]) and
    /// first measures the version before it again as an anchor. 0: each version is stored in a
    /// session of its own, as `rigor track add` stores results.
    pub sessions: usize,
    /// The largest relative shift of a session.
    pub session_shift: f64,
    /// Versions whose build is byte-identical to the version before (their runs report the same
    /// artifact). When empty, no run reports an artifact.
    pub identical: Vec<usize>,
    /// Whether each execution also records its peak memory (64 MiB times the benchmark's level
    /// relative to its first, so the injected steps show in it too, ± the noise), for
    /// `rigor track publish --metric peak-memory`. Without it the results hold samples only.
    pub peak_memory: bool,
}

impl Spec {
    /// A small history: `names` × `versions`, 5 executions × 4 iterations, ±1% noise.
    pub fn small(names: Vec<String>, versions: usize) -> Self {
        Self {
            names,
            versions,
            steps: Vec::new(),
            failed: Vec::new(),
            executions: 5,
            iterations: 4,
            noise: 0.01,
            seed: 1,
            machine: "ci-1".into(),
            branch: "main".into(),
            sessions: 0,
            session_shift: 0.0,
            identical: Vec::new(),
            peak_memory: false,
        }
    }

    /// The factor by which session `k` (0, 1, …) shifts every level.
    fn session_factor(&self, k: usize) -> f64 {
        if self.sessions == 0 || self.session_shift == 0.0 {
            return 1.0;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ 0x5e55_1011);
        rng.set_stream(k as u64);
        1.0 + rng.gen_range(-self.session_shift..=self.session_shift)
    }

    /// The artifact of version `v`'s build: the same as the version before's when `v` is
    /// listed in [`Spec::identical`].
    fn artifact(&self, v: usize) -> Option<ArtifactHash> {
        if self.identical.is_empty() {
            return None;
        }
        let mut build = v;
        while build > 0 && self.identical.contains(&build) {
            build -= 1;
        }
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&(build as u64).to_le_bytes());
        Some(ArtifactHash(bytes))
    }

    /// The level of benchmark `b` at version `v`, seconds.
    fn level(&self, b: usize, v: usize) -> f64 {
        let base = 1e-3 * (1.0 + (b % 7) as f64);
        self.steps
            .iter()
            .filter(|s| s.benchmark == b && s.version <= v)
            .fold(base, |x, s| x * s.factor)
    }
}

/// A fake commit id for version `v`: 40 hexadecimal digits that differ from the first on, as
/// real ones do (a page's axis names versions by their first 7).
pub fn commit_id(v: usize) -> String {
    // SplitMix64's finaliser: a bijection, so no two versions share an id.
    let mut z = (v as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    format!("{z:016x}{:024x}", v)
}

/// The version `v` of a synthetic history: a label with an order, a fake commit id and subject.
pub fn version(v: usize) -> VersionInfo {
    VersionInfo {
        rev: format!("v{v}"),
        commit: Some(commit_id(v)),
        subject: Some(format!("change number {v}")),
        time: format!(
            "{}-{:02}-{:02}T12:00:00Z",
            2026 + v / 336,
            (v / 28) % 12 + 1,
            v % 28 + 1
        )
        .parse()
        .ok(),
        order: Some(v as i64),
        ..VersionInfo::default()
    }
}

/// One version's measured result in a session shifting it by `factor`, analysed.
fn result(spec: &Spec, v: usize, factor: f64, rng: &mut ChaCha8Rng) -> ResultFile {
    let layout = Layout::new(false, spec.iterations > 1);
    let mut r = ResultFile::new(Seed(spec.seed), ConfidenceLevel::NINETY_FIVE);
    for (b, name) in spec.names.iter().enumerate() {
        let mut rec = BenchmarkRecord::new(name.clone(), format!("./bench {b}"), layout);
        let level = spec.level(b, v) * factor;
        for e in 0..spec.executions {
            let shift = 1.0 + rng.gen_range(-spec.noise..=spec.noise);
            if spec.peak_memory {
                let relative = spec.level(b, v) / spec.level(b, 0);
                let peak = 64.0 * 1024.0 * 1024.0 * relative * shift;
                rec.executions.push(ExecutionRecord {
                    preempted: None,
                    run_delay: None,
                    build: None,
                    round: e,
                    execution: e,
                    warmup: false,
                    wall: Seconds(level * shift * spec.iterations as f64),
                    user: Seconds(0.0),
                    sys: Seconds(0.0),
                    max_rss: peak.round() as u64,
                    exit_code: None,
                    env_pad: None,
                    resolution: None,
                    metrics: Default::default(),
                });
            }
            for i in 0..spec.iterations {
                rec.samples.push(SampleRecord {
                    build: None,
                    round: e,
                    execution: e,
                    iteration: i,
                    value: level * shift * (1.0 + rng.gen_range(-spec.noise..=spec.noise) / 4.0),
                    warmup: false,
                });
            }
        }
        r.benchmarks.push(rec);
    }
    analyze_all(&mut r, &AnalysisSettings::default());
    r
}

/// Generates the history into `history`, calling `progress` after each version.
pub fn generate(
    history: &mut dyn HistoryWrite,
    spec: &Spec,
    progress: &mut dyn FnMut(usize),
) -> Result<()> {
    generate_versions(history, spec, 0..spec.versions, progress)
}

/// Generates only the versions in `range` (each version's noise has its own seeded stream, so
/// a version is the same whether generated alone or with the others).
pub fn generate_versions(
    history: &mut dyn HistoryWrite,
    spec: &Spec,
    range: std::ops::Range<usize>,
    progress: &mut dyn FnMut(usize),
) -> Result<()> {
    let machine = MachineInfo {
        name: spec.machine.clone(),
        environment: Default::default(),
    };
    let mut session: Option<(usize, SessionId)> = None;
    for v in range {
        let version = version(v);
        let k = v / spec.sessions.max(1);
        if spec.sessions > 0 && session.is_none_or(|(s, _)| s != k) {
            if let Some((done, id)) = session.take() {
                history.end_session(id, &session_end(done))?;
            }
            let id = history.begin_session(&NewSession {
                machine: &machine,
                kind: SessionKind::Run,
                started: session_start(k),
                load_before: None,
                rigor_version: env!("CARGO_PKG_VERSION"),
            })?;
            session = Some((k, id));
            // The version before the session measured again beside the new ones: an anchor.
            if v > 0 && !spec.failed.contains(&(v - 1)) {
                let mut rng = ChaCha8Rng::seed_from_u64(spec.seed ^ 0xa9c4);
                rng.set_stream(v as u64 - 1);
                let result = result(spec, v - 1, spec.session_factor(k), &mut rng);
                let before = self::version(v - 1);
                history.ingest(&Ingest {
                    session: Some(id),
                    artifact: spec.artifact(v - 1),
                    role: Role::Anchor,
                    ..Ingest::new(&before, &machine, &spec.branch, &result)
                })?;
            }
        }
        if spec.failed.contains(&v) {
            history.record_failure(&Failure {
                session: session.map(|(_, id)| id),
                ..Failure::new(&version, &machine, &spec.branch, "build failed")
            })?;
        } else {
            let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
            rng.set_stream(v as u64);
            let result = result(spec, v, spec.session_factor(k), &mut rng);
            history.ingest(&Ingest {
                session: session.map(|(_, id)| id),
                artifact: spec.artifact(v),
                ..Ingest::new(&version, &machine, &spec.branch, &result)
            })?;
        }
        progress(v);
    }
    if let Some((done, id)) = session {
        history.end_session(id, &session_end(done))?;
    }
    Ok(())
}

/// When the synthetic session `k` started: an hour apart from 2026-01-01.
fn session_start(k: usize) -> jiff::Timestamp {
    jiff::Timestamp::from_second(1_767_225_600 + 3600 * k as i64).unwrap_or_default()
}

/// How the synthetic session `k` ended: half an hour after it started.
fn session_end(k: usize) -> SessionEnd {
    SessionEnd {
        ended: jiff::Timestamp::from_second(1_767_227_400 + 3600 * k as i64).unwrap_or_default(),
        load_after: None,
    }
}
