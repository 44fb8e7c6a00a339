//! A benchmark farm on a PostgreSQL history that the test set-up starts (skipped, with a SKIP
//! line, where PostgreSQL cannot be installed): enqueue, workers, status, and the fault test
//! (4 workers drain 200 jobs while one is killed mid-job and another loses its connection).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::gitrepo::{git, have};
use common::rigor;

/// A repository of `n` commits (empty ones: the simulated benchmark measures nothing real).
fn repo(dir: &Path, n: usize) -> Vec<String> {
    common::gitrepo::empty_commits(dir, n);
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-list", "--reverse", "HEAD"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn database() -> Option<String> {
    if !have("git") {
        eprintln!("SKIP: git is needed");
        return None;
    }
    Some(rigor_pgtest::server()?.fresh_database())
}

fn sql(url: &str, query: &str) -> Vec<postgres::Row> {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    c.query(query, &[]).unwrap()
}

/// The simulated benchmark: 3 measured executions of 4 iterations per version.
const SIM: &str = "mean=10ms,execution=3%,iteration=1%,iterations=4";

fn enqueue(url: &str, repo: &Path, revs: &str, extra: &[&str]) {
    rigor()
        .args(["track", "enqueue", revs, "--class", "fast", "--repo"])
        .arg(repo)
        .args(["--simulate", "-r", "3", "-w", "0", "--seed", "5"])
        .args(extra)
        .args(["--", SIM])
        .env("RIGOR_DB", url)
        .assert()
        .success();
}

fn worker(url: &str, repo: &Path, name: &str, lease: &str) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("rigor"));
    c.args([
        "track",
        "worker",
        "--machine",
        name,
        "--class",
        "fast",
        "--repo",
    ])
    .arg(repo)
    .args(["--lease", lease, "--poll", "0.2", "--exit-when-empty"])
    .env("RIGOR_DB", url)
    .current_dir(repo);
    c
}

#[test]
fn enqueue_work_and_status_store_each_version_once_under_its_class() {
    let Some(url) = database() else { return };
    let dir = tempfile::tempdir().unwrap();
    let ids = repo(dir.path(), 5);
    // Versions 2..5 in comparisons of 2: two jobs; queued twice, still two.
    let range = format!("{}..{}", ids[0], ids[4]);
    enqueue(&url, dir.path(), &range, &["--batch", "2"]);
    enqueue(&url, dir.path(), &range, &["--batch", "2"]);
    let status = rigor()
        .args(["track", "status"])
        .env("RIGOR_DB", &url)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(
        text.contains("fast: 0 of 2 job(s) finished (0%), 0 running, 2 queued"),
        "{text}"
    );
    let out = worker(&url, dir.path(), "box-1", "30").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("2 job(s) done, 0 failed"), "{text}");
    // Stored under the class, one run per version; the versions of a job were measured
    // together (one run's seed and start time shared by both).
    let versions = sql(
        &url,
        "SELECT v.rev, COUNT(*) FROM runs r JOIN versions v ON v.id = r.version_id
         JOIN machines m ON m.id = r.machine_id WHERE m.name = 'fast' GROUP BY v.rev",
    );
    assert_eq!(versions.len(), 4);
    assert!(versions.iter().all(|r| r.get::<_, i64>(1) == 1));
    let starts = sql(&url, "SELECT COUNT(DISTINCT started) FROM runs");
    assert_eq!(starts[0].get::<_, i64>(0), 2);
    let status = rigor()
        .args(["track", "status"])
        .env("RIGOR_DB", &url)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(text.contains("box-1"), "{text}");
    assert!(
        text.contains("fast: 2 of 2 job(s) finished (100%)"),
        "{text}"
    );
    // The history reads as any other: show lists the versions of the class.
    rigor()
        .args([
            "track",
            "show",
            "--machine",
            "fast",
            "--branch",
            "main",
            SIM,
        ])
        .env("RIGOR_DB", &url)
        .assert()
        .success();
}

