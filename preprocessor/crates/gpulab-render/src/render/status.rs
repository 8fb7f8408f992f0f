//! The book's reproduction status table: one row per item of each paper's inventory.

use crate::inventory::{Inventory, ItemState};
use serde::{Deserialize, Serialize};
use std::path::{Component, Path};

/// Where a reproduction stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StatusState {
    /// Every point recorded with the current kernel and spec, and verified.
    Recorded,
    /// Recorded, but some points with an older kernel or spec.
    Stale,
    /// Some recorded point failed (wrong result, launch error, crash, timeout).
    Failed,
    /// Some points recorded, some awaiting a GPU run.
    Partial,
    /// Nothing recorded yet: awaiting a GPU run.
    Pending,
}

impl StatusState {
    pub fn label(self) -> &'static str {
        match self {
            StatusState::Recorded => "recorded",
            StatusState::Stale => "stale",
            StatusState::Failed => "failed",
            StatusState::Partial => "partial",
            StatusState::Pending => "pending",
        }
    }

    /// Whether `--strict` refuses it: only a stale recording shows numbers of code no longer the book's.
    pub fn fails_strict(self) -> bool {
        matches!(self, StatusState::Stale)
    }

    /// The state of several directives together (`None` for none).
    pub fn combine(states: impl IntoIterator<Item = StatusState>) -> Option<StatusState> {
        use StatusState::*;
        let states: Vec<StatusState> = states.into_iter().collect();
        let any = |s: StatusState| states.contains(&s);
        Some(match () {
            _ if states.is_empty() => return None,
            _ if any(Failed) => Failed,
            _ if any(Stale) => Stale,
            _ if states.iter().all(|s| *s == Pending) => Pending,
            _ if any(Pending) || any(Partial) => Partial,
            _ => Recorded,
        })
    }
}

/// The claims of one directive on one device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceClaims {
    /// The device's name as the page shows it.
    pub device: String,
    pub holding: usize,
    /// Claims evaluated there (holding or not); one not evaluated is not counted.
    pub total: usize,
}

/// What the status table needs to know about one directive that names `reproduces`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectiveStatus {
    /// Its `reproduces` ids (`widuch2010:table3`).
    pub ids: Vec<String>,
    pub chapter_title: String,
    /// The chapter's path relative to the book's `src` (`part1/widuch.md`).
    pub chapter_path: String,
    /// The `id` of its rendered figure (`gpulab-matmul_widuch-3`).
    pub anchor: String,
    /// The line of its opening fence in the chapter.
    #[serde(default)]
    pub line: usize,
    /// Its caption, for the link's tooltip.
    pub title: String,
    pub state: StatusState,
    /// Its claims on every device with a recording of it.
    pub claims: Vec<DeviceClaims>,
}

impl DirectiveStatus {
    /// Its `reproduces` ids, each with where it is written (`part1/widuch2010.md:120`).
    pub fn located_ids(&self) -> impl Iterator<Item = (&str, String)> {
        let at = format!("{}:{}", self.chapter_path, self.line);
        self.ids.iter().map(move |id| (id.as_str(), at.clone()))
    }
}

/// A link from a status row to a chapter, or to one table or chart in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatusLink {
    pub chapter_path: String,
    /// `#anchor` without the `#`, if the link goes to one place in the chapter.
    pub anchor: Option<String>,
    /// The link's text.
    pub label: String,
    /// The tooltip (the directive's caption, or the chapter's title).
    pub title: String,
}

