//! Whether a result checked against a history (`rigor track check FILE`) was measured under the
//! conditions of the runs it is compared with: each benchmark's CPU share
//! ([`crate::conditions`]) where both sides recorded CPU times, else the machine's load average
//! around the run. A candidate measured under other conditions differs from its history by
//! them, which no interval of either holds: its verdict is withheld, with a warning that says
//! why.

use std::collections::HashMap;

use rigor_store::{ComparedWith, CpuShare, ResultFile, Warning};

use super::check::Checked;
use crate::conditions::{Contention, contention};

/// The CPU shares of the stored runs a check compares with, by benchmark, and whether each of
/// those runs is known to have been measured quiet.
#[derive(Debug, Clone, Default)]
pub(super) struct HistoryShares {
    /// Each benchmark's shares, one per run.
    pub by_benchmark: HashMap<String, Vec<CpuShare>>,
    /// What other processes used over the runs read (not known where any did not measure it:
    /// a run stored before rigor recorded it, an imported file).
    pub others: crate::conditions::OthersUse,
}

impl HistoryShares {
    /// The shares read for the runs of each benchmark (`runs`: a benchmark's name and the runs
    /// it is compared with), grouped by benchmark.
    pub fn of(
        read: &[rigor_history::RunCpuShare],
        runs: &[(String, Vec<rigor_history::RunId>)],
    ) -> Self {
        let by_benchmark = runs
            .iter()
            .map(|(name, ids)| {
                let shares = read
                    .iter()
                    .filter(|s| s.benchmark == *name && ids.contains(&s.run))
                    .map(|s| s.share)
                    .collect();
                (name.clone(), shares)
            })
            .collect();
        // One figure per run (each benchmark of a run reads the run's).
        let mut runs: Vec<(rigor_history::RunId, Option<f64>)> =
            read.iter().map(|s| (s.run, s.others_cpus)).collect();
        runs.sort_by_key(|r| r.0);
        runs.dedup_by_key(|r| r.0);
        let cpus = read.iter().map(|s| s.cpus).max().unwrap_or(1);
        Self {
            by_benchmark,
            others: crate::conditions::OthersUse::of_runs(runs.into_iter().map(|r| r.1), cpus),
        }
    }
}

/// The warnings that `candidate` was measured under other conditions than its history: one
/// [`Warning::ContentionDiffers`] per benchmark whose CPU share lies outside the range of
/// `history`'s shares for it (the runs it is compared with) by more than `tolerance`
/// ([`rigor_store::contention::differs`]), or a [`Warning::WaitsDiffer`] note where the side
/// with the lower share is known quiet. Where no benchmark has a share on both sides (an
/// imported file, a history of imports), the machine's load decides instead ([`load_differs`],
/// over the history's `sessions`).
pub(super) fn differing(
    candidate: &ResultFile,
    history: &HistoryShares,
    tolerance: f64,
    sessions: &[rigor_history::StoredSession],
) -> Vec<Warning> {
    let Contention {
        judged,
        mut warnings,
    } = contention(
        candidate,
        &history.by_benchmark,
        tolerance,
        rigor_store::ComparedWith::History,
        crate::conditions::Sides {
            candidate: crate::conditions::OthersUse::of(candidate),
            others: history.others,
        },
    );
    if !judged {
        warnings.extend(load_differs(candidate, sessions));
    }
    warnings
}

/// The warning that `candidate` was measured under another load than every one of the history's
/// `sessions` that recorded one: on a busy machine (the last minute's load at least half its
/// CPUs, [`rigor_store::warning::busy`])
/// where each session was quiet, or on a quiet one where each was busy. `None` where the
/// candidate or no session recorded its load (an imported file, another system), or where the
/// sessions were of both kinds (the history's spread between sessions then holds such a
/// difference).
pub(super) fn load_differs(
    candidate: &ResultFile,
    sessions: &[rigor_history::StoredSession],
) -> Option<rigor_store::Warning> {
    use rigor_store::warning::{busy, hundredths, peak_load};
    let p = &candidate.provenance;
    let load = peak_load(p.load_before, p.load_after)?;
    let cpus = candidate.environment.cpus.max(1);
    let stored: Vec<f64> = sessions
        .iter()
        .filter_map(|s| peak_load(s.load_before, s.load_after))
        .collect();
    if stored.is_empty() || stored.iter().any(|&l| busy(l, cpus) == busy(load, cpus)) {
        return None;
    }
    let (low, high) = stored.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &l| {
        (lo.min(l), hi.max(l))
    });
    Some(rigor_store::Warning::LoadDiffers {
        candidate: hundredths(load),
        history_low: hundredths(low),
        history_high: hundredths(high),
        cpus,
    })
}

