//! PTX text as NVRTC writes it, read for what `check` can verify without a GPU: each kernel
//! (`.entry`) with its parameters' kinds and sizes, its launch bounds, the static shared memory it
//! declares, the dynamic (`extern __shared__`) arrays it uses and its line in the source.
//!
//! PTX names a parameter by size and kind only (`.u64`, `.f32`, `.align 8 .b8 p[16]`): a pointer
//! and a 64-bit integer look the same, and so do signed and unsigned integers (NVRTC writes `int`
//! and `unsigned` both as `.u32`).

use std::collections::BTreeMap;

/// The NVRTC options always passed besides the architecture, to every kernel this PTX comes
/// from; part of every cache key (`key::point_key`), so that changing them re-keys every point.
pub const FIXED_COMPILE_OPTIONS: [&str; 2] = ["-lineinfo", "--std=c++17"];

/// One parameter of a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// `.u8 .s16 .b32 .u64 …`: an integer, a `bool` (8 bits), or (64 bits) a pointer.
    Int { bits: u32 },
    /// `.f32 .f64`.
    Float { bits: u32 },
    /// `.align A .b8 name[N]`: a struct (or `__half`) passed by value, `N` bytes.
    Bytes { len: u64 },
}

impl Param {
    /// How a diagnostic names it: `a 32-bit float`, `a pointer or 64-bit integer`.
    pub fn describe(self) -> String {
        match self {
            Param::Int { bits: 64 } => "a pointer or 64-bit integer".into(),
            Param::Int { bits } => format!("a {bits}-bit integer"),
            Param::Float { bits } => format!("a {bits}-bit float"),
            Param::Bytes { len: 2 } => "a 2-byte struct (`__half`, `__nv_bfloat16`)".into(),
            Param::Bytes { len } => format!("a {len}-byte struct passed by value"),
        }
    }
}

/// Where a kernel is defined: the `.file` NVRTC recorded and the line of its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLine {
    /// The path as NVRTC wrote it (the program's name or an included file, joined to NVRTC's
    /// working directory when relative).
    pub file: String,
    pub line: u32,
}

/// One kernel of a module.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The symbol: the source name for an `extern "C"` kernel, a mangled C++ name (`_Z…`) otherwise.
    pub name: String,
    pub params: Vec<Param>,
    /// `.maxntid x, y, z` (from `__launch_bounds__(n)`): the most threads a block may have.
    pub max_threads: Option<[u64; 3]>,
    /// `.reqntid x, y, z`: the exact block shape the kernel must be launched with.
    pub required_threads: Option<[u64; 3]>,
    /// Bytes of static `__shared__` memory the kernel declares (alignment padding included).
    pub static_shared: u64,
    /// The module's `extern __shared__` arrays the kernel's body uses (dynamic shared memory).
    pub dynamic_shared: Vec<String>,
    /// The kernel's line in its source, from the first `.loc` of its body (`-lineinfo`).
    pub defined_at: Option<SourceLine>,
}

impl Entry {
    #[cfg(test)]
    /// Threads a block may have at most, from `.maxntid` (or `.reqntid`).
    pub(crate) fn thread_limit(&self) -> Option<u64> {
        self.max_threads
            .or(self.required_threads)
            .map(|d| d.iter().product())
    }
}

/// What a PTX module says about its kernels.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Module {
    /// Every `.entry`, in the order written.
    pub entries: Vec<Entry>,
}

impl Module {
    /// The kernel whose symbol is `name`.
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The kernels whose C++ name (namespace left out) is `name` but whose symbol is mangled:
    /// `copy` → `_Z4copyPKfPfi`, declared without `extern "C"`.
    pub fn mangled(&self, name: &str) -> Vec<&Entry> {
        self.entries
            .iter()
            .filter(|e| {
                demangled_name(&e.name).is_some_and(|d| d.rsplit("::").next() == Some(name))
            })
            .collect()
    }
}

