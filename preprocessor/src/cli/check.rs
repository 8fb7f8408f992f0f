//! `mdbook-gpulab check`: validates every directive and spec, and compiles every kernel build the
//! book needs with NVRTC (no GPU required), reporting errors at the `.cu` file and line.

use crate::diagnostic::Diagnostic;
use crate::engine::resolve::kernel_builds;
use crate::plan::plan;
use crate::preprocess::report;
use crate::spec::metrics::point_vars;
use crate::workspace::{FoundDirective, Workspace};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The architecture kernels are checked for when no GPU is present (the handbook's H100).
const CHECK_ARCH: (u32, u32) = (9, 0);

pub fn run(dir: &Path, compile: bool, require_nvrtc: bool) -> anyhow::Result<ExitCode> {
    let (ws, found) = super::book::load(dir)?;
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut directives = 0;
    for f in &found {
        match &f.parsed {
            Ok(_) => directives += 1,
            Err(d) => diags.extend(d.iter().cloned()),
        }
    }
    let names = ws.experiment_names();
    for name in &names {
        if let Err(d) = ws.spec(name) {
            diags.extend(d);
        }
    }
    let mut failed = !diags.is_empty();
    report(&dedup(diags));
    let (recordings, unreadable) = check_recordings(&ws, &names);
    failed |= unreadable > 0;
    eprintln!(
        "checked {directives} directive(s), {} experiment spec(s) and {recordings} recording(s)",
        names.len()
    );
    for warning in truncated_metrics(&found, &ws)? {
        eprintln!("warning: {warning}");
    }
    // Every `reproduces` id names an item of its paper's inventory, and every re-run item is re-run.
    let inventory = crate::inventory::Inventory::load(&ws.config.data_dir(&ws.root))?;
    let ids = found
        .iter()
        .filter_map(|f| f.parsed.as_ref().ok())
        .flat_map(|(d, _)| d.reproduces.iter().map(String::as_str));
    for problem in inventory.check_reproduces(ids) {
        eprintln!("error: {problem}");
        failed = true;
    }

    if !compile {
        eprintln!("skipped: NVRTC compile step (--no-compile)");
        return Ok(if failed {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        });
    }
    // Every distinct (source, function, options) the book's points need.
    let mut builds: BTreeSet<(PathBuf, String, Vec<String>)> = BTreeSet::new();
    for f in &found {
        let Ok((d, exp)) = &f.parsed else { continue };
        for p in plan(d, exp, &ws.sources)? {
            let Some(v) = exp.variant(&p.variant) else {
                continue;
            };
            let vars = point_vars(&p.params, None);
            match kernel_builds(v, &vars) {
                Ok(Some(b)) => {
                    builds.insert(b);
                }
                Ok(None) => {}
                Err(e) => {
                    eprintln!("error: {}: {e}", exp.name);
                    failed = true;
                }
            }
        }
    }
    match nvrtc_available() {
        Err(why) if require_nvrtc => {
            eprintln!("error: {why}");
            return Ok(ExitCode::FAILURE);
        }
        Err(why) => {
            eprintln!("SKIPPED: compiling {} kernel build(s): {why}", builds.len());
            return Ok(if failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            });
        }
        Ok(version) => eprintln!(
            "compiling {} kernel build(s) with NVRTC {version} for sm_{}{}",
            builds.len(),
            CHECK_ARCH.0,
            CHECK_ARCH.1
        ),
    }
    let mut compile_errors = 0;
    for (source, function, options) in &builds {
        let text = ws.sources.read(source)?;
        let shown = source.strip_prefix(&ws.root).unwrap_or(source);
        match crate::gpu::compile(&text, &shown.to_string_lossy(), options, CHECK_ARCH) {
            Ok(_) => {}
            Err(e) => {
                compile_errors += 1;
                eprintln!(
                    "error: compiling `{function}` from {} with {}:\n{e}",
                    shown.display(),
                    options.join(" ")
                );
            }
        }
    }
    if compile_errors > 0 {
        eprintln!(
            "{compile_errors} of {} kernel build(s) failed to compile",
            builds.len()
        );
        failed = true;
    } else {
        eprintln!("all {} kernel build(s) compiled", builds.len());
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// One line per (experiment, variant, metric, division) whose metric formula drops a remainder at a
/// point the book plans: metric `/` is real division, so only an explicit `div(a, b)` can do that.
fn truncated_metrics(found: &[FoundDirective], ws: &Workspace) -> anyhow::Result<Vec<String>> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for f in found {
        let Ok((d, exp)) = &f.parsed else { continue };
        for p in plan(d, exp, &ws.sources)? {
            for (metric, t) in crate::spec::metrics::metric_truncations(exp, &p.variant, &p.params)
            {
                if seen.insert((
                    exp.name.clone(),
                    p.variant.clone(),
                    metric.clone(),
                    t.text.clone(),
                )) {
                    let at: Vec<String> =
                        p.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    out.push(format!(
                        "{} variant `{}`: metric `{metric}` truncates an integer division at {}: {t} (metric `/` is real division; `div(a, b)` truncates)",
                        exp.name,
                        p.variant,
                        at.join(", ")
                    ));
                }
            }
        }
    }
    Ok(out)
}

fn dedup(diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut seen = BTreeSet::new();
    diags
        .into_iter()
        .filter(|d| seen.insert(d.render(false)))
        .collect()
}

/// NVRTC's version, or why it cannot be used (checked before cudarc, which panics otherwise).
fn nvrtc_available() -> Result<String, String> {
    if !crate::gpu::nvrtc_library_present() {
        return Err("libnvrtc.so.13 not found (install the CUDA toolkit or `pip install nvidia-cuda-nvrtc` and add its lib folder to LD_LIBRARY_PATH)".into());
    }
    crate::gpu::nvrtc_version()
        .map(|(a, b)| format!("{a}.{b}"))
        .map_err(|e| e.to_string())
}

/// Parses every recording of the book's experiments, on every device, as a build would; reports
/// each one that cannot be read. Returns (recordings read, unreadable ones).
fn check_recordings(ws: &Workspace, names: &[String]) -> (usize, usize) {
    let data = ws.data();
    let devices = match data.devices() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return (0, 1);
        }
    };
    let (mut read, mut bad) = (0, 0);
    for dev in &devices {
        for name in names {
            match data.load(dev, name) {
                Ok(Some(_)) => read += 1,
                Ok(None) => {}
                Err(e) => {
                    eprintln!("error: {e}");
                    bad += 1;
                }
            }
        }
    }
    (read, bad)
}
