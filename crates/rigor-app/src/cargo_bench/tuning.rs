//! Tuning each benchmark's evaluations per sample in its harness (`--rigor-tune`), one process
//! for the benchmarks of a target, and what is left out when a routine fails there.

use std::collections::HashMap;

use serde::Deserialize;

use super::{CargoBenchError, Target, harness_error, past_limit, run_harness};

/// Allocations per iteration as the harness reports them.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Allocs {
    /// Allocations per iteration.
    pub allocations: f64,
    /// Bytes per iteration.
    pub bytes: f64,
}

/// What tuning fixed for one benchmark.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Tuned {
    /// The benchmark.
    pub name: String,
    /// Evaluations per sample, for every execution.
    pub evals: u64,
    /// The estimated time of one evaluation (ns), when tuned.
    #[serde(default)]
    pub per_eval_ns: Option<f64>,
    /// Allocations per iteration, when the target counts them.
    #[serde(default)]
    pub allocs: Option<Allocs>,
}

/// The time tuning one benchmark may take besides `--timeout`: rigor-bench samples it for up
/// to 5 s (its `DEFAULT_MAX_TIME`) after a warm-up of 0.1 s by default.
const TUNING_ALLOWANCE_S: f64 = 6.0;

/// A benchmark whose tuning failed: the harness process ended (a panic, a crash, past the time
/// allowed) with this benchmark not yet reported.
#[derive(Debug, Clone, PartialEq)]
pub struct TuningFailure {
    /// The benchmark's name in its target.
    pub name: String,
    /// How the process ended: "exit status: 101", or the limit it ran past.
    pub how: String,
    /// The end of its standard error.
    pub stderr_tail: String,
}

/// The lines of standard error a [`TuningFailure`] keeps: a panic's message under the longest
/// backtrace `RUST_BACKTRACE=1` prints, with room to spare (the note shows the panic's line and
/// the last few).
const STDERR_TAIL_LINES: usize = 200;

/// What one tuning process of some benchmarks gave: those it reported, and how it failed if it
/// did.
struct TuningRun {
    reported: Vec<Tuned>,
    /// How it ended and its standard error, when it failed.
    failed: Option<(String, String)>,
}

/// Tunes the evaluations per sample of `names` in processes of `t`, each benchmark within
/// `timeout` (and the time tuning takes): one benchmark's outcome per name, in order.
///
/// The harness tunes them in one process and reports each as it is tuned. When that process
/// fails, the benchmarks it reported keep their tuning, and the first one it did not report is
/// tuned alone in a process of its own: if that fails too, the failure is that benchmark's (a
/// [`TuningFailure`]), and the rest are tuned in a new process. One routine that panics or
/// hangs then leaves out itself, not the benchmarks after it.
///
/// # Errors
/// The harness cannot be run, its answer is not JSON lines, it ends well without reporting a
/// benchmark, or it fails after reporting every one (no benchmark to leave out).
pub fn tune(
    t: &Target,
    names: &[String],
    timeout: Option<rigor_units::Seconds>,
) -> Result<Vec<Result<Tuned, TuningFailure>>, CargoBenchError> {
    let mut by_name: HashMap<String, Result<Tuned, TuningFailure>> = HashMap::new();
    let mut remaining: Vec<String> = names.to_vec();
    while !remaining.is_empty() {
        let tried = remaining.len();
        let run = tune_once(t, &remaining, timeout)?;
        for tuned in run.reported {
            remaining.retain(|n| *n != tuned.name);
            by_name.insert(tuned.name.clone(), Ok(tuned));
        }
        let Some(first) = remaining.first().cloned() else {
            if let Some((how, said)) = run.failed {
                return Err(harness_error(
                    t,
                    format!("tuning failed after every benchmark was tuned ({how}): {said}"),
                ));
            }
            break;
        };
        let Some(mut failed) = run.failed else {
            return Err(harness_error(t, format!("tuning did not report '{first}'")));
        };
        remaining.remove(0);
        if tried > 1 {
            // The process held several: the first unreported one, alone, tells whether the
            // failure is its own.
            let alone = tune_once(t, std::slice::from_ref(&first), timeout)?;
            match (
                alone.reported.into_iter().find(|r| r.name == first),
                alone.failed,
            ) {
                (Some(tuned), _) => {
                    by_name.insert(first, Ok(tuned));
                    continue;
                }
                (None, Some(f)) => failed = f,
                (None, None) => {
                    return Err(harness_error(t, format!("tuning did not report '{first}'")));
                }
            }
        }
        let (how, said) = failed;
        by_name.insert(
            first.clone(),
            Err(TuningFailure {
                name: first,
                how,
                stderr_tail: tail_lines(&said, STDERR_TAIL_LINES),
            }),
        );
    }
    names
        .iter()
        .map(|n| {
            by_name
                .remove(n)
                .ok_or_else(|| harness_error(t, format!("tuning did not report '{n}'")))
        })
        .collect()
}

