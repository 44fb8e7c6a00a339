//! Non-fatal problems of a run or an analysis, saved in the result and rendered in one place
//! (the report crate's `warnings` module).

use serde::{Deserialize, Serialize};

use crate::schema::RunStatus;

/// Something the user should know about a run, an analysis or a comparison that did not stop
/// it. An analysis's statistical warnings (too few units, a dominant level) are stored with its
/// benchmark; these are the rest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Warning {
    /// The file analysed is of a run that did not finish.
    Unfinished {
        /// The file.
        file: String,
        /// Its status.
        status: RunStatus,
    },
    /// The reference benchmark of the comparisons has no result, so nothing was compared.
    ReferenceHasNoResult {
        /// The reference.
        reference: String,
        /// Why it has none to compare (measured once, nothing measured), where known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        why: Option<String>,
    },
    /// Two benchmarks did not run in the same rounds (a failure?) and were compared unpaired.
    Unpaired {
        /// The candidate.
        candidate: String,
        /// The baseline.
        baseline: String,
    },
    /// One command of a comparison ran through a shell and the other directly: the shell's
    /// start-up is in one side's time only (hyperfine runs both through it and subtracts it).
    StartupOneSide {
        /// The command run through the shell.
        through_shell: String,
        /// The command run directly.
        direct: String,
        /// The empty shell measured as the start-up (`sh -c ''`).
        startup: String,
        /// Its mean wall time in nanoseconds, when it was analysed (an integer: warnings are
        /// compared exactly).
        startup_ns: Option<u64>,
    },
    /// A benchmark is only in the new result of a comparison of two results.
    OnlyInNew {
        /// The benchmark.
        benchmark: String,
    },
    /// A benchmark is only in the old result.
    OnlyInOld {
        /// The benchmark.
        benchmark: String,
    },
    /// A result checked against a history (`rigor track check FILE`) was measured on a machine
    /// as busy as the history's sessions were quiet, or the other way round: its times differ
    /// from the history's by the load (waiting for a CPU, evicted caches), which no interval of
    /// either holds, so no verdict is given. Loads are the last minute's average, in hundredths
    /// (210: 2.10), as `/proc/loadavg` gives them.
    LoadDiffers {
        /// The candidate's load (the higher of the run's start and end).
        candidate: u32,
        /// The lowest of the history's sessions' loads.
        history_low: u32,
        /// The highest.
        history_high: u32,
        /// The machine's logical CPUs: a load at or above it is a busy machine.
        cpus: usize,
    },
    /// Other processes kept at least half the machine's CPUs busy over the candidate's run and
    /// under half over every run it is compared with, or the other way round
    /// ([`crate::Provenance::others_cpus`], measured over each run): its times hold waiting for
    /// a CPU and evicted caches that theirs do not, which no interval of either holds, so no
    /// verdict is given. It decides where both sides measured it, before each benchmark's CPU
    /// share: contention that slows a few executions of ten (three at half a CPU, the mean
    /// time up by a quarter) leaves the median share untouched. CPUs in hundredths (120: 1.20).
    OthersDiffer {
        /// What the candidate is compared with.
        against: ComparedWith,
        /// What others used over the candidate's run.
        candidate: u32,
        /// The least others used over a compared run.
        others_low: u32,
        /// The most.
        others_high: u32,
        /// The machine's logical CPUs.
        cpus: usize,
    },
    /// A benchmark had a CPU for a share of its wall time ([`crate::CpuShare`]) outside the
    /// range of the runs it is compared with (a history's, a saved baseline's sessions, another
    /// result's): it was measured under contention they did not see (or they under contention
    /// it did not see), its wall time differs from theirs by about the shares' ratio, and no
    /// verdict is given. Shares in thousandths (997: 99.7%).
    ContentionDiffers {
        /// The benchmark.
        benchmark: String,
        /// What it is compared with.
        against: ComparedWith,
        /// The candidate's share (the new result's; across runs, the lowest of the new runs').
        candidate: u32,
        /// Across runs, the highest of the new runs' shares.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        candidate_high: Option<u32>,
        /// The lowest of the compared runs' shares.
        #[serde(alias = "history_low")]
        others_low: u32,
        /// The highest.
        #[serde(alias = "history_high")]
        others_high: u32,
    },
    /// A benchmark's CPU share differs from the compared runs' as [`Warning::ContentionDiffers`]
    /// says, but the side with the lower share was measured on a machine other processes left
    /// idle ([`crate::Provenance::others_cpus`] below half the CPUs): not contention, the code
    /// itself waits more there (I/O, sleeping, locks). The verdict stands; a note.
    WaitsDiffer {
        /// The benchmark.
        benchmark: String,
        /// What it is compared with.
        against: ComparedWith,
        /// The candidate's share, in thousandths.
        candidate: u32,
        /// The lowest of the compared runs' shares.
        #[serde(alias = "history_low")]
        others_low: u32,
        /// The highest.
        #[serde(alias = "history_high")]
        others_high: u32,
        /// Where every run told how long its executions waited for a CPU
        /// ([`crate::QueueShare`]) and that was alike on both sides: those shares. Absent where
        /// the side with the lower share was known quiet instead.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        queued: Option<QueueShares>,
    },
    /// A benchmark's executions waited, runnable, for a CPU other processes held for a share of
    /// their wall time ([`crate::QueueShare`]) outside the range of the runs it is compared
    /// with by more than the tolerance: measured under contention they did not see (or they
    /// under contention it did not see), its wall time differs from theirs by about that share,
    /// and no verdict is given. The kernel's own measure of contention: where every run has
    /// it, it decides instead of the CPU share.
    QueueDiffers {
        /// The benchmark.
        benchmark: String,
        /// What it is compared with.
        against: ComparedWith,
        /// The share of its wall time the candidate's executions waited, in thousandths (their
        /// mean; across runs, the lowest of the new runs').
        candidate: u32,
        /// Across runs, the highest of the new runs'.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        candidate_high: Option<u32>,
        /// The lowest of the compared runs'.
        others_low: u32,
        /// The highest.
        others_high: u32,
    },
    /// Runs analysed together (`rigor analyze RUN1 RUN2 …`) ran different commands under one
    /// benchmark name: they are pooled as one benchmark, which is right only where the
    /// commands are the same program in other places.
    CommandsDiffer {
        /// The benchmark.
        benchmark: String,
        /// Each distinct command, with the first file that ran it.
        commands: Vec<(String, String)>,
    },
    /// A benchmark's executions waited for a CPU other processes held for a mean share of their
    /// wall time ([`crate::QueueShare`]) outside the range of the runs it is compared with by
    /// more than the tolerance, but so unevenly across executions (contention that hit a few of
    /// them) that the shares do not show the contention differed: the verdict stands, and the
    /// warning says that the wall-time difference holds up to about the difference between
    /// those shares (a trial's 14% across two runs, of which 8 points were one run's waiting,
    /// had no word of it).
    WaitedUnevenly {
        /// The benchmark.
        benchmark: String,
        /// What it is compared with.
        against: ComparedWith,
        /// The candidate's share, in thousandths (across runs, the lowest of the new runs').
        candidate: u32,
        /// The lowest of the compared runs'.
        others_low: u32,
        /// The highest.
        others_high: u32,
    },
    /// A benchmark whose two sides were measured under other contention (one of the warnings
    /// [`Warning::contended_candidate`] gives a side for) was faster on the contended side by
    /// more than [`crate::contention::CONTENTION_MARGIN`] (and the threshold) at its interval's
    /// nearer end: contention only slows a program, so the verdict stands, the true difference
    /// if anything larger than shown. A note.
    StandsDespiteContention {
        /// The benchmark.
        benchmark: String,
        /// What it is compared with.
        against: ComparedWith,
        /// The candidate's side was the contended one (else the runs it is compared with).
        candidate_contended: bool,
    },
    /// A result checked against a history (`rigor track check FILE`) was measured farther in
    /// time from every one of the history's sessions than they span (and more than an hour):
    /// the spread between sessions the check allows for holds only the time they span, and how
    /// far this machine drifts over a longer one was never measured, so no verdict is given.
    FarFromSessions {
        /// Measured after the last session (else before the first).
        after: bool,
        /// The time from the nearest session, whole seconds.
        gap_seconds: u64,
        /// The time the sessions span, first start to last end, whole seconds.
        span_seconds: u64,
        /// The sessions.
        sessions: usize,
    },
    /// The machine was busy during the run: the last minute's load average, at its start or
    /// its end, reached half the machine's CPUs (in hundredths: 310 is 3.10).
    BusyMachine {
        /// The higher of the two loads.
        load: u32,
        /// The machine's logical CPUs.
        cpus: usize,
    },
    /// Other processes kept at least half the machine's CPUs busy on average during the run
    /// (`others`, in hundredths of a CPU: 133 is 1.33), measured over the run itself: the
    /// machine's CPU time less rigor's and its commands' own ([`crate::Provenance::others_cpus`]).
    OthersBusy {
        /// The CPUs others kept busy, in hundredths.
        others: u32,
        /// The machine's logical CPUs.
        cpus: usize,
        /// Which result's run, where two are compared (`None`: the run's own).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        side: Option<ResultSide>,
    },
    /// A benchmark has no result in one of the two files compared.
    NoResultToCompare {
        /// The benchmark.
        benchmark: String,
    },
    /// Two benchmarks ran in the same rounds but one of them has a last round the other lacks
    /// (a run interrupted, or a torn file repaired, mid-round): they are compared, paired, over
    /// the rounds both completed.
    LastRoundUnpaired {
        /// The candidate.
        candidate: String,
        /// The baseline.
        baseline: String,
        /// The rounds both completed.
        rounds: usize,
    },
    /// Two benchmarks could not be compared (their statistics could not be formed: a baseline
    /// whose resampled estimate is 0, a time that is not finite): the others still are.
    NotCompared {
        /// The candidate.
        candidate: String,
        /// The baseline.
        baseline: String,
        /// Why, in words.
        reason: String,
    },
    /// A result file cut short (a crash, a kill or a full disk: a torn last record, no closing
    /// `]}`), read up to its last whole record.
    Repaired {
        /// The file.
        file: String,
        /// What was cut, in words.
        cut: String,
    },
    /// Every measured time of a benchmark is zero (below the timer's resolution, or a broken
    /// file), so no ratio can be formed with it: it is compared with nothing.
    AllTimesZero {
        /// The benchmark.
        benchmark: String,
    },
    /// `--discard auto` found no steady state in any execution of a benchmark (each drifts or
    /// settles too late): every iteration is kept, and its mean depends on how many iterations
    /// each execution ran.
    NoSteadyState {
        /// The benchmark.
        benchmark: String,
    },
    /// Warm-up detection could not run on a benchmark.
    NoWarmupDetection {
        /// The benchmark.
        benchmark: String,
        /// Why.
        reason: String,
    },
    /// An imported file did not record a level of the hierarchy (criterion, Google Benchmark
    /// and BenchmarkTools measure in one process), so the interval cannot see its variation.
    LevelNotRecorded {
        /// The file.
        file: String,
        /// Its format.
        format: String,
        /// The benchmark.
        benchmark: String,
        /// The level missing.
        level: crate::layout::LevelKind,
    },
    /// An imported file holds something rigor reads differently from the tool that wrote it,
    /// or leaves out.
    Imported {
        /// The file.
        file: String,
        /// Its format.
        format: String,
        /// What differs.
        note: ImportNote,
    },
    /// A benchmark left out of an analysis by metric (`--metric`): it has no values of it.
    NoMetric {
        /// The benchmark.
        benchmark: String,
        /// Why, in words.
        reason: String,
    },
    /// A benchmark could not be planned from its pilot.
    CannotPlan {
        /// The benchmark.
        benchmark: String,
        /// Why.
        reason: String,
    },
    /// The pilot's top-level means look multimodal or heavy-tailed, so the plan asks for enough
    /// top-level units to see a mode of one unit in five with 95% probability.
    RareModesPlanned {
        /// The benchmark.
        benchmark: String,
        /// The top level's name.
        level: String,
        /// Top-level units in the pilot.
        pilot_units: usize,
        /// Top-level units the plan requires.
        needed: usize,
    },
    /// The two results compared were measured in separate runs: the difference carries what
    /// changed between them (the machine's load, clock, memory layout), which neither run's
    /// interval can see.
    SeparateRuns {
        /// When the old run started, when known (RFC 3339).
        old_started: Option<String>,
        /// When the new one started, when known.
        new_started: Option<String>,
        /// Both are `rigor bench` results (a suite's functions), measured together by
        /// `rigor bench --against`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        suite: bool,
    },
    /// Benchmarks of one result compared with each other were each measured in a block of its
    /// own, one after another (as hyperfine measures its commands, or rigor when their setups
    /// differ): each difference also holds what changed on the machine between the blocks.
    InBlocks {
        /// The benchmarks compared that ran in blocks, in order.
        benchmarks: Vec<String>,
        /// The tool that measured them, for another tool's file.
        tool: Option<String>,
    },
    /// Executions of a compared benchmark exited with a non-zero status and were measured all
    /// the same (`-i`, rigor's or hyperfine's): their times are in the comparison, though a run
    /// that fails may not do the work the others do.
    NonZeroExits {
        /// The benchmark.
        benchmark: String,
        /// The result it is in.
        side: ResultSide,
        /// Measured executions that exited non-zero.
        non_zero: usize,
        /// Measured executions.
        measured: usize,
        /// The distinct exit codes, ascending.
        codes: Vec<i32>,
    },
}

