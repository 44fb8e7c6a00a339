//! Helpers shared by the CLI tests.
#![allow(dead_code)]

pub mod gitrepo;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// A `rigor` command.
pub fn rigor() -> Command {
    Command::cargo_bin("rigor").expect("the rigor binary is built")
}

/// `rigor run --simulate …`: the simulated executor, no processes.
pub fn sim() -> Command {
    let mut cmd = rigor();
    cmd.args(["run", "--simulate"]);
    cmd
}

/// A scratch directory with helpers to name files in it.
pub struct Dir(pub tempfile::TempDir);

impl Dir {
    pub fn new() -> Self {
        Self(tempfile::tempdir().expect("temp dir"))
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
}

/// Reads a JSON file.
pub fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("result file exists");
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{}: invalid JSON: {e}\n{text}", path.display()))
}

/// Each benchmark's executions in a result file (warm-ups included), in order.
/// The comparison of a `--json` report whose candidate is `name`.
pub fn comparison_named(report: &Value, name: &str) -> Value {
    report["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["candidate"] == name)
        .unwrap_or_else(|| panic!("no comparison of {name} in {report}"))
        .clone()
}

/// Rewrites a real run's result file as if every execution had a CPU throughout (user time =
/// wall time): for tests that compare two real runs measured apart, where the CPU share a
/// machine busy with the other tests gives each run ([`rigor_store::CpuShare`]) would withhold
/// the verdict the test is not about.
pub fn as_uncontended(path: &Path) {
    let mut r = json(path);
    for b in r["benchmarks"].as_array_mut().into_iter().flatten() {
        for e in b["executions"].as_array_mut().into_iter().flatten() {
            e["user"] = e["wall"].clone();
            e["sys"] = serde_json::json!(0.0);
        }
    }
    std::fs::write(path, r.to_string()).unwrap();
}

/// The result at `new` made a file of the same run as `old` (its start shared, as `track run`
/// writes a batch's versions): a test of what a comparison of one run's data gives, not of how
/// separate runs are judged (one run a side gets no verdict on its times).
pub fn as_one_run(old: &Path, new: &Path) {
    let mut r = json(new);
    r["provenance"]["started"] = json(old)["provenance"]["started"].clone();
    std::fs::write(new, r.to_string()).unwrap();
}

pub fn executions_of(path: &Path) -> Vec<Vec<Value>> {
    json(path)["benchmarks"]
        .as_array()
        .expect("benchmarks")
        .iter()
        .map(|b| b["executions"].as_array().expect("executions").clone())
        .collect()
}

/// Stdout of a successful run as text.
pub fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.assert().success().get_output().stdout.clone();
    String::from_utf8(out).expect("utf-8 output")
}

/// `rigor track --db DB ARGS… --machine m --branch main`: the series of the history tests.
pub fn track_m_main(db: &Path, args: &[&str]) -> Command {
    let mut cmd = rigor();
    cmd.arg("track").arg("--db").arg(db).args(args);
    cmd.args(["--machine", "m", "--branch", "main"]);
    cmd
}
