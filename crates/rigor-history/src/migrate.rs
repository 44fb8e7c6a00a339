//! What upgrading a history to schema 3 computes, without SQL (each backend reads the old rows
//! and writes these results with its own statements, in the migration's transaction):
//!
//! * sessions: runs of one machine that share a start time (a batch of versions measured
//!   together records one start) become one session of kind `run`; every other run — alone at
//!   its start, or with none recorded (failures) — a session of its own of kind `add`, as a run
//!   stored without a session is now;
//! * each benchmark of a run's spread of its mean (the top-level count r and S²/r), recomputed
//!   from its stored samples; where the samples give none (fewer than two top-level units, or
//!   none stored), from the stored interval as the dashboard recovered it before (the shorter
//!   side is t(r − 1)·√(S²/r); an interval floored at the resolution gives S² of the top level
//!   instead), r coming from the stored variance components;
//! * commit times rewritten in UTC (they were kept as git printed them, with the author's
//!   offset), so that they sort as text in time order; a time that does not parse is dropped.

use std::collections::HashMap;

use rigor_stats::dist::{Quantile, critical_value};
use rigor_store::{BenchmarkRecord, ComponentRecord, Layout, SampleRecord};
use rigor_units::{Resolution, Seconds, TimeUnit};

use crate::error::Result;
use crate::rows::{Cells, Damage, SessionValues, spread_of, time_text};
use crate::types::{MeanSpread, SessionKind};

/// A run as schema 2 kept it, as far as its session is concerned.
pub(crate) struct LegacyRun {
    pub id: i64,
    pub machine: i64,
    pub started: Option<String>,
    pub ended: Option<String>,
    pub ingested_at: String,
    pub rigor_version: String,
}

/// A session made for runs of schema 2.
pub(crate) struct LegacySession {
    pub machine: i64,
    pub values: SessionValues,
    pub runs: Vec<i64>,
}

impl LegacyRun {
    /// Reads `id, machine_id, started, ended, ingested_at, rigor_version`.
    pub fn read<R: Cells>(r: &R) -> Result<Self, R::Error> {
        Ok(Self {
            id: r.int(0)?,
            machine: r.int(1)?,
            started: r.maybe_text(2)?,
            ended: r.maybe_text(3)?,
            ingested_at: r.text(4)?,
            rigor_version: r.text(5)?,
        })
    }
}

/// The sessions of schema 2's runs (given in id order), in the order of their first runs.
pub(crate) fn sessions_of(runs: Vec<LegacyRun>) -> Vec<LegacySession> {
    let mut shared: HashMap<(i64, &str), usize> = HashMap::new();
    for r in &runs {
        if let Some(s) = &r.started {
            *shared.entry((r.machine, s.as_str())).or_default() += 1;
        }
    }
    let batches: HashMap<(i64, String), ()> = shared
        .into_iter()
        .filter(|&(_, n)| n > 1)
        .map(|((m, s), _)| ((m, s.to_string()), ()))
        .collect();
    let mut out: Vec<LegacySession> = Vec::new();
    let mut batch_of: HashMap<(i64, String), usize> = HashMap::new();
    for r in runs {
        let key = r.started.clone().map(|s| (r.machine, s));
        if let Some(key) = key.filter(|k| batches.contains_key(k)) {
            if let Some(&i) = batch_of.get(&key) {
                let s = &mut out[i];
                s.runs.push(r.id);
                if r.ended > s.values.ended {
                    s.values.ended = r.ended;
                }
                continue;
            }
            batch_of.insert(key.clone(), out.len());
            out.push(LegacySession {
                machine: r.machine,
                values: SessionValues {
                    kind: SessionKind::Run.as_str(),
                    started: key.1,
                    ended: r.ended,
                    load_before: None,
                    load_after: None,
                    rigor_version: r.rigor_version,
                },
                runs: vec![r.id],
            });
            continue;
        }
        out.push(LegacySession {
            machine: r.machine,
            values: SessionValues {
                kind: SessionKind::Add.as_str(),
                started: r.started.unwrap_or_else(|| r.ingested_at.clone()),
                ended: Some(r.ended.unwrap_or(r.ingested_at)),
                load_before: None,
                load_after: None,
                rigor_version: r.rigor_version,
            },
            runs: vec![r.id],
        });
    }
    out
}

