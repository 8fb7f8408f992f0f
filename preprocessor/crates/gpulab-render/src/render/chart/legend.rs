//! The legend strip above a chart: one swatch and name per series, wrapped, then a note line.

use super::frame::{Area, FONT, SMALL_FONT, WIDTH, anchored, chart_err, text_px, text_style};
use super::marker::{series_marker, stroke_color};
use super::palette::{series_color, text_on};
use crate::render::RenderError;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// How a legend entry's swatch looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Swatch {
    /// A short thick stroke (line charts).
    Line,
    /// A filled square with the series' marker in it (bars).
    Bar,
    /// A filled square (heat-map colours).
    Box,
}

const ROW: u32 = 20;
const LEFT: u32 = 12;
const SWATCH_PX: u32 = 16;
const GAP: u32 = 22;

/// Where each entry goes: (x, row) pairs.
fn layout(names: &[String]) -> Vec<(u32, u32)> {
    let mut x = LEFT;
    let mut row = 0;
    names
        .iter()
        .map(|name| {
            let width = SWATCH_PX + 14 + text_px(name) + GAP;
            if x > LEFT && x + width > WIDTH - LEFT {
                x = LEFT;
                row += 1;
            }
            let at = (x, row);
            x += width;
            at
        })
        .collect()
}

/// Each series' legend entry: its name and colour.
pub(crate) fn entries(series: &[super::Series]) -> Vec<(String, RGBColor)> {
    let named = series.iter().enumerate();
    named
        .map(|(i, s)| (s.name.clone(), series_color(i)))
        .collect()
}

/// Height of the legend strip for these entries and an optional note.
pub(crate) fn height(entries: &[(String, RGBColor)], note: Option<&str>) -> u32 {
    let names: Vec<String> = entries.iter().map(|(n, _)| n.clone()).collect();
    let rows = layout(&names).last().map_or(0, |(_, row)| row + 1);
    (rows + u32::from(note.is_some())) * ROW + 8
}

/// Draws the legend into `area` (as tall as [`height`] says).
pub(crate) fn draw(
    area: &Area<'_>,
    entries: &[(String, RGBColor)],
    swatch: Swatch,
    note: Option<&str>,
) -> Result<(), RenderError> {
    let names: Vec<String> = entries.iter().map(|(n, _)| n.clone()).collect();
    let places = layout(&names);
    for (i, ((name, color), (x, row))) in entries.iter().zip(&places).enumerate() {
        let (x, y) = (*x as i32, (row * ROW + ROW / 2 + 4) as i32);
        match swatch {
            Swatch::Line => {
                // The series' stroke (dashed or not) with its marker in the middle.
                let line = [(x, y), (x + SWATCH_PX as i32 + 8, y)];
                let stroke = stroke_color(i, *color).stroke_width(2);
                area.draw(&PathElement::new(line, stroke))
                    .map_err(chart_err)?;
                series_marker(i).draw_at(area, (x + SWATCH_PX as i32 / 2 + 4, y), *color)?;
            }
            Swatch::Bar => {
                let square = [(x + 1, y - 7), (x + 15, y + 7)];
                area.draw(&Rectangle::new(square, color.filled()))
                    .map_err(chart_err)?;
                series_marker(i).draw_at(area, (x + 8, y), text_on(*color))?;
            }
            Swatch::Box => area
                .draw(&Rectangle::new(
                    [(x + 2, y - 6), (x + 14, y + 6)],
                    color.filled(),
                ))
                .map_err(chart_err)?,
        }
        let style = anchored(text_style(FONT), HPos::Left, VPos::Center);
        area.draw(&Text::new(
            name.clone(),
            (x + SWATCH_PX as i32 + 14, y),
            style,
        ))
        .map_err(chart_err)?;
    }
    if let Some(note) = note {
        let rows = places.last().map_or(0, |(_, row)| row + 1);
        let y = (rows * ROW + ROW / 2 + 4) as i32;
        let style = anchored(text_style(SMALL_FONT), HPos::Left, VPos::Center);
        area.draw(&Text::new(note.to_string(), (LEFT as i32, y), style))
            .map_err(chart_err)?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "legend_tests.rs"]
mod tests;
