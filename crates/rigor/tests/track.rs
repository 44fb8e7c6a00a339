//! `rigor track`: a real git repository of a small C program measured version by version, with
//! known changes; ingesting saved results; malformed input.

mod common;

use common::gitrepo::{git, history_repo_or_skip};

use std::process::Command;

use common::{Dir, json, rigor, sim, stdout_of};
use predicates::prelude::*;

#[test]
fn a_version_that_fails_to_build_is_recorded_and_the_run_goes_on() {
    let dir = Dir::new();
    let repo = dir.path("repo");
    let Some(ids) = history_repo_or_skip(&repo) else {
        return;
    };
    let db = dir.path("h.db");
    // The build command names a file that exists only from commit 18 on.
    std::fs::write(repo.join("extra.c"), "int x;\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "extra"]);
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .args(["run", "--repo"])
        .arg(&repo)
        .args([&format!("{}..HEAD", ids[17]), "--machine", "m", "-r", "3"])
        .args([
            "--build",
            "gcc -O2 -o bench bench.c extra.c",
            "--",
            "./bench",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("failed: build failed"))
        // A build that failed is no exit status -i could measure.
        .stderr(predicate::str::contains("--ignore-failure").not())
        .stdout(predicate::str::contains(
            "Tracked 1 version(s) (0 already stored, 2 failed)",
        ));
    let show = stdout_of(rigor().args(["track", "--db"]).arg(&db).args([
        "show",
        "./bench",
        "--machine",
        "m",
        "--branch",
        "main",
    ]));
    assert_eq!(show.matches("the version failed").count(), 2, "{show}");
    // A name no version measured is an error, not a list of the failed versions, and it lists
    // the names the series has.
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .args(["show", "./bnech", "--machine", "m", "--branch", "main"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "no history of './bnech' on m (main); stored benchmarks: './bench'",
        ));
    // Without a name, the series' only benchmark is shown.
    let only = stdout_of(rigor().args(["track", "--db"]).arg(&db).args([
        "show",
        "--machine",
        "m",
        "--branch",
        "main",
    ]));
    assert_eq!(only, show);
    // A series of none: the error says so (an empty history, another machine's name).
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .args(["show", "--machine", "other", "--branch", "main"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "track show: the history stores no benchmark on other (main) (measured on another \
             machine or branch? --machine, --branch)",
        ));
}

#[test]
fn add_is_idempotent_and_labels_order_versions() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    for (label, mean) in [
        ("gcc-12-O2-release", "10ms"),
        ("gcc-13", "10ms"),
        ("gcc-14", "11ms"),
    ] {
        let file = dir.path(&format!("{label}.json"));
        sim()
            .args(["--seed", "1", "-r", "5"])
            .arg(format!(
                "mean={mean},execution=1%,iteration=1%,iterations=5"
            ))
            .args(["-n", "compile"])
            .arg("--export-json")
            .arg(&file)
            .assert()
            .success();
        for _ in 0..2 {
            rigor()
                .args(["track", "--db"])
                .arg(&db)
                .args(["add"])
                .arg(&file)
                .args(["--version", label, "--repo"])
                .arg(dir.path("no-repo"))
                .args(["--machine", "m", "--branch", "compilers"])
                .assert()
                .success();
        }
    }
    let show = stdout_of(rigor().args(["track", "--db"]).arg(&db).args([
        "show",
        "compile",
        "--machine",
        "m",
        "--branch",
        "compilers",
    ]));
    let versions: Vec<&str> = show
        .lines()
        .skip(2)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        versions,
        ["gcc-12-O2-release", "gcc-13", "gcc-14"],
        "{show}"
    );
}

#[test]
fn malformed_results_are_refused_with_the_file_and_nothing_stored() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    let bad = dir.path("bad.json");
    std::fs::write(
        &bad,
        "{\n \"schema_version\": 2,\n \"benchmarks\": [oops]\n}",
    )
    .unwrap();
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .args(["add"])
        .arg(&bad)
        .args(["--version", "v1", "--machine", "m"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.json:3:"));
    // Nothing stored, and no empty history file made for it.
    assert!(!db.exists(), "the refused add left a history file");
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .args(["changes"])
        .assert()
        .code(2);
}

#[test]
fn a_newer_history_is_refused() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    let file = dir.path("r.json");
    sim()
        .args(["--seed", "1", "-r", "3", "mean=1ms", "--export-json"])
        .arg(&file)
        .assert()
        .success();
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .arg("add")
        .arg(&file)
        .args([
            "--version",
            "v1",
            "--machine",
            "m",
            "--repo",
            "/nonexistent",
        ])
        .assert()
        .success();
    let ok = Command::new("sqlite3").arg("--version").output().is_ok();
    if !ok {
        // Without the sqlite3 shell, the history crate's own test covers this.
        return;
    }
    Command::new("sqlite3")
        .arg(&db)
        .arg("PRAGMA user_version = 42;")
        .status()
        .unwrap();
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .arg("changes")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "newer than this rigor understands",
        ));
}

/// Four processes ingesting into one database at once: every result stored exactly once.
#[test]
fn concurrent_processes_lose_and_duplicate_nothing() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    let files: Vec<_> = (0..8)
        .map(|k| {
            let file = dir.path(&format!("r{k}.json"));
            sim()
                .args(["--seed", &k.to_string(), "-r", "4", "-n", "b"])
                .arg("mean=1ms,execution=1%,iteration=1%,iterations=50")
                .arg("--export-json")
                .arg(&file)
                .assert()
                .success();
            file
        })
        .collect();
    let bin = assert_cmd::cargo::cargo_bin("rigor");
    // Each process adds all eight files, as versions v0..v7: every result offered four times.
    let script: Vec<String> = files
        .iter()
        .enumerate()
        .map(|(k, f)| format!("{}|v{k}", f.display()))
        .collect();
    let children: Vec<_> = (0..4)
        .map(|_| script.clone())
        .map(|script| {
            let db = db.clone();
            let bin = bin.clone();
            std::thread::spawn(move || {
                for item in script {
                    let (file, version) = item.split_once('|').unwrap();
                    let ok = Command::new(&bin)
                        .args(["track", "--db"])
                        .arg(&db)
                        .args(["add", file, "--version", version, "--order"])
                        .arg(&version[1..])
                        .args([
                            "--machine",
                            "m",
                            "--branch",
                            "main",
                            "--repo",
                            "/nonexistent",
                        ])
                        .output()
                        .unwrap();
                    assert!(
                        ok.status.success(),
                        "{}",
                        String::from_utf8_lossy(&ok.stderr)
                    );
                }
            })
        })
        .collect();
    for c in children {
        c.join().unwrap();
    }
    let out = stdout_of(rigor().args(["track", "--db"]).arg(&db).args([
        "show",
        "b",
        "--json",
        "--machine",
        "m",
        "--branch",
        "main",
    ]));
    let points: serde_json::Value = serde_json::from_str(&out).unwrap();
    let points = points.as_array().unwrap();
    assert_eq!(points.len(), 8, "{out}");
    for p in points {
        // One run per version: 4 executions × 50 iterations, not 8 or 16 executions.
        assert_eq!(p["counts"], serde_json::json!([4, 200]), "{p}");
    }
}

