//! Plots in run order: the run-sequence plot and the per-execution means.

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{
    Area, BUILD, CHANGE, DATA, DrawResult, Drawn, OUTLIER, PlotError, PlotResult, REFERENCE, SHADE,
    STEADY, label_font, palette, svg,
};
use crate::html::scale::{Span, plottable, tick, whole_tick};
use crate::html::view::{BenchmarkSection, BuildMark, ExecutionSeries};

/// Size of the run-sequence plot, wide because it holds every execution.
const RUN_SIZE: (u32, u32) = (1140, 320);
/// Size of the execution-means plot.
const MEANS_SIZE: (u32, u32) = (600, 300);
/// Above this many iterations points are left out and only lines drawn.
const MAX_DOTS: usize = 400;

/// A cartesian chart over f64 axes.
pub(crate) type Chart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A chart on `root` over `x` × `y` with the margins (`top` pixels above) and label areas of
/// the plots of a series, its axes drawn by [`mesh`].
pub(crate) fn meshed<'a, 'b>(
    root: &'a Area<'b>,
    top: u32,
    (x, y): (Span, Span),
    descs: (&str, &str),
    x_fmt: &dyn Fn(f64) -> String,
    y_fmt: &dyn Fn(f64) -> String,
) -> Result<Chart<'a, 'b>, PlotError> {
    let mut chart = ChartBuilder::on(root)
        .margin(12)
        .margin_top(top)
        .x_label_area_size(44)
        .y_label_area_size(76)
        .build_cartesian_2d(x.lo..x.hi, y.lo..y.hi)?;
    mesh(&mut chart, descs, x_fmt, y_fmt)?;
    Ok(chart)
}

/// Axes, light grid and descriptions shared by the plots.
pub(crate) fn mesh(
    chart: &mut Chart<'_, '_>,
    (x_desc, y_desc): (&str, &str),
    x_fmt: &dyn Fn(f64) -> String,
    y_fmt: &dyn Fn(f64) -> String,
) -> DrawResult {
    // Tick positions carry rounding noise (a zero tick may come out as -5.6e-17): snap it.
    let snap = |v: f64, r: std::ops::Range<f64>| {
        if v.abs() < (r.end - r.start) * 1e-9 {
            0.0
        } else {
            v
        }
    };
    let (xr, yr) = (chart.x_range(), chart.y_range());
    let xf = |v: &f64| x_fmt(snap(*v, xr.clone()));
    let yf = |v: &f64| y_fmt(snap(*v, yr.clone()));
    chart
        .configure_mesh()
        .disable_x_mesh()
        .bold_line_style(RGBColor(232, 232, 232))
        .light_line_style(TRANSPARENT)
        .x_labels(8)
        .y_labels(6)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .label_style(super::tick_font())
        .axis_desc_style(label_font())
        .x_desc(x_desc)
        .y_desc(y_desc)
        .draw()?;
    Ok(())
}

/// The distinct execution classes in order of first appearance; an execution's colour is the
/// palette entry at its class's position.
pub fn classes(executions: &[ExecutionSeries]) -> Vec<&str> {
    let mut seen: Vec<&str> = Vec::new();
    for e in executions {
        if !seen.contains(&e.class.as_str()) {
            seen.push(&e.class);
        }
    }
    seen
}

