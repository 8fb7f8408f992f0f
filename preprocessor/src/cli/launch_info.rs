//! `mdbook-gpulab launch-info` (hidden): the resolved launch of one variant at one point, as JSON.
//! An independent timer (scripts/ncu_check.py) can then run exactly what the
//! engine runs; with `--image`, the kernel compiled exactly as the engine compiles it, too.

use crate::engine::resolve::{self, Arg, Scalar};
use crate::spec::Exec;
use crate::spec::metrics::point_vars;
use crate::value::ParamValue;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

pub fn run(
    dir: &Path,
    experiment: &str,
    variant: &str,
    assignments: &[String],
    image: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let (ws, _) = super::book::load(dir)?;
    let exp = ws.spec(experiment).map_err(|d| {
        anyhow::anyhow!(
            "{}",
            d.iter()
                .map(|x| x.render(false))
                .collect::<Vec<_>>()
                .join("\n")
        )
    })?;
    let v = exp
        .variant(variant)
        .ok_or_else(|| anyhow::anyhow!("no variant `{variant}`"))?;
    let mut params: BTreeMap<String, ParamValue> = exp.params.iter().cloned().collect();
    for a in assignments {
        let (k, val) = a
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("expected NAME=value, got `{a}`"))?;
        let pv = val
            .parse::<i64>()
            .map(ParamValue::Int)
            .or_else(|_| val.parse::<f64>().map(ParamValue::Float))
            .unwrap_or(ParamValue::Str(val.into()));
        params.insert(k.to_string(), pv);
    }
    let gpu = crate::gpu::devices()
        .ok()
        .and_then(|d| d.into_iter().next());
    let device = gpu.as_ref().map(crate::engine::worker::device_record);
    let vars = point_vars(&params, device.as_ref());
    let Exec::Kernel { function, source } = &v.exec else {
        anyhow::bail!("`{variant}` is not a kernel variant")
    };
    let seq = crate::engine::sequence::Sequence::plan(v, &vars)?;
    let buffers: Vec<_> = resolve::buffer_lens(&exp, &vars)?
        .into_iter()
        .map(|(name, len)| {
            let ty = exp.buffer(&name).map(|b| b.elem.name()).unwrap_or("f32");
            json!({ "name": name, "type": ty, "len": len })
        })
        .collect();
    let arg_json = |a: Arg| match a {
        Arg::Buffer(b) => json!({ "buffer": b }),
        Arg::Scalar(x) => {
            let (ty, value) = scalar_json(x);
            json!({ ty.name(): value })
        }
        Arg::PassIn | Arg::PassOut => json!({ "pass": true }),
    };
    let launches: Vec<_> = seq
        .describe()
        .into_iter()
        .map(|(grid, block, shared, args)| {
            json!({ "grid": grid, "block": block, "shared": shared, "args": args.into_iter().map(arg_json).collect::<Vec<_>>() })
        })
        .collect();
    let options = resolve::defines(v, &vars)?;
    let mut info = json!({
        "source": source, "function": function, "options": options,
        "buffers": buffers, "launches": launches,
    });
    if let Some(path) = image {
        let cc = gpu
            .as_ref()
            .map(|g| g.compute_capability)
            .ok_or_else(|| anyhow::anyhow!("--image needs a GPU (its architecture)"))?;
        info["image"] = write_image(&ws, source, &options, cc, path)?;
    }
    println!("{}", serde_json::to_string_pretty(&info)?);
    Ok(ExitCode::SUCCESS)
}

/// Compiles `source` as the engine's worker does (the same NVRTC call, options and name) and
/// writes the image to `path`; returns its description.
fn write_image(
    ws: &crate::workspace::Workspace,
    source: &Path,
    options: &[String],
    cc: (u32, u32),
    path: &Path,
) -> anyhow::Result<serde_json::Value> {
    let text = std::fs::read_to_string(source)
        .map_err(|e| anyhow::anyhow!("{}: {e}", source.display()))?;
    let shown = source.strip_prefix(&ws.root).unwrap_or(source);
    let img = crate::gpu::compile(&text, &shown.to_string_lossy(), options, cc)?;
    std::fs::write(path, img.bytes()).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let kind = match img.kind() {
        crate::gpu::ImageKind::Cubin => "cubin",
        crate::gpu::ImageKind::Ptx => "ptx",
    };
    let (major, minor) = crate::gpu::nvrtc_version()?;
    Ok(json!({ "path": path, "kind": kind, "nvrtc": format!("{major}.{minor}") }))
}

/// A scalar argument's type and value (integers exact, floats as their value).
fn scalar_json(x: Scalar) -> (crate::spec::ScalarType, serde_json::Value) {
    use crate::spec::ScalarType as T;
    match x {
        Scalar::I8(v) => (T::I8, json!(v)),
        Scalar::U8(v) => (T::U8, json!(v)),
        Scalar::I16(v) => (T::I16, json!(v)),
        Scalar::U16(v) => (T::U16, json!(v)),
        Scalar::I32(v) => (T::I32, json!(v)),
        Scalar::U32(v) => (T::U32, json!(v)),
        Scalar::I64(v) => (T::I64, json!(v)),
        Scalar::U64(v) => (T::U64, json!(v)),
        Scalar::F16(v) => (T::F16, json!(v.to_f64())),
        Scalar::BF16(v) => (T::BF16, json!(v.to_f64())),
        Scalar::F32(v) => (T::F32, json!(v)),
        Scalar::F64(v) => (T::F64, json!(v)),
    }
}
