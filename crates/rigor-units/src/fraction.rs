//! Proportions: [`Fraction`] (thresholds, precisions) and [`ConfidenceLevel`].

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::UnitError;

/// A proportion in `[0, 1)`, such as a practical threshold (`0.01` = 1%) or a target relative
/// half-width. Parsed from `1%`, `0.5 %` or `0.01`; serialised as the plain number.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct Fraction(f64);

impl Fraction {
    /// A proportion; `None` outside `[0, 1)` or not finite.
    pub fn new(value: f64) -> Option<Self> {
        (0.0..1.0).contains(&value).then_some(Self(value))
    }

    /// `percent` per cent; `None` outside `[0, 100)`.
    pub fn percent(percent: f64) -> Option<Self> {
        Self::new(percent / 100.0)
    }

    /// The proportion (0.01 for 1%).
    pub const fn get(self) -> f64 {
        self.0
    }

    /// As a percentage (1.0 for 1%).
    pub fn as_percent(self) -> f64 {
        100.0 * self.0
    }

    /// Parses like [`FromStr`] but also refuses zero: for precisions, where 0% cannot be reached.
    pub fn parse_positive(s: &str) -> Result<Self, UnitError> {
        let f: Self = s.parse()?;
        if f.0 > 0.0 {
            Ok(f)
        } else {
            Err(UnitError::FractionRange {
                text: s.to_string(),
                range: "strictly between 0 and 100%",
            })
        }
    }
}

impl FromStr for Fraction {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let t = s.trim();
        let value = match t.strip_suffix('%') {
            Some(p) => p.trim().parse::<f64>().map(|v| v / 100.0),
            None => t.parse::<f64>(),
        }
        .map_err(|_| UnitError::Fraction(s.to_string()))?;
        Self::new(value).ok_or_else(|| UnitError::FractionRange {
            text: s.to_string(),
            range: "between 0 and 100%",
        })
    }
}

impl TryFrom<f64> for Fraction {
    type Error = String;
    fn try_from(v: f64) -> Result<Self, String> {
        Self::new(v).ok_or_else(|| format!("{v} is not a proportion in [0, 1)"))
    }
}

impl From<Fraction> for f64 {
    fn from(f: Fraction) -> f64 {
        f.0
    }
}

/// `1%`, `0.50%`, `12%`: precision suited to the size.
impl fmt::Display for Fraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&percent_text(self.as_percent()))
    }
}

/// A percentage with precision suited to its size: `0.42%`, `4.6%`, `37%`; a value that
/// rounds to zero is `0.00%`, never `-0.00%`.
pub fn percent_text(p: f64) -> String {
    let p = if percent_rounds_to_zero(p) { 0.0 } else { p };
    let a = p.abs();
    if a >= 10.0 {
        format!("{p:.0}%")
    } else if a >= 1.0 {
        format!("{p:.1}%")
    } else {
        format!("{p:.2}%")
    }
}

/// Whether [`percent_text`] shows `p` as zero (its smallest step is 0.01%).
pub fn percent_rounds_to_zero(p: f64) -> bool {
    format!("{:.2}", p.abs()) == "0.00"
}

/// A signed percentage, precision as [`percent_text`]: `+4.6%`, `−0.42%` (with the minus sign
/// U+2212); one that rounds to zero has no sign (`0.00%`).
pub fn signed_percent_text(p: f64) -> String {
    let size = percent_text(p.abs());
    if percent_rounds_to_zero(p) {
        size
    } else if p >= 0.0 {
        format!("+{size}")
    } else {
        format!("\u{2212}{size}")
    }
}

/// A confidence level strictly between 0 and 1. Parsed from `0.95`, `95` or `99%` (numbers of 1
/// or more are percentages); serialised as the fraction. Defaults to 95%.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct ConfidenceLevel(f64);

impl ConfidenceLevel {
    /// 95%.
    pub const NINETY_FIVE: Self = Self(0.95);

    /// A level; `None` outside `(0, 1)`.
    pub fn new(level: f64) -> Option<Self> {
        (level > 0.0 && level < 1.0).then_some(Self(level))
    }

    /// The level as a fraction (0.95).
    pub const fn get(self) -> f64 {
        self.0
    }

    /// The significance level α = 1 − level.
    pub fn alpha(self) -> f64 {
        1.0 - self.0
    }
}

impl Default for ConfidenceLevel {
    fn default() -> Self {
        Self::NINETY_FIVE
    }
}