#[test]
fn the_queue_needs_a_server_and_passwords_stay_out_of_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let out = rigor()
        .args(["track", "worker", "--db"])
        .arg(dir.path().join("h.db"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("the job queue needs a PostgreSQL history"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let Some(url) = database() else { return };
    let ids = repo(dir.path(), 2);
    // The URL given with --db (here with a password the trusting test server ignores) is not
    // stored in the job, and messages show it without the password.
    let with_password = url.replacen("postgres@", "postgres:hunter2@", 1);
    let out = rigor()
        .args([
            "track",
            "enqueue",
            &ids[1],
            "--class",
            "fast",
            "--db",
            &with_password,
        ])
        .arg("--repo")
        .arg(dir.path())
        .args(["--simulate", "--", SIM])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!all.contains("hunter2"), "{all}");
    assert!(all.contains("postgres:***@"), "{all}");
    let spec: String = sql(&url, "SELECT spec FROM jobs")[0].get(0);
    assert!(
        !spec.contains("hunter2") && !spec.contains("--db"),
        "{spec}"
    );
}

/// A TCP proxy to the server that can cut every connection and refuse new ones for a while.
struct Proxy {
    port: u16,
    down: Arc<AtomicBool>,
    live: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    fn start(target: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let down = Arc::new(AtomicBool::new(false));
        let live = Arc::new(Mutex::new(Vec::new()));
        let (d, l) = (down.clone(), live.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if d.load(Ordering::SeqCst) {
                    continue; // dropped: refused while down
                }
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                    continue;
                };
                let mut live = l.lock().unwrap();
                live.push(client.try_clone().unwrap());
                live.push(server.try_clone().unwrap());
                pipe(client.try_clone().unwrap(), server.try_clone().unwrap());
                pipe(server, client);
            }
        });
        Self { port, down, live }
    }

    /// Cuts every connection and refuses new ones for `d`.
    fn outage(&self, d: Duration) {
        self.down.store(true, Ordering::SeqCst);
        for s in self.live.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
        std::thread::sleep(d);
        self.down.store(false, Ordering::SeqCst);
    }
}

fn pipe(mut from: TcpStream, mut to: TcpStream) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16384];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 || to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Both);
    });
}

/// Spawns a worker whose stderr lines are collected; returns it and the lines.
fn spawn(mut c: Command) -> (Child, Arc<Mutex<Vec<String>>>) {
    let mut child = c
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = Arc::new(Mutex::new(Vec::new()));
    let l = lines.clone();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            l.lock().unwrap().push(line);
        }
    });
    (child, lines)
}

