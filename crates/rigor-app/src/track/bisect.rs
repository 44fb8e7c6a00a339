//! Finding the first version that changed a benchmark (`rigor track bisect`): a binary search
//! that cannot wander. Each commit is built once (kept checkouts, shared with `track run`); the
//! two ends are measured together until it is decided whether they differ; each midpoint is
//! measured interleaved with the range's two ends and classified by which end it resembles —
//! the sign of `ln(mid/lo) − ½·ln(hi/lo)`, paired by round, decided by an anytime-valid
//! confidence sequence — measuring more rounds until it is decided; a midpoint whose build is
//! byte-identical to an end's is that end without measuring; one that fails to build is skipped
//! for the nearest version that builds (as `git bisect skip`). When a midpoint cannot be placed
//! within the budget, or every version left between the ends failed to build, the search ends
//! with the range it has narrowed, never naming a commit whose own comparison is undecided.

use std::collections::HashMap;

use rand::SeedableRng;
use rigor_history::{NewSession, Role, SessionEnd, SessionKind};
use rigor_stats::confseq::{SequentialConfig, look};
use rigor_units::Quantity;

use super::*;
use crate::checkouts::CheckoutFailure;

/// Which end of the range a midpoint resembles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The good end (the change is after it).
    Good,
    /// The bad end (the change is at it or before).
    Bad,
}

/// How a midpoint was placed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Placed {
    /// Its build is byte-identical to this end's: placed without measuring.
    Identical(Side),
    /// Measured: on this side of the half-way point of the ends' difference (`position`: 0 at
    /// the good end, 1 at the bad end), decided after `rounds` rounds.
    Measured {
        /// The side.
        side: Side,
        /// Where it lies between the ends.
        position: f64,
        /// Rounds measured.
        rounds: usize,
    },
    /// Not decided within the budget (`position` as measured).
    Undecided {
        /// Where it lies between the ends.
        position: f64,
        /// Rounds measured.
        rounds: usize,
    },
}

/// One step of a bisection.
#[derive(Debug, Clone)]
pub struct BisectStep {
    /// The range's good end, the midpoint and the bad end.
    pub measured: [VersionInfo; 3],
    /// Where the midpoint was placed.
    pub placed: Placed,
}

impl BisectStep {
    /// What the terminal shows of it.
    pub fn view(&self) -> rigor_report::track_run::BisectStepView {
        let side = |s: Side| match s {
            Side::Good => "good",
            Side::Bad => "bad",
        };
        let (side, identical, position, rounds) = match self.placed {
            Placed::Identical(s) => (Some(side(s)), true, None, 0),
            Placed::Measured {
                side: s,
                position,
                rounds,
            } => (Some(side(s)), false, Some(position), rounds),
            Placed::Undecided { position, rounds } => (None, false, Some(position), rounds),
        };
        rigor_report::track_run::BisectStepView {
            revs: self.measured.clone().map(|v| v.rev),
            side,
            identical,
            position,
            rounds,
        }
    }
}

/// What a bisection found.
#[derive(Debug, Clone)]
pub enum BisectOutcome {
    /// The last good and the first changed version.
    Found {
        /// The last version before the change.
        before: Box<VersionInfo>,
        /// The first version with it.
        first: Box<VersionInfo>,
        /// The ends' difference (bad / good), measured together.
        ends: Ratio,
    },
    /// The change lies between these two versions, but a midpoint could not be placed within
    /// the budget: measure the versions between them with `rigor track run`, or bisect again
    /// with more rounds.
    Between {
        /// The last version known to be like the good end.
        good: Box<VersionInfo>,
        /// The first version known to be like the bad end.
        bad: Box<VersionInfo>,
        /// The ends' difference.
        ends: Ratio,
        /// The versions between them that failed to build (skipped, as `git bisect skip`
        /// skips them): when every version between them did, that is why no midpoint could be
        /// placed.
        unbuilt: Vec<VersionInfo>,
    },
    /// The two ends do not differ beyond the threshold (or could not be told apart, when the
    /// verdict is inconclusive), or their builds are identical.
    NoChange {
        /// The ends' ratio (`None` when their builds are identical).
        ends: Option<Ratio>,
    },
    /// Stopped (Ctrl-C) or a version could not be measured.
    Stopped(String),
}

