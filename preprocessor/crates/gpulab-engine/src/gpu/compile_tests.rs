//! Tests of `compile`.

use super::*;

const VECTOR_ADD: &str = r#"
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
int i = blockIdx.x * blockDim.x + threadIdx.x;
if (i < n) c[i] = a[i] + b[i] + SCALE;
}
"#;

fn nvrtc_or_skip(test: &str) -> bool {
    if crate::gpu::probe::nvrtc_library_present() {
        return true;
    }
    eprintln!(
        "\n*** SKIPPING {test}: libnvrtc is not loadable. {} ***\n",
        crate::gpu::probe::NVRTC_HINT
    );
    false
}

#[test]
fn parses_nvrtc_log_lines() {
    let log = "kernels/mm/matmul.cu(12): error: identifier \"foo\" is undefined\n\
               \x20     c[i] = foo;\n\
               \x20            ^\n\n\
               kernels/mm/matmul.cu(3): warning #177-D: variable \"x\" was declared but never referenced\n\
               /abs/common.cuh(40): catastrophic error: cannot open source file \"x.h\"\n\
               1 error detected in the compilation of \"kernels/mm/matmul.cu\".\n";
    let d = parse_log(log);
    assert_eq!(d.len(), 3, "{d:?}");
    assert_eq!(
        d[0],
        Diagnostic {
            file: "kernels/mm/matmul.cu".into(),
            line: 12,
            severity: Severity::Error,
            message: "identifier \"foo\" is undefined".into()
        }
    );
    assert_eq!(d[1].severity, Severity::Warning);
    assert_eq!(d[1].line, 3);
    assert_eq!(
        d[1].message,
        "variable \"x\" was declared but never referenced"
    );
    assert_eq!(d[2].file, "/abs/common.cuh");
    assert_eq!(d[2].severity, Severity::Error);
}

#[test]
fn chooses_cubin_or_older_ptx() {
    let sup = [(7, 5), (8, 0), (8, 6), (9, 0)];
    assert_eq!(
        choose_target((9, 0), &sup).unwrap(),
        ((9, 0), ImageKind::Cubin)
    );
    assert_eq!(
        choose_target((8, 9), &sup).unwrap(),
        ((8, 6), ImageKind::Ptx)
    );
    assert_eq!(
        choose_target((12, 0), &sup).unwrap(),
        ((9, 0), ImageKind::Ptx)
    );
    assert!(matches!(
        choose_target((6, 1), &sup),
        Err(CompileError::UnsupportedArch { .. })
    ));
}

#[test]
fn compiles_a_kernel_to_cubin() {
    if !nvrtc_or_skip("compiles_a_kernel_to_cubin") {
        return;
    }
    let v = nvrtc_version().unwrap();
    assert!(v.0 >= 11, "{v:?}");
    let archs = supported_archs().unwrap();
    assert!(archs.contains(&(9, 0)), "{archs:?}");
    let image = compile(
        VECTOR_ADD,
        "kernels/va/vector_add.cu",
        &["-DSCALE=0.0f".to_string()],
        (9, 0),
    )
    .unwrap();
    assert_eq!(image.kind(), ImageKind::Cubin);
    assert_eq!(&image.bytes()[..4], b"\x7fELF");
    // The PTX the cubin was made from comes with it (for `check`'s signature checks).
    assert!(image.ptx().unwrap().contains(".entry vector_add"));
}

#[test]
fn a_ptxas_failure_keeps_the_ptx() {
    if !nvrtc_or_skip("a_ptxas_failure_keeps_the_ptx") {
        return;
    }
    let src = r#"extern "C" __global__ void big(float* y) {
        __shared__ float s[16384];
        s[threadIdx.x] = 1; __syncthreads(); y[threadIdx.x] = s[threadIdx.x ^ 3]; }"#;
    let err = compile(src, "big.cu", &[], (9, 0)).unwrap_err();
    assert!(err.to_string().contains("too much shared data"), "{err}");
    assert!(err.ptx().unwrap().contains(".entry big"));
}

#[test]
fn falls_back_to_ptx_for_an_unknown_newer_arch() {
    if !nvrtc_or_skip("falls_back_to_ptx_for_an_unknown_newer_arch") {
        return;
    }
    let image = compile(VECTOR_ADD, "va.cu", &["-DSCALE=1.0f".to_string()], (99, 9)).unwrap();
    assert_eq!(image.kind(), ImageKind::Ptx);
    assert!(image.ptx().unwrap().contains(".entry vector_add"));
}

#[test]
fn reports_compile_errors_with_the_file_path() {
    if !nvrtc_or_skip("reports_compile_errors_with_the_file_path") {
        return;
    }
    // SCALE is not defined: an error on line 4.
    let err = compile(VECTOR_ADD, "kernels/va/vector_add.cu", &[], (9, 0)).unwrap_err();
    let CompileError::Failed {
        log,
        diagnostics,
        source_name,
        ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(source_name, "kernels/va/vector_add.cu");
    assert!(log.contains("kernels/va/vector_add.cu(4)"), "{log}");
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].line, 4);
    assert_eq!(diagnostics[0].file, "kernels/va/vector_add.cu");
    assert!(
        diagnostics[0].message.contains("SCALE"),
        "{}",
        diagnostics[0].message
    );
    assert!(err.to_string().contains("failed to compile"));
}

#[test]
fn bad_options_and_nul_bytes_are_errors() {
    if !nvrtc_or_skip("bad_options_and_nul_bytes_are_errors") {
        return;
    }
    assert!(matches!(
        compile("x\0y", "a.cu", &[], (9, 0)),
        Err(CompileError::InvalidInput(_))
    ));
    let err = compile(
        VECTOR_ADD,
        "a.cu",
        &["--no-such-option".to_string()],
        (9, 0),
    )
    .unwrap_err();
    assert!(!matches!(err, CompileError::Panic { .. }), "{err:?}");
}

#[test]
fn missing_nvrtc_is_a_clear_error() {
    if crate::gpu::probe::nvrtc_library_present() {
        return;
    }
    let err = compile(VECTOR_ADD, "a.cu", &[], (9, 0)).unwrap_err();
    assert!(err.to_string().contains("LD_LIBRARY_PATH"), "{err}");
}
