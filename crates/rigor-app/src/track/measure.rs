//! Measuring versions in sessions (`rigor track run`): each session is a batch of versions
//! measured together in shuffled interleaved rounds, with *anchors* — versions already stored,
//! measured again beside the new ones — so that every session is tied to the history and the
//! shift a session puts on every version it measures can be taken out (docs/methodology.md,
//! "Sessions"). Versions come from a git repository (each built once in a kept checkout, what
//! the build produced hashed) or from a simulated project with known truth.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rigor_history::{NewSession, Role, SessionEnd};
use rigor_report::track_run::{PrecisionCost, PrecisionView};
use rigor_store::LoadAverage;
use rigor_units::Seed;

use super::*;

/// Removes what a killed predecessor left half-written in the results folder: `*.tmp` files
/// (atomic writes interrupted before their rename) older than a minute.
fn prune_results(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for e in entries.flatten() {
        let path = e.path();
        let stale = e
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t < old);
        if stale && path.extension().is_some_and(|x| x == "tmp") {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Batches of `n` versions of at most `size` each, as equal as they can be (22 in batches of 20:
/// 11 and 11), so that no version is left alone in a session of its own.
pub fn balanced(n: usize, size: usize) -> Vec<std::ops::Range<usize>> {
    if n == 0 {
        return Vec::new();
    }
    let count = n.div_ceil(size.max(1));
    let (base, extra) = (n / count, n % count);
    let mut start = 0;
    (0..count)
        .map(|k| {
            let len = base + usize::from(k < extra);
            let r = start..start + len;
            start += len;
            r
        })
        .collect()
}

/// The generator of a run's random choices of anchors and simulated sessions: from its seed, so
/// that the run is reproducible.
fn choices(seed: Seed) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed.get() ^ 0x616e_6368_6f72_7321)
}

/// Measures the versions `settings` names that the history does not hold yet (all with
/// `force`), in balanced batches, each a session with its anchors, and stores each version as
/// its batch is measured. Resumable: a version that failed before, or whose every benchmark is
/// stored, is skipped; a version whose checkout or preparation fails is recorded as failed and
/// the run goes on; Ctrl-C stops after the current batch's data is saved and stored.
pub fn run_versions(
    history: &mut dyn History,
    settings: &TrackRunSettings,
    experiment: &RunSettings,
    executor: &mut dyn Executor,
    stop: StopSignal,
    progress: &mut dyn Progress,
    observer: &mut dyn TrackObserver,
) -> Result<Tracked> {
    prune_results(&settings.results_dir);
    let mut tracked = Tracked::default();
    let mut pending = Vec::new();
    let names: Vec<&str> = experiment
        .benchmarks
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    for commit in &settings.commits {
        let version = settings.source.resolve(commit)?;
        let has_run = history.has_run(&settings.key, &version.rev)?;
        tracked.again += usize::from(settings.force && has_run);
        let stored = if !settings.force && has_run {
            Some(history.stored_benchmarks(&settings.key, &version.rev)?)
        } else {
            None
        };
        match stored {
            // Only a failure is stored for it.
            Some(stored) if stored.is_empty() => tracked.versions.push((
                version,
                VersionOutcome::Skipped {
                    failed_before: true,
                },
            )),
            Some(stored) if names.iter().all(|n| stored.iter().any(|s| s == n)) => {
                tracked.versions.push((
                    version,
                    VersionOutcome::Skipped {
                        failed_before: false,
                    },
                ))
            }
            _ => pending.push(version),
        }
    }
    let skipped = |failed: bool| -> Vec<VersionInfo> {
        tracked
            .versions
            .iter()
            .filter(|(_, o)| {
                matches!(o, VersionOutcome::Skipped { failed_before } if *failed_before == failed)
            })
            .map(|v| v.0.clone())
            .collect()
    };
    let (stored, failed_before) = (skipped(false), skipped(true));
    if !stored.is_empty() || !failed_before.is_empty() {
        observer.skipped(&stored, &failed_before);
    }
    let mut rng = choices(experiment.runner.seed);
    let mut m = Measuring::new(settings, experiment, executor, stop, progress, observer);
    let size = if experiment.runner.build.is_some() {
        1
    } else {
        settings.batch
    };
    let batches = balanced(pending.len(), size);
    let total = pending.len();
    for range in batches {
        if m.stop.is_requested() {
            break;
        }
        let batch = &pending[range.clone()];
        let anchors = pick_anchors(
            history.as_read(),
            &settings.key,
            &names,
            batch,
            settings.anchors,
            &mut rng,
        )?;
        m.observer
            .batch_started(batch, &anchors, range.start, total);
        let (outcomes, report) =
            measure_session(history.as_write(), &mut m, batch, &anchors, &mut rng)?;
        tracked.versions.extend(outcomes);
        tracked.sessions.extend(report);
    }
    tracked.interrupted = m.stop.is_requested();
    Ok(tracked)
}

/// Measures every version `settings` names as one session with the given anchors, into a
/// history that may only be written (a farm's job collects its results to store them as it
/// completes).
#[allow(clippy::too_many_arguments)]
pub fn measure_versions(
    history: &mut dyn HistoryWrite,
    settings: &TrackRunSettings,
    experiment: &RunSettings,
    anchors: &[VersionInfo],
    executor: &mut dyn Executor,
    stop: StopSignal,
    progress: &mut dyn Progress,
    observer: &mut dyn TrackObserver,
) -> Result<Tracked> {
    let pending = settings
        .commits
        .iter()
        .map(|c| settings.source.resolve(c))
        .collect::<Result<Vec<_>>>()?;
    let mut rng = choices(experiment.runner.seed);
    let mut m = Measuring::new(settings, experiment, executor, stop, progress, observer);
    m.observer
        .batch_started(&pending, anchors, 0, pending.len());
    let (versions, report) = measure_session(history, &mut m, &pending, anchors, &mut rng)?;
    Ok(Tracked {
        versions,
        sessions: report.into_iter().collect(),
        interrupted: m.stop.is_requested(),
        again: 0,
    })
}

/// What measuring needs besides the history.
pub(super) struct Measuring<'a> {
    pub(super) settings: &'a TrackRunSettings,
    pub(super) experiment: &'a RunSettings,
    pub(super) executor: &'a mut dyn Executor,
    pub(super) stop: StopSignal,
    pub(super) progress: &'a mut dyn Progress,
    pub(super) observer: &'a mut dyn TrackObserver,
}

