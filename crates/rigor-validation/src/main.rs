//! `rigor-validation all|quick|…`: regenerates docs/VALIDATION.md, docs/validation/*.svg and
//! the studies beside them (docs/validation/history.md, events.md, metrics.md, sequential.md,
//! sessions.md).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use rigor_validation::{Options, Sizes, run};

/// Regenerates docs/VALIDATION.md from seeded simulations and real runs on this machine.
#[derive(Debug, Parser)]
#[command(name = "rigor-validation")]
struct Cli {
    /// `all`: every section at full size, written to docs/, and the sessions study written to
    /// docs/validation/sessions.md (several minutes). `quick`: reduced sizes, the headline checks
    /// (exit 1 if one fails), Markdown on standard output.
    mode: ModeArg,
    /// Master seed (every row seed derives from it).
    #[arg(long, default_value_t = rigor_validation::DEFAULT_SEED)]
    seed: u64,
    /// Where to write the Markdown (default: docs/VALIDATION.md for `all`, standard output for
    /// `quick`). Figures go to a `validation/` directory beside it.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Repository root (default: found from this crate's location).
    #[arg(long)]
    repo: Option<PathBuf>,
    /// With `history`, `sessions` and `all`: also run Apache Otava's and asv's own packages (installed
    /// from PyPI by scripts/history_peers.py; needs python3 and network access to PyPI).
    #[arg(long)]
    peers: bool,
    /// With `history`: histories per scenario (default: 10); with `events --diagnose`: histories
    /// diagnosed (default: 20); with `reach`: histories with the shift per scenario (default:
    /// 100; three times as many without it).
    #[arg(long)]
    histories: Option<usize>,
    /// With `history` and `reach`: only the scenarios whose name contains this text (e.g.
    /// `lusearch9`).
    #[arg(long)]
    only: Option<String>,
    /// With `events`: instead of the study, why the joint test missed the shift in each history
    /// of one row, `BENCHMARKS,BUILD_SD,SHIFT` (e.g. `20,0.017,0.03`), on standard output.
    #[arg(long)]
    diagnose: Option<String>,
    /// With `sessions`: simulated projects per cell of the grid (default: 50).
    #[arg(long)]
    projects: Option<usize>,
    /// With `metrics`: A/A pairs per program and condition (default: 20).
    #[arg(long)]
    pairs: Option<usize>,
    /// With `sequential`: only the simulation, without the real A/A runs until decided (which
    /// build the release `rigor` and take a few minutes).
    #[arg(long)]
    no_real: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ModeArg {
    /// Every section at full size, and the sessions study.
    All,
    /// Reduced sizes and the checks.
    Quick,
    /// Every section at small sizes, to try the document out (not for publishing).
    Small,
    /// Change detection over simulated version histories, scenario by scenario (each Table 4
    /// noise split and their mix × interference × build variation): writes
    /// docs/validation/history.md (under a minute; 7–19 minutes with `--peers`, most of it in
    /// the peers' Python packages).
    History,
    /// Machine-wide shifts found as one event by the benchmarks' joint test, over the history
    /// study's histories: writes docs/validation/events.md (a few minutes).
    Events,
    /// The joint test's reach (how far a benchmark's own change may lie from a shift and be
    /// taken for it): the shift found as one event, and false events in histories without one,
    /// over the history study's scenarios at each reach: writes docs/validation/reach.md
    /// (about ten minutes).
    Reach,
    /// Comparisons run until decided (anytime-valid confidence sequence), simulated, and real
    /// A/A programs run until decided with the release `rigor`: writes
    /// docs/validation/sequential.md (a few minutes each).
    Sequential,
    /// Only section 1b (intervals on few skewed top-level units), Markdown on standard output
    /// (a few minutes; `all` includes it).
    Skewed,
    /// Only section 1c (coverage split by whether rigor warned, 300 experiments per row),
    /// Markdown on standard output (under a minute).
    Warned,
    /// Change detection when sessions shift what they measure, through `rigor track`'s real
    /// pipeline on simulated projects: writes docs/validation/sessions.md (two to six minutes;
    /// `all` writes it too).
    Sessions,
    /// Wall time and CPU time of real C programs with and without a CPU hog the study starts
    /// and stops itself (one busy loop per core): how far each mean moves, and the A/A false
    /// alarms of each: writes docs/validation/metrics.md (about four minutes; needs gcc).
    Metrics,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut opts = Options::new();
    opts.seed = cli.seed;
    opts.verbose = true;
    if let Some(r) = cli.repo {
        opts.repo = r;
    }
    if let ModeArg::Skewed = cli.mode {
        let n = Sizes::all().skewed;
        let rows = rigor_validation::skewed_rows(cli.seed, n);
        println!("{}", rigor_validation::skewed::section(&rows, n));
        return ExitCode::SUCCESS;
    }
    if let ModeArg::Warned = cli.mode {
        let rows = rigor_validation::warned::rows(cli.seed, 300);
        println!(
            "{}",
            rigor_validation::warned::section(&rows, 300, cli.seed)
        );
        return ExitCode::SUCCESS;
    }
    let sizes = match cli.mode {
        ModeArg::All => Sizes::all(),
        ModeArg::Quick => Sizes::quick(),
        ModeArg::Small => Sizes::small(),
        ModeArg::Skewed | ModeArg::Warned => return ExitCode::SUCCESS,
        ModeArg::Metrics => {
            use rigor_validation::metrics;
            let mut sizes = metrics::StudySizes::full();
            if let Some(p) = cli.pairs {
                sizes.pairs = p.max(1);
            }
            let study = match metrics::study(sizes, cli.seed, metrics::cores(), opts.verbose) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: the metrics study: {e:#}");
                    return ExitCode::from(2);
                }
            };
            let path = cli.out.unwrap_or_else(|| metrics::page(&opts.repo));
            return write_page(&path, metrics::report(&study));
        }
        ModeArg::Sessions => {
            let path = cli
                .out
                .unwrap_or_else(|| rigor_validation::sessions::page(&opts.repo));
            return match write_sessions(&path, &opts, cli.seed, cli.projects, cli.peers) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: writing {}: {e}", path.display());
                    ExitCode::from(2)
                }
            };
        }
        ModeArg::Sequential => {
            let real = if cli.no_real {
                None
            } else {
                match rigor_validation::sequential_real_section(&opts) {
                    Ok(r) => Some(r),
                    Err(e) => {
                        eprintln!("error: real A/A runs until decided: {e:#}");
                        return ExitCode::from(2);
                    }
                }
            };
            let text = rigor_validation::sequential::report(cli.seed, 2_000, real.as_deref());
            let path = cli.out.unwrap_or_else(|| {
                opts.repo
                    .join("docs")
                    .join("validation")
                    .join("sequential.md")
            });
            return write_page(&path, text);
        }
        ModeArg::Events => {
            if let Some(spec) = cli.diagnose {
                let v: Vec<f64> = spec.split(',').filter_map(|x| x.parse().ok()).collect();
                let [benchmarks, build_sd, shift] = v[..] else {
                    eprintln!("--diagnose takes BENCHMARKS,BUILD_SD,SHIFT, e.g. 20,0.017,0.03");
                    return ExitCode::from(2);
                };
                let sizes = rigor_validation::history::HistorySizes {
                    versions: 500,
                    benchmarks: benchmarks as usize,
                    histories: cli.histories.unwrap_or(20),
                };
                print!(
                    "{}",
                    rigor_validation::events::diagnose(sizes, build_sd, shift, cli.seed)
                );
                return ExitCode::SUCCESS;
            }
            let text = rigor_validation::events::report(500, &[20, 5], 20, cli.seed);
            let path = cli
                .out
                .unwrap_or_else(|| opts.repo.join("docs").join("validation").join("events.md"));
            return write_page(&path, text);
        }
        ModeArg::Reach => {
            let mut sizes = rigor_validation::history::HistorySizes::full();
            sizes.histories = cli.histories.unwrap_or(100).max(1);
            let text = rigor_validation::reach::report(
                sizes,
                3 * sizes.histories,
                &[2, 3, 4],
                cli.seed,
                cli.only.as_deref(),
            );
            let path = cli
                .out
                .unwrap_or_else(|| opts.repo.join("docs").join("validation").join("reach.md"));
            return write_page(&path, text);
        }
        ModeArg::History => {
            let script = opts.repo.join("scripts").join("history_peers.py");
            let mut sizes = rigor_validation::history::HistorySizes::full();
            if let Some(h) = cli.histories {
                sizes.histories = h.max(1);
            }
            let text = rigor_validation::history::report(
                sizes,
                cli.seed,
                cli.peers.then_some(script.as_path()),
                cli.only.as_deref(),
            );
            let path = cli
                .out
                .unwrap_or_else(|| opts.repo.join("docs").join("validation").join("history.md"));
            return write_page(&path, text);
        }
    };
    let out = match run(&opts, &sizes) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::from(2);
        }
    };
    let target = match (cli.out, cli.mode) {
        (Some(p), _) => Some(p),
        (None, ModeArg::All) => Some(opts.repo.join("docs").join("VALIDATION.md")),
        (None, _) => None,
    };
    match target {
        Some(path) => {
            if let Err(e) = write(&path, &out.markdown, &out.figures) {
                eprintln!("error: writing {}: {e}", path.display());
                return ExitCode::from(2);
            }
            eprintln!("wrote {}", path.display());
            if let ModeArg::All = cli.mode {
                // The sessions study beside it (two to six minutes): validation/sessions.md.
                let page = path
                    .parent()
                    .unwrap_or(std::path::Path::new("."))
                    .join("validation")
                    .join("sessions.md");
                if let Err(e) = write_sessions(&page, &opts, cli.seed, cli.projects, cli.peers) {
                    eprintln!("error: writing {}: {e}", page.display());
                    return ExitCode::from(2);
                }
            }
        }
        None => println!("{}", out.markdown),
    }
    for p in &out.passed {
        eprintln!("pass: {p}");
    }
    for f in &out.failures {
        eprintln!("FAIL: {f}");
    }
    if out.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Writes a study's page to `path` and says so (exit 2 when it cannot).
