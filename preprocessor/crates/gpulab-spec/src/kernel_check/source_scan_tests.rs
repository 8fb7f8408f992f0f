//! Tests of `source_scan`.

use super::*;

fn names(src: &str) -> Vec<(&str, usize)> {
    kernels(&tokens(src))
}

/// The declarations the book's and the fixtures' kernels use.
#[test]
fn finds_kernels_as_the_book_declares_them() {
    let src = "#include <cuda_fp16.h>\n\
               extern \"C\" __global__ void copy(const float* x, float* y, int n) {}\n\
               extern \"C\" __global__ void __launch_bounds__(256)\n  tiled(int* a) {}\n\
               template <int T> __global__ void templated(float* out) { out[0] = T; }\n\
               template __global__ void templated<4>(float*);\n\
               namespace lab { __global__ void in_namespace(int* out) {} }\n";
    assert_eq!(
        names(src),
        [
            ("copy", 2),
            ("tiled", 4),
            ("templated", 5),
            ("templated", 6),
            ("in_namespace", 7)
        ]
    );
}

/// A kernel commented out, or named in a string, is not defined.
#[test]
fn comments_and_literals_define_nothing() {
    let src = "// __global__ void gone(int* a) {}\n/* __global__ void\n also_gone(int* a) {} */\n\
               const char* s = \"__global__ void quoted(\";\nchar c = '\"'; int n = 1'000;\n\
               auto r = R\"x(__global__ void raw( )x\";\n__global__ void kept(int* a) {}\n";
    assert_eq!(names(src), [("kept", 7)]);
    let idents: Vec<&str> = tokens(src)
        .iter()
        .filter(|t| t.ident)
        .map(|t| t.text)
        .collect();
    assert!(!idents.contains(&"gone") && !idents.contains(&"quoted"));
    assert!(!idents.contains(&"raw") && idents.contains(&"kept"));
}
