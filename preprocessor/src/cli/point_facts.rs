//! What the cost model and sharding know of each point to run, and the bundles sharing a buffer set.

use crate::engine::estimate::{Exec, PointFacts, RefWork};
use crate::engine::job::JobPoint;
use crate::engine::recorder::JobGroup;
use crate::record::{DeviceRecord, Point};
use crate::results::Recordings;
use crate::spec::{Experiment, Reference};
use crate::workspace::Workspace;

/// The point's recordings: on `device` first, then on other GPUs.
pub(super) fn recorded_points(
    recordings: &Recordings,
    device: &str,
    experiment: &str,
    p: &JobPoint,
) -> Vec<Point> {
    let mut recs = recordings.of(experiment);
    recs.sort_by_key(|r| r.device.slug != device);
    recs.into_iter()
        .filter_map(|r| {
            r.points
                .iter()
                .find(|q| q.variant == p.variant && q.params == p.params)
                .cloned()
        })
        .collect()
}

/// Calls `f` with each point of `groups` whose spec loads, with the device record its variables use.
fn each_point(
    ws: &Workspace,
    groups: &[JobGroup],
    recordings: &Recordings,
    device: &str,
    mut f: impl FnMut(&Experiment, &str, &JobPoint, Option<&DeviceRecord>),
) {
    for g in groups {
        let Ok(exp) = ws.spec(&g.experiment) else {
            continue;
        };
        let record = device_record(recordings, &g.experiment, device);
        for p in &g.points {
            f(&exp, &g.experiment, p, record.as_ref());
        }
    }
}

/// The model's facts of every point of `groups`.
pub(super) fn point_facts(
    ws: &Workspace,
    groups: &[JobGroup],
    recordings: &Recordings,
    device: &str,
) -> Vec<PointFacts> {
    let mut out = Vec::new();
    each_point(ws, groups, recordings, device, |exp, name, p, record| {
        let recorded = recorded_points(recordings, device, name, p)
            .into_iter()
            .next();
        out.push(facts_of(exp, p, record, recorded));
    });
    out
}

/// The bundles of `groups`' GPU points that share a costly buffer set (`formula` references: none).
pub(super) fn set_bundles(
    ws: &Workspace,
    groups: &[JobGroup],
    recordings: &Recordings,
    device: &str,
) -> crate::engine::shard::Bundles {
    let mut sets = Vec::new();
    each_point(ws, groups, recordings, device, |exp, name, p, record| {
        let f = facts_of(exp, p, record, None);
        if f.exec != Exec::Gpu || matches!(f.reference, RefWork::Formula { .. }) {
            return;
        }
        sets.push((
            crate::engine::shard::point_id(name, p),
            shared_identity(exp, p, record),
            crate::engine::estimate::set_s(&f, 1.0),
        ));
    });
    crate::engine::shard::bundles(sets)
}

/// What a worker makes once for all the points that have it: the experiment, buffer lengths, reference.
fn shared_identity(exp: &Experiment, p: &JobPoint, device: Option<&DeviceRecord>) -> String {
    let vars = crate::spec::metrics::point_vars(&p.params, device);
    let lens = crate::engine::resolve::buffer_lens(exp, &vars).unwrap_or_default();
    let verify = exp
        .variant(&p.variant)
        .map_or(&exp.verify, |v| exp.verify_for(v));
    let dims = crate::engine::expected::dims(verify, &vars).unwrap_or_default();
    format!(
        "{}\u{1f}{lens:?}\u{1f}{:?}\u{1f}{:?}\u{1f}{dims:?}",
        exp.name, verify.reference, verify.inputs
    )
}

fn device_record(recordings: &Recordings, experiment: &str, device: &str) -> Option<DeviceRecord> {
    let recs = recordings.of(experiment);
    recs.iter()
        .find(|r| r.device.slug == device)
        .or(recs.first())
        .map(|r| r.device.clone())
}

fn facts_of(
    exp: &Experiment,
    p: &JobPoint,
    device: Option<&DeviceRecord>,
    recorded: Option<crate::record::Point>,
) -> PointFacts {
    let variant = exp.variant(&p.variant);
    let exec = match variant.map(|v| &v.exec) {
        Some(crate::spec::Exec::Cpu(name))
            if crate::engine::cpu_baseline::is_multithreaded(name) =>
        {
            Exec::CpuMulti
        }
        Some(crate::spec::Exec::Cpu(_)) => Exec::CpuSingle,
        _ => Exec::Gpu,
    };
    let vars = crate::spec::metrics::point_vars(&p.params, device);
    let lens = crate::engine::resolve::buffer_lens(exp, &vars).unwrap_or_default();
    let bytes = |name: &str| -> u64 {
        exp.buffers
            .iter()
            .zip(&lens)
            .filter(|(b, _)| b.name == name)
            .map(|(b, (_, len))| (*len * b.elem.size_of()) as u64)
            .sum()
    };
    let set: Vec<u64> = exp
        .buffers
        .iter()
        .filter(|b| !b.constant)
        .map(|b| bytes(&b.name))
        .collect();
    let out_bytes = exp
        .buffers
        .iter()
        .filter(|b| b.output)
        .map(|b| bytes(&b.name))
        .sum();
    let verify = variant.map_or(&exp.verify, |v| exp.verify_for(v));
    let dims = crate::engine::expected::dims(verify, &vars).unwrap_or_default();
    let dim = |d: &str| dims.get(d).copied().unwrap_or(0).max(0) as f64;
    let elem_of = |name: &str| exp.buffer(name).map(|b| b.elem);
    let inputs: u64 = verify.inputs.iter().map(|b| bytes(b)).sum();
    let reference = match &verify.reference {
        Reference::Variant(_) => RefWork::None,
        Reference::Builtin(name) if name == "matmul" || name == "matmul_aat" => {
            let n = dim("n");
            let first = verify.inputs.first().map(String::as_str).unwrap_or("");
            let size = elem_of(first).map_or(4, |e| e.size_of()) as f64;
            let k = if name == "matmul" {
                n
            } else {
                bytes(first) as f64 / size / n.max(1.0)
            };
            RefWork::Macs {
                macs: n * n * k,
                int: elem_of(first).is_some_and(|e| !e.is_float()),
            }
        }
        Reference::Builtin(name) if name == "formula" => {
            let len = verify.formula.as_ref().map_or(0, |f| f.source().len()) as f64;
            let n = if dims.contains_key("n") {
                dim("n")
            } else {
                let out = elem_of(&verify.output).map_or(4, |e| e.size_of()) as f64;
                bytes(&verify.output) as f64 / out
            };
            RefWork::Formula { work: n * len }
        }
        Reference::Builtin(_) => RefWork::Streaming {
            bytes: inputs as f64,
        },
    };
    PointFacts {
        experiment: exp.name.clone(),
        params: p.params.clone(),
        exec,
        set,
        out_bytes,
        reference,
        recorded,
    }
}
