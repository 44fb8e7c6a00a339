//! The HTML report: escaping, self-containment, plot labelling and edge cases that must render
//! without panicking.

use proptest::prelude::*;
use rigor_report::html::plots::{AcfPlot, Drawn, LagPlot, PlotError, PlotResult, Plotter};
use rigor_report::html::{
    AcfPanel, BenchmarkSection, ComparedStatistic, ComparisonRow, ComponentBar, ExecutionSeries,
    ImpactView, LagPanel, ReportView, example, render_html, render_html_with,
};

const HOSTILE: &str = "<script>alert(1)</script>";
const ATTR_BREAKER: &str = "\"><img src=x onerror=alert(2)> ' & done";

/// Checks the page is a whole document whose main elements open and close in equal numbers.
fn assert_well_formed(page: &str) {
    assert!(
        page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"),
        "no doctype"
    );
    assert!(page.trim_end().ends_with("</html>"), "not closed");
    for tag in [
        "svg", "section", "figure", "table", "ul", "header", "nav", "main", "title",
    ] {
        let open =
            page.matches(&format!("<{tag}>")).count() + page.matches(&format!("<{tag} ")).count();
        let close = page.matches(&format!("</{tag}>")).count();
        assert_eq!(
            open, close,
            "<{tag}> opened {open} times, closed {close} times"
        );
    }
}

