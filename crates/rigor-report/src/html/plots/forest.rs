//! The forest plot of comparison ratios.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Area, DATA, DrawResult, Drawn, FONT, PlotResult, SMALL_SIZE, STEADY, XAxis, banded};
use crate::html::scale::{Span, plottable, truncate};
use crate::html::view::ComparisonRow;

/// Pixels per comparison row.
const ROW_HEIGHT: u32 = 44;
/// Longest row label, in characters.
const MAX_LABEL: usize = 44;

/// The label of a row: "candidate vs baseline".
fn label(row: &ComparisonRow) -> String {
    truncate(&format!("{} vs {}", row.candidate, row.baseline), MAX_LABEL)
}

/// A bound that can be drawn; `None` (unbounded) or unplottable bounds draw as arrows.
fn bound(b: Option<f64>) -> Option<f64> {
    b.filter(|v| plottable(*v))
}

/// The x range: every drawable estimate, bound and threshold, and 1.
fn x_span(rows: &[ComparisonRow]) -> Span {
    let mut xs = vec![1.0];
    for r in rows {
        xs.extend(
            [r.ratio]
                .into_iter()
                .chain(bound(r.lower))
                .chain(bound(r.upper)),
        );
        if plottable(r.threshold) {
            xs.extend([1.0 - r.threshold, 1.0 + r.threshold]);
        }
    }
    Span::of(xs).map_or(Span { lo: 0.9, hi: 1.1 }, |s| s.padded(0.1))
}

pub(super) fn forest(rows: &[ComparisonRow]) -> PlotResult {
    if rows.is_empty() {
        return Ok(Drawn::Empty("No comparisons.".to_string()));
    }
    let n = rows.len();
    let x = x_span(rows);
    banded(
        rows.iter().map(label).collect(),
        ROW_HEIGHT,
        XAxis::linear(x, "ratio candidate / baseline"),
        |root, chart, i, y| draw_row(root, chart, &rows[i], y, x),
        |chart| {
            let one = vec![(1.0, -0.5), (1.0, n as f64 - 0.5)];
            chart.draw_series([PathElement::new(one, BLACK.stroke_width(1))])?;
            Ok(())
        },
    )
}

fn draw_row(
    root: &Area<'_>,
    chart: &mut super::sequence::Chart<'_, '_>,
    row: &ComparisonRow,
    y: f64,
    x: Span,
) -> DrawResult {
    if plottable(row.threshold) && row.threshold > 0.0 {
        let (lo, hi) = (
            (1.0 - row.threshold).max(x.lo),
            (1.0 + row.threshold).min(x.hi),
        );
        chart.draw_series([Rectangle::new(
            [(lo, y - 0.42), (hi, y + 0.42)],
            STEADY.mix(0.16).filled(),
        )])?;
    }
    let (lower, upper) = (bound(row.lower), bound(row.upper));
    let (from, to) = (lower.unwrap_or(x.lo), upper.unwrap_or(x.hi));
    chart.draw_series([PathElement::new(
        vec![(from, y), (to, y)],
        DATA.stroke_width(2),
    )])?;
    for end in [lower, upper].into_iter().flatten() {
        let cap = vec![(end, y - 0.15), (end, y + 0.15)];
        chart.draw_series([PathElement::new(cap, DATA.stroke_width(2))])?;
    }
    if lower.is_none() {
        arrow(root, chart.backend_coord(&(x.lo, y)), -1)?;
    }
    if upper.is_none() {
        arrow(root, chart.backend_coord(&(x.hi, y)), 1)?;
    }
    if plottable(row.ratio) {
        chart.draw_series([Circle::new((row.ratio, y), 5, BLACK.filled())])?;
    }
    Ok(())
}

/// An arrow head at pixel `tip` pointing left (`dir` = −1) or right (+1), labelled "unbounded".
fn arrow(root: &Area<'_>, (px, py): (i32, i32), dir: i32) -> DrawResult {
    let head = vec![(px, py), (px - dir * 10, py - 6), (px - dir * 10, py + 6)];
    root.draw(&Polygon::new(head, DATA.filled()))?;
    let h = if dir < 0 { HPos::Left } else { HPos::Right };
    let style = (FONT, SMALL_SIZE)
        .into_font()
        .color(&DATA)
        .pos(Pos::new(h, VPos::Bottom));
    root.draw(&Text::new("unbounded", (px - dir * 4, py - 7), style))?;
    Ok(())
}
