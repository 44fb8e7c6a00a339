//! Seeds, Monte-Carlo rates and formatting shared by every section.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// SplitMix64: a bijective mixer, so nearby seeds give unrelated streams.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of a table row: FNV-1a of the row's label mixed with the master seed. Printed beside
/// every row, so a row can be rerun on its own.
pub fn row_seed(master: u64, label: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    splitmix64(master ^ h) & 0xFFFF_FFFF
}

/// Seed of experiment `i` of a row: `splitmix64(row_seed + i)`.
pub fn experiment_seed(row: u64, i: usize) -> u64 {
    splitmix64(row.wrapping_add(i as u64))
}

/// The random stream of experiment `i` of a row.
pub fn rng_for(row: u64, i: usize) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(experiment_seed(row, i))
}

/// `out` when its command succeeded; else an error, "`what` failed: " and its standard error.
pub fn succeeded(out: std::process::Output, what: &str) -> anyhow::Result<std::process::Output> {
    if !out.status.success() {
        anyhow::bail!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out)
}

/// Runs `n` seeded experiments in parallel; results come back in experiment order, so they do not
/// depend on the number of threads.
pub fn run_experiments<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    (0..n).into_par_iter().map(f).collect()
}

/// A proportion estimated from Monte-Carlo experiments.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rate {
    /// Experiments where the event happened.
    pub hits: usize,
    /// Experiments.
    pub n: usize,
}

impl Rate {
    /// Counts the `true`s.
    pub fn of(flags: impl IntoIterator<Item = bool>) -> Self {
        let mut r = Self::default();
        for f in flags {
            r.n += 1;
            r.hits += usize::from(f);
        }
        r
    }

    /// The proportion.
    pub fn p(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.hits as f64 / self.n as f64
        }
    }

    /// Binomial standard error sqrt(p(1 − p)/n); for p = 0 or 1 the error at p = 0.5/n (so a
    /// zero count still shows its resolution).
    pub fn se(&self) -> f64 {
        let n = self.n as f64;
        let p = self.p().clamp(0.5 / n, 1.0 - 0.5 / n);
        (p * (1.0 - p) / n).sqrt()
    }

    /// "94.9% ± 0.5" (percent, one standard error); "0 of 2000" when nothing happened.
    pub fn show(&self) -> String {
        if self.n == 0 {
            return "–".into();
        }
        if self.hits == 0 {
            return format!("0 of {}", self.n);
        }
        if self.hits == self.n {
            return format!("{0} of {0}", self.n);
        }
        format!("{:.1}% ± {:.1}", 100.0 * self.p(), 100.0 * self.se())
    }

    /// "94.9%" only.
    pub fn pct(&self) -> String {
        format!("{:.1}%", 100.0 * self.p())
    }
}

/// A number with at most three decimals and no trailing zeros (3.5, 14.1, 60).
pub fn num(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Median of a slice (NaN when empty).
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// Mean of a slice (NaN when empty).
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// Seconds in a compact human form: 850 ms, 12.3 s, 4.2 min, 1.3 h.
pub fn seconds(s: f64) -> String {
    if !s.is_finite() {
        "–".into()
    } else if s < 1e-6 {
        format!("{:.0} ns", s * 1e9)
    } else if s < 1e-3 {
        format!("{:.0} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.0} ms", s * 1e3)
    } else if s < 120.0 {
        format!("{s:.1} s")
    } else if s < 7200.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_seeds() {
        let r = Rate::of([true, false, true, true]);
        assert_eq!((r.hits, r.n), (3, 4));
        assert!((r.p() - 0.75).abs() < 1e-12);
        assert_ne!(row_seed(1, "a"), row_seed(1, "b"));
        assert_eq!(row_seed(1, "a"), row_seed(1, "a"));
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(today().len(), 10);
    }
}
