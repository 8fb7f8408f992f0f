//! Tests of `toolkit_headers`.

use super::*;

#[test]
fn finds_the_headers_beside_a_pypi_nvrtc_on_the_library_path() {
    let root = tempfile::tempdir().unwrap();
    let lib = root.path().join("nvidia/cu13/lib");
    let inc = root.path().join("nvidia/cu13/include");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::create_dir_all(&inc).unwrap();
    std::fs::write(lib.join("libnvrtc.so.13"), "").unwrap();
    let env = |k: &str| (k == "LD_LIBRARY_PATH").then(|| lib.clone());
    // Without the runtime headers: nothing (unless this machine has a toolkit installed).
    let none = find(&env, None);
    assert!(none.is_none() || none == Some(PathBuf::from("/usr/local/cuda/include")));
    std::fs::write(inc.join(MARKER), "").unwrap();
    let found = find(&env, None).unwrap();
    assert!(found == inc || found == Path::new("/usr/local/cuda/include"));
}

/// pip's CUDA 12 wheels: NVRTC in `nvidia/cuda_nvrtc/lib`, the headers in
/// `nvidia/cuda_runtime/include`; here NVRTC found in a virtual environment.
#[test]
fn finds_the_headers_of_pips_cuda_12_runtime_beside_a_venvs_nvrtc() {
    let root = tempfile::tempdir().unwrap();
    let lib = root.path().join("nvidia/cuda_nvrtc/lib/libnvrtc.so.12");
    let inc = root.path().join("nvidia/cuda_runtime/include");
    std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
    std::fs::create_dir_all(&inc).unwrap();
    std::fs::write(inc.join(MARKER), "").unwrap();
    let found = find(&|_| None, Some(&lib)).unwrap();
    assert!(found == inc || found == Path::new("/usr/local/cuda/include"));
}

#[test]
fn an_explicit_directory_comes_first() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(MARKER), "").unwrap();
    let path = dir.path().to_path_buf();
    let env = |k: &str| (k == "GPULAB_CUDA_INCLUDE").then(|| path.clone());
    assert_eq!(find(&env, None), Some(path.clone()));
    let empty = tempfile::tempdir().unwrap();
    let other = empty.path().to_path_buf();
    let env = |k: &str| (k == "GPULAB_CUDA_INCLUDE").then(|| other.clone());
    assert_ne!(
        find(&env, None),
        Some(other.clone()),
        "a directory without the headers is skipped"
    );
}

#[test]
fn half_precision_kernels_compile() {
    if crate::gpu::skip_without_nvrtc("half_precision_kernels_compile") {
        return;
    }
    assert!(
        include_dir().is_some(),
        "NVRTC is here but the CUDA headers are not: install a toolkit or the PyPI wheel \
         nvidia-cuda-runtime beside nvidia-cuda-nvrtc (scripts/ci/nvrtc.sh does), or set \
         GPULAB_CUDA_INCLUDE"
    );
    let src = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n\
        extern \"C\" __global__ void k(__half* x, __nv_bfloat16* y, __half a, int n) {\n\
          int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
          if (i < n) { x[i] = __hadd(x[i], a); y[i] = __float2bfloat16(2.0f * __bfloat162float(y[i])); }\n\
        }\n";
    let image = super::super::compile::compile(src, "half.cu", &[], (9, 0))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!image.bytes().is_empty());
}
