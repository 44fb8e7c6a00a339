//! The shell-syntax scan against `sh` itself: a command line in which the scan finds no shell
//! syntax is split by `sh` into exactly the words rigor's direct execution splits it into, so
//! running it without a shell is never silently different.

use std::process::Command;

use proptest::prelude::*;
use rigor_runner::shell_syntax;

/// The words `sh` makes of `text` (`set -- TEXT`, then each positional parameter NUL-ended),
/// or `None` when `sh` refuses it.
fn sh_words(text: &str) -> Option<Vec<String>> {
    let script = format!("set -- {text}\nfor w in \"$@\"; do printf '%s\\0' \"$w\"; done");
    let out = Command::new("sh").arg("-c").arg(script).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?;
    Some(
        s.split_terminator('\0')
            .map(str::to_string)
            .collect::<Vec<_>>(),
    )
}

/// Characters of command lines: words, quotes, escapes and every kind of shell syntax.
const ALPHABET: &[char] = &[
    'a', 'b', 'x', '1', '-', '.', '/', '=', 'a', 'b', 'c', 'd', 'e', 'f', ' ', ' ', ' ', '\t',
    '\'', '\'', '\'', '"', '"', '"', '\\', '\\', '$', '{', '}', '(', ')', '|', '&', ';', '<', '>',
    '*', '?', '[', ']', '~', '#', '`', '\n', '%', ',',
];

fn command_line() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHABET), 0..16)
        .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whatever the scan does not call shell syntax, `sh` splits as `shell_words` does.
    #[test]
    fn no_syntax_means_the_same_words(text in command_line()) {
        if shell_syntax::find(&text).is_none()
            && let Ok(words) = shell_words::split(&text)
        {
            // Refused by sh (e.g. a lone quote inside an odd construct) is no mismatch here.
            if let Some(sh) = sh_words(&text) {
                prop_assert_eq!(words, sh, "{:?}", text);
            }
        }
    }

    /// Any text at all: an answer, never a panic.
    #[test]
    fn never_panics(text in "\\PC*") {
        let _ = shell_syntax::find(&text);
    }
}
