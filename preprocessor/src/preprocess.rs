//! The mdBook preprocessor: replaces each `gpulab` block of the book with its rendered HTML.

use crate::config::{Config, Mode};
use crate::diagnostic::Diagnostic;
use crate::directive::fence::{ANCHORS_INFO, FenceKind, NCU_CHECK_INFO, normalise_line_endings};
use crate::directive::validate::point_count;
use crate::engine::{LiveRunner, Work};
use crate::error::Error;
use crate::limits::MAX_POINTS_PER_BOOK;
use crate::plan::{PlannedPoint, plan};
use crate::render::Templates;
use crate::render::status::{DeviceClaims, DirectiveStatus, StatusState, StatusTable};
use crate::results::Recordings;
use crate::results::view::{ClaimStatus, ClaimView, DeviceResults, DirectiveView};
use crate::workspace::{FoundDirective, Workspace};
use mdbook_preprocessor::book::{Book, BookItem};
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;

pub mod error;
mod prose_literals;
mod render_cache;
mod render_one;
pub use error::BuildError;
use render_cache::{RenderCache, Slot};
use render_one::{Rendered, earlier_listings, render_found};

/// The outcome of a build step.
pub type Result<T, E = BuildError> = std::result::Result<T, E>;

/// Command-line overrides of the book's `[preprocessor.gpulab]` options.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub strict: Option<bool>,
    pub mode: Option<Mode>,
}

/// The preprocessor, as registered with mdBook (`[preprocessor.gpulab]`).
#[derive(Default)]
pub struct GpuLab {
    pub overrides: Overrides,
    pub live: Option<Box<dyn LiveRunner>>,
}

impl GpuLab {
    pub fn new() -> Self {
        GpuLab::default()
    }
}

impl Preprocessor for GpuLab {
    fn name(&self) -> &str {
        "gpulab"
    }

    fn run(&self, ctx: &PreprocessorContext, mut book: Book) -> anyhow::Result<Book> {
        let mut config = Config::from_mdbook(&ctx.config, &ctx.root)?;
        if let Some(s) = self.overrides.strict {
            config.strict = s;
        }
        if let Some(m) = self.overrides.mode {
            config.mode = m;
        }
        let ws = Workspace::new(&ctx.root, &ctx.config.book.src, config);
        if let Some(problem) = ws.device_problem() {
            anyhow::bail!("{problem}");
        }
        let owned;
        let runs = ws
            .config
            .mode
            .runs_kernels(|| self.live.is_some() || crate::engine::gpu_present());
        let live = match &self.live {
            _ if !runs => None,
            Some(l) => Some(l.as_ref()),
            None => {
                owned = crate::engine::live_runner();
                Some(owned.as_ref())
            }
        };
        let summary = process_book(&ws, &mut book, live, false)?;
        report(&summary.literals);
        eprintln!("{summary}");
        Ok(book)
    }

    fn supports_renderer(&self, renderer: &str) -> anyhow::Result<bool> {
        Ok(renderer == "html")
    }
}

/// Every chapter's directives, in book order; one past [`MAX_POINTS_PER_BOOK`] points is invalid.
pub fn scan_book(ws: &Workspace, book: &Book) -> Vec<FoundDirective> {
    use rayon::prelude::*;
    let chapters: Vec<(&str, &std::path::Path, &str)> = book
        .iter()
        .filter_map(|item| match item {
            BookItem::Chapter(ch) => {
                let path = ch.source_path.as_ref().or(ch.path.as_ref())?;
                Some((ch.name.as_str(), path.as_path(), ch.content.as_str()))
            }
            _ => None,
        })
        .collect();
    // Chapters are parsed in parallel; the book's point budget is then counted in book order.
    let scanned: Vec<Vec<FoundDirective>> = chapters
        .par_iter()
        .map(|(name, path, content)| ws.scan_chapter(name, path, content))
        .collect();
    let mut found = Vec::new();
    let mut total: u64 = 0;
    for ((_, path, content), mut chapter) in chapters.iter().zip(scanned) {
        for f in &mut chapter {
            let Ok((d, _)) = &f.parsed else { continue };
            let n = point_count(&d.axes, &d.zip, d.variants.len()).unwrap_or(u64::MAX);
            total = total.saturating_add(n);
            if total > MAX_POINTS_PER_BOOK {
                let shown = ws
                    .src_dir
                    .strip_prefix(&ws.root)
                    .unwrap_or(&ws.src_dir)
                    .join(path);
                let file = crate::source::SourceFile::new(shown, *content);
                let start = f.fence.block.start;
                f.parsed = Err(vec![file.error(
                    start..start + 3,
                    format!(
                        "this directive's {n} points take the book to {total}; a book may ask for at most {MAX_POINTS_PER_BOOK}"
                    ),
                    "too many points",
                )]);
            }
        }
        found.extend(chapter);
    }
    found
}

