//! rigor's own result files (version 2, version 1 migrated, torn running files).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(mut r) = rigor_store::parse(std::path::Path::new("f.json"), text) {
            rigor_app::analysis::analyze_all(&mut r, &Default::default());
        }
    }
});
