//! One directive's turn in a build: its view built and rendered, and what the build reports about it.

use super::{Block, Result, directive_state, directive_status};
use crate::directive::fence::FenceKind;
use crate::render::status::{DirectiveStatus, StatusState};
use crate::render::{Templates, render_directive_html};
use crate::results::{Recordings, directive_view};
use crate::workspace::{FoundDirective, Workspace};
use std::collections::HashMap;
use std::path::PathBuf;

/// One block's page HTML and what the build reports about it (kept by the render cache).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Rendered {
    pub(super) html: String,
    /// What of its data (recording, paper table, check) could not be read.
    pub(super) unreadable: Vec<String>,
    /// Why it is not fully recorded, and whether that fails a strict build.
    pub(super) problem: Option<(bool, String)>,
    /// Its row of the reproduction-status table (a directive that `reproduces` paper items).
    pub(super) status: Option<DirectiveStatus>,
}

impl Rendered {
    /// Just `html`, with nothing to report.
    pub(super) fn plain(html: String) -> Rendered {
        Rendered {
            html,
            unreadable: Vec::new(),
            problem: None,
            status: None,
        }
    }
}

/// For each found directive, the code files an earlier one of its chapter lists, with that listing's `id`.
pub(super) fn earlier_listings(found: &[FoundDirective]) -> Vec<HashMap<PathBuf, String>> {
    let mut listed: HashMap<&PathBuf, HashMap<PathBuf, String>> = HashMap::new();
    found
        .iter()
        .map(|f| {
            let on_page = listed.entry(&f.chapter_path).or_default();
            let before = on_page.clone();
            if let Ok((d, exp)) = &f.parsed
                && f.fence.kind == FenceKind::Experiment
            {
                let anchor = crate::render::directive_anchor(&d.experiment, d.location.index);
                for (i, path) in crate::results::code::code_paths(exp, d)
                    .into_iter()
                    .enumerate()
                {
                    on_page
                        .entry(path)
                        .or_insert_with(|| crate::render::code::file_id(&anchor, i));
                }
            }
            before
        })
        .collect()
}

/// Renders one found directive (`None` for a status or data block, filled in later).
pub(super) fn render_found(
    ws: &Workspace,
    b: &Block,
    recordings: &Recordings,
    templates: &Templates,
    default_device: Option<&str>,
) -> Result<Option<Rendered>> {
    if b.found.fence.kind == FenceKind::Inline {
        return Ok(Some(render_inline(b, recordings, default_device)));
    }
    let (f, points, preloaded, earlier) = (b.found, b.points.as_deref(), &b.preloaded, &b.earlier);
    let plain = Rendered::plain;
    let (d, exp, points) = match (&f.parsed, points) {
        (Ok((d, exp)), Some(points)) => (d, exp, points),
        (Err(diags), _) if f.fence.kind == FenceKind::Experiment => {
            let message = diags
                .iter()
                .map(|d| d.render(false))
                .collect::<Vec<_>>()
                .join("\n");
            return Ok(Some(plain(
                templates.render_error("Invalid gpulab directive", &message)?,
            )));
        }
        _ => return Ok(None),
    };
    let where_ = format!("{}#{}", f.chapter_path.display(), d.location.index);
    // A recording or paper table that cannot be read spoils this directive only.
    let loaded = preloaded
        .clone()
        .and_then(|()| match &d.paper {
            Some(id) => ws.paper(id),
            None => Ok(None),
        })
        .and_then(|paper| Ok((paper, paper_check_tables(ws, d)?)));
    let (paper, checks) = match loaded {
        Ok(loaded) => loaded,
        Err(e) => {
            let mut html =
                templates.render_error("Unreadable data for this gpulab directive", &e)?;
            // Its code box stays: later results on the page link to the files it lists.
            let anchor = crate::render::directive_anchor(&d.experiment, d.location.index);
            html.push_str("\n\n");
            html.push_str(&crate::render::code::code_html(
                &anchor,
                &crate::results::code::code_files(exp, d, earlier),
            ));
            return Ok(Some(Rendered {
                unreadable: vec![format!("{where_}: {e}")],
                ..plain(html)
            }));
        }
    };
    let mut view = directive_view(d, exp, points, recordings, default_device, paper.as_deref());
    view.code = crate::results::code::code_files(exp, d, earlier);
    view.self_check = crate::results::self_check_sets(
        view.paper,
        checks
            .iter()
            .map(|set| set.iter().map(|t| t.as_ref()).collect())
            .collect(),
    );
    let state = directive_state(&view);
    let name = &exp.name;
    let problem = match state {
        StatusState::Pending => Some(format!("experiment `{name}` awaits a GPU run")),
        StatusState::Partial => Some(format!("some points of `{name}` await a GPU run")),
        StatusState::Stale => Some(format!("the recording of `{name}` is stale")),
        StatusState::Failed => Some(format!(
            "some points of `{name}` failed (see the page for why)"
        )),
        StatusState::Recorded => None,
    };
    let status = (!d.reproduces.is_empty()).then(|| directive_status(f, &view, state));
    let html = if view.devices.is_empty() {
        templates.render_missing(&view)
    } else {
        render_directive_html(&view, templates)
    }?;
    Ok(Some(Rendered {
        problem: problem.map(|p| (state.fails_strict(), format!("{where_}: {p}"))),
        status,
        ..plain(html)
    }))
}

