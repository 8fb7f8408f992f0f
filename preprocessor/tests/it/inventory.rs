//! The handbook's status table against the papers' inventories (`data/papers/<key>/items.toml`): one
//! row per item, in the inventory's order, with the inventory's state, in the rendered book and in
//! `list --json`. The inventories are read here as plain TOML, independently of the code under test.

use mdbook_gpulab::config::{Config, Mode};
use mdbook_gpulab::workspace::Workspace;
use snapbox::cmd::{Command, cargo_bin};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// (`paper:item`, state) of every inventory item, papers in key order, items in file order.
fn inventory() -> Vec<(String, String)> {
    let dir = repo().join("data/papers");
    let mut keys: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("items.toml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "conrad2010",
            "kalgin-baldin",
            "lab3",
            "szczepanski2014",
            "widuch2010"
        ],
        "every source paper has an inventory"
    );
    let mut out = Vec::new();
    for key in keys {
        let text = std::fs::read_to_string(dir.join(&key).join("items.toml")).unwrap();
        let value: toml::Value = toml::from_str(&text).unwrap();
        for item in value["item"].as_array().unwrap() {
            out.push((
                format!("{key}:{}", item["id"].as_str().unwrap()),
                item["state"].as_str().unwrap().to_string(),
            ));
        }
    }
    out
}

/// The introduction's rendered status table: (`paper:item`, state class) of each item row.
fn rendered_rows() -> Vec<(String, String)> {
    let root = repo();
    let md = mdbook_driver::MDBook::load(&root).unwrap();
    let mut config = Config::from_mdbook(&md.config, &md.root).unwrap();
    config.mode = Mode::Recorded;
    config.strict = false;
    let ws = Workspace::new(&root, &md.config.book.src, config);
    let mut book = md.book.clone();
    mdbook_gpulab::preprocess::process_book(&ws, &mut book, None, false).unwrap();
    let mut html = String::new();
    for item in book.iter() {
        if let mdbook_preprocessor::book::BookItem::Chapter(ch) = item
            && ch.content.contains("gpulab-status-table")
        {
            html = ch.content.clone();
        }
    }
    assert!(!html.is_empty(), "a chapter renders the status table");
    let mut rows = Vec::new();
    for part in html.split("<tr class=\"gpulab-item gpulab-item-").skip(1) {
        let (state, rest) = part.split_once('"').unwrap();
        let id = rest
            .split("<code>")
            .nth(1)
            .and_then(|r| r.split_once("</code>"))
            .map(|(id, _)| id.to_string())
            .unwrap();
        rows.push((id, state.to_string()));
    }
    rows
}

#[test]
fn the_status_table_has_one_row_per_inventory_item_in_order() {
    let expected = inventory();
    assert!(expected.len() > 100, "{} items", expected.len());
    let rendered = rendered_rows();
    assert_eq!(rendered.len(), expected.len());
    for (i, (want, got)) in expected.iter().zip(&rendered).enumerate() {
        assert_eq!(want, got, "row {i}");
    }
}

#[test]
fn list_json_prints_the_same_rows() {
    let out = Command::new(cargo_bin!("mdbook-gpulab"))
        .args(["list", "--json"])
        .arg(repo())
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let rows: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    // After the items, each inline value of the prose, with its value.
    let (inline, rows): (Vec<_>, Vec<_>) = rows
        .as_array()
        .unwrap()
        .iter()
        .partition(|r| r.get("inline").is_some());
    assert!(inline.len() > 400, "{} inline values", inline.len());
    for v in &inline {
        assert_eq!(v["state"], "recorded", "{v}");
        assert!(v["value"].as_f64().is_some_and(f64::is_finite), "{v}");
    }
    let label = |state: &str| match state {
        "re-run" => "re-run",
        "paper-numbers" => "paper numbers only",
        "prose" => "prose only",
        "not-reproduced" => "not reproduced",
        other => panic!("unknown state {other}"),
    };
    let expected = inventory();
    assert_eq!(rows.len(), expected.len());
    for (row, (id, state)) in rows.iter().zip(&expected) {
        assert_eq!(row["id"].as_str().unwrap(), id);
        assert_eq!(row["state"].as_str().unwrap(), label(state), "{id}");
        // A re-run item links to the tables that re-run it; any other says why.
        if state == "re-run" {
            assert!(!row["where"].as_array().unwrap().is_empty(), "{id}");
            assert!(row["recording"].is_string(), "{id}");
        } else {
            assert!(row["why"].is_string(), "{id}");
        }
    }
    // And `list` checks the inventory against the directives: nothing to warn about.
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(!stderr.contains("warning"), "{stderr}");
}

/// A `where` chapter of a prose item exists, and its `#anchor` is a heading of that chapter.
#[test]
fn prose_items_link_to_existing_chapters_and_headings() {
    let dir = repo().join("data/papers");
    for entry in std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()) {
        let path = entry.path().join("items.toml");
        if !path.is_file() {
            continue;
        }
        let value: toml::Value = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for item in value["item"].as_array().unwrap() {
            let Some(place) = item.get("where").and_then(|w| w.as_str()) else {
                continue;
            };
            let (chapter, anchor) = place.split_once('#').unwrap_or((place, ""));
            let text = std::fs::read_to_string(repo().join("book").join(chapter))
                .unwrap_or_else(|e| panic!("{}: {place}: {e}", path.display()));
            if !anchor.is_empty() {
                let ids: Vec<String> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix('#'))
                    .map(|h| heading_id(h.trim_start_matches('#').trim()))
                    .collect();
                assert!(
                    ids.iter().any(|i| i == anchor),
                    "{}: {place}: headings {ids:?}",
                    path.display()
                );
            }
        }
    }
}

/// mdBook's id of a heading: alphanumerics lowercased, white space to `-`, other characters dropped.
fn heading_id(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}
