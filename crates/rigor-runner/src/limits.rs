//! The largest counts an experiment may ask for, derived from what a run keeps in memory.
//!
//! Every measured time is kept in memory until the run is analysed, as one `f64` (8 bytes) and
//! more beside it, so the counts that multiply into the samples of one benchmark are bounded:
//! [`MAX_SAMPLES`] samples are 800 MB of times alone. Counts above these limits are typos (an
//! exponent too many), and are refused before anything runs, naming the limit — never found out
//! by an allocation that aborts after the measuring.

/// Bytes one kept sample (a measured time, `f64`) takes at the least.
pub const SAMPLE_BYTES: usize = std::mem::size_of::<f64>();

/// Most samples of one benchmark kept in memory: 10⁸, 800 MB of times alone
/// ([`SAMPLE_BYTES`] each).
pub const MAX_SAMPLES: usize = 100_000_000;

/// Most executions (or warm-up executions, or rounds) per command: beyond it a count is a typo
/// (a million executions of even a 1 ms command take 17 minutes per command), and every
/// execution keeps a record of its own beside its samples.
pub const MAX_EXECUTIONS: usize = 1_000_000;

/// Most builds per command: each build is a top-level unit with at least one execution, so a
/// run's builds are bounded by [`MAX_EXECUTIONS`] too.
pub const MAX_BUILDS: usize = MAX_EXECUTIONS;

/// Most iterations per execution (and repetitions of one level in a plan): all of them may be
/// kept, so at most [`MAX_SAMPLES`].
pub const MAX_ITERATIONS: usize = MAX_SAMPLES;

/// A count that is above its limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{count} is more than the {limit} {what} rigor allows{why}")]
pub struct CountTooLarge {
    /// The count given.
    pub count: u128,
    /// Its limit.
    pub limit: usize,
    /// What is counted, e.g. `executions per command`.
    pub what: &'static str,
    /// Why the limit is where it is (starting with `: `), or empty.
    pub why: &'static str,
}

/// `count` if it is at most `limit`.
///
/// # Errors
/// [`CountTooLarge`] naming `what` and the limit.
pub fn check(
    count: usize,
    limit: usize,
    what: &'static str,
    why: &'static str,
) -> Result<usize, CountTooLarge> {
    if count > limit {
        return Err(CountTooLarge {
            count: count as u128,
            limit,
            what,
            why,
        });
    }
    Ok(count)
}

/// The samples one benchmark keeps: the product of its counts per level, saturating.
pub fn samples(counts: &[usize]) -> u128 {
    counts
        .iter()
        .fold(1u128, |n, &c| n.saturating_mul(c as u128))
}

/// Why [`MAX_SAMPLES`] is where it is.
pub const SAMPLES_WHY: &str =
    ": every sample of a benchmark is kept in memory (8 bytes each, 800 MB at the limit)";

/// Checks that the counts per level of one benchmark (top → bottom) multiply into at most
/// [`MAX_SAMPLES`] samples.
///
/// # Errors
/// [`CountTooLarge`] with the product.
pub fn check_samples(counts: &[usize]) -> Result<(), CountTooLarge> {
    let n = samples(counts);
    if n > MAX_SAMPLES as u128 {
        return Err(CountTooLarge {
            count: n,
            limit: MAX_SAMPLES,
            what: "samples per benchmark",
            why: SAMPLES_WHY,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_at_the_limit_pass_and_above_it_are_refused_naming_it() {
        assert_eq!(
            check(MAX_EXECUTIONS, MAX_EXECUTIONS, "executions", ""),
            Ok(MAX_EXECUTIONS)
        );
        let e = check(
            MAX_EXECUTIONS + 1,
            MAX_EXECUTIONS,
            "executions per command",
            "",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "1000001 is more than the 1000000 executions per command rigor allows"
        );
    }

    #[test]
    fn samples_multiply_without_overflow() {
        assert_eq!(samples(&[10, 20, 30]), 6000);
        assert!(check_samples(&[1_000_000, 100]).is_ok());
        let e = check_samples(&[usize::MAX, usize::MAX, 2]).unwrap_err();
        assert_eq!(e.count, u128::MAX);
        assert!(
            e.to_string().contains("100000000 samples per benchmark"),
            "{e}"
        );
        assert!(check_samples(&[1_000_000, 101]).is_err());
    }
}
