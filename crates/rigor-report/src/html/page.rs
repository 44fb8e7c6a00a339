//! Page layout: the template, the header, the contents and one section per benchmark.

use std::fmt::Write;

use super::escape::{Escaped, escape};
use super::plots::{AcfPlot, Drawn, LagPlot, PlotResult, Plotter, classes, label_svg, palette_css};
use super::scale::{Span, fixed, number, number_like, plottable, tick};
use super::view::{BenchmarkSection, ComparisonRow, ReportView};
use crate::format::percent;

/// The page skeleton; `{{name}}` marks where [`fill`] puts content.
const TEMPLATE: &str = include_str!("../../templates/report.html");
/// The embedded style sheet.
const STYLE: &str = include_str!("../../templates/report.css");
/// The legend entry of build boundaries (the colour of `plots::BUILD`).
const BUILD_SWATCH: &str =
    "<span class=\"swatch line\" style=\"background:#3c2878\"></span>build boundary (labelled)";

/// Renders the whole page with `plotter` drawing the plots.
pub fn render(view: &ReportView, plotter: &dyn Plotter) -> String {
    let title = if view.title.is_empty() {
        "rigor report"
    } else {
        &view.title
    };
    let mut body = String::new();
    header(&mut body, view, title);
    contents(&mut body, view);
    overview(&mut body, view, plotter);
    for (i, b) in view.benchmarks.iter().enumerate() {
        Section {
            out: &mut body,
            id: format!("bench-{}", i + 1),
            b,
            confidence: view.confidence,
            plotter,
        }
        .render(i + 1);
    }
    comparisons(&mut body, view, plotter);
    footer(&mut body, view);
    fill(
        TEMPLATE,
        &[
            ("title", &escape(title)),
            ("version", &escape(&view.rigor_version)),
            ("style", STYLE),
            ("body", &body),
        ],
    )
}

