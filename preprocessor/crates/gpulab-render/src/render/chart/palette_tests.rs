//! Tests of `palette`.

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
