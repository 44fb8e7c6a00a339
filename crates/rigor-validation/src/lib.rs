//! Validation of rigor: seeded simulations and real runs on the current machine that regenerate
//! `docs/VALIDATION.md` (and its figures in `docs/validation/`).
//!
//! [`run`] computes every section at the sizes of a [`Sizes`] and returns the Markdown, the SVG
//! figures and the checks that failed. `quick` sizes run in well under a minute in release and
//! assert the headline numbers (the integration test `tests/quick.rs` runs them in CI); `all`
//! sizes add the full tables, the time-to-precision comparison, real runs and speed.
//!
//! Every simulated experiment is seeded: row seed `s` (printed beside the row) and experiment
//! `i` draw from `ChaCha8Rng::seed_from_u64(splitmix64(s + i))`, and row seeds derive from the
//! master seed and the row's label ([`common::row_seed`]). Experiments run in parallel with rayon
//! and the results are identical whatever the number of threads.

pub mod common;
pub mod comparison;
pub mod coverage;
pub mod events;
pub mod history;
pub mod metrics;
pub mod model;
pub mod peers;
pub mod plots;
pub mod precision;
pub mod reach;
pub mod real;
pub mod sequential;
pub mod sequential_real;
pub mod sessions;
pub mod skewed;
pub mod speed;
pub mod warned;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;

use crate::comparison::{BuildsRow, CompareRow};
use crate::coverage::CoverageRow;
use crate::model::{Design, Family, Split};
use crate::precision::{PrecisionRow, Scenario};

/// The master seed used unless `--seed` says otherwise.
pub const DEFAULT_SEED: u64 = 2013;

/// How much of the validation to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Reduced sizes and the checks (CI).
    Quick,
    /// Everything, at full size.
    All,
}

/// Experiment counts per section.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sizes {
    /// Which mode these sizes belong to.
    pub mode: Mode,
    /// Simulated experiments per coverage row.
    pub coverage: usize,
    /// Simulated experiments per row of section 1b (bootstrap intervals on top-level means; 0:
    /// skipped).
    pub skewed: usize,
    /// Simulated comparisons per row.
    pub compare: usize,
    /// Simulated experiments per design in the time-to-precision section (0: skipped).
    pub precision: usize,
    /// Experiments per design for lusearch9 (≈ 3,600 executions each; 0: skipped).
    pub lusearch: usize,
    /// A/A repetitions per real program (0: no real runs).
    pub real_reps: usize,
    /// Largest series for the speed section, a power of ten from 10³ (0: no speed section).
    pub speed_max: usize,
    /// Executions per run length of scripts/overhead.py (0: not run).
    pub overhead_runs: usize,
}

impl Sizes {
    /// The full validation (several minutes on two cores).
    pub fn all() -> Self {
        Self {
            mode: Mode::All,
            coverage: 10_000,
            skewed: 2_000,
            compare: 2_000,
            precision: 4_000,
            lusearch: 4_000,
            real_reps: 10,
            speed_max: 1_000_000,
            overhead_runs: 500,
        }
    }

    /// The quick checks: 4,000 experiments per asserted coverage (binomial SE 0.35% at 95%) and
    /// 2,000 per A/A rate (SE 0.5% at 5%). Debug builds run fewer time-to-precision experiments,
    /// which drive the real scheduler and are not asserted.
    pub fn quick() -> Self {
        Self {
            mode: Mode::Quick,
            coverage: 4_000,
            skewed: 0,
            compare: 2_000,
            precision: if cfg!(debug_assertions) { 50 } else { 200 },
            lusearch: 0,
            real_reps: 0,
            speed_max: 0,
            overhead_runs: 0,
        }
    }

    /// Every section at a tenth of the size or less, for trying the document out (minutes → seconds).
    pub fn small() -> Self {
        Self {
            mode: Mode::All,
            coverage: 1_000,
            skewed: 200,
            compare: 300,
            precision: 100,
            lusearch: 10,
            real_reps: 2,
            speed_max: 100_000,
            overhead_runs: 0,
        }
    }
}

/// What a run produced.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// The whole VALIDATION.md.
    pub markdown: String,
    /// SVG figures: (file name, contents).
    pub figures: Vec<(String, String)>,
    /// Checks that failed (empty: all passed).
    pub failures: Vec<String>,
    /// Checks that passed, in words.
    pub passed: Vec<String>,
}

/// Where things are and how to report progress.
#[derive(Debug, Clone)]
pub struct Options {
    /// Master seed.
    pub seed: u64,
    /// Root of the repository (for the real runs, scripts/overhead.py and the commit id).
    pub repo: PathBuf,
    /// Print progress on standard error.
    pub verbose: bool,
}

impl Options {
    /// Default seed, the repository found from this crate's manifest directory.
    pub fn new() -> Self {
        Self {
            seed: DEFAULT_SEED,
            repo: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."),
            verbose: false,
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Self::new()
    }
}

/// The quick checks at the default seed, as CI runs them.
pub fn quick() -> Result<Outcome> {
    run(&Options::new(), &Sizes::quick())
}

// ---------------------------------------------------------------------------------------------
// Scenarios.

const TWO_LEVEL: [Split; 4] = [
    model::BLOAT6,
    model::LUSEARCH9,
    model::XALAN6,
    model::TRADEBEANS9,
];
const THREE_LEVEL: [Split; 3] = [
    model::ANTLR6_LAYOUT,
    model::XALANCBMK_LINK,
    model::XALAN9_LAYOUT,
];
const SMALL_2: Design = Design {
    builds: 0,
    executions: 10,
    iterations: 20,
};
const LARGE_2: Design = Design {
    builds: 0,
    executions: 30,
    iterations: 20,
};
const SMALL_3: Design = Design {
    builds: 6,
    executions: 10,
    iterations: 10,
};
const LARGE_3: Design = Design {
    builds: 20,
    executions: 10,
    iterations: 10,
};
const COMPARE_DESIGN: Design = Design {
    builds: 0,
    executions: 20,
    iterations: 20,
};
const DELTAS: [f64; 4] = [0.0, 0.01, 0.02, 0.05];
const BUILD_COUNTS: [usize; 4] = [1, 2, 4, 8];

fn scenario(split: Split) -> Scenario {
    Scenario {
        split,
        mean: 0.1,
        startup: 1.0,
        build_time: 60.0,
    }
}

// ---------------------------------------------------------------------------------------------

struct Log {
    verbose: bool,
    start: Instant,
}

impl Log {
    fn say(&self, what: &str) {
        if self.verbose {
            eprintln!("[{:>6.1} s] {what}", self.start.elapsed().as_secs_f64());
        }
    }
}

fn range(rates: impl IntoIterator<Item = f64>) -> (f64, f64) {
    rates
        .into_iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        })
}

