//! Tests of `limits`.

use super::*;

#[test]
fn what_a_variant_needs_is_said_in_a_readers_words() {
    assert_eq!(
        needs_arch((9, 0), (8, 6)).as_deref(),
        Some("needs sm_90 (Hopper)")
    );
    assert_eq!(needs_arch((9, 0), (12, 0)), None);
    let log = "line 175; error   : Feature '.op_restrict' requires .target sm_90 or higher\n\
               line 203; error   : Feature 'cp.async.bulk' requires .target sm_90 or higher";
    assert_eq!(arch_required_by(log), Some((9, 0)));
    assert_eq!(
        arch_required_by("error: identifier \"x\" is undefined"),
        None
    );
    assert_eq!(
        needs_bytes(2 << 30, 1 << 30, "device memory").as_deref(),
        Some("needs 2.0 GiB of device memory (this GPU has 1.0 GiB)")
    );
    assert_eq!(
        needs_bytes(65568, 65536, "shared memory per block").as_deref(),
        Some("needs 65568 bytes of shared memory per block (this GPU has 65536 bytes)")
    );
    assert_eq!(needs_bytes(1, 1, "x"), None);
}

#[test]
fn occupancy_limits_differ_by_architecture_not_fixed_at_hoppers() {
    let hopper = arch_limits((9, 0)).unwrap();
    assert_eq!((hopper.warps_per_sm, hopper.shared_per_sm), (64, 233_472));
    let ada = arch_limits((8, 9)).unwrap();
    assert_eq!((ada.warps_per_sm, ada.shared_per_sm), (48, 102_400));
    let turing = arch_limits((7, 5)).unwrap();
    assert_eq!(
        (turing.warps_per_sm, turing.shared_reserved_per_block),
        (32, 0)
    );
}

#[test]
fn the_default_check_arch_has_the_h100s_opt_in_maximum() {
    let l = arch_limits(DEFAULT_CHECK_ARCH).unwrap();
    assert_eq!(l.shared_optin, MAX_SHARED_BYTES);
    assert_eq!(l.static_shared, 49_152);
    assert_eq!(arch_limits((8, 6)).unwrap().shared_optin, 101_376);
    assert_eq!(arch_limits((6, 1)), None);
}

#[test]
fn measure_rules_that_cannot_work_are_refused() {
    assert!(measure_problems(Some(2.0), Some(5), Some(50), Some(0.01)).is_empty());
    assert_eq!(measure_problems(Some(f64::NAN), None, None, None).len(), 1);
    assert_eq!(measure_problems(Some(-1.0), None, None, None).len(), 1);
    assert_eq!(measure_problems(Some(0.0), None, None, None).len(), 1);
    assert_eq!(measure_problems(None, Some(0), None, None).len(), 1);
    let p = measure_problems(None, Some(10), Some(5), None);
    assert_eq!(p, ["`min_samples = 10` is more than `max_samples = 5`"]);
    assert_eq!(
        measure_problems(None, None, None, Some(f64::INFINITY)).len(),
        1
    );
    assert_eq!(measure_problems(None, None, None, Some(-0.1)).len(), 1);
}