impl<'a> Measuring<'a> {
    /// Measuring `settings`' versions with `experiment` on `executor`, until `stop`, shown on
    /// `progress` and told to `observer`.
    pub(super) fn new(
        settings: &'a TrackRunSettings,
        experiment: &'a RunSettings,
        executor: &'a mut dyn Executor,
        stop: StopSignal,
        progress: &'a mut dyn Progress,
        observer: &'a mut dyn TrackObserver,
    ) -> Self {
        Self {
            settings,
            experiment,
            executor,
            stop,
            progress,
            observer,
        }
    }
}

/// What a session did to each new version, and its report (none when nothing was measured).
type SessionOutcome = (Vec<(VersionInfo, VersionOutcome)>, Option<SessionReport>);

/// One session: the new versions and the anchors prepared, measured together, stored.
fn measure_session(
    history: &mut dyn HistoryWrite,
    m: &mut Measuring<'_>,
    versions: &[VersionInfo],
    anchors: &[VersionInfo],
    rng: &mut ChaCha8Rng,
) -> Result<SessionOutcome> {
    let settings = m.settings;
    let machine = this_machine(Some(&settings.key.machine));
    let branch = settings.key.branch.as_str();
    let facts = settings.source.session(rng);
    let session = history.begin_session(&NewSession {
        machine: &machine,
        kind: settings.kind,
        started: jiff::Timestamp::now(),
        load_before: facts.load_before,
        rigor_version: env!("CARGO_PKG_VERSION"),
    })?;
    let mut done = Vec::new();
    let mut ready = Vec::new();
    for (v, role) in versions
        .iter()
        .map(|v| (v, Role::New))
        .chain(anchors.iter().map(|v| (v, Role::Anchor)))
    {
        // Stopped: the versions not prepared yet are not measured, and not failures either
        // (a failure is stored, and a stored version is skipped the next time).
        if m.stop.is_requested() {
            break;
        }
        match settings.source.prepare(v, role, &m.stop) {
            Ok(r) => ready.push(r),
            // An anchor that cannot be prepared any more is left out; so is a build the stop
            // ended.
            Err(_) if role == Role::Anchor || m.stop.is_requested() => {}
            Err(e) => {
                let reason = e.to_string();
                history.record_failure(&Failure {
                    session: Some(session),
                    ..Failure::new(v, &machine, branch, &reason)
                })?;
                let outcome = VersionOutcome::Failed {
                    reason,
                    exited: false,
                };
                m.observer.version_done(v, &outcome);
                done.push((v.clone(), outcome));
            }
        }
    }
    let mut report = None;
    if ready.iter().any(|r| r.role == Role::New) && !m.stop.is_requested() {
        let measured = measure_together(history, m, &ready, &machine, session, &facts, false)?;
        let failed = ready
            .iter()
            .zip(&measured.outcomes)
            .filter(|(r, o)| r.role == Role::New && matches!(o, VersionOutcome::Failed { .. }))
            .count();
        for (r, outcome) in ready.iter().zip(measured.outcomes) {
            if r.role == Role::New {
                m.observer.version_done(&r.version, &outcome);
                done.push((r.version.clone(), outcome));
            }
        }
        let load_after = settings.source.load_after(&facts);
        let cpus = machine.environment.cpus;
        let busy = |l: Option<f64>| {
            l.is_some_and(|one| {
                LoadAverage {
                    one,
                    five: one,
                    fifteen: one,
                }
                .is_high(cpus)
            })
        };
        // Busy as `rigor run` and `rigor analyze` judge a run: by what other processes used of
        // the CPUs while it measured, where known; else by the load average.
        let busy = match measured.others_cpus {
            Some(others) => rigor_store::warning::busy(others, cpus),
            None => busy(facts.load_before) || busy(load_after),
        };
        report = Some(SessionReport {
            id: session,
            versions: names_of(&ready, Role::New),
            failed,
            anchors: names_of(&ready, Role::Anchor),
            load: (facts.load_before, load_after),
            others_cpus: measured.others_cpus,
            busy,
            measured: measured.time,
            precision: measured.precision,
        });
    }
    history.end_session(
        session,
        &SessionEnd {
            ended: jiff::Timestamp::now(),
            load_after: report.as_ref().and_then(|r| r.load.1),
        },
    )?;
    if let Some(r) = &report {
        m.observer.session_done(r);
    }
    Ok((done, report))
}