/// What a result's benchmark is compared with, measured apart from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ComparedWith {
    /// A history's stored runs (`rigor track check FILE`).
    History,
    /// A saved baseline's sessions (`rigor bench --baseline`).
    Baseline,
    /// Another result (`rigor compare OLD NEW`).
    OldResult,
    /// The old version's runs (`rigor compare OLD1 OLD2 … -- NEW1 NEW2 …`).
    OldRuns,
}

impl ComparedWith {
    /// How to measure the candidate under the conditions of what it is compared with.
    fn remedy(self) -> &'static str {
        match self {
            Self::History => {
                "measure it on a machine as quiet as the history's, or together with the \
                 baseline (rigor track check --candidate REV|DIR, interleaved)"
            }
            Self::Baseline => {
                "measure it on a machine as quiet as the baseline's, or together with the \
                 baseline's version (rigor bench --against REV, interleaved)"
            }
            Self::OldResult => "measure both in one run (interleaved), on a quiet machine",
            Self::OldRuns => {
                "measure both versions in each run (rigor run OLD NEW, interleaved) on a quiet \
                 machine, and analyse the runs together (rigor analyze RUN…)"
            }
        }
    }

    /// How a warning names the candidate's side and the compared one.
    fn sides(self) -> (&'static str, &'static str) {
        match self {
            Self::History => ("this result", "the history's runs it is compared with"),
            Self::Baseline => ("this run", "the baseline's sessions"),
            Self::OldResult => ("the new result", "the old one"),
            Self::OldRuns => ("the new version's runs", "the old version's"),
        }
    }
}

