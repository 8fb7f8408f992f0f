//! The mdBook preprocessor: replaces each `gpulab` directive with its rendered results, and each
//! `gpulab-status` block with the book's reproduction table.

use crate::config::{Config, Mode};
use crate::diagnostic::Diagnostic;
use crate::directive::fence::{ANCHORS_INFO, FenceKind, NCU_CHECK_INFO};
use crate::directive::validate::point_count;
use crate::engine::{LiveRunner, Work};
use crate::error::Error;
use crate::limits::MAX_POINTS_PER_BOOK;
use crate::plan::{PlannedPoint, plan};
use crate::render::Templates;
use crate::render::status::{DeviceClaims, DirectiveStatus, StatusState, StatusTable};
use crate::results::view::{ClaimStatus, DirectiveView};
use crate::results::{Recordings, directive_view};
use crate::workspace::{FoundDirective, Workspace};
use mdbook_preprocessor::book::{Book, BookItem};
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};
use std::collections::HashMap;
use std::path::PathBuf;

pub mod error;
mod render_cache;
mod render_one;
pub use error::BuildError;
use render_cache::{RenderCache, Slot};
use render_one::{RenderInputs, Rendered, earlier_listings, render_found};

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
        let mut config = Config::from_mdbook(&ctx.config)?;
        if let Some(s) = self.overrides.strict {
            config.strict = s;
        }
        if let Some(m) = self.overrides.mode {
            config.mode = m;
        }
        let ws = Workspace::new(&ctx.root, &ctx.config.book.src, config);
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
        let summary = process_book(&ws, &mut book, live)?;
        eprintln!("{summary}");
        Ok(book)
    }

    fn supports_renderer(&self, renderer: &str) -> anyhow::Result<bool> {
        Ok(renderer == "html")
    }
}

/// Every chapter's directives, in book order. A directive that takes the book past
/// [`MAX_POINTS_PER_BOOK`] points is made invalid, located at its fence.
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

