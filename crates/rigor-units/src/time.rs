//! Times: [`Seconds`], [`TimeUnit`] and the one display scaler.

use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, Sub};
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::UnitError;

/// A time in seconds. Serialised as a plain number of seconds, so result files stay readable by
/// any JSON tool; arithmetic keeps the unit.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Seconds(pub f64);

impl Seconds {
    /// Zero seconds.
    pub const ZERO: Self = Self(0.0);

    /// A time of `value` seconds.
    pub const fn new(value: f64) -> Self {
        Self(value)
    }

    /// The number of seconds.
    pub const fn get(self) -> f64 {
        self.0
    }

    /// A time given in `unit`.
    pub fn from_unit(value: f64, unit: TimeUnit) -> Self {
        Self(unit.to_seconds(value))
    }

    /// A [`Duration`] as seconds.
    pub fn from_duration(d: Duration) -> Self {
        Self(d.as_secs_f64())
    }

    /// As a [`Duration`]; `None` when negative, not finite or too large.
    pub fn to_duration(self) -> Option<Duration> {
        Duration::try_from_secs_f64(self.0).ok()
    }

    /// Whether the time is positive and finite (what timeouts and budgets need).
    pub fn is_positive(self) -> bool {
        self.0 > 0.0 && self.0.is_finite()
    }

    /// The value in `unit`.
    pub fn in_unit(self, unit: TimeUnit) -> f64 {
        self.0 * unit.per_second()
    }
}

impl Add for Seconds {
    type Output = Self;
    fn add(self, rhs: Self) -> Self {
        Self(self.0 + rhs.0)
    }
}

impl AddAssign for Seconds {
    fn add_assign(&mut self, rhs: Self) {
        self.0 += rhs.0;
    }
}

impl Sub for Seconds {
    type Output = Self;
    fn sub(self, rhs: Self) -> Self {
        Self(self.0 - rhs.0)
    }
}

impl Mul<f64> for Seconds {
    type Output = Self;
    fn mul(self, rhs: f64) -> Self {
        Self(self.0 * rhs)
    }
}

impl Div for Seconds {
    type Output = f64;
    fn div(self, rhs: Self) -> f64 {
        self.0 / rhs.0
    }
}

impl std::iter::Sum for Seconds {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        Self(iter.map(|s| s.0).sum())
    }
}

/// Durations as users type them: a number of seconds (`90`), or a number with a unit: `ns`,
/// `us`/`µs`, `ms`, `s`, `m`/`min`, `h`. Zero, negative and infinite durations are rejected: every
/// option that takes a duration (`--timeout`, `--budget`, `--max-time`) needs a positive one.
impl FromStr for Seconds {
    type Err = UnitError;

    fn from_str(s: &str) -> Result<Self, UnitError> {
        let t = s.trim();
        let split = t
            .find(|c: char| c.is_alphabetic() || c == 'µ')
            .unwrap_or(t.len());
        let (number, suffix) = (t[..split].trim(), t[split..].trim());
        let scale = match suffix {
            "" | "s" | "sec" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            "m" | "min" => 60.0,
            "h" => 3600.0,
            _ => return Err(UnitError::Duration(s.to_string())),
        };
        let value: f64 = number
            .parse()
            .map_err(|_| UnitError::Duration(s.to_string()))?;
        let seconds = Self(value * scale);
        if seconds.is_positive() {
            Ok(seconds)
        } else {
            Err(UnitError::NonPositiveDuration(s.to_string()))
        }
    }
}

/// A time with the unit that suits its size: `12.30 ns`, `4.560 µs`, `7.890 ms`, `1.230 s`.
impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = TimeUnit::for_magnitude(*self);
        write!(f, "{} {}", significant(self.in_unit(unit)), unit.symbol())
    }
}

/// Four significant digits at most, no exponent for ordinary sizes.
pub fn significant(v: f64) -> String {
    let decimals = |a: f64| {
        if a >= 1000.0 {
            0
        } else if a >= 100.0 {
            1
        } else if a >= 10.0 {
            2
        } else {
            3
        }
    };
    let d = decimals(v.abs());
    let shown = format!("{v:.d$}");
    // Rounding can carry into the next decade (9.9997 → "10.000", five digits): then the
    // next decade's decimals.
    match shown.parse::<f64>().map(|r| decimals(r.abs())) {
        Ok(fewer) if fewer < d => format!("{v:.fewer$}"),
        _ => shown,
    }
}

/// A unit of time. Serialised as `ns`, `us`, `ms`, `s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum TimeUnit {
    /// Nanoseconds.
    #[cfg_attr(feature = "clap", value(name = "nanosecond", alias = "ns"))]
    Ns,
    /// Microseconds.
    #[cfg_attr(feature = "clap", value(name = "microsecond", alias = "us"))]
    Us,
    /// Milliseconds.
    #[cfg_attr(feature = "clap", value(name = "millisecond", alias = "ms"))]
    Ms,
    /// Seconds.
    #[cfg_attr(feature = "clap", value(name = "second", alias = "s"))]
    #[default]
    S,
}

