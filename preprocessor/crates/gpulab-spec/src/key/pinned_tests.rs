//! Keys pinned across versions: a spec written with the original four buffer types, every `init`
//! kind and every scalar argument type keeps the key it had before more types (and `reset`) were
//! added. A change here re-records every experiment on every GPU: it must be deliberate.

use super::*;
use crate::source::SourceFile;

const OLD_TYPES_SPEC: &str = r#"
title = "Old types"
source = "k.cu"
[params]
N = 1024
[[buffer]]
name = "a"
type = "f32"
len = "N"
init = { random = [-1, 1] }
[[buffer]]
name = "b"
type = "f64"
len = "N"
init = "iota"
[[buffer]]
name = "c"
type = "i32"
len = "N"
init = { constant = -3 }
[[buffer]]
name = "d"
type = "u32"
len = "N"
output = true
[verify]
reference = "formula"
output = "d"
formula = "i"
tolerance = 0
[[variant]]
name = "v"
kernel = "k"
grid = ["ceil_div(N, 256)"]
block = [256]
args = ["a", "b", "c", "d", "N", { u32 = "N" }, { i64 = "N" }, { f32 = "0.5" }, { f64 = "2" }, { i32 = 7 }]
"#;

fn key_of(spec: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cu"),
        "extern \"C\" __global__ void k() {}\n",
    )
    .unwrap();
    let file = SourceFile::new("experiment.toml", spec);
    let raw = crate::spec::raw::parse(spec).unwrap();
    let exp = crate::spec::validate::validate(raw, "old_types", dir.path(), dir.path(), &file)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let params = BTreeMap::from([("N".to_string(), ParamValue::Int(1024))]);
    point_key(&exp, &exp.variants[0], &params, &SourceCache::default())
        .unwrap()
        .on("test-device")
}

#[test]
fn a_spec_with_only_the_old_types_keeps_its_key() {
    assert_eq!(key_of(OLD_TYPES_SPEC), "1fe1076654a3e646a89f28233d8ce52f");
}

/// One launch is one launch however it is written: the variant's own keys and a single
/// `[[variant.launch]]` table give the same key; a sequence's key follows its launches' order.
#[test]
fn a_launch_sequence_keys_each_launch_in_order() {
    let own =
        "kernel = \"k\"\ngrid = [\"ceil_div(N, 256)\"]\nblock = [256]\nargs = [\"a\", \"N\"]\n";
    let table =
        |k: &str| format!("[[variant.launch]]\nkernel = \"{k}\"\ngrid = [1]\nblock = [32]\n");
    let spec = |variant: &str| {
        let head = &OLD_TYPES_SPEC[..OLD_TYPES_SPEC.find("kernel = \"k\"").unwrap()];
        format!("{head}{variant}")
    };
    let as_table = table("k").replace(
        "grid = [1]\nblock = [32]\n",
        own.split_once('\n').unwrap().1,
    );
    assert_eq!(key_of(&spec(own)), key_of(&spec(&as_table)));
    let ab = key_of(&spec(&(table("k") + &table("j"))));
    assert_ne!(ab, key_of(&spec(&(table("j") + &table("k")))));
    assert_ne!(ab, key_of(&spec(&table("k"))));
}
