//! A run's commands expanded into benchmarks: parameter values substituted (in hyperfine's
//! order), each command and hook parsed for its shell, the hooks each benchmark runs in, the
//! `--reference` command hyperfine 1.20 adds, and the empty shell measured beside commands run
//! through one.

use rigor_runner::{Benchmark, CommandLine, Hooks as RunnerHooks};

use super::request::RunRequest;
use super::{Mode, RunSettings, ShellRole, expand, expand::ShellChoice};
use crate::error::RequestError;

type Result<T> = std::result::Result<T, RequestError>;

/// The benchmarks of the commands: one per command and combination of parameter values, in
/// hyperfine's order (the commands vary fastest, then the first parameter), each with its command
/// text and its parameters.
pub(super) struct Expanded {
    pub(super) benchmarks: Vec<Benchmark>,
    pub(super) commands: Vec<String>,
    pub(super) parameters: Vec<expand::Values>,
}

impl RunRequest {
    pub(super) fn expand(
        &self,
        commands: &[String],
        shell: &ShellChoice,
        through_shell: &mut Vec<(String, String)>,
    ) -> Result<Expanded> {
        if commands.is_empty() {
            return Err(RequestError::NoCommand);
        }
        if let Some(i) = self.names.iter().position(|n| n.trim().is_empty()) {
            return Err(RequestError::EmptyName(i + 1));
        }
        let combinations = expand::combinations(&self.parameters)?;
        // As hyperfine: with parameters, as many names as benchmarks name each benchmark (in
        // the order below); otherwise names go to the commands in order.
        let total = combinations.len() * commands.len();
        let per_benchmark = total > commands.len() && self.names.len() == total;
        if self.names.len() > commands.len() && !per_benchmark {
            return Err(RequestError::TooManyNames {
                names: self.names.len(),
                commands: commands.len(),
                benchmarks: total,
            });
        }
        if let Some(first) = combinations.first() {
            let mut named = self.names.clone();
            named.extend(self.hooks.texts());
            expand::check_used(first, commands, &named)?;
        }
        self.hooks.check(commands.len(), total)?;
        let mut out = Expanded {
            benchmarks: Vec::new(),
            commands: Vec::new(),
            parameters: Vec::new(),
        };
        // Shell syntax is judged after the parameters' values are in; the note shows the
        // command (or hook) as given, once.
        let mut parse = |text: &str, given: String| -> Result<CommandLine> {
            let (command, found) = shell.parse(text)?;
            if let Some(found) = found
                && !through_shell.iter().any(|(c, _)| *c == given)
            {
                through_shell.push((given, found.to_string()));
            }
            Ok(command)
        };
        // hyperfine's order: the commands vary fastest, then the first parameter list.
        for (c, values) in combinations.iter().enumerate() {
            for (i, text) in commands.iter().enumerate() {
                let command_text = expand::substitute(text, values);
                let command = parse(&command_text, text.clone())?;
                let given = match per_benchmark {
                    true => self.names.get(c * commands.len() + i),
                    false => self.names.get(i),
                };
                let name = match given {
                    Some(name) if values.is_empty() || per_benchmark => {
                        expand::substitute(name, values)
                    }
                    Some(name) if name.contains('{') => expand::substitute(name, values),
                    Some(name) => format!("{name} ({})", describe_values(values)),
                    // Values used only in hooks tell the benchmarks apart (as hyperfine's names).
                    None => {
                        let unused: expand::Values = values
                            .iter()
                            .filter(|(k, _)| !text.contains(&format!("{{{k}}}")))
                            .cloned()
                            .collect();
                        if unused.is_empty() {
                            command_text.clone()
                        } else {
                            format!("{command_text} ({})", describe_values(&unused))
                        }
                    }
                };
                let k = out.benchmarks.len();
                let [setup, prepare, conclude, cleanup] = self.hooks.of(k, i, total);
                let options = ["--setup", "--prepare", "--conclude", "--cleanup"];
                let mut hook = |given: Option<&String>, o: usize| {
                    given
                        .map(|t| {
                            parse(
                                &expand::substitute(t, values),
                                format!("{} {t}", options[o]),
                            )
                        })
                        .transpose()
                };
                let mut benchmark = Benchmark::new(name, command);
                benchmark.hooks = RunnerHooks {
                    setup: hook(setup, 0)?,
                    prepare: hook(prepare, 1)?,
                    conclude: hook(conclude, 2)?,
                    cleanup: hook(cleanup, 3)?,
                };
                out.benchmarks.push(benchmark);
                out.commands.push(command_text);
                out.parameters.push(values.clone());
            }
        }
        let names = &out.benchmarks;
        let expanded = combinations.first().is_some_and(|c| !c.is_empty());
        for (i, b) in names.iter().enumerate().filter(|_| expanded) {
            if names[..i].iter().any(|o| o.name == b.name) {
                return Err(RequestError::DuplicateName(b.name.clone()));
            }
        }
        // The same command given twice (an A/A run): numbered, so that comparisons and files
        // tell them apart ("sleep 0.01 #1", "sleep 0.01 #2").
        let all: Vec<String> = out.benchmarks.iter().map(|b| b.name.clone()).collect();
        for (i, b) in out.benchmarks.iter_mut().enumerate() {
            if all.iter().filter(|n| **n == all[i]).count() > 1 {
                let k = all[..=i].iter().filter(|n| **n == all[i]).count();
                b.name = format!("{} #{k}", all[i]);
            }
        }
        Ok(out)
    }