/// Reads every `.entry` of `ptx`. Tolerant: what it does not understand it skips.
pub fn parse(ptx: &str) -> Module {
    let toks = tokens(ptx);
    let mut files: BTreeMap<u32, String> = BTreeMap::new();
    let mut entries = Vec::new();
    // Module-scope `.shared` arrays (an older NVRTC writes a kernel's `__shared__` array there as
    // `_ZZ<kernel>E<name>`), and the `extern .shared` ones (dynamic shared memory).
    let mut module_shared: Vec<(String, u64, u64)> = Vec::new();
    let mut extern_shared: Vec<String> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match toks[i] {
            Tok::Word(".file") => {
                if let (Some(Tok::Word(n)), Some(Tok::Str(path))) =
                    (toks.get(i + 1), toks.get(i + 2))
                    && let Ok(n) = n.parse()
                {
                    files.insert(n, path.to_string());
                }
                i += 1;
            }
            Tok::Word(".shared") => {
                let is_extern = i > 0 && toks[i - 1] == Tok::Word(".extern");
                let (decl, next) = shared_decl(&toks, i + 1);
                if let Some(d) = decl {
                    if is_extern {
                        extern_shared.push(d.name);
                    } else {
                        module_shared.push((d.name, d.bytes, d.align));
                    }
                }
                i = next;
            }
            Tok::Word(".entry") => {
                let (entry, next) = entry(&toks, i + 1);
                entries.extend(entry);
                i = next;
            }
            _ => i += 1,
        }
    }
    for e in &mut entries {
        let prefix = local_prefix(&e.entry.name);
        let mut offset = e.shared_end;
        for (name, bytes, align) in &module_shared {
            if name.starts_with(&prefix) {
                offset = offset.next_multiple_of(*align) + bytes;
            }
        }
        e.entry.static_shared = offset;
        e.entry.dynamic_shared = extern_shared
            .iter()
            .filter(|s| e.words.contains(s.as_str()))
            .cloned()
            .collect();
        e.entry.defined_at = e.loc.and_then(|(file, line)| {
            files.get(&file).map(|f| SourceLine {
                file: f.clone(),
                line,
            })
        });
    }
    Module {
        entries: entries.into_iter().map(|e| e.entry).collect(),
    }
}

/// The C++ name of a mangled symbol, namespaces joined with `::`: `_Z4copyPKfPfi` → `copy`,
/// `_ZN3lab4copyEPf` → `lab::copy`, `_Z9templatedILi4EEvPf` → `templated`. `None` for a name
/// that is not mangled (an `extern "C"` kernel).
pub(crate) fn demangled_name(symbol: &str) -> Option<String> {
    let rest = symbol.strip_prefix("_Z")?;
    let (nested, mut rest) = match rest.strip_prefix('N') {
        Some(r) => (true, r),
        None => (false, rest.strip_prefix('L').unwrap_or(rest)),
    };
    let mut parts = Vec::new();
    loop {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let len: usize = rest[..digits].parse().ok()?;
        let ident = rest.get(digits..digits + len)?;
        parts.push(ident);
        rest = &rest[digits + len..];
        if !nested || !rest.starts_with(|c: char| c.is_ascii_digit()) {
            break;
        }
    }
    Some(parts.join("::"))
}