fn pct_range((lo, hi): (f64, f64)) -> String {
    if (hi - lo).abs() < 0.0005 {
        format!("{:.1}%", 100.0 * lo)
    } else {
        format!("{:.1}–{:.1}%", 100.0 * lo, 100.0 * hi)
    }
}

/// Runs the validation at `sizes` and returns the document, figures and check results.
pub fn run(opts: &Options, sizes: &Sizes) -> Result<Outcome> {
    let log = Log {
        verbose: opts.verbose,
        start: Instant::now(),
    };
    let mut out = Outcome::default();
    let quick = sizes.mode == Mode::Quick;
    let master = opts.seed;

    // Section 1.
    log.say("section 1: coverage");
    let mut cov: Vec<CoverageRow> = Vec::new();
    let families: &[Family] = if quick {
        &[Family::Normal]
    } else {
        &Family::ALL
    };
    for (splits, designs) in [
        (
            &TWO_LEVEL[..],
            if quick {
                vec![SMALL_2]
            } else {
                vec![SMALL_2, LARGE_2]
            },
        ),
        (
            &THREE_LEVEL[..],
            if quick {
                vec![SMALL_3]
            } else {
                vec![SMALL_3, LARGE_3]
            },
        ),
    ] {
        for design in designs {
            for split in splits {
                for &f in families {
                    cov.push(coverage::run_row(master, *split, f, design, sizes.coverage));
                }
            }
        }
    }

    // Section 1b.
    let mut skew = Vec::new();
    if sizes.skewed > 0 {
        log.say("section 1b: intervals on few skewed top-level units");
        skew = skewed_rows(master, sizes.skewed);
    }

    // Section 2.
    log.say("section 2: comparisons");
    let mut cmp: Vec<CompareRow> = Vec::new();
    for split in [model::XALAN9, model::BLOAT6] {
        let deltas: &[f64] = if quick { &[0.0] } else { &DELTAS };
        for &d in deltas {
            cmp.push(comparison::run_row(
                master,
                split,
                COMPARE_DESIGN,
                d,
                sizes.compare,
                !quick,
            ));
        }
    }
    let builds: Vec<BuildsRow> = if quick {
        Vec::new()
    } else {
        BUILD_COUNTS
            .iter()
            .map(|&k| {
                comparison::run_builds_row(master, model::XALAN9_LAYOUT, k, 5, 10, sizes.compare)
            })
            .collect()
    };

    // Section 3.
    let mut prec: Vec<PrecisionRow> = Vec::new();
    if sizes.precision > 0 {
        log.say("section 3: time to ±1%");
        let root = precision::build_root();
        let splits: Vec<(Split, usize)> = if quick {
            vec![
                (model::XALAN6, sizes.precision),
                (model::XALAN9_LAYOUT, sizes.precision),
            ]
        } else {
            vec![
                (model::XALAN9, sizes.precision),
                (model::TRADEBEANS9, sizes.precision),
                (model::BLOAT6, sizes.precision),
                (model::XALAN6, sizes.precision),
                (model::LUSEARCH9, sizes.lusearch),
                (model::XALAN9_LAYOUT, sizes.precision),
                (model::XALANCBMK_LINK, sizes.precision),
            ]
        };
        for (split, n) in splits {
            if n == 0 {
                continue;
            }
            log.say(&format!("  {} × {n}", split.name));
            prec.push(precision::run_row(master, scenario(split), n, &root));
        }
        let _ = std::fs::remove_dir_all(&root);
    }

    // Section 4.
    let mut real_rows = Vec::new();
    let mut real_note = String::new();
    let mut hyperfine = None;
    if sizes.real_reps > 0 {
        log.say("section 4: real runs");
        match real_section(opts, sizes.real_reps) {
            Ok((rows, hv)) => {
                real_rows = rows;
                hyperfine = hv;
            }
            Err(e) => real_note = format!("The real runs failed: {e:#}."),
        }
    }

    // Section 5.
    let mut speed_rows = Vec::new();
    let mut quantiles = None;
    let mut overhead = None;
    if sizes.speed_max >= 1_000 {
        log.say("section 5: speed");
        let ns: Vec<usize> = [1_000, 10_000, 100_000, 1_000_000]
            .into_iter()
            .filter(|&n| n <= sizes.speed_max)
            .collect();
        speed_rows = speed::run(master, &ns, 3);
        log.say("section 5: quantile bootstraps at scale");
        quantiles = Some(speed::quantile_scale(master, sizes.speed_max, 10_000, 3));
    }
    if sizes.overhead_runs > 0 {
        log.say("section 5: scripts/overhead.py");
        overhead =
            Some(speed::overhead(&opts.repo, sizes.overhead_runs, 3).map_err(|e| format!("{e:#}")));
    }
    log.say("writing");

    // Checks (quick mode asserts them; all mode reports them).
    checks(&cov, &cmp, &mut out);

    // Figures.
    let mut fig = |name: &str, r: Result<String, String>| match r {
        Ok(svg) => out.figures.push((name.to_string(), svg)),
        Err(e) => out.failures.push(format!("figure {name}: {e}")),
    };
    if !quick {
        fig("coverage.svg", plots::coverage(&cov));
        if !builds.is_empty() {
            fig("false_alarms_builds.svg", plots::builds(&builds));
        }
        if !prec.is_empty() {
            fig("time_to_precision.svg", plots::precision(&prec));
        }
        if !speed_rows.is_empty() {
            fig("speed.svg", plots::speed(&speed_rows));
        }
    }

    let doc = Doc {
        opts,
        sizes,
        cov: &cov,
        skew: &skew,
        cmp: &cmp,
        builds: &builds,
        prec: &prec,
        real: &real_rows,
        real_note: &real_note,
        hyperfine: hyperfine.as_deref(),
        speed: &speed_rows,
        quantiles: quantiles.as_ref(),
        overhead: overhead.as_ref(),
        figures: out.figures.iter().map(|f| f.0.clone()).collect(),
        elapsed: log.start.elapsed().as_secs_f64(),
    };
    out.markdown = doc.render(&out);
    Ok(out)
}

