//! The command line of rigor: clap's definitions of every command and option, with their help
//! texts (as astral-sh/uv keeps its `uv-cli`). Only parsing lives here; the `rigor` binary maps
//! what is parsed onto `rigor-app`'s requests (its `settings` module) and calls the use cases.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use rigor_app::settings::{FailOn, SortOrder};
use rigor_runner::{OutputMode, Stream, limits};
use rigor_stats::bootstrap::MAX_RESAMPLES;
use rigor_stats::{Estimator, Quantile};
use rigor_store::import::Format;
use rigor_store::{Discard, VerdictMethod};
use rigor_units::{ConfidenceLevel, Fraction, Metric, Metrics, Seconds, Seed, TimeUnit};

/// Exit codes, shown in `--help` and documented in the README.
pub const EXIT_CODES: &str = "\
Exit status:
  0    success
  1    --fail-on matched (a regression, a change, an undecided comparison or a warning), or
       track bisect was undecided
  2    usage error, runtime error, or a benchmark failed
  130  interrupted (Ctrl-C); what run and track measured so far is kept (plan writes no
       plan)";

/// Rigorous benchmarking in reasonable time: measures at every level that varies (executions,
/// iterations) and reports honest confidence intervals.
#[derive(Debug, Parser)]
#[command(name = "rigor", after_help = EXIT_CODES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The command line's definition as the binary's whose `version` and description (`about`)
    /// are given: what completions and the man page are generated from.
    pub fn definition(version: &'static str, about: &'static str) -> clap::Command {
        shaped(Self::command()).version(version).about(about)
    }

    /// Parses the process's command line as the binary's whose `version` and description
    /// (`about`) are given (exiting with clap's message on an error, as [`Parser::parse`]).
    pub fn parse_as(version: &'static str, about: &'static str) -> Self {
        let mut command = Self::definition(version, about);
        // An empty `RIGOR_DB=` is unset, as for most tools' variables: clap would take it for
        // a missing value of `--db`, even beside an explicit `--db`.
        if std::env::var_os("RIGOR_DB").is_some_and(|v| v.is_empty()) {
            command = command.mut_subcommand("track", |track| {
                track.mut_arg("db", |db| db.env(None::<&'static str>))
            });
        }
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        let mut matches = command
            .clone()
            .try_get_matches_from(&args)
            .unwrap_or_else(|e| clearer(e, &mut command, &args).exit());
        Self::from_arg_matches_mut(&mut matches).unwrap_or_else(|e| e.format(&mut command).exit())
    }
}

/// The derived definition with what one subcommand means otherwise by an option it shares:
/// `rigor bench --builds N` links N layouts itself, without `--build` (which, with
/// `--build-root`, it refuses, so its help does not offer them).
fn shaped(command: clap::Command) -> clap::Command {
    command.mut_subcommand("bench", |bench| {
        let bench = bench
            .mut_arg("build", |a| a.hide(true))
            .mut_arg("build_root", |a| {
                a.hide(true)
                    .requires(clap::builder::Resettable::<clap::Id>::Reset)
            });
        bench.mut_arg("builds", |builds| {
            builds
                .requires(clap::builder::Resettable::<clap::Id>::Reset)
                .help(
                    "Code layouts: each build links the bench targets (of each side with \
                 --against) with the functions in its own shuffled order (lld's \
                 --shuffle-sections), so that the intervals and verdicts cover where the linker \
                 put the code; -r counts executions per build. With --against: 6 builds of 4 \
                 executions unless given (1 compares cargo's one build; 2 and 3 are refused, too \
                 few to decide). Without: 1",
                )
        })
    })
}

/// clap's error made clearer where rigor knows what went wrong: a negative number
/// ([`negative_value`]), a benchmark command given without `--` ([`command_without_dashes`]).
fn clearer(
    e: clap::Error,
    command: &mut clap::Command,
    args: &[std::ffi::OsString],
) -> clap::Error {
    let e = not_accepted(negative_value(e, command), command);
    let e = run_first(e, command, args);
    command_without_dashes(e, command, args)
}

/// clap's error for a hyperfine command line typed without rigor's subcommand (`rigor -r 3
/// ./prog`, `rigor ./prog`): clap said only "unexpected argument '-r'" or "unrecognized
/// subcommand" (a new user's trial). When the first word is an option `rigor run` takes, or
/// looks like a command (a path, or words with a space), the error says to put `run` first.
fn run_first(
    e: clap::Error,
    command: &mut clap::Command,
    args: &[std::ffi::OsString],
) -> clap::Error {
    use clap::error::ErrorKind;
    let Some(first) = args.get(1).and_then(|a| a.to_str()) else {
        return e;
    };
    let is_subcommand = command
        .get_subcommands()
        .any(|s| s.get_name() == first || s.get_all_aliases().any(|a| a == first));
    if is_subcommand {
        return e;
    }
    let run_takes = |word: &str| {
        command.find_subcommand("run").is_some_and(|run| {
            run.get_arguments().any(|a| {
                let name = word.split('=').next().unwrap_or(word);
                a.get_long().is_some_and(|l| name == format!("--{l}"))
                    || a.get_short().is_some_and(|s| name == format!("-{s}"))
            })
        })
    };
    let hyperfine_like = match e.kind() {
        ErrorKind::UnknownArgument => first.starts_with('-') && run_takes(first),
        ErrorKind::InvalidSubcommand => first.contains('/') || first.contains(' '),
        _ => false,
    };
    if !hyperfine_like {
        return e;
    }
    let words: Vec<String> = args[1..]
        .iter()
        .map(|a| {
            let a = a.to_string_lossy();
            if a.contains(' ') {
                format!("'{a}'")
            } else {
                a.into_owned()
            }
        })
        .collect();
    command.error(
        ErrorKind::InvalidSubcommand,
        format!(
            "rigor's subcommand comes first: `rigor run {}` measures the commands as hyperfine \
             does (see `rigor --help` for the others)",
            words.join(" ")
        ),
    )
}

/// hyperfine's options that rigor does not accept, and what to use instead.
const NOT_ACCEPTED: &[(&str, &str)] = &[(
    "--min-benchmarking-time",
    "hyperfine's hidden --min-benchmarking-time is not accepted: a run's default length is \
     fixed (3 s); -r N sets the executions, --precision P measures until the interval is that \
     narrow, and --budget bounds its time",
)];

/// clap's error for an unknown option that is one of hyperfine's that rigor does not accept
/// ([`NOT_ACCEPTED`]): clap would tip passing it after `--`, which would make it a COMMAND.
fn not_accepted(e: clap::Error, command: &mut clap::Command) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument {
        return e;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return e;
    };
    let name = arg.split('=').next().unwrap_or(arg);
    match NOT_ACCEPTED.iter().find(|(option, _)| *option == name) {
        Some((_, why)) => command.error(ErrorKind::UnknownArgument, *why),
        None => e,
    }
}

/// clap's error for a missing COMMAND of a `track` command whose arguments hold no `--`: the
/// command's words were taken as revisions (`rigor track run --last 5 ./bench`), and clap says
/// only that COMMAND is required. The error says where the command goes instead.
fn command_without_dashes(
    e: clap::Error,
    command: &mut clap::Command,
    args: &[std::ffi::OsString],
) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::MissingRequiredArgument || args.iter().any(|a| a == "--") {
        return e;
    }
    let missing_command = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::Strings(missing)) => missing.iter().any(|m| m.contains("<COMMAND>")),
        _ => false,
    };
    let Some(sub) = args
        .iter()
        .skip_while(|a| *a != "track")
        .find(|a| ["run", "bisect", "enqueue"].iter().any(|s| *a == *s))
    else {
        return e;
    };
    if !missing_command {
        return e;
    }
    let sub = sub.to_string_lossy().into_owned();
    // The subcommand's own usage line under the message, as clap's error has (built, so that
    // it names itself `rigor track …`).
    command.build();
    let Some(command) = command
        .find_subcommand_mut("track")
        .and_then(|track| track.find_subcommand_mut(&sub))
    else {
        return e;
    };
    command.error(
        ErrorKind::MissingRequiredArgument,
        format!(
            "no benchmark command: it goes after `--`, as in `rigor track {sub} [REVS] -- \
             ./bench`; the words before `--` that are not options are taken as revisions"
        ),
    )
}

/// clap's error for a negative number after an option that takes a value (`--threshold -5%`):
/// clap reads it as an unknown option and tips `-- -5`, which would make it a COMMAND. rigor's
/// options take no negative values, so the error says that instead; other errors are as clap
/// made them.
fn negative_value(e: clap::Error, command: &mut clap::Command) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument {
        return e;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return e;
    };
    if !is_negative_number(arg) {
        return e;
    }
    command.error(
        ErrorKind::InvalidValue,
        format!(
            "'{arg}' is a negative number, which no option of rigor takes: counts, durations, \
             percentages and confidence levels are positive (a COMMAND that starts with '-' \
             goes after `--`)"
        ),
    )
}

/// `-5`, `-0.5`, `-5%`, `-1e3`, `-10ms`: a minus sign then a digit or a point and a digit.
fn is_negative_number(arg: &str) -> bool {
    let Some(rest) = arg.strip_prefix('-') else {
        return false;
    };
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    rest.starts_with(|c: char| c.is_ascii_digit())
}

