//! `mdbook-gpulab list`: the status table's rows, then those of directives that cannot be listed.

use crate::directive::fence::FenceKind;
use crate::inventory::Inventory;
use crate::plan::plan;
use crate::preprocess::{directive_state, directive_status};
use crate::render::status::{ItemRow, StatusTable, claims_summary, claims_text, summary};
use crate::results::{Recordings, directive_view};
use crate::workspace::FoundDirective;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

/// One item row of `list --json`.
#[derive(Serialize)]
struct JsonRow<'a> {
    /// `paper:item`, as directives name it.
    id: String,
    kind: &'a str,
    title: &'a str,
    /// re-run | paper numbers only | prose only | not reproduced | re-run (no inventory)
    state: &'a str,
    /// For re-run items: recorded | stale | failed | partial | pending.
    recording: Option<&'static str>,
    why: Option<&'a str>,
    /// `chapter.md#anchor` of each table or chart that re-runs it, or the chapter that discusses it.
    #[serde(rename = "where")]
    where_: Vec<String>,
    /// Claims holding / total on each device that has claims.
    claims: BTreeMap<&'a str, Claims>,
}

#[derive(Serialize)]
struct Claims {
    holding: usize,
    total: usize,
}

/// The row of a directive that cannot be listed: `state` says why, `errors` what is wrong.
#[derive(Serialize)]
pub(super) struct ErrorRow {
    id: &'static str,
    chapter: String,
    directive: String,
    experiment: String,
    /// `invalid` or `unreadable`.
    state: &'static str,
    errors: Vec<String>,
}

/// The row of an inline value (`{{#gpulab …}}`): where it is, and what it shows.
#[derive(Serialize)]
pub(super) struct InlineRow {
    /// `chapter.md:line`.
    inline: String,
    text: String,
    /// At full precision; `null` when it has none.
    value: Option<f64>,
    unit: &'static str,
    /// recorded | pending | failed | skipped | stale | no value
    state: &'static str,
}

fn error_row(
    f: &FoundDirective,
    index: usize,
    state: &'static str,
    errors: Vec<String>,
) -> ErrorRow {
    let experiment = match f.fence.kind {
        FenceKind::Inline => f.fence.body.split_whitespace().next().map(str::to_string),
        _ => crate::directive::raw::parse(&f.fence.body)
            .map(|raw| raw.experiment.into_inner())
            .ok(),
    }
    .unwrap_or_default();
    ErrorRow {
        id: "-",
        chapter: f.chapter_path.display().to_string(),
        directive: format!("{}#{index}", f.chapter_path.display()),
        experiment,
        state,
        errors,
    }
}

/// The status table, the inventory's problems, the rows in error and the inline values.
type Listing = (StatusTable, Vec<String>, Vec<ErrorRow>, Vec<InlineRow>);

/// The book at `dir`'s listing.
pub(super) fn status_table(dir: &Path) -> anyhow::Result<Listing> {
    let (ws, found) = super::book::load(dir)?;
    let mut recordings = Recordings::new(ws.data())?;
    let mut directives = Vec::new();
    let mut errors = Vec::new();
    let mut inline = Vec::new();
    // The directive's number in its chapter, counted as the preprocessor does.
    let mut index: (Option<&Path>, usize) = (None, 0);
    for f in &found {
        if f.fence.kind == FenceKind::Inline {
            match inline_row(f, &ws, &mut recordings) {
                Ok(row) => inline.push(row),
                Err((state, why)) => errors.push(error_row(f, 0, state, why)),
            }
            continue;
        }
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
                let messages = diags.iter().map(|d| d.render(false)).collect();
                errors.push(error_row(f, index.1, "invalid", messages));
                continue;
            }
        };
        if d.reproduces.is_empty() {
            continue;
        }
        let points = plan(d, exp, &ws.sources)?;
        if let Err(e) = recordings.preload(exp) {
            errors.push(error_row(f, index.1, "unreadable", vec![e.to_string()]));
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
        let state = directive_state(&view);
        directives.push(directive_status(f, &view, state));
    }
    let inventory = Inventory::load(&ws.config.data_dir(&ws.root))?;
    let mut problems = inventory.check_reproduces(directives.iter().flat_map(|d| d.located_ids()));
    problems.extend(recordings.unreadable_calibrations().cloned());
    Ok((
        StatusTable::build(&inventory, &directives),
        problems,
        errors,
        inline,
    ))
}

