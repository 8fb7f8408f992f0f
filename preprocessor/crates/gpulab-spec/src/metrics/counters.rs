//! Hardware counters: every Nsight Compute (`ncu`) metric the profiled pass can record, by its
//! ncu name (this file is the only place those names are written), the counter groups a directive
//! declares (`counters = ["instructions", …]`), and the metrics derived from the recorded values
//! when the book renders (`gips`, `dram_gbs`, …; their labels and units are rows of the registry).

use crate::value::{Quantity, Unit};
use std::collections::BTreeMap;

/// Warp-level instructions executed, summed over the GPU (one per warp per instruction).
pub const INST_EXECUTED: &str = "smsp__inst_executed.sum";
/// Warp-level instructions executed by the busiest SM.
pub const INST_EXECUTED_SM_MAX: &str = "sm__inst_executed.max";
/// Bytes read from DRAM.
pub(crate) const DRAM_READ: &str = "dram__bytes_read.sum";
/// Bytes written to DRAM.
pub(crate) const DRAM_WRITE: &str = "dram__bytes_write.sum";
/// Shared-memory bank conflicts of loads (extra wavefronts).
pub(crate) const SHARED_LD_CONFLICTS: &str =
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
/// Shared-memory bank conflicts of stores.
pub(crate) const SHARED_ST_CONFLICTS: &str =
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
/// Warp-level shared-memory load instructions (requests).
pub(crate) const SHARED_LD_REQUESTS: &str = "smsp__inst_executed_op_shared_ld.sum";
/// Warp-level shared-memory store instructions (requests).
pub(crate) const SHARED_ST_REQUESTS: &str = "smsp__inst_executed_op_shared_st.sum";
/// The kernel's duration under the profiler (always collected: it weighs the percentages of a
/// point with several launches, and is shown as provenance, never as the point's time).
pub const GPU_TIME: &str = "gpu__time_duration.sum";

/// The warp states of the profile breakdown: `smsp__warp_issue_stalled_<state>_per_warp_active.pct`
/// is the share of the active warps' cycles spent in that state (the states, `selected` included,
/// add up to 100 %), grouped by what the warp waits for.
const STALL_PREFIX: &str = "smsp__warp_issue_stalled_";
const STALL_SUFFIX: &str = "_per_warp_active.pct";

/// What a warp state is charged to in the breakdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StateClass {
    /// Waiting for global/local memory: a load's result (long scoreboard), the LSU queue (LG
    /// throttle), stores draining at exit.
    Global,
    /// Waiting for shared memory and the MIO pipe: short scoreboard, MIO throttle.
    Shared,
    /// Waiting at `__syncthreads()` or a memory barrier.
    Sync,
    /// Issuing or ready to issue: selected, not selected, fixed-latency dependencies (wait),
    /// a busy math pipe, dispatch.
    Issue,
    /// Everything else (instruction fetch, branch resolution, constant cache, sleeping, …).
    Other,
}

/// Every warp state ncu reports on sm_90 (`ncu --query-metrics --chip gh100`), with its class.
pub(crate) const WARP_STATES: &[(&str, StateClass)] = &[
    ("long_scoreboard", StateClass::Global),
    ("lg_throttle", StateClass::Global),
    ("drain", StateClass::Global),
    ("short_scoreboard", StateClass::Shared),
    ("mio_throttle", StateClass::Shared),
    ("barrier", StateClass::Sync),
    ("membar", StateClass::Sync),
    ("selected", StateClass::Issue),
    ("not_selected", StateClass::Issue),
    ("wait", StateClass::Issue),
    ("math_pipe_throttle", StateClass::Issue),
    ("dispatch_stall", StateClass::Issue),
    ("no_instruction", StateClass::Other),
    ("branch_resolving", StateClass::Other),
    ("imc_miss", StateClass::Other),
    ("tex_throttle", StateClass::Other),
    ("sleeping", StateClass::Other),
    ("gmma", StateClass::Other),
    ("misc", StateClass::Other),
];

/// The ncu metric of a warp state.
pub(crate) fn warp_state_metric(state: &str) -> String {
    format!("{STALL_PREFIX}{state}{STALL_SUFFIX}")
}

/// How the values of a point's launches (a `loop`, several `passes`) combine into the point's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// Counts add up.
    Sum,
    /// The largest of the launches (a per-SM maximum).
    Max,
    /// Percentages: the mean weighted by each launch's duration.
    TimeWeighted,
}

/// How a recorded ncu metric combines over launches, from its name.
pub fn combine_of(ncu: &str) -> Combine {
    if ncu.ends_with(".pct") || ncu.ends_with(".ratio") {
        Combine::TimeWeighted
    } else if ncu.ends_with(".max") {
        Combine::Max
    } else {
        Combine::Sum
    }
}

/// A group of counters a directive asks for by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Instructions,
    Dram,
    SharedBankConflicts,
    WarpStates,
}

/// Every counter group: its name in a directive and what it measures.
pub const GROUPS: &[(&str, Group, &str)] = &[
    (
        "instructions",
        Group::Instructions,
        "warp-level instructions executed (GIPS)",
    ),
    ("dram", Group::Dram, "DRAM bytes read and written"),
    (
        "shared_bank_conflicts",
        Group::SharedBankConflicts,
        "shared-memory bank conflicts and requests, loads and stores",
    ),
    (
        "warp_states",
        Group::WarpStates,
        "where the warps' cycles go: waiting for global memory, shared memory, barriers, or issuing",
    ),
];

