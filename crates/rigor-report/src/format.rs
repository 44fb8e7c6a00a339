//! Number formatting shared by every output.

/// Formats seconds with a unit chosen for its size: `12.3 ns`, `4.56 µs`, `7.89 ms`, `1.23 s`.
pub fn time(seconds: f64) -> String {
    let (value, unit) = scaled(seconds, seconds);
    format!("{} {unit}", sig(value))
}

/// Formats `seconds` in the unit that suits `reference` (so a mean and its ± share a unit).
pub fn time_like(seconds: f64, reference: f64) -> String {
    let (value, unit) = scaled(seconds, reference);
    format!("{} {unit}", sig(value))
}

fn scaled(seconds: f64, reference: f64) -> (f64, &'static str) {
    let r = reference.abs();
    if r < 1e-6 {
        (seconds * 1e9, "ns")
    } else if r < 1e-3 {
        (seconds * 1e6, "µs")
    } else if r < 1.0 {
        (seconds * 1e3, "ms")
    } else {
        (seconds, "s")
    }
}

/// Four significant digits at most, no exponent for ordinary sizes.
fn sig(v: f64) -> String {
    let a = v.abs();
    let decimals = if a >= 1000.0 {
        0
    } else if a >= 100.0 {
        1
    } else if a >= 10.0 {
        2
    } else {
        3
    };
    format!("{v:.decimals$}")
}

/// A percentage with precision suited to its size: `0.42%`, `4.6%`, `37%`.
pub fn percent(p: f64) -> String {
    let a = p.abs();
    if a >= 10.0 {
        format!("{p:.0}%")
    } else if a >= 1.0 {
        format!("{p:.1}%")
    } else {
        format!("{p:.2}%")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_by_size() {
        assert_eq!(time(12.3e-9), "12.30 ns");
        assert_eq!(time(0.0105), "10.50 ms");
        assert_eq!(time(123.4), "123.4 s");
        assert_eq!(time_like(0.00008, 0.0105), "0.080 ms");
        assert_eq!(percent(4.567), "4.6%");
        assert_eq!(percent(0.4217), "0.42%");
        assert_eq!(percent(37.2), "37%");
    }
}