/// One row: one item of a paper (or a `reproduces` id of a paper without an inventory).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ItemRow {
    /// The paper's key and citation (`widuch2010`, `Widuch (2010)`).
    pub paper: String,
    pub paper_title: String,
    pub id: String,
    pub kind: &'static str,
    pub title: String,
    /// `None` for an id that no inventory lists.
    pub state: Option<ItemState>,
    /// "re-run", "paper numbers only", "prose only", "not reproduced", or "re-run (no inventory)".
    pub state_label: &'static str,
    /// Why it is not re-run, or a note on how it is.
    pub why: Option<String>,
    /// For re-run items: the recording state of its directives together.
    pub recording: Option<StatusState>,
    pub links: Vec<StatusLink>,
    /// (holding, total) on each of [`StatusTable::devices`]; `None` where it has no claim there.
    pub claims: Vec<Option<(usize, usize)>>,
    /// The item whose directives this one shares (its claims are counted there, not again here).
    pub same_as: Option<String>,
}

impl ItemRow {
    /// `paper:id`, as directives name it.
    pub fn full_id(&self) -> String {
        format!("{}:{}", self.paper, self.id)
    }
}

/// The whole table: the devices with claims (one column each) and one row per item.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct StatusTable {
    pub devices: Vec<String>,
    pub rows: Vec<ItemRow>,
}

impl StatusTable {
    /// One row per inventory item, then one per `reproduces` id of a paper without an inventory.
    pub fn build(inventory: &Inventory, directives: &[DirectiveStatus]) -> StatusTable {
        let mut devices: Vec<String> = Vec::new();
        for c in directives.iter().flat_map(|d| &d.claims) {
            if !devices.contains(&c.device) {
                devices.push(c.device.clone());
            }
        }
        let row_for = |paper: &str, run_by: &str| rerun_cells(directives, &devices, paper, run_by);
        let mut rows = Vec::new();
        for paper in &inventory.papers {
            for item in &paper.items {
                let (mut recording, mut links, mut claims) =
                    (None, Vec::new(), vec![None; devices.len()]);
                if item.state == ItemState::ReRun {
                    (recording, links, claims) = row_for(&paper.key, paper.run_by(item));
                } else if let Some(place) = &item.where_ {
                    let (chapter, anchor) = match place.split_once('#') {
                        Some((c, a)) => (c.to_string(), Some(a.to_string())),
                        None => (place.clone(), None),
                    };
                    links.push(StatusLink {
                        label: chapter_label(&chapter, directives),
                        title: place.clone(),
                        chapter_path: chapter,
                        anchor,
                    });
                }
                rows.push(ItemRow {
                    paper: paper.key.clone(),
                    paper_title: paper.paper.clone(),
                    id: item.id.clone(),
                    kind: item.kind.label(),
                    title: item.title.clone(),
                    state: Some(item.state),
                    state_label: item.state.label(),
                    why: item.why.clone(),
                    recording,
                    links,
                    claims,
                    same_as: item.same_as.clone(),
                });
            }
        }
        // Ids of papers without an inventory (a book that has none, or a new paper).
        for id in loose_ids(inventory, directives) {
            let (paper, item) = id.split_once(':').unwrap_or((id.as_str(), ""));
            let (recording, links, claims) = row_for(paper, item);
            rows.push(ItemRow {
                paper: paper.to_string(),
                paper_title: paper.to_string(),
                id: item.to_string(),
                kind: "—",
                title: id.clone(),
                state_label: "re-run (no inventory)",
                recording,
                links,
                claims,
                ..ItemRow::default()
            });
        }
        StatusTable { devices, rows }
    }
}

/// An item row's `recording`, `links` and `claims`.
type Cells = (
    Option<StatusState>,
    Vec<StatusLink>,
    Vec<Option<(usize, usize)>>,
);

/// An item's cells from the directives that re-run `paper:run_by`.
fn rerun_cells(
    directives: &[DirectiveStatus],
    devices: &[String],
    paper: &str,
    run_by: &str,
) -> Cells {
    let full = format!("{paper}:{run_by}");
    let mine: Vec<&DirectiveStatus> = directives
        .iter()
        .filter(|d| d.ids.contains(&full))
        .collect();
    let recording = StatusState::combine(mine.iter().map(|d| d.state));
    let links = mine
        .iter()
        .map(|d| StatusLink {
            chapter_path: d.chapter_path.clone(),
            anchor: Some(d.anchor.clone()),
            label: d.chapter_title.clone(),
            title: d.title.clone(),
        })
        .collect::<Vec<_>>();
    let claims = devices
        .iter()
        .map(|dev| {
            let (h, t) = mine
                .iter()
                .flat_map(|d| d.claims.iter().filter(|c| &c.device == dev))
                .fold((0, 0), |(h, t), c| (h + c.holding, t + c.total));
            (t > 0).then_some((h, t))
        })
        .collect::<Vec<_>>();
    (recording, dedup_links(links), claims)
}