/// An inline value's `<span>`: its value, why it has none, or that it is invalid.
fn render_inline(b: &Block, recordings: &Recordings, default_device: Option<&str>) -> Rendered {
    let f = b.found;
    let text = format!("{{{{#gpulab{}}}}}", f.fence.body);
    let span = |why: &str, detail: &str| {
        format!(
            "<span class=\"gpulab-value gpulab-failed\" title=\"{}\">{why}</span>",
            crate::render::html::escape(detail).replace('\n', "&#10;")
        )
    };
    let rendered = Rendered::plain;
    let (d, exp, points) = match (&f.parsed, b.points.as_deref()) {
        (Ok((d, exp)), Some(points)) => (d, exp, points),
        (parsed, _) => {
            let diags = parsed.as_ref().err().into_iter().flatten();
            let message: Vec<String> = diags.map(|d| d.render(false)).collect();
            return rendered(span("invalid gpulab value", &message.join("\n")));
        }
    };
    let at = format!("{}:{}", f.chapter_path.display(), d.location.line);
    if let Err(e) = &b.preloaded {
        return Rendered {
            unreadable: vec![format!("{at}: {text}: {e}")],
            ..rendered(span("unreadable data", e))
        };
    }
    let view = directive_view(d, exp, points, recordings, default_device, None);
    let Some(inline) = &d.inline else {
        return rendered(String::new());
    };
    let value = crate::render::inline::inline_value(&view, inline, default_device);
    // A value this GPU cannot measure is no problem of the build.
    let problem = value.problem().filter(|p| *p != "not applicable").map(|p| {
        let why = match p {
            "pending" => "awaits a GPU run",
            "stale" => "shows a stale recording",
            "failed" => "names a point that failed",
            "skipped" => "names a point that was skipped",
            _ => "has no value",
        };
        (p == "stale", format!("{at}: {text} {why}"))
    });
    Rendered {
        problem,
        ..rendered(value.html())
    }
}

/// The tables of each `paper_check` entry of a directive, loaded.
fn paper_check_tables(
    ws: &Workspace,
    d: &crate::directive::Directive,
) -> std::result::Result<Vec<Vec<std::sync::Arc<crate::papers::PaperTable>>>, String> {
    d.paper_check
        .iter()
        .map(|set| {
            set.iter()
                .map(|id| {
                    ws.paper(id)?
                        .ok_or_else(|| format!("paper table `{id}` not found"))
                })
                .collect()
        })
        .collect()
}
