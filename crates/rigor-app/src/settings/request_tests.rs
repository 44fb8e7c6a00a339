use super::*;
use crate::settings::ShellRole;

fn request(commands: &[&str]) -> RunRequest {
    RunRequest {
        commands: commands.iter().map(ToString::to_string).collect(),
        seed: Some(Seed(1)),
        ..RunRequest::default()
    }
}

fn names(r: &Resolved) -> Vec<&str> {
    r.settings
        .benchmarks
        .iter()
        .map(|b| b.name.as_str())
        .collect()
}

#[test]
fn the_same_command_twice_is_numbered_and_parameters_expand_per_command() {
    let r = request(&["sleep 0", "sleep 0"]).resolve().unwrap();
    assert_eq!(names(&r), ["sleep 0 #1", "sleep 0 #2"]);
    let mut q = request(&["a {x}", "b {x}"]);
    q.parameters.lists = vec![("x".into(), "1,2".into())];
    q.names = vec!["A".into()];
    let r = q.resolve().unwrap();
    assert_eq!(names(&r), ["A (x = 1)", "b 1", "A (x = 2)", "b 2"]);
    assert_eq!(r.settings.commands, ["a 1", "b 1", "a 2", "b 2"]);
    // As many names as benchmarks: one each, in that order (hyperfine's -n).
    q.names = ["a-1", "b-1", "a-2", "b-{x}"].map(String::from).to_vec();
    assert_eq!(names(&q.resolve().unwrap()), ["a-1", "b-1", "a-2", "b-2"]);
    q.names.pop();
    let err = q.resolve().unwrap_err().to_string();
    assert_eq!(
        err,
        "3 names given for 2 commands (4 benchmarks with the parameters)"
    );
    q.commands = vec!["a {x}".into(), "a {x}".into()];
    q.names = vec!["n{x}".into(), "n{x}".into()];
    assert!(matches!(q.resolve(), Err(RequestError::DuplicateName(n)) if n == "n1"));
}

#[test]
fn a_reference_that_is_no_benchmark_is_added_first_as_hyperfine_does() {
    let mut q = request(&["sleep 0.2", "sleep 0.3"]);
    q.comparison.reference = Some("sleep 0.1".into());
    assert!(
        matches!(q.resolve(), Err(RequestError::Reference { .. })),
        "only in rigor run"
    );
    q.rigor_run = true;
    q.comparison.reference = Some("sleep 0.3".into());
    let r = q.resolve().unwrap();
    assert_eq!(
        names(&r),
        ["sleep 0.2", "sleep 0.3"],
        "an existing one stays"
    );
    assert!(r.notes.is_empty());
    q.comparison.reference = Some("sleep 0.1".into());
    q.reference_name = Some("base".into());
    let r = q.resolve().unwrap();
    assert_eq!(names(&r), ["base", "sleep 0.2", "sleep 0.3"]);
    assert_eq!(r.settings.commands[0], "sleep 0.1");
    assert_eq!(r.settings.comparison.reference.as_deref(), Some("base"));
    assert_eq!(r.notes.len(), 1);
    // A typo is not run: a reference must be a command rigor can run.
    q.comparison.reference = Some("sleep-typo 0.1".into());
    let err = q.resolve().unwrap_err().to_string();
    assert!(err.contains("nor a command rigor can run ('sleep-typo' is not found on PATH)"));
    // A position out of range is still an error, and a name needs a command to name.
    q.comparison.reference = Some("7".into());
    assert!(matches!(
        q.resolve(),
        Err(RequestError::ReferenceNameExisting(_))
    ));
    q.reference_name = None;
    assert!(matches!(q.resolve(), Err(RequestError::Reference { .. })));
    q.comparison.reference = None;
    q.reference_name = Some("base".into());
    assert!(matches!(q.resolve(), Err(RequestError::ReferenceNameAlone)));
}

