//! hyperfine `--export-json`: `results[].times` are wall times of process executions, in
//! seconds. A non-zero `exit_codes` entry is an execution hyperfine measured all the same
//! (`-i`/`--ignore-failure`): it is kept as `rigor run -i` keeps one, a measured execution with
//! its exit status, so that the mean is hyperfine's. A `null` entry (a run a signal ended) is
//! kept the same way and recorded as a failure. `memory_usage_byte` (hyperfine 1.19 and later:
//! each run's peak memory in bytes) is each execution's peak memory (`--metric peak-memory`).
//! `parameters` (`-P`/`-L`) become the
//! benchmark's parameters. The commands of one export were measured to be compared: they form one
//! family.

use super::json::Node;
use super::{flat, result};
use crate::error::Result;
use crate::schema::{ExecutionRecord, FailureRecord, FailureStage, ResultFile};
use rigor_units::Seconds;

/// A result's own `mean`, when it has one, beside its `times`' mean when the two disagree:
/// hyperfine writes the mean of the times it lists (rigor's `--export-json-hyperfine` too, net
/// of a shell's start-up for both), so one far from them is a file edited or put together by
/// hand, whose times rigor analyses while the file says something else. A `mean` that is not a
/// number is refused at its place.
fn stated_mean(r: &Node<'_>, times: &[f64]) -> Result<Option<(f64, f64)>> {
    let Some(stated) = r.opt("mean") else {
        return Ok(None);
    };
    let mean = stated.f64()?;
    let of_times = times.iter().sum::<f64>() / times.len() as f64;
    // Rounding of a file written with fewer digits.
    let tolerance = 1e-9_f64.max(1e-3 * of_times.abs().max(mean.abs()));
    Ok(((mean - of_times).abs() > tolerance).then_some((mean, of_times)))
}

/// The family of every benchmark of a hyperfine export (its commands are compared together).
const FAMILY: &str = "hyperfine";

