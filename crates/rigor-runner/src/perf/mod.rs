//! Hardware performance counters of a benchmarked command, through Linux perf events: the
//! instructions it retired and the CPU cycles it took (`rigor run --metric instructions`), where
//! the kernel exposes them.
//!
//! What is counted: only the benchmarked command, from its `exec` to its exit, with every process
//! and thread it starts (the counters are inherited), in user space only. Counting user space only
//! (`exclude_kernel`) is what a `kernel.perf_event_paranoid` of 2 — the kernel's default — lets an
//! unprivileged user count; the instructions a command makes the kernel run for it (system calls,
//! page faults) are not counted. A process the command leaves running after it exits is counted
//! only up to that exit.
//!
//! How: just before spawning a command, rigor opens the counters on its own thread, disabled,
//! inherited, and enabled by an `exec`. The child the thread spawns inherits them, and its `exec`
//! of the command enables them; rigor itself never calls `exec`, so it is not counted. When the
//! command exits, the kernel folds its counts (and those of its children) into rigor's counter,
//! which rigor reads once it has reaped the command. Inheriting keeps the spawn as it is without
//! counters (`posix_spawn`): having the child open its own counters between `fork` and `exec`
//! (and hand them over a socket) would need a real `fork`, which added 0.2–0.3 ms to every
//! execution's wall time where inheriting adds under 0.01 ms (`true` on a 2-core virtual
//! machine: median 0.663 ms without counters, 0.671 ms counting the task clock, 2,000 of each
//! interleaved); the counters are opened before the wall clock starts. Where the kernel has no
//! counter, [`probe`] and the executor say why ([`CounterError`]): a count is never a silent
//! zero.
//!
//! A counter the kernel had to share with other users of the performance counters
//! (multiplexing: it ran for less than the whole execution) is refused, not scaled: a scaled count
//! is an estimate, and these counts are used for being exact ([`CounterError::Multiplexed`]).
//!
//! Linux only: elsewhere every counter is [`CounterError::Unsupported`].

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use rigor_units::{MetricValues, Quantity};
use serde::{Deserialize, Serialize};
use thiserror::Error;

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod linux;

#[cfg(target_os = "linux")]
pub(crate) use linux::Counting;

/// A performance counter rigor can count for each execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Counter {
    /// Instructions retired (a hardware counter): the metric `instructions`.
    Instructions,
    /// CPU cycles (a hardware counter): the metric `cycles`.
    Cycles,
    /// The kernel's software clock of the command's tasks (`task-clock`, recorded in seconds):
    /// counted without any hardware counter, so it works in virtual machines. It shows the
    /// counting works where hardware counters do not exist (rigor's own tests use it).
    TaskClock,
}

impl Counter {
    /// Every counter, in the order they are listed.
    pub const ALL: [Self; 3] = [Self::Instructions, Self::Cycles, Self::TaskClock];

    /// The counter that measures `metric`, if a counter does: `instructions` and `cycles`.
    pub fn for_metric(metric: &rigor_units::Metric) -> Option<Self> {
        match metric {
            rigor_units::Metric::Instructions => Some(Self::Instructions),
            rigor_units::Metric::Cycles => Some(Self::Cycles),
            _ => None,
        }
    }

    /// The metric's name its counts are recorded under: `instructions`, `cycles`, `task-clock`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Instructions => "instructions",
            Self::Cycles => "cycles",
            Self::TaskClock => "task-clock",
        }
    }

    /// Whether it is a hardware counter (one a virtual machine often lacks).
    pub fn is_hardware(self) -> bool {
        matches!(self, Self::Instructions | Self::Cycles)
    }

    /// The kind of quantity its values are.
    pub fn quantity(self) -> Quantity {
        match self {
            Self::Instructions | Self::Cycles => Quantity::Count,
            Self::TaskClock => Quantity::Time,
        }
    }

    /// A raw count as the metric's value in its base unit (the task clock counts nanoseconds;
    /// it is recorded in seconds).
    fn value(self, raw: u64) -> f64 {
        match self {
            Self::Instructions | Self::Cycles => raw as f64,
            Self::TaskClock => raw as f64 * 1e-9,
        }
    }
}