#[test]
fn counts_are_checked_and_clamped_before_anything_runs() {
    let mut q = request(&["x"]);
    q.min_runs = Some(12);
    let r = q.resolve().unwrap();
    assert_eq!(r.settings.runner.executions, 12);
    assert_eq!(r.settings.record.executions, 12);
    q.min_runs = Some(1);
    assert!(matches!(q.resolve(), Err(RequestError::MinRuns)));
    q.min_runs = Some(8);
    q.max_runs = Some(4);
    let err = q.resolve().unwrap_err().to_string();
    assert_eq!(err, "--min-runs 8 is above --max-runs 4");
    let mut q = request(&["x"]);
    q.until_decided = true;
    assert!(matches!(q.resolve(), Err(RequestError::DecidedNeedsTwo(1))));
}

#[test]
fn one_export_at_most_goes_to_standard_output() {
    let mut q = request(&["x"]);
    q.exports.markdown = Some("-".into());
    let r = q.resolve().unwrap();
    assert_eq!(r.settings.exports.stdout, Some(StdoutExport::Markdown));
    assert_eq!(r.settings.exports.files.markdown, None);
    q.exports.json = Some("-".into());
    let err = q.resolve().unwrap_err().to_string();
    assert!(
        err.starts_with("--export-json, --export-markdown each name"),
        "{err}"
    );
}

