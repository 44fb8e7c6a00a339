//! What `rigor track run` and `rigor track bisect` print as they go and when they end: plain
//! views filled by the use cases, rendered here.

use std::fmt::Write as _;

use rigor_units::{Seconds, signed_percent_text};

use crate::format::{count, time};

/// A commit id shortened to 10 characters; a label as it is.
pub fn short(rev: &str) -> String {
    if rev.len() == 40 && rev.bytes().all(|b| b.is_ascii_hexdigit()) {
        rev[..10].to_string()
    } else {
        rev.to_string()
    }
}

/// `+4.6%` for a ratio of 1.046.
pub fn ratio_percent(ratio: f64) -> String {
    signed_percent_text(100.0 * (ratio - 1.0))
}

/// A ratio's interval as percentages, or "unbounded".
pub fn interval_percent(interval: Option<(f64, f64)>) -> String {
    interval.map_or("unbounded".to_string(), |(lo, hi)| {
        format!("{} .. {}", ratio_percent(lo), ratio_percent(hi))
    })
}

/// A batch about to be measured.
pub fn batch_line(versions: &[String], anchors: &[String], done: usize, total: usize) -> String {
    let names: Vec<String> = versions.iter().map(|v| short(v)).collect();
    let anchored = if anchors.is_empty() {
        String::new()
    } else {
        let a: Vec<String> = anchors.iter().map(|v| short(v)).collect();
        format!(
            ", with {} measured again: {}",
            count(a.len(), "anchor", "anchors"),
            a.join(" ")
        )
    };
    if versions.len() == 1 {
        format!(
            "rigor: version {} of {total}: {}{anchored}",
            done + 1,
            names.join(" ")
        )
    } else {
        format!(
            "rigor: versions {}–{} of {total}, interleaved: {}{anchored}",
            done + 1,
            done + versions.len(),
            names.join(" ")
        )
    }
}

/// What a finished session says of itself.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionView {
    /// Its id.
    pub id: i64,
    /// New versions measured.
    pub versions: usize,
    /// How many of them failed.
    pub failed: usize,
    /// Anchors measured again.
    pub anchors: usize,
    /// Load average before and after.
    pub load: (Option<f64>, Option<f64>),
    /// Whether the machine was busy (other processes kept half the CPUs busy or more where that
    /// is known, else the load average reached the CPU count).
    pub busy: bool,
    /// The CPUs other processes kept busy on average while it measured, when known.
    pub others_cpus: Option<f64>,
    /// The machine's CPUs.
    pub cpus: usize,
    /// Measured time, all and the anchors'.
    pub measured: (Seconds, Seconds),
    /// With `--precision`/`--budget`: what measuring each version until its level was known
    /// cost, per benchmark.
    pub precision: Option<PrecisionView>,
}

/// What `track run --precision`/`--budget` cost in a session.
#[derive(Debug, Clone, PartialEq)]
pub struct PrecisionView {
    /// The target relative half-width of each version's level (`None`: a budget alone).
    pub target: Option<f64>,
    /// One per benchmark, in the order of the commands.
    pub benchmarks: Vec<PrecisionCost>,
}

/// One benchmark's cost over the versions (anchors included) of a session.
#[derive(Debug, Clone, PartialEq)]
pub struct PrecisionCost {
    /// The benchmark.
    pub name: String,
    /// Executions per version: fewest, median, most.
    pub executions: (usize, usize, usize),
    /// Measured time of all its executions.
    pub measured: Seconds,
    /// Versions measured.
    pub versions: usize,
    /// Versions whose level did not reach the target, with why (`"--max-runs"`,
    /// `"--budget"`, …), each reason once with its count.
    pub short: Vec<(String, usize)>,
}

fn load_text(l: Option<f64>) -> String {
    l.map_or("?".into(), |l| format!("{l:.2}"))
}

/// A session's line, and a warning when the machine was busy.
pub fn session_line(s: &SessionView) -> String {
    if s.measured.0.get() <= 0.0 {
        // Every execution failed (a benchmark that cannot start): nothing measured, and no
        // busy machine that matters.
        return format!(
            "rigor: session {}: {}{}, nothing measured (every execution failed)",
            s.id,
            count(s.versions, "version", "versions"),
            if s.anchors > 0 {
                format!(" and {}", count(s.anchors, "anchor", "anchors"))
            } else {
                String::new()
            },
        );
    }
    // A version measured in the session that then failed (a timeout, every execution failing)
    // is counted, and said to have failed.
    let failed = match s.failed {
        0 => String::new(),
        f if f == s.versions && f == 1 => " (it failed)".to_string(),
        f if f == s.versions => " (all failed)".to_string(),
        f => format!(" ({f} failed)"),
    };
    let mut out = format!(
        "rigor: session {}: {}{failed}{}, load {} → {}, {} measured",
        s.id,
        count(s.versions, "version", "versions"),
        if s.anchors > 0 {
            format!(
                " and {} ({} of the measuring, {:.0}%)",
                count(s.anchors, "anchor", "anchors"),
                time(s.measured.1.get()),
                100.0 * s.measured.1.get() / s.measured.0.get().max(f64::MIN_POSITIVE)
            )
        } else {
            String::new()
        },
        load_text(s.load.0),
        load_text(s.load.1),
        time(s.measured.0.get()),
    );
    if let Some(p) = &s.precision {
        out.push_str(&precision_lines(p));
    }
    if s.busy {
        let why = match s.others_cpus {
            Some(others) => format!(
                "other processes kept {others:.2} of this machine's {} CPUs busy on average \
                 during session {}",
                s.cpus, s.id
            ),
            None => format!(
                "the load average reached the machine's {} CPUs during session {}",
                s.cpus, s.id
            ),
        };
        let _ = write!(
            out,
            "\nrigor: warning: {why}: its versions were measured on a busy machine ({}its noise \
             is larger: a change within it needs more executions, `-r` or `--precision`, or CPU \
             time, `rigor track changes --metric cpu`, which a busy machine disturbs less)",
            // A session without anchors (the history's first) has no shift to take out.
            if s.anchors > 0 {
                "the session's shift is taken out through its anchors, but "
            } else {
                ""
            }
        );
    }
    out
}

/// The cost lines of `track run --precision`/`--budget`, one per benchmark, each after a
/// newline.
fn precision_lines(p: &PrecisionView) -> String {
    let mut out = String::new();
    for b in &p.benchmarks {
        let (lo, median, hi) = b.executions;
        let spread = if lo == hi {
            format!("{lo} executions per version")
        } else {
            format!("{median} executions per version (median; {lo}–{hi})")
        };
        let outcome = match (p.target, b.short.is_empty()) {
            (Some(t), true) => format!(
                "every level known to ±{}",
                crate::format::percent(100.0 * t)
            ),
            (target, _) => {
                let why: Vec<String> = b
                    .short
                    .iter()
                    .map(|(why, n)| format!("{n} by {why}"))
                    .collect();
                let stopped: usize = b.short.iter().map(|(_, n)| n).sum();
                match target {
                    Some(t) => format!(
                        "{stopped} of {} stopped short of ±{} ({})",
                        b.versions,
                        crate::format::percent(100.0 * t),
                        why.join(", ")
                    ),
                    None => format!("stopped {}", why.join(", ")),
                }
            }
        };
        let _ = write!(
            out,
            "\nrigor:   {}: {spread}, {} measured; {outcome}",
            b.name,
            time(b.measured.get())
        );
    }
    out
}

