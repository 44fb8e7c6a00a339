//! The texts of `rigor track`: the change table (terminal, and Markdown, AsciiDoc or org-mode
//! through [`crate::markdown`]'s one escaping and framing), the lines of changes that happened
//! together, and what `rigor track rm` removed. Views are plain data the use cases fill; nothing
//! here computes.

use std::fmt::Write;

use rigor_stats::compare::Verdict;

use crate::markdown::{Align, Markup, cell, frame};
use crate::track_run::{interval_percent, ratio_percent, short as short_rev};

/// One detected change, as the tables show it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeView<'a> {
    /// Its id (what `rigor track status` takes).
    pub id: i64,
    /// The first version after the change.
    pub rev: &'a str,
    /// The benchmark.
    pub benchmark: &'a str,
    /// The metric it is a change of (`wall`, `cpu`, `peak-memory`, …): shown after the
    /// benchmark's name unless it is wall time.
    pub metric: &'a str,
    /// New level / old level.
    pub ratio: f64,
    /// The ratio's interval (`None`: unbounded).
    pub interval: Option<(f64, f64)>,
    /// Regression or improvement.
    pub verdict: Verdict,
    /// What it rests on (detected, confounded with a session boundary, confirmed, refuted).
    pub evidence: &'a str,
    /// The last version before it.
    pub previous: Option<&'a str>,
    /// The machine.
    pub machine: &'a str,
    /// The branch.
    pub branch: &'a str,
    /// The user's status (new, acknowledged, invalid).
    pub status: &'a str,
    /// Whether the latest detection still finds it.
    pub current: bool,
}

impl ChangeView<'_> {
    /// The benchmark's name, with the metric after it unless it is wall time: `sort (cpu)`.
    fn named(&self) -> String {
        match other_metric(self.metric) {
            Some(m) => format!("{} ({m})", self.benchmark),
            None => self.benchmark.to_string(),
        }
    }

    /// The change and its interval as signed percentages. A change confounded with a session
    /// boundary has no interval: the shift of sessions that share no version is unbounded, and
    /// the interval of the levels alone would claim a precision the boundary cannot give.
    fn figures(&self) -> (String, String) {
        let ci = if self.evidence == "confounded" {
            "unknown: session".to_string()
        } else {
            interval_percent(self.interval)
        };
        (ratio_percent(self.ratio), ci)
    }
}

/// A metric named in a table or a line: any but wall time (the default, left unsaid).
fn other_metric(metric: &str) -> Option<&str> {
    (!metric.is_empty() && metric != "wall").then_some(metric)
}