pub(super) fn read(path: &std::path::Path, root: Node<'_>) -> Result<ResultFile> {
    let mut benchmarks = Vec::new();
    // Commands whose mean user and system times the file gives (each run's it does not).
    let mut cpu_means = Vec::new();
    // Commands whose times rigor wrote net of a shell's start-up, and that start-up.
    let mut net: Vec<String> = Vec::new();
    let mut startup: Option<String> = None;
    // Commands whose stated mean is not their times' mean.
    let mut stated_means = Vec::new();
    // Each command's rounds, when rigor wrote them (every command must have them to be kept).
    let mut all_rounds: Vec<Option<Vec<usize>>> = Vec::new();
    for r in root.get("results")?.items()? {
        let command = r.get("command")?.str()?.to_string();
        let times = r.get("times")?.times()?;
        if times.is_empty() {
            return Err(r
                .get("times")?
                .err("no times (hyperfine writes one for each run)".to_string()));
        }
        let differs = stated_mean(&r, &times)?;
        all_rounds.push(rounds(&r, times.len())?);
        let codes = match r.opt("exit_codes") {
            Some(c) => c
                .items()?
                .iter()
                .map(exit_code)
                .collect::<Result<Vec<_>>>()?,
            None => Vec::new(),
        };
        if !codes.is_empty() && codes.len() != times.len() {
            return Err(r.get("exit_codes")?.err(format!(
                "{} exit codes for {} times",
                codes.len(),
                times.len()
            )));
        }
        // hyperfine 1.19 and later write each run's peak memory (bytes); earlier versions none.
        let memory = match r.opt("memory_usage_byte") {
            Some(m) => {
                let peaks = m.items()?.iter().map(peak).collect::<Result<Vec<_>>>()?;
                if peaks.len() != times.len() {
                    return Err(m.err(format!(
                        "{} memory peaks for {} times",
                        peaks.len(),
                        times.len()
                    )));
                }
                peaks
            }
            None => Vec::new(),
        };
        let mut b = flat(command.clone(), command, "execution", &times);
        if codes.iter().any(|c| *c != Some(0)) || !memory.is_empty() {
            b.executions = times
                .iter()
                .enumerate()
                .map(|(i, &t)| ExecutionRecord {
                    preempted: None,
                    run_delay: None,
                    metrics: Default::default(),
                    build: None,
                    round: i,
                    execution: i,
                    warmup: false,
                    wall: Seconds::new(t),
                    // hyperfine exports the mean user and system time only, not each run's.
                    user: Seconds::new(0.0),
                    sys: Seconds::new(0.0),
                    max_rss: memory.get(i).copied().unwrap_or(0),
                    // A run a signal ended has no code: it is a failure below.
                    exit_code: codes.get(i).copied().flatten().filter(|c| *c != 0),
                    env_pad: None,
                    resolution: None,
                })
                .collect();
        }
        // hyperfine writes `null` for a run a signal ended (its `-i` keeps the time): a failed
        // run all the same, so it is recorded as one, its time kept as hyperfine keeps it.
        for (i, _) in codes.iter().enumerate().filter(|(_, c)| c.is_none()) {
            b.failures.push(FailureRecord {
                stage: FailureStage::Command,
                round: i,
                execution: i,
                warmup: false,
                number: Some(i + 1),
                exit_code: None,
                signal: None,
                timed_out: false,
                stderr_tail: String::new(),
                reason: "was killed by a signal (hyperfine wrote no exit code); its time is kept, \
                         as hyperfine -i kept it"
                    .to_string(),
            });
        }
        if let Some(p) = r.opt("parameters") {
            for (name, value) in p.entries()? {
                let v = match value.value() {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                b.parameters.insert(name.to_string(), v);
            }
        }
        if let (Some(user), Some(system)) = (r.opt("user"), r.opt("system")) {
            cpu_means.push(crate::warning::CpuMeans {
                benchmark: b.name.clone(),
                user: Seconds::new(user.f64()?),
                system: Seconds::new(system.f64()?),
            });
        }
        if let Some(n) = r.opt("rigor").and_then(|x| x.opt("net_of")) {
            net.push(b.name.clone());
            startup.get_or_insert(n.str()?.to_string());
        }
        if let Some((stated, of_times)) = differs {
            stated_means.push(crate::warning::StatedMean {
                benchmark: b.name.clone(),
                stated: Seconds::new(stated),
                of_times: Seconds::new(of_times),
            });
        }
        b.family = Some(FAMILY.to_string());
        benchmarks.push(b);
    }
    let mut r = result(benchmarks);
    // Written by rigor from one run whose commands shared rounds: each time keeps its round, so
    // that the commands are compared paired, as that run compared them.
    let shared: Option<Vec<Vec<usize>>> = all_rounds.into_iter().collect();
    if let Some(shared) = shared.filter(|s| s.len() > 1) {
        for (b, rounds) in r.benchmarks.iter_mut().zip(&shared) {
            for (s, &round) in b.samples.iter_mut().zip(rounds) {
                s.round = round;
            }
            for (e, &round) in b.executions.iter_mut().zip(rounds) {
                e.round = round;
            }
            for f in &mut b.failures {
                f.round = rounds.get(f.execution).copied().unwrap_or(f.round);
            }
        }
        r.warnings.push(crate::warning::Warning::Imported {
            file: path.display().to_string(),
            format: "hyperfine".to_string(),
            note: crate::warning::ImportNote::RoundsShared,
        });
    }
    if let Some(startup) = startup {
        r.warnings.push(crate::warning::Warning::Imported {
            file: path.display().to_string(),
            format: "hyperfine".to_string(),
            note: crate::warning::ImportNote::NetOfStartup {
                benchmarks: net,
                startup,
            },
        });
    }
    if !stated_means.is_empty() {
        r.warnings.push(crate::warning::Warning::Imported {
            file: path.display().to_string(),
            format: "hyperfine".to_string(),
            note: crate::warning::ImportNote::MeanDiffers {
                means: stated_means,
            },
        });
    }
    if !cpu_means.is_empty() {
        r.warnings.push(crate::warning::Warning::Imported {
            file: path.display().to_string(),
            format: "hyperfine".to_string(),
            note: crate::warning::ImportNote::CpuMeansOnly { means: cpu_means },
        });
    }
    Ok(r)
}

/// The round of each time, when rigor wrote them (`rigor.rounds`, one whole number per time);
/// `None` in hyperfine's own files.
fn rounds(r: &Node<'_>, times: usize) -> Result<Option<Vec<usize>>> {
    let Some(list) = r.opt("rigor").and_then(|x| x.opt("rounds")) else {
        return Ok(None);
    };
    let rounds = list
        .items()?
        .iter()
        .map(|n| {
            n.value()
                .as_u64()
                .and_then(|x| usize::try_from(x).ok())
                .ok_or_else(|| {
                    n.err(format!(
                        "expected a round (a whole number), found {}",
                        n.value()
                    ))
                })
        })
        .collect::<Result<Vec<usize>>>()?;
    if rounds.len() != times {
        return Err(list.err(format!("{} rounds for {times} times", rounds.len())));
    }
    Ok(Some(rounds))
}

/// One entry of `memory_usage_byte`: a run's peak memory in bytes (a whole number, not negative).
fn peak(m: &Node<'_>) -> Result<u64> {
    m.value().as_u64().ok_or_else(|| {
        m.err(format!(
            "expected a peak memory in bytes (a whole number), found {}",
            m.value()
        ))
    })
}

/// One entry of `exit_codes`: a status (an integer), or `None` for `null`, which hyperfine writes
/// for a run a signal ended (it has no exit status). Anything else is an error at its place.
fn exit_code(c: &Node<'_>) -> Result<Option<i32>> {
    match c.value() {
        serde_json::Value::Null => Ok(None),
        v => v
            .as_i64()
            .and_then(|v| i32::try_from(v).ok())
            .map(Some)
            .ok_or_else(|| c.err(format!("expected an exit status (an integer, or null for a run a signal ended), found {v}"))),
    }
}
