//! Every importer: the first byte picks the format (or sniffing), the rest is the file; what
//! parses is analysed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigor_store::import::{self, Format};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let format = Format::ALL.get(pick as usize % (Format::ALL.len() + 1)).copied();
    if let Ok(mut i) = import::parse(std::path::Path::new("f"), text, format) {
        rigor_app::analysis::analyze_all(&mut i.result, &Default::default());
    }
});
