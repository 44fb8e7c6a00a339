//! What the `track` commands say as they go, one typed line each: the notes and warnings of
//! `track run`, `bisect`, `check` and `add` on standard error (each line begins `rigor: `), and
//! the closing line of the measuring (`Tracked …`) on standard output, in the order they happen.

use std::fmt;

use rigor_units::{Seconds, Seed};

use crate::track_run::{
    BisectStepView, ConfirmationView, SessionView, TrackedView, batch_line, bisect_ends,
    bisect_step, confirmation_line, session_line, short, tracked_line,
};

/// One line (a session's may be two) of a `track` command.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Line {
    /// A note of the settings' resolution.
    Note(crate::notes::Note),
    /// A warning about the data (a benchmark left out of a metric it has no values of).
    Warning(String),
    /// A batch of versions is about to be measured together, with anchors.
    Batch {
        /// The versions.
        versions: Vec<String>,
        /// The stored versions measured again beside them.
        anchors: Vec<String>,
        /// Versions done before.
        done: usize,
        /// Versions in all.
        total: usize,
    },
    /// Versions already stored, skipped (said once for all).
    Skipped(Vec<String>),
    /// Versions stored as failed, skipped (said once for all).
    SkippedFailed(Vec<String>),
    /// A version whose checkout or preparation failed.
    VersionFailed {
        /// The version.
        rev: String,
        /// Why.
        reason: String,
    },
    /// A version in which benchmarks measured nothing.
    MeasuredNothing {
        /// The version.
        rev: String,
        /// The benchmarks.
        benchmarks: Vec<String>,
    },
    /// A session ended.
    Session(SessionView),
    /// The versions of one shard.
    Shard {
        /// The shard.
        i: usize,
        /// Shards in all.
        n: usize,
        /// Its versions.
        versions: usize,
        /// The largest batch.
        batch: usize,
    },
    /// What `track run` is about to measure.
    Versions {
        /// Versions.
        count: usize,
        /// The machine.
        machine: String,
        /// The branch.
        branch: String,
        /// The seed.
        seed: Seed,
    },
    /// Newly detected changes are about to be confirmed.
    Confirming(usize),
    /// Changes detected anew once the confirmations' measurements joined the history are about
    /// to be confirmed in turn.
    ConfirmingMoved(usize),
    /// A change's confirmation.
    Confirmation(ConfirmationView),
    /// No change at the newest version: how large a change there could still not be told from
    /// the history's noise (the widest interval against the versions before it, among the
    /// benchmarks without a change there).
    NewestBound {
        /// The newest version.
        rev: String,
        /// The benchmark with the widest interval.
        benchmark: String,
        /// Its interval of newest / before (`None`: unbounded).
        interval: Option<(f64, f64)>,
        /// How many benchmarks had no change there.
        among: usize,
        /// How many benchmarks were measured there.
        of: usize,
        /// The first version of the benchmark's newest build when earlier versions built the
        /// same program: the test is of that build.
        since: Option<String>,
        /// What most of the interval's width comes from: what would narrow it.
        noise: rigor_stats::series::NoiseSource,
    },
    /// The session built the stored versions it measured again into other programs than the
    /// history holds for them, in a history whose builds reproduce: the build changed.
    Rebuilt {
        /// Those versions.
        revs: Vec<String>,
        /// The sessions that built them (their ids).
        sessions: Vec<i64>,
    },
    /// A session just measured measured benchmarks far from their typical sessions' levels.
    FarSession {
        /// Its id.
        session: i64,
        /// The benchmark it measured farthest.
        benchmark: String,
        /// That benchmark's level there over its typical session's.
        ratio: f64,
        /// How many benchmarks it measured far.
        benchmarks: usize,
    },
    /// A version failed or measured nothing (exit status 2).
    VersionsFailed,
    /// A version failed because a benchmarked command exited with a status other than zero,
    /// which `-i/--ignore-failure` measures instead (as `rigor run` says it).
    IgnoreFailure,
    /// The ends of a bisection, measured together.
    BisectEnds {
        /// The good end.
        good: String,
        /// The bad end.
        bad: String,
        /// Bad / good.
        ratio: f64,
        /// Its sequence (`None`: unbounded).
        interval: Option<(f64, f64)>,
        /// The verdict.
        verdict: String,
    },
    /// A bisection's step.
    BisectStep(BisectStepView),
    /// A bisection stopped (Ctrl-C, or a version could not be measured).
    BisectStopped(String),
    /// A bisection's midpoint failed to build (the reason) and is skipped for another.
    BisectSkipped {
        /// The version.
        rev: String,
        /// Why, in words.
        why: String,
    },
    /// What `track check --candidate` is about to measure.
    Candidate {
        /// The candidate: a revision, or a folder.
        candidate: String,
        /// The baseline's revision.
        baseline: String,
        /// The baseline branch.
        branch: String,
        /// The most rounds of each comparison.
        max_rounds: usize,
        /// The measured-time budget.
        budget: Option<Seconds>,
        /// The seed.
        seed: Seed,
    },
    /// A benchmark of `track check` compared with one stored measurement.
    Unpaired {
        /// The benchmark.
        benchmark: String,
        /// The stored version.
        rev: String,
        /// Its subject.
        subject: String,
        /// The baseline branch.
        branch: String,
    },
    /// `track check` compared with one stored measurement, unpaired.
    UnpairedVerdict,
    /// A result added as a version was measured at another commit.
    OtherCommit {
        /// The files.
        files: String,
        /// The commit the result records.
        measured: String,
        /// Whether it records uncommitted changes.
        dirty: bool,
        /// The commit it is stored as.
        stored: String,
    },
    /// A result added as a commit records none, so nothing can be checked.
    NoCommitRecorded {
        /// The files.
        files: String,
        /// Their format.
        format: String,
        /// The commit it is stored as.
        stored: String,
    },
    /// A version added is no revision of the repository: a label.
    Label {
        /// The version.
        rev: String,
        /// The repository.
        repo: String,
    },
    /// A commit added is off the branch's first-parent line: stored under a label of its own.
    OffLine {
        /// The commit.
        commit: String,
        /// The branch.
        branch: String,
        /// The label it is stored under.
        label: String,
        /// Whether `--order` placed it.
        ordered: bool,
    },
    /// Benchmarks that measured nothing in any version, of several commands that may have been
    /// meant as one (`-- sh bench.sh`).
    OneCommand {
        /// The benchmarks that measured nothing.
        never: Vec<String>,
        /// The commands given.
        commands: Vec<String>,
    },
    /// How the measuring of `track run` ended (standard output).
    Tracked(TrackedView),
}

