//! The one escaping of each output, for every name and label that comes from the user or a file
//! (benchmark names, commands, version labels, branches, machines): the terminal, Markdown
//! (GitHub-flavoured, in tables and in prose), AsciiDoc, org-mode and HTML. Every rendering that
//! writes such a text into one of these outputs goes through the function of that output here,
//! once; nothing else escapes. (CSV cells are neutralised where CSV is written, in
//! `rigor-store`.)
//!
//! The rules, output by output:
//!
//! - **Every output**: control characters (C0 but the newline and tab a renderer writes itself,
//!   DEL, C1) and the invisible bidirectional controls that reorder what a reader sees (U+202A–
//!   U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) are written visibly, as `\x1b` or
//!   `\u{202e}` ([`visible`]); in markups a newline is `\n` too, so it cannot split a row.
//! - **Terminal** ([`terminal`]): that alone, keeping the newlines and tabs of rigor's own text,
//!   so no name can move the cursor, retitle the window (OSC), or hide text (CR).
//! - **Markdown** ([`markdown_code`], in a table [`markdown_cell`]): a code span whose fence is
//!   longer than any run of backticks in the text (padded by a space when the text holds one),
//!   so HTML, links and emphasis inside stay literal; in a GFM table `|` is
//!   `\|` (which GFM reads as `|` inside a code span too).
//! - **AsciiDoc** ([`asciidoc`]): monospace with every ASCII punctuation character written as a
//!   numeric character reference (`&#124;`), so neither passthroughs (`+++…+++`, `pass:[…]`),
//!   macros, attribute references nor table separators can form, and every character shows as
//!   typed.
//! - **org-mode** ([`org`]): verbatim (`=name=`) with a zero-width space (org's own escape)
//!   after every `=` inside that could close it, so nothing closes it early; a text with a `|` (only the entity
//!   `\vert{}` stands for one in a table, and not in verbatim) is plain text with a zero-width
//!   space after every character that can open or close markup (`@@html:…@@`, links, emphasis,
//!   macros, LaTeX): the text shows as typed.
//! - **HTML** ([`html`]): control characters and bidirectional controls written visibly (but
//!   newlines and tabs), and the five characters of markup as entities (in text and quoted
//!   attributes alike).

use std::borrow::Cow;
use std::fmt::Write;

pub use crate::html::escape::escape as html;

/// Whether `c` is written visibly rather than as itself: a control character or an invisible
/// bidirectional control.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
        )
}

/// `c` as it is shown: `\n`, `\r`, `\t`, `\x1b`, `\u{202e}`.
fn shown(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` with control characters and bidirectional controls written visibly, but those
/// `kept` (a renderer's own newlines and tabs).
fn visible_but<'a>(text: &'a str, kept: &[char]) -> Cow<'a, str> {
    if !text.chars().any(|c| hidden(c) && !kept.contains(&c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c) && !kept.contains(&c) {
            shown(c, &mut out);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A name as one line: every control character (newlines too) and bidirectional control
/// written visibly (`\n`, `\x1b`, `\u{202e}`). Every markup's escaping starts with it.
///
/// ```
/// use rigor_report::escape::visible;
/// assert_eq!(visible("a\nb\u{1b}[31m\u{202e}"), "a\\nb\\x1b[31m\\u{202e}");
/// assert_eq!(visible("plain — µs"), "plain — µs");
/// ```
pub fn visible(text: &str) -> Cow<'_, str> {
    visible_but(text, &[])
}

/// `text` with control characters and bidirectional controls written visibly, but for
/// newlines and tabs: the terminal's rule, and the first step of [`html`].
pub(crate) fn visible_keeping_layout(text: &str) -> Cow<'_, str> {
    visible_but(text, &['\n', '\t'])
}

/// Text for the terminal (all that rigor prints for people): control characters and
/// bidirectional controls written visibly, but for the newlines and tabs that lay the text out.
/// rigor writes no escape sequences of its own in this text (the progress bar draws itself).
///
/// ```
/// use rigor_report::escape::terminal;
/// assert_eq!(terminal("Benchmark 1: a\u{1b}]0;pwned\u{7}\rb\n"), "Benchmark 1: a\\x1b]0;pwned\\x07\\rb\n");
/// ```
pub fn terminal(text: &str) -> Cow<'_, str> {
    visible_keeping_layout(text)
}

