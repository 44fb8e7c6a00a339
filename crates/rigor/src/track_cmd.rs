//! `rigor track`: each subcommand's options mapped onto its `rigor_app::track` use case, whose
//! result is printed.

use std::path::Path;

use anyhow::Result;
use rigor_app::Outcome;
use rigor_app::track::{self, Access, HistoryPlace, TrackError, TrackRequest};
use rigor_history::{ChangeFilter, ChangeId, ChangeStatus, History, SeriesKey};
use rigor_report::markdown::Markup;
use rigor_report::track::{changes_table, changes_text};
use rigor_report::track_run;

use crate::output::{self, Terminal, emit};
use crate::{farm_cmd, settings};
use rigor_cli::{
    CheckoutArgs, RunOptions, SeriesArgs, StatusArg, TrackAddArgs, TrackArgs, TrackBisectArgs,
    TrackChangesArgs, TrackCheckArgs, TrackCommand, TrackPublishArgs, TrackRmArgs, TrackRunArgs,
    TrackShowArgs,
};

/// `rigor track …`.
pub fn track(args: &TrackArgs) -> Result<Outcome> {
    match &args.command {
        TrackCommand::Run(a) => refuse_unused("run", &a.options, true)?,
        TrackCommand::Bisect(a) => refuse_unused("bisect", &a.options, true)?,
        // A check compares: its comparison options are its own.
        TrackCommand::Check(a) => refuse_unused("check", &a.options, false)?,
        _ => {}
    }
    let repo = match &args.command {
        TrackCommand::Run(a) => Some(&a.repo),
        TrackCommand::Bisect(a) => Some(&a.repo),
        TrackCommand::Check(a) => Some(&a.repo),
        TrackCommand::Add(a) => Some(&a.repo),
        TrackCommand::Changes(a) => Some(&a.repo),
        TrackCommand::Show(a) => Some(&a.repo),
        TrackCommand::Rm(a) => Some(&a.repo),
        TrackCommand::Publish(a) => Some(&a.repo),
        _ => None,
    };
    let place = match repo {
        Some(repo) => HistoryPlace::of_repo(args.db.clone(), repo),
        None => HistoryPlace::new(args.db.clone()),
    };
    let access = match &args.command {
        TrackCommand::Enqueue(a) => return farm_cmd::enqueue(place.queue()?, a),
        TrackCommand::Worker(a) => return farm_cmd::worker(place.queue()?, a),
        TrackCommand::Status(a) if a.id.is_none() => {
            return farm_cmd::status(place.status_queue()?);
        }
        TrackCommand::Run(a) => measured(&a.repo, &a.options),
        TrackCommand::Bisect(a) => measured(&a.repo, &a.options),
        TrackCommand::Add(_) => Access::Write,
        TrackCommand::Check(a) if a.candidate.is_some() => Access::Write,
        _ => Access::Read,
    };
    // A history file this command makes is removed again if the command is refused before it
    // stores anything.
    let made = place.makes_file(access);
    let mut history = place.open(access)?;
    let outcome = dispatch(args, &place, history.as_mut());
    if made && outcome.is_err() {
        place.remove_if_empty(history);
    }
    outcome
}

/// The command, on its opened history.
fn dispatch(
    args: &TrackArgs,
    place: &HistoryPlace,
    history: &mut (dyn History + Send),
) -> Result<Outcome> {
    match &args.command {
        TrackCommand::Add(a) => add(history, a),
        TrackCommand::Run(a) => run(history, place, a),
        TrackCommand::Bisect(a) => bisect(history, place, a),
        TrackCommand::Check(a) => check(history, place, a),
        TrackCommand::Changes(a) => changes(history, a),
        TrackCommand::Show(a) => show(history, a),
        TrackCommand::Rm(a) => remove(history, a),
        TrackCommand::Publish(a) => publish(history, a),
        TrackCommand::Status(a) => {
            let (Some(id), Some(status)) = (a.id, a.status) else {
                return Err(TrackError::StatusNeedsId.into());
            };
            let status = match status {
                StatusArg::New => ChangeStatus::New,
                StatusArg::Acknowledged => ChangeStatus::Acknowledged,
                StatusArg::Invalid => ChangeStatus::Invalid,
            };
            history.set_status(ChangeId(id), status)?;
            emit(&rigor_report::track::status_text(id, status.as_str()));
            Ok(Outcome::Ok)
        }
        TrackCommand::Enqueue(_) | TrackCommand::Worker(_) => unreachable!("handled above"),
    }
}