/// How `track run` ended.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TrackedView {
    /// Versions measured and stored.
    pub measured: usize,
    /// Versions skipped (already stored).
    pub skipped: usize,
    /// Versions stored before and measured again (`--force`).
    pub again: usize,
    /// Of those, versions stored as failed (not measured before either).
    pub failed_before: usize,
    /// Versions that failed, and versions where some benchmark measured nothing.
    pub failed: usize,
    /// Sessions.
    pub sessions: usize,
    /// Anchors measured again over all sessions.
    pub anchors: usize,
    /// Where they were stored.
    pub history: String,
    /// Stopped by the user.
    pub interrupted: bool,
    /// Versions of the session the stop cut short: measured in part and not stored.
    pub unfinished: usize,
    /// The result file that keeps what they measured.
    pub unfinished_file: Option<String>,
}

/// The closing line of `track run`.
pub fn tracked_line(t: &TrackedView) -> String {
    let sessions = if t.sessions > 0 {
        format!(
            " in {}{}",
            count(t.sessions, "session", "sessions"),
            if t.anchors > 0 {
                format!(
                    " ({} measured again)",
                    count(t.anchors, "anchor", "anchors")
                )
            } else {
                String::new()
            }
        )
    } else {
        String::new()
    };
    let stored = if t.again > 0 {
        // `--force` skips nothing: "0 already stored" would hide that these were.
        format!("{} stored before and measured again (--force)", t.again)
    } else {
        format!("{} already stored", t.skipped)
    };
    let mut out = format!(
        "Tracked {} version(s) ({stored}, {} failed){sessions} in {}\n",
        t.measured, t.failed, t.history
    );
    // On a line of its own: within the count's brackets it read as nested asides.
    if t.again == 0 && t.failed_before > 0 {
        out.push_str(&if t.failed_before == t.skipped {
            "The versions already stored all failed before: --force measures them again\n"
                .to_string()
        } else {
            format!(
                "{} of the versions already stored failed before: --force measures {} again\n",
                t.failed_before,
                if t.failed_before == 1 { "it" } else { "them" }
            )
        });
    }
    if t.interrupted {
        out.push_str(&match (t.unfinished, &t.unfinished_file) {
            (0, _) | (_, None) => "Interrupted: the versions counted above as tracked are stored; \
                 the rest were not measured (run the same command again to go on)\n"
                .to_string(),
            (n, Some(file)) => format!(
                "Interrupted: the {} of the session under way {} measured only in part and not \
                 stored; what they measured is kept in {file} (`rigor track add {file}` stores it \
                 as it is); run the same command again to measure them in full and go on\n",
                count(n, "version", "versions"),
                if n == 1 { "was" } else { "were" }
            ),
        });
    }
    out
}

/// A bisection's step: the range's ends, the midpoint and how it was placed.
#[derive(Debug, Clone, PartialEq)]
pub struct BisectStepView {
    /// The good end, the midpoint, the bad end.
    pub revs: [String; 3],
    /// "good", "bad", or `None` (undecided).
    pub side: Option<&'static str>,
    /// Whether it was placed by an identical build (not measured).
    pub identical: bool,
    /// Where it lies between the ends (0 good, 1 bad), when measured.
    pub position: Option<f64>,
    /// Rounds measured.
    pub rounds: usize,
}

/// A bisection step's line.
pub fn bisect_step(s: &BisectStepView) -> String {
    let [lo, mid, hi] = &s.revs;
    let how = if s.identical {
        format!(
            "its build is identical to the {} end's: not measured",
            s.side.unwrap_or("?")
        )
    } else {
        let at = s.position.map_or(String::new(), |p| {
            // Far past an end, the midpoint is not between the ends' levels: more than one
            // change lies in the range (a rise and a fall, say), which a bisection follows to one.
            let past = match p {
                p if p < -0.5 => "; past the good end, so more than one change lies in the range",
                p if p > 1.5 => "; past the bad end, so more than one change lies in the range",
                _ => "",
            };
            format!(
                "{}{:.0}% of the way to {}{past}",
                if p < -0.005 { "\u{2212}" } else { "" },
                (100.0 * p).abs(),
                short(hi)
            )
        });
        match s.side {
            Some(side) => format!("like the {side} end ({at}), {} rounds", s.rounds),
            None => format!("undecided after {} rounds ({at})", s.rounds),
        }
    };
    format!(
        "rigor: {} between {} and {}: {how}",
        short(mid),
        short(lo),
        short(hi)
    )
}

/// The ends of a bisection.
pub fn bisect_ends(
    good: &str,
    bad: &str,
    ratio: f64,
    interval: Option<(f64, f64)>,
    verdict: &str,
) -> String {
    format!(
        "rigor: {} against {}: {} (sequence {}): {verdict}",
        short(bad),
        short(good),
        ratio_percent(ratio),
        interval_percent(interval)
    )
}

/// What a bisection cost: `built` versions built (each once), `failed` that failed to build.
pub fn bisect_cost(versions: usize, comparisons: usize, built: usize, failed: usize) -> String {
    let failed = if failed > 0 {
        format!(", {failed} failed to build")
    } else {
        String::new()
    };
    // A bisection's rounds are stored: a new user found them in `track changes` afterwards
    // (35 and 39 runs on the ends), unsaid.
    let stored = if comparisons > 0 {
        "  its measurements are stored in the history as a bisection's sessions: they count in \
         its levels and change detection as any session's (`rigor track rm --session ID` takes \
         one out)\n"
    } else {
        ""
    };
    format!(
        "  {} in the range, both ends included; {} measured, {} built (each once){failed}\n\
         {stored}",
        count(versions, "version", "versions"),
        count(comparisons, "comparison", "comparisons"),
        count(built, "version", "versions")
    )
}

/// One version of `rigor track show`.
#[derive(Debug, Clone, PartialEq)]
pub struct ShowLine {
    /// The version.
    pub rev: String,
    /// Its first line of commit message.
    pub subject: String,
    /// Its level with its interval as text (or why it has none).
    pub level: String,
    /// The step from the version before: the ratio, and the verdict of the change detection
    /// found there (empty when none).
    pub step: Option<(f64, String)>,
    /// What the change found there is (its number and its own figure), shown after the
    /// subject so that the columns stay aligned; empty when none.
    pub change: String,
    /// Marks: `=` identical build to the one before, `*` interval at the timer's resolution,
    /// `?` the step crosses sessions that share no version.
    pub marks: String,
    /// Its runs: (sessions, anchors among them).
    pub runs: (usize, usize),
}

/// `rigor track show`.
#[derive(Debug, Clone, PartialEq)]
pub struct ShowView {
    /// The benchmark.
    pub benchmark: String,
    /// The machine and the branch.
    pub series: (String, String),
    /// How much sessions shift levels (σ_s as a fraction) and its degrees of freedom, when
    /// known.
    pub sessions: Option<(f64, usize)>,
    /// The sessions (by number) whose runs vary apart from the others', with how much each
    /// one's runs vary beyond their own intervals (a fraction), and how much the others' do
    /// (`None` when every session is apart).
    pub apart: (Vec<(i64, f64)>, Option<f64>),
    /// Sessions, and their connected groups.
    pub session_count: (usize, usize),
    /// The sessions (by number) that measured the benchmark far from its typical session (the
    /// application decides which), with the ratio of their level to the typical session's,
    /// farthest first.
    pub far_sessions: Vec<(i64, f64)>,
    /// The versions.
    pub lines: Vec<ShowLine>,
}

