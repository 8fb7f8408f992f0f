//! Tests of `source`.

use super::unclosed_array_help;

const COMMA: &str = "missing comma between array elements, expected `,`";

fn help(text: &str, message: &str, at_line: usize) -> Option<String> {
    let at = text
        .split_inclusive('\n')
        .take(at_line - 1)
        .map(str::len)
        .sum::<usize>();
    unclosed_array_help(message, text, 0, at)
}

/// New-user audit (session 13): `block = ["256"` without `]` was reported on the next line,
/// with no word of the `[` left open.
#[test]
fn an_array_left_open_is_named_by_its_line() {
    let t = "[[variant]]\nname = \"v\"\nblock = [\"256\"\nargs = [\"x\"]\n";
    assert_eq!(
        help(t, COMMA, 4).as_deref(),
        Some("the `[` on line 3 is not closed: end the array with `]`")
    );
    // At the end of the input TOML says "unclosed array", on the open line itself.
    let t = "variants = [\"a\", \"b\"";
    assert_eq!(
        unclosed_array_help("unclosed array, expected `]`", t, 0, t.len()).as_deref(),
        Some("the `[` on line 1 is not closed: end the array with `]`")
    );
}

/// Review of the first version (session 13): a closed multi-line array, a bracket in a string
/// or a table header above the error gave a wrong line.
#[test]
fn closed_arrays_strings_and_headers_are_not_open_arrays() {
    // A comma missing between two claims of a closed multi-line array: not an open `[`.
    let t = "expect = [\n  \"a < b\"\n  \"c < d\",\n]\n";
    assert_eq!(help(t, COMMA, 3), None);
    let t = "args = [\n \"x\",\n]\nblock = [256 512]\n";
    assert_eq!(help(t, COMMA, 4), None);
    // Escaped quotes and brackets inside strings, a header, a comment.
    let t = "label = \"a \\\"[x\\\" b\"\n[[variant]] # [\nname = \"v\"\n";
    assert_eq!(help(t, COMMA, 3), None);
    // Multi-line strings are text.
    let t = "doc = \"\"\"\n[ not an array\n\"\"\"\nblock = [1\nargs = [2]\n";
    assert_eq!(
        help(t, COMMA, 5).as_deref(),
        Some("the `[` on line 4 is not closed: end the array with `]`")
    );
    // An unclosed array *table* header is another error.
    assert_eq!(help("[[variant\n", "unclosed array table", 1), None);
}