/// Replaces the directives of `book` in place. Templates in `<book>/theme/gpulab/<name>.hbs`
/// override the built-in ones.
pub fn process_book(
    ws: &Workspace,
    book: &mut Book,
    live: Option<&dyn LiveRunner>,
) -> Result<BuildSummary> {
    let templates = Templates::load(Some(&ws.root.join("theme")))?;
    let found = scan_book(ws, book);

    let mut invalid: Vec<Diagnostic> = Vec::new();
    for f in &found {
        if let Err(diags) = &f.parsed {
            invalid.extend(diags.iter().cloned());
        }
    }
    if !invalid.is_empty() && ws.config.strict {
        return Err(Error::Invalid(invalid).into());
    }
    report(&invalid);

    let mut recordings = Recordings::new(ws.data())?;
    // A kernel file is listed once per page, by the first result that uses it; later ones link there.
    let earlier = earlier_listings(&found);
    // A build that runs no kernels reuses the blocks rendered from unchanged inputs.
    let cache = live.is_none().then(|| RenderCache::open(ws)).flatten();
    let slots = cache_slots(cache.as_ref(), &found, &earlier);
    // The blocks the cache holds: directives are taken below, the data blocks after them.
    let mut hits: Vec<Option<Rendered>> = slots
        .iter()
        .map(|slot| cache.as_ref()?.get(slot.as_ref()?))
        .collect();
    let planned: Vec<Option<Vec<PlannedPoint>>> = {
        use rayon::prelude::*;
        found
            .par_iter()
            .zip(&hits)
            .map(|(f, hit)| match (&f.parsed, hit) {
                (Ok((d, exp)), None) => plan(d, exp, &ws.sources).map(Some),
                _ => Ok(None),
            })
            .collect::<Vec<_>>()
            .into_iter()
            // The first failure in book order, as a sequential build would report.
            .collect::<std::result::Result<_, _>>()?
    };

    let mut summary = BuildSummary {
        mode: ws.config.mode,
        directives: found
            .iter()
            .filter(|f| f.fence.kind == FenceKind::Experiment)
            .count(),
        invalid: found
            .iter()
            .filter(|f| f.fence.kind == FenceKind::Experiment && f.parsed.is_err())
            .count(),
        chapters: found
            .iter()
            .map(|f| &f.chapter_path)
            .collect::<std::collections::HashSet<_>>()
            .len(),
        gpu: None,
    };
    // The device a directive without `devices` shows: the GPU at hand in a build that runs kernels
    // (the living report), else the book's configured `device`, else the best-recorded one.
    let mut live_device: Option<String> = None;
    if let Some(live) = live {
        let device = live.device()?;
        live_device = Some(device.clone());
        let work = stale_work(&found, &planned, &mut recordings, &device)?;
        let writable = if work.is_empty() {
            Ok(())
        } else {
            ws.data().check_writable()
        };
        let mut ran = 0;
        match writable {
            Err(e) if ws.config.mode == Mode::Live => return Err(e.into()),
            Err(e) => eprintln!("warning: {e}: not running anything, showing the recordings"),
            Ok(()) if !work.is_empty() => {
                ran = live.refresh(ws, &work)?;
                recordings.reload()?;
            }
            Ok(()) => {}
        }
        summary.gpu = Some((device, ran));
    }

    // The recordings every directive shows, read in parallel; then, in book order, each
    // directive's own load (from that cache), whose error spoils that directive only.
    // (A block the cache holds needs none.)
    recordings.preload_all(found.iter().zip(&hits).filter_map(|(f, hit)| {
        let (_, exp) = f.parsed.as_ref().ok().filter(|_| hit.is_none())?;
        Some(exp.as_ref())
    }));
    let preloaded: Vec<std::result::Result<(), String>> = found
        .iter()
        .zip(&hits)
        .map(|(f, hit)| match &f.parsed {
            Ok((_, exp)) if hit.is_none() => recordings.preload(exp).map_err(|e| e.to_string()),
            _ => Ok(()),
        })
        .collect();

    // Directives are rendered in parallel (each reads the recordings, none writes them), and
    // their results gathered in book order.
    let default_device = live_device.as_deref().or(ws.config.device.as_deref());
    let rendered: Vec<Option<Rendered>> = {
        use rayon::prelude::*;
        let recordings = &recordings;
        let templates = &templates;
        let cache = cache.as_ref();
        found
            .par_iter()
            .zip(&planned)
            .zip(&preloaded)
            .zip(&earlier)
            .zip(&slots)
            .zip(hits.par_iter_mut())
            .map(|(((((f, points), preloaded), earlier), slot), hit)| {
                if f.fence.kind == FenceKind::Experiment
                    && let Some(hit) = hit.take()
                {
                    return Ok(Some(hit));
                }
                let inputs = RenderInputs {
                    points: points.as_deref(),
                    preloaded,
                    earlier,
                };
                let r = render_found(ws, f, inputs, recordings, templates, default_device)?;
                if let (Some(cache), Some(slot), Some(r)) = (cache, slot, &r) {
                    cache.put(slot, r);
                }
                Ok(r)
            })
            .collect::<Vec<_>>()
            .into_iter()
            // The first failure in book order, as a sequential build would report.
            .collect::<Result<Vec<_>>>()?
    };

    let mut replacements: HashMap<PathBuf, Vec<(std::ops::Range<usize>, String)>> = HashMap::new();
    let mut status_rows = Vec::new();
    let mut problems = Vec::new();
    let mut pending = Vec::new();
    let mut unreadable = Vec::new();
    for (f, r) in found.iter().zip(rendered) {
        let Some(r) = r else { continue };
        unreadable.extend(r.unreadable);
        match r.problem {
            Some((true, p)) => problems.push(p),
            Some((false, p)) => pending.push(p),
            None => {}
        }
        status_rows.extend(r.status);
        replacements
            .entry(f.chapter_path.clone())
            .or_default()
            .push((f.fence.block.clone(), r.html));
    }

    // Event-overhead calibrations that could not be read (those devices' times are uncorrected).
    unreadable.extend(recordings.unreadable_calibrations().cloned());
    // The library anchors and the profiler check blocks.
    let blocks = found
        .iter()
        .zip(&slots)
        .zip(hits)
        .filter(|((f, _), _)| matches!(f.fence.kind, FenceKind::Anchors | FenceKind::NcuCheck));
    for ((f, slot), hit) in blocks {
        let r = match hit {
            Some(r) => r,
            None => {
                let r = data_block(ws, f, &mut recordings, &templates)?;
                if let (Some(cache), Some(slot)) = (&cache, slot) {
                    cache.put(slot, &r);
                }
                r
            }
        };
        unreadable.extend(r.unreadable);
        replacements
            .entry(f.chapter_path.clone())
            .or_default()
            .push((f.fence.block.clone(), r.html));
    }

    // Every `reproduces` id names an item of its paper's inventory, and every re-run item is re-run.
    let inventory = crate::inventory::Inventory::load(&ws.config.data_dir(&ws.root))?;
    unreadable.extend(inventory.check_reproduces(status_rows.iter().flat_map(|r| r.located_ids())));
    if (!problems.is_empty() || !unreadable.is_empty()) && ws.config.strict {
        return Err(BuildError::Strict(
            unreadable
                .iter()
                .cloned()
                .chain(problems.iter().map(|p| {
                    format!("{p} (`mdbook-gpulab record` on a machine with an NVIDIA GPU records it again)")
                }))
                .collect(),
        ));
    }
    for u in &unreadable {
        eprintln!("error: {u}");
    }
    for p in problems.iter().chain(&pending) {
        eprintln!("warning: {p}; run `mdbook-gpulab record` on a machine with an NVIDIA GPU");
    }

    let status = StatusTable::build(&inventory, &status_rows);
    for f in found.iter().filter(|f| f.fence.kind == FenceKind::Status) {
        let status_html = templates.render_status_from(&status, &f.chapter_path)?;
        replacements
            .entry(f.chapter_path.clone())
            .or_default()
            .push((f.fence.block.clone(), status_html));
    }

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
    Ok(summary)
}