impl Line {
    /// Whether the line is the command's output (standard output), not a note.
    pub fn is_output(&self) -> bool {
        matches!(self, Self::Tracked(_))
    }
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Note(n) => write!(f, "rigor: {n}"),
            Self::Warning(w) => write!(f, "rigor: warning: {}", crate::escape::terminal(w)),
            Self::Batch {
                versions,
                anchors,
                done,
                total,
            } => f.write_str(&batch_line(versions, anchors, *done, *total)),
            Self::Skipped(revs) | Self::SkippedFailed(revs) => {
                const SHOWN: usize = 6;
                let mut names: Vec<String> = revs.iter().take(SHOWN).map(|r| short(r)).collect();
                if revs.len() > SHOWN {
                    names.push(format!("and {} more", revs.len() - SHOWN));
                }
                let (are, them) = if revs.len() == 1 {
                    ("is", "it")
                } else {
                    ("are", "them")
                };
                if matches!(self, Self::SkippedFailed(_)) {
                    write!(
                        f,
                        "rigor: {} failed before (stored as failed, never measured): skipped; \
                         --force measures {them} again (after fixing the build or the command)",
                        names.join(", ")
                    )
                } else {
                    write!(
                        f,
                        "rigor: {} {are} already stored: skipped; --force measures {them} again",
                        names.join(", ")
                    )
                }
            }
            Self::VersionFailed { rev, reason } => {
                write!(f, "rigor: warning: {} failed: {reason}", short(rev))
            }
            Self::MeasuredNothing { rev, benchmarks } => write!(
                f,
                "rigor: warning: {} measured nothing of {} (every execution failed)",
                short(rev),
                benchmarks.join(", ")
            ),
            Self::Session(s) => f.write_str(&session_line(s)),
            Self::Shard {
                i,
                n,
                versions,
                batch,
            } => write!(
                f,
                "rigor: shard {i}/{n}: {versions} version(s) in batches of at most {batch}"
            ),
            Self::Versions {
                count,
                machine,
                branch,
                seed,
            } => write!(
                f,
                "rigor: {count} version(s) on {machine} ({branch}), seed {seed}"
            ),
            Self::Confirming(n) => write!(
                f,
                "rigor: confirming {n} newly detected change(s): both sides measured again \
                 together until decided (--no-confirm skips this)"
            ),
            Self::ConfirmingMoved(n) => write!(
                f,
                "rigor: confirming {n} change(s) detected anew with the confirmations' \
                 measurements in the history (a refuted step is often placed again a version \
                 away)"
            ),
            Self::Confirmation(c) => f.write_str(&confirmation_line(c)),
            Self::NewestBound {
                rev,
                benchmark,
                interval,
                among,
                of,
                since,
                noise,
            } => {
                let benchmark = crate::escape::terminal(benchmark);
                let bound = match interval {
                    Some((lo, hi)) => format!(
                        "{benchmark}'s newest level against the versions before it is {} (the \
                         widest interval, at the level detection tests it){}",
                        crate::track_run::interval_percent(*interval),
                        // Beyond no change, within the practical threshold at one end.
                        if *lo > 1.0 || *hi < 1.0 {
                            ": it may well be a change, not shown to exceed the threshold"
                        } else {
                            ""
                        }
                    ),
                    None => format!(
                        "{benchmark}'s newest level is too uncertain to bound a change against \
                         the versions before it"
                    ),
                };
                // A newest version built as the ones before it is one level with them: the
                // bound is of their build, since its first version.
                let built = since.as_deref().map_or(String::new(), |first| {
                    format!(
                        " (built identically since {}: the bound is of that build)",
                        short(first)
                    )
                });
                use rigor_stats::series::NoiseSource;
                let narrow = match noise {
                    NoiseSource::Own => "more executions narrow it (-r, --precision)",
                    NoiseSource::Between => {
                        "most of its width is the spread between versions' levels beyond their \
                         own noise (builds, code layout, or sessions' shifts the anchors did not \
                         take out): more executions narrow it little"
                    }
                    NoiseSource::Sessions => {
                        "most of its width is the sessions' shifts (the load changed between \
                         them): more anchors (--anchors) and a quieter machine narrow it, more \
                         executions little"
                    }
                };
                write!(
                    f,
                    "rigor: no change detected at the newest version {}{built} in {among} of \
                     {of} benchmark(s), which does not exclude one: {bound}; {narrow}",
                    short(rev)
                )
            }
            Self::FarSession {
                session,
                benchmark,
                ratio,
                benchmarks,
            } => {
                let others = match benchmarks {
                    0 | 1 => String::new(),
                    2 => " (and 1 other benchmark)".to_string(),
                    n => format!(" (and {} other benchmarks)", n - 1),
                };
                write!(
                    f,
                    "rigor: warning: session {session} measured '{}' {} against its typical \
                     session{others}: each level averages the sessions' shifts out, so \
                     this sitting (a loaded machine?) pulls every level of it and widens what \
                     change detection can tell; `rigor track rm --session {session}` takes it \
                     out, to measure again on a quieter machine",
                    crate::escape::terminal(benchmark),
                    crate::track_run::factor_of_typical(*ratio)
                )
            }
            Self::Rebuilt { revs, sessions } => {
                let revs: Vec<String> = revs.iter().map(|r| short(r)).collect();
                let rm: Vec<String> = sessions
                    .iter()
                    .map(|s| format!("rigor track rm --session {s}"))
                    .collect();
                write!(
                    f,
                    "rigor: warning: the stored versions measured again ({}) were built into other \
                     programs than the history holds for them, though this project's builds \
                     reproduce: the build differs from the stored runs' (its command, flags, \
                     compiler or environment). The session's shift takes that difference, so \
                     its versions are not comparable with the history's: to track the new build, \
                     use a new history (--db); to undo this one, {}",
                    revs.join(", "),
                    rm.join("; ")
                )
            }
            Self::VersionsFailed => f.write_str(
                "rigor: a version failed or measured nothing (shown above), exit status 2",
            ),
            Self::IgnoreFailure => f.write_str(
                "rigor: to measure a command whose exit status is not zero, use \
                 -i/--ignore-failure",
            ),
            Self::BisectEnds {
                good,
                bad,
                ratio,
                interval,
                verdict,
            } => f.write_str(&bisect_ends(good, bad, *ratio, *interval, verdict)),
            Self::BisectStep(s) => f.write_str(&bisect_step(s)),
            Self::BisectStopped(why) => write!(f, "rigor: bisection stopped: {why}"),
            Self::BisectSkipped { rev, why } => write!(
                f,
                "rigor: {} is skipped, as `git bisect skip` would ({why}); the midpoint is the \
                 nearest version that builds",
                short(rev)
            ),
            Self::Candidate {
                candidate,
                baseline,
                branch,
                max_rounds,
                budget,
                seed,
            } => write!(
                f,
                "rigor: {candidate} against {} ({branch}): both built, then measured together \
                 until decided unless their builds are identical (at most {max_rounds} rounds{}), \
                 seed {seed}",
                short(baseline),
                budget.map_or(String::new(), |b| format!(", budget {b}")),
            ),
            Self::Unpaired {
                benchmark,
                rev,
                subject,
                branch,
            } => write!(
                f,
                "rigor: '{benchmark}' against {} {subject} ({branch}, not measured together: \
                 unpaired)",
                short(rev)
            ),
            Self::UnpairedVerdict => f.write_str(
                "rigor: warning: compared with one stored measurement, unpaired, without the \
                 between-session spread (the branch needs two stored versions for that): treat \
                 the verdict with care",
            ),
            Self::OtherCommit {
                files,
                measured,
                dirty,
                stored,
            } => write!(
                f,
                "rigor: warning: {files} was measured at commit {}{}, not at {}",
                short(measured),
                if *dirty {
                    " (with uncommitted changes)"
                } else {
                    ""
                },
                short(stored)
            ),
            Self::NoCommitRecorded {
                files,
                format,
                stored,
            } => write!(
                f,
                "rigor: note: {files} ({format}) records no commit, so that it was measured at \
                 {} cannot be checked",
                short(stored)
            ),
            Self::Label { rev, repo } => {
                write!(
                    f,
                    "rigor: '{rev}' is not a revision of {repo}: stored as a label"
                )
            }
            Self::OffLine {
                commit,
                branch,
                label,
                ordered,
            } => write!(
                f,
                "rigor: warning: {} is not on the first-parent line of {branch}: stored under its \
                 own label '{label}' instead of among {branch}'s commits{}",
                short(commit),
                if *ordered {
                    ", at the given --order"
                } else {
                    " (--order N places it in the history)"
                }
            ),
            Self::OneCommand { never, commands } => write!(
                f,
                "rigor: note: {} measured nothing in any version; the commands after `--` are {} \
                 separate commands — to benchmark them as one, quote it: -- '{}'",
                never
                    .iter()
                    .map(|c| format!("'{c}'"))
                    .collect::<Vec<_>>()
                    .join(", "),
                commands.len(),
                commands.join(" ")
            ),
            Self::Tracked(t) => f.write_str(&tracked_line(t)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_far_session_and_a_changed_build_say_how_to_take_them_out() {
        let far = Line::FarSession {
            session: 9,
            benchmark: "bench".into(),
            ratio: 3.1,
            benchmarks: 3,
        }
        .to_string();
        assert!(
            far.starts_with(
                "rigor: warning: session 9 measured 'bench' 3.1× against its typical session \
                 (and 2 other benchmarks)"
            ),
            "{far}"
        );
        assert!(far.contains("`rigor track rm --session 9`"), "{far}");
        let near = Line::FarSession {
            session: 4,
            benchmark: "b".into(),
            ratio: 1.45,
            benchmarks: 1,
        }
        .to_string();
        assert!(
            near.contains("'b' +45% against its typical session:"),
            "{near}"
        );
        let rebuilt = Line::Rebuilt {
            revs: vec!["a".repeat(40), "b".repeat(40)],
            sessions: vec![14],
        }
        .to_string();
        assert!(
            rebuilt.contains(&format!(
                "measured again ({}, {}) were built into other programs",
                "a".repeat(10),
                "b".repeat(10)
            )),
            "{rebuilt}"
        );
        assert!(
            rebuilt.ends_with("rigor track rm --session 14"),
            "{rebuilt}"
        );
    }

    #[test]
    fn skipped_versions_are_one_line_with_the_first_few_named() {
        let one = Line::Skipped(vec!["a".repeat(40)]).to_string();
        assert!(
            one.starts_with(&format!("rigor: {} is already stored", "a".repeat(10))),
            "{one}"
        );
        assert!(one.ends_with("--force measures it again"), "{one}");
        let many = Line::Skipped((0..9).map(|i| format!("v{i}")).collect()).to_string();
        assert!(
            many.starts_with("rigor: v0, v1, v2, v3, v4, v5, and 3 more are already stored"),
            "{many}"
        );
    }

    /// What a newest version without a change could still hide is said as a note (standard
    /// error), with its interval, or that it is unbounded, and the benchmark's name escaped.
    #[test]
    fn the_newest_versions_bound_is_a_note_with_its_interval() {
        let line = |benchmark: &str, interval| Line::NewestBound {
            rev: "a".repeat(40),
            benchmark: benchmark.into(),
            interval,
            among: 2,
            of: 3,
            since: None,
            noise: rigor_stats::series::NoiseSource::Own,
        };
        let bounded = line("sort", Some((0.9, 1.83)));
        assert!(!bounded.is_output());
        assert_eq!(
            bounded.to_string(),
            format!(
                "rigor: no change detected at the newest version {} in 2 of 3 benchmark(s), \
                 which does not exclude one: sort's newest level against the versions before it \
                 is −10.0% .. +83% (the widest interval, at the level detection tests it); more \
                 executions narrow it (-r, --precision)",
                "a".repeat(10)
            )
        );
        // A newest version built as the ones before it: the bound is of their build.
        let built = Line::NewestBound {
            rev: "a".repeat(40),
            benchmark: "sort".into(),
            interval: Some((0.9, 1.83)),
            among: 2,
            of: 3,
            since: Some("b".repeat(40)),
            noise: rigor_stats::series::NoiseSource::Sessions,
        };
        assert!(
            built.to_string().contains(&format!(
                "the newest version {} (built identically since {}: the bound is of that build) \
                 in 2 of 3 benchmark(s)",
                "a".repeat(10),
                "b".repeat(10)
            )),
            "{built}"
        );
        // Where the sessions' shifts make most of the width, more executions are not the cure.
        assert!(
            built
                .to_string()
                .ends_with("the sessions' shifts (the load changed between them): more anchors (--anchors) and a quieter machine narrow it, more executions little"),
            "{built}"
        );
        let above = line("sort", Some((1.009, 1.3))).to_string();
        assert!(
            above.contains(
                "+0.90% .. +30% (the widest interval, at the level detection tests it): it may \
                 well be a change, not shown to exceed the threshold; more executions"
            ),
            "{above}"
        );
        assert!(!bounded.to_string().contains("may well be"));
        let unbounded = line("sort", None).to_string();
        assert!(
            unbounded.contains("sort's newest level is too uncertain to bound a change"),
            "{unbounded}"
        );
        let hostile = line("b\x1b[31m", None).to_string();
        assert!(!hostile.contains('\x1b'), "{hostile:?}");
    }

    #[test]
    fn a_warning_is_said_as_one_on_standard_error_with_names_escaped() {
        let line = Line::Warning("'b\x1b[31m' has no cpu values; left out".into());
        assert!(!line.is_output());
        let text = line.to_string();
        assert!(text.starts_with("rigor: warning: 'b"), "{text}");
        assert!(!text.contains('\x1b'), "{text:?}");
    }
}
