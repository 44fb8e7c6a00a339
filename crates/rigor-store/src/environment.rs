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

/// The machine's load averages (runnable and uninterruptible tasks, averaged over 1, 5 and 15
/// minutes), as the kernel reports them: what a session records before and after it measures,
/// and the reason to distrust a session run on a busy machine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LoadAverage {
    /// Over the last minute.
    pub one: f64,
    /// Over the last 5 minutes.
    pub five: f64,
    /// Over the last 15 minutes.
    pub fifteen: f64,
}

impl LoadAverage {
    /// Reads `/proc/loadavg`; `None` where there is none (not Linux) or it cannot be read.
    pub fn read() -> Option<Self> {
        Self::parse(&std::fs::read_to_string("/proc/loadavg").ok()?)
    }

    /// Parses the first three fields of `/proc/loadavg`'s format (`0.52 0.58 0.59 1/389 12345`).
    pub fn parse(text: &str) -> Option<Self> {
        let mut fields = text
            .split_whitespace()
            .map(|f| f.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0));
        Some(Self {
            one: fields.next()??,
            five: fields.next()??,
            fifteen: fields.next()??,
        })
    }

    /// Whether the last minute's load is at least the machine's CPU count: every CPU had, on
    /// average, something runnable besides the benchmark, so timings are of a busy machine.
    pub fn is_high(&self, cpus: usize) -> bool {
        self.one >= cpus.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_average_parses_procs_format() {
        let l = LoadAverage::parse("0.52 1.58 2.59 1/389 12345\n").unwrap();
        assert_eq!((l.one, l.five, l.fifteen), (0.52, 1.58, 2.59));
        assert!(!l.is_high(2));
        assert!(LoadAverage::parse("5.0 1 1").unwrap().is_high(2));
        assert_eq!(LoadAverage::parse("0.5 x 1"), None);
        assert_eq!(LoadAverage::parse("0.5 1"), None);
        assert_eq!(LoadAverage::parse("-1 1 1"), None);
    }

    #[test]
    fn reads_this_machines_load() {
        if std::path::Path::new("/proc/loadavg").exists() {
            assert!(LoadAverage::read().is_some());
        }
    }
}
