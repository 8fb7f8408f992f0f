//! `mdbook-gpulab list`: the reproduction status of every `reproduces` id, for people or tools.

use crate::directive::fence::FenceKind;
use crate::plan::plan;
use crate::preprocess::directive_state;
use crate::results::view::ClaimStatus;
use crate::results::{Recordings, directive_view};
use crate::workspace::FoundDirective;
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
    /// Why the directive is invalid (state `invalid`), or its data unreadable (`unreadable`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    errors: Vec<String>,
}

/// The row of a directive that cannot be listed: `state` says why, `errors` what is wrong.
fn error_row(f: &FoundDirective, index: usize, state: &'static str, errors: Vec<String>) -> Row {
    let experiment = crate::directive::raw::parse(&f.fence.body)
        .map(|raw| raw.experiment.into_inner())
        .unwrap_or_default();
    Row {
        id: "-".into(),
        chapter: f.chapter_path.display().to_string(),
        directive: format!("{}#{index}", f.chapter_path.display()),
        experiment,
        state,
        device: None,
        claims: Vec::new(),
        errors,
    }
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
    // The directive's number in its chapter, counted as the preprocessor does.
    let mut index: (Option<&Path>, usize) = (None, 0);
    for f in &found {
        if f.fence.kind != FenceKind::Experiment {
            continue;
        }
        if index.0 != Some(f.chapter_path.as_path()) {
            index = (Some(f.chapter_path.as_path()), 0);
        }
        index.1 += 1;
        let (d, exp) = match &f.parsed {
            Ok(ok) => ok,
            Err(diags) => {
                invalid += 1;
                let errors = diags.iter().map(|d| d.render(false)).collect();
                rows.push(error_row(f, index.1, "invalid", errors));
                continue;
            }
        };
        let points = plan(d, exp, &ws.sources)?;
        if let Err(e) = recordings.preload(exp) {
            invalid += 1;
            rows.push(error_row(f, index.1, "unreadable", vec![e.to_string()]));
            continue;
        }
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
                errors: Vec::new(),
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
            for e in &r.errors {
                println!("    {}", e.lines().next().unwrap_or_default());
            }
        }
    }
    if invalid > 0 {
        eprintln!(
            "{invalid} invalid directive(s) or unreadable recording(s): run `mdbook-gpulab check`"
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
