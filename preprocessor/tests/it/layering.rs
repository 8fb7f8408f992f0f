//! Dependencies run one way: every top-level module of every crate under `preprocessor/` has a layer (the table
//! under "## Layers" in DESIGN.md), no module imports one of a higher layer, and no modules form a
//! cycle (neither top-level modules nor sibling submodules). Reads the `crate::` / `super::` /
//! `self::` paths of the source, comments and string literals left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module path: `["engine", "supervisor"]` for `engine/supervisor.rs`.
type ModPath = Vec<String>;

/// The layer table of DESIGN.md: module name → (layer number, layer name).
fn layers_from_design(design: &str) -> BTreeMap<String, (u32, String)> {
    let section = design
        .split("\n## ")
        .find(|s| s.starts_with("Layers"))
        .expect("DESIGN.md has a `## Layers` section");
    let mut layers = BTreeMap::new();
    for line in section.lines() {
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').collect();
        if cells.len() < 2 {
            continue;
        }
        let mut head = cells[0].split_whitespace();
        let Some(Ok(n)) = head.next().map(str::parse::<u32>) else {
            continue;
        };
        let name = head.collect::<Vec<_>>().join(" ");
        for module in cells[1].split('`').skip(1).step_by(2) {
            let old = layers.insert(module.to_string(), (n, name.clone()));
            assert!(old.is_none(), "DESIGN.md puts `{module}` in two layers");
        }
    }
    assert!(!layers.is_empty(), "DESIGN.md's layer table has no rows");
    layers
}

/// Every `.rs` file below `src`, by module path (`lib.rs` and `main.rs` left out).
fn source_files(src: &Path) -> BTreeMap<ModPath, String> {
    fn walk(dir: &Path, src: &Path, out: &mut BTreeMap<ModPath, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, src, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src).unwrap().with_extension("");
                let mut parts: ModPath = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if parts.last().is_some_and(|p| p == "mod") {
                    parts.pop();
                }
                if parts == ["lib"] || parts == ["main"] {
                    continue;
                }
                // Test modules (`foo_tests.rs`) are left out: the layers are production code's.
                if parts.last().is_some_and(|l| l.ends_with("_tests")) {
                    continue;
                }
                out.insert(parts, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(src, src, &mut out);
    out
}

/// The source with comments and string/char literals blanked out.
fn code_only(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&b, i) {
            // Raw string r"…" / r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (next == Some('\\') || b.get(i + 2) == Some(&'\'')) {
            // A char literal ('x', '\n', '\u{..}'); a lifetime has no closing quote.
            i += 1;
            while i < b.len() && b[i] != '\'' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_before(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

/// Every path that starts with `crate::`, `super::` or `self::`, `{…}` groups expanded, made
/// absolute from the module `at`.
fn paths_in(code: &str, at: &[String]) -> Vec<ModPath> {
    let b: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if ident_before(&b, i) || !(b[i].is_alphabetic()) {
            i += 1;
            continue;
        }
        let (word, end) = ident(&b, i);
        if matches!(word.as_str(), "crate" | "super" | "self") && b.get(end) == Some(&':') {
            let base: ModPath = match word.as_str() {
                "crate" => vec![],
                "super" => at[..at.len().saturating_sub(1)].to_vec(),
                _ => at.to_vec(),
            };
            i = tree(&b, end, base, &mut out);
        } else {
            i = end.max(i + 1);
        }
    }
    out
}

fn ident(b: &[char], i: usize) -> (String, usize) {
    let mut j = i;
    while j < b.len() && (b[j].is_alphanumeric() || b[j] == '_') {
        j += 1;
    }
    (b[i..j].iter().collect(), j)
}

fn skip_ws(b: &[char], mut i: usize) -> usize {
    while i < b.len() && b[i].is_whitespace() {
        i += 1;
    }
    i
}

/// Reads `::a::b::{c, d::e}` from `i` onto `prefix`; pushes each full path; returns the end.
fn tree(b: &[char], mut i: usize, mut prefix: ModPath, out: &mut Vec<ModPath>) -> usize {
    loop {
        i = skip_ws(b, i);
        if !(b.get(i) == Some(&':') && b.get(i + 1) == Some(&':')) {
            out.push(prefix);
            return i;
        }
        i = skip_ws(b, i + 2);
        match b.get(i) {
            Some('{') => {
                i += 1;
                loop {
                    i = skip_ws(b, i);
                    match b.get(i) {
                        Some('}') => return i + 1,
                        Some(',') => i += 1,
                        Some(c) if c.is_alphabetic() || *c == '_' => {
                            let (word, end) = ident(b, i);
                            let mut p = prefix.clone();
                            if word == "super" {
                                p.pop();
                            } else if word != "self" {
                                p.push(word);
                            }
                            i = tree(b, end, p, out);
                            // `as name` and the like: skip to the next item.
                            while i < b.len() && !matches!(b[i], ',' | '}') {
                                i += 1;
                            }
                        }
                        Some(_) => i += 1,
                        None => return i,
                    }
                }
            }
            Some(c) if c.is_alphabetic() || *c == '_' => {
                let (word, end) = ident(b, i);
                if word == "super" {
                    prefix.pop();
                } else {
                    prefix.push(word);
                }
                i = end;
            }
            _ => {
                out.push(prefix);
                return i;
            }
        }
    }
}

/// The problems found: imports of a higher layer, modules without a layer, cycles.
fn check(
    files: &BTreeMap<ModPath, String>,
    layers: &BTreeMap<String, (u32, String)>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let tops: BTreeSet<&String> = files.keys().map(|m| &m[0]).collect();
    for top in &tops {
        if !layers.contains_key(*top) {
            problems.push(format!("module `{top}` has no layer in DESIGN.md's table"));
        }
    }
    for name in layers.keys() {
        if !tops.contains(name) {
            problems.push(format!(
                "DESIGN.md's layer table names `{name}`, which is not a module"
            ));
        }
    }
    // Edges between siblings: top-level modules, or submodules of one parent.
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, text) in files {
        for path in paths_in(&code_only(text), module) {
            let Some(target) = (1..=path.len())
                .rev()
                .map(|k| &path[..k])
                .find(|p| files.contains_key(*p))
            else {
                continue;
            };
            let common = module
                .iter()
                .zip(target)
                .take_while(|(a, b)| a == b)
                .count();
            if common == module.len() || common == target.len() {
                continue; // a parent and its own submodule
            }
            let from = module[..=common].join("::");
            let to = target[..=common].join("::");
            if common == 0
                && let (Some((lf, nf)), Some((lt, nt))) = (layers.get(&from), layers.get(&to))
                && lt > lf
            {
                problems.push(format!(
                    "`{}` (layer {lf} {nf}) imports `{}` (layer {lt} {nt}): a lower layer never \
                     imports a higher one",
                    module.join("::"),
                    path.join("::")
                ));
            }
            edges.entry(from).or_default().insert(to);
        }
    }
    problems.extend(cycles(&edges));
    problems
}

/// One message per cycle found by depth-first search.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit<'a>(
        node: &'a str,
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<&'a str, Mark>,
        stack: &mut Vec<&'a str>,
        found: &mut Vec<String>,
    ) {
        marks.insert(node, Mark::Open);
        stack.push(node);
        for next in edges.get(node).into_iter().flatten() {
            match marks.get(next.as_str()) {
                Some(Mark::Open) => {
                    let start = stack.iter().position(|n| n == next).unwrap();
                    let mut ring: Vec<&str> = stack[start..].to_vec();
                    ring.push(next);
                    found.push(format!("module cycle: {}", ring.join(" -> ")));
                }
                Some(Mark::Done) => {}
                None => visit(next, edges, marks, stack, found),
            }
        }
        stack.pop();
        marks.insert(node, Mark::Done);
    }
    let mut marks = BTreeMap::new();
    let mut found = Vec::new();
    for node in edges.keys() {
        if !marks.contains_key(node.as_str()) {
            visit(node, edges, &mut marks, &mut Vec::new(), &mut found);
        }
    }
    found
}