impl Cli {
    /// Parses `args` as [`Cli::parse_as`] does, returning the error instead of exiting
    /// (with the same message for a negative value).
    ///
    /// # Errors
    /// clap's error, or the one for a negative number.
    pub fn try_parse_args<I, T>(args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
        let mut command = shaped(Self::command());
        let mut matches = command
            .clone()
            .try_get_matches_from(&args)
            .map_err(|e| clearer(e, &mut command, &args))?;
        Self::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut command))
    }
}

/// The arguments of `rigor track enqueue`, as jobs queued before specs were typed (format 1)
/// hold them: a worker parses them with [`Parser::try_parse_from`].
#[derive(Debug, Parser)]
#[command(name = "rigor track enqueue", no_binary_name = true)]
pub struct EnqueueLine {
    /// The arguments.
    #[command(flatten)]
    pub args: TrackEnqueueArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Benchmark one or more commands (several are interleaved in shuffled rounds).
    Run(Box<RunArgs>),
    /// Re-analyse a saved JSON result or a long-format CSV.
    Analyze(Box<AnalyzeArgs>),
    /// Write a self-contained HTML report (plots, diagnosis, comparisons) of a saved result.
    Report(Box<ReportArgs>),
    /// Compare two saved results benchmark by benchmark (matched by name).
    ///
    /// Two runs measured apart differ by what changed on the machine between them, which no
    /// run's own interval holds: one run a side gets an estimate and no verdict on times
    /// (`--fail-on regression` does not fail on it). For a verdict, measure both in one run
    /// (`rigor run OLD NEW`), give several runs a side (`rigor compare OLD1 OLD2 -- NEW1 NEW2`),
    /// or track the versions (`rigor track`).
    Compare(Box<CompareArgs>),
    /// Dimension an experiment: run a pilot, measure each level's cost and variance, and write a
    /// plan with the optimal repetition counts (Kalibera & Jones 2013).
    Plan(Box<PlanArgs>),
    /// Benchmark a Cargo project's rigor-bench targets: build them, tune each benchmark once, and
    /// measure each across executions (processes) with rigor's intervals.
    Bench(Box<BenchArgs>),
    /// Track a project's performance across versions: a history database, each version measured
    /// in its own checkout, changes detected over each benchmark's series.
    Track(Box<TrackArgs>),
    /// Print a shell completion script for rigor (e.g. `rigor completions bash >
    /// ~/.local/share/bash-completion/completions/rigor`; zsh: a file `_rigor` in a folder of
    /// `$fpath`; fish: `~/.config/fish/completions/rigor.fish`).
    Completions(CompletionsArgs),
    /// Print rigor's man page (roff): `rigor man > ~/.local/share/man/man1/rigor.1`, and a page
    /// per subcommand with all its options (`rigor man run > …/rigor-run.1`, `rigor man track
    /// run > …/rigor-track-run.1`).
    Man(ManArgs),
}

/// `rigor man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (`run`, `track run`); default: rigor's own page.
    #[arg(value_name = "SUBCOMMAND")]
    pub subcommand: Vec<String>,
}

/// `rigor completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `rigor track`.
#[derive(Debug, Args)]
pub struct TrackArgs {
    /// The history database: an SQLite file, or a PostgreSQL server shared by several machines
    /// (`postgres://user@host/db?sslmode=require`; the password from `PGPASSWORD` or a 0600 file
    /// named by `RIGOR_DB_PASSWORD_FILE`, never on the command line). Default: the project's
    /// `.rigor/history.db`, looked for from the command's --repo (this directory by default)
    /// up to the git repository's root (made at the root when there is none).
    #[arg(
        long,
        global = true,
        env = "RIGOR_DB",
        value_name = "PATH|URL",
        hide_env_values = true
    )]
    pub db: Option<PathBuf>,
    /// What to do with the history.
    #[command(subcommand)]
    pub command: TrackCommand,
}

/// The subcommands of `rigor track`.
#[derive(Debug, Subcommand)]
pub enum TrackCommand {
    /// Store a saved result (also a killed run's) as a version's measurement. The same result
    /// twice is stored once.
    Add(TrackAddArgs),
    /// Measure versions of a git repository, each in a worktree of its own, and store them as
    /// they are measured (versions already stored are skipped).
    Run(Box<TrackRunArgs>),
    /// Find the first version between GOOD and BAD whose benchmark changed: about log₂ N
    /// versions measured instead of N, each step's versions measured together.
    Bisect(Box<TrackBisectArgs>),
    /// Check a saved result (a pull request's) against the stored baseline of this machine:
    /// verdicts per benchmark, Markdown for a PR comment, --fail-on for CI.
    Check(Box<TrackCheckArgs>),
    /// Detect changes over every benchmark's history and list them.
    Changes(TrackChangesArgs),
    /// Show one benchmark's history, version by version.
    Show(TrackShowArgs),
    /// Remove a session's or a version's runs (or one benchmark of them) from a series, with
    /// sessions left without runs; --dry-run lists what would go.
    Rm(TrackRmArgs),
    /// Without arguments: the farm's jobs (queued, running, done, failed) per machine class and
    /// worker. With a change's id and a status: set it (acknowledged, invalid, or new).
    Status(TrackStatusArgs),
    /// Queue jobs for a benchmark farm (PostgreSQL history): the versions, in comparisons of
    /// --batch versions measured together, for workers of a machine class.
    Enqueue(Box<TrackEnqueueArgs>),
    /// Run queued jobs of this machine's class and store their results (PostgreSQL history).
    Worker(TrackWorkerArgs),
    /// Write a static performance dashboard of the history (an index and a page per benchmark)
    /// that works from file:// and any static web host; publishing again rewrites only the
    /// pages whose data changed. Changes are shown as last detected (`rigor track changes`).
    Publish(TrackPublishArgs),
}

/// `rigor track publish`.
#[derive(Debug, Args)]
pub struct TrackPublishArgs {
    /// The site's folder (made when missing; index.html at its top).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: PathBuf,
    /// The site's title.
    #[arg(long, default_value = "rigor performance dashboard")]
    pub title: String,
    /// The repository's web address: each version links to URL/commit/ID.
    #[arg(long, value_name = "URL")]
    pub repo_url: Option<String>,
    /// Group the index by a pattern in each benchmark's name: its first capture group, or the
    /// whole match ('_(small|large)$' groups by size); names without a match are ungrouped.
    /// Default: the name up to its last '/'.
    #[arg(long, value_name = "REGEX")]
    pub group: Option<String>,
    /// The metrics published: wall time always (the index and each benchmark's page), and each
    /// other one named here on pages of its own, in its own units, with its own changes: cpu
    /// (user + system), user, system, peak-memory, or a name the benchmarked program reported;
    /// several with commas. Other metrics are read from every stored run on each publish.
    #[arg(long, value_name = "NAME[,NAME...]", default_value = "wall")]
    pub metric: Metrics,
    /// The repository whose project's history is read (the default --db; a track command finds
    /// the history of the project it is pointed at, from anywhere).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub repo: PathBuf,
}

/// Which series: a machine and a branch.
#[derive(Debug, Args, Clone)]
pub struct SeriesArgs {
    /// The machine's name (default: the host name).
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
    /// The branch (default: the repository's current branch, else "main").
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
}

/// `rigor track add`.
#[derive(Debug, Args)]
pub struct TrackAddArgs {
    /// Result JSONs written by `rigor run --export-json`, the per-version files of
    /// `rigor track run --shard`, or other tools' results (see --format).
    #[arg(value_name = "RESULT.json", required = true)]
    pub files: Vec<PathBuf>,
    /// The files' format (default: recognised from each file's content).
    #[arg(long, value_enum, value_name = "NAME")]
    pub format: Option<Format>,
    /// The version measured: a git revision of --repo (its commit, parents, author, time and
    /// position are recorded), or any label (a compiler, a release). Default: the version the
    /// file names (its label, else the commit it was measured at).
    #[arg(long, value_name = "REV", value_parser = parse_label)]
    pub version: Option<String>,
    /// The repository the version belongs to.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub repo: PathBuf,
    /// Position of a labelled version in the history (versions are ordered by it, else by time,
    /// else by when first stored).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub order: Option<i64>,
    /// The series.
    #[command(flatten)]
    pub series: SeriesArgs,
}

