//! The dashboard's pages: the index and one page per benchmark.
//!
//! Every page is complete without scripts: the plots are inline SVG drawn here, and every number
//! is also in a table. One small hand-written script (`templates/dashboard.js`, embedded whole)
//! adds filtering and sorting on the index and hover, click-through and toggles on a benchmark
//! page. It runs inline under a Content-Security-Policy that allows exactly that script (by its
//! SHA-256) and nothing else: no other script, no network, no `'self'` (which does not cover
//! `file://` pages in every browser).

use std::collections::HashMap;
use std::fmt::Write;

use sha2::{Digest, Sha256};

use super::plots::{self, Geometry, signed_percent, sparkline};
use super::view::{
    ArchiveNav, BenchmarkView, ChangeMark, ChangeRow, Measured, Overview, PointState, SeriesView,
    SiteMeta, SiteView, VersionComparison, VersionPoint,
};
use crate::format::Scale;
use crate::html::escape::{Escaped, escape};
use crate::html::page::fill;
use crate::html::plots::{Drawn, PlotResult, label_svg};
use rigor_units::{Metric, Quantity};

const TEMPLATE: &str = include_str!("../../templates/dashboard.html");
const REPORT_STYLE: &str = include_str!("../../templates/report.css");
const STYLE: &str = include_str!("../../templates/dashboard.css");
const SCRIPT: &str = include_str!("../../templates/dashboard.js");
/// Rows of the project-wide change table on the index.
pub const MAX_CHANGES: usize = 200;

/// The CSP source that allows exactly the embedded script: `'sha256-…'`.
pub fn script_source() -> String {
    format!("'sha256-{}'", base64(&Sha256::digest(SCRIPT.as_bytes())))
}

/// Standard base64 (RFC 4648, with padding). Written here because the one use, a CSP hash, does
/// not justify a dependency.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The page around `body`.
fn shell(site: &SiteMeta, kind: &str, title: &str, body: &str) -> String {
    let style = format!("{REPORT_STYLE}{STYLE}");
    fill(
        TEMPLATE,
        &[
            ("title", &escape(title)),
            ("version", &escape(&site.rigor_version)),
            ("style", &style),
            ("kind", kind),
            ("script_hash", &script_source()),
            ("script", SCRIPT),
            ("body", body),
        ],
    )
}

/// The site's title, or a default.
fn site_title(site: &SiteMeta) -> &str {
    if site.title.is_empty() {
        "rigor performance dashboard"
    } else {
        &site.title
    }
}

/// The web address of a commit, when the site has a repository address that is a web address.
fn commit_url(site: &SiteMeta, commit: &str) -> Option<String> {
    let repo = site.repo_url.as_deref()?.trim_end_matches('/');
    let web = repo.starts_with("https://") || repo.starts_with("http://");
    (web && !commit.is_empty()).then(|| format!("{repo}/commit/{commit}"))
}

/// A version's name as a link to its commit where possible, else as text.
fn version_link(site: &SiteMeta, rev: &str, commit: Option<&str>) -> String {
    let short: String = rev.chars().take(12).collect();
    match commit.and_then(|c| commit_url(site, c)) {
        Some(url) => format!(
            "<a class=\"commit\" href=\"{}\"><code>{}</code></a>",
            Escaped(&url),
            Escaped(&short)
        ),
        None => format!(
            "<code title=\"{}\">{}</code>",
            Escaped(rev),
            Escaped(&short)
        ),
    }
}

/// `1.234 ms (1.220 ms–1.250 ms)`, in the unit of `quantity` that suits the mean.
fn estimate(m: &Measured, quantity: &Quantity) -> String {
    estimate_in(m, &Scale::of(quantity.clone()), m.mean)
}

/// `1.234 ms (1.220 ms–1.250 ms)` in the unit of `scale` that suits `reference`, so that a
/// table's rows line up.
fn estimate_in(m: &Measured, scale: &Scale, reference: f64) -> String {
    let t = |v: f64| scale.show(v, reference);
    format!(
        "{} <span class=\"ci\">({}–{})</span>",
        t(m.mean),
        t(m.lower),
        t(m.upper)
    )
}

/// A change's interval as percentages.
fn change_interval(c: &ChangeMark) -> String {
    c.interval.map_or("unbounded".into(), |(lo, hi)| {
        format!("{} to {}", signed_percent(lo), signed_percent(hi))
    })
}

/// The class of a change's size: `regression` or `improvement`.
fn verdict_class(c: &ChangeMark) -> &'static str {
    if c.verdict == "regression" {
        "regression"
    } else {
        "improvement"
    }
}

