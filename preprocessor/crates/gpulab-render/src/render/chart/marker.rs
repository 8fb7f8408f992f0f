//! Per-series markers and dashes, so series stay distinguishable without colour or when they overlap.

use super::cartesian::Plot;
use super::frame::{Area, chart_err};
use crate::render::RenderError;
use plotters::prelude::*;

/// A point marker's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
}

const MARKERS: [Marker; 5] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::Cross,
];

/// A line's dash pattern: `None` solid, else (dash, gap) in pixels.
pub(crate) type Dash = Option<(u32, u32)>;

const DASHES: [Dash; 3] = [None, Some((8, 4)), Some((2, 4))];

/// The marker of the `index`-th series; with [`series_dash`] the pair repeats only after 15 series.
pub(crate) fn series_marker(index: usize) -> Marker {
    MARKERS[index % MARKERS.len()]
}

/// The dash pattern of the `index`-th series.
pub(crate) fn series_dash(index: usize) -> Dash {
    DASHES[index % DASHES.len()]
}

/// The colour a dashed series' strokes are drawn in: one bit off its own, for [`apply_dashes`] to find.
pub(crate) fn stroke_color(index: usize, color: RGBColor) -> RGBColor {
    match series_dash(index) {
        Some(_) => RGBColor(color.0, color.1, color.2 ^ 1),
        None => color,
    }
}

/// Rewrites the first `count` series' [`stroke_color`] strokes to their colour and dash pattern.
pub(crate) fn apply_dashes(svg: String, count: usize, color: impl Fn(usize) -> RGBColor) -> String {
    let hex = |c: RGBColor| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
    let mut svg = svg;
    for i in 0..count {
        if let Some((dash, gap)) = series_dash(i) {
            let own = color(i);
            svg = svg.replace(
                &format!("stroke=\"{}\"", hex(stroke_color(i, own))),
                &format!("stroke=\"{}\" stroke-dasharray=\"{dash} {gap}\"", hex(own)),
            );
        }
    }
    svg
}

impl Marker {
    /// The corners of a triangle or diamond marker around (0, 0).
    fn corners(self) -> &'static [(i32, i32)] {
        match self {
            Marker::Triangle => &[(0, -5), (4, 3), (-4, 3)],
            Marker::Diamond => &[(0, -5), (4, 0), (0, 5), (-4, 0)],
            _ => &[],
        }
    }

    /// Draws the marker at each data point of `plot`, moved by `shift` pixels.
    pub(crate) fn draw_on(
        self,
        plot: &mut Plot<'_, '_>,
        points: &[(f64, f64)],
        color: RGBColor,
        shift: (i32, i32),
    ) -> Result<(), RenderError> {
        let filled = color.filled();
        let stroke = color.stroke_width(2);
        let s = |(x, y): (i32, i32)| (x + shift.0, y + shift.1);
        let at = points.iter().map(|p| EmptyElement::at(*p));
        match self {
            Marker::Circle => plot.draw_series(at.map(|a| a + Circle::new(s((0, 0)), 3, filled))),
            Marker::Square => {
                plot.draw_series(at.map(|a| a + Rectangle::new([s((-3, -3)), s((3, 3))], filled)))
            }
            Marker::Triangle | Marker::Diamond => {
                let corners: Vec<(i32, i32)> = self.corners().iter().map(|c| s(*c)).collect();
                plot.draw_series(at.map(|a| a + Polygon::new(corners.clone(), filled)))
            }
            Marker::Cross => plot.draw_series(at.map(|a| {
                a + PathElement::new(vec![s((-4, -4)), s((4, 4))], stroke)
                    + PathElement::new(vec![s((-4, 4)), s((4, -4))], stroke)
            })),
        }
        .map(|_| ())
        .map_err(chart_err)
    }

    /// Draws the marker centred on the pixel `at` of `area` (a legend swatch).
    pub(crate) fn draw_at(
        self,
        area: &Area<'_>,
        at: (i32, i32),
        color: RGBColor,
    ) -> Result<(), RenderError> {
        let shift = |(x, y): (i32, i32)| (at.0 + x, at.1 + y);
        let polygon = |points: &[(i32, i32)]| {
            Polygon::new(
                points.iter().copied().map(shift).collect::<Vec<_>>(),
                color.filled(),
            )
        };
        match self {
            Marker::Circle => area.draw(&Circle::new(at, 3, color.filled())),
            Marker::Square => area.draw(&Rectangle::new(
                [shift((-3, -3)), shift((3, 3))],
                color.filled(),
            )),
            Marker::Triangle | Marker::Diamond => area.draw(&polygon(self.corners())),
            Marker::Cross => {
                let stroke = color.stroke_width(2);
                area.draw(&PathElement::new(
                    vec![shift((-4, -4)), shift((4, 4))],
                    stroke,
                ))
                .and_then(|_| {
                    area.draw(&PathElement::new(
                        vec![shift((-4, 4)), shift((4, -4))],
                        stroke,
                    ))
                })
            }
        }
        .map_err(chart_err)
    }
}

#[cfg(test)]
#[path = "marker_tests.rs"]
mod tests;
