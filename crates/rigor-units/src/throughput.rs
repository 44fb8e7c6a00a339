//! [`Throughput`]: how much work one measured value does, so that a time becomes a rate
//! (`--throughput 64MiB` → MiB/s, `--throughput 1000items` → items/s).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::UnitError;

/// The work of one measured value (an execution, or an iteration the program timed): a number
/// of bytes or of items. Written as users type it: `64MiB`, `1.5GB`, `4096B`, `1000items`, or
/// a bare number of items (`1000`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Throughput {
    /// Bytes processed per measured value.
    Bytes(f64),
    /// Items (elements, requests, records) processed per measured value.
    Items(f64),
}

impl Throughput {
    /// The amount, in bytes or items.
    pub fn amount(self) -> f64 {
        match self {
            Self::Bytes(n) | Self::Items(n) => n,
        }
    }

    /// The rate of this work done in `seconds`, and the interval of the rate from a time's
    /// interval `[lower, upper]`. A rate is a decreasing function of the time, so the interval
    /// maps exactly, ends swapped: the rate of the interval's upper end is the rate interval's
    /// lower end. (It is the interval of the work over the *mean* time — the rate of the mean,
    /// not the mean of per-execution rates, which would weigh fast executions more.) A lower
    /// end at or below zero gives an unbounded upper rate (infinite).
    pub fn rate(self, seconds: f64, lower: f64, upper: f64) -> (f64, f64, f64) {
        let a = self.amount();
        let of = |t: f64| if t > 0.0 { a / t } else { f64::INFINITY };
        (of(seconds), of(upper), of(lower))
    }
}

impl FromStr for Throughput {
    type Err = UnitError;

    fn from_str(s: &str) -> Result<Self, UnitError> {
        let t = s.trim();
        let split = t.find(|c: char| c.is_alphabetic()).unwrap_or(t.len());
        let (number, unit) = (t[..split].trim(), t[split..].trim());
        let value: f64 = number
            .parse()
            .map_err(|_| UnitError::Throughput(s.to_string()))?;
        if !(value > 0.0 && value.is_finite()) {
            return Err(UnitError::Throughput(s.to_string()));
        }
        match unit {
            "" | "items" | "item" | "elements" | "elem" => Ok(Self::Items(value)),
            _ => crate::metric::bytes_in_unit(unit)
                .map(|k| Self::Bytes(value * k))
                .ok_or_else(|| UnitError::Throughput(s.to_string())),
        }
    }
}

impl fmt::Display for Throughput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Bytes(n) => write!(f, "{n} bytes"),
            Self::Items(n) => write!(f, "{n} items"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_as_typed() {
        assert_eq!("64MiB".parse(), Ok(Throughput::Bytes(64.0 * 1048576.0)));
        assert_eq!("1.5 GB".parse(), Ok(Throughput::Bytes(1.5e9)));
        assert_eq!("1000".parse(), Ok(Throughput::Items(1000.0)));
        assert_eq!("10items".parse(), Ok(Throughput::Items(10.0)));
        for bad in ["", "MiB", "0B", "-1items", "5 parsecs", "inf"] {
            assert!(bad.parse::<Throughput>().is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn the_rate_interval_is_the_time_interval_mapped_with_its_ends_swapped() {
        let t = Throughput::Bytes(1e6);
        let (rate, lo, hi) = t.rate(0.01, 0.008, 0.0125);
        assert_eq!(rate, 1e8);
        assert_eq!(lo, 1e6 / 0.0125);
        assert_eq!(hi, 1e6 / 0.008);
        // A time interval reaching zero leaves the rate unbounded above.
        assert_eq!(t.rate(0.01, -0.001, 0.02).2, f64::INFINITY);
    }
}
