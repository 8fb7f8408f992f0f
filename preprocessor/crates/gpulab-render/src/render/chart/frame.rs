//! The drawing frame shared by every chart: an SVG string backend, fonts, error mapping.

use super::palette::FG;
use crate::render::RenderError;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Width of every chart's coordinate system (the SVG scales to the page width).
pub(crate) const WIDTH: u32 = 720;

/// Font size passed to plotters (it writes `size / 1.24` px into the SVG: ≈ 12 px).
pub(crate) const FONT: f64 = 15.0;

/// The smallest text (≈ 11.3 px), at least 11 px on screen (a phone scrolls a chart, `gpulab.css`).
pub(crate) const SMALL_FONT: f64 = 14.0;

/// Approximate width of one character at [`FONT`], for layout.
pub(crate) const CHAR_PX: u32 = 7;

pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Maps a plotters error into ours.
pub(crate) fn chart_err<E: std::fmt::Display>(error: E) -> RenderError {
    RenderError::Chart(error.to_string())
}

/// Runs `draw` on a fresh SVG of `size` and returns the SVG text.
pub(crate) fn with_svg(
    size: (u32, u32),
    draw: impl FnOnce(&Area<'_>) -> Result<(), RenderError>,
) -> Result<String, RenderError> {
    let mut buffer = String::new();
    {
        let root = SVGBackend::with_string(&mut buffer, size).into_drawing_area();
        draw(&root)?;
        root.present().map_err(chart_err)?;
    }
    Ok(buffer)
}

/// Text in the theme's foreground colour.
pub(crate) fn text_style(size: f64) -> TextStyle<'static> {
    colored_text(size, FG)
}

/// Text in a fixed colour (heat-map cells, failure marks).
pub(crate) fn colored_text(size: f64, color: RGBColor) -> TextStyle<'static> {
    ("sans-serif", size).into_font().color(&color)
}

/// Text anchored at the given position.
pub(crate) fn anchored(style: TextStyle<'static>, h: HPos, v: VPos) -> TextStyle<'static> {
    style.pos(Pos::new(h, v))
}

/// Shortens `text` to at most `max_chars` characters, ending with `…` when cut.
pub(super) fn fit(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let keep = max_chars.saturating_sub(1);
    let mut short: String = text.chars().take(keep).collect();
    short.push('…');
    short
}

/// Estimated pixel width of `text` at [`FONT`].
pub(crate) fn text_px(text: &str) -> u32 {
    text.chars().count() as u32 * CHAR_PX
}