/// Replaces each `{{key}}` of `template` by its value in one pass, so that values (which may
/// hold user text) are never searched for placeholders themselves. Unknown keys stay as they are.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let key = after
            .find("}}")
            .map(|end| (&after[..end], &after[end + 2..]));
        match key.and_then(|(k, tail)| values.iter().find(|v| v.0 == k).map(|v| (v.1, tail))) {
            Some((value, tail)) => {
                out.push_str(value);
                rest = tail;
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The confidence level as a percentage for text, e.g. `95%`.
fn level(confidence: f64) -> String {
    format!("{}%", crate::format::level_percent(confidence))
}

fn header(out: &mut String, view: &ReportView, title: &str) {
    let _ = writeln!(
        out,
        "<header>\n<h1>{}</h1>\n<dl class=\"meta\">",
        Escaped(title)
    );
    let meta = [
        ("Generated", escape(&view.generated)),
        ("rigor", escape(&view.rigor_version)),
        (
            "Seed",
            view.seed
                .map_or_else(|| "none (imported data)".to_string(), |s| s.to_string()),
        ),
        ("Confidence level", level(view.confidence)),
    ];
    for (k, v) in meta {
        let _ = writeln!(out, "<dt>{k}</dt><dd>{v}</dd>");
    }
    out.push_str("</dl>\n");
    if !view.environment.is_empty() {
        out.push_str(
            "<details class=\"environment\" open>\n<summary>Machine and environment</summary>\n<table>\n",
        );
        for (k, v) in &view.environment {
            let _ = writeln!(
                out,
                "<tr><th>{}</th><td>{}</td></tr>",
                Escaped(k),
                Escaped(v)
            );
        }
        out.push_str("</table>\n</details>\n");
    }
    if !view.warnings.is_empty() {
        out.push_str("<ul class=\"run-warnings\">\n");
        for w in &view.warnings {
            let _ = writeln!(out, "<li>Warning: {}</li>", Escaped(w));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</header>\n");
}

/// `text` with its first letter upper case.
fn capitalised(text: &str) -> String {
    let mut c = text.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// "Distribution of execution times", or of the metric shown.
fn distribution_title(view: &ReportView) -> String {
    if view.what.is_empty() {
        "Distribution of execution times".to_string()
    } else {
        format!("Distribution of {} over executions", view.what)
    }
}

/// Every benchmark on one axis: a bar chart of means with their intervals and the distribution
/// of execution times (two or more benchmarks).
fn overview(out: &mut String, view: &ReportView, plotter: &dyn Plotter) {
    if view.overview.len() < 2 {
        return;
    }
    let unit = &view.overview_unit;
    out.push_str("<section class=\"overview\" id=\"overview\">\n<h2>Overview</h2>\n");
    let _ = writeln!(
        out,
        "<h3>Means</h3>\n<p class=\"note\">Bars are means; whiskers their {} confidence \
         intervals, on one axis ({}).</p>",
        level(view.confidence),
        Escaped(unit)
    );
    figure(
        out,
        plotter.overview_means(&view.overview, unit),
        (
            "overview-means",
            "overview-means",
            "Means with confidence intervals",
        ),
        "",
    );
    out.push_str(
        "<h3>Distributions</h3>\n<p class=\"note\">Each point is one execution; the box spans \
         the quartiles with the median inside, the red line is the mean.</p>\n",
    );
    figure(
        out,
        plotter.overview_distribution(&view.overview, unit),
        (
            "overview-distribution",
            "overview-distribution",
            &distribution_title(view),
        ),
        "",
    );
    for (k, p) in view.parameters.iter().enumerate() {
        let what = if view.what.is_empty() {
            "Time".to_string()
        } else {
            capitalised(&view.what)
        };
        let statistic = match p.statistic.as_str() {
            "" | "mean" => "Means".to_string(),
            other => format!("The {other} (the statistic compared)"),
        };
        let lines = if p.title.is_empty() {
            "one line per command and value of the other parameters"
        } else {
            "one line per function (and build)"
        };
        let _ = writeln!(
            out,
            "<h3>{}{what} against {}</h3>\n<p class=\"note\">{statistic} with {} confidence \
             intervals; {lines}.</p>",
            if p.title.is_empty() {
                String::new()
            } else {
                format!("{}: ", Escaped(&p.title))
            },
            Escaped(&p.name),
            level(view.confidence)
        );
        let mut legend = String::new();
        for (i, (label, _)) in p.series.iter().enumerate() {
            let _ = write!(
                legend,
                "<span class=\"swatch\" style=\"background:{}\"></span>{}",
                palette_css(i),
                Escaped(label)
            );
        }
        let id = if k == 0 {
            "overview-parameter".to_string()
        } else {
            format!("overview-parameter-{}", k + 1)
        };
        figure(
            out,
            plotter.parameter(p, if p.unit.is_empty() { unit } else { &p.unit }),
            (&id, "overview-parameter", "Time against the parameter"),
            &legend,
        );
    }
    out.push_str("</section>\n");
}

fn contents(out: &mut String, view: &ReportView) {
    out.push_str("<nav class=\"toc\">\n<h2>Contents</h2>\n<ol>\n");
    if view.overview.len() >= 2 {
        out.push_str("<li><a href=\"#overview\">Overview</a></li>\n");
    }
    for (i, b) in view.benchmarks.iter().enumerate() {
        let _ = writeln!(
            out,
            "<li><a href=\"#bench-{}\">{}</a></li>",
            i + 1,
            Escaped(&b.name)
        );
    }
    if !view.comparisons.is_empty() {
        out.push_str("<li><a href=\"#comparisons\">Comparisons</a></li>\n");
    }
    out.push_str("</ol>\n</nav>\n");
    if view.benchmarks.is_empty() {
        out.push_str("<p class=\"note\">This report holds no benchmarks.</p>\n");
    }
}

/// Writes one plot as a figure: the labelled SVG, or the reason there is none, then `caption`.
fn figure(
    out: &mut String,
    drawn: PlotResult,
    (id, class, title): (&str, &str, &str),
    caption: &str,
) {
    out.push_str("<figure>\n");
    match drawn {
        Ok(Drawn::Svg(svg)) => {
            out.push_str(label_svg(&svg, id, class, title).trim_end());
            out.push('\n');
        }
        Ok(Drawn::Empty(why)) => {
            let _ = writeln!(out, "<p class=\"no-plot\">{}</p>", Escaped(&why));
        }
        Err(e) => {
            let _ = writeln!(out, "<p class=\"no-plot\">{}</p>", Escaped(&e.to_string()));
        }
    }
    if !caption.is_empty() {
        let _ = writeln!(out, "<figcaption>{caption}</figcaption>");
    }
    out.push_str("</figure>\n");
}

/// One benchmark's section.
struct Section<'a> {
    out: &'a mut String,
    /// Element id of the section; plot ids extend it.
    id: String,
    b: &'a BenchmarkSection,
    confidence: f64,
    plotter: &'a dyn Plotter,
}

impl Section<'_> {
    fn render(mut self, number: usize) {
        let b = self.b;
        let _ = writeln!(
            self.out,
            "<section class=\"benchmark\" id=\"{}\">\n<h2>{number}. {}</h2>",
            self.id,
            Escaped(&b.name)
        );
        if !b.command.is_empty() {
            let _ = writeln!(
                self.out,
                "<p class=\"command\">Command: <code>{}</code></p>",
                Escaped(&b.command)
            );
        }
        self.summary();
        self.notes();
        if b.levels.len() < 2 {
            let top = b.levels.first().map_or("execution", String::as_str);
            let _ = writeln!(
                self.out,
                "<p class=\"note\">Only one level ({}) was measured, so there are no iterations \
                 within it: the run-sequence, lag, autocorrelation and histogram plots are not shown.</p>",
                Escaped(top)
            );
        } else {
            self.run_sequence();
            self.lags();
            self.acf();
            self.histogram();
        }
        self.execution_means();
        self.components();
        self.impact();
        self.out.push_str("</section>\n");
    }

    /// A plot's id, its classes and the accessible title naming the benchmark.
    fn plot(&mut self, drawn: PlotResult, kind: &str, class: &str, what: &str, caption: &str) {
        let id = format!("{}-{kind}", self.id);
        let title = format!("{what} of {}", self.b.name);
        figure(self.out, drawn, (&id, class, &title), caption);
    }

    fn summary(&mut self) {
        let b = self.b;
        let unit = Escaped(&b.unit_label);
        let mut rows = Vec::new();
        if let Some(c) = &b.compared {
            let name = Escaped(&c.name);
            rows.push((
                format!("{name} (the statistic compared)"),
                format!("{} {unit}", number_like(c.estimate, b.mean)),
            ));
            rows.push((
                format!(
                    "{} confidence interval of the {name}",
                    level(self.confidence)
                ),
                c.interval.map_or_else(
                    || format!("too few {} for an interval", Escaped(&c.units)),
                    |(lo, hi)| {
                        format!(
                            "[{}, {}] {unit} (bootstrap over {})",
                            number_like(lo, b.mean),
                            number_like(hi, b.mean),
                            Escaped(&c.units)
                        )
                    },
                ),
            ));
        }
        rows.extend([
            ("Mean".to_string(), format!("{} {unit}", number(b.mean))),
            (
                format!("{} confidence interval", level(self.confidence)),
                format!(
                    "[{}, {}] {unit}",
                    number_like(b.ci_lower, b.mean),
                    number_like(b.ci_upper, b.mean)
                ),
            ),
        ]);
        let design: Vec<String> = b
            .levels
            .iter()
            .zip(&b.counts)
            .map(|(l, n)| format!("{n} × {}", Escaped(l)))
            .collect();
        if !design.is_empty() {
            rows.push(("Measured".to_string(), design.join(", ")));
        }
        if let Some(cut) = b.warmup_cut {
            rows.push((
                "Warm-up cut".to_string(),
                format!("first {cut} iterations of each execution"),
            ));
        }
        let classes = class_counts(b);
        if !classes.is_empty() {
            rows.push(("Execution shapes".to_string(), classes));
        }
        self.out.push_str("<table class=\"summary\">\n");
        for (k, v) in rows {
            let _ = writeln!(self.out, "<tr><th>{k}</th><td>{v}</td></tr>");
        }
        self.out.push_str("</table>\n");
    }

    fn notes(&mut self) {
        for (heading, class, items) in [
            ("Warnings", "warnings", &self.b.warnings),
            ("Diagnosis", "diagnosis", &self.b.diagnosis),
        ] {
            if items.is_empty() {
                continue;
            }
            let _ = writeln!(self.out, "<h3>{heading}</h3>\n<ul class=\"{class}\">");
            for item in items {
                let _ = writeln!(self.out, "<li>{}</li>", Escaped(item));
            }
            self.out.push_str("</ul>\n");
        }
    }

    fn run_sequence(&mut self) {
        self.out.push_str("<h3>Run sequence</h3>\n");
        let mut legend = String::new();
        for (i, c) in classes(&self.b.executions).iter().enumerate() {
            let name = if c.is_empty() { "unclassified" } else { c };
            let _ = write!(
                legend,
                "<span class=\"swatch\" style=\"background:{}\"></span>{}",
                palette_css(i),
                Escaped(name)
            );
        }
        legend.push_str(
            "<span class=\"swatch line\" style=\"background:#6e6e6e\"></span>execution boundary\
             <span class=\"swatch\" style=\"background:#c8c8c8\"></span>warm-up cut\
             <span class=\"swatch line\" style=\"background:#e67800\"></span>changepoint\
             <span class=\"swatch ring\"></span>outlier\
             <span class=\"swatch tri\"></span>steady state starts",
        );
        if self.b.builds.len() > 1 {
            legend.push_str(BUILD_SWATCH);
        }
        let drawn = self.plotter.run_sequence(self.b);
        let what = "Run sequence";
        self.plot(drawn, "run-sequence", "run-sequence", what, &legend);
    }

    fn lags(&mut self) {
        let b = self.b;
        self.out.push_str("<h3>Lag plots</h3>\n");
        let all = b
            .lag
            .iter()
            .flat_map(|p| p.points.iter().chain(&p.shuffled_points))
            .flat_map(|(x, y)| [*x, *y]);
        let Some(span) = Span::of(all) else {
            self.out
                .push_str("<p class=\"no-plot\">No lag pairs to plot.</p>\n");
            return;
        };
        let span = span.padded(0.05);
        self.out.push_str(
            "<p class=\"note\">Each point pairs an iteration with the one <i>k</i> later; structure \
             that disappears in the shuffled order is serial dependence.</p>\n<div class=\"grid lags\">\n",
        );
        for panel in &b.lag {
            for shuffled in [false, true] {
                let points = if shuffled {
                    &panel.shuffled_points
                } else {
                    &panel.points
                };
                let plot = LagPlot {
                    points,
                    lag: panel.lag,
                    shuffled,
                    unit: &b.unit_label,
                    span,
                };
                let drawn = self.plotter.lag(&plot);
                let (kind, class, what) = if shuffled {
                    (
                        format!("lag-{}-shuffled", panel.lag),
                        "lag shuffled",
                        "Shuffled lag plot",
                    )
                } else {
                    (format!("lag-{}", panel.lag), "lag", "Lag plot")
                };
                let what = format!("{what} at lag {}", panel.lag);
                self.plot(drawn, &kind, class, &what, "");
            }
        }
        self.out.push_str("</div>\n");
    }

    fn acf(&mut self) {
        self.out.push_str("<h3>Autocorrelation</h3>\n");
        let Some(acf) = &self.b.acf else {
            self.out
                .push_str("<p class=\"no-plot\">No autocorrelation was computed.</p>\n");
            return;
        };
        let biggest = acf
            .values
            .iter()
            .chain(&acf.shuffled)
            .chain([&acf.bound])
            .filter(|v| plottable(**v))
            .fold(0.0_f64, |m, v| m.max(v.abs()));
        let extent = if biggest > 0.0 {
            (biggest * 1.15).min(1.05)
        } else {
            1.0
        };
        let _ = writeln!(
            self.out,
            "<p class=\"note\">Bars outside the green band (±{}) indicate autocorrelation; the \
             shuffled order shows what no autocorrelation looks like.</p>\n<div class=\"grid pair\">",
            tick(acf.bound)
        );
        for shuffled in [false, true] {
            let values = if shuffled { &acf.shuffled } else { &acf.values };
            let plot = AcfPlot {
                values,
                bound: acf.bound,
                shuffled,
                extent,
            };
            let drawn = self.plotter.acf(&plot);
            if shuffled {
                self.plot(
                    drawn,
                    "acf-shuffled",
                    "acf shuffled",
                    "Shuffled autocorrelation",
                    "",
                );
            } else {
                self.plot(drawn, "acf", "acf", "Autocorrelation", "");
            }
        }
        self.out.push_str("</div>\n");
    }

    fn histogram(&mut self) {
        self.out
            .push_str("<h3>Distribution of steady-state values</h3>\n");
        let drawn = self.plotter.histogram(self.b);
        let caption = "<span class=\"swatch line\" style=\"background:#c81e1e\"></span>mean";
        self.plot(
            drawn,
            "histogram",
            "histogram",
            "Histogram of steady-state values",
            caption,
        );
    }

    fn execution_means(&mut self) {
        self.out.push_str("<h3>Execution means</h3>\n");
        let drawn = self.plotter.execution_means(self.b);
        let mut caption = format!(
            "Each dot is one execution's mean; the line is the mean and the band its {} \
             confidence interval.",
            level(self.confidence)
        );
        if self.b.builds.len() > 1 {
            caption.push_str(BUILD_SWATCH);
        }
        self.plot(
            drawn,
            "execution-means",
            "execution-means",
            "Execution means",
            &caption,
        );
    }

    fn components(&mut self) {
        let bars = &self.b.components;
        self.out.push_str("<h3>Variance components</h3>\n");
        if self.b.levels.len() < 2 {
            // One level holds all the variance: a bar would say nothing.
            self.out.push_str(
                "<p class=\"note\">One level was measured, so all the variance is between its \
                 units: there is nothing to split.</p>\n",
            );
            return;
        }
        let drawn = self.plotter.components(bars);
        let mut legend = String::new();
        for (i, c) in bars.iter().enumerate() {
            let _ = write!(
                legend,
                "<span class=\"swatch\" style=\"background:{}\"></span>{}",
                palette_css(i),
                Escaped(&c.level)
            );
        }
        self.plot(
            drawn,
            "components",
            "components",
            "Variance components",
            &legend,
        );
        if bars.is_empty() {
            return;
        }
        self.out.push_str(
            "<table class=\"components\">\n<thead><tr><th>Level</th><th>Share of variance</th>\
             <th>SD as % of mean</th></tr></thead>\n<tbody>\n",
        );
        for c in bars {
            let _ = writeln!(
                self.out,
                "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                Escaped(&c.level),
                share(c.share_percent),
                share(c.sd_percent_of_mean)
            );
        }
        self.out.push_str("</tbody>\n</table>\n");
    }

    fn impact(&mut self) {
        let Some(imp) = &self.b.impact else {
            return;
        };
        self.out.push_str(
            "<h3>Impact factors</h3>\n<p class=\"note\">Spread between executions relative to \
             spread within one: near 1, executions do not differ. Near 1 after centring (each \
             execution's mean removed), the additive model fits.</p>\n<table class=\"impact\">\n",
        );
        let clustered = imp
            .clustered
            .map_or("not computed".to_string(), |c| fixed(c, 2));
        for (k, v) in [
            ("Original", fixed(imp.original, 2)),
            ("Centred", fixed(imp.centred, 2)),
            ("Clustered", clustered),
        ] {
            let _ = writeln!(self.out, "<tr><th>{k}</th><td class=\"num\">{v}</td></tr>");
        }
        self.out.push_str("</table>\n");
    }
}

/// A percentage for a table cell (`n/a` when not finite).
fn share(p: f64) -> String {
    if p.is_finite() {
        percent(p)
    } else {
        "n/a".to_string()
    }
}

/// "warm-up: 2, flat: 1": how many executions have each shape.
fn class_counts(b: &BenchmarkSection) -> String {
    classes(&b.executions)
        .iter()
        .filter(|c| !c.is_empty())
        .map(|c| {
            let n = b.executions.iter().filter(|e| e.class == *c).count();
            format!("{}: {n}", Escaped(c))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn comparisons(out: &mut String, view: &ReportView, plotter: &dyn Plotter) {
    let rows = &view.comparisons;
    if rows.is_empty() {
        return;
    }
    out.push_str("<section class=\"comparisons\" id=\"comparisons\">\n<h2>Comparisons</h2>\n");
    let caption = format!(
        "Dot: ratio; line: its {} interval; arrow: unbounded interval; green band: the \
         threshold of no change [1 − δ, 1 + δ]; vertical line: no difference.",
        level(view.confidence)
    );
    let ids = (
        "comparisons-forest",
        "forest",
        "Forest plot of the comparisons",
    );
    figure(out, plotter.forest(rows), ids, &caption);
    out.push_str(
        "<table class=\"comparisons\">\n<thead><tr><th>Candidate</th><th>Baseline</th>\
         <th>Estimator</th><th>Ratio</th><th>Interval</th><th>Threshold</th><th>Verdict</th>\
         <th>Effect</th></tr></thead>\n<tbody>\n",
    );
    for r in rows {
        comparison_row(out, r);
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

fn comparison_row(out: &mut String, r: &ComparisonRow) {
    // A ratio of times is never negative: an end below 0 (Fieller's on means near zero) is
    // no bound, as the terminal says (a row read "[-0.140, 3.903]").
    let end = |b: Option<f64>| {
        b.filter(|v| *v > 0.0)
            .map_or("unbounded".to_string(), |v| fixed(v, 3))
    };
    let _ = writeln!(
        out,
        "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>[{}, {}]</td>\
         <td>±{}%</td><td>{}</td><td>{}</td></tr>",
        Escaped(&r.candidate),
        Escaped(&r.baseline),
        Escaped(&r.estimator),
        fixed(r.ratio, 3),
        end(r.lower),
        end(r.upper),
        tick(r.threshold * 100.0),
        Escaped(&r.verdict),
        Escaped(&r.effect_text),
    );
}

fn footer(out: &mut String, view: &ReportView) {
    let _ = writeln!(
        out,
        "<footer>Generated by rigor {}. This page is self-contained: no scripts and no external \
         resources.</footer>",
        Escaped(&view.rigor_version)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ratio's interval end below 0 is no bound, as the terminal says (a row read
    /// "[-0.140, 3.903]" beside "unbounded").
    #[test]
    fn a_ratio_end_below_zero_is_no_bound() {
        let mut out = String::new();
        comparison_row(
            &mut out,
            &ComparisonRow {
                baseline: "a".into(),
                candidate: "b".into(),
                estimator: "mean".into(),
                ratio: 2.179,
                lower: Some(-0.14),
                upper: Some(3.903),
                verdict: "inconclusive".into(),
                effect_text: String::new(),
                threshold: 0.01,
            },
        );
        assert!(out.contains("<td>[unbounded, 3.903]</td>"), "{out}");
    }

    #[test]
    fn fill_replaces_known_keys_once() {
        let t = "<a>{{x}}</a>{{y}}{{unknown}}{{";
        let got = fill(t, &[("x", "{{y}}"), ("y", "2")]);
        assert_eq!(got, "<a>{{y}}</a>2{{unknown}}{{");
    }
}
