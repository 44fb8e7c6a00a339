//! An opt-in counting global allocator: allocations and bytes per iteration, as BenchmarkTools
//! and divan report them.
//!
//! Install it in the benchmark target and every benchmark's report gains a line with the
//! allocations and bytes allocated per iteration (counted over the timed region only, so
//! `iter_batched`'s set-up is not counted); under rigor, every sample reports them per
//! evaluation as the metrics `allocations` and `allocated-bytes`:
//!
//! ```
//! #[global_allocator]
//! static ALLOC: rigor_bench::CountingAlloc = rigor_bench::CountingAlloc;
//! # fn main() {}
//! ```
//!
//! The counters are process-wide relaxed atomics: one uncontended increment per allocation
//! while it is installed, nothing when it is not.

// A global allocator can only be written with `unsafe`: `GlobalAlloc`'s methods are unsafe to
// implement. Each one forwards its arguments unchanged to `System`, under the same contract.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

/// The system allocator, counting allocations and bytes (see the [module](self) docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAlloc;

/// Counts one allocation of `bytes` (what the allocator does; tests call it directly).
pub(crate) fn count(bytes: usize) {
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    BYTES.fetch_add(bytes as u64, Ordering::Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments, so `System`'s
// guarantees are ours; counting touches only atomics and never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: forwarded under the caller's contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: forwarded under the caller's contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded under the caller's contract.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: forwarded under the caller's contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocation counters at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct AllocSnapshot {
    pub allocations: u64,
    pub bytes: u64,
}

impl AllocSnapshot {
    pub fn now() -> Self {
        Self {
            allocations: ALLOCATIONS.load(Ordering::Relaxed),
            bytes: BYTES.load(Ordering::Relaxed),
        }
    }

    /// What was allocated from `self` to `later`.
    pub fn until(self, later: Self) -> Self {
        Self {
            allocations: later.allocations.wrapping_sub(self.allocations),
            bytes: later.bytes.wrapping_sub(self.bytes),
        }
    }
}

/// Whether [`CountingAlloc`] is this program's global allocator: a test allocation is counted.
pub(crate) fn installed() -> bool {
    let before = AllocSnapshot::now();
    let probe = std::hint::black_box(Box::new(0u64));
    drop(probe);
    before.until(AllocSnapshot::now()).allocations > 0
}

/// Allocations per iteration, from the timed region's counts.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AllocsPerIter {
    /// Allocations (including reallocations) per iteration.
    pub allocations: f64,
    /// Bytes requested per iteration.
    pub bytes: f64,
}
