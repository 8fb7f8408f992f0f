//! The registry: every built-in metric (name, label, unit, how it is obtained) and every device
//! variable, defined once. The directive and spec validators, `Point::metric`, the metric labels
//! the renderers use and the papers' unit lookup all read these tables; adding a metric is one
//! row here (plus, for a kernel attribute, the field `Point::metric` reads, which the compiler
//! asks for).

use super::counters::Group;
use crate::value::{Better, Unit};

/// The median kernel time in milliseconds: every timed point has it.
pub const TIME_MS: &str = "time_ms";

/// Statistic suffixes a timing metric may carry (`time_ms.min`); the plain name is the median.
pub const STAT_SUFFIXES: &[&str] = &["median", "min", "max", "q1", "q3"];

/// How a built-in metric is obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A statistic of the point's timing.
    Timing,
    /// From the spec's `bytes` or `flops` formula and the time, or as a fraction of the device's
    /// peak (`spec::metrics::derive`).
    Derived,
    /// A kernel attribute read after compiling.
    Attribute(Attribute),
    /// Text, not a number (what limits occupancy).
    Text,
    /// From the hardware counters of the profiled pass (`record --counters`) of this group, which
    /// the directive must declare (`metrics::counters::derive`).
    Counters(Group),
}

/// The kernel attributes a point records (`record::Attributes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attribute {
    Registers,
    StaticSharedBytes,
    LocalBytes,
    BlocksPerSm,
    WarpsPerSm,
}

/// One built-in metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Builtin {
    pub name: &'static str,
    pub label: &'static str,
    pub unit: Unit,
    pub source: Source,
    /// Which way it improves: its unit's ([`Unit::better`]) unless its row says otherwise.
    pub better: Option<Better>,
}

impl Builtin {
    /// Whether the value is computed from the point's time (so its timing's quality applies):
    /// timing statistics and rates, not kernel attributes, counts or FLOP-per-byte ratios.
    pub fn uses_time(&self) -> bool {
        match self.source {
            Source::Timing => true,
            Source::Derived | Source::Counters(_) => {
                !matches!(self.unit, Unit::Count | Unit::Bytes | Unit::FlopPerByte)
            }
            Source::Attribute(_) | Source::Text => false,
        }
    }
}

const fn metric(name: &'static str, label: &'static str, unit: Unit, source: Source) -> Builtin {
    Builtin {
        name,
        label,
        unit,
        source,
        better: unit.better(),
    }
}

impl Builtin {
    /// The metric with its own direction (a share of a peak rises, a stall or a conflict falls).
    const fn improves(self, better: Better) -> Builtin {
        Builtin {
            better: Some(better),
            ..self
        }
    }
}

/// Every built-in metric, in the order the docs list them.
pub const BUILTINS: &[Builtin] = &[
    metric(TIME_MS, "time", Unit::Millis, Source::Timing),
    metric("gbps", "bandwidth", Unit::GigabytesPerSec, Source::Derived),
    metric(
        "pct_bw",
        "of peak bandwidth",
        Unit::Percent,
        Source::Derived,
    )
    .improves(Better::Higher),
    metric("gflops", "throughput", Unit::GflopsPerSec, Source::Derived),
    metric("pct_fp32", "of FP32 peak", Unit::Percent, Source::Derived).improves(Better::Higher),
    metric(
        "registers",
        "registers per thread",
        Unit::Count,
        Source::Attribute(Attribute::Registers),
    ),
    metric(
        "static_shared_bytes",
        "static shared memory",
        Unit::Bytes,
        Source::Attribute(Attribute::StaticSharedBytes),
    ),
    metric(
        "local_bytes",
        "local memory per thread",
        Unit::Bytes,
        Source::Attribute(Attribute::LocalBytes),
    ),
    metric(
        "blocks_per_sm",
        "blocks per SM",
        Unit::Count,
        Source::Attribute(Attribute::BlocksPerSm),
    ),
    metric(
        "warps_per_sm",
        "warps per SM",
        Unit::Count,
        Source::Attribute(Attribute::WarpsPerSm),
    ),
    metric("limiter", "occupancy limited by", Unit::Count, Source::Text),
    metric(
        "instructions",
        "warp instructions executed",
        Unit::Count,
        Source::Counters(Group::Instructions),
    ),
    metric(
        "gips",
        "warp instructions per second, whole GPU",
        Unit::Gips,
        Source::Counters(Group::Instructions),
    ),
    metric(
        "gips_sm",
        "warp instructions per second, busiest SM",
        Unit::Gips,
        Source::Counters(Group::Instructions),
    ),
    metric(
        "dram_bytes",
        "DRAM bytes read + written (counted)",
        Unit::Bytes,
        Source::Counters(Group::Dram),
    ),
    metric(
        "dram_gbs",
        "achieved DRAM bandwidth (counted)",
        Unit::GigabytesPerSec,
        Source::Counters(Group::Dram),
    ),
    metric(
        "cgma_dram",
        "FLOP per DRAM byte (counted)",
        Unit::FlopPerByte,
        Source::Counters(Group::Dram),
    ),
    metric(
        "bank_conflicts",
        "shared-memory bank conflicts (counted)",
        Unit::Count,
        Source::Counters(Group::SharedBankConflicts),
    )
    .improves(Better::Lower),
    metric(
        "conflicts_per_request",
        "bank conflicts per shared-memory request",
        Unit::Count,
        Source::Counters(Group::SharedBankConflicts),
    )
    .improves(Better::Lower),
    metric(
        "shared_ld_ways",
        "wavefronts per shared load (counted conflict degree)",
        Unit::Count,
        Source::Counters(Group::SharedBankConflicts),
    )
    .improves(Better::Lower),
    metric(
        "stall_global_pct",
        "warp cycles waiting for global memory",
        Unit::Percent,
        Source::Counters(Group::WarpStates),
    )
    .improves(Better::Lower),
    metric(
        "stall_shared_pct",
        "warp cycles waiting for shared memory",
        Unit::Percent,
        Source::Counters(Group::WarpStates),
    )
    .improves(Better::Lower),
    metric(
        "stall_sync_pct",
        "warp cycles waiting at barriers",
        Unit::Percent,
        Source::Counters(Group::WarpStates),
    )
    .improves(Better::Lower),
    metric(
        "issue_pct",
        "warp cycles issuing or ready (compute)",
        Unit::Percent,
        Source::Counters(Group::WarpStates),
    )
    .improves(Better::Higher),
];