/// What measuring versions does with the history: checks the repository first (a simulated
/// project has none).
fn measured<'a>(repo: &'a Path, options: &RunOptions) -> Access<'a> {
    Access::Measure(
        settings::simulated_project(options)
            .is_none()
            .then_some(repo),
    )
}

/// The series a command means: the given machine (else this host) and branch (else the
/// repository's current branch, else "main").
fn series(s: &SeriesArgs, repo: &Path) -> SeriesKey {
    track::series_key(s.machine.as_deref(), s.branch.as_deref(), repo)
}

/// The `track run`/`bisect`/`check --candidate` request from the command line.
fn request(
    repo: &Path,
    key: SeriesKey,
    place: &HistoryPlace,
    (options, commands): (&RunOptions, &[String]),
    builds: &CheckoutArgs,
) -> TrackRequest {
    let runs = place.results_dir();
    TrackRequest {
        repo: repo.to_path_buf(),
        project: settings::simulated_project(options),
        key,
        force: false,
        batch: 20,
        anchors: 0,
        artifacts: builds.artifacts.clone(),
        checkouts: runs.with_file_name("checkouts"),
        keep: builds.keep_checkouts,
        results_dir: runs,
        kind: rigor_history::SessionKind::Run,
        run: settings::request(commands, options),
    }
}

fn add(history: &mut (dyn History + Send), a: &TrackAddArgs) -> Result<Outcome> {
    let request = track::AddRequest {
        files: a.files.clone(),
        format: a.format,
        version: a.version.clone(),
        repo: a.repo.clone(),
        order: a.order,
        key: series(&a.series, &a.repo),
    };
    track::add_files(history.as_write(), &request, &mut |r| {
        output::lines(&r.notes);
        output::warnings(&r.warnings);
        emit(&rigor_report::track::added_text(&r.added));
    })?;
    Ok(Outcome::Ok)
}

/// Refuses the options of `rigor run` that `track COMMAND` has no use for (its comparison
/// options too when `comparisons_unused`), before the history is opened, rather than ignore them
/// silently.
fn refuse_unused(
    command: &'static str,
    o: &RunOptions,
    comparisons_unused: bool,
) -> Result<(), TrackError> {
    let c = &o.compare;
    let comparing = [
        ("--reference", c.reference.is_some()),
        ("--fail-on", c.fail_on.is_some()),
        ("--estimator", c.estimator.is_some()),
        ("--method", c.method.is_some()),
        ("--resamples", c.resamples.is_some()),
    ];
    let unused: Vec<&str> = unused_by_track(o)
        .into_iter()
        .chain(comparing.into_iter().filter(|_| comparisons_unused))
        .filter_map(|(name, given)| given.then_some(name))
        .collect();
    if unused.is_empty() {
        return Ok(());
    }
    Err(TrackError::IgnoredOptions {
        command,
        options: unused.join(", "),
    })
}