    /// hyperfine 1.20's `--reference CMD`: a `--reference` that is none of the benchmarks (by
    /// name, command or position) and not a number is a command, benchmarked first as the
    /// reference (named `--reference-name`, else by its text). Returns the name it is referred
    /// to by, when it was added.
    pub(super) fn add_reference(
        &self,
        expanded: &mut Expanded,
        shell: &ShellChoice,
        through_shell: &mut Vec<(String, String)>,
    ) -> Result<Option<String>> {
        let Some(reference) = self.comparison.reference.as_deref() else {
            if self.reference_name.is_some() {
                return Err(RequestError::ReferenceNameAlone);
            }
            return Ok(None);
        };
        if !self.rigor_run {
            return Ok(None);
        }
        let existing = expanded.benchmarks.iter().any(|b| b.name == reference)
            || expanded.commands.iter().any(|c| c == reference);
        if existing || reference.trim().parse::<usize>().is_ok() {
            return match &self.reference_name {
                Some(_) => Err(RequestError::ReferenceNameExisting(reference.to_string())),
                None => Ok(None),
            };
        }
        let name = self
            .reference_name
            .clone()
            .unwrap_or_else(|| reference.to_string());
        if expanded.benchmarks.iter().any(|b| b.name == name) {
            return Err(RequestError::DuplicateName(name));
        }
        let (command, found) = shell.parse(reference)?;
        if let Some(found) = found {
            through_shell.push((format!("--reference {reference}"), found.to_string()));
        }
        // A typo in a benchmark's name is not run as a command: it must be one rigor can run.
        if let Some(why) = unrunnable(&command, self.simulate) {
            let names: Vec<String> = expanded
                .benchmarks
                .iter()
                .map(|b| format!("'{}'", b.name))
                .collect();
            return Err(RequestError::ReferenceNotRunnable {
                reference: reference.to_string(),
                names: names.join(", "),
                why,
            });
        }
        // It runs inside the hooks the first benchmark runs in (all of them, when one setup and
        // cleanup are given for every command), so that it is interleaved with the others.
        let mut benchmark = Benchmark::new(name.clone(), command);
        benchmark.hooks = expanded
            .benchmarks
            .first()
            .map(|b| b.hooks.clone())
            .unwrap_or_default();
        expanded.benchmarks.insert(0, benchmark);
        expanded.commands.insert(0, reference.to_string());
        expanded.parameters.insert(0, Vec::new());
        Ok(Some(name))
    }
}

