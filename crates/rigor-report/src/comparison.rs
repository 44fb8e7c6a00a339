//! Comparisons in words: effect sizes with their intervals and verdicts, for the terminal and for
//! Markdown pull-request comments.

use std::fmt::Write;

use crate::markdown::Markup;

use rigor_stats::compare::{Comparison, Verdict};
use rigor_units::Quantity;

use crate::format::percent;

/// What is compared, which sets the words of the verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Kind {
    /// Two versions of one program (a baseline and a candidate): "regression", "improvement".
    #[default]
    Versions,
    /// Different commands: "slower", "faster".
    Commands,
}

/// One comparison to show.
#[derive(Debug, Clone)]
pub struct ComparisonView<'a> {
    /// Versions of one program, or different commands.
    pub kind: Kind,
    /// The top-level units in the plural ("executions", "builds"), for advice.
    pub units: &'a str,
    /// Baseline name.
    pub baseline: &'a str,
    /// Candidate name.
    pub candidate: &'a str,
    /// The comparison.
    pub comparison: &'a Comparison,
    /// The non-overlap rule (Kalibera & Tůma 2006): a change when the two intervals do not overlap;
    /// shown for reference.
    pub overlap: Option<Verdict>,
    /// Benjamini–Hochberg adjusted p-value, when several benchmarks were compared.
    pub q_value: Option<f64>,
    /// False-discovery-rate control turned the change the interval showed into an inconclusive
    /// verdict (`q_value` above 1 − level).
    pub fdr_demoted: bool,
    /// The quantity compared (`--metric`): times are slower or faster, sizes larger or smaller,
    /// counts more or fewer.
    pub quantity: Quantity,
    /// When both sides gave the same value in every execution (a deterministic metric: peak
    /// memory, a count of allocations): (baseline's, candidate's), compared exactly.
    pub exact: Option<(f64, f64)>,
    /// When the two sides were not measured in shared rounds: more units would narrow the
    /// interval, not what changed on the machine between them, so no count is suggested.
    pub apart: Option<Apart>,
}

/// What a decided verdict of sides measured apart carries wherever it is shown without the
/// terminal's warning beside it (a table pasted into a pull request, the HTML report):
/// " (separate runs)", " (one after another)", or nothing.
pub fn apart_suffix(apart: Option<Apart>, verdict: Verdict) -> &'static str {
    match apart {
        Some(Apart::Runs) if verdict.is_change() => " (separate runs)",
        Some(Apart::Blocks) if verdict.is_change() => " (one after another)",
        _ => "",
    }
}

/// How two sides of a comparison were measured apart (not in shared rounds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Apart {
    /// In separate runs (two result files).
    Runs,
    /// In one run, each in a block of its own, one after another.
    Blocks,
}

/// The words for a ratio above 1 and below 1 of a quantity: "slower"/"faster" for times,
/// "larger"/"smaller" for sizes, "more"/"fewer" for counts, "higher"/"lower" otherwise.
pub fn direction_words(quantity: &Quantity) -> (&'static str, &'static str) {
    match quantity {
        Quantity::Time => ("slower", "faster"),
        Quantity::Bytes => ("larger", "smaller"),
        Quantity::Count => ("more", "fewer"),
        Quantity::Rate(_) | Quantity::Other(_) => ("higher", "lower"),
    }
}

/// `+4.6%`, `−0.42%`; a change that rounds to zero has no sign (`0.00%`).
fn signed(p: f64) -> String {
    rigor_units::signed_percent_text(p)
}

/// Ratios from this far on (2× slower, or 2× faster) are written as factors ("4.31×"), nearer
/// ones as percentages ("+4.6%"): "+332%" reads worse than "4.32×".
pub const FACTOR_FROM: f64 = 2.0;

/// A factor to three significant digits: `4.31`, `12.3`, `153`.
fn factor(x: f64) -> String {
    if x < 10.0 {
        format!("{x:.2}")
    } else if x < 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.0}")
    }
}

/// Whether a ratio is written as a factor.
fn as_factor(ratio: f64) -> bool {
    ratio >= FACTOR_FROM || (ratio > 0.0 && ratio <= 1.0 / FACTOR_FROM)
}

/// How much slower (ratio ≥ 1) or faster a candidate is, and the interval in the same words:
/// ("4.31× slower", "95% CI 4.10 .. 4.53") or ("4.6% slower", "95% CI +2.1% .. +7.2%").
pub fn ratio_words(ratio: f64, bounds: Option<(f64, f64)>, level: f64) -> (String, String) {
    ratio_words_of(&Quantity::Time, ratio, bounds, level)
}

/// [`ratio_words`] in the words of `quantity` ([`direction_words`]): "2.00× larger", "4.6%
/// more".
pub fn ratio_words_of(
    quantity: &Quantity,
    ratio: f64,
    bounds: Option<(f64, f64)>,
    level: f64,
) -> (String, String) {
    let (up, down) = direction_words(quantity);
    let level = crate::format::level_percent(level);
    let slower = ratio >= 1.0;
    let direction = if slower { up } else { down };
    let amount = if as_factor(ratio) {
        let k = if slower { ratio } else { 1.0 / ratio };
        format!("{}× {direction}", factor(k))
    } else {
        let size = percent(100.0 * (ratio - 1.0).abs());
        if rigor_units::percent_rounds_to_zero(100.0 * (ratio - 1.0)) {
            // Rounds to no change: "0.00% slower" would read as a direction.
            format!("no {down} or {up} (0.00%)")
        } else {
            format!("{size} {direction}")
        }
    };
    let ci = match interval_words_of(quantity, ratio, bounds) {
        Some(ci) => format!("{level}% CI {ci}"),
        None => format!("{level}% CI unbounded"),
    };
    (amount, ci)
}

/// [`interval_words`] in the quantity's words where a factor's interval reaches across no
/// change: "100× faster .. 629× slower", not "0.01 .. 629" (a bound of "0.01× slower").
pub fn interval_words_of(
    quantity: &Quantity,
    ratio: f64,
    bounds: Option<(f64, f64)>,
) -> Option<String> {
    match bounds {
        Some((lo, hi))
            if as_factor(ratio) && lo > 0.0 && lo < 1.0 && hi > 1.0 && hi.is_finite() =>
        {
            let (up, down) = direction_words(quantity);
            Some(format!(
                "{}× {down} .. {}× {up}",
                factor(1.0 / lo),
                factor(hi)
            ))
        }
        _ => interval_words(ratio, bounds),
    }
}