/// Prints diagnostics to stderr (never stdout: that carries the book).
pub fn report(diags: &[Diagnostic]) {
    let color = std::io::IsTerminal::is_terminal(&std::io::stderr());
    for d in diags {
        eprintln!("{}", d.render(color));
    }
}

/// One block of the book through a build: where it was found, and what each stage made of it.
struct Block<'f> {
    found: &'f FoundDirective,
    /// The code files earlier results on its page list (see [`earlier_listings`]).
    earlier: HashMap<PathBuf, String>,
    slot: Option<Slot>,
    /// The cache's rendering, else this build's.
    rendered: Option<Rendered>,
    /// `None`: it did not parse, or the cache holds its rendering.
    points: Option<Vec<PlannedPoint>>,
    preloaded: std::result::Result<(), String>,
}

impl<'f> Block<'f> {
    /// The experiment of a directive that parsed and that the cache does not hold.
    fn to_render(&self) -> Option<&'f crate::spec::Experiment> {
        let (_, exp) = self.found.parsed.as_ref().ok()?;
        self.rendered.is_none().then_some(exp.as_ref())
    }
}

/// What the rendered blocks give the build: HTML per chapter, status rows, and what to report.
#[derive(Default)]
struct Outputs {
    replacements: HashMap<PathBuf, Vec<(std::ops::Range<usize>, String)>>,
    status_rows: Vec<DirectiveStatus>,
    /// Why directives are not fully recorded, failing a strict build (`pending`: not failing it).
    problems: Vec<String>,
    pending: Vec<String>,
    unreadable: Vec<String>,
}

impl Outputs {
    /// Takes a block's rendering: its HTML replaces the block, the rest is reported.
    fn add(&mut self, f: &FoundDirective, r: Rendered) {
        self.unreadable.extend(r.unreadable);
        match r.problem {
            Some((true, p)) => self.problems.push(p),
            Some((false, p)) => self.pending.push(p),
            None => {}
        }
        self.status_rows.extend(r.status);
        self.replace(f, r.html);
    }

    fn replace(&mut self, f: &FoundDirective, html: String) {
        self.replacements
            .entry(f.chapter_path.clone())
            .or_default()
            .push((f.fence.block.clone(), html));
    }
}

