//! Thin safe wrappers over the few system calls std does not expose: `wait4` (exit status plus
//! resource usage of exactly one child), `waitid(WNOWAIT)` (wait without reaping, so a watchdog can
//! still signal the pid safely) and `kill` of a process group.

use std::io;

/// Exit status and resource usage of a reaped child.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reaped {
    /// Raw wait status.
    pub status: i32,
    /// User CPU seconds.
    pub user: f64,
    /// System CPU seconds.
    pub sys: f64,
    /// Peak resident set size in bytes.
    pub max_rss: u64,
    /// Involuntary context switches.
    pub preempted: u64,
    /// Seconds it waited, runnable, for a CPU ([`run_delay`]); `None` where not told.
    pub run_delay: Option<f64>,
}

fn timeval_secs(tv: libc::timeval) -> f64 {
    tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6
}

/// Blocks until child `pid` exits and reaps it, returning its status and rusage.
pub(crate) fn wait4(pid: i32) -> io::Result<Reaped> {
    let mut status = 0;
    // SAFETY: rusage is plain old data; zeroed is a valid value and wait4 fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: valid pointers to local variables; pid is our own child.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
    Ok(Reaped {
        status,
        user: timeval_secs(usage.ru_utime),
        sys: timeval_secs(usage.ru_stime),
        // Linux reports ru_maxrss in kibibytes.
        max_rss: (usage.ru_maxrss.max(0) as u64) * 1024,
        preempted: usage.ru_nivcsw.max(0) as u64,
        run_delay: None,
    })
}

/// The child's own peak resident set size, bytes, or 0 when it cannot be told. Linux folds the
/// address space a process replaces at `exec` into the peak it reports: a child spawned by this
/// process reports at least this process's own peak (its address space, shared or copied at the
/// spawn, is what the child's `exec` replaced), so a peak not above it may be this process's
/// rather than the command's: it is reported as unknown (0) instead of as the command's. A peak
/// above it is exactly the command's. Call it after reaping the child: this process's peak only
/// grows, so the one read then bounds the one the child's `exec` took.
pub(crate) fn child_peak_rss(reaped: &Reaped) -> u64 {
    if reaped.max_rss > own_peak_rss() {
        reaped.max_rss
    } else {
        0
    }
}

/// This process's own peak resident set, bytes: its address space's high-water mark (`VmHWM`),
/// not `getrusage`'s, which also holds the peak of whatever process this one was spawned by (the
/// same folding at this process's own `exec`: rigor started from a large process, or the
/// launcher started from rigor, would otherwise take that process's size as its own). Where
/// `/proc` cannot be read, `getrusage`'s (an upper bound: fewer peaks told, none wrong).
fn own_peak_rss() -> u64 {
    let from_proc = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| vm_hwm(&status));
    from_proc.unwrap_or_else(|| {
        // SAFETY: rusage is plain old data; zeroed is a valid value and getrusage fills it.
        let mut own: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: valid pointer to a local variable.
        let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut own) } == 0;
        if ok {
            (own.ru_maxrss.max(0) as u64) * 1024
        } else {
            u64::MAX
        }
    })
}

/// Clock ticks per second (`sysconf(_SC_CLK_TCK)`), the unit of `/proc/stat`; `None` where
/// the system does not say.
pub(crate) fn clock_ticks() -> Option<f64> {
    // SAFETY: sysconf reads a constant of the system and has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (ticks > 0).then_some(ticks as f64)
}

/// User and system CPU time of this process and of the children it waited for, seconds.
pub(crate) fn own_cpu_seconds() -> f64 {
    let of = |who| {
        // SAFETY: rusage is plain old data; zeroed is a valid value and getrusage fills it.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: valid pointer to a local variable.
        if unsafe { libc::getrusage(who, &mut u) } != 0 {
            return 0.0;
        }
        let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
        t(u.ru_utime) + t(u.ru_stime)
    };
    of(libc::RUSAGE_SELF) + of(libc::RUSAGE_CHILDREN)
}

/// The `VmHWM:   1234 kB` line of a `/proc/PID/status`, in bytes.
fn vm_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let mut words = line["VmHWM:".len()..].split_whitespace();
    let kib: u64 = words.next()?.parse().ok()?;
    (words.next() == Some("kB")).then_some(kib * 1024)
}

/// The text of child `pid`'s `/proc/PID/schedstat`, read after it has exited and before it is
/// reaped (a zombie keeps its figures); `None` where `/proc` has no such file (another system,
/// a kernel without scheduler statistics).
pub(crate) fn schedstat_of(pid: i32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/schedstat")).ok()
}

/// How long a child waited, runnable, for a CPU that other threads held (the kernel's
/// `run_delay`, from the text of its `/proc/PID/schedstat`, [`schedstat_of`]), seconds, when
/// that speaks for its work: the process's own (main thread's) CPU time there must be at least
/// nine tenths of `cpu`, the CPU time that `wait4` reports for it with its threads and
/// children. `None` where the text is not such a line, or where most of the work ran in
/// threads or children whose waiting it does not count (`sh -c` running a program in a child,
/// a thread pool): waiting left uncounted would read as none.
pub(crate) fn run_delay(schedstat_text: &str, cpu: f64) -> Option<f64> {
    let (own, delay) = schedstat(schedstat_text)?;
    (own >= 0.9 * cpu).then_some(delay)
}

/// The CPU time and run-queue delay of a `/proc/PID/schedstat` line (`<on-CPU ns> <run-queue
/// ns> <timeslices>`), seconds.
fn schedstat(text: &str) -> Option<(f64, f64)> {
    let mut words = text.split_whitespace();
    let own: u64 = words.next()?.parse().ok()?;
    let delay: u64 = words.next()?.parse().ok()?;
    Some((own as f64 * 1e-9, delay as f64 * 1e-9))
}

/// Blocks until child `pid` has exited, without reaping it.
pub(crate) fn wait_exited_no_reap(pid: i32) -> io::Result<()> {
    loop {
        // SAFETY: siginfo_t is plain old data, zeroed is valid; waitid writes into it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: valid pointer; P_PID with our own child's pid.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Sends `signal` to the process group led by `pgid`; errors (e.g. already gone) are ignored.
pub(crate) fn kill_group(pgid: i32, signal: i32) {
    if pgid > 0 {
        // SAFETY: kill has no memory-safety preconditions; a negative pid names a process group.
        unsafe {
            libc::kill(-pgid, signal);
        }
    }
}

/// Decodes a raw wait status into (exit code, signal).
pub(crate) fn decode(status: i32) -> (Option<i32>, Option<i32>) {
    if libc::WIFEXITED(status) {
        (Some(libc::WEXITSTATUS(status)), None)
    } else if libc::WIFSIGNALED(status) {
        (None, Some(libc::WTERMSIG(status)))
    } else {
        (None, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_high_water_mark_is_read_in_bytes() {
        let status = "Name:\tcat\nVmPeak:\t  8192 kB\nVmHWM:\t    1024 kB\nVmRSS:\t 512 kB\n";
        assert_eq!(vm_hwm(status), Some(1024 * 1024));
        assert_eq!(vm_hwm("VmHWM:\t 12 MB\n"), None);
        assert_eq!(vm_hwm("Name:\tcat\n"), None);
        // This process's own: known on Linux, and not above getrusage's.
        let own = own_peak_rss();
        assert!(own > 0 && own < u64::MAX);
    }
}
