//! The farm's unit tests: specs, waits, a job measured, what a job collects.

use rigor_runner::RunError;
use rigor_units::Seed;

use super::*;

fn settings() -> JobSettings {
    JobSettings {
        run: RunRequest {
            commands: vec!["mean=10ms".into()],
            executions: Some(3),
            warmup_executions: Some(0),
            seed: Some(Seed(5)),
            simulate: true,
            ..RunRequest::default()
        },
        ..JobSettings::default()
    }
}

struct NoArgv;
impl JobRunner for NoArgv {
    fn argv_settings(&self, args: &[String]) -> std::result::Result<JobSettings, FarmError> {
        Err(FarmError::Argv(format!("{args:?}").into()))
    }
}
impl track::Executors for NoArgv {
    fn executor(
        &mut self,
        _: bool,
        _: Seed,
        _: &rigor_runner::Measures,
    ) -> std::result::Result<(StopSignal, Box<dyn Executor>), RunError> {
        unreachable!("not measured here")
    }
}

fn claimed(spec: String) -> ClaimedJob {
    ClaimedJob {
        id: rigor_history::queue::JobId(1),
        claim: 1,
        attempt: 1,
        max_attempts: 3,
        waits: 0,
        class: "fast".into(),
        branch: "main".into(),
        format: JOB_FORMAT,
        spec,
    }
}

#[test]
fn a_spec_reads_back_as_written_and_its_keys_ignore_what_is_not_measured() {
    let spec = JobSpec::new("fast", "main", vec!["c1".into(), "c2".into()], settings());
    let text = spec.encode().unwrap();
    let read = JobSpec::read(&claimed(text), &NoArgv).unwrap();
    assert_eq!(read, spec);
    // Exports, display and the command line do not change what is measured; the settings do.
    let mut shown = spec.clone();
    shown.settings.run.exports.json = Some("r.json".into());
    shown.settings.run.time_unit = Some(rigor_units::TimeUnit::Ms);
    shown.settings.run.origin.command_line = vec!["rigor".into(), "-r".into()];
    shown.commits = vec!["c2".into()];
    assert_eq!(
        shown.version_key("c2").unwrap(),
        spec.version_key("c2").unwrap()
    );
    assert_ne!(
        spec.version_key("c1").unwrap(),
        spec.version_key("c2").unwrap()
    );
    let mut more = spec.clone();
    more.settings.run.executions = Some(4);
    assert_ne!(
        more.version_key("c1").unwrap(),
        spec.version_key("c1").unwrap()
    );
    let mut other = spec.clone();
    other.class = "slow".into();
    assert_ne!(
        other.version_key("c1").unwrap(),
        spec.version_key("c1").unwrap()
    );
    // The job holds one key per version.
    let job = spec.job(3).unwrap();
    assert_eq!(job.keys.len(), 2);
    assert_eq!((job.format, job.max_attempts), (JOB_FORMAT, 3));
}

/// A spec of format 2 as this rigor writes it: a change to the spec's shape that breaks this
/// test is a new format (raise [`JOB_FORMAT`] and keep reading this one).
const FORMAT_2: &str = r#"{"format":2,"class":"fast","branch":"main","commits":["c1"],
    "settings":{"force":true,"project":null,"artifacts":["target/bench"],
    "run":{"commands":["mean=10ms"],"executions":3,"warmup_executions":0,"seed":5,
           "simulate":true,"output":"pipe","discard":{"count":2},"timeout":30.0,
           "iterations_from":"stderr","pattern":"t=(\\d+)","unit":"ms",
           "parameters":{"scan":null,"lists":[["n","1,2"]]},
           "hooks":{"prepare":"sync"},"comparison":{"threshold":0.02},
           "analysis":{"confidence":0.99},"origin":{"label":"nightly"}}}}"#;

#[test]
fn a_format_2_spec_reads_as_it_was_written() {
    let spec = JobSpec::read(&claimed(FORMAT_2.into()), &NoArgv).unwrap();
    assert_eq!((spec.format, spec.commits.len()), (2, 1));
    let s = &spec.settings;
    assert!(s.force);
    assert_eq!(s.artifacts, [PathBuf::from("target/bench")]);
    let r = &s.run;
    assert_eq!((r.executions, r.warmup_executions), (Some(3), Some(0)));
    assert_eq!(r.seed, Some(Seed(5)));
    assert_eq!(r.output, rigor_runner::OutputMode::Pipe);
    assert_eq!(r.discard, rigor_store::Discard::Count(2));
    assert_eq!(r.timeout, Some(rigor_units::Seconds(30.0)));
    assert_eq!(r.iterations_from, Some(rigor_runner::Stream::Stderr));
    assert_eq!(r.unit, rigor_units::TimeUnit::Ms);
    assert_eq!(r.parameters.lists, [("n".into(), "1,2".into())]);
    assert_eq!(r.hooks.prepare, ["sync"]);
    assert_eq!(r.comparison.threshold.get(), 0.02);
    assert_eq!(r.comparison.resamples, 10_000);
    assert_eq!(r.analysis.confidence.get(), 0.99);
    assert_eq!(r.origin.label.as_deref(), Some("nightly"));
}

#[test]
fn newer_formats_are_refused_and_command_lines_go_to_the_front_end() {
    let newer = FORMAT_2.replacen("\"format\":2", "\"format\":3", 1);
    assert!(matches!(
        JobSpec::read(&claimed(newer), &NoArgv),
        Err(FarmError::NewerFormat { found: 3 })
    ));
    let argv = r#"{"commits":["c1"],"args":["--class","fast","--","mean=10ms"]}"#;
    let err = JobSpec::read(&claimed(argv.into()), &NoArgv).unwrap_err();
    assert!(matches!(err, FarmError::Argv(_)), "{err}");
    assert!(err.to_string().contains("\"--class\""), "{err}");
    assert!(matches!(
        JobSpec::read(&claimed("{".into()), &NoArgv),
        Err(FarmError::Damaged(_))
    ));
}

