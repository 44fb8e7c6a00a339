//! `rigor track`: the history of a project's performance.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rigor_app::Outcome;
use rigor_app::track::{self, DetectSettings, TrackObserver, VersionOutcome};
use rigor_history::{
    ChangeFilter, ChangeId, ChangeStatus, History, Ingested, SeriesKey, StoredChange,
};
use rigor_report::markdown::Markup;
use rigor_report::track_run;
use rigor_store::import::Format;

use crate::cli::{
    CheckoutArgs, RunOptions, SeriesArgs, StatusArg, TrackAddArgs, TrackArgs, TrackBisectArgs,
    TrackChangesArgs, TrackCheckArgs, TrackCommand, TrackFailOn, TrackPublishArgs, TrackRmArgs,
    TrackRunArgs, TrackShowArgs,
};
use crate::farm_cmd;
use crate::output::{Bar, emit};

/// `rigor track …`.
pub fn track(args: &TrackArgs) -> Result<Outcome> {
    // Only the commands that store measurements make a database.
    let writes = match &args.command {
        TrackCommand::Add(_) | TrackCommand::Run(_) | TrackCommand::Bisect(_) => true,
        TrackCommand::Check(a) => a.candidate.is_some(),
        _ => false,
    };
    // `--db`/`RIGOR_DB`, else the project's history found from here.
    let db = args
        .db
        .clone()
        .unwrap_or_else(rigor_app::project::default_history);
    let url = db.to_str().filter(|l| rigor_history::is_postgres_url(l));
    match (&args.command, url) {
        (TrackCommand::Enqueue(a), Some(url)) => return farm_cmd::enqueue(url, a),
        (TrackCommand::Worker(a), Some(url)) => return farm_cmd::worker(url, a),
        (TrackCommand::Status(a), Some(url)) if a.id.is_none() => return farm_cmd::status(url),
        (TrackCommand::Enqueue(_) | TrackCommand::Worker(_), None) => {
            return Err(rigor_history::HistoryError::NoQueue(db).into());
        }
        (TrackCommand::Status(a), None) if a.id.is_none() => {
            bail!(
                "{}: no job queue (the farm's queue lives in a PostgreSQL history); to set a change's status give its id and the status",
                db.display()
            )
        }
        _ => {}
    }
    // A server's database is made by whoever runs the server; files only by writing commands.
    if url.is_none() && !writes && !db.exists() {
        return Err(rigor_app::AppError::NoHistory(db).into());
    }
    let shown = url.map_or_else(|| db.display().to_string(), rigor_history::redact);
    let runs = default_results_dir(url.is_none().then_some(db.as_path()));
    // Checked before the history is opened, which would make an empty database.
    match &args.command {
        TrackCommand::Run(a) if crate::settings::simulated_project(&a.options).is_none() => {
            rigor_app::git::check_repository(&a.repo)?
        }
        TrackCommand::Bisect(a) if crate::settings::simulated_project(&a.options).is_none() => {
            rigor_app::git::check_repository(&a.repo)?
        }
        _ => {}
    }
    let mut history = rigor_history::open(db.as_os_str())?;
    let history = history.as_mut();
    match &args.command {
        TrackCommand::Add(a) => add(history, a),
        TrackCommand::Run(a) => run(history, &shown, &runs, a),
        TrackCommand::Bisect(a) => bisect(history, &runs, a),
        TrackCommand::Check(a) => check(history, &runs, a),
        TrackCommand::Changes(a) => changes(history, a),
        TrackCommand::Show(a) => show(history, a),
        TrackCommand::Rm(a) => remove(history, a),
        TrackCommand::Publish(a) => publish(history, a),
        TrackCommand::Status(a) => {
            let (Some(id), Some(status)) = (a.id, a.status) else {
                bail!("give a change's id and its new status");
            };
            let status = match status {
                StatusArg::New => ChangeStatus::New,
                StatusArg::Acknowledged => ChangeStatus::Acknowledged,
                StatusArg::Invalid => ChangeStatus::Invalid,
            };
            history.set_status(ChangeId(id), status)?;
            emit(&format!("Change {id} is now {status}\n"));
            Ok(Outcome::Ok)
        }
        TrackCommand::Enqueue(_) | TrackCommand::Worker(_) => unreachable!("handled above"),
    }
}

