//! `mdbook-gpulab record`: runs every directive's missing or stale points (or all of them with
//! `--rerun`) on this machine's GPU and writes `data/`.

use crate::engine::Work;
use crate::engine::recorder::{JobGroup, Recorder, job_groups};
use crate::plan::{Shard, plan};
use crate::results::Recordings;
use std::path::Path;
use std::process::ExitCode;

pub fn run(
    dir: &Path,
    rerun: Option<Option<String>>,
    shard: Option<Shard>,
    only: Option<String>,
) -> anyhow::Result<ExitCode> {
    crate::engine::install_interrupt_handler();
    let (ws, found) = super::book::load(dir)?;
    let invalid: Vec<_> = found
        .iter()
        .filter_map(|f| f.parsed.as_ref().err())
        .flatten()
        .cloned()
        .collect();
    if !invalid.is_empty() {
        crate::preprocess::report(&invalid);
        anyhow::bail!("fix the invalid directives first (`mdbook-gpulab check`)");
    }
    // Before touching the GPU: every recording this run could merge into parses (a corrupt one
    // is reported and never overwritten), and data/ accepts new files (nothing measured is lost).
    let mut experiments: Vec<String> = found
        .iter()
        .filter_map(|f| f.parsed.as_ref().ok())
        .map(|(_, exp)| exp.name.clone())
        .collect();
    experiments.sort();
    experiments.dedup();
    let data = ws.data();
    data.check_readable(&experiments)
        .map_err(|e| anyhow::anyhow!("{e}; fix or remove it, then record again"))?;
    data.check_writable()?;
    let device = crate::engine::local_device_slug()?;
    if !crate::gpu::nvrtc_library_present() {
        anyhow::bail!(
            "libnvrtc.so.13 not found: kernels cannot be compiled, so nothing is recorded \
             (install the CUDA toolkit or `pip install nvidia-cuda-nvrtc` and add its lib folder to LD_LIBRARY_PATH)"
        );
    }
    let mut recordings = Recordings::new(ws.data())?;
    let mut work: Vec<Work> = Vec::new();
    for f in &found {
        let Ok((d, exp)) = &f.parsed else { continue };
        if only.as_ref().is_some_and(|o| o != &exp.name) {
            continue;
        }
        let force = match &rerun {
            Some(None) => true,
            Some(Some(e)) => e == &exp.name,
            None => false,
        };
        let planned = plan(d, exp, &ws.sources)?;
        let points = if force {
            planned
        } else {
            recordings.to_run(&device, d, exp, &planned)?
        };
        if !points.is_empty() {
            work.push(Work {
                directive: d.clone(),
                experiment: exp.clone(),
                points,
            });
        }
    }
    let groups = job_groups(&ws, &work);
    let mut names: Vec<String> = found
        .iter()
        .filter_map(|f| f.parsed.as_ref().ok())
        .map(|(_, exp)| exp.name.clone())
        .filter(|name| only.as_ref().is_none_or(|o| o == name))
        .collect();
    names.sort();
    names.dedup();
    let selected: Vec<String> = match shard {
        Some(s) => s.select(&names).into_iter().cloned().collect(),
        None => names,
    };
    if crate::engine::recorder::git_commit(&ws.root).is_none() {
        eprintln!(
            "warning: no git commit found (set GPULAB_COMMIT): these recordings will not name the code that made them"
        );
    }
    let recorder = Recorder { verbose: true };
    let started = std::time::Instant::now();
    let (mut ran, mut failed) = (0, 0);
    for name in &selected {
        let mine: Vec<&JobGroup> = groups.iter().filter(|g| &g.experiment == name).collect();
        if mine.is_empty() {
            eprintln!("`{name}`: up to date");
        }
        for g in mine {
            let (r, f) = recorder.record_points(&ws, name, g.points.clone(), g.rules.clone())?;
            ran += r;
            failed += f;
        }
    }
    eprintln!(
        "recorded {ran} point(s), {failed} failed, in {:.1} s on {device}",
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
