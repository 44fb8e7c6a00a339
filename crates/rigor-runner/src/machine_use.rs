//! How busy other processes kept the machine's CPUs while rigor measured: the CPU time the whole
//! machine spent (`/proc/stat`), less what rigor and every command it waited for spent
//! (`getrusage` of itself and its children), over the wall time between two snapshots.
//!
//! The minute's load average (`/proc/loadavg`) is what a run recorded before: it lags by about
//! a minute and counts tasks waiting on I/O. A run started 3 s after two busy loops stopped read a
//! load of 1.12 on a quiet machine; one started 5 s after they began read 0.33. This is measured
//! over exactly the run.

use std::time::Instant;

/// The shortest time over which others' use is told: `/proc/stat` counts in clock ticks (10 ms
/// here) on each CPU, so over an 11 ms run of `true` a quiet machine read 1.17 CPUs busy; over a
/// quarter of a second the ticks' error is under 0.1 of a CPU, far from the half of the CPUs
/// that makes a machine busy (a run of 20 executions of a 15 ms program is told).
pub const MIN_SECONDS: f64 = 0.25;

/// One snapshot of the machine's and this process's CPU use.
#[derive(Debug, Clone, Copy)]
pub struct MachineUse {
    /// The CPU time the whole machine spent busy (user, nice, system, IRQ, soft IRQ, and steal:
    /// time a hypervisor gave the machine's CPUs to others), seconds.
    machine: f64,
    /// The CPU time this process and its waited-for children spent, seconds.
    own: f64,
    /// When.
    at: Instant,
}

impl MachineUse {
    /// Now; `None` where `/proc/stat` cannot be read (not Linux).
    pub fn now() -> Option<Self> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        Some(Self {
            machine: busy_seconds(&stat, crate::process::sys::clock_ticks()?)?,
            own: crate::process::sys::own_cpu_seconds(),
            at: Instant::now(),
        })
    }

    /// A snapshot at least [`MIN_SECONDS`] after `self`: now, or once the rest of that time has
    /// passed (rigor idle meanwhile), so that a run too short to tell others' use over is told
    /// over itself and the moment after it. Without it, a run of ten 10 ms sleeps fell back on
    /// the minute's load average, which a build that had just ended held at 1.96 of 2 CPUs:
    /// "its times are a busy machine's" on an idle machine. `None` where `/proc/stat` cannot
    /// be read.
    pub fn told_since(&self) -> Option<Self> {
        let wall = self.at.elapsed().as_secs_f64();
        if wall < MIN_SECONDS {
            std::thread::sleep(std::time::Duration::from_secs_f64(
                MIN_SECONDS - wall + 0.005,
            ));
        }
        Self::now()
    }

    /// The CPUs other processes kept busy on average from `self` to `later` (0.5: half a CPU),
    /// never below 0; `None` over less than [`MIN_SECONDS`].
    pub fn others_since(&self, later: &Self) -> Option<f64> {
        let wall = later.at.duration_since(self.at).as_secs_f64();
        if wall < MIN_SECONDS {
            return None;
        }
        let others = (later.machine - self.machine) - (later.own - self.own);
        Some((others / wall).max(0.0))
    }
}

/// The busy CPU time in `/proc/stat`'s first line (`cpu  user nice system idle iowait irq
/// softirq steal ...`, in clock ticks), seconds.
fn busy_seconds(stat: &str, ticks_per_second: f64) -> Option<f64> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let fields: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    // user, nice, system, (idle, iowait skipped), irq, softirq, steal; guest time is already
    // counted in user.
    let busy: f64 = [0, 1, 2, 5, 6, 7]
        .iter()
        .filter_map(|&i| fields.get(i))
        .sum();
    Some(busy / ticks_per_second)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_time_is_every_field_but_idle_and_io_wait() {
        let stat = "cpu  4706566 17769 499611 2725222 23473 0 6418 24462 0 0\n\
                    cpu0 2349035 7939 251093 1365328 13867 0 2215 12200 0 0\n";
        let busy = 4706566.0 + 17769.0 + 499611.0 + 0.0 + 6418.0 + 24462.0;
        assert_eq!(busy_seconds(stat, 100.0), Some(busy / 100.0));
        assert_eq!(busy_seconds("intr 1 2 3\n", 100.0), None);
        assert_eq!(busy_seconds("cpu  1 x 3\n", 100.0), None);
    }

    #[test]
    fn others_are_the_machines_use_less_this_process_over_the_wall_time() {
        let at = Instant::now();
        let before = MachineUse {
            machine: 100.0,
            own: 10.0,
            at,
        };
        let after = |machine, own, seconds| MachineUse {
            machine,
            own,
            at: at + std::time::Duration::from_secs_f64(seconds),
        };
        // 4 s: the machine spent 7 CPU-seconds, rigor and its commands 3: others kept 1 CPU busy.
        assert_eq!(before.others_since(&after(107.0, 13.0, 4.0)), Some(1.0));
        // Ticks are coarser than rusage: never below 0.
        assert_eq!(before.others_since(&after(100.5, 11.0, 1.0)), Some(0.0));
        assert_eq!(before.others_since(&before), None);
        assert_eq!(before.others_since(&after(100.5, 10.0, 0.2)), None);
    }

    /// A run shorter than the shortest time told is told all the same, over the moment after
    /// it (it fell back on the lagging load average).
    #[test]
    fn a_short_run_is_told_over_the_moment_after_it() {
        let Some(start) = MachineUse::now() else {
            return;
        };
        let end = start.told_since().unwrap();
        assert!(end.at.duration_since(start.at).as_secs_f64() >= MIN_SECONDS);
        assert!(start.others_since(&end).is_some());
    }

    /// On Linux the snapshot reads; a busy child counts as rigor's own, not as others'.
    #[test]
    fn a_child_this_process_waited_for_is_not_another_process() {
        let Some(before) = MachineUse::now() else {
            return;
        };
        let status = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"])
            .status()
            .unwrap();
        assert!(status.success());
        let after = MachineUse::now().unwrap();
        assert!(after.own > before.own, "{before:?} {after:?}");
        assert!(after.machine >= before.machine);
    }
}
