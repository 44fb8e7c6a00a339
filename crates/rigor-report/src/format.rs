//! Number formatting shared by every output, on top of rigor-units' one display scaler.

use rigor_units::{Quantity, Seconds, TimeUnit, percent_text, significant};

/// How the values of one quantity are shown: times with rigor's one scaler (or in the unit of
/// `--time-unit`), bytes in binary units (KiB, MiB), counts with decimal prefixes (k, M, G), a
/// rate or a program's own unit as given. The unit is chosen for a reference value's size, so a
/// mean and its ± share one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scale {
    /// The quantity shown.
    pub quantity: Quantity,
    /// For times: the unit asked for (`--time-unit`); `None`: chosen for the size.
    pub time_unit: Option<TimeUnit>,
}

impl Scale {
    /// Times, in `unit` or in the unit that suits their size.
    pub fn time(unit: Option<TimeUnit>) -> Self {
        Self {
            quantity: Quantity::Time,
            time_unit: unit,
        }
    }

    /// Values of `quantity`, each unit chosen for the size.
    pub fn of(quantity: Quantity) -> Self {
        Self {
            quantity,
            time_unit: None,
        }
    }

    /// The unit that suits values around `reference`, as (label, factor): a value times the
    /// factor is in that unit. `("ms", 1e3)`, `("MiB", 1/1024²)`, `("M", 1e-6)` (counts), `("",
    /// 1)` for a count below a thousand, `("MB/s", 1)` for a unit of the program's own.
    pub fn unit_for(&self, reference: f64) -> (String, f64) {
        let prefixed = |base: f64, names: &[&str]| {
            let (mut r, mut i) = (reference.abs(), 0);
            while r >= base && i + 1 < names.len() {
                r /= base;
                i += 1;
            }
            (names[i].to_string(), base.powi(-(i as i32)))
        };
        match &self.quantity {
            Quantity::Time => {
                let unit = self
                    .time_unit
                    .unwrap_or_else(|| TimeUnit::for_magnitude(Seconds(reference)));
                (unit.symbol().to_string(), unit.per_second())
            }
            Quantity::Bytes => prefixed(1024.0, &["B", "KiB", "MiB", "GiB", "TiB"]),
            Quantity::Count => prefixed(1000.0, &["", "k", "M", "G", "T"]),
            Quantity::Rate(unit) | Quantity::Other(unit) => (unit.clone(), 1.0),
        }
    }

    /// `x` in the unit that suits `reference`: `10.50 ms`, `3.500 MiB`, `1.234 M`, `12.00 MB/s`;
    /// a whole number of bytes or events below the first prefix is shown whole (`512 B`, `17`).
    pub fn show(&self, x: f64, reference: f64) -> String {
        let (label, factor) = self.unit_for(reference);
        let v = x * factor;
        let whole = factor == 1.0
            && v.fract() == 0.0
            && matches!(self.quantity, Quantity::Bytes | Quantity::Count);
        let number = if whole {
            format!("{v}")
        } else if matches!(self.quantity, Quantity::Time) && self.time_unit.is_some() {
            in_asked_unit(v)
        } else {
            significant(v)
        };
        if label.is_empty() {
            number
        } else {
            format!("{number} {label}")
        }
    }
}

/// Formats seconds with a unit chosen for its size: `12.3 ns`, `4.56 µs`, `7.89 ms`, `1.23 s`.
pub fn time(seconds: f64) -> String {
    Seconds(seconds).to_string()
}

/// Formats `seconds` in the unit that suits `reference` (so a mean and its ± share a unit).
pub fn time_like(seconds: f64, reference: f64) -> String {
    let unit = TimeUnit::for_magnitude(Seconds(reference));
    format!(
        "{} {}",
        significant(Seconds(seconds).in_unit(unit)),
        unit.symbol()
    )
}

/// Formats `seconds` in `unit`, or when it is `None` in the unit that suits `reference`
/// (`--time-unit`).
pub fn time_in(seconds: f64, reference: f64, unit: Option<TimeUnit>) -> String {
    let Some(unit) = unit else {
        return time_like(seconds, reference);
    };
    format!(
        "{} {}",
        in_asked_unit(Seconds(seconds).in_unit(unit)),
        unit.symbol()
    )
}

/// A value in a unit the user asked for (`--time-unit`), which can be far below 1 (`-u s` for
/// milliseconds): four significant digits there, where [`significant`]'s three decimals would
/// show `0.000` for a ± of a fifth of a millisecond; as [`significant`] from 1 up.
fn in_asked_unit(v: f64) -> String {
    let a = v.abs();
    if a >= 1.0 || a == 0.0 || !a.is_finite() {
        return significant(v);
    }
    let decimals = (3 - a.log10().floor() as i32).clamp(3, 12) as usize;
    format!("{v:.decimals$}")
}

/// Bytes in binary units: `812 KiB`, `3.41 MiB` ([`Scale`] for bytes, in the unit that suits
/// their size).
pub fn bytes(n: u64) -> String {
    let n = n as f64;
    Scale::of(Quantity::Bytes).show(n, n)
}

/// A count with its noun, singular for one: `count(1, "ratio", "ratios")` is "1 ratio".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A percentage with precision suited to its size: `0.42%`, `4.6%`, `37%`.
pub fn percent(p: f64) -> String {
    if !p.is_finite() {
        // A share of a zero mean (every time 0): there is no relative figure.
        return "—".to_string();
    }
    percent_text(p)
}

