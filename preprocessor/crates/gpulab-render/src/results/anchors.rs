//! The library-anchors table (```` ```gpulab-anchors ````): PyTorch and cuBLAS beside our best kernel.

use super::Recordings;
use crate::key::{SourceCache, point_key};
use crate::record::StoreError;
use crate::record::validate::DeviceSchema;
use crate::spec::Experiment;
use crate::value::ParamValue;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The fence body: which of our kernels each anchor is compared with.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnchorsSpec {
    #[serde(rename = "row")]
    pub rows: Vec<AnchorRowSpec>,
}

/// One row: the anchor's name in the file and our candidates (the best one is shown).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnchorRowSpec {
    pub anchor: String,
    pub experiment: String,
    pub variants: Vec<String>,
    /// Our metric compared with the anchor: `gbps` or `gflops`.
    pub metric: String,
    /// Parameter values of our point (the others keep the spec's defaults).
    #[serde(default)]
    pub params: BTreeMap<String, ParamValue>,
}

/// `data/<slug>/anchors/library.json`, as the script writes it (unknown fields ignored).
#[derive(Debug, Deserialize)]
pub(crate) struct AnchorsFile {
    pub device: AnchorsDevice,
    pub provenance: BTreeMap<String, serde_json::Value>,
    pub anchors: BTreeMap<String, Anchor>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct AnchorsDevice {
    pub name: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Anchor {
    pub label: String,
    pub value: f64,
    pub unit: String,
    #[serde(default)]
    pub verified: bool,
}

/// One rendered row on one device.
#[derive(Debug, Clone, PartialEq)]
pub struct AnchorRow {
    pub label: String,
    pub unit: String,
    /// The library's value, when the anchor was measured and verified on this device.
    pub library: Option<f64>,
    /// Our best candidate: (variant, value, stale).
    pub ours: Option<(String, f64, bool)>,
}

/// One device's table.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceAnchors {
    pub device: String,
    pub rows: Vec<AnchorRow>,
    /// "commit …, 2026-11-23, torch …" from the anchors file, when there is one.
    pub provenance: Option<String>,
}

/// What `scripts/library_anchors.py` writes.
pub(crate) const SCHEMA: DeviceSchema = DeviceSchema {
    schemas: &[1],
    keys: "schema what device provenance anchors",
    date: "/provenance/recorded_at",
};

/// Reads a device's anchors file; `None` when it has none.
pub(crate) fn load_anchors(
    data_root: &Path,
    slug: &str,
) -> Result<Option<AnchorsFile>, StoreError> {
    crate::record::store::read_device_file(
        data_root.join(slug).join("anchors").join("library.json"),
        &SCHEMA,
    )
}

/// The unit of one of the metrics a row may compare.
fn unit_of(metric: &str) -> &'static str {
    if metric == "gflops" {
        "GFLOP/s"
    } else {
        "GB/s"
    }
}

/// The table on every device that has an anchors file or a recording of a row's experiment.
pub fn anchor_tables(
    spec: &AnchorsSpec,
    experiment: &dyn Fn(&str) -> Option<std::sync::Arc<Experiment>>,
    recordings: &mut Recordings,
    sources: &SourceCache,
) -> Result<Vec<DeviceAnchors>, StoreError> {
    let root = recordings.data().root().to_path_buf();
    let mut out = Vec::new();
    for slug in recordings.data().devices()? {
        let file = load_anchors(&root, &slug)?;
        let mut device_name = file.as_ref().map(|f| f.device.name.clone());
        let mut rows = Vec::new();
        for r in &spec.rows {
            let anchor = file.as_ref().and_then(|f| f.anchors.get(&r.anchor));
            let unit = unit_of(&r.metric).to_string();
            let mut row = AnchorRow {
                label: anchor
                    .map(|a| a.label.clone())
                    .unwrap_or_else(|| r.anchor.clone()),
                // A library value counts only when verified and in the row's unit.
                library: anchor
                    .filter(|a| a.verified && a.unit == unit)
                    .map(|a| a.value),
                unit: unit.clone(),
                ours: None,
            };
            if let Some(exp) = experiment(&r.experiment) {
                recordings.preload(&exp)?;
                if let Some(rec) = recordings
                    .of(&exp.name)
                    .into_iter()
                    .find(|x| x.device.slug == slug)
                {
                    device_name.get_or_insert_with(|| rec.device.name.clone());
                    let mut params: BTreeMap<String, ParamValue> =
                        exp.params.iter().cloned().collect();
                    params.extend(r.params.clone());
                    for v in &r.variants {
                        let (Some(variant), Some(p)) = (
                            exp.variant(v),
                            rec.points
                                .iter()
                                .find(|p| &p.variant == v && p.params == params),
                        ) else {
                            continue;
                        };
                        let cal = recordings.event_offset(&slug);
                        let Some(value) = super::event_offset::metric(p, cal, &r.metric) else {
                            continue;
                        };
                        let stale = point_key(&exp, variant, &params, sources)
                            .map(|k| k.on(&slug) != p.key)
                            .unwrap_or(true);
                        if row.ours.as_ref().is_none_or(|(_, best, _)| value > *best) {
                            row.ours = Some((v.clone(), value, stale));
                        }
                    }
                }
            }
            rows.push(row);
        }
        let provenance = file.as_ref().map(|f| {
            [
                "commit",
                "recorded_at",
                "torch_version",
                "driver_version",
                "method",
            ]
            .iter()
            .filter_map(|k| {
                let v = f.provenance.get(*k)?;
                Some(format!(
                    "{k} {}",
                    v.as_str()
                        .map(String::from)
                        .unwrap_or_else(|| v.to_string())
                ))
            })
            .collect::<Vec<_>>()
            .join(" · ")
        });
        // Our times are less the calibrated event overhead; the library's are its events as measured.
        let provenance = match (provenance, recordings.event_offset(&slug)) {
            (Some(p), Some(c)) => Some(format!(
                "{p} · the library's times as measured, ours less the calibrated event overhead ({:.2} µs)",
                c.offset_ms * 1e3
            )),
            (p, _) => p,
        };
        if let Some(device) = device_name {
            out.push(DeviceAnchors {
                device,
                rows,
                provenance,
            });
        }
    }
    Ok(out)
}
