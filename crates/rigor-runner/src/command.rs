//! Benchmarked commands: split into words and run directly, or through a shell on request.

use crate::error::RunError;

/// How a command line is run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandLine {
    /// Program and arguments, run directly (no shell).
    Direct(Vec<String>),
    /// A string run through `sh -c` (only with `--shell`).
    Shell(String),
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

    /// The program and its arguments as they will be executed.
    pub fn argv(&self) -> Vec<String> {
        match self {
            Self::Direct(words) => words.clone(),
            Self::Shell(text) => vec!["sh".into(), "-c".into(), text.clone()],
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
        }
    }

    /// The program name, for messages.
    pub fn program(&self) -> &str {
        match self {
            Self::Direct(words) => &words[0],
            Self::Shell(_) => "sh",
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
}