/// The change table for the terminal, after the Mono project's (Kalibera, Bulej & Tůma 2005b):
/// id, version, benchmark, change with its interval, verdict, the version before, status.
pub fn changes_text(list: &[ChangeView<'_>]) -> String {
    if list.is_empty() {
        return "No changes detected.\n".to_string();
    }
    let mut out = String::from("Changes (95% CI; versions as the top level, FDR-controlled)\n");
    let _ = writeln!(
        out,
        "  {:>4}  {:<10}  {:<24}  {:>8}  {:<18}  {:<11}  {:<10}  {:<10}  status",
        "id", "version", "benchmark", "change", "CI", "verdict", "evidence", "previous"
    );
    for c in list {
        let (change, ci) = c.figures();
        let _ = writeln!(
            out,
            "  {:>4}  {:<10}  {:<24}  {:>8}  {:<18}  {:<11}  {:<10}  {:<10}  {}{}",
            c.id,
            short_rev(c.rev),
            c.named(),
            change,
            ci,
            c.verdict.to_string(),
            c.evidence,
            c.previous.map_or(String::new(), short_rev),
            c.status,
            if c.current {
                ""
            } else {
                " (no longer detected)"
            }
        );
    }
    out
}

/// The change table in `markup` (Markdown for a pull request or an issue, AsciiDoc, org-mode),
/// with each change's machine and branch; names and versions go through [`cell`].
pub fn changes_table(markup: Markup, list: &[ChangeView<'_>]) -> String {
    if list.is_empty() {
        return "No performance changes detected.\n".to_string();
    }
    let header = [
        "id",
        "version",
        "benchmark",
        "change",
        "95% CI",
        "verdict",
        "evidence",
        "previous",
        "machine",
        "branch",
        "status",
    ]
    .map(str::to_string);
    let rows: Vec<Vec<String>> = list
        .iter()
        .map(|c| {
            let (change, ci) = c.figures();
            let mut status = c.status.to_string();
            if !c.current {
                status.push_str(" (no longer detected)");
            }
            vec![
                c.id.to_string(),
                cell(markup, &short_rev(c.rev)),
                cell(markup, &c.named()),
                change,
                ci,
                c.verdict.to_string(),
                c.evidence.to_string(),
                c.previous
                    .map_or(String::new(), |p| cell(markup, &short_rev(p))),
                cell(markup, c.machine),
                cell(markup, c.branch),
                status,
            ]
        })
        .collect();
    use Align::{Left, Right};
    frame(
        markup,
        &header,
        &rows,
        &[
            Right, Left, Left, Right, Left, Left, Left, Left, Left, Left, Left,
        ],
    )
}

/// Changes that happened together at one version (an environment change as often as a code
/// change).
#[derive(Debug, Clone, PartialEq)]
pub struct EventView<'a> {
    /// The version.
    pub rev: &'a str,
    /// The machine.
    pub machine: &'a str,
    /// The branch.
    pub branch: &'a str,
    /// The ids of the changes that make it up.
    pub changes: Vec<i64>,
    /// The metric they are changes of (named in the line unless it is wall time).
    pub metric: &'a str,
    /// How many benchmarks the series has.
    pub benchmarks: usize,
    /// Smallest and largest ratio among them.
    pub range: (f64, f64),
    /// What the benchmarks' joint test found there, when they were tested together.
    pub joint: Option<JointView<'a>>,
}

/// A shift the benchmarks' joint test found at one version.
#[derive(Debug, Clone, PartialEq)]
pub struct JointView<'a> {
    /// The common ratio.
    pub ratio: f64,
    /// Its interval.
    pub interval: (f64, f64),
    /// The p-value of no common shift, corrected for the versions scanned.
    pub p_value: f64,
    /// How many benchmarks could change at the version.
    pub tested: usize,
    /// The benchmarks it moved, each with its own ratio there and whether its own detection
    /// found that change too.
    pub moved: Vec<MovedView<'a>>,
    /// Whether some benchmark's step cannot be told from a shift between sessions.
    pub confounded: bool,
}

/// One benchmark a joint event moved.
#[derive(Debug, Clone, PartialEq)]
pub struct MovedView<'a> {
    /// The benchmark.
    pub benchmark: &'a str,
    /// Its own ratio at the event.
    pub ratio: f64,
    /// Whether its own detection found that change too.
    pub alone: bool,
    /// The version of its own change when that stays a discovery of its own (it moved well
    /// beyond the others): the event holds no change of it.
    pub own: Option<&'a str>,
    /// Whether its own interval excludes no change (else it may be listed by its noise alone).
    pub clear: bool,
}

/// The note under the change table for series too short for a change at their second version
/// to be found: each as "MACHINE (BRANCH)", with its number of versions.
pub fn short_series_note(short: &[(String, usize)]) -> String {
    if short.is_empty() {
        return String::new();
    }
    let names: Vec<String> = short
        .iter()
        .map(|(series, n)| format!("{series}, {n} versions"))
        .collect();
    format!(
        "Note: detection places a change only after at least two versions of a series, so a \
         step at its second version is not found ({}): `rigor track show BENCHMARK` shows each \
         step\n",
        names.join("; ")
    )
}

