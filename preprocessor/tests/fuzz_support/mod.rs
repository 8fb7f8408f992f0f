//! The fuzz harness shared by `tests/it/fuzz.rs` (a bounded run in `cargo test`) and
//! `examples/fuzz.rs` (long campaigns): targets over directives, specs, recordings, paper CSVs,
//! expressions and claims; a seeded mutator over the committed corpus in `fuzz/corpus/<target>/`.
//! A target must never panic, hang or allocate without bound, whatever its input.

#![allow(dead_code)] // the test and the example use different parts

use mdbook_gpulab::workspace::Workspace;
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// What a fuzz input is fed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// A chapter (markdown with ```gpulab fences): fences, TOML, validation, point checks, papers.
    Directive,
    /// An `experiment.toml`: parse, validate, every point check at its defaults.
    Spec,
    /// A recording's JSON: parse, derive metrics, serialise again.
    Recording,
    /// A paper table's CSV: parse, look up, cite.
    Paper,
    /// An expression: parse, evaluate (also compiled, which must agree), find truncations.
    Expr,
    /// An `expect` claim: parse.
    Claim,
}

pub(crate) const TARGETS: [Target; 6] = [
    Target::Directive,
    Target::Spec,
    Target::Recording,
    Target::Paper,
    Target::Expr,
    Target::Claim,
];

impl Target {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Target::Directive => "directive",
            Target::Spec => "spec",
            Target::Recording => "recording",
            Target::Paper => "paper",
            Target::Expr => "expr",
            Target::Claim => "claim",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<Target> {
        TARGETS.iter().copied().find(|t| t.name() == name)
    }
}

/// `preprocessor/fuzz/corpus`.
pub(crate) fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join("corpus")
}

/// The committed seeds of `target`, sorted by file name.
pub(crate) fn corpus(target: Target) -> Vec<Vec<u8>> {
    let dir = corpus_dir().join(target.name());
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.into_iter().map(|p| fs::read(p).unwrap()).collect()
}

/// A throwaway book with the handbook's kernels and papers plus the fixture book's, and one
/// folder (`kernels/fuzzspec`) holding every kernel source for the spec target.
pub(crate) struct Context {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    ws: Workspace,
    spec_dir: PathBuf,
    scale: mdbook_gpulab::spec::Experiment,
}

impl Context {
    pub(crate) fn new() -> Context {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/basic");
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("book");
        copy_dir(&repo.join("kernels"), &root.join("kernels"));
        copy_dir(&fixture.join("kernels"), &root.join("kernels"));
        copy_dir(&repo.join("data/papers"), &root.join("data/papers"));
        copy_dir(&fixture.join("data"), &root.join("data"));
        fs::create_dir_all(root.join("src")).unwrap();
        let spec_dir = root.join("kernels/fuzzspec");
        fs::create_dir_all(&spec_dir).unwrap();
        for exp in fs::read_dir(root.join("kernels")).unwrap() {
            let exp = exp.unwrap().path();
            for f in fs::read_dir(&exp).into_iter().flatten().flatten() {
                let name = f.file_name();
                if exp != spec_dir && name != "experiment.toml" && f.path().is_file() {
                    fs::copy(f.path(), spec_dir.join(name)).unwrap();
                }
            }
        }
        let config = mdbook_gpulab::config::Config::default();
        let ws = Workspace::new(&root, "src", config);
        let scale = ws
            .spec("scale")
            .unwrap_or_else(|d| panic!("{d:?}"))
            .as_ref()
            .clone();
        Context {
            _tmp: tmp,
            root,
            ws,
            spec_dir,
            scale,
        }
    }

    /// Feeds `input` to `target`. Errors are fine; a panic, hang or runaway allocation is not.
    pub(crate) fn run(&self, target: Target, input: &[u8]) {
        let text = String::from_utf8_lossy(input);
        match target {
            Target::Directive => self.directive(&text),
            Target::Spec => self.spec(&text),
            Target::Recording => self.recording(&text),
            Target::Paper => paper(&text),
            Target::Expr => expr(&text),
            Target::Claim => {
                let _ = mdbook_gpulab::claims::Claim::parse(&text);
            }
        }
    }

    fn directive(&self, text: &str) {
        let found = self.ws.scan_chapter("Fuzz", Path::new("fuzz.md"), text);
        for f in found {
            match f.parsed {
                Ok((d, exp)) => {
                    // Planning reads sources and hashes keys: bounded by the point limits.
                    let _ = mdbook_gpulab::plan::plan(&d, &exp, &self.ws.sources);
                }
                Err(diags) => {
                    for d in diags {
                        let _ = d.render(false);
                    }
                }
            }
        }
    }

    fn spec(&self, text: &str) {
        let file = mdbook_gpulab::source::SourceFile::new("kernels/fuzzspec/experiment.toml", text);
        let raw = match mdbook_gpulab::spec::raw::parse(text) {
            Ok(raw) => raw,
            Err(e) => {
                let _ = mdbook_gpulab::source::toml_error(&file, 0, &e).render(false);
                return;
            }
        };
        let kernels = self.spec_dir.parent().unwrap();
        let exp = match mdbook_gpulab::spec::validate::validate(
            raw,
            "fuzzspec",
            &self.spec_dir,
            &self.root,
            &file,
        ) {
            Ok(exp) => exp,
            Err(diags) => {
                for d in diags {
                    let _ = d.render(false);
                }
                return;
            }
        };
        let _ = kernels;
        let params = exp.params.iter().cloned().collect();
        for v in &exp.variants {
            let _ = mdbook_gpulab::point_check::check_point(&exp, v, &params, 1 << 30);
        }
    }