/// What the header says of sessions whose runs vary apart from the others' (empty when none).
fn apart_text((apart, others): &(Vec<(i64, f64)>, Option<f64>)) -> String {
    if apart.is_empty() {
        return String::new();
    }
    let pct = |sd: f64| crate::format::percent(100.0 * sd);
    let mut each: Vec<String> = apart
        .iter()
        .map(|(id, sd)| format!("session {id}'s by ±{}", pct(*sd)))
        .collect();
    if let Some(sd) = others {
        each.push(format!("the others' by ±{}", pct(*sd)));
    }
    format!(
        "; runs vary apart by session beyond their own intervals ({}): each session's noise \
         widens only its own comparisons",
        each.join(", ")
    )
}

/// What the header says of sessions that measured the benchmark far from its typical session
/// (empty when none).
fn far_text(far: &[(i64, f64)]) -> String {
    const SHOWN: usize = 3;
    if far.is_empty() {
        return String::new();
    }
    let each: Vec<String> = far
        .iter()
        .take(SHOWN)
        .map(|(id, r)| format!("session {id} at {}", factor_of_typical(*r)))
        .collect();
    let more = if far.len() > SHOWN {
        format!(" and {} more", far.len() - SHOWN)
    } else {
        String::new()
    };
    format!(
        "; far from its typical session's level: {}{more} (each level averages the sessions' \
         shifts out, so a sitting on a loaded machine pulls them all; `rigor track rm --session \
         ID --dry-run` lists its runs, without `--dry-run` it takes them out)",
        each.join(", ")
    )
}

/// A ratio to the typical session as words: "+45%" up to twice, "3.1×" beyond, "−30%" below.
pub fn factor_of_typical(r: f64) -> String {
    if r >= 2.0 {
        format!("{:.1}×", r)
    } else {
        ratio_percent(r)
    }
}

/// A version's runs in `track show`: "3 runs (1 anchor)", "1 run".
fn runs_text((runs, anchors): (usize, usize)) -> String {
    let runs = count(runs, "run", "runs");
    if anchors > 0 {
        format!("{runs} ({})", count(anchors, "anchor", "anchors"))
    } else {
        runs
    }
}

/// Below this many degrees of freedom of the sessions' spread, `track show` says why its levels'
/// intervals are wide.
const FEW_SESSION_DF: usize = 5;

/// The history table of `rigor track show`.
pub fn show(v: &ShowView) -> String {
    let spread = match v.sessions {
        Some((sd, df)) => format!(
            "sessions shift it by ±{} (SD, {} df{})",
            crate::format::percent(100.0 * sd),
            df,
            if df < FEW_SESSION_DF {
                // The levels' intervals take Student's t on the sessions' few degrees of
                // freedom (12.7 at 1 df against 2.0 at many): a trial read ±15% intervals of a
                // benchmark with 2% noise as a bad measurement.
                ": too few to know that shift, so each level's interval is wide; steps between \
                 versions measured side by side are known far better"
            } else {
                ""
            }
        ),
        None => "how much sessions shift it is not known yet (no version measured in two \
                 sessions: `track run` re-measures anchors)"
            .to_string(),
    };
    let spread = spread + &apart_text(&v.apart) + &far_text(&v.far_sessions);
    let groups = if v.session_count.1 > 1 {
        format!(
            ", in {} groups that share no version (steps between them are confounded with a \
             session, marked ?)",
            v.session_count.1
        )
    } else {
        String::new()
    };
    let mut out = format!(
        "{} on {} ({}): each version's level with the sessions' shifts taken out (95% CI), and \
         the step from the version before; {}; {} session(s){groups}\n  marks: = identical \
         build, * at the timer's resolution, ? across unconnected sessions; a step is a \
         change only where `rigor track changes`, deciding over the whole series, found one \
         (named at the line's end)\n",
        v.benchmark, v.series.0, v.series.1, spread, v.session_count.0
    );
    for l in &v.lines {
        let step = l.step.as_ref().map_or(String::new(), |(r, verdict)| {
            format!("{:>7} {:<23}", ratio_percent(*r), verdict)
        });
        let runs = runs_text(l.runs);
        let line = format!(
            "  {:<10} {:<2} {:<34} {:<31} {:<18} {}",
            short(&l.rev),
            l.marks,
            l.level,
            step,
            runs,
            l.subject
        );
        if l.change.is_empty() {
            let _ = writeln!(out, "{}", line.trim_end());
        } else {
            let _ = writeln!(out, "{line}  ({})", l.change);
        }
    }
    out
}

/// A change's confirmation.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmationView {
    /// The benchmark.
    pub benchmark: String,
    /// The version before and the first after.
    pub revs: (String, String),
    /// The change as detected.
    pub detected: f64,
    /// "confirmed", "refuted", "undecided", or why it could not be measured.
    pub outcome: String,
    /// The two sides measured together.
    pub measured: Option<MeasuredRatio>,
    /// The most rounds a confirmation takes, besides its `--confirm-budget` of time.
    pub max_rounds: usize,
}

/// A ratio measured together, with its interval and verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredRatio {
    /// The ratio.
    pub ratio: f64,
    /// Its interval (`None`: unbounded).
    pub interval: Option<(f64, f64)>,
    /// Its verdict.
    pub verdict: String,
    /// What ended a sequence that did not decide (`None`: it decided, or it is not known).
    pub spent: Option<Spent>,
}

/// What ended measuring until decided before the sequence decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spent {
    /// The round limit (`--max-rounds`), after this many rounds.
    Rounds(usize),
    /// The time budget (`--budget`), after this many rounds.
    Budget(usize),
    /// The user stopped it.
    Interrupted,
}

/// A confirmation's line.
pub fn confirmation_line(c: &ConfirmationView) -> String {
    let measured = c.measured.as_ref().map_or(String::new(), |m| {
        format!(
            ": measured together {} (sequence {}), {}",
            ratio_percent(m.ratio),
            interval_percent(m.interval),
            m.verdict
        )
    });
    let what = match c.outcome.as_str() {
        "confirmed" => "confirmed".to_string(),
        "refuted" => "refuted, not reported".to_string(),
        "undecided" => format!(
            "undecided within --confirm-budget or {} rounds, whichever came first, reported as \
             detected",
            c.max_rounds
        ),
        why => format!("not confirmed ({why})"),
    };
    format!(
        "rigor: {} at {} ({} after {}): {what}{measured}",
        c.benchmark,
        short(&c.revs.1),
        ratio_percent(c.detected),
        short(&c.revs.0)
    )
}

/// One benchmark of `rigor track check` against the history.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckLine {
    /// The benchmark.
    pub benchmark: String,
    /// The candidate / the segment's level.
    pub ratio: f64,
    /// Its interval.
    pub interval: Option<(f64, f64)>,
    /// The verdict.
    pub verdict: String,
    /// Widened to the timer's resolution.
    pub at_resolution: bool,
    /// The history has not measured how much sessions vary: nothing bounds the candidate's
    /// session.
    pub sessions_unknown: bool,
    /// Undecided with an interval so wide (more than a factor of two) that its point estimate
    /// would be a misleading headline: the line shows the interval alone.
    pub uninformative: bool,
    /// Why the candidate's verdict was withheld, if it was: no estimate, no verdict (the warning
    /// says more).
    pub withheld: Option<Withheld>,
    /// Versions in the segment, and its first.
    pub versions: (usize, String),
    /// The spread between versions and between sessions (SD, fractions; the latter with its
    /// degrees of freedom), when known.
    pub spreads: (f64, Option<(f64, usize)>),
}

