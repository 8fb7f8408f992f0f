//! Tests of `error`.

use super::*;

#[test]
fn fatal_classification() {
    assert!(is_sticky(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS));
    assert!(!is_sticky(CUresult::CUDA_ERROR_INVALID_VALUE));
    assert!(!is_sticky(CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES));
    assert!(
        GpuError::Launch {
            message: String::new(),
            fatal: true
        }
        .is_fatal()
    );
    assert!(!GpuError::NoDevice.is_fatal());
    assert!(GpuError::ContextLost { first: "x".into() }.is_fatal());
}

#[test]
fn kernel_not_found_lists_kernels_and_hints_at_mangling() {
    let e = GpuError::KernelNotFound {
        name: "add".into(),
        available: vec!["_Z3addPfS_".into()],
    };
    let text = e.to_string();
    assert!(
        text.contains("_Z3addPfS_") && text.contains("extern \"C\""),
        "{text}"
    );
    let e = GpuError::KernelNotFound {
        name: "add".into(),
        available: vec![],
    };
    assert_eq!(e.to_string(), "kernel `add` not found in the module");
}

#[test]
fn unsupported_arch_message() {
    let e = CompileError::UnsupportedArch {
        arch: (6, 1),
        supported: vec![(7, 5), (8, 0)],
    };
    assert_eq!(
        e.to_string(),
        "NVRTC cannot compile for sm_61 (it supports: sm_75, sm_80)"
    );
}