/// Where measured versions' result files go without `--export-json`: `runs/` beside the history
/// file (`.rigor/runs` for the default `.rigor/history.db`), or for a server the project's
/// `.rigor/runs` (found as the default history is, [`rigor_app::project::rigor_dir`]).
pub(crate) fn default_results_dir(history_file: Option<&Path>) -> PathBuf {
    history_file
        .and_then(Path::parent)
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(
            || rigor_app::project::rigor_dir().join("runs"),
            |dir| dir.join("runs"),
        )
}

/// The series a command means: the given machine (else this host) and branch (else the
/// repository's current branch, else "main").
pub(crate) fn series_key(s: &SeriesArgs, repo: &Path) -> SeriesKey {
    SeriesKey {
        machine: track::this_machine(s.machine.as_deref()).name,
        branch: s
            .branch
            .clone()
            .or_else(|| rigor_app::git::current_branch(repo))
            .unwrap_or_else(|| "main".to_string()),
    }
}

/// A commit id shortened to 10 characters; a label as it is.
fn short(rev: &str) -> String {
    track_run::short(rev)
}

fn add(history: &mut (dyn History + Send), a: &TrackAddArgs) -> Result<Outcome> {
    let groups = ingest_groups(&a.files, a.format)?;
    if a.version.is_some() && groups.len() > 1 {
        bail!(
            "--version names the version of one result, and these files are {} results (only \
             files of a format that measures in one process, such as Google Benchmark's, are \
             read together as one); without --version each file's own version is used",
            groups.len()
        );
    }
    for files in &groups {
        add_one(history, a, files)?;
    }
    Ok(Outcome::Ok)
}

/// The files grouped into the results to store: files of a format that measures in one process
/// (Google Benchmark, criterion, cargo-criterion, BenchmarkTools.jl) together, per format, as the
/// process executions of one result; every other file alone.
fn ingest_groups(files: &[PathBuf], format: Option<Format>) -> Result<Vec<Vec<PathBuf>>> {
    let mut groups: Vec<(Option<Format>, Vec<PathBuf>)> = Vec::new();
    for file in files {
        let found = rigor_store::import::load(file, format)?.format;
        let key = found.one_process().then_some(found);
        match groups.iter_mut().find(|(k, _)| key.is_some() && *k == key) {
            Some((_, g)) => g.push(file.clone()),
            None => groups.push((key, vec![file.clone()])),
        }
    }
    Ok(groups.into_iter().map(|(_, g)| g).collect())
}