/// What a bisection did besides its outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BisectCost {
    /// Versions in the range (good and bad included).
    pub versions: usize,
    /// Comparisons measured (the ends, and each midpoint measured).
    pub comparisons: usize,
    /// Versions built (prepared), each at most once.
    pub built: usize,
    /// Versions whose build (or checkout) failed.
    pub failed: usize,
}

/// Hears about each step of a bisection.
pub trait BisectObserver {
    /// The ends were measured.
    fn ends(&mut self, _good: &VersionInfo, _bad: &VersionInfo, _ends: &Ratio) {}
    /// A step is done.
    fn step(&mut self, _step: &BisectStep) {}
    /// A midpoint failed to build (`why`) and is skipped.
    fn skipped(&mut self, _version: &VersionInfo, _why: &str) {}
}

/// How long a bisection measures each comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct BisectSettings {
    /// Rounds measured at a time (each round runs every version once, in random order).
    pub chunk: usize,
    /// The most rounds a comparison may take before it is given up as undecided.
    pub max_rounds: usize,
    /// Practical threshold of the ends' difference.
    pub threshold: Fraction,
    /// Error rate of each decision (its confidence sequence).
    pub alpha: f64,
    /// The metric followed (each round's mean of it, by version).
    pub metric: Metric,
}

impl Default for BisectSettings {
    fn default() -> Self {
        Self {
            chunk: 10,
            max_rounds: 60,
            threshold: Fraction::percent(1.0).unwrap_or_default(),
            alpha: 0.05,
            metric: Metric::Wall,
        }
    }
}

/// The versions between `good` and `bad` (both included), oldest first.
pub(super) fn chain(source: &Source, good: &str, bad: &str) -> Result<Vec<VersionInfo>> {
    let not_ancestor = || AppError::NotAnAncestor {
        good: good.to_string(),
        bad: bad.to_string(),
    };
    let revs: Vec<String> = match source {
        Source::Git(g) => {
            let mut c = vec![git::resolve(&g.repo, good)?.rev];
            c.extend(git::commits(&g.repo, &[format!("{good}..{bad}")])?);
            // GOOD must be on BAD's first-parent line: else `good..bad` lists a side branch's
            // commits from the merge base on, which do not lie between the ends (a bisection
            // named "the versions between" commits of another line).
            if c.get(1)
                .is_some_and(|oldest| git::first_parent(&g.repo, oldest).as_ref() != Some(&c[0]))
            {
                return Err(not_ancestor());
            }
            c
        }
        Source::Simulated(p) => {
            let (a, b) = (source.resolve(good)?, source.resolve(bad)?);
            let (a, b) = (
                p.version_of(&a.rev).unwrap_or(0),
                p.version_of(&b.rev).unwrap_or(0),
            );
            if a >= b {
                return Err(not_ancestor());
            }
            (a..=b)
                .map(crate::simulated_project::SimProject::label)
                .collect()
        }
    };
    if revs.len() < 2 {
        return Err(not_ancestor());
    }
    revs.iter().map(|r| source.resolve(r)).collect()
}

/// Each round's mean of the first benchmark's top-level units, by version (rounds pair the
/// versions measured together).
fn round_means(result: &ResultFile, rev: &str) -> HashMap<usize, f64> {
    let mut sums: HashMap<usize, (f64, usize)> = HashMap::new();
    if let Some(b) = result
        .benchmarks
        .iter()
        .find(|b| b.version.as_deref() == Some(rev))
    {
        for s in b.samples.iter().filter(|s| !s.warmup) {
            let e = sums.entry(s.round).or_insert((0.0, 0));
            e.0 += s.value;
            e.1 += 1;
        }
    }
    sums.into_iter()
        .filter(|(_, (_, n))| *n > 0)
        .map(|(r, (sum, n))| (r, sum / n as f64))
        .collect()
}

/// Per-round log ratios `ln(a/b)` over the rounds both measured.
fn log_ratios(a: &HashMap<usize, f64>, b: &HashMap<usize, f64>) -> Vec<(usize, f64)> {
    let mut out: Vec<(usize, f64)> = a
        .iter()
        .filter_map(|(r, x)| {
            let y = b.get(r)?;
            (*x > 0.0 && *y > 0.0).then(|| (*r, (x / y).ln()))
        })
        .collect();
    out.sort_by_key(|(r, _)| *r);
    out
}

