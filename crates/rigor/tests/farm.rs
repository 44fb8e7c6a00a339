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
    git(dir, &["init", "-q", "-b", "main"]);
    for i in 0..n {
        git(
            dir,
            &["commit", "-q", "--allow-empty", "-m", &format!("c{i}")],
        );
    }
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