/// `rigor track run`.
#[derive(Debug, Args)]
pub struct TrackRunArgs {
    /// Versions to measure: `A..B` (B's first-parent line after A) and single revisions.
    #[arg(value_name = "REVS")]
    pub revs: Vec<String>,
    /// The repository.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub repo: PathBuf,
    /// Measure the last N commits of HEAD's first-parent line (instead of, or besides, REVS).
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// Measure the commits of HEAD's first-parent line since a date (as git reads it:
    /// 2026-01-01, "2 weeks ago").
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Measure versions that are already stored again.
    #[arg(long)]
    pub force: bool,
    /// Versions measured together in shuffled interleaved rounds, so that drift of the machine
    /// cannot pose as a change (1: one after another; with --builds, always 1).
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub batch: usize,
    /// Measure only shard I of N (CI sharding): the batches are dealt out in turn, so the
    /// shards together measure every version once, each batch whole.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Stored versions measured again in every session beside the new ones — the newest stored
    /// and random earlier ones — so that the shift a session puts on everything it measures can
    /// be taken out (0: none; changes at session boundaries are then confounded).
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub anchors: usize,
    /// Report newly detected changes without confirming them (by default both sides of each are
    /// measured again together, interleaved, until decided: a change is reported confirmed, or
    /// refuted and not reported).
    #[arg(long)]
    pub no_confirm: bool,
    /// Measured-time budget of each confirmation: 90, 90s, 10m, 1.5h (a confirmation also
    /// stops after 100 rounds, whichever comes first).
    #[arg(long, value_name = "DURATION", default_value = "60s")]
    pub confirm_budget: Seconds,
    /// Checkouts and builds.
    #[command(flatten)]
    pub builds: CheckoutArgs,
    /// The series.
    #[command(flatten)]
    pub series: SeriesArgs,
    /// Everything `rigor run` takes; `{src}` in commands is the version's checkout, which is
    /// also their working directory. `--build CMD` builds each version once in its checkout
    /// before measuring it; with `--builds N` builds are the top level, as in `rigor run`.
    #[command(flatten)]
    pub options: RunOptions,
    /// The commands to benchmark, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub commands: Vec<String>,
}

/// How versions are checked out, built and told identical.
#[derive(Debug, Args, Clone)]
pub struct CheckoutArgs {
    /// What a version's build produces, relative to its checkout (repeatable; files, or
    /// folders hashed whole): versions whose products are byte-identical are one program, no
    /// change is reported between them, and their measurements pool. Default: the benchmarked
    /// program, when it is a file in the checkout.
    #[arg(long = "artifact", value_name = "PATH")]
    pub artifacts: Vec<PathBuf>,
    /// Built checkouts kept for later commands (`track run`, `bisect`), the least recently used
    /// removed first.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub keep_checkouts: usize,
}

/// `rigor track bisect`.
#[derive(Debug, Args)]
#[command(after_help = "\
Exit status: 0 when a first changed version is named, or the ends are shown not to differ
(equivalent, or byte-identical builds); 1 when the bisection is undecided (the ends could not be
told apart within --max-rounds, or a midpoint could not be placed); 2 on an error or a benchmark
that failed; 130 when interrupted.")]
pub struct TrackBisectArgs {
    /// The last version known to be as before.
    #[arg(value_name = "GOOD")]
    pub good: String,
    /// A version known to differ.
    #[arg(value_name = "BAD")]
    pub bad: String,
    /// The repository.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub repo: PathBuf,
    /// The most rounds a comparison of the bisection may take (each round runs the versions
    /// compared once, in random order; they are measured -r rounds at a time until decided).
    #[arg(long, default_value_t = 60, value_name = "N", value_parser = parse_rounds, allow_negative_numbers = true)]
    pub max_rounds: usize,
    /// Checkouts and builds.
    #[command(flatten)]
    pub builds: CheckoutArgs,
    /// The series measured versions are stored in.
    #[command(flatten)]
    pub series: SeriesArgs,
    /// Everything `rigor run` takes (as for `rigor track run`).
    #[command(flatten)]
    pub options: RunOptions,
    /// The command to benchmark, after `--` (the first is bisected).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub commands: Vec<String>,
}

/// `rigor track check`.
#[derive(Debug, Args)]
pub struct TrackCheckArgs {
    /// The candidate's result JSON, measured elsewhere: compared with the stored history
    /// (unpaired, with the spread between sessions the history measured).
    #[arg(value_name = "RESULT.json", required_unless_present = "candidate")]
    pub file: Option<PathBuf>,
    /// Instead of a saved result: build the candidate (a revision of --repo, or a folder that
    /// holds it) and the baseline and measure both together, in shuffled interleaved rounds,
    /// until each benchmark's comparison is decided or --budget is spent (the stronger gate).
    #[arg(
        long,
        value_name = "REV|DIR",
        conflicts_with = "file",
        requires = "commands"
    )]
    pub candidate: Option<String>,
    /// With --candidate: the baseline's revision (default: the baseline branch's newest stored
    /// version, else the branch's head).
    #[arg(long, value_name = "REV", requires = "candidate")]
    pub baseline_rev: Option<String>,
    /// The repository: its project's history is the default --db, and with --candidate its
    /// revisions are built.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub repo: PathBuf,
    /// With --candidate: the most rounds of each comparison (at least 8).
    #[arg(long, default_value_t = 200, value_name = "N", value_parser = parse_rounds, allow_negative_numbers = true)]
    pub max_rounds: usize,
    /// The branch whose history is the baseline (default: the repository's current branch,
    /// else "main").
    #[arg(long, value_name = "BRANCH")]
    pub baseline: Option<String>,
    /// A stored version to compare with instead of the branch's latest (a commit id or prefix,
    /// or a label).
    #[arg(long, value_name = "REV", value_parser = parse_label)]
    pub baseline_version: Option<String>,
    /// The machine (default: this host's name).
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
    /// Write the comparisons as a Markdown table (for a pull-request comment).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Checkouts and builds (with --candidate).
    #[command(flatten)]
    pub builds: CheckoutArgs,
    /// Everything `rigor run` takes (with --candidate; --seed, the comparison and analysis
    /// options apply to a saved result too, --seed 0 by default there).
    #[command(flatten)]
    pub options: RunOptions,
    /// With --candidate: the commands to benchmark, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub commands: Vec<String>,
}

/// `rigor track changes`.
#[derive(Debug, Args)]
pub struct TrackChangesArgs {
    /// The repository whose project's history is read (the default --db; a track command finds
    /// the history of the project it is pointed at, from anywhere).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub repo: PathBuf,
    /// Only this benchmark.
    #[arg(long, value_name = "NAME")]
    pub benchmark: Option<String>,
    /// Only this machine (default: every machine).
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
    /// Only this branch (default: every branch).
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
    /// Practical threshold: smaller changes are not reported.
    #[arg(long, default_value = "1%", value_name = "PCT")]
    pub threshold: Fraction,
    /// Confidence level of the intervals; one minus it is the false discovery rate across
    /// benchmarks.
    #[arg(long, default_value = "0.95")]
    pub confidence: ConfidenceLevel,
    /// Also list changes the latest detection no longer finds.
    #[arg(long)]
    pub all: bool,
    /// Only changes at versions from this date on (2026-01-01, or an RFC 3339 time); versions
    /// without a known time (labels) are left out.
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Print the changes as JSON: `{"changes": [...], "events": [...]}`, each event the
    /// changes that moved together at one version (with the joint test's common ratio when the
    /// benchmarks were tested together).
    #[arg(long)]
    pub json: bool,
    /// Write a Markdown table of the changes.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Write an AsciiDoc table of the changes.
    #[arg(long, value_name = "FILE")]
    pub asciidoc: Option<PathBuf>,
    /// Write an org-mode table of the changes.
    #[arg(long, value_name = "FILE")]
    pub orgmode: Option<PathBuf>,
    /// Exit with status 1 when a current change (not marked invalid) listed is one of these.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub fail_on: Option<rigor_app::track::ChangesFailOn>,
    /// The metrics whose changes are detected and listed: wall, cpu (user + system), user,
    /// system, peak-memory, or a name the benchmarked program reported; several with commas, the
    /// false discovery rate controlled across benchmarks × metrics.
    #[arg(long, value_name = "NAME[,NAME...]", default_value = "wall")]
    pub metric: Metrics,
}

/// `rigor track show`.
#[derive(Debug, Args)]
pub struct TrackShowArgs {
    /// The benchmark (may be left out where the history holds only one; without it, the stored
    /// benchmarks are listed).
    pub benchmark: Option<String>,
    /// Print the history as JSON: each version with its mean, interval and units per level.
    #[arg(long)]
    pub json: bool,
    /// The metric shown: wall, cpu (user + system), user, system, peak-memory, or a name the
    /// benchmarked program reported.
    #[arg(long, value_name = "NAME", default_value = "wall")]
    pub metric: Metric,
    /// The repository: its project's history is the default --db, and its current branch the
    /// default --branch.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub repo: PathBuf,
    /// The series.
    #[command(flatten)]
    pub series: SeriesArgs,
}

/// `rigor track rm`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("runs").required(true).args(["session", "version"])))]
pub struct TrackRmArgs {
    /// The session whose runs go (its id, as `rigor track rm --dry-run --version REV` lists
    /// each run's).
    #[arg(long, value_name = "ID")]
    pub session: Option<i64>,
    /// The version whose runs go: its stored name (a commit id, a prefix of one, a label), or
    /// a revision of --repo.
    #[arg(long, value_name = "REV", value_parser = parse_label)]
    pub version: Option<String>,
    /// Only this benchmark's data of those runs (a run keeps its other benchmarks). A name may
    /// start with '-' (the words of an unquoted command become benchmarks of their own: `-1`).
    #[arg(long, value_name = "NAME", allow_hyphen_values = true)]
    pub benchmark: Option<String>,
    /// List what would be removed, and remove nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The repository a revision is resolved in; its project's history is the default --db.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub repo: PathBuf,
    /// The series.
    #[command(flatten)]
    pub series: SeriesArgs,
}

