//! The long-format CSV reader, with one to three level columns.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let all = ["build", "exec", "iter"];
    let levels: Vec<String> = all[(pick % 3) as usize..].iter().map(|s| s.to_string()).collect();
    let _ = rigor_store::parse_long_csv(
        std::path::Path::new("d.csv"),
        rest,
        &levels,
        "value",
        (pick & 4 != 0).then_some("bench"),
        pick & 8 != 0,
    );
});
