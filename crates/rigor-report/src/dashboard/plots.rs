//! The dashboard's plots: a series' history with its intervals and changes, the noise per level
//! over versions, and the index's sparklines.
//!
//! The history and noise plots use the single-run report's drawing conventions (the same
//! plotters backend, fonts, colours, axes, and the interval drawn as a light band of the data
//! colour around the mean's line), so the two read alike.

use std::fmt::Write;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::view::{ChangeMark, Overview, PointState, SeriesView, VersionPoint};
use crate::format::Scale;
use crate::html::plots::sequence::{Chart, meshed};
use crate::html::plots::{
    BUILD, CHANGE, DATA, DrawResult, Drawn, FONT, OUTLIER, PlotResult, REFERENCE, TICK_SIZE,
    palette, svg,
};
use crate::html::scale::{Span, plottable, tick, truncate, whole_tick};

/// Size of the history plot.
pub const HISTORY_SIZE: (u32, u32) = (1140, 360);
/// Size of the noise plot.
const NOISE_SIZE: (u32, u32) = (1140, 240);
/// Above this many versions points are left out and only the line and band drawn.
const MAX_DOTS: usize = 200;

/// Where the versions lie on a drawn history plot, for the page's hover script: version `i`
/// is at pixel `x0 + i·(x1 − x0)/(n − 1)` of an SVG `width` pixels wide.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Geometry {
    /// Pixel x of the first version.
    pub x0: i32,
    /// Pixel x of the last version.
    pub x1: i32,
    /// Width of the SVG.
    pub width: u32,
}

/// The unit that suits a series' typical mean, in its quantity's units
/// ([`Scale::unit_for`]): as (label, factor), a value times the factor being in that unit
/// (`("ms", 1e3)`, `("MiB", 1/1024²)`).
pub fn unit_of(series: &SeriesView) -> (String, f64) {
    Scale::of(series.quantity.clone()).unit_for(typical(series))
}

/// The median of a series' measured means (1 without any): the reference its unit is chosen
/// for.
pub fn typical(series: &SeriesView) -> f64 {
    median(measured(series).map(|(_, m)| m.mean).collect())
}

/// The median of `values` (1 when empty).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(1.0)
}

/// A plot's y axis description for values in the unit `label`: `level (ms)`, or `level` for a
/// count below a thousand (no unit).
fn level_axis(label: &str) -> String {
    if label.is_empty() {
        "level".to_string()
    } else {
        format!("level ({label})")
    }
}

/// The measured versions of a series with their position.
fn measured(series: &SeriesView) -> impl Iterator<Item = (usize, &super::view::Measured)> {
    series
        .versions
        .iter()
        .enumerate()
        .filter_map(|(i, v)| match &v.state {
            PointState::Measured(m) if plottable(m.mean) => Some((series.first + i, m)),
            _ => None,
        })
}

/// Runs of consecutive measured versions (a missing or failed version breaks the line).
fn segments(series: &SeriesView, scale: f64) -> Vec<Vec<(f64, f64, f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64, f64, f64)>> = Vec::new();
    let mut last = None;
    for (i, m) in measured(series) {
        if last.is_none_or(|l| l + 1 != i) {
            out.push(Vec::new());
        }
        last = Some(i);
        let p = (i as f64, m.mean * scale, m.lower * scale, m.upper * scale);
        if let Some(seg) = out.last_mut() {
            seg.push(p);
        }
    }
    out
}