/// `rigor track status`.
#[derive(Debug, Args)]
pub struct TrackStatusArgs {
    /// The change's id (from `rigor track changes`); without it, the job queue is shown.
    #[arg(requires = "status")]
    pub id: Option<i64>,
    /// Its new status.
    #[arg(value_enum)]
    pub status: Option<StatusArg>,
}

/// `rigor track enqueue`.
#[derive(Debug, Args)]
pub struct TrackEnqueueArgs {
    /// Versions to measure: `A..B` (B's first-parent line after A) and single revisions.
    #[arg(value_name = "REVS")]
    pub revs: Vec<String>,
    /// The repository the versions are resolved in (workers use their own clone).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub repo: PathBuf,
    /// Also the last N commits of HEAD's first-parent line.
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// The machine class whose workers run the jobs (results are stored under it: only results
    /// of one class are compared).
    #[arg(long, value_name = "CLASS")]
    pub class: String,
    /// The branch the results belong to (default: the repository's current branch, else
    /// "main").
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
    /// Versions per job, measured together in shuffled interleaved rounds (with --builds, 1).
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub batch: usize,
    /// Attempts a job gets: a job whose workers die (or lose their lease) this many times is
    /// marked failed.
    #[arg(long, default_value_t = rigor_history::queue::DEFAULT_MAX_ATTEMPTS, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_attempts: u32,
    /// Queue the failed jobs holding any of these versions again (without it, versions in
    /// failed jobs are not queued again).
    #[arg(long)]
    pub retry_failed: bool,
    /// Measure versions already stored for the class again (workers skip them otherwise).
    #[arg(long)]
    pub force: bool,
    /// What a version's build produces, relative to its checkout (repeatable), as for `rigor
    /// track run`.
    #[arg(long = "artifact", value_name = "PATH")]
    pub artifacts: Vec<PathBuf>,
    /// Everything `rigor run` takes, as for `rigor track run`.
    #[command(flatten)]
    pub options: RunOptions,
    /// The commands to benchmark, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub commands: Vec<String>,
}

/// `rigor track worker`.
#[derive(Debug, Args)]
pub struct TrackWorkerArgs {
    /// This machine's name (default: the host name).
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
    /// The machine class whose jobs to run (default: the machine's name).
    #[arg(long, value_name = "CLASS")]
    pub class: Option<String>,
    /// This machine's clone of the repository.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub repo: PathBuf,
    /// Seconds a claim holds without a heartbeat (the heartbeat renews it every third).
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub lease: f64,
    /// Seconds to wait when no job is queued.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub poll: f64,
    /// Stop when no job of the class is queued (default: wait for more).
    #[arg(long)]
    pub exit_when_empty: bool,
    /// Stop after N jobs.
    #[arg(long, value_name = "N")]
    pub max_jobs: Option<usize>,
}

/// A change's status.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum StatusArg {
    /// Not looked at (the only status that fails `--fail-on`).
    New,
    /// A real change, accepted: shown, no longer failing `--fail-on`.
    Acknowledged,
    /// Not a real change: shown struck out, no longer failing `--fail-on`.
    Invalid,
}

/// Options shared by everything that analyses data.
#[derive(Debug, Args, Clone)]
pub struct AnalysisArgs {
    /// Confidence level of intervals, as a fraction or percentage (0.95, 95, 99%).
    #[arg(long, default_value = "0.95")]
    pub confidence: ConfidenceLevel,
    /// Quantile of the mean interval: Student's t (default) or normal (as in Kalibera & Tůma 2006 and Kalibera & Jones 2013).
    #[arg(long, value_enum, default_value = "t")]
    pub quantile: Quantile,
    /// What is summarised and compared: `wall` time (default), `cpu` time (user + system),
    /// `user`, `system`, `peak-memory`, `instructions` and `cycles` (hardware counters, where
    /// the machine has them), or a metric the program reports (`allocations`); several at once
    /// separated by commas (`wall,cpu`). Every execution records them all; this chooses what
    /// is shown.
    #[arg(long, value_name = "NAME[,NAME…]", default_value = "wall")]
    pub metric: Metrics,
}

/// `rigor run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Commands to benchmark. Each is split into words and run directly, unless it has shell
    /// syntax (a pipe, `;`, `&&`, a redirection, `$VAR`, a glob, …): then it runs through `sh -c`,
    /// and rigor says so. --shell runs every command through a shell, -N none. `{VAR}` is
    /// replaced by each value of a --parameter-scan or --parameter-list.
    #[arg(value_name = "COMMAND")]
    pub commands: Vec<String>,
    /// Everything else `rigor run` takes.
    #[command(flatten)]
    pub options: RunOptions,
}

