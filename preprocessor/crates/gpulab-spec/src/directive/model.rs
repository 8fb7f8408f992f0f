//! The validated form of a `gpulab` directive: what to run, which points to show and how.

use crate::claims::Claim;
use crate::expr::Expr;
use crate::record::TimingMode;
use crate::value::{ParamValue, Unit};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Where a directive stands in the book.
#[derive(Debug, Clone, PartialEq)]
pub struct Location {
    /// Chapter path relative to the book's `src` folder (`part1/widuch.md`).
    pub chapter: PathBuf,
    /// 1-based index of the directive within its chapter (`run chapter.md#2`).
    pub index: usize,
    /// 1-based line of the opening fence.
    pub line: usize,
}

/// One swept parameter and its values, in the order written.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub name: String,
    pub values: Vec<ParamValue>,
}

/// Which devices' recordings a directive shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum DeviceSelection {
    /// The book's configured device, else the device with the newest recording.
    #[default]
    Default,
    /// Every device with a recording, side by side.
    All,
    /// One device by slug.
    Slug(String),
}

/// A table: rows by one field, columns by another, cells show a metric.
#[derive(Debug, Clone, PartialEq)]
pub struct TableSpec {
    pub rows: String,
    pub columns: String,
    pub value: String,
    pub title: Option<String>,
    /// The columns (variants, or values of the columns axis, as written) the table is about: put
    /// first, so that they are seen without scrolling sideways.
    pub key: Vec<String>,
}

impl Default for TableSpec {
    fn default() -> Self {
        TableSpec {
            rows: String::new(),
            columns: "variant".into(),
            value: crate::metrics::TIME_MS.into(),
            title: None,
            key: Vec::new(),
        }
    }
}

/// The chart kinds the renderer draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    Line,
    Bar,
    Heatmap,
}

/// A chart: `y` (or a heat map's `value`) over `x`, one series per value of `series`.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartSpec {
    pub kind: ChartKind,
    pub x: String,
    /// Metric on the y axis (line, bar) or the second axis field (heat map).
    pub y: String,
    pub series: Option<String>,
    /// Heat map cell metric.
    pub value: Option<String>,
    pub log_x: bool,
    pub log_y: bool,
    pub title: Option<String>,
}

/// Per-directive overrides of the measurement rules.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeasureOverrides {
    pub timeout_s: Option<f64>,
    pub max_samples: Option<usize>,
    pub min_samples: Option<usize>,
    pub noise: Option<f64>,
    /// `measure.mode`: cold or hot (never host).
    pub mode: Option<TimingMode>,
}

/// A validated `gpulab` directive.
#[derive(Debug, Clone, PartialEq)]
pub struct Directive {
    pub location: Location,
    pub experiment: String,
    /// Selected variants, in display order (defaults to all of the spec's).
    pub variants: Vec<String>,
    pub axes: Vec<Axis>,
    pub zip: Vec<Vec<String>>,
    pub title: Option<String>,
    pub tables: Vec<TableSpec>,
    pub charts: Vec<ChartSpec>,
    pub paper: Option<String>,
    /// More of the paper's own numbers to evaluate the claims on (the self-check), beside `paper`:
    /// each entry one data set, the tables joined with `+` in the directive merged into it.
    pub paper_check: Vec<Vec<String>>,
    pub reproduces: Vec<String>,
    /// The `expect` claims, parsed once here.
    pub expect: Vec<Claim>,
    pub devices: DeviceSelection,
    pub measure: MeasureOverrides,
    pub budget_s: Option<f64>,
    /// Hardware-counter groups the profiled pass records for this directive's points
    /// (`record --counters`), in the order written.
    pub counters: Vec<crate::metrics::counters::Group>,
    /// An inline value (`{{#gpulab …}}` in prose): the expression it shows, and the only points
    /// it plans (its operands); `None` for a fenced directive.
    pub inline: Option<Inline>,
}

/// An inline value: an expression over results, each result one point on one device.
#[derive(Debug, Clone, PartialEq)]
pub struct Inline {
    pub expr: Expr,
    pub operands: Vec<Operand>,
    /// `unit=`; `None`: the metric's unit for a lone result, else a plain number.
    pub unit: Option<Unit>,
}

/// One result an inline value names: `variant.metric`, or `variant[N=4096,device=h200].metric`.
#[derive(Debug, Clone, PartialEq)]
pub struct Operand {
    /// The expression's variable that stands for it.
    pub var: String,
    pub variant: String,
    /// The metric, with any statistic suffix (`time_ms.min`).
    pub metric: String,
    /// Its value of each of the directive's axes.
    pub params: BTreeMap<String, ParamValue>,
    /// A device slug or a part of one (`h200`); `None`: the device the page shows by default.
    pub device: Option<String>,
}

impl Inline {
    /// Whether the point (`variant` at `axes`) is one of its operands'.
    pub fn names(&self, variant: &str, axes: &BTreeMap<String, ParamValue>) -> bool {
        self.operands
            .iter()
            .any(|o| o.variant == variant && o.params == *axes)
    }
}
