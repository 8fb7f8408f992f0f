//! A book on disk as the tool sees it: root, options, specs and papers loaded once, and the
//! scan of chapters for directives.

use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::directive::fence::{Fence, FenceKind, find_fences};
use crate::directive::validate::BodyContext;
use crate::directive::{Directive, Location, raw, validate};
use crate::papers::PaperTable;
use crate::plan::SourceCache;
use crate::record::DataDir;
use crate::source::{SourceFile, toml_error_mapped};
use crate::spec::{self, Experiment};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

type SpecResult = Result<Arc<Experiment>, Vec<Diagnostic>>;

/// The book being processed.
pub struct Workspace {
    pub root: PathBuf,
    /// The chapters' folder (`book/`), from `book.toml`'s `src`.
    pub src_dir: PathBuf,
    pub config: Config,
    pub sources: SourceCache,
    specs: Mutex<HashMap<String, SpecResult>>,
    papers: Mutex<HashMap<String, Option<Arc<PaperTable>>>>,
}

/// A directive found in a chapter, parsed or not.
pub struct FoundDirective {
    pub chapter_name: String,
    /// Chapter path relative to the chapters' folder.
    pub chapter_path: PathBuf,
    pub fence: Fence,
    pub parsed: Result<(Directive, Arc<Experiment>), Vec<Diagnostic>>,
}

impl Workspace {
    pub fn new(root: impl Into<PathBuf>, src: impl AsRef<Path>, config: Config) -> Self {
        let root = root.into();
        Workspace {
            src_dir: root.join(src),
            root,
            config,
            sources: SourceCache::default(),
            specs: Mutex::new(HashMap::new()),
            papers: Mutex::new(HashMap::new()),
        }
    }

    pub fn data(&self) -> DataDir {
        DataDir::new(self.config.data_dir(&self.root))
    }

    /// Why book.toml's `device` names no device `data/` has recordings of (a typo would show
    /// another GPU's numbers without a word), with its line of book.toml.
    pub fn device_problem(&self) -> Option<String> {
        let known = self.data().devices().unwrap_or_default();
        let problem = self.config.device_problem(&known)?;
        let text = std::fs::read_to_string(self.root.join("book.toml")).unwrap_or_default();
        Some(crate::config::located(&text, &problem))
    }

    /// The experiment spec `name`, loaded and validated once.
    pub fn spec(&self, name: &str) -> SpecResult {
        let mut specs = self.specs.lock().unwrap_or_else(|e| e.into_inner());
        specs
            .entry(name.to_string())
            .or_insert_with(|| {
                spec::load(&self.root, &self.config.kernels_dir(&self.root), name).map(Arc::new)
            })
            .clone()
    }

