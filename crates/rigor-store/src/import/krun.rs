//! Krun results (after `bunzip2`): `wallclock_times` maps `benchmark:vm:variant` to one array per
//! process execution of in-process iteration times in seconds. A benchmark and variant run by
//! several VMs are one family (compared with each other).

use super::json::Node;
use super::{nested, result};
use crate::error::Result;
use crate::schema::ResultFile;

pub(super) fn read(root: Node<'_>) -> Result<ResultFile> {
    let mut benchmarks = Vec::new();
    for (key, pexecs) in root.get("wallclock_times")?.entries()? {
        let mut processes = Vec::new();
        for p in pexecs.items()? {
            let values: Vec<(f64, bool)> = p.times()?.into_iter().map(|v| (v, false)).collect();
            if !values.is_empty() {
                processes.push(values);
            }
        }
        let mut b = nested(
            key.to_string(),
            String::new(),
            ["execution", "iteration"],
            &processes,
        );
        // `benchmark:vm:variant`: one benchmark and variant run by several VMs is a family.
        b.family = match key.split(':').collect::<Vec<_>>().as_slice() {
            [bench, _vm, variant] => Some(format!("{bench}:{variant}")),
            _ => None,
        };
        benchmarks.push(b);
    }
    Ok(result(benchmarks))
}
