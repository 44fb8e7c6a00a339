//! hyperfine `--export-json`: `results[].times` are wall times of process executions, in
//! seconds; `exit_codes` (when present) marks failed executions, which are kept as failures.

use super::json::Node;
use super::{flat, result};
use crate::error::Result;
use crate::schema::{FailureRecord, FailureStage, ResultFile};

pub(super) fn read(root: Node<'_>) -> Result<ResultFile> {
    let mut benchmarks = Vec::new();
    for r in root.get("results")?.items()? {
        let command = r.get("command")?.str()?.to_string();
        let times = r.get("times")?.times()?;
        let codes = match r.opt("exit_codes") {
            Some(c) => c
                .items()?
                .iter()
                .map(|c| Ok(c.value().as_i64().map(|v| v as i32)))
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
        let ok: Vec<f64> = times
            .iter()
            .enumerate()
            .filter(|(i, _)| codes.get(*i).is_none_or(|c| *c == Some(0)))
            .map(|(_, &t)| t)
            .collect();
        let mut b = flat(command.clone(), command, "execution", &ok);
        for (i, code) in codes.iter().enumerate().filter(|(_, c)| **c != Some(0)) {
            b.failures.push(FailureRecord {
                stage: FailureStage::Command,
                round: i,
                execution: i,
                warmup: false,
                number: Some(i + 1),
                exit_code: *code,
                signal: None,
                timed_out: false,
                stderr_tail: String::new(),
                reason: format!(
                    "exited with {} (recorded by hyperfine)",
                    code.map_or("no code".to_string(), |c| format!("code {c}"))
                ),
            });
        }
        benchmarks.push(b);
    }
    Ok(result(benchmarks))
}