/// The least time from every session of a history for which a check is withheld
/// ([`far_from_sessions`]): within an hour of its sessions a candidate is taken to share their
/// conditions.
const FAR_FLOOR_SECONDS: u64 = 3600;

/// The warning that a result measured at `started` lies farther in time from every one of the
/// history's `sessions` (those that measured something) than they span, and more than an hour
/// ([`FAR_FLOOR_SECONDS`]): how much sessions shift is known only over the time they span. On a
/// shared virtual machine, a C program's executions took 45.3 ms in three sessions within six
/// minutes (their spread 0.36%) and 51–57 ms two hours later, on a CPU throughout. `None`
/// within that reach, or where the result's start is unknown.
pub(super) fn far_from_sessions(
    started: Option<jiff::Timestamp>,
    sessions: &[rigor_history::StoredSession],
) -> Option<Warning> {
    let started = started?;
    let measured: Vec<_> = sessions.iter().filter(|s| !s.runs.is_empty()).collect();
    let first = measured.iter().map(|s| s.started).min()?;
    let last = measured
        .iter()
        .map(|s| s.ended.unwrap_or(s.started).max(s.started))
        .max()?;
    let seconds = |from: jiff::Timestamp, to: jiff::Timestamp| {
        u64::try_from(to.duration_since(from).as_secs()).unwrap_or(0)
    };
    let span = seconds(first, last);
    let (after, gap) = if started > last {
        (true, seconds(last, started))
    } else if started < first {
        (false, seconds(started, first))
    } else {
        return None;
    };
    (gap > span.max(FAR_FLOOR_SECONDS)).then_some(Warning::FarFromSessions {
        after,
        gap_seconds: gap,
        span_seconds: span,
        sessions: measured.len(),
    })
}