/// A process killed with SIGKILL in the middle of storing a large result leaves either the
/// whole run or nothing.
#[test]
fn a_killed_ingest_leaves_nothing_partial() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    let file = dir.path("big.json");
    sim()
        .args(["--seed", "1", "-r", "300", "-n", "big", "-w", "0"])
        .arg("mean=1ms,execution=1%,iteration=1%,iterations=1000")
        .arg("--export-json")
        .arg(&file)
        .assert()
        .success();
    let bin = assert_cmd::cargo::cargo_bin("rigor");
    for delay_ms in [300, 1500, 3000] {
        let mut child = Command::new(&bin)
            .args(["track", "--db"])
            .arg(&db)
            .arg("add")
            .arg(&file)
            .args(["--version", "v1", "--machine", "m", "--branch", "main"])
            .args(["--repo", "/nonexistent"])
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let out = rigor()
            .args(["track", "--db"])
            .arg(&db)
            .args([
                "show",
                "big",
                "--json",
                "--machine",
                "m",
                "--branch",
                "main",
            ])
            .output()
            .unwrap();
        if out.status.success() {
            let points: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(points[0]["counts"], serde_json::json!([300, 300_000]));
        } else {
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("no history"),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// The pull-request gate: a candidate result against the latest stored version of a branch.
#[test]
fn check_gates_a_candidate_against_the_stored_baseline() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    let result = |name: &str, mean: &str, seed: &str| {
        let file = dir.path(name);
        sim()
            .args(["--seed", seed, "-r", "20", "-n", "parse"])
            .arg(format!(
                "mean={mean},execution=1%,iteration=1%,iterations=10"
            ))
            .arg("--export-json")
            .arg(&file)
            .assert()
            .success();
        file
    };
    for (k, mean) in ["10ms", "10ms"].iter().enumerate() {
        let file = result(&format!("main{k}.json"), mean, &k.to_string());
        rigor()
            .args(["track", "--db"])
            .arg(&db)
            .arg("add")
            .arg(&file)
            .args(["--version", &format!("v{k}"), "--order", &k.to_string()])
            .args([
                "--machine",
                "m",
                "--branch",
                "main",
                "--repo",
                "/nonexistent",
            ])
            .assert()
            .success();
    }
    let slower = result("pr.json", "11ms", "7");
    let md = dir.path("pr.md");
    let check = |db: &std::path::Path| {
        let mut cmd = rigor();
        cmd.args(["track", "--db"])
            .arg(db)
            .arg("check")
            .args(["--baseline", "main"])
            .arg(&slower)
            .args(["--machine", "m", "--fail-on", "regression"]);
        cmd
    };
    // Two versions stored by two `track add`s: two sessions that share no version, so the
    // history cannot say how much sessions shift this machine; nothing bounds the candidate's
    // session, and the check says so instead of calling a regression.
    check(&db).assert().code(0).stdout(
        predicate::str::contains(
            "parse: no estimate (without its session's shift, which nothing measured: +",
        )
        .and(predicate::str::contains(
            "inconclusive — against 2 version(s) since v0",
        ))
        .and(predicate::str::contains("between sessions unknown"))
        .and(predicate::str::contains("--candidate")),
    );
    // A simulated project of three sessions of four versions, each re-measuring two stored
    // versions (anchors), its sessions shifting levels by `session` (SD).
    let simulated = |name: &str, session: &str, versions: &str| {
        let db = dir.path(name);
        rigor()
            .args(["track", "--db"])
            .arg(&db)
            .args([
                "run",
                "--simulate",
                &format!("versions={versions},session={session}"),
            ])
            .args([
                "--last",
                versions,
                "--batch",
                "4",
                "--anchors",
                "2",
                "--seed",
                "5",
            ])
            .args([
                "-r",
                "20",
                "-n",
                "parse",
                "--machine",
                "m",
                "--branch",
                "main",
            ])
            .args(["--", "mean=10ms,execution=1%,iteration=1%,iterations=10"])
            .assert()
            .success();
        db
    };
    // Sessions tied by anchors: the spread between sessions is measured, and a 10% slower
    // candidate is a regression.
    let connected = simulated("connected.db", "0%", "12");
    check(&connected)
        .arg("--markdown")
        .arg(&md)
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("parse: +").and(predicate::str::contains(
                "regression — against 12 version(s) since v1",
            )),
        );
    assert!(std::fs::read_to_string(&md).unwrap().contains("regression"));
    // The same candidate measured under contention (its executions had a CPU 55% of their
    // time, where the history's simulated runs had it throughout): its wall times hold the
    // waiting, so no verdict, though the machine's load average read quiet.
    let contended_at = |share: f64| {
        let mut r = json(&slower);
        for e in r["benchmarks"][0]["executions"].as_array_mut().unwrap() {
            let wall = e["wall"].as_f64().unwrap();
            e["user"] = serde_json::json!(share * wall);
            e["sys"] = serde_json::json!(0.0);
        }
        r["environment"]["cpus"] = serde_json::json!(2);
        r
    };
    let gate = |file: &std::path::Path| {
        let mut cmd = rigor();
        cmd.args(["track", "--db"])
            .arg(&connected)
            .arg("check")
            .args(["--baseline", "main"])
            .arg(file)
            .args(["--machine", "m", "--fail-on", "regression"]);
        cmd
    };
    let mut contended = contended_at(0.55);
    contended["provenance"]["load_before"] = serde_json::json!(0.2);
    let contended_file = dir.path("contended.json");
    std::fs::write(&contended_file, contended.to_string()).unwrap();
    gate(&contended_file)
        .assert()
        .code(0)
        .stdout(
            predicate::str::contains(
                "parse: no estimate (measured under another load than the history's runs",
            )
            .and(predicate::str::contains(
                "inconclusive — against 12 version(s)",
            )),
        )
        .stderr(predicate::str::contains(
            "'parse' had a CPU for 55.0% of its wall time in this result and for 100.0% in the \
             history's runs it is compared with",
        ));
    // Its executions had a CPU throughout (share 1, as the history's): the load average alone
    // (3 on 2 CPUs, lagging a load that ended) withholds nothing, and the regression stands.
    let mut lagging = contended_at(1.0);
    lagging["provenance"]["load_before"] = serde_json::json!(3.0);
    let lagging_file = dir.path("lagging.json");
    std::fs::write(&lagging_file, lagging.to_string()).unwrap();
    gate(&lagging_file)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "regression — against 12 version(s)",
        ));
    // A file without CPU times (an imported one) on a busy machine (a load of 3 on 2 CPUs)
    // against a history measured quiet (its sessions' load 0.5): the load decides.
    let mut busy = contended_at(0.0);
    busy["provenance"]["load_before"] = serde_json::json!(3.0);
    let busy_file = dir.path("busy.json");
    std::fs::write(&busy_file, busy.to_string()).unwrap();
    gate(&busy_file)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "parse: no estimate (measured under another load than the history's runs",
        ))
        .stderr(predicate::str::contains(
            "the result was measured on a busy machine (load 3.00 on 2 CPUs) and the history's \
             sessions on a quiet one (load 0.50)",
        ));
    // A history whose runs had a CPU 55% of their time on a machine their runs recorded idle
    // (others used 0.01 CPUs): its lower share is the program's own waiting, not contention,
    // so a candidate that had a CPU throughout keeps its verdict, with a note.
    let waited = dir.path("waited.db");
    std::fs::copy(&connected, &waited).unwrap();
    rusqlite::Connection::open(&waited)
        .unwrap()
        .execute_batch(
            "UPDATE executions SET user_time = 0.55 * wall, sys_time = 0;
             UPDATE runs SET others_cpus = 0.01;",
        )
        .unwrap();
    let mut quiet = contended_at(1.0);
    quiet["provenance"]["load_before"] = serde_json::json!(0.2);
    let quiet_file = dir.path("quiet.json");
    std::fs::write(&quiet_file, quiet.to_string()).unwrap();
    let waited_gate = |db: &std::path::Path| {
        let mut cmd = rigor();
        cmd.args(["track", "--db"])
            .arg(db)
            .arg("check")
            .args(["--baseline", "main"])
            .arg(&quiet_file)
            .args(["--machine", "m", "--fail-on", "regression"]);
        cmd
    };
    waited_gate(&waited)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "regression — against 12 version(s)",
        ))
        .stderr(predicate::str::contains(
            "'parse' had a CPU for 100.0% of its wall time in this result and for 55.0% in the \
             history's runs it is compared with, on a machine other processes left idle in the \
             history's runs it is compared with: not contention; the program waits more there \
             itself",
        ));
    // The same history not known idle (runs stored before rigor recorded it): its lower share
    // may be contention, which would only have slowed the history — and the candidate is
    // slower still, by more than the 5% a load could have sped the history up: the regression
    // stands, with a note.
    rusqlite::Connection::open(&waited)
        .unwrap()
        .execute_batch("UPDATE runs SET others_cpus = NULL;")
        .unwrap();
    waited_gate(&waited)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "regression — against 12 version(s)",
        ))
        .stderr(predicate::str::contains(
            "'parse' was measured under more contention in the history's runs it is compared \
             with than in this result and was still faster there, by more than 5%: contention \
             only slows a program, so the verdict stands",
        ));
    // Sessions that shift levels by about half: the 10% slower candidate cannot be told from
    // the history, and the line shows the interval without a misleading middle.
    check(&simulated("shifting.db", "50%", "12"))
        .assert()
        .code(0)
        .stdout(
            predicate::str::contains("parse: no estimate (95% CI −")
                .and(predicate::str::contains(
                    "inconclusive — against 12 version(s)",
                ))
                .and(predicate::str::contains(
                    "No estimate: an undecided interval",
                ))
                .and(predicate::str::contains("--candidate REV")),
        );
    // Two sessions (eight versions in batches of four) compared once: σ_s from one degree of
    // freedom can be about 0 where sessions differ by a third, so they do not bound the
    // candidate's session — no verdict, even for this quiet machine's 10% slower candidate.
    check(&simulated("two.db", "0%", "8"))
        .assert()
        .code(0)
        .stdout(
            predicate::str::contains("inconclusive — against 8 version(s)")
                .and(predicate::str::contains("(1 df)"))
                .and(predicate::str::contains("or in two sessions"))
                .and(predicate::str::contains("--candidate REV")),
        );
    // Against one chosen version: unpaired, and said so.
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .arg("check")
        .args(["--baseline", "main"])
        .arg(&slower)
        .args([
            "--machine",
            "m",
            "--baseline-version",
            "v1",
            "--fail-on",
            "regression",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("parse (new) is 9.9% slower"))
        .stderr(predicate::str::contains("against v1").and(predicate::str::contains("unpaired")));
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .arg("check")
        .arg(&slower)
        .args(["--machine", "m", "--baseline", "nosuch"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no history of branch 'nosuch' on m (stored branches: main)",
        ));
    // A result whose benchmarks the history has never stored: named, beside those it has.
    let other = dir.path("other.json");
    sim()
        .args([
            "--seed",
            "9",
            "-r",
            "5",
            "-n",
            "lex",
            "mean=1ms,execution=1%",
        ])
        .arg("--export-json")
        .arg(&other)
        .assert()
        .success();
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .arg("check")
        .arg(&other)
        .args(["--machine", "m", "--baseline", "main"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no stored version of 'lex' on m (main) to check against (stored there: 'parse')",
        ));
    let same = result("same.json", "10ms", "8");
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .arg("check")
        .args(["--baseline", "main"])
        .arg(&same)
        .args(["--machine", "m", "--fail-on", "regression"])
        .assert()
        .success();
}

