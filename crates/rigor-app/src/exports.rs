//! The files a run or an analysis writes at the end: long CSV, Markdown, the HTML report.

use std::path::Path;

use rigor_report::format::Scale;
use rigor_report::markdown::{self, Markup};
use rigor_report::terminal::{FailureView, NetView, RateView, Resources};
use rigor_report::{BenchmarkView, StatisticView};
use rigor_store::{BenchmarkRecord, ResultFile};
use rigor_units::TimeUnit;

use crate::analysis::Analyses;
use crate::comparisons::Computed;
use crate::error::{AppError, Result};
use crate::report_view;
use crate::settings::{ExportPaths, Exports, SortOrder};

/// Failures of a benchmark, in words ([`rigor_report::terminal::failure_lines`]).
pub fn failure_lines(b: &BenchmarkRecord) -> Vec<String> {
    let (measured, codes) = b.non_zero_exits();
    let failures: Vec<FailureView<'_>> = b
        .failures
        .iter()
        .map(|f| FailureView {
            // Files without the number show the index counting warm-up executions, as they did.
            execution: f
                .stage
                .is_command()
                .then(|| (f.number.unwrap_or(f.execution + 1), f.warmup)),
            reason: &f.reason,
            stderr_tail: &f.stderr_tail,
        })
        .collect();
    rigor_report::terminal::failure_lines(measured, &codes, &failures)
}

/// Unanalysed reasons as text, one per benchmark (empty when analysed).
pub fn reasons(analyses: &Analyses) -> Vec<Option<String>> {
    analyses
        .iter()
        .map(|a| a.as_ref().err().map(ToString::to_string))
        .collect()
}

/// The report crate's views of every benchmark (`failures` and `reasons` outlive them), times
/// in `unit` when one is given.
pub fn views<'a>(
    result: &'a ResultFile,
    analyses: &'a Analyses,
    failures: &'a [Vec<String>],
    reasons: &'a [Option<String>],
    unit: Option<TimeUnit>,
) -> Vec<BenchmarkView<'a>> {
    result
        .benchmarks
        .iter()
        .zip(analyses)
        .zip(failures)
        .zip(reasons)
        .enumerate()
        .map(|(i, (((b, a), f), r))| BenchmarkView {
            index: i + 1,
            name: &b.name,
            analysis: a.as_ref().ok(),
            failures: f,
            unanalysed: r.as_deref(),
            scale: scale_of(b, unit),
            // CPU time and memory beside wall time; a metric's own summary is the figure. No
            // imported format records each execution's CPU times: the line would show unknown
            // ones as 0 beside a peak memory some formats keep (`--metric peak-memory`
            // analyses that).
            resources: (b.metric.is_none() && result.provenance.imported_from.is_none())
                .then(|| resources(b))
                .flatten(),
            compared: None,
            value: value_alone(b, a),
            net: net_view(b, result.confidence.get()),
            startup_of: b.shell_startup.as_deref(),
            rate: rate_view(b, a.as_ref().ok()),
        })
        .collect()
}

/// A benchmark's rate (`--throughput`) from its mean time and interval; `None` without the
/// work, an analysis, or for a metric that is not a time.
fn rate_view(b: &BenchmarkRecord, a: Option<&rigor_stats::Analysis>) -> Option<RateView> {
    let work = b.work()?;
    let a = a?;
    // The work is of one measured value of the wall times (an iteration the program timed, or
    // an execution): a rate over CPU time per execution would divide it by the wrong time.
    if b.metric.is_some() {
        return None;
    }
    let s = |x: f64| rigor_units::Seconds::from_unit(x, b.unit).get();
    let ci = &a.interval;
    let (rate, lower, upper) = work.rate(s(ci.mean), s(ci.lower), s(ci.upper));
    let per = b.level_names().last().cloned().unwrap_or_default();
    Some(RateView {
        work,
        per,
        rate,
        lower,
        upper,
    })
}

/// How a benchmark's values are shown: times in `unit` (`--time-unit`) or the unit that suits
/// their size, or the quantity of the metric its samples are.
pub fn scale_of(b: &BenchmarkRecord, unit: Option<TimeUnit>) -> Scale {
    match b.quantity() {
        rigor_units::Quantity::Time => Scale::time(unit),
        other => Scale::of(other),
    }
}

