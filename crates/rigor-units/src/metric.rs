//! What is measured: [`Metric`] (wall time, CPU time, peak memory, a count a program reports)
//! and the kind of quantity its values are, [`Quantity`] (times, bytes, counts, or a unit a
//! program named).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::UnitError;
use crate::time::TimeUnit;

/// What a summary, a comparison, a change or a page is about. Every execution records all the
/// process-level metrics at once (wall, user and system time, peak memory) and whatever the
/// program reports; a metric chooses which of them is analysed. Written as users type it:
/// `wall`, `cpu`, `user`, `system`, `peak-memory`, `instructions`, `cycles`, or the name a
/// program reported (`allocations`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Metric {
    /// Wall-clock time: of each execution, or of each iteration the program reports (the
    /// benchmark's own samples). The default.
    #[default]
    Wall,
    /// CPU time of each execution: user + system.
    Cpu,
    /// User CPU time of each execution.
    User,
    /// System CPU time of each execution.
    System,
    /// Peak resident set size of each execution, bytes.
    PeakMemory,
    /// Instructions retired by each execution (hardware counters, Linux perf events).
    Instructions,
    /// CPU cycles of each execution (hardware counters, Linux perf events).
    Cycles,
    /// A value the program reported itself through the samples file (`{"metric": NAME, ...}`),
    /// or another tool's file kept (a Google Benchmark counter, ReBench's `MaxRSS`).
    Reported(String),
}

impl Metric {
    /// The built-in metrics, in the order they are listed.
    pub const BUILT_IN: [Self; 7] = [
        Self::Wall,
        Self::Cpu,
        Self::User,
        Self::System,
        Self::PeakMemory,
        Self::Instructions,
        Self::Cycles,
    ];

    /// The name as typed and stored: `wall`, `cpu`, `peak-memory`, `allocations`.
    pub fn name(&self) -> &str {
        match self {
            Self::Wall => "wall",
            Self::Cpu => "cpu",
            Self::User => "user",
            Self::System => "system",
            Self::PeakMemory => "peak-memory",
            Self::Instructions => "instructions",
            Self::Cycles => "cycles",
            Self::Reported(name) => name,
        }
    }

    /// What it is in words, for headings: "wall time", "CPU time (user + system)".
    pub fn description(&self) -> String {
        match self {
            Self::Wall => "wall time".into(),
            Self::Cpu => "CPU time (user + system)".into(),
            Self::User => "user CPU time".into(),
            Self::System => "system CPU time".into(),
            Self::PeakMemory => "peak memory (resident set)".into(),
            Self::Instructions => "instructions retired".into(),
            Self::Cycles => "CPU cycles".into(),
            Self::Reported(name) => format!("{name} (reported by the program or its file)"),
        }
    }

    /// Whether it is the default, wall time.
    pub fn is_wall(&self) -> bool {
        *self == Self::Wall
    }

    /// The kind of quantity its values are, when the metric alone tells (a reported metric's
    /// unit comes with its values).
    pub fn quantity(&self) -> Option<Quantity> {
        match self {
            Self::Wall | Self::Cpu | Self::User | Self::System => Some(Quantity::Time),
            Self::PeakMemory => Some(Quantity::Bytes),
            Self::Instructions | Self::Cycles => Some(Quantity::Count),
            Self::Reported(_) => None,
        }
    }

    /// Whether a smaller value is better (every built-in metric; a reported one unless its unit
    /// is a rate, where more is better).
    pub fn lower_is_better(&self, quantity: &Quantity) -> bool {
        !matches!(quantity, Quantity::Rate(_))
    }
}

/// A reported metric's name: letters, digits, `_`, `-`, `.` and `/`, 1 to 64 characters, not a
/// built-in name (which would be ambiguous).
fn valid_reported_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
}

/// Every spelling of a built-in metric [`Metric::from_str`] accepts, lower case.
const SPELLINGS: [(&str, Metric); 18] = [
    ("wall", Metric::Wall),
    ("time", Metric::Wall),
    ("wall-time", Metric::Wall),
    ("cpu", Metric::Cpu),
    ("cpu-time", Metric::Cpu),
    ("process-time", Metric::Cpu),
    ("user", Metric::User),
    ("system", Metric::System),
    ("sys", Metric::System),
    ("peak-memory", Metric::PeakMemory),
    ("peakmem", Metric::PeakMemory),
    ("max-rss", Metric::PeakMemory),
    ("maxrss", Metric::PeakMemory),
    ("memory", Metric::PeakMemory),
    ("peak-rss", Metric::PeakMemory),
    ("instructions", Metric::Instructions),
    ("cycles", Metric::Cycles),
    ("cpu-cycles", Metric::Cycles),
];