/// The ids the directives reproduce whose paper has no inventory, each once, in book order.
fn loose_ids(inventory: &Inventory, directives: &[DirectiveStatus]) -> Vec<String> {
    let mut loose: Vec<String> = Vec::new();
    for id in directives.iter().flat_map(|d| &d.ids) {
        let key = id.split_once(':').map_or(id.as_str(), |(k, _)| k);
        if inventory.paper(key).is_none() && !loose.contains(id) {
            loose.push(id.clone());
        }
    }
    loose
}

/// A chapter's title from the directives in it, else its path.
fn chapter_label(chapter: &str, directives: &[DirectiveStatus]) -> String {
    directives
        .iter()
        .find(|d| d.chapter_path == chapter)
        .map(|d| d.chapter_title.clone())
        .unwrap_or_else(|| chapter.to_string())
}

/// Several directives of one chapter: one link per table or chart, numbered after the first.
fn dedup_links(links: Vec<StatusLink>) -> Vec<StatusLink> {
    let mut out: Vec<StatusLink> = Vec::new();
    for mut link in links {
        let same = out.iter().filter(|l| l.chapter_path == link.chapter_path);
        match same.count() {
            0 => {}
            n => link.label = format!("{}", n + 1),
        }
        out.push(link);
    }
    out
}

/// A link from the chapter at `from` (`None`: the book root) to `chapter`, as mdBook names pages.
pub fn chapter_href(chapter: &str, from: Option<&Path>) -> String {
    let target = chapter.replace('\\', "/");
    let target = match target.rsplit_once('/') {
        Some((dir, "README.md")) => format!("{dir}/index.html"),
        None if target == "README.md" => "index.html".to_string(),
        _ => match target.strip_suffix(".md") {
            Some(stem) => format!("{stem}.html"),
            None => target,
        },
    };
    let depth = from
        .and_then(Path::parent)
        .map(|dir| {
            dir.components()
                .filter(|c| matches!(c, Component::Normal(_)))
                .count()
        })
        .unwrap_or(0);
    format!("{}{target}", "../".repeat(depth))
}

/// The table's data for the `status.hbs` template.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StatusContext {
    pub devices: Vec<String>,
    pub papers: Vec<PaperContext>,
    /// "122 items: 57 re-run (50 recorded), 9 paper numbers only, 30 prose only, 26 not reproduced".
    pub summary: String,
    /// "claims holding: 40 of 45 on NVIDIA H100 80GB HBM3".
    pub claims_summary: String,
}