/// The bounds of a ratio's interval in the words [`ratio_words`] gives the ratio: "+2.1% ..
/// +7.2%", or for a factor "4.10 .. 4.53" (of 1/ratio when faster); `None` when unbounded.
pub fn interval_words(ratio: f64, bounds: Option<(f64, f64)>) -> Option<String> {
    // A ratio of times is never negative: an interval reaching below 0 (Fieller's, on means
    // near zero) is shown from 0, as a mean's interval is (the result file keeps it as computed).
    let bounds = bounds.map(|(lo, hi)| (lo.max(0.0), hi.max(0.0)));
    if as_factor(ratio) {
        // Faster by a factor: the interval of 1/ratio is the reciprocal of the ratio's.
        let ci = if ratio >= 1.0 {
            bounds
        } else {
            bounds.map(|(lo, hi)| (1.0 / hi, 1.0 / lo))
        };
        return match ci {
            Some((lo, hi)) if lo > 0.0 && hi.is_finite() => {
                Some(format!("{} .. {}", factor(lo), factor(hi)))
            }
            // Faster by at least this much: the ratio's interval reaches 0.
            Some((lo, hi)) if lo > 0.0 && lo.is_finite() && hi == f64::INFINITY => {
                Some(format!("{} .. ∞", factor(lo)))
            }
            // Slower, the interval reaching 0 (Fieller's on means near zero): bounded above
            // all the same (it read "95% CI unbounded" beside an upper end of 3.90).
            Some((lo, hi)) if lo <= 0.0 && hi.is_finite() && hi > 0.0 => {
                Some(format!("no lower bound .. {}", factor(hi)))
            }
            _ => None,
        };
    }
    let pct = |r: f64| 100.0 * (r - 1.0);
    match bounds {
        // An interval reaching 0 bounds the change on one side only: "−100%" read as a figure
        // (a time of zero), as the factor's "∞" above does not.
        Some((lo, hi)) if lo <= 0.0 && hi.is_finite() => {
            Some(format!("no lower bound .. {}", signed(pct(hi))))
        }
        Some((lo, hi)) if lo.is_finite() && hi.is_finite() => {
            Some(format!("{} .. {}", signed(pct(lo)), signed(pct(hi))))
        }
        _ => None,
    }
}

/// "B is 4.6% slower than A (95% CI +2.1% .. +7.2%)", "B is 4.31× slower than A (95% CI 4.10 ..
/// 4.53)".
pub fn effect_text(v: &ComparisonView<'_>) -> String {
    let c = v.comparison;
    let what = match (c.estimator, &v.quantity) {
        (rigor_stats::Estimator::Mean, _) => String::new(),
        (e, Quantity::Time) => format!(" ({e} time)"),
        (e, _) => format!(" ({e})"),
    };
    if let Some((old, new)) = v.exact {
        // A deterministic metric: the difference itself, with no interval to speak of.
        let scale = crate::format::Scale::of(v.quantity.clone());
        let (up, down) = direction_words(&v.quantity);
        let difference = if new == old {
            "the same as".to_string()
        } else {
            let amount = scale.show((new - old).abs(), old.abs().max(new.abs()));
            format!("{amount} {} than", if new > old { up } else { down })
        };
        return format!(
            "{} is {difference} {}{what} in every execution ({} against {}; exact: no \
             variation on either side)",
            v.candidate,
            v.baseline,
            scale.show(new, new),
            scale.show(old, old)
        );
    }
    let (amount, ci) = ratio_words_of(
        &v.quantity,
        c.ratio,
        c.ci.map(|i| (i.lower, i.upper)),
        c.level,
    );
    // Withheld: its middle, a difference the conditions made, would read as a finding.
    if c.withheld {
        return format!(
            "{} against {}{what}: no estimate ({WITHHELD})",
            v.candidate, v.baseline
        );
    }
    // One run a side: the difference of these two runs, with no interval across runs.
    if v.apart == Some(Apart::Runs) && c.between_sessions.is_some_and(|s| s.sigma_log.is_none()) {
        return format!(
            "{} is {amount} than {}{what} in these two runs (no interval across runs: one run a \
             side)",
            v.candidate, v.baseline
        );
    }
    format!(
        "{} is {amount} than {}{what} ({ci})",
        v.candidate, v.baseline
    )
}

/// What a withheld comparison shows in place of its interval.
const WITHHELD: &str = "no interval: measured under other conditions, see the warning";

/// A p-value as people read it: "p = 0.042", "p < 0.001".
pub fn p_text(name: &str, p: f64) -> String {
    if p < 0.001 {
        format!("{name} < 0.001")
    } else {
        format!("{name} = {p:.3}")
    }
}

/// The verdict in the words of its kind: "regression" or "slower", "improvement" or "faster".
pub fn verdict_word(kind: Kind, verdict: Verdict) -> String {
    verdict_word_of(kind, verdict, &Quantity::Time)
}

/// [`verdict_word`] for commands compared on `quantity`: "larger", "fewer" (a regression is
/// the direction that is worse: lower for a rate).
pub fn verdict_word_of(kind: Kind, verdict: Verdict, quantity: &Quantity) -> String {
    let (up, down) = direction_words(quantity);
    let (worse, better) = match quantity {
        Quantity::Rate(_) => (down, up),
        _ => (up, down),
    };
    match (kind, verdict) {
        (Kind::Commands, Verdict::Regression) => worse.into(),
        (Kind::Commands, Verdict::Improvement) => better.into(),
        (_, v) => v.to_string(),
    }
}

/// A benchmark's time over the fastest's, with the interval of the ratio when it is known.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Relative {
    /// The ratio (≥ 1 for the slower).
    pub ratio: f64,
    /// Its confidence interval.
    pub ci: Option<(f64, f64)>,
    /// The threshold δ when the interval lies within ±δ (the comparison's verdict is
    /// "equivalent"): the difference, however sure, is too small to matter.
    pub within: Option<f64>,
}

