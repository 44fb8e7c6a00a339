//! hyperfine's ways of naming what to run: `--shell SHELL`, `--parameter-scan` and
//! `--parameter-list` (one benchmark per command and combination of values, `{VAR}` replaced).

use rigor_runner::CommandLine;
use rigor_runner::shell_syntax::{self, ShellSyntax};

use super::request::Parameters;
use crate::error::RequestError;
use crate::error::ScanError;

type Result<T> = std::result::Result<T, RequestError>;

/// Shells recognised as the value of `--shell` (a program's file name). Any other value is the
/// first command, as it was before `--shell` took a value.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "pwsh", "nu",
    "busybox", "elvish", "xonsh", "yash",
];

/// Most benchmarks parameters may expand to.
pub const MAX_VARIANTS: usize = 10_000;

/// How commands are run: directly unless they have shell syntax (rigor's default), always
/// directly (`--shell none`, `-N`), or always through the shell given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellChoice {
    /// No `--shell`: a command with shell syntax runs through `sh`, any other directly.
    Auto,
    /// `--shell none` or `-N`: every command directly, its words split as `sh` would split them
    /// and nothing expanded (hyperfine's `-N`).
    Never,
    /// `--shell [SHELL]`: every command through this shell (its program and arguments).
    Always(Vec<String>),
}

impl ShellChoice {
    /// `command` parsed for this choice, with the shell syntax that sent it through `sh` under
    /// [`ShellChoice::Auto`] (`None` otherwise).
    ///
    /// # Errors
    /// An unbalanced quote or an empty command run directly, or an empty shell.
    pub fn parse(&self, text: &str) -> Result<(CommandLine, Option<ShellSyntax>)> {
        Ok(match self {
            Self::Auto => match shell_syntax::find(text) {
                Some(found) => (CommandLine::parse(text, true)?, Some(found)),
                None => (CommandLine::parse(text, false)?, None),
            },
            Self::Never => (CommandLine::parse(text, false)?, None),
            Self::Always(shell) => (CommandLine::parse_for(text, Some(shell))?, None),
        })
    }
}

/// How commands are run and the commands, with a `--shell` value that is not a shell given back
/// as the first command (run through `sh`) — and then that value, which the user should be
/// told of. A value written attached (`attached`: `--shell=python3`) is the shell whatever it
/// is, as hyperfine takes it; one given apart is a shell only when it is one rigor knows
/// (sh, bash, zsh, fish, …), since `--shell` alone once took none and `--shell 'a | b'` means
/// `sh -c 'a | b'`.
pub fn shell(
    shell: Option<&str>,
    commands: &[String],
    attached: bool,
) -> (ShellChoice, Vec<String>, Option<String>) {
    let sh = || ShellChoice::Always(vec!["sh".to_string()]);
    let Some(value) = shell else {
        return (ShellChoice::Auto, commands.to_vec(), None);
    };
    match value {
        "none" => (ShellChoice::Never, commands.to_vec(), None),
        "default" => (sh(), commands.to_vec(), None),
        _ => match shell_words::split(value) {
            Ok(words)
                if !words.is_empty() && (is_shell(&words) || attached) && !commands.is_empty() =>
            {
                (ShellChoice::Always(words), commands.to_vec(), None)
            }
            _ => {
                let mut all = vec![value.to_string()];
                all.extend_from_slice(commands);
                // A program's name alone, where other commands follow: it may have been meant
                // as the shell (hyperfine's `--shell python3`), so the run says what it did.
                let single = shell_words::split(value).is_ok_and(|w| w.len() == 1)
                    && shell_syntax::find(value).is_none();
                let told = (single && !commands.is_empty()).then(|| value.to_string());
                (sh(), all, told)
            }
        },
    }
}

fn is_shell(words: &[String]) -> bool {
    words.first().is_some_and(|program| {
        let name = std::path::Path::new(program)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("");
        SHELLS.contains(&name)
    })
}

/// One combination of parameter values, in the order the parameters were given.
pub type Values = Vec<(String, String)>;