fn wait_for(lines: &Mutex<Vec<String>>, what: &str, within: Duration) -> String {
    let deadline = Instant::now() + within;
    loop {
        if let Some(l) = lines.lock().unwrap().iter().find(|l| l.contains(what)) {
            return l.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no line with {what:?} in {within:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn four_workers_drain_200_jobs_through_a_kill_and_an_outage() {
    let Some(url) = database() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("repo")).unwrap();
    let ids = repo(&dir.path().join("repo"), 201);
    // 200 jobs of one version each; each job's build step takes a while (a real process), so a
    // worker can be killed in the middle of one.
    enqueue(
        &url,
        &dir.path().join("repo"),
        &format!("{}..{}", ids[0], ids[200]),
        &["--batch", "1", "--build", "sleep 0.05"],
    );
    // Each machine has its own clone of the repository.
    let clone = |name: &str| {
        let path = dir.path().join(name);
        let ok = Command::new("git")
            .args(["clone", "-q"])
            .arg(dir.path().join("repo"))
            .arg(&path)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        path
    };
    let port = rigor_pgtest::server().unwrap().port();
    let proxy = Proxy::start(port);
    let proxied = url.replacen(&format!(":{port}/"), &format!(":{}/", proxy.port), 1);
    let lease = "1.5";
    let (mut killed, killed_log) = spawn(worker(&url, &clone("doomed"), "doomed", lease));
    let (mut cut, cut_log) = spawn(worker(&proxied, &clone("cut"), "cut", lease));
    let (mut a, _) = spawn(worker(&url, &clone("steady-a"), "steady-a", lease));
    let (mut b, _) = spawn(worker(&url, &clone("steady-b"), "steady-b", lease));
    // Kill "doomed" in the middle of its third job.
    let third = wait_for(&killed_log, "claimed", Duration::from_secs(60));
    let _ = third;
    let deadline = Instant::now() + Duration::from_secs(60);
    while killed_log
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains("claimed"))
        .count()
        < 3
    {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(20));
    killed.kill().unwrap(); // SIGKILL
    killed.wait().unwrap();
    let claimed: Vec<i64> = killed_log
        .lock()
        .unwrap()
        .iter()
        .filter_map(|l| l.split("job ").nth(1)?.split(' ').next()?.parse().ok())
        .collect();
    let done: Vec<String> = killed_log
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains(" done"))
        .cloned()
        .collect();
    let dead_job = *claimed.last().unwrap();
    // Cut "cut"'s connections for 3 s once it has done some work.
    wait_for(&cut_log, " done", Duration::from_secs(60));
    proxy.outage(Duration::from_secs(3));
    for w in [&mut cut, &mut a, &mut b] {
        let status = w.wait().unwrap();
        assert!(status.success());
    }
    assert!(
        cut_log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("database error (retrying)")),
        "the outage was not felt: {:?}",
        cut_log.lock().unwrap()
    );
    // Every job done exactly once; the killed worker's job run again by another worker.
    let states = sql(&url, "SELECT state, COUNT(*) FROM jobs GROUP BY state");
    assert_eq!(
        states.len(),
        1,
        "{:?}",
        states
            .iter()
            .map(|r| r.get::<_, String>(0))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        (
            states[0].get::<_, String>(0).as_str(),
            states[0].get::<_, i64>(1)
        ),
        ("done", 200)
    );
    let rerun = sql(
        &url,
        &format!("SELECT attempts, worker FROM jobs WHERE id = {dead_job}"),
    );
    assert!(rerun[0].get::<_, i64>(0) >= 2, "{done:?}");
    assert_ne!(rerun[0].get::<_, String>(1), "doomed");
    // Each version stored once, every sample once: 3 executions × 4 iterations per version.
    let runs = sql(
        &url,
        "SELECT COUNT(*), COUNT(DISTINCT version_id) FROM runs WHERE status <> 'failed'",
    );
    assert_eq!(
        (runs[0].get::<_, i64>(0), runs[0].get::<_, i64>(1)),
        (200, 200)
    );
    let samples = sql(
        &url,
        "SELECT COUNT(*), COUNT(DISTINCT (run_id, execution, iteration)) FROM samples",
    );
    assert_eq!(
        (samples[0].get::<_, i64>(0), samples[0].get::<_, i64>(1)),
        (200 * 12, 200 * 12)
    );
}

