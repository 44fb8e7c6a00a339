//! The terminal summary of one benchmark.

use std::fmt::Write;

use rigor_stats::analysis::Analysis;

use rigor_units::TimeUnit;

use crate::format::{Scale, bytes, percent, time_in};
use crate::warnings;

/// What the terminal summary shows for one benchmark.
#[derive(Debug, Clone)]
pub struct BenchmarkView<'a> {
    /// 1-based position, for the heading.
    pub index: usize,
    /// Display name.
    pub name: &'a str,
    /// The analysis; `None` when too little data was measured.
    pub analysis: Option<&'a Analysis>,
    /// Failures, already described in words.
    pub failures: &'a [String],
    /// Why there is no analysis, when there is none.
    pub unanalysed: Option<&'a str>,
    /// How its values are shown: times (in the unit of `--time-unit`, by default chosen for the
    /// mean's size), bytes, counts (`--metric`).
    pub scale: Scale,
    /// CPU time and memory of the measured executions, when they were measured.
    pub resources: Option<Resources>,
    /// The statistic comparisons use, when it is not the mean: shown first.
    pub compared: Option<StatisticView>,
    /// Without an analysis, the measured value when there is one but too few top-level units
    /// for an interval (a benchmark measured once): `(value in seconds, the top level's name)`.
    pub value: Option<(f64, String)>,
    /// For a command run through a shell, its mean net of the shell's start-up.
    pub net: Option<NetView>,
    /// For the empty shell measured beside such commands: the shell (`sh`).
    pub startup_of: Option<&'a str>,
    /// Its rate (`--throughput`), when the work of a measured value was given.
    pub rate: Option<RateView>,
}

/// A benchmark's rate: the work of one measured value over its mean time, with the time's
/// interval mapped (computed by the caller).
#[derive(Debug, Clone, PartialEq)]
pub struct RateView {
    /// The work of one measured value.
    pub work: rigor_units::Throughput,
    /// What one measured value is ("execution", "iteration").
    pub per: String,
    /// The rate, per second.
    pub rate: f64,
    /// Lower end of its interval.
    pub lower: f64,
    /// Upper end (infinite when the time's interval reaches zero).
    pub upper: f64,
}

/// "  Throughput:        512.3 MiB/s   [498.1 MiB/s .. 527.4 MiB/s]   64.00 MiB per execution
/// over the mean time" (with a newline).
fn rate_line(r: &RateView) -> String {
    let (scale, unit) = match r.work {
        rigor_units::Throughput::Bytes(_) => (Scale::of(rigor_units::Quantity::Bytes), "/s"),
        rigor_units::Throughput::Items(_) => (Scale::of(rigor_units::Quantity::Count), " items/s"),
    };
    let show = |x: f64| {
        if x.is_finite() {
            format!("{}{unit}", scale.show(x, r.rate))
        } else {
            "∞".to_string()
        }
    };
    let work = match r.work {
        rigor_units::Throughput::Bytes(n) => scale.show(n, n),
        rigor_units::Throughput::Items(n) => format!("{} items", scale.show(n, n)),
    };
    format!(
        "  {:<18}{}   [{} .. {}]   {work} per {} over the mean time (its interval mapped)\n",
        "Throughput:",
        show(r.rate),
        show(r.lower),
        show(r.upper),
        r.per
    )
}

/// A command's mean net of its shell's start-up (computed by the caller).
#[derive(Debug, Clone, PartialEq)]
pub struct NetView {
    /// The start-up benchmark subtracted (`sh -c ''`).
    pub startup: String,
    /// Its mean.
    pub startup_mean: f64,
    /// The net mean.
    pub mean: f64,
    /// Lower end of its interval.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// Confidence level.
    pub level: f64,
}

/// A benchmark's statistic other than the mean, with its interval (computed by the caller).
#[derive(Debug, Clone, PartialEq)]
pub struct StatisticView {
    /// Its name as `--estimator` spells it: "min", "median", "trimmed-mean:0.1".
    pub name: String,
    /// Its value on all the data.
    pub estimate: f64,
    /// Its interval, when there were enough top-level units for one.
    pub interval: Option<(f64, f64)>,
    /// Confidence level of the interval.
    pub level: f64,
    /// What the interval's bootstrap resamples, plural: "executions", "builds".
    pub units: String,
    /// Whether the interval was widened to ± half the timer's resolution.
    pub at_resolution: bool,
}

/// What the measured executions used besides wall time (computed by the caller).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resources {
    /// Mean user CPU time per execution, seconds.
    pub user: f64,
    /// Mean system CPU time per execution, seconds.
    pub sys: f64,
    /// Largest peak resident set size of any execution, bytes.
    pub peak_rss: u64,
}