fn names_of(ready: &[Ready], role: Role) -> Vec<String> {
    ready
        .iter()
        .filter(|r| r.role == role)
        .map(|r| r.version.rev.clone())
        .collect()
}

/// Two versions measured together in shuffled interleaved rounds until the comparison of the
/// second with the first is decided (an anytime-valid confidence sequence: regression,
/// improvement or equivalent) or `budget` / `max_rounds` is spent, in one session of `kind`;
/// each stored with `role` when `store`. The comparison of the second against the first, or why
/// it could not be measured.
#[allow(clippy::too_many_arguments)]
pub fn measure_until_decided(
    history: &mut dyn HistoryWrite,
    settings: &TrackRunSettings,
    experiment: &RunSettings,
    pair: [(&VersionInfo, Option<&Ready>); 2],
    kind: rigor_history::SessionKind,
    role: Role,
    bounds: (Option<Seconds>, usize),
    executor: &mut dyn Executor,
    stop: StopSignal,
    progress: &mut dyn Progress,
) -> Result<std::result::Result<Ratio, String>> {
    let machine = this_machine(Some(&settings.key.machine));
    let mut ready = Vec::new();
    for (v, given) in pair {
        match given {
            Some(r) => ready.push(Ready { role, ..r.clone() }),
            None => match settings.source.prepare(v, role, &stop) {
                Ok(r) => ready.push(r),
                Err(e) => return Ok(Err(format!("{}: {e}", short(&v.rev)))),
            },
        }
    }
    let mut decided = experiment.clone();
    decided.set_mode(crate::settings::Mode::UntilDecided {
        budget: bounds.0,
        max_rounds: bounds.1.max(8),
        min_rounds: rigor_stats::confseq::SequentialConfig::default().min_rounds,
    });
    let mut rng = choices(experiment.runner.seed);
    let facts = settings.source.session(&mut rng);
    let session = history.begin_session(&NewSession {
        machine: &machine,
        kind,
        started: jiff::Timestamp::now(),
        load_before: facts.load_before,
        rigor_version: env!("CARGO_PKG_VERSION"),
    })?;
    let mut quiet = NoObserver;
    let mut m = Measuring::new(settings, &decided, executor, stop, progress, &mut quiet);
    let measured = measure_together(history, &mut m, &ready, &machine, session, &facts, true)?;
    history.end_session(
        session,
        &SessionEnd {
            ended: jiff::Timestamp::now(),
            load_after: settings.source.load_after(&facts),
        },
    )?;
    // Which version failed, by its name: `track check --candidate` of a crashing candidate said
    // only "warm-up execution 1: … SIGSEGV", not whether the candidate or the baseline crashed.
    if let Some(why) = measured.outcomes.iter().zip(&ready).find_map(|(o, r)| {
        let why = match o {
            VersionOutcome::Failed { reason, .. } => reason.clone(),
            VersionOutcome::Measured { nothing, .. } if !nothing.is_empty() => {
                format!("{} measured nothing", nothing.join(", "))
            }
            _ => return None,
        };
        Some(format!(
            "{}: {why}",
            rigor_report::track_run::short(&r.version.rev)
        ))
    }) {
        return Ok(Err(why));
    }
    Ok(match measured.comparisons.first() {
        Some(c) => Ok(Ratio {
            ratio: c.comparison.ratio,
            interval: c.comparison.ci.map(|i| (i.lower, i.upper)),
            verdict: c.comparison.verdict,
            at_resolution: c.comparison.at_resolution,
            spent: measured.sequential.as_ref().and_then(spent),
        }),
        None => Err("the two versions could not be compared".to_string()),
    })
}