/// The value of a benchmark measured in one top-level unit (too few for an interval), in
/// seconds, with that level's name.
pub fn value_alone(
    b: &BenchmarkRecord,
    a: &std::result::Result<rigor_stats::Analysis, crate::analysis::Unanalysed>,
) -> Option<(f64, String)> {
    let Err(crate::analysis::Unanalysed::TooFewUnits { units: 1, level }) = a else {
        return None;
    };
    let h = crate::analysis::hierarchy_of(b).ok()?;
    let m = h.top_means().first().copied()?;
    let s = rigor_units::Seconds::from_unit(m, b.unit).get();
    s.is_finite().then(|| (s, level.clone()))
}

/// A command's mean net of its shell's start-up, when the analysis computed one.
fn net_view(b: &BenchmarkRecord, level: f64) -> Option<NetView> {
    let n = b.analysis.as_ref()?.net.as_ref()?;
    Some(NetView {
        startup: n.startup.clone(),
        startup_mean: n.startup_mean,
        mean: n.mean,
        lower: n.lower,
        upper: n.upper,
        level,
    })
}

/// Mean user and system time and the largest peak memory of the measured executions; `None`
/// when none was recorded. (A program smaller than rigor itself has no peak memory rigor can
/// tell from its own, and a short one often no system time: its user time alone is shown.)
pub fn resources(b: &BenchmarkRecord) -> Option<Resources> {
    let measured: Vec<_> = b.executions.iter().filter(|e| !e.warmup).collect();
    let n = measured.len() as f64;
    let user = measured.iter().map(|e| e.user.get()).sum::<f64>() / n;
    let sys = measured.iter().map(|e| e.sys.get()).sum::<f64>() / n;
    let peak_rss = measured.iter().map(|e| e.max_rss).max().unwrap_or(0);
    // Simulated executions (of any schema version) charge their wall time as user time, to the
    // nanosecond, which no process is charged.
    let simulated = measured
        .iter()
        .all(|e| e.user == e.wall && e.sys.get() == 0.0 && e.max_rss == 0);
    let any = user > 0.0 || sys > 0.0 || peak_rss > 0;
    (!measured.is_empty() && any && !simulated).then_some(Resources {
        user,
        sys,
        peak_rss,
    })
}

/// Terminal summaries of every benchmark, times in `unit` when one is given; each leads with its
/// `compared` statistic when comparisons use another than the mean
/// ([`compared_statistics`](crate::analysis::compared_statistics)).
pub fn summaries(
    result: &ResultFile,
    analyses: &Analyses,
    unit: Option<TimeUnit>,
    compared: &[Option<StatisticView>],
) -> String {
    let failures: Vec<Vec<String>> = result.benchmarks.iter().map(failure_lines).collect();
    let reasons = reasons(analyses);
    let blocks: Vec<String> =
        with_compared(views(result, analyses, &failures, &reasons, unit), compared)
            .iter()
            .map(|v| rigor_report::render(v) + "\n")
            .collect();
    rigor_report::terminal::shared_warnings_once(blocks)
}

/// The views, each with its compared statistic (none when `compared` is shorter).
fn with_compared<'a>(
    views: Vec<BenchmarkView<'a>>,
    compared: &[Option<StatisticView>],
) -> Vec<BenchmarkView<'a>> {
    views
        .into_iter()
        .enumerate()
        .map(|(i, v)| BenchmarkView {
            compared: compared.get(i).cloned().flatten(),
            ..v
        })
        .collect()
}

