//! A throw-away PostgreSQL server for tests: a cluster made by `initdb` of Debian's
//! `postgresql` package in a temporary folder, listening on 127.0.0.1 only on a free port,
//! started once per test binary and stopped when the test process ends (a watchdog process stops
//! it and removes the folder).
//!
//! The tests never install anything: `scripts/test_deps.sh` installs the package (`.ci/run`
//! calls it). Where no server can be had, [`server`] returns `None` after printing one clear
//! `SKIP` line naming that script, and tests return early; under CI (`CI=true`) it panics with
//! that message instead, so a missing server fails the tests rather than skipping them.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A running test server.
#[derive(Debug)]
pub struct Server {
    port: u16,
    next: AtomicUsize,
}

impl Server {
    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// A URL of the maintenance database (no password: the cluster trusts local TCP).
    pub fn admin_url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Creates an empty database of its own for one test and returns its URL.
    pub fn fresh_database(&self) -> String {
        let k = self.next.fetch_add(1, Ordering::SeqCst);
        let name = format!("t{}_{k}", std::process::id());
        let mut admin = postgres::Client::connect(&self.admin_url(), postgres::NoTls)
            .expect("connecting to the test server");
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("creating a test database");
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }
}

/// The server of this test binary, started on first use; `None` (after a `SKIP` message) where
/// PostgreSQL is not installed or cannot be started.
///
/// # Panics
///
/// Under CI ([`in_ci`]) where there is no server: the tests that need one fail.
pub fn server() -> Option<&'static Server> {
    static SERVER: OnceLock<Result<Server, String>> = OnceLock::new();
    match SERVER.get_or_init(start) {
        Ok(s) => Some(s),
        Err(why) => {
            assert!(
                !in_ci(),
                "FAIL: PostgreSQL tests: {why}; under CI (CI=true) they must run, not skip \
                 (scripts/test_deps.sh installs PostgreSQL)"
            );
            eprintln!(
                "SKIP: PostgreSQL tests skipped: {why} (scripts/test_deps.sh installs PostgreSQL)"
            );
            None
        }
    }
}

/// Whether the tests run under CI: `CI` is set (CI services set `CI=true`), and not to `false`
/// or `0`. Tests that skip where something is missing fail instead under CI.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false" | "FALSE" | "False"))
}

fn start() -> Result<Server, String> {
    let bin = binaries()?;
    // initdb refuses to run as root: the cluster belongs to the `postgres` user when we are root.
    let root = is_root();
    let dir = tempfile::Builder::new()
        .prefix("rigor-pg-")
        .tempdir()
        .map_err(|e| format!("cannot make a temporary folder: {e}"))?
        .keep();
    let data = dir.join("data");
    if root {
        run(Command::new("chown").arg("postgres:").arg(&dir))?;
        run(Command::new("chmod").arg("700").arg(&dir))?;
    }
    let as_owner = |program: &Path| {
        if root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        }
    };
    run(as_owner(&bin.join("initdb"))
        .args([
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--no-sync",
            "-D",
        ])
        .arg(&data))?;
    let port = free_port()?;
    let options = format!(
        "-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories='{}' \
         -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
        dir.display()
    );
    run(as_owner(&bin.join("pg_ctl"))
        .args(["-w", "-t", "60", "-l"])
        .arg(dir.join("log"))
        .arg("-o")
        .arg(&options)
        .arg("-D")
        .arg(&data)
        .arg("start"))?;
    watchdog(&bin, &dir, &data, root);
    let server = Server {
        port,
        next: AtomicUsize::new(0),
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while postgres::Client::connect(&server.admin_url(), postgres::NoTls).is_err() {
        if Instant::now() > deadline {
            return Err("the server started but accepts no connection".into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(server)
}

/// A process that waits for this one to end, then stops the server and removes its folder.
fn watchdog(bin: &Path, dir: &Path, data: &Path, root: bool) {
    let stop = format!(
        "{}'{}' -D '{}' -m immediate stop",
        if root { "runuser -u postgres -- " } else { "" },
        bin.join("pg_ctl").display(),
        data.display()
    );
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {stop} >/dev/null 2>&1; rm -rf '{dir}'",
        pid = std::process::id(),
        dir = dir.display()
    );
    // In a process group of its own, so that a signal to the tests' group (a timeout, Ctrl-C)
    // does not take the watchdog down before the server.
    let _ = Command::new("sh")
        .arg("-c")
        .arg(script)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
}

/// The folder of Debian's PostgreSQL programs (the newest version installed).
fn binaries() -> Result<PathBuf, String> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|_| "PostgreSQL is not installed (no /usr/lib/postgresql)".to_string())?
        .filter_map(|e| {
            let e = e.ok()?;
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((v, bin))
        })
        .collect();
    found.sort();
    found
        .pop()
        .map(|(_, b)| b)
        .ok_or_else(|| "no initdb under /usr/lib/postgresql/*/bin".into())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}

fn run(c: &mut Command) -> Result<(), String> {
    let out = c
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", c.get_program()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{:?} failed: {}",
            c.get_program(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}