/// One line per event, for under the change table; an event the joint test found says so, with
/// the common change, its interval and each benchmark's own change on a line of its own.
pub fn events_text(events: &[EventView<'_>]) -> String {
    let mut out = String::new();
    for e in events {
        if let Some(j) = &e.joint {
            let _ = writeln!(
                out,
                "  Event: {} of {} benchmarks on {} ({}) moved together{} at {} by {} ({}; tested \
                 together, {} over the versions scanned){}: an environment change as often as a \
                 code change; changes {:?}",
                j.moved.len(),
                j.tested,
                e.machine,
                e.branch,
                other_metric(e.metric).map_or(String::new(), |m| format!(" in {m}")),
                short_rev(e.rev),
                ratio_percent(j.ratio),
                interval_percent(Some(j.interval)),
                crate::comparison::p_text("p", j.p_value),
                if j.confounded {
                    ", confounded with a session boundary"
                } else {
                    ""
                },
                e.changes
            );
            let each: Vec<String> = j
                .moved
                .iter()
                .map(|m| {
                    format!(
                        "{} {}{}",
                        m.benchmark,
                        ratio_percent(m.ratio),
                        match (m.own, m.alone) {
                            (Some(rev), _) => format!(
                                " (its own change at {}, beyond the common change)",
                                short_rev(rev)
                            ),
                            (None, true) => " (also found alone)".to_string(),
                            (None, false) if !m.clear => {
                                " (its own interval holds no change)".to_string()
                            }
                            (None, false) => String::new(),
                        }
                    )
                })
                .collect();
            let _ = writeln!(out, "    {}", each.join(", "));
            continue;
        }
        let _ = writeln!(
            out,
            "  Event: {} of {} benchmarks on {} ({}) moved together{} at {}, by {} to {} each (their own \
             changes, not tested together): an environment change as often as a code change; \
             changes {:?}",
            e.changes.len(),
            e.benchmarks,
            e.machine,
            e.branch,
            other_metric(e.metric).map_or(String::new(), |m| format!(" in {m}")),
            short_rev(e.rev),
            ratio_percent(e.range.0),
            ratio_percent(e.range.1),
            e.changes
        );
    }
    out
}

/// One run `rigor track rm` removed (or would remove).
#[derive(Debug, Clone, PartialEq)]
pub struct RemovedRunView<'a> {
    /// The run's id.
    pub id: i64,
    /// Its version.
    pub rev: &'a str,
    /// Its session's id.
    pub session: i64,
    /// Whether it recorded a failed version.
    pub failed: bool,
    /// The benchmarks removed from it.
    pub benchmarks: &'a [String],
    /// Their samples.
    pub samples: u64,
    /// Whether the run itself goes (false: it keeps its other benchmarks).
    pub whole: bool,
}

/// What `rigor track rm` removed, or with `--dry-run` would remove.
#[derive(Debug, Clone, PartialEq)]
pub struct RemovedView<'a> {
    /// Whether nothing was removed (`--dry-run`).
    pub dry_run: bool,
    /// The machine of the series.
    pub machine: &'a str,
    /// The branch of the series.
    pub branch: &'a str,
    /// The runs, oldest first.
    pub runs: Vec<RemovedRunView<'a>>,
    /// Sessions left without runs, removed with them.
    pub sessions: Vec<i64>,
    /// Changes no longer current.
    pub changes: Vec<i64>,
}

