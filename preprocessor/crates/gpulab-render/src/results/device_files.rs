//! The one list of the files beside a device's recordings (anchors, calibration, ncu check).

use super::{anchors, event_offset, ncu_check};
use crate::record::validate::DeviceSchema;
use crate::record::{DataDir, StoreError};

/// One kind of device file: where it lives under `data/<slug>/`, its log, and its schema.
pub struct DeviceFile {
    pub rel: &'static str,
    pub log: Option<&'static str>,
    pub schema: &'static DeviceSchema,
    /// Parses the file of `slug` under a data folder, as a build reads it; `Ok(false)`: none.
    pub parse: fn(&DataDir, &str) -> Result<bool, StoreError>,
}

pub const DEVICE_FILES: [DeviceFile; 3] = [
    DeviceFile {
        rel: "anchors/library.json",
        log: None,
        schema: &anchors::SCHEMA,
        parse: |d, s| anchors::load_anchors(d.root(), s).map(|f| f.is_some()),
    },
    DeviceFile {
        rel: "checks/event_offset.json",
        log: Some("checks/event_offset.log"),
        schema: &event_offset::SCHEMA,
        parse: |d, s| event_offset::load(d, s).map(|f| f.is_some()),
    },
    DeviceFile {
        rel: "checks/ncu.json",
        log: Some("checks/ncu.log"),
        schema: &ncu_check::SCHEMA,
        parse: |d, s| ncu_check::load(d.root(), s).map(|f| f.is_some()),
    },
];
