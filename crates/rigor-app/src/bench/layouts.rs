//! `rigor bench --builds N`: code layout as the top level ([`link_layouts`], [`layout_seeds`]).
//!
//! The same source linked in another order runs at another speed: loops cross other cache-line
//! and fetch-window boundaries, branches alias others (Mytkowicz et al. 2009; Kalibera & Tůma
//! 2006 make builds a level for this). With one build per side, `rigor bench --against`
//! compared two layouts as much as two versions: a function that did not change came out 22%
//! faster because the changed one before it moved it. Each build here is the bench target
//! linked again with its functions in an order drawn by lld's `--shuffle-sections`, so the
//! builds sample layouts at random and the comparison's interval covers them.

use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rigor_units::Seed;

use super::Result;
use crate::cargo_bench::{self, CargoBenchError, CargoSettings, Selected};

/// The placeholder the runner replaces by a build's index (0-based) in a benchmark's command.
pub const BUILD_PLACEHOLDER: &str = "{build}";

/// The folder name under a target folder's profile folder where the layouts are kept
/// (`target/release/rigor-layouts/SIDE/K/TARGET`; each run replaces them).
pub const LAYOUTS_DIR: &str = "rigor-layouts";

/// Builds of each side `rigor bench --against` links without `--builds`. One build per side
/// called unchanged functions 4–17% faster, decided, in 11 of 25 comparisons on a loaded machine
/// (docs/benchmarks.md). A change of the minimum must also show in the builds' own minima
/// (Mann–Whitney): entirely apart, 4 builds a side give p = 0.029, 5 give 0.0079 (which
/// false-discovery control over six comparisons barely passes), 6 give 0.0022 (twenty-two).
pub const AGAINST_BUILDS: usize = 6;

/// The fewest builds a side `--against` takes (besides 1): a change of the minimum must also
/// show in the builds' own minima, and with 3 a side Mann–Whitney's least p is 0.10 (2 / C(6, 3)),
/// so no verdict could ever be reached — a new user's 16% regression passed `--fail-on
/// regression` with `--builds 3`. With 4 the least p is 0.029.
pub const MIN_AGAINST_BUILDS: usize = 4;

/// Executions per build when `--against` links its default builds and `-r` is not given: the
/// layouts, not the processes, are what varies most between two builds' runs, so the run goes
/// to them (6 × 4 executions a side, against a single build's default 10).
pub const AGAINST_EXECUTIONS_PER_BUILD: usize = 4;

/// The builds (layouts) `rigor bench` links for `request`, `against` another build or not:
/// `--builds N` as given (1: the one build cargo made, unshuffled), else [`AGAINST_BUILDS`] with
/// `--against` in a run of fixed length (with [`AGAINST_EXECUTIONS_PER_BUILD`] executions
/// unless the request counts them), else none. The request is left asking for what is
/// returned.
///
/// # Errors
/// [`CargoBenchError::BuildsAdaptive`] for `--builds` in a run whose length is decided as it
/// goes (`--until-decided`, `--precision`, `--budget`): the layouts are linked before it starts;
/// [`CargoBenchError::NotLld`] for `--builds` where lld did not link the targets (`lld`);
/// [`CargoBenchError::TooFewLayouts`] for 2 or 3 builds a side with `--against`.
pub fn layout_builds(
    request: &mut crate::settings::RunRequest,
    against: bool,
    lld: bool,
) -> Result<Option<usize>> {
    let adaptive = request.until_decided || request.precision.is_some() || request.budget.is_some();
    let builds = match request.builds {
        Some(0 | 1) => None,
        Some(_) if adaptive => return Err(CargoBenchError::BuildsAdaptive),
        Some(_) if !lld => return Err(CargoBenchError::NotLld),
        Some(n) if against && n < MIN_AGAINST_BUILDS => {
            return Err(CargoBenchError::TooFewLayouts {
                builds: n,
                least_p: rigor_stats::compare::mann_whitney_exact_p(0, n, n),
            });
        }
        Some(n) => Some(n),
        None if against && !adaptive && lld => {
            let counted = request.executions.is_some()
                || request.min_runs.is_some()
                || request.max_runs.is_some();
            if !counted {
                request.executions = Some(AGAINST_EXECUTIONS_PER_BUILD);
            }
            Some(AGAINST_BUILDS)
        }
        None => None,
    };
    request.builds = builds;
    Ok(builds)
}