/// Section 1b's rows: the section 1 grid, then log-normal 0.8 and far-mode build effects at
/// several build counts.
pub fn skewed_rows(master: u64, n: usize) -> Vec<skewed::SkewRow> {
    let mut rows = Vec::new();
    for (splits, designs) in [
        (&TWO_LEVEL[..], [SMALL_2, LARGE_2]),
        (&THREE_LEVEL[..], [SMALL_3, LARGE_3]),
    ] {
        for design in designs {
            for split in splits {
                for f in Family::ALL {
                    rows.push(skewed::run_row(master, *split, f, design, n));
                }
            }
        }
    }
    let with_builds = |builds| Design { builds, ..SMALL_3 };
    for split in [model::ANTLR6_LAYOUT, model::XALANCBMK_LINK] {
        for (f, counts) in [
            (Family::LogNormalStrong, &[6, 10, 14, 20, 29][..]),
            (Family::FarMode, &[6, 10, 14, 20, 29][..]),
        ] {
            for &b in counts {
                rows.push(skewed::run_row(master, split, f, with_builds(b), n));
            }
        }
    }
    // Shapes held out from the choice of rigor's interval: do its results carry over?
    for f in [
        Family::Exponential,
        Family::LogNormalExtreme,
        Family::MirroredLogNormal,
    ] {
        for b in [6, 10, 20] {
            let split = model::ANTLR6_LAYOUT;
            rows.push(skewed::run_row(master, split, f, with_builds(b), n));
        }
    }
    rows
}

type RealRows = Vec<real::ProgramResult>;