/// A Markdown code span of `text` (in prose): a fence of more backticks than any run in the
/// text, padded by a space each side when the text holds a backtick (CommonMark strips one
/// space each side), so nothing inside is markup.
///
/// ```
/// use rigor_report::escape::markdown_code;
/// assert_eq!(markdown_code("<script>"), "`<script>`");
/// assert_eq!(markdown_code("a`b"), "`` a`b ``");
/// assert_eq!(markdown_code("`x`"), "`` `x` ``");
/// ```
pub fn markdown_code(text: &str) -> String {
    code_span(&visible(text))
}

/// A Markdown code span for a GFM table cell: [`markdown_code`] with `|` as `\|`, which GFM
/// takes for `|` inside code spans in tables (a bare one would end the cell).
///
/// ```
/// use rigor_report::escape::markdown_cell;
/// assert_eq!(markdown_cell("a|b"), "`a\\|b`");
/// assert_eq!(markdown_cell("echo `date`"), "`` echo `date` ``");
/// ```
pub fn markdown_cell(text: &str) -> String {
    code_span(&visible(text).replace('|', "\\|"))
}

/// A code span around `text` (already one line).
fn code_span(text: &str) -> String {
    let run = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(run + 1);
    let pad = if text.contains('`') || text.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// Characters that make AsciiDoc markup inside a line: table cells (`|`), passthroughs (`+`),
/// formatting marks, attribute references (`{…}`), macros and cross references (`name:…[…]`,
/// `<<…>>`), entities (`&`), backslash escapes, smart quotes and the `(C)` replacements.
const ASCIIDOC_MARKS: &[char] = &[
    '|', '+', '`', '*', '_', '#', '^', '~', '{', '}', '[', ']', '<', '>', '&', '\\', ':', '\'',
    '"', '(', ')',
];

/// AsciiDoc monospace of `text`, every character that can make markup a numeric character
/// reference (AsciiDoc renders `&#124;` as `|`) — and `-`, `.`, `=` where a replacement would
/// turn them into a dash, an ellipsis or an arrow (`--`, `...`, `->`, `=>`) — so no
/// passthrough, macro, attribute reference, formatting mark or cell separator can form, and
/// every character shows as typed. The rest (`=`, `,`, `%`, `.`, `/`, `-` alone) stays readable.
///
/// ```
/// use rigor_report::escape::asciidoc;
/// assert_eq!(asciidoc("a+b"), "`a&#43;b`");
/// assert_eq!(asciidoc("pass:[x]"), "`pass&#58;&#91;x&#93;`");
/// assert_eq!(asciidoc("mean=1ms,execution=1%"), "`mean=1ms,execution=1%`");
/// assert_eq!(asciidoc("./a --x"), "`./a &#45;&#45;x`");
/// ```
pub fn asciidoc(text: &str) -> String {
    let text = visible(text);
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::from("`");
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let replaced = match c {
            '-' => next == Some('-') || next == Some('>') || prev == Some('-'),
            '.' => next == Some('.') || prev == Some('.'),
            '=' => next == Some('>'),
            _ => false,
        };
        if ASCIIDOC_MARKS.contains(&c) || replaced {
            let _ = write!(out, "&#{};", c as u32);
        } else {
            out.push(c);
        }
    }
    out.push('`');
    out
}

/// Characters after which org-mode may see markup: emphasis and verbatim marks, export
/// snippets (`@@html:…@@`), links and footnotes (`[[…]]`, `[fn:…]`), macros (`{{{…}}}`),
/// targets and timestamps (`<<…>>`, `<…>`), entities and LaTeX (`\alpha`, `$…$`), sub- and
/// superscripts.
const ORG_MARKS: &[char] = &[
    '*', '/', '_', '=', '~', '+', '@', '[', ']', '{', '}', '<', '>', '\\', '$', '^', '#', ':',
];