/// One line of the ranking: a benchmark and how it compares with the fastest.
#[derive(Debug, Clone)]
pub struct RankView<'a> {
    /// The benchmark.
    pub name: &'a str,
    /// Its time over the fastest's, with the interval (absent for the fastest).
    pub ratio: Option<Relative>,
}

/// "Summary": the fastest, then each other benchmark as a multiple of it.
pub fn ranking(rows: &[RankView<'_>], level: f64) -> String {
    ranking_of(rows, level, &Quantity::Time)
}

/// The word for the best of a ranking of `quantity`: "fastest", "smallest", "fewest", and for a
/// rate (more is better) "highest".
fn best_word(quantity: &Quantity) -> &'static str {
    match quantity {
        Quantity::Time => "fastest",
        Quantity::Bytes => "smallest",
        Quantity::Count => "fewest",
        Quantity::Rate(_) => "highest",
        Quantity::Other(_) => "lowest",
    }
}

/// [`ranking`] of values of `quantity`, in its words ("smallest: a", "b is 3.94× larger").
pub fn ranking_of(rows: &[RankView<'_>], level: f64, quantity: &Quantity) -> String {
    let mut out = String::new();
    if rows.len() < 2 {
        return out;
    }
    let _ = writeln!(out, "Summary");
    // Where no other benchmark is shown to differ from the best, it leads by its estimate
    // alone: said, rather than a winner of identical programs.
    let tied = rows
        .iter()
        .filter_map(|r| r.ratio)
        .all(|r| r.within.is_some() || r.ci.is_some_and(|(l, u)| l <= 1.0 && 1.0 <= u));
    for r in rows {
        match r.ratio {
            None if tied => {
                let _ = writeln!(
                    out,
                    "  {}: {} (by the estimate alone: no difference that matters is shown)",
                    best_word(quantity),
                    r.name
                );
            }
            None => {
                let _ = writeln!(out, "  {}: {}", best_word(quantity), r.name);
            }
            Some(Relative {
                ratio,
                ci: bounds,
                within,
            }) => {
                let (amount, ci) = ratio_words_of(quantity, ratio, bounds, level);
                // Identical programs are ranked too: an interval that holds 1 shows no
                // difference, whichever came out ahead; one within ±δ, none that matters.
                let none = if bounds.is_some_and(|(l, u)| l <= 1.0 && 1.0 <= u) {
                    ": no difference shown".to_string()
                } else if let Some(d) = within {
                    format!(": within ±{}, equivalent", percent(100.0 * d))
                } else {
                    String::new()
                };
                let _ = writeln!(out, "  {} is {amount} ({ci}{none})", r.name);
            }
        }
    }
    out
}

/// One group's ranking: the fastest first (or in command order), each other benchmark as a
/// multiple of the fastest.
#[derive(Debug, Clone)]
pub struct Ranking {
    /// The parameter values the group shares ("x = 1"), when benchmarks are grouped.
    pub title: Option<String>,
    /// Each benchmark's name and its ratio to the fastest with the interval (none for the
    /// fastest).
    pub rows: Vec<(String, Option<Relative>)>,
    /// Confidence level of the intervals.
    pub level: f64,
    /// The quantity ranked (`--metric`): its words, and for a rate the highest first.
    pub quantity: Quantity,
}

/// The terminal text of the rankings, each titled with its group's parameter values.
pub fn rankings(rankings: &[Ranking]) -> String {
    rankings
        .iter()
        .map(|r| {
            let rows: Vec<RankView<'_>> = r
                .rows
                .iter()
                .map(|(name, ratio)| RankView {
                    name,
                    ratio: *ratio,
                })
                .collect();
            let text = ranking_of(&rows, r.level, &r.quantity);
            match &r.title {
                Some(t) => text.replacen("Summary", &format!("Summary ({t})"), 1),
                None => text,
            }
        })
        .collect()
}

/// The geometric mean of a suite's ratios, as `rigor compare` shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SuiteView {
    /// Ratios in the mean.
    pub benchmarks: usize,
    /// The geometric mean of the ratios new / old.
    pub ratio: f64,
    /// Confidence level.
    pub level: f64,
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// Widened to the timers' resolution.
    pub at_resolution: bool,
    /// The interval is the bootstrap's (seeded); otherwise the log-scale t interval of the
    /// mean ratios (Welch–Satterthwaite), which resamples nothing.
    pub bootstrap: bool,
    /// The two sides were measured apart: a change of the machine between them moves every
    /// benchmark together, which the interval (benchmarks combined as independent) cannot see.
    pub apart: Option<Apart>,
}

/// The suite line; `seed` seeded its bootstrap.
pub fn suite(s: &SuiteView, seed: rigor_units::Seed) -> String {
    suite_of(s, seed, &Quantity::Time)
}

/// [`suite`] of ratios of `quantity` ("i.e. 12% larger").
pub fn suite_of(s: &SuiteView, seed: rigor_units::Seed, quantity: &Quantity) -> String {
    let (up, down) = direction_words(quantity);
    let how = if s.bootstrap {
        format!("bootstrap seed {seed}")
    } else {
        "t on the log ratios, Welch".to_string()
    };
    // An interval that holds 1 shows no change: the point estimate alone is not a finding.
    let shown = if s.lower <= 1.0 && 1.0 <= s.upper {
        " (the interval holds 1: no change shown)"
    } else {
        ""
    };
    let apart = match s.apart {
        Some(Apart::Runs) => "; measured in separate runs: see the warning",
        Some(Apart::Blocks) => "; measured one after another: see the warning",
        None => "",
    };
    format!(
        "Suite: geometric mean of {} {:.4} ({}% CI {:.4} .. {:.4}{}), i.e. {} {}{shown}; {how}{apart}\n",
        crate::format::count(s.benchmarks, "ratio", "ratios"),
        s.ratio,
        crate::format::level_percent(s.level),
        s.lower,
        s.upper,
        if s.at_resolution {
            ", at the timer's resolution"
        } else {
            ""
        },
        percent(100.0 * (s.ratio - 1.0).abs()),
        if s.ratio >= 1.0 { up } else { down },
    )
}

