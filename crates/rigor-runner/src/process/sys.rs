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
    })
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
