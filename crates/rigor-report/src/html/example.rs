//! A small, fixed report: the tests' fixture and a reference for whoever builds views.
//!
//! One benchmark of three executions × ten iterations (two warm up, one is flat) from two builds
//! (the first two executions from build 1, the third from build 2) whose name and command carry
//! markup and quotes, and two comparisons, one with an interval unbounded below.
//! The numbers are typed in, not computed: they only need to look plausible.

use super::view::{
    AcfPanel, BenchmarkSection, BuildMark, ComparisonRow, ComponentBar, ExecutionSeries,
    ImpactView, LagPanel, OverviewRow, ReportView,
};

/// The benchmark name that tests HTML escaping.
pub const HOSTILE_NAME: &str = "<script>alert(1)</script>";

/// Iterations of the example's executions.
const RUNS: [[f64; 10]; 3] = [
    [14.2, 12.9, 12.1, 10.4, 10.1, 10.3, 10.2, 10.0, 10.4, 10.2],
    [13.8, 12.2, 10.6, 10.3, 10.5, 10.4, 12.9, 10.3, 10.6, 10.5],
    [10.9, 10.8, 11.0, 10.7, 10.9, 11.1, 10.8, 10.9, 11.0, 10.8],
];
/// Where the example's builds start: label, first value, first execution.
pub const BUILDS: [(&str, usize, usize); 2] = [("build 1", 0, 0), ("build 2", 20, 2)];
/// Iterations cut as warm-up from each execution.
const CUT: usize = 3;

/// The example report.
pub fn view() -> ReportView {
    ReportView {
        warnings: Vec::new(),
        title: "rigor report: example".to_string(),
        rigor_version: "0.1.0".to_string(),
        generated: "2026-01-01 12:00 UTC".to_string(),
        environment: vec![
            ("os".to_string(), "Linux 6.1 x86_64".to_string()),
            (
                "cpu".to_string(),
                "<i>Example</i> CPU @ 3.0 GHz & \"turbo\"".to_string(),
            ),
            ("rustc".to_string(), "1.95.0".to_string()),
        ],
        seed: Some(42),
        confidence: 0.95,
        benchmarks: vec![benchmark()],
        comparisons: comparisons(),
        overview: overview(),
        overview_unit: "ms".to_string(),
        what: String::new(),
        parameters: Vec::new(),
    }
}

/// The overview of three commands, one with a hostile name.
fn overview() -> Vec<OverviewRow> {
    let row = |name: &str, base: f64, spread: f64| {
        let values: Vec<f64> = (0..10)
            .map(|i| base + spread * ((f64::from(i) * 0.37) % 1.0 - 0.5))
            .collect();
        OverviewRow {
            name: name.to_string(),
            mean: base,
            ci_lower: base - spread / 4.0,
            ci_upper: base + spread / 4.0,
            quartiles: Some([base - spread / 4.0, base, base + spread / 4.0]),
            values,
        }
    };
    vec![
        row("gzip -6", 12.1, 1.2),
        row(HOSTILE_NAME, 13.0, 2.0),
        row("xz -1", 31.5, 3.0),
    ]
}

fn executions() -> Vec<ExecutionSeries> {
    let shape = [
        (vec![3], Some(3), vec![], "warm-up"),
        (vec![2], Some(2), vec![6], "warm-up"),
        (vec![], Some(0), vec![], "flat"),
    ];
    RUNS.iter()
        .zip(shape)
        .map(
            |(values, (changepoints, steady_start, outliers, class))| ExecutionSeries {
                values: values.to_vec(),
                changepoints,
                steady_start,
                outliers,
                class: class.to_string(),
            },
        )
        .collect()
}

/// The steady-state part of every execution, in run order.
fn steady() -> Vec<f64> {
    RUNS.iter().flat_map(|r| r[CUT..].iter().copied()).collect()
}

/// Lag pairs within each execution's steady part, and the same from a fixed shuffle.
fn lags() -> Vec<LagPanel> {
    let values = steady();
    let n = values.len();
    let shuffled: Vec<f64> = (0..n).map(|i| values[(i * 5) % n]).collect();
    let pairs = |v: &[f64], lag: usize| -> Vec<(f64, f64)> {
        v.chunks(10 - CUT)
            .flat_map(|run| run.iter().zip(&run[lag.min(run.len())..]))
            .map(|(a, b)| (*a, *b))
            .collect()
    };
    (1..=4)
        .map(|lag| LagPanel {
            lag,
            points: pairs(&values, lag),
            shuffled_points: pairs(&shuffled, lag),
        })
        .collect()
}

fn benchmark() -> BenchmarkSection {
    BenchmarkSection {
        name: HOSTILE_NAME.to_string(),
        command: "printf '%s' \"a & b\" > /dev/null".to_string(),
        unit_label: "ms".to_string(),
        compared: None,
        mean: 10.63,
        ci_lower: 9.75,
        ci_upper: 11.51,
        levels: vec![
            "build".to_string(),
            "execution".to_string(),
            "iteration".to_string(),
        ],
        counts: vec![2, 3, 30],
        executions: executions(),
        builds: BUILDS
            .iter()
            .map(|(label, first_value, first_execution)| BuildMark {
                label: label.to_string(),
                first_value: *first_value,
                first_execution: *first_execution,
            })
            .collect(),
        warmup_cut: Some(CUT),
        lag: lags(),
        acf: Some(AcfPanel {
            values: vec![0.31, 0.05, -0.12, -0.08, 0.02, 0.04],
            shuffled: vec![-0.06, 0.09, -0.03, 0.01, -0.10, 0.05],
            bound: 0.43,
        }),
        steady_values: steady(),
        execution_means: vec![10.23, 10.79, 10.89],
        components: vec![
            ComponentBar {
                level: "build".to_string(),
                share_percent: 12.0,
                sd_percent_of_mean: 1.4,
            },
            ComponentBar {
                level: "execution".to_string(),
                share_percent: 60.0,
                sd_percent_of_mean: 3.3,
            },
            ComponentBar {
                level: "iteration".to_string(),
                share_percent: 28.0,
                sd_percent_of_mean: 2.1,
            },
        ],
        impact: Some(ImpactView {
            original: 2.41,
            centred: 1.03,
            clustered: None,
        }),
        diagnosis: vec![
            "2 of 3 executions warm up; the first 3 iterations of each were discarded.".to_string(),
            "After the cut, iterations show no significant autocorrelation.".to_string(),
        ],
        warnings: vec![
            "only 3 executions: an interval from fewer than 5 executions is unreliable; use more \
             executions"
                .to_string(),
        ],
    }
}

fn comparisons() -> Vec<ComparisonRow> {
    vec![
        ComparisonRow {
            baseline: HOSTILE_NAME.to_string(),
            candidate: "sleep 0.01".to_string(),
            estimator: "mean".to_string(),
            ratio: 1.043,
            lower: Some(1.012),
            upper: Some(1.081),
            verdict: "slower".to_string(),
            effect_text: "4.3% slower (1.2% to 8.1%)".to_string(),
            threshold: 0.02,
        },
        ComparisonRow {
            baseline: HOSTILE_NAME.to_string(),
            candidate: "sleep 0.011 'quoted'".to_string(),
            estimator: "mean".to_string(),
            ratio: 0.97,
            lower: None,
            upper: Some(1.35),
            verdict: "inconclusive".to_string(),
            effect_text: "interval unbounded below: the baseline's mean is not clearly above zero"
                .to_string(),
            threshold: 0.02,
        },
    ]
}
