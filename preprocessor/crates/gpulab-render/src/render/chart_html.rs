//! A chart as page HTML: the inline SVG in a `<figure>` with its caption and notes.

use super::RenderError;
use super::chart::{self, SweepData};
use super::fields::MetricRef;
use super::html::escape;
use crate::directive::{ChartKind, ChartSpec};
use crate::metrics::TIME_MS;
use crate::results::view::{DeviceResults, DirectiveView};

/// One `<figure>` per chart; a note when there is nothing to draw.
pub(crate) fn charts_html(
    view: &DirectiveView<'_>,
    device: &DeviceResults<'_>,
    spec: &ChartSpec,
) -> Result<Vec<String>, RenderError> {
    let metric_name = match spec.kind {
        ChartKind::Heatmap => spec.value.as_deref().unwrap_or(TIME_MS),
        _ => spec.y.as_str(),
    };
    let metric = MetricRef::resolve(view, metric_name);
    let default_title = match spec.kind {
        ChartKind::Heatmap => format!("{} by {} and {}", metric.label, spec.x, spec.y),
        _ => format!("{} by {}", metric.label, spec.x),
    };
    let title = spec.title.clone().unwrap_or(default_title);
    let mut figures = Vec::new();
    for data in SweepData::build(view, device, spec) {
        let caption = match &data.facet {
            Some(facet) => format!("{title} ({facet})"),
            None => title.clone(),
        };
        let mut names: Vec<&str> = device
            .cells
            .iter()
            .map(|c| c.device.name.as_str())
            .collect();
        names.dedup();
        let label = format!("{caption} — {}", names.join(", "));
        figures.push(match chart::draw(spec.kind, &data, &label)? {
            Some(drawn) => {
                let notes: String = drawn
                    .notes
                    .iter()
                    .map(|n| format!(" <span class=\"gpulab-chart-note\">{}</span>", escape(n)))
                    .collect();
                // The hover tips are attributes until the script after the chart makes them titles.
                let script = if drawn.svg.contains(" data-tip=") {
                    format!("\n{}", chart::TIPS_SCRIPT)
                } else {
                    String::new()
                };
                format!(
                    "<figure class=\"gpulab-chart\">\n{}{script}\n<figcaption>{}{notes}</figcaption>\n</figure>",
                    drawn.svg,
                    escape(&caption)
                )
            }
            None => format!("<p class=\"gpulab-note\">{}: no values to chart yet.</p>", escape(&caption)),
        });
    }
    if figures.is_empty() {
        figures.push(format!(
            "<p class=\"gpulab-note\">{}: no values to chart yet.</p>",
            escape(&title)
        ));
    }
    Ok(figures)
}
