//! Tests of `ncu`.

use super::*;

#[test]
fn the_profile_command_names_only_our_kernels_and_the_metrics() {
    let ncu = Ncu {
        path: "ncu".into(),
        version: "Version 2025.3".into(),
    };
    let cmd = ncu.profile_command(
        &["k2".into(), "k1".into(), "k2".into()],
        &["a__b.sum".into(), "c__d.max".into()],
        &["gpulab".into(), "worker".into()],
    );
    let args: Vec<String> = cmd
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let at = |flag: &str| &args[args.iter().position(|a| a == flag).unwrap() + 1];
    assert_eq!(at("--kernel-name"), "regex:^(k1|k2)$");
    assert_eq!(at("--metrics"), "a__b.sum,c__d.max");
    assert_eq!(at("--cache-control"), "all");
    assert_eq!(at("--clock-control"), "none");
    assert!(args.contains(&"--csv".to_string()));
    assert_eq!(&args[args.len() - 2..], ["gpulab", "worker"]);
}

#[test]
fn an_ncu_that_does_not_exist_is_reported_not_run() {
    // SAFETY (test): no other test reads NCU.
    let err = {
        let old = std::env::var_os(NCU_ENV);
        unsafe { std::env::set_var(NCU_ENV, "/nonexistent/ncu") };
        let r = find();
        match old {
            Some(v) => unsafe { std::env::set_var(NCU_ENV, v) },
            None => unsafe { std::env::remove_var(NCU_ENV) },
        }
        r.unwrap_err()
    };
    assert!(err.contains("/nonexistent/ncu"), "{err}");
}
