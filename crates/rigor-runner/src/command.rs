//! Benchmarked commands: split into words and run directly, or through a shell on request.

use crate::error::RunError;

/// How a command line is run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandLine {
    /// Program and arguments, run directly (no shell).
    Direct(Vec<String>),
    /// A string run through `sh -c` (only with `--shell`).
    Shell(String),
    /// A string run through another shell: its program and arguments, then `-c` and the string
    /// (`--shell bash`, `--shell "bash --norc"`).
    ShellWith {
        /// The shell's program and arguments.
        shell: Vec<String>,
        /// The command text.
        text: String,
    },
}

impl CommandLine {
    /// Parses `text`: split into words with shell quoting rules (no expansion) unless `shell`.
    pub fn parse(text: &str, shell: bool) -> Result<Self, RunError> {
        if shell {
            return Ok(Self::Shell(text.to_string()));
        }
        let words = shell_words::split(text).map_err(|e| RunError::BadCommand {
            command: text.to_string(),
            reason: e.to_string(),
        })?;
        if words.is_empty() {
            return Err(RunError::BadCommand {
                command: text.to_string(),
                reason: "it is empty".into(),
            });
        }
        Ok(Self::Direct(words))
    }

    /// Parses `text` for the shell `shell` (its program and arguments; `sh` as with `--shell`),
    /// or splits it into words when `shell` is `None`.
    ///
    /// # Errors
    /// An unbalanced quote or an empty command (without a shell), or an empty shell.
    pub fn parse_for(text: &str, shell: Option<&[String]>) -> Result<Self, RunError> {
        match shell {
            None => Self::parse(text, false),
            Some([]) => Err(RunError::BadCommand {
                command: text.to_string(),
                reason: "the shell is empty".into(),
            }),
            Some([sh]) if sh == "sh" => Self::parse(text, true),
            Some(words) => Ok(Self::ShellWith {
                shell: words.to_vec(),
                text: text.to_string(),
            }),
        }
    }

    /// The command text as given (a direct command's words joined by spaces).
    pub fn text(&self) -> String {
        match self {
            Self::Direct(words) => words.join(" "),
            Self::Shell(text) | Self::ShellWith { text, .. } => text.clone(),
        }
    }

    /// The program and its arguments as they will be executed.
    pub fn argv(&self) -> Vec<String> {
        match self {
            Self::Direct(words) => words.clone(),
            Self::Shell(text) => vec!["sh".into(), "-c".into(), text.clone()],
            Self::ShellWith { shell, text } => {
                let mut argv = shell.clone();
                argv.extend(["-c".to_string(), text.clone()]);
                argv
            }
        }
    }

    /// Replaces every `{name}` placeholder by its value, in every word (or the shell string).
    pub fn substitute(&self, vars: &[(&str, String)]) -> Self {
        let apply = |text: &str| {
            vars.iter().fold(text.to_string(), |t, (k, v)| {
                t.replace(&format!("{{{k}}}"), v)
            })
        };
        match self {
            Self::Direct(words) => Self::Direct(words.iter().map(|w| apply(w)).collect()),
            Self::Shell(text) => Self::Shell(apply(text)),
            Self::ShellWith { shell, text } => Self::ShellWith {
                shell: shell.clone(),
                text: apply(text),
            },
        }
    }

    /// The program name, for messages.
    pub fn program(&self) -> &str {
        match self {
            Self::Direct(words) => &words[0],
            Self::Shell(_) => "sh",
            Self::ShellWith { shell, .. } => &shell[0],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_words_without_a_shell() {
        let c = CommandLine::parse("gzip -9 -c 'big file.txt'", false).unwrap();
        assert_eq!(c.argv(), vec!["gzip", "-9", "-c", "big file.txt"]);
        let s = CommandLine::parse("echo $HOME | wc", true).unwrap();
        assert_eq!(s.argv(), vec!["sh", "-c", "echo $HOME | wc"]);
        assert!(CommandLine::parse("  ", false).is_err());
        assert!(CommandLine::parse("echo 'unclosed", false).is_err());
        let t = CommandLine::parse("{build_dir}/prog --seed {build_seed} {other}", false).unwrap();
        let vars = [
            ("build_dir", "/tmp/b 1".to_string()),
            ("build_seed", "7".to_string()),
        ];
        assert_eq!(
            t.substitute(&vars).argv(),
            vec!["/tmp/b 1/prog", "--seed", "7", "{other}"]
        );
    }

    #[test]
    fn runs_through_the_shell_asked_for() {
        let bash = vec!["bash".to_string(), "--norc".to_string()];
        let c = CommandLine::parse_for("echo {x} | wc", Some(&bash)).unwrap();
        assert_eq!(
            c.substitute(&[("x", "1".into())]).argv(),
            vec!["bash", "--norc", "-c", "echo 1 | wc"]
        );
        assert_eq!(c.program(), "bash");
        let sh = vec!["sh".to_string()];
        assert_eq!(
            CommandLine::parse_for("a b", Some(&sh)).unwrap(),
            CommandLine::Shell("a b".into())
        );
        assert_eq!(
            CommandLine::parse_for("a 'b c'", None).unwrap().argv(),
            vec!["a", "b c"]
        );
        assert!(CommandLine::parse_for("a", Some(&[])).is_err());
    }
}