/// Renders the index page.
pub fn render_index(view: &SiteView) -> String {
    let site = &view.site;
    let title = site_title(site);
    let mut body = String::new();
    // A benchmark's pages of other metrics are rows of their own, not more benchmarks.
    let walls = || view.benchmarks.iter().filter(|b| b.metric.is_wall());
    let series: usize = walls().map(|b| b.series.len()).sum();
    let _ = writeln!(
        body,
        "<header>\n<h1>{}</h1>\n<dl class=\"meta\"><dt>Generated</dt><dd>{}</dd>\
         <dt>rigor</dt><dd>{}</dd><dt>Benchmarks</dt><dd>{} ({series} series)</dd></dl>\n</header>",
        Escaped(title),
        Escaped(&view.generated),
        Escaped(&site.rigor_version),
        walls().count(),
    );
    changes_table(&mut body, view);
    benchmarks_table(&mut body, view);
    shell(site, "index", title, &body)
}

fn changes_table(out: &mut String, view: &SiteView) {
    out.push_str("<section id=\"changes\">\n<h2>Latest changes</h2>\n");
    if view.changes.is_empty() {
        out.push_str("<p class=\"note\">No changes detected.</p>\n</section>\n");
        return;
    }
    if view.changes.len() > MAX_CHANGES {
        let _ = writeln!(
            out,
            "<p class=\"note\">The newest {MAX_CHANGES} of {} changes; each benchmark's page lists all of its own.</p>",
            view.changes.len()
        );
    }
    out.push_str(
        "<table class=\"changes\" id=\"change-table\">\n<thead><tr><th>Version</th><th>Date</th><th>Subject</th>\
         <th>Benchmark</th><th>Machine</th><th>Branch</th><th class=\"num\">Change</th><th>Interval</th>\
         <th>Method</th><th>Status</th></tr></thead>\n<tbody>\n",
    );
    for c in view.changes.iter().take(MAX_CHANGES) {
        change_row(out, &view.site, c);
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

fn change_row(out: &mut String, site: &SiteMeta, c: &ChangeRow) {
    let m = &c.change;
    let _ = writeln!(
        out,
        "<tr class=\"crow {}\" data-name=\"{}\" data-machine=\"{}\" data-branch=\"{}\"><td>{}</td><td class=\"date\">{}</td><td>{}</td>\
         <td><a href=\"{}\">{}</a>{}</td><td>{}</td><td>{}</td><td class=\"num {}\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        change_class(m),
        Escaped(&c.benchmark),
        Escaped(&c.machine),
        Escaped(&c.branch),
        version_link(site, &m.rev, c.commit.as_deref()),
        Escaped(&day(c.time.as_deref())),
        Escaped(c.subject.as_deref().unwrap_or("")),
        Escaped(&c.page),
        Escaped(&c.benchmark),
        metric_tag(&c.metric),
        Escaped(&c.machine),
        Escaped(&c.branch),
        verdict_class(m),
        signed_percent(m.ratio),
        change_interval(m),
        Escaped(&m.method),
        status_text(m),
    );
}

/// A metric other than wall time after a benchmark's name, as `text` in the legend's style
/// (` peak-memory`); nothing for wall time, which every page without a name draws.
fn metric_span(metric: &Metric, text: &str) -> String {
    if metric.is_wall() {
        String::new()
    } else {
        format!(" <span class=\"legend metric\">{}</span>", Escaped(text))
    }
}

/// [`metric_span`] with the metric's name, as the index's tables name it.
fn metric_tag(metric: &Metric) -> String {
    metric_span(metric, metric.name())
}

/// [`metric_span`] with the metric in words, as a page's heading says it.
fn metric_heading(metric: &Metric) -> String {
    metric_span(metric, &metric.description())
}

/// The classes of a change's row: its status, and `confounded` when it cannot be told from a
/// session boundary.
fn change_class(m: &ChangeMark) -> String {
    let status: String = m
        .status
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    if m.confounded {
        format!("status-{status} confounded")
    } else {
        format!("status-{status}")
    }
}

/// A change's status as the tables show it, with a confounded change said to be one and a
/// confirmed one said to be confirmed.
fn status_text(m: &ChangeMark) -> String {
    let note = if m.confounded {
        " <span class=\"legend\">(confounded with a session boundary)</span>"
    } else if m.confirmed {
        " <span class=\"legend\">(confirmed)</span>"
    } else {
        ""
    };
    format!("{}{note}", Escaped(&m.status))
}

/// The date of an RFC 3339 time (`2026-01-13T12:00:00Z` → `2026-01-13`).
fn day(time: Option<&str>) -> String {
    time.map_or(String::new(), |t| t.chars().take(10).collect())
}

fn options(out: &mut String, id: &str, label: &str, values: &[&str]) {
    let _ = write!(
        out,
        "<label>{label} <select id=\"{id}\"><option value=\"\">all</option>"
    );
    for v in values {
        let _ = write!(out, "<option>{}</option>", Escaped(v));
    }
    out.push_str("</select></label>\n");
}

fn benchmarks_table(out: &mut String, view: &SiteView) {
    out.push_str("<section id=\"benchmarks\">\n<h2>Benchmarks</h2>\n");
    let mut machines: Vec<&str> = Vec::new();
    let mut branches: Vec<&str> = Vec::new();
    for s in view.benchmarks.iter().flat_map(|b| &b.series) {
        machines.push(&s.machine);
        branches.push(&s.branch);
    }
    for list in [&mut machines, &mut branches] {
        list.sort_unstable();
        list.dedup();
    }
    out.push_str("<div class=\"controls\" id=\"controls\" hidden>\n<input type=\"search\" id=\"filter\" placeholder=\"Filter by name\" aria-label=\"Filter by name\">\n");
    options(out, "machine", "Machine", &machines);
    options(out, "branch", "Branch", &branches);
    out.push_str(
        "<label>Sort <select id=\"sort\"><option value=\"name\">by name</option>\
         <option value=\"change\">by latest change</option></select></label>\n<span id=\"shown\" class=\"legend\"></span>\n</div>\n",
    );
    if view.benchmarks.is_empty() {
        out.push_str("<p class=\"note\">The history holds no benchmarks.</p>\n</section>\n");
        return;
    }
    // Rank of each series' newest change in the project-wide list (newest first), per metric.
    let mut rank: HashMap<(&str, &str, &str, &Metric), usize> = HashMap::new();
    for (i, c) in view.changes.iter().enumerate() {
        rank.entry((&c.benchmark, &c.machine, &c.branch, &c.metric))
            .or_insert(i);
    }
    out.push_str(
        "<table class=\"bench\">\n<thead><tr><th>Benchmark</th><th>Machine</th><th>Branch</th>\
         <th>Latest</th><th>History</th><th>Latest change</th></tr></thead>\n",
    );
    let mut group: Option<&str> = None;
    for b in &view.benchmarks {
        if group != Some(b.group.as_str()) {
            if group.is_some() {
                out.push_str("</tbody>\n");
            }
            group = Some(&b.group);
            let name = if b.group.is_empty() {
                "(no group)"
            } else {
                &b.group
            };
            let _ = writeln!(
                out,
                "<tbody class=\"group\"><tr class=\"group\"><th colspan=\"6\">{}</th></tr>",
                Escaped(name)
            );
        }
        for s in &b.series {
            let r = rank
                .get(&(
                    b.name.as_str(),
                    s.machine.as_str(),
                    s.branch.as_str(),
                    &b.metric,
                ))
                .copied()
                .unwrap_or(usize::MAX / 2);
            index_row(out, b, s, r);
        }
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

fn index_row(out: &mut String, b: &BenchmarkView, s: &SeriesView, rank: usize) {
    let latest = s.versions.iter().rev().find_map(|v| match &v.state {
        PointState::Measured(m) => Some((v, m)),
        _ => None,
    });
    let latest = latest.map_or("<span class=\"note\">none</span>".to_string(), |(v, m)| {
        format!(
            "{} <span class=\"legend\">at <code>{}</code></span>",
            estimate(m, &s.quantity),
            Escaped(&short(&v.rev))
        )
    });
    let change = s.changes.last().map_or(String::new(), |c| {
        format!(
            "<span class=\"{}\"><span class=\"{}\">{}</span> at <code>{}</code>{}</span>",
            change_class(c),
            verdict_class(c),
            signed_percent(c.ratio),
            Escaped(&short(&c.rev)),
            match (c.confounded, c.status.as_str()) {
                (true, _) => " (confounded)".to_string(),
                (false, "new") => String::new(),
                (false, status) => format!(" ({})", Escaped(status)),
            }
        )
    });
    let _ = writeln!(
        out,
        "<tr class=\"row\" data-name=\"{name}\" data-machine=\"{machine}\" data-branch=\"{branch}\" data-change=\"{rank}\">\
         <td class=\"name\"><a href=\"{page}\">{name}</a>{tag}</td><td>{machine}</td><td>{branch}</td><td>{latest}</td><td>{}</td><td>{change}</td></tr>",
        sparkline(s),
        name = Escaped(&b.name),
        machine = Escaped(&s.machine),
        branch = Escaped(&s.branch),
        page = Escaped(&b.page),
        tag = metric_tag(&b.metric),
    );
}

fn short(rev: &str) -> String {
    rev.chars().take(12).collect()
}

/// Writes one plot as a figure: the labelled SVG, or the reason there is none.
fn figure(out: &mut String, drawn: PlotResult, id: &str, class: &str, title: &str) {
    match drawn {
        Ok(Drawn::Svg(svg)) => out.push_str(label_svg(&svg, id, class, title).trim_end()),
        Ok(Drawn::Empty(why)) => {
            let _ = write!(out, "<p class=\"no-plot\">{}</p>", Escaped(&why));
        }
        Err(e) => {
            let _ = write!(out, "<p class=\"no-plot\">{}</p>", Escaped(&e.to_string()));
        }
    }
    out.push('\n');
}

/// A page's address relative to another page in `b/` (both are relative to the site's root).
fn sibling(page: &str) -> &str {
    page.strip_prefix("b/").unwrap_or(page)
}

/// Renders one archive page: one series' older versions, which no new version changes. Like a
/// benchmark's page it lives one folder below the index; `b` holds the one series, cut to the
/// archived versions.
pub fn render_archive(site: &SiteMeta, b: &BenchmarkView, nav: &ArchiveNav) -> String {
    let mut body = String::new();
    let (first, last) = b.series.first().map_or((0, 0), |s| {
        (s.first, (s.first + s.versions.len()).saturating_sub(1))
    });
    let _ = writeln!(
        body,
        "<nav class=\"crumbs\"><a href=\"../index.html\">{}</a> › <a href=\"{}\">{}</a></nav>\n\
         <header><h1>{}{} <span class=\"legend\">versions {first}–{last}</span></h1></header>",
        Escaped(site_title(site)),
        Escaped(sibling(&nav.main)),
        Escaped(&b.name),
        Escaped(&b.name),
        metric_heading(&b.metric),
    );
    body.push_str("<p class=\"pager\">");
    if let Some(p) = &nav.previous {
        let _ = write!(
            body,
            "<a href=\"{}\">← older versions</a> · ",
            Escaped(sibling(p))
        );
    }
    if let Some(n) = &nav.next {
        let _ = write!(
            body,
            "<a href=\"{}\">newer versions →</a> · ",
            Escaped(sibling(n))
        );
    }
    let _ = writeln!(
        body,
        "<a href=\"{}\">the newest versions</a></p>",
        Escaped(sibling(&nav.main))
    );
    series_page(site, b, body, &format!(", versions {first}–{last}"))
}

/// Renders one benchmark's page; it lives one folder below the index.
pub fn render_benchmark(site: &SiteMeta, b: &BenchmarkView) -> String {
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<nav class=\"crumbs\"><a href=\"../index.html\">{}</a></nav>\n<header><h1>{}{}</h1></header>",
        Escaped(site_title(site)),
        Escaped(&b.name),
        metric_heading(&b.metric),
    );
    metric_links(&mut body, b);
    if b.series.len() > 1 {
        body.push_str("<p class=\"toggles\" hidden>Show: ");
        for (i, s) in b.series.iter().enumerate() {
            let _ = write!(
                body,
                "<label><input type=\"checkbox\" value=\"series-{i}\" checked> {} / {}</label>",
                Escaped(&s.machine),
                Escaped(&s.branch)
            );
        }
        body.push_str("</p>\n");
    }
    series_page(site, b, body, "")
}

/// Ends a benchmark's page or an archive page: `body`, then each series' section, in a page
/// titled by the benchmark, its metric, `versions` (the versions an archive page shows; empty on
/// a benchmark's page) and the site.
fn series_page(site: &SiteMeta, b: &BenchmarkView, mut body: String, versions: &str) -> String {
    for (i, s) in b.series.iter().enumerate() {
        series_section(&mut body, site, s, i);
    }
    let title = format!(
        "{}{}{versions} — {}",
        b.name,
        metric_title(&b.metric),
        site_title(site)
    );
    shell(site, "benchmark", &title, &body)
}

/// What a page's title says of its metric: nothing for wall time, else `, peak-memory`.
fn metric_title(metric: &Metric) -> String {
    if metric.is_wall() {
        String::new()
    } else {
        format!(", {}", metric.name())
    }
}

/// Links between a benchmark's pages of each metric published (plain links: no script needed),
/// the page's own metric not a link.
fn metric_links(out: &mut String, b: &BenchmarkView) {
    if b.metrics.is_empty() {
        return;
    }
    out.push_str("<nav class=\"metrics\">Metric:");
    for (k, link) in b.metrics.iter().enumerate() {
        let sep = if k == 0 { " " } else { " · " };
        let name = Escaped(link.metric.name());
        if link.metric == b.metric {
            let _ = write!(out, "{sep}<strong aria-current=\"page\">{name}</strong>");
        } else {
            let _ = write!(
                out,
                "{sep}<a href=\"{}\">{name}</a>",
                Escaped(sibling(&link.page))
            );
        }
    }
    out.push_str("</nav>\n");
}

fn series_section(out: &mut String, site: &SiteMeta, s: &SeriesView, i: usize) {
    let id = format!("series-{i}");
    let _ = writeln!(
        out,
        "<section class=\"series\" id=\"{id}\">\n<h2>{} / {}</h2>",
        Escaped(&s.machine),
        Escaped(&s.branch)
    );
    let level = s.versions.iter().find_map(|v| match &v.state {
        PointState::Measured(m) => Some(m.level),
        _ => None,
    });
    if let Some(o) = &s.overview {
        overview_section(out, s, o, &id);
    }
    let (drawn, Geometry { x0, x1, width }) = plots::history(s);
    let _ = writeln!(
        out,
        "<figure><div class=\"plotbox\" data-table=\"{id}-versions\" data-x0=\"{x0}\" data-x1=\"{x1}\" data-w=\"{width}\" data-n=\"{}\">",
        s.versions.len()
    );
    figure(
        out,
        drawn,
        &format!("{id}-history"),
        "history",
        "History of the mean",
    );
    let _ = writeln!(
        out,
        "</div><figcaption>{}{}</figcaption></figure>",
        history_caption(s, level),
        if s.first > 0 || s.overview.is_some() {
            format!(
                " Versions {}–{} of the history.",
                s.first,
                (s.first + s.versions.len()).saturating_sub(1)
            )
        } else {
            String::new()
        }
    );
    out.push_str("<h3>Noise per level</h3>\n<figure>");
    figure(
        out,
        plots::noise(s),
        &format!("{id}-noise"),
        "noise",
        "Noise per level",
    );
    if s.levels.is_empty() {
        // The plot already says that no components were stored: no caption repeats it.
        out.push_str("</figure>\n");
    } else {
        out.push_str(
            "<figcaption class=\"legend\">Standard deviation of each level as a percentage of \
             the mean:",
        );
        for (k, name) in s.levels.iter().enumerate() {
            let _ = write!(
                out,
                "<span class=\"swatch line\" style=\"background:{}\"></span>{}",
                crate::html::plots::palette_css(k),
                Escaped(name)
            );
        }
        out.push_str(
            ". A rising line means that level is getting noisier.</figcaption></figure>\n",
        );
    }
    series_changes(out, site, s);
    compare_section(out, s, &id);
    versions_table(out, site, s, &id);
    out.push_str("</section>\n");
}

/// What the history plot shows, said for the marks this series has.
fn history_caption(s: &SeriesView, level: Option<f64>) -> String {
    let measured: Vec<&Measured> = s
        .versions
        .iter()
        .filter_map(|v| match &v.state {
            PointState::Measured(m) => Some(m),
            _ => None,
        })
        .collect();
    let mut out = format!(
        "Each version's level (line) with its {} confidence interval (band), in history order: \
         all of its runs pooled, with the shifts of the sessions they were measured in taken out, \
         as <code>rigor track show</code> and change detection take it.",
        level.map_or("".into(), |l| format!(
            "{}%",
            crate::html::scale::tick(l * 100.0)
        )),
    );
    if !plots::session_starts(s).is_empty() {
        out.push_str(" Thin violet lines: a new session starts (a <code>track run</code> batch, a farm job, a bisection step).");
    } else if measured.len() > 1 && plots::session_count(s) == 1 {
        out.push_str(" Every version was measured in one session (no session boundary).");
    } else if measured.len() > 1 {
        out.push_str(" Nearly every version was measured in a session of its own (session boundaries not drawn).");
    }
    if measured.iter().any(|m| m.anchored()) {
        out.push_str(
            " Green rings: versions measured again as anchors, tying their sessions together.",
        );
    }
    if measured.iter().any(|m| m.identical) {
        out.push_str(
            " Grey bars join versions whose builds are byte-identical: one point, one level.",
        );
    }
    out.push_str(
        " Dashed orange lines: detected changes, labelled with their size (pale and ticked: \
         acknowledged; grey dots: marked invalid; violet with a ?: confounded with a session \
         boundary). Red crosses: versions that failed; grey ticks: versions without a result for \
         this benchmark. Hover for a version, click to open its commit",
    );
    if s.quantity == Quantity::Time {
        out.push_str(
            "; shift-click a version to make it the baseline of the comparison below, Ctrl- or \
             ⌘-click to make it the candidate.",
        );
    } else {
        out.push('.');
    }
    if measured.iter().any(|m| m.sessions_unknown) {
        out.push_str(
            " <strong class=\"unknown\">The spread between sessions is unknown</strong> (no version \
             of this series was measured in two sessions): the intervals hold each version's own \
             noise only, and a step at a session boundary cannot be told from the session.",
        );
    }
    out
}

/// The whole history in brief and the links to the archive pages of older versions.
fn overview_section(out: &mut String, s: &SeriesView, o: &Overview, id: &str) {
    out.push_str("<h3>Whole history</h3>\n<figure>");
    figure(
        out,
        plots::overview(o, s.first),
        &format!("{id}-overview"),
        "overview",
        "The whole history in brief",
    );
    let _ = writeln!(
        out,
        "<figcaption>All {} versions, consecutive versions pooled: the mean of their levels (line) and the span \
         of their intervals (band). Dashed orange lines: detected changes. The shaded part is drawn in detail below; \
         older versions are on the pages listed here.</figcaption></figure>",
        o.versions
    );
    out.push_str("<p class=\"archives\">Older versions:");
    for a in &s.archives {
        let _ = write!(
            out,
            " <a href=\"{}\">{}–{}</a>",
            Escaped(sibling(&a.page)),
            a.first,
            a.last
        );
    }
    out.push_str("</p>\n");
}

fn series_changes(out: &mut String, site: &SiteMeta, s: &SeriesView) {
    out.push_str("<h3>Changes</h3>\n");
    if s.changes.is_empty() {
        out.push_str("<p class=\"note\">No changes detected.</p>\n");
        return;
    }
    out.push_str(
        "<table class=\"changes\"><thead><tr><th>From</th><th>To</th><th class=\"num\">Change</th>\
         <th>Interval</th><th>Method</th><th>Status</th></tr></thead><tbody>\n",
    );
    let commit = |rev: &str, known: &Option<String>| {
        known.clone().or_else(|| {
            s.versions
                .iter()
                .find(|v| v.rev == rev)
                .and_then(|v| v.commit.clone())
        })
    };
    for c in s.changes.iter().rev() {
        let from = c.previous_rev.as_deref().map_or(String::new(), |p| {
            version_link(site, p, commit(p, &c.previous_commit).as_deref())
        });
        let _ = writeln!(
            out,
            "<tr class=\"{}\"><td>{from}</td><td>{}</td><td class=\"num {}\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            change_class(c),
            version_link(site, &c.rev, commit(&c.rev, &c.commit).as_deref()),
            verdict_class(c),
            signed_percent(c.ratio),
            change_interval(c),
            Escaped(&c.method),
            status_text(c),
        );
    }
    out.push_str("</tbody></table>\n");
}

/// Two versions compared: the one the page opens with is written here (and is all a reader without
/// scripts gets); the script fills two version pickers and recomputes Fieller's interval from the
/// per-version numbers on the version rows and the t table on this section.
fn compare_section(out: &mut String, s: &SeriesView, id: &str) {
    out.push_str("<h3>Compare two versions</h3>\n");
    let (Some(q), Some(c)) = (&s.quantiles, &s.comparison) else {
        out.push_str(
            "<p class=\"note\">Fewer than two versions can be compared: a comparison needs the \
             variance of each version's level.</p>\n",
        );
        return;
    };
    let table: Vec<String> = q.values.iter().map(|t| format!("{t:.7}")).collect();
    // The page's script words a comparison of times ("slower"): on a page of another metric
    // only the comparison written here is shown (its class keeps the script away).
    let time = s.quantity == Quantity::Time;
    let class = if time { "compare" } else { "compare-fixed" };
    let _ = writeln!(
        out,
        "<div class=\"{class}\" id=\"{id}-compare\" data-table=\"{id}-versions\" data-base=\"{}\" \
         data-cand=\"{}\" data-level=\"{}\" data-threshold=\"{}\" data-step=\"{}\" data-t=\"[{}]\">\n\
         <p class=\"cmp-pick\" hidden><label>Baseline <select class=\"cmp-base\"></select></label> \
         <label>Candidate <select class=\"cmp-cand\"></select></label></p>",
        c.baseline,
        c.candidate,
        q.level,
        c.threshold,
        q.step,
        table.join(","),
    );
    let name = |i: usize| s.versions.get(i).map_or(String::new(), |v| short(&v.rev));
    let (lo, hi) = c.interval.unwrap_or((f64::NAN, f64::NAN));
    let _ = writeln!(
        out,
        "<p class=\"cmp-out\" data-ratio=\"{}\" data-lower=\"{lo}\" data-upper=\"{hi}\" aria-live=\"polite\">{}</p>",
        c.ratio,
        Escaped(&words_for(
            c,
            (&name(c.baseline), &name(c.candidate)),
            &s.quantity
        )),
    );
    if !time {
        out.push_str(
            "<p class=\"legend\">The ratio of the candidate's level to the baseline's with \
             Fieller's interval (Welch–Satterthwaite degrees of freedom), in the words of \
             <code>rigor compare --metric</code>, from the two levels the plot shows and their \
             variances. Shown: the newest version against the last one before the newest change; \
             <code>rigor track show --metric</code> lists every version's level.</p>\n</div>\n",
        );
        return;
    }
    out.push_str(
        "<p class=\"legend\">The ratio of the candidate's level to the baseline's with Fieller's \
         interval (Welch–Satterthwaite degrees of freedom), in the words of <code>rigor compare</code>, \
         from the two levels the plot shows and their variances (each with the spread between \
         sessions where the history measured it; the two levels are taken as independent). Shown: \
         the newest version against the last one before the newest change; picking other versions \
         (from the menus, or by shift-clicking and Ctrl-clicking points of the history plot) needs \
         scripts.</p>\n</div>\n",
    );
}

/// `v29 is 4.6% slower than v11 (95% CI +2.1% .. +7.2%); ratio 1.0462 (1.0213–1.0718): regression
/// (beyond the ±1% threshold)`, the words of `rigor compare`. The page's script writes the same.
pub fn comparison_words(c: &VersionComparison, baseline: &str, candidate: &str) -> String {
    words_for(c, (baseline, candidate), &Quantity::Time)
}

/// [`comparison_words`] in the words of `quantity` (`slower`/`faster` for times,
/// `larger`/`smaller` for sizes, …: `crate::comparison::direction_words`); the ratio stays a
/// ratio whatever the quantity.
fn words_for(
    c: &VersionComparison,
    (baseline, candidate): (&str, &str),
    quantity: &Quantity,
) -> String {
    let change = (c.ratio - 1.0) * 100.0;
    let (up, down) = crate::comparison::direction_words(quantity);
    let direction = if change >= 0.0 { up } else { down };
    let level = crate::format::level_percent(c.level);
    let (ci, ratio) = match c.interval {
        Some((lo, hi)) => (
            format!(
                "{level}% CI {} .. {}",
                signed_percent(lo),
                signed_percent(hi)
            ),
            format!("ratio {:.4} ({:.4}–{:.4})", c.ratio, lo, hi),
        ),
        None => (
            format!("{level}% CI unbounded"),
            format!("ratio {:.4}", c.ratio),
        ),
    };
    let band = rigor_units::percent_text(100.0 * c.threshold);
    let verdict = match c.verdict.as_str() {
        "regression" | "improvement" => format!("{} (beyond the ±{band} threshold)", c.verdict),
        "equivalent" => format!("equivalent (within ±{band})"),
        "unbounded" => format!(
            "unbounded: the baseline is too noisy (Fieller g = {:.2} ≥ 1); need more top-level repetitions",
            c.g
        ),
        other => other.to_string(),
    };
    let mut words = format!(
        "{candidate} is {} {direction} than {baseline} ({ci}); {ratio}: {verdict}",
        rigor_units::percent_text(change.abs())
    );
    if c.confounded {
        words.push_str(
            ". Confounded: the two were measured in sessions no version ties together, so the \
             difference cannot be told from a session shift",
        );
    } else if c.sessions_unknown {
        words.push_str(". The spread between sessions is unknown and not in the interval");
    }
    words
}

fn versions_table(out: &mut String, site: &SiteMeta, s: &SeriesView, id: &str) {
    let open = if s.versions.len() <= 60 { " open" } else { "" };
    let _ = writeln!(
        out,
        "<details{open}><summary>Every version ({})</summary>\n<table class=\"versions\" id=\"{id}-versions\">\
         <thead><tr><th>#</th><th>Version</th><th>Level (interval)</th><th>Runs</th><th>Date</th><th>Subject</th></tr></thead><tbody>",
        s.versions.len()
    );
    let unit = (Scale::of(s.quantity.clone()), plots::typical(s));
    for (i, v) in s.versions.iter().enumerate() {
        version_row(out, site, v, (i, s.first + i), &unit);
    }
    out.push_str("</tbody></table>\n</details>\n");
}

/// A version's row; `i` is its place on the page (which the script and the plot use) and `at`
/// its place in the whole history (which the reader sees).
fn version_row(
    out: &mut String,
    site: &SiteMeta,
    v: &VersionPoint,
    (i, at): (usize, usize),
    (scale, reference): &(Scale, f64),
) {
    let mut data = String::new();
    if let PointState::Measured(m) = &v.state {
        if let Some(r) = m.ratio_input {
            // Fieller's inputs for the page's comparison (shortest round-trip decimals), the
            // resolution that floors it, and what its notes need.
            let _ = write!(
                data,
                " data-mean=\"{:e}\" data-var=\"{:e}\" data-units=\"{}\" data-comp=\"{}\"",
                m.mean, r.var_of_mean, r.units, m.component
            );
            if let Some(step) = r.step {
                let _ = write!(data, " data-res=\"{step:e}\"");
            }
            if m.sessions_unknown {
                data.push_str(" data-su=\"1\"");
            }
        }
        if m.anchored() {
            data.push_str(" data-anchor=\"1\"");
        }
        if m.identical {
            data.push_str(" data-identical=\"1\"");
        }
    }
    let (class, value) = match &v.state {
        PointState::Measured(m) => ("measured", estimate_in(m, scale, *reference)),
        PointState::Unanalysed => ("missing", "measured, not analysed".to_string()),
        PointState::Failed => ("failed", "failed".to_string()),
        PointState::Missing => ("missing", "not measured".to_string()),
    };
    let _ = writeln!(
        out,
        "<tr class=\"{class}\" data-i=\"{i}\" data-rev=\"{}\"{data}><td class=\"num\">{at}</td><td>{}</td><td>{value}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        Escaped(&v.rev),
        version_link(site, &v.rev, v.commit.as_deref()),
        runs_text(&v.state),
        Escaped(v.time.as_deref().unwrap_or("")),
        Escaped(v.subject.as_deref().unwrap_or("")),
    );
}

/// A version's runs in words: each run's session and role (`session 12; session 14, anchor`),
/// then whether its build is identical to the version before and whether its interval lacks the
/// spread between sessions.
fn runs_text(state: &PointState) -> String {
    let PointState::Measured(m) = state else {
        return String::new();
    };
    let mut parts: Vec<String> = m
        .runs
        .iter()
        .map(|r| match r.role.as_str() {
            "new" => format!("session {}", r.session),
            role => format!("session {}, {}", r.session, Escaped(role)),
        })
        .collect();
    if m.identical {
        parts.push("identical build to the version before".into());
    }
    if m.sessions_unknown {
        parts.push("spread between sessions unknown".into());
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, expected) in cases {
            assert_eq!(base64(input.as_bytes()), expected);
        }
    }

    /// A version measured at 1 ms ± 1% in `runs`.
    fn point(rev: &str, runs: Vec<crate::dashboard::view::RunMark>) -> VersionPoint {
        use crate::dashboard::view::{Measured, PointState};
        VersionPoint {
            rev: rev.into(),
            state: PointState::Measured(Measured {
                mean: 1e-3,
                lower: 0.99e-3,
                upper: 1.01e-3,
                level: 0.95,
                runs,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn a_series_without_components_says_so_once() {
        let point = |rev: &str| point(rev, Vec::new());
        let b = BenchmarkView {
            name: "b".into(),
            page: "b/b.html".into(),
            series: vec![SeriesView {
                machine: "m".into(),
                branch: "main".into(),
                versions: vec![point("v1"), point("v2")],
                ..Default::default()
            }],
            ..Default::default()
        };
        let page = render_benchmark(&SiteMeta::default(), &b);
        assert_eq!(page.matches("No variance components").count(), 1, "{page}");
    }

    #[test]
    fn the_caption_tells_one_session_from_a_session_per_version() {
        use crate::dashboard::view::RunMark;
        let point = |rev: &str, session: i64| {
            point(
                rev,
                vec![RunMark {
                    session,
                    role: "new".into(),
                }],
            )
        };
        let caption = |sessions: &[i64]| {
            let versions = sessions
                .iter()
                .enumerate()
                .map(|(i, s)| point(&format!("v{i}"), *s))
                .collect();
            history_caption(
                &SeriesView {
                    versions,
                    ..Default::default()
                },
                Some(0.95),
            )
        };
        // A history measured in one `track run` said the opposite ("a session of its own").
        let one = caption(&[1, 1, 1, 1]);
        assert!(
            one.contains("Every version was measured in one session"),
            "{one}"
        );
        assert!(!one.contains("of its own"), "{one}");
        let each = caption(&[1, 2, 3, 4]);
        assert!(each.contains("Nearly every version was measured in a session of its own"));
        let two = caption(&[1, 1, 2, 2]);
        assert!(two.contains("Thin violet lines"), "{two}");
    }

    #[test]
    fn only_web_repository_addresses_make_links() {
        let mut site = SiteMeta {
            repo_url: Some("https://example.org/p/".into()),
            ..Default::default()
        };
        assert_eq!(
            commit_url(&site, "abc").as_deref(),
            Some("https://example.org/p/commit/abc")
        );
        site.repo_url = Some("javascript:alert(1)".into());
        assert_eq!(commit_url(&site, "abc"), None);
    }
}