#[test]
fn a_job_waits_twice_as_long_each_time_up_to_an_hour() {
    let s = WorkerSettings {
        url: String::new(),
        worker: "w".into(),
        class: "c".into(),
        lease: Duration::from_secs(60),
        poll: Duration::from_secs(10),
        exit_when_empty: false,
        max_jobs: None,
        place: WorkerPlace {
            repo: PathBuf::new(),
            results_dir: PathBuf::new(),
            checkouts: PathBuf::new(),
            keep: 1,
        },
    };
    assert_eq!(s.wait(0), Duration::from_secs(10));
    assert_eq!(s.wait(2), Duration::from_secs(40));
    assert_eq!(s.wait(100), LONGEST_WAIT);
}

/// Runs jobs with the simulator.
struct Simulating;
impl JobRunner for Simulating {
    fn argv_settings(&self, _: &[String]) -> std::result::Result<JobSettings, FarmError> {
        Ok(settings())
    }
}
impl track::Executors for Simulating {
    fn executor(
        &mut self,
        _: bool,
        seed: Seed,
        _: &rigor_runner::Measures,
    ) -> std::result::Result<(StopSignal, Box<dyn Executor>), RunError> {
        let executor = rigor_runner::SimulatedExecutor::new(seed);
        Ok((StopSignal::new(), Box::new(executor)))
    }
}

#[test]
fn a_job_is_measured_in_one_session_or_waits_for_a_commit_its_clone_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    git(&["init", "-q", "-b", "main"]);
    let mut commits = Vec::new();
    for i in 0..2 {
        git(&["commit", "-q", "--allow-empty", "-m", &format!("c{i}")]);
        commits.push(git(&["rev-parse", "HEAD"]));
    }
    let worker = WorkerSettings {
        url: String::new(),
        worker: "w".into(),
        class: "fast".into(),
        lease: Duration::from_secs(60),
        poll: Duration::from_secs(1),
        exit_when_empty: true,
        max_jobs: None,
        place: WorkerPlace {
            repo: repo.clone(),
            results_dir: dir.path().join("runs"),
            checkouts: dir.path().join("checkouts"),
            keep: 2,
        },
    };
    let mut s = settings();
    s.run.commands = vec!["mean=10ms,execution=3%,iteration=1%,iterations=4".into()];
    let spec = JobSpec::new("fast", "main", commits.clone(), s.clone());
    struct Quiet;
    impl WorkerObserver for Quiet {}
    let job = claimed(spec.encode().unwrap());
    let ending = run_job(&worker, &job, &mut Simulating, &mut Quiet, None);
    let JobEnding::Measured(c) = ending else {
        panic!("{ending:?}")
    };
    assert_eq!(c.sessions.len(), 1);
    let session = &c.sessions[0];
    assert_eq!(session.kind, SessionKind::Worker);
    assert_eq!(session.results.len(), 2);
    assert!(session.end.is_some() && c.results.is_empty());
    // A commit the clone lacks (it has no remote to fetch from): the job waits.
    let absent = "0123456789abcdef0123456789abcdef01234567".to_string();
    let spec = JobSpec::new("fast", "main", vec![commits[0].clone(), absent.clone()], s);
    let job = claimed(spec.encode().unwrap());
    let ending = run_job(&worker, &job, &mut Simulating, &mut Quiet, None);
    let JobEnding::Wait(FarmError::MissingCommits { commits, .. }) = &ending else {
        panic!("{ending:?}")
    };
    assert_eq!(commits, &[absent]);
    let why = ending.why().unwrap();
    assert!(
        why.starts_with("commit 0123456789ab not in the worker's clone")
            && why.ends_with("(after git fetch)"),
        "{why}"
    );
}

#[test]
fn collected_runs_stay_with_their_session() {
    let mut c = Collected::default();
    let machine = MachineInfo {
        name: "fast".into(),
        environment: Default::default(),
    };
    let id = c
        .begin_session(&NewSession {
            machine: &machine,
            kind: SessionKind::Worker,
            started: jiff::Timestamp::now(),
            load_before: Some(1.0),
            rigor_version: "0",
        })
        .unwrap();
    let v = VersionInfo {
        rev: "c1".into(),
        ..Default::default()
    };
    let r = ResultFile::new(Seed(1), rigor_units::ConfidenceLevel::NINETY_FIVE);
    c.ingest(&Ingest {
        session: Some(id),
        role: Role::Anchor,
        ..Ingest::new(&v, &machine, "main", &r)
    })
    .unwrap();
    c.record_failure(&rigor_history::Failure {
        session: Some(id),
        ..rigor_history::Failure::new(&v, &machine, "main", "no build")
    })
    .unwrap();
    c.end_session(
        id,
        &SessionEnd {
            ended: jiff::Timestamp::now(),
            load_after: None,
        },
    )
    .unwrap();
    assert_eq!(c.sessions.len(), 1);
    let s = &c.sessions[0];
    assert_eq!((s.results.len(), s.failures.len()), (1, 1));
    assert_eq!(s.results[0].role, Role::Anchor);
    let end = s.end.unwrap();
    assert!(c.results.is_empty());
    assert!(c.end_session(SessionId(7), &end).is_err());
}