/// The exception to a withheld verdict: the contended side was the faster by more than
/// [`crate::contention::CONTENTION_MARGIN`] ([`Warning::StandsDespiteContention`]).
fn unless() -> String {
    format!(
        "unless the side under more contention was the faster, by more than {:.0}%, which \
         contention does not explain (it only slows a program)",
        100.0 * crate::contention::CONTENTION_MARGIN
    )
}

/// A CPU share held in thousandths, as a percentage ("99.7%").
fn share_percent(milli: u32) -> String {
    format!("{:.1}%", f64::from(milli) / 10.0)
}

/// The compared runs' shares: one ("99.7%") or their range ("99.6%–99.7%").
fn share_range(low: u32, high: u32) -> String {
    if low == high {
        share_percent(low)
    } else {
        format!("{}–{}", share_percent(low), share_percent(high))
    }
}

/// Shares of wall time spent waiting for a CPU ([`crate::QueueShare`]) on the two sides of a
/// comparison, in thousandths: the candidate's, and the lowest and highest of the runs it is
/// compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueShares {
    /// The candidate's.
    pub candidate: u32,
    /// The lowest of the compared runs'.
    pub others_low: u32,
    /// The highest.
    pub others_high: u32,
}

/// Which of the two results of a comparison of files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultSide {
    /// The old result (the baseline).
    Old,
    /// The new result.
    New,
}

impl std::fmt::Display for ResultSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Old => "old",
            Self::New => "new",
        })
    }
}

impl Warning {
    /// Whether it only says what a file held (another tool's mean CPU times), with nothing to
    /// doubt in the results: `--fail-on warning` does not fail on it.
    pub fn is_note(&self) -> bool {
        matches!(
            self,
            Self::Imported {
                note: ImportNote::CpuMeansOnly { .. } | ImportNote::RoundsShared,
                ..
            } | Self::WaitsDiffer { .. }
                | Self::StandsDespiteContention { .. }
        )
    }
}

impl Warning {
    /// For a warning that withholds a verdict because the two sides were measured under other
    /// contention (load, what other processes used, a benchmark's CPU share or run-queue
    /// waiting): whether the candidate's side was the contended one (`Some(true)`) or the runs
    /// it is compared with (`Some(false)`). `None` for every other warning.
    pub fn contended_candidate(&self) -> Option<bool> {
        match self {
            Self::LoadDiffers {
                candidate, cpus, ..
            } => Some(busy(f64::from(*candidate) / 100.0, *cpus)),
            Self::OthersDiffer {
                candidate,
                others_low,
                ..
            } => Some(candidate > others_low),
            // The lower CPU share waited.
            Self::ContentionDiffers {
                candidate,
                others_low,
                ..
            } => Some(candidate < others_low),
            // The longer wait for a CPU.
            Self::QueueDiffers {
                candidate,
                others_high,
                ..
            } => Some(candidate > others_high),
            _ => None,
        }
    }
}

impl Warning {
    /// [`Warning::BusyMachine`] for a run whose provenance recorded a load (the higher of its
    /// start's and end's) of at least half of `cpus` ([`busy`]); `None` otherwise, or where no
    /// load was recorded.
    ///
    /// Where the run measured what other processes used of the CPUs
    /// ([`crate::Provenance::others_cpus`]), that decides instead ([`Warning::OthersBusy`]):
    /// it is measured over the run, where the load average lags.
    pub fn busy_machine(provenance: &crate::Provenance, cpus: usize) -> Option<Self> {
        let cpus = cpus.max(1);
        if let Some(others) = provenance.others_cpus {
            return busy(others, cpus).then(|| Self::OthersBusy {
                others: hundredths(others),
                cpus,
                side: None,
            });
        }
        let load = peak_load(provenance.load_before, provenance.load_after)?;
        busy(load, cpus).then(|| Self::BusyMachine {
            load: hundredths(load),
            cpus,
        })
    }
}

