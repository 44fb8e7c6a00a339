//! Whether a command line needs a shell: a quote-aware scan for the syntax `sh -c` interprets
//! and a direct execution would pass on as literal text (pipes, lists, redirections, expansions,
//! command substitution, globs, a leading assignment, a subshell, a comment, a first word that
//! is a shell builtin with no program of its own, such as `cd`).
//!
//! The scan follows the POSIX shell's quoting: nothing inside single quotes is syntax; inside
//! double quotes only `$` and `` ` `` are; a backslash outside single quotes makes the next
//! character literal. A command in which it finds nothing is split into the same words by
//! `shell_words` (how rigor runs a command directly) as by `sh` (tested against `sh` itself).

use std::fmt;
use std::iter::Peekable;
use std::str::Chars;

/// A piece of shell syntax found in a command line (the first one, in reading order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellSyntax {
    /// `|`, `||`, `&&`, `&`, `;` or a line break: commands joined into a pipeline or list.
    Operator(String),
    /// `<`, `>`, `>>`, `<<`, `>&`, …: a redirection.
    Redirection(String),
    /// `$NAME`, `${…}`, `$(…)`, `$1`, `$?`, …: a parameter expansion or command substitution.
    Expansion(String),
    /// `` `…` ``: command substitution.
    Backquote,
    /// `*`, `?` or `[…]` outside quotes: a pathname pattern.
    Glob(String),
    /// `~` at the start of a word: the home directory.
    Tilde,
    /// `NAME=value` as the first word: an assignment to the command's environment.
    Assignment(String),
    /// `(` or `)`: a subshell.
    Subshell(char),
    /// `#` at the start of a word: a comment.
    Comment,
    /// A first word that is a shell builtin with no program of its own (`cd`, `export`, `type`,
    /// …): only a shell runs it.
    Builtin(String),
    /// A first word that is one of the shell's reserved words (`!`, `if`, `while`, `for`, `{`,
    /// …): a negation or a compound command, not a program.
    Reserved(String),
}

/// The reserved words that can start a command (POSIX 2.4): `! cmd` negates its status, the
/// others open compound commands. Run directly, `!` would be taken for a program.
const RESERVED: &[&str] = &["!", "{", "case", "for", "if", "until", "while"];

/// The syntax a plain first word is, if any: a builtin or a reserved word.
fn first_word(word: String) -> Option<ShellSyntax> {
    if BUILTINS.contains(&word.as_str()) {
        Some(ShellSyntax::Builtin(word))
    } else if RESERVED.contains(&word.as_str()) {
        Some(ShellSyntax::Reserved(word))
    } else {
        None
    }
}

/// Shell builtins that no program on the path stands for (POSIX's special builtins and the
/// regular ones that act on the shell itself, with bash's `source` and `local`): a command that
/// starts with one runs only through a shell. `echo`, `test`, `true`, `printf`, `kill`, `pwd`
/// and `time` are programs as well and are left to run directly.
const BUILTINS: &[&str] = &[
    ".", "alias", "bg", "cd", "command", "eval", "exec", "exit", "export", "fc", "fg", "getopts",
    "hash", "jobs", "local", "read", "readonly", "return", "set", "shift", "source", "times",
    "trap", "type", "ulimit", "umask", "unalias", "unset", "wait",
];

impl fmt::Display for ShellSyntax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Operator(op) if op == "\n" => write!(f, "a line break"),
            Self::Operator(op) => write!(f, "`{op}`"),
            Self::Redirection(op) => write!(f, "the redirection `{op}`"),
            Self::Expansion(e) => write!(f, "the expansion `{e}`"),
            Self::Backquote => write!(f, "command substitution (backquotes)"),
            Self::Glob(g) => write!(f, "the pattern `{g}`"),
            Self::Tilde => write!(f, "`~`"),
            Self::Assignment(name) => write!(f, "the assignment `{name}=`"),
            Self::Subshell(c) => write!(f, "`{c}`"),
            Self::Comment => write!(f, "a comment `#`"),
            Self::Builtin(name) => write!(f, "the shell builtin `{name}`"),
            Self::Reserved(word) => write!(f, "the shell's reserved word `{word}`"),
        }
    }
}