/// How a comparison with a baseline from other sessions was widened, in words; a baseline of
/// one session is explained once (`again`: it was, above).
fn sessions_text(
    spread: rigor_stats::compare::SessionSpread,
    again: bool,
    apart: Option<Apart>,
) -> String {
    if apart == Some(Apart::Runs) && spread.sigma_log.is_none() {
        return if again {
            "across runs: one run a side (above), so no verdict is called".to_string()
        } else {
            "across runs: one run a side cannot tell how far a run moves the statistic on this \
             machine (the run's own interval does not cover it), so no verdict is called; \
             measure both in one run (`rigor run OLD NEW`, interleaved) or track the versions \
             (`rigor track`)"
                .to_string()
        };
    }
    match spread.sigma_log {
        None if again => {
            "across sessions: one session saved (above), so no verdict is called".to_string()
        }
        Some(sigma) => format!(
            "across sessions: the interval carries how far the statistic moved between the \
             baseline's {} sessions (σ {} per session)",
            spread.sessions,
            percent(100.0 * sigma)
        ),
        None => "across sessions: the baseline was saved in one session, which cannot tell how \
                 far a session moves the statistic, so no verdict is called; save it again in \
                 other sessions (each --save-baseline adds one), or measure both builds \
                 together (--against REV|DIR)"
            .to_string(),
    }
}

/// Advice for the verdict, in words.
fn verdict_text(v: &ComparisonView<'_>) -> String {
    let (kind, c) = (v.kind, v.comparison);
    if c.withheld {
        return "inconclusive: withheld, the two sides were measured under other conditions \
                (see the warning)"
            .to_string();
    }
    let v_quantity = v.quantity.clone();
    let band = percent(100.0 * c.threshold);
    // A decided verdict of sides measured apart holds for these runs' (or blocks') noise only.
    let apart = match v.apart {
        Some(Apart::Runs) => "; measured in separate runs: see the warning",
        Some(Apart::Blocks) => "; measured one after another: see the warning",
        None => "",
    };
    let estimate = signed(100.0 * (c.ratio - 1.0));
    match c.verdict {
        v @ (Verdict::Regression | Verdict::Improvement) => {
            format!(
                "{} (beyond the ±{band} threshold{apart})",
                verdict_word_of(kind, v, &v_quantity)
            )
        }
        Verdict::Equivalent => format!("equivalent (within ±{band}{apart})"),
        Verdict::Inconclusive if c.minima_apart() => format!(
            "inconclusive: the {units}' own minima lie entirely apart, but {} against {} {units} \
             cannot show it at this level (Mann–Whitney's least {} with so few); more {units} \
             decide it",
            c.candidate_units,
            c.baseline_units,
            p_text("p", c.minima_p.unwrap_or(1.0)),
            units = v.units,
        ),
        // Widened for how far the statistic moves between the baseline's sessions: more
        // executions narrow only the run's own part (it had said "more executions decide it").
        Verdict::Inconclusive if c.between_sessions.is_some() && v.apart.is_none() => {
            match c
                .between_sessions
                .and_then(|s| s.sigma_log.map(|sigma| (sigma, s.sessions)))
            {
                Some((sigma, sessions)) => format!(
                    "inconclusive: the interval holds how far the statistic moves between the \
                     baseline's sessions (σ {} over {sessions} sessions, Student's t on {} \
                     degrees of freedom): more executions narrow only this run's part of it; \
                     more sessions of the baseline narrow the rest",
                    percent(100.0 * sigma),
                    sessions - 1
                ),
                None => "inconclusive: the baseline has one session, which cannot tell how far \
                         the statistic moves between sessions; save it again in another session"
                    .to_string(),
            }
        }
        Verdict::Inconclusive if c.demoted_by_minima() => format!(
            "inconclusive: the minimum of all moved, but the {}' own minima do not differ \
             ({}, Mann–Whitney): the smallest rests on the few {} that reached it (a process \
             state one side missed); more {} decide it",
            v.units,
            p_text("p", c.minima_p.unwrap_or(1.0)),
            v.units,
            v.units
        ),
        Verdict::Inconclusive if v.fdr_demoted => format!(
            "inconclusive: beyond ±{band}, but not significant after false-discovery control \
             over the comparisons ({} > {})",
            p_text("q", v.q_value.unwrap_or(1.0)),
            ((1.0 - c.level) * 1e4).round() / 1e4
        ),
        Verdict::Inconclusive => match c.more_units {
            // Measured apart: more units narrow the interval, not what changed between the
            // sides, whatever the count would be.
            Some(_) if v.apart.is_some() => format!(
                "inconclusive: more {} would narrow the interval, but not what changed on the \
                 machine between the {} (see the warning); measure both in one run, interleaved",
                v.units,
                match v.apart {
                    Some(Apart::Runs) => "runs",
                    _ => "blocks",
                }
            ),
            // An estimate inside the band: the whole interval would have to fit in it (an
            // A/A comparison of noisy commands, whose estimate is no nearer an edge than
            // any other).
            Some(n)
                if n >= rigor_stats::compare::MORE_UNITS_CAP
                    && (c.ratio - 1.0).abs() < c.threshold =>
            {
                format!(
                    "inconclusive: the interval would have to fit within the ±{band} threshold \
                     to show them equivalent, which would take over {} times as many {}",
                    rigor_stats::compare::MORE_UNITS_MOST_FACTOR,
                    v.units
                )
            }
            // Near an edge (within δ of it): the count grows without bound as the estimate
            // nears the edge.
            Some(n)
                if n >= rigor_stats::compare::MORE_UNITS_CAP
                    && (c.ratio - 1.0).abs() < 2.0 * c.threshold =>
            {
                format!(
                    "inconclusive: the estimate ({estimate}) is too close to the edge of the \
                     ±{band} threshold for more {} to decide it if it is the true difference \
                     (it would take over {} times as many)",
                    v.units,
                    rigor_stats::compare::MORE_UNITS_MOST_FACTOR
                )
            }
            // Far from the edges: the interval is that wide (a trial's −45% .. +134%).
            Some(n) if n >= rigor_stats::compare::MORE_UNITS_CAP => format!(
                "inconclusive: the interval is too wide for more {} to decide it soon (it would \
                 take over {} times as many); the spread of the executions is what to look at",
                v.units,
                rigor_stats::compare::MORE_UNITS_MOST_FACTOR
            ),
            Some(n) => format!(
                "inconclusive: if the difference is the {estimate} estimated, roughly {n} more \
                 {} per command would decide it{}",
                v.units,
                // Beyond the threshold, the count leans on the estimate: the other answer, if
                // there is no difference, beside it.
                match c.more_units_if_none {
                    Some(m) if m >= rigor_stats::compare::MORE_UNITS_CAP => format!(
                        "; if there is none, showing them equivalent within ±{band} would take \
                         over {} times as many",
                        rigor_stats::compare::MORE_UNITS_MOST_FACTOR
                    ),
                    Some(m) => format!(
                        "; if there is none, roughly {m} more would show them equivalent within \
                         ±{band}"
                    ),
                    None => String::new(),
                }
            ),
            None => "inconclusive".to_string(),
        },
        Verdict::Unbounded => format!(
            "unbounded: the baseline is too noisy (Fieller g = {:.2} ≥ 1); need more {}",
            c.g.unwrap_or(f64::NAN),
            v.units
        ),
    }
}