/// Replaces the directives of `book` in place; `quiet`: report nothing (`check` reports for itself).
pub fn process_book(
    ws: &Workspace,
    book: &mut Book,
    live: Option<&dyn LiveRunner>,
    quiet: bool,
) -> Result<BuildSummary> {
    let templates = Templates::load(Some(&ws.root.join("theme")))?;
    // CR-only line endings become line feeds for mdBook too, which would render one heading.
    book.for_each_mut(|item| {
        if let BookItem::Chapter(ch) = item
            && let Cow::Owned(text) = normalise_line_endings(&ch.content)
        {
            ch.content = text;
        }
    });
    let found = scan_book(ws, book);
    let invalid: Vec<Diagnostic> = found
        .iter()
        .filter_map(|f| f.parsed.as_ref().err())
        .flatten()
        .cloned()
        .collect();
    if !invalid.is_empty() && ws.config.strict {
        return Err(Error::Invalid(invalid).into());
    }
    if !quiet {
        report(&invalid);
    }

    let mut recordings = Recordings::new(ws.data())?;
    // A build that runs no kernels reuses the blocks rendered from unchanged inputs.
    let cache = live.is_none().then(|| RenderCache::open(ws)).flatten();
    let mut blocks = blocks(&found, cache.as_ref());
    plan_blocks(ws, &mut blocks)?;
    let experiments = || {
        found
            .iter()
            .filter(|f| f.fence.kind == FenceKind::Experiment)
    };
    let mut summary = BuildSummary {
        mode: ws.config.mode,
        directives: experiments().count(),
        invalid: experiments().filter(|f| f.parsed.is_err()).count(),
        inline: found
            .iter()
            .filter(|f| f.fence.kind == FenceKind::Inline)
            .count(),
        chapters: found
            .iter()
            .map(|f| &f.chapter_path)
            .collect::<std::collections::HashSet<_>>()
            .len(),
        gpu: None,
        literals: Vec::new(),
    };
    if let Some(live) = live {
        summary.gpu = Some(run_stale(ws, live, &blocks, &mut recordings)?);
    }
    // Read in parallel, then each directive's own load in book order, whose error spoils it only.
    recordings.preload_all(blocks.iter().filter_map(Block::to_render));
    for b in &mut blocks {
        if let Some(exp) = b.to_render() {
            b.preloaded = recordings.preload(exp).map_err(|e| e.to_string());
        }
    }
    // A directive without `devices` shows the GPU at hand, else the book's `device`, else the best-recorded.
    let default_device = summary.gpu.as_ref().map(|(d, _)| d.as_str());
    let default_device = default_device.or(ws.config.device.as_deref());
    render_blocks(
        ws,
        &mut blocks,
        &recordings,
        &templates,
        cache.as_ref(),
        default_device,
    )?;

    let mut out = gather(ws, blocks, &mut recordings, &templates, cache.as_ref())?;
    // Every `reproduces` id names an item of its paper's inventory, and every re-run item is re-run.
    let inventory = crate::inventory::Inventory::load(&ws.config.data_dir(&ws.root))?;
    let located = out.status_rows.iter().flat_map(|r| r.located_ids());
    out.unreadable.extend(inventory.check_reproduces(located));
    report_problems(ws, &out, quiet)?;
    let status = StatusTable::build(&inventory, &out.status_rows);
    for f in found.iter().filter(|f| f.fence.kind == FenceKind::Status) {
        out.replace(f, templates.render_status_from(&status, &f.chapter_path)?);
    }
    summary.literals = prose_literals(ws, book, &out.replacements);
    replace_blocks(book, out.replacements);
    Ok(summary)
}

/// Warnings for the figures typed into each chapter's prose that equal a value its page shows.
fn prose_literals(
    ws: &Workspace,
    book: &Book,
    replacements: &HashMap<PathBuf, Vec<(std::ops::Range<usize>, String)>>,
) -> Vec<Diagnostic> {
    let folder = ws.src_dir.strip_prefix(&ws.root).unwrap_or(&ws.src_dir);
    let mut out = Vec::new();
    for item in book.iter() {
        let BookItem::Chapter(ch) = item else {
            continue;
        };
        let path = ch.source_path.as_ref().or(ch.path.as_ref());
        let Some((path, blocks)) = path.and_then(|p| Some((p, replacements.get(p)?))) else {
            continue;
        };
        let shown: Vec<String> = blocks
            .iter()
            .flat_map(|(_, html)| prose_literals::shown_numbers(html))
            .collect();
        let file = crate::source::SourceFile::new(folder.join(path), ch.content.as_str());
        out.extend(prose_literals::literal_warnings(&file, &shown));
    }
    out
}

/// Every block of the book with its earlier listings, its cache slot and the cache's rendering.
fn blocks<'f>(found: &'f [FoundDirective], cache: Option<&RenderCache>) -> Vec<Block<'f>> {
    // A kernel file is listed once per page, by the first result that uses it; later ones link there.
    let mut nth: HashMap<&PathBuf, usize> = HashMap::new();
    found
        .iter()
        .zip(earlier_listings(found))
        .map(|(f, earlier)| {
            let n = nth.entry(&f.chapter_path).or_default();
            *n += 1;
            let slot = cache.and_then(|c| c.slot(f, *n - 1, &earlier));
            let rendered = cache.zip(slot.as_ref()).and_then(|(c, s)| c.get(s));
            Block {
                found: f,
                earlier,
                slot,
                rendered,
                points: None,
                preloaded: Ok(()),
            }
        })
        .collect()
}