/// The removal in words: a heading, a line per run, the sessions and changes it takes along.
pub fn removed_text(v: &RemovedView<'_>) -> String {
    let samples: u64 = v.runs.iter().map(|r| r.samples).sum();
    let mut out = format!(
        "{} {} ({samples} samples) of {} ({}):\n",
        if v.dry_run { "Would remove" } else { "Removed" },
        crate::format::count(v.runs.len(), "run", "runs"),
        v.machine,
        v.branch,
    );
    for r in &v.runs {
        let what = if r.failed && r.benchmarks.is_empty() {
            "a failed version's record".to_string()
        } else if r.whole {
            format!("{} ({} samples)", r.benchmarks.join(", "), r.samples)
        } else {
            format!(
                "{} ({} samples; the run keeps its other benchmarks)",
                r.benchmarks.join(", "),
                r.samples
            )
        };
        let _ = writeln!(
            out,
            "  run {:<6} {:<12} session {:<6} {what}",
            r.id,
            short_rev(r.rev),
            r.session
        );
    }
    let ids = |list: &[i64]| {
        list.iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !v.sessions.is_empty() {
        let _ = writeln!(
            out,
            "  sessions left without runs, {} too: {}",
            if v.dry_run {
                "to be removed"
            } else {
                "removed"
            },
            ids(&v.sessions)
        );
    }
    if !v.changes.is_empty() {
        let _ = writeln!(
            out,
            "  changes no longer current{} (detection finds them again if the data left shows \
             them): {}",
            if v.dry_run { " once removed" } else { "" },
            ids(&v.changes)
        );
    }
    if v.dry_run {
        out.push_str("Nothing was removed (--dry-run).\n");
    }
    out
}

/// What `rigor track add` did with one result.
#[derive(Debug, Clone, PartialEq)]
pub struct AddedView {
    /// The files it came from.
    pub files: String,
    /// The version it was stored as.
    pub rev: String,
    /// The series' machine.
    pub machine: String,
    /// The series' branch.
    pub branch: String,
    /// What became of it.
    pub outcome: AddedOutcome,
}

/// What became of a result `rigor track add` was given.
#[derive(Debug, Clone, PartialEq)]
pub enum AddedOutcome {
    /// It measured nothing: the version is recorded as failed, for this reason.
    Failed(String),
    /// Stored as this run.
    Stored(i64),
    /// Stored before, as this run.
    AlreadyStored(i64),
}

/// The line of `rigor track add` for one result.
pub fn added_text(v: &AddedView) -> String {
    let (files, rev, machine, branch) = (&v.files, short_rev(&v.rev), &v.machine, &v.branch);
    match &v.outcome {
        AddedOutcome::Failed(reason) => format!(
            "{files} measured nothing: {rev} recorded as failed on {machine} ({branch}): {reason}\n"
        ),
        AddedOutcome::Stored(id) => {
            // The id is the history's (not a count of this version's runs).
            format!("Stored {files}: {rev} on {machine} ({branch}), run id {id}\n")
        }
        AddedOutcome::AlreadyStored(id) => {
            format!("{files} is already stored (run id {id}); nothing added\n")
        }
    }
}

/// What `rigor track status ID STATUS` says.
pub fn status_text(id: i64, status: &str) -> String {
    format!("Change {id} is now {status}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change<'a>(benchmark: &'a str, current: bool) -> ChangeView<'a> {
        ChangeView {
            metric: "wall",
            id: 3,
            rev: "0123456789abcdef0123456789abcdef01234567",
            benchmark,
            ratio: 1.25,
            interval: Some((1.2, 1.3)),
            verdict: Verdict::Regression,
            evidence: "detected",
            previous: Some("v1"),
            machine: "ci|1",
            branch: "main",
            status: "new",
            current,
        }
    }

    /// A change confounded with a session boundary shows no interval: the session's shift is
    /// unbounded (a new user read "−37% .. −37%" as a precise change).
    #[test]
    fn a_confounded_change_has_no_interval() {
        let confounded = ChangeView {
            evidence: "confounded",
            ..change("b", true)
        };
        let text = changes_text(&[confounded, change("c", true)]);
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert!(rows[0].contains("unknown: session"), "{text}");
        assert!(rows[1].contains("+20% .. +30%"), "{text}");
    }

    #[test]
    fn the_change_table_in_each_markup_escapes_names_once() {
        let list = [change("parse|json", true), change("sort", false)];
        let md = changes_table(Markup::Markdown, &list);
        let row = md.lines().nth(2).unwrap();
        assert_eq!(
            row,
            "| 3 | `0123456789` | `parse\\|json` | +25% | +20% .. +30% | regression | detected | \
             `v1` | `ci\\|1` | `main` | new |"
        );
        assert!(
            md.lines()
                .nth(3)
                .unwrap()
                .ends_with("| new (no longer detected) |")
        );
        let adoc = changes_table(Markup::AsciiDoc, &list);
        assert!(adoc.starts_with("[cols=\">,<,<,>,<,<,<,<,<,<,<\",options=\"header\"]\n|===\n"));
        assert!(
            adoc.contains("| 3 | `0123456789` | `parse&#124;json` | +25%"),
            "{adoc}"
        );
        let org = changes_table(Markup::OrgMode, &list);
        assert!(
            org.contains("| 3 | =0123456789= | parse\\vert{}json | +25%"),
            "{org}"
        );
        for markup in [Markup::Markdown, Markup::AsciiDoc, Markup::OrgMode] {
            assert_eq!(
                changes_table(markup, &[]),
                "No performance changes detected.\n"
            );
        }
    }

    #[test]
    fn hostile_names_and_labels_stay_text_in_their_cell_in_every_markup() {
        use crate::escape::tests::HOSTILE;
        for name in HOSTILE {
            let mut c = change(name, true);
            c.rev = name;
            c.previous = Some(name);
            c.machine = name;
            c.branch = name;
            let list = [c];
            // One row of 11 cells: 12 bars that are not escaped.
            let md = changes_table(Markup::Markdown, &list);
            let rows: Vec<&str> = md.lines().collect();
            assert_eq!(rows.len(), 3, "{md}");
            assert_eq!(rows[2].replace("\\|", "").matches('|').count(), 12, "{md}");
            for bad in ["<script>", "](javascript", "\u{1b}", "\r", "\u{202e}"] {
                let outside_code: String = rows[2].split('`').step_by(2).collect();
                assert!(!outside_code.contains(bad), "{bad} in {md}");
            }
            let adoc = changes_table(Markup::AsciiDoc, &list);
            let row = adoc.lines().nth(4).unwrap();
            assert_eq!(row.matches('|').count(), 11, "{adoc}");
            for bad in ["+++", "pass:[", "<script>", "link:", "{attribute}"] {
                assert!(!adoc.contains(bad), "{bad} in {adoc}");
            }
            let org = changes_table(Markup::OrgMode, &list);
            let row = org.lines().nth(2).unwrap();
            assert_eq!(row.matches('|').count(), 12, "{org}");
            assert!(!org.contains('\u{1b}'), "{org}");
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            for i in [2, 3, 8, 9, 10] {
                assert!(crate::escape::org_safe(cells[i]), "{} in {org}", cells[i]);
            }
        }
    }

    /// Three changes of four benchmarks at v9 on m (main).
    fn event<'a>(
        metric: &'a str,
        range: (f64, f64),
        joint: Option<JointView<'a>>,
    ) -> EventView<'a> {
        EventView {
            metric,
            rev: "v9",
            machine: "m",
            branch: "main",
            changes: vec![1, 2, 3],
            benchmarks: 4,
            range,
            joint,
        }
    }

    #[test]
    fn the_terminal_table_shortens_commits_and_marks_stale_changes() {
        let text = changes_text(&[change("sort", false)]);
        let row = text.lines().nth(2).unwrap();
        assert!(row.starts_with("     3  0123456789  sort"), "{row}");
        assert!(row.contains("+25%  +20% .. +30%"), "{row}");
        assert!(row.ends_with("new (no longer detected)"), "{row}");
        assert_eq!(changes_text(&[]), "No changes detected.\n");
        assert_eq!(short_series_note(&[]), "");
        assert_eq!(
            short_series_note(&[("m (main)".into(), 3)]),
            "Note: detection places a change only after at least two versions of a series, so a \
             step at its second version is not found (m (main), 3 versions): `rigor track show \
             BENCHMARK` shows each step\n"
        );
        let events = events_text(&[event("wall", (1.03, 1.05), None)]);
        assert_eq!(
            events,
            "  Event: 3 of 4 benchmarks on m (main) moved together at v9, by +3.0% to +5.0% each (their \
             own changes, not tested together): an environment change as often as a code \
             change; changes [1, 2, 3]\n"
        );
    }

    fn moved<'a>(
        benchmark: &'a str,
        ratio: f64,
        alone: bool,
        own: Option<&'a str>,
    ) -> MovedView<'a> {
        MovedView {
            benchmark,
            ratio,
            alone,
            own,
            // The third benchmark's +3% is known only to about ±3%.
            clear: benchmark != "c",
        }
    }

    /// An event the joint test found gives the common change and each benchmark's own; one
    /// whose own change stays its own (beyond the common) says where that change is, since the
    /// event's changes do not hold it; one whose own interval holds no change says so.
    #[test]
    fn a_joint_event_gives_the_common_change_and_each_benchmarks() {
        let joint = JointView {
            ratio: 1.031,
            interval: (1.02, 1.042),
            p_value: 0.0004,
            tested: 4,
            moved: vec![
                moved("a", 1.02, false, None),
                moved("b", 1.05, true, None),
                moved("c", 1.03, false, None),
                moved("d", 1.09, true, Some("v10")),
            ],
            confounded: false,
        };
        let events = events_text(&[event("wall", (1.02, 1.05), Some(joint))]);
        assert_eq!(
            events,
            "  Event: 4 of 4 benchmarks on m (main) moved together at v9 by +3.1% (+2.0% .. \
             +4.2%; tested together, p < 0.001 over the versions scanned): an environment \
             change as often as a code change; changes [1, 2, 3]\n    a +2.0%, b +5.0% (also \
             found alone), c +3.0% (its own interval holds no change), d +9.0% (its own change at \
             v10, beyond the common change)\n"
        );
    }

    /// A change or an event of a metric other than wall time says which; wall time's are as
    /// they always were.
    #[test]
    fn changes_and_events_of_other_metrics_name_them() {
        let mut cpu = change("sort", true);
        cpu.metric = "cpu";
        let text = changes_text(&[change("sort", true), cpu.clone()]);
        let rows: Vec<&str> = text.lines().skip(2).collect();
        assert!(
            rows[0].starts_with("     3  0123456789  sort    "),
            "{text}"
        );
        assert!(
            rows[1].starts_with("     3  0123456789  sort (cpu)  "),
            "{text}"
        );
        let md = changes_table(Markup::Markdown, &[cpu]);
        assert!(md.contains("| `sort (cpu)` |"), "{md}");
        let events = events_text(&[event("peak-memory", (1.9, 2.1), None)]);
        assert!(
            events.contains("moved together in peak-memory at v9"),
            "{events}"
        );
    }

    #[test]
    fn a_removal_lists_its_runs_and_says_whether_it_happened() {
        let names = ["sort".to_string()];
        let runs = vec![
            RemovedRunView {
                id: 7,
                rev: "v2",
                session: 4,
                failed: false,
                benchmarks: &names,
                samples: 12,
                whole: false,
            },
            RemovedRunView {
                id: 8,
                rev: "v2",
                session: 5,
                failed: true,
                benchmarks: &[],
                samples: 0,
                whole: true,
            },
        ];
        let view = RemovedView {
            dry_run: true,
            machine: "m",
            branch: "main",
            runs,
            sessions: vec![5],
            changes: vec![2],
        };
        let text = removed_text(&view);
        assert_eq!(
            text,
            "Would remove 2 runs (12 samples) of m (main):\n\
             \x20 run 7      v2           session 4      sort (12 samples; the run keeps its other benchmarks)\n\
             \x20 run 8      v2           session 5      a failed version's record\n\
             \x20 sessions left without runs, to be removed too: 5\n\
             \x20 changes no longer current once removed (detection finds them again if the data \
             left shows them): 2\n\
             Nothing was removed (--dry-run).\n"
        );
        let done = removed_text(&RemovedView {
            dry_run: false,
            ..view
        });
        assert!(
            done.starts_with("Removed 2 runs (12 samples) of m (main):"),
            "{done}"
        );
        assert!(done.contains("left without runs, removed too: 5"), "{done}");
        assert!(!done.contains("--dry-run"), "{done}");
    }
}
