//! What failed in a benchmark's run: the benchmarked command, its build, or one of the hook
//! commands around it. Shared by the runner, which reports failures as they happen, and the
//! store, which keeps them in result files (as `snake_case` names).

use serde::{Deserialize, Serialize};

/// What failed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureStage {
    /// The benchmarked command (it failed, or what it reported could not be read); also every
    /// failure of files written before the stage was recorded.
    #[default]
    Command,
    /// Its build (`--build`).
    Build,
    /// `--setup`, run once before the benchmark's first execution.
    Setup,
    /// `--prepare`, run before the execution the record names.
    Prepare,
    /// `--conclude`, run after the execution the record names (which is kept: it was measured
    /// and recorded before the conclude command ran).
    Conclude,
    /// `--cleanup`, run once after the benchmark's last execution.
    Cleanup,
}

impl FailureStage {
    /// Whether it is the benchmarked command (the stage left out of written files).
    pub fn is_command(&self) -> bool {
        *self == Self::Command
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_are_written_in_snake_case_and_default_to_the_command() {
        assert_eq!(
            serde_json::to_string(&FailureStage::Conclude).unwrap(),
            "\"conclude\""
        );
        assert_eq!(
            serde_json::from_str::<FailureStage>("\"setup\"").unwrap(),
            FailureStage::Setup
        );
        assert!(FailureStage::default().is_command());
        assert!(!FailureStage::Build.is_command());
    }
}
