//! Chart colours: a theme-neutral foreground sentinel, a series palette, a heat-map scale.
//!
//! Text, axes and grid are drawn in [`FG`], a sentinel that [`super::svg`] rewrites to
//! `currentColor`, so they follow the mdBook theme. Series use ten categorical hues of middle
//! lightness, legible on light (light, rust) and dark (coal, navy, ayu) backgrounds.

use plotters::style::RGBColor;

/// Drawn for text, axes and grid; replaced by `currentColor` after drawing.
pub(crate) const FG: RGBColor = RGBColor(0x01, 0x02, 0x03);
/// [`FG`] as plotters writes it into the SVG.
pub(crate) const FG_HEX: &str = "#010203";

/// Ten categorical colours of middle lightness (Tableau 10), legible on light and dark themes;
/// charts in the handbook have up to nine series, so none repeats a colour.
pub(crate) const SERIES: [RGBColor; 10] = [
    RGBColor(0x4E, 0x79, 0xA7), // blue
    RGBColor(0xF2, 0x8E, 0x2B), // orange
    RGBColor(0xE1, 0x57, 0x59), // red
    RGBColor(0x76, 0xB7, 0xB2), // teal
    RGBColor(0x59, 0xA1, 0x4F), // green
    RGBColor(0xED, 0xC9, 0x48), // yellow
    RGBColor(0xB0, 0x7A, 0xA1), // purple
    RGBColor(0xFF, 0x9D, 0xA7), // pink
    RGBColor(0x9C, 0x75, 0x5F), // brown
    RGBColor(0xBA, 0xB0, 0xAC), // grey
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
mod tests {
    use super::*;

    #[test]
    fn heat_scale_ends_and_text_contrast() {
        assert_eq!(heat_color(0.0), RGBColor(0x44, 0x01, 0x54));
        assert_eq!(heat_color(1.0), RGBColor(0xFD, 0xE7, 0x25));
        assert_eq!(heat_color(f64::NAN), heat_color(0.0));
        assert_eq!(text_on(heat_color(0.0)), RGBColor(0xF2, 0xF2, 0xF2));
        assert_eq!(text_on(heat_color(1.0)), RGBColor(0x1A, 0x1A, 0x1A));
        assert_eq!(
            series_color(SERIES.len()),
            series_color(0),
            "the palette cycles"
        );
    }

    /// Bug (fixed): with six colours, the seventh and eighth series of the SGEMM chart reused the
    /// first two, so "warp tiling" and "naive" were drawn in the same colour.
    #[test]
    fn series_colours_do_not_repeat_within_ten() {
        let colours: Vec<RGBColor> = (0..10).map(series_color).collect();
        for (i, a) in colours.iter().enumerate() {
            assert!(
                !colours[i + 1..].contains(a),
                "series {i} shares its colour"
            );
        }
    }
}
