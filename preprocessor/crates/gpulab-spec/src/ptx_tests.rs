//! Tests of `ptx`.

use super::*;

/// NVRTC 13's PTX for `tests/fixtures/ptx/signatures.cu` (sm_90, `-lineinfo`; regen.py there).
const SIGNATURES: &str = include_str!("../../../tests/fixtures/ptx/signatures.ptx");

fn module() -> Module {
    parse(SIGNATURES)
}

#[test]
fn every_kernel_of_the_fixture_is_found_in_order() {
    let names: Vec<String> = module().entries.into_iter().map(|e| e.name).collect();
    assert_eq!(
        names,
        [
            "from_header",
            "scale",
            "every_scalar",
            "by_value",
            "unused_params",
            "dynamic_shared",
            "bounded_2d",
            "_Z12not_extern_cPfi",
            "_Z9templatedILi4EEvPf",
            "_ZN3lab12in_namespaceEPi",
        ]
    );
}

#[test]
fn parameters_are_read_by_kind_and_size() {
    let m = module();
    let int = |bits| Param::Int { bits };
    let float = |bits| Param::Float { bits };
    assert_eq!(
        m.entry("scale").unwrap().params,
        [int(64), int(64), float(32), int(32)]
    );
    // u8 i8 i16 u16 i32 u32 i64 u64 f32 f64 bool double*: signedness is not in PTX.
    assert_eq!(
        m.entry("every_scalar").unwrap().params,
        [
            int(8),
            int(8),
            int(16),
            int(16),
            int(32),
            int(32),
            int(64),
            int(64),
            float(32),
            float(64),
            int(8),
            int(64)
        ]
    );
    assert_eq!(
        m.entry("by_value").unwrap().params,
        [Param::Bytes { len: 16 }, int(64)]
    );
    // Unused parameters stay in the signature.
    assert_eq!(
        m.entry("unused_params").unwrap().params,
        [int(64), int(32), float(32)]
    );
}

#[test]
fn launch_bounds_become_thread_limits() {
    let m = module();
    let scale = m.entry("scale").unwrap();
    assert_eq!(scale.max_threads, Some([256, 1, 1]));
    assert_eq!(scale.thread_limit(), Some(256));
    assert_eq!(m.entry("bounded_2d").unwrap().thread_limit(), Some(128));
    assert_eq!(m.entry("every_scalar").unwrap().thread_limit(), None);
}

#[test]
fn static_shared_memory_is_summed_per_kernel_with_alignment() {
    let m = module();
    assert_eq!(m.entry("scale").unwrap().static_shared, 256 * 4);
    // double a[64][33] (16896 bytes), then int b[16] (64 bytes).
    assert_eq!(m.entry("bounded_2d").unwrap().static_shared, 16896 + 64);
    // The `extern __shared__` array is dynamic: not counted, but named as used.
    let dynamic = m.entry("dynamic_shared").unwrap();
    assert_eq!(dynamic.static_shared, 1024 * 4);
    assert_eq!(dynamic.dynamic_shared, ["buf"]);
    assert!(m.entry("scale").unwrap().dynamic_shared.is_empty());
}

#[test]
fn each_kernel_knows_its_file_and_line() {
    let m = module();
    let at = |name: &str| m.entry(name).unwrap().defined_at.clone().unwrap();
    assert!(
        at("scale").file.ends_with("/signatures.cu"),
        "{:?}",
        at("scale")
    );
    // `scale(` is on line 7 (its `__launch_bounds__` on line 6).
    assert_eq!(at("scale").line, 7);
    assert_eq!(at("every_scalar").line, 16);
    assert!(at("from_header").file.ends_with("/fixture.cuh"));
    assert_eq!(at("from_header").line, 2);
    assert_eq!(at("_Z12not_extern_cPfi").line, 48);
}

#[test]
fn mangled_names_are_found_by_their_cpp_name() {
    let m = module();
    assert_eq!(m.mangled("not_extern_c")[0].name, "_Z12not_extern_cPfi");
    assert_eq!(m.mangled("templated")[0].name, "_Z9templatedILi4EEvPf");
    assert_eq!(
        m.mangled("in_namespace")[0].name,
        "_ZN3lab12in_namespaceEPi"
    );
    assert!(m.mangled("scale").is_empty());
    assert!(m.entry("not_extern_c").is_none());
    assert_eq!(
        demangled_name("_ZN3lab12in_namespaceEPi").unwrap(),
        "lab::in_namespace"
    );
    assert_eq!(demangled_name("_ZL6helperPf").unwrap(), "helper");
    assert_eq!(demangled_name("scale"), None);
    assert_eq!(demangled_name("_Z99short"), None);
}

/// An older NVRTC writes a kernel's `__shared__` array at module scope; inline assembly adds
/// brace blocks inside a body; a declaration without a body is no kernel.
#[test]
fn module_scope_shared_inline_asm_blocks_and_declarations() {
    let ptx = r#"
.version 8.0
.target sm_80
.shared .align 4 .b8 _ZZ9transposeE4tile[4224];
.shared .align 16 .v4 .f32 _ZZ9transposeE3vec[2];
.extern .entry declared_only(.param .u32 a);
.visible .entry transpose(
	.param .u64 transpose_param_0, .param .align 8 .b8 transpose_param_1[16]
)
.reqntid 32, 8
{
	{ .reg .b32 t; mov.b32 t, 1; }
	.loc 1 12 3
	ret; // } not the end
}
.visible .entry no_params
{
	ret;
}
"#;
    let m = parse(ptx);
    assert_eq!(m.entries.len(), 2, "{m:?}");
    let t = m.entry("transpose").unwrap();
    assert_eq!(
        t.params,
        [Param::Int { bits: 64 }, Param::Bytes { len: 16 }]
    );
    assert_eq!(t.required_threads, Some([32, 8, 1]));
    assert_eq!(t.thread_limit(), Some(256));
    assert_eq!(t.static_shared, 4224 + 32);
    // No `.file` table: the line is unknown.
    assert_eq!(t.defined_at, None);
    assert!(m.entry("no_params").unwrap().params.is_empty());
}

#[test]
fn garbage_is_no_kernel() {
    for text in [
        "",
        ".entry",
        ".entry (",
        ".entry k ( .param",
        ".shared",
        "\"",
        "/*",
    ] {
        let _ = parse(text);
    }
    assert!(parse("hello world").entries.is_empty());
}