impl fmt::Display for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Counter {
    type Err = UnknownCounter;

    fn from_str(s: &str) -> Result<Self, UnknownCounter> {
        Self::ALL
            .into_iter()
            .find(|c| c.name() == s.trim())
            .ok_or_else(|| UnknownCounter(s.to_string()))
    }
}

/// A name that is no [`Counter`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown counter '{0}' (expected instructions, cycles or task-clock)")]
pub struct UnknownCounter(pub String);

/// Why a counter cannot be counted on this machine, or why a count was refused. Shown as
/// `cannot count COUNTER: ` and [`CounterError::reason`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CounterError {
    /// Not Linux: counters are read through Linux perf events.
    Unsupported {
        /// The counter asked for.
        counter: Counter,
    },
    /// The kernel was built without perf events (`ENOSYS`).
    NoPerfEvents {
        /// The counter asked for.
        counter: Counter,
    },
    /// The kernel exposes no such counter (`ENOENT`, `EOPNOTSUPP`, `ENODEV`): for hardware
    /// counters, no performance monitoring unit, as in most virtual machines.
    NoCounter {
        /// The counter asked for.
        counter: Counter,
        /// The kernel's error number.
        errno: i32,
    },
    /// The kernel refused to open the counter (`EACCES`, `EPERM`).
    Refused {
        /// The counter asked for.
        counter: Counter,
        /// The kernel's error number.
        errno: i32,
        /// `/proc/sys/kernel/perf_event_paranoid`, when it could be read.
        paranoid: Option<i32>,
    },
    /// Another error of the operating system, named.
    Os {
        /// The counter asked for.
        counter: Counter,
        /// What failed (`perf_event_open`, reading the counter).
        what: &'static str,
        /// The error number.
        errno: i32,
    },
    /// The counter was never enabled: the command's `exec` did not reach it (a count of 0
    /// that would mean nothing was counted, refused).
    NotCounted {
        /// The counter.
        counter: Counter,
    },
    /// The counter ran for only part of the execution: the kernel shared the performance
    /// counters among more events than it has (multiplexing). rigor refuses the count rather
    /// than scale it into an estimate.
    Multiplexed {
        /// The counter.
        counter: Counter,
        /// Nanoseconds it was enabled.
        enabled: u64,
        /// Nanoseconds it was counting.
        running: u64,
    },
}

impl fmt::Display for CounterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot count {}: {}", self.counter(), self.reason())
    }
}

impl CounterError {
    /// The counter the error is about.
    pub fn counter(&self) -> Counter {
        match self {
            Self::Unsupported { counter }
            | Self::NoPerfEvents { counter }
            | Self::NoCounter { counter, .. }
            | Self::Refused { counter, .. }
            | Self::Os { counter, .. }
            | Self::NotCounted { counter }
            | Self::Multiplexed { counter, .. } => *counter,
        }
    }

    /// Why, in words, without the counter's name (the message after `cannot count COUNTER: `).
    pub fn reason(&self) -> String {
        match self {
            Self::Unsupported { .. } => "performance counters are read through Linux perf events, \
                 which this OS does not have (not supported on this OS)"
                .into(),
            Self::NoPerfEvents { .. } => {
                "this machine's kernel has no perf events (built without CONFIG_PERF_EVENTS)".into()
            }
            Self::NoCounter { counter, errno } => no_counter(*counter, *errno),
            Self::Refused {
                errno, paranoid, ..
            } => refused(*errno, *paranoid),
            Self::Os { what, errno, .. } => {
                format!("{what}: {}", std::io::Error::from_raw_os_error(*errno))
            }
            Self::NotCounted { .. } => {
                "the counter never ran: the command's exec did not enable it \
                 (nothing was counted; rigor reports no count rather than 0)"
                    .into()
            }
            Self::Multiplexed {
                enabled, running, ..
            } => format!(
                "the count is incomplete: the kernel shared the performance counters with other \
                 events and counted this one for only {:.1}% of the execution (rigor does not \
                 scale a partial count into an estimate); stop other users of the counters \
                 (another perf, a profiler, the NMI watchdog: sysctl kernel.nmi_watchdog=0) or \
                 count fewer counters at once",
                share(*running, *enabled)
            ),
        }
    }