/// The options of `rigor run` (shared by `rigor plan` and `rigor track run`).
#[derive(Debug, Args, Clone)]
pub struct RunOptions {
    /// Names for the commands, in order (default: the command text); `{VAR}` is replaced by the
    /// parameters' values.
    #[arg(
        short = 'n',
        long = "name",
        visible_alias = "command-name",
        value_name = "NAME"
    )]
    pub names: Vec<String>,
    /// Measured executions (processes) per command: the top level of the hierarchy [default
    /// for `rigor run`: 20, fewer (at least 10) when 20 would take over 3 s per command; 10
    /// within --min-runs and --max-runs when they are given, and for plan, bench and track; 4
    /// per build for bench --against, which links 6 builds a side (--builds)].
    #[arg(
        short = 'r',
        long,
        visible_alias = "runs",
        value_name = "N",
        value_parser = parse_executions,
        allow_negative_numbers = true
    )]
    pub executions: Option<usize>,
    /// The fewest executions (top-level units): the count when 10 is fewer, and the size of an
    /// adaptive run's pilot (--precision, --budget).
    #[arg(short = 'm', long, value_name = "N", conflicts_with = "executions", value_parser = parse_executions, allow_negative_numbers = true)]
    pub min_runs: Option<usize>,
    /// The most executions (top-level units): the count when 10 is more, and the most an
    /// adaptive run may reach [adaptive default: 10000].
    #[arg(
        short = 'M',
        long = "max-runs",
        visible_alias = "max-units",
        value_name = "N",
        conflicts_with = "executions",
        value_parser = parse_executions,
        allow_negative_numbers = true
    )]
    pub max_units: Option<usize>,
    /// Whole executions run first and discarded (default: 1 when only wall time is measured, 0
    /// with --iterations-from).
    #[arg(short = 'w', long, visible_alias = "warmup", value_name = "N", value_parser = parse_warmup, allow_negative_numbers = true)]
    pub warmup_executions: Option<usize>,
    /// Discard the first N reported iterations of every execution as warm-up, or `auto`: detect
    /// when iterations become initialised and independent, and if they never do keep one
    /// iteration per execution (Kalibera & Jones 2013).
    #[arg(long, default_value = "0", value_name = "N|auto", value_parser = parse_discard, allow_negative_numbers = true)]
    pub discard: Discard,
    /// Kill an execution (or a build) after this long: 90, 90s, 10m, 1.5h (counted as a failure).
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<Seconds>,
    /// Seed of every random choice (order within rounds, bootstrap); printed and saved. Random
    /// by default.
    #[arg(long)]
    pub seed: Option<Seed>,
    /// A version or commit label saved with the result (the git commit of the working
    /// directory is saved too, when there is one).
    #[arg(long, value_name = "LABEL", value_parser = parse_label)]
    pub label: Option<String>,
    /// Run every COMMAND (and hook) through a shell instead of splitting them into words:
    /// `--shell` alone is `sh -c`; `--shell bash`, `-S "bash --norc"` pick one; `none` runs
    /// every one directly, shell syntax included (as -N). Without --shell, only commands with
    /// shell syntax run through `sh -c`. A value that is not a shell (sh, bash, zsh, dash, ksh,
    /// fish, …) is the first COMMAND, so `--shell 'a | b'` still means `sh -c 'a | b'`, unless
    /// written attached: `--shell=python3` runs each command as `python3 -c COMMAND`.
    #[arg(
        short = 'S',
        long,
        value_name = "SHELL",
        num_args = 0..=1,
        default_missing_value = "sh"
    )]
    pub shell: Option<String>,
    /// Run every command directly, without a shell, even one with shell syntax (hyperfine's -N:
    /// its words are split as `sh` would split them, and nothing is expanded).
    #[arg(short = 'N', conflicts_with = "shell")]
    pub no_shell: bool,
    /// Benchmark each command for every value of VAR from MIN to MAX (integers, or decimals
    /// with --parameter-step-size): `{VAR}` in commands and names is replaced by the value.
    #[arg(
        short = 'P',
        long,
        num_args = 3,
        value_names = ["VAR", "MIN", "MAX"],
        conflicts_with = "parameter_list"
    )]
    pub parameter_scan: Vec<String>,
    /// The step of --parameter-scan [default: 1].
    #[arg(short = 'D', long, value_name = "STEP", requires = "parameter_scan")]
    pub parameter_step_size: Option<String>,
    /// Benchmark each command for every value of VAR in a comma-separated list; several
    /// --parameter-list options give every combination. `{VAR}` is replaced by the value.
    #[arg(
        short = 'L',
        long,
        num_args = 2,
        value_names = ["VAR", "VALUES"]
    )]
    pub parameter_list: Vec<String>,
    /// Command run before the first execution: once, for every benchmark (once before all
    /// rounds), or once per COMMAND or per benchmark, in order (each benchmark then runs in a
    /// block of its own, inside its setup and cleanup). `{VAR}` is replaced by parameter values.
    #[arg(short = 's', long, value_name = "CMD")]
    pub setup: Vec<String>,
    /// Command run before every execution (not timed): once for all, or once per COMMAND or per
    /// benchmark. Sees HYPERFINE_ITERATION and RIGOR_ITERATION; `{VAR}` is replaced.
    #[arg(short = 'p', long, value_name = "CMD")]
    pub prepare: Vec<String>,
    /// Command run after every execution (not timed): once for all, or once per COMMAND or per
    /// benchmark. Sees HYPERFINE_ITERATION and RIGOR_ITERATION; `{VAR}` is replaced.
    #[arg(short = 'C', long, value_name = "CMD")]
    pub conclude: Vec<String>,
    /// Command run after the last execution: once for all, or once per COMMAND or per benchmark
    /// (as --setup).
    #[arg(short = 'c', long, value_name = "CMD")]
    pub cleanup: Vec<String>,
    /// File connected to the benchmarked commands' standard input (`null`, the default: none,
    /// as in hyperfine).
    #[arg(long, value_name = "null|FILE")]
    pub input: Option<PathBuf>,
    /// Where the commands' standard output goes: null (discarded), pipe (read through a pipe
    /// and discarded), inherit (shown), or a FILE, written anew by each execution (so it holds
    /// the last one's output); as in hyperfine, a file is named with a folder (`./out.log`), so
    /// that a misspelt word is not taken for one.
    #[arg(long, value_name = "null|pipe|inherit|FILE", default_value = "null", value_parser = parse_output)]
    pub output: OutputTarget,
    /// Show the commands' output (--output inherit); the progress bar is hidden.
    #[arg(long, conflicts_with = "output")]
    pub show_output: bool,
    /// Output style: the progress bar is shown with auto, full, color and nocolor (rigor does
    /// not colour its output), hidden with basic; none prints nothing but warnings, errors and
    /// exports to standard output (as hyperfine's none).
    #[arg(long, value_enum, default_value_t = StyleArg::Auto)]
    pub style: StyleArg,
    /// Unit of the times shown and exported [default: chosen for each value's size].
    #[arg(short = 'u', long, value_enum, value_name = "UNIT")]
    pub time_unit: Option<TimeUnit>,
    /// The work one measured value does (an execution, or an iteration the program times):
    /// `64MiB`, `1.5GB`, `1000items`; `{VAR}` is replaced by each benchmark's parameter. The
    /// summaries then also show the rate (MiB/s, items/s): the work over the mean time, its
    /// interval the time's interval mapped (ends swapped, exact: a rate falls as time rises).
    #[arg(long, value_name = "AMOUNT")]
    pub throughput: Option<String>,
    /// Order of the ranking and of the exported tables: auto (ranking by mean time, tables in
    /// command order), command (input order), mean-time (fastest first) [default: auto].
    #[arg(long, value_enum)]
    pub sort: Option<SortOrder>,
    /// Read in-process iteration times from this stream with --pattern (they become the lowest
    /// level). Programs can instead append JSON lines to $RIGOR_SAMPLES_FILE.
    #[arg(long, value_enum, requires = "pattern")]
    pub iterations_from: Option<Stream>,
    /// Regular expression whose first capture group is one iteration's time, at every match in the
    /// stream (`^` and `$` match at each line's ends).
    #[arg(long, value_name = "REGEX", requires = "iterations_from")]
    pub pattern: Option<String>,
    /// Unit of the captured iteration times.
    #[arg(long, default_value = "s", value_parser = unit_symbol())]
    pub unit: TimeUnit,
    /// Build command, making builds the top level: run once per build in the build's own directory,
    /// with `{build_dir}`, `{build}` and `{build_seed}` substituted here and in COMMANDs, and
    /// `{src}` (the sources: the working directory, or the version's checkout under `rigor track`).
    #[arg(long, value_name = "CMD")]
    pub build: Option<String>,
    /// Number of builds per command (with --build; default 5). `rigor track run` builds each
    /// version once in its checkout unless --builds is given.
    #[arg(long, value_name = "N", requires = "build", value_parser = parse_builds, allow_negative_numbers = true)]
    pub builds: Option<usize>,
    /// Directory for the build directories (default: a temporary directory, removed afterwards).
    #[arg(long, value_name = "DIR", requires = "build")]
    pub build_root: Option<PathBuf>,
    /// Pad each execution's environment with a random-size variable (seeded, recorded), so the
    /// environment size becomes a random rather than an uncontrolled variable.
    #[arg(long)]
    pub randomize_env: bool,
    /// Iterations per execution to ask the program for (sets RIGOR_ITERATIONS and substitutes
    /// `{iterations}` in COMMANDs); every reported iteration after --discard is analysed.
    #[arg(long, value_name = "N", value_parser = parse_iterations, allow_negative_numbers = true)]
    pub iterations: Option<usize>,
    /// Measure executions that exit with a non-zero status (as hyperfine's -i), and keep
    /// running a command after it crashes or times out (the failure is recorded). With a list
    /// (`--ignore-failure=1,2`, `-i=1,2`; hyperfine 1.20) only those exit codes are measured,
    /// and any other failure stops the command as without -i; `all-non-zero` is plain -i.
    #[arg(
        short = 'i',
        long,
        value_name = "CODES",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "all-non-zero",
        value_parser = parse_ignore_failure
    )]
    pub ignore_failure: Option<IgnoredExits>,
    /// Treat each COMMAND as a simulation spec (e.g. "mean=10ms,execution=3%,iteration=1%,iterations=20")
    /// with known variance components: no processes are run. Under `rigor track run` and
    /// `bisect`, `--simulate 'versions=40,step=12:+5%,session=10%'` simulates a whole project
    /// instead of a repository (see the README); a value that is not a project is the first
    /// COMMAND.
    #[arg(long, value_name = "SPEC", num_args = 0..=1, default_missing_value = "")]
    pub simulate: Option<String>,
    /// Write the result as rigor's JSON (every execution with its analysis; hyperfine's
    /// `results[]` format is --export-json-hyperfine), appended as each execution completes. `-`
    /// writes the final result to standard output at the end instead (nothing is kept if the run
    /// is killed; the summaries then go to standard error).
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Write every measurement as long-format CSV, one row per value (hyperfine's summary CSV is
    /// --export-csv-hyperfine; `-`: standard output, the summaries then go to standard error).
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Summary tables.
    #[command(flatten)]
    pub tables: TableExportArgs,
    /// Write a self-contained HTML report with plots at the end of the run.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Exports for other tools.
    #[command(flatten)]
    pub tools: ToolExportArgs,
    /// Use a plan written by `rigor plan`: its repetition counts below the top level, and with
    /// --precision the top-level count it predicts for that precision (a fixed run: no pilot,
    /// no adaptation).
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// Target relative half-width of the interval (e.g. 1%): rigor starts with a pilot of 10
    /// top-level units (kept in the results), takes the optimal counts below the top from it,
    /// and adds top-level units until the interval is this narrow. With --plan, the plan's count
    /// for this precision is run instead. Without --plan the interval is the --estimator's: the
    /// mean's, or for median and min the bootstrap interval that resamples whole executions
    /// (or builds). With `track run`: each version's level (Huber's M-estimate of its execution
    /// means, as the history stores it) is measured until its interval is this narrow, per
    /// benchmark — after a pilot of --min-runs executions (10 by default), further interleaved
    /// rounds run only the versions and benchmarks not known yet, up to --max-runs.
    #[arg(long, value_name = "PCT", value_parser = parse_precision)]
    pub precision: Option<Fraction>,
    /// Time budget for the whole experiment (e.g. 90s, 10m, 1h), pilot included: rigor plans
    /// from the pilot and stops adding top-level units when the measured time reaches it. Not
    /// with --plan, whose counts are fixed. With --until-decided: stop undecided comparisons
    /// (inconclusive) when the measured time reaches it. With `track run`: the measured time
    /// of each session (a batch of versions with its anchors).
    #[arg(long, value_name = "DURATION", conflicts_with = "plan")]
    pub budget: Option<Seconds>,
    /// Measure in interleaved rounds until each command's comparison with the reference (the
    /// first, or --reference) is decided: a regression, an improvement, or equivalent within
    /// --threshold. The rule is an anytime-valid confidence sequence on the paired round
    /// ratios (Robbins 1970; Howard et al. 2021), so looking after every round keeps the chance
    /// of a false decision within 1 − --confidence (shared by the candidates: Bonferroni). Each
    /// candidate stops on its own. The first look is after --min-runs rounds [default: 8]; the
    /// run stops at --max-runs rounds [default: 200] or when --budget is spent. With --build a
    /// round is one build of each command with -r executions [default: 3], and --builds can
    /// give the most rounds.
    #[arg(long, conflicts_with_all = ["precision", "plan"])]
    pub until_decided: bool,
    /// Comparison options (several commands).
    #[command(flatten)]
    pub compare: ComparisonArgs,
    /// The name of the command --reference adds (hyperfine's --reference-name).
    #[arg(long, value_name = "NAME", requires = "reference")]
    pub reference_name: Option<String>,
    /// Analysis options.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// `rigor bench`.
#[derive(Debug, Args)]
#[command(after_help = "\
Each benchmark is one rigor benchmark: its executions (processes, -r) are interleaved with the
others' in shuffled rounds, and each execution writes its samples (--iterations of them) through
rigor's protocol. The evaluations per sample are tuned once, before the experiment (Chen & Revels
2016), and fixed for every execution. Compare two benchmarks with --reference NAME, or runs with
--save-baseline NAME and later --baseline NAME (stored in .rigor/baselines/).")]
pub struct BenchArgs {
    /// Only the benchmarks whose names contain any FILTER.
    #[arg(value_name = "FILTER")]
    pub filters: Vec<String>,
    /// Only this bench target (repeatable; default: every bench target).
    #[arg(long = "bench", value_name = "NAME")]
    pub benches: Vec<String>,
    /// The project's Cargo.toml.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// The package whose bench targets to build (long form only: `-p` is hyperfine's
    /// `--prepare`, which `rigor bench` shares with `rigor run`).
    #[arg(long, value_name = "SPEC")]
    pub package: Option<String>,
    /// Cargo features to enable.
    #[arg(long, value_name = "FEATURES")]
    pub features: Option<String>,
    /// FILTERs must equal the benchmarks' names (not just be contained in them).
    #[arg(long)]
    pub exact: bool,
    /// List the benchmarks and exit.
    #[arg(long, conflicts_with_all = ["against", "baseline", "save_baseline"])]
    pub list: bool,
    /// Evaluations per sample for every benchmark (default: tuned for each).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub evals: Option<u64>,
    /// Save this run's result as the baseline NAME (.rigor/baselines/NAME.json).
    #[arg(long, value_name = "NAME")]
    pub save_baseline: Option<String>,
    /// Compare this run with the saved baseline NAME (benchmark by benchmark, by name).
    #[arg(long, value_name = "NAME", conflicts_with = "against")]
    pub baseline: Option<String>,
    /// Measure another build of the project together with this one and compare them: REV (a
    /// revision of the repository, checked out once into .rigor/checkouts and kept) or DIR (the
    /// other copy of the folder holding Cargo.toml). Both are built, the evaluations are tuned
    /// once (on this build), and every benchmark of both runs in the same shuffled interleaved
    /// rounds: a session's shift moves both sides alike, which a saved
    /// --baseline cannot offer. Each side is linked in six code layouts (--builds), so that
    /// where the linker put a function is not taken for a change.
    #[arg(long, value_name = "REV|DIR")]
    pub against: Option<String>,
    /// Everything `rigor run` takes (executions, --iterations as samples per execution,
    /// --precision, exports, comparison and analysis options).
    #[command(flatten)]
    pub options: RunOptions,
}

