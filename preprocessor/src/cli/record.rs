//! `mdbook-gpulab record`: runs every directive's missing or stale points (or all of them with
//! `--rerun`) on this machine's GPU and writes `data/`.

use crate::engine::job::JobPoint;
use crate::engine::recorder::{Recorder, rules_for};
use crate::plan::{Shard, plan};
use crate::record::FailureKind;
use crate::results::{Recordings, find_point};
use std::collections::BTreeMap;
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
    let device = crate::engine::local_device_slug()?;
    let mut recordings = Recordings::new(ws.data())?;
    let mut by_exp: BTreeMap<String, (crate::engine::job::MeasureRules, Vec<JobPoint>)> =
        BTreeMap::new();
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
        recordings.preload(&exp.name)?;
        let recs = recordings.of(&exp.name);
        let mine = recs.iter().find(|r| r.device.slug == device);
        let entry = by_exp
            .entry(exp.name.clone())
            .or_insert_with(|| (rules_for(&ws, &d.measure, d.budget_s), Vec::new()));
        for p in plan(d, exp, &ws.sources)? {
            // A point that crashed or timed out is tried again; a wrong result is not (it is
            // deterministic until the kernel or spec changes, which changes the key).
            let current = mine.and_then(|r| find_point(r, &p)).is_some_and(|q| {
                q.key == p.key
                    && !q.failure.as_ref().is_some_and(|f| {
                        matches!(f.kind, FailureKind::Timeout | FailureKind::Crash)
                    })
            });
            let queued = entry
                .1
                .iter()
                .any(|q| q.variant == p.variant && q.params == p.params);
            if (force || !current) && !queued {
                entry.1.push(JobPoint {
                    variant: p.variant,
                    params: p.params,
                    key: p.key,
                });
            }
        }
    }
    let names: Vec<String> = by_exp.keys().cloned().collect();
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
        let (rules, points) = by_exp.remove(name).unwrap_or_default();
        if points.is_empty() {
            eprintln!("`{name}`: up to date");
            continue;
        }
        let (r, f) = recorder.record_points(&ws, name, points, rules)?;
        ran += r;
        failed += f;
    }
    eprintln!(
        "recorded {ran} point(s), {failed} failed, in {:.1} s on {device}",
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
