//! Merging a version's runs of one benchmark into one record (shared by the backends).

use std::collections::HashMap;

use rigor_store::{BenchmarkRecord, ExecutionRecord, FailureRecord, Layout, SampleRecord};
use rigor_units::{Resolution, Seconds, TimeUnit};

/// A run's raw data of one benchmark.
#[derive(Default)]
pub(crate) struct RunData {
    pub(crate) samples: Vec<SampleRecord>,
    pub(crate) executions: Vec<ExecutionRecord>,
}

/// A stored benchmark of one run, before merging.
pub(crate) struct RunBenchmark {
    pub(crate) run: crate::RunInfo,
    pub(crate) rev: String,
    pub(crate) command: String,
    pub(crate) layout: Layout,
    pub(crate) level_names: Option<Vec<String>>,
    pub(crate) unit: TimeUnit,
    pub(crate) failures: Vec<FailureRecord>,
}

/// A `run_benchmarks` row as both backends read it: the JSON and text columns still undecoded.
pub(crate) struct RunBenchmarkRow {
    pub(crate) run: crate::rows::RunInfoRow,
    pub(crate) command: String,
    pub(crate) levels: String,
    pub(crate) level_names: Option<String>,
    pub(crate) unit: String,
    pub(crate) failures: String,
    pub(crate) rev: String,
}

impl RunBenchmarkRow {
    /// Reads the run ([`crate::rows::RunInfoRow::read`]) and `command, levels, level_names, unit,
    /// failures, rev`.
    pub(crate) fn read<R: crate::rows::Cells>(r: &R) -> Result<Self, R::Error> {
        Ok(Self {
            run: crate::rows::RunInfoRow::read(r, 0)?,
            command: r.text(4)?,
            levels: r.text(5)?,
            level_names: r.maybe_text(6)?,
            unit: r.text(7)?,
            failures: r.text(8)?,
            rev: r.text(9)?,
        })
    }
}

impl crate::rows::Decode for RunBenchmarkRow {
    type Decoded = RunBenchmark;

    fn decode(self, damaged: crate::rows::Damage<'_>) -> crate::Result<RunBenchmark> {
        Ok(RunBenchmark {
            run: self.run.decode(damaged)?,
            rev: self.rev,
            command: self.command,
            layout: serde_json::from_str(&self.levels)
                .map_err(|e| damaged("levels", e.to_string()))?,
            level_names: self
                .level_names
                .map(|n| serde_json::from_str(&n))
                .transpose()
                .map_err(|e| damaged("level names", e.to_string()))?,
            unit: self
                .unit
                .parse()
                .map_err(|e: rigor_units::UnitError| damaged("unit", e.to_string()))?,
            failures: serde_json::from_str(&self.failures)
                .map_err(|e| damaged("failures", e.to_string()))?,
        })
    }
}

