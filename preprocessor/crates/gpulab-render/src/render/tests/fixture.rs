//! SYNTHETIC test data for the renderer: a made-up device, points and paper table.
//! None of these numbers were measured or published.

use crate::directive::{
    Axis, ChartKind, ChartSpec, DeviceSelection, Directive, Location, MeasureOverrides, TableSpec,
};
use crate::metrics::MetricInfo;
use crate::papers::PaperTable;
use crate::record::{
    DeviceRecord, Failure, FailureKind, Outcome, Point, Timing, TimingMode, Verification,
};
use crate::results::view::{
    Cell, ClaimStatus, ClaimView, DeviceResults, DirectiveView, Provenance,
};
use crate::value::{ParamValue, Quantity, Unit};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(super) const SIZES: [i64; 3] = [160, 320, 640];

/// Owns everything a [`DirectiveView`] borrows.
pub(crate) struct Fixture {
    pub directive: Directive,
    pub device: DeviceRecord,
    pub points: Vec<Point>,
    pub paper: PaperTable,
    pub with_paper: bool,
}

pub(super) use crate::record::fixture::device;

pub(super) fn point(variant: &str, n: i64, time_ms: f64) -> Point {
    let mut params = BTreeMap::new();
    params.insert("N".to_string(), ParamValue::Int(n));
    let mut metrics = BTreeMap::new();
    metrics.insert(
        "gflops".to_string(),
        Quantity {
            value: 2.0 * (n as f64).powi(3) / time_ms / 1e6,
            unit: Unit::GflopsPerSec,
        },
    );
    Point {
        variant: variant.into(),
        params,
        key: format!("key-{variant}-{n}"),
        recorded_at: "2026-01-02T03:04:05Z".parse().expect("fixed timestamp"),
        commit: Some("abc1234".into()),
        tool_version: "0.1.0".into(),
        outcome: Outcome::Ok,
        failure: None,
        timing: Some(Timing {
            median_ms: time_ms,
            min_ms: time_ms * 0.9,
            max_ms: time_ms * 1.2,
            q1_ms: time_ms * 0.95,
            q3_ms: time_ms * 1.05,
            noise: 0.004,
            samples: 10,
            mode: TimingMode::Cold,
            throttled: false,
            ..Timing::default()
        }),
        metrics,
        attributes: None,
        verification: Some(Verification {
            reference: "matmul".into(),
            max_error: 0.0,
            first_bad_index: None,
            ..Verification::default()
        }),
        provenance: None,
        run: None,
        counters: None,
    }
}

pub(super) fn failed(variant: &str, n: i64) -> Point {
    let mut p = point(variant, n, 1.0);
    p.outcome = Outcome::Failed;
    p.timing = None;
    p.metrics.clear();
    p.failure = Some(Failure {
        kind: FailureKind::Verification,
        message: "max error 3".into(),
    });
    p.verification = Some(Verification {
        reference: "matmul".into(),
        max_error: 3.0,
        first_bad_index: Some(17),
        ..Verification::default()
    });
    p
}

pub(super) fn directive(charts: Vec<ChartSpec>) -> Directive {
    Directive {
        location: Location {
            chapter: PathBuf::from("part1/synth.md"),
            index: 1,
            line: 10,
        },
        experiment: "synth_matmul".into(),
        variants: vec!["global_2d".into(), "shared_2d".into()],
        axes: vec![Axis {
            name: "N".into(),
            values: SIZES.iter().map(|n| ParamValue::Int(*n)).collect(),
        }],
        zip: Vec::new(),
        title: Some("Synthetic shared-memory product".into()),
        tables: vec![TableSpec {
            rows: "N".into(),
            columns: "variant".into(),
            value: "time_ms".into(),
            title: None,
            key: Vec::new(),
        }],
        charts,
        paper: Some("synth2020/table1".into()),
        paper_check: Vec::new(),
        reproduces: vec!["synth2020:table1".into()],
        expect: vec![crate::claims::Claim::parse("shared_2d.time_ms < global_2d.time_ms").unwrap()],
        devices: DeviceSelection::Default,
        measure: MeasureOverrides::default(),
        budget_s: None,
        counters: Vec::new(),
        inline: None,
    }
}

