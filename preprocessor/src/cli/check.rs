//! `mdbook-gpulab check`: validates every directive, spec and recording, then `check_kernels`.

use crate::diagnostic::Diagnostic;
use crate::plan::plan;
use crate::preprocess::report;
use crate::workspace::{FoundDirective, Workspace};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;

/// `check`'s options.
#[derive(clap::Args)]
pub(super) struct CheckArgs {
    /// Skip the NVRTC compile step.
    #[arg(long)]
    no_compile: bool,
    /// Fail when libnvrtc is missing instead of skipping the compile step.
    #[arg(long)]
    require_nvrtc: bool,
    /// The GPU architecture to compile and check for (`sm_90`, the default; `sm_80`, …), or
    /// `all`: each one NVRTC can compile for, in turn.
    #[arg(long, value_parser = super::parse_archs, default_value = "sm_90")]
    arch: super::Archs,
    /// Compile only the kernels of these experiments (repeat it, or separate names with commas).
    #[arg(long, value_delimiter = ',')]
    experiment: Vec<String>,
    /// Compile only the kernels of this chapter's directives (relative to the book's src folder
    /// or the book root).
    #[arg(long)]
    chapter: Option<String>,
}

/// Checks the book at `dir`; compiles the kernels `only` selects for each architecture unless not to.
pub(super) fn run(dir: &Path, only: &CheckArgs) -> anyhow::Result<ExitCode> {
    let (md, ws) = super::book::open(dir)?;
    if let Some(problem) = ws.device_problem() {
        anyhow::bail!("{problem}");
    }
    let found = crate::preprocess::scan_book(&ws, &md.book);
    super::book::require_experiments(&found, &only.experiment)?;
    let selected = selected(&md, &ws, &found, only)?;
    let mut diags: Vec<Diagnostic> = Vec::new();
    let (mut directives, mut inline) = (0, 0);
    for f in &found {
        match &f.parsed {
            Ok(_) if f.fence.kind == crate::directive::fence::FenceKind::Inline => inline += 1,
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
    report(&crate::diagnostic::dedup(diags));
    let (recordings, unreadable) = check_recordings(&ws, &names);
    let (device_files, unreadable_device_files) = check_device_files(&ws);
    failed |= unreadable + unreadable_device_files > 0;
    let inline = match inline {
        0 => String::new(),
        n => format!(", {n} inline value(s)"),
    };
    eprintln!(
        "checked {directives} directive(s){inline}, {} experiment spec(s), {recordings} recording(s) and {device_files} calibration, profiler-check and library-anchor file(s)",
        names.len()
    );
    for path in super::book::unlisted_with_directives(&md, &ws) {
        eprintln!(
            "warning: {} has gpulab directives but is not listed in SUMMARY.md, so mdBook does not build it and they are not checked",
            ws.src_dir
                .join(&path)
                .strip_prefix(&ws.root)
                .unwrap_or(&path)
                .display()
        );
    }
    for warning in truncated_metrics(&found, &ws)? {
        eprintln!("warning: {warning}");
    }
    unknown_devices(&ws, &found)?;
    report_prose_literals(&ws, &md);
    failed |= check_reproduces(&ws, &found)?;
    if !only.no_compile {
        failed |= compile_for(&ws, &selected, &only.arch.0, only.require_nvrtc)?;
    } else {
        eprintln!("skipped: NVRTC compile step (--no-compile)");
    }
    Ok(ExitCode::from(u8::from(failed)))
}

/// The directives of `--chapter` (else all), narrowed to `--experiment`'s.
fn selected<'f>(
    md: &mdbook_driver::MDBook,
    ws: &Workspace,
    found: &'f [FoundDirective],
    only: &CheckArgs,
) -> anyhow::Result<Vec<&'f FoundDirective>> {
    let mut selected = match &only.chapter {
        Some(chapter) => super::book::chapter_directives(md, ws, found, chapter)?,
        None => found.iter().collect(),
    };
    if !only.experiment.is_empty() {
        selected.retain(|f| {
            f.parsed
                .as_ref()
                .is_ok_and(|(_, exp)| only.experiment.contains(&exp.name))
        });
    }
    Ok(selected)
}

/// Warns of figures typed into the prose that equal a value their page shows.
fn report_prose_literals(ws: &Workspace, md: &mdbook_driver::MDBook) {
    match crate::preprocess::process_book(ws, &mut md.book.clone(), None, true) {
        Ok(summary) => report(&summary.literals),
        Err(e) => eprintln!("warning: prose not compared with the values shown: {e}"),
    }
}

