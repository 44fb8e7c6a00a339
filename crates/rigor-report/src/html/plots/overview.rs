//! The overview of a run with several benchmarks, on one shared axis: each benchmark's mean
//! with its confidence interval as a bar, and the distribution of its execution means as a box
//! with the points over it.

use plotters::prelude::*;

use super::sequence::Chart;
use super::{
    DATA, DrawResult, Drawn, OUTLIER, PlotResult, REFERENCE, XAxis, banded, label_font, palette,
    svg, tick_font,
};
use crate::html::scale::{Span, plottable, tick, truncate};
use crate::html::view::{OverviewRow, ParameterPlot};

/// Pixels per benchmark.
const ROW_HEIGHT: u32 = 40;
/// Longest row label, in characters.
const MAX_LABEL: usize = 40;

/// Draws rows on a shared x axis from `x` with one labelled band per benchmark; with `log`, the
/// axis is logarithmic (positions are decimal logarithms: [`at`]).
fn rows_plot<F>(rows: &[OverviewRow], x: Span, desc: &str, log: bool, mut draw: F) -> PlotResult
where
    F: FnMut(&mut Chart<'_, '_>, &OverviewRow, f64) -> DrawResult,
{
    let labels: Vec<String> = rows.iter().map(|r| truncate(&r.name, MAX_LABEL)).collect();
    banded(
        labels,
        ROW_HEIGHT,
        XAxis { span: x, desc, log },
        |_, chart, i, y| draw(chart, &rows[i], y),
        |_| Ok(()),
    )
}

/// What the distribution's axis shows: "time of each execution" in a unit of time, "each
/// execution" in another metric's unit (MiB, a count).
fn each(unit: &str) -> &'static str {
    if ["ns", "µs", "us", "ms", "s"].contains(&unit) {
        "time of each execution"
    } else {
        "each execution"
    }
}

/// Means this many times apart or more are drawn on a logarithmic axis: on a linear one the
/// fastest benchmarks (nanoseconds beside microseconds) would be invisible.
const LOG_FROM: f64 = 20.0;

/// Whether values spanning `lo..=hi` (positive) are drawn on a logarithmic axis.
fn log_axis(lo: f64, hi: f64) -> bool {
    lo > 0.0 && hi / lo >= LOG_FROM
}