/// The history plot: mean and interval band per version, failures and missing versions marked
/// under the axis, changes as dashed lines labelled with their size.
pub fn history(series: &SeriesView) -> (PlotResult, Geometry) {
    let (label, scale) = unit_of(series);
    let segs = segments(series, scale);
    let values = segs
        .iter()
        .flatten()
        .flat_map(|p| [p.1, p.2, p.3])
        .filter(|v| plottable(*v));
    let Some(y) = Span::of(values) else {
        return (
            Ok(Drawn::Empty(
                "No version of this series has an analysed result.".into(),
            )),
            Geometry::default(),
        );
    };
    let y = y.padded(0.12);
    let n = series.versions.len();
    // In whole-history positions, so that a page of newer versions is labelled as such.
    let first = series.first;
    let x = Span {
        lo: first as f64 - 0.5,
        hi: (first + n) as f64 - 0.5,
    };
    let mut geometry = Geometry {
        width: HISTORY_SIZE.0,
        ..Geometry::default()
    };
    let desc = level_axis(&label);
    let label = version_label(series);
    let drawn = svg(HISTORY_SIZE, |root| {
        let mut chart = meshed(root, 24, (x, y), (axis_name(series), &desc), &label, &tick)?;
        geometry.x0 = chart.backend_coord(&(first as f64, y.lo)).0;
        geometry.x1 = chart
            .backend_coord(&((first + n.max(2) - 1) as f64, y.lo))
            .0;
        sessions(root, &chart, series, y)?;
        identical(&mut chart, series, scale)?;
        for seg in &segs {
            band(&mut chart, seg)?;
        }
        anchors(&mut chart, series, scale)?;
        marks(root, &mut chart, series, y)?;
        changes(root, &mut chart, series, y)?;
        Ok(())
    });
    (drawn, geometry)
}

/// A version's name at a tick of the history and noise plots: its commit id shortened to 7
/// characters, else its name (at most 10 characters).
pub fn tick_name(v: &VersionPoint) -> String {
    short_name(v.commit.as_deref(), &v.rev)
}

/// A version's name at a tick: its commit id shortened to 7 characters, else its name (at most
/// 10 characters).
pub fn short_name(commit: Option<&str>, rev: &str) -> String {
    match commit {
        Some(c) if !c.is_empty() => c.chars().take(7).collect(),
        _ => truncate(rev, 10),
    }
}

/// The x axis' description: commits when the versions are commits.
fn axis_name(series: &SeriesView) -> &'static str {
    if series.versions.iter().any(|v| v.commit.is_some()) {
        "commit (history order)"
    } else {
        "version (history order)"
    }
}

/// Tick labels of a page's plots: whole-history position → the version's [`tick_name`].
fn version_label(series: &SeriesView) -> impl Fn(f64) -> String + '_ {
    move |at| {
        if (at - at.round()).abs() > 1e-9 {
            return String::new();
        }
        let i = at.round() as i64 - series.first as i64;
        usize::try_from(i)
            .ok()
            .and_then(|i| series.versions.get(i))
            .map_or(String::new(), tick_name)
    }
}

/// Colour of session boundaries (the report's build boundaries' violet).
pub const SESSION: RGBColor = BUILD;
/// Colour of the rings around versions measured again as anchors.
pub const ANCHOR: RGBColor = RGBColor(44, 160, 44);
/// Colour of changes that cannot be told from a session boundary.
pub const CONFOUNDED: RGBColor = RGBColor(148, 103, 189);

/// Where sessions start on a page: the positions (in [`SeriesView::versions`]) of the measured
/// versions whose session differs from the measured version's before them. Empty when nearly
/// every version had a session of its own (one line per version would only hide the data: the
/// caption says so instead).
pub fn session_starts(series: &SeriesView) -> Vec<usize> {
    let homes = homes(series);
    let starts: Vec<usize> = homes
        .windows(2)
        .filter(|w| w[0].1 != w[1].1)
        .map(|w| w[1].0)
        .collect();
    if starts.len() * 2 > homes.len() {
        Vec::new()
    } else {
        starts
    }
}

/// How many sessions the series' measured versions were measured in (each version's home
/// session), so that a caption tells one session from a session per version, neither of which
/// draws a boundary.
pub fn session_count(series: &SeriesView) -> usize {
    let mut sessions: Vec<i64> = homes(series).into_iter().map(|(_, s)| s).collect();
    sessions.sort_unstable();
    sessions.dedup();
    sessions.len()
}

/// Each measured version's position and home session.
fn homes(series: &SeriesView) -> Vec<(usize, i64)> {
    series
        .versions
        .iter()
        .enumerate()
        .filter_map(|(i, v)| match &v.state {
            PointState::Measured(m) => Some((i, m.home_session()?)),
            _ => None,
        })
        .collect()
}