/// `rigor plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Where to write the plan (TOML).
    #[arg(
        short = 'o',
        long = "out",
        value_name = "FILE",
        default_value = "rigor-plan.toml"
    )]
    pub out: PathBuf,
    /// Pilot executions (with --build: spread over the pilot builds).
    #[arg(long, default_value_t = 30, value_name = "N", value_parser = parse_executions, allow_negative_numbers = true)]
    pub pilot_executions: usize,
    /// Pilot iterations per execution to ask for (after --discard).
    #[arg(long, default_value_t = 30, value_name = "N", value_parser = parse_iterations, allow_negative_numbers = true)]
    pub pilot_iterations: usize,
    /// Pilot builds (with --build).
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = parse_builds, allow_negative_numbers = true)]
    pub pilot_builds: usize,
    /// Stop the pilot after this much measured time: 90, 90s, 10m, 1.5h.
    #[arg(long, value_name = "DURATION")]
    pub max_time: Option<Seconds>,
    /// Everything `rigor run` takes.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Options of comparisons (several commands in a run, `rigor compare`).
#[derive(Debug, Args, Clone)]
pub struct ComparisonArgs {
    /// The benchmark others are compared with: a name, a command, or a 1-based position
    /// (default: the first). In `rigor run`, a command that is none of the benchmarks is
    /// benchmarked too, first, as the reference (hyperfine 1.20's `--reference CMD`). In another
    /// tool's file, by default only variants of one benchmark are compared (`BM_Fib/10` with
    /// `BM_Fib/15`); with --reference, every benchmark is.
    #[arg(long, value_name = "NAME|CMD|N")]
    pub reference: Option<String>,
    /// Practical threshold: changes smaller than this are "equivalent" (e.g. 1%, 0.5%).
    #[arg(long, default_value = "1%", value_name = "PCT")]
    pub threshold: Fraction,
    /// What decides the verdict: the ratio interval (default) or Kalibera & Tůma's rule that the
    /// two confidence intervals do not overlap [default: ratio].
    #[arg(long, value_enum)]
    pub method: Option<VerdictMethod>,
    /// The statistic compared; median uses the hierarchical bootstrap, min compares each
    /// execution's own minimum by Hodges–Lehmann's shift (Mann–Whitney's interval) (default:
    /// mean; min for `rigor bench`, as for in-process microbenchmarks in Chen & Revels 2016).
    #[arg(long, value_enum)]
    pub estimator: Option<Estimator>,
    /// Bootstrap resamples [default: 10000].
    #[arg(long, value_name = "B", value_parser = parse_resamples, allow_negative_numbers = true)]
    pub resamples: Option<usize>,
    /// Exit with status 1 when a verdict is a regression (or any change, or anything not shown
    /// to be equivalent or better), or when there is any warning.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub fail_on: Option<FailOn>,
}

/// `rigor report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A result JSON written by `rigor run --export-json`, or another tool's result; several
    /// files of a tool that measures in one process are read together, each one process
    /// execution (as for `rigor analyze`). Several runs of one experiment are taken together by
    /// `rigor analyze RUN1.json RUN2.json …`, not drawn.
    #[arg(value_name = "RESULT.json", required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// Where to write the HTML file.
    #[arg(
        short = 'o',
        long = "out",
        value_name = "FILE",
        default_value = "rigor-report.html"
    )]
    pub out: PathBuf,
    /// Comparison options.
    #[command(flatten)]
    pub compare: ComparisonArgs,
    /// Analysis options.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// `rigor compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The old (baseline) result, then the new (candidate) one. Several files per side (of a
    /// tool that measures in one process, e.g. Google Benchmark: each file one process
    /// execution): `rigor compare OLD1 OLD2 -- NEW1 NEW2` (options before the `--`). Several
    /// results of rigor or hyperfine a side are runs: compared across them (Welch's t on the
    /// runs' logarithms, at least two a side).
    #[arg(value_name = "OLD.json", required = true, num_args = 1..)]
    pub old: Vec<PathBuf>,
    /// The new results, after `--`, when several files are given per side.
    #[arg(value_name = "NEW.json", last = true)]
    pub new: Vec<PathBuf>,
    /// The files' format (default: recognised from each file's content).
    #[arg(long, value_enum, value_name = "NAME")]
    pub format: Option<Format>,
    /// Print the comparisons as JSON.
    #[arg(long)]
    pub json: bool,
    /// Write a Markdown table (for a pull-request comment; `-`: standard output, the rest then
    /// goes to standard error).
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Seed of the bootstrap.
    #[arg(long, default_value = "0")]
    pub seed: Seed,
    /// Comparison options.
    #[command(flatten)]
    pub compare: ComparisonArgs,
    /// Analysis options.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// Summary tables (`rigor run` and `rigor analyze`): declared once, so the two commands' flags