/// An inline value's row, or why it has none (`invalid`, `unreadable`) and what is wrong.
fn inline_row(
    f: &FoundDirective,
    ws: &crate::workspace::Workspace,
    recordings: &mut Recordings,
) -> Result<InlineRow, (&'static str, Vec<String>)> {
    let (d, exp) = f
        .parsed
        .as_ref()
        .map_err(|diags| ("invalid", diags.iter().map(|d| d.render(false)).collect()))?;
    let unreadable = |e: String| ("unreadable", vec![e]);
    let points = plan(d, exp, &ws.sources).map_err(|e| unreadable(e.to_string()))?;
    recordings
        .preload(exp)
        .map_err(|e| unreadable(e.to_string()))?;
    let device = ws.config.device.as_deref();
    let view = directive_view(d, exp, &points, recordings, device, None);
    let value = d
        .inline
        .as_ref()
        .map(|i| crate::render::inline::inline_value(&view, i, device))
        .ok_or_else(|| unreadable("not an inline value".into()))?;
    Ok(InlineRow {
        inline: format!("{}:{}", f.chapter_path.display(), d.location.line),
        text: format!("{{{{#gpulab{}}}}}", f.fence.body),
        value: value.value(),
        unit: value.unit.symbol(),
        state: value.problem().unwrap_or("recorded"),
    })
}

fn where_of(row: &ItemRow) -> Vec<String> {
    row.links
        .iter()
        .map(|l| match &l.anchor {
            Some(a) => format!("{}#{a}", l.chapter_path),
            None => l.chapter_path.clone(),
        })
        .collect()
}

pub(super) fn run(dir: &Path, json: bool) -> anyhow::Result<ExitCode> {
    let (table, problems, errors, inline) = status_table(dir)?;
    if json {
        let mut rows: Vec<serde_json::Value> = Vec::new();
        for r in &table.rows {
            rows.push(serde_json::to_value(JsonRow {
                id: r.full_id(),
                kind: r.kind,
                title: &r.title,
                state: r.state_label,
                recording: r.recording.map(|s| s.label()),
                why: r.why.as_deref(),
                where_: where_of(r),
                claims: table
                    .devices
                    .iter()
                    .zip(&r.claims)
                    .filter_map(|(dev, c)| {
                        c.map(|(holding, total)| (dev.as_str(), Claims { holding, total }))
                    })
                    .collect(),
            })?);
        }
        for e in &errors {
            rows.push(serde_json::to_value(e)?);
        }
        for i in &inline {
            rows.push(serde_json::to_value(i)?);
        }
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        let devices: Vec<String> = table
            .devices
            .iter()
            .map(|d| format!("claims on {d}"))
            .collect();
        let devices = devices.join("  ");
        println!("{:<40} {:<11} {:<30} {devices}", "item", "kind", "state");
        let mut last_paper = None;
        for r in &table.rows {
            if last_paper != Some(&r.paper) {
                println!("{}", r.paper_title);
                last_paper = Some(&r.paper);
            }
            let state = match r.recording {
                Some(rec) => format!("{} · {}", r.state_label, rec.label()),
                None => r.state_label.to_string(),
            };
            let claims: Vec<String> = r.claims.iter().map(|c| claims_text(*c)).collect();
            let (id, claims) = (r.full_id(), claims.join("  "));
            println!("{id:<40} {:<11} {state:<30} {claims}", r.kind);
            println!("    {}", r.title);
            if let Some(why) = &r.why {
                println!("    why: {why}");
            }
            for w in where_of(r) {
                println!("    at: {w}");
            }
        }
        println!("{}", summary(&table.rows));
        println!("{}", claims_summary(&table));
        if !inline.is_empty() {
            let current = inline.iter().filter(|i| i.state == "recorded").count();
            println!(
                "{} inline value(s) in the prose, {current} of them recorded and current",
                inline.len()
            );
        }
        for e in &errors {
            println!("{:<40} {:<11} {}", "-", e.state, e.directive);
            for m in &e.errors {
                println!("    {}", m.lines().next().unwrap_or_default());
            }
        }
    }
    for p in &problems {
        eprintln!("warning: {p}");
    }
    if !errors.is_empty() {
        eprintln!(
            "{} invalid directive(s) or unreadable recording(s): run `mdbook-gpulab check`",
            errors.len()
        );
    }
    Ok(ExitCode::from(u8::from(!errors.is_empty())))
}