/// Levenshtein distance of two short ASCII words (metric names; written here because a crate
/// for one 10-line function on names of at most 64 bytes would be the larger cost).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<u8> = b.bytes().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

impl FromStr for Metric {
    type Err = UnitError;

    /// A built-in metric by any of its spellings, in any case, `_` for `-` (`CPU`,
    /// `peak_memory`); a name within two letters of a built-in one (`cpuu`, `peak-memroy`) is
    /// refused as a likely typo, naming the metric meant; any other valid name is a metric a
    /// program reports.
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let t = s.trim();
        let folded = t.to_ascii_lowercase().replace('_', "-");
        if let Some((_, m)) = SPELLINGS.iter().find(|(name, _)| *name == folded) {
            return Ok(m.clone());
        }
        if folded.len() >= 3 {
            if let Some((name, _)) = SPELLINGS
                .iter()
                .map(|(name, m)| (m.name(), distance(&folded, name)))
                .filter(|(_, d)| *d <= 2)
                .min_by_key(|(_, d)| *d)
            {
                return Err(UnitError::MetricTypo {
                    given: s.to_string(),
                    meant: name.to_string(),
                });
            }
        }
        if valid_reported_name(t) {
            Ok(Self::Reported(t.to_string()))
        } else {
            Err(UnitError::Metric(s.to_string()))
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Metric {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Metric {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// The kind of quantity a metric's values are, which decides how they are shown and whether
/// more is better. Values are kept in the quantity's base unit: seconds, bytes, a count, or the
/// unit a program named.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Quantity {
    /// Seconds (shown with rigor's one time scaler).
    #[default]
    Time,
    /// Bytes (shown in binary units: KiB, MiB).
    Bytes,
    /// A count of events (instructions, allocations).
    Count,
    /// A rate in the named unit per second (`MB/s`, `items/s`): more is better.
    Rate(String),
    /// Any other unit a program named (`{"unit": "joules"}`), shown as given.
    Other(String),
}

impl Quantity {
    /// The quantity a unit as a program writes it names, and the factor that brings a value in
    /// that unit to the quantity's base unit: `ms` → (time, 0.001), `KiB` → (bytes, 1024),
    /// `kB` → (bytes, 1000), `count` → (count, 1); anything else is a unit of its own (factor
    /// 1). Byte units follow [`bytes_in_unit`]'s one rule (`KiB` binary, `kB`/`MB` decimal);
    /// an importer whose tool writes `kB` for KiB says so itself.
    pub fn of_unit(unit: &str) -> (Self, f64) {
        let u = unit.trim();
        if let Ok(t) = u.parse::<TimeUnit>() {
            return (Self::Time, 1.0 / t.per_second());
        }
        if let Some(factor) = bytes_in_unit(u) {
            return (Self::Bytes, factor);
        }
        match u {
            "" | "count" | "counts" | "n" | "1" | "items" | "events" => (Self::Count, 1.0),
            other if other.ends_with("/s") => (Self::Rate(other.to_string()), 1.0),
            other => (Self::Other(other.to_string()), 1.0),
        }
    }

    /// The unit its stored values are in, as written in files: `s`, `B`, `count`, or the
    /// program's own.
    pub fn base_unit(&self) -> &str {
        match self {
            Self::Time => "s",
            Self::Bytes => "B",
            Self::Count => "count",
            Self::Rate(u) | Self::Other(u) => u,
        }
    }

    /// The noun of the quantity in sentences ("no time can be negative").
    pub fn noun(&self) -> &'static str {
        match self {
            Self::Time => "time",
            Self::Bytes => "size",
            Self::Count => "count",
            Self::Rate(_) => "rate",
            Self::Other(_) => "value",
        }
    }
}

/// Bytes in one `unit`, by one rule wherever rigor reads a size (`--throughput`, the units
/// programs report, imported files): the IEC units are binary (`KiB` = 1024, `MiB`, `GiB`) and
/// the SI ones decimal (`kB` = `KB` = 1000, `MB` = 10⁶, `GB` = 10⁹), as the standards define
/// them; `B`/`byte`/`bytes` are 1. `None` for a unit that is not a size. Sizes are shown in
/// binary units (KiB, MiB), so a value read in decimal units is shown converted, never relabelled.
pub fn bytes_in_unit(unit: &str) -> Option<f64> {
    const KI: f64 = 1024.0;
    Some(match unit {
        "B" | "b" | "byte" | "bytes" => 1.0,
        "kB" | "KB" | "kb" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => KI,
        "MiB" => KI * KI,
        "GiB" => KI * KI * KI,
        _ => return None,
    })
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.base_unit())
    }
}