/// The axis position of `v`: itself, or its decimal logarithm on a logarithmic axis (values
/// at or below zero, which a log axis cannot place, go to its left edge `floor`).
fn at(v: f64, log: bool, floor: f64) -> f64 {
    if !log {
        v
    } else if v > 0.0 {
        v.log10()
    } else {
        floor
    }
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
    let least = drawable
        .iter()
        .map(|r| r.mean)
        .fold(f64::INFINITY, f64::min);
    let log = log_axis(least, top);
    let (x, desc) = if log {
        let lo = rows
            .iter()
            .flat_map(|r| [r.mean, r.ci_lower])
            .filter(|v| plottable(*v) && *v > 0.0)
            .fold(least, f64::min);
        let (lo, hi) = (lo.log10().floor(), top.log10() + 0.05);
        (Span { lo, hi }, format!("mean ({unit}, logarithmic axis)"))
    } else {
        (
            Span {
                lo: 0.0,
                hi: top * 1.08,
            },
            format!("mean ({unit})"),
        )
    };
    let p = |v: f64| at(v, log, x.lo);
    rows_plot(rows, x, &desc, log, |chart, r, y| {
        if !plottable(r.mean) {
            return Ok(());
        }
        chart.draw_series([Rectangle::new(
            [
                (if log { x.lo } else { 0.0 }, y - 0.3),
                (p(r.mean), y + 0.3),
            ],
            DATA.mix(0.55).filled(),
        )])?;
        if plottable(r.ci_lower) && plottable(r.ci_upper) {
            let (lo, hi) = (p(r.ci_lower), p(r.ci_upper));
            chart.draw_series([PathElement::new(
                vec![(lo, y), (hi, y)],
                BLACK.stroke_width(2),
            )])?;
            for end in [lo, hi] {
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
    let log = log_axis(x.lo, x.hi);
    let (x, desc) = if log {
        let span = Span {
            lo: x.lo.log10(),
            hi: x.hi.log10(),
        };
        (
            span.padded(0.05),
            format!("{} ({unit}, logarithmic axis)", each(unit)),
        )
    } else {
        (x.padded(0.05), format!("{} ({unit})", each(unit)))
    };
    let p = |v: f64| at(v, log, x.lo);
    rows_plot(rows, x, &desc, log, |chart, r, y| {
        let r = &OverviewRow {
            mean: p(r.mean),
            quartiles: r.quartiles.map(|q| q.map(p)),
            values: r.values.iter().map(|v| p(*v)).collect(),
            ..r.clone()
        };
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

/// A statistic against a parameter: a line per series, the intervals as error bars. A numeric
/// parameter whose values span [`LOG_FROM`] times or more is drawn on a logarithmic axis; values
/// that are not numbers are categories, in their order.
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
    let categorical = !p.categories.is_empty();
    let log = !categorical && log_axis(x.lo, x.hi);
    let x = if categorical {
        Span {
            lo: -0.5,
            hi: p.categories.len() as f64 - 0.5,
        }
    } else if log {
        Span {
            lo: x.lo.log10(),
            hi: x.hi.log10(),
        }
        .padded(0.05)
    } else {
        x.padded(0.05)
    };
    let px = |v: f64| at(v, log, x.lo);
    let y = y.padded(0.05);
    let statistic = if p.statistic.is_empty() {
        "mean"
    } else {
        p.statistic.as_str()
    };
    let y_desc = format!("{statistic} ({unit})");
    let x_desc = if log {
        format!("{} (logarithmic axis)", p.name)
    } else {
        p.name.clone()
    };
    let x_label = |v: &f64| {
        if categorical {
            let i = v.round();
            let whole = (v - i).abs() < 1e-9 && i >= 0.0;
            whole
                .then(|| p.categories.get(i as usize).map(|c| truncate(c, 16)))
                .flatten()
                .unwrap_or_default()
        } else if log {
            // Whole powers of ten only: between them a logarithmic tick (15.85) reads as noise.
            let power = v.round();
            if (v - power).abs() < 1e-9 {
                tick(10f64.powf(power))
            } else {
                String::new()
            }
        } else {
            tick(*v)
        }
    };
    svg(PARAMETER_SIZE, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .margin_right(24)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x.lo..x.hi, y.lo.max(0.0)..y.hi)?;
        let mut mesh = chart.configure_mesh();
        mesh.bold_line_style(RGBColor(232, 232, 232))
            .light_line_style(TRANSPARENT)
            .x_label_formatter(&x_label)
            .y_label_formatter(&|v| tick(*v))
            .label_style(tick_font())
            .axis_desc_style(label_font())
            .x_desc(x_desc.as_str())
            .y_desc(y_desc.as_str());
        if categorical {
            mesh.x_labels(p.categories.len().max(2));
        }
        mesh.draw()?;
        for (i, (_, pts)) in p.series.iter().enumerate() {
            let colour = palette(i);
            let line: Vec<(f64, f64)> = pts.iter().map(|q| (px(q[0]), q[1])).collect();
            chart.draw_series([PathElement::new(line, colour.stroke_width(2))])?;
            for q in pts {
                let bar = vec![(px(q[0]), q[2]), (px(q[0]), q[3])];
                chart.draw_series([PathElement::new(bar, colour.stroke_width(1))])?;
                chart.draw_series([Circle::new((px(q[0]), q[1]), 4, colour.filled())])?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, mean: f64) -> OverviewRow {
        OverviewRow {
            name: name.into(),
            mean,
            ci_lower: mean * 0.98,
            ci_upper: mean * 1.02,
            values: vec![mean * 0.99, mean, mean * 1.01],
            quartiles: Some([mean * 0.995, mean, mean * 1.005]),
        }
    }

    fn svg(d: PlotResult) -> String {
        match d.unwrap() {
            Drawn::Svg(s) => s,
            Drawn::Empty(why) => panic!("{why}"),
        }
    }

    fn plot(xs: &[f64], categories: &[&str]) -> ParameterPlot {
        let pts = |k: f64| {
            xs.iter()
                .map(|&x| [x, k * (x + 1.0), k * x, k * (x + 2.0)])
                .collect()
        };
        ParameterPlot {
            title: "sort".into(),
            name: "input".into(),
            statistic: "min".into(),
            unit: "ns".into(),
            categories: categories.iter().map(|c| c.to_string()).collect(),
            series: vec![
                ("sort/std".into(), pts(1.0)),
                ("sort/unstable".into(), pts(0.5)),
            ],
        }
    }

    #[test]
    fn a_parameter_spanning_twenty_times_or_more_is_drawn_on_a_logarithmic_axis() {
        let wide = svg(parameter(&plot(&[10.0, 100.0, 10_000.0], &[]), "ns"));
        assert!(wide.contains("input (logarithmic axis)"), "{wide}");
        assert!(wide.contains("min (ns)"), "{wide}");
        // One marker per point of each line.
        assert_eq!(wide.matches("<circle").count(), 6, "{wide}");
        let narrow = svg(parameter(&plot(&[10.0, 100.0], &[]), "ns"));
        assert!(!narrow.contains("logarithmic"), "{narrow}");
    }

    #[test]
    fn a_parameter_that_is_not_a_number_is_drawn_as_categories() {
        let s = svg(parameter(
            &plot(&[0.0, 1.0, 2.0], &["small", "medium", "large"]),
            "µs",
        ));
        let labels: Vec<&str> = s.lines().map(str::trim).collect();
        for c in ["small", "medium", "large"] {
            assert!(labels.contains(&c), "{c} not an axis label in {s}");
        }
        assert!(!s.contains("logarithmic"), "{s}");
    }

    #[test]
    fn means_far_apart_are_drawn_on_a_logarithmic_axis() {
        // 10 ns beside 20 µs: on a linear axis the first bar would be 0.05% of the width.
        let apart = [row("fast", 10.0), row("slow", 20_000.0)];
        for plot in [means(&apart, "ns"), distribution(&apart, "ns")] {
            assert!(svg(plot).contains("logarithmic axis"));
        }
        // Ticks name the values, not their logarithms.
        let s = svg(means(&apart, "ns"));
        let ticks: Vec<&str> = s.lines().map(str::trim).collect();
        for t in ["10", "100", "1000", "10000"] {
            assert!(ticks.contains(&t), "{t} not a tick in {s}");
        }
        let close = [row("a", 10.0), row("b", 15.0)];
        for plot in [means(&close, "ns"), distribution(&close, "ns")] {
            assert!(!svg(plot).contains("logarithmic"));
        }
    }
}
