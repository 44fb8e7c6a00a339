//! The error type of rigor's use cases. Every variant keeps its source.

use std::path::PathBuf;

use thiserror::Error;

/// What stops a use case.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AppError {
    /// Measuring failed (a setting, a process, a file the runner needs).
    #[error(transparent)]
    Run(#[from] rigor_runner::RunError),
    /// A result file could not be read or written.
    #[error(transparent)]
    Store(#[from] rigor_store::StoreError),
    /// The metric asked for (`--metric`) is not in the data.
    #[error(transparent)]
    Metric(#[from] rigor_store::MetricError),
    /// Two benchmarks could not be compared.
    #[error("comparing '{candidate}' with '{baseline}'")]
    Compare {
        /// The candidate.
        candidate: String,
        /// The baseline.
        baseline: String,
        /// Why.
        #[source]
        source: rigor_stats::StatsError,
    },
    /// A statistic over the whole suite could not be computed.
    #[error("the suite's geometric mean")]
    Suite(#[source] rigor_stats::StatsError),
    /// `--reference` names no benchmark.
    #[error("--reference '{reference}' names no benchmark (names: {names})")]
    NoSuchReference {
        /// What was given.
        reference: String,
        /// The benchmarks' names, quoted and joined.
        names: String,
    },
    /// `rigor analyze RUN…` of several runs with an option that reads one run at a time.
    #[error(
        "{option} reads one run: several runs of one experiment are analysed together \
         (each benchmark's mean and each comparison across the runs) without it; give one file \
         to use it"
    )]
    OneRunOnly {
        /// The option.
        option: &'static str,
    },
    /// `rigor track run`: the benchmarked command could not start in any version of a batch,
    /// anchors included: the command is wrong, not the versions (nothing was stored as failed).
    #[error(
        "{reason}, in every version measured: the command is wrong, not the versions, so none \
         was stored as failed (a program in the checkout needs ./, as in a shell); what was \
         measured is in {}",
        file.display()
    )]
    CommandCannotStart {
        /// Why, as the first failure says it.
        reason: String,
        /// The batch's result file.
        file: PathBuf,
    },
    /// `rigor report` of several runs: its page draws one run's executions.
    #[error(
        "rigor report draws one run, and was given {0} runs of one experiment: `rigor analyze` \
         takes them together (each benchmark's mean and each comparison across the runs; \
         --json for a file), or give one of them to draw it"
    )]
    ReportOfRuns(usize),
    /// A run that did not measure the benchmarks the first run measured.
    #[error(
        "{}: measured none of the benchmarks of {} ({names}): runs analysed together must be \
         runs of one experiment",
        file.display(),
        first.display()
    )]
    OtherRun {
        /// The run's file.
        file: PathBuf,
        /// The first run's file.
        first: PathBuf,
        /// The first run's benchmarks, quoted and joined.
        names: String,
    },
    /// One run given twice to `rigor analyze RUN…` (the same file, or two files of the same
    /// content): it would count as two runs that agree exactly.
    #[error(
        "{} and {} hold the same run: runs analysed together are each one run, and one given \
         twice would look like two that agree exactly; give each run once",
        first.display(),
        second.display()
    )]
    SameRun {
        /// The first file.
        first: PathBuf,
        /// The file that repeats it.
        second: PathBuf,
    },
    /// `rigor compare` of runs with one run on a side: no spread between that side's runs.
    #[error(
        "{side} has {runs} run ({file}) and the other side several: a comparison across runs \
         needs at least 2 runs a side, to see how far a run moves each (one run a side: \
         `rigor compare OLD.json NEW.json`)"
    )]
    OneRunASide {
        /// "the old version" or "the new version".
        side: &'static str,
        /// Its runs.
        runs: usize,
        /// Its file.
        file: String,
    },
    /// A statistic across runs could not be computed.
    #[error("'{name}' across the runs")]
    AcrossRuns {
        /// The benchmark or comparison.
        name: String,
        /// Why.
        #[source]
        source: rigor_stats::StatsError,
    },
    /// A result that holds no benchmark.
    #[error("{0} holds no benchmark: there is nothing to analyse")]
    NoBenchmarks(String),
    /// `rigor compare --reference`: a comparison of two results pairs each benchmark of the new
    /// one with the same-named one of the old, and has no reference.
    #[error(
        "--reference '{reference}': `rigor compare` compares each benchmark of the new result \
         with the same-named one of the old (benchmarks: {names}) and takes no reference; to \
         compare the benchmarks of one result with one of them, use `rigor analyze FILE \
         --reference NAME`"
    )]
    ReferenceInCompare {
        /// What was given.
        reference: String,
        /// The benchmarks' names (of both results), quoted and joined.
        names: String,
    },
    /// Two results share no benchmark that both measured.
    #[error(
        "nothing to compare: {}",
        if !.without_result.is_empty() {
            format!(
                "{} measured nothing comparable on one side (every execution failed, too \
                 few, every time 0, or a statistic of 0: below the clock's step)",
                .without_result
            )
        } else {
            format!(
                "no benchmark has the same name in both (old: {}; new: {}): benchmarks are \
                 paired by name, so name them alike in both runs (`-n NAME`), as a command run \
                 from two places (./old/app, ./new/app) is named differently",
                .old,
                .new
            )
        }
    )]
    NothingInCommon {
        /// The old result's benchmark names, quoted and joined.
        old: String,
        /// The new result's benchmark names, quoted and joined.
        new: String,
        /// Benchmarks named alike without a result on one side, quoted and joined (empty when
        /// none).
        without_result: String,
    },
    /// The old and the new result hold the same measurements.
    #[error(
        "{old} and {new} are the same result (the same measurements): a result compared with \
         itself cannot show a change; compare two different runs"
    )]
    SameResult {
        /// The old file(s), joined.
        old: String,
        /// The new file(s), joined.
        new: String,
    },
    /// A plan file could not be read or written.
    #[error("{}", path.display())]
    PlanFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: PlanFileError,
    },
    /// A plan has no entry for a benchmark.
    #[error("the plan has no entry for '{0}'")]
    NotInPlan(String),
    /// A plan cannot give the top-level count for a precision.
    #[error("plan for '{benchmark}'")]
    PlanPrecision {
        /// The benchmark.
        benchmark: String,
        /// Why.
        #[source]
        source: rigor_stats::StatsError,
    },
    /// The pilot of `plan` was interrupted.
    #[error("interrupted during the pilot; no plan written")]
    PilotInterrupted,
    /// No benchmark could be planned.
    #[error("no benchmark could be planned")]
    NothingPlanned,
    /// A file could not be written.
    #[error("writing {what}")]
    Write {
        /// What was being written.
        what: &'static str,
        /// Why.
        #[source]
        source: rigor_store::StoreError,
    },
    /// An Otava CSV to append to has other columns than this result's.
    #[error(
        "{path}: its columns '{found}' are not this result's '{expected}': write a new file for \
         this set of benchmarks"
    )]
    OtavaColumns {
        /// The file.
        path: std::path::PathBuf,
        /// Its header.
        found: String,
        /// The header this result needs.
        expected: String,
    },
    /// The history could not be read or written.
    #[error(transparent)]
    History(#[from] rigor_history::HistoryError),
    /// A dashboard file could not be written or read.
    #[error("{}", path.display())]
    Site {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A git command failed.
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    /// A bisection's ends are not in order.
    #[error(
        "'{bad}' does not come after '{good}' on its first-parent line: GOOD must be an older version on BAD's line (give the older version first, rigor track bisect GOOD BAD; a commit of another branch has no versions between it and BAD)"
    )]
    NotAnAncestor {
        /// The version given as good.
        good: String,
        /// The version given as bad.
        bad: String,
    },
    /// No stored version to check against.
    #[error(
        "no stored version of {checked} on {machine} ({branch}) to check against (stored there: {stored}): `rigor track run` or `rigor track add` stores one"
    )]
    NoBaseline {
        /// The benchmarks checked, listed.
        checked: String,
        /// The machine.
        machine: String,
        /// The branch.
        branch: String,
        /// The benchmarks stored for that machine and branch, listed (`none` when none is).
        stored: String,
    },
    /// A run's options are wrong.
    #[error(transparent)]
    Request(#[from] crate::RequestError),
    /// A `track` request is wrong.
    #[error(transparent)]
    Track(#[from] crate::track::TrackError),
    /// A farm's job.
    #[error(transparent)]
    Farm(#[from] crate::farm::FarmError),
    /// A simulated project has no version of this name.
    #[error("'{label}' is not a version of the simulated project (v1 to v{versions})")]
    UnknownSimulatedVersion {
        /// The name given.
        label: String,
        /// The project's versions.
        versions: usize,
    },
    /// There is no history database at the path given.
    #[error("no history at {}: `rigor track run` or `rigor track add` makes one", .0.display())]
    NoHistory(PathBuf),
    /// The candidate folder of `track check --candidate DIR` could not be built.
    #[error("building the candidate {} (--build)", dir.display())]
    CandidateBuild {
        /// The folder.
        dir: PathBuf,
        /// Why.
        #[source]
        source: crate::checkouts::CheckoutFailure,
    },
    /// A Cargo project's bench targets could not be built, listed or tuned.
    #[error(transparent)]
    CargoBench(#[from] crate::cargo_bench::CargoBenchError),
    /// A temporary directory for builds could not be made.
    #[error("creating a directory for builds")]
    BuildRoot(#[source] std::io::Error),
}

/// Why a run's (or an analysis's) options were refused, before anything ran.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RequestError {
    /// `--throughput` that is not an amount of work (after `{VAR}` was replaced).
    #[error("--throughput '{given}': {source}")]
    Throughput {
        /// The option's value as given.
        given: String,
        /// What is wrong.
        source: rigor_units::UnitError,
    },
    /// An HTML report shows one metric.
    #[error(
        "an HTML report shows one metric; --metric names {count}: write one report per metric \
         (each with its own --out)"
    )]
    ReportMetrics {
        /// How many were named.
        count: usize,
    },
    /// No command was given.
    #[error("no command to benchmark: give at least one COMMAND")]
    NoCommand,
    /// `-n ''`: a benchmark with no name could not be told apart in the output.
    #[error(
        "--name number {0} is empty: name the benchmark, or leave -n out to name it by its command"
    )]
    EmptyName(usize),
    /// `rigor run --simulate` given a simulated project, which only `track` measures.
    #[error(
        "--simulate '{0}' is a simulated project (versions=…), which `rigor track run` and \
         `bisect` measure; `rigor run --simulate` takes simulated commands \
         ('mean=10ms,execution=3%')"
    )]
    SimulatedProject(String),
    /// More names than commands, and not one per benchmark either.
    #[error("{names} names given for {commands} commands{}", per_benchmark(*commands, *benchmarks))]
    TooManyNames {
        /// Names given.
        names: usize,
        /// Commands given.
        commands: usize,
        /// Benchmarks the parameters expand them to.
        benchmarks: usize,
    },
    /// Two expanded benchmarks share a name.
    #[error("two benchmarks are named '{0}': give each command its own --name")]
    DuplicateName(String),
    /// A command, a hook or the build command could not be split into words, or the runner's
    /// settings are invalid.
    #[error(transparent)]
    Runner(#[from] rigor_runner::RunError),
    /// The runner refused its settings.
    #[error(transparent)]
    Settings(#[from] rigor_runner::SettingsError),
    /// A performance counter asked for (`--metric instructions`, `cycles`) that this machine
    /// cannot count, found before anything ran.
    #[error("--metric {}: {}", .0.counter(), .0.reason())]
    Counter(rigor_runner::CounterError),
    /// `--input` names no readable file.
    #[error("--input {}", path.display())]
    Input {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A temporary directory for builds could not be made.
    #[error("creating a directory for builds")]
    BuildRoot(#[source] std::io::Error),
    /// `--pattern` is no regular expression.
    #[error("invalid --pattern '{pattern}'")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// Why.
        #[source]
        source: regex::Error,
    },
    /// `--pattern` captures nothing.
    #[error("--pattern '{0}' needs a capture group around the time, e.g. 'time: ([0-9.]+)'")]
    PatternGroup(String),
    /// `--min-runs` below 2.
    #[error("--min-runs must be at least 2: an interval needs two executions (or builds)")]
    MinRuns,
    /// `--max-runs` below 2.
    #[error("--max-runs must be at least 2: an interval needs two executions (or builds)")]
    MaxRuns,
    /// `--min-runs` above `--max-runs`.
    #[error("--min-runs {min} is above --max-runs {max}")]
    MinAboveMax {
        /// `--min-runs`.
        min: usize,
        /// `--max-runs`.
        max: usize,
    },
    /// `rigor bench --against --until-decided` with more than one benchmark: the sequence
    /// compares every benchmark with one reference, not each with its other build.
    #[error(
        "--until-decided compares every benchmark with one reference, not each with its build \
         from --against ({0} benchmarks selected): select one benchmark (--exact NAME), or use \
         -r N or --precision P with --against"
    )]
    UntilDecidedAgainst(usize),
    /// `--until-decided` with one command.
    #[error(
        "--until-decided compares commands with a reference: give at least two commands (got {0})"
    )]
    DecidedNeedsTwo(usize),
    /// `--until-decided` with `-r` and no build.
    #[error(
        "-r/--runs fixes the number of executions; with --until-decided the rounds are bounded by \
         --max-runs or --budget instead"
    )]
    DecidedRuns,
    /// `--until-decided` that could never look.
    #[error("at most {max} rounds, but --until-decided first looks after {min} (--min-runs)")]
    DecidedRounds {
        /// The most rounds.
        max: usize,
        /// Rounds before the first look.
        min: usize,
    },
    /// The plan file could not be read or applied.
    #[error(transparent)]
    Plan(Box<AppError>),
    /// `--reference` names no benchmark.
    #[error(
        "--reference '{reference}' is none of the benchmarks ({names}) nor a position from 1 to {count}"
    )]
    Reference {
        /// What was given.
        reference: String,
        /// The benchmarks' names, quoted and joined.
        names: String,
        /// How many benchmarks there are.
        count: usize,
    },
    /// `--reference` is no benchmark, and no command rigor can run either.
    #[error(
        "--reference '{reference}' is none of the benchmarks ({names}) nor a command rigor can \
         run ({why})"
    )]
    ReferenceNotRunnable {
        /// What was given.
        reference: String,
        /// The benchmarks' names, quoted and joined.
        names: String,
        /// Why it cannot run.
        why: String,
    },
    /// `--reference-name` without `--reference`.
    #[error("--reference-name names the command --reference adds: give --reference CMD too")]
    ReferenceNameAlone,
    /// `--reference-name` with a `--reference` that is already a benchmark.
    #[error(
        "--reference-name names the command --reference adds, but --reference '{0}' is already \
         one of the benchmarks (name it with -n/--command-name)"
    )]
    ReferenceNameExisting(String),
    /// Several exports name standard output.
    #[error(
        "{0} each name standard output ('-'), but only one export can go there: give the others \
         a file name"
    )]
    StdoutTwice(String),
    /// An output path is a directory.
    #[error("{option} {}: is a directory", path.display())]
    IsDirectory {
        /// The option.
        option: &'static str,
        /// The path.
        path: PathBuf,
    },
    /// An output path's directory does not exist.
    #[error("{option} {}: the directory {} does not exist", path.display(), dir.display())]
    NoDirectory {
        /// The option.
        option: &'static str,
        /// The path.
        path: PathBuf,
        /// Its directory.
        dir: PathBuf,
    },
    /// An output path's directory takes no new file.
    #[error("{option} {}: cannot write there", path.display())]
    CannotWrite {
        /// The option.
        option: &'static str,
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `rigor analyze` writes the exports for other tools to files only.
    #[error(
        "{0} -: rigor analyze writes this export to a file only (rigor run can write it to standard output)"
    )]
    ToolExportToStdout(&'static str),
    /// An output path is one of the inputs.
    #[error("{option} {}: is the input file {}; writing there would replace it", path.display(), input.display())]
    IsInput {
        /// The option.
        option: &'static str,
        /// The path.
        path: PathBuf,
        /// The input it is.
        input: PathBuf,
    },
    /// `--parameter-list` with an empty value.
    #[error("--parameter-list {var}: an empty value in '{list}'")]
    EmptyValue {
        /// The parameter.
        var: String,
        /// Its list as given.
        list: String,
    },
    /// A parameter name that cannot be a placeholder.
    #[error("'{0}' cannot name a parameter")]
    ParameterName(String),
    /// A parameter given twice.
    #[error("the parameter '{0}' is given twice")]
    ParameterTwice(String),
    /// A parameter that appears in no command, name or hook.
    #[error(
        "the parameter '{0}' appears in no command, name or hook: write {{{0}}} where its \
         value goes"
    )]
    ParameterUnused(String),
    /// A hook given a number of times that is neither once, once per command nor once per
    /// benchmark.
    #[error(
        "{option} was given {given} times: give it once (for every command), once per \
         command ({commands}) or once per benchmark ({benchmarks}, commands × parameter values)"
    )]
    HookCount {
        /// The option (`--setup`, `--prepare`, `--conclude`, `--cleanup`).
        option: &'static str,
        /// How many times it was given.
        given: usize,
        /// Commands given.
        commands: usize,
        /// Benchmarks they expand to.
        benchmarks: usize,
    },
    /// Benchmarks that must run in blocks (their setups or cleanups differ) under a mode that
    /// needs them in shared rounds.
    #[error(
        "{mode} needs the benchmarks interleaved in shared rounds, but their --setup or \
         --cleanup commands differ, so each must run in a block of its own (its setup, its \
         executions, its cleanup); give one --setup and one --cleanup for all, or a fixed \
         count (-r) to measure them one after another"
    )]
    BlocksNeedFixedCount {
        /// The option that asked for the mode (`--precision`, `--until-decided`, `--plan`).
        mode: &'static str,
    },
    /// Too many combinations of parameter values.
    #[error(
        "the parameters give more than {} combinations",
        crate::settings::expand::MAX_VARIANTS
    )]
    TooManyCombinations,
    /// `--parameter-scan` is invalid.
    #[error("--parameter-scan {var}: {why}")]
    Scan {
        /// The parameter.
        var: String,
        /// What is wrong.
        why: ScanError,
    },
    /// `--parameter-step-size` not above zero.
    #[error("--parameter-step-size must be above 0 (got {0})")]
    StepNotPositive(String),
    /// `--format` with a CSV.
    #[error("--format reads another tool's file; a CSV is read with --levels")]
    FormatWithCsv,
    /// A CSV without `--levels`.
    #[error("a CSV needs --levels COL[,COL...] naming the level columns, top → bottom")]
    CsvNeedsLevels,
    /// A CSV with nothing to analyse (empty, or hyperfine's summary of means), said before
    /// asking for its level columns.
    #[error(transparent)]
    CsvNothing(rigor_store::StoreError),
    /// Several CSV files.
    #[error("a CSV is analysed alone: give one file (its level columns identify every row)")]
    CsvAlone,
    /// `rigor compare` without two sides.
    #[error(
        "give the old and the new result (OLD NEW), or several files per side as OLD... -- NEW..."
    )]
    CompareSides,
    /// `rigor compare OLD… --` with nothing after the `--`.
    #[error(
        "nothing after `--`: the {old} file(s) before it are the old version's, and the new \
         version's go after it (`rigor compare OLD1 OLD2 -- NEW1 NEW2`; options before the `--`)"
    )]
    NothingAfterDashes {
        /// How many files were given before the `--`.
        old: usize,
    },
    /// An option after `rigor compare`'s `--`, where everything is a new version's file.
    #[error(
        "'{option}' comes after `--`, where everything is a file of the new version: put the \
         options before the `--` (`rigor compare {option} … OLD1 OLD2 -- NEW1 NEW2`)"
    )]
    OptionAfterDashes {
        /// The option as typed.
        option: String,
    },
}

