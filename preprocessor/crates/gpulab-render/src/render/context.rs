//! The data handed to the templates: a directive's pieces rendered to HTML fragments.

use super::RenderError;
use super::chart_html::charts_html;
use super::claims::claims_html;
use super::fields::variant_label;
use super::provenance::{
    counters_note_html, missing_note_html, provenance_html, provenance_text, stale_badge_html,
};
use super::quality::quality_summary;
use super::table::TableModel;
use super::table_html::table_html;
use crate::directive::TableSpec;
use crate::results::view::{DeviceResults, DirectiveView};
use serde::Serialize;

/// `directive.hbs`'s data.
#[derive(Debug, Clone, Serialize)]
pub struct DirectiveContext {
    /// `gpulab-<experiment>-<index>`: an id for links to this output.
    pub anchor: String,
    pub title: String,
    pub experiment: String,
    pub experiment_title: String,
    /// More than one device: `tables` and `charts` hold them side by side.
    pub multi_device: bool,
    /// The tables and charts of every device together (HTML), when there are several.
    pub tables: Vec<String>,
    pub charts: Vec<String>,
    pub devices: Vec<DeviceContext>,
    /// The collapsed spec and kernel sources (HTML), or empty.
    pub code: String,
}

/// One device's outputs, as HTML fragments (insert with `{{{ }}}`).
#[derive(Debug, Clone, Serialize)]
pub struct DeviceContext {
    pub name: String,
    pub slug: String,
    pub provenance_text: String,
    pub tables: Vec<String>,
    pub charts: Vec<String>,
    pub claims: String,
    pub provenance: String,
    /// The stale badge, or empty.
    pub stale: String,
    /// The "not recorded yet" note, or empty.
    pub missing: String,
}

/// `missing.hbs`'s data.
#[derive(Debug, Clone, Serialize)]
pub struct MissingContext {
    pub anchor: String,
    pub title: String,
    pub experiment: String,
    pub variants: Vec<String>,
    /// "N = 160, 320, 640"
    pub axes: Vec<String>,
    pub expected_cells: usize,
    /// "point" or "points", to agree with `expected_cells`.
    pub points_word: &'static str,
    /// The command that runs this directive on a GPU: `mdbook-gpulab run part1/x.md#2`.
    pub command: String,
    /// The directive's claims, each "not evaluated" until the points are recorded.
    pub claims: Vec<String>,
    /// The collapsed spec and kernel sources (HTML), or empty.
    pub code: String,
}

/// `error.hbs`'s data.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorContext {
    pub title: String,
    pub message: String,
    /// The message escaped for a `<pre>`, newlines as `&#10;` so the block stays one HTML block.
    pub message_html: String,
}

fn anchor(view: &DirectiveView<'_>) -> String {
    directive_anchor(&view.directive.experiment, view.directive.location.index)
}

/// The `id` of a directive's rendered figure: `gpulab-<experiment>-<index in its chapter>`.
pub fn directive_anchor(experiment: &str, index: usize) -> String {
    let keep = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let slug: String = experiment
        .chars()
        .map(|c| if keep(c) { c } else { '-' })
        .collect();
    format!("gpulab-{slug}-{index}")
}

fn title(view: &DirectiveView<'_>) -> String {
    let fallback = match view.experiment_title.is_empty() {
        true => &view.directive.experiment,
        false => &view.experiment_title,
    };
    view.directive
        .title
        .clone()
        .unwrap_or_else(|| fallback.clone())
}

impl DirectiveContext {
    pub fn new(view: &DirectiveView<'_>) -> Result<DirectiveContext, RenderError> {
        let multi_device = view.devices.len() > 1;
        let devices = view
            .devices
            .iter()
            .map(|device| DeviceContext::new(view, device, multi_device))
            .collect::<Result<_, _>>()?;
        let (tables, charts) = match view.devices.first() {
            Some(first) if multi_device => {
                let together = DeviceResults {
                    cells: view.devices.iter().flat_map(|d| d.cells.clone()).collect(),
                    claims: Vec::new(),
                    ..first.clone()
                };
                outputs(view, &together)?
            }
            _ => (Vec::new(), Vec::new()),
        };
        Ok(DirectiveContext {
            anchor: anchor(view),
            title: title(view),
            experiment: view.directive.experiment.clone(),
            experiment_title: view.experiment_title.clone(),
            multi_device,
            tables,
            charts,
            devices,
            code: super::code::code_html(&anchor(view), &view.code),
        })
    }
}