/// Why a check against the history gives a candidate no verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Withheld {
    /// It was measured under another load than the history's runs (contention they did not
    /// see, shown by its CPU share, or a busy machine against quiet ones, or the reverse).
    Load,
    /// It was measured far in time from every session of the history, farther than they span:
    /// how far sessions drift over that time was never measured.
    Time,
}

impl Withheld {
    /// What the line says in place of its interval.
    fn why(self) -> &'static str {
        match self {
            Self::Load => "measured under another load than the history's runs",
            Self::Time => "measured farther in time from the history's sessions than they span",
        }
    }
}

/// The candidate against the stored history (text).
pub fn check_table(branch: &str, machine: &str, lines: &[CheckLine]) -> String {
    let mut out = format!(
        "Against the history of {branch} on {machine} (each benchmark's versions since its last \
         detected change, all of them where none was, as the top level; the candidate measured \
         in a session of its own)\n"
    );
    for l in lines {
        let floor = if l.at_resolution {
            ", at the timer's resolution"
        } else {
            ""
        };
        let sessions = match l.spreads.1 {
            Some((s, df)) => format!(
                "between sessions {} ({df} df)",
                crate::format::percent(100.0 * s)
            ),
            None => "between sessions unknown".to_string(),
        };
        let estimate = if l.uninformative || l.sessions_unknown || l.withheld.is_some() {
            "no estimate".to_string()
        } else {
            ratio_percent(l.ratio)
        };
        // Nothing bounds the candidate's session: the interval without its shift is no 95%
        // interval of the change, and is not called one. It is not "the measurements alone"
        // either: the stored versions' spread, on their few degrees of freedom, is in it (a
        // trial read −48% .. +142% so for a benchmark with 1.6% noise).
        let interval = if let Some(w) = l.withheld {
            format!("{}: see the warning", w.why())
        } else if l.sessions_unknown {
            format!(
                "without its session's shift, which nothing measured: {}",
                interval_percent(l.interval)
            )
        } else {
            format!("95% CI {}", interval_percent(l.interval))
        };
        let _ = writeln!(
            out,
            "  {}: {estimate} ({interval}{floor}): {} — against {} version(s) since {}; spread \
             between versions {}, {sessions}",
            l.benchmark,
            l.verdict,
            l.versions.0,
            short(&l.versions.1),
            crate::format::percent(100.0 * l.spreads.0),
        );
    }
    if lines.iter().any(|l| l.sessions_unknown) {
        out.push_str(
            "  The history has not measured how much sessions shift this machine (its versions \
             were measured in one session, or in sessions that share no version, or in two \
             sessions: compared once, they can agree by chance where sessions differ by a \
             third), so nothing bounds the candidate's session: no verdict. Measure both \
             together with `rigor track check --candidate REV`, or measure more sessions with \
             anchors (`rigor track run`).\n",
        );
    }
    if lines
        .iter()
        .any(|l| l.uninformative && l.withheld.is_none())
    {
        out.push_str(UNINFORMATIVE);
    } else if let Some((sigma, df)) = lines.iter().find_map(sessions_decide) {
        let _ = writeln!(
            out,
            "  Inconclusive: the candidate's session carries a shift of its own, which the \
             history puts at {} per session ({df} df), and that is most of the interval. \
             Measure the candidate together with the baseline (`rigor track check --candidate \
             REV|DIR`), where session shifts cancel, or give the history more sessions with \
             anchors (`rigor track run`), which tell that shift more closely.",
            crate::format::percent(100.0 * sigma)
        );
    }
    out
}

/// The spread between sessions of an inconclusive line that it, not the versions' spread,
/// keeps undecided (a trial's +11% regression read "+11% (−1.1% .. +24%): inconclusive" with
/// sessions at 2.3% on 2 df, and said nothing of what would decide it).
fn sessions_decide(l: &CheckLine) -> Option<(f64, usize)> {
    let (sigma, df) = l.spreads.1?;
    (l.verdict == "inconclusive"
        && l.withheld.is_none()
        && !l.sessions_unknown
        && !l.uninformative
        && sigma > l.spreads.0)
        .then_some((sigma, df))
}

/// The note under a check whose interval was too wide for a headline.
const UNINFORMATIVE: &str = "  No estimate: an undecided interval wider than a factor of two \
     says only that this history cannot tell, and its middle would read as a change that is not \
     there. What widens it is mostly how much sessions differ on this machine: measure the \
     candidate together with the baseline (`rigor track check --candidate REV`), where they \
     cancel.\n";

/// The candidate against the stored history (Markdown, for a pull-request comment).
pub fn check_markdown(branch: &str, machine: &str, lines: &[CheckLine]) -> String {
    let mut out = format!(
        "Against the history of {} on {} (each benchmark's versions since its last detected \
         change, all of them where none was, as the top level)\n\n\
         | benchmark | change | 95% CI | verdict | versions | since |\n\
         |---|---:|---|---|---:|---|\n",
        crate::escape::markdown_code(branch),
        crate::escape::markdown_code(machine),
    );
    for l in lines {
        let verdict = if let Some(w) = l.withheld {
            format!("{} ({}: no estimate)", l.verdict, w.why())
        } else if l.sessions_unknown {
            format!(
                "{} (sessions unknown: the interval is the measurements' alone, without the \
                 candidate session's shift)",
                l.verdict
            )
        } else if l.uninformative {
            format!("{} (interval wider than ×2: no estimate)", l.verdict)
        } else {
            l.verdict.clone()
        };
        let estimate = if l.uninformative || l.sessions_unknown || l.withheld.is_some() {
            "—".to_string()
        } else {
            ratio_percent(l.ratio)
        };
        let _ = writeln!(
            out,
            "| {} | {estimate} | {} | {verdict} | {} | {} |",
            crate::escape::markdown_cell(&l.benchmark),
            // Withheld: its interval, computed as if nothing differed, would read as a finding.
            if l.withheld.is_some() {
                "—".to_string()
            } else {
                interval_percent(l.interval)
            },
            l.versions.0,
            crate::escape::markdown_cell(&short(&l.versions.1))
        );
    }
    out
}

/// One benchmark of `rigor track check --candidate`.
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateLine {
    /// The benchmark.
    pub benchmark: String,
    /// The candidate against the baseline.
    pub measured: CandidateMeasured,
}

/// What became of one benchmark of `rigor track check --candidate`.
#[derive(Debug, Clone, PartialEq)]
pub enum CandidateMeasured {
    /// Measured together until decided (or until the bounds were spent).
    Ratio(MeasuredRatio),
    /// Not measured: the candidate's build is byte-identical to the baseline's, or it is the
    /// baseline's version itself — the same program, no change.
    Identical,
    /// Not measured: the candidate is the baseline's version itself.
    SameVersion,
    /// Not measured, with why.
    Not(String),
}

/// What an identical candidate's line says.
const IDENTICAL: &str = "identical build: no change (not measured)";

/// What a candidate that is the baseline's own version says.
const SAME_VERSION: &str = "the candidate is the baseline's own version: nothing compared (name \
     the baseline with --baseline-rev, e.g. HEAD~1)";

