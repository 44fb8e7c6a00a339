//! SVG figures for docs/validation/ (plotters' SVG backend; text is left to the browser).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::comparison::BuildsRow;
use crate::coverage::CoverageRow;
use crate::precision::PrecisionRow;
use crate::speed::SpeedRow;

type Res = Result<(), String>;

const FONT: &str = "sans-serif";
const BLUE: RGBColor = RGBColor(31, 119, 180);
const RED: RGBColor = RGBColor(214, 39, 40);
const ORANGE: RGBColor = RGBColor(255, 127, 14);
const GREEN: RGBColor = RGBColor(44, 160, 44);
const PURPLE: RGBColor = RGBColor(148, 103, 189);
const GREY: RGBColor = RGBColor(127, 127, 127);
const PALETTE: [RGBColor; 6] = [BLUE, RED, ORANGE, GREEN, PURPLE, GREY];

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

fn svg(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> Res,
) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        draw(&root)?;
        root.present().map_err(err)?;
    }
    Ok(out)
}

/// Black text of `size` on `area` with its `h` end at `at` (its start, for `HPos::Left`),
/// centred vertically there.
fn label(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    text: impl std::borrow::Borrow<str>,
    at: (i32, i32),
    size: u32,
    h: HPos,
) -> Res {
    area.draw(&Text::new(
        text,
        at,
        (FONT, size)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(h, VPos::Center)),
    ))
    .map_err(err)
}

/// A row of legend entries on `area`: entry `k`'s dot of `radius` at `(x + step·k, y)`, its
/// name in 12-point text a diameter to its right.
fn dot_legend(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    entries: &[(&str, RGBColor)],
    (x, step): (i32, i32),
    y: i32,
    radius: i32,
) -> Res {
    for (k, &(name, c)) in entries.iter().enumerate() {
        let x = x + step * k as i32;
        area.draw(&Circle::new((x, y), radius, c.filled()))
            .map_err(err)?;
        label(area, name, (x + 2 * radius, y), 12, HPos::Left)?;
    }
    Ok(())
}

/// Coverage per scenario: rigor, pooled iterations and one build, with the 93–97% band.
pub fn coverage(rows: &[CoverageRow]) -> Result<String, String> {
    let n = rows.len();
    let height = 130 + 18 * n as u32;
    svg((980, height), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .margin_right(20)
            .margin_bottom(40)
            .caption("Coverage of nominal 95% intervals for the mean", (FONT, 18))
            .x_label_area_size(50)
            .y_label_area_size(330)
            .build_cartesian_2d(0.0..100.0, -0.5..n as f64 - 0.5)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_labels(11)
            .light_line_style(RGBColor(246, 246, 246))
            .x_desc("coverage of the true mean (%)")
            .label_style((FONT, 12))
            .draw()
            .map_err(err)?;
        chart
            .draw_series([Rectangle::new(
                [(93.0, -0.5), (97.0, n as f64 - 0.5)],
                GREEN.mix(0.15).filled(),
            )])
            .map_err(err)?;
        for (i, r) in rows.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            let name = format!(
                "{} · {} · {}",
                r.split.name,
                r.family.name(),
                r.design.show()
            );
            let (px, py) = chart.backend_coord(&(0.0, y));
            label(root, name, (px - 8, py), 12, HPos::Right)?;
            let mut pts = vec![(r.rigor.p(), BLUE), (r.pooled.p(), RED)];
            if let Some(o) = r.one_build {
                pts.push((o.p(), ORANGE));
            }
            for (p, c) in pts {
                chart
                    .draw_series([Circle::new((100.0 * p, y), 4, c.filled())])
                    .map_err(err)?;
            }
        }
        dot_legend(
            root,
            &[
                ("rigor", BLUE),
                ("pooled iterations", RED),
                ("one build (hyperfine-style)", ORANGE),
            ],
            (350, 200),
            height as i32 - 12,
            4,
        )
    })
}

/// A named line: label, value of a row, colour.
type Series = (&'static str, fn(&BuildsRow) -> f64, RGBColor);

/// A/A false alarms against builds per system.
pub fn builds(rows: &[BuildsRow]) -> Result<String, String> {
    let xs: Vec<f64> = rows.iter().map(|r| (r.builds as f64).log2()).collect();
    let xmax = xs.iter().copied().fold(0.0, f64::max);
    let ymax = rows
        .iter()
        .flat_map(|r| {
            [
                r.rigor.p(),
                r.rigor0.p(),
                r.overlap.p(),
                r.overlap_ignored.p(),
                r.welch.p(),
            ]
        })
        .fold(0.0, f64::max)
        * 100.0
        * 1.1;
    svg((820, 420), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .margin_right(250)
            .caption("A/A false alarms against builds per system", (FONT, 18))
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(-0.2..xmax + 0.2, 0.0..ymax.max(10.0))
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_labels(rows.len())
            .x_label_formatter(&|v| format!("{}", 2f64.powf(*v).round()))
            .light_line_style(RGBColor(246, 246, 246))
            .x_desc("builds per system")
            .y_desc("false alarms (%)")
            .label_style((FONT, 12))
            .draw()
            .map_err(err)?;
        let series: [Series; 5] = [
            ("rigor verdict (δ = 1%)", |r| r.rigor.p(), BLUE),
            ("rigor CI excludes 1", |r| r.rigor0.p(), PURPLE),
            ("CIs do not overlap", |r| r.overlap.p(), GREEN),
            (
                "no overlap, builds ignored",
                |r| r.overlap_ignored.p(),
                ORANGE,
            ),
            ("Welch, pooled iterations", |r| r.welch.p(), RED),
        ];
        for (k, (name, f, c)) in series.into_iter().enumerate() {
            let pts: Vec<(f64, f64)> = rows
                .iter()
                .zip(&xs)
                .map(|(r, &x)| (x, 100.0 * f(r)))
                .collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                .map_err(err)?;
            chart
                .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, c.filled())))
                .map_err(err)?;
            let y = 60 + 22 * k as i32;
            root.draw(&PathElement::new(
                vec![(585, y), (605, y)],
                c.stroke_width(2),
            ))
            .map_err(err)?;
            label(root, name, (612, y), 12, HPos::Left)?;
        }
        Ok(())
    })
}