/// The load a run (or a session) recorded: the higher of the minute's averages at its start and
/// end (the average lags a load that began just before it), or the one recorded.
pub fn peak_load(before: Option<f64>, after: Option<f64>) -> Option<f64> {
    match (before, after) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// A load average in hundredths, as the warnings hold it (2.314 → 231).
pub fn hundredths(load: f64) -> u32 {
    (100.0 * load).round().clamp(0.0, f64::from(u32::MAX)) as u32
}

/// Whether a machine of `cpus` logical CPUs with this load average (the last minute's) is busy:
/// at least half its CPUs had something runnable besides the benchmark, on average. Two busy
/// loops on a 2-CPU machine bring the minute's average to 1.3 after a minute and 2 after a few:
/// a threshold of all the CPUs missed the first minutes of that load.
pub fn busy(load: f64, cpus: usize) -> bool {
    load >= cpus.max(1) as f64 / 2.0
}

/// A time in whole seconds as a person reads it: "40 s", "6 min", "1 h 46 min", "3 d 4 h".
fn duration(seconds: u64) -> String {
    let (m, h, d) = (seconds / 60, seconds / 3600, seconds / 86_400);
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{m} min"),
        3600..86_400 => format!("{h} h {} min", m % 60),
        _ => format!("{d} d {} h", h % 24),
    }
}

