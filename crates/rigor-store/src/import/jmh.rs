//! JMH `-rf json`: an array of results; `primaryMetric.rawData` holds one array per fork (a
//! process) of measured iteration scores. Times per operation (`ns/op`, ...) are converted to
//! seconds; throughputs (`ops/s`, ...) are inverted to seconds per operation. JMH does not
//! write its warm-up iterations to the file. A method's results (with other `params`) are one
//! family, compared with each other.

use super::json::Node;
use super::{nested, result};
use crate::error::Result;
use crate::schema::ResultFile;

/// Seconds per operation of a score in `unit`.
fn to_seconds(node: &Node<'_>, unit: &str, score: f64) -> Result<f64> {
    let per = |u: &str| match u {
        "ns" => Some(1e-9),
        "us" | "µs" => Some(1e-6),
        "ms" => Some(1e-3),
        "s" => Some(1.0),
        "min" => Some(60.0),
        "hr" => Some(3600.0),
        _ => None,
    };
    let bad = || {
        node.err(format!(
            "score unit '{unit}' is neither time/op nor ops/time"
        ))
    };
    if let Some(t) = unit.strip_suffix("/op") {
        // A time per operation, refused negative as every format's times are.
        if score < 0.0 {
            return Err(node.err(format!("negative time {score} {unit}")));
        }
        Ok(score * per(t).ok_or_else(bad)?)
    } else if let Some(t) = unit.strip_prefix("ops/") {
        if score <= 0.0 {
            return Err(node.err(format!("throughput {score} cannot be inverted to a time")));
        }
        Ok(per(t).ok_or_else(bad)? / score)
    } else {
        Err(bad())
    }
}

pub(super) fn read(root: Node<'_>) -> Result<ResultFile> {
    let mut benchmarks = Vec::new();
    for r in root.items()? {
        let method = r.get("benchmark")?.str()?.to_string();
        let mut name = method.clone();
        if let Some(params) = r.opt("params") {
            let p: Vec<String> = params
                .entries()?
                .iter()
                .map(|(k, v)| Ok(format!("{k}={}", v.str()?)))
                .collect::<Result<_>>()?;
            if !p.is_empty() {
                name = format!("{name}({})", p.join(","));
            }
        }
        let metric = r.get("primaryMetric")?;
        let unit = metric.get("scoreUnit")?.str()?.to_string();
        let mut forks = Vec::new();
        for fork in metric.get("rawData")?.items()? {
            let mut values = Vec::new();
            for score in fork.items()? {
                values.push((
                    score.seconds(to_seconds(&score, &unit, score.f64()?)?)?,
                    false,
                ));
            }
            if values.is_empty() {
                // JMH writes every fork it ran with its iterations: an empty one is a broken file.
                return Err(fork.err("a fork without a measured iteration"));
            }
            forks.push(values);
        }
        let mut b = nested(name, String::new(), ["fork", "iteration"], &forks);
        // The method's runs with other parameters (and modes) are its family.
        b.family = Some(method);
        benchmarks.push(b);
    }
    Ok(result(benchmarks))
}