/// Splits one execution into runs of plottable points at x = `offset` + index.
fn segments(values: &[f64], offset: usize) -> Vec<Vec<(f64, f64)>> {
    let mut out = vec![Vec::new()];
    for (i, v) in values.iter().enumerate() {
        if plottable(*v) {
            out.last_mut()
                .into_iter()
                .for_each(|s| s.push(((offset + i) as f64, *v)));
        } else if out.last().is_some_and(|s| !s.is_empty()) {
            out.push(Vec::new());
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// The y range of the run sequence: every value, or — when warm-up values stretch the range
/// more than [`ZOOM_FROM`] times the steady part's — the steady part, so that its structure is
/// visible; then also how many values fall outside and the farthest of them.
fn y_range(s: &BenchmarkSection) -> Option<(Span, Option<(usize, f64)>)> {
    let all = Span::of(s.executions.iter().flat_map(|e| e.values.iter().copied()))?;
    let start = |e: &ExecutionSeries| {
        e.steady_start
            .or(s.warmup_cut)
            .unwrap_or(0)
            .min(e.values.len())
    };
    let steady = Span::of(
        s.executions
            .iter()
            .flat_map(|e| e.values[start(e)..].iter().copied()),
    );
    match steady {
        Some(st) if all.width() > ZOOM_FROM * st.width() => {
            let y = st.padded(0.15);
            let outside: Vec<f64> = s
                .executions
                .iter()
                .flat_map(|e| e.values.iter().copied())
                .filter(|v| plottable(*v) && (*v < y.lo || *v > y.hi))
                .collect();
            let farthest = outside
                .iter()
                .copied()
                .max_by(|a, b| (a - st.lo).abs().total_cmp(&(b - st.lo).abs()))
                .unwrap_or(st.hi);
            Some((y, Some((outside.len(), farthest))))
        }
        _ => Some((all.padded(0.06), None)),
    }
}

/// How many times wider than the steady part the whole range must be for the plot to zoom.
const ZOOM_FROM: f64 = 3.0;

pub(super) fn run_sequence(s: &BenchmarkSection) -> PlotResult {
    let Some((y, zoomed)) = y_range(s) else {
        return Ok(Drawn::Empty("No measured iterations to plot.".to_string()));
    };
    // Values off a zoomed scale are drawn at its edge.
    let clamped: Vec<ExecutionSeries> = s
        .executions
        .iter()
        .map(|e| ExecutionSeries {
            values: e
                .values
                .iter()
                .map(|v| {
                    if plottable(*v) {
                        v.clamp(y.lo, y.hi)
                    } else {
                        *v
                    }
                })
                .collect(),
            ..e.clone()
        })
        .collect();
    let total: usize = s.executions.iter().map(|e| e.values.len()).sum();
    let x = Span {
        lo: -0.5,
        hi: total as f64 - 0.5,
    };
    let unit = format!("value ({})", s.unit_label);
    let classes = classes(&s.executions);
    svg(RUN_SIZE, |root| {
        let mut chart = meshed(
            root,
            12,
            (x, y),
            ("iteration (executions end to end)", &unit),
            &whole_tick,
            &tick,
        )?;
        let dots = total <= MAX_DOTS;
        let mut offset = 0;
        if let Some((n, farthest)) = zoomed {
            let note = format!(
                "zoomed to the steady state: {n} warm-up value(s) off the scale (to {} {}) drawn at its edge",
                tick(farthest),
                s.unit_label
            );
            // In the top margin, above the values drawn at the edge.
            let style = (super::FONT, super::SMALL_SIZE)
                .into_font()
                .color(&REFERENCE)
                .pos(Pos::new(HPos::Left, VPos::Top));
            root.draw(&Text::new(note, (90, 0), style))?;
        }
        for (n, e) in clamped.iter().enumerate() {
            let colour = palette(classes.iter().position(|c| *c == e.class).unwrap_or(0));
            let marks = Marks {
                offset,
                first: n == 0,
                warmup_cut: s.warmup_cut,
                y,
            };
            draw_execution(&mut chart, e, colour, dots, &marks)?;
            offset += e.values.len();
        }
        draw_builds(&mut chart, &s.builds, |m| m.first_value as f64 - 0.5, y)
    })
}

/// Where one execution sits on the run-sequence plot.
struct Marks {
    offset: usize,
    first: bool,
    warmup_cut: Option<usize>,
    y: Span,
}

fn draw_execution(
    chart: &mut Chart<'_, '_>,
    e: &ExecutionSeries,
    colour: RGBColor,
    dots: bool,
    m: &Marks,
) -> DrawResult {
    let len = e.values.len();
    let left = m.offset as f64 - 0.5;
    let vline = |x: f64| vec![(x, m.y.lo), (x, m.y.hi)];
    if let Some(cut) = m.warmup_cut.filter(|c| *c > 0 && len > 0) {
        let right = left + cut.min(len) as f64;
        chart.draw_series([Rectangle::new(
            [(left, m.y.lo), (right, m.y.hi)],
            SHADE.mix(0.55).filled(),
        )])?;
    }
    if !m.first {
        chart.draw_series([PathElement::new(vline(left), REFERENCE.stroke_width(1))])?;
    }
    let changes = e.changepoints.iter().filter(|c| **c > 0 && **c < len);
    chart.draw_series(
        changes.map(|c| PathElement::new(vline(left + *c as f64), CHANGE.stroke_width(2))),
    )?;
    for seg in segments(&e.values, m.offset) {
        if dots {
            chart.draw_series(seg.iter().map(|p| Circle::new(*p, 2, colour.filled())))?;
        }
        chart.draw_series([PathElement::new(seg, colour.stroke_width(1))])?;
    }
    let outliers = e
        .outliers
        .iter()
        .filter_map(|i| e.values.get(*i).map(|v| ((m.offset + i) as f64, *v)))
        .filter(|(_, v)| plottable(*v));
    chart.draw_series(outliers.map(|p| Circle::new(p, 5, OUTLIER.stroke_width(2))))?;
    if let Some(start) = e.steady_start.filter(|s| *s < len) {
        let at = ((m.offset + start) as f64, m.y.lo + m.y.width() * 0.035);
        chart.draw_series([TriangleMarker::new(at, 6, STEADY.filled())])?;
    }
    Ok(())
}

/// Narrowest room, in pixels, a build label is given; with narrower builds only every few are
/// labelled, so that labels never overlap.
const BUILD_LABEL_ROOM: f64 = 64.0;

/// Marks where each build starts: a thick line at every boundary after the first (`at` gives
/// its x) and the build's label at the top, just right of it.
fn draw_builds(
    chart: &mut Chart<'_, '_>,
    builds: &[BuildMark],
    at: impl Fn(&BuildMark) -> f64,
    y: Span,
) -> DrawResult {
    if builds.len() < 2 {
        return Ok(());
    }
    let xr = chart.x_range();
    let pixels = f64::from(chart.plotting_area().get_pixel_range().0.len() as u32);
    let narrowest = builds
        .windows(2)
        .map(|w| (at(&w[1]) - at(&w[0])) / (xr.end - xr.start) * pixels)
        .fold(f64::INFINITY, f64::min);
    let stride = (BUILD_LABEL_ROOM / narrowest.max(1.0)).ceil().max(1.0) as usize;
    let line = |x: f64| PathElement::new(vec![(x, y.lo), (x, y.hi)], BUILD.stroke_width(3));
    chart.draw_series(builds[1..].iter().map(|m| line(at(m))))?;
    let style = (super::FONT, super::SMALL_SIZE)
        .into_font()
        .color(&BUILD)
        .pos(Pos::new(HPos::Left, VPos::Top));
    let labels = builds.iter().step_by(stride).map(|m| {
        let x = at(m).max(xr.start);
        EmptyElement::at((x, y.hi)) + Text::new(m.label.clone(), (5, 3), style.clone())
    });
    chart.draw_series(labels)?;
    Ok(())
}

pub(super) fn execution_means(s: &BenchmarkSection) -> PlotResult {
    let means: Vec<(f64, f64)> = s
        .execution_means
        .iter()
        .enumerate()
        .map(|(i, m)| ((i + 1) as f64, *m))
        .filter(|(_, m)| plottable(*m))
        .collect();
    let Some(data) = Span::of(means.iter().map(|p| p.1)) else {
        return Ok(Drawn::Empty("No execution means to plot.".to_string()));
    };
    let band = [s.ci_lower, s.ci_upper, s.mean];
    let y = Span::of(band).map_or(data, |b| b.union(data)).padded(0.08);
    let n = s.execution_means.len() as f64;
    let x = Span {
        lo: 0.5,
        hi: n + 0.5,
    };
    let unit = format!("execution mean ({})", s.unit_label);
    svg(MEANS_SIZE, |root| {
        let mut chart = meshed(root, 12, (x, y), ("execution", &unit), &whole_tick, &tick)?;
        if plottable(s.ci_lower) && plottable(s.ci_upper) {
            let (lo, hi) = (s.ci_lower.max(y.lo), s.ci_upper.min(y.hi));
            chart.draw_series([Rectangle::new(
                [(x.lo, lo), (x.hi, hi)],
                DATA.mix(0.18).filled(),
            )])?;
        }
        if plottable(s.mean) {
            let line = vec![(x.lo, s.mean), (x.hi, s.mean)];
            chart.draw_series([PathElement::new(line, DATA.stroke_width(2))])?;
        }
        let r = if means.len() > 60 { 2 } else { 4 };
        chart.draw_series(means.iter().map(|p| Circle::new(*p, r, BLACK.filled())))?;
        draw_builds(&mut chart, &s.builds, |m| m.first_execution as f64 + 0.5, y)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_break_at_unplottable_values() {
        let s = segments(&[1.0, f64::NAN, 2.0, 3.0, f64::INFINITY], 10);
        assert_eq!(s, vec![vec![(10.0, 1.0)], vec![(12.0, 2.0), (13.0, 3.0)]]);
        assert!(segments(&[f64::NAN], 0).is_empty());
    }

    /// 40 builds of one execution of 5 values each: every boundary drawn, labels thinned so
    /// that each has room, the first always labelled.
    #[test]
    fn many_narrow_builds_keep_every_line_and_thin_the_labels() {
        let executions: Vec<ExecutionSeries> = (0..40)
            .map(|i| ExecutionSeries {
                values: vec![10.0 + f64::from(i % 3); 5],
                ..Default::default()
            })
            .collect();
        let builds = (0..40)
            .map(|i| BuildMark {
                label: format!("build {}", i + 1),
                first_value: 5 * i,
                first_execution: i,
            })
            .collect();
        let s = BenchmarkSection {
            unit_label: "ms".to_string(),
            executions,
            builds,
            ..Default::default()
        };
        let Ok(Drawn::Svg(svg)) = run_sequence(&s) else {
            panic!("a plot");
        };
        assert_eq!(svg.matches("stroke=\"#3C2878\"").count(), 39);
        let labels = svg.matches("fill=\"#3C2878\"").count();
        assert!((5..20).contains(&labels), "{labels} labels");
        assert!(svg.contains("build 1\n"));
    }

    #[test]
    fn classes_keep_first_appearance_order() {
        let e = |c: &str| ExecutionSeries {
            class: c.to_string(),
            ..Default::default()
        };
        let ex = [e("warm-up"), e("flat"), e("warm-up")];
        assert_eq!(classes(&ex), vec!["warm-up", "flat"]);
    }
}