/// What ended a sequence that did not decide, as the gate's line names it.
fn spent(s: &rigor_store::SequentialRecord) -> Option<rigor_report::track_run::Spent> {
    use rigor_report::track_run::Spent;
    use rigor_store::SequentialStopRecord as Stop;
    match s.stop {
        Stop::MaxRounds => Some(Spent::Rounds(s.rounds)),
        Stop::Budget => Some(Spent::Budget(s.rounds)),
        Stop::Interrupted => Some(Spent::Interrupted),
        Stop::Decided | Stop::Failed => None,
    }
}

/// A [`TrackObserver`] that hears nothing.
pub(super) struct NoObserver;
impl TrackObserver for NoObserver {}

/// What measuring versions together gave.
pub(super) struct Measurement {
    /// Each version's outcome, in the order given.
    pub(super) outcomes: Vec<VersionOutcome>,
    /// Every version against the first, when compared.
    pub(super) comparisons: Vec<crate::comparisons::Computed>,
    /// Measured until decided: how the first comparison's sequence ended.
    pub(super) sequential: Option<rigor_store::SequentialRecord>,
    /// Measured time: all of it, and the anchors' part.
    pub(super) time: (Seconds, Seconds),
    /// With `--precision`/`--budget`: what measuring until each level was known cost.
    pub(super) precision: Option<PrecisionView>,
    /// The CPUs other processes kept busy over the measuring, when known (as `rigor run`
    /// records it: [`rigor_store::Provenance::others_cpus`]).
    pub(super) others_cpus: Option<f64>,
}

/// Why a (version, benchmark) stopped short of the target, as the cost line names it (`None`:
/// it reached it).
fn short_of(stop: rigor_runner::KnownStop) -> Option<&'static str> {
    use rigor_runner::KnownStop as S;
    match stop {
        S::Reached => None,
        S::AtResolution => Some("the timer's resolution"),
        S::MaxRounds | S::NoTarget => Some("--max-runs"),
        S::BudgetSpent => Some("--budget"),
        S::Interrupted => Some("the interruption"),
        S::Failed => Some("a failure"),
    }
}