/// cannot drift apart.
#[derive(Debug, Args, Clone, Default)]
pub struct TableExportArgs {
    /// Write a Markdown summary table and the comparisons (`-`: standard output, the summaries
    /// then go to standard error); with several --metric, of the first.
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Write an AsciiDoc summary table (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub export_asciidoc: Option<PathBuf>,
    /// Write an Emacs org-mode summary table (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub export_orgmode: Option<PathBuf>,
}

/// Exports for other tools (`rigor run` and `rigor analyze`).
#[derive(Debug, Args, Clone, Default)]
pub struct ToolExportArgs {
    /// Write the means and intervals as Bencher Metric Format JSON (`latency`, in ns), for
    /// `bencher run --adapter json`.
    #[arg(long, value_name = "FILE")]
    pub export_bmf: Option<PathBuf>,
    /// Write a CSV for Apache Otava's change-point detection: `time,commit` and each benchmark's
    /// mean (s); an existing file with the same columns gets one more row.
    #[arg(long, value_name = "FILE")]
    pub export_otava: Option<PathBuf>,
    /// Write the results as hyperfine 1.20's `--export-json` writes them (`results[].mean`,
    /// `stddev`, `median`, `user`, `system`, `min`, `max`, `times`, `exit_codes`, `parameters`;
    /// seconds, over the measured executions), for scripts written for hyperfine; rigor's mean
    /// and interval are an extra `rigor` field of each result.
    #[arg(long, value_name = "FILE")]
    pub export_json_hyperfine: Option<PathBuf>,
    /// Write hyperfine 1.20's `--export-csv` summary (`command,mean,stddev,median,user,system,
    /// min,max,parameter_…`, seconds), with rigor's mean and interval as three more columns
    /// (`rigor_mean,rigor_ci_lower,rigor_ci_upper`).
    #[arg(long, value_name = "FILE")]
    pub export_csv_hyperfine: Option<PathBuf>,
}

fn parse_discard(s: &str) -> Result<Discard, String> {
    if s == "auto" {
        return Ok(Discard::Auto);
    }
    if s.trim().parse::<f64>().is_err() {
        return Err(format!("'{s}' is neither a count nor 'auto'"));
    }
    count(
        s,
        0,
        limits::MAX_ITERATIONS,
        "iterations per execution",
        limits::SAMPLES_WHY,
    )
    .map(Discard::Count)
}

/// `--style` (hyperfine's values).
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum StyleArg {
    /// A progress bar when standard error is a terminal.
    Auto,
    /// No progress bar.
    Basic,
    /// A progress bar.
    Full,
    /// As full (rigor does not colour its output).
    Nocolor,
    /// As full.
    Color,
    /// Nothing but warnings, errors and exports to standard output (as hyperfine's none): no
    /// progress bar, no summaries, no notes.
    None,
}

/// `rigor analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// A result JSON written by `rigor run --export-json`, another tool's result (hyperfine,
    /// pyperf, JMH, Google Benchmark, criterion, BenchmarkTools.jl, ReBench, Krun; see
    /// --format), or a long-format CSV. Several files of a tool that measures in one process
    /// (Google Benchmark, criterion, BenchmarkTools.jl) are read together, each file one process
    /// execution. Several results of rigor or hyperfine are runs of one experiment: each
    /// benchmark's mean and each comparison are shown across the runs, the run as the top level.
    #[arg(value_name = "FILE", required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// The file's format (default: recognised from its content; a criterion directory is read
    /// as criterion).
    #[arg(long, value_enum, value_name = "NAME")]
    pub format: Option<Format>,
    /// CSV: the columns identifying each level, top → bottom (the last identifies the measurement).
    #[arg(long, value_delimiter = ',', value_name = "COL,COL")]
    pub levels: Vec<String>,
    /// CSV: the column holding the measured value (seconds).
    #[arg(long, value_name = "COL", default_value = "value")]
    pub value: String,
    /// CSV: a column naming the benchmark of each row.
    #[arg(long, value_name = "COL")]
    pub benchmark: Option<String>,
    /// CSV: accept negative values (e.g. differences of times) instead of refusing them.
    #[arg(long)]
    pub allow_negative: bool,
    /// Print the analysis as JSON (the result-file schema) instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Summary tables.
    #[command(flatten)]
    pub tables: TableExportArgs,
    /// The work one measured value does (`64MiB`, `1000items`; `{VAR}`: each benchmark's
    /// parameter), to show each benchmark's rate beside its time (replacing what the file
    /// says).
    #[arg(long, value_name = "AMOUNT")]
    pub throughput: Option<String>,
    /// Diagnose warm-up, steady state, independence and the random initial state.
    #[arg(long)]
    pub diagnose: bool,
    /// Also report the Mono project's robust estimate (Kalibera, Bulej & Tůma 2005b) (`mono`: medians of sub-selections per execution)
    /// beside the default.
    #[arg(long, value_enum, value_name = "MODE")]
    pub robust: Option<rigor_app::saved::Robust>,
    /// Re-apply a warm-up discard: N iterations per execution, or `auto` (detected).
    #[arg(long, value_name = "N|auto", value_parser = parse_discard, allow_negative_numbers = true)]
    pub discard: Option<Discard>,
    /// Exports for other tools.
    #[command(flatten)]
    pub tools: ToolExportArgs,
    /// Comparison options (files with several benchmarks).
    #[command(flatten)]
    pub compare: ComparisonArgs,
    /// Analysis options.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// `--unit`: a time unit by its symbol (`--time-unit` takes hyperfine's names).
fn unit_symbol() -> impl TypedValueParser<Value = TimeUnit> {
    let units = [
        ("ns", "Nanoseconds"),
        ("us", "Microseconds"),
        ("ms", "Milliseconds"),
        ("s", "Seconds"),
    ];
    PossibleValuesParser::new(units.map(|(name, help)| PossibleValue::new(name).help(help)))
        .try_map(|s| s.parse::<TimeUnit>())
}

// The parsers below are thin adapters: the forms each quantity accepts are defined (and tested)
// once, in rigor-units.

/// A target precision: like a threshold, but above zero.
fn parse_precision(s: &str) -> Result<Fraction, String> {
    Fraction::parse_positive(s).map_err(|e| e.to_string())
}

/// Most executions per command (see [`rigor_runner::limits`]).
pub const MAX_EXECUTIONS: usize = limits::MAX_EXECUTIONS;

/// A whole number from `min` to `max`: `what` names what it counts and `why` (starting with
/// `: `, or empty) says why the limit is where it is. A negative number is named as such (not as
/// an option, the hint clap gives otherwise).
fn count(s: &str, min: usize, max: usize, what: &str, why: &str) -> Result<usize, String> {
    let t = s.trim();
    let n: usize = match t.parse() {
        Ok(n) => n,
        Err(_) if t.starts_with('-') => {
            return Err(format!(
                "'{s}' is negative: give a whole number of {what} from {min} to {max}"
            ));
        }
        Err(_) if t.parse::<f64>().is_ok_and(|x| x > max as f64) => {
            return Err(format!(
                "{t} is more than the {max} {what} rigor allows{why}"
            ));
        }
        Err(_) => {
            return Err(format!(
                "'{s}' is not a whole number of {what} (from {min} to {max})"
            ));
        }
    };
    if n < min {
        return Err(format!("{what} must be at least {min}"));
    }
    if n > max {
        return Err(format!(
            "{n} is more than the {max} {what} rigor allows{why}"
        ));
    }
    Ok(n)
}

/// `--output`'s value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputTarget {
    /// null, pipe or inherit.
    Mode(OutputMode),
    /// A file.
    File(PathBuf),
}

/// `null`, `pipe`, `inherit`, or a file's path with at least one folder in it (hyperfine
/// 1.20's values of `--output`).
pub fn parse_output(s: &str) -> Result<OutputTarget, String> {
    match s {
        "null" => Ok(OutputTarget::Mode(OutputMode::Null)),
        "pipe" => Ok(OutputTarget::Mode(OutputMode::Pipe)),
        "inherit" => Ok(OutputTarget::Mode(OutputMode::Inherit)),
        _ if std::path::Path::new(s).components().count() > 1 => {
            Ok(OutputTarget::File(PathBuf::from(s)))
        }
        _ => Err(format!(
            "'{s}' is none of null, pipe, inherit; a file is named with its folder (./{s})"
        )),
    }
}

/// What `-i/--ignore-failure` ignores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IgnoredExits {
    /// Every non-zero exit status (`-i`, `--ignore-failure=all-non-zero`).
    AllNonZero,
    /// These exit codes only (`--ignore-failure=1,2`).
    Codes(Vec<i32>),
}

/// `all-non-zero`, or a comma-separated list of exit codes (hyperfine 1.20's
/// `--ignore-failure` values).
pub fn parse_ignore_failure(s: &str) -> Result<IgnoredExits, String> {
    if matches!(s.trim(), "all-non-zero" | "") {
        return Ok(IgnoredExits::AllNonZero);
    }
    let codes = s
        .split(',')
        .map(|c| {
            c.trim().parse::<i32>().map_err(|_| {
                format!("'{c}' is not an exit code: give all-non-zero or codes like 1,2")
            })
        })
        .collect::<Result<Vec<i32>, String>>()?;
    if codes.contains(&0) {
        return Err("0 is success, not a failure to ignore".into());
    }
    Ok(IgnoredExits::Codes(codes))
}

const RUNS_WHY: &str = ": for long runs give a time --budget or a --precision instead";

/// An execution count: 1 to [`MAX_EXECUTIONS`] (one per build where builds are the top level;
/// the runner asks for at least 2 top-level units and says why).
fn parse_executions(s: &str) -> Result<usize, String> {
    if s.trim().parse::<usize>() == Ok(0) {
        // 1 is allowed only where builds are the top level: say the rule, not half of it.
        return Err(
            "executions per command must be at least 2 (1 with --build, where builds \
                    are the top level)"
                .to_string(),
        );
    }
    count(s, 1, MAX_EXECUTIONS, "executions per command", RUNS_WHY)
}

/// Warm-up executions: 0 to [`MAX_EXECUTIONS`].
fn parse_warmup(s: &str) -> Result<usize, String> {
    count(s, 0, MAX_EXECUTIONS, "warm-up executions per command", "")
}

/// Rounds of a comparison: 1 to [`MAX_EXECUTIONS`].
fn parse_rounds(s: &str) -> Result<usize, String> {
    count(s, 1, MAX_EXECUTIONS, "rounds", RUNS_WHY)
}