/// The options of `rigor run` that no `track` command uses, and whether each was given.
fn unused_by_track(o: &RunOptions) -> [(&'static str, bool); 13] {
    let t = &o.tools;
    [
        ("--export-csv", o.export_csv.is_some()),
        ("--export-markdown", o.tables.export_markdown.is_some()),
        ("--export-asciidoc", o.tables.export_asciidoc.is_some()),
        ("--export-orgmode", o.tables.export_orgmode.is_some()),
        ("--report", o.report.is_some()),
        ("--export-bmf", t.export_bmf.is_some()),
        ("--export-otava", t.export_otava.is_some()),
        ("--export-json-hyperfine", t.export_json_hyperfine.is_some()),
        ("--export-csv-hyperfine", t.export_csv_hyperfine.is_some()),
        ("--label", o.label.is_some()),
        ("--sort", o.sort.is_some()),
        ("--time-unit", o.time_unit.is_some()),
        ("--throughput", o.throughput.is_some()),
    ]
}

fn run(
    history: &mut (dyn History + Send),
    place: &HistoryPlace,
    a: &TrackRunArgs,
) -> Result<Outcome> {
    let key = series(&a.series, &a.repo);
    let track = request(&a.repo, key, place, (&a.options, &a.commands), &a.builds);
    let request = track::TrackRunRequest {
        track: TrackRequest {
            force: a.force,
            batch: a.batch,
            anchors: a.anchors,
            ..track
        },
        selection: track::Selection {
            revs: a.revs.clone(),
            last: a.last,
            since: a.since.clone(),
        },
        shard: a.shard,
        confirm: (!a.no_confirm).then_some(a.confirm_budget),
        history: place.shown(),
        commands: a.commands.clone(),
        metrics: a.options.analysis.metric.0.clone(),
    };
    let r = track::track_run(history, request, &mut Terminal)?;
    if let Some(changes) = &r.changes {
        emit(&changes_text(&track::change_views(changes)));
        emit(&rigor_report::track::events_text(&track::event_views(
            &r.events,
        )));
    }
    output::lines(&r.notes);
    Ok(r.outcome)
}

fn bisect(
    history: &mut (dyn History + Send),
    place: &HistoryPlace,
    a: &TrackBisectArgs,
) -> Result<Outcome> {
    let key = series(&a.series, &a.repo);
    let track = request(&a.repo, key, place, (&a.options, &a.commands), &a.builds);
    let request = track::BisectRequest {
        track,
        good: a.good.clone(),
        bad: a.bad.clone(),
        max_rounds: a.max_rounds,
        metrics: a.options.analysis.metric.0.clone(),
    };
    let r = track::bisect_run(history, request, &mut Terminal)?;
    emit(&track_run::bisect_ending(&r.ending, &r.metric));
    emit(&track_run::bisect_others(
        &r.others,
        &r.benchmark,
        (&r.ends_given.0, &r.ends_given.1),
        matches!(r.ending, track_run::BisectEnding::Found { .. }),
    ));
    let cost = &r.cost;
    emit(&track_run::bisect_cost(
        cost.versions,
        cost.comparisons,
        cost.built,
        cost.failed,
    ));
    Ok(r.outcome)
}

fn check(
    history: &(dyn History + Send),
    place: &HistoryPlace,
    a: &TrackCheckArgs,
) -> Result<Outcome> {
    let key = track::series_key(a.machine.as_deref(), a.baseline.as_deref(), &a.repo);
    let against = match &a.candidate {
        Some(candidate) => track::CheckAgainst::Candidate {
            candidate: candidate.clone(),
            baseline_rev: a.baseline_rev.clone(),
            max_rounds: a.max_rounds,
            track: Box::new(request(
                &a.repo,
                key.clone(),
                place,
                (&a.options, &a.commands),
                &a.builds,
            )),
        },
        None => track::CheckAgainst::Saved {
            file: a.file.clone().unwrap_or_default(),
            metrics: a.options.analysis.metric.0.clone(),
            version: a.baseline_version.clone(),
            analysis: settings::analysis(&a.options.analysis),
            comparison: settings::comparison(&a.options.compare),
            seed: a.options.seed.unwrap_or(rigor_units::Seed(0)),
        },
    };
    let r = track::check_run(history.as_read(), key, against, &mut Terminal)?;
    output::warnings(&r.warnings);
    output::lines(&r.notes);
    let view = r.shown.view();
    emit(&track_run::checked_text(&view));
    if let Some(path) = &a.markdown {
        rigor_store::write_atomic(path, track_run::checked_markdown(&view).as_bytes())?;
    }
    Ok(r.outcome)
}

fn changes(history: &mut (dyn History + Send), a: &TrackChangesArgs) -> Result<Outcome> {
    let request = track::ChangesRequest {
        detect: track::DetectSettings {
            confidence: a.confidence,
            threshold: a.threshold,
        },
        filter: ChangeFilter {
            benchmark: a.benchmark.clone(),
            machine: a.machine.clone(),
            branch: a.branch.clone(),
            include_stale: a.all,
        },
        since: a.since.clone(),
        fail_on: a.fail_on,
        metrics: a.metric.0.clone(),
    };
    let r = track::list(history, &request)?;
    output::warnings(&r.listed.warnings);
    output::lines(&r.listed.newest);
    let views = track::change_views(&r.listed.changes);
    if a.json {
        let listed = serde_json::json!({
            "changes": &r.listed.changes,
            "events": &r.listed.events,
        });
        output::emit_json(&(serde_json::to_string_pretty(&listed)? + "\n"));
    } else {
        emit(&changes_text(&views));
        let events = track::event_views(&r.listed.events);
        emit(&rigor_report::track::events_text(&events));
        let short: Vec<(String, usize)> = r
            .listed
            .short
            .iter()
            .map(|(k, n)| (format!("{} ({})", k.machine, k.branch), *n))
            .collect();
        emit(&rigor_report::track::short_series_note(&short));
    }
    for (path, markup) in [
        (&a.markdown, Markup::Markdown),
        (&a.asciidoc, Markup::AsciiDoc),
        (&a.orgmode, Markup::OrgMode),
    ] {
        if let Some(path) = path {
            rigor_store::write_atomic(path, changes_table(markup, &views).as_bytes())?;
        }
    }
    Ok(r.outcome)
}

fn remove(history: &mut (dyn History + Send), a: &TrackRmArgs) -> Result<Outcome> {
    let runs = match (a.session, &a.version) {
        (Some(id), _) => track::RunsNamed::Session(rigor_history::SessionId(id)),
        (None, Some(rev)) => track::RunsNamed::Version(rev.clone()),
        (None, None) => return Err(TrackError::NoRunsNamed.into()),
    };
    let request = track::RemoveRequest {
        series: series(&a.series, &a.repo),
        runs,
        benchmark: a.benchmark.clone(),
        repo: a.repo.clone(),
        mode: if a.dry_run {
            rigor_history::RemoveMode::DryRun
        } else {
            rigor_history::RemoveMode::Remove
        },
    };
    let removed = track::remove(history, &request)?;
    let view = track::removed_view(&removed, &request.series, request.mode);
    emit(&rigor_report::track::removed_text(&view));
    Ok(Outcome::Ok)
}

fn show(history: &(dyn History + Send), a: &TrackShowArgs) -> Result<Outcome> {
    let key = series(&a.series, &a.repo);
    let benchmark = track::benchmark_to_show(history.as_read(), &key, a.benchmark.as_deref())?;
    let shown = track::show_history(history.as_read(), &key, &benchmark, &a.metric)?;
    if a.json {
        output::emit_json(&(serde_json::to_string_pretty(&shown.json())? + "\n"));
    } else {
        emit(&track_run::show(&shown.view(&benchmark, &key)));
    }
    Ok(Outcome::Ok)
}

fn publish(history: &(dyn History + Send), a: &TrackPublishArgs) -> Result<Outcome> {
    let settings = rigor_app::publish::PublishRequest {
        out: a.output.clone(),
        title: a.title.clone(),
        repo_url: a.repo_url.clone(),
        group: a.group.clone(),
        rigor_version: env!("CARGO_PKG_VERSION").to_string(),
        metrics: a.metric.clone(),
    }
    .resolve()?;
    let done = rigor_app::publish::publish_site(history.as_read(), &settings)?;
    emit(&rigor_report::dashboard::published_text(&done, &a.output));
    Ok(Outcome::Ok)
}
