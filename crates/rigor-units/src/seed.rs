//! [`Seed`]: the seed of every random choice, safe in any JSON or TOML reader.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::UnitError;

/// The seed of a run's random choices (interleaving order, bootstrap resamples, simulation).
///
/// Any `u64` is a valid seed, but not every reader holds every `u64`: TOML integers are signed
/// 64-bit (a seed ≥ 2⁶³ cannot be written at all), and JavaScript and jq read JSON numbers as
/// doubles (a seed ≥ 2⁵³ silently changes). So a seed is written as a number when it is below
/// 2⁵³ — exact everywhere — and as a decimal string otherwise; reading accepts both. Seeds rigor
/// draws itself are below 2⁵³ ([`Seed::from_entropy`]), so files normally hold plain numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Seed(pub u64);

impl Seed {
    /// The largest integer every JSON reader holds exactly: 2⁵³ − 1.
    pub const MAX_EXACT_NUMBER: u64 = (1 << 53) - 1;

    /// The seed's value.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// A fresh seed from the clock and the process id, below 2⁵³ (so it is written as a number).
    /// Used only when the user gives none; it is printed and saved, so the run can be repeated.
    pub fn from_entropy() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        // SplitMix64 finaliser to spread the bits.
        let mut z = nanos ^ (u64::from(std::process::id()) << 32);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Self((z ^ (z >> 31)) & Self::MAX_EXACT_NUMBER)
    }
}

impl From<u64> for Seed {
    fn from(v: u64) -> Self {
        Self(v)
    }
}

impl fmt::Display for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for Seed {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        s.trim()
            .parse()
            .map(Self)
            .map_err(|_| UnitError::Seed(s.to_string()))
    }
}

impl Serialize for Seed {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0 <= Self::MAX_EXACT_NUMBER {
            serializer.serialize_u64(self.0)
        } else {
            serializer.serialize_str(&self.0.to_string())
        }
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SeedVisitor;
        impl Visitor<'_> for SeedVisitor {
            type Value = Seed;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a seed: a non-negative integer, or one written as a string")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Seed, E> {
                Ok(Seed(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Seed, E> {
                u64::try_from(v)
                    .map(Seed)
                    .map_err(|_| E::custom(format!("a seed cannot be negative ({v})")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Seed, E> {
                v.parse().map_err(E::custom)
            }
        }
        deserializer.deserialize_any(SeedVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Holder {
        seed: Seed,
    }

    #[test]
    fn large_seeds_are_strings_small_ones_numbers() {
        assert_eq!(serde_json::to_string(&Seed(42)).unwrap(), "42");
        assert_eq!(
            serde_json::to_string(&Seed(18_000_000_000_000_000_000)).unwrap(),
            "\"18000000000000000000\""
        );
        let toml_text = toml::to_string(&Holder {
            seed: Seed(u64::MAX),
        })
        .unwrap();
        assert_eq!(toml_text.trim(), "seed = \"18446744073709551615\"");
        assert!(serde_json::from_str::<Seed>("-3").is_err());
        assert!(serde_json::from_str::<Seed>("\"x\"").is_err());
    }

    #[test]
    fn drawn_seeds_are_exact_numbers() {
        for _ in 0..100 {
            assert!(Seed::from_entropy().get() <= Seed::MAX_EXACT_NUMBER);
        }
    }

    proptest! {
        #[test]
        fn every_seed_round_trips_through_json_and_toml(v in any::<u64>()) {
            let h = Holder { seed: Seed(v) };
            let json = serde_json::to_string(&h).unwrap();
            prop_assert_eq!(serde_json::from_str::<Holder>(&json).unwrap(), Holder { seed: Seed(v) });
            let toml_text = toml::to_string(&h).unwrap();
            prop_assert_eq!(toml::from_str::<Holder>(&toml_text).unwrap(), Holder { seed: Seed(v) });
        }
    }
}
