//! `mdbook-gpulab run <chapter.md>[#n]`: runs one directive (or every directive of a chapter) on
//! the GPU, records it, and prints its tables in the terminal, like running a notebook cell.

use crate::engine::job::JobPoint;
use crate::engine::recorder::{JobGroup, Recorder, rules_for};
use crate::plan::plan;
use crate::render::text::text_table;
use crate::results::{Recordings, device_results, select_devices};
use std::path::Path;
use std::process::ExitCode;

pub fn run(dir: &Path, target: &str) -> anyhow::Result<ExitCode> {
    crate::engine::install_interrupt_handler();
    let (chapter, index) = match target.rsplit_once('#') {
        Some((c, n)) => (
            c,
            Some(
                n.parse::<usize>()
                    .map_err(|_| anyhow::anyhow!("`#{n}`: expected a directive number"))?,
            ),
        ),
        None => (target, None),
    };
    let (ws, found) = super::book::load(dir)?;
    let chapter_rel = Path::new(chapter);
    let selected: Vec<_> = found
        .iter()
        .filter(|f| chapter_rel.ends_with(&f.chapter_path) || f.chapter_path.ends_with(chapter_rel))
        .filter(|f| f.fence.kind == crate::directive::fence::FenceKind::Experiment)
        .collect();
    if selected.is_empty() {
        anyhow::bail!(
            "no gpulab directive in `{chapter}` (paths are relative to the book's src folder or the book root)"
        );
    }
    let recorder = Recorder {
        verbose: true,
        ..Default::default()
    };
    let mut shown = 0;
    for f in selected {
        let (d, exp) = match &f.parsed {
            Ok(x) => x,
            Err(diags) => {
                crate::preprocess::report(diags);
                anyhow::bail!("the directive is invalid");
            }
        };
        if index.is_some_and(|n| n != d.location.index) {
            continue;
        }
        shown += 1;
        let points = plan(d, exp, &ws.sources)?;
        let job: Vec<JobPoint> = points
            .iter()
            .map(|p| JobPoint {
                variant: p.variant.clone(),
                params: p.params.clone(),
                key: p.key.clone(),
            })
            .collect();
        let group = JobGroup {
            experiment: exp.name.clone(),
            rules: rules_for(&ws, &d.measure, d.budget_s),
            points: job,
        };
        recorder.record_group(&ws, &group, Default::default())?;
        let mut recordings = Recordings::new(ws.data())?;
        recordings.preload(&exp.name)?;
        let device = crate::engine::local_device_slug()?;
        let recs = select_devices(
            recordings.of(&exp.name),
            &crate::directive::DeviceSelection::Slug(device),
            None,
            &points,
        );
        println!(
            "{} — {}#{}",
            exp.title,
            f.chapter_path.display(),
            d.location.index
        );
        for rec in recs {
            let results = device_results(rec, d, &points);
            let metrics = crate::metrics::metric_infos(exp);
            for t in &d.tables {
                println!("{}", text_table(t, &results, &metrics));
            }
            for c in &results.claims {
                println!("  {:?}: {} ({})", c.status, c.text, c.detail);
            }
        }
    }
    if shown == 0 {
        anyhow::bail!("`{chapter}` has no directive #{}", index.unwrap_or(0));
    }
    Ok(ExitCode::SUCCESS)
}
