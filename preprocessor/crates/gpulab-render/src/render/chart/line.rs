//! Line charts: one polyline per run of consecutive values; failed or missing points leave gaps.

use super::axis::{self, AxisPlan};
use super::cartesian::{self, Axes};
use super::frame::{WIDTH, chart_err, with_svg};
use super::legend::{self, Swatch};
use super::marker::{apply_dashes, series_marker, stroke_color};
use super::palette::series_color;
use super::tips::{self, Spot};
use super::{ChartPoint, Series, ValueAxis, XAxis, XScale};
use crate::render::RenderError;
use crate::render::format::{binary_multiple, format_tick};
use crate::value::Unit;
use plotters::prelude::*;

const PLOT_HEIGHT: u32 = 340;

/// Draws a line chart; `None` when no point can be placed.
pub(crate) fn draw(
    x: &XAxis,
    y: &ValueAxis,
    series: &[Series],
    note: Option<&str>,
) -> Result<Option<String>, RenderError> {
    let xs: Vec<f64> = series.iter().flat_map(|s| &s.points).map(|p| p.x).collect();
    let binary = axis::all_powers_of_two(&xs);
    let (x_plan, labels) = match &x.scale {
        XScale::Numeric { log } => (axis::numeric(&xs, *log, false, true), Vec::new()),
        XScale::Categorical(labels) => (Some(axis::categorical(labels.len())), labels.clone()),
    };
    let values: Vec<f64> = series
        .iter()
        .flat_map(|s| &s.points)
        .filter_map(|p| p.value.number())
        .collect();
    let (Some(mut x_plan), Some(y_plan)) = (x_plan, axis::numeric(&values, y.log, true, false))
    else {
        return Ok(None);
    };
    let runs: Vec<Vec<Vec<(f64, f64)>>> = series
        .iter()
        .map(|s| runs_of(s, &x_plan, &y_plan))
        .collect();
    if runs.iter().flatten().all(Vec::is_empty) {
        return Ok(None);
    }

    let entries = legend::entries(series);
    let legend_height = legend::height(&entries, note);
    let slot_chars = cartesian::chars_per_slot(labels.len());
    let log = matches!(x.scale, XScale::Numeric { log: true });
    let to_data = |v: f64| if log { 10f64.powf(v) } else { v };
    let x_fmt = |v: &f64| match &x.scale {
        XScale::Categorical(_) => cartesian::category_label(&labels, *v, slot_chars),
        XScale::Numeric { .. } => {
            let value = to_data(*v);
            binary
                .then(|| binary_multiple(value))
                .flatten()
                .unwrap_or_else(|| format_tick(value, Unit::Count))
        }
    };
    let y_fmt = |v: &f64| format_tick(y_plan.to_data(*v), y.unit);
    let y_label_chars = cartesian::widest(&y_plan, &y_fmt);
    if matches!(x.scale, XScale::Numeric { .. }) {
        axis::thin_labels(&mut x_plan, &x_fmt, cartesian::plot_width(y_label_chars));
    }
    let mut spots = Vec::new();
    let svg = with_svg((WIDTH, legend_height + PLOT_HEIGHT), |root| {
        let (top, bottom) = root.split_vertically(legend_height);
        legend::draw(&top, &entries, Swatch::Line, note)?;
        let axes = Axes {
            x: &x_plan,
            y: &y_plan,
            x_desc: &x.label,
            y_desc: &y.label,
            x_fmt: &x_fmt,
            y_fmt: &y_fmt,
            x_grid: matches!(x.scale, XScale::Numeric { .. }),
            y_grid: true,
            y_label_chars,
        };
        let mut plot = cartesian::build(&bottom, &axes)?;
        for (i, series_runs) in runs.iter().enumerate() {
            let color = series_color(i);
            let marker = series_marker(i);
            for run in series_runs {
                if run.len() > 1 {
                    let stroke = stroke_color(i, color).stroke_width(2);
                    plot.draw_series(LineSeries::new(run.iter().copied(), stroke))
                        .map_err(chart_err)?;
                }
                marker.draw_on(&mut plot, run, color, (0, 0))?;
            }
        }
        for p in series.iter().flat_map(|s| &s.points) {
            if let (Some(at), Some(tip)) = (drawn(p, &x_plan, &y_plan), &p.tip) {
                spots.push(Spot::new(plot.backend_coord(&at), tip));
            }
        }
        Ok(())
    })?;
    let svg = apply_dashes(svg, series.len(), series_color);
    Ok(Some(tips::append(svg, &spots)))
}

/// Where a point with a value is drawn, if it can be placed.
fn drawn(p: &ChartPoint, x: &AxisPlan, y: &AxisPlan) -> Option<(f64, f64)> {
    p.value
        .number()
        .and_then(|v| Some((x.to_draw(p.x)?, y.to_draw(v)?)))
}

/// Splits a series into runs of drawable points (in drawing space), breaking at gaps.
fn runs_of(series: &Series, x: &AxisPlan, y: &AxisPlan) -> Vec<Vec<(f64, f64)>> {
    let mut points: Vec<(f64, Option<(f64, f64)>)> = series
        .points
        .iter()
        .map(|p| (p.x, drawn(p, x, y)))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for (_, drawn) in points {
        let current_has_points = runs.last().is_some_and(|r| !r.is_empty());
        match (drawn, runs.last_mut()) {
            (Some(p), Some(run)) => run.push(p),
            (None, _) if current_has_points => runs.push(Vec::new()),
            _ => {}
        }
    }
    runs.retain(|r| !r.is_empty());
    runs
}

#[cfg(test)]
#[path = "line_tests.rs"]
mod tests;
