//! Notes a command prints on standard error after `rigor: `: what the user should know about
//! the settings or the outcome, each from the facts a use case returned.

use std::fmt;

/// A baseline's evaluations per sample beside those tuned now ([`Note::Tuned`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeptEvals {
    /// The baseline's count.
    pub baseline: u64,
    /// The count tuned now.
    pub tuned: u64,
}

/// The time per execution below which a command's time is noted as much of it process start-up
/// ([`Note::StartupDominated`]): 5 ms, where hyperfine warns about its shell's start-up too.
pub const SHORT_EXECUTION: f64 = 5e-3;

/// One note.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Note {
    /// A benchmark took the plan of another name, in its place in the plan file.
    PlanMatchedByPosition {
        /// The benchmark.
        benchmark: String,
        /// The plan's name for it.
        plan: String,
    },
    /// The plan counts the steady iterations after warm-up ones its pilot found (planned with
    /// `--discard auto`), and the run discards fewer: the warm-up ones are measured with the
    /// rest.
    PlanWarmup {
        /// The benchmarks, each with the warm-up iterations its plan found.
        benchmarks: Vec<(String, usize)>,
    },
    /// `--discard` found no iterations to discard in these benchmarks (only wall time).
    NothingDiscarded {
        /// The benchmarks.
        benchmarks: Vec<String>,
    },
    /// A benchmark failed or measured nothing, or a metric asked for is in no benchmark (exit
    /// status 2).
    Failed {
        /// The benchmarks that failed or measured nothing.
        benchmarks: Vec<String>,
        /// A metric asked for is in no benchmark.
        metric_missing: bool,
    },
    /// A benchmarked command exited with a non-zero status, and `-i` was not given.
    IgnoreFailure,
    /// With `-i`, executions of these benchmarks crashed (a signal) or timed out: recorded and
    /// skipped, where hyperfine's `-i` keeps their times.
    CrashesSkipped {
        /// The benchmarks.
        benchmarks: Vec<String>,
    },
    /// A saved benchmark measured nothing (exit status 2).
    NothingMeasured,
    /// `--metric` names no wall time, but the run's length (`--precision`, `--budget`,
    /// `--until-decided`, the default length) was decided on wall time.
    LengthOnWallTime,
    /// Exports for other tools were asked for, but `--metric` left out wall time, which they
    /// hold: they were not written.
    ToolExportsNeedWall,
    /// `--fail-on` matched (exit status 1).
    Gated,
    /// The command could not answer its question (an undecided bisection): exit status 1.
    Undecided,
    /// A command other than `run` stopped by Ctrl-C (or SIGTERM): what it shows was measured
    /// before the stop.
    Stopped,
    /// `--fail-on RULE` on verdicts with no comparison to judge (one command): it cannot fail,
    /// and a CI job set up so would pass green without a word.
    NothingToGate {
        /// The rule as given (`regression`).
        rule: String,
    },
    /// A run stopped by Ctrl-C (or SIGTERM): what it shows is what was measured before; `kept`:
    /// the file that keeps it, as it was written (`--export-json`).
    Interrupted {
        /// The file.
        kept: Option<String>,
    },
    /// `rigor bench` builds the bench targets.
    Building,
    /// A bench target is not a rigor-bench harness.
    NotRigorBench {
        /// The target.
        target: String,
        /// What it answered.
        said: String,
    },
    /// Filters of `rigor bench` that matched no benchmark, where others did.
    FiltersUnmatched {
        /// The filters.
        filters: Vec<String>,
        /// `--exact`: filters are whole names.
        exact: bool,
    },
    /// `rigor bench` tunes this many benchmarks.
    Tuning(usize),
    /// The settings a group of a bench target (rigor-bench's `Harness::group`) gives its
    /// benchmarks in this run, and those the command line replaced.
    FromGroup {
        /// The group.
        group: String,
        /// How many of its benchmarks run.
        benchmarks: usize,
        /// Its settings this run takes.
        taken: Vec<GroupSetting>,
        /// Its settings the command line replaced, each with the option that did.
        replaced: Vec<(GroupSetting, String)>,
    },
    /// A benchmark's tuning: evaluations per sample, the time per evaluation it was tuned at,
    /// and allocations and bytes per iteration when counted.
    Tuned {
        /// The benchmark.
        name: String,
        /// Evaluations per sample.
        evals: u64,
        /// Time per evaluation.
        per_eval: Option<rigor_units::Seconds>,
        /// The baseline's count, when it measured this benchmark.
        baseline: Option<KeptEvals>,
        /// Allocations and bytes per iteration.
        allocs: Option<(f64, f64)>,
    },
    /// A benchmark whose executions take long: each takes `samples` samples of `per_sample`
    /// (a 2 s routine's 100 samples ran 13 minutes with nothing said but its tuning).
    LongExecutions {
        /// The benchmark.
        name: String,
        /// Samples per execution.
        samples: usize,
        /// One sample's time (its evaluations' at the tuned time per evaluation).
        per_sample: rigor_units::Seconds,
        /// The measured executions, where fixed (not an adaptive run's).
        executions: Option<usize>,
    },
    /// A benchmark's tuning failed (its process panicked, crashed or ran past the time allowed):
    /// it is left out of the run, whose exit status is then 2.
    TuningFailed {
        /// The benchmark.
        name: String,
        /// How its process ended.
        how: String,
        /// Its standard error (the end of it: a panic's line is found in it, and the last few
        /// lines shown).
        stderr_tail: String,
    },
    /// The result was saved as a baseline.
    BaselineSaved(std::path::PathBuf),
    /// The run was interrupted: the baseline was left as it was, and what was measured kept
    /// beside it.
    BaselineNotSaved {
        /// The baseline file, as it was.
        path: std::path::PathBuf,
        /// Where the interrupted run's measurements are.
        measured: std::path::PathBuf,
    },
    /// A baseline saved by a run of some of its benchmarks kept the others from before.
    BaselineKept {
        /// The baseline file.
        path: std::path::PathBuf,
        /// The benchmarks measured now.
        measured: usize,
        /// The benchmarks kept from the previous save.
        kept: usize,
    },
    /// A run of the default length stopped short of its target: more executions would have
    /// taken over the budget.
    DefaultLengthBudget {
        /// Executions each command ran.
        executions: usize,
        /// The target.
        target: usize,
        /// The budget per command.
        budget: rigor_units::Seconds,
    },
    /// `--shell VALUE` given apart with a program rigor does not know as a shell: the value was
    /// benchmarked as the first command, through `sh`.
    ShellValueIsCommand {
        /// The value.
        value: String,
    },
    /// Commands whose executions take so little (under [`SHORT_EXECUTION`]) that starting the
    /// process is much of their time.
    StartupDominated {
        /// Each command, with its mean time per execution.
        benchmarks: Vec<(String, rigor_units::Seconds)>,
    },
    /// A run of a plan's counts for `--precision` ended with intervals wider than the target:
    /// the plan's pilot saw less variance than the run did.
    PlanShort {
        /// The target relative half-width.
        target: rigor_units::Fraction,
        /// Each benchmark short of it, with its interval's relative half-width.
        benchmarks: Vec<(String, f64)>,
    },
    /// `--reference` was none of the benchmarks: it is benchmarked first, as the reference
    /// (hyperfine 1.20's `--reference CMD`).
    ReferenceAdded {
        /// Its command.
        command: String,
    },
    /// Commands (or hooks) with shell syntax run through `sh`, each with what it has.
    ThroughShell {
        /// Each command (or `--prepare …` for a hook) and the syntax found in it.
        commands: Vec<(String, String)>,
    },
    /// One `--setup` (`setup`) or `--cleanup` (`cleanup`) for every command of an interleaved
    /// run: run once before (after) all of them, where hyperfine runs them around each command's
    /// runs.
    HooksOnceForAll {
        /// A setup was given.
        setup: bool,
        /// A cleanup was given.
        cleanup: bool,
    },
    /// `--export-json` or `--export-csv` (named): hyperfine's option names, written in rigor's
    /// own formats; hyperfine's are `--export-json-hyperfine` and `--export-csv-hyperfine`.
    OwnFormats(Vec<&'static str>),
    /// Commands after the first that are one word looking like an argument (`if=/dev/zero`,
    /// `-x`): each word given is a command of its own (as in hyperfine), so the user probably
    /// meant one quoted command.
    WordsAsCommands {
        /// The first command.
        first: String,
        /// The words that look like its arguments.
        words: Vec<String>,
    },
    /// The benchmarks' setups or cleanups differ, so each ran in a block of its own.
    NotInterleaved,
    /// Builds with counts known before the run, but a benchmarked command that does not name
    /// `{build_dir}`: its builds cannot live side by side, so each build's executions run in a
    /// block of their own, after it is made.
    BuildsInBlocks,
    /// The empty shell is measured beside the commands run through it, to report them net of
    /// its start-up.
    ShellStartup {
        /// The start-up benchmarks (`sh -c ''`).
        benchmarks: Vec<String>,
    },
    /// `rigor bench --against` builds the other build (in its kept checkout, for a revision).
    BuildingAgainst {
        /// The other build as the user named it.
        against: String,
        /// The checkout it is built in, for a revision.
        checkout: Option<std::path::PathBuf>,
    },
    /// `rigor bench --builds N`: each side linked N times in shuffled orders.
    BuildingLayouts {
        /// Builds per side.
        builds: usize,
        /// The other build's label (`--against`), if any.
        against: Option<String>,
    },
    /// `rigor bench --against` cannot link layouts: the bench targets were not linked by lld.
    LayoutsNeedLld {
        /// The other build's label.
        against: String,
    },
    /// `rigor bench --baseline` with another count of builds (layouts) than the baseline's.
    BaselineLayouts {
        /// The baseline's builds.
        saved: usize,
        /// This run's.
        run: usize,
    },
    /// `rigor bench --builds`: the layouts were linked.
    LayoutsLinked {
        /// Executables linked (targets × builds × sides).
        links: usize,
        /// Compilations of bench targets they took.
        compilations: usize,
        /// How long it took.
        took: rigor_units::Seconds,
    },
    /// `rigor bench --against` with one build per side: the comparison covers one layout of each.
    OneLayoutPerSide {
        /// The other build's label.
        against: String,
    },
    /// The minimum's interval covers one run's processes, not the spread between sessions
    /// (`rigor bench` without `--against`; `baseline`: compared with a saved baseline).
    MinimumWithinRun {
        /// A saved baseline was compared with.
        baseline: bool,
    },
    /// A run's comparisons reached verdicts whose intervals hold what varied during the run;
    /// another run can move a ratio by more (the run level), which only several runs measure.
    OneRun,
    /// Benchmarks only one of the two builds of `rigor bench --against` has: not measured.
    OnlyInOneBuild {
        /// The other build.
        against: String,
        /// The benchmarks (the other build's named `NAME @ AGAINST`).
        benchmarks: Vec<String>,
    },
    /// A simulated benchmark (`--simulate`) measured times at or below zero: the simulator draws
    /// normal noise around the mean, and components as large as its spec's reach below zero.
    NonPositiveSimulated {
        /// The benchmark (its spec).
        benchmark: String,
        /// How many of its measured values are at or below zero.
        count: usize,
        /// How many values it measured.
        of: usize,
    },
    /// `rigor track --export-json DIR/NAME.json`: the result files go into `DIR`, one per batch
    /// of versions measured together, each named by its versions; `NAME` is not used.
    ExportFolder {
        /// The folder.
        folder: std::path::PathBuf,
        /// The file name given.
        name: String,
    },
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DefaultLengthBudget {
                executions,
                target,
                budget,
            } => write!(
                f,
                "note: {executions} executions each: {target} would have taken over the default \
                 {} s per command (-r {target}, or --budget, for more)",
                budget.get()
            ),
            Self::ShellValueIsCommand { value } => write!(
                f,
                "note: '{value}' after --shell is no shell rigor knows (sh, bash, zsh, fish, …): \
                 it is benchmarked as the first command, through sh. To run the commands with \
                 `{value} -c`, as hyperfine's --shell {value} does, write --shell={value}"
            ),
            Self::StartupDominated { benchmarks } => {
                let list: Vec<String> = benchmarks
                    .iter()
                    .map(|(name, t)| format!("'{name}' {t}"))
                    .collect();
                write!(
                    f,
                    "note: under {} ms an execution ({}; the median, less any wait for a CPU): \
                     much of such a time is starting the \
                     process (fork, exec, loading its libraries), which every execution pays. For \
                     the code's own time have the program time its work and report it \
                     (--iterations-from, $RIGOR_SAMPLES_FILE), or use `rigor bench` for Rust",
                    SHORT_EXECUTION * 1e3,
                    list.join(", ")
                )
            }
            Self::PlanShort { target, benchmarks } => {
                let list: Vec<String> = benchmarks
                    .iter()
                    .map(|(name, r)| format!("{name} ±{}", crate::format::percent(100.0 * r)))
                    .collect();
                let target = crate::format::percent(100.0 * target.get());
                write!(
                    f,
                    "note: the plan's counts for ±{target} gave wider intervals: {}. A plan \
                     predicts from its pilot's variance; `rigor plan` again, or --precision \
                     {target} without --plan, which measures until the interval is there",
                    list.join(", ")
                )
            }
            Self::ReferenceAdded { command } => write!(
                f,
                "note: --reference '{command}' is none of the benchmarks: it is benchmarked too, \
                 first, as the reference the others are compared with (hyperfine 1.20's \
                 --reference CMD)"
            ),
            Self::ThroughShell { commands } => {
                // A hook is given as `--prepare TEXT`: the option, then its text quoted.
                let list: Vec<String> = commands
                    .iter()
                    .map(|(c, why)| match c.split_once(' ') {
                        Some((option, text)) if option.starts_with("--") => {
                            format!("{option} '{text}' ({why})")
                        }
                        _ => format!("'{c}' ({why})"),
                    })
                    .collect();
                write!(
                    f,
                    "note: running through sh -c, for their shell syntax: {}; --shell none \
                     (-N) runs them directly",
                    list.join(", ")
                )
            }
            // A command run directly beside them is compared with the start-up on one side
            // only: each such comparison warns of it (`Warning::StartupOneSide`).
            Self::ShellStartup { benchmarks } => write!(
                f,
                "note: {} (the shell's start-up) is measured in the same rounds, and each \
                 command run through that shell is also shown net of it, the start-up's variance \
                 included; comparisons use the times as measured (between commands run through \
                 the shell the start-up cancels in their differences, not in their ratios)",
                benchmarks.join(", ")
            ),
            Self::HooksOnceForAll { setup, cleanup } => {
                let what = match (setup, cleanup) {
                    (true, true) => {
                        "--setup runs once before all commands and --cleanup once \
                                     after them"
                    }
                    (true, false) => "--setup runs once before all commands",
                    _ => "--cleanup runs once after all commands",
                };
                write!(
                    f,
                    "note: {what}, as the commands are measured interleaved (hyperfine runs them \
                     around each command's runs); one per command runs each command in a block \
                     of its own"
                )
            }
            Self::OwnFormats(options) => write!(
                f,
                "note: {} write{} rigor's own format{} (every execution, with its analysis), not \
                 hyperfine's; {} write{} hyperfine's",
                options.join(" and "),
                if options.len() == 1 { "s" } else { "" },
                if options.len() == 1 { "" } else { "s" },
                options
                    .iter()
                    .map(|o| format!("{o}-hyperfine"))
                    .collect::<Vec<_>>()
                    .join(" and "),
                if options.len() == 1 { "s" } else { "" },
            ),
            Self::WordsAsCommands { first, words } => {
                let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
                write!(
                    f,
                    "note: {} {} of '{first}', but each word given is a \
                     command of its own (as in hyperfine): to measure one command with its \
                     arguments, quote it ('{first} {}')",
                    quoted.join(", "),
                    if words.len() == 1 {
                        "looks like an argument"
                    } else {
                        "look like arguments"
                    },
                    words.join(" ")
                )
            }
            Self::NotInterleaved => write!(
                f,
                "note: the benchmarks' --setup or --cleanup commands differ, so they were not \
                 interleaved: each ran in a block of its own (its setup, its executions, its \
                 cleanup), one after another"
            ),
            Self::BuildsInBlocks => write!(
                f,
                "note: each build's executions run in a block of their own, after it is made: a \
                 benchmarked command does not name {{build_dir}}, so it runs whatever the last \
                 build left. Build into {{build_dir}} and run the program from there to measure \
                 every build in the same rounds, where load that drifts over the run falls on all \
                 builds alike instead of on the builds measured last"
            ),
            Self::PlanMatchedByPosition { benchmark, plan } => write!(
                f,
                "note: the plan has no benchmark named '{benchmark}': it gets the plan of \
                 '{plan}', the benchmark in its place in the plan file"
            ),
            Self::PlanWarmup { benchmarks } => {
                let each: Vec<String> = benchmarks
                    .iter()
                    .map(|(b, w)| format!("'{b}' after {w}"))
                    .collect();
                write!(
                    f,
                    "warning: the plan counts steady iterations after the warm-up ones its pilot \
                     found ({}, planned with --discard auto), and this run discards fewer: the \
                     warm-up iterations are measured with the rest; add --discard auto",
                    each.join(", ")
                )
            }
            Self::NothingDiscarded { benchmarks } => write!(
                f,
                "note: --discard drops warm-up iterations, and {} reported none (only its wall \
                 time was measured): nothing was discarded there; -w/--warmup skips whole \
                 executions",
                benchmarks.join(", ")
            ),
            Self::Failed {
                benchmarks,
                metric_missing,
            } => {
                let names: Vec<String> = benchmarks.iter().map(|b| format!("'{b}'")).collect();
                let failed = (!names.is_empty())
                    .then(|| format!("{} failed or measured nothing", names.join(", ")));
                let missing = metric_missing.then_some("a metric asked for is in no benchmark");
                let what = match (failed, missing) {
                    (Some(a), Some(b)) => format!("{a}, and {b}"),
                    (Some(a), None) => a,
                    (None, Some(b)) => b.to_string(),
                    (None, None) => "the run failed".to_string(),
                };
                write!(f, "{what} (shown above), exit status 2")
            }
            Self::CrashesSkipped { benchmarks } => write!(
                f,
                "note: -i measures executions that exit with a non-zero status; those killed by \
                 a signal or a timeout ({}) are recorded and not measured, where hyperfine's -i \
                 keeps their times",
                benchmarks.join(", ")
            ),
            Self::IgnoreFailure => f.write_str(
                "to measure a command whose exit status is not zero, use -i/--ignore-failure",
            ),
            Self::NothingMeasured => {
                f.write_str("a benchmark measured nothing (shown above), exit status 2")
            }
            Self::Gated => f.write_str("--fail-on matched (shown above), exit status 1"),
            Self::Undecided => f.write_str("undecided (shown above), exit status 1"),
            Self::Stopped => f.write_str(
                "interrupted: what is shown above was measured before the stop, and is not a \
                 verdict of the whole measurement, exit status 130",
            ),
            Self::NothingToGate { rule } => write!(
                f,
                "note: --fail-on {rule} had no comparison to judge (one command), so it cannot \
                 fail: give two or more commands (the first, or --reference, is compared with \
                 the others), or compare with a saved result (rigor compare, rigor bench \
                 --baseline)"
            ),
            Self::Interrupted { kept } => write!(
                f,
                "interrupted: what is shown above is what was measured before the stop, fewer \
                 executions than asked (or none); {}, exit status 130",
                match kept {
                    Some(file) => format!("{file} keeps every execution measured"),
                    None => "no file keeps them (--export-json FILE writes each execution as it \
                             completes)"
                        .to_string(),
                }
            ),
            Self::NonPositiveSimulated {
                benchmark,
                count,
                of,
            } => write!(
                f,
                "note: {count} of the {of} simulated values of '{benchmark}' are zero or \
                 negative, which no program takes: the simulator draws normal noise around the \
                 mean, and components this large reach below zero (keep their total under a \
                 third of the mean, or give the slow side as tail=)"
            ),
            Self::ExportFolder { folder, name } => write!(
                f,
                "the result files go into {} (one per batch of versions measured together, each \
                 named by its first version and the seed); the name {name} is not used",
                folder.display()
            ),
            Self::Building => f.write_str("building the bench targets (cargo bench --no-run)"),
            Self::NotRigorBench { target, said } => write!(
                f,
                "skipping bench target '{target}': not a rigor-bench harness ({said})"
            ),
            Self::FiltersUnmatched { filters, exact } => {
                let names: Vec<String> = filters.iter().map(|x| format!("'{x}'")).collect();
                write!(
                    f,
                    "warning: no benchmark {} {}: selecting what the other filters match \
                     (`rigor bench --list` lists the names)",
                    if *exact { "is named" } else { "matches" },
                    names.join(", ")
                )
            }
            Self::Tuning(n) => write!(f, "tuning evaluations per sample for {n} benchmark(s)"),
            Self::FromGroup {
                group,
                benchmarks,
                taken,
                replaced,
            } => f.write_str(&from_group(group, *benchmarks, taken, replaced)),
            Self::Tuned {
                name,
                evals,
                per_eval,
                allocs,
                baseline,
            } => f.write_str(&tuned(name, *evals, *per_eval, *allocs, *baseline)),
            Self::LongExecutions {
                name,
                samples,
                per_sample,
                executions,
            } => {
                // Minutes past two of them: "2000 s" is read as a number, not a wait.
                let long = |s: f64| match s / 60.0 {
                    m if m >= 10.0 => format!("{m:.0} min"),
                    m if m >= 2.0 => format!("{m:.1} min"),
                    _ => rigor_units::Seconds::new(s).to_string(),
                };
                let each_s = per_sample.get() * *samples as f64;
                let each = long(each_s);
                let all = executions.map_or(String::new(), |n| {
                    format!(
                        "; its {n} executions about {} in all (warm-up not counted)",
                        long(each_s * n as f64)
                    )
                });
                write!(
                    f,
                    "{name}: each execution takes {samples} samples of {per_sample}, about \
                     {each}{all}. --iterations N takes fewer samples per execution, -r N fewer \
                     executions, --budget a time"
                )
            }
            Self::TuningFailed {
                name,
                how,
                stderr_tail,
            } => {
                write!(
                    f,
                    "'{name}' is left out: tuning its evaluations per sample failed ({how}); the \
                     other benchmarks are measured"
                )?;
                let shown = crate::terminal::stderr_excerpt(stderr_tail, 6);
                if shown.is_empty() {
                    Ok(())
                } else {
                    write!(f, "; stderr ends:\n    {}", shown.replace('\n', "\n    "))
                }
            }
            Self::BaselineSaved(path) => write!(f, "baseline saved to {}", path.display()),
            Self::BaselineNotSaved { path, measured } => write!(
                f,
                "the run was interrupted: the baseline {} is left as it was (an interrupted \
                 run neither replaces it nor counts as one of its sessions); what was measured \
                 is in {}",
                path.display(),
                measured.display()
            ),
            Self::BaselineKept {
                path,
                measured,
                kept,
            } => write!(
                f,
                "baseline saved to {}: {measured} benchmark(s) measured now, {kept} kept from its \
                 previous save (not selected this time)",
                path.display()
            ),
            Self::LengthOnWallTime => f.write_str(
                "note: how long the run measured (--precision, --budget, --until-decided, the \
                 default length) was decided on wall time; the metrics shown were not what it \
                 stopped on",
            ),
            Self::ToolExportsNeedWall => f.write_str(
                "the exports for other tools hold wall times, and --metric left wall time out: \
                 they were not written (add wall to --metric)",
            ),
            Self::OneRun => f.write_str(
                "note: a comparison's interval holds what varied during this run; the machine's \
                 state can move a ratio by more from one run to the next (runs back to back on a \
                 quiet machine differed by 2-3 times their intervals). For an interval across \
                 runs, save each run (--export-json RUN1.json, RUN2.json, …) and analyse them \
                 together: rigor analyze RUN1.json RUN2.json … (5 runs or more)",
            ),
            Self::MinimumWithinRun { baseline: false } => f.write_str(
                "note: the minimum's intervals cover this run's executions; between sessions a \
                 minimum moves by more than they show (to compare two builds, measure them \
                 together: rigor bench --against REV|DIR)",
            ),
            Self::MinimumWithinRun { baseline: true } => f.write_str(
                "note: the baseline was measured in other sessions, and a minimum moves between \
                 sessions by more than one run's interval shows: the comparison carries the \
                 spread between the baseline's saved sessions (a baseline saved once gives no \
                 verdict, and sessions saved back to back show less spread than a later \
                 session under another load); rigor bench --against REV|DIR measures both \
                 builds together",
            ),
            Self::BuildingLayouts { builds, against } => write!(
                f,
                "linking {builds} builds of {} with the functions in shuffled orders (lld's \
                 --shuffle-sections, seeds drawn from the run's seed): code layout is the top \
                 level, as builds are in Kalibera & Tůma 2006",
                match against {
                    Some(a) => format!("each side (this one and {a})"),
                    None => "the bench targets".to_string(),
                }
            ),
            Self::BaselineLayouts { saved, run } => write!(
                f,
                "warning: the baseline was measured in {saved} build{} (code layouts) and this \
                 run in {run}: a minimum over more layouts is the best of more, lower by itself, \
                 and the comparison takes that for a change; save and compare with the same \
                 --builds",
                if *saved == 1 { "" } else { "s" }
            ),
            Self::LayoutsLinked {
                links,
                compilations,
                took,
            } => write!(
                f,
                "linked {links} layout{} from {compilations} compilation{} in {:.1} s (the \
                 builds' own times in the result are only those of putting each in place)",
                if *links == 1 { "" } else { "s" },
                if *compilations == 1 { "" } else { "s" },
                took.get()
            ),
            Self::LayoutsNeedLld { against } => write!(
                f,
                "the bench targets were not linked by lld, whose --shuffle-sections links the \
                 builds of each side in shuffled code layouts: measuring one build of this side \
                 and of {against} (with RUSTFLAGS=\"-C link-arg=-fuse-ld=lld\" rigor links six \
                 of each)"
            ),
            Self::OneLayoutPerSide { against } => write!(
                f,
                "one build of each side was compared: a difference can come from where the \
                 linker put the code as much as from the code (a function that did not change \
                 moves when one before it grows); without --builds 1, --until-decided, \
                 --precision or --budget, rigor links six layouts of this build and of {against} \
                 and compares across them"
            ),
            Self::BuildingAgainst { against, checkout } => match checkout {
                Some(dir) => write!(
                    f,
                    "building {against} in {} (kept for the next comparison)",
                    dir.display()
                ),
                None => write!(f, "building the bench targets of {against}"),
            },
            Self::OnlyInOneBuild {
                against,
                benchmarks,
            } => write!(
                f,
                "not measured, in one build only (this one or {against}): {}",
                benchmarks.join(", ")
            ),
        }
    }
}