impl Group {
    /// The group called `name` in a directive.
    pub fn parse(name: &str) -> Option<Group> {
        GROUPS.iter().find(|(n, _, _)| *n == name).map(|g| g.1)
    }

    pub fn name(self) -> &'static str {
        GROUPS
            .iter()
            .find(|g| g.1 == self)
            .map(|g| g.0)
            .unwrap_or_default()
    }

    /// The ncu metrics of this group.
    pub fn metrics(self) -> Vec<String> {
        match self {
            Group::Instructions => vec![INST_EXECUTED.into(), INST_EXECUTED_SM_MAX.into()],
            Group::Dram => vec![DRAM_READ.into(), DRAM_WRITE.into()],
            Group::SharedBankConflicts => vec![
                SHARED_LD_CONFLICTS.into(),
                SHARED_ST_CONFLICTS.into(),
                SHARED_LD_REQUESTS.into(),
                SHARED_ST_REQUESTS.into(),
            ],
            Group::WarpStates => WARP_STATES
                .iter()
                .map(|(s, _)| warp_state_metric(s))
                .collect(),
        }
    }
}

/// The ncu metrics to collect for `groups` (with [`GPU_TIME`]), sorted and without repeats.
pub fn ncu_metrics(groups: &[Group]) -> Vec<String> {
    let mut m: Vec<String> = groups.iter().flat_map(|g| g.metrics()).collect();
    m.push(GPU_TIME.into());
    m.sort();
    m.dedup();
    m
}

/// The inputs of the derived counter metrics besides the recorded values.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context {
    /// The point's median time from the timing pass (ms).
    pub time_ms: Option<f64>,
    /// The spec's `flops` formula at the point.
    pub flops: Option<f64>,
}

/// The counter-derived metrics of one point from its recorded `values` (by ncu name): each is
/// present only when every value it needs was recorded (the rows of the registry with
/// `Source::Counters` name them).
pub fn derive(values: &BTreeMap<String, f64>, cx: Context) -> BTreeMap<String, Quantity> {
    let get = |name: &str| values.get(name).copied().filter(|v| v.is_finite());
    let time_s = cx.time_ms.filter(|t| *t > 0.0).map(|t| t / 1e3);
    let mut out = BTreeMap::new();
    let mut put = |name: &str, value: Option<f64>, unit: Unit| {
        if let Some(value) = value.filter(|v| v.is_finite()) {
            out.insert(name.to_string(), Quantity { value, unit });
        }
    };
    let inst = get(INST_EXECUTED);
    put("instructions", inst, Unit::Count);
    put("gips", per_second(inst, time_s), Unit::Gips);
    put(
        "gips_sm",
        per_second(get(INST_EXECUTED_SM_MAX), time_s),
        Unit::Gips,
    );
    let dram = get(DRAM_READ).zip(get(DRAM_WRITE)).map(|(r, w)| r + w);
    put("dram_bytes", dram, Unit::Bytes);
    put("dram_gbs", per_second(dram, time_s), Unit::GigabytesPerSec);
    put(
        "cgma_dram",
        cx.flops
            .zip(dram)
            .filter(|(_, d)| *d > 0.0)
            .map(|(f, d)| f / d),
        Unit::FlopPerByte,
    );
    let (ld, st) = (get(SHARED_LD_CONFLICTS), get(SHARED_ST_CONFLICTS));
    let (ld_req, st_req) = (get(SHARED_LD_REQUESTS), get(SHARED_ST_REQUESTS));
    let conflicts = ld.zip(st).map(|(a, b)| a + b);
    put("bank_conflicts", conflicts, Unit::Count);
    let requests = ld_req.zip(st_req).map(|(a, b)| a + b);
    put(
        "conflicts_per_request",
        ratio(conflicts, requests),
        Unit::Count,
    );
    put(
        "shared_ld_ways",
        ratio(ld, ld_req).map(|r| 1.0 + r),
        Unit::Count,
    );
    for (name, class) in [
        ("stall_global_pct", StateClass::Global),
        ("stall_shared_pct", StateClass::Shared),
        ("stall_sync_pct", StateClass::Sync),
        ("issue_pct", StateClass::Issue),
    ] {
        put(name, state_share(values, class), Unit::Percent);
    }
    out
}

fn per_second(count: Option<f64>, time_s: Option<f64>) -> Option<f64> {
    count.zip(time_s).map(|(c, t)| c / t / 1e9)
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    a.zip(b).filter(|(_, b)| *b > 0.0).map(|(a, b)| a / b)
}

/// The share (%) of the warps' active cycles in the states of `class`, normalised by the sum
/// over every state (which ncu makes ≈ 100 %); `None` unless every state was recorded.
fn state_share(values: &BTreeMap<String, f64>, class: StateClass) -> Option<f64> {
    let mut total = 0.0;
    let mut mine = 0.0;
    for (state, c) in WARP_STATES {
        let v = *values.get(&warp_state_metric(state))?;
        total += v;
        if *c == class {
            mine += v;
        }
    }
    (total > 0.0).then(|| 100.0 * mine / total)
}

#[cfg(test)]
#[path = "counters_tests.rs"]
mod tests;