/// Each block's slot in the render cache, in book order (`None` without a cache, or for a block the
/// cache does not keep).
fn cache_slots(
    cache: Option<&RenderCache>,
    found: &[FoundDirective],
    earlier: &[HashMap<PathBuf, String>],
) -> Vec<Option<Slot>> {
    let mut nth: HashMap<&PathBuf, usize> = HashMap::new();
    found
        .iter()
        .zip(earlier)
        .map(|(f, earlier)| {
            let n = nth.entry(&f.chapter_path).or_default();
            *n += 1;
            cache?.slot(f, *n - 1, earlier)
        })
        .collect()
}

/// A `gpulab-anchors` or `gpulab-ncu-check` block, rendered from the data folder: a data file
/// that cannot be read spoils its own block only (an error box), like a directive's recording.
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
        // A device whose check cannot be read is a note in the block (the others render) and an
        // error of the build.
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
        html,
        unreadable,
        problem: None,
        status: None,
    })
}

/// The HTML of a `gpulab-anchors` or `gpulab-ncu-check` block (`info`, at `f`), or, when its data
/// cannot be read, an error box, with the problem added to `unreadable`.
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

/// What a build did, printed on stderr at its end: kernels run or recordings used, and how much
/// was rendered.
#[derive(Debug, Clone)]
pub struct BuildSummary {
    pub mode: Mode,
    /// `gpulab` directives (valid or not) rendered.
    pub directives: usize,
    /// Of them, invalid ones (rendered as an error box).
    pub invalid: usize,
    /// Chapters with at least one directive or status block.
    pub chapters: usize,
    /// The GPU that ran stale points, and how many it ran; `None`: no kernels were run.
    pub gpu: Option<(String, usize)>,
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
        match self.invalid {
            0 => Ok(()),
            n => write!(f, ", {n} of them invalid (shown as an error box)"),
        }
    }
}

/// Points whose recording on `device` (the GPU about to run) is missing or stale.
fn stale_work(
    found: &[FoundDirective],
    planned: &[Option<Vec<PlannedPoint>>],
    recordings: &mut Recordings,
    device: &str,
) -> Result<Vec<Work>> {
    let mut work = Vec::new();
    for (f, points) in found.iter().zip(planned) {
        let (Ok((d, exp)), Some(points)) = (&f.parsed, points) else {
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

/// Recorded, failed, stale, partly recorded or pending, across the devices shown (the first that
/// applies, in that order of severity).
pub fn directive_state(view: &DirectiveView) -> StatusState {
    if view.devices.is_empty() {
        return StatusState::Pending;
    }
    if view.devices.iter().any(|d| d.failed_count() > 0) {
        return StatusState::Failed;
    }
    if view.devices.iter().any(|d| d.stale_count() > 0) {
        return StatusState::Stale;
    }
    if view.devices.iter().any(|d| d.missing_count() > 0) {
        return StatusState::Partial;
    }
    StatusState::Recorded
}

/// What the status table needs of a directive that names `reproduces`: its state on the devices it
/// shows, and its claims on every device with a recording of it (one column per device).
pub fn directive_status(
    f: &FoundDirective,
    view: &DirectiveView,
    state: StatusState,
    exp: &crate::spec::Experiment,
    points: &[PlannedPoint],
    recordings: &Recordings,
) -> DirectiveStatus {
    let d = view.directive;
    // The claims on every device: the view itself when it already shows every device; nothing to
    // evaluate when the directive has no claims.
    let all;
    let every_device;
    let every = if d.expect.is_empty() || d.devices == crate::directive::DeviceSelection::All {
        view
    } else {
        let mut on_all = d.clone();
        on_all.devices = crate::directive::DeviceSelection::All;
        all = on_all;
        every_device = directive_view(&all, exp, points, recordings, None, None);
        &every_device
    };
    // The paper's claims only: an `ours:` claim is the handbook's expectation, not the item's.
    let of_paper = |dev: &crate::results::view::DeviceResults<'_>| -> Vec<ClaimStatus> {
        dev.claims
            .iter()
            .zip(&d.expect)
            .filter(|(_, parsed)| !parsed.is_ours())
            .map(|(c, _)| c.status)
            .collect()
    };
    let claims = every
        .devices
        .iter()
        .map(|dev| {
            let statuses = of_paper(dev);
            DeviceClaims {
                device: dev.device.name.clone(),
                holding: statuses
                    .iter()
                    .filter(|s| **s == ClaimStatus::Holds)
                    .count(),
                // A claim not evaluated on a device (no output there, or no point with its
                // values) neither holds nor fails: it is not counted ("2 of 3 hold" read as one
                // failure).
                total: statuses
                    .iter()
                    .filter(|s| **s != ClaimStatus::NotEvaluated)
                    .count(),
            }
        })
        .filter(|c| c.total > 0)
        .collect();
    DirectiveStatus {
        ids: d.reproduces.clone(),
        chapter_title: f.chapter_name.clone(),
        chapter_path: f.chapter_path.to_string_lossy().into_owned(),
        anchor: crate::render::directive_anchor(&d.experiment, d.location.index),
        title: d
            .title
            .clone()
            .unwrap_or_else(|| view.experiment_title.clone()),
        state,
        claims,
    }
}