/// org-mode text of `text`, shown as typed and never as markup. As verbatim (`=name=`), where
/// nothing is markup but the closing `=`: a zero-width space (org's escape character) follows
/// every `=` inside that a blank, punctuation or the end follows (the only ones that could close
/// it), so none closes it. A text verbatim cannot hold — a `|` (which ends a table
/// cell, and which only the entity `\vert{}` can stand for, outside verbatim), blanks at its
/// ends, nothing — is plain text with a zero-width space after every character that can open or
/// close markup, and `|` as `\vert{}`.
///
/// ```
/// use rigor_report::escape::org;
/// assert_eq!(org("parse"), "=parse=");
/// assert_eq!(org("a=b"), "=a=b=");
/// assert_eq!(org("x= y"), "=x=\u{200B} y=");
/// assert_eq!(org("a|b"), "a\\vert{}b");
/// assert_eq!(org("@@html:x@@|"), "@\u{200B}@\u{200B}html:\u{200B}x@\u{200B}@\u{200B}\\vert{}");
/// ```
pub fn org(text: &str) -> String {
    let text = visible(text);
    let verbatim = !text.is_empty()
        && !text.contains('|')
        && !text.starts_with(char::is_whitespace)
        && !text.ends_with(char::is_whitespace);
    let mut out = String::new();
    if verbatim {
        out.push('=');
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            out.push(c);
            // Only a `=` before a blank, punctuation or the end can close verbatim.
            if c == '=' && !chars.peek().is_some_and(|n| n.is_alphanumeric()) {
                out.push('\u{200B}');
            }
        }
        out.push('=');
        return out;
    }
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\vert{}"),
            c if ORG_MARKS.contains(&c) => {
                out.push(c);
                out.push('\u{200B}');
            }
            c => out.push(c),
        }
    }
    out
}

/// The text [`org`] wrote, as it shows (the escapes taken out): for tests.
#[cfg(test)]
fn org_shown(out: &str) -> String {
    match out.strip_prefix('=').and_then(|o| o.strip_suffix('=')) {
        Some(inner) if out.len() >= 2 => inner.replace('\u{200B}', ""),
        _ => out.replace("\\vert{}", "|").replace('\u{200B}', ""),
    }
}