/// Files as one name: a path, or paths joined with " + " (read together).
fn shown(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The version a result says it measured: the label `track run` gives each version's file,
/// else the commit it was run at (rigor's results; ReBench's `# Source:` lines).
fn version_of(result: &rigor_store::ResultFile, files: &str) -> Result<String> {
    result
        .provenance
        .label
        .clone()
        .or(result.provenance.git.as_ref().map(|g| g.commit.clone()))
        .with_context(|| format!("{files}: names no version (no label, no commit): give --version"))
}

/// Warns when the result was measured at another commit than the version it is stored as, and
/// says so when its format records no commit (then nothing can be checked).
fn check_commit(imported: &rigor_store::import::Imported, files: &str, commit: &str) {
    let recorded = imported.result.provenance.git.as_ref();
    match recorded.filter(|g| !g.commit.is_empty()) {
        // A recorded commit may be abbreviated (ReBench's).
        Some(git) if !commit.starts_with(git.commit.as_str()) => note!(
            "rigor: warning: {files} was measured at commit {}{}, not at {}",
            short(&git.commit),
            if git.dirty {
                " (with uncommitted changes)"
            } else {
                ""
            },
            short(commit)
        ),
        Some(_) => {}
        None => note!(
            "rigor: note: {files} ({}) records no commit, so that it was measured at {} cannot \
             be checked",
            imported.format,
            short(commit)
        ),
    }
}

fn add_one(history: &mut (dyn History + Send), a: &TrackAddArgs, files: &[PathBuf]) -> Result<()> {
    let name = shown(files);
    let imported = rigor_store::import::load_together(files, a.format)?;
    // A `track run` file of several versions measured together: each version stored as its own.
    if let Some(parts) = track::split_versions(&imported.result) {
        if a.version.is_some() {
            bail!(
                "{name} holds {} versions measured together: each is stored as the version it \
                 measured, so --version cannot name them",
                parts.len()
            );
        }
        // Measured together: one session, so the history ties them together.
        let machine = track::this_machine(Some(&series_key(&a.series, &a.repo).machine));
        let session = track::add_session(history.as_write(), &machine)?;
        for (rev, result) in parts {
            let part = rigor_store::import::Imported {
                result,
                ..imported.clone()
            };
            let shown = format!("{name} ({})", short(&rev));
            add_result(history, a, &shown, part, rev, Some(session))?;
        }
        let end = rigor_history::SessionEnd {
            ended: jiff::Timestamp::now(),
            load_after: None,
        };
        history.as_write().end_session(session, &end)?;
        return Ok(());
    }
    let rev = match &a.version {
        Some(v) => v.clone(),
        None => version_of(&imported.result, &name)?,
    };
    add_result(history, a, &name, imported, rev, None)
}

/// Stores one version's result (`name`: the files it came from, for messages).
fn add_result(
    history: &mut (dyn History + Send),
    a: &TrackAddArgs,
    name: &str,
    imported: rigor_store::import::Imported,
    rev: String,
    session: Option<rigor_history::SessionId>,
) -> Result<()> {
    let key = series_key(&a.series, &a.repo);
    let name = name.to_string();
    let placed = track::place_version(&a.repo, &rev, a.order, &key.branch);
    let version = placed.version;
    match &version.commit {
        Some(commit) => check_commit(&imported, &name, commit),
        None => note!(
            "rigor: '{}' is not a revision of {}: stored as a label",
            rev,
            a.repo.display()
        ),
    }
    if let Some(commit) = &placed.off_line {
        note!(
            "rigor: warning: {} is not on the first-parent line of {}: stored under its own \
             label '{}' instead of among {}'s commits{}",
            short(commit),
            key.branch,
            version.rev,
            key.branch,
            if a.order.is_some() {
                ", at the given --order"
            } else {
                " (--order N places it in the history)"
            }
        );
    }
    let machine = track::this_machine(Some(&key.machine));
    let (ingested, warnings) = track::add_in(
        history.as_write(),
        imported.result,
        &version,
        &machine,
        &key.branch,
        session,
    )?;
    crate::output::warnings(&warnings);
    emit(&match ingested {
        track::Added::Failed(reason) => format!(
            "{name} measured nothing: {} recorded as failed on {} ({}): {reason}\n",
            short(&version.rev),
            key.machine,
            key.branch
        ),
        track::Added::Stored(Ingested::Added(id)) => format!(
            "Stored {name} as run {id} of {} on {} ({})\n",
            short(&version.rev),
            key.machine,
            key.branch
        ),
        track::Added::Stored(Ingested::AlreadyStored(id)) => {
            format!("{name} is already stored (run {id}); nothing added\n")
        }
    });
    Ok(())
}

/// Prints each batch, version and session as `track run` goes.
struct Announce;

impl TrackObserver for Announce {
    fn batch_started(
        &mut self,
        versions: &[rigor_history::VersionInfo],
        anchors: &[rigor_history::VersionInfo],
        done: usize,
        total: usize,
    ) {
        let revs =
            |l: &[rigor_history::VersionInfo]| l.iter().map(|v| v.rev.clone()).collect::<Vec<_>>();
        note!(
            "{}",
            track_run::batch_line(&revs(versions), &revs(anchors), done, total)
        );
    }
    fn version_done(&mut self, v: &rigor_history::VersionInfo, outcome: &VersionOutcome) {
        match outcome {
            VersionOutcome::Skipped => {
                note!(
                    "rigor: {} is already stored (measured, or failed before): skipped; --force measures it again",
                    short(&v.rev)
                );
            }
            VersionOutcome::Failed(reason) => {
                note!("rigor: warning: {} failed: {reason}", short(&v.rev));
            }
            VersionOutcome::Measured { nothing, .. } if !nothing.is_empty() => {
                note!(
                    "rigor: warning: {} measured nothing of {} (every execution failed)",
                    short(&v.rev),
                    nothing.join(", ")
                );
            }
            VersionOutcome::Measured { .. } => {}
        }
    }
    fn session_done(&mut self, s: &track::SessionReport) {
        note!("{}", track_run::session_line(&s.view()));
    }
}

/// The `track run`/`bisect` request from the command line.
pub(crate) fn request(
    repo: &Path,
    key: SeriesKey,
    runs: &Path,
    options: &RunOptions,
    commands: &[String],
    builds: &CheckoutArgs,
) -> track::TrackRequest {
    track::TrackRequest {
        repo: repo.to_path_buf(),
        project: crate::settings::simulated_project(options),
        key,
        force: false,
        batch: 20,
        anchors: 0,
        artifacts: builds.artifacts.clone(),
        checkouts: runs.with_file_name("checkouts"),
        keep: builds.keep_checkouts,
        results_dir: runs.to_path_buf(),
        kind: rigor_history::SessionKind::Run,
        run: crate::settings::request(commands, options),
    }
}

fn run(
    history: &mut (dyn History + Send),
    shown: &str,
    runs: &Path,
    a: &TrackRunArgs,
) -> Result<Outcome> {
    let key = series_key(&a.series, &a.repo);
    let resolved = track::TrackRequest {
        force: a.force,
        batch: a.batch,
        anchors: a.anchors,
        ..request(
            &a.repo,
            key.clone(),
            runs,
            &a.options,
            &a.commands,
            &a.builds,
        )
    }
    .resolve()?;
    crate::output::notes(&resolved.notes);
    let (mut settings, experiment) = (resolved.settings, resolved.experiment);
    let selection = track::Selection {
        revs: a.revs.clone(),
        last: a.last,
        since: a.since.clone(),
    };
    settings.commits = selection.commits(&settings.source)?;
    if let Some((i, n)) = a.shard {
        let batch = if experiment.runner.build.is_some() {
            1
        } else {
            a.batch
        };
        settings.commits = track::shard(&settings.commits, batch, i, n);
        // A shard's versions are merged elsewhere with `track add`: one file per version.
        settings.version_files = true;
        note!(
            "rigor: shard {i}/{n}: {} version(s) in batches of at most {}",
            settings.commits.len(),
            batch.max(1)
        );
    }
    let (stop, mut executor) =
        crate::commands::measuring(experiment.simulate, experiment.runner.seed)?;
    note!(
        "rigor: {} version(s) on {} ({}), seed {}",
        settings.commits.len(),
        key.machine,
        key.branch,
        experiment.runner.seed
    );
    let tracked = {
        let mut bar = Bar::new();
        track::run_versions(
            history,
            &settings,
            &experiment,
            executor.as_mut(),
            stop,
            &mut bar,
            &mut Announce,
        )?
    };
    let view = tracked.view(shown);
    emit(&track_run::tracked_line(&view));
    if let Some(hint) = tracked.one_command_hint(&a.commands) {
        note!("rigor: note: {hint}");
    }
    if tracked.interrupted {
        return Ok(Outcome::Interrupted);
    }
    let known: Vec<ChangeId> = history
        .changes(&ChangeFilter {
            machine: Some(key.machine.clone()),
            branch: Some(key.branch.clone()),
            include_stale: true,
            ..ChangeFilter::default()
        })?
        .iter()
        .map(|c| c.id)
        .collect();
    let mut found = track::detect_changes(history, &key, &DetectSettings::default())?;
    let new: Vec<StoredChange> = found
        .iter()
        .filter(|c| {
            !known.contains(&c.id)
                && matches!(
                    c.change.evidence,
                    rigor_history::Evidence::Detected | rigor_history::Evidence::Confounded
                )
        })
        .cloned()
        .collect();
    if !a.no_confirm && !new.is_empty() {
        note!(
            "rigor: confirming {} newly detected change(s): both sides measured again together until decided (--no-confirm skips this)",
            new.len()
        );
        let (stop, mut executor) =
            crate::commands::measuring(experiment.simulate, experiment.runner.seed)?;
        let cfg = track::ConfirmSettings {
            budget: Some(a.confirm_budget),
            ..track::ConfirmSettings::default()
        };
        let done = {
            let mut bar = Bar::new();
            track::confirm_changes(
                history,
                &settings,
                &experiment,
                &new,
                &cfg,
                executor.as_mut(),
                stop,
                &mut bar,
            )?
        };
        for c in &done {
            note!("{}", track_run::confirmation_line(&c.view()));
        }
        found = history.changes(&ChangeFilter {
            machine: Some(key.machine.clone()),
            branch: Some(key.branch.clone()),
            ..ChangeFilter::default()
        })?;
    }
    found.retain(|c| c.change.evidence != rigor_history::Evidence::Refuted);
    emit(&changes_table(&found));
    Ok(if view.failed > 0 {
        note!("rigor: a version failed or measured nothing (shown above), exit status 2");
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}

/// Prints each step of a bisection.
struct Steps;

impl track::BisectObserver for Steps {
    fn ends(
        &mut self,
        good: &rigor_history::VersionInfo,
        bad: &rigor_history::VersionInfo,
        r: &track::Ratio,
    ) {
        note!(
            "{}",
            track_run::bisect_ends(
                &good.rev,
                &bad.rev,
                r.ratio,
                r.interval,
                &r.verdict.to_string()
            )
        );
    }
    fn step(&mut self, step: &track::BisectStep) {
        note!("{}", track_run::bisect_step(&step.view()));
    }
}

fn bisect(history: &mut (dyn History + Send), runs: &Path, a: &TrackBisectArgs) -> Result<Outcome> {
    let key = series_key(&a.series, &a.repo);
    let resolved = track::TrackRequest {
        kind: rigor_history::SessionKind::Bisect,
        ..request(&a.repo, key, runs, &a.options, &a.commands, &a.builds)
    }
    .resolve()?;
    crate::output::notes(&resolved.notes);
    let (settings, experiment) = (resolved.settings, resolved.experiment);
    let (stop, mut executor) =
        crate::commands::measuring(experiment.simulate, experiment.runner.seed)?;
    let bisection = track::BisectSettings {
        chunk: experiment.runner.executions,
        max_rounds: a.max_rounds,
        threshold: experiment.comparison.threshold,
        alpha: experiment.analysis.confidence.alpha(),
    };
    let (outcome, cost) = {
        let mut bar = Bar::new();
        track::bisect(
            history.as_write(),
            &settings,
            &a.good,
            &a.bad,
            &experiment,
            &bisection,
            executor.as_mut(),
            stop,
            &mut bar,
            &mut Steps,
        )?
    };
    let ends_text = |r: &track::Ratio| {
        format!(
            "{} (sequence {}): {}",
            track_run::ratio_percent(r.ratio),
            track_run::interval_percent(r.interval),
            r.verdict
        )
    };
    let outcome = match outcome {
        track::BisectOutcome::Found {
            before,
            first,
            ends,
        } => {
            emit(&format!(
                "First changed version: {} {}
  after {}; the ends differ by {}
",
                first.rev,
                first.subject.as_deref().unwrap_or(""),
                short(&before.rev),
                ends_text(&ends)
            ));
            Outcome::Ok
        }
        track::BisectOutcome::Between { good, bad, ends } => {
            emit(&format!(
                "The change lies after {} and at or before {} (a midpoint could not be placed within --max-rounds {}): measure the versions between them with `rigor track run`, or bisect again with more rounds; the ends differ by {}
",
                short(&good.rev),
                short(&bad.rev),
                a.max_rounds,
                ends_text(&ends)
            ));
            Outcome::Ok
        }
        track::BisectOutcome::NoChange { ends: None } => {
            emit(&format!(
                "No change between {} and {}: their builds are byte-identical
",
                a.good, a.bad
            ));
            Outcome::Ok
        }
        track::BisectOutcome::NoChange { ends: Some(ends) } => {
            let what = if ends.verdict == rigor_stats::compare::Verdict::Equivalent {
                "No change"
            } else {
                "Could not tell whether anything changed (raise --max-rounds)"
            };
            emit(&format!(
                "{what} between {} and {}: {}
",
                a.good,
                a.bad,
                ends_text(&ends)
            ));
            Outcome::Ok
        }
        track::BisectOutcome::Stopped(why) => {
            note!("rigor: bisection stopped: {why}");
            Outcome::Failed
        }
    };
    emit(&track_run::bisect_cost(
        cost.versions,
        cost.comparisons,
        cost.built,
    ));
    Ok(outcome)
}

fn check(history: &mut (dyn History + Send), runs: &Path, a: &TrackCheckArgs) -> Result<Outcome> {
    let branch = a
        .baseline
        .clone()
        .or_else(|| rigor_app::git::current_branch(&a.repo))
        .unwrap_or_else(|| "main".to_string());
    let key = SeriesKey {
        machine: track::this_machine(a.machine.as_deref()).name,
        branch,
    };
    if let Some(candidate) = &a.candidate {
        return check_candidate(history, runs, a, key, candidate);
    }
    let stored = history.series_keys()?;
    if !stored.contains(&key) {
        let branches: Vec<String> = stored
            .iter()
            .filter(|k| k.machine == key.machine)
            .map(|k| k.branch.clone())
            .collect();
        bail!(
            "no history of branch '{}' on {}{}: give --baseline BRANCH",
            key.branch,
            key.machine,
            if branches.is_empty() {
                " (nothing is stored for this machine: --machine NAME?)".to_string()
            } else {
                format!(" (stored branches: {})", branches.join(", "))
            }
        );
    }
    let file = a.file.clone().unwrap_or_default();
    let seed = a.options.seed.unwrap_or(rigor_units::Seed(0));
    let comparison = crate::settings::comparison(&a.options.compare);
    let checked = track::check(
        history.as_read(),
        &file,
        &key,
        a.baseline_version.as_deref(),
        &crate::settings::analysis(&a.options.analysis),
        &comparison,
        seed,
    )?;
    crate::output::warnings(&checked.warnings);
    if checked.baseline.is_empty() {
        bail!(
            "no stored baseline on {} ({}) for the benchmarks of {}",
            key.machine,
            key.branch,
            file.display()
        );
    }
    if checked.against_history.is_empty() {
        for (name, v) in &checked.baseline {
            note!(
                "rigor: '{name}' against {} {} ({}, not measured together: unpaired)",
                short(&v.rev),
                v.subject.as_deref().unwrap_or(""),
                key.branch
            );
        }
        note!(
            "rigor: warning: compared with one stored measurement, unpaired, without the between-session spread (the branch needs two stored versions for that): treat the verdict with care"
        );
        emit(&rigor_report::comparison::render(
            &rigor_app::comparisons::views(&checked.comparisons),
        ));
        if let Some(suite) = checked.suite.as_ref().filter(|s| s.benchmarks > 1) {
            let view = rigor_app::comparisons::suite_view(suite);
            emit(&rigor_report::comparison::suite(&view, seed));
        }
    } else {
        let lines: Vec<_> = checked.against_history.iter().map(|v| v.view()).collect();
        emit(&track_run::check_table(&key.branch, &key.machine, &lines));
    }
    if let Some(path) = &a.markdown {
        let text = if checked.against_history.is_empty() {
            rigor_report::comparison::markdown(&rigor_app::comparisons::views(&checked.comparisons))
        } else {
            let lines: Vec<_> = checked.against_history.iter().map(|v| v.view()).collect();
            track_run::check_markdown(&key.branch, &key.machine, &lines)
        };
        rigor_store::write_atomic(path, text.as_bytes())?;
    }
    let verdicts = if checked.against_history.is_empty() {
        checked
            .comparisons
            .iter()
            .map(|c| c.comparison.verdict)
            .collect()
    } else {
        checked
            .against_history
            .iter()
            .map(|v| v.change.verdict)
            .collect()
    };
    let findings = rigor_app::Findings {
        verdicts,
        warned: !checked.warnings.is_empty(),
        ..Default::default()
    };
    Ok(findings.outcome(comparison.fail_on))
}

/// `rigor track check --candidate`: both built and measured together until decided.
fn check_candidate(
    history: &mut (dyn History + Send),
    runs: &Path,
    a: &TrackCheckArgs,
    key: SeriesKey,
    candidate: &str,
) -> Result<Outcome> {
    let resolved = request(
        &a.repo,
        key.clone(),
        runs,
        &a.options,
        &a.commands,
        &a.builds,
    )
    .resolve()?;
    crate::output::notes(&resolved.notes);
    let (settings, experiment) = (resolved.settings, resolved.experiment);
    let dir = Path::new(candidate);
    let candidate = if dir.is_dir() {
        track::Candidate::Dir(dir.canonicalize()?)
    } else {
        track::Candidate::Rev(candidate.to_string())
    };
    let baseline = track::candidate_baseline(
        history.as_read(),
        &key,
        &settings.source,
        a.baseline_rev.as_deref(),
    )?;
    note!(
        "rigor: {} against {} ({}), measured together until decided (at most {} rounds{}), seed {}",
        match &candidate {
            track::Candidate::Rev(r) => short(r),
            track::Candidate::Dir(d) => d.display().to_string(),
        },
        short(&baseline.rev),
        key.branch,
        a.max_rounds,
        a.options
            .budget
            .map_or(String::new(), |b| format!(", budget {b}")),
        experiment.runner.seed
    );
    let (stop, mut executor) =
        crate::commands::measuring(experiment.simulate, experiment.runner.seed)?;
    let verdicts = {
        let mut bar = Bar::new();
        track::check_candidate(
            &settings,
            &experiment,
            &baseline,
            &candidate,
            (a.options.budget, a.max_rounds),
            executor.as_mut(),
            stop,
            &mut bar,
        )?
    };
    let lines: Vec<track_run::CandidateLine> = verdicts.iter().map(|v| v.view()).collect();
    emit(&track_run::candidate_table(&short(&baseline.rev), &lines));
    if let Some(path) = &a.markdown {
        rigor_store::write_atomic(
            path,
            track_run::candidate_markdown(&short(&baseline.rev), &lines).as_bytes(),
        )?;
    }
    let findings = rigor_app::Findings {
        failed: verdicts.iter().any(|v| v.outcome.is_err()),
        verdicts: verdicts
            .iter()
            .filter_map(|v| v.outcome.as_ref().ok().map(|r| r.verdict))
            .collect(),
        ..Default::default()
    };
    Ok(findings.outcome(crate::settings::comparison(&a.options.compare).fail_on))
}

fn changes(history: &mut (dyn History + Send), a: &TrackChangesArgs) -> Result<Outcome> {
    // Checked before anything is detected or written.
    let since = a.since.as_deref().map(track::since_time).transpose()?;
    let settings = track::ListSettings {
        detect: DetectSettings {
            confidence: a.confidence,
            threshold: a.threshold,
        },
        filter: ChangeFilter {
            benchmark: a.benchmark.clone(),
            machine: a.machine.clone(),
            branch: a.branch.clone(),
            include_stale: a.all,
        },
        since,
    };
    let listed = track::list_changes(history, &settings)?;
    let views = track::change_views(&listed.changes);
    if a.json {
        emit(&(serde_json::to_string_pretty(&listed.changes)? + "\n"));
    } else {
        emit(&rigor_report::track::changes_text(&views));
        emit(&rigor_report::track::events_text(&track::event_views(
            &listed.events,
        )));
    }
    for (path, markup) in [
        (&a.markdown, Markup::Markdown),
        (&a.asciidoc, Markup::AsciiDoc),
        (&a.orgmode, Markup::OrgMode),
    ] {
        if let Some(path) = path {
            let text = rigor_report::track::changes_table(markup, &views);
            rigor_store::write_atomic(path, text.as_bytes())?;
        }
    }
    let fail_on = a.fail_on.map(|f| match f {
        TrackFailOn::Regression | TrackFailOn::Confounded => {
            rigor_app::settings::FailOn::Regression
        }
        TrackFailOn::Change => rigor_app::settings::FailOn::Change,
    });
    let confounded = a.fail_on == Some(TrackFailOn::Confounded);
    Ok(track::findings(&listed.changes, confounded).outcome(fail_on))
}

/// The change table `track run` prints after detecting.
fn changes_table(list: &[StoredChange]) -> String {
    rigor_report::track::changes_text(&track::change_views(list))
}

fn remove(history: &mut (dyn History + Send), a: &TrackRmArgs) -> Result<Outcome> {
    let series = series_key(&a.series, &a.repo);
    let runs = match (a.session, &a.version) {
        (Some(id), _) => track::RunsNamed::Session(rigor_history::SessionId(id)),
        (None, Some(rev)) => track::RunsNamed::Version(rev.clone()),
        (None, None) => bail!("give --session ID or --version REV"),
    };
    let mode = if a.dry_run {
        rigor_history::RemoveMode::DryRun
    } else {
        rigor_history::RemoveMode::Remove
    };
    let request = track::RemoveRequest {
        series,
        runs,
        benchmark: a.benchmark.clone(),
        repo: a.repo.clone(),
        mode,
    };
    let removed = track::remove(history, &request)?;
    emit(&rigor_report::track::removed_text(&track::removed_view(
        &removed,
        &request.series,
        mode,
    )));
    Ok(Outcome::Ok)
}

fn show(history: &(dyn History + Send), a: &TrackShowArgs) -> Result<Outcome> {
    let key = series_key(&a.series, Path::new("."));
    let shown = track::show(history.as_read(), &key, &a.benchmark)?;
    // Versions that failed altogether are listed for every name: a history of the benchmark
    // has at least one version that measured it.
    if !shown.points.iter().any(|p| p.level.is_some()) {
        bail!(
            "no history of '{}' on {} ({}); see `rigor track changes` for what is stored",
            a.benchmark,
            key.machine,
            key.branch
        );
    }
    if a.json {
        let doc: Vec<serde_json::Value> = shown
            .points
            .iter()
            .map(|p| {
                let l = p.level.as_ref();
                serde_json::json!({
                    "version": p.version,
                    "level": l.map(|l| l.level),
                    "ci": l.map(|l| [l.interval.0, l.interval.1]),
                    "unit": shown.unit,
                    "counts": l.map(|l| l.counts()),
                    "identical_to_previous": l.map(|l| l.identical_to_previous),
                    "sessions_unknown": l.map(|l| l.sessions_unknown),
                    "runs": l.map(|l| l.runs.iter().map(|r| serde_json::json!({
                        "run": r.run.id, "session": r.run.session, "role": r.run.role,
                        "level": r.level, "units": r.units,
                    })).collect::<Vec<_>>()),
                    "failed": l.is_none(),
                    "against_previous": p.against_previous.map(|r| serde_json::json!({
                        "ratio": r.ratio,
                        "ci": r.interval,
                        "verdict": r.verdict,
                        "at_resolution": r.at_resolution,
                        "confounded": p.confounded,
                    })),
                })
            })
            .collect();
        emit(&(serde_json::to_string_pretty(&doc)? + "\n"));
        return Ok(Outcome::Ok);
    }
    emit(&track_run::show(&shown.view(&a.benchmark, &key)));
    Ok(Outcome::Ok)
}

fn publish(history: &(dyn History + Send), a: &TrackPublishArgs) -> Result<Outcome> {
    if let Some(url) = &a.repo_url {
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            bail!("--repo-url must be a web address (https://…), got '{url}'");
        }
    }
    let settings = rigor_app::publish::PublishSettings {
        out: a.output.clone(),
        site: rigor_report::dashboard::SiteMeta {
            title: a.title.clone(),
            rigor_version: env!("CARGO_PKG_VERSION").to_string(),
            repo_url: a.repo_url.clone(),
        },
        generated: rigor_app::publish::now(),
        archive_size: rigor_app::publish::ARCHIVE_SIZE,
        grouping: match &a.group {
            Some(pattern) => rigor_app::publish::Grouping::Pattern(
                regex::Regex::new(pattern)
                    .with_context(|| format!("--group '{pattern}' is not a regular expression"))?,
            ),
            None => rigor_app::publish::Grouping::Prefix,
        },
    };
    let done = rigor_app::publish::publish(history.as_read(), &settings)
        .with_context(|| format!("publishing the dashboard to {}", a.output.display()))?;
    emit(&format!(
        "Published {} benchmark page(s) and {} archive page(s) to {} ({} rewritten, {} removed, index {} kB; {} new run(s) read)\n  open {}\n",
        done.pages,
        done.archives,
        a.output.display(),
        done.written,
        done.removed,
        done.index_bytes.div_ceil(1024),
        done.runs_read,
        a.output.join("index.html").display()
    ));
    Ok(Outcome::Ok)
}
