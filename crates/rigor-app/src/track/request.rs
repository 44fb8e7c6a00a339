//! What `rigor track run`, `bisect` and a farm's jobs take, resolved once into the settings of
//! the use cases: which versions (revisions, `--last`, `--since`, a shard), where they come
//! from (a repository's kept checkouts, or a simulated project), and the experiment.

use serde::{Deserialize, Serialize};

use super::*;
use crate::checkouts::{Artifacts, Checkouts};
use crate::settings::{BuildDir, RunRequest, expand};
use crate::simulated_project::SimProject;

/// Which versions to measure.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Selection {
    /// `A..B` (B's first-parent line after A) and single revisions (or a simulated project's
    /// labels, `v3..v9` and `v4`).
    pub revs: Vec<String>,
    /// The last N commits of HEAD's first-parent line (of a simulated project: its last N
    /// versions).
    pub last: Option<usize>,
    /// The commits of HEAD's first-parent line since a date (as git reads it).
    pub since: Option<String>,
}

impl Selection {
    /// The versions selected, oldest first within each part, each once.
    pub fn commits(&self, source: &Source) -> Result<Vec<String>> {
        let mut out: Vec<String> = match source {
            Source::Git(g) => {
                let mut c = git::commits(&g.repo, &self.revs)?;
                if let Some(n) = self.last {
                    c.extend(git::last(&g.repo, "HEAD", n)?);
                }
                if let Some(date) = &self.since {
                    c.extend(git::since(&g.repo, "HEAD", date)?);
                }
                c
            }
            Source::Simulated(p) => {
                let mut c = Vec::new();
                for spec in &self.revs {
                    match spec.split_once("..") {
                        Some((a, b)) => {
                            let a = source.resolve(a)?;
                            let b = source.resolve(b)?;
                            let (a, b) = (
                                p.version_of(&a.rev).unwrap_or(0),
                                p.version_of(&b.rev).unwrap_or(0),
                            );
                            c.extend((a + 1..=b).map(SimProject::label));
                        }
                        None => c.push(source.resolve(spec)?.rev),
                    }
                }
                if let Some(n) = self.last {
                    c.extend((p.versions.saturating_sub(n)..p.versions).map(SimProject::label));
                }
                if self.since.is_some() {
                    return Err(AppError::Track(TrackError::SinceSimulated));
                }
                c
            }
        };
        let mut seen = std::collections::HashSet::new();
        out.retain(|c| seen.insert(c.clone()));
        if out.is_empty() {
            return Err(AppError::Track(TrackError::NoVersions));
        }
        Ok(out)
    }
}

/// Shard `i` of `n` (1-based): every n-th batch (batches balanced as `track run` makes them), so
/// each batch stays whole and the shards together hold every version once.
pub fn shard(commits: &[String], batch: usize, i: usize, n: usize) -> Vec<String> {
    measure::balanced(commits.len(), batch)
        .into_iter()
        .enumerate()
        .filter(|(k, _)| k % n.max(1) == i.saturating_sub(1))
        .flat_map(|(_, r)| commits[r].iter().cloned())
        .collect()
}

/// Why `rigor track COMMAND` has no use for options of `rigor run`, and what to use instead.
fn ignored_why(command: &str) -> &'static str {
    match command {
        "run" => {
            "it stores each version's measurements in the history (the result files are under \
             .rigor/runs/, each labelled with its version); `rigor track changes` lists the \
             changes, gates with --fail-on and writes --markdown, --asciidoc or --orgmode tables"
        }
        "check" => {
            "it prints its verdicts, gates with --fail-on and writes --markdown; the result files \
             of a candidate measured are under .rigor/runs/"
        }
        _ => {
            "it names the first changed version (the result files of what it measured are under \
             .rigor/runs/); `rigor track changes` and `rigor track show` list the history"
        }
    }
}

