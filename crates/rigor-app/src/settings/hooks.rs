//! Commands run around the measured ones (hyperfine's hooks) as a run asks for them.

use serde::{Deserialize, Serialize};

use crate::error::RequestError;

type Result<T> = std::result::Result<T, RequestError>;

/// Commands run around the measured ones (hyperfine's hooks), as given: each once (for every
/// benchmark), once per command, or once per benchmark (command × parameter values, in the
/// order the benchmarks are expanded). `{VAR}` is replaced by each benchmark's values.
///
/// A job queued before hooks could be given more than once stored each as a string (or null);
/// both forms read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Hooks {
    /// Before the benchmark's first execution.
    #[serde(deserialize_with = "one_or_many")]
    pub setup: Vec<String>,
    /// Before every execution.
    #[serde(deserialize_with = "one_or_many")]
    pub prepare: Vec<String>,
    /// After every execution.
    #[serde(deserialize_with = "one_or_many")]
    pub conclude: Vec<String>,
    /// After the benchmark's last execution.
    #[serde(deserialize_with = "one_or_many")]
    pub cleanup: Vec<String>,
}

/// A hook list as stored: a list, one string, or null (none).
fn one_or_many<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Option::<Stored>::deserialize(d)? {
        None => Vec::new(),
        Some(Stored::One(s)) => vec![s],
        Some(Stored::Many(v)) => v,
    })
}

impl Hooks {
    /// Each hook with its option.
    pub(super) fn each(&self) -> [(&'static str, &Vec<String>); 4] {
        [
            ("--setup", &self.setup),
            ("--prepare", &self.prepare),
            ("--conclude", &self.conclude),
            ("--cleanup", &self.cleanup),
        ]
    }

    /// Every hook's text.
    pub(super) fn texts(&self) -> Vec<String> {
        self.each()
            .into_iter()
            .flat_map(|(_, v)| v.clone())
            .collect()
    }

    /// Each count checked: once, once per command or once per benchmark.
    pub(super) fn check(&self, commands: usize, benchmarks: usize) -> Result<()> {
        for (option, given) in self.each() {
            let n = given.len();
            if n > 1 && n != commands && n != benchmarks {
                return Err(RequestError::HookCount {
                    option,
                    given: n,
                    commands,
                    benchmarks,
                });
            }
        }
        Ok(())
    }

    /// The hook texts of benchmark `k` (of `benchmarks`), which runs command `i` (of
    /// `commands`): one hook for all, the one per benchmark, or the command's.
    pub(super) fn of(&self, k: usize, i: usize, benchmarks: usize) -> [Option<&String>; 4] {
        self.each().map(|(_, given)| match given.len() {
            0 => None,
            1 => given.first(),
            n if n == benchmarks => given.get(k),
            _ => given.get(i),
        })
    }
}
