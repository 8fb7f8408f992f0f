//! Heat maps: x categories × series rows, coloured and labelled by value, the best cell outlined.

use super::axis;
use super::cartesian::{self, Axes};
use super::categories::categorize;
use super::frame::{SMALL_FONT, WIDTH, anchored, chart_err, colored_text, with_svg};
use super::legend::{self, Swatch};
use super::palette::{FG, heat_color, text_on};
use super::tips::{self, Area};
use super::{ChartPoint, PointValue, Series, ValueAxis, XAxis};
use crate::render::RenderError;
use crate::render::format::format_value;
use crate::value::Better;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

const ROW_PX: u32 = 34;

/// Maps values to [0, 1] "goodness" (1 = best, or highest), on a log scale over two decades.
struct Scale {
    low: f64,
    high: f64,
    log: bool,
    better: Option<Better>,
}

impl Scale {
    fn new(values: &[f64], better: Option<Better>) -> Scale {
        let low = values.iter().copied().fold(f64::INFINITY, f64::min);
        let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let log = low > 0.0 && high / low >= 100.0;
        Scale {
            low,
            high,
            log,
            better,
        }
    }

    fn goodness(&self, v: f64) -> f64 {
        let f = |x: f64| if self.log { x.log10() } else { x };
        let span = f(self.high) - f(self.low);
        let t = match span > 0.0 {
            true => (f(v) - f(self.low)) / span,
            false => 1.0,
        };
        match self.better {
            Some(Better::Lower) => 1.0 - t,
            _ => t,
        }
    }

    /// The values at the dark and the bright end of the colours.
    fn ends(&self) -> (f64, f64) {
        match self.better {
            Some(Better::Lower) => (self.high, self.low),
            _ => (self.low, self.high),
        }
    }

    /// The best value (outlined), for a metric with a direction.
    fn best(&self) -> Option<f64> {
        self.better.map(|_| self.ends().1)
    }
}

/// Draws a heat map; `None` when there is no value.
pub(crate) fn draw(
    x: &XAxis,
    value: &ValueAxis,
    series: &[Series],
    row_label: &str,
    note: Option<&str>,
) -> Result<Option<String>, RenderError> {
    let (labels, series) = categorize(x, series);
    let values: Vec<f64> = series
        .iter()
        .flat_map(|s| &s.points)
        .filter_map(|p| p.value.number())
        .collect();
    if values.is_empty() || series.is_empty() {
        return Ok(None);
    }
    let scale = Scale::new(&values, value.better);
    let x_plan = axis::categorical(labels.len());
    let rows = series.len();
    let y_plan = axis::categorical(rows);
    let row_names: Vec<String> = series.iter().rev().map(|s| s.name.clone()).collect();

    let (dark, bright) = scale.ends();
    let (dark, bright) = (with_unit(dark, value), with_unit(bright, value));
    let (dark, bright) = match scale.better {
        Some(_) => (format!("worst {dark}"), format!("best {bright} (outlined)")),
        None => (format!("lowest {dark}"), format!("highest {bright}")),
    };
    let entries = vec![(dark, heat_color(0.0)), (bright, heat_color(1.0))];
    let legend_height = legend::height(&entries, note);
    let slot_chars = cartesian::chars_per_slot(labels.len());
    let x_fmt = |v: &f64| cartesian::category_label(&labels, *v, slot_chars);
    let y_fmt = |v: &f64| cartesian::category_label(&row_names, *v, 24);
    let height = legend_height + rows as u32 * ROW_PX + 70;

    let mut areas = Vec::new();
    let svg = with_svg((WIDTH, height), |root| {
        let (top, bottom) = root.split_vertically(legend_height);
        legend::draw(&top, &entries, Swatch::Box, note)?;
        let axes = Axes {
            x: &x_plan,
            y: &y_plan,
            x_desc: &x.label,
            y_desc: row_label,
            x_fmt: &x_fmt,
            y_fmt: &y_fmt,
            x_grid: false,
            y_grid: false,
            y_label_chars: cartesian::widest(&y_plan, &y_fmt),
        };
        let mut plot = cartesian::build(&bottom, &axes)?;
        for (row, s) in series.iter().enumerate() {
            let y = (rows - 1 - row) as f64;
            for point in &s.points {
                if let Some(area) = draw_cell(&mut plot, &scale, value, point, y)? {
                    areas.push(area);
                }
            }
        }
        Ok(())
    })?;
    Ok(Some(tips::append_areas(svg, &areas)))
}

/// Draws one cell; returns its hover target when it shows a value with a tip.
fn draw_cell(
    plot: &mut cartesian::Plot<'_, '_>,
    scale: &Scale,
    axis: &ValueAxis,
    point: &ChartPoint,
    y: f64,
) -> Result<Option<Area>, RenderError> {
    let x = point.x;
    let corners = [(x - 0.48, y - 0.46), (x + 0.48, y + 0.46)];
    let (text, color) = match &point.value {
        PointValue::Value(v) => {
            let fill = heat_color(scale.goodness(*v));
            plot.draw_series(std::iter::once(Rectangle::new(corners, fill.filled())))
                .map_err(chart_err)?;
            if Some(*v) == scale.best() {
                // A closed path: the SVG backend gives rectangles no stroke width.
                let (a, b) = (corners[0], corners[1]);
                let ring = vec![a, (b.0, a.1), b, (a.0, b.1), a];
                let outline = PathElement::new(ring, ShapeStyle::from(&FG).stroke_width(3));
                plot.draw_series(std::iter::once(outline))
                    .map_err(chart_err)?;
            }
            (format_value(*v, axis.unit), text_on(fill))
        }
        PointValue::Failed => ("✗ failed".to_string(), FG),
        PointValue::Skipped => ("skipped".to_string(), FG),
        PointValue::Missing => ("—".to_string(), FG),
    };
    let style = anchored(colored_text(SMALL_FONT, color), HPos::Center, VPos::Center);
    plot.draw_series(std::iter::once(Text::new(text, (x, y), style)))
        .map_err(chart_err)?;
    let area = match (&point.value, &point.tip) {
        (PointValue::Value(_), Some(tip)) => {
            let (a, b) = (
                plot.backend_coord(&(x - 0.48, y + 0.46)),
                plot.backend_coord(&(x + 0.48, y - 0.46)),
            );
            Some(Area {
                x: a.0.min(b.0),
                y: a.1.min(b.1),
                width: (b.0 - a.0).abs(),
                height: (b.1 - a.1).abs(),
                tip: tip.clone(),
            })
        }
        _ => None,
    };
    Ok(area)
}

fn with_unit(v: f64, axis: &ValueAxis) -> String {
    let text = format_value(v, axis.unit);
    match axis.unit.symbol() {
        "" | "%" | "×" => text,
        unit => format!("{text} {unit}"),
    }
}

#[cfg(test)]
#[path = "heatmap_tests.rs"]
mod tests;
