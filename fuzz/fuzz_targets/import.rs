//! Every importer: the first byte picks the format (or sniffing), the rest is the file's bytes
//! (gzip-compressed ones are decompressed first, as a file is read); what parses is analysed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigor_store::import::{self, Format};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let format = Format::ALL.get(pick as usize % (Format::ALL.len() + 1)).copied();
    // As a file is read: gzip (by its magic bytes) decompressed, then the text parsed.
    if let Ok(mut i) = import::parse_bytes(std::path::Path::new("f"), rest.to_vec(), format) {
        rigor_app::analysis::analyze_all(&mut i.result, &Default::default());
    }
});