/// Whether every bench target that `selected` come from was linked by lld (its executable's
/// `.comment` section says `Linker: LLD`, as lld writes), which `--shuffle-sections` needs. Read
/// from the executables rather than guessed from the toolchain: a project's own linker settings
/// (`.cargo/config.toml`, `RUSTFLAGS`) decide it.
pub fn lld_linked(selected: &[Selected]) -> bool {
    const MARK: &[u8] = b"Linker: LLD";
    let mut seen: Vec<&Path> = Vec::new();
    selected.iter().all(|s| {
        let exe = s.target.executable.as_path();
        if seen.contains(&exe) {
            return true;
        }
        seen.push(exe);
        std::fs::read(exe).is_ok_and(|bytes| bytes.windows(MARK.len()).any(|w| w == MARK))
    })
}

/// The `--shuffle-sections` seeds of `count` layouts, drawn from the run's `seed`: the same for
/// both sides of `--against`, so that build `k` of each side orders their common functions
/// alike (common random numbers: a function that did not change sits where it sat, unless the
/// change moved it, and the pair's difference is the change's under that layout). lld takes 0
/// for "a random seed" and -1 for "reversed": seeds are drawn from 1 to 2³¹ − 1.
pub fn layout_seeds(seed: Seed, count: usize) -> Vec<u32> {
    // A stream of its own: the run's other draws (interleaving order) are not disturbed.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed.get() ^ 0x6c61_796f_7574_7321);
    (0..count)
        .map(|_| rng.gen_range(1..=(1u32 << 31) - 1))
        .collect()
}

/// Builds each bench target that `selected` come from once per seed (`seeds`, from
/// [`layout_seeds`]), keeps the executables under the target folder
/// (`…/rigor-layouts/SIDE/K/TARGET`), and returns `selected` run from there: each benchmark's
/// executable is `…/SIDE/{build}/TARGET`, which the runner's build `k` makes layout `k`'s.
/// The layouts of a side are replaced whole: a run of fewer builds leaves none of a previous
/// run's behind.
///
/// # Errors
/// What [`cargo_bench::build_layout`] finds; a layout that cannot be moved into place.
fn layouts(
    cargo: &CargoSettings,
    selected: &[Selected],
    seeds: &[u32],
    side: LayoutSide,
) -> Result<(Vec<Selected>, usize, usize)> {
    let targets = targets_of(selected);
    let mut cleared: Vec<PathBuf> = Vec::new();
    let mut templates: Vec<(String, PathBuf)> = Vec::new();
    let mut compilations = 0;
    for t in targets {
        // The profile's folder: the executable is in its `deps`.
        let profile = t
            .executable
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new("."));
        let root = profile.join(LAYOUTS_DIR).join(side.as_str());
        if !cleared.contains(&root) {
            let _ = std::fs::remove_dir_all(&root);
            cleared.push(root.clone());
        }
        let file = t.name.clone();
        let places: Vec<(PathBuf, PathBuf)> = (0..seeds.len())
            .map(|k| {
                let dir = root.join(k.to_string());
                let place = dir.join(&file);
                (dir, place)
            })
            .collect();
        if linked_at_once(cargo, &t.name, &t.dir, &root, seeds, &places) {
            compilations += 1;
        } else {
            compilations += seeds.len();
            for (k, ((dir, place), &seed)) in places.iter().zip(seeds).enumerate() {
                let shuffle = format!("link-arg=-Wl,--shuffle-sections=*={seed}");
                let args = ["-C".to_string(), shuffle];
                let built = cargo_bench::build_layout(cargo, &t.name, &t.dir, &args, k + 1)?;
                keep(&built, dir, place)?;
            }
        }
        templates.push((t.name.clone(), root.join(BUILD_PLACEHOLDER).join(&file)));
    }
    let linked = templates.len() * seeds.len();
    let selected = selected
        .iter()
        .map(|s| {
            let mut s = s.clone();
            if let Some((_, template)) = templates.iter().find(|(n, _)| *n == s.target.name) {
                s.target.executable = template.clone();
            }
            s
        })
        .collect();
    Ok((selected, linked, compilations))
}