/// The warning in words (shown after `rigor: warning: `).
impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unfinished { file, status } => {
                let why = match status {
                    RunStatus::Interrupted => "it was interrupted",
                    RunStatus::Running => "it was killed, or is still running",
                    RunStatus::Complete => "it is complete",
                };
                write!(
                    f,
                    "{file}: the run did not finish ({why}); analysing what was measured"
                )
            }
            Self::ReferenceHasNoResult { reference, why } => match why {
                Some(why) => write!(
                    f,
                    "no comparisons: the reference '{reference}' has no interval to compare \
                     ({why})"
                ),
                None => write!(
                    f,
                    "no comparisons: the reference '{reference}' has no result"
                ),
            },
            Self::Unpaired {
                candidate,
                baseline,
            } => write!(
                f,
                "'{candidate}' and '{baseline}' did not run in the same rounds (a failure?): compared unpaired"
            ),
            Self::StartupOneSide {
                through_shell,
                direct,
                startup,
                startup_ns,
            } => {
                let mean = startup_ns.map_or(String::new(), |ns| {
                    format!(", {}", rigor_units::Seconds::new(ns as f64 * 1e-9))
                });
                write!(
                    f,
                    "'{through_shell}' ran through a shell and '{direct}' directly: their \
                     comparison holds the shell's start-up ({startup}{mean}) in one side's time \
                     only, where hyperfine runs both through the shell and subtracts it from \
                     both. The time of '{through_shell}' net of it is in its summary; to compare \
                     like with like run both through the shell (--shell)"
                )
            }
            Self::OnlyInNew { benchmark } => write!(f, "'{benchmark}' is only in the new result"),
            Self::OnlyInOld { benchmark } => write!(f, "'{benchmark}' is only in the old result"),
            Self::NoResultToCompare { benchmark } => {
                write!(f, "'{benchmark}' has no result in one of the files")
            }
            Self::BusyMachine { load, cpus } => write!(
                f,
                "the load average reached {:.2} on this machine's {cpus} CPUs during the run: \
                 its times are a busy machine's (waiting for a CPU, evicted caches). The \
                 commands of one run are interleaved and share the load, though waiting adds \
                 about alike to short executions and so pulls a ratio of their wall times \
                 towards 1; a comparison with another run's times (rigor compare, --baseline, \
                 track check) holds the difference in load. CPU time (--metric cpu) is \
                 disturbed less",
                f64::from(*load) / 100.0
            ),
            Self::OthersBusy { others, cpus, side } => write!(
                f,
                "other processes kept {:.2} of this machine's {cpus} CPUs busy on average \
                 during the {}run: its times are a busy machine's (waiting for a CPU, evicted \
                 caches). The commands of one run are interleaved and share the load, though \
                 waiting adds about alike to short executions and so pulls a ratio of their \
                 wall times towards 1; a comparison with another run's times (rigor compare, \
                 --baseline, track check) holds the difference in load. CPU time (--metric \
                 cpu) is disturbed less",
                f64::from(*others) / 100.0,
                match side {
                    Some(ResultSide::Old) => "old result's ",
                    Some(ResultSide::New) => "new result's ",
                    None => "",
                }
            ),
            Self::LoadDiffers {
                candidate,
                history_low,
                history_high,
                cpus,
            } => {
                let load = |centi: u32| format!("{:.2}", f64::from(centi) / 100.0);
                let history = if history_low == history_high {
                    load(*history_low)
                } else {
                    format!("{}–{}", load(*history_low), load(*history_high))
                };
                let (candidate_was, history_was) = if busy(f64::from(*candidate) / 100.0, *cpus) {
                    ("busy", "quiet")
                } else {
                    ("quiet", "busy")
                };
                write!(
                    f,
                    "the result was measured on a {candidate_was} machine (load {} on {cpus} \
                     CPUs) and the history's sessions on a {history_was} one (load {history}): \
                     times on a busy machine hold waiting for a CPU and evicted caches, which no \
                     interval of either holds, so no verdict is given (inconclusive: `--fail-on \
                     inconclusive` fails on it, `--fail-on regression` does not) {}; measure it \
                     under the load the history was measured under, or together with the \
                     baseline (rigor track check --candidate REV|DIR, interleaved)",
                    load(*candidate),
                    unless()
                )
            }
            Self::OthersDiffer {
                against,
                candidate,
                others_low,
                others_high,
                cpus,
            } => {
                let cpus_used = |centi: u32| format!("{:.2}", f64::from(centi) / 100.0);
                let others = if others_low == others_high {
                    cpus_used(*others_low)
                } else {
                    format!("{}–{}", cpus_used(*others_low), cpus_used(*others_high))
                };
                let (this, them) = against.sides();
                let busier = if candidate > others_low { this } else { them };
                write!(
                    f,
                    "other processes kept {} of this machine's {cpus} CPUs busy on average over \
                     {this} and {others} over {them}: the times of {busier} hold waiting for a \
                     CPU and evicted caches (even where most executions had a CPU throughout), \
                     which no interval holds, so no verdict is given (inconclusive: `--fail-on \
                     inconclusive` fails on it, `--fail-on regression` does not) {}; {}",
                    cpus_used(*candidate),
                    unless(),
                    against.remedy()
                )
            }
            Self::ContentionDiffers {
                benchmark,
                against,
                candidate,
                candidate_high,
                others_low,
                others_high,
            } => {
                let others = share_range(*others_low, *others_high);
                let mine = share_range(*candidate, candidate_high.unwrap_or(*candidate));
                let (this, them) = against.sides();
                let remedy = against.remedy();
                let why = if candidate < others_low {
                    "it waited for CPUs other processes held (or the change itself waits more: \
                     I/O, sleeping, locks)"
                } else {
                    "they waited for CPUs other processes held (or the change itself waits \
                     less)"
                };
                write!(
                    f,
                    "'{benchmark}' had a CPU for {mine} of its wall time in {this} and for \
                     {others} in {them}: {why}, so its wall time differs from theirs by about \
                     that ratio, which no interval holds, and no verdict is given \
                     (inconclusive: `--fail-on inconclusive` fails on it, `--fail-on \
                     regression` does not) {}; {remedy}",
                    unless()
                )
            }
            Self::WaitsDiffer {
                benchmark,
                against,
                candidate,
                others_low,
                others_high,
                queued,
            } => {
                let others = share_range(*others_low, *others_high);
                let (this, them) = against.sides();
                // The side with the lower share is the one known idle (or that waited for a
                // CPU no longer than the other), and the one where the program waits more.
                let where_ = if candidate < others_low { this } else { them };
                let why = match queued {
                    Some(q) => format!(
                        "its executions waited for a CPU other processes held for {} of their \
                         wall time in {this} and {} in {them}, alike: not contention; the \
                         program waits more in {where_} itself",
                        share_percent(q.candidate),
                        share_range(q.others_low, q.others_high)
                    ),
                    None => format!(
                        "on a machine other processes left idle in {where_}: not contention; \
                         the program waits more there itself"
                    ),
                };
                write!(
                    f,
                    "'{benchmark}' had a CPU for {} of its wall time in {this} and for {others} \
                     in {them}, {why} (I/O, sleeping, locks, or the system's own work such as \
                     starting a process), and the verdict stands",
                    share_percent(*candidate)
                )
            }
            Self::QueueDiffers {
                benchmark,
                against,
                candidate,
                candidate_high,
                others_low,
                others_high,
            } => {
                let others = share_range(*others_low, *others_high);
                let mine = share_range(*candidate, candidate_high.unwrap_or(*candidate));
                let (this, them) = against.sides();
                let remedy = against.remedy();
                write!(
                    f,
                    "'{benchmark}' waited, ready to run, for a CPU other processes held for \
                     {mine} of its wall time in {this} and for {others} in {them}: measured \
                     under other contention, so its wall time differs from theirs by about the \
                     difference between those shares, which no interval holds, and no verdict \
                     is given (inconclusive: `--fail-on inconclusive` fails on it, `--fail-on \
                     regression` does not) {}; {remedy}",
                    unless()
                )
            }
            Self::CommandsDiffer {
                benchmark,
                commands,
            } => {
                let each: Vec<String> = commands
                    .iter()
                    .map(|(command, file)| format!("'{command}' in {file}"))
                    .collect();
                write!(
                    f,
                    "'{benchmark}' ran different commands in the runs analysed together ({}): \
                     they are pooled as one benchmark, which holds only if they are one program \
                     in other places; otherwise name them apart (-n NAME) or analyse each alone",
                    each.join(", ")
                )
            }
            Self::WaitedUnevenly {
                benchmark,
                against,
                candidate,
                others_low,
                others_high,
            } => {
                let others = share_range(*others_low, *others_high);
                let (this, them) = against.sides();
                write!(
                    f,
                    "'{benchmark}' waited, ready to run, for a CPU other processes held for {} \
                     of its wall time in {this} and for {others} in {them}, unevenly across \
                     its executions (some waited far longer than the rest), so the shares do not \
                     show that contention differed, but the difference in wall time holds up to \
                     about the difference between those shares (CPU time, --metric cpu, is not lengthened by \
                     waiting); measure both in one run (interleaved), on a quiet machine",
                    share_percent(*candidate)
                )
            }
            Self::StandsDespiteContention {
                benchmark,
                against,
                candidate_contended,
            } => {
                let (this, them) = against.sides();
                let (contended, other) = if *candidate_contended {
                    (this, them)
                } else {
                    (them, this)
                };
                write!(
                    f,
                    "'{benchmark}' was measured under more contention in {contended} than in \
                     {other} and was still faster there, by more than {:.0}%: contention only \
                     slows a program, so the verdict stands (the true difference, if anything, \
                     larger than shown)",
                    100.0 * crate::contention::CONTENTION_MARGIN
                )
            }
            Self::FarFromSessions {
                after,
                gap_seconds,
                span_seconds,
                sessions,
            } => write!(
                f,
                "the result was measured {} {} the history's {sessions} session(s), which span \
                 {}: the spread between sessions the check allows for holds only the time they \
                 span, and how far this machine drifts over a longer one was never measured, so \
                 no verdict is given (inconclusive: `--fail-on inconclusive` fails on it, \
                 `--fail-on regression` does not); measure it together with the baseline (rigor \
                 track check --candidate REV|DIR, interleaved), or check against a history \
                 measured over more time (rigor track run, with anchors)",
                duration(*gap_seconds),
                if *after {
                    "after the last of"
                } else {
                    "before the first of"
                },
                duration(*span_seconds),
            ),
            Self::LastRoundUnpaired {
                candidate,
                baseline,
                rounds,
            } => write!(
                f,
                "'{candidate}' and '{baseline}' are compared over the {rounds} rounds both \
                 completed, paired (the last round of one was cut short)"
            ),
            Self::NotCompared {
                candidate,
                baseline,
                reason,
            } => write!(
                f,
                "'{candidate}' could not be compared with '{baseline}' ({reason}); its own \
                 summary stands"
            ),
            Self::Repaired { file, cut } => write!(
                f,
                "{file} was cut short (a crash, a kill or a full disk?): read up to its last \
                 whole record, dropping {cut}"
            ),
            Self::NoMetric { reason, .. } => write!(f, "{reason}; left out"),
            Self::AllTimesZero { benchmark } => write!(
                f,
                "every time of '{benchmark}' is 0, so no ratio can be formed with it: it is \
                 compared with nothing"
            ),
            Self::NoSteadyState { benchmark } => write!(
                f,
                "'{benchmark}': no execution reached a steady state (Barrett et al. 2017's \
                 classes: see --diagnose): every iteration is kept, and the mean depends on how \
                 many each execution ran; its interval does not cover that"
            ),
            Self::NoWarmupDetection { benchmark, reason } => {
                write!(f, "'{benchmark}': no warm-up detection: {reason}")
            }
            Self::LevelNotRecorded {
                file,
                format,
                benchmark,
                level,
            } => write!(
                f,
                "{file}: '{benchmark}': {format} measured it in one {}: the interval cannot see \
                 how the time varies between {level}s (measure several with rigor run)",
                match level {
                    crate::layout::LevelKind::Execution => "process",
                    crate::layout::LevelKind::Build => "build",
                    crate::layout::LevelKind::Iteration => "iteration",
                }
            ),
            Self::Imported { file, format, note } => write!(f, "{file}: {format}: {note}"),
            Self::CannotPlan { benchmark, reason } => {
                write!(f, "cannot plan '{benchmark}': {reason}")
            }
            Self::RareModesPlanned {
                benchmark,
                level,
                pilot_units,
                needed,
            } => {
                let to_see = rigor_stats::top_means::units_to_see_mode(
                    rigor_stats::top_means::RARE_MODE_SHARE,
                    rigor_stats::top_means::RARE_MODE_PROBABILITY,
                )
                .unwrap_or(*needed);
                let why = if *needed > to_see {
                    "enough for the interval to hold its level on skewed means and to see a mode"
                } else {
                    "enough to see a mode"
                };
                write!(
                    f,
                    "'{benchmark}': the {pilot_units} pilot {level} means look multimodal or \
                     skewed; the plan asks for at least {needed} {level}s, {why} of 1 {level} in \
                     5 with 95% probability (no interval can show a mode it never saw)"
                )
            }
            Self::SeparateRuns {
                old_started,
                new_started,
                suite,
            } => {
                let when = match (old_started, new_started) {
                    (Some(a), Some(b)) => format!(" (started {a} and {b})"),
                    _ => String::new(),
                };
                let together = if *suite {
                    "`rigor bench --against REV`, interleaved"
                } else {
                    "`rigor run OLD NEW`, interleaved"
                };
                write!(
                    f,
                    "old and new were measured in separate runs{when}: each difference also \
                     holds whatever changed on the machine between them (load, clock frequency, \
                     memory layout), which no run's own interval covers (on a shared virtual \
                     machine, quiet runs of one binary have moved by up to 11% within minutes, \
                     loaded ones by tens of percent), so times get no verdict (inconclusive: \
                     `--fail-on inconclusive` fails on them, `--fail-on regression` does not); \
                     for one, measure both in one run ({together}) or track the versions \
                     (`rigor track`), whose sessions are modelled"
                )
            }
            Self::InBlocks { benchmarks, tool } => {
                let names: Vec<String> = benchmarks.iter().map(|b| format!("'{b}'")).collect();
                let how = match tool {
                    Some(t) => format!(" (as {t} measures them)"),
                    None => String::new(),
                };
                write!(
                    f,
                    "{} were measured one after another, each in a block of its own{how}: each \
                     difference also holds whatever changed on the machine between the blocks \
                     (load, clock frequency), which these intervals do not cover; `rigor run` \
                     with the commands together measures them in shared rounds, so that drift \
                     falls on all of them alike",
                    names.join(", ")
                )
            }
            Self::NonZeroExits {
                benchmark,
                side,
                non_zero,
                measured,
                codes,
            } => {
                let codes: Vec<String> = codes.iter().map(i32::to_string).collect();
                write!(
                    f,
                    "'{benchmark}' ({side}): {non_zero} of {measured} measured executions exited \
                     with a non-zero status ({} {}), measured all the same as -i/--ignore-failure \
                     asked: their times are in the comparison, though a run that fails may not \
                     do the work the others do",
                    if codes.len() == 1 { "code" } else { "codes" },
                    codes.join(", ")
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_the_largest_two_units_that_matter() {
        assert_eq!(duration(40), "40 s");
        assert_eq!(duration(360), "6 min");
        assert_eq!(duration(6360), "1 h 46 min");
        assert_eq!(duration(3 * 86_400 + 4 * 3600 + 59), "3 d 4 h");
    }

    #[test]
    fn a_run_on_a_busy_machine_is_said_from_its_recorded_loads() {
        let loads = |before: Option<f64>, after: Option<f64>| crate::Provenance {
            load_before: before,
            load_after: after,
            ..Default::default()
        };
        // The higher of start and end (the minute's average lags a load that began just
        // before the run), at least half the CPUs.
        let w = Warning::busy_machine(&loads(Some(0.4), Some(2.314)), 2).unwrap();
        assert_eq!(w, Warning::BusyMachine { load: 231, cpus: 2 });
        let text = w.to_string();
        assert!(
            text.starts_with("the load average reached 2.31 on this machine's 2 CPUs"),
            "{text}"
        );
        assert!(text.contains("--metric cpu"), "{text}");
        // Within a run the load is shared, but not in proportion: said, not promised away.
        assert!(
            text.contains("pulls a ratio of their wall times towards 1"),
            "{text}"
        );
        assert_eq!(Warning::busy_machine(&loads(Some(0.9), Some(0.2)), 2), None);
        assert!(Warning::busy_machine(&loads(Some(1.0), Some(0.2)), 2).is_some());
        assert_eq!(Warning::busy_machine(&loads(None, None), 1), None);
        assert!(Warning::busy_machine(&loads(Some(1.0), None), 0).is_some());
        // What others used of the CPUs during the run decides where it was measured: a lagging
        // load of 1.12 after busy loops stopped says nothing, 1.33 CPUs kept busy does.
        let others = |used: f64| crate::Provenance {
            others_cpus: Some(used),
            ..loads(Some(1.12), Some(1.12))
        };
        assert_eq!(Warning::busy_machine(&others(0.04), 2), None);
        let w = Warning::busy_machine(&others(1.333), 2).unwrap();
        assert_eq!(
            w,
            Warning::OthersBusy {
                others: 133,
                cpus: 2,
                side: None
            }
        );
        assert!(
            w.to_string()
                .starts_with("other processes kept 1.33 of this machine's 2 CPUs busy"),
            "{w}"
        );
        // In a comparison of two results, which run it was.
        let sided = Warning::OthersBusy {
            others: 133,
            cpus: 2,
            side: Some(ResultSide::Old),
        };
        assert!(
            sided.to_string().contains("during the old result's run"),
            "{sided}"
        );
    }

    /// The compared runs' shares are `others_low`/`others_high` (they are a baseline's or an old
    /// result's as often as a history's); files written when they were `history_low`/
    /// `history_high` still read.
    #[test]
    fn share_warnings_read_their_earlier_field_names() {
        let earlier = r#"{"kind": "contention_differs", "benchmark": "w", "against": "old_result",
            "candidate": 510, "history_low": 997, "history_high": 998}"#;
        let w: Warning = serde_json::from_str(earlier).unwrap();
        assert_eq!(
            w,
            Warning::ContentionDiffers {
                benchmark: "w".into(),
                against: ComparedWith::OldResult,
                candidate: 510,
                candidate_high: None,
                others_low: 997,
                others_high: 998,
            }
        );
        let written = serde_json::to_value(&w).unwrap();
        assert_eq!(written["others_low"], 997);
        assert!(written.get("history_low").is_none());
    }

    #[test]
    fn unfinished_run_is_described_in_words() {
        let w = Warning::Unfinished {
            file: "r.json".into(),
            status: RunStatus::Interrupted,
        };
        assert_eq!(
            w.to_string(),
            "r.json: the run did not finish (it was interrupted); analysing what was measured"
        );
    }

    #[test]
    fn non_zero_exits_name_the_side_the_count_and_the_codes() {
        let w = Warning::NonZeroExits {
            benchmark: "a".into(),
            side: ResultSide::New,
            non_zero: 3,
            measured: 10,
            codes: vec![1, 2],
        };
        let text = w.to_string();
        assert!(
            text.starts_with(
                "'a' (new): 3 of 10 measured executions exited with a non-zero status (codes 1, 2)"
            ),
            "{text}"
        );
        assert!(!w.is_note());
    }
}