/// A summary table in `markup`, rows in command order or (`SortOrder::MeanTime`) fastest
/// first by the statistic compared; it leads with the `compared` statistic when that is not
/// the mean. The table is followed by the comparisons, in the same markup.
pub fn table_text(markup: Markup, exports: &Exports, reported: &Reported<'_>) -> String {
    let none = vec![Vec::new(); reported.result.benchmarks.len()];
    let reasons = reasons(reported.analyses);
    let mut views = with_compared(
        views(
            reported.result,
            reported.analyses,
            &none,
            &reasons,
            exports.unit,
        ),
        reported.compared,
    );
    if exports.sort == SortOrder::MeanTime {
        // Benchmarks without a result go last.
        views.sort_by(|a, b| {
            let key = |v: &BenchmarkView<'_>| match (&v.compared, v.analysis) {
                (Some(c), _) => c.estimate,
                (None, Some(a)) => a.interval.mean,
                (None, None) => f64::INFINITY,
            };
            key(a).total_cmp(&key(b))
        });
    }
    let mut table = markdown::table_in(markup, &views);
    if let Some(m) = reported
        .result
        .benchmarks
        .iter()
        .find_map(|b| b.metric.as_ref())
    {
        // A table of another metric than wall time says which.
        table.insert_str(0, &markdown::metric_line(markup, &m.metric));
    }
    if reported.result.status == rigor_store::RunStatus::Interrupted {
        // A table of an interrupted run says so (it read as a finished run of fewer executions).
        table.insert_str(
            0,
            "Interrupted: the run was stopped before it finished; these are the executions \
             measured until then.\n\n",
        );
    }
    let comparisons = rigor_report::comparison::table_in(
        markup,
        &crate::comparisons::views(reported.comparisons),
    );
    if comparisons.is_empty() {
        table
    } else {
        format!("{table}\n{comparisons}")
    }
}

/// What a run or an analysis reports, as the exports need it.
#[derive(Debug, Clone, Copy)]
pub struct Reported<'a> {
    /// The result.
    pub result: &'a ResultFile,
    /// Each benchmark's analysis or why it has none.
    pub analyses: &'a Analyses,
    /// The comparisons.
    pub comparisons: &'a [Computed],
    /// Each benchmark's compared statistic when it is not the mean
    /// ([`compared_statistics`](crate::analysis::compared_statistics)).
    pub compared: &'a [Option<StatisticView>],
}

/// Writes the HTML report of an analysed result.
pub fn write_html(path: &Path, reported: &Reported<'_>, title: &str) -> Result<()> {
    let view = report_view::build(reported.result, reported.analyses, reported.compared, title);
    write_view(path, &view)
}

/// Writes the HTML report of a view already built.
pub fn write_view(path: &Path, view: &rigor_report::html::ReportView) -> Result<()> {
    let html = rigor_report::html::render_html(view);
    rigor_store::write_atomic(path, html.as_bytes()).map_err(|source| AppError::Write {
        what: "the HTML report",
        source,
    })
}

/// Writes the CSV, Markdown and HTML exports that were asked for (the JSON result is written as
/// the run goes).
///
/// The tables and the HTML report show `reported` (the first metric of `--metric`); the long
/// CSV and the other tools' files hold the `measured` result's own values, wall times.
pub fn write_all(exports: &Exports, reported: &Reported<'_>, measured: &ResultFile) -> Result<()> {
    let result = measured;
    let files = &exports.files;
    if let Some(path) = &files.csv {
        rigor_store::write_atomic(path, rigor_store::to_long_csv(result).as_bytes()).map_err(
            |source| AppError::Write {
                what: "the CSV export",
                source,
            },
        )?;
    }
    write_tables(exports, reported)?;
    if let Some(path) = &files.html {
        let title = report_view::title(reported.result);
        write_html(path, reported, &title)?;
    }
    write_for_tools(files, result)
}

/// Writes the Markdown, AsciiDoc and org-mode tables that were asked for as files, of
/// `reported` (`rigor run` at its end, `rigor analyze` of a saved result).
pub fn write_tables(exports: &Exports, reported: &Reported<'_>) -> Result<()> {
    let files = &exports.files;
    for (path, markup, what) in [
        (&files.markdown, Markup::Markdown, "the Markdown export"),
        (&files.asciidoc, Markup::AsciiDoc, "the AsciiDoc export"),
        (&files.orgmode, Markup::OrgMode, "the org-mode export"),
    ] {
        if let Some(path) = path {
            let text = table_text(markup, exports, reported);
            rigor_store::write_atomic(path, text.as_bytes())
                .map_err(|source| AppError::Write { what, source })?;
        }
    }
    Ok(())
}

