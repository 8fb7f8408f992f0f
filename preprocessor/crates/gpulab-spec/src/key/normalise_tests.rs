//! Tests of `normalise`.

use super::*;

#[test]
fn comments_and_indentation_do_not_matter() {
    let a = "// a kernel\n__global__ void k(float *x) {\n    x[0] = 1; /* one */\n}\n";
    let b = "__global__ void k(float *x) { // edited comment\n  x[0] = 1;\n\n\n}";
    assert_eq!(normalise(a), normalise(b));
    assert_eq!(normalise(a), "__global__ void k(float *x) { x[0] = 1; }");
}

#[test]
fn whether_tokens_are_separated_is_kept() {
    assert_ne!(normalise("a+b"), normalise("a + b"));
    assert_ne!(normalise("#define F(x) x"), normalise("#define F (x) x"));
    // A comment between two tokens separates them, as whitespace would.
    assert_eq!(normalise("int/**/x;"), normalise("int x;"));
}

#[test]
fn comment_markers_inside_literals_are_text() {
    let s = "const char *s = \"a // b /* c */\"; // real";
    assert_eq!(normalise(s), "const char *s = \"a // b /* c */\";");
    assert_ne!(normalise("f(\"a  b\");"), normalise("f(\"a b\");"));
    assert_eq!(normalise("c = '/'; // x"), "c = '/';");
    assert_eq!(normalise("c = '\\''; // x"), "c = '\\'';");
    assert_eq!(
        normalise("s = \"\\\" // not a comment\";"),
        "s = \"\\\" // not a comment\";"
    );
}

#[test]
fn raw_strings_are_verbatim() {
    let s = "auto s = R\"x(a // b\n  \"c\" )x\"; // gone";
    assert_eq!(normalise(s), "auto s = R\"x(a // b\n  \"c\" )x\";");
    assert_eq!(normalise("u8\"a  b\""), "u8\"a  b\"");
}

#[test]
fn directives_keep_their_lines() {
    let s =
        "#define N 4 // four\n#include \"common.cuh\"\n  int x = N;\n#if N > 2\nint y;\n#endif\n";
    assert_eq!(
        normalise(s),
        "#define N 4\n#include \"common.cuh\"\nint x = N;\n#if N > 2\nint y;\n#endif"
    );
    // Code lines joined by a reflow stay equal; a directive line break does not.
    assert_eq!(normalise("f(a,\n  b);"), normalise("f(a, b);"));
    assert_ne!(normalise("#define A 1\nB"), normalise("#define A 1 B"));
    // `#` after code on the same line is not a directive.
    assert_eq!(normalise("a; # b"), "a; # b");
}

#[test]
fn a_block_comment_across_lines_does_not_end_a_directive() {
    assert_eq!(
        normalise("#define A 1 /* spans\n lines */ + 2\nint x;"),
        "#define A 1 + 2\nint x;"
    );
}

#[test]
fn line_splices_join_outside_literals() {
    assert_eq!(normalise("in\\\nt x;"), "int x;");
    assert_eq!(
        normalise("#define A 1 \\\n  + 2\nint x;"),
        "#define A 1 + 2\nint x;"
    );
    // A `\`-newline continues a line comment.
    assert_eq!(normalise("// note \\\n int hidden;\nint x;"), "int x;");
}

#[test]
fn digit_separators_are_not_character_literals() {
    assert_eq!(
        normalise("int n = 1'000'000; // it's"),
        "int n = 1'000'000;"
    );
    assert_eq!(normalise("float f = 1e-5f; // x"), "float f = 1e-5f;");
}

#[test]
fn crlf_is_a_newline() {
    assert_eq!(
        normalise("#define A 1\r\nint x;\r\n"),
        normalise("#define A 1\nint x;\n")
    );
}

#[test]
fn quoted_includes_are_found() {
    let n = normalise("# include \"a.cuh\" // x\n#include <cuda.h>\n#include\"b.h\"\nint x;");
    assert_eq!(quoted_includes(&n), ["a.cuh", "b.h"]);
}