/// Real A/A programs run until decided, beside the fixed design: the section of
/// docs/validation/sequential.md (builds the release `rigor`; a few minutes).
///
/// # Errors
/// When the binary cannot be built, an input written or a run fails.
pub fn sequential_real_section(opts: &Options) -> Result<String> {
    let rigor = real::build_rigor(&opts.repo)?;
    let dir = std::env::temp_dir().join(format!("rigor-validation-seq-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let programs = real::programs(&dir, common::row_seed(opts.seed, "real/inputs"))?;
    let before = sequential_real::load_average();
    let rows = sequential_real::run(opts.seed, &rigor, &programs, &dir);
    let after = sequential_real::load_average();
    let _ = std::fs::remove_dir_all(&dir);
    Ok(sequential_real::section(&rows?, (&before, &after)))
}

fn real_section(opts: &Options, reps: usize) -> Result<(RealRows, Option<String>)> {
    let rigor = real::build_rigor(&opts.repo)?;
    let dir = std::env::temp_dir().join(format!("rigor-validation-real-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let programs = real::programs(&dir, common::row_seed(opts.seed, "real/inputs"))?;
    let hv = real::hyperfine_version();
    let rows = real::run(opts.seed, &rigor, &programs, reps, &dir, hv.is_some());
    let _ = std::fs::remove_dir_all(&dir);
    Ok((rows?, hv))
}

/// Fewer experiments than this cannot support the 93–97% and ≤ 7% checks (binomial SE 0.7%).
const MIN_CHECKED: usize = 1_000;

fn checks(cov: &[CoverageRow], cmp: &[CompareRow], out: &mut Outcome) {
    if cov.iter().any(|r| r.rigor.n < MIN_CHECKED) || cmp.iter().any(|r| r.rigor.n < MIN_CHECKED) {
        out.passed.push(format!(
            "not checked: fewer than {MIN_CHECKED} experiments per row at these sizes"
        ));
        return;
    }
    for r in cov.iter().filter(|r| r.family == Family::Normal) {
        let is_quick_design = r.design == SMALL_2 || r.design == SMALL_3;
        if !is_quick_design {
            continue;
        }
        let p = r.rigor.p();
        let what = format!(
            "rigor's coverage, {} ({}, {}, seed {}): {}",
            r.split.name,
            r.family.name(),
            r.design.show(),
            r.seed,
            r.rigor.show()
        );
        if (0.93..=0.97).contains(&p) {
            out.passed.push(format!("{what} within 93–97%"));
        } else {
            out.failures.push(format!("{what} outside 93–97%"));
        }
        if r.split.name == "lusearch9" {
            let what = format!(
                "pooled coverage, lusearch9 (seed {}): {}",
                r.seed,
                r.pooled.show()
            );
            if r.pooled.p() < 0.8 {
                out.passed
                    .push(format!("{what} below 80% (the harness sees the flaw)"));
            } else {
                out.failures.push(format!(
                    "{what} not below 80%: the simulation does not show the flaw it should"
                ));
            }
        }
    }
    for r in cmp.iter().filter(|r| r.delta == 0.0) {
        for (name, rate) in [
            ("verdict (δ = 1%)", r.rigor),
            ("CI excludes 1 (δ = 0)", r.rigor0),
        ] {
            let what = format!(
                "rigor's A/A false alarms, {name}, {} (seed {}): {}",
                r.split.name,
                r.seed,
                rate.show()
            );
            if rate.p() <= 0.07 {
                out.passed.push(format!("{what} ≤ 7%"));
            } else {
                out.failures.push(format!("{what} > 7%"));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The document.

struct Doc<'a> {
    opts: &'a Options,
    sizes: &'a Sizes,
    cov: &'a [CoverageRow],
    skew: &'a [skewed::SkewRow],
    cmp: &'a [CompareRow],
    builds: &'a [BuildsRow],
    prec: &'a [PrecisionRow],
    real: &'a [real::ProgramResult],
    real_note: &'a str,
    hyperfine: Option<&'a str>,
    speed: &'a [speed::SpeedRow],
    quantiles: Option<&'a speed::QuantileScale>,
    overhead: Option<&'a Result<String, String>>,
    figures: Vec<String>,
    elapsed: f64,
}

fn git_commit(repo: &std::path::Path) -> String {
    std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(repo)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or("unknown".into(), |o| {
            String::from_utf8_lossy(&o.stdout).trim().to_string()
        })
}

impl Doc<'_> {
    fn figure(&self, s: &mut String, name: &str, alt: &str) {
        if self.figures.iter().any(|f| f == name) {
            let _ = writeln!(s, "![{alt}](validation/{name})\n");
        }
    }

    fn render(&self, outcome: &Outcome) -> String {
        let mut s = String::new();
        let env = rigor_store::Environment::detect();
        let quick = self.sizes.mode == Mode::Quick;
        let _ = writeln!(s, "# Validation of rigor\n");
        let _ = writeln!(
            s,
            "<!-- Generated by `cargo run --release -p rigor-validation -- {}`; do not edit by hand. -->\n",
            if quick { "quick" } else { "all" }
        );
        if quick {
            let _ = writeln!(
                s,
                "> **Quick mode**: reduced sizes for CI; the published numbers come from `all`.\n"
            );
        }
        let _ = writeln!(
            s,
            "Generated on {} from commit `{}` with master seed {} in {:.0} s.  \n\
             Machine: {} — {} logical CPU(s), {}{}; load average when written {} (1, 5, 15 min). \
             Simulations do not depend on the machine; \
             sections 4 and 5 do (the machine is shared and noisy: compare ratios, not absolute times).\n",
            common::today(),
            git_commit(&self.opts.repo),
            self.opts.seed,
            self.elapsed,
            if env.cpu.is_empty() {
                "unknown CPU"
            } else {
                env.cpu.as_str()
            },
            env.cpus,
            env.os,
            env.governor
                .as_ref()
                .map_or(String::new(), |g| format!(", governor {g}")),
            sequential_real::load_average(),
        );
        let _ = writeln!(
            s,
            "Every number is traceable to a seed printed beside it: experiment *i* of a row with seed \
             *s* draws from `ChaCha8Rng::seed_from_u64(splitmix64(s + i))` (`crates/rigor-validation/src/common.rs`); \
             in sections 1 and 2 every method of a row sees the same simulated data, in section 3 \
             rigor's simulator is seeded with `splitmix64(s + i)` and the fixed designs draw from \
             `splitmix64((s ^ 0xF1ED) + i)`. Row seeds derive from the master seed and the row's \
             label, so `--seed` changes them all. Rates are shown as *p* ± one Monte-Carlo standard \
             error, sqrt(p(1 − p)/n). Regenerate with \
             `cargo run --release -p rigor-validation -- all` (about five minutes on two cores); \
             `-- quick` runs the reduced checks that CI runs (`cargo test -p rigor-validation`).\n"
        );
        let _ = writeln!(
            s,
            "Machine-wide shifts found as one event by the benchmarks' joint test, over simulated \
             version histories: [validation/events.md](validation/events.md) (`-- events`).\n"
        );
        self.headline(&mut s);
        self.section1(&mut s);
        self.section1b(&mut s);
        self.section2(&mut s);
        self.section3(&mut s);
        self.section4(&mut s);
        self.section5(&mut s);
        let _ = writeln!(s, "## Checks\n");
        let _ = writeln!(
            s,
            "`quick` exits non-zero when one of these fails; `all` reports them here.\n"
        );
        for p in &outcome.passed {
            let _ = writeln!(s, "- pass: {p}");
        }
        for f in &outcome.failures {
            let _ = writeln!(s, "- **FAIL**: {f}");
        }
        s
    }

    fn headline(&self, s: &mut String) {
        let _ = writeln!(s, "## Headline\n");
        let _ = writeln!(
            s,
            "| measure | rigor | what single-level tools report |\n|---|---|---|"
        );
        let normal2: Vec<&CoverageRow> = self
            .cov
            .iter()
            .filter(|r| r.family == Family::Normal && r.design == SMALL_2)
            .collect();
        let normal3: Vec<&CoverageRow> = self
            .cov
            .iter()
            .filter(|r| r.family == Family::Normal && r.design == SMALL_3)
            .collect();
        let n = self.sizes.coverage;
        if !normal2.is_empty() {
            let _ = writeln!(
                s,
                "| Coverage of nominal 95% intervals, executions × iterations ({} splits of Kalibera & Jones 2013, Table 4, {} × {}, normal effects, {} runs each; seeds in §1) | {} | pooled iterations (criterion/JMH style): {} |",
                normal2.len(),
                SMALL_2.executions,
                SMALL_2.iterations,
                n,
                pct_range(range(normal2.iter().map(|r| r.rigor.p()))),
                pct_range(range(normal2.iter().map(|r| r.pooled.p()))),
            );
        }
        if !normal3.is_empty() {
            let _ = writeln!(
                s,
                "| Coverage, builds × executions × iterations (build variation from Kalibera & Jones 2013, §8, {} × {} × {}; seeds in §1) | {} | one build (hyperfine style): {}; pooled: {} |",
                SMALL_3.builds,
                SMALL_3.executions,
                SMALL_3.iterations,
                pct_range(range(normal3.iter().map(|r| r.rigor.p()))),
                pct_range(range(
                    normal3.iter().filter_map(|r| r.one_build.map(|o| o.p()))
                )),
                pct_range(range(normal3.iter().map(|r| r.pooled.p()))),
            );
        }
        for r in self.cmp.iter().filter(|r| r.delta == 0.0) {
            let _ = writeln!(
                s,
                "| A/A false alarms, {} ({} per system, seed {}) | {} (verdict, δ = 1%); {} (CI excludes 1) | Welch t-test on pooled iterations: {} |",
                r.split.name,
                r.design.show(),
                r.seed,
                r.rigor.pct(),
                r.rigor0.pct(),
                r.welch.pct()
            );
        }
        if let Some(b) = self.builds.first() {
            let last = self.builds.last().unwrap_or(b);
            let _ = writeln!(
                s,
                "| A/A false alarms when builds vary ({}, the effect in Figure 2 of Kalibera & Tůma 2006; seeds {} and {}) | {} builds per system as the top level: {} (verdict), {} (CI excludes 1) | one build per system: {} (CIs do not overlap), {} (Welch, pooled) |",
                model::XALAN9_LAYOUT.name,
                b.seed,
                last.seed,
                last.builds,
                last.rigor.pct(),
                last.rigor0.pct(),
                b.overlap.pct(),
                b.welch.pct()
            );
        }
        // A few representative benchmarks; section 3 has them all.
        let headline = ["xalan9", "xalan6", "xalan9 + layout"];
        for r in self
            .prec
            .iter()
            .filter(|r| headline.contains(&r.scenario.split.name))
        {
            let ours = r.rigor();
            let other = match (r.cheapest_valid_fixed(), r.cheapest_fixed()) {
                (Some(b), _) => format!(
                    "cheapest fixed design not shown invalid ({}): {}, coverage {}",
                    b.name,
                    common::seconds(b.mean_seconds),
                    b.coverage.show()
                ),
                (None, Some(b)) => format!(
                    "no fixed design is valid; cheapest ({}): {}, coverage {}",
                    b.name,
                    common::seconds(b.mean_seconds),
                    b.coverage.pct()
                ),
                _ => "–".into(),
            };
            let _ = writeln!(
                s,
                "| Time to ±1% at 95%, simulated {} (seed {}) | {}, coverage {} | {} |",
                r.scenario.split.name,
                r.seed,
                common::seconds(ours.mean_seconds),
                ours.coverage.show(),
                other
            );
        }
        let _ = writeln!(s);
    }

    fn section1(&self, s: &mut String) {
        let _ = writeln!(s, "## 1. Coverage of 95% intervals for the mean\n");
        let _ = writeln!(
            s,
            "Each row simulates {} experiments of one benchmark and asks how often each method's \
             nominal 95% interval contains the true mean. *rigor* is rigor's interval on the \
             top-level means ([methodology](methodology.md#the-interval): builds when there are builds, else executions): \
             the Student-t interval, widened toward the skew when the means are significantly skewed; *pooled \
             iterations* treats every iteration as independent (`pooled_interval`, as criterion, \
             JMH's score error and BenchmarkTools do); *one build* is the same interval over the \
             executions of a single binary (all that hyperfine's data allows when builds vary); *builds ignored* \
             is rigor's interval with executions on top, over all binaries (rigor without `--build`). \
             In two-level rows the executions are the top level, so hyperfine's interval is rigor's.\n",
            self.sizes.coverage
        );
        let _ = writeln!(
            s,
            "Effects: every level's effect is drawn from the named distribution with mean 0 and the \
             split's standard deviation (`crates/rigor-validation/src/model.rs`): normal; log-normal \
             (shape 0.5, skewness 1.75); bimodal (30% of draws in a second mode 2.1 SD away); t₃ \
             (Student t, 3 df, scaled: infinite kurtosis). Splits (per-level σ as % of the mean):\n"
        );
        let mut seen = Vec::new();
        for r in self.cov {
            if seen.contains(&r.split.name) {
                continue;
            }
            seen.push(r.split.name);
            let _ = writeln!(
                s,
                "- **{}**: build {}%, execution {}%, iteration {}% — {}.",
                r.split.name,
                common::num(100.0 * r.split.build),
                common::num(100.0 * r.split.execution),
                common::num(100.0 * r.split.iteration),
                r.split.source
            );
        }
        let _ = writeln!(
            s,
            "\nTable 4 of Kalibera & Jones 2013 gives the execution variation as the spread of \
             execution means (30 executions × 40 iterations), which includes iteration noise/√40; we \
             use it as the execution effect's σ, which slightly overstates that level (e.g. bloat6: √(3.7² − 14.1²/40) = 3.0%). \
             It does not matter for coverage.\n"
        );
        let _ = writeln!(s, "{}", coverage::table(self.cov));
        self.figure(s, "coverage.svg", "coverage per scenario");
        // Findings, from the numbers.
        let normal = range(
            self.cov
                .iter()
                .filter(|r| r.family == Family::Normal)
                .map(|r| r.rigor.p()),
        );
        let _ = writeln!(
            s,
            "With normal effects rigor's coverage is {} in every scenario, while pooled iterations \
             cover {} of the time: their interval ignores every level above the iteration and is \
             too narrow by the ratio in the last column. With builds varying, an interval from one \
             build covers {} of the time however many executions it has, because the build's \
             own offset never averages out.",
            pct_range(normal),
            pct_range(range(
                self.cov
                    .iter()
                    .filter(|r| r.split.execution >= 0.03 || r.split.build > 0.0)
                    .map(|r| r.pooled.p())
            )),
            pct_range(range(
                self.cov.iter().filter_map(|r| r.one_build.map(|o| o.p()))
            )),
        );
        let low: Vec<&CoverageRow> = self.cov.iter().filter(|r| r.rigor.p() < 0.93).collect();
        if low.is_empty() {
            let _ = writeln!(
                s,
                "\nrigor's coverage stays at or above 93% in every row.\n"
            );
        } else {
            let names: Vec<String> = low
                .iter()
                .map(|r| {
                    format!(
                        "{} / {} / {} ({})",
                        r.split.name,
                        r.family.name(),
                        r.design.show(),
                        r.rigor.pct()
                    )
                })
                .collect();
            let big = range(
                self.cov
                    .iter()
                    .filter(|r| r.design == LARGE_2 || r.design == LARGE_3)
                    .map(|r| r.rigor.p()),
            );
            let _ = writeln!(
                s,
                "\nrigor falls below 93% in {} of {} rows: {}. All are skewed or bimodal effects at \
                 the top level with few top-level units: the t interval assumes the mean of the \
                 top-level units is close to normal, and the mean of 6 or 10 skewed draws is not; \
                 rigor widens it toward the skew when the means look skewed, but 6 draws seldom \
                 show the skew they have (section 1b). This is a limit of what few top-level units \
                 carry, not of the hierarchy; with more top-level \
                 units ({} executions, {} builds) rigor's coverage is {} across all effects. \
                 With few builds and a skewed or multimodal build effect, prefer more builds.\n",
                low.len(),
                self.cov.len(),
                names.join("; "),
                LARGE_2.executions,
                LARGE_3.builds,
                pct_range(big),
            );
        }
    }

    fn section1b(&self, s: &mut String) {
        if !self.skew.is_empty() {
            s.push_str(&skewed::section(self.skew, self.sizes.skewed));
        }
    }

    fn section2(&self, s: &mut String) {
        let _ = writeln!(s, "## 2. False alarms and power of comparisons\n");
        let _ = writeln!(
            s,
            "Two systems are simulated independently (normal effects, {} executions × {} iterations \
             each, {} comparisons per row); the candidate's true mean is the baseline's × (1 + change). \
             For A/A rows (no change) the table gives the share of comparisons that report any change \
             (false alarms); for slowdowns, the share that report a regression (power). Methods:\n",
            COMPARE_DESIGN.executions, COMPARE_DESIGN.iterations, self.sizes.compare
        );
        let _ = writeln!(
            s,
            "- **rigor verdict (δ = 1%)**: `rigor_stats::compare::compare` — Fieller's interval for \
             the ratio of means on the executions' means (Welch–Satterthwaite df) and the verdict rule of [methodology](methodology.md#comparisons): \
             regression if the whole interval is above 1 + δ, improvement if below 1 − δ.\n\
             - **rigor CI excludes 1**: the same interval with δ = 0; in A/A rows it measures the \
             interval's own calibration (nominal 5%).\n\
             - **CIs do not overlap**: the non-overlap rule (Kalibera & Tůma 2006; Kalibera, Bulej \
             & Tůma 2005b) on rigor's two 95% mean intervals.\n\
             - **Welch, pooled iterations**: Welch's t-test treating every iteration as independent, \
             p < 0.05.\n\
             - **criterion-style**: criterion's rule as we read it — a change when the test \
             of equal means has p < 0.05 (Welch on pooled iterations here; criterion bootstraps a \
             t statistic) *and* the 95% bootstrap interval of the relative change of means \
             (iterations resampled as i.i.d., 1,000 resamples here, criterion's default is 100,000) \
             lies wholly outside ±noise threshold (1%, criterion's default).\n"
        );
        let _ = writeln!(s, "{}", comparison::table(self.cmp));
        let _ = writeln!(
            s,
            "rigor's verdicts in the same comparisons (share of each outcome):\n"
        );
        let _ = writeln!(s, "{}", comparison::verdict_table(self.cmp));
        let at = self
            .cmp
            .iter()
            .filter(|r| (r.delta - 0.01).abs() < 1e-12)
            .map(|r| format!("{} {}", r.split.name, r.rigor.pct()))
            .collect::<Vec<_>>();
        let aa: Vec<&CompareRow> = self.cmp.iter().filter(|r| r.delta == 0.0).collect();
        let _ = writeln!(
            s,
            "Pooling iterations turns execution-to-execution variation into false alarms: the \
             Welch test fires in {} of A/A comparisons, because it believes it has \
             executions × iterations independent values. rigor's interval is calibrated ({} of A/A \
             intervals exclude 1; nominal 5%) and its verdict, which also asks for the change to \
             exceed δ, raises a false alarm in {} of them.{}\n",
            pct_range(range(aa.iter().map(|r| r.welch.p()))),
            pct_range(range(aa.iter().map(|r| r.rigor0.p()))),
            pct_range(range(aa.iter().map(|r| r.rigor.p()))),
            if at.is_empty() {
                String::new()
            } else {
                format!(
                    " A true change of 1% sits exactly on the threshold δ = 1%: rigor reports a \
                     regression only when the whole interval is above 1.01, so by construction at \
                     most about 2.5% of such comparisons do ({}); the rest are *inconclusive* — \
                     rigor will not call a change of exactly δ practically relevant. Use a smaller δ \
                     (or δ = 0, the 'CI excludes 1' column) to detect changes of 1%.",
                    at.join(", ")
                )
            }
        );
        if !self.builds.is_empty() {
            let _ = writeln!(
                s,
                "### False alarms against the number of builds (Kalibera & Tůma 2006, Figure 2)\n\n\
                 Kalibera & Tůma (2006) compared many binaries of one Mono version with themselves: \
                 with one binary per side, up to 50% of comparisons reported a change (FFT), falling \
                 to 4–6% with 25–30 binaries once builds were a level of the model. Here each system \
                 is {} (build {}%, execution {}%, iteration {}%) with k builds × {} executions × {} \
                 iterations, A/A, {} comparisons per row. With one build, rigor can only use \
                 executions as the top level (as any tool can); from two builds on it puts builds on top.\n",
                model::XALAN9_LAYOUT.name,
                common::num(100.0 * model::XALAN9_LAYOUT.build),
                common::num(100.0 * model::XALAN9_LAYOUT.execution),
                common::num(100.0 * model::XALAN9_LAYOUT.iteration),
                self.builds[0].design.executions,
                self.builds[0].design.iterations,
                self.sizes.compare
            );
            let _ = writeln!(s, "{}", comparison::builds_table(self.builds));
            self.figure(s, "false_alarms_builds.svg", "false alarms against builds");
            let (one, last) = (&self.builds[0], &self.builds[self.builds.len() - 1]);
            let _ = writeln!(
                s,
                "With one build per system, the two binaries differ by their build effects, which \
                 no interval from one binary can see: {} of A/A comparisons are false alarms for the \
                 overlap rule, {} for rigor's verdict and {} for the pooled Welch test — the \
                 effect Kalibera & Tůma (2006) found. With builds as the top \
                 level, false alarms fall to {} (verdict) and {} (CI excludes 1) at {} builds. \
                 Ignoring the build level while measuring several builds is not enough: the overlap \
                 rule still fires in {} of comparisons with {} builds, because executions of one \
                 binary are not independent replicates of the system.\n",
                one.overlap.pct(),
                one.rigor.pct(),
                one.welch.pct(),
                last.rigor.pct(),
                last.rigor0.pct(),
                last.builds,
                last.overlap_ignored.pct(),
                last.builds
            );
        }
    }

    fn section3(&self, s: &mut String) {
        if self.prec.is_empty() {
            return;
        }
        let _ = writeln!(s, "## 3. Experiment time to reach ±1% at 95%\n");
        let _ = writeln!(
            s,
            "Each simulated benchmark has a mean iteration time of 100 ms, costs 1 s to start an \
             execution (process start and warm-up) and, when builds vary, 60 s per build. *rigor* is \
             the real `rigor_runner::run_adaptive` driving the real `SimulatedExecutor` (what \
             `rigor run --precision 1% --max-units 10000` does, with builds as in `--build`): one \
             experiment that starts with a pilot of 10 executions × 10 iterations (10 builds × 2 \
             executions when builds vary) whose data are kept, takes the optimal counts per level \
             from it, re-plans each time the number of units doubles, and adds top-level units \
             until the interval reaches ±1% (at most {} re-plans after a missed look). Its time \
             includes the pilot. The fixed designs use the same model and costs and only one build \
             (as users run them):\n",
            rigor_runner::DEFAULT_LOOKS
        );
        for f in &precision::FIXED {
            let _ = writeln!(s, "- **{}**: {}.", f.name, f.description);
        }
        let _ = writeln!(
            s,
            "\nEach fixed design grows by repeating its own unit until its *own* interval is ±1%: \
             after the base design it projects the units it needs from its own half-width, \
             n' = ⌈n·(h/1%)²⌉, runs them and looks again (at most {} looks). Time is the simulated \
             wall time of every execution (start-up included) plus build time; coverage is the share \
             of final intervals that contain the true mean (over builds when builds vary). A design \
             is *valid* when its coverage is at least {v:.0}%; (✗) marks coverage more than two \
             Monte-Carlo standard errors below {v:.0}% and (†) coverage below {v:.0}% but within that \
             error (undecided: fixed designs get the benefit of the doubt, rigor does not).\n\n\
             The **oracle design** is not simulated: it is the optimal design of [methodology](methodology.md#builds-plans-and-adaptive-runs) (Kalibera & Jones 2013) applied to the *true* variance \
             components and costs (optimal counts per level, then the fewest top-level units whose \
             half-width computed from the true variances is 1%). It is about the least time any \
             design with an honest interval needs — a design that must estimate its variances \
             cannot know them better — so it bounds what any tool can achieve.\n",
            precision::FIXED_LOOKS,
            v = 100.0 * precision::VALID
        );
        let _ = writeln!(s, "{}", precision::table(self.prec));
        self.figure(
            s,
            "time_to_precision.svg",
            "time against coverage per design",
        );
        let _ = writeln!(
            s,
            "Target: rigor reaches valid coverage in at most half the time of the cheapest fixed \
             design that is also valid (mean times). The oracle columns say whether any design \
             could:\n"
        );
        let _ = writeln!(s, "{}", precision::verdicts(self.prec));
        let ratios = |keep: &dyn Fn(&Split) -> bool, of: &dyn Fn(&PrecisionRow) -> Option<f64>| {
            let v: Vec<f64> = self
                .prec
                .iter()
                .filter(|r| keep(&r.scenario.split))
                .filter_map(of)
                .collect();
            if v.is_empty() {
                "–".to_string()
            } else {
                let (lo, hi) = range(v);
                if (hi - lo).abs() < 0.005 {
                    format!("{lo:.2}")
                } else {
                    format!("{lo:.2}–{hi:.2}")
                }
            }
        };
        let vs_fixed = |r: &PrecisionRow| {
            r.cheapest_valid_fixed()
                .map(|b| r.rigor().mean_seconds / b.mean_seconds)
        };
        let oracle_vs_fixed = |r: &PrecisionRow| {
            let o = r.oracle.as_ref().ok()?;
            r.cheapest_valid_fixed().map(|b| o.seconds / b.mean_seconds)
        };
        let vs_oracle = |r: &PrecisionRow| {
            let o = r.oracle.as_ref().ok()?;
            Some(r.rigor().mean_seconds / o.seconds)
        };
        let builds = |sp: &Split| sp.build > 0.0;
        let two_level = |sp: &Split| sp.build == 0.0;
        // The cheapest valid fixed design per two-level row, and the fixed designs valid on all.
        let flat: Vec<&PrecisionRow> = self
            .prec
            .iter()
            .filter(|r| two_level(&r.scenario.split))
            .collect();
        let mut cheapest: Vec<&str> = flat
            .iter()
            .filter_map(|r| r.cheapest_valid_fixed().map(|b| b.name.as_str()))
            .collect();
        cheapest.sort_unstable();
        cheapest.dedup();
        let everywhere: Vec<&str> = precision::FIXED
            .iter()
            .map(|f| f.name)
            .filter(|name| {
                !flat.is_empty()
                    && flat
                        .iter()
                        .all(|r| r.designs.iter().any(|d| d.name == *name && d.maybe_valid()))
            })
            .collect();
        let vs_everywhere = everywhere.first().map_or(String::new(), |name| {
            let of = |r: &PrecisionRow| {
                let d = r.designs.iter().find(|d| d.name == *name)?;
                Some(r.rigor().mean_seconds / d.mean_seconds)
            };
            format!(
                " The one fixed design valid on every two-level benchmark, {name}, is the only \
                 safe choice without that knowledge; rigor takes {}× its time.",
                ratios(&two_level, &of)
            )
        });
        let _ = writeln!(
            s,
            "Two regimes show up. **Builds vary** (xalan9 + layout, xalancbmk link order): no \
             one-build design can be valid whatever its size, because the build's offset never \
             averages out; only rigor is, at the price of building repeatedly — the target is met \
             there, and rigor takes {}× the oracle design's time. **Builds do not vary** (two \
             levels): some fixed design happens to repeat the right level and is valid or nearly \
             so; rigor takes {}× its time. The half-time target is out of reach there for any \
             design: the oracle design itself takes {}× the cheapest valid fixed design, because a \
             fixed design that repeats the right level is already close to optimal. What rigor \
             adds on two levels is that it finds a near-optimal design by itself, at {}× the \
             oracle's time, while which fixed design is the cheap valid one depends on where the \
             variance sits ({} in these rows), which a user does not know before measuring.{} \
             rigor is slowest relative to the others where ±1% needs fewer top-level units than its \
             10-unit pilot (tradebeans9).\n",
            ratios(&builds, &vs_oracle),
            ratios(&two_level, &vs_fixed),
            ratios(&two_level, &oracle_vs_fixed),
            ratios(&two_level, &vs_oracle),
            cheapest.join(", "),
            vs_everywhere,
        );
    }

    fn section4(&self, s: &mut String) {
        if self.sizes.real_reps == 0 {
            return;
        }
        let _ = writeln!(s, "## 4. Real A/A runs on this machine\n");
        if !self.real_note.is_empty() {
            let _ = writeln!(s, "{}\n", self.real_note);
            return;
        }
        let reps = self.real.first().map_or(0, |r| r.reps.len());
        let _ = writeln!(
            s,
            "Each program is benchmarked against itself {reps} times with the release `rigor` binary \
             (`rigor run -r {e} --seed S -n A -n B CMD CMD --export-json f.json`: two identical \
             commands interleaved in shuffled rounds, 1 warm-up execution) and, alternately, with \
             {hf} (`hyperfine -N --runs {e} --warmup 1 CMD CMD`). Inputs are generated from seed {seed}. \
             rigor's comparison (ratio B/A, Fieller paired by round, δ = 1%) is read from its JSON. \
             hyperfine makes no statistical claim; the last column shows how often its printed \
             'B/A ± σ' would suggest a difference to a reader (|ratio − 1| > σ).\n",
            e = real::EXECUTIONS,
            hf = self
                .hyperfine
                .unwrap_or("hyperfine (not installed: column skipped)"),
            seed = common::row_seed(self.opts.seed, "real/inputs"),
        );
        let _ = writeln!(s, "{}", real::table(self.real));
        let _ = writeln!(
            s,
            "<details><summary>Every repetition</summary>\n\n{}\n</details>\n",
            real::details(self.real)
        );
        let alarms: usize = self
            .real
            .iter()
            .flat_map(|r| &r.reps)
            .filter(|x| x.alarm())
            .count();
        let total: usize = self.real.iter().map(|r| r.reps.len()).sum();
        let equivalent = self
            .real
            .iter()
            .flat_map(|r| &r.reps)
            .filter(|x| x.verdict == "equivalent")
            .count();
        let _ = writeln!(
            s,
            "On real programs the truth is A = B, so every reported change is a false alarm: rigor \
             reported {alarms} in {total} A/A comparisons, and called {equivalent} *equivalent* (the \
             whole interval within ±1%). Ten executions per command on a shared two-core machine \
             give wide intervals, so most verdicts are *inconclusive*: the honest answer at this \
             sample size.\n"
        );
    }

    fn section5(&self, s: &mut String) {
        if self.speed.is_empty() {
            return;
        }
        let _ = writeln!(s, "## 5. Speed of rigor's own analysis\n");
        let _ = writeln!(
            s,
            "Median of 3 timings (one when the first took over 5 s) in this process (release \
             build, rayon on all CPUs) of each \
             analysis on series of 10³ to 10⁶ values; the hierarchies are executions × 100 \
             iterations. The log-log slope is the least-squares slope of ln(time) on ln(n): 1 means \
             linear growth. PELT is exact and linear when changes keep occurring, quadratic on a \
             long stretch without change (`pelt_blocked` bounds that; see `rigor_stats::changepoint`).\n"
        );
        let _ = writeln!(s, "{}", speed::table(self.speed));
        self.figure(s, "speed.svg", "analysis time against data size");
        if let Some(q) = self.quantiles {
            let _ = writeln!(
                s,
                "### Quantile bootstraps at scale
"
            );
            let _ = writeln!(
                s,
                "The median and minimum bootstraps (`--estimator median|min`, the harness's \
                 minimum) on the largest data, timed side by side with the mean in one run. The \
                 median sorts all values once, tagged with their top-level unit; a resample's \
                 median is then found from the multiplicities of its drawn units by walking from \
                 the position of the median of all values (short when units are many), with \
                 bisection over per-unit sorted values as the fallback when units are few and large. \
                 Results equal the naive reference exactly (property tests in \
                 `rigor_stats::bootstrap`). The minimum needs only per-unit minima.\n"
            );
            let _ = writeln!(s, "{}", speed::quantile_table(q));
        }
        let _ = writeln!(s, "### Per-execution overhead versus hyperfine\n");
        match self.overhead {
            Some(Ok(text)) => {
                let _ = writeln!(
                    s,
                    "`python3 scripts/overhead.py --runs {} --reps 3`, run side by side on this \
                     machine (see `docs/benchmarks.md` for the method: per-execution cost is the \
                     slope between run lengths N/5 and N, so start-up and final analysis cancel):\n\n\
                     ```text\n{text}\n```\n",
                    self.sizes.overhead_runs
                );
            }
            Some(Err(e)) => {
                let _ = writeln!(s, "scripts/overhead.py could not run: {e}\n");
            }
            None => {}
        }
    }
}