/// What is wrong with a `track` request.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrackError {
    /// No version was named.
    #[error(
        "no versions to measure: REVS, --last and --since named no commit (give REVS as A..B or \
         revisions, --last N or --since DATE)"
    )]
    NoVersions,
    /// `--until-decided` compares commands, not versions.
    #[error(
        "--until-decided compares commands within one `rigor run` (or `rigor bench`), not versions \
         in a history"
    )]
    UntilDecided,
    /// `track run --precision`/`--budget` with `--runs`: the count is what they adapt.
    #[error(
        "{0} measures each version until its level is known, so it chooses the executions: \
         leave out --runs (-r), or give --min-runs for the pilot and --max-runs for the most"
    )]
    PrecisionWithRuns(&'static str),
    /// `--build` without `--builds` (each version's preparation in its checkout, once) naming
    /// `{build_dir}`, which only builds as a level fill: every version would fail to build with
    /// the placeholder left in.
    #[error(
        "{0} names {{build_dir}}, which only --builds N fills (builds as a level, each in a \
         directory of its own); without --builds the build command runs once in each version's \
         checkout, {{src}}: add --builds N, or build into the checkout (e.g. -o {{src}}/prog, \
         then run {{src}}/prog)"
    )]
    BuildDirWithoutBuilds(&'static str),
    /// `track run --precision`/`--budget` with `--builds`: builds as a level are not adapted.
    #[error(
        "{0} measures each version's executions until its level is known; with --builds the \
         builds are a level, which it does not adapt: leave out --builds or {0}"
    )]
    PrecisionWithBuilds(&'static str),
    /// `track run --precision` with `--plan`: the plan's counts are fixed.
    #[error(
        "--precision with --plan runs the plan's count for that precision, the same for every \
         version; track run measures each version until its level is known only without --plan"
    )]
    PrecisionWithPlan,
    /// A `track` command that measures until decided given `--precision` (or `--budget`, which
    /// it does not take).
    #[error(
        "{option} is not an option of `rigor track {command}`, which measures until each \
         comparison is decided ({bound}); --precision and --budget are `track run`'s"
    )]
    PrecisionNotHere {
        /// The option given.
        option: &'static str,
        /// The subcommand.
        command: &'static str,
        /// What bounds its measuring instead.
        bound: &'static str,
    },
    /// Options of `rigor run` that a `track` command has no use for: each would be ignored.
    #[error(
        "`rigor track {command}` does not take {options}: {}",
        ignored_why(command)
    )]
    IgnoredOptions {
        /// The subcommand.
        command: &'static str,
        /// The options given, as typed, comma-separated.
        options: String,
    },
    /// A simulated project has no dates.
    #[error("a simulated project's versions have no dates: give REVS or --last")]
    SinceSimulated,
    /// `rigor track bisect` follows one metric.
    #[error(
        "a bisection follows one metric; --metric names {0}: bisect once per metric (the builds \
         are kept, so the second bisection measures without building)"
    )]
    BisectMetrics(usize),
    /// The simulated project's specification is wrong.
    #[error(transparent)]
    Project(#[from] crate::simulated_project::BadProject),
    /// `rigor track status` without a change's id shows the job queue, which a file lacks.
    #[error(
        "{}: no job queue (the farm's queue lives in a PostgreSQL history); to set a change's \
         status give its id and the status",
        .0.display()
    )]
    NoJobQueue(PathBuf),
    /// `rigor track status` with a status but no change.
    #[error("give a change's id and its new status")]
    StatusNeedsId,
    /// `rigor track rm` names no runs.
    #[error("give --session ID or --version REV")]
    NoRunsNamed,
    /// The baseline branch of `rigor track check` has no history on the machine.
    #[error(
        "no history of branch '{branch}' on {machine}{}: give --baseline BRANCH",
        if .stored.is_empty() {
            " (nothing is stored for this machine: --machine NAME?)".to_string()
        } else {
            format!(" (stored branches: {})", .stored.join(", "))
        }
    )]
    NoSeries {
        /// The branch.
        branch: String,
        /// The machine.
        machine: String,
        /// The branches stored for the machine.
        stored: Vec<String>,
    },
    /// A metric's stored values cannot be had of a benchmark (its runs report it in different
    /// units).
    #[error(transparent)]
    Metric(#[from] rigor_store::MetricError),
    /// `track check --metric` names several metrics.
    #[error(
        "track check gates on one metric at a time, and --metric names {count} ({names}): run it \
         once per metric"
    )]
    OneMetricAtATime {
        /// How many were named.
        count: usize,
        /// Them, as typed.
        names: String,
    },
    /// `track check --candidate` with a metric other than wall time.
    #[error(
        "track check --candidate compares wall times (both measured together until decided); \
         --metric {0} gates a saved result: rigor track check RESULT.json --metric {0}"
    )]
    CandidateMetric(String),
    /// `--metric` names a metric no stored run of the series recorded.
    #[error("no benchmark on {machine} ({branch}) has {metric} values: {why}")]
    NoMetric {
        /// The metric, as typed.
        metric: String,
        /// The machine.
        machine: String,
        /// The branch.
        branch: String,
        /// Why, in words (the first benchmark's reason, with what would record it).
        why: String,
    },
    /// `rigor track publish --metric` names a metric no stored run of any series recorded.
    #[error(
        "track publish --metric {metric}: no benchmark in the history has {metric} values ({why})"
    )]
    PublishMetric {
        /// The metric, as typed.
        metric: String,
        /// Why, in words (the first benchmark's reason, with what would record it).
        why: String,
    },
    /// `rigor track show` without a benchmark, of a series that holds several (or none).
    #[error("{}", which_benchmark(machine, branch, stored))]
    WhichBenchmark {
        /// The machine.
        machine: String,
        /// The branch.
        branch: String,
        /// The benchmarks the series has.
        stored: Vec<String>,
    },
    /// `rigor track show` names a benchmark without a history.
    #[error(
        "no history of '{benchmark}' on {machine} ({branch}){}",
        stored_list(stored)
    )]
    NoBenchmarkHistory {
        /// The benchmark.
        benchmark: String,
        /// The machine.
        machine: String,
        /// The branch.
        branch: String,
        /// The benchmarks the series has.
        stored: Vec<String>,
    },
    /// `--version` given for several results.
    #[error(
        "--version names the version of one result, and these files are {0} results (only files \
         of a format that measures in one process, such as Google Benchmark's, are read together \
         as one); without --version each file's own version is used"
    )]
    VersionForGroups(usize),
    /// `--version` given for a file of several versions measured together.
    #[error(
        "{files} holds {versions} versions measured together: each is stored as the version it \
         measured, so --version cannot name them"
    )]
    VersionOfSeveral {
        /// The files.
        files: String,
        /// Versions in them.
        versions: usize,
    },
    /// A result in which no benchmark has more than one top-level unit (Google Benchmark
    /// without repetitions): there is no interval to store, so nothing would be tracked.
    #[error(
        "{files}: no benchmark was measured more than once ({level}), so there is no interval to \
         store and nothing to track; measure each several times (Google Benchmark: \
         --benchmark_repetitions=N, or several files of separate runs given together)"
    )]
    NothingToTrack {
        /// The files.
        files: String,
        /// The top level's name.
        level: String,
    },
    /// A result that names no version, without `--version`.
    #[error("{0}: names no version (no label, no commit): give --version")]
    NoVersionNamed(String),
    /// `--since` is no date.
    #[error(transparent)]
    Since(#[from] BadDate),
    /// `--repo-url` is no web address.
    #[error("--repo-url must be a web address (https://…), got '{0}'")]
    RepoUrl(String),
    /// `--group` is no regular expression.
    #[error("--group '{pattern}' is not a regular expression")]
    Group {
        /// The pattern.
        pattern: String,
        /// Why.
        #[source]
        source: regex::Error,
    },
    /// Publishing the dashboard failed.
    #[error("publishing the dashboard to {}", .out.display())]
    Publish {
        /// The site's folder.
        out: PathBuf,
        /// Why.
        #[source]
        source: Box<AppError>,
    },
    /// `--repo` is no folder.
    #[error("--repo {}", .path.display())]
    Repo {
        /// The folder given.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A number of seconds that is not positive.
    #[error("--{option} {value}: give a positive number of seconds")]
    NotSeconds {
        /// The option.
        option: &'static str,
        /// Its value.
        value: f64,
    },
}

/// Everything `track run` (and `bisect`, and a farm's job) takes, before it is checked.
#[derive(Debug, Clone)]
pub struct TrackRequest {
    /// The repository (ignored for a simulated project).
    pub repo: PathBuf,
    /// A simulated project's specification instead of a repository.
    pub project: Option<String>,
    /// The series the versions are stored in.
    pub key: SeriesKey,
    /// Measure versions already stored again.
    pub force: bool,
    /// Versions measured together (balanced batches).
    pub batch: usize,
    /// Stored versions measured again in every session.
    pub anchors: usize,
    /// Files (relative to a checkout) whose hash tells identical builds; empty: the benchmarked
    /// program when it is a file in the checkout.
    pub artifacts: Vec<PathBuf>,
    /// Where built checkouts are kept.
    pub checkouts: PathBuf,
    /// How many built checkouts are kept.
    pub keep: usize,
    /// Where result files go (beside `--export-json` when it is given).
    pub results_dir: PathBuf,
    /// What the sessions are.
    pub kind: rigor_history::SessionKind,
    /// The experiment.
    pub run: RunRequest,
}

/// A resolved `track` request.
#[derive(Debug)]
pub struct ResolvedTrack {
    /// The use case's settings (without the versions: see [`Selection::commits`]).
    pub settings: TrackRunSettings,
    /// The experiment each batch is made from.
    pub experiment: RunSettings,
    /// The experiment's temporary build folder (removed when dropped).
    pub build_dir: BuildDir,
    /// What the resolution wants said.
    pub notes: Vec<rigor_report::notes::Note>,
}

impl TrackRequest {
    /// Checks and resolves the request: `--build CMD` without `--builds` becomes each version's
    /// preparation in its kept checkout (not a level), a simulated project replaces the
    /// repository and makes the commands simulated, `--until-decided` is refused, and
    /// `--precision`/`--budget` measure each version until its level is known
    /// ([`crate::settings::Mode::UntilKnown`]; with `--runs`, `--builds` or `--plan` refused).
    pub fn resolve(self) -> Result<ResolvedTrack> {
        let mut run = self.run;
        if run.until_decided {
            return Err(AppError::Track(TrackError::UntilDecided));
        }
        let project = self
            .project
            .as_deref()
            .map(SimProject::parse)
            .transpose()
            .map_err(TrackError::from)?;
        if run.builds.is_none() && project.is_none() {
            let named = |text: &str| text.contains("{build_dir}");
            if run.build.as_deref().is_some_and(named) {
                return Err(TrackError::BuildDirWithoutBuilds("the --build command").into());
            }
            if run.build.is_some() && run.commands.iter().any(|c| named(c)) {
                return Err(TrackError::BuildDirWithoutBuilds("a benchmarked command").into());
            }
        }
        let prepare = match (&run.build, run.builds) {
            (Some(cmd), None) if project.is_none() => {
                let (shell, _, _) =
                    expand::shell(run.shell.as_deref(), &run.commands, run.shell_attached);
                let (c, _) = shell.parse(cmd)?;
                run.build = None;
                Some(c)
            }
            _ => None,
        };
        if project.is_some() {
            run.simulate = true;
        }
        let results_dir = run
            .exports
            .json
            .as_ref()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| self.results_dir.clone());
        // The folder of `--export-json` is where the result files go; its name is said unused.
        let export_note = run.exports.json.as_ref().and_then(|p| {
            Some(rigor_report::notes::Note::ExportFolder {
                folder: results_dir.clone(),
                name: p.file_name()?.to_string_lossy().into_owned(),
            })
        });
        check_until_known(&run)?;
        let mut resolved = run.resolve()?;
        resolved.notes.extend(export_note);
        let mut experiment = resolved.settings;
        if let crate::settings::Mode::Adaptive {
            precision,
            budget,
            max_units,
            min_units,
        } = experiment.mode
        {
            // Each (version, benchmark) measured until its level is known, as the history will
            // store it; not the adaptive run's plan of the whole batch.
            experiment.set_mode(crate::settings::Mode::UntilKnown {
                precision,
                budget,
                min_units: min_units.unwrap_or(rigor_runner::PilotSettings::adaptive().executions),
                max_units,
            });
        }
        if let Some(aims) = crate::run::until_known(&experiment) {
            aims.validate().map_err(rigor_runner::RunError::from)?;
        }
        let source = match project {
            Some(p) => Source::Simulated(p),
            None => {
                git::check_repository(&self.repo)?;
                let repo = self.repo.canonicalize().map_err(|source| AppError::Write {
                    what: "the repository",
                    source: rigor_store::StoreError::Io {
                        path: self.repo.clone(),
                        source,
                    },
                })?;
                let artifacts = if self.artifacts.is_empty() {
                    experiment
                        .benchmarks
                        .first()
                        .map_or(Artifacts::None, |b| Artifacts::Program(b.command.clone()))
                } else {
                    Artifacts::Paths(self.artifacts.clone())
                };
                Source::Git(GitSource {
                    checkouts: Checkouts::open(&repo, &self.checkouts, self.keep)?,
                    repo,
                    prepare,
                    artifacts,
                })
            }
        };
        Ok(ResolvedTrack {
            settings: TrackRunSettings {
                source,
                commits: Vec::new(),
                force: self.force,
                results_dir,
                version_files: false,
                key: self.key,
                batch: self.batch,
                anchors: self.anchors,
                kind: self.kind,
            },
            experiment,
            build_dir: resolved.build_dir,
            notes: resolved.notes,
        })
    }
}

