//! Serial-dependence plots: lag plots and the autocorrelation function.

use plotters::prelude::*;

use super::sequence::mesh;
use super::{AcfPlot, DATA, Drawn, LagPlot, PlotResult, REFERENCE, STEADY, label_font, svg};
use crate::html::scale::{Span, plottable, tick, whole_tick};

/// Size of one lag plot (square, two per pair).
const LAG_SIZE: (u32, u32) = (300, 300);
/// Size of one autocorrelation plot.
const ACF_SIZE: (u32, u32) = (560, 280);

/// "measured" or "shuffled", for captions.
fn order(shuffled: bool) -> &'static str {
    if shuffled { "shuffled" } else { "measured" }
}

pub(super) fn lag(p: &LagPlot<'_>) -> PlotResult {
    let points: Vec<(f64, f64)> = p
        .points
        .iter()
        .copied()
        .filter(|(a, b)| plottable(*a) && plottable(*b))
        .collect();
    if points.is_empty() {
        return Ok(Drawn::Empty(format!(
            "No {} pairs at lag {}.",
            order(p.shuffled),
            p.lag
        )));
    }
    let s = p.span;
    let caption = format!("lag {}, {} order", p.lag, order(p.shuffled));
    let x_desc = format!("x[t] ({})", p.unit);
    let y_desc = format!("x[t+{}]", p.lag);
    let colour = if p.shuffled { REFERENCE } else { DATA };
    let r = if points.len() > 500 { 1 } else { 2 };
    svg(LAG_SIZE, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .caption(caption, label_font())
            .x_label_area_size(40)
            .y_label_area_size(58)
            .build_cartesian_2d(s.lo..s.hi, s.lo..s.hi)?;
        mesh(&mut chart, (&x_desc, &y_desc), &tick, &tick)?;
        chart.draw_series(
            points
                .iter()
                .map(|q| Circle::new(*q, r, colour.mix(0.75).filled())),
        )?;
        Ok(())
    })
}

pub(super) fn acf(p: &AcfPlot<'_>) -> PlotResult {
    let stems: Vec<(f64, f64)> = p
        .values
        .iter()
        .enumerate()
        .map(|(i, v)| ((i + 1) as f64, *v))
        .filter(|(_, v)| plottable(*v))
        .collect();
    if stems.is_empty() {
        return Ok(Drawn::Empty(format!(
            "No {} autocorrelations to plot.",
            order(p.shuffled)
        )));
    }
    let e = if plottable(p.extent) && p.extent > 0.0 {
        p.extent
    } else {
        1.0
    };
    let x = Span {
        lo: 0.0,
        hi: p.values.len() as f64 + 0.5,
    };
    let caption = format!("autocorrelation, {} order", order(p.shuffled));
    let colour = if p.shuffled { REFERENCE } else { DATA };
    svg(ACF_SIZE, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .caption(caption, label_font())
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(x.lo..x.hi, -e..e)?;
        mesh(&mut chart, ("lag", "autocorrelation"), &whole_tick, &tick)?;
        if plottable(p.bound) && p.bound > 0.0 {
            let b = p.bound.min(e);
            chart.draw_series([Rectangle::new(
                [(x.lo, -b), (x.hi, b)],
                STEADY.mix(0.12).filled(),
            )])?;
            for y in [-b, b] {
                let line = vec![(x.lo, y), (x.hi, y)];
                chart.draw_series([PathElement::new(line, STEADY.stroke_width(1))])?;
            }
        }
        let zero = vec![(x.lo, 0.0), (x.hi, 0.0)];
        chart.draw_series([PathElement::new(zero, BLACK.stroke_width(1))])?;
        let clip = |v: f64| v.clamp(-e, e);
        chart.draw_series(stems.iter().map(|(l, v)| {
            PathElement::new(vec![(*l, 0.0), (*l, clip(*v))], colour.stroke_width(3))
        }))?;
        chart.draw_series(
            stems
                .iter()
                .map(|(l, v)| Circle::new((*l, clip(*v)), 3, colour.filled())),
        )?;
        Ok(())
    })
}
