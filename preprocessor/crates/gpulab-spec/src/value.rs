//! Parameter values (int / float / string) and measured quantities tagged with a unit.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The value of one experiment parameter at one point (`N = 1024`, `BLOCK = "16x32"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    Int(i64),
    Float(f64),
    Str(String),
}

impl ParamValue {
    /// The numeric value, if the parameter is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ParamValue::Int(i) => Some(*i as f64),
            ParamValue::Float(f) => Some(*f),
            ParamValue::Str(_) => None,
        }
    }

    /// Parses `"16x32"` into `(16, 32)`.
    pub(crate) fn as_dim2(&self) -> Option<(i64, i64)> {
        let ParamValue::Str(s) = self else {
            return None;
        };
        let (a, b) = s.split_once('x')?;
        Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
    }

    /// The value with its type, so that `4`, `4.0` and `"4"` differ: `i:4`, `f:4.0`, `s:4` (the
    /// cache key hashes this; shards order points by it).
    pub fn typed_text(&self) -> String {
        match self {
            ParamValue::Int(i) => format!("i:{i}"),
            ParamValue::Float(f) => format!("f:{f:?}"),
            ParamValue::Str(s) => format!("s:{s}"),
        }
    }

    /// Orders values for table rows and chart axes: numbers numerically, then strings
    /// (dimension strings by their product, then lexically).
    pub fn sort_key(&self) -> (u8, f64, String) {
        match self {
            ParamValue::Int(i) => (0, *i as f64, String::new()),
            ParamValue::Float(f) => (0, *f, String::new()),
            ParamValue::Str(s) => match self.as_dim2() {
                Some((a, b)) => (1, (a * b) as f64 + a as f64 / 1e6, s.clone()),
                None => (2, 0.0, s.clone()),
            },
        }
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Str(s) => f.write_str(s),
        }
    }
}

/// Orders two parameter sets by their values (in name order), for stable, size-ascending lists.
pub fn params_order(
    a: &std::collections::BTreeMap<String, ParamValue>,
    b: &std::collections::BTreeMap<String, ParamValue>,
) -> std::cmp::Ordering {
    let ka: Vec<_> = a.values().map(ParamValue::sort_key).collect();
    let kb: Vec<_> = b.values().map(ParamValue::sort_key).collect();
    ka.partial_cmp(&kb).unwrap_or(std::cmp::Ordering::Equal)
}

/// A measured or derived value with its unit hint ("ms", "GB/s", "%", "FLOP/B").
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Quantity {
    pub value: f64,
    pub unit: Unit,
}

/// Units a metric can carry; the renderer formats each consistently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Unit {
    #[serde(rename = "ms")]
    Millis,
    #[serde(rename = "s")]
    Seconds,
    #[serde(rename = "GB/s")]
    GigabytesPerSec,
    #[serde(rename = "GFLOP/s")]
    GflopsPerSec,
    #[serde(rename = "GIPS")]
    Gips,
    #[serde(rename = "%")]
    Percent,
    #[serde(rename = "FLOP/B")]
    FlopPerByte,
    #[serde(rename = "B")]
    Bytes,
    #[serde(rename = "×")]
    Ratio,
    #[serde(rename = "")]
    Count,
}

impl Unit {
    /// The unit as printed in a table header.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Millis => "ms",
            Unit::Seconds => "s",
            Unit::GigabytesPerSec => "GB/s",
            Unit::GflopsPerSec => "GFLOP/s",
            Unit::Gips => "GIPS",
            Unit::Percent => "%",
            Unit::FlopPerByte => "FLOP/B",
            Unit::Bytes => "B",
            Unit::Ratio => "×",
            Unit::Count => "",
        }
    }

    /// Parses a unit as written in a spec or a paper's CSV.
    pub fn parse(s: &str) -> Option<Unit> {
        Some(match s.trim() {
            "ms" => Unit::Millis,
            "s" => Unit::Seconds,
            "GB/s" => Unit::GigabytesPerSec,
            "GFLOP/s" | "GFLOPS" => Unit::GflopsPerSec,
            "GIPS" => Unit::Gips,
            "%" => Unit::Percent,
            "FLOP/B" => Unit::FlopPerByte,
            "B" | "bytes" => Unit::Bytes,
            "x" | "×" => Unit::Ratio,
            "" | "count" => Unit::Count,
            _ => return None,
        })
    }

    /// Whether a value in this unit is a speed (a time or a rate), so that ours ÷ the paper's is a
    /// speed-up. Counts, bytes, percentages and ratios compare as values only.
    pub fn is_speed(self) -> bool {
        matches!(
            self,
            Unit::Millis | Unit::Seconds | Unit::GigabytesPerSec | Unit::GflopsPerSec | Unit::Gips
        )
    }

    /// Which way a value in this unit improves: times fall, rates and speed-ups rise; a count, a
    /// size, a share or a FLOP-per-byte ratio has no direction of its own.
    pub const fn better(self) -> Option<Better> {
        match self {
            Unit::Millis | Unit::Seconds => Some(Better::Lower),
            Unit::GigabytesPerSec | Unit::GflopsPerSec | Unit::Gips | Unit::Ratio => {
                Some(Better::Higher)
            }
            Unit::Percent | Unit::FlopPerByte | Unit::Bytes | Unit::Count => None,
        }
    }
}

/// Which way a metric improves; drives "best per row" and the heat maps' scale (a metric without
/// one is shaded nowhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Better {
    Lower,
    Higher,
}

/// The direction of a unit as written in a spec: [`Unit::better`] for one [`Unit::parse`] knows,
/// else lower for a time (`ps`, `ns`, `us`, `µs`) and higher for a rate (`GOP/s`); `None` for any
/// other (`way`, `FLOP/access`).
pub fn better_of_unit_text(text: &str) -> Option<Better> {
    let text = text.trim();
    match Unit::parse(text) {
        Some(unit) => unit.better(),
        None if ["ps", "ns", "us", "µs"].contains(&text) => Some(Better::Lower),
        None if text.ends_with("/s") => Some(Better::Higher),
        None => None,
    }
}

pub use crate::host_data::ElemType;

#[cfg(test)]
#[path = "value_tests.rs"]
mod tests;