/// Refuses what `--precision`/`--budget` cannot work with in a `track` run (a farm job's too):
/// `--runs`, which they choose; `--builds` as a level, which they do not adapt; `--plan`, whose
/// counts are fixed.
pub(crate) fn check_until_known(run: &RunRequest) -> Result<()> {
    let option = match (run.precision, run.budget) {
        (Some(_), _) => "--precision",
        (None, Some(_)) => "--budget",
        (None, None) => return Ok(()),
    };
    let refused = if run.executions.is_some() {
        TrackError::PrecisionWithRuns(option)
    } else if run.build.is_some() && run.builds.is_some() {
        TrackError::PrecisionWithBuilds(option)
    } else if run.plan.is_some() {
        TrackError::PrecisionWithPlan
    } else {
        return Ok(());
    };
    Err(AppError::Track(refused))
}

/// The benchmarks a series stores, as an error lists them (the first ten).
/// [`TrackError::WhichBenchmark`]'s message.
fn which_benchmark(machine: &str, branch: &str, stored: &[String]) -> String {
    if stored.is_empty() {
        format!(
            "track show: the history stores no benchmark on {machine} ({branch}) (measured on \
             another machine or branch? --machine, --branch)"
        )
    } else {
        format!(
            "track show needs the benchmark to show: the history on {machine} ({branch}) holds \
             {}{}",
            stored.len(),
            stored_list(stored)
        )
    }
}