/// The cost of measuring until each level was known, per benchmark of `experiment` over the
/// `versions` measured together (the batch's benchmarks are version-major: version `v`'s
/// benchmark `k` is `v × benchmarks + k`).
pub(super) fn precision_cost(
    known: &rigor_runner::KnownReport,
    result: &ResultFile,
    experiment: &RunSettings,
    versions: usize,
) -> PrecisionView {
    let n = experiment.benchmarks.len();
    let target = match experiment.mode {
        crate::settings::Mode::UntilKnown { precision, .. } => precision.map(|p| p.get()),
        _ => None,
    };
    let benchmarks = experiment
        .benchmarks
        .iter()
        .enumerate()
        .map(|(k, b)| {
            let pairs: Vec<usize> = (0..versions).map(|v| v * n + k).collect();
            let mut executions: Vec<usize> = pairs
                .iter()
                .filter_map(|&i| known.benchmarks.get(i))
                .map(|p| p.executions)
                .collect();
            executions.sort_unstable();
            let pick = |i: usize| executions.get(i).copied().unwrap_or(0);
            let measured: f64 = pairs
                .iter()
                .filter_map(|&i| result.benchmarks.get(i))
                .flat_map(|r| &r.executions)
                .map(|e| e.wall.get())
                .sum();
            let mut short: Vec<(String, usize)> = Vec::new();
            for why in pairs
                .iter()
                .filter_map(|&i| known.benchmarks.get(i))
                .filter_map(|p| short_of(p.stop))
            {
                match short.iter_mut().find(|(w, _)| w == why) {
                    Some((_, c)) => *c += 1,
                    None => short.push((why.to_string(), 1)),
                }
            }
            PrecisionCost {
                name: b.name.clone(),
                executions: (
                    pick(0),
                    pick(executions.len() / 2),
                    pick(executions.len().saturating_sub(1)),
                ),
                measured: Seconds(measured),
                versions: executions.len(),
                short,
            }
        })
        .collect();
    PrecisionView { target, benchmarks }
}

#[cfg(test)]
mod tests {

    use super::*;

    /// Hears the sessions' reports.
    #[derive(Default)]
    struct Sessions(Vec<SessionReport>);
    impl TrackObserver for Sessions {
        fn session_done(&mut self, s: &SessionReport) {
            self.0.push(s.clone());
        }
    }

    /// `track run --simulate versions=4` of a quiet (1%) and a noisy (15%) benchmark with
    /// `options` applied to its run request: its sessions' reports and its history.
    fn track_run_with(
        dir: &Path,
        options: impl FnOnce(&mut crate::settings::RunRequest),
    ) -> Result<(Vec<SessionReport>, rigor_history::SqliteHistory)> {
        let mut run = crate::settings::RunRequest {
            commands: vec![
                "mean=10ms,execution=1%".into(),
                "mean=10ms,execution=15%".into(),
            ],
            names: vec!["quiet".into(), "noisy".into()],
            seed: Some(Seed::from(11)),
            ..crate::settings::RunRequest::default()
        };
        options(&mut run);
        let resolved = TrackRequest {
            repo: dir.to_path_buf(),
            project: Some("versions=4".into()),
            key: SeriesKey::new("m", "main"),
            force: false,
            batch: 20,
            anchors: 0,
            artifacts: Vec::new(),
            checkouts: dir.join("checkouts"),
            keep: 1,
            results_dir: dir.join("runs"),
            kind: rigor_history::SessionKind::Run,
            run,
        }
        .resolve()?;
        let mut settings = resolved.settings;
        settings.commits = (0..4)
            .map(crate::simulated_project::SimProject::label)
            .collect();
        let mut history = rigor_history::SqliteHistory::open(&dir.join("h.db")).unwrap();
        let mut sessions = Sessions::default();
        run_versions(
            &mut history,
            &settings,
            &resolved.experiment,
            &mut rigor_runner::SimulatedExecutor::new(11),
            StopSignal::new(),
            &mut crate::recorder::NoProgress,
            &mut sessions,
        )?;
        Ok((sessions.0, history))
    }