/// The smallest bare number read as a percentage (`95`); a bare number from 1 up to it is
/// refused as ambiguous (`1.5`: 1.5%, or a slip for 0.95?), and a fraction below 1 is a fraction.
const BARE_PERCENT_FROM: f64 = 50.0;

/// `0.95`, `95`, `95%`: a fraction below 1, a bare percentage from 50, or a percentage with its
/// sign.
impl FromStr for ConfidenceLevel {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let t = s.trim();
        let (t, percent) = match t.strip_suffix('%') {
            Some(p) => (p.trim(), true),
            None => (t, false),
        };
        let v: f64 = t
            .parse()
            .map_err(|_| UnitError::Confidence(s.to_string()))?;
        if !percent && (1.0..BARE_PERCENT_FROM).contains(&v) {
            return Err(UnitError::ConfidenceAmbiguous(t.to_string()));
        }
        let v = if percent || v >= 1.0 { v / 100.0 } else { v };
        Self::new(v).ok_or_else(|| UnitError::ConfidenceRange(s.to_string()))
    }
}

impl TryFrom<f64> for ConfidenceLevel {
    type Error = String;
    fn try_from(v: f64) -> Result<Self, String> {
        Self::new(v).ok_or_else(|| format!("confidence level {v} is not in (0, 1)"))
    }
}

impl From<ConfidenceLevel> for f64 {
    fn from(c: ConfidenceLevel) -> f64 {
        c.0
    }
}

/// `95%`, `99.9%`.
impl fmt::Display for ConfidenceLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = 100.0 * self.0;
        if (p - p.round()).abs() < 1e-9 {
            write!(f, "{p:.0}%")
        } else {
            write!(f, "{}%", (p * 1e6).round() / 1e6)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_accepts_fraction_and_percent() {
        let c = |s: &str| s.parse::<ConfidenceLevel>().map(ConfidenceLevel::get);
        assert_eq!(c("0.99"), Ok(0.99));
        assert_eq!(c("95"), Ok(0.95));
        assert_eq!(c("90%"), Ok(0.9));
        assert_eq!(c("0.5%"), Ok(0.005));
        assert!(c("150").is_err());
        assert_eq!(c("50"), Ok(0.5));
        assert_eq!(c("1.5%"), Ok(0.015));
        for ambiguous in ["1", "1.5", "49.9"] {
            let e = c(ambiguous).unwrap_err().to_string();
            assert!(e.contains("ambiguous") && e.contains("0.95"), "{e}");
        }
        assert!(c("0").is_err());
        assert!(c("x").is_err());
        assert_eq!(ConfidenceLevel::NINETY_FIVE.to_string(), "95%");
        assert_eq!(ConfidenceLevel::new(0.999).unwrap().to_string(), "99.9%");
    }

    #[test]
    fn fractions() {
        let f = |s: &str| s.parse::<Fraction>().map(Fraction::get);
        assert_eq!(f("1%"), Ok(0.01));
        assert_eq!(f("0.5 %"), Ok(0.005));
        assert_eq!(f("0.02"), Ok(0.02));
        assert_eq!(f("0"), Ok(0.0));
        assert!(f("150%").is_err());
        assert!(f("-1%").is_err());
        assert!(f("many").is_err());
        assert!(Fraction::parse_positive("0%").is_err());
        assert_eq!(Fraction::parse_positive("2%").unwrap().get(), 0.02);
        assert_eq!(Fraction::new(0.046).unwrap().to_string(), "4.6%");
        assert_eq!(percent_text(0.4217), "0.42%");
        assert_eq!(percent_text(37.2), "37%");
        assert_eq!(percent_text(-0.001), "0.00%");
        assert_eq!(percent_text(-0.0), "0.00%");
        assert_eq!(percent_text(-0.006), "-0.01%");
        assert_eq!(percent_text(-12.0), "-12%");
        assert_eq!(signed_percent_text(4.61), "+4.6%");
        assert_eq!(signed_percent_text(-0.42), "−0.42%");
        assert_eq!(signed_percent_text(-0.001), "0.00%");
        assert_eq!(signed_percent_text(0.0), "0.00%");
    }

    #[test]
    fn out_of_range_values_are_refused_when_read() {
        assert!(serde_json::from_str::<ConfidenceLevel>("1.5").is_err());
        assert!(serde_json::from_str::<Fraction>("2").is_err());
        let c: ConfidenceLevel = serde_json::from_str("0.9").unwrap();
        assert_eq!(c.get(), 0.9);
    }
}