/// Every combination of the parameters' values (one empty combination without parameters):
/// the scan's values, or the product of the lists in hyperfine's order, the first list varying
/// fastest (`-L a 1,2 -L b x,y`: a=1 b=x, a=2 b=x, a=1 b=y, a=2 b=y). Each combination keeps
/// the parameters in the order they were given.
pub fn combinations(parameters: &Parameters) -> Result<Vec<Values>> {
    let mut params: Vec<(String, Vec<String>)> = Vec::new();
    if let Some(s) = &parameters.scan {
        params.push((
            s.var.clone(),
            scan(&s.var, &s.min, &s.max, s.step.as_deref())?,
        ));
    }
    for (var, list) in &parameters.lists {
        let values = split_list(list);
        if values.iter().any(String::is_empty) {
            return Err(RequestError::EmptyValue {
                var: var.clone(),
                list: list.clone(),
            });
        }
        params.push((var.clone(), values));
    }
    for (i, (var, _)) in params.iter().enumerate() {
        if var.is_empty() || var.contains(['{', '}']) {
            return Err(RequestError::ParameterName(var.clone()));
        }
        if params[..i].iter().any(|(v, _)| v == var) {
            return Err(RequestError::ParameterTwice(var.clone()));
        }
    }
    // Built from the last parameter to the first, each new (earlier) one varying within the
    // combinations so far, so that the first varies fastest.
    let mut out: Vec<Values> = vec![Vec::new()];
    for (var, values) in params.iter().rev() {
        out = out
            .iter()
            .flat_map(|rest| {
                values.iter().map(move |v| {
                    let mut c = vec![(var.clone(), v.clone())];
                    c.extend(rest.iter().cloned());
                    c
                })
            })
            .collect();
        if out.len() > MAX_VARIANTS {
            return Err(RequestError::TooManyCombinations);
        }
    }
    Ok(out)
}

/// The values of a `--parameter-list`, split at commas as hyperfine splits them: `\,` is a
/// comma within a value and `\\` a backslash (any other backslash is kept as it is).
pub fn split_list(list: &str) -> Vec<String> {
    let mut values = vec![String::new()];
    let mut chars = list.chars();
    while let Some(c) = chars.next() {
        let current = values.last_mut().expect("never empty");
        match c {
            '\\' => match chars.next() {
                Some(e @ (',' | '\\')) => current.push(e),
                Some(other) => {
                    current.push('\\');
                    current.push(other);
                }
                None => current.push('\\'),
            },
            ',' => values.push(String::new()),
            c => current.push(c),
        }
    }
    values
}

/// The values of `--parameter-scan VAR MIN MAX [-D STEP]`: integers, or with a step the decimals
/// from MIN to MAX as hyperfine writes them (below).
fn scan(var: &str, min: &str, max: &str, step: Option<&str>) -> Result<Vec<String>> {
    let bad = |why: ScanError| RequestError::Scan {
        var: var.to_string(),
        why,
    };
    let number = |what: &'static str, s: &str| -> Result<f64> {
        match s.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(bad(ScanError::NotANumber {
                what,
                value: s.to_string(),
            })),
        }
    };
    let (lo, hi) = (number("MIN", min)?, number("MAX", max)?);
    let Some(step) = step else {
        let (Ok(lo), Ok(hi)) = (min.parse::<i64>(), max.parse::<i64>()) else {
            return Err(bad(ScanError::NotIntegers));
        };
        if hi < lo {
            return Err(bad(ScanError::Reversed {
                min: lo.to_string(),
                max: hi.to_string(),
            }));
        }
        if (hi - lo) as u64 >= MAX_VARIANTS as u64 {
            return Err(bad(ScanError::TooMany));
        }
        return Ok((lo..=hi).map(|v| v.to_string()).collect());
    };
    let d = number("STEP", step)?;
    if d <= 0.0 {
        return Err(RequestError::StepNotPositive(step.to_string()));
    }
    if hi < lo {
        return Err(bad(ScanError::Reversed {
            min: min.to_string(),
            max: max.to_string(),
        }));
    }
    // A small tolerance so that 0.1 steps reach MAX despite binary rounding.
    let steps = ((hi - lo) / d + 1e-9).floor();
    if steps >= MAX_VARIANTS as f64 {
        return Err(bad(ScanError::TooMany));
    }
    // As hyperfine writes them (decimal arithmetic): MIN as typed, then MIN + k·STEP with as
    // many decimals as the more precise of MIN and STEP — `-P t 1 2 -D 0.5` gives 1, 1.5, 2.0.
    let decimals = [min, step]
        .iter()
        .map(|s| s.split_once('.').map_or(0, |(_, f)| f.len()))
        .max()
        .unwrap_or(0);
    Ok((0..=steps as usize)
        .map(|i| match i {
            0 => min.trim().to_string(),
            _ => format!("{:.*}", decimals, lo + i as f64 * d),
        })
        .collect())
}

