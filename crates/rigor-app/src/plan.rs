//! The plan use case: dimension an experiment with a pilot and write the plan file.

use rigor_runner::{Dimensioning, Executor, StopSignal, dimension};
use rigor_store::Warning;
use rigor_units::Seconds;

use crate::error::{AppError, Result};
use crate::plan_file::{BenchmarkPlan, PlanFile};
use crate::recorder::{Progress, ProgressOnly};
use crate::settings::PlanSettings;

/// What a pilot produced.
#[derive(Debug)]
pub struct Planned {
    /// The plan, as written.
    pub file: PlanFile,
    /// Benchmarks that could not be planned.
    pub warnings: Vec<Warning>,
    /// Measured time of the pilot.
    pub pilot_time: Seconds,
}

/// Runs the pilot, plans every benchmark it can, and writes the plan file.
pub fn plan(
    settings: &PlanSettings,
    executor: &mut dyn Executor,
    stop: StopSignal,
    progress: &mut dyn Progress,
) -> Result<Planned> {
    let run = &settings.run;
    let mut quiet = ProgressOnly(progress);
    let Dimensioning { plans, seconds, .. } = dimension(
        &run.benchmarks,
        &run.runner,
        run.discard.fixed(),
        &settings.pilot,
        stop.clone(),
        executor,
        &mut quiet,
    )?;
    if stop.is_requested() {
        return Err(AppError::PilotInterrupted);
    }
    let (level, quantile) = (run.analysis.confidence, run.analysis.quantile);
    let mut file = PlanFile {
        rigor_version: env!("CARGO_PKG_VERSION").to_string(),
        seed: run.runner.seed,
        confidence: level,
        benchmark: Vec::new(),
    };
    let mut warnings = Vec::new();
    for (b, p) in run.benchmarks.iter().zip(&plans) {
        match p {
            Ok(p) => {
                if let Some(r) = p.rare_modes {
                    warnings.push(Warning::RareModesPlanned {
                        benchmark: b.name.clone(),
                        level: p.levels.first().cloned().unwrap_or_default(),
                        pilot_units: r.units,
                        needed: r.needed,
                    });
                }
                file.benchmark.push(BenchmarkPlan::from_dimensioning(
                    &b.name, p, level, quantile,
                ));
            }
            Err(e) => warnings.push(Warning::CannotPlan {
                benchmark: b.name.clone(),
                reason: e.to_string(),
            }),
        }
    }
    if file.benchmark.is_empty() {
        return Err(AppError::NothingPlanned);
    }
    let text = file.render().map_err(|source| AppError::PlanFile {
        path: settings.out.clone(),
        source,
    })?;
    rigor_store::write_atomic(&settings.out, text.as_bytes()).map_err(|source| {
        AppError::Write {
            what: "the plan",
            source,
        }
    })?;
    Ok(Planned {
        file,
        warnings,
        pilot_time: seconds,
    })
}
