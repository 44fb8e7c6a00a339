//! Synthetic histories with known changes, for the dashboard's tests, its scale benchmark and
//! demonstrations: every benchmark of every version measured as executions × iterations with
//! seeded noise, analysed like a real run and stored through [`HistoryWrite::ingest`].

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rigor_history::{Failure, HistoryWrite, Ingest, MachineInfo, VersionInfo};
use rigor_store::{BenchmarkRecord, Layout, ResultFile, SampleRecord};
use rigor_units::{ConfidenceLevel, Seed};

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
        }
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

/// The version `v` of a synthetic history: a label with an order, a fake commit id and subject.
pub fn version(v: usize) -> VersionInfo {
    VersionInfo {
        rev: format!("v{v}"),
        commit: Some(format!("{:040x}", 0x1000_0000u64 + v as u64)),
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

/// One version's measured result, analysed.
fn result(spec: &Spec, v: usize, rng: &mut ChaCha8Rng) -> ResultFile {
    let layout = Layout::new(false, spec.iterations > 1);
    let mut r = ResultFile::new(Seed(spec.seed), ConfidenceLevel::NINETY_FIVE);
    for (b, name) in spec.names.iter().enumerate() {
        let mut rec = BenchmarkRecord::new(name.clone(), format!("./bench {b}"), layout);
        let level = spec.level(b, v);
        for e in 0..spec.executions {
            let shift = 1.0 + rng.gen_range(-spec.noise..=spec.noise);
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
    for v in range {
        let version = version(v);
        if spec.failed.contains(&v) {
            history.record_failure(&Failure::new(
                &version,
                &machine,
                &spec.branch,
                "build failed",
            ))?;
        } else {
            let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
            rng.set_stream(v as u64);
            let result = result(spec, v, &mut rng);
            history.ingest(&Ingest::new(&version, &machine, &spec.branch, &result))?;
        }
        progress(v);
    }
    Ok(())
}
