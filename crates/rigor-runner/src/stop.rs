//! Cooperative stopping: Ctrl-C (or any caller) asks the experiment to stop; the running child is
//! terminated and the scheduler ends after recording what was already measured.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// A cloneable handle shared by the signal handler, the scheduler and the executor.
#[derive(Debug, Clone, Default)]
pub struct StopSignal {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    requested: AtomicBool,
    child_group: AtomicI32,
}

impl StopSignal {
    /// A handle with no stop requested.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the experiment to stop and terminates the running child's process group, if any.
    pub fn request(&self) {
        self.inner.requested.store(true, Ordering::SeqCst);
        let pgid = self.inner.child_group.load(Ordering::SeqCst);
        crate::process::terminate_group(pgid);
    }

    /// Whether a stop was requested.
    pub fn is_requested(&self) -> bool {
        self.inner.requested.load(Ordering::SeqCst)
    }

    /// The process group a stop terminates: a child spawned in a group of its own (its pid),
    /// `0` once it is reaped. A stop requested before the group was set terminates it now.
    pub fn set_child(&self, pgid: i32) {
        self.inner.child_group.store(pgid, Ordering::SeqCst);
        if pgid != 0 && self.is_requested() {
            crate::process::terminate_group(pgid);
        }
    }
}
