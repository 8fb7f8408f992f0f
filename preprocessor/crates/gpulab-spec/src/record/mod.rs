//! Recordings: what a run measured, on which device, stored as `data/<device>/<experiment>.json`.

/// A made-up device for the tests of every crate (a `cfg(test)` module would be seen by this
/// crate's tests alone).
#[doc(hidden)]
pub mod fixture;
pub mod schema;
pub mod store;
pub mod validate;

pub use schema::{
    Attributes, Clocks, Counters, DeviceRecord, Failure, FailureKind, MEASURE_METHOD, Occupancy,
    Outcome, Point, PointProvenance, Recording, SCHEMA_VERSION, Timing, TimingMode, Verification,
};
pub use store::{DataDir, StoreError};