#[test]
fn hooks_go_once_for_all_once_per_command_or_once_per_benchmark() {
    let h = Hooks {
        setup: vec!["s".into()],
        prepare: vec!["p1".into(), "p2".into()],
        cleanup: vec!["c1".into(), "c2".into(), "c3".into(), "c4".into()],
        ..Hooks::default()
    };
    // 2 commands × 2 values = 4 benchmarks; benchmark 2 runs command 1 (0-based).
    assert!(h.check(2, 4).is_ok());
    let [setup, prepare, conclude, cleanup] = h.of(2, 1, 4);
    assert_eq!(
        (setup, prepare, conclude, cleanup),
        (
            Some(&"s".into()),
            Some(&"p2".into()),
            None,
            Some(&"c3".into())
        )
    );
    let err = h.check(2, 6).unwrap_err().to_string();
    assert!(err.starts_with("--cleanup was given 4 times"), "{err}");
    // A job queued when each hook was one string (or null) still reads.
    let old: Hooks =
        serde_json::from_str(r#"{"setup":null,"prepare":"sync","cleanup":["a","b"]}"#).unwrap();
    assert_eq!(old.setup, Vec::<String>::new());
    assert_eq!(old.prepare, ["sync"]);
    assert_eq!(old.cleanup, ["a", "b"]);
}

#[test]
fn a_parameter_used_only_in_a_hook_is_accepted_and_names_the_benchmarks() {
    let mut q = request(&["true"]);
    q.parameters.lists = vec![("d".into(), "1,2".into())];
    assert!(matches!(q.resolve(), Err(RequestError::ParameterUnused(_))));
    q.hooks.prepare = vec!["touch p{d}".into()];
    let r = q.resolve().unwrap();
    assert_eq!(names(&r), ["true (d = 1)", "true (d = 2)"]);
    let prepare = |i: usize| r.settings.benchmarks[i].hooks.prepare.clone().unwrap();
    assert_eq!(prepare(0).argv(), ["touch", "p1"]);
    assert_eq!(prepare(1).argv(), ["touch", "p2"]);
}

#[test]
fn shell_syntax_goes_through_sh_unless_n_and_the_empty_shell_is_measured_beside_it() {
    let r = request(&["a | b", "c d"]).resolve_checked().unwrap();
    let b = &r.settings.benchmarks;
    assert_eq!(b[0].command, CommandLine::Shell("a | b".into()));
    assert_eq!(b[1].command.argv(), ["c", "d"]);
    // The empty shell is one more benchmark, marked; the shell command is netted of it.
    assert_eq!(b[2].name, "sh -c ''");
    assert_eq!(b[2].command.argv(), ["sh", "-c", ""]);
    assert_eq!(
        r.settings.shell_roles,
        [
            ShellRole::NetOf("sh -c ''".into()),
            ShellRole::None,
            ShellRole::Startup("sh".into())
        ]
    );
    assert!(matches!(
        r.notes[0],
        rigor_report::notes::Note::ThroughShell { .. }
    ));
    // A simulated run's specification looks like an assignment to a shell, but nothing runs
    // through a shell, so nothing is said of it.
    let mut q = request(&["mean=10ms,execution=2%"]);
    q.simulate = true;
    let r = q.resolve_checked().unwrap();
    assert!(
        !r.notes
            .iter()
            .any(|n| matches!(n, rigor_report::notes::Note::ThroughShell { .. })),
        "{:?}",
        r.notes
    );
    let mut q = request(&["a | b"]);
    q.shell = Some("none".into());
    let r = q.resolve_checked().unwrap();
    assert_eq!(r.settings.benchmarks.len(), 1);
    assert_eq!(r.settings.benchmarks[0].command.argv(), ["a", "|", "b"]);
    assert!(r.notes.is_empty());
    // A run until decided measures no empty shell (it would be a candidate), nor does an
    // adaptive one (it would be held to the precision target).
    let mut q = request(&["a | b", "c | d"]);
    q.until_decided = true;
    assert_eq!(q.resolve_checked().unwrap().settings.benchmarks.len(), 2);
    let mut q = request(&["a | b"]);
    q.precision = Some(Fraction::percent(1.0).unwrap());
    assert_eq!(q.resolve_checked().unwrap().settings.benchmarks.len(), 1);
}

#[test]
fn a_temporary_build_root_lives_as_long_as_its_guard() {
    let mut q = request(&["x"]);
    q.build = Some("make".into());
    let r = q.resolve().unwrap();
    let build = r.settings.runner.build.clone().unwrap();
    assert_eq!(build.builds, DEFAULT_BUILDS);
    assert!(build.root.is_dir());
    let copy = r.settings.clone();
    drop(r);
    assert!(!copy.runner.build.unwrap().root.exists());
}

/// A counter this machine cannot count is refused before anything runs, with the reason
/// (this workplace's virtual machines have no hardware counters); where it can, it is kept.
#[cfg(target_os = "linux")]
#[test]
fn counters_are_checked_before_anything_runs() {
    use rigor_runner::{Counter, CounterError, perf};
    let mut q = request(&["true"]);
    q.counters = vec![
        Counter::Instructions,
        Counter::TaskClock,
        Counter::Instructions,
    ];
    match (q.resolve(), perf::probe(Counter::Instructions)) {
        (Ok(r), Ok(())) => assert_eq!(
            r.settings.measures.counters,
            [Counter::Instructions, Counter::TaskClock]
        ),
        (Err(RequestError::Counter(e)), Err(probed)) => {
            assert_eq!(e, probed);
            let text = RequestError::Counter(e.clone()).to_string();
            assert!(text.starts_with("--metric instructions: "), "{text}");
            if let CounterError::NoCounter { errno, .. } = e {
                assert_eq!(
                    text,
                    format!(
                        "--metric instructions: this machine's kernel exposes no hardware performance counters (common in virtual machines; perf_event_open: {})",
                        std::io::Error::from_raw_os_error(errno)
                    )
                );
            }
        }
        (r, p) => panic!("resolve and probe disagree: {:?} / {p:?}", r.map(|_| ())),
    }
    // `--metric cycles` asks for its counter.
    let mut q = request(&["true"]);
    q.metrics = vec![rigor_units::Metric::Cpu, rigor_units::Metric::Cycles];
    match (q.resolve(), perf::probe(Counter::Cycles)) {
        (Ok(r), Ok(())) => assert_eq!(r.settings.measures.counters, [Counter::Cycles]),
        (Err(e), Err(_)) => assert!(e.to_string().starts_with("--metric cycles: "), "{e}"),
        (r, p) => panic!("resolve and probe disagree: {:?} / {p:?}", r.map(|_| ())),
    }
    q.metrics = vec![rigor_units::Metric::Cpu];
    assert!(q.resolve().unwrap().settings.measures.counters.is_empty());
    // A simulated run measures no process: nothing to open.
    let mut q = request(&["mean=10ms"]);
    q.simulate = true;
    q.counters = vec![Counter::Cycles];
    assert_eq!(
        q.resolve().unwrap().settings.measures.counters,
        [Counter::Cycles]
    );
}

/// The counters asked for reach each measured execution's record, by name (the software task
/// clock, which every Linux kernel with perf events has: the busy loop runs in a subshell, a
/// child of the command, and is counted).
#[cfg(target_os = "linux")]
#[test]
fn counted_executions_keep_their_counts() {
    use rigor_runner::{Counter, ProcessExecutor, StopSignal};
    let mut q = request(&["(i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done)"]);
    q.shell = Some("default".into());
    q.executions = Some(2);
    q.counters = vec![Counter::TaskClock, Counter::TaskClock];
    let r = q.resolve().unwrap();
    assert_eq!(r.settings.measures.counters, [Counter::TaskClock]);
    let stop = StopSignal::new();
    let mut executor = ProcessExecutor::new(stop.clone())
        .unwrap()
        .with_counters(r.settings.measures.counters.clone());
    let measured = crate::run::run(
        &r.settings,
        &mut executor,
        stop,
        &mut crate::recorder::NoProgress,
    )
    .unwrap();
    let b = &measured.result.benchmarks[0];
    assert_eq!(b.executions.len(), 3, "a warm-up and 2 measured");
    for e in &b.executions {
        let clock = &e.metrics["task-clock"];
        assert_eq!(clock.unit, rigor_units::Quantity::Time);
        assert!(clock.values[0] > 0.0, "{clock:?}");
    }
    let metric: rigor_units::Metric = "task-clock".parse().unwrap();
    assert!(b.metrics().contains(&metric));
    assert_eq!(b.for_metric(&metric).unwrap().samples.len(), 3);
}

#[test]
fn an_adaptive_pilot_takes_the_iterations_the_run_will() {
    // rigor bench's pilot asks a harness for a fixed run's 100 samples per process, not 10.
    let pilot_iterations = |q: RunRequest| {
        let r = q.resolve().unwrap();
        let mut executor = rigor_runner::SimulatedExecutor::new(Seed(1));
        let measured = crate::run::run(
            &r.settings,
            &mut executor,
            rigor_runner::StopSignal::new(),
            &mut crate::recorder::NoProgress,
        )
        .unwrap();
        let b = &measured.result.benchmarks[0];
        let first = b.executions.iter().find(|e| !e.warmup).unwrap().execution;
        b.samples.iter().filter(|s| s.execution == first).count()
    };
    let mut q = request(&["mean=10us,execution=2%,iteration=1%"]);
    q.simulate = true;
    q.precision = Some(rigor_units::Fraction::new(0.05).unwrap());
    assert_eq!(pilot_iterations(q.clone()), 10);
    let bench = crate::bench::suite_request(q, None);
    assert_eq!(pilot_iterations(bench), crate::bench::HARNESS_SAMPLES);
}

/// Peak memory asked for makes the executor launch each execution (its own peak from a few MiB
/// up); otherwise executions are spawned directly, as cheaply as they can be.
#[test]
fn peak_memory_asked_for_is_measured_as_the_commands_own() {
    let mut q = request(&["true"]);
    assert!(!q.resolve().unwrap().settings.measures.own_peak_memory);
    q.metrics = vec![rigor_units::Metric::Wall, rigor_units::Metric::PeakMemory];
    assert!(q.resolve().unwrap().settings.measures.own_peak_memory);
}

/// Words given as commands that look like the first one's arguments are said; commands that are
/// commands are not.
#[test]
fn words_that_look_like_arguments_are_said() {
    let words = |c: &[&str]| {
        let c: Vec<String> = c.iter().map(|s| s.to_string()).collect();
        super::words_as_commands(&c).map(|n| n.to_string())
    };
    let said = words(&["dd", "if=/dev/zero", "of=/dev/null", "sleep 1"]).unwrap();
    assert_eq!(
        said,
        "note: 'if=/dev/zero', 'of=/dev/null' look like arguments of 'dd', but each word given is \
         a command of its own (as in hyperfine): to measure one command with its arguments, quote \
         it ('dd if=/dev/zero of=/dev/null')"
    );
    assert!(
        words(&["ls", "-l"])
            .unwrap()
            .starts_with("note: '-l' looks like an argument of 'ls'")
    );
    // A number, and a file that is no program: a command's arguments given apart.
    assert!(
        words(&["./work", "40000000"])
            .unwrap()
            .starts_with("note: '40000000' looks like an argument of './work'")
    );
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.txt");
    std::fs::write(&data, "x").unwrap();
    let data = data.display().to_string();
    assert!(words(&["gzip", &data]).is_some());
    assert_eq!(words(&["sleep 0.1", "sleep 0.2"]), None);
    assert_eq!(words(&["./a", "/bin/true"]), None);
    assert_eq!(words(&["FOO=1 ./a", "./b"]), None);
    assert_eq!(words(&["-x"]), None);
    // Resolving says it (and a simulated run, whose commands are specifications, does not).
    let q = request(&["dd", "bs=1M"]);
    let r = q.resolve().unwrap();
    assert!(
        r.notes
            .iter()
            .any(|n| matches!(n, rigor_report::notes::Note::WordsAsCommands { .. })),
        "{:?}",
        r.notes
    );
}

/// `--export-json` and `--export-csv` are hyperfine's option names with rigor's formats: said,
/// with the options that write hyperfine's; not said without them.
#[test]
fn hyperfine_export_names_in_rigor_formats_are_said() {
    use rigor_report::notes::Note;
    let own = |json: bool, csv: bool| {
        let mut q = request(&["x"]);
        q.exports.json = json.then(|| "r.json".into());
        q.exports.csv = csv.then(|| "r.csv".into());
        q.resolve()
            .unwrap()
            .notes
            .into_iter()
            .find_map(|n| matches!(n, Note::OwnFormats(_)).then(|| n.to_string()))
    };
    assert_eq!(own(false, false), None);
    // Beside the hyperfine option of the same format, the user knows the two apart.
    let mut q = request(&["x"]);
    q.exports.json = Some("r.json".into());
    q.exports.hyperfine_json = Some("h.json".into());
    let notes = q.resolve().unwrap().notes;
    assert!(
        !notes.iter().any(|n| matches!(n, Note::OwnFormats(_))),
        "{notes:?}"
    );
    let json = own(true, false).unwrap();
    assert!(
        json.contains("--export-json writes rigor's own format")
            && json.ends_with("--export-json-hyperfine writes hyperfine's"),
        "{json}"
    );
    let both = own(true, true).unwrap();
    assert!(
        both.contains("--export-json and --export-csv write"),
        "{both}"
    );
}

/// One `--setup` for several interleaved commands runs once for all, where hyperfine runs it
/// around each command's runs: said; not for one command, nor for setups that differ (which
/// run each command in a block of its own, said as such).
#[test]
fn one_setup_for_interleaved_commands_is_said() {
    use rigor_report::notes::Note;
    let said = |commands: &[&str], setup: &[&str]| {
        let mut q = request(commands);
        q.hooks.setup = setup.iter().map(|s| s.to_string()).collect();
        q.resolve()
            .unwrap()
            .notes
            .into_iter()
            .find_map(|n| matches!(n, Note::HooksOnceForAll { .. }).then(|| n.to_string()))
    };
    let note = said(&["a", "b"], &["make"]).unwrap();
    assert!(
        note.starts_with("note: --setup runs once before all commands, as the commands"),
        "{note}"
    );
    assert_eq!(said(&["a"], &["make"]), None);
    assert_eq!(said(&["a", "b"], &[]), None);
    assert_eq!(said(&["a", "b"], &["make a", "make b"]), None);
}

/// Builds share rounds when every command runs its own build: from `{build_dir}`, or by index
/// (`out{build}/prog`, as `rigor bench --builds` runs its layouts); a command that names
/// neither runs whatever the last build left, so each build keeps a block of its own.
#[test]
fn builds_share_rounds_only_when_each_command_names_its_build() {
    let interleaved = |command: &str| {
        let mut q = request(&[command]);
        q.build = Some("true".into());
        q.builds = Some(3);
        q.executions = Some(2);
        let r = q.resolve().unwrap();
        r.settings.runner.build.as_ref().unwrap().interleaved
    };
    assert!(interleaved("{build_dir}/prog"));
    assert!(interleaved("out{build}/prog"));
    assert!(!interleaved("./prog"));
    assert!(!interleaved("./prog --seed {build_seed}"));
}