/// The verdict of a gate's ratio, with the least change its sequence allows when it excludes
/// none ("regression, at least +1.3%"): a sequence decided after a few rounds can be wide, and
/// its point estimate (+45%) is then a poor headline for a small change.
fn gate_verdict(m: &MeasuredRatio) -> String {
    match m.interval {
        Some((lo, hi)) if lo > 1.0 || hi < 1.0 => {
            let least = if lo > 1.0 { lo } else { hi };
            format!("{}, at least {}", m.verdict, ratio_percent(least))
        }
        // A sequence stops undecided only when its bounds are spent (or it is interrupted).
        _ if m.verdict == "inconclusive" || m.verdict == "unbounded" => format!(
            "{}: measuring stopped before it was decided ({})",
            m.verdict,
            match m.spent {
                Some(Spent::Rounds(n)) =>
                    format!("round limit reached after {n} rounds: raise --max-rounds"),
                Some(Spent::Budget(n)) => format!("--budget spent after {n} rounds: raise it"),
                Some(Spent::Interrupted) => "interrupted".to_string(),
                None => "--max-rounds or --budget spent, raise them; or interrupted".to_string(),
            }
        ),
        _ => m.verdict.clone(),
    }
}

/// Whether any benchmark of the check was measured together with the baseline (an identical
/// build or the baseline's own version is not: the header must not say it was).
fn any_compared(lines: &[CandidateLine]) -> bool {
    lines
        .iter()
        .any(|l| matches!(l.measured, CandidateMeasured::Ratio(_)))
}

/// The interleaved check (text).
pub fn candidate_table(baseline: &str, lines: &[CandidateLine]) -> String {
    let mut out = if any_compared(lines) {
        format!(
            "Candidate against {baseline}, measured together in shuffled rounds until decided \
             (anytime-valid 95% confidence sequences)\n"
        )
    } else {
        format!("Candidate against {baseline}: nothing measured together\n")
    };
    for l in lines {
        let _ = match &l.measured {
            CandidateMeasured::Ratio(m) => writeln!(
                out,
                "  {}: {} (sequence {}): {}",
                l.benchmark,
                ratio_percent(m.ratio),
                interval_percent(m.interval),
                gate_verdict(m)
            ),
            CandidateMeasured::Identical => writeln!(out, "  {}: {IDENTICAL}", l.benchmark),
            CandidateMeasured::SameVersion => writeln!(out, "  {}: {SAME_VERSION}", l.benchmark),
            CandidateMeasured::Not(why) => writeln!(out, "  {}: not measured: {why}", l.benchmark),
        };
    }
    out
}

/// The interleaved check (Markdown, for a pull-request comment).
pub fn candidate_markdown(baseline: &str, lines: &[CandidateLine]) -> String {
    let how = if any_compared(lines) {
        ", measured together until decided"
    } else {
        ": nothing measured together"
    };
    let mut out = format!(
        "Candidate against {}{how}\n\n| benchmark | change | 95% sequence | verdict |\n\
         |---|---:|---|---|\n",
        crate::escape::markdown_code(baseline)
    );
    for l in lines {
        let name = crate::escape::markdown_cell(&l.benchmark);
        let _ = match &l.measured {
            CandidateMeasured::Ratio(m) => writeln!(
                out,
                "| {name} | {} | {} | {} |",
                ratio_percent(m.ratio),
                interval_percent(m.interval),
                gate_verdict(m)
            ),
            CandidateMeasured::Identical => writeln!(out, "| {name} | | | {IDENTICAL} |"),
            CandidateMeasured::SameVersion => writeln!(out, "| {name} | | | {SAME_VERSION} |"),
            CandidateMeasured::Not(why) => writeln!(
                out,
                "| {name} | | | not measured: {} |",
                crate::escape::markdown_cell(why)
            ),
        };
    }
    out
}

/// How a bisection ended.
#[derive(Debug, Clone, PartialEq)]
pub enum BisectEnding {
    /// The first changed version and the one before it.
    Found {
        /// The first changed version (as stored: a full commit id).
        first: String,
        /// Its subject.
        subject: String,
        /// The version before it.
        before: String,
        /// The ends' difference.
        ends: MeasuredRatio,
    },
    /// The change lies after `good` and at or before `bad`: no midpoint could be placed.
    Between {
        /// The last version like the good end.
        good: String,
        /// The first version like the bad end.
        bad: String,
        /// `--max-rounds`.
        max_rounds: usize,
        /// The ends' difference.
        ends: MeasuredRatio,
        /// The versions between them that failed to build (every one, when that is why no
        /// midpoint could be placed).
        unbuilt: Vec<String>,
    },
    /// The ends' builds are byte-identical (the ends as given).
    Identical(String, String),
    /// The ends do not differ (`equivalent`), or could not be told apart.
    NoChange {
        /// The ends as given.
        ends_given: (String, String),
        /// Whether the ends are equivalent (else undecided).
        equivalent: bool,
        /// Their difference.
        ends: MeasuredRatio,
    },
    /// Stopped: nothing to say on standard output but the cost.
    Stopped,
}

/// The ends' difference, as the closing lines give it.
fn ends_text(r: &MeasuredRatio, metric: &rigor_units::Metric) -> String {
    format!(
        "{}{} (sequence {}): {}",
        ratio_percent(r.ratio),
        if metric.is_wall() {
            String::new()
        } else {
            format!(" in {}", metric.name())
        },
        interval_percent(r.interval),
        r.verdict
    )
}

/// What a bisection of `metric` found (standard output).
pub fn bisect_ending(e: &BisectEnding, metric: &rigor_units::Metric) -> String {
    match e {
        BisectEnding::Found {
            first,
            subject,
            before,
            ends,
        } => format!(
            "First changed version: {first} {subject}\n  after {}; the ends differ by {}\n",
            short(before),
            ends_text(ends, metric)
        ),
        BisectEnding::Between {
            good,
            bad,
            ends,
            unbuilt,
            ..
        } if !unbuilt.is_empty() => {
            let list: Vec<String> = unbuilt.iter().map(|r| short(r)).collect();
            format!(
                "The change lies after {} and at or before {}; {} between them failed to build \
                 ({}), so it cannot be placed closer; the ends differ by {}\n",
                short(good),
                short(bad),
                if unbuilt.len() == 1 {
                    "the version".to_string()
                } else {
                    format!("the {} versions", unbuilt.len())
                },
                list.join(", "),
                ends_text(ends, metric)
            )
        }
        BisectEnding::Between {
            good,
            bad,
            max_rounds,
            ends,
            ..
        } => format!(
            "The change lies after {} and at or before {} (a midpoint could not be placed within \
             --max-rounds {max_rounds}): measure the versions between them with `rigor track \
             run`, or bisect again with more rounds; the ends differ by {}\n",
            short(good),
            short(bad),
            ends_text(ends, metric)
        ),
        BisectEnding::Identical(good, bad) => {
            format!("No change between {good} and {bad}: their builds are byte-identical\n")
        }
        BisectEnding::NoChange {
            ends_given: (good, bad),
            equivalent,
            ends,
        } => format!(
            "{} between {good} and {bad}: {}\n",
            if *equivalent {
                "No change"
            } else {
                "Could not tell whether anything changed (raise --max-rounds)"
            },
            ends_text(ends, metric)
        ),
        BisectEnding::Stopped => String::new(),
    }
}

