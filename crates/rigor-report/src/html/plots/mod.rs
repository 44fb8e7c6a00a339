//! Plots as inline SVG, behind the [`Plotter`] trait.
//!
//! [`PlottersSvg`] draws with the `plotters` crate's SVG backend, built without any font feature:
//! plotters then only estimates text sizes and writes `<text>` elements, leaving glyphs to the
//! browser, so no system font library (font-kit, freetype, fontconfig) is needed to build or run.
//! plotters escapes the text it writes, so user-supplied labels are safe inside the SVG.
//!
//! A plotter returns a complete `<svg>` element; the page gives it its id, classes and `<title>`
//! with [`label_svg`], so every plot is labelled the same way whichever plotter drew it.

mod correlation;
mod distribution;
mod forest;
mod overview;
pub(crate) mod sequence;

pub use sequence::classes;

use std::fmt;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::view::{BenchmarkSection, ComparisonRow, ComponentBar, OverviewRow, ParameterPlot};
use crate::html::escape::Escaped;
use crate::html::scale::{Span, tick};

/// What a plotter produced for one plot.
#[derive(Debug, Clone, PartialEq)]
pub enum Drawn {
    /// A complete `<svg>` element.
    Svg(String),
    /// Nothing to draw; the text says why, for the reader.
    Empty(String),
}

/// A plot that could not be drawn.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PlotError {
    /// What went wrong, from the drawing library.
    pub message: String,
}

impl PlotError {
    /// An error with this message, for plotters other than [`PlottersSvg`].
    pub fn new(message: impl Into<String>) -> Self {
        PlotError {
            message: message.into(),
        }
    }
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "plot could not be drawn: {}", self.message)
    }
}

impl std::error::Error for PlotError {}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        PlotError {
            message: e.to_string(),
        }
    }
}

/// Input of one lag plot.
#[derive(Debug, Clone, Copy)]
pub struct LagPlot<'a> {
    /// (`x[t]`, `x[t + lag]`) pairs.
    pub points: &'a [(f64, f64)],
    /// The lag, in iterations.
    pub lag: usize,
    /// Whether the points come from shuffled data.
    pub shuffled: bool,
    /// Unit of the values.
    pub unit: &'a str,
    /// Range of both axes, shared by all lag plots of a benchmark so they compare at a glance.
    pub span: Span,
}

/// Input of one autocorrelation plot.
#[derive(Debug, Clone, Copy)]
pub struct AcfPlot<'a> {
    /// Autocorrelation at lags 1, 2, ….
    pub values: &'a [f64],
    /// Half-width of the band of no significant autocorrelation.
    pub bound: f64,
    /// Whether the values come from shuffled data.
    pub shuffled: bool,
    /// Half-range of the y axis, shared by the measured and shuffled plots.
    pub extent: f64,
}

/// The result of drawing one plot.
pub type PlotResult = Result<Drawn, PlotError>;