fn write_page(path: &std::path::Path, text: String) -> ExitCode {
    match std::fs::write(path, text) {
        Ok(()) => {
            eprintln!("wrote {}", path.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: writing {}: {e}", path.display());
            ExitCode::from(2)
        }
    }
}

/// Runs the sessions study (docs/validation/sessions.md) at the master seed and its second seed
/// and writes its page to `path`.
fn write_sessions(
    path: &std::path::Path,
    opts: &Options,
    seed: u64,
    projects: Option<usize>,
    peers: bool,
) -> std::io::Result<()> {
    use rigor_validation::sessions;
    let script = opts.repo.join("scripts").join("history_peers.py");
    let mut sizes = sessions::StudySizes::full();
    if let Some(p) = projects {
        sizes.projects = p.max(1);
    }
    let text = sessions::report(
        &sizes,
        seed,
        Some(sessions::second_seed(seed)),
        peers.then_some(script.as_path()),
        opts.verbose,
    );
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

fn write(
    path: &std::path::Path,
    markdown: &str,
    figures: &[(String, String)],
) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
        if !figures.is_empty() {
            let figs = dir.join("validation");
            std::fs::create_dir_all(&figs)?;
            for (name, svg) in figures {
                std::fs::write(figs.join(name), svg)?;
            }
        }
    }
    std::fs::write(path, markdown)
}