/// The built-in metric called `name`.
pub fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// Column names of the papers' tables that are not built-in metrics but whose unit we know
/// (`data/papers/*/*.csv`; a spec may define them as custom metrics).
const PAPER_COLUMNS: &[(&str, &str, Unit)] = &[
    ("time_s", "time", Unit::Seconds),
    ("pct_cublas", "pct cublas", Unit::Percent),
    ("cgma", "cgma", Unit::FlopPerByte),
    ("speedup", "speedup", Unit::Ratio),
];

/// The unit of a metric name that is a measured quantity of ours (a timing or derived built-in
/// metric, or a known paper column); `None` for counts, text and unknown names.
pub fn known_unit(name: &str) -> Option<Unit> {
    match builtin(name) {
        Some(b) if matches!(b.source, Source::Timing | Source::Derived) => Some(b.unit),
        Some(b) if matches!(b.source, Source::Counters(_)) && b.unit != Unit::Count => Some(b.unit),
        Some(_) => None,
        None => PAPER_COLUMNS
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, _, u)| *u),
    }
}

/// The label of a metric no view describes: the built-in's or paper column's, else the name
/// with spaces for underscores.
pub fn default_label(name: &str) -> String {
    if let Some(b) = builtin(name) {
        return b.label.to_string();
    }
    match PAPER_COLUMNS.iter().find(|(n, _, _)| *n == name) {
        Some((_, label, _)) => label.to_string(),
        None => name.replace('_', " "),
    }
}

/// A variable every variant expression may use, set from the device at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceVar {
    /// Threads per warp (32), known without a device.
    Warp,
    SmCount,
    L2Bytes,
    MaxThreads,
    /// The per-SM limits of the device's architecture (`limits::arch_limits`), for occupancy
    /// formulas on any GPU.
    WarpsPerSm,
    RegistersPerSm,
    SharedPerSm,
    SharedReservedPerBlock,
}

/// A device variable's name in expressions, and its value when `check` evaluates expressions
/// without a GPU (the handbook's H100; a live run uses the real device's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceVarDef {
    pub name: &'static str,
    pub var: DeviceVar,
    pub nominal: i64,
}

/// Every device variable.
/// The compiled kernel's attributes a metric formula may read (`threads_per_sm = "warps_per_sm *
/// WARP"`), with the value `check` evaluates formulas at; a point without them has no such metric.
pub const ATTRIBUTE_VARS: &[(&str, i64)] = &[
    ("registers", 32),
    ("static_shared_bytes", 1024),
    ("blocks_per_sm", 8),
    ("warps_per_sm", 64),
];

pub const DEVICE_VARS: &[DeviceVarDef] = &[
    DeviceVarDef {
        name: "SM_COUNT",
        var: DeviceVar::SmCount,
        nominal: 132,
    },
    DeviceVarDef {
        name: "L2_BYTES",
        var: DeviceVar::L2Bytes,
        nominal: 52_428_800,
    },
    DeviceVarDef {
        name: "WARP",
        var: DeviceVar::Warp,
        nominal: 32,
    },
    DeviceVarDef {
        name: "MAX_THREADS",
        var: DeviceVar::MaxThreads,
        nominal: 1024,
    },
    DeviceVarDef {
        name: "WARPS_PER_SM",
        var: DeviceVar::WarpsPerSm,
        nominal: 64,
    },
    DeviceVarDef {
        name: "REGISTERS_PER_SM",
        var: DeviceVar::RegistersPerSm,
        nominal: 65_536,
    },
    DeviceVarDef {
        name: "SHARED_PER_SM",
        var: DeviceVar::SharedPerSm,
        nominal: 233_472,
    },
    DeviceVarDef {
        name: "SHARED_RESERVED_PER_BLOCK",
        var: DeviceVar::SharedReservedPerBlock,
        nominal: 1024,
    },
];

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
