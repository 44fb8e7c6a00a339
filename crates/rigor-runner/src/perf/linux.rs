//! The system calls behind [`super`]: `perf_event_open` (through `perf-event-open-sys`, whose
//! `perf_event_attr` is generated from the kernel's headers), a socket pair, and handing the
//! counters' descriptors from the child to rigor with `SCM_RIGHTS`. Every unsafe call is here,
//! each wrapped in a safe function; the child's side runs between `fork` and `exec`, where only
//! async-signal-safe calls are allowed: raw system calls and arithmetic on stack buffers, no
//! allocation, no lock.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;

use perf_event_open_sys as sys;
use perf_event_open_sys::bindings::perf_event_attr;
use rigor_units::MetricValues;

use super::{Counter, CounterError};

/// The most counters counted at once (each [`Counter`] once).
const MAX_COUNTERS: usize = Counter::ALL.len();

/// Room for the control message carrying [`MAX_COUNTERS`] descriptors (`CMSG_SPACE` of them is
/// 32 bytes on 64-bit Linux; 128 leaves room on every layout), aligned as `cmsghdr` needs.
type ControlBuffer = [u64; 16];

/// The attributes `counter` is opened with: disabled until the process calls `exec` (or, in
/// [`probe`], never enabled), inherited by every process and thread it starts, user space only
/// (what `perf_event_paranoid` 2 allows an unprivileged user), read with the times it was
/// enabled and running (so a multiplexed count is seen).
fn attributes(counter: Counter) -> perf_event_attr {
    let mut a = perf_event_attr::default();
    let (kind, config) = match counter {
        Counter::Instructions => (
            sys::bindings::PERF_TYPE_HARDWARE,
            sys::bindings::PERF_COUNT_HW_INSTRUCTIONS,
        ),
        Counter::Cycles => (
            sys::bindings::PERF_TYPE_HARDWARE,
            sys::bindings::PERF_COUNT_HW_CPU_CYCLES,
        ),
        Counter::TaskClock => (
            sys::bindings::PERF_TYPE_SOFTWARE,
            sys::bindings::PERF_COUNT_SW_TASK_CLOCK,
        ),
    };
    a.type_ = kind;
    a.config = u64::from(config);
    a.size = std::mem::size_of::<perf_event_attr>() as u32;
    a.read_format = u64::from(
        sys::bindings::PERF_FORMAT_TOTAL_TIME_ENABLED
            | sys::bindings::PERF_FORMAT_TOTAL_TIME_RUNNING,
    );
    a.set_disabled(1);
    a.set_enable_on_exec(1);
    a.set_inherit(1);
    a.set_exclude_kernel(1);
    a.set_exclude_hv(1);
    a
}

/// Opens a counter on process `pid` (0: the calling one), any CPU, close-on-exec; the raw
/// descriptor or the error number. Async-signal-safe.
fn open_raw(attr: &perf_event_attr, pid: libc::pid_t) -> Result<RawFd, i32> {
    let mut attr = *attr;
    // SAFETY: `attr` is a valid, initialized perf_event_attr whose `size` is its own size; the
    // system call reads it and returns a new descriptor or -1.
    let fd = unsafe {
        sys::perf_event_open(
            &mut attr,
            pid,
            -1,
            -1,
            libc::c_ulong::from(sys::bindings::PERF_FLAG_FD_CLOEXEC),
        )
    };
    if fd < 0 { Err(errno()) } else { Ok(fd) }
}