#[test]
fn lower_layers_never_import_higher_ones_and_no_module_cycles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let design = std::fs::read_to_string(root.join("../DESIGN.md")).unwrap();
    let layers = layers_from_design(&design);
    // Module names are unique across the workspace's crates (each crate re-exports the modules
    // of the crates below it at its root), so the layers are checked over all of them at once.
    let mut files = source_files(&root.join("src"));
    for krate in std::fs::read_dir(root.join("crates")).unwrap() {
        files.extend(source_files(&krate.unwrap().path().join("src")));
    }
    assert!(files.len() > 50, "found only {} source files", files.len());
    let problems = check(&files, &layers);
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

fn synthetic(files: &[(&str, &str)]) -> BTreeMap<ModPath, String> {
    files
        .iter()
        .map(|(m, src)| (m.split("::").map(String::from).collect(), src.to_string()))
        .collect()
}

const TWO_LAYERS: &str = "# x\n## Layers\n| layer | modules |\n|---|---|\n| 0 ground | `low` |\n| 1 top | `high`, `side` |\n## Next\n";

#[test]
fn the_check_catches_an_upward_import() {
    let files = synthetic(&[
        ("low", "use crate::high::Thing;"),
        ("high", "use crate::low::Other;"),
        ("side", "use crate::low::{self, x::y};"),
    ]);
    let problems = check(&files, &layers_from_design(TWO_LAYERS));
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("`low` (layer 0 ground) imports `high::Thing`")),
        "{problems:?}"
    );
}

#[test]
fn the_check_catches_a_cycle_between_siblings_even_in_grouped_imports() {
    let files = synthetic(&[
        ("high", "mod a; mod b;"),
        ("high::a", "use super::{b::B, c};"),
        ("high::b", "pub(crate) fn f() { crate::high::a::g() }"),
        ("low", ""),
        ("side", ""),
    ]);
    let problems = check(&files, &layers_from_design(TWO_LAYERS));
    assert_eq!(problems, ["module cycle: high::a -> high::b -> high::a"]);
}

#[test]
fn comments_and_strings_are_not_imports() {
    let files = synthetic(&[
        (
            "low",
            "/// See [`crate::high`].\n// crate::high::x\nconst S: &str = \"crate::high\";\nconst R: &str = r#\"crate::high\"#;\nfn f<'a>(c: char) -> bool { c == '\"' }",
        ),
        ("high", ""),
        ("side", ""),
    ]);
    assert!(check(&files, &layers_from_design(TWO_LAYERS)).is_empty());
}

#[test]
fn a_module_without_a_layer_is_reported() {
    let files = synthetic(&[("low", ""), ("high", ""), ("side", ""), ("stray", "")]);
    let problems = check(&files, &layers_from_design(TWO_LAYERS));
    assert_eq!(
        problems,
        ["module `stray` has no layer in DESIGN.md's table"]
    );
}
