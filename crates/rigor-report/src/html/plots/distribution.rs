//! The histogram of steady-state values and the variance-components bar.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::sequence::mesh;
use super::{
    DATA, Drawn, FONT, OUTLIER, PlotResult, TICK_SIZE, palette, svg, text_width, tick_font,
};
use crate::format::percent;
use crate::html::scale::{Bins, Span, plottable, tick};
use crate::html::view::{BenchmarkSection, ComponentBar};

/// Size of the histogram.
const HIST_SIZE: (u32, u32) = (600, 300);
/// Size of the variance-components bar.
const BAR_SIZE: (u32, u32) = (600, 110);
/// Most bins a histogram gets.
const MAX_BINS: usize = 40;

pub(super) fn histogram(s: &BenchmarkSection) -> PlotResult {
    let Some(bins) = Bins::of(&s.steady_values, MAX_BINS) else {
        return Ok(Drawn::Empty("No steady-state values to plot.".to_string()));
    };
    let data = Span {
        lo: bins.start,
        hi: bins.start + bins.width * bins.counts.len() as f64,
    };
    let x = if plottable(s.mean) {
        data.union(Span {
            lo: s.mean,
            hi: s.mean,
        })
    } else {
        data
    }
    .padded(0.04);
    let top = bins.counts.iter().copied().max().unwrap_or(1).max(1) as f64 * 1.08;
    let unit = format!("steady-state value ({})", s.unit_label);
    svg(HIST_SIZE, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x.lo..x.hi, 0.0..top)?;
        mesh(&mut chart, (&unit, "count"), &tick, &tick)?;
        chart.draw_series(
            bins.iter()
                .filter(|b| b.2 > 0)
                .map(|(l, r, c)| Rectangle::new([(l, 0.0), (r, c as f64)], DATA.mix(0.7).filled())),
        )?;
        if plottable(s.mean) {
            let line = vec![(s.mean, 0.0), (s.mean, top)];
            chart.draw_series([PathElement::new(line, OUTLIER.stroke_width(2))])?;
        }
        Ok(())
    })
}

pub(super) fn components(bars: &[ComponentBar]) -> PlotResult {
    let shares: Vec<(usize, &ComponentBar, f64)> = bars
        .iter()
        .enumerate()
        .map(|(i, b)| (i, b, b.share_percent))
        .filter(|(_, _, s)| plottable(*s) && *s > 0.0)
        .collect();
    if shares.is_empty() {
        return Ok(Drawn::Empty("No variance components to plot.".to_string()));
    }
    let total: f64 = shares.iter().map(|s| s.2).sum::<f64>().max(100.0);
    svg(BAR_SIZE, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .margin_right(24)
            .x_label_area_size(44)
            .y_label_area_size(0)
            .build_cartesian_2d(0.0..total, 0.0..1.0)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .y_labels(0)
            .x_labels(6)
            .x_label_formatter(&|v| tick(*v))
            .label_style(tick_font())
            .axis_desc_style(super::label_font())
            .x_desc("share of total variance (%)")
            .draw()?;
        let mut left = 0.0;
        let plot_width = chart.plotting_area().dim_in_pixel().0 as f64;
        for (i, bar, share) in &shares {
            let right = left + share;
            chart.draw_series([Rectangle::new(
                [(left, 0.12), (right, 0.88)],
                palette(*i).filled(),
            )])?;
            let label = format!("{} {}", bar.level, percent(*share));
            let room = share / total * plot_width;
            if f64::from(text_width(&label)) + 8.0 < room {
                let style = (FONT, TICK_SIZE)
                    .into_font()
                    .color(&WHITE)
                    .pos(Pos::new(HPos::Center, VPos::Center));
                let at = ((left + right) / 2.0, 0.5);
                chart.draw_series([Text::new(label, at, style)])?;
            }
            left = right;
        }
        Ok(())
    })
}
