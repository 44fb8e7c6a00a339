//! Quantities of rigor as types, in one place.
//!
//! Every crate of rigor that handles a time, a measurement's resolution, a proportion, a
//! confidence level or a seed takes these types instead of a bare `f64` or `u64`, so that
//! seconds never mix with nanoseconds,
//! `1%` never gets confused with `1.0`, and a seed always survives a round trip through JSON and
//! TOML. Parsing accepts what users type on a command line (`90s`, `10m`, `1%`, `95`), and every
//! parse error says what was expected.
//!
//! This crate depends on nothing of rigor's and on nothing heavy (serde, thiserror), so the
//! protocol crate that benchmarked programs link can use it too.

mod error;
mod fraction;
mod metric;
mod resolution;
mod seed;
mod stage;
mod throughput;
mod time;

pub use error::UnitError;
pub use fraction::{
    ConfidenceLevel, Fraction, percent_rounds_to_zero, percent_text, signed_percent_text,
};
pub use metric::{Metric, MetricValues, Metrics, Quantity, bytes_in_unit};
pub use resolution::{Floored, Resolution};
pub use seed::Seed;
pub use stage::FailureStage;
pub use throughput::Throughput;
pub use time::{Seconds, TimeUnit, significant};