/// The first shell syntax in `text`, or `None` when a shell would run it as the plain words a
/// direct execution runs. An unbalanced quote is not syntax (splitting the words refuses it).
pub fn find(text: &str) -> Option<ShellSyntax> {
    let mut chars = text.chars().peekable();
    let mut quote: Option<char> = None;
    // The current word: started, its unquoted text so far (while it has no quote or escape),
    // and whether it is the command's first word.
    let mut in_word = false;
    let mut plain = String::new();
    let mut is_plain = true;
    let mut first = true;
    while let Some(c) = chars.next() {
        match quote {
            Some('\'') => {
                if c == '\'' {
                    quote = None;
                }
                continue;
            }
            Some(_) => {
                match c {
                    '"' => quote = None,
                    '\\' => {
                        chars.next();
                    }
                    '`' => return Some(ShellSyntax::Backquote),
                    '$' => {
                        if let Some(e) = expansion(&mut chars) {
                            return Some(e);
                        }
                    }
                    _ => {}
                }
                continue;
            }
            None => {}
        }
        let word_start = !in_word;
        match c {
            ' ' | '\t' => {
                if in_word && first && is_plain {
                    if let Some(syntax) = first_word(plain.clone()) {
                        return Some(syntax);
                    }
                }
                if in_word {
                    first = false;
                }
                in_word = false;
                plain.clear();
                is_plain = true;
                continue;
            }
            '\n' => {
                if chars.clone().all(char::is_whitespace) {
                    continue;
                }
                return Some(ShellSyntax::Operator("\n".into()));
            }
            '\\' => {
                chars.next();
                is_plain = false;
            }
            '\'' | '"' => {
                quote = Some(c);
                is_plain = false;
            }
            '|' | '&' | ';' => {
                let mut op = c.to_string();
                if chars.peek() == Some(&c) {
                    op.push(c);
                }
                return Some(ShellSyntax::Operator(op));
            }
            '<' | '>' => {
                let mut op = c.to_string();
                if let Some(&n) = chars.peek().filter(|n| matches!(n, '<' | '>' | '&' | '|')) {
                    op.push(n);
                }
                return Some(ShellSyntax::Redirection(op));
            }
            '(' | ')' => return Some(ShellSyntax::Subshell(c)),
            '`' => return Some(ShellSyntax::Backquote),
            '$' => {
                if let Some(e) = expansion(&mut chars) {
                    return Some(e);
                }
            }
            '*' | '?' => return Some(ShellSyntax::Glob(c.to_string())),
            '[' => {
                // A bracket expression needs its `]` in the same word (`[` alone is a program).
                let rest: String = chars.clone().take_while(|n| !n.is_whitespace()).collect();
                if let Some(end) = rest.find(']') {
                    return Some(ShellSyntax::Glob(format!("[{}]", &rest[..end])));
                }
            }
            '~' if word_start => return Some(ShellSyntax::Tilde),
            '#' if word_start => return Some(ShellSyntax::Comment),
            '=' if first && is_plain && is_name(&plain) => {
                return Some(ShellSyntax::Assignment(plain));
            }
            _ => {}
        }
        in_word = true;
        if is_plain && !matches!(c, '\\' | '\'' | '"') {
            plain.push(c);
        }
    }
    if in_word && first && is_plain {
        first_word(plain)
    } else {
        None
    }
}

/// Whether `text` has shell syntax ([`find`]).
pub fn needs_shell(text: &str) -> bool {
    find(text).is_some()
}

/// After a `$`: the expansion it starts, if the next character starts one.
fn expansion(chars: &mut Peekable<Chars<'_>>) -> Option<ShellSyntax> {
    let next = *chars.peek()?;
    let text = match next {
        '{' => format!("${{{}", until(chars, '}')),
        '(' => "$(…)".to_string(),
        c if c.is_ascii_alphabetic() || c == '_' => {
            let name: String = chars
                .clone()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            format!("${name}")
        }
        c if c.is_ascii_digit() || "@*#?$!-".contains(c) => format!("${c}"),
        _ => return None,
    };
    Some(ShellSyntax::Expansion(text))
}

/// The characters up to and including `end` (or to the end), for a message.
fn until(chars: &Peekable<Chars<'_>>, end: char) -> String {
    let mut out = String::new();
    for c in chars.clone().skip(1).take(60) {
        out.push(c);
        if c == end {
            return out;
        }
    }
    out
}

