//! `check`'s kernel step: every kernel build the selected points need, compiled with NVRTC in
//! parallel through the compile cache, and each variant checked against its PTX (`kernel_check`);
//! without NVRTC, every kernel name against its source.

use crate::engine::ptx_cache::compile_cached;
use crate::engine::resolve::kernel_builds;
use crate::gpu::{CompileError, Image};
use crate::kernel_check::{
    PointAt, SourceScan, SpecText, Target, check_name_in_source, check_variant,
};
use crate::plan::{PlannedPoint, plan};
use crate::preprocess::report;
use crate::spec::Experiment;
use crate::spec::metrics::point_vars;
use crate::workspace::{FoundDirective, Workspace};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

/// One compilation: (source, function, NVRTC options).
type Build = (PathBuf, String, Vec<String>);

/// Each module (a source with its options) compiled, or why it did not compile.
type Compiled = HashMap<(PathBuf, Vec<String>), Result<Image, CompileError>>;

/// The builds with their variants, the variants not applicable, and whether a build did not resolve.
type Builds = (BTreeMap<Build, Uses>, BTreeMap<String, String>, bool);

/// The variants that use one build, each with its planned points.
type Uses = BTreeMap<(String, String), (Arc<Experiment>, Vec<PlannedPoint>)>;

/// Compiles and checks every kernel of the directives `found`; returns whether anything failed.
pub(super) fn run(
    ws: &Workspace,
    found: &[&FoundDirective],
    arch: (u32, u32),
    require_nvrtc: bool,
) -> anyhow::Result<bool> {
    let (builds, not_applicable, mut failed) = builds_of(ws, found, arch)?;
    let sm = format!("sm_{}{}", arch.0, arch.1);
    match nvrtc_available() {
        Err(why) if require_nvrtc => {
            eprintln!("error: {why}");
            return Ok(true);
        }
        Err(why) => {
            eprintln!(
                "SKIPPED: compiling {} kernel build(s) and checking them against their PTX: {why}",
                builds.len()
            );
            return Ok(check_names(ws, &builds) || failed);
        }
        Ok(version) => eprintln!(
            "compiling {} kernel build(s) with NVRTC {version} for {sm}",
            builds.len()
        ),
    }
    let target = Target {
        arch,
        limits: crate::limits::arch_limits(arch),
    };
    if target.limits.is_none() {
        eprintln!("warning: the per-block limits of {sm} are not known: shared memory NOT checked");
    }
    for (variant, why) in &not_applicable {
        eprintln!("not applicable on {sm}: {variant} {why}");
    }
    let compiled = compile_all(ws, builds.keys(), arch)?;
    let mut specs: BTreeMap<String, SpecText> = BTreeMap::new();
    let (mut compile_errors, mut problems, mut checked) = (0, 0, BTreeSet::new());
    for ((source, function, options), uses) in &builds {
        let shown = source.strip_prefix(&ws.root).unwrap_or(source);
        let ptx = match &compiled[&(source.clone(), options.clone())] {
            Ok(image) => image.ptx().map(crate::ptx::parse),
            Err(e) => {
                let users: Vec<String> = uses.keys().map(|(e, v)| format!("{e}/{v}")).collect();
                if not_applicable_here(e, &users, arch, &sm) {
                    continue;
                }
                compile_errors += 1;
                report_compile_error(e, (function, shown, options), &users);
                e.ptx().map(crate::ptx::parse)
            }
        };
        let Some(module) = ptx else { continue };
        let mut diags = Vec::new();
        for ((exp_name, variant), (exp, points)) in uses {
            let Some(v) = exp.variant(variant) else {
                continue;
            };
            let spec = specs
                .entry(exp_name.clone())
                .or_insert_with(|| spec_text(ws, exp));
            let points: Vec<PointAt> = points
                .iter()
                .map(|p| PointAt {
                    params: &p.params,
                    axes: &p.axes,
                })
                .collect();
            diags.extend(check_variant(&ws.root, target, spec, v, &module, &points));
            checked.insert((exp_name.clone(), variant.clone()));
        }
        let diags = crate::diagnostic::dedup(diags);
        let errors = diags
            .iter()
            .filter(|d| d.level == crate::diagnostic::Level::Error);
        problems += errors.count();
        report(&diags);
    }
    let n = builds.len();
    match compile_errors {
        0 => eprintln!("all {n} kernel build(s) compiled"),
        _ => eprintln!("{compile_errors} of {n} kernel build(s) failed to compile"),
    }
    failed |= compile_errors > 0;
    eprintln!(
        "checked {} kernel variant(s) against their PTX (kernel name, arguments, block, shared memory): {problems} problem(s)",
        checked.len()
    );
    Ok(failed || problems > 0)
}

/// Whether a build failed only for an instruction newer than `arch` (said so): no error of the book.
fn not_applicable_here(e: &CompileError, users: &[String], arch: (u32, u32), sm: &str) -> bool {
    let needs = crate::limits::arch_required_by(&e.to_string()).filter(|min| *min > arch);
    let Some(why) = needs.and_then(|min| crate::limits::needs_arch(min, arch)) else {
        return false;
    };
    let users = users.join(", ");
    eprintln!("not applicable on {sm}: {users} {why} (its compiler says so)");
    true
}

