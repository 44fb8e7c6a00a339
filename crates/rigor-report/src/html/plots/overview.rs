//! The overview of a run with several benchmarks, on one shared axis: each benchmark's mean
//! with its confidence interval as a bar, and the distribution of its execution means as a box
//! with the points over it.

use plotters::prelude::*;

use super::sequence::Chart;
use super::{
    DATA, DrawResult, Drawn, OUTLIER, PlotResult, REFERENCE, banded, label_font, palette, svg,
    tick_font,
};
use crate::html::scale::{Span, plottable, tick, truncate};
use crate::html::view::{OverviewRow, ParameterPlot};

/// Pixels per benchmark.
const ROW_HEIGHT: u32 = 40;
/// Longest row label, in characters.
const MAX_LABEL: usize = 40;

/// Draws rows on a shared x axis from `x` with one labelled band per benchmark.
fn rows_plot<F>(rows: &[OverviewRow], x: Span, desc: &str, mut draw: F) -> PlotResult
where
    F: FnMut(&mut Chart<'_, '_>, &OverviewRow, f64) -> DrawResult,
{
    let labels: Vec<String> = rows.iter().map(|r| truncate(&r.name, MAX_LABEL)).collect();
    banded(
        labels,
        ROW_HEIGHT,
        x,
        desc,
        |_, chart, i, y| draw(chart, &rows[i], y),
        |_| Ok(()),
    )
}

/// Each benchmark's mean as a bar from zero with its confidence interval as whiskers.
pub(super) fn means(rows: &[OverviewRow], unit: &str) -> PlotResult {
    let drawable: Vec<&OverviewRow> = rows.iter().filter(|r| plottable(r.mean)).collect();
    if drawable.len() < 2 {
        return Ok(Drawn::Empty(
            "Fewer than two benchmarks with a result.".into(),
        ));
    }
    let top = rows
        .iter()
        .flat_map(|r| [r.mean, r.ci_upper])
        .filter(|v| plottable(*v))
        .fold(0.0, f64::max);
    let x = Span {
        lo: 0.0,
        hi: top * 1.08,
    };
    rows_plot(rows, x, &format!("mean ({unit})"), |chart, r, y| {
        if !plottable(r.mean) {
            return Ok(());
        }
        chart.draw_series([Rectangle::new(
            [(0.0, y - 0.3), (r.mean, y + 0.3)],
            DATA.mix(0.55).filled(),
        )])?;
        if plottable(r.ci_lower) && plottable(r.ci_upper) {
            chart.draw_series([PathElement::new(
                vec![(r.ci_lower, y), (r.ci_upper, y)],
                BLACK.stroke_width(2),
            )])?;
            for end in [r.ci_lower, r.ci_upper] {
                let cap = vec![(end, y - 0.15), (end, y + 0.15)];
                chart.draw_series([PathElement::new(cap, BLACK.stroke_width(2))])?;
            }
        }
        Ok(())
    })
}

/// Each benchmark's execution means as points over a box of their quartiles, the mean marked.
pub(super) fn distribution(rows: &[OverviewRow], unit: &str) -> PlotResult {
    let all = rows
        .iter()
        .flat_map(|r| r.values.iter().copied().chain([r.mean]))
        .filter(|v| plottable(*v));
    let Some(x) = Span::of(all) else {
        return Ok(Drawn::Empty("No measurements to plot.".into()));
    };
    let x = x.padded(0.05);
    let desc = format!("time of each execution ({unit})");
    rows_plot(rows, x, &desc, |chart, r, y| {
        if let Some([q1, median, q3]) = r.quartiles {
            chart.draw_series([Rectangle::new(
                [(q1, y - 0.3), (q3, y + 0.3)],
                DATA.mix(0.15).filled(),
            )])?;
            chart.draw_series([Rectangle::new([(q1, y - 0.3), (q3, y + 0.3)], DATA)])?;
            let mid = vec![(median, y - 0.3), (median, y + 0.3)];
            chart.draw_series([PathElement::new(mid, DATA.stroke_width(2))])?;
        }
        // A fixed jitter pattern spreads the points vertically without randomness.
        let n = r.values.len().max(1) as f64;
        chart.draw_series(
            r.values
                .iter()
                .enumerate()
                .filter(|(_, v)| plottable(**v))
                .map(|(i, v)| {
                    let jitter = ((i as f64 * 0.618_034) % 1.0 - 0.5) * 0.4 * n.min(8.0) / 8.0;
                    Circle::new((*v, y + jitter), 3, REFERENCE.mix(0.8).filled())
                }),
        )?;
        if plottable(r.mean) {
            let line = vec![(r.mean, y - 0.38), (r.mean, y + 0.38)];
            chart.draw_series([PathElement::new(line, OUTLIER.stroke_width(2))])?;
        }
        Ok(())
    })
}

/// Size of the parameter plot.
const PARAMETER_SIZE: (u32, u32) = (760, 360);

/// Means against a numeric parameter: a line per series, the intervals as error bars.
pub(super) fn parameter(p: &ParameterPlot, unit: &str) -> PlotResult {
    let points = || p.series.iter().flat_map(|(_, pts)| pts.iter());
    let (Some(x), Some(y)) = (
        Span::of(points().map(|q| q[0]).filter(|v| plottable(*v))),
        Span::of(
            points()
                .flat_map(|q| [q[2], q[3]])
                .filter(|v| plottable(*v))
                .chain([0.0]),
        ),
    ) else {
        return Ok(Drawn::Empty("No parameter values to plot.".into()));
    };
    let (x, y) = (x.padded(0.05), y.padded(0.05));
    let y_desc = format!("mean ({unit})");
    svg(PARAMETER_SIZE, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .margin_right(24)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x.lo..x.hi, y.lo.max(0.0)..y.hi)?;
        chart
            .configure_mesh()
            .bold_line_style(RGBColor(232, 232, 232))
            .light_line_style(TRANSPARENT)
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .label_style(tick_font())
            .axis_desc_style(label_font())
            .x_desc(p.name.as_str())
            .y_desc(y_desc.as_str())
            .draw()?;
        for (i, (_, pts)) in p.series.iter().enumerate() {
            let colour = palette(i);
            let line: Vec<(f64, f64)> = pts.iter().map(|q| (q[0], q[1])).collect();
            chart.draw_series([PathElement::new(line, colour.stroke_width(2))])?;
            for q in pts {
                let bar = vec![(q[0], q[2]), (q[0], q[3])];
                chart.draw_series([PathElement::new(bar, colour.stroke_width(1))])?;
                chart.draw_series([Circle::new((q[0], q[1]), 4, colour.filled())])?;
            }
        }
        Ok(())
    })
}