/// How many units a run measures, as its opening line says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// Adaptive.
    Adaptive,
    /// Until decided: executions per build (with builds), and the most rounds.
    UntilDecided {
        /// Executions per build, when builds are the top level.
        per_build: Option<usize>,
        /// The most rounds.
        max_rounds: usize,
    },
    /// The default length: `target` executions, fewer (at least `first`) when they would take
    /// more than `budget` per command.
    DefaultLength {
        /// The fewest executions.
        first: usize,
        /// The executions when the budget allows.
        target: usize,
        /// Measured time per command.
        budget: rigor_units::Seconds,
    },
    /// Fixed counts.
    Fixed {
        /// Builds, when builds are the top level.
        builds: Option<usize>,
        /// Executions (per build).
        executions: usize,
    },
}

/// "3 commands, 10 executions each, seed 42" (after `rigor: `); "3 benchmarks" when
/// `parameterised` (one command and `-L n 1,2,3` is three benchmarks, not three commands).
pub fn opening(
    commands: usize,
    parameterised: bool,
    shape: Shape,
    seed: rigor_units::Seed,
) -> String {
    let shape = match shape {
        Shape::Adaptive => "adaptive".to_string(),
        Shape::UntilDecided {
            per_build,
            max_rounds,
        } => {
            let round = per_build.map_or("1 execution".to_string(), |e| {
                format!("1 build × {e} executions")
            });
            format!("until decided (rounds of {round} each, at most {max_rounds})")
        }
        Shape::DefaultLength {
            first,
            target,
            budget,
        } => format!(
            "{target} executions each ({first} or more when {target} would take over {} s per \
             command; -r N to choose)",
            budget.get()
        ),
        Shape::Fixed { builds, executions } => {
            let builds = builds.map_or(String::new(), |b| format!("{b} builds × "));
            format!("{builds}{executions} executions each")
        }
    };
    let what = if parameterised {
        crate::format::count(commands, "benchmark", "benchmarks")
    } else {
        crate::format::count(commands, "command", "commands")
    };
    format!("{what}, {shape}, seed {seed}")
}