impl DeviceContext {
    fn new(
        view: &DirectiveView<'_>,
        device: &DeviceResults<'_>,
        multi_device: bool,
    ) -> Result<DeviceContext, RenderError> {
        // Several devices share the directive's tables and charts (`DirectiveContext`).
        let (tables, charts) = match multi_device {
            true => (Vec::new(), Vec::new()),
            false => outputs(view, device)?,
        };
        let total = device.cells.len();
        Ok(DeviceContext {
            name: device.device.name.clone(),
            slug: device.device.slug.clone(),
            provenance_text: provenance_text(&device.provenance),
            tables,
            charts,
            claims: claims_html(
                (&device.device.name, &device.claims),
                &view.other_devices,
                &view.directive.expect,
                &view.self_check,
                !view.directive.reproduces.is_empty(),
            ),
            provenance: provenance_html(&device.provenance, quality_line(view, device).as_deref()),
            stale: stale_badge_html(device.stale_count(), total).unwrap_or_default(),
            missing: [
                missing_note_html(device.missing_count(), total),
                counters_note_html(
                    device.counters_awaiting_count(!view.directive.counters.is_empty()),
                    total,
                ),
            ]
            .into_iter()
            .flatten()
            .collect(),
        })
    }
}

/// The directive's tables and charts (HTML) over `device`'s cells, which may be several devices'.
fn outputs(
    view: &DirectiveView<'_>,
    device: &DeviceResults<'_>,
) -> Result<(Vec<String>, Vec<String>), RenderError> {
    let specs = table_specs(view);
    let tables = specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let model = TableModel::build(view, device, spec);
            table_html(&model, view.paper, &csv_name(view, spec, i, specs.len()))
        })
        .collect();
    let mut charts = Vec::new();
    for spec in &view.directive.charts {
        charts.extend(charts_html(view, device, spec)?);
    }
    Ok((tables, charts))
}

/// The directive's tables, or the default one when it names none.
pub fn table_specs(view: &DirectiveView<'_>) -> Vec<TableSpec> {
    match view.directive.tables.is_empty() {
        true => vec![TableSpec::default()],
        false => view.directive.tables.clone(),
    }
}

/// The provenance line's quality part: the concerns' counts, and relative values across runs.
fn quality_line(view: &DirectiveView<'_>, device: &DeviceResults<'_>) -> Option<String> {
    let mut parts = Vec::new();
    // Timing marks only where a table or chart shows a value computed from the time.
    let d = view.directive;
    let shown = d
        .tables
        .iter()
        .map(|t| t.value.as_str())
        .chain(d.charts.iter().map(|c| c.value.as_deref().unwrap_or(&c.y)));
    let timed = shown
        .map(|m| super::fields::MetricRef::resolve(view, m))
        .any(|m| m.uses_time);
    if timed
        && let Some(q) = quality_summary(device.cells.iter().filter_map(|c| c.point), device.device)
    {
        parts.push(q);
    }
    if let Some((paired, apart)) = crate::results::relative_pairing(&device.cells, view.directive)
        && apart > 0
    {
        parts.push(format!(
            "relative values pair points of different (or unrecorded) recording runs at {apart} of {paired} cells"
        ));
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// `<experiment>.csv`, with the metric added when a directive has several tables.
fn csv_name(view: &DirectiveView<'_>, spec: &TableSpec, index: usize, tables: usize) -> String {
    let mut name = view.directive.experiment.clone();
    if tables > 1 {
        name.push('-');
        // `time_ms.min` → `time_ms-min`, `speedup:cpu` → `speedup-cpu` (no `:` in file names)
        name.push_str(&spec.value.replace(['.', ':'], "-"));
        if view
            .directive
            .tables
            .iter()
            .take(index)
            .any(|t| t.value == spec.value)
        {
            name.push_str(&format!("-{}", index + 1));
        }
    }
    name.push_str(".csv");
    name
}

impl MissingContext {
    pub fn new(view: &DirectiveView<'_>) -> MissingContext {
        let variants = match view.directive.variants.is_empty() {
            true => view.variant_labels.iter().map(|(n, _)| n.clone()).collect(),
            false => view.directive.variants.clone(),
        };
        MissingContext {
            anchor: anchor(view),
            title: title(view),
            experiment: view.directive.experiment.clone(),
            variants: variants
                .iter()
                .map(|v| match variant_label(view, v) {
                    label if &label == v => label,
                    label => format!("{v} ({label})"),
                })
                .collect(),
            axes: view
                .directive
                .axes
                .iter()
                .map(|a| {
                    let values: Vec<String> = a.values.iter().map(|v| v.to_string()).collect();
                    format!("{} = {}", a.name, values.join(", "))
                })
                .collect(),
            expected_cells: view.expected_cells,
            points_word: match view.expected_cells {
                1 => "point",
                _ => "points",
            },
            command: run_command(view),
            claims: view
                .directive
                .expect
                .iter()
                .map(|c| c.text().to_string())
                .collect(),
            code: super::code::code_html(&anchor(view), &view.code),
        }
    }
}

/// `mdbook-gpulab run <chapter>#<n>`: runs and records one directive on a GPU machine.
pub fn run_command(view: &DirectiveView<'_>) -> String {
    let location = &view.directive.location;
    format!(
        "mdbook-gpulab run {}#{}",
        location.chapter.to_string_lossy().replace('\\', "/"),
        location.index
    )
}
