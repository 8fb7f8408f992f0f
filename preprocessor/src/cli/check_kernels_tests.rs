//! Tests of `check_kernels`.

use super::missing_header_help;
use crate::gpu::{CompileError, parse_log};

/// New-user audit (session 13): with NVRTC from PyPI alone, `#include <cuda_fp16.h>` failed
/// with "cannot open source file" and no word of where the headers come from.
#[test]
fn a_missing_toolkit_header_says_where_the_headers_come_from() {
    let log = "kernels/h/h.cu(1): catastrophic error: cannot open source file \"cuda_fp16.h\"\n";
    let e = CompileError::Failed {
        source_name: "kernels/h/h.cu".into(),
        log: log.into(),
        diagnostics: parse_log(log),
        options: Vec::new(),
        ptx: None,
    };
    let help = missing_header_help(&e, false).expect("a help line");
    assert!(help.contains("pip install nvidia-cuda-runtime"), "{help}");
    assert!(help.contains("GPULAB_CUDA_INCLUDE"), "{help}");
    // With headers found, the missing file is the kernel's own: no such help.
    assert_eq!(missing_header_help(&e, true), None);
    let log = "kernels/h/h.cu(3): error: identifier \"x\" is undefined\n";
    let other = CompileError::Failed {
        source_name: "kernels/h/h.cu".into(),
        log: log.into(),
        diagnostics: parse_log(log),
        options: Vec::new(),
        ptx: None,
    };
    assert_eq!(missing_header_help(&other, false), None);
}