    /// The error of `perf_event_open` failing with `errno` for `counter`.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fn open_failed(counter: Counter, errno: i32) -> Self {
        match errno {
            libc::ENOSYS => Self::NoPerfEvents { counter },
            libc::ENOENT | libc::EOPNOTSUPP | libc::ENODEV => Self::NoCounter { counter, errno },
            libc::EACCES | libc::EPERM => Self::Refused {
                counter,
                errno,
                paranoid: paranoid(),
            },
            _ => Self::Os {
                counter,
                what: "perf_event_open",
                errno,
            },
        }
    }
}

/// Where the kernel says how much of its performance events an unprivileged user may use.
pub const PARANOID_PATH: &str = "/proc/sys/kernel/perf_event_paranoid";

/// `/proc/sys/kernel/perf_event_paranoid`, if it can be read.
fn paranoid() -> Option<i32> {
    std::fs::read_to_string(PARANOID_PATH)
        .ok()?
        .trim()
        .parse()
        .ok()
}

fn no_counter(counter: Counter, errno: i32) -> String {
    let os = std::io::Error::from_raw_os_error(errno);
    if counter.is_hardware() {
        format!(
            "this machine's kernel exposes no hardware performance counters (common in virtual machines; perf_event_open: {os})"
        )
    } else {
        format!("this machine's kernel has no {counter} counter (perf_event_open: {os})")
    }
}

fn refused(errno: i32, paranoid: Option<i32>) -> String {
    let os = std::io::Error::from_raw_os_error(errno);
    let level = match paranoid {
        Some(level) => format!("{PARANOID_PATH} is {level}"),
        None => format!("{PARANOID_PATH} could not be read"),
    };
    format!(
        "the kernel refused to open the counter (perf_event_open: {os}); {level}: rigor counts only the user space of its own commands, which a value of 2 or less allows (sysctl kernel.perf_event_paranoid=2), as does running with CAP_PERFMON; a container's seccomp profile can also refuse perf_event_open"
    )
}

fn share(running: u64, enabled: u64) -> f64 {
    if enabled == 0 {
        0.0
    } else {
        running as f64 / enabled as f64 * 100.0
    }
}

/// Checks that `counter` can be counted here: opens it on the calling thread, as it will be
/// opened on each benchmarked command, and closes it. Run before anything is measured, so a
/// machine without the counter is an error before the run, not a run without counts.
///
/// # Errors
/// [`CounterError`] saying why the counter cannot be opened.
pub fn probe(counter: Counter) -> Result<(), CounterError> {
    #[cfg(target_os = "linux")]
    {
        linux::probe(counter)
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(CounterError::Unsupported { counter })
    }
}

/// The counts of one execution as metrics, by name: the value of each counter in its base unit.
/// `raw` holds, for each counter, (count, nanoseconds enabled, nanoseconds running).
///
/// # Errors
/// [`CounterError::Multiplexed`] for a counter that did not run for the whole time it was
/// enabled.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn metrics(
    raw: impl IntoIterator<Item = (Counter, [u64; 3])>,
) -> Result<BTreeMap<String, MetricValues>, CounterError> {
    let mut out = BTreeMap::new();
    for (counter, [count, enabled, running]) in raw {
        if enabled == 0 {
            return Err(CounterError::NotCounted { counter });
        }
        if running < enabled {
            return Err(CounterError::Multiplexed {
                counter,
                enabled,
                running,
            });
        }
        out.insert(
            counter.name().to_string(),
            MetricValues {
                unit: counter.quantity(),
                values: vec![counter.value(count)],
            },
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