/// Plans the points of every directive the cache does not hold, in parallel.
fn plan_blocks(ws: &Workspace, blocks: &mut [Block]) -> Result<()> {
    use rayon::prelude::*;
    blocks
        .par_iter_mut()
        .map(|b| -> Result<()> {
            if let (Ok((d, exp)), None) = (&b.found.parsed, &b.rendered) {
                b.points = Some(plan(d, exp, &ws.sources)?);
            }
            Ok(())
        })
        .collect::<Vec<_>>()
        .into_iter()
        // The first failure in book order, as a sequential build would report.
        .collect()
}

/// Runs the points missing or stale on the live GPU; returns that GPU and how many ran.
fn run_stale(
    ws: &Workspace,
    live: &dyn LiveRunner,
    blocks: &[Block],
    recordings: &mut Recordings,
) -> Result<(String, usize)> {
    let device = live.device()?;
    let work = stale_work(blocks, recordings, &device)?;
    if work.is_empty() {
        return Ok((device, 0));
    }
    match ws.data().check_writable() {
        Err(e) if ws.config.mode == Mode::Live => Err(e.into()),
        Err(e) => {
            eprintln!("warning: {e}: not running anything, showing the recordings");
            Ok((device, 0))
        }
        Ok(()) => {
            let ran = live.refresh(ws, &work)?;
            recordings.reload()?;
            Ok((device, ran))
        }
    }
}

/// Renders the directives the cache does not hold, in parallel, and stores them in the cache.
fn render_blocks(
    ws: &Workspace,
    blocks: &mut [Block],
    recordings: &Recordings,
    templates: &Templates,
    cache: Option<&RenderCache>,
    default_device: Option<&str>,
) -> Result<()> {
    use rayon::prelude::*;
    blocks
        .par_iter_mut()
        .filter(|b| {
            matches!(
                b.found.fence.kind,
                FenceKind::Experiment | FenceKind::Inline
            )
        })
        .filter(|b| b.rendered.is_none())
        .map(|b| -> Result<()> {
            b.rendered = render_found(ws, b, recordings, templates, default_device)?;
            if let (Some(cache), Some(slot), Some(r)) = (cache, &b.slot, &b.rendered) {
                cache.put(slot, r);
            }
            Ok(())
        })
        .collect::<Vec<_>>()
        .into_iter()
        // The first failure in book order, as a sequential build would report.
        .collect()
}

/// Fails a strict build on unreadable data or a directive not fully recorded; else reports them.
fn report_problems(ws: &Workspace, out: &Outputs, quiet: bool) -> Result<()> {
    if (!out.problems.is_empty() || !out.unreadable.is_empty()) && ws.config.strict {
        return Err(BuildError::Strict(
            out.unreadable
                .iter()
                .cloned()
                .chain(out.problems.iter().map(|p| {
                    format!("{p} (`mdbook-gpulab record` on a machine with an NVIDIA GPU records it again)")
                }))
                .collect(),
        ));
    }
    if quiet {
        return Ok(());
    }
    for u in &out.unreadable {
        eprintln!("error: {u}");
    }
    for p in out.problems.iter().chain(&out.pending) {
        eprintln!("warning: {p}; run `mdbook-gpulab record` on a machine with an NVIDIA GPU");
    }
    Ok(())
}