/// The layouts of a run, linked by [`link_layouts`].
#[derive(Debug)]
pub struct Linked {
    /// This build's benchmarks, run from their layouts.
    pub here: Vec<Selected>,
    /// The other build's (`--against`), run from theirs.
    pub other: Option<Vec<Selected>>,
    /// Each layout's `--shuffle-sections` seed, build by build (both sides alike).
    pub seeds: Vec<u32>,
    /// Executables linked.
    pub links: usize,
    /// Compilations of bench targets they took: one per target and side when a linker of
    /// rigor's linked all its layouts at once, else one per layout.
    pub compilations: usize,
    /// How long the linking took.
    pub took: rigor_units::Seconds,
}

/// Links `builds` layouts of this build's bench targets (`selected`, built with `cargo`) and of
/// the other build's (`other`: its cargo settings and benchmarks), with the seeds
/// [`layout_seeds`] draws from the run's `seed`.
///
/// # Errors
/// What [`cargo_bench::build_layout`] finds; a layout that cannot be moved into place.
pub fn link_layouts(
    cargo: &CargoSettings,
    selected: &[Selected],
    other: Option<(&CargoSettings, &[Selected])>,
    builds: usize,
    seed: Seed,
) -> Result<Linked> {
    let started = std::time::Instant::now();
    let seeds = layout_seeds(seed, builds);
    let (here, mut links, mut compilations) = layouts(cargo, selected, &seeds, LayoutSide::Here)?;
    let other = match other {
        Some((cargo, other)) => {
            let (other, linked, compiled) = layouts(cargo, other, &seeds, LayoutSide::Against)?;
            links += linked;
            compilations += compiled;
            Some(other)
        }
        None => None,
    };
    Ok(Linked {
        here,
        other,
        seeds,
        links,
        compilations,
        took: rigor_units::Seconds(started.elapsed().as_secs_f64()),
    })
}

/// Which side of a comparison a set of layouts is: each has its own folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutSide {
    /// The build in the working tree.
    Here,
    /// The other build of `--against`.
    Against,
}

impl LayoutSide {
    /// Its folder's name under [`LAYOUTS_DIR`].
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Here => "here",
            Self::Against => "against",
        }
    }
}

/// The builds (layouts) a saved result was measured with: 1 without builds, `None` when it
/// cannot be read (the comparison that reads it says why).
pub fn builds_of(result: &Path) -> Option<usize> {
    let file = crate::saved::load(result, None).ok()?;
    Some(file.settings.and_then(|r| r.builds).unwrap_or(1))
}

/// The bench targets `selected` come from, each once.
fn targets_of(selected: &[Selected]) -> Vec<&cargo_bench::Target> {
    let mut targets: Vec<&cargo_bench::Target> = Vec::new();
    for s in selected {
        if !targets.iter().any(|t| t.name == s.target.name) {
            targets.push(&s.target);
        }
    }
    targets
}

