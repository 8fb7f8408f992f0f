//! A cartesian plot area with our axis plans, theme-coloured axes, grid and labels.

use super::axis::AxisPlan;
use super::frame::{Area, FONT, chart_err, text_style};
use super::palette::FG;
use super::ticked::Ticked;
use crate::render::RenderError;
use plotters::prelude::*;

/// The chart context every cartesian chart draws into.
pub(crate) type Plot<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Ticked, Ticked>>;

/// Both axes of a plot, with tick label formatters (given drawing-space values).
pub(super) struct Axes<'f> {
    pub x: &'f AxisPlan,
    pub y: &'f AxisPlan,
    pub x_desc: &'f str,
    pub y_desc: &'f str,
    pub x_fmt: &'f dyn Fn(&f64) -> String,
    pub y_fmt: &'f dyn Fn(&f64) -> String,
    /// Vertical grid lines at x ticks (off for categories).
    pub x_grid: bool,
    /// Horizontal grid lines at y ticks (off for heat-map rows).
    pub y_grid: bool,
    /// Reserve room for y labels this many characters wide.
    pub y_label_chars: usize,
}

/// Builds the plot on `area` and draws its mesh (axes, grid, tick labels, axis descriptions).
pub(super) fn build<'a, 'b>(
    area: &'a Area<'b>,
    axes: &Axes<'_>,
) -> Result<Plot<'a, 'b>, RenderError> {
    let y_area = y_area(axes.y_label_chars);
    let mut plot = ChartBuilder::on(area)
        .margin_top(8)
        .margin_right(24)
        .margin_left(4)
        .x_label_area_size(46)
        .y_label_area_size(y_area)
        .build_cartesian_2d(Ticked::new(axes.x), Ticked::new(axes.y))
        .map_err(chart_err)?;
    let mut mesh = plot.configure_mesh();
    mesh.x_label_formatter(axes.x_fmt)
        .y_label_formatter(axes.y_fmt)
        .x_desc(axes.x_desc)
        .y_desc(axes.y_desc)
        .axis_style(ShapeStyle::from(&FG).stroke_width(1))
        .bold_line_style(FG.mix(0.16))
        .light_line_style(FG.mix(0.07))
        .label_style(text_style(FONT))
        .axis_desc_style(text_style(FONT));
    if !axes.x_grid {
        mesh.disable_x_mesh();
    }
    if !axes.y_grid {
        mesh.disable_y_mesh();
    }
    mesh.draw().map_err(chart_err)?;
    Ok(plot)
}

/// Width of the y label area for labels this many characters wide.
fn y_area(label_chars: usize) -> u32 {
    (label_chars as u32 * super::frame::CHAR_PX + 34).clamp(48, 220)
}

/// Width in pixels of the plot (x axis) beside y labels this many characters wide.
pub(crate) fn plot_width(y_label_chars: usize) -> f64 {
    (super::frame::WIDTH - 28 - y_area(y_label_chars)) as f64
}

/// Labels for a categorical axis: the label at an integral index, nothing between.
pub(crate) fn category_label(labels: &[String], at: f64, max_chars: usize) -> String {
    let index = at.round();
    if (at - index).abs() > 1e-6 || index < 0.0 {
        return String::new();
    }
    labels
        .get(index as usize)
        .map(|l| super::frame::fit(l, max_chars))
        .unwrap_or_default()
}

/// How many characters a category label may have in a slot of the plot's width.
pub(crate) fn chars_per_slot(count: usize) -> usize {
    let slot = (super::frame::WIDTH - 140) / count.max(1) as u32;
    (slot / super::frame::CHAR_PX).max(3) as usize
}

/// Widest of the y tick labels, in characters.
pub(crate) fn widest(plan: &AxisPlan, fmt: &dyn Fn(&f64) -> String) -> usize {
    plan.ticks
        .iter()
        .map(|t| fmt(t).chars().count())
        .max()
        .unwrap_or(1)
}
