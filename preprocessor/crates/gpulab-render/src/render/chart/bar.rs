//! Grouped bar charts: one group per x category, one bar per series; failed bars marked ✗.

use super::axis;
use super::cartesian::{self, Axes};
use super::categories::categorize;
use super::frame::{FONT, WIDTH, anchored, chart_err, colored_text, with_svg};
use super::legend::{self, Swatch};
use super::marker::series_marker;
use super::palette::{FG, series_color, text_on};
use super::tips::{self, Spot};
use super::{PointValue, Series, ValueAxis, XAxis};
use crate::render::RenderError;
use crate::render::format::format_tick;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

const PLOT_HEIGHT: u32 = 340;
/// Share of a category slot the bars of a group fill.
const GROUP: f64 = 0.8;

/// Draws a grouped bar chart; `None` when there is no value.
pub(crate) fn draw(
    x: &XAxis,
    y: &ValueAxis,
    series: &[Series],
    note: Option<&str>,
) -> Result<Option<String>, RenderError> {
    let (labels, series) = categorize(x, series);
    let values: Vec<f64> = series
        .iter()
        .flat_map(|s| &s.points)
        .filter_map(|p| p.value.number())
        .collect();
    let Some(y_plan) = axis::numeric(&values, y.log, true, false) else {
        return Ok(None);
    };
    let x_plan = axis::categorical(labels.len());
    let base = match y_plan.log {
        true => y_plan.range.start,
        false => 0f64.clamp(y_plan.range.start, y_plan.range.end),
    };
    let entries = legend::entries(&series);
    let legend_height = legend::height(&entries, note);
    let slot_chars = cartesian::chars_per_slot(labels.len());
    let x_fmt = |v: &f64| cartesian::category_label(&labels, *v, slot_chars);
    let y_fmt = |v: &f64| format_tick(y_plan.to_data(*v), y.unit);
    let width = GROUP / series.len().max(1) as f64;

    let mut spots = Vec::new();
    let svg = with_svg((WIDTH, legend_height + PLOT_HEIGHT), |root| {
        let (top, bottom) = root.split_vertically(legend_height);
        legend::draw(&top, &entries, Swatch::Bar, note)?;
        let axes = Axes {
            x: &x_plan,
            y: &y_plan,
            x_desc: &x.label,
            y_desc: &y.label,
            x_fmt: &x_fmt,
            y_fmt: &y_fmt,
            x_grid: false,
            y_grid: true,
            y_label_chars: cartesian::widest(&y_plan, &y_fmt),
        };
        let mut plot = cartesian::build(&bottom, &axes)?;
        for (i, s) in series.iter().enumerate() {
            let color = series_color(i);
            for point in &s.points {
                let left = point.x - GROUP / 2.0 + i as f64 * width;
                let (l, r) = (left + width * 0.08, left + width * 0.92);
                match point.value {
                    PointValue::Value(v) => {
                        if let Some(top) = y_plan.to_draw(v) {
                            let rect = Rectangle::new([(l, base), (r, top)], color.filled());
                            plot.draw_series(std::iter::once(rect)).map_err(chart_err)?;
                            // The series' marker inside the bar's top, where the bar is tall enough.
                            let middle = (l + r) / 2.0;
                            let height = plot.backend_coord(&(middle, base)).1
                                - plot.backend_coord(&(middle, top)).1;
                            if height >= 14 {
                                series_marker(i).draw_on(
                                    &mut plot,
                                    &[(middle, top)],
                                    text_on(color),
                                    (0, 8),
                                )?;
                            }
                            if let Some(tip) = &point.tip {
                                spots.push(Spot::new(plot.backend_coord(&(middle, top)), tip));
                            }
                        }
                    }
                    PointValue::Failed => {
                        // In the text colour, not the series colour: readable on every theme.
                        let style = anchored(colored_text(FONT, FG), HPos::Center, VPos::Bottom);
                        let mark = Text::new("✗".to_string(), ((l + r) / 2.0, base), style);
                        plot.draw_series(std::iter::once(mark)).map_err(chart_err)?;
                    }
                    PointValue::Skipped | PointValue::Missing => {}
                }
            }
        }
        Ok(())
    })?;
    Ok(Some(tips::append(svg, &spots)))
}