/// The calling thread's last error number (reads `errno`: async-signal-safe, no allocation).
fn errno() -> i32 {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// See [`super::probe`].
pub(super) fn probe(counter: Counter) -> Result<(), CounterError> {
    let fd =
        open_raw(&attributes(counter), 0).map_err(|e| CounterError::open_failed(counter, e))?;
    // SAFETY: `fd` was just opened and is owned by nothing else.
    drop(unsafe { OwnedFd::from_raw_fd(fd) });
    Ok(())
}

/// Counters asked of a command about to be spawned: the socket their descriptors come back on.
#[derive(Debug)]
pub(crate) struct Pending {
    counters: Vec<Counter>,
    /// rigor's end.
    ours: OwnedFd,
    /// The child's end, closed here once the child has it.
    theirs: Option<OwnedFd>,
}

/// The counters of a running (or reaped) command.
#[derive(Debug)]
pub(crate) struct Counting {
    counters: Vec<(Counter, File)>,
}

impl Pending {
    /// Makes `cmd` open `counters` on itself just before `exec` and hand them to rigor. Spawn
    /// `cmd`, then call [`Pending::received`] (or, when the spawn failed,
    /// [`Pending::failure`]).
    pub(crate) fn install(cmd: &mut Command, counters: &[Counter]) -> Result<Self, CounterError> {
        let mut unique: Vec<Counter> = Vec::with_capacity(MAX_COUNTERS);
        for &c in counters {
            if !unique.contains(&c) {
                unique.push(c);
            }
        }
        let first = unique.first().copied().unwrap_or(Counter::TaskClock);
        let socket_failed = |errno| CounterError::Os {
            counter: first,
            what: "a socket to hand the counters to rigor",
            errno,
        };
        let (ours, theirs) = socket_pair().map_err(socket_failed)?;
        let n = unique.len();
        let mut attrs = [perf_event_attr::default(); MAX_COUNTERS];
        for (a, &c) in attrs.iter_mut().zip(&unique) {
            *a = attributes(c);
        }
        let child_end = theirs.as_raw_fd();
        let child = move || -> io::Result<()> {
            // Between fork and exec: no allocation, only system calls on stack buffers.
            let mut fds: [RawFd; MAX_COUNTERS] = [-1; MAX_COUNTERS];
            let mut errors: [i32; MAX_COUNTERS] = [0; MAX_COUNTERS];
            let mut failed = 0;
            for i in 0..n {
                match open_raw(&attrs[i], 0) {
                    Ok(fd) => fds[i] = fd,
                    Err(e) => {
                        errors[i] = e;
                        failed = e;
                    }
                }
            }
            let sent = if failed == 0 {
                send(child_end, &errors[..n], &fds[..n])
            } else {
                send(child_end, &errors[..n], &[])
            };
            for &fd in &fds[..n] {
                if fd >= 0 {
                    close(fd);
                }
            }
            match (failed, sent) {
                (0, Ok(())) => Ok(()),
                (0, Err(e)) => Err(io::Error::from_raw_os_error(e)),
                (e, _) => Err(io::Error::from_raw_os_error(e)),
            }
        };
        // SAFETY: the closure runs in the child between fork and exec. It only calls
        // perf_event_open, sendmsg and close through libc on stack buffers and on descriptors it
        // owns (its counters) or that stay open until the parent closes its copy after the spawn
        // (`theirs`): all async-signal-safe, no allocation, no lock.
        unsafe {
            cmd.pre_exec(child);
        }
        Ok(Self {
            counters: unique,
            ours,
            theirs: Some(theirs),
        })
    }

    /// After a successful spawn: the counters the child handed over, now counting it.
    pub(crate) fn received(mut self) -> Result<Counting, CounterError> {
        self.theirs = None;
        let first = self.counters.first().copied().unwrap_or(Counter::TaskClock);
        let lost = |errno| CounterError::Os {
            counter: first,
            what: "receiving the counters from the command",
            errno,
        };
        let (errors, fds) = receive(self.ours.as_raw_fd(), self.counters.len()).map_err(lost)?;
        if let Some((&c, &e)) = self.counters.iter().zip(&errors).find(|(_, e)| **e != 0) {
            return Err(CounterError::open_failed(c, e));
        }
        if errors.len() != self.counters.len() || fds.len() != self.counters.len() {
            return Err(lost(libc::EPROTO));
        }
        Ok(Counting {
            counters: self
                .counters
                .iter()
                .copied()
                .zip(fds.into_iter().map(File::from))
                .collect(),
        })
    }

    /// After a failed spawn: the counter error that made it fail, if one did.
    pub(crate) fn failure(mut self) -> Option<CounterError> {
        self.theirs = None;
        let (errors, _) = receive(self.ours.as_raw_fd(), self.counters.len()).ok()?;
        self.counters
            .iter()
            .zip(&errors)
            .find(|(_, e)| **e != 0)
            .map(|(&c, &e)| CounterError::open_failed(c, e))
    }
}

impl Counting {
    /// The counts, read once the command has been reaped (its children's counts are then
    /// folded into them).
    pub(crate) fn read(self) -> Result<BTreeMap<String, MetricValues>, CounterError> {
        let mut raw = Vec::with_capacity(self.counters.len());
        for (counter, mut file) in self.counters {
            let mut buf = [0u8; 24];
            file.read_exact(&mut buf).map_err(|e| CounterError::Os {
                counter,
                what: "reading the counter",
                errno: e.raw_os_error().unwrap_or(libc::EIO),
            })?;
            let word = |i: usize| {
                let mut w = [0u8; 8];
                w.copy_from_slice(&buf[i * 8..i * 8 + 8]);
                u64::from_ne_bytes(w)
            };
            raw.push((counter, [word(0), word(1), word(2)]));
        }
        super::metrics(raw)
    }
}

/// A connected pair of Unix sockets that keep message boundaries, close-on-exec.
fn socket_pair() -> Result<(OwnedFd, OwnedFd), i32> {
    let mut fds: [RawFd; 2] = [-1; 2];
    // SAFETY: `fds` has room for the two descriptors socketpair writes.
    let r = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if r != 0 {
        return Err(errno());
    }
    // SAFETY: both descriptors were just opened and are owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Closes a descriptor (async-signal-safe).
fn close(fd: RawFd) {
    // SAFETY: `fd` is a descriptor the caller opened and no one else uses.
    unsafe {
        libc::close(fd);
    }
}

/// Sends `errors` as the message and `fds` as `SCM_RIGHTS` over `socket`. Async-signal-safe: no
/// allocation.
fn send(socket: RawFd, errors: &[i32], fds: &[RawFd]) -> Result<(), i32> {
    let mut control: ControlBuffer = [0; 16];
    let mut iov = libc::iovec {
        iov_base: errors.as_ptr() as *mut libc::c_void,
        iov_len: std::mem::size_of_val(errors),
    };
    // SAFETY: msghdr is plain old data; zeroed is a valid empty header.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if !fds.is_empty() {
        let bytes = std::mem::size_of_val(fds) as u32;
        // SAFETY: CMSG_SPACE and CMSG_LEN are arithmetic.
        let (space, len) = unsafe { (libc::CMSG_SPACE(bytes), libc::CMSG_LEN(bytes)) };
        if space as usize > std::mem::size_of_val(&control) {
            return Err(libc::E2BIG);
        }
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        // SAFETY: the control buffer is aligned for cmsghdr and holds `space` bytes, so the first
        // header and its `bytes` of data fit; the descriptors are copied into the data.
        unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = len as _;
            std::ptr::copy_nonoverlapping(
                fds.as_ptr().cast::<u8>(),
                libc::CMSG_DATA(cmsg),
                bytes as usize,
            );
        }
    }
    loop {
        // SAFETY: `msg` points to live buffers set up above.
        let r = unsafe { libc::sendmsg(socket, &msg, libc::MSG_NOSIGNAL) };
        if r >= 0 {
            return Ok(());
        }
        let e = errno();
        if e != libc::EINTR {
            return Err(e);
        }
    }
}