/// A shell variable name: a letter or `_`, then letters, digits and `_`.
fn is_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_syntax_hyperfine_users_write() {
        let cases = [
            (
                "gzip -c f > /dev/null",
                ShellSyntax::Redirection(">".into()),
            ),
            ("cmd 2>&1", ShellSyntax::Redirection(">&".into())),
            ("a < in", ShellSyntax::Redirection("<".into())),
            (
                "echo ${HYPERFINE_ITERATION} >> iter.log",
                ShellSyntax::Expansion("${HYPERFINE_ITERATION}".into()),
            ),
            ("rm -f *.gz", ShellSyntax::Glob("*".into())),
            ("ls file?.txt", ShellSyntax::Glob("?".into())),
            ("ls f[0-9]", ShellSyntax::Glob("[0-9]".into())),
            (
                "sync; echo 3 | sudo tee /proc/sys/vm/drop_caches",
                ShellSyntax::Operator(";".into()),
            ),
            ("make && ./a", ShellSyntax::Operator("&&".into())),
            ("a || b", ShellSyntax::Operator("||".into())),
            ("sleep 1 &", ShellSyntax::Operator("&".into())),
            ("a | b", ShellSyntax::Operator("|".into())),
            ("a\nb", ShellSyntax::Operator("\n".into())),
            ("echo $HOME", ShellSyntax::Expansion("$HOME".into())),
            ("echo \"$HOME\"", ShellSyntax::Expansion("$HOME".into())),
            ("echo $(date)", ShellSyntax::Expansion("$(…)".into())),
            ("echo $1 $?", ShellSyntax::Expansion("$1".into())),
            ("echo `date`", ShellSyntax::Backquote),
            ("echo \"`date`\"", ShellSyntax::Backquote),
            ("cat ~/f", ShellSyntax::Tilde),
            ("LC_ALL=C sort f", ShellSyntax::Assignment("LC_ALL".into())),
            ("(cd d && make)", ShellSyntax::Subshell('(')),
            ("make # all", ShellSyntax::Comment),
            ("cd /tmp", ShellSyntax::Builtin("cd".into())),
            ("type ls", ShellSyntax::Builtin("type".into())),
            ("source env.sh", ShellSyntax::Builtin("source".into())),
            (". ./env.sh", ShellSyntax::Builtin(".".into())),
            ("ulimit -a", ShellSyntax::Builtin("ulimit".into())),
            ("umask", ShellSyntax::Builtin("umask".into())),
            ("! grep -q x f", ShellSyntax::Reserved("!".into())),
            ("if", ShellSyntax::Reserved("if".into())),
            ("{ ./a; }", ShellSyntax::Reserved("{".into())),
        ];
        for (text, want) in cases {
            assert_eq!(find(text), Some(want), "{text:?}");
        }
    }

    #[test]
    fn plain_words_quotes_and_escapes_are_not_syntax() {
        for text in [
            "sleep 0.01",
            "gzip -9 -c 'big file.txt'",
            "echo '$HOME | * ; > `x`'",
            "echo \"a | b > c * ; ~ #\"",
            r"echo \> \| \$HOME \* \~",
            "prog --opt=value a=b",
            "prog a=b",
            "'A=1' prog",
            "[ -f x ]",
            "echo a#b c~d",
            "curl http://example.com/x",
            "echo $",
            "echo 'trailing'\n",
            "{build_dir}/prog --seed {build_seed}",
            "echo 'unbalanced",
            // Programs as well as builtins, and builtins' names elsewhere than the first word.
            "echo cd",
            "true",
            "pwd",
            "./cd",
            "cdrecord -v",
            "time ./a",
        ] {
            assert_eq!(find(text), None, "{text:?}");
        }
        assert!(needs_shell("a | b"));
        assert!(!needs_shell("a b"));
    }

    #[test]
    fn says_what_it_found() {
        assert_eq!(find("a > b").unwrap().to_string(), "the redirection `>`");
        assert_eq!(find("a\nb").unwrap().to_string(), "a line break");
        assert_eq!(find("a;b").unwrap().to_string(), "`;`");
        assert_eq!(find("X=1 a").unwrap().to_string(), "the assignment `X=`");
        assert_eq!(
            find("cd /tmp").unwrap().to_string(),
            "the shell builtin `cd`"
        );
    }
}