/// What an imported file holds that rigor reads differently from the tool, or leaves out
/// ([`Warning::Imported`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "note", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ImportNote {
    /// Values of a criterion that is not a time were left out: none of its benchmark's times
    /// were measured beside them, or its name cannot be a metric's.
    NotTime {
        /// The criterion.
        criterion: String,
        /// Its unit.
        unit: String,
        /// How many values were left out.
        values: usize,
    },
    /// Values that are not times (ReBench's `MaxRSS`, a Google Benchmark counter, pyperf's
    /// memory peaks) were kept as a metric of the benchmark measured beside them: `rigor
    /// analyze --metric METRIC` analyses them.
    KeptAsMetric {
        /// The name the file gives them (`MaxRSS`, `bytes_per_second`).
        name: String,
        /// The metric they are kept as (`peak-memory`, `bytes_per_second`).
        metric: String,
        /// Their unit in the file (`kb`, `B/s`).
        unit: String,
        /// How many values were kept.
        values: usize,
    },
    /// pyperf measured memory peaks instead of times (`--tracemalloc`, `--track-memory`): each
    /// run's peak is kept as `metric`, and the run's duration is its time.
    PeaksNotTimes {
        /// The benchmarks.
        benchmarks: Vec<String>,
        /// The metric the peaks are kept as.
        metric: String,
    },
    /// criterion.rs prints the slope of its linear regression as `time:`; rigor shows the mean
    /// time per iteration of the samples.
    SlopeNotMean {
        /// The benchmarks.
        benchmarks: Vec<String>,
    },
    /// A benchmark was measured once (Google Benchmark without repetitions): its value is shown
    /// without an interval.
    OneRepetition {
        /// The benchmarks.
        benchmarks: Vec<String>,
    },
    /// hyperfine writes each command's mean user and system time, not each run's: they are
    /// said, not analysed (no interval can be formed from one mean).
    CpuMeansOnly {
        /// Each command's means.
        means: Vec<CpuMeans>,
    },
    /// A hyperfine result's own `mean` is not the mean of its `times` (hyperfine writes theirs):
    /// the file was edited or put together from other runs, and rigor analyses the times.
    MeanDiffers {
        /// Each such command, with the mean the file states and its times' mean.
        means: Vec<StatedMean>,
    },
    /// A hyperfine file written by rigor whose commands ran through a shell: their times are
    /// net of its start-up (`rigor.net_of`), as hyperfine reports them, so their interval leaves
    /// out the start-up's own variance, which the run's interval (`rigor.ci_lower`,
    /// `rigor.ci_upper`) holds.
    NetOfStartup {
        /// The commands.
        benchmarks: Vec<String>,
        /// The start-up subtracted (`sh -c ''`).
        startup: String,
    },
    /// A hyperfine file written by rigor (`--export-json-hyperfine`) with each time's round
    /// (`rigor.rounds`): its commands are compared as that run measured them (paired where they
    /// shared interleaved rounds), not as commands measured one after another.
    RoundsShared,
    /// Repetitions the tool itself reported as failed (Google Benchmark's `error_occurred`)
    /// were left out: a benchmark none of whose repetitions succeeded is not analysed.
    Errored {
        /// Each benchmark with failed repetitions.
        benchmarks: Vec<FailedRepetitions>,
    },
    /// Benchmarks the file names but holds no samples of (a criterion benchmark folder without
    /// its `sample.json`): left out.
    NoSamples {
        /// The benchmarks.
        benchmarks: Vec<String>,
    },
}

