//! Tests of `probe`.

use super::*;

#[test]
fn cuda_version_format() {
    assert_eq!(format_cuda_version(13000), "13.0");
    assert_eq!(format_cuda_version(12040), "12.4");
    assert_eq!(format_cuda_version(12090), "12.9");
}

#[test]
fn missing_driver_is_an_error_not_a_panic() {
    // On a machine without libcuda this must be LibraryMissing; with one, anything but a panic.
    let r = ensure_driver();
    if !driver_library_present() {
        let Err(GpuError::LibraryMissing { lib, hint }) = r else {
            panic!("expected LibraryMissing, got {r:?}")
        };
        assert!(lib.contains("libcuda") && hint.contains("driver"));
    }
}

#[test]
fn guard_catches_panics() {
    let r: Result<(), GpuError> = guard("test", || panic!("boom"));
    assert_eq!(
        r,
        Err(GpuError::InitPanic {
            op: "test".into(),
            message: "boom".into()
        })
    );
}
