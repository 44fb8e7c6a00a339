//! HTML escaping of user-supplied text.
//!
//! Every string that comes from the user or the machine (names, commands, environment values,
//! diagnoses) goes through [`escape`] or [`Escaped`] before it reaches the page, in text and in
//! attribute values alike, HTML and inline SVG alike.

use std::fmt;

/// Escapes `&`, `<`, `>`, `"` and `'`, which makes `text` safe both as element content and
/// inside a quoted attribute value.
///
/// ```
/// use rigor_report::html::escape::escape;
/// assert_eq!(escape("<a href='x'>&\"</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
/// ```
pub fn escape(text: &str) -> String {
    Escaped(text).to_string()
}

/// Displays the wrapped text escaped, for use in `write!` without an intermediate string.
#[derive(Debug, Clone, Copy)]
pub struct Escaped<'a>(pub &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Control characters and bidirectional controls are written visibly first (as in every
        // output, see `crate::escape`), so no name reorders or hides the text around it.
        let visible = crate::escape::visible_keeping_layout(self.0);
        let mut rest: &str = &visible;
        while let Some(i) = rest.find(['&', '<', '>', '"', '\'']) {
            f.write_str(&rest[..i])?;
            f.write_str(match rest.as_bytes()[i] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            })?;
            rest = &rest[i + 1..];
        }
        f.write_str(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_unchanged() {
        assert_eq!(escape("sleep 0.01 — µs"), "sleep 0.01 — µs");
        assert_eq!(escape(""), "");
    }

    #[test]
    fn markup_characters_are_escaped() {
        assert_eq!(
            escape("<script>alert(1)</script>"),
            "&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(escape("a && b > c"), "a &amp;&amp; b &gt; c");
    }

    #[test]
    fn quotes_are_escaped_for_attributes() {
        assert_eq!(
            escape(r#"" onload="x" ' y='"#),
            "&quot; onload=&quot;x&quot; &#39; y=&#39;"
        );
    }

    #[test]
    fn already_escaped_text_is_escaped_again() {
        assert_eq!(escape("&lt;"), "&amp;lt;");
    }

    #[test]
    fn controls_are_shown_not_sent() {
        assert_eq!(escape("a\0b"), "a\\x00b");
        assert_eq!(escape("x\u{202e}y\u{1b}[2J"), "x\\u{202e}y\\x1b[2J");
        assert_eq!(escape("line\nbreak\tkept"), "line\nbreak\tkept");
    }
}
