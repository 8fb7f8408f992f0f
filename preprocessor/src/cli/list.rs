//! `mdbook-gpulab list`: the reproduction status of every `reproduces` id, for people or tools.

use crate::plan::plan;
use crate::preprocess::directive_state;
use crate::results::view::ClaimStatus;
use crate::results::{Recordings, directive_view};
use serde::Serialize;
use std::path::Path;
use std::process::ExitCode;

#[derive(Serialize)]
struct Row {
    id: String,
    chapter: String,
    directive: String,
    experiment: String,
    state: &'static str,
    device: Option<String>,
    claims: Vec<ClaimRow>,
}

#[derive(Serialize)]
struct ClaimRow {
    claim: String,
    result: &'static str,
    detail: String,
}

pub fn run(dir: &Path, json: bool) -> anyhow::Result<ExitCode> {
    let (ws, found) = super::book::load(dir)?;
    let mut recordings = Recordings::new(ws.data())?;
    let mut rows = Vec::new();
    let mut invalid = 0;
    for f in &found {
        let Ok((d, exp)) = &f.parsed else {
            invalid += usize::from(f.fence.kind == crate::directive::fence::FenceKind::Experiment);
            continue;
        };
        let points = plan(d, exp, &ws.sources)?;
        recordings.preload(exp)?;
        let view = directive_view(
            d,
            exp,
            &points,
            &recordings,
            ws.config.device.as_deref(),
            None,
        );
        let state = directive_state(&view).label();
        let claims: Vec<ClaimRow> = view
            .devices
            .first()
            .map(|dev| {
                dev.claims
                    .iter()
                    .map(|c| ClaimRow {
                        claim: c.text.clone(),
                        result: match c.status {
                            ClaimStatus::Holds => "holds",
                            ClaimStatus::Fails => "does not hold",
                            ClaimStatus::NotEvaluated => "not evaluated",
                        },
                        detail: c.detail.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let ids = if d.reproduces.is_empty() {
            vec![String::from("-")]
        } else {
            d.reproduces.clone()
        };
        for id in ids {
            rows.push(Row {
                id,
                chapter: f.chapter_path.display().to_string(),
                directive: format!("{}#{}", f.chapter_path.display(), d.location.index),
                experiment: exp.name.clone(),
                state,
                device: view.devices.first().map(|d| d.device.name.clone()),
                claims: claims
                    .iter()
                    .map(|c| ClaimRow {
                        claim: c.claim.clone(),
                        result: c.result,
                        detail: c.detail.clone(),
                    })
                    .collect(),
            });
        }
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        println!("{:<32} {:<10} {:<36} claims", "id", "state", "directive");
        for r in &rows {
            let holding = r.claims.iter().filter(|c| c.result == "holds").count();
            println!(
                "{:<32} {:<10} {:<36} {}/{}",
                r.id,
                r.state,
                r.directive,
                holding,
                r.claims.len()
            );
            for c in r.claims.iter().filter(|c| c.result != "holds") {
                println!("    {}: {} ({})", c.result, c.claim, c.detail);
            }
        }
        if invalid > 0 {
            println!("{invalid} invalid directive(s): run `mdbook-gpulab check`");
        }
    }
    Ok(ExitCode::SUCCESS)
}
