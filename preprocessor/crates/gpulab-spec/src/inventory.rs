//! The inventory of every item of each paper (`data/papers/<key>/items.toml`): its tables, figures,
//! listings, lab tasks and stated conclusions, each with how the handbook treats it. The book's status
//! table is rendered from it, one row per item (DESIGN.md, "Papers' numbers and inventory").

use crate::diagnostic::line_col;
use crate::record::store::PAPERS_DIR;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The inventory file of one paper, inside `data/papers/<key>/`.
pub(crate) const ITEMS_FILE: &str = "items.toml";

/// What an item of a paper is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemKind {
    Table,
    Figure,
    Listing,
    LabTask,
    Conclusion,
    Text,
}

impl ItemKind {
    pub fn label(self) -> &'static str {
        match self {
            ItemKind::Table => "table",
            ItemKind::Figure => "figure",
            ItemKind::Listing => "listing",
            ItemKind::LabTask => "lab task",
            ItemKind::Conclusion => "conclusion",
            ItemKind::Text => "text",
        }
    }
}

/// How the handbook treats an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemState {
    /// Re-run by the directives whose `reproduces` names it (or names the item of `same_as`).
    ReRun,
    /// The paper's numbers are in `data/papers/`, but nothing re-runs the item (`why` says why).
    PaperNumbers,
    /// Described in a chapter's text only (`why` says why; `where` names the chapter).
    Prose,
    /// Neither re-run nor described (`why` says why).
    NotReproduced,
}

impl ItemState {
    pub fn label(self) -> &'static str {
        match self {
            ItemState::ReRun => "re-run",
            ItemState::PaperNumbers => "paper numbers only",
            ItemState::Prose => "prose only",
            ItemState::NotReproduced => "not reproduced",
        }
    }
}

/// One item of a paper.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Item {
    /// Unique in the paper; directives name it as `reproduces = "<key>:<id>"`.
    pub id: String,
    pub kind: ItemKind,
    /// As the paper names it, in English: "Table 3: time of version 1 (ms)".
    pub title: String,
    pub state: ItemState,
    /// Why the item is not re-run (required unless `state = "re-run"`), or a note on how it is.
    #[serde(default)]
    pub why: Option<String>,
    /// A re-run item whose directives are those of another item of the same paper (a listing run by
    /// the table it produced, a figure drawn from a table's numbers).
    #[serde(default)]
    pub same_as: Option<String>,
    /// Where the handbook discusses it: a chapter path relative to the book's `src`, optionally with
    /// `#heading-anchor` (required for prose items).
    #[serde(default, rename = "where")]
    pub where_: Option<String>,
    /// `data/papers/<key>/<table>` ids holding the paper's numbers for it.
    #[serde(default)]
    pub numbers: Vec<String>,
    /// Its 1-based line in `items.toml` (its `[[item]]` table), named in messages.
    #[serde(skip)]
    pub line: usize,
}

/// One paper's inventory.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperItems {
    /// The paper's key (the folder name).
    #[serde(skip)]
    pub key: String,
    /// The paper as cited: "Widuch (2010)".
    pub paper: String,
    #[serde(rename = "item")]
    pub items: Vec<Item>,
}

impl PaperItems {
    /// The id of the item whose directives `item` shows: its `same_as`, else itself.
    pub fn run_by<'a>(&'a self, item: &'a Item) -> &'a str {
        item.same_as.as_deref().unwrap_or(&item.id)
    }

    pub fn item(&self, id: &str) -> Option<&Item> {
        self.items.iter().find(|i| i.id == id)
    }
}

/// Every paper's inventory, in key order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Inventory {
    pub papers: Vec<PaperItems>,
}

/// Errors loading an inventory; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum InventoryError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Invalid {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