/// Draws each kind of plot in the report. Inputs are view-model data; nothing is computed
/// beyond placing it on axes.
pub trait Plotter {
    /// Iterations of all executions end to end, with execution boundaries, changepoints, the
    /// warm-up cut, steady-state starts and outliers marked.
    fn run_sequence(&self, section: &BenchmarkSection) -> PlotResult;
    /// One lag plot.
    fn lag(&self, plot: &LagPlot<'_>) -> PlotResult;
    /// Autocorrelation by lag with the ± bound band.
    fn acf(&self, plot: &AcfPlot<'_>) -> PlotResult;
    /// Histogram of the steady-state values with the mean marked.
    fn histogram(&self, section: &BenchmarkSection) -> PlotResult;
    /// Per-execution means against the confidence interval of the mean.
    fn execution_means(&self, section: &BenchmarkSection) -> PlotResult;
    /// Variance components as one horizontal stacked bar.
    fn components(&self, bars: &[ComponentBar]) -> PlotResult;
    /// Forest plot of comparison ratios with their intervals and thresholds.
    fn forest(&self, rows: &[ComparisonRow]) -> PlotResult;
    /// Every benchmark's mean as a bar with its confidence interval, on one axis in `unit`.
    fn overview_means(&self, rows: &[OverviewRow], unit: &str) -> PlotResult {
        let _ = (rows, unit);
        Ok(Drawn::Empty("This plotter draws no overview.".into()))
    }
    /// Every benchmark's execution times as a box with the points, on one axis in `unit`.
    fn overview_distribution(&self, rows: &[OverviewRow], unit: &str) -> PlotResult {
        let _ = (rows, unit);
        Ok(Drawn::Empty("This plotter draws no overview.".into()))
    }
    /// Means with their intervals against a numeric parameter, one line per series.
    fn parameter(&self, plot: &ParameterPlot, unit: &str) -> PlotResult {
        let _ = (plot, unit);
        Ok(Drawn::Empty("This plotter draws no parameter plot.".into()))
    }
}

/// The plotters-based SVG plotter.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlottersSvg;

impl Plotter for PlottersSvg {
    fn run_sequence(&self, section: &BenchmarkSection) -> PlotResult {
        sequence::run_sequence(section)
    }
    fn lag(&self, plot: &LagPlot<'_>) -> PlotResult {
        correlation::lag(plot)
    }
    fn acf(&self, plot: &AcfPlot<'_>) -> PlotResult {
        correlation::acf(plot)
    }
    fn histogram(&self, section: &BenchmarkSection) -> PlotResult {
        distribution::histogram(section)
    }
    fn execution_means(&self, section: &BenchmarkSection) -> PlotResult {
        sequence::execution_means(section)
    }
    fn components(&self, bars: &[ComponentBar]) -> PlotResult {
        distribution::components(bars)
    }
    fn forest(&self, rows: &[ComparisonRow]) -> PlotResult {
        forest::forest(rows)
    }
    fn overview_means(&self, rows: &[OverviewRow], unit: &str) -> PlotResult {
        overview::means(rows, unit)
    }
    fn overview_distribution(&self, rows: &[OverviewRow], unit: &str) -> PlotResult {
        overview::distribution(rows, unit)
    }
    fn parameter(&self, plot: &ParameterPlot, unit: &str) -> PlotResult {
        overview::parameter(plot, unit)
    }
}

/// Gives a complete `<svg>` element an id, the classes `plot` and `class`, an accessible
/// `<title>` and no namespace URL (inline SVG in HTML needs none). The element must have no id
/// or class of its own; text that holds no `<svg` element gives an empty string.
pub fn label_svg(svg: &str, id: &str, class: &str, title: &str) -> String {
    let Some(start) = svg.find("<svg") else {
        return String::new();
    };
    let Some(end) = svg[start..].find('>').map(|i| start + i) else {
        return String::new();
    };
    let attrs = svg[start + 4..end]
        .replace(r#" xmlns="http://www.w3.org/2000/svg""#, "")
        .trim_end_matches('/')
        .to_string();
    let self_closing = svg[..end].ends_with('/');
    let rest = if self_closing {
        "</svg>"
    } else {
        svg[end + 1..].trim_start_matches('\n')
    };
    format!(
        "<svg id=\"{id}\" class=\"plot {class}\" role=\"img\" aria-labelledby=\"{id}-title\"{attrs}>\n\
         <title id=\"{id}-title\">{}</title>\n{rest}",
        Escaped(title),
        id = Escaped(id),
        class = Escaped(class),
    )
}

/// Font family of all plot text; the browser picks the face.
pub(crate) const FONT: &str = "sans-serif";
/// Size of tick labels: plotters writes 1/1.24 of it as the SVG font-size, here 12.5px.
pub(crate) const TICK_SIZE: f64 = 15.5;
/// Size of axis descriptions and captions (14px).
const LABEL_SIZE: f64 = 17.36;
/// Size of small annotations (10.5px).
pub(crate) const SMALL_SIZE: f64 = 13.02;

/// Blue of the main data.
pub(crate) const DATA: RGBColor = RGBColor(31, 119, 180);
/// Orange of changepoints.
pub(crate) const CHANGE: RGBColor = RGBColor(230, 120, 0);
/// Red of outliers.
pub(crate) const OUTLIER: RGBColor = RGBColor(200, 30, 30);
/// Green of steady-state starts and threshold bands.
const STEADY: RGBColor = RGBColor(30, 140, 60);
/// Dark violet of build boundaries and labels in run-order plots.
pub(crate) const BUILD: RGBColor = RGBColor(60, 40, 120);
/// Grey of boundaries and reference lines.
pub(crate) const REFERENCE: RGBColor = RGBColor(110, 110, 110);
/// Light grey of the warm-up shading.
pub(crate) const SHADE: RGBColor = RGBColor(200, 200, 200);

/// Colours of execution classes and variance components, in order of first appearance.
const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(148, 103, 189),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The colour for the `i`th class or component.
pub fn palette(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The CSS colour string of the `i`th palette entry, for legends in HTML.
pub fn palette_css(i: usize) -> String {
    let RGBColor(r, g, b) = palette(i);
    format!("#{r:02x}{g:02x}{b:02x}")
}

pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
pub(crate) type DrawResult = Result<(), PlotError>;

/// Draws on a fresh white SVG of `size` pixels and returns the SVG text.
pub(crate) fn svg<F>(size: (u32, u32), draw: F) -> PlotResult
where
    F: for<'a> FnOnce(&Area<'a>) -> DrawResult,
{
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        root.fill(&WHITE)?;
        draw(&root)?;
        root.present()?;
    }
    Ok(Drawn::Svg(buf))
}

/// Width of the plots of one band per row (the forest plot, the overviews); their height grows
/// with the rows.
const BANDED_WIDTH: u32 = 960;

/// The shared x axis of a banded plot: its span, its description, and whether it is
/// logarithmic.
#[derive(Debug, Clone, Copy)]
pub(crate) struct XAxis<'a> {
    /// The positions it spans.
    pub span: Span,
    /// What it shows.
    pub desc: &'a str,
    /// The positions are decimal logarithms of the values (the caller transforms them), and the
    /// ticks are labelled with the values themselves.
    pub log: bool,
}

impl<'a> XAxis<'a> {
    /// A linear axis over `span` described by `desc`.
    pub(crate) fn linear(span: Span, desc: &'a str) -> Self {
        Self {
            span,
            desc,
            log: false,
        }
    }
}

/// A plot of one labelled band per row, `row_height` pixels each, on the shared axis `x`:
/// `draw` draws row `i` (labelled `labels[i]`, top to bottom) at height `y`, and `over` draws
/// over all the rows at the end.
pub(crate) fn banded<F, O>(
    labels: Vec<String>,
    row_height: u32,
    axis: XAxis<'_>,
    mut draw: F,
    over: O,
) -> PlotResult
where
    F: FnMut(&Area<'_>, &mut sequence::Chart<'_, '_>, usize, f64) -> DrawResult,
    O: FnOnce(&mut sequence::Chart<'_, '_>) -> DrawResult,
{
    let XAxis { span: x, desc, log } = axis;
    let label_width = labels.iter().map(|l| text_width(l)).max().unwrap_or(0) + 20;
    let n = labels.len();
    let height = 70 + row_height * n as u32;
    svg((BANDED_WIDTH, height), |root| {
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
            .x_label_formatter(&|v| if log { tick(10f64.powf(*v)) } else { tick(*v) })
            .label_style(tick_font())
            .axis_desc_style(label_font())
            .x_desc(desc)
            .draw()?;
        for (i, text) in labels.into_iter().enumerate() {
            let y = (n - 1 - i) as f64;
            draw(root, &mut chart, i, y)?;
            let (px, py) = chart.backend_coord(&(x.lo, y));
            let style = tick_font().pos(Pos::new(HPos::Right, VPos::Center));
            root.draw(&Text::new(text, (px - 10, py), style))?;
        }
        over(&mut chart)
    })
}

/// The tick label font.
pub(crate) fn tick_font() -> TextStyle<'static> {
    (FONT, TICK_SIZE).into_font().color(&BLACK)
}

/// The axis description font.
pub(crate) fn label_font() -> TextStyle<'static> {
    (FONT, LABEL_SIZE).into_font().color(&BLACK)
}

