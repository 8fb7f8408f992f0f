//! Tests of `launch`.

use super::*;

#[test]
fn dimension_checks() {
    assert!(check_dims([1, 1, 1], [256, 1, 1]).is_ok());
    assert!(matches!(
        check_dims([0, 1, 1], [1, 1, 1]),
        Err(GpuError::InvalidConfig(_))
    ));
    assert!(matches!(
        check_dims([1, 70000, 1], [1, 1, 1]),
        Err(GpuError::InvalidConfig(_))
    ));
    assert!(matches!(
        check_dims([1, 1, 1], [1, 1, 65]),
        Err(GpuError::InvalidConfig(_))
    ));
    // 2048 threads as 2048×1×1 is a per-dimension error; as 64×32×1 it goes to the driver.
    assert!(check_dims([1, 1, 1], [2048, 1, 1]).is_err());
    assert!(check_dims([1, 1, 1], [64, 32, 1]).is_ok());
}
