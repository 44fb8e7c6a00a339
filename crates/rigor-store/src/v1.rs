//! Reading schema-version-1 files (rigor 0.1): a migration of the JSON document to version 2.
//!
//! What changes: level names become level kinds (names that are not rigor's, from imported
//! data, are kept as `level_names` and the kinds assigned by depth, exactly as version 1 mapped
//! them); steady-state labels become enums. What is dropped: the free-form `settings` (version 2
//! records typed settings that version 1 did not have) and each benchmark's derived estimates,
//! whose warnings were plain text; every command re-derives them from the raw data, which is
//! kept whole.

use serde_json::{Map, Value, json};

use crate::layout::{Layout, LevelKind};

/// Fields of a version-1 benchmark that held its derived estimates (flattened into it).
const DERIVED: [&str; 7] = [
    "counts",
    "mean",
    "ci",
    "variance_components",
    "variance_method",
    "summary",
    "warnings",
];

/// Rewrites a version-1 document in place into version 2.
pub fn migrate(doc: &mut Value) {
    let Some(top) = doc.as_object_mut() else {
        return;
    };
    top.insert("schema_version".into(), json!(2));
    top.remove("settings");
    if let Some(Value::Array(benchmarks)) = top.get_mut("benchmarks") {
        for b in benchmarks.iter_mut().filter_map(Value::as_object_mut) {
            migrate_benchmark(b);
        }
    }
}

fn migrate_benchmark(b: &mut Map<String, Value>) {
    for key in DERIVED {
        b.remove(key);
    }
    let names: Vec<String> = b
        .get("levels")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let (layout, custom) = layout_of(&names);
    b.insert("levels".into(), json!(layout));
    if custom {
        b.insert("level_names".into(), json!(names));
    }
    if let Some(steady) = b.remove("steady_state") {
        if let Some(s) = migrate_steady(steady) {
            b.insert("steady_state".into(), s);
        }
    }
}

/// The layout version 1 meant by these level names: rigor's own names directly; other names by
/// depth, where version 1 read a two-level benchmark whose lowest level is `execution` as builds
/// over executions and any other as executions over iterations.
fn layout_of(names: &[String]) -> (Layout, bool) {
    let kinds: Option<Vec<LevelKind>> = names.iter().map(|n| LevelKind::from_name(n)).collect();
    if let Some(layout) = kinds.and_then(|k| Layout::try_from(k).ok()) {
        return (layout, false);
    }
    let lowest_is_execution = names.last().is_some_and(|l| l == "execution");
    let layout = match names.len() {
        0 | 1 => Layout::EXECUTIONS,
        2 if lowest_is_execution => Layout::new(true, false),
        2 => Layout::new(false, true),
        _ => Layout::new(true, true),
    };
    (layout, names.len() == layout.depth())
}

fn migrate_steady(mut s: Value) -> Option<Value> {
    let o = s.as_object_mut()?;
    let classes: Vec<Value> = o
        .get("classes")?
        .as_array()?
        .iter()
        .map(|c| c.as_str().map(class))
        .collect::<Option<_>>()?;
    o.insert("classes".into(), Value::Array(classes));
    let consistency = o.get("consistency")?.as_str()?;
    let consistency = match consistency {
        "good inconsistent" => json!("good-inconsistent"),
        "bad inconsistent" => json!("bad-inconsistent"),
        other => {
            let label = other.strip_prefix("consistent (")?.strip_suffix(')')?;
            json!({ "consistent": class(label) })
        }
    };
    o.insert("consistency".into(), consistency);
    let applied = applied(o.get("applied")?.as_str()?)?;
    o.insert("applied".into(), applied);
    Some(s)
}

/// A run label as version 1 wrote it ("no steady state") in version 2's form.
fn class(text: &str) -> Value {
    json!(text.replace(' ', "-"))
}

/// What version 1 described in words, as Kalibera & Jones' recommendation.
fn applied(text: &str) -> Option<Value> {
    let number_after = |prefix: &str| -> Option<usize> {
        let rest = text.split(prefix).nth(1)?;
        rest.split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    };
    if text.starts_with("discarded the first") {
        Some(json!({ "iterations": { "warmup": number_after("discarded the first ")? } }))
    } else if text.starts_with("never independent") {
        let kept = number_after("kept only iteration ")?;
        Some(json!({ "single-iteration": { "index": kept.checked_sub(1)? } }))
    } else if text.starts_with("no execution reached") {
        Some(json!("unsettled"))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_names_map_as_version_1_read_them() {
        let n = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(layout_of(&n(&["execution"])), (Layout::EXECUTIONS, false));
        assert_eq!(
            layout_of(&n(&["build", "execution"])),
            (Layout::new(true, false), false)
        );
        assert_eq!(
            layout_of(&n(&["run", "iter"])),
            (Layout::new(false, true), true)
        );
        assert_eq!(
            layout_of(&n(&["machine", "execution"])),
            (Layout::new(true, false), true)
        );
        assert_eq!(
            layout_of(&n(&["a", "b", "c"])),
            (Layout::new(true, true), true)
        );
    }

    #[test]
    fn applied_rules_are_parsed_back() {
        assert_eq!(
            applied("discarded the first 12 iteration(s) of every execution (independent state)"),
            Some(json!({"iterations": {"warmup": 12}}))
        );
        assert_eq!(
            applied(
                "never independent: kept only iteration 9 of every execution, the first initialised one"
            ),
            Some(json!({"single-iteration": {"index": 8}}))
        );
        assert_eq!(
            applied(
                "no execution reached a steady state: all iterations kept; treat the result with care"
            ),
            Some(json!("unsettled"))
        );
        assert_eq!(applied("something else"), None);
    }
}