#[test]
fn reading_commands_need_an_existing_history_and_make_none() {
    let dir = Dir::new();
    let db = dir.path("nowhere/h.db");
    for args in [
        vec!["changes"],
        vec!["show", "x"],
        vec!["status", "1", "invalid"],
    ] {
        rigor()
            .args(["track", "--db"])
            .arg(&db)
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("no history at"));
    }
    assert!(!dir.path("nowhere").exists());
}

#[test]
fn bisect_refuses_ends_in_the_wrong_order_and_unknown_revisions() {
    let dir = Dir::new();
    let repo = dir.path("repo");
    let Some(ids) = history_repo_or_skip(&repo) else {
        return;
    };
    rigor()
        .args(["track", "--db"])
        .arg(dir.path("h.db"))
        .args(["bisect", &ids[5], &ids[1], "--repo"])
        .arg(&repo)
        .args(["--", "./bench"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give the older version first"));
    // A GOOD of another branch is refused too: `good..bad` listed that branch's merge base and
    // what followed it as "between" the ends.
    git(&repo, &["checkout", "-q", "-b", "side", &ids[3]]);
    let side = common::gitrepo::commit(&repo, 100);
    git(&repo, &["checkout", "-q", "main"]);
    rigor()
        .args(["track", "--db"])
        .arg(dir.path("h.db"))
        .args(["bisect", &side, &ids[8], "--repo"])
        .arg(&repo)
        .args(["--", "./bench"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("does not come after"));
    rigor()
        .args(["track", "--db"])
        .arg(dir.path("h.db"))
        .args(["run", "nosuchrev", "--repo"])
        .arg(&repo)
        .args(["--", "./bench"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown revision 'nosuchrev'"));
    // A bad end of a range: one error naming it and the range, not git's advice.
    for (range, bad) in [
        ("nosuchrev..HEAD", "nosuchrev"),
        ("HEAD~2..nosuchrev", "nosuchrev"),
    ] {
        let out = rigor()
            .args(["track", "--db"])
            .arg(dir.path("h.db"))
            .args(["run", range, "--repo"])
            .arg(&repo)
            .args(["--", "./bench"])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("unknown revision '{bad}' in the range '{range}'")),
            "{err}"
        );
        assert!(
            !err.contains("Use '--'") && !err.contains("fatal:"),
            "{err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

#[test]
fn publish_writes_a_dashboard_of_the_history() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    for (label, mean) in [("v1", "10ms"), ("v2", "10ms"), ("v3", "12ms")] {
        let file = dir.path(&format!("{label}.json"));
        sim()
            .args(["--seed", "1", "-r", "5"])
            .arg(format!(
                "mean={mean},execution=1%,iteration=1%,iterations=5"
            ))
            .args(["-n", "<b>compile</b>"])
            .arg("--export-json")
            .arg(&file)
            .assert()
            .success();
        rigor()
            .args(["track", "--db"])
            .arg(&db)
            .arg("add")
            .arg(&file)
            .args(["--version", label, "--machine", "m", "--branch", "main"])
            .assert()
            .success();
    }
    let site = dir.path("site");
    let publish = |args: &[&str]| {
        stdout_of(
            rigor()
                .args(["track", "--db"])
                .arg(&db)
                .args(["publish", "-o"])
                .arg(&site)
                .args(args),
        )
    };
    let out = publish(&[
        "--title",
        "Nightly <perf>",
        "--repo-url",
        "https://example.org/p",
    ]);
    assert!(
        out.contains("Published 1 benchmark page(s)") && out.contains("1 rewritten"),
        "{out}"
    );
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("<h1>Nightly &lt;perf&gt;</h1>"), "{index}");
    assert!(index.contains("&lt;b&gt;compile&lt;/b&gt;"));
    assert!(index.contains("script-src 'sha256-"));
    let pages: Vec<_> = std::fs::read_dir(site.join("b")).unwrap().collect();
    assert_eq!(pages.len(), 1);
    // Unchanged history: the benchmark page is not rewritten.
    let out = publish(&[
        "--title",
        "Nightly <perf>",
        "--repo-url",
        "https://example.org/p",
    ]);
    assert!(out.contains("0 rewritten"), "{out}");
    // Grouped by a pattern: only the index changes.
    let out = publish(&[
        "--title",
        "Nightly <perf>",
        "--repo-url",
        "https://example.org/p",
        "--group",
        "(comp)ile",
    ]);
    assert!(out.contains("0 rewritten"), "{out}");
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("<th colspan=\"6\">comp</th>"), "{index}");
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .args(["publish", "-o"])
        .arg(&site)
        .args(["--group", "(unclosed"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--group '(unclosed' is not a regular expression",
        ));
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .args(["publish", "-o"])
        .arg(&site)
        .args(["--repo-url", "javascript:alert(1)"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--repo-url must be a web address"));
}

#[test]
fn a_file_of_versions_measured_together_is_stored_version_by_version() {
    let dir = Dir::new();
    let repo = dir.path("repo");
    let Some(ids) = history_repo_or_skip(&repo) else {
        return;
    };
    let runs = dir.path("runs");
    rigor()
        .args(["track", "--db"])
        .arg(dir.path("a.db"))
        .args(["run", "--repo"])
        .arg(&repo)
        .args(["--last", "3", "--batch", "3", "--machine", "m", "-r", "3"])
        .args(["--build", "gcc -O2 -o bench bench.c", "--export-json"])
        .arg(runs.join("r.json"))
        .args(["--", "./bench"])
        .assert()
        .success();
    let batch: Vec<_> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.to_string_lossy().contains(".version."))
        .collect();
    assert_eq!(batch.len(), 1, "one file of the three versions: {batch:?}");
    let db = dir.path("b.db");
    let out = stdout_of(
        rigor()
            .args(["track", "--db"])
            .arg(&db)
            .args(["add", "--repo"])
            .arg(&repo)
            .args(["--machine", "m"])
            .arg(&batch[0]),
    );
    assert_eq!(out.matches("Stored ").count(), 3, "{out}");
    for id in &ids[ids.len() - 3..] {
        assert!(out.contains(&id[..10]), "{id} stored: {out}");
    }
    // Each version's benchmark under its own name, so that its history reads as one series.
    // (`--branch`: the repository's branch, not that of the checkout the tests run in.)
    let show = stdout_of(rigor().args(["track", "--db"]).arg(&db).args([
        "show",
        "./bench",
        "--machine",
        "m",
        "--branch",
        "main",
    ]));
    assert_eq!(show.lines().count(), 2 + 3, "{show}");
}

#[test]
fn track_run_outside_a_repository_says_so_and_makes_nothing() {
    let dir = Dir::new();
    rigor()
        .current_dir(dir.0.path())
        .args(["track", "run", "--last", "2", "-r", "3", "--", "true"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not in a git repository"));
    assert!(!dir.path(".rigor").exists(), "no empty history left behind");
}

#[test]
fn a_result_that_measured_nothing_is_added_as_a_failed_version() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    let add = |spec: &str, version: &str, code: i32| {
        let path = dir.path(&format!("{version}.json"));
        sim()
            .args([
                "--seed",
                "1",
                "-r",
                "3",
                "-w",
                "0",
                "-n",
                "bench",
                spec,
                "--export-json",
            ])
            .arg(&path)
            .assert()
            .code(code);
        stdout_of(
            rigor()
                .args(["track", "--db"])
                .arg(&db)
                .args([
                    "add",
                    "--version",
                    version,
                    "--machine",
                    "m",
                    "--branch",
                    "main",
                ])
                .arg(&path),
        )
    };
    let out = add("mean=1ms,fail=1", "v1", 2);
    assert!(
        out.contains("measured nothing: v1 recorded as failed"),
        "{out}"
    );
    let out = add("mean=1ms,execution=1%", "v2", 0);
    assert!(out.contains("Stored"), "{out}");
    let show = stdout_of(rigor().args(["track", "--db"]).arg(&db).args([
        "show",
        "bench",
        "--machine",
        "m",
        "--branch",
        "main",
    ]));
    assert!(show.contains("the version failed"), "{show}");
}

/// The interleaved gate on a simulated project: the baseline's version itself, or a version
/// whose build is byte-identical to it, is identical without measuring; another version as fast
/// is equivalent, one 8% slower is a regression that --fail-on gates; nothing of any is stored
/// in the history.
#[test]
fn check_candidate_measures_both_together_until_decided() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    let check = |candidate: &str, baseline: &str| {
        rigor()
            .current_dir(dir.0.path())
            .args(["track", "--db"])
            .arg(&db)
            .args([
                "check",
                "--simulate",
                "versions=20,step=12:+8%,session=20%,identical=3-4",
            ])
            .args(["--candidate", candidate, "--baseline-rev", baseline])
            .args(["--seed", "2", "-n", "b", "--fail-on", "regression"])
            .args(["--machine", "m", "--baseline", "main"])
            .args(["--", "mean=10ms,execution=2%"])
            .output()
            .unwrap()
    };
    // The baseline's own version is said to be that (a gate on a commit already stored would
    // otherwise pass as "identical" without comparing anything); a byte-identical build is
    // identical.
    for (candidate, baseline, says) in [
        (
            "v20",
            "v20",
            "b: the candidate is the baseline's own version: nothing compared",
        ),
        ("v4", "v3", "b: identical build: no change (not measured)"),
    ] {
        let same = check(candidate, baseline);
        let out = String::from_utf8_lossy(&same.stdout);
        assert_eq!(same.status.code(), Some(0), "{out}");
        assert!(out.contains(says), "{out}");
    }
    assert!(!dir.path("runs").exists(), "nothing measured");
    // An unknown candidate is refused before the opening line says it will be compared.
    let unknown = check("nosuchrev", "v18");
    let (out, err) = (
        String::from_utf8_lossy(&unknown.stdout),
        String::from_utf8_lossy(&unknown.stderr),
    );
    assert_eq!(unknown.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("nosuchrev"), "{err}");
    assert!(!format!("{out}{err}").contains("against"), "{out}{err}");
    let as_fast = check("v19", "v18");
    let out = String::from_utf8_lossy(&as_fast.stdout);
    assert_eq!(as_fast.status.code(), Some(0), "{out}");
    assert!(out.contains("equivalent"), "{out}");
    let slower = check("v12", "v11");
    let out = String::from_utf8_lossy(&slower.stdout);
    assert_eq!(slower.status.code(), Some(1), "{out}");
    assert!(out.contains("b: +") && out.contains("regression"), "{out}");
    let h = rigor_history::SqliteHistory::open(&db).unwrap();
    use rigor_history::HistoryRead;
    assert!(h.series_keys().unwrap().is_empty(), "nothing stored");
    // The result files written as the gate measured say how it measured: until decided, not
    // the fixed counts it was resolved with.
    let runs: Vec<_> = std::fs::read_dir(dir.path("checks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    for run in runs {
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
        assert_eq!(r["settings"]["mode"]["kind"], "until_decided", "{run:?}");
    }
}

/// `track run --builds` with the README's `{src}` in the build command: every version is
/// built from its own checkout, in the sessions where it is measured beside its anchors too
/// (`{src}` was put in only when a session held one version, so every session after the first
/// failed: "{src}/prog.c: No such file").
#[test]
fn builds_of_each_version_take_its_own_checkout_beside_the_anchors() {
    if !common::gitrepo::have("git") || !common::gitrepo::have("gcc") {
        eprintln!("SKIP: git and gcc are needed");
        return;
    }
    let dir = Dir::new();
    let repo = dir.path("repo");
    common::gitrepo::empty_commits(&repo, 0);
    for i in 0..3 {
        std::fs::write(
            repo.join("prog.c"),
            format!("int main(void) {{ return {i} * 0; }}\n"),
        )
        .unwrap();
        common::gitrepo::commit(&repo, i);
    }
    let out = rigor()
        .args(["track", "--db"])
        .arg(dir.path("h.db"))
        .args(["run", "--last", "3", "--repo"])
        .arg(&repo)
        .args(["--machine", "m", "--branch", "main", "--no-confirm"])
        .args(["--builds", "2", "-r", "2", "-w", "0", "--build"])
        .arg("gcc -o {build_dir}/prog {src}/prog.c")
        .args(["--", "{build_dir}/prog"])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("Tracked 3 version(s) (0 already stored, 0 failed) in 3 sessions"),
        "{stdout}\n{stderr}"
    );
    assert!(stderr.contains("anchor"), "{stderr}");
    assert!(!stderr.contains("{src}"), "{stderr}");
}

/// `{build_dir}` without `--builds` is refused before anything is built or measured: only
/// builds as a level fill it, so every version would have failed to build (and, stored as
/// failed, been skipped by the next run).
#[test]
fn build_dir_without_builds_is_refused_before_anything_runs() {
    if !common::gitrepo::have("git") {
        eprintln!("SKIP: git is needed");
        return;
    }
    let dir = Dir::new();
    let repo = dir.path("repo");
    common::gitrepo::empty_commits(&repo, 2);
    for (build, command) in [
        ("gcc -o {build_dir}/prog {src}/prog.c", "{src}/prog"),
        ("gcc -o {src}/prog {src}/prog.c", "{build_dir}/prog"),
    ] {
        let out = rigor()
            .args(["track", "--db"])
            .arg(dir.path("h.db"))
            .args(["run", "--last", "2", "--repo"])
            .arg(&repo)
            .args(["--machine", "m", "--branch", "main", "--build", build])
            .args(["--", command])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("names {build_dir}, which only --builds N fills"),
            "{stderr}"
        );
        assert!(
            out.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(!stderr.contains("failed: build"), "{stderr}");
        // The refused command leaves no history file behind (it made an empty one before).
        assert!(
            !dir.path("h.db").exists(),
            "an empty history was left behind"
        );
    }
}

/// `-- sh bench.sh` is two commands, and `bench.sh` cannot start in any version: each version
/// is measured (`sh` runs), the benchmark that measured nothing is a failure of each version
/// (counted, exit 2), and the words are suggested as one command.
#[test]
fn a_benchmark_that_measured_nothing_fails_its_versions_with_a_hint() {
    if !common::gitrepo::have("git") {
        eprintln!("SKIP: git is needed");
        return;
    }
    let dir = Dir::new();
    let repo = dir.path("repo");
    common::gitrepo::empty_commits(&repo, 2);
    let out = rigor()
        .args(["track", "--db"])
        .arg(dir.path("h.db"))
        .args(["run", "--last", "2", "--repo"])
        .arg(&repo)
        .args([
            "--machine",
            "m",
            "--branch",
            "main",
            "-r",
            "2",
            "-w",
            "0",
            "--no-confirm",
        ])
        .args(["--", "true", "./no-such-script.sh"])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("Tracked 2 version(s) (0 already stored, 2 failed)"),
        "{stdout}"
    );
    assert!(
        stderr.contains("measured nothing of ./no-such-script.sh"),
        "{stderr}"
    );
    assert!(
        stderr.contains("quote it: -- 'true ./no-such-script.sh'"),
        "{stderr}"
    );
}

/// Ctrl-C while `track run` measures: the versions of the sessions already stored stay stored,
/// the rest are not measured, it says so, and exits 130 (it once reported "0 failed" and 0).
#[test]
fn an_interrupted_track_run_says_what_it_stored_and_exits_130() {
    if !common::gitrepo::have("git") || !common::gitrepo::have("kill") {
        eprintln!("SKIP: git and kill are needed");
        return;
    }
    // SIGTERM (a service stopped, a CI job cancelled) stops it as Ctrl-C does.
    for signal in ["-INT", "-TERM"] {
        interrupted_by(signal);
    }
}

fn interrupted_by(signal: &str) {
    let dir = Dir::new();
    let repo = dir.path("repo");
    common::gitrepo::empty_commits(&repo, 6);
    let db = dir.path("h.db");
    let child = Command::new(env!("CARGO_BIN_EXE_rigor"))
        .args(["track", "--db"])
        .arg(&db)
        .args(["run", "--last", "6", "--repo"])
        .arg(&repo)
        .args([
            "--machine",
            "m",
            "--branch",
            "main",
            "--batch",
            "1",
            "--no-confirm",
        ])
        .args(["-r", "4", "-w", "0", "--", "sleep 0.2"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupted once a version is stored (each takes about a second).
    let stored_now = || {
        db.exists()
            && rigor_history::SqliteHistory::open(&db)
                .ok()
                .and_then(|h| {
                    use rigor_history::HistoryRead;
                    h.versions(&rigor_history::SeriesKey::new("m", "main")).ok()
                })
                .is_some_and(|v| !v.is_empty())
    };
    let start = std::time::Instant::now();
    while !stored_now() && start.elapsed() < std::time::Duration::from_secs(120) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let ok = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(130),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("Interrupted"), "{stdout}");
    let h = rigor_history::SqliteHistory::open(&db).unwrap();
    use rigor_history::HistoryRead;
    let stored = h
        .versions(&rigor_history::SeriesKey::new("m", "main"))
        .unwrap()
        .len();
    assert!(
        (1..6).contains(&stored),
        "{stored} versions stored: {stdout}"
    );
    // The count it gives is what it stored: a version of the session the stop cut short is
    // not counted (it was counted as tracked, though not stored), and its file is named.
    let said: usize = stdout
        .split_once("Tracked ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {stdout}"));
    assert_eq!(said, stored, "{stdout}");
    if let Some((_, rest)) = stdout.split_once("what they measured is kept in ") {
        let file = rest.split_whitespace().next().unwrap();
        assert!(std::path::Path::new(file).exists(), "{file}: {stdout}");
        // `track add` stores it as it is, with no note that the file records no commit (it
        // names each version itself).
        let added = rigor()
            .args(["track", "--db"])
            .arg(&db)
            .args(["add", "--machine", "m", "--branch", "main", "--repo"])
            .arg(&repo)
            .arg(file)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&added.stderr);
        assert!(added.status.success(), "{err}");
        assert!(!err.contains("records no commit"), "{err}");
        let now = h
            .versions(&rigor_history::SeriesKey::new("m", "main"))
            .unwrap()
            .len();
        assert!(now > stored, "{now} after adding {file}: {err}");
    }
}

/// A repository of `commits` empty commits in `dir`, or `None` (with a SKIP line) when git or
/// one of `tools` is missing.
fn empty_repo_or_skip(dir: &Dir, commits: usize, tools: &[&str]) -> Option<std::path::PathBuf> {
    if let Some(missing) = std::iter::once(&"git")
        .chain(tools)
        .find(|t| !common::gitrepo::have(t))
    {
        eprintln!("SKIP: {missing} is needed");
        return None;
    }
    let repo = dir.path("repo");
    common::gitrepo::empty_commits(&repo, commits);
    Some(repo)
}

/// A `track run` file added to another history keeps what the builds' hashes tell: versions
/// whose builds are byte-identical share a level there as they do where `track run` stored them
/// (the file did not record the hashes, so `track add` of an interrupted session's file lost
/// them).
#[test]
fn track_add_of_a_track_run_file_keeps_identical_builds() {
    let dir = Dir::new();
    let Some(repo) = empty_repo_or_skip(&dir, 0, &[]) else {
        return;
    };
    // c1 changes only NOTES: its build is c0's, byte for byte.
    for i in 0..3 {
        std::fs::write(
            repo.join("build.sh"),
            "cp prog.sh built && chmod +x built\n",
        )
        .unwrap();
        let wait = if i == 2 { "0.02" } else { "0.01" };
        std::fs::write(repo.join("prog.sh"), format!("#!/bin/sh\nsleep {wait}\n")).unwrap();
        common::gitrepo::commit(&repo, i);
    }
    let track = |db: &str, args: &[&str]| {
        let out = rigor()
            .args(["track", "--db"])
            .arg(dir.path(db))
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{err}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let repo_text = repo.display().to_string();
    let series = ["--machine", "m", "--branch", "main"];
    let on = |args: &[&str], with_repo: bool| -> Vec<String> {
        let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        all.extend(series.iter().map(|a| a.to_string()));
        if with_repo {
            all.extend(["--repo".to_string(), repo_text.clone()]);
        }
        all
    };
    let run = on(
        &[
            "run",
            "--last",
            "3",
            "-r",
            "3",
            "-w",
            "0",
            "--no-confirm",
            "--build",
            "sh build.sh",
        ],
        true,
    );
    let mut run: Vec<&str> = run.iter().map(String::as_str).collect();
    run.extend(["--", "./built"]);
    track("h.db", &run);
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir.path("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(text.contains("\"artifact\""), "{text}");
        let add = on(&["add", file.to_str().unwrap()], true);
        track(
            "other.db",
            &add.iter().map(String::as_str).collect::<Vec<_>>(),
        );
    }
    let marks = |db: &str| -> Vec<serde_json::Value> {
        let show = on(&["show", "./built", "--json"], false);
        let out = track(db, &show.iter().map(String::as_str).collect::<Vec<_>>());
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v.as_array()
            .unwrap_or_else(|| panic!("{out}"))
            .iter()
            .map(|p| p["identical_to_previous"].clone())
            .collect()
    };
    assert_eq!(marks("h.db"), marks("other.db"));
    assert_eq!(marks("other.db")[1], serde_json::json!(true));
}

/// Ctrl-C during `track check --candidate` exits 130 and says the comparison shown is of what
/// was measured before the stop (it exited 0 with a partial comparison, which a CI gate read as
/// a pass).
#[test]
fn an_interrupted_check_exits_130_and_says_so() {
    let dir = Dir::new();
    let Some(repo) = empty_repo_or_skip(&dir, 2, &["kill", "python3"]) else {
        return;
    };
    // Durations spread over 0–200 ms: no comparison decides within the few seconds before the
    // stop.
    let child = Command::new(env!("CARGO_BIN_EXE_rigor"))
        .current_dir(dir.0.path())
        .args(["track", "--db", "h.db", "check", "--repo"])
        .arg(&repo)
        .args(["--candidate", "HEAD", "--baseline-rev", "HEAD~1", "--"])
        .arg("python3 -c 'import random, time; time.sleep(random.random() / 5)'")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert!(
        Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap()
            .success()
    );
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("rigor: interrupted: what is shown above was measured before the stop"),
        "{err}"
    );
}

