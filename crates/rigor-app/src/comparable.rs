//! Which benchmarks are compared with which: versions of one program or different commands
//! ([`kind_of`]), and the groups compared with each other — all of a run, or per combination of
//! parameter values, and in another tool's file only the variants of one benchmark
//! ([`families`]).

use rigor_report::comparison::Kind;
use rigor_store::{BenchmarkRecord, ResultFile};

/// Two commands of one run are versions of one program when they run a program of the same
/// file name from different places with the same arguments (`./v1/app -x` and `./v2/app -x`):
/// then a slowdown is a regression. Other commands (`gzip -1`, `xz`) are merely slower or
/// faster than each other.
pub fn kind_of(baseline: &str, candidate: &str) -> Kind {
    let words = |c: &str| c.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    let (b, c) = (words(baseline), words(candidate));
    let file = |w: &str| {
        std::path::Path::new(w)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
    };
    match (b.split_first(), c.split_first()) {
        (Some((bp, brest)), Some((cp, crest)))
            if bp != cp && file(bp) == file(cp) && brest == crest =>
        {
            Kind::Versions
        }
        _ => Kind::Commands,
    }
}

/// The benchmarks compared with each other. In rigor's own results: one group of all, or with
/// parameters (`--parameter-list`) and several commands, one group per combination of values
/// (the commands compared at equal values). In another tool's file, whose benchmarks may be an
/// unrelated suite, only the benchmarks of one family are compared with each other
/// ([`families`]), each family grouped by parameters as above.
pub fn groups(result: &ResultFile) -> Vec<Vec<usize>> {
    if result.provenance.imported_from.is_none() {
        // The empty shell measured for the start-up is subtracted, not compared or ranked.
        let compared = (0..result.benchmarks.len())
            .filter(|&i| result.benchmarks[i].shell_startup.is_none())
            .collect();
        return by_parameters(result, compared);
    }
    families(result)
        .into_iter()
        .flat_map(|f| by_parameters(result, f))
        .collect()
}

/// The families of an imported result with more than one member, each in file order: the
/// benchmarks the file says are variants of one benchmark ([`BenchmarkRecord::family`]: a
/// Google Benchmark's instances, a criterion group, hyperfine's commands). A benchmark of no
/// family, or alone in its family, is compared with none.
pub fn families(result: &ResultFile) -> Vec<Vec<usize>> {
    let mut families: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, b) in result.benchmarks.iter().enumerate() {
        let Some(f) = b.family.as_deref() else {
            continue;
        };
        match families.iter_mut().find(|(name, _)| *name == f) {
            Some((_, members)) => members.push(i),
            None => families.push((f, vec![i])),
        }
    }
    families
        .into_iter()
        .map(|(_, members)| members)
        .filter(|m| m.len() > 1)
        .collect()
}

/// The benchmarks `members`, one group of all or, when every one has parameters and some share
/// their values, one group per combination of values.
fn by_parameters(result: &ResultFile, members: Vec<usize>) -> Vec<Vec<usize>> {
    let bench = |i: usize| &result.benchmarks[i];
    if members.iter().any(|&i| bench(i).parameters.is_empty()) {
        return vec![members];
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &i in &members {
        match groups
            .iter_mut()
            .find(|g| bench(g[0]).parameters == bench(i).parameters)
        {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    if groups.iter().all(|g| g.len() < 2) {
        vec![members]
    } else {
        groups
    }
}

/// A group's title among several: its parameter values, else its family.
pub(crate) fn group_title(b: &BenchmarkRecord) -> String {
    if b.parameters.is_empty() {
        return b.family.clone().unwrap_or_default();
    }
    b.parameters
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_one_program_from_two_places() {
        assert_eq!(kind_of("./v1/app -x", "./v2/app -x"), Kind::Versions);
        assert_eq!(kind_of("gzip -1 f", "gzip -9 f"), Kind::Commands);
        assert_eq!(kind_of("gzip f", "xz f"), Kind::Commands);
        assert_eq!(kind_of("./v1/app -x", "./v2/app -y"), Kind::Commands);
    }
}
