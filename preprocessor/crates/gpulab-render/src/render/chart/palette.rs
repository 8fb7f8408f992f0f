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

    /// WCAG's 3:1 for graphics against the background of each mdBook theme (light, rust, coal,
    /// navy, ayu), so a series is seen in every theme.
    #[test]
    fn every_series_colour_stands_out_on_every_theme() {
        let luminance = |RGBColor(r, g, b): RGBColor| {
            let lin = |c: u8| {
                let c = c as f64 / 255.0;
                if c <= 0.03928 {
                    c / 12.92
                } else {
                    ((c + 0.055) / 1.055).powf(2.4)
                }
            };
            0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
        };
        let themes = [
            (0xFF, 0xFF, 0xFF),
            (0xE1, 0xE1, 0xDB),
            (0x14, 0x16, 0x17),
            (0x16, 0x19, 0x23),
            (0x0F, 0x14, 0x19),
        ];
        for colour in SERIES {
            for (r, g, b) in themes {
                let (fg, bg) = (luminance(colour), luminance(RGBColor(r, g, b)));
                let ratio = (fg.max(bg) + 0.05) / (fg.min(bg) + 0.05);
                assert!(
                    ratio >= 3.0,
                    "{colour:?} on #{r:02x}{g:02x}{b:02x}: {ratio:.2}"
                );
            }
        }
    }
}