/// Whether an [`org`] text is safe: verbatim that nothing closes early, or plain text with no
/// snippet, link, macro, target or bare `|`.
#[cfg(test)]
pub(crate) fn org_safe(out: &str) -> bool {
    match out.strip_prefix('=').and_then(|o| o.strip_suffix('=')) {
        Some(inner) if out.len() >= 2 => {
            !inner.contains('|')
                && inner.char_indices().all(|(i, c)| {
                    c != '='
                        || inner[i + 1..].starts_with('\u{200B}')
                        || inner[i + 1..].starts_with(char::is_alphanumeric)
                })
        }
        _ => ["@@", "[[", "|", "{{{", "<<"]
            .iter()
            .all(|bad| !out.contains(bad)),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Names that try to break out of each output: HTML, links, code spans, table rows and
    /// cells, AsciiDoc passthroughs and macros, org snippets, terminal sequences, bidi.
    pub(crate) const HOSTILE: &[&str] = &[
        "<script>alert(1)</script>",
        "[x](javascript:alert(1))",
        "a`b` <b>c</b>",
        "``",
        "row\n| injected | row |",
        "a|b",
        "+++<script>alert(1)</script>+++",
        "pass:[<script>alert(1)</script>]",
        "{attribute} link:javascript:alert(1)[x]",
        "x= @@html:<script>alert(1)</script>@@ =y",
        "[[javascript:alert(1)][x]]",
        "\u{1b}[2J\u{1b}]0;pwned\u{7}",
        "\u{1b}]8;;https://evil.example\u{1b}\\link\u{1b}]8;;\u{1b}\\",
        "safe\rEVIL",
        "abc\u{202e}txt.exe\u{2066}",
        "\u{9b}31m",
        "=HYPERLINK(\"https://evil.example\")",
    ];

    /// What must never reach each output raw.
    fn dangerous(out: &str) -> Option<&'static str> {
        let raw = [
            ("ESC", '\u{1b}'),
            ("BEL", '\u{7}'),
            ("CR", '\r'),
            ("newline", '\n'),
            ("CSI", '\u{9b}'),
            ("RLO", '\u{202e}'),
            ("LRI", '\u{2066}'),
        ];
        raw.iter()
            .find(|(_, c)| out.contains(*c))
            .map(|(name, _)| *name)
    }

    #[test]
    fn terminal_shows_every_control_and_keeps_layout() {
        for name in HOSTILE {
            let line = format!("Benchmark 1: {name}\n");
            let shown = terminal(&line);
            // The terminal keeps newlines (they lay rigor's text out).
            assert!(dangerous(&shown.replace('\n', " ")).is_none(), "{shown:?}");
            assert!(shown.ends_with('\n'));
        }
        assert_eq!(terminal("a\tb\n"), "a\tb\n");
        assert!(matches!(terminal("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn markdown_keeps_every_name_in_one_code_span_of_one_cell() {
        for name in HOSTILE {
            for out in [markdown_cell(name), markdown_code(name)] {
                assert_eq!(dangerous(&out), None, "{out:?}");
                let fence = out.len() - out.trim_start_matches('`').len();
                let inner = &out[fence..out.len() - fence];
                assert!(out.ends_with(&"`".repeat(fence)), "{out}");
                // No run of backticks inside is as long as the fence: the span cannot close.
                assert!(inner.split(|c| c != '`').all(|r| r.len() < fence), "{out}");
            }
            let cell = markdown_cell(name);
            assert!(
                !cell.replace("\\|", "").contains('|'),
                "a bare | ends the cell: {cell}"
            );
        }
    }

    #[test]
    fn asciidoc_leaves_no_passthrough_macro_or_separator() {
        for name in HOSTILE {
            let out = asciidoc(name);
            assert_eq!(dangerous(&out), None, "{out:?}");
            let inner = &out[1..out.len() - 1];
            for bad in ["+++", "pass:", "|", "`", "{", "[", "<", "link:"] {
                assert!(!inner.contains(bad), "{bad} in {out}");
            }
        }
        assert_eq!(asciidoc("a|b"), "`a&#124;b`");
    }

    #[test]
    fn org_leaves_no_snippet_link_or_separator() {
        for name in HOSTILE {
            let out = org(name);
            assert_eq!(dangerous(&out), None, "{out:?}");
            assert!(org_safe(&out), "{out}");
            // Taking the escapes out gives the name back (newlines and controls shown).
            assert_eq!(org_shown(&out), visible(name), "{out}");
        }
    }

    #[test]
    fn html_escapes_markup() {
        for name in HOSTILE {
            let out = html(name);
            assert!(!out.contains('<') && !out.contains('"'), "{out}");
        }
    }

    proptest! {
        #[test]
        fn escaped_output_never_holds_a_dangerous_sequence(
            name in "(.|[\u{0}-\u{1f}\u{7f}-\u{9f}\u{202a}-\u{202e}\u{2066}-\u{2069}`|+\\[\\]@=<>{}:])*",
        ) {
            let t = terminal(&name);
            prop_assert!(!t.chars().any(|c| hidden(c) && c != '\n' && c != '\t'));
            for out in [markdown_cell(&name), markdown_code(&name), asciidoc(&name), org(&name)] {
                prop_assert_eq!(dangerous(&out), None, "{:?}", out);
            }
            let cell = markdown_cell(&name);
            prop_assert!(!cell.replace("\\|", "").contains('|'));
            let fence = cell.len() - cell.trim_start_matches('`').len();
            let inner = &cell[fence..cell.len() - fence];
            prop_assert!(inner.split(|c| c != '`').all(|r| r.len() < fence));
            let adoc = asciidoc(&name);
            let adoc_inner = &adoc[1..adoc.len() - 1];
            prop_assert!(!adoc_inner.contains("+++") && !adoc_inner.contains("pass:"));
            prop_assert!(!adoc_inner.contains('|') && !adoc_inner.contains('`'));
            let o = org(&name);
            prop_assert!(org_safe(&o), "{:?}", o);
            // Zero-width spaces are invisible in the name as in the breaks org's escaping adds,
            // and `org_shown` takes every one out (a name holding one failed here).
            prop_assert_eq!(org_shown(&o), visible(&name).replace('\u{200B}', ""));
        }
    }
}