/// Each session's start as a thin solid violet line just before its first version.
fn sessions(
    root: &crate::html::plots::Area<'_>,
    chart: &Chart<'_, '_>,
    series: &SeriesView,
    y: Span,
) -> DrawResult {
    for i in session_starts(series) {
        let at = (series.first + i) as f64 - 0.5;
        let (px, top) = chart.backend_coord(&(at, y.hi));
        let (_, bottom) = chart.backend_coord(&(at, y.lo));
        root.draw(&PathElement::new(
            vec![(px, top), (px, bottom)],
            SESSION.stroke_width(1),
        ))?;
    }
    Ok(())
}

/// Versions whose build is identical to the one before joined by a broad grey bar at their
/// (shared) level.
fn identical(chart: &mut Chart<'_, '_>, series: &SeriesView, scale: f64) -> DrawResult {
    let mut previous: Option<(usize, f64)> = None;
    for (i, m) in measured(series) {
        if m.identical
            && let Some((p, level)) = previous.filter(|(p, _)| p + 1 == i)
        {
            chart.draw_series([PathElement::new(
                vec![(p as f64, level * scale), (i as f64, m.mean * scale)],
                REFERENCE.mix(0.45).stroke_width(7),
            )])?;
        }
        previous = Some((i, m.mean));
    }
    Ok(())
}

/// Versions measured again as anchors (to tie their sessions together), ringed in green.
fn anchors(chart: &mut Chart<'_, '_>, series: &SeriesView, scale: f64) -> DrawResult {
    chart.draw_series(
        measured(series)
            .filter(|(_, m)| m.anchored())
            .map(|(i, m)| Circle::new((i as f64, m.mean * scale), 6, ANCHOR.stroke_width(2))),
    )?;
    Ok(())
}

/// One segment's interval band, mean line and (when few) points.
fn band(chart: &mut Chart<'_, '_>, seg: &[(f64, f64, f64, f64)]) -> DrawResult {
    if seg.len() == 1 {
        let (i, m, lo, hi) = seg[0];
        chart.draw_series([Rectangle::new(
            [(i - 0.3, lo), (i + 0.3, hi)],
            DATA.mix(0.18).filled(),
        )])?;
        chart.draw_series([Circle::new((i, m), 3, BLACK.filled())])?;
        return Ok(());
    }
    let mut outline: Vec<(f64, f64)> = seg.iter().map(|p| (p.0, p.3)).collect();
    outline.extend(seg.iter().rev().map(|p| (p.0, p.2)));
    chart.draw_series([Polygon::new(outline, DATA.mix(0.18).filled())])?;
    let line: Vec<(f64, f64)> = seg.iter().map(|p| (p.0, p.1)).collect();
    chart.draw_series([PathElement::new(line.clone(), DATA.stroke_width(2))])?;
    if seg.len() <= MAX_DOTS {
        chart.draw_series(line.iter().map(|p| Circle::new(*p, 2, BLACK.filled())))?;
    }
    Ok(())
}

/// Failed versions as red crosses and missing or unanalysed ones as grey ticks, along the
/// bottom of the plot.
fn marks(
    root: &crate::html::plots::Area<'_>,
    chart: &mut Chart<'_, '_>,
    series: &SeriesView,
    y: Span,
) -> DrawResult {
    for (i, v) in series.versions.iter().enumerate() {
        let (px, py) = chart.backend_coord(&((series.first + i) as f64, y.lo));
        match v.state {
            PointState::Failed => {
                let style = OUTLIER.stroke_width(2);
                root.draw(&PathElement::new(
                    vec![(px - 4, py - 12), (px + 4, py - 4)],
                    style,
                ))?;
                root.draw(&PathElement::new(
                    vec![(px - 4, py - 4), (px + 4, py - 12)],
                    style,
                ))?;
            }
            PointState::Missing | PointState::Unanalysed => {
                root.draw(&PathElement::new(
                    vec![(px, py - 10), (px, py - 2)],
                    REFERENCE.stroke_width(2),
                ))?;
            }
            PointState::Measured(_) => {}
        }
    }
    Ok(())
}