/// Every block's rendering: the directives' in book order, then the data blocks' (rendered here).
fn gather(
    ws: &Workspace,
    blocks: Vec<Block>,
    recordings: &mut Recordings,
    templates: &Templates,
    cache: Option<&RenderCache>,
) -> Result<Outputs> {
    let mut out = Outputs::default();
    let (data_blocks, directives): (Vec<_>, Vec<_>) = blocks
        .into_iter()
        .partition(|b| matches!(b.found.fence.kind, FenceKind::Anchors | FenceKind::NcuCheck));
    for b in directives {
        if let Some(r) = b.rendered {
            out.add(b.found, r);
        }
    }
    out.unreadable
        .extend(recordings.unreadable_calibrations().cloned());
    for b in data_blocks {
        let r = match b.rendered {
            Some(r) => r,
            None => {
                let r = data_block(ws, b.found, recordings, templates)?;
                if let (Some(cache), Some(slot)) = (cache, &b.slot) {
                    cache.put(slot, &r);
                }
                r
            }
        };
        out.add(b.found, r);
    }
    Ok(out)
}

/// Puts each block's HTML in its place in its chapter.
fn replace_blocks(
    book: &mut Book,
    mut replacements: HashMap<PathBuf, Vec<(std::ops::Range<usize>, String)>>,
) {
    book.for_each_chapter_mut(|ch| {
        let Some(path) = ch.source_path.as_ref().or(ch.path.as_ref()) else {
            return;
        };
        if let Some(mut reps) = replacements.remove(path) {
            reps.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
            for (range, html) in reps {
                if range.end <= ch.content.len() {
                    ch.content.replace_range(range, &html);
                }
            }
        }
    });
}

/// A `gpulab-anchors` or `gpulab-ncu-check` block from the data folder; unreadable data spoils it only.
fn data_block(
    ws: &Workspace,
    f: &FoundDirective,
    recordings: &mut Recordings,
    templates: &Templates,
) -> Result<Rendered> {
    let mut unreadable = Vec::new();
    let html = if f.fence.kind == FenceKind::Anchors {
        let spec: crate::results::anchors::AnchorsSpec =
            toml::from_str(&f.fence.body).map_err(|error| BuildError::Anchors {
                chapter: f.chapter_path.clone(),
                error,
            })?;
        let tables = crate::results::anchors::anchor_tables(
            &spec,
            &|name| ws.spec(name).ok(),
            recordings,
            &ws.sources,
        );
        block_html(
            tables.map(|t| crate::render::anchors::anchors_html(&t)),
            (ANCHORS_INFO, f),
            &mut unreadable,
            templates,
        )?
    } else {
        let checks = crate::results::ncu_check::device_checks(recordings.data());
        // A device whose check cannot be read is a note in the block and an error of the build.
        for why in checks
            .iter()
            .flatten()
            .filter_map(|d| d.unreadable.as_ref())
        {
            unreadable.push(format!(
                "{}: {NCU_CHECK_INFO}: {why}",
                f.chapter_path.display()
            ));
        }
        block_html(
            checks.map(|c| crate::render::ncu_check::ncu_check_html(&c)),
            (NCU_CHECK_INFO, f),
            &mut unreadable,
            templates,
        )?
    };
    Ok(Rendered {
        unreadable,
        ..Rendered::plain(html)
    })
}

/// A data block's HTML, or an error box with the problem added to `unreadable`.
fn block_html(
    html: std::result::Result<String, crate::record::StoreError>,
    (info, f): (&str, &FoundDirective),
    unreadable: &mut Vec<String>,
    templates: &Templates,
) -> Result<String> {
    match html {
        Ok(html) => Ok(html),
        Err(e) => {
            let message = e.to_string();
            unreadable.push(format!("{}: {info}: {message}", f.chapter_path.display()));
            Ok(templates
                .render_error(&format!("Unreadable data for this {info} block"), &message)?)
        }
    }
}

/// What a build did, printed on stderr at its end.
#[derive(Debug, Clone)]
pub struct BuildSummary {
    pub mode: Mode,
    /// `gpulab` directives rendered, of them invalid, and inline values.
    pub directives: usize,
    pub invalid: usize,
    pub inline: usize,
    /// Chapters with at least one block.
    pub chapters: usize,
    /// The GPU that ran stale points, and how many it ran; `None`: no kernels were run.
    pub gpu: Option<(String, usize)>,
    /// Figures typed into the prose that equal a value their page shows (warnings).
    pub literals: Vec<Diagnostic>,
}