fn stored_list(stored: &[String]) -> String {
    if stored.is_empty() {
        return "; it stores no benchmark".to_string();
    }
    let mut names: Vec<String> = stored.iter().take(10).map(|b| format!("'{b}'")).collect();
    if stored.len() > 10 {
        names.push(format!("and {} more", stored.len() - 10));
    }
    format!("; stored benchmarks: {}", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_keep_balanced_batches_whole() {
        let commits: Vec<String> = (0..22).map(|i| format!("c{i}")).collect();
        // Batches of 20 are 11 and 11: shard 1 of 2 is the first 11, shard 2 the other 11.
        assert_eq!(shard(&commits, 20, 1, 2), commits[..11].to_vec());
        assert_eq!(shard(&commits, 20, 2, 2), commits[11..].to_vec());
        let all: Vec<String> = (1..=3).flat_map(|i| shard(&commits, 4, i, 3)).collect();
        assert_eq!(all.len(), 22);
    }

    #[test]
    fn a_simulated_projects_versions_are_selected_by_label() {
        let p = SimProject::parse("versions=10").unwrap();
        let source = Source::Simulated(p);
        let pick = |revs: &[&str], last| {
            Selection {
                revs: revs.iter().map(|s| s.to_string()).collect(),
                last,
                since: None,
            }
            .commits(&source)
        };
        assert_eq!(pick(&["v2..v4"], None).unwrap(), vec!["v3", "v4"]);
        assert_eq!(pick(&["v9"], Some(3)).unwrap(), vec!["v9", "v8", "v10"]);
        assert!(pick(&["v11"], None).is_err());
        assert!(pick(&[], None).is_err());
    }
}
