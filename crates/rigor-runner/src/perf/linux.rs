//! The system call behind [`super`]: `perf_event_open`, through `perf-event-open-sys`, whose
//! `perf_event_attr` is generated from the kernel's headers (rather than a hand-written copy of
//! its layout and bit fields). The one unsafe call is here, wrapped in a safe function.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{FromRawFd, OwnedFd};

use perf_event_open_sys as sys;
use perf_event_open_sys::bindings::perf_event_attr;
use rigor_units::MetricValues;

use super::{Counter, CounterError};

/// The attributes `counter` is opened with: disabled, and enabled by an `exec` (rigor never
/// calls `exec`, so its own thread is never counted; a child that inherited the counter is
/// counted from its `exec` on), inherited by every process and thread started after it is
/// opened, user space only (what `perf_event_paranoid` 2 allows an unprivileged user), read with
/// the times it was enabled and running (so a multiplexed count is seen).
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

/// Opens `counter` on the calling thread (pid 0, any CPU), close-on-exec.
fn open(counter: Counter) -> Result<File, CounterError> {
    let mut attr = attributes(counter);
    // SAFETY: `attr` is a valid, initialized perf_event_attr whose `size` is its own size; the
    // system call reads it and returns a new descriptor or -1.
    let fd = unsafe {
        sys::perf_event_open(
            &mut attr,
            0,
            -1,
            -1,
            libc::c_ulong::from(sys::bindings::PERF_FLAG_FD_CLOEXEC),
        )
    };
    if fd < 0 {
        let errno = io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO);
        return Err(CounterError::open_failed(counter, errno));
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// See [`super::probe`].
pub(super) fn probe(counter: Counter) -> Result<(), CounterError> {
    open(counter).map(drop)
}

/// Counters of the next process the calling thread starts.
#[derive(Debug)]
pub(crate) struct Counting {
    counters: Vec<(Counter, File)>,
}

impl Counting {
    /// Opens `counters` (each once) on the calling thread, disabled: the process this thread
    /// spawns next inherits them and its `exec` enables them. Spawn it from this thread, then
    /// [`Counting::read`] once it is reaped.
    pub(crate) fn start(counters: &[Counter]) -> Result<Self, CounterError> {
        let mut open_ones: Vec<(Counter, File)> = Vec::with_capacity(counters.len());
        for &c in counters {
            if !open_ones.iter().any(|(o, _)| *o == c) {
                open_ones.push((c, open(c)?));
            }
        }
        Ok(Self {
            counters: open_ones,
        })
    }

    /// The counts, read once the command has been reaped (the kernel folds an exiting process's
    /// counts into the counter it inherited, before its parent can reap it).
    pub(crate) fn read(self) -> Result<BTreeMap<String, MetricValues>, CounterError> {
        super::metrics(self.raw()?)
    }

    /// Each counter's (count, nanoseconds enabled, nanoseconds running).
    fn raw(self) -> Result<Vec<(Counter, [u64; 3])>, CounterError> {
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
        Ok(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rigor's own thread holds the counters but never calls `exec`: whatever it does is not
    /// counted (only a child's `exec` enables its inherited copy).
    #[test]
    fn rigor_itself_is_not_counted() {
        let counting = Counting::start(&[Counter::TaskClock, Counter::TaskClock]).unwrap();
        assert_eq!(counting.counters.len(), 1, "each counter once");
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        assert_eq!(counting.raw().unwrap(), [(Counter::TaskClock, [0, 0, 0])]);
    }
}
