//! Facts about the machine a result was measured on.

use serde::{Deserialize, Serialize};

/// The machine and its settings that affect timings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Environment {
    /// Host name.
    pub host: String,
    /// Operating system and kernel release.
    pub os: String,
    /// CPU model name.
    pub cpu: String,
    /// Number of logical CPUs.
    pub cpus: usize,
    /// CPU frequency governor of CPU 0, if readable.
    pub governor: Option<String>,
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

impl Environment {
    /// Reads what it can; missing facts are left empty rather than failing.
    pub fn detect() -> Self {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_default();
        let os = match (
            read_trimmed("/proc/sys/kernel/ostype"),
            read_trimmed("/proc/sys/kernel/osrelease"),
        ) {
            (Some(t), Some(r)) => format!("{t} {r}"),
            _ => std::env::consts::OS.to_string(),
        };
        Self {
            host: read_trimmed("/proc/sys/kernel/hostname").unwrap_or_default(),
            os,
            cpu,
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            governor: read_trimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        }
    }
}