/// The last `n` lines of `text`, trimmed.
fn tail_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.trim().lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// One tuning process of `names`: what it reported, and how it failed (how it ended, its
/// standard error) if it did. Its lines are read until the first that is not a report when it
/// failed (a dying process can leave half a line); when it ended well, every line must be one.
fn tune_once(
    t: &Target,
    names: &[String],
    timeout: Option<rigor_units::Seconds>,
) -> Result<TuningRun, CargoBenchError> {
    let mut args = vec!["--rigor-tune".to_string(), "--exact".to_string()];
    args.extend(names.iter().cloned());
    // For each benchmark tuned in the process, an execution's limit beside tuning's own
    // sampling: a routine that never returns hung the run here, before any execution was timed.
    let limit = timeout.filter(|s| s.is_positive()).map(|s| {
        std::time::Duration::from_secs_f64(
            (s.get() + TUNING_ALLOWANCE_S) * names.len().max(1) as f64,
        )
    });
    let run = run_harness(t, &args, limit)?;
    let out = &run.output;
    let text = String::from_utf8_lossy(&out.stdout);
    let said = String::from_utf8_lossy(&out.stderr).trim().to_string();
    let failed = match run.killed_after {
        Some(limit) => Some((past_limit(&args, limit), said)),
        None => (!out.status.success()).then(|| (out.status.to_string(), said)),
    };
    let mut reported = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        match serde_json::from_str::<Tuned>(line) {
            Ok(tuned) => reported.push(tuned),
            Err(_) if failed.is_some() => break,
            Err(e) => {
                return Err(harness_error(
                    t,
                    format!("--rigor-tune line {}: {e}", i + 1),
                ));
            }
        }
    }
    Ok(TuningRun { reported, failed })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A harness written as a shell script: `--bench --rigor-tune --exact NAMES…` reports each
    /// name as a tuning, and dies where a name is `boom` (a panic's status and message). Each
    /// call appends its names to `calls`.
    fn harness(dir: &std::path::Path) -> Target {
        let script = dir.join("harness");
        let calls = dir.join("calls");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nshift 3\necho \"$*\" >> '{}'\nfor n in \"$@\"; do\n  \
                 if [ \"$n\" = boom ]; then echo \"thread 'main' panicked\" >&2; \
                 echo 'boom went the routine' >&2; printf '{{\"name\":'; exit 101; fi\n  \
                 printf '{{\"name\":\"%s\",\"evals\":7}}\\n' \"$n\"\ndone\n",
                calls.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        Target {
            name: "speed".into(),
            executable: script,
            dir: dir.to_path_buf(),
        }
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_routine_that_fails_while_tuning_leaves_out_itself_and_not_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let t = harness(dir.path());
        let got = tune(&t, &names(&["a", "boom", "b", "c"]), None).unwrap();
        let evals: Vec<Option<u64>> = got
            .iter()
            .map(|r| r.as_ref().ok().map(|t| t.evals))
            .collect();
        assert_eq!(evals, [Some(7), None, Some(7), Some(7)]);
        let failure = got[1].as_ref().unwrap_err();
        assert_eq!(failure.name, "boom");
        assert_eq!(failure.how, "exit status: 101");
        assert_eq!(
            failure.stderr_tail,
            "thread 'main' panicked\nboom went the routine"
        );
        // All four, then the first not reported alone (the failure is its own), then the rest.
        let calls = std::fs::read_to_string(dir.path().join("calls")).unwrap();
        assert_eq!(calls, "a boom b c\nboom\nb c\n");
    }

    #[test]
    fn a_failure_that_is_not_the_first_unreported_benchmarks_own_blames_no_one() {
        let dir = tempfile::tempdir().unwrap();
        let t = harness(dir.path());
        // The harness tunes in its own order: `boom` before `a`, though asked after it. `a`
        // alone is tuned, then `boom` alone fails.
        let script = std::fs::read_to_string(&t.executable).unwrap();
        let reordered = script.replace(
            "shift 3\n",
            "shift 3\nset -- $(printf '%s\\n' \"$@\" | sort)\n",
        );
        std::fs::write(&t.executable, reordered).unwrap();
        let got = tune(&t, &names(&["c", "boom"]), None).unwrap();
        assert_eq!(got[0].as_ref().unwrap().evals, 7);
        assert_eq!(got[1].as_ref().unwrap_err().name, "boom");
    }

    #[test]
    fn a_harness_that_ends_well_without_a_benchmark_or_fails_after_all_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let t = harness(dir.path());
        std::fs::write(&t.executable, "#!/bin/sh\nexit 0\n").unwrap();
        let e = tune(&t, &names(&["a"]), None).unwrap_err().to_string();
        assert!(e.contains("tuning did not report 'a'"), "{e}");
        std::fs::write(
            &t.executable,
            "#!/bin/sh\nprintf '{\"name\":\"a\",\"evals\":3}\\n'\necho late >&2\nexit 3\n",
        )
        .unwrap();
        let e = tune(&t, &names(&["a"]), None).unwrap_err().to_string();
        assert!(
            e.contains("tuning failed after every benchmark was tuned"),
            "{e}"
        );
        assert_eq!(tail_lines("1\n2\n3\n", 2), "2\n3");
    }
}