/// A benchmark some of whose repetitions the tool reported as failed ([`ImportNote::Errored`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedRepetitions {
    /// The benchmark.
    pub benchmark: String,
    /// How many repetitions failed.
    pub failed: usize,
    /// How many succeeded (and are analysed).
    pub kept: usize,
    /// The first failure's message, as the file gives it (empty when none).
    pub message: String,
}

/// A command's mean as another tool's file states it, beside the mean of its times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatedMean {
    /// The benchmark.
    pub benchmark: String,
    /// The mean the file states.
    pub stated: rigor_units::Seconds,
    /// The mean of the times it lists.
    pub of_times: rigor_units::Seconds,
}

/// A command's mean user and system CPU time, as another tool's file gives them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuMeans {
    /// The benchmark.
    pub benchmark: String,
    /// Mean user time.
    pub user: rigor_units::Seconds,
    /// Mean system time.
    pub system: rigor_units::Seconds,
}

// The times are finite numbers read from a file (never NaN), so equality is an equivalence,
// as the warnings that hold them need.
impl Eq for CpuMeans {}

// As for `CpuMeans`: a file's means are finite numbers, never NaN.
impl Eq for StatedMean {}

impl std::fmt::Display for ImportNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let quoted = |names: &[String]| {
            names
                .iter()
                .map(|n| format!("'{n}'"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Self::NotTime {
                criterion,
                unit,
                values,
            } => write!(
                f,
                "left out {values} values of '{criterion}' (in {unit}): no time was measured \
                 beside them, or the name is not one a metric can have"
            ),
            Self::KeptAsMetric {
                name,
                metric,
                unit,
                values,
            } => {
                let what = if name == metric {
                    "as a metric".to_string()
                } else {
                    format!("as the metric '{metric}'")
                };
                write!(
                    f,
                    "kept {values} values of '{name}' (in {unit}) {what}: \
                     `rigor analyze --metric {metric}` analyses them"
                )
            }
            Self::PeaksNotTimes { benchmarks, metric } => write!(
                f,
                "{}: pyperf measured memory peaks (--tracemalloc or --track-memory), not times: \
                 each run's peak is kept as the metric '{metric}' (`rigor analyze --metric \
                 {metric}`), and the times shown are the runs' durations",
                quoted(benchmarks)
            ),
            Self::SlopeNotMean { benchmarks } => write!(
                f,
                "{}: the time criterion prints is the slope of its regression of sample time on \
                 iterations; rigor shows the mean time per iteration of the samples, which \
                 differs slightly (criterion's estimates.json has both)",
                quoted(benchmarks)
            ),
            Self::OneRepetition { benchmarks } => write!(
                f,
                "{}: measured once, so shown without an interval; run with \
                 --benchmark_repetitions=N (N of 2 or more; 10 or more for a useful interval) \
                 to get one",
                quoted(benchmarks)
            ),
            Self::CpuMeansOnly { means } => {
                let each: Vec<String> = means
                    .iter()
                    .map(|m| {
                        // One unit for both, the larger's ("system 0.000 ns" beside
                        // "user 418.0 µs" read as two scales).
                        let larger = if m.user.get() >= m.system.get() {
                            m.user
                        } else {
                            m.system
                        };
                        let unit = rigor_units::TimeUnit::for_magnitude(larger);
                        let shown = |t: rigor_units::Seconds| {
                            format!(
                                "{} {}",
                                rigor_units::significant(t.in_unit(unit)),
                                unit.symbol()
                            )
                        };
                        format!(
                            "'{}' user {}, system {}",
                            m.benchmark,
                            shown(m.user),
                            shown(m.system)
                        )
                    })
                    .collect();
                write!(
                    f,
                    "the file gives each command's mean user and system CPU time only, not each \
                     run's, so they are shown here and not analysed ({}); `rigor run` measures \
                     them for every execution (`--metric cpu`, `user`, `system`)",
                    each.join("; ")
                )
            }
            Self::NetOfStartup {
                benchmarks,
                startup,
            } => write!(
                f,
                "the times of {} are net of the shell's start-up (the mean of {startup} \
                 subtracted from each, as hyperfine reports them): their interval leaves out the \
                 start-up's own variance, which the run's interval in the file (rigor.ci_lower, \
                 rigor.ci_upper) holds; they compare with times net of it or of commands run \
                 directly, as hyperfine's do, not with times measured through a shell",
                quoted(benchmarks)
            ),
            Self::MeanDiffers { means } => {
                let each: Vec<String> = means
                    .iter()
                    .map(|m| format!("'{}' {} against {}", m.benchmark, m.stated, m.of_times))
                    .collect();
                write!(
                    f,
                    "the mean the file states is not the mean of the times it lists ({}): it was \
                     edited or put together from other runs; rigor analyses the times",
                    each.join("; ")
                )
            }
            Self::Errored { benchmarks } => {
                let each: Vec<String> = benchmarks
                    .iter()
                    .map(|e| {
                        let what = if e.message.is_empty() {
                            String::new()
                        } else {
                            format!(" ('{}')", e.message)
                        };
                        let plural = |n: usize| if n == 1 { "" } else { "s" };
                        let left = if e.kept == 0 {
                            "not analysed: no repetition succeeded".to_string()
                        } else {
                            format!("analysed from the {} that succeeded", e.kept)
                        };
                        format!(
                            "'{}': {} repetition{} failed{what}, {left}",
                            e.benchmark,
                            e.failed,
                            plural(e.failed)
                        )
                    })
                    .collect();
                write!(
                    f,
                    "the file reports failed repetitions, left out: {}",
                    each.join("; ")
                )
            }
            Self::NoSamples { benchmarks } => write!(
                f,
                "{}: no sample.json beside its benchmark.json (criterion writes it once the \
                 benchmark has measured: it was stopped, or the folder was copied in part), so \
                 left out",
                quoted(benchmarks)
            ),
            Self::RoundsShared => f.write_str(
                "written by rigor with the round of each time (rigor.rounds): its commands are \
                 compared as that run measured them, paired where they shared rounds",
            ),
        }
    }
}
