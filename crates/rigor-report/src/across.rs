//! A table of a statistic across a parameter: one row per line of a [`ParameterPlot`] (a
//! function, a build), one column per value of the parameter, each cell the statistic and its
//! interval. For the terminal (aligned columns) and Markdown (a table to paste).

use crate::html::ParameterPlot;

/// A value with four significant digits (`0.04840`, `8.904`, `250.0`, `12345`): a table shares
/// one unit across values far apart, where fixed decimals would leave the small ones two digits.
fn significant(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v:.3}");
    }
    let decimals = (3 - v.abs().log10().floor() as i64).clamp(0, 9) as usize;
    format!("{v:.decimals$}")
}

/// A parameter value as a column heading: its category, or the number as written (`10000`,
/// `0.5`).
fn heading(plot: &ParameterPlot, x: f64) -> String {
    if !plot.categories.is_empty() {
        let i = x.round();
        return (i >= 0.0)
            .then(|| plot.categories.get(i as usize).cloned())
            .flatten()
            .unwrap_or_default();
    }
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// The plot's title line: `sort: min (µs) against input`.
fn title(plot: &ParameterPlot) -> String {
    let statistic = if plot.statistic.is_empty() {
        "mean"
    } else {
        &plot.statistic
    };
    let unit = if plot.unit.is_empty() {
        String::new()
    } else {
        format!(" ({})", plot.unit)
    };
    let what = if plot.title.is_empty() {
        String::new()
    } else {
        format!("{}: ", plot.title)
    };
    format!("{what}{statistic}{unit} against {}", plot.name)
}

/// The header and the rows: the parameter's values in increasing order, and for each line its
/// cells (`1.234 [1.200, 1.250]`, `—` where it has no point).
fn cells(plot: &ParameterPlot) -> (Vec<String>, Vec<Vec<String>>) {
    let mut xs: Vec<f64> = plot
        .series
        .iter()
        .flat_map(|(_, pts)| pts.iter().map(|p| p[0]))
        .filter(|x| x.is_finite())
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let mut header = vec![String::new()];
    header.extend(xs.iter().map(|&x| heading(plot, x)));
    let rows = plot
        .series
        .iter()
        .map(|(label, pts)| {
            let mut row = vec![label.clone()];
            row.extend(xs.iter().map(|&x| {
                pts.iter().find(|p| p[0] == x).map_or_else(
                    || "—".to_string(),
                    |p| {
                        format!(
                            "{} [{}, {}]",
                            significant(p[1]),
                            significant(p[2]),
                            significant(p[3])
                        )
                    },
                )
            }));
            row
        })
        .collect();
    (header, rows)
}

/// The table for the terminal: the title, then aligned columns.
pub fn text(plot: &ParameterPlot) -> String {
    let (header, rows) = cells(plot);
    let width = |i: usize| {
        std::iter::once(&header)
            .chain(&rows)
            .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
    let line = |r: &[String]| {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, &w)| format!("{}{}", c, " ".repeat(w - c.chars().count())))
            .collect();
        format!("  {}\n", cells.join("   ").trim_end())
    };
    let mut out = format!("{}\n", crate::escape::terminal(&title(plot)));
    out += &line(&header);
    for r in &rows {
        let r: Vec<String> = r
            .iter()
            .map(|c| crate::escape::terminal(c).into_owned())
            .collect();
        out += &line(&r);
    }
    out
}

/// The table in Markdown, under a heading of level 3: names (the group, the lines, categories)
/// as code spans, numbers as they are.
pub fn markdown(plot: &ParameterPlot) -> String {
    use crate::escape::{markdown_cell, markdown_code};
    let (header, rows) = cells(plot);
    let plain = ParameterPlot {
        title: String::new(),
        ..plot.clone()
    };
    let group = if plot.title.is_empty() {
        String::new()
    } else {
        format!("{}: ", markdown_code(&plot.title))
    };
    let mut out = format!("\n### {group}{}\n\n", title(&plain));
    let named = !plot.categories.is_empty();
    let head: Vec<String> = std::iter::once("function".to_string())
        .chain(
            header[1..]
                .iter()
                .map(|h| if named { markdown_cell(h) } else { h.clone() }),
        )
        .collect();
    out += &format!("| {} |\n|{}\n", head.join(" | "), "---|".repeat(head.len()));
    for r in rows {
        let mut cells = vec![markdown_cell(&r[0])];
        cells.extend(r[1..].iter().cloned());
        out += &format!("| {} |\n", cells.join(" | "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plot() -> ParameterPlot {
        ParameterPlot {
            title: "sort".into(),
            name: "input".into(),
            statistic: "min".into(),
            unit: "µs".into(),
            categories: Vec::new(),
            series: vec![
                (
                    "sort/std".into(),
                    vec![[100.0, 1.5, 1.4, 1.6], [10000.0, 250.0, 240.0, 260.0]],
                ),
                ("sort/unstable".into(), vec![[100.0, 1.25, 1.2, 1.3]]),
            ],
        }
    }

    #[test]
    fn a_row_per_line_and_a_column_per_value() {
        assert_eq!(
            text(&plot()),
            "sort: min (µs) against input\n\
             \x20                 100                    10000\n\
             \x20 sort/std        1.500 [1.400, 1.600]   250.0 [240.0, 260.0]\n\
             \x20 sort/unstable   1.250 [1.200, 1.300]   —\n"
        );
        let md = markdown(&plot());
        assert!(md.contains("### `sort`: min (µs) against input\n"), "{md}");
        assert!(
            md.contains("| function | 100 | 10000 |\n|---|---|---|\n"),
            "{md}"
        );
        assert!(
            md.contains("| `sort/unstable` | 1.250 [1.200, 1.300] | — |\n"),
            "{md}"
        );
    }

    #[test]
    fn small_values_keep_four_digits_beside_large_ones() {
        assert_eq!(significant(0.04843), "0.04843");
        assert_eq!(significant(8.9041), "8.904");
        assert_eq!(significant(250.04), "250.0");
        assert_eq!(significant(12345.6), "12346");
        assert_eq!(significant(-3.3333), "-3.333");
        assert_eq!(significant(0.0), "0.000");
    }

    #[test]
    fn categories_head_their_columns() {
        let p = ParameterPlot {
            categories: vec!["small".into(), "large".into()],
            series: vec![(
                "parse".into(),
                vec![[0.0, 1.0, 1.0, 1.0], [1.0, 2.0, 2.0, 2.0]],
            )],
            ..plot()
        };
        assert!(text(&p).contains("small   "), "{}", text(&p));
        assert!(text(&p).contains("large"), "{}", text(&p));
    }
}