/// The ids of every plot, in page order.
fn plot_ids(page: &str) -> Vec<&str> {
    page.match_indices("<svg id=\"")
        .map(|(i, m)| {
            let rest = &page[i + m.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect()
}

/// A benchmark with every string field set to `text`.
fn section_named(text: &str) -> BenchmarkSection {
    let mut b = example::view().benchmarks.remove(0);
    b.name = text.to_string();
    b.command = text.to_string();
    b.unit_label = text.to_string();
    b.levels = vec![text.to_string(), format!("{text}2")];
    b.diagnosis = vec![text.to_string()];
    b.warnings = vec![text.to_string()];
    for e in &mut b.executions {
        e.class = text.to_string();
    }
    for c in &mut b.components {
        c.level = text.to_string();
    }
    b.compared = Some(ComparedStatistic {
        name: text.to_string(),
        estimate: 10.1,
        interval: Some((9.9, 10.3)),
        units: text.to_string(),
    });
    b
}

#[test]
fn a_statistic_compared_other_than_the_mean_leads_the_summary() {
    let mut v = example::view();
    v.benchmarks.truncate(1);
    v.benchmarks[0].compared = Some(ComparedStatistic {
        name: "min".to_string(),
        estimate: 9.42,
        interval: Some((9.31, 9.47)),
        units: "builds".to_string(),
    });
    let page = render_html(&v);
    let min = page.find("<th>min (the statistic compared)</th><td>9.42 ms</td>");
    let ci = page.find(
        "<th>95% confidence interval of the min</th><td>[9.31, 9.47] ms (bootstrap over builds)</td>",
    );
    let mean = page.find("<th>Mean</th>");
    assert!(min.is_some() && ci.is_some() && mean.is_some(), "{page}");
    assert!(min < ci && ci < mean, "the compared statistic comes first");
    v.benchmarks[0].compared.as_mut().unwrap().interval = None;
    assert!(render_html(&v).contains("<td>too few builds for an interval</td>"));
}

fn hostile_view(text: &str) -> ReportView {
    let mut v = example::view();
    v.title = text.to_string();
    v.rigor_version = text.to_string();
    v.generated = text.to_string();
    v.environment = vec![(text.to_string(), text.to_string())];
    v.benchmarks = vec![section_named(text)];
    for c in &mut v.comparisons {
        c.baseline = text.to_string();
        c.candidate = text.to_string();
        c.estimator = text.to_string();
        c.verdict = text.to_string();
        c.effect_text = text.to_string();
    }
    v
}

#[test]
fn example_is_a_well_formed_document() {
    let page = render_html(&example::view());
    assert_well_formed(&page);
    assert!(page.contains("<nav class=\"toc\">"));
    assert!(page.contains("<a href=\"#bench-1\">"));
    assert!(page.contains("<a href=\"#comparisons\">"));
}

#[test]
fn script_in_every_user_string_is_escaped() {
    let page = render_html(&hostile_view(HOSTILE));
    assert!(!page.contains("<script"), "raw script tag in the page");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    // In SVG text too: the forest plot's row labels and every plot's <title>.
    let forest = &page[page.find("id=\"comparisons-forest\"").unwrap()..];
    let forest = &forest[..forest.find("</svg>").unwrap()];
    assert!(forest.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_well_formed(&page);
}

#[test]
fn quotes_cannot_break_out_of_attributes() {
    let page = render_html(&hostile_view(ATTR_BREAKER));
    assert!(
        !page.contains("<img"),
        "markup escaped its attribute or text"
    );
    // Every copy of the text keeps its quote and bracket escaped: nothing closed an attribute.
    let copies = page.matches("onerror").count();
    assert!(copies > 10);
    assert_eq!(
        page.matches("&quot;&gt;&lt;img src=x onerror").count(),
        copies
    );
    assert!(page.contains("&quot;&gt;&lt;img src=x onerror=alert(2)&gt; &#39; &amp; done"));
    assert_well_formed(&page);
}

#[test]
fn page_loads_nothing_from_outside() {
    let page = render_html(&example::view());
    for forbidden in [
        "http://", "https://", "<script", "<link", "<iframe", "<img", "src=", "url(", "@import",
    ] {
        assert!(!page.contains(forbidden), "page contains {forbidden:?}");
    }
    assert!(page.contains("Content-Security-Policy"));
}

#[test]
fn every_plot_has_a_unique_id_a_class_and_a_title() {
    let page = render_html(&example::view());
    let ids = plot_ids(&page);
    assert_eq!(ids.len(), 17);
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "duplicate plot ids: {ids:?}");
    for id in ids {
        let at = page
            .find(&format!("<svg id=\"{id}\" class=\"plot "))
            .unwrap();
        let title = format!("<title id=\"{id}-title\">");
        assert!(
            page[at..].find(&title).is_some_and(|t| t < 400),
            "{id} has no title"
        );
    }
    for class in [
        "plot run-sequence",
        "plot lag",
        "plot lag shuffled",
        "plot acf",
        "plot acf shuffled",
        "plot histogram",
        "plot execution-means",
        "plot components",
        "plot forest",
    ] {
        assert!(page.contains(&format!("class=\"{class}\"")), "no {class}");
    }
}

#[test]
fn empty_report_renders() {
    let page = render_html(&ReportView::default());
    assert_well_formed(&page);
    assert!(page.contains("This report holds no benchmarks."));
    assert!(page.contains("<title>rigor report</title>"));
    assert!(plot_ids(&page).is_empty());
}

#[test]
fn empty_series_explain_the_missing_plots() {
    let view = ReportView {
        benchmarks: vec![BenchmarkSection {
            name: "empty".to_string(),
            levels: vec!["execution".to_string(), "iteration".to_string()],
            executions: vec![ExecutionSeries::default()],
            lag: vec![LagPanel {
                lag: 1,
                ..LagPanel::default()
            }],
            acf: Some(AcfPanel::default()),
            components: vec![ComponentBar::default()],
            impact: Some(ImpactView::default()),
            ..BenchmarkSection::default()
        }],
        comparisons: vec![ComparisonRow::default()],
        ..ReportView::default()
    };
    let page = render_html(&view);
    assert_well_formed(&page);
    for note in [
        "No measured iterations to plot.",
        "No lag pairs to plot.",
        "No measured autocorrelations to plot.",
        "No steady-state values to plot.",
        "No execution means to plot.",
        "No variance components to plot.",
    ] {
        assert!(page.contains(note), "missing {note:?}");
    }
    // The one comparison has a ratio of 0 and a threshold of 0: still drawn.
    assert_eq!(plot_ids(&page), vec!["comparisons-forest"]);
}

#[test]
fn single_execution_renders() {
    let mut view = example::view();
    let b = &mut view.benchmarks[0];
    b.executions.truncate(1);
    b.execution_means.truncate(1);
    b.counts = vec![1, 10];
    let page = render_html(&view);
    assert_well_formed(&page);
    assert!(page.contains("id=\"bench-1-run-sequence\""));
    assert!(page.contains("id=\"bench-1-execution-means\""));
}

#[test]
fn all_equal_values_get_nonzero_axes() {
    let mut view = example::view();
    let b = &mut view.benchmarks[0];
    for e in &mut b.executions {
        e.values = vec![5.0; 10];
    }
    b.steady_values = vec![5.0; 21];
    b.execution_means = vec![5.0; 3];
    (b.mean, b.ci_lower, b.ci_upper) = (5.0, 5.0, 5.0);
    for p in &mut b.lag {
        p.points = vec![(5.0, 5.0); 5];
        p.shuffled_points = vec![(5.0, 5.0); 5];
    }
    b.acf = Some(AcfPanel {
        values: vec![0.0; 4],
        shuffled: vec![0.0; 4],
        bound: 0.0,
    });
    view.comparisons[0] = ComparisonRow {
        ratio: 1.0,
        lower: Some(1.0),
        upper: Some(1.0),
        threshold: 0.0,
        ..ComparisonRow::default()
    };
    let page = render_html(&view);
    assert_well_formed(&page);
    assert_eq!(plot_ids(&page).len(), 17);
    assert!(!page.contains("NaN"));
}

#[test]
fn non_finite_values_are_skipped() {
    let mut view = example::view();
    let b = &mut view.benchmarks[0];
    b.executions[0].values[2] = f64::NAN;
    b.executions[1].values[0] = f64::INFINITY;
    b.executions[1].outliers.push(0);
    b.executions[2].values = vec![f64::NAN; 10];
    b.steady_values.push(f64::NEG_INFINITY);
    b.execution_means[1] = f64::NAN;
    b.mean = f64::NAN;
    b.lag[0].points.push((f64::NAN, 1.0));
    b.acf.as_mut().unwrap().values[0] = f64::INFINITY;
    b.components[0].share_percent = f64::NAN;
    b.impact.as_mut().unwrap().original = f64::NAN;
    view.comparisons[0].ratio = f64::NAN;
    view.comparisons[0].upper = Some(f64::INFINITY);
    let page = render_html(&view);
    assert_well_formed(&page);
    assert!(!page.contains("NaN") && !page.contains("=\"inf") && !page.contains("-2147483648"));
    assert!(page.contains("n/a"));
}

#[test]
fn only_one_level_says_so() {
    let mut view = example::view();
    let b = &mut view.benchmarks[0];
    b.levels = vec!["execution".to_string()];
    b.counts = vec![3];
    let page = render_html(&view);
    assert!(page.contains("Only one level (execution) was measured"));
    assert!(!page.contains("class=\"plot run-sequence\""));
    assert!(!page.contains("class=\"plot lag"));
    assert!(page.contains("class=\"plot execution-means\""));
    assert_well_formed(&page);
}

#[test]
fn unbounded_intervals_are_drawn_as_arrows() {
    let mut view = example::view();
    view.comparisons[0].lower = None;
    view.comparisons[0].upper = None;
    let page = render_html(&view);
    let forest = &page[page.find("id=\"comparisons-forest\"").unwrap()..];
    let forest = &forest[..forest.find("</svg>").unwrap()];
    // Three open ends: both of the first row, the lower of the second.
    assert_eq!(forest.matches("unbounded").count(), 3);
    assert_eq!(forest.matches("<polygon").count(), 3);
    assert!(page.contains("[unbounded, unbounded]"));
}

#[test]
fn extreme_magnitudes_render() {
    let mut view = example::view();
    let b = &mut view.benchmarks[0];
    b.executions[0].values = vec![1e-300, 1e300, -1e308, 1e-12, 2e-12];
    b.executions[1].values = vec![1e-9, 1.000000001e-9];
    b.steady_values = vec![1e-9, 1.000000001e-9, 1e200];
    b.execution_means = vec![f64::MAX, f64::MIN_POSITIVE];
    let page = render_html(&view);
    assert_well_formed(&page);
}

/// A plotter that draws nothing, to test the page without plots.
struct Refusing;

impl Plotter for Refusing {
    fn run_sequence(&self, _: &BenchmarkSection) -> PlotResult {
        Err(PlotError::new(HOSTILE))
    }
    fn lag(&self, _: &LagPlot<'_>) -> PlotResult {
        Ok(Drawn::Empty("no lag".to_string()))
    }
    fn acf(&self, _: &AcfPlot<'_>) -> PlotResult {
        Ok(Drawn::Empty("no acf".to_string()))
    }
    fn histogram(&self, _: &BenchmarkSection) -> PlotResult {
        Ok(Drawn::Empty("no histogram".to_string()))
    }
    fn execution_means(&self, _: &BenchmarkSection) -> PlotResult {
        Ok(Drawn::Empty("no means".to_string()))
    }
    fn components(&self, _: &[ComponentBar]) -> PlotResult {
        Ok(Drawn::Empty("no components".to_string()))
    }
    fn forest(&self, _: &[ComparisonRow]) -> PlotResult {
        Ok(Drawn::Empty("no forest".to_string()))
    }
}

#[test]
fn plot_failures_show_as_escaped_notes() {
    let page = render_html_with(&example::view(), &Refusing);
    assert_well_formed(&page);
    assert!(plot_ids(&page).is_empty());
    assert!(page.contains("plot could not be drawn: &lt;script&gt;"));
    assert!(page.contains("<p class=\"no-plot\">no forest</p>"));
    assert_eq!(page.matches("no lag").count(), 8);
}

#[test]
fn view_round_trips_through_json_and_fills_defaults() {
    let view = example::view();
    let json = serde_json::to_string(&view).unwrap();
    let back: ReportView = serde_json::from_str(&json).unwrap();
    assert_eq!(back, view);
    let sparse: ReportView = serde_json::from_str(
        r#"{"title": "t", "benchmarks": [{"name": "b", "executions": [{"values": [1.0, 2.0]}]}]}"#,
    )
    .unwrap();
    assert_eq!(sparse.benchmarks[0].executions[0].values, vec![1.0, 2.0]);
    assert_well_formed(&render_html(&sparse));
}

/// Any f64 at all, NaN and infinities included, sometimes.
fn any_value() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -1e6..1e6_f64,
        1 => proptest::num::f64::ANY,
        1 => Just(0.0),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn arbitrary_values_never_panic(
        runs in prop::collection::vec(prop::collection::vec(any_value(), 0..12), 0..4),
        means in prop::collection::vec(any_value(), 0..5),
        pairs in prop::collection::vec((any_value(), any_value()), 0..8),
        acf in prop::collection::vec(any_value(), 0..6),
        (mean, lower, upper, bound) in (any_value(), any_value(), any_value(), any_value()),
        shares in prop::collection::vec(any_value(), 0..3),
        ratio in (any_value(), prop::option::of(any_value()), prop::option::of(any_value()), any_value()),
        cuts in (prop::option::of(0..15_usize), prop::collection::vec(0..15_usize, 0..3)),
    ) {
        let executions = runs
            .iter()
            .map(|values| ExecutionSeries {
                values: values.clone(),
                changepoints: cuts.1.clone(),
                steady_start: cuts.0,
                outliers: cuts.1.clone(),
                class: "c".to_string(),
            })
            .collect();
        let view = ReportView {
            confidence: bound,
            benchmarks: vec![BenchmarkSection {
                name: "p".to_string(),
                mean,
                ci_lower: lower,
                ci_upper: upper,
                levels: vec!["execution".to_string(), "iteration".to_string()],
                executions,
                warmup_cut: cuts.0,
                lag: vec![LagPanel { lag: 1, points: pairs.clone(), shuffled_points: pairs }],
                acf: Some(AcfPanel { values: acf.clone(), shuffled: acf, bound }),
                steady_values: runs.concat(),
                execution_means: means,
                components: shares
                    .iter()
                    .map(|s| ComponentBar { level: "l".to_string(), share_percent: *s, sd_percent_of_mean: *s })
                    .collect(),
                ..BenchmarkSection::default()
            }],
            comparisons: vec![ComparisonRow {
                ratio: ratio.0,
                lower: ratio.1,
                upper: ratio.2,
                threshold: ratio.3,
                ..ComparisonRow::default()
            }],
            ..ReportView::default()
        };
        let page = render_html(&view);
        assert_well_formed(&page);
        prop_assert!(!page.contains("NaN"));
    }
}