    /// Names of every experiment folder under `kernels/` (those with an `experiment.toml`).
    pub fn experiment_names(&self) -> Vec<String> {
        let dir = self.config.kernels_dir(&self.root);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().join("experiment.toml").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// A paper table by id (`widuch2010/table3`); `None` if absent or unreadable (the directive
    /// validation reports a missing file).
    pub fn paper(&self, id: &str) -> Result<Option<Arc<PaperTable>>, String> {
        let mut papers = self.papers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = papers.get(id) {
            return Ok(p.clone());
        }
        let table = match PaperTable::load(&self.config.data_dir(&self.root), id) {
            Ok(t) => Some(Arc::new(t)),
            Err(e) => return Err(e.to_string()),
        };
        papers.insert(id.to_string(), table.clone());
        Ok(table)
    }

    /// What is wrong with paper table `id` (missing, outside the book, unparsable, a row naming
    /// a variant `exp` does not have), if anything.
    fn paper_problem(&self, id: &str, exp: &Experiment) -> Option<String> {
        let variants: Vec<&str> = exp.variants.iter().map(|v| v.name.as_str()).collect();
        match self.paper(id) {
            Ok(table) => table?.unknown_variant(&exp.name, &variants),
            Err(e) => Some(e),
        }
    }

    /// Finds and parses every directive of a chapter, then its inline values (`{{#gpulab …}}`).
    /// `path` is relative to the chapters' folder.
    pub fn scan_chapter(&self, name: &str, path: &Path, content: &str) -> Vec<FoundDirective> {
        let shown = self
            .src_dir
            .strip_prefix(&self.root)
            .unwrap_or(&self.src_dir)
            .join(path);
        let content = &*crate::directive::fence::normalise_line_endings(content);
        let file = SourceFile::new(shown, content);
        let (mut experiments, mut inline) = (0, 0);
        // Lines are counted from the previous block on (fences, then inline values, each in
        // order): a chapter of many blocks costs its length.
        let (mut counted, mut line) = (0, 1);
        find_fences(content)
            .into_iter()
            .chain(crate::directive::inline::find_inline(content))
            .map(|fence| {
                let at = fence.block.start.min(content.len());
                if at < counted {
                    (counted, line) = (0, 1);
                }
                line += content.as_bytes()[counted..at]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                counted = at;
                let counter = match fence.kind {
                    FenceKind::Experiment => &mut experiments,
                    _ => &mut inline,
                };
                *counter += 1;
                let location = Location {
                    chapter: path.to_path_buf(),
                    index: *counter,
                    line,
                };
                let parsed = match fence.kind {
                    FenceKind::Status | FenceKind::Anchors | FenceKind::NcuCheck => Err(Vec::new()),
                    _ if fence.unclosed => {
                        let start = fence.block.start;
                        let what = match fence.kind {
                            FenceKind::Inline => "unclosed {{#gpulab: its paragraph ends before `}}`",
                            _ => "unclosed ```gpulab fence: the chapter ends before its closing fence",
                        };
                        Err(vec![file.error(start..start + 3, what, "opened here")])
                    }
                    FenceKind::Inline => self.parse_inline(&file, &fence, location),
                    FenceKind::Experiment => self.parse_directive(&file, &fence, location),
                }
                .map_err(crate::diagnostic::cap);
                FoundDirective {
                    chapter_name: name.to_string(),
                    chapter_path: path.to_path_buf(),
                    fence,
                    parsed,
                }
            })
            .collect()
    }

    fn parse_directive(
        &self,
        file: &SourceFile,
        fence: &Fence,
        location: Location,
    ) -> Result<(Directive, Arc<Experiment>), Vec<Diagnostic>> {
        let raw = raw::parse(&fence.body)
            .map_err(|e| vec![toml_error_mapped(file, &|s| fence.to_chapter(s), &e)])?;
        let exp = self.experiment(file, fence, &raw.experiment)?;
        let directive = self.validate(file, fence, location, raw, &exp)?;
        Ok((directive, exp))
    }

    /// An inline value, as the directive of the points it names.
    fn parse_inline(
        &self,
        file: &SourceFile,
        fence: &Fence,
        location: Location,
    ) -> Result<(Directive, Arc<Experiment>), Vec<Diagnostic>> {
        use crate::directive::inline;
        let problem = |(message, span, label): inline::Problem| {
            vec![file.error(fence.to_chapter(span), message, label)]
        };
        let parts = inline::parse(&fence.body).map_err(problem)?;
        let exp = self.experiment(file, fence, &parts.experiment)?;
        let (raw, value) = inline::build(parts, &exp).map_err(problem)?;
        let mut directive = self.validate(file, fence, location, raw, &exp)?;
        directive.inline = Some(value);
        Ok((directive, exp))
    }

    /// The spec a directive names, or why it cannot be loaded (with the closest experiment name).
    fn experiment(
        &self,
        file: &SourceFile,
        fence: &Fence,
        name: &toml::Spanned<String>,
    ) -> Result<Arc<Experiment>, Vec<Diagnostic>> {
        let name_span = fence.to_chapter(name.span());
        if let Err(e) = crate::confine::plain_name(name.get_ref()) {
            return Err(vec![file.error(
                name_span,
                format!("invalid experiment name: {e}"),
                "a folder name under kernels/",
            )]);
        }
        self.spec(name.get_ref()).map_err(|mut diags| {
            let known = self.experiment_names();
            let help =
                crate::diagnostic::did_you_mean(name.get_ref(), known.iter().map(String::as_str));
            let lead = file.error(
                name_span,
                format!("experiment `{}` could not be loaded", name.get_ref()),
                "named here",
            );
            diags.insert(0, crate::source::with_help(lead, help));
            diags
        })
    }

    /// Validates a directive against its spec, then every point it plans.
    fn validate(
        &self,
        file: &SourceFile,
        fence: &Fence,
        location: Location,
        raw: raw::RawDirective,
        exp: &Experiment,
    ) -> Result<Directive, Vec<Diagnostic>> {
        let axis_spans: Vec<(String, std::ops::Range<usize>)> = raw
            .axes
            .iter()
            .flat_map(|a| a.get_ref().iter())
            .map(|(name, v)| (name.clone(), fence.to_chapter(v.span())))
            .collect();
        let ctx = BodyContext {
            file,
            body_start: fence.body_start,
            pieces: &fence.pieces,
            location,
        };
        let directive = validate::validate(raw, exp, &ctx, &|id| self.paper_problem(id, exp))?;
        let diags = crate::point_diagnostics::check_points(
            &self.root,
            &directive,
            exp,
            file,
            &axis_spans,
            self.config.max_buffer_bytes(),
        );
        if !diags.is_empty() {
            return Err(diags);
        }
        Ok(directive)
    }
}