/// A stored resolution (seconds; `NULL` for none) as a [`Resolution`]; a value that no resolution
/// could have been stored as (not positive and finite) is damage, which `damaged(what, message)`
/// reports in the backend's words.
pub(crate) fn resolution_of(
    stored: Option<f64>,
    damaged: impl Fn(&'static str, String) -> crate::HistoryError,
) -> crate::Result<Option<Resolution>> {
    stored
        .map(|step| {
            Resolution::new(Seconds(step))
                .ok_or_else(|| damaged("resolution", format!("{step} is not a positive time")))
        })
        .transpose()
}

/// A backend's two reads of one benchmark's raw runs (of version `rev` alone, when given), and
/// what both backends make of them: the series merged version by version, one version of it,
/// and the runs as recorded.
pub(crate) trait RawRuns: crate::HistoryRead {
    /// The stored benchmark of each run, oldest run first.
    fn run_benchmarks_of(
        &self,
        key: &crate::SeriesKey,
        benchmark: &str,
        rev: Option<&str>,
    ) -> crate::Result<Vec<RunBenchmark>>;

    /// Every sample and execution, by run.
    fn series_data(
        &self,
        key: &crate::SeriesKey,
        benchmark: &str,
        rev: Option<&str>,
    ) -> crate::Result<HashMap<i64, RunData>>;

    /// [`crate::HistoryRead::series`] from these reads.
    fn merged_series(
        &self,
        key: &crate::SeriesKey,
        benchmark: &str,
    ) -> crate::Result<Vec<crate::VersionData>> {
        let parts = self.run_benchmarks_of(key, benchmark, None)?;
        let data = self.series_data(key, benchmark, None)?;
        Ok(series_of(benchmark, self.versions(key)?, parts, data))
    }

    /// [`crate::HistoryRead::version_data`] from these reads of that version alone.
    fn merged_version(
        &self,
        key: &crate::SeriesKey,
        benchmark: &str,
        rev: &str,
    ) -> crate::Result<Option<crate::VersionData>> {
        let parts = self.run_benchmarks_of(key, benchmark, Some(rev))?;
        if parts.is_empty() {
            return Ok(None);
        }
        let data = self.series_data(key, benchmark, Some(rev))?;
        Ok(version_of(benchmark, rev, self.versions(key)?, parts, data))
    }

    /// [`crate::HistoryRead::run_records`] from these reads.
    fn raw_records(
        &self,
        key: &crate::SeriesKey,
        benchmark: &str,
    ) -> crate::Result<Vec<crate::RunRecord>> {
        let parts = self.run_benchmarks_of(key, benchmark, None)?;
        let data = self.series_data(key, benchmark, None)?;
        Ok(run_records(benchmark, parts, data))
    }
}

/// One benchmark's series: its stored runs (`parts`, with their raw `data`) grouped by version and
/// merged, in the order of `versions`; versions without the benchmark are left out.
fn series_of(
    benchmark: &str,
    versions: Vec<crate::StoredVersion>,
    parts: Vec<RunBenchmark>,
    mut data: HashMap<i64, RunData>,
) -> Vec<crate::VersionData> {
    let mut by_version: HashMap<String, Vec<RunBenchmark>> = HashMap::new();
    for p in parts {
        by_version.entry(p.rev.clone()).or_default().push(p);
    }
    versions
        .into_iter()
        .filter_map(|v| {
            let parts = by_version.remove(&v.version.rev).unwrap_or_default();
            let runs = parts.iter().map(|p| p.run).collect();
            merged(benchmark, parts, &mut data).map(|benchmark| crate::VersionData {
                version: v.version,
                runs,
                benchmark,
            })
        })
        .collect()
}

/// Version `rev` of a benchmark's series (`versions`: the series' versions) from its runs
/// `parts` and their raw `data`, read for that version alone; `None` without runs.
fn version_of(
    benchmark: &str,
    rev: &str,
    versions: Vec<crate::StoredVersion>,
    parts: Vec<RunBenchmark>,
    data: HashMap<i64, RunData>,
) -> Option<crate::VersionData> {
    let version = versions
        .into_iter()
        .filter(|v| v.version.rev == rev)
        .collect();
    series_of(benchmark, version, parts, data).pop()
}

/// One benchmark's stored runs (`parts`, with their raw `data`) each as a record of its own,
/// oldest run first.
fn run_records(
    benchmark: &str,
    parts: Vec<RunBenchmark>,
    mut data: HashMap<i64, RunData>,
) -> Vec<crate::RunRecord> {
    parts
        .into_iter()
        .filter_map(|p| {
            let (rev, run) = (p.rev.clone(), p.run);
            merged(benchmark, vec![p], &mut data).map(|benchmark| crate::RunRecord {
                rev,
                run,
                benchmark,
            })
        })
        .collect()
}

/// One version's runs of a benchmark merged into one record: each run's rounds, executions
/// and builds are shifted past the previous run's, so units of different runs stay apart.
pub(crate) fn merged(
    name: &str,
    parts: Vec<RunBenchmark>,
    data: &mut HashMap<i64, RunData>,
) -> Option<BenchmarkRecord> {
    let first = parts.first()?;
    let mut b = BenchmarkRecord::new(name, first.command.clone(), first.layout);
    b.level_names = first.level_names.clone();
    b.unit = first.unit;
    let (mut round0, mut exec0, mut build0) = (0, 0, 0);
    for part in parts.iter().filter(|p| p.layout == first.layout) {
        let RunData {
            samples,
            executions,
        } = data.remove(&part.run.id.0).unwrap_or_default();
        let next = |f: &dyn Fn(&SampleRecord) -> usize| samples.iter().map(f).max();
        let (r, e, bl) = (
            next(&|s| s.round),
            next(&|s| s.execution),
            next(&|s| s.build.unwrap_or(0)),
        );
        // Values in the first run's unit (runs stored in another are converted).
        let value = |v: f64| Seconds::from_unit(v, part.unit).in_unit(first.unit);
        b.samples.extend(samples.iter().map(|s| SampleRecord {
            round: s.round + round0,
            execution: s.execution + exec0,
            build: s.build.map(|x| x + build0),
            value: if part.unit == first.unit {
                s.value
            } else {
                value(s.value)
            },
            ..s.clone()
        }));
        b.executions
            .extend(executions.into_iter().map(|x| ExecutionRecord {
                round: x.round + round0,
                execution: x.execution + exec0,
                build: x.build.map(|y| y + build0),
                ..x
            }));
        b.failures.extend(part.failures.iter().cloned());
        round0 += r.map_or(0, |x| x + 1);
        exec0 += e.map_or(0, |x| x + 1);
        build0 += bl.map_or(0, |x| x + 1);
    }
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(run: i64, unit: TimeUnit) -> RunBenchmark {
        RunBenchmark {
            run: crate::RunInfo {
                id: crate::RunId(run),
                session: crate::SessionId(run),
                artifact: None,
                role: crate::Role::New,
            },
            rev: "v1".into(),
            command: "c".into(),
            layout: Layout::EXECUTIONS,
            level_names: None,
            unit,
            failures: Vec::new(),
        }
    }

    fn sample(execution: usize, value: f64) -> SampleRecord {
        SampleRecord {
            build: None,
            round: execution,
            execution,
            iteration: 0,
            value,
            warmup: false,
        }
    }

    #[test]
    fn runs_stored_in_other_units_are_merged_in_the_first_ones() {
        let mut data = HashMap::new();
        let run = |values: &[f64]| RunData {
            samples: values
                .iter()
                .enumerate()
                .map(|(i, &v)| sample(i, v))
                .collect(),
            executions: Vec::new(),
        };
        data.insert(1, run(&[0.002, 0.003]));
        data.insert(2, run(&[2500.0]));
        let parts = vec![part(1, TimeUnit::S), part(2, TimeUnit::Us)];
        let b = merged("b", parts, &mut data).unwrap();
        assert_eq!(b.unit, TimeUnit::S);
        let values: Vec<f64> = b.samples.iter().map(|s| s.value).collect();
        assert_eq!(values.len(), 3);
        assert!((values[2] - 0.0025).abs() < 1e-15, "{values:?}");
        // Executions of the second run come after the first run's.
        assert_eq!(b.samples[2].execution, 2);
    }
}