/// `checked` with the verdicts `warnings` concern withheld (a load that differs: every one; a
/// CPU share: its benchmark's), the warnings added: its comparisons inconclusive with unbounded
/// intervals, and its lines against the history marked (no estimate) — except a verdict whose
/// side measured under more contention was the faster beyond what contention explains
/// ([`crate::conditions::stands_despite_contention`] at `threshold`), which stands with a note.
pub(super) fn withheld(mut checked: Checked, warnings: Vec<Warning>, threshold: f64) -> Checked {
    for warning in warnings {
        // Far from the sessions: what that withholds is the spread between sessions, which a
        // verdict the history could not bound (confounded) has none of.
        let far = matches!(warning, Warning::FarFromSessions { .. });
        let mut stood = Vec::new();
        for v in checked.against_history.iter_mut().filter(|v| {
            crate::conditions::concerns(&warning, &v.benchmark) && !(far && v.change.confounded)
        }) {
            let shown = (v.change.verdict, v.change.interval);
            let note = crate::conditions::stood(
                &warning,
                &v.benchmark,
                shown,
                threshold,
                ComparedWith::History,
            );
            if let Some(note) = note {
                stood.push(note);
                continue;
            }
            v.withheld = Some(match warning {
                Warning::FarFromSessions { .. } => rigor_report::track_run::Withheld::Time,
                _ => rigor_report::track_run::Withheld::Load,
            });
            v.change.verdict = rigor_stats::compare::Verdict::Inconclusive;
            v.change.p_value = 1.0;
            v.change.p_adjusted = 1.0;
        }
        stood.extend(
            crate::conditions::withhold(&mut checked.comparisons, &warning, ComparedWith::History)
                .stood,
        );
        checked.warnings.push(warning);
        checked.warnings.extend(stood);
    }
    checked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conditions::{OthersUse, share_tolerance};
    use rigor_stats::compare::Verdict;
    use rigor_units::Seconds;

    use crate::track::check::tests::verdict;

    /// A result of benchmarks named by their executions' (CPU, wall) times, on 2 CPUs, with a
    /// load recorded.
    fn result(benchmarks: &[(&str, &[(f64, f64)])], load: Option<f64>) -> ResultFile {
        let mut r = ResultFile::new(rigor_units::Seed(1), Default::default());
        r.environment.cpus = 2;
        r.provenance.load_before = load;
        for (name, times) in benchmarks {
            let mut b = rigor_store::BenchmarkRecord::new(
                *name,
                "./b",
                rigor_store::Layout::new(false, true),
            );
            b.executions = times
                .iter()
                .enumerate()
                .map(|(i, &(cpu, wall))| rigor_store::ExecutionRecord {
                    preempted: None,
                    run_delay: None,
                    build: None,
                    round: i,
                    execution: i,
                    warmup: false,
                    wall: Seconds::new(wall),
                    user: Seconds::new(cpu),
                    sys: Seconds::ZERO,
                    max_rss: 0,
                    exit_code: None,
                    env_pad: None,
                    resolution: None,
                    metrics: Default::default(),
                })
                .collect();
            r.benchmarks.push(b);
        }
        r
    }

    /// A history's shares, its runs not known quiet.
    fn shares(of: &[(&str, &[f64])]) -> HistoryShares {
        let by_benchmark = of
            .iter()
            .map(|(name, s)| {
                let s = s
                    .iter()
                    .filter_map(|&x| CpuShare::of_times([(x, 1.0)]))
                    .collect();
                (name.to_string(), s)
            })
            .collect();
        HistoryShares {
            by_benchmark,
            others: OthersUse::default(),
        }
    }

    /// Runs over which others kept `used` CPUs of 2 busy.
    fn used(used: &[f64]) -> OthersUse {
        OthersUse::of_runs(used.iter().map(|&u| Some(u)), 2)
    }

    /// Measured in /tmp/s1 on a 2-CPU machine: a C program's executions had a CPU 99.7% of
    /// their time in quiet runs and 51% beside two busy loops, whose load average (1.12) still
    /// read busy in a quiet run 3 s after they stopped. The share decides, benchmark by
    /// benchmark; the load only where no benchmark has a share on both sides.
    #[test]
    fn each_benchmarks_cpu_share_decides_where_both_sides_have_one() {
        let history = shares(&[("contended", &[0.9968, 0.9976]), ("quiet", &[0.996, 0.997])]);
        let sessions = [session(Some(0.1), Some(0.2))];
        let busy_loops: &[(f64, f64)] = &[(0.051, 0.1), (0.052, 0.1), (0.099, 0.1)];
        let had_cpus: &[(f64, f64)] = &[(0.0997, 0.1), (0.0996, 0.1), (0.05, 0.1)];
        // A busy load average recorded, but only one benchmark was contended: only it is named.
        let candidate = result(
            &[("contended", busy_loops), ("quiet", had_cpus)],
            Some(1.12),
        );
        assert_eq!(
            differing(&candidate, &history, share_tolerance(0.01), &sessions),
            vec![contended()]
        );
        // The same candidate known to have had the machine to itself (others kept 0.02 CPUs
        // busy): its lower share is the code's own waiting (a sleep added), not contention, and
        // its verdict stands with a note.
        let mut waits = candidate.clone();
        waits.provenance.others_cpus = Some(0.02);
        let found = differing(&waits, &history, share_tolerance(0.01), &sessions);
        assert!(
            matches!(&found[..], [Warning::WaitsDiffer { candidate: 520, .. }]),
            "{found:?}"
        );
        assert!(found[0].is_note());
        let kept = withheld(
            lines(vec![verdict(1.05, Some((1.03, 1.07)), Verdict::Regression)]),
            found,
            0.01,
        );
        assert_eq!(kept.against_history[0].change.verdict, Verdict::Regression);
        // A quiet candidate against a contended history is withheld too.
        let contended = shares(&[("quiet", &[0.51, 0.6])]);
        assert!(matches!(
            differing(
                &result(&[("quiet", had_cpus)], None),
                &contended,
                0.005,
                &sessions
            )[..],
            [Warning::ContentionDiffers {
                candidate: 996,
                others_low: 510,
                ..
            }]
        ));
        // The same history known quiet (every run recorded that others kept its CPUs idle):
        // the quiet candidate's higher share is its code waiting less, and the verdict stands.
        let quiet_history = HistoryShares {
            others: used(&[0.01, 0.03]),
            ..contended.clone()
        };
        let quiet_candidate = result(&[("quiet", had_cpus)], None);
        assert!(matches!(
            differing(&quiet_candidate, &quiet_history, 0.005, &sessions)[..],
            [Warning::WaitsDiffer {
                candidate: 996,
                others_low: 510,
                ..
            }]
        ));
        // The trial in /tmp/s2: a candidate measured beside two busy loops (others kept 1.20
        // CPUs busy) whose executions mostly had a CPU throughout (median share 99.6%), three of
        // ten at 0.87, 0.49 and 0.58 and its mean time up by a quarter, against a quiet history
        // of a program that sleeps (96.7%–96.9%). Its higher share is not the code waiting
        // less: the busy side decides, every benchmark withheld.
        let trial: &[(f64, f64)] = &[
            (0.998, 1.0),
            (0.998, 1.0),
            (0.998, 1.0),
            (0.998, 1.0),
            (0.869, 1.0),
            (0.491, 1.0),
            (0.575, 1.0),
            (0.996, 1.0),
            (0.989, 1.0),
            (0.996, 1.0),
        ];
        let mut busy = result(&[("w", trial)], None);
        busy.provenance.others_cpus = Some(1.2047);
        let sleeps = HistoryShares {
            others: used(&[0.013, 0.006, 0.01]),
            ..shares(&[("w", &[0.967, 0.969])])
        };
        assert_eq!(
            differing(&busy, &sleeps, 0.005, &sessions),
            [Warning::OthersDiffer {
                against: rigor_store::ComparedWith::History,
                candidate: 120,
                others_low: 1,
                others_high: 1,
                cpus: 2,
            }]
        );
        // Beside the same steady load of about one CPU of two, one side at 1.00 (busy) and the
        // other at 0.998 (quiet) are not other conditions: the shares decide.
        let mut steady = busy.clone();
        steady.provenance.others_cpus = Some(1.0);
        let just_quiet = HistoryShares {
            others: used(&[0.998, 0.99]),
            ..sleeps.clone()
        };
        let found = differing(&steady, &just_quiet, 0.005, &sessions);
        assert!(
            !found.is_empty()
                && !found
                    .iter()
                    .any(|w| matches!(w, Warning::OthersDiffer { .. })),
            "{found:?}"
        );
        // Against a history measured busy too, or one not known, the shares decide.
        for others in [used(&[1.1, 1.3]), OthersUse::default()] {
            let history = HistoryShares {
                others,
                ..sleeps.clone()
            };
            assert!(matches!(
                differing(&busy, &history, 0.005, &sessions)[..],
                [Warning::ContentionDiffers { .. }]
            ));
        }
        // No CPU times in the candidate (an imported file), or no history shares: the load
        // decides, busy against quiet sessions.
        let imported = result(&[("contended", &[(0.0, 0.1)])], Some(3.0));
        assert!(matches!(
            differing(&imported, &history, 0.005, &sessions)[..],
            [Warning::LoadDiffers { candidate: 300, .. }]
        ));
        let no_history = result(&[("contended", busy_loops)], Some(3.0));
        assert!(matches!(
            differing(&no_history, &HistoryShares::default(), 0.005, &sessions)[..],
            [Warning::LoadDiffers { .. }]
        ));
    }

    /// A history is known quiet (or busy) only where every run read recorded that others kept
    /// its CPUs idle (or busy); each benchmark keeps the shares of its own runs.
    #[test]
    fn a_history_is_quiet_or_busy_only_where_every_run_read_was() {
        let read =
            |run: i64, benchmark: &str, others_cpus: Option<f64>| rigor_history::RunCpuShare {
                run: rigor_history::RunId(run),
                benchmark: benchmark.into(),
                share: CpuShare::of_times([(0.99, 1.0)]).unwrap(),
                others_cpus,
                cpus: 2,
            };
        let runs = vec![
            ("a".to_string(), vec![rigor_history::RunId(1)]),
            (
                "b".to_string(),
                vec![rigor_history::RunId(1), rigor_history::RunId(2)],
            ),
        ];
        let quiet = [
            read(1, "a", Some(0.1)),
            read(1, "b", Some(0.1)),
            read(2, "b", Some(0.9)),
        ];
        let shares = HistoryShares::of(&quiet, &runs);
        assert!(shares.others.quiet());
        assert_eq!(
            (
                shares.by_benchmark["a"].len(),
                shares.by_benchmark["b"].len()
            ),
            (1, 2)
        );
        for other in [Some(1.0), None] {
            let one_not = [read(1, "a", Some(0.1)), read(2, "b", other)];
            assert!(!HistoryShares::of(&one_not, &runs).others.quiet());
        }
        assert!(!HistoryShares::of(&[], &runs).others.quiet());
        // Busy only where every run was.
        let busy = [read(1, "a", Some(1.0)), read(2, "b", Some(1.5))];
        assert!(HistoryShares::of(&busy, &runs).others.busy());
        assert!(!HistoryShares::of(&quiet, &runs).others.busy());
    }

    /// The trial's contended benchmark: a CPU 52% of its time against 99.7–99.8%.
    fn contended() -> Warning {
        Warning::ContentionDiffers {
            benchmark: "contended".into(),
            against: rigor_store::ComparedWith::History,
            candidate: 520,
            candidate_high: None,
            others_low: 997,
            others_high: 998,
        }
    }

    /// A check of these lines against the history, nothing withheld yet.
    fn lines(against_history: Vec<super::super::check::HistoryVerdict>) -> Checked {
        Checked {
            baseline: Vec::new(),
            comparisons: Vec::new(),
            suite: None,
            warnings: Vec::new(),
            against_history,
        }
    }

    /// A session of one run from `started` to `ended` (times of day on one date).
    fn at(started: &str, ended: &str) -> rigor_history::StoredSession {
        let t = |hm: &str| format!("2026-11-28T{hm}:00Z").parse().unwrap();
        rigor_history::StoredSession {
            started: t(started),
            ended: Some(t(ended)),
            runs: vec![rigor_history::RunId(1)],
            ..session(None, None)
        }
    }

    /// The trial's history: three sessions between 08:48 and 08:54, and a quiet run of the same
    /// code at 10:40 that read +17% (the machine's, on a CPU throughout).
    #[test]
    fn a_result_farther_from_the_sessions_than_they_span_and_an_hour_is_withheld() {
        let burst = [
            at("08:48", "08:49"),
            at("08:50", "08:51"),
            at("08:53", "08:54"),
        ];
        let time = |hm: &str| Some(format!("2026-11-28T{hm}:00Z").parse().unwrap());
        assert_eq!(
            far_from_sessions(time("10:40"), &burst),
            Some(Warning::FarFromSessions {
                after: true,
                gap_seconds: 6360,
                span_seconds: 360,
                sessions: 3,
            })
        );
        assert_eq!(
            far_from_sessions(time("10:40"), &burst)
                .unwrap()
                .to_string()[..62],
            *"the result was measured 1 h 46 min after the last of the histo"
        );
        assert!(matches!(
            far_from_sessions(time("06:00"), &burst),
            Some(Warning::FarFromSessions {
                after: false,
                gap_seconds: 10080,
                ..
            })
        ));
        // Within the hour, within the span, or among the sessions: nothing withheld.
        assert_eq!(far_from_sessions(time("09:50"), &burst), None);
        let spread = [at("00:10", "00:20"), at("05:00", "05:30")];
        assert_eq!(far_from_sessions(time("10:20"), &spread), None);
        assert_eq!(far_from_sessions(time("02:00"), &spread), None);
        // Sessions that measured nothing do not count; no start, no judgement.
        let mut empty = at("23:00", "23:30");
        empty.runs.clear();
        assert_eq!(far_from_sessions(time("08:40"), &[empty.clone()]), None);
        assert_eq!(far_from_sessions(None, &burst), None);
        // A verdict the history could not bound keeps its own reason.
        let mut confounded = verdict(1.2, Some((0.9, 1.6)), Verdict::Inconclusive);
        confounded.change.confounded = true;
        let checked = withheld(
            lines(vec![
                confounded,
                verdict(1.2, Some((1.1, 1.3)), Verdict::Regression),
            ]),
            far_from_sessions(time("10:40"), &burst)
                .into_iter()
                .collect(),
            0.01,
        );
        let [kept, far] = &checked.against_history[..] else {
            panic!("two lines")
        };
        assert_eq!(kept.view().withheld, None);
        assert_eq!(
            far.view().withheld,
            Some(rigor_report::track_run::Withheld::Time)
        );
        assert_eq!(far.change.verdict, Verdict::Inconclusive);
    }

    #[test]
    fn contention_withholds_its_own_benchmarks_verdict_alone() {
        let named = |name: &str| {
            let mut v = verdict(1.3, Some((1.2, 1.4)), Verdict::Regression);
            v.benchmark = name.into();
            v
        };
        let checked = withheld(
            lines(vec![named("contended"), named("quiet")]),
            vec![contended()],
            0.01,
        );
        let [contended, quiet] = &checked.against_history[..] else {
            panic!("two lines")
        };
        assert_eq!(contended.change.verdict, Verdict::Inconclusive);
        assert!(contended.view().withheld.is_some());
        assert_eq!(quiet.change.verdict, Verdict::Regression);
        assert!(quiet.view().withheld.is_none());
        assert_eq!(checked.warnings.len(), 1);
    }

    /// Contention only slows a program: a side measured under more of it that was still the
    /// faster, by more than the threshold even were the load to have sped it up by 5%, keeps
    /// its verdict, with a note; slower there, or faster by less, it is withheld.
    #[test]
    fn a_verdict_that_contention_cannot_explain_stands() {
        let line = |name: &str, ratio: f64, lo: f64, hi: f64, v: Verdict| {
            let mut line = verdict(ratio, Some((lo, hi)), v);
            line.benchmark = name.into();
            line
        };
        // The candidate contended (a CPU 52% of its time, the history's 99.7%).
        let faster = |lo: f64, hi: f64| {
            withheld(
                lines(vec![line(
                    "contended",
                    (lo + hi) / 2.0,
                    lo,
                    hi,
                    Verdict::Improvement,
                )]),
                vec![contended()],
                0.01,
            )
        };
        let stood = faster(0.45, 0.55);
        assert_eq!(
            stood.against_history[0].change.verdict,
            Verdict::Improvement
        );
        assert!(stood.against_history[0].view().withheld.is_none());
        let [warning, note] = &stood.warnings[..] else {
            panic!("{:?}", stood.warnings)
        };
        assert_eq!(warning, &contended());
        assert_eq!(
            note,
            &Warning::StandsDespiteContention {
                benchmark: "contended".into(),
                against: ComparedWith::History,
                candidate_contended: true,
            }
        );
        assert!(note.is_note());
        // 4% faster at its interval's end: a load that held the clock up explains it.
        let near = faster(0.93, 0.96);
        assert_eq!(
            near.against_history[0].change.verdict,
            Verdict::Inconclusive
        );
        assert_eq!(near.warnings.len(), 1);
        // Slower where it was contended: withheld, however much.
        let slower = withheld(
            lines(vec![line("contended", 2.6, 2.4, 2.8, Verdict::Regression)]),
            vec![contended()],
            0.01,
        );
        assert_eq!(
            slower.against_history[0].change.verdict,
            Verdict::Inconclusive
        );
        // A quiet candidate against a history measured beside busy loops: slower by 2.6 times
        // stands (a `--fail-on regression` gate fails on it), faster is withheld.
        let quiet = Warning::ContentionDiffers {
            benchmark: "b".into(),
            against: ComparedWith::History,
            candidate: 996,
            candidate_high: None,
            others_low: 510,
            others_high: 600,
        };
        let checked = withheld(
            lines(vec![
                line("b", 2.6, 2.4, 2.8, Verdict::Regression),
                line("b", 0.5, 0.45, 0.55, Verdict::Improvement),
            ]),
            vec![quiet],
            0.01,
        );
        let verdicts: Vec<Verdict> = checked
            .against_history
            .iter()
            .map(|v| v.change.verdict)
            .collect();
        assert_eq!(verdicts, [Verdict::Regression, Verdict::Inconclusive]);
        assert!(matches!(
            checked.warnings[..],
            [
                Warning::ContentionDiffers { .. },
                Warning::StandsDespiteContention {
                    candidate_contended: false,
                    ..
                }
            ]
        ));
    }

    fn session(before: Option<f64>, after: Option<f64>) -> rigor_history::StoredSession {
        rigor_history::StoredSession {
            id: rigor_history::SessionId(1),
            machine: "m".into(),
            kind: rigor_history::SessionKind::Run,
            started: "2026-01-01T00:00:00Z".parse().unwrap(),
            ended: None,
            load_before: before,
            load_after: after,
            rigor_version: "0".into(),
            runs: Vec::new(),
        }
    }

    #[test]
    fn a_candidate_measured_busy_against_a_quiet_history_or_the_reverse_is_withheld() {
        let candidate = |before: Option<f64>, after: Option<f64>| {
            let mut r = ResultFile::new(rigor_units::Seed(1), Default::default());
            r.environment.cpus = 2;
            r.provenance.load_before = before;
            r.provenance.load_after = after;
            r
        };
        let quiet = [session(Some(0.1), Some(0.4)), session(Some(0.0), None)];
        // Busy at its end (the minute's average lags a load that began just before).
        assert_eq!(
            load_differs(&candidate(Some(0.3), Some(2.5)), &quiet),
            Some(rigor_store::Warning::LoadDiffers {
                candidate: 250,
                history_low: 0,
                history_high: 40,
                cpus: 2
            })
        );
        let busy = [session(Some(2.2), Some(3.0))];
        assert!(matches!(
            load_differs(&candidate(Some(0.2), Some(0.1)), &busy),
            Some(rigor_store::Warning::LoadDiffers { candidate: 20, .. })
        ));
        // Alike, a history of both kinds (its sessions' spread holds such a difference), or a
        // load unknown on either side: nothing withheld.
        assert_eq!(load_differs(&candidate(Some(0.2), None), &quiet), None);
        let mixed = [session(Some(0.1), None), session(None, Some(2.0))];
        assert_eq!(load_differs(&candidate(Some(3.0), None), &mixed), None);
        assert_eq!(load_differs(&candidate(None, None), &quiet), None);
        assert_eq!(
            load_differs(&candidate(Some(3.0), None), &[session(None, None)]),
            None
        );
        // Withheld: every line inconclusive, no estimate, and the warning added.
        let checked = withheld(
            lines(vec![verdict(3.0, Some((2.9, 3.1)), Verdict::Regression)]),
            load_differs(&candidate(Some(3.0), None), &quiet)
                .into_iter()
                .collect(),
            0.01,
        );
        let v = &checked.against_history[0];
        assert_eq!(v.change.verdict, Verdict::Inconclusive);
        assert_eq!(
            v.view().withheld,
            Some(rigor_report::track_run::Withheld::Load)
        );
        assert_eq!(checked.warnings.len(), 1);
    }
}