    fn recording(&self, text: &str) {
        let path = Path::new("data/fuzz/scale.json");
        if let Ok(mut rec) = mdbook_gpulab::record::store::parse_recording(path, text) {
            mdbook_gpulab::results::derive_metrics(&mut rec, &self.scale, None);
            let _ = serde_json::to_string(&rec);
        }
    }
}

impl Default for Context {
    fn default() -> Self {
        Context::new()
    }
}

fn paper(text: &str) {
    let id = "demo/table1";
    if let Ok(t) = mdbook_gpulab::papers::PaperTable::parse(id, Path::new("fuzz.csv"), text) {
        let _ = t.citation();
        let _ = t.gpu();
        for row in &t.rows {
            let _ = t.lookup(&row.variant, &row.axes);
            for m in row.metrics.keys() {
                let _ = t.unit_of(m);
            }
        }
    }
}

fn expr(text: &str) {
    use mdbook_gpulab::expr::{Expr, Num};
    if let Ok(e) = Expr::parse(text) {
        let mut vars: HashMap<String, Num> = HashMap::new();
        for (i, v) in e.variables().into_iter().enumerate() {
            let value = match i % 4 {
                0 => Num::Int(1024),
                1 => Num::Int(-1),
                2 => Num::Float(0.5),
                _ => Num::Int(i64::MAX),
            };
            vars.insert(v, value);
        }
        let got = e.eval(&vars);
        // The compiled form must agree, value or error (formula references use it).
        let names: Vec<String> = e.variables();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let compiled = e.compile(&names, &[]);
        let mut slots: Vec<Num> = names.iter().map(|n| vars[*n]).collect();
        slots.resize(compiled.slots(), Num::Int(0));
        assert_eq!(compiled.eval(&mut slots, &|_, _| None), got, "{text}");
        let _ = e.truncations(&vars);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// Largest input the mutator makes, bytes.
pub(crate) const MAX_INPUT: usize = 64 * 1024;

/// Tokens worth splicing in: boundaries, paths, syntax of each format.
const DICTIONARY: &[&str] = &[
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "4294967296",
    "2147483648",
    "0",
    "-1",
    "nan",
    "inf",
    "-inf",
    "1e308",
    "1e-308",
    "0.0",
    "\"",
    "'",
    "\\",
    "\r\n",
    "\n> ",
    "```",
    "```gpulab\n",
    "~~~",
    "[",
    "]",
    "{",
    "}",
    ",",
    "=",
    "../",
    "/etc/passwd",
    "..",
    "{ range = [0, 9223372036854775807, 1] }",
    "{ range = [1, 10000] }",
    "{ pow2 = [1, 9223372036854775807] }",
    "[[variant]]\n",
    "[[buffer]]\n",
    "[verify]\n",
    "len = \"N*N*N*N\"\n",
    "grid = [\"N*N\"]\n",
    "block = [\"1024\", \"1024\"]\n",
    "loop = { var = \"i\", count = \"N*N\" }\n",
    "passes = { count = \"N\", next = \"count\", input = \"x\", scratch = [\"x\", \"y\"], result = \"y\" }\n",
    "ceil_div(",
    "pow2(62)",
    "^",
    "/0",
    "%0",
    "&&",
    "||",
    "~=",
    " within 5%",
    " where N >= ",
    ".time_ms",
    "\"schema\": 1",
    "\"points\": [",
    "null",
    "true",
    "1e999",
    "# units: time_ms=ms\n",
    "\"a,b\"",
    "\u{0}",
    "\u{feff}",
    "é",
    "<script>alert(1)</script>",
    "\" onmouseover=\"x",
];

/// A small, fast, seeded generator (SplitMix64): the same seed gives the same inputs.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// One mutant of a seed: 1 to 8 edits (flip, insert, delete, duplicate, dictionary splice,
/// digit runs, crossover with another seed), at most [`MAX_INPUT`] bytes.
pub(crate) fn mutate(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut data = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(8) {
        let len = data.len();
        let at = rng.below(len + 1);
        match rng.below(9) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 => data.insert(at, rng.next() as u8),
            2 if len > 0 => {
                let n = 1 + rng.below(16.min(len - at.min(len - 1)));
                let end = (at + n).min(len);
                data.drain(at.min(len)..end);
            }
            3 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(64)).min(len);
                let chunk = data[start..end].to_vec();
                data.splice(at..at, chunk);
            }
            4..=5 => {
                let token = DICTIONARY[rng.below(DICTIONARY.len())].as_bytes();
                data.splice(at..at, token.iter().copied());
            }
            6 if len > 0 => {
                // overwrite a number-ish run with a boundary value
                let token = DICTIONARY[rng.below(12)].as_bytes();
                let end = (at + 1 + rng.below(8)).min(len);
                data.splice(at.min(len)..end, token.iter().copied());
            }
            7 => {
                let other = &seeds[rng.below(seeds.len())];
                if !other.is_empty() {
                    let start = rng.below(other.len());
                    let end = (start + 1 + rng.below(256)).min(other.len());
                    data.splice(at..at, other[start..end].iter().copied());
                }
            }
            _ => {
                // a line repeated (long lists, many fences, many sections)
                let line_start = data[..at]
                    .iter()
                    .rposition(|b| *b == b'\n')
                    .map_or(0, |i| i + 1);
                let line_end = data[at..]
                    .iter()
                    .position(|b| *b == b'\n')
                    .map_or(len, |i| at + i + 1);
                let line = data[line_start..line_end].to_vec();
                for _ in 0..rng.below(32) {
                    data.splice(line_end..line_end, line.iter().copied());
                }
            }
        }
        data.truncate(MAX_INPUT);
    }
    data
}
