//! Command lines: the shell-syntax scan and the parsing it decides (through `sh`, or split into
//! words), as rigor does without `--shell`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = rigor_runner::shell_syntax::find(text);
        let (auto, _, _) = rigor_app::settings::expand::shell(None, &[], false);
        let _ = auto.parse(text);
    }
});
