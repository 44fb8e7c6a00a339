//! The sample protocol's samples file (one JSON object per line: times and metrics).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = rigor_protocol::read_samples(text);
    }
});