/// `_ZZ<len><name>E` (or `_ZZ<mangled without _Z>E`): how a kernel's local static is named.
fn local_prefix(kernel: &str) -> String {
    match kernel.strip_prefix("_Z") {
        Some(mangled) => format!("_ZZ{mangled}E"),
        None => format!("_ZZ{}{kernel}E", kernel.len()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'a> {
    /// A directive, name, number or instruction: a run of characters up to white space or punctuation.
    Word(&'a str),
    /// A quoted string's contents.
    Str(&'a str),
    Punct(char),
}

/// PTX's tokens, comments left out.
fn tokens(text: &str) -> Vec<Tok<'_>> {
    const PUNCT: &[char] = &['(', ')', '{', '}', ',', ';', '[', ']', '<', '>', '=', '"'];
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return out;
        }
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.find('\n').map_or("", |n| &r[n..]);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.find("*/").map_or("", |n| &r[n + 2..]);
        } else if let Some(r) = rest.strip_prefix('"') {
            let end = r.find('"').unwrap_or(r.len());
            out.push(Tok::Str(&r[..end]));
            rest = r.get(end + 1..).unwrap_or("");
        } else if let Some(c) = rest.chars().next().filter(|c| PUNCT.contains(c)) {
            out.push(Tok::Punct(c));
            rest = &rest[c.len_utf8()..];
        } else {
            let end = rest
                .find(|c: char| c.is_whitespace() || PUNCT.contains(&c))
                .unwrap_or(rest.len());
            let end = rest[..end].find("//").unwrap_or(end);
            out.push(Tok::Word(&rest[..end]));
            rest = &rest[end..];
        }
    }
}

/// An entry being read, with what is resolved once the whole module has been seen.
struct RawEntry<'a> {
    entry: Entry,
    /// Bytes of the `.shared` declarations inside the body, padded to each one's alignment.
    shared_end: u64,
    /// Every word of the body (to find which `extern .shared` arrays it uses).
    words: std::collections::BTreeSet<&'a str>,
    /// The first `.loc` of the body: (file index, line).
    loc: Option<(u32, u32)>,
}

/// Reads `.entry name ( params ) directives { body }` from `toks[i]` (the name); returns the
/// entry (none for a declaration without a body) and the index after it.
fn entry<'a>(toks: &[Tok<'a>], mut i: usize) -> (Option<RawEntry<'a>>, usize) {
    let Some(Tok::Word(name)) = toks.get(i) else {
        return (None, i);
    };
    i += 1;
    let mut params = Vec::new();
    if toks.get(i) == Some(&Tok::Punct('(')) {
        i += 1;
        let mut param: Vec<Tok> = Vec::new();
        while let Some(t) = toks.get(i) {
            i += 1;
            match t {
                Tok::Punct(')') | Tok::Punct(',') => {
                    params.extend(param_kind(&param));
                    param.clear();
                    if *t == Tok::Punct(')') {
                        break;
                    }
                }
                t => param.push(*t),
            }
        }
    }
    let mut e = Entry {
        name: name.to_string(),
        params,
        max_threads: None,
        required_threads: None,
        static_shared: 0,
        dynamic_shared: Vec::new(),
        defined_at: None,
    };
    // Performance directives up to the body.
    while let Some(t) = toks.get(i) {
        match t {
            Tok::Punct('{') => break,
            Tok::Punct(';') => return (None, i + 1),
            Tok::Word(".maxntid") => e.max_threads = Some(dims(toks, i + 1)),
            Tok::Word(".reqntid") => e.required_threads = Some(dims(toks, i + 1)),
            _ => {}
        }
        i += 1;
    }
    let mut raw = RawEntry {
        entry: e,
        shared_end: 0,
        words: Default::default(),
        loc: None,
    };
    let mut depth = 0usize;
    while let Some(t) = toks.get(i) {
        match *t {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return (Some(raw), i + 1);
                }
            }
            Tok::Word(".shared") => {
                let (decl, next) = shared_decl(toks, i + 1);
                if let Some(d) = decl {
                    raw.shared_end = raw.shared_end.next_multiple_of(d.align) + d.bytes;
                }
                i = next;
                continue;
            }
            Tok::Word(".loc") if raw.loc.is_none() => {
                if let (Some(Tok::Word(f)), Some(Tok::Word(l))) = (toks.get(i + 1), toks.get(i + 2))
                    && let (Ok(f), Ok(l)) = (f.parse(), l.parse())
                {
                    raw.loc = Some((f, l));
                }
            }
            // `[buf+16]` uses `buf` too.
            Tok::Word(w) => {
                raw.words.insert(w.split('+').next().unwrap_or(w));
            }
            _ => {}
        }
        i += 1;
    }
    (Some(raw), i)
}