/// One paper: its citation, the summary of its items, and their rows.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PaperContext {
    pub title: String,
    pub summary: String,
    pub rows: Vec<StatusRowContext>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct StatusRowContext {
    /// `status-widuch2010-table3`: each row is a link target of its own.
    pub row_id: String,
    pub id: String,
    pub kind: &'static str,
    pub title: String,
    /// `re-run`, `paper-numbers`, `prose`, `not-reproduced` or `loose`: a CSS class.
    pub state_class: &'static str,
    pub state_label: &'static str,
    pub recording: Option<StatusState>,
    pub recording_label: Option<&'static str>,
    pub why: Option<String>,
    pub links: Vec<LinkContext>,
    pub claims: Vec<ClaimCell>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct LinkContext {
    pub href: String,
    pub label: String,
    pub title: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ClaimCell {
    /// "3 of 4 hold", or "—".
    pub text: String,
    pub ok: bool,
}

fn state_class(state: Option<ItemState>) -> &'static str {
    match state {
        Some(ItemState::ReRun) => "re-run",
        Some(ItemState::PaperNumbers) => "paper-numbers",
        Some(ItemState::Prose) => "prose",
        Some(ItemState::NotReproduced) => "not-reproduced",
        None => "loose",
    }
}

/// "3 of 4 hold", or "—" without claims.
pub fn claims_text(claims: Option<(usize, usize)>) -> String {
    match claims {
        Some((h, t)) => format!("{h} of {t} hold"),
        None => "—".into(),
    }
}

impl StatusContext {
    pub(crate) fn new(table: &StatusTable, from: Option<&Path>) -> StatusContext {
        let papers = table.rows.chunk_by(|a, b| a.paper == b.paper);
        StatusContext {
            devices: table.devices.clone(),
            summary: summary(&table.rows),
            claims_summary: claims_summary(table),
            papers: papers
                .map(|group| PaperContext {
                    title: group[0].paper_title.clone(),
                    summary: summary(group),
                    rows: group
                        .iter()
                        .map(|r| StatusRowContext::new(r, from))
                        .collect(),
                })
                .collect(),
        }
    }
}

impl StatusRowContext {
    fn new(r: &ItemRow, from: Option<&Path>) -> StatusRowContext {
        StatusRowContext {
            row_id: format!("status-{}-{}", r.paper, r.id),
            id: r.full_id(),
            kind: r.kind,
            title: r.title.clone(),
            state_class: state_class(r.state),
            state_label: r.state_label,
            recording: r.recording,
            recording_label: r.recording.map(StatusState::label),
            why: r.why.clone(),
            links: r
                .links
                .iter()
                .map(|l| LinkContext {
                    href: match &l.anchor {
                        Some(a) => format!("{}#{a}", chapter_href(&l.chapter_path, from)),
                        None => chapter_href(&l.chapter_path, from),
                    },
                    label: l.label.clone(),
                    title: l.title.clone(),
                })
                .collect(),
            claims: r
                .claims
                .iter()
                .map(|c| ClaimCell {
                    text: claims_text(*c),
                    ok: c.is_some_and(|(h, t)| h == t),
                })
                .collect(),
        }
    }
}

/// "N items: a re-run (b recorded with the current kernels), c paper numbers only, …".
pub fn summary(rows: &[ItemRow]) -> String {
    let count = |s: Option<ItemState>| rows.iter().filter(|r| r.state == s).count();
    let rerun = rows
        .iter()
        .filter(|r| matches!(r.state, Some(ItemState::ReRun) | None))
        .count();
    let recorded = rows
        .iter()
        .filter(|r| r.recording == Some(StatusState::Recorded))
        .count();
    let mut parts = vec![format!(
        "{rerun} re-run ({recorded} recorded with the current kernels)"
    )];
    for (state, label) in [
        (ItemState::PaperNumbers, "paper numbers only"),
        (ItemState::Prose, "prose only"),
        (ItemState::NotReproduced, "not reproduced"),
    ] {
        parts.push(format!("{} {label}", count(Some(state))));
    }
    format!("{} items: {}", rows.len(), parts.join(", "))
}

/// "claims holding on <device>: 40 of 45; …" (items sharing directives counted once).
pub fn claims_summary(table: &StatusTable) -> String {
    if table.devices.is_empty() {
        return "no claims evaluated yet".into();
    }
    table
        .devices
        .iter()
        .enumerate()
        .map(|(i, dev)| {
            let (h, t) = table
                .rows
                .iter()
                .filter(|r| r.same_as.is_none())
                .filter_map(|r| r.claims.get(i).copied().flatten())
                .fold((0, 0), |(h, t), (a, b)| (h + a, t + b));
            format!("claims holding on {dev}: {h} of {t}")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
#[path = "status_tests.rs"]
mod tests;