/// What a bisection carries from step to step.
struct Bisection<'a, 'h> {
    history: &'h mut dyn HistoryWrite,
    m: Measuring<'a>,
    machine: MachineInfo,
    settings: BisectSettings,
    ready: HashMap<String, Ready>,
    cost: BisectCost,
    /// The quantity of the followed metric's values (known once measured).
    quantity: Quantity,
}

impl Bisection<'_, '_> {
    /// A version prepared once for the whole bisection.
    fn prepare(&mut self, v: &VersionInfo) -> std::result::Result<Ready, CheckoutFailure> {
        if let Some(r) = self.ready.get(&v.rev) {
            return Ok(r.clone());
        }
        let r = self
            .m
            .settings
            .source
            .prepare(v, Role::New, &self.m.stop)
            .inspect_err(|_| self.cost.failed += 1)?;
        self.cost.built += 1;
        self.ready.insert(v.rev.clone(), r.clone());
        Ok(r)
    }

    /// Measures `versions` together in one session, chunk after chunk, until `decided` says
    /// the per-round log ratios (of each later version against the first) decide, or the budget
    /// is spent: the per-round log ratios of each later version against the first.
    fn measure(
        &mut self,
        versions: &[Ready],
        decided: &dyn Fn(&[Vec<f64>]) -> bool,
    ) -> Result<std::result::Result<Vec<Vec<f64>>, String>> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.m.experiment.runner.seed.get());
        let facts = self.m.settings.source.session(&mut rng);
        let session = self.history.begin_session(&NewSession {
            machine: &self.machine,
            kind: SessionKind::Bisect,
            started: jiff::Timestamp::now(),
            load_before: facts.load_before,
            rigor_version: env!("CARGO_PKG_VERSION"),
        })?;
        let mut experiment = self.m.experiment.clone();
        experiment.runner.executions = self.settings.chunk.max(2);
        experiment.set_mode(crate::settings::Mode::Fixed);
        let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); versions.len() - 1];
        let mut chunk = 0;
        let outcome = loop {
            if self.m.stop.is_requested() {
                break Err("stopped".to_string());
            }
            // Each chunk's rounds in an order of their own.
            experiment.runner.seed =
                rigor_units::Seed(self.m.experiment.runner.seed.get() + chunk as u64);
            let mut m = Measuring::new(
                self.m.settings,
                &experiment,
                &mut *self.m.executor,
                self.m.stop.clone(),
                &mut *self.m.progress,
                &mut *self.m.observer,
            );
            let measured = measure_together(
                self.history,
                &mut m,
                versions,
                &self.machine,
                session,
                &facts,
                false,
            )?;
            if let Some(why) = measured.outcomes.iter().find_map(|o| match o {
                VersionOutcome::Failed { reason, .. } => Some(reason.clone()),
                VersionOutcome::Measured { outcome, .. } if *outcome == Outcome::Interrupted => {
                    Some("stopped".to_string())
                }
                VersionOutcome::Measured { nothing, .. } if !nothing.is_empty() => {
                    Some(format!("{} measured nothing", nothing.join(", ")))
                }
                _ => None,
            }) {
                break Err(why);
            }
            let file = settings_file(&measured);
            let result = match file.as_deref().map(rigor_store::load) {
                Some(Ok(r)) => r,
                _ => break Err("the measurement's result could not be read back".into()),
            };
            // The followed metric's values in place of the samples (wall time: unchanged).
            let result = match result.for_metric(&self.settings.metric) {
                Ok(r) => r,
                Err(e) => break Err(e.to_string()),
            };
            if let Some(m) = result.benchmarks.first().and_then(|b| b.metric.as_ref()) {
                self.quantity = m.quantity.clone();
            }
            let first = round_means(&result, &versions[0].version.rev);
            for (k, v) in versions.iter().skip(1).enumerate() {
                let later = round_means(&result, &v.version.rev);
                ratios[k].extend(log_ratios(&later, &first).into_iter().map(|(_, x)| x));
            }
            chunk += 1;
            let rounds = ratios.first().map_or(0, Vec::len);
            if decided(&ratios) || rounds >= self.settings.max_rounds {
                break Ok(ratios);
            }
        };
        self.history.end_session(
            session,
            &SessionEnd {
                ended: jiff::Timestamp::now(),
                load_after: self.m.settings.source.load_after(&facts),
            },
        )?;
        Ok(outcome)
    }

    fn config(&self, threshold: f64) -> SequentialConfig {
        SequentialConfig {
            alpha: self.settings.alpha,
            threshold,
            ..SequentialConfig::default()
        }
    }
}