/// `.maxntid 256, 1, 1` (missing dimensions are 1) from the first number at `toks[i]`.
fn dims(toks: &[Tok], mut i: usize) -> [u64; 3] {
    let mut out = [1u64; 3];
    for d in &mut out {
        match toks.get(i) {
            Some(Tok::Word(n)) => *d = n.parse().unwrap_or(1),
            _ => break,
        }
        if toks.get(i + 1) != Some(&Tok::Punct(',')) {
            break;
        }
        i += 2;
    }
    out
}

/// `.param .u64 name` → 64-bit integer; `.param .align 8 .b8 name[16]` → 16 bytes.
fn param_kind(toks: &[Tok]) -> Option<Param> {
    if let Some(open) = toks.iter().position(|t| *t == Tok::Punct('[')) {
        let len = match toks.get(open + 1) {
            Some(Tok::Word(n)) => n.parse::<u64>().ok()?,
            _ => return None,
        };
        let elem = toks[..open].iter().find_map(|t| match t {
            Tok::Word(w) => type_bytes(w),
            _ => None,
        });
        return Some(Param::Bytes {
            len: len * elem.unwrap_or(1),
        });
    }
    toks.iter().find_map(|t| match t {
        Tok::Word(w) => scalar_type(w),
        _ => None,
    })
}

/// `.f32` → Float 32, `.s8` / `.u64` / `.b16` → Int; anything else `None`.
fn scalar_type(word: &str) -> Option<Param> {
    let ty = word.strip_prefix('.')?;
    let (kind, bits) = ty.split_at_checked(1)?;
    let bits: u32 = bits.parse().ok()?;
    match kind {
        "f" => Some(Param::Float { bits }),
        "u" | "s" | "b" => Some(Param::Int { bits }),
        _ => None,
    }
}

/// Bytes of one element of a PTX type (`.b8` 1, `.f64` 8, `.pred` 1).
fn type_bytes(word: &str) -> Option<u64> {
    if word == ".pred" {
        return Some(1);
    }
    match scalar_type(word)? {
        Param::Int { bits } | Param::Float { bits } => Some(u64::from(bits).div_ceil(8)),
        Param::Bytes { .. } => None,
    }
}

/// A `.shared` variable's name, size and alignment.
struct SharedDecl {
    name: String,
    bytes: u64,
    align: u64,
}

/// Reads `[.align A] [.v2|.v4] .type name[N][M]… ;` from `toks[i]`; returns it and the index
/// after its `;`. An unsized array (`extern __shared__`) has 0 bytes.
fn shared_decl(toks: &[Tok], mut i: usize) -> (Option<SharedDecl>, usize) {
    let (mut elem, mut vec, mut align, mut name) = (None, 1u64, None, None);
    let mut len = 1u64;
    while let Some(t) = toks.get(i) {
        i += 1;
        match *t {
            Tok::Punct(';') => break,
            Tok::Word(".align") => {
                if let Some(Tok::Word(n)) = toks.get(i) {
                    align = n.parse().ok();
                    i += 1;
                }
            }
            Tok::Word(".v2") => vec = 2,
            Tok::Word(".v4") => vec = 4,
            Tok::Word(w) if w.starts_with('.') => elem = elem.or(type_bytes(w)),
            Tok::Word(w) if name.is_none() => name = Some(w.to_string()),
            Tok::Punct('[') => match toks.get(i) {
                Some(Tok::Word(n)) => {
                    len = len.saturating_mul(n.parse().unwrap_or(0));
                    i += 1;
                }
                _ => len = 0,
            },
            _ => {}
        }
    }
    let decl = match (name, elem) {
        (Some(name), Some(elem)) => Some(SharedDecl {
            name,
            bytes: elem * vec * len,
            align: align.unwrap_or(elem * vec).max(1),
        }),
        _ => None,
    };
    (decl, i)
}

#[cfg(test)]
#[path = "ptx_tests.rs"]
mod tests;