impl TimeUnit {
    /// Every unit, smallest first.
    pub const ALL: [Self; 4] = [Self::Ns, Self::Us, Self::Ms, Self::S];

    /// Converts `value` in this unit to seconds (dividing, so `10 us` is exactly `1e-5`).
    pub fn to_seconds(self, value: f64) -> f64 {
        value / self.per_second()
    }

    /// How many of this unit make a second.
    pub fn per_second(self) -> f64 {
        match self {
            Self::Ns => 1e9,
            Self::Us => 1e6,
            Self::Ms => 1e3,
            Self::S => 1.0,
        }
    }

    /// The symbol shown to people: `ns`, `µs`, `ms`, `s`.
    pub fn symbol(self) -> &'static str {
        match self {
            Self::Ns => "ns",
            Self::Us => "µs",
            Self::Ms => "ms",
            Self::S => "s",
        }
    }

    /// The unit a time of this size is shown in: the largest unit in which it is at least 1
    /// (nanoseconds below that). This is rigor's one display scaler: the terminal, Markdown and
    /// HTML views all use it, so a mean and its interval share a unit everywhere.
    pub fn for_magnitude(time: Seconds) -> Self {
        let r = time.0.abs();
        if r < 1e-6 {
            Self::Ns
        } else if r < 1e-3 {
            Self::Us
        } else if r < 1.0 {
            Self::Ms
        } else {
            Self::S
        }
    }
}

impl FromStr for TimeUnit {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        match s {
            "ns" => Ok(Self::Ns),
            "us" | "µs" => Ok(Self::Us),
            "ms" => Ok(Self::Ms),
            "s" => Ok(Self::S),
            other => Err(UnitError::TimeUnit(other.to_string())),
        }
    }
}

impl fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: &str) -> f64 {
        s.parse::<Seconds>().unwrap().get()
    }

    #[test]
    fn durations_in_every_form() {
        assert_eq!(secs("90"), 90.0);
        assert_eq!(secs("90s"), 90.0);
        assert_eq!(secs("10m"), 600.0);
        assert_eq!(secs("1.5h"), 5400.0);
        assert_eq!(secs("2 min"), 120.0);
        assert_eq!(secs("250ms"), 0.25);
        assert_eq!(secs(" 60s "), 60.0);
        for bad in ["soon", "", "10x", "m", "-5s", "0", "inf", "1e400"] {
            assert!(bad.parse::<Seconds>().is_err(), "{bad} was accepted");
        }
    }

    #[test]
    fn display_scales_by_size() {
        assert_eq!(Seconds(12.3e-9).to_string(), "12.30 ns");
        assert_eq!(Seconds(0.0105).to_string(), "10.50 ms");
        assert_eq!(Seconds(4.56e-6).to_string(), "4.560 µs");
        assert_eq!(Seconds(123.4).to_string(), "123.4 s");
        assert_eq!(Seconds(1234.0).to_string(), "1234 s");
    }

    #[test]
    fn units_convert_exactly() {
        assert_eq!(TimeUnit::Us.to_seconds(10.0), 1e-5);
        assert_eq!(TimeUnit::Ns.to_seconds(1.0), 1e-9);
        assert_eq!(Seconds(0.002).in_unit(TimeUnit::Ms), 2.0);
        assert_eq!("µs".parse::<TimeUnit>(), Ok(TimeUnit::Us));
        assert!("minutes".parse::<TimeUnit>().is_err());
        assert_eq!(TimeUnit::for_magnitude(Seconds(5e-4)), TimeUnit::Us);
    }

    #[test]
    fn a_value_rounded_into_the_next_decade_keeps_four_digits() {
        assert_eq!(significant(9.9997), "10.00");
        assert_eq!(significant(99.996), "100.0");
        assert_eq!(significant(999.96), "1000");
        assert_eq!(significant(-9.9997), "-10.00");
        assert_eq!(significant(9.9994), "9.999");
        assert_eq!(significant(12.5), "12.50");
        assert_eq!(Seconds(0.009_999_7).to_string(), "10.00 ms");
    }

    #[test]
    fn seconds_serialise_as_plain_numbers() {
        assert_eq!(serde_json::to_string(&Seconds(1.5)).unwrap(), "1.5");
        let back: Seconds = serde_json::from_str("0.25").unwrap();
        assert_eq!(back, Seconds(0.25));
        assert_eq!(Seconds(1.0).to_duration(), Some(Duration::from_secs(1)));
        assert_eq!(Seconds(-1.0).to_duration(), None);
    }
}