/// A benchmark's tuning (`rigor bench`): evaluations per sample, the time per evaluation it
/// was tuned at, and allocations and bytes per iteration when counted.
/// A setting of a bench target's group (rigor-bench's `Harness::group`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GroupSetting {
    /// Samples per execution.
    Samples(usize),
    /// Evaluations per sample, fixed rather than tuned.
    Evals(u64),
    /// The warm-up the harness runs in every process.
    WarmUp(rigor_units::Seconds),
}

impl fmt::Display for GroupSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = |n: u64| if n == 1 { "" } else { "s" };
        match self {
            Self::Samples(n) => write!(f, "{n} sample{} per execution", s(*n as u64)),
            Self::Evals(n) => write!(f, "{n} evaluation{} per sample", s(*n)),
            Self::WarmUp(t) if t.0 > 0.0 => write!(f, "a warm-up of {t} in every process"),
            Self::WarmUp(_) => f.write_str("no warm-up"),
        }
    }
}

fn from_group(
    group: &str,
    benchmarks: usize,
    taken: &[GroupSetting],
    replaced: &[(GroupSetting, String)],
) -> String {
    let mut text = format!(
        "group '{group}' ({benchmarks} benchmark{})",
        if benchmarks == 1 { "" } else { "s" }
    );
    if !taken.is_empty() {
        let taken: Vec<String> = taken.iter().map(ToString::to_string).collect();
        text += &format!(": {}", taken.join(", "));
    }
    for (setting, option) in replaced {
        text += &format!("; {option} replaces its {setting}");
    }
    text
}