/// A benchmark of a run as schema 2 kept it: what its spread is computed from.
pub(crate) struct LegacyBenchmark {
    pub run: i64,
    pub benchmark: i64,
    pub levels: String,
    pub level_names: Option<String>,
    pub unit: String,
    pub mean: Option<f64>,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    pub level: Option<f64>,
    pub components: Option<String>,
    pub resolution: Option<f64>,
}

impl LegacyBenchmark {
    /// Reads `run_id, benchmark_id, levels, level_names, unit, mean, ci_lower, ci_upper,
    /// ci_level, components, resolution`.
    pub fn read<R: Cells>(r: &R) -> Result<Self, R::Error> {
        Ok(Self {
            run: r.int(0)?,
            benchmark: r.int(1)?,
            levels: r.text(2)?,
            level_names: r.maybe_text(3)?,
            unit: r.text(4)?,
            mean: r.maybe_real(5)?,
            lower: r.maybe_real(6)?,
            upper: r.maybe_real(7)?,
            level: r.maybe_real(8)?,
            components: r.maybe_text(9)?,
            resolution: r.maybe_real(10)?,
        })
    }
}

/// The spreads of schema 2's benchmarks of runs: fed each one's samples (grouped by run and
/// benchmark, in stored order), it computes the spread from them, else from the interval.
pub(crate) struct Spreads {
    benchmarks: HashMap<(i64, i64), LegacyBenchmark>,
    current: Option<((i64, i64), Vec<SampleRecord>)>,
    out: Vec<((i64, i64), MeanSpread)>,
    /// How many spreads came from samples, and how many from intervals.
    pub from_samples: usize,
    pub from_intervals: usize,
}

impl Spreads {
    pub fn new(benchmarks: Vec<LegacyBenchmark>) -> Self {
        Self {
            benchmarks: benchmarks
                .into_iter()
                .map(|b| ((b.run, b.benchmark), b))
                .collect(),
            current: None,
            out: Vec::new(),
            from_samples: 0,
            from_intervals: 0,
        }
    }

    /// The next stored sample, of run `run` and benchmark `benchmark`.
    pub fn sample(
        &mut self,
        run: i64,
        benchmark: i64,
        s: SampleRecord,
        damaged: Damage<'_>,
    ) -> Result<()> {
        match &mut self.current {
            Some((key, samples)) if *key == (run, benchmark) => samples.push(s),
            _ => {
                self.flush(damaged)?;
                self.current = Some(((run, benchmark), vec![s]));
            }
        }
        Ok(())
    }

    fn flush(&mut self, damaged: Damage<'_>) -> Result<()> {
        let Some((key, samples)) = self.current.take() else {
            return Ok(());
        };
        let Some(b) = self.benchmarks.remove(&key) else {
            return Ok(());
        };
        let mut record = BenchmarkRecord::new(
            "",
            "",
            serde_json::from_str::<Layout>(&b.levels)
                .map_err(|e| damaged("levels", e.to_string()))?,
        );
        record.level_names = b
            .level_names
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(|e| damaged("level names", e.to_string()))?;
        record.samples = samples;
        match spread_of(&record) {
            Some(s) => {
                self.from_samples += 1;
                self.out.push((key, s));
            }
            None => {
                self.benchmarks.insert(key, b);
            }
        }
        Ok(())
    }

    /// The spreads the samples gave, by run and benchmark (none from intervals).
    pub fn finish_from_samples(
        mut self,
        damaged: Damage<'_>,
    ) -> Result<Vec<((i64, i64), MeanSpread)>> {
        self.flush(damaged)?;
        Ok(self.out)
    }