/// A change the history holds within a bisected range besides the one the bisection names.
#[derive(Debug, Clone, PartialEq)]
pub struct OtherChange {
    /// Its first version (as stored: a full commit id or a label).
    pub rev: String,
    /// New level / old level.
    pub ratio: f64,
    /// Regression or improvement, in the metric's sense.
    pub verdict: rigor_stats::compare::Verdict,
}

/// The stored changes of the bisected benchmark between the ends besides the one a bisection
/// found (standard output, after its ending): a bisection follows the ends' difference to one
/// version, and changes that cancel out, or add up, between the ends are not told apart by it.
/// Empty when there are none. `named`: whether the bisection named a version (the others are
/// then "other" changes).
pub fn bisect_others(
    others: &[OtherChange],
    benchmark: &str,
    (good, bad): (&str, &str),
    named: bool,
) -> String {
    if others.is_empty() {
        return String::new();
    }
    let list: Vec<String> = others
        .iter()
        .map(|c| {
            format!(
                "{} {} ({})",
                short(&c.rev),
                ratio_percent(c.ratio),
                c.verdict
            )
        })
        .collect();
    let advice = match (named, others.len()) {
        (true, 1) => "bisect each part of the range on its own to place the other",
        (true, _) => "bisect each part of the range on its own to place the others",
        // One change, and the bisection did not name it: nothing to split.
        (false, 1) => "this one did not decide, and more rounds (--max-rounds) may place it",
        (false, _) => "bisect each part of the range on its own to place them",
    };
    format!(
        "The history {} of {benchmark} between {good} and {bad}: {}. A bisection follows the \
         ends' difference to one version; {advice}.\n",
        if named {
            format!(
                "also holds {}",
                crate::format::count(others.len(), "other change", "other changes")
            )
        } else {
            format!(
                "holds {}",
                crate::format::count(others.len(), "stored change", "stored changes")
            )
        },
        list.join(", "),
    )
}

/// What `rigor track check` shows.
#[derive(Debug, Clone)]
pub enum CheckedView<'a> {
    /// Each benchmark against one stored measurement, unpaired, and the suite's geometric mean
    /// (with the bootstrap's seed) when there are several.
    Unpaired(
        Vec<crate::comparison::ComparisonView<'a>>,
        Option<(crate::comparison::SuiteView, rigor_units::Seed)>,
    ),
    /// Each benchmark against the history of a branch (its name) on a machine.
    History(String, String, Vec<CheckLine>),
    /// Each benchmark of a candidate measured together with the baseline (its version).
    Candidate(String, Vec<CandidateLine>),
}

/// `rigor track check`'s table in the terminal.
pub fn checked_text(v: &CheckedView<'_>) -> String {
    match v {
        CheckedView::Unpaired(comparisons, suite) => {
            let mut out = crate::comparison::render(comparisons);
            if let Some((suite, seed)) = suite {
                out.push_str(&crate::comparison::suite(suite, *seed));
            }
            out
        }
        CheckedView::History(branch, machine, lines) => check_table(branch, machine, lines),
        CheckedView::Candidate(baseline, lines) => candidate_table(&short(baseline), lines),
    }
}