/// Each module (source and options) the builds need, compiled once, in parallel, through the cache.
fn compile_all<'b>(
    ws: &Workspace,
    builds: impl Iterator<Item = &'b Build>,
    arch: (u32, u32),
) -> anyhow::Result<Compiled> {
    let modules: BTreeSet<(PathBuf, Vec<String>)> =
        builds.map(|(s, _, o)| (s.clone(), o.clone())).collect();
    let cache = ws.config.cache_dir(&ws.root);
    modules
        .into_par_iter()
        .map(|(source, options)| {
            let text = ws.sources.read(&source)?;
            let name = source.strip_prefix(&ws.root).unwrap_or(&source);
            let name = name.to_string_lossy().into_owned();
            let image = compile_cached(&cache, &source, &text, &name, &options, arch);
            Ok(((source, options), image))
        })
        .collect()
}

/// Without NVRTC: whether a variant's kernel is not a `__global__` function of its source (reported).
fn check_names(ws: &Workspace, builds: &BTreeMap<Build, Uses>) -> bool {
    let mut scans: BTreeMap<&PathBuf, SourceScan> = BTreeMap::new();
    let mut specs: BTreeMap<String, SpecText> = BTreeMap::new();
    let (mut diags, mut checked) = (Vec::new(), BTreeSet::new());
    for ((source, _, options), uses) in builds {
        let scan = scans
            .entry(source)
            .or_insert_with(|| SourceScan::of(source));
        for ((exp_name, variant), (exp, _)) in uses {
            let Some(v) = exp.variant(variant) else {
                continue;
            };
            let spec = specs
                .entry(exp_name.clone())
                .or_insert_with(|| spec_text(ws, exp));
            diags.extend(check_name_in_source(&ws.root, spec, v, scan, options));
            checked.insert((exp_name, variant));
        }
    }
    let diags = crate::diagnostic::dedup(diags);
    report(&diags);
    eprintln!(
        "checked the kernel names of {} variant(s) against their sources' `__global__` functions, without NVRTC: {} problem(s)",
        checked.len(),
        diags.len()
    );
    !diags.is_empty()
}

/// Every kernel build the points need on `arch` with its variants, the variants whose `min_arch` is
/// newer, and whether a point's build could not be resolved (reported).
fn builds_of(
    ws: &Workspace,
    found: &[&FoundDirective],
    arch: (u32, u32),
) -> anyhow::Result<Builds> {
    let mut failed = false;
    let mut builds: BTreeMap<Build, Uses> = BTreeMap::new();
    let mut not_applicable = BTreeMap::new();
    for f in found {
        let Ok((d, exp)) = &f.parsed else { continue };
        for p in plan(d, exp, &ws.sources)? {
            let Some(v) = exp.variant(&p.variant) else {
                continue;
            };
            if let Some(why) = v
                .min_arch
                .and_then(|min| crate::limits::needs_arch(min, arch))
            {
                not_applicable.insert(format!("{}/{}", exp.name, v.name), why);
                continue;
            }
            match kernel_builds(v, &point_vars(&p.params, None)) {
                Ok(Some(b)) => builds
                    .entry(b)
                    .or_default()
                    .entry((exp.name.clone(), p.variant.clone()))
                    .or_insert_with(|| (exp.clone(), Vec::new()))
                    .1
                    .push(p),
                Ok(None) => {}
                Err(e) => {
                    eprintln!("error: {}: {e}", exp.name);
                    failed = true;
                }
            }
        }
    }
    Ok((builds, not_applicable, failed))
}

/// Reports a build that failed to compile for the variants `users`, with help for missing headers.
fn report_compile_error(
    e: &crate::gpu::CompileError,
    (function, source, options): (&str, &std::path::Path, &[String]),
    users: &[String],
) {
    let with = match options.is_empty() {
        true => "no options".to_string(),
        false => options.join(" "),
    };
    eprintln!(
        "error: compiling `{function}` from {} with {with} (for {}):\n{e}",
        source.display(),
        users.join(", ")
    );
    let headers = crate::gpu::toolkit_include_dir().is_some();
    if let Some(help) = missing_header_help(e, headers) {
        eprintln!("  = help: {help}");
    }
}

/// An experiment's spec text, shown relative to the book's root.
fn spec_text(ws: &Workspace, exp: &Experiment) -> SpecText {
    let path = exp.dir.join("experiment.toml");
    let shown = path.strip_prefix(&ws.root).unwrap_or(&path).to_path_buf();
    SpecText::new(shown, &std::fs::read_to_string(&path).unwrap_or_default())
}

/// What to do when NVRTC could not open a header and no CUDA toolkit headers were found (NVRTC
/// alone, from PyPI, has none: `<cuda_fp16.h>` and the like come with the runtime's wheel).
/// `headers`: whether a toolkit include folder was found.
fn missing_header_help(e: &crate::gpu::CompileError, headers: bool) -> Option<String> {
    let missing = e
        .diagnostics()
        .iter()
        .any(|d| d.message.starts_with("cannot open source file"));
    (missing && !headers).then(|| {
        "no CUDA toolkit headers were found for NVRTC: install them beside NVRTC \
         (`pip install nvidia-cuda-runtime`), or set GPULAB_CUDA_INCLUDE to a folder with \
         cuda_fp16.h (a toolkit's include/); a header of your own is looked for beside the .cu file"
            .to_string()
    })
}

/// NVRTC's version, or why it cannot be used (with where to get it).
fn nvrtc_available() -> Result<String, String> {
    crate::gpu::nvrtc_version()
        .map(|(a, b)| format!("{a}.{b}"))
        .map_err(|e| e.to_string())
}

#[cfg(test)]
#[path = "check_kernels_tests.rs"]
mod tests;
