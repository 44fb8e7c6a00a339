//! hyperfine's ways of naming what to run: `--shell SHELL`, `--parameter-scan` and
//! `--parameter-list` (one benchmark per command and combination of values, `{VAR}` replaced).

use anyhow::{Result, bail};

use crate::cli::RunOptions;

/// Shells recognised as the value of `--shell` (a program's file name). Any other value is the
/// first command, as it was before `--shell` took a value.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "pwsh", "nu",
    "busybox", "elvish", "xonsh", "yash",
];

/// Most benchmarks parameters may expand to.
pub const MAX_VARIANTS: usize = 10_000;

/// The shell to run commands through (its program and arguments; `None`: no shell) and the
/// commands, with a `--shell` value that is not a shell given back as the first command.
pub fn shell(args: &RunOptions, commands: &[String]) -> (Option<Vec<String>>, Vec<String>) {
    let sh = || vec!["sh".to_string()];
    let Some(value) = args.shell.as_deref() else {
        return (None, commands.to_vec());
    };
    match value {
        "none" => (None, commands.to_vec()),
        "default" => (Some(sh()), commands.to_vec()),
        _ => match shell_words::split(value) {
            Ok(words) if is_shell(&words) && !commands.is_empty() => {
                (Some(words), commands.to_vec())
            }
            _ => {
                let mut all = vec![value.to_string()];
                all.extend_from_slice(commands);
                (Some(sh()), all)
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
/// the scan's values, or the product of the lists, the first list varying slowest.
pub fn combinations(args: &RunOptions) -> Result<Vec<Values>> {
    let mut params: Vec<(String, Vec<String>)> = Vec::new();
    if let [var, min, max] = args.parameter_scan.as_slice() {
        params.push((
            var.clone(),
            scan(var, min, max, args.parameter_step_size.as_deref())?,
        ));
    }
    // clap gives the pairs of every -L in one list.
    for list in args.parameter_list.chunks(2) {
        let [var, values] = list else {
            bail!("--parameter-list takes a name and a comma-separated list");
        };
        let values: Vec<String> = values.split(',').map(str::to_string).collect();
        if values.iter().any(String::is_empty) {
            bail!("--parameter-list {var}: an empty value in '{}'", list[1]);
        }
        params.push((var.clone(), values));
    }
    for (i, (var, _)) in params.iter().enumerate() {
        if var.is_empty() || var.contains(['{', '}']) {
            bail!("'{var}' cannot name a parameter");
        }
        if params[..i].iter().any(|(v, _)| v == var) {
            bail!("the parameter '{var}' is given twice");
        }
    }
    let mut out: Vec<Values> = vec![Vec::new()];
    for (var, values) in &params {
        out = out
            .iter()
            .flat_map(|combo| {
                values.iter().map(move |v| {
                    let mut c = combo.clone();
                    c.push((var.clone(), v.clone()));
                    c
                })
            })
            .collect();
        if out.len() > MAX_VARIANTS {
            bail!("the parameters give more than {MAX_VARIANTS} combinations");
        }
    }
    Ok(out)
}

/// The values of `--parameter-scan VAR MIN MAX [-D STEP]`: integers, or with a step the decimals
/// from MIN to MAX written with as many decimals as the most precise of the three.
fn scan(var: &str, min: &str, max: &str, step: Option<&str>) -> Result<Vec<String>> {
    let number = |what: &str, s: &str| -> Result<f64> {
        match s.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => bail!("--parameter-scan {var}: {what} '{s}' is not a number"),
        }
    };
    let (lo, hi) = (number("MIN", min)?, number("MAX", max)?);
    let Some(step) = step else {
        let (Ok(lo), Ok(hi)) = (min.parse::<i64>(), max.parse::<i64>()) else {
            bail!(
                "--parameter-scan {var}: MIN and MAX must be integers without \
                 --parameter-step-size"
            );
        };
        if hi < lo {
            bail!("--parameter-scan {var}: MAX {hi} is below MIN {lo}");
        }
        if (hi - lo) as u64 >= MAX_VARIANTS as u64 {
            bail!("--parameter-scan {var}: more than {MAX_VARIANTS} values");
        }
        return Ok((lo..=hi).map(|v| v.to_string()).collect());
    };
    let d = number("STEP", step)?;
    if d <= 0.0 {
        bail!("--parameter-step-size must be above 0 (got {step})");
    }
    if hi < lo {
        bail!("--parameter-scan {var}: MAX {max} is below MIN {min}");
    }
    // A small tolerance so that 0.1 steps reach MAX despite binary rounding.
    let steps = ((hi - lo) / d + 1e-9).floor();
    if steps >= MAX_VARIANTS as f64 {
        bail!("--parameter-scan {var}: more than {MAX_VARIANTS} values");
    }
    let decimals = [min, max, step]
        .iter()
        .map(|s| s.split_once('.').map_or(0, |(_, f)| f.len()))
        .max()
        .unwrap_or(0);
    Ok((0..=steps as usize)
        .map(|i| format!("{:.*}", decimals, lo + i as f64 * d))
        .collect())
}

/// Replaces each `{VAR}` by its value.
pub fn substitute(text: &str, values: &Values) -> String {
    values.iter().fold(text.to_string(), |t, (k, v)| {
        t.replace(&format!("{{{k}}}"), v)
    })
}

/// Checks that every parameter appears in a command or a name (else every value would measure
/// the same command).
pub fn check_used(values: &Values, commands: &[String], names: &[String]) -> Result<()> {
    for (var, _) in values {
        let placeholder = format!("{{{var}}}");
        if !commands
            .iter()
            .chain(names)
            .any(|c| c.contains(&placeholder))
        {
            bail!(
                "the parameter '{var}' appears in no command: write {placeholder} where its \
                 value goes"
            );
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
            ["0.0", "0.1", "0.2", "0.3"]
        );
        assert_eq!(scan("x", "1", "10", Some("4")).unwrap(), ["1", "5", "9"]);
        assert!(scan("x", "1.5", "3", None).is_err());
        assert!(scan("x", "3", "1", None).is_err());
        assert!(scan("x", "1", "3", Some("0")).is_err());
        assert!(scan("x", "0", "1000000", None).is_err());
    }

    #[test]
    fn substitutes_every_placeholder() {
        let v = vec![("x".to_string(), "1".to_string()), ("y".into(), "a".into())];
        assert_eq!(substitute("p {x} {y} {x} {z}", &v), "p 1 a 1 {z}");
        assert!(check_used(&v, &["p {x}".into()], &["{y}".into()]).is_ok());
        assert!(check_used(&v, &["p {x}".into()], &[]).is_err());
    }
}
