//! The performance dashboard: a static site over a project's history (`rigor track publish`).
//!
//! [`render_index`] and [`render_benchmark`] turn a [`SiteView`] (built by `rigor-app` from a
//! history) into complete HTML pages: the index lists every benchmark with its latest value,
//! a sparkline and its latest change, under the project's newest changes; a benchmark's page
//! draws each series' history (mean and interval per version, failures, missing versions and
//! changes marked), the noise per level over versions, and tables of its changes and versions.
//! Pages load nothing from anywhere and work from `file://`; see [`page`] for the script and
//! its Content-Security-Policy. Like the single-run report, nothing here computes statistics.
//!
//! ```
//! use rigor_report::dashboard::{SiteView, render_index};
//! let page = render_index(&SiteView::default());
//! assert!(page.contains("The history holds no benchmarks."));
//! ```

pub mod page;
pub mod plots;
pub mod view;

use sha2::{Digest, Sha256};

pub use page::{render_archive, render_benchmark, render_index};
pub use view::{
    ArchiveLink, ArchiveNav, BenchmarkView, ChangeMark, ChangeRow, Measured, MetricLink, Overview,
    OverviewBin, PointState, QuantileTable, RatioInput, RunMark, SeriesView, SiteMeta, SiteView,
    VersionComparison, VersionPoint,
};

/// The page of a benchmark, relative to the site's root: `b/` + the name's letters and digits
/// (others become `-`, at most 60) + `-` + 10 hex digits of the name's SHA-256, so that every
/// name gets its own file, whatever characters it holds.
///
/// ```
/// use rigor_report::dashboard::page_path;
/// let p = page_path("<img src=x onerror=alert(1)>");
/// assert!(p.starts_with("b/img-src-x-onerror-alert-1-") && p.ends_with(".html"));
/// assert_ne!(page_path("a/b"), page_path("a-b"));
/// ```
pub fn page_path(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
        if slug.len() >= 60 {
            break;
        }
    }
    let slug = slug.trim_matches(['-', '.']);
    let hash = Sha256::digest(name.as_bytes());
    let hex: String = hash[..5].iter().map(|b| format!("{b:02x}")).collect();
    if slug.is_empty() {
        format!("b/{hex}.html")
    } else {
        format!("b/{slug}-{hex}.html")
    }
}

/// The archive page of a series' versions `first..` (a multiple of the archive size), beside the
/// benchmark's page: its name, then 8 hex digits of the machine's and branch's SHA-256, then the
/// first version's position.
///
/// ```
/// use rigor_report::dashboard::archive_path;
/// let p = archive_path("b/sort-0123456789.html", "ci-1", "main", 200);
/// assert!(p.starts_with("b/sort-0123456789.") && p.ends_with(".200.html"));
/// assert_ne!(p, archive_path("b/sort-0123456789.html", "ci-1", "dev", 200));
/// ```
pub fn archive_path(page: &str, machine: &str, branch: &str, first: usize) -> String {
    let stem = page.strip_suffix(".html").unwrap_or(page);
    let hash = Sha256::digest(format!("{machine}\0{branch}").as_bytes());
    let hex: String = hash[..4].iter().map(|b| format!("{b:02x}")).collect();
    format!("{stem}.{hex}.{first}.html")
}

/// The page of a benchmark's `metric` (other than wall time, whose page is `page` itself), beside
/// `page`: its name, then `m-`, the metric's letters and digits and 8 hex digits of the metric's
/// SHA-256 (a program's metric may be named `a/b` or `a-b`).
///
/// ```
/// use rigor_report::dashboard::metric_path;
/// use rigor_units::Metric;
/// let p = metric_path("b/sort-0123456789.html", &Metric::PeakMemory);
/// assert!(p.starts_with("b/sort-0123456789.m-peak-memory-") && p.ends_with(".html"));
/// assert_eq!(metric_path("b/sort-0123456789.html", &Metric::Wall), "b/sort-0123456789.html");
/// ```
pub fn metric_path(page: &str, metric: &rigor_units::Metric) -> String {
    if metric.is_wall() {
        return page.to_string();
    }
    let stem = page.strip_suffix(".html").unwrap_or(page);
    let slug: String = metric
        .name()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let hash = Sha256::digest(metric.name().as_bytes());
    let hex: String = hash[..4].iter().map(|b| format!("{b:02x}")).collect();
    format!("{stem}.m-{slug}-{hex}.html")
}

/// The group of a benchmark on the index: its name up to the last `/`, or empty. A name that is
/// a command line (it has spaces) or a program in the current folder (`./bench`) has no group:
/// its slashes are a path's, not a grouping.
///
/// ```
/// use rigor_report::dashboard::group_of;
/// assert_eq!(group_of("parse/json/small"), "parse/json");
/// assert_eq!(group_of("sort"), "");
/// assert_eq!(group_of("./bench"), "");
/// assert_eq!(group_of("gzip -1 data/file"), "");
/// ```
pub fn group_of(name: &str) -> &str {
    if name.contains(char::is_whitespace) {
        return "";
    }
    match name.rsplit_once('/').map_or("", |(g, _)| g) {
        "." | ".." => "",
        g => g,
    }
}

/// What `rigor track publish` did (`rigor_app::publish::publish`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Published {
    /// Benchmark pages in the site (wall time's main pages; archive pages not counted).
    pub pages: usize,
    /// Main pages of metrics other than wall time (`rigor track publish --metric`).
    pub metric_pages: usize,
    /// Archive pages in the site.
    pub archives: usize,
    /// Pages (main and archive) rendered and written this time.
    pub written: usize,
    /// Pages no longer in the site, removed.
    pub removed: usize,
    /// Size of the index page in bytes.
    pub index_bytes: usize,
    /// Stored runs whose summaries were read from the history this time (the rest came from
    /// the publisher's cache).
    pub runs_read: usize,
}

/// What `rigor track publish` says when done: what it did in the site's folder `out`.
pub fn published_text(v: &Published, out: &std::path::Path) -> String {
    format!(
        "Published {} benchmark page(s){} and {} archive page(s) to {} ({} rewritten, {} removed, \
         index {} kB; {} new run(s) read)\n  open {}\n",
        v.pages,
        if v.metric_pages > 0 {
            format!(", {} page(s) of other metrics", v.metric_pages)
        } else {
            String::new()
        },
        v.archives,
        out.display(),
        v.written,
        v.removed,
        v.index_bytes.div_ceil(1024),
        v.runs_read,
        out.join("index.html").display()
    )
}
