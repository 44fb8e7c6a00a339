//! The reference cost of `spin(n)`: K back-to-back calls timed as one batch of at least 50 ms of
//! this thread's CPU time (CLOCK_THREAD_CPUTIME_ID: time other processes take while this one is
//! preempted is not counted, which wall-clock batches of this length cannot avoid on a shared
//! machine), the fastest of 7 batches, divided by K. Prints `n ns` lines for the n given.

use std::hint::black_box;

use rigor_peers::spin;

fn thread_cpu_ns() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

fn batch(n: u64, k: u64) -> f64 {
    let start = thread_cpu_ns();
    for _ in 0..k {
        black_box(spin(black_box(n)));
    }
    thread_cpu_ns() - start
}

fn main() {
    for arg in std::env::args().skip(1) {
        let n: u64 = arg.parse().expect("a step count");
        let mut k = 1;
        while batch(n, k) < 5e7 {
            k *= 2;
        }
        let best = (0..7).map(|_| batch(n, k)).fold(f64::INFINITY, f64::min);
        println!("{n} {}", best / k as f64);
    }
}