/// Rough width in pixels of `text` in the tick font, as plotters' fontless layout estimates it.
fn text_width(text: &str) -> u32 {
    (text.chars().count() as f64 * TICK_SIZE * 0.46).ceil() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labelling_adds_id_class_and_escaped_title_and_drops_the_namespace() {
        let svg = "<svg width=\"2\" height=\"1\" xmlns=\"http://www.w3.org/2000/svg\">\n<rect/>\n</svg>\n";
        let got = label_svg(svg, "b-1-acf", "acf", "ACF of <b>");
        assert_eq!(
            got,
            "<svg id=\"b-1-acf\" class=\"plot acf\" role=\"img\" aria-labelledby=\"b-1-acf-title\" \
             width=\"2\" height=\"1\">\n<title id=\"b-1-acf-title\">ACF of &lt;b&gt;</title>\n<rect/>\n</svg>\n"
        );
        assert_eq!(label_svg("<p>", "x", "y", "z"), "");
    }

    #[test]
    fn plotters_svg_is_self_contained() {
        let Ok(Drawn::Svg(svg)) = PlottersSvg.components(&[ComponentBar {
            level: "<x>".to_string(),
            share_percent: 100.0,
            sd_percent_of_mean: 1.0,
        }]) else {
            panic!("no svg");
        };
        let labelled = label_svg(&svg, "c", "components", "t");
        assert!(!labelled.contains("http"));
        assert!(labelled.contains("&lt;x&gt; 100%"));
    }
}
