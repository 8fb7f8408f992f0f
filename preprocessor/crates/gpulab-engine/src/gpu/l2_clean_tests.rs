//! Tests of `l2_clean`.

use super::*;

#[test]
fn the_discard_kernel_compiles_for_hopper() {
    if crate::gpu::skip_without_nvrtc("the_discard_kernel_compiles_for_hopper") {
        return;
    }
    // A cubin: NVRTC runs ptxas, which checks the inline `discard` instruction.
    let image =
        compile(SOURCE, "gpulab_discard_l2.cu", &[], (9, 0)).unwrap_or_else(|e| panic!("{e}"));
    assert!(!image.bytes().is_empty());
    assert_eq!(image.kind(), crate::gpu::ImageKind::Cubin);
}
