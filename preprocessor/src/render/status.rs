//! The book's reproduction status table: one row per `reproduces` id.

use serde::Serialize;
use std::path::{Component, Path};

/// Where a reproduction stands.
///
/// The strict rule (`build --strict`, CI): [`StatusState::Failed`] and [`StatusState::Stale`] fail
/// the build, because the page would show a wrong or outdated result; [`StatusState::Pending`] and
/// [`StatusState::Partial`] do not, because the page says plainly that points await a GPU run
/// (a student without a GPU can land a new experiment).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

    /// Whether `--strict` refuses a book with a directive in this state (see the type's docs).
    pub fn fails_strict(self) -> bool {
        matches!(self, StatusState::Stale | StatusState::Failed)
    }
}

/// One row of the status table.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusRow {
    /// `widuch2010:table3`
    pub id: String,
    pub chapter_title: String,
    /// The chapter's path relative to the book's `src` (`part1/widuch.md`).
    pub chapter_path: String,
    pub state: StatusState,
    pub claims_holding: usize,
    pub claims_total: usize,
    /// The device slug or name the row reports on, if any.
    pub device: Option<String>,
}

/// A link from the chapter at `from` (relative to `src`; `None`: the book root) to `chapter`:
/// `.md` becomes `.html`, `README.md` becomes `index.html`, as mdBook does.
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
pub struct StatusContext {
    pub rows: Vec<StatusRowContext>,
    pub total: usize,
    pub recorded: usize,
    pub claims_holding: usize,
    pub claims_total: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatusRowContext {
    pub id: String,
    pub chapter_title: String,
    pub href: String,
    pub state: StatusState,
    pub state_label: &'static str,
    /// "3 of 4 hold", or "—" without claims.
    pub claims: String,
    pub claims_ok: bool,
    pub device: Option<String>,
}

impl StatusContext {
    pub fn new(input: &[StatusRow], from: Option<&Path>) -> StatusContext {
        let rows: Vec<StatusRowContext> = input
            .iter()
            .map(|r| StatusRowContext {
                id: r.id.clone(),
                chapter_title: r.chapter_title.clone(),
                href: chapter_href(&r.chapter_path, from),
                state: r.state,
                state_label: r.state.label(),
                claims: if r.claims_total == 0 {
                    "—".into()
                } else {
                    format!("{} of {} hold", r.claims_holding, r.claims_total)
                },
                claims_ok: r.claims_total > 0 && r.claims_holding == r.claims_total,
                device: r.device.clone(),
            })
            .collect();
        StatusContext {
            total: rows.len(),
            recorded: rows
                .iter()
                .filter(|r| r.state == StatusState::Recorded)
                .count(),
            claims_holding: input.iter().map(|r| r.claims_holding).sum(),
            claims_total: input.iter().map(|r| r.claims_total).sum(),
            rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hrefs() {
        assert_eq!(chapter_href("part1/widuch.md", None), "part1/widuch.html");
        assert_eq!(
            chapter_href("part1/widuch.md", Some(Path::new("status.md"))),
            "part1/widuch.html"
        );
        assert_eq!(
            chapter_href("part1/widuch.md", Some(Path::new("a/b/status.md"))),
            "../../part1/widuch.html"
        );
        assert_eq!(chapter_href("README.md", None), "index.html");
        assert_eq!(chapter_href("part2/README.md", None), "part2/index.html");
    }
}