/// The output of a command, both streams, for messages.
fn text(out: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `rigor track enqueue` with exactly these arguments; its output.
fn enqueue_args(url: &str, args: &[&str]) -> (String, String) {
    let out = rigor()
        .args(["track", "enqueue"])
        .args(args)
        .env("RIGOR_DB", url)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    (stdout, stderr)
}

/// `rigor track status`.
fn status(url: &str) -> String {
    let out = rigor()
        .args(["track", "status"])
        .env("RIGOR_DB", url)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    stdout
}

/// Runs a worker until the queue has nothing to claim now; its output and whether it exited
/// by itself.
fn work(url: &str, repo: &Path, name: &str, lease: &str) -> (String, String, bool) {
    let out = worker(url, repo, name, lease).output().unwrap();
    let (stdout, stderr) = text(&out);
    (stdout, stderr, out.status.success())
}

/// Each job's state and attempts, by id.
fn job_states(url: &str) -> Vec<(String, i64)> {
    sql(
        url,
        "SELECT state, attempts - uncounted FROM jobs ORDER BY id",
    )
    .iter()
    .map(|r| (r.get(0), r.get(1)))
    .collect()
}

fn count(url: &str, query: &str) -> i64 {
    sql(url, query)[0].get(0)
}

fn clone(from: &Path, to: &Path) {
    let ok = Command::new("git")
        .args(["clone", "-q"])
        .arg(from)
        .arg(to)
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

/// A commit of an empty change in `dir`; its id.
fn commit(dir: &Path, message: &str) -> String {
    git(dir, &["commit", "-q", "--allow-empty", "-m", message]);
    commit_id(dir)
}

#[test]
fn a_jobs_versions_are_measured_in_one_worker_session_stored_with_them() {
    let Some(url) = database() else { return };
    let dir = tempfile::tempdir().unwrap();
    let ids = repo(dir.path(), 4);
    enqueue(&url, dir.path(), &format!("{}..{}", ids[0], ids[3]), &[]);
    let (stdout, stderr, ok) = work(&url, dir.path(), "box-1", "30");
    assert!(ok && stdout.contains("1 job(s) done"), "{stdout}{stderr}");
    // Three runs, one session: the worker's, with the machine's load as it began and ended.
    assert_eq!(count(&url, "SELECT COUNT(*) FROM runs"), 3);
    let sessions = sql(
        &url,
        "SELECT s.kind, s.load_before IS NOT NULL, s.ended IS NOT NULL,
                s.load_after IS NOT NULL, COUNT(r.id)
         FROM sessions s JOIN runs r ON r.session_id = s.id GROUP BY s.id",
    );
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_eq!(s.get::<_, String>(0), "worker");
    assert!(s.get::<_, bool>(1) && s.get::<_, bool>(2) && s.get::<_, bool>(3));
    assert_eq!(s.get::<_, i64>(4), 3);
}

/// `rigor track enqueue` of the simulated benchmark with the options `line` (split at spaces),
/// in `repo`; its standard output and the versions the queue's jobs hold then.
fn enqueue_line(url: &str, repo: &Path, line: &str) -> (String, i64) {
    let mut args: Vec<&str> = line.split(' ').collect();
    let repo = repo.to_str().unwrap();
    args.extend(["--class", "fast", "--repo", repo, "--", SIM]);
    let (out, _) = enqueue_args(url, &args);
    let versions = sql(url, "SELECT spec FROM jobs")
        .iter()
        .map(|r| {
            let spec: serde_json::Value = serde_json::from_str(&r.get::<_, String>(0)).unwrap();
            spec["commits"].as_array().unwrap().len() as i64
        })
        .sum();
    (out, versions)
}

#[test]
fn enqueue_queues_each_version_once_whatever_the_command_line() {
    let Some(url) = database() else { return };
    let dir = tempfile::tempdir().unwrap();
    repo(dir.path(), 8);
    let first = "--last 5 --batch 1 --simulate -r 3 -w 0 --seed 5";
    let (queued, versions) = enqueue_line(&url, dir.path(), first);
    assert_eq!(versions, 5);
    // The same options in another order, fewer of the same versions, other batches: nothing new.
    let reordered = "--seed 5 -w 0 --simulate -r 3 --batch 1 --last 5";
    let (out, versions) = enqueue_line(&url, dir.path(), reordered);
    assert_eq!(versions, 5, "{out}");
    assert!(
        queued.starts_with("Queued 5 job(s) (5 of 5 version(s)"),
        "{queued}"
    );
    assert!(
        out.starts_with("Queued 0 job(s) (0 of 5 version(s); 5 already"),
        "{out}"
    );
    let (out, versions) = enqueue_line(&url, dir.path(), &first.replace("5 --batch", "3 --batch"));
    assert_eq!(versions, 5, "{out}");
    assert!(
        out.starts_with("Queued 0 job(s) (0 of 3 version(s); 3 already"),
        "{out}"
    );
    let (out, versions) = enqueue_line(&url, dir.path(), &first.replace("batch 1", "batch 20"));
    assert_eq!(versions, 5, "{out}");
    // One version more, and another measurement (-r 4) of two of them: queued.
    let (out, versions) = enqueue_line(&url, dir.path(), &first.replace("5 --batch", "6 --batch"));
    assert_eq!(versions, 6, "{out}");
    assert!(
        out.starts_with("Queued 1 job(s) (1 of 6 version(s); 5 already"),
        "{out}"
    );
    let other = first
        .replace("5 --batch", "2 --batch")
        .replace("-r 3", "-r 4");
    let (out, versions) = enqueue_line(&url, dir.path(), &other);
    assert_eq!(versions, 8, "{out}");
}

#[test]
fn a_rolling_nightly_queues_only_new_versions_and_workers_skip_stored_ones() {
    let Some(url) = database() else { return };
    let dir = tempfile::tempdir().unwrap();
    let ids = repo(dir.path(), 5);
    // One version measured by `track run` under the class's name.
    rigor()
        .args([
            "track",
            "run",
            &ids[1],
            "--machine",
            "fast",
            "--branch",
            "main",
        ])
        .arg("--repo")
        .arg(dir.path())
        .args(["--simulate", "-r", "3", "-w", "0", "--seed", "5", "--", SIM])
        .env("RIGOR_DB", &url)
        .current_dir(dir.path())
        .assert()
        .success();
    let last3 = |url: &str| {
        let out = rigor()
            .args([
                "track", "enqueue", "--last", "3", "--class", "fast", "--repo",
            ])
            .arg(dir.path())
            .args(["--simulate", "-r", "3", "-w", "0", "--seed", "5", "--", SIM])
            .env("RIGOR_DB", url)
            .output()
            .unwrap();
        assert!(out.status.success());
        text(&out).0
    };
    let first = last3(&url);
    let (stdout, stderr, ok) = work(&url, dir.path(), "box-1", "30");
    assert!(ok && stdout.contains("1 job(s) done"), "{stdout}{stderr}");
    // Two more commits: the next night measures those two only.
    let newer = [commit(dir.path(), "c5"), commit(dir.path(), "c6")];
    let out = last3(&url);
    let (_, stderr, _) = work(&url, dir.path(), "box-1", "30");
    assert_eq!(count(&url, "SELECT COUNT(*) FROM runs"), 6, "{out}{stderr}");
    assert!(first.starts_with("Queued 1 job(s) (3 of 3"), "{first}");
    assert!(
        out.starts_with("Queued 1 job(s) (2 of 3 version(s); 1 already queued or done)"),
        "{out}"
    );
    assert!(!stderr.contains("skipped"), "{stderr}");
    for v in &newer {
        let n = count(
            &url,
            &format!(
                "SELECT COUNT(*) FROM runs r JOIN versions v ON v.id = r.version_id
                 WHERE v.rev = '{v}'"
            ),
        );
        assert_eq!(n, 1);
    }
    // The version `track run` stored, queued: the worker skips it and says so.
    enqueue(&url, dir.path(), &ids[1], &[]);
    let (stdout, stderr, ok) = work(&url, dir.path(), "box-1", "30");
    assert!(ok && stdout.contains("1 job(s) done"), "{stdout}{stderr}");
    assert!(
        stderr.contains("1 version(s) already stored for class fast: skipped"),
        "{stderr}"
    );
    let stored = format!(
        "SELECT COUNT(*) FROM runs r JOIN versions v ON v.id = r.version_id WHERE v.rev = '{}'",
        ids[1]
    );
    assert_eq!(count(&url, &stored), 1);
    assert_eq!(count(&url, "SELECT COUNT(*) FROM runs"), 6);
}

#[test]
fn a_commit_the_workers_clone_lacks_is_fetched_or_waited_for() {
    let Some(url) = database() else { return };
    let dir = tempfile::tempdir().unwrap();
    let upstream = dir.path().join("upstream");
    std::fs::create_dir(&upstream).unwrap();
    repo(&upstream, 3);
    // The worker's clone is made; then the project moves on.
    let mine = dir.path().join("worker");
    clone(&upstream, &mine);
    let pushed = commit(&upstream, "c3");
    // A commit somewhere else, not yet pushed.
    let elsewhere = dir.path().join("elsewhere");
    clone(&upstream, &elsewhere);
    let local = commit(&elsewhere, "local");
    enqueue(&url, &upstream, &pushed, &[]);
    enqueue(&url, &elsewhere, &local, &[]);
    let (stdout, stderr, ok) = work(&url, &mine, "box-1", "30");
    assert!(ok, "{stderr}");
    // The first is fetched and measured; the second waits, with the reason.
    assert!(
        stdout.contains("1 job(s) done, 0 failed, 0 lost to other workers, 1 left queued"),
        "{stdout}{stderr}"
    );
    assert!(stderr.contains("not in the clone: git fetch"), "{stderr}");
    let short = &local[..12];
    assert!(
        stderr.contains("left queued, tried again in")
            && stderr.contains(&format!("commit {short} not in the worker's clone")),
        "{stderr}"
    );
    let shown = status(&url);
    assert!(
        shown.contains("queued, 0 of 3 attempt(s), not claimed before")
            && shown.contains(&format!("commit {short} not in the worker's clone")),
        "{shown}"
    );
    // Pushed: the next try fetches it and measures it.
    git(
        &elsewhere,
        &["push", "-q", "origin", "HEAD:refs/heads/feature"],
    );
    std::thread::sleep(Duration::from_millis(600));
    let (stdout, stderr, ok) = work(&url, &mine, "box-1", "30");
    assert!(
        ok && stdout.contains("1 job(s) done, 0 failed"),
        "{stdout}{stderr}"
    );
    assert_eq!(job_states(&url), [("done".into(), 1), ("done".into(), 1)]);
    assert_eq!(count(&url, "SELECT COUNT(*) FROM runs"), 2);
}

/// A build step that kills the worker running it (the `rigor` process it descends from) while
/// `poison` exists beside it.
const POISON: &str = r#"
here=$(dirname "$0")
[ -e "$here/poison" ] || exit 0
p=$PPID
while [ "$p" -gt 1 ]; do
    if [ "$(cat /proc/$p/comm)" = rigor ]; then kill -9 "$p"; exit 0; fi
    p=$(awk '{print $4}' /proc/$p/stat)
done
"#;

#[test]
fn a_job_that_kills_its_workers_fails_after_its_attempts_and_is_queued_again_when_asked() {
    let Some(url) = database() else { return };
    if !Path::new("/proc/self/stat").exists() {
        eprintln!("SKIP: /proc is needed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let ids = repo(&project, 2);
    let script = dir.path().join("poison.sh");
    std::fs::write(&script, POISON).unwrap();
    std::fs::write(dir.path().join("poison"), "").unwrap();
    let build = format!("sh {}", script.display());
    // The default attempts (3).
    let options = ["--build", &build];
    enqueue(&url, &project, &ids[1], &options);
    for _ in 0..3 {
        let (_, stderr, ok) = work(&url, &project, "box-1", "1");
        assert!(!ok, "the worker was not killed: {stderr}");
        std::thread::sleep(Duration::from_millis(1500));
    }
    // Out of attempts: failed with the reason, not claimed a third time.
    let (stdout, stderr, ok) = work(&url, &project, "box-1", "1");
    assert!(
        ok && stdout.contains("0 job(s) done, 0 failed"),
        "{stdout}{stderr}"
    );
    assert!(stderr.contains("failed: out of attempts (3"), "{stderr}");
    let shown = status(&url);
    assert!(
        shown.contains("failed, 3 of 3 attempt(s) on box-1: gave up after 3 attempt(s)"),
        "{shown}"
    );
    // Queued again only when asked; then it runs.
    let args = |retry: bool| {
        let mut a = vec![ids[1].as_str(), "--class", "fast", "--repo"];
        a.push(project.to_str().unwrap());
        a.extend(["--simulate", "-r", "3", "-w", "0", "--seed", "5"]);
        a.extend(options);
        if retry {
            a.push("--retry-failed");
        }
        a.extend(["--", SIM]);
        a
    };
    let (out, err) = enqueue_args(&url, &args(false));
    assert!(out.starts_with("Queued 0 job(s)"), "{out}");
    assert!(err.contains("1 version(s) are in failed jobs"), "{err}");
    let (out, _) = enqueue_args(&url, &args(true));
    assert!(out.contains("Queued 1 failed job(s) again"), "{out}");
    std::fs::remove_file(dir.path().join("poison")).unwrap();
    let (stdout, stderr, ok) = work(&url, &project, "box-1", "30");
    assert!(ok && stdout.contains("1 job(s) done"), "{stdout}{stderr}");
    assert_eq!(job_states(&url), [("done".into(), 1)]);
}

/// A repository of `n` empty commits c0, c1, … whose ids are the same wherever it is made (fixed
/// author, committer and dates).
fn fixed_repo(dir: &Path, n: usize) -> Vec<String> {
    git(dir, &["init", "-q", "-b", "main"]);
    (0..n)
        .map(|i| {
            let date = format!("2026-01-0{}T00:00:00Z", i + 1);
            let ok = Command::new("git")
                .arg("-C")
                .arg(dir)
                .args(["commit", "-q", "--allow-empty", "-m", &format!("c{i}")])
                .env("GIT_AUTHOR_NAME", "rigor test")
                .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
                .env("GIT_COMMITTER_NAME", "rigor test")
                .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
                .env("GIT_AUTHOR_DATE", &date)
                .env("GIT_COMMITTER_DATE", &date)
                .status()
                .unwrap()
                .success();
            assert!(ok);
            commit_id(dir)
        })
        .collect()
}

fn commit_id(dir: &Path) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "HEAD"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The schema the previous release made (version 4), by its own migrations.
fn previous_schema(url: &str) {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    for sql in [
        include_str!("../../rigor-history/migrations/postgres/0001_initial.sql"),
        include_str!("../../rigor-history/migrations/postgres/0002_jobs.sql"),
        include_str!("../../rigor-history/migrations/postgres/0003_resolution.sql"),
        include_str!("../../rigor-history/migrations/postgres/0004_sessions.sql"),
    ] {
        c.batch_execute(sql).unwrap();
    }
    c.batch_execute(
        "ALTER TABLE runs VALIDATE CONSTRAINT runs_need_a_session;
         CREATE TABLE rigor_schema (version BIGINT NOT NULL);
         INSERT INTO rigor_schema VALUES (4);",
    )
    .unwrap();
}

#[test]
fn a_job_queued_by_the_previous_release_still_runs() {
    let Some(url) = database() else { return };
    let dir = tempfile::tempdir().unwrap();
    let ids = fixed_repo(dir.path(), 4);
    previous_schema(&url);
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    c.batch_execute(include_str!("fixtures/farm/job-format-1.sql"))
        .unwrap();
    let (stdout, stderr, ok) = work(&url, dir.path(), "box-1", "30");
    assert!(
        ok && stdout.contains("1 job(s) done, 0 failed"),
        "{stdout}{stderr}"
    );
    // The versions it named (HEAD~2..HEAD then), measured as it said: 3 executions of 4
    // iterations each, in one worker session.
    let runs = sql(
        &url,
        "SELECT v.rev, r.seed, (SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id)
         FROM runs r JOIN versions v ON v.id = r.version_id ORDER BY v.rev",
    );
    let mut revs: Vec<String> = runs.iter().map(|r| r.get(0)).collect();
    revs.sort();
    let mut expected = vec![ids[2].clone(), ids[3].clone()];
    expected.sort();
    assert_eq!(revs, expected);
    for r in &runs {
        assert_eq!(r.get::<_, String>(1), "5");
        assert_eq!(r.get::<_, i64>(2), 12);
    }
    assert_eq!(
        count(&url, "SELECT COUNT(DISTINCT session_id) FROM runs"),
        1
    );
}

#[test]
fn a_job_of_a_newer_format_is_left_queued_and_said_why() {
    let Some(url) = database() else { return };
    let dir = tempfile::tempdir().unwrap();
    repo(dir.path(), 2);
    assert_eq!(status(&url), "No jobs queued\n");
    // From a newer rigor: one its format column tells, one only its spec does.
    let spec = r#"{"format":99,"class":"fast","branch":"main","commits":["abc"],"settings":{}}"#;
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    c.execute(
        "INSERT INTO jobs (key, class, branch, spec, format) VALUES
         ('a', 'fast', 'main', $1, 99), ('b', 'fast', 'main', $1, 2)",
        &[&spec],
    )
    .unwrap();
    let (stdout, stderr, ok) = work(&url, dir.path(), "box-1", "30");
    assert!(ok, "{stderr}");
    assert!(stdout.contains("0 job(s) done, 0 failed"), "{stdout}");
    assert!(
        stderr.contains("job 1 left queued: needs a newer rigor (its format is 99"),
        "{stderr}"
    );
    assert!(
        stderr.contains("job 2 left queued, tried again in")
            && stderr.contains("needs a newer rigor: the job's format is 99"),
        "{stderr}"
    );
    assert_eq!(
        job_states(&url),
        [("queued".into(), 0), ("queued".into(), 0)]
    );
    let shown = status(&url);
    assert!(
        shown.contains("job 1 (fast): queued, 0 of 3 attempt(s), format 99: needs a newer rigor"),
        "{shown}"
    );
}
