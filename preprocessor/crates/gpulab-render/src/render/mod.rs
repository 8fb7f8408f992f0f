//! Rendering a directive's [`DirectiveView`] as one deterministic CommonMark HTML block.

pub mod anchors;
pub mod chart;
mod chart_html;
pub mod claims;
pub mod code;
pub mod compare;
mod context;
pub mod csv;
mod error;
pub mod fields;
pub mod format;
pub mod html;
pub mod inline;
pub mod ncu_check;
pub mod outcome;
pub mod provenance;
pub mod quality;
pub mod status;
pub mod table;
pub(crate) mod table_html;
pub mod templates;
pub mod text;

#[cfg(test)]
mod tests;

pub use chart::{
    Chart, ChartData, ChartPoint, PointValue, Series, SweepData, ValueAxis, XAxis, XScale,
};
pub use context::directive_anchor;
pub use context::{
    DeviceContext, DirectiveContext, ErrorContext, MissingContext, run_command, table_specs,
};
pub use error::RenderError;
pub use status::{DeviceClaims, DirectiveStatus, StatusState, StatusTable};
pub use templates::Templates;

use crate::results::view::DirectiveView;

/// The stylesheet for `.gpulab-*` classes; copy it into the book and list it in
/// `output.html.additional-css`.
pub const CSS: &str = include_str!("gpulab.css");

/// Renders a directive: its results per device, or the "no recording yet" box when no device
/// has any.
pub fn render_directive_html(
    view: &DirectiveView<'_>,
    templates: &Templates,
) -> Result<String, RenderError> {
    if view.devices.is_empty() {
        templates.render_missing(view)
    } else {
        templates.render_directive(view)
    }
}
