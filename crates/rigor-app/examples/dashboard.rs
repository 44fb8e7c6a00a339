//! The dashboard's scale benchmark (and a demo site): builds a synthetic history of
//! BENCHMARKS × VERSIONS in SQLite (kept and reused), then times `rigor track publish`'s use
//! case from an empty folder, again with nothing new, again after one more version, and once more
//! into an empty folder, checking that the incremental site equals the one from scratch; prints
//! the figures recorded in docs/benchmarks.md.
//!
//! ```text
//! cargo run --release -p rigor-app --example dashboard -- 1000 1000 /tmp/scale
//! cargo run --release -p rigor-app --example dashboard -- 1000 1000 /tmp/scale --again
//! cargo run --release -p rigor-app --example dashboard -- 6 30 /tmp/demo --detect
//! cargo run --release -p rigor-app --example dashboard -- 100 1000 /tmp/scale --peak-memory
//! ```
//!
//! With `--peak-memory`, every execution also records its peak memory (a history of its own)
//! and every publish also writes the peak-memory pages (`rigor track publish --metric
//! peak-memory`), whose levels are computed from every stored run on each publish.
//! With `--again`, the site of an earlier run is kept and only the two republishes are timed.
//! With `--detect`, changes are found by `rigor track`'s detection; without it (the scale run,
//! where detection over a million versions is not what is measured), every tenth benchmark gets
//! one stored change at its injected step.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rigor_app::publish::{ARCHIVE_SIZE, CACHE, PublishSettings, publish};
use rigor_app::synthetic::{Spec, Step, generate, generate_versions};
use rigor_app::track::{DetectSettings, detect_changes};
use rigor_history::{ChangeVerdict, History, HistoryRead, NewChange, SeriesKey, SqliteHistory};
use rigor_report::dashboard::SiteMeta;