/// A failure of an execution, a build or a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailureView<'a> {
    /// For a benchmarked command's execution: its number (the first measured one is 1, whatever
    /// the warm-up before it) and whether it was a warm-up execution. `None` for a build or a
    /// hook, whose reason names it and when it ran.
    pub execution: Option<(usize, bool)>,
    /// What went wrong.
    pub reason: &'a str,
    /// The end of its standard error.
    pub stderr_tail: &'a str,
}

/// A benchmark's failures in words: first, when `exit_codes` (of its `measured` executions,
/// with `-i`) are there, how many exited with a non-zero status; then each failure with the
/// last three lines of its standard error.
pub fn failure_lines(
    measured: usize,
    exit_codes: &[i32],
    failures: &[FailureView<'_>],
) -> Vec<String> {
    let non_zero = exit_codes.len();
    let mut codes = exit_codes.to_vec();
    codes.sort_unstable();
    codes.dedup();
    let ignored = (non_zero > 0).then(|| {
        let codes: Vec<String> = codes.iter().map(i32::to_string).collect();
        format!(
            "{non_zero} of {measured} measured executions exited with a non-zero status ({} {}), \
             measured all the same as -i/--ignore-failure asks",
            if codes.len() == 1 { "code" } else { "codes" },
            codes.join(", ")
        )
    });
    ignored
        .into_iter()
        .chain(failures.iter().map(|f| {
            let tail = stderr_excerpt(f.stderr_tail, 3);
            let what = match f.execution {
                Some((number, true)) => format!("warm-up execution {number}: {}", f.reason),
                Some((number, false)) => format!("execution {number}: {}", f.reason),
                None => f.reason.to_string(),
            };
            if tail.is_empty() {
                what
            } else {
                format!("{what}; stderr ends:\n    {}", tail.replace('\n', "\n    "))
            }
        }))
        .collect()
}

/// The last `n` lines of a failed process's standard error, after the line of a Rust panic and
/// its message's first line when those came earlier (under `RUST_BACKTRACE=1` a panic ends in
/// frames, and the frames alone do not say what failed).
pub fn stderr_excerpt(text: &str, n: usize) -> String {
    let text = text.trim();
    let tail = last_lines(text, n);
    let before = &text[..text.len() - tail.len()];
    let mut lines = before.lines();
    match lines.find(|l| l.contains("panicked at")) {
        Some(at) if !tail.contains("panicked at") => {
            let message = lines.next().map_or(String::new(), |m| format!("\n{m}"));
            format!("{at}{message}\n[…]\n{tail}")
        }
        _ => tail.to_string(),
    }
}

fn last_lines(text: &str, n: usize) -> &str {
    let mut idx = text.len();
    for _ in 0..n {
        match text[..idx].rfind('\n') {
            Some(i) => idx = i,
            None => return text,
        }
    }
    &text[idx + 1..]
}

/// Plural of a level name for counts ("executions").
fn plural(level: &str, n: usize) -> String {
    if n == 1 {
        level.to_string()
    } else {
        format!("{level}s")
    }
}

/// The line that heads what is shown of one metric (`--metric`), with a blank line after it:
/// "Metric cpu: CPU time (user + system)".
pub fn metric_heading(metric: &rigor_units::Metric) -> String {
    format!("Metric {}: {}\n\n", metric.name(), metric.description())
}

/// How a summary's warning line starts ([`shared_warnings_once`] finds them by it).
const WARNING_LINE: &str = "  Warning: ";

/// Summaries ([`render`]'s) joined, a warning that every one of three or more carries word for word said
/// once after them instead of in each: with `rigor bench --against`'s six layouts, "6 builds
/// cannot exclude a mode of 1 build in 5 …" stood under every benchmark, ten times a run, and
/// hid the warnings that were a benchmark's own.
pub fn shared_warnings_once(blocks: Vec<String>) -> String {
    let shared: Vec<String> = match blocks.split_first() {
        Some((first, rest)) if rest.len() >= 2 => first
            .lines()
            .filter(|l| l.starts_with(WARNING_LINE))
            .filter(|l| rest.iter().all(|b| b.lines().any(|m| m == *l)))
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    if shared.is_empty() {
        return blocks.concat();
    }
    let mut out = String::new();
    for b in &blocks {
        for line in b.lines().filter(|l| !shared.iter().any(|s| s == l)) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str(&format!("Every benchmark above ({}):\n", blocks.len()));
    for s in &shared {
        out.push_str(s);
        out.push('\n');
    }
    out.push('\n');
    out
}

/// Renders the summary (several lines, ending in a newline).
pub fn render(view: &BenchmarkView<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Benchmark {}: {}", view.index, view.name);
    if let Some(a) = view.analysis {
        if let Some(c) = &view.compared {
            out.push_str(&statistic_line(c, a.interval.mean, &view.scale));
        }
        let exact =
            a.summary.min == a.summary.max && view.scale.quantity != rigor_units::Quantity::Time;
        if exact {
            // A deterministic metric (peak memory, a count): one value, no interval to give.
            let _ = writeln!(
                out,
                "  {:<18}{} in every one of {} (no variation: exact)",
                "Value:",
                view.scale.show(a.summary.min, a.summary.min),
                units(a)
            );
        } else {
            render_analysis(&mut out, a, &view.scale);
        }
        if let Some(net) = &view.net {
            out.push_str(&net_line(net, a.interval.mean, &view.scale));
        }
        if let Some(r) = &view.rate {
            out.push_str(&rate_line(r));
        }
        if let Some(r) = view.resources {
            out.push_str(&resources_line(r, view.scale.time_unit));
        }
    } else if let Some((value, level)) = &view.value {
        let _ = writeln!(
            out,
            "  {:<18}{} (one {level}: no interval)",
            "Value:",
            view.scale.show(*value, *value)
        );
        if let Some(why) = view.unanalysed {
            let _ = writeln!(out, "  No interval: {why}");
        }
    } else if let Some(why) = view.unanalysed {
        let _ = writeln!(out, "  No result: {why}");
    }
    if let Some(shell) = view.startup_of {
        let _ = writeln!(
            out,
            "  Role:              the start-up of {shell}, subtracted from the commands run \
             through it (not compared)"
        );
    }
    for f in view.failures {
        let _ = writeln!(out, "  Failure: {f}");
    }
    out
}

fn render_analysis(out: &mut String, a: &Analysis, scale: &Scale) {
    let time = |x: f64| scale.show(x, a.interval.mean);
    let time_like = |x: f64, _m: f64| time(x);
    let ci = &a.interval;
    let m = ci.mean;
    let level = crate::format::level_percent(ci.level);
    let (lower, computed) = crate::format::shown_lower(a);
    if ci.is_asymmetric() {
        let (below, above) = (ci.mean - ci.lower, ci.upper - ci.mean);
        let _ = writeln!(
            out,
            "  {:<18}{} −{} +{} (−{} +{})   [{} .. {}]",
            format!("Mean ± {level}% CI:"),
            time(m),
            time_like(below, m),
            time_like(above, m),
            percent(100.0 * below / m),
            percent(100.0 * above / m),
            time_like(lower, m),
            time_like(ci.upper, m),
        );
    } else {
        let _ = writeln!(
            out,
            "  {:<18}{} ± {} (± {})   [{} .. {}]",
            format!("Mean ± {level}% CI:"),
            time(m),
            time_like(ci.half_width, m),
            percent(100.0 * ci.half_width / m),
            time_like(lower, m),
            time_like(ci.upper, m),
        );
    }
    if let Some(below) = computed {
        let _ = writeln!(
            out,
            "  {:<18}the t interval's lower end is {}, below zero, which no {} can be: shown \
             from 0 (a JSON export keeps {} as computed); more {}s will narrow it",
            "Note:",
            time_like(below, m),
            scale.quantity.noun(),
            time_like(below, m),
            a.levels[0],
        );
    }
    let s = &a.summary;
    let _ = writeln!(
        out,
        "  Median/min/max:    {} / {} / {}",
        time_like(s.median, m),
        time_like(s.min, m),
        time_like(s.max, m)
    );
    let _ = writeln!(out, "  Units:             {}", units(a));
    let shares = a.components.shares();
    let parts: Vec<String> = a
        .components
        .components
        .iter()
        .zip(shares)
        .map(|(c, share)| {
            format!(
                "{} {} ({} of variance)",
                c.level,
                percent(100.0 * c.std_dev() / m),
                percent(share)
            )
        })
        .collect();
    let _ = writeln!(out, "  σ as % of mean:    {}", parts.join(", "));
    for w in &a.warnings {
        let _ = writeln!(out, "{WARNING_LINE}{}", warnings::text(w));
    }
}

/// "  Net of start-up:  4.10 ms ± 0.30 ms   [3.80 ms .. 4.40 ms]   sh -c '' (1.05 ms)
/// subtracted, its variance included" (with a newline), times in the unit chosen for `mean`
/// (the gross mean). A net interval that reaches zero or below says that the command costs less
/// than the start-up varies (hyperfine clamps each time at zero instead).
fn net_line(n: &NetView, mean: f64, scale: &Scale) -> String {
    let time = |x: f64| scale.show(x, mean);
    // The net interval is the gross one shifted, so it is as skewed as the gross interval: a
    // `±` of its half-width would disagree with the brackets beside it.
    let (below, above) = (n.mean - n.lower, n.upper - n.mean);
    let margin = if (below - above).abs() <= 1e-9 * (below + above).abs() {
        format!("± {}", time(above))
    } else {
        format!("−{} +{}", time(below), time(above))
    };
    let mut line = format!(
        "  {:<18}{} {margin}   [{} .. {}]   {} ({}) subtracted, its variance included",
        "Net of start-up:",
        time(n.mean),
        time(n.lower),
        time(n.upper),
        n.startup,
        time(n.startup_mean),
    );
    if n.lower <= 0.0 {
        line.push_str(
            "; not distinguishable from no time at all: the command costs less than the \
             shell's start-up varies",
        );
    }
    line.push('\n');
    line
}

/// "  Min, 95% CI:       10.77 ns   [10.70 ns .. 10.85 ns]   the statistic compared: each
/// execution's least sample, located over the executions (bootstrap over executions)" (with a
/// newline), times in the unit chosen for `mean`.
fn statistic_line(c: &StatisticView, mean: f64, scale: &Scale) -> String {
    let time = |x: f64| scale.show(x, mean);
    let mut name = c.name.clone();
    if let Some(first) = name.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    let resolution = if c.at_resolution {
        ", at the timer's resolution"
    } else {
        ""
    };
    // The minimum compared is not the least sample of all, which "Median/min/max" shows below
    // it: say which one it is.
    let what = if c.name == "min" {
        format!(
            ": each execution's least sample, located over the {}",
            c.units
        )
    } else {
        String::new()
    };
    match c.interval {
        Some((lower, upper)) => format!(
            "  {:<18} {}   [{} .. {}]   the statistic compared{what} (bootstrap over \
             {}{resolution})\n",
            format!("{name}, {}% CI:", crate::format::level_percent(c.level)),
            time(c.estimate),
            time(lower),
            time(upper),
            c.units,
        ),
        None => format!(
            "  {:<18} {}   the statistic compared{what} (too few {} for an interval)\n",
            format!("{name}:"),
            time(c.estimate),
            c.units,
        ),
    }
}

/// "  User/system: 1.2 ms / 0.3 ms per execution, peak memory 7 MiB" (with a newline). CPU
/// times are per execution, so without `--time-unit` their unit is chosen for their own size,
/// not for the mean's: an iteration of 70 ns must not print a second of CPU as 10⁹ ns.
fn resources_line(r: Resources, unit: Option<TimeUnit>) -> String {
    let reference = r.user.max(r.sys);
    let memory = if r.peak_rss > 0 {
        format!(", peak memory {}", bytes(r.peak_rss))
    } else {
        String::new()
    };
    format!(
        "  User/system:       {} / {} per execution{memory}\n",
        time_in(r.user, reference, unit),
        time_in(r.sys, reference, unit),
    )
}

/// "12 executions × 20 iterations" when balanced, else totals per level.
pub fn units(a: &Analysis) -> String {
    let balanced = !a
        .warnings
        .iter()
        .any(|w| matches!(w, rigor_stats::analysis::Warning::Unbalanced));
    let mut parts = Vec::new();
    for (i, (level, &n)) in a.levels.iter().zip(&a.counts).enumerate() {
        if i > 0 && balanced {
            let r = n / a.counts[i - 1].max(1);
            parts.push(format!("{r} {}", plural(level, r)));
        } else {
            parts.push(format!("{n} {}", plural(level, n)));
        }
    }
    let joined = parts.join(if balanced { " × " } else { ", " });
    if balanced || a.levels.len() == 1 {
        joined
    } else {
        format!("{joined} (unbalanced)")
    }
}

#[cfg(test)]
mod tests {
    /// A warning every benchmark carries word for word is said once, after them; one that only
    /// some carry stays with them; two benchmarks keep theirs.
    #[test]
    fn a_warning_every_benchmark_carries_is_said_once() {
        let block = |name: &str, own: &str| {
            format!(
                "Benchmark {name}\n  Mean: 1 ms\n  Warning: 6 builds cannot exclude a mode\n{own}\n"
            )
        };
        let three = vec![
            block("a", "  Warning: skewed"),
            block("b", "  Units: 6 builds"),
            block("c", "  Warning: skewed"),
        ];
        let out = super::shared_warnings_once(three);
        assert_eq!(
            out.matches("6 builds cannot exclude a mode").count(),
            1,
            "{out}"
        );
        assert!(
            out.ends_with(
                "Every benchmark above (3):\n  Warning: 6 builds cannot exclude a mode\n\n"
            ),
            "{out}"
        );
        assert_eq!(out.matches("  Warning: skewed").count(), 2, "{out}");
        let two = vec![block("a", ""), block("b", "")];
        let out = super::shared_warnings_once(two.clone());
        assert_eq!(out, two.concat());
    }

    use super::*;

    #[test]
    fn a_panics_message_is_kept_above_the_backtraces_last_lines() {
        let stderr = "thread 'main' (4) panicked at benches/speed.rs:14:60:\nboom went the \
                      routine\nstack backtrace:\n   0: a\n   1: b\n   2: c\nnote: omitted\n";
        assert_eq!(
            stderr_excerpt(stderr, 3),
            "thread 'main' (4) panicked at benches/speed.rs:14:60:\nboom went the routine\n[…]\n   \
             1: b\n   2: c\nnote: omitted"
        );
        // Within the last lines already, or no panic: the last lines alone.
        assert_eq!(stderr_excerpt(stderr, 9), stderr.trim());
        assert_eq!(stderr_excerpt("a\nb\nc\nd\n", 2), "c\nd");
        assert_eq!(stderr_excerpt("", 3), "");
    }

    #[test]
    fn the_statistic_compared_says_what_it_is_and_how_its_interval_was_found() {
        let mut c = StatisticView {
            name: "trimmed-mean:0.1".into(),
            estimate: 3e-9,
            interval: Some((2.99e-9, 3.01e-9)),
            level: 0.95,
            units: "builds".into(),
            at_resolution: true,
        };
        assert_eq!(
            statistic_line(&c, 3.1e-9, &Scale::time(None)),
            "  Trimmed-mean:0.1, 95% CI: 3.000 ns   [2.990 ns .. 3.010 ns]   the statistic \
             compared (bootstrap over builds, at the timer's resolution)\n"
        );
        c.name = "min".into();
        c.interval = None;
        assert_eq!(
            statistic_line(&c, 3.1e-9, &Scale::time(Some(TimeUnit::Us))),
            "  Min:               0.003000 µs   the statistic compared: each execution's least \
             sample, located over the builds (too few builds for an interval)\n"
        );
    }

    #[test]
    fn the_net_mean_names_the_start_up_and_a_net_below_its_noise_says_so() {
        let mut n = NetView {
            startup: "sh -c ''".into(),
            startup_mean: 1.05e-3,
            mean: 4.1e-3,
            lower: 3.8e-3,
            upper: 4.4e-3,
            level: 0.95,
        };
        assert_eq!(
            net_line(&n, 5.15e-3, &Scale::time(None)),
            "  Net of start-up:  4.100 ms ± 0.300 ms   [3.800 ms .. 4.400 ms]   sh -c '' \
             (1.050 ms) subtracted, its variance included\n"
        );
        // A skewed interval (the gross one was) keeps its two sides, as the mean's line does.
        (n.mean, n.lower, n.upper) = (106.6e-3, 95.4e-3, 140.1e-3);
        let line = net_line(&n, 110.0e-3, &Scale::time(None));
        assert!(
            line.contains("106.6 ms −11.20 ms +33.50 ms   [95.40 ms .. 140.1 ms]"),
            "{line}"
        );
        // A command cheaper than the start-up varies: shown as estimated, negative end kept
        // (hyperfine clamps each time at zero), and said.
        (n.mean, n.lower, n.upper) = (0.05e-3, -0.2e-3, 0.3e-3);
        let line = net_line(&n, 1.1e-3, &Scale::time(None));
        assert!(line.contains("[-0.200 ms .. 0.300 ms]"), "{line}");
        assert!(
            line.ends_with(
                "; not distinguishable from no time at all: the command costs less than the \
                 shell's start-up varies\n"
            ),
            "{line}"
        );
    }

    #[test]
    fn cpu_times_are_scaled_for_their_own_size() {
        // As `rigor bench` printed them for a 70 ns benchmark: 0.106 s and 0.268 s of CPU.
        let r = Resources {
            user: 0.105_972,
            sys: 0.267_893_2,
            peak_rss: 0,
        };
        assert_eq!(
            resources_line(r, None),
            "  User/system:       106.0 ms / 267.9 ms per execution\n"
        );
        // `--time-unit` still applies to every time shown, with four significant digits below
        // its unit.
        assert_eq!(
            resources_line(r, Some(TimeUnit::S)),
            "  User/system:       0.1060 s / 0.2679 s per execution\n"
        );
    }
}