/// Whether a `reproduces` id names no item of its inventory or a re-run item is not re-run (reported).
fn check_reproduces(ws: &Workspace, found: &[FoundDirective]) -> anyhow::Result<bool> {
    let inventory = crate::inventory::Inventory::load(&ws.config.data_dir(&ws.root))?;
    let ids = found
        .iter()
        .filter_map(|f| f.parsed.as_ref().ok())
        .flat_map(|(d, _)| {
            let at = format!("{}:{}", d.location.chapter.display(), d.location.line);
            d.reproduces.iter().map(move |id| (id.as_str(), at.clone()))
        });
    let problems = inventory.check_reproduces(ids);
    for problem in &problems {
        eprintln!("error: {problem}");
    }
    Ok(!problems.is_empty())
}

/// Compiles and checks the kernels of `selected` for each of `archs`; returns whether anything failed.
fn compile_for(
    ws: &Workspace,
    selected: &[&FoundDirective],
    archs: &[(u32, u32)],
    require_nvrtc: bool,
) -> anyhow::Result<bool> {
    let (mut failed, mut verdicts) = (false, Vec::new());
    for &arch in archs {
        let bad = super::check_kernels::run(ws, selected, arch, require_nvrtc)?;
        let verdict = if bad { "FAILED" } else { "passed" };
        verdicts.push(format!("sm_{}{} {verdict}", arch.0, arch.1));
        failed |= bad;
    }
    if archs.len() > 1 {
        eprintln!("architectures: {}", verdicts.join(", "));
    }
    Ok(failed)
}

/// Warns about each device a directive or inline value names that data/ has no recordings of.
fn unknown_devices(ws: &Workspace, found: &[FoundDirective]) -> anyhow::Result<()> {
    let known = ws.data().devices()?;
    for f in found {
        let Ok((d, _)) = &f.parsed else { continue };
        let mut named: Vec<(&str, String)> = Vec::new();
        if let crate::directive::DeviceSelection::Slug(slug) = &d.devices
            && d.inline.is_none()
        {
            let at = format!("{}#{}", d.location.chapter.display(), d.location.index);
            named.push((slug, format!("{at}: `devices = \"{slug}\"`")));
        }
        let at = format!("{}:{}", d.location.chapter.display(), d.location.line);
        let operands = d.inline.iter().flat_map(|i| &i.operands);
        named.extend(operands.filter_map(|o| {
            let name = o.device.as_deref()?;
            Some((name, format!("{at}: `device={name}`")))
        }));
        for (name, what) in named {
            if known
                .iter()
                .any(|k| crate::results::device_matches(name, k))
            {
                continue;
            }
            let hint = crate::diagnostic::did_you_mean(name, known.iter().map(String::as_str))
                .map_or_else(String::new, |h| format!("; {h}"));
            eprintln!(
                "warning: {what}: data/ has no recordings of this device (it has: {}){hint}",
                known.join(", ")
            );
        }
    }
    Ok(())
}

/// One line per (experiment, variant, metric, division) whose `div(a, b)` drops a remainder at a planned point.
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

/// (device files read, unreadable ones), each parsed as a build would.
fn check_device_files(ws: &Workspace) -> (usize, usize) {
    use crate::results::device_files::DEVICE_FILES;
    let data = ws.data();
    let Ok(devices) = data.devices() else {
        return (0, 0); // check_recordings reported it
    };
    let loads = devices.iter().flat_map(|dev| {
        let data = &data;
        DEVICE_FILES.iter().map(move |f| (f.parse)(data, dev))
    });
    tally(loads)
}

/// (recordings read, unreadable ones) of the book's experiments, each parsed as a build would.
fn check_recordings(ws: &Workspace, names: &[String]) -> (usize, usize) {
    let data = ws.data();
    let devices = data.devices().map_err(|e| eprintln!("error: {e}"));
    let Ok(devices) = devices else { return (0, 1) };
    let loads = devices.iter().flat_map(|dev| {
        let data = &data;
        names
            .iter()
            .map(move |n| data.load(dev, n).map(|r| r.is_some()))
    });
    tally(loads)
}

/// (files present, unreadable ones) of `loads`, each unreadable one reported.
fn tally<E: std::fmt::Display>(loads: impl Iterator<Item = Result<bool, E>>) -> (usize, usize) {
    loads.fold((0, 0), |(read, bad), load| match load {
        Ok(present) => (read + usize::from(present), bad),
        Err(e) => {
            eprintln!("error: {e}");
            (read, bad + 1)
        }
    })
}
