//! Chart colours: a theme-neutral foreground sentinel, a series palette, a heat-map scale.
//!
//! Text, axes and grid are drawn in [`FG`], a sentinel that [`super::svg`] rewrites to
//! `currentColor`, so they follow the mdBook theme. Series use Okabe–Ito hues of middle
//! lightness, legible on light (light, rust) and dark (coal, navy, ayu) backgrounds.

use plotters::style::RGBColor;

/// Drawn for text, axes and grid; replaced by `currentColor` after drawing.
pub const FG: RGBColor = RGBColor(0x01, 0x02, 0x03);
/// [`FG`] as plotters writes it into the SVG.
pub const FG_HEX: &str = "#010203";

/// Okabe–Ito colours without black and the pale yellow, ordered for contrast between neighbours.
pub const SERIES: [RGBColor; 6] = [
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0x33, 0x8F, 0xD1), // blue, lightened to read on dark themes
];

/// The colour of the `index`-th series (cycling).
pub fn series_color(index: usize) -> RGBColor {
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
pub fn heat_color(t: f64) -> RGBColor {
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
pub fn text_on(background: RGBColor) -> RGBColor {
    let RGBColor(r, g, b) = background;
    let luminance = (0.2126 * r as f64 + 0.7152 * g as f64 + 0.0722 * b as f64) / 255.0;
    if luminance > 0.45 {
        RGBColor(0x1A, 0x1A, 0x1A)
    } else {
        RGBColor(0xF2, 0xF2, 0xF2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_scale_ends_and_text_contrast() {
        assert_eq!(heat_color(0.0), RGBColor(0x44, 0x01, 0x54));
        assert_eq!(heat_color(1.0), RGBColor(0xFD, 0xE7, 0x25));
        assert_eq!(heat_color(f64::NAN), heat_color(0.0));
        assert_eq!(text_on(heat_color(0.0)), RGBColor(0xF2, 0xF2, 0xF2));
        assert_eq!(text_on(heat_color(1.0)), RGBColor(0x1A, 0x1A, 0x1A));
        assert_eq!(series_color(6), series_color(0));
    }
}
