//! A short fuzz smoke of the option parsers added for hyperfine 1.20's command line
//! (`--ignore-failure=CODES`, `--output=null|pipe|inherit|FILE`): any text gives a value or
//! clap's error, never a panic (docs/fuzzing.md).

use clap::Parser;
use proptest::prelude::*;
use rigor_cli::{Cli, IgnoredExits, OutputTarget, parse_ignore_failure, parse_output};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Text made of what exit-code lists and paths are made of.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(&b"0123456789,- ./nulpipe\xc3\xa9x"[..]),
        0..20,
    )
    .prop_map(|b| String::from_utf8_lossy(&b).into_owned())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn ignore_failure_values_never_panic(s in text()) {
        if let Ok(IgnoredExits::Codes(codes)) = parse_ignore_failure(&s) {
            prop_assert!(!codes.is_empty() && !codes.contains(&0));
        }
        let _ = Cli::try_parse_from(["rigor", "run", &format!("--ignore-failure={s}"), "x"]);
    }

    #[test]
    fn output_values_never_panic(s in text()) {
        if let Ok(OutputTarget::File(path)) = parse_output(&s) {
            prop_assert!(path.components().count() > 1);
        }
        let _ = Cli::try_parse_from(["rigor", "run", "--output", &s, "x"]);
    }
}
