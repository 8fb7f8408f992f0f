//! SVG charts drawn with plotters from [`ChartData`] (a device's cells: [`SweepData`]), inlined.

mod axis;
mod bar;
mod cartesian;
mod categories;
mod frame;
mod heatmap;
mod legend;
mod line;
mod marker;
pub(crate) mod palette;
mod svg;
mod sweep;
mod ticked;
mod tips;

pub use sweep::SweepData;
pub use tips::TIPS_SCRIPT;

use super::RenderError;
use crate::directive::ChartKind;
use crate::value::Unit;

/// The horizontal axis: numbers (optionally log-scaled) or named categories.
#[derive(Debug, Clone, PartialEq)]
pub enum XScale {
    Numeric {
        log: bool,
    },
    /// Category labels; a point's `x` is the index of its category.
    Categorical(Vec<String>),
}

/// The horizontal axis (line, bar) or the column axis (heat map).
#[derive(Debug, Clone, PartialEq)]
pub struct XAxis {
    pub label: String,
    pub scale: XScale,
}

/// The measured quantity: the y axis of a line or bar chart, the colour of a heat map.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueAxis {
    /// `time (ms)`
    pub label: String,
    pub unit: Unit,
    pub log: bool,
    pub better: Option<crate::value::Better>,
}

/// What was recorded at one x position of a series.
#[derive(Debug, Clone, PartialEq)]
pub enum PointValue {
    Value(f64),
    /// Failed (compile, launch, verification): never drawn as a value.
    Failed,
    /// Not run, e.g. over the time budget: not a failure, not drawn.
    Skipped,
    /// Nothing recorded (or no value for this metric).
    Missing,
}

impl PointValue {
    /// The value, if there is one to draw.
    pub(crate) fn number(&self) -> Option<f64> {
        match self {
            PointValue::Value(v) => Some(*v),
            _ => None,
        }
    }
}

/// One point: `x` is the numeric value, or the category index on a categorical axis.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartPoint {
    pub x: f64,
    pub value: PointValue,
    /// The hover text of a drawn value (samples, spread, quality marks); `None`: no hover target.
    pub tip: Option<Tip>,
}

/// A point's hover text, and whether it carries a quality concern (then ringed).
#[derive(Debug, Clone, PartialEq)]
pub struct Tip {
    pub text: String,
    pub flagged: bool,
}

/// A named series (a line, a bar colour, or a heat-map row).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<ChartPoint>,
}

/// A chart's data, independent of how it is drawn.
pub trait ChartData {
    fn x_axis(&self) -> XAxis;
    fn value_axis(&self) -> ValueAxis;
    /// One series per line / bar colour / heat-map row, in display order.
    fn series(&self) -> Vec<Series>;
    /// What the series are (`variant`, or a heat map's row field `BLOCK`).
    fn series_label(&self) -> String;
}

/// A drawn chart: the inline SVG and notes on what is not drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub svg: String,
    /// "1 failed and 2 missing points are not drawn."
    pub notes: Vec<String>,
}

/// Draws `data` as `kind`; `Ok(None)` when there is no value to draw.
pub(crate) fn draw(
    kind: ChartKind,
    data: &dyn ChartData,
    label: &str,
) -> Result<Option<Chart>, RenderError> {
    let series = data.series();
    if !series
        .iter()
        .flat_map(|s| &s.points)
        .any(|p| p.value.number().is_some())
    {
        return Ok(None);
    }
    let x = data.x_axis();
    let y = data.value_axis();
    let mut notes = omitted_notes(&series, &y, kind);
    let points = series.iter().flat_map(|s| &s.points);
    if points.filter_map(|p| p.tip.as_ref()).any(|t| t.flagged) {
        notes.push(RINGED.to_string());
    }
    let note = notes.first().map(String::as_str);
    let raw = match kind {
        ChartKind::Line => line::draw(&x, &y, &series, note)?,
        ChartKind::Bar => bar::draw(&x, &y, &series, note)?,
        ChartKind::Heatmap => heatmap::draw(&x, &y, &series, &data.series_label(), note)?,
    };
    let Some(raw) = raw else { return Ok(None) };
    Ok(Some(Chart {
        svg: svg::finish(&raw, label)?,
        notes,
    }))
}

/// What the rings around some points mean, in the legend strip or under the chart.
const RINGED: &str = "Ringed: a number with a quality mark (its tip says which; the line under the results explains them).";

/// Which points are not drawn as values, and how they show instead.
fn omitted_notes(series: &[Series], y: &ValueAxis, kind: ChartKind) -> Vec<String> {
    let points = series.iter().flat_map(|s| &s.points);
    let count = |v: PointValue| points.clone().filter(|p| p.value == v).count();
    let (failed, skipped) = (count(PointValue::Failed), count(PointValue::Skipped));
    let missing = count(PointValue::Missing);
    let log = y.log && kind != ChartKind::Heatmap;
    let non_positive = points.filter(|p| log && p.value.number().is_some_and(|v| v <= 0.0));
    let non_positive = non_positive.count();
    let plural =
        |n: usize, what: &str| format!("{n} {what} point{}", if n == 1 { "" } else { "s" });
    let (failed_shown, missing_shown, skipped_shown) = match kind {
        ChartKind::Line => ("not drawn", "not drawn", "not drawn"),
        ChartKind::Bar => ("marked ✗", "not drawn", "not drawn"),
        ChartKind::Heatmap => ("marked ✗", "shown as —", "shown as “skipped”"),
    };
    let mut parts = Vec::new();
    if failed > 0 {
        parts.push(format!("{} ({failed_shown})", plural(failed, "failed")));
    }
    if skipped > 0 {
        parts.push(format!("{} ({skipped_shown})", plural(skipped, "skipped")));
    }
    if missing > 0 {
        parts.push(format!("{} ({missing_shown})", plural(missing, "missing")));
    }
    if non_positive > 0 {
        parts.push(format!(
            "{} (not drawn: ≤ 0 on a log axis)",
            plural(non_positive, "non-positive")
        ));
    }
    if parts.is_empty() {
        return Vec::new();
    }
    vec![format!("{}.", join_and(&parts))]
}

fn join_and(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests;
