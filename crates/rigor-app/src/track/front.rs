//! What a front end lends the `track` use cases that measure ([`track_run`], [`bisect_run`],
//! [`check_run`]) or go result by result ([`add_files`]): executors, a progress display per
//! measuring phase, and an ear for the typed lines ([`Line`]) they say as they go.

use rigor_report::track_lines::Line;
use rigor_runner::RunError;
use rigor_units::Seed;

use super::*;

/// Makes the executors measuring uses: what a front end of the `track` use cases ([`Front`])
/// and a farm's worker ([`JobRunner`](crate::farm::JobRunner)) both provide.
pub trait Executors {
    /// The executor of one measuring phase (real processes measured as `measures` says, or the
    /// simulator), and the signal that stops it.
    fn executor(
        &mut self,
        simulate: bool,
        seed: Seed,
        measures: &rigor_runner::Measures,
    ) -> std::result::Result<(StopSignal, Box<dyn Executor>), RunError>;
}

/// A front end of the `track` use cases.
pub trait Front: Executors {
    /// A progress display for one measuring phase (dropped when the phase ends).
    fn progress(&mut self) -> Box<dyn Progress>;
    /// Says a line as it happens ([`Line::is_output`]: the command's output, not a note).
    fn say(&mut self, line: Line);
}

/// The observer of measuring and bisecting that says what happens through a [`Front`].
pub(super) struct Saying<'a>(pub(super) &'a mut dyn Front);

impl TrackObserver for Saying<'_> {
    fn batch_started(
        &mut self,
        versions: &[VersionInfo],
        anchors: &[VersionInfo],
        done: usize,
        total: usize,
    ) {
        let revs = |l: &[VersionInfo]| l.iter().map(|v| v.rev.clone()).collect();
        self.0.say(Line::Batch {
            versions: revs(versions),
            anchors: revs(anchors),
            done,
            total,
        });
    }
    fn skipped(&mut self, stored: &[VersionInfo], failed_before: &[VersionInfo]) {
        let revs = |v: &[VersionInfo]| v.iter().map(|v| v.rev.clone()).collect::<Vec<_>>();
        if !stored.is_empty() {
            self.0.say(Line::Skipped(revs(stored)));
        }
        if !failed_before.is_empty() {
            self.0.say(Line::SkippedFailed(revs(failed_before)));
        }
    }
    fn version_done(&mut self, v: &VersionInfo, outcome: &VersionOutcome) {
        let rev = v.rev.clone();
        match outcome {
            VersionOutcome::Skipped {
                failed_before: false,
            } => self.0.say(Line::Skipped(vec![rev])),
            VersionOutcome::Skipped {
                failed_before: true,
            } => self.0.say(Line::SkippedFailed(vec![rev])),
            VersionOutcome::Failed { reason, .. } => self.0.say(Line::VersionFailed {
                rev,
                reason: reason.clone(),
            }),
            VersionOutcome::Measured { stored: false, .. } => {}
            VersionOutcome::Measured { nothing, .. } if !nothing.is_empty() => {
                self.0.say(Line::MeasuredNothing {
                    rev,
                    benchmarks: nothing.clone(),
                });
            }
            VersionOutcome::Measured { .. } => {}
        }
    }
    fn session_done(&mut self, s: &SessionReport) {
        self.0.say(Line::Session(s.view()));
    }
}

impl BisectObserver for Saying<'_> {
    fn ends(&mut self, good: &VersionInfo, bad: &VersionInfo, r: &Ratio) {
        self.0.say(Line::BisectEnds {
            good: good.rev.clone(),
            bad: bad.rev.clone(),
            ratio: r.ratio,
            interval: r.interval,
            verdict: r.verdict.to_string(),
        });
    }
    fn step(&mut self, step: &BisectStep) {
        self.0.say(Line::BisectStep(step.view()));
    }
    fn skipped(&mut self, version: &VersionInfo, why: &str) {
        self.0.say(Line::BisectSkipped {
            rev: version.rev.clone(),
            why: why.to_string(),
        });
    }
}

impl Ratio {
    /// What the closing lines show of it.
    pub fn measured(&self) -> rigor_report::track_run::MeasuredRatio {
        rigor_report::track_run::MeasuredRatio {
            ratio: self.ratio,
            interval: self.interval,
            verdict: self.verdict.to_string(),
            spent: self.spent,
        }
    }
}

impl TrackRequest {
    /// [`TrackRequest::resolve`], the resolution's notes said through `front` (the resolution
    /// returned without them).
    pub(super) fn resolve_saying(self, front: &mut dyn Front) -> Result<ResolvedTrack> {
        let mut resolved = self.resolve()?;
        for n in std::mem::take(&mut resolved.notes) {
            front.say(Line::Note(n));
        }
        Ok(resolved)
    }
}

/// Runs one measuring phase of `experiment` with what `front` lends (an executor, the signal
/// that stops it, a progress display dropped when the phase ends, the observer that says what
/// happens), saying `first` once the executor is made.
pub(super) fn phase<T>(
    front: &mut dyn Front,
    experiment: &RunSettings,
    first: Option<Line>,
    measure: impl FnOnce(&mut dyn Executor, StopSignal, &mut dyn Progress, &mut Saying<'_>) -> Result<T>,
) -> Result<T> {
    let (stop, mut executor) = front.executor(
        experiment.simulate,
        experiment.runner.seed,
        &experiment.measures,
    )?;
    if let Some(line) = first {
        front.say(line);
    }
    let mut progress = front.progress();
    measure(
        executor.as_mut(),
        stop,
        progress.as_mut(),
        &mut Saying(front),
    )
}