/// A stop during a build (SIGTERM: a CI job cancelled; Ctrl-C alike) ends the build at once
/// (it ran to its end before), stores no failure for the versions it did not measure (a stored
/// failure is skipped by the next run), and exits 130; the relative `--db` and `--repo` of a
/// user outside any repository name the same checkouts for git and the build.
#[test]
fn a_stop_during_a_build_ends_it_and_stores_no_failure() {
    if !common::gitrepo::have("git") || !common::gitrepo::have("kill") {
        eprintln!("SKIP: git and kill are needed");
        return;
    }
    let dir = Dir::new();
    let repo = dir.path("repo");
    common::gitrepo::empty_commits(&repo, 2);
    let started = dir.path("started");
    let build = format!("sh -c 'touch {}; sleep 60'", started.display());
    let child = Command::new(env!("CARGO_BIN_EXE_rigor"))
        .current_dir(dir.0.path())
        .args([
            "track", "--db", "h.db", "run", "--last", "2", "--repo", "repo",
        ])
        .args(["--machine", "m", "--branch", "main", "--no-confirm"])
        .args(["--build", &build, "-r", "2", "--", "true"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !started.exists() && start.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(started.exists(), "the build never started");
    let stopped = std::time::Instant::now();
    let ok = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        stopped.elapsed() < std::time::Duration::from_secs(40),
        "the build ran on: {stderr}"
    );
    assert_eq!(out.status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(stdout.contains("0 failed"), "{stdout}");
    assert!(!stderr.contains("No such file"), "{stderr}");
    let h = rigor_history::SqliteHistory::open(&dir.path("h.db")).unwrap();
    use rigor_history::HistoryRead;
    let key = rigor_history::SeriesKey::new("m", "main");
    let failed: usize = h.versions(&key).unwrap().iter().map(|v| v.failed).sum();
    assert_eq!(failed, 0, "{stdout}");
}

/// `track run --export-json DIR/NAME.json` writes its result files into DIR, and says that NAME
/// is not used (it was ignored silently).
#[test]
fn the_export_file_name_of_a_track_run_is_said_unused() {
    let dir = Dir::new();
    let out = rigor()
        .current_dir(dir.0.path())
        .args(["track", "--db", "h.db", "run", "--simulate", "versions=2"])
        .args([
            "--last",
            "2",
            "--machine",
            "m",
            "--branch",
            "main",
            "-r",
            "2",
        ])
        .args(["--export-json", "x/mine.json", "--", "mean=1ms"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("the result files go into x (") && stderr.contains("mine.json is not used"),
        "{stderr}"
    );
    let files: Vec<_> = std::fs::read_dir(dir.path("x")).unwrap().collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(!dir.path("x/mine.json").exists());
}

/// `track bisect --metric cpu` follows CPU time (the simulated executor's CPU time is its wall
/// time, so the step at v12 is found) and says which metric the ends differ in; two metrics are
/// refused before anything is measured.
#[test]
fn bisect_follows_the_metric_asked_for() {
    let dir = Dir::new();
    let bisect = |metric: &str| {
        rigor()
            .current_dir(dir.0.path())
            .args(["track", "--db", "h.db", "bisect"])
            .args(["--simulate", "versions=16,step=12:+8%,session=0%"])
            .args(["v1", "v16", "--seed", "2", "-n", "b", "--machine", "m"])
            .args(["--metric", metric, "--", "mean=10ms,execution=2%"])
            .output()
            .unwrap()
    };
    let cpu = bisect("cpu");
    let out = String::from_utf8_lossy(&cpu.stdout);
    assert_eq!(cpu.status.code(), Some(0), "{out}");
    assert!(out.contains("First changed version: v12"), "{out}");
    assert!(out.contains("% in cpu (sequence"), "{out}");
    let two = bisect("wall,cpu");
    let err = String::from_utf8_lossy(&two.stderr);
    assert_eq!(two.status.code(), Some(2), "{err}");
    assert!(err.contains("a bisection follows one metric"), "{err}");
    assert!(!dir.path("h.db").exists() || two.stdout.is_empty());
}

/// The changes `track run` lists after confirming them are those `track changes` then shows,
/// the confirmations' runs included (its table had kept the intervals from before them).
#[test]
fn track_run_lists_the_changes_as_track_changes_shows_them() {
    let dir = Dir::new();
    let track = |args: &[&str]| {
        let out = rigor()
            .current_dir(dir.0.path())
            .args(["track", "--db", "h.db"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let table = text
            .split_once("Changes (")
            .map(|(_, t)| t.to_string())
            .unwrap_or_else(|| panic!("no table in {text}"));
        (table, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (run, err) = track(&[
        "run",
        "--simulate",
        "versions=16,step=9:+25%",
        "--seed",
        "3",
        "-n",
        "b",
        "--machine",
        "m",
        "--last",
        "16",
        "--",
        "mean=10ms,execution=2%",
    ]);
    assert!(err.contains("confirmed: measured together"), "{err}");
    let (changes, _) = track(&["changes", "--machine", "m"]);
    assert!(run.contains("confirmed"), "{run}");
    assert_eq!(run, changes);
    // `track show` gives the change's own figure beside the step, so that the two numbers are
    // not read as one that disagrees with itself (a trial saw −9.6% there, −9.1% here).
    let show = stdout_of(rigor().current_dir(dir.0.path()).args([
        "track",
        "--db",
        "h.db",
        "show",
        "--machine",
        "m",
        "b",
    ]));
    let line = show
        .lines()
        .find(|l| l.trim_start().starts_with("v9 "))
        .unwrap_or_else(|| panic!("{show}"));
    let ratio = changes
        .lines()
        .find(|l| l.contains(" v9 "))
        .and_then(|l| l.split_whitespace().nth(3))
        .unwrap_or_else(|| panic!("{changes}"));
    assert!(
        line.contains("regression")
            && line.ends_with(&format!(
                "(change 1: {ratio} between the segments either side)"
            )),
        "{line}\n{changes}"
    );
}

/// A midpoint that fails to build is skipped for the nearest version that builds, as `git
/// bisect skip` does (the bisection stopped there); with every version between the ends it has
/// narrowed failing, it ends with that range and names them.
#[test]
fn bisect_skips_midpoints_that_fail_to_build() {
    let dir = Dir::new();
    let Some(repo) = empty_repo_or_skip(&dir, 0, &[]) else {
        return;
    };
    let program = |seconds: &str| format!("#!/bin/sh\nsleep {seconds}\n");
    let mut ids = Vec::new();
    // c0–c2 fast; c3 and c4 do not build; c5 builds again, 50% slower; c6 as c5.
    for i in 0..7 {
        let build = if i == 3 || i == 4 {
            "echo broken >&2; exit 1\n"
        } else {
            "cp prog.sh built && chmod +x built\n"
        };
        let slow = if i >= 5 { "0.03" } else { "0.02" };
        std::fs::write(repo.join("build.sh"), build).unwrap();
        std::fs::write(repo.join("prog.sh"), program(slow)).unwrap();
        ids.push(common::gitrepo::commit(&repo, i));
    }
    let out = rigor()
        .current_dir(dir.0.path())
        .args(["track", "--db", "h.db", "bisect", "--repo"])
        .arg(&repo)
        .args([&ids[0], &ids[6]])
        .args(["--build", "sh build.sh", "-w", "0", "--", "./built"])
        .output()
        .unwrap();
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        err.contains(&format!(
            "rigor: {} is skipped, as `git bisect skip` would",
            &ids[3][..10]
        )),
        "{err}"
    );
    assert!(
        text.contains(&format!(
            "The change lies after {} and at or before {}; the 2 versions between them failed \
             to build ({}, {})",
            &ids[2][..10],
            &ids[5][..10],
            &ids[3][..10],
            &ids[4][..10]
        )),
        "{text}{err}"
    );
    assert_eq!(out.status.code(), Some(1), "{text}{err}");
}

/// `--confirm-budget` says that a confirmation also stops at its most rounds, the number the
/// confirmation uses: an undecided confirmation after 20 s of a 60 s budget read as if the
/// budget had been spent.
#[test]
fn confirm_budget_names_the_rounds_that_also_stop_a_confirmation() {
    let help = stdout_of(rigor().args(["track", "run", "--help"]))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let most = rigor_app::track::ConfirmSettings::default().max_rounds;
    assert!(
        help.contains(&format!("stops after {most} rounds")),
        "{help}"
    );
}

/// A bisection that cannot answer exits 1 and says so: a script must not read "could not tell
/// whether anything changed" as success (it exited 0).
#[test]
fn an_undecided_bisection_exits_1() {
    let dir = Dir::new();
    let out = rigor()
        .current_dir(dir.0.path())
        .args(["track", "--db", "h.db", "bisect"])
        .args(["--simulate", "versions=8,session=0%"])
        .args(["v1", "v8", "--seed", "2", "-n", "b", "--machine", "m"])
        .args(["--max-rounds", "2", "--", "mean=10ms,execution=2%"])
        .output()
        .unwrap();
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        text.contains("Could not tell whether anything changed"),
        "{text}"
    );
    assert!(
        err.contains("undecided (shown above), exit status 1"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(1), "{text}{err}");
}

/// A bisection follows the ends' difference to one version: over a range where the history
/// holds a rise and a fall back, it says which stored changes lie between the ends (the trial's
/// bisection named one change of several without a word of the others); over a range holding
/// only the change it names, it adds nothing.
#[test]
fn bisect_names_the_other_stored_changes_between_the_ends() {
    let track = |dir: &Dir, project: &str, args: &[&str]| {
        rigor()
            .current_dir(dir.0.path())
            .args(["track", "--db", "h.db"])
            .args(args)
            .args([
                "--simulate",
                project,
                "--seed",
                "2",
                "-n",
                "b",
                "--machine",
                "m",
            ])
            .args(["--", "mean=10ms,execution=2%"])
            .output()
            .unwrap()
    };
    // A rise and a fall back: the ends are close, and the bisection names neither.
    let (dir, back) = (
        Dir::new(),
        "versions=16,step=5:+20%,step=12:-15%,session=0%",
    );
    let run = track(&dir, back, &["run", "--last", "16"]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let whole = track(&dir, back, &["bisect", "v1", "v16"]);
    let out = String::from_utf8_lossy(&whole.stdout);
    assert!(
        out.contains("The history holds 2 stored changes of b between v1 and v16: v5 +")
            && out.contains("(regression), v12 −")
            && out.contains("(improvement). A bisection follows"),
        "{out}"
    );
    // A rise and a smaller fall: the bisection names the rise and says there is another.
    let (dir, less) = (Dir::new(), "versions=16,step=5:+20%,step=12:-5%,session=0%");
    track(&dir, less, &["run", "--last", "16"]);
    let whole = track(&dir, less, &["bisect", "v1", "v16"]);
    let out = String::from_utf8_lossy(&whole.stdout);
    assert!(out.contains("First changed version: v5"), "{out}");
    assert!(
        out.contains("also holds 1 other change of b between v1 and v16: v12 −")
            && out.contains("to place the other."),
        "{out}"
    );
    // Only the change it names in the range: nothing more.
    let first = track(&dir, less, &["bisect", "v1", "v8"]);
    let out = String::from_utf8_lossy(&first.stdout);
    assert!(out.contains("First changed version: v5"), "{out}");
    assert!(!out.contains("The history"), "{out}");
}

/// `track run --threshold` is the practical threshold of the detection that follows the
/// measurement (it was ignored: detection took 1% whatever was typed).
#[test]
fn track_run_detects_with_the_threshold_given() {
    let dir = Dir::new();
    let run = |threshold: &str| {
        let out = rigor()
            .current_dir(dir.0.path())
            .args(["track", "--db", &format!("h{threshold}.db"), "run"])
            .args([
                "--simulate",
                "versions=12,step=8:+8%,session=0%",
                "--last",
                "12",
            ])
            .args(["--seed", "3", "-n", "b", "--machine", "m", "--no-confirm"])
            .args(["--threshold", threshold, "--", "mean=10ms,execution=2%"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let strict = run("1%");
    assert!(
        strict.contains("regression") && strict.contains("v8"),
        "{strict}"
    );
    let lax = run("20%");
    assert!(lax.contains("No changes detected"), "{lax}");
}

/// A regression at the newest version is reported when it arrives, by `track run` and by the
/// `track changes` after it, and it hides neither an earlier change nor itself (before, a step
/// at the newest version was never a candidate and, inflating the between-version variance,
/// made the earlier change vanish too).
#[test]
fn a_regression_at_the_newest_version_is_reported_and_hides_nothing() {
    let dir = Dir::new();
    let out = rigor()
        .current_dir(dir.0.path())
        .args(["track", "--db", "h.db", "run"])
        .args([
            "--simulate",
            "versions=20,step=10:+10%,step=20:+50%,session=0%",
        ])
        .args(["--last", "20", "--seed", "1", "-n", "b", "--machine", "m"])
        .args(["--", "mean=10ms,execution=2%"])
        .output()
        .unwrap();
    let run = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{run}");
    let changes = stdout_of(
        rigor()
            .current_dir(dir.0.path())
            .args(["track", "--db", "h.db", "changes"]),
    );
    for out in [&*run, &*changes] {
        assert!(out.contains(" v10 ") && out.contains(" v20 "), "{out}");
    }
}

/// A user's history measured under load (sessions shifting by ±50%) held a confirmed rise and
/// a fall back; a version 20% slower was added, and `track changes` then said "No changes
/// detected" — the two confirmed changes gone, the new regression missed, `--fail-on
/// regression` passing. The candidate scan stopped at a split that a level returning later
/// dilutes; now all three are reported and the gate fails.
#[test]
fn a_slower_newest_version_keeps_the_changes_before_it() {
    let dir = Dir::new();
    let project = |versions: &str, last: &str| {
        format!("versions={versions},step=10:+15%,step=20:-20%{last},session=50%,load=2-5")
    };
    let run = |spec: String, which: &[&str], seed: &str| {
        let out = rigor()
            .current_dir(dir.0.path())
            .args(["track", "--db", "h.db", "run", "--simulate", &spec])
            .args(which)
            .args(["--seed", seed, "-n", "b", "--machine", "m", "-r", "10"])
            .args(["--batch", "5", "--", "mean=10ms,execution=5%"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    };
    run(project("29", ""), &["--last", "29"], "11");
    run(project("30", ",step=30:+20%"), &["v30"], "111");
    let out = rigor()
        .current_dir(dir.0.path())
        .args([
            "track",
            "--db",
            "h.db",
            "changes",
            "--fail-on",
            "regression",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for version in [" v10 ", " v20 ", " v30 "] {
        assert!(text.contains(version), "{version}: {text}");
    }
    assert!(!text.contains("no longer detected"), "{text}");
    assert_ne!(out.status.code(), Some(0), "{text}");
}

/// `track check --candidate DIR --build CMD` builds the folder before measuring it, as it
/// builds a revision (it measured whatever stale build the folder held); a build that fails
/// is an error naming the folder.
#[test]
fn a_candidate_folder_is_built_before_it_is_measured() {
    if !common::gitrepo::have("git") {
        eprintln!("SKIP: git is needed");
        return;
    }
    let dir = Dir::new();
    let repo = dir.path("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    let base = common::gitrepo::commit(&repo, 0);
    let check = |build: &str| {
        rigor()
            .current_dir(dir.0.path())
            .args(["track", "--db", "h.db", "check", "--repo"])
            .arg(&repo)
            .arg("--candidate")
            .arg(&repo)
            .args([
                "--baseline-rev",
                &base,
                "--max-rounds",
                "4",
                "--machine",
                "m",
            ])
            .args([
                "--baseline",
                "main",
                "--build",
                build,
                "-n",
                "t",
                "--",
                "true",
            ])
            .output()
            .unwrap()
    };
    let built = check("touch built-here");
    assert!(
        repo.join("built-here").exists(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let failed = check("false");
    let err = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(2), "{err}");
    assert!(err.contains("building the candidate"), "{err}");
}

/// A candidate folder whose benchmarked program is byte-identical to the baseline's build is
/// identical without measuring, as a revision is (a folder was measured for all its rounds
/// before: only paths named by --artifacts were hashed there).
#[test]
fn a_candidate_folder_built_to_the_baselines_bytes_is_not_measured() {
    if !common::gitrepo::have("git") {
        eprintln!("SKIP: git is needed");
        return;
    }
    let dir = Dir::new();
    let repo = dir.path("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    let script = "#!/bin/sh\nexit 0\n";
    let executable = |path: &std::path::Path, body: &str| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(path, body).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    executable(&repo.join("prog.sh"), script);
    let base = common::gitrepo::commit(&repo, 0);
    let folder = dir.path("candidate");
    std::fs::create_dir(&folder).unwrap();
    let check = |body: &str| {
        executable(&folder.join("prog.sh"), body);
        let out = rigor()
            .current_dir(dir.0.path())
            .args(["track", "--db", "h.db", "check", "--repo"])
            .arg(&repo)
            .arg("--candidate")
            .arg(&folder)
            .args(["--baseline-rev", &base, "--max-rounds", "4"])
            .args(["--machine", "m", "--baseline", "main", "-n", "t"])
            .args(["--", "./prog.sh"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let same = check(script);
    assert!(
        same.contains("t: identical build: no change (not measured)"),
        "{same}"
    );
    let other = check("#!/bin/sh\nexit 0 # changed\n");
    assert!(!other.contains("identical build"), "{other}");
    // Its result file is kept apart from the branch's versions' (`runs/`, which `track add`
    // stores again): a new user's re-added folder would have stored the PR as a version.
    let files = |name: &str| std::fs::read_dir(dir.path(name)).map_or(0, |d| d.count());
    assert_eq!(files(".rigor/runs"), 0);
    assert_eq!(files(".rigor/checks"), 1);
    // Undecided in the rounds it may take (at least 8 whatever --max-rounds says): it says
    // which bound ended it.
    assert!(
        other.contains(
            "measuring stopped before it was decided (round limit reached after 8 rounds: raise \
             --max-rounds)"
        ),
        "{other}"
    );
}

/// A version whose benchmarked command exits with a status other than zero fails, and the run
/// says once, as `rigor run` does, that `-i/--ignore-failure` measures such a command; with
/// `-i` the versions are measured.
#[test]
fn a_command_that_exits_non_zero_fails_its_versions_with_the_ignore_failure_hint() {
    let dir = Dir::new();
    let run = |extra: &[&str]| {
        rigor()
            .current_dir(dir.0.path())
            .args(["track", "--db", "h.db", "run", "--simulate", "versions=3"])
            .args(["--last", "3", "--machine", "m", "-r", "3"])
            .args(extra)
            .args(["--", "mean=10ms,execution=2%,fail=1"])
            .output()
            .unwrap()
    };
    let failed = run(&[]);
    let err = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(2), "{err}");
    assert_eq!(
        err.matches("to measure a command whose exit status is not zero, use -i/--ignore-failure")
            .count(),
        1,
        "{err}"
    );
    // Run again, the failed versions are stored: said once for all, not a line each, as
    // versions that failed before (a user who fixed the command read "already stored" and
    // "No changes detected" and thought them measured).
    let again = run(&[]);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains(
            "rigor: v1, v2, v3 failed before (stored as failed, never measured): skipped; \
             --force measures them again (after fixing the build or the command)"
        ),
        "{err}"
    );
    assert_eq!(err.matches("failed before").count(), 1, "{err}");
    let out = String::from_utf8_lossy(&again.stdout);
    assert!(
        out.contains("Tracked 0 version(s) (3 already stored, 0 failed)")
            && out.contains(
                "\nThe versions already stored all failed before: --force measures them again\n"
            ),
        "{out}"
    );
    let ignored = run(&["-i", "--force"]);
    let out = String::from_utf8_lossy(&ignored.stdout);
    assert_eq!(ignored.status.code(), Some(0), "{out}");
    assert!(
        out.contains(
            "Tracked 3 version(s) (3 stored before and measured again (--force), 0 failed)"
        ),
        "{out}"
    );
}

/// `track run` that detects no change at the newest version says how large one there could
/// still be (the widest interval of the newest version against the versions before it): a
/// noisy benchmark's newest version of a +20% step is not detected, and the note's interval
/// holds +20%; a quiet project's bound is narrow; when every benchmark's change at the newest
/// version is detected, there is nothing to bound.
#[test]
fn track_run_says_what_a_newest_version_without_a_change_could_hide() {
    let dir = Dir::new();
    let run = |db: &str, project: &str, commands: &[&str]| {
        let out = rigor()
            .current_dir(dir.0.path())
            .args(["track", "--db", db, "run", "--last", "10", "--no-confirm"])
            .args(["--seed", "5", "--machine", "m", "--simulate", project, "--"])
            .args(commands)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        let note = err
            .lines()
            .find(|l| l.starts_with("rigor: no change detected at the newest version"))
            .map(str::to_string);
        (String::from_utf8_lossy(&out.stdout).into_owned(), note)
    };
    // The bound's interval, in percent.
    let interval = |note: &str| -> (f64, f64) {
        let (_, rest) = note.split_once("before it is ").unwrap();
        let (range, _) = rest.split_once(" (the widest").unwrap();
        let (lo, hi) = range.split_once(" .. ").unwrap();
        let pct = |s: &str| {
            s.replace('−', "-")
                .trim_end_matches('%')
                .parse::<f64>()
                .unwrap()
        };
        (pct(lo), pct(hi))
    };
    let (out, note) = run(
        "noisy.db",
        "versions=10,step=10:+20%,session=5%",
        &["mean=10ms,execution=40%", "mean=20ms,execution=2%"],
    );
    let note = note.unwrap_or_else(|| panic!("no bound: {out}"));
    assert!(
        out.contains("v10"),
        "the quiet benchmark's step is found: {out}"
    );
    assert!(note.contains("in 1 of 2 benchmark(s)"), "{note}");
    assert!(
        note.contains("mean=10ms,execution=40%'s newest level"),
        "{note}"
    );
    let (lo, hi) = interval(&note);
    assert!(lo < 20.0 && 20.0 < hi, "{note}");
    let (out, note) = run(
        "quiet.db",
        "versions=10,session=0%",
        &["mean=10ms,execution=2%", "mean=20ms,execution=2%"],
    );
    assert!(out.contains("No changes detected"), "{out}");
    let note = note.unwrap_or_else(|| panic!("no bound: {out}"));
    assert!(note.contains("in 2 of 2 benchmark(s)"), "{note}");
    let (lo, hi) = interval(&note);
    assert!(lo < 0.0 && 0.0 < hi && hi - lo < 10.0, "{note}");
    let (out, note) = run(
        "stepped.db",
        "versions=10,step=10:+30%,session=0%",
        &["mean=10ms,execution=2%", "mean=20ms,execution=2%"],
    );
    assert!(note.is_none(), "{out}\n{note:?}");
    // The newest three versions build one program (a README change): the bound is of that
    // build, and the note says since when.
    let (out, note) = run(
        "identical.db",
        "versions=10,identical=8-10,session=0%",
        &["mean=10ms,execution=2%"],
    );
    let note = note.unwrap_or_else(|| panic!("no bound: {out}"));
    assert!(
        note.contains("the newest version v10 (built identically since v8: the bound is of that build) in 1 of 1 benchmark(s)"),
        "{note}"
    );
}

/// A session that measured a benchmark far from its typical session (a sitting on a loaded
/// machine: a new user's `track show` levels of unchanged code rose from 34 to 52 ms as loaded
/// sessions were added) is named in the header, with how to take it out; sessions alike are
/// not.
#[test]
fn track_show_names_a_session_far_from_the_others() {
    let dir = Dir::new();
    let db = dir.path("h.db");
    use crate::common::track_m_main;
    let add = |i: usize, mean: &str| {
        let file = dir.path(&format!("r{i}.json"));
        sim()
            .args(["--seed", &i.to_string(), "-r", "10", "-n", "b", "-w", "0"])
            .arg(format!("mean={mean},execution=1%"))
            .arg("--export-json")
            .arg(&file)
            .assert()
            .success();
        let mut add = track_m_main(&db, &["add"]);
        add.arg(&file)
            .args(["--version", "v1", "--repo", "/nonexistent"])
            .assert()
            .success();
    };
    for i in 0..3 {
        add(i, "10ms");
    }
    let show = || stdout_of(&mut track_m_main(&db, &["show", "b"]));
    let alike = show();
    assert!(!alike.contains("typical session"), "{alike}");
    add(3, "30ms");
    let far = show();
    // Four sessions of one version: the loaded one's shift is 3× the others' median.
    assert!(
        far.contains("far from its typical session's level: session 4 at 3.0× ("),
        "{far}"
    );
    assert!(
        far.contains("`rigor track rm --session ID --dry-run`"),
        "{far}"
    );
    // And in the JSON, on the far session's runs only.
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&mut track_m_main(&db, &["show", "b", "--json"]))).unwrap();
    let runs = json[0]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4, "{json}");
    for r in runs {
        let far = r["session_far"].as_f64();
        if r["session"] == 4 {
            assert!(far.is_some_and(|f| (f - 3.0).abs() < 0.1), "{r}");
        } else {
            assert_eq!(r["session_far"], serde_json::Value::Null, "{r}");
        }
    }
}

/// Two sessions that shift a level by about 80% (SD) give the spread between sessions one
/// degree of freedom, and each level's interval Student's t of 12.7 on the log scale: ends a
/// hundredfold and more apart bound nothing and are not written out (a new user read
/// "269.6 ms (0.003 ms .. 20917112 ms)"); the header says why.
#[test]
fn track_show_does_not_write_out_an_interval_that_bounds_nothing() {
    let dir = Dir::new();
    let db = dir.path("w.db");
    rigor()
        .args(["track", "--db"])
        .arg(&db)
        .args(["run", "--simulate", "versions=4,session=80%", "--last", "4"])
        .args(["--batch", "2", "--anchors", "1", "--seed", "5", "-r", "5"])
        .args(["-n", "parse", "--machine", "m", "--branch", "main"])
        .args(["--", "mean=10ms,execution=1%"])
        .assert()
        .success();
    let out = stdout_of(rigor().args(["track", "--db"]).arg(&db).args([
        "show",
        "--machine",
        "m",
        "--branch",
        "main",
    ]));
    assert!(out.contains("1 df: too few to know that shift"), "{out}");
    let levels: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("simulated version"))
        .collect();
    assert_eq!(levels.len(), 4, "{out}");
    assert!(
        levels
            .iter()
            .all(|l| l.contains("ms (interval over 100× wide)")),
        "{out}"
    );
}

/// A session that builds stored versions (its anchors) into other programs than the history
/// holds for them, in a project whose builds reproduce, says the build changed: a new user's
/// `--build 'make CFLAGS=-O0'` into a history built with `make` was taken for a session on a
/// loaded machine (2.2×), unsaid. The same build command again says nothing.
#[test]
fn a_session_whose_build_changed_says_so() {
    let dir = Dir::new();
    let Some(repo) = empty_repo_or_skip(&dir, 0, &[]) else {
        return;
    };
    // c0 and c1 build one program (only NOTES changes), c2 another; c3, c4 as c2.
    let mut ids = Vec::new();
    for i in 0..5 {
        let body = if i >= 2 { "exit 0 # v2\n" } else { "exit 0\n" };
        std::fs::write(repo.join("prog.sh"), format!("#!/bin/sh\n{body}")).unwrap();
        ids.push(common::gitrepo::commit(&repo, i));
    }
    let track = |revs: &[&String], build: &str| {
        let out = rigor()
            .current_dir(dir.0.path())
            .args(["track", "--db", "h.db", "run", "--repo"])
            .arg(&repo)
            .args(revs)
            .args(["--anchors", "2", "-r", "2", "-w", "0"])
            .args(["--machine", "m", "--branch", "main", "--no-confirm"])
            .args(["--build", build, "--", "./built"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let same = "cp prog.sh built && chmod +x built";
    let first = track(&[&ids[0], &ids[1], &ids[2]], same);
    assert!(!first.contains("were built into other programs"), "{first}");
    let again = track(&[&ids[3]], same);
    assert!(!again.contains("were built into other programs"), "{again}");
    let other = "sed 's/exit 0/exit 0 # -O0/' prog.sh > built && chmod +x built";
    let changed = track(&[&ids[4]], other);
    assert!(
        changed.contains("were built into other programs than the history holds for them")
            && changed.contains("rigor track rm --session "),
        "{changed}"
    );
}

/// A session of `track run` that measured a benchmark far from its typical session says so when
/// it ends, with how to take it out: a new user's session beside two busy loops read 3.1×, unsaid
/// until `track show`, and the next real +14% went undetected under the spread it made.
/// Sessions alike say nothing.
#[test]
fn track_run_says_when_its_session_was_far_from_the_others() {
    let dir = Dir::new();
    let run = |session: usize, mean: &str| {
        let out = rigor()
            .current_dir(dir.0.path())
            .args(["track", "--db", "h.db", "run", "--simulate", "versions=8"])
            .args(["--last", &(2 * session).to_string(), "--anchors", "2"])
            .args(["--seed", &session.to_string(), "-r", "5", "-n", "b"])
            .args(["--machine", "m", "--branch", "main", "--no-confirm", "--"])
            .arg(format!("mean={mean},execution=1%"))
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    for session in 1..=3 {
        let alike = run(session, "10ms");
        assert!(!alike.contains("against its typical session"), "{alike}");
    }
    let far = run(4, "30ms");
    assert!(
        far.contains(
            "rigor: warning: session 4 measured 'b' 3.0× against its typical session: each level"
        ) && far.contains("`rigor track rm --session 4` takes it out"),
        "{far}"
    );
    // `track changes` ends as `track run` does: with how large a change at the newest version
    // could be and go undetected (it said "No changes detected." alone).
    let changes = rigor()
        .current_dir(dir.0.path())
        .args(["track", "--db", "h.db", "changes"])
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&changes.stdout),
        String::from_utf8_lossy(&changes.stderr),
    );
    assert!(out.contains("No changes detected."), "{out}");
    assert!(
        err.contains("rigor: no change detected at the newest version v8 in 1 of 1 benchmark(s), which does not exclude one: b's newest level"),
        "{err}"
    );
}

/// A command that cannot start in any version (a new user's `-- bench` for `./bench`) is the
/// command's fault: an error, and no version stored as failed, so the run with the command
/// fixed measures them (it skipped them all as failed before and passed, measuring nothing).
#[test]
fn a_command_that_cannot_start_anywhere_stores_no_failure() {
    let dir = Dir::new();
    let Some(repo) = empty_repo_or_skip(&dir, 2, &[]) else {
        return;
    };
    let track = |command: &str| {
        rigor()
            .current_dir(dir.0.path())
            .args(["track", "--db", "h.db", "run", "--repo"])
            .arg(&repo)
            .args(["--last", "2", "-r", "2", "-w", "0", "--no-confirm"])
            .args(["--machine", "m", "--branch", "main", "--", command])
            .output()
            .unwrap()
    };
    let wrong = track("no-such-program-here");
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert_eq!(wrong.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "cannot start 'no-such-program-here': No such file or directory (os error 2), in \
             every version measured: the command is wrong, not the versions, so none was stored \
             as failed"
        ),
        "{err}"
    );
    let fixed = track("true");
    let out = String::from_utf8_lossy(&fixed.stdout);
    assert!(fixed.status.success(), "{out}");
    assert!(
        out.contains("Tracked 2 version(s) (0 already stored, 0 failed)"),
        "{out}"
    );
}

/// `track add` of a session's file of several versions says the run's warnings once, not once
/// per version (a new user's file of 15 versions said its busy machine 15 times).
#[test]
fn track_add_of_a_sessions_file_says_its_warnings_once() {
    let dir = Dir::new();
    rigor()
        .current_dir(dir.0.path())
        .args(["track", "--db", "h.db", "run", "--simulate", "versions=3"])
        .args(["--last", "3", "--batch", "3", "-r", "3", "--no-confirm"])
        .args(["--machine", "m", "--branch", "main", "--", "mean=1ms"])
        .assert()
        .success();
    let runs: Vec<std::path::PathBuf> = std::fs::read_dir(dir.path(".rigor/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let mut file = json(&runs[0]);
    file["warnings"] = serde_json::json!([{"kind": "others_busy", "others": 133, "cpus": 2}]);
    std::fs::write(&runs[0], serde_json::to_string(&file).unwrap()).unwrap();
    let out = rigor()
        .current_dir(dir.0.path())
        .args(["track", "--db", "other.db", "add"])
        .arg(&runs[0])
        .args([
            "--machine",
            "m",
            "--branch",
            "main",
            "--repo",
            "/nonexistent",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.matches("other processes kept 1.33 of this machine's 2 CPUs busy")
            .count(),
        1,
        "{err}"
    );
}

/// `track check --candidate` of a candidate that crashes names it as the version that failed:
/// "warm-up execution 1: … SIGSEGV" alone did not say whether the candidate or the baseline
/// crashed.
#[test]
fn a_crashing_candidate_is_named_as_the_version_that_failed() {
    let dir = Dir::new();
    let Some(repo) = empty_repo_or_skip(&dir, 0, &[]) else {
        return;
    };
    let executable = |body: &str| {
        use std::os::unix::fs::PermissionsExt;
        let path = repo.join("prog.sh");
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    executable("#!/bin/sh\nexit 0\n");
    let base = common::gitrepo::commit(&repo, 0);
    executable("#!/bin/sh\nkill -SEGV $$\n");
    let crashes = common::gitrepo::commit(&repo, 1);
    let out = rigor()
        .current_dir(dir.0.path())
        .args(["track", "--db", "h.db", "check", "--repo"])
        .arg(&repo)
        .args(["--candidate", &crashes, "--baseline-rev", &base])
        .args(["--max-rounds", "8", "--machine", "m", "--baseline", "main"])
        .args(["--", "./prog.sh"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("./prog.sh: not measured: {}: ", &crashes[..10])),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("SIGSEGV"), "{text}");
}
