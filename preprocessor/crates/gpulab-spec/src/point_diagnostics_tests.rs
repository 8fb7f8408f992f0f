//! Tests of `point_diagnostics`.

use super::{find_expr, find_expr_in_variant, read_spec};

/// Regression (session 10): the help line named the first line of the spec that wrote the
/// same expression, often another variant's.
#[test]
fn an_expression_is_found_in_its_own_variant_first() {
    let t = "[params]\nN = 4\n\n[[variant]]\nname = \"a\"\ngrid = \"N/16\"\n\n[[variant]]\nname = \"b\"\nblock = 32\ngrid = \"N/16\"\n";
    let second = t.rfind("\"N/16\"").unwrap();
    assert_eq!(find_expr_in_variant(t, "N/16", "b", "grid").start, second);
    assert_eq!(
        find_expr_in_variant(t, "N/16", "a", "grid").start,
        t.find("\"N/16\"").unwrap()
    );
    // Not in the variant's table: anywhere.
    assert_eq!(
        find_expr_in_variant(t, "4", "b", "grid").start,
        t.find("4").unwrap()
    );
}

/// Regression (session 13, new-user audit): a buffer length's help line named the variant's
/// `args` line, which also writes `N`, instead of the buffer's `len`.
#[test]
fn a_buffer_length_is_found_in_its_buffer_table() {
    let t = "[[buffer]]\nname = \"x\"\ntype = \"f32\"\nlen = \"N\"\n\n[[buffer]]\nname = \"y\"\nlen = \"N\"\n\n[[variant]]\nname = \"v\"\nargs = [\"x\", \"y\", \"N\"]\n";
    let x = t.find("\"N\"").unwrap();
    let y = x + 1 + t[x + 1..].find("\"N\"").unwrap();
    assert_eq!(
        find_expr_in_variant(t, "N", "v", "buffer `x` length").start,
        x
    );
    assert_eq!(
        find_expr_in_variant(t, "N", "v", "buffer `y` length").start,
        y
    );
    // Other problems still look in the variant's table first.
    assert_eq!(
        find_expr_in_variant(t, "N", "v", "argument").start,
        t.rfind("\"N\"").unwrap()
    );
}

/// An unreadable spec was read as empty, so its problems pointed at nothing; now it is an error.
#[test]
fn unreadable_spec_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("experiment.toml");
    let shown = std::path::Path::new("kernels/gone/experiment.toml");
    let d = read_spec(&path, shown).unwrap_err();
    assert_eq!(d.path, shown);
    assert!(
        d.message
            .starts_with("cannot read kernels/gone/experiment.toml to report"),
        "{}",
        d.message
    );
    std::fs::write(&path, "name = 1\n").unwrap();
    assert_eq!(read_spec(&path, shown).unwrap(), "name = 1\n");
}

#[test]
fn expressions_are_found_where_they_are_a_value() {
    let t = "label = \"2048 threads\"\nblock = [2048]\nlen = \"N*N\"\n";
    assert_eq!(&t[find_expr(t, "2048")], "2048");
    assert_eq!(find_expr(t, "2048").start, t.find("[2048").unwrap() + 1);
    assert_eq!(&t[find_expr(t, "N*N")], "\"N*N\"");
    assert_eq!(find_expr(t, "missing"), 0..0);
}
