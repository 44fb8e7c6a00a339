//! BenchmarkTools.jl `save` JSON: `[{"Julia": ..., "BenchmarkTools": ...}, [values...]]`, each
//! value `[type, fields]`. A `BenchmarkGroup` holds `data` (name → value, nested); a `Trial`
//! holds `times` in nanoseconds per evaluation (each a sample of `params.evals` evaluations).
//! Every sample ran in one Julia process. The trials of one group are a family, compared with
//! each other.

use super::json::Node;
use super::{flat, result};
use crate::error::Result;
use crate::schema::{BenchmarkRecord, ResultFile};

pub(super) fn read(root: Node<'_>) -> Result<ResultFile> {
    let items = root.items()?;
    let values = items
        .get(1)
        .ok_or_else(|| root.err("expected [version, [values...]]"))?;
    let mut benchmarks = Vec::new();
    for (i, v) in values.items()?.into_iter().enumerate() {
        walk(&v, &format!("trial {}", i + 1), None, &mut benchmarks)?;
    }
    if benchmarks.is_empty() {
        return Err(root.err("no Trial in the file"));
    }
    Ok(result(benchmarks))
}

fn walk(
    v: &Node<'_>,
    fallback: &str,
    name: Option<&str>,
    out: &mut Vec<BenchmarkRecord>,
) -> Result<()> {
    let pair = v.items()?;
    let [kind, fields] = pair.as_slice() else {
        return Err(v.err("expected [type, fields]"));
    };
    let kind = kind.str()?;
    match kind.rsplit('.').next().unwrap_or(kind) {
        "BenchmarkGroup" => {
            for (key, child) in fields.get("data")?.entries()? {
                let path = match name {
                    Some(n) => format!("{n}/{key}"),
                    None => key.to_string(),
                };
                walk(&child, &path, Some(&path), out)?;
            }
        }
        "Trial" => {
            let seconds = fields.get("times")?.times_in(1e-9)?;
            let name = name.unwrap_or(fallback).to_string();
            // The trials of one group (`group/trial`) are its family.
            let family = name.rsplit_once('/').map(|(g, _)| g.to_string());
            let mut b = flat(name, String::new(), "sample", &seconds);
            b.family = family;
            out.push(b);
        }
        // Parameters, TrialEstimate, ...: no samples.
        _ => {}
    }
    Ok(())
}