/// Receives one message of at most `n` error numbers and the descriptors it carries (made
/// close-on-exec), without waiting: the child sent it before its `exec`, which the spawn waited
/// for.
fn receive(socket: RawFd, n: usize) -> Result<(Vec<i32>, Vec<OwnedFd>), i32> {
    let mut errors = [0i32; MAX_COUNTERS];
    let mut control: ControlBuffer = [0; 16];
    let mut iov = libc::iovec {
        iov_base: errors.as_mut_ptr().cast(),
        iov_len: std::mem::size_of_val(&errors),
    };
    // SAFETY: msghdr is plain old data; zeroed is a valid empty header.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control) as _;
    let got = loop {
        // SAFETY: `msg` points to live buffers of the sizes it states.
        let r = unsafe {
            libc::recvmsg(
                socket,
                &mut msg,
                libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC,
            )
        };
        if r >= 0 {
            break r as usize;
        }
        let e = errno();
        if e != libc::EINTR {
            return Err(e);
        }
    };
    let mut fds = Vec::new();
    // SAFETY: after recvmsg, the control buffer holds `msg_controllen` bytes of well-formed
    // headers; each SCM_RIGHTS header's data is an array of descriptors now owned by this
    // process.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(cmsg);
                let bytes = (*cmsg).cmsg_len as usize - (data as usize - cmsg as usize);
                for i in 0..bytes / std::mem::size_of::<RawFd>() {
                    let fd = std::ptr::read_unaligned(data.cast::<RawFd>().add(i));
                    fds.push(OwnedFd::from_raw_fd(fd));
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    if msg.msg_flags & (libc::MSG_CTRUNC | libc::MSG_TRUNC) != 0 {
        return Err(libc::EMSGSIZE);
    }
    let count = (got / std::mem::size_of::<i32>()).min(n);
    Ok((errors[..count].to_vec(), fds))
}