/// The result file a measurement wrote.
fn settings_file(m: &Measurement) -> Option<PathBuf> {
    m.outcomes.iter().find_map(|o| match o {
        VersionOutcome::Measured { file, .. } => Some(file.clone()),
        _ => None,
    })
}

/// Finds the first version between `good` (excluded) and `bad` whose benchmark differs from
/// `good` (see the module documentation). Uses the experiment's first command; every measured
/// version is stored in the history, each step a session of its own. Returns the quantity of
/// the followed metric's values beside the outcome and its cost.
#[allow(clippy::too_many_arguments)]
pub fn bisect(
    history: &mut dyn HistoryWrite,
    settings: &TrackRunSettings,
    good: &str,
    bad: &str,
    experiment: &RunSettings,
    bisection: &BisectSettings,
    executor: &mut dyn Executor,
    stop: StopSignal,
    progress: &mut dyn Progress,
    observer: &mut dyn BisectObserver,
) -> Result<(BisectOutcome, BisectCost, Quantity)> {
    let chain = chain(&settings.source, good, bad)?;
    let mut first_only = experiment.clone();
    first_only.benchmarks.truncate(1);
    first_only.commands.truncate(1);
    first_only.parameters.truncate(1);
    let mut quiet = NoObserver;
    let mut b = Bisection {
        history,
        m: Measuring::new(settings, &first_only, executor, stop, progress, &mut quiet),
        machine: this_machine(Some(&settings.key.machine)),
        settings: bisection.clone(),
        ready: HashMap::new(),
        cost: BisectCost {
            versions: chain.len(),
            ..BisectCost::default()
        },
        quantity: Quantity::Time,
    };
    let outcome = search(&mut b, &chain, observer)?;
    Ok((outcome, b.cost, b.quantity))
}