/// Moves the executable `built` to `place` in `dir`: moved, not copied, so that cargo's folder
/// does not fill with a megabyte per layout and run (cargo builds a layout again when its
/// executable is missing, as a reused `--seed` needs), and removes rustc's dependency file
/// beside it (`NAME-HASH.d`, which would name an executable no longer there; cargo keeps its
/// own copy among its fingerprints).
/// Links every layout of bench target `target` from one compilation: cargo builds it once with
/// a linker of rigor's (a POSIX shell script, written into `root`), which runs `cc` with the
/// arguments rustc gives it — once as given, then once per seed with lld's
/// `--shuffle-sections=*=SEED` and the layout's place as the output (the last `-o` is the one
/// that counts). Each `cargo rustc` with the shuffle flag compiled the bench crate anew (the flag
/// is in cargo's fingerprint), a second or so each on a small crate and far more on a large one;
/// this compiles once. `false` (nothing kept) when any step fails — another linker configured,
/// no `cc`, a path the script cannot take — and the caller links one layout per compilation.
fn linked_at_once(
    cargo: &CargoSettings,
    target: &str,
    package: &Path,
    root: &Path,
    seeds: &[u32],
    places: &[(PathBuf, PathBuf)],
) -> bool {
    // A folder of its own per run: cargo's fingerprint holds the linker's path, and the same
    // path would leave the target fresh and nothing linked.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let link = root.join(format!(".link-{}-{nanos}-{target}", std::process::id()));
    let linked = (|| -> Option<()> {
        let mut list = String::new();
        for ((dir, place), seed) in places.iter().zip(seeds) {
            let place = place.to_str().filter(|p| !p.contains(['\n', '\r']))?;
            std::fs::create_dir_all(dir).ok()?;
            list.push_str(&format!("{seed} {place}\n"));
        }
        std::fs::create_dir_all(&link).ok()?;
        std::fs::write(link.join("layouts"), list).ok()?;
        // Named `cc`, so that rustc takes it for a C compiler driver (as it does `cc`).
        let script = link.join("cc");
        std::fs::write(&script, LINK_SCRIPT).ok()?;
        make_executable(&script)?;
        let linker = format!("linker={}", script.to_str()?);
        let built =
            cargo_bench::build_layout(cargo, target, package, &["-C".into(), linker], 1).ok()?;
        // cargo's own output, linked as rustc asked: not a layout.
        let _ = std::fs::remove_file(&built);
        let _ = std::fs::remove_file(built.with_extension("d"));
        places.iter().all(|(_, p)| p.is_file()).then_some(())
    })();
    let _ = std::fs::remove_dir_all(&link);
    if linked.is_none() {
        for (dir, _) in places {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
    linked.is_some()
}

/// The linker [`linked_at_once`] gives cargo: `cc` as rustc asked, then once per line of the
/// `layouts` file beside it (`SEED PATH`).
const LINK_SCRIPT: &str = r#"#!/bin/sh
# Written by rigor bench: links the bench target as rustc asks, then once per code layout.
set -e
cc "$@"
while read -r seed out; do
  cc "$@" "-Wl,--shuffle-sections=*=$seed" -o "$out"
done < "$(dirname "$0")/layouts"
"#;

/// Sets the owner's execute bit (`None` where that fails).
#[cfg(unix)]
fn make_executable(path: &Path) -> Option<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).ok()
}

/// Without Unix permissions there is no shell script to run: the caller links one by one.
#[cfg(not(unix))]
fn make_executable(_: &Path) -> Option<()> {
    None
}