/// Builds per command: 0 to [`limits::MAX_BUILDS`] (the runner asks for at least 2 and says
/// why).
fn parse_builds(s: &str) -> Result<usize, String> {
    count(s, 0, limits::MAX_BUILDS, "builds per command", RUNS_WHY)
}

/// Iterations per execution: 1 to [`limits::MAX_ITERATIONS`].
fn parse_iterations(s: &str) -> Result<usize, String> {
    count(
        s,
        1,
        limits::MAX_ITERATIONS,
        "iterations per execution",
        limits::SAMPLES_WHY,
    )
}

/// Bootstrap resamples: 1 to [`MAX_RESAMPLES`].
fn parse_resamples(s: &str) -> Result<usize, String> {
    count(
        s,
        1,
        MAX_RESAMPLES,
        "resamples",
        ": each resample's statistic is kept (8 bytes each, 80 MB at the limit)",
    )
}

/// A version or label: not empty (nor only blanks), which would store a version without a name.
fn parse_label(s: &str) -> Result<String, String> {
    if s.trim().is_empty() {
        return Err("a version or label cannot be empty: give a revision or a name".into());
    }
    Ok(s.to_string())
}

/// `I/N` with 1 ≤ I ≤ N.
fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("'{s}' is not a shard: give I/N with 1 <= I <= N (e.g. 2/4)");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_duration_option_accepts_the_same_forms() {
        for form in ["90", "90s", "10m", "1.5h"] {
            for args in [
                vec!["rigor", "run", "--timeout", form, "x"],
                vec!["rigor", "run", "--budget", form, "x"],
                vec!["rigor", "plan", "--max-time", form, "x"],
            ] {
                assert!(Cli::try_parse_from(&args).is_ok(), "{args:?}");
            }
        }
        assert!(Cli::try_parse_from(["rigor", "plan", "--max-time", "soon", "x"]).is_err());
        assert!(Cli::try_parse_from(["rigor", "run", "--timeout", "0", "x"]).is_err());
    }

    #[test]
    fn a_benchmark_to_remove_may_be_named_like_an_option() {
        let cli = Cli::try_parse_from([
            "rigor",
            "track",
            "rm",
            "--session",
            "1",
            "--benchmark",
            "-1",
        ]);
        assert!(cli.is_ok(), "{cli:?}");
    }

    #[test]
    fn precision_must_be_positive_threshold_may_be_zero() {
        assert!(Cli::try_parse_from(["rigor", "run", "--precision", "0%", "x"]).is_err());
        assert!(Cli::try_parse_from(["rigor", "run", "--threshold", "0", "x"]).is_ok());
        assert!(Cli::try_parse_from(["rigor", "run", "--confidence", "99%", "x"]).is_ok());
        assert!(
            Cli::try_parse_from(["rigor", "run", "--seed", "18446744073709551615", "x"]).is_ok()
        );
    }

    #[test]
    fn ignore_failure_takes_hyperfine_s_values_after_an_equals_sign() {
        let ignored = |args: &[&str]| match Cli::try_parse_from(args).map(|c| c.command) {
            Ok(Command::Run(r)) => Ok((r.options.ignore_failure, r.commands)),
            Ok(_) => unreachable!(),
            Err(e) => Err(e.to_string()),
        };
        let codes = IgnoredExits::Codes(vec![1, 2]);
        assert_eq!(
            ignored(&["rigor", "run", "-i", "x"]).unwrap(),
            (Some(IgnoredExits::AllNonZero), vec!["x".to_string()])
        );
        let with = ignored(&["rigor", "run", "--ignore-failure=1,2", "x"]).unwrap();
        assert_eq!(with.0, Some(codes.clone()));
        assert_eq!(
            ignored(&["rigor", "run", "-i=1, 2", "x"]).unwrap().0,
            Some(codes)
        );
        let all = ignored(&["rigor", "run", "--ignore-failure=all-non-zero", "x"]);
        assert_eq!(all.unwrap().0, Some(IgnoredExits::AllNonZero));
        assert!(ignored(&["rigor", "run", "-i=1,x", "x"]).is_err());
        assert!(ignored(&["rigor", "run", "-i=0", "x"]).is_err());
    }

    /// hyperfine's options that rigor does not accept say so, and what to use instead.
    #[test]
    fn hyperfine_options_rigor_does_not_accept_say_what_to_use() {
        for args in [
            &["rigor", "run", "--min-benchmarking-time", "1", "true"][..],
            &["rigor", "run", "--min-benchmarking-time=1", "true"],
        ] {
            let e = Cli::try_parse_args(args).unwrap_err().to_string();
            assert!(e.contains("--min-benchmarking-time is not accepted"), "{e}");
            assert!(!e.contains("'-- --min"), "{e}");
        }
    }

    /// A track command's benchmark given without `--` is taken for revisions: the error says
    /// where the command goes, not only that COMMAND is required.
    #[test]
    fn a_track_command_without_dashes_is_told_where_its_command_goes() {
        for (sub, args) in [
            (
                "run",
                &["rigor", "track", "run", "--last", "3", "./bench"][..],
            ),
            (
                "run",
                &[
                    "rigor",
                    "track",
                    "--db",
                    "h.db",
                    "run",
                    "HEAD~3..HEAD",
                    "./b",
                ],
            ),
        ] {
            let e = Cli::try_parse_args(args).unwrap_err();
            assert_eq!(e.kind(), clap::error::ErrorKind::MissingRequiredArgument);
            let text = e.to_string();
            assert!(
                text.contains(&format!(
                    "it goes after `--`, as in `rigor track {sub} [REVS] -- ./bench`"
                )),
                "{text}"
            );
        }
        // With `--` and nothing after it, clap's own error stands.
        let e = Cli::try_parse_args(["rigor", "track", "run", "--last", "3", "--"]).unwrap_err();
        assert!(!e.to_string().contains("it goes after"), "{e}");
    }

    /// `rigor bench --builds N` links its own layouts; `rigor run --builds` still needs the
    /// build command it counts, and the man page and completions say so as the parser does.
    #[test]
    fn builds_stand_alone_in_bench_only() {
        let Command::Bench(b) = Cli::try_parse_args(["rigor", "bench", "--builds", "4"])
            .unwrap()
            .command
        else {
            panic!("not bench");
        };
        assert_eq!(b.options.builds, Some(4));
        let e = Cli::try_parse_args(["rigor", "run", "--builds", "4", "x"]).unwrap_err();
        assert!(e.to_string().contains("--build <CMD>"), "{e}");
        let mut c = Cli::definition("0", "rigor");
        let help = c
            .find_subcommand_mut("bench")
            .unwrap()
            .render_long_help()
            .to_string();
        assert!(help.contains("lld's --shuffle-sections"), "{help}");
        assert!(
            !help.contains("--build <CMD>") && !help.contains("--build-root"),
            "{help}"
        );
    }

    #[test]
    fn negative_values_are_named_as_such_without_clap_s_tip() {
        for args in [
            ["rigor", "run", "--threshold", "-5%", "x"],
            ["rigor", "run", "--timeout", "-5", "x"],
            ["rigor", "run", "--confidence", "-0.5", "x"],
        ] {
            let e = Cli::try_parse_args(args).unwrap_err().to_string();
            assert!(
                e.contains("is a negative number, which no option of rigor takes"),
                "{e}"
            );
            assert!(!e.contains("'-- -"), "{e}");
        }
        assert!(!is_negative_number("-r"));
        assert!(!is_negative_number("--"));
        assert!(is_negative_number("-.5"));
        // An unknown option is still clap's error.
        let e = Cli::try_parse_args(["rigor", "run", "--nope", "x"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::UnknownArgument);
    }

    #[test]
    fn count_values_never_panic_and_stay_within_their_limits() {
        // A seeded sweep of strings over the characters numbers are made of (the fuzz smoke of
        // these parsers): a count within its limit, or an error; never a panic.
        let alphabet: Vec<char> = "0123456789-+.eE_ x%".chars().collect();
        let mut state: u64 = 0x5eed;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize
        };
        type Parser = fn(&str) -> Result<usize, String>;
        let parsers: [(Parser, usize); 6] = [
            (parse_executions, MAX_EXECUTIONS),
            (parse_warmup, MAX_EXECUTIONS),
            (parse_rounds, MAX_EXECUTIONS),
            (parse_builds, limits::MAX_BUILDS),
            (parse_iterations, limits::MAX_ITERATIONS),
            (parse_resamples, MAX_RESAMPLES),
        ];
        for _ in 0..4000 {
            let len = next() % 24;
            let text: String = (0..len)
                .map(|_| alphabet[next() % alphabet.len()])
                .collect();
            for (parse, max) in parsers {
                if let Ok(n) = parse(&text) {
                    assert!(n <= max, "{text:?} gave {n}");
                }
            }
            let _ = parse_discard(&text);
            let _ = is_negative_number(&text);
        }
        for (parse, max) in parsers {
            assert_eq!(parse(&max.to_string()), Ok(max));
            assert!(parse(&(max + 1).to_string()).is_err());
            assert!(parse(&u128::MAX.to_string()).is_err());
        }
    }

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