/// Terminal lines for every comparison.
pub fn render(views: &[ComparisonView<'_>]) -> String {
    let mut out = String::new();
    if views.is_empty() {
        return out;
    }
    let _ = writeln!(out, "Comparisons");
    let mut one_session_said = false;
    for v in views {
        let c = v.comparison;
        let _ = writeln!(out, "  {}", effect_text(v));
        // The pairs are the top-level units: rounds, or builds (build k of each, measured side
        // by side).
        let pairing = match (c.paired, v.units.starts_with("build")) {
            (false, _) => "",
            (true, true) => ", paired by build",
            (true, false) => ", paired by round",
        };
        let _ = writeln!(
            out,
            "    verdict: {}  [{}{pairing}]",
            verdict_text(v),
            c.method
        );
        if let Some(spread) = c.between_sessions {
            let _ = writeln!(
                out,
                "    {}",
                sessions_text(spread, one_session_said, v.apart)
            );
            one_session_said |= spread.sigma_log.is_none();
        }
        // Only beside an interval: one without bounds was not narrowed to the clock's step.
        let bounded =
            c.ci.is_some_and(|ci| ci.lower > 0.0 && ci.upper.is_finite());
        if c.at_resolution && bounded && v.exact.is_none() {
            let _ = writeln!(
                out,
                "    interval at the timer's resolution: the samples move in steps too coarse \
                 for a narrower one"
            );
        }
        if let Some(b) = c
            .bootstrap
            .as_ref()
            // Widened for sessions or runs, the bootstrap of the runs' own data would read as
            // an interval the verdict set aside.
            .filter(|_| v.exact.is_none() && !c.withheld && c.between_sessions.is_none())
        {
            if c.ci.is_none_or(|ci| {
                ci.method != rigor_stats::compare::RatioMethod::BootstrapPercentile
            }) {
                let words = interval_words(c.ratio, Some((b.lower, b.upper)));
                // A bound is a factor (a number, or ∞), "no lower bound" is not.
                let factors = |w: &str| {
                    w.split(" .. ")
                        .map(|x| {
                            if x == "∞" || x.parse::<f64>().is_ok() {
                                format!("{x}×")
                            } else {
                                x.to_string()
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(" .. ")
                };
                let (up, down) = direction_words(&v.quantity);
                // Across no change, each bound in its own words ("1.12× faster .. 3.93×
                // slower"): "0.89× .. 3.93× slower" read 0.89 as slower.
                let across = as_factor(c.ratio)
                    && b.lower > 0.0
                    && b.lower < 1.0
                    && b.upper > 1.0
                    && b.upper.is_finite();
                let bounds = match (words, as_factor(c.ratio), c.ratio < 1.0) {
                    _ if across => {
                        interval_words_of(&v.quantity, c.ratio, Some((b.lower, b.upper)))
                            .unwrap_or_else(|| "unbounded".to_string())
                    }
                    (None, ..) => "unbounded".to_string(),
                    (Some(w), true, true) => format!("{} {down}", factors(&w)),
                    (Some(w), true, false) => format!("{} {up}", factors(&w)),
                    (Some(w), false, _) => w,
                };
                // A second interval beside the one that decides: said to be a cross-check, so
                // that one leaving 1 out beside an inconclusive verdict is not read as a finding.
                let _ = writeln!(
                    out,
                    "    bootstrap (a cross-check; the verdict uses the interval above): {bounds} \
                     ({} resamples, seed {})",
                    b.resamples, b.seed
                );
            }
        }
        if c.method == rigor_stats::compare::RatioMethod::ConfidenceSequence && v.exact.is_none() {
            let _ = writeln!(
                out,
                "    no bootstrap or non-overlap check: they assume a number of rounds fixed in \
                 advance, which a run until decided does not have"
            );
        }
        if let Some(o) = v.overlap {
            let words = if o.is_change() {
                "the intervals do not overlap"
            } else {
                "the intervals overlap"
            };
            let _ = writeln!(
                out,
                "    non-overlap rule (Kalibera & Tůma 2006): {words} ({})",
                verdict_word_of(v.kind, o, &v.quantity)
            );
        }
        // Widened for sessions, an interval that holds no change sets p to 1: not the test's.
        // A minimum's p is the larger of its bootstrap test's and the units' own minima's
        // (Mann–Whitney): named by the one it is.
        // A p of 1 that no test gave (withheld, or widened to hold no change) is not written
        // as a test's figure: "p = 1.000 (Mann–Whitney test …)" was read as a test's result
        // where none was run.
        let no_test = c.withheld || (c.between_sessions.is_some() && c.p_value >= 1.0);
        let p_shown = if no_test {
            "p: none".to_string()
        } else {
            p_text("p", c.p_value)
        };
        let test = if c.withheld {
            "withheld: the two sides were measured under other conditions".to_string()
        } else if c.between_sessions.is_some() && c.p_value >= 1.0 {
            if v.apart == Some(Apart::Runs) {
                "no interval covers the difference between separate runs".to_string()
            } else {
                "the interval widened for the baseline's sessions reaches a ratio of 1: no \
                 change is among its values"
                    .to_string()
            }
        } else if c.p_from_minima() {
            format!(
                "Mann–Whitney test of the {}' own minima, larger than the {}",
                v.units,
                c.p_test.describe(c.estimator)
            )
        } else if c.p_test == rigor_stats::compare::PValueTest::MannWhitney {
            format!("Mann–Whitney test of the {}' own minima", v.units)
        } else {
            c.p_test.describe(c.estimator)
        };
        // No q of a p no test gave (it read "p: none (…), false-discovery-adjusted q = 1.000").
        match v.q_value.filter(|_| !no_test) {
            Some(q) => {
                let _ = writeln!(
                    out,
                    "    {p_shown} ({test}), false-discovery-adjusted {}",
                    p_text("q", q)
                );
            }
            None if no_test || c.estimator != rigor_stats::Estimator::Mean => {
                let _ = writeln!(out, "    {p_shown} ({test})");
            }
            None => {}
        }
    }
    out
}

/// A Markdown table of comparisons.
pub fn markdown(views: &[ComparisonView<'_>]) -> String {
    table_in(Markup::Markdown, views)
}

/// A table of comparisons in `markup` (Markdown, AsciiDoc, org-mode), verdicts in bold.
pub fn table_in(markup: Markup, views: &[ComparisonView<'_>]) -> String {
    use crate::markdown::{Align, cell, frame};
    if views.is_empty() {
        return String::new();
    }
    let header = ["Candidate", "Baseline", "Change", "CI", "Verdict"].map(str::to_string);
    let rows: Vec<Vec<String>> = views
        .iter()
        .map(|v| {
            let c = v.comparison;
            let (amount, ci) = ratio_words_of(
                &v.quantity,
                c.ratio,
                c.ci.map(|i| (i.lower, i.upper)),
                c.level,
            );
            let level = format!("{}% CI ", crate::format::level_percent(c.level));
            let verdict = verdict_word_of(v.kind, c.verdict, &v.quantity);
            // A verdict of sides measured apart carries that in the table too: pasted into a
            // pull request, the terminal's warning is not beside it; so does a withheld one.
            let apart = if c.withheld {
                " (withheld: measured under other conditions)"
            } else {
                apart_suffix(v.apart, c.verdict)
            };
            let (amount, ci) = if c.withheld {
                ("—".to_string(), format!("{level}withheld"))
            } else {
                (amount, ci)
            };
            vec![
                cell(markup, v.candidate),
                cell(markup, v.baseline),
                amount,
                ci.trim_start_matches(&level).to_string(),
                match markup {
                    Markup::Markdown => format!("**{verdict}**{apart}"),
                    Markup::AsciiDoc | Markup::OrgMode => format!("*{verdict}*{apart}"),
                },
            ]
        })
        .collect();
    let align = [
        Align::Left,
        Align::Left,
        Align::Right,
        Align::Center,
        Align::Left,
    ];
    frame(markup, &header, &rows, &align)
}

/// The heading of `rigor bench --baseline`'s comparisons.
pub fn against_baseline(path: &str) -> String {
    format!("Against the baseline {path}:\n")
}

/// A heading (`before`, the name of what was compared with in the markup's own escaping, and
/// `after`) and the table of `views` in `markup`, to append to an export: the comparisons of
/// `rigor bench --baseline` or `--against`, made after the run's own tables were written.
pub fn section_in(
    markup: Markup,
    (before, name, after): (&str, &str, &str),
    views: &[ComparisonView<'_>],
) -> String {
    let marker = match markup {
        Markup::Markdown => "###",
        Markup::AsciiDoc => "===",
        Markup::OrgMode => "***",
    };
    let name = crate::markdown::cell(markup, name);
    format!(
        "\n{marker} {before} {name}{after}\n\n{}",
        table_in(markup, views)
    )
}

/// How `rigor bench --against` measured and compared the two builds; `layouts`: the builds
/// (code layouts) of each side with `--builds`. Its heading's words and its exports'.
pub fn against_how(layouts: Option<usize>) -> String {
    match layouts {
        None => "both builds measured together in interleaved rounds".to_string(),
        Some(n) => format!(
            "{n} builds of each side in shuffled code layouts, measured together in interleaved \
             rounds, compared across the builds"
        ),
    }
}

/// The heading of `rigor bench --against`'s comparisons ([`against_how`]).
pub fn against_build(label: &str, layouts: Option<usize>) -> String {
    format!("Against {label} ({}):\n", against_how(layouts))
}

#[cfg(test)]
mod tests {
    use super::{RankView, Relative, ranking, ratio_words, signed};

    /// A factor whose interval reaches across no change says each bound in words (a lower bound
    /// of 0.01 is 100 times faster, not "0.01× slower"); one on one side keeps the factors.
    #[test]
    fn a_factor_interval_across_no_change_is_in_words() {
        use rigor_units::Quantity;
        let (amount, ci) = super::ratio_words_of(&Quantity::Time, 2.01, Some((0.01, 629.0)), 0.95);
        assert_eq!(amount, "2.01× slower");
        assert_eq!(ci, "95% CI 100× faster .. 629× slower");
        let (_, ci) = ratio_words(4.31, Some((4.10, 4.53)), 0.95);
        assert_eq!(ci, "95% CI 4.10 .. 4.53");
        let (amount, ci) = super::ratio_words_of(&Quantity::Bytes, 0.4, Some((0.1, 3.0)), 0.9);
        assert_eq!(amount, "2.50× smaller");
        assert_eq!(ci, "90% CI 10.0× smaller .. 3.00× larger");
        // Slower, its interval reaching below 0 (Fieller's on a noisy baseline): bounded above
        // all the same, as a percentage's is (it read "95% CI unbounded" beside 3.90).
        let (amount, ci) = ratio_words(2.18, Some((-0.14, 3.90)), 0.95);
        assert_eq!(amount, "2.18× slower");
        assert_eq!(ci, "95% CI no lower bound .. 3.90");
        let (_, ci) = ratio_words(1.05, Some((-0.14, 3.90)), 0.95);
        assert_eq!(ci, "95% CI no lower bound .. +290%");
    }

    #[test]
    fn a_ranking_says_when_its_interval_shows_no_difference() {
        let rows = |ci| {
            vec![
                RankView {
                    name: "b",
                    ratio: None,
                },
                RankView {
                    name: "a",
                    ratio: Some(Relative {
                        ratio: 1.011,
                        ci,
                        within: None,
                    }),
                },
            ]
        };
        let text = ranking(&rows(Some((0.998, 1.022))), 0.95);
        // No other shown to differ: the best leads by its estimate alone, and says so.
        assert!(
            text.contains(
                "fastest: b (by the estimate alone: no difference that matters is shown)"
            ),
            "{text}"
        );
        assert!(text.contains("1.1% slower (95% CI"), "{text}");
        assert!(text.contains("+2.2%: no difference shown)"), "{text}");
        let text = ranking(&rows(Some((1.003, 1.022))), 0.95);
        assert!(!text.contains("no difference shown"), "{text}");
        assert!(text.contains("fastest: b\n"), "{text}");
        // An equivalent pair: sure of a difference too small to matter, and said so.
        let mut r = rows(Some((1.0003, 1.0076)));
        if let Some(rel) = r[1].ratio.as_mut() {
            rel.within = Some(0.01);
        }
        let text = ranking(&r, 0.95);
        assert!(text.contains("+0.76%: within ±1.0%, equivalent)"), "{text}");
    }

    #[test]
    fn a_ratio_that_rounds_to_one_has_no_direction() {
        let (amount, _) = ratio_words(1.000_01, Some((0.99, 1.01)), 0.95);
        assert_eq!(amount, "no faster or slower (0.00%)");
        let (amount, _) = ratio_words(1.046, Some((1.02, 1.07)), 0.95);
        assert_eq!(amount, "4.6% slower");
    }

    /// Fieller's interval on means near zero can reach below 0; no ratio of times can.
    #[test]
    fn intervals_below_zero_are_shown_from_zero() {
        let (_, ci) = ratio_words(1.0 / 6.13, Some((-0.026, 0.356)), 0.95);
        assert_eq!(ci, "95% CI 2.81 .. ∞");
        let (_, ci) = ratio_words(0.8, Some((-0.36, 2.16)), 0.95);
        assert_eq!(ci, "95% CI no lower bound .. +116%");
    }

    #[test]
    fn signed_changes_that_round_to_zero_have_no_sign() {
        assert_eq!(signed(4.61), "+4.6%");
        assert_eq!(signed(-0.42), "−0.42%");
        assert_eq!(signed(-0.001), "0.00%");
        assert_eq!(signed(0.0), "0.00%");
    }

    /// A minimum's comparison names its bootstrap test, and a change that false-discovery
    /// control turned inconclusive says so instead of a bare "inconclusive".
    #[test]
    fn the_test_and_a_demotion_are_named() {
        use super::{ComparisonView, Kind, render};
        use rigor_stats::compare::{CompareConfig, Verdict, compare};
        use rigor_stats::{Estimator, HierarchyBuilder};
        let runs = |level: f64| {
            let mut b = HierarchyBuilder::new(["execution", "iteration"]);
            for e in 0..10usize {
                for i in 0..5 {
                    b.push(&[e], level + 0.01 * ((e * 5 + i) % 7) as f64);
                }
            }
            b.build().unwrap()
        };
        let cfg = CompareConfig {
            estimator: Estimator::Min,
            ..CompareConfig::default()
        };
        let c = compare(&runs(1.2), &runs(1.0), &cfg).unwrap();
        assert_eq!(c.verdict, Verdict::Regression);
        fn view(c: &rigor_stats::compare::Comparison) -> ComparisonView<'_> {
            ComparisonView {
                kind: Kind::Versions,
                units: "executions",
                baseline: "old",
                candidate: "new",
                comparison: c,
                overlap: None,
                q_value: Some(0.31),
                fdr_demoted: false,
                quantity: rigor_units::Quantity::Time,
                exact: None,
                apart: None,
            }
        }
        let text = render(&[view(&c)]);
        assert!(
            text.contains(
                "(Mann–Whitney test of the executions' own minima), false-discovery-adjusted \
                 q = 0.31"
            ) && text.contains("[hodges-lehmann]"),
            "{text}"
        );
        // Three builds a side entirely apart: Mann–Whitney's least p (0.10) held the verdict,
        // and the output says so instead of blaming a process state; the p reported is named
        // as the rank test's.
        let apart = rigor_stats::compare::Comparison {
            verdict: Verdict::Inconclusive,
            candidate_units: 3,
            baseline_units: 3,
            minima_p: Some(rigor_stats::compare::mann_whitney_exact_p(0, 3, 3)),
            p_value: 0.1,
            ..c
        };
        let text = render(&[ComparisonView {
            units: "builds",
            ..view(&apart)
        }]);
        assert!(
            text.contains(
                "inconclusive: the builds' own minima lie entirely apart, but 3 against 3 builds \
                 cannot show it at this level (Mann–Whitney's least p = 0.100 with so few); more \
                 builds decide it"
            ) && text.contains("p = 0.100 (Mann–Whitney test of the builds' own minima)"),
            "{text}"
        );
        // Widened for a baseline's sessions until it holds 1: what more executions can and
        // cannot do, not "so few cannot show it" (a 10 against 10 trial) nor "more executions
        // decide it".
        let mut sessions = c;
        sessions.widen_for_sessions(rigor_stats::compare::SessionSpread {
            sessions: 3,
            sigma_log: Some(0.2),
        });
        assert_eq!(sessions.verdict, Verdict::Inconclusive);
        let text = render(&[view(&sessions)]);
        assert!(
            text.contains(
                "inconclusive: the interval holds how far the statistic moves between the \
                 baseline's sessions (σ 20% over 3 sessions, Student's t on 2 degrees of \
                 freedom): more executions narrow only this run's part of it; more sessions of \
                 the baseline narrow the rest"
            ) && !text.contains("decide it"),
            "{text}"
        );
        // Withheld: its p of 1 is no test's, and is not written as one.
        let mut withheld = c;
        withheld.withhold();
        let text = render(&[view(&withheld)]);
        assert!(
            text.contains(
                "p: none (withheld: the two sides were measured under other conditions)\n"
            ) && !text.contains("p = 1.000")
                && !text.contains("q = 0.31"),
            "{text}"
        );
        let demoted = rigor_stats::compare::Comparison {
            verdict: Verdict::Inconclusive,
            ..c
        };
        let text = render(&[ComparisonView {
            fdr_demoted: true,
            ..view(&demoted)
        }]);
        assert!(
            text.contains(
                "inconclusive: beyond ±1.0%, but not significant after false-discovery control \
                 over the comparisons (q = 0.310 > 0.05)"
            ),
            "{text}"
        );
        // An estimate on the threshold's edge: no count of executions is suggested (a new user
        // read "roughly 1000000 more executions"), and a count below the cap is.
        let on_edge = rigor_stats::compare::Comparison {
            verdict: Verdict::Inconclusive,
            more_units: Some(rigor_stats::compare::MORE_UNITS_CAP),
            ..c
        };
        // Far from the edges, the interval is what is too wide (a trial's −45% .. +134% was
        // said to be "too close to the edge").
        let text = render(&[view(&on_edge)]);
        assert!(
            text.contains(
                "inconclusive: the interval is too wide for more executions to decide it soon"
            ),
            "{text}"
        );
        let near = rigor_stats::compare::Comparison {
            ratio: 1.015,
            ..on_edge
        };
        let text = render(&[view(&near)]);
        assert!(
            text.contains(
                "inconclusive: the estimate (+1.5%) is too close to the edge of the ±1.0% \
                 threshold for more executions to decide it if it is the true difference (it \
                 would take over 100 times as many)"
            ),
            "{text}"
        );
        // Measured apart, no count of any kind is suggested.
        let text = render(&[ComparisonView {
            apart: Some(super::Apart::Runs),
            ..view(&near)
        }]);
        assert!(
            text.contains("but not what changed on the machine between the runs")
                && !text.contains("times as many"),
            "{text}"
        );
        let text = render(&[view(&rigor_stats::compare::Comparison {
            more_units: Some(7),
            ..on_edge
        })]);
        // The count is for the difference estimated, and says so: an A/A pair's estimate is
        // no difference to confirm.
        assert!(
            text.contains("if the difference is the +20% estimated, roughly 7 more executions"),
            "{text}"
        );
        // Beyond the threshold, the count if there is no difference beside it.
        let text = render(&[view(&rigor_stats::compare::Comparison {
            more_units: Some(7),
            more_units_if_none: Some(300),
            ..on_edge
        })]);
        assert!(
            text.contains(
                "per command would decide it; if there is none, roughly 300 more would show \
                 them equivalent within ±"
            ),
            "{text}"
        );
        // Measured apart: no count (more units would not remove what changed between the
        // runs), and a decided verdict says it holds for these runs only.
        let text = render(&[ComparisonView {
            apart: Some(super::Apart::Runs),
            ..view(&rigor_stats::compare::Comparison {
                more_units: Some(7),
                ..on_edge
            })
        }]);
        assert!(
            text.contains("but not what changed on the machine between the runs"),
            "{text}"
        );
        let text = render(&[ComparisonView {
            apart: Some(super::Apart::Blocks),
            ..view(&c)
        }]);
        assert!(
            text.contains(
                "(beyond the ±1.0% threshold; measured one after another: see the warning)"
            ),
            "{text}"
        );
        // The Markdown table carries it too (pasted into a pull request, without the warning).
        let table = super::markdown(&[ComparisonView {
            apart: Some(super::Apart::Runs),
            ..view(&c)
        }]);
        assert!(table.contains("** (separate runs)"), "{table}");
        assert!(!super::markdown(&[view(&c)]).contains("separate runs"));
        // An A/A estimate well inside the band, its interval far wider: not "close to the edge".
        let noisy = rigor_stats::compare::Comparison {
            ratio: 1.002,
            ..on_edge
        };
        let text = render(&[view(&noisy)]);
        assert!(
            text.contains(
                "inconclusive: the interval would have to fit within the ±1.0% threshold to show \
                 them equivalent, which would take over 100 times as many executions"
            ),
            "{text}"
        );
        // A baseline of one session is explained under the first comparison only, and no
        // unbounded interval is said to be at the timer's resolution.
        let one_session = rigor_stats::compare::Comparison {
            verdict: Verdict::Inconclusive,
            ci: c.ci.map(|ci| rigor_stats::compare::RatioInterval {
                lower: 0.0,
                upper: f64::INFINITY,
                ..ci
            }),
            at_resolution: true,
            between_sessions: Some(rigor_stats::compare::SessionSpread {
                sessions: 1,
                sigma_log: None,
            }),
            ..c
        };
        let text = render(&[view(&one_session), view(&one_session)]);
        assert_eq!(
            text.matches("was saved in one session").count(),
            1,
            "{text}"
        );
        assert!(
            text.contains("across sessions: one session saved (above), so no verdict is called"),
            "{text}"
        );
        assert!(!text.contains("timer's resolution"), "{text}");
    }
}

/// A benchmark of both results compared without an interval: one side (or both) was measured in
/// a single top-level unit (Google Benchmark without repetitions), so there is no verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueOnly {
    /// The benchmark.
    pub benchmark: String,
    /// Its old value, seconds.
    pub old: f64,
    /// Its new value, seconds.
    pub new: f64,
    /// Why there is no interval, in words: `measured once` (one execution or repetition), or
    /// `measured in one process` (one process of several iterations, as a JMH fork).
    pub why: String,
}

/// The terminal text of the benchmarks compared without an interval (empty when none).
pub fn values_only(items: &[ValueOnly]) -> String {
    let mut out = String::new();
    for v in items {
        out.push_str(&format!(
            "{} (new) against {} (old): {} against {}, ×{:.3}: no interval ({}), so no verdict\n",
            v.benchmark,
            v.benchmark,
            crate::format::time(v.new),
            crate::format::time(v.old),
            v.new / v.old,
            v.why,
        ));
    }
    out
}