/// How a change is drawn: new ones as bold orange dashes labelled with their size,
/// acknowledged ones as thin pale orange dashes, invalid ones as grey dots, and confounded ones
/// (which cannot be told from a session boundary) as violet dashes labelled with a `?`.
pub fn change_style(c: &ChangeMark) -> (ShapeStyle, (i32, i32), String) {
    let size = signed_percent(c.ratio);
    if c.status == "invalid" {
        (REFERENCE.stroke_width(1), (2, 5), "invalid".into())
    } else if c.confounded {
        (CONFOUNDED.stroke_width(2), (4, 7), format!("{size}?"))
    } else if c.status == "acknowledged" {
        (
            CHANGE.mix(0.5).stroke_width(1),
            (6, 10),
            format!("{size} ✓"),
        )
    } else {
        (CHANGE.stroke_width(2), (6, 10), size)
    }
}

/// Each change as a dashed line between the last version before it and its first version,
/// labelled ([`change_style`]).
fn changes(
    root: &crate::html::plots::Area<'_>,
    chart: &mut Chart<'_, '_>,
    series: &SeriesView,
    y: Span,
) -> DrawResult {
    for c in &series.changes {
        let Some(i) = series.versions.iter().position(|v| v.rev == c.rev) else {
            continue;
        };
        let at = (series.first + i) as f64 - 0.5;
        let (style, dash, label) = change_style(c);
        let (px, top) = change_line(root, chart, at, y, style, dash)?;
        let font = (FONT, TICK_SIZE)
            .into_font()
            .color(&style.color)
            .pos(Pos::new(HPos::Center, VPos::Bottom));
        root.draw(&Text::new(label, (px, top - 3), font))?;
    }
    Ok(())
}

/// A change drawn as a dashed vertical line at `at` across the plot's height (`y`): `dash` is
/// (drawn, period) in pixels. Returns the line's top in backend coordinates, where its label
/// goes.
fn change_line(
    root: &crate::html::plots::Area<'_>,
    chart: &Chart<'_, '_>,
    at: f64,
    y: Span,
    style: ShapeStyle,
    (on, period): (i32, i32),
) -> Result<(i32, i32), crate::html::plots::PlotError> {
    let (px, top) = chart.backend_coord(&(at, y.hi));
    let (_, bottom) = chart.backend_coord(&(at, y.lo));
    let mut py = top;
    while py < bottom {
        let end = (py + on).min(bottom);
        root.draw(&PathElement::new(vec![(px, py), (px, end)], style))?;
        py += period;
    }
    Ok((px, top))
}

/// Size of the whole-history overview.
const OVERVIEW_SIZE: (u32, u32) = (1140, 200);

/// The whole history in brief: pooled bins as a band and a line, the changes as dashed lines,
/// and the versions from `detail` on (drawn in detail below it) shaded.
pub fn overview(o: &Overview, detail: usize) -> PlotResult {
    let typical = median(o.bins.iter().map(|b| b.mean).collect());
    let (unit, scale) = Scale::of(o.quantity.clone()).unit_for(typical);
    let Some(y) = Span::of(
        o.bins
            .iter()
            .flat_map(|b| [b.lower * scale, b.upper * scale]),
    ) else {
        return Ok(Drawn::Empty(
            "No version of this series has an analysed result.".into(),
        ));
    };
    let y = y.padded(0.08);
    let x = Span {
        lo: -0.5,
        hi: o.versions as f64 - 0.5,
    };
    let desc = level_axis(&unit);
    let label = |at: f64| {
        if (at - at.round()).abs() > 1e-9 || at < 0.0 {
            return String::new();
        }
        o.labels
            .get(at.round() as usize)
            .cloned()
            .unwrap_or_else(|| whole_tick(at))
    };
    let axis = if o.labels.is_empty() {
        "version (history order)"
    } else {
        "commit or version (history order)"
    };
    // Runs of adjacent bins: a bin without a measured version breaks the line.
    let mut segs: Vec<Vec<(f64, f64, f64, f64)>> = Vec::new();
    let mut end = None;
    for b in &o.bins {
        if end.is_none_or(|e: usize| e + 1 != b.first) {
            segs.push(Vec::new());
        }
        end = Some(b.last);
        let at = (b.first + b.last) as f64 / 2.0;
        if let Some(seg) = segs.last_mut() {
            seg.push((at, b.mean * scale, b.lower * scale, b.upper * scale));
        }
    }
    svg(OVERVIEW_SIZE, |root| {
        let mut chart = meshed(root, 12, (x, y), (axis, &desc), &label, &tick)?;
        chart.draw_series([Rectangle::new(
            [(detail as f64 - 0.5, y.lo), (x.hi, y.hi)],
            REFERENCE.mix(0.12).filled(),
        )])?;
        for seg in &segs {
            band(&mut chart, seg)?;
        }
        for &(at, _) in &o.changes {
            change_line(
                root,
                &chart,
                at as f64 - 0.5,
                y,
                CHANGE.stroke_width(1),
                (6, 10),
            )?;
        }
        Ok(())
    })
}