impl Inventory {
    /// Loads `<data_dir>/papers/*/items.toml` (papers without one are skipped) and checks each.
    pub fn load(data_dir: &Path) -> Result<Inventory, InventoryError> {
        let dir = data_dir.join(PAPERS_DIR);
        let mut keys: Vec<String> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries
                .filter_map(|e| e.ok())
                .filter(|e| e.path().join(ITEMS_FILE).is_file())
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(source) => return Err(InventoryError::Io { path: dir, source }),
        };
        keys.sort();
        let mut papers = Vec::new();
        for key in keys {
            let path = dir.join(&key).join(ITEMS_FILE);
            let text =
                crate::confine::read_regular_file(&path).map_err(|source| InventoryError::Io {
                    path: path.clone(),
                    source,
                })?;
            let paper = PaperItems::parse(&key, &text).map_err(|(line, message)| {
                InventoryError::Invalid {
                    path: path.clone(),
                    line,
                    message,
                }
            })?;
            papers.push(paper);
        }
        Ok(Inventory { papers })
    }

    /// The paper with this key.
    pub fn paper(&self, key: &str) -> Option<&PaperItems> {
        self.papers.iter().find(|p| p.key == key)
    }

    /// Checks the inventory against the `reproduces` ids of the book's directives: every id of a paper
    /// with an inventory names one of its items, every re-run item (or its `same_as`) is named by
    /// some directive, and no item that says it is not re-run is. One message per problem. Each id
    /// comes with where it is written (`part1/widuch2010.md#3`), named in the message.
    pub fn check_reproduces<'a>(
        &self,
        ids: impl IntoIterator<Item = (&'a str, String)>,
    ) -> Vec<String> {
        let mut at: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for (id, location) in ids {
            at.entry(id).or_default().push(location);
        }
        let named: BTreeSet<&str> = at.keys().copied().collect();
        let mut problems = Vec::new();
        for id in &named {
            let Some((key, item)) = id.split_once(':') else {
                continue;
            };
            if let Some(paper) = self.paper(key)
                && paper.item(item).is_none()
            {
                let hint = crate::diagnostic::did_you_mean(
                    item,
                    paper.items.iter().map(|i| i.id.as_str()),
                );
                problems.push(format!(
                    "`reproduces = \"{id}\"` ({}): data/papers/{key}/{ITEMS_FILE} has no item `{item}`{}",
                    at[id].join(", "),
                    hint.map(|h| format!("; {h}")).unwrap_or_default()
                ));
            }
        }
        for paper in &self.papers {
            for item in &paper.items {
                let full = format!("{}:{}", paper.key, paper.run_by(item));
                let is_named = named.contains(full.as_str());
                match item.state {
                    ItemState::ReRun if item.same_as.is_none() && !is_named => problems.push(format!(
                        "data/papers/{}/{ITEMS_FILE}:{}: item `{}` is marked re-run, but no directive names `reproduces = \"{full}\"`",
                        paper.key, item.line, item.id
                    )),
                    // The status table would show the `same_as` item's directives, not this one's.
                    ItemState::ReRun
                        if item.same_as.is_some()
                            && named.contains(format!("{}:{}", paper.key, item.id).as_str()) =>
                    {
                        let own = format!("{}:{}", paper.key, item.id);
                        problems.push(format!(
                            "data/papers/{}/{ITEMS_FILE}:{}: item `{}` says `same_as = \"{}\"`, but a directive re-runs it itself (`reproduces = \"{own}\"`, {}): remove `same_as`",
                            paper.key,
                            item.line,
                            item.id,
                            paper.run_by(item),
                            at[own.as_str()].join(", ")
                        ))
                    }
                    ItemState::PaperNumbers | ItemState::Prose | ItemState::NotReproduced
                        if named.contains(format!("{}:{}", paper.key, item.id).as_str()) =>
                    {
                        problems.push(format!(
                            "data/papers/{}/{ITEMS_FILE}:{}: item `{}` is marked {}, but a directive re-runs it (`reproduces = \"{}:{}\"`): mark it re-run",
                            paper.key,
                            item.line,
                            item.id,
                            item.state.label(),
                            paper.key,
                            item.id
                        ))
                    }
                    _ => {}
                }
            }
        }
        problems
    }
}

impl PaperItems {
    /// Parses and checks the `items.toml` of paper `key`; an error comes with its line.
    fn parse(key: &str, text: &str) -> Result<PaperItems, (usize, String)> {
        let mut paper: PaperItems = toml::from_str(text).map_err(|e| {
            let at = e.span().map_or(0, |s| s.start.min(text.len()));
            (line_col(text, at).0, e.message().trim().to_string())
        })?;
        paper.key = key.to_string();
        let tables = toml::de::DeTable::parse(text).ok();
        let items = tables
            .as_ref()
            .and_then(|t| t.get_ref().iter().find(|(k, _)| k.get_ref() == "item"))
            .and_then(|(_, v)| v.get_ref().as_array());
        for (item, table) in paper.items.iter_mut().zip(items.into_iter().flatten()) {
            item.line = line_col(text, table.span().start).0;
        }
        paper.check()?;
        Ok(paper)
    }

    /// Unique ids, `same_as` naming a re-run item of this paper, `why` where it is required, a
    /// chapter for prose items; an error comes with its item's line.
    fn check(&self) -> Result<(), (usize, String)> {
        let mut seen = BTreeSet::new();
        for item in &self.items {
            self.check_item(item, &mut seen)
                .map_err(|message| (item.line, message))?;
        }
        Ok(())
    }

    fn check_item<'a>(&self, item: &'a Item, seen: &mut BTreeSet<&'a str>) -> Result<(), String> {
        {
            if item.id.is_empty()
                || !item
                    .id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
            {
                return Err(format!(
                    "item id `{}`: use letters, digits, `_`, `-`, `.`",
                    item.id
                ));
            }
            if !seen.insert(item.id.as_str()) {
                return Err(format!("item `{}` is listed twice", item.id));
            }
            if item.state != ItemState::ReRun && item.why.as_deref().is_none_or(str::is_empty) {
                return Err(format!(
                    "item `{}` is {}: say why (`why = \"…\"`)",
                    item.id,
                    item.state.label()
                ));
            }
            // `where` becomes a link in the status table: a chapter of the book, nothing else
            // (`javascript:…` or `../../etc/passwd` must not reach the page).
            if let Some(w) = &item.where_ {
                let path = w.split('#').next().unwrap_or("");
                let chapter = path.ends_with(".md")
                    && !path.starts_with('/')
                    && !path.contains(':')
                    && !path.split('/').any(|c| c == "..");
                if !chapter {
                    return Err(format!(
                        "item `{}`: `where = \"{w}\"` must name a chapter of the book (`part1/x.md`, optionally `#anchor`)",
                        item.id
                    ));
                }
            }
            if item.state == ItemState::Prose && item.where_.is_none() {
                return Err(format!(
                    "item `{}` is prose only: name the chapter (`where = \"part1/x.md\"`)",
                    item.id
                ));
            }
            if let Some(target) = &item.same_as {
                if item.state != ItemState::ReRun {
                    return Err(format!(
                        "item `{}`: `same_as` is for re-run items only",
                        item.id
                    ));
                }
                match self.item(target) {
                    Some(t) if t.state == ItemState::ReRun && t.same_as.is_none() => {}
                    Some(_) => {
                        return Err(format!(
                            "item `{}`: `same_as = \"{target}\"` must name a re-run item without a `same_as` of its own",
                            item.id
                        ));
                    }
                    None => {
                        return Err(format!(
                            "item `{}`: `same_as = \"{target}\"` names no item of this paper",
                            item.id
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "inventory_tests.rs"]
mod tests;