/// What is wrong with a `--parameter-scan`.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ScanError {
    /// MIN, MAX or STEP is not a number.
    #[error("{what} '{value}' is not a number")]
    NotANumber {
        /// "MIN", "MAX" or "STEP".
        what: &'static str,
        /// As given.
        value: String,
    },
    /// Decimals without a step.
    #[error("MIN and MAX must be integers without --parameter-step-size")]
    NotIntegers,
    /// MAX below MIN.
    #[error("MAX {max} is below MIN {min}")]
    Reversed {
        /// MIN as shown.
        min: String,
        /// MAX as shown.
        max: String,
    },
    /// Too many values.
    #[error("more than {} values", crate::settings::expand::MAX_VARIANTS)]
    TooMany,
}

/// Why a plan file could not be read or written.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PlanFileError {
    /// The file could not be read.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The file is not a plan (the message names the line and column).
    #[error(transparent)]
    Parse(#[from] toml::de::Error),
    /// The plan could not be rendered.
    #[error("rendering the plan: {0}")]
    Render(#[from] toml::ser::Error),
    /// A benchmark's lists do not agree with its levels.
    #[error("benchmark {index} ('{name}'): {message}")]
    Inconsistent {
        /// 1-based position of the `[[benchmark]]` table.
        index: usize,
        /// Its name.
        name: String,
        /// What disagrees.
        message: String,
    },
}

/// Shorthand for this crate's results.
pub type Result<T, E = AppError> = std::result::Result<T, E>;

/// " (N benchmarks with the parameters)" when parameters expand the commands.
fn per_benchmark(commands: usize, benchmarks: usize) -> String {
    if benchmarks > commands {
        format!(" ({benchmarks} benchmarks with the parameters)")
    } else {
        String::new()
    }
}
