//! The forest plot of comparison ratios.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{
    Area, DATA, DrawResult, Drawn, FONT, PlotResult, SMALL_SIZE, STEADY, label_font, svg,
    text_width, tick_font,
};
use crate::html::scale::{Span, plottable, tick, truncate};
use crate::html::view::ComparisonRow;

/// Width of the forest plot; its height grows with the rows.
const WIDTH: u32 = 960;
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
    let labels: Vec<String> = rows.iter().map(label).collect();
    let label_width = labels.iter().map(|l| text_width(l)).max().unwrap_or(0) + 20;
    let n = rows.len();
    let height = 70 + ROW_HEIGHT * n as u32;
    let x = x_span(rows);
    svg((WIDTH, height), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .margin_right(24)
            .x_label_area_size(44)
            .y_label_area_size(label_width)
            .build_cartesian_2d(x.lo..x.hi, -0.5..n as f64 - 0.5)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .bold_line_style(RGBColor(232, 232, 232))
            .light_line_style(TRANSPARENT)
            .y_labels(0)
            .x_labels(8)
            .x_label_formatter(&|v| tick(*v))
            .label_style(tick_font())
            .axis_desc_style(label_font())
            .x_desc("ratio candidate / baseline")
            .draw()?;
        for (i, (row, text)) in rows.iter().zip(labels).enumerate() {
            let y = (n - 1 - i) as f64;
            draw_row(root, &mut chart, row, y, x)?;
            let (px, py) = chart.backend_coord(&(x.lo, y));
            let style = tick_font().pos(Pos::new(HPos::Right, VPos::Center));
            root.draw(&Text::new(text, (px - 10, py), style))?;
        }
        let one = vec![(1.0, -0.5), (1.0, n as f64 - 0.5)];
        chart.draw_series([PathElement::new(one, BLACK.stroke_width(1))])?;
        Ok(())
    })
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