/// `rigor track check`'s table in Markdown (`--markdown`, for a pull-request comment).
pub fn checked_markdown(v: &CheckedView<'_>) -> String {
    match v {
        CheckedView::Unpaired(comparisons, _) => crate::comparison::markdown(comparisons),
        CheckedView::History(branch, machine, lines) => check_markdown(branch, machine, lines),
        CheckedView::Candidate(baseline, lines) => candidate_markdown(&short(baseline), lines),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sessions whose runs vary apart are named in the header with each one's spread, the
    /// others' when some vary alike, and nothing when none is apart.
    #[test]
    fn sessions_apart_are_named_in_the_header() {
        let view = |apart| ShowView {
            benchmark: "b".into(),
            series: ("m".into(), "main".into()),
            sessions: Some((0.3, 1)),
            apart,
            session_count: (3, 1),
            far_sessions: Vec::new(),
            lines: Vec::new(),
        };
        let one = show(&view((vec![(7, 0.082)], Some(0.004))));
        assert!(
            one.contains("(session 7's by ±8.2%, the others' by ±0.40%)"),
            "{one}"
        );
        let all = show(&view((vec![(1, 0.082), (2, 0.0036)], None)));
        assert!(
            all.contains("(session 1's by ±8.2%, session 2's by ±0.36%)"),
            "{all}"
        );
        assert!(!all.contains("others"), "{all}");
        let none = show(&view((Vec::new(), Some(0.01))));
        assert!(!none.contains("vary apart"), "{none}");
    }

    /// Sessions far from the typical one are named farthest first, as a factor beyond twice and
    /// a percentage below, at most three of them and how many more.
    #[test]
    fn far_sessions_are_named_in_the_header() {
        let view = |far_sessions| ShowView {
            benchmark: "b".into(),
            series: ("m".into(), "main".into()),
            sessions: Some((0.3, 9)),
            apart: (Vec::new(), None),
            session_count: (10, 1),
            far_sessions,
            lines: Vec::new(),
        };
        let two = show(&view(vec![(6, 3.04), (9, 0.7)]));
        assert!(
            two.contains(
                "; far from its typical session's level: session 6 at 3.0×, session 9 at −30% ("
            ),
            "{two}"
        );
        let many = show(&view(vec![(1, 1.5), (2, 1.4), (3, 1.3), (4, 1.2)]));
        assert!(many.contains("session 3 at +30% and 1 more ("), "{many}");
        assert!(!show(&view(Vec::new())).contains("typical session"));
    }

    /// An undecided bisection over a range holding one stored change is not told to split the
    /// range (there is nothing to split); over two, it is.
    #[test]
    fn other_changes_advice_fits_how_many_there_are() {
        let change = |rev: &str| OtherChange {
            rev: rev.into(),
            ratio: 1.05,
            verdict: rigor_stats::compare::Verdict::Regression,
        };
        let one = bisect_others(&[change("c6")], "b", ("c0", "c9"), false);
        assert!(
            one.contains("more rounds (--max-rounds) may place it"),
            "{one}"
        );
        assert!(!one.contains("each part"), "{one}");
        let two = bisect_others(&[change("c3"), change("c6")], "b", ("c0", "c9"), false);
        assert!(
            two.contains("bisect each part of the range on its own to place them"),
            "{two}"
        );
        let named = bisect_others(&[change("c3")], "b", ("c0", "c9"), true);
        assert!(named.contains("to place the other."), "{named}");
        assert!(bisect_others(&[], "b", ("c0", "c9"), true).is_empty());
    }

    /// An undecided confirmation names both limits that can end it.
    #[test]
    fn an_undecided_confirmation_names_its_limits() {
        let line = confirmation_line(&ConfirmationView {
            benchmark: "b".into(),
            revs: ("a1".into(), "b2".into()),
            detected: 1.05,
            outcome: "undecided".into(),
            measured: None,
            max_rounds: 100,
        });
        assert!(
            line.contains("undecided within --confirm-budget or 100 rounds, whichever came first"),
            "{line}"
        );
    }

    /// With the sessions' spread known from few degrees of freedom, the header says why the
    /// levels' intervals are wide; with many, it does not.
    #[test]
    fn few_sessions_say_why_the_levels_are_wide() {
        let view = |df| ShowView {
            benchmark: "b".into(),
            series: ("m".into(), "main".into()),
            sessions: Some((0.0, df)),
            apart: (Vec::new(), None),
            session_count: (df + 1, 1),
            far_sessions: Vec::new(),
            lines: Vec::new(),
        };
        let few = show(&view(1));
        assert!(
            few.contains(
                "(SD, 1 df: too few to know that shift, so each level's interval is wide;"
            ),
            "{few}"
        );
        let many = show(&view(FEW_SESSION_DF));
        assert!(!many.contains("too few"), "{many}");
    }

    /// A decided gate names the least change its sequence allows beside the point estimate (a
    /// new user's PR comment read "+45%" for a ~5% change decided after eight rounds).
    #[test]
    fn a_decided_gate_says_the_least_change_its_sequence_allows() {
        let spent = |ratio, interval, verdict: &str, spent| CandidateLine {
            benchmark: "b".into(),
            measured: CandidateMeasured::Ratio(MeasuredRatio {
                ratio,
                interval,
                verdict: verdict.into(),
                spent,
            }),
        };
        let line = |ratio, interval, verdict: &str| spent(ratio, interval, verdict, None);
        let lines = [
            line(1.45, Some((1.013, 2.08)), "regression"),
            line(0.8, Some((0.7, 0.95)), "improvement"),
            line(1.0, Some((0.99, 1.01)), "equivalent"),
            line(1.058, Some((0.949, 1.18)), "inconclusive"),
        ];
        let text = candidate_table("main", &lines);
        assert!(
            text.contains("+45% (sequence +1.3% .. +108%): regression, at least +1.3%"),
            "{text}"
        );
        assert!(text.contains("improvement, at least −5.0%"), "{text}");
        assert!(text.contains("): equivalent\n"), "{text}");
        assert!(
            text.contains("): inconclusive: measuring stopped before it was decided"),
            "{text}"
        );
        // What ended it, when known: the rounds, or the budget.
        let ended = |s| candidate_table("main", &[spent(1.05, None, "unbounded", Some(s))]);
        assert!(
            ended(Spent::Rounds(200)).contains(
                "unbounded: measuring stopped before it was decided (round limit reached after \
                 200 rounds: raise --max-rounds)"
            ),
            "{}",
            ended(Spent::Rounds(200))
        );
        assert!(
            ended(Spent::Budget(31)).contains("(--budget spent after 31 rounds: raise it)"),
            "{}",
            ended(Spent::Budget(31))
        );
        let md = candidate_markdown("main", &lines);
        assert!(md.contains("| regression, at least +1.3% |"), "{md}");
        assert!(
            text.starts_with("Candidate against main, measured together"),
            "{text}"
        );
        // Nothing measured together (the baseline's own version, an identical build): the
        // header does not say it was.
        let same = [
            CandidateLine {
                benchmark: "b".into(),
                measured: CandidateMeasured::SameVersion,
            },
            CandidateLine {
                benchmark: "c".into(),
                measured: CandidateMeasured::Identical,
            },
        ];
        for out in [
            candidate_table("main", &same),
            candidate_markdown("main", &same),
        ] {
            assert!(!out.contains("measured together until"), "{out}");
            assert!(out.contains("nothing measured together"), "{out}");
        }
    }

    /// An undecided check whose interval spans more than a factor of two shows the interval
    /// without its middle, and says why once; a decided or narrow one keeps its estimate.
    #[test]
    fn a_check_too_wide_to_tell_shows_no_estimate() {
        let line =
            |ratio: f64, interval: (f64, f64), verdict: &str, uninformative: bool| CheckLine {
                benchmark: format!("b{ratio}"),
                ratio,
                interval: Some(interval),
                verdict: verdict.into(),
                at_resolution: false,
                sessions_unknown: false,
                uninformative,
                withheld: None,
                versions: (12, "v1".into()),
                spreads: (0.0, Some((0.52, 4))),
            };
        let lines = [
            line(0.49, (0.10, 2.38), "inconclusive", true),
            line(1.05, (0.98, 1.12), "inconclusive", false),
        ];
        let text = check_table("main", "m", &lines);
        assert!(
            text.contains("b0.49: no estimate (95% CI −90% .. +138%)"),
            "{text}"
        );
        assert!(!text.contains("−51%"), "{text}");
        assert!(text.contains("b1.05: +5.0% (95% CI"), "{text}");
        assert_eq!(text.matches("No estimate:").count(), 1, "{text}");
        // Sessions unknown: no estimate, and the measurements' interval is not called the
        // change's 95% CI (a new user's −19% change showed as "95% CI +33% .. +418%").
        let unknown = CheckLine {
            sessions_unknown: true,
            spreads: (0.0, Some((0.3, 1))),
            ..line(1.9, (1.33, 5.18), "inconclusive", false)
        };
        let text = check_table("main", "m", std::slice::from_ref(&unknown));
        assert!(
            text.contains(
                "b1.9: no estimate (without its session's shift, which nothing measured: +33% \
                 .. +418%)"
            ),
            "{text}"
        );
        assert!(!text.contains("95% CI"), "{text}");
        let md = check_markdown("main", "m", &[unknown]);
        assert!(md.contains("| `b1.9` | — |"), "{md}");
        let md = check_markdown("main", "m", &lines);
        assert!(
            md.contains("| `b0.49` | — | −90% .. +138% | inconclusive (interval wider than ×2"),
            "{md}"
        );
        let narrow = check_table("main", "m", &lines[1..]);
        assert!(!narrow.contains("No estimate"), "{narrow}");
        // Narrow but undecided, its sessions' spread (52% on 4 df) above the versions': the
        // note says what would decide it; a decided line, or one the versions' spread keeps
        // undecided, has none.
        assert!(
            narrow.contains(
                "Inconclusive: the candidate's session carries a shift of its own, which the \
                 history puts at 52% per session (4 df)"
            ) && narrow.contains("--candidate REV|DIR"),
            "{narrow}"
        );
        let decided = check_table(
            "main",
            "m",
            &[line(1.08, (1.05, 1.11), "regression", false)],
        );
        assert!(!decided.contains("Inconclusive:"), "{decided}");
        let versions = CheckLine {
            spreads: (0.6, Some((0.52, 4))),
            ..lines[1].clone()
        };
        let by_versions = check_table("main", "m", &[versions]);
        assert!(!by_versions.contains("Inconclusive:"), "{by_versions}");
    }

    #[test]
    fn check_markdown_keeps_hostile_names_and_labels_in_code_spans_and_cells() {
        use crate::escape::tests::HOSTILE;
        for name in HOSTILE {
            let line = CheckLine {
                benchmark: name.to_string(),
                ratio: 1.05,
                interval: Some((1.01, 1.09)),
                verdict: "regression".into(),
                at_resolution: false,
                sessions_unknown: false,
                uninformative: false,
                withheld: None,
                versions: (4, name.to_string()),
                spreads: (0.01, None),
            };
            let md = check_markdown(name, name, &[line]);
            let lines: Vec<&str> = md.lines().collect();
            assert_eq!(lines.len(), 5, "a newline split a row: {md}");
            assert_eq!(lines[4].replace("\\|", "").matches('|').count(), 7, "{md}");
            let candidate = CandidateLine {
                benchmark: name.to_string(),
                measured: CandidateMeasured::Not(format!("{name} failed")),
            };
            let md2 = candidate_markdown(name, &[candidate]);
            let lines2: Vec<&str> = md2.lines().collect();
            assert_eq!(lines2.len(), 5, "{md2}");
            assert_eq!(
                lines2[4].replace("\\|", "").matches('|').count(),
                5,
                "{md2}"
            );
            for text in [&md, &md2] {
                // Outside code spans, nothing of the name is markup.
                let outside: String = text.split('`').step_by(2).collect();
                for bad in ["<script>", "](javascript", "\u{1b}", "\u{202e}"] {
                    assert!(!outside.contains(bad), "{bad} in {text}");
                }
                assert!(!text.contains('\u{1b}') && !text.contains('\r'), "{text:?}");
            }
        }
    }

    #[test]
    fn a_sessions_precision_cost_is_shown_per_benchmark() {
        let cost = |name: &str, executions, short: Vec<(String, usize)>| PrecisionCost {
            name: name.into(),
            executions,
            measured: Seconds(1.5),
            versions: 4,
            short,
        };
        let s = SessionView {
            id: 1,
            versions: 4,
            failed: 0,
            anchors: 0,
            load: (None, None),
            busy: false,
            others_cpus: None,
            cpus: 2,
            measured: (Seconds(3.0), Seconds::ZERO),
            precision: Some(PrecisionView {
                target: Some(0.02),
                benchmarks: vec![
                    cost("quiet", (10, 10, 10), Vec::new()),
                    cost("noisy", (150, 216, 400), vec![("--max-runs".into(), 1)]),
                ],
            }),
        };
        let line = session_line(&s);
        assert!(
            line.contains(
                "\nrigor:   quiet: 10 executions per version, 1.500 s measured; every level known \
                 to ±2.0%"
            ),
            "{line}"
        );
        assert!(
            line.contains(
                "\nrigor:   noisy: 216 executions per version (median; 150–400), 1.500 s \
                 measured; 1 of 4 stopped short of ±2.0% (1 by --max-runs)"
            ),
            "{line}"
        );
    }

    #[test]
    fn a_versions_runs_are_counted_in_words() {
        // "1 runs (1 anchor)" in a new user's `track show`.
        assert_eq!(runs_text((1, 1)), "1 run (1 anchor)");
        assert_eq!(runs_text((3, 2)), "3 runs (2 anchors)");
        assert_eq!(runs_text((1, 0)), "1 run");
    }

    #[test]
    fn a_bisection_s_cost_counts_the_versions_that_failed_to_build() {
        // "0 versions built" after a build that failed read as if nothing had been tried.
        assert_eq!(
            bisect_cost(16, 3, 0, 1),
            "  16 versions in the range, both ends included; 3 comparisons measured, 0 versions \
             built (each once), 1 failed to build\n  its measurements are stored in the history \
             as a bisection's sessions: they count in its levels and change detection as any \
             session's (`rigor track rm --session ID` takes one out)\n"
        );
        assert!(!bisect_cost(16, 3, 4, 0).contains("failed"));
        assert!(!bisect_cost(16, 0, 0, 0).contains("stored"));
    }

    #[test]
    fn lines_say_what_happened() {
        let ids = ["a".repeat(40), "b".repeat(40)];
        assert_eq!(
            batch_line(&ids, &["v3".into()], 0, 4),
            format!(
                "rigor: versions 1–2 of 4, interleaved: {} {}, with 1 anchor measured again: v3",
                "a".repeat(10),
                "b".repeat(10)
            )
        );
        let s = SessionView {
            id: 7,
            versions: 11,
            failed: 0,
            anchors: 2,
            load: (Some(0.5), Some(2.25)),
            busy: true,
            others_cpus: None,
            cpus: 2,
            measured: (Seconds(10.0), Seconds(2.0)),
            precision: None,
        };
        let line = session_line(&s);
        assert!(line.starts_with("rigor: session 7: 11 versions and 2 anchors (2.000 s of the measuring, 20%), load 0.50 → 2.25"), "{line}");
        assert!(line.contains("warning: the load average reached the machine's 2 CPUs"));
        assert!(
            line.contains("`rigor track changes --metric cpu`"),
            "{line}"
        );
        assert!(line.contains("taken out through its anchors"), "{line}");
        // A version measured in the session that failed is counted and said to have failed.
        let one_failed = session_line(&SessionView {
            versions: 1,
            failed: 1,
            ..s.clone()
        });
        assert!(
            one_failed.starts_with("rigor: session 7: 1 version (it failed) and 2 anchors ("),
            "{one_failed}"
        );
        let some = session_line(&SessionView {
            failed: 3,
            ..s.clone()
        });
        assert!(some.contains("11 versions (3 failed) and 2"), "{some}");
        // Where what other processes used of the CPUs is known, that decides and is said (as
        // `rigor run` and `rigor analyze` say it of a run).
        let others = session_line(&SessionView {
            others_cpus: Some(1.06),
            ..s.clone()
        });
        assert!(
            others.contains(
                "warning: other processes kept 1.06 of this machine's 2 CPUs busy on average \
                 during session 7: its versions were measured on a busy machine"
            ),
            "{others}"
        );
        // A session without anchors (a history's first) has no shift to take out.
        let first = session_line(&SessionView {
            anchors: 0,
            ..s.clone()
        });
        assert!(
            first.contains("busy machine (its noise is larger"),
            "{first}"
        );
        assert!(!first.contains("anchors"), "{first}");
        // Nothing measured (a benchmark that cannot start): said, and no busy machine blamed.
        let nothing = session_line(&SessionView {
            measured: (Seconds::ZERO, Seconds::ZERO),
            ..s
        });
        assert_eq!(
            nothing,
            "rigor: session 7: 11 versions and 2 anchors, nothing measured (every execution \
             failed)"
        );
        let t = tracked_line(&TrackedView {
            measured: 5,
            interrupted: true,
            history: "h.db".into(),
            sessions: 1,
            ..TrackedView::default()
        });
        assert!(
            t.starts_with("Tracked 5 version(s) (0 already stored, 0 failed) in 1 session in h.db")
        );
        assert!(t.contains("Interrupted"));
        let forced = tracked_line(&TrackedView {
            measured: 5,
            again: 3,
            history: "h.db".into(),
            ..TrackedView::default()
        });
        assert_eq!(
            forced,
            "Tracked 5 version(s) (3 stored before and measured again (--force), 0 failed) in h.db\n"
        );
        // Versions stored as failed before: said on a line of their own, after the count.
        let some_failed = tracked_line(&TrackedView {
            skipped: 4,
            failed_before: 1,
            history: "h.db".into(),
            ..TrackedView::default()
        });
        assert_eq!(
            some_failed,
            "Tracked 0 version(s) (4 already stored, 0 failed) in h.db\n1 of the versions \
             already stored failed before: --force measures it again\n"
        );
        let step = bisect_step(&BisectStepView {
            revs: ["v1".into(), "v5".into(), "v9".into()],
            side: Some("bad"),
            identical: false,
            position: Some(0.98),
            rounds: 20,
        });
        assert_eq!(
            step,
            "rigor: v5 between v1 and v9: like the bad end (98% of the way to v9), 20 rounds"
        );
        let past = bisect_step(&BisectStepView {
            revs: ["v1".into(), "v5".into(), "v9".into()],
            side: Some("good"),
            identical: false,
            position: Some(-1.42),
            rounds: 20,
        });
        assert_eq!(
            past,
            "rigor: v5 between v1 and v9: like the good end (\u{2212}142% of the way to v9; past \
             the good end, so more than one change lies in the range), 20 rounds"
        );
    }
}