pub(crate) fn line_chart() -> ChartSpec {
    ChartSpec {
        kind: ChartKind::Line,
        x: "N".into(),
        y: "time_ms".into(),
        series: Some("variant".into()),
        value: None,
        log_x: true,
        log_y: true,
        title: None,
    }
}

impl Fixture {
    /// global_2d at every size; shared_2d at 160 and 320, failed at 640; global_2d@320 stale.
    pub(super) fn new() -> Fixture {
        let points = vec![
            point("global_2d", 160, 2.0),
            point("global_2d", 320, 16.0),
            point("global_2d", 640, 128.0),
            point("shared_2d", 160, 0.5),
            point("shared_2d", 320, 4.0),
            failed("shared_2d", 640),
        ];
        let csv = "# paper: synth2020\n# item: Table 1 — synthetic\n# gpu: Synthetic Paper GPU\n# units: time_ms=ms\n\
                   N,variant,time_ms\n160,shared_2d,2.0\n320,shared_2d,8\n";
        let paper = PaperTable::parse("synth2020/table1", Path::new("synthetic.csv"), csv)
            .expect("synthetic paper");
        Fixture {
            directive: directive(vec![line_chart()]),
            device: device(),
            points,
            paper,
            with_paper: true,
        }
    }

    pub(super) fn cells(&self) -> Vec<Cell<'_>> {
        let mut cells = Vec::new();
        for variant in ["global_2d", "shared_2d"] {
            for n in SIZES {
                let point = self
                    .points
                    .iter()
                    .find(|p| p.variant == variant && p.params["N"] == ParamValue::Int(n));
                let mut axes = BTreeMap::new();
                axes.insert("N".to_string(), ParamValue::Int(n));
                cells.push(Cell {
                    variant: variant.into(),
                    axes,
                    point,
                    stale: variant == "global_2d" && n == 320,
                    relative: BTreeMap::new(),
                    calibration: None,
                    device: &self.device,
                });
            }
        }
        crate::results::add_relative_metrics(&mut cells, &self.directive);
        cells
    }

    pub(super) fn view(&self) -> DirectiveView<'_> {
        let mut metrics = BTreeMap::new();
        metrics.insert(
            "time_ms".to_string(),
            MetricInfo {
                label: "time".into(),
                unit: Unit::Millis,
                uses_time: true,
                better: Unit::Millis.better(),
            },
        );
        metrics.insert(
            "gflops".to_string(),
            MetricInfo {
                label: "throughput".into(),
                unit: Unit::GflopsPerSec,
                uses_time: true,
                better: Unit::GflopsPerSec.better(),
            },
        );
        let variant_labels: Vec<(String, String)> = vec![
            ("global_2d".into(), "Global memory, 2D".into()),
            ("shared_2d".into(), "Shared memory, 2D".into()),
        ];
        metrics.extend(crate::directive::metrics::relative_metric_infos(
            &self.directive,
            |v| {
                variant_labels
                    .iter()
                    .find(|(name, _)| name == v)
                    .map(|(_, label)| label.clone())
                    .unwrap_or_else(|| v.to_string())
            },
        ));
        DirectiveView {
            directive: &self.directive,
            experiment_title: "Synthetic matrix product".into(),
            variant_labels,
            metrics,
            devices: vec![DeviceResults {
                device: &self.device,
                cells: self.cells(),
                provenance: Provenance {
                    device_name: self.device.name.clone(),
                    cuda_version: "13.0".into(),
                    driver_version: Some("999.1".into()),
                    date: "2026-01-02".into(),
                    commit: Some("abc1234".into()),
                    tool_version: "0.1.0".into(),
                    details: Vec::new(),
                    event_offset_us: None,
                    calibration_unreadable: false,
                },
                claims: vec![ClaimView {
                    text: "shared_2d.time_ms < global_2d.time_ms".into(),
                    status: ClaimStatus::Holds,
                    detail: "holds at 2 of 2 sizes".into(),
                }],
            }],
            other_devices: Vec::new(),
            paper: self.with_paper.then_some(&self.paper),
            self_check: self
                .with_paper
                .then(|| vec![&self.paper])
                .into_iter()
                .collect(),
            expected_cells: 6,
            code: vec![crate::results::view::CodeFile {
                name: "kernels/synth_matmul/matmul.cu".into(),
                language: "cpp",
                text: "__global__ void k() {\n\n  int a = 1 < 2;\n}\n".into(),
                listed_at: None,
            }],
        }
    }
}
