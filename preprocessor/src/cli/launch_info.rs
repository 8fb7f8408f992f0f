//! `mdbook-gpulab launch-info` (hidden): the resolved launch of a variant at a point (`--points`: many),
//! as JSON, so that scripts/ncu_check.py runs what the engine plans (`--image`: its machine code too).

use crate::engine::resolve::{self, Arg, Scalar};
use crate::record::DeviceRecord;
use crate::spec::Exec;
use crate::spec::metrics::point_vars;
use crate::value::ParamValue;
use crate::workspace::Workspace;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `launch-info`'s arguments.
#[derive(clap::Args)]
pub(super) struct LaunchInfoArgs {
    #[arg(required_unless_present = "points")]
    experiment: Option<String>,
    #[arg(required_unless_present = "points")]
    variant: Option<String>,
    /// Parameter values, `N=4096`.
    assignments: Vec<String>,
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
    /// Also compile the kernel exactly as the engine does (NVRTC, its options, this machine's
    /// GPU) and write the image here, so an independent timer runs the same machine code.
    #[arg(long)]
    image: Option<PathBuf>,
    /// Many points: a JSON list of `{"experiment", "variant", "params", "image"}` read from
    /// this file (`-`: stdin); prints a JSON list of their launches (or each one's `error`).
    #[arg(long, conflicts_with_all = ["experiment", "image"])]
    points: Option<PathBuf>,
    /// Take the device variables (`SM_COUNT`, `L2_BYTES`, …) from this device's recording of
    /// each point's experiment (`data/<slug>/`) rather than from this machine's GPU.
    #[arg(long)]
    pub device: Option<String>,
}

impl LaunchInfoArgs {
    /// The points asked for (the arguments' one, or `--points`' list, `-`: stdin), and whether a list.
    pub(super) fn requests(&self) -> anyhow::Result<(Vec<Request>, bool)> {
        let Some(path) = &self.points else {
            let request = Request {
                experiment: self.experiment.clone().unwrap_or_default(),
                variant: self.variant.clone().unwrap_or_default(),
                params: parse_assignments(&self.assignments)?,
                image: self.image.clone(),
            };
            return Ok((vec![request], false));
        };
        let text = if path == Path::new("-") {
            std::io::read_to_string(std::io::stdin())?
        } else {
            std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        };
        Ok((serde_json::from_str(&text)?, true))
    }
}

/// One point asked for: a variant at parameter values, and where to write its compiled image.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct Request {
    pub experiment: String,
    pub variant: String,
    #[serde(default)]
    pub params: BTreeMap<String, ParamValue>,
    #[serde(default)]
    pub image: Option<PathBuf>,
}

/// Prints one point's launch, or (`many`) a JSON list of each point's launch or `"error"`.
pub(super) fn run(
    dir: &Path,
    requests: Vec<Request>,
    many: bool,
    device: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let (_, ws) = super::book::open(dir)?;
    let gpu = crate::gpu::devices()
        .ok()
        .and_then(|d| d.into_iter().next());
    let from = Devices {
        recorded_on: device,
        gpu: gpu.as_ref(),
    };
    let cc = gpu.as_ref().map(|g| g.compute_capability);
    if !many {
        let r = requests
            .first()
            .ok_or_else(|| anyhow::anyhow!("no point"))?;
        println!(
            "{}",
            serde_json::to_string_pretty(&info(&ws, r, &from, cc)?)?
        );
        return Ok(ExitCode::SUCCESS);
    }
    let out: Vec<Value> = requests
        .iter()
        .map(|r| {
            let mut v =
                info(&ws, r, &from, cc).unwrap_or_else(|e| json!({ "error": e.to_string() }));
            v["experiment"] = json!(r.experiment);
            v["variant"] = json!(r.variant);
            v["params"] = json!(r.params);
            v
        })
        .collect();
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(ExitCode::SUCCESS)
}

/// `NAME=value` assignments as parameter values (integers, then floats, else strings).
pub(super) fn parse_assignments(
    assignments: &[String],
) -> anyhow::Result<BTreeMap<String, ParamValue>> {
    assignments
        .iter()
        .map(|a| {
            let (k, val) = a
                .split_once('=')
                .ok_or_else(|| anyhow::anyhow!("expected NAME=value, got `{a}`"))?;
            let pv = val
                .parse::<i64>()
                .map(ParamValue::Int)
                .or_else(|_| val.parse::<f64>().map(ParamValue::Float))
                .unwrap_or(ParamValue::Str(val.into()));
            Ok((k.to_string(), pv))
        })
        .collect()
}

/// Where the device variables come from: `data/<recorded_on>/`'s recording, else this machine's GPU.
struct Devices<'a> {
    recorded_on: Option<&'a str>,
    gpu: Option<&'a crate::gpu::DeviceInfo>,
}

/// The launch of one point: its kernel, options, buffers and every launch of a sample.
fn info(
    ws: &Workspace,
    r: &Request,
    from: &Devices<'_>,
    cc: Option<(u32, u32)>,
) -> anyhow::Result<Value> {
    let exp = ws.spec(&r.experiment).map_err(|d| {
        anyhow::anyhow!(
            "{}",
            d.iter()
                .map(|x| x.render(false))
                .collect::<Vec<_>>()
                .join("\n")
        )
    })?;
    let v = exp
        .variant(&r.variant)
        .ok_or_else(|| anyhow::anyhow!("no variant `{}`", r.variant))?;
    let mut params: BTreeMap<String, ParamValue> = exp.params.iter().cloned().collect();
    params.extend(r.params.clone());
    let device: Option<DeviceRecord> = match from.recorded_on {
        None => from.gpu.map(crate::engine::worker::device_record),
        Some(slug) => Some(
            ws.data()
                .load(slug, &r.experiment)?
                .ok_or_else(|| anyhow::anyhow!("{} is not recorded on {slug}", r.experiment))?
                .device,
        ),
    };
    let vars = point_vars(&params, device.as_ref());
    let Exec::Kernel { source } = &v.exec else {
        anyhow::bail!("`{}` is not a kernel variant", r.variant)
    };
    let seq = crate::engine::sequence::Sequence::plan(v, &vars)?;
    let buffers: Vec<_> = resolve::buffer_lens(&exp, &vars)?
        .into_iter()
        .map(|(name, len)| {
            let b = exp.buffer(&name);
            json!({
                "name": name, "len": len,
                "type": b.map(|b| b.elem.name()).unwrap_or("f32"),
                "init": b.map(|b| &b.init), "constant": b.is_some_and(|b| b.constant),
            })
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
        .map(|l| {
            let args: Vec<Value> = l.args.into_iter().map(arg_json).collect();
            json!({ "function": l.kernel, "grid": l.grid, "block": l.block, "shared": l.shared, "args": args })
        })
        .collect();
    let options = resolve::defines(v, &vars)?;
    let mut info = json!({
        "source": source, "options": options,
        "buffers": buffers, "launches": launches,
    });
    if let Some(path) = &r.image {
        let cc = cc.ok_or_else(|| anyhow::anyhow!("--image needs a GPU (its architecture)"))?;
        info["image"] = write_image(ws, source, &options, cc, path)?;
    }
    Ok(info)
}
/// Compiles `source` as the engine's worker does and writes the image to `path`; returns its description.
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