    /// Every spread found, by run and benchmark: those the samples did not give from the
    /// intervals.
    pub fn finish(mut self, damaged: Damage<'_>) -> Result<Vec<((i64, i64), MeanSpread)>> {
        self.flush(damaged)?;
        for (key, b) in std::mem::take(&mut self.benchmarks) {
            if let Some(s) = from_interval(&b, damaged)? {
                self.from_intervals += 1;
                self.out.push((key, s));
            }
        }
        Ok(self.out)
    }
}

/// The spread of a stored mean recovered from its interval (what the dashboard did before the
/// history stored it): the shorter side is t(r − 1)·√(S²/r) whether the interval is symmetric
/// or widened toward a skew; an interval floored at the resolution holds the top level's S²
/// instead. `None` without an interval or a stored top-level count.
fn from_interval(b: &LegacyBenchmark, damaged: Damage<'_>) -> Result<Option<MeanSpread>> {
    let (Some(mean), Some(lower), Some(upper), Some(level)) = (b.mean, b.lower, b.upper, b.level)
    else {
        return Ok(None);
    };
    let components: Vec<ComponentRecord> = match &b.components {
        Some(c) => serde_json::from_str(c).map_err(|e| damaged("components", e.to_string()))?,
        None => return Ok(None),
    };
    let Some((top, units)) = components
        .first()
        .and_then(|top| Some((top, top.units.filter(|&r| r >= 2)?)))
    else {
        return Ok(None);
    };
    let Ok(t) = critical_value(level, (units - 1) as f64, Quantile::StudentT) else {
        return Ok(None);
    };
    let unit: TimeUnit = b
        .unit
        .parse()
        .map_err(|e: rigor_units::UnitError| damaged("unit", e.to_string()))?;
    let half = (mean - lower).min(upper - mean);
    let step = b
        .resolution
        .and_then(|s| Resolution::new(Seconds(s)))
        .map(|r| r.step().in_unit(unit));
    let at_floor = step.is_some_and(|step| half <= step / 2.0 * (1.0 + 1e-9));
    let var_of_mean = if at_floor {
        top.s2.max(0.0) / units as f64
    } else {
        (half / t).powi(2)
    };
    // Without samples there is no median: the mean and its variance stand for the level.
    Ok(Some(MeanSpread {
        units,
        var_of_mean,
        level: mean,
        var_of_level: var_of_mean,
    }))
}

/// A stored commit time rewritten in UTC; `None` when it is not a time.
pub(crate) fn normalised_time(text: &str) -> Option<String> {
    text.parse().ok().map(time_text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: i64, machine: i64, started: Option<&str>) -> LegacyRun {
        LegacyRun {
            id,
            machine,
            started: started.map(str::to_string),
            ended: started.map(|s| format!("{s}+")),
            ingested_at: format!("i{id}"),
            rigor_version: "0.1.0".into(),
        }
    }

    #[test]
    fn runs_sharing_a_machine_and_start_are_one_session() {
        let s = sessions_of(vec![
            run(1, 1, Some("t1")),
            run(2, 1, Some("t1")),
            run(3, 2, Some("t1")),
            run(4, 1, None),
            run(5, 1, Some("t2")),
            run(6, 1, None),
        ]);
        let got: Vec<(&str, Vec<i64>)> =
            s.iter().map(|s| (s.values.kind, s.runs.clone())).collect();
        assert_eq!(
            got,
            [
                ("run", vec![1, 2]),
                ("add", vec![3]),
                ("add", vec![4]),
                ("add", vec![5]),
                ("add", vec![6]),
            ]
        );
        // A run without a start: its session spans its storing.
        assert_eq!(s[2].values.started, "i4");
        assert_eq!(s[2].values.ended.as_deref(), Some("i4"));
    }

    #[test]
    fn commit_times_are_rewritten_in_utc() {
        assert_eq!(
            normalised_time("2026-01-01T10:00:00+01:00").as_deref(),
            Some("2026-01-01T09:00:00Z")
        );
        assert_eq!(normalised_time("yesterday"), None);
    }
}
