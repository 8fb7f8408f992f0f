//! `mdbook-gpulab run <chapter.md>[#n]`: runs and prints a directive like a notebook cell.

use crate::directive::{DeviceSelection, Directive};
use crate::engine::job::JobPoint;
use crate::engine::recorder::{JobGroup, Recorder, rules_for};
use crate::plan::plan;
use crate::render::text::text_table;
use crate::results::view::DirectiveView;
use crate::results::{Recordings, directive_view};
use std::path::Path;
use std::process::ExitCode;

/// `chapter.md#2` → (`chapter.md`, Some(2)).
fn parse_target(target: &str) -> anyhow::Result<(&str, Option<usize>)> {
    Ok(match target.rsplit_once('#') {
        Some((c, n)) => (
            c,
            Some(
                n.parse::<usize>()
                    .map_err(|_| anyhow::anyhow!("`#{n}`: expected a directive number"))?,
            ),
        ),
        None => (target, None),
    })
}

pub(super) fn run(dir: &Path, target: &str, recorded_only: bool) -> anyhow::Result<ExitCode> {
    let (chapter, index) = parse_target(target)?;
    let (md, ws) = super::book::open(dir)?;
    let found = crate::preprocess::scan_book(&ws, &md.book);
    let selected = super::book::chapter_directives(&md, &ws, &found, chapter)?;
    let total = selected.len();
    if let Some(n) = index.filter(|&n| n == 0 || n > total) {
        anyhow::bail!("`{chapter}` has no directive #{n}: it has {total} (#1 to #{total})");
    }
    let gpu = !recorded_only && crate::engine::gpu_present();
    if gpu {
        crate::engine::install_interrupt_handler();
    } else if !recorded_only {
        eprintln!("no NVIDIA GPU here: showing the recorded results (nothing is run)");
    }
    let recorder = Recorder {
        verbose: true,
        ..Default::default()
    };
    let mut shown = 0;
    for (i, f) in selected.into_iter().enumerate() {
        // `#n` counts the chapter's directives from 1, valid or not.
        if index.is_some_and(|n| n != i + 1) {
            continue;
        }
        let (d, exp) = match &f.parsed {
            Ok(x) => x,
            Err(diags) => {
                crate::preprocess::report(diags);
                anyhow::bail!("the directive is invalid");
            }
        };
        shown += 1;
        let points = plan(d, exp, &ws.sources)?;
        let mut shown_directive: Directive = d.clone();
        if gpu {
            let job: Vec<JobPoint> = points
                .iter()
                .map(|p| JobPoint::new(&p.variant, &p.params, &p.key))
                .collect();
            let group = JobGroup {
                experiment: exp.name.clone(),
                rules: rules_for(&ws, &d.measure, d.budget_s),
                points: job,
            };
            recorder.record_groups(&ws, &[(group, Default::default())])?;
            shown_directive.devices = DeviceSelection::Slug(crate::engine::local_device_slug()?);
        }
        let mut recordings = Recordings::new(ws.data())?;
        for problem in recordings.unreadable_calibrations() {
            eprintln!("warning: {problem}");
        }
        recordings.preload(exp)?;
        let view = directive_view(
            &shown_directive,
            exp,
            &points,
            &recordings,
            ws.config.device.as_deref(),
            None,
        );
        println!(
            "{} — {}#{}",
            exp.title,
            f.chapter_path.display(),
            d.location.index
        );
        print!("{}", terminal_text(&view));
    }
    if shown == 0 {
        anyhow::bail!("`{chapter}` has no directive #{}", index.unwrap_or(0));
    }
    Ok(ExitCode::SUCCESS)
}

/// A directive's tables, provenance and claims per device, or the pending note, as text.
fn terminal_text(view: &DirectiveView<'_>) -> String {
    let mut out = String::new();
    if view.devices.is_empty() {
        out.push_str(&format!(
            "  awaiting a GPU run: no recording yet; on a machine with an NVIDIA GPU run `{}`\n",
            crate::render::run_command(view)
        ));
        for claim in &view.directive.expect {
            out.push_str(&format!("  not evaluated: {claim}\n"));
        }
        return out;
    }
    let tables = crate::render::table_specs(view);
    for device in &view.devices {
        out.push_str(&format!(
            "  [{}]\n",
            crate::render::provenance::provenance_text(&device.provenance)
        ));
        for t in &tables {
            let mut spec = t.clone();
            spec.rows = crate::render::table::row_field(view, &device.cells, t);
            out.push_str(&text_table(&spec, device, &view.metrics));
            out.push('\n');
        }
        claims_text(&mut out, &device.claims);
    }
    for other in &view.other_devices {
        out.push_str(&format!("  [claims on the {}]\n", other.device));
        claims_text(&mut out, &other.claims);
    }
    out
}

/// One line per claim: its verdict, text and detail.
fn claims_text(out: &mut String, claims: &[crate::results::view::ClaimView]) {
    for c in claims {
        let (_, _, words) = crate::render::claims::status_parts(c.status);
        out.push_str(&format!("  {words}: {} ({})\n", c.text, c.detail));
    }
}