fn tuned(
    name: &str,
    evals: u64,
    per_eval: Option<rigor_units::Seconds>,
    allocs: Option<(f64, f64)>,
    baseline: Option<KeptEvals>,
) -> String {
    let mut text = format!(
        "{name}: {evals} evaluation{} per sample",
        if evals == 1 { "" } else { "s" }
    );
    let at = per_eval.map_or(String::new(), |t| format!(" at {t} per evaluation"));
    match baseline {
        Some(k) if k.baseline == evals && k.tuned != evals => {
            text += &format!(" as in the baseline (tuning now gives {}{at})", k.tuned);
        }
        Some(k) if k.baseline != evals => {
            text += &format!(
                " (tuned{at}; the baseline's {} would make each sample {}× as long)",
                k.baseline,
                k.baseline / evals.max(1)
            );
        }
        _ if per_eval.is_some() => text += &format!(" (tuned{at})"),
        _ => {}
    }
    if let Some((allocations, bytes)) = allocs {
        let count = |v: f64| {
            if v.fract() == 0.0 {
                format!("{v}")
            } else {
                rigor_units::significant(v)
            }
        };
        text += &format!(
            ", {} allocations and {} bytes per iteration",
            count(allocations),
            count(bytes)
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_opening_line_names_the_shape_of_the_run() {
        let seed = rigor_units::Seed(7);
        let fixed = Shape::Fixed {
            builds: Some(5),
            executions: 3,
        };
        assert_eq!(
            opening(2, false, fixed, seed),
            "2 commands, 5 builds × 3 executions each, seed 7"
        );
        assert_eq!(
            opening(3, true, fixed, seed),
            "3 benchmarks, 5 builds × 3 executions each, seed 7"
        );
        let decided = Shape::UntilDecided {
            per_build: None,
            max_rounds: 200,
        };
        assert_eq!(
            opening(1, false, decided, seed),
            "1 command, until decided (rounds of 1 execution each, at most 200), seed 7"
        );
    }

    #[test]
    fn tuning_counts_whole_allocations_as_integers() {
        let note = Note::FromGroup {
            group: "sort".into(),
            benchmarks: 4,
            taken: vec![
                GroupSetting::Evals(5),
                GroupSetting::WarmUp(rigor_units::Seconds(0.01)),
            ],
            replaced: vec![(GroupSetting::Samples(20), "--iterations".into())],
        };
        assert_eq!(
            note.to_string(),
            "group 'sort' (4 benchmarks): 5 evaluations per sample, a warm-up of 10.00 ms in \
             every process; --iterations replaces its 20 samples per execution"
        );
        let long = Note::LongExecutions {
            name: "slow".into(),
            samples: 100,
            per_sample: rigor_units::Seconds::new(2.0),
            executions: Some(10),
        };
        assert_eq!(
            long.to_string(),
            "slow: each execution takes 100 samples of 2.000 s, about 3.3 min; its 10 \
             executions about 33 min in all (warm-up not counted). --iterations N takes fewer \
             samples per execution, -r N fewer executions, --budget a time"
        );
        let note = Note::Tuned {
            name: "sum".into(),
            evals: 1,
            per_eval: None,
            allocs: Some((2.0, 0.5)),
            baseline: None,
        };
        assert_eq!(
            note.to_string(),
            "sum: 1 evaluation per sample, 2 allocations and 0.500 bytes per iteration"
        );
        let tuned = |evals, baseline, tuned| Note::Tuned {
            name: "mix".into(),
            evals,
            per_eval: Some(rigor_units::Seconds(1e-9)),
            allocs: None,
            baseline: Some(KeptEvals { baseline, tuned }),
        };
        assert_eq!(
            tuned(100, 100, 37).to_string(),
            "mix: 100 evaluations per sample as in the baseline (tuning now gives 37 at 1.000 \
             ns per evaluation)"
        );
        assert_eq!(
            tuned(37, 37, 37).to_string(),
            "mix: 37 evaluations per sample (tuned at 1.000 ns per evaluation)"
        );
        assert_eq!(
            tuned(2, 100, 2).to_string(),
            "mix: 2 evaluations per sample (tuned at 1.000 ns per evaluation; the baseline's \
             100 would make each sample 50× as long)"
        );
    }
}