/// Why `command` cannot run, if it cannot: a simulation spec that does not parse, or a program
/// that is neither a file nor found on `PATH`.
fn unrunnable(command: &CommandLine, simulate: bool) -> Option<String> {
    if simulate {
        return rigor_runner::SimSpec::parse(&command.text())
            .err()
            .map(|e| e.to_string());
    }
    let program = std::path::Path::new(command.program());
    if program.components().count() > 1 {
        // A path is not looked up on PATH: say it is not there.
        return (!program.is_file()).then(|| format!("'{}' is no file", program.display()));
    }
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(program).is_file()));
    (!found).then(|| format!("'{}' is not found on PATH", program.display()))
}

/// When commands run through a shell and are timed whole, the empty shell of each shell used
/// (`sh -c ''`) as one more benchmark, interleaved in the same rounds (inside the same setup and
/// cleanup when all share one), so that each such command is also reported net of its shell's
/// start-up with that start-up's variance carried in (hyperfine subtracts a point estimate
/// measured before the benchmarks). Runs of a fixed count (or the default length) only: an adaptive run would hold the
/// empty shell to its precision target too, a plan names its benchmarks, and a run until
/// decided compares every benchmark it measures. The note says so.
pub(super) fn add_shell_startups(s: &mut RunSettings) -> Option<rigor_report::notes::Note> {
    let timed_whole = !s.iterations_expected && s.runner.iterations_per_execution.is_none();
    let mode = matches!(s.mode, Mode::Fixed | Mode::DefaultLength(_));
    if s.simulate || !timed_whole || !mode {
        return None;
    }
    let interleaved = rigor_runner::schedule::interleaved(&s.benchmarks);
    let shell_of = |c: &CommandLine| match c {
        CommandLine::Direct(_) => None,
        CommandLine::Shell(_) => Some(vec!["sh".to_string()]),
        CommandLine::ShellWith { shell, .. } => Some(shell.clone()),
    };
    let n = s.benchmarks.len();
    let mut roles = vec![ShellRole::None; n];
    let mut shells: Vec<(Vec<String>, String)> = Vec::new();
    for (i, b) in s.benchmarks.iter().enumerate() {
        let Some(shell) = shell_of(&b.command) else {
            continue;
        };
        let name = match shells.iter().find(|(sh, _)| *sh == shell) {
            Some((_, name)) => name.clone(),
            None => {
                let name = format!("{} -c ''", shell_words::join(&shell));
                shells.push((shell, name.clone()));
                name
            }
        };
        roles[i] = ShellRole::NetOf(name);
    }
    if shells.is_empty() {
        return None;
    }
    let around = s.benchmarks[0].hooks.clone();
    for (shell, name) in &shells {
        let command = match shell.as_slice() {
            [sh] if sh == "sh" => CommandLine::Shell(String::new()),
            _ => CommandLine::ShellWith {
                shell: shell.clone(),
                text: String::new(),
            },
        };
        let mut b = Benchmark::new(name.clone(), command);
        if interleaved {
            b.hooks = RunnerHooks {
                setup: around.setup.clone(),
                cleanup: around.cleanup.clone(),
                ..RunnerHooks::default()
            };
        }
        s.benchmarks.push(b);
        s.commands.push(name.clone());
        s.parameters.push(Default::default());
        roles.push(ShellRole::Startup(shell_words::join(shell)));
    }
    s.shell_roles = roles;
    Some(rigor_report::notes::Note::ShellStartup {
        benchmarks: shells.into_iter().map(|(_, name)| name).collect(),
    })
}

/// "x = 1, y = a".
pub(super) fn describe_values(values: &expand::Values) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--reference` names a benchmark (by name, command or 1-based position), checked before
/// anything runs.
pub(super) fn check_reference(
    reference: Option<&str>,
    benchmarks: &[Benchmark],
    commands: &[String],
) -> Result<()> {
    let Some(name) = reference else { return Ok(()) };
    let found = benchmarks.iter().any(|b| b.name == name)
        || commands.iter().any(|c| c == name)
        || name
            .parse::<usize>()
            .is_ok_and(|k| (1..=benchmarks.len()).contains(&k));
    if !found {
        let names: Vec<String> = benchmarks.iter().map(|b| format!("'{}'", b.name)).collect();
        return Err(RequestError::Reference {
            reference: name.to_string(),
            names: names.join(", "),
            count: benchmarks.len(),
        });
    }
    Ok(())
}
