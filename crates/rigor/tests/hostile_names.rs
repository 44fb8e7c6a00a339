//! Names and labels that try to break out of each output: the terminal, Markdown, AsciiDoc,
//! org-mode, CSV and HTML each get their one escaping.

mod common;

use common::{Dir, rigor, sim};

/// A name with terminal sequences (ESC, OSC, CR, a bidi override), HTML, a link, a backtick, a
/// pipe, an AsciiDoc passthrough and an org snippet.
const HOSTILE: &str = "=x`|<script>alert(1)</script>[l](javascript:alert(1)) +++<b>p</b>+++ \
                       pass:[<i>q</i>] @@html:<u>o</u>@@ \u{1b}]0;pwned\u{7}\u{1b}[2J\rcover\u{202e}";

#[test]
fn a_hostile_name_reaches_no_output_raw() {
    let dir = Dir::new();
    let path = |n: &str| dir.path(n);
    let out = sim()
        .args([
            "--seed", "1", "-r", "3", "-n", HOSTILE, "-n", "b", "mean=1ms", "mean=2ms",
        ])
        .arg("--export-markdown")
        .arg(path("t.md"))
        .arg("--export-asciidoc")
        .arg(path("t.adoc"))
        .arg("--export-orgmode")
        .arg(path("t.org"))
        .arg("--export-csv")
        .arg(path("t.csv"))
        .arg("--export-json")
        .arg(path("t.json"))
        .arg("--report")
        .arg(path("t.html"))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    for text in [&stdout, &stderr] {
        for c in ['\u{1b}', '\u{7}', '\r', '\u{202e}'] {
            assert!(!text.contains(c), "{c:?} reached the terminal: {text:?}");
        }
    }
    assert!(
        stdout.contains("\\x1b]0;pwned\\x07\\x1b[2J\\rcover\\u{202e}"),
        "{stdout}"
    );
    let read = |n: &str| std::fs::read_to_string(path(n)).unwrap();
    let (md, adoc, org, csv, html) = (
        read("t.md"),
        read("t.adoc"),
        read("t.org"),
        read("t.csv"),
        read("t.html"),
    );
    // (CSV is data: it keeps the name exactly, quoted, as JSON does.)
    for text in [&md, &adoc, &org, &html] {
        for c in ['\u{1b}', '\u{7}', '\r', '\u{202e}'] {
            assert!(!text.contains(c), "{c:?} in {text:?}");
        }
    }
    // Markdown: the row keeps its cells (a bare | would add one), the name is in a code span.
    let row = md.lines().find(|l| l.contains("pwned")).unwrap();
    let cells = md.lines().nth(1).unwrap().matches('|').count();
    assert_eq!(row.replace("\\|", "").matches('|').count(), cells, "{md}");
    assert!(row.starts_with("| `` =x`\\|<script>"), "{row}");
    // AsciiDoc: no passthrough, macro or markup; org: no export snippet or link.
    for bad in ["+++", "pass:[", "<script>", "javascript:"] {
        assert!(!adoc.contains(bad), "{bad}: {adoc}");
    }
    // (The name holds a |, so it is plain text there, not verbatim.)
    for bad in ["@@", "[[", "=x"] {
        assert!(!org.contains(bad), "{bad}: {org}");
    }
    // CSV: no cell a spreadsheet would run as a formula; the name reads back as it was.
    assert!(csv.contains("'=x`|<script>"), "{csv}");
    assert!(!html.contains("<script>alert"), "the report escapes names");
    let analysed = rigor().arg("analyze").arg(path("t.csv")).assert().success();
    let again = String::from_utf8_lossy(&analysed.get_output().stdout).into_owned();
    assert!(again.contains("Benchmark 1: =x`|<script>"), "{again}");
}