impl Serialize for Quantity {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.base_unit())
    }
}

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(Self::of_unit(&s).0)
    }
}

/// The values one execution gave of one metric, in the quantity's base unit (seconds, bytes, a
/// count): one value for the execution, or one per iteration when the program reported it per
/// iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricValues {
    /// The kind of quantity, written as its base unit (`s`, `B`, `count`, or the program's own).
    pub unit: Quantity,
    /// The values, in reporting order.
    pub values: Vec<f64>,
}

/// Several metrics as typed on a command line: `wall,cpu`; each once, in the order given.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Metrics(pub Vec<Metric>);

impl Metrics {
    /// Wall time alone (the default).
    pub fn wall() -> Self {
        Self(vec![Metric::Wall])
    }

    /// Whether wall time alone is asked for.
    pub fn is_wall_only(&self) -> bool {
        self.0.is_empty() || self.0 == [Metric::Wall]
    }
}

impl FromStr for Metrics {
    type Err = UnitError;

    fn from_str(s: &str) -> Result<Self, UnitError> {
        let mut all = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let m: Metric = part.parse()?;
            if !all.contains(&m) {
                all.push(m);
            }
        }
        if all.is_empty() {
            return Err(UnitError::Metric(s.to_string()));
        }
        Ok(Self(all))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_read_as_typed_and_round_trip() {
        for m in Metric::BUILT_IN {
            assert_eq!(m.name().parse::<Metric>().unwrap(), m);
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(serde_json::from_str::<Metric>(&json).unwrap(), m);
        }
        assert_eq!("peakmem".parse::<Metric>().unwrap(), Metric::PeakMemory);
        assert_eq!("peak_memory".parse::<Metric>().unwrap(), Metric::PeakMemory);
        assert_eq!("CPU".parse::<Metric>().unwrap(), Metric::Cpu);
        for (typo, meant) in [
            ("cpuu", "cpu"),
            ("peak-memroy", "peak-memory"),
            ("Wal", "wall"),
        ] {
            let err = typo.parse::<Metric>().unwrap_err().to_string();
            assert!(err.contains(&format!("did you mean '{meant}'")), "{err}");
        }
        // Names far from every built-in are what programs report.
        assert_eq!(
            "mem".parse::<Metric>().unwrap(),
            Metric::Reported("mem".into())
        );
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!("process_time".parse::<Metric>().unwrap(), Metric::Cpu);
        assert_eq!(
            "allocations".parse::<Metric>().unwrap(),
            Metric::Reported("allocations".into())
        );
        for bad in ["", "a b", "x;rm", &"x".repeat(65)] {
            assert!(bad.parse::<Metric>().is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn several_metrics_once_each_in_order() {
        let m: Metrics = "cpu, wall,cpu".parse().unwrap();
        assert_eq!(m.0, vec![Metric::Cpu, Metric::Wall]);
        assert!(",".parse::<Metrics>().is_err());
        assert!(Metrics::wall().is_wall_only());
        assert!(!m.is_wall_only());
    }

    #[test]
    fn units_name_their_quantity_and_factor() {
        assert_eq!(Quantity::of_unit("ms"), (Quantity::Time, 1e-3));
        assert_eq!(Quantity::of_unit("ns"), (Quantity::Time, 1e-9));
        assert_eq!(Quantity::of_unit("KiB"), (Quantity::Bytes, 1024.0));
        // One rule for sizes: IEC binary, SI decimal (as `--throughput` reads them).
        assert_eq!(Quantity::of_unit("kB"), (Quantity::Bytes, 1000.0));
        assert_eq!(Quantity::of_unit("MB"), (Quantity::Bytes, 1e6));
        assert_eq!(Quantity::of_unit("GiB"), (Quantity::Bytes, 1073741824.0));
        for unit in ["kB", "MB", "GB", "KiB", "MiB", "GiB", "B"] {
            let typed: crate::Throughput = format!("2{unit}").parse().unwrap();
            assert_eq!(typed.amount(), 2.0 * Quantity::of_unit(unit).1, "{unit}");
        }
        assert_eq!(Quantity::of_unit("count"), (Quantity::Count, 1.0));
        assert_eq!(
            Quantity::of_unit("MB/s"),
            (Quantity::Rate("MB/s".into()), 1.0)
        );
        assert_eq!(
            Quantity::of_unit("joules"),
            (Quantity::Other("joules".into()), 1.0)
        );
        assert!(Metric::Cpu.lower_is_better(&Quantity::Time));
        assert!(!Metric::Reported("x".into()).lower_is_better(&Quantity::Rate("MB/s".into())));
    }
}