fn keep(built: &Path, dir: &Path, place: &Path) -> Result<()> {
    let fail = |source: std::io::Error| CargoBenchError::KeepLayout {
        path: place.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    if std::fs::rename(built, place).is_err() {
        std::fs::copy(built, place).map_err(fail)?;
        let _ = std::fs::remove_file(built);
    }
    let _ = std::fs::remove_file(built.with_extension("d"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::RunRequest;

    #[test]
    fn against_links_six_layouts_unless_told_otherwise() {
        let builds = |req: &mut RunRequest, against| layout_builds(req, against, true).unwrap();
        // --against alone: six layouts, four executions each.
        let mut r = RunRequest::default();
        assert_eq!(builds(&mut r, true), Some(6));
        assert_eq!((r.builds, r.executions), (Some(6), Some(4)));
        // -r counts the executions per build.
        let mut r = RunRequest {
            executions: Some(9),
            ..RunRequest::default()
        };
        assert_eq!(builds(&mut r, true), Some(6));
        assert_eq!(r.executions, Some(9));
        // --builds 1: cargo's one build; no layouts without --against unless asked for.
        let mut r = RunRequest {
            builds: Some(1),
            ..RunRequest::default()
        };
        assert_eq!(builds(&mut r, true), None);
        assert_eq!((r.builds, r.executions), (None, None));
        assert_eq!(builds(&mut RunRequest::default(), false), None);
        let mut r = RunRequest {
            builds: Some(3),
            ..RunRequest::default()
        };
        assert_eq!(builds(&mut r, false), Some(3));
        // A run decided as it goes keeps one build, and refuses layouts asked for.
        let mut r = RunRequest {
            until_decided: true,
            ..RunRequest::default()
        };
        assert_eq!(builds(&mut r, true), None);
        r.builds = Some(4);
        assert!(matches!(
            layout_builds(&mut r, true, true),
            Err(CargoBenchError::BuildsAdaptive)
        ));
        // 2 or 3 builds a side can never decide a change of the minimum: refused with --against,
        // taken without it (each function's interval across layouts).
        for n in [2, 3] {
            let mut r = RunRequest {
                builds: Some(n),
                ..RunRequest::default()
            };
            let e = layout_builds(&mut r, true, true).unwrap_err().to_string();
            assert!(
                e.contains(&format!("--builds {n}")) && e.contains("least p"),
                "{e}"
            );
            assert_eq!(layout_builds(&mut r, false, true).unwrap(), Some(n));
        }
        let mut r = RunRequest {
            builds: Some(4),
            ..RunRequest::default()
        };
        assert_eq!(builds(&mut r, true), Some(4));
        // Another linker than lld: --against keeps one build (and says so); --builds is refused.
        let mut r = RunRequest::default();
        assert_eq!(layout_builds(&mut r, true, false).unwrap(), None);
        assert_eq!((r.builds, r.executions), (None, None));
        r.builds = Some(3);
        assert!(matches!(
            layout_builds(&mut r, true, false),
            Err(CargoBenchError::NotLld)
        ));
    }

    #[test]
    fn an_executable_linked_by_lld_is_told_by_its_comment() {
        let dir = tempfile::tempdir().unwrap();
        let selected = |name: &str, bytes: &[u8]| {
            let exe = dir.path().join(name);
            std::fs::write(&exe, bytes).unwrap();
            Selected {
                name: name.into(),
                function: name.into(),
                target: cargo_bench::Target {
                    name: name.into(),
                    executable: exe,
                    dir: dir.path().to_path_buf(),
                },
                listed: cargo_bench::Listed::named(name),
            }
        };
        let lld = selected(
            "a",
            b"\x7fELF...rustc version 1.95.0\0Linker: LLD 22.1.2\0GCC: 12",
        );
        let ld = selected(
            "b",
            b"\x7fELF...rustc version 1.95.0\0GCC: (Debian 12.2.0) 12.2.0",
        );
        assert!(lld_linked(std::slice::from_ref(&lld)));
        assert!(!lld_linked(std::slice::from_ref(&ld)));
        assert!(!lld_linked(&[lld.clone(), ld]));
        let mut gone = lld;
        gone.target.executable = dir.path().join("missing");
        assert!(!lld_linked(&[gone]));
    }

    #[test]
    fn seeds_are_reproducible_distinct_and_never_lld_special_values() {
        let a = layout_seeds(Seed(7), 50);
        assert_eq!(a, layout_seeds(Seed(7), 50));
        assert_ne!(a, layout_seeds(Seed(8), 50));
        assert!(a.iter().all(|s| (1..(1 << 31)).contains(s)));
        let mut d = a.clone();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), a.len());
    }
}