/// Replaces each `{VAR}` by its value.
pub fn substitute(text: &str, values: &Values) -> String {
    values.iter().fold(text.to_string(), |t, (k, v)| {
        t.replace(&format!("{{{k}}}"), v)
    })
}

/// Checks that every parameter appears in a command, a name or a hook (else every value would
/// measure the same thing; in a hook alone it changes what is measured, as in hyperfine).
pub fn check_used(values: &Values, commands: &[String], names: &[String]) -> Result<()> {
    for (var, _) in values {
        let placeholder = format!("{{{var}}}");
        if !commands
            .iter()
            .chain(names)
            .any(|c| c.contains(&placeholder))
        {
            return Err(RequestError::ParameterUnused(var.clone()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_integers_and_decimal_steps() {
        assert_eq!(scan("x", "1", "4", None).unwrap(), ["1", "2", "3", "4"]);
        assert_eq!(
            scan("x", "0", "0.3", Some("0.1")).unwrap(),
            ["0", "0.1", "0.2", "0.3"]
        );
        // hyperfine 1.15's values for `-P t 1 2 -D 0.5` (a new user's trial).
        assert_eq!(
            scan("x", "1", "2", Some("0.5")).unwrap(),
            ["1", "1.5", "2.0"]
        );
        assert_eq!(
            scan("x", "0.25", "1", Some("0.5")).unwrap(),
            ["0.25", "0.75"]
        );
        assert_eq!(scan("x", "1", "10", Some("4")).unwrap(), ["1", "5", "9"]);
        assert!(scan("x", "1.5", "3", None).is_err());
        assert!(scan("x", "3", "1", None).is_err());
        assert!(scan("x", "1", "3", Some("0")).is_err());
        assert!(scan("x", "0", "1000000", None).is_err());
    }

    #[test]
    fn lists_split_at_unescaped_commas_as_hyperfine_splits_them() {
        assert_eq!(split_list("a,b"), ["a", "b"]);
        assert_eq!(split_list(r"hello\, world,x"), ["hello, world", "x"]);
        assert_eq!(split_list(r"\\\,"), [r"\,"]);
        assert_eq!(split_list(r"\n"), [r"\n"]);
        assert_eq!(split_list("a,"), ["a", ""]);
        assert_eq!(split_list("\\"), ["\\"]);
    }

    #[test]
    fn the_first_list_varies_fastest_as_in_hyperfine() {
        let p = Parameters {
            scan: None,
            lists: vec![("a".into(), "1,2".into()), ("b".into(), "x,y".into())],
        };
        let got: Vec<String> = combinations(&p)
            .unwrap()
            .iter()
            .map(|c| c.iter().map(|(k, v)| format!("{k}{v}")).collect())
            .collect();
        assert_eq!(got, ["a1bx", "a2bx", "a1by", "a2by"]);
    }

    #[test]
    fn substitutes_every_placeholder() {
        let v = vec![("x".to_string(), "1".to_string()), ("y".into(), "a".into())];
        assert_eq!(substitute("p {x} {y} {x} {z}", &v), "p 1 a 1 {z}");
        assert!(check_used(&v, &["p {x}".into()], &["{y}".into()]).is_ok());
        assert!(check_used(&v, &["p {x}".into()], &[]).is_err());
    }
}