fn search(
    b: &mut Bisection<'_, '_>,
    chain: &[VersionInfo],
    observer: &mut dyn BisectObserver,
) -> Result<BisectOutcome> {
    let (mut lo, mut hi) = (0, chain.len() - 1);
    let prepared =
        |b: &mut Bisection<'_, '_>, i: usize| -> Result<std::result::Result<Ready, String>> {
            Ok(b.prepare(&chain[i])
                .map_err(|e| format!("{}: {e}", short(&chain[i].rev))))
        };
    let good = match prepared(b, lo)? {
        Ok(r) => r,
        Err(why) => return Ok(BisectOutcome::Stopped(why)),
    };
    let bad = match prepared(b, hi)? {
        Ok(r) => r,
        Err(why) => return Ok(BisectOutcome::Stopped(why)),
    };
    if good.artifact.is_some() && good.artifact == bad.artifact {
        return Ok(BisectOutcome::NoChange { ends: None });
    }
    // The ends: until their difference is decided (a change, or equivalence).
    let cfg = b.config(b.settings.threshold.get());
    b.cost.comparisons += 1;
    let ends = match b.measure(&[good.clone(), bad.clone()], &|r| {
        look(&r[0], &cfg).is_ok_and(|l| l.decided())
    })? {
        Ok(r) => r,
        Err(why) => return Ok(BisectOutcome::Stopped(why)),
    };
    let l = look(&ends[0], &cfg).map_err(|source| AppError::Compare {
        candidate: chain[hi].rev.clone(),
        baseline: chain[lo].rev.clone(),
        source,
    })?;
    let ends_ratio = Ratio {
        ratio: l.ratio,
        interval: l.upper.is_finite().then_some((l.lower, l.upper)),
        verdict: l.verdict,
        at_resolution: false,
        spent: None,
    };
    observer.ends(&chain[lo], &chain[hi], &ends_ratio);
    if !l.verdict.is_change() {
        return Ok(BisectOutcome::NoChange {
            ends: Some(ends_ratio),
        });
    }
    let direction = l.ratio.ln().signum();
    // Halving: the midpoint against the range's current ends. A midpoint that fails to build is
    // skipped for the next nearest to the middle (as `git bisect skip`); with every version
    // between the ends skipped, the search ends with the range.
    let half = b.config(0.0);
    let mut unbuilt: Vec<usize> = Vec::new();
    while hi - lo > 1 {
        let Some(mid) = midpoint(lo, hi, &unbuilt) else {
            return Ok(BisectOutcome::Between {
                good: Box::new(chain[lo].clone()),
                bad: Box::new(chain[hi].clone()),
                ends: ends_ratio,
                unbuilt: (lo + 1..hi).map(|i| chain[i].clone()).collect(),
            });
        };
        let (lo_r, hi_r) = match (prepared(b, lo)?, prepared(b, hi)?) {
            (Ok(a), Ok(c)) => (a, c),
            (Err(why), _) | (_, Err(why)) => return Ok(BisectOutcome::Stopped(why)),
        };
        let mid_r = match prepared(b, mid)? {
            Ok(r) => r,
            Err(why) if b.m.stop.is_requested() => return Ok(BisectOutcome::Stopped(why)),
            Err(why) => {
                let prefix = format!("{}: ", short(&chain[mid].rev));
                observer.skipped(&chain[mid], why.strip_prefix(&prefix).unwrap_or(&why));
                unbuilt.push(mid);
                continue;
            }
        };
        let placed = if mid_r.artifact.is_some() && mid_r.artifact == lo_r.artifact {
            Placed::Identical(Side::Good)
        } else if mid_r.artifact.is_some() && mid_r.artifact == hi_r.artifact {
            Placed::Identical(Side::Bad)
        } else {
            b.cost.comparisons += 1;
            // c = ln(mid/lo) − ½·ln(hi/lo), oriented so that positive is toward the bad end.
            let contrast = |r: &[Vec<f64>]| -> Vec<f64> {
                r[0].iter()
                    .zip(&r[1])
                    .map(|(m, h)| direction * (m - 0.5 * h))
                    .collect()
            };
            let ratios = match b.measure(&[lo_r, mid_r, hi_r], &|r| {
                look(&contrast(r), &half).is_ok_and(|l| l.lower > 1.0 || l.upper < 1.0)
            })? {
                Ok(r) => r,
                Err(why) => return Ok(BisectOutcome::Stopped(why)),
            };
            let c = contrast(&ratios);
            let rounds = c.len();
            let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len().max(1) as f64;
            let effect = mean(&ratios[1]);
            let position = if effect != 0.0 {
                mean(&ratios[0]) / effect
            } else {
                0.5
            };
            match look(&c, &half) {
                Ok(l) if l.lower > 1.0 => Placed::Measured {
                    side: Side::Bad,
                    position,
                    rounds,
                },
                Ok(l) if l.upper < 1.0 => Placed::Measured {
                    side: Side::Good,
                    position,
                    rounds,
                },
                _ => Placed::Undecided { position, rounds },
            }
        };
        observer.step(&BisectStep {
            measured: [chain[lo].clone(), chain[mid].clone(), chain[hi].clone()],
            placed,
        });
        match placed {
            Placed::Identical(Side::Good)
            | Placed::Measured {
                side: Side::Good, ..
            } => lo = mid,
            Placed::Identical(Side::Bad)
            | Placed::Measured {
                side: Side::Bad, ..
            } => hi = mid,
            Placed::Undecided { .. } => {
                return Ok(BisectOutcome::Between {
                    good: Box::new(chain[lo].clone()),
                    bad: Box::new(chain[hi].clone()),
                    ends: ends_ratio,
                    unbuilt: Vec::new(),
                });
            }
        }
    }
    Ok(BisectOutcome::Found {
        before: Box::new(chain[lo].clone()),
        first: Box::new(chain[hi].clone()),
        ends: ends_ratio,
    })
}

/// The version strictly between `lo` and `hi` nearest to their middle that is not `skipped`
/// (the lower of two as near); `None` when every one is.
fn midpoint(lo: usize, hi: usize, skipped: &[usize]) -> Option<usize> {
    let middle = lo + (hi - lo) / 2;
    (lo + 1..hi)
        .filter(|i| !skipped.contains(i))
        .min_by_key(|&i| (i.abs_diff(middle), i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skipped_midpoint_gives_way_to_the_nearest_other() {
        assert_eq!(midpoint(0, 8, &[]), Some(4));
        assert_eq!(midpoint(0, 8, &[4]), Some(3));
        assert_eq!(midpoint(0, 8, &[4, 3]), Some(5));
        assert_eq!(midpoint(2, 4, &[3]), None);
        assert_eq!(midpoint(0, 1, &[]), None);
    }
}