/// A ratio as a signed percentage change: `+12.3%`, `−4.0%`.
pub fn signed_percent(ratio: f64) -> String {
    if !ratio.is_finite() {
        return "n/a".into();
    }
    let p = (ratio - 1.0) * 100.0;
    if p.abs() < 0.05 {
        "0.0%".into() // no sign on what rounds to zero
    } else if p < 0.0 {
        format!("\u{2212}{:.1}%", -p)
    } else {
        format!("+{p:.1}%")
    }
}

/// Each level's standard deviation as a percentage of the mean, per version: is the benchmark
/// getting noisier, and at which level?
pub fn noise(series: &SeriesView) -> PlotResult {
    let points: Vec<(usize, &[f64])> = measured(series)
        .filter(|(_, m)| !m.noise.is_empty())
        .map(|(i, m)| (i, m.noise.as_slice()))
        .collect();
    let Some(y) = Span::of(points.iter().flat_map(|p| p.1.iter().copied())) else {
        return Ok(Drawn::Empty("No variance components were stored.".into()));
    };
    let y = Span {
        lo: 0.0,
        hi: y.hi.max(0.1) * 1.1,
    };
    let n = series.versions.len();
    let x = Span {
        lo: series.first as f64 - 0.5,
        hi: (series.first + n) as f64 - 0.5,
    };
    let levels = points.iter().map(|p| p.1.len()).max().unwrap_or(0);
    let label = version_label(series);
    svg(NOISE_SIZE, |root| {
        let mut chart = meshed(
            root,
            12,
            (x, y),
            (axis_name(series), "SD, % of mean"),
            &label,
            &tick,
        )?;
        for level in 0..levels {
            let line: Vec<(f64, f64)> = points
                .iter()
                .filter_map(|(i, v)| v.get(level).map(|s| (*i as f64, *s)))
                .filter(|p| plottable(p.1))
                .collect();
            chart.draw_series([PathElement::new(line, palette(level).stroke_width(2))])?;
        }
        Ok(())
    })
}

/// Width and height of a sparkline.
const SPARK: (f64, f64) = (120.0, 28.0);
/// The smallest range of a sparkline's y axis, as a fraction of the level.
const SPARK_MIN_RANGE: f64 = 0.1;
/// The most points a sparkline draws (the newest).
pub const SPARK_POINTS: usize = 60;