fn spec(benchmarks: usize, versions: usize) -> Spec {
    let names = (0..benchmarks)
        .map(|b| match b {
            2 => "<img src=x onerror=alert(1)>".to_string(),
            _ => format!("{}/case-{b:04}", ["parse", "sort", "io", "net"][b % 4]),
        })
        .collect();
    let mut s = Spec::small(names, versions);
    s.executions = 3;
    s.iterations = if benchmarks * versions > 100_000 {
        1
    } else {
        4
    };
    s.steps = (0..benchmarks)
        .step_by(10)
        .map(|b| Step {
            benchmark: b,
            version: (versions / 3 + b) % versions.max(1),
            factor: if b % 20 == 0 { 1.25 } else { 0.85 },
        })
        .chain([Step {
            benchmark: 1,
            version: versions * 2 / 3,
            factor: 1.4,
        }])
        .collect();
    s.failed = vec![versions / 2];
    s
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(b), Some(v), Some(dir)) = (args.first(), args.get(1), args.get(2)) else {
        return Err("usage: dashboard BENCHMARKS VERSIONS DIR [--detect]".into());
    };
    let (benchmarks, versions): (usize, usize) = (b.parse()?, v.parse()?);
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir)?;
    let memory = args.iter().any(|a| a == "--peak-memory");
    let db = dir.join(format!(
        "history-{benchmarks}x{versions}{}.db",
        if memory { "-memory" } else { "" }
    ));
    let fresh = !db.exists();
    let mut h = SqliteHistory::open(&db)?;
    let mut spec = spec(benchmarks, versions);
    spec.peak_memory = memory;
    let key = SeriesKey::new(spec.machine.clone(), spec.branch.clone());
    if fresh {
        let t = Instant::now();
        generate(&mut h, &spec, &mut |v| {
            if v % 100 == 99 {
                eprintln!(
                    "  {} versions stored ({:.0} s)",
                    v + 1,
                    t.elapsed().as_secs_f64()
                );
            }
        })?;
        if args.iter().any(|a| a == "--detect") {
            detect_changes(&mut h, &key, &DetectSettings::default())?;
        } else {
            for s in &spec.steps {
                let change = NewChange {
                    rev: format!("v{}", s.version),
                    previous_rev: Some(format!("v{}", s.version.saturating_sub(1))),
                    ratio: s.factor,
                    interval: Some((s.factor * 0.98, s.factor * 1.02)),
                    p_value: 1e-6,
                    q_value: Some(1e-5),
                    verdict: if s.factor > 1.0 {
                        ChangeVerdict::Regression
                    } else {
                        ChangeVerdict::Improvement
                    },
                    method: "injected".into(),
                    evidence: Default::default(),
                };
                h.save_changes(&key, &spec.names[s.benchmark], &[change])?;
            }
        }
        eprintln!(
            "history built in {:.1} s: {}",
            t.elapsed().as_secs_f64(),
            db.display()
        );
    }
    let site = dir.join("site");
    let fresh_site = dir.join("site-fresh");
    let again = args.iter().any(|a| a == "--again");
    if !again {
        let _ = std::fs::remove_dir_all(&site);
    }
    let _ = std::fs::remove_dir_all(&fresh_site);
    let settings = |out: &PathBuf| PublishSettings {
        out: out.clone(),
        site: SiteMeta {
            title: format!("Synthetic history: {benchmarks} benchmarks × {versions} versions"),
            rigor_version: env!("CARGO_PKG_VERSION").into(),
            repo_url: Some("https://example.org/project".into()),
        },
        generated: "2026-11-24 07:00 UTC".into(),
        archive_size: ARCHIVE_SIZE,
        grouping: Default::default(),
        metrics: if memory {
            vec![rigor_units::Metric::PeakMemory]
        } else {
            Vec::new()
        },
    };
    let timed = |h: &SqliteHistory,
                 out: &PathBuf,
                 what: &str|
     -> Result<(), Box<dyn std::error::Error>> {
        let t = Instant::now();
        let p = publish(h, &settings(out))?;
        println!(
            "{what:<40} {:>7.2} s   runs read {:>7}, pages {:>5} + {:>5} other metrics + {:>5} archive, written {:>5}, index {:>5} kB",
            t.elapsed().as_secs_f64(),
            p.runs_read,
            p.pages,
            p.metric_pages,
            p.archives,
            p.written,
            p.index_bytes / 1024
        );
        Ok(())
    };
    println!(
        "{benchmarks} benchmarks × {versions} versions, {} cores, load average {}",
        rayon::current_num_threads(),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    let t = Instant::now();
    let n = h.summaries(&key)?.len();
    println!(
        "HistoryRead::summaries alone ({n} rows)      {:>7.2} s",
        t.elapsed().as_secs_f64()
    );
    if !again {
        timed(&h, &site, "publish into an empty folder")?;
    }
    timed(&h, &site, "publish again, nothing new")?;
    let next = h.versions(&key)?.len();
    let t = Instant::now();
    generate_versions(&mut h, &spec, next..next + 1, &mut |_| {})?;
    eprintln!(
        "one more version stored in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    timed(&h, &site, "publish after one more version")?;
    if again {
        return Ok(());
    }
    timed(&h, &fresh_site, "the same into an empty folder")?;
    let (same, files) = same_files(&site, &fresh_site)?;
    println!("incremental site and site from scratch: {files} files, identical: {same}");
    println!(
        "load average {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    Ok(())
}

/// Whether two sites hold the same files with the same bytes (the publisher's cache aside:
/// its maps are written in no fixed order), and how many files there are.
fn same_files(a: &Path, b: &Path) -> std::io::Result<(bool, usize)> {
    let list = |root: &Path| -> std::io::Result<Vec<PathBuf>> {
        let mut out = Vec::new();
        for dir in [root.to_path_buf(), root.join("b")] {
            for e in std::fs::read_dir(&dir)? {
                let p = e?.path();
                if p.is_file() && p.file_name().is_some_and(|n| n != CACHE) {
                    out.push(p.strip_prefix(root).unwrap_or(&p).to_path_buf());
                }
            }
        }
        out.sort();
        Ok(out)
    };
    let (la, lb) = (list(a)?, list(b)?);
    if la != lb {
        return Ok((false, la.len()));
    }
    for f in &la {
        if std::fs::read(a.join(f))? != std::fs::read(b.join(f))? {
            eprintln!("differs: {}", f.display());
            return Ok((false, la.len()));
        }
    }
    Ok((true, la.len()))
}