impl std::fmt::Display for BuildSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match (&self.gpu, self.mode) {
            (Some((device, 0)), _) => {
                format!(
                    "ran no kernels (every point on {device} is current), used the recordings in data/"
                )
            }
            (Some((device, n)), _) => {
                format!("ran {n} point(s) on {device}, the rest from the recordings in data/")
            }
            (None, Mode::Recorded) => {
                "ran no kernels (mode recorded), used the recordings in data/".into()
            }
            (None, _) => "ran no kernels (no NVIDIA GPU here), used the recordings in data/".into(),
        };
        write!(
            f,
            "gpulab: {how}; rendered {} directive(s) in {} chapter(s)",
            self.directives, self.chapters
        )?;
        if self.inline > 0 {
            write!(f, " and {} inline value(s)", self.inline)?;
        }
        match self.invalid {
            0 => Ok(()),
            n => write!(f, ", {n} of them invalid (shown as an error box)"),
        }
    }
}

/// Points whose recording on `device` (the GPU about to run) is missing or stale.
fn stale_work(blocks: &[Block], recordings: &mut Recordings, device: &str) -> Result<Vec<Work>> {
    let mut work = Vec::new();
    for b in blocks {
        let (Ok((d, exp)), Some(points)) = (&b.found.parsed, &b.points) else {
            continue;
        };
        // An unreadable recording is never overwritten: its directive is shown as an error.
        let todo = match recordings.to_run(device, d, exp, points) {
            Ok(todo) => todo,
            Err(e) => {
                eprintln!("error: {e}: not running `{}` until it is fixed", exp.name);
                continue;
            }
        };
        if !todo.is_empty() {
            work.push(Work {
                directive: d.clone(),
                experiment: exp.clone(),
                points: todo,
            });
        }
    }
    Ok(work)
}

/// Pending, failed, stale, partial or recorded across the devices shown (the first that applies).
pub fn directive_state(view: &DirectiveView) -> StatusState {
    let any = |count: fn(&DeviceResults) -> usize| view.devices.iter().any(|d| count(d) > 0);
    match () {
        _ if view.devices.is_empty() => StatusState::Pending,
        _ if any(|d| d.failed_count()) => StatusState::Failed,
        _ if any(|d| d.stale_count()) => StatusState::Stale,
        _ if any(|d| d.missing_count()) => StatusState::Partial,
        _ => StatusState::Recorded,
    }
}

/// What the status table needs of a directive that names `reproduces`: its state, and its claims per device.
pub fn directive_status(
    f: &FoundDirective,
    view: &DirectiveView,
    state: StatusState,
) -> DirectiveStatus {
    let d = view.directive;
    // The paper's claims only: an `ours:` claim is the handbook's expectation, not the item's.
    let of_paper = |claims: &[ClaimView]| -> Vec<ClaimStatus> {
        claims
            .iter()
            .zip(&d.expect)
            .filter(|(_, parsed)| !parsed.is_ours())
            .map(|(c, _)| c.status)
            .collect()
    };
    let shown = view
        .devices
        .iter()
        .map(|dev| (&dev.device.name, &dev.claims));
    let others = view.other_devices.iter().map(|o| (&o.device, &o.claims));
    let claims = shown
        .chain(others)
        .map(|(device, claims)| {
            let statuses = of_paper(claims);
            let count = |f: fn(&ClaimStatus) -> bool| statuses.iter().filter(|s| f(s)).count();
            DeviceClaims {
                device: device.clone(),
                holding: count(|s| *s == ClaimStatus::Holds),
                // A claim not evaluated there neither holds nor fails ("2 of 3 hold" reads as a failure).
                total: count(|s| *s != ClaimStatus::NotEvaluated),
            }
        })
        .filter(|c| c.total > 0)
        .collect();
    DirectiveStatus {
        ids: d.reproduces.clone(),
        chapter_title: f.chapter_name.clone(),
        chapter_path: f.chapter_path.to_string_lossy().into_owned(),
        anchor: crate::render::directive_anchor(&d.experiment, d.location.index),
        line: d.location.line,
        title: d
            .title
            .clone()
            .unwrap_or_else(|| view.experiment_title.clone()),
        state,
        claims,
    }
}