/// A tiny line of the newest means, no axes. Written by hand rather than with plotters: it is
/// one `<polyline>`, and the index holds one per benchmark, so every byte counts at scale.
pub fn sparkline(series: &SeriesView) -> String {
    let all: Vec<(usize, f64)> = measured(series).map(|(i, m)| (i, m.mean)).collect();
    let pts = &all[all.len().saturating_sub(SPARK_POINTS)..];
    let (Some(first), Some(last)) = (pts.first(), pts.last()) else {
        return String::new();
    };
    let Some(y) = Span::of(pts.iter().map(|p| p.1)) else {
        return String::new();
    };
    // At least ±5% of the level in view: otherwise a flat series' noise of a fraction of a
    // percent would fill the height and read as large swings.
    let mid = (y.lo + y.hi) / 2.0;
    let half = (y.width() / 2.0)
        .max(mid.abs() * SPARK_MIN_RANGE / 2.0)
        .max(1e-12);
    let y = Span {
        lo: mid - half,
        hi: mid + half,
    };
    let dx = (last.0 - first.0).max(1) as f64;
    let mut line = String::new();
    for (i, v) in pts {
        let px = 1.0 + (*i - first.0) as f64 / dx * (SPARK.0 - 2.0);
        let py = 2.0 + (y.hi - v) / y.width() * (SPARK.1 - 4.0);
        let _ = write!(line, "{px:.1},{py:.1} ");
    }
    format!(
        "<svg class=\"spark\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" aria-hidden=\"true\">\
         <polyline points=\"{}\"/></svg>",
        line.trim_end(),
        w = SPARK.0,
        h = SPARK.1
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dashboard::view::{ChangeMark, Measured, VersionPoint};

    fn series(states: Vec<PointState>) -> SeriesView {
        SeriesView {
            versions: states
                .into_iter()
                .enumerate()
                .map(|(i, state)| VersionPoint {
                    rev: format!("v{i}"),
                    state,
                    ..Default::default()
                })
                .collect(),
            changes: vec![ChangeMark {
                rev: "v2".into(),
                ratio: 1.25,
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    fn m(mean: f64) -> PointState {
        PointState::Measured(Measured {
            mean,
            lower: mean * 0.99,
            upper: mean * 1.01,
            level: 0.95,
            noise: vec![1.0, 2.0],
            ..Default::default()
        })
    }

    #[test]
    fn gaps_split_the_line_and_units_follow_the_values() {
        let s = series(vec![m(1e-3), m(1e-3), PointState::Failed, m(2e-3)]);
        assert_eq!(segments(&s, 1.0).len(), 2);
        assert_eq!(unit_of(&s), ("ms".to_string(), 1e3));
        let (Ok(Drawn::Svg(svg)), g) = history(&s) else {
            panic!("no plot");
        };
        assert!(svg.contains("level (ms)"));
        assert!(svg.contains("+25.0%"));
        assert!(g.x0 < g.x1 && g.x1 < g.width as i32);
    }

    /// A measured version in session `session`, its runs' roles `roles`.
    fn in_session(session: i64, roles: &[&str], identical: bool) -> PointState {
        let PointState::Measured(mut m) = m(1e-3) else {
            unreachable!()
        };
        m.runs = roles
            .iter()
            .enumerate()
            .map(|(k, role)| crate::dashboard::view::RunMark {
                session: session - k as i64,
                role: role.to_string(),
            })
            .collect();
        m.identical = identical;
        PointState::Measured(m)
    }

    #[test]
    fn sessions_anchors_identical_builds_statuses_and_commits_are_marked() {
        let mut s = series(vec![
            in_session(1, &["new"], false),
            in_session(1, &["new"], true),
            in_session(1, &["new"], false),
            in_session(2, &["new", "anchor"], false),
            in_session(2, &["new"], false),
            in_session(2, &["new"], false),
        ]);
        // v3 starts session 2; the session of v3's anchor run (1) does not count.
        assert_eq!(session_starts(&s), vec![3]);
        s.versions[4].commit = Some("0123456789abcdef".into());
        let mark = |rev: &str, status: &str, confounded: bool| ChangeMark {
            rev: rev.into(),
            ratio: 1.25,
            status: status.into(),
            confounded,
            ..Default::default()
        };
        s.changes = vec![
            mark("v1", "invalid", false),
            mark("v2", "acknowledged", false),
            mark("v4", "new", true),
        ];
        let (Ok(Drawn::Svg(svg)), _) = history(&s) else {
            panic!("no plot");
        };
        assert!(svg.contains("stroke=\"#3C2878\""), "no session line");
        assert!(
            svg.contains("<circle") && svg.contains("stroke=\"#2CA02C\""),
            "no ring"
        );
        assert!(svg.contains("\ninvalid\n") && svg.contains("\n+25.0% ✓\n"));
        assert!(svg.contains("\n+25.0%?\n") && svg.contains("stroke=\"#9467BD\""));
        assert!(svg.contains("\n0123456\n"), "the commit names its tick");
        assert!(svg.contains("commit (history order)"));
        // Every version in a session of its own: no lines (the caption says so).
        let own = series((0..6).map(|k| in_session(k, &["new"], false)).collect());
        assert!(session_starts(&own).is_empty());
    }

    /// A series of another metric is drawn in its own units: peak memory in MiB, a count with
    /// a decimal prefix, never in seconds.
    #[test]
    fn a_metric_is_drawn_in_its_own_units() {
        use rigor_units::Quantity;
        const MIB: f64 = 1024.0 * 1024.0;
        let mut s = series(vec![m(64.0 * MIB), m(64.0 * MIB), m(128.0 * MIB)]);
        s.quantity = Quantity::Bytes;
        assert_eq!(unit_of(&s), ("MiB".to_string(), 1.0 / MIB));
        let (Ok(Drawn::Svg(svg)), _) = history(&s) else {
            panic!("no plot");
        };
        assert!(svg.contains("level (MiB)"), "{svg}");
        assert!(!svg.contains("level (s)") && !svg.contains("level (Ms)"));
        s.quantity = Quantity::Count;
        assert_eq!(unit_of(&s).0, "M");
        let mut few = series(vec![m(17.0), m(18.0)]);
        few.quantity = Quantity::Count;
        let (Ok(Drawn::Svg(svg)), _) = history(&few) else {
            panic!("no plot");
        };
        assert!(
            svg.contains("\nlevel\n") || svg.contains(">level<"),
            "a count has no unit"
        );
        let o = Overview {
            versions: 10,
            bins: vec![crate::dashboard::view::OverviewBin {
                first: 0,
                last: 9,
                mean: 3.0 * MIB,
                lower: 2.9 * MIB,
                upper: 3.1 * MIB,
            }],
            quantity: Quantity::Bytes,
            ..Default::default()
        };
        let Ok(Drawn::Svg(svg)) = overview(&o, 5) else {
            panic!("no overview");
        };
        assert!(svg.contains("level (MiB)"));
    }

    #[test]
    fn a_series_without_measurements_explains_itself() {
        let s = series(vec![PointState::Failed, PointState::Missing]);
        assert!(matches!(history(&s).0, Ok(Drawn::Empty(_))));
        assert!(matches!(noise(&s), Ok(Drawn::Empty(_))));
        assert_eq!(sparkline(&s), "");
    }

    #[test]
    fn sparklines_keep_the_newest_points() {
        let s = series((0..100).map(|i| m(1.0 + i as f64)).collect());
        let spark = sparkline(&s);
        assert_eq!(spark.matches(',').count(), SPARK_POINTS);
        assert!(spark.starts_with("<svg class=\"spark\""));
    }

    #[test]
    fn the_overview_draws_bins_changes_and_the_detailed_part() {
        use crate::dashboard::view::{Overview, OverviewBin};
        let bin = |first: usize, mean: f64| OverviewBin {
            first,
            last: first + 4,
            mean,
            lower: mean * 0.98,
            upper: mean * 1.02,
        };
        let o = Overview {
            versions: 20,
            bins: vec![bin(0, 2e-3), bin(5, 2e-3), bin(15, 3e-3)],
            changes: vec![(15, 1.5)],
            labels: (0..20).map(|v| format!("c{v:06}")).collect(),
            ..Default::default()
        };
        let Ok(Drawn::Svg(svg)) = overview(&o, 10) else {
            panic!("no overview");
        };
        assert!(svg.contains("level (ms)"));
        assert!(svg.contains("\nc000010\n"), "ticks name versions");
        let empty = Overview {
            versions: 20,
            ..Default::default()
        };
        assert!(matches!(overview(&empty, 10), Ok(Drawn::Empty(_))));
    }

    #[test]
    fn percentages_are_signed() {
        assert_eq!(signed_percent(1.123), "+12.3%");
        assert_eq!(signed_percent(0.96), "\u{2212}4.0%");
        assert_eq!(signed_percent(0.9996), "0.0%");
    }
}