/// `10.63 ms ± 0.880 ms`, or `10.63 ms −0.510 ms +1.200 ms` for an interval widened toward the
/// skew (not symmetric about the mean).
pub fn mean_with_error(ci: &rigor_stats::MeanInterval) -> String {
    let m = ci.mean;
    if ci.is_asymmetric() {
        format!(
            "{} −{} +{}",
            time(m),
            time_like(m - ci.lower, m),
            time_like(ci.upper - m, m)
        )
    } else {
        format!("{} ± {}", time(m), time_like(ci.half_width, m))
    }
}

/// The lower end of `a`'s interval as shown: the t interval is symmetric, so with few, very
/// spread top-level units its lower end can fall below zero, which no time can. When every
/// measured value is non-negative (times; `--allow-negative` data are left alone) the shown lower
/// end is 0 and the second value is the computed one, which the result files keep unchanged.
pub fn shown_lower(a: &rigor_stats::Analysis) -> (f64, Option<f64>) {
    let lower = a.interval.lower;
    if lower < 0.0 && a.summary.min >= 0.0 {
        (0.0, Some(lower))
    } else {
        (lower, None)
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn count_is_singular_for_one_only() {
        assert_eq!(count(1, "ratio", "ratios"), "1 ratio");
        assert_eq!(count(0, "ratio", "ratios"), "0 ratios");
        assert_eq!(count(2, "command", "commands"), "2 commands");
    }
    use super::*;

    #[test]
    fn a_mean_shows_its_error_as_plus_minus_unless_widened_toward_the_skew() {
        use rigor_stats::{Quantile, mean_interval_from_means};
        let ms = |v: &[f64]| v.iter().map(|x| x * 1e-3).collect::<Vec<_>>();
        let symmetric =
            mean_interval_from_means(&ms(&[9.0, 10.0, 11.0, 10.0]), 0.95, Quantile::StudentT);
        let text = mean_with_error(&symmetric.unwrap());
        assert!(text.starts_with("10.00 ms ± "), "{text}");
        let skewed = [
            10.0, 10.1, 9.9, 10.0, 10.05, 9.95, 10.0, 10.1, 9.9, 10.0, 10.0, 14.0,
        ];
        let ci = mean_interval_from_means(&ms(&skewed), 0.95, Quantile::StudentT).unwrap();
        assert!(ci.is_asymmetric());
        let text = mean_with_error(&ci);
        let (below, above) = (ci.mean - ci.lower, ci.upper - ci.mean);
        assert!(above > below);
        assert_eq!(
            text,
            format!(
                "{} −{} +{}",
                time(ci.mean),
                time_like(below, ci.mean),
                time_like(above, ci.mean)
            )
        );
    }

    #[test]
    fn units_by_size() {
        assert_eq!(time(12.3e-9), "12.30 ns");
        assert_eq!(time(0.0105), "10.50 ms");
        assert_eq!(time(123.4), "123.4 s");
        assert_eq!(time_like(0.00008, 0.0105), "0.080 ms");
        assert_eq!(percent(4.567), "4.6%");
        assert_eq!(percent(0.4217), "0.42%");
        assert_eq!(percent(37.2), "37%");
        assert_eq!(time_in(0.0105, 0.0105, Some(TimeUnit::Us)), "10500 µs");
        // A unit asked for far above the value keeps four significant digits (`-u s` of a
        // 21 ms mean and its ±0.19 ms), not `0.021 s ± 0.000 s`.
        assert_eq!(time_in(0.021, 0.021, Some(TimeUnit::S)), "0.02100 s");
        assert_eq!(time_in(0.000193, 0.021, Some(TimeUnit::S)), "0.0001930 s");
        assert_eq!(
            Scale::time(Some(TimeUnit::S)).show(0.000193, 0.021),
            "0.0001930 s"
        );
        assert_eq!(time_in(0.0, 0.021, Some(TimeUnit::S)), "0.000 s");
        assert_eq!(time_in(0.0105, 0.0105, None), time_like(0.0105, 0.0105));
        assert_eq!(bytes(512), "512 B");
        let b = Scale::of(Quantity::Bytes);
        assert_eq!(b.show(3.5 * 1048576.0, 3.5 * 1048576.0), "3.500 MiB");
        assert_eq!(b.show(4096.0, 3.5 * 1048576.0), "0.004 MiB");
        assert_eq!(b.show(512.0, 512.0), "512 B");
        let c = Scale::of(Quantity::Count);
        assert_eq!(c.show(1_234_000.0, 1_234_000.0), "1.234 M");
        assert_eq!(c.show(17.0, 17.0), "17");
        assert_eq!(c.show(17.25, 17.0), "17.25");
        assert_eq!(Scale::time(None).show(0.0105, 0.0105), "10.50 ms");
        assert_eq!(
            Scale::of(Quantity::Rate("MB/s".into())).show(12.0, 12.0),
            "12.00 MB/s"
        );
        assert_eq!(bytes(3 * 1024 * 1024 + 512 * 1024), "3.500 MiB");
    }
}

/// A confidence level as a percentage without the sign: `0.95` → `95`, `0.999` → `99.9` (to at
/// most three decimals; rounding 99.9% to a whole number read "100% CI"); `n/a` when not finite.
pub fn level_percent(level: f64) -> String {
    if !level.is_finite() {
        return "n/a".to_string();
    }
    let s = format!("{:.3}", level * 100.0);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod level_tests {
    #[test]
    fn levels_keep_their_decimals() {
        assert_eq!(super::level_percent(0.95), "95");
        assert_eq!(super::level_percent(0.999), "99.9");
        assert_eq!(super::level_percent(0.9999), "99.99");
        assert_eq!(super::level_percent(0.9), "90");
        assert_eq!(super::level_percent(f64::NAN), "n/a");
        assert_eq!(super::level_percent(f64::INFINITY), "n/a");
    }
}
