//! Chart colours: the foreground sentinel [`FG`], a series palette for every theme, a heat-map scale.

use plotters::style::RGBColor;

/// Drawn for text, axes and grid; replaced by `currentColor` after drawing.
pub(crate) const FG: RGBColor = RGBColor(0x01, 0x02, 0x03);
/// [`FG`] as plotters writes it into the SVG.
pub(crate) const FG_HEX: &str = "#010203";

/// Okabe and Ito's colours (for colour-vision deficiencies) at a luminance of 0.15–0.19; six, so that
/// with five markers no colour and marker repeat within 30 series.
pub(crate) const SERIES: [RGBColor; 6] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xC4, 0x57, 0x00), // vermillion
    RGBColor(0x00, 0x88, 0x63), // bluish green
    RGBColor(0xBD, 0x50, 0x8C), // reddish purple
    RGBColor(0x9E, 0x6E, 0x00), // orange, darkened
    RGBColor(0x77, 0x77, 0x77), // grey
];

/// The colour of the `index`-th series (cycling).
pub(crate) fn series_color(index: usize) -> RGBColor {
    SERIES[index % SERIES.len()]
}

/// Viridis anchors, dark (worst) to bright (best).
const HEAT: [(u8, u8, u8); 5] = [
    (0x44, 0x01, 0x54),
    (0x3B, 0x52, 0x8B),
    (0x21, 0x91, 0x8C),
    (0x5E, 0xC9, 0x62),
    (0xFD, 0xE7, 0x25),
];

/// The heat-map colour for `t` in [0, 1] (clamped): 0 worst, 1 best.
pub(crate) fn heat_color(t: f64) -> RGBColor {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let scaled = t * (HEAT.len() - 1) as f64;
    let i = (scaled.floor() as usize).min(HEAT.len() - 2);
    let f = scaled - i as f64;
    let lerp = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (a, b) = (HEAT[i], HEAT[i + 1]);
    RGBColor(lerp(a.0, b.0), lerp(a.1, b.1), lerp(a.2, b.2))
}

/// Dark or light text, whichever reads on `background`.
pub(crate) fn text_on(background: RGBColor) -> RGBColor {
    let RGBColor(r, g, b) = background;
    let luminance = (0.2126 * r as f64 + 0.7152 * g as f64 + 0.0722 * b as f64) / 255.0;
    if luminance > 0.45 {
        RGBColor(0x1A, 0x1A, 0x1A)
    } else {
        RGBColor(0xF2, 0xF2, 0xF2)
    }
}

#[cfg(test)]
#[path = "palette_tests.rs"]
mod tests;
