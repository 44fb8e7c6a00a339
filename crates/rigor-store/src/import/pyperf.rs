//! pyperf JSON: `benchmarks[].runs[]` are worker processes (levels `run` × `value`); a run's `values` are seconds per
//! loop (one per measured iteration) and its `warmups` are `[loops, value]` pairs, kept as
//! warm-up iterations. Runs without values (pyperf's calibration runs) are skipped. A file's
//! benchmarks (a pyperformance suite) are unrelated: no family, compared with none.

use super::json::Node;
use super::{nested, result};
use crate::error::Result;
use crate::schema::ResultFile;

pub(super) fn read(root: Node<'_>) -> Result<ResultFile> {
    let common = root.opt("metadata");
    let meta = |b: &Node<'_>, key: &str| -> Option<String> {
        b.opt("metadata")
            .and_then(|m| m.opt(key))
            .or_else(|| common.as_ref().and_then(|m| m.opt(key)))
            .and_then(|n| n.value().as_str().map(str::to_string))
    };
    let mut benchmarks = Vec::new();
    for (i, b) in root.get("benchmarks")?.items()?.into_iter().enumerate() {
        let name = meta(&b, "name").unwrap_or_else(|| format!("benchmark {}", i + 1));
        if let Some(unit) = meta(&b, "unit").filter(|u| u != "second") {
            return Err(b.err(format!(
                "unit '{unit}': rigor reads times only (unit 'second')"
            )));
        }
        let mut processes = Vec::new();
        for run in b.get("runs")?.items()? {
            let mut values = Vec::new();
            if let Some(w) = run.opt("warmups") {
                for pair in w.items()? {
                    let items = pair.items()?;
                    let v = items
                        .get(1)
                        .ok_or_else(|| pair.err("expected [loops, value]"))?
                        .time()?;
                    values.push((v, true));
                }
            }
            let measured = match run.opt("values") {
                Some(v) => v.times()?,
                None => Vec::new(),
            };
            if measured.is_empty() {
                continue;
            }
            values.extend(measured.into_iter().map(|v| (v, false)));
            processes.push(values);
        }
        let command = meta(&b, "command").unwrap_or_default();
        benchmarks.push(nested(name, command, ["run", "value"], &processes));
    }
    Ok(result(benchmarks))
}