/// Time to ±1% per design, one panel per simulated benchmark; colour says whether the design's
/// coverage is valid.
pub fn precision(rows: &[PrecisionRow]) -> Result<String, String> {
    let cols = 2usize;
    let lines = rows.len().div_ceil(cols).max(1);
    let (w, h) = (1000u32, 250 * lines as u32 + 40);
    svg((w, h), |root| {
        let (body, foot) = root.split_vertically(h - 40);
        let panels = body.split_evenly((lines, cols));
        for (r, area) in rows.iter().zip(panels.iter()) {
            let n = r.designs.len();
            let times: Vec<f64> = r
                .designs
                .iter()
                .map(|d| d.mean_seconds.max(1e-3).log10())
                .collect();
            let lo = times.iter().copied().fold(f64::INFINITY, f64::min).floor();
            let hi = times
                .iter()
                .copied()
                .fold(f64::NEG_INFINITY, f64::max)
                .ceil()
                + 0.5;
            let mut chart = ChartBuilder::on(area)
                .margin(8)
                .margin_right(16)
                .caption(r.scenario.split.name, (FONT, 14))
                .x_label_area_size(34)
                .y_label_area_size(130)
                .build_cartesian_2d(lo..hi, -0.5..n as f64 - 0.5)
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(0)
                .x_labels(((hi - lo).floor() as usize) + 1)
                .x_label_formatter(&|v| crate::common::seconds(10f64.powf(*v)))
                .light_line_style(RGBColor(246, 246, 246))
                .x_desc("mean experiment time to ±1% (log scale)")
                .label_style((FONT, 10))
                .draw()
                .map_err(err)?;
            for (k, (d, &t)) in r.designs.iter().zip(&times).enumerate() {
                let y = (n - 1 - k) as f64;
                let c = match d.validity() {
                    crate::precision::Validity::Valid => BLUE,
                    crate::precision::Validity::Undecided => ORANGE,
                    crate::precision::Validity::Invalid => RED,
                };
                chart
                    .draw_series([PathElement::new(
                        vec![(lo, y), (t, y)],
                        c.mix(0.35).stroke_width(6),
                    )])
                    .map_err(err)?;
                chart
                    .draw_series([Circle::new((t, y), 4, c.filled())])
                    .map_err(err)?;
                chart
                    .draw_series([Text::new(
                        format!("{:.0}%", 100.0 * d.coverage.p()),
                        (t + 0.05 * (hi - lo), y),
                        (FONT, 10)
                            .into_font()
                            .color(&c)
                            .pos(Pos::new(HPos::Left, VPos::Center)),
                    )])
                    .map_err(err)?;
                let (px, py) = chart.backend_coord(&(lo, y));
                label(root, d.name.as_str(), (px - 6, py), 11, HPos::Right)?;
            }
        }
        dot_legend(
            &foot,
            &[
                ("coverage ≥ 93% (valid)", BLUE),
                ("below 93% within Monte-Carlo error", ORANGE),
                ("coverage invalid", RED),
            ],
            (150, 260),
            20,
            5,
        )
    })
}

/// Analysis time against data size, log-log.
pub fn speed(rows: &[SpeedRow]) -> Result<String, String> {
    let pts: Vec<(f64, f64)> = rows
        .iter()
        .flat_map(|r| {
            r.points
                .iter()
                .map(|&(n, t)| ((n as f64).log10(), t.max(1e-7).log10()))
        })
        .collect();
    let (x0, x1) = pts
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
    let (y0, y1) = pts
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.1), b.max(p.1))
        });
    let (y0, y1) = (y0.floor() - 1.0, y1.ceil());
    svg((820, 460), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .caption("Time of rigor's analysis against data size", (FONT, 18))
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(x0 - 0.1..x1 + 0.1, y0..y1)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_labels((x1 - x0) as usize + 1)
            .y_labels((y1 - y0) as usize + 1)
            .x_label_formatter(&|v| format!("10^{}", v.round()))
            .y_label_formatter(&|v| crate::common::seconds(10f64.powf(*v)))
            .light_line_style(RGBColor(246, 246, 246))
            .x_desc("values in the series")
            .y_desc("time")
            .label_style((FONT, 12))
            .draw()
            .map_err(err)?;
        for (k, r) in rows.iter().enumerate() {
            let c = PALETTE[k % PALETTE.len()];
            let line: Vec<(f64, f64)> = r
                .points
                .iter()
                .map(|&(n, t)| ((n as f64).log10(), t.max(1e-7).log10()))
                .collect();
            let name = format!("{} (slope {:.2})", r.operation, r.slope());
            chart
                .draw_series(LineSeries::new(line.clone(), c.stroke_width(2)))
                .map_err(err)?
                .label(name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                });
            chart
                .draw_series(line.into_iter().map(|p| Circle::new(p, 3, c.filled())))
                .map_err(err)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .label_font((FONT, 11))
            .background_style(WHITE.mix(0.8))
            .border_style(GREY)
            .draw()
            .map_err(err)?;
        Ok(())
    })
}
