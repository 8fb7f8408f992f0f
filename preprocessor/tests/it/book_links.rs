//! The handbook as published: built offline from a copy of the repository's book, every link and
//! asset reference in every page resolves to a file inside the built book (chapters once linked
//! into `kernels/` and `data/papers/`, which 404 once the book is served), and every link to a
//! result's anchor or its code (`#gpulab-…`) names an element on the target page.

use crate::common;

use std::collections::HashMap;
use std::fs;
use std::path::{Component, Path, PathBuf};

fn html_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            html_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path);
        }
    }
}

/// Every `href="…"` and `src="…"` value of a page.
fn references(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["href=\"", "src=\""] {
        let mut rest = html;
        while let Some(at) = rest.find(attr) {
            let after = &rest[at + attr.len()..];
            let end = after.find('"').unwrap_or(after.len());
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// `a/b/../c` → `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn every_link_in_the_built_handbook_stays_inside_it() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("book");
    for dir in ["book", "kernels", "data", "theme"] {
        if repo.join(dir).is_dir() {
            common::copy_dir(&repo.join(dir), &root.join(dir));
        }
    }
    let book_toml = fs::read_to_string(repo.join("book.toml")).unwrap();
    fs::write(root.join("book.toml"), &book_toml).unwrap();
    // Stylesheets and scripts the book names from elsewhere in the repository.
    let config: toml::Table = toml::from_str(&book_toml).unwrap();
    let html = config
        .get("output")
        .and_then(|o| o.get("html"))
        .and_then(|h| h.as_table());
    for key in ["additional-css", "additional-js"] {
        for file in html
            .and_then(|h| h.get(key))
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str())
        {
            let dest = root.join(file);
            if !dest.exists() {
                fs::create_dir_all(dest.parent().unwrap()).unwrap();
                fs::copy(repo.join(file), dest).unwrap();
            }
        }
    }

    let os = std::ffi::OsStr::new;
    common::gpulab_ok([os("build"), os("--mode"), os("recorded"), root.as_os_str()]);
    let site = normalize(&root.join("build-out"));
    let mut pages = Vec::new();
    html_files(&site, &mut pages);
    assert!(pages.len() > 10, "only {} pages built", pages.len());
    let mut ids: HashMap<PathBuf, String> = HashMap::new();
    let mut problems = Vec::new();
    for page in &pages {
        let html = fs::read_to_string(page).unwrap();
        for r in references(&html) {
            let external = ["http://", "https://", "mailto:", "data:", "javascript:"]
                .iter()
                .any(|p| r.starts_with(p));
            if external || r.is_empty() {
                continue;
            }
            let (path, fragment) = r.split_once('#').unwrap_or((&r, ""));
            let path = path.split('?').next().unwrap_or_default();
            let target = if path.is_empty() {
                normalize(page)
            } else if let Some(abs) = path.strip_prefix('/') {
                // Root-relative (mdBook's `<base href="/">` on 404.html): the site root.
                normalize(&site.join(abs))
            } else {
                normalize(&page.parent().unwrap().join(path))
            };
            let shown = page.strip_prefix(&site).unwrap().display().to_string();
            if !target.starts_with(&site) {
                problems.push(format!("{shown}: `{r}` points outside the book"));
                continue;
            }
            if !target.exists() {
                problems.push(format!("{shown}: `{r}` does not exist in the book"));
                continue;
            }
            if fragment.starts_with("gpulab-") {
                let text = ids
                    .entry(target.clone())
                    .or_insert_with(|| fs::read_to_string(&target).unwrap_or_default());
                if !text.contains(&format!("id=\"{fragment}\"")) {
                    problems.push(format!("{shown}: `{r}`: no element with that id"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
