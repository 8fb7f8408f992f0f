//! Tests of `smi`.

use super::*;

#[test]
fn parses_proc_version() {
    let text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Jan  1 00:00:00 UTC 2026\n\
                GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n";
    assert_eq!(parse_proc_version(text).as_deref(), Some("580.159.04"));
    let open =
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build\n";
    assert_eq!(parse_proc_version(open).as_deref(), Some("575.57.08"));
    assert_eq!(parse_proc_version("garbage"), None);
}

#[test]
fn parses_smi_output() {
    assert_eq!(
        parse_csv_line("\n 2619, 1980 \n"),
        Some(vec!["2619".into(), "1980".into()])
    );
    assert_eq!(parse_number("2619 MHz"), Some(2619.0));
    assert_eq!(parse_number("[N/A]"), None);
    assert_eq!(parse_csv_line("  \n"), None);
}

#[test]
fn missing_nvidia_smi_is_none() {
    // Without nvidia-smi (this CI machine) every query is None, never a panic.
    if Command::new("nvidia-smi")
        .arg("-h")
        .stdout(Stdio::null())
        .status()
        .is_err()
    {
        assert_eq!(query("driver_version", None), None);
    }
}
