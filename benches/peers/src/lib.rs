//! Functions of known cost for the side-by-side measurements: `spin(n)` runs n steps of a
//! dependent xorshift-multiply chain (each step waits for the last; unlike an affine recurrence,
//! the compiler cannot fold several steps into one).

use std::hint::black_box;

/// n steps of a xorshift-multiply chain: each depends on the last, so their latencies add up.
/// Never inlined: every harness and the reference call the very same machine code (inlined
/// copies are compiled differently in each binary and differed by 5 times here).
#[inline(never)]
pub fn spin(n: u64) -> u64 {
    let mut x = black_box(n) | 1;
    for _ in 0..n {
        x = (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    }
    x
}

/// The step counts to measure, from `PEERS_SIZES` (label=n pairs: `1ns=1,10ns=7`), set by the
/// script after calibration; a default for a quick look.
pub fn sizes() -> Vec<(String, u64)> {
    let text = std::env::var("PEERS_SIZES")
        .unwrap_or_else(|_| "1ns=0,10ns=5,100ns=60,1us=600,10us=6000".into());
    text.split(',')
        .filter_map(|pair| {
            let (label, n) = pair.split_once('=')?;
            Some((label.to_string(), n.trim().parse().ok()?))
        })
        .collect()
}

/// The A/A sizes (`PEERS_AA`, same form).
pub fn aa_sizes() -> Vec<(String, u64)> {
    let text = std::env::var("PEERS_AA").unwrap_or_else(|_| "10ns=5,1us=600".into());
    text.split(',')
        .filter_map(|pair| {
            let (label, n) = pair.split_once('=')?;
            Some((label.to_string(), n.trim().parse().ok()?))
        })
        .collect()
}