    #[test]
    fn with_a_precision_a_noisy_benchmark_gets_more_executions_and_every_level_reaches_it() {
        let dir = tempfile::tempdir().unwrap();
        let (sessions, history) = track_run_with(dir.path(), |r| {
            r.precision = Some(rigor_units::Fraction::percent(2.0).unwrap());
        })
        .unwrap();
        let cost = sessions[0].precision.clone().unwrap();
        assert_eq!(cost.target, Some(0.02));
        let (quiet, noisy) = (&cost.benchmarks[0], &cost.benchmarks[1]);
        assert_eq!(
            (quiet.name.as_str(), noisy.name.as_str()),
            ("quiet", "noisy")
        );
        // The quiet one is known after the 10 executions of the pilot; the noisy one needs
        // about (1.96 × 15% / 2%)² ≈ 216 executions.
        assert_eq!(quiet.executions, (10, 10, 10));
        assert!(noisy.executions.0 > 100, "{noisy:?}");
        assert!(quiet.short.is_empty() && noisy.short.is_empty(), "{cost:?}");
        assert_eq!((quiet.versions, noisy.versions), (4, 4));
        // The levels the history stores (and change detection uses) are known to ±2%.
        let levels = super::super::levels::series_levels(
            &history,
            &SeriesKey::new("m", "main"),
            rigor_units::ConfidenceLevel::new(0.95).unwrap(),
        )
        .unwrap();
        assert_eq!(levels.len(), 2);
        for b in &levels {
            for v in &b.versions {
                let (lo, hi) = v.interval;
                let half = (hi - lo) / 2.0 / v.level;
                assert!(half <= 0.0201, "{} {}: ±{half}", b.benchmark, v.rev);
            }
        }
    }

    #[test]
    fn with_a_precision_what_stops_short_is_said_with_why() {
        let dir = tempfile::tempdir().unwrap();
        let (sessions, _) = track_run_with(dir.path(), |r| {
            r.precision = Some(rigor_units::Fraction::percent(1.0).unwrap());
            r.max_runs = Some(30);
        })
        .unwrap();
        let cost = sessions[0].precision.clone().unwrap();
        assert!(cost.benchmarks[0].short.is_empty(), "{cost:?}");
        assert_eq!(cost.benchmarks[1].executions, (30, 30, 30));
        assert_eq!(
            cost.benchmarks[1].short,
            vec![("--max-runs".to_string(), 4)]
        );
    }

    #[test]
    fn precision_with_what_it_cannot_adapt_is_refused_before_anything_runs() {
        let dir = tempfile::tempdir().unwrap();
        let precise = |r: &mut crate::settings::RunRequest| {
            r.precision = Some(rigor_units::Fraction::percent(2.0).unwrap());
        };
        let refused = |f: &dyn Fn(&mut crate::settings::RunRequest)| {
            let e = track_run_with(dir.path(), f).unwrap_err().to_string();
            assert!(!dir.path().join("h.db").exists(), "ran: {e}");
            e
        };
        let e = refused(&|r| {
            precise(r);
            r.executions = Some(20);
        });
        assert!(e.contains("leave out --runs"), "{e}");
        let e = refused(&|r| {
            r.budget = Some(Seconds(10.0));
            r.executions = Some(20);
        });
        assert!(e.starts_with("--budget measures each version"), "{e}");
        let e = refused(&|r| {
            precise(r);
            r.max_runs = Some(5);
        });
        assert!(
            e.contains("at most 5 execution(s) allowed (--max-runs)"),
            "{e}"
        );
    }

    #[test]
    fn a_killed_writers_temporary_files_are_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("a.json.tmp");
        let fresh = dir.path().join("b.json.tmp");
        let kept = dir.path().join("c.json");
        for p in [&old, &fresh, &kept] {
            std::fs::write(p, "{").unwrap();
        }
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        std::fs::File::options()
            .write(true)
            .open(&kept)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        prune_results(dir.path());
        assert!(!old.exists() && fresh.exists() && kept.exists());
    }

    #[test]
    fn batches_are_balanced() {
        let sizes = |n, b| {
            balanced(n, b)
                .iter()
                .map(|r: &std::ops::Range<usize>| r.len())
                .collect::<Vec<_>>()
        };
        assert_eq!(sizes(22, 20), vec![11, 11]);
        assert_eq!(sizes(20, 20), vec![20]);
        assert_eq!(sizes(41, 20), vec![14, 14, 13]);
        assert_eq!(sizes(3, 1), vec![1, 1, 1]);
        assert_eq!(sizes(0, 20), Vec::<usize>::new());
        assert_eq!(balanced(5, 0).len(), 5);
        // Contiguous and covering.
        let r = balanced(41, 20);
        assert_eq!((r[0].start, r[2].end), (0, 41));
        assert!(r.windows(2).all(|w| w[0].end == w[1].start));
    }
}