/// The text of the export that goes to standard output (`--export-… -`), if one does: the caller
/// prints it.
pub fn stdout_text(exports: &Exports, reported: &Reported<'_>) -> Result<Option<String>> {
    let result = reported.result;
    use crate::settings::StdoutExport;
    let markup = |m| table_text(m, exports, reported);
    exports
        .stdout
        .map(|which| match which {
            StdoutExport::Json => rigor_store::to_json(result).map_err(|e| AppError::Write {
                what: "the JSON export",
                source: rigor_store::StoreError::Io {
                    path: "-".into(),
                    source: e.into(),
                },
            }),
            StdoutExport::Csv => Ok(rigor_store::to_long_csv(result)),
            StdoutExport::Markdown => Ok(markup(Markup::Markdown)),
            StdoutExport::AsciiDoc => Ok(markup(Markup::AsciiDoc)),
            StdoutExport::OrgMode => Ok(markup(Markup::OrgMode)),
            StdoutExport::HyperfineJson => Ok(rigor_store::export::to_hyperfine_json(result)),
            StdoutExport::HyperfineCsv => Ok(rigor_store::export::to_hyperfine_csv(result)),
        })
        .transpose()
}

/// Writes the exports for other tools that were asked for: Bencher Metric Format JSON, the
/// Otava CSV (a new file, or one more row when the file has the same columns), and hyperfine's
/// JSON and CSV.
pub fn write_for_tools(files: &ExportPaths, result: &ResultFile) -> Result<()> {
    if let Some(path) = &files.bmf {
        rigor_store::write_atomic(path, rigor_store::export::to_bmf(result).as_bytes()).map_err(
            |source| AppError::Write {
                what: "the Bencher Metric Format export",
                source,
            },
        )?;
    }
    if let Some(path) = &files.otava {
        write_otava(path, result)?;
    }
    use rigor_store::export::{to_hyperfine_csv, to_hyperfine_json};
    for (path, text, what) in [
        (
            &files.hyperfine_json,
            to_hyperfine_json as fn(&ResultFile) -> String,
            "the hyperfine JSON export",
        ),
        (
            &files.hyperfine_csv,
            to_hyperfine_csv,
            "the hyperfine CSV export",
        ),
    ] {
        if let Some(path) = path {
            rigor_store::write_atomic(path, text(result).as_bytes())
                .map_err(|source| AppError::Write { what, source })?;
        }
    }
    Ok(())
}

fn write_otava(path: &Path, result: &ResultFile) -> Result<()> {
    use rigor_store::export::{csv_text, otava_header, otava_row};
    let header = otava_header(result);
    let row = otava_row(result, jiff::Timestamp::now());
    let write_err = |source| AppError::Write {
        what: "the Otava CSV export",
        source,
    };
    let existing = match std::fs::read_to_string(path) {
        Ok(text) if !text.trim().is_empty() => text,
        Ok(_) => String::new(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(write_err(rigor_store::StoreError::Io {
                path: path.to_path_buf(),
                source: e,
            }));
        }
    };
    let text = if existing.is_empty() {
        csv_text(&[header, row])
    } else {
        let first = existing.lines().next().unwrap_or_default();
        let want = csv_text(&[header]);
        if first != want.trim_end() {
            return Err(AppError::OtavaColumns {
                path: path.to_path_buf(),
                found: first.to_string(),
                expected: want.trim_end().to_string(),
            });
        }
        let mut text = existing;
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text + &csv_text(&[row])
    };
    rigor_store::write_atomic(path, text.as_bytes()).map_err(write_err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigor_store::{ExecutionRecord, Layout};
    use rigor_units::Seconds;

    fn with(user: f64, sys: f64, max_rss: u64) -> BenchmarkRecord {
        let mut b = BenchmarkRecord::new("b", "b", Layout::EXECUTIONS);
        b.executions = (0..3)
            .map(|i| ExecutionRecord {
                preempted: None,
                run_delay: None,
                metrics: Default::default(),
                build: None,
                round: i,
                execution: i,
                warmup: false,
                wall: Seconds(0.02),
                user: Seconds(user),
                sys: Seconds(sys),
                max_rss,
                exit_code: None,
                env_pad: None,
                resolution: None,
            })
            .collect();
        b
    }

    /// A short program smaller than rigor (no system time, no peak memory rigor can tell) still
    /// has its user time shown: the line came and went with whether the kernel charged a tick of
    /// system time.
    #[test]
    fn user_time_alone_is_shown() {
        let r = resources(&with(0.016, 0.0, 0)).expect("user time alone");
        assert_eq!((r.user, r.sys, r.peak_rss), (0.016, 0.0, 0));
        assert!(resources(&with(0.0, 0.0, 0)).is_none());
        assert_eq!(
            resources(&with(0.0, 0.0, 4096)).map(|r| r.peak_rss),
            Some(4096)
        );
    }
}
